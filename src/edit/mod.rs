//! Editing models: a [`Document`] holds the opened file and its history of undoable
//! [`Command`]s; [`patch`] turns JSON Patch (RFC 6902) over the `info --json` schema into
//! commands. The CLI (`tevscope edit`) and the viewer change models only through it.

pub mod document;
pub mod patch;
pub mod patch_mp3;

pub use document::{Command, Document, DocumentError, Edited, Origin, Saved, write_atomically};
pub use patch::{PatchError, Refusal, fixed_flag};
