//! GX texture sampling in fixed point (`gx.md` §14), the CPU reference of the exact path
//! the shaders take ([`crate::gx::wgsl::sampler`]).
//!
//! The rule, as the hardware documentation and Dolphin's software renderer describe it:
//! - Coordinates: (s, t) in texels of level 0 (the texcoord scale is the texture size),
//!   × 128 and truncated: s17.7, 7 fraction bits.
//! - LOD: the largest texel-space difference between a pixel and its right and lower
//!   neighbours in its 2×2 quad (the quad's top-left pixel for the whole quad), as log2 in
//!   1/16 steps from the float's exponent and top four mantissa bits, plus the bias; it
//!   picks magnification (LOD ≤ 0) or minification, then clamps to [min LOD, max LOD].
//! - Mip: LOD > 0 with mipmapping: level = LOD >> 4; linear between levels weighs the next
//!   by the 4-bit fraction (16 − f, f, then >> 4); nearest rounds up at a fraction ≥ 8.
//!   At level m the coordinate is s >> m and the size ((size − 1) >> m) + 1.
//! - Bilinear: s − 64 (half a texel), texel s >> 7, fraction s & 127; weights
//!   (128 − fs)(128 − ft), fs(128 − ft), (128 − fs)ft, fs·ft; the sum >> 14 (truncating).
//!   Nearest: texel s >> 7.
//! - Wrap: clamp to [0, size − 1]; repeat ANDs with size − 1; mirror inverts the bits when
//!   the coordinate has the size bit set, then ANDs (both assume power-of-two sizes, as the
//!   hardware does).

use serde::Serialize;

use crate::gx::regs::TexWrap;

/// Mipmap filter of texture mode 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum MipFilter {
    None,
    Nearest,
    Linear,
}

/// The structure of one map's sampling as a specialized shader's key holds it: which path
/// and which filters run. Fixed while a material's textures stay bound (wraps and LODs
/// are values in the mode words), it lets the compiler drop the paths a map never takes
/// (a software rasteriser runs both sides of a branch).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
pub enum MapSampling {
    /// Decided per pixel from the mode words (keys built from a program alone).
    #[default]
    Dynamic,
    /// The host sampler (mode words with bit 0 clear).
    Host,
    /// GX's rule with these filters.
    Exact {
        mag_linear: bool,
        min_linear: bool,
        mip: MipFilter,
    },
}

impl MapSampling {
    /// The structure [`GxSampler::uniform_words`] (or zeros, the host sampler) encode.
    pub fn from_words(words: [u32; 4]) -> Self {
        let flags = words[0];
        if flags & 1 == 0 {
            return Self::Host;
        }
        Self::Exact {
            mag_linear: flags & 2 != 0,
            min_linear: flags & 4 != 0,
            mip: match (flags >> 3) & 3 {
                0 => MipFilter::None,
                2 => MipFilter::Linear,
                // 3 is not written; the shader treats it as nearest.
                _ => MipFilter::Nearest,
            },
        }
    }

    /// The filter bits of the mode word (`gx_sample_exact`'s `filters`).
    pub fn filter_bits(&self) -> Option<u32> {
        let Self::Exact {
            mag_linear,
            min_linear,
            mip,
        } = *self
        else {
            return None;
        };
        let mip = match mip {
            MipFilter::None => 0,
            MipFilter::Nearest => 1,
            MipFilter::Linear => 2,
        };
        Some((mag_linear as u32) << 1 | (min_linear as u32) << 2 | mip << 3)
    }
}

/// One texture map's sampling state (BP texture modes 0 and 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct GxSampler {
    pub wrap_s: TexWrap,
    pub wrap_t: TexWrap,
    pub mag_linear: bool,
    pub min_linear: bool,
    pub mip: MipFilter,
    /// In 1/16.
    pub min_lod: i32,
    /// In 1/16.
    pub max_lod: i32,
    /// In 1/16 (the register's s2.5 value halved).
    pub lod_bias: i32,
}

