//! `tevscope render` and `tevscope bench`: whole models drawn offscreen by
//! [`crate::render::Scene`].
//!
//! The input is a CMDL (loose or `PAK:ID`) or an ANCS character: the character's model,
//! skin, skeleton and animations are found by asset ID through the input's resolver (the
//! same PAK, or the files of the same folder), as are a model's textures.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{Context, Result};

use crate::formats::Game;
use crate::gx::wgsl::debug::DebugView;
use crate::gx::wgsl::stage_view::StageView;
use crate::load::{LoadRequest, Mp3Alts, scene_lights};
use crate::model::shapes::PreviewShape;
use crate::render::scene::{ClearMode, Scene};
use crate::render::{OffscreenTarget, RenderContext, ShaderPath};
use crate::schema::bench::{BenchReport, FrameSamples, ms};
use crate::session::Session;

/// Everything `tevscope render` takes.
#[derive(Debug, Clone, PartialEq)]
pub struct RenderRequest {
    /// A CMDL, `PAK:ID` or an ANCS character.
    pub file: String,
    pub output: PathBuf,
    pub width: u32,
    pub height: u32,
    /// Seconds (UV animations and the skeletal animation).
    pub time: f32,
    /// An ANIM file / `PAK:ID`, or a character animation's name or index.
    pub anim: Option<String>,
    /// A CMDL instead of the model a character names (`--model`).
    pub model: Option<String>,
    /// CSKR and CINF instead of a character's, or for a loose CMDL (`--skin`, `--skeleton`).
    pub skin: Option<String>,
    pub skeleton: Option<String>,
    /// Folders searched for textures before the input's own (`--texture-dir`).
    pub texture_dirs: Vec<PathBuf>,
    /// `layerN` of the area drawn, `basic`, `none` or another MREA (its first light layer);
    /// default: an area's layer 0, `basic` for models (see [`scene_lights`]).
    pub lights: Option<String>,
    /// yaw, pitch (degrees), distance (model units); default frames the model.
    pub camera: Option<[f32; 3]>,
    pub transparent: bool,
    /// Material set (alternate skins).
    pub material_set: usize,
    pub game: Option<Game>,
    /// Specialized pipelines (default) or the ubershader only.
    pub shader: ShaderPath,
    /// Exact GX blending in the shader (`TevOptions::exact_blend`).
    pub exact_blend: bool,
    /// MP3 Alts switched on (`--mp3-alt`).
    pub mp3_alts: Mp3Alts,
    /// Draw material `material` of set `material_set` alone on this shape instead of the
    /// model (`--preview sphere|cube|plane|torus`).
    pub preview: Option<PreviewShape>,
    /// The material a shape preview shows (`--material`).
    pub material: usize,
    /// A debug view instead of the shaded pixels (`--debug`; specialized shaders only).
    pub debug: Option<DebugView>,
    /// Materials drawn as a stage view (`--stage K`, with `--material N`).
    pub stage_view: Option<StageView>,
}

impl RenderRequest {
    pub fn new(file: impl Into<String>, output: impl Into<PathBuf>) -> Self {
        Self {
            file: file.into(),
            output: output.into(),
            width: 512,
            height: 512,
            time: 0.0,
            anim: None,
            model: None,
            skin: None,
            skeleton: None,
            texture_dirs: Vec::new(),
            lights: None,
            camera: None,
            transparent: false,
            material_set: 0,
            game: None,
            shader: ShaderPath::Specialized,
            exact_blend: false,
            mp3_alts: Mp3Alts::default(),
            preview: None,
            material: 0,
            debug: None,
            stage_view: None,
        }
    }
}

/// The scene, the model's label, the files it was loaded from and the warnings.
pub type Built = (Scene, String, Vec<String>, Vec<String>);

