//! Readable TEV stages: each combiner as a short equation over named inputs
//! (`C0 = RASC + TEXC·C1`), which of its four inputs can matter at all, and the raw BP
//! words that program the stage.
//!
//! Names come from the gx name tables ([`ColorInput::name`], [`AlphaInput::name`],
//! [`KonstSel::name`]). Whether an input can matter is decided from the selectors alone
//! (`gx.md` §3): lerp(a, b, c) = a·(256 − c′) + b·c′ with c′ = c + (c >> 7), so c = ZERO
//! leaves a alone (b unused), c = ONE (c′ = 256) leaves b alone (a unused), a = b makes c
//! irrelevant, and a ZERO operand contributes nothing.

use serde::Serialize;

use super::regs;
use super::tev::SwapTable;
use super::types::{
    AlphaInput, ColorInput, CombineKind, CompareMode, KonstSel, TevBias, TevCombine, TevReg,
    TevScale, TevStage,
};

/// What one combiner input reads, for its thumbnail.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum InputSource {
    /// A TEV register (its colour, or its alpha broadcast).
    Register { reg: TevReg, alpha: bool },
    /// The stage's texel.
    Texture { alpha: bool },
    /// The stage's raster colour.
    Raster { alpha: bool },
    /// The stage's konst selection (a value: the same everywhere).
    Konst,
    /// ZERO, HALF, ONE.
    Constant,
}

impl InputSource {
    /// Whether the input can differ across the model (constants and konsts cannot).
    pub fn varies(self) -> bool {
        !matches!(self, Self::Konst | Self::Constant)
    }
}

/// One of a combiner's inputs a, b, c, d.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CombinerInput {
    /// `a`, `b`, `c` or `d`.
    pub slot: char,
    /// The input's name (a konst input named by its selector, e.g. `K0`, `K1_A`, `1/2`).
    pub name: String,
    pub source: InputSource,
    /// Whether the input can change the result.
    pub used: bool,
}

/// One combiner (colour or alpha) of a stage, readable.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CombinerText {
    /// e.g. `C0 = RASC + TEXC·C1`.
    pub equation: String,
    pub inputs: [CombinerInput; 4],
}

/// A stage: its two combiners and the BP words (register, value) that program it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StageText {
    pub color: CombinerText,
    pub alpha: CombinerText,
    pub bp_words: Vec<BpWord>,
}

/// One BP register load: the register, its 24-bit value and what it holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BpWord {
    pub reg: u8,
    pub value: u32,
    pub what: &'static str,
}

impl BpWord {
    /// The 32-bit payload word as a display list carries it.
    pub fn word(&self) -> u32 {
        regs::bp_word(self.reg, self.value)
    }
}

/// Which of a combiner's inputs a, b, c, d can change its result, given which of them are
/// the constant ZERO or ONE and whether a and b select the same input. `ignore_ab` marks
/// an alpha compare of the colour inputs' keys (R8, GR16, BGR24), whose own a and b are
/// never read.
pub fn used_inputs(
    kind: CombineKind,
    zero: [bool; 4],
    c_is_one: bool,
    a_equals_b: bool,
    ignore_ab: bool,
) -> [bool; 4] {
    let [za, zb, zc, zd] = zero;
    let d = !zd;
    match kind {
        CombineKind::Regular { .. } => {
            // Which of a and b survive c; c matters whenever it picks between two
            // different values (ONE too: it is what shuts a out).
            // a = b (the same input) is lerp's value whatever c is: both stay, c goes.
            let a = !za && (!c_is_one || a_equals_b);
            let b = !zb && (!zc || a_equals_b);
            let c = !(zc || a_equals_b || (za && zb));
            [a, b, c, d]
        }
        CombineKind::Compare { equal, .. } => {
            // d + (a OP b ? c : 0): with c = 0 nothing is added; a = b decides the compare
            // by itself (always equal, never greater).
            let decided = a_equals_b;
            let c = !zc && (!decided || equal);
            let ab = c && !decided && !ignore_ab;
            [ab, ab, c, d]
        }
    }
}

