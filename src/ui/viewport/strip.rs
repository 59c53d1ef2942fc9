//! The stage strip's thumbnails: one small offscreen [`Scene`] per TEV stage of the
//! selected material, each drawing that material as a stage view
//! ([`crate::gx::wgsl::stage_view`]) with the main view's camera, clock and lights, and its
//! image shown in egui; plus the lit colour channels the stages read (RASC inputs).
//!
//! Each thumbnail scene shares the document's model (`Arc`), and pipelines come from the
//! context's cache, so a strip costs textures and small targets, not compiles.
//!
//! On a software GPU a redrawn thumbnail costs about as much as a small frame of the main
//! view, so the strip redraws a thumbnail only when it is on screen ([`StripShown`]) and
//! its content can have changed since it was drawn ([`Staleness`]): an edit, the camera,
//! the lights or the hidden surfaces ([`CONTENT_PER_FRAME`] a frame), or only the clock
//! of an animated material (one a frame, in turn). A still material under a still camera
//! is drawn once. A frame's redraws also stop after [`FRAME_BUDGET`] of CPU time.
//!
//! A thumbnail shows the material's own surfaces (the others hidden), turned like the main
//! view and framed on them, so a small material still fills its thumbnail. During a shape
//! preview it shows the material on the shape, as the main view does.
//!
//! egui blends a native texture as premultiplied alpha, and a stage view's alpha is a
//! register, not coverage: each thumbnail is copied (RGB, alpha 1) into a texture egui
//! shows as it is.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::camera::OrbitCamera;
use crate::gx::tev::TevOptions;
use crate::gx::types::{
    AlphaInput, AlphaTest, Blend, ColorInput, Material, RasterChannel, TevCombine,
};
use crate::gx::wgsl::debug::DebugView;
use crate::gx::wgsl::stage_view::StageView;
use crate::model::CpuModel;
use crate::model::shapes::PreviewShape;
use crate::render::scene::{ClearMode, Scene, SceneOptions};
use crate::render::{OffscreenTarget, RenderContext};
use crate::ui::perf::{StripShown, raster_slot};

use super::SceneInputs;

/// Thumbnails whose content changed (not only the clock) redrawn per frame at most.
pub const CONTENT_PER_FRAME: usize = 4;
/// CPU time after which a frame draws no further thumbnail (one is always drawn).
pub const FRAME_BUDGET: Duration = Duration::from_millis(6);
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
    /// Which lit colour channels (0, 1) the material's stages read.
    pub raster_channels: [bool; 2],
}

/// A shape preview's source: the model, the shape, the material set and the material.
type PreviewKey = (Arc<CpuModel>, PreviewShape, usize, usize);

/// What a thumbnail was drawn from: when it differs from this frame's, the thumbnail is
/// out of date.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DrawnFrom {
    pub camera: OrbitCamera,
    /// The clock, for a material that moves with it (else 0).
    pub time: f64,
    pub animation: Option<usize>,
    pub lights: u64,
    pub materials: Option<u64>,
    /// Bumped when the hidden surfaces change.
    pub hidden: u64,
}

/// How out of date a thumbnail is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Staleness {
    Fresh,
    /// Only the clock moved (an animated material while playing).
    Clock,
    /// Never drawn, or an edit, the camera, the lights or the hidden surfaces changed.
    Content,
}

impl Staleness {
    pub(crate) fn of(drawn: Option<&DrawnFrom>, now: &DrawnFrom) -> Self {
        match drawn {
            None => Self::Content,
            Some(d) if d == now => Self::Fresh,
            Some(d)
                if DrawnFrom {
                    time: now.time,
                    ..*d
                } == *now =>
            {
                Self::Clock
            }
            Some(_) => Self::Content,
        }
    }
}

