//! The frame-rate overlay in the real window under Xvfb: the `view_aids` script action's
//! `fps` turns it on over the top left of the 3D view (nothing else changes), the window
//! screenshot's report carries the measured rate, and `view --fps` starts with it shown.

use std::path::{Path, PathBuf};
use std::process::Command;

use tevscope::image::RgbaImage;

#[path = "common/xvfb.rs"]
mod xvfb;

const BIN: &str = env!("CARGO_BIN_EXE_tevscope");
const SHOWCASE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak:showcase");

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("xdg")).expect("scratch");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(dir.join("xdg"), std::fs::Permissions::from_mode(0o700))
            .expect("0700");
    }
    dir
}

fn view(display: &str, dir: &Path, args: &[&str]) {
    let out = Command::new(BIN)
        .arg("view")
        .args(args)
        .args(["--step-timeout", "240"])
        .env(
            "WGPU_BACKEND",
            std::env::var("WGPU_BACKEND").unwrap_or("vulkan".into()),
        )
        .env("DISPLAY", display)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_RUNTIME_DIR", dir.join("xdg"))
        .env("TEVSCOPE_CONFIG_DIR", dir.join("config"))
        .output()
        .expect("the viewer runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn report(dir: &Path, name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(dir.join(format!("{name}.json"))).expect("report");
    serde_json::from_str(&text).expect("json")
}

/// The pixels (x, y) where two window shots differ.
fn changed(a: &RgbaImage, b: &RgbaImage) -> Vec<(u32, u32)> {
    (0..a.height)
        .flat_map(|y| (0..a.width).map(move |x| (x, y)))
        .filter(|&(x, y)| a.pixel(x, y) != b.pixel(x, y))
        .collect()
}

#[test]
fn the_fps_overlay_shows_over_the_view_and_reports_the_rate() {
    let Some(display) = xvfb::xvfb() else { return };
    let dir = scratch("ui_fps_overlay");
    let steps = serde_json::json!([
        {"action": "resize", "width": 1366, "height": 768},
        {"action": "open", "spec": SHOWCASE},
        // A still clock: only the overlay may change the window.
        {"action": "play_to", "seconds": 0},
        {"action": "wait_idle"},
        {"action": "wait_frames", "frames": 20},
        {"action": "screenshot_window", "path": dir.join("off.png")},
        {"action": "view_aids", "fps": true},
        {"action": "wait_frames", "frames": 20},
        {"action": "screenshot_window", "path": dir.join("on.png")},
    ]);
    let script = dir.join("script.json");
    std::fs::write(&script, steps.to_string()).expect("script");
    view(
        &display,
        &dir,
        &["--script", script.to_str().expect("utf-8")],
    );
    let load = |n: &str| RgbaImage::load_png(dir.join(format!("{n}.png"))).expect(n);
    let (off, on) = (load("off"), load("on"));
    let r = report(&dir, "on");
    let fps = r["fps"].as_f64().expect("the report has the frame rate");
    let ms = r["frame_ms"].as_f64().expect("and the frame time");
    assert!(fps > 0.0 && fps < 1000.0, "{fps}");
    assert!((fps * ms / 1000.0 - 1.0).abs() < 0.01, "{fps} fps, {ms} ms");
    // The overlay floats over the view's top left corner; nothing else moved.
    let view_rect = r["view"].as_array().expect("view rect");
    let (vx, vy) = (
        view_rect[0].as_f64().expect("x") as u32,
        view_rect[1].as_f64().expect("y") as u32,
    );
    let diff = changed(&off, &on);
    assert!(
        diff.len() > 300,
        "no overlay: {} pixels changed",
        diff.len()
    );
    for &(x, y) in &diff {
        assert!(
            (vx..vx + 420).contains(&x) && (vy..vy + 50).contains(&y),
            "({x}, {y}) changed outside the overlay (view at {vx}, {vy})"
        );
    }

    // `view --fps` starts with it.
    let Some(display) = xvfb::xvfb() else { return };
    let cli = dir.join("cli.png");
    view(
        &display,
        &dir,
        &[
            SHOWCASE,
            "--fps",
            "--size",
            "1366x768",
            "--screenshot-window",
            cli.to_str().expect("utf-8"),
        ],
    );
    let shot = RgbaImage::load_png(&cli).expect("cli shot");
    // Without FILE (and without a script) the window shows the built-in demo.
    let Some(display) = xvfb::xvfb() else { return };
    let demo = dir.join("demo.png");
    view(
        &display,
        &dir,
        &[
            "--size",
            "1366x768",
            "--screenshot-window",
            demo.to_str().expect("utf-8"),
        ],
    );
    let spec = report(&dir, "demo")["spec"].as_str().map(str::to_owned);
    assert!(
        spec.as_deref().is_some_and(|s| s.starts_with("builtin:")),
        "{spec:?}"
    );
    let overlay = (vx + 2..vx + 200)
        .flat_map(|x| (vy + 2..vy + 30).map(move |y| (x, y)))
        .filter(|&(x, y)| {
            let [r, g, b, _] = shot.pixel(x, y);
            g > 200 && r < 200 && b < 200
        })
        .count();
    assert!(
        overlay > 30,
        "no green readout in the top left of the view: {overlay}"
    );
}
