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
            // Wireframe shades as usual (its edges are a line pass).
            let in_shader = view != DebugView::Wireframe;
            assert_eq!(
                source.contains(&format!("// Debug view {}.", view.name())),
                in_shader,
                "{}",
                view.name()
            );
            // A debug shader never reads the destination (wireframe's is the material's).
            assert!(!in_shader || !source.contains("t_dst"), "{}", view.name());
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
        DebugView::Depth,
        DebugView::Wireframe,
        DebugView::Overdraw { blended: false },
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

fn differing(a: &RgbaImage, b: &RgbaImage) -> usize {
    a.pixels
        .chunks(4)
        .zip(b.pixels.chunks(4))
        .filter(|(x, y)| x != y)
        .count()
}

/// Depth, wireframe and overdraw follow value edits (camera, lights) with the pipelines
/// they have: no compile.
#[test]
fn depth_wireframe_and_overdraw_follow_edits_without_compiling() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let model = showcase();
    for view in [
        DebugView::Depth,
        DebugView::Wireframe,
        DebugView::Overdraw { blended: false },
    ] {
        let mut s = scene(&ctx, &model, Some(view));
        s.set_lights(LightPreset::Basic.light_set());
        let before = s.render_to_image(&ctx, 160, 120, false).expect("render");
        let pipelines = ctx.pipelines.len();
        if view == DebugView::Wireframe {
            // The shaded pixels under the edges follow a light edit.
            s.set_lights(LightPreset::GameNoLights.light_set());
        } else {
            let mut c = tevscope::camera::OrbitCamera::framing(&s.aabb());
            c.yaw_degrees += 30.0;
            c.distance *= 1.2;
            s.set_camera(c);
        }
        let after = s.render_to_image(&ctx, 160, 120, false).expect("render");
        assert_eq!(
            ctx.pipelines.len(),
            pipelines,
            "{}: an edit compiled a pipeline",
            view.name()
        );
        let changed = differing(&before, &after);
        assert!(
            changed > 500,
            "{}: only {changed} pixels changed",
            view.name()
        );
    }
}

/// The wireframe view is the shaded view with lines over it: most pixels stay shaded,
/// and the changed ones are the edge colour's blend.
#[test]
fn wireframe_draws_edges_over_the_shaded_model() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let model = showcase();
    let shaded = scene(&ctx, &model, None)
        .render_to_image(&ctx, 160, 120, false)
        .expect("render");
    let wire = scene(&ctx, &model, Some(DebugView::Wireframe))
        .render_to_image(&ctx, 160, 120, false)
        .expect("render");
    let changed = differing(&shaded, &wire);
    let total = (160 * 120) as usize;
    assert!(changed > 300 && changed < total / 2, "{changed} of {total}");
    // Edge pixels are brighter than what they cover (a light line at 85 % over it).
    let brighter = shaded
        .pixels
        .chunks(4)
        .zip(wire.pixels.chunks(4))
        .filter(|(x, y)| x != y)
        .filter(|(x, y)| y[1] > x[1])
        .count();
    assert!(brighter * 10 >= changed * 9, "{brighter} of {changed}");
}

/// Overdraw counts: a pixel under more layers is brighter; no pixel of the model is
/// darker than one layer's count.
#[test]
fn overdraw_counts_layers() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let model = showcase();
    let mut s = scene(&ctx, &model, Some(DebugView::Overdraw { blended: false }));
    let image = s.render_to_image(&ctx, 160, 120, true).expect("render");
    // The count starts from black: blue counts opaque layers (steps of 32).
    let mut levels = std::collections::BTreeSet::new();
    for p in image.pixels.chunks(4) {
        if p[2] > 0 {
            levels.insert(p[2]);
        }
    }
    assert!(levels.len() >= 2, "one depth complexity only: {levels:?}");
    assert!(
        levels.iter().all(|&b| b % 32 == 0 || b == 255),
        "{levels:?}"
    );
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
