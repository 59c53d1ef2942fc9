//! Fragment stage of the specialized shader: one straight-line TEV program per
//! [`FragmentKey`], with integer arithmetic that reproduces [`crate::gx::tev::evaluate`]
//! bit for bit (`gx.md` §15).
//!
//! The generated code reads like the material: a comment header per stage with its
//! formulas, then input selection, one library call per combiner and the register
//! writes. The arithmetic lives in [`TEV_LIBRARY`], which the ubershader shares, so the
//! two paths cannot drift apart.

use std::fmt::Write as _;

use bytemuck::{Pod, Zeroable};

use super::interface::{
    BINDING_TEV_UNIFORMS, GROUP_DESTINATION, GROUP_MATERIAL, texture_map_binding,
};
use crate::gx::key::{AlphaTestKey, FragmentKey, OpKey, StageKey};
use crate::gx::sampler::MapSampling;
use crate::gx::tev::{AlphaSubRounding, StageOrigin, SwapTable, TevProgram};
use crate::gx::types::{
    AlphaInput, AlphaOp, Blend, BlendFactor, BlendMode, ColorInput, CombineKind, Compare,
    CompareMode, KonstSel, KonstSource, TevBias, TevReg, TevScale,
};

/// `TevUniforms` (group 0, binding 1): every TEV value that is not structure.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Pod, Zeroable)]
pub struct TevUniforms {
    /// K0–K3, RGBA 0…255.
    pub konst: [[i32; 4]; 4],
    /// Initial PREV, C0, C1, C2 (signed 11-bit).
    pub registers: [[i32; 4]; 4],
    /// x = alpha-test reference 0, y = reference 1.
    pub alpha_refs: [i32; 4],
    /// Per texture map, how it is sampled: [`crate::gx::sampler::GxSampler::uniform_words`]
    /// (exact GX filtering), or zeros for the host sampler.
    pub samplers: [[u32; 4]; 8],
}

impl TevUniforms {
    pub fn from_program(program: &TevProgram) -> Self {
        Self {
            konst: program.konst.map(|k| k.map(i32::from)),
            registers: program.registers.map(|r| r.map(i32::from)),
            alpha_refs: [
                program.alpha_test.ref0 as i32,
                program.alpha_test.ref1 as i32,
                0,
                0,
            ],
            samplers: [[0; 4]; 8],
        }
    }
}

/// WGSL declaration of [`TevUniforms`] and its binding.
pub fn tev_uniforms_wgsl() -> String {
    format!(
        "struct TevUniforms {{
    konst: array<vec4<i32>, 4>,
    registers: array<vec4<i32>, 4>,
    alpha_refs: vec4<i32>,
    samplers: array<vec4<u32>, 8>,
}}

@group({GROUP_MATERIAL}) @binding({BINDING_TEV_UNIFORMS}) var<uniform> u_tev: TevUniforms;
"
    )
}

/// Declaration of texture map `map` and its sampler (the material group,
/// [`texture_map_binding`] and the next binding).
pub fn texture_binding_wgsl(map: u8) -> String {
    let t = texture_map_binding(u32::from(map));
    format!(
        "@group({GROUP_MATERIAL}) @binding({t}) var t_map{map}: texture_2d<f32>;\n@group({GROUP_MATERIAL}) @binding({}) var s_map{map}: sampler;\n",
        t + 1
    )
}

/// GX TEV arithmetic in WGSL (`gx.md` §3), shared by both shader paths.
pub const TEV_LIBRARY: &str = "\
// ---- GX TEV arithmetic (gx.md §3), shared by the specialized shader and the ubershader ----
// Registers and inputs are vec4<i32>: rgb = colour combiner lanes, a = alpha combiner lane.

