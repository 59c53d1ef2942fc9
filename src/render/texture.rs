//! Texture upload (RGBA8 with mips) and samplers.

use std::collections::HashMap;
use std::sync::Mutex;

use super::RenderError;
use crate::model::TextureData;

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
        data.validate().map_err(|source| RenderError::Texture {
            label: label.to_string(),
            source,
        })?;
        let limit = device.limits().max_texture_dimension_2d;
        if data.width > limit || data.height > limit {
            return Err(RenderError::Size {
                what: "texture",
                width: data.width,
                height: data.height,
                limit,
            });
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
    fn gx(self) -> crate::gx::regs::TexWrap {
        use crate::gx::regs::TexWrap;
        match self {
            Self::Clamp => TexWrap::Clamp,
            Self::Repeat => TexWrap::Repeat,
            Self::Mirror => TexWrap::Mirror,
        }
    }

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
    /// = mips − 1, filtered exactly as GX does in the shader ([`crate::gx::sampler`]).
    Gx { wrap: Wrap, mip_count: u32 },
    /// The same with the host's sampler (`textureSampleGrad`, anisotropy 4 when mipped):
    /// up to ±1 LSB from GX and other mip choices, fewer texel reads.
    GxHost { wrap: Wrap, mip_count: u32 },
}

impl SamplerMode {
    /// The shader's mode words for the map (`TevUniforms.samplers`): exact GX sampling
    /// for [`SamplerMode::Gx`], the host sampler otherwise.
    pub fn uniform_words(self) -> [u32; 4] {
        match self {
            Self::Gx { wrap, mip_count } => {
                crate::gx::sampler::GxSampler::prime(wrap.gx(), mip_count).uniform_words()
            }
            Self::Nearest { .. } | Self::GxHost { .. } => [0; 4],
        }
    }
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
                    SamplerMode::Gx { wrap, mip_count }
                    | SamplerMode::GxHost { wrap, mip_count } => {
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
