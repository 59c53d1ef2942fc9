//! MREA world geometry (MP1 and MP2), `formats.md` §9.5: the area material set, the world
//! models with their vertex arrays and surfaces, and the extra MP2 sections.
//!
//! Surfaces, vertex arrays and display lists are the CMDL ones ([`crate::formats::cmdl`]);
//! only the section walk and the world-model header are area-specific. Every section is kept
//! so that [`WorldGeometry::section_bytes`] reproduces the run byte for byte.

use serde::Serialize;

use crate::formats::Game;
use crate::formats::cmdl::{
    Aabb, ArrayCounts, AttributeArray, Cmdl, CmdlOptions, Normals, Surface, SurfaceTable,
    material_layouts, refresh_surface_layout,
};
use crate::formats::error::{ErrorKind, FormatError, Result};
use crate::formats::material::{MaterialSet, Within, warning};
use crate::formats::reader::{Reader, Writer};

/// Bytes of a world-model header that carry fields (the section is padded to 0x60).
pub const WORLD_MODEL_HEADER_SIZE: usize = 0x4C;
/// Sections of a world model besides its surfaces: header, five arrays, surface table.
pub const FIXED_MODEL_SECTIONS: usize = 7;
/// Extra MP2 sections after each world model's surfaces (§9.5.7).
pub const MP2_MODEL_SECTIONS: usize = 2;
/// Extra MP2 sections after the last world model: AROT and surface-group bounds (§9.5.7).
pub const MP2_TAIL_SECTIONS: usize = 2;

/// Visor-flag bits (§9.5.4).
pub mod visor {
    /// Normals are 3×s16 (stride 6).
    pub const SHORT_NORMALS: u32 = 0x1;
    /// Not drawn in the combat and scan visors.
    pub const HIDDEN_COMBAT_SCAN: u32 = 0x2;
    pub const HIDDEN_THERMAL: u32 = 0x4;
    pub const HIDDEN_XRAY: u32 = 0x8;
    /// Thermal level: 0 cool, 1 hot, 2 warm.
    pub const THERMAL_LEVEL_SHIFT: u32 = 4;
}

/// Section 0 of a world model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorldModelHeader {
    pub visor_flags: u32,
    /// 3 rows × 4, row-major; the game never applies it (§9.5.6).
    pub transform: [f32; 12],
    /// World-space bounds.
    pub aabb: Aabb,
    /// Bytes after the 0x4C bytes of fields (zero padding to 0x60), kept verbatim.
    pub padding: Vec<u8>,
}

impl WorldModelHeader {
    pub fn short_normals(&self) -> bool {
        self.visor_flags & visor::SHORT_NORMALS != 0
    }
    /// Hidden in the combat visor (the Default view, §9.5.4).
    pub fn hidden_in_combat(&self) -> bool {
        self.visor_flags & visor::HIDDEN_COMBAT_SCAN != 0
    }
    pub fn thermal_level(&self) -> u32 {
        (self.visor_flags >> visor::THERMAL_LEVEL_SHIFT) & 3
    }
    /// The transform as 3 rows of 4.
    pub fn rows(&self) -> [[f32; 4]; 3] {
        std::array::from_fn(|r| std::array::from_fn(|c| self.transform[4 * r + c]))
    }

    pub(crate) fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(self.visor_flags);
        self.transform.iter().for_each(|&x| w.f32(x));
        self.aabb.write(&mut w);
        w.bytes(&self.padding);
        w.into_inner()
    }
}

/// [MP2] Surface lookup table section (§9.5.7 item 2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SurfaceLookupTable {
    pub surface_group_count: u16,
    pub lookup_table_index_array: Vec<u16>,
    pub surface_lookup_table: Vec<u16>,
}

/// [MP2] The two sections after a world model's surfaces. The raw bytes are what is
/// written; the decoded views are None (with a warning) when a section does not fit the
/// layout the sources give.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mp2ModelSections {
    pub surface_group_ids_section: Vec<u8>,
    pub lookup_table_section: Vec<u8>,
    /// (model-relative id, area-relative id) per surface.
    pub surface_group_ids: Option<Vec<[u16; 2]>>,
    pub lookup_table: Option<SurfaceLookupTable>,
}

