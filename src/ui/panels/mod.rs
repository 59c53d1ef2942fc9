//! The egui panels, one file per panel, drawn from [`AppState`] with no GPU access.
//!
//! A panel that shows part of the core receives just that part: a struct of disjoint
//! borrows built by [`AppState`] (`lights_panel`, `material_panel`, `timeline_panel`,
//! `room_panel`, `inspector_panel`, `history_panel`, `wgsl_panel`, `world_map_panel`), or
//! the one field it shows (the texture view, the world tree, the skeleton's session and
//! controls). What it cannot do with that part — open a file (unsaved edits are asked
//! about first), undo, export — it returns, and the caller here does it. The whole state
//! goes only to what lays out or orchestrates every part: [`show`] and the right panel's
//! tabs here, the top bar and the menus with their windows (open, save, screenshot,
//! export), the file browser (open, References) and the central view (the viewport image,
//! picking, the model bar, the texture view and strip); `tests/layers.rs` counts them.
//!
//! - [`top_bar`]: open, save, undo/redo, screenshot, messages and the loading line;
//!   [`export`]: File → Export; [`files`]: the file browser; [`central`]: the viewport; [`timeline`]: the clock.
//! - The right panel's tabs: [`material`] (the material's own fields), [`stages`] (TEV
//!   stages), [`vertex`] (texgens, UV animations), [`history`], [`wgsl`], [`inspector`],
//!   [`lights`] (the light list; it also draws the lights' gizmos over the model view).

mod central;
mod checker;
mod export;
mod files;
mod history;
#[cfg(test)]
mod inspect_tests;
mod inspector;
#[cfg(test)]
mod layout_tests;
mod lights;
mod material;
mod menu;
mod mp3_material;
mod room;
mod skeleton;
mod stage_strip;
mod stages;
#[cfg(test)]
mod tests;
mod texture;
mod timeline;
mod top_bar;
mod vertex;
mod wgsl;
mod world_map;
#[cfg(test)]
mod world_map_tests;
mod worlds;

use egui::{Color32, RichText, Ui};

use crate::render::pipeline_cache::SelectedPath;

use super::edit::{EditKind, MaterialEdit};
use super::history::{Answer, Pending};
use super::state::{AppState, Loader, Messages, RightTab};
use super::viewport::ViewStatus;

/// Widths (points) of the side panels for a window `width` points wide: together at most
/// 40 % of it, so the 3D view keeps at least 60 %; each resizable between its min and
/// max, content scrolls instead of widening them. `right_max` is the right panel's widest
/// beside the browser at its widest ([`SidePanels::right_max_beside`] for another width).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SidePanels {
    pub left_min: f32,
    pub left_default: f32,
    pub left_max: f32,
    pub right_min: f32,
    pub right_default: f32,
    pub right_max: f32,
}

impl SidePanels {
    /// Share of the window the two panels may take together.
    pub const MAX_SHARE: f32 = 0.40;

    pub fn for_width(width: f32) -> Self {
        let left_max = (width * 0.14).min(360.0);
        let right_max = width * Self::MAX_SHARE - left_max;
        let left_min = 120.0_f32.min(left_max);
        let right_min = 220.0_f32.min(right_max);
        Self {
            left_min,
            left_default: 240.0_f32.clamp(left_min, left_max),
            left_max,
            right_min,
            right_default: 460.0_f32.clamp(right_min, right_max),
            right_max,
        }
    }

    /// The right panel's widest beside a browser `left` points wide (0 when hidden): what
    /// the browser leaves of the two panels' share, so narrowing or hiding the browser
    /// gives the material editor the width freed.
    pub fn right_max_beside(&self, left: f32) -> f32 {
        (self.left_max + self.right_max - left).max(self.right_min)
    }
}

