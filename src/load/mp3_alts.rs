//! The spec's MP3 Alts a user can switch on (`formats.md` §13): one table that the CLI's
//! `--mp3-alt NAME`, the viewer's toggles and the README list. All off = the Defaults.

use serde::Serialize;

use crate::anim::{MP3_NORMAL_MODE, NormalMode};
use crate::gx::mp3::SynthesisOptions;

/// The MP3 Alts in force while a model loads and its materials are derived.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Mp3Alts {
    /// The PASS → TEV synthesis' Alts (§13.3 D3, D5, D8, D9).
    pub synthesis: SynthesisOptions,
    /// §13.4 Alt: skinned normals take the first weight's rotation (§7.5) instead of the
    /// weighted blend.
    pub first_weight_normals: bool,
}

/// One switch of [`MP3_ALTS`].
pub struct Mp3Alt {
    /// The CLI's name (`--mp3-alt NAME`).
    pub name: &'static str,
    /// Where the spec names it.
    pub spec: &'static str,
    /// What it changes, for help text and the viewer.
    pub what: &'static str,
    /// The flag it sets.
    pub flag: fn(&mut Mp3Alts) -> &mut bool,
}

/// Every MP3 Alt offered.
pub const MP3_ALTS: [Mp3Alt; 5] = [
    Mp3Alt {
        name: "alpha-compare-literal",
        spec: "formats.md §13.3 D3",
        what: "MaterialAlphaCompare tests RASA × TRAN as PrimeWorldEditor literally does, not the CLR texture's alpha",
        flag: |a| &mut a.synthesis.alpha_compare_literal,
    },
    Mp3Alt {
        name: "optimized-opaque",
        spec: "formats.md §13.3 D5",
        what: "PrimeWorldEditor's OptimizedDiffuseLightingColorOpaque for opaque DIFF + CLR materials (RFLD, INCA and bloom passes dropped)",
        flag: |a| &mut a.synthesis.optimized_opaque,
    },
    Mp3Alt {
        name: "unlit-konst-x1",
        spec: "formats.md §13.3 D8",
        what: "R2 without a CLR pass scales ×1, not ×2, when no lighting stage was emitted",
        flag: |a| &mut a.synthesis.unlit_konst_color_x1,
    },
    Mp3Alt {
        name: "forced-swap-channels",
        spec: "formats.md §13.3 D9",
        what: "TRAN reads R and BLOL reads G whatever the pass flags say (noclip)",
        flag: |a| &mut a.synthesis.forced_swap_channels,
    },
    Mp3Alt {
        name: "first-weight-normals",
        spec: "formats.md §13.4",
        what: "skinned normals take the first weight's rotation instead of the renormalised weighted blend",
        flag: |a| &mut a.first_weight_normals,
    },
];

impl Mp3Alts {
    /// The Alts named (each a [`MP3_ALTS`] name); an unknown name is an error listing them.
    pub fn from_names<S: AsRef<str>>(names: &[S]) -> Result<Self, String> {
        let mut alts = Self::default();
        for name in names {
            let name = name.as_ref();
            let alt = MP3_ALTS.iter().find(|a| a.name == name).ok_or_else(|| {
                let known: Vec<_> = MP3_ALTS.iter().map(|a| a.name).collect();
                format!("unknown MP3 Alt {name:?} (known: {})", known.join(", "))
            })?;
            *(alt.flag)(&mut alts) = true;
        }
        Ok(alts)
    }

    /// Whether `alt` is on.
    pub fn is_on(&self, alt: &Mp3Alt) -> bool {
        *(alt.flag)(&mut self.clone())
    }

    /// The names of the Alts that are on, in table order.
    pub fn names(&self) -> Vec<&'static str> {
        MP3_ALTS
            .iter()
            .filter(|a| self.is_on(a))
            .map(|a| a.name)
            .collect()
    }

    /// How MP3 skinned normals are blended.
    pub fn normal_mode(&self) -> NormalMode {
        if self.first_weight_normals {
            NormalMode::FirstWeight
        } else {
            MP3_NORMAL_MODE
        }
    }
}

/// clap's parser for `--mp3-alt`: a name of [`MP3_ALTS`].
pub fn parse_alt_name(name: &str) -> Result<String, String> {
    Mp3Alts::from_names(&[name]).map(|_| name.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_sets_its_own_flag_and_reads_back() {
        for (i, alt) in MP3_ALTS.iter().enumerate() {
            let alts = Mp3Alts::from_names(&[alt.name]).unwrap();
            assert_ne!(alts, Mp3Alts::default(), "{}", alt.name);
            assert_eq!(alts.names(), [alt.name]);
            for (j, other) in MP3_ALTS.iter().enumerate() {
                assert_eq!(
                    alts.is_on(other),
                    i == j,
                    "{} sets {}",
                    alt.name,
                    other.name
                );
            }
        }
        let e = Mp3Alts::from_names(&["nope"]).unwrap_err();
        assert!(
            e.contains("nope") && e.contains("first-weight-normals"),
            "{e}"
        );
    }
}
