//! MP3 area world geometry and dependencies (`formats.md` §13.8): the `WOBJ` run (the
//! area's MP3 material set, then header, surface offsets, mesh-info table and an unknown
//! section per world model), the `GPUD` run (per world model: positions, normals, colours,
//! float UVs and its surfaces) and `DEPS` (the room's assets per script layer).
//!
//! World models are [`WorldModel`]s like MP1/MP2's, so merging, drawing and picking treat
//! every game alike; the MP3-only sections ride along in [`Mp3ModelSections`]. Every section
//! is kept, so [`Mp3Geometry::wobj_sections`] and [`Mp3Geometry::gpud_sections`] reproduce
//! the bytes.

use serde::Serialize;

use super::geometry::{WorldModel, WorldSurface, read_world_model_header, tolerant};
use crate::formats::cmdl::{
    ArrayCounts, AttributeArray, CmdlOptions, Normals, SurfaceTable, refresh_surface_layout,
};
use crate::formats::error::{ErrorKind, FormatError, Result};
use crate::formats::material::{Within, warning};
use crate::formats::mp3_material::{Mp3MaterialSet, Mp3Materials, SetLayout};
use crate::formats::reader::{Reader, Writer};
use crate::formats::{FourCc, Game};

use super::geometry::SectionFn;
pub use super::mp3_sections::{MeshInfo, Mp3ModelSections};

/// WOBJ sections per world model: header, surface offsets, mesh-info table, unknown.
pub const WOBJ_MODEL_SECTIONS: usize = 4;
/// GPUD sections per world model besides its surfaces: positions, normals, colours, UVs.
pub const GPUD_ARRAY_SECTIONS: usize = 4;

/// An MP3 area's world geometry.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mp3Geometry {
    /// Index of the WOBJ run's first section (the material set).
    pub wobj_first: usize,
    /// Index of the GPUD run's first section.
    pub gpud_first: usize,
    /// The area's one material set (stored as one section).
    pub materials: Mp3Materials,
    /// World models; each has `mp3` set and no short UVs.
    pub world_models: Vec<WorldModel>,
    /// Scales for short normals (Default s16/16384, §13.8).
    #[serde(skip)]
    pub options: CmdlOptions,
}

/// Where the runs are and how far they may go.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Mp3Runs {
    pub wobj: usize,
    pub gpud: usize,
    /// From the area header.
    pub world_model_count: u32,
    /// Sections in the area.
    pub limit: usize,
}

/// The normal format a world model's first display-list byte selects (§13.8, [noclip]
/// Default): vertex format 1 or 2 → 3×s16, anything else → 3×f32. None without surfaces.
fn normals_are_short(first_surface: &Reader) -> Option<bool> {
    let data = first_surface.data();
    let e = data.get(0x1C..0x20)?;
    let e = u32::from_be_bytes([e[0], e[1], e[2], e[3]]) as usize;
    let start = (0x30usize).checked_add(e)?.next_multiple_of(32);
    let byte = *data.get(start)?;
    Some(matches!(byte & 7, 1 | 2))
}

impl Mp3Geometry {
    /// Parses both runs (§13.8, validation §13.9). `file` names the area for errors about
    /// its header.
    pub(crate) fn parse(
        file: &str,
        section: &SectionFn,
        runs: Mp3Runs,
        options: &CmdlOptions,
        warnings: &mut Vec<String>,
    ) -> Result<Mp3Geometry> {
        let Mp3Runs {
            wobj,
            gpud,
            world_model_count,
            limit,
        } = runs;
        let w = world_model_count as u64;
        let available = limit.saturating_sub(wobj + 1) as u64;
        if w * WOBJ_MODEL_SECTIONS as u64 > available {
            return Err(FormatError::new(
                file,
                "world_model_count",
                0x38,
                ErrorKind::CountTooLarge {
                    count: w,
                    element_size: WOBJ_MODEL_SECTIONS as u64,
                    remaining: available,
                },
            ));
        }
        let wobj_end = wobj + 1 + WOBJ_MODEL_SECTIONS * world_model_count as usize;
        if (wobj..wobj_end).contains(&gpud) {
            warnings.push(format!(
                "{file}: GPUD section {gpud} lies inside the WOBJ run (sections {wobj}–{})",
                wobj_end - 1
            ));
        }
        let mr = section(wobj)?;
        let set_file = mr.file();
        let materials = Mp3Materials::parse(vec![mr], 1, SetLayout::OneSection, warnings)?;
        let layouts = materials.vertex_layouts(&options.decode, set_file, warnings);
        let mut world_models = Vec::with_capacity(world_model_count as usize);
        let mut at = gpud;
        for k in 0..world_model_count as usize {
            let label = format!("world_model[{k}]");
            let first = wobj + 1 + WOBJ_MODEL_SECTIONS * k;
            let model = parse_model(
                section, first, at, limit, &layouts, options, &label, warnings,
            )
            .within(|| label.clone())?;
            at += GPUD_ARRAY_SECTIONS + model.surfaces.len();
            world_models.push(model);
        }
        Ok(Mp3Geometry {
            wobj_first: wobj,
            gpud_first: gpud,
            materials,
            world_models,
            options: *options,
        })
    }

