//! Per-vertex probes: vertex lists drawn as point lists, one pixel per vertex, and read
//! back exactly. They let tests (and diagnostics) see what the generated vertex stage
//! outputs for each vertex, to compare with the CPU reference (`gx::lighting`).
//!
//! - [`render_point_tiles`]: the full generated shader (vertex stage of any
//!   [`VertexKey`], TEV fragment stage of a program) into an Rgba8Unorm target, each item
//!   in its own tile. With a one-stage program that outputs RASC/RASA the pixels are the
//!   lit channel values; with TEXC and a coordinate texture they are texture lookups.
//! - [`read_texcoords`]: the generated vertex stage with a probe fragment stage that
//!   writes each texgen's homogeneous (s, t, q) as f32 into an Rgba32Float target.
//!
//! Vertex `i` of an item is expected at pixel (i mod w, i div w) of its w × h tile: the
//! caller places it there through `DrawUniforms::clip_from_model` ([`pixel_center_ndc`]
//! gives the clip-space target). A point covers exactly the pixel whose centre it sits
//! on, and a point's fragments carry the vertex outputs unchanged (no interpolation).

use std::sync::Arc;

use wgpu::util::DeviceExt as _;

use super::RenderError;
use super::context::RenderContext;
use super::convert::RenderState;
use super::material::{BoundTexture, GpuMaterial};
use super::pipeline_cache::PipelineKey;
use super::shader_cache::ShaderId;
use super::target::{COLOR_FORMAT, DEPTH_FORMAT, OffscreenTarget, RgbaImage};
use crate::gx::key::{FragmentKey, ShaderKey};
use crate::gx::tev::{TevOptions, TevProgram};
use crate::gx::types::{AlphaTest, Blend, Material};
use crate::gx::wgsl::interface::GpuVertex;
use crate::gx::wgsl::vertex::{DrawUniforms, VertexKey, vertex_module};

/// Points, no blending, no depth test or write, no culling.
pub const PROBE_STATE: RenderState = RenderState {
    blend: None,
    depth_test: false,
    depth_compare: wgpu::CompareFunction::Always,
    depth_write: false,
    cull: None,
    topology: wgpu::PrimitiveTopology::PointList,
};

/// Format of [`read_texcoords`]' target.
pub const TEXCOORD_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba32Float;

/// Clip-space (x, y) (w = 1) of the centre of the pixel where vertex `index` belongs in a
/// `tile_w` × `tile_h` tile (row-major, row 0 on top).
pub fn pixel_center_ndc(index: usize, tile_w: u32, tile_h: u32) -> [f32; 2] {
    let x = (index % tile_w as usize) as f32 + 0.5;
    let y = (index / tile_w as usize) as f32 + 0.5;
    [2.0 * x / tile_w as f32 - 1.0, 1.0 - 2.0 * y / tile_h as f32]
}

/// One draw of [`render_point_tiles`].
pub struct PointItem {
    /// The vertex stage, used as is (not derived from `material`).
    pub vertex_key: VertexKey,
    /// Supplies the TEV program's values and the texgen count (`material.texgens.len()`
    /// must equal `vertex_key.texgens.len()`).
    pub material: Material,
    pub program: TevProgram,
    pub draw: DrawUniforms,
    pub vertices: Vec<GpuVertex>,
    /// GX texture map k; None binds the white placeholder.
    pub textures: Vec<Option<BoundTexture>>,
}

/// A material with no stages and `texgens` texgens, for bind groups of probe draws.
pub fn bare_material(texgens: Vec<crate::gx::types::TexGen>) -> Material {
    Material {
        stages: vec![],
        texgens,
        texture_count: 0,
        konst: [[0; 4]; 4],
        konst_count: 0,
        registers: Material::DEFAULT_REGISTERS,
        color0: None,
        channel_count: 0,
        channel_alpha: crate::gx::types::ChannelAlpha::ENGINE,
        blend: Blend::OPAQUE,
        alpha_test: AlphaTest::ALWAYS,
        depth_write: false,
        depth_sorted: false,
        uv_animations: vec![],
        flags: 0,
    }
}

