//! Vertex stage of the generated shader: transform, lighting channels and texgen
//! (`gx.md` §10–11, §15).
//!
//! The structure (texgen types/sources/matrix ids/normalize/post ids, channel enables,
//! sources and functions) is the [`VertexKey`]; every value (matrices, lights, channel
//! registers, the light mask and the runtime lighting enable) is a [`DrawUniforms`]
//! uniform, so a light count change or a new UV-animation frame never recompiles.
//!
//! Generated `vs_main` reads like the GX state that produced it: view-space position
//! and normal, then one block per colour channel (COLOR0, ALPHA0, COLOR1, ALPHA1), then
//! one block per texgen, each with a comment naming its GX settings. Lighting follows
//! §10.1: per light in float with rounding per light (or, as an option, a float sum
//! truncated once), then the clamp and the final
//! integer step `(mat · (lacc + (lacc >> 7))) >> 8` in i32.
//!
//! `gx::lighting` is the CPU reference of exactly this code (same uniforms, same key).

use std::fmt::Write as _;

use bytemuck::{Pod, Zeroable};
use serde::Serialize;

use super::interface::{VertexInputs, vertex_in_struct, vertex_out_struct};
use crate::gx::types::{
    AttnFn, ChannelControl, ColorSrc, DiffuseFn, GX_IDENTITY, GX_PTIDENTITY, Material, TexGen,
    TexGenSrc, TexGenType,
};

/// Index of each GX colour-channel control in [`VertexKey::channels`].
pub const CH_COLOR0: usize = 0;
pub const CH_ALPHA0: usize = 1;
pub const CH_COLOR1: usize = 2;
pub const CH_ALPHA1: usize = 3;
/// Names of the four controls, in [`VertexKey::channels`] order.
pub const CHANNEL_NAMES: [&str; 4] = ["COLOR0", "ALPHA0", "COLOR1", "ALPHA1"];

/// Structural Default/Alt switches of `gx.md` §10.2 (value-only switches live in
/// `gx::frame::ChannelOptions`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct VertexKeyOptions {
    /// *Alt:* ALPHA0/ALPHA1 read the material register (written as alpha 0 by the frame
    /// update) instead of the GX default vertex alpha.
    pub alpha_from_register: bool,
}

/// Everything about the vertex stage that changes the generated code.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct VertexKey {
    pub texgens: Vec<TexGen>,
    /// COLOR0, ALPHA0, COLOR1, ALPHA1 (see [`CH_COLOR0`] …). `light_mask` is always 0
    /// here: the mask is a uniform. A control with `lighting` set generates the lit path,
    /// which `DrawUniforms::channel_lit` still switches off at run time (the engine
    /// disables COLOR0 lighting when no lights are active).
    pub channels: [ChannelControl; 4],
    /// GPU skinning: positions and normals come from the bone palette (group 1) and the
    /// per-vertex influences of vertex buffer 1 (see [`SKINNING_WGSL`]).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skinned: bool,
    /// UV-space raster (`export --bake`): the clip position comes from vertex UV set N
    /// (u, v in 0…1 cover the target, v down) while every other output still comes
    /// from the real position, so the fragment stage evaluates the full TEV.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bake_uv: Option<u8>,
    /// Skinned normals blend every weight's rotation and renormalise (MP3, `formats.md`
    /// §13.4 Default) instead of taking the first weight's (MP1/MP2, §7.5).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub blended_normals: bool,
    /// GX lines (`gx::lines`): the draw's vertices are line corners, each moved across its
    /// segment on screen by half the line width (vertex buffer 1, [`super::interface::GpuLineVertex`]).
    /// Not with `skinned` (skinned models draw their lines on the host's line list).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub line: bool,
}

/// Bones the skinning palette holds: 160 × 96 bytes fits the 16 KiB minimum uniform
/// buffer size (Prime skeletons have well under 100 bones).
pub const MAX_SKIN_BONES: usize = 160;

/// Declarations of skinned draws: the per-vertex influences (vertex buffer 1) and the
/// bone palette (group 1, [`crate::anim::GpuBoneMatrices`] rows; the palette is laid out
/// by `render/`, so the shader only reads rows).
pub const SKINNING_WGSL: &str = "struct SkinIn {
    @location(12) bone_indices: vec4<u32>,
    @location(13) bone_weights: vec4<f32>,
}

struct SkinBone {
    model_from_bind: array<vec4<f32>, 3>,
    normal_from_bind: array<vec4<f32>, 3>,
}

struct SkinPalette {
    bones: array<SkinBone, 160>,
}

@group(1) @binding(0) var<uniform> u_skin: SkinPalette;

fn skin_rows(r: array<vec4<f32>, 3>, p: vec4<f32>) -> vec3<f32> {
    return vec3<f32>(dot(r[0], p), dot(r[1], p), dot(r[2], p));
}
";

/// An unlit control with register sources.
const UNLIT_REG: ChannelControl = ChannelControl {
    lighting: false,
    ambient_src: ColorSrc::Register,
    material_src: ColorSrc::Register,
    light_mask: 0,
    diffuse_fn: DiffuseFn::None,
    attn_fn: AttnFn::None,
};

impl VertexKey {
    /// The vertex colours and UV sets the generated stage reads: a channel's vertex
    /// material or (lit) ambient source, a texgen's `TEXn` source, the bake's UV set.
    pub fn inputs(&self) -> VertexInputs {
        let mut inputs = VertexInputs::default();
        for (i, c) in self.channels.iter().enumerate() {
            let ambient = c.lighting && c.ambient_src == ColorSrc::Vertex;
            if c.material_src == ColorSrc::Vertex || ambient {
                inputs.colors[i / 2] = true;
            }
        }
        let uv_sets = self.texgens.iter().filter_map(|tg| match tg.source {
            TexGenSrc::Tex(n) => Some(n),
            _ => None,
        });
        for n in uv_sets.chain(self.bake_uv) {
            inputs.tex |= 1u8.checked_shl(u32::from(n)).unwrap_or(0);
        }
        inputs
    }

    pub fn for_material(material: &Material) -> Self {
        Self::for_material_with(material, &VertexKeyOptions::default())
    }