    /// Geometry for a new area (tests, the demo): WOBJ at section 0, GPUD right after it,
    /// laid out for writing.
    pub fn new(set: Mp3MaterialSet, world_models: Vec<WorldModel>) -> Mp3Geometry {
        let mut g = Mp3Geometry {
            wobj_first: 0,
            gpud_first: 1 + WOBJ_MODEL_SECTIONS * world_models.len(),
            materials: Mp3Materials {
                sets: vec![set],
                layout: SetLayout::OneSection,
                paddings: vec![Vec::new()],
            },
            world_models,
            options: CmdlOptions::default(),
        };
        g.refresh_layout();
        g
    }

    /// The WOBJ run's sections: material set, then 4 per world model.
    pub fn wobj_sections(&self) -> Vec<Vec<u8>> {
        let mut out = self.materials.sections();
        for m in &self.world_models {
            out.push(m.header.to_bytes());
            out.push(SurfaceTable::to_bytes(
                &m.surface_end_offsets,
                &m.surface_table_padding,
            ));
            let extra = m.mp3.as_ref();
            out.push(
                extra
                    .map(|x| x.mesh_info_section.clone())
                    .unwrap_or_default(),
            );
            out.push(extra.map(|x| x.unknown_section.clone()).unwrap_or_default());
        }
        out
    }

    /// The GPUD run's sections: per world model its four arrays and its surfaces.
    pub fn gpud_sections(&self) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        for m in &self.world_models {
            out.push(m.positions.to_bytes());
            out.push(m.normals.to_bytes());
            out.push(m.colors.to_bytes());
            out.push(m.uvs.to_bytes());
            for s in &m.surfaces {
                let mut w = Writer::new();
                s.write(&mut w);
                out.push(w.into_inner());
            }
        }
        out
    }

    /// What each section of both runs holds, by section index.
    pub fn section_roles(&self) -> Vec<(usize, String)> {
        let mut out = vec![(self.wobj_first, "WOBJ material_set".to_string())];
        let mut at = self.gpud_first;
        for (k, m) in self.world_models.iter().enumerate() {
            let first = self.wobj_first + 1 + WOBJ_MODEL_SECTIONS * k;
            for (i, r) in ["header", "surface_offsets", "mesh_info", "unknown"]
                .iter()
                .enumerate()
            {
                out.push((first + i, format!("WOBJ world_model_{k}.{r}")));
            }
            for r in ["positions", "normals", "colors", "float_uvs"] {
                out.push((at, format!("GPUD world_model_{k}.{r}")));
                at += 1;
            }
            for j in 0..m.surfaces.len() {
                out.push((at, format!("GPUD world_model_{k}.surface_{j}")));
                at += 1;
            }
        }
        out
    }

    /// After edits: pads arrays, surfaces, headers and the material set to 32 bytes and
    /// recomputes the surface end offsets and display-list sizes.
    pub fn refresh_layout(&mut self) {
        self.materials.repad();
        for m in &mut self.world_models {
            let pad = m.header.to_bytes().len() - m.header.padding.len();
            m.header.padding = vec![0; pad.next_multiple_of(32) - pad];
            m.positions.repad();
            m.normals.repad();
            m.colors.repad();
            m.uvs.repad();
            refresh_surface_layout(
                &mut m.surfaces,
                &mut m.surface_end_offsets,
                &mut m.surface_table_padding,
            );
            let n = m.surfaces.len();
            let fits = m
                .mp3
                .as_ref()
                .and_then(|x| x.mesh_info.as_ref())
                .is_some_and(|t| t.len() == n);
            if !fits {
                let unknown = m.mp3.take().map(|x| x.unknown_section);
                let mut fresh = Mp3ModelSections::for_surfaces(n);
                if let Some(u) = unknown {
                    fresh.unknown_section = u;
                }
                m.mp3 = Some(fresh);
            }
        }
    }

    pub fn triangle_count(&self) -> usize {
        self.world_models
            .iter()
            .map(WorldModel::triangle_count)
            .sum()
    }

    /// Normal `i` of a world model as floats.
    pub fn normal(&self, model: &WorldModel, i: usize) -> Option<[f32; 3]> {
        model.normals.get(i, self.options.short_normal_divisor)
    }
}