// Scale field.
const TEV_SCALE_1: u32 = 0u;
const TEV_SCALE_2: u32 = 1u;
const TEV_SCALE_4: u32 = 2u;
const TEV_DIVIDE_2: u32 = 3u;
// Bias field.
const TEV_BIAS_ZERO: i32 = 0;
const TEV_BIAS_ADDHALF: i32 = 128;
const TEV_BIAS_SUBHALF: i32 = -128;
// Compare widths (RGB8 compares per lane, which is A8 in the alpha lane).
const TEV_CMP_R8: u32 = 0u;
const TEV_CMP_GR16: u32 = 1u;
const TEV_CMP_BGR24: u32 = 2u;
const TEV_CMP_RGB8: u32 = 3u;

// A unorm texel or raster colour as its 8-bit value (exact for 8-bit sources).
fn tev_u8_from_unorm(c: vec4<f32>) -> vec4<i32> {
    return vec4<i32>(round(clamp(c, vec4<f32>(0.0), vec4<f32>(1.0)) * 255.0));
}

// An interpolated raster colour as the rasteriser hands it to the TEV: the 8-bit vertex
// values interpolated across the triangle and truncated (Dolphin's software renderer; a
// small allowance keeps exact integers exact under float interpolation error).
fn tev_u8_from_raster(c: vec4<f32>) -> vec4<i32> {
    return vec4<i32>(floor(clamp(c, vec4<f32>(0.0), vec4<f32>(1.0)) * 255.0 + 0.002));
}

// Where in the pixel the rasteriser evaluates attributes, from the centre, in pixels
// (Dolphin's software renderer: 0.495 of the pixel).
const GX_ATTRIBUTE_OFFSET: f32 = -0.005;

// A varying moved from the pixel centre to GX's attribute point (first order; uniform
// control flow: it takes derivatives).
fn gx_attribute_at(v: vec4<f32>) -> vec4<f32> {
    return v + GX_ATTRIBUTE_OFFSET * (dpdxFine(v) + dpdyFine(v));
}

// Texture coordinate (s, t, q) -> (s/q, t/q); q = 0 leaves (s, t).
fn tev_uv(tc: vec3<f32>) -> vec2<f32> {
    return select(tc.xy / tc.z, tc.xy, tc.z == 0.0);
}

// Combiner inputs a, b and c see only the low 8 bits: they wrap, they do not clamp.
fn tev_low8(v: vec4<i32>) -> vec4<i32> {
    return v & vec4<i32>(255);
}

// lerp(a, b, c) = a*(256 - c') + b*c' with c' = c + (c >> 7), 0..65280.
fn tev_lerp(a: vec4<i32>, b: vec4<i32>, c: vec4<i32>) -> vec4<i32> {
    let c1 = c + (c >> vec4<u32>(7u));
    return a * (vec4<i32>(256) - c1) + b * c1;
}

// Regular stage: ((d + bias) << ls  +/-  ((lerp << ls) + R) >> 8) >> rs, arithmetic shifts.
// R = 128 (ADD), 127 (SUB), 0 (DIVIDE_2).
fn tev_add_sub(a: vec4<i32>, b: vec4<i32>, c: vec4<i32>, d: vec4<i32>, subtract: bool, bias: i32, scale: u32) -> vec4<i32> {
    let ls = vec4<u32>(select(scale, 0u, scale == TEV_DIVIDE_2));
    let rs = vec4<u32>(select(0u, 1u, scale == TEV_DIVIDE_2));
    let rounding = select(select(128, 127, subtract), 0, scale == TEV_DIVIDE_2);
    let t = ((tev_lerp(a, b, c) << ls) + vec4<i32>(rounding)) >> vec4<u32>(8u);
    let base = (d + vec4<i32>(bias)) << ls;
    return select(base + t, base - t, subtract) >> rs;
}

// SUB as Dolphin's software renderer computes alpha (negates before the shift); Alt only.
fn tev_sub_sw_quirk(a: vec4<i32>, b: vec4<i32>, c: vec4<i32>, d: vec4<i32>, bias: i32, scale: u32) -> vec4<i32> {
    let ls = vec4<u32>(select(scale, 0u, scale == TEV_DIVIDE_2));
    let rs = vec4<u32>(select(0u, 1u, scale == TEV_DIVIDE_2));
    let rounding = select(127, 0, scale == TEV_DIVIDE_2);
    let t = (-(tev_lerp(a, b, c) << ls) - vec4<i32>(rounding)) >> vec4<u32>(8u);
    return (((d + vec4<i32>(bias)) << ls) + t) >> rs;
}

