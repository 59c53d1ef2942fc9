//! Plain GX state types: what a material *describes*, decoded from Prime's words.
//!
//! Parsers fill these (like noclip's parsers all emit one `GXMaterial`); the CPU
//! reference and the WGSL generator read them. Nothing here knows about files or GPUs.
//! Bit layouts follow `spec/formats.md` §3 and GX semantics `spec/gx.md`.

use serde::Serialize;

/// Colour combiner input (4-bit field), `gx.md` §2.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ColorInput {
    Cprev,
    Aprev,
    C0,
    A0,
    C1,
    A1,
    C2,
    A2,
    Texc,
    Texa,
    Rasc,
    Rasa,
    One,
    Half,
    Konst,
    Zero,
}

impl ColorInput {
    pub const ALL: [ColorInput; 16] = [
        Self::Cprev,
        Self::Aprev,
        Self::C0,
        Self::A0,
        Self::C1,
        Self::A1,
        Self::C2,
        Self::A2,
        Self::Texc,
        Self::Texa,
        Self::Rasc,
        Self::Rasa,
        Self::One,
        Self::Half,
        Self::Konst,
        Self::Zero,
    ];
    /// Decodes a 5-bit field; values ≥ 16 are invalid.
    pub fn from_bits(v: u32) -> Option<Self> {
        Self::ALL.get(v as usize).copied()
    }
    pub fn bits(self) -> u32 {
        self as u32
    }
    /// The name used in JSON and generated WGSL comments (`CPREV`, `TEXC`, …).
    pub fn name(self) -> &'static str {
        [
            "CPREV", "APREV", "C0", "A0", "C1", "A1", "C2", "A2", "TEXC", "TEXA", "RASC", "RASA",
            "ONE", "HALF", "KONST", "ZERO",
        ][self as usize]
    }
}

/// Alpha combiner input (3-bit field), `gx.md` §2.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AlphaInput {
    Aprev,
    A0,
    A1,
    A2,
    Texa,
    Rasa,
    Konst,
    Zero,
}

impl AlphaInput {
    pub const ALL: [AlphaInput; 8] = [
        Self::Aprev,
        Self::A0,
        Self::A1,
        Self::A2,
        Self::Texa,
        Self::Rasa,
        Self::Konst,
        Self::Zero,
    ];
    pub fn from_bits(v: u32) -> Option<Self> {
        Self::ALL.get(v as usize).copied()
    }
    pub fn bits(self) -> u32 {
        self as u32
    }
    pub fn name(self) -> &'static str {
        ["APREV", "A0", "A1", "A2", "TEXA", "RASA", "KONST", "ZERO"][self as usize]
    }
}

/// TEV register: destination of a combiner, `formats.md` §3.6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum TevReg {
    Prev,
    C0,
    C1,
    C2,
}

impl TevReg {
    pub const ALL: [TevReg; 4] = [Self::Prev, Self::C0, Self::C1, Self::C2];
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn name(self) -> &'static str {
        ["PREV", "C0", "C1", "C2"][self as usize]
    }
}

/// Combiner scale field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum TevScale {
    One,
    Two,
    Four,
    Half,
}

/// Combiner bias field (3 is decoded as a compare, see [`TevCombine::kind`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum TevBias {
    Zero,
    AddHalf,
    SubHalf,
    Compare,
}

/// Compare width, `gx.md` §3.3: R8, GR16, BGR24, RGB8 (colour) / A8 (alpha).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CompareMode {
    R8,
    Gr16,
    Bgr24,
    /// RGB8 for the colour combiner, A8 for the alpha combiner.
    Rgb8,
}

/// How the hardware interprets a combine word (`gx.md` §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum CombineKind {
    /// d ± lerp(a, b, c), with bias and scale.
    Regular {
        subtract: bool,
        bias: TevBias,
        scale: TevScale,
    },
    /// d + (a cmp b ? c : 0).
    Compare { mode: CompareMode, equal: bool },
}

/// One combine word (colour or alpha), fields kept as stored so it re-encodes exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct TevCombine {
    /// Raw op field (bits 0–3): 0 ADD, 1 SUB, 8–15 compare.
    pub op: u8,
    /// Raw bias field (bits 4–5).
    pub bias: u8,
    /// Raw scale field (bits 6–7).
    pub scale: u8,
    pub clamp: bool,
    pub out_reg: TevReg,
}

impl TevCombine {
    /// ADD, no bias, ×1, clamp, to PREV (word 0x100).
    pub const DEFAULT: Self = Self {
        op: 0,
        bias: 0,
        scale: 0,
        clamp: true,
        out_reg: TevReg::Prev,
    };

