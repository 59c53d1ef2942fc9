//! `tevscope render` and `tevscope bench`: whole models drawn offscreen by
//! [`crate::render::Scene`].
//!
//! The input is a CMDL (loose or `PAK:ID`) or an ANCS character: the character's model,
//! skin, skeleton and animations are found by asset ID through the input's resolver (the
//! same PAK, or the files of the same folder), as are a model's textures.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, anyhow, bail};
use serde::Serialize;

use super::source::{self, Resolver, Resource};
use crate::anim::{Clip, Skeleton};
use crate::formats::Game;
use crate::formats::ancs::Ancs;
use crate::formats::anim::Anim;
use crate::formats::cinf::Cinf;
use crate::formats::cmdl::Cmdl;
use crate::formats::cskr::Cskr;
use crate::formats::txtr::Txtr;
use crate::gx::lights::{LightOptions, LightPreset, LightSet};
use crate::render::scene::{ClearMode, ModelAssets, Scene, SkinAssets};
use crate::render::{OffscreenTarget, RenderContext, TextureData};

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
    /// CSKR and CINF for a loose CMDL (`--skin`, `--skeleton`).
    pub skin: Option<String>,
    pub skeleton: Option<String>,
    /// An MREA (its first light layer), `basic` (default) or `none`.
    pub lights: Option<String>,
    /// yaw, pitch (degrees), distance (model units); default frames the model.
    pub camera: Option<[f32; 3]>,
    pub transparent: bool,
    /// Material set (alternate skins).
    pub material_set: usize,
    pub game: Option<Game>,
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
            skin: None,
            skeleton: None,
            lights: None,
            camera: None,
            transparent: false,
            material_set: 0,
            game: None,
        }
    }
}

/// A model with what it needs, and the animation the request asked for.
pub struct LoadedModel {
    pub label: String,
    pub assets: ModelAssets,
    pub animation: Option<usize>,
}

fn find(resolver: &dyn Resolver, id: u64, fourcc: &[u8; 4], what: &str) -> Result<Resource> {
    resolver.find(id, Some(*fourcc))?.ok_or_else(|| {
        anyhow!(
            "{what} 0x{id:08X}.{} not found in {}",
            String::from_utf8_lossy(fourcc),
            resolver.describe()
        )
    })
}

fn open_typed(spec: &str, fourcc: &[u8; 4]) -> Result<Resource> {
    let (r, _) = source::open(spec)?;
    if r.fourcc.is_some_and(|f| &f != fourcc) {
        bail!(
            "{}: expected a {}",
            r.label,
            String::from_utf8_lossy(fourcc)
        );
    }
    Ok(r)
}

/// Textures of every material set, decoded; IDs that are missing or broken are left out
/// (the scene draws the white placeholder and warns).
fn load_textures(
    cmdl: &Cmdl,
    resolver: &dyn Resolver,
    warnings: &mut Vec<String>,
) -> ModelTextures {
    let mut out = ModelTextures::new();
    for set in &cmdl.material_sets {
        for &id in &set.texture_ids {
            let id = u64::from(id);
            if out.contains_key(&id) {
                continue;
            }
            let loaded = resolver.find(id, Some(*b"TXTR")).and_then(|r| {
                r.map(|r| {
                    let t = Txtr::parse(&r.bytes, &r.label)?;
                    Ok(TextureData::from_txtr(&t)?)
                })
                .transpose()
            });
            match loaded {
                Ok(Some(t)) => {
                    out.insert(id, t);
                }
                Ok(None) => {}
                Err(e) => warnings.push(format!("texture 0x{id:08X}: {e:#}")),
            }
        }
    }
    out
}

type ModelTextures = std::collections::HashMap<u64, TextureData>;