    /// The key for a material as Prime sets up its channels (`gx.md` §10.2):
    /// COLOR0 from the first channel word (unlit REG when the channel count is 0), COLOR1
    /// unlit REG (its register decides white/black/0), ALPHA0/ALPHA1 the GX default
    /// (unlit, vertex alpha).
    pub fn for_material_with(material: &Material, options: &VertexKeyOptions) -> Self {
        let color0 = match material.color0 {
            Some(w) if material.channel_count >= 1 => ChannelControl { light_mask: 0, ..w },
            _ => UNLIT_REG,
        };
        let alpha = if options.alpha_from_register {
            UNLIT_REG
        } else {
            ChannelControl::GX_DEFAULT
        };
        Self {
            texgens: material.texgens.clone(),
            channels: [color0, alpha, UNLIT_REG, alpha],
            skinned: false,
            bake_uv: None,
            blended_normals: false,
            line: false,
        }
    }

    /// Whether any channel has lighting code.
    pub fn any_lighting(&self) -> bool {
        self.channels.iter().any(|c| c.lighting)
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
    /// TEXMTX0–9, three rows each (3×4, applied to column vectors): GX matrix rows 30–59.
    pub tex_mtx: [[[f32; 4]; 3]; 10],
    /// PTTEXMTX0–19, three rows each: GX post-matrix rows 64–123.
    pub post_mtx: [[[f32; 4]; 3]; 20],
    /// Ambient register of channel 0 and 1 (RGBA, 0..255).
    pub channel_ambient: [[f32; 4]; 2],
    /// Material register of channel 0 and 1 (RGBA, 0..255).
    pub channel_material: [[f32; 4]; 2],
    pub lights: [GpuLight; 8],
    /// x = light mask (bit j = light j), y = how lights sum
    /// ([`crate::gx::lighting::LaccSum::uniform_word`]), zw unused.
    pub light_mask: [u32; 4],
    /// Run-time lighting enable per control, x = COLOR0, y = ALPHA0, z = COLOR1,
    /// w = ALPHA1 (non-zero = lit). Only honoured where the key generated lighting code;
    /// the engine clears COLOR0's enable when no lights are active (`gx.md` §10.2).
    pub channel_lit: [u32; 4],
    /// The render target's size for GX's vertex snapping ([`raster_viewport`]); all zero
    /// (the default) leaves positions as the camera puts them.
    pub viewport: [f32; 4],
}

/// `viewport` of [`DrawUniforms`] (and the pick pass) for a `width` × `height` target:
/// x, y = size in pixels, z = 1 when positions snap to GX's grid. `exact` false keeps the
/// host GPU's own rules (a switch for hosts whose rasteriser cannot hold the grid).
pub fn raster_viewport(width: u32, height: u32, exact: bool) -> [f32; 4] {
    [
        width as f32,
        height as f32,
        if exact { 1.0 } else { 0.0 },
        0.0,
    ]
}

/// Where a clip-space position lands on GX's raster grid (`gx_snap`): the setup engine
/// holds screen x and y (after the viewport transform, y down) in 1/16 pixel and tests
/// coverage at 9/16 of a pixel from its top-left corner, where the host GPU tests at its
/// centre; so each vertex is rounded to 1/16 and the whole triangle moved up-left by 1/16
/// px, which puts the GPU's sample where GX's is. Branch-free: lavapipe recompiles a
/// shader whose branch a uniform decides on every bind. Vertices at or behind the eye
/// (w <= 0) or more than 8192 px off-screen stay put; the clipper decides those.
pub const GX_SNAP_WGSL: &str = "
fn gx_snap(clip: vec4<f32>, vp: vec4<f32>) -> vec4<f32> {
    let size = max(vp.xy, vec2<f32>(1.0));
    let ndc = clip.xy / select(1.0, clip.w, clip.w > 0.0);
    let screen = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5) * size;
    let snapped = (floor(screen * 16.0 + 0.5) - 1.0) / 16.0;
    let back = vec2<f32>(snapped.x / size.x * 2.0 - 1.0, 1.0 - snapped.y / size.y * 2.0) * clip.w;
    // Far off-screen (or near w = 0) f32 holds no 1/16 step: left unsnapped, as the
    // clipper replaces such vertices with ones on the frame's edges anyway.
    let near = all(abs(screen - 0.5 * size) < vec2<f32>(8192.0));
    return select(clip, vec4<f32>(back, clip.zw), vp.z != 0.0 && clip.w > 0.0 && near);
}

// Pixels (x right, y down) from the snapped position to the given one.
fn gx_unsnap(clip: vec4<f32>, snapped: vec4<f32>, vp: vec4<f32>) -> vec2<f32> {
    let w = select(1.0, clip.w, clip.w > 0.0);
    return (clip.xy - snapped.xy) / w * vec2<f32>(0.5, -0.5) * vp.xy;
}
";

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
            channel_lit: [0; 4],
            viewport: [0.0; 4],
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
    channel_lit: vec4<u32>,
    viewport: vec4<f32>,
}

@group(0) @binding(0) var<uniform> u_draw: DrawUniforms;
"
}

/// Where one row of a GX matrix comes from, by GX row address (`gx.md` §11).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MtxRow {
    /// `DrawUniforms::tex_mtx` flattened row r (GX row 30 + r).
    Tex(usize),
    /// `DrawUniforms::post_mtx` flattened row r (GX row 64 + r).
    Post(usize),
    /// Row k of the identity (the SDK loads identity at GX 60 and 125).
    Identity(usize),
    /// A row GX memory holds nothing defined for: zero.
    Zero,
}

/// Rows of a texture matrix id, or None for the identity (GX 60). Misaligned ids read
/// the GX rows they address (row 63 is undefined: zero).
pub fn tex_mtx_rows(gx_id: u32) -> Option<[MtxRow; 3]> {
    if gx_id == GX_IDENTITY {
        return None;
    }
    Some([0, 1, 2].map(|k| match gx_id + k {
        r @ 30..=59 => MtxRow::Tex((r - 30) as usize),
        r @ 60..=62 => MtxRow::Identity((r - 60) as usize),
        _ => MtxRow::Zero,
    }))
}

