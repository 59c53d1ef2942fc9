//! MREA (areas): header, data-section table, compressed blocks (MP2/MP3), the lights
//! section and (MP1/MP2) the world geometry (`formats.md` §9; geometry in [`geometry`]).
//!
//! Every section is kept, so [`Mrea::to_bytes`] writes a parsed area back byte for byte:
//! the geometry from its typed fields, the sections tevscope does not interpret (scripts,
//! collision, visibility, …) verbatim, and compressed blocks as stored unless something in
//! them changed. Each light record is kept field by field, unknowns included, so
//! [`write_lights_section`] reproduces the section bytes. Light records convert to
//! [`gx::lights::PrimeLight`](crate::gx::lights::PrimeLight) for the GX values.
//!
//! MP2 blocks are segmented LZO (§9.2); no other block codec is known for these versions.

use serde::Serialize;

use super::Game;
use super::cmdl::CmdlOptions;
use super::compression::{decompress_lzo_segments, lzo_segments};
use super::error::{ErrorKind, FormatError, Result};
use super::reader::{Reader, Writer};
use crate::gx::lights::{Falloff, PrimeLight, PrimeLightType};

pub mod geometry;
pub mod mp3;
mod mp3_sections;

pub use geometry::{WorldGeometry, WorldModel, WorldModelHeader};
pub use mp3::{Dependencies, Dependency, Mp3Geometry, Mp3ModelSections};

pub const MREA_MAGIC: u32 = 0xDEAD_BEEF;
pub const LIGHTS_MAGIC: u32 = 0xBABE_DEAD;
pub const VERSION_MP1: u32 = 0xF;
pub const VERSION_MP2: u32 = 0x19;
pub const VERSION_MP3: u32 = 0x1E;
/// Light record sizes: MP1/MP2 and MP3.
pub const LIGHT_RECORD_SIZE_MP1: usize = 0x41;
pub const LIGHT_RECORD_SIZE_MP3: usize = 0x65;
/// Cap on a block's declared uncompressed size before allocating.
const MAX_BLOCK_SIZE: u64 = 256 << 20;

/// Section-index names per game, in header order: the names of `mp1_lights_minimal.MREA.json`
/// and the short ones of the area fixtures' `header.section_index`.
const MP1_SECTIONS: [(&str, &str); 8] = [
    ("geometry_section", "geometry"),
    ("script_layers_section", "script_layers"),
    ("collision_section", "collision"),
    ("unknown_section_1", "unknown"),
    ("lights_section", "lights"),
    ("visibility_tree_section", "visibility"),
    ("path_section", "path"),
    ("area_octree_section", "area_octree"),
];
const MP2_SECTIONS: [(&str, &str); 11] = [
    ("geometry_section", "geometry"),
    ("script_layers_section", "script_layers"),
    ("generated_objects_section", "generated_objects"),
    ("collision_section", "collision"),
    ("unknown_section_1", "unknown_1"),
    ("lights_section", "lights"),
    ("visibility_tree_section", "visibility"),
    ("path_section", "path"),
    ("unknown_section_2", "unknown_2"),
    ("portal_area_section", "portal_area"),
    ("static_geometry_map_section", "static_geometry_map"),
];

/// One compressed-block header (MP2/MP3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct BlockHeader {
    pub buffer_size: u32,
    pub uncompressed_size: u32,
    /// 0 = stored uncompressed.
    pub compressed_size: u32,
    pub section_count: u32,
    /// Absolute file offset of the block's data (after its leading padding).
    pub data_offset: u64,
    /// Index of the block's first data section.
    pub first_section: u32,
}

/// A named section index from the header (for MP3 the FourCC of the section-ID list).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NamedSection {
    pub name: String,
    /// The area fixtures' name (`lights`, `unknown_1`, …); the FourCC for MP3.
    pub short_name: String,
    pub index: u32,
}

/// One light record; MP3-only fields are None/empty for MP1/MP2.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LightRecord {
    pub light_type: u32,
    /// RGB (MP1/MP2) or RGBA (MP3); alpha is 1 for MP1/MP2.
    pub color: [f32; 4],
    pub position: [f32; 3],
    pub direction: [f32; 3],
    /// MP3 only: the light's up vector.
    pub codirection: Option<[f32; 3]>,
    pub brightness: f32,
    pub spot_cutoff: f32,
    pub unknown_float_1: f32,
    pub cast_shadows_u8: u8,
    pub unknown_float_2: f32,
    pub falloff_type: u32,
    pub unknown_float_3: f32,
    /// MP3 only: four more unknown floats (0x51–0x5D) and an unknown u32 (0x61).
    pub mp3_unknown_floats: Option<[f32; 4]>,
    pub mp3_unknown_u32: Option<u32>,
}

impl LightRecord {
    pub fn kind(&self) -> PrimeLightType {
        PrimeLightType::from_word(self.light_type)
    }

    /// The fields the engine uses, for `gx::lights`.
    pub fn to_prime_light(&self) -> PrimeLight {
        PrimeLight {
            light_type: self.light_type,
            color: self.color,
            position: self.position,
            direction: self.direction,
            brightness: self.brightness,
            spot_cutoff: self.spot_cutoff,
            falloff: self.falloff_type,
        }
    }
}

/// The lights section.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LightsSection {
    /// Absolute file offset (uncompressed MP1 files); None when it came from a block.
    pub offset: Option<u64>,
    pub magic: u32,
    pub layers: Vec<Vec<LightRecord>>,
    pub light_record_size: usize,
}

/// A parsed area: layout, lights, world geometry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mrea {
    pub game: Game,
    pub magic: u32,
    pub version: u32,
    /// 3 rows × 4, row-major.
    pub area_transform: [f32; 12],
    pub world_model_count: u32,
    /// MP2/MP3.
    pub script_layer_count: Option<u32>,
    pub data_section_count: u32,
    pub section_index: Vec<NamedSection>,
    pub data_section_sizes: Vec<u32>,
    /// Absolute file offsets (MP1); for MP2/MP3 offsets inside the concatenated
    /// decompressed blocks.
    pub data_section_offsets: Vec<u64>,
    /// MP1: where the first section starts. MP2/MP3: where the first block starts.
    pub header_size: u64,
    pub compressed_blocks: Vec<BlockHeader>,
    pub lights_section: Option<LightsSection>,
    /// World geometry (MP1/MP2).
    pub geometry: Option<WorldGeometry>,
    /// MP3 world geometry: the WOBJ and GPUD runs (§13.8).
    pub mp3_geometry: Option<Mp3Geometry>,
    /// MP3 `DEPS`: the room's assets per layer, when it parses.
    pub dependencies: Option<Dependencies>,
    /// [MP2] The section named by header word 0x64 (§9.5.7), when it parses.
    pub unknown_section_2: Option<UnknownSection2>,
    /// Non-fatal findings (unknown falloff, non-finite floats, missing lights section).
    pub warnings: Vec<String>,
    /// What the writer needs beyond the typed fields.
    #[serde(skip)]
    pub(crate) raw: RawParts,
}

/// [MP2] "Unknown 2" section: u32 n + n × u32, u32 m + m × u8 (0xFF on, 0x00 off) [RDS].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnknownSection2 {
    pub index: u32,
    pub u32_array: Vec<u32>,
    pub u8_array: Vec<u8>,
}

/// Bytes kept verbatim for the writer: every section (decompressed), the padding regions of
/// the header in file order, each block as stored (leading padding + payload) and what
/// follows the last section or block.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct RawParts {
    pub sections: Vec<Vec<u8>>,
    pub header_pads: Vec<Vec<u8>>,
    pub blocks: Vec<Vec<u8>>,
    pub trailing: Vec<u8>,
    /// Sections the geometry run had when parsed.
    pub geometry_sections: usize,
    /// MP3: the WOBJ and GPUD runs as parsed (first section, section count each).
    pub mp3_runs: [(usize, usize); 2],
    /// MP3: file offset of the (FourCC, index) table, for errors about its entries.
    pub section_ids_offset: u64,
}

impl Mrea {
    /// The section index named `name` (e.g. `lights_section`), or for MP3 a FourCC.
    pub fn section_index(&self, name: &str) -> Option<u32> {
        self.section_index
            .iter()
            .find(|s| s.name == name)
            .map(|s| s.index)
    }

    /// MP3: the file offset of the (FourCC, section index) table.
    pub fn section_ids_offset(&self) -> u64 {
        self.raw.section_ids_offset
    }

    /// Light layers as `gx` lights.
    pub fn light_layers(&self) -> Vec<Vec<PrimeLight>> {
        self.lights_section
            .iter()
            .flat_map(|s| &s.layers)
            .map(|l| l.iter().map(LightRecord::to_prime_light).collect())
            .collect()
    }
}

