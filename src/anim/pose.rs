//! Posing a skeleton with a clip (formats.md §7.5): local transforms → model-space bone
//! transforms → skinning matrices.
//!
//! - Local: a channel's rotation replaces identity, its translation **replaces** the bind
//!   offset (it is a full parent-relative offset), its scale replaces 1.
//! - Model space, from the roots: `R = R_parent · R_local`,
//!   `P = P_parent + R_parent · (S_parent ⊙ offset_local)`; scale is not inherited.
//! - Skinning: `model_from_bind = model_from_bone · bone_from_bind`, where the bind is a
//!   translation only (the MP2 alternative adds the CINF rotation).

use glam::{Mat3, Mat4, Quat, Vec3};

use super::AnimError;
use super::clip::{Clip, SlerpMode};
use super::skeleton::Skeleton;

/// Whether bone 3's animation moves the character.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum RootMotion {
    /// Apply it: the character moves as authored (one editor). **Default.**
    #[default]
    Apply,
    /// Skip bone 3's channel like the game (which turns it into actor motion).
    Skip,
}

/// What to do with the MP2 CINF quaternions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BindRotations {
    /// Ignore them (one editor). **Default.**
    #[default]
    Ignore,
    /// Put the CINF rotation into the bind transform and use the local rotation for bones
    /// without a rotation channel.
    Use,
}

/// Every switch that affects a pose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PoseOptions {
    pub slerp: SlerpMode,
    pub root_motion: RootMotion,
    /// Loop even if the file's looping flag is clear (the viewer's loop option).
    pub force_loop: bool,
    pub bind_rotations: BindRotations,
}

/// Rotation, translation and scale (applied scale first, then rotation, then translation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Transform {
    pub rotation: Quat,
    pub translation: Vec3,
    pub scale: Vec3,
}

impl Default for Transform {
    fn default() -> Self {
        Self {
            rotation: Quat::IDENTITY,
            translation: Vec3::ZERO,
            scale: Vec3::ONE,
        }
    }
}

impl Transform {
    /// As a matrix: `T · R · S`.
    pub fn to_mat4(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.translation)
    }
}

/// Which skeleton bone each clip channel drives, resolved once per (clip, skeleton).
#[derive(Debug, Clone, PartialEq)]
pub struct ClipBinding {
    /// Skeleton bone index per clip channel.
    pub bone_of_channel: Vec<usize>,
}