impl GxSampler {
    /// Prime's sampling (`gx.md` §14): REPEAT, linear, linear-mip-linear when mipped with
    /// max LOD = levels − 1, no bias.
    pub fn prime(wrap: TexWrap, levels: u32) -> Self {
        let mipped = levels > 1;
        Self {
            wrap_s: wrap,
            wrap_t: wrap,
            mag_linear: true,
            min_linear: true,
            mip: if mipped {
                MipFilter::Linear
            } else {
                MipFilter::None
            },
            min_lod: 0,
            max_lod: 16 * levels.saturating_sub(1) as i32,
            lod_bias: 0,
        }
    }

    /// The four uniform words the exact shader path reads (`gx_sample` in the WGSL):
    /// x = flags (bit 0 exact, 1 mag linear, 2 min linear, 3–4 mip filter, 5–6 wrap s,
    /// 7–8 wrap t), y = min LOD, z = max LOD, w = LOD bias (i32 bits).
    pub fn uniform_words(&self) -> [u32; 4] {
        let mip = match self.mip {
            MipFilter::None => 0,
            MipFilter::Nearest => 1,
            MipFilter::Linear => 2,
        };
        let flags = 1
            | (self.mag_linear as u32) << 1
            | (self.min_linear as u32) << 2
            | mip << 3
            | (self.wrap_s as u32) << 5
            | (self.wrap_t as u32) << 7;
        [
            flags,
            self.min_lod as u32,
            self.max_lod as u32,
            self.lod_bias as u32,
        ]
    }

    /// The LOD (1/16, clamped) and whether the sample filters linearly, from the largest
    /// texel-space difference to the quad's neighbours.
    pub fn lod(&self, delta_texels: f32) -> (i32, bool) {
        let lod = fixed_log2(delta_texels) + self.lod_bias;
        let linear = if lod > 0 {
            self.min_linear
        } else {
            self.mag_linear
        };
        // Max first: a min LOD above the max wins (the register order of the hardware).
        let lod = if lod > self.max_lod {
            self.max_lod
        } else if lod < self.min_lod {
            self.min_lod
        } else {
            lod
        };
        (lod, linear)
    }

    /// The filtered texel at fixed-point coordinates `st` (level-0 texels × 128).
    /// `fetch(level, x, y)` reads a texel of a level already wrapped into range; `size`
    /// is level 0's; `levels` how many exist.
    pub fn sample(
        &self,
        size: [u32; 2],
        levels: u32,
        st: [i32; 2],
        lod: i32,
        linear: bool,
        fetch: &impl Fn(u32, u32, u32) -> [u8; 4],
    ) -> [u8; 4] {
        let (mut base, mut blend) = (0, 0);
        if lod > 0 && self.mip != MipFilter::None {
            base = lod >> 4;
            let fract = lod & 15;
            match self.mip {
                MipFilter::Linear => blend = fract,
                _ => base += (fract >= 8) as i32,
            }
        }
        let last = levels.max(1) as i32 - 1;
        let level = |m: i32| self.sample_level(size, st, m.min(last) as u32, linear, fetch);
        let a = level(base);
        if blend == 0 {
            return a;
        }
        let b = level(base + 1);
        std::array::from_fn(|i| ((a[i] as i32 * (16 - blend) + b[i] as i32 * blend) >> 4) as u8)
    }

