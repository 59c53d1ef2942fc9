//! A material drawn on a screen-covering quad: the TEV preview of the CLI and viewer, and
//! the harness of the TEV exactness tests.
//!
//! The quad covers clip space with UV (0, 0) at the top-left pixel corner and (1, 1) at
//! the bottom-right, so pixel (x, y) of a W × H target samples UV ((x + ½)/W, (y + ½)/H):
//! textures appear as stored (row 0 on top). Blending is off, so the target receives the
//! exact RGBA8 the TEV produces; pixels the alpha test rejects keep the clear colour.

use wgpu::util::DeviceExt as _;

use super::RenderError;
use super::context::RenderContext;
use super::convert::RenderState;
use super::material::{BoundTexture, GpuMaterial};
use super::target::{COLOR_FORMAT, DEPTH_FORMAT, OffscreenTarget, RgbaImage};
use super::texture::{GpuTexture, SamplerMode, Wrap};
use crate::gx::tev::TevOptions;
use crate::gx::types::Material;
use crate::gx::wgsl::interface::GpuVertex;
use crate::gx::wgsl::vertex::DrawUniforms;
use crate::model::TextureData;

pub use super::pipeline_cache::ShaderPath;

/// The UV of vertex texture coordinate set `set` at quad position (u, v). Set 0 is
/// (u, v); with [`QuadGeometry::varied_uvs`] the other sets flip and transpose it
/// (bit 0 flips u, bit 1 flips v, bit 2 swaps), so tests can tell texcoords apart.
pub fn quad_uv(set: usize, u: f32, v: f32, varied: bool) -> [f32; 2] {
    if !varied || set == 0 {
        return [u, v];
    }
    let u1 = if set & 1 != 0 { 1.0 - u } else { u };
    let v1 = if set & 2 != 0 { 1.0 - v } else { v };
    if set & 4 != 0 { [v1, u1] } else { [u1, v1] }
}

/// Vertex data of the quad.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuadGeometry {
    /// Vertex colours 0 and 1 at the corners top-left, bottom-left, top-right, bottom-right.
    pub colors: [[[u8; 4]; 2]; 4],
    /// See [`quad_uv`].
    pub varied_uvs: bool,
}

impl Default for QuadGeometry {
    fn default() -> Self {
        Self {
            colors: [[[255; 4]; 2]; 4],
            varied_uvs: false,
        }
    }
}

impl QuadGeometry {
    /// The four vertices, in triangle-strip order.
    pub fn vertices(&self) -> [GpuVertex; 4] {
        let corners = [
            (-1.0, 1.0, 0.0, 0.0),
            (-1.0, -1.0, 0.0, 1.0),
            (1.0, 1.0, 1.0, 0.0),
            (1.0, -1.0, 1.0, 1.0),
        ];
        std::array::from_fn(|i| {
            let (x, y, u, v) = corners[i];
            GpuVertex {
                position: [x, y, 0.0],
                normal: [0.0, 0.0, 1.0],
                color0: self.colors[i][0],
                color1: self.colors[i][1],
                tex: std::array::from_fn(|set| quad_uv(set, u, v, self.varied_uvs)),
            }
        })
    }
}

/// Quad vertex buffer plus a `DrawUniforms` buffer (identity transforms by default).
pub struct QuadRenderer {
    pub vertex_buffer: wgpu::Buffer,
    pub draw_uniforms: wgpu::Buffer,
}

impl QuadRenderer {
    pub fn new(ctx: &RenderContext, geometry: &QuadGeometry, draw: &DrawUniforms) -> Self {
        let vertex_buffer = ctx
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("quad vertices"),
                contents: bytemuck::cast_slice(&geometry.vertices()),
                usage: wgpu::BufferUsages::VERTEX,
            });
        let draw_uniforms = ctx
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("quad DrawUniforms"),
                contents: bytemuck::bytes_of(draw),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            });
        Self {
            vertex_buffer,
            draw_uniforms,
        }
    }

    /// Draws the quad with `material` and `pipeline` into the current viewport.
    pub fn draw(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        material: &GpuMaterial,
        pipeline: &wgpu::RenderPipeline,
    ) {
        pass.set_pipeline(pipeline);
        material.bind(pass);
        pass.set_vertex_buffer(0, self.vertex_buffer.slice(..));
        pass.draw(0..4, 0..1);
    }
}

/// The pipeline for `material` on `path`, with [`RenderState::EXACT_QUAD`], built now.
pub fn quad_pipeline(
    ctx: &RenderContext,
    material: &GpuMaterial,
    path: ShaderPath,
) -> Result<std::sync::Arc<wgpu::RenderPipeline>, RenderError> {
    let (spec, uber) =
        material.pipeline_keys(RenderState::EXACT_QUAD, COLOR_FORMAT, Some(DEPTH_FORMAT));
    let key = match path {
        ShaderPath::Specialized => spec,
        ShaderPath::Uber => uber,
    };
    Ok(ctx.pipelines.get_blocking(&key)?)
}

/// Options of [`render_material_quad`].
#[derive(Debug, Clone)]
pub struct QuadOptions {
    pub width: u32,
    pub height: u32,
    pub path: ShaderPath,
    /// Sampling of every texture (nearest by default: exact texels).
    pub sampler: SamplerMode,
    pub tev: TevOptions,
    pub geometry: QuadGeometry,
    /// Vertex-side values (channel colours, matrices); identity transforms by default.
    pub draw: DrawUniforms,
    /// Clear colour (transparent black by default).
    pub clear: [f64; 4],
}

impl QuadOptions {
    pub fn new(width: u32, height: u32, path: ShaderPath) -> Self {
        Self {
            width,
            height,
            path,
            sampler: SamplerMode::Nearest { wrap: Wrap::Repeat },
            tev: TevOptions::default(),
            geometry: QuadGeometry::default(),
            draw: DrawUniforms::default(),
            clear: [0.0; 4],
        }
    }
}

/// Renders `material` on a screen-covering quad and reads the pixels back.
/// `textures[k]` is material texture k (GX map k); None binds the white placeholder.
pub fn render_material_quad(
    ctx: &RenderContext,
    material: &Material,
    textures: &[Option<TextureData>],
    options: &QuadOptions,
) -> Result<RgbaImage, RenderError> {
    let bound = textures
        .iter()
        .enumerate()
        .map(|(k, t)| {
            t.as_ref()
                .map(|data| {
                    Ok::<_, RenderError>(BoundTexture {
                        texture: GpuTexture::upload(
                            &ctx.device,
                            &ctx.queue,
                            data,
                            &format!("texture map {k}"),
                        )?,
                        sampler: options.sampler,
                    })
                })
                .transpose()
        })
        .collect::<Result<Vec<_>, _>>()?;
    let quad = QuadRenderer::new(ctx, &options.geometry, &options.draw);
    // The quad writes the TEV output itself: no shader blending against a destination.
    let tev = TevOptions {
        exact_blend: false,
        ..options.tev
    };
    let gpu = GpuMaterial::new(
        ctx,
        material,
        &tev,
        quad.draw_uniforms.as_entire_buffer_binding(),
        &bound,
    );
    let pipeline = quad_pipeline(ctx, &gpu, options.path)?;
    let target = OffscreenTarget::new(ctx, options.width, options.height)?;
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("material quad"),
        });
    {
        let [r, g, b, a] = options.clear;
        let mut pass = target.begin_pass(&mut encoder, Some(wgpu::Color { r, g, b, a }));
        quad.draw(&mut pass, &gpu, &pipeline);
    }
    ctx.queue.submit([encoder.finish()]);
    target.read_rgba(ctx)
}
