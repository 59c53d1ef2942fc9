//! Scripted windows: `tevscope view --script STEPS.json` runs the real window and event
//! loop, applies a list of UI actions one after another, each waiting for its effects
//! (an open waits for the worker thread, a resize for the new surface, a click for the
//! pick), and exits; any failure names the step and action and makes the exit non-zero.
//! Tests, bug reports and batch screenshots use it.
//!
//! A script is a JSON array of [`Action`]s, each `{"action": "name", …}` (see README).
//! Keys and clicks are injected as egui input events, so they go through the same panels
//! and shortcut handling as the user's; window screenshots are the frame egui painted,
//! drawn a second time into a texture that is read back (only on the frame asked for).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::gx::light_file::Entry as LightEntry;
use crate::render::RgbaImage;

use super::state::{AppState, Layout};

/// One scripted UI action.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "snake_case", deny_unknown_fields)]
pub enum Action {
    /// Open a spec (file, `PAK:ID`, …) and wait for the worker; a failed open fails.
    Open {
        spec: String,
    },
    /// Select material `index` of material set `set` (default 0).
    SelectMaterial {
        index: usize,
        #[serde(default)]
        set: usize,
    },
    /// Set one field of the open model with a JSON Patch `replace` (the paths
    /// `tevscope edit` and `info --json` use).
    Set {
        path: String,
        value: serde_json::Value,
    },
    /// Apply a whole JSON Patch (RFC 6902) as one edit.
    Patch {
        ops: json_patch::Patch,
    },
    /// Play until the clock reaches `seconds`, then pause there.
    PlayTo {
        seconds: f64,
    },
    Play {},
    Pause {},
    /// Resize the window's inner area to `width` × `height` physical pixels.
    Resize {
        width: u32,
        height: u32,
    },
    /// Press and release a shortcut: `"ctrl+z"`, `"ctrl+shift+s"`, `"f1"`, `"space"`.
    Key {
        keys: String,
    },
    /// A left click at window coordinates (points from the top-left corner).
    Click {
        x: f32,
        y: f32,
    },
    /// The mouse wheel at window coordinates (points): `dy` points, positive scrolls up
    /// (content moves down), as a wheel turned away from the user.
    Scroll {
        x: f32,
        y: f32,
        dy: f32,
    },
    /// A left click on the 3D view at (`x`, `y`) as fractions of its width and height
    /// (0.5, 0.5 is the centre): in the model view a pick.
    ClickView {
        x: f32,
        y: f32,
    },
    /// Replace the light list (entries as in a light set file, `crate::gx::light_file`).
    Lights {
        lights: Vec<LightEntry>,
    },
    /// Replace light `index` of the list (`index` = the number of lights appends one).
    Light {
        index: usize,
        light: LightEntry,
    },
    /// Render the 3D view to `path` (PNG) at `width` × `height` (default: the view's).
    Screenshot {
        path: PathBuf,
        width: Option<u32>,
        height: Option<u32>,
        #[serde(default)]
        transparent: bool,
    },
    /// A turntable of the model view: `frames` PNGs `<path stem>_000.png`, ….
    Turntable {
        path: PathBuf,
        frames: u32,
        width: Option<u32>,
        height: Option<u32>,
        #[serde(default)]
        transparent: bool,
    },
    /// Save the whole window as painted to `path` (PNG), and its panel rectangles to the
    /// same path with `.json`.
    ScreenshotWindow {
        path: PathBuf,
    },
    /// Save the open model over its file / to `path`.
    Save {},
    SaveAs {
        path: PathBuf,
    },
    /// Show the overview of world `world` (its index in the world tree) in the main view;
    /// `click_view` then clicks on the map (a room opens).
    Overview {
        world: usize,
    },
    /// The View menu: `debug` (`shaded` or a `render --debug` view), `preview` (`model` or
    /// a shape), `compare` (the A/B split on or off), `split` (0…1) and `fps` (the
    /// frame-rate overlay on or off); absent ones stay.
    ViewAids {
        debug: Option<String>,
        preview: Option<String>,
        compare: Option<bool>,
        split: Option<f32>,
        fps: Option<bool>,
    },
    /// Let `frames` frames pass.
    WaitFrames {
        frames: u32,
    },
    /// Wait until nothing is loading, no pipeline is compiling and the view has its size.
    WaitIdle {},
}

