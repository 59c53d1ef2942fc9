//! ANIM animations (MP1 and MP2, formats.md §7): format 0 (quaternion arrays) and format 2
//! (delta-coded bitstream with a key bitmap); MP3 (§13.6) version 0 (format 0 with a u16
//! after the version) here too, version 1 in [`super::anim_mp3`].
//!
//! This module reads and writes the file structure and decodes format 2 to its quantised
//! integer keys (what the bitstream really holds) and their float values. Sampling,
//! interpolation and posing live in `crate::anim`; the format-2 *encoder* (choosing widths
//! and the key bitmap from float tracks) is `crate::anim::encode`.

use super::anim_mp3::AnimBitstream;
pub use super::bits::{BitReader, BitWriter};
use super::{ErrorKind, FormatError, Game, Reader, Result, Writer, cinf::len_u32};

/// Bone IDs at or above this are not addressable (the game looks channels up in 100-entry
/// tables).
pub const MAX_BONE_ID: u32 = 100;

/// Seconds plus the game's unexplained "differential state" word.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct CharAnimTime {
    pub seconds: f32,
    pub differential_state: u32,
}

impl CharAnimTime {
    pub(crate) fn read(r: &mut Reader<'_>, field: &str) -> Result<Self> {
        Ok(Self {
            seconds: r.f32(field)?,
            differential_state: r.u32(field)?,
        })
    }
    pub(crate) fn write(&self, w: &mut Writer) {
        w.f32(self.seconds);
        w.u32(self.differential_state);
    }
}

/// A parsed ANIM of either format.
#[derive(Debug, Clone, PartialEq)]
pub enum Anim {
    Uncompressed(AnimUncompressed),
    Compressed(AnimCompressed),
    /// MP3 version 1 (formats.md §13.6).
    Mp3Bitstream(AnimBitstream),
}

impl Anim {
    /// Parses an ANIM. `game` comes from the container; `None` detects it (format 2: the u16
    /// at offset 8 is 0x0101 in MP2; format 0: the MP2, then the MP3 layout, each accepted
    /// only if it ends at the end of the data, else MP1). Version 1 exists only in MP3, so
    /// its bytes identify it whatever the hint.
    pub fn parse(data: &[u8], file: &str, game: Option<Game>) -> Result<Anim> {
        let mut r = Reader::new(data, file);
        let format = r.u32("format")?;
        match format {
            0 => Ok(Anim::Uncompressed(AnimUncompressed::parse(
                data, file, game,
            )?)),
            1 => Ok(Anim::Mp3Bitstream(AnimBitstream::parse(data, file)?)),
            2 if game == Some(Game::Mp3) => Err(r.err_at(
                "format",
                0,
                ErrorKind::OutOfRange {
                    value: 2,
                    expected: "MP3 animations are version 0 or 1".into(),
                },
            )),
            2 => Ok(Anim::Compressed(AnimCompressed::parse(data, file, game)?)),
            3 => Err(r.err_at(
                "format",
                0,
                ErrorKind::Invalid(
                    "format 3 (PC variant of format 2) is not used on GameCube".into(),
                ),
            )),
            other => Err(r.err_at(
                "format",
                0,
                ErrorKind::OutOfRange {
                    value: other.into(),
                    expected: "0 (uncompressed), 2 (compressed) or, in MP3, 1 (bitstream)".into(),
                },
            )),
        }
    }

    pub fn game(&self) -> Game {
        match self {
            Anim::Uncompressed(a) => a.game,
            Anim::Compressed(a) => a.game,
            Anim::Mp3Bitstream(_) => Game::Mp3,
        }
    }

    pub fn warnings(&self) -> &[String] {
        match self {
            Anim::Uncompressed(a) => &a.warnings,
            Anim::Compressed(a) => &a.warnings,
            Anim::Mp3Bitstream(a) => &a.warnings,
        }
    }

    pub fn write(&self) -> Result<Vec<u8>> {
        match self {
            Anim::Uncompressed(a) => a.write(),
            Anim::Compressed(a) => a.write(),
            Anim::Mp3Bitstream(a) => a.write(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Format 0
// ---------------------------------------------------------------------------------------

/// Format 0: every frame of every channel stored as floats, channel-major.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimUncompressed {
    pub game: Game,
    /// [MP3] the u16 after the version (meaning unknown, formats.md §13.6).
    pub unknown_u16: Option<u16>,
    pub duration: CharAnimTime,
    pub interval: CharAnimTime,
    /// Keys per channel (N).
    pub frame_count: u32,
    pub root_bone_id: u32,
    /// Bone channel index per bone ID (normally 100 entries, 0xFF = not animated).
    pub bone_channels: Vec<u8>,
    /// [MP2] rotation channel per bone channel (0xFF = none). MP1: the bone channel *is* the
    /// rotation channel.
    pub rotation_channels: Option<Vec<u8>>,
    /// Translation channel per bone channel (0xFF = none).
    pub translation_channels: Vec<u8>,
    /// [MP2] scale channel per bone channel (0xFF = none).
    pub scale_channels: Option<Vec<u8>>,
    /// [MP2] scale keys, channel-major (`c·N + f`).
    pub scale_keys: Vec<[f32; 3]>,
    /// Rotation keys (w, x, y, z), channel-major.
    pub rotation_keys: Vec<[f32; 4]>,
    /// Translation keys, channel-major.
    pub translation_keys: Vec<[f32; 3]>,
    /// [MP1] EVNT asset ID (0xFFFFFFFF = none).
    pub evnt_id: Option<u32>,
    pub trailing: Vec<u8>,
    pub warnings: Vec<String>,
}

/// How the per-channel maps (rotation/translation/scale) are indexed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChannelMapIndexing {
    /// By the bone channel index value (the game's behaviour). **Default.**
    #[default]
    ByChannelValue,
    /// By the ordinal of the bone among animated bones (one editor's reading).
    ByAnimatedOrdinal,
}

/// One animated bone of a format-0 file with its resolved channel indices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UncompressedBone {
    pub bone_id: u32,
    pub channel: u8,
    pub rotation: Option<u8>,
    pub translation: Option<u8>,
    pub scale: Option<u8>,
}

impl AnimUncompressed {
    pub fn parse(data: &[u8], file: &str, game: Option<Game>) -> Result<Self> {
        match game {
            Some(g) => Self::parse_as(data, file, g),
            None => match Self::parse_as(data, file, Game::Mp2) {
                Ok(a) if is_padding(&a.trailing, data.len()) => Ok(a),
                _ => match Self::parse_as(data, file, Game::Mp3) {
                    Ok(a) if is_padding(&a.trailing, data.len()) => Ok(a),
                    _ => Self::parse_as(data, file, Game::Mp1),
                },
            },
        }
    }

