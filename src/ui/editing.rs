//! The viewer as an editor: material edits, undo/redo, save, the unsaved-edits prompt and
//! opening files on a worker thread. Every change goes through the open
//! [`crate::edit::Document`] (the one editing path the CLI uses too); the viewer's
//! [`Document`](super::document::Document), the selected material's [`MaterialEdit`] and the
//! scene are refreshed from it afterwards.

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Instant;

use crate::formats::material::Material as FileMaterial;

use super::edit::MaterialEdit;
use super::state::{AppState, Opened};

/// What waits for the user's answer to "save the edits first?".
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pending {
    /// Open this spec.
    Open(String),
    /// Close the window.
    Close,
}

/// The user's answer to the unsaved-edits prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    Save,
    Discard,
    Cancel,
}

/// A file being opened on the worker thread.
pub struct Loading {
    pub spec: String,
    pub started: Instant,
    rx: mpsc::Receiver<Opened>,
}

impl AppState {
    /// Opens `spec` once the user has decided what happens to unsaved edits.
    pub fn request_open(&mut self, spec: &str) {
        if self.is_dirty() {
            self.pending = Some(Pending::Open(spec.to_string()));
        } else {
            self.requests.open = Some(spec.to_string());
        }
    }

    /// Closes the window once the user has decided what happens to unsaved edits; true when
    /// it can close now.
    pub fn request_close(&mut self) -> bool {
        if self.is_dirty() {
            self.pending = Some(Pending::Close);
            false
        } else {
            true
        }
    }

    /// Acts on the unsaved-edits prompt.
    pub fn answer_pending(&mut self, answer: Answer) {
        let Some(pending) = self.pending.take() else {
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
                self.loading = Some(Loading {
                    spec,
                    started: Instant::now(),
                    rx,
                })
            }
            Err(e) => self.load_error = Some(format!("cannot start opening {spec}: {e}")),
        }
    }

    /// Takes the worker's result when it is ready; true when a file was taken.
    pub fn poll_loading(&mut self) -> bool {
        let Some(loading) = &self.loading else {
            return false;
        };
        let opened = match loading.rx.try_recv() {
            Ok(opened) => opened,
            Err(mpsc::TryRecvError::Empty) => return false,
            Err(mpsc::TryRecvError::Disconnected) => Opened {
                doc: Err(format!("opening {} failed (worker stopped)", loading.spec)),
                editor: Err(String::new()),
            },
        };
        let spec = loading.spec.clone();
        self.loading = None;
        self.finish_open(&spec, opened);
        true
    }

    /// The selected material as stored in the file (what the editor changes).
    pub fn file_material(&self) -> Option<&FileMaterial> {
        self.editor
            .as_ref()?
            .material_sets()
            .get(self.set)?
            .materials
            .get(self.material)
    }

    /// The selected set's texture IDs (the choices for a material's texture slots).
    pub fn set_texture_ids(&self) -> &[u32] {
        self.editor
            .as_ref()
            .and_then(|e| e.material_sets().get(self.set))
            .map_or(&[], |s| &s.texture_ids)
    }

    /// Replaces the selected material through the document as one undoable command; a
    /// material breaking a limit is refused with a message and changes nothing. Changes of
    /// the same field less than a second apart (a drag) are one command.
    pub fn apply_material(&mut self, material: FileMaterial, label: &str) {
        let (set, index) = (self.set, self.material);
        let Some(editor) = self.editor.as_mut() else {
            return;
        };
        let label = format!("material {index}: {label}");
        let now = Instant::now();
        let merge = self.last_edit.as_ref().is_some_and(|(l, at)| {
            *l == label && now.duration_since(*at) < std::time::Duration::from_secs(1)
        });
        match editor.edit_material(set, index, material, &label, merge) {
            Ok(()) => {
                self.last_edit = Some((label, now));
                self.edit_error = None;
                self.document_changed();
            }
            Err(e) => self.edit_error = Some(format!("{label} refused: {e}")),
        }
    }

    /// Undoes the last edit; false when there is none.
    pub fn undo(&mut self) -> bool {
        self.last_edit = None;
        let done = self.editor.as_mut().is_some_and(|e| e.undo());
        if done {
            self.document_changed();
        }
        done
    }

    /// Redoes the last undone edit; false when there is none.
    pub fn redo(&mut self) -> bool {
        self.last_edit = None;
        let done = self.editor.as_mut().is_some_and(|e| e.redo());
        if done {
            self.document_changed();
        }
        done
    }

    /// Whether the document has edits that are not saved.
    pub fn is_dirty(&self) -> bool {
        self.editor.as_ref().is_some_and(|e| e.is_dirty())
    }

    /// The window title: the open file, with a dirty marker.
    pub fn title(&self) -> String {
        let name = match (&self.editor, &self.doc) {
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
            .editor
            .as_ref()
            .map(|e| e.origin().path().to_path_buf())
        else {
            return false;
        };
        self.save_as(&path)
    }

    /// Writes the document to `path` (temporary file, then rename) and keeps editing that
    /// file; false on failure (the message is in `edit_error`).
    pub fn save_as(&mut self, path: &Path) -> bool {
        let Some(editor) = self.editor.as_mut() else {
            return false;
        };
        match editor.save_as(path) {
            Ok(()) => {
                self.edit_error = None;
                self.save_as_open = false;
                self.save_as_text = path.display().to_string();
                self.notice = Some(format!("Saved {}", path.display()));
                true
            }
            Err(e) => {
                self.edit_error = Some(format!("save failed: {e}"));
                false
            }
        }
    }

    /// Asks for a path with the native dialog; without one (or when it is cancelled) the
    /// typed path field is shown instead.
    pub fn save_as_dialog(&mut self) {
        let current = PathBuf::from(self.save_as_text.trim());
        let dialog = super::file_dialog(&current, self.prefs.last_save_dir.as_deref());
        match dialog.save_file() {
            Some(path) => {
                self.prefs.last_save_dir = path.parent().map(Path::to_path_buf);
                self.save_as(&path);
            }
            None => self.save_as_open = true,
        }
    }

    /// Refreshes everything drawn from the document after it changed.
    pub(crate) fn document_changed(&mut self) {
        let Some(editor) = &self.editor else {
            return;
        };
        if let Some(doc) = self.doc.as_mut()
            && doc.refresh_materials(editor.material_sets())
        {
            // Texture bindings changed: the scene is rebuilt from the new assets.
            self.requests.reload_view = true;
        }
        self.doc_revision += 1;
        self.thumbnails = None;
        let material = self
            .doc
            .as_ref()
            .and_then(|d| d.material(self.set, self.material))
            .map(|m| m.material.clone());
        match (material, self.edit.as_mut()) {
            (Some(m), Some(edit)) => {
                edit.sync(m);
            }
            (Some(m), None) => {
                self.edit = Some(MaterialEdit::new(m, self.tev_options));
                self.requests.reload_view = true;
            }
            (None, _) => {
                self.edit = None;
                self.requests.reload_view = true;
            }
        }
    }
}
