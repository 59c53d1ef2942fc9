//! [`Scene`]: one CMDL (optionally skinned and animated) drawn as Prime draws it.
//!
//! Built once from a [`CpuModel`] it shares (never copies): one vertex and index buffer
//! for all surfaces, one skin-influence buffer for skinned models, the textures of the
//! active material set (mipped, GX sampling of `gx.md` §14), and per material a
//! [`GpuMaterial`] with its own `DrawUniforms` buffer. Each [`Scene::render`] does one CPU
//! update ([`FrameUpdate`]: UV-animation matrices, lights, transforms; the pose → bone
//! palette), uploads only the uniform blocks that changed, records opaque surfaces in the
//! order of the draw plan ([`super::plan`]: file order, except that opaque surfaces whose
//! boxes are apart join the run of their material, so each run is one draw with the same
//! pixels) then transparent (flag 0x10) ones back to front, and submits once. The opaque
//! draws are kept as a render bundle, recorded again only when the plan, visibility,
//! pipelines or bound resources change (values live in uniform buffers).
//!
//! Material edits are overrides next to the shared model ([`Scene::set_material`]): a
//! value edit rewrites that material's uniforms only; a structural edit asks for that
//! material's new pipeline; a texture-binding edit ([`Scene::set_material_textures`])
//! makes that material's bind group again.
//!
//! Typical use (the CLI, the tests and the viewer):
//!
//! ```no_run
//! # fn demo(ctx: &tevscope::render::RenderContext, model: tevscope::model::CpuModel) -> Result<(), tevscope::render::RenderError> {
//! use tevscope::render::scene::Scene;
//! let mut scene = Scene::new(ctx, model)?;
//! scene.set_time(1.5);
//! let image = scene.render_to_image(ctx, 640, 480, false)?;
//! # let _ = image; Ok(()) }
//! ```

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use glam::{Mat4, Vec3};
use wgpu::util::DeviceExt as _;

use super::RenderError;
use super::context::RenderContext;
use super::convert::{BlendConversion, CullMode, RenderState};
use super::debug_pass::{WireframePass, overdraw_state};
use super::material::{BoundTexture, GpuMaterial};
use super::pick::{PickHit, PickPass, PickUniforms, TintPass};
use super::pipeline_cache::{
    MaterialPipeline, PipelineKey, Selected, SelectedPath, ShaderPath, SkinVertex,
};
use super::plan::{DrawPlan, FrontToBack, PlanClass, PlanSurface, draw_plan, front_to_back};
use super::shader_cache::ShaderId;
use super::target::{COLOR_FORMAT, DEPTH_FORMAT, ImageAlpha, OffscreenTarget, RgbaImage};
use super::texture::{GpuTexture, SamplerMode, Wrap};
use crate::anim::{ClipBinding, GpuBoneMatrices, NormalMode, Pose, PoseOptions};
use crate::camera::{CameraView, OrbitCamera};
use crate::geom::Aabb;
use crate::gx::frame::{FrameOptions, FrameUpdate, ModelId};
use crate::gx::lights::{LightPreset, LightSet};
use crate::gx::lines::{LINE_CORNERS, LINE_QUAD};
use crate::gx::tev::TevOptions;
use crate::gx::types::Material;
use crate::gx::wgsl::debug::DebugView;
use crate::gx::wgsl::interface::{GROUP_DESTINATION, GROUP_SKIN, GpuLineVertex, GpuVertex};
use crate::gx::wgsl::stage_view::StageView;
use crate::gx::wgsl::vertex::{DrawUniforms, MAX_SKIN_BONES, raster_viewport};
use crate::model::{CpuMaterial, CpuModel, CpuSkin, TextureData};

/// Material flag: an occluder surface (not drawn by default; `formats.md` §3).
pub const FLAG_OCCLUDER: u32 = 0x200;

/// Options fixed when a scene is built (change them with [`Scene::rebuild_materials`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SceneOptions {
    pub material_set: usize,
    pub tev: TevOptions,
    pub frame: FrameOptions,
    pub blend: BlendConversion,
    pub cull: CullMode,
    /// Draw occluder (0x200) surfaces too.
    pub show_occluders: bool,
    pub pose: PoseOptions,
    /// Specialized pipelines (the ubershader draws while they compile), or the
    /// ubershader only (to compare the two paths or time the fallback).
    pub shader: ShaderPath,
    /// Textures the assets lack draw as a magenta/black checker (the viewer) instead of
    /// the white placeholder (`tevscope render`, so its pixels stay as they were).
    pub missing_checker: bool,
    /// Materials drawn as a stage view (`render --stage K`); the others draw as usual.
    pub stage_view: Option<StageView>,
    /// Filter textures with the host's sampler ([`SamplerMode::GxHost`]: fewer texel reads,
    /// up to ±1 LSB and other mips) instead of GX's rule in the shader (default).
    pub host_filtering: bool,
}

impl SceneOptions {
    /// The TEV options material `index` draws with: `tev`, with its stage view if any.
    pub fn tev_for(&self, index: usize) -> TevOptions {
        TevOptions {
            stage_view: self.stage_view.and_then(|v| v.stage_of(index)),
            ..self.tev
        }
    }
}

impl Default for SceneOptions {
    fn default() -> Self {
        Self {
            material_set: 0,
            tev: TevOptions::default(),
            frame: FrameOptions::default(),
            blend: BlendConversion::default(),
            cull: CullMode::Prime,
            show_occluders: false,
            pose: PoseOptions::default(),
            shader: ShaderPath::Specialized,
            missing_checker: false,
            stage_view: None,
            host_filtering: false,
        }
    }
}

/// How [`Scene::render`] starts the pass.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ClearMode {
    /// Clear colour (RGBA 0…1) and depth.
    Color([f64; 4]),
    /// Clear to transparent black (screenshots with alpha) and depth.
    Transparent,
    /// Keep what the target holds (draw over it).
    Load,
}

impl ClearMode {
    /// The viewer's default background (dark grey).
    pub const BACKGROUND: ClearMode = ClearMode::Color([0.16, 0.16, 0.18, 1.0]);
}

/// What one frame cost and which shaders drew it.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FrameStats {
    /// CPU time of the whole frame before submission: the update, draw lists and command
    /// recording (wgpu's own per-encoder and per-command costs included).
    pub cpu: Duration,
    /// The part of `cpu` spent on the per-frame uniform update: UV animations, lights,
    /// transforms and channel registers evaluated for every block ([`FrameUpdate`]) and
    /// the changed blocks staged for upload.
    pub update: Duration,
    pub draws: usize,
    pub uniform_blocks_uploaded: usize,
    /// Materials drawn with the ubershader while their pipeline compiles.
    pub uber_draws: usize,
    /// Copies of the target made for shaders that blend themselves.
    pub destination_copies: usize,
    /// Times a draw bound another material than the one before it: state the driver
    /// validates again (on lavapipe, the largest per-draw cost of a frame).
    pub material_binds: usize,
}

/// One surface's draw.
#[derive(Debug, Clone)]
struct SurfaceDraw {
    material: usize,
    first_index: u32,
    index_count: u32,
    /// GX lines and line strips (as line lists), drawn with a line pipeline.
    first_line_index: u32,
    line_index_count: u32,
    /// Where its triangles start in [`Scene::file_triangles`].
    file_first: u32,
    /// Bounds of its vertices (model space), for the draw plan.
    bounds: Aabb,
    /// Surface centre (model space), for sorting.
    center: Vec3,
    /// Left out of drawing and picking ([`Scene::set_hidden_surfaces`]).
    hidden: bool,
}

impl SurfaceDraw {
    /// Whether its triangles are drawn (and can be picked or tinted): visible, with a
    /// usable material, occluders only when shown.
    fn draws_triangles(&self, slots: &[Option<MaterialSlot>], show_occluders: bool) -> bool {
        self.index_count > 0 && self.shown(slots, show_occluders)
    }

    /// Whether its GX lines are drawn (and can be picked), as [`Self::draws_triangles`].
    fn draws_lines(&self, slots: &[Option<MaterialSlot>], show_occluders: bool) -> bool {
        self.line_index_count > 0 && self.shown(slots, show_occluders)
    }

    fn shown(&self, slots: &[Option<MaterialSlot>], show_occluders: bool) -> bool {
        !self.hidden
            && matches!(slots.get(self.material), Some(Some(slot))
                if show_occluders || !slot.occluder)
    }
}

struct MaterialSlot {
    gpu: GpuMaterial,
    /// Its `DrawUniforms` block (shared by materials with the same vertex-side inputs),
    /// at `block × uniform_stride` in the scene's one uniform buffer.
    block: usize,
    pipeline: MaterialPipeline,
    keys: (PipelineKey, PipelineKey),
    selected: Option<Selected>,
    /// The same material on a line-list pipeline (surfaces with GX lines only).
    line_keys: (PipelineKey, PipelineKey),
    line_pipeline: MaterialPipeline,
    line_selected: Option<Selected>,
    transparent: bool,
    occluder: bool,
}

/// What drawing a material reads each frame, kept apart from its slot (kilobytes of keys
/// and programs): a frame's draw loops touch these few words per material, on a cache the
/// GPU's threads emptied since the last frame. Derived from the slots again whenever
/// `Scene::bundle_epoch` moves on (pipelines, bind groups, plan).
struct DrawState {
    triangles: Option<PassState>,
    /// The same material on its GX-lines pipeline.
    lines: Option<PassState>,
    transparent: bool,
    occluder: bool,
}

/// One pipeline of a material and the bind group it draws with ([`DrawState`]).
struct PassState {
    pipeline: Arc<wgpu::RenderPipeline>,
    group: wgpu::BindGroup,
    /// The ubershader stands in (the specialized pipeline is still compiling).
    uber: bool,
    /// Its shader blends itself: it reads a copy of the target as it is before the draw.
    reads: bool,
}

impl DrawState {
    fn of(slot: &MaterialSlot) -> Self {
        let pass = |selected: &Option<Selected>, keys: &(PipelineKey, PipelineKey)| {
            selected.as_ref().map(|s| {
                let specialized = s.path == SelectedPath::Specialized;
                PassState {
                    pipeline: s.pipeline.clone(),
                    group: slot.gpu.group.clone(),
                    uber: !specialized,
                    reads: specialized && keys.0.shader.reads_destination(),
                }
            })
        };
        Self {
            triangles: pass(&slot.selected, &slot.keys),
            lines: pass(&slot.line_selected, &slot.line_keys),
            transparent: slot.transparent,
            occluder: slot.occluder,
        }
    }
}

/// One draw of a frame, in order.
struct Draw<'a> {
    material: usize,
    state: &'a PassState,
    /// The GX-lines pipeline of the material.
    lines: bool,
    range: std::ops::Range<u32>,
    /// The box around its surfaces (model space), for the pixels it may cover.
    bounds: Aabb,
}

impl Draw<'_> {
    /// Shaders that blend themselves read a copy of the target as it is before their
    /// draw: the pass ends, the target is copied, a new pass loads it.
    fn reads_destination(&self) -> bool {
        self.state.reads
    }
}

/// The scene's vertex buffer and, for a model with GX lines, the line corners' second
/// buffer (`GpuLineVertex`, one per vertex of the first).
type Vertices<'a> = (&'a wgpu::Buffer, Option<&'a wgpu::Buffer>);

/// Binds the scene's index and vertex buffers (and the skin's influences and palette, or
/// the line corners' input).
fn bind_geometry<'a>(
    encoder: &mut impl wgpu::util::RenderEncoder<'a>,
    index_buffer: &'a wgpu::Buffer,
    (vertex_buffer, line_corners): Vertices<'a>,
    skin: Option<&'a SkinGpu>,
) {
    encoder.set_index_buffer(index_buffer.slice(..), wgpu::IndexFormat::Uint32);
    encoder.set_vertex_buffer(0, Some(vertex_buffer.slice(..)));
    if let Some(skin) = skin {
        encoder.set_vertex_buffer(1, Some(skin.vertex_buffer.slice(..)));
        encoder.set_bind_group(GROUP_SKIN, Some(&skin.bind_group), &[]);
    } else if let Some(corners) = line_corners {
        encoder.set_vertex_buffer(1, Some(corners.slice(..)));
    }
}

/// What [`draw_list`] recorded (for [`FrameStats`]).
#[derive(Debug, Clone, Copy, Default)]
struct DrawCounts {
    draws: usize,
    /// Draws with the ubershader.
    uber: usize,
    /// Times a draw bound another material than the one before it.
    binds: usize,
}

impl std::ops::Add for DrawCounts {
    type Output = Self;

    fn add(self, o: Self) -> Self {
        Self {
            draws: self.draws + o.draws,
            uber: self.uber + o.uber,
            binds: self.binds + o.binds,
        }
    }
}

/// Records `draws` (none reading the destination), setting pipelines and material bind
/// groups only when they change.
fn draw_list<'a>(
    encoder: &mut impl wgpu::util::RenderEncoder<'a>,
    draws: &[Draw<'a>],
) -> DrawCounts {
    let mut counts = DrawCounts {
        draws: draws.len(),
        ..DrawCounts::default()
    };
    let mut bound: Option<(usize, bool)> = None;
    let mut bound_pipeline: Option<*const wgpu::RenderPipeline> = None;
    for d in draws {
        if bound != Some((d.material, d.lines)) {
            let pipeline = Arc::as_ptr(&d.state.pipeline);
            if bound_pipeline != Some(pipeline) {
                encoder.set_pipeline(&d.state.pipeline);
                bound_pipeline = Some(pipeline);
            }
            GpuMaterial::bind_group_to(&d.state.group, encoder);
            bound = Some((d.material, d.lines));
            counts.binds += 1;
        }
        counts.uber += usize::from(d.state.uber);
        encoder.draw_indexed(d.range.clone(), 0, 0..1);
    }
    counts
}

/// Pixels per side of the cells [`Clustering`] tracks the screen in.
const CLUSTER_CELL: u32 = 16;

