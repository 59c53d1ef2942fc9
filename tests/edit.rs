//! Editing models: JSON Patch through the document and `tevscope edit`, on every conformance
//! CMDL and PAK (loose, pwe/, real/, areas/): empty patches round-trip byte for byte, every
//! operation kind changes exactly its targets, refused patches write nothing, and undo of any
//! edit sequence restores the original bytes.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{Value, json};
use tevscope::cli::edit::edit;
use tevscope::edit::{Document, Refusal};
use tevscope::formats::Game;
use tevscope::formats::cmdl::Cmdl;
use tevscope::formats::pak::Pak;
use tevscope::schema::CmdlInfo;
use tevscope::schema::cmdl_mp3::Mp3CmdlInfo;
use tevscope::testing::conformance_dir;

// ------------------------------------------------------------------------------------------------
// Helpers

/// A fresh scratch folder for one test.
fn scratch(name: &str) -> tevscope::testing::Scratch {
    tevscope::testing::Scratch::new(&format!("edit-{name}"))
}

fn files_with(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            files_with(&p, ext, out);
        } else if p
            .extension()
            .is_some_and(|x| x.to_string_lossy().eq_ignore_ascii_case(ext))
        {
            out.push(p);
        }
    }
}

/// Every model spec in the conformance folder: loose CMDLs and `PAK:0xID.CMDL` members
/// (Prime 3's version-5 models included).
fn model_specs(dir: &Path) -> Vec<String> {
    let mut cmdls = Vec::new();
    files_with(dir, "cmdl", &mut cmdls);
    let mut specs: Vec<String> = cmdls.iter().map(|p| p.display().to_string()).collect();
    for pak in paks(dir) {
        let data = std::fs::read(&pak).unwrap();
        let p = Pak::parse(&data, "p").unwrap();
        for e in p.entries() {
            if &e.fourcc == b"CMDL" {
                let wide = e.id > u64::from(u32::MAX);
                specs.push(format!(
                    "{}:{}.CMDL",
                    pak.display(),
                    tevscope::formats::asset_id_string(e.id, wide)
                ));
            }
        }
    }
    specs
}

/// Whether a model is Prime 3's (its materials are element lists, edited as such).
fn is_mp3(info: &Value) -> bool {
    info["game"] == "MP3"
}

fn paks(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    files_with(dir, "pak", &mut out);
    out
}

fn write_patch(dir: &Path, patch: &Value) -> String {
    let p = dir.join("patch.json");
    std::fs::write(&p, serde_json::to_string(patch).unwrap()).unwrap();
    p.display().to_string()
}

fn file_of(spec: &str) -> PathBuf {
    tevscope::load::source::split_spec(spec).unwrap().0
}

/// The model bytes `spec` names inside `file` (a written copy of its file).
fn model_in(spec: &str, file: &Path) -> Vec<u8> {
    let data = std::fs::read(file).unwrap();
    match spec.rsplit_once(':').filter(|_| !Path::new(spec).is_file()) {
        None => data,
        Some((_, member)) => {
            let pak = Pak::parse(&data, "out").unwrap();
            let e = tevscope::load::source::resolve_member(&pak, member).unwrap();
            pak.read(&data, e).unwrap()
        }
    }
}

/// `info --json` of a model (the MP3 report for a version-5 model).
fn info_value(bytes: &[u8]) -> Value {
    let cmdl = Cmdl::parse(bytes, "m").unwrap();
    if cmdl.mp3_materials.is_some() {
        serde_json::to_value(Mp3CmdlInfo::new(&cmdl, "m", 0)).unwrap()
    } else {
        serde_json::to_value(CmdlInfo::new(&cmdl, "m", 0)).unwrap()
    }
}

