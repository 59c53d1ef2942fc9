//! `info` on MREA areas: layout, light layers (with the GX values the engine derives) and
//! the world geometry, as JSON ([`AreaReport`]) or as text ([`text`]). The JSON is one serde
//! schema:
//! the light fields use the names of `mp1_lights_minimal.MREA.json`, the header and
//! geometry those of the area fixtures (`areas/mp1_area.MREA.json`).
//!
//! Floats are reported as f64 converted exactly from the stored f32, as the fixtures do.

use std::fmt::Write as _;

use serde::{Serialize, Serializer};

use super::{AabbInfo, UvAnimationInfo, alpha_input_names, color_input_names, f64s, sha256_hex};
use crate::formats::cmdl::{Aabb, Normals, Primitive, Surface, SurfaceMesh, UvSource};
use crate::formats::material::{Material, MaterialSet, VertexAttributes};
use crate::formats::mrea::geometry::{
    Mp2GeometryTail, SurfaceGroupBounds, SurfaceLookupTable, WorldGeometry, WorldModel, visor,
};
use crate::formats::mrea::{
    BlockHeader, LightRecord, LightsSection, Mrea, NamedSection, UnknownSection2,
};
use crate::formats::{Game, asset_id_string};
use crate::gx;
use crate::gx::lights::{Falloff, GxLightValue, LightOptions};

/// Section indices as a JSON object in header order.
struct SectionIndex<'a>(&'a [NamedSection], bool);

impl Serialize for SectionIndex<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|n| {
            let name = if self.1 { &n.short_name } else { &n.name };
            (name.as_str(), n.index)
        }))
    }
}

/// The whole `info --json` report of an area.
#[derive(Serialize)]
pub struct AreaReport<'a> {
    pub file: &'a str,
    pub size: usize,
    pub sha256: String,
    pub format: &'static str,
    pub game: Game,
    pub magic: u32,
    pub version: u32,
    /// 12 values, row-major (the lights fixture's flat form).
    pub area_transform: [f64; 12],
    pub world_model_count: u32,
    pub script_layer_count: Option<u32>,
    pub data_section_count: u32,
    section_index: SectionIndex<'a>,
    pub data_section_sizes: &'a [u32],
    pub data_section_offsets: &'a [u64],
    pub data_section_offsets_are_decompressed: bool,
    pub data_section_roles: Vec<String>,
    pub header_size: u64,
    pub compressed_blocks: &'a [BlockHeader],
    pub header: HeaderReport<'a>,
    pub lights_section: Option<LightsReport>,
    pub light_options: LightOptions,
    pub geometry: Option<GeometryReport>,
    /// MP3: WOBJ/GPUD world geometry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mp3_geometry: Option<super::area_mp3::Mp3GeometryReport>,
    /// MP3: `DEPS`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dependencies: Option<super::area_mp3::DependenciesReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_section_2: Option<&'a UnknownSection2>,
    pub warnings: &'a [String],
}

/// The header in the area fixtures' shape.
#[derive(Serialize)]
pub struct HeaderReport<'a> {
    pub area_transform_rows_3x4: [[f64; 4]; 3],
    pub world_model_count: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub script_layer_count: Option<u32>,
    pub data_section_count: u32,
    section_index: SectionIndex<'a>,
    pub header_size: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compressed_block_count: Option<usize>,
}

#[derive(Serialize)]
pub struct LightsReport {
    pub offset: Option<u64>,
    pub magic: u32,
    pub layer_count: usize,
    pub layers: Vec<Vec<LightReport>>,
    pub light_record_size: usize,
}

#[derive(Serialize)]
pub struct LightReport {
    #[serde(rename = "type")]
    pub light_type: u32,
    pub type_name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color_rgb: Option<[f64; 3]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color_rgba: Option<[f64; 4]>,
    pub position: [f64; 3],
    pub direction: [f64; 3],
    #[serde(skip_serializing_if = "Option::is_none")]
    pub codirection: Option<[f64; 3]>,
    pub brightness: f64,
    pub spot_cutoff: f64,
    pub unknown_float_1: f64,
    pub cast_shadows_u8: u8,
    pub unknown_float_2: f64,
    pub falloff_type: u32,
    pub falloff_name: &'static str,
    pub unknown_float_3: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_floats_0x51: Option<[f64; 4]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_u32_0x61: Option<u32>,
    pub gx: GxReport,
}

