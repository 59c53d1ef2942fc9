//! Golden images of the built-in demo (`assets/demo.pak`), loaded the way `tevscope render`
//! and the viewer load it (`tevscope::load`) and lit by the demo's own MREA light layer.
//!
//! - The whole showcase from the front, then each of its four rows close up (texture
//!   formats; TEV programs, konst and vertex colours, the lightmap; blending and alpha
//!   test; UV animation modes 0–7 at two times).
//! - The worm character posed by each of its two animations.
//! - GPU skinning of the worm equals CPU skinning (same pose drawn from CPU-skinned
//!   positions and normals).
//!
//! Tolerance and the update switch are in [`golden`]. Every image is also checked for
//! content: each showcase tile's centre must be covered, so a reference cannot silently
//! become an empty picture.

mod golden;

use glam::Vec3;
use golden::{check_golden, compare, out_dir, project};
use tevscope::camera::OrbitCamera;
use tevscope::demo::{self, ShowcaseTile};
use tevscope::formats::cmdl::Cmdl;
use tevscope::geom::Aabb;
use tevscope::image::RgbaImage;
use tevscope::load::ModelAssets;
use tevscope::load::{LoadRequest, load, load_lights};
use tevscope::render::RenderContext;
use tevscope::render::scene::Scene;

const PAK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak");
/// The showcase's UV animations are shown at this time (seconds).
const TIME: f64 = 0.5;

fn spec(name: &str) -> String {
    format!("{PAK}:{name}")
}

/// A demo model as the CLI loads it, lit by the demo's first light layer.
fn demo_scene(ctx: &RenderContext, name: &str) -> (Scene, ModelAssets) {
    let (model, warnings) = load(&LoadRequest::new(&spec(name))).expect("demo loads");
    assert!(warnings.is_empty(), "{name}: {warnings:?}");
    let mut scene = Scene::new(ctx, model.assets.cpu_model().expect("model")).expect("scene");
    assert!(scene.warnings.is_empty(), "{name}: {:?}", scene.warnings);
    scene.set_lights(load_lights(Some(&spec("lights"))).expect("demo lights"));
    (scene, model.assets)
}

/// Each tile's surface centre is drawn (differs from the background of the corner pixel).
fn assert_tiles_covered(
    name: &str,
    image: &RgbaImage,
    camera: &OrbitCamera,
    cmdl: &Cmdl,
    tiles: &[&ShowcaseTile],
) {
    for t in tiles {
        let surface = cmdl
            .surfaces
            .iter()
            .find(|s| s.material_index == t.material_index)
            .expect("tile surface");
        let (x, y) = project(
            camera,
            image.width,
            image.height,
            Vec3::from(surface.center),
        )
        .unwrap_or_else(|| panic!("{name}: tile {} is off screen", t.name));
        assert_ne!(
            image.pixel(x, y),
            image.pixel(0, 0),
            "{name}: tile {} not drawn at ({x}, {y})",
            t.name
        );
    }
}

/// A front camera whose view fits the box in width and height (`aspect` = w / h).
fn front_camera_fitting(aabb: &Aabb, aspect: f32) -> OrbitCamera {
    let (min, max) = (Vec3::from(aabb.min), Vec3::from(aabb.max));
    let mut c = OrbitCamera {
        yaw_degrees: 0.0,
        pitch_degrees: 0.0,
        target: ((min + max) * 0.5).to_array(),
        ..OrbitCamera::default()
    };
    let tan = (c.fov_y_degrees.to_radians() * 0.5).tan();
    let half = (max - min) * 0.5;
    // Tiles face +Y: the picture spans X (width) and Z (height); back off past the depth.
    c.distance = (half.x / (tan * aspect)).max(half.z / tan) * 1.08 + half.y;
    c
}

