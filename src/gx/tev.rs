//! The TEV program a material runs, and the exact integer CPU reference for it.
//!
//! [`TevProgram`] is what the GPU paths and the CPU reference share: the material's stages
//! plus the stages the engine appends (`gx.md` §13), konst and register values, swap
//! tables, alpha test, blend and depth state, and the switches where sources disagree
//! (`gx.md` §16). [`evaluate`] runs it for one pixel exactly as `gx.md` §1–§4 and §6
//! describe and returns every stage's registers (the viewer's pixel inspector), the final
//! RGBA8 and the alpha-test result. [`blend`] is the integer blend reference of §8.2.

use serde::Serialize;

use super::types::{
    AlphaInput, AlphaTest, Blend, BlendFactor, BlendMode, ColorInput, CombineKind, Compare,
    CompareMode, Material, TevBias, TevCombine, TevReg, TevScale, TevStage, flags,
};

/// GX has 16 TEV stages; the reference, the key and both shaders run at most this many.
pub const MAX_STAGES: usize = 16;
/// GX texture maps and texture coordinates.
pub const MAX_TEXTURE_MAPS: usize = 8;
pub const MAX_TEXCOORDS: usize = 8;

/// Which register the pixel leaving the TEV is read from (`gx.md` §3.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
pub enum FinalRegister {
    /// Default: RGB from the last stage's colour destination, A from its alpha destination.
    #[default]
    LastStage,
    /// Alt: always PREV.
    Prev,
}

/// How alpha SUB rounds (`gx.md` §3.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
pub enum AlphaSubRounding {
    /// Default: like colour SUB, `d − ((L + 127) >> 8)`.
    #[default]
    Hardware,
    /// Alt: Dolphin's software renderer, `d + ((−L − 127) >> 8)`.
    SoftwareQuirk,
}

/// What TEXC/TEXA read in a stage without a texture map (`gx.md` §2.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
pub enum MissingTexture {
    /// Default: 255.
    #[default]
    White,
    /// Alt: 0.
    Black,
}

impl MissingTexture {
    pub fn value(self) -> u8 {
        match self {
            Self::White => 255,
            Self::Black => 0,
        }
    }
}

/// Which materials write depth (`gx.md` §9, §16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Default)]
pub enum DepthWriteRule {
    /// Default: material flag 0x80 decides.
    #[default]
    MaterialFlag,
    /// Alt: also off for depth-sorted (0x10) materials.
    OffWhenSorted,
}

/// The switches of `gx.md` §16 that change what the TEV program is or computes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct TevOptions {
    pub final_register: FinalRegister,
    pub alpha_sub: AlphaSubRounding,
    pub missing_texture: MissingTexture,
    /// Append the engine's pass-through stage when the last colour combiner does not write
    /// PREV (`gx.md` §13 rule 2, reflection strength 0). Default on.
    pub reflection_pass_through: bool,
    /// Write an alpha of exactly 1 as 0 so fixed-function blending treats it as the
    /// hardware does (`gx.md` §8.2, §16). Default off (the written TEV output stays exact).
    pub alpha_one_as_zero: bool,
    /// Blend in the shader against a copy of the destination with GX's integer rule
    /// (`gx.md` §8.2): exact, at the cost of copying the pixels a blended draw covers
    /// before it (draws whose pixels do not meet share one pass break). Default off: host
    /// fixed-function blending, which may differ by 1 LSB (§8.4).
    pub exact_blend: bool,
    pub depth_write: DepthWriteRule,
    /// Draw a debug view instead of the TEV's pixel (specialized shaders only; the CPU
    /// reference ignores it). Default None.
    pub debug: Option<crate::gx::wgsl::debug::DebugView>,
    /// Cut the program after this stage (or its last stage) and draw the registers that
    /// stage writes, clamped, without alpha test or blending ([`crate::gx::wgsl::stage_view`]).
    /// Default None. Wins over `debug`.
    pub stage_view: Option<u8>,
    /// Bake (`export --bake`): the vertex stage rasterises in the base colour's UV layout
    /// ([`crate::gx::bake::base_color_uv`]) and the TEV's colour and alpha are written as
    /// they are: no alpha test, no blending, no depth test. Default off.
    pub bake: bool,
}

impl Default for TevOptions {
    fn default() -> Self {
        Self {
            final_register: FinalRegister::LastStage,
            alpha_sub: AlphaSubRounding::Hardware,
            missing_texture: MissingTexture::White,
            reflection_pass_through: true,
            alpha_one_as_zero: false,
            exact_blend: false,
            depth_write: DepthWriteRule::MaterialFlag,
            debug: None,
            stage_view: None,
            bake: false,
        }
    }
}

/// A stage the engine adds to a material at run time (`gx.md` §13).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum EngineStage {
    /// colour = CPREV, alpha = APREV → PREV, appended when the material's last colour
    /// combiner writes another register and the Samus reflection strength is 0.
    ReflectionPassThrough,
}

impl EngineStage {
    pub fn name(self) -> &'static str {
        match self {
            Self::ReflectionPassThrough => "reflection pass-through",
        }
    }
}

/// Where a program stage comes from; the UI marks engine stages as such.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum StageOrigin {
    /// Stage `index` of the material.
    Material {
        index: usize,
    },
    Engine(EngineStage),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct ProgramStage {
    pub stage: TevStage,
    pub origin: StageOrigin,
}

