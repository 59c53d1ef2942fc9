//! Edits never change geometry they did not name. The display lists are never re-encoded, so
//! what a material says about reading them — the vertex attribute word and the flag bits that
//! pick a vertex array (0x2000 short UVs, 0x1000 with the alt option) — is read-only: every
//! accepted patch, on every conformance CMDL, PWE model and MREA, saves a file whose surfaces
//! decode to the same triangles and vertex values as before, under either short-UV option.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use serde_json::{Value, json};
use tevscope::cli::edit::edit;
use tevscope::edit::{Document, Origin, Refusal};
use tevscope::formats::cmdl::{Cmdl, CmdlOptions};
use tevscope::formats::material::VERTEX_ARRAY_FLAGS;
use tevscope::formats::mrea::{MREA_MAGIC, MreaOptions, parse_mrea_with};
use tevscope::formats::pak::Pak;
use tevscope::gx::flags;
use tevscope::load::area::{AreaView, area_model};
use tevscope::schema::MaterialSetInfo;
use tevscope::schema::cmdl_mp3::Mp3MaterialSetInfo;
use tevscope::testing::conformance_dir;

// ------------------------------------------------------------------------------------------------
// The oracle: decoded geometry of a resource

/// Parse options that differ in the flag bit selecting TEX0's short-UV array.
fn short_uv_options() -> [CmdlOptions; 2] {
    let alt = CmdlOptions {
        material: tevscope::formats::material::MaterialOptions {
            short_uv_flag: flags::SHORT_UV_ALT,
            ..Default::default()
        },
        ..Default::default()
    };
    [CmdlOptions::default(), alt]
}

/// A CMDL, or an MREA's world geometry (every world model) as one model.
fn decoded(resource: &[u8], options: &CmdlOptions) -> Cmdl {
    if !resource.starts_with(&MREA_MAGIC.to_be_bytes()) {
        return Cmdl::parse_with(resource, "model", options).unwrap();
    }
    let options = MreaOptions {
        cmdl: *options,
        ..Default::default()
    };
    let area = parse_mrea_with(resource, "area", &options).unwrap();
    let view = AreaView {
        all_world_models: true,
    };
    area_model(area.geometry.as_ref().unwrap(), view).unwrap()
}

/// Each surface's decoded layout, primitives and looked-up vertex values, as text (so NaN
/// compares equal to itself).
fn geometry(resource: &[u8], options: &CmdlOptions) -> Vec<String> {
    let model = decoded(resource, options);
    model
        .surfaces
        .iter()
        .map(|s| {
            let m = &s.mesh;
            format!(
                "{:?} triangles {:?} lines {:?} points {:?} vertices {:?} failed {}",
                m.layout,
                m.triangles,
                m.lines,
                m.points,
                model.resolved_vertices(s),
                m.error.is_some()
            )
        })
        .collect()
}

fn triangles(resource: &[u8]) -> usize {
    decoded(resource, &CmdlOptions::default())
        .surfaces
        .iter()
        .map(|s| s.mesh.triangles.len())
        .sum()
}

