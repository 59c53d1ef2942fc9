//! A scene's frame checked against Dolphin: tevscope's render, the same frame as a DFF,
//! Dolphin's read-back and the comparison, as one report ([`DolphinReport`]).

use std::path::Path;

use super::dolphin::{DolphinError, compare, find_dolphin, play_readback};
use super::scene::{DffError, FrameSpec, scene_dff};
use crate::gx::lighting::LaccSum;
use crate::image::RgbaImage;
use crate::render::scene::{ClearMode, Scene};
use crate::render::{RenderContext, RenderError};
use crate::schema::dolphin::DolphinReport;

/// Why a frame could not be checked.
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error(transparent)]
    Dolphin(#[from] DolphinError),
    #[error(transparent)]
    Dff(#[from] DffError),
    #[error("rendering the frame")]
    Render(#[from] RenderError),
    #[error("writing {path}")]
    Write {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("writing {path}")]
    Image {
        path: String,
        #[source]
        source: crate::image::ImageError,
    },
}

/// The renderer's opaque background as the EFB holds it.
fn background() -> [u8; 4] {
    match ClearMode::BACKGROUND {
        ClearMode::Color(c) => c.map(|v| (v * 255.0).round().clamp(0.0, 255.0) as u8),
        _ => [0, 0, 0, 255],
    }
}

/// Draws the scene once at `width` × `height` (posing it, settling its pipelines) and
/// returns the image and the frame as DFF bytes.
pub fn frame_dff(
    scene: &mut Scene,
    ctx: &RenderContext,
    (width, height): (u32, u32),
    readback: bool,
) -> Result<(RgbaImage, Vec<u8>), CheckError> {
    let image = scene.render_to_image(ctx, width, height, false)?;
    let dff = scene_dff(&FrameSpec {
        scene,
        width,
        height,
        clear: background(),
        readback,
    })?;
    Ok((image, dff.to_bytes()))
}

/// Writes `bytes` to `path` atomically.
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), CheckError> {
    crate::atomic::write_atomically(path, bytes).map_err(|source| CheckError::Write {
        path: path.display().to_string(),
        source,
    })
}

/// Plays the scene's frame in Dolphin and compares: the report, the diff image written to
/// `diff` and the DFF to `dff_out` when given.
pub fn check(
    scene: &mut Scene,
    ctx: &RenderContext,
    size: (u32, u32),
    label: String,
    warnings: Vec<String>,
    diff: Option<&Path>,
    dff_out: Option<&Path>,
) -> Result<DolphinReport, CheckError> {
    let bin = find_dolphin().ok_or(DolphinError::NotInstalled)?;
    let alternatives = software_alternatives(scene, ctx)?;
    let (ours, bytes) = frame_dff(scene, ctx, size, true)?;
    if let Some(p) = dff_out {
        write(p, &bytes)?;
    }
    let (theirs, route) = play_readback(&bytes, size.0, size.1)?;
    let d = compare(&ours, &theirs);
    if let Some(p) = diff {
        d.image.save_png(p).map_err(|source| CheckError::Image {
            path: p.display().to_string(),
            source,
        })?;
    }
    Ok(DolphinReport {
        file: label,
        width: size.0,
        height: size.1,
        pixels: d.pixels,
        identical: d.identical,
        identical_share: d.identical_share(),
        within_one: d.within_one,
        max_diff: d.max_diff,
        dolphin: bin.display().to_string(),
        dff: dff_out.map(|p| p.display().to_string()),
        diff_image: diff.map(|p| p.display().to_string()),
        route,
        software_alternatives: alternatives,
        warnings,
    })
}

/// Switches the scene to its exact paths (GX integer blending in the shader, `gx.md` §8.2)
/// and to the §16 alternatives that name Dolphin's software renderer where the spec's
/// default differs and no register can say which (the DFF carries registers only), and
/// names the alternatives. Lighting: the lights' float sum truncated once (§10.1 step 4)
/// instead of rounding per light.
fn software_alternatives(
    scene: &mut Scene,
    ctx: &RenderContext,
) -> Result<Vec<String>, CheckError> {
    let mut options = *scene.options();
    options.frame.channels.lacc_sum = LaccSum::FloatTruncated;
    options.tev.exact_blend = true;
    if options.frame != scene.options().frame || options.tev != scene.options().tev {
        scene.rebuild_materials(ctx, options)?;
    }
    Ok(vec![
        "lacc_sum: float sum truncated once (gx.md §10.1)".into(),
    ])
}
