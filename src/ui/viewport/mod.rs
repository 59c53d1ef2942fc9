//! The central 3D view: an [`OffscreenTarget`] this module owns, shown in egui as a native
//! texture, and read back for screenshots and the pixel inspector.
//!
//! What is drawn into it is a [`ViewContent`]: the whole model through
//! [`crate::render::Scene`] (orbit camera, animation, lights, live material edits, picking),
//! or the material preview quad (also used for TXTR previews through a pass-through
//! material); while the world overview shows, its room geometry instead ([`overview`]).
//! The target, the egui texture, screenshots and readback are shared.

use glam::Mat4;

use crate::gx::frame::fill_uv_matrices;
use crate::gx::uvanim::{UvAnimInputs, UvAnimOptions, prime_view_from_view_matrix, uv_seconds};
use crate::gx::wgsl::vertex::{DrawUniforms, raster_viewport};
use crate::render::convert::{BlendConversion, CullMode, RenderState};
use crate::render::material::BoundTexture;
use crate::render::pipeline_cache::{SelectedPath, ShaderPath};
use crate::render::quad::QuadGeometry;
use crate::render::target::{COLOR_FORMAT, DEPTH_FORMAT, ImageAlpha};
use crate::render::texture::{GpuTexture, SamplerMode, Wrap};
use crate::render::{
    GpuMaterial, MaterialPipeline, OffscreenTarget, QuadRenderer, RenderContext, RgbaImage,
};

use std::sync::Arc;

use crate::gx::lights::LightSet;
use crate::gx::tev::TevOptions;
use crate::gx::wgsl::stage_view::StageView;
use crate::model::{CpuModel, TextureData};
use crate::render::pick::PickHit;
use crate::render::scene::{ClearMode, FrameStats, Scene, SceneOptions};

use super::edit::MaterialEdit;
use crate::camera::OrbitCamera;
use crate::session::MaterialEntry;

/// The largest screenshot side tevscope renders (when the GPU allows it).
pub const MAX_SCREENSHOT_SIDE: u32 = 8192;

/// Encodes `image` as a PNG at `path` (temporary file, then rename).
/// How the preview quad is composited into the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compositing {
    /// Blending off: the target holds exactly what the TEV wrote (alpha included).
    ExactTev,
    /// The material's GX blend over the background colour, as the game would draw it.
    GxBlend,
}

/// Texture sampling of the preview.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sampling {
    /// Nearest texel, level 0: bit-exact, matches the pixel inspector's CPU trace.
    Nearest,
    /// Prime's filtering (linear, mips).
    Gx,
}

/// How the exact target is shown on screen (screenshots and the inspector always use the
/// exact target).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlphaDisplay {
    /// Straight alpha over a checkerboard.
    Checker,
    /// Colour only, alpha ignored.
    Rgb,
    /// Alpha as grey.
    Alpha,
}

/// View settings the UI edits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewSettings {
    pub compositing: Compositing,
    pub sampling: Sampling,
    /// Clear colour (RGBA8); alpha 0 gives transparent screenshots.
    pub background: [u8; 4],
    pub alpha_display: AlphaDisplay,
    /// None: the flat, pixel-exact quad. Some: the quad as a plane in 3D seen through an
    /// orbit camera (view-dependent UV animations move; the pixel trace does not apply).
    pub orbit: Option<OrbitCamera>,
}

impl Default for ViewSettings {
    fn default() -> Self {
        Self {
            compositing: Compositing::ExactTev,
            sampling: Sampling::Nearest,
            background: [0, 0, 0, 0],
            alpha_display: AlphaDisplay::Checker,
            orbit: None,
        }
    }
}

mod compare;
mod display;
mod overview;
mod quad;
mod strip;

use display::DisplayPass;
pub use quad::QuadView;
use quad::quad_program;
pub use strip::{StageStrip, StripRequest, THUMB_SIZE};

