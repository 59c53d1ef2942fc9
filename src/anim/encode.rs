//! Encoders from a [`Clip`] to the two ANIM formats.
//!
//! The format-2 encoder quantises every frame, chooses which frames to store (greedily
//! dropping frames that the decoder's interpolation reproduces within a tolerance), and
//! picks the smallest bit width per component that holds every delta between stored keys.

use glam::{Quat, Vec3};

use super::AnimError;
use super::clip::{Clip, SlerpMode, slerp};
use crate::formats::Game;
use crate::formats::anim::{
    AnimCompressed, AnimUncompressed, CharAnimTime, ComponentParams, CompressedChannel,
    MAX_BONE_ID, dequantize_rotation, signed_width,
};

/// Settings of the format-2 encoder.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EncodeOptions {
    pub game: Game,
    /// Rotation quantum q = (π/2) / divisor; at most 32767 so frame-0 values fit an s16.
    pub rotation_divisor: u32,
    /// Desired translation quantum (raised if the largest value would not fit an s16).
    pub translation_step: f32,
    /// [MP2] desired scale quantum.
    pub scale_step: f32,
    /// A frame may be dropped when slerping its neighbours gives a rotation within this
    /// angle (radians) of the original, for every channel. A negative tolerance keeps
    /// every frame.
    pub rotation_tolerance: f32,
    /// … and translations within this distance.
    pub translation_tolerance: f32,
    /// … and scales within this distance.
    pub scale_tolerance: f32,
    /// The interpolation the decoder will use.
    pub slerp: SlerpMode,
    /// Longest run of frames between two stored ones (bounds the encoder's work).
    pub max_gap: u32,
    /// [MP1] EVNT asset ID written into the header.
    pub evnt_id: u32,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        Self {
            game: Game::Mp1,
            rotation_divisor: 8192,
            translation_step: 1.0 / 1024.0,
            scale_step: 1.0 / 1024.0,
            rotation_tolerance: 1e-3,
            translation_tolerance: 1e-3,
            scale_tolerance: 1e-3,
            slerp: SlerpMode::ShortestPath,
            max_gap: 128,
            evnt_id: u32::MAX,
        }
    }
}

impl EncodeOptions {
    /// Keeps every frame (only quantisation error remains).
    pub fn lossless(game: Game) -> Self {
        Self {
            game,
            rotation_tolerance: -1.0,
            translation_tolerance: -1.0,
            scale_tolerance: -1.0,
            ..Self::default()
        }
    }
}

/// Per-channel dense tracks (one value per frame).
struct DenseChannel {
    bone_id: u32,
    rotation: Option<Vec<Quat>>,
    translation: Option<Vec<Vec3>>,
    scale: Option<Vec<Vec3>>,
}

fn dense(clip: &Clip, mode: SlerpMode) -> Vec<DenseChannel> {
    let frames = clip.frame_count.max(1);
    let mut out: Vec<DenseChannel> = clip
        .channels
        .iter()
        .map(|c| DenseChannel {
            bone_id: c.bone_id,
            rotation: c
                .rotation
                .as_ref()
                .map(|_| Vec::with_capacity(frames as usize)),
            translation: c
                .translation
                .as_ref()
                .map(|_| Vec::with_capacity(frames as usize)),
            scale: c
                .scale
                .as_ref()
                .map(|_| Vec::with_capacity(frames as usize)),
        })
        .collect();
    for f in 0..frames {
        for (d, s) in out.iter_mut().zip(clip.frame_sample(f, mode)) {
            if let (Some(v), Some(r)) = (d.rotation.as_mut(), s.rotation) {
                v.push(r);
            }
            if let (Some(v), Some(t)) = (d.translation.as_mut(), s.translation) {
                v.push(t);
            }
            if let (Some(v), Some(x)) = (d.scale.as_mut(), s.scale) {
                v.push(x);
            }
        }
    }
    out
}

fn check_bone_ids(channels: &[DenseChannel]) -> Result<(), AnimError> {
    let mut seen = [false; MAX_BONE_ID as usize];
    for c in channels {
        if c.bone_id >= MAX_BONE_ID {
            return Err(AnimError::Encode(format!(
                "bone ID {} cannot be addressed (IDs must be below {MAX_BONE_ID})",
                c.bone_id
            )));
        }
        if std::mem::replace(&mut seen[c.bone_id as usize], true) {
            return Err(AnimError::Encode(format!(
                "bone {} has two channels",
                c.bone_id
            )));
        }
    }
    Ok(())
}

