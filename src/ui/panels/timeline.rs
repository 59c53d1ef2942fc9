//! The bottom bar: clock, animation choice and its frame controls (step, loop or once,
//! bind pose, skeleton overlay), view controls.

use egui::{RichText, Ui};

use crate::ui::document::{Content, Document};
use crate::ui::state::AppState;

pub(super) fn timeline(ui: &mut Ui, state: &mut AppState) {
    let animations: Vec<String> = state
        .model()
        .map(|(_, a, _)| a.iter().map(|a| a.name.clone()).collect())
        .unwrap_or_default();
    let duration = state.animation_duration();
    let timing = state.clip_timing().filter(|_| state.shows_model());
    if timing.is_some() && !ui.ctx().egui_wants_keyboard_input() {
        let (back, forward) = ui.input(|i| {
            (
                i.key_pressed(egui::Key::Comma),
                i.key_pressed(egui::Key::Period),
            )
        });
        if back || forward {
            state.step_frame(forward);
        }
    }
    let skinned = state.shows_model()
        && state
            .doc
            .as_ref()
            .and_then(|d| d.cpu_model())
            .is_some_and(|m| m.skin.is_some());
    ui.horizontal_wrapped(|ui| {
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
        if let Some(timing) = timing {
            if ui
                .button("<")
                .on_hover_text("Previous frame (,)")
                .clicked()
            {
                state.step_frame(false);
            }
            if ui.button(">").on_hover_text("Next frame (.)").clicked() {
                state.step_frame(true);
            }
            ui.label(RichText::new(timing.readout(state.settings.time)).monospace())
                .on_hover_text(format!(
                    "{} frames, one every {:.4} s",
                    timing.frame_count, timing.interval
                ));
            ui.selectable_value(&mut state.anim_view.looping, true, "loop")
                .on_hover_text("Play the clip over and over");
            ui.selectable_value(&mut state.anim_view.looping, false, "once")
                .on_hover_text("Play the clip once and stop at its end");
        }
        if skinned {
            ui.checkbox(&mut state.anim_view.bind_pose, "bind pose")
                .on_hover_text("Show the skin at its bind pose (the clip stays chosen)");
            ui.checkbox(&mut state.anim_view.skeleton, "skeleton")
                .on_hover_text("Draw the posed bones over the model; point at a joint for its name");
        }
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
        if state.shows_model() {
            // The model view's controls, always in sight but out of the picture's way.
            ui.separator();
            ui.weak(match state.camera_mode {
                crate::render::CameraMode::Orbit => {
                    "drag: rotate · right/middle-drag: pan · scroll: zoom · click: pick · F: frame · Space: play · , . : step"
                }
                crate::render::CameraMode::Fly => {
                    "drag: look · WASD: move · Q/E: down/up · Shift: faster · scroll: speed · click: pick · F: frame"
                }
            });
        }
    });
}
