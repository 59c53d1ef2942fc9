//! The texture view: a TXTR, or a texture map of the selected material, at its true aspect
//! ratio with zoom and pan, mip level, channel view, sampling, the texel under the cursor
//! and PNG export of the shown level. The math and state are in [`crate::ui::texture_view`].

use egui::{Color32, RichText, Ui};

use crate::session::Session;
use crate::ui::texture_view::{
    Channels, ShownKey, TextureView, fit_zoom, image_rect, mip_levels, shown_texture, texel_at,
};

/// What the toolbar asked for that the caller does (an export writes a file and reports
/// on the message line).
#[derive(Default)]
pub(super) struct Asked {
    pub back_to_model: bool,
    pub export_dialog: bool,
    pub export_typed: bool,
}

/// Draws the texture view of the session's selection (or TXTR) in the space left, keeping
/// `reserve_below` points free under it.
pub(super) fn texture_panel(
    ui: &mut Ui,
    session: &Session,
    view: &mut TextureView,
    reserve_below: f32,
) -> Asked {
    let mut asked = Asked::default();
    let Some(doc) = session.asset() else {
        return asked;
    };
    let Some(shown) = shown_texture(
        doc,
        session.selection.set,
        session.selection.material,
        view.slot,
    ) else {
        return asked;
    };
    let texture = shown.texture;
    let levels = mip_levels(texture);
    view.level = view.level.min(levels.len().saturating_sub(1));
    let ppp = ui.ctx().pixels_per_point();

    ui.horizontal_wrapped(|ui| {
        ui.add_space(8.0);
        if view.slot.is_some() {
            if ui
                .button("Back to 3D view")
                .on_hover_text("Show the model again (or click the thumbnail)")
                .clicked()
            {
                asked.back_to_model = true;
            }
            let id = shown
                .id
                .map_or_else(String::new, |id| format!(" · TXTR 0x{id:08X}"));
            ui.strong(format!("map {}{id}", shown.slot));
            ui.separator();
        }
        ui.label("Mip");
        egui::ComboBox::from_id_salt("texture_level")
            .selected_text(level_name(levels[view.level]))
            .show_ui(ui, |ui| {
                for &l in &levels {
                    ui.selectable_value(&mut view.level, l.0, level_name(l));
                }
            })
            .response
            .on_hover_text(format!("{} mip levels decoded", levels.len()));
        ui.separator();
        for c in Channels::ALL {
            ui.selectable_value(&mut view.channels, c, c.label())
                .on_hover_text(c.hint());
        }
        ui.separator();
        ui.selectable_value(&mut view.filtered, false, "nearest")
            .on_hover_text("Each texel a sharp square");
        ui.selectable_value(&mut view.filtered, true, "filtered")
            .on_hover_text("Bilinear filtering between texels");
    });
    // The mip combo may have chosen another level.
    let (w, h) = texture.level_size(view.level);
    ui.horizontal_wrapped(|ui| {
        ui.add_space(8.0);
        // The canvas is laid out below: its fit from the last frame.
        let fitted = fit_zoom([w, h], view.canvas);
        let zoom = view.zoom.unwrap_or(fitted);
        if ui.button("−").on_hover_text("Zoom out").clicked() {
            view.zoom_by(0.5, [0.0; 2], fitted);
        }
        ui.label(RichText::new(format!("{:>6.0} %", zoom * ppp * 100.0)).monospace())
            .on_hover_text("Screen pixels per texel × 100");
        if ui.button("+").on_hover_text("Zoom in").clicked() {
            view.zoom_by(2.0, [0.0; 2], fitted);
        }
        if ui
            .selectable_label(view.zoom.is_none(), "Fit")
            .on_hover_text("The whole texture in the view (double-click)")
            .clicked()
        {
            view.fit();
        }
        if ui
            .button("1:1")
            .on_hover_text("One texel per screen pixel")
            .clicked()
        {
            view.one_to_one(ppp);
        }
        ui.separator();
        if ui
            .button("Export PNG…")
            .on_hover_text("The shown mip level, exactly as decoded (RGBA8)")
            .clicked()
        {
            // The default name follows the level until the user types another.
            let default = shown.export_path(doc, view.level).display().to_string();
            if view.export_text.trim().is_empty() || view.export_text == view.export_default {
                view.export_text = default.clone();
            }
            view.export_default = default;
            asked.export_dialog = true;
        }
        if let Some(Err(e)) = &view.export_result {
            ui.colored_label(Color32::from_rgb(255, 110, 110), e);
        }
    });
    if view.export_open {
        ui.horizontal(|ui| {
            ui.add_space(8.0);
            ui.label("Export to:");
            let edit = ui.add(
                egui::TextEdit::singleline(&mut view.export_text)
                    .desired_width((ui.available_width() - 140.0).max(120.0)),
            );
            let enter = edit.lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
            if (ui.button("Write").clicked() || enter) && !view.export_text.trim().is_empty() {
                asked.export_typed = true;
            }
            if ui.button("Cancel").clicked() {
                view.export_open = false;
            }
        });
    }
    // The readout line is drawn after the canvas (it needs the pointer), in space kept here.
    let readout_height = ui.text_style_height(&egui::TextStyle::Monospace) + 6.0;
    let avail = ui.available_size();
    let canvas_size = egui::vec2(
        (avail.x - 16.0).max(32.0),
        (avail.y - reserve_below - readout_height - 8.0).max(32.0),
    );
    let mut readout = String::new();
    ui.horizontal(|ui| {
        ui.add_space(8.0);
        let (canvas, response) = ui.allocate_exact_size(canvas_size, egui::Sense::click_and_drag());
        view.canvas = [canvas.width(), canvas.height()];
        let fitted = fit_zoom([w, h], view.canvas);
        if response.double_clicked() {
            view.fit();
        }
        if response.dragged() {
            let d = response.drag_delta();
            view.zoom.get_or_insert(fitted);
            view.pan = [view.pan[0] + d.x, view.pan[1] + d.y];
        }
        if let Some(pos) = response.hover_pos() {
            let (scroll, pinch) = ui.input(|i| (i.smooth_scroll_delta.y, i.zoom_delta()));
            let factor = (scroll * 0.003).exp() * pinch;
            if factor != 1.0 {
                let anchor = pos - canvas.center();
                view.zoom_by(factor, [anchor.x, anchor.y], fitted);
            }
        }
        let zoom = view.zoom.unwrap_or(fitted);
        let (min, extent) = image_rect([w, h], zoom, view.pan, [canvas.center().x, canvas.center().y]);
        let image = egui::Rect::from_min_size(min.into(), extent.into());
        let painter = ui.painter_at(canvas);
        painter.rect_filled(canvas, 0.0, Color32::from_gray(32));
        if view.channels.uses_alpha() {
            let visible = image.intersect(canvas);
            if visible.is_positive() {
                super::checker::alpha_checker(ui, visible, 8.0);
            }
        }
        let handle = upload(ui.ctx(), session, view, texture);
        painter.image(
            handle,
            image,
            egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0)),
            Color32::WHITE,
        );
        painter.rect_stroke(
            image,
            0.0,
            egui::Stroke::new(1.0, Color32::from_gray(110)),
            egui::StrokeKind::Outside,
        );
        if let Some(pos) = response.hover_pos()
            && let Some((x, y)) = texel_at([pos.x, pos.y], min, zoom, [w, h])
            && let Some(rgba) = texture.level_texel(view.level, x, y)
        {
            let [r, g, b, a] = rgba;
            readout = format!(
                "x {x:>4}, y {y:>4}   RGBA {r:>3} {g:>3} {b:>3} {a:>3}   #{r:02X}{g:02X}{b:02X}{a:02X}"
            );
            if zoom >= 6.0 {
                let texel = egui::Rect::from_min_size(
                    egui::pos2(min[0] + x as f32 * zoom, min[1] + y as f32 * zoom),
                    egui::vec2(zoom, zoom),
                );
                painter.rect_stroke(
                    texel,
                    0.0,
                    egui::Stroke::new(1.0, Color32::YELLOW),
                    egui::StrokeKind::Inside,
                );
            }
        }
    });
    ui.horizontal(|ui| {
        ui.add_space(8.0);
        let text = if readout.is_empty() {
            format!(
                "level {} · {w}x{h} · point at a texel to read it · drag: pan · scroll: zoom · double-click: fit",
                view.level
            )
        } else {
            readout
        };
        ui.label(RichText::new(text).monospace());
    });
    asked
}

