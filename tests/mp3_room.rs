//! The MP3 test room (`demo::room_mp3`, an MREA version 0x1E made by tevscope's own MP3
//! area writer; no MP3 area fixture exists), loaded as `tevscope render` loads it:
//!
//! - it loads without warnings: 3 world models, 4 MP3 materials (4 PASS configurations)
//!   through the PASS → TEV synthesis, 4 light layers, its 64-bit-ID textures;
//! - lit by its own light layer 0 it draws a golden image; other layers draw other pictures;
//! - the lit floor's pixels equal the CPU references (vertex stage `gx::lighting` and TEV
//!   `gx::tev`) fed with the texels under them;
//! - hostile input: every truncation is refused, corruption never panics, errors name the
//!   file, field and offset, odd values are warnings.

mod golden;

use glam::Vec3;
use golden::{check_golden, compare, project};
use tevscope::camera::OrbitCamera;
use tevscope::demo::room_mp3::{self, FLOOR, build_mp3_room, texture_id};
use tevscope::demo::textures::{ROOM_BLOCK, TEX_ROOM_LIGHTMAP, TEX_ROOM_TILES};
use tevscope::formats::mrea::parse_mrea;
use tevscope::gx::lighting::run_vertex;
use tevscope::gx::tev::{PixelInputs, TevProgram, evaluate};
use tevscope::gx::wgsl::interface::GpuVertex;
use tevscope::load::{LoadRequest, LoadedModel, ModelAssets, load, scene_lights};
use tevscope::model::TextureData;
use tevscope::render::RenderContext;
use tevscope::render::scene::Scene;
use tevscope::testing::Scratch;

/// The room and its textures written to a folder; returns the MREA path.
fn write_room(dir: &Scratch) -> String {
    let room = build_mp3_room().expect("the MP3 room builds");
    let path = dir.join("0xDE0A000000000001.MREA");
    std::fs::write(&path, &room.mrea).expect("write MREA");
    for (id, bytes) in &room.textures {
        std::fs::write(dir.join(format!("0x{id:016X}.TXTR")), bytes).expect("write TXTR");
    }
    path.display().to_string()
}

fn room(dir: &Scratch) -> LoadedModel {
    let (model, warnings) = load(&LoadRequest::new(&write_room(dir))).expect("the room loads");
    assert!(warnings.is_empty(), "{warnings:?}");
    model
}

fn camera(yaw: f32, pitch: f32, distance: f32) -> OrbitCamera {
    OrbitCamera {
        yaw_degrees: yaw,
        pitch_degrees: pitch,
        distance,
        target: [0.0, 0.0, 1.0],
        ..OrbitCamera::default()
    }
}

#[test]
fn the_mp3_room_loads_with_its_layers_materials_and_textures() {
    let dir = Scratch::new("mp3-room-load");
    let model = room(&dir);
    assert_eq!(model.light_layers.len(), 4);
    assert_eq!(
        model.light_layers.iter().map(Vec::len).collect::<Vec<_>>(),
        [4, 2, 2, 0]
    );
    assert_eq!(model.world_models.len(), 3);
    assert_eq!(model.assets.cmdl.version, 5);
    assert_eq!(model.assets.textures.len(), room_mp3::ROOM_TEXTURES.len());
    let cpu = model.assets.cpu_model().expect("cpu model");
    assert_eq!(cpu.surfaces.len(), 4);
    assert!(cpu.warnings.is_empty(), "{:?}", cpu.warnings);
    let set = &cpu.material_sets[0];
    assert_eq!(set.materials.len(), 4);
    let mut configurations = std::collections::BTreeSet::new();
    for m in &model
        .assets
        .cmdl
        .mp3_materials
        .as_ref()
        .expect("MP3 set")
        .sets[0]
        .materials
    {
        let p = m.program(&Default::default());
        assert!(p.program.warnings.is_empty(), "{:?}", p.program.warnings);
        configurations.insert(format!("{:?}", p.program.configuration));
    }
    assert_eq!(configurations.len(), 3, "{configurations:?}");
    for m in &set.materials {
        assert!(m.gx.is_ok());
        for id in m.textures.iter().flatten() {
            assert!(*id > u64::from(u32::MAX), "64-bit IDs: {id:#x}");
            assert!(model.assets.textures.contains_key(id), "{id:#x} loaded");
        }
    }
}

