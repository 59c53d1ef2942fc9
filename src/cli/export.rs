//! `tevscope export`: a model, character or room as glTF 2.0 (see [`crate::export::gltf`]).

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Context as _;
use serde::Serialize;

use crate::export::{ExportSummary, GltfOptions, build_gltf};
use crate::formats::Game;
use crate::load::LoadRequest;
use crate::session::Session;
use crate::views::bake::{BakeFlags, bake_for_export};

/// What `export` was asked for.
pub struct ExportRequest<'a> {
    pub file: &'a str,
    pub output: &'a Path,
    /// An animation name or index of the character, `all`, or (for a CMDL with
    /// `--skin`/`--skeleton`) an ANIM file.
    pub anim: Option<&'a str>,
    pub set: usize,
    pub time: Option<f32>,
    /// A CMDL instead of the model a character names.
    pub model: Option<&'a str>,
    pub skin: Option<&'a str>,
    pub skeleton: Option<&'a str>,
    /// Folders searched for textures before the input's own.
    pub texture_dirs: Vec<std::path::PathBuf>,
    pub game: Option<Game>,
    pub bake: Option<BakeFlags>,
}

/// The `--json` report.
#[derive(Serialize)]
struct ExportReport<'a> {
    input: &'a str,
    output: String,
    #[serde(flatten)]
    summary: &'a ExportSummary,
    warnings: &'a [String],
}

/// Loads the request's model and exports it; returns the printed report.
pub fn export(req: &ExportRequest, json: bool) -> anyhow::Result<String> {
    let all = req.anim.is_none_or(|a| a.eq_ignore_ascii_case("all"));
    let session = Session::open_model(&LoadRequest {
        file: req.file.to_owned(),
        model: req.model.map(str::to_owned),
        skin: req.skin.map(str::to_owned),
        skeleton: req.skeleton.map(str::to_owned),
        anim: if all {
            None
        } else {
            req.anim.map(str::to_owned)
        },
        texture_dirs: req.texture_dirs.clone(),
        game: req.game,
        mp3_alts: Default::default(),
    })?;
    let loaded = session.loaded().context("not a model")?;
    let (cpu, label) = (loaded.model, loaded.label);
    let mut warnings = loaded.warnings.to_vec();
    let clips = cpu.skin.as_ref().map_or(0, |s| s.clips.len());
    let mut options = GltfOptions::for_model(label, loaded.animation, clips, all, req.time);
    options.material_set = req.set;
    if let Some(flags) = &req.bake {
        let bake = bake_for_export(cpu, loaded.light_layers, req.set, flags)?;
        (options.baked, warnings) = (bake.images, [warnings, bake.warnings].concat());
    }
    let export = build_gltf(cpu, &options)?;
    export.write(req.output)?;
    warnings.extend(export.warnings.iter().cloned());
    if json {
        return Ok(serde_json::to_string_pretty(&ExportReport {
            input: label,
            output: req.output.display().to_string(),
            summary: &export.summary,
            warnings: &warnings,
        })?);
    }
    let path = req.output.display();
    let mut out = format!("{label}: wrote {path} {}\n", export.summary);
    for w in &warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    Ok(out)
}
