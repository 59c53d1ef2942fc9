//! The stage strip's thumbnails: one small offscreen [`Scene`] per TEV stage of the
//! selected material, each drawing that material as a stage view
//! ([`crate::gx::wgsl::stage_view`]) with the main view's camera, clock and lights, and its
//! image shown in egui.
//!
//! Each thumbnail scene shares the document's model (`Arc`), and pipelines come from the
//! context's cache, so a strip costs textures and small targets, not compiles. To keep the
//! viewer's frame rate, at most [`REFRESH_PER_FRAME`] thumbnails are redrawn per frame,
//! in turn (a strip of 16 is fully live every 4 frames).
//!
//! A thumbnail shows the material's own surfaces (the others hidden), turned like the main
//! view and framed on them, so a small material still fills its thumbnail.
//!
//! egui blends a native texture as premultiplied alpha, and a stage view's alpha is a
//! register, not coverage: each thumbnail is copied (RGB, alpha 1) into a texture egui
//! shows as it is.

use std::sync::Arc;

use crate::camera::OrbitCamera;
use crate::gx::tev::TevOptions;
use crate::gx::wgsl::debug::DebugView;
use crate::gx::wgsl::stage_view::StageView;
use crate::model::CpuModel;
use crate::render::scene::{ClearMode, Scene, SceneOptions};
use crate::render::{OffscreenTarget, RenderContext};

use super::SceneInputs;

/// Thumbnails redrawn per frame.
pub const REFRESH_PER_FRAME: usize = 4;
/// A thumbnail's size in physical pixels.
pub const THUMB_SIZE: [u32; 2] = [112, 64];
/// GX runs at most 16 stages.
const MAX_THUMBS: usize = 16;

const COPY_WGSL: &str = include_str!("../../../shaders/strip_copy.wgsl");

/// What the strip shows: which material of which model, and how many stages it has.
#[derive(Clone)]
pub struct StripRequest {
    pub model: Arc<CpuModel>,
    pub material_set: usize,
    pub material: usize,
    /// The material's stage count (clamped to 16).
    pub stages: usize,
}

struct Thumb {
    scene: Scene,
    target: OffscreenTarget,
    _shown: wgpu::Texture,
    shown_view: wgpu::TextureView,
    bind_group: wgpu::BindGroup,
    texture_id: egui::TextureId,
    lights_revision: Option<u64>,
    applied_revision: Option<u64>,
}

/// The strip's GPU side (owned next to the [`super::Viewport`]).
pub struct StageStrip {
    pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    shown: Option<(Arc<CpuModel>, usize, usize, TevOptions)>,
    /// The shown material's vertex positions (framing) and the surfaces of other materials.
    focus: Vec<glam::Vec3>,
    others: Vec<bool>,
    /// The main camera the thumbnails' camera was fitted for, and that fit.
    framed: Option<(OrbitCamera, OrbitCamera)>,
    hidden: Vec<bool>,
    thumbs: Vec<Thumb>,
    /// The material's lit colour channel 0 (the raster debug view), for RASC inputs.
    raster: Option<Thumb>,
    next: usize,
    /// Problems building a thumbnail scene (shown under the strip).
    pub error: Option<String>,
}