    fn sample_level(
        &self,
        size: [u32; 2],
        st: [i32; 2],
        m: u32,
        linear: bool,
        fetch: &impl Fn(u32, u32, u32) -> [u8; 4],
    ) -> [u8; 4] {
        let w = ((size[0].max(1) as i32 - 1) >> m) + 1;
        let h = ((size[1].max(1) as i32 - 1) >> m) + 1;
        let (s, t) = (st[0] >> m, st[1] >> m);
        if !linear {
            let x = wrap(s >> 7, self.wrap_s, w);
            let y = wrap(t >> 7, self.wrap_t, h);
            return fetch(m, x as u32, y as u32);
        }
        let (s, t) = (s - 64, t - 64);
        let (fs, ft) = (s & 127, t & 127);
        let (x0, y0) = (s >> 7, t >> 7);
        let xs = [wrap(x0, self.wrap_s, w), wrap(x0 + 1, self.wrap_s, w)];
        let ys = [wrap(y0, self.wrap_t, h), wrap(y0 + 1, self.wrap_t, h)];
        let weights = bilinear_weights(fs, ft);
        let mut sum = [0i32; 4];
        for (k, wgt) in weights.iter().enumerate() {
            let texel = fetch(m, xs[k & 1] as u32, ys[k >> 1] as u32);
            for (acc, v) in sum.iter_mut().zip(texel) {
                *acc += v as i32 * wgt;
            }
        }
        sum.map(|v| (v >> 14) as u8)
    }
}

/// Weights of texels (x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1) for 7-bit fractions;
/// they sum to 128².
pub fn bilinear_weights(fs: i32, ft: i32) -> [i32; 4] {
    [
        (128 - fs) * (128 - ft),
        fs * (128 - ft),
        (128 - fs) * ft,
        fs * ft,
    ]
}

/// log2 in 1/16 steps: the exponent and the top four mantissa bits of the float (a
/// piecewise-linear approximation; 0 gives a very negative LOD).
pub fn fixed_log2(f: f32) -> i32 {
    (f.abs().to_bits() >> 19) as i32 - (127 << 4)
}

/// A texture coordinate in level-0 texels × 128, truncated toward zero (s17.7).
pub fn fixed_coord(uv: f32, size: u32) -> i32 {
    (uv * size as f32 * 128.0) as i32
}