    fn parse_as(data: &[u8], file: &str, game: Game) -> Result<Self> {
        // MP3 version 0 has the MP2 maps and keys (formats.md §13.6).
        let mp2 = game != Game::Mp1;
        let mut r = Reader::new(data, file);
        r.expect_u32("format", 0)?;
        let unknown_u16 = if game == Game::Mp3 {
            Some(r.u16("unknown_u16")?)
        } else {
            None
        };
        let times_at = r.pos();
        let duration = CharAnimTime::read(&mut r, "duration")?;
        let interval = CharAnimTime::read(&mut r, "key_interval")?;
        let frame_count_pos = r.pos();
        let frame_count = r.u32("key_count")?;
        let root_bone_id = r.u32("root_bone_id")?;
        let map = |r: &mut Reader<'_>, field: &str| -> Result<Vec<u8>> {
            let n = r.count(field, 1)?;
            Ok(r.bytes(field, n)?.to_vec())
        };
        let bone_channels_pos = r.pos();
        let bone_channels = map(&mut r, "bone_channel_map")?;
        let rotation_channels = if mp2 {
            Some(map(&mut r, "rotation_channel_map")?)
        } else {
            None
        };
        let translation_channels = map(&mut r, "translation_channel_map")?;
        let scale_channels = if mp2 {
            Some(map(&mut r, "scale_channel_map")?)
        } else {
            None
        };
        let vec3s = |r: &mut Reader<'_>, field: &str| -> Result<(usize, Vec<[f32; 3]>)> {
            let at = r.pos();
            let n = r.count(field, 12)?;
            Ok((at, (0..n).map(|_| r.vec3(field)).collect::<Result<_>>()?))
        };
        let (scale_pos, scale_keys) = if mp2 {
            vec3s(&mut r, "scale_keys")?
        } else {
            (0, Vec::new())
        };
        let rotation_pos = r.pos();
        let n = r.count("rotation_keys", 16)?;
        let rotation_keys = (0..n)
            .map(|_| r.quat("rotation_keys"))
            .collect::<Result<Vec<_>>>()?;
        let (translation_pos, translation_keys) = vec3s(&mut r, "translation_keys")?;
        let evnt_id = if mp2 { None } else { Some(r.u32("evnt_id")?) };
        let trailing = r.rest().to_vec();

        let mut a = AnimUncompressed {
            game,
            unknown_u16,
            duration,
            interval,
            frame_count,
            root_bone_id,
            bone_channels,
            rotation_channels,
            translation_channels,
            scale_channels,
            scale_keys,
            rotation_keys,
            translation_keys,
            evnt_id,
            trailing,
            warnings: Vec::new(),
        };

        if !(duration.seconds.is_finite() && duration.seconds >= 0.0) {
            return Err(r.err_at(
                "duration",
                times_at,
                ErrorKind::Invalid(format!(
                    "duration {} is not a finite non-negative time",
                    duration.seconds
                )),
            ));
        }
        if frame_count > 1 && !(interval.seconds.is_finite() && interval.seconds > 0.0) {
            return Err(r.err_at(
                "key_interval",
                times_at + 8,
                ErrorKind::Invalid(format!(
                    "key interval {} must be positive",
                    interval.seconds
                )),
            ));
        }
        if frame_count == 0 && a.bone_channels.iter().any(|&c| c != 0xFF) {
            a.warnings.push(format!(
                "key_count at byte offset {frame_count_pos:#x}: 0 keys; the animation holds the bind pose"
            ));
        }
        // MP3 stores one slot per bone ID in use (§13.6), not always 100.
        if game != Game::Mp3 && a.bone_channels.len() != 100 {
            a.warnings.push(format!(
                "bone_channel_map at byte offset {bone_channels_pos:#x}: {} entries (always 100 in the game)",
                a.bone_channels.len()
            ));
        }
        let unaddressable = a
            .bone_channels
            .iter()
            .skip(MAX_BONE_ID as usize)
            .filter(|&&c| c != 0xFF)
            .count();
        if unaddressable > 0 {
            a.warnings.push(format!(
                "bone_channel_map at byte offset {bone_channels_pos:#x}: {unaddressable} animated entries past bone ID {} are ignored (the game looks bones up in {MAX_BONE_ID}-entry tables)",
                MAX_BONE_ID - 1
            ));
        }

