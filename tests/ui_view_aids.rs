//! The View menu's aids in the real window under Xvfb (`view_aids` script action): the
//! A/B split shows the model as opened left of the split and as edited right of it, the
//! debug views and the preview shape change the view.

use std::path::PathBuf;
use std::process::Command;

use tevscope::image::RgbaImage;

#[path = "common/xvfb.rs"]
mod xvfb;

const BIN: &str = env!("CARGO_BIN_EXE_tevscope");
const SHOWCASE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak:showcase");
const SHOTS: [&str; 8] = [
    "before",
    "edited",
    "a",
    "b",
    "half",
    "wire",
    "sphere",
    "sphere_depth",
];

fn differing(a: &RgbaImage, b: &RgbaImage) -> usize {
    a.pixels
        .chunks(4)
        .zip(b.pixels.chunks(4))
        .filter(|(x, y)| x != y)
        .count()
}

#[test]
fn the_ab_split_debug_views_and_preview_shape_in_the_window() {
    let Some(display) = xvfb::xvfb() else { return };
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ui_view_aids");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("xdg")).expect("scratch");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(dir.join("xdg"), std::fs::Permissions::from_mode(0o700))
            .expect("0700");
    }
    let shot = |name: &str| {
        serde_json::json!([
            {"action": "wait_idle"},
            {"action": "screenshot", "path": dir.join(format!("{name}.png")), "width": 320, "height": 240},
        ])
    };
    let aids = |v: serde_json::Value| {
        let mut v = v;
        v["action"] = "view_aids".into();
        v
    };
    let mut steps = vec![
        serde_json::json!({"action": "resize", "width": 1366, "height": 768}),
        serde_json::json!({"action": "open", "spec": SHOWCASE}),
        serde_json::json!({"action": "play_to", "seconds": 0}),
    ];
    let mut add = |extra: Vec<serde_json::Value>, name: &str| {
        steps.extend(extra);
        steps.extend(shot(name).as_array().expect("steps").clone());
    };
    add(vec![], "before");
    add(
        vec![serde_json::json!({"action": "set",
            "path": "/material_sets/0/materials/12/konst_colors_rgba/0", "value": [20, 140, 255, 255]})],
        "edited",
    );
    add(
        vec![aids(serde_json::json!({"compare": true, "split": 1.0}))],
        "a",
    );
    add(vec![aids(serde_json::json!({"split": 0.0}))], "b");
    add(vec![aids(serde_json::json!({"split": 0.5}))], "half");
    add(
        vec![aids(
            serde_json::json!({"compare": false, "debug": "wireframe"}),
        )],
        "wire",
    );
    add(
        vec![aids(
            serde_json::json!({"debug": "shaded", "preview": "sphere"}),
        )],
        "sphere",
    );
    add(
        vec![aids(serde_json::json!({"debug": "depth"}))],
        "sphere_depth",
    );
    let script = dir.join("script.json");
    std::fs::write(&script, serde_json::to_string(&steps).expect("json")).expect("script");
    let out = Command::new(BIN)
        .args(["view", "--step-timeout", "240", "--script"])
        .arg(&script)
        .env(
            "WGPU_BACKEND",
            std::env::var("WGPU_BACKEND").unwrap_or("vulkan".into()),
        )
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_RUNTIME_DIR", dir.join("xdg"))
        .env("TEVSCOPE_CONFIG_DIR", dir.join("config"))
        .output()
        .expect("the viewer runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let [before, edited, a, b, half, wire, sphere, sphere_depth] = SHOTS.map(|n| {
        RgbaImage::load_png(dir.join(format!("{n}.png"))).unwrap_or_else(|e| panic!("{n}: {e}"))
    });
    assert!(differing(&before, &edited) > 20, "the edit changed nothing");
    assert!(a.pixels == before.pixels, "A is not the model as opened");
    assert!(b.pixels == edited.pixels, "B is not the model as edited");
    // Split at the middle: columns 0..160 from A, 160.. from B.
    let row = 320 * 4;
    for y in 0..240 {
        let r = y * row;
        assert!(
            half.pixels[r..r + 160 * 4] == before.pixels[r..r + 160 * 4],
            "row {y}: not A"
        );
        let right = r + 160 * 4..r + row;
        assert!(
            half.pixels[right.clone()] == edited.pixels[right],
            "row {y}: not B"
        );
    }
    assert!(
        differing(&wire, &edited) > 300,
        "the wireframe view looks shaded"
    );
    assert!(
        differing(&sphere, &edited) > 5000,
        "the sphere preview shows the model"
    );
    assert!(
        differing(&sphere_depth, &sphere) > 5000,
        "the depth view looks shaded"
    );
}
