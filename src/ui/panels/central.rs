//! The central view: the viewport image (with the skeleton overlay), the model bar and the
//! texture strip; a TXTR, or a clicked texture map, shows in the texture view instead.

use egui::{Color32, RichText, Ui};

use crate::session::Content;
use crate::session::LightChoice;
use crate::ui::state::{AppState, RightTab, ViewMode};
use crate::ui::texture_view::shown_texture;

pub(super) fn central(ui: &mut Ui, state: &mut AppState) {
    let ppp = ui.ctx().pixels_per_point();
    let Some(doc) = state.session.asset() else {
        let avail = ui.available_size();
        let side = (avail.x - 16.0).min(avail.y - 40.0).max(32.0);
        state.requests.viewport_size = Some(((side * ppp) as u32, (side * ppp) as u32));
        ui.centered_and_justified(|ui| {
            ui.label(
                RichText::new(format!(
                    "Open a {} (or a PAK) from the file browser, drop a file on\n\
                     the window, or type a spec (file.pak:0xID) in the Open field.",
                    crate::load::AssetKind::openable_list()
                ))
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
    let flying = model_view && state.session.camera.mode == crate::camera::CameraMode::Fly;
    // Space flies up in fly mode; elsewhere it plays and pauses.
    if !flying
        && ui.input(|i| i.key_pressed(egui::Key::Space))
        && !ui.ctx().egui_wants_keyboard_input()
    {
        state.session.clock.playing = !state.session.clock.playing;
    }
    if model_view {
        super::room::fly_keys(ui, &mut state.room_panel());
    }
    if model_view && state.session.asset().is_some_and(|d| d.is_room()) {
        egui::Panel::right("world_models_panel")
            .resizable(true)
            .default_size(150.0)
            .min_size(100.0)
            .show(ui, |ui| {
                super::room::world_models_panel(ui, state.room_panel())
            });
    }

    // Room for the thumbnail strip when the selection has textures.
    let strip = if state.texture_count() == 0 {
        0.0
    } else {
        130.0
    };
    if is_model
        && state.texture_view.slot.is_some()
        && state.session.asset().is_none_or(|d| {
            shown_texture(
                d,
                state.session.selection.set,
                state.session.selection.material,
                state.texture_view.slot,
            )
            .is_none()
        })
    {
        // The clicked map is gone (another material, a missing texture): the model again.
        state.texture_view.show_slot(None);
    }
    if !is_model || state.texture_view.slot.is_some() {
        let reserve = if is_model { strip } else { 0.0 };
        let asked =
            super::texture::texture_panel(ui, &state.session, &mut state.texture_view, reserve);
        texture_asks(state, &asked);
        if is_model {
            texture_strip(ui, state);
        }
        return;
    }
    let avail = ui.available_size();
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
    let Some((tex, [w, h])) = state.central.texture else {
        return;
    };
    if model_view && state.central.frame_pending && (w, h) == want {
        state.frame_model();
        state.central.frame_pending = false;
    } else if model_view && (w, h) == want {
        state.keep_framed([w, h]);
    }
    let size = egui::vec2(w as f32 / ppp, h as f32 / ppp);
    ui.vertical_centered(|ui| {
        let (rect, response) = ui.allocate_exact_size(size, egui::Sense::click_and_drag());
        // On whole pixels, one texel per pixel: exact, and the window copies it instead
        // of sampling it (see `ui::compositor`).
        let rect =
            egui::Rect::from_min_size((rect.min.to_vec2() * ppp).round().to_pos2() / ppp, size);
        state.layout.view = Some(rect);
        // A plain textured rect (no anti-aliased rim as an `egui::Image` has).
        let whole = egui::Rect::from_min_max(egui::Pos2::ZERO, egui::pos2(1.0, 1.0));
        ui.painter().image(tex, rect, whole, egui::Color32::WHITE);
        if model_view && state.aids.compare {
            crate::ui::view_aids::paint_split(ui.painter(), rect, w, state.aids.split, ppp);
        }
        let pixel_at = |pos: egui::Pos2| {
            let rel = (pos - rect.min) * ppp;
            let (x, y) = (rel.x.floor(), rel.y.floor());
            (x >= 0.0 && y >= 0.0 && (x as u32) < w && (y as u32) < h)
                .then_some((x as u32, y as u32))
        };
        if model_view {
            let d = response.drag_delta() * ppp;
            if response.dragged_by(egui::PointerButton::Primary) {
                if flying {
                    state.session.camera.orbit.look(d.x, d.y);
                } else {
                    state.session.camera.orbit.orbit(d.x, d.y);
                }
            } else if response.dragged_by(egui::PointerButton::Secondary)
                || response.dragged_by(egui::PointerButton::Middle)
            {
                state.session.camera.orbit.pan(d.x, d.y, h as f32);
            }
            if response.hovered() {
                let scroll = ui.input(|i| i.smooth_scroll_delta.y);
                if scroll != 0.0 && flying {
                    super::room::fly_speed_scroll(&mut state.room_panel(), scroll);
                } else if scroll != 0.0 {
                    state.session.camera.orbit.zoom(scroll);
                }
            }
            if response.clicked()
                && let Some(p) = response.interact_pointer_pos().and_then(pixel_at)
            {
                state.requests.pick = Some(p);
                // The picked material opens in the editor at once.
                state.tab = RightTab::Material;
            }
            if let Some(p) = state
                .picking
                .pick
                .as_ref()
                .filter(|p| p.camera == state.session.camera.orbit)
            {
                let c = rect.min + egui::vec2(p.x as f32 + 0.5, p.y as f32 + 0.5) / ppp;
                ui.painter()
                    .circle_stroke(c, 5.0, egui::Stroke::new(1.5, Color32::YELLOW));
                // What was picked, beside the marker (the editor tab shows the material).
                if let Some(hit) = &p.hit {
                    let words = super::room::hit_words(&state.session, hit, p.set);
                    let galley = ui.painter().layout_no_wrap(
                        words,
                        egui::FontId::proportional(13.0),
                        Color32::WHITE,
                    );
                    let at = egui::pos2(
                        (c.x + 10.0)
                            .min(rect.max.x - galley.size().x - 4.0)
                            .max(rect.min.x),
                        c.y + 8.0,
                    );
                    let back = egui::Rect::from_min_size(at, galley.size()).expand(3.0);
                    ui.painter()
                        .rect_filled(back, 3.0, Color32::from_black_alpha(190));
                    ui.painter().galley(at, galley, Color32::WHITE);
                }
            }
            // Placed by the snapped rectangle the image and picking use.
            super::skeleton::skeleton_overlay(
                ui,
                &state.session,
                &state.anim_view,
                rect,
                [w, h],
                ppp,
            );
            super::lights::gizmos(ui, &mut state.lights_panel(), rect);
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
            .selected
            .report
            .as_ref()
            .filter(|_| state.settings.orbit.is_none())
        {
            // Mark the inspected pixel.
            let p = rect.min + egui::vec2(r.x as f32 + 0.5, r.y as f32 + 0.5) / ppp;
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
    // Warnings live in the log panel (the status bar counts them).
    let Some(doc) = state.session.asset() else {
        return;
    };
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
    ui.horizontal_wrapped(|ui| {
        ui.add_space(8.0);
        let before = state.view.mode;
        ui.selectable_value(&mut state.view.mode, ViewMode::Model, "Model")
            .on_hover_text("The whole model, lit and animated");
        ui.selectable_value(
            &mut state.view.mode,
            ViewMode::MaterialQuad,
            "Material quad",
        )
        .on_hover_text("The selected material on a flat quad (pixel-exact CPU trace)");
        if state.view.mode != before {
            state.requests.reload_view = true;
        }
        if state.view.mode != ViewMode::Model {
            return;
        }
        ui.separator();
        ui.label("Lights");
        let mut choice = None;
        egui::ComboBox::from_id_salt("lights")
            .selected_text(state.session.lights.choice.label().to_string())
            .width(180.0)
            .show_ui(ui, |ui| {
                let mut options = vec![LightChoice::basic(), LightChoice::none()];
                options.extend(
                    areas
                        .iter()
                        .map(|(l, s)| LightChoice::area(format!("area: {l}"), s.clone(), 0)),
                );
                for o in options {
                    if ui
                        .selectable_label(state.session.lights.choice == o, o.label())
                        .clicked()
                    {
                        choice = Some(o);
                    }
                }
            })
            .response
            .on_hover_text("basic preset, no lights, or an MREA's first light layer");
        if let Some(c) = choice
            && c != state.session.lights.choice
        {
            state.set_lights(c);
        }
        ui.separator();
        super::room::camera_switch(ui, &mut state.room_panel());
        let room = state.session.asset().is_some_and(|d| d.is_room());
        if ui
            .button(if room { "Frame room" } else { "Frame model" })
            .on_hover_text("Point the camera at the whole model (F)")
            .clicked()
        {
            state.frame_model();
        }
        ui.checkbox(&mut state.prefs.tint_selection, "tint selection")
            .on_hover_text("Tint the selected material's surfaces (never in screenshots)");
    });
}

/// The selection's texture maps as thumbnails under the viewport; a click shows one in the
/// texture view (a second click, the model again).
/// Does what the texture view's toolbar asked for.
fn texture_asks(state: &mut AppState, asked: &super::texture::Asked) {
    if asked.back_to_model {
        state.texture_view.show_slot(None);
    }
    if asked.export_dialog {
        state.export_shown_level_dialog();
    }
    if asked.export_typed {
        let path = std::path::PathBuf::from(state.texture_view.export_text.trim());
        state.export_shown_level(&path);
    }
}

fn texture_strip(ui: &mut Ui, state: &mut AppState) {
    if state.selected.thumbnails.is_none() {
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
        state.selected.thumbnails = Some(thumbs);
    }
    let Some(thumbs) = &state.selected.thumbnails else {
        return;
    };
    if thumbs.is_empty() {
        return;
    }
    let ids = state
        .session
        .asset()
        .and_then(|d| {
            d.material(
                state.session.selection.set,
                state.session.selection.material,
            )
        })
        .map(|m| m.texture_ids.clone())
        .unwrap_or_default();
    let place = state
        .session
        .asset()
        .map_or_else(String::new, |d| d.texture_place());
    let open = state.texture_view.slot;
    let mut clicked = None;
    ui.horizontal_wrapped(|ui| {
        ui.add_space(8.0);
        for (k, thumb) in thumbs.iter().enumerate() {
            ui.vertical(|ui| {
                match thumb {
                    Some((handle, [w, h])) => {
                        let scale = 96.0 / (*w).max(*h) as f32;
                        let size = egui::vec2(*w as f32 * scale, *h as f32 * scale);
                        let (rect, response) = ui.allocate_exact_size(size, egui::Sense::click());
                        super::checker::alpha_checker(ui, rect, 8.0);
                        egui::Image::new((handle.id(), size)).paint_at(ui, rect);
                        if open == Some(k) {
                            ui.painter().rect_stroke(
                                rect.expand(2.0),
                                0.0,
                                egui::Stroke::new(2.0, Color32::from_rgb(80, 220, 255)),
                                egui::StrokeKind::Outside,
                            );
                        }
                        let hint = if open == Some(k) {
                            "click: back to the model"
                        } else {
                            "click: open in the texture view"
                        };
                        if response
                            .on_hover_text(format!("{w}x{h} · {hint}"))
                            .clicked()
                        {
                            clicked = Some(k);
                        }
                    }
                    None => {
                        // Drawn as the model view draws it: the engine's checker.
                        let (rect, response) =
                            ui.allocate_exact_size(egui::vec2(96.0, 96.0), egui::Sense::hover());
                        super::checker::missing_checker(ui, rect);
                        ui.painter().text(
                            rect.center(),
                            egui::Align2::CENTER_CENTER,
                            "missing",
                            egui::FontId::proportional(13.0),
                            Color32::WHITE,
                        );
                        let id = ids.get(k).copied().flatten();
                        response.on_hover_text(match id {
                            Some(id) => format!(
                                "TXTR {} was looked for in {place}",
                                crate::session::asset::texture_id_text(id)
                            ),
                            None => "the slot names no texture".to_string(),
                        });
                    }
                }
                let id = ids
                    .get(k)
                    .copied()
                    .flatten()
                    .map_or_else(String::new, |id| {
                        format!(" {}", crate::session::asset::texture_id_text(id))
                    });
                if thumb.is_none() {
                    ui.small(
                        RichText::new(format!("map {k}{id} missing"))
                            .color(Color32::from_rgb(255, 110, 110)),
                    );
                } else {
                    ui.small(format!("map {k}{id}"));
                }
            });
        }
    });
    if let Some(k) = clicked {
        state.texture_view.show_slot((open != Some(k)).then_some(k));
    }
}