    /// Decodes a combine word (bits 11–31 are ignored; see [`TevCombine::unused_bits`]).
    pub fn from_word(w: u32) -> Self {
        Self {
            op: (w & 0xF) as u8,
            bias: ((w >> 4) & 3) as u8,
            scale: ((w >> 6) & 3) as u8,
            clamp: (w >> 8) & 1 != 0,
            out_reg: TevReg::ALL[((w >> 9) & 3) as usize],
        }
    }

    pub fn to_word(self) -> u32 {
        self.op as u32
            | (self.bias as u32) << 4
            | (self.scale as u32) << 6
            | (self.clamp as u32) << 8
            | (self.out_reg as u32) << 9
    }

    /// Bits of a word that [`TevCombine::from_word`] does not keep.
    pub fn unused_bits(w: u32) -> u32 {
        w & !0x7FF
    }

    /// The hardware meaning, `gx.md` §3.1.
    pub fn kind(self) -> CombineKind {
        let compare_mode = |m: u8| {
            [
                CompareMode::R8,
                CompareMode::Gr16,
                CompareMode::Bgr24,
                CompareMode::Rgb8,
            ][(m & 3) as usize]
        };
        if self.op > 1 {
            CombineKind::Compare {
                mode: compare_mode(self.op >> 1),
                equal: self.op & 1 != 0,
            }
        } else if self.bias == 3 {
            CombineKind::Compare {
                mode: compare_mode(self.scale),
                equal: self.op & 1 != 0,
            }
        } else {
            CombineKind::Regular {
                subtract: self.op == 1,
                bias: [TevBias::Zero, TevBias::AddHalf, TevBias::SubHalf][self.bias as usize],
                scale: [TevScale::One, TevScale::Two, TevScale::Four, TevScale::Half]
                    [self.scale as usize],
            }
        }
    }
}

/// Raster colour selection (GXChannelID as stored), `gx.md` §6.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum RasterChannel {
    Color0,
    Color1,
    Alpha0,
    Alpha1,
    Color0A0,
    Color1A1,
    ColorZero,
    AlphaBump,
    AlphaBumpN,
    None,
}

impl RasterChannel {
    pub fn from_byte(b: u8) -> Option<Self> {
        Some(match b {
            0 => Self::Color0,
            1 => Self::Color1,
            2 => Self::Alpha0,
            3 => Self::Alpha1,
            4 => Self::Color0A0,
            5 => Self::Color1A1,
            6 => Self::ColorZero,
            7 => Self::AlphaBump,
            8 => Self::AlphaBumpN,
            0xFF => Self::None,
            _ => return None,
        })
    }
    pub fn to_byte(self) -> u8 {
        match self {
            Self::None => 0xFF,
            other => other as u8,
        }
    }
    /// Which lit channel feeds the stage: `Some(0)`, `Some(1)`, or `None` for zero
    /// (COLOR_ZERO, none, and the bump alphas Prime never uses).
    pub fn channel(self) -> Option<usize> {
        match self {
            Self::Color0 | Self::Alpha0 | Self::Color0A0 => Some(0),
            Self::Color1 | Self::Alpha1 | Self::Color1A1 => Some(1),
            _ => None,
        }
    }
}

/// Konst selector value (kcsel or kasel), 0–31, `gx.md` §4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct KonstSel(pub u8);

/// What a konst selector picks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KonstSource {
    /// A fixed fraction, as an 8-bit value (255, 223, …, 32) or 0 for invalid selectors.
    Fixed(u8),
    /// Konst register `reg`; `component` None = its rgb (colour) / 0 (alpha),
    /// Some(0..4) = that component (r, g, b, a) splatted.
    Register {
        reg: usize,
        component: Option<usize>,
    },
}

impl KonstSel {
    /// round(k/8 · 255) for selectors 0–7 (1, 7/8 … 1/8).
    pub const FRACTIONS: [u8; 8] = [255, 223, 191, 159, 128, 96, 64, 32];

    pub fn source(self) -> KonstSource {
        match self.0 & 31 {
            v @ 0..=7 => KonstSource::Fixed(Self::FRACTIONS[v as usize]),
            8..=11 => KonstSource::Fixed(0),
            v @ 12..=15 => KonstSource::Register {
                reg: (v - 12) as usize,
                component: None,
            },
            v => KonstSource::Register {
                reg: ((v - 16) % 4) as usize,
                component: Some(((v - 16) / 4) as usize),
            },
        }
    }

    /// Colour value for this kcsel given konst registers.
    pub fn color(self, konst: &[[u8; 4]; 4]) -> [u8; 3] {
        match self.source() {
            KonstSource::Fixed(v) => [v; 3],
            KonstSource::Register {
                reg,
                component: None,
            } => [konst[reg][0], konst[reg][1], konst[reg][2]],
            KonstSource::Register {
                reg,
                component: Some(c),
            } => [konst[reg][c]; 3],
        }
    }

