//! The viewer as an editor: material edits, undo/redo, save, the unsaved-edits prompt and
//! opening files on a worker thread. Every material change goes through the open
//! [`crate::edit::Document`] in the session (the one editing path the CLI uses too); the
//! selected material's [`MaterialEdit`] and the scene are refreshed from it afterwards. Light edits ([`super::lights`]) are not part of
//! the document but share its undo history: [`History`] keeps both in the order they were
//! made.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use crate::formats::material::Material as FileMaterial;

use super::edit::MaterialEdit;
use super::history::{Answer, History, Loading, Pending, Step};
use super::parts::MaterialEditor;
use super::state::AppState;
use crate::session::{Asset, Change, Content, Editing, Opened, Session};

impl AppState {
    /// Opens `spec` once the user has decided what happens to unsaved edits.
    pub fn request_open(&mut self, spec: &str) {
        if self.is_dirty() {
            self.loader.pending = Some(Pending::Open(spec.to_string()));
        } else {
            self.requests.open = Some(spec.to_string());
        }
    }

    /// Closes the window once the user has decided what happens to unsaved edits; true when
    /// it can close now.
    pub fn request_close(&mut self) -> bool {
        if self.is_dirty() {
            self.loader.pending = Some(Pending::Close);
            false
        } else {
            true
        }
    }

    /// Acts on the unsaved-edits prompt.
    pub fn answer_pending(&mut self, answer: Answer) {
        let Some(pending) = self.loader.pending.take() else {
            return;
        };
        match answer {
            Answer::Cancel => return,
            Answer::Save if !self.save() => return,
            Answer::Save | Answer::Discard => {}
        }
        match pending {
            Pending::Open(spec) => self.requests.open = Some(spec),
            Pending::Close => self.requests.exit = true,
        }
    }

    /// Starts reading `spec` on a worker thread; the window keeps drawing and
    /// [`AppState::poll_loading`] takes the result.
    pub fn start_open(&mut self, spec: &str) {
        let Some(spec) = self.resolve_open(spec) else {
            return;
        };
        let (tx, rx) = mpsc::channel();
        let references = self.references_for(&spec);
        let worker_spec = spec.clone();
        let spawned = std::thread::Builder::new()
            .name("tevscope-open".into())
            .spawn(move || {
                // The receiver is gone only when another open replaced this one.
                let _ = tx.send(Opened::load(&worker_spec, &references));
            });
        match spawned {
            Ok(_) => {
                self.loader.loading = Some(Loading {
                    spec,
                    started: Instant::now(),
                    rx,
                })
            }
            Err(e) => self.messages.load_error = Some(format!("cannot start opening {spec}: {e}")),
        }
    }

    /// Takes the worker's result when it is ready; true when a file was taken.
    pub fn poll_loading(&mut self) -> bool {
        let Some(loading) = &self.loader.loading else {
            return false;
        };
        let opened = match loading.rx.try_recv() {
            Ok(opened) => opened,
            Err(mpsc::TryRecvError::Empty) => return false,
            Err(mpsc::TryRecvError::Disconnected) => Opened {
                asset: Err(anyhow::anyhow!(
                    "opening {} failed (worker stopped)",
                    loading.spec
                )),
                editing: Editing::NotAModel,
            },
        };
        let spec = loading.spec.clone();
        self.loader.loading = None;
        self.finish_open(&spec, opened);
        true
    }

    /// The selected material as stored in the file (what the editor changes).
    pub fn file_material(&self) -> Option<&FileMaterial> {
        selected_file_material(&self.session)
    }

    /// The selected set's texture IDs (the choices for a material's texture slots).
    pub fn set_texture_ids(&self) -> &[u32] {
        selected_texture_ids(&self.session)
    }

    /// Selects material (set, index) for editing (`MaterialEditor::select_material`).
    pub fn select_material(&mut self, set: usize, index: usize) {
        self.material_editor().select_material(set, index);
    }

    /// Replaces the selected material (`MaterialEditor::apply_material`).
    pub fn apply_material(&mut self, material: FileMaterial, label: &str) {
        self.material_editor().apply_material(material, label);
    }

    /// Refreshes what the viewer shows after the document changed
    /// (`MaterialEditor::document_changed`).
    pub(crate) fn document_changed(&mut self, change: Change) {
        self.material_editor().document_changed(change);
    }

    /// Forgets every step (a file was opened).
    pub(crate) fn clear_history(&mut self) {
        self.history = History::default();
    }

