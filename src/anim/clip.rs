//! Decoded animation clips and sampling (formats.md §7.5).
//!
//! A [`Clip`] holds, per bone channel, the values at the *stored* frames only (format 0:
//! every frame; format 2: the frames set in the key bitmap). Sampling follows the spec:
//! the last stored key at or before `t` and the first after it, slerped/lerped; after the
//! last key the value holds. Frames missing from the bitmap are thereby interpolated
//! between their neighbours. Format 0 uses the game's frame rule instead.

use glam::{Quat, Vec3};

use super::AnimError;
use crate::formats::Game;
use crate::formats::anim::{Anim, ChannelMapIndexing};
use crate::formats::anim_mp3::AnimBitstream;

/// Which file format a clip came from (they sample differently at the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClipKind {
    /// Format 0: frame = ⌊t / interval⌋, next frame wraps to 0 at the end (as the game).
    Uncompressed,
    /// Format 2 (and synthetic clips): prior/next stored key, hold after the last.
    Compressed,
}

/// How quaternions are interpolated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SlerpMode {
    /// Negate the second quaternion when the dot product is negative. **Default.**
    #[default]
    ShortestPath,
    /// Plain slerp (the original math library and one editor).
    Plain,
}

/// The values of one bone's channel at each stored frame.
#[derive(Debug, Clone, PartialEq)]
pub struct Channel {
    pub bone_id: u32,
    pub rotation: Option<Vec<Quat>>,
    pub translation: Option<Vec<Vec3>>,
    /// [MP2]
    pub scale: Option<Vec<Vec3>>,
}

/// What a channel contributes at a time.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct ChannelSample {
    pub rotation: Option<Quat>,
    pub translation: Option<Vec3>,
    pub scale: Option<Vec3>,
}

/// A decoded animation.
#[derive(Debug, Clone, PartialEq)]
pub struct Clip {
    pub kind: ClipKind,
    pub game: Game,
    pub duration: f32,
    /// Seconds per frame.
    pub interval: f32,
    /// Frames F: frame i lies at i × interval.
    pub frame_count: u32,
    /// The file's looping flag.
    pub looping: bool,
    pub root_bone_id: u32,
    /// Stored frames, ascending, starting with 0 (none when the file stores no keys); every
    /// channel has one value per entry.
    pub key_frames: Vec<u32>,
    /// Explicit time (seconds) per stored key, for files without a fixed interval (MP3
    /// version 1, formats.md §13.6); None: key k lies at `key_frames[k] × interval`.
    pub key_times: Option<Vec<f32>>,
    pub channels: Vec<Channel>,
    /// [MP1] EVNT asset ID.
    pub evnt_id: Option<u32>,
}

/// Where a time falls: between key indices `a` and `b` at fraction `f`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KeyPosition {
    pub a: usize,
    pub b: usize,
    pub f: f32,
}

impl Clip {
    /// Decodes a parsed ANIM (format-0 channel maps indexed by channel value, as the game).
    pub fn from_anim(anim: &Anim) -> Result<Clip, AnimError> {
        Self::from_anim_with(anim, ChannelMapIndexing::ByChannelValue)
    }