/// One swap table: entry X (R, G, B, A) names the input channel (0–3) feeding output X.
pub type SwapTable = [u8; 4];

/// Swap tables as Prime programs them (`gx.md` §6.2): SWAP0 = RGBA, SWAP1 = RGBR,
/// SWAP2 = RGBG, SWAP3 = RGBB. Material stages always select SWAP0.
pub const PRIME_SWAP_TABLES: [SwapTable; 4] =
    [[0, 1, 2, 3], [0, 1, 2, 0], [0, 1, 2, 1], [0, 1, 2, 2]];
pub const IDENTITY_SWAP: SwapTable = [0, 1, 2, 3];

/// GX depth mode (`gx.md` §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct DepthState {
    pub test: bool,
    pub compare: Compare,
    pub write: bool,
}

/// Everything the pixel pipeline does with one material: TEV structure and values plus
/// the alpha test, blend and depth state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TevProgram {
    pub stages: Vec<ProgramStage>,
    /// K0–K3, RGBA8.
    pub konst: [[u8; 4]; 4],
    /// Initial PREV, C0, C1, C2 (signed 11-bit components).
    pub registers: [[i16; 4]; 4],
    pub swap_tables: [SwapTable; 4],
    /// Texture coordinates the vertex stage produces (texgen count, ≤ 8).
    pub texcoord_count: usize,
    pub alpha_test: AlphaTest,
    pub blend: Blend,
    pub depth: DepthState,
    pub options: TevOptions,
}

/// The engine's pass-through stage: colour = CPREV, alpha = APREV, ADD, clamp, to PREV.
pub fn pass_through_stage() -> TevStage {
    TevStage {
        color_in: [
            ColorInput::Zero,
            ColorInput::Zero,
            ColorInput::Zero,
            ColorInput::Cprev,
        ],
        alpha_in: [
            AlphaInput::Zero,
            AlphaInput::Zero,
            AlphaInput::Zero,
            AlphaInput::Aprev,
        ],
        color_op: TevCombine::DEFAULT,
        alpha_op: TevCombine::DEFAULT,
        kcsel: super::types::KonstSel(0),
        kasel: super::types::KonstSel(0),
        raster: super::types::RasterChannel::None,
        tex_map: None,
        tex_coord: None,
        tex_swap: 0,
        ras_swap: 0,
    }
}

impl TevProgram {
    /// The program the game runs for `material` (`gx.md` §5, §7, §8.3, §9, §13).
    pub fn from_material(material: &Material, options: &TevOptions) -> Self {
        let mut stages: Vec<ProgramStage> = material
            .stages
            .iter()
            .take(MAX_STAGES)
            .enumerate()
            .map(|(index, &stage)| ProgramStage {
                stage,
                origin: StageOrigin::Material { index },
            })
            .collect();
        if options.reflection_pass_through
            && stages.len() < MAX_STAGES
            && stages
                .last()
                .is_some_and(|s| s.stage.color_op.out_reg != TevReg::Prev)
        {
            stages.push(ProgramStage {
                stage: pass_through_stage(),
                origin: StageOrigin::Engine(EngineStage::ReflectionPassThrough),
            });
        }
        let punchthrough = material.flags & flags::PUNCHTHROUGH != 0;
        // §8.3: alpha-tested materials are forced opaque.
        let mut blend = if punchthrough {
            Blend::OPAQUE
        } else {
            material.blend
        };
        let mut alpha_test = material.alpha_test;
        if let Some(k) = options.stage_view {
            // A stage view shows registers as they are: nothing after stage K, no test
            // discarding pixels, no blending with what lies behind.
            stages.truncate(k as usize + 1);
            alpha_test = AlphaTest::ALWAYS;
            blend = Blend::OPAQUE;
        }
        if options.bake {
            alpha_test = AlphaTest::ALWAYS;
            blend = Blend::OPAQUE;
        }
        let write = match options.depth_write {
            DepthWriteRule::MaterialFlag => material.depth_write,
            DepthWriteRule::OffWhenSorted => material.depth_write && !material.depth_sorted,
        };
        Self {
            stages,
            konst: material.konst,
            registers: material.registers,
            swap_tables: PRIME_SWAP_TABLES,
            texcoord_count: material.texgens.len().min(MAX_TEXCOORDS),
            alpha_test,
            blend,
            // A bake has no depth: later triangles over the same texels win.
            depth: DepthState {
                test: !options.bake,
                compare: Compare::LEqual,
                write: write && !options.bake,
            },
            options: *options,
        }
    }

    /// Registers the final pixel is read from: (colour register, alpha register).
    pub fn final_registers(&self) -> (TevReg, TevReg) {
        let rule = match self.options.stage_view {
            Some(_) => FinalRegister::LastStage,
            None => self.options.final_register,
        };
        match (
            rule,
            self.stages[..self.stages.len().min(MAX_STAGES)].last(),
        ) {
            (FinalRegister::LastStage, Some(last)) => {
                (last.stage.color_op.out_reg, last.stage.alpha_op.out_reg)
            }
            _ => (TevReg::Prev, TevReg::Prev),
        }
    }
}

