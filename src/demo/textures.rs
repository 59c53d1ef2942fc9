//! Procedural textures of the demo: one per TXTR format plus the ones the showcase
//! materials need (filmstrip digits, an environment map, a lightmap, an arrow, the worm's
//! skin). Every image is a pure function of its pixel coordinates, so rebuilding gives the
//! same bytes.

use std::f32::consts::{PI, TAU};

use crate::formats::txtr::{EncodeOptions, PaletteFormat, TexFormat, Txtr};
use crate::image::RgbaImage;

use super::DemoError;

/// How one texture is made.
#[derive(Debug, Clone, Copy)]
pub struct TextureSpec {
    /// PAK name (`demo.pak:NAME`).
    pub name: &'static str,
    pub id: u32,
    pub format: TexFormat,
    pub width: u32,
    pub height: u32,
    /// Mip levels including the base; None = the full chain.
    pub mips: Option<u32>,
    /// Palette entry format for C4/C8/C14X2.
    pub palette: Option<PaletteFormat>,
    pub image: fn(u32, u32) -> RgbaImage,
    /// One line for the README.
    pub about: &'static str,
}

impl TextureSpec {
    /// Draws and encodes the texture.
    pub fn encode(&self) -> Result<Txtr, DemoError> {
        let image = (self.image)(self.width, self.height);
        Txtr::encode(
            &image,
            self.format,
            &EncodeOptions {
                mip_count: self.mips,
                palette_format: self.palette,
            },
        )
        .map_err(|e| DemoError::new(self.name, e.to_string()))
    }
}

pub const TEX_I4: u32 = 0xDE02_0000;
pub const TEX_I8: u32 = 0xDE02_0001;
pub const TEX_IA4: u32 = 0xDE02_0002;
pub const TEX_IA8: u32 = 0xDE02_0003;
pub const TEX_C4: u32 = 0xDE02_0004;
pub const TEX_C8: u32 = 0xDE02_0005;
pub const TEX_C14X2: u32 = 0xDE02_0006;
pub const TEX_RGB565: u32 = 0xDE02_0007;
pub const TEX_RGB5A3: u32 = 0xDE02_0008;
pub const TEX_RGBA8: u32 = 0xDE02_0009;
pub const TEX_CMPR: u32 = 0xDE02_000A;
pub const TEX_DIGITS_H: u32 = 0xDE02_0010;
pub const TEX_DIGITS_V: u32 = 0xDE02_0011;
pub const TEX_ENV: u32 = 0xDE02_0012;
pub const TEX_LIGHTMAP: u32 = 0xDE02_0013;
pub const TEX_ARROW: u32 = 0xDE02_0014;
pub const TEX_WORM: u32 = 0xDE02_0015;
pub const TEX_ROOM_LIGHTMAP: u32 = 0xDE02_0016;
pub const TEX_ROOM_TILES: u32 = 0xDE02_0017;
pub const TEX_WATER: u32 = 0xDE02_0018;

/// Side, in texels, of the flat blocks the room's lightmap and floor tiles are made of: a
/// texel sampled anywhere inside a block but its one-texel rim reads the block's value
/// through any filter (the lightmap test relies on it).
pub const ROOM_BLOCK: u32 = 4;

/// Frames in each filmstrip texture (digits 0–7).
pub const FILMSTRIP_FRAMES: u32 = 8;
/// Side of one filmstrip frame in texels.
pub const FILMSTRIP_FRAME: u32 = 16;