pub fn build_scene(ctx: &RenderContext, req: &RenderRequest) -> Result<Built> {
    let mut session = Session::open_model(&LoadRequest {
        file: req.file.clone(),
        model: req.model.clone(),
        skin: req.skin.clone(),
        skeleton: req.skeleton.clone(),
        anim: req.anim.clone(),
        texture_dirs: req.texture_dirs.clone(),
        game: req.game,
        mp3_alts: req.mp3_alts,
    })?;
    let loaded = session.loaded().context("not a model")?;
    let cpu = Arc::clone(loaded.model);
    let (label, animation) = (loaded.label.to_owned(), loaded.animation);
    let (light_layers, sources) = (loaded.light_layers.to_vec(), loaded.sources.to_vec());
    let mut warnings = loaded.warnings.to_vec();
    let options = crate::render::SceneOptions {
        // A shape preview's model holds the chosen material as its only set.
        material_set: if req.preview.is_some() {
            0
        } else {
            req.material_set
        },
        shader: req.shader,
        stage_view: req.stage_view,
        tev: crate::gx::tev::TevOptions {
            exact_blend: req.exact_blend,
            debug: req.debug,
            ..Default::default()
        },
        ..Default::default()
    };
    let (cpu, label) = match req.preview {
        None => (cpu, label),
        Some(shape) => {
            let preview = cpu
                .material_preview(shape, req.material_set, req.material)
                .with_context(|| {
                    format!(
                        "{} has no material {} in set {} (it has {} sets; `info` lists them)",
                        label,
                        req.material,
                        req.material_set,
                        cpu.material_sets.len()
                    )
                })?;
            let label = format!("{}, material {} on a {}", label, req.material, shape.name());
            (Arc::new(preview), label)
        }
    };
    let mut scene =
        Scene::with_options(ctx, cpu, options).with_context(|| format!("preparing {label}"))?;
    if let Some(m) = req
        .stage_view
        .and_then(|v| v.material)
        .filter(|&m| m >= scene.material_count())
    {
        anyhow::bail!(
            "{label} has no material {m} in set {} (it has {}; `info` lists them)",
            req.material_set,
            scene.material_count()
        );
    }
    scene.set_lights(scene_lights(req.lights.as_deref(), &light_layers)?);
    session.clock.time = f64::from(req.time);
    scene.set_time(session.clock.time);
    scene.set_animation(animation);
    // The core's camera, framed on what is drawn (a preview shape, or the model).
    session.camera.frame_box(&scene.aabb());
    if let Some([yaw, pitch, distance]) = req.camera {
        let c = &mut session.camera.orbit;
        (c.yaw_degrees, c.pitch_degrees, c.distance) = (yaw, pitch, distance);
    }
    scene.set_camera(session.camera.orbit);
    warnings.append(&mut scene.warnings.clone());
    Ok((scene, label, sources, warnings))
}

/// `tevscope render FILE -o shot.png …`: draws the model offscreen and writes a PNG.
/// Returns the report printed to stdout.
pub fn render_model(req: &RenderRequest) -> Result<String> {
    let ctx = RenderContext::new(crate::render::AdapterPreference::Hardware)?;
    let (mut scene, label, sources, warnings) = build_scene(&ctx, req)?;
    let image = scene.render_to_image(&ctx, req.width, req.height, req.transparent)?;
    image
        .save_png(&req.output)
        .with_context(|| format!("writing {}", req.output.display()))?;
    let mut out = format!(
        "{label}: {} surfaces, {} triangles{} → {} ({}×{}, {})\n",
        scene.model().surfaces.len(),
        scene.model().triangle_count(),
        match scene.animation() {
            Some(a) => format!(
                ", animation {:?} at {}s",
                scene.animation_names().get(a).copied().unwrap_or("?"),
                req.time
            ),
            None => String::new(),
        },
        req.output.display(),
        req.width,
        req.height,
        ctx.adapter_info.name,
    );
    if let Some(v) = req.stage_view {
        let _ = match v.material {
            Some(m) => writeln!(out, "stage view: stage {} of material {m}", v.stage),
            None => writeln!(
                out,
                "stage view: stage {} of every material (or its last stage)",
                v.stage
            ),
        };
    }
    for s in sources {
        let _ = writeln!(out, "using {s}");
    }
    for w in warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    Ok(out)
}

