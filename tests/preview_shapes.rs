//! `render --preview sphere|cube|plane|torus`: one material on a generated shape, lit by
//! the scene's lights. The sphere's pixels equal the CPU reference (GX vertex lighting,
//! interpolated as the rasterizer does, then the TEV) at probe points, and the command
//! renders every shape.

use std::path::PathBuf;
use std::process::Command;

use tevscope::gx::lighting::{VertexResult, run_vertex};
use tevscope::gx::lights::LightPreset;
use tevscope::gx::tev::{PixelInputs, TevProgram, evaluate};
use tevscope::gx::types::Blend;
use tevscope::gx::wgsl::interface::GpuVertex;
use tevscope::image::RgbaImage;
use tevscope::load::{LoadRequest, load};
use tevscope::model::CpuModel;
use tevscope::model::shapes::{PreviewShape, preview_model};
use tevscope::render::RenderContext;
use tevscope::render::scene::Scene;

const SHOWCASE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak:showcase");

fn showcase() -> CpuModel {
    let (model, _) = load(&LoadRequest::new(SHOWCASE)).expect("the demo loads");
    model.assets.into_cpu_model().expect("model")
}

/// The vertex results and the winning (nearest) triangle's perspective-correct weights
/// at the centre of pixel (x, y) of a `w` × `h` target; None when no triangle covers it.
fn covering(
    model: &CpuModel,
    verts: &[VertexResult],
    (x, y): (u32, u32),
    (w, h): (u32, u32),
) -> Option<([usize; 3], [f32; 3])> {
    let (px, py) = (x as f32 + 0.5, y as f32 + 0.5);
    let screen = |v: &VertexResult| {
        let [cx, cy, cz, cw] = v.clip_position;
        (
            (cx / cw * 0.5 + 0.5) * w as f32,
            (0.5 - cy / cw * 0.5) * h as f32,
            cz / cw,
            cw,
        )
    };
    let mut best: Option<(f32, [usize; 3], [f32; 3])> = None;
    for t in &model.surfaces[0].triangles {
        let idx = t.map(|i| i as usize);
        let s = idx.map(|i| screen(&verts[i]));
        let area = (s[1].0 - s[0].0) * (s[2].1 - s[0].1) - (s[2].0 - s[0].0) * (s[1].1 - s[0].1);
        if area.abs() < 1e-6 {
            continue;
        }
        let edge = |a: usize, b: usize| {
            ((s[b].0 - s[a].0) * (py - s[a].1) - (px - s[a].0) * (s[b].1 - s[a].1)) / area
        };
        let l = [edge(1, 2), edge(2, 0), edge(0, 1)];
        if l.iter().any(|&v| v < 0.0) {
            continue;
        }
        let depth: f32 = (0..3).map(|k| l[k] * s[k].2).sum();
        let persp: [f32; 3] = std::array::from_fn(|k| l[k] / s[k].3);
        let sum: f32 = persp.iter().sum();
        let weights = persp.map(|p| p / sum);
        if best.is_none_or(|(d, _, _)| depth < d) {
            best = Some((depth, idx, weights));
        }
    }
    best.map(|(_, i, w)| (i, w))
}

