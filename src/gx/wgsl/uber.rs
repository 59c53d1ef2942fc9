//! The ubershader: one fragment program that interprets any TEV program from a uniform
//! buffer (group 0, binding 2), so a structural edit shows on the next frame while the
//! specialized shader compiles in the background.
//!
//! The program buffer is packed from the same [`FragmentKey`] the specialized generator
//! reads, and both paths call the shared [`TEV_LIBRARY`] arithmetic, so they give
//! identical pixels. Its code depends only on the vertex stage and the number of texture
//! coordinates ([`crate::gx::key::UberKey`]).
//!
//! ## Program layout (`UberProgram`, 288 bytes)
//! - `header`: x = stage count, y = final colour register, z = final alpha register,
//!   w = flags (bit 0 alpha-SUB software quirk, bit 1 missing texture reads 0, bit 2 alpha 1
//!   written as 0, bit 3 stage view: the final registers clamped are the pixel).
//! - `alpha_test`: x = comp0, y = op, z = comp1, w = 1 when the test is enabled.
//! - `stages[s]` (`vec4<u32>`):
//!   - x: colour inputs a, b, c, d (4 bits each, bits 0–15); alpha inputs (4 bits each,
//!     bits 16–31).
//!   - y: colour op (bits 0–15), alpha op (bits 16–31). An op: bit 0 compare; bit 1
//!     subtract (regular) or equal (compare); bits 2–3 bias index (0, +½, −½) or compare
//!     mode; bits 4–5 scale; bit 6 clamp; bits 7–8 destination register.
//!   - z: kcsel (bits 0–4), kasel (5–9), raster (10–11: 0 channel 0, 1 channel 1, 2 zero),
//!     bit 12 has texture, map (13–15), bit 16 has texcoord, texcoord (17–19).
//!   - w: texture swap (bits 0–7, 2 bits per output lane), raster swap (bits 8–15).

use std::fmt::Write as _;

use bytemuck::{Pod, Zeroable};

use super::interface::{BINDING_UBER_PROGRAM, GROUP_MATERIAL};
use super::tev::{TEV_LIBRARY, tev_uniforms_wgsl, texture_binding_wgsl};
use crate::gx::key::{FragmentKey, OpKey};
use crate::gx::tev::{AlphaSubRounding, MAX_STAGES, MissingTexture, SwapTable};
use crate::gx::types::{AlphaOp, CombineKind, Compare};

/// The packed program (see the module docs).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct UberProgram {
    pub header: [u32; 4],
    pub alpha_test: [u32; 4],
    pub stages: [[u32; 4]; MAX_STAGES],
}

fn pack_op(op: &OpKey) -> u32 {
    let (compare, flag, field, scale) = match op.kind {
        CombineKind::Regular {
            subtract,
            bias,
            scale,
        } => (0, subtract as u32, (bias as u32).min(2), scale as u32),
        CombineKind::Compare { mode, equal } => (1, equal as u32, mode as u32, 0),
    };
    compare
        | flag << 1
        | field << 2
        | scale << 4
        | (op.clamp as u32) << 6
        | (op.dest.index() as u32) << 7
}

fn pack_swap(t: &SwapTable) -> u32 {
    t.iter()
        .enumerate()
        .fold(0, |w, (i, &c)| w | ((c & 3) as u32) << (2 * i))
}

fn compare_bits(c: Compare) -> u32 {
    c as u32
}