impl Action {
    /// The action's name as scripts spell it.
    pub fn name(&self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.get("action")?.as_str().map(str::to_string))
            .unwrap_or_default()
    }
}

/// Reads a script: a JSON array of actions. Errors name the step.
pub fn parse(text: &str) -> Result<Vec<Action>, String> {
    let raw: Vec<serde_json::Value> =
        serde_json::from_str(text).map_err(|e| format!("not a JSON array of actions: {e}"))?;
    raw.into_iter()
        .enumerate()
        .map(|(i, v)| {
            let name = v
                .get("action")
                .and_then(|a| a.as_str())
                .unwrap_or("?")
                .to_string();
            let action: Action =
                serde_json::from_value(v).map_err(|e| format!("step {i} ({name}): {e}"))?;
            if let Action::Key { keys } = &action {
                parse_keys(keys).map_err(|e| format!("step {i} ({name}): {e}"))?;
            }
            Ok(action)
        })
        .collect()
}

/// Parses `"ctrl+shift+z"` into modifiers and a key.
pub fn parse_keys(keys: &str) -> Result<(egui::Modifiers, egui::Key), String> {
    let mut modifiers = egui::Modifiers::NONE;
    let mut key = None;
    for part in keys.split('+').map(str::trim) {
        match part.to_ascii_lowercase().as_str() {
            "ctrl" | "control" | "cmd" | "command" => {
                modifiers.ctrl = true;
                modifiers.command = true;
            }
            "shift" => modifiers.shift = true,
            "alt" => modifiers.alt = true,
            _ if key.is_some() => return Err(format!("{keys:?}: more than one key")),
            _ => {
                let mut title = part.to_ascii_lowercase();
                if let Some(first) = title.get_mut(..1) {
                    first.make_ascii_uppercase();
                }
                key = egui::Key::from_name(part)
                    .or_else(|| egui::Key::from_name(&part.to_ascii_uppercase()))
                    .or_else(|| egui::Key::from_name(&title));
                if key.is_none() {
                    return Err(format!("{keys:?}: unknown key {part:?}"));
                }
            }
        }
    }
    key.map(|k| (modifiers, k))
        .ok_or_else(|| format!("{keys:?}: no key"))
}

/// What the script needs from the app besides the UI state.
pub(crate) trait Host {
    fn state(&mut self) -> &mut AppState;
    /// The window's inner size in physical pixels.
    fn window_size(&self) -> (u32, u32);
    fn request_window_size(&mut self, width: u32, height: u32);
    fn pixels_per_point(&self) -> f32;
    /// Whether the view still draws with pipelines that are compiling.
    fn pipelines_pending(&self) -> bool;
    /// The view's target size (physical pixels).
    fn view_size(&self) -> (u32, u32);
    /// Renders the 3D view to `path`; returns the line to log.
    fn screenshot_view(
        &mut self,
        path: &Path,
        size: Option<(u32, u32)>,
        transparent: bool,
    ) -> Result<String, String>;
    fn turntable(
        &mut self,
        path: &Path,
        frames: u32,
        size: Option<(u32, u32)>,
        transparent: bool,
    ) -> Result<String, String>;
}

/// The step running now.
struct Running {
    index: usize,
    action: Action,
    started: Instant,
    /// Frames finished since the step started.
    frames: u32,
    /// Step-specific progress (idle frames seen, the last clock value, …).
    counter: u32,
    last_time: f64,
    /// The window capture taken for [`Action::ScreenshotWindow`].
    captured: Option<Result<RgbaImage, String>>,
}

/// Runs a script, one step at a time, from the app's frame loop.
pub struct Runner {
    steps: Vec<Action>,
    next: usize,
    current: Option<Running>,
    /// egui events to add to the next frame's input.
    events: Vec<egui::Event>,
    step_timeout: Duration,
    /// When a frame last ran (a window that stops drawing fails the run too).
    last_frame: Instant,
    /// Set when a step failed; the app exits with it.
    pub error: Option<String>,
}