        // Key counts against what the channel maps address.
        let n = u64::from(frame_count);
        let bones_value = a
            .bones(ChannelMapIndexing::ByChannelValue)
            .map_err(|m| r.err_at("channel_maps", bone_channels_pos, ErrorKind::Invalid(m)))?;
        let need = |idx: &mut dyn Iterator<Item = u8>| {
            idx.map(|c| (u64::from(c) + 1) * n).max().unwrap_or(0)
        };
        let checks: [(&str, usize, u64, usize); 3] = [
            (
                "rotation_keys",
                rotation_pos,
                need(&mut bones_value.iter().filter_map(|b| b.rotation)),
                a.rotation_keys.len(),
            ),
            (
                "translation_keys",
                translation_pos,
                need(&mut bones_value.iter().filter_map(|b| b.translation)),
                a.translation_keys.len(),
            ),
            (
                "scale_keys",
                scale_pos,
                need(&mut bones_value.iter().filter_map(|b| b.scale)),
                a.scale_keys.len(),
            ),
        ];
        for (field, pos, needed, have) in checks {
            if needed > have as u64 {
                return Err(r.err_at(
                    field,
                    pos,
                    ErrorKind::Invalid(format!(
                        "{have} keys stored, but the channel maps address {needed} ({} per channel)",
                        frame_count
                    )),
                ));
            }
            if n > 0 && !(have as u64).is_multiple_of(n) {
                a.warnings.push(format!(
                    "{field} at byte offset {pos:#x}: {have} keys is not a multiple of the key count {frame_count}"
                ));
            }
        }
        let has_translation_map_entries = !a.translation_channels.is_empty();
        if has_translation_map_entries
            && let Ok(bones_ord) = a.bones(ChannelMapIndexing::ByAnimatedOrdinal)
            && bones_ord != bones_value
        {
            a.warnings.push(format!(
                "channel maps at byte offset {bone_channels_pos:#x}: indexing by channel value (used) and by animated-bone ordinal give different channels"
            ));
        }
        Ok(a)
    }

    /// Animated bones in bone-ID order with their channel indices resolved. Map entries past
    /// [`MAX_BONE_ID`] are ignored, as the game ignores them; this also bounds how often
    /// one stored channel can be shared (each sharer becomes a clip channel of its own).
    pub fn bones(
        &self,
        indexing: ChannelMapIndexing,
    ) -> std::result::Result<Vec<UncompressedBone>, String> {
        let mut out = Vec::new();
        let mut ordinal = 0usize;
        let addressable = self.bone_channels.iter().take(MAX_BONE_ID as usize);
        for (bone_id, &channel) in addressable.enumerate() {
            if channel == 0xFF {
                continue;
            }
            let slot = match indexing {
                ChannelMapIndexing::ByChannelValue => usize::from(channel),
                ChannelMapIndexing::ByAnimatedOrdinal => ordinal,
            };
            ordinal += 1;
            let lookup = |map: &Vec<u8>, what: &str| -> std::result::Result<Option<u8>, String> {
                match map.get(slot) {
                    Some(0xFF) => Ok(None),
                    Some(&c) => Ok(Some(c)),
                    None => Err(format!(
                        "bone {bone_id} uses bone channel {channel}, but the {what} map has only {} entries",
                        map.len()
                    )),
                }
            };
            let rotation = match &self.rotation_channels {
                Some(m) => lookup(m, "rotation")?,
                None => Some(channel),
            };
            let translation = lookup(&self.translation_channels, "translation")?;
            let scale = match &self.scale_channels {
                Some(m) => lookup(m, "scale")?,
                None => None,
            };
            out.push(UncompressedBone {
                bone_id: bone_id as u32,
                channel,
                rotation,
                translation,
                scale,
            });
        }
        Ok(out)
    }

    /// Rotation key (w, x, y, z) of a rotation channel at a frame (channel-major layout).
    pub fn rotation_key(&self, channel: u8, frame: u32) -> Option<[f32; 4]> {
        self.rotation_keys
            .get(usize::from(channel) * self.frame_count as usize + frame as usize)
            .copied()
            .filter(|_| frame < self.frame_count)
    }

    pub fn translation_key(&self, channel: u8, frame: u32) -> Option<[f32; 3]> {
        self.translation_keys
            .get(usize::from(channel) * self.frame_count as usize + frame as usize)
            .copied()
            .filter(|_| frame < self.frame_count)
    }

    pub fn scale_key(&self, channel: u8, frame: u32) -> Option<[f32; 3]> {
        self.scale_keys
            .get(usize::from(channel) * self.frame_count as usize + frame as usize)
            .copied()
            .filter(|_| frame < self.frame_count)
    }

    pub fn write(&self) -> Result<Vec<u8>> {
        let mp2 = self.game != Game::Mp1;
        let mut w = Writer::new();
        w.u32(0);
        if self.game == Game::Mp3 {
            w.u16(self.unknown_u16.unwrap_or(0));
        }
        self.duration.write(&mut w);
        self.interval.write(&mut w);
        w.u32(self.frame_count);
        w.u32(self.root_bone_id);
        let map = |w: &mut Writer, m: &[u8], f: &str| -> Result<()> {
            w.u32(len_u32(m.len(), f)?);
            w.bytes(m);
            Ok(())
        };
        map(&mut w, &self.bone_channels, "bone_channel_map")?;
        if mp2 {
            map(
                &mut w,
                self.rotation_channels.as_deref().unwrap_or(&[]),
                "rotation_channel_map",
            )?;
        }
        map(
            &mut w,
            &self.translation_channels,
            "translation_channel_map",
        )?;
        if mp2 {
            map(
                &mut w,
                self.scale_channels.as_deref().unwrap_or(&[]),
                "scale_channel_map",
            )?;
            w.u32(len_u32(self.scale_keys.len(), "scale_keys")?);
            self.scale_keys.iter().for_each(|&k| w.vec3(k));
        }
        w.u32(len_u32(self.rotation_keys.len(), "rotation_keys")?);
        self.rotation_keys.iter().for_each(|&k| w.quat(k));
        w.u32(len_u32(self.translation_keys.len(), "translation_keys")?);
        self.translation_keys.iter().for_each(|&k| w.vec3(k));
        if !mp2 {
            w.u32(self.evnt_id.unwrap_or(u32::MAX));
        }
        w.bytes(&self.trailing);
        Ok(w.into_inner())
    }
}

/// Trailing bytes that are nothing but resource padding (0xFF up to a multiple of 32).
fn is_padding(trailing: &[u8], total_len: usize) -> bool {
    trailing.is_empty()
        || (trailing.len() < 32
            && total_len.is_multiple_of(32)
            && trailing.iter().all(|&b| b == 0xFF))
}

// ---------------------------------------------------------------------------------------
// Format 2
// ---------------------------------------------------------------------------------------

