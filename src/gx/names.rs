//! The one name table per GX enum: `Display` prints the name `info`, the JSON schema, the UI
//! and the WGSL comments use, and `FromStr` reads it back (for edits given as JSON).

use std::fmt;
use std::str::FromStr;

use super::types::{
    AlphaInput, AlphaOp, AttnFn, BlendFactor, BlendMode, ColorInput, ColorSrc, Compare, DiffuseFn,
    KonstSel, RasterChannel, TevReg, TexGenSrc, TexGenType,
};

/// A name that is not in the enum's table.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{name:?} is not a {kind} (expected one of {expected})")]
pub struct UnknownName {
    pub kind: &'static str,
    pub name: String,
    pub expected: String,
}

/// Looks `s` up among `all` by their `Display` names (case-insensitive).
fn parse_named<T: Copy + fmt::Display>(
    s: &str,
    all: impl IntoIterator<Item = T> + Clone,
    kind: &'static str,
) -> Result<T, UnknownName> {
    all.clone()
        .into_iter()
        .find(|v| v.to_string().eq_ignore_ascii_case(s))
        .ok_or_else(|| UnknownName {
            kind,
            name: s.to_string(),
            expected: all
                .into_iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(", "),
        })
}

macro_rules! named {
    ($t:ty, $kind:literal, $all:expr) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.name())
            }
        }
        impl FromStr for $t {
            type Err = UnknownName;
            fn from_str(s: &str) -> Result<Self, UnknownName> {
                parse_named(s, $all, $kind)
            }
        }
    };
}

named!(ColorInput, "colour combiner input", ColorInput::ALL);
named!(AlphaInput, "alpha combiner input", AlphaInput::ALL);
named!(TevReg, "TEV register", TevReg::ALL);
named!(
    TexGenType,
    "texgen type",
    (0..=10).filter_map(TexGenType::from_bits)
);
named!(
    TexGenSrc,
    "texgen source",
    (0..=20).filter_map(TexGenSrc::from_bits)
);

/// A combiner's raw op field (bits 0–3, `gx.md` §3.1): 0 ADD, 1 SUB, 8–15 the compares;
/// 2–7 are named by the compare they decode as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TevOp(pub u8);

impl TevOp {
    const COMPARES: [&'static str; 8] = [
        "R8_GT", "R8_EQ", "GR16_GT", "GR16_EQ", "BGR24_GT", "BGR24_EQ", "RGB8_GT", "RGB8_EQ",
    ];
    pub const ALL: [TevOp; 16] = {
        let mut all = [TevOp(0); 16];
        let mut i = 0;
        while i < 16 {
            all[i] = TevOp(i as u8);
            i += 1;
        }
        all
    };
    pub fn name(self) -> String {
        match self.0 {
            0 => "ADD".into(),
            1 => "SUB".into(),
            v @ 2..=7 => format!("{v} (= {})", Self::COMPARES[v as usize]),
            v @ 8..=15 => Self::COMPARES[(v - 8) as usize].into(),
            v => format!("? {v}"),
        }
    }
}

/// A combiner's raw bias field (3 selects a compare, `gx.md` §3.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TevBiasField(pub u8);

impl TevBiasField {
    pub const ALL: [TevBiasField; 4] = [Self(0), Self(1), Self(2), Self(3)];
    pub fn name(self) -> String {
        ["+0", "+1/2", "-1/2", "compare"]
            .get(self.0 as usize)
            .map_or_else(|| format!("? {}", self.0), |s| (*s).into())
    }
}

/// A combiner's raw scale field (the compare width when bias is 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TevScaleField(pub u8);

impl TevScaleField {
    pub const ALL: [TevScaleField; 4] = [Self(0), Self(1), Self(2), Self(3)];
    pub fn name(self) -> String {
        ["x1", "x2", "x4", "x1/2"]
            .get(self.0 as usize)
            .map_or_else(|| format!("? {}", self.0), |s| (*s).into())
    }
}

impl KonstSel {
    pub const ALL: [KonstSel; 32] = {
        let mut all = [KonstSel(0); 32];
        let mut i = 0;
        while i < 32 {
            all[i] = KonstSel(i as u8);
            i += 1;
        }
        all
    };
    /// `gx.md` §4: fractions 1 … 1/8, K0–K3 (rgb), K0_R … K3_A (one component).
    pub fn name(self) -> String {
        const FRACTIONS: [&str; 8] = ["1", "7/8", "3/4", "5/8", "1/2", "3/8", "1/4", "1/8"];
        match self.0 {
            v @ 0..=7 => FRACTIONS[v as usize].to_string(),
            v @ 8..=11 => format!("invalid ({v})"),
            v @ 12..=15 => format!("K{}", v - 12),
            v @ 16..=31 => {
                let comp = ["R", "G", "B", "A"][((v - 16) / 4) as usize];
                format!("K{}_{comp}", (v - 16) % 4)
            }
            v => format!("? ({v})"),
        }
    }
}

impl RasterChannel {
    pub const ALL: [RasterChannel; 10] = [
        Self::Color0,
        Self::Color1,
        Self::Alpha0,
        Self::Alpha1,
        Self::Color0A0,
        Self::Color1A1,
        Self::ColorZero,
        Self::AlphaBump,
        Self::AlphaBumpN,
        Self::None,
    ];
    /// GXChannelID names without the prefix.
    pub fn name(self) -> &'static str {
        match self {
            Self::Color0 => "COLOR0",
            Self::Color1 => "COLOR1",
            Self::Alpha0 => "ALPHA0",
            Self::Alpha1 => "ALPHA1",
            Self::Color0A0 => "COLOR0A0",
            Self::Color1A1 => "COLOR1A1",
            Self::ColorZero => "COLOR_ZERO",
            Self::AlphaBump => "ALPHA_BUMP",
            Self::AlphaBumpN => "ALPHA_BUMPN",
            Self::None => "COLOR_NULL",
        }
    }
}