#[test]
fn the_mp3_room_renders_lit_by_its_own_layer0() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let dir = Scratch::new("mp3-room-golden");
    let model = room(&dir);
    let layers = model.light_layers.clone();
    let own = scene_lights(None, &layers).expect("lights");
    assert_eq!(own, scene_lights(Some("layer0"), &layers).expect("layer0"));
    assert!(scene_lights(Some("layer4"), &layers).is_err());
    let mut scene = Scene::new(&ctx, model.assets.into_cpu_model().expect("model")).expect("scene");
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    let (w, h) = (480, 300);
    let cam = camera(30.0, 35.0, 11.0);
    scene.set_camera(cam);
    scene.set_lights(own);
    let image = scene.render_to_image(&ctx, w, h, false).expect("render");
    for p in [
        Vec3::new(0.5, 0.0, 0.0),
        Vec3::new(room_mp3::BOX_CENTRE[0], room_mp3::BOX_CENTRE[1], 1.5),
        Vec3::new(0.0, 3.0, 1.5),
    ] {
        let (x, y) = project(&cam, w, h, p).unwrap_or_else(|| panic!("{p} off screen"));
        assert_ne!(image.pixel(x, y), image.pixel(0, 0), "{p} not drawn");
    }
    for other in ["layer1", "layer2", "layer3", "basic"] {
        scene.set_lights(scene_lights(Some(other), &layers).expect("lights"));
        let lit = scene.render_to_image(&ctx, w, h, false).expect("render");
        assert!(
            compare(&image, &lit, 0, 0.0).is_some(),
            "lights {other} draw the same picture as layer 0"
        );
    }
    check_golden("mp3_room_overview", &image);
}

/// The decoded RGBA of texel (x, y) of level 0.
fn texel(t: &TextureData, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * t.width + x) * 4) as usize;
    t.levels[0][i..i + 4].try_into().expect("4 bytes")
}

/// The texel under `uv` (wrapping) and whether a bilinear footprint stays inside its flat
/// 4×4 block.
fn block_texel(t: &TextureData, uv: [f32; 2]) -> ([u8; 4], bool) {
    let coord = |c: f32, n: u32| (c * n as f32).rem_euclid(n as f32);
    let (u, v) = (coord(uv[0], t.width), coord(uv[1], t.height));
    let inside = |c: f32| (1.0..=ROOM_BLOCK as f32 - 1.0).contains(&(c % ROOM_BLOCK as f32));
    (texel(t, u as u32, v as u32), inside(u) && inside(v))
}