/// A transparent surface as a frame sorts and clusters it, what it reads kept together (a
/// frame runs on a cold cache: lavapipe's threads evict it between frames).
#[derive(Debug, Clone)]
struct TransparentSurface {
    /// A copy of its [`Scene::surfaces`] entry: back to front by its centre's depth, the
    /// pixels its box covers, the index ranges it draws.
    draw: SurfaceDraw,
    /// The material whose draws it may join ([`Clustering`]); None when it joins none:
    /// GX lines (which reach past the box by their width), second draws (drawn right
    /// after the first) and shaders reading the target.
    bucket: Option<usize>,
    lines: bool,
    /// Its material's shader reads the target (whichever pipeline draws it now).
    reads: bool,
}

/// Draws of one bucket that [`Clustering::order`] puts side by side.
#[derive(Debug, Clone, PartialEq)]
struct Cluster {
    /// Their places in the order.
    span: std::ops::Range<usize>,
    /// No two of them share a cell: any order of them draws the same pixels.
    apart: bool,
}

/// An order of back-to-front draws that draws exactly the same pixels with the draws of
/// one bucket (draws sharing all state) next to each other where possible: each draw
/// joins the last cluster of its bucket when none of the clusters after that one covers
/// any of its pixels (it moves before them), else starts a cluster. Draws whose pixels
/// meet keep their order, so blending and depth see what they saw. The screen is tracked
/// in cells of [`CLUSTER_CELL`] pixels holding the last cluster that covers them: a draw
/// is checked against the cells it covers, not against every cluster. Keeps its memory
/// from frame to frame.
#[derive(Debug, Default)]
struct Clustering {
    /// Input: per draw, its bucket (None: it joins no other) and the pixels it may cover,
    /// in the caller's order (the order to cluster is given to [`Clustering::order`]).
    draws: Vec<(Option<usize>, Rect)>,
    /// Output: the draws' places in clustered order, and the clusters over it.
    places: Vec<usize>,
    clusters: Vec<Cluster>,
    /// Per cell, the last cluster covering it plus one, plus `base` (at most `base`: no
    /// cluster of this frame), so that no frame clears the cells.
    latest: Vec<u32>,
    /// Cluster numbers of earlier frames lie at or below this.
    base: u32,
    /// Per bucket, its last cluster plus one (0: none).
    last: Vec<u32>,
    /// Per draw, the next draw of its cluster.
    next: Vec<usize>,
    /// First draw, last draw, apart.
    open: Vec<(usize, usize, bool)>,
    /// The caller's keys being reordered.
    reordered: Vec<u64>,
}

impl Clustering {
    /// Orders the draws of [`Clustering::draws`] taken in `sequence` (back to front) for a
    /// `width` × `height` target into [`Clustering::places`] (places in `sequence`) and
    /// [`Clustering::clusters`].
    fn order(
        &mut self,
        sequence: impl ExactSizeIterator<Item = usize>,
        (width, height): (u32, u32),
    ) {
        let Self {
            draws,
            places,
            clusters,
            latest,
            base,
            last,
            next,
            open,
            ..
        } = self;
        let cols = width.div_ceil(CLUSTER_CELL).max(1) as usize;
        let rows = height.div_ceil(CLUSTER_CELL).max(1) as usize;
        let fresh = u32::try_from(sequence.len() + 1).ok();
        if latest.len() != cols * rows || fresh.is_none_or(|n| base.checked_add(n).is_none()) {
            latest.clear();
            latest.resize(cols * rows, 0);
            *base = 0;
        }
        last.clear();
        let buckets = draws.iter().filter_map(|d| d.0);
        last.resize(buckets.max().map_or(0, |b| b + 1), 0);
        next.clear();
        next.resize(sequence.len(), usize::MAX);
        open.clear();
        for (i, d) in sequence.enumerate() {
            let (bucket, rect) = &draws[d];
            // The cells the draw covers (none when it covers no pixel).
            let cell = |v: u32, n: usize| ((v / CLUSTER_CELL) as usize).min(n - 1);
            let (xs, ys) = match rect.is_empty() {
                true => (1..1, 1..1),
                false => (
                    cell(rect.x0, cols)..cell(rect.x1 - 1, cols) + 1,
                    cell(rect.y0, rows)..cell(rect.y1 - 1, rows) + 1,
                ),
            };
            // The latest cluster covering any of its cells, plus one.
            let reached = ys
                .clone()
                .map(|y| {
                    let row = &latest[y * cols..][xs.clone()];
                    row.iter().copied().max().unwrap_or(0)
                })
                .max()
                .unwrap_or(0)
                .saturating_sub(*base);
            let joined = bucket.map_or(0, |b| last[b]);
            let g = if joined != 0 && reached <= joined {
                let c = &mut open[joined as usize - 1];
                next[c.1] = i;
                c.1 = i;
                c.2 &= reached != joined;
                joined
            } else {
                open.push((i, i, true));
                let g = open.len() as u32;
                if let Some(b) = *bucket {
                    last[b] = g;
                }
                g
            };
            // No cell it covers holds a later cluster than `g` (it joined a cluster no later
            // one meets there, or started the latest).
            for y in ys {
                latest[y * cols..][xs.clone()].fill(*base + g);
            }
        }
        *base += open.len() as u32;
        places.clear();
        clusters.clear();
        for &(first, end, apart) in open.iter() {
            let start = places.len();
            let mut i = first;
            places.push(i);
            while i != end {
                i = next[i];
                places.push(i);
            }
            clusters.push(Cluster {
                span: start..places.len(),
                apart,
            });
        }
    }
}

/// The opaque draws of a frame recorded once and replayed until `Scene::bundle_epoch`
/// moves on.
struct CachedBundle {
    epoch: u64,
    bundle: wgpu::RenderBundle,
    counts: DrawCounts,
}

/// The byte span of the uniform buffer holding the blocks (`stride` apart) that
/// [`FrameUpdate`] found changed (it compares them byte-wise): one write covers them all.
fn changed_span(stride: usize, changed: &[usize]) -> Option<std::ops::Range<usize>> {
    let first = changed.iter().min()?;
    let last = changed.iter().max()?;
    Some(first * stride..last * stride + std::mem::size_of::<DrawUniforms>())
}

/// A sort key ordering surfaces by view-space depth `z` (farthest first: most negative),
/// then by `surface` index, so equal depths keep surface order. One integer compare per
/// step, and no scratch allocation as a stable sort would make.
fn depth_order_key(z: f32, surface: usize) -> u64 {
    // The bits of an f32 reordered so unsigned order is `f32::total_cmp`'s.
    let bits = z.to_bits();
    let ordered = if bits >> 31 == 1 {
        !bits
    } else {
        bits | 0x8000_0000
    };
    (u64::from(ordered) << 32) | surface as u64
}

/// Sorts `keys` ascending by insertion, which costs one compare per key when they are
/// nearly in order already (a camera that moved a little since the last sort); past a few
/// moves per key, by `sort_unstable`.
fn sort_nearly_sorted(keys: &mut [u64]) {
    let budget = 8 * keys.len();
    let mut moves = 0;
    for i in 1..keys.len() {
        let key = keys[i];
        let mut j = i;
        while j > 0 && keys[j - 1] > key {
            keys[j] = keys[j - 1];
            j -= 1;
        }
        keys[j] = key;
        moves += i - j;
        if moves > budget {
            keys.sort_unstable();
            return;
        }
    }
}

/// Appends the draws of `surfaces`, in order (occluders left out unless shown), each
/// followed by its material's second draw (`second_slot`, per material), which blends over
/// the pixels its surface just drew. A surface laid out right after the last drawn one of
/// its slot extends that draw (the same primitives in the same order); not for shaders
/// reading the target between draws.
fn push_surface_draws<'a>(
    draws: &mut Vec<Draw<'a>>,
    states: &'a [Option<DrawState>],
    second_slot: &[Option<usize>],
    show_occluders: bool,
    surfaces: impl Iterator<Item = &'a SurfaceDraw>,
) {
    for s in surfaces {
        let second = second_slot.get(s.material).copied().flatten();
        for index in std::iter::once(s.material).chain(second) {
            let Some(Some(state)) = states.get(index) else {
                continue;
            };
            if state.occluder && !show_occluders {
                continue;
            }
            push_slot_draws(draws, index, state, s);
        }
    }
}

/// Appends surface `s` drawn with slot `index` (its triangles, then its GX lines).
fn push_slot_draws<'a>(
    draws: &mut Vec<Draw<'a>>,
    index: usize,
    state: &'a DrawState,
    s: &'a SurfaceDraw,
) {
    for (lines, pass, range) in [
        (
            false,
            &state.triangles,
            s.first_index..s.first_index + s.index_count,
        ),
        (
            true,
            &state.lines,
            s.first_line_index..s.first_line_index + s.line_index_count,
        ),
    ] {
        let Some(pass) = pass else { continue };
        if range.is_empty() {
            continue;
        }
        let draw = Draw {
            material: index,
            state: pass,
            lines,
            range,
            bounds: s.bounds,
        };
        if let Some(last) = draws.last_mut()
            && last.material == draw.material
            && last.lines == lines
            && last.range.end == draw.range.start
            && std::ptr::eq(last.state, pass)
            && !pass.reads
        {
            last.range.end = draw.range.end;
            last.bounds = last.bounds.union(&draw.bounds);
            continue;
        }
        draws.push(draw);
    }
}

/// The copy of the target that shaders blending themselves read (group 2), sized to the
/// last target drawn.
struct Destination {
    width: u32,
    height: u32,
    texture: wgpu::Texture,
    bind_group: wgpu::BindGroup,
}

impl Destination {
    fn new(ctx: &RenderContext, width: u32, height: u32) -> Self {
        let texture = ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("blend destination copy"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: COLOR_FORMAT,
            usage: wgpu::TextureUsages::COPY_DST | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("blend destination"),
            layout: &ctx.layouts.destination_group,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            }],
        });
        Self {
            width,
            height,
            texture,
            bind_group,
        }
    }

    /// Copies `rect` of the target (pixels) into the same place of the copy.
    fn copy_from(&self, encoder: &mut wgpu::CommandEncoder, target: &OffscreenTarget, rect: Rect) {
        let at = |texture| wgpu::TexelCopyTextureInfo {
            texture,
            mip_level: 0,
            origin: wgpu::Origin3d {
                x: rect.x0,
                y: rect.y0,
                z: 0,
            },
            aspect: wgpu::TextureAspect::All,
        };
        encoder.copy_texture_to_texture(
            at(&target.color),
            at(&self.texture),
            wgpu::Extent3d {
                width: rect.x1 - rect.x0,
                height: rect.y1 - rect.y0,
                depth_or_array_layers: 1,
            },
        );
    }
}

/// A pixel rectangle of the target, `x0..x1` × `y0..y1`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rect {
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
}

impl Rect {
    fn full(width: u32, height: u32) -> Self {
        Self {
            x0: 0,
            y0: 0,
            x1: width,
            y1: height,
        }
    }

    fn is_empty(&self) -> bool {
        self.x0 >= self.x1 || self.y0 >= self.y1
    }

    /// Whether they share a pixel (an empty one shares none).
    fn overlaps(&self, other: &Rect) -> bool {
        !self.is_empty()
            && !other.is_empty()
            && self.x0 < other.x1
            && other.x0 < self.x1
            && self.y0 < other.y1
            && other.y0 < self.y1
    }

    /// The pixels `bounds` (model space) can cover in a `width` × `height` target seen
    /// through `clip_from_model`, a pixel wider on each side (rasterization rules, lines);
    /// the whole target when a corner lies at or behind the eye.
    fn covering(bounds: &Aabb, clip_from_model: &Mat4, width: u32, height: u32) -> Self {
        use glam::Vec4;
        // The corners in clip space, four at a time (x, y and w of each in a lane): the
        // centre's image plus or minus each half-axis's.
        let (min, max) = (Vec3::from(bounds.min), Vec3::from(bounds.max));
        let half = (max - min) * 0.5;
        let centre = *clip_from_model * ((min + max) * 0.5).extend(1.0);
        let [ax, ay, az] = [
            clip_from_model.x_axis * half.x,
            clip_from_model.y_axis * half.y,
            clip_from_model.z_axis * half.z,
        ];
        let (sx, sy) = (
            Vec4::new(-1.0, 1.0, -1.0, 1.0),
            Vec4::new(-1.0, -1.0, 1.0, 1.0),
        );
        let (mut lo, mut hi) = (
            glam::Vec2::splat(f32::INFINITY),
            glam::Vec2::splat(f32::NEG_INFINITY),
        );
        for sz in [-1.0, 1.0] {
            let lanes = |c: f32, a: f32, b: f32, z: f32| Vec4::splat(c + sz * z) + sx * a + sy * b;
            let x = lanes(centre.x, ax.x, ay.x, az.x);
            let y = lanes(centre.y, ax.y, ay.y, az.y);
            let w = lanes(centre.w, ax.w, ay.w, az.w);
            // At or behind the eye (or not a number): anywhere.
            if !w.cmpgt(Vec4::splat(1e-6)).all() {
                return Self::full(width, height);
            }
            let inv = Vec4::ONE / w;
            let (nx, ny) = (x * inv, y * inv);
            lo = lo.min(glam::Vec2::new(nx.min_element(), ny.min_element()));
            hi = hi.max(glam::Vec2::new(nx.max_element(), ny.max_element()));
        }
        let (w, h) = (width as f32, height as f32);
        // NDC y points up, pixel rows down.
        let px = |x: f32| ((x * 0.5 + 0.5) * w).clamp(0.0, w);
        let py = |y: f32| ((0.5 - y * 0.5) * h).clamp(0.0, h);
        // Both are at least 0 (NaN converts to 0): truncation floors, and one more where
        // it cut something off ceils (`f32::floor` and `ceil` are calls into libm on
        // x86-64 without SSE4.1).
        let floor = |v: f32| v as u32;
        let ceil = |v: f32| {
            let t = v as u32;
            t + u32::from((t as f32) < v)
        };
        Self {
            x0: floor(px(lo.x)).saturating_sub(1),
            x1: (ceil(px(hi.x)) + 1).min(width),
            y0: floor(py(hi.y)).saturating_sub(1),
            y1: (ceil(py(lo.y)) + 1).min(height),
        }
    }
}