/// A whole model drawn by [`Scene`], and what of the UI's state it last took over (so
/// each change reaches the GPU once).
pub struct SceneView {
    /// Draws the document's model (shared: [`Scene::shared_model`]; the same document
    /// reuses the scene).
    pub scene: Scene,
    /// (material set, TEV switches, stage view) the materials were built with.
    built: (usize, TevOptions, Option<StageView>),
    /// The document revision whose materials the scene draws.
    applied_revision: Option<u64>,
    lights_revision: Option<u64>,
    /// The last frame's statistics.
    pub stats: FrameStats,
    /// How the last frame cleared (a pick redraws it without the selection tint).
    clear: ClearMode,
}

/// A pick's hit (None on background) and the displayed pixel's exact RGBA8.
pub type PickedPixel = (Option<PickHit>, [u8; 4]);

/// What the model view takes from the UI each frame.
#[derive(Debug, Clone, Copy)]
pub struct SceneInputs<'a> {
    pub camera: crate::camera::OrbitCamera,
    /// Seconds (skeletal and UV animations).
    pub time: f64,
    pub animation: Option<usize>,
    pub lights: &'a LightSet,
    /// Bumped whenever `lights` changes.
    pub lights_revision: u64,
    pub material_set: usize,
    pub tev: TevOptions,
    /// The document's revision and the active set's materials as it has them now (edits,
    /// undo and redo): materials that differ from the scene's are written into it.
    pub materials: Option<(u64, &'a [Result<MaterialEntry, String>])>,
    /// The selected material.
    pub selected: Option<usize>,
    /// The material whose surfaces are tinted (hovered in the list, else the selection).
    pub highlight: Option<usize>,
    /// Surfaces not drawn (a room's hidden world models); shorter means the rest show.
    pub hidden_surfaces: &'a [bool],
    /// A material drawn as a stage view (a thumbnail of the stage strip clicked).
    pub stage_view: Option<StageView>,
}

/// What the viewport draws.
pub enum ViewContent {
    Empty,
    Quad(Box<QuadView>),
    Scene(Box<SceneView>),
}

/// Per-frame status shown in the UI.
#[derive(Debug, Clone, Default)]
pub struct ViewStatus {
    /// Which pipeline drew the last frame (the selected material's, in the model view).
    pub path: Option<SelectedPath>,
    /// Model view: draws of the last frame made with the ubershader (pipelines compiling).
    pub uber_draws: usize,
    /// Model view: the material whose path is reported.
    pub selected_material: Option<usize>,
    /// Problems building the model scene (missing textures, …).
    pub warnings: Vec<String>,
    /// Model view: the selected material's specialized shader key as the scene draws it.
    pub shader_key: Option<crate::gx::key::ShaderKey>,
    /// The pipeline error of the current structure (the last good pipeline keeps drawing).
    pub pipeline_error: Option<String>,
    /// A failure that stopped drawing entirely.
    pub error: Option<String>,
}

/// Hands a scene the UI's camera, clock, animation, lights (when `lights_revision` is
/// behind) and the document's materials (when `applied_revision` is behind): the main view
/// and every stage-strip thumbnail follow the same state.
fn sync_scene(
    scene: &mut Scene,
    inputs: &SceneInputs<'_>,
    lights_revision: &mut Option<u64>,
    applied_revision: &mut Option<u64>,
) {
    scene.set_camera(inputs.camera);
    scene.set_time(inputs.time);
    scene.set_animation(inputs.animation);
    if *lights_revision != Some(inputs.lights_revision) {
        scene.set_lights(inputs.lights.clone());
        *lights_revision = Some(inputs.lights_revision);
    }
    if let Some((revision, materials)) = inputs.materials
        && *applied_revision != Some(revision)
    {
        for (index, entry) in materials.iter().enumerate() {
            let Ok(entry) = entry else { continue };
            if scene
                .material(inputs.material_set, index)
                .is_some_and(|m| *m != entry.material)
            {
                scene.set_material(inputs.material_set, index, entry.material.clone());
            }
            scene.set_material_textures(inputs.material_set, index, &entry.texture_ids);
        }
        *applied_revision = Some(revision);
    }
}

