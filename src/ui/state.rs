//! The viewer's state ([`AppState`]), with no GPU and no egui drawing, so the UI logic runs
//! headless in tests: the application core ([`Session`]: the open asset, its document, the
//! selection, the clock, the lights) and around it what only the viewer has (panels,
//! dialogs, toggles). GPU work the UI asks for (open, inspect, screenshot) is
//! queued in [`Requests`] and carried out by the app shell after the frame. Material edits
//! go through the session (see [`super::editing`]).

use std::path::PathBuf;

use crate::gx::key::UberKey;
use crate::gx::tev::TevOptions;
use crate::gx::wgsl;

use super::browser::Browser;
use super::edit::{MaterialEdit, PixelReport};
use super::history::{History, Loading, Pending};
use super::viewport::{ViewSettings, ViewStatus};
use crate::load::{AssetKind, LightSource};
use crate::session::{Asset, Content, Session};
use crate::session::{LightChoice, Opened};

/// Work the UI asks the app to do after this frame.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Requests {
    /// Open this spec.
    pub open: Option<String>,
    /// The selected material changed: rebuild the viewport content.
    pub reload_view: bool,
    /// Inspect this target pixel.
    pub inspect: Option<(u32, u32)>,
    /// Write a screenshot.
    pub screenshot: bool,
    /// Close the window (the user answered the unsaved-edits prompt).
    pub exit: bool,
    /// Desired viewport target size in physical pixels.
    pub viewport_size: Option<(u32, u32)>,
    /// Model view: find the surface under this target pixel and select its material.
    pub pick: Option<(u32, u32)>,
    /// Write the turntable frames (see [`ScreenshotOptions`]).
    pub turntable: bool,
    /// The world overview shows: draw its geometry into the viewport instead of the
    /// content (every frame it shows, so not counted by [`Requests::is_empty`]).
    pub overview: Option<OverviewFrame>,
}

/// One frame of the world overview's geometry: which world, from where, which room lit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OverviewFrame {
    /// Index of the world in the world tree's listing.
    pub world: usize,
    pub camera: crate::render::overview::OverviewCamera,
    /// Area index of the room under the pointer.
    pub highlight: Option<u32>,
}

impl Requests {
    /// Whether nothing is asked for.
    pub(crate) fn is_empty(&self) -> bool {
        self.open.is_none()
            && !self.reload_view
            && self.inspect.is_none()
            && self.pick.is_none()
            && !self.screenshot
            && !self.turntable
            && !self.exit
    }
}

/// Right-panel tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RightTab {
    Material,
    History,
    Wgsl,
    Inspector,
    Lights,
}

/// Which WGSL the WGSL tab shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WgslChoice {
    Specialized,
    Uber,
}

/// The WGSL tab: which source it shows, and the last one generated.
#[derive(Debug, Clone)]
pub(crate) struct WgslTab {
    pub choice: WgslChoice,
    /// (key, choice, source) of the last generated WGSL, so it is built once per shader.
    pub cache: Option<(crate::gx::key::ShaderKey, WgslChoice, String)>,
}

impl WgslTab {
    /// The WGSL of `key` (the edited material's, for the ubershader), built once per key.
    pub(crate) fn source(
        &mut self,
        key: Option<crate::gx::key::ShaderKey>,
        edit: Option<&MaterialEdit>,
    ) -> Option<&str> {
        let key = key?;
        let stale = self
            .cache
            .as_ref()
            .is_none_or(|(k, choice, _)| *k != key || *choice != self.choice);
        if stale {
            let edit = edit?;
            let source = match self.choice {
                WgslChoice::Specialized => wgsl::generate(&key),
                WgslChoice::Uber => {
                    let mut uber = UberKey::new(&edit.material, &edit.program);
                    uber.vertex = key.vertex.clone();
                    wgsl::generate_uber(&uber)
                }
            };
            self.cache = Some((key, self.choice, source));
        }
        self.cache.as_ref().map(|(_, _, s)| s.as_str())
    }
}

/// The windows the Help and View menus open.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Windows {
    /// The F1 shortcut overlay.
    pub shortcuts: bool,
    pub about: bool,
    /// The warnings log panel.
    pub log: bool,
}

