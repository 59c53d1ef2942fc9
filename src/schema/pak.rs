//! `info` on a whole PAK: the named table and the resource table, as JSON ([`PakReport`],
//! the conformance fixtures' field names: `named_resources`, `resources[]` with
//! `compressed`/`type`/`id`/`size`/`offset`; extra fields are added, none renamed) or as
//! text.

use std::fmt::Write as _;

use serde::Serialize;

use super::sha256_hex;
use crate::formats::pak::{PAYLOAD_HEADER, Pak, PakArchive, PakEntry, PayloadInfo};
use crate::formats::{Game, asset_id_string, fourcc_string};

/// JSON report of a PAK (conformance field names plus extras).
#[derive(Debug, Serialize)]
pub struct PakReport {
    pub file: String,
    pub size: usize,
    /// Of the whole archive; null when it was read by its tables only (a PAK on a disc,
    /// [`PakReport::from_tables`]).
    pub sha256: Option<String>,
    pub asset_id: Option<String>,
    pub format: &'static str,
    pub game: Game,
    /// What decided the game (`Content`, `Compression`, `Layout`, `Default`, `Given`).
    pub game_evidence: crate::formats::pak::GameEvidence,
    pub layout: crate::formats::pak::PakLayout,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version_major: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version_minor: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unused: Option<u32>,
    pub named_resources: Vec<NamedReport>,
    pub resource_count: usize,
    pub resources: Vec<ResourceReport>,
    pub table_end: u64,
}

/// One named-resource entry.
#[derive(Debug, Serialize)]
pub struct NamedReport {
    #[serde(rename = "type")]
    pub fourcc: String,
    pub id: String,
    pub name: String,
}

/// One resource-table row, with what its payload header says.
#[derive(Debug, Serialize)]
pub struct ResourceReport {
    pub index: usize,
    pub compressed: u32,
    #[serde(rename = "type")]
    pub fourcc: String,
    pub id: String,
    pub size: u32,
    /// Absolute offset of the stored bytes.
    pub offset: u64,
    /// The offset field as stored when it differs (MP3: relative to DATA).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_offset: Option<u32>,
    /// File name `extract` gives the resource.
    pub file_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Index of the earlier entry with the same ID that lookups use instead.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duplicate_of: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compression: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stored_decompressed_size_field: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zlib_header_bytes: Option<[u8; 2]>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lzo_segment_lengths: Vec<i16>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cmpd_blocks: Vec<CmpdBlockReport>,
    /// Why the payload header could not be read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// One CMPD block header (MP3).
#[derive(Debug, Serialize)]
pub struct CmpdBlockReport {
    pub flag: u8,
    pub compressed_size: u32,
    pub decompressed_size: u32,
}

impl PakReport {
    /// Describes `pak` (parsed from `data`) without decompressing anything.
    pub fn new(pak: &Pak, data: &[u8], asset_id: Option<u64>) -> Self {
        let payload = |e: &PakEntry| pak.payload_info(data, e);
        Self::build(pak, data.len(), Some(sha256_hex(data)), asset_id, payload)
    }

    /// Describes an archive from its tables and the first bytes of each payload only
    /// ([`PAYLOAD_HEADER`]; no checksum, no LZO segment walk), so a PAK read by ranges
    /// (inside a disc image) is not read whole.
    pub fn from_tables(archive: &PakArchive, asset_id: Option<u64>) -> Self {
        let pak = &archive.pak;
        let payload = |e: &PakEntry| {
            if !e.compressed() {
                // Nothing to describe: no bytes to read.
                return Ok(PayloadInfo::default());
            }
            let prefix = archive.stored_prefix(e, PAYLOAD_HEADER)?;
            pak.payload_header_info(&prefix, e)
        };
        let size = usize::try_from(archive.len()).unwrap_or(usize::MAX);
        Self::build(pak, size, None, asset_id, payload)
    }

