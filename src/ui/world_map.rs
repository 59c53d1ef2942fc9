//! The world overview's layout (no drawing here): every room of a world by its world-space
//! bounds seen from above, the view that fits them, the top-down camera the room geometry
//! is drawn with, and which room is under a point (its triangles first, its bounds while
//! it has none). The games' Z axis is up, so the map is the XY plane with +Y up the
//! screen. Bounds come from the MLVL (already in world space); the room's origin is its
//! transform's translation.

use egui::{Pos2, Rect, Vec2, pos2, vec2};

use crate::model::overview::RoomMesh;
use crate::render::overview::OverviewCamera;
use crate::schema::worlds::WorldInfo;

/// One room on the map.
#[derive(Debug, Clone, PartialEq)]
pub struct MapRoom {
    /// The area index (as the world tree and `worlds` report it).
    pub area: usize,
    pub name: String,
    /// What opens the room.
    pub spec: String,
    /// World-space footprint: x and y of the bounds.
    pub footprint: Rect,
    /// World-space bottom and top (z).
    pub heights: [f32; 2],
    /// The area transform's translation (x, y).
    pub origin: Pos2,
}

/// The rooms of `world` with usable bounds, biggest footprint first (the drawing order, so
/// a small room inside a big one stays visible). Rooms with non-finite or inverted bounds
/// are left out.
pub fn map_rooms(world: &WorldInfo) -> Vec<MapRoom> {
    let mut rooms: Vec<MapRoom> = world
        .areas
        .iter()
        .filter_map(|a| {
            let (min, max) = (a.aabb.min.map(|v| v as f32), a.aabb.max.map(|v| v as f32));
            let usable =
                min.iter().chain(&max).all(|v| v.is_finite()) && (0..3).all(|k| min[k] <= max[k]);
            let t = &a.transform_rows_3x4;
            usable.then(|| MapRoom {
                area: a.index,
                name: a.name.clone(),
                spec: a.spec.clone(),
                footprint: Rect::from_min_max(pos2(min[0], min[1]), pos2(max[0], max[1])),
                heights: [min[2], max[2]],
                origin: pos2(t[0][3] as f32, t[1][3] as f32),
            })
        })
        .collect();
    rooms.sort_by(|a, b| footprint_area(b).total_cmp(&footprint_area(a)));
    rooms
}

fn footprint_area(r: &MapRoom) -> f32 {
    r.footprint.width() * r.footprint.height()
}

/// The union of the rooms' footprints (None without rooms).
pub fn bounds(rooms: &[MapRoom]) -> Option<Rect> {
    rooms.iter().map(|r| r.footprint).reduce(|a, b| a.union(b))
}

/// The room (index into `rooms`) under world point `p` seen from above: the one whose
/// geometry (`mesh` of its area) has the highest surface there, else, of the rooms without
/// geometry yet whose footprint holds `p`, the smallest.
pub fn room_under<'a>(
    rooms: &[MapRoom],
    mesh: impl Fn(usize) -> Option<&'a RoomMesh>,
    p: Pos2,
) -> Option<usize> {
    // Only rooms whose bounds (with a margin) hold the point are tested triangle by
    // triangle: a room's geometry lies inside its MLVL bounds, and a 30-room world would
    // otherwise test every triangle of the world on each pointer move.
    let near = |r: &MapRoom| {
        let margin = 1.0 + 0.05 * r.footprint.width().max(r.footprint.height());
        r.footprint.expand(margin).contains(p)
    };
    let by_geometry = crate::model::overview::room_under(
        rooms
            .iter()
            .enumerate()
            .map(|(k, r)| (k, mesh(r.area).filter(|_| near(r)))),
        p.x,
        p.y,
    );
    by_geometry.or_else(|| {
        let boxes: Vec<MapRoom> = rooms
            .iter()
            .map(|r| match mesh(r.area) {
                Some(m) if !m.triangles.is_empty() => MapRoom {
                    footprint: Rect::NOTHING,
                    ..r.clone()
                },
                _ => r.clone(),
            })
            .collect();
        room_at(&boxes, p)
    })
}

/// The room (index into `rooms`) whose footprint holds world point `p`: of those, the
/// smallest (the one drawn on top).
pub fn room_at(rooms: &[MapRoom], p: Pos2) -> Option<usize> {
    rooms
        .iter()
        .enumerate()
        .filter(|(_, r)| r.footprint.contains(p))
        .min_by(|(_, a), (_, b)| footprint_area(a).total_cmp(&footprint_area(b)))
        .map(|(k, _)| k)
}