/// What the next open takes from the user: the typed spec and the References choices.
#[derive(Debug, Clone, Default)]
pub(crate) struct Opening {
    /// The Open field.
    pub text: String,
    /// Explicit choices for what opened models refer to.
    pub references: crate::session::References,
    /// The file last opened (or tried) with `references`: they name its parts, so opening
    /// another file clears them ([`AppState::references_for`]).
    pub references_spec: Option<String>,
}

/// What the central view shows for a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewMode {
    /// The whole model through the scene renderer.
    Model,
    /// The selected material on the preview quad (pixel-exact, CPU-traceable).
    MaterialQuad,
}

/// What a click on the model found.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelPick {
    pub x: u32,
    pub y: u32,
    /// Material set the hit's material belongs to.
    pub set: usize,
    pub hit: Option<crate::render::PickHit>,
    /// The displayed pixel, exact RGBA8.
    pub rgba: [u8; 4],
    /// The camera it was picked with (the marker shows only while it is unchanged).
    pub camera: crate::camera::OrbitCamera,
}

/// The open model's box (None for textures or nothing).
pub(crate) fn model_aabb(session: &Session) -> Option<crate::formats::cmdl::Aabb> {
    match session.asset()? {
        Asset {
            content: Content::Model { aabb, .. },
            ..
        } => Some(*aabb),
        _ => None,
    }
}

/// The viewer's words for an open failure: a character part that was not found is named
/// under References (the library's error names no place to give it).
fn open_error_message(e: &anyhow::Error) -> String {
    use crate::load::{MissingPart, Part};
    let field = MissingPart::find(e).map(|m| match m.part {
        Part::Model => "Model",
        Part::Skin => "Skin",
        Part::Skeleton => "Skeleton",
    });
    match field {
        Some(field) => format!("{e:#}; name one under References → {field} and Reopen"),
        None => format!("{e:#}"),
    }
}

/// The Screenshot… window and what it chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenshotOptions {
    /// Where the PNG goes (the remembered folder and the open file's name).
    pub path: String,
    pub transparent: bool,
    /// The window is open.
    pub open: bool,
    /// A path that exists, waiting for "overwrite?".
    pub overwrite_prompt: Option<PathBuf>,
    /// Render at this size (pixels, up to the GPU's limit, at most 8192) instead of the
    /// view's.
    pub size: Option<[u32; 2]>,
    /// Frames of a turntable export.
    pub turntable_frames: u32,
    /// The largest side this GPU renders (set by the app; 8192 at most).
    pub max_side: u32,
}

impl Default for ScreenshotOptions {
    fn default() -> Self {
        Self {
            path: String::new(),
            transparent: false,
            open: false,
            overwrite_prompt: None,
            size: None,
            turntable_frames: 36,
            max_side: super::viewport::MAX_SCREENSHOT_SIDE,
        }
    }
}

/// Where the panels ended up in the last frame (points), for scripts' layout reports.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Layout {
    pub left: Option<egui::Rect>,
    pub right: Option<egui::Rect>,
    pub central: Option<egui::Rect>,
    /// The 3D view's image inside the central panel.
    pub view: Option<egui::Rect>,
    /// The top bar and the timeline (messages must not move them).
    pub top: Option<egui::Rect>,
    pub timeline: Option<egui::Rect>,
    /// The first open TEV stage's fields, laid out whole (the right panel must hold them).
    pub stage: Option<egui::Rect>,
}

/// Which optional panels are shown (View menu).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PanelToggles {
    pub browser: bool,
    pub right: bool,
    pub timeline: bool,
}

impl Default for PanelToggles {
    fn default() -> Self {
        Self {
            browser: true,
            right: true,
            timeline: true,
        }
    }
}

/// An egui copy of a texture map and its size.
pub(crate) type Thumbnail = (egui::TextureHandle, [u32; 2]);

/// The typed Save As path (shown when no native dialog is available) and whether it shows.
#[derive(Debug, Default)]
pub(crate) struct SaveAsField {
    pub text: String,
    pub open: bool,
}

