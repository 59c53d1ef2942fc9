//! GPU skinning readback: every vertex of a scene skinned on the GPU (the renderer's
//! palette and influence buffers, the generated stage's skinning math) and written as f32
//! into its own pixel of an `Rgba32Float` target, so tests can compare skinned positions
//! with other evaluations (the CPU reference, an exported glTF) to the last bit.

use super::RenderError;
use super::context::RenderContext;
use super::pick::SKINNED_POSITION;
use super::pipeline_cache::{gpu_vertex_layout, skin_vertex_layout};
use super::probe::{TEXCOORD_FORMAT, float_target, read_texture};

/// Pixels per row of the readback target.
const ROW: u32 = 256;

/// What the probe reads back per vertex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkinProbe {
    /// Skinned model-space positions.
    Positions,
    /// Skinned model-space normals, by the colour pass's rule (`blended`: MP3's).
    Normals { blended: bool },
}

fn shader_source(height: u32, what: SkinProbe) -> String {
    let (inputs, body) = match what {
        SkinProbe::Positions => (
            String::new(),
            format!("{SKINNED_POSITION}    o.model = pos_model;"),
        ),
        SkinProbe::Normals { blended } => (
            "@location(1) normal: vec3<f32>, ".to_string(),
            format!(
                "
    let n_bind = vec4<f32>(normal, 0.0);{}    o.model = nrm_model;",
                crate::gx::wgsl::vertex::skinned_normal_wgsl(blended)
            ),
        ),
    };
    format!(
        "{skinning}
struct ProbeOut {{
    @builtin(position) position: vec4<f32>,
    @location(0) @interpolate(flat) model: vec3<f32>,
}}

@vertex
fn vs_main(@location(0) position: vec3<f32>, {inputs}s: SkinIn, @builtin(vertex_index) i: u32) -> ProbeOut {{
    var o: ProbeOut;{body}
    let x = (f32(i % {ROW}u) + 0.5) / {ROW}.0;
    let y = (f32(i / {ROW}u) + 0.5) / {height}.0;
    o.position = vec4<f32>(2.0 * x - 1.0, 1.0 - 2.0 * y, 0.0, 1.0);
    return o;
}}

@fragment
fn fs_main(i: ProbeOut) -> @location(0) vec4<f32> {{
    return vec4<f32>(i.model, 1.0);
}}
",
        skinning = crate::gx::wgsl::vertex::SKINNING_WGSL.replace("@group(1)", "@group(0)"),
    )
}

/// Skinned model-space positions or normals (`what`) of the first `count` vertices of
/// `vertices` (a [`crate::gx::wgsl::interface::GpuVertex`] buffer) with influences
/// `influences` and the palette bound by `palette` (the skin group).
pub(crate) fn read_skinned(
    ctx: &RenderContext,
    vertices: &wgpu::Buffer,
    influences: &wgpu::Buffer,
    palette: &wgpu::BindGroup,
    count: u32,
    what: SkinProbe,
) -> Result<Vec<[f32; 3]>, RenderError> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let height = count.div_ceil(ROW);
    let device = &ctx.device;
    let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("skin probe"),
        source: wgpu::ShaderSource::Wgsl(shader_source(height, what).into()),
    });
    let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("skin probe"),
        bind_group_layouts: &[Some(&ctx.layouts.skin_group)],
        immediate_size: 0,
    });
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: Some("skin probe"),
        layout: Some(&layout),
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs_main"),
            compilation_options: Default::default(),
            buffers: &[Some(gpu_vertex_layout()), Some(skin_vertex_layout())],
        },
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs_main"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format: TEXCOORD_FORMAT,
                blend: None,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        primitive: wgpu::PrimitiveState {
            topology: wgpu::PrimitiveTopology::PointList,
            ..Default::default()
        },
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        multiview_mask: None,
        cache: None,
    });
    let texture = float_target(ctx, "skin probe", ROW, height);
    let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
    let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
        label: Some("skin probe"),
    });
    {
        let mut pass = super::target::color_pass(&mut encoder, &view, "skin probe");
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, palette, &[]);
        pass.set_vertex_buffer(0, vertices.slice(..));
        pass.set_vertex_buffer(1, influences.slice(..));
        pass.draw(0..count, 0..1);
    }
    ctx.queue.submit([encoder.finish()]);
    if let Some(e) = pollster::block_on(scope.pop()) {
        return Err(RenderError::wgpu("the skin probe", e));
    }
    let bytes = read_texture(ctx, &texture, ROW, height, 16)?;
    Ok((0..count as usize)
        .map(|i| {
            let texel = &bytes[i * 16..i * 16 + 12];
            std::array::from_fn(|c| {
                let b = &texel[4 * c..4 * c + 4];
                f32::from_ne_bytes([b[0], b[1], b[2], b[3]])
            })
        })
        .collect())
}
