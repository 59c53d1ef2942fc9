//! Skin binding and CPU skinning (formats.md §6 and §7.5).
//!
//! A [`SkinBinding`] resolves a CSKR against a skeleton and a model's array sizes: each
//! position index (and, with the same group counts, each normal index) gets up to four
//! (palette index, weight) pairs. [`skin_positions`] / [`skin_normals`] are the CPU
//! reference the GPU path is tested against; [`SkinBinding::position_influences`] and
//! [`SkinPalette::to_gpu`](super::pose::SkinPalette::to_gpu) are what a renderer uploads.

use glam::{Mat3, Vec3};

use super::AnimError;
use super::pose::SkinPalette;
use super::skeleton::Skeleton;
use crate::formats::cskr::Cskr;

/// How many weights of a group are used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WeightLimit {
    /// Up to four; a warning above three. **Default.**
    #[default]
    UpToFour,
    /// The first three, as the game.
    FirstThree,
}

/// How normals are skinned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NormalMode {
    /// Rotate by the first weight's bone rotation only, as the game. **Default.**
    #[default]
    FirstWeight,
    /// Weighted blend of the rotated normals, renormalised.
    Blended,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SkinOptions {
    pub weights: WeightLimit,
}

/// Up to four bones (indices into the palette / [`Skeleton::bones`]) and their weights;
/// unused slots have weight 0. Laid out for a GPU vertex buffer.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct VertexInfluence {
    pub bones: [u32; 4],
    pub weights: [f32; 4],
    /// How many slots are used (1..=4).
    pub count: u32,
}

impl VertexInfluence {
    /// The bind-pose position `v` skinned by `palette`: `Σ wᵢ · model_from_bindᵢ · v`.
    pub fn skin_position(&self, palette: &SkinPalette, v: Vec3) -> Vec3 {
        let mut acc = Vec3::ZERO;
        for s in 0..self.count as usize {
            acc += self.weights[s]
                * palette.model_from_bind[self.bones[s] as usize].transform_point3(v);
        }
        acc
    }
}

impl VertexInfluence {
    /// A normal skinned by this influence: the first weight's rotation (the game, MP1/MP2)
    /// or the weighted blend, renormalised.
    pub fn skin_normal(&self, palette: &SkinPalette, n: Vec3, mode: NormalMode) -> Vec3 {
        let rot = |s: usize| -> &Mat3 { &palette.normal_from_bind[self.bones[s] as usize] };
        match mode {
            NormalMode::FirstWeight => *rot(0) * n,
            NormalMode::Blended => {
                let mut acc = Vec3::ZERO;
                for s in 0..self.count as usize {
                    acc += self.weights[s] * (*rot(s) * n);
                }
                acc.try_normalize().unwrap_or(n)
            }
        }
    }
}

/// One influence per weight group (bones resolved to palette indices, weights limited per
/// `options`), and the influence binding to the root, if the skeleton has one.
pub(crate) fn group_influences(
    cskr: &Cskr,
    skeleton: &Skeleton,
    options: SkinOptions,
    warnings: &mut Vec<String>,
) -> Result<(Vec<VertexInfluence>, Option<VertexInfluence>), AnimError> {
    let limit = match options.weights {
        WeightLimit::UpToFour => 4,
        WeightLimit::FirstThree => 3,
    };
    let root = skeleton.default_root();
    let root_influence = root.map(|r| VertexInfluence {
        bones: [r as u32, 0, 0, 0],
        weights: [1.0, 0.0, 0.0, 0.0],
        count: 1,
    });
    let mut influences = Vec::with_capacity(cskr.groups.len() + 1);
    for (g, group) in cskr.groups.iter().enumerate() {
        let mut inf = VertexInfluence::default();
        if group.weights.len() > limit {
            warnings.push(format!(
                "skin group {g}: {} weights, only the first {limit} are used",
                group.weights.len()
            ));
        } else if group.weights.len() > 3 {
            warnings.push(format!(
                "skin group {g}: 4 weights (the game uses only the first 3)"
            ));
        }
        for w in group.weights.iter().take(limit) {
            let bone = skeleton.index_of(w.bone_id).ok_or(AnimError::Skin(format!(
                "group {g} weights bone {}, which is not in the skeleton",
                w.bone_id
            )))?;
            let slot = inf.count as usize;
            inf.bones[slot] = bone as u32;
            inf.weights[slot] = w.weight;
            inf.count += 1;
        }
        if inf.count == 0 {
            warnings.push(format!("skin group {g} has no weights; bound to the root"));
            inf = root_influence.ok_or(AnimError::Skin(format!(
                "group {g} has no weights and the skeleton has no root"
            )))?;
        }
        influences.push(inf);
    }
    Ok((influences, root_influence))
}

/// A skin resolved against a skeleton and a model's position and normal counts.
#[derive(Debug, Clone, PartialEq)]
pub struct SkinBinding {
    /// One influence per weight group, plus a final one binding to the root.
    influences: Vec<VertexInfluence>,
    /// Influence index per position index.
    of_position: Vec<u32>,
    /// Influence index per normal index.
    of_normal: Vec<u32>,
    pub warnings: Vec<String>,
}