// Compare key of the rgb lanes: R8 = r, GR16 = r | g << 8, BGR24 = r | g << 8 | b << 16.
fn tev_compare_key(v: vec4<i32>, mode: u32) -> u32 {
    let u = vec4<u32>(v);
    switch mode {
        case 0u: { return u.r; }
        case 1u: { return u.r | (u.g << 8u); }
        default: { return u.r | (u.g << 8u) | (u.b << 16u); }
    }
}

// Compare stage: d + (a > b or a == b ? c : 0). RGB8/A8 compare per lane; the other widths
// compare the packed rgb keys of a and b (the colour combiner's inputs, also for alpha).
fn tev_compare(a: vec4<i32>, b: vec4<i32>, c: vec4<i32>, d: vec4<i32>, mode: u32, equal: bool) -> vec4<i32> {
    if mode == TEV_CMP_RGB8 {
        return d + select(vec4<i32>(0), c, select(a > b, a == b, equal));
    }
    let ka = tev_compare_key(a, mode);
    let kb = tev_compare_key(b, mode);
    return d + select(vec4<i32>(0), c, select(ka > kb, ka == kb, equal));
}

// Clamp bit set: 0..255; clear: saturate to the signed 11-bit range.
fn tev_clamp(v: vec4<i32>, clamp_to_u8: bool) -> vec4<i32> {
    return select(clamp(v, vec4<i32>(-1024), vec4<i32>(1023)), clamp(v, vec4<i32>(0), vec4<i32>(255)), clamp_to_u8);
}

// GXCompare of the final alpha against a reference (0 NEVER ... 7 ALWAYS).
fn tev_alpha_compare(alpha: i32, reference: i32, comp: u32) -> bool {
    switch comp {
        case 0u: { return false; }
        case 1u: { return alpha < reference; }
        case 2u: { return alpha == reference; }
        case 3u: { return alpha <= reference; }
        case 4u: { return alpha > reference; }
        case 5u: { return alpha != reference; }
        case 6u: { return alpha >= reference; }
        default: { return true; }
    }
}
";

fn reg_var(r: TevReg) -> &'static str {
    ["prev", "c0", "c1", "c2"][r.index()]
}

/// WGSL expression (vec3<i32>) of a colour input.
fn color_input_expr(input: ColorInput) -> &'static str {
    match input {
        ColorInput::Cprev => "prev.rgb",
        ColorInput::Aprev => "prev.aaa",
        ColorInput::C0 => "c0.rgb",
        ColorInput::A0 => "c0.aaa",
        ColorInput::C1 => "c1.rgb",
        ColorInput::A1 => "c1.aaa",
        ColorInput::C2 => "c2.rgb",
        ColorInput::A2 => "c2.aaa",
        ColorInput::Texc => "tex.rgb",
        ColorInput::Texa => "tex.aaa",
        ColorInput::Rasc => "ras.rgb",
        ColorInput::Rasa => "ras.aaa",
        ColorInput::One => "vec3<i32>(255)",
        ColorInput::Half => "vec3<i32>(128)",
        ColorInput::Konst => "konst.rgb",
        ColorInput::Zero => "vec3<i32>(0)",
    }
}