/// Where the pass breaks for destination copies: for each group of draws (a range of
/// `draws`), the rectangles copied before it. A draw reading the destination joins the
/// current group when its pixels meet none drawn since the group's copy (the copy still
/// holds what it reads); then its rectangle is copied at the start of the group. `rects`
/// are the draws' pixels (None: unknown, the whole target).
fn copy_groups(draws: &[Draw<'_>], rects: &[Rect]) -> Vec<(std::ops::Range<usize>, Vec<Rect>)> {
    let mut groups: Vec<(std::ops::Range<usize>, Vec<Rect>)> = Vec::new();
    let mut since_copy: Vec<Rect> = Vec::new();
    for (i, (d, r)) in draws.iter().zip(rects).enumerate() {
        let reads = d.reads_destination() && !r.is_empty();
        let fresh = !groups.is_empty() && !since_copy.iter().any(|s| s.overlaps(r));
        if reads && !fresh {
            groups.push((i..i, Vec::new()));
            since_copy.clear();
        }
        if groups.is_empty() {
            groups.push((i..i, Vec::new()));
        }
        let (range, copies) = groups.last_mut().expect("a group");
        range.end = i + 1;
        if reads {
            copies.push(*r);
        }
        since_copy.push(*r);
    }
    groups
}

struct SkinGpu {
    vertex_buffer: wgpu::Buffer,
    palette_buffer: wgpu::Buffer,
    bind_group: wgpu::BindGroup,
    palette_written: Vec<GpuBoneMatrices>,
    palette_scratch: Vec<GpuBoneMatrices>,
    pose: Pose,
    bindings: Vec<Option<ClipBinding>>,
}

/// A model ready to draw; see the module docs.
pub struct Scene {
    /// What it draws, shared with whoever loaded it (the viewer's document, the CLI).
    cpu: Arc<CpuModel>,
    /// Edited materials by (set, index), drawn instead of the model's.
    overrides: HashMap<(usize, usize), Material>,
    /// Edited texture bindings by (set, index): TXTR IDs per map, drawn instead of the
    /// model's (a texture-binding edit rebinds one material; the model is never copied).
    texture_overrides: HashMap<(usize, usize), Vec<Option<u64>>>,
    /// Materials of the active set whose texture bindings changed since the last frame.
    rebind: Vec<usize>,
    options: SceneOptions,
    /// The camera's view this frame (the camera itself is the core's, `session::camera`).
    view: CameraView,
    lights: LightSet,
    time: f64,
    animation: Option<usize>,
    aabb: Aabb,
    vertex_buffer: wgpu::Buffer,
    /// With GX lines drawn as quads: vertex buffer 1 of their draws (`GpuLineVertex`,
    /// one per vertex; the corners follow the model's vertices).
    line_corners: Option<wgpu::Buffer>,
    index_buffer: Option<wgpu::Buffer>,
    /// Every surface's triangles (absolute indices) in file order, and every surface's
    /// line segments: the index buffer holds the triangles in plan order, then the lines.
    file_triangles: Vec<u32>,
    lines: Vec<u32>,
    /// The draw plan ([`super::plan`]): surfaces in plan order, grouped into runs.
    plan: DrawPlan,
    /// The plan's runs in this frame's drawing order (opaque runs nearest first,
    /// [`front_to_back`]), for the camera in `sorted_for`.
    run_order: Vec<usize>,
    /// Eye and view direction `run_order` was sorted for (None: sort again).
    sorted_for: Option<(Vec3, Vec3)>,
    run_scratch: Vec<usize>,
    sort_scratch: FrontToBack,
    /// The material classes the plan was made for (None: not made yet).
    plan_classes: Option<Vec<PlanClass>>,
    /// Materials changed: see whether the plan still holds before the next draw.
    plan_dirty: bool,
    /// False: every surface keeps file order ([`Scene::set_draw_plan`]).
    plan_enabled: bool,
    /// The opaque draws of the last frames as a render bundle, re-recorded when they
    /// change (plan, visibility, pipelines) or resources they bind are replaced
    /// (`bundle_epoch` moves on: index buffer, material bind groups, uniform buffer).
    bundle: Option<CachedBundle>,
    bundle_epoch: u64,
    surfaces: Vec<SurfaceDraw>,
    /// The active set's materials by index, then the second draws' slots.
    slots: Vec<Option<MaterialSlot>>,
    /// Per material of the active set: the slot of its second draw, if it has one.
    second_slot: Vec<Option<usize>>,
    /// Per slot, what its draws read, for `states_epoch` ([`DrawState`]).
    draw_states: Vec<Option<DrawState>>,
    states_epoch: Option<u64>,
    textures: HashMap<u64, GpuTexture>,
    frame: FrameUpdate,
    model_id: ModelId,
    dirty: Vec<usize>,
    skin: Option<SkinGpu>,
    /// Visible surfaces drawn with a depth-sorted material (in surface order), found again
    /// when the plan is checked or visibility changes: sorting touches only this.
    transparent_surfaces: Vec<TransparentSurface>,
    /// This frame's transparent surfaces back to front, then clustered:
    /// [`depth_order_key`]s of places in `transparent_surfaces`.
    transparent_order: Vec<u64>,
    /// Whether one of them reads the target ([`TransparentSurface::reads`]).
    transparent_reads: bool,
    /// This frame's view depth of each of them, and the last frame's back-to-front order
    /// of their places (where this frame's sort starts).
    depths: Vec<f32>,
    depth_order: Vec<u32>,
    /// Reused memory of [`Scene::cluster_transparent`].
    clustering: Clustering,
    /// Every material's pipeline is the one it will keep (specialized, or the ubershader
    /// asked for): no need to poll the pipeline cache each frame.
    pipelines_settled: bool,
    /// Per material of the active set: whether a surface draws GX lines with it.
    has_lines: Vec<bool>,
    /// The ID pass, made on the first [`Scene::pick`].
    pick: Option<PickPass>,
    /// Made when a shader that blends itself first draws.
    destination: Option<Destination>,
    /// Material (active set) whose surfaces are tinted; see [`Scene::set_highlight`].
    highlight: Option<usize>,
    /// The tint pipeline, made when something is first highlighted.
    tint: Option<TintPass>,
    /// The `wireframe` debug view's edges, made when that view first draws.
    wireframe: Option<WireframePass>,
    /// The checker bound for missing textures (with `missing_checker`), made once.
    checker: Option<GpuTexture>,
    /// The materials' `DrawUniforms` blocks ([`FrameUpdate`]'s, shared by materials with
    /// the same vertex-side inputs) `uniform_stride` apart: a frame uploads the span of
    /// the changed blocks in one write, straight from the frame update's blocks.
    uniforms: Option<wgpu::Buffer>,
    uniform_stride: usize,
    /// Reused staging memory for the per-frame uniform upload: `queue.write_buffer` would
    /// allocate (and the OS zero-fill) a fresh staging buffer every frame, which was the
    /// largest CPU cost of a frame of a big room on lavapipe.
    upload_belt: Option<wgpu::util::StagingBelt>,
    /// Material buffers rewritten by edits ([`GpuMaterial::update_into`]), uploaded through
    /// the belt with the next frame's uniforms.
    pending_writes: Vec<(wgpu::Buffer, Vec<u8>)>,
    /// The next frame is the first with these materials: it waits (up to
    /// [`FIRST_FRAME_BUDGET`]) for their specialized pipelines, built in parallel.
    first_frame: bool,
    /// Problems found while building (missing textures, unusable materials, …).
    pub warnings: Vec<String>,
}

/// How long the first frame of a scene waits for specialized pipelines built in parallel
/// before the ubershader stands in for the rest. On lavapipe a cold ubershader compile costs
/// more than most rooms' specialized pipelines together, so waiting first is faster.
const FIRST_FRAME_BUDGET: Duration = Duration::from_millis(1000);

/// The opaque runs are sorted again when the view turns by more than 15° (cosine) or the
/// eye moves by more than a quarter of the model's size since the last sort: an order a
/// little off still rejects most hidden fragments, and each new order re-records the
/// opaque bundle (an orbit of 0.5° a frame re-sorts about every 20 frames).
const RESORT_COS: f32 = 0.965_925_8;
const RESORT_MOVE: f32 = 0.25;

impl Scene {
    /// Builds a scene with default options.
    pub fn new(ctx: &RenderContext, model: impl Into<Arc<CpuModel>>) -> Result<Scene, RenderError> {
        Self::with_options(ctx, model, SceneOptions::default())
    }

    /// Builds a scene drawing `model`, shared (an owned model is moved into an `Arc`).
    pub fn with_options(
        ctx: &RenderContext,
        model: impl Into<Arc<CpuModel>>,
        options: SceneOptions,
    ) -> Result<Scene, RenderError> {
        let cpu: Arc<CpuModel> = model.into();
        let mut warnings = Vec::new();
        if let Some(set) = cpu.material_sets.get(options.material_set) {
            for (i, m) in set.materials.iter().enumerate() {
                if let Err(e) = &m.gx {
                    warnings.push(format!("material {i}: {e} (its surfaces are not drawn)"));
                }
            }
        }
        warnings.extend(cpu.warnings.iter().cloned());

        // Geometry: every surface's vertices and triangles, once.
        let mesh = &cpu.mesh;
        let mut vertices: Vec<GpuVertex> = (0..mesh.len())
            .map(|v| GpuVertex {
                position: mesh.positions[v],
                normal: mesh.normals[v],
                color0: mesh.colors[0][v],
                color1: mesh.colors[1][v],
                tex: mesh.tex[v],
            })
            .collect();
        // Indices are absolute (base vertex 0) so that surfaces laid out one after the
        // other draw as one range: triangles in plan order, then every surface's lines.
        let mut file_triangles: Vec<u32> = Vec::new();
        let mut lines: Vec<u32> = Vec::new();
        // A skinned model's lines stay host line lists (its influences are per vertex).
        let expand_lines = cpu.skin.is_none() && cpu.surfaces.iter().any(|s| !s.lines.is_empty());
        let mut line_corners: Vec<GpuLineVertex> = Vec::new();
        if expand_lines {
            line_corners.resize(vertices.len(), GpuLineVertex::default());
        }
        let mut surfaces = Vec::with_capacity(cpu.surfaces.len());
        for s in &cpu.surfaces {
            let base = s.vertices.start;
            let file_first = file_triangles.len() as u32;
            file_triangles.extend(s.triangles.iter().flatten().map(|i| i + base));
            let first_line = lines.len() as u32;
            if expand_lines {
                // GX lines as quads (`gx::lines`): four corners per segment, appended to
                // the vertices, each with the other end and its side.
                for &[a, b] in &s.lines {
                    let ends = [(a + base) as usize, (b + base) as usize];
                    let first = vertices.len() as u32;
                    for (to_b, side) in LINE_CORNERS {
                        let (end, other) = if to_b {
                            (ends[1], ends[0])
                        } else {
                            (ends[0], ends[1])
                        };
                        vertices.push(vertices.get(end).copied().unwrap_or_default());
                        line_corners.push(GpuLineVertex {
                            other: mesh.positions.get(other).copied().unwrap_or_default(),
                            side,
                        });
                    }
                    lines.extend(LINE_QUAD.map(|c| first + c));
                }
            } else {
                lines.extend(s.lines.iter().flatten().map(|i| i + base));
            }
            let positions = mesh
                .positions
                .get(s.vertices.start as usize..s.vertices.end as usize);
            let bounds = positions
                .and_then(|p| Aabb::from_points(p.iter().copied()))
                .unwrap_or(Aabb {
                    min: s.center,
                    max: s.center,
                });
            surfaces.push(SurfaceDraw {
                material: s.material,
                first_index: file_first,
                index_count: file_triangles.len() as u32 - file_first,
                first_line_index: first_line,
                line_index_count: lines.len() as u32 - first_line,
                file_first,
                bounds,
                center: Vec3::from(s.center),
                hidden: false,
            });
        }
        for s in &mut surfaces {
            s.first_line_index += file_triangles.len() as u32;
        }
        if vertices.is_empty() {
            vertices.push(GpuVertex::default());
        }
        let line_corners = expand_lines.then(|| {
            ctx.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("line corners"),
                    contents: bytemuck::cast_slice(&line_corners),
                    usage: wgpu::BufferUsages::VERTEX,
                })
        });
        let vertex_buffer = ctx
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("model vertices"),
                contents: bytemuck::cast_slice(&vertices),
                usage: wgpu::BufferUsages::VERTEX,
            });
        let aabb = cpu.aabb;
        let skin = match &cpu.skin {
            Some(s) => Some(Self::build_skin(ctx, s, options)?),
            None => None,
        };

        let mut frame = FrameUpdate::new(options.frame);
        let model_id = frame.add_model(Mat4::IDENTITY, Vec3::from(aabb.center()));
        let mut scene = Scene {
            view: OrbitCamera::framing(&aabb).view(),
            cpu,
            overrides: HashMap::new(),
            texture_overrides: HashMap::new(),
            rebind: Vec::new(),
            options,
            lights: LightPreset::Basic.light_set(),
            time: 0.0,
            animation: None,
            aabb,
            vertex_buffer,
            line_corners,
            index_buffer: None,
            file_triangles,
            lines,
            plan: DrawPlan::default(),
            run_order: Vec::new(),
            sorted_for: None,
            run_scratch: Vec::new(),
            sort_scratch: FrontToBack::default(),
            plan_classes: None,
            plan_dirty: true,
            plan_enabled: true,
            bundle: None,
            bundle_epoch: 0,
            surfaces,
            slots: Vec::new(),
            textures: HashMap::new(),
            frame,
            model_id,
            dirty: Vec::new(),
            skin,
            transparent_surfaces: Vec::new(),
            depths: Vec::new(),
            depth_order: Vec::new(),
            draw_states: Vec::new(),
            states_epoch: None,
            transparent_order: Vec::new(),
            transparent_reads: false,
            clustering: Clustering::default(),
            second_slot: Vec::new(),
            pipelines_settled: false,
            has_lines: Vec::new(),
            pick: None,
            destination: None,
            highlight: None,
            tint: None,
            wireframe: None,
            checker: None,
            uniforms: None,
            uniform_stride: 0,
            upload_belt: None,
            pending_writes: Vec::new(),
            first_frame: true,
            warnings,
        };
        scene.rebuild_materials(ctx, options)?;
        Ok(scene)
    }

    fn build_skin(
        ctx: &RenderContext,
        cpu: &CpuSkin,
        options: SceneOptions,
    ) -> Result<SkinGpu, RenderError> {
        let skeleton = &cpu.skeleton;
        if skeleton.len() > MAX_SKIN_BONES {
            return Err(RenderError::SkeletonTooLarge {
                bones: skeleton.len(),
                max: MAX_SKIN_BONES,
            });
        }
        let mut skin_vertices: Vec<SkinVertex> = cpu
            .influences
            .iter()
            .map(|v| SkinVertex {
                bones: v.bones,
                weights: v.weights,
            })
            .collect();
        if skin_vertices.is_empty() {
            skin_vertices.push(SkinVertex::default());
        }
        let vertex_buffer = ctx
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("skin influences"),
                contents: bytemuck::cast_slice(&skin_vertices),
                usage: wgpu::BufferUsages::VERTEX,
            });
        let pose = Pose::bind(skeleton, &options.pose);
        let mut palette = pose.skin_palette(skeleton, &options.pose).to_gpu();
        palette.resize(MAX_SKIN_BONES, bytemuck::Zeroable::zeroed());
        let palette_buffer = ctx
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("skin palette"),
                contents: bytemuck::cast_slice(&palette),
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            });
        let bind_group = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("skin group"),
            layout: &ctx.layouts.skin_group,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: palette_buffer.as_entire_binding(),
            }],
        });
        let bindings = cpu
            .clips
            .iter()
            .map(|(_, c)| ClipBinding::new(c, skeleton).ok())
            .collect();
        Ok(SkinGpu {
            vertex_buffer,
            palette_buffer,
            bind_group,
            palette_scratch: palette.clone(),
            palette_written: palette,
            pose,
            bindings,
        })
    }

    /// (Re)creates the GPU materials of `options.material_set` (textures are uploaded
    /// once per ID and kept). Use it to switch material sets or TEV/frame options.
    pub fn rebuild_materials(
        &mut self,
        ctx: &RenderContext,
        options: SceneOptions,
    ) -> Result<(), RenderError> {
        self.options = options;
        // The pick and tint pipelines bake the culling in.
        self.pick = None;
        self.tint = None;
        let set_index = options
            .material_set
            .min(self.cpu.material_sets.len().saturating_sub(1));
        self.options.material_set = set_index;
        self.slots.clear();
        self.dirty.clear();
        self.rebind.clear();
        self.pending_writes.clear();
        self.frame = FrameUpdate::new(options.frame);
        self.model_id = self
            .frame
            .add_model(Mat4::IDENTITY, Vec3::from(self.aabb.center()));
        let cpu = Arc::clone(&self.cpu);
        let Some(set) = cpu.material_sets.get(set_index) else {
            self.warnings.push("the model has no material set".into());
            return Ok(());
        };
        let materials = &set.materials;
        // One uniform buffer for every material, each block at an offset the device binds.
        let size = std::mem::size_of::<DrawUniforms>();
        let align = ctx
            .device
            .limits()
            .min_uniform_buffer_offset_alignment
            .max(16) as usize;
        let stride = size.next_multiple_of(align);
        let count = materials
            .iter()
            .flat_map(|m| std::iter::once(m).chain(m.second_draw.as_deref()))
            .filter(|m| m.gx.is_ok())
            .count()
            .max(1);
        let uniforms = ctx.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("DrawUniforms (all materials)"),
            size: (stride * count) as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.uniform_stride = stride;
        self.first_frame = true;
        for (i, m) in materials.iter().enumerate() {
            if m.gx.is_err() {
                self.slots.push(None);
                continue;
            }
            let bound = match self.texture_overrides.get(&(set_index, i)).cloned() {
                Some(ids) => self.bind_texture_ids(ctx, i, &ids),
                None => self.bind_textures(ctx, i, &m.textures),
            };
            let Some(gx) = effective_material(&self.overrides, &cpu, set_index, i).cloned() else {
                self.slots.push(None);
                continue;
            };
            let slot = self.material_slot(ctx, (&uniforms, stride), i, &gx, &bound);
            self.slots.push(Some(slot));
        }
        self.add_second_draws(ctx, (&uniforms, stride), materials);
        self.uniforms = Some(uniforms);
        self.plan_dirty = true;
        self.bundle_epoch += 1;
        self.pipelines_settled = false;
        self.has_lines = vec![false; self.slots.len()];
        for (i, s) in self.surfaces.iter().enumerate() {
            if s.line_index_count > 0 {
                let second = self.second_slot.get(s.material).copied().flatten();
                for m in std::iter::once(s.material).chain(second) {
                    if let Some(l) = self.has_lines.get_mut(m) {
                        *l = true;
                    }
                }
            }
            if s.material >= materials.len() {
                self.warnings.push(format!(
                    "surface {i}: material {} of {} (not drawn)",
                    s.material,
                    materials.len()
                ));
            }
        }
        self.refresh_plan(ctx);
        Ok(())
    }

    /// The uploaded textures of `textures` (material `material`'s maps), None where a
    /// slot has no ID (the white placeholder, with a warning).
    fn bind_textures(
        &mut self,
        ctx: &RenderContext,
        material: usize,
        textures: &[Result<u64, String>],
    ) -> Vec<Option<BoundTexture>> {
        let mut bound = Vec::with_capacity(textures.len());
        for (map, slot) in textures.iter().enumerate() {
            match slot {
                Ok(id) => bound.push(self.texture(ctx, *id, (material, map))),
                Err(e) => {
                    self.warnings
                        .push(format!("material {material}: {e}; white placeholder"));
                    bound.push(None);
                }
            }
        }
        bound
    }

    /// The uploaded textures of an edited binding (`ids`, TXTR IDs per map of material
    /// `material`); a map without an ID draws the white placeholder.
    fn bind_texture_ids(
        &mut self,
        ctx: &RenderContext,
        material: usize,
        ids: &[Option<u64>],
    ) -> Vec<Option<BoundTexture>> {
        ids.iter()
            .enumerate()
            .map(|(map, id)| id.and_then(|id| self.texture(ctx, id, (material, map))))
            .collect()
    }

    /// A slot drawing `gx` (for material `index`'s surfaces) with its uniform block in
    /// `uniforms` (buffer, stride); pipelines are selected when the frame polls them.
    fn material_slot(
        &mut self,
        ctx: &RenderContext,
        uniforms: (&wgpu::Buffer, usize),
        index: usize,
        gx: &Material,
        bound: &[Option<BoundTexture>],
    ) -> MaterialSlot {
        let block = self.frame.add_material(self.model_id, gx);
        let binding = Self::block_binding(uniforms.0, uniforms.1, block);
        let options = &self.options;
        let mut gpu = GpuMaterial::new(ctx, gx, &options.tev_for(index), binding, bound);
        gpu.set_skinned(
            self.skin
                .as_ref()
                .and(self.cpu.skin.as_ref())
                .map(|k| k.normals),
        );
        MaterialSlot {
            line_keys: Self::line_keys(&gpu, options),
            line_pipeline: MaterialPipeline::default(),
            line_selected: None,
            keys: Self::keys(&gpu, options),
            gpu,
            block,
            pipeline: MaterialPipeline::default(),
            selected: None,
            transparent: gx.depth_sorted,
            occluder: gx.flags & FLAG_OCCLUDER != 0,
        }
    }

    /// Slots for the materials' second draws (MP3's additive INCA draw, `formats.md`
    /// §13.3), after the set's own: each drawn over its material's surfaces right after
    /// them ([`push_surface_draws`]). Its program keeps the synthesis' state: blend
    /// SRCALPHA/ONE, no depth write, and the GX depth compare (LEQUAL), which passes exactly
    /// the first draw's fragments since that draw wrote no depth either.
    fn add_second_draws(
        &mut self,
        ctx: &RenderContext,
        uniforms: (&wgpu::Buffer, usize),
        materials: &[CpuMaterial],
    ) {
        self.second_slot = vec![None; materials.len()];
        for (i, m) in materials.iter().enumerate() {
            let (Some(Some(_)), Some(second)) = (self.slots.get(i), &m.second_draw) else {
                continue;
            };
            let Ok(gx) = &second.gx else { continue };
            let bound = self.bind_textures(ctx, i, &second.textures);
            let slot = self.material_slot(ctx, uniforms, i, gx, &bound);
            self.second_slot[i] = Some(self.slots.len());
            self.slots.push(Some(slot));
        }
    }

    /// How the draw plan treats material `index`'s surfaces (see [`super::plan`]).
    fn plan_class(&self, index: usize) -> PlanClass {
        let Some(Some(slot)) = self.slots.get(index) else {
            return PlanClass::Elsewhere;
        };
        if slot.transparent {
            return PlanClass::Elsewhere;
        }
        // A second draw blends over the first: its surfaces keep their place.
        if matches!(self.second_slot.get(index), Some(Some(_))) {
            return PlanClass::Barrier;
        }
        let plain = |key: &PipelineKey| {
            let s = &key.state;
            s.blend.is_none()
                && s.depth_test
                && s.depth_write
                && matches!(
                    s.depth_compare,
                    wgpu::CompareFunction::Less | wgpu::CompareFunction::LessEqual
                )
                && !key.shader.reads_destination()
        };
        if self.plan_enabled && self.skin.is_none() && plain(&slot.keys.0) && plain(&slot.keys.1) {
            PlanClass::Opaque
        } else {
            PlanClass::Barrier
        }
    }

    /// Makes the draw plan again if the materials' classes changed since it was made (or
    /// it never was) and lays the index buffer out in its order. CPU work and one buffer
    /// upload; pipelines stay.
    fn refresh_plan(&mut self, ctx: &RenderContext) {
        self.plan_dirty = false;
        let classes: Vec<PlanClass> = (0..self.slots.len()).map(|i| self.plan_class(i)).collect();
        if self.plan_classes.as_ref() == Some(&classes) {
            self.find_transparent_surfaces();
            return;
        }
        let size = Vec3::from(self.aabb.max) - Vec3::from(self.aabb.min);
        let margin = 1e-3 * size.max_element().max(1e-6);
        let planned: Vec<PlanSurface> = self
            .surfaces
            .iter()
            .map(|s| PlanSurface {
                material: s.material,
                class: match classes.get(s.material) {
                    Some(PlanClass::Opaque) if s.line_index_count > 0 => PlanClass::Barrier,
                    Some(c) => *c,
                    None => PlanClass::Elsewhere,
                },
                bounds: s.bounds,
            })
            .collect();
        self.plan = draw_plan(&planned, margin);
        self.run_order = (0..self.plan.runs.len()).collect();
        self.sorted_for = None;
        self.plan_classes = Some(classes);
        self.bundle_epoch += 1;
        let mut indices = Vec::with_capacity(self.file_triangles.len() + self.lines.len());
        for &i in &self.plan.order {
            let s = &mut self.surfaces[i];
            let file = s.file_first as usize..(s.file_first + s.index_count) as usize;
            s.first_index = indices.len() as u32;
            indices.extend_from_slice(&self.file_triangles[file]);
        }
        indices.extend_from_slice(&self.lines);
        self.index_buffer = (!indices.is_empty()).then(|| {
            ctx.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("model indices (plan order)"),
                    contents: bytemuck::cast_slice(&indices),
                    usage: wgpu::BufferUsages::INDEX,
                })
        });
        // Their copies take the ranges just laid out.
        self.find_transparent_surfaces();
    }

    fn keys(gpu: &GpuMaterial, options: &SceneOptions) -> (PipelineKey, PipelineKey) {
        let state = Self::state(gpu, options);
        Self::without_host_blend(gpu.pipeline_keys(state, COLOR_FORMAT, Some(DEPTH_FORMAT)))
    }

    /// The material's blend, depth and cull state (the `overdraw` view counts instead).
    fn state(gpu: &GpuMaterial, options: &SceneOptions) -> RenderState {
        let state = RenderState::for_program(&gpu.program, options.blend, options.cull);
        match options.tev.debug {
            Some(view) if view.counts_fragments() => overdraw_state(state),
            _ => state,
        }
    }

    /// Keys of the line pipeline (GX lines are never culled): quads of line corners
    /// (`gx::lines`), or for a skinned model the host's one-pixel line list.
    fn line_keys(gpu: &GpuMaterial, options: &SceneOptions) -> (PipelineKey, PipelineKey) {
        let mut state = Self::state(gpu, options);
        state.cull = None;
        let mut keys = gpu.pipeline_keys(state, COLOR_FORMAT, Some(DEPTH_FORMAT));
        if gpu.skinned() {
            keys.0.state.topology = wgpu::PrimitiveTopology::LineList;
            keys.1.state.topology = wgpu::PrimitiveTopology::LineList;
        } else {
            for key in [&mut keys.0, &mut keys.1] {
                match &mut key.shader {
                    ShaderId::Specialized(k) => k.vertex.line = true,
                    ShaderId::Uber(k) => k.vertex.line = true,
                    ShaderId::Source { .. } => {}
                }
            }
        }
        Self::without_host_blend(keys)
    }

    /// A specialized shader that blends itself writes its result as is; the ubershader
    /// standing in while it compiles keeps fixed-function blending.
    fn without_host_blend(mut keys: (PipelineKey, PipelineKey)) -> (PipelineKey, PipelineKey) {
        if keys.0.shader.reads_destination() {
            keys.0.state.blend = None;
        }
        keys
    }

    /// The uploaded texture `id` (uploaded on first use) for map `site.1` of material
    /// `site.0`. When the assets lack it or it cannot be uploaded: a warning naming the
    /// site, and the checker (`missing_checker`) or None (the white placeholder).
    fn texture(
        &mut self,
        ctx: &RenderContext,
        id: u64,
        site: (usize, usize),
    ) -> Option<BoundTexture> {
        if let Some(t) = self.textures.get(&id) {
            return Some(BoundTexture {
                texture: t.clone(),
                sampler: gx_sampler(t.mip_count, self.options.host_filtering),
            });
        }
        let problem = match self.cpu.textures.get(&id) {
            None => "not found in the model's textures".to_string(),
            Some(data) => {
                match GpuTexture::upload(&ctx.device, &ctx.queue, data, &format!("TXTR 0x{id:08X}"))
                {
                    Ok(t) => {
                        self.textures.insert(id, t.clone());
                        return Some(BoundTexture {
                            sampler: gx_sampler(t.mip_count, self.options.host_filtering),
                            texture: t,
                        });
                    }
                    Err(e) => e.to_string(),
                }
            }
        };
        let (material, map) = site;
        let placeholder = if self.options.missing_checker {
            "magenta checker"
        } else {
            "white placeholder"
        };
        let msg =
            format!("material {material} map {map}: texture 0x{id:08X} {problem}; {placeholder}");
        if !self.warnings.contains(&msg) {
            self.warnings.push(msg);
        }
        if !self.options.missing_checker {
            return None;
        }
        if self.checker.is_none() {
            self.checker = GpuTexture::upload(
                &ctx.device,
                &ctx.queue,
                &TextureData::missing_checker(),
                "missing texture checker",
            )
            .ok();
        }
        self.checker.clone().map(|t| BoundTexture {
            sampler: gx_sampler(t.mip_count, self.options.host_filtering),
            texture: t,
        })
    }

    /// The model's bounding box (bind pose, model space = world space).
    pub fn aabb(&self) -> Aabb {
        self.aabb
    }

    /// The model it draws, as loaded (edited materials: [`Scene::material`]).
    pub fn model(&self) -> &CpuModel {
        &self.cpu
    }

    /// The shared model (the same `Arc` the scene was built from).
    pub fn shared_model(&self) -> &Arc<CpuModel> {
        &self.cpu
    }

    pub fn options(&self) -> &SceneOptions {
        &self.options
    }

    /// The view drawn (until [`Scene::set_view`]: the model framed from the front-right).
    pub fn view(&self) -> &CameraView {
        &self.view
    }

    /// Draws through `view` from the next frame (what the camera's owner hands over).
    pub fn set_view(&mut self, view: CameraView) {
        self.view = view;
    }

    /// Draws through `camera`'s view from the next frame (the scene keeps no camera).
    pub fn set_camera(&mut self, camera: OrbitCamera) {
        self.view = camera.view();
    }

    /// Draws the model framed from the front-right again (the view a new scene has).
    pub fn frame_model(&mut self) {
        self.set_camera(OrbitCamera::framing(&self.aabb));
    }

    pub fn lights(&self) -> &LightSet {
        &self.lights
    }

    pub fn set_lights(&mut self, lights: LightSet) {
        self.lights = lights;
    }

    /// Scene time in seconds (UV animations and the skeletal animation).
    pub fn set_time(&mut self, seconds: f64) {
        self.time = seconds;
    }

    pub fn time(&self) -> f64 {
        self.time
    }

    /// Names of the character's animations (empty without a skin).
    pub fn animation_names(&self) -> Vec<&str> {
        self.cpu.animation_names()
    }

    /// Duration of animation `index` in seconds.
    pub fn animation_duration(&self, index: usize) -> Option<f32> {
        self.cpu
            .skin
            .as_ref()
            .and_then(|s| s.clips.get(index))
            .map(|(_, c)| c.duration)
    }

    /// Plays animation `index` (None = the bind pose). An index out of range, or a clip
    /// that does not fit the skeleton, shows the bind pose.
    pub fn set_animation(&mut self, index: Option<usize>) {
        self.animation = index;
    }

    pub fn animation(&self) -> Option<usize> {
        self.animation
    }

    pub fn is_skinned(&self) -> bool {
        self.skin.is_some()
    }

    /// The active material set's index.
    pub fn material_set(&self) -> usize {
        self.options.material_set
    }

    /// Number of materials in the active set.
    pub fn material_count(&self) -> usize {
        self.second_slot.len()
    }

    /// Material `index` of set `set` as drawn: its edit if it has one, else the model's.
    /// None when the model has no usable material there.
    pub fn material(&self, set: usize, index: usize) -> Option<&Material> {
        effective_material(&self.overrides, &self.cpu, set, index)
    }

    /// Draws material `index` of set `set` as `material` from the next frame; false (and
    /// nothing changes) when the model has no usable material there. A value edit rewrites
    /// its uniforms only; a structural edit requests its new pipeline (the ubershader draws
    /// until it is ready). Setting the model's own material drops the override.
    pub fn set_material(&mut self, set: usize, index: usize, material: Material) -> bool {
        let Some(own) = self.cpu.material(set, index) else {
            return false;
        };
        if self.material(set, index) == Some(&material) {
            return true;
        }
        if *own == material {
            self.overrides.remove(&(set, index));
        } else {
            self.overrides.insert((set, index), material);
        }
        self.mark_dirty(set, index);
        true
    }

    /// Draws material `index` of set `set` as the model has it again.
    pub fn clear_material_override(&mut self, set: usize, index: usize) {
        if self.overrides.remove(&(set, index)).is_some() {
            self.mark_dirty(set, index);
        }
        if self.texture_overrides.remove(&(set, index)).is_some() {
            self.mark_rebind(set, index);
        }
    }

    /// The TXTR IDs material `index` of set `set` draws, per map: its edited binding if it
    /// has one, else the model's (None: no material there).
    pub fn texture_ids(&self, set: usize, index: usize) -> Option<Vec<Option<u64>>> {
        if let Some(ids) = self.texture_overrides.get(&(set, index)) {
            return Some(ids.clone());
        }
        let m = self.cpu.material_sets.get(set)?.materials.get(index)?;
        Some(
            m.textures
                .iter()
                .map(|t| t.as_ref().ok().copied())
                .collect(),
        )
    }

    /// Binds `ids` (TXTR IDs per map) to material `index` of set `set` from the next frame:
    /// its bind group is made again over the uploaded textures (a texture not
    /// uploaded yet is uploaded once); uniforms, pipelines and the model stay. False (and
    /// nothing changes) when the model has no material there.
    pub fn set_material_textures(&mut self, set: usize, index: usize, ids: &[Option<u64>]) -> bool {
        let Some(own) = self
            .cpu
            .material_sets
            .get(set)
            .and_then(|s| s.materials.get(index))
        else {
            return false;
        };
        let drawn = match self.texture_overrides.get(&(set, index)) {
            Some(current) => current.as_slice() == ids,
            None => same_ids(&own.textures, ids),
        };
        if drawn {
            return true;
        }
        if same_ids(&own.textures, ids) {
            self.texture_overrides.remove(&(set, index));
        } else {
            self.texture_overrides.insert((set, index), ids.to_vec());
        }
        self.mark_rebind(set, index);
        true
    }

    /// Rebinds material `index`'s textures at the next render when `set` is the active set.
    fn mark_rebind(&mut self, set: usize, index: usize) {
        if set == self.options.material_set && !self.rebind.contains(&index) {
            self.rebind.push(index);
        }
    }

    /// Makes the bind groups of the materials in `rebind` again (edited texture
    /// bindings): a new GPU material over the same uniform block; its keys are taken again
    /// (texture formats may change the sampling), and the recorded draws are re-recorded.
    fn apply_rebinds(&mut self, ctx: &RenderContext) {
        if self.rebind.is_empty() {
            return;
        }
        let set = self.options.material_set;
        for i in std::mem::take(&mut self.rebind) {
            let ids = match self.texture_ids(set, i) {
                Some(ids) => ids,
                None => continue,
            };
            let bound = match self.texture_overrides.contains_key(&(set, i)) {
                true => self.bind_texture_ids(ctx, i, &ids),
                false => {
                    let own = self.cpu.material_sets[set].materials[i].textures.clone();
                    self.bind_textures(ctx, i, &own)
                }
            };
            let skinning = self
                .skin
                .as_ref()
                .and(self.cpu.skin.as_ref())
                .map(|k| k.normals);
            let (Some(gx), Some(uniforms)) = (
                effective_material(&self.overrides, &self.cpu, set, i).cloned(),
                self.uniforms.as_ref(),
            ) else {
                continue;
            };
            let Some(Some(slot)) = self.slots.get_mut(i) else {
                continue;
            };
            let binding = Self::block_binding(uniforms, self.uniform_stride, slot.block);
            let mut gpu = GpuMaterial::new(ctx, &gx, &self.options.tev_for(i), binding, &bound);
            gpu.set_skinned(skinning);
            slot.gpu = gpu;
            slot.keys = Self::keys(&slot.gpu, &self.options);
            slot.selected = None;
            slot.line_keys = Self::line_keys(&slot.gpu, &self.options);
            slot.line_selected = None;
        }
        self.pipelines_settled = false;
        self.plan_dirty = true;
        self.bundle_epoch += 1;
    }

    /// Applies material `index`'s edit at the next render when `set` is the active set
    /// (another set's edits are picked up when it is built).
    fn mark_dirty(&mut self, set: usize, index: usize) {
        if set == self.options.material_set && !self.dirty.contains(&index) {
            self.dirty.push(index);
        }
    }

    /// Which shader path material `index` used last frame (None before the first frame or
    /// when it is not drawn), and its pipeline error if its structure failed.
    pub fn material_status(
        &self,
        index: usize,
    ) -> Option<(SelectedPath, Option<super::SharedError>)> {
        let slot = self.slots.get(index)?.as_ref()?;
        let path = slot.selected.as_ref()?.path;
        Some((path, slot.pipeline.last_error.clone()))
    }

    /// The specialized shader key of material `index` (to show its WGSL).
    pub fn shader_key(&self, index: usize) -> Option<&crate::gx::key::ShaderKey> {
        Some(&self.slots.get(index)?.as_ref()?.gpu.shader_key)
    }

    /// The vertex-side uniforms material `index` was last drawn with (camera, lights,
    /// channel colours), for CPU references of rendered pixels (`gx::lighting::run_vertex`).
    pub fn draw_uniforms(&self, index: usize) -> Option<DrawUniforms> {
        let block = self.slots.get(index)?.as_ref()?.block;
        self.frame.uniforms(block)
    }

    /// The current bone palette (posed by the last render), for CPU references.
    pub fn pose(&self) -> Option<&Pose> {
        self.skin.as_ref().map(|s| &s.pose)
    }

    /// Applies the edited materials: each one's uniforms are rewritten; a new structure
    /// also selects its pipeline again, a new depth class or occluder flag redraws the plan,
    /// and only changed vertex-side inputs (UV animations, channel count) regroup the
    /// per-frame uniform blocks. A value edit leaves pipelines, bind groups and the recorded
    /// draws as they are.
    fn apply_edits(&mut self, ctx: &RenderContext) {
        if self.dirty.is_empty() {
            return;
        }
        let set = self.options.material_set;
        let mut regroup = false;
        for &i in &self.dirty {
            let (Some(m), Some(Some(slot))) = (
                effective_material(&self.overrides, &self.cpu, set, i),
                self.slots.get_mut(i),
            ) else {
                continue;
            };
            let pending = &mut self.pending_writes;
            slot.gpu
                .update_into(m, &self.options.tev_for(i), |buffer, bytes| {
                    pending.push((buffer.clone(), bytes.to_vec()))
                });
            let class = (m.depth_sorted, m.flags & FLAG_OCCLUDER != 0);
            let keys = Self::keys(&slot.gpu, &self.options);
            let new_keys = keys != slot.keys;
            if new_keys {
                slot.keys = keys;
                slot.selected = None;
                slot.line_keys = Self::line_keys(&slot.gpu, &self.options);
                slot.line_selected = None;
                self.pipelines_settled = false;
            }
            if new_keys || class != (slot.transparent, slot.occluder) {
                (slot.transparent, slot.occluder) = class;
                self.plan_dirty = true;
                self.bundle_epoch += 1;
            }
            regroup |= !self.frame.shares_block(slot.block, m);
        }
        self.dirty.clear();
        if regroup {
            self.regroup_uniform_blocks(ctx);
        }
    }

    /// Registers every material's vertex-side inputs with a new [`FrameUpdate`] (edits may
    /// have moved materials to other shared blocks, or new ones).
    fn regroup_uniform_blocks(&mut self, ctx: &RenderContext) {
        let set = self.options.material_set;
        let mut frame = FrameUpdate::new(self.options.frame);
        let model_id = frame.add_model(Mat4::IDENTITY, Vec3::from(self.aabb.center()));
        for (i, slot) in self.slots.iter_mut().enumerate() {
            if let (Some(slot), Some(m)) = (
                slot,
                slot_material(&self.overrides, &self.cpu, set, &self.second_slot, i),
            ) {
                let block = frame.add_material(model_id, m);
                if block != slot.block
                    && let Some(buffer) = &self.uniforms
                {
                    let binding = Self::block_binding(buffer, self.uniform_stride, block);
                    slot.gpu.rebind_draw_uniforms(ctx, binding);
                    self.bundle_epoch += 1;
                }
                slot.block = block;
            }
        }
        self.frame = frame;
        self.model_id = model_id;
    }

    /// Poses the skeleton at the scene time and uploads the palette if it changed.
    fn update_skin(&mut self, ctx: &RenderContext) {
        let (Some(skin), Some(assets)) = (&mut self.skin, &self.cpu.skin) else {
            return;
        };
        let options = &self.options.pose;
        match self
            .animation
            .and_then(|a| Some((assets.clips.get(a)?, skin.bindings.get(a)?.as_ref()?)))
        {
            Some(((_, clip), binding)) => {
                skin.pose
                    .sample(&assets.skeleton, clip, binding, self.time as f32, options)
            }
            None => skin.pose = Pose::bind(&assets.skeleton, options),
        }
        let palette = skin.pose.skin_palette(&assets.skeleton, options);
        skin.palette_scratch.clear();
        skin.palette_scratch.extend(palette.to_gpu());
        skin.palette_scratch
            .resize(MAX_SKIN_BONES, bytemuck::Zeroable::zeroed());
        if skin.palette_scratch != skin.palette_written {
            ctx.queue.write_buffer(
                &skin.palette_buffer,
                0,
                bytemuck::cast_slice(&skin.palette_scratch),
            );
            std::mem::swap(&mut skin.palette_scratch, &mut skin.palette_written);
        }
    }

    /// Every vertex skinned on the GPU at the current animation and time, read back:
    /// model-space positions in the order of the surfaces' vertices (None for an unskinned
    /// scene). What the colour pass's vertex stage computes, for tests.
    pub fn gpu_skinned_positions(
        &mut self,
        ctx: &RenderContext,
    ) -> Result<Option<Vec<[f32; 3]>>, RenderError> {
        self.gpu_skinned(ctx, super::skin_probe::SkinProbe::Positions)
    }

    /// As [`Scene::gpu_skinned_positions`], the skinned model-space normals, by the
    /// model's normal rule (unit length only where the rule renormalises).
    pub fn gpu_skinned_normals(
        &mut self,
        ctx: &RenderContext,
    ) -> Result<Option<Vec<[f32; 3]>>, RenderError> {
        let blended = self.cpu.skin.as_ref().map(|k| k.normals) == Some(NormalMode::Blended);
        self.gpu_skinned(ctx, super::skin_probe::SkinProbe::Normals { blended })
    }

    fn gpu_skinned(
        &mut self,
        ctx: &RenderContext,
        what: super::skin_probe::SkinProbe,
    ) -> Result<Option<Vec<[f32; 3]>>, RenderError> {
        self.update_skin(ctx);
        let Some(skin) = &self.skin else {
            return Ok(None);
        };
        let count = self.cpu.mesh.len();
        super::skin_probe::read_skinned(
            ctx,
            &self.vertex_buffer,
            &skin.vertex_buffer,
            &skin.bind_group,
            count as u32,
            what,
        )
        .map(Some)
    }

    /// Whether surface `i` is left out ([`Scene::set_hidden_surfaces`]).
    pub fn surface_hidden(&self, i: usize) -> bool {
        self.surfaces.get(i).is_some_and(|s| s.hidden)
    }

    /// Hides surface i when `hidden[i]` (surfaces past the slice show): a room's world
    /// models toggled off. Only the draw list changes; buffers and pipelines stay.
    pub fn set_hidden_surfaces(&mut self, hidden: &[bool]) {
        let mut changed = false;
        for (i, s) in self.surfaces.iter_mut().enumerate() {
            let h = hidden.get(i).copied().unwrap_or(false);
            changed |= s.hidden != h;
            s.hidden = h;
        }
        if changed {
            self.bundle_epoch += 1;
            self.find_transparent_surfaces();
        }
    }

    /// Reorders [`Scene::transparent_order`] (back to front, [`Clustering::draws`] filled
    /// for its surfaces) as [`Clustering`] does, so that a material's surfaces are
    /// drawn together where their pixels allow: fewer material changes, and surfaces
    /// adjacent in the index buffer (the plan lays each material's out together) become
    /// one draw. A cluster whose surfaces share no cell goes in index order. Some surfaces
    /// join no cluster ([`TransparentSurface::bucket`]).
    fn cluster_transparent(&mut self, (width, height): (u32, u32)) {
        let transparent = &self.transparent_surfaces;
        let c = &mut self.clustering;
        let sequence = self
            .transparent_order
            .iter()
            .map(|&key| key as u32 as usize);
        c.order(sequence, (width, height));
        let Clustering {
            places,
            clusters,
            reordered,
            ..
        } = c;
        let keys = &mut self.transparent_order;
        for cluster in clusters.iter().filter(|c| c.apart && c.span.len() > 1) {
            places[cluster.span.clone()]
                .sort_unstable_by_key(|&p| transparent[keys[p] as u32 as usize].draw.first_index);
        }
        // `places` holds every position once: the keys go through it.
        reordered.clear();
        reordered.extend(places.iter().map(|&p| keys[p]));
        keys.copy_from_slice(reordered);
    }

    /// Lists the visible depth-sorted surfaces again ([`TransparentSurface`], copies of
    /// their entries): whenever the plan is checked or lays out the index buffer, and when
    /// visibility changes.
    fn find_transparent_surfaces(&mut self) {
        let (slots, second_slot) = (&self.slots, &self.second_slot);
        self.transparent_surfaces.clear();
        self.transparent_surfaces.extend(
            self.surfaces
                .iter()
                .filter(|s| {
                    !s.hidden && matches!(slots.get(s.material), Some(Some(m)) if m.transparent)
                })
                .map(|s| {
                    let lines = s.line_index_count > 0;
                    // Whatever pipeline ends up drawing it (the key decides), a shader
                    // reading the target keeps its place.
                    let slot_reads = |m: usize| {
                        matches!(slots.get(m), Some(Some(slot))
                            if slot.keys.0.shader.reads_destination()
                                || (lines && slot.line_keys.0.shader.reads_destination()))
                    };
                    let second = second_slot.get(s.material).copied().flatten();
                    let reads = slot_reads(s.material) || second.is_some_and(slot_reads);
                    TransparentSurface {
                        draw: s.clone(),
                        bucket: (!lines && !reads && second.is_none()).then_some(s.material),
                        lines,
                        reads,
                    }
                }),
        );
        self.transparent_reads = self.transparent_surfaces.iter().any(|t| t.reads);
    }

    /// With `false`, every surface is drawn in file order (runs of consecutive surfaces of
    /// a material still merge): to compare with the draw plan, which is on by default and
    /// draws the same pixels ([`super::plan`]).
    pub fn set_draw_plan(&mut self, enabled: bool) {
        if self.plan_enabled != enabled {
            self.plan_enabled = enabled;
            self.plan_dirty = true;
        }
    }

    /// Tints every surface drawn with `material` (active set) in the next frames: the
    /// viewer's selection. None (the default) draws exactly the plain scene.
    pub fn set_highlight(&mut self, material: Option<usize>) {
        self.highlight = material;
    }

    pub fn highlight(&self) -> Option<usize> {
        self.highlight
    }

    /// Draws the model into `target` (one submission). Pipelines still compiling draw
    /// with the ubershader.
    pub fn render(
        &mut self,
        ctx: &RenderContext,
        target: &OffscreenTarget,
        clear: ClearMode,
    ) -> Result<FrameStats, RenderError> {
        let start = Instant::now();
        let mut stats = FrameStats::default();
        self.apply_rebinds(ctx);
        self.apply_edits(ctx);
        if self.plan_dirty {
            self.refresh_plan(ctx);
        }
        self.update_skin(ctx);
        // The one step that can fail comes first: from the update on, nothing returns
        // before the submit, so staged uniforms always reach the GPU.
        if self.highlight.is_some() && self.tint.is_none() {
            self.tint = Some(TintPass::new(
                ctx,
                self.skin.is_some(),
                self.options.cull.face(),
                self.line_corners.is_some(),
            )?);
        }
        if self.options.tev.debug == Some(DebugView::Wireframe) && self.wireframe.is_none() {
            let triangles = &self.file_triangles;
            self.wireframe = Some(WireframePass::new(
                ctx,
                self.skin.is_some(),
                self.surfaces.iter().map(|s| {
                    &triangles[s.file_first as usize..(s.file_first + s.index_count) as usize]
                }),
            )?);
        }
        let aspect = target.width as f32 / target.height as f32;
        let camera = self.view.frame_camera(aspect);
        let update_start = Instant::now();
        self.frame.set_target_size(target.width, target.height);
        self.frame.update(self.time, &camera, &self.lights);
        stats.uniform_blocks_uploaded = self.frame.changed().len();
        let upload = changed_span(self.uniform_stride, self.frame.changed());
        stats.update = update_start.elapsed();
        if self.first_frame {
            self.first_frame = false;
            self.build_first_pipelines(ctx, start + FIRST_FRAME_BUDGET);
        }
        if !self.pipelines_settled {
            self.poll_pipelines(ctx);
        }
        self.sort_runs();
        if self.states_epoch != Some(self.bundle_epoch) {
            self.states_epoch = Some(self.bundle_epoch);
            self.draw_states.clear();
            (self.draw_states).extend(self.slots.iter().map(|s| s.as_ref().map(DrawState::of)));
        }
        // Transparent surfaces back to front by their transformed centre.
        // Then draws of one material together where no pixel changes (not for skinned
        // vertices, whose boxes move). One pass over the surfaces in memory order finds
        // their depths and pixels.
        let view_from_model = camera.view_from_world;
        let clip_from_model = camera.clip_from_view * view_from_model;
        let (width, height) = (target.width, target.height);
        let clustered =
            self.plan_enabled && self.skin.is_none() && self.transparent_surfaces.len() > 2;
        let (depths, unsorted) = (&mut self.depths, &mut self.clustering.draws);
        depths.clear();
        unsorted.clear();
        for t in &self.transparent_surfaces {
            depths.push(view_from_model.transform_point3(t.draw.center).z);
            if clustered {
                let rect = match t.lines {
                    true => Rect::full(width, height),
                    false => Rect::covering(&t.draw.bounds, &clip_from_model, width, height),
                };
                unsorted.push((t.bucket, rect));
            }
        }
        // Last frame's back-to-front order is nearly this frame's: sorted again in few moves.
        let (keys, order) = (&mut self.transparent_order, &mut self.depth_order);
        if order.len() != depths.len() {
            order.clear();
            order.extend(0..depths.len() as u32);
        }
        keys.clear();
        keys.extend((order.iter()).map(|&i| depth_order_key(depths[i as usize], i as usize)));
        sort_nearly_sorted(keys);
        order.clear();
        order.extend(keys.iter().map(|&key| key as u32));
        if clustered {
            self.cluster_transparent((width, height));
        }
        let camera_uniforms = PickUniforms::new(
            clip_from_model,
            self.raster_viewport(target.width, target.height),
        );
        if let (Some(_), Some(tint)) = (self.highlight, &self.tint) {
            tint.write(ctx, &camera_uniforms);
        }
        let draws_wireframe = self.options.tev.debug == Some(DebugView::Wireframe);
        if let (true, Some(w)) = (draws_wireframe, &self.wireframe) {
            w.write(ctx, &camera_uniforms);
        }

        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("scene"),
            });
        self.upload_uniforms(ctx, &mut encoder, upload);
        // The overdraw count starts at zero.
        let clear = match (clear, self.options.tev.debug) {
            (ClearMode::Color(_), Some(view)) if view.counts_fragments() => {
                ClearMode::Color([0.0, 0.0, 0.0, 1.0])
            }
            _ => clear,
        };
        let clear_color = match clear {
            ClearMode::Color([r, g, b, a]) => Some(wgpu::Color { r, g, b, a }),
            ClearMode::Transparent => Some(wgpu::Color::TRANSPARENT),
            ClearMode::Load => None,
        };
        if let Some(index_buffer) = &self.index_buffer {
            // Draw order: opaque surfaces in plan order, then transparent ones back to front.
            let (states, show_occluders) = (&self.draw_states, self.options.show_occluders);
            let second_slot = &self.second_slot;
            let mut sorted = Vec::with_capacity(self.transparent_order.len());
            push_surface_draws(
                &mut sorted,
                states,
                second_slot,
                show_occluders,
                self.transparent_order
                    .iter()
                    .map(|&key| &self.transparent_surfaces[key as u32 as usize].draw),
            );
            // (The materials' keys decide, not which pipeline draws them now: a frame that
            // breaks its pass for copies while a shader is still compiling draws the same.)
            let sorted_copies = self.transparent_reads;
            // The opaque draws were recorded into the bundle of this epoch: no need to
            // list them again, unless this frame's pass breaks for a copy.
            let epoch = self.bundle_epoch;
            let bundled = matches!(&self.bundle, Some(b) if b.epoch == epoch);
            let mut draws = Vec::new();
            if !bundled || sorted_copies {
                push_surface_draws(
                    &mut draws,
                    states,
                    second_slot,
                    show_occluders,
                    self.run_order
                        .iter()
                        .flat_map(|&r| &self.plan.order[self.plan.runs[r].members.clone()])
                        .map(|&i| &self.surfaces[i])
                        .filter(|s| {
                            !s.hidden
                                && matches!(states.get(s.material), Some(Some(m)) if !m.transparent)
                        }),
                );
            }
            let copies = sorted_copies || draws.iter().any(Draw::reads_destination);
            if copies {
                Self::ensure_destination(&mut self.destination, ctx, target);
            }
            let vertices = (&self.vertex_buffer, self.line_corners.as_ref());
            let skin = self.skin.as_ref();
            let highlight = self.highlight.zip(self.tint.as_ref());
            let mut counts = DrawCounts::default();
            let mut pass = if !copies {
                // No pass breaks: the opaque draws replay as a render bundle, recorded again
                // only when `bundle_epoch` moves on. The sorted ones change while the camera
                // turns: they are recorded directly.
                if !bundled {
                    let (bundle, counts) =
                        Self::record_bundle(ctx, &draws, index_buffer, vertices, skin);
                    self.bundle = Some(CachedBundle {
                        epoch,
                        bundle,
                        counts,
                    });
                }
                let mut pass = target.begin_pass(&mut encoder, clear_color);
                pass.execute_bundles(self.bundle.iter().map(|b| &b.bundle));
                if !sorted.is_empty() || highlight.is_some() {
                    // Bundles leave no state behind.
                    bind_geometry(&mut pass, index_buffer, vertices, skin);
                }
                let replayed = self.bundle.as_ref().map(|b| b.counts).unwrap_or_default();
                counts = replayed + draw_list(&mut pass, &sorted);
                pass
            } else {
                draws.extend(sorted);
                let mut pass = Self::begin_pass(
                    &mut encoder,
                    target,
                    clear_color,
                    index_buffer,
                    vertices,
                    skin,
                );
                // Each group starts where a draw reading the destination meets pixels
                // drawn since the last copy: the pass ends there and the parts of the target
                // that the group's reading draws cover are copied first. A skinned model's
                // vertices move, so its draws may cover any pixel.
                let rects: Vec<Rect> = draws
                    .iter()
                    .map(|d| match skin {
                        Some(_) => Rect::full(width, height),
                        None => Rect::covering(&d.bounds, &clip_from_model, width, height),
                    })
                    .collect();
                for (range, copies) in copy_groups(&draws, &rects) {
                    if !copies.is_empty()
                        && let Some(d) = &self.destination
                    {
                        drop(pass);
                        for rect in copies {
                            d.copy_from(&mut encoder, target, rect);
                            stats.destination_copies += 1;
                        }
                        pass = Self::begin_pass(
                            &mut encoder,
                            target,
                            None,
                            index_buffer,
                            vertices,
                            skin,
                        );
                        pass.set_bind_group(GROUP_DESTINATION, &d.bind_group, &[]);
                    }
                    counts = counts + draw_list(&mut pass, &draws[range]);
                }
                pass
            };
            stats.draws = counts.draws;
            stats.uber_draws = counts.uber;
            stats.material_binds = counts.binds;
            if let Some((m, tint)) = highlight {
                Self::draw_tint(
                    &mut pass,
                    tint,
                    m,
                    &self.surfaces,
                    &self.slots,
                    &self.options,
                    skin,
                );
                Self::draw_tint_lines(
                    &mut pass,
                    tint,
                    m,
                    &self.surfaces,
                    &self.slots,
                    &self.options,
                    self.line_corners.as_ref(),
                );
            }
            if let (true, Some(w)) = (draws_wireframe, &self.wireframe) {
                let (surfaces, slots) = (&self.surfaces, &self.slots);
                let show_occluders = self.options.show_occluders;
                w.draw(
                    &mut pass,
                    vertices.0,
                    skin.map(|s| (&s.vertex_buffer, &s.bind_group)),
                    |i| surfaces[i].draws_triangles(slots, show_occluders),
                );
            }
        } else {
            drop(target.begin_pass(&mut encoder, clear_color));
        }
        stats.cpu = start.elapsed();
        self.submit(ctx, encoder);
        Ok(stats)
    }

    /// Sorts the plan's opaque runs nearest first ([`front_to_back`]) when the camera has
    /// turned or moved enough since the last sort. Any order the plan allows draws the same
    /// pixels; nearest first lets depth reject hidden fragments before they are shaded. A
    /// new order re-records the opaque bundle, so small camera moves keep the last one.
    fn sort_runs(&mut self) {
        if !self.plan.has_movable_runs() {
            return;
        }
        let (eye, forward) = (self.view.eye, self.view.forward);
        let size = (Vec3::from(self.aabb.max) - Vec3::from(self.aabb.min)).length();
        if let Some((e, f)) = self.sorted_for
            && f.dot(forward) >= RESORT_COS
            && e.distance(eye) <= RESORT_MOVE * size
        {
            return;
        }
        self.sorted_for = Some((eye, forward));
        front_to_back(
            &self.plan,
            eye.to_array(),
            forward.to_array(),
            &mut self.run_scratch,
            &mut self.sort_scratch,
        );
        if self.run_scratch != self.run_order {
            std::mem::swap(&mut self.run_scratch, &mut self.run_order);
            // A new order changes no material's draw state: current states stay current.
            let states_current = self.states_epoch == Some(self.bundle_epoch);
            self.bundle_epoch += 1;
            if states_current {
                self.states_epoch = Some(self.bundle_epoch);
            }
        }
    }

    /// Asks the pipeline cache again for every material not yet on the pipeline it will
    /// keep (specialized ones still compiling draw with the ubershader meanwhile). A
    /// changed pipeline moves `bundle_epoch` on: the recorded draws used the old one.
    fn poll_pipelines(&mut self, ctx: &RenderContext) {
        let path = self.options.shader;
        let wanted = match path {
            ShaderPath::Specialized => SelectedPath::Specialized,
            ShaderPath::Uber => SelectedPath::Uber,
        };
        let settled = |s: &Option<Selected>| s.as_ref().is_some_and(|s| s.path == wanted);
        let mut all_settled = true;
        let mut changed = false;
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let Some(slot) = slot else { continue };
            let pairs = [
                (
                    self.has_lines.get(i).copied().unwrap_or(false),
                    &mut slot.line_selected,
                    &mut slot.line_pipeline,
                    &slot.line_keys,
                ),
                (true, &mut slot.selected, &mut slot.pipeline, &slot.keys),
            ];
            for (used, selected, pipeline, keys) in pairs {
                if !used || settled(selected) {
                    continue;
                }
                let new = pipeline.select(&ctx.pipelines, &keys.0, &keys.1, path).ok();
                changed |= match (&*selected, &new) {
                    (Some(a), Some(b)) => !Arc::ptr_eq(&a.pipeline, &b.pipeline),
                    (None, None) => false,
                    _ => true,
                };
                all_settled &= settled(&new);
                *selected = new;
            }
        }
        self.pipelines_settled = all_settled;
        if changed {
            self.bundle_epoch += 1;
        }
    }

    /// Submits a frame, handing the upload belt's chunks back once the GPU is done with them.
    fn submit(&mut self, ctx: &RenderContext, encoder: wgpu::CommandEncoder) {
        if let Some(belt) = &mut self.upload_belt {
            belt.finish_and_recall_on_submit(&encoder);
        }
        ctx.queue.submit([encoder.finish()]);
    }

    /// The selection: the visible triangles of material `m` again, tinted.
    fn draw_tint(
        pass: &mut wgpu::RenderPass<'_>,
        tint: &TintPass,
        m: usize,
        surfaces: &[SurfaceDraw],
        slots: &[Option<MaterialSlot>],
        options: &SceneOptions,
        skin: Option<&SkinGpu>,
    ) {
        let visible =
            |s: &&SurfaceDraw| s.material == m && s.draws_triangles(slots, options.show_occluders);
        let mut bound = false;
        for s in surfaces.iter().filter(visible) {
            if !bound {
                tint.bind(pass);
                if let Some(skin) = skin {
                    pass.set_bind_group(1, &skin.bind_group, &[]);
                }
                bound = true;
            }
            pass.draw_indexed(s.first_index..s.first_index + s.index_count, 0, 0..1);
        }
    }

    /// The selection's GX line quads (unskinned models), tinted like its triangles.
    fn draw_tint_lines(
        pass: &mut wgpu::RenderPass<'_>,
        tint: &TintPass,
        m: usize,
        surfaces: &[SurfaceDraw],
        slots: &[Option<MaterialSlot>],
        options: &SceneOptions,
        corners: Option<&wgpu::Buffer>,
    ) {
        let Some(corners) = corners else { return };
        let visible =
            |s: &&SurfaceDraw| s.material == m && s.draws_lines(slots, options.show_occluders);
        let mut bound = false;
        for s in surfaces.iter().filter(visible) {
            if !bound {
                if !tint.bind_lines(pass) {
                    return;
                }
                pass.set_vertex_buffer(1, corners.slice(..));
                bound = true;
            }
            let lines = s.first_line_index..s.first_line_index + s.line_index_count;
            pass.draw_indexed(lines, 0, 0..1);
        }
    }

    /// Records `draws` (none reading the destination) as a render bundle; returns it and
    /// what it draws.
    fn record_bundle(
        ctx: &RenderContext,
        draws: &[Draw<'_>],
        index_buffer: &wgpu::Buffer,
        vertex_buffer: Vertices<'_>,
        skin: Option<&SkinGpu>,
    ) -> (wgpu::RenderBundle, DrawCounts) {
        let mut e = ctx
            .device
            .create_render_bundle_encoder(&wgpu::RenderBundleEncoderDescriptor {
                label: Some("scene draws"),
                color_formats: &[Some(COLOR_FORMAT)],
                depth_stencil: Some(wgpu::RenderBundleDepthStencil {
                    format: DEPTH_FORMAT,
                    depth_read_only: false,
                    stencil_read_only: false,
                }),
                sample_count: 1,
                multiview: None,
            });
        bind_geometry(&mut e, index_buffer, vertex_buffer, skin);
        let counts = draw_list(&mut e, draws);
        let bundle = e.finish(&wgpu::RenderBundleDescriptor {
            label: Some("scene draws"),
        });
        (bundle, counts)
    }

    /// Uploads the pending material buffer writes and `span` of the uniform buffer (see
    /// [`changed_span`]) through the staging belt, copying the frame update's blocks
    /// straight into the staging memory.
    fn upload_uniforms(
        &mut self,
        ctx: &RenderContext,
        encoder: &mut wgpu::CommandEncoder,
        span: Option<std::ops::Range<usize>>,
    ) {
        let chunk = self
            .uniforms
            .as_ref()
            .map_or(0, wgpu::Buffer::size)
            .max(1 << 16);
        let belt = self
            .upload_belt
            .get_or_insert_with(|| wgpu::util::StagingBelt::new(ctx.device.clone(), chunk));
        for (buffer, bytes) in self.pending_writes.drain(..) {
            if let Some(size) = wgpu::BufferSize::new(bytes.len() as u64) {
                belt.write_buffer(encoder, &buffer, 0, size)
                    .copy_from_slice(&bytes);
            }
        }
        let (Some(buffer), Some(span)) = (&self.uniforms, span) else {
            return;
        };
        let Some(size) =
            wgpu::BufferSize::new(span.len() as u64).filter(|_| span.end as u64 <= buffer.size())
        else {
            return;
        };
        let mut staged = belt.write_buffer(encoder, buffer, span.start as u64, size);
        // Every block inside the span (changed or not: the write covers them), assembled in
        // a scratch block; the padding between blocks is never read.
        let block_size = std::mem::size_of::<DrawUniforms>();
        let mut block = DrawUniforms::default();
        let first = span.start / self.uniform_stride.max(1);
        for b in first..self.frame.material_count() {
            let at = b * self.uniform_stride;
            if at + block_size > span.end {
                break;
            }
            if self.frame.write_block(b, &mut block) {
                let at = at - span.start;
                staged
                    .slice(at..at + block_size)
                    .copy_from_slice(bytemuck::bytes_of(&block));
            }
        }
    }

    /// Block `block` of the shared uniform buffer.
    fn block_binding(
        buffer: &wgpu::Buffer,
        stride: usize,
        block: usize,
    ) -> wgpu::BufferBinding<'_> {
        wgpu::BufferBinding {
            buffer,
            offset: (block * stride) as u64,
            size: wgpu::BufferSize::new(std::mem::size_of::<DrawUniforms>() as u64),
        }
    }

    /// The first frame's pipelines: every specialized one not built yet, in parallel until
    /// `deadline`; those left are built in the background while the ubershader draws.
    fn build_first_pipelines(&self, ctx: &RenderContext, deadline: Instant) {
        if self.options.shader != ShaderPath::Specialized {
            return;
        }
        let mut keys = Vec::new();
        for (i, slot) in self.slots.iter().enumerate() {
            let Some(slot) = slot else { continue };
            keys.push(slot.keys.0.clone());
            if self.has_lines.get(i).copied().unwrap_or(false) {
                keys.push(slot.line_keys.0.clone());
            }
        }
        let mut seen = std::collections::HashSet::new();
        keys.retain(|k| seen.insert(k.clone()));
        ctx.pipelines.get_all_until(&keys, deadline);
    }

    /// A pass on `target` with the scene's buffers (and skin palette) bound.
    fn begin_pass<'e>(
        encoder: &'e mut wgpu::CommandEncoder,
        target: &OffscreenTarget,
        clear: Option<wgpu::Color>,
        index_buffer: &'e wgpu::Buffer,
        vertex_buffer: Vertices<'e>,
        skin: Option<&'e SkinGpu>,
    ) -> wgpu::RenderPass<'e> {
        let mut pass = target.begin_pass(encoder, clear);
        bind_geometry(&mut pass, index_buffer, vertex_buffer, skin);
        pass
    }

    fn ensure_destination(
        destination: &mut Option<Destination>,
        ctx: &RenderContext,
        target: &OffscreenTarget,
    ) {
        if destination
            .as_ref()
            .is_none_or(|d| (d.width, d.height) != (target.width, target.height))
        {
            *destination = Some(Destination::new(ctx, target.width, target.height));
        }
    }

    /// Which surface covers pixel (x, y) of a `width` × `height` view with the current
    /// camera, pose and time (what [`Scene::render`] into a target of that size shows):
    /// an ID pass over every drawn surface's triangles with the colour pass's culling and
    /// depth test. None on background. Alpha-tested holes still pick their surface (the ID
    /// pass runs no TEV).
    pub fn pick(
        &mut self,
        ctx: &RenderContext,
        width: u32,
        height: u32,
        x: u32,
        y: u32,
    ) -> Result<Option<PickHit>, RenderError> {
        if x >= width || y >= height {
            return Ok(None);
        }
        self.apply_rebinds(ctx);
        self.apply_edits(ctx);
        if self.plan_dirty {
            self.refresh_plan(ctx);
        }
        self.update_skin(ctx);
        let Some(index_buffer) = &self.index_buffer else {
            return Ok(None);
        };
        let mut pass = match self.pick.take() {
            Some(p) => p,
            None => PickPass::new(
                ctx,
                self.skin.is_some(),
                self.options.cull.face(),
                self.line_corners.is_some(),
            )?,
        };
        let camera = self.view.frame_camera(width as f32 / height as f32);
        let uniforms = PickUniforms::new(
            camera.clip_from_view * camera.view_from_world,
            self.raster_viewport(width, height),
        );
        let surfaces = &self.surfaces;
        let slots = &self.slots;
        let show_occluders = self.options.show_occluders;
        let draw = |rp: &mut wgpu::RenderPass<'_>| {
            rp.set_index_buffer(index_buffer.slice(..), wgpu::IndexFormat::Uint32);
            rp.set_vertex_buffer(0, self.vertex_buffer.slice(..));
            if let Some(skin) = &self.skin {
                rp.set_vertex_buffer(1, skin.vertex_buffer.slice(..));
                rp.set_bind_group(1, &skin.bind_group, &[]);
            }
            for (i, s) in surfaces.iter().enumerate() {
                if s.draws_triangles(slots, show_occluders) {
                    let id = i as u32;
                    rp.draw_indexed(s.first_index..s.first_index + s.index_count, 0, id..id + 1);
                }
            }
        };
        // GX line quads (unskinned models): the corners' input in vertex buffer 1.
        let draw_lines = |rp: &mut wgpu::RenderPass<'_>| {
            let Some(corners) = &self.line_corners else {
                return;
            };
            rp.set_vertex_buffer(1, corners.slice(..));
            for (i, s) in surfaces.iter().enumerate() {
                if s.draws_lines(slots, show_occluders) {
                    let id = i as u32;
                    let lines = s.first_line_index..s.first_line_index + s.line_index_count;
                    rp.draw_indexed(lines, 0, id..id + 1);
                }
            }
        };
        let result = pass.run(ctx, width, height, x, y, &uniforms, draw, draw_lines);
        self.pick = Some(pass);
        Ok(result?.map(|(surface, depth)| PickHit {
            surface: surface as usize,
            material: self
                .surfaces
                .get(surface as usize)
                .map_or(usize::MAX, |s| s.material),
            depth,
        }))
    }

    /// The vertex-snapping viewport of a `width` × `height` frame (the colour pass's, so
    /// picks, tints and edges land on the pixels drawn).
    fn raster_viewport(&self, width: u32, height: u32) -> [f32; 4] {
        raster_viewport(width, height, !self.options.frame.host_raster)
    }

    /// Renders at `width` × `height` and reads the image written for the user back: opaque
    /// over the viewer's grey, or over a transparent background with alpha from coverage
    /// (see [`ImageAlpha`]).
    pub fn render_to_image(
        &mut self,
        ctx: &RenderContext,
        width: u32,
        height: u32,
        transparent: bool,
    ) -> Result<RgbaImage, RenderError> {
        let target = OffscreenTarget::new(ctx, width, height)?;
        let (clear, alpha) = if transparent {
            (ClearMode::Transparent, ImageAlpha::Coverage)
        } else {
            (ClearMode::BACKGROUND, ImageAlpha::Opaque)
        };
        self.finish_pipelines(ctx);
        self.render(ctx, &target, clear)?;
        target.read_image(ctx, alpha)
    }

    /// Waits until every requested specialized pipeline is built, so the next render
    /// uses them (deterministic output for the CLI and tests).
    pub fn finish_pipelines(&mut self, ctx: &RenderContext) {
        let uber = self.options.shader == ShaderPath::Uber;
        let mut keys = Vec::new();
        for (i, slot) in self.slots.iter_mut().enumerate() {
            let Some(slot) = slot else { continue };
            keys.push(if uber { &slot.keys.1 } else { &slot.keys.0 }.clone());
            slot.selected = None;
            if self.has_lines.get(i).copied().unwrap_or(false) {
                keys.push(
                    if uber {
                        &slot.line_keys.1
                    } else {
                        &slot.line_keys.0
                    }
                    .clone(),
                );
                slot.line_selected = None;
            }
        }
        ctx.pipelines.get_all_blocking(&keys);
        self.pipelines_settled = false;
    }
}

