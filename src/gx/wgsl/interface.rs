//! The fixed interface between the generated vertex stage, the generated fragment stage
//! and the renderer: vertex attributes, inter-stage values and bind-group slots.
//!
//! Both halves of a generated shader and `render/` follow this file, so it changes only
//! with all three.
//!
//! ## Vertex buffer 0 (interleaved [`GpuVertex`])
//! The buffer always holds every attribute; a pipeline declares only those its vertex
//! stage reads ([`VertexInputs`]), so a software rasteriser fetches no more than that.
//! | location | attribute | WGSL type | notes |
//! |---|---|---|---|
//! | 0 | position | `vec3<f32>` | model space |
//! | 1 | normal | `vec3<f32>` | model space; (0,0,1) when the model has none |
//! | 2 | colour 0 | `vec4<f32>` (Unorm8x4) | 255s when the model has no vertex colours (`gx.md` §10.2) |
//! | 3 | colour 1 | `vec4<f32>` (Unorm8x4) | likewise |
//! | 4–11 | tex0–tex7 | `vec2<f32>` | float or short UVs already converted; 0 when absent |
//!
//! Skinned draws add a second buffer (locations 12: `vec4<u32>` bone palette indices,
//! 13: `vec4<f32>` weights), defined by the skinning code.
//!
//! ## Vertex → fragment (`VertexOut`)
//! `@builtin(position) clip_position`, `@location(0) color0: vec4<f32>` (lit channel 0:
//! rgb = COLOR0, a = ALPHA0, each the final 8-bit value / 255), `@location(1) color1`,
//! then `@location(2 + i) tc{i}: vec3<f32>` for each texgen i: homogeneous (s, t, q);
//! the fragment stage divides by q.
//!
//! ## Bind groups
//! - group 0, binding 0: `DrawUniforms` (vertex side: matrices, texture and post
//!   matrices, lights, channel colours) — [`super::vertex`].
//! - group 0, binding 1: `TevUniforms` (fragment side: konsts, registers) — the TEV
//!   generator.
//! - group 0, binding 2: the ubershader's program buffer (ubershader only).
//! - group 0, binding 4 + 2k: `texture_2d<f32>` of texture map k; binding 5 + 2k: its
//!   sampler. One group per material, so a change of material binds one group.
//! - group 1: skinning palette (skinned draws only).
//! - group 2, binding 0: `texture_2d<f32>` copy of the destination (specialized shaders that
//!   blend themselves, [`crate::gx::key::FragmentKey::shader_blend`], only).

use bytemuck::{Pod, Zeroable};

pub const LOC_POSITION: u32 = 0;
pub const LOC_NORMAL: u32 = 1;
pub const LOC_COLOR0: u32 = 2;
pub const LOC_COLOR1: u32 = 3;
/// Location of tex0; texN is at `LOC_TEX0 + N`.
pub const LOC_TEX0: u32 = 4;
pub const LOC_BONE_INDICES: u32 = 12;
pub const LOC_BONE_WEIGHTS: u32 = 13;
/// A line corner's other end and side ([`GpuLineVertex`], vertex buffer 1 of line draws).
pub const LOC_LINE_OTHER: u32 = 14;

/// Per-vertex input of GX line draws (`gx::lines`): each segment becomes four corners, each
/// a copy of its end's [`GpuVertex`] plus this: the segment's other end (model space) and
/// which side of the segment the corner lies on (±1).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct GpuLineVertex {
    pub other: [f32; 3],
    pub side: f32,
}

/// Group 0 holds everything one material's draw reads: `DrawUniforms`, `TevUniforms`, the
/// ubershader's program and the eight texture maps with their samplers. Changing material
/// between draws then binds one group, not two (each bind is work for the driver).
pub const GROUP_MATERIAL: u32 = 0;
pub const BINDING_DRAW_UNIFORMS: u32 = 0;
pub const BINDING_TEV_UNIFORMS: u32 = 1;
pub const BINDING_UBER_PROGRAM: u32 = 2;
/// Texture map k is at binding `BINDING_TEXTURE_MAP0 + 2k`, its sampler at the next one.
pub const BINDING_TEXTURE_MAP0: u32 = 4;
/// The bone palette of skinned draws (`SKINNING_WGSL`).
pub const GROUP_SKIN: u32 = 1;
/// The destination copy of shaders that blend themselves.
pub const GROUP_DESTINATION: u32 = 2;

/// Binding of texture map `map` in [`GROUP_MATERIAL`] (its sampler is the next one).
pub const fn texture_map_binding(map: u32) -> u32 {
    BINDING_TEXTURE_MAP0 + 2 * map
}

/// One vertex as the renderer uploads it (96 bytes).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuVertex {
    pub position: [f32; 3],
    pub normal: [f32; 3],
    pub color0: [u8; 4],
    pub color1: [u8; 4],
    pub tex: [[f32; 2]; 8],
}