/// The offscreen target, its egui texture and the content drawn into it.
pub struct Viewport {
    display: DisplayPass,
    /// The world overview's rooms on the GPU (made when an overview first shows).
    overview: Option<overview::OverviewView>,
    /// The model scene while the quad preview of the same model is shown.
    parked: Option<Box<SceneView>>,
    pub target: OffscreenTarget,
    pub texture_id: egui::TextureId,
    pub content: ViewContent,
    pub status: ViewStatus,
    /// The A/B split's opened side ([`compare`]), while it is on.
    opened: Option<compare::OpenedSide>,
    /// Seconds the quad preview draws at (the session clock's, handed over each frame by
    /// [`Viewport::set_time`]; the model scene takes it with [`SceneInputs`]).
    time: f64,
}

impl Viewport {
    pub fn new(
        ctx: &RenderContext,
        egui_renderer: &mut egui_wgpu::Renderer,
    ) -> Result<Self, String> {
        Self::with_display_format(ctx, egui_renderer, COLOR_FORMAT)
    }

    /// A viewport whose shown image has `display_format` (the window's format, so the
    /// window can copy it; see [`crate::ui::compositor`]).
    pub fn with_display_format(
        ctx: &RenderContext,
        egui_renderer: &mut egui_wgpu::Renderer,
        display_format: wgpu::TextureFormat,
    ) -> Result<Self, String> {
        let target = OffscreenTarget::new(ctx, 256, 256).map_err(|e| e.report())?;
        let display = DisplayPass::new(ctx, &target, display_format);
        let texture_id = egui_renderer.register_native_texture(
            &ctx.device,
            &display.view,
            wgpu::FilterMode::Nearest,
        );
        Ok(Self {
            display,
            overview: None,
            parked: None,
            target,
            texture_id,
            content: ViewContent::Empty,
            status: ViewStatus::default(),
            opened: None,
            time: 0.0,
        })
    }

    /// Resizes the target (in physical pixels), re-pointing the egui texture at it.
    pub fn resize(
        &mut self,
        ctx: &RenderContext,
        egui_renderer: &mut egui_wgpu::Renderer,
        width: u32,
        height: u32,
    ) {
        let (width, height) = (width.clamp(1, 4096), height.clamp(1, 4096));
        if (width, height) == (self.target.width, self.target.height) {
            return;
        }
        match OffscreenTarget::new(ctx, width, height) {
            Ok(t) => {
                self.target = t;
                self.display.resize(ctx, &self.target);
                egui_renderer.update_egui_texture_from_wgpu_texture(
                    &ctx.device,
                    &self.display.view,
                    wgpu::FilterMode::Nearest,
                    self.texture_id,
                );
            }
            Err(e) => self.status.error = Some(e.to_string()),
        }
    }

    /// Loads a material (with its textures) for the quad preview.
    pub fn show_material(
        &mut self,
        ctx: &RenderContext,
        edit: &MaterialEdit,
        textures: &[Option<TextureData>],
        sampling: Sampling,
    ) {
        self.status = ViewStatus::default();
        self.park_scene();
        match QuadView::new(ctx, edit, textures, sampling) {
            Ok(q) => self.content = ViewContent::Quad(Box::new(q)),
            Err(e) => {
                self.content = ViewContent::Empty;
                self.status.error = Some(e);
            }
        }
    }

    pub fn clear_content(&mut self) {
        self.content = ViewContent::Empty;
        self.parked = None;
        self.status = ViewStatus::default();
    }

    /// Keeps the current scene aside (the quad preview of the same model does not drop it).
    fn park_scene(&mut self) {
        if let ViewContent::Scene(_) = &self.content
            && let ViewContent::Scene(sv) = std::mem::replace(&mut self.content, ViewContent::Empty)
        {
            self.parked = Some(sv);
        }
    }

