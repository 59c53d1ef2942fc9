//! End-to-end tests of the command line: every command on the conformance files, through
//! the real binary where the exit code and files matter, and the TEV exactness cases through
//! the real `tev_cases.pak` and the loose files.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use tevscope::cli;
use tevscope::image::RgbaImage;
use tevscope::render::{QuadOptions, RenderContext, ShaderPath};
use tevscope::testing::conformance_dir;

fn tevscope(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tevscope"))
        .args(args)
        .output()
        .expect("run tevscope");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn path(dir: &Path, name: &str) -> String {
    dir.join(name).to_string_lossy().into_owned()
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

#[test]
fn info_reads_every_conformance_format_as_text_and_json() {
    let Some(dir) = conformance_dir() else { return };
    let files = [
        ("mp1_fixtures.pak", "PAK"),
        ("mp2_fixtures.pak", "PAK"),
        ("tev_cases.pak", "PAK"),
        ("mp1_cube_skinned.CMDL", "CMDL"),
        ("0x7EC00000.CMDL", "CMDL"),
        ("pwe/Sphere.CMDL", "CMDL"),
        ("mp1_rgb5a3_8x8_2mips.TXTR", "TXTR"),
        ("pwe/LightSpot.TXTR", "TXTR"),
        ("mp1_skeleton.CINF", "CINF"),
        ("mp1_cube.CSKR", "CSKR"),
        ("mp1_wave_uncompressed.ANIM", "ANIM"),
        ("mp1_wave_compressed.ANIM", "ANIM"),
        ("mp1_cube.ANCS", "ANCS"),
        ("mp3_fixture.CHAR", "CHAR"),
        ("mp1_lights_minimal.MREA", "MREA"),
    ];
    for (name, kind) in files {
        let file = path(&dir, name);
        let text = cli::info(&file, false, None).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        assert!(
            text.contains(kind),
            "{name}: text output names its format:\n{text}"
        );
        let json = cli::info(&file, true, None).unwrap_or_else(|e| panic!("{name}: {e:#}"));
        let v: Value = serde_json::from_str(&json).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(v.is_object(), "{name}: JSON object");
    }
}

#[test]
fn info_json_agrees_with_the_conformance_json_on_shared_fields() {
    let Some(dir) = conformance_dir() else { return };
    let read = |name: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(dir.join(name)).expect(name)).expect(name)
    };
    // A PAK member addressed by ID gives the same CMDL report as the loose file.
    let loose: Value = serde_json::from_str(
        &cli::info(&path(&dir, "mp1_cube_skinned.CMDL"), true, None).expect("loose"),
    )
    .expect("json");
    let member: Value = serde_json::from_str(
        &cli::info(&path(&dir, "mp1_fixtures.pak:0xC0000001"), true, None).expect("member"),
    )
    .expect("json");
    assert_eq!(loose["material_sets"], member["material_sets"]);
    let fixture = read("mp1_cube_skinned.CMDL.json");
    for m in 0..3 {
        for field in [
            "tev_stages",
            "texgens",
            "uv_animations",
            "konst_colors",
            "blend_source_factor",
            "blend_destination_factor",
        ] {
            let at = format!("material_sets[0].materials[{m}].{field}");
            assert_subset(
                &loose["material_sets"][0]["materials"][m][field],
                &fixture["material_sets"][0]["materials"][m][field],
                &at,
            );
        }
    }

    let pak: Value =
        serde_json::from_str(&cli::info(&path(&dir, "mp1_fixtures.pak"), true, None).expect("pak"))
            .expect("json");
    let fixture = read("mp1_fixtures.pak.json");
    for (got, want) in pak["resources"]
        .as_array()
        .expect("resources")
        .iter()
        .zip(fixture["resources"].as_array().expect("resources"))
    {
        for field in ["type", "id", "size", "offset", "compressed"] {
            assert_eq!(got[field], want[field], "resource field {field}");
        }
    }
}