/// Every texture of the demo, in PAK order.
pub const TEXTURES: &[TextureSpec] = &[
    TextureSpec {
        name: "tex_i4_checker",
        id: TEX_I4,
        format: TexFormat::I4,
        width: 32,
        height: 32,
        mips: None,
        palette: None,
        image: checker_grey,
        about: "I4: 4×4-texel grey checkerboard (16 intensity levels)",
    },
    TextureSpec {
        name: "tex_i8_rings",
        id: TEX_I8,
        format: TexFormat::I8,
        width: 32,
        height: 32,
        mips: None,
        palette: None,
        image: rings_grey,
        about: "I8: smooth concentric rings",
    },
    TextureSpec {
        name: "tex_ia4_rings",
        id: TEX_IA4,
        format: TexFormat::IA4,
        width: 32,
        height: 32,
        mips: None,
        palette: None,
        image: rings_alpha,
        about: "IA4: horizontal intensity ramp, alpha = hard rings (also the punchthrough mask)",
    },
    TextureSpec {
        name: "tex_ia8_gradient",
        id: TEX_IA8,
        format: TexFormat::IA8,
        width: 32,
        height: 32,
        mips: None,
        palette: None,
        image: checker_alpha_ramp,
        about: "IA8: checker intensity with a vertical alpha ramp",
    },
    TextureSpec {
        name: "tex_c4_stripes",
        id: TEX_C4,
        format: TexFormat::C4,
        width: 32,
        height: 32,
        mips: None,
        palette: Some(PaletteFormat::Rgb565),
        image: stripes16,
        about: "C4: 16 diagonal colour stripes, RGB565 palette of 16",
    },
    TextureSpec {
        name: "tex_c8_plasma",
        id: TEX_C8,
        format: TexFormat::C8,
        width: 64,
        height: 64,
        mips: None,
        palette: Some(PaletteFormat::Rgb565),
        image: plasma,
        about: "C8: colour plasma, RGB565 palette of 256 (median cut)",
    },
    TextureSpec {
        name: "tex_c14x2_hues",
        id: TEX_C14X2,
        format: TexFormat::C14X2,
        width: 32,
        height: 32,
        mips: None,
        palette: Some(PaletteFormat::Rgb5A3),
        image: hue_value,
        about: "C14X2: hue × brightness ramp with translucent corner, RGB5A3 palette of 16384",
    },
    TextureSpec {
        name: "tex_rgb565_uv",
        id: TEX_RGB565,
        format: TexFormat::Rgb565,
        width: 64,
        height: 64,
        mips: None,
        palette: None,
        image: uv_gradient,
        about: "RGB565: red = u, green = v gradient with a grid",
    },
    TextureSpec {
        name: "tex_rgb5a3_disc",
        id: TEX_RGB5A3,
        format: TexFormat::Rgb5A3,
        width: 32,
        height: 32,
        mips: None,
        palette: None,
        image: soft_disc,
        about: "RGB5A3: warm disc with soft alpha edge (both encodings: opaque centre, translucent rim)",
    },
    TextureSpec {
        name: "tex_rgba8_wheel",
        id: TEX_RGBA8,
        format: TexFormat::Rgba8,
        width: 64,
        height: 64,
        mips: None,
        palette: None,
        image: colour_wheel,
        about: "RGBA8: full colour wheel, alpha falls off outside the wheel",
    },
    TextureSpec {
        name: "tex_cmpr_tiles",
        id: TEX_CMPR,
        format: TexFormat::Cmpr,
        width: 64,
        height: 64,
        mips: None,
        palette: None,
        image: cmpr_tiles,
        about: "CMPR: coloured tiles with transparent gaps (3-colour + transparent blocks)",
    },
    TextureSpec {
        name: "tex_digits_h",
        id: TEX_DIGITS_H,
        format: TexFormat::Rgb565,
        width: FILMSTRIP_FRAME * FILMSTRIP_FRAMES,
        height: FILMSTRIP_FRAME,
        mips: Some(1),
        palette: None,
        image: digits_horizontal,
        about: "RGB565 filmstrip: digits 0–7 side by side (UV mode 4)",
    },
    TextureSpec {
        name: "tex_digits_v",
        id: TEX_DIGITS_V,
        format: TexFormat::C8,
        width: FILMSTRIP_FRAME,
        height: FILMSTRIP_FRAME * FILMSTRIP_FRAMES,
        mips: Some(1),
        palette: Some(PaletteFormat::Rgb565),
        image: digits_vertical,
        about: "C8 filmstrip: digits 0–7 stacked top to bottom (UV mode 5)",
    },
    TextureSpec {
        name: "tex_env_sky",
        id: TEX_ENV,
        format: TexFormat::Rgb565,
        width: 64,
        height: 64,
        mips: None,
        palette: None,
        image: env_sky,
        about: "RGB565 environment map: ground below, sky above (v = z/2 + ½), a sun",
    },
    TextureSpec {
        name: "tex_lightmap",
        id: TEX_LIGHTMAP,
        format: TexFormat::Rgb565,
        width: 32,
        height: 32,
        mips: None,
        palette: None,
        image: lightmap_blobs,
        about: "RGB565 lightmap: two coloured light pools on a dark floor",
    },
    TextureSpec {
        name: "tex_arrow",
        id: TEX_ARROW,
        format: TexFormat::Cmpr,
        width: 32,
        height: 32,
        mips: None,
        palette: None,
        image: arrow,
        about: "CMPR arrow pointing to +u (scroll and rotation tiles)",
    },
    TextureSpec {
        name: "tex_worm_skin",
        id: TEX_WORM,
        format: TexFormat::Rgb565,
        width: 64,
        height: 32,
        mips: None,
        palette: None,
        image: worm_skin,
        about: "RGB565 worm skin: banded segments with spots",
    },
    TextureSpec {
        name: "tex_room_lightmap",
        id: TEX_ROOM_LIGHTMAP,
        format: TexFormat::Rgb565,
        width: 32,
        height: 32,
        mips: Some(1),
        palette: None,
        image: room_lightmap,
        about: "RGB565 room lightmap in flat 4×4-texel blocks: a warm pool under the spot light, a cool one by the water",
    },
    TextureSpec {
        name: "tex_room_tiles",
        id: TEX_ROOM_TILES,
        format: TexFormat::Rgb565,
        width: 16,
        height: 16,
        mips: Some(1),
        palette: None,
        image: room_tiles,
        about: "RGB565 floor tiles: a two-tone stone checker of flat 4×4-texel blocks",
    },
    TextureSpec {
        name: "tex_water",
        id: TEX_WATER,
        format: TexFormat::Rgb5A3,
        width: 32,
        height: 32,
        mips: None,
        palette: None,
        image: water,
        about: "RGB5A3 water: blue ripples, alpha ≈ 0.7",
    },
];