/// Quantised parameters of one component group (rotation, translation or scale).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ComponentParams {
    /// Stored key count (believed to be the stored-frame count; only its non-zero-ness
    /// matters, the decoder follows the bitmap).
    pub key_count: u16,
    /// Frame-0 values (x, y, z).
    pub initial: [i16; 3],
    /// Delta bit widths (x, y, z), 0..=32.
    pub bits: [u8; 3],
}

impl ComponentParams {
    fn bits_per_key(&self) -> u64 {
        self.bits.iter().map(|&b| u64::from(b)).sum()
    }
}

/// One bone channel: its descriptor and its decoded keys at the stored frames.
#[derive(Debug, Clone, PartialEq)]
pub struct CompressedChannel {
    pub bone_id: u32,
    pub rotation: Option<ComponentParams>,
    pub translation: Option<ComponentParams>,
    /// [MP2] only.
    pub scale: Option<ComponentParams>,
    /// Quantised rotation per stored frame: running totals (x, y, z) and the W sign bit.
    pub rotation_keys: Vec<([i32; 3], bool)>,
    pub translation_keys: Vec<[i32; 3]>,
    pub scale_keys: Vec<[i32; 3]>,
}

/// Format 2: header, key bitmap, channel descriptors and the decoded bitstream.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimCompressed {
    pub game: Game,
    /// Runtime scratch memory (ignored).
    pub scratch_size: u32,
    /// [MP1] EVNT asset ID.
    pub evnt_id: u32,
    /// [MP1] the u32 after the EVNT ID (1).
    pub unknown_1: u32,
    /// [MP2] the u16 at offset 8 (0x0101).
    pub unknown_mp2: u16,
    pub duration: f32,
    pub interval: f32,
    pub root_bone_id: u32,
    /// Non-zero: the animation loops.
    pub looping: u32,
    pub rotation_divisor: u32,
    pub translation_multiplier: f32,
    /// [MP2] scale multiplier.
    pub scale_multiplier: Option<f32>,
    /// Bone channel count as stored in the header.
    pub bone_channel_count: u32,
    /// The u32 after the channel count (1).
    pub unknown_3: u32,
    /// Key bitmap length in bits (the frame count F).
    pub key_bitmap_bit_count: u32,
    /// The bitmap words, LSB-first.
    pub key_bitmap: Vec<u32>,
    /// [MP1] the repeated channel count before the descriptor count.
    pub channel_count_repeat: Option<u32>,
    pub channels: Vec<CompressedChannel>,
    /// Frames holding keys, ascending, frame 0 included.
    pub stored_frames: Vec<u32>,
    /// Byte offset where the bitstream starts (after the last descriptor).
    pub bitstream_offset: usize,
    /// Bits the keys occupy.
    pub bitstream_bits: u64,
    /// The unused high bits of the last bitstream word, kept for byte-exact writing.
    pub bitstream_pad_bits: u32,
    /// Bytes after the last bitstream word.
    pub trailing: Vec<u8>,
    pub warnings: Vec<String>,
}

/// Upper bound on decoded keys relative to the input size: zero-width channels cost no
/// bits, so without it a small hostile file could request billions of keys.
fn key_budget(data_len: usize) -> u64 {
    64 * data_len as u64 + 65_536
}

impl AnimCompressed {
    /// Whether a format-2 file uses the MP2 header (u16 0x0101 at offset 8).
    pub fn detect_game(data: &[u8]) -> Game {
        if data.len() >= 10 && data[8..10] == [0x01, 0x01] {
            Game::Mp2
        } else {
            Game::Mp1
        }
    }