impl StageStrip {
    pub fn new(ctx: &RenderContext) -> Self {
        let device = &ctx.device;
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("stage strip copy"),
            source: wgpu::ShaderSource::Wgsl(COPY_WGSL.into()),
        });
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("stage strip copy"),
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
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("stage strip copy"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("stage strip copy"),
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
                    format: wgpu::TextureFormat::Rgba8Unorm,
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
        Self {
            pipeline,
            layout,
            shown: None,
            focus: Vec::new(),
            others: Vec::new(),
            framed: None,
            hidden: Vec::new(),
            thumbs: Vec::new(),
            raster: None,
            next: 0,
            error: None,
        }
    }

    /// The thumbnails' egui textures, stage by stage.
    pub fn textures(&self) -> Vec<egui::TextureId> {
        self.thumbs.iter().map(|t| t.texture_id).collect()
    }

    /// The raster-colour (COLOR0) thumbnail's egui texture.
    pub fn raster_texture(&self) -> Option<egui::TextureId> {
        self.raster.as_ref().map(|t| t.texture_id)
    }

    /// Thumbnail `k` as last drawn (the stage view itself, alpha included), for tests.
    pub fn thumbnail_image(
        &self,
        ctx: &RenderContext,
        k: usize,
    ) -> Option<Result<crate::render::RgbaImage, crate::render::RenderError>> {
        self.thumbs.get(k).map(|t| t.target.read_rgba(ctx))
    }

    /// Drops every thumbnail (the strip is closed or nothing is selected).
    pub fn clear(&mut self, egui_renderer: &mut egui_wgpu::Renderer) {
        for t in self.thumbs.drain(..).chain(self.raster.take()) {
            egui_renderer.free_texture(&t.texture_id);
        }
        self.shown = None;
        self.error = None;
    }

    /// Builds the thumbnails `request` asks for (when it changed), hands every thumbnail
    /// scene the main view's inputs, and redraws the next few thumbnails.
    pub fn update(
        &mut self,
        ctx: &RenderContext,
        egui_renderer: &mut egui_wgpu::Renderer,
        request: &StripRequest,
        inputs: &SceneInputs<'_>,
    ) {
        let key = (
            Arc::clone(&request.model),
            request.material_set,
            request.material,
            inputs.tev,
        );
        let same = self.shown.as_ref().is_some_and(|(m, s, i, tev)| {
            Arc::ptr_eq(m, &key.0) && (*s, *i, *tev) == (key.1, key.2, key.3)
        });
        let wanted = request.stages.min(MAX_THUMBS);
        if !same {
            self.clear(egui_renderer);
            self.shown = Some(key);
            self.framed = None;
            let model = &request.model;
            self.others = model
                .surfaces
                .iter()
                .map(|s| s.material != request.material)
                .collect();
            self.focus = model
                .surfaces
                .iter()
                .filter(|s| s.material == request.material)
                .flat_map(|s| s.vertices.clone())
                .filter_map(|v| model.mesh.positions.get(v as usize))
                .map(|&p| glam::Vec3::from(p))
                .collect();
        }
        let camera = self.camera(inputs.camera);
        self.hidden = self
            .others
            .iter()
            .enumerate()
            .map(|(i, &other)| other || inputs.hidden_surfaces.get(i).copied().unwrap_or(false))
            .collect();
        while self.thumbs.len() > wanted {
            if let Some(t) = self.thumbs.pop() {
                egui_renderer.free_texture(&t.texture_id);
            }
        }
        while self.thumbs.len() < wanted {
            let stage = self.thumbs.len() as u8;
            let view = StageView {
                material: Some(request.material),
                stage,
            };
            match self.thumb(ctx, egui_renderer, request, inputs.tev, Some(view)) {
                Ok(t) => self.thumbs.push(t),
                Err(e) => {
                    self.error = Some(format!("stage {stage} thumbnail: {e}"));
                    break;
                }
            }
        }
        if self.thumbs.is_empty() {
            return;
        }
        if self.raster.is_none() {
            let raster = TevOptions {
                debug: Some(DebugView::Raster),
                ..inputs.tev
            };
            match self.thumb(ctx, egui_renderer, request, raster, None) {
                Ok(t) => self.raster = Some(t),
                Err(e) => self.error = Some(format!("raster thumbnail: {e}")),
            }
        }
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("stage strip"),
            });
        let mut all: Vec<&mut Thumb> = self.thumbs.iter_mut().chain(self.raster.as_mut()).collect();
        let count = all.len();
        for k in 0..REFRESH_PER_FRAME.min(count) {
            let t = &mut *all[(self.next + k) % count];
            super::sync_scene(
                &mut t.scene,
                inputs,
                &mut t.lights_revision,
                &mut t.applied_revision,
            );
            // Thumbnails show the model itself: no selection tint.
            t.scene.set_highlight(None);
            t.scene.set_camera(camera);
            t.scene.set_hidden_surfaces(&self.hidden);
            if let Err(e) = t.scene.render(ctx, &t.target, ClearMode::BACKGROUND) {
                self.error = Some(e.to_string());
                continue;
            }
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("stage strip copy"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &t.shown_view,
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
            pass.set_bind_group(0, &t.bind_group, &[]);
            pass.draw(0..3, 0..1);
        }
        self.next = (self.next + REFRESH_PER_FRAME) % count;
        ctx.queue.submit([encoder.finish()]);
    }

    /// The main view's camera turned the same way but aimed at and fitted to the shown
    /// material's surfaces (refitted only when the main camera moves).
    fn camera(&mut self, main: OrbitCamera) -> OrbitCamera {
        if let Some((seen, fitted)) = self.framed
            && seen == main
        {
            return fitted;
        }
        let mut c = main;
        if let Some(first) = self.focus.first() {
            let (lo, hi) = self
                .focus
                .iter()
                .fold((*first, *first), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
            c.target = ((lo + hi) * 0.5).into();
            let [w, h] = THUMB_SIZE;
            c.fit_points(&self.focus, w as f32 / h as f32, 0.9);
        }
        self.framed = Some((main, c));
        c
    }

    fn thumb(
        &self,
        ctx: &RenderContext,
        egui_renderer: &mut egui_wgpu::Renderer,
        request: &StripRequest,
        tev: TevOptions,
        stage_view: Option<StageView>,
    ) -> Result<Thumb, String> {
        let options = SceneOptions {
            material_set: request.material_set,
            tev,
            missing_checker: true,
            stage_view,
            ..SceneOptions::default()
        };
        let scene = Scene::with_options(ctx, Arc::clone(&request.model), options)
            .map_err(|e| e.to_string())?;
        let [w, h] = THUMB_SIZE;
        let target = OffscreenTarget::new(ctx, w, h).map_err(|e| e.to_string())?;
        let shown = ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("stage thumbnail"),
            size: wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let shown_view = shown.create_view(&wgpu::TextureViewDescriptor::default());
        let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("stage strip copy"),
            layout: &self.layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&target.color_view),
            }],
        });
        let texture_id = egui_renderer.register_native_texture(
            &ctx.device,
            &shown_view,
            wgpu::FilterMode::Linear,
        );
        Ok(Thumb {
            scene,
            target,
            _shown: shown,
            shown_view,
            bind_group,
            texture_id,
            lights_revision: None,
            applied_revision: None,
        })
    }
}