/// The texture map a stage samples: `Some(map)` for maps 0–7, None for "no texture".
pub fn stage_texture_map(stage: &TevStage) -> Option<u8> {
    stage.tex_map.filter(|&m| (m as usize) < MAX_TEXTURE_MAPS)
}

/// The texture coordinate a textured stage samples at; None (coordinate (0, 0)) when the
/// stage names no coordinate or one the vertex stage does not produce.
pub fn stage_texcoord(stage: &TevStage, texcoord_count: usize) -> Option<u8> {
    stage
        .tex_coord
        .filter(|&c| (c as usize) < texcoord_count.min(MAX_TEXCOORDS))
}

/// Whether the colour/alpha inputs of a stage read the texture, raster colour or konst.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct StageReads {
    pub texture: bool,
    pub raster: bool,
    pub konst_color: bool,
    pub konst_alpha: bool,
}

impl StageReads {
    pub fn of(stage: &TevStage) -> Self {
        let c = |x: ColorInput| stage.color_in.contains(&x);
        let a = |x: AlphaInput| stage.alpha_in.contains(&x);
        Self {
            texture: c(ColorInput::Texc) || c(ColorInput::Texa) || a(AlphaInput::Texa),
            raster: c(ColorInput::Rasc) || c(ColorInput::Rasa) || a(AlphaInput::Rasa),
            konst_color: c(ColorInput::Konst),
            konst_alpha: a(AlphaInput::Konst),
        }
    }
}

// ------------------------------------------------------------------------------------------
// Combiner arithmetic (gx.md §3), one function per step so tests can pin each.

/// lerp(a, b, c) = a·(256 − c′) + b·c′ with c′ = c + (c >> 7); inputs are the low 8 bits.
pub fn lerp(a: i32, b: i32, c: i32) -> i32 {
    let (a, b, c) = (a & 255, b & 255, c & 255);
    let c1 = c + (c >> 7);
    a * (256 - c1) + b * c1
}

/// (left shift, right shift) for a scale field.
pub fn scale_shifts(scale: TevScale) -> (u32, u32) {
    match scale {
        TevScale::One => (0, 0),
        TevScale::Two => (1, 0),
        TevScale::Four => (2, 0),
        TevScale::Half => (0, 1),
    }
}

pub fn bias_value(bias: TevBias) -> i32 {
    match bias {
        TevBias::Zero | TevBias::Compare => 0,
        TevBias::AddHalf => 128,
        TevBias::SubHalf => -128,
    }
}

/// A regular (ADD/SUB) combiner channel before clamping (§3.2 steps 1–8). `sw_quirk`
/// selects Dolphin's software-renderer SUB form (alpha Alt).
pub fn combine_regular(
    [a, b, c, d]: [i32; 4],
    subtract: bool,
    bias: TevBias,
    scale: TevScale,
    sw_quirk: bool,
) -> i32 {
    let (ls, rs) = scale_shifts(scale);
    let rounding = if scale == TevScale::Half {
        0
    } else if subtract {
        127
    } else {
        128
    };
    let l = lerp(a, b, c) << ls;
    let base = (d + bias_value(bias)) << ls;
    let sum = if !subtract {
        base + ((l + rounding) >> 8)
    } else if sw_quirk {
        base + ((-l - rounding) >> 8)
    } else {
        base - ((l + rounding) >> 8)
    };
    sum >> rs
}

/// Compare key of an RGB triple (low 8 bits each): R8, GR16 (green high) or BGR24.
pub fn compare_key(rgb: [i32; 3], mode: CompareMode) -> u32 {
    let [r, g, b] = rgb.map(|v| (v & 255) as u32);
    match mode {
        CompareMode::R8 => r,
        CompareMode::Gr16 => r | g << 8,
        CompareMode::Bgr24 | CompareMode::Rgb8 => r | g << 8 | b << 16,
    }
}

fn compare_test(a: u32, b: u32, equal: bool) -> bool {
    if equal { a == b } else { a > b }
}

/// Clamp bit set → 0…255; clear → saturate to −1024…1023 (§3.2 step 9).
pub fn clamp_result(v: i32, clamp: bool) -> i32 {
    if clamp {
        v.clamp(0, 255)
    } else {
        v.clamp(-1024, 1023)
    }
}

/// Applies a swap table to an RGBA value.
pub fn swap(v: [i32; 4], table: SwapTable) -> [i32; 4] {
    table.map(|c| v[(c & 3) as usize])
}

// ------------------------------------------------------------------------------------------
// One-line formulas (stage list, generated-code comments); same text as the conformance JSON.

fn compare_name(mode: CompareMode, equal: bool, alpha: bool) -> String {
    let m = match mode {
        CompareMode::R8 => "R8",
        CompareMode::Gr16 => "GR16",
        CompareMode::Bgr24 => "BGR24",
        CompareMode::Rgb8 if alpha => "A8",
        CompareMode::Rgb8 => "RGB8",
    };
    format!("COMP_{m}_{}", if equal { "EQ" } else { "GT" })
}

