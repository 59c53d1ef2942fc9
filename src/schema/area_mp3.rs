//! `info` on MP3 areas: the world geometry of the WOBJ and GPUD runs and the `DEPS` layers
//! (`formats.md` §13.8), beside [`super::area`]'s layout and light report. Materials are
//! reported as for an MP3 CMDL ([`Mp3MaterialSetInfo`], with each material's `gx` block);
//! surfaces as an MP3 CMDL's ([`Mp3SurfaceInfo`]).

use std::fmt::Write as _;

use serde::Serialize;

use super::cmdl_mp3::{Mp3MaterialSetInfo, Mp3SurfaceInfo};
use super::{AabbInfo, f64s};
use crate::formats::asset_id_string;
use crate::formats::cmdl::Normals;
use crate::formats::mrea::mp3::{GPUD_ARRAY_SECTIONS, MeshInfo, WOBJ_MODEL_SECTIONS};
use crate::formats::mrea::{Dependencies, Dependency, Mp3Geometry, WorldModel};

#[derive(Serialize)]
pub struct Mp3GeometryReport {
    pub wobj_section_index: usize,
    pub gpud_section_index: usize,
    /// The area's one MP3 material set (WOBJ section 0).
    pub material_set: Mp3MaterialSetInfo,
    pub world_model_count: usize,
    pub world_models: Vec<Mp3WorldModelReport>,
    pub triangle_count: usize,
}

#[derive(Serialize)]
pub struct Mp3WorldModelReport {
    pub index: usize,
    /// Header, surface offsets, mesh info, unknown.
    pub wobj_section_indices: [usize; 4],
    /// Positions, normals, colours, UVs, then the surfaces.
    pub gpud_first_section_index: usize,
    pub gpud_section_count: usize,
    /// Reported, not applied: no source uses MP3 visor flags or the transform (§13.8).
    pub visor_flags: u32,
    pub transform_rows_3x4: [[f64; 4]; 3],
    pub aabb: AabbInfo,
    /// As the first display list's vertex format selects it (§13.8 Default).
    pub normal_format: &'static str,
    pub position_count: usize,
    pub normal_count: usize,
    pub color_count: usize,
    pub float_uv_count: usize,
    pub positions: Vec<[f64; 3]>,
    pub normals: Vec<[f64; 3]>,
    pub colors: Vec<[u8; 4]>,
    pub float_uvs: Vec<[f64; 2]>,
    pub surface_end_offsets: Vec<u32>,
    /// None when the section does not fit the layout (a warning says why).
    pub mesh_info: Option<Vec<MeshInfo>>,
    pub unknown_section_size: usize,
    pub surface_count: usize,
    pub surfaces: Vec<Mp3SurfaceInfo>,
    pub triangle_count: usize,
}

fn normal_format(m: &WorldModel) -> &'static str {
    match m.normals {
        Normals::Short(_) => "s16/16384 (stride 6)",
        Normals::Float(_) => "f32 (stride 12)",
    }
}

