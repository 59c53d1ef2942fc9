//! MP3 ANIM version 1 (formats.md §13.6): a packed header, explicit key times, per-bone
//! channel flags, s16 initial values and a delta bitstream with one width per component.
//!
//! Version 0 is the MP2 format-0 layout with a u16 after the version and is read by
//! [`super::anim::AnimUncompressed`]. Every header field is kept so [`AnimBitstream::write`]
//! reproduces the file; the bitstream is decoded to per-component running totals (what it
//! really holds) and kept verbatim for writing.

use super::bits::BitReader;
use super::{ErrorKind, Reader, Result, Writer, cinf::len_u32};

/// Size of the fixed header; the key times start here.
const HEADER_SIZE: usize = 0x45;

/// Upper bound on decoded component keys relative to the input size. Zero-width
/// components cost no bits, so without it a small hostile file could ask for K × C in the
/// hundreds of millions; real files spend bits on most components and stay far below.
fn key_budget(data_len: usize) -> u64 {
    4 * data_len as u64 + 16_384
}

/// Bone flag bits (by bone index).
pub const FLAG_ROTATION: u8 = 1;
pub const FLAG_TRANSLATION: u8 = 2;
pub const FLAG_SCALE: u8 = 4;

/// The rotation quantum: x, y, z = total / 32767.
pub const ROTATION_SCALE: f32 = 32767.0;

/// What a component animates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ComponentKind {
    #[serde(rename = "rot")]
    Rotation,
    #[serde(rename = "trans")]
    Translation,
    Scale,
}

/// One decoded component: a bone index, its kind and axis (rotation: w, x, y, z = 0..4).
#[derive(Debug, Clone, PartialEq)]
pub struct Component {
    pub bone: u32,
    pub kind: ComponentKind,
    pub axis: u8,
    /// Running s32 totals, one per key (key 0 = the initial value).
    pub totals: Vec<i32>,
}

/// A parsed version-1 animation.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimBitstream {
    /// 0x04..0x0E: u16, u8, u32, u8[3], meaning unknown.
    pub unknown_04: [u8; 10],
    pub translation_multiplier: f32,
    pub scale_multiplier: f32,
    /// 0x16..0x22: u32, f32, f32, meaning unknown.
    pub unknown_16: [u8; 12],
    pub duration: f32,
    pub blob_size: u32,
    pub unknown_2c: u8,
    pub floats_size: u32,
    pub flags_size: u32,
    /// Bytes of initial values (s16 each).
    pub init_block_size: u32,
    pub stream_size: u32,
    pub unknown_3d: u32,
    pub bone_count: u32,
    /// Key times in seconds (K ≥ 1, non-decreasing).
    pub key_times: Vec<f32>,
    /// Per bone index: bit 0 rotation, bit 1 translation, bit 2 scale.
    pub bone_flags: Vec<u8>,
    pub initial_values: Vec<i16>,
    /// Q, the stored component count.
    pub component_count: u32,
    /// The two words after Q, meaning unknown.
    pub component_unknown: [u32; 2],
    pub bit_widths: Vec<u8>,
    /// The bitstream bytes (computed size), verbatim.
    pub stream: Vec<u8>,
    /// The unexplained bit before each key's deltas, keys 1..K.
    pub per_key_bits: Vec<bool>,
    /// Components in stream order, decoded.
    pub components: Vec<Component>,
    pub trailing: Vec<u8>,
    pub warnings: Vec<String>,
}

/// Components of one bone's flags, in stream order.
fn components_of(flags: u8) -> impl Iterator<Item = (ComponentKind, u8)> {
    let rot = (flags & FLAG_ROTATION != 0).then_some((ComponentKind::Rotation, 4));
    let trans = (flags & FLAG_TRANSLATION != 0).then_some((ComponentKind::Translation, 3));
    let scale = (flags & FLAG_SCALE != 0).then_some((ComponentKind::Scale, 3));
    [rot, trans, scale]
        .into_iter()
        .flatten()
        .flat_map(|(k, n)| (0..n).map(move |a| (k, a)))
}