    pub fn parse(data: &[u8], file: &str, game: Option<Game>) -> Result<Self> {
        let game = game.unwrap_or_else(|| Self::detect_game(data));
        let mp2 = game == Game::Mp2;
        let mut r = Reader::new(data, file);
        let mut warnings = Vec::new();
        r.expect_u32("format", 2)?;
        let scratch_size = r.u32("scratch_size")?;
        let (evnt_id, unknown_1, unknown_mp2) = if mp2 {
            (u32::MAX, 0, r.u16("unknown_0x0101")?)
        } else {
            (r.u32("evnt_id")?, r.u32("unknown_1")?, 0)
        };
        let duration_pos = r.pos();
        let duration = r.f32("duration")?;
        let interval = r.f32("interval")?;
        let root_bone_id = r.u32("root_bone_id")?;
        let looping = r.u32("looping")?;
        let divisor_pos = r.pos();
        let rotation_divisor = r.u32("rotation_divisor")?;
        let translation_multiplier = r.f32("translation_multiplier")?;
        let scale_multiplier = if mp2 {
            Some(r.f32("scale_multiplier")?)
        } else {
            None
        };
        let bone_channel_count = r.u32("bone_channel_count")?;
        let unknown_3 = r.u32("unknown_3")?;
        let bitmap_pos = r.pos();
        let key_bitmap_bit_count = r.u32("key_bitmap_bit_count")?;
        let words = r.check_count(
            "key_bitmap",
            u64::from(key_bitmap_bit_count).div_ceil(32),
            4,
        )?;
        let key_bitmap = r.u32_vec("key_bitmap", words)?;
        let channel_count_repeat = if mp2 {
            None
        } else {
            Some(r.u32("bone_channel_count_repeat")?)
        };
        let desc_count = r.count("descriptor_count", if mp2 { 5 } else { 8 })?;

        if rotation_divisor == 0 {
            return Err(r.err_at(
                "rotation_divisor",
                divisor_pos,
                ErrorKind::Invalid("rotation divisor is 0".into()),
            ));
        }
        for (field, v, pos) in [
            ("duration", duration, duration_pos),
            ("interval", interval, duration_pos + 4),
            (
                "translation_multiplier",
                translation_multiplier,
                divisor_pos + 4,
            ),
            (
                "scale_multiplier",
                scale_multiplier.unwrap_or(1.0),
                divisor_pos + 8,
            ),
        ] {
            if !v.is_finite() {
                return Err(r.err_at(field, pos, ErrorKind::Invalid(format!("{v} is not finite"))));
            }
        }
        if duration < 0.0 {
            return Err(r.err_at(
                "duration",
                duration_pos,
                ErrorKind::Invalid(format!("negative duration {duration}")),
            ));
        }
        if key_bitmap_bit_count > 1 && interval <= 0.0 {
            return Err(r.err_at(
                "interval",
                duration_pos + 4,
                ErrorKind::Invalid(format!("frame interval {interval} must be positive")),
            ));
        }
        if desc_count as u64 != u64::from(bone_channel_count) {
            warnings.push(format!(
                "descriptor_count: {desc_count} descriptors, header says {bone_channel_count} channels"
            ));
        }
        if key_bitmap_bit_count == 0 {
            warnings.push(format!(
                "key_bitmap_bit_count at byte offset {bitmap_pos:#x}: 0 frames; frame 0 (the initial values) is used"
            ));
        }

        let mut channels = Vec::with_capacity(desc_count);
        for c in 0..desc_count {
            let at = r.pos();
            let bone_id = if mp2 {
                u32::from(r.u8(&format!("channels[{c}].bone_id"))?)
            } else {
                r.u32(&format!("channels[{c}].bone_id"))?
            };
            if bone_id >= MAX_BONE_ID {
                return Err(r.err_at(
                    &format!("channels[{c}].bone_id"),
                    at,
                    ErrorKind::OutOfRange {
                        value: bone_id.into(),
                        expected: format!("a bone ID below {MAX_BONE_ID}"),
                    },
                ));
            }
            if channels
                .iter()
                .any(|ch: &CompressedChannel| ch.bone_id == bone_id)
            {
                warnings.push(format!(
                    "channels[{c}] at byte offset {at:#x}: bone {bone_id} has a second channel (the last one wins)"
                ));
            }
            let rotation = read_params(&mut r, &format!("channels[{c}].rotation"))?;
            let translation = read_params(&mut r, &format!("channels[{c}].translation"))?;
            let scale = if mp2 {
                read_params(&mut r, &format!("channels[{c}].scale"))?
            } else {
                None
            };
            channels.push(CompressedChannel {
                bone_id,
                rotation,
                translation,
                scale,
                rotation_keys: Vec::new(),
                translation_keys: Vec::new(),
                scale_keys: Vec::new(),
            });
        }

        // Stored frames from the bitmap; frame 0 always holds the initial values.
        let bit = |i: u32| (key_bitmap[(i / 32) as usize] >> (i % 32)) & 1 == 1;
        if key_bitmap_bit_count > 0 && !bit(0) {
            warnings.push(format!(
                "key_bitmap at byte offset {:#x}: frame 0 is not marked, treated as stored",
                bitmap_pos + 4
            ));
        }
        let stored_after_0 = (1..key_bitmap_bit_count).filter(|&i| bit(i)).count() as u64;
        let bits_per_frame: u64 = channels
            .iter()
            .map(|c| {
                c.rotation.map_or(0, |p| 1 + p.bits_per_key())
                    + c.translation.map_or(0, |p| p.bits_per_key())
                    + c.scale.map_or(0, |p| p.bits_per_key())
            })
            .sum();
        let bitstream_offset = r.pos();
        let total_bits = stored_after_0 * bits_per_frame;
        let words_needed = total_bits.div_ceil(32);
        if words_needed * 4 > r.remaining() as u64 {
            return Err(r.err(
                "bitstream",
                ErrorKind::Truncated {
                    needed: words_needed * 4,
                    available: r.remaining() as u64,
                },
            ));
        }
        let keys = (stored_after_0 + 1) * channels.len() as u64;
        if keys > key_budget(data.len()) {
            return Err(r.err_at(
                "key_bitmap",
                bitmap_pos,
                ErrorKind::Invalid(format!(
                    "{keys} keys requested by a {}-byte file; refusing to decode",
                    data.len()
                )),
            ));
        }
        for (c, p) in channels.iter().flat_map(|c| {
            [c.rotation, c.translation, c.scale]
                .into_iter()
                .flatten()
                .map(move |p| (c.bone_id, p))
        }) {
            if u64::from(p.key_count) != stored_after_0 + 1 {
                warnings.push(format!(
                    "bone {c}: key count {} differs from the {} stored frames (the bitmap is followed)",
                    p.key_count,
                    stored_after_0 + 1
                ));
                break;
            }
        }

        let stream = r.bytes("bitstream", (words_needed * 4) as usize)?;
        let mut stored_frames = Vec::with_capacity(stored_after_0 as usize + 1);
        stored_frames.push(0);
        stored_frames.extend((1..key_bitmap_bit_count).filter(|&i| bit(i)));
        decode_keys(stream, &mut channels, stored_frames.len());
        let used_in_last = (total_bits % 32) as u32;
        let bitstream_pad_bits = match (stream.len(), used_in_last) {
            (0, _) | (_, 0) => 0,
            (len, used) => {
                let last = &stream[len - 4..];
                let word = u32::from_be_bytes([last[0], last[1], last[2], last[3]]);
                word >> used << used
            }
        };
        let trailing = r.rest().to_vec();
        Ok(AnimCompressed {
            game,
            scratch_size,
            evnt_id,
            unknown_1,
            unknown_mp2,
            duration,
            interval,
            root_bone_id,
            looping,
            rotation_divisor,
            translation_multiplier,
            scale_multiplier,
            bone_channel_count,
            unknown_3,
            key_bitmap_bit_count,
            key_bitmap,
            channel_count_repeat,
            channels,
            stored_frames,
            bitstream_offset,
            bitstream_bits: total_bits,
            bitstream_pad_bits,
            trailing,
            warnings,
        })
    }

    /// Frame count F (frames at `i × interval`, i in 0..F); at least 1.
    pub fn frame_count(&self) -> u32 {
        self.key_bitmap_bit_count.max(1)
    }

