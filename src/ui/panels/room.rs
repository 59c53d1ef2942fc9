//! Room views: the fly camera's keys and the world model list.

use egui::{RichText, Ui};

use crate::camera::{CameraMode, FlyMove};
use crate::session::Session;
use crate::ui::parts::RoomPanel;

/// Fly mode's keys, read every frame the model view shows: WASD move, Q/Ctrl down,
/// E/Space up, Shift four times faster. Nothing moves while a text field has the keyboard
/// or Ctrl is part of a shortcut (Ctrl+S, Ctrl+Z …).
pub(super) fn fly_keys(ui: &Ui, state: &mut RoomPanel<'_>) {
    if state.session.camera.mode != CameraMode::Fly || ui.ctx().egui_wants_keyboard_input() {
        return;
    }
    use egui::Key;
    let (step, fast, dt) = ui.input(|i| {
        let down = |k: Key| if i.key_down(k) { 1.0 } else { 0.0 };
        let mut step = FlyMove {
            forward: down(Key::W) - down(Key::S),
            right: down(Key::D) - down(Key::A),
            up: down(Key::E) + down(Key::Space) - down(Key::Q),
        };
        if i.modifiers.ctrl || i.modifiers.command {
            if step.is_zero() && !i.keys_down.iter().any(|k| *k != Key::Space) {
                step.up = -1.0;
            } else {
                step = FlyMove::default();
            }
        }
        (step, i.modifiers.shift, i.stable_dt.clamp(0.0, 0.1))
    });
    if step.is_zero() {
        return;
    }
    let speed = state.session.camera.fly_speed * if fast { 4.0 } else { 1.0 };
    state.session.camera.orbit.fly(step, speed * dt);
    // Keep frames coming while a key is held.
    ui.ctx().request_repaint();
}

/// Fly mode's scroll: the speed, by a ratio per notch.
pub(super) fn fly_speed_scroll(state: &mut RoomPanel<'_>, scroll: f32) {
    state.session.camera.fly_speed =
        (state.session.camera.fly_speed * (scroll * 0.002).exp()).clamp(1e-4, 1e6);
}

/// Camera mode switch (and the fly speed) for the model bar.
pub(super) fn camera_switch(ui: &mut Ui, state: &mut RoomPanel<'_>) {
    let mut mode = state.session.camera.mode;
    for m in [CameraMode::Orbit, CameraMode::Fly] {
        ui.selectable_value(&mut mode, m, m.label())
            .on_hover_text(match m {
                CameraMode::Orbit => {
                    "Drag to turn around the model, right-drag to pan, scroll to zoom"
                }
                CameraMode::Fly => {
                    "Drag to look, WASD to move, Q/E or Ctrl/Space down/up, Shift faster, \
                 scroll to change the speed"
                }
            });
    }
    let aabb = crate::ui::state::model_aabb(state.session);
    state.session.camera.set_mode(mode, aabb.as_ref());
    if state.session.camera.mode == CameraMode::Fly {
        ui.weak(format!(
            "{} u/s",
            format_speed(state.session.camera.fly_speed)
        ));
    }
}

fn format_speed(s: f32) -> String {
    if s >= 100.0 {
        format!("{s:.0}")
    } else if s >= 1.0 {
        format!("{s:.1}")
    } else {
        format!("{s:.3}")
    }
}

/// A pick's hit in words: the surface and material, and in a room the world model the
/// surface belongs to with the surface's index within it.
pub(super) fn hit_words(session: &Session, hit: &crate::render::PickHit, set: usize) -> String {
    let world_model = session
        .asset()
        .and_then(|d| crate::load::area::world_model_of(&d.world_models, hit.surface));
    match world_model {
        Some((wm, s)) => format!(
            "world model {wm} · its surface {s} (surface {} of the room) · material {} (set {set})",
            hit.surface, hit.material
        ),
        None => format!(
            "surface {} · material {} (set {set})",
            hit.surface, hit.material
        ),
    }
}

/// The room's world models with visibility toggles: hiding one leaves its surfaces out of
/// drawing and picking (the scene keeps its buffers and pipelines).
pub(super) fn world_models_panel(ui: &mut Ui, state: RoomPanel<'_>) {
    let RoomPanel { session, view } = state;
    let world_models_visible = &mut view.world_models_visible;
    let Some(doc) = session.asset() else {
        return;
    };
    let parts = &doc.world_models;
    ui.horizontal(|ui| {
        ui.strong(format!("World models ({})", parts.len()));
    });
    ui.horizontal(|ui| {
        if ui.small_button("all").clicked() {
            world_models_visible.fill(true);
        }
        if ui.small_button("none").clicked() {
            world_models_visible.fill(false);
        }
    });
    ui.separator();
    egui::ScrollArea::vertical()
        .id_salt("world_models")
        .auto_shrink([false, false])
        .show(ui, |ui| {
            for (k, part) in parts.iter().enumerate() {
                let Some(visible) = world_models_visible.get_mut(k) else {
                    break;
                };
                ui.checkbox(
                    visible,
                    RichText::new(format!("#{}", part.index)).monospace(),
                )
                .on_hover_text(format!(
                    "world model {}: {} surfaces, {} triangles",
                    part.index,
                    part.surfaces.len(),
                    part.triangles
                ));
            }
        });
}