/// The vec4 of one combiner operand (colour input in rgb, alpha input in a), written as
/// simply as possible, and whether it reads a register (which may exceed 8 bits).
fn input_vec(color: ColorInput, alpha: AlphaInput) -> (String, bool) {
    let c = color_input_expr(color);
    let a = alpha_input_expr(alpha);
    let register = matches!(
        color,
        ColorInput::Cprev
            | ColorInput::Aprev
            | ColorInput::C0
            | ColorInput::A0
            | ColorInput::C1
            | ColorInput::A1
            | ColorInput::C2
            | ColorInput::A2
    ) || matches!(
        alpha,
        AlphaInput::Aprev | AlphaInput::A0 | AlphaInput::A1 | AlphaInput::A2
    );
    // `x.rgb` with `x.a` is just `x`; `vec3<i32>(n)` with `n` is `vec4<i32>(n)`.
    if let (Some(cv), Some(av)) = (c.strip_suffix(".rgb"), a.strip_suffix(".a"))
        && cv == av
    {
        return (cv.to_string(), register);
    }
    if let Some(n) = c
        .strip_prefix("vec3<i32>(")
        .and_then(|r| r.strip_suffix(')'))
        && n == a
        && n.parse::<i32>().is_ok()
    {
        return (format!("vec4<i32>({n})"), register);
    }
    (format!("vec4<i32>({c}, {a})"), register)
}

/// WGSL expression (i32) of an alpha input.
fn alpha_input_expr(input: AlphaInput) -> &'static str {
    match input {
        AlphaInput::Aprev => "prev.a",
        AlphaInput::A0 => "c0.a",
        AlphaInput::A1 => "c1.a",
        AlphaInput::A2 => "c2.a",
        AlphaInput::Texa => "tex.a",
        AlphaInput::Rasa => "ras.a",
        AlphaInput::Konst => "konst.a",
        AlphaInput::Zero => "0",
    }
}

const LANES: [char; 4] = ['r', 'g', 'b', 'a'];

/// `.xyzw`-style swizzle for a swap table, or "" for the identity.
fn swizzle(table: &SwapTable) -> String {
    if *table == [0, 1, 2, 3] {
        String::new()
    } else {
        let s: String = table.iter().map(|&c| LANES[(c & 3) as usize]).collect();
        format!(".{s}")
    }
}

fn konst_color_expr(sel: KonstSel) -> String {
    match sel.source() {
        KonstSource::Fixed(v) => format!("vec3<i32>({v})"),
        KonstSource::Register {
            reg,
            component: None,
        } => format!("u_tev.konst[{reg}].rgb"),
        KonstSource::Register {
            reg,
            component: Some(c),
        } => format!("vec3<i32>(u_tev.konst[{reg}].{})", LANES[c]),
    }
}

fn konst_alpha_expr(sel: KonstSel) -> String {
    match sel.source() {
        KonstSource::Fixed(v) => format!("{v}"),
        KonstSource::Register {
            component: None, ..
        } => "0".into(),
        KonstSource::Register {
            reg,
            component: Some(c),
        } => format!("u_tev.konst[{reg}].{}", LANES[c]),
    }
}

fn scale_const(scale: TevScale) -> &'static str {
    match scale {
        TevScale::One => "TEV_SCALE_1",
        TevScale::Two => "TEV_SCALE_2",
        TevScale::Four => "TEV_SCALE_4",
        TevScale::Half => "TEV_DIVIDE_2",
    }
}

fn bias_const(bias: TevBias) -> &'static str {
    match bias {
        TevBias::AddHalf => "TEV_BIAS_ADDHALF",
        TevBias::SubHalf => "TEV_BIAS_SUBHALF",
        _ => "TEV_BIAS_ZERO",
    }
}

fn compare_const(mode: CompareMode) -> &'static str {
    match mode {
        CompareMode::R8 => "TEV_CMP_R8",
        CompareMode::Gr16 => "TEV_CMP_GR16",
        CompareMode::Bgr24 => "TEV_CMP_BGR24",
        CompareMode::Rgb8 => "TEV_CMP_RGB8",
    }
}

