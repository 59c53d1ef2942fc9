//! Stage views (`render --stage K`): on every conformance TEV case and every stage K, the
//! GPU's stage view equals the CPU reference's register trace after stage K (the registers
//! stage K writes, clamped), on both shader paths.

mod tev_common;

use std::path::PathBuf;
use std::process::Command;

use tev_common::*;
use tevscope::gx::tev::{PixelInputs, TevOptions, TevProgram, evaluate};
use tevscope::gx::wgsl::stage_view::StageView;
use tevscope::gx::wgsl::stage_view::stage_view_pixel;
use tevscope::gx::wgsl::vertex::DrawUniforms;
use tevscope::image::RgbaImage;
use tevscope::load::{LoadRequest, load};
use tevscope::model::TextureData;
use tevscope::render::SceneOptions;
use tevscope::render::context::RenderContext;
use tevscope::render::quad::{QuadGeometry, ShaderPath};
use tevscope::render::scene::Scene;

fn stage_options(k: usize) -> TevOptions {
    TevOptions {
        stage_view: Some(k as u8),
        ..TevOptions::default()
    }
}

fn inputs(case: &Case, program: &TevProgram) -> PixelInputs {
    PixelInputs::sampled(program, [[0; 4]; 2], |map, _| case.slot_rgba[map as usize])
}

/// (case, stage, expected stage-view pixel) for every stage of every case, from the CPU
/// reference's trace of the whole program.
fn expectations(cases: &[Case]) -> Vec<(usize, usize, [u8; 4])> {
    let mut out = Vec::new();
    for (ci, case) in cases.iter().enumerate() {
        let program = default_program(&case.material);
        let trace = evaluate(&program, &inputs(case, &program));
        for (k, st) in trace.stages.iter().enumerate() {
            out.push((ci, k, stage_view_pixel(st)));
        }
    }
    out
}

#[test]
fn cpu_stage_view_is_the_fixture_trace_clamped() {
    let Some(cases) = load_cases() else { return };
    let mut negative_or_wide = 0;
    for (ci, k, want) in expectations(&cases) {
        let case = &cases[ci];
        // The fixture's own trace: the registers stage K writes, clamped.
        let full = default_program(&case.material);
        let st = &full.stages[k].stage;
        let regs = &case.trace[k];
        let c = regs[st.color_op.out_reg.index()];
        let a = regs[st.alpha_op.out_reg.index()];
        let fixture = [c[0], c[1], c[2], a[3]].map(|v| {
            let v = v.expect("the register a stage writes is in the trace");
            if !(0..=255).contains(&v) {
                negative_or_wide += 1;
            }
            v.clamp(0, 255) as u8
        });
        assert_eq!(want, fixture, "case {} stage {k}", case.index);
        // The cut program's last stage traces the same as the whole program's stage K.
        let cut = TevProgram::from_material(&case.material, &stage_options(k));
        assert_eq!(cut.stages.len(), k + 1);
        let t = evaluate(&cut, &inputs(case, &cut));
        assert_eq!(stage_view_pixel(&t.stages[k]), want, "case {}", case.index);
        assert!(t.alpha_pass, "a stage view has no alpha test");
    }
    // The clamp is exercised: some stage writes a register outside 0..255.
    assert!(negative_or_wide > 0);
}

#[test]
fn gpu_stage_views_equal_the_reference_trace_on_both_paths() {
    let Some(cases) = load_cases() else { return };
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let expected = expectations(&cases);
    let items: Vec<BatchItem> = expected
        .iter()
        .map(|&(ci, k, _)| {
            let c = &cases[ci];
            BatchItem {
                material: c.material.clone(),
                program: TevProgram::from_material(&c.material, &stage_options(k)),
                textures: c
                    .slot_rgba
                    .iter()
                    .map(|&rgba| Some(TextureData::solid(4, 4, rgba)))
                    .collect(),
            }
        })
        .collect();
    // Stage views differ from the final pixel somewhere, or this proves nothing.
    assert!(
        expected
            .iter()
            .any(|&(ci, _, want)| want != cases[ci].expected)
    );
    let tile = 4;
    for path in [ShaderPath::Specialized, ShaderPath::Uber] {
        let tiles = render_batch(
            &ctx,
            &items,
            tile,
            &QuadGeometry::default(),
            &DrawUniforms::default(),
            path,
        );
        for (&(ci, k, want), img) in expected.iter().zip(&tiles) {
            for y in 0..tile {
                for x in 0..tile {
                    assert_eq!(
                        img.pixel(x, y),
                        want,
                        "case {} stage {k} pixel ({x}, {y}), {path:?}",
                        cases[ci].index
                    );
                }
            }
        }
    }
}

