//! What the app shell does with the UI's state each frame, apart from windowing: keyboard
//! shortcuts, carrying the state to the viewport, picking. Tests drive the viewport
//! through the same functions.

use crate::render::RenderContext;

use super::state::{AppState, ModelPick, ViewMode};
use std::sync::Arc;

use super::viewport::{SceneInputs, StageStrip, StripRequest, Viewport};

/// Keyboard shortcuts: undo/redo, save, open, quit, screenshot (the F1 overlay lists
/// them: `panels::menu::SHORTCUTS`).
pub(crate) fn shortcuts(ui: &egui::Ui, state: &mut AppState) {
    use egui::{Key, KeyboardShortcut, Modifiers};
    // Shift-less shortcuts also match with Shift held: the Shift ones are consumed first.
    let (redo, redo_y, undo, save_as, save, shot_dialog, shot) = ui.input_mut(|i| {
        let shift = Modifiers::COMMAND | Modifiers::SHIFT;
        (
            i.consume_shortcut(&KeyboardShortcut::new(shift, Key::Z)),
            i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND, Key::Y)),
            i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND, Key::Z)),
            i.consume_shortcut(&KeyboardShortcut::new(shift, Key::S)),
            i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND, Key::S)),
            i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND, Key::F12)),
            i.key_pressed(Key::F12),
        )
    });
    let (open, quit) = ui.input_mut(|i| {
        (
            i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND, Key::O)),
            i.consume_shortcut(&KeyboardShortcut::new(Modifiers::COMMAND, Key::Q)),
        )
    });
    if open {
        state.open_dialog();
    }
    if quit && state.request_close() {
        state.requests.exit = true;
    }
    if shot_dialog {
        state.screenshot.open = true;
    }
    if redo || redo_y {
        state.redo();
    } else if undo {
        state.undo();
    }
    if save_as {
        state.save_as_dialog();
    } else if save {
        state.save();
    }
    if shot && !shot_dialog {
        state.confirm_screenshot(false);
    }
}

/// Carries the UI's view state to the viewport: on `reload` the content (the model scene,
/// or the material quad / texture preview), then each frame the model view's inputs
/// (camera, clock, animation, lights, material set, the selected material's edit).
pub fn sync_view(viewport: &mut Viewport, ctx: &RenderContext, state: &AppState, reload: bool) {
    viewport.set_time(state.session.clock.time);
    if reload {
        let model = state.session.asset().and_then(|d| d.cpu_model());
        let selection = state.session.selection;
        let preview = state.aids.preview.zip(model).and_then(|(shape, model)| {
            model.material_preview(shape, selection.set, selection.material)
        });
        match (model, state.view.mode) {
            (Some(_), ViewMode::Model) if let Some(preview) = preview => {
                // The selected material alone on a shape: its only set and material.
                viewport.show_scene(ctx, &std::sync::Arc::new(preview), 0, tev_options(state));
            }
            (Some(model), ViewMode::Model) => {
                viewport.show_scene(ctx, model, selection.set, tev_options(state));
            }
            _ => match &state.selected.edit {
                Some(edit) => viewport.show_material(
                    ctx,
                    edit,
                    &state.current_textures(),
                    state.settings.sampling,
                ),
                None => viewport.clear_content(),
            },
        }
    }
    if state.shows_model() {
        let hidden = state.hidden_surfaces();
        let selection = state.session.selection;
        viewport.update_scene(ctx, &scene_inputs(state, hidden.as_deref().unwrap_or(&[])));
        // A of the A/B split: the model as opened (on the preview shape when previewing).
        let opened = || {
            let model = state.session.opened_model()?;
            match state.aids.preview {
                Some(shape) => model
                    .material_preview(shape, selection.set, selection.material)
                    .map(std::sync::Arc::new),
                None => Some(model),
            }
        };
        let compare: Option<(f32, &dyn Fn() -> _)> = state
            .aids
            .compare
            .then_some((state.aids.split, &opened as _));
        viewport.set_compare(ctx, compare);
    } else {
        viewport.set_compare(ctx, None);
    }
}

/// The TEV switches with the View menu's debug view.
fn tev_options(state: &AppState) -> crate::gx::tev::TevOptions {
    crate::gx::tev::TevOptions {
        debug: state.aids.debug,
        ..state.tev_options
    }
}

