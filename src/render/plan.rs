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
//! take no part: they come last, each material's together (in file order), so that the
//! scene can draw a material's sorted surfaces that end up side by side as one range.
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
//! **Front to back.** The plan is kept as runs (a material's surfaces drawn as one range).
//! Between two barriers, runs of opaque surfaces may be drawn in any order that keeps every
//! pair of runs with overlapping members in plan order (swapping disjoint neighbours, as
//! above, goes from any such order to any other): [`front_to_back`] draws the nearest
//! first, so that depth rejects the fragments they hide before they are shaded.
//!
//! A material drawn twice (MP3's INCA second draw, blended over the first right after
//! each surface) is a barrier: the second draw depends on what the first left.
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

/// A material's surfaces drawn together: `members` of [`DrawPlan::order`].
#[derive(Debug, Clone, PartialEq)]
pub struct PlanRun {
    pub members: std::ops::Range<usize>,
    /// Made of opaque surfaces: may change places with the runs of its segment (between
    /// barriers) that it is disjoint from. Barriers and the surfaces drawn elsewhere stay.
    pub movable: bool,
    /// The box around its members.
    pub bounds: Aabb,
    /// Later runs of its segment that overlap it (they stay after it).
    pub before: Vec<usize>,
    /// How many earlier runs of its segment overlap it.
    pub after_count: usize,
}

/// The plan: surfaces in drawing order, grouped into runs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DrawPlan {
    pub order: Vec<usize>,
    pub runs: Vec<PlanRun>,
}

impl DrawPlan {
    /// Whether [`front_to_back`] can change anything.
    pub fn has_movable_runs(&self) -> bool {
        self.runs.iter().filter(|r| r.movable).nth(1).is_some()
    }
}

/// The drawing order by the rule of the module docs, as runs.
pub fn draw_plan(surfaces: &[PlanSurface], margin: f32) -> DrawPlan {
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
    let mut plan = DrawPlan::default();
    for (r, (_, members)) in runs.iter().enumerate() {
        let start = plan.order.len();
        plan.order.extend_from_slice(members);
        let movable = surfaces[members[0]].class == PlanClass::Opaque;
        let bounds = members
            .iter()
            .map(|&i| surfaces[i].bounds)
            .reduce(|a, b| a.union(&b))
            .unwrap_or(surfaces[members[0]].bounds);
        // Earlier runs of the segment overlapping this one stay before it.
        let mut after_count = 0;
        if movable {
            for e in (0..r).rev() {
                if !plan.runs[e].movable {
                    break;
                }
                let overlaps = !disjoint(&plan.runs[e].bounds, &bounds, margin)
                    && runs[e].1.iter().any(|&a| {
                        members
                            .iter()
                            .any(|&b| !disjoint(&surfaces[a].bounds, &surfaces[b].bounds, margin))
                    });
                if overlaps {
                    plan.runs[e].before.push(r);
                    after_count += 1;
                }
            }
        }
        plan.runs.push(PlanRun {
            members: start..plan.order.len(),
            movable,
            bounds,
            before: Vec::new(),
            after_count,
        });
    }
    if !elsewhere.is_empty() {
        elsewhere.sort_by_key(|&i| surfaces[i].material);
        let start = plan.order.len();
        plan.order.extend(elsewhere);
        plan.runs.push(PlanRun {
            members: start..plan.order.len(),
            movable: false,
            bounds: Aabb {
                min: [0.0; 3],
                max: [0.0; 3],
            },
            before: Vec::new(),
            after_count: 0,
        });
    }
    plan
}

/// How far the nearest point of `b` lies along `forward` from `eye` (smaller is nearer).
pub fn nearest_depth(b: &Aabb, eye: [f32; 3], forward: [f32; 3]) -> f32 {
    (0..3)
        .map(|k| {
            let centre = (b.min[k] + b.max[k]) * 0.5 - eye[k];
            let half = (b.max[k] - b.min[k]) * 0.5;
            centre * forward[k] - (half * forward[k]).abs()
        })
        .sum()
}

/// The runs of `plan` in drawing order for a camera at `eye` looking along `forward`:
/// barriers where the plan has them, between them the movable runs nearest first as far
/// as their overlaps allow (an overlapping pair keeps its plan order). Written to `out`;
/// `scratch` is reused memory.
pub fn front_to_back(
    plan: &DrawPlan,
    eye: [f32; 3],
    forward: [f32; 3],
    out: &mut Vec<usize>,
    scratch: &mut FrontToBack,
) {
    use std::cmp::Reverse;
    out.clear();
    let runs = &plan.runs;
    let mut r = 0;
    while r < runs.len() {
        if !runs[r].movable {
            out.push(r);
            r += 1;
            continue;
        }
        let end = (r..runs.len())
            .find(|&e| !runs[e].movable)
            .unwrap_or(runs.len());
        // Kahn's algorithm over the segment, nearest ready run first (ties: plan order).
        scratch.waiting.clear();
        scratch
            .waiting
            .extend(runs[r..end].iter().map(|run| run.after_count));
        scratch.ready.clear();
        let depth = |i: usize| Reverse((Depth(nearest_depth(&runs[i].bounds, eye, forward)), i));
        for (i, run) in runs.iter().enumerate().take(end).skip(r) {
            if run.after_count == 0 {
                scratch.ready.push(depth(i));
            }
        }
        while let Some(Reverse((_, i))) = scratch.ready.pop() {
            out.push(i);
            for &next in &runs[i].before {
                let w = &mut scratch.waiting[next - r];
                *w -= 1;
                if *w == 0 {
                    scratch.ready.push(depth(next));
                }
            }
        }
        r = end;
    }
}

