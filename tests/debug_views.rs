//! `render --debug VIEW`: every debug view's shader validates for every showcase material,
//! renders the showcase differently from the shaded view and the same way twice, follows
//! a light edit without compiling a pipeline; the command line takes the flag.

use std::path::PathBuf;
use std::process::Command;

use tevscope::gx::lights::LightPreset;
use tevscope::gx::tev::TevOptions;
use tevscope::gx::wgsl::debug::DebugView;
use tevscope::image::RgbaImage;
use tevscope::load::{LoadRequest, load};
use tevscope::model::CpuModel;
use tevscope::render::scene::Scene;
use tevscope::render::{RenderContext, SceneOptions};

const SHOWCASE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak:showcase");

fn showcase() -> CpuModel {
    let (model, _) = load(&LoadRequest::new(SHOWCASE)).expect("the demo loads");
    model.assets.into_cpu_model().expect("model")
}

fn scene(ctx: &RenderContext, model: &CpuModel, debug: Option<DebugView>) -> Scene {
    let options = SceneOptions {
        tev: TevOptions {
            debug,
            ..TevOptions::default()
        },
        ..SceneOptions::default()
    };
    let mut scene = Scene::with_options(ctx, model.clone(), options).expect("scene");
    scene.frame_model();
    scene.set_time(0.5);
    scene
}

#[test]
fn every_debug_shader_validates() {
    let model = showcase();
    let mut count = 0;
    for m in &model.material_sets[0].materials {
        let Ok(material) = &m.gx else { continue };
        for view in DebugView::all() {
            let options = TevOptions {
                debug: Some(view),
                exact_blend: true,
                ..TevOptions::default()
            };
            let source = tevscope::cli::tev::wgsl_with_options(material, false, &options)
                .unwrap_or_else(|e| panic!("{}: {e:#}", view.name()));
            assert!(source.contains(&format!("// Debug view {}.", view.name())));
            // A debug shader never reads the destination.
            assert!(!source.contains("t_dst"), "{}", view.name());
            count += 1;
        }
    }
    assert!(count > 20, "{count}");
}

#[test]
fn snapshot_debug_uv0_shader() {
    let model = showcase();
    let material = model.material_sets[0].materials[1]
        .gx
        .as_ref()
        .expect("material");
    let options = TevOptions {
        debug: Some(DebugView::Uv(0)),
        ..TevOptions::default()
    };
    let source = tevscope::cli::tev::wgsl_with_options(material, false, &options).expect("wgsl");
    insta::assert_snapshot!(source);
}

#[test]
fn debug_views_render_differently_from_shaded_and_deterministically() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let model = showcase();
    let (w, h) = (160, 120);
    let shaded = scene(&ctx, &model, None)
        .render_to_image(&ctx, w, h, false)
        .expect("render");
    let mut seen: Vec<(String, RgbaImage)> = Vec::new();
    for view in [
        DebugView::Normals,
        DebugView::Alpha,
        DebugView::Raster,
        DebugView::Lighting,
        DebugView::Uv(0),
        DebugView::Uv(1),
    ] {
        let mut s = scene(&ctx, &model, Some(view));
        let a = s.render_to_image(&ctx, w, h, false).expect("render");
        let b = s.render_to_image(&ctx, w, h, false).expect("render");
        assert_eq!(a.pixels, b.pixels, "{}: not deterministic", view.name());
        let again = scene(&ctx, &model, Some(view))
            .render_to_image(&ctx, w, h, false)
            .expect("render");
        assert_eq!(
            a.pixels,
            again.pixels,
            "{}: a new scene differs",
            view.name()
        );
        let differing = a
            .pixels
            .chunks(4)
            .zip(shaded.pixels.chunks(4))
            .filter(|(x, y)| x != y)
            .count();
        assert!(
            differing > 500,
            "{}: only {differing} pixels differ from the shaded view",
            view.name()
        );
        for (name, other) in &seen {
            assert_ne!(
                &other.pixels,
                &a.pixels,
                "{} looks like {name}",
                view.name()
            );
        }
        seen.push((view.name(), a));
    }
}

#[test]
fn the_raster_view_follows_a_light_edit_without_compiling() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let model = showcase();
    let mut s = scene(&ctx, &model, Some(DebugView::Raster));
    s.set_lights(LightPreset::Basic.light_set());
    let before = s.render_to_image(&ctx, 160, 120, false).expect("render");
    let pipelines = ctx.pipelines.len();
    s.set_lights(LightPreset::GameNoLights.light_set());
    let after = s.render_to_image(&ctx, 160, 120, false).expect("render");
    assert_eq!(
        ctx.pipelines.len(),
        pipelines,
        "a light edit compiled a pipeline"
    );
    let differing = before
        .pixels
        .chunks(4)
        .zip(after.pixels.chunks(4))
        .filter(|(x, y)| x != y)
        .count();
    assert!(differing > 500, "only {differing} pixels changed");
}

#[test]
fn render_takes_debug_views_and_refuses_bad_ones() {
    if RenderContext::for_tests().is_none() {
        return;
    }
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("debug_views");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_tevscope"))
            .args(args)
            .output()
            .expect("run tevscope");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let png = dir.join("sphere_uv0.png");
    let png = png.to_string_lossy();
    let (ok, err) = run(&[
        "render",
        SHOWCASE,
        "--preview",
        "sphere",
        "--material",
        "1",
        "--debug",
        "uv0",
        "--size",
        "64x64",
        "-o",
        &png,
    ]);
    assert!(ok, "{err}");
    let image = RgbaImage::load_png(&*png).expect("png");
    assert_ne!(image.pixel(32, 32), image.pixel(0, 0));
    let (ok, err) = run(&["render", SHOWCASE, "--debug", "normalz", "-o", &png]);
    assert!(!ok && err.contains("unknown view"), "{err}");
    let (ok, err) = run(&[
        "render", SHOWCASE, "--debug", "alpha", "--shader", "uber", "-o", &png,
    ]);
    assert!(!ok && err.contains("specialized"), "{err}");
}