fn read_mesh_info(r: &mut Reader, surfaces: usize) -> Result<Vec<MeshInfo>> {
    let at = r.pos();
    let n = r.u16("mesh_info.count")?;
    r.check_count("mesh_info.count", n.into(), 4)?;
    if usize::from(n) != surfaces {
        return Err(r.err_at(
            "mesh_info.count",
            at,
            ErrorKind::Invalid(format!("{n} entries for {surfaces} surfaces")),
        ));
    }
    (0..n)
        .map(|_| {
            Ok(MeshInfo {
                unknown: r.u16("mesh_info.unknown")?,
                mesh_id: r.u16("mesh_info.mesh_id")?,
            })
        })
        .collect()
}

#[allow(clippy::too_many_arguments)]
fn parse_model(
    section: &SectionFn,
    wobj: usize,
    gpud: usize,
    limit: usize,
    layouts: &[crate::formats::cmdl::VertexLayout],
    options: &CmdlOptions,
    label: &str,
    warnings: &mut Vec<String>,
) -> Result<WorldModel> {
    let header = read_world_model_header(section(wobj)?, label, warnings)?;
    let mut tr = section(wobj + 1)?;
    let table_at = tr.abs_pos();
    let (surface_end_offsets, surface_table_padding) =
        SurfaceTable::read(&mut tr).within(|| "surface_offsets".into())?;
    let n = surface_end_offsets.len();
    // §13.9: C checked against the sections before use.
    let end = gpud as u64 + (GPUD_ARRAY_SECTIONS + n) as u64;
    if end > limit as u64 {
        return Err(FormatError::new(
            tr.file(),
            "surface_offsets.surface_count",
            table_at,
            ErrorKind::Invalid(format!(
                "{n} surfaces need GPUD sections up to {}, but the area has {limit}",
                end - 1
            )),
        ));
    }
    let mut ir = section(wobj + 2)?;
    let mesh_info_section = ir.data().to_vec();
    let mesh_info = tolerant(
        read_mesh_info(&mut ir, n).within(|| label.to_string()),
        warnings,
    );
    let unknown_section = section(wobj + 3)?.data().to_vec();

    let first_surface = gpud + GPUD_ARRAY_SECTIONS;
    let positions = AttributeArray::parse(&mut section(gpud)?);
    let mut nr = section(gpud + 1)?;
    let short = match n {
        0 => None,
        _ => normals_are_short(&section(first_surface)?),
    }
    .unwrap_or(false);
    let stride = if short { 6 } else { 12 };
    let size = nr.len();
    let padded =
        size.is_multiple_of(32) && nr.data()[size - size % stride..].iter().all(|&b| b == 0);
    if !size.is_multiple_of(stride) && !padded {
        warnings.push(warning(
            nr.file(),
            &format!("{label}.normals"),
            nr.abs_pos(),
            format!(
                "section size {size} is not a multiple of the {stride}-byte {} normals the first display list selects",
                if short { "short" } else { "float" }
            ),
        ));
    }
    let normals = Normals::parse(&mut nr, short);
    let colors = AttributeArray::parse(&mut section(gpud + 2)?);
    let uvs = AttributeArray::parse(&mut section(gpud + 3)?);
    let surface_sizes: Vec<u32> = (0..n)
        .map(|j| section(first_surface + j).map(|r| r.len() as u32))
        .collect::<Result<_>>()?;
    SurfaceTable::check(
        &surface_end_offsets,
        &surface_sizes,
        tr.file(),
        &format!("{label}.surface_offsets"),
        table_at,
        warnings,
    );
    let counts = ArrayCounts {
        positions: positions.len(),
        normals: normals.len(),
        colors: colors.len(),
        uvs: uvs.len(),
        short_uvs: 0,
    };
    let world = WorldSurface {
        game: Game::Mp3,
        layouts,
        counts: &counts,
        options,
    };
    let mut surfaces = Vec::with_capacity(n);
    for j in 0..n {
        let slabel = format!("{label}.surface[{j}]");
        surfaces.push(world.parse(section(first_surface + j)?, j, false, &slabel, warnings)?);
    }
    Ok(WorldModel {
        header,
        positions,
        normals,
        colors,
        uvs,
        short_uvs: AttributeArray::default(),
        surface_end_offsets,
        surface_table_padding,
        surfaces,
        mp2: None,
        mp3: Some(Mp3ModelSections {
            mesh_info_section,
            mesh_info,
            unknown_section,
        }),
    })
}

