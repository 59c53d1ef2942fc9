//! Exporting the texture view's shown level (the [`super::state::AppState`] side of
//! [`super::texture_view`]).

use std::path::{Path, PathBuf};

use super::state::AppState;
use super::texture_view::{export_level, shown_texture};
use crate::session::Content;

impl AppState {
    /// Whether the central panel shows the texture view (a TXTR, or a clicked map of the
    /// selection) rather than the 3D view: screenshots then write the shown level.
    pub fn texture_view_shown(&self) -> bool {
        match self.session.asset() {
            Some(d) => {
                !matches!(d.content, Content::Model { .. }) || self.texture_view.slot.is_some()
            }
            None => false,
        }
    }

    /// Exports the shown level to `path` and records the outcome in the texture view.
    pub fn export_shown_level(&mut self, path: &Path) {
        let level = self.texture_view.level;
        let shown = self.session.asset().and_then(|d| {
            shown_texture(
                d,
                self.session.selection.set,
                self.session.selection.material,
                self.texture_view.slot,
            )
        });
        let result = match shown {
            Some(shown) => export_level(shown.texture, level, path).map_err(|e| format!("{e:#}")),
            None => Err("no texture is shown".to_string()),
        };
        if let Ok(line) = &result {
            self.texture_view.export_open = false;
            self.messages.notice = Some(line.clone());
        }
        self.texture_view.export_result = Some(result);
    }

    /// Asks for the export path with the native dialog; without one (or when it is
    /// cancelled) the typed path field is shown instead.
    pub fn export_shown_level_dialog(&mut self) {
        let current = PathBuf::from(self.texture_view.export_text.trim());
        let dialog = super::file_dialog(&current, None).add_filter("PNG image", &["png"]);
        match dialog.save_file() {
            Some(path) => self.export_shown_level(&path),
            None => self.texture_view.export_open = true,
        }
    }
}
