//! Offscreen colour + depth target and readback. The viewport, screenshots, the CLI and
//! the tests all draw into one of these.

use super::RenderError;
use super::context::RenderContext;
pub use crate::image::RgbaImage;

/// Colour format of every target: 8-bit UNORM, never sRGB (GX has no gamma).
pub const COLOR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The alpha of an image written for the user ([`OffscreenTarget::read_image`]).
///
/// Prime's framebuffer alpha is not coverage: an opaque material may write any TEV alpha
/// (a dark wall texel writes 12), which image viewers would show as see-through. Only the
/// written image changes; the target keeps the game's alpha for the pixel inspector and
/// the exact-TEV tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageAlpha {
    /// 255 everywhere: renders and screenshots on an opaque background.
    Opaque,
    /// As drawn: a material preview on a transparent background (the TEV's alpha).
    AsDrawn,
    /// 255 wherever a surface wrote depth, elsewhere as drawn (the blended alpha of
    /// transparent surfaces, 0 = empty): a model on a transparent background.
    Coverage,
}

/// A colour (Rgba8Unorm) + depth (Depth32Float) render target of any size.
pub struct OffscreenTarget {
    pub width: u32,
    pub height: u32,
    pub color: wgpu::Texture,
    pub color_view: wgpu::TextureView,
    pub depth: wgpu::Texture,
    pub depth_view: wgpu::TextureView,
}

impl OffscreenTarget {
    pub fn new(ctx: &RenderContext, width: u32, height: u32) -> Result<Self, RenderError> {
        let limit = ctx.device.limits().max_texture_dimension_2d;
        if width == 0 || height == 0 || width > limit || height > limit {
            return Err(RenderError::Size {
                what: "render target",
                width,
                height,
                limit,
            });
        }
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let color = ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("offscreen colour"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: COLOR_FORMAT,
            // COPY_DST: the viewer's A/B split copies one target's columns into another.
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let depth = ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("offscreen depth"),
            size,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        Ok(Self {
            width,
            height,
            color_view: color.create_view(&wgpu::TextureViewDescriptor::default()),
            depth_view: depth.create_view(&wgpu::TextureViewDescriptor::default()),
            color,
            depth,
        })
    }

    /// Begins a pass on this target; `clear` = Some(colour) clears colour and depth,
    /// None loads both.
    pub fn begin_pass<'e>(
        &self,
        encoder: &'e mut wgpu::CommandEncoder,
        clear: Option<wgpu::Color>,
    ) -> wgpu::RenderPass<'e> {
        encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("offscreen pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &self.color_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: clear.map_or(wgpu::LoadOp::Load, wgpu::LoadOp::Clear),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.depth_view,
                depth_ops: Some(wgpu::Operations {
                    load: if clear.is_some() {
                        wgpu::LoadOp::Clear(1.0)
                    } else {
                        wgpu::LoadOp::Load
                    },
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        })
    }

    /// Copies the colour target back to the CPU (rows padded to 256 bytes on the GPU side,
    /// unpadded in the result).
    pub fn read_rgba(&self, ctx: &RenderContext) -> Result<RgbaImage, RenderError> {
        let pixels = self.read_texture(ctx, &self.color, wgpu::TextureAspect::All)?;
        Ok(RgbaImage {
            width: self.width,
            height: self.height,
            pixels,
        })
    }

    /// The image written for the user (a render or screenshot PNG): the colour target with
    /// `alpha` applied, RGB exactly as drawn.
    pub fn read_image(
        &self,
        ctx: &RenderContext,
        alpha: ImageAlpha,
    ) -> Result<RgbaImage, RenderError> {
        let mut image = self.read_rgba(ctx)?;
        match alpha {
            ImageAlpha::AsDrawn => {}
            ImageAlpha::Opaque => {
                for px in image.pixels.chunks_exact_mut(4) {
                    px[3] = 255;
                }
            }
            ImageAlpha::Coverage => {
                let depth = self.read_depth(ctx)?;
                for (px, d) in image.pixels.chunks_exact_mut(4).zip(depth) {
                    if d < 1.0 {
                        px[3] = 255;
                    }
                }
            }
        }
        Ok(image)
    }

