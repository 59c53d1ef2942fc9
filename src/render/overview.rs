//! The world overview's drawing: every room's world geometry from above through one
//! flat-shaded pipeline (`shaders/overview.wgsl`), tinted per room, with a depth test so
//! upper floors cover lower ones. No TEV: a 30-room world is a few buffers and one draw
//! per room. Rooms are added as they load ([`OverviewRenderer::set_room`]).

use glam::{Mat4, Vec4};
use wgpu::util::DeviceExt as _;

use super::RenderError;
use super::context::RenderContext;
use super::target::{COLOR_FORMAT, DEPTH_FORMAT, ImageAlpha, OffscreenTarget, RgbaImage};
use crate::model::overview::RoomMesh;

const OVERVIEW_WGSL: &str = include_str!("../../shaders/overview.wgsl");

/// The top-down orthographic view: X right, Y up, looking down −Z.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverviewCamera {
    /// World (x, y) at the centre of the image.
    pub center: [f32; 2],
    /// World units from the centre to the image's right and top edges.
    pub half_extent: [f32; 2],
    /// Lowest and highest world z drawn (depth range and brightness by height).
    pub z_range: [f32; 2],
}

impl OverviewCamera {
    /// The view that shows the XY rectangle `min`..`max` whole in a `width` × `height`
    /// image with a 5 % margin, square pixels.
    pub fn fit(min: [f32; 3], max: [f32; 3], width: u32, height: u32) -> Self {
        let (w, h) = ((max[0] - min[0]).max(1e-3), (max[1] - min[1]).max(1e-3));
        let aspect = width.max(1) as f32 / height.max(1) as f32;
        let half_h = (h.max(w / aspect) / 2.0) / 0.9;
        Self {
            center: [(min[0] + max[0]) / 2.0, (min[1] + max[1]) / 2.0],
            half_extent: [half_h * aspect, half_h],
            z_range: [min[2], max[2]],
        }
    }

    /// World → clip space. Depth: the top of the range is nearest (0), with a margin so
    /// geometry exactly at the range's ends is not clipped.
    pub fn clip_from_world(&self) -> Mat4 {
        let [cx, cy] = self.center;
        let [hx, hy] = self.half_extent.map(|v| v.max(1e-6));
        let margin = ((self.z_range[1] - self.z_range[0]).abs() * 0.01).max(1.0);
        let top = self.z_range[1] + margin;
        let depth = (top - (self.z_range[0] - margin)).max(1e-6);
        Mat4::from_cols(
            Vec4::new(1.0 / hx, 0.0, 0.0, 0.0),
            Vec4::new(0.0, 1.0 / hy, 0.0, 0.0),
            Vec4::new(0.0, 0.0, -1.0 / depth, 0.0),
            Vec4::new(-cx / hx, -cy / hy, top / depth, 1.0),
        )
    }

    /// Where world (`x`, `y`) lands in a `width` × `height` image, in pixels from the top left.
    pub fn to_pixel(&self, x: f32, y: f32, width: u32, height: u32) -> [f32; 2] {
        let nx = (x - self.center[0]) / self.half_extent[0];
        let ny = (y - self.center[1]) / self.half_extent[1];
        [
            (nx + 1.0) * 0.5 * width as f32,
            (1.0 - ny) * 0.5 * height as f32,
        ]
    }
}

#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct OverviewVertex {
    position: [f32; 3],
    tint: [u8; 4],
    room: u32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct OverviewUniforms {
    clip_from_world: [[f32; 4]; 4],
    z_range: [f32; 2],
    highlight: u32,
    _pad: u32,
}

/// No room lightened.
const NO_HIGHLIGHT: u32 = u32::MAX;

struct GpuRoom {
    room: u32,
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
}

/// The overview's pipeline and its rooms' buffers.
pub struct OverviewRenderer {
    pipeline: wgpu::RenderPipeline,
    uniforms: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    rooms: Vec<GpuRoom>,
}

