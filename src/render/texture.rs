//! Texture upload (RGBA8 with mips) and samplers.

use std::collections::HashMap;
use std::sync::Mutex;

use super::RenderError;

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

    /// The complete mip levels of a TXTR, decoded (a level cut short ends the chain; a
    /// texture without a decodable level 0 is an error).
    pub fn from_txtr(txtr: &crate::formats::txtr::Txtr) -> Result<Self, RenderError> {
        let (levels, error) = txtr.decode_complete_levels();
        let Some(first) = levels.first() else {
            return Err(RenderError::Texture(match error {
                Some(e) => e.to_string(),
                None => "no mip levels".into(),
            }));
        };
        let data = Self {
            width: first.width,
            height: first.height,
            levels: levels.into_iter().map(|l| l.pixels).collect(),
        };
        data.validate()?;
        Ok(data)
    }

    /// Size of mip `level`.
    pub fn level_size(&self, level: usize) -> (u32, u32) {
        ((self.width >> level).max(1), (self.height >> level).max(1))
    }

    /// Texel (x, y) of level 0.
    pub fn texel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = ((y * self.width + x) * 4) as usize;
        let l = &self.levels[0];
        [l[i], l[i + 1], l[i + 2], l[i + 3]]
    }

    /// Checks sizes: at least one level, every level exactly its size, no more levels than
    /// the chain has.
    pub fn validate(&self) -> Result<(), RenderError> {
        if self.width == 0 || self.height == 0 {
            return Err(RenderError::Texture(format!(
                "empty texture {}x{}",
                self.width, self.height
            )));
        }
        let max_levels = 32 - self.width.max(self.height).leading_zeros();
        if self.levels.is_empty() || self.levels.len() > max_levels as usize {
            return Err(RenderError::Texture(format!(
                "{} mip levels for {}x{} (1..={max_levels} allowed)",
                self.levels.len(),
                self.width,
                self.height
            )));
        }
        for (i, l) in self.levels.iter().enumerate() {
            let (w, h) = self.level_size(i);
            if l.len() != (w * h * 4) as usize {
                return Err(RenderError::Texture(format!(
                    "level {i} has {} bytes, {w}x{h} RGBA8 needs {}",
                    l.len(),
                    w * h * 4
                )));
            }
        }
        Ok(())
    }
}

/// An uploaded texture.
#[derive(Debug, Clone)]
pub struct GpuTexture {
    pub texture: wgpu::Texture,
    pub view: wgpu::TextureView,
    pub mip_count: u32,
}

impl GpuTexture {
    /// Uploads `data` as Rgba8Unorm (never sRGB: GX has no gamma).
    pub fn upload(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        data: &TextureData,
        label: &str,
    ) -> Result<Self, RenderError> {
        data.validate()?;
        let limit = device.limits().max_texture_dimension_2d;
        if data.width > limit || data.height > limit {
            return Err(RenderError::Texture(format!(
                "{}x{} exceeds the device limit {limit}",
                data.width, data.height
            )));
        }
        let mip_count = data.levels.len() as u32;
        let texture = device.create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width: data.width,
                height: data.height,
                depth_or_array_layers: 1,
            },
            mip_level_count: mip_count,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        for (level, bytes) in data.levels.iter().enumerate() {
            let (w, h) = data.level_size(level);
            queue.write_texture(
                wgpu::TexelCopyTextureInfo {
                    texture: &texture,
                    mip_level: level as u32,
                    origin: wgpu::Origin3d::ZERO,
                    aspect: wgpu::TextureAspect::All,
                },
                bytes,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(4 * w),
                    rows_per_image: Some(h),
                },
                wgpu::Extent3d {
                    width: w,
                    height: h,
                    depth_or_array_layers: 1,
                },
            );
        }
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Ok(Self {
            texture,
            view,
            mip_count,
        })
    }
}

/// GX wrap mode (`gx.md` §14).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Wrap {
    Clamp,
    Repeat,
    Mirror,
}

impl Wrap {
    fn address_mode(self) -> wgpu::AddressMode {
        match self {
            Self::Clamp => wgpu::AddressMode::ClampToEdge,
            Self::Repeat => wgpu::AddressMode::Repeat,
            Self::Mirror => wgpu::AddressMode::MirrorRepeat,
        }
    }
}

/// How a texture map is sampled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SamplerMode {
    /// Nearest texel, level 0 only: bit-exact texels (tests, the TEV quad preview).
    Nearest { wrap: Wrap },
    /// Prime's sampling (`gx.md` §14): linear, linear-mip-linear when mipped with max LOD
    /// = mips − 1, anisotropy 4 when mipped. Host filtering differs from GX by up to ±1 LSB.
    Gx { wrap: Wrap, mip_count: u32 },
}

/// Samplers by mode (a handful exist per session).
#[derive(Debug, Default)]
pub struct SamplerCache {
    samplers: Mutex<HashMap<SamplerMode, wgpu::Sampler>>,
}

impl SamplerCache {
    pub fn get(&self, device: &wgpu::Device, mode: SamplerMode) -> wgpu::Sampler {
        let mut map = self
            .samplers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        map.entry(mode)
            .or_insert_with(|| {
                let desc = match mode {
                    SamplerMode::Nearest { wrap } => wgpu::SamplerDescriptor {
                        label: Some("nearest"),
                        address_mode_u: wrap.address_mode(),
                        address_mode_v: wrap.address_mode(),
                        address_mode_w: wrap.address_mode(),
                        mag_filter: wgpu::FilterMode::Nearest,
                        min_filter: wgpu::FilterMode::Nearest,
                        mipmap_filter: wgpu::MipmapFilterMode::Nearest,
                        lod_min_clamp: 0.0,
                        lod_max_clamp: 0.0,
                        ..Default::default()
                    },
                    SamplerMode::Gx { wrap, mip_count } => {
                        let mipped = mip_count > 1;
                        wgpu::SamplerDescriptor {
                            label: Some("gx"),
                            address_mode_u: wrap.address_mode(),
                            address_mode_v: wrap.address_mode(),
                            address_mode_w: wrap.address_mode(),
                            mag_filter: wgpu::FilterMode::Linear,
                            min_filter: wgpu::FilterMode::Linear,
                            mipmap_filter: if mipped {
                                wgpu::MipmapFilterMode::Linear
                            } else {
                                wgpu::MipmapFilterMode::Nearest
                            },
                            lod_min_clamp: 0.0,
                            lod_max_clamp: mip_count.saturating_sub(1) as f32,
                            anisotropy_clamp: if mipped { 4 } else { 1 },
                            ..Default::default()
                        }
                    }
                };
                device.create_sampler(&desc)
            })
            .clone()
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
        t.levels.push(vec![0; 2 * 1 * 4]);
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