impl AnimBitstream {
    pub fn parse(data: &[u8], file: &str) -> Result<Self> {
        let mut r = Reader::new(data, file);
        let mut warnings = Vec::new();
        r.expect_u32("version", 1)?;
        let unknown_04 = r.array::<10>("header.unknown_04")?;
        let translation_multiplier = r.f32("translation_multiplier")?;
        let scale_multiplier = r.f32("scale_multiplier")?;
        let unknown_16 = r.array::<12>("header.unknown_16")?;
        let duration_at = r.pos();
        let duration = r.f32("duration")?;
        let key_count_at = r.pos();
        let key_count = usize::from(r.u16("key_count")?);
        let blob_size = r.u32("blob_size")?;
        let unknown_2c = r.u8("header.unknown_2c")?;
        let floats_size = r.u32("floats_size")?;
        let flags_size = r.u32("flags_size")?;
        let init_block_size = r.u32("init_block_size")?;
        let stream_size = r.u32("stream_size")?;
        let unknown_3d = r.u32("header.unknown_3d")?;
        let bone_count = r.u32("bone_count")?;
        debug_assert_eq!(r.pos(), HEADER_SIZE);
        if !(duration.is_finite() && duration >= 0.0) {
            return Err(r.err_at(
                "duration",
                duration_at,
                ErrorKind::Invalid(format!(
                    "duration {duration} is not a finite non-negative time"
                )),
            ));
        }
        for (name, m) in [
            ("translation_multiplier", translation_multiplier),
            ("scale_multiplier", scale_multiplier),
        ] {
            if !m.is_finite() {
                return Err(r.err_at(
                    name,
                    if name.starts_with('t') { 0x0E } else { 0x12 },
                    ErrorKind::Invalid(format!("{m} is not finite")),
                ));
            }
        }
        if key_count == 0 {
            return Err(r.err_at(
                "key_count",
                key_count_at,
                ErrorKind::Invalid("no keys (version 1 stores at least key 0)".into()),
            ));
        }

        let times_at = r.pos();
        r.check_count("key_times", key_count as u64, 4)?;
        let key_times = (0..key_count)
            .map(|_| r.f32("key_times"))
            .collect::<Result<Vec<_>>>()?;
        for (k, t) in key_times.iter().enumerate() {
            let prev = if k == 0 { 0.0 } else { key_times[k - 1] };
            if !t.is_finite() || (k > 0 && *t < prev) {
                return Err(r.err_at(
                    &format!("key_times[{k}]"),
                    times_at + 4 * k,
                    ErrorKind::Invalid(format!("key time {t} is not finite or goes back in time")),
                ));
            }
        }

        let flags_at = r.pos();
        let b = usize::from(r.u8("bone_flag_count")?);
        let bone_flags = r.bytes("bone_flags", b)?.to_vec();
        if b as u64 != u64::from(bone_count) {
            warnings.push(format!(
                "bone_flags at byte offset {flags_at:#x}: {b} bones, the header says {bone_count}"
            ));
        }
        let components: Vec<(u32, ComponentKind, u8)> = bone_flags
            .iter()
            .enumerate()
            .flat_map(|(i, &f)| components_of(f).map(move |(k, a)| (i as u32, k, a)))
            .collect();
        let c = components.len();

        let init_at = r.pos();
        let n_init = r.check_count("initial_values", u64::from(init_block_size / 2), 2)?;
        let initial_values = (0..n_init)
            .map(|_| r.i16("initial_values"))
            .collect::<Result<Vec<_>>>()?;
        if init_block_size % 2 != 0 {
            return Err(r.err_at(
                "init_block_size",
                0x35,
                ErrorKind::Invalid(format!(
                    "{init_block_size} bytes is not a whole number of s16 values"
                )),
            ));
        }
        let q_at = r.pos();
        let component_count = r.u32("component_count")?;
        let component_unknown = [r.u32("component_unknown")?, r.u32("component_unknown")?];
        let widths_at = r.pos();
        let n_widths = r.check_count("bit_widths", component_count.into(), 1)?;
        let bit_widths = r.bytes("bit_widths", n_widths)?.to_vec();
        if component_count as usize != c || n_init != c {
            warnings.push(format!(
                "component_count at byte offset {q_at:#x}: {component_count} widths and {n_init} initial values; the bone flags give {c} components"
            ));
        }
        if n_widths < c || n_init < c {
            return Err(r.err_at(
                if n_widths < c { "bit_widths" } else { "initial_values" },
                if n_widths < c { widths_at } else { init_at },
                ErrorKind::Invalid(format!(
                    "the bone flags give {c} components, only {n_widths} widths and {n_init} initial values are stored"
                )),
            ));
        }
        if let Some(i) = bit_widths.iter().take(c).position(|&w| w > 32) {
            return Err(r.err_at(
                &format!("bit_widths[{i}]"),
                widths_at + i,
                ErrorKind::OutOfRange {
                    value: bit_widths[i].into(),
                    expected: "0..=32 bits".into(),
                },
            ));
        }

        let keys = key_count as u64 * c as u64;
        if keys > key_budget(data.len()) {
            return Err(r.err_at(
                "key_count",
                key_count_at,
                ErrorKind::Invalid(format!(
                    "{keys} keys requested by a {}-byte file; refusing to decode",
                    data.len()
                )),
            ));
        }
        let bits_per_key: u64 = 1 + bit_widths
            .iter()
            .take(c)
            .map(|&w| u64::from(w))
            .sum::<u64>();
        let stream_bytes = (bits_per_key * (key_count as u64 - 1)).div_ceil(32) * 4;
        let stream_at = r.pos();
        let n = r.check_count("bitstream", stream_bytes, 1)?;
        let stream = r.bytes("bitstream", n)?.to_vec();
        if u64::from(stream_size) != stream_bytes {
            warnings.push(format!(
                "bitstream at byte offset {stream_at:#x}: {stream_bytes} bytes, the header's stream size says {stream_size}"
            ));
        }
        let trailing = r.rest().to_vec();

        // Decode: key 0 = initial values; each later key: 1 bit, then every delta.
        let mut comps: Vec<Component> = components
            .iter()
            .zip(&initial_values)
            .map(|(&(bone, kind, axis), &init)| {
                let mut totals = Vec::with_capacity(key_count);
                totals.push(i32::from(init));
                Component {
                    bone,
                    kind,
                    axis,
                    totals,
                }
            })
            .collect();
        let mut br = BitReader::new(&stream);
        let mut per_key_bits = Vec::with_capacity(key_count - 1);
        for _ in 1..key_count {
            per_key_bits.push(br.read_bits(1) != 0);
            for (comp, &w) in comps.iter_mut().zip(&bit_widths) {
                let prev = comp.totals.last().copied().unwrap_or(0);
                comp.totals.push(prev.wrapping_add(br.read_signed(w)));
            }
        }
        if (scale_multiplier - 1.0 / ROTATION_SCALE).abs() > 1e-9
            && bone_flags.iter().any(|f| f & FLAG_SCALE != 0)
        {
            warnings.push(format!(
                "scale_multiplier at byte offset 0x12: {scale_multiplier} differs from 1/32767; another reader scales by 1/32767 instead (the multiplier is used)"
            ));
        }
        Ok(AnimBitstream {
            unknown_04,
            translation_multiplier,
            scale_multiplier,
            unknown_16,
            duration,
            blob_size,
            unknown_2c,
            floats_size,
            flags_size,
            init_block_size,
            stream_size,
            unknown_3d,
            bone_count,
            key_times,
            bone_flags,
            initial_values,
            component_count,
            component_unknown,
            bit_widths,
            stream,
            per_key_bits,
            components: comps,
            trailing,
            warnings,
        })
    }

