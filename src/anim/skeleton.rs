//! The skeleton as the posing code needs it: bones in evaluation order (parents before
//! children) with their bind transforms, built from a CINF.

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};

use super::AnimError;
use crate::formats::cinf::Cinf;

/// One bone, indexed by its position in [`Skeleton::bones`] (not by its file ID).
#[derive(Debug, Clone, PartialEq)]
pub struct Bone {
    /// The ID animations and skins use.
    pub id: u32,
    pub name: String,
    /// Index of the parent in [`Skeleton::bones`]; None for a root.
    pub parent: Option<usize>,
    pub children: Vec<usize>,
    /// Bind position in model space.
    pub bind_position: Vec3,
    /// Bind offset from the parent (position − parent position; a root: its position).
    pub local_offset: Vec3,
    /// [MP2] the CINF "rotation" quaternion (identity in MP1). Used only with
    /// [`BindRotations::Use`](super::pose::BindRotations).
    pub bind_rotation: Quat,
    /// [MP2] the CINF "local rotation" quaternion (identity in MP1).
    pub bind_local_rotation: Quat,
}

/// Bones in evaluation order plus an ID lookup.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Skeleton {
    bones: Vec<Bone>,
    by_id: HashMap<u32, usize>,
    /// The bone carrying root motion: 3 in MP1/MP2; in MP3 (whose IDs start at 0 for the
    /// root, §13.5–13.6) the first root.
    root_motion_id: u32,
}

/// The bone that carries root motion (formats.md §7.5).
pub const ROOT_MOTION_BONE_ID: u32 = 3;

fn quat_wxyz(q: Option<[f32; 4]>) -> Quat {
    match q {
        Some([w, x, y, z]) => {
            let q = Quat::from_xyzw(x, y, z, w);
            if q.is_finite() && q.length_squared() > 1e-12 {
                q.normalize()
            } else {
                Quat::IDENTITY
            }
        }
        None => Quat::IDENTITY,
    }
}

impl Skeleton {
    /// Builds the skeleton; fails on duplicate IDs or parent loops (which a parsed CINF has
    /// already rejected, but a hand-built one may contain).
    pub fn from_cinf(cinf: &Cinf) -> Result<Skeleton, AnimError> {
        let mut file_index = HashMap::with_capacity(cinf.bones.len());
        for (i, b) in cinf.bones.iter().enumerate() {
            if file_index.insert(b.id, i).is_some() {
                return Err(AnimError::Skeleton(format!(
                    "bone ID {} appears twice",
                    b.id
                )));
            }
        }
        // Parent (file index) of each bone; a parent ID naming no bone marks a root.
        let parent_of: Vec<Option<usize>> = cinf
            .bones
            .iter()
            .map(|b| {
                file_index
                    .get(&b.parent_id)
                    .copied()
                    .filter(|&p| cinf.bones[p].id != b.id)
            })
            .collect();
        let self_parented = cinf.bones.iter().find(|b| b.parent_id == b.id);
        if let Some(b) = self_parented {
            return Err(AnimError::Skeleton(format!(
                "bone {} is its own parent",
                b.id
            )));
        }
        let mut children_of = vec![Vec::new(); cinf.bones.len()];
        let mut roots = Vec::new();
        for (i, p) in parent_of.iter().enumerate() {
            match p {
                Some(p) => children_of[*p].push(i),
                None => roots.push(i),
            }
        }
        // Depth-first from the roots, children in file order: parents precede children.
        let mut order = Vec::with_capacity(cinf.bones.len());
        let mut stack: Vec<usize> = roots.iter().rev().copied().collect();
        while let Some(i) = stack.pop() {
            order.push(i);
            stack.extend(children_of[i].iter().rev().copied());
        }
        if order.len() != cinf.bones.len() {
            let placed: std::collections::HashSet<usize> = order.iter().copied().collect();
            let stuck: Vec<u32> = (0..cinf.bones.len())
                .filter(|i| !placed.contains(i))
                .map(|i| cinf.bones[i].id)
                .collect();
            return Err(AnimError::Skeleton(format!(
                "parent chains loop through bones {stuck:?}"
            )));
        }
        let mut new_index = vec![0usize; cinf.bones.len()];
        for (n, &i) in order.iter().enumerate() {
            new_index[i] = n;
        }
        let bones: Vec<Bone> = order
            .iter()
            .map(|&i| {
                let b = &cinf.bones[i];
                let bind_position = Vec3::from(b.position);
                let parent = parent_of[i].map(|p| new_index[p]);
                let local_offset = match parent_of[i] {
                    Some(p) => bind_position - Vec3::from(cinf.bones[p].position),
                    None => bind_position,
                };
                Bone {
                    id: b.id,
                    name: cinf.name_of(b.id).unwrap_or_default().to_string(),
                    parent,
                    children: children_of[i].iter().map(|&c| new_index[c]).collect(),
                    bind_position,
                    local_offset,
                    bind_rotation: quat_wxyz(b.rotation),
                    bind_local_rotation: quat_wxyz(b.local_rotation),
                }
            })
            .collect();
        let by_id = bones.iter().enumerate().map(|(i, b)| (b.id, i)).collect();
        let root_motion_id = match cinf.game {
            crate::formats::Game::Mp3 => cinf.root_bone_id().unwrap_or(ROOT_MOTION_BONE_ID),
            _ => ROOT_MOTION_BONE_ID,
        };
        Ok(Skeleton {
            bones,
            by_id,
            root_motion_id,
        })
    }