/// [MP2] One record of the surface-group bounds section.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SurfaceGroupBounds {
    pub aabb: Aabb,
    pub world_model_index: u16,
    pub surface_group_index: u16,
    pub unk1_s16: i16,
    pub unk2_s16: i16,
}

/// [MP2] The sections after the last world model, still inside the geometry run.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mp2GeometryTail {
    /// The area octree (same layout as MP1's AROT section), verbatim.
    pub area_octree: Vec<u8>,
    pub surface_group_bounds_section: Vec<u8>,
    pub surface_group_bounds: Option<Vec<SurfaceGroupBounds>>,
}

/// One world model (§9.5.3).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorldModel {
    pub header: WorldModelHeader,
    pub positions: AttributeArray<[f32; 3]>,
    /// Short when visor bit 0 is set (÷16384), else float.
    pub normals: Normals,
    pub colors: AttributeArray<[u8; 4]>,
    pub uvs: AttributeArray<[f32; 2]>,
    /// Raw u16 pairs (÷32768); always a section in areas, possibly empty.
    pub short_uvs: AttributeArray<[u16; 2]>,
    pub surface_end_offsets: Vec<u32>,
    pub surface_table_padding: Vec<u8>,
    pub surfaces: Vec<Surface>,
    pub mp2: Option<Mp2ModelSections>,
    /// MP3: the mesh-info table and the unknown WOBJ section (§13.8).
    pub mp3: Option<super::mp3_sections::Mp3ModelSections>,
}

impl WorldModel {
    /// A world model made of a model's arrays and surfaces (rooms built by tevscope's own
    /// writers): identity transform, bounds from the positions, each surface's bounds as its
    /// extra data (§9.5.8). Visor bit 0 follows the model's normal format. Call
    /// [`WorldGeometry::refresh_layout`] before writing.
    pub fn from_cmdl(cmdl: &Cmdl, visor_flags: u32) -> WorldModel {
        let short = matches!(cmdl.normals, Normals::Short(_));
        let mut surfaces = cmdl.surfaces.clone();
        for s in &mut surfaces {
            let mut w = Writer::new();
            cmdl.surface_aabb(s).unwrap_or_default().write(&mut w);
            s.extra_data = w.into_inner();
        }
        WorldModel {
            header: WorldModelHeader {
                visor_flags: (visor_flags & !visor::SHORT_NORMALS) | u32::from(short),
                transform: [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.],
                // The referenced positions only: the array's padding reads as extra zeros.
                aabb: Aabb::from_points(cmdl.surfaces.iter().flat_map(|s| {
                    s.mesh
                        .vertices
                        .iter()
                        .filter_map(|v| cmdl.positions.values.get(usize::from(v.position)).copied())
                }))
                .unwrap_or_default(),
                padding: Vec::new(),
            },
            positions: cmdl.positions.clone(),
            normals: cmdl.normals.clone(),
            colors: cmdl.colors.clone(),
            uvs: cmdl.uvs.clone(),
            short_uvs: cmdl.short_uvs.clone().unwrap_or_default(),
            surface_end_offsets: Vec::new(),
            surface_table_padding: Vec::new(),
            surfaces,
            mp2: None,
            mp3: None,
        }
    }

    /// Number of data sections the model occupies.
    pub fn section_count(&self) -> usize {
        FIXED_MODEL_SECTIONS
            + self.surfaces.len()
            + if self.mp2.is_some() {
                MP2_MODEL_SECTIONS
            } else {
                0
            }
    }

    pub fn array_counts(&self) -> ArrayCounts {
        ArrayCounts {
            positions: self.positions.len(),
            normals: self.normals.len(),
            colors: self.colors.len(),
            uvs: self.uvs.len(),
            short_uvs: self.short_uvs.len(),
        }
    }

    pub fn triangle_count(&self) -> usize {
        self.surfaces.iter().map(|s| s.mesh.triangles.len()).sum()
    }