/// Draws the whole UI for one frame.
pub fn show(ui: &mut Ui, state: &mut AppState) {
    state.picking.hovered_material = None;
    let panels = SidePanels::for_width(ui.available_width());
    state.layout = super::state::Layout::default();
    egui::Panel::top("menu_bar").show(ui, |ui| menu::menu_bar(ui, state));
    let top = egui::Panel::top("top_bar").show(ui, |ui| top_bar::top_bar(ui, state));
    state.layout.top = Some(top.response.rect);
    egui::Panel::bottom("status_bar").show(ui, |ui| status_bar(ui, state));
    if state.windows.log {
        egui::Panel::bottom("log")
            .resizable(true)
            .default_size(140.0)
            .min_size(60.0)
            .max_size(ui.available_height() * 0.4)
            .show(ui, |ui| log_panel(ui, state));
    }
    if state.panels.timeline {
        let timeline = egui::Panel::bottom("timeline")
            .show(ui, |ui| timeline::timeline(ui, state.timeline_panel()));
        state.layout.timeline = Some(timeline.response.rect);
    }
    // A remembered width within this window's limits.
    let remembered = |w: Option<f32>, default: f32, min: f32, max: f32| {
        w.unwrap_or(default).clamp(min, max.max(min))
    };
    let mut left_width = 0.0;
    if state.panels.browser {
        let left = egui::Panel::left("browser")
            .resizable(true)
            .min_size(panels.left_min)
            .default_size(remembered(
                state.prefs.left_panel_width,
                panels.left_default,
                panels.left_min,
                panels.left_max,
            ))
            .max_size(panels.left_max)
            .show(ui, |ui| left_panel(ui, state));
        state.layout.left = Some(left.response.rect);
        left_width = left.response.rect.width();
    }
    if state.panels.right {
        let right_max = panels.right_max_beside(left_width);
        let right = egui::Panel::right("material")
            .resizable(true)
            .min_size(panels.right_min)
            .default_size(remembered(
                state.prefs.right_panel_width,
                panels.right_default,
                panels.right_min,
                right_max,
            ))
            .max_size(right_max)
            .show(ui, |ui| right_panel(ui, state));
        state.layout.right = Some(right.response.rect);
    }
    let central = egui::CentralPanel::default()
        .frame(egui::Frame::NONE.fill(Color32::from_gray(24)))
        .show(ui, |ui| {
            if state.worlds.overview.is_some() {
                if let Some(spec) = world_map::world_map(ui, state.world_map_panel()) {
                    state.request_open(&spec);
                }
            } else {
                central::central(ui, state);
            }
        });
    state.layout.central = Some(central.response.rect);
    unsaved_prompt(ui, state);
    menu::windows(ui, state);
}

/// The left panel: the Worlds/Files switch, then the chosen view.
fn left_panel(ui: &mut Ui, state: &mut AppState) {
    ui.horizontal(|ui| {
        ui.selectable_value(&mut state.worlds.shown, true, "Worlds")
            .on_hover_text("Worlds and rooms by name (a disc image, an extracted game or a PAK)");
        ui.selectable_value(&mut state.worlds.shown, false, "Files")
            .on_hover_text("The file browser: folders, PAKs and their resources");
    });
    ui.separator();
    if state.worlds.shown {
        if let Some(spec) = worlds::worlds_panel(ui, &mut state.worlds) {
            state.request_open(&spec);
        }
    } else {
        files::browser_panel(ui, state);
    }
}

/// The bottom line: warnings count (opens the log), the messages (loading, errors,
/// notices) in one truncated line, adapter. It is always one line high, so a message
/// never moves the panels.
fn status_bar(ui: &mut Ui, state: &mut AppState) {
    let count = state.warnings().len();
    ui.horizontal(|ui| {
        let text = match count {
            0 => RichText::new("no warnings").weak(),
            1 => RichText::new("1 warning").color(WARNING),
            n => RichText::new(format!("{n} warnings")).color(WARNING),
        };
        if ui
            .selectable_label(state.windows.log, text)
            .on_hover_text("Show or hide the log")
            .clicked()
        {
            state.windows.log = !state.windows.log;
        }
        ui.separator();
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.weak(&state.perf.adapter);
            ui.separator();
            ui.with_layout(egui::Layout::left_to_right(egui::Align::Center), |ui| {
                message_line(ui, &state.loader, &state.messages);
            });
        });
    });
}