/// The thumbnails to redraw this frame, in order: those on screen whose content changed,
/// up to [`CONTENT_PER_FRAME`], else one whose clock moved; each taken in turn from
/// `next` so that none starves.
pub(crate) fn choose(stale: &[(Staleness, bool)], next: usize) -> Vec<usize> {
    let n = stale.len();
    let in_turn = |wanted: Staleness| {
        (0..n)
            .map(move |k| (next + k) % n)
            .filter(move |&i| stale[i] == (wanted, true))
    };
    let content: Vec<usize> = in_turn(Staleness::Content)
        .take(CONTENT_PER_FRAME)
        .collect();
    if content.is_empty() {
        in_turn(Staleness::Clock).take(1).collect()
    } else {
        content
    }
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
    drawn: Option<DrawnFrom>,
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
    hidden_revision: u64,
    thumbs: Vec<Thumb>,
    /// The material's lit colour channels 0 and 1, for RASC inputs (made when a stage
    /// reads that channel).
    raster: [Option<Thumb>; 2],
    next: usize,
    /// What the last update would draw from.
    last: Option<DrawnFrom>,
    /// The shape preview's model (the selected material alone on a shape), kept while
    /// the same preview shows: (source model, shape, set, material) → model.
    preview: Option<(PreviewKey, Arc<CpuModel>)>,
    /// The egui textures redrawn by the last update (the window repaints where they show).
    redrawn: Vec<egui::TextureId>,
    /// Thumbnail redraws since the strip was made (for tests and measurements).
    pub draws: u64,
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
            hidden_revision: 0,
            thumbs: Vec::new(),
            raster: [None, None],
            next: 0,
            last: None,
            preview: None,
            redrawn: Vec::new(),
            draws: 0,
            error: None,
        }
    }

    /// The thumbnails' egui textures, stage by stage.
    pub fn textures(&self) -> Vec<egui::TextureId> {
        self.thumbs.iter().map(|t| t.texture_id).collect()
    }

    /// The raster-colour thumbnails' egui textures (COLOR0, COLOR1).
    pub fn raster_textures(&self) -> [Option<egui::TextureId>; 2] {
        [0, 1].map(|c| self.raster[c].as_ref().map(|t| t.texture_id))
    }

    /// The egui textures the last update redrew.
    pub fn redrawn(&self) -> &[egui::TextureId] {
        &self.redrawn
    }

    /// Thumbnails on screen (all when `shown` is None) that are out of date.
    pub fn pending(&self, shown: Option<&StripShown>) -> usize {
        self.slots()
            .filter(|(slot, t)| {
                shown.is_none_or(|s| s[*slot]) && t.drawn.is_none_or(|d| Some(d) != self.last)
            })
            .count()
    }

    /// Thumbnail `k` as last drawn (the stage view itself, alpha included), for tests.
    pub fn thumbnail_image(
        &self,
        ctx: &RenderContext,
        k: usize,
    ) -> Option<Result<crate::render::RgbaImage, crate::render::RenderError>> {
        self.thumbs.get(k).map(|t| t.target.read_rgba(ctx))
    }

    /// Raster channel `c`'s thumbnail as last drawn, for tests.
    pub fn raster_image(
        &self,
        ctx: &RenderContext,
        c: usize,
    ) -> Option<Result<crate::render::RgbaImage, crate::render::RenderError>> {
        self.raster
            .get(c)?
            .as_ref()
            .map(|t| t.target.read_rgba(ctx))
    }

    /// Drops every thumbnail (the strip is closed or nothing is selected).
    pub fn clear(&mut self, egui_renderer: &mut egui_wgpu::Renderer) {
        let [r0, r1] = &mut self.raster;
        for t in self.thumbs.drain(..).chain(r0.take()).chain(r1.take()) {
            egui_renderer.free_texture(&t.texture_id);
        }
        self.shown = None;
        self.error = None;
        self.redrawn.clear();
    }

    /// The selected material alone on `shape` (as the main view's shape preview draws
    /// it), made once per model, shape and material.
    pub fn preview_model(
        &mut self,
        model: &Arc<CpuModel>,
        shape: PreviewShape,
        set: usize,
        material: usize,
    ) -> Option<Arc<CpuModel>> {
        if let Some(((m, s, st, i), preview)) = &self.preview
            && Arc::ptr_eq(m, model)
            && (*s, *st, *i) == (shape, set, material)
        {
            return Some(Arc::clone(preview));
        }
        let preview = Arc::new(model.material_preview(shape, set, material)?);
        self.preview = Some((
            (Arc::clone(model), shape, set, material),
            Arc::clone(&preview),
        ));
        Some(preview)
    }

    /// Every thumbnail with its slot in [`StripShown`].
    fn slots(&self) -> impl Iterator<Item = (usize, &Thumb)> {
        self.thumbs.iter().enumerate().chain(
            self.raster
                .iter()
                .enumerate()
                .filter_map(|(c, t)| Some((raster_slot(c), t.as_ref()?))),
        )
    }

    /// Builds the thumbnails `request` asks for (when it changed), and redraws those on
    /// screen (`shown`; None: all) whose content is out of date, within the frame's budget.
    pub fn update(
        &mut self,
        ctx: &RenderContext,
        egui_renderer: &mut egui_wgpu::Renderer,
        request: &StripRequest,
        inputs: &SceneInputs<'_>,
        shown: Option<&StripShown>,
    ) {
        self.redrawn.clear();
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
        let hidden: Vec<bool> = self
            .others
            .iter()
            .enumerate()
            .map(|(i, &other)| other || inputs.hidden_surfaces.get(i).copied().unwrap_or(false))
            .collect();
        if hidden != self.hidden {
            self.hidden = hidden;
            self.hidden_revision += 1;
        }
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
        for c in 0..2 {
            if !request.raster_channels[c] {
                if let Some(t) = self.raster[c].take() {
                    egui_renderer.free_texture(&t.texture_id);
                }
                continue;
            }
            if self.raster[c].is_none() {
                // Channel 0: the raster debug view; channel 1: a one-stage TEV program
                // that passes the channel through (`raster_material`).
                let tev = TevOptions {
                    debug: (c == 0).then_some(DebugView::Raster),
                    ..inputs.tev
                };
                match self.thumb(ctx, egui_renderer, request, tev, None) {
                    Ok(t) => self.raster[c] = Some(t),
                    Err(e) => self.error = Some(format!("raster {c} thumbnail: {e}")),
                }
            }
        }
        // What this frame would draw from; the clock only for a material it moves.
        let current = material_now(request, inputs);
        let animated = inputs.animation.is_some()
            || current
                .as_ref()
                .is_some_and(|m| !m.uv_animations.is_empty());
        let now = DrawnFrom {
            camera,
            time: if animated { inputs.time } else { 0.0 },
            animation: inputs.animation,
            lights: inputs.lights_revision,
            materials: inputs.materials.map(|(revision, _)| revision),
            hidden: self.hidden_revision,
        };
        self.last = Some(now);
        let slots: Vec<usize> = self.slots().map(|(slot, _)| slot).collect();
        let stale: Vec<(Staleness, bool)> = self
            .slots()
            .map(|(slot, t)| {
                (
                    Staleness::of(t.drawn.as_ref(), &now),
                    shown.is_none_or(|s| s[slot]),
                )
            })
            .collect();
        let chosen = choose(&stale, self.next % slots.len().max(1));
        let Some(&last_chosen) = chosen.last() else {
            return;
        };
        self.next = last_chosen + 1;
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("stage strip"),
            });
        let start = Instant::now();
        for index in chosen {
            if !self.redrawn.is_empty() && start.elapsed() > FRAME_BUDGET {
                break;
            }
            let slot = slots[index];
            let t = match slot {
                s if s < MAX_THUMBS => &mut self.thumbs[s],
                s => match &mut self.raster[s - raster_slot(0)] {
                    Some(t) => t,
                    None => continue,
                },
            };
            super::sync_scene(
                &mut t.scene,
                inputs,
                &mut t.lights_revision,
                &mut t.applied_revision,
            );
            if slot == raster_slot(1)
                && let Some(m) = &current
            {
                let lit = raster_material(m, RasterChannel::Color1A1);
                if t.scene.material(request.material_set, request.material) != Some(&lit) {
                    t.scene
                        .set_material(request.material_set, request.material, lit);
                }
            }
            // Thumbnails show the model itself: no selection tint.
            t.scene.set_highlight(None);
            t.scene.set_camera(camera);
            t.scene.set_hidden_surfaces(&self.hidden);
            match t.scene.render(ctx, &t.target, ClearMode::BACKGROUND) {
                // Drawn with the ubershader while its pipeline compiles: drawn again.
                Ok(stats) => t.drawn = (stats.uber_draws == 0).then_some(now),
                Err(e) => {
                    self.error = Some(e.to_string());
                    continue;
                }
            }
            self.draws += 1;
            self.redrawn.push(t.texture_id);
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
            drawn: None,
        })
    }
}