    /// Section roles (`header`, `positions`, …, `surface_0`, …), in file order.
    pub fn section_roles(&self) -> Vec<String> {
        let mut roles: Vec<String> = [
            "header",
            "positions",
            "normals",
            "colors",
            "float_uvs",
            "short_uvs",
            "surface_offsets",
        ]
        .map(String::from)
        .into();
        roles.extend((0..self.surfaces.len()).map(|j| format!("surface_{j}")));
        if self.mp2.is_some() {
            roles.push("mp2_surface_group_ids".into());
            roles.push("mp2_surface_lookup_table".into());
        }
        roles
    }

    /// Section bytes, in the order of [`WorldModel::section_roles`].
    fn section_bytes(&self, out: &mut Vec<Vec<u8>>) {
        out.push(self.header.to_bytes());
        out.push(self.positions.to_bytes());
        out.push(self.normals.to_bytes());
        out.push(self.colors.to_bytes());
        out.push(self.uvs.to_bytes());
        out.push(self.short_uvs.to_bytes());
        out.push(SurfaceTable::to_bytes(
            &self.surface_end_offsets,
            &self.surface_table_padding,
        ));
        for s in &self.surfaces {
            let mut w = Writer::new();
            s.write(&mut w);
            out.push(w.into_inner());
        }
        if let Some(m) = &self.mp2 {
            out.push(m.surface_group_ids_section.clone());
            out.push(m.lookup_table_section.clone());
        }
    }
}

/// The world geometry run of an area (§9.5).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WorldGeometry {
    pub game: Game,
    /// Index of the first section (the material set); 0 in every known file.
    pub first_section: usize,
    pub material_set: MaterialSet,
    pub world_models: Vec<WorldModel>,
    /// MP2 only.
    pub mp2_tail: Option<Mp2GeometryTail>,
    /// Scales for short normals and UVs.
    #[serde(skip)]
    pub options: CmdlOptions,
}

/// Where the geometry run starts and how far it may go.
#[derive(Debug, Clone, Copy)]
pub(crate) struct GeometryRun {
    pub game: Game,
    /// Index of the material-set section.
    pub first: usize,
    /// From the area header.
    pub world_model_count: u32,
    /// Sections the run may use (the area's section count).
    pub limit: usize,
}

/// A section's bytes as a reader whose errors and warnings carry meaningful offsets.
pub(crate) type SectionFn<'s, 'a> = dyn Fn(usize) -> Result<Reader<'a>> + 's;

impl WorldGeometry {
    /// Parses the run `run` describes (see §9.5.1). `section(i)` gives section `i`; `file`
    /// names the area for errors about its header.
    pub(crate) fn parse(
        file: &str,
        section: &SectionFn,
        run: GeometryRun,
        options: &CmdlOptions,
        warnings: &mut Vec<String>,
    ) -> Result<WorldGeometry> {
        let GeometryRun {
            game,
            first,
            world_model_count,
            limit,
        } = run;
        let mp2 = game == Game::Mp2;
        let mut sr = section(first)?;
        let set_offset = sr.abs_pos();
        let material_set =
            MaterialSet::parse(&mut sr, game, &options.material, "material_set", warnings)?;
        let per_model = FIXED_MODEL_SECTIONS + if mp2 { MP2_MODEL_SECTIONS } else { 0 };
        let available = limit.saturating_sub(first + 1);
        if (world_model_count as u64) * per_model as u64 > available as u64 {
            return Err(FormatError::new(
                file,
                "world_model_count",
                0x38,
                ErrorKind::CountTooLarge {
                    count: world_model_count.into(),
                    element_size: per_model as u64,
                    remaining: available as u64,
                },
            ));
        }
        // Every area has the short-UV section, so lightmapped materials read it (§9.5.3).
        let layouts = material_layouts(
            &material_set,
            true,
            options,
            sr.file(),
            set_offset,
            warnings,
        );
        let mut at = first + 1;
        let mut world_models = Vec::with_capacity(world_model_count as usize);
        for k in 0..world_model_count as usize {
            let label = format!("world_model[{k}]");
            let model = parse_world_model(
                section, game, at, limit, &layouts, options, &label, warnings,
            )
            .within(|| label.clone())?;
            at += model.section_count();
            world_models.push(model);
        }
        let mp2_tail = if mp2 {
            if at + MP2_TAIL_SECTIONS > limit {
                return Err(FormatError::new(
                    file,
                    "data_section_count",
                    0x40,
                    ErrorKind::Invalid(format!(
                        "the area octree and surface-group bounds after the world models need sections {at} and {}, but there are {limit}",
                        at + 1
                    )),
                ));
            }
            let area_octree = section(at)?.data().to_vec();
            let mut br = section(at + 1)?;
            let bounds_section = br.data().to_vec();
            let surface_group_bounds = tolerant(read_bounds(&mut br), warnings);
            Some(Mp2GeometryTail {
                area_octree,
                surface_group_bounds_section: bounds_section,
                surface_group_bounds,
            })
        } else {
            None
        };
        Ok(WorldGeometry {
            game,
            first_section: first,
            material_set,
            world_models,
            mp2_tail,
            options: *options,
        })
    }