/// Every field of `want` is in `got` with the same value (`got` may add fields).
fn assert_subset(got: &Value, want: &Value, at: &str) {
    match (got, want) {
        (Value::Object(g), Value::Object(w)) => {
            for (k, wv) in w {
                let gv = g.get(k).unwrap_or_else(|| panic!("{at}.{k} missing"));
                assert_subset(gv, wv, &format!("{at}.{k}"));
            }
        }
        (Value::Array(g), Value::Array(w)) => {
            assert_eq!(g.len(), w.len(), "{at}: length");
            for (i, (gv, wv)) in g.iter().zip(w).enumerate() {
                assert_subset(gv, wv, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(got, want, "{at}"),
    }
}

#[test]
fn named_pak_members_and_bad_specs() {
    let Some(dir) = conformance_dir() else { return };
    let by_name =
        cli::info(&path(&dir, "mp1_fixtures.pak:fixture_cube"), false, None).expect("by name");
    assert!(by_name.contains("ANCS"));
    let err = cli::info(&path(&dir, "mp1_fixtures.pak:0x12345678"), false, None).unwrap_err();
    assert!(format!("{err:#}").contains("0x12345678"), "{err:#}");
    let (ok, _, stderr) = tevscope(&["info", &path(&dir, "does_not_exist.CMDL")]);
    assert!(!ok);
    assert!(stderr.starts_with("error:"), "{stderr}");
}

#[test]
fn texture_extract_pose_and_uvanim_commands() {
    let Some(dir) = conformance_dir() else { return };
    let out = temp_dir("cli_commands");

    let png = out.join("rgb5a3_mip1.png");
    let (ok, _, err) = tevscope(&[
        "texture",
        &path(&dir, "mp1_rgb5a3_8x8_2mips.TXTR"),
        "-o",
        &png.to_string_lossy(),
        "--mip",
        "1",
    ]);
    assert!(ok, "{err}");
    let image = RgbaImage::load_png(&png).expect("png");
    assert_eq!((image.width, image.height), (4, 4));

    let (ok, _, err) = tevscope(&[
        "extract",
        &path(&dir, "mp1_fixtures.pak"),
        "-o",
        &out.join("x").to_string_lossy(),
    ]);
    assert!(ok, "{err}");
    let cmdl = std::fs::read(out.join("x/0xC0000001.CMDL")).expect("extracted CMDL");
    assert_eq!(
        cmdl,
        std::fs::read(dir.join("mp1_cube_skinned.CMDL")).expect("loose")
    );

    let (ok, stdout, err) = tevscope(&[
        "pose",
        &path(&dir, "mp1_fixtures.pak:0xA0000002"),
        "--skeleton",
        &path(&dir, "mp1_skeleton.CINF"),
        "--time",
        "0.1",
        "--json",
    ]);
    assert!(ok, "{err}");
    let pose: Value = serde_json::from_str(&stdout).expect("pose json");
    assert!(pose.to_string().contains("model"), "{stdout}");

    let (ok, stdout, err) = tevscope(&[
        "uvanim",
        &path(&dir, "mp1_cube_skinned.CMDL"),
        "--material",
        "0",
        "--time",
        "2",
        "--json",
    ]);
    assert!(ok, "{err}");
    let v: Value = serde_json::from_str(&stdout).expect("uvanim json");
    // Mode 2 scroll: translation = offset + s · speed (0.25 + 2·0.125, −0.5 + 2·2).
    let text = v.to_string();
    assert!(text.contains("0.5") && text.contains("3.5"), "{stdout}");

    let (ok, stdout, err) = tevscope(&[
        "wgsl",
        &path(&dir, "0x7EC00000.CMDL"),
        "--material",
        "3",
        "--uber",
    ]);
    assert!(ok, "{err}");
    assert!(stdout.contains("@fragment") && stdout.contains("@vertex"));
}

fn expected_cases(dir: &Path) -> Vec<[u8; 4]> {
    let json: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("tev_cases.json")).expect("tev_cases.json"),
    )
    .expect("json");
    json["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .map(|c| {
            let v: Vec<u8> = c["expected_rgba"]
                .as_array()
                .expect("rgba")
                .iter()
                .map(|x| x.as_u64().expect("u8") as u8)
                .collect();
            [v[0], v[1], v[2], v[3]]
        })
        .collect()
}