/// Reused memory of [`front_to_back`].
#[derive(Debug, Default)]
pub struct FrontToBack {
    waiting: Vec<usize>,
    ready: std::collections::BinaryHeap<std::cmp::Reverse<(Depth, usize)>>,
}

/// A depth ordered by `total_cmp`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Depth(f32);

impl Eq for Depth {}

impl PartialOrd for Depth {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Depth {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&other.0)
    }
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
        assert_eq!(draw_plan(&s, 0.01).order, [0, 2, 1, 3]);
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
        assert_eq!(draw_plan(&s, 0.01).order, [0, 1, 3, 2]);
        // Overlapping the run it would pass: stays.
        let o = [
            at(0, Opaque, 0.0),
            at(1, Opaque, 2.0),
            at(0, Opaque, 2.5),
            at(1, Opaque, 3.0),
        ];
        assert_eq!(draw_plan(&o, 0.01).order, [0, 1, 2, 3]);
        // Touching (closer than the margin) counts as overlapping.
        let t = [
            at(0, Opaque, 0.0),
            at(1, Opaque, 1.005),
            at(0, Opaque, 2.01),
        ];
        assert_eq!(draw_plan(&t, 0.01).order, [0, 1, 2]);
        // A later surface joins the latest run of its material, not an earlier one.
        let u = [
            at(0, Opaque, 0.0),
            at(1, Opaque, 2.0),
            at(0, Opaque, 2.5),
            at(0, Opaque, 8.0),
        ];
        assert_eq!(draw_plan(&u, 0.01).order, [0, 1, 2, 3]);
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
        assert_eq!(draw_plan(&s, 0.01).order, [0, 1, 2, 3, 4, 5]);
        // Runs after a barrier still merge among themselves; sorted ones go last, unmoved.
        let t = [
            at(0, Opaque, 0.0),
            at(1, Barrier, 2.0),
            at(0, Opaque, 4.0),
            at(3, Elsewhere, 5.0),
            at(2, Opaque, 6.0),
            at(0, Opaque, 8.0),
        ];
        assert_eq!(draw_plan(&t, 0.01).order, [0, 1, 2, 5, 4, 3]);
    }

    fn order(plan: &DrawPlan, eye: [f32; 3], forward: [f32; 3]) -> Vec<usize> {
        let mut out = Vec::new();
        front_to_back(plan, eye, forward, &mut out, &mut FrontToBack::default());
        out.iter()
            .flat_map(|&r| plan.order[plan.runs[r].members.clone()].to_vec())
            .collect()
    }

    #[test]
    fn disjoint_runs_draw_nearest_first_from_either_side() {
        let s = [
            at(0, Opaque, 0.0),
            at(1, Opaque, 2.0),
            at(0, Opaque, 4.0),
            at(2, Opaque, 6.0),
        ];
        let plan = draw_plan(&s, 0.01);
        assert_eq!(plan.runs.len(), 3);
        // From +x: material 2 (x 6..7), then 0 (nearest member x 4..5), then 1.
        assert_eq!(
            order(&plan, [10.0, 0.5, 0.0], [-1.0, 0.0, 0.0]),
            [3, 0, 2, 1]
        );
        // From −x: material 0's run (x 0..1 nearest) first.
        assert_eq!(
            order(&plan, [-10.0, 0.5, 0.0], [1.0, 0.0, 0.0]),
            [0, 2, 1, 3]
        );
    }

    #[test]
    fn overlapping_runs_keep_their_order_and_barriers_stay() {
        // Runs 0 (x 0..1) and 1 (x 0.5..1.5) overlap: 1 stays after 0 even from +x.
        let s = [
            at(0, Opaque, 0.0),
            at(1, Opaque, 0.5),
            at(2, Opaque, 3.0),
            at(3, Barrier, 5.0),
            at(4, Opaque, 6.0),
            at(5, Opaque, 8.0),
        ];
        let plan = draw_plan(&s, 0.01);
        assert_eq!(plan.runs[0].before, [1]);
        assert_eq!(plan.runs[1].after_count, 1);
        assert_eq!(
            order(&plan, [10.0, 0.5, 0.0], [-1.0, 0.0, 0.0]),
            [2, 0, 1, 3, 5, 4]
        );
        assert_eq!(
            order(&plan, [-10.0, 0.5, 0.0], [1.0, 0.0, 0.0]),
            [0, 1, 2, 3, 4, 5]
        );
        // Elsewhere surfaces come last, unmoved.
        let t = [
            at(0, Elsewhere, 0.0),
            at(1, Opaque, 2.0),
            at(2, Opaque, 4.0),
        ];
        let plan = draw_plan(&t, 0.01);
        assert_eq!(order(&plan, [10.0, 0.5, 0.0], [-1.0, 0.0, 0.0]), [2, 1, 0]);
        // ... each material's together, in file order.
        let u = [
            at(4, Elsewhere, 0.0),
            at(3, Elsewhere, 1.0),
            at(1, Opaque, 2.0),
            at(4, Elsewhere, 3.0),
            at(3, Elsewhere, 4.0),
        ];
        assert_eq!(draw_plan(&u, 0.01).order, [2, 1, 4, 0, 3]);
    }
}