fn describe_combine(
    dest: &str,
    [a, b, c, d]: [&str; 4],
    combine: TevCombine,
    compare_args: String,
) -> String {
    let clamp = if combine.clamp {
        "clamp 0..255"
    } else {
        "no clamp (-1024..1023)"
    };
    let expr = match combine.kind() {
        CombineKind::Regular {
            subtract,
            bias,
            scale,
        } => {
            let sign = if subtract { '-' } else { '+' };
            let bias = match bias {
                TevBias::AddHalf => " + 128",
                TevBias::SubHalf => " - 128",
                _ => "",
            };
            let scale = match scale {
                TevScale::One => "",
                TevScale::Two => " * 2",
                TevScale::Four => " * 4",
                TevScale::Half => " / 2",
            };
            format!("({d} {sign} lerp({a}, {b}, {c}){bias}){scale}")
        }
        CombineKind::Compare { .. } => format!("{d} + ({compare_args} ? {c} : 0)"),
    };
    format!("{dest} = {expr}, {clamp}")
}

/// The colour combiner as a formula, e.g. `C0.rgb = (ZERO + lerp(KONST, HALF, HALF) - 128) * 4, clamp 0..255`.
pub fn describe_color(stage: &TevStage) -> String {
    let n = stage.color_in.map(|x| x.name());
    let args = match stage.color_op.kind() {
        CombineKind::Compare { mode, equal } => {
            format!("{}({}, {})", compare_name(mode, equal, false), n[0], n[1])
        }
        _ => String::new(),
    };
    let dest = format!("{}.rgb", stage.color_op.out_reg.name());
    describe_combine(&dest, n, stage.color_op, args)
}

/// The alpha combiner as a formula; R8/GR16/BGR24 compares name the colour inputs they read.
pub fn describe_alpha(stage: &TevStage) -> String {
    let n = stage.alpha_in.map(|x| x.name());
    let args = match stage.alpha_op.kind() {
        CombineKind::Compare {
            mode: CompareMode::Rgb8,
            equal,
        } => format!(
            "{}({}, {})",
            compare_name(CompareMode::Rgb8, equal, true),
            n[0],
            n[1]
        ),
        CombineKind::Compare { mode, equal } => format!(
            "{}(colour a {}, colour b {})",
            compare_name(mode, equal, true),
            stage.color_in[0].name(),
            stage.color_in[1].name()
        ),
        _ => String::new(),
    };
    let dest = format!("{}.a", stage.alpha_op.out_reg.name());
    describe_combine(&dest, n, stage.alpha_op, args)
}

// ------------------------------------------------------------------------------------------
// Evaluation.

/// What one pixel feeds the TEV besides the program's own values.
#[derive(Debug, Clone, PartialEq)]
pub struct PixelInputs {
    /// Texel each stage reads (after filtering, before the stage's swap), indexed by program
    /// stage; ignored for stages without a texture map. Missing entries read as 0.
    pub texels: Vec<[u8; 4]>,
    /// Lit colour channels 0 and 1 (COLOR0/ALPHA0, COLOR1/ALPHA1) as 8-bit values.
    pub raster: [[u8; 4]; 2],
}

impl PixelInputs {
    /// Fills the per-stage texels with `sample(map, texcoord)` for every textured stage.
    pub fn sampled(
        program: &TevProgram,
        raster: [[u8; 4]; 2],
        mut sample: impl FnMut(u8, Option<u8>) -> [u8; 4],
    ) -> Self {
        let texels = program
            .stages
            .iter()
            .map(|s| match stage_texture_map(&s.stage) {
                Some(map) => sample(map, stage_texcoord(&s.stage, program.texcoord_count)),
                None => [0; 4],
            })
            .collect();
        Self { texels, raster }
    }
}

/// One stage's results, for the pixel inspector.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StageTrace {
    /// PREV, C0, C1, C2 after this stage.
    pub registers: [[i16; 4]; 4],
    /// Colour combiner result (after clamp) and where it went.
    pub color: [i16; 3],
    pub color_dest: TevReg,
    /// Alpha combiner result (after clamp) and where it went.
    pub alpha: i16,
    pub alpha_dest: TevReg,
}

/// The result of running a program for one pixel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TevTrace {
    pub stages: Vec<StageTrace>,
    /// The pixel leaving the TEV (low 8 bits of the final registers).
    pub rgba: [u8; 4],
    /// Whether it passes the alpha test.
    pub alpha_pass: bool,
    /// What the shader writes to the colour target when the test passes: `rgba`, with an
    /// alpha of 1 written as 0 when [`TevOptions::alpha_one_as_zero`] is on.
    pub written: [u8; 4],
}

fn color_input(
    input: ColorInput,
    regs: &[[i32; 4]; 4],
    tex: [i32; 4],
    ras: [i32; 4],
    konst: [i32; 3],
) -> [i32; 3] {
    let rgb = |v: [i32; 4]| [v[0], v[1], v[2]];
    let aaa = |v: [i32; 4]| [v[3]; 3];
    match input {
        ColorInput::Cprev => rgb(regs[0]),
        ColorInput::Aprev => aaa(regs[0]),
        ColorInput::C0 => rgb(regs[1]),
        ColorInput::A0 => aaa(regs[1]),
        ColorInput::C1 => rgb(regs[2]),
        ColorInput::A1 => aaa(regs[2]),
        ColorInput::C2 => rgb(regs[3]),
        ColorInput::A2 => aaa(regs[3]),
        ColorInput::Texc => rgb(tex),
        ColorInput::Texa => aaa(tex),
        ColorInput::Rasc => rgb(ras),
        ColorInput::Rasa => aaa(ras),
        ColorInput::One => [255; 3],
        ColorInput::Half => [128; 3],
        ColorInput::Konst => konst,
        ColorInput::Zero => [0; 3],
    }
}