/// Where the map looks: the world point at the screen rectangle's centre and the scale.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MapView {
    pub center: Pos2,
    /// Screen points per world unit.
    pub scale: f32,
}

impl MapView {
    const MIN_SCALE: f32 = 1e-4;
    const MAX_SCALE: f32 = 1e4;

    /// The view that shows all of `bounds` inside `screen` with a margin.
    pub fn fit(bounds: Rect, screen: Rect) -> Self {
        let w = bounds.width().max(1e-3);
        let h = bounds.height().max(1e-3);
        let scale = (screen.width() / w).min(screen.height() / h) * 0.9;
        Self {
            center: bounds.center(),
            scale: scale.clamp(Self::MIN_SCALE, Self::MAX_SCALE),
        }
    }

    pub fn to_screen(&self, screen: Rect, p: Pos2) -> Pos2 {
        let d = p - self.center;
        screen.center() + vec2(d.x, -d.y) * self.scale
    }

    pub fn to_world(&self, screen: Rect, q: Pos2) -> Pos2 {
        let d = (q - screen.center()) / self.scale;
        self.center + vec2(d.x, -d.y)
    }

    /// A world footprint on the screen.
    pub fn rect_to_screen(&self, screen: Rect, r: Rect) -> Rect {
        Rect::from_two_pos(self.to_screen(screen, r.min), self.to_screen(screen, r.max))
    }

    /// Moves the map with a drag of `delta` screen points.
    pub fn pan(&mut self, delta: Vec2) {
        self.center += vec2(-delta.x, delta.y) / self.scale;
    }

    /// The camera that draws the room geometry exactly under this map in `screen`, over
    /// heights `z_range`.
    pub fn camera(&self, screen: Rect, z_range: [f32; 2]) -> OverviewCamera {
        OverviewCamera {
            center: [self.center.x, self.center.y],
            half_extent: [
                screen.width() / 2.0 / self.scale,
                screen.height() / 2.0 / self.scale,
            ],
            z_range,
        }
    }

    /// Zooms by `factor` keeping the world point under `cursor` (screen) in place.
    pub fn zoom_about(&mut self, screen: Rect, cursor: Pos2, factor: f32) {
        let held = self.to_world(screen, cursor);
        self.scale = (self.scale * factor).clamp(Self::MIN_SCALE, Self::MAX_SCALE);
        let d = (cursor - screen.center()) / self.scale;
        self.center = held - vec2(d.x, -d.y);
    }
}

/// The overview shown in the central panel: which world, and the view once fitted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Overview {
    /// Index of the world in the listing.
    pub world: usize,
    /// None until the first frame fits the world to the panel ("Fit" resets it).
    pub view: Option<MapView>,
}

/// A room's colour: the tint its geometry is drawn with.
pub fn room_color(area: usize) -> egui::Color32 {
    let [r, g, b, _] = crate::model::overview::room_tint(area);
    egui::Color32::from_rgb(r, g, b)
}