    pub fn key_count(&self) -> usize {
        self.key_times.len()
    }

    /// Totals of bone `bone`'s components of `kind` (rotation: w, x, y, z), if present.
    pub fn totals(&self, bone: u32, kind: ComponentKind) -> Option<Vec<&[i32]>> {
        let v: Vec<&[i32]> = self
            .components
            .iter()
            .filter(|c| c.bone == bone && c.kind == kind)
            .map(|c| c.totals.as_slice())
            .collect();
        (!v.is_empty()).then_some(v)
    }

    /// Rotation keys (w, x, y, z) of a bone: x, y, z = total / 32767, w from the unit
    /// length, negated when the w total is odd.
    pub fn rotation_keys(&self, bone: u32) -> Option<Vec<[f32; 4]>> {
        let t = self.totals(bone, ComponentKind::Rotation)?;
        Some(
            (0..self.key_count())
                .map(|k| {
                    let [x, y, z] = [t[1][k], t[2][k], t[3][k]].map(|v| v as f32 / ROTATION_SCALE);
                    let w = (1.0 - x * x - y * y - z * z).max(0.0).sqrt();
                    [if t[0][k] & 1 != 0 { -w } else { w }, x, y, z]
                })
                .collect(),
        )
    }

    fn vec_keys(&self, bone: u32, kind: ComponentKind, m: f32) -> Option<Vec<[f32; 3]>> {
        let t = self.totals(bone, kind)?;
        Some(
            (0..self.key_count())
                .map(|k| [t[0][k], t[1][k], t[2][k]].map(|v| v as f32 * m))
                .collect(),
        )
    }

    pub fn translation_keys(&self, bone: u32) -> Option<Vec<[f32; 3]>> {
        self.vec_keys(
            bone,
            ComponentKind::Translation,
            self.translation_multiplier,
        )
    }

    pub fn scale_keys(&self, bone: u32) -> Option<Vec<[f32; 3]>> {
        self.vec_keys(bone, ComponentKind::Scale, self.scale_multiplier)
    }

    /// Bone indices with any channel, ascending.
    pub fn animated_bones(&self) -> Vec<u32> {
        (0..self.bone_flags.len() as u32)
            .filter(|&i| self.bone_flags[i as usize] & 7 != 0)
            .collect()
    }