impl SkinBinding {
    /// Binds `cskr` to `skeleton` for a model with `position_count` positions and
    /// `normal_count` normals. Fails when a group names a bone the skeleton lacks, or when
    /// vertices need the root and there is none.
    pub fn new(
        cskr: &Cskr,
        skeleton: &Skeleton,
        position_count: usize,
        normal_count: usize,
        options: SkinOptions,
    ) -> Result<SkinBinding, AnimError> {
        let mut warnings = Vec::new();
        let (mut influences, root_influence) =
            group_influences(cskr, skeleton, options, &mut warnings)?;
        let root_slot = influences.len() as u32;
        let total = cskr.total_vertex_count();
        let map = |count: usize,
                   what: &str,
                   warnings: &mut Vec<String>|
         -> Result<Vec<u32>, AnimError> {
            let groups = cskr.groups_by_index(count);
            let unbound = groups.iter().filter(|g| g.is_none()).count();
            if unbound > 0 {
                if root_influence.is_none() {
                    return Err(AnimError::Skin(format!(
                        "{unbound} {what}s lie beyond the last group and the skeleton has no root"
                    )));
                }
                warnings.push(format!(
                    "{unbound} of {count} {what}s lie beyond the last group (which ends at {total}); bound to the root"
                ));
            } else if (count as u64) < total {
                warnings.push(format!(
                    "the groups cover {total} {what}s, the model has {count}"
                ));
            }
            Ok(groups
                .into_iter()
                .map(|g| g.map_or(root_slot, |g| g as u32))
                .collect())
        };
        let of_position = map(position_count, "position", &mut warnings)?;
        let of_normal = map(normal_count, "normal", &mut warnings)?;
        if let Some(r) = root_influence {
            influences.push(r);
        }
        Ok(SkinBinding {
            influences,
            of_position,
            of_normal,
            warnings,
        })
    }

    pub fn position_count(&self) -> usize {
        self.of_position.len()
    }

    pub fn normal_count(&self) -> usize {
        self.of_normal.len()
    }

    /// The influence of position index `i`.
    pub fn position_influence(&self, i: usize) -> &VertexInfluence {
        &self.influences[self.of_position[i] as usize]
    }

    /// The influence of normal index `i`.
    pub fn normal_influence(&self, i: usize) -> &VertexInfluence {
        &self.influences[self.of_normal[i] as usize]
    }

    /// Influence per position index (for a GPU vertex attribute; de-index with the
    /// vertex's position index).
    pub fn position_influences(&self) -> Vec<VertexInfluence> {
        self.of_position
            .iter()
            .map(|&g| self.influences[g as usize])
            .collect()
    }

    /// Influence per normal index.
    pub fn normal_influences(&self) -> Vec<VertexInfluence> {
        self.of_normal
            .iter()
            .map(|&g| self.influences[g as usize])
            .collect()
    }
}

/// Skins `positions` (the model's position array, by position index) into `out`:
/// `Σ wᵢ · model_from_bindᵢ · v`.
pub fn skin_positions_into(
    binding: &SkinBinding,
    palette: &SkinPalette,
    positions: &[Vec3],
    out: &mut Vec<Vec3>,
) {
    out.clear();
    out.extend(positions.iter().enumerate().map(|(i, &v)| {
        let Some(&g) = binding.of_position.get(i) else {
            return v;
        };
        binding.influences[g as usize].skin_position(palette, v)
    }));
}

/// Allocating form of [`skin_positions_into`].
pub fn skin_positions(
    binding: &SkinBinding,
    palette: &SkinPalette,
    positions: &[Vec3],
) -> Vec<Vec3> {
    let mut out = Vec::with_capacity(positions.len());
    skin_positions_into(binding, palette, positions, &mut out);
    out
}

/// Skins the model's normal array (by normal index) into `out`.
pub fn skin_normals_into(
    binding: &SkinBinding,
    palette: &SkinPalette,
    normals: &[Vec3],
    mode: NormalMode,
    out: &mut Vec<Vec3>,
) {
    out.clear();
    out.extend(normals.iter().enumerate().map(|(i, &n)| {
        let Some(&g) = binding.of_normal.get(i) else {
            return n;
        };
        binding.influences[g as usize].skin_normal(palette, n, mode)
    }));
}