/// Quantised rotation: `round(asin(c) / q)` per imaginary component, plus the W sign.
fn quantize_rotation(q: Quat, divisor: u32) -> ([i32; 3], bool) {
    let quantum = std::f64::consts::FRAC_PI_2 / f64::from(divisor);
    let d = i64::from(divisor);
    let comp = |c: f32| {
        let r = (f64::from(c).clamp(-1.0, 1.0).asin() / quantum).round() as i64;
        r.clamp(-d, d) as i32
    };
    ([comp(q.x), comp(q.y), comp(q.z)], q.w < 0.0)
}

fn decode_rotation(xyz: [i32; 3], sign: bool, divisor: u32) -> Quat {
    let [w, x, y, z] = dequantize_rotation(divisor, xyz, sign);
    Quat::from_xyzw(x, y, z, w)
}

/// A translation/scale multiplier: the requested step, raised so that every quantised
/// value fits an s16 (the initial values are stored as s16).
fn multiplier(step: f32, values: impl Iterator<Item = f32>) -> f32 {
    let max = values.fold(0.0f32, |m, v| m.max(v.abs()));
    let step = if step > 0.0 && step.is_finite() {
        step
    } else {
        1.0 / 1024.0
    };
    step.max(max / 32767.0)
}

/// Encodes a clip as format 2 (compressed).
pub fn encode_compressed(
    clip: &Clip,
    options: &EncodeOptions,
) -> Result<AnimCompressed, AnimError> {
    let game = options.game;
    if game == Game::Mp3 {
        return Err(AnimError::Encode("MP3 animations are not supported".into()));
    }
    if options.rotation_divisor == 0 || options.rotation_divisor > 32767 {
        return Err(AnimError::Encode(format!(
            "rotation divisor {} must lie in 1..=32767",
            options.rotation_divisor
        )));
    }
    let frames = clip.frame_count.max(1);
    let channels = dense(clip, options.slerp);
    check_bone_ids(&channels)?;
    if game == Game::Mp1 && channels.iter().any(|c| c.scale.is_some()) {
        return Err(AnimError::Encode(
            "MP1 animations cannot store scale".into(),
        ));
    }
    let divisor = options.rotation_divisor;
    let all_t = || {
        channels
            .iter()
            .filter_map(|c| c.translation.as_ref())
            .flatten()
    };
    let all_s = || channels.iter().filter_map(|c| c.scale.as_ref()).flatten();
    let t_mult = multiplier(options.translation_step, all_t().flat_map(|v| v.to_array()));
    let s_mult = multiplier(options.scale_step, all_s().flat_map(|v| v.to_array()));
    let quant_vec = |v: Vec3, m: f32| v.to_array().map(|c| (c / m).round() as i32);

    // Quantise every frame. Rotations are first made hemisphere-continuous (q and −q are
    // the same rotation) so that consecutive deltas stay small; frame 0 needs w ≥ 0
    // because the initial values carry no sign bit.
    struct Quantized {
        rot: Option<Vec<([i32; 3], bool)>>,
        rot_decoded: Option<Vec<Quat>>,
        rot_original: Option<Vec<Quat>>,
        trans: Option<Vec<[i32; 3]>>,
        scale: Option<Vec<[i32; 3]>>,
    }
    let quantized: Vec<Quantized> = channels
        .iter()
        .map(|c| {
            let rot_original = c.rotation.as_ref().map(|v| {
                let mut out = Vec::with_capacity(v.len());
                let mut prev: Option<Quat> = None;
                for &q in v {
                    let mut q = if q.is_finite() && q.length_squared() > 0.0 {
                        q.normalize()
                    } else {
                        Quat::IDENTITY
                    };
                    match prev {
                        None if q.w < 0.0 => q = -q,
                        Some(p) if p.dot(q) < 0.0 => q = -q,
                        _ => {}
                    }
                    prev = Some(q);
                    out.push(q);
                }
                out
            });
            let rot: Option<Vec<([i32; 3], bool)>> = rot_original.as_ref().map(|v| {
                v.iter()
                    .enumerate()
                    .map(|(f, &q)| {
                        let (xyz, sign) = quantize_rotation(q, divisor);
                        (xyz, sign && f > 0)
                    })
                    .collect()
            });
            let rot_decoded = rot.as_ref().map(|v| {
                v.iter()
                    .map(|&(xyz, s)| decode_rotation(xyz, s, divisor))
                    .collect()
            });
            Quantized {
                rot,
                rot_decoded,
                rot_original,
                trans: c
                    .translation
                    .as_ref()
                    .map(|v| v.iter().map(|&t| quant_vec(t, t_mult)).collect()),
                scale: c
                    .scale
                    .as_ref()
                    .map(|v| v.iter().map(|&s| quant_vec(s, s_mult)).collect()),
            }
        })
        .collect();

    // Decoded translation/scale at frame f of channel c.
    let deq = |v: [i32; 3], m: f32| Vec3::new(v[0] as f32 * m, v[1] as f32 * m, v[2] as f32 * m);
    // Can frames strictly between a and b be dropped?
    let droppable = |a: usize, b: usize| -> bool {
        for (c, q) in channels.iter().zip(&quantized) {
            for k in a + 1..b {
                let f = (k - a) as f32 / (b - a) as f32;
                if let (Some(dec), Some(orig)) = (&q.rot_decoded, &q.rot_original) {
                    let r = slerp(dec[a], dec[b], f, options.slerp);
                    if r.angle_between(orig[k]) > options.rotation_tolerance {
                        return false;
                    }
                }
                if let (Some(tq), Some(orig)) = (&q.trans, &c.translation) {
                    let t = deq(tq[a], t_mult).lerp(deq(tq[b], t_mult), f);
                    if t.distance(orig[k]) > options.translation_tolerance {
                        return false;
                    }
                }
                if let (Some(sq), Some(orig)) = (&q.scale, &c.scale) {
                    let s = deq(sq[a], s_mult).lerp(deq(sq[b], s_mult), f);
                    if s.distance(orig[k]) > options.scale_tolerance {
                        return false;
                    }
                }
            }
        }
        true
    };
    let last = frames as usize - 1;
    let mut stored = vec![0usize];
    let mut a = 0usize;
    let max_gap = options.max_gap.max(1) as usize;
    while a < last {
        let mut b = a + 1;
        while b < last && b + 1 - a <= max_gap && droppable(a, b + 1) {
            b += 1;
        }
        stored.push(b);
        a = b;
    }

    let mut key_bitmap = vec![0u32; (frames as usize).div_ceil(32)];
    for &f in &stored {
        key_bitmap[f / 32] |= 1 << (f % 32);
    }
    let key_count = u16::try_from(stored.len()).unwrap_or(u16::MAX);
    let params = |keys: &[[i32; 3]]| -> Result<ComponentParams, AnimError> {
        let first = keys.first().copied().unwrap_or_default();
        let mut initial = [0i16; 3];
        let mut bits = [0u8; 3];
        for i in 0..3 {
            initial[i] = i16::try_from(first[i]).map_err(|_| {
                AnimError::Encode(format!("initial value {} does not fit an s16", first[i]))
            })?;
            bits[i] = signed_width(keys.windows(2).map(|w| w[1][i].wrapping_sub(w[0][i])));
        }
        Ok(ComponentParams {
            key_count,
            initial,
            bits,
        })
    };
    let pick = |v: &Vec<[i32; 3]>| stored.iter().map(|&f| v[f]).collect::<Vec<_>>();
    let mut out_channels = Vec::with_capacity(channels.len());
    for (c, q) in channels.iter().zip(&quantized) {
        let rotation_keys: Vec<([i32; 3], bool)> = q
            .rot
            .as_ref()
            .map(|v| stored.iter().map(|&f| v[f]).collect())
            .unwrap_or_default();
        let translation_keys = q.trans.as_ref().map(pick).unwrap_or_default();
        let scale_keys = q.scale.as_ref().map(pick).unwrap_or_default();
        let rotation = match &q.rot {
            Some(_) => Some(params(
                &rotation_keys.iter().map(|k| k.0).collect::<Vec<_>>(),
            )?),
            None => None,
        };
        let translation = match &q.trans {
            Some(_) => Some(params(&translation_keys)?),
            None => None,
        };
        let scale = match &q.scale {
            Some(_) => Some(params(&scale_keys)?),
            None => None,
        };
        out_channels.push(CompressedChannel {
            bone_id: c.bone_id,
            rotation,
            translation,
            scale,
            rotation_keys,
            translation_keys,
            scale_keys,
        });
    }
    let bits_per_frame: u64 = out_channels
        .iter()
        .map(|c| {
            let sum = |p: Option<ComponentParams>| {
                p.map_or(0, |p| p.bits.iter().map(|&b| u64::from(b)).sum::<u64>())
            };
            c.rotation.map_or(0, |_| 1) + sum(c.rotation) + sum(c.translation) + sum(c.scale)
        })
        .sum();
    let channel_count = u32::try_from(out_channels.len())
        .map_err(|_| AnimError::Encode("too many channels".into()))?;
    let mut anim = AnimCompressed {
        game,
        scratch_size: 0,
        evnt_id: if game == Game::Mp1 {
            options.evnt_id
        } else {
            u32::MAX
        },
        unknown_1: u32::from(game == Game::Mp1),
        unknown_mp2: if game == Game::Mp2 { 0x0101 } else { 0 },
        duration: clip.duration,
        interval: clip.interval,
        root_bone_id: clip.root_bone_id,
        looping: u32::from(clip.looping),
        rotation_divisor: divisor,
        translation_multiplier: t_mult,
        scale_multiplier: (game == Game::Mp2).then_some(s_mult),
        bone_channel_count: channel_count,
        unknown_3: 1,
        key_bitmap_bit_count: frames,
        key_bitmap,
        channel_count_repeat: (game == Game::Mp1).then_some(channel_count),
        channels: out_channels,
        stored_frames: stored.iter().map(|&f| f as u32).collect(),
        bitstream_offset: 0,
        bitstream_bits: (stored.len() as u64 - 1) * bits_per_frame,
        bitstream_pad_bits: 0,
        trailing: Vec::new(),
        warnings: Vec::new(),
    };
    // The scratch size is what the runtime reads after the format word: the rest of the
    // file (as the third-party serializer that made the fixtures writes it).
    let len = anim.write()?.len();
    anim.scratch_size = (len - 4) as u32;
    anim.bitstream_offset = len - (anim.bitstream_bits.div_ceil(32) * 4) as usize;
    Ok(anim)
}