/// Rows of a post matrix id, or None for PTIDENTITY (125): the post step is skipped.
pub fn post_mtx_rows(gx_id: u32) -> Option<[MtxRow; 3]> {
    if gx_id == GX_PTIDENTITY {
        return None;
    }
    Some([0, 1, 2].map(|k| match gx_id + k {
        r @ 64..=123 => MtxRow::Post((r - 64) as usize),
        r @ 125..=127 => MtxRow::Identity((r - 125) as usize),
        _ => MtxRow::Zero,
    }))
}

fn row_expr(row: MtxRow) -> String {
    match row {
        MtxRow::Tex(r) => format!("u_draw.tex_mtx[{r}]"),
        MtxRow::Post(r) => format!("u_draw.post_mtx[{r}]"),
        MtxRow::Identity(0) => "vec4<f32>(1.0, 0.0, 0.0, 0.0)".into(),
        MtxRow::Identity(1) => "vec4<f32>(0.0, 1.0, 0.0, 0.0)".into(),
        MtxRow::Identity(_) => "vec4<f32>(0.0, 0.0, 1.0, 0.0)".into(),
        MtxRow::Zero => "vec4<f32>(0.0)".into(),
    }
}

fn mtx_name(gx_id: u32, base: u32, count: u32, prefix: &str, identity: u32) -> String {
    if gx_id == identity {
        return format!("{prefix}IDENTITY (GX {gx_id})");
    }
    match gx_id.checked_sub(base) {
        Some(v) if v % 3 == 0 && v / 3 < count => format!("{prefix}TEXMTX{} (GX {gx_id})", v / 3),
        _ => format!("GX matrix rows {gx_id}..{} (misaligned)", gx_id + 2),
    }
}

/// Human-readable one-line description of a texgen (used in generated comments).
pub fn describe_texgen(i: usize, tg: &TexGen) -> String {
    let mut s = format!("texgen {i}: {} from {}", tg.kind.name(), tg.source.name());
    if matches!(tg.kind, TexGenType::Mtx2x4 | TexGenType::Mtx3x4) {
        let _ = write!(
            s,
            " through {}",
            mtx_name(tg.gx_tex_mtx, 30, 10, "", GX_IDENTITY)
        );
        if tg.normalize {
            s += ", normalized";
        }
        let _ = write!(
            s,
            ", post {}",
            mtx_name(tg.gx_post_mtx, 64, 20, "PT", GX_PTIDENTITY)
        );
    }
    s
}

fn describe_channel(name: &str, c: &ChannelControl) -> String {
    let src = |s: ColorSrc| match s {
        ColorSrc::Register => "REG",
        ColorSrc::Vertex => "VTX",
    };
    if c.lighting {
        format!(
            "{name}: lit (enable switched at run time), material {}, ambient {}, diffuse {}, attenuation {}",
            src(c.material_src),
            src(c.ambient_src),
            diffuse_name(c.diffuse_fn),
            attn_name(c.attn_fn)
        )
    } else {
        format!("{name}: unlit, material {}", src(c.material_src))
    }
}

fn diffuse_name(d: DiffuseFn) -> &'static str {
    match d {
        DiffuseFn::None => "NONE",
        DiffuseFn::Sign => "SIGN",
        DiffuseFn::Clamp => "CLAMP",
    }
}

fn attn_name(a: AttnFn) -> &'static str {
    match a {
        AttnFn::Spec => "SPEC",
        AttnFn::Spot => "SPOT",
        AttnFn::None => "NONE",
    }
}

/// Numeric codes shared by the WGSL constants and the CPU reference.
pub fn diffuse_code(d: DiffuseFn) -> u32 {
    match d {
        DiffuseFn::None => 0,
        DiffuseFn::Sign => 1,
        DiffuseFn::Clamp => 2,
    }
}

pub fn attn_code(a: AttnFn) -> u32 {
    match a {
        AttnFn::Spec => 0,
        AttnFn::Spot => 1,
        AttnFn::None => 2,
    }
}

/// Hand-written helpers every vertex stage uses: one function per GX concept.
const VERTEX_HELPERS: &str = "// ---- GX vertex helpers ----
const GX_DF_NONE: u32 = 0u;
const GX_DF_SIGN: u32 = 1u;
const GX_DF_CLAMP: u32 = 2u;
const GX_AF_SPEC: u32 = 0u;
const GX_AF_SPOT: u32 = 1u;
const GX_AF_NONE: u32 = 2u;

// A 0..1 colour as GX's 8-bit integers.
fn gx_u8(c: vec4<f32>) -> vec4<i32> {
    return vec4<i32>(round(c * 255.0));
}

// A register value (0..255 floats) as integers.
fn gx_reg(c: vec4<f32>) -> vec4<i32> {
    return vec4<i32>(round(c));
}

// One light's contribution before rounding (gx.md 10.1 step 4), bounded. Positions and
// the normal are in view space; light.direction is GX's stored (negated) direction.
fn gx_light_term(light: GpuLight, p: vec3<f32>, n: vec3<f32>, diffuse_fn: u32, attn_fn: u32) -> vec4<f32> {
    let v = light.position.xyz - p;
    let dist2 = dot(v, v);
    let dist = sqrt(dist2);
    let l = v / dist;
    let n_dot_l = dot(l, n);
    var diffuse = 1.0;
    if (diffuse_fn == GX_DF_SIGN) {
        diffuse = n_dot_l;
    } else if (diffuse_fn == GX_DF_CLAMP) {
        diffuse = max(0.0, n_dot_l);
    }
    var attn = 1.0;
    if (attn_fn == GX_AF_SPOT) {
        let c = max(0.0, dot(l, light.direction.xyz));
        attn = max(0.0, dot(light.cos_atten.xyz, vec3<f32>(1.0, c, c * c)))
            / dot(light.dist_atten.xyz, vec3<f32>(1.0, dist, dist2));
    } else if (attn_fn == GX_AF_SPEC) {
        var x = 0.0;
        if (n_dot_l >= 0.0) {
            x = max(0.0, dot(n, light.direction.xyz));
        }
        attn = max(0.0, dot(light.cos_atten.xyz, vec3<f32>(1.0, x, x * x)))
            / dot(light.dist_atten.xyz, vec3<f32>(1.0, x, x * x));
    }
    // Bounded before any integer conversion; the sum is clamped to 0..255 anyway.
    return clamp(attn * diffuse * light.color, vec4<f32>(-65536.0), vec4<f32>(65536.0));
}

