//! The bottom bar: clock, animation choice and its frame controls (step, loop or once,
//! bind pose, skeleton overlay), view controls.

use egui::{RichText, Ui};

use crate::session::{Asset, Content};
use crate::ui::parts::TimelinePanel;

/// The animation choice's width (points).
pub(super) const ANIMATION_COMBO_WIDTH: f32 = 160.0;
/// The frame readout at its widest (see [`crate::ui::animation::ClipTiming::readout`]):
/// its box keeps this width whatever the clip and time.
const READOUT_WIDEST: &str = "Frame 8888 / 8888 (888.888 s)";

pub(super) fn timeline(ui: &mut Ui, state: TimelinePanel<'_>) {
    let animations: Vec<String> = match state.session.asset() {
        Some(Asset {
            content: Content::Model { animations, .. },
            ..
        }) => animations.iter().map(|a| a.name.clone()).collect(),
        _ => Vec::new(),
    };
    let duration = crate::ui::animation::animation_duration(state.session);
    let timing = crate::ui::animation::clip_timing(state.session).filter(|_| state.shows_model);
    if timing.is_some() && !ui.ctx().egui_wants_keyboard_input() {
        let (back, forward) = ui.input(|i| {
            (
                i.key_pressed(egui::Key::Comma),
                i.key_pressed(egui::Key::Period),
            )
        });
        if back || forward {
            state.anim_view.step_frame(state.session, forward);
        }
    }
    let skinned = state.shows_model
        && state
            .session
            .asset()
            .and_then(|d| d.cpu_model())
            .is_some_and(|m| m.skin.is_some());
    ui.horizontal_wrapped(|ui| {
        let label = if state.session.clock.playing { "Pause" } else { "Play" };
        if ui
            .button(label)
            .on_hover_text("Play or pause the clock (Space)")
            .clicked()
        {
            state.session.clock.playing = !state.session.clock.playing;
        }
        if ui.button("Rewind").on_hover_text("Back to 0 s").clicked() {
            state.session.clock.time = 0.0;
        }
        let clips = !animations.is_empty() && state.shows_model;
        if clips {
            ui.label("Animation");
            let current = state
                .session
                .clock
                .animation
                .and_then(|a| animations.get(a))
                .map_or("bind pose", String::as_str);
            // A fixed width (long names are cut; hover shows them), so choosing another
            // clip never moves what follows.
            fixed_width(ui, ANIMATION_COMBO_WIDTH, |ui| {
                egui::ComboBox::from_id_salt("animation")
                    .selected_text(current)
                    .width(ANIMATION_COMBO_WIDTH)
                    .truncate()
                    .show_ui(ui, |ui| {
                        if ui
                            .selectable_label(state.session.clock.animation.is_none(), "bind pose")
                            .clicked()
                        {
                            state.session.clock.animation = None;
                        }
                        for (i, name) in animations.iter().enumerate() {
                            if ui
                                .selectable_label(state.session.clock.animation == Some(i), name)
                                .clicked()
                            {
                                state.session.clock.animation = Some(i);
                                state.session.clock.time = 0.0;
                            }
                        }
                    })
                    .response
                    .on_hover_text(current);
            });
        }
        let range = match duration.filter(|_| state.shows_model) {
            Some(d) => 0.0..=f64::from(d.max(1e-3)),
            None => 0.0..=60.0,
        };
        // The time's box fits the widest value, whatever the clip's length.
        let slider = ui.spacing().slider_width
            + 2.0 * (ui.spacing().item_spacing.x + ui.spacing().button_padding.x)
            + text_width(ui, "888.888 s", egui::TextStyle::Body);
        fixed_width(ui, slider, |ui| {
            ui.add(
                egui::Slider::new(&mut state.session.clock.time, range)
                    .text("s")
                    .fixed_decimals(3)
                    .clamping(egui::SliderClamping::Never),
            )
        });
        // A character's frame controls stay in place (greyed at the bind pose), in a
        // readout as wide as the widest one, so nothing after them moves either.
        if clips || timing.is_some() {
            let on = timing.is_some();
            if ui
                .add_enabled(on, egui::Button::new("<"))
                .on_hover_text("Previous frame (,)")
                .clicked()
            {
                state.anim_view.step_frame(state.session, false);
            }
            if ui
                .add_enabled(on, egui::Button::new(">"))
                .on_hover_text("Next frame (.)")
                .clicked()
            {
                state.anim_view.step_frame(state.session, true);
            }
            let widest = text_width(ui, READOUT_WIDEST, egui::TextStyle::Monospace);
            let readout = timing.map_or_else(String::new, |t| t.readout(state.session.clock.time));
            let r = fixed_width(ui, widest, |ui| {
                ui.label(RichText::new(readout).monospace())
            });
            if let Some(timing) = timing {
                r.on_hover_text(format!(
                    "{} frames, one every {:.4} s",
                    timing.frame_count, timing.interval
                ));
            }
            for (looping, text, hint) in [
                (true, "loop", "Play the clip over and over"),
                (false, "once", "Play the clip once and stop at its end"),
            ] {
                let selected = state.anim_view.looping == looping;
                if ui
                    .add_enabled(on, egui::Button::selectable(selected, text))
                    .on_hover_text(hint)
                    .clicked()
                {
                    state.anim_view.looping = looping;
                }
            }
        }
        if skinned {
            ui.checkbox(&mut state.anim_view.bind_pose, "bind pose")
                .on_hover_text("Show the skin at its bind pose (the clip stays chosen)");
            ui.checkbox(&mut state.anim_view.skeleton, "skeleton")
                .on_hover_text("Draw the posed bones over the model; point at a joint for its name");
        }
        ui.add(
            egui::DragValue::new(&mut state.session.clock.speed)
                .range(-8.0..=8.0)
                .speed(0.05)
                .prefix("speed ×"),
        );
        let anims = if state.shows_model {
            match state.session.asset() {
                Some(Asset {
                    content: Content::Model { sets, .. },
                    ..
                }) => sets.get(state.session.selection.set).map_or(0, |s| {
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
                .selected
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
        if state.shows_model {
            // The model view's controls, always in sight but out of the picture's way.
            ui.separator();
            ui.weak(match state.session.camera.mode {
                crate::camera::CameraMode::Orbit => {
                    "drag: rotate · right/middle-drag: pan · scroll: zoom · click: pick · F: frame · Space: play · , . : step"
                }
                crate::camera::CameraMode::Fly => {
                    "drag: look · WASD: move · Q/E: down/up · Shift: faster · scroll: speed · click: pick · F: frame"
                }
            });
        }
    });
}

/// `add` in a box exactly `width` points wide (wider only if its content is), so what
/// follows stays in place when the content's width changes.
fn fixed_width<R>(ui: &mut Ui, width: f32, add: impl FnOnce(&mut Ui) -> R) -> R {
    let size = egui::vec2(width, ui.spacing().interact_size.y);
    ui.allocate_ui_with_layout(
        size,
        egui::Layout::left_to_right(egui::Align::Center),
        |ui| {
            ui.set_min_size(size);
            add(ui)
        },
    )
    .inner
}

/// The width of `text` in `style`, on one line.
fn text_width(ui: &Ui, text: &str, style: egui::TextStyle) -> f32 {
    let font = style.resolve(ui.style());
    ui.ctx()
        .fonts_mut(|f| f.layout_no_wrap(text.into(), font, egui::Color32::WHITE))
        .size()
        .x
}