/// Allocating form of [`skin_normals_into`].
pub fn skin_normals(
    binding: &SkinBinding,
    palette: &SkinPalette,
    normals: &[Vec3],
    mode: NormalMode,
) -> Vec<Vec3> {
    let mut out = Vec::with_capacity(normals.len());
    skin_normals_into(binding, palette, normals, mode, &mut out);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::anim::pose::{Pose, PoseOptions};
    use crate::formats::Game;
    use crate::formats::cinf::{Cinf, CinfBone};
    use crate::formats::cskr::{BoneWeight, CskrFooter, Mp1Count, WeightGroup};
    use glam::{Quat, Vec3};

    fn skeleton() -> Skeleton {
        let bone = |id, parent_id, position| CinfBone {
            id,
            parent_id,
            position,
            rotation: None,
            local_rotation: None,
            linked_bone_ids: vec![],
        };
        Skeleton::from_cinf(&Cinf {
            game: Game::Mp1,
            bones: vec![
                bone(3, 2, [0.0; 3]),
                bone(4, 3, [0.0, 0.0, 1.0]),
                bone(5, 3, [1.0, 0.0, 0.0]),
            ],
            build_order: vec![],
            bone_names: vec![],
            trailing: vec![],
            warnings: vec![],
        })
        .unwrap()
    }

    fn skin(groups: Vec<(Vec<(u32, f32)>, u32)>) -> Cskr {
        let count = Mp1Count {
            marker: u32::MAX,
            count: 0,
            skipped: vec![],
        };
        Cskr {
            game: Game::Mp1,
            skin_version: None,
            groups: groups
                .into_iter()
                .map(|(w, vertex_count)| WeightGroup {
                    weights: w
                        .into_iter()
                        .map(|(bone_id, weight)| BoneWeight { bone_id, weight })
                        .collect(),
                    vertex_count,
                })
                .collect(),
            footer: CskrFooter::Mp1 {
                positions: count.clone(),
                normals: count,
            },
            trailing: vec![],
            warnings: vec![],
        }
    }

    #[test]
    fn bind_pose_is_identity_and_weights_blend() {
        let skel = skeleton();
        let cskr = skin(vec![(vec![(4, 1.0)], 1), (vec![(4, 0.5), (5, 0.5)], 1)]);
        // Three positions: the third lies beyond the groups and binds to the root.
        let binding = SkinBinding::new(&cskr, &skel, 3, 3, SkinOptions::default()).unwrap();
        assert_eq!(binding.warnings.len(), 2, "{:?}", binding.warnings);
        let sum: f32 = binding.position_influence(1).weights.iter().sum();
        assert!((sum - 1.0).abs() < 1e-6);
        assert_eq!(
            binding.position_influence(2).bones[0],
            skel.index_of(3).unwrap() as u32
        );

        let opts = PoseOptions::default();
        let pose = Pose::bind(&skel, &opts);
        let palette = pose.skin_palette(&skel, &opts);
        let pos = vec![
            Vec3::new(0.3, 0.2, 1.1),
            Vec3::new(1.0, 1.0, 1.0),
            Vec3::new(-1.0, 2.0, 0.0),
        ];
        let nrm = vec![Vec3::X, Vec3::Y, Vec3::Z];
        assert_eq!(skin_positions(&binding, &palette, &pos), pos);
        assert_eq!(
            skin_normals(&binding, &palette, &nrm, NormalMode::FirstWeight),
            nrm
        );

        // Move bone 4 by +1 X: a half-weighted vertex moves by 0.5.
        let mut moved = pose.clone();
        moved.local[skel.index_of(4).unwrap()].translation += Vec3::X;
        moved.update_model(&skel);
        let palette = moved.skin_palette(&skel, &opts);
        let out = skin_positions(&binding, &palette, &pos);
        assert!(out[0].abs_diff_eq(pos[0] + Vec3::X, 1e-6));
        assert!(out[1].abs_diff_eq(pos[1] + 0.5 * Vec3::X, 1e-6));
        assert_eq!(out[2], pos[2]);
    }

    #[test]
    fn normals_first_weight_or_blended() {
        let skel = skeleton();
        let cskr = skin(vec![(vec![(4, 0.5), (5, 0.5)], 1)]);
        let binding = SkinBinding::new(&cskr, &skel, 1, 1, SkinOptions::default()).unwrap();
        let opts = PoseOptions::default();
        let mut pose = Pose::bind(&skel, &opts);
        pose.local[skel.index_of(4).unwrap()].rotation =
            Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        pose.update_model(&skel);
        let palette = pose.skin_palette(&skel, &opts);
        let first = skin_normals(&binding, &palette, &[Vec3::X], NormalMode::FirstWeight);
        assert!(first[0].abs_diff_eq(Vec3::Y, 1e-6));
        let blended = skin_normals(&binding, &palette, &[Vec3::X], NormalMode::Blended);
        let expect = Vec3::new(1.0, 1.0, 0.0).normalize();
        assert!(blended[0].abs_diff_eq(expect, 1e-6), "{}", blended[0]);
    }

    #[test]
    fn weight_limits_and_unknown_bones() {
        let skel = skeleton();
        let four = skin(vec![(vec![(3, 0.25), (4, 0.25), (5, 0.25), (4, 0.25)], 1)]);
        let b = SkinBinding::new(&four, &skel, 1, 1, SkinOptions::default()).unwrap();
        assert_eq!(b.position_influence(0).count, 4);
        let b = SkinBinding::new(
            &four,
            &skel,
            1,
            1,
            SkinOptions {
                weights: WeightLimit::FirstThree,
            },
        )
        .unwrap();
        assert_eq!(b.position_influence(0).count, 3);
        let bad = skin(vec![(vec![(77, 1.0)], 1)]);
        let e = SkinBinding::new(&bad, &skel, 1, 1, SkinOptions::default()).unwrap_err();
        assert!(e.to_string().contains("bone 77"), "{e}");
    }
}