/// File → Export's window (glTF and DFF): what it writes and what the last export said.
#[derive(Debug, Clone, Default)]
pub(crate) struct ExportDialog {
    /// The glTF path.
    pub path: String,
    /// Only the playing animation goes in.
    pub current_only: bool,
    /// Bake what the viewer draws into the base colour textures.
    pub bake: bool,
    /// The window is open.
    pub open: bool,
    /// The last export's line (or error).
    pub result: Option<Result<String, String>>,
    /// The DFF part: where "Export DFF" writes.
    pub dff: super::export_dff::DffExport,
}

/// The stage strip's panel state; the app sets the thumbnails each frame from the
/// viewport's strip renderer.
#[derive(Debug, Clone, PartialEq)]
pub struct StripPanel {
    /// The main view draws this stage view (a stage-strip thumbnail was clicked).
    pub view: Option<crate::gx::wgsl::stage_view::StageView>,
    /// The strip is open (its thumbnails are rendered).
    pub open: bool,
    /// The thumbnails as egui textures, stage by stage.
    pub thumbs: Vec<egui::TextureId>,
    /// The raster-colour thumbnails of the material (COLOR0, COLOR1).
    pub raster_thumbs: [Option<egui::TextureId>; 2],
}

impl Default for StripPanel {
    fn default() -> Self {
        Self {
            view: None,
            open: true,
            thumbs: Vec::new(),
            raster_thumbs: [None; 2],
        }
    }
}

/// What the pointer points at: a click on the model, a row of the material list.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Picking {
    /// The last click on the model and what it hit.
    pub pick: Option<ModelPick>,
    /// The material under the pointer in the material list this frame (tinted instead of
    /// the selection while hovered).
    pub hovered_material: Option<usize>,
}

/// The one-line messages the panels show (each cleared when what it reports is redone).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Messages {
    /// Why the last open failed.
    pub load_error: Option<String>,
    /// A one-line message (demo missing, screenshot saved, …).
    pub notice: Option<String>,
    /// The last refused edit or failed save.
    pub edit_error: Option<String>,
}

/// The central panel's 3D view: the image the viewport rendered, and a pending framing.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(crate) struct CentralView {
    /// The viewport's egui texture and its size in physical pixels.
    pub texture: Option<(egui::TextureId, [u32; 2])>,
    /// Frame the model once the viewport has its size (a newly opened model).
    pub frame_pending: bool,
}

/// What the right panel shows of the selected material: its edit (the Material tab), the
/// inspected pixel (the Pixel inspector) and the egui copies of its texture maps; all are
/// dropped together when another material is selected.
#[derive(Default)]
pub struct SelectedMaterial {
    pub edit: Option<MaterialEdit>,
    pub(crate) report: Option<PixelReport>,
    /// egui copies of the selection's texture maps, made on first display.
    pub(crate) thumbnails: Option<Vec<Option<Thumbnail>>>,
}

/// What the central view shows of the open asset.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ViewChoice {
    pub mode: ViewMode,
    /// A room's world models: shown (true) or hidden, in the document's order.
    pub world_models_visible: Vec<bool>,
}

impl Default for ViewChoice {
    fn default() -> Self {
        Self {
            mode: ViewMode::Model,
            world_models_visible: Vec::new(),
        }
    }
}

/// Opening files: the one reading on the worker thread, and the one (or the window's
/// close) waiting for the unsaved-edits prompt.
#[derive(Default)]
pub(crate) struct Loader {
    pub loading: Option<Loading>,
    pub pending: Option<Pending>,
}