impl ClipBinding {
    /// Fails when a channel animates a bone the skeleton does not have.
    pub fn new(clip: &Clip, skeleton: &Skeleton) -> Result<ClipBinding, AnimError> {
        let bone_of_channel = clip
            .channels
            .iter()
            .map(|c| {
                skeleton.index_of(c.bone_id).ok_or(AnimError::UnknownBone {
                    bone_id: c.bone_id,
                    bones: skeleton.len(),
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(ClipBinding { bone_of_channel })
    }
}

/// A posed skeleton: local and model-space transforms per bone (indexed like
/// [`Skeleton::bones`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Pose {
    /// Parent-relative transforms.
    pub local: Vec<Transform>,
    /// Model-space transforms (`model_from_bone`); the scale is the bone's own.
    pub model: Vec<Transform>,
}

impl Pose {
    /// The bind pose.
    pub fn bind(skeleton: &Skeleton, options: &PoseOptions) -> Pose {
        let local = bind_locals(skeleton, options);
        let mut pose = Pose {
            model: vec![Transform::default(); local.len()],
            local,
        };
        pose.update_model(skeleton);
        pose
    }

    /// Samples `clip` at time `t` into this pose (resized to the skeleton if needed).
    pub fn sample(
        &mut self,
        skeleton: &Skeleton,
        clip: &Clip,
        binding: &ClipBinding,
        t: f32,
        options: &PoseOptions,
    ) {
        if self.local.len() != skeleton.len() {
            *self = Pose::bind(skeleton, options);
        }
        // Start from the bind pose: bones without a channel keep it.
        for (l, b) in self.local.iter_mut().zip(skeleton.bones()) {
            *l = Transform {
                rotation: match options.bind_rotations {
                    BindRotations::Ignore => Quat::IDENTITY,
                    BindRotations::Use => b.bind_local_rotation,
                },
                translation: b.local_offset,
                scale: Vec3::ONE,
            };
        }
        let t = clip.normalize_time(t, options.force_loop);
        if let Some(p) = clip.key_position(t) {
            for (channel, &bone) in clip.channels.iter().zip(&binding.bone_of_channel) {
                if options.root_motion == RootMotion::Skip
                    && skeleton.bones()[bone].id == skeleton.root_motion_id()
                {
                    continue;
                }
                let s = clip.sample_channel(channel, p, options.slerp);
                let l = &mut self.local[bone];
                if let Some(r) = s.rotation {
                    l.rotation = r;
                }
                if let Some(t) = s.translation {
                    l.translation = t;
                }
                if let Some(sc) = s.scale {
                    l.scale = sc;
                }
            }
        }
        self.update_model(skeleton);
    }

    /// Recomputes model-space transforms from the local ones.
    pub fn update_model(&mut self, skeleton: &Skeleton) {
        self.model.resize(self.local.len(), Transform::default());
        for (i, b) in skeleton.bones().iter().enumerate() {
            let l = self.local[i];
            self.model[i] = match b.parent {
                // Bones are in evaluation order, so the parent is already final.
                Some(p) => {
                    let parent = self.model[p];
                    Transform {
                        rotation: (parent.rotation * l.rotation).normalize(),
                        translation: parent.translation
                            + parent.rotation * (parent.scale * l.translation),
                        scale: l.scale,
                    }
                }
                None => l,
            };
        }
    }

    /// Bone space → model space for bone `index`.
    pub fn model_from_bone(&self, index: usize) -> Mat4 {
        self.model[index].to_mat4()
    }

    /// Skinning matrices for this pose.
    pub fn skin_palette(&self, skeleton: &Skeleton, options: &PoseOptions) -> SkinPalette {
        let with_rotation = options.bind_rotations == BindRotations::Use;
        let mut model_from_bind = Vec::with_capacity(self.model.len());
        let mut normal_from_bind = Vec::with_capacity(self.model.len());
        for (i, m) in self.model.iter().enumerate() {
            let b = &skeleton.bones()[i];
            // bone_from_bind is the inverse of the bind transform: a translation by
            // −bind_position (times the inverse bind rotation in the MP2 alternative).
            // The game treats bone 3's bind position as 0 here; we keep the general rule so
            // that the bind pose always skins to identity (bone 3 sits at the origin in the
            // game's skeletons, where both agree).
            let (bind_rotation_inv, bone_from_bind) = if with_rotation {
                let inv = b.bind_rotation.inverse();
                (
                    inv,
                    Mat4::from_quat(inv) * Mat4::from_translation(-b.bind_position),
                )
            } else {
                (Quat::IDENTITY, Mat4::from_translation(-b.bind_position))
            };
            model_from_bind.push(m.to_mat4() * bone_from_bind);
            normal_from_bind.push(Mat3::from_quat(
                (m.rotation * bind_rotation_inv).normalize(),
            ));
        }
        SkinPalette {
            model_from_bind,
            normal_from_bind,
        }
    }
}

fn bind_locals(skeleton: &Skeleton, options: &PoseOptions) -> Vec<Transform> {
    skeleton
        .bones()
        .iter()
        .map(|b| Transform {
            rotation: match options.bind_rotations {
                BindRotations::Ignore => Quat::IDENTITY,
                BindRotations::Use => b.bind_local_rotation,
            },
            translation: b.local_offset,
            scale: Vec3::ONE,
        })
        .collect()
}

/// Per-bone skinning matrices, indexed like [`Skeleton::bones`].
#[derive(Debug, Clone, PartialEq)]
pub struct SkinPalette {
    /// Bind-pose model space → posed model space (pose × inverse bind), for positions.
    pub model_from_bind: Vec<Mat4>,
    /// The rotation part only, for normals (the game rotates normals, no inverse-transpose).
    pub normal_from_bind: Vec<Mat3>,
}

/// One bone of a [`SkinPalette`] laid out for a GPU storage/uniform buffer: two row-major
/// 3×4 matrices (three `vec4` rows each); `p' = (dot(row0, p1), dot(row1, p1), dot(row2, p1))`
/// with `p1 = (p, 1)`. The normal matrix has a zero fourth column.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuBoneMatrices {
    pub model_from_bind: [[f32; 4]; 3],
    pub normal_from_bind: [[f32; 4]; 3],
}

fn rows_3x4(m: &Mat4) -> [[f32; 4]; 3] {
    let r = m.transpose();
    [
        r.x_axis.to_array(),
        r.y_axis.to_array(),
        r.z_axis.to_array(),
    ]
}

impl SkinPalette {
    /// The palette as GPU rows (see [`GpuBoneMatrices`]).
    pub fn to_gpu(&self) -> Vec<GpuBoneMatrices> {
        self.model_from_bind
            .iter()
            .zip(&self.normal_from_bind)
            .map(|(m, n)| GpuBoneMatrices {
                model_from_bind: rows_3x4(m),
                normal_from_bind: rows_3x4(&Mat4::from_mat3(*n)),
            })
            .collect()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::anim::clip::{Channel, ClipKind};
    use crate::formats::Game;
    use crate::formats::cinf::{BoneName, Cinf, CinfBone};

    fn skeleton(bones: &[(u32, u32, [f32; 3])]) -> Skeleton {
        let cinf = Cinf {
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
            bone_names: vec![BoneName {
                name: "root".into(),
                bone_id: 3,
            }],
            trailing: vec![],
            warnings: vec![],
        };
        Skeleton::from_cinf(&cinf).unwrap()
    }

    fn one_frame_clip(channels: Vec<Channel>) -> Clip {
        Clip {
            kind: ClipKind::Compressed,
            game: Game::Mp1,
            duration: 0.0,
            interval: 0.0,
            frame_count: 1,
            looping: false,
            root_bone_id: 3,
            key_frames: vec![0],
            key_times: None,
            channels,
            evnt_id: None,
        }
    }

    fn chan(bone_id: u32, rot: Option<Quat>, t: Option<Vec3>, s: Option<Vec3>) -> Channel {
        Channel {
            bone_id,
            rotation: rot.map(|r| vec![r]),
            translation: t.map(|t| vec![t]),
            scale: s.map(|s| vec![s]),
        }
    }

    fn close(a: Vec3, b: Vec3) -> bool {
        a.abs_diff_eq(b, 1e-5)
    }

    #[test]
    fn three_bone_chain_by_hand() {
        // 3 at the origin, 4 one unit up Z, 5 one more unit up Z.
        let skel = skeleton(&[
            (3, 2, [0.0, 0.0, 0.0]),
            (4, 3, [0.0, 0.0, 1.0]),
            (5, 4, [0.0, 0.0, 2.0]),
        ]);
        // Bone 3 turns 90° about X (Z → −Y); bone 4 turns 90° about Z; bone 5 is unanimated.
        let clip = one_frame_clip(vec![
            chan(
                3,
                Some(Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)),
                None,
                None,
            ),
            chan(
                4,
                Some(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2)),
                None,
                None,
            ),
        ]);
        let opts = PoseOptions::default();
        let binding = ClipBinding::new(&clip, &skel).unwrap();
        let mut pose = Pose::bind(&skel, &opts);
        pose.sample(&skel, &clip, &binding, 0.0, &opts);
        // Bone 4: P = 0 + Rx(90°)·(0,0,1) = (0,−1,0).
        assert!(close(pose.model[1].translation, Vec3::new(0.0, -1.0, 0.0)));
        // Bone 5: P = P4 + (Rx·Rz)·(0,0,1); Rz leaves Z alone, Rx sends it to −Y → (0,−2,0).
        assert!(close(pose.model[2].translation, Vec3::new(0.0, -2.0, 0.0)));
        // A point one unit along +X of bone 5 in bind space: (1,0,2) → R5·(1,0,0) + P5.
        // R5 = Rx(90)·Rz(90): X → Y (Rz) → Z (Rx), so the point lands at (0,−2,1).
        let palette = pose.skin_palette(&skel, &opts);
        let p = palette.model_from_bind[2].transform_point3(Vec3::new(1.0, 0.0, 2.0));
        assert!(close(p, Vec3::new(0.0, -2.0, 1.0)), "{p}");
        assert!(close(palette.normal_from_bind[2] * Vec3::X, Vec3::Z));
    }

    #[test]
    fn translation_replaces_the_bind_offset_and_scale_is_not_inherited() {
        let skel = skeleton(&[
            (3, 2, [0.0; 3]),
            (4, 3, [0.0, 0.0, 1.0]),
            (5, 4, [0.0, 0.0, 2.0]),
        ]);
        let clip = one_frame_clip(vec![chan(
            4,
            None,
            Some(Vec3::new(2.0, 0.0, 0.0)),
            Some(Vec3::splat(2.0)),
        )]);
        let opts = PoseOptions::default();
        let binding = ClipBinding::new(&clip, &skel).unwrap();
        let mut pose = Pose::bind(&skel, &opts);
        pose.sample(&skel, &clip, &binding, 0.0, &opts);
        // Bone 4 sits at its channel translation, not bind offset + translation.
        assert!(close(pose.model[1].translation, Vec3::new(2.0, 0.0, 0.0)));
        // Bone 5's offset (0,0,1) is scaled by its parent's scale 2; its own scale stays 1.
        assert!(close(pose.model[2].translation, Vec3::new(2.0, 0.0, 2.0)));
        assert_eq!(pose.model[2].scale, Vec3::ONE);
        assert_eq!(pose.model[1].scale, Vec3::splat(2.0));
    }

    #[test]
    fn bind_pose_skins_to_identity_and_root_motion_can_be_skipped() {
        let skel = skeleton(&[(3, 2, [0.5, 0.0, 0.0]), (4, 3, [0.5, 1.0, 1.0])]);
        let opts = PoseOptions::default();
        let pose = Pose::bind(&skel, &opts);
        for m in pose.skin_palette(&skel, &opts).model_from_bind {
            assert!(m.abs_diff_eq(Mat4::IDENTITY, 1e-6), "{m}");
        }
        let clip = one_frame_clip(vec![chan(3, None, Some(Vec3::new(5.0, 0.0, 0.0)), None)]);
        let binding = ClipBinding::new(&clip, &skel).unwrap();
        let mut moved = pose.clone();
        moved.sample(&skel, &clip, &binding, 0.0, &opts);
        assert!(close(moved.model[1].translation, Vec3::new(5.0, 1.0, 1.0)));
        let skip = PoseOptions {
            root_motion: RootMotion::Skip,
            ..opts
        };
        let mut still = pose.clone();
        still.sample(&skel, &clip, &binding, 0.0, &skip);
        assert_eq!(still, pose);
    }

    #[test]
    fn unknown_bones_are_rejected() {
        let skel = skeleton(&[(3, 2, [0.0; 3])]);
        let clip = one_frame_clip(vec![chan(42, Some(Quat::IDENTITY), None, None)]);
        let e = ClipBinding::new(&clip, &skel).unwrap_err();
        assert!(e.to_string().contains("bone 42"), "{e}");
    }

    #[test]
    fn gpu_rows_match_the_matrix() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(1.0, 2.0, 3.0),
            Quat::from_rotation_y(0.3),
            Vec3::new(4.0, 5.0, 6.0),
        );
        let palette = SkinPalette {
            model_from_bind: vec![m],
            normal_from_bind: vec![Mat3::from_quat(Quat::from_rotation_y(0.3))],
        };
        let g = palette.to_gpu()[0];
        let p = Vec3::new(0.1, -0.2, 0.7);
        let p1 = p.extend(1.0);
        let via_rows = Vec3::new(
            glam::Vec4::from(g.model_from_bind[0]).dot(p1),
            glam::Vec4::from(g.model_from_bind[1]).dot(p1),
            glam::Vec4::from(g.model_from_bind[2]).dot(p1),
        );
        assert!(close(via_rows, m.transform_point3(p)));
    }
}