/// A patch using every operation kind on the element list of MP3 material 0 of set 0.
fn every_kind_patch_mp3(info: &Value) -> Value {
    let base = "/material_sets/0/materials/0";
    let m = &info["material_sets"][0]["materials"][0];
    let elements = m["elements"].as_array().unwrap();
    let end = elements.len() - 1;
    let first_pass = elements
        .iter()
        .position(|e| e["element"] == "PASS")
        .unwrap();
    let flags = m["flags"].as_u64().unwrap();
    let pass_flags = elements[first_pass]["flags"].as_u64().unwrap();
    Value::Array(vec![
        json!({"op": "test", "path": format!("{base}/elements/{end}/element"), "value": "END "}),
        json!({"op": "replace", "path": format!("{base}/flags"), "value": flags | 0x8}),
        json!({"op": "replace", "path": format!("{base}/elements/{first_pass}/flags"), "value": pass_flags ^ 0x10}),
        json!({"op": "replace", "path": format!("{base}/elements/{first_pass}/uv_anim"),
               "value": {"source": 2, "matrix_config": 0, "mode": 2, "params": [0.5, 0.25, 1.0, -1.0]}}),
        json!({"op": "add", "path": format!("{base}/elements/{end}"),
               "value": {"element": "INT ", "type": "OPAC", "value": 128}}),
        json!({"op": "add", "path": format!("{base}/elements/0"),
               "value": {"element": "CLR ", "type": "DIFB", "rgba8": [10, 20, 30, 255]}}),
        json!({"op": "move", "from": format!("{base}/elements/0"), "path": format!("{base}/elements/1")}),
        json!({"op": "copy", "from": format!("{base}/elements/1"), "path": format!("{base}/elements/0")}),
        json!({"op": "remove", "path": format!("{base}/elements/0")}),
    ])
}

/// Drops the derived fields of an MP3 material value (the program, decoded flags, sizes).
fn sources_mp3(mut m: Value) -> Value {
    let o = m.as_object_mut().unwrap();
    for k in [
        "gx",
        "flags_decoded",
        "vertex_attributes",
        "element_count_including_end",
    ] {
        o.remove(k);
    }
    for e in o["elements"].as_array_mut().unwrap() {
        let e = e.as_object_mut().unwrap();
        for k in ["flags_decoded", "uv_anim_size"] {
            e.remove(k);
        }
        if e["element"] == "CLR " {
            e.remove("value");
        }
        if let Some(a) = e.get_mut("uv_anim").and_then(Value::as_object_mut) {
            for k in ["source_name", "mode_name", "param_names"] {
                a.remove(k);
            }
        }
    }
    m
}

fn without_offsets(s: &str) -> String {
    s.split("at byte offset ")
        .enumerate()
        .map(|(i, part)| {
            if i == 0 {
                part
            } else {
                part.split_once(' ').map_or("", |p| p.1)
            }
        })
        .collect()
}

/// Paths where two values differ.
fn diff(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for k in x.keys().chain(y.keys()) {
                let (p, q) = (
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                );
                diff(p, q, &format!("{path}/{k}"), out);
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                diff(p, q, &format!("{path}/{i}"), out);
            }
        }
        // Messages name file offsets, which move when a material grows.
        (Value::String(x), Value::String(y)) if without_offsets(x) == without_offsets(y) => {}
        _ if a != b => out.push(format!("{path}: {a} vs {b}")),
        _ => {}
    }
}

/// Drops the derived fields of a material value (they are checked separately).
fn sources(mut m: Value) -> Value {
    let o = m.as_object_mut().unwrap();
    // Bits 0x8 and 0x400 follow the konsts and the indirect slot.
    let flags = o["flags"].as_u64().unwrap() & !0x408;
    o.insert("flags".into(), json!(flags));
    let drop = |v: &mut Value, keys: &[&str]| {
        let o = v.as_object_mut().unwrap();
        keys.iter().for_each(|k| {
            o.remove(*k);
        });
    };
    drop(
        &mut m,
        &[
            "flags_decoded",
            "texture_file_ids",
            "konst_colors",
            "tev_stage_count",
            "texgen_count",
            "material_animations_section_size",
            "uv_animation_count",
            "gx_valid",
        ],
    );
    let derived: [(&str, &[&str]); 3] = [
        (
            "tev_stages",
            &[
                "color_input_flags",
                "alpha_input_flags",
                "color_combine_flags",
                "alpha_combine_flags",
            ],
        ),
        (
            "texgens",
            &[
                "flags",
                "type_name",
                "source_name",
                "gx_tex_mtx",
                "gx_post_tex_mtx",
            ],
        ),
        ("uv_animations", &["mode_name", "parameter_names"]),
    ];
    for (list, keys) in derived {
        for e in m[list].as_array_mut().unwrap() {
            drop(e, keys);
        }
    }
    m
}

