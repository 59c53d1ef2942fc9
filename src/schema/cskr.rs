//! `info --json` for CSKR skins (conformance field names).

use std::fmt::Write as _;

use serde::Serialize;

use crate::formats::Game;
use crate::formats::cskr::{Cskr, CskrFooter, WeightGroup};

/// Per-vertex bindings are listed up to this many positions (the groups can claim billions).
const MAX_LISTED_VERTICES: u64 = 1 << 16;

#[derive(Debug, Clone, Serialize)]
pub struct CskrInfo {
    pub format: &'static str,
    pub game: Game,
    pub skin_version: Option<u32>,
    pub vertex_group_count: usize,
    pub vertex_groups: Vec<VertexGroupInfo>,
    pub total_vertex_count: u64,
    pub footer: CskrFooterInfo,
    pub per_vertex_binding: Vec<VertexBindingInfo>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct WeightInfo {
    pub bone_id: u32,
    pub weight: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct VertexGroupInfo {
    pub weights: Vec<WeightInfo>,
    pub vertex_count: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct VertexBindingInfo {
    pub vertex: usize,
    pub group: usize,
    pub weights: Vec<WeightInfo>,
}

/// The per-game footer.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum CskrFooterInfo {
    Mp1 {
        vertex_count_marker: u32,
        vertex_count: u32,
        vertex_skipped_words: Vec<u32>,
        normal_count_marker: u32,
        normal_count: u32,
        normal_skipped_words: Vec<u32>,
    },
    Mp2 {
        pool_map: Vec<u16>,
        unknown_length: usize,
        unknown_hex: String,
    },
}

fn weights(g: &WeightGroup) -> Vec<WeightInfo> {
    g.weights
        .iter()
        .map(|w| WeightInfo {
            bone_id: w.bone_id,
            weight: f64::from(w.weight),
        })
        .collect()
}

impl CskrInfo {
    pub fn from_cskr(s: &Cskr) -> Self {
        let footer = match &s.footer {
            CskrFooter::Mp1 { positions, normals } => CskrFooterInfo::Mp1 {
                vertex_count_marker: positions.marker,
                vertex_count: positions.count,
                vertex_skipped_words: positions.skipped.clone(),
                normal_count_marker: normals.marker,
                normal_count: normals.count,
                normal_skipped_words: normals.skipped.clone(),
            },
            CskrFooter::Mp2 { pool_map, unknown } => CskrFooterInfo::Mp2 {
                pool_map: pool_map.clone(),
                unknown_length: unknown.len(),
                unknown_hex: unknown.iter().map(|b| format!("{b:02x}")).collect(),
            },
        };
        let total = s.total_vertex_count();
        let shown = total.min(MAX_LISTED_VERTICES) as usize;
        let per_vertex_binding = s
            .groups_by_index(shown)
            .into_iter()
            .enumerate()
            .filter_map(|(vertex, g)| {
                g.map(|group| VertexBindingInfo {
                    vertex,
                    group,
                    weights: weights(&s.groups[group]),
                })
            })
            .collect();
        Self {
            format: "CSKR",
            game: s.game,
            skin_version: s.skin_version,
            vertex_group_count: s.groups.len(),
            vertex_groups: s
                .groups
                .iter()
                .map(|g| VertexGroupInfo {
                    weights: weights(g),
                    vertex_count: g.vertex_count,
                })
                .collect(),
            total_vertex_count: total,
            footer,
            per_vertex_binding,
            warnings: s.warnings.clone(),
        }
    }
}

/// The skin as readable text: each weight group's positions and bones.
pub fn text(s: &Cskr) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "CSKR ({}): {} weight groups covering {} positions",
        super::game_name(s.game),
        s.groups.len(),
        s.total_vertex_count()
    );
    let mut start = 0u64;
    for (i, g) in s.groups.iter().enumerate() {
        let end = start + u64::from(g.vertex_count);
        let ws: Vec<String> = g
            .weights
            .iter()
            .map(|w| format!("bone {} × {}", w.bone_id, w.weight))
            .collect();
        let _ = writeln!(
            out,
            "  group {i:>3}: positions {start}..{end}  {}",
            ws.join(", ")
        );
        start = end;
    }
    match &s.footer {
        CskrFooter::Mp1 { positions, normals } => {
            let _ = writeln!(
                out,
                "footer: {} skinned positions, {} skinned normals",
                positions.count, normals.count
            );
        }
        CskrFooter::Mp2 { pool_map, unknown } => {
            let _ = writeln!(
                out,
                "footer: pool map of {} entries, {} unknown bytes",
                pool_map.len(),
                unknown.len()
            );
        }
    }
    super::warnings_text(&mut out, &s.warnings);
    out
}
