//! Debug views (`render --debug VIEW`): the specialized fragment stage writes one
//! intermediate value of the pipeline instead of the TEV's pixel.
//!
//! The view is structure ([`crate::gx::key::FragmentKey::debug`]): switching views builds
//! another pipeline, while value edits (konsts, registers, lights, texture matrices) still
//! only rewrite uniforms and show in the view at once. Each view is one small WGSL
//! function here; a debug shader writes alpha 1 and never blends in the shader, so the view
//! shows what it names rather than a mix with the background (fixed-function blending of
//! transparent materials still applies).

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
}

impl DebugView {
    /// Parses a view's command-line name (`uv0`…`uv7`, `alpha`, `raster`, `lighting`).
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "alpha" => Some(Self::Alpha),
            "raster" => Some(Self::Raster),
            "lighting" => Some(Self::Lighting),
            "normals" => Some(Self::Normals),
            _ => {
                let n: u8 = name.strip_prefix("uv")?.parse().ok()?;
                (n < 8).then_some(Self::Uv(n))
            }
        }
    }

    /// Every view (for tests and help text).
    pub fn all() -> Vec<Self> {
        let mut v = vec![Self::Normals, Self::Alpha, Self::Raster, Self::Lighting];
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
        }
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
    }
}