fn read_record(r: &mut Reader, mp3: bool) -> Result<LightRecord> {
    let light_type = r.u32("light.type")?;
    let color = if mp3 {
        r.quat("light.color")?
    } else {
        let c = r.vec3("light.color")?;
        [c[0], c[1], c[2], 1.0]
    };
    let position = r.vec3("light.position")?;
    let direction = r.vec3("light.direction")?;
    let codirection = if mp3 {
        Some(r.vec3("light.codirection")?)
    } else {
        None
    };
    let brightness = r.f32("light.brightness")?;
    let spot_cutoff = r.f32("light.spot_cutoff")?;
    let unknown_float_1 = r.f32("light.unknown_float_1")?;
    let cast_shadows_u8 = r.u8("light.cast_shadows")?;
    let unknown_float_2 = r.f32("light.unknown_float_2")?;
    let falloff_type = r.u32("light.falloff_type")?;
    let unknown_float_3 = r.f32("light.unknown_float_3")?;
    let (mp3_unknown_floats, mp3_unknown_u32) = if mp3 {
        let f = [
            r.f32("light.unknown_0x51")?,
            r.f32("light.unknown_0x55")?,
            r.f32("light.unknown_0x59")?,
            r.f32("light.unknown_0x5d")?,
        ];
        (Some(f), Some(r.u32("light.unknown_0x61")?))
    } else {
        (None, None)
    };
    Ok(LightRecord {
        light_type,
        color,
        position,
        direction,
        codirection,
        brightness,
        spot_cutoff,
        unknown_float_1,
        cast_shadows_u8,
        unknown_float_2,
        falloff_type,
        unknown_float_3,
        mp3_unknown_floats,
        mp3_unknown_u32,
    })
}

/// Parses a lights section (`formats.md` §9.4); `layer_count` is 2 (MP1/MP2) or 4 (MP3).
pub fn parse_lights_section(
    r: &mut Reader,
    game: Game,
    warnings: &mut Vec<String>,
) -> Result<LightsSection> {
    let mp3 = game == Game::Mp3;
    let record_size = if mp3 {
        LIGHT_RECORD_SIZE_MP3
    } else {
        LIGHT_RECORD_SIZE_MP1
    };
    let layer_count = if mp3 { 4 } else { 2 };
    let offset = r.abs_pos();
    r.expect_u32("lights.magic", LIGHTS_MAGIC)?;
    let mut layers = Vec::with_capacity(layer_count);
    for layer in 0..layer_count {
        let n = r.count("lights.layer.count", record_size)?;
        let mut lights = Vec::with_capacity(n);
        for i in 0..n {
            let at = r.abs_pos();
            let rec = read_record(r, mp3)?;
            if !Falloff::is_known(rec.falloff_type) {
                warnings.push(format!(
                    "light layer {layer} light {i} at {at:#x}: falloff type {} unknown, treated as constant",
                    rec.falloff_type
                ));
            }
            let used = rec
                .color
                .iter()
                .chain(&rec.position)
                .chain(&rec.direction)
                .chain([&rec.brightness, &rec.spot_cutoff]);
            if used.into_iter().any(|x| !x.is_finite()) {
                warnings.push(format!(
                    "light layer {layer} light {i} at {at:#x}: non-finite value"
                ));
            }
            lights.push(rec);
        }
        layers.push(lights);
    }
    Ok(LightsSection {
        offset: Some(offset),
        magic: LIGHTS_MAGIC,
        layers,
        light_record_size: record_size,
    })
}

/// Writes a lights section (without trailing padding), the mirror of
/// [`parse_lights_section`].
pub fn write_lights_section(section: &LightsSection, w: &mut Writer) {
    w.u32(section.magic);
    for layer in &section.layers {
        w.u32(layer.len() as u32);
        for l in layer {
            w.u32(l.light_type);
            if l.codirection.is_some() {
                w.quat(l.color);
            } else {
                w.vec3([l.color[0], l.color[1], l.color[2]]);
            }
            w.vec3(l.position);
            w.vec3(l.direction);
            if let Some(c) = l.codirection {
                w.vec3(c);
            }
            w.f32(l.brightness);
            w.f32(l.spot_cutoff);
            w.f32(l.unknown_float_1);
            w.u8(l.cast_shadows_u8);
            w.f32(l.unknown_float_2);
            w.u32(l.falloff_type);
            w.f32(l.unknown_float_3);
            if let Some(f) = l.mp3_unknown_floats {
                f.into_iter().for_each(|x| w.f32(x));
            }
            if let Some(u) = l.mp3_unknown_u32 {
                w.u32(u);
            }
        }
    }
}

/// Reads the bytes up to the next multiple of 32 (they are kept for the writer).
fn read_pad(r: &mut Reader, field: &str, pads: &mut Vec<Vec<u8>>) -> Result<()> {
    let n = r.pos().next_multiple_of(32) - r.pos();
    pads.push(r.bytes(field, n)?.to_vec());
    Ok(())
}

fn read_sizes(r: &mut Reader, count: usize, pads: &mut Vec<Vec<u8>>) -> Result<Vec<u32>> {
    let sizes = r.u32_vec("data_section_sizes", count)?;
    read_pad(r, "data_section_sizes.padding", pads)?;
    Ok(sizes)
}

fn game_of(version: u32, r: &Reader) -> Result<Game> {
    match version {
        VERSION_MP1 => Ok(Game::Mp1),
        VERSION_MP2 => Ok(Game::Mp2),
        VERSION_MP3 => Ok(Game::Mp3),
        v => Err(r.err_at(
            "version",
            4,
            ErrorKind::OutOfRange {
                value: v.into(),
                expected:
                    "0xF (MP1), 0x19 (MP2) or 0x1E (MP3); demo versions 0xC/0x15 are not supported"
                        .into(),
            },
        )),
    }
}

/// What [`parse_mrea_with`] reads beyond the layout and the lights.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MreaOptions {
    /// Read the world geometry (MP1/MP2). Off for callers that only want the lights, so a
    /// room whose geometry tevscope cannot read still lends its lights.
    pub geometry: bool,
    /// Switches for the geometry (short normal/UV scales, display-list decoding).
    pub cmdl: CmdlOptions,
}

impl Default for MreaOptions {
    fn default() -> Self {
        Self {
            geometry: true,
            cmdl: CmdlOptions::default(),
        }
    }
}

/// Parses an MREA: layout, lights and (MP1/MP2) world geometry, with default options.
pub fn parse_mrea(data: &[u8], file: &str) -> Result<Mrea> {
    parse_mrea_with(data, file, &MreaOptions::default())
}

/// Parses the layout and the lights only (no world geometry).
pub fn parse_mrea_lights(data: &[u8], file: &str) -> Result<Mrea> {
    let options = MreaOptions {
        geometry: false,
        ..MreaOptions::default()
    };
    parse_mrea_with(data, file, &options)
}