/// What a light record becomes in GX.
#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum GxReport {
    Ambient {
        ambient_rgba8: [u8; 4],
    },
    Light {
        color_rgba8: [u8; 4],
        position: [f64; 3],
        direction: [f64; 3],
        angle_atten: [f64; 3],
        dist_atten: [f64; 3],
        intensity: f64,
        /// None (JSON null) for an infinite radius.
        radius: Option<f64>,
    },
}

impl LightReport {
    fn new(r: &LightRecord, options: &LightOptions) -> Self {
        let mp3 = r.codirection.is_some();
        let gx = match r.to_prime_light().to_gx(options) {
            GxLightValue::Ambient(c) => GxReport::Ambient { ambient_rgba8: c },
            GxLightValue::Light(l) => {
                let radius = l.radius();
                GxReport::Light {
                    color_rgba8: l.color,
                    position: f64s(l.position),
                    direction: f64s(l.direction),
                    angle_atten: f64s(l.angle_atten),
                    dist_atten: f64s(l.dist_atten),
                    intensity: f64::from(l.intensity()),
                    radius: radius.is_finite().then(|| f64::from(radius)),
                }
            }
        };
        Self {
            light_type: r.light_type,
            type_name: r.kind().name(),
            color_rgb: (!mp3).then(|| f64s([r.color[0], r.color[1], r.color[2]])),
            color_rgba: mp3.then(|| f64s(r.color)),
            position: f64s(r.position),
            direction: f64s(r.direction),
            codirection: r.codirection.map(f64s),
            brightness: f64::from(r.brightness),
            spot_cutoff: f64::from(r.spot_cutoff),
            unknown_float_1: f64::from(r.unknown_float_1),
            cast_shadows_u8: r.cast_shadows_u8,
            unknown_float_2: f64::from(r.unknown_float_2),
            falloff_type: r.falloff_type,
            falloff_name: Falloff::name_of_word(r.falloff_type),
            unknown_float_3: f64::from(r.unknown_float_3),
            unknown_floats_0x51: r.mp3_unknown_floats.map(f64s),
            unknown_u32_0x61: r.mp3_unknown_u32,
            gx,
        }
    }
}

impl LightsReport {
    fn new(l: &LightsSection, options: &LightOptions) -> Self {
        Self {
            offset: l.offset,
            magic: l.magic,
            layer_count: l.layers.len(),
            layers: l
                .layers
                .iter()
                .map(|layer| layer.iter().map(|r| LightReport::new(r, options)).collect())
                .collect(),
            light_record_size: l.light_record_size,
        }
    }
}

fn aabb(b: &Aabb) -> AabbInfo {
    AabbInfo {
        min: f64s(b.min),
        max: f64s(b.max),
    }
}

#[derive(Serialize)]
pub struct GeometryReport {
    pub first_section_index: usize,
    pub section_count: usize,
    /// Index of the first section after the world models.
    pub world_model_sections_end: usize,
    pub material_set: MaterialSetReport,
    pub world_models: Vec<WorldModelReport>,
    pub triangle_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_world_models: Option<AfterWorldModels>,
}

#[derive(Serialize)]
pub struct AfterWorldModels {
    pub area_octree_section_index: usize,
    pub surface_group_bounds_section_index: usize,
    pub surface_group_bounds: Option<Vec<BoundsReport>>,
}

#[derive(Serialize)]
pub struct BoundsReport {
    pub aabb: AabbInfo,
    pub world_model_index: u16,
    pub surface_group_index: u16,
    pub unk1_s16: i16,
    pub unk2_s16: i16,
}

impl From<&SurfaceGroupBounds> for BoundsReport {
    fn from(b: &SurfaceGroupBounds) -> Self {
        Self {
            aabb: aabb(&b.aabb),
            world_model_index: b.world_model_index,
            surface_group_index: b.surface_group_index,
            unk1_s16: b.unk1_s16,
            unk2_s16: b.unk2_s16,
        }
    }
}