fn color_source(i: ColorInput) -> InputSource {
    use ColorInput as C;
    let reg = |reg, alpha| InputSource::Register { reg, alpha };
    match i {
        C::Cprev => reg(TevReg::Prev, false),
        C::Aprev => reg(TevReg::Prev, true),
        C::C0 => reg(TevReg::C0, false),
        C::A0 => reg(TevReg::C0, true),
        C::C1 => reg(TevReg::C1, false),
        C::A1 => reg(TevReg::C1, true),
        C::C2 => reg(TevReg::C2, false),
        C::A2 => reg(TevReg::C2, true),
        C::Texc => InputSource::Texture { alpha: false },
        C::Texa => InputSource::Texture { alpha: true },
        C::Rasc => InputSource::Raster { alpha: false },
        C::Rasa => InputSource::Raster { alpha: true },
        C::Konst => InputSource::Konst,
        C::One | C::Half | C::Zero => InputSource::Constant,
    }
}

fn alpha_source(i: AlphaInput) -> InputSource {
    use AlphaInput as A;
    let reg = |reg| InputSource::Register { reg, alpha: true };
    match i {
        A::Aprev => reg(TevReg::Prev),
        A::A0 => reg(TevReg::C0),
        A::A1 => reg(TevReg::C1),
        A::A2 => reg(TevReg::C2),
        A::Texa => InputSource::Texture { alpha: true },
        A::Rasa => InputSource::Raster { alpha: true },
        A::Konst => InputSource::Konst,
        A::Zero => InputSource::Constant,
    }
}

/// The name the colour destination register goes by as an input.
fn color_dest(r: TevReg) -> &'static str {
    ["CPREV", "C0", "C1", "C2"][r.index()]
}

fn alpha_dest(r: TevReg) -> &'static str {
    ["APREV", "A0", "A1", "A2"][r.index()]
}

/// The equation's right-hand side from the used inputs' names.
fn right_side(c: &TevCombine, n: [&str; 4], used: [bool; 4], one: [bool; 4]) -> String {
    let [a, b, cc, d] = n;
    let [ua, ub, uc, ud] = used;
    let mut out = String::new();
    match c.kind() {
        CombineKind::Regular {
            subtract,
            bias,
            scale,
        } => {
            // b·c with c = ONE is b; a·(1 − c) with c = ZERO is a.
            let times = |x: &str, y: &str| match (one_name(x, one, n), one_name(y, one, n)) {
                (true, _) => y.to_string(),
                (_, true) => x.to_string(),
                _ => format!("{x}·{y}"),
            };
            let lerp = match (ua, ub, uc) {
                (false, false, _) => None,
                (true, false, false) => Some(a.to_string()),
                (false, true, false) => Some(b.to_string()),
                (false, true, true) => Some(times(b, cc)),
                (true, false, true) => Some(format!("{a}·(1 − {cc})")),
                // c unused with both a and b: a = b.
                (true, true, false) => Some(a.to_string()),
                (true, true, true) => Some(format!("lerp({a}, {b}, {cc})")),
            };
            let sign = if subtract { " − " } else { " + " };
            match (ud, lerp) {
                (true, Some(l)) => out = format!("{d}{sign}{l}"),
                (true, None) => out = d.to_string(),
                (false, Some(l)) if subtract => out = format!("−{l}"),
                (false, Some(l)) => out = l,
                (false, None) => {}
            }
            match bias {
                TevBias::AddHalf => out = join_term(&out, "+ ½"),
                TevBias::SubHalf => out = join_term(&out, "− ½"),
                _ => {}
            }
            if out.is_empty() {
                out = "0".into();
            }
            let grouped = |s: &str| {
                if s.contains(' ') || s.contains('·') {
                    format!("({s})")
                } else {
                    s.to_string()
                }
            };
            match scale {
                TevScale::One => {}
                TevScale::Two => out = format!("{}·2", grouped(&out)),
                TevScale::Four => out = format!("{}·4", grouped(&out)),
                TevScale::Half => out = format!("{}/2", grouped(&out)),
            }
        }
        CombineKind::Compare { mode, equal } => {
            let width = match mode {
                CompareMode::R8 => "R8",
                CompareMode::Gr16 => "GR16",
                CompareMode::Bgr24 => "BGR24",
                CompareMode::Rgb8 => "",
            };
            let op = if equal { "==" } else { ">" };
            let test = if width.is_empty() {
                format!("{a} {op} {b}")
            } else {
                format!("{a}.{width} {op} {b}.{width}")
            };
            let added = match (uc, ua) {
                (false, _) => None,
                (true, false) => Some(cc.to_string()),
                (true, true) => Some(format!("({test} ? {cc} : 0)")),
            };
            out = match (ud, added) {
                (true, Some(x)) => format!("{d} + {x}"),
                (true, None) => d.to_string(),
                (false, Some(x)) => x,
                (false, None) => "0".into(),
            };
        }
    }
    if !c.clamp {
        out.push_str("  (unclamped)");
    }
    out
}

