//! JSON Patch over the `info --json` schema of an MP3 model (`material_sets/N/materials/M/…`,
//! the element list and its fields), turned into new MP3 material sets.
//!
//! As for MP1/MP2 ([`super::patch`]): each operation is applied to the schema value, the
//! touched materials are read back ([`Mp3MaterialInfo::to_material`]) and serialised again,
//! and whatever the operation wrote must survive that trip (a derived field such as `gx`,
//! `flags_decoded` or `uv_anim_size` is refused as derived). The vertex-attribute word is
//! fixed: the display lists are decoded with it.

use json_patch::PatchOperation;
use serde_json::Value;

use super::patch::{PatchError, Refusal, from_path, material_of, op_name, same};
use crate::formats::mp3_material::Mp3Materials;
use crate::schema::cmdl_mp3::{Mp3MaterialInfo, Mp3MaterialSetInfo};

/// The patchable view: `{"material_sets": [...]}` as `info --json` writes it.
#[derive(serde::Serialize)]
struct SetsView {
    material_sets: Vec<Mp3MaterialSetInfo>,
}

fn sets_value(m: &Mp3Materials) -> Value {
    let view = SetsView {
        material_sets: m.sets.iter().map(Mp3MaterialSetInfo::new).collect(),
    };
    serde_json::to_value(view).unwrap_or(Value::Null)
}

/// Applies `patch` to a copy of `original`; returns the new sets (re-padded when changed).
pub fn apply(
    original: &Mp3Materials,
    patch: &[PatchOperation],
) -> Result<Mp3Materials, PatchError> {
    let mut sets = original.clone();
    let mut doc = sets_value(&sets);
    for (index, op) in patch.iter().enumerate() {
        let path = op.path().to_string();
        let fail = |reason| PatchError {
            index,
            op: op_name(op),
            path: path.clone(),
            reason,
        };
        let mut touched = Vec::new();
        for p in std::iter::once(path.clone()).chain(from_path(op)) {
            let at = material_of(&p).ok_or_else(|| fail(Refusal::NotEditable))?;
            if !touched.contains(&at) {
                touched.push(at);
            }
        }
        json_patch::patch(&mut doc, std::slice::from_ref(op))
            .map_err(|e| fail(Refusal::Patch(e)))?;
        let check = match path.strip_suffix("/-") {
            Some(array) => doc
                .pointer(array)
                .and_then(Value::as_array)
                .map_or(path.clone(), |a| {
                    format!("{array}/{}", a.len().saturating_sub(1))
                }),
            None => path.clone(),
        };
        let requested = match op {
            PatchOperation::Remove(_) | PatchOperation::Test(_) => None,
            _ => doc.pointer(&check).cloned(),
        };
        for &(s, m) in &touched {
            let pointer = format!("/material_sets/{s}/materials/{m}");
            let value = doc.pointer(&pointer).cloned().unwrap_or(Value::Null);
            let info: Mp3MaterialInfo =
                serde_json::from_value(value).map_err(|e| fail(Refusal::Schema(e)))?;
            let Some(before) = sets.sets.get(s).and_then(|set| set.materials.get(m)) else {
                return Err(fail(Refusal::NotEditable));
            };
            let after = info
                .to_material(before)
                .map_err(|e| fail(Refusal::Field(e)))?;
            if after.vertex_attributes != before.vertex_attributes {
                return Err(fail(Refusal::Geometry(
                    "vertex_attribute_flags: the surfaces' display lists are decoded with it; it cannot change"
                        .into(),
                )));
            }
            sets.sets[s].materials[m] = after;
        }
        let normal = sets_value(&sets);
        if let Some(requested) = requested {
            let actual = normal.pointer(&check).cloned().unwrap_or(Value::Null);
            if !same(&requested, &actual) {
                return Err(fail(Refusal::Derived {
                    field: check,
                    requested: requested.to_string(),
                    actual: actual.to_string(),
                }));
            }
        }
        doc = normal;
    }
    if sets != *original {
        sets.repad();
    }
    Ok(sets)
}