/// Layer 2 (ambient + directional) lights the flat floor evenly, so every floor pixel is
/// the CPU vertex stage's colour through the CPU TEV with the two texels under it.
#[test]
fn lit_floor_pixels_equal_the_cpu_references() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let dir = Scratch::new("mp3-room-floor");
    let model = room(&dir);
    let layers = model.light_layers.clone();
    let assets = model.assets;
    let tiles = &assets.textures[&texture_id(TEX_ROOM_TILES)];
    let lightmap = &assets.textures[&texture_id(TEX_ROOM_LIGHTMAP)];
    let mut cmdl = assets.cmdl.clone();
    cmdl.surfaces.retain(|s| s.material_index == FLOOR);
    assert_eq!(cmdl.surfaces.len(), 1);
    let mut floor = ModelAssets::new(cmdl);
    floor.textures = assets.textures.clone();
    let cpu = floor.into_cpu_model().expect("model");
    let map_ids: Vec<u64> = cpu.material_sets[0].materials[FLOOR as usize]
        .textures
        .iter()
        .map(|t| *t.as_ref().expect("texture id"))
        .collect();
    let mut scene = Scene::new(&ctx, cpu.clone()).expect("scene");
    scene.set_lights(scene_lights(Some("layer2"), &layers).expect("layer2"));
    let cam = OrbitCamera {
        target: [0.0, 0.0, 0.0],
        ..camera(20.0, 70.0, 11.0)
    };
    scene.set_camera(cam);
    let (w, h) = (512, 384);
    let image = scene.render_to_image(&ctx, w, h, false).expect("render");
    let index = FLOOR as usize;
    let gx = scene.material(0, index).expect("material").clone();
    assert!(gx.color0.is_some_and(|c| c.lighting), "the floor is lit");
    let key = scene.shader_key(index).expect("key").vertex.clone();
    let uniforms = scene.draw_uniforms(index).expect("uniforms");
    let program = TevProgram::from_material(&gx, &scene.options().tev);
    let raster: Vec<[[u8; 4]; 2]> = (0..cpu.mesh.len())
        .map(|i| {
            let v = GpuVertex {
                position: cpu.mesh.positions[i],
                normal: cpu.mesh.normals[i],
                color0: cpu.mesh.colors[0][i],
                color1: cpu.mesh.colors[1][i],
                tex: cpu.mesh.tex[i],
            };
            let r = run_vertex(&key, &uniforms, &v);
            [r.color0, r.color1]
        })
        .collect();
    assert!(raster.windows(2).all(|p| p[0] == p[1]), "even lighting");
    assert_ne!(raster[0][0][..3], [0, 0, 0], "the floor receives light");
    let texture_of = |map: u8| {
        let id = map_ids[usize::from(map)];
        if id == texture_id(TEX_ROOM_TILES) {
            tiles
        } else {
            assert_eq!(id, texture_id(TEX_ROOM_LIGHTMAP));
            lightmap
        }
    };
    let (mut checked, mut colours) = (0, std::collections::BTreeSet::new());
    let steps = 64;
    for j in 0..steps {
        for i in 0..steps {
            let p = [
                -4.0 + 8.0 * (i as f32 + 0.5) / steps as f32,
                -3.0 + 6.0 * (j as f32 + 0.5) / steps as f32,
                0.0,
            ];
            // One repeat per 2 units (demo::room_mp3::panel).
            let uv = [(p[0] + 4.0) / 2.0, (p[1] + 3.0) / 2.0];
            let (a, a_flat) = block_texel(tiles, uv);
            let (b, b_flat) = block_texel(lightmap, uv);
            if !(a_flat && b_flat) {
                continue;
            }
            let (x, y) = project(&cam, w, h, Vec3::from(p)).expect("floor point on screen");
            let inputs = PixelInputs::sampled(&program, raster[0], |map, _| {
                block_texel(texture_of(map), uv).0
            });
            let want = evaluate(&program, &inputs).rgba;
            let got = image.pixel(x, y);
            assert_eq!(
                got[..3],
                want[..3],
                "floor at ({:.3}, {:.3}), pixel ({x}, {y}): tile {a:?}, lightmap {b:?}",
                p[0],
                p[1]
            );
            checked += 1;
            colours.insert(want);
        }
    }
    assert!(checked > 300, "only {checked} floor points checked");
    assert!(colours.len() > 10, "only {} colours", colours.len());
}

#[test]
fn hostile_mp3_rooms_are_refused_by_name_or_warned_about() {
    let room = build_mp3_room().expect("builds");
    let bytes = room.mrea;
    let m = parse_mrea(&bytes, "room.MREA").expect("parses");
    // Every truncation loses a section or block and is refused; corruption never panics.
    let rejected = tevscope::testing::torture(&bytes, 3000, |d| parse_mrea(d, "room.MREA"));
    // (Cuts inside the zero padding to 64 bytes after the last block lose nothing.)
    assert!(
        rejected >= bytes.len() - 64,
        "{rejected} of {}",
        bytes.len()
    );
    // A world-model count the WOBJ run cannot hold: the header field, at 0x38.
    let mut bad = bytes.clone();
    bad[0x38..0x3C].copy_from_slice(&100u32.to_be_bytes());
    let e = parse_mrea(&bad, "bad.MREA").expect_err("too many world models");
    assert_eq!(
        (e.file.as_str(), e.field.as_str(), e.offset),
        ("bad.MREA", "world_model_count", 0x38)
    );
    // A GPUD index past the sections: the section-ID entry.
    let ids = m.section_ids_offset();
    let gpud = m
        .section_index
        .iter()
        .position(|s| s.name == "GPUD")
        .expect("GPUD");
    let mut bad = bytes.clone();
    let at = (ids + 8 * gpud as u64 + 4) as usize;
    bad[at..at + 4].copy_from_slice(&999u32.to_be_bytes());
    let e = parse_mrea(&bad, "bad.MREA").expect_err("GPUD out of range");
    assert_eq!(e.field, format!("section_id[{gpud}] (GPUD).index"));
    assert_eq!(e.offset, at as u64);
    // Without a GPUD entry the area still lends its lights, with a warning.
    let mut odd = bytes.clone();
    odd[at - 4..at].copy_from_slice(b"XXXX");
    let got = parse_mrea(&odd, "odd.MREA").expect("still parses");
    assert!(got.mp3_geometry.is_none());
    assert!(
        got.warnings.iter().any(|w| w.contains("no GPUD")),
        "{:?}",
        got.warnings
    );
    assert_eq!(got.lights_section, m.lights_section);
}

