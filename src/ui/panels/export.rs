//! File → Export…: a window with the glTF path (typed, or the desktop's dialog), the
//! animation choice, and the glTF and texture PNG exports of the open model or character;
//! under them the DFF path and "Export DFF" (the current view as a Dolphin FIFO log).

use egui::{Color32, RichText};

use crate::ui::export::ExportKind;
use crate::ui::state::AppState;

/// The Export window (open while `state.export.open`).
pub(super) fn export_window(ctx: &egui::Context, state: &mut AppState) {
    let mut open = true;
    egui::Window::new("Export")
        .open(&mut open)
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            let Some(doc) = state.session.asset() else {
                ui.label("Open a model or character to export it.");
                return;
            };
            let Some(model) = doc.cpu_model() else {
                ui.label("Export works on models, characters and rooms.");
                return;
            };
            let skinned = model.skin.is_some();
            ui.horizontal(|ui| {
                ui.label("File:");
                ui.add(
                    egui::TextEdit::singleline(&mut state.export.path)
                        .desired_width(360.0)
                        .hint_text("model.glb"),
                )
                .on_hover_text(".glb (one file) or .gltf (JSON with the buffers beside it)");
                if ui.button("Browse…").clicked() {
                    state.export_path_dialog();
                }
            });
            if skinned {
                ui.checkbox(
                    &mut state.export.current_only,
                    "only the current animation (else all)",
                );
            }
            ui.checkbox(&mut state.export.bake, "Bake appearance")
                .on_hover_text(
                    "Draw each material's TEV result under the current lights into a texture over \
                     its UVs and export that as the base colour (the GX material stays in \
                     extras.gx); reflections are baked as the default camera sees them",
                );
            ui.horizontal(|ui| {
                if ui
                    .button("Export glTF")
                    .on_hover_text(
                        "The model with its skeleton, skin, animations and textures, and the \
                         materials as edited",
                    )
                    .clicked()
                {
                    state.export(ExportKind::Gltf);
                }
                if ui
                    .button("Export textures as PNG")
                    .on_hover_text(
                        "Every texture with its mip levels, into a folder next to the glTF path",
                    )
                    .clicked()
                {
                    state.export(ExportKind::TexturePngs);
                }
            });
            ui.separator();
            if state.export.dff.path.is_empty() {
                // Beside the glTF by default.
                let glb = std::path::Path::new(state.export.path.trim());
                state.export.dff.path = glb.with_extension("dff").display().to_string();
            }
            ui.horizontal(|ui| {
                ui.label("DFF:");
                ui.add(
                    egui::TextEdit::singleline(&mut state.export.dff.path)
                        .desired_width(360.0)
                        .hint_text("frame.dff"),
                )
                .on_hover_text("A Dolphin FIFO log of one frame (plays in Dolphin's FIFO player)");
                if ui
                    .button("Export DFF")
                    .on_hover_text(
                        "The current view — camera, time, pose, lights, the shape preview — as \
                         GX commands, as `tevscope export -o X.dff` writes it (at most 640×528: \
                         a larger view is scaled down)",
                    )
                    .clicked()
                {
                    state.export(ExportKind::Dff);
                }
            });
            match &state.export.result {
                Some(Ok(line)) => {
                    ui.add(egui::Label::new(line.as_str()).wrap());
                }
                Some(Err(e)) => {
                    ui.add(
                        egui::Label::new(RichText::new(e).color(Color32::from_rgb(255, 110, 110)))
                            .wrap(),
                    );
                }
                None => {}
            }
        });
    if !open {
        state.export.open = false;
    }
}