struct Prepared {
    vertices: wgpu::Buffer,
    count: u32,
    material: GpuMaterial,
    pipeline: Arc<wgpu::RenderPipeline>,
}

fn vertex_buffer(ctx: &RenderContext, vertices: &[GpuVertex]) -> wgpu::Buffer {
    ctx.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("probe vertices"),
            contents: bytemuck::cast_slice(vertices),
            usage: wgpu::BufferUsages::VERTEX,
        })
}

fn uniform_buffer(ctx: &RenderContext, draw: &DrawUniforms) -> wgpu::Buffer {
    ctx.device
        .create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("probe DrawUniforms"),
            contents: bytemuck::bytes_of(draw),
            usage: wgpu::BufferUsages::UNIFORM,
        })
}

fn check_tile(
    ctx: &RenderContext,
    tile_w: u32,
    tile_h: u32,
    count: usize,
) -> Result<(), RenderError> {
    let limit = ctx.device.limits().max_texture_dimension_2d;
    if tile_w == 0 || tile_h == 0 || tile_w > limit || tile_h > limit {
        return Err(RenderError::Size {
            what: "probe tile",
            width: tile_w,
            height: tile_h,
            limit,
        });
    }
    if count > (tile_w * tile_h) as usize {
        return Err(RenderError::ProbeTile {
            count,
            width: tile_w,
            height: tile_h,
        });
    }
    Ok(())
}

/// Draws every item's vertices as points into its own `tile_w` × `tile_h` tile of one
/// Rgba8Unorm target (cleared to `clear`) with the specialized shader of
/// (`vertex_key`, program), and returns each tile.
pub fn render_point_tiles(
    ctx: &RenderContext,
    items: &[PointItem],
    tile_w: u32,
    tile_h: u32,
    clear: [f64; 4],
) -> Result<Vec<RgbaImage>, RenderError> {
    let limit = ctx.device.limits().max_texture_dimension_2d;
    let columns = (limit / tile_w.max(1)).clamp(1, 16);
    let rows = (items.len() as u32).div_ceil(columns).max(1);
    if rows * tile_h > limit {
        return Err(RenderError::Size {
            what: "probe target",
            width: columns * tile_w,
            height: rows * tile_h,
            limit,
        });
    }
    let mut prepared = Vec::with_capacity(items.len());
    for item in items {
        check_tile(ctx, tile_w, tile_h, item.vertices.len())?;
        let uniforms = uniform_buffer(ctx, &item.draw);
        let material = GpuMaterial::with_program(
            ctx,
            &item.material,
            item.program.clone(),
            uniforms.as_entire_buffer_binding(),
            &item.textures,
        );
        let key = PipelineKey {
            shader: ShaderId::Specialized(ShaderKey {
                vertex: item.vertex_key.clone(),
                fragment: FragmentKey::from_program(&item.program),
            }),
            state: PROBE_STATE,
            color_format: COLOR_FORMAT,
            depth_format: Some(DEPTH_FORMAT),
        };
        let pipeline = ctx.pipelines.get_blocking(&key)?;
        prepared.push(Prepared {
            vertices: vertex_buffer(ctx, &item.vertices),
            count: item.vertices.len() as u32,
            material,
            pipeline,
        });
    }
    let target = OffscreenTarget::new(ctx, columns * tile_w, rows * tile_h)?;
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("point probe"),
        });
    {
        let [r, g, b, a] = clear;
        let mut pass = target.begin_pass(&mut encoder, Some(wgpu::Color { r, g, b, a }));
        for (i, p) in prepared.iter().enumerate() {
            let (x, y) = ((i as u32 % columns) * tile_w, (i as u32 / columns) * tile_h);
            pass.set_viewport(x as f32, y as f32, tile_w as f32, tile_h as f32, 0.0, 1.0);
            pass.set_pipeline(&p.pipeline);
            p.material.bind(&mut pass);
            pass.set_vertex_buffer(0, p.vertices.slice(..));
            pass.draw(0..p.count, 0..1);
        }
    }
    ctx.queue.submit([encoder.finish()]);
    let image = target.read_rgba(ctx)?;
    Ok((0..items.len() as u32)
        .map(|i| {
            image.crop(
                (i % columns) * tile_w,
                (i / columns) * tile_h,
                tile_w,
                tile_h,
            )
        })
        .collect())
}