    pub fn from_anim_with(anim: &Anim, indexing: ChannelMapIndexing) -> Result<Clip, AnimError> {
        match anim {
            Anim::Uncompressed(a) => {
                let n = a.frame_count;
                let bones = a.bones(indexing).map_err(AnimError::Clip)?;
                let range = |c: u8| {
                    let start = usize::from(c) * n as usize;
                    start..start + n as usize
                };
                let slice_of =
                    |keys: usize, c: u8, what: &str| -> Result<std::ops::Range<usize>, AnimError> {
                        let r = range(c);
                        if r.end > keys {
                            Err(AnimError::Clip(format!(
                                "{what} channel {c} needs keys {}..{}, only {keys} stored",
                                r.start, r.end
                            )))
                        } else {
                            Ok(r)
                        }
                    };
                let mut channels = Vec::with_capacity(bones.len());
                for b in bones {
                    let rotation = match b.rotation {
                        Some(c) => Some(
                            a.rotation_keys[slice_of(a.rotation_keys.len(), c, "rotation")?]
                                .iter()
                                .map(|&[w, x, y, z]| Quat::from_xyzw(x, y, z, w))
                                .collect(),
                        ),
                        None => None,
                    };
                    let vecs = |keys: &[[f32; 3]],
                                c: Option<u8>,
                                what: &str|
                     -> Result<Option<Vec<Vec3>>, AnimError> {
                        match c {
                            Some(c) => Ok(Some(
                                keys[slice_of(keys.len(), c, what)?]
                                    .iter()
                                    .map(|&v| Vec3::from(v))
                                    .collect(),
                            )),
                            None => Ok(None),
                        }
                    };
                    channels.push(Channel {
                        bone_id: b.bone_id,
                        rotation,
                        translation: vecs(&a.translation_keys, b.translation, "translation")?,
                        scale: vecs(&a.scale_keys, b.scale, "scale")?,
                    });
                }
                // Format 0 stores every frame of every track, so the key count is backed
                // by stored keys only when some track exists (the parser checked those
                // against the file). Without one it says nothing: nothing is stored, the
                // clip has no keys, and a hostile count costs no memory.
                let stores_keys = channels
                    .iter()
                    .any(|c| c.rotation.is_some() || c.translation.is_some() || c.scale.is_some());
                let key_frames = if stores_keys {
                    (0..n).collect()
                } else {
                    Vec::new()
                };
                Ok(Clip {
                    kind: ClipKind::Uncompressed,
                    game: a.game,
                    duration: a.duration.seconds,
                    interval: a.interval.seconds,
                    frame_count: n,
                    looping: false,
                    root_bone_id: a.root_bone_id,
                    key_frames,
                    key_times: None,
                    channels,
                    evnt_id: a.evnt_id,
                })
            }
            Anim::Compressed(a) => {
                let channels = a
                    .channels
                    .iter()
                    .map(|c| Channel {
                        bone_id: c.bone_id,
                        rotation: c.rotation.map(|_| {
                            c.rotation_keys
                                .iter()
                                .map(|&(xyz, s)| {
                                    let [w, x, y, z] = a.dequantize_rotation(xyz, s);
                                    Quat::from_xyzw(x, y, z, w)
                                })
                                .collect()
                        }),
                        translation: c.translation.map(|_| {
                            c.translation_keys
                                .iter()
                                .map(|&t| Vec3::from(a.dequantize_translation(t)))
                                .collect()
                        }),
                        scale: c.scale.map(|_| {
                            c.scale_keys
                                .iter()
                                .map(|&s| Vec3::from(a.dequantize_scale(s)))
                                .collect()
                        }),
                    })
                    .collect();
                Ok(Clip {
                    kind: ClipKind::Compressed,
                    game: a.game,
                    duration: a.duration,
                    interval: a.interval,
                    frame_count: a.frame_count(),
                    looping: a.looping != 0,
                    root_bone_id: a.root_bone_id,
                    key_frames: a.stored_frames.clone(),
                    key_times: None,
                    channels,
                    evnt_id: (a.game == Game::Mp1).then_some(a.evnt_id),
                })
            }
            Anim::Mp3Bitstream(a) => Ok(Self::from_bitstream(a)),
        }
    }

    /// MP3 version 1: one channel per flagged bone index (= CINF bone ID, §13.6), every
    /// key stored at its own time. The nominal interval spreads the keys evenly over the
    /// duration (for frame stepping only; sampling uses the key times).
    fn from_bitstream(a: &AnimBitstream) -> Clip {
        let to_vec3 = |v: Vec<[f32; 3]>| v.into_iter().map(Vec3::from).collect();
        let channels = a
            .animated_bones()
            .into_iter()
            .map(|bone| Channel {
                bone_id: bone,
                rotation: a.rotation_keys(bone).map(|v| {
                    v.into_iter()
                        .map(|[w, x, y, z]| Quat::from_xyzw(x, y, z, w))
                        .collect()
                }),
                translation: a.translation_keys(bone).map(to_vec3),
                scale: a.scale_keys(bone).map(to_vec3),
            })
            .collect();
        let k = a.key_count();
        Clip {
            kind: ClipKind::Compressed,
            game: Game::Mp3,
            duration: a.duration,
            interval: if k > 1 {
                a.duration / (k - 1) as f32
            } else {
                0.0
            },
            frame_count: k as u32,
            looping: false,
            // Bone index 0 is the root (§13.6: "beginning at 0 for the root").
            root_bone_id: 0,
            key_frames: (0..k as u32).collect(),
            key_times: Some(a.key_times.clone()),
            channels,
            evnt_id: None,
        }
    }

