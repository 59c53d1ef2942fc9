//! The draw plan: the order in which [`Scene`](super::scene::Scene) lays out and draws its
//! opaque surfaces, so that runs of one material become one `draw_indexed` without
//! changing a pixel.
//!
//! **Rule.** Surfaces are walked in file order. An *opaque* surface (no blending, depth
//! test with `Less`/`LessEqual`, depth write, no destination read, no GX lines) moves back
//! to the end of the latest run of its material when its bounding box is disjoint — with a
//! gap of at least `margin` on some axis — from the box of every surface placed after that
//! run. Anything else is a *barrier*: it keeps its place and nothing moves across it.
//! Surfaces drawn elsewhere (depth-sorted transparent ones, materials that do not draw)
//! take no part.
//!
//! **Why it is exact.** With depth test and write on and no blending, a pixel ends up
//! with the colour of the nearest fragment that passed (alpha-tested discards write
//! nothing). The order of two draws only matters where they produce fragments for the
//! same pixel at the same depth (the tie `LessEqual`/`Less` resolves by order). Two
//! surfaces with disjoint boxes share no point, so they cannot reach one pixel at one
//! depth: swapping them cannot change the image. Moving a surface past a set of
//! surfaces it is disjoint from is a sequence of such swaps; its order relative to its
//! own run (same material) and to everything it did not pass is kept. Barriers (blended,
//! depth-write-off, destination-reading surfaces) depend on what was drawn before them,
//! so nothing crosses them. The gap `margin` keeps the argument true in floating point:
//! surfaces closer than it (touching walls) could round to the same depth value and keep
//! their order (the scene uses 1e-3 of the model's size, far above the 32-bit float depth
//! resolution at framing distances).
//!
//! Skinned models move their vertices every frame, so their boxes are not known: the
//! scene gives every surface as a barrier (file order). Runs of consecutive surfaces of a
//! material merge in any case: one draw of contiguous indices is the same as consecutive
//! draws of them.

use crate::geom::Aabb;

/// How a surface takes part in the plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanClass {
    /// May move back to the latest run of its material (see the module docs).
    Opaque,
    /// Keeps its place; nothing moves across it.
    Barrier,
    /// Drawn elsewhere (sorted transparent, not drawn): placed, ignored by the rule.
    Elsewhere,
}

/// One surface as the plan sees it.
#[derive(Debug, Clone, Copy)]
pub struct PlanSurface {
    pub material: usize,
    pub class: PlanClass,
    pub bounds: Aabb,
}

/// Whether `a` and `b` are apart by more than `margin` along some axis.
pub fn disjoint(a: &Aabb, b: &Aabb, margin: f32) -> bool {
    (0..3).any(|k| a.max[k] + margin < b.min[k] || b.max[k] + margin < a.min[k])
}

/// The drawing order (surface indices) by the rule of the module docs.
pub fn draw_plan(surfaces: &[PlanSurface], margin: f32) -> Vec<usize> {
    // Runs in plan order: (material, surfaces); runs before `floor` are closed by a barrier.
    let mut runs: Vec<(usize, Vec<usize>)> = Vec::new();
    let mut elsewhere = Vec::new();
    let mut floor = 0;
    for (i, s) in surfaces.iter().enumerate() {
        match s.class {
            PlanClass::Elsewhere => elsewhere.push(i),
            PlanClass::Barrier => {
                runs.push((s.material, vec![i]));
                floor = runs.len();
            }
            PlanClass::Opaque => {
                let latest = runs[floor..]
                    .iter()
                    .rposition(|(m, _)| *m == s.material)
                    .map(|r| r + floor);
                let joins = latest.filter(|&r| {
                    runs[r + 1..]
                        .iter()
                        .flat_map(|(_, members)| members)
                        .all(|&o| disjoint(&surfaces[o].bounds, &s.bounds, margin))
                });
                match joins {
                    Some(r) => runs[r].1.push(i),
                    None => runs.push((s.material, vec![i])),
                }
            }
        }
    }
    let mut order: Vec<usize> = runs.into_iter().flat_map(|(_, m)| m).collect();
    order.extend(elsewhere);
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(material: usize, class: PlanClass, x: f32) -> PlanSurface {
        PlanSurface {
            material,
            class,
            bounds: Aabb {
                min: [x, 0.0, 0.0],
                max: [x + 1.0, 1.0, 0.0],
            },
        }
    }
    use PlanClass::*;

    #[test]
    fn disjoint_opaque_surfaces_join_their_material_run() {
        // Materials interleaved A B A B, every panel apart: A A B B.
        let s = [
            at(0, Opaque, 0.0),
            at(1, Opaque, 2.0),
            at(0, Opaque, 4.0),
            at(1, Opaque, 6.0),
        ];
        assert_eq!(draw_plan(&s, 0.01), [0, 2, 1, 3]);
    }

    #[test]
    fn overlapping_surfaces_keep_their_order() {
        // Surface 2 overlaps surface 1 (drawn since material 0's run): it stays after it,
        // starting a new run; surface 3 is apart from it and joins material 1's run.
        let s = [
            at(0, Opaque, 0.0),
            at(1, Opaque, 2.0),
            at(0, Opaque, 2.5),
            at(1, Opaque, 6.0),
        ];
        assert_eq!(draw_plan(&s, 0.01), [0, 1, 3, 2]);
        // Overlapping the run it would pass: stays.
        let o = [
            at(0, Opaque, 0.0),
            at(1, Opaque, 2.0),
            at(0, Opaque, 2.5),
            at(1, Opaque, 3.0),
        ];
        assert_eq!(draw_plan(&o, 0.01), [0, 1, 2, 3]);
        // Touching (closer than the margin) counts as overlapping.
        let t = [
            at(0, Opaque, 0.0),
            at(1, Opaque, 1.005),
            at(0, Opaque, 2.01),
        ];
        assert_eq!(draw_plan(&t, 0.01), [0, 1, 2]);
        // A later surface joins the latest run of its material, not an earlier one.
        let u = [
            at(0, Opaque, 0.0),
            at(1, Opaque, 2.0),
            at(0, Opaque, 2.5),
            at(0, Opaque, 8.0),
        ];
        assert_eq!(draw_plan(&u, 0.01), [0, 1, 2, 3]);
    }

    #[test]
    fn blended_surfaces_never_move_and_nothing_crosses_them() {
        let s = [
            at(0, Opaque, 0.0),
            at(1, Barrier, 2.0),
            at(0, Opaque, 4.0),
            at(1, Barrier, 6.0),
            at(2, Opaque, 8.0),
            at(1, Barrier, 10.0),
        ];
        assert_eq!(draw_plan(&s, 0.01), [0, 1, 2, 3, 4, 5]);
        // Runs after a barrier still merge among themselves; sorted ones go last, unmoved.
        let t = [
            at(0, Opaque, 0.0),
            at(1, Barrier, 2.0),
            at(0, Opaque, 4.0),
            at(3, Elsewhere, 5.0),
            at(2, Opaque, 6.0),
            at(0, Opaque, 8.0),
        ];
        assert_eq!(draw_plan(&t, 0.01), [0, 1, 2, 5, 4, 3]);
    }
}