    /// MP1 geometry from a material set and world models (see [`WorldModel::from_cmdl`]),
    /// laid out for writing.
    pub fn new_mp1(material_set: MaterialSet, world_models: Vec<WorldModel>) -> WorldGeometry {
        let mut g = WorldGeometry {
            game: Game::Mp1,
            first_section: 0,
            material_set,
            world_models,
            mp2_tail: None,
            options: CmdlOptions::default(),
        };
        g.refresh_layout();
        g
    }

    /// Number of data sections in the run.
    pub fn section_count(&self) -> usize {
        1 + self
            .world_models
            .iter()
            .map(WorldModel::section_count)
            .sum::<usize>()
            + if self.mp2_tail.is_some() {
                MP2_TAIL_SECTIONS
            } else {
                0
            }
    }

    /// The role of every section of the run: `material_set`, `world_model_0.header`, …,
    /// and for MP2 `area_octree`, `surface_group_bounds`.
    pub fn section_roles(&self) -> Vec<String> {
        let mut out = vec!["material_set".to_string()];
        for (k, m) in self.world_models.iter().enumerate() {
            out.extend(
                m.section_roles()
                    .into_iter()
                    .map(|r| format!("world_model_{k}.{r}")),
            );
        }
        if self.mp2_tail.is_some() {
            out.push("area_octree".into());
            out.push("surface_group_bounds".into());
        }
        out
    }

    /// Every section of the run as the writer stores it, in the order of
    /// [`WorldGeometry::section_roles`].
    pub fn section_bytes(&self) -> Vec<Vec<u8>> {
        let mut out = vec![self.material_set.to_bytes()];
        for m in &self.world_models {
            m.section_bytes(&mut out);
        }
        if let Some(t) = &self.mp2_tail {
            out.push(t.area_octree.clone());
            out.push(t.surface_group_bounds_section.clone());
        }
        out
    }