/// The window screenshot's JSON companion: where the panels are, in physical pixels
/// (x, y, width, height).
#[derive(Debug, Serialize)]
struct LayoutReport {
    window: [u32; 2],
    pixels_per_point: f32,
    left: Option<[f32; 4]>,
    right: Option<[f32; 4]>,
    central: Option<[f32; 4]>,
    view: Option<[f32; 4]>,
    top: Option<[f32; 4]>,
    timeline: Option<[f32; 4]>,
    /// The first open TEV stage's fields, whole (wider than `right` when cut).
    stage: Option<[f32; 4]>,
    /// The folder the file browser shows, and its highlighted row.
    browser_dir: String,
    browser_selected: Option<String>,
    selected_material: Option<usize>,
    /// The material the model view tints (None: no tint).
    tinted_material: Option<usize>,
    picked_material: Option<usize>,
    /// In a room: the picked surface's world model and its index within it.
    picked_world_model: Option<[usize; 2]>,
    spec: Option<String>,
    /// The game browser's source (disc image, folder or PAK) and whether it is shown.
    worlds_source: Option<String>,
    worlds_shown: bool,
    /// The world whose overview the main view shows.
    overview_world: Option<usize>,
    /// The frame-rate meter over the last second (measured whether or not its overlay
    /// is shown): frames per second and mean frame time in ms.
    fps: Option<f32>,
    frame_ms: Option<f32>,
    /// Stage-strip thumbnails drawn since the window opened.
    strip_draws: u64,
}

fn rect_px(r: Option<egui::Rect>, ppp: f32) -> Option<[f32; 4]> {
    r.map(|r| {
        [
            r.min.x * ppp,
            r.min.y * ppp,
            r.width() * ppp,
            r.height() * ppp,
        ]
    })
}

impl Runner {
    pub fn new(steps: Vec<Action>, step_timeout: Duration) -> Self {
        Self {
            steps,
            next: 0,
            current: None,
            events: Vec::new(),
            step_timeout,
            last_frame: Instant::now(),
            error: None,
        }
    }

    /// Fails the run when no frame was drawn for a step's timeout (the window never
    /// showed, or stopped drawing); true when it failed.
    pub fn stalled(&mut self) -> bool {
        if self.error.is_none() && self.last_frame.elapsed() > self.step_timeout {
            let at = match &self.current {
                Some(r) => format!("step {} ({})", r.index, r.action.name()),
                None => format!("before step {}", self.next),
            };
            self.error = Some(format!(
                "{at}: no frame drawn for {} s",
                self.step_timeout.as_secs_f32()
            ));
        }
        self.error.is_some()
    }

    /// Every step ran (or one failed).
    pub fn finished(&self) -> bool {
        self.error.is_some() || (self.current.is_none() && self.next >= self.steps.len())
    }

    /// Events to inject into this frame's egui input.
    pub fn take_events(&mut self) -> Vec<egui::Event> {
        std::mem::take(&mut self.events)
    }

    /// Whether this frame's painting should also be read back (a window screenshot whose
    /// UI has settled for a frame).
    pub fn wants_capture(&self) -> bool {
        matches!(&self.current, Some(r) if matches!(r.action, Action::ScreenshotWindow { .. })
            && r.frames >= 2 && r.captured.is_none())
    }

    /// The frame's painting, read back (after [`Runner::wants_capture`]).
    pub fn captured(&mut self, image: Result<RgbaImage, String>) {
        if let Some(r) = &mut self.current {
            r.captured = Some(image);
        }
    }

    fn fail(&mut self, index: usize, action: &Action, message: impl std::fmt::Display) {
        self.error = Some(format!("step {index} ({}): {message}", action.name()));
        self.current = None;
    }

    /// Before the UI runs: starts the next step when none is running.
    pub(crate) fn before_frame(&mut self, host: &mut dyn Host) {
        if self.error.is_some() || self.current.is_some() || self.next >= self.steps.len() {
            return;
        }
        let index = self.next;
        let action = self.steps[index].clone();
        self.next += 1;
        log::info!("script step {index}: {action:?}");
        if let Err(e) = self.start(host, &action) {
            self.fail(index, &action, e);
            return;
        }
        self.current = Some(Running {
            index,
            action,
            started: Instant::now(),
            frames: 0,
            counter: 0,
            last_time: host.state().session.clock.time,
            captured: None,
        });
    }