/// Times `frames` frames of `req` (file, size, shader path and blending; no output file)
/// offscreen, time advancing 1/60 s per frame and the orbit camera turning: CPU and GPU
/// frame times.
pub fn bench_report(req: &RenderRequest, frames: u32) -> Result<BenchReport> {
    let ctx = RenderContext::new(crate::render::AdapterPreference::Hardware)?;
    let size = (req.width, req.height);
    let shader = req.shader;
    let opened = Instant::now();
    let (mut scene, label, _, _) = build_scene(&ctx, req)?;
    if scene.is_skinned() && scene.animation().is_none() && !scene.animation_names().is_empty() {
        scene.set_animation(Some(0));
    }
    let target = OffscreenTarget::new(&ctx, size.0, size.1)?;
    scene.render(&ctx, &target, ClearMode::BACKGROUND)?;
    ctx.wait_idle()?;
    let first_frame_ms = ms(opened.elapsed());
    // Warm-up: specialized pipelines compiled, first uploads done.
    scene.finish_pipelines(&ctx);
    scene.render(&ctx, &target, ClearMode::BACKGROUND)?;
    ctx.wait_idle()?;
    let frames = frames.max(1);
    let mut samples = FrameSamples::default();
    let camera = crate::camera::OrbitCamera::framing(&scene.aabb());
    let mut last = crate::render::scene::FrameStats::default();
    for i in 0..frames {
        let start = Instant::now();
        scene.set_time(f64::from(i) / 60.0);
        let mut c = camera;
        c.yaw_degrees += i as f32 * 0.5;
        scene.set_camera(c);
        let stats = scene.render(&ctx, &target, ClearMode::BACKGROUND)?;
        let submitted = Instant::now();
        ctx.wait_idle()?;
        let done = Instant::now();
        samples.cpu.push(ms(stats.cpu));
        samples.update.push(ms(stats.update));
        samples.gpu.push(ms(done - submitted));
        samples.total.push(ms(done - start));
        last = stats;
    }
    Ok(BenchReport {
        file: label,
        adapter: format!("{} ({:?})", ctx.adapter_info.name, ctx.adapter_info.backend),
        width: size.0,
        height: size.1,
        frames,
        surfaces: scene.model().surfaces.len(),
        triangles: scene.model().triangle_count(),
        shader: format!("{shader:?}").to_lowercase(),
        exact_blend: req.exact_blend,
        first_frame_ms,
        draws: last.draws,
        uniform_blocks_uploaded: last.uniform_blocks_uploaded,
        destination_copies: last.destination_copies,
        ..Default::default()
    }
    .with_times(samples))
}

/// `tevscope bench FILE [--size WxH] [--frames N] [--json]`.
pub fn bench(req: &RenderRequest, frames: u32, json: bool) -> Result<String> {
    let r = bench_report(req, frames)?;
    Ok(crate::schema::json_or_text(&r, json, BenchReport::text)?)
}

/// `tevscope render SOURCE --overview WORLD`: every room's geometry from above, tinted per
/// room as the viewer's overview draws it, fitted to the world's bounds.
pub fn render_world_overview(
    source: &str,
    world: &str,
    output: &std::path::Path,
    (width, height): (u32, u32),
    background: [u8; 4],
) -> Result<String> {
    use crate::model::overview::room_tint;
    use crate::render::overview::{OverviewCamera, render_overview};
    let overview = crate::load::overview::load_overview(std::path::Path::new(source), world, None)?;
    let b = overview.bounds().with_context(|| {
        format!(
            "{source}: world {:?} has no room with bounds or geometry",
            overview.name
        )
    })?;
    let camera = OverviewCamera::fit(b.min, b.max, width, height);
    let rooms: Vec<_> = (overview.rooms.iter())
        .filter_map(|r| Some((r.area as u32, r.mesh.as_ref().ok()?, room_tint(r.area))))
        .collect();
    let ctx = RenderContext::new(crate::render::AdapterPreference::Hardware)?;
    let image = render_overview(&ctx, &rooms, &camera, width, height, background)?;
    image.save_png(output)?;
    let failed: Vec<String> = (overview.rooms.iter())
        .filter_map(|r| {
            r.mesh
                .as_ref()
                .err()
                .map(|e| format!("\n  {}: {e}", r.name))
        })
        .collect();
    Ok(format!(
        "wrote {} ({width}x{height}, {:?} from above: {} rooms, {} drawn){}",
        output.display(),
        overview.name,
        overview.rooms.len(),
        rooms.iter().filter(|r| !r.1.triangles.is_empty()).count(),
        failed.concat()
    ))
}
