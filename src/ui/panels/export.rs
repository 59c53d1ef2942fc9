//! File → Export: glTF of the open model or character, and its textures as PNG.

use std::path::{Path, PathBuf};

use egui::Ui;

use crate::ui::state::AppState;

/// File → Export: glTF of the open model or character, and its textures as PNG.
pub(super) fn file_menu(ui: &mut Ui, state: &mut AppState) {
    let Some(doc) = &state.doc else {
        ui.label("Open a model or character to export it.");
        return;
    };
    let stem = doc.stem.clone();
    let Some(model) = doc.cpu_model() else {
        ui.label("Export works on models, characters and rooms.");
        return;
    };
    let model = std::sync::Arc::clone(model);
    ui.label("Export to (.glb or .gltf):");
    ui.add(egui::TextEdit::singleline(&mut state.export_path).desired_width(360.0));
    if model.skin.is_some() {
        ui.checkbox(
            &mut state.export_current_only,
            "only the current animation (else all)",
        );
    }
    let path = PathBuf::from(state.export_path.trim());
    let result = if ui
        .button("Export glTF")
        .on_hover_text("The model with its skeleton, skin, animations and textures, and the materials as edited")
        .clicked()
    {
        // The editor's material sets, so unsaved edits are exported too.
        let edited = state.editor.as_ref().map(|e| e.material_sets());
        let model = crate::ui::export::edited_model(&model, edited);
        let only = if state.export_current_only {
            Some(state.animation)
        } else {
            None
        };
        Some(match only {
            Some(None) => Err(anyhow::anyhow!("no animation is playing (bind pose)")),
            Some(Some(i)) => crate::ui::export::export_gltf(&model, &stem, &path, state.set, Some(i)),
            None => crate::ui::export::export_gltf(&model, &stem, &path, state.set, None),
        })
    } else if ui
        .button("Export textures as PNG")
        .on_hover_text("Every texture with its mip levels, into a folder next to the glTF path")
        .clicked()
    {
        let dir = path
            .parent()
            .unwrap_or(Path::new("."))
            .join(format!("{stem}_textures"));
        Some(crate::ui::export::export_textures(&model, &dir))
    } else {
        None
    };
    match result {
        Some(Ok(line)) => {
            state.load_error = None;
            state.notice = Some(line);
        }
        Some(Err(e)) => state.load_error = Some(format!("export failed: {e:#}")),
        None => {}
    }
}
