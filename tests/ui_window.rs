//! The real viewer window under Xvfb, driven by a script (`tevscope view --script`): the
//! layout at five window sizes (a whole TEV stage in the material panel, the browser on the
//! opened file), a notice that moves nothing, a pick's tint, the missing-texture checker, a big 3D-view
//! screenshot, a turntable, a light edit, a material edit saved (and saved as a name without
//! an extension), a failing step's exit, and the world overview (a click opens a room whose
//! pick names its world model).
//!
//! One Xvfb (started with `-displayfd`, gone when its last client leaves) and one window
//! run serve every test here; each test checks its part of the run's files. Without Xvfb
//! the tests say so and pass.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

use tevscope::image::RgbaImage;

#[path = "common/xvfb.rs"]
mod xvfb;
use xvfb::xvfb;

const BIN: &str = env!("CARGO_BIN_EXE_tevscope");
const SIZES: [(u32, u32); 5] = [
    (1000, 700),
    (1366, 768),
    (1600, 1000),
    (1920, 1080),
    (2560, 1440),
];
/// The scratch folder, the run's output and the index of its failing step.
struct Run {
    dir: PathBuf,
    output: Output,
    failing_step: usize,
}

const SCRATCH_PREFIX: &str = "tevscope-ui-window-";

/// This run's scratch folder; earlier runs' (their process gone) are removed.
fn scratch() -> PathBuf {
    static CLEANED: OnceLock<()> = OnceLock::new();
    CLEANED.get_or_init(|| {
        let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
            return;
        };
        for e in entries.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(pid) = name.strip_prefix(SCRATCH_PREFIX)
                && pid != std::process::id().to_string()
                && !Path::new("/proc").join(pid).exists()
            {
                let _ = std::fs::remove_dir_all(e.path());
            }
        }
    });
    let dir = std::env::temp_dir().join(format!("{SCRATCH_PREFIX}{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Starts Xvfb on a free display; None (with a loud message) when it is not installed.
fn extract_demo(dir: &Path) -> PathBuf {
    let all = dir.join("demo");
    let out = Command::new(BIN)
        .args([
            "extract",
            concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak"),
            "-o",
        ])
        .arg(&all)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    all
}

/// Runs `tevscope view --script` with a hermetic config folder on `display`.
fn view(display: &str, dir: &Path, script: &str) -> Output {
    let path = dir.join("script.json");
    std::fs::write(&path, script).expect("script written");
    let xdg = dir.join("xdg");
    std::fs::create_dir_all(&xdg).expect("xdg");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&xdg, std::fs::Permissions::from_mode(0o700)).expect("0700");
    }
    let backend = std::env::var("WGPU_BACKEND").unwrap_or_else(|_| "vulkan".into());
    Command::new(BIN)
        .args(["view", "--step-timeout", "240", "--script"])
        .arg(&path)
        .env("WGPU_BACKEND", backend)
        .env("DISPLAY", display)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_RUNTIME_DIR", &xdg)
        .env("TEVSCOPE_CONFIG_DIR", dir.join("config"))
        .env("RUST_LOG", "tevscope=info")
        .output()
        .expect("the viewer runs")
}

