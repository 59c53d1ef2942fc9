//! MREA world geometry against the area fixtures (`conformance/areas/`): `info --json`
//! reports every value of their JSONs, and the files are written back byte for byte.

use serde_json::Value;
use tevscope::cli;
use tevscope::formats::mrea::parse_mrea;
use tevscope::testing::conformance_dir;

const AREAS: [&str; 2] = ["mp1_area.MREA", "mp2_area.MREA"];

/// Prose and labels the fixture generator added: descriptions, provenance, and names it
/// gave materials and world models (MREA files carry no names).
const SKIPPED: [&str; 7] = [
    "file",
    "notes",
    "provenance",
    "library",
    "other_sections",
    "name",
    "material_name",
];

/// Walks `want` and checks that `got` has every key with an equal value (numbers compared
/// as f64, exactly). Keys only `got` has are extra information and allowed.
fn compare(path: &str, want: &Value, got: &Value, problems: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            for (k, wv) in w {
                if SKIPPED.contains(&k.as_str()) {
                    continue;
                }
                match g.get(k) {
                    Some(gv) => compare(&format!("{path}.{k}"), wv, gv, problems),
                    None => problems.push(format!("{path}.{k}: missing")),
                }
            }
        }
        (Value::Array(w), Value::Array(g)) => {
            if w.len() != g.len() {
                problems.push(format!("{path}: {} elements, want {}", g.len(), w.len()));
                return;
            }
            for (i, (wv, gv)) in w.iter().zip(g).enumerate() {
                compare(&format!("{path}[{i}]"), wv, gv, problems);
            }
        }
        (Value::Number(w), Value::Number(g)) if w.as_f64() == g.as_f64() => {}
        (w, g) if w == g => {}
        (w, g) => problems.push(format!("{path}: {g}, want {w}")),
    }
}

/// Counts the leaves of `v` outside the skipped keys (to show the walk saw them).
fn leaves(v: &Value) -> usize {
    match v {
        Value::Object(o) => o
            .iter()
            .filter(|(k, _)| !SKIPPED.contains(&k.as_str()))
            .map(|(_, v)| leaves(v))
            .sum(),
        Value::Array(a) => a.iter().map(leaves).sum(),
        _ => 1,
    }
}

#[test]
fn info_json_reports_every_value_of_the_area_fixtures() {
    let Some(dir) = conformance_dir() else { return };
    for name in AREAS {
        let path = dir.join("areas").join(name);
        let want: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("areas").join(format!("{name}.json"))).expect(name),
        )
        .expect(name);
        let out = cli::info(path.to_str().expect("utf-8 path"), true, None).expect(name);
        let got: Value = serde_json::from_str(&out).expect("json");
        let mut problems = Vec::new();
        compare(name, &want, &got, &mut problems);
        assert!(problems.is_empty(), "{name}:\n{}", problems.join("\n"));
        assert!(leaves(&want) > 1000, "{name}: the walk covers the fixture");
        assert_eq!(got["geometry"]["triangle_count"], 22, "{name}");
        assert_eq!(got["warnings"], serde_json::json!([]), "{name}");
    }
}

#[test]
fn the_walk_notices_a_wrong_value() {
    let want = serde_json::json!({"a": [1.0, {"b": 0.5}], "notes": ["x"]});
    let mut problems = Vec::new();
    compare(
        "t",
        &want,
        &serde_json::json!({"a": [1, {"b": 0.25}]}),
        &mut problems,
    );
    assert_eq!(problems, ["t.a[1].b: 0.25, want 0.5"]);
}

#[test]
fn info_text_lists_world_models_and_surfaces() {
    let Some(dir) = conformance_dir() else { return };
    for name in AREAS {
        let path = dir.join("areas").join(name);
        let text = cli::info(path.to_str().expect("utf-8 path"), false, None).expect(name);
        assert!(text.contains("world model 1: visor flags 0x10"), "{text}");
        assert!(text.contains("22 triangles"), "{text}");
        assert!(text.contains("TEX0 from short UVs"), "{text}");
        assert!(!text.contains("warning"), "{text}");
    }
}

#[test]
fn areas_are_written_back_byte_for_byte() {
    let Some(dir) = conformance_dir() else { return };
    for name in AREAS {
        let bytes = std::fs::read(dir.join("areas").join(name)).expect(name);
        let m = parse_mrea(&bytes, name).expect(name);
        assert_eq!(m.to_bytes().expect("writes"), bytes, "{name}");
    }
}

#[test]
fn areas_render_their_22_triangles_with_every_texture() {
    let Some(dir) = conformance_dir() else { return };
    let Some(ctx) = tevscope::render::RenderContext::for_tests() else {
        return;
    };
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("render_images");
    let _ = std::fs::create_dir_all(&out);
    let mut images = Vec::new();
    for name in AREAS {
        let path = dir.join("areas").join(name);
        let (model, warnings) = tevscope::load::load(&tevscope::load::LoadRequest::new(
            path.to_str().expect("utf-8 path"),
        ))
        .expect(name);
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
        assert_eq!(model.assets.textures.len(), 3, "{name}: textures found");
        let cpu = model.assets.cpu_model().expect(name);
        let mut scene = tevscope::render::scene::Scene::new(&ctx, cpu).expect(name);
        assert!(scene.warnings.is_empty(), "{name}: {:?}", scene.warnings);
        assert_eq!(scene.model().triangle_count(), 22);
        let image = scene.render_to_image(&ctx, 128, 128, false).expect(name);
        let _ = image.save_png(out.join(format!("area_{name}.png")));
        let background = image.pixel(0, 0);
        let covered = image.pixels.chunks(4).filter(|p| **p != background).count();
        assert!(
            covered > 128 * 128 / 8,
            "{name}: only {covered} pixels drawn"
        );
        images.push(image);
    }
    // The two files hold the same room: MP1 and MP2 draw the same pixels.
    assert!(
        images[0].pixels == images[1].pixels,
        "MP1 and MP2 renders differ"
    );
}

#[test]
fn render_command_draws_an_area() {
    let Some(dir) = conformance_dir() else { return };
    if tevscope::render::RenderContext::for_tests().is_none() {
        return;
    }
    let out = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("render_images");
    let _ = std::fs::create_dir_all(&out);
    let png = out.join("area_cli_mp2.png");
    let _ = std::fs::remove_file(&png);
    let mut req = tevscope::cli::render::RenderRequest::new(
        dir.join("areas/mp2_area.MREA").display().to_string(),
        &png,
    );
    (req.width, req.height) = (64, 64);
    let report = tevscope::cli::render::render_model(&req).expect("render");
    assert!(report.contains("4 surfaces, 22 triangles"), "{report}");
    assert!(!report.contains("warning"), "{report}");
    assert!(png.is_file());
    // An area has no skin or animation to pose.
    req.anim = Some("walk".into());
    let e = tevscope::cli::render::render_model(&req).expect_err("animation on an area");
    assert!(format!("{e:#}").contains("an area has no"), "{e:#}");
}
