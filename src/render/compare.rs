//! A/B compare of two renders of the same size: side by side, split at a fraction of the
//! width, or their difference amplified. The CLI composes images on the CPU; the viewer
//! composes side and split on the GPU with the same geometry ([`split_column`]).

use serde::Serialize;

use super::target::RgbaImage;

/// How two renders are shown together.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CompareMode {
    /// A on the left, B on the right, each at the full size (twice as wide).
    Side,
    /// One image: A left of the split, B right of it.
    Split,
    /// |A − B| per channel × [`DIFF_GAIN`], alpha 255: black where they agree.
    Diff,
}

/// Differences of one 8-bit step show as 8.
pub const DIFF_GAIN: u32 = 8;

impl CompareMode {
    pub const ALL: [Self; 3] = [Self::Side, Self::Split, Self::Diff];

    pub fn name(self) -> &'static str {
        match self {
            Self::Side => "side",
            Self::Split => "split",
            Self::Diff => "diff",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|m| m.name() == name)
    }
}

/// The first column showing B in a split of `width` columns at `split` (0…1).
pub fn split_column(width: u32, split: f32) -> u32 {
    ((width as f32 * split.clamp(0.0, 1.0)).round() as u32).min(width)
}

/// `a` and `b` (same size) composed as `mode` says; `split` is the split's position.
pub fn compose(mode: CompareMode, a: &RgbaImage, b: &RgbaImage, split: f32) -> RgbaImage {
    debug_assert_eq!((a.width, a.height), (b.width, b.height));
    let (w, h) = (a.width as usize, a.height as usize);
    match mode {
        CompareMode::Side => {
            let mut pixels = Vec::with_capacity(w * h * 8);
            for y in 0..h {
                pixels.extend_from_slice(&a.pixels[y * w * 4..(y + 1) * w * 4]);
                pixels.extend_from_slice(&b.pixels[y * w * 4..(y + 1) * w * 4]);
            }
            RgbaImage {
                width: a.width * 2,
                height: a.height,
                pixels,
            }
        }
        CompareMode::Split => {
            let cut = split_column(a.width, split) as usize * 4;
            let mut pixels = a.pixels.clone();
            for y in 0..h {
                let row = y * w * 4;
                pixels[row + cut..row + w * 4].copy_from_slice(&b.pixels[row + cut..row + w * 4]);
            }
            RgbaImage {
                width: a.width,
                height: a.height,
                pixels,
            }
        }
        CompareMode::Diff => RgbaImage {
            width: a.width,
            height: a.height,
            pixels: a
                .pixels
                .chunks_exact(4)
                .zip(b.pixels.chunks_exact(4))
                .flat_map(|(p, q)| {
                    let d = |k: usize| (u32::from(p[k].abs_diff(q[k])) * DIFF_GAIN).min(255) as u8;
                    [d(0), d(1), d(2), 255]
                })
                .collect(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn image(w: u32, h: u32, v: u8) -> RgbaImage {
        RgbaImage {
            width: w,
            height: h,
            pixels: vec![v; (w * h * 4) as usize],
        }
    }

    #[test]
    fn side_split_and_diff() {
        let (a, b) = (image(4, 2, 10), image(4, 2, 13));
        let side = compose(CompareMode::Side, &a, &b, 0.5);
        assert_eq!((side.width, side.height), (8, 2));
        assert_eq!(side.pixels[4 * 4], 13);
        assert_eq!(side.pixels[3 * 4], 10);
        let split = compose(CompareMode::Split, &a, &b, 0.25);
        assert_eq!(split.pixels[0], 10);
        assert_eq!(split.pixels[4], 13);
        let diff = compose(CompareMode::Diff, &a, &b, 0.5);
        assert_eq!(&diff.pixels[..4], &[24, 24, 24, 255]);
        assert_eq!(compose(CompareMode::Diff, &a, &a, 0.5).pixels[0], 0);
        for m in CompareMode::ALL {
            assert_eq!(CompareMode::parse(m.name()), Some(m));
        }
    }
}