/// The one scripted window every test looks at (None without Xvfb).
fn run() -> Option<&'static Run> {
    static RUN: OnceLock<Option<Run>> = OnceLock::new();
    RUN.get_or_init(|| {
        let display = xvfb()?;
        let dir = scratch();
        let demo = extract_demo(&dir);
        // The showcase model alone: its textures are missing.
        let bare = dir.join("bare");
        std::fs::create_dir_all(&bare).expect("folder");
        std::fs::copy(demo.join("0xDE010002.CMDL"), bare.join("0xDE010002.CMDL")).expect("copy");
        let d = |name: &str| dir.join(name).display().to_string();
        let mut steps = vec![
            format!(r#"{{"action": "open", "spec": "{}"}}"#, demo.join("0xDE010002.CMDL").display()),
            // The UV animations stop at 0 s: frames differ only by what the steps change.
            r#"{"action": "play_to", "seconds": 0}"#.to_string(),
        ];
        for (w, h) in SIZES {
            steps.push(format!(r#"{{"action": "resize", "width": {w}, "height": {h}}}"#));
            steps.push(r#"{"action": "wait_idle"}"#.into());
            steps.push(format!(r#"{{"action": "screenshot_window", "path": "{}"}}"#, d(&format!("layout_{w}.png"))));
        }
        // A folder typed in the Open field: the browser goes there, a notice shows, nothing
        // moves.
        steps.extend([
            r#"{"action": "resize", "width": 1366, "height": 768}"#.into(),
            r#"{"action": "wait_idle"}"#.into(),
            format!(r#"{{"action": "screenshot_window", "path": "{}"}}"#, d("quiet.png")),
            format!(r#"{{"action": "open", "spec": "{}"}}"#, bare.display()),
            r#"{"action": "wait_idle"}"#.into(),
            format!(r#"{{"action": "screenshot_window", "path": "{}"}}"#, d("noticed.png")),
        ]);
        // A pick, screenshots, lights, the missing textures, an edit, a failing open.
        steps.extend([
            r#"{"action": "resize", "width": 1000, "height": 700}"#.into(),
            r#"{"action": "wait_idle"}"#.into(),
            format!(r#"{{"action": "screenshot_window", "path": "{}"}}"#, d("before_pick.png")),
            r#"{"action": "click_view", "x": 0.5, "y": 0.5}"#.into(),
            r#"{"action": "wait_idle"}"#.into(),
            format!(r#"{{"action": "screenshot_window", "path": "{}"}}"#, d("picked.png")),
            format!(r#"{{"action": "screenshot", "path": "{}", "width": 3000, "height": 2000}}"#, d("big.png")),
            format!(r#"{{"action": "screenshot", "path": "{}", "width": 160, "height": 120}}"#, d("lights_before.png")),
            r#"{"action": "lights", "lights": [
                {"kind": "local_ambient", "color": [0.08, 0.08, 0.08, 1], "brightness": 1, "falloff": "constant",
                 "cutoff_degrees": 0, "position": [0, 0, 0], "direction": [0, 0, -1]},
                {"kind": "directional", "color": [1, 0.15, 0.15, 1], "brightness": 1, "falloff": "constant",
                 "cutoff_degrees": 0, "position": [0, 0, 0], "direction": [0, 1, 0]}]}"#.into(),
            format!(r#"{{"action": "screenshot", "path": "{}", "width": 160, "height": 120}}"#, d("lights_after.png")),
            format!(r#"{{"action": "open", "spec": "{}"}}"#, bare.join("0xDE010002.CMDL").display()),
            r#"{"action": "wait_idle"}"#.into(),
            format!(r#"{{"action": "screenshot_window", "path": "{}"}}"#, d("missing.png")),
            format!(r#"{{"action": "turntable", "path": "{}", "frames": 3, "width": 64, "height": 48}}"#, d("turn.png")),
            r#"{"action": "set", "path": "/material_sets/0/materials/0/blend_source_factor", "value": 4}"#.into(),
            format!(r#"{{"action": "save_as", "path": "{}"}}"#, d("edited.CMDL")),
            // A typed name without an extension gets the open file's, and reopens editable.
            format!(r#"{{"action": "save_as", "path": "{}"}}"#, d("renamed")),
            format!(r#"{{"action": "open", "spec": "{}"}}"#, d("renamed.CMDL")),
            r#"{"action": "set", "path": "/material_sets/0/materials/0/blend_source_factor", "value": 5}"#.into(),
        ]);
        let failing_step = steps.len();
        steps.extend([
            format!(r#"{{"action": "open", "spec": "{}"}}"#, d("no-such-file.CMDL")),
            format!(r#"{{"action": "screenshot_window", "path": "{}"}}"#, d("never.png")),
        ]);
        let script = format!("[\n{}\n]", steps.join(",\n"));
        let output = view(&display, &dir, &script);
        Some(Run {
            dir,
            output,
            failing_step,
        })
    })
    .as_ref()
}

fn stderr(run: &Run) -> String {
    String::from_utf8_lossy(&run.output.stderr).into_owned()
}

fn png(run: &Run, name: &str) -> RgbaImage {
    let path = run.dir.join(name);
    let bytes =
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}\n{}", path.display(), stderr(run)));
    RgbaImage::decode_png(&bytes).expect("a PNG")
}

fn report(run: &Run, name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(run.dir.join(name)).expect("layout report");
    serde_json::from_str(&text).expect("JSON")
}

fn rect(v: &serde_json::Value) -> [f32; 4] {
    let a: Vec<f32> = v
        .as_array()
        .expect("rect")
        .iter()
        .map(|x| x.as_f64().expect("number") as f32)
        .collect();
    [a[0], a[1], a[2], a[3]]
}

/// Every pixel of the 3D view a layout report names.
fn view_pixels(report: &serde_json::Value) -> impl Iterator<Item = (u32, u32)> {
    let [vx, vy, vw, vh] = rect(&report["view"]);
    (vy as u32..(vy + vh) as u32)
        .flat_map(move |y| (vx as u32..(vx + vw) as u32).map(move |x| (x, y)))
}

#[test]
fn a_failing_step_exits_non_zero_naming_the_step() {
    let Some(run) = run() else { return };
    assert!(
        !run.output.status.success(),
        "the missing file must fail the run"
    );
    let err = stderr(run);
    assert!(
        err.contains(&format!("step {} (open)", run.failing_step)) && err.contains("no-such-file"),
        "{err}"
    );
    assert!(
        !run.dir.join("never.png").exists(),
        "steps after the failure do not run"
    );
}

#[test]
fn the_view_keeps_sixty_percent_of_the_window_at_every_size() {
    let Some(run) = run() else { return };
    for (w, h) in SIZES {
        let image = png(run, &format!("layout_{w}.png"));
        assert_eq!(
            (image.width, image.height),
            (w, h),
            "the whole window at {w}x{h}"
        );
        let r = report(run, &format!("layout_{w}.json"));
        let [lx, _, lw, _] = rect(&r["left"]);
        let [rx, _, _, _] = rect(&r["right"]);
        let [vx, vy, vw, vh] = rect(&r["view"]);
        // What shows between the side panels (the central panel's rect may reach under
        // them).
        let (left_edge, right_edge) = (lx + lw, rx);
        assert!(
            right_edge - left_edge >= 0.6 * w as f32 - 0.5,
            "{w}x{h}: {} between the panels",
            right_edge - left_edge
        );
        let visible = (vx + vw).min(right_edge) - vx;
        assert!(
            visible + 16.0 >= 0.6 * w as f32 - 0.5,
            "{w}x{h}: view {visible} wide"
        );
        // Pixels: the central panel's grey margin left of the view, the view's own
        // background right inside it and at its visible right edge, at mid-height.
        let y = (vy + vh / 2.0) as u32;
        let margin = image.pixel(((left_edge + vx) / 2.0) as u32, y);
        let inside = image.pixel(vx as u32 + 2, y);
        assert_eq!(
            margin[..3],
            [24, 24, 24],
            "{w}x{h}: central fill at the margin"
        );
        assert_ne!(
            inside[..3],
            margin[..3],
            "{w}x{h}: the view starts where reported"
        );
        let right = image.pixel((vx + visible) as u32 - 2, y);
        assert_eq!(
            right[..3],
            inside[..3],
            "{w}x{h}: the view's background at its right edge"
        );
    }
}

#[test]
fn the_material_panel_holds_a_whole_tev_stage() {
    let Some(run) = run() else { return };
    for w in [1366, 1600] {
        let r = report(run, &format!("layout_{w}.json"));
        let [sx, _, sw, _] = rect(&r["stage"]);
        let [rx, _, rw, _] = rect(&r["right"]);
        assert!(
            sx >= rx && sx + sw <= rx + rw + 0.5,
            "{w}: the stage's fields {:?} in the panel {:?}",
            r["stage"],
            r["right"]
        );
    }
}

#[test]
fn the_browser_shows_the_opened_file() {
    let Some(run) = run() else { return };
    let r = report(run, "layout_1366.json");
    let demo = run.dir.join("demo").canonicalize().expect("demo folder");
    assert_eq!(
        r["browser_dir"],
        serde_json::json!(demo.display().to_string())
    );
    assert_eq!(
        r["browser_selected"],
        serde_json::json!(demo.join("0xDE010002.CMDL").display().to_string())
    );
}

#[test]
fn a_folder_typed_in_the_open_field_is_browsed_and_its_notice_moves_nothing() {
    let Some(run) = run() else { return };
    let (quiet, noticed) = (report(run, "quiet.json"), report(run, "noticed.json"));
    let bare = run.dir.join("bare").canonicalize().expect("folder");
    assert_eq!(
        noticed["browser_dir"],
        serde_json::json!(bare.display().to_string())
    );
    for panel in ["left", "right", "central", "view", "top", "timeline"] {
        assert!(!quiet[panel].is_null(), "{panel} reported");
        assert_eq!(quiet[panel], noticed[panel], "{panel} moved");
    }
    // The notice is drawn, in the status bar under the timeline.
    let (before, after) = (png(run, "quiet.png"), png(run, "noticed.png"));
    let [_, ty, _, th] = rect(&noticed["timeline"]);
    let changed = ((ty + th) as u32..after.height)
        .flat_map(|y| (0..after.width).map(move |x| (x, y)))
        .filter(|&(x, y)| before.pixel(x, y) != after.pixel(x, y))
        .count();
    assert!(changed > 100, "only {changed} status bar pixels changed");
}

#[test]
fn a_pick_selects_and_tints_the_surface() {
    let Some(run) = run() else { return };
    let before = png(run, "before_pick.png");
    let after = png(run, "picked.png");
    let r = report(run, "picked.json");
    let picked = r["picked_material"]
        .as_u64()
        .expect("the centre hits a surface");
    assert_eq!(
        r["selected_material"].as_u64(),
        Some(picked),
        "the pick selects"
    );
    let before_report = report(run, "before_pick.json");
    assert_eq!(before_report["selected_material"].as_u64(), Some(0));
    // Opening shows material 0 untinted; the pick tints what it selects.
    assert_eq!(
        before_report["tinted_material"],
        serde_json::Value::Null,
        "tinted on open"
    );
    assert_eq!(r["tinted_material"].as_u64(), Some(picked));
    assert_ne!(picked, 0, "the centre is not material 0");
    // The pick tints the picked material: many view pixels change, far from the click's
    // marker too.
    let [vx, vy, vw, vh] = rect(&r["view"]);
    let (mx, my) = (vx + vw / 2.0, vy + vh / 2.0);
    let changed = view_pixels(&r)
        .filter(|&(x, y)| (x as f32 - mx).hypot(y as f32 - my) > 12.0)
        .filter(|&(x, y)| before.pixel(x, y) != after.pixel(x, y))
        .count();
    assert!(changed > 200, "only {changed} pixels changed");
}

#[test]
fn missing_textures_draw_the_magenta_checker() {
    let Some(run) = run() else { return };
    let image = png(run, "missing.png");
    let r = report(run, "missing.json");
    let (mut magenta, mut dark) = (0, 0);
    for (x, y) in view_pixels(&r) {
        let [red, g, b, _] = image.pixel(x, y).map(i32::from);
        if red > 2 * g + 60 && b > 2 * g + 60 && (red - b).abs() < 50 {
            magenta += 1;
        } else if red + g + b < 30 {
            dark += 1;
        }
    }
    assert!(
        magenta > 500 && dark > 200,
        "magenta {magenta}, black {dark}"
    );
}

#[test]
fn a_view_screenshot_is_rendered_at_the_asked_size() {
    let Some(run) = run() else { return };
    let big = png(run, "big.png");
    assert_eq!((big.width, big.height), (3000, 2000));
    // Something was drawn, not only the background.
    let first = big.pixel(0, 0);
    assert!(big.pixels.chunks_exact(4).any(|p| p != first));
    // Opaque without a transparent background: the game's alpha is not coverage.
    assert!(big.pixels.chunks_exact(4).all(|p| p[3] == 255));
    for i in 0..3 {
        let frame = png(run, &format!("turn_{i:03}.png"));
        assert_eq!((frame.width, frame.height), (64, 48), "turntable frame {i}");
        assert!(
            frame.pixels.chunks_exact(4).all(|p| p[3] == 255),
            "turntable frame {i}"
        );
    }
    assert_ne!(
        png(run, "turn_000.png").pixels,
        png(run, "turn_001.png").pixels,
        "it turns"
    );
}

#[test]
fn a_light_edit_changes_the_pixels() {
    let Some(run) = run() else { return };
    let before = png(run, "lights_before.png");
    let after = png(run, "lights_after.png");
    assert_eq!((before.width, before.height), (160, 120));
    let changed = before
        .pixels
        .chunks_exact(4)
        .zip(after.pixels.chunks_exact(4))
        .filter(|(a, b)| a != b)
        .count();
    assert!(changed > 1000, "only {changed} pixels changed");
}

#[test]
fn a_set_action_edits_the_model_and_save_as_writes_it() {
    let Some(run) = run() else { return };
    let edited = run.dir.join("edited.CMDL");
    let out = Command::new(BIN)
        .args(["info", "--json"])
        .arg(&edited)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        info["material_sets"][0]["materials"][0]["blend_source_factor"],
        serde_json::json!(4)
    );
    assert!(
        run.dir.join("renamed.CMDL").is_file() && !run.dir.join("renamed").exists(),
        "Save As adds .CMDL to a name without an extension"
    );
}

#[test]
fn a_bad_script_fails_before_any_window_naming_the_step() {
    let dir = scratch();
    let path = dir.join("bad.json");
    std::fs::write(
        &path,
        r#"[{"action": "wait_idle"}, {"action": "click", "x": 1}]"#,
    )
    .expect("written");
    let out = Command::new(BIN)
        .args(["view", "--script"])
        .arg(&path)
        .env("TEVSCOPE_CONFIG_DIR", dir.join("config"))
        // No display: the script is refused before a window is asked for.
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .expect("runs");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("step 1 (click)") && err.contains("missing field `y`"),
        "{err}"
    );
}

/// The demo world's overview under Xvfb: the rooms drawn by their bounds, a click on one
/// opens it, and a click on the room's surface names its world model.
#[test]
fn the_world_overview_opens_a_room_and_a_room_pick_names_the_world_model() {
    let Some(display) = xvfb() else { return };
    let dir = scratch().join("overview");
    std::fs::create_dir_all(&dir).expect("folder");
    let d = |name: &str| dir.join(name).display().to_string();
    let steps = [
        r#"{"action": "resize", "width": 1366, "height": 768}"#.to_string(),
        r#"{"action": "wait_idle"}"#.into(),
        r#"{"action": "overview", "world": 0}"#.into(),
        r#"{"action": "wait_frames", "frames": 3}"#.into(),
        format!(
            r#"{{"action": "screenshot_window", "path": "{}"}}"#,
            d("overview.png")
        ),
        // Fitted to a wide view, the light set (y 5…7 of -3…7) is near the top middle.
        r#"{"action": "click_view", "x": 0.5, "y": 0.14}"#.into(),
        r#"{"action": "wait_idle"}"#.into(),
        format!(
            r#"{{"action": "screenshot_window", "path": "{}"}}"#,
            d("opened.png")
        ),
        r#"{"action": "overview", "world": 0}"#.into(),
        r#"{"action": "click_view", "x": 0.5, "y": 0.6}"#.into(),
        r#"{"action": "wait_idle"}"#.into(),
        r#"{"action": "click_view", "x": 0.5, "y": 0.5}"#.into(),
        r#"{"action": "wait_idle"}"#.into(),
        format!(
            r#"{{"action": "screenshot_window", "path": "{}"}}"#,
            d("picked_room.png")
        ),
    ];
    let output = view(&display, &dir, &format!("[\n{}\n]", steps.join(",\n")));
    let err = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{err}");
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).expect("report"))
            .expect("JSON")
    };
    let overview = read("overview.json");
    assert_eq!(overview["overview_world"].as_u64(), Some(0));
    assert_eq!(overview["spec"], serde_json::Value::Null);
    // The light set's fill differs from the map's empty corner.
    let image = RgbaImage::decode_png(&std::fs::read(dir.join("overview.png")).expect("png"))
        .expect("a PNG");
    let [vx, vy, vw, vh] = rect(&overview["view"]);
    let room = image.pixel((vx + vw * 0.5) as u32, (vy + vh * 0.14) as u32);
    let empty = image.pixel((vx + 4.0) as u32, (vy + vh - 4.0) as u32);
    assert_ne!(room, empty, "no room drawn where the light set is");
    let opened = read("opened.json");
    let spec = opened["spec"].as_str().expect("a room opened");
    assert!(spec.ends_with(":0xDE070001.MREA"), "{spec}");
    assert_eq!(opened["overview_world"], serde_json::Value::Null);
    let picked = read("picked_room.json");
    let spec = picked["spec"].as_str().expect("a room opened");
    assert!(spec.ends_with(":0xDE070002.MREA"), "{spec}");
    let wm = picked["picked_world_model"]
        .as_array()
        .expect("the centre hits a world model's surface");
    assert_eq!(wm.len(), 2);
    assert!(wm[0].as_u64().expect("index") < 5, "{wm:?}");
}

/// The fixture disc's first world under Xvfb: the overview draws each room's geometry (a
/// room's box beyond its world models stays empty), a click on a room's geometry opens it,
/// a click inside its box where it has no geometry opens nothing.
#[test]
fn the_disc_world_overview_draws_room_geometry_and_opens_a_room() {
    use tevscope::ui::world_map::{MapView, bounds, map_rooms};
    let Some(conformance) = tevscope::testing::conformance_dir() else {
        return;
    };
    // Each run gets its own X server (it exits with its last client).
    let Some(display) = xvfb() else { return };
    let rvz = conformance.join("discs/tevscope_fixture_shared.rvz");
    let dir = scratch().join("disc-overview");
    std::fs::create_dir_all(&dir).expect("folder");
    let d = |name: &str| dir.join(name).display().to_string();
    let report = tevscope::load::worlds::list_worlds(&rvz, None).expect("worlds");
    let rooms = map_rooms(&report.worlds[0]);
    let all = bounds(&rooms).expect("bounds");
    // Glass Corridor (x 32…44): world model 0 covers x 32…40, world model 1 x 42…44,
    // y 2…4; nothing lies at x 41.
    let (on, off) = (egui::pos2(36.0, 4.0), egui::pos2(41.0, 6.0));
    // Where they land depends on the view's rectangle, known once the window is laid out:
    // a first run reports it.
    let layout = [
        r#"{"action": "resize", "width": 1366, "height": 768}"#.to_string(),
        r#"{"action": "wait_idle"}"#.into(),
        format!(r#"{{"action": "open", "spec": "{}"}}"#, rvz.display()),
        r#"{"action": "wait_idle"}"#.into(),
        r#"{"action": "overview", "world": 0}"#.into(),
        r#"{"action": "wait_frames", "frames": 20}"#.into(),
        format!(
            r#"{{"action": "screenshot_window", "path": "{}"}}"#,
            d("overview.png")
        ),
    ];
    let output = view(&display, &dir, &format!("[\n{}\n]", layout.join(",\n")));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let read = |name: &str| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).expect("report"))
            .expect("JSON")
    };
    let overview = read("overview.json");
    assert_eq!(overview["overview_world"].as_u64(), Some(0));
    let [vx, vy, vw, vh] = rect(&overview["view"]);
    let screen = egui::Rect::from_min_size(egui::pos2(vx, vy), egui::vec2(vw, vh));
    let map = MapView::fit(all, screen);
    let image = RgbaImage::decode_png(&std::fs::read(dir.join("overview.png")).expect("png"))
        .expect("a PNG");
    let at = |p: egui::Pos2| {
        let q = map.to_screen(screen, p);
        image.pixel(q.x as u32, q.y as u32)
    };
    let background = [18, 18, 18, 255];
    assert_ne!(at(on), background, "no geometry drawn at world model 0");
    assert_eq!(
        at(off),
        background,
        "the box is filled where the room has no geometry"
    );
    let fraction = |p: egui::Pos2| {
        let q = map.to_screen(screen, p);
        ((q.x - vx) / vw, (q.y - vy) / vh)
    };
    let click = |p: egui::Pos2, shot: &str| {
        let (x, y) = fraction(p);
        [
            format!(r#"{{"action": "click_view", "x": {x}, "y": {y}}}"#),
            r#"{"action": "wait_idle"}"#.into(),
            format!(
                r#"{{"action": "screenshot_window", "path": "{}"}}"#,
                d(shot)
            ),
        ]
    };
    let mut steps = layout[..6].to_vec();
    steps.extend(click(off, "missed.png"));
    steps.extend(click(on, "opened.png"));
    let display = xvfb().expect("Xvfb ran a moment ago");
    let output = view(&display, &dir, &format!("[\n{}\n]", steps.join(",\n")));
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let missed = read("missed.json");
    assert_eq!(
        missed["spec"],
        serde_json::Value::Null,
        "a click off the geometry opened a room"
    );
    assert_eq!(missed["overview_world"].as_u64(), Some(0));
    let opened = read("opened.json");
    let spec = opened["spec"].as_str().expect("a room opened");
    assert!(spec.ends_with("Metroid1.pak:0x4D110001.MREA"), "{spec}");
}