/// [`parse_mrea`] with explicit options. Without the geometry the area is for reading only
/// ([`Mrea::to_bytes`] still writes it back, from the sections as read).
pub fn parse_mrea_with(data: &[u8], file: &str, options: &MreaOptions) -> Result<Mrea> {
    let mut r = Reader::new(data, file);
    r.expect_u32("magic", MREA_MAGIC)?;
    let version = r.u32("version")?;
    let game = game_of(version, &r)?;
    let mut area_transform = [0f32; 12];
    for x in &mut area_transform {
        *x = r.f32("area_transform")?;
    }
    let world_model_count = r.u32("world_model_count")?;
    let mut warnings = Vec::new();
    let mut mrea = match game {
        Game::Mp1 => parse_mp1_layout(&mut r, version, area_transform, world_model_count)?,
        Game::Mp2 | Game::Mp3 => {
            parse_blocked_layout(&mut r, game, version, area_transform, world_model_count)?
        }
    };
    let buffers = SectionBuffers::load(data, file, &mut mrea)?;
    let section = |i: usize| buffers.reader(i);

    // Lights.
    let lights_index = match game {
        Game::Mp3 => mrea.section_index("LITE"),
        _ => mrea.section_index("lights_section"),
    };
    match lights_index {
        Some(i) if (i as usize) < mrea.data_section_sizes.len() => {
            let mut lights = parse_lights_section(&mut section(i as usize)?, game, &mut warnings)?;
            if !mrea.compressed_blocks.is_empty() {
                lights.offset = None;
            }
            mrea.lights_section = Some(lights);
        }
        Some(i) => warnings.push(format!(
            "lights section index {i} is not one of the {} data sections",
            mrea.data_section_sizes.len()
        )),
        None => warnings.push("the area names no lights section".into()),
    }

    // World geometry (§9.5.1).
    if game != Game::Mp3 && options.geometry {
        let first = mrea.section_index("geometry_section").unwrap_or(0) as usize;
        let index_at: u64 = if game == Game::Mp1 { 0x40 } else { 0x44 };
        if first != 0 {
            warnings.push(format!(
                "{file}: geometry_section at byte offset {index_at:#x}: section index {first} (0 in every known file); following it"
            ));
        }
        let count = mrea.data_section_sizes.len();
        if first >= count {
            return Err(FormatError::new(
                file,
                "geometry_section",
                index_at,
                ErrorKind::OutOfRange {
                    value: first as i64,
                    expected: format!("below the {count} data sections"),
                },
            ));
        }
        let run = geometry::GeometryRun {
            game,
            first,
            world_model_count,
            limit: count,
        };
        let geometry = WorldGeometry::parse(file, &section, run, &options.cmdl, &mut warnings)?;
        let end = first + geometry.section_count();
        // §9.5.10: the run should stop before the next indexed section.
        if let Some(s) = mrea
            .section_index
            .iter()
            .find(|s| (first + 1..end).contains(&(s.index as usize)))
        {
            warnings.push(format!(
                "{file}: {} names section {}, which lies inside the world geometry (sections {first}–{})",
                s.name,
                s.index,
                end - 1
            ));
        }
        mrea.raw.geometry_sections = geometry.section_count();
        mrea.geometry = Some(geometry);
    }
    if game == Game::Mp3 {
        parse_mp3_parts(file, &section, &mut mrea, options, &mut warnings)?;
    }
    if let Some(i) = mrea
        .section_index("unknown_section_2")
        .filter(|&i| (i as usize) < mrea.data_section_sizes.len())
    {
        let mut ur = section(i as usize)?;
        let parsed = (|| -> Result<UnknownSection2> {
            let n = ur.count("unknown_section_2.u32_count", 4)?;
            let u32_array = ur.u32_vec("unknown_section_2.u32_array", n)?;
            let m = ur.count("unknown_section_2.u8_count", 1)?;
            let u8_array = ur.bytes("unknown_section_2.u8_array", m)?.to_vec();
            Ok(UnknownSection2 {
                index: i,
                u32_array,
                u8_array,
            })
        })();
        match parsed {
            Ok(u) => mrea.unknown_section_2 = Some(u),
            Err(e) => warnings.push(format!("{e} (section kept verbatim)")),
        }
    }
    mrea.raw.sections = (0..mrea.data_section_sizes.len())
        .map(|i| section(i).map(|r| r.data().to_vec()))
        .collect::<Result<_>>()?;
    mrea.warnings.extend(warnings);
    Ok(mrea)
}

/// MP3: the section a FourCC names (its first listing; WOBJ may be listed more than once),
/// or an error naming the table entry when the index is past the sections.
fn mp3_section(file: &str, mrea: &Mrea, fourcc: &str) -> Result<Option<usize>> {
    let Some(j) = mrea.section_index.iter().position(|s| s.name == fourcc) else {
        return Ok(None);
    };
    let index = mrea.section_index[j].index;
    let count = mrea.data_section_sizes.len();
    if index as usize >= count {
        return Err(FormatError::new(
            file,
            format!("section_id[{j}] ({fourcc}).index"),
            mrea.raw.section_ids_offset + 8 * j as u64 + 4,
            ErrorKind::OutOfRange {
                value: index.into(),
                expected: format!("below the {count} data sections"),
            },
        ));
    }
    Ok(Some(index as usize))
}

/// MP3 world geometry (WOBJ/GPUD) and dependencies (DEPS), §13.8.
fn parse_mp3_parts(
    file: &str,
    section: &geometry::SectionFn,
    mrea: &mut Mrea,
    options: &MreaOptions,
    warnings: &mut Vec<String>,
) -> Result<()> {
    if let Some(i) = mp3_section(file, mrea, "DEPS")? {
        let parsed = Dependencies::parse(&mut section(i)?, i as u32, warnings);
        mrea.dependencies = geometry::tolerant(parsed, warnings);
    }
    if !options.geometry {
        return Ok(());
    }
    let (wobj, gpud) = (
        mp3_section(file, mrea, "WOBJ")?,
        mp3_section(file, mrea, "GPUD")?,
    );
    let (Some(wobj), Some(gpud)) = (wobj, gpud) else {
        if mrea.world_model_count > 0 {
            warnings.push(format!(
                "{file}: {} world models, but the section-ID table names no {}; no world geometry",
                mrea.world_model_count,
                if wobj.is_none() { "WOBJ" } else { "GPUD" }
            ));
        }
        return Ok(());
    };
    let runs = mp3::Mp3Runs {
        wobj,
        gpud,
        world_model_count: mrea.world_model_count,
        limit: mrea.data_section_sizes.len(),
    };
    let g = Mp3Geometry::parse(file, section, runs, &options.cmdl, warnings)?;
    mrea.raw.mp3_runs = [
        (wobj, g.wobj_sections().len()),
        (gpud, g.gpud_sections().len()),
    ];
    mrea.mp3_geometry = Some(g);
    Ok(())
}

fn parse_mp1_layout(
    r: &mut Reader,
    version: u32,
    area_transform: [f32; 12],
    world_model_count: u32,
) -> Result<Mrea> {
    let count = r.u32("data_section_count")?;
    let mut section_index = Vec::new();
    for (name, short) in MP1_SECTIONS {
        section_index.push(NamedSection {
            name: name.into(),
            short_name: short.into(),
            index: r.u32(name)?,
        });
    }
    let mut pads = Vec::new();
    read_pad(r, "header.padding", &mut pads)?;
    let n = r.check_count("data_section_sizes", count.into(), 4)?;
    let sizes = read_sizes(r, n, &mut pads)?;
    let header_size = r.pos() as u64;
    let mut offsets = Vec::with_capacity(n);
    let mut at = header_size;
    for (i, &s) in sizes.iter().enumerate() {
        offsets.push(at);
        at += u64::from(s);
        if at > r.len() as u64 {
            return Err(r.err_at(
                &format!("data_section[{i}]"),
                offsets[i] as usize,
                ErrorKind::OffsetOutOfRange {
                    target: at,
                    size: r.len() as u64,
                },
            ));
        }
    }
    Ok(Mrea {
        game: Game::Mp1,
        magic: MREA_MAGIC,
        version,
        area_transform,
        world_model_count,
        script_layer_count: None,
        data_section_count: count,
        section_index,
        data_section_sizes: sizes,
        data_section_offsets: offsets,
        header_size,
        compressed_blocks: Vec::new(),
        lights_section: None,
        geometry: None,
        mp3_geometry: None,
        dependencies: None,
        unknown_section_2: None,
        warnings: Vec::new(),
        raw: RawParts {
            header_pads: pads,
            ..RawParts::default()
        },
    })
}