    /// Alpha value for this kasel given konst registers (K0–K3 plain select 0).
    pub fn alpha(self, konst: &[[u8; 4]; 4]) -> u8 {
        match self.source() {
            KonstSource::Fixed(v) => v,
            KonstSource::Register {
                component: None, ..
            } => 0,
            KonstSource::Register {
                reg,
                component: Some(c),
            } => konst[reg][c],
        }
    }
}

/// One TEV stage: inputs, combiners, selectors and the stage's texture/texcoord/raster.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct TevStage {
    /// a, b, c, d of the colour combiner.
    pub color_in: [ColorInput; 4],
    /// a, b, c, d of the alpha combiner.
    pub alpha_in: [AlphaInput; 4],
    pub color_op: TevCombine,
    pub alpha_op: TevCombine,
    pub kcsel: KonstSel,
    pub kasel: KonstSel,
    pub raster: RasterChannel,
    /// GX texture map (material texture slot), None = 0xFF.
    pub tex_map: Option<u8>,
    /// Texture coordinate (texgen output), None = 0xFF.
    pub tex_coord: Option<u8>,
    /// Swap table for the texel (Prime always uses 0 = identity).
    pub tex_swap: u8,
    /// Swap table for the raster colour (Prime always uses 0).
    pub ras_swap: u8,
}

impl TevStage {
    /// Decodes the four 5-bit input fields of a colour input word.
    pub fn color_inputs_from_word(w: u32) -> Option<[ColorInput; 4]> {
        Some([
            ColorInput::from_bits(w & 31)?,
            ColorInput::from_bits((w >> 5) & 31)?,
            ColorInput::from_bits((w >> 10) & 31)?,
            ColorInput::from_bits((w >> 15) & 31)?,
        ])
    }
    pub fn alpha_inputs_from_word(w: u32) -> Option<[AlphaInput; 4]> {
        Some([
            AlphaInput::from_bits(w & 31)?,
            AlphaInput::from_bits((w >> 5) & 31)?,
            AlphaInput::from_bits((w >> 10) & 31)?,
            AlphaInput::from_bits((w >> 15) & 31)?,
        ])
    }
    /// Builds a stage from the material's raw words (`formats.md` §3.6–3.7); None when an
    /// input field or the raster byte is out of range. Swap tables are identity (Prime).
    #[allow(clippy::too_many_arguments)]
    pub fn from_words(
        color_inputs: u32,
        alpha_inputs: u32,
        color_combine: u32,
        alpha_combine: u32,
        kasel: u8,
        kcsel: u8,
        raster: u8,
        tex_map: u8,
        tex_coord: u8,
    ) -> Option<Self> {
        let opt = |b: u8| (b != 0xFF).then_some(b);
        Some(Self {
            color_in: Self::color_inputs_from_word(color_inputs)?,
            alpha_in: Self::alpha_inputs_from_word(alpha_inputs)?,
            color_op: TevCombine::from_word(color_combine),
            alpha_op: TevCombine::from_word(alpha_combine),
            kcsel: KonstSel(kcsel & 31),
            kasel: KonstSel(kasel & 31),
            raster: RasterChannel::from_byte(raster)?,
            tex_map: opt(tex_map),
            tex_coord: opt(tex_coord),
            tex_swap: 0,
            ras_swap: 0,
        })
    }
    pub fn color_inputs_word(inputs: [ColorInput; 4]) -> u32 {
        inputs
            .iter()
            .enumerate()
            .fold(0, |w, (i, x)| w | x.bits() << (5 * i))
    }
    pub fn alpha_inputs_word(inputs: [AlphaInput; 4]) -> u32 {
        inputs
            .iter()
            .enumerate()
            .fold(0, |w, (i, x)| w | x.bits() << (5 * i))
    }
}

/// Texgen type, `gx.md` §11.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum TexGenType {
    Mtx3x4,
    Mtx2x4,
    /// Emboss bump toward light n (0–7).
    Bump(u8),
    Srtg,
}

impl TexGenType {
    pub fn from_bits(v: u32) -> Option<Self> {
        Some(match v {
            0 => Self::Mtx3x4,
            1 => Self::Mtx2x4,
            2..=9 => Self::Bump((v - 2) as u8),
            10 => Self::Srtg,
            _ => return None,
        })
    }
    pub fn bits(self) -> u32 {
        match self {
            Self::Mtx3x4 => 0,
            Self::Mtx2x4 => 1,
            Self::Bump(n) => 2 + n as u32,
            Self::Srtg => 10,
        }
    }
    pub fn name(self) -> String {
        match self {
            Self::Mtx3x4 => "MTX3x4".into(),
            Self::Mtx2x4 => "MTX2x4".into(),
            Self::Bump(n) => format!("BUMP{n}"),
            Self::Srtg => "SRTG".into(),
        }
    }
}

