//! The spec's MP3 Alts (`load::MP3_ALTS`, `formats.md` §13): each switch changes what the
//! fixtures become where it applies — the synthesised programs (`info --json`'s `gx`, the
//! drawn materials) or the skinned normals — through the loader, the session (the viewer's
//! toggles) and the CLI's `--mp3-alt`.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use glam::Vec3;
use tevscope::anim::{ClipBinding, NormalMode, Pose, PoseOptions, skin_vertex_normals};
use tevscope::load::{LoadRequest, MP3_ALTS, Mp3Alts, load};
use tevscope::session::{Change, References, Session};
use tevscope::testing::conformance_dir;

const MODELS: [&str; 2] = ["0x0C3F1E7D00000100.CMDL", "0x0C3F1E7D00000101.CMDL"];

fn mp3_dir() -> Option<PathBuf> {
    let dir = conformance_dir().map(|d| d.join("mp3"));
    if dir.is_none() {
        eprintln!("conformance fixtures absent: the MP3 Alt tests are skipped");
    }
    dir
}

fn alts(name: &str) -> Mp3Alts {
    Mp3Alts::from_names(&[name]).unwrap()
}

/// Every material of both fixture models in GX form (with second draws), loaded with `alts`.
fn drawn(dir: &std::path::Path, alts: Mp3Alts) -> Vec<tevscope::model::CpuMaterial> {
    MODELS
        .iter()
        .flat_map(|name| {
            let (model, _) = load(&LoadRequest {
                mp3_alts: alts,
                ..LoadRequest::new(dir.join(name).to_str().unwrap())
            })
            .unwrap();
            let cpu = model.assets.cpu_model().unwrap();
            cpu.material_sets.into_iter().flat_map(|s| s.materials)
        })
        .collect()
}

/// Each synthesis Alt changes the program of at least one fixture material, and only
/// where it applies: most materials stay as the Defaults build them. (No fixture material
/// is unlit without a CLR pass, D8's case: see the next test.)
#[test]
fn each_synthesis_alt_changes_a_fixture_material() {
    let Some(dir) = mp3_dir() else { return };
    let defaults = drawn(&dir, Mp3Alts::default());
    let skipped = ["first-weight-normals", "unlit-konst-x1"];
    for alt in MP3_ALTS.iter().filter(|a| !skipped.contains(&a.name)) {
        let with = drawn(&dir, alts(alt.name));
        let changed = defaults.iter().zip(&with).filter(|(a, b)| a != b).count();
        assert!(changed >= 1, "{}: no fixture material changes", alt.name);
        assert!(
            changed < defaults.len(),
            "{}: every material changes ({changed})",
            alt.name
        );
    }
}

