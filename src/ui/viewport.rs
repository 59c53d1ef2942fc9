//! The central 3D view: an [`OffscreenTarget`] this module owns, shown in egui as a native
//! texture, and read back for screenshots and the pixel inspector.
//!
//! What is drawn into it is a [`ViewContent`]: today the material preview quad (also used
//! for TXTR previews through a pass-through material). The full model renderer
//! (`render::scene::Scene`) plugs in as another variant with an orbit camera; the target,
//! the egui texture, screenshots and readback stay the same.

use glam::Mat4;

use crate::gx::frame::fill_uv_matrices;
use crate::gx::uvanim::{UvAnimInputs, UvAnimOptions, uv_seconds};
use crate::gx::wgsl::vertex::DrawUniforms;
use crate::render::convert::{BlendConversion, CullMode, RenderState};
use crate::render::material::BoundTexture;
use crate::render::pipeline_cache::SelectedPath;
use crate::render::quad::QuadGeometry;
use crate::render::target::{COLOR_FORMAT, DEPTH_FORMAT};
use crate::render::texture::{GpuTexture, SamplerMode, Wrap};
use crate::render::{
    GpuMaterial, MaterialPipeline, OffscreenTarget, QuadRenderer, RenderContext, RgbaImage,
    TextureData,
};

use super::edit::MaterialEdit;

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

/// View settings the UI edits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewSettings {
    pub compositing: Compositing,
    pub sampling: Sampling,
    /// Clear colour (RGBA8); alpha 0 gives transparent screenshots.
    pub background: [u8; 4],
    /// Animation time in seconds.
    pub time: f64,
}

impl Default for ViewSettings {
    fn default() -> Self {
        Self {
            compositing: Compositing::ExactTev,
            sampling: Sampling::Nearest,
            background: [0, 0, 0, 0],
            time: 0.0,
        }
    }
}

/// The material preview quad and its GPU resources.
pub struct QuadView {
    quad: QuadRenderer,
    gpu: GpuMaterial,
    pipeline: MaterialPipeline,
    textures: Vec<Option<TextureData>>,
    uploaded: Vec<Option<GpuTexture>>,
    sampling: Sampling,
    revision: u64,
    /// Vertex-side uniforms of the last frame (the inspector's CPU trace uses them).
    pub draw: DrawUniforms,
}

impl QuadView {
    fn bound(&self) -> Vec<Option<BoundTexture>> {
        self.uploaded
            .iter()
            .zip(&self.textures)
            .map(|(gpu, data)| {
                let gpu = gpu.as_ref()?;
                let wrap = Wrap::Repeat;
                let sampler = match self.sampling {
                    Sampling::Nearest => SamplerMode::Nearest { wrap },
                    Sampling::Gx => SamplerMode::Gx {
                        wrap,
                        mip_count: data.as_ref().map_or(1, |d| d.levels.len() as u32),
                    },
                };
                Some(BoundTexture {
                    texture: gpu.clone(),
                    sampler,
                })
            })
            .collect()
    }

