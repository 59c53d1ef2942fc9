//! The pick pass: which surface (and so which material) covers a pixel.
//!
//! [`Scene::pick`](super::scene::Scene::pick) draws the scene's triangles once more into an
//! `Rg32Uint` target with its own depth buffer (same camera, same skinning palette, same
//! culling and depth test as the colour pass), writing per pixel `surface + 1` (0 = nothing)
//! and the fragment depth's bits, then reads back the one pixel asked for. The surface
//! index reaches the fragment through the draw's instance index (`first_instance` =
//! surface), so one pipeline serves every surface. Pipelines and the uniform are made
//! once; the targets only when the size changes.
//!
//! [`TintPass`] reuses the same vertex stages to draw the viewer's selected surfaces again
//! over the colour pass, blended with a flat tint (the selection highlight).

use super::RenderError;
use super::context::RenderContext;
use super::pipeline_cache::{gpu_vertex_layout, line_vertex_layout, skin_vertex_layout};
use super::target::{COLOR_FORMAT, DEPTH_FORMAT, read_texture_region};

/// What a pick found under a pixel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PickHit {
    /// Surface index in the CMDL.
    pub surface: usize,
    /// Material index (in the active material set) of that surface.
    pub material: usize,
    /// Window-space depth of the nearest fragment (0 = near plane … 1 = far plane).
    pub depth: f32,
}

/// Format of the ID target: (surface + 1, depth bits).
pub const PICK_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rg32Uint;

/// Uniform of the pick pass (one matrix; model space = world space in a scene).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct PickUniforms {
    pub clip_from_model: [[f32; 4]; 4],
    /// GX vertex snapping, as the colour pass's `DrawUniforms::viewport`.
    pub viewport: [f32; 4],
}

impl PickUniforms {
    pub(crate) fn new(clip_from_model: glam::Mat4, viewport: [f32; 4]) -> Self {
        Self {
            clip_from_model: clip_from_model.to_cols_array_2d(),
            viewport,
        }
    }
}

/// The pass's hand-written part; unskinned surfaces use its `vs_plain`.
const PICK_WGSL: &str = include_str!("../../shaders/pick.wgsl");

/// `pos_model`: the skinned position of `position` exactly as the generated vertex stage
/// computes it (`gx::wgsl::vertex`), for passes that must line up with drawn pixels.
pub(crate) const SKINNED_POSITION: &str = "
    let p_bind = vec4<f32>(position, 1.0);
    var pos_model = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k = k + 1u) {
        let w = s.bone_weights[k];
        if (w != 0.0) {
            pos_model = pos_model + w * skin_rows(u_skin.bones[s.bone_indices[k]].model_from_bind, p_bind);
        }
    }
";

/// The unskinned vertex stage, snapped as the colour pass's (`gx_snap`).
const PICK_PLAIN: &str = "
@vertex
fn vs_plain(@location(0) position: vec3<f32>, @builtin(instance_index) surface: u32) -> PickOut {
    var o: PickOut;
    o.position = gx_snap(u_pick.clip_from_model * vec4<f32>(position, 1.0), u_pick.viewport);
    o.surface = surface;
    return o;
}
";

/// The line-corner vertex stage: a GX line quad's corner, moved and snapped as the colour
/// pass's (`gx::lines`).
const PICK_LINE: &str = "
@vertex
fn vs_line(@location(0) position: vec3<f32>, @location(14) other: vec4<f32>, @builtin(instance_index) surface: u32) -> PickOut {
    var o: PickOut;
    let end = u_pick.clip_from_model * vec4<f32>(position, 1.0);
    let far_end = u_pick.clip_from_model * vec4<f32>(other.xyz, 1.0);
    o.position = gx_snap(gx_line_corner(end, far_end, other.w, u_pick.viewport), u_pick.viewport);
    o.surface = surface;
    return o;
}
";