/// Encodes a clip as format 0 (every frame, floats). Channels are numbered in ascending
/// bone-ID order, so channel-value and ordinal indexing of the maps agree.
pub fn encode_uncompressed(
    clip: &Clip,
    game: Game,
    evnt_id: u32,
) -> Result<AnimUncompressed, AnimError> {
    if game == Game::Mp3 {
        return Err(AnimError::Encode("MP3 animations are not supported".into()));
    }
    let mut channels = dense(clip, SlerpMode::ShortestPath);
    check_bone_ids(&channels)?;
    if game == Game::Mp1 && channels.iter().any(|c| c.scale.is_some()) {
        return Err(AnimError::Encode(
            "MP1 animations cannot store scale".into(),
        ));
    }
    channels.sort_by_key(|c| c.bone_id);
    let n = clip.frame_count.max(1);
    let mut bone_channels = vec![0xFFu8; MAX_BONE_ID as usize];
    let mut rotation_map = Vec::new();
    let mut translation_map = Vec::new();
    let mut scale_map = Vec::new();
    let (mut rotation_keys, mut translation_keys, mut scale_keys) =
        (Vec::new(), Vec::new(), Vec::new());
    let next_index = |count: usize| -> Result<u8, AnimError> {
        u8::try_from(count)
            .ok()
            .filter(|&c| c != 0xFF)
            .ok_or(AnimError::Encode("more than 254 channels".into()))
    };
    for (i, c) in channels.iter().enumerate() {
        bone_channels[c.bone_id as usize] = next_index(i)?;
        // MP1 stores a rotation for every channel: identity where the clip has none.
        let rot = match (&c.rotation, game) {
            (Some(v), _) => Some(v.clone()),
            (None, Game::Mp1) => Some(vec![Quat::IDENTITY; n as usize]),
            (None, _) => None,
        };
        match rot {
            Some(v) => {
                rotation_map.push(next_index(rotation_keys.len() / n as usize)?);
                rotation_keys.extend(v.iter().map(|q| [q.w, q.x, q.y, q.z]));
            }
            None => rotation_map.push(0xFF),
        }
        match &c.translation {
            Some(v) => {
                translation_map.push(next_index(translation_keys.len() / n as usize)?);
                translation_keys.extend(v.iter().map(|t| t.to_array()));
            }
            None => translation_map.push(0xFF),
        }
        match &c.scale {
            Some(v) => {
                scale_map.push(next_index(scale_keys.len() / n as usize)?);
                scale_keys.extend(v.iter().map(|s| s.to_array()));
            }
            None => scale_map.push(0xFF),
        }
    }
    let mp2 = game == Game::Mp2;
    Ok(AnimUncompressed {
        game,
        unknown_u16: None,
        duration: CharAnimTime {
            seconds: clip.duration,
            differential_state: 0,
        },
        interval: CharAnimTime {
            seconds: clip.interval,
            differential_state: 0,
        },
        frame_count: n,
        root_bone_id: clip.root_bone_id,
        bone_channels,
        rotation_channels: mp2.then_some(rotation_map),
        translation_channels: translation_map,
        scale_channels: mp2.then_some(scale_map),
        scale_keys,
        rotation_keys,
        translation_keys,
        evnt_id: (!mp2).then_some(evnt_id),
        trailing: Vec::new(),
        warnings: Vec::new(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::anim::clip::{Channel, ClipKind};
    use crate::formats::anim::Anim;

    fn wave(frames: u32) -> Clip {
        let rot: Vec<Quat> = (0..frames)
            .map(|f| Quat::from_rotation_z(f as f32 * 0.05))
            .collect();
        let tr: Vec<Vec3> = (0..frames)
            .map(|f| Vec3::new(f as f32 * 0.1, 0.0, 1.0))
            .collect();
        Clip {
            kind: ClipKind::Compressed,
            game: Game::Mp1,
            duration: (frames - 1) as f32 / 30.0,
            interval: 1.0 / 30.0,
            frame_count: frames,
            looping: true,
            root_bone_id: 3,
            key_frames: (0..frames).collect(),
            key_times: None,
            channels: vec![
                Channel {
                    bone_id: 3,
                    rotation: Some(rot),
                    translation: Some(tr),
                    scale: None,
                },
                Channel {
                    bone_id: 4,
                    rotation: Some(vec![Quat::from_rotation_x(0.3); frames as usize]),
                    translation: None,
                    scale: None,
                },
            ],
            evnt_id: None,
        }
    }

    #[test]
    fn linear_motion_keeps_only_the_ends() {
        let clip = wave(40);
        let a = encode_compressed(&clip, &EncodeOptions::default()).unwrap();
        // Constant-speed rotation and translation interpolate exactly: two keys suffice.
        assert_eq!(a.stored_frames, vec![0, 39]);
        // The still bone needs no delta bits.
        assert_eq!(a.channels[1].rotation.unwrap().bits, [0, 0, 0]);
        let bytes = a.write().unwrap();
        assert_eq!(a.scratch_size as usize, bytes.len() - 4);
        let back = Anim::parse(&bytes, "enc", None).unwrap();
        let Anim::Compressed(b) = &back else { panic!() };
        assert_eq!(b, &a);
        let decoded = Clip::from_anim(&back).unwrap();
        for f in 0..40 {
            let s = decoded.frame_sample(f, SlerpMode::ShortestPath);
            let want = Quat::from_rotation_z(f as f32 * 0.05);
            assert!(s[0].rotation.unwrap().angle_between(want) < 2e-3);
            assert!(
                s[0].translation
                    .unwrap()
                    .distance(Vec3::new(f as f32 * 0.1, 0.0, 1.0))
                    < 2e-3
            );
        }
    }

    #[test]
    fn lossless_keeps_every_frame_and_mp2_round_trips() {
        let mut clip = wave(10);
        clip.channels[1].scale = Some(vec![Vec3::splat(1.5); 10]);
        assert!(encode_compressed(&clip, &EncodeOptions::lossless(Game::Mp1)).is_err());
        let a = encode_compressed(&clip, &EncodeOptions::lossless(Game::Mp2)).unwrap();
        assert_eq!(a.stored_frames.len(), 10);
        let bytes = a.write().unwrap();
        assert_eq!(bytes[8..10], [1, 1]);
        let Anim::Compressed(b) = Anim::parse(&bytes, "enc", None).unwrap() else {
            panic!()
        };
        assert_eq!(b, a);
        assert!((a.dequantize_scale(b.channels[1].scale_keys[3])[0] - 1.5).abs() < 1e-3);
    }

    #[test]
    fn uncompressed_encoder_round_trips() {
        for game in [Game::Mp1, Game::Mp2] {
            let clip = wave(5);
            let a = encode_uncompressed(&clip, game, u32::MAX).unwrap();
            let bytes = a.write().unwrap();
            let back = Anim::parse(&bytes, "enc", None).unwrap();
            assert_eq!(back.game(), game);
            let c = Clip::from_anim(&back).unwrap();
            assert_eq!(c.channels.len(), 2);
            assert_eq!(c.channels[0].rotation, clip.channels[0].rotation);
            assert_eq!(c.channels[0].translation, clip.channels[0].translation);
        }
    }

    #[test]
    fn bad_bone_ids_are_rejected() {
        let mut clip = wave(3);
        clip.channels[1].bone_id = 100;
        assert!(encode_compressed(&clip, &EncodeOptions::default()).is_err());
        clip.channels[1].bone_id = 3;
        assert!(encode_uncompressed(&clip, Game::Mp1, 0).is_err());
    }
}
