//! Decoded textures as plain data: what `load` decodes from TXTRs and `render` uploads.

/// Why decoded texture data cannot be used (sizes that do not fit together).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct TextureError(pub String);

/// A decoded texture as the GPU receives it: RGBA8 rows top to bottom (y = 0 is the
/// first texel row stored), level 0 first, each level half the size of the previous
/// (at least 1).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextureData {
    pub width: u32,
    pub height: u32,
    pub levels: Vec<Vec<u8>>,
}

impl TextureData {
    /// A single-level texture filled with one colour.
    pub fn solid(width: u32, height: u32, rgba: [u8; 4]) -> Self {
        Self {
            width,
            height,
            levels: vec![rgba.repeat((width * height) as usize)],
        }
    }

    /// What engines draw for a texture they cannot find: 64×64 texels of 8×8 magenta and
    /// black squares (magenta at the origin), one level.
    pub fn missing_checker() -> Self {
        let mut texels = Vec::with_capacity(64 * 64 * 4);
        for y in 0..64u32 {
            for x in 0..64u32 {
                let magenta = (x / 8 + y / 8) % 2 == 0;
                texels.extend_from_slice(if magenta {
                    &Self::CHECKER_MAGENTA
                } else {
                    &Self::CHECKER_BLACK
                });
            }
        }
        Self {
            width: 64,
            height: 64,
            levels: vec![texels],
        }
    }

    pub const CHECKER_MAGENTA: [u8; 4] = [255, 0, 255, 255];
    pub const CHECKER_BLACK: [u8; 4] = [0, 0, 0, 255];

    /// Size of mip `level`.
    pub fn level_size(&self, level: usize) -> (u32, u32) {
        ((self.width >> level).max(1), (self.height >> level).max(1))
    }

    /// Texel (x, y) of level 0 (panics outside it).
    pub fn texel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        let l = &self.levels[0];
        [l[i], l[i + 1], l[i + 2], l[i + 3]]
    }

    /// Texel (x, y) of mip `level`, if inside it.
    pub fn level_texel(&self, level: usize, x: u32, y: u32) -> Option<[u8; 4]> {
        let (w, h) = self.level_size(level);
        if x >= w || y >= h {
            return None;
        }
        let i = ((y * w + x) * 4) as usize;
        let t = self.levels.get(level)?.get(i..i + 4)?;
        Some([t[0], t[1], t[2], t[3]])
    }

    /// Checks sizes: at least one level, every level exactly its size, no more levels than
    /// the chain has.
    pub fn validate(&self) -> Result<(), TextureError> {
        if self.width == 0 || self.height == 0 {
            return Err(TextureError(format!(
                "empty texture {}x{}",
                self.width, self.height
            )));
        }
        let max_levels = 32 - self.width.max(self.height).leading_zeros();
        if self.levels.is_empty() || self.levels.len() > max_levels as usize {
            return Err(TextureError(format!(
                "{} mip levels for {}x{} (1..={max_levels} allowed)",
                self.levels.len(),
                self.width,
                self.height
            )));
        }
        for (i, l) in self.levels.iter().enumerate() {
            let (w, h) = self.level_size(i);
            if l.len() != (w * h * 4) as usize {
                return Err(TextureError(format!(
                    "level {i} has {} bytes, {w}x{h} RGBA8 needs {}",
                    l.len(),
                    w * h * 4
                )));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mip_chains_are_checked() {
        let mut t = TextureData::solid(8, 4, [1, 2, 3, 4]);
        assert!(t.validate().is_ok());
        t.levels.push(vec![0; 4 * 2 * 4]);
        t.levels.push(vec![0; 2 * 4]);
        t.levels.push(vec![0; 4]);
        assert!(t.validate().is_ok(), "8x4, 4x2, 2x1, 1x1");
        t.levels.push(vec![0; 4]);
        assert!(t.validate().is_err(), "a fifth level does not exist");
        let bad = TextureData {
            width: 4,
            height: 4,
            levels: vec![vec![0; 60]],
        };
        assert!(bad.validate().is_err());
        let empty = TextureData {
            width: 0,
            height: 4,
            levels: vec![vec![]],
        };
        assert!(empty.validate().is_err());
        assert_eq!(
            TextureData::solid(2, 2, [9, 8, 7, 6]).texel(1, 1),
            [9, 8, 7, 6]
        );
    }
}
