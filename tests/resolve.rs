//! Finding what a model or character refers to the way users store files: by asset ID in
//! the same PAK; beside a loose file as `0xID.TYPE` or `ID.TYPE`, also in the subfolders
//! extractors create (`Uncategorized/ID.TYPE`); by name in folders of named files; and by
//! explicit choices (`--model`, `--skin`, `--skeleton`, `--anim`, `--texture-dir`). Each load says which
//! files it used.

use std::path::Path;

use tevscope::load::{LoadRequest, MissingPart, Part, load};
use tevscope::testing::conformance_dir;

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> tevscope::testing::Scratch {
    tevscope::testing::Scratch::new(&format!("resolve-{name}"))
}

/// Copies conformance file `from` to `to` (a test-run copy in a scratch folder).
fn put(conformance: &Path, from: &str, to: &Path) {
    std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
    std::fs::copy(conformance.join(from), to).expect("copy fixture");
}

const TEXTURES: [(&str, &str); 4] = [
    ("mp1_rgb5a3_8x8_2mips.TXTR", "1A000001"),
    ("mp1_cmpr_8x8.TXTR", "1A000002"),
    ("mp1_i8_16x8.TXTR", "1A000003"),
    ("mp1_c4_8x8.TXTR", "1A000004"),
];

fn spec(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn extractor_layout_with_bare_ids_in_a_sibling_subfolder() {
    let Some(c) = conformance_dir() else { return };
    let root = scratch("uncategorized");
    let unc = root.join("Uncategorized");
    put(&c, "mp1_cube_skinned.CMDL", &unc.join("C0000001.CMDL"));
    put(&c, "mp1_cube.CSKR", &unc.join("C2000001.CSKR"));
    put(&c, "mp1_skeleton.CINF", &unc.join("c1000001.cinf"));
    put(&c, "mp1_wave_uncompressed.ANIM", &unc.join("A0000001.ANIM"));
    put(
        &c,
        "mp1_wave_compressed.ANIM",
        &unc.join("Anims/A0000002.ANIM"),
    );
    for (file, id) in TEXTURES {
        put(&c, file, &unc.join(format!("{id}.TXTR")));
    }
    let ancs = root.join("Characters/fixture_cube.ANCS");
    put(&c, "mp1_cube.ANCS", &ancs);

    let (model, warnings) = load(&LoadRequest::new(&spec(&ancs))).expect("character loads");
    assert!(warnings.is_empty(), "{warnings:?}");
    let skin = model.assets.skin.as_ref().expect("skinned");
    assert_eq!(skin.clips.len(), 2);
    assert_eq!(model.assets.textures.len(), 4);
    let said = model.sources.join("\n");
    for part in [
        "model 0xC0000001.CMDL",
        "skin 0xC2000001.CSKR",
        "skeleton 0xC1000001.CINF",
    ] {
        assert!(said.contains(part), "{said}");
    }
    assert!(said.contains("Uncategorized"), "{said}");
    assert!(said.contains("by asset ID"), "{said}");
    assert!(said.contains("texture 0x1A000004.TXTR"), "{said}");
}

#[test]
fn named_files_resolve_by_type_and_animation_name() {
    let Some(c) = conformance_dir() else { return };
    let dir = scratch("named");
    put(&c, "mp1_cube.ANCS", &dir.join("fixture_cube.ANCS"));
    put(&c, "mp1_cube_skinned.CMDL", &dir.join("cube.CMDL"));
    put(&c, "mp1_cube.CSKR", &dir.join("cube.CSKR"));
    put(&c, "mp1_skeleton.CINF", &dir.join("cube_rig.CINF"));
    put(
        &c,
        "mp1_wave_uncompressed.ANIM",
        &dir.join("wave_uncompressed.ANIM"),
    );
    put(
        &c,
        "mp1_wave_compressed.ANIM",
        &dir.join("Wave_Compressed.ANIM"),
    );

    let (model, warnings) = load(&LoadRequest {
        anim: Some("wave_compressed".into()),
        ..LoadRequest::new(&spec(&dir.join("fixture_cube.ANCS")))
    })
    .expect("character loads from named files");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(model.assets.skin.as_ref().expect("skin").clips.len(), 2);
    assert_eq!(model.animation, Some(1));
    let said = model.sources.join("\n");
    assert!(said.contains("the only CSKR beside the input"), "{said}");
    assert!(said.contains("cube_rig.CINF"), "{said}");
    assert!(said.contains("Wave_Compressed.ANIM"), "{said}");
}

#[test]
fn ambiguous_parts_ask_for_a_choice_and_explicit_choices_win() {
    let Some(c) = conformance_dir() else { return };
    let dir = scratch("explicit");
    put(&c, "mp1_cube.ANCS", &dir.join("fixture_cube.ANCS"));
    put(&c, "mp1_cube_skinned.CMDL", &dir.join("cube.CMDL"));
    put(&c, "mp1_cube.CSKR", &dir.join("cube_a.CSKR"));
    put(&c, "mp1_cube.CSKR", &dir.join("cube_b.CSKR"));
    put(&c, "mp1_skeleton.CINF", &dir.join("rig.CINF"));
    let textures = scratch("explicit-textures");
    for (file, id) in TEXTURES {
        put(&c, file, &textures.join(format!("0x{id}.TXTR")));
    }
    let ancs = spec(&dir.join("fixture_cube.ANCS"));

    let e = load(&LoadRequest::new(&ancs))
        .err()
        .expect("two skins: no guess");
    let msg = format!("{e:#}");
    assert!(msg.contains("0xC2000001.CSKR"), "{msg}");
    // The library names the part, not a flag: the CLI and the viewer say how to give it.
    assert_eq!(MissingPart::find(&e).map(|m| m.part), Some(Part::Skin));
    assert!(!msg.contains("--"), "{msg}");

    let (model, warnings) = load(&LoadRequest {
        skin: Some(spec(&dir.join("cube_b.CSKR"))),
        texture_dirs: vec![textures.to_path_buf()],
        ..LoadRequest::new(&ancs)
    })
    .expect("an explicit skin resolves it");
    assert_eq!(model.assets.textures.len(), 4, "--texture-dir is searched");
    let said = model.sources.join("\n");
    assert!(said.contains("cube_b.CSKR (chosen explicitly)"), "{said}");
    // Animations are missing here: a warning each, not a failure.
    assert_eq!(warnings.len(), 2, "{warnings:?}");
}

#[test]
fn render_says_which_files_it_used() {
    let Some(c) = conformance_dir() else { return };
    let cli_dir = scratch("cli");
    let out = cli_dir.join("shot.png");
    let exe = env!("CARGO_BIN_EXE_tevscope");
    let result = std::process::Command::new(exe)
        .args([
            "render",
            &format!("{}:fixture_cube", spec(&c.join("mp1_fixtures.pak"))),
        ])
        .args(["--size", "64x64", "-o", &spec(&out)])
        .env(
            "WGPU_BACKEND",
            std::env::var("WGPU_BACKEND").unwrap_or("vulkan".into()),
        )
        .output()
        .expect("run tevscope");
    let stdout = String::from_utf8_lossy(&result.stdout);
    let stderr = String::from_utf8_lossy(&result.stderr);
    if !result.status.success() && stderr.contains("adapter") {
        eprintln!("!!!!!!!! no GPU adapter — skipping: {stderr}");
        return;
    }
    assert!(result.status.success(), "{stderr}");
    assert!(stdout.contains("using skin 0xC2000001.CSKR"), "{stdout}");
    assert!(
        stdout.contains("mp1_fixtures.pak:0xC2000001.CSKR"),
        "{stdout}"
    );
}

/// Runs the binary; None when there is no GPU adapter (skip).
fn run_tevscope(args: &[&str]) -> Option<(bool, String, String)> {
    let result = std::process::Command::new(env!("CARGO_BIN_EXE_tevscope"))
        .args(args)
        .env(
            "WGPU_BACKEND",
            std::env::var("WGPU_BACKEND").unwrap_or("vulkan".into()),
        )
        .output()
        .expect("run tevscope");
    let stdout = String::from_utf8_lossy(&result.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&result.stderr).into_owned();
    if !result.status.success() && stderr.contains("adapter") {
        eprintln!("!!!!!!!! no GPU adapter — skipping: {stderr}");
        return None;
    }
    Some((result.status.success(), stdout, stderr))
}

/// A character whose model is not found (two CMDLs beside it, neither by ID nor by name)
/// is drawn with the model given explicitly: `--model` (a file or `PAK:ID`) on `render`
/// and `export`, `LoadRequest::model` in the library.
#[test]
fn an_explicit_model_replaces_the_characters() {
    let Some(c) = conformance_dir() else { return };
    let dir = scratch("model");
    put(&c, "mp1_cube.ANCS", &dir.join("cube.ANCS"));
    put(&c, "mp1_cube_skinned.CMDL", &dir.join("cube_a.CMDL"));
    put(&c, "mp1_cube_skinned.CMDL", &dir.join("cube_b.CMDL"));
    put(&c, "mp1_cube.CSKR", &dir.join("cube.CSKR"));
    put(&c, "mp1_skeleton.CINF", &dir.join("cube.CINF"));
    let ancs = spec(&dir.join("cube.ANCS"));
    let cube_b = spec(&dir.join("cube_b.CMDL"));

    let e = load(&LoadRequest::new(&ancs))
        .err()
        .expect("two models: no guess");
    assert_eq!(MissingPart::find(&e).map(|m| m.part), Some(Part::Model));
    assert!(format!("{e:#}").contains("0xC0000001.CMDL"), "{e:#}");
    let (model, _) = load(&LoadRequest {
        model: Some(cube_b.clone()),
        ..LoadRequest::new(&ancs)
    })
    .expect("an explicit model resolves it");
    assert!(model.assets.skin.is_some());
    let said = model.sources.join("\n");
    assert!(
        said.contains("model: ") && said.contains("cube_b.CMDL (chosen explicitly)"),
        "{said}"
    );
    // As a PAK member, and checked to be a CMDL.
    let pak = spec(&c.join("mp1_fixtures.pak"));
    let (model, _) = load(&LoadRequest {
        model: Some(format!("{pak}:0xC0000001")),
        ..LoadRequest::new(&ancs)
    })
    .expect("a model from a PAK");
    assert!(
        model
            .sources
            .join("\n")
            .contains("0xC0000001.CMDL (chosen explicitly)")
    );
    let e = load(&LoadRequest {
        model: Some(spec(&dir.join("cube.CSKR"))),
        ..LoadRequest::new(&ancs)
    })
    .err()
    .expect("a CSKR is no model");
    assert!(format!("{e:#}").contains("expected a CMDL"), "{e:#}");
    // Only a character has a model to replace.
    let e = load(&LoadRequest {
        model: Some(cube_b.clone()),
        ..LoadRequest::new(&spec(&dir.join("cube_a.CMDL")))
    })
    .err()
    .expect("--model on a CMDL");
    assert!(format!("{e:#}").contains("not a character"), "{e:#}");

    // The command line names the flag, which exists on render and export.
    let out = spec(&dir.join("shot.png"));
    let Some((ok, _, stderr)) = run_tevscope(&["render", &ancs, "--size", "32x32", "-o", &out])
    else {
        return;
    };
    assert!(!ok);
    assert!(stderr.contains("name one with --model"), "{stderr}");
    let (ok, stdout, stderr) = run_tevscope(&[
        "render", &ancs, "--model", &cube_b, "--size", "32x32", "-o", &out,
    ])
    .expect("adapter");
    assert!(ok, "{stderr}");
    assert!(
        stdout.contains("cube_b.CMDL (chosen explicitly)"),
        "{stdout}"
    );
    assert!(dir.join("shot.png").is_file());
    let glb = spec(&dir.join("cube.glb"));
    let (ok, _, stderr) = run_tevscope(&["export", &ancs, "-o", &glb]).expect("adapter");
    assert!(!ok && stderr.contains("name one with --model"), "{stderr}");
    let (ok, stdout, stderr) =
        run_tevscope(&["export", &ancs, "--model", &cube_b, "-o", &glb]).expect("adapter");
    assert!(ok, "{stderr}");
    assert!(stdout.contains("wrote"), "{stdout}");
    assert!(dir.join("cube.glb").is_file());
}