    /// Whether frame `i` is stored (frame 0 always is).
    pub fn is_stored(&self, frame: u32) -> bool {
        frame == 0
            || (frame < self.key_bitmap_bit_count
                && self
                    .key_bitmap
                    .get((frame / 32) as usize)
                    .is_some_and(|w| (w >> (frame % 32)) & 1 == 1))
    }

    /// The rotation quantum q = (π/2) / divisor.
    pub fn rotation_quantum(&self) -> f64 {
        std::f64::consts::FRAC_PI_2 / f64::from(self.rotation_divisor)
    }

    /// Dequantises a rotation key to (w, x, y, z).
    pub fn dequantize_rotation(&self, xyz: [i32; 3], wsign: bool) -> [f32; 4] {
        dequantize_rotation(self.rotation_divisor, xyz, wsign)
    }

    pub fn dequantize_translation(&self, t: [i32; 3]) -> [f32; 3] {
        t.map(|v| v as f32 * self.translation_multiplier)
    }

    pub fn dequantize_scale(&self, s: [i32; 3]) -> [f32; 3] {
        let m = self.scale_multiplier.unwrap_or(1.0);
        s.map(|v| v as f32 * m)
    }

    /// Writes the file: header, bitmap, descriptors and the bitstream re-encoded from the
    /// keys (deltas between consecutive stored keys). Each delta must fit its width.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mp2 = self.game == Game::Mp2;
        let err = |field: String, msg: String| {
            FormatError::new("ANIM writer", field, 0, ErrorKind::Invalid(msg))
        };
        let mut w = Writer::new();
        w.u32(2);
        w.u32(self.scratch_size);
        if mp2 {
            w.u16(self.unknown_mp2);
        } else {
            w.u32(self.evnt_id);
            w.u32(self.unknown_1);
        }
        w.f32(self.duration);
        w.f32(self.interval);
        w.u32(self.root_bone_id);
        w.u32(self.looping);
        w.u32(self.rotation_divisor);
        w.f32(self.translation_multiplier);
        if mp2 {
            w.f32(self.scale_multiplier.unwrap_or(1.0));
        }
        w.u32(self.bone_channel_count);
        w.u32(self.unknown_3);
        w.u32(self.key_bitmap_bit_count);
        if self.key_bitmap.len() as u64 != u64::from(self.key_bitmap_bit_count).div_ceil(32) {
            return Err(err(
                "key_bitmap".into(),
                "word count does not match the bit count".into(),
            ));
        }
        self.key_bitmap.iter().for_each(|&x| w.u32(x));
        if !mp2 {
            w.u32(self.channel_count_repeat.unwrap_or(self.bone_channel_count));
        }
        w.u32(len_u32(self.channels.len(), "descriptor_count")?);
        for (c, ch) in self.channels.iter().enumerate() {
            if mp2 {
                let id = u8::try_from(ch.bone_id).map_err(|_| {
                    err(
                        format!("channels[{c}].bone_id"),
                        "MP2 bone IDs are u8".into(),
                    )
                })?;
                w.u8(id);
            } else {
                w.u32(ch.bone_id);
            }
            write_params(&mut w, ch.rotation);
            write_params(&mut w, ch.translation);
            if mp2 {
                write_params(&mut w, ch.scale);
            } else if ch.scale.is_some() {
                return Err(err(
                    format!("channels[{c}].scale"),
                    "MP1 has no scale channels".into(),
                ));
            }
        }
        let n = self.stored_frames.len();
        for (c, ch) in self.channels.iter().enumerate() {
            let check = |present: bool, len: usize, what: &str| {
                if present && len != n || !present && len != 0 {
                    Err(err(
                        format!("channels[{c}].{what}"),
                        format!("{len} keys for {n} stored frames"),
                    ))
                } else {
                    Ok(())
                }
            };
            check(ch.rotation.is_some(), ch.rotation_keys.len(), "rotation")?;
            check(
                ch.translation.is_some(),
                ch.translation_keys.len(),
                "translation",
            )?;
            check(ch.scale.is_some(), ch.scale_keys.len(), "scale")?;
            for (p, first, what) in [
                (
                    ch.rotation,
                    ch.rotation_keys.first().map(|k| k.0),
                    "rotation",
                ),
                (
                    ch.translation,
                    ch.translation_keys.first().copied(),
                    "translation",
                ),
                (ch.scale, ch.scale_keys.first().copied(), "scale"),
            ] {
                if let (Some(p), Some(first)) = (p, first)
                    && p.initial.map(i32::from) != first
                {
                    return Err(err(
                        format!("channels[{c}].{what}"),
                        "the first key must equal the initial values".into(),
                    ));
                }
            }
        }
        let mut bw = BitWriter::default();
        for k in 1..n {
            for (c, ch) in self.channels.iter().enumerate() {
                if let Some(p) = ch.rotation {
                    let (v, sign) = ch.rotation_keys[k];
                    bw.write_bits(u32::from(sign), 1);
                    write_deltas(&mut bw, ch.rotation_keys[k - 1].0, v, p.bits)
                        .map_err(|m| err(format!("channels[{c}].rotation"), m))?;
                }
                if let Some(p) = ch.translation {
                    write_deltas(
                        &mut bw,
                        ch.translation_keys[k - 1],
                        ch.translation_keys[k],
                        p.bits,
                    )
                    .map_err(|m| err(format!("channels[{c}].translation"), m))?;
                }
                if let Some(p) = ch.scale {
                    write_deltas(&mut bw, ch.scale_keys[k - 1], ch.scale_keys[k], p.bits)
                        .map_err(|m| err(format!("channels[{c}].scale"), m))?;
                }
            }
        }
        let mut words = bw.finish();
        if let Some(last) = words.last_mut() {
            *last |= self.bitstream_pad_bits;
        }
        words.iter().for_each(|&x| w.u32(x));
        w.bytes(&self.trailing);
        Ok(w.into_inner())
    }
}