/// Loads a CMDL or an ANCS character (see the module docs).
pub fn load_model(
    file: &str,
    skin: Option<&str>,
    skeleton: Option<&str>,
    anim: Option<&str>,
    game: Option<Game>,
) -> Result<(LoadedModel, Vec<String>)> {
    let (input, resolver) = source::open(file)?;
    let game = game.or(input.game);
    let mut warnings = Vec::new();
    if input.is(b"ANCS") {
        let ancs = Ancs::parse(&input.bytes, &input.label, game)?;
        let character = ancs
            .characters
            .first()
            .ok_or_else(|| anyhow!("{}: no characters", input.label))?;
        let model = find(&*resolver, character.model_id.into(), b"CMDL", "model")?;
        let cskr = find(&*resolver, character.skin_id.into(), b"CSKR", "skin")?;
        let cinf = find(
            &*resolver,
            character.skeleton_id.into(),
            b"CINF",
            "skeleton",
        )?;
        let cmdl = Cmdl::parse(&model.bytes, &model.label)?;
        let cskr = Cskr::parse(&cskr.bytes, &cskr.label, game)?;
        let skeleton = Skeleton::from_cinf(&Cinf::parse(&cinf.bytes, &cinf.label, game)?)?;
        let mut clips = Vec::new();
        for named in &ancs.animation_set.animations {
            let Some(p) = named.meta.primitives().into_iter().next() else {
                continue;
            };
            let clip = resolver
                .find(p.anim_id, Some(*b"ANIM"))
                .map_err(|e| anyhow!("{e:#}"))
                .and_then(|r| {
                    let r = r.ok_or_else(|| anyhow!("ANIM 0x{:08X} not found", p.anim_id))?;
                    Ok(Clip::from_anim(&Anim::parse(&r.bytes, &r.label, game)?)?)
                });
            match clip {
                Ok(c) => clips.push((named.name.clone(), c)),
                Err(e) => warnings.push(format!("animation {:?}: {e:#}", named.name)),
            }
        }
        let animation = match anim {
            None => None,
            Some(a) => Some(
                clips
                    .iter()
                    .position(|(n, _)| n == a)
                    .or_else(|| clips.iter().position(|(n, _)| n.eq_ignore_ascii_case(a)))
                    .or_else(|| a.parse::<usize>().ok().filter(|&i| i < clips.len()))
                    .ok_or_else(|| {
                        anyhow!(
                            "no animation {a:?}; the character has: {}",
                            clips
                                .iter()
                                .map(|(n, _)| n.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    })?,
            ),
        };
        let textures = load_textures(&cmdl, &*resolver, &mut warnings);
        let assets = ModelAssets {
            cmdl,
            textures,
            skin: Some(SkinAssets {
                skeleton,
                cskr,
                clips,
            }),
        };
        return Ok((
            LoadedModel {
                label: format!("{} ({})", input.label, character.name),
                assets,
                animation,
            },
            warnings,
        ));
    }
    if input.fourcc.is_some_and(|f| &f != b"CMDL") {
        bail!(
            "{}: render takes a CMDL or an ANCS, not a {}",
            input.label,
            String::from_utf8_lossy(&input.fourcc.unwrap_or(*b"????"))
        );
    }
    let cmdl = Cmdl::parse(&input.bytes, &input.label)?;
    let textures = load_textures(&cmdl, &*resolver, &mut warnings);
    let skin_assets = match (skin, skeleton) {
        (None, None) => {
            if anim.is_some() {
                bail!("--anim on a CMDL needs --skin and --skeleton (or render the ANCS)");
            }
            None
        }
        (Some(s), Some(k)) => {
            let s = open_typed(s, b"CSKR")?;
            let k = open_typed(k, b"CINF")?;
            let cskr = Cskr::parse(&s.bytes, &s.label, game)?;
            let skeleton = Skeleton::from_cinf(&Cinf::parse(&k.bytes, &k.label, game)?)?;
            let clips = match anim {
                Some(a) => {
                    let r = open_typed(a, b"ANIM")?;
                    vec![(
                        r.label.clone(),
                        Clip::from_anim(&Anim::parse(&r.bytes, &r.label, game)?)?,
                    )]
                }
                None => Vec::new(),
            };
            Some(SkinAssets {
                skeleton,
                cskr,
                clips,
            })
        }
        _ => bail!("--skin and --skeleton go together"),
    };
    let animation = skin_assets
        .as_ref()
        .and_then(|s| (!s.clips.is_empty()).then_some(0));
    Ok((
        LoadedModel {
            label: input.label,
            assets: ModelAssets {
                cmdl,
                textures,
                skin: skin_assets,
            },
            animation,
        },
        warnings,
    ))
}

/// `--lights`: an MREA (first light layer), `basic` or `none`.
pub fn load_lights(spec: Option<&str>) -> Result<LightSet> {
    match spec.map(str::trim) {
        None | Some("basic") => Ok(LightPreset::Basic.light_set()),
        Some("none") => Ok(LightPreset::GameNoLights.light_set()),
        Some(path) => {
            let (r, _) = source::open(path)?;
            let m = crate::formats::mrea::parse_mrea(&r.bytes, &r.label)?;
            let layer = m
                .lights_section
                .as_ref()
                .and_then(|l| l.layers.first())
                .ok_or_else(|| anyhow!("{}: no light layers", r.label))?;
            let records: Vec<_> = layer.iter().map(|l| l.to_prime_light()).collect();
            Ok(LightSet::from_layer(&records, &LightOptions::default()))
        }
    }
}

fn build_scene(ctx: &RenderContext, req: &RenderRequest) -> Result<(Scene, String, Vec<String>)> {
    let (model, mut warnings) = load_model(
        &req.file,
        req.skin.as_deref(),
        req.skeleton.as_deref(),
        req.anim.as_deref(),
        req.game,
    )?;
    let options = crate::render::SceneOptions {
        material_set: req.material_set,
        ..Default::default()
    };
    let mut scene = Scene::with_options(ctx, model.assets, options)
        .with_context(|| format!("preparing {}", model.label))?;
    scene.set_lights(load_lights(req.lights.as_deref())?);
    scene.set_time(f64::from(req.time));
    scene.set_animation(model.animation);
    if let Some([yaw, pitch, distance]) = req.camera {
        let mut c = scene.camera();
        c.yaw_degrees = yaw;
        c.pitch_degrees = pitch;
        c.distance = distance;
        scene.set_camera(c);
    }
    warnings.append(&mut scene.warnings.clone());
    Ok((scene, model.label, warnings))
}

/// `tevscope render FILE -o shot.png …`: draws the model offscreen and writes a PNG.
/// Returns the report printed to stdout.
pub fn render_model(req: &RenderRequest) -> Result<String> {
    let ctx = RenderContext::new(crate::render::AdapterPreference::Hardware)?;
    let (mut scene, label, warnings) = build_scene(&ctx, req)?;
    let image = scene.render_to_image(&ctx, req.width, req.height, req.transparent)?;
    image
        .save_png(&req.output)
        .with_context(|| format!("writing {}", req.output.display()))?;
    let mut out = format!(
        "{label}: {} surfaces, {} triangles{} → {} ({}×{}, {})\n",
        scene.cmdl().surfaces.len(),
        scene.cmdl().triangle_count(),
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
    for w in warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    Ok(out)
}

/// Timings of `tevscope bench`.
#[derive(Debug, Clone, Serialize)]
pub struct BenchReport {
    pub file: String,
    pub adapter: String,
    pub width: u32,
    pub height: u32,
    pub frames: u32,
    pub surfaces: usize,
    pub triangles: usize,
    /// CPU update + command recording per frame (ms).
    pub cpu_ms_mean: f64,
    pub cpu_ms_median: f64,
    /// Submission to GPU idle per frame (ms): the GPU's frame time as the host sees it.
    pub gpu_ms_mean: f64,
    pub gpu_ms_median: f64,
    /// Frames per second from the whole frame (CPU + GPU) time.
    pub fps_mean: f64,
    pub fps_median: f64,
}

fn mean_median(v: &mut [f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) * 0.5
    };
    (mean, median)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// Renders `frames` frames of `file` offscreen at `size` (time advancing 1/60 s per frame,
/// the orbit camera turning) and reports CPU and GPU frame times.
pub fn bench_report(file: &str, size: (u32, u32), frames: u32) -> Result<BenchReport> {
    let ctx = RenderContext::new(crate::render::AdapterPreference::Hardware)?;
    let mut req = RenderRequest::new(file, "");
    (req.width, req.height) = size;
    let (mut scene, label, _) = build_scene(&ctx, &req)?;
    if scene.is_skinned() && scene.animation().is_none() && !scene.animation_names().is_empty() {
        scene.set_animation(Some(0));
    }
    let target = OffscreenTarget::new(&ctx, size.0, size.1)?;
    // Warm-up: specialized pipelines compiled, first uploads done.
    scene.finish_pipelines(&ctx);
    scene.render(&ctx, &target, ClearMode::BACKGROUND)?;
    ctx.wait_idle()?;
    let frames = frames.max(1);
    let (mut cpu, mut gpu, mut total) = (Vec::new(), Vec::new(), Vec::new());
    let camera = scene.camera();
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
        cpu.push(ms(stats.cpu));
        gpu.push(ms(done - submitted));
        total.push(ms(done - start));
    }
    let (cpu_ms_mean, cpu_ms_median) = mean_median(&mut cpu);
    let (gpu_ms_mean, gpu_ms_median) = mean_median(&mut gpu);
    let (total_mean, total_median) = mean_median(&mut total);
    Ok(BenchReport {
        file: label,
        adapter: format!("{} ({:?})", ctx.adapter_info.name, ctx.adapter_info.backend),
        width: size.0,
        height: size.1,
        frames,
        surfaces: scene.cmdl().surfaces.len(),
        triangles: scene.cmdl().triangle_count(),
        cpu_ms_mean,
        cpu_ms_median,
        gpu_ms_mean,
        gpu_ms_median,
        fps_mean: 1000.0 / total_mean.max(1e-9),
        fps_median: 1000.0 / total_median.max(1e-9),
    })
}

/// `tevscope bench FILE [--size WxH] [--frames N] [--json]`.
pub fn bench(file: &str, size: (u32, u32), frames: u32, json: bool) -> Result<String> {
    let r = bench_report(file, size, frames)?;
    if json {
        return Ok(serde_json::to_string_pretty(&r)? + "\n");
    }
    Ok(format!(
        "{} on {}: {} frames at {}×{} ({} surfaces, {} triangles)\n  CPU update  mean {:.3} ms, median {:.3} ms\n  GPU frame   mean {:.3} ms, median {:.3} ms\n  FPS         mean {:.1}, median {:.1}\n",
        r.file,
        r.adapter,
        r.frames,
        r.width,
        r.height,
        r.surfaces,
        r.triangles,
        r.cpu_ms_mean,
        r.cpu_ms_median,
        r.gpu_ms_mean,
        r.gpu_ms_median,
        r.fps_mean,
        r.fps_median
    ))
}