/// Whether a model's texture slots (`own`) bind exactly the TXTR IDs `ids`.
fn same_ids(own: &[Result<u64, String>], ids: &[Option<u64>]) -> bool {
    own.len() == ids.len()
        && own
            .iter()
            .zip(ids)
            .all(|(a, b)| a.as_ref().ok() == b.as_ref())
}

/// Material `index` of set `set` as drawn: the edit in `overrides`, else the model's own.
fn effective_material<'a>(
    overrides: &'a HashMap<(usize, usize), Material>,
    cpu: &'a CpuModel,
    set: usize,
    index: usize,
) -> Option<&'a Material> {
    let own = cpu.material(set, index)?;
    Some(overrides.get(&(set, index)).unwrap_or(own))
}

/// The material slot `index` draws: material `index` of set `set` (its edit if any) or,
/// for a second draw's slot (`second_slot`), the second draw of the material owning it.
fn slot_material<'a>(
    overrides: &'a HashMap<(usize, usize), Material>,
    cpu: &'a CpuModel,
    set: usize,
    second_slot: &[Option<usize>],
    index: usize,
) -> Option<&'a Material> {
    match second_slot.iter().position(|s| *s == Some(index)) {
        Some(owner) => {
            let m = cpu.material_sets.get(set)?.materials.get(owner)?;
            m.second_draw.as_ref()?.gx.as_ref().ok()
        }
        None => effective_material(overrides, cpu, set, index),
    }
}