// ------------------------------------------------------------------------------------------
// Pattern helpers (all in normalised coordinates; pixel centres at (x + ½) / w).

fn unit(x: u32, n: u32) -> f32 {
    (x as f32 + 0.5) / n as f32
}

fn byte(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

fn rgb(r: f32, g: f32, b: f32) -> [u8; 4] {
    [byte(r), byte(g), byte(b), 255]
}

fn grey(i: f32, a: f32) -> [u8; 4] {
    [byte(i), byte(i), byte(i), byte(a)]
}

/// Hue (0..1) to an RGB triple at full saturation and value.
fn hue(h: f32) -> [f32; 3] {
    let h = h.rem_euclid(1.0) * 6.0;
    let x = 1.0 - (h % 2.0 - 1.0).abs();
    match h as u32 {
        0 => [1.0, x, 0.0],
        1 => [x, 1.0, 0.0],
        2 => [0.0, 1.0, x],
        3 => [0.0, x, 1.0],
        4 => [x, 0.0, 1.0],
        _ => [1.0, 0.0, x],
    }
}

fn smoothstep(e0: f32, e1: f32, x: f32) -> f32 {
    let t = ((x - e0) / (e1 - e0)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

// ------------------------------------------------------------------------------------------
// The images.

fn checker_grey(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let on = (x / 4 + y / 4) % 2 == 0;
        // Light squares fade across the texture so all 16 I4 levels appear.
        let level = (x + y) as f32 / (w + h) as f32;
        grey(if on { 0.55 + 0.45 * level } else { 0.1 }, 1.0)
    })
}

fn rings_grey(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let (u, v) = (unit(x, w) - 0.5, unit(y, h) - 0.5);
        let r = (u * u + v * v).sqrt();
        grey(0.5 + 0.5 * (r * 4.0 * TAU).cos(), 1.0)
    })
}

fn rings_alpha(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let (u, v) = (unit(x, w) - 0.5, unit(y, h) - 0.5);
        let r = (u * u + v * v).sqrt();
        let ring = (r * 6.0).fract() < 0.5 && r < 0.5;
        grey(0.3 + 0.7 * unit(x, w), if ring { 1.0 } else { 0.0 })
    })
}

fn checker_alpha_ramp(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let on = (x / 8 + y / 8) % 2 == 0;
        grey(if on { 0.95 } else { 0.35 }, 1.0 - unit(y, h))
    })
}

fn stripes16(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let band = ((x + y) / 4) % 16;
        let [r, g, b] = hue(band as f32 / 16.0);
        let shade = if band % 2 == 0 { 1.0 } else { 0.6 };
        rgb(r * shade, g * shade, b * shade)
    })
}

fn plasma(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let (u, v) = (unit(x, w), unit(y, h));
        let p = (u * 2.0 * TAU).sin()
            + (v * 3.0 * TAU).sin()
            + ((u + v) * 2.5 * TAU).sin()
            + (((u - 0.5).powi(2) + (v - 0.5).powi(2)).sqrt() * 4.0 * TAU).sin();
        let [r, g, b] = hue(p / 8.0 + 0.5);
        rgb(r, g, b)
    })
}

fn hue_value(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let (u, v) = (unit(x, w), unit(y, h));
        let [r, g, b] = hue(u);
        let value = 1.0 - 0.8 * v;
        let a = if u > 0.75 && v > 0.75 { 0.5 } else { 1.0 };
        let c = rgb(r * value, g * value, b * value);
        [c[0], c[1], c[2], byte(a)]
    })
}