    /// The time of stored key `k` in seconds.
    pub fn key_time(&self, k: usize) -> f32 {
        match &self.key_times {
            Some(t) => t.get(k).copied().unwrap_or(self.duration),
            None => self
                .key_frames
                .get(k)
                .map_or(self.duration, |&f| f as f32 * self.interval),
        }
    }

    /// Number of decoded keys (stored frames × components present).
    pub fn key_count(&self) -> usize {
        self.channels
            .iter()
            .map(|c| {
                c.rotation.as_ref().map_or(0, Vec::len)
                    + c.translation.as_ref().map_or(0, Vec::len)
                    + c.scale.as_ref().map_or(0, Vec::len)
            })
            .sum()
    }

    /// Channel of a bone ID, if animated.
    pub fn channel_of_bone(&self, bone_id: u32) -> Option<&Channel> {
        // The last channel wins when a bone has two (as a lookup table would).
        self.channels.iter().rev().find(|c| c.bone_id == bone_id)
    }

    /// Maps a time to the clip's range: wraps modulo the duration when looping (the file's
    /// flag or `force_loop`), else clamps to [0, duration].
    pub fn normalize_time(&self, t: f32, force_loop: bool) -> f32 {
        let t = if t.is_finite() { t } else { 0.0 };
        let d = self.duration.max(0.0);
        if (self.looping || force_loop) && d > 0.0 {
            t.rem_euclid(d)
        } else {
            t.clamp(0.0, d)
        }
    }