#[derive(Serialize)]
pub struct MaterialSetReport {
    pub section_size: usize,
    pub texture_count: usize,
    pub texture_ids: Vec<String>,
    pub material_count: usize,
    pub materials: Vec<MaterialReport>,
}

#[derive(Serialize)]
pub struct MaterialReport {
    pub index: usize,
    pub flags: u32,
    pub flags_hex: String,
    pub short_uv_tex0_0x2000: bool,
    pub depth_sorted_0x10: bool,
    pub depth_write_0x80: bool,
    pub konst_present_0x8: bool,
    pub texture_indices: Vec<u32>,
    /// The set's TXTR IDs for the material's slots (None: index outside the set).
    pub texture_ids: Vec<Option<String>>,
    pub vertex_attribute_flags: u32,
    pub vertex_attribute_flags_hex: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mp2_unknown_words: Option<[u32; 2]>,
    pub group_index: u32,
    pub konst_colors: Option<Vec<u32>>,
    pub blend_destination_factor: u16,
    pub blend_source_factor: u16,
    pub color_channel_flags: Vec<u32>,
    pub tev_stage_count: usize,
    pub tev_stages: Vec<StageReport>,
    pub texgen_count: usize,
    pub texgen_flags: Vec<u32>,
    pub uv_animations: Vec<UvAnimationInfo>,
    /// Whether the material converts to a drawable GX material.
    pub gx_valid: bool,
}

#[derive(Serialize)]
pub struct StageReport {
    pub color_inputs: [String; 4],
    pub alpha_inputs: [String; 4],
    pub color_combine: u32,
    pub alpha_combine: u32,
    pub konst_color_input: u8,
    pub konst_alpha_input: u8,
    pub raster: u8,
    pub texture_slot: u8,
    pub texcoord: u8,
}

impl MaterialReport {
    fn new(index: usize, set: &MaterialSet, m: &Material) -> Self {
        let flags = m.effective_flags();
        Self {
            index,
            flags,
            flags_hex: format!("0x{flags:08X}"),
            short_uv_tex0_0x2000: flags & gx::flags::SHORT_UV != 0,
            depth_sorted_0x10: flags & gx::flags::TRANSPARENT != 0,
            depth_write_0x80: flags & gx::flags::DEPTH_WRITE != 0,
            konst_present_0x8: flags & gx::flags::KONST != 0,
            texture_indices: m.texture_indices.clone(),
            texture_ids: set
                .material_texture_ids(index)
                .into_iter()
                .map(|id| id.map(|id| asset_id_string(id.into(), false)))
                .collect(),
            vertex_attribute_flags: m.vertex_attributes.0,
            vertex_attribute_flags_hex: format!("0x{:08X}", m.vertex_attributes.0),
            mp2_unknown_words: m.mp2_unknown,
            group_index: m.group_index,
            konst_colors: m.konst_colors.clone(),
            blend_destination_factor: m.blend_dst,
            blend_source_factor: m.blend_src,
            color_channel_flags: m.color_channels.clone(),
            tev_stage_count: m.tev_stages.len(),
            tev_stages: m
                .tev_stages
                .iter()
                .map(|s| StageReport {
                    color_inputs: color_input_names(s.color_inputs),
                    alpha_inputs: alpha_input_names(s.alpha_inputs),
                    color_combine: s.color_combine,
                    alpha_combine: s.alpha_combine,
                    konst_color_input: s.kcsel,
                    konst_alpha_input: s.kasel,
                    raster: s.raster,
                    texture_slot: s.tex_map,
                    texcoord: s.tex_coord,
                })
                .collect(),
            texgen_count: m.texgens.len(),
            texgen_flags: m.texgens.clone(),
            uv_animations: m.uv_animations.iter().map(UvAnimationInfo::new).collect(),
            gx_valid: m.to_gx().is_ok(),
        }
    }
}