/// A patch using every operation kind on material 0 of set 0 (within the GX limits).
fn every_kind_patch(info: &Value) -> Value {
    let base = "/material_sets/0/materials/0";
    let m = &info["material_sets"][0]["materials"][0];
    let stages = m["tev_stages"].as_array().unwrap().len();
    let konsts = m["konst_colors_rgba"].as_array().unwrap().len();
    let texgens = m["texgens"].as_array().unwrap().len();
    let uvs = m["uv_animations"].as_array().unwrap().len();
    let textures = m["texture_indices"].as_array().unwrap().len();
    let set_textures = info["material_sets"][0]["texture_file_ids"]
        .as_array()
        .unwrap()
        .len();
    let s0 = &m["tev_stages"][0];
    let out_reg = (s0["color_op"]["out_reg"].as_u64().unwrap() + 1) % 4;
    let input = if s0["color_inputs"][3] == "ZERO" {
        "HALF"
    } else {
        "ZERO"
    };
    let mut added = s0.clone();
    added["alpha_op"]["clamp"] = json!(!s0["alpha_op"]["clamp"].as_bool().unwrap());
    for k in [
        "color_input_flags",
        "alpha_input_flags",
        "color_combine_flags",
        "alpha_combine_flags",
    ] {
        added.as_object_mut().unwrap().remove(k);
    }
    let mut ops = vec![
        json!({"op": "test", "path": format!("{base}/tev_stages/0/konst_alpha_input"),
               "value": s0["konst_alpha_input"]}),
        json!({"op": "replace", "path": format!("{base}/tev_stages/0/color_op/out_reg"), "value": out_reg}),
        json!({"op": "replace", "path": format!("{base}/tev_stages/0/color_inputs/3"), "value": input}),
    ];
    assert!(stages < 15, "fixture material has room for two stages");
    ops.push(json!({"op": "add", "path": format!("{base}/tev_stages/-"), "value": added}));
    ops.push(json!({"op": "move", "from": format!("{base}/tev_stages/0"),
                    "path": format!("{base}/tev_stages/1")}));
    ops.push(json!({"op": "copy", "from": format!("{base}/tev_stages/1"),
                    "path": format!("{base}/tev_stages/0")}));
    ops.push(if konsts < 4 {
        json!({"op": "add", "path": format!("{base}/konst_colors_rgba/-"), "value": [9, 8, 7, 6]})
    } else {
        json!({"op": "replace", "path": format!("{base}/konst_colors_rgba/0"), "value": [9, 8, 7, 6]})
    });
    if texgens < 8 {
        ops.push(
            json!({"op": "add", "path": format!("{base}/texgens/-"), "value":
            {"type": 1, "source": 4, "mtx_field": 30, "normalize": false, "post_mtx_field": 61}}),
        );
    }
    ops.push(
        json!({"op": "add", "path": format!("{base}/uv_animations/-"), "value":
        {"mode": 2, "parameters": [0.5, 0.25, 1.0, -1.0]}}),
    );
    ops.push(
        json!({"op": "add", "path": format!("{base}/uv_animations/-"), "value":
        {"mode": 3, "parameters": [0.125, 2.0]}}),
    );
    ops.push(json!({"op": "remove", "path": format!("{base}/uv_animations/{uvs}")}));
    if textures < 8 && set_textures > 0 {
        ops.push(
            json!({"op": "add", "path": format!("{base}/texture_indices/-"),
                        "value": set_textures - 1}),
        );
    }
    Value::Array(ops)
}

// ------------------------------------------------------------------------------------------------
// Round trips

