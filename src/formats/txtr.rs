//! TXTR textures (formats.md §4): header, palettes, the 11 GX texel formats, mip chains,
//! exact decoding to RGBA8, encoders for every format and a byte-exact writer.
//!
//! Decoding follows the GX hardware, not the PC conventions some tools use: channels are
//! widened by bit replication (31 → 255, not 248), I4/I8 give alpha = intensity, IA8
//! palette entries are alpha-first, and CMPR interpolates with 3/8–5/8 weights and makes
//! index 3 of a 3-colour block the average colour with alpha 0.

use super::material::warning;
use super::{ErrorKind, FormatError, Reader, Result, Writer};
use crate::image::RgbaImage;

/// Size of the fixed header (format, width, height, mip count).
pub const HEADER_SIZE: usize = 12;

/// The texel formats in TXTR numbering (which is *not* the GX numbering, see
/// [`TexFormat::gx_id`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum TexFormat {
    I4,
    I8,
    IA4,
    IA8,
    C4,
    C8,
    C14X2,
    Rgb565,
    Rgb5A3,
    Rgba8,
    Cmpr,
}

impl TexFormat {
    /// Every format, in TXTR numbering order.
    pub const ALL: [TexFormat; 11] = [
        TexFormat::I4,
        TexFormat::I8,
        TexFormat::IA4,
        TexFormat::IA8,
        TexFormat::C4,
        TexFormat::C8,
        TexFormat::C14X2,
        TexFormat::Rgb565,
        TexFormat::Rgb5A3,
        TexFormat::Rgba8,
        TexFormat::Cmpr,
    ];

    /// The format with TXTR id `id` (0..=10).
    pub fn from_id(id: u32) -> Option<Self> {
        Self::ALL.get(id as usize).copied()
    }

    /// The TXTR id stored in the header.
    pub fn id(self) -> u32 {
        self as u32
    }

    /// The GX hardware id (`GX_TF_*`).
    pub fn gx_id(self) -> u32 {
        match self {
            TexFormat::I4 => 0x0,
            TexFormat::I8 => 0x1,
            TexFormat::IA4 => 0x2,
            TexFormat::IA8 => 0x3,
            TexFormat::Rgb565 => 0x4,
            TexFormat::Rgb5A3 => 0x5,
            TexFormat::Rgba8 => 0x6,
            TexFormat::C4 => 0x8,
            TexFormat::C8 => 0x9,
            TexFormat::C14X2 => 0xA,
            TexFormat::Cmpr => 0xE,
        }
    }

    /// The usual name (`RGB5A3`), as the conformance JSONs spell it.
    pub fn name(self) -> &'static str {
        match self {
            TexFormat::I4 => "I4",
            TexFormat::I8 => "I8",
            TexFormat::IA4 => "IA4",
            TexFormat::IA8 => "IA8",
            TexFormat::C4 => "C4",
            TexFormat::C8 => "C8",
            TexFormat::C14X2 => "C14X2",
            TexFormat::Rgb565 => "RGB565",
            TexFormat::Rgb5A3 => "RGB5A3",
            TexFormat::Rgba8 => "RGBA8",
            TexFormat::Cmpr => "CMPR",
        }
    }

    /// The format named `name` (case-insensitive), e.g. for a command-line option.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    /// Bits per texel.
    pub fn bits_per_texel(self) -> u32 {
        match self {
            TexFormat::I4 | TexFormat::C4 | TexFormat::Cmpr => 4,
            TexFormat::I8 | TexFormat::IA4 | TexFormat::C8 => 8,
            TexFormat::IA8 | TexFormat::C14X2 | TexFormat::Rgb565 | TexFormat::Rgb5A3 => 16,
            TexFormat::Rgba8 => 32,
        }
    }

    /// Block (tile) size in texels, width × height.
    pub fn block_dims(self) -> (u32, u32) {
        match self.bits_per_texel() {
            4 => (8, 8),
            8 => (8, 4),
            _ => (4, 4),
        }
    }

    /// Bytes per block: 64 for RGBA8 (two 32-byte halves), else 32.
    pub fn block_bytes(self) -> usize {
        if self == TexFormat::Rgba8 { 64 } else { 32 }
    }

    /// Number of palette entries the format needs, or None when it has no palette.
    pub fn palette_entries(self) -> Option<usize> {
        match self {
            TexFormat::C4 => Some(16),
            TexFormat::C8 => Some(256),
            TexFormat::C14X2 => Some(16384),
            _ => None,
        }
    }

    /// Bytes a level of `width` × `height` texels occupies (whole blocks).
    pub fn level_size(self, width: u32, height: u32) -> usize {
        let (bw, bh) = self.block_dims();
        width.div_ceil(bw) as usize * height.div_ceil(bh) as usize * self.block_bytes()
    }
}

/// Encoding of palette entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum PaletteFormat {
    /// byte 0 = alpha, byte 1 = intensity.
    Ia8,
    Rgb565,
    Rgb5A3,
}

impl PaletteFormat {
    /// The format with id `id` (0 IA8, 1 RGB565, 2 RGB5A3).
    pub fn from_id(id: u32) -> Option<Self> {
        match id {
            0 => Some(Self::Ia8),
            1 => Some(Self::Rgb565),
            2 => Some(Self::Rgb5A3),
            _ => None,
        }
    }

    /// The id stored in the palette header.
    pub fn id(self) -> u32 {
        self as u32
    }

    /// `IA8`, `RGB565` or `RGB5A3`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Ia8 => "IA8",
            Self::Rgb565 => "RGB565",
            Self::Rgb5A3 => "RGB5A3",
        }
    }

    /// An entry expanded to RGBA8 exactly as a texel of the same format.
    pub fn decode(self, entry: u16) -> [u8; 4] {
        match self {
            Self::Ia8 => ia8(entry),
            Self::Rgb565 => rgb565(entry),
            Self::Rgb5A3 => rgb5a3(entry),
        }
    }

    /// The entry that decodes closest to `rgba`.
    pub fn encode(self, rgba: [u8; 4]) -> u16 {
        match self {
            Self::Ia8 => u16::from_be_bytes([rgba[3], luma(rgba)]),
            Self::Rgb565 => to_rgb565(rgba),
            Self::Rgb5A3 => to_rgb5a3(rgba),
        }
    }
}

/// The palette block of a C4/C8/C14X2 texture. One palette serves every mip level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Palette {
    pub format: PaletteFormat,
    /// Stored dimensions; width × height = number of entries.
    pub width: u16,
    pub height: u16,
    /// Raw big-endian entries, in file order.
    pub entries: Vec<u16>,
}

impl Palette {
    /// Bytes the palette block occupies (8-byte header + entries).
    pub fn byte_size(&self) -> usize {
        8 + 2 * self.entries.len()
    }

    /// Every entry expanded to RGBA8.
    pub fn rgba(&self) -> Vec<[u8; 4]> {
        self.entries
            .iter()
            .map(|&e| self.format.decode(e))
            .collect()
    }
}

/// Where one mip level lives in the texel data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MipLevel {
    pub width: u32,
    pub height: u32,
    /// Offset from the start of the texel data (after the header and palette).
    pub offset: usize,
    /// Bytes the level occupies (whole blocks).
    pub byte_size: usize,
    /// Whether the file holds all of the level's bytes.
    pub complete: bool,
}

/// A parsed texture. The texel data is kept verbatim (trailing bytes included), so
/// [`Txtr::to_bytes`] reproduces the file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Txtr {
    /// Label used in errors (file name or `pak:0xID.TYPE`).
    pub file: String,
    pub format: TexFormat,
    pub width: u16,
    pub height: u16,
    /// Number of levels including the base level, as used (see `stored_mip_count`).
    pub mip_count: u32,
    /// The mip count as stored, written back verbatim. Tool-written files the game loads
    /// store 0 (read as 1, `formats.md` §4.1).
    pub stored_mip_count: u32,
    pub palette: Option<Palette>,
    /// Everything after the header and palette: the levels, then any trailing bytes.
    pub data: Vec<u8>,
    /// Odd but loadable header values, each naming file, field and offset.
    pub warnings: Vec<String>,
}

/// Largest valid mip count for a `width` × `height` texture: 1 + ⌊log2(max(w, h))⌋.
pub fn max_mip_count(width: u32, height: u32) -> u32 {
    1 + width.max(height).max(1).ilog2()
}