#[derive(Serialize)]
pub struct VisorFlagsReport {
    pub bit0_short_normals: bool,
    pub bit1_hidden_in_combat_scan_visor: bool,
    pub bit2_hidden_in_thermal_visor: bool,
    pub bit3_hidden_in_xray_visor: bool,
    pub bits4_5_thermal_level: u32,
}

#[derive(Serialize)]
pub struct WorldModelHeaderReport {
    pub visor_flags: u32,
    pub visor_flags_decoded: VisorFlagsReport,
    pub transform_rows_3x4: [[f64; 4]; 3],
    pub aabb: AabbInfo,
}

#[derive(Serialize)]
pub struct WorldModelReport {
    pub index: usize,
    pub first_section_index: usize,
    pub section_count: usize,
    pub section_roles: Vec<String>,
    pub section_sizes: Vec<usize>,
    pub header: WorldModelHeaderReport,
    pub normal_format: &'static str,
    pub position_count: usize,
    /// Distinct positions the surfaces reference.
    pub positions_indexed_by_surfaces: usize,
    pub normal_count: usize,
    pub color_count: usize,
    pub float_uv_count: usize,
    pub short_uv_count: usize,
    pub positions: Vec<[f64; 3]>,
    pub normals: Vec<[f64; 3]>,
    pub normals_raw_s16: Option<Vec<[i16; 3]>>,
    pub colors: Vec<[u8; 4]>,
    pub float_uvs: Vec<[f64; 2]>,
    pub short_uvs_raw_u16: Vec<[u16; 2]>,
    pub short_uvs_decoded_u16_div_32768: Vec<[f64; 2]>,
    pub surface_count: usize,
    pub surfaces: Vec<SurfaceReport>,
    pub triangle_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mp2_surface_group_ids: Option<Option<Vec<[u16; 2]>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mp2_surface_lookup_table: Option<Option<SurfaceLookupTable>>,
}

#[derive(Serialize)]
pub struct PrimitiveReport {
    pub opcode: u8,
    pub primitive: &'static str,
    pub vertex_format_vat: u8,
    pub vertex_count: usize,
    pub vertex_index_tuples: Vec<Vec<u16>>,
    pub vertex_tuple_layout: Vec<&'static str>,
    pub triangle_count: usize,
}

#[derive(Serialize)]
pub struct SurfaceReport {
    pub index: usize,
    pub material_index: u32,
    /// `short_uvs`, `float_uvs`, or `none` when the material has no TEX0.
    pub tex0_array: &'static str,
    /// VAT index of the first primitive.
    pub vertex_format_vat: Option<u8>,
    pub center_point: [f64; 3],
    pub surface_normal: [f64; 3],
    pub extra_data_size: usize,
    pub surface_aabb: Option<AabbInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mp2_u16_pair: Option<[u16; 2]>,
    pub primitives: Vec<PrimitiveReport>,
    pub triangle_count: usize,
    pub triangles_pos: Vec<[u16; 3]>,
    pub display_list_size_field: u32,
    pub display_list_size_field_hex: String,
    pub declared_display_list_size: u32,
    pub display_list_offset_in_section: usize,
    pub display_list_bytes_used: usize,
    /// The decoding error that stopped this surface, if any.
    pub error: Option<String>,
}

const TUPLE_NAMES: [&str; 12] = [
    "pos", "nrm", "clr0", "clr1", "tex0", "tex1", "tex2", "tex3", "tex4", "tex5", "tex6", "tex7",
];

/// The names of a vertex record's fields, in display-list order.
fn tuple_layout(va: VertexAttributes) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = (0..8)
        .filter(|&i| va.matrix_index(i))
        .map(|i| VertexAttributes::MATRIX_INDEX_NAMES[i])
        .collect();
    out.extend(
        (0..12)
            .filter(|&a| va.format(a).is_present())
            .map(|a| TUPLE_NAMES[a]),
    );
    out
}