/// What the message line says: the file loading, then errors, then the notice.
pub(super) fn messages(loader: &Loader, messages: &Messages) -> Vec<(String, Color32)> {
    let mut out = Vec::new();
    if let Some(loading) = &loader.loading {
        out.push((
            format!(
                "Opening {} … {:.1} s",
                loading.spec,
                loading.started.elapsed().as_secs_f32()
            ),
            Color32::LIGHT_GRAY,
        ));
    }
    for e in [&messages.load_error, &messages.edit_error]
        .into_iter()
        .flatten()
    {
        out.push((e.clone(), ERROR));
    }
    if let Some(n) = &messages.notice {
        out.push((n.clone(), Color32::LIGHT_GREEN));
    }
    out
}

/// The messages on one line, cut at its end (hover shows them whole).
fn message_line(ui: &mut Ui, loader: &Loader, messages: &Messages) {
    if loader.loading.is_some() {
        ui.spinner();
    }
    let lines = self::messages(loader, messages);
    if lines.is_empty() {
        return;
    }
    let font = egui::TextStyle::Body.resolve(ui.style());
    let mut job = egui::text::LayoutJob::default();
    for (i, (text, color)) in lines.iter().enumerate() {
        if i > 0 {
            job.append(
                "   ·   ",
                0.0,
                egui::TextFormat::simple(font.clone(), Color32::GRAY),
            );
        }
        // One line whatever the message holds.
        let text = text.replace(['\n', '\r'], " ");
        job.append(&text, 0.0, egui::TextFormat::simple(font.clone(), *color));
    }
    let whole: Vec<&str> = lines.iter().map(|(t, _)| t.as_str()).collect();
    ui.add(egui::Label::new(job).truncate())
        .on_hover_text(whole.join("\n"));
}

/// Colour of errors in the message line.
const ERROR: Color32 = Color32::from_rgb(255, 110, 110);

/// Colour of warnings in the status bar and the log.
const WARNING: Color32 = Color32::from_rgb(240, 200, 80);

/// Every warning of the open file, scrolling, long lines wrapped.
fn log_panel(ui: &mut Ui, state: &AppState) {
    ui.horizontal(|ui| {
        ui.strong("Log");
        if let Some(doc) = state.session.asset() {
            ui.weak(&doc.spec);
        }
    });
    egui::ScrollArea::vertical()
        .id_salt("log_scroll")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            let warnings = state.warnings();
            if warnings.is_empty() {
                ui.weak("Nothing to report.");
            }
            for w in warnings {
                ui.add(egui::Label::new(RichText::new(w).color(WARNING).monospace()).wrap());
            }
        });
}

/// "Save the edits first?" before opening another file or closing the window.
fn unsaved_prompt(ui: &mut Ui, state: &mut AppState) {
    let Some(pending) = &state.loader.pending else {
        return;
    };
    let what = match pending {
        Pending::Open(spec) => format!("before opening {spec}"),
        Pending::Close => "before closing".to_string(),
    };
    let name = state
        .session
        .document()
        .map_or_else(String::new, |e| e.label().to_string());
    let mut answer = None;
    egui::Window::new("Unsaved edits")
        .collapsible(false)
        .resizable(false)
        .min_width(380.0)
        .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
        .show(ui.ctx(), |ui| {
            ui.label(format!("{name} has edits that are not saved."));
            ui.label(format!("Save them {what}?"));
            ui.horizontal(|ui| {
                if ui.button("Save").clicked() {
                    answer = Some(Answer::Save);
                }
                if ui.button("Discard edits").clicked() {
                    answer = Some(Answer::Discard);
                }
                if ui.button("Cancel").clicked() {
                    answer = Some(Answer::Cancel);
                }
            });
        });
    if let Some(a) = answer {
        state.answer_pending(a);
    }
}

