//! MP3 skinning through matrix banks (formats.md §13.4).
//!
//! An MP3 skin does not bind positions by index: each surface names a bank (its s16 at
//! +0x2C), each vertex a slot (PNMTXIDX / 3), and the bank's slot names the weight group.
//! One position can therefore appear with different groups, so influences are per *vertex*
//! of a surface. A model reader passes each surface's bank index and its vertices'
//! PNMTXIDX to [`BankedSkin::surface_influences`]; the result skins those vertices with
//! [`skin_vertex_positions`] / [`skin_vertex_normals`] (CPU) or goes to the GPU like the
//! per-position influences of MP1/MP2.

use glam::Vec3;

use super::AnimError;
use super::pose::SkinPalette;
use super::skeleton::Skeleton;
use super::skinning::{NormalMode, SkinOptions, VertexInfluence, group_influences};
use crate::formats::cskr::Cskr;

/// An MP3 skin resolved against a skeleton: one influence per group, the banks, and the
/// root fallback.
#[derive(Debug, Clone, PartialEq)]
pub struct BankedSkin {
    cskr: Cskr,
    influences: Vec<VertexInfluence>,
    root: Option<VertexInfluence>,
    pub warnings: Vec<String>,
}

/// How MP3 normals are skinned by default: GX loads one blended matrix per slot, so the
/// normal is blended with the same weights (an inference, formats.md §13.4 Default).
pub const MP3_NORMAL_MODE: NormalMode = NormalMode::Blended;

impl BankedSkin {
    /// Fails when a group weights a bone the skeleton lacks.
    pub fn new(cskr: &Cskr, skeleton: &Skeleton, options: SkinOptions) -> Result<Self, AnimError> {
        let mut warnings = Vec::new();
        let (influences, root) = group_influences(cskr, skeleton, options, &mut warnings)?;
        Ok(Self {
            cskr: cskr.clone(),
            influences,
            root,
            warnings,
        })
    }

    /// The influence of a vertex with `pnmtxidx` on a surface using bank `bank`; a vertex
    /// the banks do not bind (negative bank, no PNMTXIDX, an empty slot, a group out of
    /// range) takes the root, and the reason is returned.
    pub fn influence(
        &self,
        bank: i16,
        pnmtxidx: Option<u8>,
    ) -> Result<(VertexInfluence, Option<String>), AnimError> {
        match self.cskr.bank_group(bank, pnmtxidx) {
            Ok(g) => Ok((self.influences[g], None)),
            Err(why) => match self.root {
                Some(r) => Ok((r, Some(why))),
                None => Err(AnimError::Skin(format!(
                    "{why}, and the skeleton has no root to bind the vertex to"
                ))),
            },
        }
    }

    /// Influences of a surface's vertices, in vertex order. Root fallbacks are summarised
    /// in one warning per surface (count and the first reason).
    pub fn surface_influences(
        &self,
        bank: i16,
        pnmtxidx: impl IntoIterator<Item = Option<u8>>,
    ) -> Result<(Vec<VertexInfluence>, Option<String>), AnimError> {
        let mut out = Vec::new();
        let mut unbound = 0usize;
        let mut first = None;
        for m in pnmtxidx {
            let (inf, why) = self.influence(bank, m)?;
            if let Some(why) = why {
                unbound += 1;
                first.get_or_insert(why);
            }
            out.push(inf);
        }
        let warning = first.map(|why| {
            format!(
                "bank {bank}: {unbound} of {} vertices bound to the root ({why})",
                out.len()
            )
        });
        Ok((out, warning))
    }
}

/// Skins per-vertex positions with per-vertex influences: `Σ wᵢ · model_from_bindᵢ · v`.
pub fn skin_vertex_positions(
    influences: &[VertexInfluence],
    palette: &SkinPalette,
    positions: &[Vec3],
) -> Vec<Vec3> {
    positions
        .iter()
        .zip(influences)
        .map(|(&v, inf)| inf.skin_position(palette, v))
        .collect()
}