/// Whether `x` is the name of an input slot that reads ONE.
fn one_name(x: &str, one: [bool; 4], n: [&str; 4]) -> bool {
    n.iter().zip(one).any(|(name, o)| o && *name == x)
}

fn join_term(left: &str, term: &str) -> String {
    if left.is_empty() {
        term.trim_start_matches("+ ").to_string()
    } else {
        format!("{left} {term}")
    }
}

/// A combiner's four selections as the text needs them.
struct Operands {
    names: [String; 4],
    sources: [InputSource; 4],
    zero: [bool; 4],
    one: [bool; 4],
}

fn combiner(
    dest: &str,
    kind_of: &TevCombine,
    operands: Operands,
    same_ab: bool,
    ignore_ab: bool,
) -> CombinerText {
    let Operands {
        names,
        sources,
        zero,
        one,
    } = operands;
    let used = used_inputs(kind_of.kind(), zero, one[2], same_ab, ignore_ab);
    let n = [&*names[0], &*names[1], &*names[2], &*names[3]];
    let equation = format!("{dest} = {}", right_side(kind_of, n, used, one));
    let inputs = std::array::from_fn(|i| CombinerInput {
        slot: ['a', 'b', 'c', 'd'][i],
        name: names[i].clone(),
        source: sources[i],
        used: used[i],
    });
    CombinerText { equation, inputs }
}

fn konst_name(sel: KonstSel, alpha: bool) -> String {
    let name = sel.name();
    // A whole-register selection (K0…K3) gives its rgb to colour; alpha reads it as 0.
    if alpha && (12..16).contains(&sel.0) {
        return "0".into();
    }
    name
}

/// The readable colour combiner of `stage`.
pub fn color_text(stage: &TevStage) -> CombinerText {
    let names = stage.color_in.map(|i| match i {
        ColorInput::Konst => konst_name(stage.kcsel, false),
        _ => i.name().to_string(),
    });
    let zero = stage.color_in.map(|i| i == ColorInput::Zero);
    let one = stage.color_in.map(|i| i == ColorInput::One);
    combiner(
        color_dest(stage.color_op.out_reg),
        &stage.color_op,
        Operands {
            names,
            sources: stage.color_in.map(color_source),
            zero,
            one,
        },
        stage.color_in[0] == stage.color_in[1],
        false,
    )
}

/// The readable alpha combiner of `stage`. Its R8/GR16/BGR24 compares test the colour
/// combiner's a and b, which the equation names.
pub fn alpha_text(stage: &TevStage) -> CombinerText {
    let mut names = stage.alpha_in.map(|i| match i {
        AlphaInput::Konst => konst_name(stage.kasel, true),
        _ => i.name().to_string(),
    });
    let zero = stage.alpha_in.map(|i| i == AlphaInput::Zero);
    let wide_compare = matches!(
        stage.alpha_op.kind(),
        CombineKind::Compare { mode, .. } if mode != CompareMode::Rgb8
    );
    let same_ab = if wide_compare {
        stage.color_in[0] == stage.color_in[1]
    } else {
        stage.alpha_in[0] == stage.alpha_in[1]
    };
    let mut text = combiner(
        alpha_dest(stage.alpha_op.out_reg),
        &stage.alpha_op,
        Operands {
            names: names.clone(),
            sources: stage.alpha_in.map(alpha_source),
            zero,
            one: [false; 4],
        },
        same_ab,
        wide_compare,
    );
    if wide_compare {
        // Rewrite the test with the colour inputs it really reads.
        names[0] = stage.color_in[0].name().to_string();
        names[1] = stage.color_in[1].name().to_string();
        let used = text.inputs.each_ref().map(|i| i.used);
        let compare_used = used[2] && stage.color_in[0] != stage.color_in[1];
        let n = [&*names[0], &*names[1], &*names[2], &*names[3]];
        let mut u = used;
        (u[0], u[1]) = (compare_used, compare_used);
        text.equation = format!(
            "{} = {}",
            alpha_dest(stage.alpha_op.out_reg),
            right_side(&stage.alpha_op, n, u, [false; 4])
        );
    }
    text
}