/// The combiner call for one op (vec4<i32> result; the caller takes .rgb or .a).
fn combine_call(op: &OpKey, sw_quirk: bool) -> String {
    let inner = match op.kind {
        CombineKind::Regular {
            subtract,
            bias,
            scale,
        } => {
            if subtract && sw_quirk {
                format!(
                    "tev_sub_sw_quirk(a, b, c, d, {}, {})",
                    bias_const(bias),
                    scale_const(scale)
                )
            } else {
                format!(
                    "tev_add_sub(a, b, c, d, {subtract}, {}, {})",
                    bias_const(bias),
                    scale_const(scale)
                )
            }
        }
        CombineKind::Compare { mode, equal } => {
            format!("tev_compare(a, b, c, d, {}, {equal})", compare_const(mode))
        }
    };
    format!("tev_clamp({inner}, {})", op.clamp)
}

/// Variable name of the sample of `map` at `coord`.
fn texel_var(map: u8, coord: Option<u8>) -> String {
    match coord {
        Some(c) => format!("texel_m{map}_c{c}"),
        None => format!("texel_m{map}_none"),
    }
}

fn stage_origin_text(origin: StageOrigin) -> String {
    match origin {
        StageOrigin::Material { index } => format!("material stage {index}"),
        StageOrigin::Engine(e) => format!("ENGINE stage: {}", e.name()),
    }
}

/// A combiner formula like the stage list shows it, from the key.
fn formula(stage: &StageKey, alpha: bool) -> String {
    use crate::gx::tev::{describe_alpha, describe_color};
    // Rebuild a TevStage with the key's decoded ops; the describe functions only read
    // inputs and combine words.
    let combine = |op: &OpKey| {
        let (op_bits, bias, scale) = match op.kind {
            CombineKind::Regular {
                subtract,
                bias,
                scale,
            } => (subtract as u8, bias as u8, scale as u8),
            CombineKind::Compare { mode, equal } => (8 + 2 * mode as u8 + equal as u8, 0, 0),
        };
        crate::gx::types::TevCombine {
            op: op_bits,
            bias,
            scale,
            clamp: op.clamp,
            out_reg: op.dest,
        }
    };
    let st = crate::gx::types::TevStage {
        color_in: stage.color_in,
        alpha_in: stage.alpha_in,
        color_op: combine(&stage.color_op),
        alpha_op: combine(&stage.alpha_op),
        kcsel: KonstSel(0),
        kasel: KonstSel(0),
        raster: crate::gx::types::RasterChannel::None,
        tex_map: None,
        tex_coord: None,
        tex_swap: 0,
        ras_swap: 0,
    };
    if alpha {
        describe_alpha(&st)
    } else {
        describe_color(&st)
    }
}

fn alpha_compare_expr(comp: Compare, reference: &str) -> String {
    match comp {
        Compare::Never => "false".into(),
        Compare::Always => "true".into(),
        Compare::Less => format!("pixel.a < {reference}"),
        Compare::Equal => format!("pixel.a == {reference}"),
        Compare::LEqual => format!("pixel.a <= {reference}"),
        Compare::Greater => format!("pixel.a > {reference}"),
        Compare::NEqual => format!("pixel.a != {reference}"),
        Compare::GEqual => format!("pixel.a >= {reference}"),
    }
}

/// The alpha-test pass condition (WGSL bool expression over `pixel`).
fn alpha_test_expr(t: &AlphaTestKey) -> String {
    let a = alpha_compare_expr(t.comp0, "u_tev.alpha_refs.x");
    let b = alpha_compare_expr(t.comp1, "u_tev.alpha_refs.y");
    let op = match t.op {
        AlphaOp::And => "&&",
        AlphaOp::Or => "||",
        AlphaOp::Xor => "!=",
        AlphaOp::Xnor => "==",
    };
    format!("({a}) {op} ({b})")
}

/// Texture bindings of the specialized fragment stage.
fn generate_bindings(key: &FragmentKey, out: &mut String) {
    for map in key.texture_maps() {
        out.push_str(&texture_binding_wgsl(map));
    }
    if key.reads_destination() {
        let _ = writeln!(
            out,
            "@group({GROUP_DESTINATION}) @binding(0) var t_dst: texture_2d<f32>;"
        );
    }
}