fn parse_blocked_layout(
    r: &mut Reader,
    game: Game,
    version: u32,
    area_transform: [f32; 12],
    world_model_count: u32,
) -> Result<Mrea> {
    let script_layer_count = r.u32("script_layer_count")?;
    let count = r.u32("data_section_count")?;
    let mut section_index = Vec::new();
    let (block_count, id_count) = if game == Game::Mp2 {
        for (name, short) in MP2_SECTIONS {
            section_index.push(NamedSection {
                name: name.into(),
                short_name: short.into(),
                index: r.u32(name)?,
            });
        }
        (r.u32("compressed_block_count")?, 0)
    } else {
        (r.u32("compressed_block_count")?, r.u32("section_id_count")?)
    };
    let mut pads = Vec::new();
    read_pad(r, "header.padding", &mut pads)?;
    let n = r.check_count("data_section_sizes", count.into(), 4)?;
    let sizes = read_sizes(r, n, &mut pads)?;
    let k = r.check_count("compressed_block_count", block_count.into(), 16)?;
    let mut raw_blocks = Vec::with_capacity(k);
    for _ in 0..k {
        raw_blocks.push([
            r.u32("block.buffer_size")?,
            r.u32("block.uncompressed_size")?,
            r.u32("block.compressed_size")?,
            r.u32("block.section_count")?,
        ]);
    }
    read_pad(r, "block_headers.padding", &mut pads)?;
    let section_ids_offset = r.pos() as u64;
    if game == Game::Mp3 {
        let ids = r.check_count("section_id_count", id_count.into(), 8)?;
        for _ in 0..ids {
            let name = super::fourcc_string(r.fourcc("section_id.fourcc")?);
            section_index.push(NamedSection {
                short_name: name.clone(),
                name,
                index: r.u32("section_id.index")?,
            });
        }
        read_pad(r, "section_ids.padding", &mut pads)?;
    }
    let header_size = r.pos() as u64;

    // Block placement and validation: sections per block and sizes add up.
    let mut blocks = Vec::with_capacity(k);
    let mut file_at = header_size;
    let mut first_section = 0u64;
    for (
        b,
        &[
            buffer_size,
            uncompressed_size,
            compressed_size,
            section_count,
        ],
    ) in raw_blocks.iter().enumerate()
    {
        let field = format!("block[{b}]");
        let stored = if compressed_size == 0 {
            uncompressed_size
        } else {
            compressed_size
        };
        let on_disk = u64::from(stored).next_multiple_of(32);
        let data_offset = file_at + on_disk - u64::from(stored);
        if file_at + on_disk > r.len() as u64 {
            return Err(r.err_at(
                &field,
                file_at as usize,
                ErrorKind::OffsetOutOfRange {
                    target: file_at + on_disk,
                    size: r.len() as u64,
                },
            ));
        }
        let end = first_section + u64::from(section_count);
        if end > n as u64 {
            return Err(r.err_at(
                &field,
                file_at as usize,
                ErrorKind::Invalid(format!("blocks list {end} sections, the header {n}")),
            ));
        }
        let total: u64 = sizes[first_section as usize..end as usize]
            .iter()
            .map(|&s| u64::from(s))
            .sum();
        if total != u64::from(uncompressed_size) {
            return Err(r.err_at(
                &field,
                file_at as usize,
                ErrorKind::Invalid(format!(
                    "sections add up to {total} bytes, the block declares {uncompressed_size}"
                )),
            ));
        }
        blocks.push(BlockHeader {
            buffer_size,
            uncompressed_size,
            compressed_size,
            section_count,
            data_offset,
            first_section: first_section as u32,
        });
        first_section = end;
        file_at += on_disk;
    }
    if first_section != n as u64 {
        return Err(r.err_at(
            "compressed_blocks",
            header_size as usize,
            ErrorKind::Invalid(format!(
                "blocks hold {first_section} sections, the header lists {n}"
            )),
        ));
    }
    let mut offsets = Vec::with_capacity(n);
    let mut at = 0u64;
    for &s in &sizes {
        offsets.push(at);
        at += u64::from(s);
    }
    Ok(Mrea {
        game,
        magic: MREA_MAGIC,
        version,
        area_transform,
        world_model_count,
        script_layer_count: Some(script_layer_count),
        data_section_count: count,
        section_index,
        data_section_sizes: sizes,
        data_section_offsets: offsets,
        header_size,
        compressed_blocks: blocks,
        lights_section: None,
        geometry: None,
        mp3_geometry: None,
        dependencies: None,
        unknown_section_2: None,
        warnings: Vec::new(),
        raw: RawParts {
            header_pads: pads,
            section_ids_offset,
            ..RawParts::default()
        },
    })
}

/// Where the sections' bytes are: the file (MP1, stored blocks) or decompressed blocks.
/// Readers over decompressed bytes are labelled `file [decompressed block b]` and give
/// offsets inside that block, so errors and warnings still point at real bytes.
struct SectionBuffers<'a> {
    file: &'a str,
    data: &'a [u8],
    /// Per compressed block: its label and decompressed bytes (None for stored blocks).
    blocks: Vec<Option<(String, Vec<u8>)>>,
    /// Per section: block index (None = the file) and start offset in that buffer.
    place: Vec<(Option<usize>, usize)>,
    sizes: Vec<usize>,
}

impl<'a> SectionBuffers<'a> {
    /// Decompresses every compressed block and records each block's stored bytes.
    fn load(data: &'a [u8], file: &'a str, mrea: &mut Mrea) -> Result<Self> {
        let sizes: Vec<usize> = mrea
            .data_section_sizes
            .iter()
            .map(|&s| s as usize)
            .collect();
        let mut place = Vec::with_capacity(sizes.len());
        let mut blocks = Vec::with_capacity(mrea.compressed_blocks.len());
        if mrea.compressed_blocks.is_empty() {
            place.extend(
                mrea.data_section_offsets
                    .iter()
                    .map(|&o| (None, o as usize)),
            );
            let end = mrea
                .data_section_offsets
                .last()
                .zip(sizes.last())
                .map_or(mrea.header_size as usize, |(&o, &s)| o as usize + s);
            mrea.raw.trailing = data[end..].to_vec();
        }
        let mut file_at = mrea.header_size as usize;
        for (b, block) in mrea.compressed_blocks.iter().enumerate() {
            let stored = if block.compressed_size == 0 {
                block.uncompressed_size
            } else {
                block.compressed_size
            } as usize;
            let start = block.data_offset as usize;
            let on_disk_end = file_at + stored.next_multiple_of(32);
            mrea.raw.blocks.push(data[file_at..on_disk_end].to_vec());
            file_at = on_disk_end;
            let first = block.first_section as usize;
            // A block may hold no sections (then `first` may be the section count).
            let base = mrea.data_section_offsets.get(first).copied().unwrap_or(0);
            let index = (block.compressed_size != 0).then_some(b);
            for i in first..first + block.section_count as usize {
                let within = (mrea.data_section_offsets[i] - base) as usize;
                place.push(match index {
                    Some(b) => (Some(b), within),
                    None => (None, start + within),
                });
            }
            if block.compressed_size == 0 {
                blocks.push(None);
                continue;
            }
            if u64::from(block.uncompressed_size) > MAX_BLOCK_SIZE {
                return Err(FormatError::new(
                    file,
                    "block.uncompressed_size",
                    block.data_offset,
                    ErrorKind::OutOfRange {
                        value: block.uncompressed_size.into(),
                        expected: format!("at most {MAX_BLOCK_SIZE} bytes"),
                    },
                ));
            }
            let src = &data[start..start + block.compressed_size as usize];
            let out = decompress_lzo_segments(
                src,
                block.uncompressed_size as usize,
                file,
                block.data_offset,
            )?;
            blocks.push(Some((format!("{file} [decompressed block {b}]"), out)));
        }
        if !mrea.compressed_blocks.is_empty() {
            mrea.raw.trailing = data[file_at.min(data.len())..].to_vec();
        }
        Ok(Self {
            file,
            data,
            blocks,
            place,
            sizes,
        })
    }

