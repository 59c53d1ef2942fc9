//! MP3's second draw (NoBloomAdditiveIncandescence with an INCA pass, `formats.md` §13.3):
//! the scene draws the surface again with the second program, blended SRCALPHA/ONE over
//! the first draw, on both shader paths. Probe pixels of the fixture's INCA material on a
//! plane equal the CPU reference: TEV of the first program blended over the background,
//! then TEV of the second blended over that.
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;

use tevscope::formats::cmdl::Cmdl;
use tevscope::gx::lighting::run_vertex;
use tevscope::gx::tev::{BlendOptions, PixelInputs, TevProgram, blend, evaluate};
use tevscope::gx::wgsl::interface::GpuVertex;
use tevscope::load::cpu_mp3_material_set;
use tevscope::model::shapes::{PreviewShape, preview_model};
use tevscope::model::{CpuMaterial, CpuModel, TextureData};
use tevscope::render::scene::{Scene, SceneOptions};
use tevscope::render::{RenderContext, ShaderPath};
use tevscope::testing::conformance_dir;

/// The fixture material with a second draw, each of its textures a distinct solid colour
/// (sampling is then exact wherever the plane is hit).
fn inca_material() -> Option<(CpuMaterial, HashMap<u64, [u8; 4]>)> {
    let dir = conformance_dir()?.join("mp3");
    let mut found = Vec::new();
    for name in ["0x0C3F1E7D00000100.CMDL", "0x0C3F1E7D00000101.CMDL"] {
        let cmdl = Cmdl::parse(&std::fs::read(dir.join(name)).unwrap(), name).unwrap();
        let set = cpu_mp3_material_set(&cmdl.mp3_materials.unwrap().sets[0], &Default::default());
        found.extend(
            set.materials
                .into_iter()
                .filter(|m| m.second_draw.is_some()),
        );
    }
    assert_eq!(
        found.len(),
        1,
        "the fixtures have one material with a second draw"
    );
    let material = found.pop()?;
    let first = material.textures.iter().map(|t| *t.as_ref().unwrap());
    let mut colours = HashMap::new();
    for (k, id) in first.enumerate() {
        let k = k as u8;
        colours
            .entry(id)
            .or_insert([90 + 40 * k, 170 - 30 * k, 60 + 50 * k, 120 + 30 * k]);
    }
    // The additive maps dim, so that the sum stays below saturation and tells values apart.
    for (k, t) in material.second_draw.as_ref()?.textures.iter().enumerate() {
        let k = k as u8;
        colours
            .entry(*t.as_ref().unwrap())
            .or_insert([40 + 10 * k, 25, 60 - 10 * k, 200]);
    }
    Some((material, colours))
}

/// The TEV output of `gx` drawn by slot `slot` of `scene` at the plane's vertex 0, its
/// maps sampling `colours` by the IDs of `ids`.
fn tev_output(
    scene: &Scene,
    model: &CpuModel,
    slot: usize,
    gx: &tevscope::gx::types::Material,
    ids: &[u64],
    colours: &HashMap<u64, [u8; 4]>,
) -> [u8; 4] {
    let key = scene.shader_key(slot).unwrap().vertex.clone();
    let uniforms = scene.draw_uniforms(slot).unwrap();
    let raster: Vec<[[u8; 4]; 2]> = (0..model.mesh.len())
        .map(|i| {
            let r = run_vertex(
                &key,
                &uniforms,
                &GpuVertex {
                    position: model.mesh.positions[i],
                    normal: model.mesh.normals[i],
                    color0: model.mesh.colors[0][i],
                    color1: model.mesh.colors[1][i],
                    tex: model.mesh.tex[i],
                },
            );
            [r.color0, r.color1]
        })
        .collect();
    assert!(
        raster.windows(2).all(|p| p[0] == p[1]),
        "even raster colours"
    );
    let program = TevProgram::from_material(gx, &scene.options().tev);
    let inputs = PixelInputs::sampled(&program, raster[0], |map, _| {
        colours[&ids[usize::from(map)]]
    });
    evaluate(&program, &inputs).rgba
}

#[test]
fn the_inca_second_draw_adds_over_the_first_on_both_paths() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let Some((material, colours)) = inca_material() else {
        eprintln!("conformance fixtures absent: the second-draw test is skipped");
        return;
    };
    let textures = colours
        .iter()
        .map(|(&id, &c)| (id, TextureData::solid(8, 8, c)))
        .collect();
    let model = preview_model(PreviewShape::Plane, material.clone(), textures);
    let second = material.second_draw.as_ref().unwrap();
    let ids =
        |m: &CpuMaterial| -> Vec<u64> { m.textures.iter().map(|t| *t.as_ref().unwrap()).collect() };
    let first_gx = material.gx.as_ref().unwrap();
    let second_gx = second.gx.as_ref().unwrap();
    assert!(!second_gx.depth_write, "the second draw writes no depth");
    for path in [ShaderPath::Specialized, ShaderPath::Uber] {
        let options = SceneOptions {
            shader: path,
            ..SceneOptions::default()
        };
        let mut scene = Scene::with_options(&ctx, model.clone(), options).unwrap();
        scene.finish_pipelines(&ctx);
        let (w, h) = (96, 96);
        let image = scene.render_to_image(&ctx, w, h, false).unwrap();
        assert_eq!(
            scene.material_count(),
            1,
            "the second draw is no material of its own"
        );
        // The second draw's slot follows the set's materials.
        let out1 = tev_output(&scene, &model, 0, first_gx, &ids(&material), &colours);
        let out2 = tev_output(&scene, &model, 1, second_gx, &ids(second), &colours);
        // The background (`ClearMode::BACKGROUND`) as the 8-bit target stores it.
        let background = [41, 41, 46, 255];
        let first = blend(first_gx.blend, out1, background, BlendOptions::default());
        let want = blend(second_gx.blend, out2, first, BlendOptions::default());
        assert!(want[..3].iter().all(|&c| c < 250), "unsaturated: {want:?}");
        assert!(
            want.iter()
                .zip(&first)
                .take(3)
                .any(|(a, b)| a.abs_diff(*b) > 8),
            "the second draw changes the pixel: {first:?} → {want:?}"
        );
        for (x, y) in [
            (w / 2, h / 2),
            (w / 2 - 6, h / 2 + 5),
            (w / 2 + 7, h / 2 - 4),
        ] {
            let got = image.pixel(x, y);
            let off = (0..3).map(|c| got[c].abs_diff(want[c])).max().unwrap();
            assert!(
                off <= 1,
                "{path:?} pixel ({x}, {y}): {got:?}, want {want:?} (first draw alone {first:?})"
            );
        }
    }
}

