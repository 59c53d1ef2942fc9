//! `info --json` for CINF skeletons (conformance field names).

use std::fmt::Write as _;

use serde::Serialize;

use super::f64s;
use crate::anim::{AnimError, Skeleton};
use crate::formats::Game;
use crate::formats::cinf::Cinf;

#[derive(Debug, Clone, Serialize)]
pub struct CinfInfo {
    pub format: &'static str,
    pub game: Game,
    pub bone_count: usize,
    pub bones: Vec<CinfBoneInfo>,
    pub root_bone_id: Option<u32>,
    pub build_order: Vec<u32>,
    pub bone_names: Vec<BoneNameInfo>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CinfBoneInfo {
    pub id: u32,
    pub name: Option<String>,
    pub parent_id: u32,
    pub position: [f64; 3],
    pub local_position: [f64; 3],
    pub linked_bone_ids: Vec<u32>,
    pub children: Vec<u32>,
    /// [MP2] only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation_wxyz: Option<[f64; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_rotation_wxyz: Option<[f64; 4]>,
    /// [MP3] the same quaternions under the MP3 fixtures' names (file order w, x, y, z;
    /// unused, formats.md §13.5), and whether the bone is a root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation_raw: Option<[f64; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local_rotation_raw: Option<[f64; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_root: Option<bool>,
}

#[derive(Debug, Clone, Serialize)]
pub struct BoneNameInfo {
    pub name: String,
    pub bone_id: u32,
}

impl CinfInfo {
    pub fn from_cinf(c: &Cinf) -> Self {
        let bones = c
            .bones
            .iter()
            .map(|b| {
                let quats = b.rotation.zip(b.local_rotation);
                let mp3 = c.game == Game::Mp3;
                let mp2 = quats.filter(|_| !mp3);
                let raw = quats.filter(|_| mp3);
                CinfBoneInfo {
                    id: b.id,
                    name: c.name_of(b.id).map(str::to_owned),
                    parent_id: b.parent_id,
                    position: f64s(b.position),
                    local_position: f64s(c.local_position(b)),
                    linked_bone_ids: b.linked_bone_ids.clone(),
                    children: c.children_of(b.id),
                    rotation_wxyz: mp2.map(|(r, _)| f64s(r)),
                    local_rotation_wxyz: mp2.map(|(_, l)| f64s(l)),
                    rotation_raw: raw.map(|(r, _)| f64s(r)),
                    local_rotation_raw: raw.map(|(_, l)| f64s(l)),
                    is_root: mp3.then(|| !c.has_bone(b.parent_id)),
                }
            })
            .collect();
        Self {
            format: "CINF",
            game: c.game,
            bone_count: c.bones.len(),
            bones,
            root_bone_id: c.root_bone_id(),
            build_order: c.build_order.clone(),
            bone_names: c
                .bone_names
                .iter()
                .map(|n| BoneNameInfo {
                    name: n.name.clone(),
                    bone_id: n.bone_id,
                })
                .collect(),
            warnings: c.warnings.clone(),
        }
    }
}

/// The skeleton as readable text: the bone tree in evaluation order.
pub fn text(c: &Cinf) -> Result<String, AnimError> {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "CINF ({}): {} bones, roots {:?}",
        super::game_name(c.game),
        c.bones.len(),
        c.roots()
    );
    // Print as a tree in evaluation order.
    let skel = Skeleton::from_cinf(c)?;
    let depth = |mut i: usize| {
        let mut d = 0;
        while let Some(p) = skel.bones()[i].parent {
            d += 1;
            i = p;
        }
        d
    };
    for (i, b) in skel.bones().iter().enumerate() {
        let p = b.bind_position;
        let o = b.local_offset;
        let _ = writeln!(
            out,
            "{:indent$}bone {:>3} {:<20} bind ({:.4}, {:.4}, {:.4})  offset ({:.4}, {:.4}, {:.4})",
            "",
            b.id,
            if b.name.is_empty() {
                "(unnamed)"
            } else {
                &b.name
            },
            p.x,
            p.y,
            p.z,
            o.x,
            o.y,
            o.z,
            indent = 2 * depth(i)
        );
    }
    let _ = writeln!(out, "build order: {:?}", c.build_order);
    super::warnings_text(&mut out, &c.warnings);
    Ok(out)
}