    fn build(
        pak: &Pak,
        size: usize,
        sha256: Option<String>,
        asset_id: Option<u64>,
        payload: impl Fn(&PakEntry) -> crate::formats::error::Result<PayloadInfo>,
    ) -> Self {
        let wide = pak.wide_ids();
        let id = |id: u64| asset_id_string(id, wide);
        let resources = pak
            .entries()
            .iter()
            .map(|e| {
                let first = pak.find(e.id, Some(e.fourcc)).map(|f| f.index);
                let (info, error) = match payload(e) {
                    Ok(i) => (i, None),
                    Err(err) => (Default::default(), Some(err.to_string())),
                };
                ResourceReport {
                    index: e.index,
                    compressed: e.flag,
                    fourcc: fourcc_string(e.fourcc),
                    id: id(e.id),
                    size: e.size,
                    offset: e.data_offset,
                    stored_offset: (u64::from(e.offset) != e.data_offset).then_some(e.offset),
                    file_name: pak.entry_name(e),
                    name: pak.name_of(e).map(str::to_owned),
                    duplicate_of: first.filter(|&f| f != e.index),
                    compression: info.compression.map(|c| c.name()),
                    stored_decompressed_size_field: info.declared_size,
                    zlib_header_bytes: info.zlib_header,
                    lzo_segment_lengths: info.lzo_segments,
                    cmpd_blocks: info
                        .cmpd_blocks
                        .iter()
                        .map(|&(flag, c, d)| CmpdBlockReport {
                            flag,
                            compressed_size: c,
                            decompressed_size: d,
                        })
                        .collect(),
                    error,
                }
            })
            .collect();
        let v35 = pak.layout != crate::formats::pak::PakLayout::V2;
        PakReport {
            file: pak.file.clone(),
            size,
            sha256,
            asset_id: asset_id.map(id),
            format: "PAK",
            game: pak.game,
            game_evidence: pak.game_evidence,
            layout: pak.layout,
            version_major: v35.then_some(3),
            version_minor: v35.then_some(5),
            unused: v35.then_some(pak.unused),
            named_resources: pak
                .named()
                .iter()
                .map(|n| NamedReport {
                    fourcc: fourcc_string(n.fourcc),
                    id: id(n.id),
                    name: n.name.clone(),
                })
                .collect(),
            resource_count: pak.entries().len(),
            resources,
            table_end: pak.table_end,
        }
    }

    /// Human-readable table.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let version = match self.layout {
            crate::formats::pak::PakLayout::V3_5 => "version 3.5",
            crate::formats::pak::PakLayout::V3_5Wide => "version 3.5, 64-bit IDs",
            crate::formats::pak::PakLayout::V2 => "version 2",
        };
        let _ = writeln!(
            s,
            "{}: PAK {version}, {} ({:?}), {} named, {} resources, {} bytes",
            self.file,
            super::game_name(self.game),
            self.game_evidence,
            self.named_resources.len(),
            self.resource_count,
            self.size
        );
        if !self.named_resources.is_empty() {
            let _ = writeln!(s, "named resources:");
            for n in &self.named_resources {
                let _ = writeln!(s, "  {} {}  {}", n.fourcc, n.id, n.name);
            }
        }
        let _ = writeln!(s, "resources:");
        let _ = writeln!(
            s,
            "  {:>5}  {:<4} {:<18} {:>9} {:>10}  {:<16} {:>12}  name",
            "#", "type", "id", "size", "offset", "compression", "decompressed"
        );
        for r in &self.resources {
            let decompressed = r
                .stored_decompressed_size_field
                .map_or(String::new(), |d| d.to_string());
            let mut note = r.name.clone().unwrap_or_default();
            if let Some(d) = r.duplicate_of {
                let _ = write!(note, " (duplicate of #{d})");
            }
            if let Some(e) = &r.error {
                let _ = write!(note, " ERROR: {e}");
            }
            let _ = writeln!(
                s,
                "  {:>5}  {:<4} {:<18} {:>9} {:>#10x}  {:<16} {:>12}  {}",
                r.index,
                r.fourcc,
                r.id,
                r.size,
                r.offset,
                r.compression.unwrap_or("-"),
                decompressed,
                note.trim()
            );
        }
        s
    }
}