// A lit channel (gx.md 10.1 steps 3-6): ambient plus the masked lights, clamped, then
// the hardware's final integer step (mat * (lacc + (lacc >> 7))) >> 8.
fn gx_lit_channel(mat: vec4<i32>, amb: vec4<i32>, p: vec3<f32>, n: vec3<f32>, diffuse_fn: u32, attn_fn: u32) -> vec4<i32> {
    var lacc = amb;
    var laccf = vec4<f32>(amb);
    let mask = u_draw.light_mask.x;
    // Branch-free on purpose: Mesa's lavapipe inlines a uniform that decides a branch and
    // then recompiles the shader on every bind.
    for (var j = 0u; j < 8u; j = j + 1u) {
        let term = gx_light_term(u_draw.lights[j], p, n, diffuse_fn, attn_fn);
        let on = (mask & (1u << j)) != 0u;
        lacc = lacc + select(vec4<i32>(0), vec4<i32>(round(term)), on);
        laccf = laccf + select(vec4<f32>(0.0), term, on);
    }
    // gx.md 10.1 step 4: rounded per light (Default), or (u_draw.light_mask.y, Alt) summed
    // in float and truncated once as Dolphin's software renderer does.
    lacc = select(lacc, vec4<i32>(clamp(laccf, vec4<f32>(-1.0e9), vec4<f32>(1.0e9))), u_draw.light_mask.y != 0u);
    lacc = clamp(lacc, vec4<i32>(0), vec4<i32>(255));
    return (mat * (lacc + (lacc >> vec4<u32>(7u)))) >> vec4<u32>(8u);
}

// MTX3x4 texgen: (s, t, q) = rows 0-2 . input.
fn gx_mtx3x4(r0: vec4<f32>, r1: vec4<f32>, r2: vec4<f32>, x: vec4<f32>) -> vec3<f32> {
    return vec3<f32>(dot(r0, x), dot(r1, x), dot(r2, x));
}

// MTX2x4 texgen: (s, t) = rows 0-1 . input, q = 1.
fn gx_mtx2x4(r0: vec4<f32>, r1: vec4<f32>, x: vec4<f32>) -> vec3<f32> {
    return vec3<f32>(dot(r0, x), dot(r1, x), 1.0);
}

// Post-transform: (s', t', q') = post rows . (s, t, q, 1).
fn gx_post(r0: vec4<f32>, r1: vec4<f32>, r2: vec4<f32>, c: vec3<f32>) -> vec3<f32> {
    return gx_mtx3x4(r0, r1, r2, vec4<f32>(c, 1.0));
}

// Emboss (BUMPn): the source coordinate offset by the light direction projected on the
// tangent frame.
fn gx_emboss(base: vec3<f32>, light: GpuLight, p: vec3<f32>, tangent: vec3<f32>, binormal: vec3<f32>) -> vec3<f32> {
    let l = normalize(light.position.xyz - p);
    return base + vec3<f32>(dot(l, tangent), dot(l, binormal), 0.0);
}
";

fn diffuse_const(d: DiffuseFn) -> &'static str {
    match d {
        DiffuseFn::None => "GX_DF_NONE",
        DiffuseFn::Sign => "GX_DF_SIGN",
        DiffuseFn::Clamp => "GX_DF_CLAMP",
    }
}

fn attn_const(a: AttnFn) -> &'static str {
    match a {
        AttnFn::Spec => "GX_AF_SPEC",
        AttnFn::Spot => "GX_AF_SPOT",
        AttnFn::None => "GX_AF_NONE",
    }
}

/// Emits one colour-channel control into `chan_{name}` (a `vec4<i32>`, 0..255).
fn emit_channel(out: &mut String, index: usize, c: &ChannelControl) {
    let name = CHANNEL_NAMES[index];
    let var = format!("chan_{}", name.to_lowercase());
    // Channel 0 = COLOR0/ALPHA0 registers and vertex colour 0; channel 1 likewise.
    let ch = index / 2;
    let src = |s: ColorSrc, reg: &str| match s {
        ColorSrc::Register => format!("gx_reg(u_draw.{reg}[{ch}])"),
        ColorSrc::Vertex => format!("vtx_color{ch}"),
    };
    let _ = writeln!(out, "    // {}", describe_channel(name, c));
    let _ = writeln!(
        out,
        "    var {var} = {};",
        src(c.material_src, "channel_material")
    );
    if c.lighting {
        let comp = ["x", "y", "z", "w"][index];
        // A select, not an `if`: see gx_lit_channel.
        let _ = writeln!(
            out,
            "    {var} = select({var}, gx_lit_channel({var}, {}, p_view, n_view, {}, {}), u_draw.channel_lit.{comp} != 0u);",
            src(c.ambient_src, "channel_ambient"),
            diffuse_const(c.diffuse_fn),
            attn_const(c.attn_fn)
        );
    }
}

/// The input vector of a regular texgen (`gx.md` §11 step 1), as a WGSL expression.
fn texgen_input(i: usize, src: TexGenSrc) -> (String, &'static str) {
    match src {
        TexGenSrc::Position => ("vec4<f32>(pos_model, 1.0)".into(), ""),
        TexGenSrc::Normal => ("vec4<f32>(nrm_model, 1.0)".into(), ""),
        TexGenSrc::Binormal | TexGenSrc::Tangent => (
            "vec4<f32>(0.0, 0.0, 0.0, 1.0)".into(),
            " (no binormal/tangent attribute: zero)",
        ),
        TexGenSrc::Tex(n) => (format!("vec4<f32>(v.tex{n}, 1.0, 1.0)"), ""),
        TexGenSrc::TexCoord(n) if (n as usize) < i => {
            (format!("vec4<f32>(o.tc{n}.xy, 1.0, 1.0)"), "")
        }
        TexGenSrc::TexCoord(_) => (
            "vec4<f32>(0.0, 0.0, 1.0, 1.0)".into(),
            " (not an earlier texgen: (0, 0, 1))",
        ),
        TexGenSrc::Color0 => (
            "vec4<f32>(vec3<f32>(chan_color0.rgb) / 255.0, 1.0)".into(),
            "",
        ),
        TexGenSrc::Color1 => (
            "vec4<f32>(vec3<f32>(chan_color1.rgb) / 255.0, 1.0)".into(),
            "",
        ),
    }
}

