//! MLVL worlds (formats.md §12.2–12.5): versions 0x11 (MP1), 0x17 (MP2), 0x19 (MP3). The
//! areas in file order, with what a room listing needs (name STRG, MREA, transform, bounds,
//! layers, dependencies, docks). Odd but loadable values become warnings. Read only.

use super::reader::Reader;
use super::{ErrorKind, FourCc, Game, Result};

pub const MAGIC: u32 = 0xDEAF_BABE;

/// The ID that means "none".
pub const NO_ID: u64 = u64::MAX;

/// One asset an area depends on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dependency {
    pub id: u64,
    pub fourcc: FourCc,
}

/// A dock: the docks it connects to (area index, dock index) and its quad, area-local.
#[derive(Debug, Clone, PartialEq)]
pub struct Dock {
    pub connecting: Vec<(u32, u32)>,
    pub coordinates: Vec<[f32; 3]>,
}

/// A layer of an area and whether it is active when the world loads.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    pub name: String,
    pub active: bool,
}

/// One area (room) of the world.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Area {
    /// Area-name STRG ([`NO_ID`] for none; all ones of the game's ID width).
    pub name_id: u64,
    /// Area-local to world, 3 rows × 4.
    pub transform: [[f32; 4]; 3],
    /// Bounds, area-local.
    pub aabb_min: [f32; 3],
    pub aabb_max: [f32; 3],
    pub mrea_id: u64,
    /// The ID layer-switch script objects use.
    pub internal_id: u64,
    pub attached_areas: Vec<u16>,
    /// The always-zero "lazy dependency" u32 (MP1/MP2).
    pub lazy_u32: u32,
    pub dependencies: Vec<Dependency>,
    /// Entry index where each layer's dependencies start; the last starts the area-wide tail.
    pub dependency_starts: Vec<u32>,
    pub docks: Vec<Dock>,
    /// MP2: module `.rel` names and (start, end) index pairs per layer, flat.
    pub modules: Vec<String>,
    pub module_ranges: Vec<u32>,
    /// MP2, MP3.
    pub internal_name: Option<String>,
    /// From the world's layer tables.
    pub layer_count: u32,
    pub layer_bits: u64,
    pub layers: Vec<Layer>,
}

/// An 11-byte MP1 memory relay.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MemoryRelay {
    pub relay_id: u32,
    pub target_id: u32,
    pub message: u16,
    pub active: u8,
}

/// A parsed MLVL.
#[derive(Debug, Clone, PartialEq)]
pub struct Mlvl {
    pub game: Game,
    pub version: u32,
    pub world_name_id: u64,
    /// MP2.
    pub dark_world_name_id: Option<u64>,
    /// MP2 (and the unknown MP3 u32 at the same place).
    pub temple_key_world_index: Option<u32>,
    pub savw_id: u64,
    pub skybox_id: u64,
    pub memory_relays: Vec<MemoryRelay>,
    /// MP1: the unknown u32 after the area count (always 1).
    pub area_count_extra: Option<u32>,
    pub areas: Vec<Area>,
    pub mapw_id: u64,
    /// MP1: (group ID, AGSC ID).
    pub audio_groups: Vec<(u32, u64)>,
    /// All areas' layer names, concatenated, and each area's first index into them.
    pub layer_names: Vec<String>,
    pub layer_name_starts: Vec<u32>,
    /// MP3 layer state GUIDs.
    pub layer_guids: Vec<[u8; 16]>,
    pub warnings: Vec<String>,
}

impl Area {
    /// The dependencies of each layer and the area-wide tail (§12.5). Starts that decrease or
    /// run past the list (the parser warned) make every dependency area-wide: overlapping
    /// layers would let a small file list the same entries over and over.
    pub fn dependency_layers(&self) -> (Vec<&[Dependency]>, &[Dependency]) {
        let starts = &self.dependency_starts;
        let d = self.dependencies.len();
        let sorted = starts.windows(2).all(|w| w[0] <= w[1]);
        let (Some(&last), true) = (
            starts.last(),
            sorted && starts.iter().all(|&s| s as usize <= d),
        ) else {
            return (Vec::new(), &self.dependencies);
        };
        let layers = starts
            .windows(2)
            .map(|w| &self.dependencies[w[0] as usize..w[1] as usize])
            .collect();
        (layers, &self.dependencies[last as usize..])
    }