/// Appends the specialized fragment stage for `key` (uniforms, texture bindings, TEV
/// library, `fs_main`). The vertex stage (with `VertexOut`) must precede it.
pub fn generate_fragment_stage(key: &FragmentKey, out: &mut String) {
    out.push_str("\n// ======== Fragment stage: TEV (specialized) ========\n\n");
    out.push_str(&tev_uniforms_wgsl());
    generate_bindings(key, out);
    out.push('\n');
    out.push_str(TEV_LIBRARY);
    out.push_str(super::sampler::SAMPLER_LIBRARY);
    out.push_str(&fs_main(key));
}

fn fs_main(key: &FragmentKey) -> String {
    let mut o = String::new();
    let sw_quirk = key.alpha_sub == AlphaSubRounding::SoftwareQuirk;
    o.push_str("\n@fragment\nfn fs_main(raw: VertexOut) -> @location(0) vec4<f32> {\n    let in = gx_at_sample(raw);\n");

    // Texture coordinates, derivatives and samples, all at the top (uniform control flow).
    let samples = key.samples();
    let mut coords: Vec<u8> = samples.iter().filter_map(|s| s.1).collect();
    coords.sort_unstable();
    coords.dedup();
    if !samples.is_empty() {
        o.push_str(
            "    // Texture coordinates and samples (all at the top: uniform control flow).\n",
        );
    }
    for c in &coords {
        let _ = writeln!(o, "    let uv{c} = tev_uv(in.tc{c});");
        // Coarse: one difference per 2×2 quad, as GX computes the LOD.
        let _ = writeln!(o, "    let uv{c}_dx = dpdxCoarse(uv{c});");
        let _ = writeln!(o, "    let uv{c}_dy = dpdyCoarse(uv{c});");
    }
    for &(map, coord) in &samples {
        if key.debug.is_some_and(|d| d.white_textures()) {
            let _ = writeln!(o, "    let {} = vec4<i32>(255);", texel_var(map, coord));
            continue;
        }
        let (uv, dx, dy) = match coord {
            Some(c) => (format!("uv{c}"), format!("uv{c}_dx"), format!("uv{c}_dy")),
            None => (
                "vec2<f32>(0.0)".to_string(),
                "vec2<f32>(0.0)".to_string(),
                "vec2<f32>(0.0)".to_string(),
            ),
        };
        let texel = texel_var(map, coord);
        let _ = match key.sampling.get(map as usize).copied().unwrap_or_default() {
            MapSampling::Dynamic => writeln!(
                o,
                "    let {texel} = gx_sample(t_map{map}, s_map{map}, {uv}, {dx}, {dy}, u_tev.samplers[{map}]);"
            ),
            MapSampling::Host => writeln!(
                o,
                "    let {texel} = tev_u8_from_unorm(textureSampleGrad(t_map{map}, s_map{map}, {uv}, {dx}, {dy}));"
            ),
            exact => writeln!(
                o,
                "    let {texel} = gx_sample_exact(t_map{map}, {uv}, {dx}, {dy}, u_tev.samplers[{map}], {}u); // {exact:?}",
                exact.filter_bits().unwrap_or(0)
            ),
        };
    }
    let mut channels: Vec<u8> = key
        .stages
        .iter()
        .filter_map(|s| s.raster.map(|r| r.channel))
        .collect();
    channels.sort_unstable();
    channels.dedup();
    if !channels.is_empty() {
        o.push_str("    // Lit colour channels as 8-bit values.\n");
    }
    for ch in channels {
        let _ = writeln!(
            o,
            "    let raster{ch} = tev_u8_from_raster(gx_attribute_at(in.color{ch}));"
        );
    }

    o.push_str("    // Registers start from their programmed values.\n");
    o.push_str("    var prev = u_tev.registers[0];\n    var c0 = u_tev.registers[1];\n    var c1 = u_tev.registers[2];\n    var c2 = u_tev.registers[3];\n");

    for (i, s) in key.stages.iter().enumerate() {
        o.push_str(&stage_code(i, s, key, sw_quirk));
    }

    let (creg, areg) = key.final_registers();
    if key.stage_view {
        let _ = writeln!(
            o,
            "\n    // Stage view: {}.rgb and {}.a after the last stage, clamped 0..255.\n    return vec4<f32>(stage_view_pixel({}, {})) / 255.0;\n}}",
            creg.name(),
            areg.name(),
            reg_var(creg),
            reg_var(areg)
        );
        o.push_str(super::stage_view::STAGE_VIEW_LIBRARY);
        return o;
    }
    let _ = writeln!(
        o,
        "\n    // Pixel leaving the TEV: low 8 bits of {}.rgb and {}.a.",
        creg.name(),
        areg.name()
    );
    let _ = writeln!(
        o,
        "    let pixel = vec4<i32>({}.rgb, {}.a) & vec4<i32>(255);",
        reg_var(creg),
        reg_var(areg)
    );
    let mut result = "pixel";
    if let Some(t) = &key.alpha_test {
        let _ = writeln!(
            o,
            "    // Alpha test: ({:?} ref0) {:?} ({:?} ref1).\n    if !({}) {{\n        discard;\n    }}",
            t.comp0,
            t.op,
            t.comp1,
            alpha_test_expr(t)
        );
    }
    if let Some(view) = key.debug {
        let _ = writeln!(
            o,
            "    // Debug view {}.\n    return {};\n}}",
            view.name(),
            view.output_expr(key.texcoord_count)
        );
        o.push_str(view.function());
        return o;
    }
    if key.alpha_one_as_zero {
        o.push_str(
            "    // Alpha 1 blends as 0 on GX: write it as 0 for fixed-function blending.\n",
        );
        o.push_str("    let written = select(pixel, vec4<i32>(pixel.rgb, 0), pixel.a == 1);\n");
        result = "written";
    }
    if let Some(b) = key.shader_blend {
        o.push_str(&shader_blend_code(b));
        result = "blended";
    }
    let _ = writeln!(o, "    return vec4<f32>({result}) / 255.0;\n}}");
    o
}

