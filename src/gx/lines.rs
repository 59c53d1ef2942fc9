//! GX line primitives as the setup engine draws them: a line is a screen-space quad
//! along the segment, as wide as the line size register (SU_LPSIZE, BP 0x22) says, in
//! units of 1/6 pixel. A segment running more across than down widens in y, otherwise
//! in x (never along its own normal). Attributes are constant across the width and
//! interpolate along the segment, as on a triangle.
//!
//! The spec (`gx.md`) does not state this rule; it is GX's documented line model
//! (GXSetLineWidth) with Dolphin's software renderer as the judge of the details.

/// Line width in 1/6 pixel: GXInit's 6 (one pixel), which Prime never changes.
pub const LINE_WIDTH: u8 = 6;
/// Point size in 1/6 pixel: GXInit's 6 (one pixel).
pub const POINT_SIZE: u8 = 6;

/// The offset (pixels, x right, y down) from a line's end to the corners on its positive
/// side; the negative side's corners lie at minus it. `from` and `to` are the segment's
/// ends on screen (pixels). The rule is symmetric: both ends pick the same axis.
pub fn line_offset(from: [f32; 2], to: [f32; 2], width: u8) -> [f32; 2] {
    let half = width as f32 / 12.0;
    let (dx, dy) = (to[0] - from[0], to[1] - from[1]);
    if dx.abs() > dy.abs() {
        [0.0, half]
    } else {
        [half, 0.0]
    }
}

/// The four corners a segment (a, b) becomes, as (end is b, side +1 or −1), and the two
/// triangles over them (corner indices): a+, a−, b+, b−.
pub const LINE_CORNERS: [(bool, f32); 4] = [(false, 1.0), (false, -1.0), (true, 1.0), (true, -1.0)];
pub const LINE_QUAD: [u32; 6] = [0, 2, 3, 0, 3, 1];

/// WGSL: the clip position of a line corner — `clip` the corner's end, `other` the
/// segment's other end, `side` ±1, `vp` the render size (`DrawUniforms::viewport`) —
/// moved by [`line_offset`] on screen, before snapping (GX adds the width to the ends'
/// screen positions and snaps the quad like any triangle).
pub fn line_corner_wgsl() -> String {
    let half = LINE_WIDTH as f32 / 12.0;
    format!(
        "
const GX_LINE_HALF_WIDTH: f32 = {half:?};

fn gx_line_corner(clip: vec4<f32>, other: vec4<f32>, side: f32, vp: vec4<f32>) -> vec4<f32> {{
    let size = max(vp.xy, vec2<f32>(1.0));
    let w0 = select(1.0, clip.w, clip.w > 0.0);
    let w1 = select(1.0, other.w, other.w > 0.0);
    let s0 = vec2<f32>(clip.x / w0 * 0.5 + 0.5, 0.5 - clip.y / w0 * 0.5) * size;
    let s1 = vec2<f32>(other.x / w1 * 0.5 + 0.5, 0.5 - other.y / w1 * 0.5) * size;
    let d = s1 - s0;
    let across = abs(d.x) > abs(d.y);
    let offset = select(vec2<f32>(GX_LINE_HALF_WIDTH, 0.0), vec2<f32>(0.0, GX_LINE_HALF_WIDTH), across) * side;
    return vec4<f32>(clip.xy + offset * vec2<f32>(2.0, -2.0) / size * clip.w, clip.zw);
}}
"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_widen_across_their_major_axis_by_the_register_width() {
        // Mostly horizontal: widens in y by half the width each side.
        assert_eq!(line_offset([0.0, 0.0], [10.0, 3.0], 6), [0.0, 0.5]);
        assert_eq!(line_offset([10.0, 3.0], [0.0, 0.0], 6), [0.0, 0.5]);
        // Mostly vertical, and exactly diagonal (not "more across than down"): x.
        assert_eq!(line_offset([0.0, 0.0], [3.0, -10.0], 6), [0.5, 0.0]);
        assert_eq!(line_offset([0.0, 0.0], [4.0, 4.0], 6), [0.5, 0.0]);
        // Width 12/6 = 2 px.
        assert_eq!(line_offset([0.0, 0.0], [1.0, 0.0], 12), [0.0, 1.0]);
    }

    #[test]
    fn the_quad_covers_both_sides_of_the_segment() {
        // Corners a+, b+, b− and a+, b−, a−: every corner once, both triangles on the
        // segment's diagonal a+ — b−.
        let mut seen = LINE_QUAD.to_vec();
        seen.sort();
        seen.dedup();
        assert_eq!(seen, [0, 1, 2, 3]);
        assert_eq!(LINE_CORNERS[LINE_QUAD[0] as usize], (false, 1.0));
        assert_eq!(LINE_CORNERS[LINE_QUAD[2] as usize], (true, -1.0));
        assert!(line_corner_wgsl().contains("GX_LINE_HALF_WIDTH: f32 = 0.5;"));
    }
}