/// The edited resource inside the bytes the document saves (the file, or its PAK).
fn saved_resource(doc: &Document) -> Vec<u8> {
    let file = doc.file_bytes().unwrap();
    match doc.origin() {
        Origin::Loose { .. } => file,
        Origin::Pak { entry, .. } => {
            let pak = Pak::parse(&file, "saved").unwrap();
            pak.read(&file, &pak.entries()[*entry]).unwrap()
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Fixtures

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().collect();
    entries.sort_by_key(|e| e.path());
    for e in entries {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else {
            out.push(p);
        }
    }
}

/// Every CMDL and MREA of the conformance folder, loose or inside a PAK, that opens as a
/// document.
fn editable_specs(dir: &Path) -> Vec<String> {
    let mut all = Vec::new();
    files(dir, &mut all);
    let mut specs = Vec::new();
    for p in all {
        let ext = p
            .extension()
            .map(|x| x.to_string_lossy().to_ascii_uppercase());
        match ext.as_deref() {
            Some("CMDL" | "MREA") => specs.push(p.display().to_string()),
            Some("PAK") => {
                let data = std::fs::read(&p).unwrap();
                let Ok(pak) = Pak::parse(&data, "pak") else {
                    continue;
                };
                for e in pak.entries() {
                    if matches!(&e.fourcc, b"CMDL" | b"MREA") {
                        let kind = String::from_utf8_lossy(&e.fourcc).into_owned();
                        specs.push(format!("{}:0x{:08X}.{kind}", p.display(), e.id));
                    }
                }
            }
            _ => {}
        }
    }
    specs.retain(|s| Document::open(s).is_ok());
    specs
}

/// An opened document and its saved resource's geometry under each short-UV option.
struct Fixture {
    spec: String,
    doc: Document,
    geometry: Vec<Vec<String>>,
}

/// Opened once per test binary (the property test clones the documents).
fn fixtures() -> &'static [Fixture] {
    static FIXTURES: OnceLock<Vec<Fixture>> = OnceLock::new();
    FIXTURES.get_or_init(|| {
        let Some(dir) = conformance_dir() else {
            return Vec::new();
        };
        let fixtures: Vec<Fixture> = editable_specs(&dir)
            .into_iter()
            .map(|spec| {
                let doc = Document::open(&spec).unwrap();
                let resource = saved_resource(&doc);
                let geometry = short_uv_options()
                    .iter()
                    .map(|o| geometry(&resource, o))
                    .collect();
                Fixture {
                    spec,
                    doc,
                    geometry,
                }
            })
            .collect();
        let names: Vec<&str> = fixtures.iter().map(|f| f.spec.as_str()).collect();
        for needed in ["Sphere.CMDL", "mp1_area.MREA", "mp2_area.MREA", ".pak:0x"] {
            assert!(
                names.iter().any(|n| n.contains(needed)),
                "{needed} missing: {names:?}"
            );
        }
        fixtures
    })
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tevscope-editgeom-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn ops(patch: Value) -> json_patch::Patch {
    serde_json::from_value(patch).unwrap()
}

/// Checks a refused geometry edit: `tevscope edit` names the path and the reason and writes
/// nothing, and the document (the viewer's `set` / `patch` path) stays clean.
fn assert_refused(source: &Path, patch: Value, path: &str, bit: &str) {
    let tmp = scratch(&format!("refused-{bit}"));
    let file = tmp.join("patch.json");
    std::fs::write(&file, patch.to_string()).unwrap();
    let out = tmp.join("out");
    let err = edit(
        &source.display().to_string(),
        &file.display().to_string(),
        Some(&out),
        false,
    )
    .unwrap_err();
    let text = format!("{err:#}");
    for words in [path, bit, "fixed by the geometry", "TEX0"] {
        assert!(text.contains(words), "{text} lacks {words:?}");
    }
    assert!(!out.exists(), "a refused patch wrote {}", out.display());
    let mut doc = Document::open(&source.display().to_string()).unwrap();
    let before = doc.model_bytes().unwrap();
    let e = doc.apply_patch(&ops(patch), "refused").unwrap_err();
    assert!(matches!(e.reason, Refusal::Geometry(_)), "{e}");
    assert_eq!(e.path, path);
    assert!(!doc.is_dirty());
    assert!(doc.model_bytes().unwrap() == before);
    let _ = std::fs::remove_dir_all(&tmp);
}

// ------------------------------------------------------------------------------------------------
// Reproducers (issue #19)

#[test]
fn short_uvs_on_the_pwe_sphere_are_refused_and_it_keeps_960_triangles() {
    let Some(dir) = conformance_dir() else { return };
    let source = dir.join("pwe/Sphere.CMDL");
    let bytes = std::fs::read(&source).unwrap();
    assert_eq!(triangles(&bytes), 960);
    let cmdl = Cmdl::parse(&bytes, "sphere").unwrap();
    assert_eq!(cmdl.material_sets[0].materials[0].flags | 0x2000, 8331);
    assert_refused(
        &source,
        json!([{"op": "replace", "path": "/material_sets/0/materials/0/flags", "value": 8331}]),
        "/material_sets/0/materials/0/flags",
        "0x2000",
    );
    assert_eq!(triangles(&std::fs::read(&source).unwrap()), 960);
}

#[test]
fn short_uvs_on_three_materials_of_the_mp1_area_are_refused_and_it_keeps_22_triangles() {
    let Some(dir) = conformance_dir() else { return };
    let source = dir.join("areas/mp1_area.MREA");
    let doc = Document::open(&source.display().to_string()).unwrap();
    assert_eq!(triangles(&doc.model_bytes().unwrap()), 22);
    let materials = &doc.material_sets()[0].materials;
    let patch: Vec<Value> = (0..3)
        .map(|m| {
            json!({"op": "replace", "path": format!("/material_sets/0/materials/{m}/flags"),
                   "value": materials[m].flags | 0x2000})
        })
        .collect();
    // The first material that did not have the bit is the refused operation.
    let first = (0..3)
        .find(|&m| materials[m].flags & 0x2000 == 0)
        .expect("a material without short UVs");
    assert_refused(
        &source,
        Value::Array(patch),
        &format!("/material_sets/0/materials/{first}/flags"),
        "0x2000",
    );
}

#[test]
fn the_alt_short_uv_bit_and_the_vertex_attribute_word_are_refused_too() {
    let Some(dir) = conformance_dir() else { return };
    let source = dir.join("pwe/Sphere.CMDL");
    let m = &Cmdl::parse(&std::fs::read(&source).unwrap(), "sphere")
        .unwrap()
        .material_sets[0]
        .materials[0];
    let path = "/material_sets/0/materials/0/flags";
    assert_refused(
        &source,
        json!([{"op": "replace", "path": path, "value": m.flags ^ 0x1000}]),
        path,
        "0x1000",
    );
    // The other bits stay editable.
    let mut doc = Document::open(&source.display().to_string()).unwrap();
    doc.apply_patch(
        &ops(json!([{"op": "replace", "path": path, "value": m.flags ^ 0x40}])),
        "Samus reflection",
    )
    .unwrap();
    let path = "/material_sets/0/materials/0/vertex_attribute_flags";
    let e = doc
        .apply_patch(
            &ops(json!([{"op": "replace", "path": path, "value": m.vertex_attributes.0 ^ 0x3}])),
            "layout",
        )
        .unwrap_err();
    let text = e.to_string();
    assert!(matches!(e.reason, Refusal::Geometry(_)), "{text}");
    assert!(
        text.contains(path) && text.contains("fixed by the geometry"),
        "{text}"
    );
}

/// The oracle sees what the refusals prevent: the same flag flips made without the checks
/// change the decoded geometry (so the property below can fail).
#[test]
fn the_geometry_oracle_sees_a_flipped_short_uv_bit() {
    let Some(fixture) = fixtures().iter().find(|f| f.spec.ends_with("Sphere.CMDL")) else {
        return;
    };
    for (o, bit) in [flags::SHORT_UV, flags::SHORT_UV_ALT]
        .into_iter()
        .enumerate()
    {
        let mut doc = fixture.doc.clone();
        let mut m = doc.material_sets()[0].materials[0].clone();
        m.flags ^= bit;
        doc.set_material(0, 0, m, "unchecked");
        let options = &short_uv_options()[o];
        assert_ne!(
            geometry(&saved_resource(&doc), options),
            fixture.geometry[o],
            "bit {bit:#x}"
        );
    }
}

// ------------------------------------------------------------------------------------------------
// The property

/// Every scalar inside `v` with its JSON pointer below `at`.
fn leaves(v: &Value, at: String, out: &mut Vec<(String, Value)>) {
    match v {
        Value::Object(o) => o
            .iter()
            .for_each(|(k, x)| leaves(x, format!("{at}/{k}"), out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| leaves(x, format!("{at}/{i}"), out)),
        _ => out.push((at, v.clone())),
    }
}

/// One random `replace` on material `m` of set `s`: the flags (any value, a few bits flipped
/// with or without the geometry's, or the plain render bits), the vertex attribute word, a
/// few plain source fields, or any field of the material.
fn random_op(set: &Value, s: usize, m: usize, kind: u8, a: u32, b: u32) -> Value {
    let base = format!("/material_sets/{s}/materials/{m}");
    let mat = &set["materials"][m];
    let flags = mat["flags"].as_u64().unwrap() as u32;
    let replace = |field: &str, value: Value| json!({"op": "replace", "path": format!("{base}/{field}"), "value": value});
    // Depth-sorted, punchthrough, Samus reflection, depth write, reflection eye, occluder,
    // lightmap: bits that only change how the material draws.
    let render_bits = 0x9F0;
    match kind % 8 {
        0 => replace("flags", json!(a)),
        1 => replace("flags", json!(flags ^ (a & 0xFFFF))),
        2 => replace("flags", json!(flags ^ (a & render_bits))),
        3 => replace(
            "flags",
            json!(flags ^ (a & render_bits) ^ VERTEX_ARRAY_FLAGS),
        ),
        4 => {
            let word = mat["vertex_attribute_flags"].as_u64().unwrap() as u32;
            replace("vertex_attribute_flags", json!(word ^ (1 << (a % 32))))
        }
        5 => replace("group_index", json!(a % 64)),
        6 => replace("blend_source_factor", json!(b % 8)),
        _ => {
            let mut all = Vec::new();
            leaves(mat, base.clone(), &mut all);
            let (path, old) = &all[a as usize % all.len()];
            let names = [
                "ZERO", "ONE", "HALF", "KONST", "CPREV", "TEXC", "RASC", "TEXA",
            ];
            let value = match old {
                Value::Bool(x) => json!(!x),
                Value::Number(n) if n.is_u64() => json!(n.as_u64().unwrap() ^ u64::from(b % 4)),
                Value::Number(n) => json!(n.as_f64().unwrap_or(0.0) + f64::from(b % 8) / 4.0),
                Value::String(_) => json!(names[b as usize % names.len()]),
                _ => json!(b % 4),
            };
            json!({"op": "replace", "path": path, "value": value})
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn an_accepted_patch_keeps_every_surfaces_geometry(
        file in any::<usize>(),
        edits in proptest::collection::vec(
            (any::<usize>(), any::<usize>(), any::<u8>(), any::<u32>(), any::<u32>()), 1..4),
    ) {
        let fixtures = fixtures();
        if fixtures.is_empty() {
            return Ok(());
        }
        let fixture = &fixtures[file % fixtures.len()];
        let mut doc = fixture.doc.clone();
        let mut patch = Vec::new();
        // The sets as `info --json` shows them (an MP3 model's element-list materials too).
        let sets: Vec<Value> = match doc.cmdl().and_then(|c| c.mp3_materials.as_ref()) {
            Some(mp3) => mp3
                .sets
                .iter()
                .map(|set| serde_json::to_value(Mp3MaterialSetInfo::new(set)).unwrap())
                .collect(),
            None => doc
                .material_sets()
                .iter()
                .map(|set| serde_json::to_value(MaterialSetInfo::new(set)).unwrap())
                .collect(),
        };
        for (s, m, kind, a, b) in edits {
            if sets.is_empty() {
                break;
            }
            let s = s % sets.len();
            let count = sets[s]["materials"].as_array().map_or(0, Vec::len);
            if count == 0 {
                continue;
            }
            patch.push(random_op(&sets[s], s, m % count, kind, a, b));
        }
        let patch = Value::Array(patch);
        if doc.apply_patch(&ops(patch.clone()), "random").is_ok() {
            let saved = saved_resource(&doc);
            for (o, options) in short_uv_options().iter().enumerate() {
                let after = geometry(&saved, options);
                prop_assert!(
                    after == fixture.geometry[o],
                    "{}: {patch} changed the geometry (short-UV option {o})",
                    fixture.spec
                );
            }
        }
    }
}