    /// The immediate part of a step.
    fn start(&mut self, host: &mut dyn Host, action: &Action) -> Result<(), String> {
        let state = host.state();
        match action {
            Action::Open { spec } => {
                state.messages.load_error = None;
                state.request_open(spec);
                if state.loader.pending.is_some() {
                    return Err("the open file has unsaved edits (save first)".into());
                }
            }
            Action::SelectMaterial { index, set } => {
                let exists = state
                    .session
                    .asset()
                    .is_some_and(|d| d.material(*set, *index).is_some());
                if !exists {
                    return Err(format!("no material {index} in set {set} of the open file"));
                }
                state.select_material(*set, *index);
            }
            Action::Set { path, value } => {
                let op = json_patch::PatchOperation::Replace(json_patch::ReplaceOperation {
                    path: path
                        .parse()
                        .map_err(|e| format!("{path:?} is not a JSON pointer: {e}"))?,
                    value: value.clone(),
                });
                apply_patch(state, &[op], &format!("script: set {path}"))?;
            }
            Action::Patch { ops } => apply_patch(state, &ops.0, "script: patch")?,
            Action::PlayTo { seconds } => {
                if !seconds.is_finite() || *seconds < 0.0 {
                    return Err(format!("{seconds} is not a time"));
                }
                if state.session.clock.time >= *seconds {
                    state.session.clock.time = *seconds;
                    state.session.clock.playing = false;
                } else {
                    state.session.clock.playing = true;
                }
            }
            Action::Play {} => state.session.clock.playing = true,
            Action::Pause {} => state.session.clock.playing = false,
            Action::Resize { width, height } => {
                if *width == 0 || *height == 0 {
                    return Err("a window needs a size above 0".into());
                }
                host.request_window_size(*width, *height);
            }
            Action::Key { keys } => {
                let (modifiers, key) = parse_keys(keys)?;
                for pressed in [true, false] {
                    self.events.push(egui::Event::Key {
                        key,
                        physical_key: None,
                        pressed,
                        repeat: false,
                        modifiers,
                    });
                }
            }
            Action::Click { x, y } => self.click(egui::pos2(*x, *y)),
            Action::Scroll { x, y, dy } => {
                self.events
                    .push(egui::Event::PointerMoved(egui::pos2(*x, *y)));
                self.events.push(egui::Event::MouseWheel {
                    unit: egui::MouseWheelUnit::Point,
                    delta: egui::vec2(0.0, *dy),
                    phase: egui::TouchPhase::Move,
                    modifiers: egui::Modifiers::NONE,
                    source: egui::MouseWheelSource::Wheel,
                });
            }
            Action::ClickView { x, y } => {
                let Some(view) = state.layout.view else {
                    return Err("no 3D view is shown".into());
                };
                if !(0.0..=1.0).contains(x) || !(0.0..=1.0).contains(y) {
                    return Err("x and y are fractions of the view (0 to 1)".into());
                }
                let pos = view.min + egui::vec2(x * view.width(), y * view.height());
                // Inside the view's last pixel row/column.
                let pos = pos.min(view.max - egui::vec2(0.5, 0.5));
                self.click(pos);
            }
            Action::Lights { lights } => {
                let records = lights
                    .iter()
                    .enumerate()
                    .map(|(i, e)| e.record(i))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| format!("{:#}", anyhow::Error::new(e)))?;
                state
                    .lights_panel()
                    .edit_lights("script: lights".into(), records);
            }
            Action::Light { index, light } => {
                let record = light
                    .record(*index)
                    .map_err(|e| format!("{:#}", anyhow::Error::new(e)))?;
                let mut records = state.light_editor.records.clone();
                let n = records.len();
                match (*index).cmp(&n) {
                    std::cmp::Ordering::Less => records[*index] = record,
                    std::cmp::Ordering::Equal => records.push(record),
                    std::cmp::Ordering::Greater => {
                        return Err(format!("light {index}: the list has {n} lights"));
                    }
                }
                state
                    .lights_panel()
                    .edit_lights(format!("script: light {index}"), records);
            }
            Action::Save {} => {
                if state.session.document().is_none() {
                    return Err("the open file is not an editable model".into());
                }
                if !state.save() {
                    return Err(state.messages.edit_error.clone().unwrap_or_default());
                }
            }
            Action::SaveAs { path } => {
                if state.session.document().is_none() {
                    return Err("the open file is not an editable model".into());
                }
                if !state.save_as(path) {
                    return Err(state.messages.edit_error.clone().unwrap_or_default());
                }
            }
            Action::Overview { world } => {
                let count = match &state.worlds.listing {
                    Some(Ok(r)) => r.worlds.len(),
                    _ => 0,
                };
                if *world >= count {
                    return Err(format!("no world {world}: the world tree lists {count}"));
                }
                state.worlds.show_overview(*world);
            }
            Action::ViewAids {
                debug,
                preview,
                compare,
                split,
                fps,
            } => {
                if let Some(f) = fps {
                    state.perf.fps_shown = *f;
                }
                let mut aids = state.aids;
                if let Some(d) = debug {
                    aids.set_debug(d)?;
                }
                if let Some(p) = preview {
                    aids.set_preview(p)?;
                }
                if let Some(c) = compare {
                    aids.compare = *c;
                }
                if let Some(f) = split {
                    if !(0.0..=1.0).contains(f) {
                        return Err(format!("split {f}: a fraction of the width, 0 to 1"));
                    }
                    aids.split = *f;
                }
                let reframe = aids.preview != state.aids.preview;
                state.aids = aids;
                if reframe {
                    state.requests.reload_view = true;
                    state.frame_model();
                }
            }
            Action::Screenshot { .. }
            | Action::Turntable { .. }
            | Action::ScreenshotWindow { .. }
            | Action::WaitFrames { .. }
            | Action::WaitIdle {} => {}
        }
        Ok(())
    }

    /// The pointer moves there, then presses and releases (one frame, so a slow frame
    /// cannot turn the click into a long press).
    fn click(&mut self, pos: egui::Pos2) {
        self.events.push(egui::Event::PointerMoved(pos));
        for pressed in [true, false] {
            self.events.push(egui::Event::PointerButton {
                pos,
                button: egui::PointerButton::Primary,
                pressed,
                modifiers: egui::Modifiers::NONE,
            });
        }
    }

    /// After the frame was painted: checks whether the running step is done (or failed,
    /// or timed out) and carries out the GPU steps.
    pub(crate) fn after_frame(&mut self, host: &mut dyn Host) {
        self.last_frame = Instant::now();
        let Some(mut running) = self.current.take() else {
            return;
        };
        running.frames += 1;
        match self.poll(host, &mut running) {
            Ok(true) => {
                log::info!(
                    "script step {} done in {:.2} s",
                    running.index,
                    running.started.elapsed().as_secs_f32()
                );
            }
            Ok(false) if running.started.elapsed() > self.step_timeout => {
                let (index, action) = (running.index, running.action.clone());
                self.fail(
                    index,
                    &action,
                    format!("timed out after {} s", self.step_timeout.as_secs_f32()),
                );
            }
            Ok(false) => self.current = Some(running),
            Err(e) => {
                let (index, action) = (running.index, running.action.clone());
                self.fail(index, &action, e);
            }
        }
    }

    /// Whether `running` is complete.
    fn poll(&mut self, host: &mut dyn Host, running: &mut Running) -> Result<bool, String> {
        match &running.action {
            Action::Open { spec } => {
                let state = host.state();
                if state.requests.open.is_some() || state.loader.loading.is_some() {
                    return Ok(false);
                }
                // A disc image or folder opens in the world tree only.
                let listed = state.worlds.source.as_deref() == Some(Path::new(spec));
                match &state.messages.load_error {
                    Some(e) => Err(e.clone()),
                    None if state.session.asset().is_none() && !listed => {
                        Err("nothing was opened".into())
                    }
                    None => Ok(running.frames >= 2),
                }
            }
            Action::PlayTo { seconds } => {
                let state = host.state();
                let t = state.session.clock.time;
                // The clock reached the time, or looped past it.
                if !state.session.clock.playing || t >= *seconds || t < running.last_time {
                    state.session.clock.time = *seconds;
                    state.session.clock.playing = false;
                    return Ok(true);
                }
                running.last_time = t;
                Ok(false)
            }
            Action::Resize { width, height } => {
                if host.window_size() == (*width, *height) {
                    running.counter += 1;
                } else {
                    running.counter = 0;
                }
                // The new size drawn, then laid out again.
                Ok(running.counter >= 3)
            }
            Action::Screenshot {
                path,
                width,
                height,
                transparent,
            } => {
                let size = sized(*width, *height, host.view_size());
                let line = host.screenshot_view(path, size, *transparent)?;
                log::info!("{line}");
                Ok(true)
            }
            Action::Turntable {
                path,
                frames,
                width,
                height,
                transparent,
            } => {
                let size = sized(*width, *height, host.view_size());
                let line = host.turntable(path, *frames, size, *transparent)?;
                log::info!("{line}");
                Ok(true)
            }
            Action::ScreenshotWindow { path } => match running.captured.take() {
                None => Ok(false),
                Some(Err(e)) => Err(e),
                Some(Ok(image)) => {
                    let ppp = host.pixels_per_point();
                    let state = host.state();
                    write_window_shot(&image, path, &state.layout, ppp, state)?;
                    Ok(true)
                }
            },
            Action::WaitFrames { frames } => Ok(running.frames >= *frames),
            Action::WaitIdle {} => {
                let busy = {
                    let pending = host.pipelines_pending();
                    let view = host.view_size();
                    let state = host.state();
                    let wanted = state
                        .requests
                        .viewport_size
                        .is_some_and(|(w, h)| (w, h) != view);
                    state.loader.loading.is_some()
                        || state.requests.open.is_some()
                        || (state.central.frame_pending && state.shows_model())
                        || pending
                        || wanted
                };
                running.counter = if busy { 0 } else { running.counter + 1 };
                Ok(running.counter >= 2)
            }
            // One frame shows the effect (a click's pick runs in the frame of the click;
            // the next draws its result).
            Action::Click { .. } | Action::ClickView { .. } | Action::Scroll { .. } => {
                Ok(running.frames >= 2)
            }
            _ => Ok(running.frames >= 1),
        }
    }
}

