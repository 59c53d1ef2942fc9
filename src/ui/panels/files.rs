//! The left panel: file browser, PAK listings, references.

use egui::{Color32, RichText, Ui};

use crate::ui::browser::FileKind;
use crate::ui::state::AppState;

pub(super) fn browser_panel(ui: &mut Ui, state: &mut AppState) {
    ui.heading("Files");
    ui.horizontal(|ui| {
        if ui.button("Up").on_hover_text("Parent folder").clicked() {
            state.browser.up();
        }
        if ui
            .button("Refresh")
            .on_hover_text("List the folder again")
            .clicked()
        {
            state.browser.refresh();
        }
        ui.add(
            egui::TextEdit::singleline(&mut state.browser.filter)
                .hint_text("filter")
                .desired_width(f32::INFINITY),
        );
    });
    ui.label(
        RichText::new(state.browser.dir.display().to_string())
            .small()
            .weak(),
    );
    ui.checkbox(
        &mut state.browser.viewable_only,
        "only CMDL/ANCS/TXTR in PAKs",
    );
    if let Some(e) = &state.browser.error {
        ui.colored_label(Color32::from_rgb(255, 110, 110), e);
    }
    references(ui, state);
    ui.separator();
    let current = state.doc.as_ref().map(|d| d.spec.clone());
    let mut go_to = None;
    let mut toggle = None;
    let mut open = None;
    egui::ScrollArea::vertical()
        .id_salt("browser_scroll")
        .show(ui, |ui| {
            for entry in &state.browser.entries {
                let expanded_pak =
                    entry.kind == FileKind::Pak && state.browser.paks.contains_key(&entry.path);
                if entry.kind != FileKind::Folder
                    && !expanded_pak
                    && !state.browser.matches(&entry.name)
                {
                    continue;
                }
                match entry.kind {
                    FileKind::Folder => {
                        if ui
                            .selectable_label(
                                false,
                                RichText::new(format!("DIR   {}", entry.name)).monospace(),
                            )
                            .clicked()
                        {
                            go_to = Some(entry.path.clone());
                        }
                    }
                    FileKind::Pak => {
                        let open_now = state.browser.paks.contains_key(&entry.path);
                        let arrow = if open_now { "-" } else { "+" };
                        if ui
                            .selectable_label(
                                false,
                                RichText::new(format!("PAK {arrow} {}", entry.name)).monospace(),
                            )
                            .clicked()
                        {
                            toggle = Some(entry.path.clone());
                        }
                        if let Some(rows) = state.browser.paks.get(&entry.path) {
                            ui.indent(("pak", &entry.name), |ui| match rows {
                                Err(e) => {
                                    ui.colored_label(Color32::from_rgb(255, 110, 110), e);
                                }
                                Ok(rows) => {
                                    let mut shown = 0;
                                    for row in state.browser.visible_rows(rows) {
                                        shown += 1;
                                        let text = match &row.name {
                                            Some(n) => format!("{} {} · {n}", row.fourcc, row.id),
                                            None => format!("{} {}", row.fourcc, row.id),
                                        };
                                        let selected = current.as_deref() == Some(&row.spec);
                                        let r = ui.add_enabled(
                                            row.viewable(),
                                            egui::Button::selectable(
                                                selected,
                                                RichText::new(text).monospace(),
                                            ),
                                        );
                                        if r.clicked() {
                                            open = Some(row.spec.clone());
                                        }
                                    }
                                    if shown == 0 {
                                        ui.weak("(nothing matches)");
                                    }
                                }
                            });
                        }
                    }
                    FileKind::Cmdl | FileKind::Ancs | FileKind::Txtr => {
                        let spec = entry.path.display().to_string();
                        let icon = match entry.kind {
                            FileKind::Cmdl => "CMDL",
                            FileKind::Ancs => "ANCS",
                            _ => "TXTR",
                        };
                        let selected = current.as_deref() == Some(&spec);
                        if ui
                            .selectable_label(
                                selected,
                                RichText::new(format!("{icon}  {}", entry.name)).monospace(),
                            )
                            .clicked()
                        {
                            open = Some(spec);
                        }
                    }
                }
            }
        });
    if let Some(d) = go_to {
        state.browser.set_dir(d);
    }
    if let Some(p) = toggle {
        state.browser.toggle_pak(&p);
    }
    if let Some(s) = open {
        state.request_open(&s);
    }
}

/// Explicit choices for the files a model refers to (otherwise found by asset ID beside it,
/// by name, or as the only one of their type), and a button to reopen with them.
fn references(ui: &mut Ui, state: &mut AppState) {
    let header = if state.references.is_empty() {
        "References: automatic".to_owned()
    } else {
        "References: chosen".to_owned()
    };
    egui::CollapsingHeader::new(header)
        .id_salt("references")
        .default_open(!state.references.is_empty())
        .show(ui, |ui| {
            let r = &mut state.references;
            for (label, value, hint) in [
                ("Textures", &mut r.texture_dir, "folder searched first"),
                ("Model", &mut r.model, "CMDL file or PAK:ID"),
                ("Skin", &mut r.skin, "CSKR file or PAK:ID"),
                ("Skeleton", &mut r.skeleton, "CINF file or PAK:ID"),
                ("Animation", &mut r.anim, "name, ANIM file or PAK:ID"),
            ] {
                ui.horizontal(|ui| {
                    ui.label(format!("{label:<9}"));
                    ui.add(
                        egui::TextEdit::singleline(value)
                            .hint_text(hint)
                            .desired_width(f32::INFINITY),
                    );
                });
            }
            ui.horizontal(|ui| {
                // The file they were last tried with: also one that failed to open (a
                // character whose model is not found).
                let open = state
                    .references_spec
                    .clone()
                    .or_else(|| state.doc.as_ref().map(|d| d.spec.clone()));
                if ui
                    .add_enabled(open.is_some(), egui::Button::new("Reopen with these"))
                    .clicked()
                    && let Some(spec) = open
                {
                    state.request_open(&spec);
                }
                if ui.button("Clear").clicked() {
                    state.references = Default::default();
                }
            });
        });
}