#[test]
fn a_stage_view_is_structure_and_past_the_end_is_the_last_stage() {
    let Some(cases) = load_cases() else { return };
    let case = cases
        .iter()
        .find(|c| c.material.stages.len() >= 2)
        .expect("a case with two stages");
    let m = &case.material;
    let key =
        |o: &TevOptions| tevscope::gx::key::ShaderKey::new(m, &TevProgram::from_material(m, o));
    let plain = key(&TevOptions::default());
    let first = key(&stage_options(0));
    let last = key(&stage_options(m.stages.len() - 1));
    assert_ne!(first, plain);
    assert_ne!(first, last);
    assert!(first.fragment.stage_view && first.fragment.stages.len() == 1);
    assert_eq!(key(&stage_options(15)), last);
}

const SHOWCASE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak:showcase");

fn showcase_image(ctx: &RenderContext, view: Option<StageView>) -> tevscope::image::RgbaImage {
    let (model, _) = load(&LoadRequest::new(SHOWCASE)).expect("the demo loads");
    let model = model.assets.into_cpu_model().expect("model");
    let options = SceneOptions {
        stage_view: view,
        ..SceneOptions::default()
    };
    let mut scene = Scene::with_options(ctx, model, options).expect("scene");
    scene.frame_model();
    scene.render_to_image(ctx, 240, 135, false).expect("render")
}

fn differing(a: &tevscope::image::RgbaImage, b: &tevscope::image::RgbaImage) -> usize {
    a.pixels
        .chunks(4)
        .zip(b.pixels.chunks(4))
        .filter(|(x, y)| x != y)
        .count()
}

#[test]
fn one_materials_stage_view_leaves_the_others_as_they_are() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let shaded = showcase_image(&ctx, None);
    // Showcase material 12: stage 0 writes C0 = TEXC (a checker), the last stage the tint.
    let one = showcase_image(
        &ctx,
        Some(StageView {
            material: Some(12),
            stage: 0,
        }),
    );
    let every = showcase_image(
        &ctx,
        Some(StageView {
            material: None,
            stage: 0,
        }),
    );
    let none = showcase_image(
        &ctx,
        Some(StageView {
            material: Some(999),
            stage: 0,
        }),
    );
    assert_eq!(
        none.pixels, shaded.pixels,
        "no such material: nothing changes"
    );
    let changed_one = differing(&one, &shaded);
    let changed_every = differing(&every, &shaded);
    assert!(changed_one > 20, "{changed_one}");
    assert!(
        changed_every > changed_one,
        "{changed_every} vs {changed_one}"
    );
}

#[test]
fn render_takes_stage_and_refuses_bad_ones() {
    if RenderContext::for_tests().is_none() {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("stage_views");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_tevscope"))
            .args(args)
            .output()
            .expect("run tevscope");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let png = dir.join("stage.png");
    let png = png.to_string_lossy();
    let base = ["render", SHOWCASE, "--size", "96x64", "-o", &png];
    let (ok, out, err) = run(&[&base[..], &["--stage", "0", "--material", "12"]].concat());
    assert!(ok, "{err}");
    assert!(out.contains("stage view: stage 0 of material 12"), "{out}");
    assert!(RgbaImage::load_png(&*png).is_ok());
    let (ok, _, err) = run(&[&base[..], &["--stage", "16"]].concat());
    assert!(!ok && err.contains("--stage 16"), "{err}");
    let (ok, _, err) = run(&[&base[..], &["--stage", "1", "--material", "99"]].concat());
    assert!(!ok && err.contains("no material 99"), "{err}");
    let (ok, _, err) = run(&[&base[..], &["--stage", "0", "--preview", "quad"]].concat());
    assert!(!ok && err.contains("--stage"), "{err}");
}