    /// Shows `model`: the current or parked scene when it was built from the same model,
    /// else a new [`Scene`] (textures uploaded, pipelines requested).
    pub fn show_scene(
        &mut self,
        ctx: &RenderContext,
        model: &Arc<CpuModel>,
        material_set: usize,
        tev: TevOptions,
    ) {
        if let ViewContent::Scene(sv) = &self.content
            && Arc::ptr_eq(sv.scene.shared_model(), model)
        {
            return;
        }
        if let Some(sv) = self.parked.take()
            && Arc::ptr_eq(sv.scene.shared_model(), model)
        {
            self.content = ViewContent::Scene(sv);
            return;
        }
        self.status = ViewStatus::default();
        let options = SceneOptions {
            material_set,
            tev,
            missing_checker: true,
            ..SceneOptions::default()
        };
        match Scene::with_options(ctx, Arc::clone(model), options) {
            Ok(scene) => {
                self.status.warnings = scene.warnings.clone();
                self.content = ViewContent::Scene(Box::new(SceneView {
                    scene,
                    built: (material_set, tev, None),
                    applied_revision: None,
                    lights_revision: None,
                    stats: FrameStats::default(),
                    clear: ClearMode::BACKGROUND,
                }));
            }
            Err(e) => {
                self.content = ViewContent::Empty;
                self.status.error = Some(e.to_string());
            }
        }
    }

    /// The model scene, when the viewport shows one.
    pub fn scene_view(&mut self) -> Option<&mut SceneView> {
        match &mut self.content {
            ViewContent::Scene(sv) => Some(sv),
            _ => None,
        }
    }

    /// Hands the UI's state to the model scene: material set and TEV switches (rebuilds
    /// the materials), camera, clock, animation, lights, and the selected material's edit
    /// (value edits rewrite uniforms; structural ones request a pipeline).
    pub fn update_scene(&mut self, ctx: &RenderContext, inputs: &SceneInputs<'_>) {
        let ViewContent::Scene(sv) = &mut self.content else {
            return;
        };
        let scene = &mut sv.scene;
        let wanted = (inputs.material_set, inputs.tev, inputs.stage_view);
        if sv.built != wanted {
            let options = SceneOptions {
                material_set: inputs.material_set,
                tev: inputs.tev,
                stage_view: inputs.stage_view,
                ..*scene.options()
            };
            if let Err(e) = scene.rebuild_materials(ctx, options) {
                self.status.error = Some(e.to_string());
            }
            sv.built = wanted;
            sv.applied_revision = None;
        }
        sync_scene(
            scene,
            inputs,
            &mut sv.lights_revision,
            &mut sv.applied_revision,
        );
        scene.set_highlight(inputs.highlight);
        scene.set_hidden_surfaces(inputs.hidden_surfaces);
        self.status.selected_material = inputs.selected;
        self.hide_opened(inputs.hidden_surfaces);
    }

    /// Which surface and material cover target pixel (x, y) of the model view, with the
    /// displayed pixel's exact RGBA8. None when the viewport shows no model.
    pub fn pick(
        &mut self,
        ctx: &RenderContext,
        x: u32,
        y: u32,
    ) -> Option<Result<PickedPixel, String>> {
        let (w, h) = (self.target.width, self.target.height);
        let ViewContent::Scene(sv) = &mut self.content else {
            return None;
        };
        let hit = match sv.scene.pick(ctx, w, h, x, y) {
            Ok(hit) => hit,
            Err(e) => return Some(Err(e.to_string())),
        };
        // The inspector reports the model's pixel: the frame is drawn again without the
        // selection tint (the next frame puts it back).
        if let Some(highlight) = sv.scene.highlight() {
            sv.scene.set_highlight(None);
            let drawn = sv.scene.render(ctx, &self.target, sv.clear);
            sv.scene.set_highlight(Some(highlight));
            if let Err(e) = drawn {
                return Some(Err(e.to_string()));
            }
        }
        Some(self.read_pixel(ctx, x, y).map(|rgba| (hit, rgba)))
    }

    /// The clock's time for the next frames (UV animations of the quad preview).
    pub fn set_time(&mut self, seconds: f64) {
        self.time = seconds;
    }