fn emit_texgen(out: &mut String, i: usize, tg: &TexGen) {
    let _ = writeln!(out, "    // {}", describe_texgen(i, tg));
    let tc = format!("tg{i}");
    match tg.kind {
        TexGenType::Mtx2x4 | TexGenType::Mtx3x4 => {
            let (input, note) = texgen_input(i, tg.source);
            let _ = writeln!(out, "    let {tc}_in = {input};{}", comment(note));
            let expr = match (tex_mtx_rows(tg.gx_tex_mtx), tg.kind) {
                (None, TexGenType::Mtx2x4) => format!("vec3<f32>({tc}_in.xy, 1.0)"),
                (None, _) => format!("{tc}_in.xyz"),
                (Some([r0, r1, _]), TexGenType::Mtx2x4) => {
                    format!("gx_mtx2x4({}, {}, {tc}_in)", row_expr(r0), row_expr(r1))
                }
                (Some([r0, r1, r2]), _) => format!(
                    "gx_mtx3x4({}, {}, {}, {tc}_in)",
                    row_expr(r0),
                    row_expr(r1),
                    row_expr(r2)
                ),
            };
            let _ = writeln!(out, "    var {tc} = {expr};");
            if tg.normalize {
                let _ = writeln!(out, "    {tc} = normalize({tc});");
            }
            if let Some([r0, r1, r2]) = post_mtx_rows(tg.gx_post_mtx) {
                let _ = writeln!(
                    out,
                    "    {tc} = gx_post({}, {}, {}, {tc});",
                    row_expr(r0),
                    row_expr(r1),
                    row_expr(r2)
                );
            }
            let _ = writeln!(out, "    o.tc{i} = {tc};");
        }
        TexGenType::Bump(light) => {
            let base = match tg.source {
                TexGenSrc::TexCoord(n) if (n as usize) < i => format!("o.tc{n}"),
                other => format!("{}.xyz", texgen_input(i, other).0),
            };
            let _ = writeln!(
                out,
                "    // (models carry no tangent/binormal attributes: the offset is zero)"
            );
            let _ = writeln!(
                out,
                "    o.tc{i} = gx_emboss({base}, u_draw.lights[{light}], p_view, vec3<f32>(0.0), vec3<f32>(0.0));"
            );
        }
        TexGenType::Srtg => {
            let chan = match tg.source {
                TexGenSrc::Color1 => "chan_color1",
                _ => "chan_color0",
            };
            let _ = writeln!(
                out,
                "    o.tc{i} = vec3<f32>(f32({chan}.r) / 255.0, f32({chan}.g) / 255.0, 1.0);"
            );
        }
    }
}

fn comment(note: &str) -> String {
    if note.is_empty() {
        String::new()
    } else {
        format!(" //{note}")
    }
}

/// Appends the vertex stage (uniform declarations, helpers, `VertexIn`, `VertexOut`,
/// `vs_main`).
pub fn generate_vertex_stage(key: &VertexKey, out: &mut String) {
    generate_vertex_stage_with(key, false, out);
}

/// WGSL computing `nrm_model` from `n_bind` (the bind-pose normal, w = 0) and the skin
/// inputs `s`: the first weight's rotation (MP1/MP2, `formats.md` §7.5), or with `blended`
/// every weight's rotation blended and renormalised (MP3, §13.4 Default; a zero sum keeps
/// the bind normal, as the CPU reference).
pub fn skinned_normal_wgsl(blended: bool) -> &'static str {
    if blended {
        "
    var nrm_sum = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k = k + 1u) {
        let w = s.bone_weights[k];
        if (w != 0.0) {
            nrm_sum = nrm_sum + w * skin_rows(u_skin.bones[s.bone_indices[k]].normal_from_bind, n_bind);
        }
    }
    var nrm_model = n_bind.xyz;
    if (dot(nrm_sum, nrm_sum) > 0.0) {
        nrm_model = normalize(nrm_sum);
    }
"
    } else {
        "
    let nrm_model = skin_rows(u_skin.bones[s.bone_indices[0]].normal_from_bind, n_bind);
"
    }
}