fn primitive_report(mesh: &SurfaceMesh, p: &Primitive) -> PrimitiveReport {
    let va = mesh.layout.attributes;
    let tuples = p
        .vertices
        .iter()
        .map(|&i| {
            let v = &mesh.vertices[i as usize];
            let mut t: Vec<u16> = v
                .matrix_indices
                .iter()
                .flatten()
                .map(|&m| m.into())
                .collect();
            t.push(v.position);
            t.extend(v.normal);
            t.extend(v.colors.iter().flatten());
            t.extend(v.tex.iter().flatten());
            t
        })
        .collect();
    PrimitiveReport {
        opcode: p.opcode,
        primitive: p.kind.name(),
        vertex_format_vat: p.vertex_format,
        vertex_count: p.vertices.len(),
        vertex_index_tuples: tuples,
        vertex_tuple_layout: tuple_layout(va),
        triangle_count: p.kind.triangle_count(p.vertices.len()),
    }
}

fn surface_report(index: usize, s: &Surface) -> SurfaceReport {
    let mesh = &s.mesh;
    let has_tex0 = mesh
        .layout
        .attributes
        .format(VertexAttributes::TEX0)
        .is_present();
    SurfaceReport {
        index,
        material_index: s.material_index,
        tex0_array: match (has_tex0, mesh.layout.tex0_source) {
            (false, _) => "none",
            (true, UvSource::Short) => "short_uvs",
            (true, UvSource::Float) => "float_uvs",
        },
        vertex_format_vat: mesh.primitives.first().map(|p| p.vertex_format),
        center_point: f64s(s.center),
        surface_normal: f64s(s.normal),
        extra_data_size: s.extra_data.len(),
        surface_aabb: s.stored_aabb().as_ref().map(aabb),
        mp2_u16_pair: s.mp2_unknown,
        primitives: mesh
            .primitives
            .iter()
            .map(|p| primitive_report(mesh, p))
            .collect(),
        triangle_count: mesh.triangles.len(),
        triangles_pos: mesh.triangle_positions(),
        display_list_size_field: s.display_list_word,
        display_list_size_field_hex: format!("0x{:08X}", s.display_list_word),
        declared_display_list_size: s.display_list_size(),
        display_list_offset_in_section: s.display_list_start(),
        display_list_bytes_used: mesh.bytes_used,
        error: mesh.error.as_ref().map(ToString::to_string),
    }
}

fn world_model_report(
    g: &WorldGeometry,
    index: usize,
    first: usize,
    sizes: &[u32],
    m: &WorldModel,
) -> WorldModelReport {
    let h = &m.header;
    let count = m.section_count();
    let used: std::collections::HashSet<u16> = m
        .surfaces
        .iter()
        .flat_map(|s| s.mesh.vertices.iter().map(|v| v.position))
        .collect();
    WorldModelReport {
        index,
        first_section_index: first,
        section_count: count,
        section_roles: m.section_roles(),
        section_sizes: (first..first + count)
            .map(|i| sizes.get(i).map_or(0, |&s| s as usize))
            .collect(),
        header: WorldModelHeaderReport {
            visor_flags: h.visor_flags,
            visor_flags_decoded: VisorFlagsReport {
                bit0_short_normals: h.short_normals(),
                bit1_hidden_in_combat_scan_visor: h.hidden_in_combat(),
                bit2_hidden_in_thermal_visor: h.visor_flags & visor::HIDDEN_THERMAL != 0,
                bit3_hidden_in_xray_visor: h.visor_flags & visor::HIDDEN_XRAY != 0,
                bits4_5_thermal_level: h.thermal_level(),
            },
            transform_rows_3x4: h.rows().map(f64s),
            aabb: aabb(&h.aabb),
        },
        normal_format: match m.normals {
            Normals::Short(_) => "s16/16384 (stride 6)",
            Normals::Float(_) => "f32 (stride 12)",
        },
        position_count: m.positions.len(),
        positions_indexed_by_surfaces: used.len(),
        normal_count: m.normals.len(),
        color_count: m.colors.len(),
        float_uv_count: m.uvs.len(),
        short_uv_count: m.short_uvs.len(),
        positions: m.positions.values.iter().map(|&p| f64s(p)).collect(),
        normals: (0..m.normals.len())
            .map(|i| f64s(g.normal(m, i).unwrap_or_default()))
            .collect(),
        normals_raw_s16: match &m.normals {
            Normals::Short(a) => Some(a.values.clone()),
            Normals::Float(_) => None,
        },
        colors: m.colors.values.clone(),
        float_uvs: m.uvs.values.iter().map(|&uv| f64s(uv)).collect(),
        short_uvs_raw_u16: m.short_uvs.values.clone(),
        short_uvs_decoded_u16_div_32768: m
            .short_uvs
            .values
            .iter()
            .map(|uv| uv.map(|c| f64::from(c) / 32768.0))
            .collect(),
        surface_count: m.surfaces.len(),
        surfaces: m
            .surfaces
            .iter()
            .enumerate()
            .map(|(j, s)| surface_report(j, s))
            .collect(),
        triangle_count: m.triangle_count(),
        mp2_surface_group_ids: m.mp2.as_ref().map(|x| x.surface_group_ids.clone()),
        mp2_surface_lookup_table: m.mp2.as_ref().map(|x| x.lookup_table.clone()),
    }
}