/// What the model view (and the stage strip) take from the state this frame.
fn scene_inputs<'a>(state: &'a AppState, hidden: &'a [bool]) -> SceneInputs<'a> {
    let selection = state.session.selection;
    let previewing = state.aids.preview.is_some();
    SceneInputs {
        camera: state.session.camera.orbit,
        time: state.session.clock.time,
        animation: state.anim_view.posed_animation(&state.session),
        lights: &state.session.lights.set,
        lights_revision: state.session.lights.revision,
        material_set: if previewing { 0 } else { selection.set },
        tev: tev_options(state),
        materials: state.session.asset().and_then(|d| {
            let crate::session::Content::Model { sets, .. } = &d.content else {
                return None;
            };
            let materials = &sets.get(selection.set)?.materials[..];
            // A shape preview draws the selected material as its material 0.
            let materials = if previewing {
                materials.get(selection.material..selection.material + 1)?
            } else {
                materials
            };
            Some((state.session.revision(), materials))
        }),
        selected: (state.selected.edit.as_ref())
            .map(|_| if previewing { 0 } else { selection.material }),
        highlight: state.highlighted_material().filter(|_| !previewing),
        hidden_surfaces: if previewing { &[] } else { hidden },
        stage_view: state.strip.view,
    }
}

/// The stage strip of the selected material, while it is open and a model is shown (on
/// the preview shape during a shape preview): builds or drops its thumbnails, redraws
/// those on screen that are out of date, and hands their textures to the state.
pub fn sync_strip(
    strip: &mut StageStrip,
    ctx: &RenderContext,
    egui_renderer: &mut egui_wgpu::Renderer,
    state: &mut AppState,
) {
    let request = state
        .session
        .asset()
        .and_then(|d| d.cpu_model())
        .filter(|_| state.strip.open && state.shows_model() && state.selected.edit.is_some())
        .and_then(|model| {
            let (set, material) = (
                state.session.selection.set,
                state.session.selection.material,
            );
            let gx = model
                .material_sets
                .get(set)?
                .materials
                .get(material)?
                .gx
                .as_ref()
                .ok()?;
            // The document's edits may change the stages before the model does.
            let edited = state
                .session
                .asset()
                .and_then(|d| d.material(set, material));
            let stages = edited.map_or(&gx.stages, |e| &e.material.stages);
            let raster_channels =
                [0, 1].map(|c| stages.iter().any(|s| s.raster.channel() == Some(c)));
            let stages = stages.len();
            // A shape preview draws the selected material as the shape's only material.
            let (model, set, material) = match state.aids.preview {
                Some(shape) => (strip.preview_model(model, shape, set, material)?, 0, 0),
                None => (Arc::clone(model), set, material),
            };
            Some(StripRequest {
                model,
                material_set: set,
                material,
                stages,
                raster_channels,
            })
        });
    match request {
        Some(request) => {
            let hidden = state.hidden_surfaces();
            strip.update(
                ctx,
                egui_renderer,
                &request,
                &scene_inputs(state, hidden.as_deref().unwrap_or(&[])),
                state.perf.strip_shown.as_ref(),
            );
        }
        None => strip.clear(egui_renderer),
    }
    state.strip.thumbs = strip.textures();
    state.strip.raster_thumbs = strip.raster_textures();
    state.perf.strip_draws = strip.draws;
}

/// A click on the model at target pixel (x, y): the surface under it selects its
/// material, and the inspector gets the hit and the displayed pixel.
pub fn pick(viewport: &mut Viewport, ctx: &RenderContext, state: &mut AppState, x: u32, y: u32) {
    match viewport.pick(ctx, x, y) {
        Some(Ok((hit, rgba))) => {
            let set = state.session.selection.set;
            // A shape preview's only material is the selected one.
            if let Some(h) = hit
                && state.aids.preview.is_none()
                && h.material != state.session.selection.material
            {
                state.select_material(set, h.material);
            }
            state.picking.pick = Some(ModelPick {
                x,
                y,
                set,
                hit,
                rgba,
                camera: state.session.camera.orbit,
            });
        }
        Some(Err(e)) => state.messages.load_error = Some(format!("pick failed: {e}")),
        None => {}
    }
}
