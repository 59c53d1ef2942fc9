//! The one name table per GX enum: `Display` prints the name `info`, the JSON schema, the UI
//! and the WGSL comments use, and `FromStr` reads it back (for edits given as JSON).

use std::fmt;
use std::str::FromStr;

use super::types::{AlphaInput, ColorInput, TevReg, TexGenSrc, TexGenType};

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
        let e = "TEXX".parse::<ColorInput>().unwrap_err();
        assert!(e.to_string().contains("CPREV, APREV"), "{e}");
    }
}