#[test]
fn empty_patch_writes_every_conformance_cmdl_and_pak_byte_identically() {
    let Some(dir) = conformance_dir() else { return };
    let tmp = scratch("empty");
    let patch = write_patch(&tmp, &json!([]));
    let specs = model_specs(&dir);
    assert!(specs.len() >= 10, "{specs:?}");
    for spec in &specs {
        let out = tmp.join("out");
        edit(spec, &patch, Some(&out), false).unwrap_or_else(|e| panic!("{spec}: {e:#}"));
        let original = std::fs::read(file_of(spec)).unwrap();
        assert!(
            std::fs::read(&out).unwrap() == original,
            "{spec}: empty patch changed the file"
        );
        // The document itself also reproduces the model (not only the file shortcut).
        let doc = Document::open(spec).unwrap();
        assert_eq!(
            doc.model_bytes().unwrap(),
            model_in(spec, &file_of(spec)),
            "{spec}"
        );
    }
    // Every PAK that holds a model tevscope reads was written.
    for pak in paks(&dir) {
        let data = std::fs::read(&pak).unwrap();
        let p = Pak::parse(&data, "p").unwrap();
        let readable_model = p.entries().iter().any(|e| &e.fourcc == b"CMDL");
        if !readable_model {
            continue;
        }
        assert!(
            specs
                .iter()
                .any(|s| s.starts_with(&pak.display().to_string())),
            "{} has no CMDL",
            pak.display()
        );
    }
}

#[test]
fn info_json_reads_back_into_the_schema_types() {
    let Some(dir) = conformance_dir() else { return };
    for spec in model_specs(&dir) {
        let bytes = model_in(&spec, &file_of(&spec));
        let cmdl = Cmdl::parse(&bytes, "m").unwrap();
        let info = CmdlInfo::new(&cmdl, "m", bytes.len());
        let text = serde_json::to_string(&info).unwrap();
        let back: CmdlInfo = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{spec}: {e}"));
        let mut changed = Vec::new();
        diff(
            &serde_json::to_value(&back).unwrap(),
            &serde_json::to_value(&info).unwrap(),
            "",
            &mut changed,
        );
        assert!(
            back == info,
            "{spec}: {:?}",
            &changed[..changed.len().min(5)]
        );
    }
}

