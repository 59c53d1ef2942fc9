//! Plain geometry shared by every layer: the one axis-aligned box type. File formats read
//! and write it (`formats::cmdl`, `formats::ancs`), the CPU model and the camera frame it.

use serde::Serialize;

/// An axis-aligned box, min then max (the order Retro's files store it in).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct Aabb {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

impl Aabb {
    /// The smallest box around `points`; None when there are none.
    pub fn from_points(points: impl IntoIterator<Item = [f32; 3]>) -> Option<Self> {
        let mut it = points.into_iter();
        let first = it.next()?;
        let mut b = Self {
            min: first,
            max: first,
        };
        for p in it {
            b.min = [0, 1, 2].map(|k| b.min[k].min(p[k]));
            b.max = [0, 1, 2].map(|k| b.max[k].max(p[k]));
        }
        Some(b)
    }

    /// The smallest box holding both.
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb {
            min: [0, 1, 2].map(|k| self.min[k].min(other.min[k])),
            max: [0, 1, 2].map(|k| self.max[k].max(other.max[k])),
        }
    }

    pub fn center(&self) -> [f32; 3] {
        [0, 1, 2].map(|k| (self.min[k] + self.max[k]) * 0.5)
    }

    /// The eight corners (bit 0 picks x, bit 1 y, bit 2 z from max instead of min).
    pub fn corners(&self) -> [[f32; 3]; 8] {
        std::array::from_fn(|i| {
            [0, 1, 2].map(|k| {
                if i & (1 << k) == 0 {
                    self.min[k]
                } else {
                    self.max[k]
                }
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_of_points_and_its_centre_and_corners() {
        let b = Aabb::from_points([[1.0, 2.0, 3.0], [-1.0, 5.0, 0.0]]).unwrap();
        assert_eq!(b.min, [-1.0, 2.0, 0.0]);
        assert_eq!(b.max, [1.0, 5.0, 3.0]);
        assert_eq!(b.center(), [0.0, 3.5, 1.5]);
        assert_eq!(b.corners()[0], b.min);
        assert_eq!(b.corners()[7], b.max);
        assert_eq!(b.corners()[1], [1.0, 2.0, 0.0]);
        assert!(Aabb::from_points([]).is_none());
    }
}
