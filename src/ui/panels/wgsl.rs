//! The WGSL tab.

use egui::{Color32, Ui};

use crate::ui::parts::WgslPanel;
use crate::ui::state::WgslChoice;

pub(super) fn wgsl_tab(ui: &mut Ui, mut state: WgslPanel<'_>) {
    ui.horizontal(|ui| {
        ui.selectable_value(
            &mut state.wgsl.choice,
            WgslChoice::Specialized,
            "specialized",
        );
        ui.selectable_value(&mut state.wgsl.choice, WgslChoice::Uber, "ubershader");
        if let Some(src) = state.source()
            && ui.button("Copy").clicked()
        {
            let src = src.to_string();
            ui.ctx().copy_text(src);
        }
    });
    if let Some(e) = &state.view_status.pipeline_error {
        ui.colored_label(
            Color32::from_rgb(255, 110, 110),
            format!("Shader error (the last good pipeline keeps drawing):\n{e}"),
        );
    }
    let Some(src) = state.source() else {
        ui.weak("No material selected.");
        return;
    };
    let mut text = src;
    egui::ScrollArea::both()
        .id_salt("wgsl_scroll")
        .show(ui, |ui| {
            ui.add(
                egui::TextEdit::multiline(&mut text)
                    .code_editor()
                    .desired_width(f32::INFINITY),
            );
        });
}