    /// A reader spanning exactly section `i`.
    fn reader(&self, i: usize) -> Result<Reader<'_>> {
        let field = format!("data_section[{i}]");
        let (Some(&(block, start)), Some(&len)) = (self.place.get(i), self.sizes.get(i)) else {
            return Err(FormatError::new(
                self.file,
                field,
                0,
                ErrorKind::Invalid(format!("section {i} does not exist")),
            ));
        };
        match block.and_then(|b| self.blocks[b].as_ref()) {
            Some((label, bytes)) => Reader::new(bytes, label).slice(&field, start, len),
            None => Reader::new(self.data, self.file).slice(&field, start, len),
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Writing a parsed area back

/// The stored padding when it still has the length the layout needs, else zeros.
fn pad_like(stored: Option<&Vec<u8>>, at: usize) -> Vec<u8> {
    let need = at.next_multiple_of(32) - at;
    match stored {
        Some(p) if p.len() == need => p.clone(),
        _ => vec![0; need],
    }
}

impl Mrea {
    /// Every data section as the writer stores it: the world geometry from its typed
    /// fields, the other sections as read.
    pub fn section_bytes(&self) -> Vec<Vec<u8>> {
        let mut sections = self.raw.sections.clone();
        // Before the runs are spliced: DEPS's index counts the sections as read.
        if let Some(d) = &self.dependencies
            && let Some(s) = sections.get_mut(d.index as usize)
        {
            *s = d.to_bytes();
        }
        if let Some(g) = &self.geometry {
            let first = g.first_section.min(sections.len());
            let end = (first + self.raw.geometry_sections).min(sections.len());
            sections.splice(first..end, g.section_bytes());
        }
        if let Some(g) = &self.mp3_geometry {
            let mut runs = [
                (self.raw.mp3_runs[0], g.wobj_sections()),
                (self.raw.mp3_runs[1], g.gpud_sections()),
            ];
            // The later run first, so the earlier one's indices still hold.
            runs.sort_by_key(|((first, _), _)| std::cmp::Reverse(*first));
            for ((first, len), bytes) in runs {
                let first = first.min(sections.len());
                let end = (first + len).min(sections.len());
                sections.splice(first..end, bytes);
            }
        }
        sections
    }

    /// The runs of data sections the parsed world geometry writes, in file order: (first
    /// section as read, sections as read, sections now). Adding or removing surfaces or
    /// world models changes the counts; MP1/MP2 have one run, MP3 two (WOBJ, GPUD).
    fn geometry_runs(&self) -> Vec<(usize, usize, usize)> {
        let mut runs = Vec::new();
        if let Some(g) = &self.geometry {
            runs.push((
                g.first_section,
                self.raw.geometry_sections,
                g.section_count(),
            ));
        }
        if let Some(g) = &self.mp3_geometry {
            let [(wobj, wobj_len), (gpud, gpud_len)] = self.raw.mp3_runs;
            runs.push((wobj, wobj_len, g.wobj_sections().len()));
            runs.push((gpud, gpud_len, g.gpud_sections().len()));
        }
        runs.sort_unstable();
        runs
    }

    /// What each data section holds: the geometry run's roles
    /// ([`WorldGeometry::section_roles`]), else the header name that indexes the section
    /// (`lights_section`, …), else `unnamed`.
    pub fn section_roles(&self) -> Vec<String> {
        let n = self.data_section_sizes.len();
        let mut roles = vec!["unnamed".to_string(); n];
        for s in &self.section_index {
            if let Some(r) = roles.get_mut(s.index as usize) {
                *r = s.name.clone();
            }
        }
        if let Some(g) = &self.geometry {
            for (i, role) in g.section_roles().into_iter().enumerate() {
                if let Some(r) = roles.get_mut(g.first_section + i) {
                    *r = role;
                }
            }
        }
        for (i, role) in self
            .mp3_geometry
            .iter()
            .flat_map(Mp3Geometry::section_roles)
        {
            if let Some(r) = roles.get_mut(i) {
                *r = role;
            }
        }
        roles
    }

    /// Serialises the area. A parsed, unchanged area gives back the input bytes; blocks
    /// (MP2/MP3) whose sections are unchanged keep their stored compressed bytes, edited
    /// ones are recompressed. The world geometry may gain or lose sections (surfaces, world
    /// models): the header's section indices (MP3: the section-ID table, DEPS, LITE, … and
    /// GPUD after WOBJ) after each run shift, and in a compressed area the block holding a
    /// run's last section takes its difference.
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        self.write_sections(self.section_bytes(), &self.raw.sections)
    }

    /// Writes the area with `sections` as its data sections; blocks whose sections equal
    /// `as_read` keep their stored bytes, the others are packed anew.
    fn write_sections(&self, sections: Vec<Vec<u8>>, as_read: &[Vec<u8>]) -> Result<Vec<u8>> {
        let delta = sections.len() as i64 - as_read.len() as i64;
        let invalid = |field: &str, message: String| {
            FormatError::new("MREA writer", field, 0, ErrorKind::Invalid(message))
        };
        // (first section as read, sections it gained or lost) per changed run.
        let runs: Vec<(usize, usize, i64)> = self
            .geometry_runs()
            .into_iter()
            .map(|(first, old, new)| (first, old, new as i64 - old as i64))
            .filter(|&(_, _, d)| d != 0)
            .collect();
        if runs.iter().map(|r| r.2).sum::<i64>() != delta {
            return Err(invalid(
                "data_section_count",
                format!(
                    "{} sections to write for {} read, not what the world geometry's runs account for",
                    sections.len(),
                    as_read.len()
                ),
            ));
        }
        let count = super::cinf::len_u32(sections.len(), "data_section_count")?;
        // A section after a run's first moves with the sections the run gained or lost.
        let index = |s: &NamedSection| -> u32 {
            if s.index == u32::MAX {
                return s.index;
            }
            let shift: i64 = runs
                .iter()
                .filter(|r| s.index as usize > r.0)
                .map(|r| r.2)
                .sum();
            (i64::from(s.index) + shift) as u32
        };
        let world_models = match (&self.geometry, &self.mp3_geometry) {
            (Some(g), _) => g.world_models.len() as u32,
            (None, Some(g)) => super::cinf::len_u32(g.world_models.len(), "world_model_count")?,
            (None, None) => self.world_model_count,
        };
        let mut w = Writer::new();
        w.u32(self.magic);
        w.u32(self.version);
        self.area_transform.iter().for_each(|&x| w.f32(x));
        w.u32(world_models);
        let pads = &self.raw.header_pads;
        let mut sizes = Writer::new();
        for s in &sections {
            sizes.u32(super::cinf::len_u32(s.len(), "data_section_sizes")?);
        }
        // The layout is the game's: an MP2/MP3 area without blocks still has the block
        // table (empty), and MP3 its section-ID table.
        if self.game == Game::Mp1 {
            w.u32(count);
            self.section_index.iter().for_each(|s| w.u32(index(s)));
            w.bytes(&pad_like(pads.first(), w.len()));
            w.bytes(&sizes.buf);
            w.bytes(&pad_like(pads.get(1), w.len()));
            sections.iter().for_each(|s| w.bytes(s));
            w.bytes(&self.raw.trailing);
            return Ok(w.into_inner());
        }
        // A changed geometry run grows or shrinks the block that holds its last section.
        let mut counts: Vec<u32> = self
            .compressed_blocks
            .iter()
            .map(|b| b.section_count)
            .collect();
        for &(first, old, delta) in &runs {
            let last = first + old.saturating_sub(1);
            let b = self
                .compressed_blocks
                .iter()
                .position(|b| (b.first_section + b.section_count) as usize > last)
                .or(counts.len().checked_sub(1))
                .ok_or_else(|| {
                    invalid(
                        "compressed_block_count",
                        "no block to hold the changed world geometry".into(),
                    )
                })?;
            let n = i64::from(counts[b]) + delta;
            if n < 1 {
                return Err(invalid(
                    "block.section_count",
                    format!(
                        "block {b} would hold {n} sections after the world geometry changed by {delta}"
                    ),
                ));
            }
            counts[b] = n as u32;
        }
        let mp3 = self.game == Game::Mp3;
        w.u32(self.script_layer_count.unwrap_or(0));
        w.u32(count);
        if !mp3 {
            self.section_index.iter().for_each(|s| w.u32(index(s)));
        }
        w.u32(self.compressed_blocks.len() as u32);
        if mp3 {
            w.u32(self.section_index.len() as u32);
        }
        w.bytes(&pad_like(pads.first(), w.len()));
        w.bytes(&sizes.buf);
        w.bytes(&pad_like(pads.get(1), w.len()));
        let mut headers = Writer::new();
        let mut bodies = Writer::new();
        let mut at = 0usize;
        for (b, block) in self.compressed_blocks.iter().enumerate() {
            let old =
                block.first_section as usize..(block.first_section + block.section_count) as usize;
            let range = at..at + counts[b] as usize;
            at = range.end;
            let now: Vec<u8> = sections[range].concat();
            let before: Vec<u8> = as_read[old].concat();
            let mut h = *block;
            h.section_count = counts[b];
            if now == before {
                bodies.bytes(&self.raw.blocks[b]);
            } else {
                let size = super::cinf::len_u32(now.len(), "block.uncompressed_size")?;
                let packed = lzo_segments(&now);
                let slack = block.buffer_size.saturating_sub(block.uncompressed_size);
                h.uncompressed_size = size;
                if packed.len() < now.len() {
                    h.compressed_size = packed.len() as u32;
                    h.buffer_size = size + slack;
                    bodies.bytes(&vec![0; packed.len().next_multiple_of(32) - packed.len()]);
                    bodies.bytes(&packed);
                } else {
                    h.compressed_size = 0;
                    h.buffer_size = size;
                    bodies.bytes(&now);
                    bodies.pad_to(32, 0);
                }
            }
            headers.u32(h.buffer_size);
            headers.u32(h.uncompressed_size);
            headers.u32(h.compressed_size);
            headers.u32(h.section_count);
        }
        w.bytes(&headers.buf);
        w.bytes(&pad_like(pads.get(2), w.len()));
        if mp3 {
            for s in &self.section_index {
                let fourcc: [u8; 4] = s.name.as_bytes().try_into().map_err(|_| {
                    invalid("section_id.fourcc", format!("{:?} is not a FourCC", s.name))
                })?;
                w.bytes(&fourcc);
                w.u32(index(s));
            }
            w.bytes(&pad_like(pads.get(3), w.len()));
        }
        w.bytes(&bodies.buf);
        w.bytes(&self.raw.trailing);
        Ok(w.into_inner())
    }
}

// ------------------------------------------------------------------------------------------------
// MP1 writer

/// Section indices of an MP1 header in header order (geometry, script layers, collision,
/// unknown, lights, visibility tree, path, area octree), `formats.md` §9.1.
pub type Mp1SectionIndex = [u32; 8];

/// Writes an uncompressed MP1 area (version 0xF): header, section-size table (zero-padded
/// to 32) and the sections, each zero-padded to a multiple of 32 bytes so that the stored
/// sizes keep the format's alignment rule.
pub fn write_mp1_mrea(
    area_transform: &[f32; 12],
    world_model_count: u32,
    section_index: &Mp1SectionIndex,
    sections: &[Vec<u8>],
) -> Result<Vec<u8>> {
    let count = super::cinf::len_u32(sections.len(), "data_section_count")?;
    if let Some((i, &index)) = section_index
        .iter()
        .enumerate()
        .find(|&(_, &index)| index != u32::MAX && index >= count)
    {
        return Err(FormatError::new(
            "MREA writer",
            MP1_SECTIONS[i].0,
            0,
            ErrorKind::Invalid(format!("section {index} of {count} does not exist")),
        ));
    }
    let mut w = Writer::new();
    w.u32(MREA_MAGIC);
    w.u32(VERSION_MP1);
    area_transform.iter().for_each(|&x| w.f32(x));
    w.u32(world_model_count);
    w.u32(count);
    section_index.iter().for_each(|&i| w.u32(i));
    w.pad_to(32, 0);
    for s in sections {
        let padded = s.len().div_ceil(32) * 32;
        w.u32(super::cinf::len_u32(padded, "data_section_sizes")?);
    }
    w.pad_to(32, 0);
    for s in sections {
        w.bytes(s);
        w.pad_to(32, 0);
    }
    Ok(w.into_inner())
}

/// The sections of a minimal MP1 area that holds only lights: an empty material set as
/// world geometry (no world models), a script-layer section with one empty layer, an empty
/// collision, unknown and visibility section, no path (ID 0xFFFFFFFF), no area octree,
/// and `lights` (which should have the two MP1 layers).
pub fn minimal_mp1_sections(lights: &LightsSection) -> (Mp1SectionIndex, Vec<Vec<u8>>) {
    let mut geometry = Writer::new();
    geometry.u32(0); // texture count
    geometry.u32(0); // material count
    let mut scly = Writer::new();
    scly.bytes(b"SCLY");
    scly.u32(1); // version
    scly.u32(1); // layer count
    scly.u32(5); // layer size: u8 unknown + u32 object count
    scly.u8(0);
    scly.u32(0);
    let mut light_bytes = Writer::new();
    write_lights_section(lights, &mut light_bytes);
    let mut path = Writer::new();
    path.u32(u32::MAX);
    let sections = vec![
        geometry.into_inner(),
        scly.into_inner(),
        Vec::new(),
        Vec::new(),
        light_bytes.into_inner(),
        Vec::new(),
        path.into_inner(),
        Vec::new(),
    ];
    ([0, 1, 2, 3, 4, 5, 6, 7], sections)
}

/// A whole minimal MP1 area (see [`minimal_mp1_sections`]) with an identity transform.
pub fn write_minimal_mp1_mrea(lights: &LightsSection) -> Result<Vec<u8>> {
    const IDENTITY: [f32; 12] = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.];
    let (index, sections) = minimal_mp1_sections(lights);
    write_mp1_mrea(&IDENTITY, 0, &index, &sections)
}