/// `info --json` on the MP3 room: the world geometry with each material's `gx` program, the
/// MP3 light fields per layer and `DEPS` per layer.
#[test]
fn info_json_reports_world_models_materials_lights_and_deps() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_tevscope"))
        .args(["info", "--json", &format!("{MP3_DEMO}:room")])
        .output()
        .expect("run tevscope");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let j: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(j["game"], "MP3");
    assert_eq!(j["version"], 0x1E);
    assert_eq!(j["warnings"].as_array().map(Vec::len), Some(0));
    let g = &j["mp3_geometry"];
    assert_eq!(g["world_model_count"], 3);
    assert_eq!(g["triangle_count"], 290);
    assert_eq!(g["world_models"][2]["surface_count"], 2);
    assert_eq!(g["world_models"][0]["normal_format"], "f32 (stride 12)");
    assert_eq!(g["world_models"][1]["mesh_info"][0]["mesh_id"], 0);
    let materials = g["material_set"]["materials"]
        .as_array()
        .expect("materials");
    assert_eq!(materials.len(), 4);
    let configurations: Vec<&str> = materials
        .iter()
        .map(|m| m["gx"]["configuration"].as_str().expect("configuration"))
        .collect();
    assert_eq!(
        configurations,
        [
            "FullRenderOpaque",
            "FullRenderOpaque",
            "MaterialAlphaCompare",
            "NoBloomTransparent"
        ]
    );
    let stage = &materials[0]["gx"]["tev_stages"][0];
    for key in [
        "color_inputs",
        "alpha_inputs",
        "color_op",
        "texture_pass",
        "tex_swap_rgba",
    ] {
        assert!(!stage[key].is_null(), "stage field {key}: {stage}");
    }
    let layers = j["lights_section"]["layers"].as_array().expect("layers");
    assert_eq!(layers.len(), 4);
    let light = &layers[0][1];
    assert_eq!(light["type_name"], "directional");
    assert_eq!(light["codirection"], serde_json::json!([0.0, 0.0, 1.0]));
    assert_eq!(light["color_rgba"][3], 1.0);
    assert_eq!(
        light["unknown_floats_0x51"],
        serde_json::json!([0.0, 1.0, 0.0, 0.0])
    );
    assert_eq!(light["gx"]["kind"], "light");
    let deps = &j["dependencies"];
    assert_eq!(deps["layers"].as_array().map(Vec::len), Some(2));
    assert_eq!(deps["layers"][1][0]["type"], "TXTR");
    assert_eq!(deps["area_wide"][0]["id"], "0xDE0A000000000001");
}

const MP3_DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo_mp3.pak");

