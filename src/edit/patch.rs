//! JSON Patch (RFC 6902) over the `info --json` schema, turned into new material sets.
//!
//! Each operation is applied to the schema value of the material sets, the touched materials are
//! read back through [`MaterialInfo::to_material`], checked against the hardware and game limits,
//! and serialised again. Whatever the operation wrote must survive that trip unchanged: a value
//! that does not (a count, a raw word that disagrees with its decoded form, a name next to a
//! number, a read-only field) is refused as derived. A material must also read the geometry as
//! before (`geometry_change`): the display lists are never re-encoded. The first refused
//! operation stops the patch; the caller's model is never touched (it gets new sets only on
//! success).

use json_patch::PatchOperation;
use serde_json::Value;

use crate::formats::Game;
use crate::formats::material::{Material, MaterialSet, VERTEX_ARRAY_FLAGS};
use crate::schema::{MaterialInfo, MaterialSetInfo, SchemaError};

/// GX has four konst colour registers (K0–K3).
pub const MAX_KONSTS: usize = 4;

/// Why one operation was refused. The messages are complete (they include what the JSON Patch
/// crate or serde said, which applies to the single operation and would otherwise name it as
/// operation 0), so no variant chains a source.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error(
        "only fields of one material can be edited: /material_sets/N/materials/M/FIELD (materials, \
         texture lists and model data are read-only)"
    )]
    NotEditable,
    #[error("{}", .0.kind)]
    Patch(json_patch::PatchError),
    #[error("the material no longer fits the schema: {0}")]
    Schema(serde_json::Error),
    #[error("{0}")]
    Field(SchemaError),
    #[error(
        "{field} would be {actual}, not {requested}: it is derived from other fields or read-only"
    )]
    Derived {
        field: String,
        requested: String,
        actual: String,
    },
    #[error("{field}: {message}")]
    Limit { field: String, message: String },
    /// A field the surfaces' display lists are decoded with changed.
    #[error("{0}")]
    Geometry(String),
}

/// A refused patch: which operation (index in the patch and kind), at which path, and why (in
/// the message, so a one-line report is complete).
#[derive(Debug, thiserror::Error)]
#[error("patch operation {index} ({op} {path}) refused: {reason}")]
pub struct PatchError {
    pub index: usize,
    pub op: &'static str,
    pub path: String,
    pub reason: Refusal,
}

/// The operation's kind as RFC 6902 spells it.
pub fn op_name(op: &PatchOperation) -> &'static str {
    match op {
        PatchOperation::Add(_) => "add",
        PatchOperation::Remove(_) => "remove",
        PatchOperation::Replace(_) => "replace",
        PatchOperation::Move(_) => "move",
        PatchOperation::Copy(_) => "copy",
        PatchOperation::Test(_) => "test",
    }
}

pub(crate) fn from_path(op: &PatchOperation) -> Option<String> {
    match op {
        PatchOperation::Move(m) => Some(m.from.to_string()),
        PatchOperation::Copy(c) => Some(c.from.to_string()),
        _ => None,
    }
}