impl Txtr {
    /// Parses a TXTR. Fails if the header is invalid or the base level is incomplete;
    /// later levels that are cut short are reported by [`Txtr::mips`] and
    /// [`Txtr::decode_level`] instead (one retail texture is truncated inside its last mip).
    pub fn parse(data: &[u8], file: &str) -> Result<Txtr> {
        let mut r = Reader::new(data, file);
        let format_id = r.u32("format")?;
        let format = TexFormat::from_id(format_id).ok_or_else(|| {
            r.err_at(
                "format",
                0,
                ErrorKind::OutOfRange {
                    value: format_id.into(),
                    expected: "a TXTR format 0..=10".into(),
                },
            )
        })?;
        let width = r.u16("width")?;
        let height = r.u16("height")?;
        for (field, value, at) in [("width", width, 4), ("height", height, 6)] {
            if value == 0 {
                return Err(r.err_at(
                    field,
                    at,
                    ErrorKind::OutOfRange {
                        value: 0,
                        expected: "at least 1".into(),
                    },
                ));
            }
        }
        let stored_mip_count = r.u32("mip_count")?;
        let max_mips = max_mip_count(width.into(), height.into());
        let mut warnings = Vec::new();
        // Odd counts are drawable: 0 means the base level alone (§4.1), and a count past the
        // smallest level can only mean the chain down to 1×1. Both load in the game.
        let mip_count = stored_mip_count.clamp(1, max_mips);
        if mip_count != stored_mip_count {
            warnings.push(warning(
                file,
                "mip_count",
                8,
                format!(
                    "mip count {stored_mip_count} is outside 1..={max_mips} for {width}×{height}; read as {mip_count}"
                ),
            ));
        }
        let palette = match format.palette_entries() {
            Some(expected) => Some(read_palette(&mut r, expected)?),
            None => None,
        };
        let header_len = r.pos();
        let txtr = Txtr {
            file: file.to_owned(),
            format,
            width,
            height,
            mip_count,
            stored_mip_count,
            palette,
            data: r.rest().to_vec(),
            warnings,
        };
        let base = txtr.level_layout(0);
        if base.byte_size > txtr.data.len() {
            return Err(FormatError::new(
                file,
                "mip[0]",
                header_len as u64,
                ErrorKind::Truncated {
                    needed: base.byte_size as u64,
                    available: txtr.data.len() as u64,
                },
            ));
        }
        Ok(txtr)
    }

    /// Serialises the texture: header, palette, texel data (byte-identical to the parsed
    /// file when nothing was changed).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(self.format.id());
        w.u16(self.width);
        w.u16(self.height);
        w.u32(self.stored_mip_count);
        if let Some(p) = &self.palette {
            w.u32(p.format.id());
            w.u16(p.width);
            w.u16(p.height);
            p.entries.iter().for_each(|&e| w.u16(e));
        }
        w.bytes(&self.data);
        w.into_inner()
    }

    /// Bytes before the texel data (header + palette block).
    pub fn header_len(&self) -> usize {
        HEADER_SIZE + self.palette.as_ref().map_or(0, Palette::byte_size)
    }

    /// Layout of level `k` (not checked against the data).
    fn level_layout(&self, k: u32) -> MipLevel {
        let (mut offset, mut level) = (0, None);
        for i in 0..=k {
            let width = (u32::from(self.width) >> i).max(1);
            let height = (u32::from(self.height) >> i).max(1);
            let byte_size = self.format.level_size(width, height);
            level = Some(MipLevel {
                width,
                height,
                offset,
                byte_size,
                complete: offset + byte_size <= self.data.len(),
            });
            offset += byte_size;
        }
        // k ≥ 0, so the loop ran at least once.
        level.unwrap_or(MipLevel {
            width: 1,
            height: 1,
            offset: 0,
            byte_size: 0,
            complete: false,
        })
    }

    /// Every declared level with its offset, size and whether it is complete.
    pub fn mips(&self) -> Vec<MipLevel> {
        let mut out = Vec::with_capacity(self.mip_count as usize);
        let mut offset = 0;
        for k in 0..self.mip_count {
            let width = (u32::from(self.width) >> k).max(1);
            let height = (u32::from(self.height) >> k).max(1);
            let byte_size = self.format.level_size(width, height);
            out.push(MipLevel {
                width,
                height,
                offset,
                byte_size,
                complete: offset + byte_size <= self.data.len(),
            });
            offset += byte_size;
        }
        out
    }

    /// How many leading levels are complete (at least 1 for a parsed texture).
    pub fn complete_levels(&self) -> u32 {
        self.mips().iter().take_while(|m| m.complete).count() as u32
    }

    /// Bytes the declared levels need; more is trailing data (often 0xFF PAK padding),
    /// less means the texture is truncated.
    pub fn levels_size(&self) -> usize {
        self.mips().iter().map(|m| m.byte_size).sum()
    }

    /// The raw bytes of level `k`, if complete.
    pub fn level_bytes(&self, k: u32) -> Option<&[u8]> {
        if k >= self.mip_count {
            return None;
        }
        let m = self.level_layout(k);
        self.data.get(m.offset..m.offset + m.byte_size)
    }

    /// Palette entries expanded to RGBA8 (empty for formats without a palette).
    pub fn palette_rgba(&self) -> Vec<[u8; 4]> {
        self.palette.as_ref().map_or_else(Vec::new, Palette::rgba)
    }

    /// Decodes level `k` to RGBA8, rows in stored order (row 0 = t = 0).
    pub fn decode_level(&self, k: u32) -> Result<RgbaImage> {
        let field = format!("mip[{k}]");
        if k >= self.mip_count {
            return Err(FormatError::new(
                &self.file,
                field,
                8,
                ErrorKind::OutOfRange {
                    value: k.into(),
                    expected: format!("a level below the mip count {}", self.mip_count),
                },
            ));
        }
        let m = self.level_layout(k);
        let Some(bytes) = self.data.get(m.offset..m.offset + m.byte_size) else {
            return Err(FormatError::new(
                &self.file,
                field,
                (self.header_len() + m.offset) as u64,
                ErrorKind::Truncated {
                    needed: m.byte_size as u64,
                    available: self.data.len().saturating_sub(m.offset) as u64,
                },
            ));
        };
        Ok(decode_image(
            self.format,
            m.width,
            m.height,
            bytes,
            &self.palette_rgba(),
        ))
    }

    /// Decodes every complete level; the error describes the first incomplete one.
    pub fn decode_complete_levels(&self) -> (Vec<RgbaImage>, Option<FormatError>) {
        let mut images = Vec::new();
        for k in 0..self.mip_count {
            match self.decode_level(k) {
                Ok(img) => images.push(img),
                Err(e) => return (images, Some(e)),
            }
        }
        (images, None)
    }

    /// Encodes `image` as a texture of `format`, building the mip chain with a 2×2 box
    /// filter. See [`EncodeOptions`].
    pub fn encode(
        image: &RgbaImage,
        format: TexFormat,
        options: &EncodeOptions,
    ) -> std::result::Result<Txtr, EncodeError> {
        let (width, height) = (image.width, image.height);
        if width == 0 || height == 0 || width > u16::MAX.into() || height > u16::MAX.into() {
            return Err(EncodeError::Size { width, height });
        }
        let max = max_mip_count(width, height);
        let mip_count = options.mip_count.unwrap_or(max);
        if !(1..=max).contains(&mip_count) {
            return Err(EncodeError::MipCount {
                requested: mip_count,
                max,
            });
        }
        let mut levels = vec![image.clone()];
        while (levels.len() as u32) < mip_count {
            let next = downsample(levels.last().unwrap_or(image));
            levels.push(next);
        }
        let palette = format.palette_entries().map(|n| {
            let pf = options
                .palette_format
                .unwrap_or_else(|| choose_palette_format(&levels));
            Quantizer::build(&levels, pf, n)
        });
        let mut data = Vec::new();
        for level in &levels {
            match &palette {
                Some(q) => data.extend(encode_indexed(format, level, q)),
                None => data.extend(encode_level(format, level)),
            }
        }
        Ok(Txtr {
            file: "<encoded>".into(),
            format,
            width: width as u16,
            height: height as u16,
            mip_count,
            stored_mip_count: mip_count,
            palette: palette.map(|q| q.palette),
            data,
            warnings: Vec::new(),
        })
    }
}