    /// Bones in evaluation order (parents before children).
    pub fn bones(&self) -> &[Bone] {
        &self.bones
    }

    pub fn len(&self) -> usize {
        self.bones.len()
    }

    pub fn is_empty(&self) -> bool {
        self.bones.is_empty()
    }

    /// Index in [`Skeleton::bones`] of the bone with this ID.
    pub fn index_of(&self, id: u32) -> Option<usize> {
        self.by_id.get(&id).copied()
    }

    pub fn bone_by_id(&self, id: u32) -> Option<&Bone> {
        self.index_of(id).map(|i| &self.bones[i])
    }

    /// The ID of the bone that carries root motion (3; MP3: the root).
    pub fn root_motion_id(&self) -> u32 {
        self.root_motion_id
    }

    /// The root-motion bone, if present.
    pub fn root_motion_bone(&self) -> Option<usize> {
        self.index_of(self.root_motion_id)
    }

    /// The bone that unskinned positions bind to: the root-motion bone (3; MP3: the root) if
    /// present, else the first root.
    pub fn default_root(&self) -> Option<usize> {
        self.root_motion_bone()
            .or_else(|| self.bones.iter().position(|b| b.parent.is_none()))
    }

    /// The bind transform of a bone: bone space → model space. The bind is a translation
    /// only unless `with_rotation` (the MP2 alternative) adds the CINF rotation.
    pub fn model_from_bone_bind(&self, index: usize, with_rotation: bool) -> Mat4 {
        let b = &self.bones[index];
        if with_rotation {
            Mat4::from_rotation_translation(b.bind_rotation, b.bind_position)
        } else {
            Mat4::from_translation(b.bind_position)
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::formats::cinf::CinfBone;
    use crate::formats::{Game, cinf::BoneName};

    pub(crate) fn cinf(bones: &[(u32, u32, [f32; 3])]) -> Cinf {
        Cinf {
            game: Game::Mp1,
            bones: bones
                .iter()
                .map(|&(id, parent_id, position)| CinfBone {
                    id,
                    parent_id,
                    position,
                    rotation: None,
                    local_rotation: None,
                    linked_bone_ids: vec![],
                })
                .collect(),
            build_order: vec![],
            bone_names: bones
                .iter()
                .map(|&(id, ..)| BoneName {
                    name: format!("b{id}"),
                    bone_id: id,
                })
                .collect(),
            trailing: vec![],
            warnings: vec![],
        }
    }

    #[test]
    fn orders_parents_first_and_computes_offsets() {
        // File order lists a child before its parent.
        let c = cinf(&[
            (5, 4, [0.0, 0.0, 2.0]),
            (3, 2, [1.0, 0.0, 0.0]),
            (4, 3, [1.0, 0.0, 1.0]),
        ]);
        let s = Skeleton::from_cinf(&c).unwrap();
        let ids: Vec<u32> = s.bones().iter().map(|b| b.id).collect();
        assert_eq!(ids, vec![3, 4, 5]);
        assert_eq!(s.bones()[0].local_offset, Vec3::new(1.0, 0.0, 0.0));
        assert_eq!(s.bones()[2].local_offset, Vec3::new(-1.0, 0.0, 1.0));
        assert_eq!(s.bones()[1].parent, Some(0));
        assert_eq!(s.bones()[0].children, vec![1]);
        assert_eq!(s.default_root(), Some(0));
        assert_eq!(s.bones()[2].name, "b5");
    }

    #[test]
    fn rejects_loops() {
        let c = cinf(&[(3, 5, [0.0; 3]), (4, 3, [0.0; 3]), (5, 4, [0.0; 3])]);
        let e = Skeleton::from_cinf(&c).unwrap_err();
        assert!(e.to_string().contains("loop"), "{e}");
        let c = cinf(&[(3, 3, [0.0; 3])]);
        assert!(Skeleton::from_cinf(&c).is_err());
    }
}