/// (set, material) a pointer edits, if it points inside one material.
pub(crate) fn material_of(path: &str) -> Option<(usize, usize)> {
    let mut parts = path.strip_prefix('/')?.split('/');
    let (a, s, b, m) = (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let field = parts.next()?;
    if a != "material_sets" || b != "materials" || field.is_empty() {
        return None;
    }
    Some((s.parse().ok()?, m.parse().ok()?))
}

/// Numbers compare as integers when both are, else as f32 (parameters are stored as f32).
pub(crate) fn same(requested: &Value, actual: &Value) -> bool {
    match (requested, actual) {
        (Value::Number(a), Value::Number(b)) => match (a.as_u64(), b.as_u64()) {
            (Some(x), Some(y)) => x == y,
            _ => match (a.as_f64(), b.as_f64()) {
                (Some(x), Some(y)) => x as f32 == y as f32,
                _ => false,
            },
        },
        // Fields the request leaves out are derived and filled in; the ones it gives must hold.
        (Value::Object(a), Value::Object(b)) => {
            a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (a, b) => a == b,
    }
}

/// Error-level §3.12 findings plus the edit-only konst limit, by field.
fn limit_errors(m: &Material, game: Game, textures: usize) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = m
        .problems(game, Some(textures))
        .into_iter()
        .filter(|p| p.is_error)
        .map(|p| (p.field, p.message))
        .collect();
    let k = m.konst_colors.as_ref().map_or(0, Vec::len);
    if k > MAX_KONSTS {
        out.push((
            "konst_colors_rgba".into(),
            format!("{k} konst colours; GX has {MAX_KONSTS} (K0–K3)"),
        ));
    }
    out
}

/// Why flag `bit` cannot be edited, when it cannot: it picks the vertex array the display lists
/// read TEX0 from (the refusal and the Material tab's disabled checkbox say the same).
pub fn fixed_flag(bit: u32) -> Option<String> {
    (bit & VERTEX_ARRAY_FLAGS != 0).then(|| {
        format!(
            "flags bit {bit:#06x} picks the vertex array the display lists read TEX0 from; \
             {FIXED_BY_GEOMETRY}"
        )
    })
}

const FIXED_BY_GEOMETRY: &str = "it is fixed by the geometry (read-only, like \
     vertex_attribute_flags): the display lists are not re-encoded, so changing it would change \
     the decoded triangles";

/// Why `after` would decode the surfaces' display lists differently from `before`, if it
/// would: its vertex attribute word or a [`VERTEX_ARRAY_FLAGS`] bit changed. Edits never
/// re-encode the lists, so both are as read-only as the lists themselves.
fn geometry_change(before: &Material, after: &Material) -> Option<Refusal> {
    if after.vertex_attributes != before.vertex_attributes {
        return Some(Refusal::Geometry(format!(
            "vertex_attribute_flags is the vertex layout the display lists are encoded with; \
             {FIXED_BY_GEOMETRY}"
        )));
    }
    let changed = (after.flags ^ before.flags) & VERTEX_ARRAY_FLAGS;
    (0..32)
        .map(|i| 1u32 << i)
        .find(|bit| changed & bit != 0)
        .and_then(fixed_flag)
        .map(Refusal::Geometry)
}

/// The checks every material edit gets, patch or typed: it reads the geometry as before, and
/// breaks no hardware or game limit that `before` did not already break.
pub(crate) fn check_material(
    set: &MaterialSet,
    before: &Material,
    after: &Material,
) -> Result<(), Refusal> {
    if let Some(refusal) = geometry_change(before, after) {
        return Err(refusal);
    }
    let old = limit_errors(before, set.game, set.texture_ids.len());
    match limit_errors(after, set.game, set.texture_ids.len())
        .into_iter()
        .find(|e| !old.contains(e))
    {
        Some((field, message)) => Err(Refusal::Limit { field, message }),
        None => Ok(()),
    }
}

fn sets_value(sets: &[MaterialSet]) -> Value {
    let infos: Vec<MaterialSetInfo> = sets.iter().map(MaterialSetInfo::new).collect();
    serde_json::json!({ "material_sets": infos })
}

/// Applies `patch` to copies of `sets`; returns the new sets (re-padded where they changed).
pub fn apply(
    original: &[MaterialSet],
    patch: &[PatchOperation],
) -> Result<Vec<MaterialSet>, PatchError> {
    let mut sets = original.to_vec();
    apply_ops(
        &mut sets,
        |s| sets_value(s),
        patch,
        |sets, s, m, value| {
            let info: MaterialInfo = serde_json::from_value(value).map_err(Refusal::Schema)?;
            let set = sets.get(s).ok_or(Refusal::NotEditable)?;
            let before = set.materials.get(m).ok_or(Refusal::NotEditable)?;
            let after = info.to_material(before, set.game).map_err(Refusal::Field)?;
            check_material(set, before, &after)?;
            sets[s].materials[m] = after;
            Ok(())
        },
    )?;
    repad_changed(original, &mut sets);
    Ok(sets)
}

/// Applies each operation of `patch` to the schema view of `sets` (`view`) as JSON, turns
/// each material it touched back into file form with `rebuild` (set, material, its JSON),
/// and checks that the value the operation asked for is what the material became: a derived
/// field cannot be set. Shared by the MP1/MP2 and the MP3 material schemas.
pub(crate) fn apply_ops<S>(
    sets: &mut S,
    view: impl Fn(&S) -> Value,
    patch: &[PatchOperation],
    mut rebuild: impl FnMut(&mut S, usize, usize, Value) -> Result<(), Refusal>,
) -> Result<(), PatchError> {
    let mut doc = view(sets);
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
        // `…/-` appends: check the element it became.
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
            rebuild(sets, s, m, value).map_err(fail)?;
        }
        let normal = view(sets);
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
    Ok(())
}

/// Re-pads every set whose bytes differ from `before` (section sizes stay multiples of 32).
fn repad_changed(before: &[MaterialSet], after: &mut [MaterialSet]) {
    for (b, a) in before.iter().zip(after.iter_mut()) {
        if a.materials != b.materials {
            a.repad();
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn only_fields_inside_one_material_are_editable() {
        assert_eq!(
            material_of("/material_sets/1/materials/2/tev_stages/0"),
            Some((1, 2))
        );
        assert_eq!(material_of("/material_sets/1/materials/2"), None);
        assert_eq!(material_of("/material_sets/1/texture_file_ids/0"), None);
        assert_eq!(material_of("/positions/0"), None);
        assert_eq!(material_of("/material_sets/-/materials/0/flags"), None);
    }

    #[test]
    fn the_vertex_layout_and_the_array_flags_are_fixed_by_the_geometry() {
        use crate::formats::material::VertexAttributes;
        use crate::gx::flags;
        let before = crate::testing::sample_material();
        let with = |f: &dyn Fn(&mut Material)| {
            let mut m = before.clone();
            f(&mut m);
            geometry_change(&before, &m).map(|r| r.to_string())
        };
        for bit in [flags::SHORT_UV, flags::SHORT_UV_ALT] {
            let why = with(&|m| m.flags ^= bit).unwrap();
            assert!(why.contains(&format!("{bit:#06x}")), "{why}");
            assert_eq!(fixed_flag(bit), Some(why));
        }
        let why = with(&|m| m.vertex_attributes = VertexAttributes(m.vertex_attributes.0 ^ 3));
        assert!(why.unwrap().starts_with("vertex_attribute_flags"));
        for bit in [flags::OCCLUDER, flags::LIGHTMAP, flags::TRANSPARENT] {
            assert_eq!(with(&|m| m.flags ^= bit), None);
            assert_eq!(fixed_flag(bit), None);
        }
        assert_eq!(with(&|m| m.group_index += 1), None);
    }

    #[test]
    fn requested_values_compare_as_stored() {
        // Integers exactly, floats as f32, objects by the keys the request gives.
        assert!(same(&json!(2), &json!(2.0)));
        assert!(same(&json!(0.1), &json!(f64::from(0.1f32))));
        assert!(!same(&json!(16_777_217u32), &json!(16_777_216u32)));
        assert!(same(&json!({"a": 1}), &json!({"a": 1, "derived": 5})));
        assert!(!same(&json!({"a": 1, "typo": 5}), &json!({"a": 1})));
        assert!(!same(&json!([1, 2]), &json!([1, 2, 3])));
    }
}
