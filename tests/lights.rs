//! Edited light sets on the GPU (lavapipe): a light edit changes the rendered pixels of the
//! demo models without compiling a pipeline, and a light set saved as JSON and loaded
//! back (as `tevscope render --lights FILE.json` loads it) renders exactly as the same set
//! built in code; `tevscope render --lights FILE.json` renders with it and refuses a bad
//! file by name and field.

mod golden;

use golden::compare;
use tevscope::camera::OrbitCamera;
use tevscope::gx::light_file;
use tevscope::gx::lights::{
    Falloff, LightOptions, LightPreset, LightSet, PrimeLight, PrimeLightType,
};
use tevscope::image::RgbaImage;
use tevscope::load::{LoadRequest, load, scene_lights};
use tevscope::render::RenderContext;
use tevscope::render::scene::Scene;

fn demo(name: &str) -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak:").to_string() + name
}

fn scene(ctx: &RenderContext, spec: &str) -> Scene {
    let (model, _) = load(&LoadRequest::new(spec)).expect("the demo loads");
    let mut scene = Scene::new(ctx, model.assets.into_cpu_model().expect("model")).expect("scene");
    scene.frame_model();
    scene.set_time(0.5);
    scene
}

/// A light rig built in code: a dim ambient, a red point light in front of the model and
/// a green spot from above.
fn rig(centre: [f32; 3]) -> Vec<PrimeLight> {
    let mut ambient = PrimeLight::new(PrimeLightType::LocalAmbient, [0.0; 3]);
    ambient.color = [0.2, 0.2, 0.25, 1.0];
    let mut point = PrimeLight::new(
        PrimeLightType::Custom,
        [centre[0], centre[1] + 2.0, centre[2]],
    );
    point.color = [1.0, 0.2, 0.1, 1.0];
    // Constant falloff: k0 = 2/q, so brightness 2 gives the full colour at any distance.
    point.falloff = Falloff::Constant.word();
    point.brightness = 2.0;
    let mut spot = PrimeLight::new(
        PrimeLightType::Spot,
        [centre[0], centre[1], centre[2] + 3.0],
    );
    spot.color = [0.1, 1.0, 0.3, 1.0];
    spot.direction = [0.0, 0.0, -1.0];
    spot.spot_cutoff = 90.0;
    spot.falloff = Falloff::Constant.word();
    spot.brightness = 2.0;
    vec![ambient, point, spot]
}

/// One edit of the records, named.
type Edit = fn(&mut Vec<PrimeLight>);

/// Whether more than 50 pixels of `a` and `b` differ at all (`golden::compare`, exact).
fn changed(a: &RgbaImage, b: &RgbaImage) -> bool {
    let fifty = 50.0 / a.pixel_count() as f64;
    compare(a, b, 0, fifty).is_some()
}

#[test]
fn light_edits_change_pixels_but_compile_nothing() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let (w, h) = (192, 144);
    for name in ["worm_character", "room"] {
        let mut scene = scene(&ctx, &demo(name));
        let aabb = scene.aabb();
        let centre = std::array::from_fn(|i| (aabb.min[i] + aabb.max[i]) * 0.5);
        let mut records = rig(centre);
        let set = |r: &[PrimeLight]| LightSet::from_layer(r, &LightOptions::default());
        scene.set_lights(set(&records));
        let before = scene.render_to_image(&ctx, w, h, false).expect("render");
        let pipelines = ctx.pipelines.len();
        assert!(pipelines > 0, "{name}: the cache counts its pipelines");
        // Edits the Lights tab makes: colour, brightness, removal.
        let edits: [(&str, Edit); 4] = [
            ("point colour", |r| r[1].color = [0.1, 0.3, 1.0, 1.0]),
            ("point brightness", |r| r[1].brightness = 8.0),
            ("ambient colour", |r| r[0].color = [0.6, 0.5, 0.1, 1.0]),
            ("spot removed", |r| {
                r.remove(2);
            }),
        ];
        let mut last = before;
        for (what, edit) in edits {
            edit(&mut records);
            scene.set_lights(set(&records));
            let image = scene.render_to_image(&ctx, w, h, false).expect("render");
            assert!(
                changed(&last, &image),
                "{name}: {what} changed too few pixels"
            );
            assert_eq!(
                ctx.pipelines.len(),
                pipelines,
                "{name}: {what} compiled a pipeline"
            );
            last = image;
        }
    }
}