impl BlendFactor {
    /// GXBlendFactor names without the prefix.
    pub fn name(self) -> &'static str {
        match self {
            Self::Zero => "ZERO",
            Self::One => "ONE",
            Self::SrcClr => "SRCCLR",
            Self::InvSrcClr => "INVSRCCLR",
            Self::SrcAlpha => "SRCALPHA",
            Self::InvSrcAlpha => "INVSRCALPHA",
            Self::DstAlpha => "DSTALPHA",
            Self::InvDstAlpha => "INVDSTALPHA",
        }
    }
}

impl BlendMode {
    pub const ALL: [BlendMode; 4] = [Self::None, Self::Blend, Self::Logic, Self::Subtract];
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "NONE",
            Self::Blend => "BLEND",
            Self::Logic => "LOGIC",
            Self::Subtract => "SUBTRACT",
        }
    }
}

impl Compare {
    pub const ALL: [Compare; 8] = [
        Self::Never,
        Self::Less,
        Self::Equal,
        Self::LEqual,
        Self::Greater,
        Self::NEqual,
        Self::GEqual,
        Self::Always,
    ];
    pub fn name(self) -> &'static str {
        match self {
            Self::Never => "NEVER",
            Self::Less => "LESS",
            Self::Equal => "EQUAL",
            Self::LEqual => "LEQUAL",
            Self::Greater => "GREATER",
            Self::NEqual => "NEQUAL",
            Self::GEqual => "GEQUAL",
            Self::Always => "ALWAYS",
        }
    }
}

impl AlphaOp {
    pub const ALL: [AlphaOp; 4] = [Self::And, Self::Or, Self::Xor, Self::Xnor];
    pub fn name(self) -> &'static str {
        match self {
            Self::And => "AND",
            Self::Or => "OR",
            Self::Xor => "XOR",
            Self::Xnor => "XNOR",
        }
    }
}

impl ColorSrc {
    pub const ALL: [ColorSrc; 2] = [Self::Register, Self::Vertex];
    pub fn name(self) -> &'static str {
        match self {
            Self::Register => "REG",
            Self::Vertex => "VTX",
        }
    }
}

impl DiffuseFn {
    pub const ALL: [DiffuseFn; 3] = [Self::None, Self::Sign, Self::Clamp];
    pub fn name(self) -> &'static str {
        match self {
            Self::None => "NONE",
            Self::Sign => "SIGN",
            Self::Clamp => "CLAMP",
        }
    }
}

impl AttnFn {
    pub const ALL: [AttnFn; 3] = [Self::Spec, Self::Spot, Self::None];
    pub fn name(self) -> &'static str {
        match self {
            Self::Spec => "SPEC",
            Self::Spot => "SPOT",
            Self::None => "NONE",
        }
    }
}

named!(TevOp, "combiner op", TevOp::ALL);
named!(TevBiasField, "combiner bias", TevBiasField::ALL);
named!(TevScaleField, "combiner scale", TevScaleField::ALL);
named!(KonstSel, "konst selector", KonstSel::ALL);
named!(RasterChannel, "raster channel", RasterChannel::ALL);
named!(BlendFactor, "blend factor", BlendFactor::ALL);
named!(BlendMode, "blend mode", BlendMode::ALL);
named!(Compare, "compare", Compare::ALL);
named!(AlphaOp, "alpha op", AlphaOp::ALL);
named!(ColorSrc, "channel source", ColorSrc::ALL);
named!(DiffuseFn, "diffuse function", DiffuseFn::ALL);
named!(AttnFn, "attenuation function", AttnFn::ALL);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn every_name_reads_back() {
        for c in ColorInput::ALL {
            assert_eq!(c.to_string().parse::<ColorInput>().unwrap(), c);
        }
        for a in AlphaInput::ALL {
            assert_eq!(a.to_string().parse::<AlphaInput>().unwrap(), a);
        }
        for v in 0..=10 {
            let t = TexGenType::from_bits(v).unwrap();
            assert_eq!(t.to_string().parse::<TexGenType>().unwrap(), t);
        }
        for v in 0..=20 {
            let s = TexGenSrc::from_bits(v).unwrap();
            assert_eq!(s.to_string().parse::<TexGenSrc>().unwrap(), s);
        }
        assert_eq!("texc".parse::<ColorInput>().unwrap(), ColorInput::Texc);
        for k in KonstSel::ALL {
            assert_eq!(k.to_string().parse::<KonstSel>().unwrap(), k);
        }
        for op in TevOp::ALL {
            assert_eq!(op.to_string().parse::<TevOp>().unwrap(), op);
        }
        for r in RasterChannel::ALL {
            assert_eq!(r.to_string().parse::<RasterChannel>().unwrap(), r);
        }
        for f in BlendFactor::ALL {
            assert_eq!(f.to_string().parse::<BlendFactor>().unwrap(), f);
        }
        assert_eq!(KonstSel(0x0D).to_string(), "K1");
        assert_eq!(KonstSel(0x1F).to_string(), "K3_A");
        assert_eq!(TevOp(9).to_string(), "R8_EQ");
        let e = "TEXX".parse::<ColorInput>().unwrap_err();
        assert!(e.to_string().contains("CPREV, APREV"), "{e}");
    }
}