fn read_palette(r: &mut Reader<'_>, expected: usize) -> Result<Palette> {
    let at = r.pos();
    let format_id = r.u32("palette.format")?;
    let format = PaletteFormat::from_id(format_id).ok_or_else(|| {
        r.err_at(
            "palette.format",
            at,
            ErrorKind::OutOfRange {
                value: format_id.into(),
                expected: "0 (IA8), 1 (RGB565) or 2 (RGB5A3)".into(),
            },
        )
    })?;
    let width = r.u16("palette.width")?;
    let height = r.u16("palette.height")?;
    let count = usize::from(width) * usize::from(height);
    if count != expected {
        return Err(r.err_at(
            "palette.width×height",
            at + 4,
            ErrorKind::OutOfRange {
                value: count as i64,
                expected: format!("{expected} entries"),
            },
        ));
    }
    r.check_count("palette.entries", count as u64, 2)?;
    let entries = (0..count)
        .map(|_| r.u16("palette.entries"))
        .collect::<Result<Vec<_>>>()?;
    Ok(Palette {
        format,
        width,
        height,
        entries,
    })
}

// ------------------------------------------------------------------------------------------
// Bit expansion (formats.md §4.2: exact replication) and texel conversions.

/// Widens a `bits`-bit value to 8 bits by bit replication.
const fn expand(v: u32, bits: u32) -> u8 {
    let mut out = 0u32;
    let mut shift = 8 - bits as i32;
    while shift > -(bits as i32) {
        out |= if shift >= 0 {
            v << shift
        } else {
            v >> (-shift)
        };
        shift -= bits as i32;
    }
    (out & 0xFF) as u8
}

const fn expansion_table<const N: usize>(bits: u32) -> [u8; N] {
    let mut t = [0u8; N];
    let mut v = 0;
    while v < N {
        t[v] = expand(v as u32, bits);
        v += 1;
    }
    t
}

// Tables: the decoders call these per texel channel.
static E3: [u8; 8] = expansion_table(3);
static E4: [u8; 16] = expansion_table(4);
static E5: [u8; 32] = expansion_table(5);
static E6: [u8; 64] = expansion_table(6);

/// e3(v) = v<<5 | v<<2 | v>>1 (low 3 bits of `v`).
#[inline]
pub fn e3(v: u32) -> u8 {
    E3[(v & 7) as usize]
}
/// e4(v) = v<<4 | v (low 4 bits of `v`).
#[inline]
pub fn e4(v: u32) -> u8 {
    E4[(v & 15) as usize]
}
/// e5(v) = v<<3 | v>>2 (low 5 bits of `v`).
#[inline]
pub fn e5(v: u32) -> u8 {
    E5[(v & 31) as usize]
}
/// e6(v) = v<<2 | v>>4 (low 6 bits of `v`).
#[inline]
pub fn e6(v: u32) -> u8 {
    E6[(v & 63) as usize]
}

/// RGB565 → RGBA8 (A = 255).
#[inline]
pub fn rgb565(v: u16) -> [u8; 4] {
    let v = u32::from(v);
    [e5(v >> 11), e6(v >> 5), e5(v), 255]
}

/// RGB5A3 → RGBA8: bit 15 set = opaque RGB555, clear = A3 RGB444.
#[inline]
pub fn rgb5a3(v: u16) -> [u8; 4] {
    let v = u32::from(v);
    if v & 0x8000 != 0 {
        [e5(v >> 10), e5(v >> 5), e5(v), 255]
    } else {
        [e4(v >> 8), e4(v >> 4), e4(v), e3(v >> 12)]
    }
}

/// IA8 (high byte alpha, low byte intensity) → RGBA8.
#[inline]
pub fn ia8(v: u16) -> [u8; 4] {
    let [a, i] = v.to_be_bytes();
    [i, i, i, a]
}

/// The 4-entry CMPR palette of a sub-block with endpoints `c0`, `c1` (RGB565), using
/// the GX 3/8–5/8 weights; in 3-colour mode (c0 ≤ c1) entry 3 is the average with A = 0.
pub fn cmpr_palette(c0: u16, c1: u16) -> [[u8; 4]; 4] {
    let p0 = rgb565(c0);
    let p1 = rgb565(c1);
    let mix = |w0: u32, w1: u32, shift: u32| -> [u8; 4] {
        let ch = |i: usize| ((w0 * u32::from(p0[i]) + w1 * u32::from(p1[i])) >> shift) as u8;
        [ch(0), ch(1), ch(2), 255]
    };
    if c0 > c1 {
        [p0, p1, mix(5, 3, 3), mix(3, 5, 3)]
    } else {
        let avg = mix(1, 1, 1);
        [p0, p1, avg, [avg[0], avg[1], avg[2], 0]]
    }
}

/// Nearest n-bit code for every 8-bit value under bit-replication expansion.
const fn nearest_table(bits: u32) -> [u8; 256] {
    let mut table = [0u8; 256];
    let mut x = 0;
    while x < 256 {
        let mut best = 0;
        let mut best_err = 1000;
        let mut v = 0;
        while v < (1 << bits) {
            let e = expand(v, bits) as i32 - x as i32;
            let e = if e < 0 { -e } else { e };
            if e < best_err {
                best_err = e;
                best = v;
            }
            v += 1;
        }
        table[x] = best as u8;
        x += 1;
    }
    table
}

static Q3: [u8; 256] = nearest_table(3);
static Q4: [u8; 256] = nearest_table(4);
static Q5: [u8; 256] = nearest_table(5);
static Q6: [u8; 256] = nearest_table(6);

/// BT.601 luma of an RGB colour, exact for grey (r = g = b).
#[inline]
fn luma(c: [u8; 4]) -> u8 {
    ((77 * u32::from(c[0]) + 150 * u32::from(c[1]) + 29 * u32::from(c[2]) + 128) >> 8) as u8
}

fn to_rgb565(c: [u8; 4]) -> u16 {
    u16::from(Q5[c[0] as usize]) << 11
        | u16::from(Q6[c[1] as usize]) << 5
        | u16::from(Q5[c[2] as usize])
}

fn to_rgb5a3(c: [u8; 4]) -> u16 {
    let a3 = Q3[c[3] as usize];
    let translucent = u16::from(a3) << 12
        | u16::from(Q4[c[0] as usize]) << 8
        | u16::from(Q4[c[1] as usize]) << 4
        | u16::from(Q4[c[2] as usize]);
    if a3 < 7 {
        return translucent;
    }
    // Alpha 255: both the RGB555 mode and the RGB444 mode with A3 = 7 decode opaque;
    // keep whichever is closer (RGB555 on ties).
    let opaque = 0x8000
        | u16::from(Q5[c[0] as usize]) << 10
        | u16::from(Q5[c[1] as usize]) << 5
        | u16::from(Q5[c[2] as usize]);
    let err = |v: u16| {
        let d = rgb5a3(v);
        (0..3)
            .map(|i| u32::from(d[i].abs_diff(c[i])).pow(2))
            .sum::<u32>()
    };
    if err(translucent) < err(opaque) {
        translucent
    } else {
        opaque
    }
}

// ------------------------------------------------------------------------------------------
// Decoding.

