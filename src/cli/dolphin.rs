//! `tevscope export FILE -o OUT.dff` and `tevscope dolphin FILE`: one frame of what `render`
//! draws as a Dolphin FIFO log, and that frame compared with Dolphin's software renderer
//! (see [`crate::dff`]).

use std::path::Path;

use anyhow::{Context, Result};

use super::render::{RenderRequest, build_scene};
use crate::dff::dolphin::{compare, find_dolphin, play_readback};
use crate::dff::scene::{FrameSpec, scene_dff};
use crate::render::RenderContext;
use crate::render::scene::{ClearMode, Scene};
use crate::schema::dolphin::DolphinReport;

/// The renderer's opaque background as the EFB holds it.
fn background() -> [u8; 4] {
    match ClearMode::BACKGROUND {
        ClearMode::Color(c) => c.map(|v| (v * 255.0).round().clamp(0.0, 255.0) as u8),
        _ => [0, 0, 0, 255],
    }
}

/// Builds the request's scene and draws it once (posing the skeleton, settling pipelines);
/// returns the scene, its label, warnings and the image.
fn draw(req: &RenderRequest) -> Result<(Scene, String, Vec<String>, crate::image::RgbaImage)> {
    let ctx = RenderContext::new(crate::render::AdapterPreference::Hardware)?;
    let (mut scene, label, _, warnings) = build_scene(&ctx, req)?;
    let image = scene.render_to_image(&ctx, req.width, req.height, false)?;
    Ok((scene, label, warnings, image))
}

fn dff_bytes(scene: &Scene, req: &RenderRequest, readback: bool) -> Result<Vec<u8>> {
    Ok(scene_dff(&FrameSpec {
        scene,
        width: req.width,
        height: req.height,
        clear: background(),
        readback,
    })?
    .to_bytes())
}

/// `tevscope export FILE -o OUT.dff [--readback]`.
pub fn export_dff(req: &RenderRequest, output: &Path, readback: bool) -> Result<String> {
    let (scene, label, warnings, _) = draw(req)?;
    let bytes = dff_bytes(&scene, req, readback)?;
    crate::atomic::write_atomically(output, &bytes)
        .with_context(|| format!("writing {}", output.display()))?;
    let mut out = format!(
        "{label}: wrote {} ({} bytes, {}×{}{})\n",
        output.display(),
        bytes.len(),
        req.width,
        req.height,
        if readback {
            ", with read-back frame"
        } else {
            ""
        }
    );
    for w in warnings {
        out += &format!("warning: {w}\n");
    }
    Ok(out)
}

/// `tevscope dolphin FILE [-o DIFF.png] [--dff OUT.dff] [--json]`.
pub fn dolphin(
    req: &RenderRequest,
    diff: Option<&Path>,
    dff_out: Option<&Path>,
    json: bool,
) -> Result<String> {
    let bin = find_dolphin().ok_or(crate::dff::dolphin::DolphinError::NotInstalled)?;
    let (scene, label, warnings, ours) = draw(req)?;
    let bytes = dff_bytes(&scene, req, true)?;
    if let Some(p) = dff_out {
        crate::atomic::write_atomically(p, &bytes)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    let (theirs, route) = play_readback(&bytes, req.width, req.height)?;
    let d = compare(&ours, &theirs);
    if let Some(p) = diff {
        d.image
            .save_png(p)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    let report = DolphinReport {
        file: label,
        width: req.width,
        height: req.height,
        pixels: d.pixels,
        identical: d.identical,
        identical_share: d.identical_share(),
        within_one: d.within_one,
        max_diff: d.max_diff,
        dolphin: bin.display().to_string(),
        dff: dff_out.map(|p| p.display().to_string()),
        diff_image: diff.map(|p| p.display().to_string()),
        route,
        warnings,
    };
    if json {
        return Ok(serde_json::to_string_pretty(&report)? + "\n");
    }
    Ok(report.text())
}