fn geometry_report(g: &WorldGeometry, sizes: &[u32]) -> GeometryReport {
    let mut at = g.first_section + 1;
    let mut world_models = Vec::with_capacity(g.world_models.len());
    for (k, m) in g.world_models.iter().enumerate() {
        world_models.push(world_model_report(g, k, at, sizes, m));
        at += m.section_count();
    }
    let after = g
        .mp2_tail
        .as_ref()
        .map(|t: &Mp2GeometryTail| AfterWorldModels {
            area_octree_section_index: at,
            surface_group_bounds_section_index: at + 1,
            surface_group_bounds: t
                .surface_group_bounds
                .as_ref()
                .map(|b| b.iter().map(Into::into).collect()),
        });
    let set = &g.material_set;
    GeometryReport {
        first_section_index: g.first_section,
        section_count: g.section_count(),
        world_model_sections_end: at,
        material_set: MaterialSetReport {
            section_size: sizes.get(g.first_section).map_or(0, |&s| s as usize),
            texture_count: set.texture_ids.len(),
            texture_ids: set
                .texture_ids
                .iter()
                .map(|&id| asset_id_string(id.into(), false))
                .collect(),
            material_count: set.materials.len(),
            materials: set
                .materials
                .iter()
                .enumerate()
                .map(|(i, m)| MaterialReport::new(i, set, m))
                .collect(),
        },
        world_models,
        triangle_count: g.triangle_count(),
        after_world_models: after,
    }
}

impl<'a> AreaReport<'a> {
    pub fn new(m: &'a Mrea, bytes: &[u8], label: &'a str, options: &LightOptions) -> Self {
        let blocked = !m.compressed_blocks.is_empty();
        Self {
            file: label,
            size: bytes.len(),
            sha256: sha256_hex(bytes),
            format: "MREA",
            game: m.game,
            magic: m.magic,
            version: m.version,
            area_transform: f64s(m.area_transform),
            world_model_count: m.world_model_count,
            script_layer_count: m.script_layer_count,
            data_section_count: m.data_section_count,
            section_index: SectionIndex(&m.section_index, false),
            data_section_sizes: &m.data_section_sizes,
            data_section_offsets: &m.data_section_offsets,
            data_section_offsets_are_decompressed: blocked,
            data_section_roles: m.section_roles(),
            header_size: m.header_size,
            compressed_blocks: &m.compressed_blocks,
            header: HeaderReport {
                area_transform_rows_3x4: std::array::from_fn(|r| {
                    std::array::from_fn(|c| f64::from(m.area_transform[4 * r + c]))
                }),
                world_model_count: m.world_model_count,
                script_layer_count: m.script_layer_count,
                data_section_count: m.data_section_count,
                section_index: SectionIndex(&m.section_index, true),
                header_size: m.header_size,
                compressed_block_count: blocked.then_some(m.compressed_blocks.len()),
            },
            lights_section: m
                .lights_section
                .as_ref()
                .map(|l| LightsReport::new(l, options)),
            light_options: *options,
            geometry: m
                .geometry
                .as_ref()
                .map(|g| geometry_report(g, &m.data_section_sizes)),
            mp3_geometry: m
                .mp3_geometry
                .as_ref()
                .map(super::area_mp3::Mp3GeometryReport::new),
            dependencies: m
                .dependencies
                .as_ref()
                .map(super::area_mp3::DependenciesReport::new),
            unknown_section_2: m.unknown_section_2.as_ref(),
            warnings: &m.warnings,
        }
    }
}