/// Everything the panels show and edit: the session and, grouped by concept, what only the
/// viewer has. Panels that show the core get their part of it through `super::parts`.
pub struct AppState {
    pub(crate) browser: Browser,
    /// The game browser: worlds and rooms of a disc, folder or PAK (the demo's at start).
    pub(crate) worlds: super::worlds::WorldTree,
    /// The message lines under the top bar: load error, notice, refused edit.
    pub messages: Messages,
    /// What the right panel shows of the selected material: its edit, pixel report, maps.
    pub selected: SelectedMaterial,
    pub tev_options: TevOptions,
    /// The View menu's debug view, preview shape and A/B split.
    pub aids: super::view_aids::ViewAids,
    pub settings: ViewSettings,
    pub tab: RightTab,
    pub(crate) wgsl: WgslTab,
    /// The Open field and the References section (the file browser's).
    pub(crate) opening: Opening,
    /// File → Export's window: the glTF and DFF paths, options and last result.
    pub(crate) export: ExportDialog,
    /// The 3D view's image in the central panel, and whether it waits to frame the model.
    pub(crate) central: CentralView,
    /// The stage strip under the stage list: open, its thumbnails, the stage the view shows.
    pub strip: StripPanel,
    /// The frame-rate overlay and meter, and which strip thumbnails are on screen.
    pub perf: super::perf::PerfState,
    pub view_status: ViewStatus,
    pub requests: Requests,
    /// What the central view shows of the open asset: the model or the quad, and which of a
    /// room's world models.
    pub(crate) view: ViewChoice,
    /// The records `light_set` is built from, as the Lights tab edits them.
    pub(crate) light_editor: super::light_editor::LightEditor,
    /// What the pointer found: the last model pick and the hovered material row.
    pub picking: Picking,
    /// The open asset and its editable document: the one truth of materials.
    pub session: Session,
    /// Material and light edits in order, for undo and redo.
    pub(crate) history: History,
    /// The Save As path field (the fallback when no native dialog is available).
    pub(crate) save_as: SaveAsField,
    /// The file opening on the worker thread and what waits for the unsaved-edits prompt.
    pub(crate) loader: Loader,
    /// The texture view (a TXTR, or a texture map of the selection).
    pub(crate) texture_view: super::texture_view::TextureView,
    /// The character animation's controls (loop, bind pose, skeleton overlay).
    pub(crate) anim_view: super::animation::AnimView,
    /// Settings remembered between runs (recent files, folders, sizes).
    pub prefs: super::prefs::Prefs,
    pub(crate) screenshot: ScreenshotOptions,
    /// The shortcut overlay, About window and warnings log that are open.
    pub(crate) windows: Windows,
    pub(crate) panels: PanelToggles,
    pub(crate) layout: Layout,
}

impl AppState {
    pub fn new(start_dir: PathBuf) -> Self {
        Self {
            browser: Browser::new(start_dir),
            worlds: super::worlds::WorldTree::with_demo(),
            messages: Messages::default(),
            selected: SelectedMaterial::default(),
            tev_options: TevOptions::default(),
            aids: Default::default(),
            settings: ViewSettings::default(),
            tab: RightTab::Material,
            wgsl: WgslTab {
                choice: WgslChoice::Specialized,
                cache: None,
            },
            opening: Opening::default(),
            export: ExportDialog::default(),
            central: CentralView::default(),
            strip: StripPanel::default(),
            perf: Default::default(),
            view_status: ViewStatus::default(),
            requests: Requests::default(),
            view: ViewChoice::default(),
            light_editor: super::light_editor::LightEditor::new(),
            picking: Picking::default(),
            session: Session::default(),
            history: History::default(),
            save_as: Default::default(),
            loader: Loader::default(),
            texture_view: Default::default(),
            anim_view: Default::default(),
            prefs: Default::default(),
            screenshot: ScreenshotOptions::default(),
            windows: Windows::default(),
            panels: PanelToggles::default(),
            layout: Layout::default(),
        }
    }

    /// The open model's assets, animations and box (None for textures or nothing).
    pub fn model(
        &self,
    ) -> Option<(
        &std::sync::Arc<crate::load::ModelAssets>,
        &[crate::session::AnimationInfo],
        crate::formats::cmdl::Aabb,
    )> {
        match self.session.asset() {
            Some(Asset {
                content:
                    Content::Model {
                        assets,
                        animations,
                        aabb,
                        ..
                    },
                ..
            }) => Some((assets, animations, *aabb)),
            _ => None,
        }
    }

    /// Whether the central view draws the whole model.
    pub fn shows_model(&self) -> bool {
        self.view.mode == ViewMode::Model && self.model().is_some()
    }