/// The shown material as this frame has it: the document's (edits) or the model's.
fn material_now(request: &StripRequest, inputs: &SceneInputs<'_>) -> Option<Material> {
    let edited = inputs
        .materials
        .and_then(|(_, ms)| ms.get(request.material)?.as_ref().ok())
        .map(|e| e.material.clone());
    edited.or_else(|| {
        let set = request.model.material_sets.get(request.material_set)?;
        set.materials
            .get(request.material)?
            .gx
            .as_ref()
            .ok()
            .cloned()
    })
}

/// `material` with its TEV program replaced by one stage that writes the lit colour
/// `channel` (RASC, RASA) unchanged, drawn opaque with no alpha test: the channel as the
/// rasterizer hands it to the stages, over every pixel the material covers.
pub(crate) fn raster_material(material: &Material, channel: RasterChannel) -> Material {
    let base = material
        .stages
        .iter()
        .find(|s| s.raster.channel() == channel.channel())
        .or(material.stages.first())
        .copied();
    let stages = base
        .map(|base| crate::gx::types::TevStage {
            color_in: [
                ColorInput::Zero,
                ColorInput::Zero,
                ColorInput::Zero,
                ColorInput::Rasc,
            ],
            alpha_in: [
                AlphaInput::Zero,
                AlphaInput::Zero,
                AlphaInput::Zero,
                AlphaInput::Rasa,
            ],
            color_op: TevCombine::DEFAULT,
            alpha_op: TevCombine::DEFAULT,
            raster: channel,
            tex_map: None,
            tex_coord: None,
            ..base
        })
        .into_iter()
        .collect();
    Material {
        stages,
        blend: Blend::OPAQUE,
        alpha_test: AlphaTest::ALWAYS,
        ..material.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drawn(time: f64) -> DrawnFrom {
        DrawnFrom {
            camera: OrbitCamera::default(),
            time,
            animation: None,
            lights: 1,
            materials: Some(3),
            hidden: 0,
        }
    }

    #[test]
    fn a_thumbnail_is_stale_when_what_it_shows_changed() {
        let now = drawn(1.0);
        assert_eq!(Staleness::of(None, &now), Staleness::Content);
        assert_eq!(Staleness::of(Some(&now), &now), Staleness::Fresh);
        assert_eq!(Staleness::of(Some(&drawn(0.5)), &now), Staleness::Clock);
        let edited = DrawnFrom {
            materials: Some(4),
            ..now
        };
        assert_eq!(Staleness::of(Some(&now), &edited), Staleness::Content);
        let mut turned = now;
        turned.camera.yaw_degrees += 10.0;
        assert_eq!(
            Staleness::of(Some(&drawn(0.5)), &turned),
            Staleness::Content
        );
    }

    #[test]
    fn redraws_are_bounded_shown_only_and_taken_in_turn() {
        use Staleness::*;
        // Nothing on screen: nothing drawn, however stale.
        assert!(choose(&[(Content, false); 6], 0).is_empty());
        // Fresh ones are never drawn.
        assert!(choose(&[(Fresh, true); 6], 2).is_empty());
        // Content changes first, at most CONTENT_PER_FRAME, from `next` on.
        let mut stale = vec![(Content, true); 8];
        stale[1] = (Clock, true);
        stale[6] = (Content, false);
        assert_eq!(choose(&stale, 5), vec![5, 7, 0, 2]);
        // Only the clock moved: one a frame, in turn.
        let clock = [(Clock, true); 5];
        assert_eq!(choose(&clock, 0), vec![0]);
        assert_eq!(choose(&clock, 3), vec![3]);
        assert_eq!(choose(&clock, 4), vec![4]);
    }

    #[test]
    fn the_raster_material_passes_the_channel_through() {
        let stage = crate::gx::types::TevStage {
            color_in: [ColorInput::C0; 4],
            alpha_in: [AlphaInput::A0; 4],
            color_op: TevCombine::DEFAULT,
            alpha_op: TevCombine::DEFAULT,
            kcsel: crate::gx::types::KonstSel(0),
            kasel: crate::gx::types::KonstSel(0),
            raster: RasterChannel::Color1A1,
            tex_map: Some(0),
            tex_coord: Some(0),
            tex_swap: 0,
            ras_swap: 0,
        };
        let m = Material {
            stages: vec![stage, stage],
            channel_count: 2,
            blend: Blend {
                dst: crate::gx::types::BlendFactor::One,
                ..Blend::OPAQUE
            },
            ..Material::default()
        };
        let lit = raster_material(&m, RasterChannel::Color1A1);
        assert_eq!(lit.stages.len(), 1);
        let s = lit.stages[0];
        assert_eq!(s.color_in[3], ColorInput::Rasc);
        assert_eq!(s.alpha_in[3], AlphaInput::Rasa);
        assert_eq!(s.color_in[..3], [ColorInput::Zero; 3]);
        assert_eq!((s.raster, s.tex_map), (RasterChannel::Color1A1, None));
        assert_eq!(lit.blend, Blend::OPAQUE);
        assert_eq!(lit.channel_count, 2);
    }
}