#[test]
fn every_operation_kind_changes_its_targets_and_nothing_else() {
    let Some(dir) = conformance_dir() else { return };
    let tmp = scratch("kinds");
    for spec in model_specs(&dir) {
        let original_file = std::fs::read(file_of(&spec)).unwrap();
        let before_bytes = model_in(&spec, &file_of(&spec));
        let before = info_value(&before_bytes);
        let mp3 = is_mp3(&before);
        let patch = if mp3 {
            every_kind_patch_mp3(&before)
        } else {
            every_kind_patch(&before)
        };
        let patch_file = write_patch(&tmp, &patch);
        let out = tmp.join("out");
        edit(&spec, &patch_file, Some(&out), false).unwrap_or_else(|e| panic!("{spec}: {e:#}"));
        // The written model re-parses; compare its JSON with the patch applied by hand.
        let after = info_value(&model_in(&spec, &out));
        let mut expected = before.clone();
        let ops: json_patch::Patch = serde_json::from_value(patch.clone()).unwrap();
        json_patch::patch(&mut expected, &ops).unwrap();
        let m_exp = &expected["material_sets"][0]["materials"][0];
        let m_act = &after["material_sets"][0]["materials"][0];
        if mp3 {
            assert_eq!(
                sources_mp3(m_exp.clone()),
                sources_mp3(m_act.clone()),
                "{spec}"
            );
            // The program follows the edit: 0x8 makes the material transparent.
            assert_eq!(m_act["gx"]["configuration"], "NoBloomTransparent", "{spec}");
            assert_eq!(
                m_act["element_count_including_end"],
                m_act["elements"].as_array().unwrap().len(),
                "{spec}"
            );
        } else {
            assert_eq!(sources(m_exp.clone()), sources(m_act.clone()), "{spec}");
        }
        if !mp3 {
            // Derived fields follow the sources.
            let count = |k: &str| m_act[k].as_array().unwrap().len() as u64;
            assert_eq!(m_act["tev_stage_count"], count("tev_stages"), "{spec}");
            assert_eq!(m_act["texgen_count"], count("texgens"), "{spec}");
            assert_eq!(
                m_act["uv_animation_count"],
                count("uv_animations"),
                "{spec}"
            );
            assert_eq!(m_act["gx_valid"], true, "{spec}");
            assert_eq!(
                m_act["tev_stages"][0]["color_op"]["out_reg"],
                (before["material_sets"][0]["materials"][0]["tev_stages"][0]["color_op"]["out_reg"]
                    .as_u64()
                    .unwrap() + 1)
                    % 4,
                "{spec}: the moved, then copied stage keeps its edit"
            );
        }
        // Nothing outside material 0 of set 0 changed (other sets, surfaces, arrays).
        let mut a = after.clone();
        let mut b = before.clone();
        for v in [&mut a, &mut b] {
            v["material_sets"][0]["materials"][0] = Value::Null;
            for k in ["size", "data_sections", "file", "material_sets"] {
                if k == "material_sets" {
                    for set in v[k].as_array_mut().unwrap() {
                        set["material_end_offsets"] = Value::Null;
                        set["material_sizes"] = Value::Null;
                    }
                } else {
                    v[k] = Value::Null;
                }
            }
        }
        let mut changed = Vec::new();
        diff(&a, &b, "", &mut changed);
        changed.dedup();
        assert!(
            changed.is_empty(),
            "{spec}: outside the target: {changed:?}"
        );
        // In a PAK, every other resource is stored byte for byte as before, in the same order.
        if let Some((_, member)) = spec.rsplit_once(":0x") {
            let old = Pak::parse(&original_file, "old").unwrap();
            let new_data = std::fs::read(&out).unwrap();
            let new = Pak::parse(&new_data, "new").unwrap();
            assert_eq!(old.named(), new.named(), "{spec}");
            assert_eq!(old.entries().len(), new.entries().len());
            let id = u64::from_str_radix(member.split('.').next().unwrap(), 16).unwrap();
            for (o, n) in old.entries().iter().zip(new.entries()) {
                assert_eq!((o.fourcc, o.id, o.flag), (n.fourcc, n.id, n.flag), "{spec}");
                if o.id == id && &o.fourcc == b"CMDL" {
                    assert_eq!(
                        old.compression_of(&original_file, o),
                        new.compression_of(&new_data, n),
                        "{spec}: recompressed the way it was stored"
                    );
                } else {
                    assert_eq!(
                        old.stored(&original_file, o).unwrap(),
                        new.stored(&new_data, n).unwrap(),
                        "{spec}: resource {:#x} changed",
                        o.id
                    );
                }
            }
        }
    }
}

#[test]
fn mp3_pak_member_is_recompressed_as_cmpd() {
    let Some(dir) = conformance_dir() else { return };
    let tmp = scratch("mp3");
    let cmdl = std::fs::read(dir.join("mp1_cube_skinned.CMDL")).unwrap();
    let mut b = tevscope::formats::pak::PakBuilder::new(Game::Mp3);
    b.add(*b"TXTR", 0x11, &[7u8; 200], true);
    b.add(*b"CMDL", 0x22, &cmdl, true);
    b.add(*b"TXTR", 0x33, &[9u8; 300], false);
    b.add_name(*b"CMDL", 0x22, "cube");
    let pak_path = tmp.join("mp3.pak");
    std::fs::write(&pak_path, b.build().unwrap()).unwrap();
    let spec = format!("{}:cube", pak_path.display());
    let before = info_value(&cmdl);
    let patch = write_patch(&tmp, &every_kind_patch(&before));
    edit(&spec, &patch, None, true).unwrap();
    let data = std::fs::read(&pak_path).unwrap();
    let pak = Pak::parse(&data, "mp3").unwrap();
    let e = &pak.entries()[1];
    assert_eq!(
        pak.compression_of(&data, e),
        Some(tevscope::formats::pak::Compression::Cmpd)
    );
    Cmdl::parse(&pak.read(&data, e).unwrap(), "m").unwrap();
}