/// Prime's sampling of a model texture (`gx.md` §14): REPEAT, linear, linear-mip-linear
/// when mipped; exactly as GX unless `host`.
fn gx_sampler(mip_count: u32, host: bool) -> SamplerMode {
    let wrap = Wrap::Repeat;
    if host {
        SamplerMode::GxHost { wrap, mip_count }
    } else {
        SamplerMode::Gx { wrap, mip_count }
    }
}

#[cfg(test)]
mod tests {
    use super::{Clustering, Rect, depth_order_key, sort_nearly_sorted};
    use std::ops::Range;

    fn rect(x0: u32, y0: u32, x1: u32, y1: u32) -> Rect {
        Rect { x0, y0, x1, y1 }
    }

    const SCREEN: (u32, u32) = (320, 96);

    /// The clustered order of draws with `buckets` and `rects`, and its clusters as
    /// (span, apart).
    fn cluster(buckets: &[usize], rects: &[Rect]) -> (Vec<usize>, Vec<(Range<usize>, bool)>) {
        let mut c = Clustering {
            draws: buckets
                .iter()
                .map(|&b| Some(b))
                .zip(rects.iter().copied())
                .collect(),
            ..Default::default()
        };
        c.order(0..buckets.len(), SCREEN);
        let spans = c.clusters.iter().map(|c| (c.span.clone(), c.apart));
        (c.places.clone(), spans.collect())
    }