/// The BP words that program stage `index` of `stages`: its colour and alpha combiners, and
/// the TEV order and konst-selector registers it shares with its even/odd neighbour.
pub fn stage_bp_words(stages: &[TevStage], index: usize, swaps: &[SwapTable; 4]) -> Vec<BpWord> {
    let Some(stage) = stages.get(index) else {
        return Vec::new();
    };
    let pair = index / 2;
    let even = &stages[2 * pair];
    let odd = stages.get(2 * pair + 1);
    let (creg, areg) = regs::bp_combiners(index);
    vec![
        BpWord {
            reg: creg,
            value: regs::color_combiner(stage),
            what: "colour combiner",
        },
        BpWord {
            reg: areg,
            value: regs::alpha_combiner(stage),
            what: "alpha combiner",
        },
        BpWord {
            reg: regs::bp_tev_order(pair),
            value: regs::tev_order(even, odd),
            what: "TEV order (texture, coordinate, raster) of this stage pair",
        },
        BpWord {
            reg: regs::bp_ksel(pair),
            value: regs::ksel(pair, Some(even), odd, swaps),
            what: "konst selectors of this stage pair, half a swap table",
        },
    ]
}

/// Stage `index` of `stages`, readable.
pub fn stage_text(stages: &[TevStage], index: usize, swaps: &[SwapTable; 4]) -> Option<StageText> {
    let stage = stages.get(index)?;
    Some(StageText {
        color: color_text(stage),
        alpha: alpha_text(stage),
        bp_words: stage_bp_words(stages, index, swaps),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gx::tev::PRIME_SWAP_TABLES;

    fn stage(color: [ColorInput; 4], alpha: [AlphaInput; 4], op: u32) -> TevStage {
        TevStage::from_words(
            TevStage::color_inputs_word(color),
            TevStage::alpha_inputs_word(alpha),
            op,
            op,
            0,
            0,
            4,
            0xFF,
            0xFF,
        )
        .expect("stage")
    }

    use AlphaInput as A;
    use ColorInput as C;

    const ADD_PREV: u32 = 0x100;
    const ALPHA_ZERO: [AlphaInput; 4] = [A::Zero, A::Zero, A::Zero, A::Aprev];

    #[test]
    fn multiply_add_reads_like_the_issue() {
        // a = 0, b = TEXC, c = C1, d = RASC → C0 = RASC + TEXC·C1.
        let mut s = stage([C::Zero, C::Texc, C::C1, C::Rasc], ALPHA_ZERO, ADD_PREV);
        s.color_op.out_reg = TevReg::C0;
        let t = color_text(&s);
        assert_eq!(t.equation, "C0 = RASC + TEXC·C1");
        assert_eq!(
            t.inputs.each_ref().map(|i| i.used),
            [false, true, true, true]
        );
    }

    #[test]
    fn c_zero_leaves_a_and_b_unused() {
        let t = color_text(&stage(
            [C::Texc, C::Rasc, C::Zero, C::Zero],
            ALPHA_ZERO,
            ADD_PREV,
        ));
        assert_eq!(t.equation, "CPREV = TEXC");
        assert_eq!(
            t.inputs.each_ref().map(|i| i.used),
            [true, false, false, false]
        );
        // c = ONE: b alone.
        let t = color_text(&stage(
            [C::Texc, C::Rasc, C::One, C::Zero],
            ALPHA_ZERO,
            ADD_PREV,
        ));
        assert_eq!(t.equation, "CPREV = RASC");
        assert_eq!(
            t.inputs.each_ref().map(|i| i.used),
            [false, true, true, false]
        );
    }

    #[test]
    fn d_only_and_same_a_b() {
        let t = color_text(&stage(
            [C::Zero, C::Zero, C::Texc, C::Cprev],
            ALPHA_ZERO,
            ADD_PREV,
        ));
        assert_eq!(t.equation, "CPREV = CPREV");
        assert_eq!(
            t.inputs.each_ref().map(|i| i.used),
            [false, false, false, true]
        );
        let t = color_text(&stage(
            [C::C0, C::C0, C::Texc, C::Zero],
            ALPHA_ZERO,
            ADD_PREV,
        ));
        assert_eq!(t.equation, "CPREV = C0");
        assert_eq!(
            t.inputs.each_ref().map(|i| i.used),
            [true, true, false, false]
        );
        let t = color_text(&stage(
            [C::Zero, C::Zero, C::Zero, C::Zero],
            ALPHA_ZERO,
            ADD_PREV,
        ));
        assert_eq!(t.equation, "CPREV = 0");
    }

    #[test]
    fn general_lerp_sub_bias_scale_and_clamp() {
        // SUB, bias +½, scale 2, no clamp.
        let mut s = stage([C::Texc, C::Rasc, C::Konst, C::C2], ALPHA_ZERO, ADD_PREV);
        s.color_op = TevCombine {
            op: 1,
            bias: 1,
            scale: 1,
            clamp: false,
            out_reg: TevReg::C1,
        };
        s.kcsel = KonstSel(0x0D);
        let t = color_text(&s);
        assert_eq!(
            t.equation,
            "C1 = (C2 − lerp(TEXC, RASC, K1) + ½)·2  (unclamped)"
        );
        assert!(t.inputs.iter().all(|i| i.used));
        assert_eq!(t.inputs[2].source, InputSource::Konst);
        assert!(!t.inputs[2].source.varies() && t.inputs[0].source.varies());
    }

    #[test]
    fn compares() {
        let mut s = stage([C::Cprev, C::Half, C::Konst, C::Zero], ALPHA_ZERO, ADD_PREV);
        s.color_op = TevCombine {
            op: 8, // R8_GT
            bias: 0,
            scale: 0,
            clamp: true,
            out_reg: TevReg::C0,
        };
        s.kcsel = KonstSel(12);
        let t = color_text(&s);
        assert_eq!(t.equation, "C0 = (CPREV.R8 > HALF.R8 ? K0 : 0)");
        assert_eq!(
            t.inputs.each_ref().map(|i| i.used),
            [true, true, true, false]
        );
        // a = b with GT never adds: only d.
        assert_eq!(
            used_inputs(s.color_op.kind(), [false; 4], false, true, false),
            [false, false, false, true]
        );
        // Alpha R8 compare tests the colour inputs, not its own a, b.
        let mut s = stage(
            [C::Texc, C::Half, C::Zero, C::Zero],
            [A::Konst, A::Texa, A::Rasa, A::Zero],
            ADD_PREV,
        );
        s.alpha_op = s.color_op;
        s.alpha_op.op = 9; // R8_EQ
        let t = alpha_text(&s);
        assert_eq!(t.equation, "APREV = (TEXC.R8 == HALF.R8 ? RASA : 0)");
        assert_eq!(
            t.inputs.each_ref().map(|i| i.used),
            [false, false, true, false]
        );
    }

    #[test]
    fn bp_words_are_the_register_encoders() {
        let a = stage([C::Zero, C::Texc, C::Rasc, C::Zero], ALPHA_ZERO, ADD_PREV);
        let b = stage([C::Zero, C::Zero, C::Zero, C::Cprev], ALPHA_ZERO, ADD_PREV);
        let w = stage_bp_words(&[a, b], 1, &PRIME_SWAP_TABLES);
        assert_eq!(w[0].reg, 0xC2);
        assert_eq!(w[0].value, regs::color_combiner(&b));
        assert_eq!(w[1].reg, 0xC3);
        assert_eq!(w[2].reg, 0x28);
        assert_eq!(w[2].value, regs::tev_order(&a, Some(&b)));
        assert_eq!(w[3].reg, 0xF6);
        assert_eq!(w[0].word() >> 24, 0xC2);
        assert!(stage_bp_words(&[a], 3, &PRIME_SWAP_TABLES).is_empty());
    }

    /// The claim checked against the CPU reference: zeroing the inputs marked unused (a
    /// and b together) never changes a stage's result, over random stages and pixels.
    #[test]
    fn unused_inputs_cannot_matter_per_the_reference() {
        use crate::gx::tev::{PixelInputs, TevOptions, TevProgram, evaluate};
        use crate::gx::types::Material;
        let mut seed = 0x2545_F491u32;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        let mut greyed = 0;
        for _ in 0..3000 {
            let mut st = stage(
                std::array::from_fn(|_| C::ALL[(next() % 16) as usize]),
                std::array::from_fn(|_| A::ALL[(next() % 8) as usize]),
                ADD_PREV,
            );
            let combine = |w: u32| TevCombine {
                op: [0, 1, 8, 9, 10, 11, 12, 13, 14, 15][(w % 10) as usize],
                bias: ((w >> 4) % 3) as u8,
                scale: ((w >> 6) & 3) as u8,
                clamp: (w >> 8) & 1 == 1,
                out_reg: TevReg::ALL[((w >> 9) & 3) as usize],
            };
            st.color_op = combine(next());
            st.alpha_op = combine(next());
            st.kcsel = KonstSel((next() % 32) as u8);
            st.kasel = KonstSel((next() % 32) as u8);
            st.tex_map = Some(0);
            let (ct, at) = (color_text(&st), alpha_text(&st));
            let mut zeroed = st;
            for (i, input) in ct.inputs.iter().enumerate() {
                if !input.used {
                    zeroed.color_in[i] = C::Zero;
                    greyed += (st.color_in[i] != C::Zero) as usize;
                }
            }
            for (i, input) in at.inputs.iter().enumerate() {
                if !input.used {
                    zeroed.alpha_in[i] = A::Zero;
                }
            }
            // The wide alpha compares read the colour a and b: keep those where the
            // alpha combiner needs them.
            if matches!(st.alpha_op.kind(), CombineKind::Compare { mode, .. } if mode != CompareMode::Rgb8)
                && at.inputs[2].used
            {
                zeroed.color_in[0] = st.color_in[0];
                zeroed.color_in[1] = st.color_in[1];
            }
            let mut program = |s: TevStage| {
                let m = Material {
                    stages: vec![s],
                    texture_count: 1,
                    konst: std::array::from_fn(|_| std::array::from_fn(|_| next() as u8)),
                    konst_count: 4,
                    registers: std::array::from_fn(|_| {
                        std::array::from_fn(|_| (next() % 2048) as i16 - 1024)
                    }),
                    ..Material::default()
                };
                let options = TevOptions {
                    reflection_pass_through: false,
                    ..TevOptions::default()
                };
                TevProgram::from_material(&m, &options)
            };
            let mut p = program(st);
            let mut q = program(zeroed);
            q.konst = p.konst;
            q.registers = p.registers;
            for _ in 0..4 {
                let inputs = PixelInputs {
                    texels: vec![std::array::from_fn(|_| next() as u8)],
                    raster: std::array::from_fn(|_| std::array::from_fn(|_| next() as u8)),
                };
                let a = evaluate(&p, &inputs).stages[0].registers;
                let b = evaluate(&q, &inputs).stages[0].registers;
                assert_eq!(
                    a, b,
                    "{st:?}\n{zeroed:?}\n{inputs:?}\n{}\n{}",
                    ct.equation, at.equation
                );
                p.registers =
                    std::array::from_fn(|_| std::array::from_fn(|_| (next() % 2048) as i16 - 1024));
                q.registers = p.registers;
            }
        }
        assert!(greyed > 500, "{greyed}");
    }
}