/// Dequantises a rotation: x, y, z = sin(R·q), w = √max(0, 1 − x² − y² − z²), negated when
/// the sign bit is set (formats.md §7.4).
pub fn dequantize_rotation(divisor: u32, xyz: [i32; 3], wsign: bool) -> [f32; 4] {
    let q = std::f64::consts::FRAC_PI_2 / f64::from(divisor.max(1));
    let [x, y, z] = xyz.map(|v| (f64::from(v) * q).sin());
    let mut w = (1.0 - x * x - y * y - z * z).max(0.0).sqrt();
    if wsign {
        w = -w;
    }
    [w as f32, x as f32, y as f32, z as f32]
}

/// Decodes the bitstream into every channel's keys (`stored` keys each, frame 0 = initial).
///
/// The stream is frame-major but the keys are kept channel-major, so writing each key
/// straight to its channel would scatter stores over hundreds of streams. Frames are
/// decoded in tiles into a small frame-major scratch buffer that stays in cache, then
/// each channel's run is appended contiguously.
fn decode_keys(stream: &[u8], channels: &mut [CompressedChannel], stored: usize) {
    // About 16k keys per tile (≤ 256 KiB per component), 1 to 64 frames.
    let n = channels.len();
    let tile = (16_384 / n.max(1)).clamp(1, 64);
    let mut br = BitReader::new(stream);
    let mut rot: Vec<([i32; 3], bool)> = Vec::with_capacity(n);
    let mut trans: Vec<[i32; 3]> = Vec::with_capacity(n);
    let mut scale: Vec<[i32; 3]> = Vec::with_capacity(n);
    for ch in channels.iter_mut() {
        let init = |p: Option<ComponentParams>| p.map_or([0; 3], |p| p.initial.map(i32::from));
        rot.push((init(ch.rotation), false));
        trans.push(init(ch.translation));
        scale.push(init(ch.scale));
        if ch.rotation.is_some() {
            ch.rotation_keys.reserve_exact(stored);
            ch.rotation_keys.push(rot[rot.len() - 1]);
        }
        if ch.translation.is_some() {
            ch.translation_keys.reserve_exact(stored);
            ch.translation_keys.push(trans[trans.len() - 1]);
        }
        if ch.scale.is_some() {
            ch.scale_keys.reserve_exact(stored);
            ch.scale_keys.push(scale[scale.len() - 1]);
        }
    }
    let size = |present: bool| if present && stored > 1 { tile * n } else { 0 };
    let mut tile_rot =
        vec![([0i32; 3], false); size(channels.iter().any(|c| c.rotation.is_some()))];
    let mut tile_trans = vec![[0i32; 3]; size(channels.iter().any(|c| c.translation.is_some()))];
    let mut tile_scale = vec![[0i32; 3]; size(channels.iter().any(|c| c.scale.is_some()))];
    let mut frame = 1;
    while frame < stored {
        let len = tile.min(stored - frame);
        for f in 0..len {
            for (c, ch) in channels.iter().enumerate() {
                let at = f * n + c;
                if let Some(p) = ch.rotation {
                    let wsign = br.read_bits(1) & 1 == 1;
                    rot[c] = (read_deltas(&mut br, rot[c].0, p.bits), wsign);
                    tile_rot[at] = rot[c];
                }
                if let Some(p) = ch.translation {
                    trans[c] = read_deltas(&mut br, trans[c], p.bits);
                    tile_trans[at] = trans[c];
                }
                if let Some(p) = ch.scale {
                    scale[c] = read_deltas(&mut br, scale[c], p.bits);
                    tile_scale[at] = scale[c];
                }
            }
        }
        for (c, ch) in channels.iter_mut().enumerate() {
            if ch.rotation.is_some() {
                ch.rotation_keys
                    .extend((0..len).map(|f| tile_rot[f * n + c]));
            }
            if ch.translation.is_some() {
                ch.translation_keys
                    .extend((0..len).map(|f| tile_trans[f * n + c]));
            }
            if ch.scale.is_some() {
                ch.scale_keys
                    .extend((0..len).map(|f| tile_scale[f * n + c]));
            }
        }
        frame += len;
    }
}

fn read_params(r: &mut Reader<'_>, field: &str) -> Result<Option<ComponentParams>> {
    let key_count = r.u16(&format!("{field}.key_count"))?;
    if key_count == 0 {
        return Ok(None);
    }
    let mut p = ComponentParams {
        key_count,
        ..Default::default()
    };
    for (i, axis) in ["x", "y", "z"].into_iter().enumerate() {
        p.initial[i] = r.i16(&format!("{field}.initial_{axis}"))?;
        let at = r.pos();
        let bits = r.u8(&format!("{field}.bits_{axis}"))?;
        if bits > 32 {
            return Err(r.err_at(
                &format!("{field}.bits_{axis}"),
                at,
                ErrorKind::OutOfRange {
                    value: bits.into(),
                    expected: "a bit width of 0..=32".into(),
                },
            ));
        }
        p.bits[i] = bits;
    }
    Ok(Some(p))
}

fn write_params(w: &mut Writer, p: Option<ComponentParams>) {
    match p {
        None => w.u16(0),
        Some(p) => {
            w.u16(p.key_count.max(1));
            for i in 0..3 {
                w.i16(p.initial[i]);
                w.u8(p.bits[i]);
            }
        }
    }
}

fn read_deltas(br: &mut BitReader<'_>, prev: [i32; 3], bits: [u8; 3]) -> [i32; 3] {
    let mut out = prev;
    for i in 0..3 {
        out[i] = prev[i].wrapping_add(br.read_signed(bits[i]));
    }
    out
}

fn write_deltas(
    bw: &mut BitWriter,
    prev: [i32; 3],
    next: [i32; 3],
    bits: [u8; 3],
) -> std::result::Result<(), String> {
    for i in 0..3 {
        let d = next[i].wrapping_sub(prev[i]);
        if !fits_signed(d, bits[i]) {
            return Err(format!("delta {d} does not fit {} bits", bits[i]));
        }
        bw.write_bits(d as u32, bits[i]);
    }
    Ok(())
}