    /// A small deterministic random source (xorshift64) for the randomized tests.
    fn xorshift(mut state: u64) -> impl FnMut() -> u64 {
        move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        }
    }

    fn order(buckets: &[usize], rects: &[Rect]) -> Vec<usize> {
        cluster(buckets, rects).0
    }

    #[test]
    fn draws_of_one_bucket_gather_where_their_pixels_allow() {
        // One cell apart (cells are 16 pixels).
        let apart = [
            rect(0, 0, 10, 10),
            rect(64, 0, 74, 10),
            rect(128, 0, 138, 10),
            rect(192, 0, 202, 10),
        ];
        let (o, clusters) = cluster(&[0, 1, 0, 1], &apart);
        assert_eq!(o, [0, 2, 1, 3]);
        assert_eq!(clusters, [(0..2, true), (2..4, true)]);
        // Draw 2 meets draw 1: it stays after it, so bucket 0 has two clusters.
        let met = [rect(0, 0, 10, 10), rect(64, 0, 74, 10), rect(70, 5, 80, 15)];
        assert_eq!(order(&[0, 1, 0], &met), [0, 1, 2]);
        // Apart in pixels but in one cell: kept in order (the cells are conservative).
        let near = [rect(0, 0, 4, 10), rect(5, 0, 9, 10), rect(10, 0, 14, 10)];
        assert_eq!(order(&[0, 1, 0], &near), [0, 1, 2]);
        // An empty rectangle (off screen) moves past anything.
        let off = [rect(0, 0, 10, 10), rect(0, 0, 10, 10), rect(5, 5, 5, 5)];
        assert_eq!(order(&[0, 1, 0], &off), [0, 2, 1]);
        // Draws of one bucket that meet gather, in their order: not apart.
        let stacked = [
            rect(0, 0, 10, 10),
            rect(100, 0, 110, 10),
            rect(5, 5, 15, 15),
        ];
        let (o, clusters) = cluster(&[0, 1, 0], &stacked);
        assert_eq!(o, [0, 2, 1]);
        assert_eq!(clusters, [(0..2, false), (2..3, true)]);
        // A draw without a bucket joins nothing and nothing joins it.
        let mut c = Clustering {
            draws: [Some(0), None, Some(0), None]
                .into_iter()
                .zip(apart)
                .collect(),
            ..Default::default()
        };
        c.order(0..4, SCREEN);
        assert_eq!(c.places, [0, 2, 1, 3]);
        assert_eq!(c.clusters.len(), 3);
    }

    /// For random draws: the order is a permutation, and any two draws whose order
    /// flipped cover disjoint pixels, also after reversing every apart cluster; some do
    /// flip.
    #[test]
    fn clustering_only_swaps_draws_with_disjoint_pixels() {
        let mut random = xorshift(0x2545_f491_4f6c_dd1d);
        let mut next = |n: u32| (random() % u64::from(n)) as u32;
        let (mut flips, mut reversed) = (0, 0);
        // One clustering for every round, as a scene keeps it: cells from earlier rounds
        // must count as empty, also when the numbering starts again.
        let mut c = Clustering::default();
        for round in 0..200 {
            if round == 100 {
                c.base = u32::MAX - 3;
            }
            let n = 1 + next(40) as usize;
            let buckets: Vec<Option<usize>> = (0..n)
                .map(|_| Some(next(5) as usize).filter(|&b| b < 4))
                .collect();
            let rects = (0..n).map(|_| {
                let (x, y) = (next(280), next(80));
                rect(x, y, x + next(40), (y + next(30)).min(SCREEN.1))
            });
            c.draws = buckets.into_iter().zip(rects.collect::<Vec<_>>()).collect();
            c.order(0..n, SCREEN);
            let mut order = c.places.clone();
            for cl in &c.clusters {
                let first = c.draws[order[cl.span.start]].0;
                assert!(cl.span.clone().all(|p| c.draws[order[p]].0 == first));
                assert!(first.is_some() || cl.span.len() == 1);
                if cl.apart && cl.span.len() > 1 {
                    order[cl.span.clone()].reverse();
                    reversed += 1;
                }
            }
            let mut position = vec![usize::MAX; n];
            for (p, &i) in order.iter().enumerate() {
                assert_eq!(position[i], usize::MAX, "{order:?} repeats {i}");
                position[i] = p;
            }
            assert!(position.iter().all(|&p| p < n), "{order:?} misses a draw");
            for i in 0..n {
                for j in i + 1..n {
                    if position[i] > position[j] {
                        assert!(!c.draws[i].1.overlaps(&c.draws[j].1), "{i} and {j} meet");
                        flips += 1;
                    }
                }
            }
        }
        assert!(flips > 100, "only {flips} draws moved");
        assert!(reversed > 20, "only {reversed} apart clusters");
    }

    /// The screen box of a model box is its eight corners' pixels, a pixel wider each
    /// side, clamped to the target (worked out here the plain way).
    #[test]
    fn covering_is_the_corners_pixels_widened_by_one() {
        use glam::{Mat4, Vec3};
        let around = crate::geom::Aabb {
            min: [-3.0; 3],
            max: [3.0; 3],
        };
        let camera = crate::camera::OrbitCamera::framing(&around).frame_camera(16.0 / 9.0);
        let clip_from_model: Mat4 = camera.clip_from_view * camera.view_from_world;
        let (width, height) = (1280u32, 720u32);
        for (min, max) in [
            ([-1.0, -1.0, -1.0], [1.0, 1.0, 1.0]),
            ([0.25, -0.5, 0.0], [0.5, 0.75, 0.125]),
            ([-9.0, -0.1, -2.0], [-8.0, 0.1, -1.5]),
            ([2.0, 2.0, 2.0], [2.0, 2.0, 2.0]),
        ] {
            let b = crate::geom::Aabb { min, max };
            let (mut lo, mut hi) = ([f32::MAX; 2], [f32::MIN; 2]);
            for k in 0..8 {
                let pick = |axis: usize| {
                    if k >> axis & 1 == 0 {
                        min[axis]
                    } else {
                        max[axis]
                    }
                };
                let c = clip_from_model * Vec3::new(pick(0), pick(1), pick(2)).extend(1.0);
                let (x, y) = (c.x / c.w, c.y / c.w);
                let px = ((x * 0.5 + 0.5) * width as f32).clamp(0.0, width as f32);
                let py = ((0.5 - y * 0.5) * height as f32).clamp(0.0, height as f32);
                (lo, hi) = (
                    [lo[0].min(px), lo[1].min(py)],
                    [hi[0].max(px), hi[1].max(py)],
                );
            }
            let expected = Rect {
                x0: (lo[0].floor() as u32).saturating_sub(1),
                y0: (lo[1].floor() as u32).saturating_sub(1),
                x1: (hi[0].ceil() as u32 + 1).min(width),
                y1: (hi[1].ceil() as u32 + 1).min(height),
            };
            assert_eq!(
                Rect::covering(&b, &clip_from_model, width, height),
                expected,
                "{min:?}..{max:?}"
            );
        }
    }

    #[test]
    fn nearly_sorted_keys_sort_like_sort_unstable() {
        let mut next = xorshift(0x2545_f491);
        for n in [0, 1, 2, 40, 300] {
            let mut keys: Vec<u64> = (0..n).map(|_| next() % 1000).collect();
            keys.sort_unstable();
            // A few neighbours swapped (a small turn), then everything shuffled.
            for _ in 0..n / 10 {
                let i = (next() % n.max(2) as u64) as usize;
                if i + 1 < keys.len() {
                    keys.swap(i, i + 1);
                }
            }
            for shuffled in [false, true] {
                if shuffled {
                    for i in (1..keys.len()).rev() {
                        keys.swap(i, (next() % (i as u64 + 1)) as usize);
                    }
                }
                let mut expected = keys.clone();
                expected.sort_unstable();
                let mut sorted = keys.clone();
                sort_nearly_sorted(&mut sorted);
                assert_eq!(sorted, expected, "{n} keys, shuffled: {shuffled}");
            }
        }
    }

    #[test]
    fn depth_keys_sort_as_total_cmp_then_index() {
        let depths = [
            3.5f32,
            -0.0,
            0.0,
            -12.25,
            f32::MIN_POSITIVE,
            -f32::MIN_POSITIVE,
            -12.25,
            1e30,
            -1e30,
            0.5,
        ];
        let mut expected: Vec<(f32, usize)> = depths.iter().copied().zip(0..).collect();
        expected.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let mut keys: Vec<u64> = (0..)
            .zip(depths)
            .map(|(i, z)| depth_order_key(z, i))
            .collect();
        keys.sort_unstable();
        let order: Vec<usize> = keys.iter().map(|&k| k as u32 as usize).collect();
        let expected: Vec<usize> = expected.iter().map(|&(_, i)| i).collect();
        assert_eq!(order, expected);
    }
}
