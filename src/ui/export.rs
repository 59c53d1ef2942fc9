//! File → Export: the open model, character or room as glTF, and its textures as PNG files.
//! Plain data work on the document's [`CpuModel`] (no GPU, no egui), so it runs headless in
//! tests. Material edits made in the viewer are exported: [`edited_model`] takes the
//! materials from the editing document, through the same conversion the viewer draws with.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::export::{GltfOptions, build_gltf, write_texture_pngs};
use crate::formats::material::MaterialSet;
use crate::gx::lights::LightSet;
use crate::model::CpuModel;
use crate::views::bake::{BakeRequest, DEFAULT_MAX_SIZE, bake_headless};

use super::export_dff::{DffView, dff_size, export_dff};
use super::state::AppState;

/// What File → Export writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportKind {
    /// The model as glTF at the export path.
    Gltf,
    /// Its textures as PNGs, into `STEM_textures` next to the export path.
    TexturePngs,
    /// The current view as a Dolphin FIFO log at [`DffExport::path`].
    Dff,
}

impl AppState {
    /// Writes `kind` for the open model at the typed export path; the outcome goes to
    /// `export.result` (shown in the Export window) and to the notice or error line.
    pub fn export(&mut self, kind: ExportKind) {
        let result = self
            .try_export(kind)
            .map_err(|e| format!("export failed: {e:#}"));
        match &result {
            Ok(line) => {
                self.messages.load_error = None;
                self.messages.notice = Some(line.clone());
            }
            Err(e) => self.messages.load_error = Some(e.clone()),
        }
        self.export.result = Some(result);
    }

    fn try_export(&self, kind: ExportKind) -> anyhow::Result<String> {
        let doc = self
            .session
            .asset()
            .ok_or_else(|| anyhow::anyhow!("nothing is open"))?;
        let model = doc
            .cpu_model()
            .ok_or_else(|| anyhow::anyhow!("export works on models, characters and rooms"))?;
        let typed = match kind {
            ExportKind::Dff => &self.export.dff.path,
            _ => &self.export.path,
        };
        let path = PathBuf::from(typed.trim());
        if path.as_os_str().is_empty() {
            match kind {
                ExportKind::Dff => anyhow::bail!("give a file name (.dff)"),
                _ => anyhow::bail!("give a file name (.glb or .gltf)"),
            }
        }
        match kind {
            ExportKind::Gltf => {
                // The editor's material sets, so unsaved edits are exported too.
                let edited = self.session.document().map(|e| e.material_sets());
                let model = edited_model(model, edited);
                let only = match (
                    self.export.current_only && model.skin.is_some(),
                    self.session.clock.animation,
                ) {
                    (false, _) => None,
                    (true, Some(i)) => Some(i),
                    (true, None) => anyhow::bail!("no animation is playing (bind pose)"),
                };
                let bake = self.export.bake.then_some(&self.session.lights.set);
                let set = self.session.selection.set;
                export_gltf(&model, &doc.stem, &path, (set, only), bake)
            }
            ExportKind::Dff => {
                let edited = self.session.document().map(|e| e.material_sets());
                let model = edited_model(model, edited);
                let selection = self.session.selection;
                // A shape preview draws the selected material alone, as the viewer does.
                let (model, material_set, hidden) = match self.aids.preview {
                    Some(shape) => {
                        let preview = model
                            .material_preview(shape, selection.set, selection.material)
                            .ok_or_else(|| anyhow::anyhow!("no material to preview"))?;
                        (preview, 0, None)
                    }
                    None => (model.into_owned(), selection.set, self.hidden_surfaces()),
                };
                let view = self.central.texture.map_or([640, 480], |(_, size)| size);
                let (size, note) = dff_size(view);
                let view = DffView {
                    camera: self.session.camera.orbit,
                    size,
                    time: self.session.clock.time,
                    animation: self.anim_view.posed_animation(&self.session),
                    lights: &self.session.lights.set,
                    material_set,
                    hidden_surfaces: hidden.as_deref().unwrap_or(&[]),
                };
                let line = export_dff(model, &view, &path)?;
                Ok(match note {
                    Some(note) => format!("{line}; {note}"),
                    None => line,
                })
            }
            ExportKind::TexturePngs => {
                let dir = path
                    .parent()
                    .unwrap_or(Path::new("."))
                    .join(format!("{}_textures", doc.stem));
                export_textures(model, &dir)
            }
        }
    }

    /// Chooses the export path with the desktop's dialog; without one (or when it is
    /// cancelled) the typed path stays.
    pub fn export_path_dialog(&mut self) {
        let current = PathBuf::from(self.export.path.trim());
        let dialog = super::file_dialog(&current, self.prefs.last_save_dir.as_deref())
            .add_filter("glTF", &["glb", "gltf"]);
        if let Some(path) = dialog.save_file() {
            self.export.path = path.display().to_string();
        }
    }
}

/// `model` with the material sets `edited` holds (the editor's current state), converted
/// as on load; the model itself when there are no edits to take.
pub fn edited_model<'m>(model: &'m CpuModel, edited: Option<&[MaterialSet]>) -> Cow<'m, CpuModel> {
    match edited {
        Some(sets) => {
            let mut out = model.clone();
            out.material_sets = sets.iter().map(crate::load::cpu_material_set).collect();
            Cow::Owned(out)
        }
        None => Cow::Borrowed(model),
    }
}