    /// Writes the file back: every field as read, the bitstream verbatim.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut w = Writer::new();
        w.u32(1);
        w.bytes(&self.unknown_04);
        w.f32(self.translation_multiplier);
        w.f32(self.scale_multiplier);
        w.bytes(&self.unknown_16);
        w.f32(self.duration);
        let k = u16::try_from(self.key_times.len()).map_err(|_| {
            super::FormatError::new(
                "ANIM writer",
                "key_count",
                0x26,
                ErrorKind::Invalid(format!("{} keys do not fit a u16", self.key_times.len())),
            )
        })?;
        w.u16(k);
        w.u32(self.blob_size);
        w.u8(self.unknown_2c);
        for v in [
            self.floats_size,
            self.flags_size,
            self.init_block_size,
            self.stream_size,
            self.unknown_3d,
            self.bone_count,
        ] {
            w.u32(v);
        }
        self.key_times.iter().for_each(|&t| w.f32(t));
        let b = u8::try_from(self.bone_flags.len()).map_err(|_| {
            super::FormatError::new(
                "ANIM writer",
                "bone_flag_count",
                0,
                ErrorKind::Invalid(format!("{} bones do not fit a u8", self.bone_flags.len())),
            )
        })?;
        w.u8(b);
        w.bytes(&self.bone_flags);
        self.initial_values.iter().for_each(|&v| w.u16(v as u16));
        w.u32(self.component_count);
        w.u32(self.component_unknown[0]);
        w.u32(self.component_unknown[1]);
        len_u32(self.bit_widths.len(), "bit_widths")?;
        w.bytes(&self.bit_widths);
        w.bytes(&self.stream);
        w.bytes(&self.trailing);
        Ok(w.into_inner())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::formats::bits::BitWriter;

    /// One bone (index 0) with a rotation, 3 keys; w deltas alternate parity.
    fn tiny() -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(1);
        w.bytes(&[0; 10]);
        w.f32(1.0 / 1024.0);
        w.f32(1.0 / 32767.0);
        w.bytes(&[0; 12]);
        w.f32(1.0);
        w.u16(3);
        w.u32(0);
        w.u8(0);
        for v in [12, 1, 8, 4, 0, 1] {
            w.u32(v);
        }
        [0.0f32, 0.5, 1.0].iter().for_each(|&t| w.f32(t));
        w.u8(1);
        w.u8(FLAG_ROTATION);
        [0i16, 100, 0, 0].iter().for_each(|&v| w.u16(v as u16));
        w.u32(4);
        w.u32(0);
        w.u32(0);
        w.bytes(&[2, 8, 0, 0]);
        let mut bits = BitWriter::default();
        for (flag, dw, dx) in [(1u32, 1i32, 50i32), (0, 1, -20)] {
            bits.write_bits(flag, 1);
            bits.write_bits(dw as u32, 2);
            bits.write_bits(dx as u32, 8);
        }
        bits.finish().iter().for_each(|&x| w.u32(x));
        w.into_inner()
    }

    #[test]
    fn decodes_and_writes_back() {
        let data = tiny();
        let a = AnimBitstream::parse(&data, "t").unwrap();
        assert_eq!(a.components.len(), 4);
        assert_eq!(a.components[0].totals, vec![0, 1, 2]);
        assert_eq!(a.components[1].totals, vec![100, 150, 130]);
        assert_eq!(a.per_key_bits, vec![true, false]);
        let r = a.rotation_keys(0).unwrap();
        assert!(
            r[1][0] < 0.0 && r[2][0] > 0.0,
            "odd w totals negate w: {r:?}"
        );
        assert!((r[1][1] - 150.0 / 32767.0).abs() < 1e-9);
        assert!(a.warnings.is_empty(), "{:?}", a.warnings);
        assert_eq!(a.write().unwrap(), data);
    }

    #[test]
    fn hostile_inputs_are_errors_with_offsets() {
        let data = tiny();
        // Truncated bitstream.
        let e = AnimBitstream::parse(&data[..data.len() - 1], "t").unwrap_err();
        assert_eq!(e.field, "bitstream");
        // A width above 32.
        let mut bad = data.clone();
        let at = data.len() - 4 - 4;
        bad[at] = 33;
        let e = AnimBitstream::parse(&bad, "t").unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("bit_widths[0]", at as u64));
        // Key times going back.
        let mut bad = data.clone();
        bad[0x45 + 4..0x45 + 8].copy_from_slice(&(-1.0f32).to_be_bytes());
        let e = AnimBitstream::parse(&bad, "t").unwrap_err();
        assert_eq!(e.offset, 0x49);
        // No keys.
        let mut bad = data;
        bad[0x26..0x28].copy_from_slice(&0u16.to_be_bytes());
        assert_eq!(
            AnimBitstream::parse(&bad, "t").unwrap_err().field,
            "key_count"
        );
    }
}