#[test]
fn the_binary_reads_the_patch_from_stdin_and_refuses_conflicting_targets() {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let Some(dir) = conformance_dir() else { return };
    let tmp = scratch("binary");
    let model = tmp.join("m.CMDL");
    std::fs::copy(dir.join("mp1_cube_skinned.CMDL"), &model).unwrap();
    let run = |args: &[&str], stdin: &str| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tevscope"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // A command refused before it reads stdin closes the pipe early.
        let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
        child.wait_with_output().unwrap()
    };
    let m = model.display().to_string();
    let patch =
        r#"[{"op": "replace", "path": "/material_sets/0/materials/1/group_index", "value": 7}]"#;
    let out = run(&["edit", &m, "--patch", "-", "--in-place"], patch);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info = info_value(&std::fs::read(&model).unwrap());
    assert_eq!(info["material_sets"][0]["materials"][1]["group_index"], 7);
    let o = tmp.join("o.CMDL").display().to_string();
    let out = run(&["edit", &m, "--patch", "-", "--in-place", "-o", &o], patch);
    assert!(!out.status.success());
    assert!(!Path::new(&o).exists());
    let out = run(&["edit", &m, "--patch", "-"], "[{\"op\": \"frobnicate\"}]");
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a JSON Patch"));
}

// ------------------------------------------------------------------------------------------------
// Refusals