impl UberProgram {
    /// Packs the program of `key` (stages beyond 16 are not representable and dropped).
    pub fn from_key(key: &FragmentKey) -> Self {
        let mut p = Self::zeroed();
        let n = key.stages.len().min(MAX_STAGES);
        let (creg, areg) = key.final_registers();
        let flags = (key.alpha_sub == AlphaSubRounding::SoftwareQuirk) as u32
            | ((key.missing_texture == MissingTexture::Black) as u32) << 1
            | (key.alpha_one_as_zero as u32) << 2
            | (key.stage_view as u32) << 3;
        p.header = [n as u32, creg.index() as u32, areg.index() as u32, flags];
        if let Some(t) = &key.alpha_test {
            let op = match t.op {
                AlphaOp::And => 0,
                AlphaOp::Or => 1,
                AlphaOp::Xor => 2,
                AlphaOp::Xnor => 3,
            };
            p.alpha_test = [compare_bits(t.comp0), op, compare_bits(t.comp1), 1];
        }
        for (slot, s) in p.stages.iter_mut().zip(&key.stages) {
            let cin = s
                .color_in
                .iter()
                .enumerate()
                .fold(0, |w, (i, x)| w | x.bits() << (4 * i));
            let ain = s
                .alpha_in
                .iter()
                .enumerate()
                .fold(0, |w, (i, x)| w | x.bits() << (4 * i));
            let raster = s.raster.map_or(2, |r| r.channel as u32 & 1);
            let mut sel = s.kcsel.map_or(0, |k| (k.0 & 31) as u32)
                | s.kasel.map_or(0, |k| (k.0 & 31) as u32) << 5
                | raster << 10;
            let mut swaps = pack_swap(&[0, 1, 2, 3]) | pack_swap(&[0, 1, 2, 3]) << 8;
            if let Some(t) = s.texture {
                sel |= 1 << 12 | ((t.map & 7) as u32) << 13;
                if let Some(c) = t.coord {
                    sel |= 1 << 16 | ((c & 7) as u32) << 17;
                }
                swaps = (swaps & !0xFF) | pack_swap(&t.swap);
            }
            if let Some(r) = s.raster {
                swaps = (swaps & !0xFF00) | pack_swap(&r.swap) << 8;
            }
            *slot = [
                cin | ain << 16,
                pack_op(&s.color_op) | pack_op(&s.alpha_op) << 16,
                sel,
                swaps,
            ];
        }
        p
    }
}

const UBER_BODY: &str = "\
// ---- Ubershader interpreter ----

// Colour input (gx.md §2.1) from the registers, texel, raster colour and konst.
fn uber_color_input(sel: u32, prev: vec4<i32>, c0: vec4<i32>, c1: vec4<i32>, c2: vec4<i32>, tex: vec4<i32>, ras: vec4<i32>, konst: vec4<i32>) -> vec3<i32> {
    switch sel {
        case 0u: { return prev.rgb; }
        case 1u: { return prev.aaa; }
        case 2u: { return c0.rgb; }
        case 3u: { return c0.aaa; }
        case 4u: { return c1.rgb; }
        case 5u: { return c1.aaa; }
        case 6u: { return c2.rgb; }
        case 7u: { return c2.aaa; }
        case 8u: { return tex.rgb; }
        case 9u: { return tex.aaa; }
        case 10u: { return ras.rgb; }
        case 11u: { return ras.aaa; }
        case 12u: { return vec3<i32>(255); }
        case 13u: { return vec3<i32>(128); }
        case 14u: { return konst.rgb; }
        default: { return vec3<i32>(0); }
    }
}

// Alpha input (gx.md §2.2).
fn uber_alpha_input(sel: u32, prev: vec4<i32>, c0: vec4<i32>, c1: vec4<i32>, c2: vec4<i32>, tex: vec4<i32>, ras: vec4<i32>, konst: vec4<i32>) -> i32 {
    switch sel {
        case 0u: { return prev.a; }
        case 1u: { return c0.a; }
        case 2u: { return c1.a; }
        case 3u: { return c2.a; }
        case 4u: { return tex.a; }
        case 5u: { return ras.a; }
        case 6u: { return konst.a; }
        default: { return 0; }
    }
}

// Konst selectors (gx.md §4): fractions round(k/8 * 255), K0-K3 rgb, or one component.
fn uber_konst_color(sel: u32) -> vec3<i32> {
    if sel < 8u {
        return vec3<i32>(i32(((8u - sel) * 255u + 4u) / 8u));
    }
    if sel < 12u {
        return vec3<i32>(0);
    }
    if sel < 16u {
        return u_tev.konst[sel - 12u].rgb;
    }
    return vec3<i32>(u_tev.konst[(sel - 16u) % 4u][(sel - 16u) / 4u]);
}

fn uber_konst_alpha(sel: u32) -> i32 {
    if sel < 8u {
        return i32(((8u - sel) * 255u + 4u) / 8u);
    }
    if sel < 16u {
        return 0;
    }
    return u_tev.konst[(sel - 16u) % 4u][(sel - 16u) / 4u];
}

