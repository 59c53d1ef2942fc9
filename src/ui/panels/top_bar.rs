//! The top bar: open, save, undo/redo, screenshot (the menus are in [`super::menu`]; the
//! messages and the loading line are in the status bar, so they never move the layout).

use egui::Ui;

use crate::ui::state::AppState;

pub(super) fn top_bar(ui: &mut Ui, state: &mut AppState) {
    // Wraps onto a second line on narrow windows instead of pushing past the edge.
    ui.horizontal_wrapped(|ui| {
        ui.label("Open:");
        let edit = ui.add(
            egui::TextEdit::singleline(&mut state.opening.text)
                .hint_text("file, file.pak:0xID or a folder")
                .desired_width(300.0),
        );
        let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if (ui.button("Open").clicked() || enter) && !state.opening.text.trim().is_empty() {
            let spec = state.opening.text.trim().to_string();
            state.request_open(&spec);
        }
        ui.separator();
        file_actions(ui, state);
        ui.separator();
        if ui
            .button("Screenshot")
            .on_hover_text(format!(
                "Write the 3D view to {} (F12)",
                state.screenshot.path
            ))
            .clicked()
        {
            state.confirm_screenshot(false);
        }
        if ui
            .button("…")
            .on_hover_text("Screenshot options: file, size, transparency, turntable (Ctrl+F12)")
            .clicked()
        {
            state.screenshot.open = true;
        }
    });
    if state.save_as.open {
        ui.horizontal(|ui| {
            ui.label("Save as:");
            let field = ui.add(
                egui::TextEdit::singleline(&mut state.save_as.text)
                    .hint_text("path of the CMDL (or PAK) to write")
                    .desired_width(420.0),
            );
            let enter = field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if (ui.button("Write").clicked() || enter) && !state.save_as.text.trim().is_empty() {
                let path = std::path::PathBuf::from(state.save_as.text.trim());
                state.save_as(&path);
            }
            if ui.button("Cancel").clicked() {
                state.save_as.open = false;
            }
        });
    }
}

/// Save, Save As, Undo, Redo (enabled when the open file is an editable model).
fn file_actions(ui: &mut Ui, state: &mut AppState) {
    let editable = state.session.document().is_some();
    let dirty = state.is_dirty();
    let what = if state
        .session
        .document()
        .is_some_and(|e| matches!(e.origin(), crate::edit::Origin::Pak { .. }))
    {
        "the whole PAK, only this model changed"
    } else {
        "the CMDL"
    };
    if ui
        .add_enabled(editable && dirty, egui::Button::new("Save"))
        .on_hover_text(format!(
            "Write the edits over the opened file: {what} (Ctrl+S)"
        ))
        .clicked()
    {
        state.save();
    }
    if ui
        .add_enabled(editable, egui::Button::new("Save As…"))
        .on_hover_text(format!("Write {what} to another file (Ctrl+Shift+S)"))
        .clicked()
    {
        state.save_as_dialog();
    }
    let ask = super::history::undo_redo_buttons(ui, &state.history, &state.session);
    super::do_history(state, ask);
}