fn uv_gradient(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let line = x % 16 == 0 || y % 16 == 0;
        if line {
            rgb(1.0, 1.0, 1.0)
        } else {
            rgb(unit(x, w), unit(y, h), 0.25)
        }
    })
}

fn soft_disc(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let (u, v) = (unit(x, w) - 0.5, unit(y, h) - 0.5);
        let r = (u * u + v * v).sqrt() * 2.0;
        let a = 1.0 - smoothstep(0.5, 1.0, r);
        let c = rgb(1.0, 0.75 - 0.4 * r, 0.2);
        [c[0], c[1], c[2], byte(a)]
    })
}

fn colour_wheel(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let (u, v) = (unit(x, w) - 0.5, unit(y, h) - 0.5);
        let r = (u * u + v * v).sqrt() * 2.0;
        let angle = v.atan2(u) / TAU + 0.5;
        let [cr, cg, cb] = hue(angle);
        // Saturation grows with the radius; outside the wheel alpha falls to 0.
        let s = r.min(1.0);
        let c = rgb(1.0 - s + s * cr, 1.0 - s + s * cg, 1.0 - s + s * cb);
        [c[0], c[1], c[2], byte(1.0 - smoothstep(0.95, 1.1, r))]
    })
}

fn cmpr_tiles(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        // 16×16 tiles with a 2-texel transparent gap; each tile is one hue shaded by v.
        let (tx, ty) = (x / 16, y / 16);
        if x % 16 < 2 || y % 16 < 2 {
            return [0, 0, 0, 0];
        }
        let [r, g, b] = hue((tx + 4 * ty) as f32 / 16.0);
        let shade = 0.6 + 0.4 * ((y % 16) as f32 / 15.0);
        rgb(r * shade, g * shade, b * shade)
    })
}

/// Seven-segment masks for digits 0–9 (bits a..g = 0..6).
const SEGMENTS: [u8; 10] = [0x3F, 0x06, 0x5B, 0x4F, 0x66, 0x6D, 0x7D, 0x07, 0x7F, 0x6F];

/// Whether texel (x, y) of a 16×16 frame is lit for `digit` (a 7-segment glyph).
fn digit_texel(digit: u32, x: u32, y: u32) -> bool {
    let mask = SEGMENTS[(digit % 10) as usize];
    let seg = |s: u32| mask & (1 << s) != 0;
    let (l, r, t, m, b) = (4, 11, 2, 7, 13);
    let horizontal = |row: u32| y >= row && y < row + 2 && x >= l && x <= r;
    let vertical = |col: u32, y0: u32, y1: u32| x >= col && x < col + 2 && y >= y0 && y <= y1;
    (seg(0) && horizontal(t))
        || (seg(1) && vertical(r - 1, t, m + 1))
        || (seg(2) && vertical(r - 1, m, b + 1))
        || (seg(3) && horizontal(b))
        || (seg(4) && vertical(l, m, b + 1))
        || (seg(5) && vertical(l, t, m + 1))
        || (seg(6) && horizontal(m))
}

/// Frame `n` of a filmstrip: the digit in white on a background of hue n/8.
fn digit_frame(n: u32, x: u32, y: u32) -> [u8; 4] {
    if digit_texel(n, x, y) {
        rgb(1.0, 1.0, 1.0)
    } else {
        let [r, g, b] = hue(n as f32 / FILMSTRIP_FRAMES as f32);
        rgb(0.25 + 0.5 * r, 0.25 + 0.5 * g, 0.25 + 0.5 * b)
    }
}

fn digits_horizontal(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        digit_frame(x / FILMSTRIP_FRAME, x % FILMSTRIP_FRAME, y)
    })
}

fn digits_vertical(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        digit_frame(y / FILMSTRIP_FRAME, x, y % FILMSTRIP_FRAME)
    })
}

fn env_sky(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        // The env post matrix gives u = x/2 + ½, v = z/2 + ½ (camera space, Z up).
        let (cx, cz) = (unit(x, w) * 2.0 - 1.0, unit(y, h) * 2.0 - 1.0);
        let sun = (-(((cx - 0.35).powi(2) + (cz - 0.45).powi(2)) * 60.0)).exp();
        let horizon = (-(cz * cz) * 40.0).exp();
        let (mut r, mut g, mut b) = if cz > 0.0 {
            (0.25 + 0.2 * (1.0 - cz), 0.45 + 0.2 * (1.0 - cz), 0.95)
        } else {
            (0.35 + 0.15 * cz, 0.25 + 0.1 * cz, 0.15)
        };
        r += horizon * 0.6 + sun;
        g += horizon * 0.5 + sun;
        b += horizon * 0.3 + sun * 0.7;
        rgb(r, g, b)
    })
}