/// A material of the MP3 room edited through the MP3 material patcher: an empty save writes
/// the PAK back byte for byte; the edit survives a save and a re-read with the world models
/// untouched, changes the pixels, and undo gives the original bytes.
#[test]
fn an_mp3_room_material_edit_saves_rereads_and_undoes() {
    use tevscope::edit::{Document, Edited};
    let dir = Scratch::new("mp3-room-edit");
    let pak = dir.join("demo_mp3.pak");
    std::fs::copy(MP3_DEMO, &pak).expect("copy");
    let spec = format!("{}:room", pak.display());
    let mut doc = Document::open(&spec).expect("opens");
    assert!(matches!(doc.edited(), Edited::Area(_)));
    let original = doc.model_bytes().expect("bytes");
    let same = dir.join("same.pak");
    doc.save_to(&same).expect("saves");
    assert!(std::fs::read(&same).expect("read") == std::fs::read(MP3_DEMO).expect("read"));
    let base = "/material_sets/0/materials";
    let patch: json_patch::Patch = serde_json::from_value(serde_json::json!([
        {"op": "test", "path": format!("{base}/1/elements/1/type"), "value": "DIFB"},
        {"op": "replace", "path": format!("{base}/1/elements/1/rgba8"), "value": [255, 40, 20, 255]},
        {"op": "replace", "path": format!("{base}/0/elements/0/texture_id"), "value": "0xDE0A0001DE02000A"},
    ]))
    .expect("patch");
    doc.apply_patch(&patch, "recolour").expect("applies");
    assert!(doc.is_dirty());
    let edited = doc.mp3_materials().expect("MP3 set").clone();
    let out = dir.join("edited.pak");
    doc.save_to(&out).expect("saves");
    let saved_spec = format!("{}:room", out.display());
    let (resource, _) = tevscope::load::source::open(&saved_spec).expect("reopens");
    let area = parse_mrea(&resource.bytes, "saved").expect("parses");
    let before = parse_mrea(&original, "original").expect("parses");
    let (g, g0) = (
        area.mp3_geometry.as_ref().expect("geometry"),
        before.mp3_geometry.as_ref().expect("geometry"),
    );
    assert_eq!(g.materials.sets, edited.sets);
    assert_ne!(g.materials.sets, g0.materials.sets);
    assert_eq!(g.gpud_sections(), g0.gpud_sections());
    assert_eq!(g.wobj_sections()[1..], g0.wobj_sections()[1..]);
    assert_eq!(area.lights_section, before.lights_section);
    assert!(area.to_bytes().expect("writes") == resource.bytes);
    assert!(doc.undo());
    assert!(doc.model_bytes().expect("bytes") == original);
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let render = |spec: &str| {
        let (model, _) = load(&LoadRequest::new(spec)).expect("loads");
        let layers = model.light_layers.clone();
        let mut scene =
            Scene::new(&ctx, model.assets.into_cpu_model().expect("model")).expect("scene");
        scene.set_camera(camera(30.0, 35.0, 11.0));
        scene.set_lights(scene_lights(None, &layers).expect("lights"));
        scene
            .render_to_image(&ctx, 160, 100, false)
            .expect("render")
    };
    let (a, b) = (render(&spec), render(&saved_spec));
    let changed = a
        .pixels
        .chunks(4)
        .zip(b.pixels.chunks(4))
        .filter(|(x, y)| x != y)
        .count();
    assert!(changed > 160 * 100 / 8, "only {changed} pixels changed");
}

/// `worlds` on the demo's MP3 PAK: its MP3 MLVL lists the room (by its internal name, with
/// its two layers), and the room's spec opens it with its four light layers.
#[test]
fn worlds_lists_the_mp3_room_and_its_spec_opens_it() {
    let report =
        tevscope::load::worlds::list_worlds(std::path::Path::new(MP3_DEMO), None).expect("worlds");
    assert_eq!(report.worlds.len(), 1);
    let w = &report.worlds[0];
    assert_eq!(w.game, tevscope::formats::Game::Mp3);
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
    assert_eq!(w.areas.len(), 1);
    let a = &w.areas[0];
    assert_eq!(a.name, "mp3_room");
    assert_eq!(a.mrea_id, "0xDE0A000000000001");
    assert_eq!(a.layers.len(), 2);
    let (model, warnings) = load(&LoadRequest::new(&a.spec)).expect("the room opens");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(model.light_layers.len(), 4);
    assert_eq!(model.world_models.len(), 3);
}

/// An MP3 occluder material (flag 0x100) is not drawn unless occluders are shown.
#[test]
fn mp3_occluder_surfaces_are_hidden_unless_shown() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let dir = Scratch::new("mp3-room-occluder");
    let model = room(&dir);
    let layers = model.light_layers.clone();
    let mut assets = model.assets;
    // The box alone, made an occluder.
    assets
        .cmdl
        .surfaces
        .retain(|s| s.material_index == room_mp3::BOX);
    let set = &mut assets.cmdl.mp3_materials.as_mut().expect("MP3 set").sets[0];
    set.materials[room_mp3::BOX as usize].flags |= 0x100;
    let cpu = assets.into_cpu_model().expect("model");
    let draw = |show_occluders: bool| {
        let options = tevscope::render::scene::SceneOptions {
            show_occluders,
            ..Default::default()
        };
        let mut scene = Scene::with_options(&ctx, cpu.clone(), options).expect("scene");
        scene.set_camera(camera(30.0, 35.0, 11.0));
        scene.set_lights(scene_lights(None, &layers).expect("lights"));
        scene.render_to_image(&ctx, 96, 64, false).expect("render")
    };
    let hidden = draw(false);
    let corner = hidden.pixel(0, 0);
    assert!(
        hidden.pixels.chunks(4).all(|p| p == corner),
        "an occluder was drawn"
    );
    let shown = draw(true);
    assert!(
        shown.pixels.chunks(4).any(|p| p != corner),
        "shown occluders draw the box"
    );
}