    /// Points the camera at the whole model (see [`crate::session::camera::Camera::frame`]):
    /// as it moves through the clip chosen, fitted to the viewport once its size is known;
    /// a preview shape by its −1…1 box.
    pub fn frame_model(&mut self) {
        if self.model().is_none() {
            return;
        }
        if self.aids.preview.is_some() {
            self.session.camera.frame_box(&crate::geom::Aabb {
                min: [-1.0; 3],
                max: [1.0; 3],
            });
            return;
        }
        let clip = self.anim_view.posed_animation(&self.session);
        let size = self.central.texture.map(|(_, size)| size);
        self.session.frame_camera(clip, size);
    }

    /// Switches between orbit and fly camera; the view stays where it is.
    pub fn set_camera_mode(&mut self, mode: crate::camera::CameraMode) {
        let aabb = model_aabb(&self.session);
        self.session.camera.set_mode(mode, aabb.as_ref());
    }

    /// A room's surfaces hidden with their world models (None when nothing is hidden).
    pub fn hidden_surfaces(&self) -> Option<Vec<bool>> {
        let doc = self.session.asset()?;
        if self.view.world_models_visible.iter().all(|&v| v) {
            return None;
        }
        let count = doc.world_models.last().map_or(0, |w| w.surfaces.end);
        let mut hidden = vec![false; count];
        for (w, _) in doc
            .world_models
            .iter()
            .zip(&self.view.world_models_visible)
            .filter(|(_, v)| !**v)
        {
            hidden[w.surfaces.clone()].fill(true);
        }
        Some(hidden)
    }

    /// Every warning of the open file (loading, then drawing), each once, in order.
    pub fn warnings(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        let doc = self.session.asset().map_or(&[][..], |d| &d.warnings[..]);
        for w in doc.iter().chain(&self.view_status.warnings) {
            if !out.contains(&w.as_str()) {
                out.push(w);
            }
        }
        out
    }

    /// The material the model view tints: the hovered one, else the selection (when
    /// tinting is on and the user selected it).
    pub fn highlighted_material(&self) -> Option<usize> {
        self.picking.hovered_material.or_else(|| {
            (self.prefs.tint_selection
                && self.session.selection.chosen
                && self.selected.edit.is_some())
            .then_some(self.session.selection.material)
        })
    }

    /// Called with the view's size each frame: frames the model again when the size
    /// changed and the camera is still where framing put it (the user has not moved it).
    pub fn keep_framed(&mut self, size: [u32; 2]) {
        if self.session.camera.keeps_framing(size) {
            self.frame_model();
        }
    }

    /// Switches the lights as one undoable step (see `LightsPanel::set_lights`).
    pub fn set_lights(&mut self, choice: LightChoice) {
        self.lights_panel().set_lights(choice);
    }

    /// Lights the view with `records` (see `LightsPanel::use_lights`).
    pub(crate) fn use_lights(
        &mut self,
        choice: LightChoice,
        records: Vec<crate::gx::lights::PrimeLight>,
    ) {
        self.lights_panel().use_lights(choice, records);
    }

    /// Opens a spec now, on this thread (file I/O and parsing only); errors go to
    /// `load_error`. The app opens on a worker instead ([`AppState::start_open`]).
    pub fn open(&mut self, spec: &str) {
        if let Some(spec) = self.resolve_open(spec) {
            let references = self.references_for(&spec);
            let opened = Opened::load(&spec, &references);
            self.finish_open(&spec, opened);
        }
    }

    /// The References to open `spec` with: kept while the same file is reopened (or for
    /// the first file, e.g. `view FILE --model M`), cleared when another file opens — a
    /// skin or model chosen for one character is no part of the next file.
    pub(crate) fn references_for(&mut self, spec: &str) -> crate::session::References {
        if self
            .opening
            .references_spec
            .as_deref()
            .is_some_and(|s| s != spec)
        {
            self.opening.references.clear_parts();
        }
        self.opening.references_spec = Some(spec.to_owned());
        self.opening.references.clone()
    }