    /// After edits: pads arrays, surfaces and the material set to 32 bytes and recomputes
    /// surface end offsets, display-list sizes and UV-animation block sizes.
    pub fn refresh_layout(&mut self) {
        self.material_set
            .materials
            .iter_mut()
            .for_each(|m| m.refresh_uv_block());
        self.material_set.repad();
        for m in &mut self.world_models {
            let pad = m.header.to_bytes().len() - m.header.padding.len();
            m.header.padding = vec![0; pad.next_multiple_of(32) - pad];
            m.positions.repad();
            m.normals.repad();
            m.colors.repad();
            m.uvs.repad();
            m.short_uvs.repad();
            refresh_surface_layout(
                &mut m.surfaces,
                &mut m.surface_end_offsets,
                &mut m.surface_table_padding,
            );
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

/// A decoded view of an unknown-meaning section: None with a warning when it does not parse.
pub(crate) fn tolerant<T>(r: Result<T>, warnings: &mut Vec<String>) -> Option<T> {
    match r {
        Ok(v) => Some(v),
        Err(e) => {
            warnings.push(format!("{e} (section kept verbatim)"));
            None
        }
    }
}

fn read_group_ids(r: &mut Reader) -> Result<Vec<[u16; 2]>> {
    let n = r.u16("surface_group_ids.count")?;
    r.check_count("surface_group_ids.count", n.into(), 4)?;
    (0..n)
        .map(|_| {
            Ok([
                r.u16("surface_group_ids.id")?,
                r.u16("surface_group_ids.id")?,
            ])
        })
        .collect()
}

fn read_lookup(r: &mut Reader, surfaces: usize) -> Result<SurfaceLookupTable> {
    let g = r.u16("surface_lookup_table.group_count")?;
    r.check_count(
        "surface_lookup_table.group_count",
        u64::from(g) + surfaces as u64,
        2,
    )?;
    let mut read = |n: usize, field: &str| (0..n).map(|_| r.u16(field)).collect::<Result<Vec<_>>>();
    Ok(SurfaceLookupTable {
        surface_group_count: g,
        lookup_table_index_array: read(g.into(), "surface_lookup_table.index")?,
        surface_lookup_table: read(surfaces, "surface_lookup_table.surface")?,
    })
}

fn read_bounds(r: &mut Reader) -> Result<Vec<SurfaceGroupBounds>> {
    let n = r.count("surface_group_bounds.count", 32)?;
    (0..n)
        .map(|_| {
            Ok(SurfaceGroupBounds {
                aabb: Aabb::read(r, "surface_group_bounds.aabb")?,
                world_model_index: r.u16("surface_group_bounds.world_model_index")?,
                surface_group_index: r.u16("surface_group_bounds.surface_group_index")?,
                unk1_s16: r.i16("surface_group_bounds.unk1")?,
                unk2_s16: r.i16("surface_group_bounds.unk2")?,
            })
        })
        .collect()
}

pub(crate) fn check_aabb(
    aabb: &Aabb,
    file: &str,
    field: &str,
    at: u64,
    warnings: &mut Vec<String>,
) {
    let finite = aabb.min.iter().chain(&aabb.max).all(|x| x.is_finite());
    if !finite || (0..3).any(|k| aabb.min[k] > aabb.max[k]) {
        warnings.push(warning(
            file,
            field,
            at,
            format!(
                "bounds {:?}–{:?} are not finite with min ≤ max",
                aabb.min, aabb.max
            ),
        ));
    }
}

/// Reads a world model's header section (`formats.md` §9.5.3, and §13.8 for MP3): visor
/// flags, transform, bounds (checked, a warning when odd) and the padding kept verbatim.
pub(crate) fn read_world_model_header(
    mut hr: Reader<'_>,
    label: &str,
    warnings: &mut Vec<String>,
) -> Result<WorldModelHeader> {
    if hr.len() < WORLD_MODEL_HEADER_SIZE {
        return Err(hr.err(
            "header",
            ErrorKind::Truncated {
                needed: WORLD_MODEL_HEADER_SIZE as u64,
                available: hr.len() as u64,
            },
        ));
    }
    let visor_flags = hr.u32("header.visor_flags")?;
    let mut transform = [0f32; 12];
    for x in &mut transform {
        *x = hr.f32("header.transform")?;
    }
    let aabb_at = hr.abs_pos();
    let aabb = Aabb::read(&mut hr, "header.aabb")?;
    let field = format!("{label}.header.aabb");
    check_aabb(&aabb, hr.file(), &field, aabb_at, warnings);
    Ok(WorldModelHeader {
        visor_flags,
        transform,
        aabb,
        padding: hr.rest().to_vec(),
    })
}

/// What every surface of one world model is read with (all games).
pub(crate) struct WorldSurface<'m> {
    pub game: Game,
    pub layouts: &'m [crate::formats::cmdl::VertexLayout],
    pub counts: &'m ArrayCounts,
    pub options: &'m CmdlOptions,
}

impl WorldSurface<'_> {
    /// Surface `index` from its section: a display list that stops early is an error under
    /// `strict_display_lists`, else a warning; its stored bounds are checked.
    pub(crate) fn parse(
        &self,
        mut sr: Reader<'_>,
        index: usize,
        short_uvs: bool,
        slabel: &str,
        warnings: &mut Vec<String>,
    ) -> Result<Surface> {
        let surface_at = sr.abs_pos();
        let surface = Surface::parse(
            &mut sr,
            self.game,
            self.layouts,
            self.counts,
            short_uvs,
            self.options,
            slabel,
            warnings,
        )
        .within(|| format!("surface[{index}]"))?;
        if let Some(e) = &surface.mesh.error {
            if self.options.strict_display_lists {
                return Err(e.clone());
            }
            warnings.push(format!("{e} (surface decoding stopped there)"));
        }
        if let Some(b) = surface.stored_aabb() {
            let field = format!("{slabel}.extra_data.aabb");
            let at = surface_at + surface.header_size() as u64;
            check_aabb(&b, sr.file(), &field, at, warnings);
        }
        Ok(surface)
    }
}

#[allow(clippy::too_many_arguments)]
fn parse_world_model(
    section: &SectionFn,
    game: Game,
    first: usize,
    limit: usize,
    layouts: &[crate::formats::cmdl::VertexLayout],
    options: &CmdlOptions,
    label: &str,
    warnings: &mut Vec<String>,
) -> Result<WorldModel> {
    let header = read_world_model_header(section(first)?, label, warnings)?;
    let positions = AttributeArray::parse(&mut section(first + 1)?);
    let normals = Normals::parse(&mut section(first + 2)?, header.short_normals());
    let colors = AttributeArray::parse(&mut section(first + 3)?);
    let uvs = AttributeArray::parse(&mut section(first + 4)?);
    let short_uvs = AttributeArray::parse(&mut section(first + 5)?);
    let mut tr = section(first + 6)?;
    let table_at = tr.abs_pos();
    let (surface_end_offsets, surface_table_padding) =
        SurfaceTable::read(&mut tr).within(|| "surface_offsets".into())?;
    let n = surface_end_offsets.len();
    let extra = if game == Game::Mp2 {
        MP2_MODEL_SECTIONS
    } else {
        0
    };
    let end = first + FIXED_MODEL_SECTIONS + n + extra;
    if end > limit {
        return Err(FormatError::new(
            tr.file(),
            "surface_offsets.surface_count",
            table_at,
            ErrorKind::Invalid(format!(
                "{n} surfaces need sections up to {}, but the area has {limit}",
                end - 1
            )),
        ));
    }
    let surface_sizes: Vec<u32> = (0..n)
        .map(|j| section(first + FIXED_MODEL_SECTIONS + j).map(|r| r.len() as u32))
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
        short_uvs: short_uvs.len(),
    };
    let world = WorldSurface {
        game,
        layouts,
        counts: &counts,
        options,
    };
    let mut surfaces = Vec::with_capacity(n);
    let mut vat_warned = false;
    for j in 0..n {
        let sr = section(first + FIXED_MODEL_SECTIONS + j)?;
        let (surface_at, file) = (sr.abs_pos(), sr.file());
        let slabel = format!("{label}.surface[{j}]");
        let surface = world.parse(sr, j, true, &slabel, warnings)?;
        // §9.5.5 cross-check: short normals go with VAT 1/2, float normals with VAT 0.
        let bad = surface
            .mesh
            .primitives
            .iter()
            .find(|p| (p.vertex_format != 0) != header.short_normals());
        if let (Some(p), false) = (bad, vat_warned) {
            vat_warned = true;
            warnings.push(warning(
                file,
                &format!("{slabel}.display_list"),
                surface_at + (surface.display_list_start() + p.offset) as u64,
                format!(
                    "vertex format {} does not match the {} normals of visor flags {:#x}; following the visor flags",
                    p.vertex_format,
                    if header.short_normals() { "short" } else { "float" },
                    header.visor_flags
                ),
            ));
        }
        surfaces.push(surface);
    }
    let mp2 = if game == Game::Mp2 {
        let at = first + FIXED_MODEL_SECTIONS + n;
        let mut gr = section(at)?;
        let mut lr = section(at + 1)?;
        let ids = tolerant(read_group_ids(&mut gr), warnings);
        let lookup = tolerant(read_lookup(&mut lr, n), warnings);
        Some(Mp2ModelSections {
            surface_group_ids_section: gr.data().to_vec(),
            lookup_table_section: lr.data().to_vec(),
            surface_group_ids: ids,
            lookup_table: lookup,
        })
    } else {
        None
    };
    Ok(WorldModel {
        header,
        positions,
        normals,
        colors,
        uvs,
        short_uvs,
        surface_end_offsets,
        surface_table_padding,
        surfaces,
        mp2,
        mp3: None,
    })
}