    /// The keys surrounding time `t` (already normalised), or None for a clip without keys.
    pub fn key_position(&self, t: f32) -> Option<KeyPosition> {
        let n = self.key_frames.len();
        if n == 0 {
            return None;
        }
        let interval = self.interval;
        // Zero, negative or NaN: a single frame (explicit key times need no interval).
        if self.key_times.is_none()
            && interval.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater)
        {
            return Some(KeyPosition { a: 0, b: 0, f: 0.0 });
        }
        match self.kind {
            ClipKind::Uncompressed => {
                // The game's rule: frame = ⌊t/interval⌋, next = frame + 1 wrapping to 0.
                let frame = ((t / interval).floor().max(0.0) as usize).min(n - 1);
                let next = if frame + 1 >= n { 0 } else { frame + 1 };
                let f = ((t - frame as f32 * interval) / interval).clamp(0.0, 1.0);
                Some(KeyPosition {
                    a: frame,
                    b: next,
                    f,
                })
            }
            ClipKind::Compressed => {
                let time_of = |k: usize| self.key_time(k);
                // Last stored key with time ≤ t (key 0 at time 0 always qualifies for t ≥ 0).
                let a = match &self.key_times {
                    Some(times) => times.partition_point(|&kt| kt <= t),
                    None => self
                        .key_frames
                        .partition_point(|&fr| fr as f32 * interval <= t),
                }
                .saturating_sub(1);
                if a + 1 >= n {
                    return Some(KeyPosition { a, b: a, f: 0.0 });
                }
                let (ta, tb) = (time_of(a), time_of(a + 1));
                let f = if tb > ta {
                    ((t - ta) / (tb - ta)).clamp(0.0, 1.0)
                } else {
                    0.0
                };
                Some(KeyPosition { a, b: a + 1, f })
            }
        }
    }

    /// Samples one channel at key position `p`.
    pub fn sample_channel(
        &self,
        channel: &Channel,
        p: KeyPosition,
        mode: SlerpMode,
    ) -> ChannelSample {
        // A time exactly on a key returns the key itself, bit for bit.
        let rot = |v: &Vec<Quat>| match (v.get(p.a), v.get(p.b)) {
            (Some(&a), _) if p.f == 0.0 => a,
            (Some(&a), Some(&b)) => slerp(a, b, p.f, mode),
            (Some(&a), None) => a.normalize(),
            _ => Quat::IDENTITY,
        };
        let lerp = |v: &Vec<Vec3>| match (v.get(p.a), v.get(p.b)) {
            (Some(&a), Some(&b)) => a.lerp(b, p.f),
            (Some(&a), None) => a,
            _ => Vec3::ZERO,
        };
        ChannelSample {
            rotation: channel.rotation.as_ref().map(rot),
            translation: channel.translation.as_ref().map(lerp),
            scale: channel.scale.as_ref().map(lerp),
        }
    }

    /// Samples every channel at time `t` (normalised here), in channel order.
    pub fn sample(&self, t: f32, force_loop: bool, mode: SlerpMode) -> Vec<ChannelSample> {
        let t = self.normalize_time(t, force_loop);
        match self.key_position(t) {
            Some(p) => self
                .channels
                .iter()
                .map(|c| self.sample_channel(c, p, mode))
                .collect(),
            None => vec![ChannelSample::default(); self.channels.len()],
        }
    }

    /// The value of every channel at integer frame `frame` (stored, or interpolated
    /// between the surrounding stored frames): what the game reconstructs for that frame.
    pub fn frame_sample(&self, frame: u32, mode: SlerpMode) -> Vec<ChannelSample> {
        let p = self.frame_key_position(frame);
        match p {
            Some(p) => self
                .channels
                .iter()
                .map(|c| self.sample_channel(c, p, mode))
                .collect(),
            None => vec![ChannelSample::default(); self.channels.len()],
        }
    }

    fn frame_key_position(&self, frame: u32) -> Option<KeyPosition> {
        let n = self.key_frames.len();
        if n == 0 {
            return None;
        }
        let a = self
            .key_frames
            .partition_point(|&fr| fr <= frame)
            .saturating_sub(1);
        if a + 1 >= n || self.key_frames[a] == frame {
            return Some(KeyPosition { a, b: a, f: 0.0 });
        }
        let (fa, fb) = (self.key_frames[a], self.key_frames[a + 1]);
        Some(KeyPosition {
            a,
            b: a + 1,
            f: (frame - fa) as f32 / (fb - fa) as f32,
        })
    }
}

