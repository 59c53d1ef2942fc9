//! Worlds by name (formats.md §12.7): every named MLVL of a PAK, of a folder's PAKs (and its
//! subfolders') or of a disc image's PAKs, with
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

/// How deep below a folder source PAKs are looked for (an extracted disc keeps them in
/// `files/` and game folders such as `files/MP2/`), and how many entries are looked at at most.
const FOLDER_DEPTH: usize = 4;
const FOLDER_MAX_ENTRIES: usize = 20_000;

/// The PAKs of `source`: a disc image's `*.pak` files (any folder, FST order, §14.3), a
/// folder's `*.pak` files and its subfolders' (by path), or the PAK itself.
fn pak_paths(source: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if super::disc::is_disc_image(source) {
        let disc = super::disc::open(source)?;
        return Ok(disc.paks().map(|f| disc.member_path(f)).collect());
    }
    if !source.is_dir() {
        return Ok(vec![source.to_path_buf()]);
    }
    let mut paths = Vec::new();
    let mut level = vec![source.to_path_buf()];
    let mut seen = 0;
    for _ in 0..=FOLDER_DEPTH {
        let mut next = Vec::new();
        for dir in &level {
            let entries = match std::fs::read_dir(dir) {
                Ok(e) => e,
                Err(e) if dir == source => {
                    return Err(e).with_context(|| format!("reading the folder {}", dir.display()));
                }
                Err(_) => continue,
            };
            for p in entries.filter_map(|e| Some(e.ok()?.path())) {
                seen += 1;
                if seen > FOLDER_MAX_ENTRIES {
                    break;
                }
                let hidden = p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'));
                if p.is_dir() && !hidden {
                    next.push(p);
                } else if p.is_file()
                    && p.extension().is_some_and(|e| e.eq_ignore_ascii_case("pak"))
                {
                    paths.push(p);
                }
            }
        }
        level = next;
    }
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
    let several = paths.len() != 1 || paths[0] != source;
    for path in &paths {
        match PakResolver::open(path) {
            Ok(p) => paks.push(p),
            // A lone PAK must open; in a folder or on a disc, the others are still listed.
            Err(e) if several => report.warnings.push(format!("{e:#}")),
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

/// The models a room depends on (its MLVL dependency list's CMDL and ANCS entries, every
/// layer and area-wide, in list order) that its world's PAK holds, as specs that open them:
/// what the world browser lists under a room.
pub fn room_models(world: &WorldInfo, area: usize) -> anyhow::Result<Vec<(String, String)>> {
    let pak = PakResolver::open(Path::new(&world.pak))?;
    let wide = pak.archive.pak.wide_ids();
    let id = u64::from_str_radix(world.mlvl_id.trim_start_matches("0x"), 16)
        .with_context(|| format!("world ID {}", world.mlvl_id))?;
    let entry = pak
        .archive
        .pak
        .find(id, Some(*b"MLVL"))
        .ok_or_else(|| anyhow::anyhow!("{}: no MLVL {}", world.pak, world.mlvl_id))?;
    let mlvl = Mlvl::parse(
        &pak.archive.read(entry)?,
        &pak.archive.pak.entry_label(entry),
    )?;
    let Some(a) = mlvl.areas.get(area) else {
        anyhow::bail!("{}: world {} has no area {area}", world.pak, world.mlvl_id);
    };
    let mut out = Vec::new();
    for d in &a.dependencies {
        let fourcc = d.fourcc.0;
        if !matches!(&fourcc, b"CMDL" | b"ANCS")
            || pak.archive.pak.find(d.id, Some(fourcc)).is_none()
        {
            continue;
        }
        let spec = format!(
            "{}:{}",
            world.pak,
            super::source::resource_name(d.id, fourcc, wide)
        );
        if out.iter().all(|(_, s)| *s != spec) {
            let name = pak
                .archive
                .pak
                .find(d.id, Some(fourcc))
                .and_then(|e| pak.archive.pak.name_of(e).map(str::to_string))
                .unwrap_or_else(|| super::source::resource_name(d.id, fourcc, wide));
            out.push((name, spec));
        }
    }
    Ok(out)
}