    /// Each layer's modules (MP2): list entries `[start, end)`. Ranges that are reversed, run
    /// past the list or together list more entries than it has give empty layers (no
    /// quadratic blow-up from a small file).
    pub fn modules_per_layer(&self) -> Vec<&[String]> {
        let m = self.modules.len();
        let pairs = self.module_ranges.chunks_exact(2);
        let ok = pairs.clone().all(|p| p[0] <= p[1] && p[1] as usize <= m)
            && pairs.clone().map(|p| (p[1] - p[0]) as usize).sum::<usize>() <= m;
        pairs
            .map(|p| match ok {
                true => &self.modules[p[0] as usize..p[1] as usize],
                false => &[],
            })
            .collect()
    }

    /// A point from area-local to world space.
    pub fn to_world(&self, p: [f32; 3]) -> [f32; 3] {
        self.transform
            .map(|row| row[0] * p[0] + row[1] * p[1] + row[2] * p[2] + row[3])
    }

    /// World-space bounds: the transformed box's 8 corners.
    pub fn world_aabb(&self) -> ([f32; 3], [f32; 3]) {
        let (lo, hi) = (self.aabb_min, self.aabb_max);
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        for c in 0..8 {
            let corner = [0, 1, 2].map(|k| if c >> k & 1 == 0 { lo[k] } else { hi[k] });
            let w = self.to_world(corner);
            for k in 0..3 {
                min[k] = min[k].min(w[k]);
                max[k] = max[k].max(w[k]);
            }
        }
        (min, max)
    }
}

/// Reads a 32-bit (MP1/MP2) or 64-bit (MP3) ID; a 32-bit all-ones becomes [`NO_ID`].
fn id(r: &mut Reader, field: &str, wide: bool) -> Result<u64> {
    if wide {
        r.u64(field)
    } else {
        Ok(match r.u32(field)? {
            u32::MAX => NO_ID,
            v => v.into(),
        })
    }
}

impl Mlvl {
    pub fn parse(data: &[u8], file: &str) -> Result<Mlvl> {
        let mut r = Reader::new(data, file);
        r.expect_u32("magic", MAGIC)?;
        let at = r.pos();
        let version = r.u32("version")?;
        let game = match version {
            0x11 => Game::Mp1,
            0x17 => Game::Mp2,
            0x19 => Game::Mp3,
            v => {
                return Err(r.err_at(
                    "version",
                    at,
                    ErrorKind::OutOfRange {
                        value: v.into(),
                        expected: "0x11 (MP1), 0x17 (MP2) or 0x19 (MP3)".into(),
                    },
                ));
            }
        };
        let wide = game == Game::Mp3;
        let mut warnings = Vec::new();
        let world_name_id = id(&mut r, "world_name_id", wide)?;
        let (dark_world_name_id, temple_key_world_index) = match game {
            Game::Mp1 => (None, None),
            Game::Mp2 => (
                Some(id(&mut r, "dark_world_name_id", false)?),
                Some(r.u32("temple_key_world_index")?),
            ),
            Game::Mp3 => (None, Some(r.u32("unknown_after_world_name")?)),
        };
        let savw_id = id(&mut r, "savw_id", wide)?;
        let skybox_id = id(&mut r, "skybox_id", wide)?;
        let mut memory_relays = Vec::new();
        if game == Game::Mp1 {
            let n = r.count("memory_relay_count", 11)?;
            memory_relays.reserve(n);
            for _ in 0..n {
                memory_relays.push(MemoryRelay {
                    relay_id: r.u32("memory_relay.relay_id")?,
                    target_id: r.u32("memory_relay.target_id")?,
                    message: r.u16("memory_relay.message")?,
                    active: r.u8("memory_relay.active")?,
                });
            }
        }
        let area_count = r.count("area_count", 0x54)?;
        let mut area_count_extra = None;
        if game == Game::Mp1 {
            let unknown = r.u32("unknown_after_area_count")?;
            if unknown != 1 {
                warnings.push(format!("the u32 after the area count is {unknown}, not 1"));
            }
            area_count_extra = Some(unknown);
        }
        let mut areas = Vec::with_capacity(area_count);
        for i in 0..area_count {
            areas.push(parse_area(&mut r, game, i, &mut warnings)?);
        }
        let mapw_id = id(&mut r, "mapw_id", wide)?;
        r.u8("script_layer.unknown")?;
        // [RDS] reads an empty embedded script layer here; a non-zero size is skipped (the MP1
        // demo keeps docks there, which this reader does not decode).
        let script = r.u32("script_layer.size")?;
        if script != 0 {
            warnings.push(format!("embedded script layer of {script} bytes skipped"));
            r.skip("script_layer", script as usize)?;
        }
        let mut audio_groups = Vec::new();
        if game == Game::Mp1 {
            let n = r.count("audio_group_count", 8)?;
            for _ in 0..n {
                audio_groups.push((
                    r.u32("audio_group.id")?,
                    id(&mut r, "audio_group.agsc_id", false)?,
                ));
            }
            let s = r.cstring("unknown_string")?;
            if !s.is_empty() {
                warnings.push(format!(
                    "the string after the audio groups is {s:?}, not empty"
                ));
            }
        }
        let n = r.count("layer_flags.area_count", 12)?;
        check_area_count(&mut warnings, "layer flag", n, area_count);
        let mut flags = Vec::with_capacity(n);
        for _ in 0..n {
            flags.push((r.u32("layer_flags.count")?, r.u64("layer_flags.bits")?));
        }
        let n = r.count("layer_name_count", 1)?;
        let layer_names = (0..n)
            .map(|_| r.cstring("layer_name"))
            .collect::<Result<Vec<_>>>()?;
        let mut layer_guids = Vec::new();
        if wide {
            let n = r.count("layer_guid_count", 16)?;
            layer_guids = (0..n)
                .map(|_| r.array::<16>("layer_guid"))
                .collect::<Result<_>>()?;
        }
        let n = r.count("layer_name_starts.area_count", 4)?;
        check_area_count(&mut warnings, "layer-name start", n, area_count);
        let layer_name_starts = r.u32_vec("layer_name_start", n)?;
        if r.rest().iter().any(|&b| b != 0xFF) || !r.len().is_multiple_of(32) {
            warnings.push(format!(
                "the {} bytes after the layer tables are not 0xFF padding to 32",
                r.remaining()
            ));
        }
        assign_layers(
            &mut areas,
            &flags,
            &layer_names,
            &layer_name_starts,
            &mut warnings,
        );
        Ok(Mlvl {
            game,
            version,
            world_name_id,
            dark_world_name_id,
            temple_key_world_index,
            savw_id,
            skybox_id,
            memory_relays,
            area_count_extra,
            areas,
            mapw_id,
            audio_groups,
            layer_names,
            layer_name_starts,
            layer_guids,
            warnings,
        })
    }