    pub fn new(
        ctx: &RenderContext,
        edit: &MaterialEdit,
        textures: &[Option<TextureData>],
        sampling: Sampling,
    ) -> Result<Self, String> {
        let quad = QuadRenderer::new(ctx, &QuadGeometry::default(), &DrawUniforms::default());
        let uploaded = textures
            .iter()
            .enumerate()
            .map(|(k, t)| {
                t.as_ref()
                    .map(|t| GpuTexture::upload(&ctx.device, &ctx.queue, t, &format!("map {k}")))
                    .transpose()
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?;
        let mut view = Self {
            gpu: GpuMaterial::with_program(
                ctx,
                &edit.material,
                edit.program.clone(),
                &quad.draw_uniforms,
                &[],
            ),
            quad,
            pipeline: MaterialPipeline::default(),
            textures: textures.to_vec(),
            uploaded,
            sampling,
            revision: edit.revision,
            draw: DrawUniforms::default(),
        };
        view.rebind(ctx, edit);
        Ok(view)
    }

    fn rebind(&mut self, ctx: &RenderContext, edit: &MaterialEdit) {
        let bound = self.bound();
        self.gpu = GpuMaterial::with_program(
            ctx,
            &edit.material,
            edit.program.clone(),
            &self.quad.draw_uniforms,
            &bound,
        );
        self.revision = edit.revision;
    }
}

/// What the viewport draws. New kinds of content (the model scene) are new variants.
pub enum ViewContent {
    Empty,
    Quad(Box<QuadView>),
}

/// Per-frame status shown in the UI.
#[derive(Debug, Clone, Default)]
pub struct ViewStatus {
    /// Which pipeline drew the last frame.
    pub path: Option<SelectedPath>,
    /// The pipeline error of the current structure (the last good pipeline keeps drawing).
    pub pipeline_error: Option<String>,
    /// A failure that stopped drawing entirely.
    pub error: Option<String>,
}

/// The offscreen target, its egui texture and the content drawn into it.
pub struct Viewport {
    pub target: OffscreenTarget,
    pub texture_id: egui::TextureId,
    pub content: ViewContent,
    pub status: ViewStatus,
}

impl Viewport {
    pub fn new(
        ctx: &RenderContext,
        egui_renderer: &mut egui_wgpu::Renderer,
    ) -> Result<Self, String> {
        let target = OffscreenTarget::new(ctx, 256, 256).map_err(|e| e.to_string())?;
        let texture_id = egui_renderer.register_native_texture(
            &ctx.device,
            &target.color_view,
            wgpu::FilterMode::Nearest,
        );
        Ok(Self {
            target,
            texture_id,
            content: ViewContent::Empty,
            status: ViewStatus::default(),
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
                egui_renderer.update_egui_texture_from_wgpu_texture(
                    &ctx.device,
                    &self.target.color_view,
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
        self.status = ViewStatus::default();
    }

    /// Draws one frame into the target with the current edit and settings.
    pub fn render(
        &mut self,
        ctx: &RenderContext,
        edit: Option<&MaterialEdit>,
        settings: &ViewSettings,
    ) {
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
                        .update_program(ctx, &edit.material, edit.program.clone());
                    q.revision = edit.revision;
                }
                // UV animations: the quad is the model (identity), camera at the origin.
                let seconds = uv_seconds(settings.time, &UvAnimOptions::default());
                let inputs = UvAnimInputs::new(seconds, Mat4::IDENTITY, Mat4::IDENTITY);
                let mut draw = DrawUniforms::default();
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
                match q.pipeline.select(&ctx.pipelines, &spec, &uber) {
                    Ok(selected) => {
                        self.status.path = Some(selected.path);
                        self.status.pipeline_error =
                            q.pipeline.last_error.as_ref().map(|e| e.to_string());
                        self.status.error = None;
                        let mut pass = self.target.begin_pass(&mut encoder, Some(clear));
                        q.quad.draw(&mut pass, &q.gpu, &selected.pipeline);
                    }
                    Err(e) => {
                        self.status.path = None;
                        self.status.error = Some(e.to_string());
                        let _ = self.target.begin_pass(&mut encoder, Some(clear));
                    }
                }
            }
            _ => {
                let _ = self.target.begin_pass(&mut encoder, Some(clear));
            }
        }
        ctx.queue.submit([encoder.finish()]);
    }

    /// Whether the specialized pipeline is still compiling (keep redrawing until it is).
    pub fn pipeline_pending(&self) -> bool {
        self.status.path == Some(SelectedPath::Uber)
    }

    /// Reads the whole target back (exact RGBA8).
    pub fn read(&self, ctx: &RenderContext) -> Result<RgbaImage, String> {
        self.target.read_rgba(ctx).map_err(|e| e.to_string())
    }

    /// Reads one pixel of the target.
    pub fn read_pixel(&self, ctx: &RenderContext, x: u32, y: u32) -> Result<[u8; 4], String> {
        if x >= self.target.width || y >= self.target.height {
            return Err(format!("pixel ({x}, {y}) outside the target"));
        }
        Ok(self.read(ctx)?.pixel(x, y))
    }

    /// The last frame's vertex-side uniforms (for the CPU trace).
    pub fn draw_uniforms(&self) -> DrawUniforms {
        match &self.content {
            ViewContent::Quad(q) => q.draw,
            ViewContent::Empty => DrawUniforms::default(),
        }
    }
}