#[test]
fn sphere_pixels_match_the_cpu_reference_at_probe_points() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let source = showcase();
    let (w, h) = (128u32, 128u32);
    let probes = [(64, 64), (52, 54), (80, 60), (64, 44), (48, 76), (78, 78)];
    let (mut checked_materials, mut compared) = (0, 0);
    for index in 0..source.material_sets[0].materials.len() {
        let mut material = source.material_sets[0].materials[index].clone();
        let Ok(gx) = &material.gx else { continue };
        // Blending mixes in the background; the alpha test may leave holes.
        if gx.blend != Blend::OPAQUE {
            continue;
        }
        // No textures: every map draws the white placeholder, so the CPU side needs no
        // filtering model and the comparison is about lighting, interpolation and the TEV.
        material.textures.clear();
        let model = preview_model(PreviewShape::Sphere, material, Default::default());
        let mut scene = Scene::new(&ctx, model.clone()).expect("scene");
        scene.set_lights(LightPreset::Basic.light_set());
        let image = scene.render_to_image(&ctx, w, h, false).expect("render");
        let gx = scene.material(0, 0).expect("material").clone();
        let key = scene.shader_key(0).expect("key").vertex.clone();
        let uniforms = scene.draw_uniforms(0).expect("uniforms");
        let program = TevProgram::from_material(&gx, &scene.options().tev);
        let verts: Vec<VertexResult> = (0..model.mesh.len())
            .map(|i| {
                let v = GpuVertex {
                    position: model.mesh.positions[i],
                    normal: model.mesh.normals[i],
                    color0: model.mesh.colors[0][i],
                    color1: model.mesh.colors[1][i],
                    tex: model.mesh.tex[i],
                };
                run_vertex(&key, &uniforms, &v)
            })
            .collect();
        for &(x, y) in &probes {
            let (tri, weights) =
                covering(&model, &verts, (x, y), (w, h)).expect("the sphere covers the probe");
            // The rasterizer interpolates the 8-bit channel values as floats; the fragment
            // stage rounds them back.
            let raster: [[u8; 4]; 2] = std::array::from_fn(|ch| {
                std::array::from_fn(|c| {
                    let v: f32 = (0..3)
                        .map(|k| {
                            let col = if ch == 0 {
                                verts[tri[k]].color0
                            } else {
                                verts[tri[k]].color1
                            };
                            weights[k] * f32::from(col[c])
                        })
                        .sum();
                    v.round().clamp(0.0, 255.0) as u8
                })
            });
            let trace = evaluate(
                &program,
                &PixelInputs::sampled(&program, raster, |_, _| [255; 4]),
            );
            if !trace.alpha_pass {
                continue;
            }
            let got = image.pixel(x, y);
            for c in 0..3 {
                let d = (i32::from(got[c]) - i32::from(trace.rgba[c])).abs();
                assert!(
                    d <= 3,
                    "material {index}, pixel ({x}, {y}): GPU {got:?}, CPU {:?} (raster {raster:?})",
                    trace.rgba
                );
            }
            compared += 1;
        }
        checked_materials += 1;
    }
    assert!(
        checked_materials >= 3,
        "only {checked_materials} opaque materials"
    );
    assert!(
        compared >= 3 * probes.len() / 2,
        "only {compared} probes passed the alpha test"
    );
}

fn tevscope(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tevscope"))
        .args(args)
        .output()
        .expect("run tevscope");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn render_previews_every_shape() {
    if RenderContext::for_tests().is_none() {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("preview_shapes");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut images = Vec::new();
    for shape in PreviewShape::ALL {
        let png = dir.join(format!("{}.png", shape.name()));
        let png = png.to_string_lossy();
        let (ok, out, err) = tevscope(&[
            "render",
            SHOWCASE,
            "--preview",
            shape.name(),
            "--material",
            "1",
            "--size",
            "96x96",
            "--lights",
            "basic",
            "-o",
            &png,
        ]);
        assert!(ok, "{shape:?}: {err}");
        assert!(
            out.contains(&format!("material 1 on a {}", shape.name())),
            "{out}"
        );
        let image = RgbaImage::load_png(&*png).expect("png");
        let corner = image.pixel(0, 0);
        let centre = image.pixel(48, 48);
        assert_ne!(corner, centre, "{shape:?}: nothing drawn at the centre");
        images.push(image);
    }
    for i in 0..images.len() {
        for j in i + 1..images.len() {
            assert_ne!(
                images[i].pixels, images[j].pixels,
                "shapes {i} and {j} look alike"
            );
        }
    }
    let (ok, _, err) = tevscope(&[
        "render",
        SHOWCASE,
        "--preview",
        "sphere",
        "--material",
        "999",
        "-o",
        "/dev/null",
    ]);
    assert!(!ok && err.contains("no material 999"), "{err}");
}