fn right_panel(ui: &mut Ui, state: &mut AppState) {
    ui.horizontal_wrapped(|ui| {
        ui.selectable_value(&mut state.tab, RightTab::Material, "Material");
        let edits = state.history.done();
        ui.selectable_value(
            &mut state.tab,
            RightTab::History,
            format!("History ({edits})"),
        );
        ui.selectable_value(&mut state.tab, RightTab::Wgsl, "WGSL");
        ui.selectable_value(&mut state.tab, RightTab::Inspector, "Pixel inspector");
        ui.selectable_value(&mut state.tab, RightTab::Lights, "Lights");
    });
    ui.separator();
    path_status(
        ui,
        &state.view_status,
        state.shown_key(),
        state.selected.edit.as_ref(),
        state.shows_model(),
    );
    match state.tab {
        RightTab::Material => material::material_tab(ui, &mut state.material_panel()),
        RightTab::History => {
            let ask = history::history_tab(ui, state.history_panel());
            do_history(state, ask);
        }
        RightTab::Wgsl => wgsl::wgsl_tab(ui, state.wgsl_panel()),
        RightTab::Inspector => inspector::inspector_tab(ui, state.inspector_panel()),
        RightTab::Lights => lights::lights_tab(ui, &mut state.lights_panel()),
    }
}

/// Does what the user asked of the undo history.
fn do_history(state: &mut AppState, ask: Option<history::HistoryAsk>) {
    match ask {
        Some(history::HistoryAsk::Undo) => {
            state.undo();
        }
        Some(history::HistoryAsk::Redo) => {
            state.redo();
        }
        Some(history::HistoryAsk::To(done)) => state.undo_to(done),
        None => {}
    }
}

/// Which pipeline draws the selection, its shader key and what the last edit rebuilt.
fn path_status(
    ui: &mut Ui,
    s: &ViewStatus,
    key: Option<crate::gx::key::ShaderKey>,
    edit: Option<&MaterialEdit>,
    shows_model: bool,
) {
    let (text, color) = match s.path {
        Some(SelectedPath::Specialized) => ("specialized shader live", Color32::LIGHT_GREEN),
        Some(SelectedPath::Uber) => (
            "ubershader live (specialized shader compiling)",
            Color32::from_rgb(240, 200, 80),
        ),
        Some(SelectedPath::LastGood) => (
            "last good pipeline (current structure failed)",
            Color32::from_rgb(255, 110, 110),
        ),
        None => ("nothing drawn", Color32::GRAY),
    };
    ui.horizontal_wrapped(|ui| {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
        ui.painter().circle_filled(rect.center(), 4.5, color);
        ui.label(text);
        if shows_model && s.uber_draws > 0 {
            ui.colored_label(
                Color32::from_rgb(240, 200, 80),
                format!("· {} draws on the ubershader", s.uber_draws),
            );
        }
        if let (Some(edit), Some(key)) = (edit, key) {
            ui.weak(format!("key {:016x}", key.short_hash()));
            match edit.last_edit {
                EditKind::Value => {
                    ui.weak("· last edit: value (uniforms)");
                }
                EditKind::Structure => {
                    ui.weak("· last edit: structure (new shader)");
                }
                EditKind::None => {}
            }
        }
    });
}

pub(super) fn color_button(ui: &mut Ui, rgba: &mut [u8; 4]) -> bool {
    let mut edited = *rgba;
    let changed = ui
        .color_edit_button_srgba_unmultiplied(&mut edited)
        .on_hover_text(format!("{rgba:?}"))
        .changed();
    if changed {
        *rgba = edited;
    }
    changed
}

/// A combo box over `options` named by their `Display` (the gx name table); true when
/// the value changed.
pub(super) fn named<T: PartialEq + Copy + std::fmt::Display>(
    ui: &mut Ui,
    id: impl egui::AsIdSalt,
    value: &mut T,
    options: &[T],
) -> bool {
    combo(ui, id, value, options, |v| v.to_string())
}

/// The width of the panels' combo boxes (points; a longer value widens one).
pub(super) const COMBO_WIDTH: f32 = 72.0;

/// A combo box over `options`; true when the value changed.
pub(super) fn combo<T: PartialEq + Copy>(
    ui: &mut Ui,
    id: impl egui::AsIdSalt,
    value: &mut T,
    options: &[T],
    name: impl Fn(T) -> String,
) -> bool {
    let mut changed = false;
    egui::ComboBox::from_id_salt(id)
        .selected_text(RichText::new(name(*value)).monospace())
        .width(COMBO_WIDTH)
        .show_ui(ui, |ui| {
            for &o in options {
                if ui
                    .selectable_label(o == *value, RichText::new(name(o)).monospace())
                    .clicked()
                    && o != *value
                {
                    *value = o;
                    changed = true;
                }
            }
        });
    changed
}
