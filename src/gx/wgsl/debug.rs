//! Debug views (`render --debug VIEW`): the specialized fragment stage writes one
//! intermediate value of the pipeline instead of the TEV's pixel.
//!
//! The view is structure ([`crate::gx::key::FragmentKey::debug`]): switching views builds
//! another pipeline, while value edits (konsts, registers, lights, texture matrices) still
//! only rewrite uniforms and show in the view at once. Each view is one small WGSL
//! function here; a debug shader writes alpha 1 and never blends in the shader, so the view
//! shows what it names rather than a mix with the background (fixed-function blending of
//! transparent materials still applies).
//!
//! Two views need more than a fragment function: `wireframe` draws the shaded pixels and
//! the renderer draws every triangle's edges over them (`render::debug_pass`), and
//! `overdraw` replaces the material's blending and depth state with additive counting.

use serde::Serialize;

/// What a debug shader shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum DebugView {
    /// Texgen N's coordinate (s/q, t/q) as a checker of 8 × 8 cells per unit, tinted by
    /// its fractional part (red = u, green = v); magenta where the material has no texgen N.
    Uv(u8),
    /// The TEV's output alpha as grey.
    Alpha,
    /// Lit colour channel 0 (COLOR0), as the rasterizer delivers it to the TEV.
    Raster,
    /// The view-space normal (after skinning) as colour: xyz −1…1 → rgb 0…1.
    Normals,
    /// The TEV program with every texture read as white: lighting, konsts and registers.
    Lighting,
    /// Distance from the eye as grey: white half the orbit distance in front of the eye,
    /// black half of it behind the orbit target (linearised from the window depth).
    Depth,
    /// The shaded model with every triangle's edges drawn over it (a line pass).
    Wireframe,
    /// Fragments per pixel, counted with additive blending and no depth test over black:
    /// opaque materials add blue (an eighth each), blended (depth-sorted) ones add orange, so the layers the
    /// layers of blended materials show as warm. `blended` is filled in per
    /// material by [`DebugView::in_shader`].
    Overdraw { blended: bool },
}

impl DebugView {
    /// Parses a view's command-line name (`uv0`…`uv7`, `alpha`, `raster`, `lighting`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "alpha" => Some(Self::Alpha),
            "raster" => Some(Self::Raster),
            "lighting" => Some(Self::Lighting),
            "normals" => Some(Self::Normals),
            "depth" => Some(Self::Depth),
            "wireframe" => Some(Self::Wireframe),
            "overdraw" => Some(Self::Overdraw { blended: false }),
            _ => {
                let n: u8 = name.strip_prefix("uv")?.parse().ok()?;
                (n < 8).then_some(Self::Uv(n))
            }
        }
    }

    /// Every view (for tests and help text).
    pub fn all() -> Vec<Self> {
        let mut v = vec![
            Self::Normals,
            Self::Alpha,
            Self::Raster,
            Self::Lighting,
            Self::Depth,
            Self::Wireframe,
            Self::Overdraw { blended: false },
        ];
        v.extend((0..8).map(Self::Uv));
        v
    }

    pub fn name(self) -> String {
        match self {
            Self::Uv(n) => format!("uv{n}"),
            Self::Alpha => "alpha".into(),
            Self::Raster => "raster".into(),
            Self::Lighting => "lighting".into(),
            Self::Normals => "normals".into(),
            Self::Depth => "depth".into(),
            Self::Wireframe => "wireframe".into(),
            Self::Overdraw { .. } => "overdraw".into(),
        }
    }

    /// What the fragment stage of a material draws for this view (`blends`: the material
    /// blends with the destination): None for `wireframe`, whose triangles shade as usual.
    pub fn in_shader(self, blends: bool) -> Option<Self> {
        match self {
            Self::Wireframe => None,
            Self::Overdraw { .. } => Some(Self::Overdraw { blended: blends }),
            v => Some(v),
        }
    }

    /// Whether the renderer replaces the material's blend and depth state (additive
    /// counting, no depth test or write).
    pub fn counts_fragments(self) -> bool {
        matches!(self, Self::Overdraw { .. })
    }

    /// Whether the vertex stage passes the normal on (`VertexOut.debug_normal`).
    pub fn needs_normal(self) -> bool {
        self == Self::Normals
    }

    /// Whether textures read as white (the TEV runs on lighting alone).
    pub fn white_textures(self) -> bool {
        self == Self::Lighting
    }

    /// The WGSL function this view calls.
    pub fn function(self) -> &'static str {
        match self {
            Self::Uv(_) => DEBUG_UV,
            Self::Alpha => DEBUG_ALPHA,
            Self::Raster => DEBUG_RASTER,
            Self::Lighting => DEBUG_LIGHTING,
            Self::Normals => DEBUG_NORMALS,
            Self::Depth => DEBUG_DEPTH,
            Self::Overdraw { .. } => DEBUG_OVERDRAW,
            Self::Wireframe => "",
        }
    }

    /// The expression `fs_main` returns, given `pixel` (the TEV output, 8-bit lanes) and
    /// `in` (`VertexOut` with `texcoord_count` texgens).
    pub fn output_expr(self, texcoord_count: u8) -> String {
        match self {
            Self::Uv(n) if n < texcoord_count => format!("debug_uv(in.tc{n})"),
            Self::Uv(_) => "vec4<f32>(1.0, 0.0, 1.0, 1.0)".into(),
            Self::Alpha => "debug_alpha(pixel)".into(),
            Self::Raster => "debug_raster(in.color0)".into(),
            Self::Lighting => "debug_lighting(pixel)".into(),
            Self::Normals => "debug_normals(in.debug_normal)".into(),
            Self::Depth => "debug_depth(in.clip_position.z)".into(),
            Self::Overdraw { blended } => format!("debug_overdraw({blended})"),
            // Never in a shader (`in_shader`); the shaded pixel if it were.
            Self::Wireframe => "vec4<f32>(pixel) / 255.0".into(),
        }
    }
}