/// A Gaussian pool of light centred on (cu, cv) with sharpness `s`, at (u, v).
fn pool(u: f32, v: f32, cu: f32, cv: f32, s: f32) -> f32 {
    (-((u - cu).powi(2) + (v - cv).powi(2)) * s).exp()
}

fn lightmap_blobs(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let (u, v) = (unit(x, w), unit(y, h));
        let a = pool(u, v, 0.3, 0.35, 18.0);
        let b = pool(u, v, 0.7, 0.7, 25.0);
        rgb(
            0.12 + 1.0 * a + 0.3 * b,
            0.12 + 0.8 * a + 0.6 * b,
            0.15 + 0.3 * a + 1.0 * b,
        )
    })
}

fn arrow(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let (u, v) = (unit(x, w), unit(y, h));
        let shaft = (0.15..0.6).contains(&u) && (v - 0.5).abs() < 0.1;
        let head = (0.6..0.9).contains(&u) && (v - 0.5).abs() < (0.9 - u) * 1.0;
        if shaft || head {
            rgb(1.0, 0.9, 0.2)
        } else if (x / 8 + y / 8) % 2 == 0 {
            rgb(0.15, 0.2, 0.45)
        } else {
            rgb(0.1, 0.12, 0.3)
        }
    })
}

fn worm_skin(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        // u runs around the body, v along it (v = 0 at the head).
        let (u, v) = (unit(x, w), unit(y, h));
        let band = 0.5 + 0.5 * (v * 12.0 * TAU).cos();
        let spot_u = (u * 6.0).fract() - 0.5;
        let spot_v = (v * 6.0).fract() - 0.5;
        let spot = (spot_u * spot_u + spot_v * spot_v).sqrt() < 0.2;
        let belly = 0.5 + 0.5 * (u * TAU + PI).cos();
        if spot {
            rgb(0.95, 0.8, 0.3)
        } else {
            rgb(
                0.35 + 0.35 * band + 0.2 * belly,
                0.55 + 0.2 * band + 0.2 * belly,
                0.3 + 0.15 * band,
            )
        }
    })
}

/// The centre (0..1) of the [`ROOM_BLOCK`] block holding texel (x, y) of a `w` × `h` image.
fn block_centre(x: u32, y: u32, w: u32, h: u32) -> (f32, f32) {
    let c = |t: u32, n: u32| ((t / ROOM_BLOCK) as f32 + 0.5) * ROOM_BLOCK as f32 / n as f32;
    (c(x, w), c(y, h))
}

fn room_lightmap(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let (u, v) = block_centre(x, y, w, h);
        // Floor u = x/8 + ½ and v = y/6 + ½: the spot's pool by the box, the water's glow.
        let warm = pool(u, v, 0.3, 0.65, 10.0);
        let cool = pool(u, v, 0.85, 0.2, 14.0);
        rgb(
            0.22 + 0.75 * warm + 0.1 * cool,
            0.2 + 0.6 * warm + 0.35 * cool,
            0.24 + 0.3 * warm + 0.6 * cool,
        )
    })
}

fn room_tiles(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        if (x / ROOM_BLOCK + y / ROOM_BLOCK).is_multiple_of(2) {
            rgb(0.62, 0.58, 0.52)
        } else {
            rgb(0.42, 0.44, 0.46)
        }
    })
}

fn water(w: u32, h: u32) -> RgbaImage {
    RgbaImage::from_fn(w, h, |x, y| {
        let (u, v) = (unit(x, w), unit(y, h));
        let r = 0.5 + 0.25 * (TAU * (u + 0.5 * v)).sin() + 0.25 * (TAU * 2.0 * (v - 0.3 * u)).sin();
        let mut c = rgb(0.08 + 0.2 * r, 0.3 + 0.3 * r, 0.55 + 0.35 * r);
        c[3] = 180;
        c
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digits_differ_per_frame_and_ids_are_unique() {
        let frames: Vec<Vec<bool>> = (0..FILMSTRIP_FRAMES)
            .map(|n| {
                (0..FILMSTRIP_FRAME * FILMSTRIP_FRAME)
                    .map(|i| digit_texel(n, i % FILMSTRIP_FRAME, i / FILMSTRIP_FRAME))
                    .collect()
            })
            .collect();
        for a in 0..frames.len() {
            for b in a + 1..frames.len() {
                assert_ne!(frames[a], frames[b], "digits {a} and {b} look the same");
            }
        }
        let mut ids: Vec<u32> = TEXTURES.iter().map(|t| t.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), TEXTURES.len());
    }
}
