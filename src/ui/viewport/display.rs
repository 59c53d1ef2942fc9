//! The pass that turns the exact target into what the screen shows.

use super::*;

const DISPLAY_WGSL: &str = include_str!("../../../shaders/viewport_display.wgsl");

/// Turns the exact target into what the screen shows (alpha over a checkerboard, colour
/// only, or alpha as grey): egui would otherwise read the TEV's straight alpha as
/// premultiplied and add colour where alpha is 0.
pub(super) struct DisplayPass {
    pub(super) pipeline: wgpu::RenderPipeline,
    pub(super) layout: wgpu::BindGroupLayout,
    pub(super) params: wgpu::Buffer,
    pub(super) texture: wgpu::Texture,
    pub(super) view: wgpu::TextureView,
    pub(super) bind_group: wgpu::BindGroup,
    pub(super) mode: u32,
    /// The window's format, so the window can copy the shown image instead of sampling it.
    pub(super) format: wgpu::TextureFormat,
}

impl DisplayPass {
    pub(super) fn new(
        ctx: &RenderContext,
        target: &OffscreenTarget,
        format: wgpu::TextureFormat,
    ) -> Self {
        let device = &ctx.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("viewport display"),
            source: wgpu::ShaderSource::Wgsl(DISPLAY_WGSL.into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("viewport display"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Texture {
                        sample_type: wgpu::TextureSampleType::Float { filterable: false },
                        view_dimension: wgpu::TextureViewDimension::D2,
                        multisampled: false,
                    },
                    count: None,
                },
                wgpu::BindGroupLayoutEntry {
                    binding: 1,
                    visibility: wgpu::ShaderStages::FRAGMENT,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("viewport display"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("viewport display"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            fragment: Some(wgpu::FragmentState {
                module: &module,
                entry_point: Some("fs"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format,
                    blend: None,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: None,
            multisample: wgpu::MultisampleState::default(),
            multiview_mask: None,
            cache: None,
        });
        let params = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("viewport display params"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let (texture, view, bind_group) = Self::resources(ctx, &layout, &params, target, format);
        Self {
            pipeline,
            layout,
            params,
            texture,
            view,
            bind_group,
            mode: u32::MAX,
            format,
        }
    }

    pub(super) fn resources(
        ctx: &RenderContext,
        layout: &wgpu::BindGroupLayout,
        params: &wgpu::Buffer,
        target: &OffscreenTarget,
        format: wgpu::TextureFormat,
    ) -> (wgpu::Texture, wgpu::TextureView, wgpu::BindGroup) {
        let texture = ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("viewport display"),
            size: wgpu::Extent3d {
                width: target.width,
                height: target.height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("viewport display"),
            layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&target.color_view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: params.as_entire_binding(),
                },
            ],
        });
        (texture, view, bind_group)
    }

    pub(super) fn resize(&mut self, ctx: &RenderContext, target: &OffscreenTarget) {
        let (texture, view, bind_group) =
            Self::resources(ctx, &self.layout, &self.params, target, self.format);
        self.texture = texture;
        self.view = view;
        self.bind_group = bind_group;
    }

    pub(super) fn encode(
        &mut self,
        ctx: &RenderContext,
        encoder: &mut wgpu::CommandEncoder,
        display: AlphaDisplay,
        pixels_per_cell: f32,
    ) {
        let mode = match display {
            AlphaDisplay::Checker => 0u32,
            AlphaDisplay::Rgb => 1,
            AlphaDisplay::Alpha => 2,
        };
        if mode != self.mode {
            let params: [u32; 4] = [mode, pixels_per_cell.to_bits(), 0, 0];
            ctx.queue
                .write_buffer(&self.params, 0, bytemuck::cast_slice(&params));
            self.mode = mode;
        }
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("viewport display"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &self.view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&self.pipeline);
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.draw(0..3, 0..1);
    }
}