    /// The spec to load for `spec`: itself, or for a whole PAK (expanded in the browser)
    /// its biggest model, else its first viewable resource. None after an error, and for
    /// a folder, which the browser shows instead.
    pub(crate) fn resolve_open(&mut self, spec: &str) -> Option<String> {
        self.opening.text = spec.to_string();
        let folder = std::path::Path::new(spec);
        if folder.is_dir() {
            self.browser.set_dir(folder.to_path_buf());
            self.worlds.open(folder);
            self.messages.load_error = None;
            self.messages.notice = Some(format!(
                "{spec} is a folder: the file browser and the world tree show it"
            ));
            return None;
        }
        if crate::load::disc::is_disc_image(folder) {
            self.worlds.open(folder);
            self.prefs.add_recent(spec);
            self.messages.load_error = None;
            self.messages.notice = Some(format!(
                "{spec} is a disc image: pick a room in the world tree"
            ));
            return None;
        }
        let whole_pak = crate::load::source::split_spec(spec)
            .ok()
            .filter(|(path, member)| {
                member.is_none() && AssetKind::from_path(path) == Some(AssetKind::Pak)
            })
            .map(|(path, _)| path);
        let Some(pak) = whole_pak else {
            return Some(spec.to_string());
        };
        let pak = pak.canonicalize().unwrap_or(pak);
        // A built-in PAK has no folder: the browser stays where it is.
        if let Some(dir) = pak.parent().filter(|d| !d.as_os_str().is_empty()) {
            self.browser.set_dir(dir.to_path_buf());
        }
        if !self.browser.paks.contains_key(&pak) {
            self.browser.toggle_pak(&pak);
        }
        let first = match self.browser.paks.get(&pak) {
            // The biggest model is most likely the archive's main one.
            Some(Ok(rows)) => rows
                .iter()
                .filter(|r| r.kind == Some(AssetKind::Model))
                .max_by_key(|r| r.size)
                .or_else(|| rows.iter().find(|r| r.opens()))
                .map(|r| r.spec.clone()),
            Some(Err(e)) => {
                self.messages.load_error = Some(e.clone());
                return None;
            }
            None => None,
        };
        if first.is_none() {
            self.messages.load_error = Some(format!(
                "{}: no {} in this archive",
                pak.display(),
                AssetKind::openable_list()
            ));
        }
        first
    }

