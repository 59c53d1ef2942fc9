//! The menu bar (File, View, Help) and the windows it opens: Screenshot…, Export… (in
//! [`super::export`]), the F1 shortcut overlay, About, and the screenshot overwrite prompt.

use std::path::PathBuf;

use egui::{RichText, Ui};

use crate::ui::prefs::with_png_extension;
use crate::ui::state::AppState;
use crate::ui::viewport::MAX_SCREENSHOT_SIDE;

/// Every shortcut of the app: (keys, what they do). The F1 overlay lists these; keep it
/// in step with [`crate::ui::view_sync`]'s shortcuts and the view's keys.
pub const SHORTCUTS: &[(&str, &str)] = &[
    ("Ctrl+O", "Open… (file dialog)"),
    ("Ctrl+S", "Save the edits over the opened file"),
    ("Ctrl+Shift+S", "Save As…"),
    ("Ctrl+Z", "Undo"),
    ("Ctrl+Shift+Z / Ctrl+Y", "Redo"),
    ("F12", "Screenshot of the 3D view (to the screenshot path)"),
    ("Ctrl+F12", "Screenshot… (size, transparency, turntable)"),
    ("F1", "This list of shortcuts"),
    ("Ctrl+Q", "Quit"),
    ("F", "Frame the model or room"),
    ("Space", "Play / pause (orbit camera)"),
    (", / .", "Previous / next animation frame"),
    ("Left drag", "Orbit the camera / look around (fly camera)"),
    ("Right or middle drag", "Pan the camera (orbit camera)"),
    ("Scroll", "Zoom / flying speed (fly camera)"),
    ("W A S D", "Fly forward, left, back, right (fly camera)"),
    ("Q / E, Ctrl / Space", "Fly down / up (fly camera)"),
    ("Shift", "Fly faster (fly camera)"),
    (
        "Click",
        "Pick the surface under the pointer (model view) / trace the pixel (quad)",
    ),
    ("Escape", "Close this list"),
];

pub(super) fn menu_bar(ui: &mut Ui, state: &mut AppState) {
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button("File", |ui| file_menu(ui, state));
        ui.menu_button("View", |ui| view_menu(ui, state));
        ui.menu_button("Help", |ui| {
            if ui.button("Shortcuts (F1)").clicked() {
                state.windows.shortcuts = true;
            }
            if ui.button("About").clicked() {
                state.windows.about = true;
            }
        });
    });
}

fn file_menu(ui: &mut Ui, state: &mut AppState) {
    if ui.button("Open…").clicked() {
        state.open_dialog();
    }
    ui.menu_button("Open Recent", |ui| {
        if state.prefs.recent.is_empty() {
            ui.weak("Nothing opened yet");
        }
        let mut chosen = None;
        for spec in &state.prefs.recent {
            if ui.button(spec).clicked() {
                chosen = Some(spec.clone());
            }
        }
        if let Some(spec) = chosen {
            state.request_open(&spec);
        }
    });
    ui.separator();
    let editable = state.session.document().is_some();
    if ui
        .add_enabled(editable && state.is_dirty(), egui::Button::new("Save"))
        .clicked()
    {
        state.save();
    }
    if ui
        .add_enabled(editable, egui::Button::new("Save As…"))
        .clicked()
    {
        state.save_as_dialog();
    }
    ui.separator();
    if ui.button("Export…").clicked() {
        state.export.open = true;
    }
    if ui.button("Screenshot…").clicked() {
        state.screenshot.open = true;
    }
    ui.separator();
    if ui.button("Quit").clicked() && state.request_close() {
        state.requests.exit = true;
    }
}

fn view_menu(ui: &mut Ui, state: &mut AppState) {
    ui.checkbox(&mut state.panels.browser, "File browser");
    ui.checkbox(&mut state.panels.right, "Material panel");
    ui.checkbox(&mut state.panels.timeline, "Timeline");
    ui.checkbox(&mut state.windows.log, "Log");
    ui.separator();
    if state.aids.menu(ui) {
        state.requests.reload_view = true;
        state.frame_model();
    }
    ui.checkbox(&mut state.perf.fps_shown, "Frame rate")
        .on_hover_text("Frames per second and frame time over the last second, over the view");
    ui.separator();
    if ui.button("Reset camera").clicked() {
        state.session.camera.reset();
    }
    if ui
        .add_enabled(state.shows_model(), egui::Button::new("Frame model (F)"))
        .clicked()
    {
        state.frame_model();
    }
}

/// The windows the menus open.
pub(super) fn windows(ui: &mut Ui, state: &mut AppState) {
    let ctx = ui.ctx().clone();
    if ui.input(|i| i.key_pressed(egui::Key::F1)) {
        state.windows.shortcuts = !state.windows.shortcuts;
    }
    if state.windows.shortcuts && ui.input(|i| i.key_pressed(egui::Key::Escape)) {
        state.windows.shortcuts = false;
    }
    if state.windows.shortcuts {
        egui::Window::new("Shortcuts")
            .open(&mut state.windows.shortcuts)
            .collapsible(false)
            .resizable(false)
            .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
            .show(&ctx, |ui| {
                egui::Grid::new("shortcuts").striped(true).show(ui, |ui| {
                    for (keys, what) in SHORTCUTS {
                        ui.label(RichText::new(*keys).monospace().strong());
                        ui.label(*what);
                        ui.end_row();
                    }
                });
            });
    }
    if state.windows.about {
        egui::Window::new("About tevscope")
            .open(&mut state.windows.about)
            .collapsible(false)
            .resizable(false)
            .show(&ctx, |ui| {
                ui.label(format!("tevscope {}", env!("CARGO_PKG_VERSION")));
                ui.label(env!("CARGO_PKG_DESCRIPTION"));
                ui.weak(format!("GPU: {}", state.perf.adapter));
                if let Some(p) = crate::ui::prefs::Prefs::path() {
                    ui.weak(format!("Settings: {}", p.display()));
                }
            });
    }
    if state.screenshot.open {
        screenshot_window(&ctx, state);
    }
    if state.export.open {
        super::export::export_window(&ctx, state);
    }
    overwrite_prompt(&ctx, state);
}

