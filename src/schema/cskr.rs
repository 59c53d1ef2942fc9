//! `info --json` for CSKR skins (conformance field names).

use std::fmt::Write as _;

use serde::Serialize;

use crate::formats::Game;
use crate::formats::cskr::{BANK_SIZE, Cskr, CskrFooter, WeightGroup};

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
    /// MP1/MP2 footer (MP3 has the bank table and tail instead, in `mp3`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub footer: Option<CskrFooterInfo>,
    /// Position index → group by cumulative counts (MP1/MP2; empty for MP3, which binds
    /// through the banks).
    pub per_vertex_binding: Vec<VertexBindingInfo>,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub mp3: Option<Mp3SkinInfo>,
    pub warnings: Vec<String>,
}

/// [MP3] The "SKIN" header, matrix banks and tail (formats.md §13.4).
#[derive(Debug, Clone, Serialize)]
pub struct Mp3SkinInfo {
    pub magic: &'static str,
    pub version: u32,
    pub matrix_bank_entry_count: usize,
    /// Banks of 10 group indices as s16 (−1 = none).
    pub matrix_banks: Vec<Vec<i16>>,
    /// The same entries read as u16 (one library's reading).
    pub matrix_banks_u16: Vec<Vec<u16>>,
    /// 1 when a tail blob was read, 0 when its length did not fit.
    pub tail_blob_count: usize,
    pub tail_blob_size: usize,
    pub tail_blob_hex: String,
    /// Whether nothing but padding follows the tail.
    pub file_ends_after_tail: bool,
}

impl Mp3SkinInfo {
    fn new(s: &Cskr) -> Option<Self> {
        let CskrFooter::Mp3 { matrix_banks, tail } = &s.footer else {
            return None;
        };
        let banks: Vec<Vec<i16>> = matrix_banks
            .chunks(BANK_SIZE)
            .map(<[i16]>::to_vec)
            .collect();
        let tail_bytes = tail.as_deref().unwrap_or(&[]);
        Some(Self {
            magic: "SKIN",
            version: s.skin_version.unwrap_or(0),
            matrix_bank_entry_count: matrix_banks.len(),
            matrix_banks_u16: banks
                .iter()
                .map(|b| b.iter().map(|&x| x as u16).collect())
                .collect(),
            matrix_banks: banks,
            tail_blob_count: usize::from(tail.is_some()),
            tail_blob_size: tail_bytes.len(),
            tail_blob_hex: hex(tail_bytes),
            file_ends_after_tail: tail.is_some() && s.trailing.iter().all(|&b| b == 0xFF || b == 0),
        })
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
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
            CskrFooter::Mp1 { positions, normals } => Some(CskrFooterInfo::Mp1 {
                vertex_count_marker: positions.marker,
                vertex_count: positions.count,
                vertex_skipped_words: positions.skipped.clone(),
                normal_count_marker: normals.marker,
                normal_count: normals.count,
                normal_skipped_words: normals.skipped.clone(),
            }),
            CskrFooter::Mp2 { pool_map, unknown } => Some(CskrFooterInfo::Mp2 {
                pool_map: pool_map.clone(),
                unknown_length: unknown.len(),
                unknown_hex: hex(unknown),
            }),
            CskrFooter::Mp3 { .. } => None,
        };
        let total = s.total_vertex_count();
        let shown = if s.game == Game::Mp3 {
            0
        } else {
            total.min(MAX_LISTED_VERTICES) as usize
        };
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
            mp3: Mp3SkinInfo::new(s),
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
        CskrFooter::Mp3 { matrix_banks, tail } => {
            for (b, bank) in matrix_banks.chunks(BANK_SIZE).enumerate() {
                let _ = writeln!(out, "matrix bank {b:>3}: groups {bank:?}");
            }
            match tail {
                Some(t) => {
                    let _ = writeln!(out, "tail: one blob of {} bytes", t.len());
                }
                None => {
                    let _ = writeln!(
                        out,
                        "tail: unreadable, {} bytes kept opaque",
                        s.trailing.len()
                    );
                }
            }
        }
    }
    super::warnings_text(&mut out, &s.warnings);
    out
}