#[test]
fn showcase_golden_images() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let demo = demo::build().expect("demo builds");
    let (mut scene, assets) = demo_scene(&ctx, "showcase");
    scene.set_time(TIME);
    let (w, h) = (512, 320);
    let all: Vec<&ShowcaseTile> = demo.tiles.iter().filter(|t| t.column.is_some()).collect();

    let whole = front_camera_fitting(&scene.aabb(), w as f32 / h as f32);
    scene.set_camera(whole);
    let image = scene.render_to_image(&ctx, w, h, false).expect("render");
    assert_tiles_covered("demo_showcase", &image, &whole, &assets.cmdl, &all);
    check_golden("demo_showcase", &image);

    let (rw, rh) = (512, 112);
    for row in 0..4 {
        let tiles: Vec<&ShowcaseTile> = all.iter().copied().filter(|t| t.row == row).collect();
        assert!(!tiles.is_empty(), "row {row} has tiles");
        let mut aabb = Aabb {
            min: [f32::MAX; 3],
            max: [f32::MIN; 3],
        };
        for t in &tiles {
            let s = &assets.cmdl.surfaces[t.material_index as usize];
            for k in 0..3 {
                aabb.min[k] = aabb.min[k].min(s.center[k] - 0.55);
                aabb.max[k] = aabb.max[k].max(s.center[k] + 0.55);
            }
        }
        let camera = front_camera_fitting(&aabb, rw as f32 / rh as f32);
        scene.set_camera(camera);
        let name = format!("demo_row{row}");
        let image = scene.render_to_image(&ctx, rw, rh, false).expect("render");
        assert_tiles_covered(&name, &image, &camera, &assets.cmdl, &tiles);
        check_golden(&name, &image);
        if row == 3 {
            // The UV-animation row moves: a later time is another picture, also golden.
            scene.set_time(TIME + 0.75);
            let later = scene.render_to_image(&ctx, rw, rh, false).expect("render");
            scene.set_time(TIME);
            assert!(
                compare(&image, &later, 0, 0.0).is_some(),
                "UV animations did not move"
            );
            check_golden("demo_row3_later", &later);
        }
    }
}

/// The worm camera: from the front-right, backed off so both animations stay in view.
fn worm_camera(scene: &Scene) -> OrbitCamera {
    let mut c = tevscope::camera::OrbitCamera::framing(&scene.aabb());
    c.distance *= 1.6;
    c
}

#[test]
fn worm_posed_golden_images() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let (mut scene, _) = demo_scene(&ctx, "worm_character");
    assert!(scene.is_skinned());
    assert_eq!(scene.animation_names()[..2], ["wave", "curl"]);
    let camera = worm_camera(&scene);
    scene.set_camera(camera);
    let bind = scene
        .render_to_image(&ctx, 320, 240, false)
        .expect("bind pose");
    for (index, name, time) in [(0, "demo_worm_wave", 0.6), (1, "demo_worm_curl", 0.35)] {
        scene.set_animation(Some(index));
        scene.set_time(time);
        let posed = scene.render_to_image(&ctx, 320, 240, false).expect("posed");
        assert!(
            compare(&bind, &posed, 8, 0.01).is_some(),
            "{name}: the pose should move the worm"
        );
        let background = posed.pixel(0, 0);
        let covered = posed.pixels.chunks(4).filter(|p| *p != background).count();
        assert!(covered > 2000, "{name}: only {covered} pixels covered");
        check_golden(name, &posed);
    }
}