/// Texgen source, `gx.md` §11.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum TexGenSrc {
    Position,
    Normal,
    Binormal,
    Tangent,
    /// Vertex texture coordinate n (TEX0–7).
    Tex(u8),
    /// An earlier texgen's output (TEXCOORD0–6).
    TexCoord(u8),
    Color0,
    Color1,
}

impl TexGenSrc {
    pub fn from_bits(v: u32) -> Option<Self> {
        Some(match v {
            0 => Self::Position,
            1 => Self::Normal,
            2 => Self::Binormal,
            3 => Self::Tangent,
            4..=11 => Self::Tex((v - 4) as u8),
            12..=18 => Self::TexCoord((v - 12) as u8),
            19 => Self::Color0,
            20 => Self::Color1,
            _ => return None,
        })
    }
    pub fn bits(self) -> u32 {
        match self {
            Self::Position => 0,
            Self::Normal => 1,
            Self::Binormal => 2,
            Self::Tangent => 3,
            Self::Tex(n) => 4 + n as u32,
            Self::TexCoord(n) => 12 + n as u32,
            Self::Color0 => 19,
            Self::Color1 => 20,
        }
    }
    pub fn name(self) -> String {
        match self {
            Self::Position => "POS".into(),
            Self::Normal => "NRM".into(),
            Self::Binormal => "BINRM".into(),
            Self::Tangent => "TANGENT".into(),
            Self::Tex(n) => format!("TEX{n}"),
            Self::TexCoord(n) => format!("TEXCOORD{n}"),
            Self::Color0 => "COLOR0".into(),
            Self::Color1 => "COLOR1".into(),
        }
    }
}

/// GX id of the identity texture matrix.
pub const GX_IDENTITY: u32 = 60;
/// GX id of the identity post-transform matrix.
pub const GX_PTIDENTITY: u32 = 125;

/// One texgen, decoded from its word (`formats.md` §3.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct TexGen {
    pub kind: TexGenType,
    pub source: TexGenSrc,
    /// GX matrix id: 30, 33, …, 57 = TEXMTX0–9, 60 = identity (others are kept as read).
    pub gx_tex_mtx: u32,
    pub normalize: bool,
    /// GX post-matrix id: 64, 67, …, 121 = PTTEXMTX0–19, 125 = identity.
    pub gx_post_mtx: u32,
}

impl TexGen {
    /// Decodes a texgen word; None when type or source is out of range.
    pub fn from_word(w: u32) -> Option<Self> {
        Some(Self {
            kind: TexGenType::from_bits(w & 0xF)?,
            source: TexGenSrc::from_bits((w >> 4) & 0x1F)?,
            gx_tex_mtx: ((w >> 9) & 0x1F) + 30,
            normalize: (w >> 14) & 1 != 0,
            gx_post_mtx: ((w >> 15) & 0x3F) + 64,
        })
    }
    pub fn to_word(self) -> u32 {
        self.kind.bits()
            | self.source.bits() << 4
            | (self.gx_tex_mtx - 30) << 9
            | (self.normalize as u32) << 14
            | (self.gx_post_mtx - 64) << 15
    }
    /// TEXMTX slot 0–9, or None for identity/other.
    pub fn tex_mtx_slot(self) -> Option<usize> {
        let v = self.gx_tex_mtx.checked_sub(30)?;
        (v % 3 == 0 && v / 3 < 10).then_some((v / 3) as usize)
    }
    /// PTTEXMTX slot 0–19, or None for identity/other.
    pub fn post_mtx_slot(self) -> Option<usize> {
        let v = self.gx_post_mtx.checked_sub(64)?;
        (v % 3 == 0 && v / 3 < 20).then_some((v / 3) as usize)
    }
}

/// Register or vertex colour as a channel source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum ColorSrc {
    Register,
    Vertex,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum DiffuseFn {
    None,
    Sign,
    Clamp,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum AttnFn {
    Spec,
    Spot,
    None,
}

/// A GX colour-channel control (COLOR0/ALPHA0/COLOR1/ALPHA1), `gx.md` §10.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct ChannelControl {
    pub lighting: bool,
    pub ambient_src: ColorSrc,
    pub material_src: ColorSrc,
    /// Light mask; the engine replaces the file's bits with its active lights.
    pub light_mask: u8,
    pub diffuse_fn: DiffuseFn,
    pub attn_fn: AttnFn,
}

impl ChannelControl {
    /// GX power-on state: disabled, ambient REG, material VTX.
    pub const GX_DEFAULT: Self = Self {
        lighting: false,
        ambient_src: ColorSrc::Register,
        material_src: ColorSrc::Vertex,
        light_mask: 0,
        diffuse_fn: DiffuseFn::None,
        attn_fn: AttnFn::None,
    };

