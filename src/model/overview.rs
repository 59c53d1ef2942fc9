//! A world overview's rooms as plain geometry: each room's world-model triangles (world
//! space, formats.md §9.5.6) with its MLVL bounds, built by `load::overview`, drawn by
//! `render::overview` and hit-tested here (from above, as the overview shows them).

use crate::geom::Aabb;

/// One room of a world overview: its world geometry, positions only.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoomMesh {
    /// World-space positions.
    pub positions: Vec<[f32; 3]>,
    /// Triangles as indices into `positions`.
    pub triangles: Vec<[u32; 3]>,
}

impl RoomMesh {
    /// The bounds of the positions the triangles use (None without triangles).
    pub fn bounds(&self) -> Option<Aabb> {
        Aabb::from_points(self.triangle_corners().flatten())
    }

    /// The height (z) of the highest triangle covering world point (`x`, `y`) seen from
    /// above, None when no triangle covers it. Triangles seen edge-on (walls) never cover
    /// a point.
    pub fn top_at(&self, x: f32, y: f32) -> Option<f32> {
        let mut best: Option<f32> = None;
        for t in self.triangle_corners() {
            if let Some(z) = height_in_triangle(t, x, y)
                && best.is_none_or(|h| z > h)
            {
                best = Some(z);
            }
        }
        best
    }

    fn corners(&self, t: &[u32; 3]) -> Option<[[f32; 3]; 3]> {
        Some([
            *self.positions.get(t[0] as usize)?,
            *self.positions.get(t[1] as usize)?,
            *self.positions.get(t[2] as usize)?,
        ])
    }

    /// Every triangle's corners (skipping ones whose indices fall outside `positions`).
    pub fn triangle_corners(&self) -> impl Iterator<Item = [[f32; 3]; 3]> + '_ {
        self.triangles.iter().filter_map(|t| self.corners(t))
    }
}

/// A distinct colour per room (golden-ratio hues), RGBA8: the overview's tint of area `area`.
pub fn room_tint(area: usize) -> [u8; 4] {
    let hue = (area as f32 * 0.618_034).fract() * 6.0;
    let (s, v) = (0.55f32, 0.9f32);
    let c = v * s;
    let x = c * (1.0 - (hue % 2.0 - 1.0).abs());
    let (r, g, b) = match hue as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let byte = |k: f32| ((k + v - c) * 255.0).round() as u8;
    [byte(r), byte(g), byte(b), 255]
}

/// The height at (`x`, `y`) of the triangle `p` projected onto the XY plane, if the point
/// is inside it (edges included).
pub fn height_in_triangle(p: [[f32; 3]; 3], x: f32, y: f32) -> Option<f32> {
    let [a, b, c] = p;
    let det = (b[1] - c[1]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[1] - c[1]);
    if det.abs() < 1e-12 || !det.is_finite() {
        return None;
    }
    let l0 = ((b[1] - c[1]) * (x - c[0]) + (c[0] - b[0]) * (y - c[1])) / det;
    let l1 = ((c[1] - a[1]) * (x - c[0]) + (a[0] - c[0]) * (y - c[1])) / det;
    let l2 = 1.0 - l0 - l1;
    const EDGE: f32 = -1e-5;
    (l0 >= EDGE && l1 >= EDGE && l2 >= EDGE).then(|| l0 * a[2] + l1 * b[2] + l2 * c[2])
}

/// The room under world point (`x`, `y`) seen from above: of the rooms whose triangles
/// cover it, the one with the highest surface there; `rooms` pairs each room's key with
/// its mesh (None while it loads or when it failed).
pub fn room_under<'a, K: Copy>(
    rooms: impl IntoIterator<Item = (K, Option<&'a RoomMesh>)>,
    x: f32,
    y: f32,
) -> Option<K> {
    rooms
        .into_iter()
        .filter_map(|(k, m)| Some((k, m?.top_at(x, y)?)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(k, _)| k)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(z: f32, x0: f32) -> RoomMesh {
        RoomMesh {
            positions: vec![
                [x0, 0.0, z],
                [x0 + 2.0, 0.0, z],
                [x0 + 2.0, 2.0, z],
                [x0, 2.0, z],
            ],
            triangles: vec![[0, 1, 2], [0, 2, 3]],
        }
    }

    #[test]
    fn the_highest_covering_triangle_wins_and_walls_never_cover() {
        let floor = square(0.0, 0.0);
        let shelf = square(3.0, 1.0);
        assert_eq!(floor.top_at(0.5, 0.5), Some(0.0));
        assert_eq!(floor.top_at(2.5, 0.5), None);
        let rooms = [(7, Some(&floor)), (9, Some(&shelf)), (11, None)];
        assert_eq!(room_under(rooms, 1.5, 1.0), Some(9));
        assert_eq!(room_under(rooms, 0.5, 1.0), Some(7));
        assert_eq!(room_under(rooms, 5.0, 1.0), None);
        // A vertical wall (zero area from above) is not hit.
        let wall = RoomMesh {
            positions: vec![[0.0, 1.0, 0.0], [2.0, 1.0, 0.0], [2.0, 1.0, 3.0]],
            triangles: vec![[0, 1, 2]],
        };
        assert_eq!(wall.top_at(1.0, 1.0), None);
        // Indices past the positions are skipped, not a panic.
        let broken = RoomMesh {
            positions: vec![[0.0; 3]],
            triangles: vec![[0, 5, 9]],
        };
        assert_eq!(broken.top_at(0.0, 0.0), None);
        assert_eq!(broken.bounds(), None);
        assert_eq!(
            shelf.bounds().map(|b| (b.min, b.max)),
            Some(([1.0, 0.0, 3.0], [3.0, 2.0, 3.0]))
        );
    }
}