// ------------------------------------------------------------------------------------------------
// DEPS

/// One dependency: an asset and its type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Dependency {
    pub id: u64,
    pub kind: FourCc,
}

/// The `DEPS` section (§13.8): the room's assets, per script layer and area-wide.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Dependencies {
    /// Its section index.
    pub index: u32,
    pub entries: Vec<Dependency>,
    /// Entry index where each layer starts; the last start begins the area-wide entries.
    pub layer_starts: Vec<u32>,
    /// Bytes after the table, verbatim.
    pub padding: Vec<u8>,
}

impl Dependencies {
    /// Reads the section (`r` spans exactly it). Starts past the entries or going backwards
    /// are warnings (the layers are clamped).
    pub fn parse(r: &mut Reader, index: u32, warnings: &mut Vec<String>) -> Result<Self> {
        let n = r.count("DEPS.count", 12)?;
        let entries = (0..n)
            .map(|_| {
                Ok(Dependency {
                    id: r.u64("DEPS.asset_id")?,
                    kind: FourCc(r.fourcc("DEPS.type")?),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let starts_at = r.abs_pos();
        let k = r.count("DEPS.layer_start_count", 4)?;
        let layer_starts = r.u32_vec("DEPS.layer_starts", k)?;
        // As `ranges` clamps them.
        let mut previous = 0usize;
        for (i, &s) in layer_starts.iter().enumerate() {
            let clamped = (s as usize).clamp(previous, n);
            if clamped != s as usize {
                warnings.push(warning(
                    r.file(),
                    &format!("DEPS.layer_starts[{i}]"),
                    starts_at + 4 + 4 * i as u64,
                    format!("start {s} is not between {previous} and the {n} entries; clamped"),
                ));
            }
            previous = clamped;
        }
        let padding = r.rest().to_vec();
        let _ = r.seek("end", r.len());
        Ok(Self {
            index,
            entries,
            layer_starts,
            padding,
        })
    }

    /// A new table: `layers[i]` are layer i's assets, `area_wide` the rest.
    pub fn new(index: u32, layers: &[Vec<Dependency>], area_wide: &[Dependency]) -> Self {
        let mut entries = Vec::new();
        let mut layer_starts = Vec::new();
        for l in layers.iter().map(Vec::as_slice).chain([area_wide]) {
            layer_starts.push(entries.len() as u32);
            entries.extend_from_slice(l);
        }
        let mut d = Self {
            index,
            entries,
            layer_starts,
            padding: Vec::new(),
        };
        let len = d.to_bytes().len();
        d.padding = vec![0; len.next_multiple_of(32) - len];
        d
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(self.entries.len() as u32);
        for e in &self.entries {
            w.u64(e.id);
            w.bytes(&e.kind.0);
        }
        w.u32(self.layer_starts.len() as u32);
        self.layer_starts.iter().for_each(|&s| w.u32(s));
        w.bytes(&self.padding);
        w.into_inner()
    }

    /// The entries of each layer (starts clamped into range and made non-decreasing).
    pub fn layers(&self) -> Vec<&[Dependency]> {
        self.ranges()
            .into_iter()
            .take(self.layer_starts.len().saturating_sub(1))
            .map(|r| &self.entries[r])
            .collect()
    }

    /// The entries after the last start (loaded whatever the layers).
    pub fn area_wide(&self) -> &[Dependency] {
        match self.ranges().last() {
            Some(r) if !self.layer_starts.is_empty() => &self.entries[r.clone()],
            _ => &self.entries,
        }
    }

    fn ranges(&self) -> Vec<std::ops::Range<usize>> {
        let n = self.entries.len();
        let mut clamped = Vec::with_capacity(self.layer_starts.len());
        let mut previous = 0;
        for &s in &self.layer_starts {
            previous = (s as usize).clamp(previous, n);
            clamped.push(previous);
        }
        clamped
            .iter()
            .enumerate()
            .map(|(i, &s)| s..clamped.get(i + 1).copied().unwrap_or(n))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::room_mp3::{build_mp3_room, room_dependencies, room_geometry, room_lights};
    use crate::formats::mrea::{Mrea, parse_mrea, write_mp3_area};

    fn room() -> Mrea {
        let bytes = build_mp3_room().expect("builds").mrea;
        parse_mrea(&bytes, "room.MREA").expect("parses")
    }

    /// Writes an edited area and parses it again.
    fn rewrite(m: &Mrea) -> crate::formats::error::Result<Mrea> {
        parse_mrea(&m.to_bytes().expect("writes"), "edited.MREA")
    }

    #[test]
    fn a_surface_count_past_the_gpud_sections_is_an_error_naming_the_table() {
        let mut m = room();
        let g = m.mp3_geometry.as_mut().expect("geometry");
        g.world_models[2].surface_end_offsets.extend([0; 20]);
        g.world_models[2].surface_table_padding.clear();
        let e = rewrite(&m).expect_err("too many surfaces");
        assert_eq!(e.file, "edited.MREA [decompressed block 0]");
        assert_eq!(e.field, "world_model[2].surface_offsets.surface_count");
        // World model 2's surface table: section 1 + 4·2 + 1 of the WOBJ run.
        assert_eq!(e.offset, m.data_section_offsets[10]);
    }

    #[test]
    fn odd_tables_are_warnings_and_the_sections_win() {
        let mut m = room();
        let g = m.mp3_geometry.as_mut().expect("geometry");
        g.world_models[0].surface_end_offsets[0] += 32;
        let mut info = g.world_models[1].mp3.clone().expect("mp3 sections");
        info.mesh_info_section[1] = 9; // count 9 for 1 surface
        g.world_models[1].mp3 = Some(info);
        m.dependencies.as_mut().expect("DEPS").layer_starts[2] = 1;
        let got = rewrite(&m).expect("odd values still load");
        let w = got.warnings.join("\n");
        assert!(
            w.contains("world_model[0].surface_offsets.end_offsets[0]"),
            "{w}"
        );
        assert!(w.contains("world_model[1].mesh_info.count"), "{w}");
        assert!(w.contains("DEPS.layer_starts[2]"), "{w}");
        assert_eq!(got.warnings.len(), 3, "{w}");
        let g = got.mp3_geometry.as_ref().expect("geometry");
        assert!(
            g.world_models[1]
                .mp3
                .as_ref()
                .expect("mp3")
                .mesh_info
                .is_none()
        );
        assert_eq!(g.triangle_count(), 290);
        // Clamped: layer 1 is empty, the area-wide entries start where it does.
        let d = got.dependencies.as_ref().expect("DEPS");
        assert_eq!(d.layers()[1].len(), 0);
        assert_eq!(d.area_wide().len(), 3);
        assert_eq!(
            got.to_bytes().expect("writes"),
            m.to_bytes().expect("writes")
        );
    }

    #[test]
    fn short_normals_follow_the_first_display_list_and_a_bad_size_warns() {
        let mut g = room_geometry().expect("geometry");
        // s16/16384 normals: the builder's vertex format 1 (§13.8 Default).
        let m = &mut g.world_models[0];
        let Normals::Float(f) = &m.normals else {
            panic!("float normals")
        };
        let short: Vec<[i16; 3]> = f
            .values
            .iter()
            .map(|n| n.map(|c| (c * 16384.0) as i16))
            .collect();
        m.normals = Normals::Short(AttributeArray {
            values: short,
            remainder: Vec::new(),
        });
        for s in &mut m.surfaces {
            // Vertex format 1 in every primitive's opcode byte.
            let mut at = 0;
            for p in &s.mesh.primitives {
                let _ = p;
                s.display_list[at] |= 1;
                at += 3 + p.vertices.len() * s.mesh.layout.vertex_size().unwrap_or(0);
            }
        }
        g.refresh_layout();
        let bytes = write_mp3_area(&g, &room_dependencies(), &room_lights()).expect("writes");
        let m = parse_mrea(&bytes, "short.MREA").expect("parses");
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        let got = m.mp3_geometry.as_ref().expect("geometry");
        assert!(matches!(got.world_models[0].normals, Normals::Short(_)));
        assert_eq!(got.normal(&got.world_models[0], 0), Some([0.0, 0.0, 1.0]));
        assert_eq!(m.to_bytes().expect("writes"), bytes);
        // Short normals whose section is not a whole number of 6-byte entries nor zero
        // padding to 32: a warning, and the whole entries are read.
        let mut odd = m.clone();
        let wm = &mut odd.mp3_geometry.as_mut().expect("geometry").world_models[0];
        if let Normals::Short(a) = &mut wm.normals {
            a.remainder = vec![1, 2, 3];
        }
        let again = rewrite(&odd).expect("parses");
        assert!(
            again
                .warnings
                .iter()
                .any(|w| w.contains("world_model[0].normals")),
            "{:?}",
            again.warnings
        );
    }

    #[test]
    fn new_areas_need_mp3_lights_and_a_fresh_layout() {
        let g = room_geometry().expect("geometry");
        let mut lights = room_lights();
        lights.layers.pop();
        assert!(write_mp3_area(&g, &room_dependencies(), &lights).is_err());
        let mut moved = g.clone();
        moved.gpud_first += 1;
        assert!(write_mp3_area(&moved, &room_dependencies(), &room_lights()).is_err());
    }

    /// Writes `m`, parses it again and checks what an edit that adds or removes sections
    /// must keep: the geometry as edited, DEPS, the lights, the section-ID table naming
    /// the same sections, and a second write giving the same bytes.
    fn round_trip(m: &Mrea) -> Mrea {
        let bytes = m.to_bytes().expect("writes");
        let got = parse_mrea(&bytes, "edited.MREA").expect("parses");
        assert!(got.warnings.is_empty(), "{:?}", got.warnings);
        let (a, b) = (
            got.mp3_geometry.as_ref().expect("geometry"),
            m.mp3_geometry.as_ref().expect("geometry"),
        );
        assert_eq!(a.world_models, b.world_models);
        assert_eq!(a.materials, b.materials);
        let deps = |m: &Mrea| m.dependencies.as_ref().map(Dependencies::to_bytes);
        assert_eq!(deps(&got), deps(m));
        assert_eq!(
            format!("{:?}", got.lights_section),
            format!("{:?}", m.lights_section)
        );
        let names = |m: &Mrea| -> Vec<String> {
            let roles = m.section_roles();
            m.section_index
                .iter()
                .map(|s| format!("{} {}", s.name, roles[s.index as usize]))
                .collect()
        };
        assert_eq!(
            names(&got),
            names(&room()),
            "the IDs name the same sections"
        );
        assert_eq!(got.to_bytes().expect("writes again"), bytes);
        got
    }

    #[test]
    fn an_area_that_loses_a_surface_is_written_and_reads_back() {
        let before = room();
        let mut m = before.clone();
        let g = m.mp3_geometry.as_mut().expect("geometry");
        g.world_models[2].surfaces.pop();
        g.refresh_layout();
        let got = round_trip(&m);
        assert_eq!(
            got.data_section_count,
            before.data_section_count - 1,
            "one GPUD section fewer"
        );
        let section = |m: &Mrea, name: &str| {
            m.section_index
                .iter()
                .find(|s| s.name == name)
                .map(|s| s.index)
        };
        // DEPS and LITE follow GPUD: one index lower; WOBJ and GPUD stay.
        for name in ["DEPS", "LITE"] {
            assert_eq!(section(&got, name), section(&before, name).map(|i| i - 1));
        }
        for name in ["WOBJ", "GPUD"] {
            assert_eq!(section(&got, name), section(&before, name));
        }
    }

    #[test]
    fn an_area_that_gains_a_surface_or_loses_a_world_model_is_written_and_reads_back() {
        let before = room();
        let mut m = before.clone();
        let g = m.mp3_geometry.as_mut().expect("geometry");
        let copy = g.world_models[0].surfaces[0].clone();
        g.world_models[0].surfaces.push(copy);
        g.refresh_layout();
        let triangles = g.triangle_count();
        let got = round_trip(&m);
        assert_eq!(got.data_section_count, before.data_section_count + 1);
        assert_eq!(
            got.mp3_geometry
                .as_ref()
                .expect("geometry")
                .triangle_count(),
            triangles
        );
        // Both runs shrink: WOBJ by 4 sections, GPUD by 4 + the model's surfaces.
        let mut m = before.clone();
        let g = m.mp3_geometry.as_mut().expect("geometry");
        let gone = g.world_models.remove(1);
        g.refresh_layout();
        let got = round_trip(&m);
        assert_eq!(
            got.data_section_count,
            before.data_section_count - 8 - gone.surfaces.len() as u32
        );
        assert_eq!(got.world_model_count, before.world_model_count - 1);
    }
}