    /// Decodes Prime's colour-channel word (`formats.md` §3.5). Out-of-range function
    /// values (3) decode as the nearest meaning (diffuse CLAMP, attenuation NONE).
    pub fn from_word(w: u32) -> Self {
        let src = |b: u32| {
            if b != 0 {
                ColorSrc::Vertex
            } else {
                ColorSrc::Register
            }
        };
        Self {
            lighting: w & 1 != 0,
            ambient_src: src((w >> 1) & 1),
            material_src: src((w >> 2) & 1),
            light_mask: ((w >> 3) & 0xFF) as u8,
            diffuse_fn: match (w >> 11) & 3 {
                0 => DiffuseFn::None,
                1 => DiffuseFn::Sign,
                _ => DiffuseFn::Clamp,
            },
            attn_fn: match (w >> 13) & 3 {
                0 => AttnFn::Spec,
                1 => AttnFn::Spot,
                _ => AttnFn::None,
            },
        }
    }
}

/// GX blend factor, `gx.md` §8.1 (meaning differs as source vs destination for 2/3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum BlendFactor {
    Zero,
    One,
    /// As source: destination colour; as destination: source colour.
    SrcClr,
    InvSrcClr,
    SrcAlpha,
    InvSrcAlpha,
    DstAlpha,
    InvDstAlpha,
}

impl BlendFactor {
    pub const ALL: [BlendFactor; 8] = [
        Self::Zero,
        Self::One,
        Self::SrcClr,
        Self::InvSrcClr,
        Self::SrcAlpha,
        Self::InvSrcAlpha,
        Self::DstAlpha,
        Self::InvDstAlpha,
    ];
    pub fn from_u16(v: u16) -> Option<Self> {
        Self::ALL.get(v as usize).copied()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum BlendMode {
    None,
    Blend,
    Logic,
    Subtract,
}

/// Blend equation and factors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct Blend {
    pub mode: BlendMode,
    pub src: BlendFactor,
    pub dst: BlendFactor,
}

impl Blend {
    pub const OPAQUE: Self = Self {
        mode: BlendMode::Blend,
        src: BlendFactor::One,
        dst: BlendFactor::Zero,
    };
}

/// GXCompare.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum Compare {
    Never,
    Less,
    Equal,
    LEqual,
    Greater,
    NEqual,
    GEqual,
    Always,
}