/// One draw of [`read_texcoords`].
pub struct TexcoordItem {
    pub vertex_key: VertexKey,
    pub draw: DrawUniforms,
    pub vertices: Vec<GpuVertex>,
}

/// The probe shader of [`read_texcoords`]: the generated vertex stage, and a fragment
/// stage writing texgen k's (s, t, q, 1) in tile column k.
pub fn texcoord_probe_wgsl(key: &VertexKey, tile_w: u32) -> String {
    let mut s = vertex_module(key);
    s.push_str("\n@fragment\nfn fs_main(in: VertexOut) -> @location(0) vec4<f32> {\n");
    s.push_str("    var tc = vec3<f32>(0.0);\n");
    let _ = std::fmt::Write::write_fmt(
        &mut s,
        format_args!("    switch (u32(in.clip_position.x) / {tile_w}u) {{\n"),
    );
    for i in 0..key.texgens.len() {
        let _ = std::fmt::Write::write_fmt(
            &mut s,
            format_args!("        case {i}u: {{ tc = in.tc{i}; }}\n"),
        );
    }
    s.push_str("        default: {}\n    }\n    return vec4<f32>(tc, 1.0);\n}\n");
    s
}

/// One item's probed coordinates: per texgen, per vertex (None: no point landed there).
pub type TexcoordRows = Vec<Vec<Option<[f32; 3]>>>;

/// Per item, per texgen, per vertex: the (s, t, q) the generated vertex stage outputs, or
/// None where no point landed on the vertex's pixel. Each item takes one row of
/// `tile_w` × `tile_h` tiles, one tile per texgen.
pub fn read_texcoords(
    ctx: &RenderContext,
    items: &[TexcoordItem],
    tile_w: u32,
    tile_h: u32,
) -> Result<Vec<TexcoordRows>, RenderError> {
    let limit = ctx.device.limits().max_texture_dimension_2d;
    let per_target = (limit / tile_h.max(1)).max(1) as usize;
    let mut out = Vec::with_capacity(items.len());
    for chunk in items.chunks(per_target) {
        out.extend(read_texcoords_chunk(ctx, chunk, tile_w, tile_h)?);
    }
    Ok(out)
}