/// The skinned vertex stage, so picked pixels line up with drawn ones.
fn pick_skinned() -> String {
    format!(
        "
@vertex
fn vs_skinned(@location(0) position: vec3<f32>, s: SkinIn, @builtin(instance_index) surface: u32) -> PickOut {{
    var o: PickOut;{SKINNED_POSITION}
    o.position = gx_snap(u_pick.clip_from_model * vec4<f32>(pos_model, 1.0), u_pick.viewport);
    o.surface = surface;
    return o;
}}
"
    )
}

/// The selection tint: this colour blended over the surface at this opacity.
pub const TINT_RGBA: [f32; 4] = [1.0, 0.78, 0.1, 0.45];

fn shader_source(skinned: bool) -> String {
    let mut s = PICK_WGSL.to_string();
    s.push_str(crate::gx::wgsl::vertex::GX_SNAP_WGSL);
    s.push_str(PICK_PLAIN);
    s.push_str(&crate::gx::lines::line_corner_wgsl());
    s.push_str(PICK_LINE);
    if skinned {
        // The palette sits in group 1, as in the material pipelines.
        s.push_str(crate::gx::wgsl::vertex::SKINNING_WGSL);
        s.push_str(&pick_skinned());
    }
    s
}

struct PickTargets {
    width: u32,
    height: u32,
    ids: wgpu::Texture,
    ids_view: wgpu::TextureView,
    depth_view: wgpu::TextureView,
}

/// GPU objects of the pick pass (owned by a scene, made on its first pick).
pub(crate) struct PickPass {
    pipeline: wgpu::RenderPipeline,
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    /// GX line quads' pipeline, for a scene whose lines are drawn as quads.
    line_quads: Option<PassPipeline>,
    targets: Option<PickTargets>,
}

/// What a [`PassPipeline`] draws of the scene's geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PassGeometry {
    Triangles,
    /// Host line lists (the wireframe's edges).
    Lines,
    /// GX line quads from line corners (`gx::lines`; vertex buffer 1 the corners' input).
    LineQuads,
}

/// A pipeline over the scene's geometry with the pick vertex stages; group 0 holds one
/// [`PickUniforms`] buffer, group 1 the skin palette when skinned.
pub(crate) struct PassPipeline {
    pub pipeline: wgpu::RenderPipeline,
    pub uniforms: wgpu::Buffer,
    pub bind_group: wgpu::BindGroup,
}

impl PassPipeline {
    /// A pipeline drawing `geometry` of the scene's vertices.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        ctx: &RenderContext,
        skinned: bool,
        cull: Option<wgpu::Face>,
        label: &str,
        fragment: &str,
        target: wgpu::ColorTargetState,
        depth_write: bool,
        geometry: PassGeometry,
    ) -> Result<Self, RenderError> {
        let device = &ctx.device;
        let scope = device.push_error_scope(wgpu::ErrorFilter::Validation);
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some(label),
            source: wgpu::ShaderSource::Wgsl(shader_source(skinned).into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(label),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let groups = [Some(&layout), Some(&ctx.layouts.skin_group)];
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some(label),
            bind_group_layouts: if skinned { &groups[..] } else { &groups[..1] },
            immediate_size: 0,
        });
        let quads = geometry == PassGeometry::LineQuads && !skinned;
        let second = if skinned {
            Some(skin_vertex_layout())
        } else {
            quads.then(line_vertex_layout)
        };
        let buffers = [Some(gpu_vertex_layout()), second];
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(label),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some(match (skinned, quads) {
                    (true, _) => "vs_skinned",
                    (false, true) => "vs_line",
                    (false, false) => "vs_plain",
                }),
                compilation_options: Default::default(),
                buffers: if buffers[1].is_some() {
                    &buffers[..]
                } else {
                    &buffers[..1]
                },
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some(fragment),
                compilation_options: Default::default(),
                targets: &[Some(target)],
            }),
            primitive: wgpu::PrimitiveState {
                topology: if geometry == PassGeometry::Lines {
                    wgpu::PrimitiveTopology::LineList
                } else {
                    wgpu::PrimitiveTopology::TriangleList
                },
                front_face: wgpu::FrontFace::Ccw,
                cull_mode: cull,
                ..Default::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(depth_write),
                depth_compare: Some(wgpu::CompareFunction::LessEqual),
                stencil: wgpu::StencilState::default(),
                bias: wgpu::DepthBiasState::default(),
            }),
            multisample: wgpu::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        });
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: std::mem::size_of::<PickUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some(label),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniforms.as_entire_binding(),
            }],
        });
        if let Some(e) = pollster::block_on(scope.pop()) {
            return Err(RenderError::wgpu(
                format!("building the {label} pipeline"),
                e,
            ));
        }
        Ok(Self {
            pipeline,
            uniforms,
            bind_group,
        })
    }
}