/// `info --json --mp3-alt NAME` reports the changed program; an unknown name is refused
/// with the list of names.
#[test]
fn the_cli_flag_changes_the_reported_program() {
    let Some(dir) = mp3_dir() else { return };
    let file = dir.join(MODELS[0]);
    let run = |extra: &[&str]| {
        std::process::Command::new(env!("CARGO_BIN_EXE_tevscope"))
            .args(["info", "--json"])
            .arg(&file)
            .args(extra)
            .output()
            .unwrap()
    };
    let plain = run(&[]);
    assert!(plain.status.success());
    let mut differs = 0;
    for alt in MP3_ALTS.iter().filter(|a| a.name != "first-weight-normals") {
        let out = run(&["--mp3-alt", alt.name]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        differs += usize::from(out.stdout != plain.stdout);
    }
    assert!(differs >= 1, "no Alt changes model 100's report");
    let bad = run(&["--mp3-alt", "nope"]);
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(
        err.contains("unknown MP3 Alt") && err.contains("optimized-opaque"),
        "{err}"
    );
}

/// The viewer's toggle: the session derives the open model again with the Alt, keeping the
/// document; switching it off gives the Defaults back.
#[test]
fn the_session_derives_the_open_model_with_an_alt() {
    let Some(dir) = mp3_dir() else { return };
    let spec = dir.join(MODELS[0]).display().to_string();
    let mut session = Session::open(&spec, &References::default()).unwrap();
    let materials = |s: &Session| {
        s.asset()
            .unwrap()
            .cpu_model()
            .unwrap()
            .material_sets
            .clone()
    };
    let entries = |s: &Session| {
        let n = materials(s)[0].materials.len();
        (0..n)
            .map(|i| {
                s.asset()
                    .unwrap()
                    .material(0, i)
                    .map(|e| e.material.clone())
            })
            .collect::<Vec<_>>()
    };
    let (before, before_entries) = (materials(&session), entries(&session));
    let alt = alts("optimized-opaque");
    assert_eq!(session.set_mp3_alts(alt).unwrap(), Change::Model);
    assert_eq!(session.mp3_alts(), alt);
    assert_ne!(materials(&session), before);
    assert_ne!(
        entries(&session),
        before_entries,
        "the drawn entries follow"
    );
    assert_eq!(session.set_mp3_alts(alt).unwrap(), Change::None);
    assert_eq!(
        session.set_mp3_alts(Mp3Alts::default()).unwrap(),
        Change::Model
    );
    assert_eq!(materials(&session), before);
    assert_eq!(entries(&session), before_entries);
    assert!(session.document().is_some());
}

/// §13.4 Alt: the character's skinned normals take the first weight's rotation. Posed by
/// its animation, a vertex with several weights turns its normal differently.
#[test]
fn first_weight_normals_change_the_characters_skinned_normals() {
    let Some(dir) = mp3_dir() else { return };
    let spec = dir.join("0x0C3F1E7D00000500.CHAR");
    let skin = |alts| {
        let (model, _) = load(&LoadRequest {
            mp3_alts: alts,
            ..LoadRequest::new(spec.to_str().unwrap())
        })
        .unwrap();
        model.assets.cpu_model().unwrap().skin.unwrap()
    };
    let blended = skin(Mp3Alts::default());
    let first = skin(alts("first-weight-normals"));
    assert_eq!(blended.normals, NormalMode::Blended);
    assert_eq!(first.normals, NormalMode::FirstWeight);
    // Posed halfway through each clip, the skinned normals of multi-weight vertices differ.
    let options = PoseOptions::default();
    let multi: Vec<_> = blended
        .influences
        .iter()
        .copied()
        .filter(|i| i.count > 1)
        .collect();
    assert!(
        !multi.is_empty(),
        "the character has vertices with several weights"
    );
    let mut differs = false;
    for (_, clip) in &blended.clips {
        let skeleton = &blended.skeleton;
        let binding = ClipBinding::new(clip, skeleton).unwrap();
        let mut pose = Pose::bind(skeleton, &options);
        pose.sample(skeleton, clip, &binding, clip.duration * 0.5, &options);
        let palette = pose.skin_palette(skeleton, &options);
        let normals = vec![Vec3::Z; multi.len()];
        let a = skin_vertex_normals(&multi, &palette, &normals, blended.normals);
        let b = skin_vertex_normals(&multi, &palette, &normals, first.normals);
        differs |= a.iter().zip(&b).any(|(a, b)| a.distance(*b) > 1e-3);
    }
    assert!(
        differs,
        "first-weight normals equal the blended ones at every pose"
    );
}

/// D8 applies to an unlit material without a CLR pass: fixture 101's material 3 (DIFF,
/// CLR, INCA) with its DIFF and CLR passes made XRAY (not drawn). Its R2 stage scales ×2
/// by Default and ×1 with the Alt.
#[test]
fn unlit_konst_x1_halves_r2_of_an_unlit_material_without_clr() {
    let Some(dir) = mp3_dir() else { return };
    let spec = dir.join(MODELS[1]).display().to_string();
    let mut session = Session::open(&spec, &References::default()).unwrap();
    let ops: json_patch::Patch = serde_json::from_value(serde_json::json!([
        {"op": "replace", "path": "/material_sets/0/materials/3/elements/0/type", "value": "XRAY"},
        {"op": "replace", "path": "/material_sets/0/materials/3/elements/1/type", "value": "XRAY"}
    ]))
    .unwrap();
    session.apply_patch(&ops, "unlit, no CLR").unwrap();
    let r2_scale = |s: &Session| {
        let m = &s.asset().unwrap().material(0, 3).unwrap().material;
        // R1 is not emitted (no DIFF): R2 is the first stage.
        m.stages[0].color_op.scale
    };
    assert_eq!(r2_scale(&session), 1, "×2 by Default");
    session.set_mp3_alts(alts("unlit-konst-x1")).unwrap();
    assert_eq!(r2_scale(&session), 0, "×1 with the Alt");
    assert!(session.is_dirty(), "the edit is kept");
}