fn read_texcoords_chunk(
    ctx: &RenderContext,
    items: &[TexcoordItem],
    tile_w: u32,
    tile_h: u32,
) -> Result<Vec<TexcoordRows>, RenderError> {
    let columns = items
        .iter()
        .map(|i| i.vertex_key.texgens.len())
        .max()
        .unwrap_or(0)
        .max(1) as u32;
    let (width, height) = (columns * tile_w, items.len().max(1) as u32 * tile_h);
    let limit = ctx.device.limits().max_texture_dimension_2d;
    if width > limit {
        return Err(RenderError::Size {
            what: "texgen probe target",
            width,
            height,
            limit,
        });
    }
    let mut prepared = Vec::with_capacity(items.len());
    for item in items {
        check_tile(ctx, tile_w, tile_h, item.vertices.len())?;
        let uniforms = uniform_buffer(ctx, &item.draw);
        let material = bare_material(item.vertex_key.texgens.clone());
        let gpu = GpuMaterial::new(
            ctx,
            &material,
            &TevOptions::default(),
            uniforms.as_entire_buffer_binding(),
            &[],
        );
        let key = PipelineKey {
            shader: ShaderId::Source {
                name: "texcoord probe".into(),
                wgsl: texcoord_probe_wgsl(&item.vertex_key, tile_w).into(),
            },
            state: PROBE_STATE,
            color_format: TEXCOORD_FORMAT,
            depth_format: None,
        };
        let pipeline = ctx.pipelines.get_blocking(&key)?;
        prepared.push(Prepared {
            vertices: vertex_buffer(ctx, &item.vertices),
            count: item.vertices.len() as u32,
            material: gpu,
            pipeline,
        });
    }
    let texture = float_target(ctx, "texcoord probe", width, height);
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    let mut encoder = ctx
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("texcoord probe"),
        });
    {
        let mut pass = super::target::color_pass(&mut encoder, &view, "texcoord probe");
        for (row, (p, item)) in prepared.iter().zip(items).enumerate() {
            for k in 0..item.vertex_key.texgens.len() as u32 {
                pass.set_viewport(
                    (k * tile_w) as f32,
                    (row as u32 * tile_h) as f32,
                    tile_w as f32,
                    tile_h as f32,
                    0.0,
                    1.0,
                );
                pass.set_pipeline(&p.pipeline);
                p.material.bind(&mut pass);
                pass.set_vertex_buffer(0, p.vertices.slice(..));
                pass.draw(0..p.count, 0..1);
            }
        }
    }
    ctx.queue.submit([encoder.finish()]);
    let bytes = read_texture(ctx, &texture, width, height, 16)?;
    let texel = |x: u32, y: u32| -> [f32; 4] {
        let i = ((y * width + x) * 16) as usize;
        std::array::from_fn(|c| {
            let b = &bytes[i + 4 * c..i + 4 * c + 4];
            f32::from_ne_bytes([b[0], b[1], b[2], b[3]])
        })
    };
    Ok(items
        .iter()
        .enumerate()
        .map(|(row, item)| {
            (0..item.vertex_key.texgens.len() as u32)
                .map(|k| {
                    (0..item.vertices.len())
                        .map(|v| {
                            let x = k * tile_w + (v as u32 % tile_w);
                            let y = row as u32 * tile_h + v as u32 / tile_w;
                            let [s, t, q, w] = texel(x, y);
                            (w == 1.0).then_some([s, t, q])
                        })
                        .collect()
                })
                .collect()
        })
        .collect())
}

/// A `width` × `height` [`TEXCOORD_FORMAT`] render target that can be read back.
pub(crate) fn float_target(
    ctx: &RenderContext,
    label: &str,
    width: u32,
    height: u32,
) -> wgpu::Texture {
    ctx.device.create_texture(&wgpu::TextureDescriptor {
        label: Some(label),
        size: wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: TEXCOORD_FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    })
}

/// Copies a whole single-level texture back (rows unpadded).
pub fn read_texture(
    ctx: &RenderContext,
    texture: &wgpu::Texture,
    width: u32,
    height: u32,
    bytes_per_pixel: u32,
) -> Result<Vec<u8>, RenderError> {
    super::target::read_texture(
        ctx,
        texture,
        wgpu::TextureAspect::All,
        width,
        height,
        bytes_per_pixel,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pixel_centres() {
        assert_eq!(pixel_center_ndc(0, 2, 2), [-0.5, 0.5]);
        assert_eq!(pixel_center_ndc(3, 2, 2), [0.5, -0.5]);
        assert_eq!(pixel_center_ndc(1, 4, 1), [-0.25, 0.0]);
    }

    #[test]
    fn probe_shader_validates() {
        use crate::gx::types::{
            ChannelControl, GX_IDENTITY, GX_PTIDENTITY, TexGen, TexGenSrc, TexGenType,
        };
        let tg = TexGen {
            kind: TexGenType::Mtx3x4,
            source: TexGenSrc::Position,
            gx_tex_mtx: GX_IDENTITY,
            normalize: false,
            gx_post_mtx: GX_PTIDENTITY,
        };
        let key = VertexKey {
            texgens: vec![tg; 3],
            channels: [ChannelControl::GX_DEFAULT; 4],
            skinned: false,
            bake_uv: None,
            blended_normals: false,
            line: false,
        };
        let src = texcoord_probe_wgsl(&key, 16);
        assert!(src.contains("case 2u: { tc = in.tc2; }"));
        crate::gx::wgsl::validate(src).unwrap_or_else(|e| panic!("{e}"));
    }
}