const DEBUG_UV: &str = "
// Debug view: a texgen's coordinate as a checker tinted by (fract(u), fract(v)).
fn debug_uv(tc: vec3<f32>) -> vec4<f32> {
    let uv = tev_uv(tc);
    let cell = vec2<i32>(floor(uv * 8.0));
    let tint = vec3<f32>(fract(uv), 0.25);
    let dark = ((cell.x + cell.y) & 1) == 1;
    return vec4<f32>(select(tint, tint * 0.45, dark), 1.0);
}
";

const DEBUG_ALPHA: &str = "
// Debug view: the TEV's alpha as grey.
fn debug_alpha(pixel: vec4<i32>) -> vec4<f32> {
    return vec4<f32>(vec3<f32>(f32(pixel.a) / 255.0), 1.0);
}
";

const DEBUG_RASTER: &str = "
// Debug view: lit colour channel 0 as the TEV receives it.
fn debug_raster(color0: vec4<f32>) -> vec4<f32> {
    return vec4<f32>(clamp(color0.rgb, vec3<f32>(0.0), vec3<f32>(1.0)), 1.0);
}
";

const DEBUG_NORMALS: &str = "
// Debug view: the interpolated view-space normal, renormalized, as colour.
fn debug_normals(n: vec3<f32>) -> vec4<f32> {
    let len = length(n);
    let unit = select(vec3<f32>(0.0), n / len, len > 0.0);
    return vec4<f32>(unit * 0.5 + vec3<f32>(0.5), 1.0);
}
";

const DEBUG_LIGHTING: &str = "
// Debug view: the TEV's colour with white textures.
fn debug_lighting(pixel: vec4<i32>) -> vec4<f32> {
    return vec4<f32>(vec3<f32>(pixel.rgb) / 255.0, 1.0);
}
";

/// The depth view's mapping (see [`DebugView::Depth`]); the projection's planes are
/// `crate::camera`'s: near = 0.01 × distance, far = 100 × distance.
const DEBUG_DEPTH: &str = "
// Debug view: the eye distance from the window depth as grey. With near = 0.01 d and
// far = 100 d (d = orbit distance), view depth / d = 0.01 / (1 - z (1 - 1e-4)); white at
// 0.5 d, black at 1.5 d.
fn debug_depth(z: f32) -> vec4<f32> {
    let along = 0.01 / max(1.0 - z * 0.9999, 1e-6);
    let grey = clamp(1.5 - along, 0.0, 1.0);
    return vec4<f32>(vec3<f32>(grey), 1.0);
}
";

const DEBUG_OVERDRAW: &str = "
// Debug view: one fragment's share of the count, added by the blend unit (8 opaque
// layers reach full blue; blended layers add orange). Alpha replaces: 1 where drawn.
fn debug_overdraw(blended: bool) -> vec4<f32> {
    return select(vec4<f32>(0.0, 0.05, 0.125, 1.0), vec4<f32>(0.25, 0.1, 0.0, 1.0), blended);
}
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for v in DebugView::all() {
            assert_eq!(DebugView::parse(&v.name()), Some(v));
        }
        assert_eq!(DebugView::parse("uv8"), None);
        assert_eq!(DebugView::parse("normal"), None);
        assert_eq!(DebugView::Wireframe.in_shader(true), None);
        assert_eq!(
            DebugView::Overdraw { blended: false }.in_shader(true),
            Some(DebugView::Overdraw { blended: true })
        );
    }
}
