//! The History tab: the material and light edits, oldest first; clicking one undoes or
//! redoes to it.

use egui::{Color32, RichText, Ui};

use crate::ui::history::History;
use crate::ui::parts::HistoryPanel;

/// What the user asked of the history (the caller does it: a step changes the document,
/// the lights and what the viewer shows of them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum HistoryAsk {
    Undo,
    Redo,
    /// Undo or redo until this many steps are done.
    To(usize),
}

pub(super) fn history_tab(ui: &mut Ui, state: HistoryPanel<'_>) -> Option<HistoryAsk> {
    let (done, undone) = state.history.labels(state.session);
    if state.session.document().is_none() && done.is_empty() && undone.is_empty() {
        ui.weak(state.session.read_only_note().unwrap_or(
            "Open a CMDL model (loose or in a PAK) to edit its materials; light edits \
             (Lights tab) are listed here too.",
        ));
        return None;
    }
    let mut ask = None;
    ui.horizontal(|ui| {
        ask = undo_redo_buttons(ui, state.history, state.session);
        // Light edits are not part of the file: only the document is saved or not.
        if state.session.document().is_some() {
            if state.session.is_dirty() {
                ui.colored_label(Color32::from_rgb(240, 200, 80), "unsaved edits");
            } else {
                ui.weak("saved");
            }
        }
    });
    ui.separator();
    // Target depth: how many edits stay done.
    let mut target = None;
    egui::ScrollArea::vertical()
        .id_salt("history_scroll")
        .show(ui, |ui| {
            if ui
                .selectable_label(done.is_empty(), "(as opened)")
                .clicked()
            {
                target = Some(0);
            }
            for (i, label) in done.iter().enumerate() {
                let current = i + 1 == done.len();
                if ui
                    .selectable_label(current, format!("{}. {label}", i + 1))
                    .clicked()
                {
                    target = Some(i + 1);
                }
            }
            for (i, label) in undone.iter().enumerate() {
                let text = RichText::new(format!("{}. {label} (undone)", done.len() + i + 1))
                    .color(Color32::GRAY);
                if ui.selectable_label(false, text).clicked() {
                    target = Some(done.len() + i + 1);
                }
            }
        });
    target.map(HistoryAsk::To).or(ask)
}

/// Undo and Redo buttons, named after what they would undo or redo.
pub(super) fn undo_redo_buttons(
    ui: &mut Ui,
    history: &History,
    session: &crate::session::Session,
) -> Option<HistoryAsk> {
    let (mut done, undone) = history.labels(session);
    let mut ask = None;
    let (undo, redo) = (done.pop(), undone.into_iter().next());
    let hover = |what: &Option<String>, key: &str| {
        what.as_ref()
            .map_or_else(|| format!("nothing ({key})"), |w| format!("{w} ({key})"))
    };
    if ui
        .add_enabled(undo.is_some(), egui::Button::new("Undo"))
        .on_hover_text(hover(&undo, "Ctrl+Z"))
        .on_disabled_hover_text("nothing to undo")
        .clicked()
    {
        ask = Some(HistoryAsk::Undo);
    }
    if ui
        .add_enabled(redo.is_some(), egui::Button::new("Redo"))
        .on_hover_text(hover(&redo, "Ctrl+Shift+Z / Ctrl+Y"))
        .on_disabled_hover_text("nothing to redo")
        .clicked()
    {
        ask = Some(HistoryAsk::Redo);
    }
    ask
}