/// A whole MP1 area made by tevscope: `geometry` (e.g. [`WorldGeometry::new_mp1`]) as the
/// first sections, then those of [`minimal_mp1_sections`] with `lights`.
pub fn write_mp1_area(geometry: &WorldGeometry, lights: &LightsSection) -> Result<Vec<u8>> {
    const IDENTITY: [f32; 12] = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.];
    let (mut index, mut sections) = minimal_mp1_sections(lights);
    let run = geometry.section_bytes();
    let shift = super::cinf::len_u32(run.len(), "geometry sections")? - 1;
    sections.splice(0..1, run);
    index.iter_mut().skip(1).for_each(|i| *i += shift);
    let models = super::cinf::len_u32(geometry.world_models.len(), "world_model_count")?;
    write_mp1_mrea(&IDENTITY, models, &index, &sections)
}

/// Largest run of sections [`write_mp3_area`] packs into one block (each section whole).
const MP3_BLOCK_TARGET: usize = 0x20000;

/// A whole MP3 area (version 0x1E) made by tevscope: the WOBJ and GPUD runs of `geometry`
/// (from [`Mp3Geometry::new`]), `DEPS` from `dependencies` (one script layer per layer
/// list), `LITE` with the four layers of `lights` and `LLTE`, identity transform. Sections
/// go into blocks of up to 128 KiB, LZO-compressed where that is smaller; the file ends
/// 64-aligned (§9.3).
pub fn write_mp3_area(
    geometry: &Mp3Geometry,
    dependencies: &Dependencies,
    lights: &LightsSection,
) -> Result<Vec<u8>> {
    const IDENTITY: [f32; 12] = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.];
    let invalid = |field: &str, message: String| {
        FormatError::new("MREA writer", field, 0, ErrorKind::Invalid(message))
    };
    if lights.layers.len() != 4 || lights.light_record_size != LIGHT_RECORD_SIZE_MP3 {
        return Err(invalid(
            "LITE",
            format!(
                "MP3 lights are 4 layers of {LIGHT_RECORD_SIZE_MP3:#x}-byte records, not {} of {:#x}",
                lights.layers.len(),
                lights.light_record_size
            ),
        ));
    }
    if lights
        .layers
        .iter()
        .flatten()
        .any(|l| l.codirection.is_none())
    {
        return Err(invalid(
            "LITE",
            "an MP1/MP2 light record in an MP3 area".into(),
        ));
    }
    let mut sections = geometry.wobj_sections();
    if geometry.wobj_first != 0 || geometry.gpud_first != sections.len() {
        return Err(invalid(
            "WOBJ",
            "a new area's WOBJ run starts at section 0 and GPUD follows it (Mp3Geometry::new)"
                .into(),
        ));
    }
    sections.extend(geometry.gpud_sections());
    let mut named = vec![("WOBJ", 0), ("GPUD", geometry.gpud_first)];
    named.push(("DEPS", sections.len()));
    let mut deps = dependencies.clone();
    deps.index = sections.len() as u32;
    sections.push(deps.to_bytes());
    named.push(("LITE", sections.len()));
    let mut lw = Writer::new();
    write_lights_section(lights, &mut lw);
    lw.pad_to(32, 0);
    sections.push(lw.into_inner());
    named.push(("LLTE", sections.len()));
    let mut llte = Writer::new();
    llte.bytes(b"LLTE");
    llte.u32(1);
    llte.pad_to(32, 0);
    sections.push(llte.into_inner());

    let mut blocks = Vec::new();
    let (mut first, mut bytes) = (0usize, 0usize);
    for (i, s) in sections.iter().enumerate() {
        if i > first && bytes + s.len() > MP3_BLOCK_TARGET {
            blocks.push((first, i - first));
            (first, bytes) = (i, 0);
        }
        bytes += s.len();
    }
    blocks.push((first, sections.len() - first));
    let sizes = sections
        .iter()
        .map(|s| super::cinf::len_u32(s.len(), "data_section_sizes"))
        .collect::<Result<Vec<_>>>()?;
    let n = sizes.len();
    // Written by `to_bytes`, which packs every block whose sections differ from the
    // (empty) ones recorded as read.
    let area = Mrea {
        game: Game::Mp3,
        magic: MREA_MAGIC,
        version: VERSION_MP3,
        area_transform: IDENTITY,
        world_model_count: super::cinf::len_u32(geometry.world_models.len(), "world_model_count")?,
        script_layer_count: Some(dependencies.layer_starts.len().saturating_sub(1) as u32),
        data_section_count: n as u32,
        section_index: named
            .into_iter()
            .map(|(name, index)| NamedSection {
                name: name.into(),
                short_name: name.into(),
                index: index as u32,
            })
            .collect(),
        data_section_offsets: vec![0; n],
        data_section_sizes: sizes,
        header_size: 0,
        compressed_blocks: blocks
            .iter()
            .map(|&(first, count)| BlockHeader {
                buffer_size: 0,
                uncompressed_size: 0,
                compressed_size: 0,
                section_count: count as u32,
                data_offset: 0,
                first_section: first as u32,
            })
            .collect(),
        lights_section: None,
        geometry: None,
        mp3_geometry: None,
        dependencies: None,
        unknown_section_2: None,
        warnings: Vec::new(),
        raw: RawParts {
            blocks: vec![Vec::new(); blocks.len()],
            ..RawParts::default()
        },
    };
    let as_read = vec![Vec::new(); n];
    let mut out = area.write_sections(sections, &as_read)?;
    out.resize(out.len().next_multiple_of(64), 0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(t: u32) -> LightRecord {
        LightRecord {
            light_type: t,
            color: [0.5, 0.25, 1.0, 1.0],
            position: [1.0, 2.0, 3.0],
            direction: [0.0, 0.0, -1.0],
            codirection: None,
            brightness: 2.0,
            spot_cutoff: 40.0,
            unknown_float_1: 0.5,
            cast_shadows_u8: 1,
            unknown_float_2: 0.25,
            falloff_type: 1,
            unknown_float_3: 0.125,
            mp3_unknown_floats: None,
            mp3_unknown_u32: None,
        }
    }

    fn lights_section(game: Game) -> LightsSection {
        let mp3 = game == Game::Mp3;
        let fix = |mut r: LightRecord| {
            if mp3 {
                r.codirection = Some([0.0, 1.0, 0.0]);
                r.color[3] = 0.75;
                r.mp3_unknown_floats = Some([1.0, 2.0, 3.0, 4.0]);
                r.mp3_unknown_u32 = Some(7);
            }
            r
        };
        let layers = if mp3 { 4 } else { 2 };
        LightsSection {
            offset: None,
            magic: LIGHTS_MAGIC,
            layers: (0..layers)
                .map(|i| (0..=i).map(|t| fix(record(t as u32))).collect())
                .collect(),
            light_record_size: if mp3 {
                LIGHT_RECORD_SIZE_MP3
            } else {
                LIGHT_RECORD_SIZE_MP1
            },
        }
    }

    /// Builds an MP2/MP3 area: sections [empty material set, empty AROT, no surface-group
    /// bounds, lights, 64 B] in two blocks (the first stored, the second LZO-compressed).
    fn build_blocked(game: Game) -> (Vec<u8>, LightsSection) {
        let lights = lights_section(game);
        let mut lw = Writer::new();
        write_lights_section(&lights, &mut lw);
        lw.pad_to(32, 0);
        let sections: Vec<Vec<u8>> = vec![
            vec![0; 32],
            vec![0; 32],
            vec![0; 32],
            lw.into_inner(),
            vec![0; 64],
        ];
        let mut w = Writer::new();
        w.u32(MREA_MAGIC);
        w.u32(if game == Game::Mp2 {
            VERSION_MP2
        } else {
            VERSION_MP3
        });
        for i in 0..12 {
            w.f32(if i % 5 == 0 { 1.0 } else { 0.0 });
        }
        w.u32(0); // world models
        w.u32(1); // script layers
        w.u32(5); // data sections
        if game == Game::Mp2 {
            for idx in [0u32, 4, 4, 4, 4, 3, 4, 4, 4, 4, 4] {
                w.u32(idx);
            }
            w.u32(2); // blocks
        } else {
            w.u32(2); // blocks
            w.u32(2); // section ids
        }
        w.pad_to(32, 0);
        for s in &sections {
            w.u32(s.len() as u32);
        }
        w.pad_to(32, 0);
        let first: Vec<u8> = sections[..3].concat();
        let second: Vec<u8> = sections[3..].concat();
        let compressed = crate::formats::compression::lzo_segments(&second);
        // Block 0: stored geometry. Block 1: compressed lights + other.
        for h in [
            [96u32, 96, 0, 3],
            [
                second.len() as u32,
                second.len() as u32,
                compressed.len() as u32,
                2,
            ],
        ] {
            h.into_iter().for_each(|x| w.u32(x));
        }
        w.pad_to(32, 0);
        if game == Game::Mp3 {
            w.bytes(b"GEOM");
            w.u32(0);
            w.bytes(b"LITE");
            w.u32(3);
            w.pad_to(32, 0);
        }
        w.bytes(&first);
        let pad = compressed.len().next_multiple_of(32) - compressed.len();
        w.bytes(&vec![0; pad]);
        w.bytes(&compressed);
        w.pad_to(32, 0);
        (w.into_inner(), lights)
    }

    #[test]
    fn mp2_and_mp3_blocks_decompress_to_the_lights() {
        for game in [Game::Mp2, Game::Mp3] {
            let (bytes, lights) = build_blocked(game);
            let m = parse_mrea(&bytes, "t.MREA").unwrap_or_else(|e| panic!("{game:?}: {e}"));
            assert_eq!(m.game, game);
            assert_eq!(m.compressed_blocks.len(), 2);
            assert_eq!(m.data_section_sizes.len(), 5);
            assert_eq!(m.to_bytes().expect("writes"), bytes, "{game:?} round trip");
            let got = m.lights_section.expect("lights");
            assert_eq!(got.layers, lights.layers);
            assert_eq!(got.offset, None);
            assert!(m.warnings.is_empty(), "{:?}", m.warnings);
            // Every truncation fails cleanly; corruption never panics.
            let rejected = crate::testing::torture(&bytes, 300, |d| parse_mrea(d, "t.MREA"));
            assert_eq!(rejected, bytes.len(), "{game:?}");
        }
    }

    #[test]
    fn unknown_versions_and_falloffs() {
        let mut bad = vec![0xDE, 0xAD, 0xBE, 0xEF, 0, 0, 0, 0x0C];
        bad.resize(0x80, 0);
        let e = parse_mrea(&bad, "kiosk.MREA").expect_err("kiosk demo");
        assert_eq!(e.offset, 4);
        let mut s = lights_section(Game::Mp1);
        s.layers[0][0].falloff_type = 9;
        s.layers[1][1].brightness = f32::NAN;
        let mut w = Writer::new();
        write_lights_section(&s, &mut w);
        let mut warnings = Vec::new();
        let got = parse_lights_section(&mut Reader::new(&w.buf, "l"), Game::Mp1, &mut warnings)
            .expect("parses");
        assert_eq!(got.layers[0][0].falloff_type, 9);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
    }

    #[test]
    fn mp1_writer_reproduces_the_fixture_and_minimal_areas_parse() {
        if let Some((data, _)) = crate::testing::conformance_file("mp1_lights_minimal.MREA") {
            let m = parse_mrea(&data, "fixture").expect("fixture parses");
            let sections: Vec<Vec<u8>> = m
                .data_section_offsets
                .iter()
                .zip(&m.data_section_sizes)
                .map(|(&o, &s)| data[o as usize..o as usize + s as usize].to_vec())
                .collect();
            let index: Mp1SectionIndex = std::array::from_fn(|i| m.section_index[i].index);
            let out = write_mp1_mrea(&m.area_transform, m.world_model_count, &index, &sections)
                .expect("fixture writes");
            assert_eq!(out, data);
        }
        let lights = lights_section(Game::Mp1);
        let bytes = write_minimal_mp1_mrea(&lights).expect("minimal area writes");
        let m = parse_mrea(&bytes, "minimal").expect("minimal area parses");
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        assert_eq!(m.data_section_count, 8);
        assert_eq!(m.section_index("lights_section"), Some(4));
        assert!(m.data_section_sizes.iter().all(|s| s % 32 == 0));
        let got = m.lights_section.expect("lights section");
        assert_eq!(got.layers, lights.layers);
        // A section index past the table is refused.
        let (mut index, sections) = minimal_mp1_sections(&lights);
        index[4] = 8;
        assert!(write_mp1_mrea(&[0.0; 12], 0, &index, &sections).is_err());
    }

    fn area(name: &str) -> Option<(Vec<u8>, Mrea)> {
        let (data, _) = crate::testing::conformance_file(&format!("areas/{name}"))?;
        let m = parse_mrea(&data, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        Some((data, m))
    }

    #[test]
    fn area_fixtures_parse_without_warnings_and_rewrite_byte_for_byte() {
        for name in ["mp1_area.MREA", "mp2_area.MREA"] {
            let Some((data, m)) = area(name) else { return };
            assert!(m.warnings.is_empty(), "{name}: {:?}", m.warnings);
            let g = m.geometry.as_ref().expect("geometry");
            assert_eq!(g.world_models.len(), 2);
            assert_eq!(g.triangle_count(), 22, "{name}");
            assert_eq!(m.to_bytes().expect("writes"), data, "{name}");
        }
    }

    #[test]
    fn an_edited_compressed_block_is_recompressed_and_the_others_kept() {
        let Some((data, mut m)) = area("mp2_area.MREA") else {
            return;
        };
        let g = m.geometry.as_mut().expect("geometry");
        g.material_set.materials[2].blend_src = 1;
        let out = m.to_bytes().expect("writes");
        assert_ne!(out, data);
        let again = parse_mrea(&out, "edited").expect("edited area parses");
        let g2 = again.geometry.as_ref().expect("geometry");
        assert_eq!(g2.material_set.materials[2].blend_src, 1);
        assert_eq!(g2.triangle_count(), 22);
        assert_eq!(again.raw.sections[1..], m.raw.sections[1..]);
        // Block 0 (the geometry) was recompressed; the later blocks are the stored bytes.
        assert_ne!(again.raw.blocks[0], m.raw.blocks[0]);
        assert_eq!(again.raw.blocks[1..], m.raw.blocks[1..]);
        assert_eq!(
            again.compressed_blocks[0].buffer_size - again.compressed_blocks[0].uncompressed_size,
            m.compressed_blocks[0].buffer_size - m.compressed_blocks[0].uncompressed_size
        );
        // And writing the reparsed area is stable.
        assert_eq!(again.to_bytes().expect("writes"), out);
    }

    #[test]
    fn an_mp1_area_may_lose_a_surface() {
        let Some((_, mut m)) = area("mp1_area.MREA") else {
            return;
        };
        let lights = m.lights_section.clone();
        let g = m.geometry.as_mut().expect("geometry");
        g.world_models[1].surfaces.pop();
        g.refresh_layout();
        let out = m.to_bytes().expect("writes");
        let again = parse_mrea(&out, "edited").expect("edited area parses");
        assert!(again.warnings.is_empty(), "{:?}", again.warnings);
        assert_eq!(again.geometry.expect("geometry").triangle_count(), 20);
        assert_eq!(again.data_section_count, m.data_section_count - 1);
        assert_eq!(
            again.lights_section.map(|l| l.layers),
            lights.map(|l| l.layers)
        );
    }

    #[test]
    fn an_mp2_area_may_lose_a_surface() {
        let Some((_, mut m)) = area("mp2_area.MREA") else {
            return;
        };
        let g = m.geometry.as_mut().expect("geometry");
        g.world_models[1].surfaces.pop();
        g.refresh_layout();
        let out = m.to_bytes().expect("writes");
        let again = parse_mrea(&out, "edited").expect("edited area parses");
        assert!(again.warnings.is_empty(), "{:?}", again.warnings);
        assert_eq!(
            again.geometry.as_ref().expect("geometry").triangle_count(),
            20
        );
        assert_eq!(again.data_section_count, m.data_section_count - 1);
        assert_eq!(again.compressed_blocks[0].section_count, 25);
        assert_eq!(again.section_index("lights_section"), Some(29));
        assert_eq!(
            again.lights_section.map(|l| l.layers),
            m.lights_section.map(|l| l.layers)
        );
        assert_eq!(again.raw.blocks[1..], m.raw.blocks[1..]);
        assert_eq!(again.unknown_section_2, {
            let mut u = m.unknown_section_2.clone().expect("unknown 2");
            u.index -= 1;
            Some(u)
        });
    }

    #[test]
    fn corrupted_area_fixtures_never_panic() {
        for name in ["mp1_area.MREA", "mp2_area.MREA"] {
            let Some((data, _)) = area(name) else { return };
            let rejected = crate::testing::torture(&data, 400, |d| parse_mrea(d, name));
            // Cutting the file anywhere before its last section loses data.
            assert!(rejected >= data.len() - 32, "{name}: {rejected}");
        }
    }

    /// A model from the CMDL builder: a quad strip of `n` quads at height `z`.
    fn strip_model(n: usize, z: f32, short_normals: bool) -> crate::formats::cmdl::Cmdl {
        use crate::formats::cmdl::{CmdlBuilder, MeshVertex};
        use crate::formats::material::MaterialBuilder;
        let mut b = CmdlBuilder::new(Game::Mp1);
        b.short_normals = short_normals;
        let t = b.add_texture(0x5A00_0001);
        let m = b.add_material(MaterialBuilder::textured_lit(t).build());
        let mut vertices = Vec::new();
        let mut triangles = Vec::new();
        for i in 0..=n {
            for y in [0.0, 1.0] {
                vertices.push(
                    MeshVertex::new([i as f32, y, z])
                        .normal([0.0, 0.0, 1.0])
                        .uv(0, [i as f32, y]),
                );
            }
        }
        for i in 0..n as u32 {
            triangles.push([2 * i, 2 * i + 2, 2 * i + 1]);
            triangles.push([2 * i + 1, 2 * i + 2, 2 * i + 3]);
        }
        b.add_mesh(m, &vertices, &triangles).expect("mesh");
        b.build().expect("model")
    }

    #[test]
    fn rooms_built_from_models_write_parse_and_survive_corruption() {
        let a = strip_model(3, 0.0, true);
        let b = strip_model(2, 2.0, false);
        let geometry = WorldGeometry::new_mp1(
            a.material_sets[0].clone(),
            vec![
                geometry::WorldModel::from_cmdl(&a, 0),
                geometry::WorldModel::from_cmdl(&b, 0x10),
            ],
        );
        let lights = lights_section(Game::Mp1);
        let bytes = write_mp1_area(&geometry, &lights).expect("area writes");
        let m = parse_mrea(&bytes, "room.MREA").expect("room parses");
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        assert_eq!(m.world_model_count, 2);
        assert_eq!(
            m.lights_section.as_ref().map(|l| &l.layers),
            Some(&lights.layers)
        );
        let g = m.geometry.as_ref().expect("geometry");
        assert_eq!(g.triangle_count(), 10);
        assert_eq!(g.world_models[0].positions.values, a.positions.values);
        assert_eq!(g.world_models[1].header.visor_flags, 0x10);
        assert!(g.world_models[0].header.short_normals());
        assert_eq!(g.world_models[1].header.aabb.min, [0.0, 0.0, 2.0]);
        assert_eq!(
            g.world_models[1].surfaces[0].stored_aabb().map(|b| b.max),
            Some([2.0, 1.0, 2.0])
        );
        assert_eq!(m.to_bytes().expect("writes"), bytes);
        // Every truncation is refused (the sections fill the file); corruption never panics.
        let rejected = crate::testing::torture(&bytes, 500, |d| parse_mrea(d, "room.MREA"));
        assert_eq!(rejected, bytes.len());
    }

    #[test]
    fn geometry_errors_name_file_field_and_offset_and_lights_still_load() {
        let Some((data, m)) = area("mp1_area.MREA") else {
            return;
        };
        let set_at = m.data_section_offsets[0] as usize;
        let mut bad = data.clone();
        bad[set_at..set_at + 4].copy_from_slice(&0x00FF_FFFFu32.to_be_bytes());
        let e = parse_mrea(&bad, "bad.MREA").expect_err("texture count too large");
        assert_eq!(
            (e.file.as_str(), e.field.as_str(), e.offset),
            ("bad.MREA", "material_set.texture_count", set_at as u64)
        );
        let lights = parse_mrea_lights(&bad, "bad.MREA").expect("lights without geometry");
        assert_eq!(lights.lights_section, m.lights_section);
        assert!(lights.geometry.is_none());
        assert_eq!(lights.to_bytes().expect("writes"), bad);

        let table_at = m.data_section_offsets[7] as usize;
        let mut bad = data.clone();
        bad[table_at..table_at + 4].copy_from_slice(&100u32.to_be_bytes());
        let e = parse_mrea(&bad, "bad.MREA").expect_err("surface count too large");
        assert_eq!(e.field, "world_model[0].surface_offsets.surface_count");
        assert_eq!(e.offset, table_at as u64);

        // A material index past the set, in a compressed MP2 block: the error names the
        // decompressed block and the offset inside it.
        let Some((_, mut m2)) = area("mp2_area.MREA") else {
            return;
        };
        let g = m2.geometry.as_mut().expect("geometry");
        g.world_models[0].surfaces[1].material_index = 7;
        let out = m2.to_bytes().expect("writes");
        let e = parse_mrea(&out, "bad2.MREA").expect_err("material index");
        assert_eq!(e.file, "bad2.MREA [decompressed block 0]");
        assert_eq!(e.field, "world_model[0].surface[1].material_index");
        assert_eq!(e.offset, m2.data_section_offsets[9] + 12);
    }

    #[test]
    fn odd_but_loadable_geometry_values_are_warnings() {
        let Some((data, m)) = area("mp1_area.MREA") else {
            return;
        };
        let mut odd = data.clone();
        let put = |b: &mut Vec<u8>, at: u64, v: u32| {
            b[at as usize..at as usize + 4].copy_from_slice(&v.to_be_bytes())
        };
        // World model 0 says float normals while its primitives use VAT 1 and 2.
        put(&mut odd, m.data_section_offsets[1], 0);
        // World model 1's bounds have min.x > max.x.
        put(
            &mut odd,
            m.data_section_offsets[10] + 0x34,
            100f32.to_bits(),
        );
        // World model 1's first surface end offset disagrees with the section sizes.
        put(&mut odd, m.data_section_offsets[16] + 4, 64);
        let got = parse_mrea(&odd, "odd.MREA").expect("odd values still load");
        let w = got.warnings.join("\n");
        assert!(
            w.contains("world_model[0].surface[0].display_list at byte offset"),
            "{w}"
        );
        assert!(w.contains("does not match the float normals"), "{w}");
        assert!(w.contains("world_model[1].header.aabb"), "{w}");
        assert!(
            w.contains("world_model[1].surface_offsets.end_offsets[0]"),
            "{w}"
        );
        assert_eq!(got.warnings.len(), 3, "{w}");
        let g = got.geometry.as_ref().expect("geometry");
        assert!(matches!(
            g.world_models[0].normals,
            crate::formats::cmdl::Normals::Float(_)
        ));
        assert_eq!(g.triangle_count(), 22);
        assert_eq!(got.to_bytes().expect("writes"), odd);
    }
}