/// A screenshot size from optional width and height (a missing one keeps the view's
/// aspect ratio); None when neither is given.
fn sized(width: Option<u32>, height: Option<u32>, (vw, vh): (u32, u32)) -> Option<(u32, u32)> {
    let aspect = |a: u32, b: u32, x: u32| ((x as u64 * a as u64) / b.max(1) as u64) as u32;
    match (width, height) {
        (None, None) => None,
        (Some(w), Some(h)) => Some((w, h)),
        (Some(w), None) => Some((w, aspect(vh, vw, w).max(1))),
        (None, Some(h)) => Some((aspect(vw, vh, h).max(1), h)),
    }
}

/// Applies JSON Patch operations to the open model as one undoable edit.
fn apply_patch(
    state: &mut AppState,
    ops: &[json_patch::PatchOperation],
    label: &str,
) -> Result<(), String> {
    if state.session.document().is_none() {
        return Err(match state.session.read_only_note() {
            Some(note) if !note.is_empty() => note.to_owned(),
            _ => "the open file is not an editable model".into(),
        });
    }
    let change = state
        .session
        .apply_patch(ops, label)
        .map_err(|e| format!("patch refused: {e}"))?;
    state.document_changed(change);
    Ok(())
}

/// Writes the window PNG and, next to it, its layout report (`.json`).
fn write_window_shot(
    image: &RgbaImage,
    path: &Path,
    layout: &Layout,
    ppp: f32,
    state: &AppState,
) -> Result<(), String> {
    image.save_png(path).map_err(|e| e.to_string())?;
    let report = LayoutReport {
        window: [image.width, image.height],
        pixels_per_point: ppp,
        left: rect_px(layout.left, ppp),
        right: rect_px(layout.right, ppp),
        central: rect_px(layout.central, ppp),
        view: rect_px(layout.view, ppp),
        top: rect_px(layout.top, ppp),
        timeline: rect_px(layout.timeline, ppp),
        stage: rect_px(layout.stage, ppp),
        browser_dir: state.browser.dir.display().to_string(),
        browser_selected: state.browser.selected.clone(),
        selected_material: state
            .selected
            .edit
            .as_ref()
            .map(|_| state.session.selection.material),
        tinted_material: state.highlighted_material(),
        picked_material: state
            .picking
            .pick
            .as_ref()
            .and_then(|p| p.hit.as_ref())
            .map(|h| h.material),
        picked_world_model: state
            .picking
            .pick
            .as_ref()
            .and_then(|p| p.hit.as_ref())
            .zip(state.session.asset())
            .and_then(|(h, d)| crate::load::area::world_model_of(&d.world_models, h.surface))
            .map(|(wm, s)| [wm, s]),
        spec: state.session.asset().map(|d| d.spec.clone()),
        worlds_source: state
            .worlds
            .source
            .as_ref()
            .map(|p| p.display().to_string()),
        worlds_shown: state.worlds.shown,
        overview_world: state.worlds.overview.map(|o| o.world),
        fps: state.perf.frames.rate().map(|r| r.fps),
        frame_ms: state.perf.frames.rate().map(|r| r.frame_ms),
        strip_draws: state.perf.strip_draws,
    };
    let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
    let json_path = path.with_extension("json");
    crate::edit::write_atomically(&json_path, json.as_bytes())
        .map_err(|e| format!("{}: {e}", json_path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_action_and_names_bad_steps() {
        let text = r#"[
            {"action": "open", "spec": "demo.pak:room"},
            {"action": "wait_idle"},
            {"action": "select_material", "index": 2},
            {"action": "set", "path": "/material_sets/0/materials/0/konst_colors_rgba/0", "value": [1,2,3,4]},
            {"action": "patch", "ops": [{"op": "test", "path": "/material_sets/0/materials/0/flags", "value": 0}]},
            {"action": "play_to", "seconds": 1.5},
            {"action": "pause"},
            {"action": "resize", "width": 1000, "height": 700},
            {"action": "key", "keys": "ctrl+shift+z"},
            {"action": "click", "x": 10, "y": 20},
            {"action": "click_view", "x": 0.5, "y": 0.5},
            {"action": "lights", "lights": []},
            {"action": "light", "index": 0, "light": {"kind": "custom", "color": [1,0,0,1],
              "brightness": 2, "falloff": "linear", "cutoff_degrees": 0, "position": [0,0,0],
              "direction": [0,0,-1]}},
            {"action": "screenshot", "path": "a.png", "width": 3000, "height": 2000},
            {"action": "turntable", "path": "t.png", "frames": 4},
            {"action": "screenshot_window", "path": "w.png"},
            {"action": "save"},
            {"action": "save_as", "path": "out.CMDL"},
            {"action": "wait_frames", "frames": 3}
        ]"#;
        let steps = parse(text).expect("parses");
        assert_eq!(steps.len(), 19);
        assert_eq!(steps[10].name(), "click_view");
        let e = parse(r#"[{"action": "wait_idle"}, {"action": "resize", "width": 5}]"#)
            .expect_err("missing height");
        assert!(e.starts_with("step 1 (resize):"), "{e}");
        let e = parse(r#"[{"action": "fly"}]"#).expect_err("unknown");
        assert!(e.starts_with("step 0 (fly):"), "{e}");
        let e = parse(r#"[{"action": "key", "keys": "ctrl+nope"}]"#).expect_err("bad key");
        assert!(e.contains("unknown key"), "{e}");
        let e = parse(r#"[{"action": "pause", "extra": 1}]"#).expect_err("unknown field");
        assert!(e.starts_with("step 0 (pause):"), "{e}");
    }

    #[test]
    fn keys_parse_with_modifiers() {
        let (m, k) = parse_keys("ctrl+z").expect("parses");
        assert!(m.command && m.ctrl && !m.shift);
        assert_eq!(k, egui::Key::Z);
        assert_eq!(parse_keys("F1").expect("parses").1, egui::Key::F1);
        assert_eq!(parse_keys("f12").expect("parses").1, egui::Key::F12);
        assert_eq!(parse_keys("space").expect("parses").1, egui::Key::Space);
        let (m, _) = parse_keys("Ctrl+Shift+S").expect("parses");
        assert!(m.shift && m.command);
        assert!(parse_keys("ctrl").is_err());
        assert!(parse_keys("a+b").is_err());
    }

    #[test]
    fn missing_screenshot_sides_keep_the_view_aspect() {
        assert_eq!(sized(None, None, (400, 200)), None);
        assert_eq!(sized(Some(800), None, (400, 200)), Some((800, 400)));
        assert_eq!(sized(None, Some(100), (400, 200)), Some((200, 100)));
    }
}