/// Draws surfaces again over a colour pass with [`TINT_RGBA`] blended on top: same
/// vertex positions as the colour pass, depth test LessEqual without writing, so only the
/// visible parts of those surfaces change. The target's alpha is kept.
pub(crate) struct TintPass {
    inner: PassPipeline,
    /// The same over GX line quads, for a scene whose lines are drawn as quads.
    line_quads: Option<PassPipeline>,
}

impl TintPass {
    pub fn new(
        ctx: &RenderContext,
        skinned: bool,
        cull: Option<wgpu::Face>,
        line_quads: bool,
    ) -> Result<Self, RenderError> {
        let blend = wgpu::BlendState {
            color: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::SrcAlpha,
                dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
                operation: wgpu::BlendOperation::Add,
            },
            alpha: wgpu::BlendComponent {
                src_factor: wgpu::BlendFactor::Zero,
                dst_factor: wgpu::BlendFactor::One,
                operation: wgpu::BlendOperation::Add,
            },
        };
        let target = wgpu::ColorTargetState {
            format: COLOR_FORMAT,
            blend: Some(blend),
            write_mask: wgpu::ColorWrites::ALL,
        };
        let inner = PassPipeline::new(
            ctx,
            skinned,
            cull,
            "selection tint",
            "fs_tint",
            target.clone(),
            false,
            PassGeometry::Triangles,
        )?;
        let line_quads = line_quads
            .then(|| {
                let geometry = PassGeometry::LineQuads;
                PassPipeline::new(
                    ctx,
                    false,
                    None,
                    "tint lines",
                    "fs_tint",
                    target,
                    false,
                    geometry,
                )
            })
            .transpose()?;
        Ok(Self { inner, line_quads })
    }

    /// Uploads the camera for the next [`TintPass::bind`].
    pub fn write(&self, ctx: &RenderContext, uniforms: &PickUniforms) {
        ctx.queue
            .write_buffer(&self.inner.uniforms, 0, bytemuck::bytes_of(uniforms));
        if let Some(l) = &self.line_quads {
            ctx.queue
                .write_buffer(&l.uniforms, 0, bytemuck::bytes_of(uniforms));
        }
    }

    /// Sets the pipeline and group 0 on a pass (the caller binds buffers and the palette
    /// in group 1).
    pub fn bind(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_pipeline(&self.inner.pipeline);
        pass.set_bind_group(0, &self.inner.bind_group, &[]);
    }

    /// [`TintPass::bind`] for GX line quads; false when the scene has none (the caller
    /// binds the corners in vertex buffer 1).
    pub fn bind_lines(&self, pass: &mut wgpu::RenderPass<'_>) -> bool {
        let Some(l) = &self.line_quads else {
            return false;
        };
        pass.set_pipeline(&l.pipeline);
        pass.set_bind_group(0, &l.bind_group, &[]);
        true
    }
}