#[test]
fn worm_gpu_skinning_matches_cpu_skinning() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let (mut gpu, assets) = demo_scene(&ctx, "worm_character");
    let skin = assets.skin.as_ref().expect("the worm is skinned");
    let camera = worm_camera(&gpu);
    gpu.set_camera(camera);
    for (index, time) in [(0usize, 0.6f32), (1, 0.35), (0, 1.3)] {
        gpu.set_animation(Some(index));
        gpu.set_time(f64::from(time));
        let posed = gpu
            .render_to_image(&ctx, 256, 192, true)
            .expect("GPU skinned");

        let cmdl = golden::cpu_skinned(
            &assets.cmdl,
            &skin.skeleton,
            &skin.cskr,
            &skin.clips[index].1,
            time,
            &gpu.options().pose,
        );
        let mut cpu_assets = ModelAssets::new(cmdl);
        cpu_assets.textures = assets.textures.clone();
        let mut cpu =
            Scene::new(&ctx, cpu_assets.cpu_model().expect("model")).expect("CPU-skinned scene");
        assert!(!cpu.is_skinned());
        cpu.set_lights(load_lights(Some(&spec("lights"))).expect("demo lights"));
        cpu.set_camera(camera);
        let reference = cpu
            .render_to_image(&ctx, 256, 192, true)
            .expect("CPU skinned");
        // Same triangles through two float paths: 1 LSB, a few edge pixels.
        if let Some(msg) = compare(&posed, &reference, 1, 0.002) {
            let _ = posed.save_png(out_dir().join("worm_skin_gpu.png"));
            let _ = reference.save_png(out_dir().join("worm_skin_cpu.png"));
            panic!(
                "worm animation {index} at {time}s, GPU vs CPU skinning: {msg} (images in {})",
                out_dir().display()
            );
        }
    }
}

/// A transparent screenshot: alpha 0 where nothing was drawn, 255 where the worm's opaque
/// surface wrote depth, and the colours of an opaque render everywhere it covers.
#[test]
fn transparent_screenshot_has_coverage_alpha() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let (mut scene, _) = demo_scene(&ctx, "worm_character");
    let opaque = scene
        .render_to_image(&ctx, 160, 120, false)
        .expect("opaque");
    let clear = scene
        .render_to_image(&ctx, 160, 120, true)
        .expect("transparent");
    let background = opaque.pixel(0, 0);
    let (mut covered, mut empty) = (0, 0);
    for (o, t) in opaque.pixels.chunks(4).zip(clear.pixels.chunks(4)) {
        if o == background {
            assert_eq!(t[3], 0, "background pixel {t:?} is not transparent");
            empty += 1;
        } else {
            assert_eq!(t[3], 255, "covered pixel {t:?} is not opaque");
            assert_eq!(o[..3], t[..3], "colours differ");
            covered += 1;
        }
    }
    assert!(
        covered > 500 && empty > 500,
        "{covered} covered, {empty} empty"
    );
}

/// `wave_then_curl` is an ANCS sequence meta-animation: it plays `wave`, then `curl`.
#[test]
fn worm_sequence_plays_wave_then_curl() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let (mut scene, assets) = demo_scene(&ctx, "worm_character");
    let clips = &assets.skin.as_ref().expect("skinned").clips;
    assert_eq!(clips[2].0, "wave_then_curl");
    let (wave, curl) = (&clips[0].1, &clips[1].1);
    assert!((clips[2].1.duration - (wave.duration + curl.duration)).abs() < 1e-5);
    scene.set_camera(worm_camera(&scene));
    let mut frame = |index: usize, time: f32| {
        scene.set_animation(Some(index));
        scene.set_time(f64::from(time));
        scene
            .render_to_image(&ctx, 160, 120, false)
            .expect("render")
    };
    // On frame boundaries the baked sequence holds the children's own samples.
    let t_wave = 9.0 * wave.interval;
    let t_curl = 6.0 * curl.interval;
    for (name, seq, own) in [
        ("wave", frame(2, t_wave), frame(0, t_wave)),
        ("curl", frame(2, wave.duration + t_curl), frame(1, t_curl)),
    ] {
        if let Some(msg) = compare(&seq, &own, 1, 0.002) {
            panic!("the sequence's {name} part differs from {name}: {msg}");
        }
    }
    assert!(
        compare(&frame(2, t_wave), &frame(1, t_wave), 1, 0.002).is_some(),
        "the sequence should start with wave, not curl"
    );
}