    /// Labels of the done steps (oldest first) and the undone ones (the next to redo
    /// first), material and light edits together.
    pub fn history_labels(&self) -> (Vec<String>, Vec<String>) {
        self.history.labels(&self.session)
    }

    /// Undoes or redoes until `done` steps are done (a click in the History tab).
    pub(crate) fn undo_to(&mut self, done: usize) {
        while self.history.done() > done && self.undo() {}
        while self.history.done() < done && self.redo() {}
    }

    /// Undoes the last edit (material or lights); false when there is none.
    pub fn undo(&mut self) -> bool {
        self.step(true)
    }

    /// Redoes the last undone edit; false when there is none.
    pub fn redo(&mut self) -> bool {
        self.step(false)
    }

    /// Moves one step back (undo) or forward (redo). The step changes stacks first, so
    /// the document's refresh finds the history in step with it.
    fn step(&mut self, back: bool) -> bool {
        self.history.last_edit = None;
        let (from, to) = if back {
            (&mut self.history.undo, &mut self.history.redo)
        } else {
            (&mut self.history.redo, &mut self.history.undo)
        };
        let Some(step) = from.pop() else {
            return false;
        };
        let lights = match &step {
            Step::Lights(s) => Some(if back {
                s.before.clone()
            } else {
                s.after.clone()
            }),
            Step::Document => None,
        };
        to.push(step);
        let document = match lights {
            Some(_) => None,
            None if back => self.session.undo(),
            None => self.session.redo(),
        };
        match (lights, document) {
            (Some(state), _) => self.lights_panel().restore_lights(&state),
            (None, Some(change)) => self.document_changed(change),
            (None, None) => {
                // The document had no such command: the step was stale.
                let to = if back {
                    &mut self.history.redo
                } else {
                    &mut self.history.undo
                };
                to.pop();
                return false;
            }
        }
        true
    }

    /// Whether the document has edits that are not saved.
    pub fn is_dirty(&self) -> bool {
        self.session.is_dirty()
    }

    /// The window title: the open file, with a dirty marker.
    pub fn title(&self) -> String {
        let name = match (self.session.document(), self.session.asset()) {
            (Some(e), _) => e.label().to_string(),
            (None, Some(d)) => d.spec.clone(),
            (None, None) => return "tevscope".into(),
        };
        let dirty = if self.is_dirty() { "● " } else { "" };
        format!("{dirty}{name} — tevscope")
    }

    /// Saves over the opened file (the whole PAK for a PAK member); false on failure.
    pub fn save(&mut self) -> bool {
        let Some(path) = self
            .session
            .document()
            .map(|e| e.origin().path().to_path_buf())
        else {
            return false;
        };
        if crate::load::builtin::is_read_only(&path) {
            // The demo inside the program and files on a disc image are never overwritten:
            // ask where to write (a disc's PAK goes into a new image or a folder).
            self.save_as_dialog();
            return !self.is_dirty();
        }
        self.save_as(&path)
    }

    /// Writes the document to `path` (temporary file, then rename) and keeps editing that
    /// file; false on failure (the message is in `edit_error`). A name without an extension
    /// gets the open file's (`.CMDL`, `.MREA`, `.pak`): the viewer opens a file as an
    /// editable model by its extension, so without one it would refuse what it wrote.
    pub fn save_as(&mut self, path: &Path) -> bool {
        let Some(editor) = self.session.document() else {
            return false;
        };
        let ext = match editor.origin().path().extension().and_then(|e| e.to_str()) {
            Some(e) if !e.is_empty() => e.to_string(),
            _ => match editor.edited() {
                crate::edit::Edited::Model(_) => "CMDL".into(),
                crate::edit::Edited::Area(_) => "MREA".into(),
            },
        };
        let path = &if path.is_dir() {
            path.to_path_buf()
        } else {
            super::prefs::with_default_extension(path, &ext)
        };
        match self.session.save_as(path) {
            Ok(None) => false,
            Ok(Some(saved)) => {
                self.messages.edit_error = None;
                self.save_as.open = false;
                self.save_as.text = path.display().to_string();
                self.messages.notice = Some(format!("Saved: {saved}"));
                true
            }
            Err(e) => {
                self.messages.edit_error = Some(format!("save failed: {e}"));
                false
            }
        }
    }

