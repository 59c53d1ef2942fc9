//! `info --json` for MP3 ANIMs (formats.md §13.6), in the MP3 conformance files' field
//! names: version 0 (the MP2 format-0 layout plus a u16) and version 1 (the bitstream).

use std::collections::BTreeMap;

use serde::Serialize;

use super::f64s;
use crate::formats::Game;
use crate::formats::anim::{AnimUncompressed, ChannelMapIndexing};
use crate::formats::anim_mp3::{AnimBitstream, ComponentKind};

/// One animated bone's keys, in key order (`null` for a missing channel).
#[derive(Debug, Clone, Serialize)]
pub struct BoneKeysInfo {
    pub rot: Option<Vec<[f64; 4]>>,
    pub trans: Option<Vec<[f64; 3]>>,
    pub scale: Option<Vec<[f64; 3]>>,
}

fn list<const N: usize>(keys: Option<Vec<[f32; N]>>) -> Option<Vec<[f64; N]>> {
    keys.map(|k| k.into_iter().map(f64s).collect())
}

/// Version 0.
#[derive(Debug, Clone, Serialize)]
pub struct Mp3AnimV0Info {
    pub format: &'static str,
    pub game: Game,
    pub version: u32,
    pub unknown_u16: u16,
    pub duration: f64,
    pub duration_differential_state: u32,
    pub interval: f64,
    pub interval_differential_state: u32,
    pub key_count: u32,
    pub root_bone_id: u32,
    pub bone_slot_count: usize,
    pub bone_channel_map: Vec<u8>,
    pub rotation_channel_map: Vec<u8>,
    pub translation_channel_map: Vec<u8>,
    pub scale_channel_map: Vec<u8>,
    pub animated_bones: Vec<AnimatedBoneInfo>,
    /// Bone ID → its keys.
    pub keys: BTreeMap<String, BoneKeysInfo>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AnimatedBoneInfo {
    pub bone_id: u32,
    pub bone_channel: u8,
    pub rotation: bool,
    pub translation: bool,
    pub scale: bool,
}

impl Mp3AnimV0Info {
    pub fn new(a: &AnimUncompressed) -> Self {
        let bones = a
            .bones(ChannelMapIndexing::ByChannelValue)
            .unwrap_or_default();
        let frames = a.frame_count;
        let track = |f: &dyn Fn(u32) -> Option<[f32; 4]>| (0..frames).filter_map(f).collect();
        let track3 = |f: &dyn Fn(u32) -> Option<[f32; 3]>| (0..frames).filter_map(f).collect();
        let keys = bones
            .iter()
            .map(|b| {
                let info = BoneKeysInfo {
                    rot: list(b.rotation.map(|c| track(&|k| a.rotation_key(c, k)))),
                    trans: list(b.translation.map(|c| track3(&|k| a.translation_key(c, k)))),
                    scale: list(b.scale.map(|c| track3(&|k| a.scale_key(c, k)))),
                };
                (b.bone_id.to_string(), info)
            })
            .collect();
        Self {
            format: "ANIM",
            game: Game::Mp3,
            version: 0,
            unknown_u16: a.unknown_u16.unwrap_or(0),
            duration: f64::from(a.duration.seconds),
            duration_differential_state: a.duration.differential_state,
            interval: f64::from(a.interval.seconds),
            interval_differential_state: a.interval.differential_state,
            key_count: frames,
            root_bone_id: a.root_bone_id,
            bone_slot_count: a.bone_channels.len(),
            bone_channel_map: a.bone_channels.clone(),
            rotation_channel_map: a.rotation_channels.clone().unwrap_or_default(),
            translation_channel_map: a.translation_channels.clone(),
            scale_channel_map: a.scale_channels.clone().unwrap_or_default(),
            animated_bones: bones
                .iter()
                .map(|b| AnimatedBoneInfo {
                    bone_id: b.bone_id,
                    bone_channel: b.channel,
                    rotation: b.rotation.is_some(),
                    translation: b.translation.is_some(),
                    scale: b.scale.is_some(),
                })
                .collect(),
            keys,
            warnings: a.warnings.clone(),
        }
    }
}

/// Version 1.
#[derive(Debug, Clone, Serialize)]
pub struct Mp3AnimV1Info {
    pub format: &'static str,
    pub game: Game,
    pub version: u32,
    pub header: V1HeaderInfo,
    pub key_times: Vec<f64>,
    pub bone_flags: Vec<u8>,
    pub component_count: u32,
    pub components: Vec<ComponentInfo>,
    pub bitstream_size: usize,
    /// The unexplained bit before each key's deltas (keys 1..K).
    pub per_key_bit_values: Vec<u8>,
    /// Bone index → its dequantised keys.
    pub keys: BTreeMap<String, BoneKeysInfo>,
    /// `bone.kind.axis` → running totals per key.
    pub quantized_totals: BTreeMap<String, Vec<i32>>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct V1HeaderInfo {
    pub translation_multiplier: f64,
    pub scale_multiplier: f64,
    pub duration: f64,
    pub key_count: usize,
    pub blob_size: u32,
    pub floats_size: u32,
    pub flags_size: u32,
    pub init_block_size: u32,
    pub stream_size: u32,
    pub bone_count: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct ComponentInfo {
    pub bone: u32,
    pub kind: ComponentKind,
    pub component: &'static str,
    pub initial: i32,
    pub bit_width: u8,
}

fn axis_name(kind: ComponentKind, axis: u8) -> &'static str {
    let names: &[&'static str] = match kind {
        ComponentKind::Rotation => &["w", "x", "y", "z"],
        _ => &["x", "y", "z"],
    };
    names.get(usize::from(axis)).copied().unwrap_or("?")
}

fn kind_name(kind: ComponentKind) -> &'static str {
    match kind {
        ComponentKind::Rotation => "rot",
        ComponentKind::Translation => "trans",
        ComponentKind::Scale => "scale",
    }
}

impl Mp3AnimV1Info {
    pub fn new(a: &AnimBitstream) -> Self {
        let keys = a
            .animated_bones()
            .into_iter()
            .map(|b| {
                let info = BoneKeysInfo {
                    rot: list(a.rotation_keys(b)),
                    trans: list(a.translation_keys(b)),
                    scale: list(a.scale_keys(b)),
                };
                (b.to_string(), info)
            })
            .collect();
        Self {
            format: "ANIM",
            game: Game::Mp3,
            version: 1,
            header: V1HeaderInfo {
                translation_multiplier: f64::from(a.translation_multiplier),
                scale_multiplier: f64::from(a.scale_multiplier),
                duration: f64::from(a.duration),
                key_count: a.key_count(),
                blob_size: a.blob_size,
                floats_size: a.floats_size,
                flags_size: a.flags_size,
                init_block_size: a.init_block_size,
                stream_size: a.stream_size,
                bone_count: a.bone_count,
            },
            key_times: a.key_times.iter().map(|&t| f64::from(t)).collect(),
            bone_flags: a.bone_flags.clone(),
            component_count: a.component_count,
            components: a
                .components
                .iter()
                .zip(&a.bit_widths)
                .map(|(c, &w)| ComponentInfo {
                    bone: c.bone,
                    kind: c.kind,
                    component: axis_name(c.kind, c.axis),
                    initial: c.totals.first().copied().unwrap_or(0),
                    bit_width: w,
                })
                .collect(),
            bitstream_size: a.stream.len(),
            per_key_bit_values: a.per_key_bits.iter().map(|&b| u8::from(b)).collect(),
            keys,
            quantized_totals: a
                .components
                .iter()
                .map(|c| {
                    (
                        format!(
                            "{}.{}.{}",
                            c.bone,
                            kind_name(c.kind),
                            axis_name(c.kind, c.axis)
                        ),
                        c.totals.clone(),
                    )
                })
                .collect(),
            warnings: a.warnings.clone(),
        }
    }
}