impl OverviewRenderer {
    pub fn new(ctx: &RenderContext) -> Self {
        let device = &ctx.device;
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("overview"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("overview"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("overview"),
            source: wgpu::ShaderSource::Wgsl(OVERVIEW_WGSL.into()),
        });
        let attributes = wgpu::vertex_attr_array![0 => Float32x3, 1 => Unorm8x4, 2 => Uint32];
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("overview"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: &module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[Some(wgpu::VertexBufferLayout {
                    array_stride: std::mem::size_of::<OverviewVertex>() as u64,
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: &attributes,
                })],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::LessEqual),
                stencil: Default::default(),
                bias: Default::default(),
            }),
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
        let uniforms = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("overview uniforms"),
            size: std::mem::size_of::<OverviewUniforms>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("overview"),
            layout: &layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: uniforms.as_entire_binding(),
            }],
        });
        Self {
            pipeline,
            uniforms,
            bind_group,
            rooms: Vec::new(),
        }
    }

    /// Uploads room `room`'s mesh with its tint, replacing one of the same number. A mesh
    /// without triangles draws nothing.
    pub fn set_room(&mut self, ctx: &RenderContext, room: u32, mesh: &RoomMesh, tint: [u8; 4]) {
        self.rooms.retain(|r| r.room != room);
        let n = mesh.positions.len() as u32;
        let indices: Vec<u32> = mesh
            .triangles
            .iter()
            .filter(|t| t.iter().all(|&i| i < n))
            .flatten()
            .copied()
            .collect();
        if indices.is_empty() {
            return;
        }
        let vertices: Vec<OverviewVertex> = mesh
            .positions
            .iter()
            .map(|&position| OverviewVertex {
                position,
                tint,
                room,
            })
            .collect();
        let label = format!("overview room {room}");
        self.rooms.push(GpuRoom {
            room,
            vertices: ctx
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(&label),
                    contents: bytemuck::cast_slice(&vertices),
                    usage: wgpu::BufferUsages::VERTEX,
                }),
            indices: ctx
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some(&label),
                    contents: bytemuck::cast_slice(&indices),
                    usage: wgpu::BufferUsages::INDEX,
                }),
            index_count: indices.len() as u32,
        });
    }

    /// Forgets every room (another world is shown).
    pub fn clear(&mut self) {
        self.rooms.clear();
    }

    /// How many rooms have triangles to draw.
    pub fn room_count(&self) -> usize {
        self.rooms.len()
    }

    /// Draws the rooms into `target` over `background` (RGBA8), room `highlight` lightened.
    pub fn draw(
        &self,
        ctx: &RenderContext,
        target: &OffscreenTarget,
        camera: &OverviewCamera,
        background: [u8; 4],
        highlight: Option<u32>,
    ) {
        let uniforms = OverviewUniforms {
            clip_from_world: camera.clip_from_world().to_cols_array_2d(),
            z_range: camera.z_range,
            highlight: highlight.unwrap_or(NO_HIGHLIGHT),
            _pad: 0,
        };
        ctx.queue
            .write_buffer(&self.uniforms, 0, bytemuck::bytes_of(&uniforms));
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("overview"),
            });
        {
            let [r, g, b, a] = background.map(|c| f64::from(c) / 255.0);
            let mut pass = target.begin_pass(&mut encoder, Some(wgpu::Color { r, g, b, a }));
            pass.set_pipeline(&self.pipeline);
            pass.set_bind_group(0, &self.bind_group, &[]);
            for room in &self.rooms {
                pass.set_vertex_buffer(0, room.vertices.slice(..));
                pass.set_index_buffer(room.indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..room.index_count, 0, 0..1);
            }
        }
        ctx.queue.submit([encoder.finish()]);
    }
}

/// Draws `rooms` (number, mesh, tint) once into a new `width` × `height` image (the CLI's
/// `render --overview` and the tests).
pub fn render_overview(
    ctx: &RenderContext,
    rooms: &[(u32, &RoomMesh, [u8; 4])],
    camera: &OverviewCamera,
    width: u32,
    height: u32,
    background: [u8; 4],
) -> Result<RgbaImage, RenderError> {
    let target = OffscreenTarget::new(ctx, width, height)?;
    let mut renderer = OverviewRenderer::new(ctx);
    for &(room, mesh, tint) in rooms {
        renderer.set_room(ctx, room, mesh, tint);
    }
    renderer.draw(ctx, &target, camera, background, None);
    target.read_image(ctx, ImageAlpha::AsDrawn)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_camera_maps_the_fitted_rectangle_inside_the_image_with_y_up() {
        let c = OverviewCamera::fit([0.0, 0.0, 0.0], [76.0, 8.0, 12.0], 400, 300);
        let [x0, y0] = c.to_pixel(0.0, 0.0, 400, 300);
        let [x1, y1] = c.to_pixel(76.0, 8.0, 400, 300);
        assert!(x0 > 0.0 && x1 < 400.0 && x0 < x1, "{x0} {x1}");
        // +y is up the image.
        assert!(y1 < y0);
        // The clip matrix agrees with to_pixel, and depth orders higher z nearer.
        let m = c.clip_from_world();
        let p = m * Vec4::new(76.0, 8.0, 12.0, 1.0);
        assert!(((p.x + 1.0) * 200.0 - x1).abs() < 1e-3);
        assert!(((1.0 - p.y) * 150.0 - y1).abs() < 1e-3);
        let low = m * Vec4::new(0.0, 0.0, 0.0, 1.0);
        assert!(p.z < low.z && p.z > 0.0 && low.z < 1.0, "{} {}", p.z, low.z);
    }
}