/// Whether `v` is representable as a `bits`-wide two's-complement field.
pub fn fits_signed(v: i32, bits: u8) -> bool {
    match bits {
        0 => v == 0,
        32.. => true,
        b => {
            let half = 1i64 << (b - 1);
            (-half..half).contains(&i64::from(v))
        }
    }
}

/// The smallest width holding every value of `values` as a signed field (0 if all are 0).
pub fn signed_width(values: impl IntoIterator<Item = i32>) -> u8 {
    let mut width = 0u8;
    for v in values {
        while !fits_signed(v, width) {
            width += 1;
        }
    }
    width
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn bit_reader_is_lsb_first_and_sign_extends() {
        // Word 0 = 0b...1011_0101: first 3 bits (LSB-first) are 101 = 5 → signed −3.
        let data = 0x0000_00B5u32.to_be_bytes();
        let mut br = BitReader::new(&data);
        assert_eq!(br.read_signed(3), -3);
        assert_eq!(br.read_bits(0), 0);
        assert_eq!(br.read_signed(0), 0);
        // Next 5 bits: 10110 = 0x16 → signed −10.
        assert_eq!(br.read_signed(5), -10);
        assert_eq!(br.bit_pos(), 8);
    }

    #[test]
    fn fields_span_words() {
        let mut bw = BitWriter::default();
        bw.write_bits(0x7FF_FFFF, 30);
        bw.write_bits(0b1_0110, 5); // spans the word boundary
        bw.write_bits(0xDEAD_BEEF, 32);
        let words = bw.finish();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_be_bytes()).collect();
        let mut br = BitReader::new(&bytes);
        assert_eq!(br.read_bits(30), 0x7FF_FFFF);
        assert_eq!(br.read_signed(5), -10);
        assert_eq!(br.read_bits(32), 0xDEAD_BEEF);
    }

    #[test]
    fn widths() {
        assert_eq!(signed_width([0, 0]), 0);
        assert_eq!(signed_width([-1]), 1);
        assert_eq!(signed_width([1]), 2);
        assert_eq!(signed_width([127, -128]), 8);
        assert_eq!(signed_width([128]), 9);
        assert_eq!(signed_width([i32::MIN, i32::MAX]), 32);
        assert!(!fits_signed(1, 1));
        assert!(fits_signed(-1, 1));
    }

    #[test]
    fn format0_warns_when_map_indexing_is_ambiguous() {
        // Bone 3 → channel 1, bone 4 → channel 0: the translation map [0, 0xFF] gives bone 4
        // translation channel 0 by value, but bone 3 by ordinal.
        let mut bone_channels = vec![0xFF; 100];
        bone_channels[3] = 1;
        bone_channels[4] = 0;
        let a = AnimUncompressed {
            game: Game::Mp1,
            unknown_u16: None,
            duration: CharAnimTime {
                seconds: 0.0,
                differential_state: 0,
            },
            interval: CharAnimTime {
                seconds: 0.1,
                differential_state: 0,
            },
            frame_count: 1,
            root_bone_id: 3,
            bone_channels,
            rotation_channels: None,
            translation_channels: vec![0, 0xFF],
            scale_channels: None,
            scale_keys: vec![],
            rotation_keys: vec![[1.0, 0.0, 0.0, 0.0]; 2],
            translation_keys: vec![[1.0, 2.0, 3.0]],
            evnt_id: Some(u32::MAX),
            trailing: vec![],
            warnings: vec![],
        };
        let bytes = a.write().unwrap();
        let back = AnimUncompressed::parse(&bytes, "t", Some(Game::Mp1)).unwrap();
        assert_eq!(back.warnings.len(), 1, "{:?}", back.warnings);
        let by_value = back.bones(ChannelMapIndexing::ByChannelValue).unwrap();
        let by_ordinal = back.bones(ChannelMapIndexing::ByAnimatedOrdinal).unwrap();
        assert_eq!((by_value[0].bone_id, by_value[0].translation), (3, None));
        assert_eq!((by_value[1].bone_id, by_value[1].translation), (4, Some(0)));
        assert_eq!(by_ordinal[0].translation, Some(0));
        assert_eq!(back.write().unwrap(), bytes);
    }

    #[test]
    fn format0_map_entries_past_bone_99_are_ignored() {
        // 5000 bones sharing channel 0: each would become a clip channel copying its keys
        // (quadratic in the file's size); the game addresses only bones 0..100.
        let a = AnimUncompressed {
            game: Game::Mp1,
            unknown_u16: None,
            duration: CharAnimTime::default(),
            interval: CharAnimTime {
                seconds: 0.1,
                differential_state: 0,
            },
            frame_count: 4,
            root_bone_id: 3,
            bone_channels: vec![0; 5000],
            rotation_channels: None,
            translation_channels: vec![0xFF],
            scale_channels: None,
            scale_keys: vec![],
            rotation_keys: vec![[1.0, 0.0, 0.0, 0.0]; 4],
            translation_keys: vec![],
            evnt_id: Some(u32::MAX),
            trailing: vec![],
            warnings: vec![],
        };
        let back = AnimUncompressed::parse(&a.write().unwrap(), "t", Some(Game::Mp1)).unwrap();
        assert!(
            back.warnings
                .iter()
                .any(|w| w.contains("4900 animated entries past bone ID 99 are ignored")),
            "{:?}",
            back.warnings
        );
        let bones = back.bones(ChannelMapIndexing::ByChannelValue).unwrap();
        assert_eq!(bones.len(), 100);
        assert_eq!(bones.last().map(|b| b.bone_id), Some(99));
    }

    #[test]
    fn dequantizes_rotation() {
        let q = dequantize_rotation(256, [0, 0, 100], false);
        assert!((q[0] - 0.817_584_8).abs() < 1e-6);
        assert!((q[3] - 0.575_808_2).abs() < 1e-6);
        let q = dequantize_rotation(256, [0, 0, 100], true);
        assert!(q[0] < 0.0);
    }
}