fn alpha_input(
    input: AlphaInput,
    regs: &[[i32; 4]; 4],
    tex: [i32; 4],
    ras: [i32; 4],
    konst: i32,
) -> i32 {
    match input {
        AlphaInput::Aprev => regs[0][3],
        AlphaInput::A0 => regs[1][3],
        AlphaInput::A1 => regs[2][3],
        AlphaInput::A2 => regs[3][3],
        AlphaInput::Texa => tex[3],
        AlphaInput::Rasa => ras[3],
        AlphaInput::Konst => konst,
        AlphaInput::Zero => 0,
    }
}

/// Runs `program` for one pixel (`gx.md` §1–§4, §6, §7).
pub fn evaluate(program: &TevProgram, inputs: &PixelInputs) -> TevTrace {
    let mut regs: [[i32; 4]; 4] = program.registers.map(|r| r.map(i32::from));
    let konst = program.konst;
    let missing = program.options.missing_texture.value() as i32;
    let quirk = program.options.alpha_sub == AlphaSubRounding::SoftwareQuirk;
    let mut stages = Vec::with_capacity(program.stages.len());

    // GX runs at most 16 stages; an edited program with more is cut like the key cuts it.
    for (i, ps) in program.stages.iter().take(MAX_STAGES).enumerate() {
        let st = &ps.stage;
        let tex_table = program.swap_tables[(st.tex_swap & 3) as usize];
        let ras_table = program.swap_tables[(st.ras_swap & 3) as usize];
        let tex = match stage_texture_map(st) {
            Some(_) => {
                let t = inputs.texels.get(i).copied().unwrap_or([0; 4]);
                swap(t.map(i32::from), tex_table)
            }
            None => [missing; 4],
        };
        let ras = match st.raster.channel() {
            Some(ch) => swap(inputs.raster[ch].map(i32::from), ras_table),
            None => [0; 4],
        };
        let kc = st.kcsel.color(&konst).map(i32::from);
        let ka = st.kasel.alpha(&konst) as i32;

        let cin = st.color_in.map(|x| color_input(x, &regs, tex, ras, kc));
        let ain = st.alpha_in.map(|x| alpha_input(x, &regs, tex, ras, ka));

        // Colour combiner.
        let mut color = [0i32; 3];
        match st.color_op.kind() {
            CombineKind::Regular {
                subtract,
                bias,
                scale,
            } => {
                for (ch, out) in color.iter_mut().enumerate() {
                    let v = [cin[0][ch], cin[1][ch], cin[2][ch], cin[3][ch]];
                    *out = combine_regular(v, subtract, bias, scale, false);
                }
            }
            CombineKind::Compare { mode, equal } => {
                let whole =
                    compare_test(compare_key(cin[0], mode), compare_key(cin[1], mode), equal);
                for (ch, out) in color.iter_mut().enumerate() {
                    let cond = if mode == CompareMode::Rgb8 {
                        compare_test((cin[0][ch] & 255) as u32, (cin[1][ch] & 255) as u32, equal)
                    } else {
                        whole
                    };
                    *out = cin[3][ch] + if cond { cin[2][ch] & 255 } else { 0 };
                }
            }
        }
        let color = color.map(|v| clamp_result(v, st.color_op.clamp));

        // Alpha combiner.
        let alpha = match st.alpha_op.kind() {
            CombineKind::Regular {
                subtract,
                bias,
                scale,
            } => combine_regular(ain, subtract, bias, scale, quirk && subtract),
            CombineKind::Compare { mode, equal } => {
                let cond = if mode == CompareMode::Rgb8 {
                    // A8: the alpha combiner's own a and b.
                    compare_test((ain[0] & 255) as u32, (ain[1] & 255) as u32, equal)
                } else {
                    // R8/GR16/BGR24 compare the colour combiner's a and b (§3.3).
                    compare_test(compare_key(cin[0], mode), compare_key(cin[1], mode), equal)
                };
                ain[3] + if cond { ain[2] & 255 } else { 0 }
            }
        };
        let alpha = clamp_result(alpha, st.alpha_op.clamp);

        // Both combiners read the registers as they were before this stage; write now.
        let cd = st.color_op.out_reg.index();
        regs[cd][..3].copy_from_slice(&color);
        let ad = st.alpha_op.out_reg.index();
        regs[ad][3] = alpha;

        stages.push(StageTrace {
            registers: regs.map(|r| r.map(|v| v as i16)),
            color: color.map(|v| v as i16),
            color_dest: st.color_op.out_reg,
            alpha: alpha as i16,
            alpha_dest: st.alpha_op.out_reg,
        });
    }

    let (creg, areg) = program.final_registers();
    let c = regs[creg.index()];
    let a = regs[areg.index()];
    let rgba = [c[0], c[1], c[2], a[3]].map(|v| (v & 255) as u8);
    let alpha_pass = program.alpha_test.passes(rgba[3]);
    let mut written = rgba;
    if program.options.alpha_one_as_zero && written[3] == 1 {
        written[3] = 0;
    }
    TevTrace {
        stages,
        rgba,
        alpha_pass,
        written,
    }
}

