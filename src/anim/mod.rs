//! Skeletal animation on the CPU (glam only, no GPU): skeletons from CINF, clips from ANIM,
//! sampling, posing, skinning, and the format-2 encoder.
//!
//! Typical use (what a renderer does per frame):
//!
//! ```no_run
//! # fn demo(cinf: &[u8], anim: &[u8], cskr: &[u8], positions: &[glam::Vec3]) -> Result<(), tevscope::anim::AnimError> {
//! use tevscope::anim::{Clip, ClipBinding, Pose, PoseOptions, Skeleton, SkinBinding, SkinOptions};
//! use tevscope::formats::{anim::Anim, cinf::Cinf, cskr::Cskr};
//! let skeleton = Skeleton::from_cinf(&Cinf::parse(cinf, "x.CINF", None)?)?;
//! let clip = Clip::from_anim(&Anim::parse(anim, "x.ANIM", None)?)?;
//! let binding = ClipBinding::new(&clip, &skeleton)?;
//! let skin = SkinBinding::new(&Cskr::parse(cskr, "x.CSKR", None)?, &skeleton, positions.len(), positions.len(), SkinOptions::default())?;
//! let options = PoseOptions::default();
//! let mut pose = Pose::bind(&skeleton, &options);
//! pose.sample(&skeleton, &clip, &binding, 0.5, &options);
//! let palette = pose.skin_palette(&skeleton, &options);
//! let gpu_bones = palette.to_gpu();                 // upload per frame
//! let gpu_influences = skin.position_influences();   // upload once (per position index)
//! let cpu = tevscope::anim::skin_positions(&skin, &palette, positions); // CPU reference
//! # let _ = (gpu_bones, gpu_influences, cpu); Ok(()) }
//! ```

pub mod banks;
pub mod clip;
pub mod encode;
pub mod meta;
pub mod pose;
pub mod skeleton;
pub mod skinning;

pub use banks::{BankedSkin, MP3_NORMAL_MODE, skin_vertex_normals, skin_vertex_positions};
pub use clip::{Channel, ChannelSample, Clip, ClipKind, SlerpMode, slerp};
pub use encode::{EncodeOptions, encode_compressed, encode_uncompressed};
pub use meta::{MetaClip, bake};
pub use pose::{
    BindRotations, ClipBinding, GpuBoneMatrices, Pose, PoseOptions, RootMotion, SkinPalette,
    Transform,
};
pub use skeleton::{Bone, Skeleton};
pub use skinning::{
    NormalMode, SkinBinding, SkinOptions, VertexInfluence, WeightLimit, skin_normals,
    skin_normals_into, skin_positions, skin_positions_into,
};

use crate::formats::FormatError;

/// Errors of the animation layer.
#[derive(Debug, thiserror::Error)]
pub enum AnimError {
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error("the animation drives bone {bone_id}, which is not among the skeleton's {bones} bones")]
    UnknownBone { bone_id: u32, bones: usize },
    #[error("skeleton: {0}")]
    Skeleton(String),
    #[error("animation: {0}")]
    Clip(String),
    #[error("skin: {0}")]
    Skin(String),
    #[error("encoder: {0}")]
    Encode(String),
}
