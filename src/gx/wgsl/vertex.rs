//! Vertex stage of the generated shader: transform, texgen and lighting channels.
//!
//! INTERIM: a minimal pass-through (identity texgens from TEXn, unlit channels
//! outputting the material register). The vertex-side work replaces the body of
//! [`generate_vertex_stage`] and extends [`VertexKey`]; the names and the
//! `DrawUniforms` layout stay as the interface (see [`super::interface`]).

use bytemuck::{Pod, Zeroable};
use serde::Serialize;

use super::interface::{vertex_in_struct, vertex_out_struct};
use crate::gx::types::{Material, TexGen};

/// Everything about the vertex stage that changes the generated code.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct VertexKey {
    pub texgens: Vec<TexGen>,
}

impl VertexKey {
    pub fn for_material(material: &Material) -> Self {
        Self {
            texgens: material.texgens.clone(),
        }
    }
}

/// One GX light as the shader sees it (view space).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct GpuLight {
    /// xyz = view-space position.
    pub position: [f32; 4],
    /// xyz = view-space direction as GX stores it (negated).
    pub direction: [f32; 4],
    /// RGBA, 0..255.
    pub color: [f32; 4],
    /// a0, a1, a2 (angle attenuation).
    pub cos_atten: [f32; 4],
    /// k0, k1, k2 (distance attenuation).
    pub dist_atten: [f32; 4],
}

/// `DrawUniforms` (group 0, binding 0): all per-draw vertex-side values.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Pod, Zeroable)]
pub struct DrawUniforms {
    pub clip_from_model: [[f32; 4]; 4],
    pub view_from_model: [[f32; 4]; 4],
    /// Inverse-transpose of `view_from_model` (upper 3×3 used).
    pub normal_view_from_model: [[f32; 4]; 4],
    /// TEXMTX0–9, three rows each (3×4, applied to column vectors).
    pub tex_mtx: [[[f32; 4]; 3]; 10],
    /// PTTEXMTX0–19, three rows each.
    pub post_mtx: [[[f32; 4]; 3]; 20],
    /// Ambient register of channel 0 and 1 (RGBA, 0..255).
    pub channel_ambient: [[f32; 4]; 2],
    /// Material register of channel 0 and 1 (RGBA, 0..255).
    pub channel_material: [[f32; 4]; 2],
    pub lights: [GpuLight; 8],
    /// x = light mask (bit j = light j), yzw unused.
    pub light_mask: [u32; 4],
}

impl Default for DrawUniforms {
    fn default() -> Self {
        let ident4 = [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0, 1.0],
        ];
        let ident3x4 = [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ];
        Self {
            clip_from_model: ident4,
            view_from_model: ident4,
            normal_view_from_model: ident4,
            tex_mtx: [ident3x4; 10],
            post_mtx: [ident3x4; 20],
            channel_ambient: [[0.0, 0.0, 0.0, 255.0]; 2],
            channel_material: [[255.0; 4]; 2],
            lights: [GpuLight::zeroed(); 8],
            light_mask: [0; 4],
        }
    }
}

/// WGSL declarations of `GpuLight` and `DrawUniforms` (must match the Rust layout).
pub fn draw_uniforms_wgsl() -> &'static str {
    "struct GpuLight {
    position: vec4<f32>,
    direction: vec4<f32>,
    color: vec4<f32>,
    cos_atten: vec4<f32>,
    dist_atten: vec4<f32>,
}

struct DrawUniforms {
    clip_from_model: mat4x4<f32>,
    view_from_model: mat4x4<f32>,
    normal_view_from_model: mat4x4<f32>,
    tex_mtx: array<vec4<f32>, 30>,
    post_mtx: array<vec4<f32>, 60>,
    channel_ambient: array<vec4<f32>, 2>,
    channel_material: array<vec4<f32>, 2>,
    lights: array<GpuLight, 8>,
    light_mask: vec4<u32>,
}

@group(0) @binding(0) var<uniform> u_draw: DrawUniforms;
"
}

/// Appends the vertex stage (uniform declarations, `VertexIn`, `VertexOut`, `vs_main`).
pub fn generate_vertex_stage(key: &VertexKey, out: &mut String) {
    out.push_str(draw_uniforms_wgsl());
    out.push('\n');
    out.push_str(&vertex_in_struct());
    out.push('\n');
    out.push_str(&vertex_out_struct(key.texgens.len()));
    out.push_str("\n@vertex\nfn vs_main(v: VertexIn) -> VertexOut {\n    var o: VertexOut;\n");
    out.push_str("    o.clip_position = u_draw.clip_from_model * vec4<f32>(v.position, 1.0);\n");
    out.push_str("    o.color0 = u_draw.channel_material[0] / 255.0;\n");
    out.push_str("    o.color1 = u_draw.channel_material[1] / 255.0;\n");
    for (i, tg) in key.texgens.iter().enumerate() {
        let src = match tg.source {
            crate::gx::types::TexGenSrc::Tex(n) => format!("v.tex{n}"),
            _ => "vec2<f32>(0.0)".to_string(),
        };
        out.push_str(&format!("    o.tc{i} = vec3<f32>({src}, 1.0);\n"));
    }
    out.push_str("    return o;\n}\n");
}