impl PickPass {
    /// Builds the pipeline for plain or skinned geometry with the scene's face culling (and
    /// with `line_quads` the one for GX line quads, never culled).
    pub fn new(
        ctx: &RenderContext,
        skinned: bool,
        cull: Option<wgpu::Face>,
        line_quads: bool,
    ) -> Result<Self, RenderError> {
        let target = wgpu::ColorTargetState {
            format: PICK_FORMAT,
            blend: None,
            write_mask: wgpu::ColorWrites::ALL,
        };
        let PassPipeline {
            pipeline,
            uniforms,
            bind_group,
        } = PassPipeline::new(
            ctx,
            skinned,
            cull,
            "pick",
            "fs_main",
            target.clone(),
            true,
            PassGeometry::Triangles,
        )?;
        let line_quads = line_quads
            .then(|| {
                let geometry = PassGeometry::LineQuads;
                PassPipeline::new(
                    ctx,
                    false,
                    None,
                    "pick lines",
                    "fs_main",
                    target,
                    true,
                    geometry,
                )
            })
            .transpose()?;
        Ok(Self {
            pipeline,
            uniforms,
            bind_group,
            line_quads,
            targets: None,
        })
    }

    fn ensure_targets(&mut self, ctx: &RenderContext, width: u32, height: u32) {
        if self
            .targets
            .as_ref()
            .is_some_and(|t| (t.width, t.height) == (width, height))
        {
            return;
        }
        let size = wgpu::Extent3d {
            width,
            height,
            depth_or_array_layers: 1,
        };
        let texture = |label, format, usage| {
            ctx.device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let ids = texture(
            "pick ids",
            PICK_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        );
        let depth = texture(
            "pick depth",
            DEPTH_FORMAT,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
        );
        self.targets = Some(PickTargets {
            width,
            height,
            ids_view: ids.create_view(&wgpu::TextureViewDescriptor::default()),
            depth_view: depth.create_view(&wgpu::TextureViewDescriptor::default()),
            ids,
        });
    }

    /// Records and submits the ID pass (`draw` records the scene's draws: pipeline and
    /// group 0 are bound; then `draw_lines` its line quads, on their pipeline, when it has
    /// one), then reads pixel (x, y) back as (surface + 1, depth).
    #[allow(clippy::too_many_arguments)]
    pub fn run(
        &mut self,
        ctx: &RenderContext,
        width: u32,
        height: u32,
        x: u32,
        y: u32,
        uniforms: &PickUniforms,
        draw: impl FnOnce(&mut wgpu::RenderPass<'_>),
        draw_lines: impl FnOnce(&mut wgpu::RenderPass<'_>),
    ) -> Result<Option<(u32, f32)>, RenderError> {
        self.ensure_targets(ctx, width, height);
        let Some(t) = &self.targets else {
            return Ok(None);
        };
        ctx.queue
            .write_buffer(&self.uniforms, 0, bytemuck::bytes_of(uniforms));
        if let Some(l) = &self.line_quads {
            ctx.queue
                .write_buffer(&l.uniforms, 0, bytemuck::bytes_of(uniforms));
        }
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("pick"),
            });
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("pick pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &t.ids_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &t.depth_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            draw(&mut pass);
            if let Some(l) = &self.line_quads {
                pass.set_pipeline(&l.pipeline);
                pass.set_bind_group(0, &l.bind_group, &[]);
                draw_lines(&mut pass);
            }
        }
        ctx.queue.submit([encoder.finish()]);
        let bytes = read_texture_region(ctx, &t.ids, (x, y), (1, 1), 8)?;
        let word = |i: usize| {
            bytes
                .get(i..i + 4)
                .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        };
        let id = word(0);
        Ok((id != 0).then(|| (id - 1, f32::from_bits(word(4)))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pick_shaders_validate() {
        for skinned in [false, true] {
            let src = shader_source(skinned);
            let module = naga::front::wgsl::parse_str(&src).unwrap_or_else(|e| panic!("{e}"));
            naga::valid::Validator::new(
                naga::valid::ValidationFlags::all(),
                naga::valid::Capabilities::all(),
            )
            .validate(&module)
            .unwrap_or_else(|e| panic!("skinned {skinned}: {e:?}"));
        }
    }

    #[test]
    fn the_shader_tints_with_tint_rgba() {
        let [r, g, b, a] = TINT_RGBA;
        let line = format!("const TINT_RGBA = vec4<f32>({r:?}, {g:?}, {b:?}, {a:?});");
        assert!(
            PICK_WGSL.contains(&line),
            "shaders/pick.wgsl lacks `{line}`"
        );
    }
}