    /// Takes a loaded file as the open document (or shows why it failed).
    pub(crate) fn finish_open(&mut self, spec: &str, opened: Opened) {
        self.opening.text = spec.to_string();
        if let Err(e) = self.session.install(opened) {
            self.messages.load_error = Some(open_error_message(&e));
            return;
        }
        let Some(doc) = self.session.asset() else {
            return;
        };
        self.messages.load_error = None;
        self.messages.edit_error = None;
        // The browser follows what was opened, however it was named.
        self.browser.reveal(&doc.path, doc.member.as_deref());
        // Screenshots go to the remembered folder, never next to the (game's) file.
        self.screenshot.path = self
            .prefs
            .screenshot_folder()
            .join(format!("{}.png", doc.stem))
            .display()
            .to_string();
        self.prefs.add_recent(spec);
        if let Ok((path, _)) = crate::load::source::split_spec(spec)
            && let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty())
        {
            self.prefs.last_open_dir = Some(dir.to_path_buf());
        }
        self.export.path = doc
            .dir
            .join(format!("{}.glb", doc.stem))
            .display()
            .to_string();
        self.export.result = None;
        self.save_as.text = self
            .session
            .document()
            .map(|e| {
                let path = e.origin().path();
                match crate::load::builtin::file_name(path) {
                    // A file of its own name in the last save folder (else the home folder).
                    Some(name) => {
                        let dir = self.prefs.last_save_dir.clone().or_else(dirs::home_dir);
                        dir.unwrap_or_default().join(name).display().to_string()
                    }
                    None => path.display().to_string(),
                }
            })
            .unwrap_or_default();
        self.selected.edit = None;
        self.picking.pick = None;
        // A room opened from the world overview (or anywhere) shows in its place.
        self.worlds.overview = None;
        self.session.selection.set = 0;
        self.session.selection.material = 0;
        self.session.clock.animation = self
            .model()
            .and_then(|(_, animations, _)| (!animations.is_empty()).then_some(0));
        // Anything that moves starts moving.
        self.session.clock.playing =
            self.session.clock.animation.is_some() || self.has_uv_animations();
        self.session.clock.time = 0.0;
        self.texture_view.document_opened();
        let room = self.session.asset().is_some_and(|d| d.is_room());
        self.view.world_models_visible =
            vec![true; self.session.asset().map_or(0, |d| d.world_models.len())];
        let aabb = self.model().map(|(_, _, aabb)| aabb);
        self.session.camera.opened(room, aabb.as_ref());
        self.frame_model();
        self.central.frame_pending = true;
        if let Some(LightSource::Area { spec, .. }) = self.session.lights.choice.source() {
            let still_there = self
                .session
                .asset()
                .is_some_and(|d| d.areas.iter().any(|(_, s)| s == spec));
            if !still_there {
                self.set_lights(LightChoice::basic());
            }
        }
        // A room is lit by its own light layer 0 (as the game and `tevscope render` do),
        // read with the room.
        if room && let Some(doc) = self.session.asset() {
            let choice = LightChoice::area("room: light layer 0".into(), doc.spec.clone(), 0);
            match doc.light_layers.first() {
                Some(layer0) => self.use_lights(choice, layer0.clone()),
                None => self.set_lights(choice),
            }
        }
        // Material 0 is shown, not chosen: nothing is tinted until the user picks one.
        self.material_editor().show_material(0, 0);
        // A new file starts a new history (the lights it brought with it included).
        self.clear_history();
    }

    /// Whether any material of the open model has a UV animation.
    fn has_uv_animations(&self) -> bool {
        matches!(self.session.asset(), Some(Asset { content: Content::Model { sets, .. }, .. })
            if sets.iter().flat_map(|s| &s.materials).flatten()
                .any(|m| !m.material.uv_animations.is_empty()))
    }

    /// Textures of the current selection (material maps, or the previewed TXTR).
    pub fn current_textures(&self) -> Vec<Option<crate::model::TextureData>> {
        match self.session.asset() {
            Some(Asset {
                content: Content::Texture { texture, .. },
                ..
            }) => vec![Some(texture.clone())],
            Some(doc) => doc
                .material_textures(self.session.selection.set, self.session.selection.material)
                .into_iter()
                .map(|t| t.cloned())
                .collect(),
            None => Vec::new(),
        }
    }

    /// Number of texture maps of the selection (without copying them).
    pub fn texture_count(&self) -> usize {
        match self.session.asset() {
            Some(Asset {
                content: Content::Texture { .. },
                ..
            }) => 1,
            Some(doc) => doc
                .material(self.session.selection.set, self.session.selection.material)
                .map_or(0, |m| m.texture_ids.len()),
            None => 0,
        }
    }

    /// Advances the animation clock.
    pub fn tick(&mut self, dt: f64) {
        if self.session.clock.playing {
            // A character's clip loops or plays once; otherwise the clock runs (UV animations).
            let clip = super::animation::animation_duration(&self.session)
                .filter(|d| *d > 0.0 && self.shows_model());
            let (looping, period) = match clip {
                Some(d) => (self.anim_view.looping, f64::from(d)),
                None => (true, 900.0),
            };
            (self.session.clock.time, self.session.clock.playing) = super::animation::advance(
                self.session.clock.time,
                dt * self.session.clock.speed,
                period,
                looping,
            );
        }
    }

    /// Whether anything animates (keep redrawing).
    pub fn animating(&self) -> bool {
        if !self.session.clock.playing {
            return false;
        }
        if self.shows_model() {
            return self.session.clock.animation.is_some() || self.has_uv_animations();
        }
        self.selected
            .edit
            .as_ref()
            .is_some_and(|e| !e.material.uv_animations.is_empty())
    }

    /// The specialized key whose WGSL the WGSL tab shows: in the model view the scene's
    /// own (skinned, lit as drawn), else the edit's.
    pub(crate) fn shown_key(&self) -> Option<crate::gx::key::ShaderKey> {
        let edit = self.selected.edit.as_ref()?;
        if self.shows_model()
            && let Some(k) = &self.view_status.shader_key
        {
            return Some(k.clone());
        }
        Some(edit.key().clone())
    }
}