    /// Whether IDs are 64-bit (MP3).
    pub fn wide_ids(&self) -> bool {
        self.game == Game::Mp3
    }
}

fn check_area_count(warnings: &mut Vec<String>, what: &str, n: usize, areas: usize) {
    if n != areas {
        warnings.push(format!("{n} {what} entries for {areas} areas"));
    }
}

fn parse_area(r: &mut Reader, game: Game, i: usize, warnings: &mut Vec<String>) -> Result<Area> {
    let wide = game == Game::Mp3;
    let name_id = id(r, "area.name_id", wide)?;
    let mut transform = [[0.0; 4]; 3];
    for row in &mut transform {
        for v in row.iter_mut() {
            *v = r.f32("area.transform")?;
        }
    }
    let aabb_min = r.vec3("area.aabb")?;
    let aabb_max = r.vec3("area.aabb")?;
    let mrea_id = id(r, "area.mrea_id", wide)?;
    let internal_id = if wide {
        r.u64("area.internal_id")?
    } else {
        r.u32("area.internal_id")?.into()
    };
    let n = r.count("area.attached_count", 2)?;
    let attached_areas = (0..n)
        .map(|_| r.u16("area.attached_area"))
        .collect::<Result<Vec<_>>>()?;
    let (mut lazy_u32, mut dependencies, mut dependency_starts) = (0, Vec::new(), Vec::new());
    if !wide {
        lazy_u32 = r.u32("area.lazy_dependency_count")?;
        if lazy_u32 != 0 {
            warnings.push(format!(
                "area {i}: lazy dependency u32 is {lazy_u32}, not 0"
            ));
        }
        let n = r.count("area.dependency_count", 8)?;
        dependencies.reserve(n);
        for _ in 0..n {
            dependencies.push(Dependency {
                id: id(r, "area.dependency.id", false)?,
                fourcc: FourCc(r.fourcc("area.dependency.type")?),
            });
        }
        let n = r.count("area.dependency_start_count", 4)?;
        dependency_starts = r.u32_vec("area.dependency_start", n)?;
        let sorted = dependency_starts.windows(2).all(|w| w[0] <= w[1]);
        if !sorted
            || dependency_starts
                .iter()
                .any(|&s| s as usize > dependencies.len())
        {
            warnings.push(format!(
                "area {i}: dependency starts {dependency_starts:?} are not non-decreasing within {} entries",
                dependencies.len()
            ));
        }
    }
    let n = r.count("area.dock_count", 8)?;
    let mut docks = Vec::with_capacity(n);
    for d in 0..n {
        let c = r.count("area.dock.connection_count", 8)?;
        let connecting = (0..c)
            .map(|_| {
                Ok((
                    r.u32("area.dock.area_index")?,
                    r.u32("area.dock.dock_index")?,
                ))
            })
            .collect::<Result<Vec<_>>>()?;
        let m = r.count("area.dock.coordinate_count", 12)?;
        if m != 4 {
            warnings.push(format!("area {i} dock {d}: {m} coordinates, not 4"));
        }
        let coordinates = (0..m)
            .map(|_| r.vec3("area.dock.coordinate"))
            .collect::<Result<Vec<_>>>()?;
        docks.push(Dock {
            connecting,
            coordinates,
        });
    }
    let (mut modules, mut module_ranges) = (Vec::new(), Vec::new());
    if game == Game::Mp2 {
        let n = r.count("area.module_count", 1)?;
        modules = (0..n)
            .map(|_| r.cstring("area.module"))
            .collect::<Result<_>>()?;
        let n = r.count("area.module_range_count", 4)?;
        module_ranges = r.u32_vec("area.module_range", n)?;
    }
    let internal_name = match game {
        Game::Mp1 => None,
        _ => Some(r.cstring("area.internal_name")?),
    };
    Ok(Area {
        name_id,
        transform,
        aabb_min,
        aabb_max,
        mrea_id,
        internal_id,
        attached_areas,
        lazy_u32,
        dependencies,
        dependency_starts,
        docks,
        modules,
        module_ranges,
        internal_name,
        layer_count: 0,
        layer_bits: 0,
        layers: Vec::new(),
    })
}