/// Slerp from `a` to `b`, normalised (formats.md §7.5).
pub fn slerp(a: Quat, b: Quat, t: f32, mode: SlerpMode) -> Quat {
    let mut b = b;
    let mut d = a.dot(b);
    if mode == SlerpMode::ShortestPath && d < 0.0 {
        b = -b;
        d = -d;
    }
    let out = if d > 0.9995 {
        // Nearly parallel: linear interpolation is exact to f32 precision.
        a * (1.0 - t) + b * t
    } else if d < -0.9995 {
        // Plain slerp between opposite quaternions: any great circle works; they are the
        // same rotation, so hold `a` for the first half and `b` after.
        if t < 0.5 { a } else { b }
    } else {
        let theta = d.clamp(-1.0, 1.0).acos();
        let s = theta.sin();
        let wa = ((1.0 - t) * theta).sin() / s;
        let wb = (t * theta).sin() / s;
        a * wa + b * wb
    };
    let len = out.length();
    if len > 0.0 && len.is_finite() {
        out / len
    } else {
        Quat::IDENTITY
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn clip(kind: ClipKind, key_frames: Vec<u32>, values: Vec<f32>) -> Clip {
        Clip {
            kind,
            game: Game::Mp1,
            duration: 1.0,
            interval: 0.25,
            frame_count: 5,
            looping: false,
            root_bone_id: 3,
            key_frames,
            key_times: None,
            channels: vec![Channel {
                bone_id: 3,
                rotation: None,
                translation: Some(values.into_iter().map(|x| Vec3::new(x, 0.0, 0.0)).collect()),
                scale: None,
            }],
            evnt_id: None,
        }
    }

    fn tx(c: &Clip, t: f32, looped: bool) -> f32 {
        c.sample(t, looped, SlerpMode::ShortestPath)[0]
            .translation
            .unwrap()
            .x
    }

    #[test]
    fn missing_frames_are_interpolated_and_last_key_holds() {
        // Frames 0, 1, 3 stored; 4 frames of the bitmap would make 3 the last key.
        let c = clip(ClipKind::Compressed, vec![0, 1, 3], vec![0.0, 1.0, 5.0]);
        assert_eq!(tx(&c, 0.125, false), 0.5);
        assert_eq!(tx(&c, 0.5, false), 3.0); // missing frame 2: halfway from 1 to 5
        assert_eq!(tx(&c, 0.75, false), 5.0);
        assert_eq!(tx(&c, 1.0, false), 5.0); // after the last key: hold
        assert_eq!(tx(&c, 7.0, false), 5.0); // clamped
        assert_eq!(tx(&c, -1.0, false), 0.0);
        // Looping wraps modulo the duration.
        assert_eq!(tx(&c, 1.125, true), 0.5);
        let f = c.frame_sample(2, SlerpMode::ShortestPath);
        assert_eq!(f[0].translation.unwrap().x, 3.0);
    }

    #[test]
    fn format0_frame_rule_wraps_to_frame_0() {
        let c = clip(
            ClipKind::Uncompressed,
            vec![0, 1, 2, 3],
            vec![0.0, 1.0, 2.0, 3.0],
        );
        assert_eq!(tx(&c, 0.375, false), 1.5);
        // Between the last frame (3 at 0.75 s) and the duration the game heads to frame 0.
        assert_eq!(tx(&c, 0.875, false), 1.5);
        assert_eq!(tx(&c, 0.75, false), 3.0);
    }

    /// Format 0, MP1: `key_count` keys, no channel map entries, no keys stored.
    fn keyless_format0(key_count: u32) -> Vec<u8> {
        let words = [
            0,
            1.0f32.to_bits(),
            0,
            (1.0f32 / 30.0).to_bits(),
            0,
            key_count,
            3,
        ];
        let mut out: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        // Bone and translation maps, rotation and translation keys: all empty; no EVNT.
        out.extend(
            [0u32, 0, 0, 0, u32::MAX]
                .iter()
                .flat_map(|w| w.to_be_bytes()),
        );
        out
    }

    #[test]
    fn a_key_count_without_stored_tracks_costs_nothing() {
        // 48 bytes claiming 3.5 billion keys (a fuzz find: the clip asked for 14 GB).
        let data = keyless_format0(3_565_158_400);
        assert_eq!(data.len(), 48);
        let anim = Anim::parse(&data, "keyless.ANIM", Some(Game::Mp1)).unwrap();
        let c = Clip::from_anim(&anim).unwrap();
        assert_eq!(c.frame_count, 3_565_158_400);
        assert!(c.key_frames.is_empty() && c.channels.is_empty());
        assert!(c.sample(0.5, false, SlerpMode::ShortestPath).is_empty());
        assert!(c.frame_sample(7, SlerpMode::ShortestPath).is_empty());
    }

    #[test]
    fn slerp_modes() {
        let a = Quat::IDENTITY;
        let b = Quat::from_rotation_z(1.0);
        let m = slerp(a, b, 0.5, SlerpMode::ShortestPath);
        assert!(m.abs_diff_eq(Quat::from_rotation_z(0.5), 1e-6));
        // −b is the same rotation: shortest path gives the same answer, plain goes the
        // long way round.
        let s = slerp(a, -b, 0.5, SlerpMode::ShortestPath);
        assert!(s.abs_diff_eq(m, 1e-6));
        let p = slerp(a, -b, 0.5, SlerpMode::Plain);
        let angle = p.angle_between(Quat::from_rotation_z(0.5));
        assert!(angle > 3.0, "plain slerp took the short way: {angle}");
        assert!((p.length() - 1.0).abs() < 1e-6);
        assert!(slerp(a, b, 0.0, SlerpMode::Plain).abs_diff_eq(a, 1e-6));
        assert!(slerp(a, b, 1.0, SlerpMode::Plain).abs_diff_eq(b, 1e-6));
    }
}
