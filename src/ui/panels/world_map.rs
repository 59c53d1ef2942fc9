//! The world overview in the central panel: every room of a world as its bounds seen from
//! above (geometry in [`crate::ui::world_map`]), coloured per room, its name on hover; a
//! click opens the room the way the world tree does. Drag pans, scroll zooms.

use egui::{Color32, FontId, RichText, Sense, Stroke, StrokeKind, Ui};

use crate::ui::state::AppState;
use crate::ui::world_map::{MapView, bounds, map_rooms, room_at, room_color};

pub(super) fn world_map(ui: &mut Ui, state: &mut AppState) {
    let Some(overview) = state.worlds.overview else {
        return;
    };
    let Some(Ok(report)) = &state.worlds.listing else {
        state.worlds.overview = None;
        return;
    };
    let Some(world) = report.worlds.get(overview.world) else {
        state.worlds.overview = None;
        return;
    };
    let rooms = map_rooms(world);
    let skipped = world.areas.len() - rooms.len();
    let title = format!("{} — overview, {} rooms", world.name, world.areas.len());
    let mut close = false;
    let mut fit = false;
    ui.horizontal(|ui| {
        ui.add_space(8.0);
        ui.label(RichText::new(title).strong());
        if ui
            .button("Fit")
            .on_hover_text("Show the whole world")
            .clicked()
        {
            fit = true;
        }
        if ui
            .button("Close")
            .on_hover_text("Back to the open file")
            .clicked()
        {
            close = true;
        }
        ui.weak("from above (X right, Y up) · drag: pan · scroll: zoom · click a room: open it");
        if skipped > 0 {
            ui.weak(format!("· {skipped} without bounds not drawn"));
        }
    });
    if close {
        state.worlds.overview = None;
        return;
    }
    let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
    state.layout.view = Some(rect);
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, Color32::from_gray(18));
    let Some(all) = bounds(&rooms) else {
        painter.text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            "No room of this world has bounds to place it by.",
            FontId::proportional(16.0),
            Color32::GRAY,
        );
        return;
    };
    let mut view = match overview.view {
        Some(v) if !fit => v,
        _ => MapView::fit(all, rect),
    };
    if response.dragged() {
        view.pan(response.drag_delta());
    }
    if response.hovered() {
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0
            && let Some(cursor) = response.hover_pos()
        {
            view.zoom_about(rect, cursor, (scroll * 0.004).exp());
        }
    }
    let hovered = response
        .hover_pos()
        .and_then(|p| room_at(&rooms, view.to_world(rect, p)));
    let font = FontId::proportional(12.0);
    for (k, room) in rooms.iter().enumerate() {
        let r = view.rect_to_screen(rect, room.footprint);
        let color = room_color(room.area);
        let (fill, stroke) = if hovered == Some(k) {
            (color.gamma_multiply(0.55), Stroke::new(2.0, Color32::WHITE))
        } else {
            (color.gamma_multiply(0.22), Stroke::new(1.0, color))
        };
        painter.rect(r, 0.0, fill, stroke, StrokeKind::Inside);
        painter.circle_filled(view.to_screen(rect, room.origin), 2.0, color);
        // Names where they fit; every name shows on hover.
        let galley = painter.layout_no_wrap(room.name.clone(), font.clone(), Color32::WHITE);
        if galley.size().x + 6.0 < r.width() && galley.size().y + 4.0 < r.height() {
            painter.galley(r.left_top() + egui::vec2(4.0, 3.0), galley, Color32::WHITE);
        }
    }
    // The hovered room's name at the pointer, drawn at once (no tooltip delay).
    let mut open = None;
    if let (Some(room), Some(pointer)) = (hovered.and_then(|k| rooms.get(k)), response.hover_pos())
    {
        let text = format!(
            "{}\narea {} · z {:.1} … {:.1} · click to open",
            room.name, room.area, room.heights[0], room.heights[1]
        );
        let galley = painter.layout_no_wrap(text, FontId::proportional(13.0), Color32::WHITE);
        let size = galley.size();
        let at = egui::pos2(
            (pointer.x + 14.0)
                .min(rect.max.x - size.x - 6.0)
                .max(rect.min.x + 4.0),
            (pointer.y + 14.0)
                .min(rect.max.y - size.y - 6.0)
                .max(rect.min.y + 4.0),
        );
        painter.rect_filled(
            egui::Rect::from_min_size(at, size).expand(4.0),
            4.0,
            Color32::from_black_alpha(210),
        );
        painter.galley(at, galley, Color32::WHITE);
        if response.clicked() {
            open = Some(room.spec.clone());
        }
    }
    if let Some(o) = &mut state.worlds.overview {
        o.view = Some(view);
    }
    if let Some(spec) = open {
        state.request_open(&spec);
    }
}