    /// Asks for a path with the native dialog; without one (or when it is cancelled) the
    /// typed path field is shown instead.
    pub fn save_as_dialog(&mut self) {
        let current = PathBuf::from(self.save_as.text.trim());
        let dialog = super::file_dialog(&current, self.prefs.last_save_dir.as_deref());
        match dialog.save_file() {
            Some(path) => {
                self.prefs.last_save_dir = path.parent().map(Path::to_path_buf);
                self.save_as(&path);
            }
            None => self.save_as.open = true,
        }
    }
}

impl MaterialEditor<'_> {
    /// Selects material (set, index) for editing, as the user chose it (the model view
    /// tints it), and asks for a viewport rebuild.
    pub fn select_material(&mut self, set: usize, index: usize) {
        self.show_material(set, index);
        self.session.selection.chosen = true;
    }

    /// Shows material (set, index) in the editor without tinting it, and asks for a
    /// viewport rebuild.
    pub(crate) fn show_material(&mut self, set: usize, index: usize) {
        self.session.selection.chosen = false;
        self.session.selection.set = set;
        self.session.selection.material = index;
        self.selected.report = None;
        self.selected.thumbnails = None;
        self.selected.edit = match self.session.asset() {
            Some(Asset {
                content: Content::Texture { .. },
                ..
            }) => Some(MaterialEdit::new(
                crate::session::asset::texture_preview_material(),
                self.tev_options,
            )),
            Some(doc) => doc
                .material(set, index)
                .map(|m| MaterialEdit::new(m.material.clone(), self.tev_options)),
            None => None,
        };
        self.requests.reload_view = true;
    }

    /// Replaces the selected material through the session as one undoable command; a
    /// material breaking a limit is refused with a message and changes nothing. Changes of
    /// the same field less than a second apart (a drag) are one command.
    pub fn apply_material(&mut self, material: FileMaterial, label: &str) {
        let (set, index) = (self.session.selection.set, self.session.selection.material);
        let label = format!("material {index}: {label}");
        let merge = self.history.merges_with_last_edit(&label);
        match self
            .session
            .edit_material(set, index, material, &label, merge)
        {
            Ok(change) => {
                self.history.edited(label);
                self.messages.edit_error = None;
                self.document_changed(change);
            }
            Err(e) => self.messages.edit_error = Some(format!("{label} refused: {e}")),
        }
    }

    /// Brings the history in step with the document after it changed: a new command is a
    /// new step (and drops the undone ones); a merged drag that ended where it started
    /// left no command, so its step goes too.
    fn sync_history(&mut self) {
        let done = self.session.document().map_or(0, |e| e.history().count());
        let known = History::documents(&self.history.undo);
        if done > known {
            self.history
                .undo
                .extend(std::iter::repeat_n(Step::Document, done - known));
            self.history.redo.clear();
        }
        for _ in done..known {
            if let Some(last) = self
                .history
                .undo
                .iter()
                .rposition(|s| matches!(s, Step::Document))
            {
                self.history.undo.remove(last);
            }
        }
    }

    /// Refreshes what the viewer shows of the document after it changed (the session
    /// derived the materials already; the scene takes them, texture bindings included, at
    /// the next frame): the history and the selected material's edit.
    pub(crate) fn document_changed(&mut self, change: Change) {
        self.sync_history();
        if change == Change::None {
            return;
        }
        if change == Change::Model {
            // A second draw changed: the scene is rebuilt from the new model.
            self.requests.reload_view = true;
        }
        self.selected.thumbnails = None;
        let material = self
            .session
            .asset()
            .and_then(|d| d.material(self.session.selection.set, self.session.selection.material))
            .map(|m| m.material.clone());
        match (material, self.selected.edit.as_mut()) {
            (Some(m), Some(edit)) => {
                edit.sync(m);
            }
            (Some(m), None) => {
                self.selected.edit = Some(MaterialEdit::new(m, self.tev_options));
                self.requests.reload_view = true;
            }
            (None, _) => {
                self.selected.edit = None;
                self.requests.reload_view = true;
            }
        }
    }
}

/// The selected material as stored in the file (what the editor changes).
pub(crate) fn selected_file_material(session: &Session) -> Option<&FileMaterial> {
    session.file_material(session.selection.set, session.selection.material)
}

/// The selected set's texture IDs (the choices for a material's texture slots).
pub(crate) fn selected_texture_ids(session: &Session) -> &[u32] {
    session
        .document()
        .and_then(|e| e.material_sets().get(session.selection.set))
        .map_or(&[], |s| &s.texture_ids)
}
