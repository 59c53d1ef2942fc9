//! Editing rooms: JSON Patch on an MREA's material set through [`Document`] and `tevscope
//! edit`, with the same paths as a CMDL's (`/material_sets/0/materials/M/…`). An empty patch
//! writes every conformance area and the demo room back byte for byte; an edit survives a
//! save and a re-read (MP2's compressed blocks included) and changes the room's pixels.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use tevscope::camera::OrbitCamera;
use tevscope::cli::edit::edit;
use tevscope::edit::{Document, Edited};
use tevscope::formats::mrea::parse_mrea;
use tevscope::formats::pak::Pak;
use tevscope::image::RgbaImage;
use tevscope::load::{LoadRequest, load};
use tevscope::render::RenderContext;
use tevscope::render::scene::Scene;

const DEMO_PAK: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak");

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("tevscope-room-edit-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_patch(dir: &Path, patch: &Value) -> String {
    let p = dir.join("patch.json");
    std::fs::write(&p, serde_json::to_string(patch).unwrap()).unwrap();
    p.display().to_string()
}

/// Loose conformance MREAs (areas/ and the lights-only one) and every MREA inside the
/// conformance PAKs.
fn conformance_areas(dir: &Path) -> Vec<String> {
    let mut specs = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let mut entries: Vec<_> = std::fs::read_dir(&d).unwrap().flatten().collect();
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let p = e.path();
            let ext = p
                .extension()
                .map(|x| x.to_string_lossy().to_ascii_lowercase());
            if p.is_dir() {
                stack.push(p);
            } else if ext.as_deref() == Some("mrea") {
                specs.push(p.display().to_string());
            } else if ext.as_deref() == Some("pak") {
                let data = std::fs::read(&p).unwrap();
                let Ok(pak) = Pak::parse(&data, "p") else {
                    continue;
                };
                for e in pak.entries() {
                    if &e.fourcc == b"MREA" {
                        specs.push(format!("{}:0x{:08X}.MREA", p.display(), e.id));
                    }
                }
            }
        }
    }
    specs
}

/// Replaces stage 0's colour input D of every material of the area with ONE.
fn brighten(materials: usize) -> Value {
    let ops: Vec<Value> = (0..materials)
        .map(|m| {
            json!({"op": "replace",
                   "path": format!("/material_sets/0/materials/{m}/tev_stages/0/color_inputs/3"),
                   "value": "ONE"})
        })
        .collect();
    json!(ops)
}

#[test]
fn empty_patch_writes_every_area_back_byte_for_byte() {
    let dir = scratch("empty");
    let patch = write_patch(&dir, &json!([]));
    let mut specs = vec![format!("{DEMO_PAK}:room")];
    match tevscope::testing::conformance_dir() {
        Some(c) => specs.extend(conformance_areas(&c)),
        None => eprintln!("NO CONFORMANCE FILES: only the demo room is checked"),
    }
    for spec in &specs {
        let out = dir.join("out");
        edit(spec, &patch, Some(&out), false).unwrap_or_else(|e| panic!("{spec}: {e:#}"));
        let file = tevscope::load::source::split_spec(spec).unwrap().0;
        assert!(
            std::fs::read(&out).unwrap() == std::fs::read(&file).unwrap(),
            "{spec}: an empty patch changed the file"
        );
        // The document's serialiser itself reproduces the resource.
        let doc = Document::open(spec).unwrap();
        assert!(matches!(doc.edited(), Edited::Area(_)), "{spec}");
        let (resource, _) = tevscope::load::source::open(spec).unwrap();
        assert!(
            doc.model_bytes().unwrap() == resource.bytes,
            "{spec}: the MREA writer changed an unedited area"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_area_material_edit_survives_save_and_reread() {
    let dir = scratch("roundtrip");
    let mut files: Vec<(String, PathBuf)> = Vec::new();
    if let Some(c) = tevscope::testing::conformance_dir() {
        for name in ["mp1_area.MREA", "mp2_area.MREA"] {
            files.push((
                c.join("areas").join(name).display().to_string(),
                dir.join(name),
            ));
        }
    } else {
        eprintln!("NO CONFORMANCE FILES: only the demo room is checked");
    }
    files.push((format!("{DEMO_PAK}:room"), dir.join("demo.pak")));
    for (spec, out) in files {
        let mut doc = Document::open(&spec).unwrap();
        let original = doc.model_bytes().unwrap();
        let count = doc.material_sets()[0].materials.len();
        assert!(count > 0, "{spec}");
        let patch: json_patch::Patch = serde_json::from_value(brighten(count)).unwrap();
        doc.apply_patch(&patch, "brighten").unwrap();
        assert!(doc.is_dirty());
        let edited_set = doc.material_sets()[0].clone();
        doc.save_to(&out).unwrap();
        assert!(!doc.is_dirty());
        // Read back: through the PAK for a member, else the file.
        let saved_spec = match spec.rsplit_once(":room") {
            Some(_) => format!("{}:room", out.display()),
            None => out.display().to_string(),
        };
        let (resource, _) = tevscope::load::source::open(&saved_spec).unwrap();
        let area = parse_mrea(&resource.bytes, "saved").unwrap();
        let reread = area.geometry.as_ref().unwrap();
        assert_eq!(reread.material_set, edited_set, "{spec}");
        // Only the material section changed: the world models are as before, and the
        // saved area re-serialises to itself (MP2: the edited block re-compressed).
        let before = parse_mrea(&original, "original").unwrap();
        let before_geometry = before.geometry.as_ref().unwrap();
        assert_eq!(reread.world_models, before_geometry.world_models, "{spec}");
        assert_ne!(reread.material_set, before_geometry.material_set, "{spec}");
        assert!(area.to_bytes().unwrap() == resource.bytes, "{spec}");
        assert_eq!(area.compressed_blocks.len(), before.compressed_blocks.len());
        // Undo gives the original bytes again.
        assert!(doc.undo());
        assert!(doc.model_bytes().unwrap() == original, "{spec}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn render_room(ctx: &RenderContext, spec: &str) -> RgbaImage {
    let (model, _) = load(&LoadRequest::new(spec)).unwrap();
    let mut scene = Scene::new(ctx, model.assets.into_cpu_model().unwrap()).unwrap();
    scene.set_camera(OrbitCamera {
        yaw_degrees: 30.0,
        pitch_degrees: 35.0,
        distance: 11.0,
        target: [0.0, 0.0, 1.0],
        ..OrbitCamera::default()
    });
    scene.set_time(1.0);
    scene.render_to_image(ctx, 160, 100, false).unwrap()
}

#[test]
fn an_edited_room_material_changes_the_rooms_pixels() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let dir = scratch("pixels");
    let out = dir.join("demo.pak");
    let spec = format!("{DEMO_PAK}:room");
    let patch = write_patch(&dir, &brighten(5));
    edit(&spec, &patch, Some(&out), false).unwrap();
    let original = render_room(&ctx, &spec);
    let edited = render_room(&ctx, &format!("{}:room", out.display()));
    let changed = original
        .pixels
        .chunks(4)
        .zip(edited.pixels.chunks(4))
        .filter(|(a, b)| a != b)
        .count();
    assert!(
        changed > 160 * 100 / 4,
        "only {changed} pixels changed after brightening every material"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