// ------------------------------------------------------------------------------------------
// Blending (gx.md §8.2).

/// GX logic ops for blend mode LOGIC, in hardware order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum LogicOp {
    Clear,
    And,
    RevAnd,
    Copy,
    InvAnd,
    Noop,
    Xor,
    Or,
    Nor,
    Equiv,
    Inv,
    RevOr,
    InvCopy,
    InvOr,
    Nand,
    Set,
}

impl LogicOp {
    pub fn apply(self, s: u8, d: u8) -> u8 {
        match self {
            Self::Clear => 0,
            Self::And => s & d,
            Self::RevAnd => s & !d,
            Self::Copy => s,
            Self::InvAnd => !s & d,
            Self::Noop => d,
            Self::Xor => s ^ d,
            Self::Or => s | d,
            Self::Nor => !(s | d),
            Self::Equiv => !(s ^ d),
            Self::Inv => !d,
            Self::RevOr => s | !d,
            Self::InvCopy => !s,
            Self::InvOr => !s | d,
            Self::Nand => !(s & d),
            Self::Set => 255,
        }
    }
}

/// Options of the blend reference.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlendOptions {
    /// Alt: read the destination alpha as stored. Default: Prime's RGB8 framebuffer has no
    /// alpha, so it reads 255 (DSTALPHA acts as ONE, INVDSTALPHA as ZERO).
    pub real_dst_alpha: bool,
    /// The op used in LOGIC mode (Prime never uses it).
    pub logic_op: Option<LogicOp>,
}

