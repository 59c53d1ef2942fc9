//! Worlds by name (formats.md §12.7): every named MLVL of a PAK or of a folder's PAKs, with
//! its rooms in file order, named from their STRGs in one language. Only PAK tables, MLVLs
//! and STRGs are read (never MREAs or textures), so listing a retail folder stays quick.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context as _;

use super::source::PakResolver;
use crate::formats::asset_id_string;
use crate::formats::mlvl::{Mlvl, NO_ID};
use crate::formats::pak::PakEntry;
use crate::formats::strg::{Strg, strip_tags};
use crate::schema::mlvl::{LayerInfo, id_text, rows, world_aabb};
use crate::schema::worlds::{NameSource, WorldAreaInfo, WorldInfo, WorldsReport};

/// The PAKs of `source`: itself, or a folder's `*.pak` files (not its subfolders), by name.
fn pak_paths(source: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if !source.is_dir() {
        return Ok(vec![source.to_path_buf()]);
    }
    let mut paths: Vec<PathBuf> = std::fs::read_dir(source)
        .with_context(|| format!("reading the folder {}", source.display()))?
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pak")))
        .collect();
    paths.sort();
    Ok(paths)
}

/// Lists the worlds of a PAK or a folder of PAKs, names in `language` (a code such as
/// `GERM`; else ENGL; else each table's first). A bad MLVL is an error; a missing or bad
/// STRG gives a fallback name and a warning.
pub fn list_worlds(source: &Path, language: Option<&str>) -> anyhow::Result<WorldsReport> {
    let mut report = WorldsReport::default();
    let mut paks = Vec::new();
    let paths = pak_paths(source)?;
    for path in &paths {
        match PakResolver::open(path) {
            Ok(p) => paks.push(p),
            // A lone PAK must open; in a folder, the others are still listed.
            Err(e) if source.is_dir() => report.warnings.push(format!("{e:#}")),
            Err(e) => return Err(e),
        }
    }
    for (i, pak) in paks.iter().enumerate() {
        let archive = &pak.archive;
        let mut seen = Vec::new();
        for named in archive.pak.named() {
            let Some(entry) = archive.pak.find(named.id, Some(*b"MLVL")) else {
                continue;
            };
            if named.fourcc != *b"MLVL" || seen.contains(&entry.id) {
                continue;
            }
            seen.push(entry.id);
            let world = World {
                paks: &paks,
                home: i,
                language,
            };
            let info = world
                .list(entry, &named.name)
                .with_context(|| format!("world {}", archive.pak.entry_label(entry)))?;
            report.worlds.push(info);
        }
    }
    Ok(report)
}

/// One world being listed: the open PAKs (its own first when resolving) and the language.
struct World<'a> {
    paks: &'a [PakResolver],
    home: usize,
    language: Option<&'a str>,
}

/// A name in the chosen language and in every language.
struct Names {
    chosen: Option<(String, String)>,
    all: BTreeMap<String, String>,
}

impl World<'_> {
    /// The open PAKs, the world's own first.
    fn search_order(&self) -> impl Iterator<Item = &PakResolver> {
        std::iter::once(&self.paks[self.home]).chain(
            self.paks
                .iter()
                .enumerate()
                .filter(move |(i, _)| *i != self.home)
                .map(|(_, p)| p),
        )
    }

    fn label(&self, pak: &PakResolver) -> String {
        pak.path.display().to_string()
    }

    fn list(&self, entry: &PakEntry, resource_name: &str) -> anyhow::Result<WorldInfo> {
        let home = &self.paks[self.home];
        let bytes = home.archive.read(entry)?;
        let mlvl = Mlvl::parse(&bytes, &home.archive.pak.entry_label(entry))?;
        let wide = mlvl.wide_ids();
        let mut warnings = mlvl.warnings.clone();
        let world = self.names(mlvl.world_name_id, wide, &mut warnings);
        let dark = mlvl
            .dark_world_name_id
            .map(|id| self.names(id, wide, &mut warnings));
        let (name, name_source, language) = match &world.chosen {
            Some((lang, s)) if !s.is_empty() => (s.clone(), NameSource::Strg, Some(lang.clone())),
            _ => (resource_name.to_string(), NameSource::ResourceName, None),
        };
        let areas = mlvl
            .areas
            .iter()
            .enumerate()
            .map(|(index, a)| {
                let names = self.names(a.name_id, wide, &mut warnings);
                let mrea_id = id_text(a.mrea_id, wide);
                let (name, name_source) = match (&names.chosen, &a.internal_name) {
                    (Some((_, s)), _) if !s.is_empty() => (s.clone(), NameSource::Strg),
                    (_, Some(n)) if !n.is_empty() => (n.clone(), NameSource::InternalName),
                    _ => (mrea_id.clone(), NameSource::Id),
                };
                let holder = self
                    .search_order()
                    .find(|p| p.archive.pak.find(a.mrea_id, Some(*b"MREA")).is_some());
                if holder.is_none() {
                    warnings.push(format!(
                        "area {index}: MREA {mrea_id} is in none of the PAKs"
                    ));
                }
                let pak = self.label(holder.unwrap_or(home));
                WorldAreaInfo {
                    index,
                    name,
                    name_source,
                    names: names.all,
                    spec: format!("{pak}:{mrea_id}.MREA"),
                    mrea_id,
                    internal_name: a.internal_name.clone(),
                    transform_rows_3x4: rows(a),
                    aabb: world_aabb(a),
                    attached_areas: a.attached_areas.clone(),
                    layers: LayerInfo::of(&a.layers),
                    dependency_count: a.dependencies.len(),
                }
            })
            .collect();
        Ok(WorldInfo {
            pak: self.label(home),
            game: mlvl.game,
            mlvl_id: asset_id_string(entry.id, wide),
            name,
            name_source,
            names: world.all,
            dark_name: dark.as_ref().and_then(|d| Some(d.chosen.clone()?.1)),
            dark_names: dark.map(|d| d.all).unwrap_or_default(),
            language: language.or_else(|| self.language.map(str::to_ascii_uppercase)),
            areas,
            warnings,
        })
    }

    /// String 0 of STRG `id` (tags removed) per language and in the chosen one; empty when
    /// the ID is none, and a warning when the STRG is missing or unreadable.
    fn names(&self, id: u64, wide: bool, warnings: &mut Vec<String>) -> Names {
        let mut names = Names {
            chosen: None,
            all: BTreeMap::new(),
        };
        if id == NO_ID {
            return names;
        }
        let found = self.search_order().find_map(|p| {
            let e = p.archive.pak.find(id, Some(*b"STRG"))?;
            Some((p, e))
        });
        let Some((pak, entry)) = found else {
            warnings.push(format!("STRG {} is in none of the PAKs", id_text(id, wide)));
            return names;
        };
        let label = pak.archive.pak.entry_label(entry);
        let strg = pak
            .archive
            .read(entry)
            .and_then(|bytes| Strg::parse(&bytes, &label));
        let strg = match strg {
            Ok(s) => s,
            Err(e) => {
                warnings.push(e.to_string());
                return names;
            }
        };
        warnings.extend(strg.warnings.iter().map(|w| format!("{label}: {w}")));
        let first = |l: &crate::formats::strg::StrgLanguage| {
            strip_tags(l.strings.first().map_or("", String::as_str))
        };
        names.all = strg
            .languages
            .iter()
            .map(|l| (l.code.to_string(), first(l)))
            .collect();
        names.chosen = strg
            .language(self.language)
            .map(|l| (l.code.to_string(), first(l)));
        names
    }
}
