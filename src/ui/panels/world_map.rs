//! The world overview in the central panel: every room's world geometry seen from above,
//! drawn by the viewport ([`crate::render::overview`], asked for through
//! [`crate::ui::state::Requests::overview`]) as the rooms arrive from their loader, with
//! each room's bounds as a faint frame (layout in [`crate::ui::world_map`]); the name of
//! the room under the pointer (its triangles, else its frame), a click opens it the way
//! the world tree does. Drag pans, scroll zooms.

use egui::{Color32, FontId, RichText, Sense, Stroke, StrokeKind, Ui};

use crate::ui::parts::WorldMapPanel;
use crate::ui::state::OverviewFrame;
use crate::ui::world_map::{MapView, bounds, map_rooms, room_color, room_under, z_range};

/// Draws the overview; returns the room the user clicked (the caller opens it once unsaved
/// edits are answered for).
pub(super) fn world_map(ui: &mut Ui, state: WorldMapPanel<'_>) -> Option<String> {
    let overview = state.worlds.overview?;
    let Some(Ok(report)) = &state.worlds.listing else {
        state.worlds.overview = None;
        return None;
    };
    let Some(world) = report.worlds.get(overview.world) else {
        state.worlds.overview = None;
        return None;
    };
    let rooms = map_rooms(world);
    let skipped = world.areas.len() - rooms.len();
    let title = format!("{} — overview, {} rooms", world.name, world.areas.len());
    let area_count = world.areas.len();
    let Some(geometry) = state.worlds.world_geometry(overview.world) else {
        state.worlds.overview = None;
        return None;
    };
    let loading = geometry.loading();
    let arrived = geometry.rooms.len();
    let without: Vec<usize> = (geometry.rooms.iter())
        .filter(|(_, m)| m.as_ref().map_or(true, |m| m.triangles.is_empty()))
        .map(|(a, _)| *a)
        .collect();
    let geometry_error = (geometry.rooms.iter()).find_map(|(_, m)| m.as_ref().err().cloned());
    let meshes: std::collections::HashMap<usize, std::sync::Arc<crate::model::overview::RoomMesh>> =
        (geometry.rooms.iter())
            .filter_map(|(a, m)| Some((*a, m.as_ref().ok()?.clone())))
            .collect();
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
        if loading {
            ui.spinner();
            ui.weak(format!("reading rooms {arrived}/{area_count}"));
        }
        if skipped > 0 {
            ui.weak(format!("· {skipped} without bounds not drawn"));
        }
        if !without.is_empty() {
            let label = ui.weak(format!("· {} without geometry (frame only)", without.len()));
            if let Some(e) = &geometry_error {
                label.on_hover_text(e);
            }
        }
    });
    if close {
        state.worlds.overview = None;
        return None;
    }
    let (rect, response) = ui.allocate_exact_size(ui.available_size(), Sense::click_and_drag());
    state.layout.view = Some(rect);
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, Color32::from_gray(18));
    if loading {
        // Poll the loader again soon: the drawing fills in as rooms arrive.
        ui.ctx()
            .request_repaint_after(std::time::Duration::from_millis(50));
    }
    let Some(all) = bounds(&rooms) else {
        painter.text(
            rect.center(),
            egui::Align2::CENTER_CENTER,
            "No room of this world has bounds to place it by.",
            FontId::proportional(16.0),
            Color32::GRAY,
        );
        return None;
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
    let mesh = |area: usize| meshes.get(&area).map(|m| &**m);
    let hovered = response
        .hover_pos()
        .and_then(|p| room_under(&rooms, mesh, view.to_world(rect, p)));
    // The geometry: drawn by the viewport into its target at this rectangle's pixel size,
    // shown here once its size matches (one frame later after a resize).
    let ppp = ui.ctx().pixels_per_point();
    let want = (
        (rect.width() * ppp).round() as u32,
        (rect.height() * ppp).round() as u32,
    );
    state.requests.viewport_size = Some(want);
    state.requests.overview = Some(OverviewFrame {
        world: overview.world,
        camera: view.camera(rect, z_range(&rooms)),
        highlight: hovered.and_then(|k| rooms.get(k)).map(|r| r.area as u32),
    });
    if let Some((tex, [w, h])) = state.central.texture
        && (w, h) == want
    {
        let uv = egui::Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
        painter.image(tex, rect, uv, Color32::WHITE);
    }
    let font = FontId::proportional(12.0);
    for (k, room) in rooms.iter().enumerate() {
        let r = view.rect_to_screen(rect, room.footprint);
        let color = room_color(room.area);
        let drawn = mesh(room.area).is_some_and(|m| !m.triangles.is_empty());
        // A faint frame around drawn geometry; a filled box for a room without any.
        let (fill, stroke) = match (hovered == Some(k), drawn) {
            (true, true) => (Color32::TRANSPARENT, Stroke::new(1.5, Color32::WHITE)),
            (true, false) => (color.gamma_multiply(0.55), Stroke::new(2.0, Color32::WHITE)),
            (false, true) => (
                Color32::TRANSPARENT,
                Stroke::new(1.0, color.gamma_multiply(0.35)),
            ),
            (false, false) => (
                color.gamma_multiply(0.15),
                Stroke::new(1.0, color.gamma_multiply(0.6)),
            ),
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
            "{}\narea {} · z {:.1} … {:.1} · {} · click to open",
            room.name,
            room.area,
            room.heights[0],
            room.heights[1],
            match mesh(room.area) {
                Some(m) => format!("{} triangles", m.triangles.len()),
                None if loading => "geometry loading".into(),
                None => "no geometry".into(),
            }
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
    open
}