/// [`generate_vertex_stage`], with `debug_normal` also passing the view-space normal to
/// the fragment stage (`VertexOut.debug_normal`, the `normals` debug view).
pub fn generate_vertex_stage_with(key: &VertexKey, debug_normal: bool, out: &mut String) {
    out.push_str(draw_uniforms_wgsl());
    out.push('\n');
    let inputs = key.inputs();
    out.push_str(&vertex_in_struct(inputs));
    out.push('\n');
    out.push_str(&vertex_out_struct(key.texgens.len(), debug_normal));
    out.push('\n');
    out.push_str(VERTEX_HELPERS);
    out.push_str(GX_SNAP_WGSL);
    if key.skinned {
        out.push('\n');
        out.push_str(SKINNING_WGSL);
        out.push_str(
            "
@vertex
fn vs_main(v: VertexIn, s: SkinIn) -> VertexOut {
    var o: VertexOut;
    // Skinned model-space inputs (formats.md 7.5): the position is the weighted sum of
    // the bones' model_from_bind transforms; the normal as `skinned_normal_wgsl` says.
    let p_bind = vec4<f32>(v.position, 1.0);
    var pos_model = vec3<f32>(0.0);
    for (var k = 0u; k < 4u; k = k + 1u) {
        let w = s.bone_weights[k];
        if (w != 0.0) {
            pos_model = pos_model + w * skin_rows(u_skin.bones[s.bone_indices[k]].model_from_bind, p_bind);
        }
    }
    let n_bind = vec4<f32>(v.normal, 0.0);",
        );
        out.push_str(skinned_normal_wgsl(key.blended_normals));
    } else if key.line {
        out.push_str(&crate::gx::lines::line_corner_wgsl());
        let _ = write!(
            out,
            "
// A line corner: xyz the segment's other end (model space), w the side (+1 or -1).
struct LineIn {{
    @location({}) other: vec4<f32>,
}}

@vertex
fn vs_main(v: VertexIn, l: LineIn) -> VertexOut {{
    var o: VertexOut;
    let pos_model = v.position;
    let nrm_model = v.normal;
",
            super::interface::LOC_LINE_OTHER
        );
    } else {
        out.push_str(
            "
@vertex
fn vs_main(v: VertexIn) -> VertexOut {
    var o: VertexOut;
    // Model-space inputs (skinned draws substitute skinned values here).
    let pos_model = v.position;
    let nrm_model = v.normal;
",
        );
    }
    if key.line && !key.skinned {
        out.push_str(
            "    let clip_end = u_draw.clip_from_model * vec4<f32>(pos_model, 1.0);
    let clip_other = u_draw.clip_from_model * vec4<f32>(l.other.xyz, 1.0);
    let clip_given = gx_line_corner(clip_end, clip_other, l.other.w, u_draw.viewport);
",
        );
    } else {
        out.push_str(
            "    let clip_given = u_draw.clip_from_model * vec4<f32>(pos_model, 1.0);
",
        );
    }
    out.push_str(
        "    o.clip_position = gx_snap(clip_given, u_draw.viewport);
    o.unsnap = gx_unsnap(clip_given, o.clip_position, u_draw.viewport);
    // Lighting happens in view space.
    let p_view = (u_draw.view_from_model * vec4<f32>(pos_model, 1.0)).xyz;
    let n_view = normalize((u_draw.normal_view_from_model * vec4<f32>(nrm_model, 0.0)).xyz);
",
    );
    for c in 0..2 {
        if inputs.colors[c] {
            let _ = writeln!(out, "    let vtx_color{c} = gx_u8(v.color{c});");
        }
    }
    out.push('\n');
    for (i, c) in key.channels.iter().enumerate() {
        emit_channel(out, i, c);
    }
    out.push_str(
        "    o.color0 = vec4<f32>(vec4<i32>(chan_color0.rgb, chan_alpha0.a)) / 255.0;\n    o.color1 = vec4<f32>(vec4<i32>(chan_color1.rgb, chan_alpha1.a)) / 255.0;\n\n",
    );
    for (i, tg) in key.texgens.iter().enumerate() {
        emit_texgen(out, i, tg);
    }
    if debug_normal {
        out.push_str("    o.debug_normal = n_view;\n");
    }
    if let Some(n) = key.bake_uv {
        let _ = writeln!(
            out,
            "    // Bake: raster in UV set {n}'s layout (texel (u, v) of the bake texture),\n    // not on the screen's snapped grid, so attributes need no step back.\n    o.clip_position = vec4<f32>(v.tex{n}.x * 2.0 - 1.0, 1.0 - v.tex{n}.y * 2.0, 0.5, 1.0);\n    o.unsnap = vec2<f32>(0.0);"
        );
    }
    out.push_str("    return o;\n}\n");
}

/// The vertex stage alone as a complete module (for inspection and validation).
pub fn vertex_module(key: &VertexKey) -> String {
    let mut s = String::new();
    generate_vertex_stage(key, &mut s);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gx::types::ChannelControl;

    #[test]
    fn the_palette_sits_in_the_skin_group() {
        let decl = format!(
            "@group({}) @binding(0) var<uniform> u_skin",
            crate::gx::wgsl::interface::GROUP_SKIN
        );
        assert!(SKINNING_WGSL.contains(&decl), "{SKINNING_WGSL}");
    }

    fn validate(src: &str) -> naga::Module {
        let module = match naga::front::wgsl::parse_str(src) {
            Ok(m) => m,
            Err(e) => panic!("{}\n{src}", e.emit_to_string(src)),
        };
        let mut v = naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::empty(),
        );
        if let Err(e) = v.validate(&module) {
            panic!("{}\n{src}", e.emit_to_string(src));
        }
        module
    }

    fn tg(kind: TexGenType, source: TexGenSrc, mtx: u32, normalize: bool, post: u32) -> TexGen {
        TexGen {
            kind,
            source,
            gx_tex_mtx: mtx,
            normalize,
            gx_post_mtx: post,
        }
    }

    fn key(texgens: Vec<TexGen>, color0: ChannelControl) -> VertexKey {
        VertexKey {
            texgens,
            channels: [
                color0,
                ChannelControl::GX_DEFAULT,
                UNLIT_REG,
                ChannelControl::GX_DEFAULT,
            ],
            skinned: false,
            bake_uv: None,
            blended_normals: false,
            line: false,
        }
    }

    /// The stage declares (and a pipeline fetches) only the colours and UV sets it reads:
    /// vertex colour 0 (ALPHA0's GX default source), TEX1 for a texgen, colour 1 for a lit
    /// vertex ambient, TEX2 for the bake.
    #[test]
    fn stage_reads_only_the_attributes_its_key_uses() {
        let mut k = key(
            vec![tg(TexGenType::Mtx2x4, TexGenSrc::Tex(1), 60, false, 125)],
            UNLIT_REG,
        );
        k.channels[3] = UNLIT_REG;
        let inputs = k.inputs();
        assert_eq!((inputs.colors, inputs.tex), ([true, false], 0b10));
        let src = vertex_module(&k);
        validate(&src);
        assert!(src.contains("tex1: vec2<f32>") && !src.contains("tex0: vec2<f32>"));
        assert!(src.contains("@location(2) color0") && !src.contains("@location(3) color1"));
        k.channels[1] = UNLIT_REG;
        k.channels[2] = ChannelControl {
            lighting: true,
            ambient_src: ColorSrc::Vertex,
            ..UNLIT_REG
        };
        k.bake_uv = Some(2);
        let inputs = k.inputs();
        assert_eq!((inputs.colors, inputs.tex), ([false, true], 0b110));
        validate(&vertex_module(&k));
        assert!(!inputs.reads(super::super::interface::LOC_COLOR0));
    }

    /// A line stage reads the corner input and moves the corner before snapping.
    #[test]
    fn line_stage_widens_corners_before_snapping() {
        let mut k = key(Vec::new(), ChannelControl::GX_DEFAULT);
        k.line = true;
        let src = vertex_module(&k);
        validate(&src);
        assert!(src.contains("fn vs_main(v: VertexIn, l: LineIn)"));
        let corner = src.find("gx_line_corner(clip_end").expect("corner moved");
        let snap = src.find("gx_snap(clip_given").expect("snapped");
        assert!(corner < snap);
        assert!(!vertex_module(&key(Vec::new(), ChannelControl::GX_DEFAULT)).contains("LineIn"));
    }

    /// A bake rasterises at the chosen UV set, last, after the texgens and lighting that
    /// still read the real position; skinned or not, the stage validates.
    #[test]
    fn bake_stage_places_vertices_at_their_uvs() {
        for skinned in [false, true] {
            let mut k = key(
                vec![tg(TexGenType::Mtx3x4, TexGenSrc::Normal, 30, true, 64)],
                ChannelControl::from_word(0x3001),
            );
            (k.skinned, k.bake_uv) = (skinned, Some(2));
            let src = vertex_module(&k);
            validate(&src);
            let bake = "o.clip_position = vec4<f32>(v.tex2.x * 2.0 - 1.0, 1.0 - v.tex2.y * 2.0, 0.5, 1.0);";
            let at = src.find(bake).expect("the UV raster");
            assert!(src.find("o.tc0 =").is_some_and(|tc| tc < at));
            assert!(src.contains("u_draw.clip_from_model * vec4<f32>(pos_model, 1.0)"));
        }
    }

    #[test]
    fn skinned_stage_validates() {
        let mut k = key(
            vec![tg(TexGenType::Mtx3x4, TexGenSrc::Normal, 30, true, 64)],
            ChannelControl::from_word(0x3001),
        );
        k.skinned = true;
        let src = vertex_module(&k);
        assert!(src.contains("fn vs_main(v: VertexIn, s: SkinIn)"));
        assert!(src.contains(&format!("array<SkinBone, {MAX_SKIN_BONES}>")));
        assert!(
            !src.contains("nrm_sum"),
            "MP1/MP2: the first weight's rotation"
        );
        validate(&src);
        k.blended_normals = true;
        let blended = vertex_module(&k);
        assert!(blended.contains("nrm_sum"), "MP3: every weight's rotation");
        validate(&blended);
    }

    #[test]
    fn draw_uniforms_layout_matches_wgsl() {
        let module = validate(&vertex_module(&key(vec![], UNLIT_REG)));
        let mut layouter = naga::proc::Layouter::default();
        layouter
            .update(module.to_ctx())
            .expect("layout of the generated module");
        let (handle, _) = module
            .types
            .iter()
            .find(|(_, t)| t.name.as_deref() == Some("DrawUniforms"))
            .expect("DrawUniforms declared");
        assert_eq!(
            layouter[handle].size as usize,
            std::mem::size_of::<DrawUniforms>()
        );
        let naga::TypeInner::Struct { members, .. } = &module.types[handle].inner else {
            panic!("DrawUniforms is a struct")
        };
        let offsets: Vec<u32> = members.iter().map(|m| m.offset).collect();
        let base = |f: *const u8, s: *const DrawUniforms| f as usize - s as usize;
        let u = DrawUniforms::default();
        let p = &u as *const DrawUniforms;
        let rust = [
            base(u.clip_from_model.as_ptr().cast(), p),
            base(u.view_from_model.as_ptr().cast(), p),
            base(u.normal_view_from_model.as_ptr().cast(), p),
            base(u.tex_mtx.as_ptr().cast(), p),
            base(u.post_mtx.as_ptr().cast(), p),
            base(u.channel_ambient.as_ptr().cast(), p),
            base(u.channel_material.as_ptr().cast(), p),
            base(u.lights.as_ptr().cast(), p),
            base(u.light_mask.as_ptr().cast(), p),
            base(u.channel_lit.as_ptr().cast(), p),
            base(u.viewport.as_ptr().cast(), p),
        ];
        assert_eq!(offsets, rust.iter().map(|&x| x as u32).collect::<Vec<_>>());
    }

    #[test]
    fn every_texgen_and_channel_combination_validates() {
        let mut sources = vec![
            TexGenSrc::Position,
            TexGenSrc::Normal,
            TexGenSrc::Binormal,
            TexGenSrc::Tangent,
            TexGenSrc::Color0,
            TexGenSrc::Color1,
        ];
        sources.extend((0..8).map(TexGenSrc::Tex));
        sources.extend((0..7).map(TexGenSrc::TexCoord));
        let kinds = [
            TexGenType::Mtx3x4,
            TexGenType::Mtx2x4,
            TexGenType::Bump(0),
            TexGenType::Bump(7),
            TexGenType::Srtg,
        ];
        let mtx_ids = [30, 33, 57, 60, 31, 61];
        let post_ids = [64, 67, 121, 125, 65, 127];
        let mut channels = Vec::new();
        for w in [0x3001u32, 0x3007, 0x0801, 0x1001, 0x5001, 0x0001, 0x0006, 0] {
            channels.push(ChannelControl::from_word(w));
        }
        let mut count = 0;
        // Every (kind, source) in one module per kind, cycling matrix ids and channels.
        for (k, kind) in kinds.iter().enumerate() {
            for chunk in sources.chunks(8) {
                let texgens: Vec<TexGen> = chunk
                    .iter()
                    .enumerate()
                    .map(|(j, &src)| {
                        tg(
                            *kind,
                            src,
                            mtx_ids[(j + k) % mtx_ids.len()],
                            j % 2 == 1,
                            post_ids[(j + 2 * k) % post_ids.len()],
                        )
                    })
                    .collect();
                let c = channels[count % channels.len()];
                let mut key = key(texgens, c);
                // Exercise lit alpha and COLOR1 too.
                if count % 3 == 0 {
                    key.channels[CH_ALPHA0] = c;
                    key.channels[CH_COLOR1] = ChannelControl::from_word(0x1003);
                    key.channels[CH_ALPHA1] = ChannelControl::from_word(0x4005);
                }
                validate(&vertex_module(&key));
                count += 1;
            }
        }
        // Every channel word alone, with no texgens and with the cube's TEX0 texgen.
        for w in 0..0x8000u32 {
            if w % 97 != 0 && w != 0x3001 {
                continue;
            }
            let c = ChannelControl::from_word(w);
            validate(&vertex_module(&key(vec![], c)));
            let t = TexGen::from_word(1998913).expect("cube texgen");
            validate(&vertex_module(&key(vec![t], c)));
            count += 2;
        }
        assert!(count > 600, "{count}");
    }

    #[test]
    fn key_follows_prime_channel_setup() {
        let mut m = Material {
            stages: vec![],
            texgens: vec![],
            texture_count: 0,
            konst: [[0; 4]; 4],
            konst_count: 0,
            registers: Material::DEFAULT_REGISTERS,
            color0: Some(ChannelControl::from_word(0x3001 | 0xFF << 3)),
            channel_count: 1,
            channel_alpha: crate::gx::types::ChannelAlpha::ENGINE,
            blend: crate::gx::Blend::OPAQUE,
            alpha_test: crate::gx::AlphaTest::ALWAYS,
            depth_write: true,
            depth_sorted: false,
            uv_animations: vec![],
            flags: 0,
        };
        let k = VertexKey::for_material(&m);
        assert!(k.channels[CH_COLOR0].lighting);
        assert_eq!(k.channels[CH_COLOR0].light_mask, 0, "mask is a uniform");
        assert_eq!(k.channels[CH_COLOR0].attn_fn, AttnFn::Spot);
        assert_eq!(k.channels[CH_ALPHA0], ChannelControl::GX_DEFAULT);
        assert!(!k.channels[CH_COLOR1].lighting);
        m.channel_count = 0;
        assert!(!VertexKey::for_material(&m).any_lighting());
        let alt = VertexKey::for_material_with(
            &m,
            &VertexKeyOptions {
                alpha_from_register: true,
            },
        );
        assert_eq!(alt.channels[CH_ALPHA0].material_src, ColorSrc::Register);
    }

    #[test]
    fn generated_code_reads_like_the_material() {
        let k = key(
            vec![
                tg(TexGenType::Mtx2x4, TexGenSrc::Tex(0), 30, false, 125),
                tg(TexGenType::Mtx3x4, TexGenSrc::Normal, 33, true, 67),
                tg(TexGenType::Mtx2x4, TexGenSrc::Tex(1), 60, false, 125),
            ],
            ChannelControl::from_word(0x3001),
        );
        let src = vertex_module(&k);
        assert!(
            src.contains(
                "// texgen 0: MTX2x4 from TEX0 through TEXMTX0 (GX 30), post PTIDENTITY (GX 125)"
            ),
            "{src}"
        );
        assert!(src.contains("// texgen 1: MTX3x4 from NRM through TEXMTX1 (GX 33), normalized, post PTTEXMTX1 (GX 67)"), "{src}");
        assert!(src.contains("gx_mtx2x4(u_draw.tex_mtx[0], u_draw.tex_mtx[1], tg0_in)"));
        assert!(src.contains(
            "gx_mtx3x4(u_draw.tex_mtx[3], u_draw.tex_mtx[4], u_draw.tex_mtx[5], tg1_in)"
        ));
        assert!(src.contains("tg1 = normalize(tg1);"));
        assert!(
            src.contains(
                "gx_post(u_draw.post_mtx[3], u_draw.post_mtx[4], u_draw.post_mtx[5], tg1)"
            )
        );
        assert!(src.contains("var tg2 = vec3<f32>(tg2_in.xy, 1.0);"));
        assert!(src.contains("// COLOR0: lit (enable switched at run time), material REG, ambient REG, diffuse CLAMP, attenuation SPOT"));
        assert!(src.contains("gx_lit_channel(chan_color0, gx_reg(u_draw.channel_ambient[0]), p_view, n_view, GX_DF_CLAMP, GX_AF_SPOT)"));
        assert!(src.contains("// ALPHA0: unlit, material VTX"));
        validate(&src);
    }

    /// Mesa's lavapipe (22.x) inlines uniforms that decide a branch and recompiles the
    /// shader on every pipeline bind; a lit vertex stage must therefore never branch on
    /// a uniform (measured: 57 ms → 8 ms per demo frame at 1280×720).
    #[test]
    fn lit_vertex_stage_never_branches_on_a_uniform() {
        for skinned in [false, true] {
            let mut k = key(
                vec![tg(TexGenType::Mtx2x4, TexGenSrc::Tex(0), 30, false, 125)],
                ChannelControl::from_word(0x3001 | 0xFF << 3),
            );
            k.channels[CH_COLOR1] = ChannelControl::from_word(0x3001 | 0x3 << 3);
            k.skinned = skinned;
            let src = vertex_module(&k);
            for line in src.lines().map(str::trim) {
                let branch = ["if ", "if(", "} else if", "switch", "while", "for ("]
                    .iter()
                    .any(|b| line.starts_with(b));
                if branch {
                    assert!(
                        !["u_draw", "u_skin", "mask", "lit"]
                            .iter()
                            .any(|u| line.contains(u)),
                        "branch on a uniform: {line}"
                    );
                }
            }
            assert!(src.contains("u_draw.channel_lit.x != 0u)"), "{src}");
            validate(&src);
        }
    }

    #[test]
    fn matrix_rows_follow_gx_addresses() {
        assert_eq!(tex_mtx_rows(60), None);
        assert_eq!(
            tex_mtx_rows(33),
            Some([MtxRow::Tex(3), MtxRow::Tex(4), MtxRow::Tex(5)])
        );
        assert_eq!(
            tex_mtx_rows(58),
            Some([MtxRow::Tex(28), MtxRow::Tex(29), MtxRow::Identity(0)])
        );
        assert_eq!(
            tex_mtx_rows(61),
            Some([MtxRow::Identity(1), MtxRow::Identity(2), MtxRow::Zero])
        );
        assert_eq!(post_mtx_rows(125), None);
        assert_eq!(
            post_mtx_rows(121),
            Some([MtxRow::Post(57), MtxRow::Post(58), MtxRow::Post(59)])
        );
        assert_eq!(
            post_mtx_rows(122),
            Some([MtxRow::Post(58), MtxRow::Post(59), MtxRow::Zero])
        );
    }
}
