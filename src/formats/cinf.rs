//! CINF skeletons (MP1 and MP2, formats.md §5; MP3 has the MP2 layout, §13.5).
//!
//! A CINF lists bones by small integer IDs (animations address bones by ID), each with its
//! parent ID and its bind position in *model space*. MP2 adds two quaternions per bone whose
//! meaning is open; they are kept and exposed. The build order and the bone names follow.
//! The file carries no version, so the game comes from the container; the heuristic in
//! [`detect_game`] is only a fallback.

use std::collections::{HashMap, HashSet};

use super::{FormatError, Game, Reader, Result, Writer};

/// A soft limit: the game's skeletons stay well below it and animations address bones
/// with IDs below 100.
pub const MAX_BONES_EXPECTED: usize = 100;

/// One bone as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct CinfBone {
    pub id: u32,
    /// Parent bone ID; a value that names no bone (2 in MP1, 0x61 in some MP2 files) marks a root.
    pub parent_id: u32,
    /// Bind position in model space (absolute, not parent-relative).
    pub position: [f32; 3],
    /// [MP2] quaternion "rotation" (w, x, y, z); meaning open (formats.md §7.5).
    pub rotation: Option<[f32; 4]>,
    /// [MP2] quaternion "local rotation" (w, x, y, z).
    pub local_rotation: Option<[f32; 4]>,
    /// Linked bone IDs: the parent, then the children.
    pub linked_bone_ids: Vec<u32>,
}

/// A name → bone ID entry of the name table.
#[derive(Debug, Clone, PartialEq)]
pub struct BoneName {
    pub name: String,
    pub bone_id: u32,
}

/// A parsed skeleton file.
#[derive(Debug, Clone, PartialEq)]
pub struct Cinf {
    pub game: Game,
    /// Bones in file order.
    pub bones: Vec<CinfBone>,
    /// Bone IDs with parents before children.
    pub build_order: Vec<u32>,
    pub bone_names: Vec<BoneName>,
    /// Bytes after the name table (0xFF padding), kept for byte-exact writing.
    pub trailing: Vec<u8>,
    /// Non-fatal findings, each naming its byte offset.
    pub warnings: Vec<String>,
}