impl Compare {
    pub fn test(self, a: u8, b: u8) -> bool {
        match self {
            Self::Never => false,
            Self::Less => a < b,
            Self::Equal => a == b,
            Self::LEqual => a <= b,
            Self::Greater => a > b,
            Self::NEqual => a != b,
            Self::GEqual => a >= b,
            Self::Always => true,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum AlphaOp {
    And,
    Or,
    Xor,
    Xnor,
}

/// GXSetAlphaCompare state, `gx.md` §7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct AlphaTest {
    pub comp0: Compare,
    pub ref0: u8,
    pub op: AlphaOp,
    pub comp1: Compare,
    pub ref1: u8,
}

impl AlphaTest {
    /// Passes everything.
    pub const ALWAYS: Self = Self {
        comp0: Compare::Always,
        ref0: 0,
        op: AlphaOp::Or,
        comp1: Compare::Always,
        ref1: 0,
    };
    /// Prime's punchthrough (material flag 0x20): pass iff alpha ≥ 64.
    pub const PUNCHTHROUGH: Self = Self {
        comp0: Compare::GEqual,
        ref0: 64,
        op: AlphaOp::Or,
        comp1: Compare::Never,
        ref1: 0,
    };
    pub fn passes(self, alpha: u8) -> bool {
        let a = self.comp0.test(alpha, self.ref0);
        let b = self.comp1.test(alpha, self.ref1);
        match self.op {
            AlphaOp::And => a && b,
            AlphaOp::Or => a || b,
            AlphaOp::Xor => a != b,
            AlphaOp::Xnor => a == b,
        }
    }
    pub fn is_always(self) -> bool {
        (0..=255u8).all(|a| self.passes(a))
    }
}

/// One UV animation of a material (`formats.md` §3.9, `gx.md` §12).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum UvAnimation {
    /// Mode 0: inverse model-view without translation (environment map).
    InverseModelViewNoTranslation,
    /// Mode 1: inverse model-view.
    InverseModelView,
    /// Mode 2.
    Scroll {
        offset_u: f32,
        offset_v: f32,
        speed_u: f32,
        speed_v: f32,
    },
    /// Mode 3.
    Rotation { offset: f32, speed: f32 },
    /// Mode 4.
    HorizontalFilmstrip {
        scale: f32,
        num_frames: f32,
        step: f32,
        offset: f32,
    },
    /// Mode 5.
    VerticalFilmstrip {
        scale: f32,
        num_frames: f32,
        step: f32,
        offset: f32,
    },
    /// Mode 6: model matrix (world-planar).
    Model,
    /// Mode 7: cylinder.
    Cylinder { scale: f32, phase: f32 },
    /// Mode 8 (MP2+): SRT with a transform type word.
    Srt {
        transform_type: u32,
        scale_s: f32,
        scale_t: f32,
        rotation: f32,
        rotation_speed: f32,
        translate_s: f32,
        translate_t: f32,
        translate_s_speed: f32,
        translate_t_speed: f32,
    },
}

impl UvAnimation {
    /// Mode name as in the conformance JSONs, `info` and the UI (the one table).
    pub fn mode_name(mode: u32) -> &'static str {
        match mode {
            0 => "MvInvNoTranslation",
            1 => "MvInv",
            2 => "Scroll",
            3 => "Rotation",
            4 => "HStrip",
            5 => "VStrip",
            6 => "Model",
            7 => "CylinderEnvironment",
            8 => "SRT",
            _ => "Unknown",
        }
    }
    /// Parameter names as in the conformance JSONs.
    pub fn parameter_names(mode: u32) -> &'static [&'static str] {
        match mode {
            2 => &["offset_u", "offset_v", "scale_u", "scale_v"],
            3 => &["offset", "scale"],
            4 | 5 => &["scale", "num_frames", "step", "offset"],
            7 => &["param_a", "param_b"],
            8 => &[
                "transform_type",
                "scale_s",
                "scale_t",
                "rotation",
                "rotation_speed",
                "translate_s",
                "translate_t",
                "translate_s_speed",
                "translate_t_speed",
            ],
            _ => &[],
        }
    }

    /// Whether an animation of `mode` loads PTTEXMTX*i* besides TEXMTX*i* (the
    /// environment and model-projection modes 0, 1, 6 and 7).
    pub fn loads_post_matrix(mode: u32) -> bool {
        matches!(mode, 0 | 1 | 6 | 7)
    }

    /// Number of 4-byte parameters that follow the mode word, or None for unknown modes.
    pub fn param_count(mode: u32) -> Option<usize> {
        Some(match mode {
            0 | 1 | 6 => 0,
            2 | 4 | 5 => 4,
            3 | 7 => 2,
            8 => 9,
            _ => return None,
        })
    }

    /// Builds an animation from its mode and raw parameter words.
    pub fn from_words(mode: u32, p: &[u32]) -> Option<Self> {
        if p.len() != Self::param_count(mode)? {
            return None;
        }
        let f = |i: usize| f32::from_bits(p[i]);
        Some(match mode {
            0 => Self::InverseModelViewNoTranslation,
            1 => Self::InverseModelView,
            2 => Self::Scroll {
                offset_u: f(0),
                offset_v: f(1),
                speed_u: f(2),
                speed_v: f(3),
            },
            3 => Self::Rotation {
                offset: f(0),
                speed: f(1),
            },
            4 => Self::HorizontalFilmstrip {
                scale: f(0),
                num_frames: f(1),
                step: f(2),
                offset: f(3),
            },
            5 => Self::VerticalFilmstrip {
                scale: f(0),
                num_frames: f(1),
                step: f(2),
                offset: f(3),
            },
            6 => Self::Model,
            7 => Self::Cylinder {
                scale: f(0),
                phase: f(1),
            },
            8 => Self::Srt {
                transform_type: p[0],
                scale_s: f(1),
                scale_t: f(2),
                rotation: f(3),
                rotation_speed: f(4),
                translate_s: f(5),
                translate_t: f(6),
                translate_s_speed: f(7),
                translate_t_speed: f(8),
            },
            _ => return None,
        })
    }

    pub fn mode(&self) -> u32 {
        match self {
            Self::InverseModelViewNoTranslation => 0,
            Self::InverseModelView => 1,
            Self::Scroll { .. } => 2,
            Self::Rotation { .. } => 3,
            Self::HorizontalFilmstrip { .. } => 4,
            Self::VerticalFilmstrip { .. } => 5,
            Self::Model => 6,
            Self::Cylinder { .. } => 7,
            Self::Srt { .. } => 8,
        }
    }

    /// Parameters as raw words, in file order.
    pub fn param_words(&self) -> Vec<u32> {
        let b = |x: &f32| x.to_bits();
        match self {
            Self::InverseModelViewNoTranslation | Self::InverseModelView | Self::Model => vec![],
            Self::Scroll {
                offset_u,
                offset_v,
                speed_u,
                speed_v,
            } => vec![b(offset_u), b(offset_v), b(speed_u), b(speed_v)],
            Self::Rotation { offset, speed } => vec![b(offset), b(speed)],
            Self::HorizontalFilmstrip {
                scale,
                num_frames,
                step,
                offset,
            }
            | Self::VerticalFilmstrip {
                scale,
                num_frames,
                step,
                offset,
            } => vec![b(scale), b(num_frames), b(step), b(offset)],
            Self::Cylinder { scale, phase } => vec![b(scale), b(phase)],
            Self::Srt {
                transform_type,
                scale_s,
                scale_t,
                rotation,
                rotation_speed,
                translate_s,
                translate_t,
                translate_s_speed,
                translate_t_speed,
            } => vec![
                *transform_type,
                b(scale_s),
                b(scale_t),
                b(rotation),
                b(rotation_speed),
                b(translate_s),
                b(translate_t),
                b(translate_s_speed),
                b(translate_t_speed),
            ],
        }
    }

    /// Whether this mode also loads a post-transform matrix (modes 0, 1, 6, 7).
    pub fn has_post_matrix(&self) -> bool {
        matches!(self.mode(), 0 | 1 | 6 | 7)
    }
}