/// glTF has no second draw (a material is one draw): the export keeps the INCA program
/// and its texture IDs in the material's `extras.second_draw`, and only there.
#[test]
fn gltf_export_keeps_the_second_draw_in_extras() {
    use tevscope::cli::export::{ExportRequest, export};
    let Some(dir) = conformance_dir() else {
        eprintln!("conformance fixtures absent: the second-draw export test is skipped");
        return;
    };
    let dir = dir.join("mp3");
    let out = tevscope::testing::Scratch::new("mp3-second-draw-gltf");
    let mut second_draws = Vec::new();
    for name in ["0x0C3F1E7D00000100.CMDL", "0x0C3F1E7D00000101.CMDL"] {
        let path = out.join("model.glb");
        let file = dir.join(name).display().to_string();
        export(
            &ExportRequest {
                file: &file,
                output: &path,
                anim: None,
                set: 0,
                time: None,
                model: None,
                skin: None,
                skeleton: None,
                texture_dirs: Vec::new(),
                game: None,
                bake: None,
            },
            false,
        )
        .unwrap();
        let g = gltf::Gltf::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        for m in g.document.materials() {
            let extras: serde_json::Value =
                serde_json::from_str(m.extras().as_ref().unwrap().get()).unwrap();
            if let Some(s) = extras.get("second_draw") {
                second_draws.push(s.clone());
            }
        }
    }
    let (material, _) = inca_material().unwrap();
    let second = material.second_draw.unwrap();
    assert_eq!(second_draws.len(), 1, "{second_draws:?}");
    let s = &second_draws[0];
    assert_eq!(s["gx"], serde_json::to_value(second.gx.unwrap()).unwrap());
    let ids: Vec<u64> = second
        .textures
        .iter()
        .map(|t| *t.as_ref().unwrap())
        .collect();
    assert_eq!(s["texture_ids"], serde_json::to_value(ids).unwrap());
}

/// A viewer edit of an MP3 material derives both of its draws again: the INCA second draw
/// the scene draws (the CPU model's `second_draw`) follows the document, whether the edit
/// changes the second draw's texture or removes it (no INCA pass left); neither changes the
/// first draw's texture binding.
#[test]
fn an_edit_derives_the_second_draw_again() {
    use tevscope::session::{Change, References, Session};
    let Some(dir) = conformance_dir() else {
        eprintln!("conformance fixtures absent: the second-draw edit test is skipped");
        return;
    };
    let spec = dir
        .join("mp3/0x0C3F1E7D00000101.CMDL")
        .display()
        .to_string();
    let mut session = Session::open(&spec, &References::default()).unwrap();
    // Material 3: DIFF, CLR, INCA (texture 0x…1004) with an OPAC; flags 0x28.
    let drawn = |s: &Session| {
        let model = s.asset().unwrap().cpu_model().unwrap();
        model.material_sets[0].materials[3].clone()
    };
    let derived = |s: &Session| {
        let sets = &s.document().unwrap().mp3_materials().unwrap().sets;
        cpu_mp3_material_set(&sets[0], &Default::default()).materials[3].clone()
    };
    let before = drawn(&session);
    let second = before.second_draw.as_ref().expect("material 3 draws twice");
    assert_eq!(second.textures, [Ok(0x0C3F_1E7D_0000_1004)]);
    let patch = |path: &str, value: serde_json::Value| -> json_patch::Patch {
        serde_json::from_value(serde_json::json!([
            {"op": "replace", "path": format!("/material_sets/0/materials/3/{path}"), "value": value}
        ]))
        .unwrap()
    };
    // The INCA pass samples another of the model's textures: only the second draw's binding
    // changes.
    let change = session
        .apply_patch(
            &patch("elements/2/texture_id", "0x0C3F1E7D00001003".into()),
            "INCA texture",
        )
        .unwrap();
    assert_eq!(
        change,
        Change::Model,
        "the scene must rebuild its second draw"
    );
    let after = drawn(&session);
    assert_eq!(
        after.textures, before.textures,
        "the first draw's binding is the same"
    );
    assert_eq!(
        after.second_draw.as_ref().unwrap().textures,
        [Ok(0x0C3F_1E7D_0000_1003)]
    );
    assert_eq!(after, derived(&session));
    // The INCA pass becomes an XRAY pass (not drawn): NoBloomTransparent, one draw.
    let change = session
        .apply_patch(&patch("elements/2/type", "XRAY".into()), "no INCA")
        .unwrap();
    assert_eq!(change, Change::Model);
    let plain = drawn(&session);
    assert_eq!(plain.textures, before.textures);
    assert!(plain.second_draw.is_none(), "{:?}", plain.second_draw);
    assert_eq!(plain, derived(&session));
    // Undo brings both draws back.
    session.undo().unwrap();
    session.undo().unwrap();
    assert_eq!(drawn(&session), before);
}
