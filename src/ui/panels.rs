//! The egui side of the viewer: all panels, drawn from [`AppState`] with no GPU access.
//! GPU work the UI asks for (open, inspect, screenshot) is queued in [`Requests`] and
//! carried out by the app after the frame, so this module runs headless in tests.

use std::path::{Path, PathBuf};

use egui::{Color32, RichText, Ui};

use crate::gx::key::UberKey;
use crate::gx::tev::{
    FinalRegister, MissingTexture, StageOrigin, TevOptions, describe_alpha, describe_color,
};
use crate::gx::types::{
    AlphaInput, AlphaOp, BlendFactor, BlendMode, ColorInput, Compare, KonstSel, RasterChannel,
    TevCombine, TevReg, flags,
};
use crate::gx::wgsl;
use crate::render::pipeline_cache::SelectedPath;

use super::browser::{Browser, FileKind};
use super::document::{Content, Document};
use super::edit::{EditKind, MaterialEdit, PixelReport};
use super::viewport::{AlphaDisplay, Compositing, Sampling, ViewSettings, ViewStatus};

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
    /// Desired viewport target size in physical pixels.
    pub viewport_size: Option<(u32, u32)>,
    /// Model view: find the surface under this target pixel and select its material.
    pub pick: Option<(u32, u32)>,
}

/// Right-panel tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RightTab {
    Material,
    Wgsl,
    Inspector,
}

/// Which WGSL the WGSL tab shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WgslChoice {
    Specialized,
    Uber,
}

/// What the central view shows for a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ViewMode {
    /// The whole model through the scene renderer.
    Model,
    /// The selected material on the preview quad (pixel-exact, CPU-traceable).
    MaterialQuad,
}

/// The model view's lighting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LightChoice {
    /// tevscope's neutral preset.
    Basic,
    /// What the game does with no lights: ambient only.
    None,
    /// The first light layer of an MREA (label, spec).
    Area(String, String),
}

impl LightChoice {
    pub fn label(&self) -> &str {
        match self {
            Self::Basic => "basic",
            Self::None => "none (game, no lights)",
            Self::Area(label, _) => label,
        }
    }

    /// The `load_lights` spec.
    fn spec(&self) -> &str {
        match self {
            Self::Basic => "basic",
            Self::None => "none",
            Self::Area(_, spec) => spec,
        }
    }
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
    pub camera: crate::render::OrbitCamera,
}

/// An egui copy of a texture map and its size.
type Thumbnail = (egui::TextureHandle, [u32; 2]);

/// Everything the panels show and edit.
pub struct AppState {
    pub browser: Browser,
    pub doc: Option<Document>,
    pub load_error: Option<String>,
    /// A one-line message (demo missing, screenshot saved, …).
    pub notice: Option<String>,
    /// Selected material set and material.
    pub set: usize,
    pub material: usize,
    pub edit: Option<MaterialEdit>,
    pub tev_options: TevOptions,
    pub settings: ViewSettings,
    pub playing: bool,
    pub speed: f64,
    pub tab: RightTab,
    pub wgsl_choice: WgslChoice,
    /// (key, choice, source) of the last generated WGSL, so it is built once per shader.
    wgsl_cache: Option<(crate::gx::key::ShaderKey, WgslChoice, String)>,
    pub report: Option<PixelReport>,
    /// egui copies of the selection's texture maps, made on first display.
    thumbnails: Option<Vec<Option<Thumbnail>>>,
    pub open_text: String,
    /// Explicit choices for what opened models refer to.
    pub references: super::document::References,
    pub screenshot_path: String,
    pub screenshot_transparent: bool,
    /// File → Export: the glTF path, and whether only the playing animation goes in.
    pub export_path: String,
    pub export_current_only: bool,
    /// The viewport's egui texture and its size in physical pixels.
    pub viewport_texture: Option<(egui::TextureId, [u32; 2])>,
    pub view_status: ViewStatus,
    pub adapter: String,
    pub requests: Requests,
    pub view_mode: ViewMode,
    /// The model view's camera.
    pub camera: crate::render::OrbitCamera,
    /// Character animation playing (None = bind pose).
    pub animation: Option<usize>,
    pub lights: LightChoice,
    pub light_set: crate::gx::lights::LightSet,
    /// Bumped when `light_set` changes.
    pub lights_revision: u64,
    pub model_pick: Option<ModelPick>,
    /// Frame the model once the viewport has its size (a newly opened model).
    pub frame_pending: bool,
    /// Edited materials not currently selected, by (set, index): selecting one again
    /// brings its edits back (the scene keeps drawing them meanwhile).
    edits: std::collections::HashMap<(usize, usize), MaterialEdit>,
}

impl AppState {
    pub fn new(start_dir: PathBuf) -> Self {
        Self {
            browser: Browser::new(start_dir),
            doc: None,
            load_error: None,
            notice: None,
            set: 0,
            material: 0,
            edit: None,
            tev_options: TevOptions::default(),
            settings: ViewSettings::default(),
            playing: false,
            speed: 1.0,
            tab: RightTab::Material,
            wgsl_choice: WgslChoice::Specialized,
            wgsl_cache: None,
            report: None,
            thumbnails: None,
            open_text: String::new(),
            references: Default::default(),
            screenshot_path: String::new(),
            screenshot_transparent: false,
            export_path: String::new(),
            export_current_only: false,
            viewport_texture: None,
            view_status: ViewStatus::default(),
            adapter: String::new(),
            requests: Requests::default(),
            view_mode: ViewMode::Model,
            camera: crate::render::OrbitCamera::default(),
            animation: None,
            lights: LightChoice::Basic,
            light_set: crate::gx::lights::LightPreset::Basic.light_set(),
            lights_revision: 0,
            model_pick: None,
            frame_pending: false,
            edits: std::collections::HashMap::new(),
        }
    }