/// Prime material flags (`formats.md` §3.3).
pub mod flags {
    pub const KONST: u32 = 0x8;
    pub const TRANSPARENT: u32 = 0x10;
    pub const PUNCHTHROUGH: u32 = 0x20;
    pub const SAMUS_REFLECTION: u32 = 0x40;
    pub const DEPTH_WRITE: u32 = 0x80;
    pub const REFLECTION_SURFACE_EYE: u32 = 0x100;
    pub const OCCLUDER: u32 = 0x200;
    pub const INDIRECT_SLOT: u32 = 0x400;
    pub const LIGHTMAP: u32 = 0x800;
    /// TEX0 reads the short-UV array (spec default; the alternative is 0x1000).
    pub const SHORT_UV: u32 = 0x2000;
    pub const SHORT_UV_ALT: u32 = 0x1000;
}

/// A material's own alphas for COLOR0's ambient and material registers (None: the alpha
/// the engine writes there, `gx.md` §10.2). The registers are RGBA on the hardware; MP1
/// and MP2 materials leave them to the engine, MP3's D10 Default zeroes both
/// (`formats.md` §13.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct ChannelAlpha {
    pub ambient: Option<u8>,
    pub material: Option<u8>,
}

impl ChannelAlpha {
    /// Both registers as the engine writes them.
    pub const ENGINE: Self = Self {
        ambient: None,
        material: None,
    };

    pub fn is_engine(&self) -> bool {
        *self == Self::ENGINE
    }
}

/// Everything GX needs to draw with one material: structure plus values.
///
/// Structure (stages, texgens, channel controls, blend, alpha test) determines the
/// generated shader; values (konsts, registers, channel colours) go in uniforms.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Material {
    pub stages: Vec<TevStage>,
    pub texgens: Vec<TexGen>,
    /// Number of texture maps the material binds (map k = material texture k).
    pub texture_count: usize,
    /// K0–K3 (RGBA8); registers the material does not set are 0.
    pub konst: [[u8; 4]; 4],
    /// Number of konst colours the material sets (the engine uses the next free one).
    pub konst_count: usize,
    /// Initial PREV, C0, C1, C2 (signed 11-bit per component); tevscope defaults, `gx.md` §5.
    pub registers: [[i16; 4]; 4],
    /// COLOR0 control from the material's first channel word; None when the material has
    /// no channel word (channel count 0).
    pub color0: Option<ChannelControl>,
    /// Colour-channel count from the file (0, 1 or 2).
    pub channel_count: u32,
    /// Alphas the material writes into COLOR0's ambient and material registers (AMB0 and
    /// MAT0 hold RGBA) after the engine sets them (`gx.md` §10.2); MP3's D10 Default.
    #[serde(skip_serializing_if = "ChannelAlpha::is_engine")]
    pub channel_alpha: ChannelAlpha,
    pub blend: Blend,
    pub alpha_test: AlphaTest,
    pub depth_write: bool,
    /// Drawn after opaque surfaces, sorted back to front (flag 0x10).
    pub depth_sorted: bool,
    pub uv_animations: Vec<UvAnimation>,
    /// The material's raw flags word, for what the structure above does not capture.
    pub flags: u32,
}

/// An empty material with tevscope's defaults: no stages, texgens or textures, default
/// registers (`gx.md` §5), opaque blend, no alpha test, depth write on.
impl Default for Material {
    fn default() -> Self {
        Self {
            stages: vec![],
            texgens: vec![],
            texture_count: 0,
            konst: [[0; 4]; 4],
            konst_count: 0,
            registers: Self::DEFAULT_REGISTERS,
            color0: None,
            channel_count: 0,
            channel_alpha: ChannelAlpha::ENGINE,
            blend: Blend::OPAQUE,
            alpha_test: AlphaTest::ALWAYS,
            depth_write: true,
            depth_sorted: false,
            uv_animations: vec![],
            flags: 0,
        }
    }
}

