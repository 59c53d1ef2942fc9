//! `tevscope render FILE --compare side|split|diff [--patch EDIT.json]`: the model as
//! opened (A) beside the same model with a JSON Patch applied in memory (B), drawn with
//! the same camera, lights and time, composed by [`crate::render::compare`].
//!
//! B is A's scene with the patched materials as per-material overrides — the way the
//! viewer draws edits — so untouched materials draw the same pixels on both sides. The
//! CLI builds both scenes and reads the patch; the work is here.

use std::path::Path;

use anyhow::{Context as _, Result, bail};

use crate::render::compare::{CompareMode, compose};
use crate::render::{RenderContext, Scene};
use crate::session::Session;

/// What `--compare` adds to a render.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareRequest {
    pub mode: CompareMode,
    /// Where a split shows B from (0…1 of the width).
    pub split: f32,
    /// The patch making B (its file name, for messages, and its operations); None: B is
    /// the opened model too.
    pub patch: Option<(String, json_patch::Patch)>,
}

impl CompareRequest {
    /// Checks the mode's name and the split.
    pub fn new(mode: &str, split: f32, patch: Option<(String, json_patch::Patch)>) -> Result<Self> {
        let Some(mode) = CompareMode::parse(mode) else {
            let names: Vec<&str> = CompareMode::ALL.iter().map(|m| m.name()).collect();
            bail!(
                "--compare {mode}: unknown mode; one of {}",
                names.join(", ")
            );
        };
        if !(0.0..=1.0).contains(&split) {
            bail!("--split {split}: a fraction of the width, 0 to 1");
        }
        Ok(Self { mode, split, patch })
    }
}

/// The two scenes, built alike from `spec`.
pub struct Sides<'a> {
    spec: &'a str,
    label: &'a str,
    a: Scene,
    b: Scene,
    material_set: usize,
    /// The material a shape preview shows (its scene holds it alone, as set 0 material 0).
    preview_material: Option<usize>,
}

impl<'a> Sides<'a> {
    pub fn new(
        spec: &'a str,
        label: &'a str,
        [a, b]: [Scene; 2],
        material_set: usize,
        preview_material: Option<usize>,
    ) -> Self {
        Self {
            spec,
            label,
            a,
            b,
            material_set,
            preview_material,
        }
    }
}

/// Renders A and B at `(width, height, transparent)`, writes the composed PNG to `output`;
/// returns the report line.
pub fn render_compare(
    ctx: &RenderContext,
    mut sides: Sides<'_>,
    (w, h, transparent): (u32, u32, bool),
    compare: &CompareRequest,
    output: &Path,
) -> Result<String> {
    let mut changed = 0;
    if let Some((name, ops)) = &compare.patch {
        let mut session = Session::open_document(sides.spec)?;
        session
            .apply_patch(&ops.0, &format!("patch {name}"))
            .with_context(|| format!("{}: patch {name} not applied", sides.label))?;
        let sets = session.document_materials().unwrap_or_default();
        let Some(set) = sets.get(sides.material_set) else {
            bail!("{} has no material set {}", sides.label, sides.material_set);
        };
        for (index, m) in set.materials.iter().enumerate() {
            let Ok(material) = &m.gx else { continue };
            let (scene_set, scene_index) = match sides.preview_material {
                Some(shown) if index == shown => (0, 0),
                Some(_) => continue,
                None => (sides.material_set, index),
            };
            if sides.b.material(scene_set, scene_index) != Some(material) {
                sides
                    .b
                    .set_material(scene_set, scene_index, material.clone());
                changed += 1;
            }
        }
    }
    let image_a = sides.a.render_to_image(ctx, w, h, transparent)?;
    let image_b = sides.b.render_to_image(ctx, w, h, transparent)?;
    let image = compose(compare.mode, &image_a, &image_b, compare.split);
    image
        .save_png(output)
        .with_context(|| format!("writing {}", output.display()))?;
    let differing = image_a
        .pixels
        .chunks_exact(4)
        .zip(image_b.pixels.chunks_exact(4))
        .filter(|(p, q)| p != q)
        .count();
    Ok(format!(
        "{}: opened (A) vs {} (B), {} → {} ({}×{}); {changed} material(s) differ, {differing} pixel(s) differ\n",
        sides.label,
        compare.patch.as_ref().map_or("opened", |p| p.0.as_str()),
        compare.mode.name(),
        output.display(),
        image.width,
        image.height,
    ))
}
