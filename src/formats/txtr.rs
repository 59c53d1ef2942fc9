//! TXTR textures (formats.md §4): header, palettes, mip chains, the palette built for
//! encoding, and a byte-exact writer. The texels themselves are GX's: decoded and encoded
//! by [`crate::gx::texel`].

use super::material::warning;
use super::{ErrorKind, FormatError, Reader, Result, Writer};
use crate::gx::texel::{self, Texels};
pub use crate::gx::texel::{PaletteFormat, TexFormat};
use crate::image::RgbaImage;

/// Size of the fixed header (format, width, height, mip count).
pub const HEADER_SIZE: usize = 12;

/// The TXTR header's numbering of the texel formats (not the GX numbering,
/// [`TexFormat::gx_id`]).
const TXTR_IDS: [TexFormat; 11] = [
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

impl TexFormat {
    /// The format with TXTR id `id` (0..=10).
    pub fn from_id(id: u32) -> Option<Self> {
        TXTR_IDS.get(id as usize).copied()
    }

    /// The TXTR id stored in the header.
    pub fn id(self) -> u32 {
        TXTR_IDS.iter().position(|&f| f == self).unwrap_or(0) as u32
    }
}

/// `image` as the texel codec reads it.
fn texels(image: &RgbaImage) -> Texels<'_> {
    Texels {
        width: image.width,
        height: image.height,
        rgba: &image.pixels,
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
        Ok(RgbaImage {
            width: m.width,
            height: m.height,
            pixels: texel::decode_image(
                self.format,
                m.width,
                m.height,
                bytes,
                &self.palette_rgba(),
            ),
        })
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
                None => data.extend(texel::encode_level(format, texels(level))),
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

fn encode_indexed(format: TexFormat, img: &RgbaImage, q: &Quantizer) -> Vec<u8> {
    match format {
        TexFormat::C4 => texel::encode_tiled::<4>(texels(img), |c| q.index(c)),
        TexFormat::C8 => texel::encode_tiled::<8>(texels(img), |c| q.index(c)),
        _ => texel::encode_tiled::<16>(texels(img), |c| q.index(c)),
    }
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
    use crate::gx::texel::*;
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
