//! A/B compare (`render --compare`, `session::Session::opened_model`): after an edit the B
//! side differs, the A side equals a render of the unedited file, and the difference is
//! zero wherever the edited material draws nothing.

use std::path::PathBuf;
use std::process::Command;

use tevscope::image::RgbaImage;
use tevscope::render::RenderContext;
use tevscope::render::compare::{CompareMode, compose};
use tevscope::session::{References, Session};

const SHOWCASE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak:showcase");
/// Material 12 of the showcase has one konst colour; the patch turns it blue.
const EDITED: usize = 12;
const PATCH: &str = r#"[{"op":"replace","path":"/material_sets/0/materials/12/konst_colors_rgba/0","value":[20,140,255,255]}]"#;

fn scratch() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("compare");
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

fn run(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tevscope"))
        .args(args)
        .output()
        .expect("run tevscope");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// The opened model survives an edit in the session: its materials are the file's, the
/// edited one differs only in the edited material.
#[test]
fn the_session_keeps_the_opened_materials() {
    let mut session = Session::open(SHOWCASE, &References::default()).expect("open");
    let before = session.opened_model().expect("model");
    let ops: json_patch::Patch = serde_json::from_str(PATCH).expect("patch");
    session.apply_patch(&ops.0, "test").expect("applied");
    let opened = session.opened_model().expect("model");
    assert_eq!(opened.material_sets, before.material_sets);
    let edited = session
        .asset()
        .and_then(|a| a.material(0, EDITED))
        .map(|e| e.material.clone())
        .expect("edited entry");
    assert_ne!(
        Some(&edited),
        opened.material_sets[0].materials[EDITED].gx.as_ref().ok()
    );
}

#[test]
fn compare_sides_and_difference() {
    if RenderContext::for_tests().is_none() {
        return;
    }
    let dir = scratch();
    let patch = dir.join("patch.json");
    std::fs::write(&patch, PATCH).expect("patch file");
    let patch = patch.to_string_lossy().into_owned();
    let path = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let size = ["--size", "200x150"];
    let (ok, out) = run(&[
        "render",
        SHOWCASE,
        size[0],
        size[1],
        "-o",
        &path("plain.png"),
    ]);
    assert!(ok, "{out}");
    for mode in ["side", "diff"] {
        let png = path(&format!("{mode}.png"));
        let (ok, out) = run(&[
            "render",
            SHOWCASE,
            size[0],
            size[1],
            "--compare",
            mode,
            "--patch",
            &patch,
            "-o",
            &png,
        ]);
        assert!(ok, "{out}");
        assert!(out.contains("1 material(s) differ"), "{out}");
    }
    let plain = RgbaImage::load_png(path("plain.png")).expect("png");
    let side = RgbaImage::load_png(path("side.png")).expect("png");
    let diff = RgbaImage::load_png(path("diff.png")).expect("png");
    assert_eq!((side.width, side.height), (400, 150));
    let (w, h) = (200usize, 150usize);
    let half = |right: bool| -> Vec<u8> {
        (0..h)
            .flat_map(|y| {
                let start = (y * 2 * w + if right { w } else { 0 }) * 4;
                side.pixels[start..start + w * 4].to_vec()
            })
            .collect()
    };
    let (a, b) = (half(false), half(true));
    assert_eq!(
        a, plain.pixels,
        "the A side is not the unedited file's render"
    );
    let changed = a.chunks(4).zip(b.chunks(4)).filter(|(p, q)| p != q).count();
    assert!(changed > 50, "only {changed} pixels of B differ");
    // The diff is the composed one, zero exactly where A and B agree.
    let composed = compose(
        CompareMode::Diff,
        &RgbaImage {
            width: 200,
            height: 150,
            pixels: a.clone(),
        },
        &RgbaImage {
            width: 200,
            height: 150,
            pixels: b.clone(),
        },
        0.5,
    );
    assert_eq!(composed.pixels, diff.pixels);
    let nonzero = diff
        .pixels
        .chunks(4)
        .filter(|p| p[..3] != [0, 0, 0])
        .count();
    assert!(nonzero > 50 && nonzero <= changed, "{nonzero} vs {changed}");
}

/// The difference lies only where the edited material draws: hiding its surfaces makes
/// A and B identical.
#[test]
fn the_difference_is_zero_where_the_edit_does_not_draw() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let mut session = Session::open(SHOWCASE, &References::default()).expect("open");
    let ops: json_patch::Patch = serde_json::from_str(PATCH).expect("patch");
    session.apply_patch(&ops.0, "test").expect("applied");
    let opened = session.opened_model().expect("model");
    let edited = session
        .asset()
        .and_then(|a| a.material(0, EDITED))
        .map(|e| e.material.clone())
        .expect("edited entry");
    let hidden: Vec<bool> = opened
        .surfaces
        .iter()
        .map(|s| s.material == EDITED)
        .collect();
    assert!(hidden.iter().any(|&h| h));
    let render = |edit: bool, hide: bool| {
        let mut scene = tevscope::render::scene::Scene::new(&ctx, std::sync::Arc::clone(&opened))
            .expect("scene");
        scene.frame_model();
        if edit {
            assert!(scene.set_material(0, EDITED, edited.clone()));
        }
        if hide {
            scene.set_hidden_surfaces(&hidden);
        }
        scene
            .render_to_image(&ctx, 200, 150, false)
            .expect("render")
    };
    let (a, b) = (render(false, false), render(true, false));
    let diff = compose(CompareMode::Diff, &a, &b, 0.5);
    let without = render(false, true);
    let mut inside = 0;
    for ((d, p), q) in diff
        .pixels
        .chunks(4)
        .zip(a.pixels.chunks(4))
        .zip(without.pixels.chunks(4))
    {
        if d[..3] != [0, 0, 0] {
            // A changed pixel is one the edited material covers.
            assert_ne!(p, q, "a difference outside the edited material");
            inside += 1;
        }
    }
    assert!(inside > 50, "{inside}");
    assert_eq!(
        render(false, true).pixels,
        render(true, true).pixels,
        "with the edited material hidden, A and B differ"
    );
}