/// Decodes one level of `format` (`width` × `height` texels) from `data`, which must hold
/// at least [`TexFormat::level_size`] bytes (missing blocks decode as transparent black).
/// `palette` is the expanded palette for C4/C8/C14X2 (indices past its end give
/// transparent black).
///
/// Blocks are decoded whole, a row of blocks at a time, into a small band of packed texels
/// (branch-free arithmetic on whole values, no per-texel closures), and the band's rows are
/// appended to the image in order, so the output is written once and never zero-filled.
pub fn decode_image(
    format: TexFormat,
    width: u32,
    height: u32,
    data: &[u8],
    palette: &[[u8; 4]],
) -> RgbaImage {
    let pal: Vec<u32> = palette.iter().map(|&c| u32::from_ne_bytes(c)).collect();
    let pal = |i: usize| pal.get(i).copied().unwrap_or(0);
    let be16 = |b: &[u8], i: usize| u16::from_be_bytes([b[2 * i], b[2 * i + 1]]);
    let (w, h) = (width, height);
    match format {
        TexFormat::I4 => detile::<8, 8, 32>(w, h, data, |b, out, stride| {
            texels::<8, 8>(out, stride, |i| {
                let v = e4(u32::from(b[i / 2] >> (4 * (1 - (i & 1)))));
                gray(v, v)
            })
        }),
        TexFormat::I8 => detile::<8, 4, 32>(w, h, data, |b, out, stride| {
            texels::<8, 4>(out, stride, |i| gray(b[i], b[i]))
        }),
        TexFormat::IA4 => detile::<8, 4, 32>(w, h, data, |b, out, stride| {
            texels::<8, 4>(out, stride, |i| {
                gray(e4(u32::from(b[i])), e4(u32::from(b[i] >> 4)))
            })
        }),
        TexFormat::IA8 => detile::<4, 4, 32>(w, h, data, |b, out, stride| {
            texels::<4, 4>(out, stride, |i| gray(b[2 * i + 1], b[2 * i]))
        }),
        TexFormat::C4 => detile::<8, 8, 32>(w, h, data, |b, out, stride| {
            texels::<8, 8>(out, stride, |i| {
                pal(usize::from((b[i / 2] >> (4 * (1 - (i & 1)))) & 15))
            })
        }),
        TexFormat::C8 => detile::<8, 4, 32>(w, h, data, |b, out, stride| {
            texels::<8, 4>(out, stride, |i| pal(usize::from(b[i])))
        }),
        TexFormat::C14X2 => detile::<4, 4, 32>(w, h, data, |b, out, stride| {
            texels::<4, 4>(out, stride, |i| pal(usize::from(be16(b, i) & 0x3FFF)))
        }),
        TexFormat::Rgb565 => {
            let table = texel_table(&RGB565_TABLE, packed_rgb565);
            detile::<4, 4, 32>(w, h, data, |b, out, stride| {
                texels::<4, 4>(out, stride, |i| table[usize::from(be16(b, i))])
            })
        }
        TexFormat::Rgb5A3 => {
            let table = texel_table(&RGB5A3_TABLE, packed_rgb5a3);
            detile::<4, 4, 32>(w, h, data, |b, out, stride| {
                texels::<4, 4>(out, stride, |i| table[usize::from(be16(b, i))])
            })
        }
        TexFormat::Rgba8 => detile::<4, 4, 64>(w, h, data, |b, out, stride| {
            // 16 (A, R) pairs, then 16 (G, B) pairs.
            texels::<4, 4>(out, stride, |i| {
                u32::from_ne_bytes([b[2 * i + 1], b[32 + 2 * i], b[33 + 2 * i], b[2 * i]])
            })
        }),
        TexFormat::Cmpr => {
            let rgb565 = texel_table(&RGB565_TABLE, packed_rgb565);
            detile::<8, 8, 32>(w, h, data, |b, out, stride| {
                // Four sub-blocks: top-left, top-right, bottom-left, bottom-right.
                for (s, sub) in b.chunks_exact(8).enumerate() {
                    let p = packed_cmpr_palette(
                        rgb565,
                        u16::from_be_bytes([sub[0], sub[1]]),
                        u16::from_be_bytes([sub[2], sub[3]]),
                    );
                    let (x0, y0) = ((s & 1) * 4, (s >> 1) * 4);
                    for (ty, &bits) in sub[4..].iter().enumerate() {
                        // Most significant index pair first.
                        let row = &mut out[(y0 + ty) * stride + x0..][..4];
                        row[0] = p[usize::from(bits >> 6)];
                        row[1] = p[usize::from((bits >> 4) & 3)];
                        row[2] = p[usize::from((bits >> 2) & 3)];
                        row[3] = p[usize::from(bits & 3)];
                    }
                }
            })
        }
    }
}

/// Every 16-bit texel value of a direct-colour format, decoded once (256 KiB each, built on
/// first use): one load per texel beats the arithmetic.
type TexelTable = std::sync::OnceLock<Box<[u32; 65536]>>;
static RGB565_TABLE: TexelTable = std::sync::OnceLock::new();
static RGB5A3_TABLE: TexelTable = std::sync::OnceLock::new();

fn texel_table(table: &'static TexelTable, decode: fn(u32) -> u32) -> &'static [u32; 65536] {
    // A fixed size, so a u16 index needs no bounds check.
    table.get_or_init(|| {
        let mut t = Box::new([0u32; 65536]);
        for (v, texel) in (0u32..).zip(t.iter_mut()) {
            *texel = decode(v);
        }
        t
    })
}

/// Writes a `BW` × `BH` block's texels, `texel(i)` for texel i in row-major block order, into
/// `out` (rows `stride` apart).
#[inline(always)]
fn texels<const BW: usize, const BH: usize>(
    out: &mut [u32],
    stride: usize,
    texel: impl Fn(usize) -> u32,
) {
    for ty in 0..BH {
        let row = &mut out[ty * stride..][..BW];
        for (tx, t) in row.iter_mut().enumerate() {
            *t = texel(ty * BW + tx);
        }
    }
}

/// A texel with R = G = B = `i` and alpha `a`, packed as its RGBA8 bytes.
#[inline]
fn gray(i: u8, a: u8) -> u32 {
    u32::from_ne_bytes([i, i, i, a])
}

/// RGB565 → packed RGBA8 (bit replication as shifts).
#[inline(always)]
fn packed_rgb565(v: u32) -> u32 {
    let (r, g, b) = (v >> 11, (v >> 5) & 63, v & 31);
    let r = (r << 3) | (r >> 2);
    let g = (g << 2) | (g >> 4);
    let b = (b << 3) | (b >> 2);
    pack(r, g, b, 255)
}

/// RGB5A3 → packed RGBA8: both encodings computed and one selected by bit 15.
#[inline(always)]
fn packed_rgb5a3(v: u32) -> u32 {
    let e5 = |x: u32| ((x & 31) << 3) | ((x & 31) >> 2);
    let e4 = |x: u32| (x & 15) * 0x11;
    let e3 = |x: u32| ((x & 7) << 5) | ((x & 7) << 2) | ((x & 7) >> 1);
    let opaque = pack(e5(v >> 10), e5(v >> 5), e5(v), 255);
    let translucent = pack(e4(v >> 8), e4(v >> 4), e4(v), e3(v >> 12));
    let mask = 0u32.wrapping_sub(v >> 15 & 1);
    (opaque & mask) | (translucent & !mask)
}

/// Four channel values (each below 256) packed as the bytes R, G, B, A in memory.
#[inline(always)]
fn pack(r: u32, g: u32, b: u32, a: u32) -> u32 {
    if cfg!(target_endian = "little") {
        r | g << 8 | b << 16 | a << 24
    } else {
        a | b << 8 | g << 16 | r << 24
    }
}

/// [`cmpr_palette`] as packed texels. The endpoints come from the RGB565 table; the blends
/// are computed on two channels at once (red and blue in 16-bit lanes of one u32, where
/// sums up to 8 × 255 cannot spill) and the 3- or 4-colour choice is a mask, not a branch
/// (it is unpredictable from one sub-block to the next).
#[inline(always)]
fn packed_cmpr_palette(rgb565: &[u32; 65536], c0: u16, c1: u16) -> [u32; 4] {
    const RB: u32 = 0x00FF_00FF;
    const ALPHA: u32 = 0xFF00_0000;
    // Worked on in little-endian order (R in the low byte) whatever the machine's.
    let (p0, p1) = (
        u32::from_le(rgb565[usize::from(c0)]),
        u32::from_le(rgb565[usize::from(c1)]),
    );
    let (rb0, rb1) = (p0 & RB, p1 & RB);
    let (g0, g1) = (p0 >> 8 & 0xFF, p1 >> 8 & 0xFF);
    let mix = |w0: u32, w1: u32, shift: u32| {
        ((w0 * rb0 + w1 * rb1) >> shift & RB) | ((w0 * g0 + w1 * g1) >> shift & 0xFF) << 8
    };
    let four = 0u32.wrapping_sub(u32::from(c0 > c1));
    let avg = mix(1, 1, 1);
    let p2 = (mix(5, 3, 3) & four | avg & !four) | ALPHA;
    let p3 = (mix(3, 5, 3) & four | avg & !four) | (ALPHA & four);
    [p0, p1, p2, p3].map(u32::to_le)
}

/// De-tiles a format of `BW` × `BH` texel blocks of `BYTES` bytes each (blocks row-major,
/// texels row-major inside a block, overhanging texels discarded). `decode(block, out,
/// stride)` writes the block's packed texels (`u32::from_ne_bytes([r, g, b, a])`) to
/// `out[ty * stride + tx]`; a row of blocks lands in a band whose rows are then appended to
/// the image.
fn detile<const BW: usize, const BH: usize, const BYTES: usize>(
    width: u32,
    height: u32,
    data: &[u8],
    decode: impl Fn(&[u8; BYTES], &mut [u32], usize),
) -> RgbaImage {
    let (w, h) = (width as usize, height as usize);
    let stride = w.div_ceil(BW) * BW;
    let mut band = vec![0u32; BH * stride];
    let mut pixels: Vec<u8> = Vec::with_capacity(w * h * 4);
    let mut blocks = data
        .chunks_exact(BYTES)
        .filter_map(|b| <&[u8; BYTES]>::try_from(b).ok());
    'rows: for y0 in (0..h).step_by(BH) {
        for x0 in (0..stride).step_by(BW) {
            let Some(block) = blocks.next() else {
                // Missing blocks are transparent black.
                for row in band.chunks_exact_mut(stride) {
                    row[x0..].fill(0);
                }
                append_rows(&mut pixels, &band, stride, w, BH.min(h - y0));
                break 'rows;
            };
            decode(block, &mut band[x0..], stride);
        }
        append_rows(&mut pixels, &band, stride, w, BH.min(h - y0));
    }
    pixels.resize(w * h * 4, 0);
    RgbaImage {
        width,
        height,
        pixels,
    }
}