/// Wraps a texel index into [0, size) (`size` a power of two for repeat and mirror).
pub fn wrap(c: i32, mode: TexWrap, size: i32) -> i32 {
    match mode {
        TexWrap::Clamp => c.clamp(0, size - 1),
        TexWrap::Repeat => c & (size - 1),
        TexWrap::Mirror => {
            let c = if c & size != 0 { !c } else { c };
            c & (size - 1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one_in_fixed_point() {
        for fs in 0..128 {
            for ft in [0, 1, 63, 64, 127] {
                assert_eq!(bilinear_weights(fs, ft).iter().sum::<i32>(), 128 * 128);
            }
        }
        assert_eq!(bilinear_weights(0, 0), [16384, 0, 0, 0]);
        assert_eq!(bilinear_weights(64, 64), [4096; 4]);
    }

    #[test]
    fn fixed_log2_steps_in_sixteenths() {
        assert_eq!(fixed_log2(1.0), 0);
        assert_eq!(fixed_log2(2.0), 16);
        assert_eq!(fixed_log2(0.5), -16);
        // 1.5 = exponent 0, mantissa 0.5: half way in the linear approximation.
        assert_eq!(fixed_log2(1.5), 8);
        assert_eq!(fixed_log2(4.0 * 1.25), 32 + 4);
        assert!(fixed_log2(0.0) < -1000);
    }

    #[test]
    fn wraps_follow_the_hardware_masks() {
        assert_eq!(wrap(-1, TexWrap::Repeat, 8), 7);
        assert_eq!(wrap(9, TexWrap::Repeat, 8), 1);
        assert_eq!(wrap(-1, TexWrap::Clamp, 8), 0);
        assert_eq!(wrap(8, TexWrap::Clamp, 8), 7);
        // Mirror: 8..15 run backwards, -1 reflects to 0.
        assert_eq!(wrap(8, TexWrap::Mirror, 8), 7);
        assert_eq!(wrap(15, TexWrap::Mirror, 8), 0);
        assert_eq!(wrap(-1, TexWrap::Mirror, 8), 0);
        assert_eq!(wrap(16, TexWrap::Mirror, 8), 0);
    }

    #[test]
    fn coordinates_truncate_toward_zero() {
        assert_eq!(fixed_coord(0.5, 4), 256);
        assert_eq!(fixed_coord(-0.001, 4), 0);
        assert_eq!(fixed_coord(1.0 / 1024.0, 4), 0);
    }

    /// A 2×1 texture of 0 and 255 across a 2×2 level and its 1×1 level.
    fn ramp(level: u32, x: u32, _y: u32) -> [u8; 4] {
        if level > 0 {
            [100; 4]
        } else if x == 0 {
            [0; 4]
        } else {
            [255; 4]
        }
    }

    #[test]
    fn bilinear_and_trilinear_truncate() {
        let s = GxSampler::prime(TexWrap::Clamp, 2);
        // Texel centres read the texel exactly.
        assert_eq!(s.sample([2, 2], 2, [64, 64], 0, true, &ramp), [0; 4]);
        assert_eq!(s.sample([2, 2], 2, [192, 64], 0, true, &ramp), [255; 4]);
        // A third of the way: 255 · 43 / 128 = 85.66 → 85.
        assert_eq!(s.sample([2, 2], 2, [64 + 43, 64], 0, true, &ramp)[0], 85);
        // Nearest reads s >> 7.
        assert_eq!(s.sample([2, 2], 2, [127, 64], 0, false, &ramp)[0], 0);
        assert_eq!(s.sample([2, 2], 2, [128, 64], 0, false, &ramp)[0], 255);
        // LOD 0.25 between level 0 (0 at its centre) and level 1 (100): 100 · 4 / 16 = 25.
        assert_eq!(s.sample([2, 2], 2, [64, 64], 4, true, &ramp)[0], 25);
        // Nearest mip rounds the level up at a fraction of one half.
        let near = GxSampler {
            mip: MipFilter::Nearest,
            ..s
        };
        assert_eq!(near.sample([2, 2], 2, [64, 64], 7, true, &ramp)[0], 0);
        assert_eq!(near.sample([2, 2], 2, [64, 64], 8, true, &ramp)[0], 100);
    }

    #[test]
    fn lod_picks_the_filter_before_clamping() {
        let s = GxSampler {
            mag_linear: false,
            ..GxSampler::prime(TexWrap::Repeat, 3)
        };
        // One texel per pixel: LOD 0, magnification (nearest here).
        assert_eq!(s.lod(1.0), (0, false));
        assert_eq!(s.lod(2.0), (16, true));
        // Clamped to the last level.
        assert_eq!(s.lod(64.0), (32, true));
        assert_eq!(s.lod(0.25), (0, false));
        let words = GxSampler::prime(TexWrap::Repeat, 3).uniform_words();
        assert_eq!(words, [1 | 2 | 4 | 2 << 3 | 1 << 5 | 1 << 7, 0, 32, 0]);
    }

    #[test]
    fn map_sampling_reads_the_filter_bits_back() {
        let words = GxSampler::prime(TexWrap::Mirror, 3).uniform_words();
        let s = MapSampling::from_words(words);
        assert_eq!(
            s,
            MapSampling::Exact {
                mag_linear: true,
                min_linear: true,
                mip: MipFilter::Linear
            }
        );
        // Wraps stay values: only bits 1–4 are structure.
        assert_eq!(s.filter_bits(), Some(words[0] & 0x1E));
        let near = GxSampler {
            mag_linear: false,
            mip: MipFilter::Nearest,
            ..GxSampler::prime(TexWrap::Clamp, 1)
        };
        let s = MapSampling::from_words(near.uniform_words());
        assert_eq!(s.filter_bits(), Some(near.uniform_words()[0] & 0x1E));
        assert_eq!(MapSampling::from_words([0; 4]), MapSampling::Host);
        assert_eq!(MapSampling::Host.filter_bits(), None);
    }
}
