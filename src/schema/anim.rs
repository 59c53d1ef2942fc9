//! `info --json` for ANIM animations, format 0 (uncompressed) and 2 (compressed), in the
//! conformance files' field names.

use std::collections::BTreeMap;

use std::fmt::Write as _;

use serde::Serialize;

use super::anim_mp3::{Mp3AnimV0Info, Mp3AnimV1Info};
use super::f64s;
use crate::anim::{AnimError, Clip, Pose, PoseOptions, Skeleton};
use crate::formats::anim::{
    Anim, AnimCompressed, AnimUncompressed, ChannelMapIndexing, ComponentParams,
};
use crate::formats::cinf::Cinf;
use crate::formats::{Game, asset_id_string};

/// Either format's report.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum AnimInfo {
    Uncompressed(Box<UncompressedInfo>),
    Compressed(Box<CompressedInfo>),
    Mp3V0(Box<Mp3AnimV0Info>),
    Mp3V1(Box<Mp3AnimV1Info>),
}

impl AnimInfo {
    pub fn from_anim(a: &Anim) -> Self {
        match a {
            Anim::Uncompressed(a) if a.game == Game::Mp3 => {
                Self::Mp3V0(Box::new(Mp3AnimV0Info::new(a)))
            }
            Anim::Uncompressed(a) => Self::Uncompressed(Box::new(UncompressedInfo::new(a))),
            Anim::Compressed(a) => Self::Compressed(Box::new(CompressedInfo::new(a))),
            Anim::Mp3Bitstream(a) => Self::Mp3V1(Box::new(Mp3AnimV1Info::new(a))),
        }
    }
}

/// Format 0.
#[derive(Debug, Clone, Serialize)]
pub struct UncompressedInfo {
    pub format: &'static str,
    pub game: Game,
    pub anim_version: u32,
    pub duration: f64,
    pub duration_differential_state: u32,
    pub key_interval: f64,
    pub key_interval_differential_state: u32,
    pub key_count: u32,
    pub root_bone_id: u32,
    pub bone_channel_index_array_length: usize,
    /// Bone ID → bone channel, for animated bones.
    pub bone_to_channel: BTreeMap<String, u8>,
    pub translation_channel_index_array: Vec<u8>,
    pub rotation_key_count: usize,
    pub translation_key_count: usize,
    pub rotation_keys_channel_major_wxyz: Vec<[f64; 4]>,
    pub translation_keys_channel_major: Vec<[f64; 3]>,
    /// Bone ID → its channels and keys by frame.
    pub per_bone: BTreeMap<String, UncompressedBoneInfo>,
    pub warnings: Vec<String>,
    /// [MP1] the EVNT.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_id: Option<u32>,
    /// [MP2] the rotation and scale channel maps and the scale keys.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation_channel_index_array: Option<Vec<u8>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_channel_index_array: Option<Vec<u8>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_key_count: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_keys_channel_major: Option<Vec<[f64; 3]>>,
}

#[derive(Debug, Clone, Serialize)]
pub struct UncompressedBoneInfo {
    pub channel: u8,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation_channel: Option<u8>,
    /// Frame → key.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation_wxyz: Option<BTreeMap<String, [f64; 4]>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub translation_channel: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub translation: Option<BTreeMap<String, [f64; 3]>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_channel: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<BTreeMap<String, [f64; 3]>>,
}

/// Keys of frames `0..frames` that `key` finds, by frame number.
fn keys_by_frame<const N: usize>(
    frames: u32,
    key: impl Fn(u32) -> Option<[f32; N]>,
) -> BTreeMap<String, [f64; N]> {
    (0..frames)
        .filter_map(|k| key(k).map(|q| (k.to_string(), q.map(f64::from))))
        .collect()
}

