//! `tevscope worlds`: every world of a PAK or folder of PAKs with its rooms by name (a
//! public JSON interface: `{"worlds": [{"pak", "game", "mlvl_id", "name", "names", "areas":
//! [...]}]}`, documented in the README). Built by `load::worlds`.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::AabbInfo;
use super::mlvl::LayerInfo;
use crate::formats::Game;

#[derive(Debug, Default, Serialize)]
pub struct WorldsReport {
    pub worlds: Vec<WorldInfo>,
    /// PAKs of a folder that could not be read (the others are still listed).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// Where a displayed name came from (§12.7: fallbacks are marked).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NameSource {
    /// String 0 of the name STRG.
    Strg,
    /// The PAK's named-resource name (worlds).
    ResourceName,
    /// The MLVL's internal area name (MP2, MP3).
    InternalName,
    /// The asset ID in hex.
    Id,
}

#[derive(Debug, Serialize)]
pub struct WorldInfo {
    /// The PAK the MLVL is in, as given (`dir/Metroid1.pak`).
    pub pak: String,
    pub game: Game,
    pub mlvl_id: String,
    /// In the chosen language, formatting tags removed.
    pub name: String,
    pub name_source: NameSource,
    /// Per language code: string 0 of the world-name STRG, tags removed.
    pub names: BTreeMap<String, String>,
    /// MP2: the dark world's name (chosen language) and per language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dark_name: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub dark_names: BTreeMap<String, String>,
    /// The language the names were chosen in (None: no STRG was found).
    pub language: Option<String>,
    pub areas: Vec<WorldAreaInfo>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct WorldAreaInfo {
    /// The area index docks, attached areas and layer tables use (file order).
    pub index: usize,
    pub name: String,
    pub name_source: NameSource,
    pub names: BTreeMap<String, String>,
    pub mrea_id: String,
    /// MP2, MP3.
    pub internal_name: Option<String>,
    /// What opens the room: `FILE.pak:0xID.MREA` (the PAK that holds it, else the world's).
    pub spec: String,
    /// Area-local to world space.
    pub transform_rows_3x4: [[f64; 4]; 3],
    /// World space.
    pub aabb: AabbInfo,
    pub attached_areas: Vec<u16>,
    pub layers: Vec<LayerInfo>,
    pub dependency_count: usize,
}

impl WorldsReport {
    pub fn text(&self) -> String {
        let mut out = String::new();
        for w in &self.worlds {
            let _ = writeln!(
                out,
                "{} {} ({}, MLVL {}): {} areas",
                w.pak,
                w.name,
                super::game_name(w.game),
                w.mlvl_id,
                w.areas.len()
            );
            if let Some(dark) = &w.dark_name {
                let _ = writeln!(out, "  dark world: {dark}");
            }
            for a in &w.areas {
                let marker = if a.name_source == NameSource::Strg {
                    ""
                } else {
                    " *"
                };
                let _ = writeln!(
                    out,
                    "  {:>3}  {:<32} {}  layers {}  deps {}",
                    a.index,
                    format!("{}{marker}", a.name),
                    a.spec,
                    a.layers.len(),
                    a.dependency_count
                );
            }
            super::warnings_text(&mut out, &w.warnings);
        }
        if self.worlds.is_empty() {
            out.push_str("no worlds (no named MLVL in these PAKs)\n");
        }
        super::warnings_text(&mut out, &self.warnings);
        out
    }
}