/// Guesses MP1 or MP2 from the first bone: after the position MP1 continues with the
/// linked count (a small integer), MP2 with a float (formats.md §5). Fallback only.
pub fn detect_game(data: &[u8]) -> Game {
    let word = |at: usize| {
        data.get(at..at + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    };
    match (word(0), word(24)) {
        (Some(count), Some(after_position)) if count > 0 && after_position > 100 => Game::Mp2,
        _ => Game::Mp1,
    }
}

impl Cinf {
    /// Parses a CINF. `game` comes from the container; `None` uses [`detect_game`].
    pub fn parse(data: &[u8], file: &str, game: Option<Game>) -> Result<Cinf> {
        let game = game.unwrap_or_else(|| detect_game(data));
        let mut r = Reader::new(data, file);
        // MP3 skeletons have the MP2 layout (formats.md §13.5).
        let mp2 = game != Game::Mp1;
        let mut warnings = Vec::new();

        // Minimum bone size: id, parent, position, linked count (MP2 adds two quaternions).
        let min_bone = if mp2 { 56 } else { 24 };
        let count_pos = r.abs_pos();
        let count = r.count("bone_count", min_bone)?;
        if count > MAX_BONES_EXPECTED {
            warnings.push(format!(
                "bone_count at byte offset {count_pos:#x}: {count} bones (the game expects at most {MAX_BONES_EXPECTED})"
            ));
        }
        let mut bones = Vec::with_capacity(count);
        let mut bone_offsets = Vec::with_capacity(count);
        for i in 0..count {
            bone_offsets.push(r.pos());
            let id = r.u32(&format!("bones[{i}].id"))?;
            let parent_id = r.u32(&format!("bones[{i}].parent_id"))?;
            let position = r.vec3(&format!("bones[{i}].position"))?;
            let (rotation, local_rotation) = if mp2 {
                (
                    Some(r.quat(&format!("bones[{i}].rotation"))?),
                    Some(r.quat(&format!("bones[{i}].local_rotation"))?),
                )
            } else {
                (None, None)
            };
            let field = format!("bones[{i}].linked_bone_ids");
            let n = r.count(&field, 4)?;
            let linked_bone_ids = r.u32_vec(&field, n)?;
            bones.push(CinfBone {
                id,
                parent_id,
                position,
                rotation,
                local_rotation,
                linked_bone_ids,
            });
        }

        let n = r.count("build_order_count", 4)?;
        let build_order_pos = r.pos();
        let build_order = r.u32_vec("build_order", n)?;

        // A name entry is at least a zero byte and a u32.
        let n = r.count("bone_name_count", 5)?;
        let mut bone_names = Vec::with_capacity(n);
        let mut name_offsets = Vec::with_capacity(n);
        for i in 0..n {
            name_offsets.push(r.pos());
            let name = r.cstring(&format!("bone_names[{i}].name"))?;
            let bone_id = r.u32(&format!("bone_names[{i}].bone_id"))?;
            bone_names.push(BoneName { name, bone_id });
        }
        let trailing = r.rest().to_vec();

        let cinf = Cinf {
            game,
            bones,
            build_order,
            bone_names,
            trailing,
            warnings,
        };
        cinf.validate(&r, &bone_offsets, &name_offsets)?;
        let mut cinf = cinf;
        let soft = cinf.soft_checks(
            r.err_at(
                "build_order",
                build_order_pos,
                super::ErrorKind::Invalid(String::new()),
            )
            .offset,
        );
        cinf.warnings.extend(soft);
        Ok(cinf)
    }

    /// Hard checks: unique IDs, linked IDs exist, parent chains terminate, names name bones.
    fn validate(
        &self,
        r: &Reader<'_>,
        bone_offsets: &[usize],
        name_offsets: &[usize],
    ) -> Result<()> {
        let mut seen = HashSet::new();
        for (i, b) in self.bones.iter().enumerate() {
            if !seen.insert(b.id) {
                return Err(r.err_at(
                    &format!("bones[{i}].id"),
                    bone_offsets[i],
                    super::ErrorKind::Invalid(format!("bone ID {} appears twice", b.id)),
                ));
            }
        }
        for (i, b) in self.bones.iter().enumerate() {
            for &l in &b.linked_bone_ids {
                // The parent is listed first even when it is the root's sentinel (MP1: 2).
                if l != b.parent_id && !seen.contains(&l) {
                    return Err(r.err_at(
                        &format!("bones[{i}].linked_bone_ids"),
                        bone_offsets[i],
                        super::ErrorKind::Invalid(format!(
                            "bone {} links to bone {l}, which is not in the skeleton",
                            b.id
                        )),
                    ));
                }
            }
        }
        if let Some((i, cycle)) = self.find_parent_cycle() {
            return Err(r.err_at(
                &format!("bones[{i}].parent_id"),
                bone_offsets[i] + 4,
                super::ErrorKind::Invalid(format!(
                    "parent chain loops: {}",
                    cycle
                        .iter()
                        .map(u32::to_string)
                        .collect::<Vec<_>>()
                        .join(" → ")
                )),
            ));
        }
        for (i, n) in self.bone_names.iter().enumerate() {
            if !seen.contains(&n.bone_id) {
                return Err(r.err_at(
                    &format!("bone_names[{i}].bone_id"),
                    name_offsets[i],
                    super::ErrorKind::Invalid(format!(
                        "name {:?} refers to bone {}, which is not in the skeleton",
                        n.name, n.bone_id
                    )),
                ));
            }
        }
        Ok(())
    }

    /// Soft checks that only warn: the build order, IDs ≥ 100.
    fn soft_checks(&self, build_order_offset: u64) -> Vec<String> {
        let mut w = Vec::new();
        let ids: HashSet<u32> = self.bones.iter().map(|b| b.id).collect();
        let mut placed = HashSet::new();
        for &id in &self.build_order {
            if !ids.contains(&id) {
                w.push(format!(
                    "build_order at byte offset {:#x}: bone {id} is not in the skeleton",
                    build_order_offset
                ));
            } else if let Some(b) = self.bone(id)
                && ids.contains(&b.parent_id)
                && !placed.contains(&b.parent_id)
            {
                w.push(format!(
                    "build_order at byte offset {:#x}: bone {id} comes before its parent {}",
                    build_order_offset, b.parent_id
                ));
            }
            placed.insert(id);
        }
        if self.build_order.len() != self.bones.len() {
            w.push(format!(
                "build_order at byte offset {:#x}: lists {} bones, the skeleton has {}",
                build_order_offset,
                self.build_order.len(),
                self.bones.len()
            ));
        }
        for b in &self.bones {
            if b.id >= 100 {
                w.push(format!(
                    "bone {}: ID ≥ 100 cannot be addressed by animations",
                    b.id
                ));
            }
        }
        w
    }

    /// Returns the index of a bone on a parent loop and the loop's IDs, if any.
    fn find_parent_cycle(&self) -> Option<(usize, Vec<u32>)> {
        let index: HashMap<u32, usize> = self
            .bones
            .iter()
            .enumerate()
            .map(|(i, b)| (b.id, i))
            .collect();
        // 0 = unvisited, 1 = on the current path, 2 = known to reach a root.
        let mut state = vec![0u8; self.bones.len()];
        for start in 0..self.bones.len() {
            let mut path: Vec<usize> = Vec::new();
            let mut cur = Some(start);
            while let Some(i) = cur {
                match state[i] {
                    2 => break,
                    1 => {
                        let from = path.iter().position(|&p| p == i).unwrap_or(0);
                        let mut ids: Vec<u32> =
                            path[from..].iter().map(|&p| self.bones[p].id).collect();
                        ids.push(self.bones[i].id);
                        return Some((i, ids));
                    }
                    _ => {}
                }
                state[i] = 1;
                path.push(i);
                cur = index.get(&self.bones[i].parent_id).copied();
            }
            for p in path {
                state[p] = 2;
            }
        }
        None
    }

    /// The bone with this ID.
    pub fn bone(&self, id: u32) -> Option<&CinfBone> {
        self.bones.iter().find(|b| b.id == id)
    }

    /// Whether `id` names a bone (a parent ID that does not is a root marker).
    pub fn has_bone(&self, id: u32) -> bool {
        self.bone(id).is_some()
    }

    /// The bone's name from the name table (first match), if any.
    pub fn name_of(&self, id: u32) -> Option<&str> {
        self.bone_names
            .iter()
            .find(|n| n.bone_id == id)
            .map(|n| n.name.as_str())
    }

    /// Children of a bone, in bone-table order (derived from parent IDs).
    pub fn children_of(&self, id: u32) -> Vec<u32> {
        self.bones
            .iter()
            .filter(|b| b.parent_id == id && b.id != id)
            .map(|b| b.id)
            .collect()
    }

    /// Bones whose parent ID names no bone, in file order.
    pub fn roots(&self) -> Vec<u32> {
        self.bones
            .iter()
            .filter(|b| !self.has_bone(b.parent_id))
            .map(|b| b.id)
            .collect()
    }

    /// The first root bone (the conformance JSONs' `root_bone_id`).
    pub fn root_bone_id(&self) -> Option<u32> {
        self.roots().first().copied()
    }

    /// Bind offset from the parent: position − parent position (a root: its position).
    pub fn local_position(&self, bone: &CinfBone) -> [f32; 3] {
        match self.bone(bone.parent_id) {
            Some(p) if p.id != bone.id => [
                bone.position[0] - p.position[0],
                bone.position[1] - p.position[1],
                bone.position[2] - p.position[2],
            ],
            _ => bone.position,
        }
    }

    /// Writes the file back in the layout of `self.game` (trailing bytes appended verbatim).
    pub fn write(&self) -> std::result::Result<Vec<u8>, FormatError> {
        let mp2 = self.game != Game::Mp1;
        let mut w = Writer::new();
        w.u32(len_u32(self.bones.len(), "bone_count")?);
        for (i, b) in self.bones.iter().enumerate() {
            w.u32(b.id);
            w.u32(b.parent_id);
            w.vec3(b.position);
            if mp2 {
                let missing = || {
                    FormatError::new(
                        "CINF writer",
                        format!("bones[{i}].rotation"),
                        0,
                        super::ErrorKind::Invalid("an MP2 bone needs both quaternions".into()),
                    )
                };
                w.quat(b.rotation.ok_or_else(missing)?);
                w.quat(b.local_rotation.ok_or_else(missing)?);
            }
            w.u32(len_u32(b.linked_bone_ids.len(), "linked_bone_ids")?);
            b.linked_bone_ids.iter().for_each(|&l| w.u32(l));
        }
        w.u32(len_u32(self.build_order.len(), "build_order")?);
        self.build_order.iter().for_each(|&b| w.u32(b));
        w.u32(len_u32(self.bone_names.len(), "bone_names")?);
        for n in &self.bone_names {
            w.cstring(&n.name);
            w.u32(n.bone_id);
        }
        w.bytes(&self.trailing);
        Ok(w.into_inner())
    }
}

/// A length as a u32 count, or an error naming the field.
pub(crate) fn len_u32(n: usize, field: &str) -> Result<u32> {
    u32::try_from(n).map_err(|_| {
        FormatError::new(
            "writer",
            field,
            0,
            super::ErrorKind::Invalid(format!("{n} elements do not fit a u32 count")),
        )
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A tiny MP1 skeleton: 3 → 4 → 5.
    fn chain(parent_of_3: u32) -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(3);
        for (id, parent, z, links) in [
            (3u32, parent_of_3, 0.0f32, vec![parent_of_3, 4]),
            (4, 3, 1.0, vec![3, 5]),
            (5, 4, 2.0, vec![4]),
        ] {
            w.u32(id);
            w.u32(parent);
            w.vec3([0.0, 0.0, z]);
            w.u32(links.len() as u32);
            links.iter().for_each(|&l| w.u32(l));
        }
        w.u32(3);
        [3, 4, 5].iter().for_each(|&b| w.u32(b));
        w.u32(1);
        w.cstring("root");
        w.u32(3);
        w.pad_to(32, 0xFF);
        w.into_inner()
    }

    #[test]
    fn parses_and_writes_back() {
        let data = chain(2);
        let c = Cinf::parse(&data, "t", None).unwrap();
        assert_eq!(c.game, Game::Mp1);
        assert_eq!(c.roots(), vec![3]);
        assert_eq!(c.local_position(&c.bones[2]), [0.0, 0.0, 1.0]);
        assert_eq!(c.children_of(3), vec![4]);
        assert_eq!(c.name_of(3), Some("root"));
        assert_eq!(c.write().unwrap(), data);
        assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    }

    #[test]
    fn rejects_parent_loops() {
        // 3's parent is 5: 3 → 5 → 4 → 3.
        let mut data = chain(5);
        // The linked list of bone 3 names 5 as its parent, which exists, so only the loop fails.
        let e = Cinf::parse(&data, "t", Some(Game::Mp1)).unwrap_err();
        assert!(e.to_string().contains("parent chain loops"), "{e}");
        assert_eq!(e.offset, 8);
        // A self-parent is a loop too.
        data[8..12].copy_from_slice(&3u32.to_be_bytes());
        data[28..32].copy_from_slice(&3u32.to_be_bytes());
        assert!(Cinf::parse(&data, "t", Some(Game::Mp1)).is_err());
    }

    #[test]
    fn rejects_duplicate_ids_and_bad_links_and_names() {
        let mut data = chain(2);
        data[36..40].copy_from_slice(&3u32.to_be_bytes()); // bone 4's ID → 3
        let e = Cinf::parse(&data, "t", Some(Game::Mp1)).unwrap_err();
        assert!(e.to_string().contains("appears twice"), "{e}");

        let mut data = chain(2);
        data[32..36].copy_from_slice(&42u32.to_be_bytes()); // bone 3 links to 42
        let e = Cinf::parse(&data, "t", Some(Game::Mp1)).unwrap_err();
        assert!(e.to_string().contains("not in the skeleton"), "{e}");

        let mut data = chain(2);
        let at = data.windows(5).position(|w| w == b"root\0").unwrap() + 5;
        data[at..at + 4].copy_from_slice(&77u32.to_be_bytes());
        let e = Cinf::parse(&data, "t", Some(Game::Mp1)).unwrap_err();
        assert!(e.to_string().contains("bone 77"), "{e}");
    }

    #[test]
    fn mp2_layout_round_trips_and_is_detected() {
        let mut w = Writer::new();
        w.u32(1);
        w.u32(0);
        w.u32(0x61);
        w.vec3([1.0, 2.0, 3.0]);
        w.quat([1.0, 0.0, 0.0, 0.0]);
        w.quat([0.0, 1.0, 0.0, 0.0]);
        w.u32(1);
        w.u32(0x61);
        w.u32(1);
        w.u32(0);
        w.u32(0);
        let data = w.into_inner();
        assert_eq!(detect_game(&data), Game::Mp2);
        let c = Cinf::parse(&data, "t", None).unwrap();
        assert_eq!(c.bones[0].local_rotation, Some([0.0, 1.0, 0.0, 0.0]));
        assert_eq!(c.roots(), vec![0]);
        assert_eq!(c.write().unwrap(), data);
    }
}
