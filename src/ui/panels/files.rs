//! The left panel: file browser, PAK listings, references.

use egui::{Color32, RichText, Ui};

use crate::load::AssetKind;
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
    path_field(ui, state);
    ui.checkbox(&mut state.browser.viewable_only, "openable only")
        .on_hover_text(format!(
            "List only the PAK resources the viewer opens ({})",
            openable_codes()
        ));
    if let Some(e) = &state.browser.error {
        ui.colored_label(Color32::from_rgb(255, 110, 110), e);
    }
    references(ui, state);
    ui.separator();
    let selected = state.browser.selected.clone();
    let scroll_to_selected = std::mem::take(&mut state.browser.scroll_to_selected);
    let mut go_to = None;
    let mut toggle = None;
    let mut open = None;
    // A row of the open file: highlighted, and scrolled to when it was just revealed.
    let row = |ui: &mut Ui, spec: &str, text: String, enabled: bool| {
        let is_open = selected.as_deref() == Some(spec);
        let font = egui::TextStyle::Monospace.resolve(ui.style());
        let needed = ui
            .ctx()
            .fonts_mut(|f| f.layout_no_wrap(text.clone(), font, Color32::WHITE))
            .size()
            .x
            + 2.0 * ui.spacing().button_padding.x;
        let mut r = ui.add_enabled(
            enabled,
            egui::Button::selectable(is_open, RichText::new(&text).monospace()),
        );
        if needed > r.rect.width() + 0.5 {
            // Cut at the panel's edge: the whole name on hover.
            r = r.on_hover_text(text);
        }
        if is_open && scroll_to_selected {
            r.scroll_to_me(Some(egui::Align::Center));
        }
        r.clicked()
    };
    egui::ScrollArea::vertical()
        .id_salt("browser_scroll")
        .show(ui, |ui| {
            // One line per row, cut at the panel's edge (hover shows the whole name).
            ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
            for entry in &state.browser.entries {
                let pak = entry.kind == FileKind::Asset(AssetKind::Pak);
                let expanded_pak = pak && state.browser.paks.contains_key(&entry.path);
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
                    FileKind::Asset(AssetKind::Pak) => {
                        let arrow = if expanded_pak { "-" } else { "+" };
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
                                    for r in state.browser.visible_rows(rows) {
                                        shown += 1;
                                        let text = match &r.name {
                                            Some(n) => format!("{} {} · {n}", r.fourcc, r.id),
                                            None => format!("{} {}", r.fourcc, r.id),
                                        };
                                        if row(ui, &r.spec, text, r.opens()) {
                                            open = Some(r.spec.clone());
                                        }
                                    }
                                    if shown == 0 {
                                        ui.weak("(nothing matches)");
                                    }
                                }
                            });
                        }
                    }
                    FileKind::Asset(kind) => {
                        let spec = entry.path.display().to_string();
                        let text = format!("{:<4}  {}", kind.code(), entry.name);
                        if row(ui, &spec, text, true) {
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

/// `CMDL/ANCS/MREA/TXTR`: the types the viewer opens.
fn openable_codes() -> String {
    AssetKind::openable()
        .map(AssetKind::code)
        .collect::<Vec<_>>()
        .join("/")
}

/// The folder shown, editable: Enter on a folder browses it, on a file (or `PAK:ID`)
/// opens it; while the field is not being edited it shows the folder.
fn path_field(ui: &mut Ui, state: &mut AppState) {
    let field = ui
        .add(
            egui::TextEdit::singleline(&mut state.browser.path_text)
                .id_salt("browser_path")
                .hint_text("folder or file")
                .font(egui::TextStyle::Small)
                .desired_width(f32::INFINITY),
        )
        .on_hover_text("Type a folder to browse it, or a file or PAK:ID to open it (Enter)");
    if field.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter)) {
        let text = state.browser.path_text.clone();
        if let Some(spec) = state.browser.enter_path(&text) {
            state.request_open(&spec);
        }
    } else if !field.has_focus() {
        state.browser.path_text = state.browser.dir.display().to_string();
    }
}

/// Explicit choices for the files a model refers to (otherwise found by asset ID beside it,
/// by name, or as the only one of their type), and a button to reopen with them.
fn references(ui: &mut Ui, state: &mut AppState) {
    let header = if state.opening.references.is_empty() {
        "References: automatic".to_owned()
    } else {
        "References: chosen".to_owned()
    };
    egui::CollapsingHeader::new(header)
        .id_salt("references")
        .default_open(!state.opening.references.is_empty())
        .show(ui, |ui| {
            let r = &mut state.opening.references;
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
                    .opening
                    .references_spec
                    .clone()
                    .or_else(|| state.session.asset().map(|d| d.spec.clone()));
                if ui
                    .add_enabled(open.is_some(), egui::Button::new("Reopen with these"))
                    .clicked()
                    && let Some(spec) = open
                {
                    state.request_open(&spec);
                }
                if ui.button("Clear").clicked() {
                    state.opening.references = Default::default();
                }
            });
        });
}