/// Skins per-vertex normals with per-vertex influences.
pub fn skin_vertex_normals(
    influences: &[VertexInfluence],
    palette: &SkinPalette,
    normals: &[Vec3],
    mode: NormalMode,
) -> Vec<Vec3> {
    normals
        .iter()
        .zip(influences)
        .map(|(&n, inf)| inf.skin_normal(palette, n, mode))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::anim::pose::{Pose, PoseOptions};
    use crate::formats::Game;
    use crate::formats::cinf::{Cinf, CinfBone};
    use crate::formats::cskr::{BoneWeight, CskrFooter, WeightGroup};
    use glam::Quat;

    /// Root 0 at the origin, bone 1 at z = 1 (child of 0), bone 2 at x = 1 (child of 0).
    fn skeleton() -> Skeleton {
        let bone = |id, parent_id, position| CinfBone {
            id,
            parent_id,
            position,
            rotation: Some([1.0, 0.0, 0.0, 0.0]),
            local_rotation: Some([1.0, 0.0, 0.0, 0.0]),
            linked_bone_ids: vec![],
        };
        Skeleton::from_cinf(&Cinf {
            game: Game::Mp3,
            bones: vec![
                bone(0, 97, [0.0; 3]),
                bone(1, 0, [0.0, 0.0, 1.0]),
                bone(2, 0, [1.0, 0.0, 0.0]),
            ],
            build_order: vec![],
            bone_names: vec![],
            trailing: vec![],
            warnings: vec![],
        })
        .unwrap()
    }

    /// Group 0 = bone 1; group 1 = bone 2; group 2 = half each. Bank 0 = [0, 1, 2, −1…],
    /// bank 1 = [2, 1, 0, −1…].
    fn skin() -> Cskr {
        let g = |w: &[(u32, f32)]| WeightGroup {
            weights: w
                .iter()
                .map(|&(bone_id, weight)| BoneWeight { bone_id, weight })
                .collect(),
            vertex_count: 0,
        };
        let mut banks = vec![-1i16; 20];
        banks[..3].copy_from_slice(&[0, 1, 2]);
        banks[10..13].copy_from_slice(&[2, 1, 0]);
        Cskr {
            game: Game::Mp3,
            skin_version: Some(1),
            groups: vec![g(&[(1, 1.0)]), g(&[(2, 1.0)]), g(&[(1, 0.5), (2, 0.5)])],
            footer: CskrFooter::Mp3 {
                matrix_banks: banks,
                tail: Some(vec![]),
            },
            trailing: vec![],
            warnings: vec![],
        }
    }

    #[test]
    fn a_surface_bank_selects_each_vertex_group() {
        let sk = skeleton();
        let skin = BankedSkin::new(&skin(), &sk, SkinOptions::default()).unwrap();
        // Pose: bone 1 turns 90° about X; bone 2 moves +1 along Y.
        let options = PoseOptions::default();
        let mut pose = Pose::bind(&sk, &options);
        let (b1, b2) = (sk.index_of(1).unwrap(), sk.index_of(2).unwrap());
        pose.local[b1].rotation = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
        pose.local[b2].translation = Vec3::new(1.0, 1.0, 0.0);
        pose.update_model(&sk);
        let palette = pose.skin_palette(&sk, &options);

        // A synthetic mesh: one position, used by three vertices of two surfaces.
        let p = Vec3::new(0.0, 0.0, 2.0);
        let (s0, w0) = skin
            .surface_influences(0, [Some(0), Some(3), Some(6)])
            .unwrap();
        let (s1, w1) = skin
            .surface_influences(1, [Some(0), Some(3), Some(6)])
            .unwrap();
        assert!(w0.is_none() && w1.is_none());
        let a = skin_vertex_positions(&s0, &palette, &[p; 3]);
        let b = skin_vertex_positions(&s1, &palette, &[p; 3]);
        // Bone 1 rotates (0, 0, 1) about its joint at z = 1 → (0, −1, 1); bone 2 shifts +Y.
        let by_bone1 = Vec3::new(0.0, -1.0, 1.0);
        let by_bone2 = Vec3::new(0.0, 1.0, 2.0);
        let half = (by_bone1 + by_bone2) * 0.5;
        for (got, want) in a.iter().zip([by_bone1, by_bone2, half]) {
            assert!(got.abs_diff_eq(want, 1e-5), "bank 0: {got} vs {want}");
        }
        // Bank 1 reverses the slots: the same PNMTXIDX reach other groups.
        for (got, want) in b.iter().zip([half, by_bone2, by_bone1]) {
            assert!(got.abs_diff_eq(want, 1e-5), "bank 1: {got} vs {want}");
        }
        // Normals: the blended default renormalises the half-and-half vertex.
        let n = skin_vertex_normals(&s0, &palette, &[Vec3::Z; 3], MP3_NORMAL_MODE);
        assert!(n[0].abs_diff_eq(Vec3::NEG_Y, 1e-5), "{}", n[0]);
        assert!(n[1].abs_diff_eq(Vec3::Z, 1e-5));
        assert!((n[2].length() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn unbound_vertices_take_the_root_with_one_warning() {
        let sk = skeleton();
        let skin = BankedSkin::new(&skin(), &sk, SkinOptions::default()).unwrap();
        let root = sk.index_of(0).unwrap() as u32;
        // Slot 3 is empty (−1), a missing PNMTXIDX, and bank 5 does not exist.
        let (inf, w) = skin
            .surface_influences(0, [Some(9), None, Some(0)])
            .unwrap();
        assert_eq!(inf[0].bones[0], root);
        assert_eq!(inf[1].bones[0], root);
        assert_eq!(inf[2].bones[0], sk.index_of(1).unwrap() as u32);
        assert!(
            w.unwrap()
                .starts_with("bank 0: 2 of 3 vertices bound to the root")
        );
        let (inf, w) = skin.surface_influences(5, [Some(0)]).unwrap();
        assert_eq!(inf[0].bones[0], root);
        assert!(w.unwrap().contains("bank index 5"));
        // A group naming a missing bone fails the binding.
        let mut bad = self::skin();
        bad.groups[0].weights[0].bone_id = 42;
        assert!(BankedSkin::new(&bad, &sk, SkinOptions::default()).is_err());
    }
}