/// Exact integer blend of `src` (TEV output after the alpha test) onto `dst` (§8.2).
pub fn blend(mode: Blend, src: [u8; 4], dst: [u8; 4], options: BlendOptions) -> [u8; 4] {
    match mode.mode {
        BlendMode::None => src,
        BlendMode::Subtract => std::array::from_fn(|i| dst[i].saturating_sub(src[i])),
        BlendMode::Logic => {
            let op = options.logic_op.unwrap_or(LogicOp::Copy);
            std::array::from_fn(|i| op.apply(src[i], dst[i]))
        }
        BlendMode::Blend => {
            // An alpha of exactly 1 passes the alpha test but blends as 0.
            let mut src = src;
            if src[3] == 1 {
                src[3] = 0;
            }
            let dst_alpha = if options.real_dst_alpha { dst[3] } else { 255 };
            std::array::from_fn(|i| {
                let f = |factor: BlendFactor, as_source: bool| -> u32 {
                    let other = if as_source { dst[i] } else { src[i] };
                    let other_alpha = if as_source { dst_alpha } else { src[3] };
                    // Factors 2/3 name the *other* operand's colour (alpha lane: its alpha).
                    let other_lane = if i == 3 { other_alpha } else { other };
                    let v = match factor {
                        BlendFactor::Zero => 0,
                        BlendFactor::One => 255,
                        BlendFactor::SrcClr => other_lane,
                        BlendFactor::InvSrcClr => 255 - other_lane,
                        BlendFactor::SrcAlpha => src[3],
                        BlendFactor::InvSrcAlpha => 255 - src[3],
                        BlendFactor::DstAlpha => dst_alpha,
                        BlendFactor::InvDstAlpha => 255 - dst_alpha,
                    } as u32;
                    v + (v >> 7)
                };
                let sf = f(mode.src, true);
                let df = f(mode.dst, false);
                let v = (src[i] as u32 * sf + dst[i] as u32 * df) >> 8;
                v.min(255) as u8
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gx::types::{KonstSel, RasterChannel};

    fn regular(op: u32, bias: u32, scale: u32) -> (bool, TevBias, TevScale) {
        match TevCombine::from_word(op | bias << 4 | scale << 6).kind() {
            CombineKind::Regular {
                subtract,
                bias,
                scale,
            } => (subtract, bias, scale),
            k => panic!("not regular: {k:?}"),
        }
    }

    #[test]
    fn worked_values_from_the_spec() {
        let (add, b0, s1) = regular(0, 0, 0);
        // lerp(0, 128, c = 128) = 65.
        assert_eq!(combine_regular([0, 128, 128, 0], add, b0, s1, false), 65);
        // lerp(0, 255, 128) = 128.
        assert_eq!(combine_regular([0, 255, 128, 0], add, b0, s1, false), 128);
        // 255 − lerp(0, 255, 128) (SUB) = 127; the software quirk gives 126.
        let (sub, ..) = regular(1, 0, 0);
        assert_eq!(combine_regular([0, 255, 128, 255], sub, b0, s1, false), 127);
        assert_eq!(combine_regular([0, 255, 128, 255], sub, b0, s1, true), 126);
        // lerp(0, 255, 255) ÷2 = 127.
        let (_, _, half) = regular(0, 0, 3);
        assert_eq!(combine_regular([0, 255, 255, 0], add, b0, half, false), 127);
        // d = 100, +½, ×2, lerp 0 → 456 before clamp.
        let (_, plus, two) = regular(0, 1, 1);
        assert_eq!(combine_regular([0, 0, 0, 100], add, plus, two, false), 456);
        // ÷2 floors toward −∞: d = −3 → −2.
        assert_eq!(combine_regular([0, 0, 0, -3], add, b0, half, false), -2);
        // Inputs a, b, c wrap to 8 bits; d does not.
        assert_eq!(lerp(256 + 10, 0, 0), 2560);
        assert_eq!(clamp_result(456, true), 255);
        assert_eq!(clamp_result(-2000, false), -1024);
    }

    #[test]
    fn compare_keys_put_green_high() {
        assert_eq!(compare_key([1, 2, 3], CompareMode::R8), 1);
        assert_eq!(compare_key([1, 2, 3], CompareMode::Gr16), 0x0201);
        assert_eq!(compare_key([1, 2, 3], CompareMode::Bgr24), 0x030201);
        assert_eq!(compare_key([-1, 0, 0], CompareMode::R8), 255);
    }

    fn material(stages: Vec<TevStage>) -> Material {
        Material {
            stages,
            konst: [[10, 20, 30, 40], [50, 60, 70, 80], [0; 4], [0; 4]],
            konst_count: 2,
            ..Material::default()
        }
    }

    fn stage(color: [ColorInput; 4], alpha: [AlphaInput; 4], cop: u32, aop: u32) -> TevStage {
        TevStage {
            color_in: color,
            alpha_in: alpha,
            color_op: TevCombine::from_word(cop),
            alpha_op: TevCombine::from_word(aop),
            kcsel: KonstSel(0x0C),
            kasel: KonstSel(0x1C),
            raster: RasterChannel::Color0A0,
            tex_map: None,
            tex_coord: None,
            tex_swap: 0,
            ras_swap: 0,
        }
    }

    use AlphaInput as A;
    use ColorInput as C;

    #[test]
    fn pass_through_is_appended_only_when_last_colour_is_not_prev() {
        let to_c1 = 0x100 | 2 << 9;
        let s = stage(
            [C::Zero, C::Zero, C::Zero, C::Konst],
            [A::Zero, A::Zero, A::Zero, A::Konst],
            to_c1,
            0x100,
        );
        let m = material(vec![s]);
        let p = TevProgram::from_material(&m, &TevOptions::default());
        assert_eq!(p.stages.len(), 2);
        assert_eq!(
            p.stages[1].origin,
            StageOrigin::Engine(EngineStage::ReflectionPassThrough)
        );
        let t = evaluate(
            &p,
            &PixelInputs {
                texels: vec![],
                raster: [[0; 4]; 2],
            },
        );
        // C1.rgb = K0.rgb, PREV.a = K0.a; pass-through copies CPREV (initial 0) and APREV.
        assert_eq!(t.stages[0].registers[2][..3], [10, 20, 30]);
        assert_eq!(t.rgba, [0, 0, 0, 40]);

        let off = TevOptions {
            reflection_pass_through: false,
            ..TevOptions::default()
        };
        let p = TevProgram::from_material(&m, &off);
        assert_eq!(p.stages.len(), 1);
        // Final pixel from the last stage's destinations: C1.rgb, PREV.a.
        let t = evaluate(
            &p,
            &PixelInputs {
                texels: vec![],
                raster: [[0; 4]; 2],
            },
        );
        assert_eq!(t.rgba, [10, 20, 30, 40]);
        let prev = TevOptions {
            final_register: FinalRegister::Prev,
            ..off
        };
        let p = TevProgram::from_material(&m, &prev);
        let t = evaluate(
            &p,
            &PixelInputs {
                texels: vec![],
                raster: [[0; 4]; 2],
            },
        );
        assert_eq!(t.rgba, [0, 0, 0, 40]);
    }

    #[test]
    fn registers_are_read_before_the_stage_writes() {
        // colour: PREV.rgb = CPREV + ONE·… ; alpha: PREV.a = A0 — both see the old PREV.
        let s = stage(
            [C::Zero, C::Zero, C::Zero, C::Aprev],
            [A::Zero, A::Zero, A::Zero, A::A0],
            0x000, // no clamp
            0x100,
        );
        let mut m = material(vec![s]);
        m.registers[0] = [1, 2, 3, -5];
        let p = TevProgram::from_material(&m, &TevOptions::default());
        let t = evaluate(
            &p,
            &PixelInputs {
                texels: vec![],
                raster: [[0; 4]; 2],
            },
        );
        assert_eq!(t.stages[0].color, [-5, -5, -5]);
        // Low 8 bits of −5 = 251; alpha = C0.a = 0.
        assert_eq!(t.rgba, [251, 251, 251, 0]);
    }

    #[test]
    fn alpha_compare_r8_uses_the_colour_inputs() {
        // Colour a = ONE, b = ZERO; alpha a = b = ZERO (A8 would be false), R8 → true.
        let s = stage(
            [C::One, C::Zero, C::Zero, C::Zero],
            [A::Zero, A::Zero, A::Konst, A::Zero],
            0x100,
            0x100 | 8,
        );
        let p = TevProgram::from_material(&material(vec![s]), &TevOptions::default());
        let t = evaluate(
            &p,
            &PixelInputs {
                texels: vec![],
                raster: [[0; 4]; 2],
            },
        );
        assert_eq!(t.rgba[3], 40);
        let s = stage(
            [C::One, C::Zero, C::Zero, C::Zero],
            [A::Zero, A::Zero, A::Konst, A::Zero],
            0x100,
            0x100 | 14,
        );
        let p = TevProgram::from_material(&material(vec![s]), &TevOptions::default());
        let t = evaluate(
            &p,
            &PixelInputs {
                texels: vec![],
                raster: [[0; 4]; 2],
            },
        );
        assert_eq!(t.rgba[3], 0);
    }

    #[test]
    fn missing_texture_and_raster_defaults() {
        let s = stage(
            [C::Zero, C::Zero, C::Zero, C::Texc],
            [A::Zero, A::Zero, A::Zero, A::Rasa],
            0x100,
            0x100,
        );
        let mut st = s;
        st.raster = RasterChannel::None;
        let p = TevProgram::from_material(&material(vec![st]), &TevOptions::default());
        let t = evaluate(
            &p,
            &PixelInputs {
                texels: vec![],
                raster: [[9; 4]; 2],
            },
        );
        assert_eq!(t.rgba, [255, 255, 255, 0]);
        let black = TevOptions {
            missing_texture: MissingTexture::Black,
            ..TevOptions::default()
        };
        let p = TevProgram::from_material(&material(vec![s]), &black);
        let t = evaluate(
            &p,
            &PixelInputs {
                texels: vec![],
                raster: [[9, 9, 9, 77]; 2],
            },
        );
        assert_eq!(t.rgba, [0, 0, 0, 77]);
    }

    #[test]
    fn punchthrough_forces_opaque_and_tests_alpha() {
        let s = stage(
            [C::Zero, C::Zero, C::Zero, C::Zero],
            [A::Zero, A::Zero, A::Zero, A::Konst],
            0x100,
            0x100,
        );
        let mut m = material(vec![s]);
        m.flags = flags::PUNCHTHROUGH;
        m.alpha_test = AlphaTest::PUNCHTHROUGH;
        m.blend = Blend {
            mode: BlendMode::Blend,
            src: BlendFactor::SrcAlpha,
            dst: BlendFactor::InvSrcAlpha,
        };
        let p = TevProgram::from_material(&m, &TevOptions::default());
        assert_eq!(p.blend, Blend::OPAQUE);
        let t = evaluate(
            &p,
            &PixelInputs {
                texels: vec![],
                raster: [[0; 4]; 2],
            },
        );
        assert_eq!(t.rgba[3], 40);
        assert!(!t.alpha_pass);
    }

    #[test]
    fn blend_reference() {
        let b = |src, dst| Blend {
            mode: BlendMode::Blend,
            src,
            dst,
        };
        let o = BlendOptions::default();
        use BlendFactor as F;
        // Opaque and additive.
        assert_eq!(
            blend(b(F::One, F::Zero), [1, 2, 3, 4], [9; 4], o),
            [1, 2, 3, 4]
        );
        assert_eq!(blend(b(F::One, F::One), [200; 4], [100; 4], o), [255; 4]);
        // Alpha blend with a = 128: f′ = 129, 1 − a = 127 → 127.
        let out = blend(
            b(F::SrcAlpha, F::InvSrcAlpha),
            [255, 0, 0, 128],
            [0, 0, 255, 255],
            o,
        );
        assert_eq!(out[0], ((255u32 * 129) >> 8) as u8);
        assert_eq!(out[2], ((255u32 * 127) >> 8) as u8);
        // Factor 2 as source = destination colour; as destination = source colour.
        let out = blend(
            b(F::SrcClr, F::Zero),
            [255, 255, 255, 255],
            [10, 20, 30, 40],
            o,
        );
        // 255·(10 + 0) >> 8 = 9: the integer blend truncates.
        assert_eq!(out[..3], [9, 19, 29]);
        assert_eq!(out[3], 255); // alpha lane: destination alpha reads 255 (RGB8)
        let out = blend(b(F::Zero, F::SrcClr), [10, 20, 30, 40], [255; 4], o);
        assert_eq!(out, [9, 19, 29, 39]);
        // DSTALPHA acts as ONE unless the real destination alpha is used.
        assert_eq!(blend(b(F::DstAlpha, F::Zero), [50; 4], [0; 4], o), [50; 4]);
        let real = BlendOptions {
            real_dst_alpha: true,
            ..o
        };
        assert_eq!(
            blend(b(F::DstAlpha, F::Zero), [50; 4], [0; 4], real),
            [0; 4]
        );
        // Alpha 1 blends as 0.
        assert_eq!(
            blend(
                b(F::SrcAlpha, F::InvSrcAlpha),
                [255, 255, 255, 1],
                [0; 4],
                o
            )[0],
            0
        );
        // SUBTRACT and NONE.
        let sub = Blend {
            mode: BlendMode::Subtract,
            src: F::One,
            dst: F::One,
        };
        assert_eq!(
            blend(sub, [10, 200, 0, 0], [100, 100, 100, 100], o),
            [90, 0, 100, 100]
        );
        let none = Blend {
            mode: BlendMode::None,
            ..sub
        };
        assert_eq!(blend(none, [1, 2, 3, 4], [9; 4], o), [1, 2, 3, 4]);
        let logic = BlendOptions {
            logic_op: Some(LogicOp::Xor),
            ..o
        };
        let lg = Blend {
            mode: BlendMode::Logic,
            ..sub
        };
        assert_eq!(blend(lg, [0xF0; 4], [0xFF; 4], logic), [0x0F; 4]);
    }
}