impl Default for GpuVertex {
    fn default() -> Self {
        Self {
            position: [0.0; 3],
            normal: [0.0, 0.0, 1.0],
            color0: [255; 4],
            color1: [255; 4],
            tex: [[0.0; 2]; 8],
        }
    }
}

/// Which optional attributes of [`GpuVertex`] a vertex stage reads (position and normal
/// always): the pipeline declares just these, and the generated `VertexIn` names just these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct VertexInputs {
    /// Colour 0 and colour 1.
    pub colors: [bool; 2],
    /// Bit n: tex n.
    pub tex: u8,
}

impl VertexInputs {
    /// Every attribute (shaders not generated from a key).
    pub const ALL: Self = Self {
        colors: [true; 2],
        tex: 0xFF,
    };

    /// Whether the attribute at shader `location` is read.
    pub fn reads(&self, location: u32) -> bool {
        match location {
            LOC_POSITION | LOC_NORMAL => true,
            LOC_COLOR0 => self.colors[0],
            LOC_COLOR1 => self.colors[1],
            l if (LOC_TEX0..LOC_TEX0 + 8).contains(&l) => self.tex & (1 << (l - LOC_TEX0)) != 0,
            _ => false,
        }
    }
}

/// WGSL declaration of the vertex input struct: the attributes of [`GpuVertex`] that
/// `inputs` reads.
pub fn vertex_in_struct(inputs: VertexInputs) -> String {
    let mut s = String::from(
        "struct VertexIn {\n    @location(0) position: vec3<f32>,\n    @location(1) normal: vec3<f32>,\n",
    );
    for c in 0..2u32 {
        if inputs.reads(LOC_COLOR0 + c) {
            s += &format!("    @location({}) color{c}: vec4<f32>,\n", LOC_COLOR0 + c);
        }
    }
    for i in 0..8 {
        if inputs.reads(LOC_TEX0 + i) {
            s += &format!("    @location({}) tex{i}: vec2<f32>,\n", LOC_TEX0 + i);
        }
    }
    s += "}\n";
    s
}

/// Location of `VertexOut.debug_normal` (the `normals` debug view only), after tc7.
pub const LOC_DEBUG_NORMAL: u32 = 10;

/// WGSL declaration of `VertexOut` for a material with `texcoord_count` texgens; with
/// `debug_normal`, also the view-space normal ([`crate::gx::wgsl::debug`]).
pub fn vertex_out_struct(texcoord_count: usize, debug_normal: bool) -> String {
    let mut s = String::from(
        "struct VertexOut {\n    @builtin(position) clip_position: vec4<f32>,\n    @location(0) @interpolate(linear) color0: vec4<f32>,\n    @location(1) @interpolate(linear) color1: vec4<f32>,\n",
    );
    for i in 0..texcoord_count {
        s += &format!("    @location({}) tc{i}: vec3<f32>,\n", 2 + i);
    }
    if debug_normal {
        s += &format!("    @location({LOC_DEBUG_NORMAL}) debug_normal: vec3<f32>,\n");
    }
    s += &format!("    @location({LOC_UNSNAP}) @interpolate(linear) unsnap: vec2<f32>,\n}}\n");
    // Attributes are wanted where GX's setup engine evaluates them: on the triangle the
    // camera gave (before snapping), at the pixel centre. The snapped triangle maps each
    // pixel p to p + unsnap of the given one, so one derivative step takes them back.
    // A true offset is at most 3/32 px a side (rounding plus the sample's 1/16); the
    // bound keeps a host clipper's stray value (seen on lavapipe at the frame's edge) from
    // moving a whole triangle's attributes.
    s += "\n// The attributes of the unsnapped triangle at this pixel's centre (gx_snap).\nfn gx_at_sample(raw: VertexOut) -> VertexOut {\n    var o = raw;\n    let d = clamp(raw.unsnap, vec2<f32>(-0.125), vec2<f32>(0.125));\n";
    let mut fields = vec!["color0".to_string(), "color1".to_string()];
    fields.extend((0..texcoord_count).map(|i| format!("tc{i}")));
    for f in fields {
        s += &format!("    o.{f} = raw.{f} - dpdxFine(raw.{f}) * d.x - dpdyFine(raw.{f}) * d.y;\n");
    }
    s += "    return o;\n}\n";
    s
}

/// Location of `VertexOut.unsnap`: the pixel offset from a snapped vertex to where the
/// camera put it (`gx::wgsl::vertex::GX_SNAP_WGSL`), interpolated in screen space.
pub const LOC_UNSNAP: u32 = 11;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gpu_vertex_is_96_bytes() {
        assert_eq!(std::mem::size_of::<GpuVertex>(), 96);
    }
}