#[test]
fn refused_patches_write_nothing_and_name_operation_and_path() {
    let Some(dir) = conformance_dir() else { return };
    let tmp = scratch("refused");
    let source = dir.join("mp1_cube_skinned.CMDL");
    let info = info_value(&std::fs::read(&source).unwrap());
    let base = "/material_sets/0/materials/0";
    let m = &info["material_sets"][0]["materials"][0];
    let stage = m["tev_stages"][0].clone();
    let stages = m["tev_stages"].as_array().unwrap().len();
    let konsts = m["konst_colors_rgba"].as_array().unwrap().len();
    let texgens = m["texgens"].as_array().unwrap().len();
    let textures = m["texture_indices"].as_array().unwrap().len();
    let add_n = |path: &str, n: usize, value: Value| -> Vec<Value> {
        (0..n)
            .map(|_| json!({"op": "add", "path": format!("{base}/{path}/-"), "value": value}))
            .collect()
    };
    let texgen =
        json!({"type": 1, "source": 4, "mtx_field": 30, "normalize": false, "post_mtx_field": 61});
    // (patch, index of the refused operation, words the error must contain)
    let cases: Vec<(Vec<Value>, usize, &str)> = vec![
        (
            add_n("tev_stages", 17 - stages, stage),
            16 - stages,
            "TEV stages",
        ),
        (
            add_n("konst_colors_rgba", 5 - konsts, json!([1, 2, 3, 4])),
            4 - konsts,
            "konst",
        ),
        (
            add_n("texgens", 9 - texgens, texgen),
            8 - texgens,
            "texgens",
        ),
        (
            vec![
                json!({"op": "replace", "path": format!("{base}/tev_stages/0/color_op/out_reg"), "value": 4}),
            ],
            0,
            "out_reg",
        ),
        (
            vec![
                json!({"op": "replace", "path": format!("{base}/tev_stages/0/konst_color_input"), "value": 32}),
            ],
            0,
            "out of range 0–31",
        ),
        (
            vec![
                json!({"op": "replace", "path": format!("{base}/tev_stages/0/rasterized_color_input"), "value": 9}),
            ],
            0,
            "raster",
        ),
        (
            vec![
                json!({"op": "replace", "path": format!("{base}/texture_indices/0"), "value": 99}),
            ],
            0,
            "texture index",
        ),
        (
            vec![
                json!({"op": "replace", "path": format!("{base}/tev_stages/0/texture_index"), "value": textures}),
            ],
            0,
            "texture slot",
        ),
        (
            vec![
                json!({"op": "test", "path": format!("{base}/group_index"), "value": m["group_index"]}),
                json!({"op": "replace", "path": format!("{base}/no_such_field"), "value": 1}),
            ],
            1,
            "path",
        ),
        (
            vec![
                json!({"op": "replace", "path": "/material_sets/0/materials/99/flags", "value": 1}),
            ],
            0,
            "path",
        ),
        (
            vec![json!({"op": "replace", "path": "/positions/0", "value": [0, 0, 0]})],
            0,
            "only fields of one material",
        ),
        (
            vec![json!({"op": "replace", "path": format!("{base}/tev_stage_count"), "value": 9})],
            0,
            "derived",
        ),
        (
            vec![
                json!({"op": "replace", "path": format!("{base}/tev_stages/0/color_combine_flags"), "value": 0x7FF}),
            ],
            0,
            "derived",
        ),
        (
            vec![
                json!({"op": "replace", "path": format!("{base}/tev_stages/0/color_inputs/0"), "value": "TEXX"}),
            ],
            0,
            "TEXX",
        ),
    ];
    let original = std::fs::read(&source).unwrap();
    for (i, (ops, index, words)) in cases.into_iter().enumerate() {
        let patch = write_patch(&tmp, &Value::Array(ops.clone()));
        let path = ops[index]["path"].as_str().unwrap().to_string();
        let check = |e: anyhow::Error| {
            let text = format!("{e:#}");
            assert!(
                text.contains(&format!("operation {index} (")) && text.contains(&path),
                "case {i}: {text}"
            );
            assert!(text.contains(words), "case {i}: {text} lacks {words:?}");
        };
        let out = tmp.join(format!("out{i}.CMDL"));
        check(edit(&source.display().to_string(), &patch, Some(&out), false).unwrap_err());
        assert!(!out.exists(), "case {i}: output written");
        // In place: the original stays byte-identical.
        let copy = tmp.join("copy.CMDL");
        std::fs::write(&copy, &original).unwrap();
        check(edit(&copy.display().to_string(), &patch, None, true).unwrap_err());
        assert_eq!(std::fs::read(&copy).unwrap(), original, "case {i}");
        // Through the document: nothing changes, no history.
        let mut doc = Document::open(&copy.display().to_string()).unwrap();
        let ops: json_patch::Patch = serde_json::from_value(Value::Array(ops)).unwrap();
        let err = doc.apply_patch(&ops, "refused").unwrap_err();
        assert_eq!(err.index, index, "case {i}");
        assert!(matches!(
            err.reason,
            Refusal::NotEditable
                | Refusal::Patch(_)
                | Refusal::Schema(_)
                | Refusal::Field(_)
                | Refusal::Derived { .. }
                | Refusal::Limit { .. }
        ));
        assert!(!doc.is_dirty() && doc.history().count() == 0, "case {i}");
        assert_eq!(doc.model_bytes().unwrap(), original, "case {i}");
    }
    // Without -o or --in-place nothing is overwritten.
    let patch = write_patch(&tmp, &json!([]));
    let e = edit(&source.display().to_string(), &patch, None, false).unwrap_err();
    assert!(format!("{e:#}").contains("--in-place"), "{e:#}");
}

// ------------------------------------------------------------------------------------------------
// Undo