/// Appends the first `rows` rows (their first `w` texels) of a band to the image bytes.
fn append_rows(pixels: &mut Vec<u8>, band: &[u32], stride: usize, w: usize, rows: usize) {
    for row in band.chunks_exact(stride).take(rows) {
        pixels.extend_from_slice(bytemuck::cast_slice(&row[..w]));
    }
}

// ------------------------------------------------------------------------------------------
// Encoding.

/// Options for [`Txtr::encode`].
#[derive(Debug, Clone, Default)]
pub struct EncodeOptions {
    /// Levels to build including the base; None = the full chain down to 1×1.
    pub mip_count: Option<u32>,
    /// Palette entry format for C4/C8/C14X2; None picks IA8 for grey images, RGB565 for
    /// opaque ones and RGB5A3 otherwise.
    pub palette_format: Option<PaletteFormat>,
}

/// Why an image cannot be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    #[error("image size {width}×{height} is not 1..=65535 in both directions")]
    Size { width: u32, height: u32 },
    #[error("mip count {requested} is not 1..={max}")]
    MipCount { requested: u32, max: u32 },
}

/// Halves an image with a 2×2 box filter (odd edges clamp), rounding to nearest.
pub fn downsample(img: &RgbaImage) -> RgbaImage {
    let (w, h) = (img.width, img.height);
    let (nw, nh) = ((w >> 1).max(1), (h >> 1).max(1));
    RgbaImage::from_fn(nw, nh, |x, y| {
        let (x0, y0) = ((2 * x).min(w - 1), (2 * y).min(h - 1));
        let (x1, y1) = ((2 * x + 1).min(w - 1), (2 * y + 1).min(h - 1));
        let px = [
            img.pixel(x0, y0),
            img.pixel(x1, y0),
            img.pixel(x0, y1),
            img.pixel(x1, y1),
        ];
        std::array::from_fn(|c| ((px.iter().map(|p| u32::from(p[c])).sum::<u32>() + 2) / 4) as u8)
    })
}

/// Encodes one level of a non-palette format. Texels of blocks overhanging the image
/// repeat the nearest edge texel. Palette formats need [`Txtr::encode`].
pub fn encode_level(format: TexFormat, img: &RgbaImage) -> Vec<u8> {
    match format {
        TexFormat::I4 => encode_tiled::<4>(img, |c| u32::from(Q4[luma(c) as usize])),
        TexFormat::I8 => encode_tiled::<8>(img, |c| u32::from(luma(c))),
        TexFormat::IA4 => encode_tiled::<8>(img, |c| {
            u32::from(Q4[c[3] as usize]) << 4 | u32::from(Q4[luma(c) as usize])
        }),
        TexFormat::IA8 => {
            encode_tiled::<16>(img, |c| u32::from(u16::from_be_bytes([c[3], luma(c)])))
        }
        TexFormat::Rgb565 => encode_tiled::<16>(img, |c| u32::from(to_rgb565(c))),
        TexFormat::Rgb5A3 => encode_tiled::<16>(img, |c| u32::from(to_rgb5a3(c))),
        TexFormat::Rgba8 => encode_rgba8(img),
        TexFormat::Cmpr => encode_cmpr(img),
        // Without a palette, index formats store the luma as the index (only useful
        // with a grey ramp palette); Txtr::encode builds a real palette.
        TexFormat::C4 => encode_tiled::<4>(img, |c| u32::from(luma(c) >> 4)),
        TexFormat::C8 => encode_tiled::<8>(img, |c| u32::from(luma(c))),
        TexFormat::C14X2 => encode_tiled::<16>(img, |c| u32::from(luma(c))),
    }
}

fn encode_indexed(format: TexFormat, img: &RgbaImage, q: &Quantizer) -> Vec<u8> {
    match format {
        TexFormat::C4 => encode_tiled::<4>(img, |c| q.index(c)),
        TexFormat::C8 => encode_tiled::<8>(img, |c| q.index(c)),
        _ => encode_tiled::<16>(img, |c| q.index(c)),
    }
}

fn encode_tiled<const BITS: u32>(img: &RgbaImage, value: impl Fn([u8; 4]) -> u32) -> Vec<u8> {
    let (bw, bh) = match BITS {
        4 => (8u32, 8u32),
        8 => (8, 4),
        _ => (4, 4),
    };
    let (w, h) = (img.width, img.height);
    let mut out = Vec::with_capacity(w.div_ceil(bw) as usize * h.div_ceil(bh) as usize * 32);
    for by in 0..h.div_ceil(bh) {
        for bx in 0..w.div_ceil(bw) {
            let mut block = [0u8; 32];
            for ty in 0..bh {
                for tx in 0..bw {
                    let c = img.pixel((bx * bw + tx).min(w - 1), (by * bh + ty).min(h - 1));
                    let v = value(c);
                    let i = (ty * bw + tx) as usize;
                    match BITS {
                        4 => block[i / 2] |= ((v & 0xF) as u8) << (4 * (1 - (i & 1))),
                        8 => block[i] = v as u8,
                        _ => block[2 * i..2 * i + 2].copy_from_slice(&(v as u16).to_be_bytes()),
                    }
                }
            }
            out.extend_from_slice(&block);
        }
    }
    out
}

fn encode_rgba8(img: &RgbaImage) -> Vec<u8> {
    let (w, h) = (img.width, img.height);
    let mut out = Vec::with_capacity(w.div_ceil(4) as usize * h.div_ceil(4) as usize * 64);
    for by in 0..h.div_ceil(4) {
        for bx in 0..w.div_ceil(4) {
            let mut block = [0u8; 64];
            for i in 0..16u32 {
                let c = img.pixel((bx * 4 + i % 4).min(w - 1), (by * 4 + i / 4).min(h - 1));
                let i = i as usize;
                block[2 * i] = c[3];
                block[2 * i + 1] = c[0];
                block[32 + 2 * i] = c[1];
                block[32 + 2 * i + 1] = c[2];
            }
            out.extend_from_slice(&block);
        }
    }
    out
}

fn encode_cmpr(img: &RgbaImage) -> Vec<u8> {
    let (w, h) = (img.width, img.height);
    let mut out = Vec::with_capacity(w.div_ceil(8) as usize * h.div_ceil(8) as usize * 32);
    for by in 0..h.div_ceil(8) {
        for bx in 0..w.div_ceil(8) {
            for s in 0..4 {
                let x0 = bx * 8 + (s & 1) * 4;
                let y0 = by * 8 + (s >> 1) * 4;
                let texels: [[u8; 4]; 16] = std::array::from_fn(|i| {
                    let i = i as u32;
                    img.pixel((x0 + i % 4).min(w - 1), (y0 + i / 4).min(h - 1))
                });
                out.extend_from_slice(&encode_cmpr_subblock(&texels));
            }
        }
    }
    out
}