/// Issue "GX pixel pipeline", first criterion: every case of `tev_cases.json`, rendered
/// from the real PAK and from the loose files (textures resolved by ID), on both paths.
#[test]
fn tev_cases_render_exactly_from_the_pak_and_the_loose_files() {
    let Some(dir) = conformance_dir() else { return };
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let expected = expected_cases(&dir);
    assert_eq!(expected.len(), 48);
    for spec in [
        path(&dir, "tev_cases.pak:0x7EC00000"),
        path(&dir, "0x7EC00000.CMDL"),
    ] {
        let model = tevscope::load::open_cmdl(&spec).expect("open");
        for (i, want) in expected.iter().enumerate() {
            let material = model.material(0, i).expect("material");
            let textures = model.textures(0, i).expect("textures");
            assert!(
                textures.iter().all(Option::is_some),
                "{spec}: material {i} textures resolve"
            );
            for path in [ShaderPath::Specialized, ShaderPath::Uber] {
                let image = cli::tev::render_quad_with(
                    &ctx,
                    &material,
                    &textures,
                    &QuadOptions::new(8, 8, path),
                )
                .expect("render");
                for y in 0..8 {
                    for x in 0..8 {
                        assert_eq!(
                            image.pixel(x, y),
                            *want,
                            "{spec}: case {i} {path:?} pixel ({x}, {y})"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn render_command_writes_the_exact_tev_output() {
    let Some(dir) = conformance_dir() else { return };
    if RenderContext::for_tests().is_none() {
        return;
    }
    let expected = expected_cases(&dir);
    let out = temp_dir("cli_render");
    for (case, shader) in [(7usize, "specialized"), (31, "uber")] {
        let png = out.join(format!("case{case}.png"));
        let (ok, _, err) = tevscope(&[
            "render",
            &path(&dir, "tev_cases.pak:0x7EC00000"),
            "--material",
            &case.to_string(),
            "--preview",
            "quad",
            "--size",
            "16x8",
            "--shader",
            shader,
            "-o",
            &png.to_string_lossy(),
        ]);
        assert!(ok, "{err}");
        let image = RgbaImage::load_png(&png).expect("png");
        assert_eq!((image.width, image.height), (16, 8));
        assert!(
            image.pixels.chunks(4).all(|p| p == expected[case]),
            "case {case}"
        );
    }
}

/// `tevscope render` writes an opaque PNG (image viewers would show the game's alpha, which
/// is not coverage, as see-through), and keeps alpha with `--transparent`.
#[test]
fn render_writes_an_opaque_png_unless_transparent() {
    if RenderContext::for_tests().is_none() {
        return;
    }
    let showcase = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak:showcase");
    let out = temp_dir("cli_render_opaque");
    let alpha_below_255 = |transparent: bool| {
        let png = out.join(format!("showcase_{transparent}.png"));
        let png = png.to_string_lossy();
        let mut args = vec!["render", showcase, "--size", "256x256", "-o", &png];
        if transparent {
            args.push("--transparent");
        }
        let (ok, _, err) = tevscope(&args);
        assert!(ok, "{err}");
        let image = RgbaImage::load_png(&*png).expect("png");
        image.pixels.chunks(4).filter(|p| p[3] != 255).count()
    };
    assert_eq!(alpha_below_255(false), 0);
    assert!(alpha_below_255(true) > 1000);
}

/// `dolphin` takes render's shape previews (one material alone) but not the quad preview,
/// which draws no scene; either way it says what to do before looking for Dolphin.
#[test]
fn dolphin_previews_need_a_shape() {
    let out = std::env::temp_dir().join("tevscope-cli-dolphin-quad.png");
    let out = out.display().to_string();
    let (ok, _, err) = tevscope(&[
        "dolphin",
        "builtin:demo.pak:showcase",
        "--preview",
        "quad",
        "--material",
        "1",
        "-o",
        &out,
    ]);
    assert!(!ok);
    assert!(err.contains("--preview quad draws no scene"), "{err}");
    let (ok, _, err) = tevscope(&[
        "dolphin",
        "builtin:demo.pak:showcase",
        "--material",
        "1",
        "-o",
        &out,
    ]);
    assert!(!ok);
    assert!(
        err.contains("--material selects what --preview shows"),
        "{err}"
    );
}
