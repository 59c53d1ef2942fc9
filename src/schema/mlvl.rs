//! `info` on MLVL worlds: JSON with the world fixtures' field names (`worlds/*.pak.json`
//! `world`), or text. Floats are f64 converted exactly from the stored f32.

use std::fmt::Write as _;

use serde::Serialize;

use super::{AabbInfo, f64s, sha256_hex};
use crate::formats::mlvl::{Area, Dependency, Layer, Mlvl, NO_ID};
use crate::formats::{Game, asset_id_string};

#[derive(Debug, Serialize)]
pub struct MlvlReport {
    pub format: &'static str,
    pub game: Game,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mlvl_id: Option<String>,
    pub version: u32,
    pub world_name_strg_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dark_world_name_strg_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temple_key_world_index: Option<u32>,
    pub savw_id: String,
    pub default_skybox_id: String,
    pub mapw_id: String,
    pub area_count: usize,
    pub areas: Vec<MlvlAreaInfo>,
    pub layer_names_flat: Vec<String>,
    pub layer_name_offsets: Vec<u32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub memory_relays: Vec<MemoryRelayInfo>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub audio_groups: Vec<AudioGroupInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub area_count_extra_u32: Option<u32>,
    pub mlvl_size: usize,
    pub mlvl_sha256: String,
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct MlvlAreaInfo {
    pub index: usize,
    pub area_name_strg_id: String,
    pub mrea_id: String,
    pub internal_area_id: String,
    pub transform_rows_3x4: [[f64; 4]; 3],
    pub aabb_local: AabbInfo,
    pub aabb_world: AabbInfo,
    pub attached_areas: Vec<u16>,
    pub lazy_dependency_u32: u32,
    pub dependencies: DependenciesInfo,
    pub docks: Vec<DockInfo>,
    pub layers: Vec<LayerInfo>,
    pub layer_flags_raw: LayerFlagsInfo,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub internal_area_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modules_per_layer: Option<Vec<Vec<String>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module_offsets_raw: Option<Vec<u32>>,
}

#[derive(Debug, Serialize)]
pub struct DependenciesInfo {
    pub count: usize,
    pub offsets: Vec<u32>,
    pub per_layer: Vec<Vec<DependencyInfo>>,
    pub area_wide_tail: Vec<DependencyInfo>,
}

#[derive(Debug, Serialize)]
pub struct DependencyInfo {
    pub id: String,
    #[serde(rename = "type")]
    pub fourcc: String,
}

#[derive(Debug, Serialize)]
pub struct DockInfo {
    pub index: usize,
    pub connecting: Vec<DockLinkInfo>,
    pub coordinates_local: Vec<[f64; 3]>,
    pub coordinates_world: Vec<[f64; 3]>,
}

#[derive(Debug, Serialize)]
pub struct DockLinkInfo {
    pub area_index: u32,
    pub dock_index: u32,
}

/// A layer's name and initial state (shared with the world listing).
#[derive(Debug, Clone, Serialize)]
pub struct LayerInfo {
    pub name: String,
    pub active: bool,
}

#[derive(Debug, Serialize)]
pub struct LayerFlagsInfo {
    pub layer_count: u32,
    pub u64: String,
}

#[derive(Debug, Serialize)]
pub struct MemoryRelayInfo {
    pub relay_instance_id: String,
    pub target_instance_id: String,
    pub message: u16,
    pub active: u8,
}

#[derive(Debug, Serialize)]
pub struct AudioGroupInfo {
    pub group_id: u32,
    pub agsc_id: String,
}

impl LayerInfo {
    pub fn of(layers: &[Layer]) -> Vec<Self> {
        layers
            .iter()
            .map(|l| Self {
                name: l.name.clone(),
                active: l.active,
            })
            .collect()
    }
}

/// An ID as the fixtures write it; "none" keeps the game's width (`0xFFFFFFFF` in MP1/MP2).
pub fn id_text(id: u64, wide: bool) -> String {
    if id == NO_ID && !wide {
        return asset_id_string(u32::MAX.into(), false);
    }
    asset_id_string(id, wide)
}

/// The area transform as f64 rows.
pub fn rows(a: &Area) -> [[f64; 4]; 3] {
    a.transform.map(|r| r.map(f64::from))
}

/// The area's world-space bounds.
pub fn world_aabb(a: &Area) -> AabbInfo {
    let (min, max) = a.world_aabb();
    AabbInfo {
        min: f64s(min),
        max: f64s(max),
    }
}

impl MlvlReport {
    pub fn new(m: &Mlvl, bytes: &[u8], id: Option<u64>) -> Self {
        let w = m.wide_ids();
        let ids = |d: &[Dependency]| {
            d.iter()
                .map(|d| DependencyInfo {
                    id: id_text(d.id, w),
                    fourcc: d.fourcc.to_string(),
                })
                .collect::<Vec<_>>()
        };
        let areas = m
            .areas
            .iter()
            .enumerate()
            .map(|(index, a)| {
                let (layers, tail) = a.dependency_layers();
                MlvlAreaInfo {
                    index,
                    area_name_strg_id: id_text(a.name_id, w),
                    mrea_id: id_text(a.mrea_id, w),
                    internal_area_id: asset_id_string(a.internal_id, w),
                    transform_rows_3x4: rows(a),
                    aabb_local: AabbInfo {
                        min: f64s(a.aabb_min),
                        max: f64s(a.aabb_max),
                    },
                    aabb_world: world_aabb(a),
                    attached_areas: a.attached_areas.clone(),
                    lazy_dependency_u32: a.lazy_u32,
                    dependencies: DependenciesInfo {
                        count: a.dependencies.len(),
                        offsets: a.dependency_starts.clone(),
                        per_layer: layers.into_iter().map(ids).collect(),
                        area_wide_tail: ids(tail),
                    },
                    docks: a
                        .docks
                        .iter()
                        .enumerate()
                        .map(|(index, d)| DockInfo {
                            index,
                            connecting: d
                                .connecting
                                .iter()
                                .map(|&(area_index, dock_index)| DockLinkInfo {
                                    area_index,
                                    dock_index,
                                })
                                .collect(),
                            coordinates_local: d.coordinates.iter().map(|&p| f64s(p)).collect(),
                            coordinates_world: d
                                .coordinates
                                .iter()
                                .map(|&p| f64s(a.to_world(p)))
                                .collect(),
                        })
                        .collect(),
                    layers: LayerInfo::of(&a.layers),
                    layer_flags_raw: LayerFlagsInfo {
                        layer_count: a.layer_count,
                        u64: format!("0x{:016X}", a.layer_bits),
                    },
                    internal_area_name: a.internal_name.clone(),
                    modules_per_layer: (m.game == Game::Mp2).then(|| {
                        a.modules_per_layer()
                            .into_iter()
                            .map(<[_]>::to_vec)
                            .collect()
                    }),
                    module_offsets_raw: (m.game == Game::Mp2).then(|| a.module_ranges.clone()),
                }
            })
            .collect::<Vec<_>>();
        Self {
            format: "MLVL",
            game: m.game,
            mlvl_id: id.map(|id| asset_id_string(id, w)),
            version: m.version,
            world_name_strg_id: id_text(m.world_name_id, w),
            dark_world_name_strg_id: m.dark_world_name_id.map(|id| id_text(id, w)),
            temple_key_world_index: m.temple_key_world_index,
            savw_id: id_text(m.savw_id, w),
            default_skybox_id: id_text(m.skybox_id, w),
            mapw_id: id_text(m.mapw_id, w),
            area_count: areas.len(),
            areas,
            layer_names_flat: m.layer_names.clone(),
            layer_name_offsets: m.layer_name_starts.clone(),
            memory_relays: m
                .memory_relays
                .iter()
                .map(|r| MemoryRelayInfo {
                    relay_instance_id: format!("0x{:08X}", r.relay_id),
                    target_instance_id: format!("0x{:08X}", r.target_id),
                    message: r.message,
                    active: r.active,
                })
                .collect(),
            audio_groups: m
                .audio_groups
                .iter()
                .map(|&(group_id, agsc)| AudioGroupInfo {
                    group_id,
                    agsc_id: id_text(agsc, w),
                })
                .collect(),
            area_count_extra_u32: m.area_count_extra,
            mlvl_size: bytes.len(),
            mlvl_sha256: sha256_hex(bytes),
            warnings: m.warnings.clone(),
        }
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "MLVL version {:#x} ({}): world name STRG {}, {} areas",
            self.version,
            super::game_name(self.game),
            self.world_name_strg_id,
            self.area_count
        );
        for a in &self.areas {
            let layers: Vec<String> = a
                .layers
                .iter()
                .map(|l| format!("{}{}", l.name, if l.active { "" } else { " (off)" }))
                .collect();
            let _ = writeln!(
                out,
                "  area {:>3}  MREA {}  name STRG {}  {}deps {}  attached {:?}  layers: {}",
                a.index,
                a.mrea_id,
                a.area_name_strg_id,
                a.internal_area_name
                    .as_ref()
                    .map_or(String::new(), |n| format!("{n}  ")),
                a.dependencies.count,
                a.attached_areas,
                layers.join(", ")
            );
        }
        super::warnings_text(&mut out, &self.warnings);
        out
    }
}