/// Encodes a 4×4 CMPR sub-block (texels row-major). Texels with alpha < 128 become the
/// transparent index of a 3-colour block; opaque blocks try both modes and keep the one
/// with the smaller squared error. Endpoints start on the principal axis and are refined
/// by least squares against the GX 3/8–5/8 weights.
pub fn encode_cmpr_subblock(texels: &[[u8; 4]; 16]) -> [u8; 8] {
    let transparent: [bool; 16] = std::array::from_fn(|i| texels[i][3] < 128);
    let opaque: Vec<[i32; 3]> = (0..16)
        .filter(|&i| !transparent[i])
        .map(|i| [0, 1, 2].map(|c| i32::from(texels[i][c])))
        .collect();
    let has_transparent = opaque.len() < 16;
    if opaque.is_empty() {
        return [0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF];
    }

    let mut best: Option<(u64, [u8; 8])> = None;
    let consider = |c0: u16, c1: u16, best: &mut Option<(u64, [u8; 8])>| {
        // Candidate endpoint pairs in both orders: one order gives 4-colour mode, the
        // other 3-colour mode (a transparent texel forces 3-colour mode).
        let orders: &[(u16, u16)] = if has_transparent {
            &[(c0.min(c1), c0.max(c1))]
        } else {
            &[(c0.max(c1), c0.min(c1)), (c0.min(c1), c0.max(c1))]
        };
        for &(a, b) in orders {
            let (err, bytes) = evaluate_cmpr(texels, &transparent, a, b);
            if best.is_none_or(|(e, _)| err < e) {
                *best = Some((err, bytes));
            }
        }
    };

    let (lo, hi) = principal_endpoints(&opaque);
    let mut c0 = to_rgb565([lo[0], lo[1], lo[2], 255]);
    let mut c1 = to_rgb565([hi[0], hi[1], hi[2], 255]);
    consider(c0, c1, &mut best);
    // Bounding-box corners as a second start.
    let bb_min = [0, 1, 2].map(|c| opaque.iter().map(|p| p[c]).min().unwrap_or(0) as u8);
    let bb_max = [0, 1, 2].map(|c| opaque.iter().map(|p| p[c]).max().unwrap_or(0) as u8);
    consider(
        to_rgb565([bb_min[0], bb_min[1], bb_min[2], 255]),
        to_rgb565([bb_max[0], bb_max[1], bb_max[2], 255]),
        &mut best,
    );
    // Least-squares refinement of the best 4-colour assignment.
    for _ in 0..2 {
        let Some((_, bytes)) = best else { break };
        let (b0, b1) = (
            u16::from_be_bytes([bytes[0], bytes[1]]),
            u16::from_be_bytes([bytes[2], bytes[3]]),
        );
        let Some((r0, r1)) = refine_endpoints(texels, &transparent, &bytes, b0 > b1) else {
            break;
        };
        if (r0, r1) == (c0, c1) {
            break;
        }
        (c0, c1) = (r0, r1);
        consider(c0, c1, &mut best);
    }
    best.map_or([0; 8], |(_, b)| b)
}

/// Squared error and bytes of a sub-block with endpoints (c0, c1) in the mode their order
/// implies, each texel taking its nearest palette entry.
fn evaluate_cmpr(
    texels: &[[u8; 4]; 16],
    transparent: &[bool; 16],
    c0: u16,
    c1: u16,
) -> (u64, [u8; 8]) {
    let pal = cmpr_palette(c0, c1);
    let usable = if c0 > c1 { 4 } else { 3 };
    let mut err = 0u64;
    let mut indices = [0u8; 4];
    for i in 0..16 {
        let index = if transparent[i] {
            3
        } else {
            let (mut bi, mut be) = (0, u64::MAX);
            for (k, p) in pal.iter().enumerate().take(usable) {
                let e: u64 = (0..3)
                    .map(|c| {
                        let d = i64::from(p[c]) - i64::from(texels[i][c]);
                        (d * d) as u64
                    })
                    .sum();
                if e < be {
                    (bi, be) = (k, e);
                }
            }
            err += be;
            bi as u8
        };
        indices[i / 4] |= index << (6 - 2 * (i % 4));
    }
    let [a, b] = c0.to_be_bytes();
    let [c, d] = c1.to_be_bytes();
    (
        err,
        [a, b, c, d, indices[0], indices[1], indices[2], indices[3]],
    )
}

/// The two texels at the extremes of the opaque texels' principal axis.
fn principal_endpoints(pts: &[[i32; 3]]) -> ([u8; 3], [u8; 3]) {
    let n = pts.len() as f32;
    let mean: [f32; 3] = std::array::from_fn(|c| pts.iter().map(|p| p[c] as f32).sum::<f32>() / n);
    let mut cov = [[0f32; 3]; 3];
    for p in pts {
        let d: [f32; 3] = std::array::from_fn(|c| p[c] as f32 - mean[c]);
        for i in 0..3 {
            for j in 0..3 {
                cov[i][j] += d[i] * d[j];
            }
        }
    }
    let mut axis = [1.0f32, 1.0, 1.0];
    for _ in 0..8 {
        let next: [f32; 3] =
            std::array::from_fn(|i| (0..3).map(|j| cov[i][j] * axis[j]).sum::<f32>());
        let len = next.iter().map(|v| v * v).sum::<f32>().sqrt();
        if len < 1e-6 {
            break;
        }
        axis = next.map(|v| v / len);
    }
    let proj = |p: &[i32; 3]| {
        (0..3)
            .map(|c| (p[c] as f32 - mean[c]) * axis[c])
            .sum::<f32>()
    };
    let mut lo = pts[0];
    let mut hi = pts[0];
    for p in pts {
        if proj(p) < proj(&lo) {
            lo = *p;
        }
        if proj(p) > proj(&hi) {
            hi = *p;
        }
    }
    (lo.map(|v| v as u8), hi.map(|v| v as u8))
}

/// Least-squares endpoints for the indices in `bytes` (weights of p0 per index: 1, 0,
/// 5/8, 3/8 in 4-colour mode; 1, 0, 1/2 in 3-colour mode).
fn refine_endpoints(
    texels: &[[u8; 4]; 16],
    transparent: &[bool; 16],
    bytes: &[u8; 8],
    four_colour: bool,
) -> Option<(u16, u16)> {
    let weight = |index: u8| -> f32 {
        match (index, four_colour) {
            (0, _) => 1.0,
            (1, _) => 0.0,
            (2, true) => 5.0 / 8.0,
            (3, true) => 3.0 / 8.0,
            _ => 0.5,
        }
    };
    let (mut aa, mut ab, mut bb) = (0f32, 0f32, 0f32);
    let mut ax = [0f32; 3];
    let mut bx = [0f32; 3];
    for i in 0..16 {
        let index = (bytes[4 + i / 4] >> (6 - 2 * (i % 4))) & 3;
        if transparent[i] || (!four_colour && index == 3) {
            continue;
        }
        let a = weight(index);
        let b = 1.0 - a;
        aa += a * a;
        ab += a * b;
        bb += b * b;
        for c in 0..3 {
            ax[c] += a * f32::from(texels[i][c]);
            bx[c] += b * f32::from(texels[i][c]);
        }
    }
    let det = aa * bb - ab * ab;
    if det.abs() < 1e-6 {
        return None;
    }
    let q = |v: f32| v.round().clamp(0.0, 255.0) as u8;
    let e0: [u8; 3] = std::array::from_fn(|c| q((bb * ax[c] - ab * bx[c]) / det));
    let e1: [u8; 3] = std::array::from_fn(|c| q((aa * bx[c] - ab * ax[c]) / det));
    Some((
        to_rgb565([e0[0], e0[1], e0[2], 255]),
        to_rgb565([e1[0], e1[1], e1[2], 255]),
    ))
}

fn choose_palette_format(levels: &[RgbaImage]) -> PaletteFormat {
    let pixels = || levels.iter().flat_map(|l| l.pixels.chunks_exact(4));
    let grey = pixels().all(|p| p[0] == p[1] && p[1] == p[2]);
    let opaque = pixels().all(|p| p[3] == 255);
    if grey {
        PaletteFormat::Ia8
    } else if opaque {
        PaletteFormat::Rgb565
    } else {
        PaletteFormat::Rgb5A3
    }
}

/// A palette built by median cut over the colours of every level, plus the map from
/// each (palette-format-quantised) colour to its index.
struct Quantizer {
    palette: Palette,
    format: PaletteFormat,
    index_of: std::collections::HashMap<u16, u32>,
}

impl Quantizer {
    fn build(levels: &[RgbaImage], format: PaletteFormat, size: usize) -> Quantizer {
        let mut histogram = std::collections::HashMap::<u16, u32>::new();
        for level in levels {
            for p in level.pixels.chunks_exact(4) {
                *histogram
                    .entry(format.encode([p[0], p[1], p[2], p[3]]))
                    .or_default() += 1;
            }
        }
        let mut colours: Vec<(u16, u32)> = histogram.into_iter().collect();
        colours.sort_unstable();
        let mut entries = Vec::with_capacity(size);
        let mut index_of = std::collections::HashMap::new();
        if colours.len() <= size {
            for (i, &(key, _)) in colours.iter().enumerate() {
                entries.push(key);
                index_of.insert(key, i as u32);
            }
        } else {
            for (i, bucket) in median_cut(&colours, format, size).iter().enumerate() {
                let total: u64 = bucket.iter().map(|&(_, n)| u64::from(n)).sum();
                let mean: [u8; 4] = std::array::from_fn(|c| {
                    let sum: u64 = bucket
                        .iter()
                        .map(|&(k, n)| u64::from(format.decode(k)[c]) * u64::from(n))
                        .sum();
                    ((sum + total / 2) / total.max(1)) as u8
                });
                entries.push(format.encode(mean));
                for &(key, _) in bucket {
                    index_of.insert(key, i as u32);
                }
            }
        }
        entries.resize(size, 0);
        // Stored as 1 × N, like the conformance C4 fixture.
        let (width, height) = (1, size as u16);
        Quantizer {
            palette: Palette {
                format,
                width,
                height,
                entries,
            },
            format,
            index_of,
        }
    }