/// Writes `model` as glTF to `path` (`.glb` or `.gltf`): material set `set`, every
/// animation or only `only_animation`, baked under `bake`'s lights when given ("Bake
/// appearance", on a render context of its own). Returns the line the viewer shows.
pub fn export_gltf(
    model: &CpuModel,
    name: &str,
    path: &Path,
    (set, only_animation): (usize, Option<usize>),
    bake: Option<&LightSet>,
) -> anyhow::Result<String> {
    let mut options = GltfOptions {
        material_set: set,
        animations: only_animation.map(|i| vec![i]),
        name: name.to_string(),
        ..Default::default()
    };
    let mut warnings = Vec::new();
    if let Some(lights) = bake {
        let request = BakeRequest {
            material_set: set,
            max_size: DEFAULT_MAX_SIZE,
            lights: lights.clone(),
            camera: None,
        };
        let bake = bake_headless(&Arc::new(model.clone()), &request)?;
        (options.baked, warnings) = (bake.images, bake.warnings);
    }
    let export = build_gltf(model, &options)?;
    warnings.extend(export.warnings.iter().cloned());
    export.write(path)?;
    let s = &export.summary;
    let mut line = format!(
        "Exported {} ({} vertices, {} joints, {} animations, {} textures{})",
        path.display(),
        s.vertices,
        s.joints,
        s.animations.len(),
        s.textures,
        if s.baked > 0 {
            format!(", {} materials baked", s.baked)
        } else {
            String::new()
        }
    );
    if let Some(first) = warnings.first() {
        line.push_str(&format!("; {} warnings, first: {first}", warnings.len()));
    }
    Ok(line)
}

/// Writes every texture of `model` (all mip levels) into `dir` as `0xID.png`,
/// `0xID.mip1.png`, …. Returns the line the viewer shows.
pub fn export_textures(model: &CpuModel, dir: &Path) -> anyhow::Result<String> {
    std::fs::create_dir_all(dir)?;
    let mut ids: Vec<u64> = model.textures.keys().copied().collect();
    ids.sort_unstable();
    let mut files = 0;
    for id in &ids {
        let stem = crate::formats::asset_id_string(*id, *id > u64::from(u32::MAX));
        files += write_texture_pngs(&model.textures[id], &stem, dir, true)?.len();
    }
    Ok(format!(
        "Exported {} textures ({files} PNGs with their mip levels) to {}",
        ids.len(),
        dir.display()
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn exports_the_demo_character_and_its_textures() {
        let pak = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak");
        let (model, _) = crate::load::load(&crate::load::LoadRequest::new(&format!(
            "{pak}:worm_character"
        )))
        .unwrap();
        let model = model.assets.cpu_model().unwrap();
        let dir = std::env::temp_dir().join(format!("tevscope-ui-export-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let glb = dir.join("worm.glb");
        let line = export_gltf(&model, "worm", &glb, (0, Some(1)), None).unwrap();
        assert!(line.contains("1 animations"), "{line}");
        let g = ::gltf::Gltf::open(&glb).unwrap();
        assert_eq!(g.animations().count(), 1);
        assert_eq!(g.animations().next().unwrap().name(), Some("curl"));
        let line = export_textures(&model, &dir.join("png")).unwrap();
        assert!(line.starts_with("Exported 1 textures"), "{line}");
        assert!(dir.join("png/0xDE020015.png").is_file());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Materials edited in the viewer export as edited: an edit through
    /// [`crate::edit::Document`] (as the viewer makes it) reaches the glTF's GX description.
    #[test]
    fn edited_materials_are_exported_as_edited() {
        let pak = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak");
        let spec = format!("{pak}:showcase");
        let (loaded, _) = crate::load::load(&crate::load::LoadRequest::new(&spec)).unwrap();
        let model = loaded.assets.cpu_model().unwrap();
        let mut editor = crate::edit::Document::open(&spec).unwrap();
        let index = editor.material_sets()[0]
            .materials
            .iter()
            .position(|m| m.konst_colors.is_some())
            .expect("a material with konst colours in the showcase");
        let mut material = editor.material_sets()[0].materials[index].clone();
        for k in material.konst_colors.as_mut().unwrap() {
            *k = 0xFF00_00FF;
        }
        editor
            .edit_material(0, index, material, "konst", false)
            .unwrap();
        let dir = std::env::temp_dir().join(format!("tevscope-ui-edit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let konst_of = |edits: Option<&[MaterialSet]>, file: &str| {
            let glb = dir.join(file);
            export_gltf(&edited_model(&model, edits), "m", &glb, (0, None), None).unwrap();
            let g = ::gltf::Gltf::open(&glb).unwrap();
            let m = g.materials().nth(index).unwrap();
            let extras: serde_json::Value =
                serde_json::from_str(m.extras().as_ref().unwrap().get()).unwrap();
            extras["gx"]["konst"][0].clone()
        };
        let red = serde_json::json!([255, 0, 0, 255]);
        let edited = Some(editor.material_sets());
        assert_eq!(konst_of(edited, "edited.glb"), red);
        assert_ne!(konst_of(None, "loaded.glb"), red);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