    /// Copies the depth target back (one f32 per pixel, rows top to bottom; 1.0 = nothing
    /// drawn).
    ///
    /// A shader first packs each depth's bits into an RGBA8 texel: wgpu's GL backend reads
    /// neither depth nor float textures back (it hands back zeros), and one path for every
    /// backend keeps transparent screenshots the same everywhere.
    pub fn read_depth(&self, ctx: &RenderContext) -> Result<Vec<f32>, RenderError> {
        let copy = ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("depth bits as RGBA8"),
            size: wgpu::Extent3d {
                width: self.width,
                height: self.height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: COLOR_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        // The depth texture is read as an unfilterable float texture: GLSL has no
        // `textureLoad` of depth textures.
        let layout = ctx
            .device
            .create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("depth copy"),
                entries: &[wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                }],
            });
        let pipeline_layout = ctx
            .device
            .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("depth copy"),
                bind_group_layouts: &[Some(&layout)],
                immediate_size: 0,
            });
        let module = ctx
            .device
            .create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("depth copy"),
                source: wgpu::ShaderSource::Wgsl(DEPTH_COPY_WGSL.into()),
            });
        let pipeline = ctx
            .device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("depth copy"),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: wgpu::PrimitiveState::default(),
                depth_stencil: None,
                multisample: wgpu::MultisampleState::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &[Some(COLOR_FORMAT.into())],
                }),
                multiview_mask: None,
                cache: None,
            });
        let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("depth copy"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&self.depth_view),
            }],
        });
        let view = copy.create_view(&wgpu::TextureViewDescriptor::default());
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("depth copy"),
            });
        {
            let mut pass = color_pass(&mut encoder, &view, "depth copy");
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.draw(0..3, 0..1);
        }
        ctx.queue.submit([encoder.finish()]);
        let bytes = self.read_texture(ctx, &copy, wgpu::TextureAspect::All)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect())
    }

    /// Reads a 4-byte-per-texel texture of this target's size.
    fn read_texture(
        &self,
        ctx: &RenderContext,
        texture: &wgpu::Texture,
        aspect: wgpu::TextureAspect,
    ) -> Result<Vec<u8>, RenderError> {
        read_texture(ctx, texture, aspect, self.width, self.height, 4)
    }
}

/// A pass on one colour attachment (cleared to transparent black) and no depth.
pub fn color_pass<'e>(
    encoder: &'e mut wgpu::CommandEncoder,
    view: &wgpu::TextureView,
    label: &str,
) -> wgpu::RenderPass<'e> {
    encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
        label: Some(label),
        color_attachments: &[Some(wgpu::RenderPassColorAttachment {
            view,
            depth_slice: None,
            resolve_target: None,
            ops: wgpu::Operations {
                load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                store: wgpu::StoreOp::Store,
            },
        })],
        depth_stencil_attachment: None,
        timestamp_writes: None,
        occlusion_query_set: None,
        multiview_mask: None,
    })
}

/// A full-screen triangle writing the bits of each pixel's stored depth as RGBA8 (byte k of
/// the little-endian f32 in channel k; k / 255 survives UNORM8 exactly).
const DEPTH_COPY_WGSL: &str = include_str!("../../shaders/depth_copy.wgsl");

/// Copies mip 0 of `texture` (`width` × `height`, `bytes_per_texel` each) back to the CPU,
/// rows top to bottom with the copy's row padding removed.
pub fn read_texture(
    ctx: &RenderContext,
    texture: &wgpu::Texture,
    aspect: wgpu::TextureAspect,
    width: u32,
    height: u32,
    bytes_per_texel: u32,
) -> Result<Vec<u8>, RenderError> {
    read_region(
        ctx,
        texture,
        aspect,
        (0, 0),
        (width, height),
        bytes_per_texel,
    )
}

/// Copies the `size` region at `origin` of mip 0 of a colour texture back to the CPU
/// (the pick pass reads one texel).
pub fn read_texture_region(
    ctx: &RenderContext,
    texture: &wgpu::Texture,
    origin: (u32, u32),
    size: (u32, u32),
    bytes_per_texel: u32,
) -> Result<Vec<u8>, RenderError> {
    let (w, h) = (texture.width(), texture.height());
    if origin.0.saturating_add(size.0) > w || origin.1.saturating_add(size.1) > h {
        return Err(RenderError::Region {
            x: origin.0,
            y: origin.1,
            width: size.0,
            height: size.1,
            texture_width: w,
            texture_height: h,
        });
    }
    read_region(
        ctx,
        texture,
        wgpu::TextureAspect::All,
        origin,
        size,
        bytes_per_texel,
    )
}

fn read_region(
    ctx: &RenderContext,
    texture: &wgpu::Texture,
    aspect: wgpu::TextureAspect,
    origin: (u32, u32),
    (width, height): (u32, u32),
    bytes_per_texel: u32,
) -> Result<Vec<u8>, RenderError> {
    let unpadded = width * bytes_per_texel;
    let padded =
        unpadded.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
    let buffer = ctx.device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size: padded as u64 * height as u64,
        usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
        mapped_at_creation: false,
    });
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("readback"),
        });
    encoder.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d {
                x: origin.0,
                y: origin.1,
                z: 0,
            },
            aspect,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &buffer,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(padded),
                rows_per_image: Some(height),
            },
        },
        wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
    );
    ctx.queue.submit([encoder.finish()]);
    let (tx, rx) = std::sync::mpsc::channel();
    buffer.map_async(wgpu::MapMode::Read, .., move |r| {
        let _ = tx.send(r);
    });
    ctx.wait_idle()?;
    rx.recv()
        .map_err(RenderError::MapDropped)?
        .map_err(RenderError::Map)?;
    let mut pixels = Vec::with_capacity((unpadded * height) as usize);
    {
        let view = buffer.get_mapped_range(..).map_err(RenderError::MapRange)?;
        for row in view.chunks(padded as usize) {
            pixels.extend_from_slice(&row[..unpadded as usize]);
        }
    }
    buffer.unmap();
    Ok(pixels)
}