    /// The open model's assets, animations and box (None for textures or nothing).
    pub fn model(
        &self,
    ) -> Option<(
        &std::sync::Arc<crate::load::ModelAssets>,
        &[super::document::AnimationInfo],
        crate::formats::cmdl::Aabb,
    )> {
        match &self.doc {
            Some(Document {
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
        self.view_mode == ViewMode::Model && self.model().is_some()
    }

    /// Points the camera at the whole model: its bounding sphere, then (when the
    /// viewport's size is known) as close as keeps the whole box in view.
    pub fn frame_model(&mut self) {
        if let Some((_, _, aabb)) = self.model() {
            self.camera = crate::render::OrbitCamera::framing(&aabb);
            if let Some((_, [w, h])) = self.viewport_texture
                && w > 0
                && h > 0
                && let Some((assets, _, _)) = self.model()
            {
                // Every position (a sample of very large models) inside 90 % of the view.
                let values = &assets.cmdl.positions.values;
                let step = (values.len() / 20_000).max(1);
                let points: Vec<glam::Vec3> = values
                    .iter()
                    .step_by(step)
                    .map(|&p| glam::Vec3::from(p))
                    .collect();
                let mut camera = self.camera;
                camera.fit_points(&points, w as f32 / h as f32, 0.9);
                self.camera = camera;
            }
        }
    }

    /// Switches the lights (an MREA is read now; failures keep the old lights).
    pub fn set_lights(&mut self, choice: LightChoice) {
        match crate::load::load_lights(Some(choice.spec())) {
            Ok(set) => {
                self.light_set = set;
                self.lights = choice;
                self.lights_revision += 1;
            }
            Err(e) => self.load_error = Some(format!("lights: {e:#}")),
        }
    }

    /// Duration of the playing animation, if any.
    pub fn animation_duration(&self) -> Option<f32> {
        let (_, animations, _) = self.model()?;
        animations.get(self.animation?).map(|a| a.duration)
    }

    /// Opens a spec now (file I/O and parsing only); errors go to `load_error`. A whole
    /// PAK is expanded in the browser and its first model (else texture) is opened.
    pub fn open(&mut self, spec: &str) {
        self.open_text = spec.to_string();
        let whole_pak = crate::load::source::split_spec(spec)
            .ok()
            .filter(|(path, member)| {
                member.is_none() && super::browser::file_kind(path) == Some(FileKind::Pak)
            })
            .map(|(path, _)| path);
        if let Some(pak) = whole_pak {
            let pak = pak.canonicalize().unwrap_or(pak);
            if let Some(dir) = pak.parent() {
                self.browser.set_dir(dir.to_path_buf());
            }
            if !self.browser.paks.contains_key(&pak) {
                self.browser.toggle_pak(&pak);
            }
            let first = match self.browser.paks.get(&pak) {
                // The biggest model is most likely the archive's main one.
                Some(Ok(rows)) => rows
                    .iter()
                    .filter(|r| r.fourcc == "CMDL")
                    .max_by_key(|r| r.size)
                    .or_else(|| rows.iter().find(|r| r.viewable()))
                    .map(|r| r.spec.clone()),
                Some(Err(e)) => {
                    self.load_error = Some(e.clone());
                    return;
                }
                None => None,
            };
            match first {
                Some(member) => self.open(&member),
                None => {
                    self.load_error = Some(format!(
                        "{}: no CMDL, ANCS or TXTR in this archive",
                        pak.display()
                    ));
                }
            }
            return;
        }
        match Document::open_with(spec, &self.references) {
            Ok(doc) => {
                self.load_error = None;
                self.screenshot_path = doc
                    .dir
                    .join(format!("{}.png", doc.stem))
                    .display()
                    .to_string();
                self.export_path = doc
                    .dir
                    .join(format!("{}.glb", doc.stem))
                    .display()
                    .to_string();
                self.doc = Some(doc);
                self.edits.clear();
                self.edit = None;
                self.model_pick = None;
                self.set = 0;
                self.material = 0;
                self.animation = self
                    .model()
                    .and_then(|(_, animations, _)| (!animations.is_empty()).then_some(0));
                // Anything that moves starts moving.
                self.playing = self.animation.is_some()
                    || matches!(&self.doc, Some(Document { content: Content::Model { sets, .. }, .. })
                        if sets.iter().flat_map(|s| &s.materials).flatten()
                            .any(|m| !m.material.uv_animations.is_empty()));
                self.settings.time = 0.0;
                self.frame_model();
                self.frame_pending = true;
                if let LightChoice::Area(_, spec) = &self.lights {
                    let still_there = self
                        .doc
                        .as_ref()
                        .is_some_and(|d| d.areas.iter().any(|(_, s)| s == spec));
                    if !still_there {
                        self.set_lights(LightChoice::Basic);
                    }
                }
                self.select_material(0, 0);
            }
            Err(e) => {
                self.load_error = Some(format!("{e:#}"));
            }
        }
    }

    /// Selects material (set, index) for editing and asks for a viewport rebuild.
    pub fn select_material(&mut self, set: usize, index: usize) {
        if let Some(e) = self.edit.take()
            && e.revision > 0
        {
            self.edits.insert((self.set, self.material), e);
        }
        self.set = set;
        self.material = index;
        self.report = None;
        self.thumbnails = None;
        if let Some(e) = self.edits.remove(&(set, index)) {
            self.edit = Some(e);
            self.requests.reload_view = true;
            return;
        }
        self.edit = match &self.doc {
            Some(Document {
                content: Content::Texture { .. },
                ..
            }) => Some(MaterialEdit::new(
                super::document::texture_preview_material(),
                self.tev_options,
            )),
            Some(doc) => doc
                .material(set, index)
                .map(|m| MaterialEdit::new(m.material.clone(), self.tev_options)),
            None => None,
        };
        self.requests.reload_view = true;
    }

    /// Textures of the current selection (material maps, or the previewed TXTR).
    pub fn current_textures(&self) -> Vec<Option<crate::model::TextureData>> {
        match &self.doc {
            Some(Document {
                content: Content::Texture { texture, .. },
                ..
            }) => vec![Some(texture.clone())],
            Some(doc) => doc
                .material(self.set, self.material)
                .map(|m| m.textures.clone())
                .unwrap_or_default(),
            None => Vec::new(),
        }
    }

    /// Number of texture maps of the selection (without copying them).
    pub fn texture_count(&self) -> usize {
        match &self.doc {
            Some(Document {
                content: Content::Texture { .. },
                ..
            }) => 1,
            Some(doc) => doc
                .material(self.set, self.material)
                .map_or(0, |m| m.textures.len()),
            None => 0,
        }
    }

    /// Advances the animation clock.
    pub fn tick(&mut self, dt: f64) {
        if self.playing {
            // A character's clip loops; otherwise the clock runs (UV animations).
            let period = self
                .animation_duration()
                .filter(|d| *d > 0.0 && self.shows_model())
                .map_or(900.0, f64::from);
            self.settings.time = (self.settings.time + dt * self.speed).rem_euclid(period);
        }
    }

    /// Whether anything animates (keep redrawing).
    pub fn animating(&self) -> bool {
        if !self.playing {
            return false;
        }
        if self.shows_model() {
            return self.animation.is_some()
                || matches!(&self.doc, Some(Document { content: Content::Model { sets, .. }, .. })
                    if sets.iter().flat_map(|s| &s.materials).flatten()
                        .any(|m| !m.material.uv_animations.is_empty()));
        }
        self.edit
            .as_ref()
            .is_some_and(|e| !e.material.uv_animations.is_empty())
    }

    /// The specialized key whose WGSL the WGSL tab shows: in the model view the scene's
    /// own (skinned, lit as drawn), else the edit's.
    fn shown_key(&self) -> Option<crate::gx::key::ShaderKey> {
        let edit = self.edit.as_ref()?;
        if self.shows_model()
            && let Some(k) = &self.view_status.shader_key
        {
            return Some(k.clone());
        }
        Some(edit.key().clone())
    }

    fn wgsl_source(&mut self) -> Option<&str> {
        let key = self.shown_key()?;
        let stale = self
            .wgsl_cache
            .as_ref()
            .is_none_or(|(k, choice, _)| *k != key || *choice != self.wgsl_choice);
        if stale {
            let edit = self.edit.as_ref()?;
            let source = match self.wgsl_choice {
                WgslChoice::Specialized => wgsl::generate(&key),
                WgslChoice::Uber => {
                    let mut uber = UberKey::new(&edit.material, &edit.program);
                    uber.vertex = key.vertex.clone();
                    wgsl::generate_uber(&uber)
                }
            };
            self.wgsl_cache = Some((key, self.wgsl_choice, source));
        }
        self.wgsl_cache.as_ref().map(|(_, _, s)| s.as_str())
    }
}

/// Draws the whole UI for one frame.
pub fn show(ui: &mut Ui, state: &mut AppState) {
    egui::Panel::top("top_bar").show(ui, |ui| top_bar(ui, state));
    egui::Panel::bottom("timeline").show(ui, |ui| timeline(ui, state));
    egui::Panel::left("browser")
        .default_size(260.0)
        .show(ui, |ui| browser_panel(ui, state));
    egui::Panel::right("material")
        .default_size(430.0)
        .show(ui, |ui| right_panel(ui, state));
    egui::CentralPanel::default()
        .frame(egui::Frame::NONE.fill(Color32::from_gray(24)))
        .show(ui, |ui| central(ui, state));
}

fn top_bar(ui: &mut Ui, state: &mut AppState) {
    ui.horizontal(|ui| {
        ui.strong("tevscope");
        ui.separator();
        ui.menu_button("File", |ui| file_menu(ui, state));
        ui.separator();
        ui.label("Open:");
        let edit = ui.add(
            egui::TextEdit::singleline(&mut state.open_text)
                .hint_text("file.CMDL, file.TXTR or file.pak:0xID")
                .desired_width(340.0),
        );
        let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
        if (ui.button("Open").clicked() || enter) && !state.open_text.trim().is_empty() {
            state.requests.open = Some(state.open_text.trim().to_string());
        }
        ui.separator();
        if ui
            .button("Screenshot")
            .on_hover_text("Write the viewport's exact RGBA8 to the PNG path below (F12 / Ctrl+S)")
            .clicked()
        {
            state.requests.screenshot = true;
        }
        ui.add(egui::TextEdit::singleline(&mut state.screenshot_path).desired_width(260.0));
        ui.checkbox(&mut state.screenshot_transparent, "transparent")
            .on_hover_text("Clear to transparent black for the screenshot");
    });
    if let Some(n) = &state.notice {
        ui.label(RichText::new(n).color(Color32::LIGHT_GREEN));
    }
    if let Some(e) = &state.load_error {
        ui.label(RichText::new(e).color(Color32::from_rgb(255, 110, 110)));
    }
}

/// File → Export: glTF of the open model or character, and its textures as PNG.
fn file_menu(ui: &mut Ui, state: &mut AppState) {
    let Some(doc) = &state.doc else {
        ui.label("Open a model or character to export it.");
        return;
    };
    let stem = doc.stem.clone();
    let Some((assets, _, _)) = state.model() else {
        ui.label("Export works on models and characters.");
        return;
    };
    let assets = std::sync::Arc::clone(assets);
    ui.label("Export to (.glb or .gltf):");
    ui.add(egui::TextEdit::singleline(&mut state.export_path).desired_width(360.0));
    if assets.skin.is_some() {
        ui.checkbox(
            &mut state.export_current_only,
            "only the current animation (else all)",
        );
    }
    let path = PathBuf::from(state.export_path.trim());
    let result = if ui
        .button("Export glTF")
        .on_hover_text("The model with its skeleton, skin, animations and textures, as loaded (material edits are not included)")
        .clicked()
    {
        let only = if state.export_current_only {
            Some(state.animation)
        } else {
            None
        };
        Some(match only {
            Some(None) => Err(anyhow::anyhow!("no animation is playing (bind pose)")),
            Some(Some(i)) => super::export::export_gltf(&assets, &stem, &path, state.set, Some(i)),
            None => super::export::export_gltf(&assets, &stem, &path, state.set, None),
        })
    } else if ui
        .button("Export textures as PNG")
        .on_hover_text("Every texture with its mip levels, into a folder next to the glTF path")
        .clicked()
    {
        let dir = path
            .parent()
            .unwrap_or(Path::new("."))
            .join(format!("{stem}_textures"));
        Some(super::export::export_textures(&assets, &dir))
    } else {
        None
    };
    match result {
        Some(Ok(line)) => {
            state.load_error = None;
            state.notice = Some(line);
        }
        Some(Err(e)) => state.load_error = Some(format!("export failed: {e:#}")),
        None => {}
    }
}

fn timeline(ui: &mut Ui, state: &mut AppState) {
    let animations: Vec<String> = state
        .model()
        .map(|(_, a, _)| a.iter().map(|a| a.name.clone()).collect())
        .unwrap_or_default();
    let duration = state.animation_duration();
    ui.horizontal(|ui| {
        let label = if state.playing { "Pause" } else { "Play" };
        if ui
            .button(label)
            .on_hover_text("Play or pause the clock (Space)")
            .clicked()
        {
            state.playing = !state.playing;
        }
        if ui.button("Rewind").on_hover_text("Back to 0 s").clicked() {
            state.settings.time = 0.0;
        }
        if !animations.is_empty() && state.shows_model() {
            ui.label("Animation");
            let current = state
                .animation
                .and_then(|a| animations.get(a))
                .map_or("bind pose", String::as_str);
            egui::ComboBox::from_id_salt("animation")
                .selected_text(current)
                .show_ui(ui, |ui| {
                    if ui
                        .selectable_label(state.animation.is_none(), "bind pose")
                        .clicked()
                    {
                        state.animation = None;
                    }
                    for (i, name) in animations.iter().enumerate() {
                        if ui
                            .selectable_label(state.animation == Some(i), name)
                            .clicked()
                        {
                            state.animation = Some(i);
                            state.settings.time = 0.0;
                        }
                    }
                });
        }
        let range = match duration.filter(|_| state.shows_model()) {
            Some(d) => 0.0..=f64::from(d.max(1e-3)),
            None => 0.0..=60.0,
        };
        ui.add(
            egui::Slider::new(&mut state.settings.time, range)
                .text("s")
                .max_decimals(3)
                .clamping(egui::SliderClamping::Never),
        );
        ui.add(
            egui::DragValue::new(&mut state.speed)
                .range(-8.0..=8.0)
                .speed(0.05)
                .prefix("speed ×"),
        );
        let anims = if state.shows_model() {
            match &state.doc {
                Some(Document {
                    content: Content::Model { sets, .. },
                    ..
                }) => sets.get(state.set).map_or(0, |s| {
                    s.materials
                        .iter()
                        .flatten()
                        .map(|m| m.material.uv_animations.len())
                        .sum()
                }),
                _ => 0,
            }
        } else {
            state
                .edit
                .as_ref()
                .map_or(0, |e| e.material.uv_animations.len())
        };
        ui.separator();
        ui.label(if anims == 0 {
            "no UV animations".to_string()
        } else {
            format!("{anims} UV animation{}", if anims == 1 { "" } else { "s" })
        });
        ui.separator();
        ui.weak(&state.adapter);
        if state.shows_model() {
            // The model view's controls, always in sight but out of the picture's way.
            ui.separator();
            ui.weak("drag: rotate · right/middle-drag: pan · scroll: zoom · click: pick · F: frame · Space: play");
        }
    });
}

fn browser_panel(ui: &mut Ui, state: &mut AppState) {
    ui.heading("Files");
    ui.horizontal(|ui| {
        if ui.button("Up").on_hover_text("Parent folder").clicked() {
            state.browser.up();
        }
        if ui
            .button("Refresh")
            .on_hover_text("List the folder again")
            .clicked()
        {
            state.browser.refresh();
        }
        ui.add(
            egui::TextEdit::singleline(&mut state.browser.filter)
                .hint_text("filter")
                .desired_width(f32::INFINITY),
        );
    });
    ui.label(
        RichText::new(state.browser.dir.display().to_string())
            .small()
            .weak(),
    );
    ui.checkbox(
        &mut state.browser.viewable_only,
        "only CMDL/ANCS/TXTR in PAKs",
    );
    if let Some(e) = &state.browser.error {
        ui.colored_label(Color32::from_rgb(255, 110, 110), e);
    }
    references(ui, state);
    ui.separator();
    let current = state.doc.as_ref().map(|d| d.spec.clone());
    let mut go_to = None;
    let mut toggle = None;
    let mut open = None;
    egui::ScrollArea::vertical()
        .id_salt("browser_scroll")
        .show(ui, |ui| {
            for entry in &state.browser.entries {
                let expanded_pak =
                    entry.kind == FileKind::Pak && state.browser.paks.contains_key(&entry.path);
                if entry.kind != FileKind::Folder
                    && !expanded_pak
                    && !state.browser.matches(&entry.name)
                {
                    continue;
                }
                match entry.kind {
                    FileKind::Folder => {
                        if ui
                            .selectable_label(
                                false,
                                RichText::new(format!("DIR   {}", entry.name)).monospace(),
                            )
                            .clicked()
                        {
                            go_to = Some(entry.path.clone());
                        }
                    }
                    FileKind::Pak => {
                        let open_now = state.browser.paks.contains_key(&entry.path);
                        let arrow = if open_now { "-" } else { "+" };
                        if ui
                            .selectable_label(
                                false,
                                RichText::new(format!("PAK {arrow} {}", entry.name)).monospace(),
                            )
                            .clicked()
                        {
                            toggle = Some(entry.path.clone());
                        }
                        if let Some(rows) = state.browser.paks.get(&entry.path) {
                            ui.indent(("pak", &entry.name), |ui| match rows {
                                Err(e) => {
                                    ui.colored_label(Color32::from_rgb(255, 110, 110), e);
                                }
                                Ok(rows) => {
                                    let mut shown = 0;
                                    for row in state.browser.visible_rows(rows) {
                                        shown += 1;
                                        let text = match &row.name {
                                            Some(n) => format!("{} {} · {n}", row.fourcc, row.id),
                                            None => format!("{} {}", row.fourcc, row.id),
                                        };
                                        let selected = current.as_deref() == Some(&row.spec);
                                        let r = ui.add_enabled(
                                            row.viewable(),
                                            egui::Button::selectable(
                                                selected,
                                                RichText::new(text).monospace(),
                                            ),
                                        );
                                        if r.clicked() {
                                            open = Some(row.spec.clone());
                                        }
                                    }
                                    if shown == 0 {
                                        ui.weak("(nothing matches)");
                                    }
                                }
                            });
                        }
                    }
                    FileKind::Cmdl | FileKind::Ancs | FileKind::Txtr => {
                        let spec = entry.path.display().to_string();
                        let icon = match entry.kind {
                            FileKind::Cmdl => "CMDL",
                            FileKind::Ancs => "ANCS",
                            _ => "TXTR",
                        };
                        let selected = current.as_deref() == Some(&spec);
                        if ui
                            .selectable_label(
                                selected,
                                RichText::new(format!("{icon}  {}", entry.name)).monospace(),
                            )
                            .clicked()
                        {
                            open = Some(spec);
                        }
                    }
                }
            }
        });
    if let Some(d) = go_to {
        state.browser.set_dir(d);
    }
    if let Some(p) = toggle {
        state.browser.toggle_pak(&p);
    }
    if let Some(s) = open {
        state.requests.open = Some(s);
    }
}

/// Explicit choices for the files a model refers to (otherwise found by asset ID beside it,
/// by name, or as the only one of their type), and a button to reopen with them.
fn references(ui: &mut Ui, state: &mut AppState) {
    let header = if state.references.is_empty() {
        "References: automatic".to_owned()
    } else {
        "References: chosen".to_owned()
    };
    egui::CollapsingHeader::new(header)
        .id_salt("references")
        .show(ui, |ui| {
            let r = &mut state.references;
            for (label, value, hint) in [
                ("Textures", &mut r.texture_dir, "folder searched first"),
                ("Skin", &mut r.skin, "CSKR file or PAK:ID"),
                ("Skeleton", &mut r.skeleton, "CINF file or PAK:ID"),
                ("Animation", &mut r.anim, "name, ANIM file or PAK:ID"),
            ] {
                ui.horizontal(|ui| {
                    ui.label(format!("{label:<9}"));
                    ui.add(
                        egui::TextEdit::singleline(value)
                            .hint_text(hint)
                            .desired_width(f32::INFINITY),
                    );
                });
            }
            ui.horizontal(|ui| {
                let open = state.doc.as_ref().map(|d| d.spec.clone());
                if ui
                    .add_enabled(open.is_some(), egui::Button::new("Reopen with these"))
                    .clicked()
                {
                    state.requests.open = open;
                }
                if ui.button("Clear").clicked() {
                    state.references = Default::default();
                }
            });
        });
}

fn central(ui: &mut Ui, state: &mut AppState) {
    let ppp = ui.ctx().pixels_per_point();
    let Some(doc) = &state.doc else {
        let avail = ui.available_size();
        let side = (avail.x - 16.0).min(avail.y - 40.0).max(32.0);
        state.requests.viewport_size = Some(((side * ppp) as u32, (side * ppp) as u32));
        ui.centered_and_justified(|ui| {
            ui.label(
                RichText::new(
                    "Open a CMDL, ANCS, TXTR or PAK from the file browser, drop a file on the\n\
                     window, or type a spec (file.pak:0xID) in the Open field.",
                )
                .size(16.0)
                .weak(),
            );
        });
        return;
    };
    let title = match &doc.content {
        Content::Model {
            sets,
            surface_count,
            triangle_count,
            animations,
            ..
        } => format!(
            "{} — {} material set{}, {} surfaces, {} triangles{}",
            doc.spec,
            sets.len(),
            if sets.len() == 1 { "" } else { "s" },
            surface_count,
            triangle_count,
            if animations.is_empty() {
                String::new()
            } else {
                format!(", {} animations", animations.len())
            }
        ),
        Content::Texture { summary, .. } => format!("{} — {summary}", doc.spec),
    };
    let is_model = matches!(doc.content, Content::Model { .. });
    let areas = doc.areas.clone();
    ui.horizontal(|ui| {
        ui.add_space(8.0);
        ui.label(RichText::new(title).strong());
    });
    if is_model {
        model_bar(ui, state, &areas);
    }
    let model_view = state.shows_model();
    if model_view
        && ui.input(|i| i.key_pressed(egui::Key::F))
        && !ui.ctx().egui_wants_keyboard_input()
    {
        state.frame_model();
    }
    if ui.input(|i| i.key_pressed(egui::Key::Space)) && !ui.ctx().egui_wants_keyboard_input() {
        state.playing = !state.playing;
    }

    let avail = ui.available_size();
    // Room for the thumbnail strip when the selection has textures.
    let strip = if state.texture_count() == 0 {
        0.0
    } else {
        130.0
    };
    let (want_w, want_h) = if model_view {
        // The model takes the whole panel.
        let w = (avail.x - 16.0).max(32.0);
        let h = (avail.y - 8.0 - strip).max(32.0);
        (w, h)
    } else {
        // The preview quad is square.
        let side = (avail.x - 16.0).min(avail.y - 8.0 - strip).max(32.0);
        (side, side)
    };
    let want = ((want_w * ppp).round() as u32, (want_h * ppp).round() as u32);
    state.requests.viewport_size = Some(want);
    let Some((tex, [w, h])) = state.viewport_texture else {
        return;
    };
    if model_view && state.frame_pending && (w, h) == want {
        state.frame_model();
        state.frame_pending = false;
    }
    let size = egui::vec2(w as f32 / ppp, h as f32 / ppp);
    ui.vertical_centered(|ui| {
        let (rect, response) = ui.allocate_exact_size(size, egui::Sense::click_and_drag());
        egui::Image::new((tex, size)).paint_at(ui, rect);
        let pixel_at = |pos: egui::Pos2| {
            let rel = (pos - response.rect.min) * ppp;
            let (x, y) = (rel.x.floor(), rel.y.floor());
            (x >= 0.0 && y >= 0.0 && (x as u32) < w && (y as u32) < h)
                .then_some((x as u32, y as u32))
        };
        if model_view {
            let d = response.drag_delta() * ppp;
            if response.dragged_by(egui::PointerButton::Primary) {
                state.camera.orbit(d.x, d.y);
            } else if response.dragged_by(egui::PointerButton::Secondary)
                || response.dragged_by(egui::PointerButton::Middle)
            {
                state.camera.pan(d.x, d.y, h as f32);
            }
            if response.hovered() {
                let scroll = ui.input(|i| i.smooth_scroll_delta.y);
                if scroll != 0.0 {
                    state.camera.zoom(scroll);
                }
            }
            if response.clicked()
                && let Some(p) = response.interact_pointer_pos().and_then(pixel_at)
            {
                state.requests.pick = Some(p);
                state.tab = RightTab::Inspector;
            }
            if let Some(p) = state
                .model_pick
                .as_ref()
                .filter(|p| p.camera == state.camera)
            {
                let c = response.rect.min + egui::vec2(p.x as f32 + 0.5, p.y as f32 + 0.5) / ppp;
                ui.painter()
                    .circle_stroke(c, 5.0, egui::Stroke::new(1.5, Color32::YELLOW));
            }
            return;
        }
        if let Some(camera) = state.settings.orbit.as_mut() {
            if response.dragged() {
                let d = response.drag_delta();
                camera.orbit(d.x, d.y);
            }
            if response.hovered() {
                let scroll = ui.input(|i| i.smooth_scroll_delta.y);
                if scroll != 0.0 {
                    camera.zoom(scroll);
                }
            }
        } else if response.clicked()
            && let Some(p) = response.interact_pointer_pos().and_then(pixel_at)
        {
            state.requests.inspect = Some(p);
            state.tab = RightTab::Inspector;
        }
        if let Some(r) = state
            .report
            .as_ref()
            .filter(|_| state.settings.orbit.is_none())
        {
            // Mark the inspected pixel.
            let p = response.rect.min + egui::vec2(r.x as f32 + 0.5, r.y as f32 + 0.5) / ppp;
            ui.painter()
                .circle_stroke(p, 5.0, egui::Stroke::new(1.5, Color32::YELLOW));
        }
        response.on_hover_text(if state.settings.orbit.is_some() {
            "Drag to rotate, scroll to zoom"
        } else {
            "Click a pixel to trace it through the TEV"
        });
    });
    texture_strip(ui, state);
    let Some(doc) = &state.doc else { return };
    for w in doc.warnings.iter().chain(&state.view_status.warnings) {
        ui.colored_label(Color32::from_rgb(240, 200, 80), format!("warning: {w}"));
    }
    if !doc.sources.is_empty() {
        egui::CollapsingHeader::new(format!("Files used ({})", doc.sources.len()))
            .id_salt("files_used")
            .show(ui, |ui| {
                for s in &doc.sources {
                    ui.label(RichText::new(s).small().monospace());
                }
            });
    }
    let s = &state.view_status;
    if let Some(e) = &s.error {
        ui.colored_label(Color32::from_rgb(255, 110, 110), e);
    }
}

/// The model's view controls: model or material quad, lights, framing.
fn model_bar(ui: &mut Ui, state: &mut AppState, areas: &[(String, String)]) {
    ui.horizontal(|ui| {
        ui.add_space(8.0);
        let before = state.view_mode;
        ui.selectable_value(&mut state.view_mode, ViewMode::Model, "Model")
            .on_hover_text("The whole model, lit and animated");
        ui.selectable_value(
            &mut state.view_mode,
            ViewMode::MaterialQuad,
            "Material quad",
        )
        .on_hover_text("The selected material on a flat quad (pixel-exact CPU trace)");
        if state.view_mode != before {
            state.requests.reload_view = true;
        }
        if state.view_mode != ViewMode::Model {
            return;
        }
        ui.separator();
        ui.label("Lights");
        let mut choice = None;
        egui::ComboBox::from_id_salt("lights")
            .selected_text(state.lights.label().to_string())
            .width(180.0)
            .show_ui(ui, |ui| {
                let mut options = vec![LightChoice::Basic, LightChoice::None];
                options.extend(
                    areas
                        .iter()
                        .map(|(l, s)| LightChoice::Area(format!("area: {l}"), s.clone())),
                );
                for o in options {
                    if ui.selectable_label(state.lights == o, o.label()).clicked() {
                        choice = Some(o);
                    }
                }
            })
            .response
            .on_hover_text("basic preset, no lights, or an MREA's first light layer");
        if let Some(c) = choice
            && c != state.lights
        {
            state.set_lights(c);
        }
        ui.separator();
        if ui
            .button("Frame model")
            .on_hover_text("Point the camera at the whole model (F)")
            .clicked()
        {
            state.frame_model();
        }
    });
}

/// Paints a grey checkerboard (so transparent pixels read as such).
fn checker(ui: &Ui, rect: egui::Rect, cell: f32) {
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, Color32::from_gray(60));
    let cols = (rect.width() / cell).ceil() as i32;
    let rows = (rect.height() / cell).ceil() as i32;
    for y in 0..rows {
        for x in 0..cols {
            if (x + y) % 2 == 0 {
                let min = rect.min + egui::vec2(x as f32 * cell, y as f32 * cell);
                painter.rect_filled(
                    egui::Rect::from_min_size(min, egui::vec2(cell, cell)),
                    0.0,
                    Color32::from_gray(90),
                );
            }
        }
    }
}

/// The selection's texture maps as thumbnails under the viewport.
fn texture_strip(ui: &mut Ui, state: &mut AppState) {
    if state.thumbnails.is_none() {
        let ctx = ui.ctx().clone();
        let thumbs = state
            .current_textures()
            .iter()
            .enumerate()
            .map(|(k, t)| {
                let t = t.as_ref()?;
                let image = egui::ColorImage::from_rgba_unmultiplied(
                    [t.width as usize, t.height as usize],
                    t.levels.first()?,
                );
                let handle =
                    ctx.load_texture(format!("map {k}"), image, egui::TextureOptions::NEAREST);
                Some((handle, [t.width, t.height]))
            })
            .collect();
        state.thumbnails = Some(thumbs);
    }
    let Some(thumbs) = &state.thumbnails else {
        return;
    };
    if thumbs.is_empty() {
        return;
    }
    let ids = state
        .doc
        .as_ref()
        .and_then(|d| d.material(state.set, state.material))
        .map(|m| m.texture_ids.clone())
        .unwrap_or_default();
    ui.horizontal_wrapped(|ui| {
        ui.add_space(8.0);
        for (k, thumb) in thumbs.iter().enumerate() {
            ui.vertical(|ui| {
                match thumb {
                    Some((handle, [w, h])) => {
                        let scale = 96.0 / (*w).max(*h) as f32;
                        let size = egui::vec2(*w as f32 * scale, *h as f32 * scale);
                        let (rect, response) = ui.allocate_exact_size(size, egui::Sense::hover());
                        checker(ui, rect, 8.0);
                        egui::Image::new((handle.id(), size)).paint_at(ui, rect);
                        response.on_hover_text(format!("{w}x{h}"));
                    }
                    None => {
                        let (rect, _) =
                            ui.allocate_exact_size(egui::vec2(96.0, 96.0), egui::Sense::hover());
                        ui.painter().rect_stroke(
                            rect,
                            2.0,
                            egui::Stroke::new(1.0, Color32::from_rgb(255, 110, 110)),
                            egui::StrokeKind::Inside,
                        );
                        ui.painter().text(
                            rect.center(),
                            egui::Align2::CENTER_CENTER,
                            "missing",
                            egui::FontId::proportional(12.0),
                            Color32::from_rgb(255, 110, 110),
                        );
                    }
                }
                let id = ids
                    .get(k)
                    .copied()
                    .flatten()
                    .map_or_else(String::new, |id| format!(" 0x{id:08X}"));
                ui.small(format!("map {k}{id}"));
            });
        }
    });
}

fn right_panel(ui: &mut Ui, state: &mut AppState) {
    ui.horizontal(|ui| {
        ui.selectable_value(&mut state.tab, RightTab::Material, "Material");
        ui.selectable_value(&mut state.tab, RightTab::Wgsl, "WGSL");
        ui.selectable_value(&mut state.tab, RightTab::Inspector, "Pixel inspector");
    });
    ui.separator();
    path_status(ui, state);
    match state.tab {
        RightTab::Material => material_tab(ui, state),
        RightTab::Wgsl => wgsl_tab(ui, state),
        RightTab::Inspector => inspector_tab(ui, state),
    }
}

fn path_status(ui: &mut Ui, state: &AppState) {
    let s = &state.view_status;
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
    ui.horizontal(|ui| {
        let (rect, _) = ui.allocate_exact_size(egui::vec2(10.0, 10.0), egui::Sense::hover());
        ui.painter().circle_filled(rect.center(), 4.5, color);
        ui.label(text);
        if state.shows_model() && s.uber_draws > 0 {
            ui.colored_label(
                Color32::from_rgb(240, 200, 80),
                format!("· {} draws on the ubershader", s.uber_draws),
            );
        }
        if let (Some(edit), Some(key)) = (&state.edit, state.shown_key()) {
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

fn material_tab(ui: &mut Ui, state: &mut AppState) {
    // Set / material selector.
    let mut select = None;
    if let Some(Document {
        content: Content::Model { sets, .. },
        ..
    }) = &state.doc
    {
        ui.horizontal(|ui| {
            ui.label("Set");
            egui::ComboBox::from_id_salt("set")
                .selected_text(format!("{}", state.set))
                .show_ui(ui, |ui| {
                    for i in 0..sets.len() {
                        if ui
                            .selectable_label(i == state.set, format!("{i}"))
                            .clicked()
                        {
                            select = Some((i, 0));
                        }
                    }
                });
            ui.label("Material");
            let materials = sets.get(state.set).map_or(&[][..], |s| &s.materials[..]);
            egui::ComboBox::from_id_salt("material")
                .width(200.0)
                .selected_text(format!("{} / {}", state.material, materials.len()))
                .height(500.0)
                .show_ui(ui, |ui| {
                    for (i, m) in materials.iter().enumerate() {
                        let text = match m {
                            Ok(m) => format!(
                                "{i}: {} stage{}, {} tex",
                                m.material.stages.len(),
                                if m.material.stages.len() == 1 {
                                    ""
                                } else {
                                    "s"
                                },
                                m.material.texture_count
                            ),
                            Err(e) => format!("{i}: error: {e}"),
                        };
                        if ui.selectable_label(i == state.material, text).clicked() {
                            select = Some((state.set, i));
                        }
                    }
                });
            if ui.button("<").clicked() && state.material > 0 {
                select = Some((state.set, state.material - 1));
            }
            if ui.button(">").clicked() && state.material + 1 < materials.len() {
                select = Some((state.set, state.material + 1));
            }
        });
        if let Some(Err(e)) = sets
            .get(state.set)
            .and_then(|s| s.materials.get(state.material))
        {
            ui.colored_label(Color32::from_rgb(255, 110, 110), e);
        }
    }
    if let Some((s, m)) = select {
        state.select_material(s, m);
    }

    // The quad preview's own settings (the model view draws with Prime's blending and
    // filtering).
    if !state.shows_model() {
        quad_settings(ui, state);
    }
    ui.horizontal(|ui| {
        ui.label("Show");
        let d = &mut state.settings.alpha_display;
        ui.selectable_value(d, AlphaDisplay::Checker, "RGBA over checker");
        ui.selectable_value(d, AlphaDisplay::Rgb, "RGB");
        ui.selectable_value(d, AlphaDisplay::Alpha, "alpha");
        ui.separator();
        ui.label("Background");
        color_button(ui, &mut state.settings.background);
    });

    let Some(edit) = state.edit.as_mut() else {
        ui.weak("No material selected.");
        return;
    };
    let mut options = edit.options;
    let mut options_changed = false;
    ui.collapsing("TEV switches (gx.md §16)", |ui| {
        options_changed |= ui
            .checkbox(
                &mut options.reflection_pass_through,
                "engine reflection pass-through stage (§13)",
            )
            .changed();
        options_changed |= ui
            .checkbox(
                &mut options.alpha_one_as_zero,
                "write source alpha 1 as 0 (§8.2)",
            )
            .changed();
        options_changed |= ui
            .checkbox(
                &mut options.exact_blend,
                "exact GX blending in the shader (§8.2; model view)",
            )
            .on_hover_text(
                "Blended surfaces read a copy of the target and blend with GX's integer rule; \
                 off: host blending, which may differ by 1 LSB",
            )
            .changed();
        ui.horizontal(|ui| {
            ui.label("final pixel from");
            options_changed |= ui
                .selectable_value(
                    &mut options.final_register,
                    FinalRegister::LastStage,
                    "last stage's registers",
                )
                .changed();
            options_changed |= ui
                .selectable_value(&mut options.final_register, FinalRegister::Prev, "PREV")
                .changed();
        });
        ui.horizontal(|ui| {
            ui.label("missing texture reads");
            options_changed |= ui
                .selectable_value(&mut options.missing_texture, MissingTexture::White, "255")
                .changed();
            options_changed |= ui
                .selectable_value(&mut options.missing_texture, MissingTexture::Black, "0")
                .changed();
        });
        ui.weak("Changing a switch rebuilds the program from the file (edits are reset).");
    });
    if options_changed {
        state.tev_options = options;
        edit.reset(options);
    }
    if ui
        .button("Reset edits")
        .on_hover_text("Back to the material as loaded")
        .clicked()
    {
        edit.reset(edit.options);
    }

    let before = edit.program.clone();
    egui::ScrollArea::vertical()
        .id_salt("material_scroll")
        .show(ui, |ui| {
            material_editor(ui, edit);
        });
    edit.commit(&before);
}

fn quad_settings(ui: &mut Ui, state: &mut AppState) {
    ui.horizontal(|ui| {
        ui.label("View:");
        ui.selectable_value(
            &mut state.settings.compositing,
            Compositing::ExactTev,
            "exact TEV output",
        )
        .on_hover_text("Blending off: the target holds exactly what the TEV wrote");
        ui.selectable_value(
            &mut state.settings.compositing,
            Compositing::GxBlend,
            "GX blend",
        )
        .on_hover_text("The material's blend over the background colour");
        ui.separator();
        ui.selectable_value(&mut state.settings.sampling, Sampling::Nearest, "nearest");
        ui.selectable_value(&mut state.settings.sampling, Sampling::Gx, "GX filtering");
    });
    ui.horizontal(|ui| {
        ui.label("Preview");
        let flat = state.settings.orbit.is_none();
        if ui
            .selectable_label(flat, "flat quad (pixel-exact)")
            .on_hover_text("Screen-covering quad; the pixel inspector traces it")
            .clicked()
        {
            state.settings.orbit = None;
        }
        if ui
            .selectable_label(!flat, "plane in 3D (orbit)")
            .on_hover_text(
                "Drag to rotate, scroll to zoom; view-dependent UV animations follow the camera",
            )
            .clicked()
            && flat
        {
            state.settings.orbit = Some(crate::render::OrbitCamera::facing_plane());
        }
    });
}

const COMPARES: [Compare; 8] = [
    Compare::Never,
    Compare::Less,
    Compare::Equal,
    Compare::LEqual,
    Compare::Greater,
    Compare::NEqual,
    Compare::GEqual,
    Compare::Always,
];
const ALPHA_OPS: [AlphaOp; 4] = [AlphaOp::And, AlphaOp::Or, AlphaOp::Xor, AlphaOp::Xnor];
const BLEND_MODES: [BlendMode; 4] = [
    BlendMode::None,
    BlendMode::Blend,
    BlendMode::Logic,
    BlendMode::Subtract,
];
const RASTERS: [RasterChannel; 10] = [
    RasterChannel::Color0,
    RasterChannel::Color1,
    RasterChannel::Alpha0,
    RasterChannel::Alpha1,
    RasterChannel::Color0A0,
    RasterChannel::Color1A1,
    RasterChannel::ColorZero,
    RasterChannel::AlphaBump,
    RasterChannel::AlphaBumpN,
    RasterChannel::None,
];

/// A colour picker that writes back only on a real change: egui's picker round-trips
/// through HSV and would otherwise nudge exact byte values (and zero-alpha colours).
fn color_button(ui: &mut Ui, rgba: &mut [u8; 4]) -> bool {
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

/// A combo box over `options`; true when the value changed.
fn combo<T: PartialEq + Copy>(
    ui: &mut Ui,
    id: impl egui::AsIdSalt,
    value: &mut T,
    options: &[T],
    name: impl Fn(T) -> String,
) -> bool {
    let mut changed = false;
    egui::ComboBox::from_id_salt(id)
        .selected_text(RichText::new(name(*value)).monospace())
        .width(72.0)
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

/// Name of a konst selector value (`gx.md` §4).
pub fn konst_sel_name(v: u8) -> String {
    const FRACTIONS: [&str; 8] = ["1", "7/8", "3/4", "5/8", "1/2", "3/8", "1/4", "1/8"];
    match v {
        0..=7 => FRACTIONS[v as usize].to_string(),
        8..=11 => format!("invalid ({v})"),
        12..=15 => format!("K{}", v - 12),
        16..=31 => {
            let comp = ["R", "G", "B", "A"][((v - 16) / 4) as usize];
            format!("K{}_{comp}", (v - 16) % 4)
        }
        _ => format!("? ({v})"),
    }
}

/// Name of a raw op field value (`gx.md` §3.1).
pub fn op_name(op: u8) -> String {
    const CMP: [&str; 8] = [
        "R8_GT", "R8_EQ", "GR16_GT", "GR16_EQ", "BGR24_GT", "BGR24_EQ", "RGB8_GT", "RGB8_EQ",
    ];
    match op {
        0 => "ADD".into(),
        1 => "SUB".into(),
        2..=7 => format!("{op} (= {})", CMP[op as usize]),
        8..=15 => CMP[(op - 8) as usize].into(),
        _ => format!("? {op}"),
    }
}

fn combine_editor(ui: &mut Ui, id: (usize, &str), c: &mut TevCombine) {
    let ops: Vec<u8> = (0..16).collect();
    combo(ui, (id, "op"), &mut c.op, &ops, op_name);
    combo(ui, (id, "bias"), &mut c.bias, &[0, 1, 2, 3], |b| {
        ["+0", "+½", "−½", "cmp"][b as usize].to_string()
    });
    combo(ui, (id, "scale"), &mut c.scale, &[0, 1, 2, 3], |s| {
        ["×1", "×2", "×4", "÷2"][s as usize].to_string()
    });
    ui.checkbox(&mut c.clamp, "clamp");
    ui.label("to");
    combo(ui, (id, "out"), &mut c.out_reg, &TevReg::ALL, |r| {
        r.name().to_string()
    });
}

fn material_editor(ui: &mut Ui, edit: &mut MaterialEdit) {
    let m = &edit.material;
    ui.label(format!(
        "{} stage{} ({} in the program), {} texgen{}, {} texture{}, {} UV animation{}, flags 0x{:04X}",
        m.stages.len(),
        if m.stages.len() == 1 { "" } else { "s" },
        edit.program.stages.len(),
        m.texgens.len(),
        if m.texgens.len() == 1 { "" } else { "s" },
        m.texture_count,
        if m.texture_count == 1 { "" } else { "s" },
        m.uv_animations.len(),
        if m.uv_animations.len() == 1 { "" } else { "s" },
        m.flags
    ));
    let mut flag_names = Vec::new();
    for (bit, name) in [
        (flags::KONST, "konst"),
        (flags::TRANSPARENT, "depth-sorted"),
        (flags::PUNCHTHROUGH, "punchthrough"),
        (flags::SAMUS_REFLECTION, "samus reflection"),
        (flags::DEPTH_WRITE, "depth write"),
        (flags::REFLECTION_SURFACE_EYE, "reflection eye"),
        (flags::OCCLUDER, "occluder"),
        (flags::INDIRECT_SLOT, "indirect"),
        (flags::LIGHTMAP, "lightmap"),
    ] {
        if m.flags & bit != 0 {
            flag_names.push(name);
        }
    }
    if !flag_names.is_empty() {
        ui.weak(format!("flags: {}", flag_names.join(", ")));
    }

    ui.heading("TEV stages");
    let count = edit.program.stages.len();
    let texcoords: Vec<Option<u8>> = std::iter::once(None).chain((0..8).map(Some)).collect();
    for i in 0..count {
        let engine = edit.is_engine_stage(i);
        let ps = &mut edit.program.stages[i];
        let origin = match ps.origin {
            StageOrigin::Material { index } => format!("stage {index}"),
            StageOrigin::Engine(e) => format!("engine: {}", e.name()),
        };
        let header = RichText::new(format!("{origin}   {}", describe_color(&ps.stage)))
            .monospace()
            .color(if engine {
                Color32::from_rgb(150, 170, 255)
            } else {
                Color32::WHITE
            });
        egui::CollapsingHeader::new(header)
            .id_salt(("stage", i))
            .default_open(count <= 3)
            .show(ui, |ui| {
                if engine {
                    ui.colored_label(
                        Color32::from_rgb(150, 170, 255),
                        "Appended by the engine at run time (gx.md §13) — read-only.",
                    );
                }
                ui.add_enabled_ui(!engine, |ui| {
                    let s = &mut ps.stage;
                    ui.monospace(describe_alpha(s));
                    egui::Grid::new(("stage_grid", i))
                        .num_columns(2)
                        .spacing([6.0, 4.0])
                        .show(ui, |ui| {
                            ui.label("colour a b c d");
                            ui.horizontal(|ui| {
                                for (k, input) in s.color_in.iter_mut().enumerate() {
                                    combo(ui, (i, "cin", k), input, &ColorInput::ALL, |x| {
                                        x.name().to_string()
                                    });
                                }
                            });
                            ui.end_row();
                            ui.label("colour op");
                            ui.horizontal(|ui| combine_editor(ui, (i, "cop"), &mut s.color_op));
                            ui.end_row();
                            ui.label("alpha a b c d");
                            ui.horizontal(|ui| {
                                for (k, input) in s.alpha_in.iter_mut().enumerate() {
                                    combo(ui, (i, "ain", k), input, &AlphaInput::ALL, |x| {
                                        x.name().to_string()
                                    });
                                }
                            });
                            ui.end_row();
                            ui.label("alpha op");
                            ui.horizontal(|ui| combine_editor(ui, (i, "aop"), &mut s.alpha_op));
                            ui.end_row();
                            ui.label("konst sel");
                            ui.horizontal(|ui| {
                                let sels: Vec<KonstSel> = (0..32).map(KonstSel).collect();
                                ui.label("kcsel");
                                combo(ui, (i, "kc"), &mut s.kcsel, &sels, |k| konst_sel_name(k.0));
                                ui.label("kasel");
                                combo(ui, (i, "ka"), &mut s.kasel, &sels, |k| konst_sel_name(k.0));
                            });
                            ui.end_row();
                            ui.label("raster");
                            combo(ui, (i, "ras"), &mut s.raster, &RASTERS, |r| {
                                format!("{r:?}")
                            });
                            ui.end_row();
                            ui.label("texture");
                            ui.horizontal(|ui| {
                                ui.label("map");
                                combo(ui, (i, "map"), &mut s.tex_map, &texcoords, |m| {
                                    m.map_or("none".into(), |m| format!("{m}"))
                                });
                                ui.label("coord");
                                combo(ui, (i, "coord"), &mut s.tex_coord, &texcoords, |c| {
                                    c.map_or("none".into(), |c| format!("{c}"))
                                });
                            });
                            ui.end_row();
                        });
                });
            });
    }

    ui.separator();
    ui.heading("Konst colours");
    egui::Grid::new("konst").num_columns(6).show(ui, |ui| {
        for (k, c) in edit.program.konst.iter_mut().enumerate() {
            ui.label(format!("K{k}"));
            color_button(ui, c);
            for v in c.iter_mut() {
                ui.add(egui::DragValue::new(v));
            }
            ui.end_row();
        }
    });

    ui.heading("Registers (initial values)");
    egui::Grid::new("registers").num_columns(5).show(ui, |ui| {
        for (r, reg) in edit.program.registers.iter_mut().enumerate() {
            ui.label(TevReg::ALL[r].name());
            for c in reg.iter_mut() {
                ui.add(egui::DragValue::new(c).range(-1024..=1023));
            }
            ui.end_row();
        }
    });

    ui.heading("Alpha test");
    let at = &mut edit.program.alpha_test;
    ui.horizontal(|ui| {
        ui.label("alpha");
        combo(ui, "comp0", &mut at.comp0, &COMPARES, |c| format!("{c:?}"));
        ui.add(egui::DragValue::new(&mut at.ref0));
        combo(ui, "aop", &mut at.op, &ALPHA_OPS, |o| format!("{o:?}"));
        ui.label("alpha");
        combo(ui, "comp1", &mut at.comp1, &COMPARES, |c| format!("{c:?}"));
        ui.add(egui::DragValue::new(&mut at.ref1));
    });

    ui.heading("Blend");
    let b = &mut edit.program.blend;
    ui.horizontal(|ui| {
        combo(ui, "bmode", &mut b.mode, &BLEND_MODES, |m| format!("{m:?}"));
        ui.label("src");
        combo(ui, "bsrc", &mut b.src, &BlendFactor::ALL, |f| {
            format!("{f:?}")
        });
        ui.label("dst");
        combo(ui, "bdst", &mut b.dst, &BlendFactor::ALL, |f| {
            format!("{f:?}")
        });
    });
    ui.weak("Blend applies in the \"GX blend\" view; the exact view writes the TEV output.");
    ui.checkbox(&mut edit.program.depth.write, "depth write");

    if !edit.material.uv_animations.is_empty() {
        ui.heading("UV animations");
        for (i, a) in edit.material.uv_animations.iter().enumerate() {
            ui.monospace(format!("TEXMTX{i}: {a:?}"));
        }
    }
    if !edit.material.texgens.is_empty() {
        ui.heading("Texgens");
        for (i, t) in edit.material.texgens.iter().enumerate() {
            ui.monospace(crate::gx::wgsl::vertex::describe_texgen(i, t));
        }
    }
}

fn wgsl_tab(ui: &mut Ui, state: &mut AppState) {
    ui.horizontal(|ui| {
        ui.selectable_value(
            &mut state.wgsl_choice,
            WgslChoice::Specialized,
            "specialized",
        );
        ui.selectable_value(&mut state.wgsl_choice, WgslChoice::Uber, "ubershader");
        if let Some(src) = state.wgsl_source()
            && ui.button("Copy").clicked()
        {
            let src = src.to_string();
            ui.ctx().copy_text(src);
        }
    });
    if let Some(e) = &state.view_status.pipeline_error {
        ui.colored_label(
            Color32::from_rgb(255, 110, 110),
            format!("Shader error (the last good pipeline keeps drawing):\n{e}"),
        );
    }
    let Some(src) = state.wgsl_source() else {
        ui.weak("No material selected.");
        return;
    };
    let mut text = src;
    egui::ScrollArea::both()
        .id_salt("wgsl_scroll")
        .show(ui, |ui| {
            ui.add(
                egui::TextEdit::multiline(&mut text)
                    .code_editor()
                    .desired_width(f32::INFINITY),
            );
        });
}

fn rgba_cell(ui: &mut Ui, v: [i32; 4]) {
    let clamp = |x: i32| (x & 255) as u8;
    let color = Color32::from_rgb(clamp(v[0]), clamp(v[1]), clamp(v[2]));
    let (rect, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
    ui.painter().rect_filled(rect, 2.0, color);
    ui.monospace(format!("{:5} {:5} {:5} {:5}", v[0], v[1], v[2], v[3]));
}

fn model_inspector(ui: &mut Ui, state: &mut AppState) {
    let Some(p) = &state.model_pick else {
        ui.weak("Click the model to see the surface, material and exact pixel under the cursor.");
        return;
    };
    ui.heading(format!("Pixel ({}, {})", p.x, p.y));
    egui::Grid::new("model_pick").num_columns(2).show(ui, |ui| {
        ui.label("displayed RGBA8");
        ui.horizontal(|ui| rgba_cell(ui, p.rgba.map(i32::from)));
        ui.end_row();
        match &p.hit {
            Some(hit) => {
                ui.label("surface");
                ui.monospace(format!("{}", hit.surface));
                ui.end_row();
                ui.label("material");
                ui.monospace(format!("{} (set {})", hit.material, p.set));
                ui.end_row();
                ui.label("depth");
                ui.monospace(format!("{:.6}", hit.depth));
                ui.end_row();
            }
            None => {
                ui.label("surface");
                ui.weak("background");
                ui.end_row();
            }
        }
    });
    if let Some(hit) = &p.hit {
        if let Some(m) = state
            .doc
            .as_ref()
            .and_then(|d| d.material(p.set, hit.material))
        {
            ui.separator();
            ui.label("Material stages");
            for (i, st) in m.material.stages.iter().enumerate() {
                ui.monospace(format!("{i}: {}", describe_color(st)));
                ui.monospace(format!("   {}", describe_alpha(st)));
            }
        }
        if ui.button("Edit this material").clicked() {
            state.tab = RightTab::Material;
        }
    }
    ui.separator();
    ui.weak(
        "The exact TEV trace runs on the material quad: switch to \"Material quad\" and click \
         a pixel there.",
    );
}

fn inspector_tab(ui: &mut Ui, state: &mut AppState) {
    if state.shows_model() {
        model_inspector(ui, state);
        return;
    }
    if state.settings.orbit.is_some() {
        ui.weak("The pixel inspector traces the flat quad: switch the preview to \"flat quad\".");
        return;
    }
    let Some(r) = &state.report else {
        ui.weak("Click a pixel in the viewport to trace it through the CPU reference TEV.");
        return;
    };
    let clear = state.settings.background;
    egui::ScrollArea::vertical()
        .id_salt("inspector_scroll")
        .show(ui, |ui| {
            ui.heading(format!("Pixel ({}, {})", r.x, r.y));
            ui.monospace(format!(
                "quad uv ({:.4}, {:.4})",
                r.quad_uv[0], r.quad_uv[1]
            ));
            for (i, tc) in r.tex_coords.iter().enumerate() {
                ui.monospace(format!("texcoord{i} ({:.4}, {:.4})", tc[0], tc[1]));
            }
            ui.label("Inputs");
            egui::Grid::new("inputs").num_columns(2).show(ui, |ui| {
                for (c, ras) in r.inputs.raster.iter().enumerate() {
                    ui.label(format!("raster COLOR{c}A{c}"));
                    ui.horizontal(|ui| rgba_cell(ui, ras.map(i32::from)));
                    ui.end_row();
                }
                let program = state.edit.as_ref().map(|e| &e.program);
                for (i, t) in r.inputs.texels.iter().enumerate() {
                    let map = program
                        .and_then(|p| p.stages.get(i))
                        .and_then(|s| crate::gx::tev::stage_texture_map(&s.stage));
                    match map {
                        Some(m) => {
                            ui.label(format!("stage {i} texel (map {m})"));
                            ui.horizontal(|ui| rgba_cell(ui, t.map(i32::from)));
                        }
                        None => {
                            ui.label(format!("stage {i} texel"));
                            ui.weak("no texture map");
                        }
                    }
                    ui.end_row();
                }
            });
            ui.separator();
            ui.label("Registers after each stage (PREV, C0, C1, C2)");
            for (i, st) in r.trace.stages.iter().enumerate() {
                ui.strong(format!(
                    "stage {i}: colour -> {} {:?}, alpha -> {} {}",
                    st.color_dest.name(),
                    st.color,
                    st.alpha_dest.name(),
                    st.alpha
                ));
                egui::Grid::new(("trace", i)).num_columns(2).show(ui, |ui| {
                    for (k, reg) in st.registers.iter().enumerate() {
                        ui.monospace(TevReg::ALL[k].name());
                        ui.horizontal(|ui| rgba_cell(ui, reg.map(i32::from)));
                        ui.end_row();
                    }
                });
            }
            ui.separator();
            egui::Grid::new("final").num_columns(2).show(ui, |ui| {
                ui.label("TEV output");
                ui.horizontal(|ui| rgba_cell(ui, r.trace.rgba.map(i32::from)));
                ui.end_row();
                ui.label("alpha test");
                ui.label(if r.trace.alpha_pass {
                    RichText::new("pass").color(Color32::LIGHT_GREEN)
                } else {
                    RichText::new("fail (discarded)").color(Color32::from_rgb(255, 110, 110))
                });
                ui.end_row();
                ui.label("CPU writes");
                ui.horizontal(|ui| rgba_cell(ui, r.trace.written.map(i32::from)));
                ui.end_row();
                ui.label("GPU pixel");
                match r.gpu {
                    Some(g) => {
                        ui.horizontal(|ui| rgba_cell(ui, g.map(i32::from)));
                    }
                    None => {
                        ui.weak("not read");
                    }
                }
                ui.end_row();
            });
            match r.matches(clear) {
                Some(true) => {
                    ui.colored_label(Color32::LIGHT_GREEN, "GPU matches the CPU reference.");
                }
                Some(false) => {
                    ui.colored_label(
                        Color32::from_rgb(255, 110, 110),
                        "GPU differs from the CPU reference (GX filtering or GX blend views \
                         are not bit-exact; use exact TEV output + nearest).",
                    );
                }
                None => {}
            }
        });
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn run_frame(state: &mut AppState) -> egui::FullOutput {
        let ctx = egui::Context::default();
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1600.0, 900.0),
            )),
            ..Default::default()
        };
        let mut out = ctx.run_ui(input, |ui| show(ui, state));
        out.textures_delta.clear();
        out
    }

    #[test]
    fn konst_selector_names_follow_the_table() {
        assert_eq!(konst_sel_name(0), "1");
        assert_eq!(konst_sel_name(4), "1/2");
        assert_eq!(konst_sel_name(0x0D), "K1");
        assert_eq!(konst_sel_name(0x16), "K2_G");
        assert_eq!(konst_sel_name(0x1F), "K3_A");
        assert_eq!(op_name(14), "RGB8_GT");
        assert_eq!(op_name(2), "2 (= GR16_GT)");
    }

    fn demo_spec(name: &str) -> String {
        let pak = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.pak");
        format!("{}:{name}", pak.display())
    }

    #[test]
    fn a_character_opens_in_the_model_view_playing_its_first_clip() {
        let mut state = AppState::new(std::env::temp_dir());
        state.open(&demo_spec("worm_character"));
        assert!(state.load_error.is_none(), "{:?}", state.load_error);
        assert!(state.shows_model());
        assert_eq!(state.animation, Some(0));
        assert!(state.playing && state.animating());
        let duration = f64::from(state.animation_duration().unwrap());
        assert!(duration > 0.0);
        // The clock loops over the clip.
        state.tick(duration * 0.75);
        state.tick(duration * 0.5);
        assert!((state.settings.time - duration * 0.25).abs() < 1e-9);
        // The MREA of the same PAK is offered, and choosing it loads its lights.
        let doc = state.doc.as_ref().unwrap();
        let (label, spec) = doc.areas.first().cloned().expect("demo.pak:lights");
        state.set_lights(LightChoice::Area(label, spec));
        assert!(state.load_error.is_none(), "{:?}", state.load_error);
        assert_eq!(state.lights_revision, 1);
        assert_ne!(
            state.light_set,
            crate::gx::lights::LightPreset::Basic.light_set()
        );
        // Frame model puts the camera back on the model's box.
        let framed = state.camera;
        state.camera.pan(100.0, 50.0, 500.0);
        state.camera.zoom(300.0);
        assert_ne!(state.camera, framed);
        state.frame_model();
        assert_eq!(state.camera, framed);
        state.viewport_texture = Some((egui::TextureId::User(1), [320, 200]));
        for tab in [RightTab::Material, RightTab::Wgsl, RightTab::Inspector] {
            state.tab = tab;
            run_frame(&mut state);
        }
        // Switching to the material quad is a view reload and leaves the model view.
        state.requests = Requests::default();
        state.view_mode = ViewMode::MaterialQuad;
        assert!(!state.shows_model());
        run_frame(&mut state);
    }

    #[test]
    fn edits_survive_selecting_another_material() {
        let mut state = AppState::new(std::env::temp_dir());
        state.open(&demo_spec("showcase"));
        assert!(state.load_error.is_none(), "{:?}", state.load_error);
        let edit = state.edit.as_mut().unwrap();
        let before = edit.program.clone();
        edit.program.konst[1] = [1, 2, 3, 4];
        edit.commit(&before);
        state.select_material(0, 5);
        assert_eq!(state.edit.as_ref().unwrap().revision, 0);
        state.select_material(0, 0);
        let edit = state.edit.as_ref().unwrap();
        assert_eq!(edit.revision, 1);
        assert_eq!(edit.program.konst[1], [1, 2, 3, 4]);
        // A new document forgets them.
        state.open(&demo_spec("showcase"));
        assert_eq!(state.edit.as_ref().unwrap().revision, 0);
    }

    #[test]
    fn empty_state_draws_a_frame() {
        let mut state = AppState::new(std::env::temp_dir());
        let out = run_frame(&mut state);
        assert!(!out.shapes.is_empty());
        assert_eq!(state.requests.open, None);
        assert!(state.requests.viewport_size.is_some());
    }

    #[test]
    fn opening_a_whole_pak_expands_it_and_opens_its_model() {
        let Some(dir) = crate::testing::conformance_dir() else {
            return;
        };
        let mut state = AppState::new(std::env::temp_dir());
        state.open(dir.join("tev_cases.pak").to_str().unwrap());
        assert!(state.load_error.is_none(), "{:?}", state.load_error);
        let doc = state.doc.as_ref().unwrap();
        assert!(doc.spec.ends_with(".CMDL"), "{}", doc.spec);
        assert!(state.edit.is_some());
        assert_eq!(state.browser.paks.len(), 1);
        run_frame(&mut state);
    }

    #[test]
    fn open_error_is_shown_not_fatal() {
        let mut state = AppState::new(std::env::temp_dir());
        state.open("/nonexistent/model.CMDL");
        assert!(state.load_error.is_some());
        run_frame(&mut state);
    }

    #[test]
    fn every_tab_of_the_tev_cases_model_draws() {
        let Some(dir) = crate::testing::conformance_dir() else {
            return;
        };
        let mut state = AppState::new(dir.clone());
        state.open(dir.join("0x7EC00000.CMDL").to_str().unwrap());
        assert!(state.load_error.is_none(), "{:?}", state.load_error);
        assert!(state.requests.reload_view);
        assert!(state.edit.is_some());
        state.viewport_texture = Some((egui::TextureId::User(1), [256, 256]));
        for tab in [RightTab::Material, RightTab::Wgsl, RightTab::Inspector] {
            state.tab = tab;
            run_frame(&mut state);
        }
        // The WGSL tab generated the specialized shader of the selected material.
        let src = state.wgsl_source().unwrap().to_string();
        assert!(src.contains("fn"), "{src}");
        // Walk all 48 materials through the material tab.
        state.tab = RightTab::Material;
        for i in 0..48 {
            state.select_material(0, i);
            let before = state.edit.as_ref().unwrap().program.clone();
            run_frame(&mut state);
            run_frame(&mut state);
            let edit = state.edit.as_ref().unwrap();
            // Drawing the editor must not change anything by itself.
            assert_eq!(edit.program, before, "material {i}");
            assert_eq!(edit.revision, 0, "material {i}");
        }
        // The inspector with a report.
        let edit = state.edit.as_ref().unwrap();
        let textures = state.current_textures();
        state.report = Some(super::super::edit::trace_quad_pixel(
            &edit.material,
            &edit.program,
            &textures,
            &crate::gx::wgsl::vertex::DrawUniforms::default(),
            256,
            256,
            10,
            20,
        ));
        state.tab = RightTab::Inspector;
        run_frame(&mut state);
    }
}
