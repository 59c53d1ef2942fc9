//! The viewer's undo history of material and light edits, the unsaved-edits prompt and
//! the file opening on the worker thread: the editing state [`super::state::AppState`]
//! holds (its operations are in [`super::editing`]).

use std::sync::mpsc;
use std::time::Instant;

use super::light_editor::LightStep;
use crate::session::{Opened, Session};

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

/// One step of the viewer's undo history.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Step {
    /// The document's next command (the document holds it, in the same order).
    Document,
    /// A change of the lights (held here: lights are not part of the document).
    Lights(Box<LightStep>),
}

/// The viewer's undo history: material edits and light edits in the order they were made,
/// so Ctrl+Z undoes the last of either. Opening a file starts a new one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct History {
    /// Done steps, oldest first.
    pub(crate) undo: Vec<Step>,
    /// Undone steps, the next to redo last.
    pub(crate) redo: Vec<Step>,
    /// Label and time of the last edit, material or lights: the same field changed again
    /// within a second (a drag) merges into its step.
    pub(crate) last_edit: Option<(String, std::time::Instant)>,
}

impl History {
    /// Whether an edit labelled `label` continues the last one (the same field changed
    /// again within a second: a drag), so both are one undo step.
    pub(crate) fn merges_with_last_edit(&self, label: &str) -> bool {
        self.last_edit
            .as_ref()
            .is_some_and(|(l, at)| l == label && at.elapsed() < std::time::Duration::from_secs(1))
    }

    /// Notes an edit labelled `label`, made now (the next one may merge with it).
    pub(crate) fn edited(&mut self, label: String) {
        self.last_edit = Some((label, std::time::Instant::now()));
    }

    pub(crate) fn documents(steps: &[Step]) -> usize {
        steps.iter().filter(|s| matches!(s, Step::Document)).count()
    }

    /// How many steps are done.
    pub fn done(&self) -> usize {
        self.undo.len()
    }

    /// Labels of the done steps (oldest first) and the undone ones (the next to redo
    /// first), material and light edits together.
    pub fn labels(&self, session: &Session) -> (Vec<String>, Vec<String>) {
        let label = |step: &Step, document: &mut dyn Iterator<Item = &str>| match step {
            Step::Document => document.next().unwrap_or("(material edit)").to_string(),
            Step::Lights(s) => s.label.clone(),
        };
        let editor = session.document();
        let mut done_docs = editor.into_iter().flat_map(|e| e.history());
        let done = self.undo.iter().map(|s| label(s, &mut done_docs)).collect();
        let mut undone_docs = editor.into_iter().flat_map(|e| e.redo_history());
        let undone = self
            .redo
            .iter()
            .rev()
            .map(|s| label(s, &mut undone_docs))
            .collect();
        (done, undone)
    }

    /// The last done step when it is a light step (a drag of the same field merges into it).
    pub(crate) fn last_lights_mut(&mut self) -> Option<&mut LightStep> {
        match self.undo.last_mut() {
            Some(Step::Lights(s)) => Some(s),
            _ => None,
        }
    }
}

/// A file being opened on the worker thread.
pub struct Loading {
    pub spec: String,
    pub started: Instant,
    pub(crate) rx: mpsc::Receiver<Opened>,
}