/// Screenshot…: path (native dialog or typed), size, transparency, turntable.
fn screenshot_window(ctx: &egui::Context, state: &mut AppState) {
    let mut open = true;
    egui::Window::new("Screenshot")
        .open(&mut open)
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                ui.label("File:");
                ui.add(egui::TextEdit::singleline(&mut state.screenshot.path).desired_width(320.0));
                if ui.button("Browse…").clicked() {
                    state.screenshot_path_dialog();
                }
            });
            let mut custom = state.screenshot.size.is_some();
            ui.horizontal(|ui| {
                ui.radio_value(&mut custom, false, "view size");
                ui.radio_value(&mut custom, true, "size:");
                if custom {
                    let [w, h] = state.screenshot.size.get_or_insert_with(|| {
                        state.central.texture.map_or([1920, 1080], |(_, s)| s)
                    });
                    let range = 1..=state.screenshot.max_side;
                    ui.add(egui::DragValue::new(w).range(range.clone()).suffix(" px"));
                    ui.label("×");
                    ui.add(egui::DragValue::new(h).range(range).suffix(" px"));
                } else {
                    state.screenshot.size = None;
                }
            });
            let max = state.screenshot.max_side;
            if max < MAX_SCREENSHOT_SIDE {
                ui.weak(format!(
                    "Rendered at that size, not scaled; this GPU allows at most {max}×{max} \
                     (tevscope goes up to {MAX_SCREENSHOT_SIDE})"
                ));
            } else {
                ui.weak(format!(
                    "Rendered at that size (up to {max}×{max}), not scaled"
                ));
            }
            ui.checkbox(&mut state.screenshot.transparent, "transparent background");
            ui.horizontal(|ui| {
                if ui.button("Save").clicked() {
                    state.confirm_screenshot(false);
                }
                ui.separator();
                ui.add(
                    egui::DragValue::new(&mut state.screenshot.turntable_frames)
                        .range(1..=720)
                        .suffix(" frames"),
                );
                if ui
                    .add_enabled(state.shows_model(), egui::Button::new("Turntable"))
                    .on_hover_text(
                        "The model turned all the way round: name_000.png, name_001.png, …",
                    )
                    .clicked()
                {
                    state.confirm_screenshot(true);
                }
            });
        });
    if !open {
        state.screenshot.open = false;
    }
}

/// "Overwrite?" for a screenshot path that exists.
fn overwrite_prompt(ctx: &egui::Context, state: &mut AppState) {
    let Some(path) = state.screenshot.overwrite_prompt.clone() else {
        return;
    };
    egui::Window::new("Overwrite?")
        .collapsible(false)
        .resizable(false)
        .anchor(egui::Align2::CENTER_CENTER, egui::Vec2::ZERO)
        .show(ctx, |ui| {
            ui.label(format!("{} exists. Replace it?", path.display()));
            ui.horizontal(|ui| {
                if ui.button("Replace").clicked() {
                    state.screenshot.overwrite_prompt = None;
                    state.requests.screenshot = true;
                }
                if ui.button("Cancel").clicked() {
                    state.screenshot.overwrite_prompt = None;
                }
            });
        });
}

impl AppState {
    /// Queues the screenshot (or turntable) at the typed path, `.png` added; an existing
    /// file is asked about first; the folder is remembered.
    pub fn confirm_screenshot(&mut self, turntable: bool) {
        let typed = PathBuf::from(self.screenshot.path.trim());
        if typed.as_os_str().is_empty() {
            self.messages.load_error = Some("screenshot: give a file name".into());
            return;
        }
        let path = with_png_extension(&typed);
        self.screenshot.path = path.display().to_string();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            self.prefs.screenshot_dir = Some(dir.to_path_buf());
        }
        if turntable {
            self.requests.turntable = true;
        } else if path.exists() {
            self.screenshot.overwrite_prompt = Some(path);
        } else {
            self.requests.screenshot = true;
        }
    }

    /// Chooses the screenshot path with the native dialog (which asks about overwriting
    /// itself); without one the typed path stays.
    pub fn screenshot_path_dialog(&mut self) {
        let current = PathBuf::from(self.screenshot.path.trim());
        let folder = self.prefs.screenshot_folder();
        let dialog =
            crate::ui::file_dialog(&current, Some(&folder)).add_filter("PNG image", &["png"]);
        if let Some(path) = dialog.save_file() {
            let path = with_png_extension(&path);
            if let Some(dir) = path.parent() {
                self.prefs.screenshot_dir = Some(dir.to_path_buf());
            }
            self.screenshot.path = path.display().to_string();
        }
    }

    /// Open… with the native dialog; without one, the Open field is focused instead.
    pub fn open_dialog(&mut self) {
        let mut dialog = rfd::FileDialog::new().add_filter(
            "Prime assets",
            &[
                "pak", "PAK", "cmdl", "CMDL", "ancs", "ANCS", "txtr", "TXTR", "mrea", "MREA",
            ],
        );
        if let Some(dir) = self.prefs.last_open_dir.as_ref().filter(|d| d.is_dir()) {
            dialog = dialog.set_directory(dir);
        }
        match dialog.pick_file() {
            Some(path) => self.request_open(&path.display().to_string()),
            None => self.messages.notice = Some("Type a file or PAK:ID in the Open field".into()),
        }
    }
}
