//! The GX texel formats (`gx.md`, `formats.md` §4.2): their texels decoded to RGBA8
//! exactly as the hardware expands them, and encoded back, for every format (I4, I8, IA4,
//! IA8, RGB565, RGB5A3, RGBA8, the palette formats C4, C8, C14X2 and their palette entries,
//! CMPR). Texture files (`formats::txtr`) keep their headers, palettes and mip chains and
//! call these for the texels.
//!
//! Decoding follows the GX hardware, not the PC conventions some tools use: channels are
//! widened by bit replication (31 → 255, not 248), I4/I8 give alpha = intensity, IA8
//! palette entries are alpha-first, and CMPR interpolates with 3/8–5/8 weights and makes
//! index 3 of a 3-colour block the average colour with alpha 0.

/// RGBA8 texels to encode: rows top to bottom, four bytes a texel, `rgba.len() == width *
/// height * 4` (a view of an image, so that the codec needs no image type of its own).
#[derive(Debug, Clone, Copy)]
pub struct Texels<'a> {
    pub width: u32,
    pub height: u32,
    pub rgba: &'a [u8],
}

impl Texels<'_> {
    /// Texel (x, y); transparent black outside the data.
    fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = (y as usize * self.width as usize + x as usize) * 4;
        self.rgba
            .get(i..i + 4)
            .and_then(|p| p.try_into().ok())
            .unwrap_or([0; 4])
    }
}

/// The GX texel formats (`GX_TF_*`, see [`TexFormat::gx_id`]; TXTR numbers them
/// differently, `formats::txtr`).
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
    /// Every format.
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

    /// Every palette format, in id order.
    pub const ALL: [Self; 3] = [Self::Ia8, Self::Rgb565, Self::Rgb5A3];

    /// The format named `name` (case-insensitive), e.g. for a command-line option.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
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

pub(crate) static Q3: [u8; 256] = nearest_table(3);
pub(crate) static Q4: [u8; 256] = nearest_table(4);
pub(crate) static Q5: [u8; 256] = nearest_table(5);
pub(crate) static Q6: [u8; 256] = nearest_table(6);

/// BT.601 luma of an RGB colour, exact for grey (r = g = b).
#[inline]
pub(crate) fn luma(c: [u8; 4]) -> u8 {
    ((77 * u32::from(c[0]) + 150 * u32::from(c[1]) + 29 * u32::from(c[2]) + 128) >> 8) as u8
}

pub(crate) fn to_rgb565(c: [u8; 4]) -> u16 {
    u16::from(Q5[c[0] as usize]) << 11
        | u16::from(Q6[c[1] as usize]) << 5
        | u16::from(Q5[c[2] as usize])
}

pub(crate) fn to_rgb5a3(c: [u8; 4]) -> u16 {
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

/// Decodes one level of `format` (`width` × `height` texels) from `data` to RGBA8 bytes
/// (rows top to bottom, four bytes a texel). `data` must hold
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
) -> Vec<u8> {
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
) -> Vec<u8> {
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
    pixels
}

/// Appends the first `rows` rows (their first `w` texels) of a band to the image bytes.
fn append_rows(pixels: &mut Vec<u8>, band: &[u32], stride: usize, w: usize, rows: usize) {
    for row in band.chunks_exact(stride).take(rows) {
        pixels.extend_from_slice(bytemuck::cast_slice(&row[..w]));
    }
}

// ------------------------------------------------------------------------------------------
// Encoding.

/// Encodes one level of a non-palette format. Texels of blocks overhanging the image
/// repeat the nearest edge texel. Palette formats need a palette built first (`Txtr::encode`).
pub fn encode_level(format: TexFormat, img: Texels<'_>) -> Vec<u8> {
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
        // with a grey ramp palette); `Txtr::encode` builds a real palette.
        TexFormat::C4 => encode_tiled::<4>(img, |c| u32::from(luma(c) >> 4)),
        TexFormat::C8 => encode_tiled::<8>(img, |c| u32::from(luma(c))),
        TexFormat::C14X2 => encode_tiled::<16>(img, |c| u32::from(luma(c))),
    }
}

/// Encodes `img` as blocks of `BITS`-bit texels, `value(texel)` each (8×8 texels of 4 bits,
/// 8×4 of 8, 4×4 of 16), texels past the edge repeating the nearest edge texel.
pub fn encode_tiled<const BITS: u32>(img: Texels<'_>, value: impl Fn([u8; 4]) -> u32) -> Vec<u8> {
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

fn encode_rgba8(img: Texels<'_>) -> Vec<u8> {
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

fn encode_cmpr(img: Texels<'_>) -> Vec<u8> {
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
}