impl Mp3GeometryReport {
    pub fn new(g: &Mp3Geometry) -> Self {
        let mut at = g.gpud_first;
        let mut world_models = Vec::with_capacity(g.world_models.len());
        for (k, m) in g.world_models.iter().enumerate() {
            let first = g.wobj_first + 1 + WOBJ_MODEL_SECTIONS * k;
            let count = GPUD_ARRAY_SECTIONS + m.surfaces.len();
            let h = &m.header;
            world_models.push(Mp3WorldModelReport {
                index: k,
                wobj_section_indices: std::array::from_fn(|i| first + i),
                gpud_first_section_index: at,
                gpud_section_count: count,
                visor_flags: h.visor_flags,
                transform_rows_3x4: h.rows().map(f64s),
                aabb: AabbInfo::new(&h.aabb),
                normal_format: normal_format(m),
                position_count: m.positions.len(),
                normal_count: m.normals.len(),
                color_count: m.colors.len(),
                float_uv_count: m.uvs.len(),
                positions: m.positions.values.iter().map(|&p| f64s(p)).collect(),
                normals: (0..m.normals.len())
                    .map(|i| f64s(g.normal(m, i).unwrap_or_default()))
                    .collect(),
                colors: m.colors.values.clone(),
                float_uvs: m.uvs.values.iter().map(|&uv| f64s(uv)).collect(),
                surface_end_offsets: m.surface_end_offsets.clone(),
                mesh_info: m.mp3.as_ref().and_then(|x| x.mesh_info.clone()),
                unknown_section_size: m.mp3.as_ref().map_or(0, |x| x.unknown_section.len()),
                surface_count: m.surfaces.len(),
                surfaces: m
                    .surfaces
                    .iter()
                    .enumerate()
                    .map(|(j, s)| Mp3SurfaceInfo::new(j, s))
                    .collect(),
                triangle_count: m.triangle_count(),
            });
            at += count;
        }
        Self {
            wobj_section_index: g.wobj_first,
            gpud_section_index: g.gpud_first,
            material_set: g
                .materials
                .sets
                .first()
                .map(Mp3MaterialSetInfo::new)
                .unwrap_or_default(),
            world_model_count: g.world_models.len(),
            world_models,
            triangle_count: g.triangle_count(),
        }
    }
}

#[derive(Serialize)]
pub struct DependencyReport {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
}

impl From<&Dependency> for DependencyReport {
    fn from(d: &Dependency) -> Self {
        Self {
            id: asset_id_string(d.id, true),
            kind: d.kind.to_string(),
        }
    }
}

/// `DEPS`: the room's assets per script layer and area-wide.
#[derive(Serialize)]
pub struct DependenciesReport {
    pub section_index: u32,
    pub entry_count: usize,
    pub layer_starts: Vec<u32>,
    pub layers: Vec<Vec<DependencyReport>>,
    pub area_wide: Vec<DependencyReport>,
}

impl DependenciesReport {
    pub fn new(d: &Dependencies) -> Self {
        Self {
            section_index: d.index,
            entry_count: d.entries.len(),
            layer_starts: d.layer_starts.clone(),
            layers: d
                .layers()
                .into_iter()
                .map(|l| l.iter().map(Into::into).collect())
                .collect(),
            area_wide: d.area_wide().iter().map(Into::into).collect(),
        }
    }
}

/// The MP3 geometry and dependencies as text lines (for [`super::area::text`]).
pub fn text(g: Option<&Mp3Geometry>, d: Option<&Dependencies>, s: &mut String) {
    if let Some(g) = g {
        let set = g.materials.sets.first();
        let _ = writeln!(
            s,
            "  MP3 world geometry: WOBJ from section {}, GPUD from {}, {} materials, {} triangles",
            g.wobj_first,
            g.gpud_first,
            set.map_or(0, |x| x.materials.len()),
            g.triangle_count()
        );
        for (i, m) in set.iter().flat_map(|x| x.materials.iter().enumerate()) {
            let p = m.program(&Default::default());
            let passes: Vec<String> = m.passes().map(|p| p.kind.to_string()).collect();
            let _ = writeln!(
                s,
                "    material {i}: flags {:#x}, passes [{}], {:?}, {} TEV stages",
                m.flags,
                passes.join(", "),
                p.program.configuration,
                p.program.material.stages.len()
            );
        }
        for (k, m) in g.world_models.iter().enumerate() {
            let _ = writeln!(
                s,
                "  world model {k}: visor flags {:#x}, {} positions, {} normals ({}), {} colours, {} UVs, {} surfaces, {} triangles",
                m.header.visor_flags,
                m.positions.len(),
                m.normals.len(),
                normal_format(m),
                m.colors.len(),
                m.uvs.len(),
                m.surfaces.len(),
                m.triangle_count()
            );
        }
    }
    if let Some(d) = d {
        for (i, l) in d.layers().iter().enumerate() {
            let _ = writeln!(s, "  DEPS layer {i}: {} assets", l.len());
        }
        let _ = writeln!(s, "  DEPS area-wide: {} assets", d.area_wide().len());
    }
}