#[test]
fn a_light_set_from_json_renders_as_the_set_built_in_code() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tevscope-lights-gpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut scene = scene(&ctx, &demo("worm_character"));
    scene.set_camera(OrbitCamera {
        yaw_degrees: 20.0,
        ..tevscope::camera::OrbitCamera::framing(&scene.aabb())
    });
    let aabb = scene.aabb();
    let centre = std::array::from_fn(|i| (aabb.min[i] + aabb.max[i]) * 0.5);
    let mut records = rig(centre);
    records.extend(LightPreset::Basic.records().into_iter().skip(1));
    let in_code = LightSet::from_layer(&records, &LightOptions::default());
    let path = dir.join("rig.json");
    std::fs::write(&path, light_file::to_json(&records)).expect("write");
    let path_text = path.display().to_string();
    let from_file = scene_lights(Some(&path_text), &[]).expect("the file loads");
    assert_eq!(from_file, in_code);
    let (w, h) = (160, 160);
    scene.set_lights(in_code);
    let a = scene.render_to_image(&ctx, w, h, false).expect("render");
    scene.set_lights(LightPreset::GameNoLights.light_set());
    let other = scene.render_to_image(&ctx, w, h, false).expect("render");
    scene.set_lights(from_file);
    let b = scene.render_to_image(&ctx, w, h, false).expect("render");
    assert_eq!(compare(&a, &b, 0, 0.0), None, "from JSON = built in code");
    assert!(changed(&a, &other), "the rig lights the model");
    // A broken file is refused with its name and the field.
    std::fs::write(
        &path,
        light_file::to_json(&records).replace("\"kind\":\"spot\"", "\"kind\":\"laser\""),
    )
    .expect("write");
    let e = format!(
        "{:#}",
        scene_lights(Some(&path_text), &[]).expect_err("bad kind")
    );
    assert!(
        e.contains("rig.json") && e.contains("lights[2]") && e.contains("laser"),
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn render_reads_a_light_set_file() {
    if RenderContext::for_tests().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("tevscope-lights-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let render = |lights: &str, png: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_tevscope"))
            .args(["render", &demo("worm_character"), "--size", "64x64"])
            .args(["--lights", lights, "-o"])
            .arg(dir.join(png))
            .output()
            .expect("run tevscope");
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.success(), err)
    };
    let file = dir.join("rig.json");
    let records = rig([0.0, 0.0, 1.0]);
    std::fs::write(&file, light_file::to_json(&records)).expect("write");
    let file = file.display().to_string();
    let (ok, err) = render(&file, "rig.png");
    assert!(ok, "{err}");
    let (ok, err) = render("basic", "basic.png");
    assert!(ok, "{err}");
    let load = |name: &str| RgbaImage::load_png(dir.join(name)).expect("png");
    assert!(changed(&load("rig.png"), &load("basic.png")));
    // A number too large for f32 is refused, naming the file and the field.
    let bad =
        light_file::to_json(&records).replacen("\"brightness\":1.0", "\"brightness\":1e300", 1);
    std::fs::write(dir.join("bad.json"), bad).expect("write");
    let (ok, err) = render(&dir.join("bad.json").display().to_string(), "bad.png");
    assert!(!ok);
    assert!(
        err.contains("bad.json") && err.contains("lights[0].brightness"),
        "{err}"
    );
    assert!(!dir.join("bad.png").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