/// One random edit of material `m` (some are refused by the limits; that is part of the test).
fn random_op(info: &Value, m: usize, kind: u8, a: u8, b: u8) -> Value {
    let base = format!("/material_sets/0/materials/{m}");
    let mat = &info["material_sets"][0]["materials"][m];
    let n = |k: &str| mat[k].as_array().unwrap().len();
    let stages = n("tev_stages");
    let pick = |x: u8, len: usize| x as usize % len.max(1);
    let input = ["CPREV", "TEXC", "RASC", "KONST", "ZERO", "HALF"][b as usize % 6];
    let op = match kind % 11 {
        0 => {
            json!({"op": "replace", "path": format!("{base}/tev_stages/{}/color_op/out_reg", pick(a, stages)), "value": b % 4})
        }
        1 => {
            json!({"op": "add", "path": format!("{base}/tev_stages/{}", pick(a, stages + 1)), "value": mat["tev_stages"][pick(b, stages)]})
        }
        2 => json!({"op": "remove", "path": format!("{base}/tev_stages/{}", pick(a, stages))}),
        3 => json!({"op": "move", "from": format!("{base}/tev_stages/{}", pick(a, stages)),
                     "path": format!("{base}/tev_stages/{}", pick(b, stages))}),
        4 => {
            json!({"op": "add", "path": format!("{base}/konst_colors_rgba/-"), "value": [a, b, a ^ b, 255]})
        }
        5 => json!({"op": "add", "path": format!("{base}/uv_animations/-"),
                     "value": {"mode": 3, "parameters": [f32::from(a) / 16.0, f32::from(b)]}}),
        6 => {
            json!({"op": "replace", "path": format!("{base}/tev_stages/{}/color_inputs/{}", pick(a, stages), b % 4),
                     "value": input})
        }
        7 => json!({"op": "add", "path": format!("{base}/texgens/{}", pick(a, n("texgens") + 1)),
                     "value": {"type": b % 2, "source": 4 + b % 8, "mtx_field": a % 32,
                               "normalize": a.is_multiple_of(2), "post_mtx_field": 61}}),
        8 => json!({"op": "remove", "path": format!("{base}/texgens/{}", pick(a, n("texgens")))}),
        9 => {
            json!({"op": "move", "from": format!("{base}/texture_indices/{}", pick(a, n("texture_indices"))),
                     "path": format!("{base}/texture_indices/{}", pick(b, n("texture_indices")))})
        }
        _ => match n("uv_animations") {
            0 => {
                json!({"op": "replace", "path": format!("{base}/blend_source_factor"), "value": b % 8})
            }
            u => json!({"op": "remove", "path": format!("{base}/uv_animations/{}", pick(a, u))}),
        },
    };
    json!([op])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn undo_of_any_edit_sequence_restores_the_bytes(
        edits in proptest::collection::vec((0usize..3, any::<u8>(), any::<u8>(), any::<u8>()), 1..16)
    ) {
        let Some(dir) = conformance_dir() else { return Ok(()) };
        let spec = dir.join("mp1_cube_skinned.CMDL").display().to_string();
        let original = std::fs::read(&spec).unwrap();
        let mut doc = Document::open(&spec).unwrap();
        let mut states = vec![doc.model_bytes().unwrap()];
        for (m, kind, a, b) in edits {
            let info = serde_json::to_value(doc.info().unwrap()).unwrap();
            let m = m % info["material_sets"][0]["materials"].as_array().unwrap().len();
            let ops: json_patch::Patch = serde_json::from_value(random_op(&info, m, kind, a, b)).unwrap();
            let before = doc.model_bytes().unwrap();
            let depth = doc.history().count();
            match doc.apply_patch(&ops, format!("edit {kind}")) {
                Ok(()) => {
                    let now = doc.model_bytes().unwrap();
                    Cmdl::parse(&now, "edited").unwrap();
                    if doc.history().count() > depth {
                        states.push(now);
                    }
                }
                Err(_) => prop_assert_eq!(doc.model_bytes().unwrap(), before),
            }
        }
        // Undo walks back through every state; redo forward again; undo all once more.
        for expected in states.iter().rev().skip(1) {
            prop_assert!(doc.undo());
            prop_assert_eq!(&doc.model_bytes().unwrap(), expected);
        }
        prop_assert!(!doc.undo());
        prop_assert!(!doc.is_dirty());
        while doc.redo() {}
        prop_assert_eq!(&doc.model_bytes().unwrap(), states.last().unwrap());
        while doc.undo() {}
        prop_assert_eq!(doc.model_bytes().unwrap(), original.clone());
        prop_assert_eq!(doc.file_bytes().unwrap(), original);
    }
}