fn level_name((level, w, h): (usize, u32, u32)) -> String {
    format!("{level}: {w}x{h}")
}

/// The egui texture of the current view: uploaded again only when what is shown changed
/// (texture, level, channel view or sampling).
fn upload(
    ctx: &egui::Context,
    session: &Session,
    view: &mut TextureView,
    texture: &crate::model::TextureData,
) -> egui::TextureId {
    let (w, h) = texture.level_size(view.level);
    let key = ShownKey {
        doc_revision: session.revision(),
        set: session.selection.set,
        material: session.selection.material,
        slot: view.slot.unwrap_or(0),
        level: view.level,
        channels: view.channels,
        filtered: view.filtered,
    };
    match &view.cached {
        Some((k, handle)) if *k == key => handle.id(),
        _ => {
            let pixels = view.channels.convert_level(
                texture
                    .levels
                    .get(view.level)
                    .map_or(&[][..], Vec::as_slice),
            );
            let image = if pixels.len() == (w * h * 4) as usize {
                egui::ColorImage::from_rgba_unmultiplied([w as usize, h as usize], &pixels)
            } else {
                egui::ColorImage::filled([1, 1], Color32::TRANSPARENT)
            };
            let options = if view.filtered {
                egui::TextureOptions::LINEAR
            } else {
                egui::TextureOptions::NEAREST
            };
            let handle = ctx.load_texture("texture view", image, options);
            let id = handle.id();
            view.cached = Some((key, handle));
            id
        }
    }
}
