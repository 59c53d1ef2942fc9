//! `tevscope render FILE --compare side|split|diff [--patch EDIT.json]`: the model as
//! opened (A) beside the same model with a JSON Patch applied in memory (B), drawn with
//! the same camera, lights and time, composed by [`crate::render::compare`].
//!
//! B is A's scene with the patched materials as per-material overrides — the way the
//! viewer draws edits — so untouched materials draw the same pixels on both sides.

use anyhow::{Context as _, Result, bail};

use super::render::{RenderRequest, build_scene};
use crate::edit::Document;
use crate::render::compare::{CompareMode, compose};
use crate::render::{AdapterPreference, RenderContext};

/// What `--compare` adds to a render.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareRequest {
    pub mode: CompareMode,
    /// Where a split shows B from (0…1 of the width).
    pub split: f32,
    /// A JSON Patch file (`edit`'s) making B; None: B is the opened model too.
    pub patch: Option<String>,
}

/// Renders A and B and writes the composed PNG; returns the report.
pub fn render_compare(req: &RenderRequest, compare: &CompareRequest) -> Result<String> {
    let ctx = RenderContext::new(AdapterPreference::Hardware)?;
    let (mut a, label, _, warnings) = build_scene(&ctx, req)?;
    let (mut b, ..) = build_scene(&ctx, req)?;
    let mut changed = 0;
    if let Some(patch) = &compare.patch {
        let ops = super::edit::read_patch(patch)?;
        let mut document = Document::open(&req.file)?;
        document
            .apply_patch(&ops, format!("patch {patch}"))
            .with_context(|| format!("{}: patch {patch} not applied", document.label()))?;
        let sets = crate::load::cpu_material_sets(
            document.material_sets(),
            document.cmdl().and_then(|c| c.mp3_materials.as_ref()),
        );
        let Some(set) = sets.get(req.material_set) else {
            bail!("{label} has no material set {}", req.material_set);
        };
        for (index, m) in set.materials.iter().enumerate() {
            let Ok(material) = &m.gx else { continue };
            // A shape preview's model holds the chosen material alone, as set 0.
            let (scene_set, scene_index) = match req.preview {
                Some(_) if index == req.material => (0, 0),
                Some(_) => continue,
                None => (req.material_set, index),
            };
            if b.material(scene_set, scene_index) != Some(material) {
                b.set_material(scene_set, scene_index, material.clone());
                changed += 1;
            }
        }
    }
    let image_a = a.render_to_image(&ctx, req.width, req.height, req.transparent)?;
    let image_b = b.render_to_image(&ctx, req.width, req.height, req.transparent)?;
    let image = compose(compare.mode, &image_a, &image_b, compare.split);
    image
        .save_png(&req.output)
        .with_context(|| format!("writing {}", req.output.display()))?;
    let differing = image_a
        .pixels
        .chunks_exact(4)
        .zip(image_b.pixels.chunks_exact(4))
        .filter(|(p, q)| p != q)
        .count();
    let mut out = format!(
        "{label}: opened (A) vs {} (B), {} → {} ({}×{}); {changed} material(s) differ, {differing} pixel(s) differ\n",
        compare.patch.as_deref().unwrap_or("opened"),
        compare.mode.name(),
        req.output.display(),
        image.width,
        image.height,
    );
    for w in warnings {
        out.push_str(&format!("warning: {w}\n"));
    }
    Ok(out)
}
