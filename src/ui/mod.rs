//! The desktop viewer: winit + egui-winit + egui-wgpu.
//!
//! - [`app`]: the event loop, window surface and egui painting.
//! - [`state`]: [`state::AppState`], everything the panels show and edit, with no GPU
//!   access (so the UI logic runs headless in tests); [`editing`]: the editor's side of it
//!   (edits through [`crate::edit::Document`], undo/redo, save, the unsaved-edits prompt,
//!   opening on a worker thread).
//! - [`panels`]: one file per egui panel; `parts`: the parts of the state each panel that
//!   shows the core is handed (borrowed field by field, built in one place).
//! - [`viewport`]: the offscreen target shown in the central panel; screenshots and the
//!   pixel inspector read it back.
//! - [`document`], [`browser`], [`edit`], [`export`]: plain data — opened files, the file
//!   browser, the material under edit and the CPU pixel trace, File → Export.

pub mod animation;
pub mod app;
pub mod browser;
pub(crate) mod compositor;
pub mod edit;
pub mod editing;
pub mod export;
pub mod export_dff;
pub mod history;
pub mod light_editor;
pub mod lights;
pub mod panels;
pub(crate) mod parts;
pub mod perf;
pub mod prefs;
pub mod script;
pub mod state;
pub mod texture_export;
pub mod texture_view;
pub mod view_aids;
pub mod view_sync;
pub mod viewport;
pub mod world_map;
pub mod worlds;

/// How the viewer starts.
#[derive(Debug, Clone)]
pub struct ViewerOptions {
    /// A CMDL, TXTR, PAK or `PAK:ID` spec to open at start (see [`crate::load::source`]).
    pub file: Option<String>,
    /// Initial window size in logical pixels.
    pub width: u32,
    pub height: u32,
    /// `width`/`height` were asked for (else the remembered size wins).
    pub size_given: bool,
    /// Steps to run in the window, then exit (`tevscope view --script`).
    pub script: Option<Vec<script::Action>>,
    /// How long one script step may take.
    pub step_timeout: std::time::Duration,
    /// The References the first file opens with (`tevscope view FILE --model M`).
    pub references: crate::session::References,
    /// Show the frame-rate overlay from the start (`view --fps`).
    pub fps: bool,
}

impl Default for ViewerOptions {
    fn default() -> Self {
        Self {
            file: None,
            width: 1600,
            height: 900,
            size_given: false,
            script: None,
            step_timeout: std::time::Duration::from_secs(120),
            references: Default::default(),
            fps: false,
        }
    }
}

impl ViewerOptions {
    /// Options opening `file`, or the demo built into the program when `file` is None.
    pub fn with_file_or_demo(file: Option<String>) -> Self {
        Self {
            file: Some(file.unwrap_or_else(|| crate::load::builtin::DEMO_PAK.to_owned())),
            ..Self::default()
        }
    }
}

/// Opens the viewer window and runs until it closes. Errors only when no window or GPU
/// can be set up; file problems are shown in the UI.
pub fn run(options: ViewerOptions) -> anyhow::Result<()> {
    app::run(options)
}

/// A native file dialog opened in `current`'s folder (else `fallback`) with `current`'s
/// file name filled in.
pub(crate) fn file_dialog(
    current: &std::path::Path,
    fallback: Option<&std::path::Path>,
) -> rfd::FileDialog {
    let mut dialog = rfd::FileDialog::new();
    if let Some(dir) = current.parent().filter(|d| d.is_dir()).or(fallback) {
        dialog = dialog.set_directory(dir);
    }
    if let Some(name) = current.file_name() {
        dialog = dialog.set_file_name(name.to_string_lossy());
    }
    dialog
}