/// One GX blend factor as per-lane 8-bit values; `as_source` picks what SRCCLR names (the
/// destination's colour for the source factor, the source's for the destination factor).
fn blend_factor(f: BlendFactor, as_source: bool) -> String {
    let other = if as_source {
        "vec4<i32>(dst.rgb, 255)"
    } else {
        "src"
    };
    match f {
        BlendFactor::Zero | BlendFactor::InvDstAlpha => "vec4<i32>(0)".into(),
        BlendFactor::One | BlendFactor::DstAlpha => "vec4<i32>(255)".into(),
        BlendFactor::SrcClr => other.into(),
        BlendFactor::InvSrcClr => format!("vec4<i32>(255) - {other}"),
        BlendFactor::SrcAlpha => "vec4<i32>(src.a)".into(),
        BlendFactor::InvSrcAlpha => "vec4<i32>(255 - src.a)".into(),
    }
}

/// The blend against the destination copy (`gx.md` §8.2), leaving `blended`.
fn shader_blend_code(b: Blend) -> String {
    let mut o = String::new();
    o.push_str(
        "    // Destination: the target as it was before this draw (group 2).
    let dst = tev_u8_from_unorm(textureLoad(t_dst, vec2<i32>(in.clip_position.xy), 0));
",
    );
    match b.mode {
        BlendMode::Subtract => {
            o.push_str(
                "    // GX SUBTRACT: dst - src, at least 0 (factors ignored).
",
            );
            o.push_str(
                "    let blended = max(dst - pixel, vec4<i32>(0));
",
            );
        }
        _ => {
            let _ = writeln!(
                o,
                "    // GX BLEND: (src * {:?}' + dst * {:?}') >> 8, at most 255, with f' = f + (f >> 7).
    // The framebuffer is RGB8: DSTALPHA reads 255. A source alpha of 1 blends as 0.",
                b.src, b.dst
            );
            o.push_str(
                "    let src = select(pixel, vec4<i32>(pixel.rgb, 0), pixel.a == 1);
",
            );
            let _ = writeln!(o, "    let sf = {};", blend_factor(b.src, true));
            let _ = writeln!(o, "    let df = {};", blend_factor(b.dst, false));
            o.push_str(
                "    let blended = min((src * (sf + (sf >> vec4<u32>(7u))) + dst * (df + (df >> vec4<u32>(7u)))) >> vec4<u32>(8u), vec4<i32>(255));
",
            );
        }
    }
    o
}