impl UncompressedInfo {
    fn new(a: &AnimUncompressed) -> Self {
        let frames = a.frame_count;
        let per_bone = a
            .bones(ChannelMapIndexing::ByChannelValue)
            .unwrap_or_default()
            .into_iter()
            .map(|b| {
                let info = UncompressedBoneInfo {
                    channel: b.channel,
                    rotation_channel: b.rotation,
                    rotation_wxyz: b
                        .rotation
                        .map(|r| keys_by_frame(frames, |k| a.rotation_key(r, k))),
                    translation_channel: b.translation,
                    translation: b
                        .translation
                        .map(|t| keys_by_frame(frames, |k| a.translation_key(t, k))),
                    scale_channel: b.scale,
                    scale: b
                        .scale
                        .map(|s| keys_by_frame(frames, |k| a.scale_key(s, k))),
                };
                (b.bone_id.to_string(), info)
            })
            .collect();
        let scale = a.scale_channels.as_ref();
        Self {
            format: "ANIM",
            game: a.game,
            anim_version: 0,
            duration: f64::from(a.duration.seconds),
            duration_differential_state: a.duration.differential_state,
            key_interval: f64::from(a.interval.seconds),
            key_interval_differential_state: a.interval.differential_state,
            key_count: a.frame_count,
            root_bone_id: a.root_bone_id,
            bone_channel_index_array_length: a.bone_channels.len(),
            bone_to_channel: a
                .bone_channels
                .iter()
                .enumerate()
                .filter(|(_, c)| **c != 0xFF)
                .map(|(b, &c)| (b.to_string(), c))
                .collect(),
            translation_channel_index_array: a.translation_channels.clone(),
            rotation_key_count: a.rotation_keys.len(),
            translation_key_count: a.translation_keys.len(),
            rotation_keys_channel_major_wxyz: a.rotation_keys.iter().map(|&q| f64s(q)).collect(),
            translation_keys_channel_major: a.translation_keys.iter().map(|&t| f64s(t)).collect(),
            per_bone,
            warnings: a.warnings.clone(),
            event_id: a.evnt_id,
            rotation_channel_index_array: a.rotation_channels.clone(),
            scale_channel_index_array: scale.cloned(),
            scale_key_count: scale.map(|_| a.scale_keys.len()),
            scale_keys_channel_major: scale
                .map(|_| a.scale_keys.iter().map(|&t| f64s(t)).collect()),
        }
    }
}

/// Format 2.
#[derive(Debug, Clone, Serialize)]
pub struct CompressedInfo {
    pub format: &'static str,
    pub game: Game,
    pub anim_version: u32,
    pub scratch_size: u32,
    pub duration: f64,
    pub interval: f64,
    pub root_bone_id: u32,
    pub looping: u32,
    pub rotation_divisor: u32,
    pub translation_multiplier: f64,
    pub bone_channel_count: u32,
    pub unk_3: u32,
    pub key_bitmap_bit_count: u32,
    /// One 0/1 per frame.
    pub key_bitmap: Vec<u8>,
    pub stored_frames: Vec<u32>,
    pub bitstream_offset: usize,
    pub bitstream_bits: u64,
    pub frame_count: u32,
    pub channels: Vec<CompressedChannelInfo>,
    pub warnings: Vec<String>,
    /// [MP1]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_id: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unk_const_1: Option<u32>,
    /// [MP2]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unk_mp2_u16: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale_multiplier: Option<f64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CompressedChannelInfo {
    pub bone_id: u32,
    pub rotation: Option<ComponentInfo<RotationFrameInfo>>,
    pub translation: Option<ComponentInfo<ComponentFrameInfo>>,
    /// [MP2] only (null there when the channel has none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<Option<ComponentInfo<ComponentFrameInfo>>>,
}