/// The area as readable text.
pub fn text(m: &Mrea, label: &str, options: &LightOptions) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{label}: MREA {:?} (version {:#x}), {} data sections, {} world models",
        m.game, m.version, m.data_section_count, m.world_model_count
    );
    if !m.compressed_blocks.is_empty() {
        let _ = writeln!(s, "  {} compressed blocks", m.compressed_blocks.len());
    }
    for sec in &m.section_index {
        let size = m
            .data_section_sizes
            .get(sec.index as usize)
            .map_or("-".to_string(), |x| x.to_string());
        let _ = writeln!(
            s,
            "  {:<28} section {:>3}  ({size} bytes)",
            sec.name, sec.index
        );
    }
    match &m.lights_section {
        None => s += "  no lights\n",
        Some(l) => {
            for (i, layer) in l.layers.iter().enumerate() {
                let _ = writeln!(s, "  light layer {i}: {} lights", layer.len());
                for (j, r) in layer.iter().enumerate() {
                    let _ = write!(s, "    [{j}] {:<13}", r.kind().name());
                    match r.to_prime_light().to_gx(options) {
                        GxLightValue::Ambient(c) => {
                            let _ = writeln!(s, " ambient register {c:?}");
                        }
                        GxLightValue::Light(g) => {
                            let _ = writeln!(
                                s,
                                " colour {:?} pos {:?} dir {:?} angle {:?} dist {:?} radius {}",
                                g.color,
                                g.position,
                                g.direction,
                                g.angle_atten,
                                g.dist_atten,
                                g.radius()
                            );
                        }
                    }
                }
            }
        }
    }
    if let Some(g) = &m.geometry {
        let set = &g.material_set;
        let _ = writeln!(
            s,
            "  world geometry: {} sections from {}, {} materials, {} textures, {} triangles",
            g.section_count(),
            g.first_section,
            set.materials.len(),
            set.texture_ids.len(),
            g.triangle_count()
        );
        for (k, wm) in g.world_models.iter().enumerate() {
            let h = &wm.header;
            let _ = writeln!(
                s,
                "  world model {k}: visor flags {:#x}{}, {} positions, {} normals ({}), {} colours, {} UVs, {} short UVs, {} surfaces, {} triangles, bounds {:?}–{:?}",
                h.visor_flags,
                if h.hidden_in_combat() {
                    " (hidden in the combat visor)"
                } else {
                    ""
                },
                wm.positions.len(),
                wm.normals.len(),
                if h.short_normals() { "short" } else { "float" },
                wm.colors.len(),
                wm.uvs.len(),
                wm.short_uvs.len(),
                wm.surfaces.len(),
                wm.triangle_count(),
                h.aabb.min,
                h.aabb.max,
            );
            for (j, sf) in wm.surfaces.iter().enumerate() {
                let tex0 = match sf.mesh.layout.tex0_source {
                    UvSource::Short => ", TEX0 from short UVs",
                    UvSource::Float => "",
                };
                let _ = writeln!(
                    s,
                    "    surface {j}: material {}, {} primitives, {} triangles{tex0}{}",
                    sf.material_index,
                    sf.mesh.primitives.len(),
                    sf.mesh.triangles.len(),
                    sf.mesh
                        .error
                        .as_ref()
                        .map_or(String::new(), |e| format!(" (stopped: {e})"))
                );
            }
        }
    }
    super::area_mp3::text(m.mp3_geometry.as_ref(), m.dependencies.as_ref(), &mut s);
    for w in &m.warnings {
        let _ = writeln!(s, "  warning: {w}");
    }
    s
}
