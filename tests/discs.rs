//! Disc images as sources (`conformance/discs/`): every container nod reads lists and extracts
//! the disc's files byte for byte; `worlds` on the disc, on its extracted folder and on each
//! world PAK gives the world fixtures' names, IDs and order in every language; every room spec
//! it gives opens and renders; `DISC:PATH[:ID]` specs reach inside; an edit saved from a disc
//! writes a new image in which only the edited PAK differs.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tevscope::load::worlds::list_worlds;
use tevscope::load::{LoadRequest, load};
use tevscope::testing::conformance_dir;

#[path = "common/xvfb.rs"]
mod xvfb;

fn discs() -> Option<(PathBuf, Value)> {
    let dir = conformance_dir()?.join("discs");
    let json = std::fs::read_to_string(dir.join("disc.json")).expect("disc.json");
    Some((dir, serde_json::from_str(&json).expect("disc.json parses")))
}

fn run(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_tevscope"))
        .args(args)
        .output()
        .expect("run tevscope")
}

fn tevscope(args: &[&str]) -> String {
    let out = run(args);
    assert!(
        out.status.success(),
        "tevscope {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

fn json_of(args: &[&str]) -> Value {
    serde_json::from_str(&tevscope(args)).expect("JSON output")
}

fn sha256(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn scratch(name: &str) -> tevscope::testing::Scratch {
    tevscope::testing::Scratch::new(&format!("discs-{name}"))
}

fn dolphin_tool() -> Option<PathBuf> {
    // Debian installs it in /usr/games, which is not always on PATH.
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/games")])
        .map(|p| p.join("dolphin-tool"))
        .find(|p| p.is_file());
    if found.is_none() {
        eprintln!(
            "\n!!!!!!!! dolphin-tool NOT FOUND — skipping the WIA/GCZ/WBFS conversions and \
             `dolphin-tool verify` (Debian: dolphin-emu).\n"
        );
    }
    found
}

/// Converts `iso` with nod's writer (the formats dolphin-tool does not write).
fn nod_convert(iso: &Path, target: &Path, format: nod::common::Format) -> Result<(), String> {
    use std::io::{Seek as _, Write as _};
    let disc = nod::read::DiscReader::new(iso, &nod::read::DiscOptions::default())
        .map_err(|e| e.to_string())?;
    let options = nod::write::FormatOptions::new(format);
    let writer = nod::write::DiscWriter::new(disc, &options).map_err(|e| e.to_string())?;
    let mut out = std::fs::File::create(target).map_err(|e| e.to_string())?;
    let fin = writer
        .process(
            |data, _, _| out.write_all(data.as_ref()),
            &nod::write::ProcessOptions::default(),
        )
        .map_err(|e| e.to_string())?;
    if !fin.header.is_empty() {
        out.rewind().map_err(|e| e.to_string())?;
        out.write_all(fin.header.as_ref())
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// Wraps a GameCube ISO in a TGC (the wrapper of GameCube demo discs), as Dolphin's
/// `TGCBlob` and nod's TGC reader read one. Facts from their readers and YAGCD; the layout:
///
/// | off  | u32 (big endian)                                                       |
/// |------|------------------------------------------------------------------------|
/// | 0x00 | magic 0xAE0F38A2                                                       |
/// | 0x04 | version (0)                                                            |
/// | 0x08 | offset of the disc header area (boot.bin, bi2.bin, apploader, …)       |
/// | 0x0C | its size (nod reads 0x100000 bytes there)                              |
/// | 0x10 | FST offset, 0x14 FST size, 0x18 FST max size                           |
/// | 0x1C | DOL offset, 0x20 DOL size                                              |
/// | 0x24 | file area offset (real), 0x28 its size                                 |
/// | 0x2C | banner offset, 0x30 banner size (0: none)                              |
/// | 0x34 | file area offset on the disc (virtual): a file at disc offset O is at  |
/// |      | O − this + the real file area offset                                   |
///
/// The embedded header keeps the disc's own DOL and FST offsets (the reconstructed disc
/// puts them there); the FST is unchanged. The nod writer cannot wrap the fixture (its
/// boot header has no user area), so the test builds the wrapper itself.
fn wrap_tgc(iso: &[u8]) -> Vec<u8> {
    const HEADER_AREA: usize = 0x10_0000;
    const SECTOR: usize = 0x8000;
    let be = |at: usize| u32::from_be_bytes(iso[at..at + 4].try_into().unwrap()) as usize;
    let (dol_at, fst_at, fst_size, fst_max) = (be(0x420), be(0x424), be(0x428), be(0x42C));
    // DOL size: the end of its furthest section (7 text + 11 data offsets, then sizes).
    let dol_size = (0..18)
        .map(|k| be(dol_at + 4 * k) + be(dol_at + 0x90 + 4 * k))
        .max()
        .unwrap()
        .max(0x100);
    // The file area: from the first file's offset to the end of the last (FST entries are
    // 12 bytes; the root's length is the entry count; files have type byte 0).
    let entries = be(fst_at + 8);
    let files: Vec<(usize, usize)> = (1..entries)
        .map(|k| fst_at + 12 * k)
        .filter(|&e| iso[e] == 0)
        .map(|e| (be(e + 4), be(e + 8)))
        .collect();
    let first = files.iter().map(|f| f.0).min().unwrap();
    let end = files.iter().map(|f| f.0 + f.1).max().unwrap();
    let header_at = SECTOR;
    let tgc_fst = header_at + HEADER_AREA;
    let tgc_dol = (tgc_fst + fst_size).next_multiple_of(32);
    let user_at = (tgc_dol + dol_size).next_multiple_of(SECTOR);
    let user_size = end - first;
    let mut out = vec![0u8; user_at + user_size];
    let fields = [
        0xAE0F_38A2,
        0,
        header_at,
        HEADER_AREA,
        tgc_fst,
        fst_size,
        fst_max,
        tgc_dol,
        dol_size,
        user_at,
        user_size,
        0,
        0,
        first,
    ];
    for (k, v) in fields.into_iter().enumerate() {
        out[4 * k..4 * k + 4].copy_from_slice(&(v as u32).to_be_bytes());
    }
    // The header area: the disc's start (the fixture is smaller than the area; the rest
    // stays zero), so its bytes agree with the files wherever they overlap it.
    let head = iso.len().min(HEADER_AREA);
    out[header_at..header_at + head].copy_from_slice(&iso[..head]);
    out[tgc_fst..tgc_fst + fst_size].copy_from_slice(&iso[fst_at..fst_at + fst_size]);
    out[tgc_dol..tgc_dol + dol_size].copy_from_slice(&iso[dol_at..dol_at + dol_size]);
    out[user_at..].copy_from_slice(&iso[first..end]);
    out
}

/// The shared ISO and RVZ; a TGC wrapped by [`wrap_tgc`]; CISO and WBFS made by nod's
/// writer; WIA and GCZ made by dolphin-tool when it is installed. The made ones live in
/// `tmp`.
fn containers(dir: &Path, iso: &Path, tmp: &Path) -> Vec<(PathBuf, &'static str)> {
    let mut out = vec![
        (iso.to_path_buf(), "ISO"),
        (dir.join("tevscope_fixture_shared.rvz"), "RVZ"),
    ];
    let tgc = tmp.join("fixture.tgc");
    std::fs::write(&tgc, wrap_tgc(&std::fs::read(iso).unwrap())).unwrap();
    out.push((tgc, "TGC"));
    for (format, name) in [
        (nod::common::Format::Ciso, "CISO"),
        (nod::common::Format::Wbfs, "WBFS"),
    ] {
        let target = tmp.join(format!("fixture.{}", name.to_lowercase()));
        match nod_convert(iso, &target, format) {
            Ok(()) => out.push((target, name)),
            Err(e) => eprintln!("!!!!!!!! nod could not write {name}: {e}"),
        }
    }
    if let Some(tool) = dolphin_tool() {
        for (fmt, ext, name) in [("wia", "wia", "WIA"), ("gcz", "gcz", "GCZ")] {
            let target = tmp.join(format!("fixture.{ext}"));
            let mut cmd = Command::new(&tool);
            cmd.args(["convert", "-i"]).arg(iso).arg("-o").arg(&target);
            cmd.args(["-f", fmt]);
            if fmt == "wia" {
                // WIA blocks are multiples of 2 MiB.
                cmd.args(["-b", "2097152", "-c", "lzma", "-l", "5"]);
            } else {
                cmd.args(["-b", "32768"]);
            }
            let status = cmd.output().expect("run dolphin-tool");
            if status.status.success() && target.is_file() {
                out.push((target, name));
            } else {
                eprintln!(
                    "!!!!!!!! dolphin-tool could not write {fmt}: {}",
                    String::from_utf8_lossy(&status.stderr)
                );
            }
        }
    }
    out
}

#[test]
fn every_container_lists_and_extracts_byte_identically() {
    let Some((dir, fx)) = discs() else { return };
    let iso = dir.join(fx["file"].as_str().unwrap());
    let files = fx["files"].as_array().unwrap();
    let tmp = scratch("containers");
    for (image, format) in containers(&dir, &iso, &tmp) {
        let what = image.display().to_string();
        let info = json_of(&["info", "--json", &what]);
        let d = &info["disc"];
        assert_eq!(d["game_id"], fx["header"]["game_id"], "{what}");
        assert_eq!(d["title"], fx["header"]["title"], "{what}");
        assert_eq!(d["format"], json!(format), "{what}");
        let listed: Vec<(Value, Value)> = d["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| (f["path"].clone(), f["size"].clone()))
            .collect();
        let expected: Vec<(Value, Value)> = files
            .iter()
            .map(|f| (f["path"].clone(), f["size"].clone()))
            .collect();
        assert_eq!(listed, expected, "{what}: files in FST order");
        for (f, e) in d["files"].as_array().unwrap().iter().zip(files) {
            assert_eq!(f["offset"], e["offset"], "{what}: {}", e["path"]);
        }

        let out = scratch(&format!("extract-{format}"));
        tevscope(&["extract", &what, "-o", out.to_str().unwrap()]);
        for f in files {
            let path = out.join("files").join(f["path"].as_str().unwrap());
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(json!(sha256(&bytes)), f["sha256"], "{what}: {}", f["path"]);
        }
        let boot = std::fs::read(out.join("sys/boot.bin")).unwrap();
        assert_eq!(&boot[..6], b"GM8ETV");
        std::fs::remove_dir_all(&out).ok();

        // `worlds` reads the same worlds through every container.
        for pak in ["Metroid1.pak", "MP2/Metroid1.pak"] {
            assert_eq!(
                world_of(&image, &format!("{what}:{pak}"), None),
                world_of(&iso, &format!("{}:{pak}", iso.display()), None),
                "{what}: {pak}"
            );
        }
    }
}

/// The world listing of `source` for one PAK, with its `pak` and specs rewritten to `pak`,
/// so listings of the same PAK from different sources compare equal.
fn world_of(source: &Path, pak_label: &str, lang: Option<&str>) -> Value {
    let listing = serde_json::to_value(list_worlds(source, lang).unwrap()).unwrap();
    let mut w = listing["worlds"]
        .as_array()
        .unwrap()
        .iter()
        .find(|w| w["pak"] == json!(pak_label))
        .unwrap_or_else(|| {
            panic!(
                "{}: no world from {pak_label}: {listing:#}",
                source.display()
            )
        })
        .clone();
    w["pak"] = json!("PAK");
    for a in w["areas"].as_array_mut().unwrap() {
        let spec = a["spec"].as_str().unwrap();
        let rest = spec.strip_prefix(pak_label).expect("spec names the PAK");
        a["spec"] = json!(format!("PAK{rest}"));
    }
    w
}

#[test]
fn worlds_on_the_disc_its_folder_and_its_paks_agree_with_the_fixtures() {
    let Some((dir, fx)) = discs() else { return };
    let conformance = conformance_dir().unwrap();
    let iso = dir.join(fx["file"].as_str().unwrap());
    let rvz = dir.join("tevscope_fixture_shared.rvz");
    let extracted = scratch("worlds-folder");
    tevscope(&[
        "extract",
        iso.to_str().unwrap(),
        "-o",
        extracted.to_str().unwrap(),
    ]);
    for (on_disc, fixture) in [
        ("Metroid1.pak", "mp1_world.pak"),
        ("MP2/Metroid1.pak", "mp2_world.pak"),
    ] {
        let pak = conformance.join("worlds").join(fixture);
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(pak.with_extension("pak.json")).unwrap())
                .unwrap();
        let world = &expected["world"];
        let mut langs: Vec<Option<&str>> = world["languages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str())
            .collect();
        langs.push(None);
        for lang in langs {
            let reference = world_of(&pak, &pak.display().to_string(), lang);
            // The fixture's names, IDs and order (the rest is tests/worlds.rs's check of the
            // same listing).
            let shown = lang.unwrap_or("ENGL");
            assert_eq!(reference["mlvl_id"], world["mlvl_id"]);
            assert_eq!(reference["name"], world["world_name"][shown]);
            let rooms: Vec<(Value, Value)> = reference["areas"]
                .as_array()
                .unwrap()
                .iter()
                .map(|a| (a["name"].clone(), a["mrea_id"].clone()))
                .collect();
            let fixture_rooms: Vec<(Value, Value)> = world["room_listing"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| (r[shown].clone(), r["mrea_id"].clone()))
                .collect();
            assert_eq!(rooms, fixture_rooms, "{fixture} {shown}");
            for image in [&iso, &rvz] {
                let label = format!("{}:{on_disc}", image.display());
                assert_eq!(world_of(image, &label, lang), reference, "{label} {lang:?}");
            }
            let in_folder = extracted.join("files").join(on_disc);
            assert_eq!(
                world_of(&extracted, &in_folder.display().to_string(), lang),
                reference,
                "extracted {on_disc} {lang:?}"
            );
        }
    }
    // The CLI gives the library's listing.
    let cli: Value =
        serde_json::from_str(&tevscope(&["worlds", "--json", rvz.to_str().unwrap()])).unwrap();
    assert_eq!(
        cli,
        serde_json::to_value(list_worlds(&rvz, None).unwrap()).unwrap()
    );
    std::fs::remove_dir_all(&extracted).ok();
}

#[test]
fn every_room_spec_from_worlds_on_the_disc_opens_and_renders() {
    let Some((dir, _)) = discs() else { return };
    let out = scratch("render");
    for image in ["tevscope_fixture_shared.iso", "tevscope_fixture_shared.rvz"] {
        let image = dir.join(image);
        let listing = list_worlds(&image, None).unwrap();
        assert_eq!(listing.worlds.len(), 2, "{}", image.display());
        for w in &listing.worlds {
            assert!(w.warnings.is_empty(), "{}: {:?}", w.pak, w.warnings);
            for a in &w.areas {
                load(&LoadRequest::new(&a.spec)).unwrap_or_else(|e| panic!("{}: {e:#}", a.spec));
            }
        }
        // Rendering draws the room through the same spec (one room per world: lavapipe is slow).
        for w in &listing.worlds {
            let png = out.join("room.png");
            let spec = &w.areas[0].spec;
            tevscope(&[
                "render",
                spec,
                "-o",
                png.to_str().unwrap(),
                "--size",
                "96x96",
            ]);
            let img = std::fs::read(&png).unwrap();
            assert!(img.starts_with(b"\x89PNG"), "{spec}");
        }
    }
    std::fs::remove_dir_all(&out).ok();
}

#[test]
fn disc_specs_reach_inside() {
    let Some((dir, _)) = discs() else { return };
    let rvz = dir.join("tevscope_fixture_shared.rvz");
    let rvz = rvz.display();
    // A whole PAK on the disc, a member by ID and type, a member by name.
    let pak = json_of(&["info", "--json", &format!("{rvz}:MP2/Metroid1.pak")]);
    assert!(
        pak["resources"].as_array().is_some_and(|r| !r.is_empty()),
        "{pak}"
    );
    let by_name = json_of(&[
        "info",
        "--json",
        &format!("{rvz}:Metroid1.pak:!TevFixture_Master"),
    ]);
    assert!(by_name.get("areas").is_some(), "{by_name}");
    // Case-insensitive paths, and a PAK's resources resolve within the disc (textures).
    let listing = list_worlds(Path::new(&rvz.to_string()), None).unwrap();
    let spec = listing.worlds[0].areas[0]
        .spec
        .replace("Metroid1.pak", "metroid1.PAK");
    load(&LoadRequest::new(&spec)).unwrap();
    // Errors name what is missing.
    let out = run(&["info", &format!("{rvz}:NoSuch.pak:0x10")]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("no such file"), "{err}");
    let out = run(&["render", &rvz.to_string(), "-o", "/dev/null"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("is a disc image"), "{err}");
}

#[test]
fn a_broken_disc_image_fails_cleanly() {
    let Some((dir, fx)) = discs() else { return };
    let iso = std::fs::read(dir.join(fx["file"].as_str().unwrap())).unwrap();
    let tmp = scratch("broken");
    for (name, bytes) in [
        ("short.iso", iso[..0x2600].to_vec()),
        ("fst.iso", {
            let mut b = iso.clone();
            // FST size far past the image.
            b[0x428..0x42C].copy_from_slice(&0x7FFF_FFFFu32.to_be_bytes());
            b
        }),
    ] {
        let p = tmp.join(name);
        std::fs::write(&p, bytes).unwrap();
        for cmd in [["info", "--json"], ["worlds", "--json"]] {
            let out = run(&[cmd[0], cmd[1], p.to_str().unwrap()]);
            assert!(!out.status.success(), "{name}: {cmd:?} succeeded");
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                err.contains(name) && !err.contains("panicked"),
                "{name}: {err}"
            );
        }
    }
    std::fs::remove_dir_all(&tmp).ok();
}

#[test]
fn an_edit_saved_from_a_disc_writes_a_new_image_with_only_that_pak_changed() {
    let Some((dir, fx)) = discs() else { return };
    let rvz = dir.join("tevscope_fixture_shared.rvz");
    let before = std::fs::read(&rvz).unwrap();
    let tmp = scratch("save");
    let patch = tmp.join("patch.json");
    std::fs::write(
        &patch,
        r#"[{"op": "add", "path": "/material_sets/0/materials/0/konst_colors_rgba/-", "value": [9, 8, 7, 6]}]"#,
    )
    .unwrap();
    let spec = format!("{}:tevscope_demo.pak:showcase", rvz.display());
    let image = tmp.join("edited.iso");
    let msg = tevscope(&[
        "edit",
        &spec,
        "--patch",
        patch.to_str().unwrap(),
        "-o",
        image.to_str().unwrap(),
    ]);
    assert!(
        msg.contains("new disc image") && msg.contains("tevscope_demo.pak"),
        "{msg}"
    );
    assert_eq!(
        std::fs::read(&rvz).unwrap(),
        before,
        "the source disc is never modified"
    );

    // Re-read by tevscope: every file as on the source disc except the edited PAK.
    let info = json_of(&["info", "--json", image.to_str().unwrap()]);
    assert_eq!(info["disc"]["game_id"], fx["header"]["game_id"]);
    let out = scratch("save-extract");
    tevscope(&[
        "extract",
        image.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ]);
    let mut changed = Vec::new();
    for f in fx["files"].as_array().unwrap() {
        let name = f["path"].as_str().unwrap();
        let bytes = std::fs::read(out.join("files").join(name)).unwrap();
        if json!(sha256(&bytes)) != f["sha256"] {
            changed.push(name.to_string());
        }
    }
    assert_eq!(changed, ["tevscope_demo.pak"]);
    // The edit is in the new image's PAK, read through the new disc.
    let (edited, _) =
        tevscope::load::open(&format!("{}:tevscope_demo.pak:showcase", image.display())).unwrap();
    let (original, _) = tevscope::load::open(&spec).unwrap();
    assert_ne!(
        edited.bytes, original.bytes,
        "the edited model is in the new image"
    );
    let k = [9u8, 8, 7, 6];
    assert!(
        edited.bytes.windows(4).any(|w| w == k),
        "the new konst colour is written"
    );
    // Into a folder instead: the PAK under its own name.
    let folder = scratch("save-folder");
    let msg = tevscope(&[
        "edit",
        &spec,
        "--patch",
        patch.to_str().unwrap(),
        "-o",
        folder.to_str().unwrap(),
    ]);
    assert!(msg.contains("into a folder"), "{msg}");
    assert!(folder.join("tevscope_demo.pak").is_file());
    // Overwriting the disc's own file is refused.
    let out_err = run(&[
        "edit",
        &spec,
        "--patch",
        patch.to_str().unwrap(),
        "--in-place",
    ]);
    assert!(!out_err.status.success());
    assert!(String::from_utf8_lossy(&out_err.stderr).contains("never modifies"));

    if let Some(tool) = dolphin_tool() {
        let v = Command::new(tool)
            .arg("verify")
            .arg("-i")
            .arg(&image)
            .output()
            .unwrap();
        let text =
            String::from_utf8_lossy(&v.stdout).to_string() + &String::from_utf8_lossy(&v.stderr);
        assert!(v.status.success(), "dolphin-tool verify: {text}");
        assert!(
            !text.contains("High") && !text.contains("Medium"),
            "dolphin-tool verify: {text}"
        );
    }
    for d in [tmp, out, folder] {
        std::fs::remove_dir_all(&d).ok();
    }
}

#[test]
fn a_scripted_window_opens_a_disc_and_one_of_its_rooms() {
    let Some((dir, _)) = discs() else { return };
    let Some(display) = xvfb::xvfb() else { return };
    let rvz = dir.join("tevscope_fixture_shared.rvz");
    let listing = list_worlds(&rvz, None).unwrap();
    let room = &listing.worlds[1].areas[1].spec;
    let tmp = scratch("window");
    let shot = tmp.join("window.png");
    let script = tmp.join("script.json");
    let steps = json!([
        {"action": "open", "spec": room},
        {"action": "open", "spec": rvz.display().to_string()},
        {"action": "screenshot_window", "path": shot.display().to_string()},
    ]);
    std::fs::write(&script, steps.to_string()).unwrap();
    let xdg = tmp.join("xdg");
    std::fs::create_dir_all(&xdg).unwrap();
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&xdg, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_tevscope"))
        .args([
            "view",
            "--step-timeout",
            "240",
            "--size",
            "1366x768",
            "--script",
        ])
        .arg(&script)
        .env(
            "WGPU_BACKEND",
            std::env::var("WGPU_BACKEND").unwrap_or_else(|_| "vulkan".into()),
        )
        .env("DISPLAY", &display)
        .env_remove("WAYLAND_DISPLAY")
        .env("XDG_RUNTIME_DIR", &xdg)
        .env("TEVSCOPE_CONFIG_DIR", tmp.join("config"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(shot.with_extension("json")).unwrap())
            .unwrap();
    assert_eq!(report["spec"], json!(room), "the disc's room is open");
    assert_eq!(report["worlds_source"], json!(rvz.display().to_string()));
    assert_eq!(report["worlds_shown"], json!(true));
    std::fs::remove_dir_all(&tmp).ok();
}

/// A disc's PAK read through a counting range source: what `info DISC:FILE.pak` reads.
struct CountingSource {
    inner: std::sync::Arc<dyn tevscope::formats::pak::RangeSource>,
    read: std::sync::atomic::AtomicU64,
}

impl tevscope::formats::pak::RangeSource for CountingSource {
    fn len(&self) -> u64 {
        self.inner.len()
    }

    fn read_range(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        self.read
            .fetch_add(len as u64, std::sync::atomic::Ordering::Relaxed);
        self.inner.read_range(offset, len)
    }
}

/// `info` on a PAK inside a disc image reads its tables and each payload's first bytes,
/// not the PAK: on a 16 MiB PAK (the demo PAK grown with raw filler) under 1 % of it is
/// read, and the report equals the whole-PAK report but for the checksum (null).
#[test]
fn info_on_a_disc_pak_reads_its_tables_not_the_pak() {
    use std::sync::Arc;
    use tevscope::formats::pak::{Pak, PakArchive, RangeSource};
    use tevscope::schema::pak::PakReport;
    let Some((dir, fx)) = discs() else { return };
    let fixture = std::fs::read(dir.join(fx["file"].as_str().unwrap())).unwrap();
    let demo =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.pak")).unwrap();
    let mut b = Pak::parse(&demo, "demo.pak")
        .unwrap()
        .to_builder(&demo)
        .unwrap();
    let filler: Vec<u8> = (0..1 << 20).map(|i| (i * 31 % 251) as u8).collect();
    for i in 0..16 {
        b.add_stored(*b"TXTR", 0x5000_0000 | i, 0, &filler);
    }
    let pak = b.build().unwrap();
    let u32_at = |at: usize| u32::from_be_bytes(fixture[at..at + 4].try_into().unwrap()) as usize;
    let (dol_at, fst_at) = (u32_at(0x420), u32_at(0x424));
    let layout = tevscope::formats::gcm::layout(
        &fixture[..0x440],
        &fixture[0x440..0x2440],
        &fixture[0x2440..dol_at],
        &fixture[dol_at..fst_at],
        &[("Metroid1.pak".to_string(), pak.len() as u64)],
    )
    .unwrap();
    let tmp = scratch("info-ranged");
    let iso = tmp.join("big.iso");
    let mut image = vec![0u8; layout.size as usize];
    image[..layout.head.len()].copy_from_slice(&layout.head);
    let at = layout.offsets[0] as usize;
    image[at..at + pak.len()].copy_from_slice(&pak);
    std::fs::write(&iso, image).unwrap();

    let member = format!("{}:Metroid1.pak", iso.display());
    let source = Arc::new(CountingSource {
        inner: tevscope::load::disc::member_source(Path::new(&member)).unwrap(),
        read: Default::default(),
    });
    let archive = PakArchive::from_ranges(source.clone(), &member).unwrap();
    let ranged = serde_json::to_value(PakReport::from_tables(&archive, None)).unwrap();
    let read = source.read.load(std::sync::atomic::Ordering::Relaxed);
    assert!(
        read * 100 < source.len(),
        "{read} of {} bytes read",
        source.len()
    );

    let mut whole = serde_json::to_value(PakReport::new(
        &Pak::parse(&pak, &member).unwrap(),
        &pak,
        None,
    ))
    .unwrap();
    assert!(whole["sha256"].is_string());
    whole["sha256"] = Value::Null;
    assert_eq!(ranged, whole);
    // The CLI takes the same path: no checksum, the same resources.
    let cli = json_of(&["info", "--json", &member]);
    assert_eq!(cli, ranged);
}