/// One component's descriptor, the key deltas and each stored frame's key.
#[derive(Debug, Clone, Serialize)]
pub struct ComponentInfo<F> {
    pub key_count: u16,
    pub initial: [i16; 3],
    pub bits: [u8; 3],
    pub deltas: Vec<[i32; 3]>,
    /// Stored frame → key.
    pub frames: BTreeMap<String, F>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RotationFrameInfo {
    pub quantized_xyz: [i32; 3],
    pub wsign: u8,
    /// Dequantized in full precision (the pose path uses f32).
    pub quaternion_wxyz: [f64; 4],
}

/// A translation or scale key: quantized, and multiplied out under its own name.
#[derive(Debug, Clone, Serialize)]
pub struct ComponentFrameInfo {
    pub quantized_xyz: [i32; 3],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub translation: Option<[f64; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<[f64; 3]>,
}

impl<F> ComponentInfo<F> {
    fn new(p: ComponentParams, keys: &[[i32; 3]], frames: BTreeMap<String, F>) -> Self {
        Self {
            key_count: p.key_count,
            initial: p.initial,
            bits: p.bits,
            deltas: deltas(keys),
            frames,
        }
    }
}

/// Differences between consecutive quantized keys.
fn deltas(keys: &[[i32; 3]]) -> Vec<[i32; 3]> {
    keys.windows(2)
        .map(|w| [0, 1, 2].map(|i| w[1][i].wrapping_sub(w[0][i])))
        .collect()
}

impl CompressedInfo {
    fn new(a: &AnimCompressed) -> Self {
        let q = a.rotation_quantum();
        let component = |p: ComponentParams, keys: &[[i32; 3]], m: f32, scale: bool| {
            let frames = a
                .stored_frames
                .iter()
                .zip(keys)
                .map(|(fr, k)| {
                    let value = Some(k.map(|v| f64::from(v as f32 * m)));
                    let frame = ComponentFrameInfo {
                        quantized_xyz: *k,
                        translation: if scale { None } else { value },
                        scale: if scale { value } else { None },
                    };
                    (fr.to_string(), frame)
                })
                .collect();
            ComponentInfo::new(p, keys, frames)
        };
        let channels = a
            .channels
            .iter()
            .map(|c| {
                let rotation = c.rotation.map(|p| {
                    let xyz: Vec<[i32; 3]> = c.rotation_keys.iter().map(|k| k.0).collect();
                    let frames = a
                        .stored_frames
                        .iter()
                        .zip(&c.rotation_keys)
                        .map(|(fr, &(k, s))| {
                            let [x, y, z] = k.map(|v| (f64::from(v) * q).sin());
                            let w = (1.0 - x * x - y * y - z * z).max(0.0).sqrt()
                                * if s { -1.0 } else { 1.0 };
                            let frame = RotationFrameInfo {
                                quantized_xyz: k,
                                wsign: u8::from(s),
                                quaternion_wxyz: [w, x, y, z],
                            };
                            (fr.to_string(), frame)
                        })
                        .collect();
                    ComponentInfo::new(p, &xyz, frames)
                });
                let scale_multiplier = a.scale_multiplier.unwrap_or(1.0);
                CompressedChannelInfo {
                    bone_id: c.bone_id,
                    rotation,
                    translation: c.translation.map(|p| {
                        component(p, &c.translation_keys, a.translation_multiplier, false)
                    }),
                    scale: (a.game == Game::Mp2).then(|| {
                        c.scale
                            .map(|p| component(p, &c.scale_keys, scale_multiplier, true))
                    }),
                }
            })
            .collect();
        let mp1 = a.game == Game::Mp1;
        Self {
            format: "ANIM",
            game: a.game,
            anim_version: 2,
            scratch_size: a.scratch_size,
            duration: f64::from(a.duration),
            interval: f64::from(a.interval),
            root_bone_id: a.root_bone_id,
            looping: a.looping,
            rotation_divisor: a.rotation_divisor,
            translation_multiplier: f64::from(a.translation_multiplier),
            bone_channel_count: a.bone_channel_count,
            unk_3: a.unknown_3,
            key_bitmap_bit_count: a.key_bitmap_bit_count,
            key_bitmap: (0..a.key_bitmap_bit_count)
                .map(|i| {
                    u8::from(
                        a.is_stored(i)
                            && (i > 0 || a.key_bitmap.first().is_some_and(|w| w & 1 == 1)),
                    )
                })
                .collect(),
            stored_frames: a.stored_frames.clone(),
            bitstream_offset: a.bitstream_offset,
            bitstream_bits: a.bitstream_bits,
            frame_count: a.frame_count(),
            channels,
            warnings: a.warnings.clone(),
            event_id: mp1.then_some(a.evnt_id),
            unk_const_1: mp1.then_some(a.unknown_1),
            unk_mp2_u16: (!mp1).then_some(a.unknown_mp2),
            scale_multiplier: (!mp1).then(|| f64::from(a.scale_multiplier.unwrap_or(1.0))),
        }
    }
}

/// `pose --json`: every bone of a skeleton posed by a clip at a time.
#[derive(Debug, Clone, Serialize)]
pub struct PoseInfo {
    pub time: f64,
    /// The clip time the pose was sampled at (after looping or clamping).
    pub sampled_time: f64,
    pub game: Game,
    pub anim_format: u32,
    pub duration: f64,
    pub looping: bool,
    pub bones: Vec<PosedBoneInfo>,
    /// The animation's, then the skeleton's.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PosedBoneInfo {
    pub id: u32,
    pub name: String,
    pub parent_id: Option<u32>,
    pub animated: bool,
    pub local: TransformInfo,
    pub model: TransformInfo,
    pub model_from_bone_rows: [[f64; 4]; 4],
}

#[derive(Debug, Clone, Serialize)]
pub struct TransformInfo {
    pub rotation_wxyz: [f64; 4],
    pub translation: [f64; 3],
    pub scale: [f64; 3],
}

impl TransformInfo {
    fn new(rotation: glam::Quat, translation: glam::Vec3, scale: glam::Vec3) -> Self {
        Self {
            rotation_wxyz: f64s([rotation.w, rotation.x, rotation.y, rotation.z]),
            translation: f64s(translation.to_array()),
            scale: f64s(scale.to_array()),
        }
    }
}

/// `pose`'s readable text: every bone's local rotation (w, x, y, z), translation, scale and
/// its model-space matrix, animated bones starred.
pub fn pose_text(
    skeleton: &Skeleton,
    clip: &Clip,
    pose: &Pose,
    anim: &Anim,
    cinf: &Cinf,
    time: f32,
    options: &PoseOptions,
) -> String {
    let sampled_time = clip.normalize_time(time, options.force_loop);
    let wxyz = |q: glam::Quat| [q.w, q.x, q.y, q.z];
    let mut out = String::new();
    let _ = writeln!(
        out,
        "pose at t = {time} s (sampled at {sampled_time:.4} s of {:.4} s), {} bones",
        clip.duration,
        skeleton.len()
    );
    for (i, b) in skeleton.bones().iter().enumerate() {
        let l = pose.local[i];
        let [w, x, y, z] = wxyz(l.rotation);
        let t = l.translation;
        let s = l.scale;
        let _ = writeln!(
            out,
            "bone {:>3} {:<20}{} rot (w {w:.5}, x {x:.5}, y {y:.5}, z {z:.5})  trans ({:.5}, {:.5}, {:.5})  scale ({:.3}, {:.3}, {:.3})",
            b.id,
            if b.name.is_empty() {
                "(unnamed)"
            } else {
                &b.name
            },
            if clip.channel_of_bone(b.id).is_some() {
                "*"
            } else {
                " "
            },
            t.x,
            t.y,
            t.z,
            s.x,
            s.y,
            s.z
        );
        for r in pose.model_from_bone(i).transpose().to_cols_array_2d() {
            let _ = writeln!(
                out,
                "      [{:>9.5} {:>9.5} {:>9.5} {:>9.5}]",
                r[0], r[1], r[2], r[3]
            );
        }
    }
    let _ = writeln!(
        out,
        "(* = animated; matrices are model_from_bone, row-major)"
    );
    for w in anim.warnings().iter().chain(&cinf.warnings) {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

impl PoseInfo {
    pub fn new(
        skeleton: &Skeleton,
        clip: &Clip,
        pose: &Pose,
        anim: &Anim,
        cinf: &Cinf,
        time: f32,
        options: &PoseOptions,
    ) -> Self {
        let bones = skeleton
            .bones()
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let (l, m) = (pose.local[i], pose.model[i]);
                PosedBoneInfo {
                    id: b.id,
                    name: b.name.clone(),
                    parent_id: b.parent.map(|p| skeleton.bones()[p].id),
                    animated: clip.channel_of_bone(b.id).is_some(),
                    local: TransformInfo::new(l.rotation, l.translation, l.scale),
                    model: TransformInfo::new(m.rotation, m.translation, m.scale),
                    model_from_bone_rows: pose
                        .model_from_bone(i)
                        .transpose()
                        .to_cols_array_2d()
                        .map(|r| r.map(f64::from)),
                }
            })
            .collect();
        Self {
            time: f64::from(time),
            sampled_time: f64::from(clip.normalize_time(time, options.force_loop)),
            game: anim.game(),
            anim_format: anim_format(anim),
            duration: f64::from(clip.duration),
            looping: clip.looping || options.force_loop,
            bones,
            warnings: anim
                .warnings()
                .iter()
                .chain(&cinf.warnings)
                .cloned()
                .collect(),
        }
    }
}

/// The format (MP1/MP2) or version (MP3) number.
fn anim_format(a: &Anim) -> u32 {
    match a {
        Anim::Uncompressed(_) => 0,
        Anim::Mp3Bitstream(_) => 1,
        Anim::Compressed(_) => 2,
    }
}

/// The animation as readable text: timing, storage and the animated bones.
pub fn text(a: &Anim) -> Result<String, AnimError> {
    let clip = Clip::from_anim(a)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ANIM format {} ({}): {:.4} s, {} frames at {:.4} s, {} stored, root bone {}, {}",
        anim_format(a),
        super::game_name(a.game()),
        clip.duration,
        clip.frame_count,
        clip.interval,
        clip.key_frames.len(),
        clip.root_bone_id,
        if clip.looping {
            "looping"
        } else {
            "not looping"
        }
    );
    if let Anim::Compressed(c) = &a {
        let _ = writeln!(
            out,
            "rotation divisor {}, translation multiplier {}{}; bitstream {} bits at {:#x}",
            c.rotation_divisor,
            c.translation_multiplier,
            c.scale_multiplier
                .map(|m| format!(", scale multiplier {m}"))
                .unwrap_or_default(),
            c.bitstream_bits,
            c.bitstream_offset
        );
        let bitmap: String = (0..c.frame_count())
            .map(|i| if c.is_stored(i) { '1' } else { '.' })
            .collect();
        let _ = writeln!(out, "key bitmap: {bitmap}");
    }
    if let Anim::Mp3Bitstream(b) = &a {
        let _ = writeln!(
            out,
            "translation multiplier {}, scale multiplier {}; key times {:?}",
            b.translation_multiplier, b.scale_multiplier, b.key_times
        );
    }
    if let Some(e) = clip.evnt_id {
        let _ = writeln!(
            out,
            "events: {}",
            if e == u32::MAX {
                "none".to_string()
            } else {
                asset_id_string(e.into(), false)
            }
        );
    }
    for c in &clip.channels {
        let mut parts = Vec::new();
        if c.rotation.is_some() {
            parts.push("rotation");
        }
        if c.translation.is_some() {
            parts.push("translation");
        }
        if c.scale.is_some() {
            parts.push("scale");
        }
        let _ = writeln!(out, "  bone {:>3}: {}", c.bone_id, parts.join(" + "));
    }
    super::warnings_text(&mut out, a.warnings());
    Ok(out)
}
