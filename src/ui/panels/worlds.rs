//! The left panel as a game browser: open a disc image, folder or PAK, then worlds → rooms by
//! name (search, language), and under a room the models it depends on. The plain file browser
//! is one click away (the Files tab).

use egui::{Color32, RichText, Ui};

use crate::ui::worlds::WorldTree;

/// The world tree; returns the room or model the user asked to open (the caller opens it
/// once unsaved edits are answered for).
pub(super) fn worlds_panel(ui: &mut Ui, worlds: &mut WorldTree) -> Option<String> {
    ui.heading("Worlds");
    ui.horizontal(|ui| {
        if ui
            .button("Open…")
            .on_hover_text("A disc image (ISO, RVZ, WIA, WBFS, CISO, GCZ, TGC) or a PAK")
            .clicked()
            && let Some(path) = rfd::FileDialog::new().pick_file()
        {
            worlds.open(&path);
        }
        if ui
            .button("Folder…")
            .on_hover_text("An extracted game, or any folder of PAKs (subfolders included)")
            .clicked()
            && let Some(path) = rfd::FileDialog::new().pick_folder()
        {
            worlds.open(&path);
        }
    });
    if let Some(source) = &worlds.source {
        ui.label(RichText::new(source.display().to_string()).small())
            .on_hover_text("The source listed");
    }
    let languages = worlds.languages();
    let mut relist = false;
    ui.horizontal(|ui| {
        ui.add(
            egui::TextEdit::singleline(&mut worlds.search)
                .hint_text("search rooms")
                .desired_width(120.0),
        );
        let shown = worlds.language.clone().unwrap_or_else(|| "ENGL".into());
        egui::ComboBox::from_id_salt("world_language")
            .selected_text(shown)
            .show_ui(ui, |ui| {
                for l in &languages {
                    let chosen = worlds.language.as_deref() == Some(l.as_str());
                    if ui.selectable_label(chosen, l).clicked() && !chosen {
                        worlds.language = Some(l.clone());
                        relist = true;
                    }
                }
            });
    });
    if relist {
        worlds.relist();
    }
    ui.separator();
    let mut open = None;
    let mut toggle = None;
    let mut overview = None;
    egui::ScrollArea::vertical()
        .id_salt("worlds_scroll")
        .show(ui, |ui| {
            ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
            let tree = &*worlds;
            let report = match &tree.listing {
                None => {
                    ui.label("Open a disc image, a folder or a PAK to see its worlds.");
                    return;
                }
                Some(Err(e)) => {
                    ui.colored_label(Color32::from_rgb(255, 110, 110), e);
                    return;
                }
                Some(Ok(r)) => r,
            };
            if report.worlds.is_empty() {
                ui.label("No worlds (named MLVLs) in this source.");
            }
            for (wi, w) in report.worlds.iter().enumerate() {
                let rooms: Vec<_> = w
                    .areas
                    .iter()
                    .filter(|a| tree.matches(&a.name) || tree.matches(&w.name))
                    .collect();
                if rooms.is_empty() {
                    continue;
                }
                egui::CollapsingHeader::new(RichText::new(&w.name).strong())
                    .id_salt(("world", wi, &w.pak))
                    .default_open(true)
                    .show(ui, |ui| {
                        ui.horizontal(|ui| {
                            if ui
                                .small_button("Overview")
                                .on_hover_text(
                                    "Every room of this world placed by its bounds, seen from \
                                     above; click one to open it",
                                )
                                .clicked()
                            {
                                overview = Some(wi);
                            }
                            ui.label(RichText::new(format!("{} · {:?}", w.pak, w.game)).small());
                        });
                        for a in rooms {
                            let expanded = tree.expanded.get(&(wi, a.index));
                            ui.horizontal(|ui| {
                                let arrow = if expanded.is_some() { "-" } else { "+" };
                                if ui
                                    .small_button(arrow)
                                    .on_hover_text("The models this room depends on")
                                    .clicked()
                                {
                                    toggle = Some((wi, a.index));
                                }
                                if ui
                                    .selectable_label(false, &a.name)
                                    .on_hover_text(format!("{} · {}", a.mrea_id, a.spec))
                                    .clicked()
                                {
                                    open = Some(a.spec.clone());
                                }
                            });
                            match expanded {
                                Some(Ok(models)) => {
                                    ui.indent(("models", wi, a.index), |ui| {
                                        if models.is_empty() {
                                            ui.label(RichText::new("no models listed").small());
                                        }
                                        for (name, spec) in models {
                                            if ui.selectable_label(false, name).clicked() {
                                                open = Some(spec.clone());
                                            }
                                        }
                                    });
                                }
                                Some(Err(e)) => {
                                    ui.colored_label(Color32::from_rgb(255, 110, 110), e);
                                }
                                None => {}
                            }
                        }
                    });
            }
            for warning in report.worlds.iter().flat_map(|w| &w.warnings).take(20) {
                ui.label(
                    RichText::new(warning)
                        .small()
                        .color(Color32::from_rgb(230, 190, 90)),
                );
            }
        });
    if let Some(world) = overview {
        worlds.show_overview(world);
    }
    if let Some(key) = toggle {
        worlds.toggle_room(key.0, key.1);
    }
    open
}