/// The lowest and highest z of the rooms' bounds (the depth range of the drawing).
pub fn z_range(rooms: &[MapRoom]) -> [f32; 2] {
    rooms.iter().fold([f32::MAX, f32::MIN], |[lo, hi], r| {
        [lo.min(r.heights[0]), hi.max(r.heights[1])]
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn room(area: usize, min: [f32; 2], max: [f32; 2]) -> MapRoom {
        MapRoom {
            area,
            name: format!("room {area}"),
            spec: String::new(),
            footprint: Rect::from_min_max(min.into(), max.into()),
            heights: [0.0, 1.0],
            origin: Pos2::ZERO,
        }
    }

    #[test]
    fn the_demo_world_maps_its_rooms_by_their_bounds() {
        let report = crate::load::worlds::list_worlds(
            std::path::Path::new(crate::load::builtin::DEMO_PAK),
            None,
        )
        .unwrap();
        let rooms = map_rooms(&report.worlds[0]);
        let names: Vec<&str> = rooms.iter().map(|r| r.name.as_str()).collect();
        // Biggest first: the room (8 x 6) before the light set (2 x 2).
        assert_eq!(names, ["Demo Room", "Light Set"]);
        assert_eq!(
            rooms[1].footprint,
            Rect::from_min_max(pos2(-1.0, 5.0), pos2(1.0, 7.0))
        );
        assert_eq!(rooms[1].origin, pos2(0.0, 6.0));
        assert_eq!(rooms[1].heights, [0.0, 2.0]);
        assert_eq!(
            bounds(&rooms),
            Some(Rect::from_min_max(pos2(-4.0, -3.0), pos2(4.0, 7.0)))
        );
        assert!(
            rooms[0].spec.ends_with(":0xDE070002.MREA"),
            "{}",
            rooms[0].spec
        );
    }

    #[test]
    fn the_smallest_room_under_a_point_is_hit() {
        let rooms = [
            room(0, [0.0, 0.0], [10.0, 10.0]),
            room(1, [2.0, 2.0], [4.0, 4.0]),
        ];
        assert_eq!(room_at(&rooms, pos2(3.0, 3.0)), Some(1));
        assert_eq!(room_at(&rooms, pos2(8.0, 8.0)), Some(0));
        assert_eq!(room_at(&rooms, pos2(11.0, 3.0)), None);
    }

    #[test]
    fn geometry_picks_before_bounds_and_empty_box_parts_fall_through() {
        // Room 0's box is big but its geometry covers only x 0..2; room 1 has no mesh yet.
        let rooms = [
            room(0, [0.0, 0.0], [10.0, 10.0]),
            room(1, [4.0, 4.0], [6.0, 6.0]),
        ];
        let floor = RoomMesh {
            positions: vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 2.0, 0.0]],
            triangles: vec![[0, 1, 2]],
        };
        let mesh = |area: usize| (area == 0).then_some(&floor);
        assert_eq!(room_under(&rooms, mesh, pos2(1.5, 0.5)), Some(0));
        // Room 1 by its box (no geometry yet).
        assert_eq!(room_under(&rooms, mesh, pos2(5.0, 5.0)), Some(1));
        // Inside room 0's box, away from its triangles: nothing.
        assert_eq!(room_under(&rooms, mesh, pos2(8.0, 8.0)), None);
    }

    #[test]
    fn the_camera_draws_under_the_map() {
        let screen = Rect::from_min_size(pos2(100.0, 50.0), vec2(400.0, 200.0));
        let v = MapView {
            center: pos2(3.0, -2.0),
            scale: 10.0,
        };
        let c = v.camera(screen, [0.0, 1.0]);
        let p = pos2(7.0, 1.5);
        let q = v.to_screen(screen, p) - screen.min;
        let px = c.to_pixel(p.x, p.y, 400, 200);
        assert!((px[0] - q.x).abs() < 1e-3 && (px[1] - q.y).abs() < 1e-3);
    }

    #[test]
    fn fit_shows_everything_with_y_up_and_round_trips() {
        let screen = Rect::from_min_size(pos2(100.0, 50.0), vec2(400.0, 200.0));
        let b = Rect::from_min_max(pos2(-4.0, -3.0), pos2(4.0, 7.0));
        let v = MapView::fit(b, screen);
        let s = v.rect_to_screen(screen, b);
        assert!(screen.contains_rect(s), "{s:?}");
        // Height-bound: 10 units in 200 points, with the margin.
        assert!((s.height() - 180.0).abs() < 1e-3, "{s:?}");
        // World +y is up the screen.
        assert!(v.to_screen(screen, pos2(0.0, 7.0)).y < v.to_screen(screen, pos2(0.0, -3.0)).y);
        let q = pos2(123.0, 77.0);
        assert!((v.to_screen(screen, v.to_world(screen, q)) - q).length() < 1e-3);
    }

    #[test]
    fn zoom_keeps_the_point_under_the_cursor_and_pan_follows_the_drag() {
        let screen = Rect::from_min_size(Pos2::ZERO, vec2(300.0, 300.0));
        let mut v = MapView {
            center: pos2(5.0, 5.0),
            scale: 10.0,
        };
        let cursor = pos2(40.0, 250.0);
        let held = v.to_world(screen, cursor);
        v.zoom_about(screen, cursor, 3.0);
        assert!((v.scale - 30.0).abs() < 1e-4);
        assert!((v.to_world(screen, cursor) - held).length() < 1e-4);
        let before = v.to_screen(screen, held);
        v.pan(vec2(12.0, -7.0));
        assert!((v.to_screen(screen, held) - (before + vec2(12.0, -7.0))).length() < 1e-3);
    }
}