impl Material {
    /// One stage passing texture map 0 through as sampled (colour = TEXC, alpha = TEXA), with
    /// an identity texgen: how a texture is previewed through the TEV, texel for pixel.
    pub fn texture_passthrough() -> Material {
        let stage = TevStage {
            color_in: [
                ColorInput::Zero,
                ColorInput::Zero,
                ColorInput::Zero,
                ColorInput::Texc,
            ],
            alpha_in: [
                AlphaInput::Zero,
                AlphaInput::Zero,
                AlphaInput::Zero,
                AlphaInput::Texa,
            ],
            color_op: TevCombine::DEFAULT,
            alpha_op: TevCombine::DEFAULT,
            kcsel: KonstSel(0),
            kasel: KonstSel(0),
            raster: RasterChannel::None,
            tex_map: Some(0),
            tex_coord: Some(0),
            tex_swap: 0,
            ras_swap: 0,
        };
        Material {
            stages: vec![stage],
            texgens: vec![TexGen {
                kind: TexGenType::Mtx2x4,
                source: TexGenSrc::Tex(0),
                gx_tex_mtx: GX_IDENTITY,
                normalize: false,
                gx_post_mtx: GX_PTIDENTITY,
            }],
            texture_count: 1,
            konst: [[0; 4]; 4],
            konst_count: 0,
            registers: Material::DEFAULT_REGISTERS,
            color0: None,
            channel_count: 0,
            channel_alpha: ChannelAlpha::ENGINE,
            blend: Blend::OPAQUE,
            alpha_test: AlphaTest::ALWAYS,
            depth_write: true,
            depth_sorted: false,
            uv_animations: Vec::new(),
            flags: 0,
        }
    }

    /// tevscope's default register values (`gx.md` §5).
    pub const DEFAULT_REGISTERS: [[i16; 4]; 4] = [
        [0, 0, 0, 0],
        [255, 255, 255, 0],
        [255, 255, 255, 255],
        [0, 0, 0, 0],
    ];
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combine_word_round_trips_and_decodes_compare() {
        let w = 0x100;
        let c = TevCombine::from_word(w);
        assert_eq!(c, TevCombine::DEFAULT);
        assert_eq!(c.to_word(), w);
        let cmp = TevCombine::from_word(0xF | 0x100);
        assert_eq!(
            cmp.kind(),
            CombineKind::Compare {
                mode: CompareMode::Rgb8,
                equal: true
            }
        );
        let bias3 = TevCombine::from_word(0x30 | 0x80);
        assert_eq!(
            bias3.kind(),
            CombineKind::Compare {
                mode: CompareMode::Bgr24,
                equal: false
            }
        );
    }

    #[test]
    fn konst_selectors_follow_the_table() {
        let k = [
            [1, 2, 3, 4],
            [5, 6, 7, 8],
            [9, 10, 11, 12],
            [13, 14, 15, 16],
        ];
        assert_eq!(KonstSel(0).color(&k), [255; 3]);
        assert_eq!(KonstSel(4).alpha(&k), 128);
        assert_eq!(KonstSel(9).color(&k), [0; 3]);
        assert_eq!(KonstSel(0x0D).color(&k), [5, 6, 7]);
        assert_eq!(KonstSel(0x0D).alpha(&k), 0);
        assert_eq!(KonstSel(0x16).color(&k), [10; 3]);
        assert_eq!(KonstSel(0x1F).alpha(&k), 16);
    }

    #[test]
    fn texgen_word_round_trips() {
        // The cube fixture's texgen: MTX2x4 from TEX0, identity, post identity.
        let t = TexGen::from_word(1998913).unwrap();
        assert_eq!(t.kind, TexGenType::Mtx2x4);
        assert_eq!(t.source, TexGenSrc::Tex(0));
        assert_eq!(t.gx_tex_mtx, 30);
        assert_eq!(t.gx_post_mtx, GX_PTIDENTITY);
        assert_eq!(t.to_word(), 1998913);
        assert_eq!(t.tex_mtx_slot(), Some(0));
        assert_eq!(t.post_mtx_slot(), None);
    }

    #[test]
    fn punchthrough_is_alpha_ge_64() {
        assert!(!AlphaTest::PUNCHTHROUGH.passes(63));
        assert!(AlphaTest::PUNCHTHROUGH.passes(64));
        assert!(AlphaTest::ALWAYS.is_always());
    }
}
