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

use super::patch::{PatchError, Refusal, apply_ops};
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
    apply_ops(&mut sets, sets_value, patch, |sets, s, m, value| {
        let info: Mp3MaterialInfo = serde_json::from_value(value).map_err(Refusal::Schema)?;
        let before = sets
            .sets
            .get(s)
            .and_then(|set| set.materials.get(m))
            .ok_or(Refusal::NotEditable)?;
        let after = info.to_material(before).map_err(Refusal::Field)?;
        if after.vertex_attributes != before.vertex_attributes {
            return Err(Refusal::Geometry(
                "vertex_attribute_flags: the surfaces' display lists are decoded with it; it cannot change"
                    .into(),
            ));
        }
        sets.sets[s].materials[m] = after;
        Ok(())
    })?;
    if sets != *original {
        sets.repad();
    }
    Ok(sets)
}