// Swap table packed as 2 bits per output lane.
fn uber_swap(v: vec4<i32>, table: u32) -> vec4<i32> {
    return vec4<i32>(v[table & 3u], v[(table >> 2u) & 3u], v[(table >> 4u) & 3u], v[(table >> 6u) & 3u]);
}

// One combiner from its packed op (see UberProgram).
fn uber_combine(op: u32, a: vec4<i32>, b: vec4<i32>, c: vec4<i32>, d: vec4<i32>, sw_quirk: bool) -> vec4<i32> {
    let flag = (op & 2u) != 0u;
    let field = (op >> 2u) & 3u;
    var r: vec4<i32>;
    if (op & 1u) != 0u {
        r = tev_compare(a, b, c, d, field, flag);
    } else {
        let bias = select(select(TEV_BIAS_ZERO, TEV_BIAS_ADDHALF, field == 1u), TEV_BIAS_SUBHALF, field == 2u);
        let scale = (op >> 4u) & 3u;
        if flag && sw_quirk {
            r = tev_sub_sw_quirk(a, b, c, d, bias, scale);
        } else {
            r = tev_add_sub(a, b, c, d, flag, bias, scale);
        }
    }
    return tev_clamp(r, (op & 64u) != 0u);
}

// Texture map by index (gx_sample: no uniformity requirement inside the loop).
fn uber_sample(map: u32, uv: vec2<f32>, dx: vec2<f32>, dy: vec2<f32>) -> vec4<i32> {
    let mode = u_tev.samplers[map & 7u];
    switch map {
        case 0u: { return gx_sample(t_map0, s_map0, uv, dx, dy, mode); }
        case 1u: { return gx_sample(t_map1, s_map1, uv, dx, dy, mode); }
        case 2u: { return gx_sample(t_map2, s_map2, uv, dx, dy, mode); }
        case 3u: { return gx_sample(t_map3, s_map3, uv, dx, dy, mode); }
        case 4u: { return gx_sample(t_map4, s_map4, uv, dx, dy, mode); }
        case 5u: { return gx_sample(t_map5, s_map5, uv, dx, dy, mode); }
        case 6u: { return gx_sample(t_map6, s_map6, uv, dx, dy, mode); }
        default: { return gx_sample(t_map7, s_map7, uv, dx, dy, mode); }
    }
}
";

/// WGSL declaration of [`UberProgram`] and its binding.
pub fn uber_program_wgsl() -> String {
    format!(
        "struct UberProgram {{
    header: vec4<u32>,
    alpha_test: vec4<u32>,
    stages: array<vec4<u32>, {MAX_STAGES}>,
}}

@group({GROUP_MATERIAL}) @binding({BINDING_UBER_PROGRAM}) var<uniform> u_program: UberProgram;
"
    )
}