    /// Draws one frame into the target with the current edit and settings.
    pub fn render(
        &mut self,
        ctx: &RenderContext,
        edit: Option<&MaterialEdit>,
        settings: &ViewSettings,
    ) {
        if let Some(o) = &mut self.overview {
            o.forget_drawn();
        }
        let [r, g, b, a] = settings.background.map(|c| f64::from(c) / 255.0);
        let clear = wgpu::Color { r, g, b, a };
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("viewport"),
            });
        match (&mut self.content, edit) {
            (ViewContent::Quad(q), Some(edit)) => {
                if q.sampling != settings.sampling {
                    q.sampling = settings.sampling;
                    q.rebind(ctx, edit);
                }
                if q.revision != edit.revision {
                    q.gpu
                        .update_program(ctx, &edit.material, quad_program(edit));
                    q.revision = edit.revision;
                }
                let seconds = uv_seconds(self.time, &UvAnimOptions::default());
                let mut draw = DrawUniforms::default();
                let inputs = match settings.orbit {
                    // Flat: the quad is the model (identity), camera at the origin.
                    None => UvAnimInputs::new(seconds, Mat4::IDENTITY, Mat4::IDENTITY),
                    Some(camera) => {
                        // The quad stands in the XZ plane facing −Y (Prime's Z is up).
                        let world_from_model = Mat4::from_rotation_x(std::f32::consts::FRAC_PI_2);
                        let view_from_world = camera.view_from_world();
                        let aspect = self.target.width as f32 / self.target.height.max(1) as f32;
                        let view_from_model = view_from_world * world_from_model;
                        draw.clip_from_model =
                            (camera.clip_from_view(aspect) * view_from_model).to_cols_array_2d();
                        draw.view_from_model = view_from_model.to_cols_array_2d();
                        draw.normal_view_from_model =
                            view_from_model.inverse().transpose().to_cols_array_2d();
                        // Its silhouette on GX's raster grid, as a scene's (the flat quad
                        // covers the whole target: nothing to snap).
                        draw.viewport =
                            raster_viewport(self.target.width, self.target.height, true);
                        UvAnimInputs::new(
                            seconds,
                            world_from_model,
                            prime_view_from_view_matrix(view_from_world),
                        )
                    }
                };
                fill_uv_matrices(
                    &mut draw,
                    &edit.material.uv_animations,
                    &inputs,
                    &UvAnimOptions::default(),
                );
                if draw != q.draw {
                    ctx.queue
                        .write_buffer(&q.quad.draw_uniforms, 0, bytemuck::bytes_of(&draw));
                    q.draw = draw;
                }
                let state = match settings.compositing {
                    Compositing::ExactTev => RenderState::EXACT_QUAD,
                    Compositing::GxBlend => RenderState {
                        topology: wgpu::PrimitiveTopology::TriangleStrip,
                        cull: None,
                        ..RenderState::for_program(
                            &edit.program,
                            BlendConversion::default(),
                            CullMode::None,
                        )
                    },
                };
                let (spec, uber) = q.gpu.pipeline_keys(state, COLOR_FORMAT, Some(DEPTH_FORMAT));
                match q
                    .pipeline
                    .select(&ctx.pipelines, &spec, &uber, ShaderPath::Specialized)
                {
                    Ok(selected) => {
                        self.status.path = Some(selected.path);
                        self.status.pipeline_error =
                            q.pipeline.last_error.as_ref().map(|e| e.report());
                        self.status.error = None;
                        let mut pass = self.target.begin_pass(&mut encoder, Some(clear));
                        q.quad.draw(&mut pass, &q.gpu, &selected.pipeline);
                    }
                    Err(e) => {
                        self.status.path = None;
                        self.status.error = Some(e.report());
                        let _ = self.target.begin_pass(&mut encoder, Some(clear));
                    }
                }
            }
            (ViewContent::Scene(sv), _) => {
                // A transparent background (the quad preview's default) shows the model
                // over the viewer's grey; screenshots still clear to transparent.
                let clear = if settings.background[3] == 0 {
                    ClearMode::BACKGROUND
                } else {
                    ClearMode::Color([r, g, b, a])
                };
                sv.clear = clear;
                match sv.scene.render(ctx, &self.target, clear) {
                    Ok(stats) => {
                        sv.stats = stats;
                        self.status.uber_draws = stats.uber_draws;
                        self.status.error = None;
                        let status = self
                            .status
                            .selected_material
                            .and_then(|i| sv.scene.material_status(i));
                        self.status.path = status.as_ref().map(|(p, _)| *p);
                        self.status.pipeline_error =
                            status.and_then(|(_, e)| e.map(|e| e.report()));
                        let key = self
                            .status
                            .selected_material
                            .and_then(|i| sv.scene.shader_key(i));
                        if self.status.shader_key.as_ref() != key {
                            self.status.shader_key = key.cloned();
                        }
                    }
                    Err(e) => {
                        self.status.path = None;
                        self.status.error = Some(e.report());
                    }
                }
            }
            _ => {
                let _ = self.target.begin_pass(&mut encoder, Some(clear));
            }
        }
        self.draw_opened(ctx, &mut encoder);
        // Prime's framebuffer alpha is not coverage: the model view shows colour only
        // unless the alpha channel is asked for.
        let display = match (&self.content, settings.alpha_display) {
            (ViewContent::Scene(_), AlphaDisplay::Checker) => AlphaDisplay::Rgb,
            (_, d) => d,
        };
        self.display.encode(ctx, &mut encoder, display, 12.0);
        ctx.queue.submit([encoder.finish()]);
    }

    /// The image egui shows for the view (what [`Self::texture_id`] names).
    pub(crate) fn display_texture(&self) -> &wgpu::Texture {
        &self.display.texture
    }

    /// Whether the specialized pipeline is still compiling (keep redrawing until it is).
    pub fn pipeline_pending(&self) -> bool {
        self.status.path == Some(SelectedPath::Uber) || self.status.uber_draws > 0
    }

    /// Reads the whole target back (exact RGBA8).
    pub fn read(&self, ctx: &RenderContext) -> Result<RgbaImage, String> {
        self.target.read_rgba(ctx).map_err(|e| e.report())
    }

    /// The largest screenshot side: 8192, or less when the GPU's textures are smaller.
    pub fn max_screenshot_side(ctx: &RenderContext) -> u32 {
        ctx.device
            .limits()
            .max_texture_dimension_2d
            .min(MAX_SCREENSHOT_SIDE)
    }

    /// Renders one frame with `settings` (transparent black background when
    /// `transparent`) at `size` (None: the view's own size) and reads back the image
    /// written for the user: opaque unless `transparent` (see [`ImageAlpha`]). Another
    /// size is rendered at that size into a target of its own, not scaled.
    pub fn screenshot_image(
        &mut self,
        ctx: &RenderContext,
        edit: Option<&MaterialEdit>,
        settings: &ViewSettings,
        transparent: bool,
        size: Option<(u32, u32)>,
    ) -> Result<RgbaImage, String> {
        let (width, height) = size.unwrap_or((self.target.width, self.target.height));
        let max = Self::max_screenshot_side(ctx);
        if width == 0 || height == 0 || width > max || height > max {
            return Err(format!(
                "screenshot size {width}x{height} is outside 1..={max} (this GPU's limit{})",
                if max < MAX_SCREENSHOT_SIDE {
                    format!(" is {max}, below tevscope's {MAX_SCREENSHOT_SIDE}")
                } else {
                    String::new()
                }
            ));
        }
        if let ViewContent::Scene(sv) = &mut self.content {
            // The same path as `tevscope render` (pipelines finished, opaque, or alpha
            // from coverage when transparent), with the view's camera; without the selection tint,
            // which is the viewer's, not the model's.
            let highlight = sv.scene.highlight();
            sv.scene.set_highlight(None);
            let image = sv.scene.render_to_image(ctx, width, height, transparent);
            sv.scene.set_highlight(highlight);
            return self.split_screenshot(ctx, image.map_err(|e| e.report())?, transparent);
        }
        let mut settings = *settings;
        let alpha = if transparent {
            settings.background = [0, 0, 0, 0];
            ImageAlpha::AsDrawn
        } else {
            ImageAlpha::Opaque
        };
        let read = |view: &Self| view.target.read_image(ctx, alpha).map_err(|e| e.report());
        if (width, height) == (self.target.width, self.target.height) {
            self.render(ctx, edit, &settings);
            return read(self);
        }
        // The preview at another size: drawn into a target of that size in place of the
        // view's own (the next frame draws the view's again).
        let mut target = OffscreenTarget::new(ctx, width, height).map_err(|e| e.report())?;
        std::mem::swap(&mut self.target, &mut target);
        self.render(ctx, edit, &settings);
        let image = read(self);
        std::mem::swap(&mut self.target, &mut target);
        image
    }

    /// [`Viewport::screenshot_image`] written to `path` as a PNG (temporary file, rename).
    pub fn save_screenshot(
        &mut self,
        ctx: &RenderContext,
        edit: Option<&MaterialEdit>,
        settings: &ViewSettings,
        transparent: bool,
        size: Option<(u32, u32)>,
        path: &std::path::Path,
    ) -> Result<RgbaImage, String> {
        if path.as_os_str().is_empty() {
            return Err("no screenshot path given".into());
        }
        let image = self.screenshot_image(ctx, edit, settings, transparent, size)?;
        image.save_png(path).map_err(|e| e.to_string())?;
        Ok(image)
    }

    /// A turntable of the model view: `frames` screenshots at `size`, the camera (from
    /// `start`) turned 360°/`frames` further each time, written as `<stem>_000.png`, … next to `path`.
    /// Returns the files written.
    pub fn save_turntable(
        &mut self,
        ctx: &RenderContext,
        transparent: bool,
        size: Option<(u32, u32)>,
        frames: u32,
        path: &std::path::Path,
        start: OrbitCamera,
    ) -> Result<Vec<std::path::PathBuf>, String> {
        if frames == 0 {
            return Err("a turntable needs at least one frame".into());
        }
        let stem = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .filter(|s| !s.is_empty())
            .ok_or("no turntable file name given")?;
        let dir = path.parent().unwrap_or(std::path::Path::new(""));
        if !matches!(self.content, ViewContent::Scene(_)) {
            return Err("turntables are of the model view (open a model)".into());
        }
        let set_camera = |view: &mut Self, camera| {
            if let ViewContent::Scene(sv) = &mut view.content {
                sv.scene.set_camera(camera);
            }
        };
        let written = (0..frames)
            .map(|i| {
                let mut camera = start;
                camera.yaw_degrees = start.yaw_degrees + 360.0 * i as f32 / frames as f32;
                set_camera(self, camera);
                let out = dir.join(format!("{stem}_{i:03}.png"));
                self.screenshot_image(ctx, None, &ViewSettings::default(), transparent, size)
                    .and_then(|image| image.save_png(&out).map_err(|e| e.to_string()))
                    .map_err(|e| format!("turntable frame {i}: {e}"))?;
                Ok(out)
            })
            .collect();
        set_camera(self, start);
        written
    }

    /// Reads one pixel of the target.
    pub fn read_pixel(&self, ctx: &RenderContext, x: u32, y: u32) -> Result<[u8; 4], String> {
        let bytes =
            crate::render::target::read_texture_region(ctx, &self.target.color, (x, y), (1, 1), 4)
                .map_err(|e| e.report())?;
        bytes
            .get(..4)
            .and_then(|b| b.try_into().ok())
            .ok_or_else(|| "short pixel readback".to_string())
    }

    /// The last frame's vertex-side uniforms (for the CPU trace).
    pub fn draw_uniforms(&self) -> DrawUniforms {
        match &self.content {
            ViewContent::Quad(q) => q.draw,
            ViewContent::Empty | ViewContent::Scene(_) => DrawUniforms::default(),
        }
    }
}