    fn index(&self, c: [u8; 4]) -> u32 {
        self.index_of
            .get(&self.format.encode(c))
            .copied()
            .unwrap_or(0)
    }
}

/// Splits weighted colours into at most `size` buckets, always splitting the bucket
/// with the widest channel range at its weighted median.
fn median_cut(colours: &[(u16, u32)], format: PaletteFormat, size: usize) -> Vec<Vec<(u16, u32)>> {
    use std::collections::BinaryHeap;
    let range = |bucket: &[(u16, u32)]| -> (u32, usize) {
        let mut best = (0, 0);
        for c in 0..4 {
            let vals = bucket.iter().map(|&(k, _)| format.decode(k)[c]);
            let (lo, hi) = vals.fold((255u8, 0u8), |(lo, hi), v| (lo.min(v), hi.max(v)));
            let r = u32::from(hi.saturating_sub(lo));
            if r > best.0 {
                best = (r, c);
            }
        }
        best
    };
    let mut buckets: Vec<Vec<(u16, u32)>> = vec![colours.to_vec()];
    let mut heap = BinaryHeap::new();
    let (r, c) = range(&buckets[0]);
    heap.push((r, std::cmp::Reverse(0usize), c));
    while buckets.len() < size {
        let Some((r, std::cmp::Reverse(i), channel)) = heap.pop() else {
            break;
        };
        if r == 0 || buckets[i].len() < 2 {
            continue;
        }
        let mut bucket = std::mem::take(&mut buckets[i]);
        bucket.sort_by_key(|&(k, _)| (format.decode(k)[channel], k));
        let total: u64 = bucket.iter().map(|&(_, n)| u64::from(n)).sum();
        let mut acc = 0u64;
        let mut split = 1;
        for (j, &(_, n)) in bucket.iter().enumerate() {
            acc += u64::from(n);
            if acc * 2 >= total {
                split = (j + 1).clamp(1, bucket.len() - 1);
                break;
            }
        }
        let upper = bucket.split_off(split);
        buckets[i] = bucket;
        buckets.push(upper);
        let j = buckets.len() - 1;
        for k in [i, j] {
            let (r, c) = range(&buckets[k]);
            heap.push((r, std::cmp::Reverse(k), c));
        }
    }
    buckets.retain(|b| !b.is_empty());
    buckets
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn bit_expansion_is_exact_replication() {
        assert_eq!(e3(7), 255);
        assert_eq!(e3(1), 36);
        assert_eq!(e3(4), 146);
        assert_eq!(e4(0xA), 0xAA);
        assert_eq!(e5(31), 255);
        assert_eq!(e5(1), 8);
        assert_eq!(e5(16), 132);
        assert_eq!(e6(63), 255);
        assert_eq!(e6(1), 4);
        for v in 0..32 {
            assert_eq!(e5(v), ((v << 3) | (v >> 2)) as u8);
        }
        for v in 0..8 {
            assert_eq!(e3(v), ((v << 5) | (v << 2) | (v >> 1)) as u8);
        }
    }

    #[test]
    fn nearest_tables_invert_expansion() {
        for v in 0..32 {
            assert_eq!(u32::from(Q5[e5(v) as usize]), v);
        }
        for v in 0..64 {
            assert_eq!(u32::from(Q6[e6(v) as usize]), v);
        }
        for v in 0..8 {
            assert_eq!(u32::from(Q3[e3(v) as usize]), v);
        }
    }

    #[test]
    fn texel_conversions() {
        assert_eq!(rgb5a3(0x8000 | 31 << 10), [255, 0, 0, 255]);
        assert_eq!(rgb5a3(0x5A64), [170, 102, 68, 182]);
        assert_eq!(ia8(0x40C0), [0xC0, 0xC0, 0xC0, 0x40]);
        assert_eq!(rgb565(0xF800), [255, 0, 0, 255]);
        for v in 0..=u16::MAX {
            assert_eq!(rgb5a3(to_rgb5a3(rgb5a3(v))), rgb5a3(v), "{v:#x}");
            assert_eq!(to_rgb565(rgb565(v)), v);
        }
        // 0x7111 (A3 = 7, RGB444 = 1,1,1) is opaque grey 17, which RGB555 cannot hold.
        assert_eq!(to_rgb5a3([17, 17, 17, 255]), 0x7111);
    }

    /// The packed (SIMD-within-a-register) palette and texel paths equal the per-channel
    /// reference for every texel value and a spread of endpoint pairs.
    #[test]
    fn packed_decoders_equal_the_reference() {
        for v in 0..=u16::MAX {
            assert_eq!(
                packed_rgb565(u32::from(v)),
                u32::from_ne_bytes(rgb565(v)),
                "{v:#06x}"
            );
            assert_eq!(
                packed_rgb5a3(u32::from(v)),
                u32::from_ne_bytes(rgb5a3(v)),
                "{v:#06x}"
            );
        }
        let mut x = 0x2545_F491u32;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            let (c0, c1) = ((x >> 16) as u16, x as u16);
            let table = texel_table(&RGB565_TABLE, packed_rgb565);
            let want = cmpr_palette(c0, c1).map(u32::from_ne_bytes);
            assert_eq!(
                packed_cmpr_palette(table, c0, c1),
                want,
                "{c0:#06x} {c1:#06x}"
            );
            let swapped = cmpr_palette(c1, c0).map(u32::from_ne_bytes);
            assert_eq!(packed_cmpr_palette(table, c1, c0), swapped);
        }
    }

    #[test]
    fn cmpr_palette_follows_gx_weights() {
        let p = cmpr_palette(0xF800, 0x001F);
        assert_eq!(p[2], [159, 0, 95, 255]);
        assert_eq!(p[3], [95, 0, 159, 255]);
        let q = cmpr_palette(0x001F, 0xF800);
        assert_eq!(q[2], [127, 0, 127, 255]);
        assert_eq!(q[3], [127, 0, 127, 0]);
        let e = cmpr_palette(0x8410, 0x8410);
        assert_eq!(e[3][3], 0);
        assert_eq!(e[0], e[1]);
    }

    fn header(format: u32, w: u16, h: u16, mips: u32) -> Vec<u8> {
        let mut v = format.to_be_bytes().to_vec();
        v.extend(w.to_be_bytes());
        v.extend(h.to_be_bytes());
        v.extend(mips.to_be_bytes());
        v
    }

    #[test]
    fn header_validation_names_fields() {
        let mut d = header(11, 4, 4, 1);
        d.extend([0; 64]);
        let e = Txtr::parse(&d, "t.TXTR").unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("format", 0));
        let d = header(1, 0, 4, 1);
        assert_eq!(Txtr::parse(&d, "t").unwrap_err().field, "width");
        // Odd mip counts load (as the game loads them) with a warning naming the field, and
        // the stored value is written back.
        for (stored, used) in [(5, 4), (0, 1)] {
            let mut d = header(1, 8, 8, stored);
            d.extend([0; 256]);
            let t = Txtr::parse(&d, "t.TXTR").unwrap();
            assert_eq!((t.mip_count, t.stored_mip_count), (used, stored));
            assert_eq!(t.warnings.len(), 1);
            assert!(t.warnings[0].contains("t.TXTR") && t.warnings[0].contains("mip_count"));
            assert_eq!(t.to_bytes(), d);
            assert_eq!(t.decode_complete_levels().0.len(), used as usize);
        }
        let mut d = header(1, 8, 4, 1);
        d.extend([0; 31]);
        let e = Txtr::parse(&d, "t").unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("mip[0]", 12));
        // C8 with a 16-entry palette.
        let mut d = header(5, 8, 4, 1);
        d.extend(2u32.to_be_bytes());
        d.extend([0, 1, 0, 16]);
        d.extend([0; 64]);
        let e = Txtr::parse(&d, "t").unwrap_err();
        assert_eq!(e.field, "palette.width×height");
    }

    #[test]
    fn truncated_last_mip_decodes_complete_levels() {
        // I8 16×8 with 3 levels: 128 + 32 + 32 bytes; cut the last level short.
        let mut d = header(1, 16, 8, 3);
        d.extend((0..128 + 32 + 10).map(|i| i as u8));
        let t = Txtr::parse(&d, "cut.TXTR").unwrap();
        assert_eq!(t.complete_levels(), 2);
        assert!(t.decode_level(1).is_ok());
        let e = t.decode_level(2).unwrap_err();
        assert_eq!(e.field, "mip[2]");
        assert_eq!(e.offset, 12 + 160);
        let (levels, err) = t.decode_complete_levels();
        assert_eq!(levels.len(), 2);
        assert!(err.is_some());
        assert_eq!(t.to_bytes(), d);
    }

    #[test]
    fn sub_block_sized_levels_take_whole_blocks() {
        assert_eq!(TexFormat::Cmpr.level_size(4, 4), 32);
        assert_eq!(TexFormat::I8.level_size(1, 1), 32);
        assert_eq!(TexFormat::Rgba8.level_size(5, 4), 128);
        assert_eq!(TexFormat::I4.level_size(16, 8), 64);
        assert_eq!(max_mip_count(128, 128), 8);
        assert_eq!(max_mip_count(8, 8), 4);
        assert_eq!(max_mip_count(640, 480), 10);
    }

    fn test_image(w: u32, h: u32) -> RgbaImage {
        RgbaImage::from_fn(w, h, |x, y| {
            [
                (x * 37 + y * 11) as u8,
                (x * 5 + y * 53) as u8,
                (x * y * 3) as u8,
                255u32.wrapping_sub(x * 7 + y) as u8,
            ]
        })
    }

    /// Maps each pixel to the value the format can represent exactly, so that encode →
    /// decode must be the identity.
    fn representable(format: TexFormat, img: &RgbaImage) -> RgbaImage {
        let mut out = img.clone();
        for p in out.pixels.chunks_exact_mut(4) {
            let c = [p[0], p[1], p[2], p[3]];
            let r = match format {
                TexFormat::I4 => {
                    let i = e4(Q4[luma(c) as usize].into());
                    [i; 4]
                }
                TexFormat::I8 => [luma(c); 4],
                TexFormat::IA4 => {
                    let i = e4(Q4[luma(c) as usize].into());
                    [i, i, i, e4(Q4[c[3] as usize].into())]
                }
                TexFormat::IA8 => [luma(c), luma(c), luma(c), c[3]],
                TexFormat::Rgb565 => rgb565(to_rgb565(c)),
                TexFormat::Rgb5A3 => rgb5a3(to_rgb5a3(c)),
                _ => c,
            };
            p.copy_from_slice(&r);
        }
        out
    }

    #[test]
    fn lossless_formats_round_trip_through_encoder() {
        for format in [
            TexFormat::I4,
            TexFormat::I8,
            TexFormat::IA4,
            TexFormat::IA8,
            TexFormat::Rgb565,
            TexFormat::Rgb5A3,
            TexFormat::Rgba8,
        ] {
            for (w, h) in [(8, 8), (13, 7), (1, 1), (32, 16)] {
                let img = representable(format, &test_image(w, h));
                let t = Txtr::encode(
                    &img,
                    format,
                    &EncodeOptions {
                        mip_count: Some(1),
                        ..Default::default()
                    },
                )
                .unwrap();
                let bytes = t.to_bytes();
                let back = Txtr::parse(&bytes, "enc").unwrap();
                assert_eq!(
                    back,
                    Txtr {
                        file: "enc".into(),
                        ..t.clone()
                    }
                );
                assert_eq!(back.decode_level(0).unwrap(), img, "{format:?} {w}×{h}");
            }
        }
    }

    #[test]
    fn palette_formats_are_exact_when_colours_fit() {
        for (format, colours) in [
            (TexFormat::C4, 16u32),
            (TexFormat::C8, 200),
            (TexFormat::C14X2, 3000),
        ] {
            for pf in [
                PaletteFormat::Rgb5A3,
                PaletteFormat::Rgb565,
                PaletteFormat::Ia8,
            ] {
                let img = RgbaImage::from_fn(64, 64, |x, y| {
                    let k = (x + 64 * y) % colours;
                    let c = [
                        (k * 7) as u8,
                        (k * 13 / 3) as u8,
                        ((k >> 4) * 40) as u8,
                        255 - (k % 8) as u8 * 30,
                    ];
                    pf.decode(pf.encode(c))
                });
                let opts = EncodeOptions {
                    mip_count: Some(1),
                    palette_format: Some(pf),
                };
                let t = Txtr::encode(&img, format, &opts).unwrap();
                let back = Txtr::parse(&t.to_bytes(), "p").unwrap();
                assert_eq!(back.decode_level(0).unwrap(), img, "{format:?} {pf:?}");
            }
        }
    }

    #[test]
    fn palette_quantizer_bounds_error_with_too_many_colours() {
        // A smooth 2-D gradient with 4096 colours: median cut gives boxes about 64 (C4)
        // or 16 (C8) levels wide per channel.
        let img = RgbaImage::from_fn(64, 64, |x, y| [(x * 4) as u8, (y * 4) as u8, 128, 255]);
        for format in [TexFormat::C4, TexFormat::C8] {
            let t = Txtr::encode(&img, format, &EncodeOptions::default()).unwrap();
            assert_eq!(t.mip_count, 7);
            let out = t.decode_level(0).unwrap();
            let mse: f64 = out
                .pixels
                .iter()
                .zip(&img.pixels)
                .map(|(&a, &b)| (f64::from(a) - f64::from(b)).powi(2))
                .sum::<f64>()
                / out.pixels.len() as f64;
            let bound = if format == TexFormat::C4 { 300.0 } else { 30.0 };
            assert!(mse < bound, "{format:?} mse {mse}");
        }
    }

    #[test]
    fn cmpr_encoder_is_exact_for_two_colour_blocks_and_bounded_otherwise() {
        let a = rgb565(0xF81F);
        let b = rgb565(0x07E0);
        let img = RgbaImage::from_fn(16, 8, |x, y| if (x + y) % 3 == 0 { a } else { b });
        let t = Txtr::encode(
            &img,
            TexFormat::Cmpr,
            &EncodeOptions {
                mip_count: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(t.decode_level(0).unwrap(), img);

        let grad = RgbaImage::from_fn(32, 32, |x, y| [(x * 8) as u8, (y * 8) as u8, 128, 255]);
        let t = Txtr::encode(&grad, TexFormat::Cmpr, &EncodeOptions::default()).unwrap();
        let out = t.decode_level(0).unwrap();
        // Each 4×4 block holds a 2-D gradient (24 steps in R and in G) that four colours on
        // a line cannot represent exactly.
        let diffs: Vec<u32> = out
            .pixels
            .iter()
            .zip(&grad.pixels)
            .map(|(&p, &q)| u32::from(p.abs_diff(q)))
            .collect();
        let max = diffs.iter().max().copied().unwrap();
        let rms = (diffs.iter().map(|d| f64::from(d * d)).sum::<f64>() / diffs.len() as f64).sqrt();
        assert!(max <= 16 && rms < 6.0, "max error {max}, rms {rms}");

        let holes = RgbaImage::from_fn(8, 8, |x, y| {
            if x == y {
                [0, 0, 0, 0]
            } else {
                [200, 100, 50, 255]
            }
        });
        let t = Txtr::encode(
            &holes,
            TexFormat::Cmpr,
            &EncodeOptions {
                mip_count: Some(1),
                ..Default::default()
            },
        )
        .unwrap();
        let out = t.decode_level(0).unwrap();
        for y in 0..8 {
            for x in 0..8 {
                assert_eq!(out.pixel(x, y)[3], if x == y { 0 } else { 255 });
            }
        }
    }

    #[test]
    fn mip_chain_uses_box_filter() {
        let img = RgbaImage::from_fn(4, 2, |x, _| [x as u8 * 10, 0, 0, 255]);
        let t = Txtr::encode(&img, TexFormat::Rgba8, &EncodeOptions::default()).unwrap();
        assert_eq!(t.mip_count, 3);
        let m1 = t.decode_level(1).unwrap();
        assert_eq!((m1.width, m1.height), (2, 1));
        assert_eq!(m1.pixel(0, 0), [5, 0, 0, 255]);
        assert_eq!(m1.pixel(1, 0), [25, 0, 0, 255]);
        let m2 = t.decode_level(2).unwrap();
        assert_eq!(m2.pixel(0, 0), [15, 0, 0, 255]);
        assert_eq!(t.data.len(), 64 * 3);
    }

    #[test]
    fn hostile_headers_never_panic() {
        let img = test_image(16, 16);
        // C14X2 is left out: its 32 KiB palette makes every-offset truncation slow.
        for format in TexFormat::ALL
            .into_iter()
            .filter(|&f| f != TexFormat::C14X2)
        {
            let t = Txtr::encode(&img, format, &EncodeOptions::default()).unwrap();
            let bytes = t.to_bytes();
            crate::testing::torture(&bytes, 200, |d| {
                let t = Txtr::parse(d, "x")?;
                t.decode_complete_levels();
                Ok::<_, FormatError>(())
            });
        }
    }
}