/// Appends the ubershader's fragment stage for a vertex stage producing
/// `texcoord_count` texture coordinates.
pub fn generate_uber_fragment_stage(texcoord_count: u8, out: &mut String) {
    out.push_str("\n// ======== Fragment stage: TEV ubershader ========\n\n");
    out.push_str(&tev_uniforms_wgsl());
    out.push_str(&uber_program_wgsl());
    for map in 0..8 {
        out.push_str(&texture_binding_wgsl(map));
    }
    out.push('\n');
    out.push_str(TEV_LIBRARY);
    out.push_str(super::sampler::SAMPLER_LIBRARY);
    out.push('\n');
    out.push_str(UBER_BODY);
    out.push_str(super::stage_view::STAGE_VIEW_LIBRARY);

    let mut o = String::new();
    o.push_str("\n@fragment\nfn fs_main(raw: VertexOut) -> @location(0) vec4<f32> {\n    let in = gx_at_sample(raw);\n");
    o.push_str(
        "    // Texture coordinates and their derivatives (at the top: uniform control flow).\n",
    );
    o.push_str("    var uvs: array<vec2<f32>, 8>;\n    var uv_dx: array<vec2<f32>, 8>;\n    var uv_dy: array<vec2<f32>, 8>;\n");
    for c in 0..texcoord_count.min(8) {
        let _ = writeln!(o, "    let uv{c} = tev_uv(in.tc{c});");
        let _ = writeln!(o, "    uvs[{c}] = uv{c};");
        let _ = writeln!(o, "    uv_dx[{c}] = dpdxCoarse(uv{c});");
        let _ = writeln!(o, "    uv_dy[{c}] = dpdyCoarse(uv{c});");
    }
    o.push_str(
        "    let raster0 = tev_u8_from_raster(gx_attribute_at(in.color0));
    let raster1 = tev_u8_from_raster(gx_attribute_at(in.color1));
    let flags = u_program.header.w;
    let sw_quirk = (flags & 1u) != 0u;
    let missing = select(vec4<i32>(255), vec4<i32>(0), (flags & 2u) != 0u);

    var regs = u_tev.registers;
    let count = min(u_program.header.x, 16u);
    for (var s = 0u; s < count; s += 1u) {
        let words = u_program.stages[s];
        let sel = words.z;

        var tex = missing;
        if ((sel >> 12u) & 1u) != 0u {
            var uv = vec2<f32>(0.0);
            var dx = vec2<f32>(0.0);
            var dy = vec2<f32>(0.0);
            if ((sel >> 16u) & 1u) != 0u {
                let coord = (sel >> 17u) & 7u;
                uv = uvs[coord];
                dx = uv_dx[coord];
                dy = uv_dy[coord];
            }
            tex = uber_swap(uber_sample((sel >> 13u) & 7u, uv, dx, dy), words.w & 255u);
        }
        var ras = vec4<i32>(0);
        let raster_sel = (sel >> 10u) & 3u;
        if raster_sel == 0u {
            ras = uber_swap(raster0, (words.w >> 8u) & 255u);
        } else if raster_sel == 1u {
            ras = uber_swap(raster1, (words.w >> 8u) & 255u);
        }
        let konst = vec4<i32>(uber_konst_color(sel & 31u), uber_konst_alpha((sel >> 5u) & 31u));

        let prev = regs[0];
        let c0 = regs[1];
        let c1 = regs[2];
        let c2 = regs[3];
        var a: vec4<i32>;
        var b: vec4<i32>;
        var c: vec4<i32>;
        var d: vec4<i32>;
        for (var i = 0u; i < 4u; i += 1u) {
            let v = vec4<i32>(
                uber_color_input((words.x >> (4u * i)) & 15u, prev, c0, c1, c2, tex, ras, konst),
                uber_alpha_input((words.x >> (16u + 4u * i)) & 15u, prev, c0, c1, c2, tex, ras, konst));
            switch i {
                case 0u: { a = tev_low8(v); }
                case 1u: { b = tev_low8(v); }
                case 2u: { c = tev_low8(v); }
                default: { d = v; }
            }
        }
        let color_op = words.y & 65535u;
        let alpha_op = words.y >> 16u;
        let color = uber_combine(color_op, a, b, c, d, false).rgb;
        let alpha = uber_combine(alpha_op, a, b, c, d, sw_quirk).a;
        let cd = (color_op >> 7u) & 3u;
        regs[cd] = vec4<i32>(color, regs[cd].a);
        regs[(alpha_op >> 7u) & 3u].a = alpha;
    }

    if (flags & 8u) != 0u {
        return vec4<f32>(stage_view_pixel(regs[u_program.header.y & 3u], regs[u_program.header.z & 3u])) / 255.0;
    }
    let pixel = vec4<i32>(regs[u_program.header.y & 3u].rgb, regs[u_program.header.z & 3u].a) & vec4<i32>(255);
    let test = u_program.alpha_test;
    if test.w != 0u {
        let p0 = tev_alpha_compare(pixel.a, u_tev.alpha_refs.x, test.x);
        let p1 = tev_alpha_compare(pixel.a, u_tev.alpha_refs.y, test.z);
        var passed: bool;
        switch test.y {
            case 0u: { passed = p0 && p1; }
            case 1u: { passed = p0 || p1; }
            case 2u: { passed = p0 != p1; }
            default: { passed = p0 == p1; }
        }
        if !passed {
            discard;
        }
    }
    let written = select(pixel, vec4<i32>(pixel.rgb, 0), (flags & 4u) != 0u && pixel.a == 1);
    return vec4<f32>(written) / 255.0;
}
",
    );
    out.push_str(&o);
}