fn stage_code(i: usize, s: &StageKey, key: &FragmentKey, sw_quirk: bool) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "\n    // ---- stage {i} ({}) ----",
        stage_origin_text(s.origin)
    );
    let _ = writeln!(o, "    // {}", formula(s, false));
    let _ = writeln!(o, "    // {}", formula(s, true));
    let mut notes = Vec::new();
    if let Some(k) = s.kcsel {
        notes.push(format!("konst colour {k}"));
    }
    if let Some(k) = s.kasel {
        notes.push(format!("konst alpha {k}"));
    }
    if let Some(t) = s.texture {
        match t.coord {
            Some(c) => notes.push(format!("texture map {} at texcoord {c}", t.map)),
            None => notes.push(format!("texture map {} without texcoord", t.map)),
        }
    }
    if let Some(r) = s.raster {
        notes.push(format!("raster channel {}", r.channel));
    }
    if !notes.is_empty() {
        let _ = writeln!(o, "    // {}", notes.join("; "));
    }
    o.push_str("    {\n");

    let reads_tex = s
        .color_in
        .iter()
        .any(|c| matches!(c, ColorInput::Texc | ColorInput::Texa))
        || s.alpha_in.contains(&AlphaInput::Texa);
    let reads_ras = s
        .color_in
        .iter()
        .any(|c| matches!(c, ColorInput::Rasc | ColorInput::Rasa))
        || s.alpha_in.contains(&AlphaInput::Rasa);
    if reads_tex {
        match s.texture {
            Some(t) => {
                let _ = writeln!(
                    o,
                    "        let tex = {}{};",
                    texel_var(t.map, t.coord),
                    swizzle(&t.swap)
                );
            }
            None => {
                let _ = writeln!(
                    o,
                    "        let tex = vec4<i32>({}); // no texture map",
                    key.missing_texture.value()
                );
            }
        }
    }
    if reads_ras {
        match s.raster {
            Some(r) => {
                let _ = writeln!(
                    o,
                    "        let ras = raster{}{};",
                    r.channel,
                    swizzle(&r.swap)
                );
            }
            None => o.push_str("        let ras = vec4<i32>(0); // no raster colour\n"),
        }
    }
    if s.kcsel.is_some() || s.kasel.is_some() {
        let kc = s
            .kcsel
            .map(konst_color_expr)
            .unwrap_or_else(|| "vec3<i32>(0)".into());
        let ka = s.kasel.map(konst_alpha_expr).unwrap_or_else(|| "0".into());
        let _ = writeln!(o, "        let konst = vec4<i32>({kc}, {ka});");
    }
    for (n, name) in ["a", "b", "c", "d"].iter().enumerate() {
        let (v, register) = input_vec(s.color_in[n], s.alpha_in[n]);
        // a, b and c see the low 8 bits; only registers can hold other values.
        if n < 3 && register {
            let _ = writeln!(o, "        let {name} = tev_low8({v});");
        } else {
            let _ = writeln!(o, "        let {name} = {v};");
        }
    }
    let _ = writeln!(
        o,
        "        let color = {}.rgb;",
        combine_call(&s.color_op, false)
    );
    let _ = writeln!(
        o,
        "        let alpha = {}.a;",
        combine_call(&s.alpha_op, sw_quirk)
    );
    let cd = reg_var(s.color_op.dest);
    let _ = writeln!(o, "        {cd} = vec4<i32>(color, {cd}.a);");
    let _ = writeln!(o, "        {}.a = alpha;", reg_var(s.alpha_op.dest));
    o.push_str("    }\n");
    o
}