/// Gives each area its layer count, bits and named layers (§12.5), warning where the tables
/// disagree; also checks area indices in attached areas and docks.
fn assign_layers(
    areas: &mut [Area],
    flags: &[(u32, u64)],
    names: &[String],
    starts: &[u32],
    warnings: &mut Vec<String>,
) {
    let a = areas.len();
    // Bad starts would let areas share names over and over: then no area gets names.
    let starts_ok = starts.windows(2).all(|w| w[0] <= w[1])
        && starts.iter().all(|&s| s as usize <= names.len());
    if !starts_ok {
        warnings.push(format!(
            "layer-name starts {starts:?} are not non-decreasing within {} names; layers left unnamed",
            names.len()
        ));
    }
    for (i, area) in areas.iter_mut().enumerate() {
        let bad_attached = area.attached_areas.iter().any(|&x| usize::from(x) >= a);
        let bad_dock = area
            .docks
            .iter()
            .flat_map(|d| &d.connecting)
            .any(|&(x, _)| x as usize >= a);
        if bad_attached || bad_dock {
            warnings.push(format!(
                "area {i}: an attached or docked area index is ≥ {a}"
            ));
        }
        let Some(&(count, bits)) = flags.get(i) else {
            continue;
        };
        (area.layer_count, area.layer_bits) = (count, bits);
        if !starts_ok {
            continue;
        }
        let from = starts
            .get(i)
            .map_or(names.len(), |&s| s as usize)
            .min(names.len());
        let to = starts
            .get(i + 1)
            .map_or(names.len(), |&s| s as usize)
            .clamp(from, names.len());
        let own = &names[from..to];
        if own.len() != count as usize {
            warnings.push(format!(
                "area {i}: {} layer names for {count} layers",
                own.len()
            ));
        }
        area.layers = own
            .iter()
            .enumerate()
            .map(|(k, name)| Layer {
                name: name.clone(),
                active: k < 64 && bits >> k & 1 == 1,
            })
            .collect();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::formats::Writer;

    #[test]
    fn unknown_versions_are_refused_with_the_offset() {
        let mut b = MAGIC.to_be_bytes().to_vec();
        b.extend([0, 0, 0, 0x1B]);
        let e = Mlvl::parse(&b, "w.MLVL").unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("version", 4));
        assert!(e.to_string().contains("0x11 (MP1)"), "{e}");
    }

    /// A one-area MP3 world (no fixture exists for 0x19): 64-bit IDs, no dependency lists,
    /// layer GUIDs; one dock with `corners` coordinates.
    fn mp3_world(corners: u32) -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(MAGIC);
        w.u32(0x19);
        w.u64(0x1111_2222_3333_4444); // world name
        w.u32(0);
        w.u64(0x55);
        w.u64(u64::MAX); // no skybox
        w.u32(1);
        w.u64(0xAAAA_0000_0000_0001); // area name
        for row in [
            [1.0, 0.0, 0.0, 10.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, 1.0, 0.0],
        ] {
            row.into_iter().for_each(|v| w.f32(v));
        }
        w.vec3([0.0; 3]);
        w.vec3([2.0, 3.0, 4.0]);
        w.u64(0xBBBB_0000_0000_0001); // MREA
        w.u64(0xCCCC_0000_0000_0001); // internal ID
        w.u32(0); // attached
        w.u32(1); // one dock, no connections
        w.u32(0);
        w.u32(corners);
        (0..corners).for_each(|_| w.vec3([1.0, 0.0, 0.0]));
        w.cstring("01_room");
        w.u64(0x66); // MAPW
        w.u8(0);
        w.u32(0);
        w.u32(1);
        w.u32(2);
        w.u64(0b01);
        w.u32(2);
        w.cstring("Default");
        w.cstring("Off");
        w.u32(1);
        w.bytes(&[7; 16]);
        w.u32(1);
        w.u32(0);
        w.pad_to(32, 0xFF);
        w.into_inner()
    }

    #[test]
    fn mp3_worlds_have_wide_ids_guids_and_no_dependencies() {
        let m = Mlvl::parse(&mp3_world(4), "w.MLVL").unwrap();
        assert_eq!(m.game, Game::Mp3);
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        assert_eq!(m.world_name_id, 0x1111_2222_3333_4444);
        assert_eq!(m.skybox_id, NO_ID);
        assert_eq!(m.layer_guids, [[7; 16]]);
        let a = &m.areas[0];
        assert_eq!(
            (a.name_id, a.mrea_id, a.internal_id),
            (
                0xAAAA_0000_0000_0001,
                0xBBBB_0000_0000_0001,
                0xCCCC_0000_0000_0001
            )
        );
        assert_eq!(a.internal_name.as_deref(), Some("01_room"));
        assert!(a.dependencies.is_empty() && a.modules.is_empty());
        let names: Vec<(&str, bool)> = a.layers.iter().map(|l| (&*l.name, l.active)).collect();
        assert_eq!(names, [("Default", true), ("Off", false)]);
        assert_eq!(a.world_aabb(), ([10.0, 0.0, 0.0], [12.0, 3.0, 4.0]));
        assert_eq!(a.to_world(a.docks[0].coordinates[0]), [11.0, 0.0, 0.0]);
    }

    #[test]
    fn overlapping_layer_ranges_do_not_repeat_entries() {
        let dep = Dependency {
            id: 1,
            fourcc: FourCc(*b"TXTR"),
        };
        let mut a = Area {
            dependencies: vec![dep; 3],
            dependency_starts: vec![0, 1, 1],
            modules: vec!["a.rel".into(), "b.rel".into()],
            module_ranges: vec![0, 1, 1, 2],
            ..Area::default()
        };
        let (layers, tail) = a.dependency_layers();
        assert_eq!(
            (layers.iter().map(|l| l.len()).collect(), tail.len()),
            (vec![1, 0], 2)
        );
        assert_eq!(a.modules_per_layer(), [&a.modules[..1], &a.modules[1..]]);
        a.dependency_starts = vec![0, 3, 0, 3];
        a.module_ranges = vec![0, 2, 0, 2];
        let (layers, tail) = a.dependency_layers();
        assert!(layers.is_empty() && tail.len() == 3);
        assert!(a.modules_per_layer().iter().all(|m| m.is_empty()));
    }

    #[test]
    fn odd_values_warn_and_truncations_fail() {
        let m = Mlvl::parse(&mp3_world(3), "w.MLVL").unwrap();
        assert!(
            m.warnings.iter().any(|w| w.contains("3 coordinates")),
            "{:?}",
            m.warnings
        );
        let data = mp3_world(4);
        let rejected = crate::testing::torture(&data, 500, |d| Mlvl::parse(d, "w.MLVL"));
        let body = data.len() - data.iter().rev().take_while(|&&b| b == 0xFF).count();
        assert!(rejected >= body);
    }
}
