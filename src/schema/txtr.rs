//! `info` on a texture: header, palette and mip levels, as JSON ([`TxtrReport`], the
//! conformance fixtures' field names: `header` with `format`, `width`, `height`,
//! `mipmap_count`; `mips[]` with `offset_in_image_data`/`byte_size`) or as text.

use std::fmt::Write as _;

use serde::Serialize;

use crate::formats::txtr::Txtr;

/// JSON report of a TXTR (conformance field names plus extras).
#[derive(Debug, Serialize)]
pub struct TxtrReport {
    pub file: String,
    pub size: usize,
    pub sha256: String,
    pub asset_id: Option<String>,
    pub format: &'static str,
    pub header: TxtrHeaderReport,
    pub palette: Option<PaletteReport>,
    /// Bytes after the 12-byte header (palette block included).
    pub image_data_size: usize,
    /// Where level 0 starts, relative to the end of the header.
    pub texel_data_offset_in_image_data: usize,
    pub mips: Vec<MipReport>,
    pub complete_levels: u32,
    /// Bytes after the last level (PAK padding), negative when truncated.
    pub trailing_bytes: i64,
}

/// The 12-byte TXTR header.
#[derive(Debug, Serialize)]
pub struct TxtrHeaderReport {
    /// TXTR numbering.
    pub format: u32,
    pub format_name: &'static str,
    pub gx_format: u32,
    pub width: u16,
    pub height: u16,
    pub mipmap_count: u32,
    /// Same as `mipmap_count` (the PWE fixtures' spelling).
    pub mip_count: u32,
}

/// The palette block of C4/C8/C14X2.
#[derive(Debug, Serialize)]
pub struct PaletteReport {
    pub offset_in_image_data: usize,
    pub format: u32,
    pub format_name: &'static str,
    pub width: u16,
    pub height: u16,
    pub entries_raw_u16: Vec<u16>,
}

/// Where one level lives.
#[derive(Debug, Serialize)]
pub struct MipReport {
    pub level: u32,
    pub width: u32,
    pub height: u32,
    /// Offset relative to the end of the 12-byte header.
    pub offset_in_image_data: usize,
    pub byte_size: usize,
    pub complete: bool,
}

impl TxtrReport {
    /// Describes `t`; `file_size` and `sha256` are of the bytes it was parsed from.
    pub fn new(t: &Txtr, file_size: usize, sha256: String, asset_id: Option<String>) -> Self {
        let palette_size = t.header_len() - crate::formats::txtr::HEADER_SIZE;
        TxtrReport {
            file: t.file.clone(),
            size: file_size,
            sha256,
            asset_id,
            format: "TXTR",
            header: TxtrHeaderReport {
                format: t.format.id(),
                format_name: t.format.name(),
                gx_format: t.format.gx_id(),
                width: t.width,
                height: t.height,
                mipmap_count: t.mip_count,
                mip_count: t.mip_count,
            },
            palette: t.palette.as_ref().map(|p| PaletteReport {
                offset_in_image_data: 0,
                format: p.format.id(),
                format_name: p.format.name(),
                width: p.width,
                height: p.height,
                entries_raw_u16: p.entries.clone(),
            }),
            image_data_size: palette_size + t.data.len(),
            texel_data_offset_in_image_data: palette_size,
            mips: t
                .mips()
                .iter()
                .enumerate()
                .map(|(k, m)| MipReport {
                    level: k as u32,
                    width: m.width,
                    height: m.height,
                    offset_in_image_data: palette_size + m.offset,
                    byte_size: m.byte_size,
                    complete: m.complete,
                })
                .collect(),
            complete_levels: t.complete_levels(),
            trailing_bytes: t.data.len() as i64 - t.levels_size() as i64,
        }
    }

    /// Human-readable summary, one line per level.
    pub fn text(&self) -> String {
        let h = &self.header;
        let mut s = String::new();
        let _ = writeln!(
            s,
            "{}: TXTR {} (TXTR format {}, GX 0x{:X}), {}×{}, {} mip level{}, {} bytes",
            self.file,
            h.format_name,
            h.format,
            h.gx_format,
            h.width,
            h.height,
            h.mipmap_count,
            if h.mipmap_count == 1 { "" } else { "s" },
            self.size
        );
        if let Some(p) = &self.palette {
            let _ = writeln!(
                s,
                "palette: {} entries ({}×{}), {}",
                p.entries_raw_u16.len(),
                p.width,
                p.height,
                p.format_name
            );
        }
        for m in &self.mips {
            let _ = writeln!(
                s,
                "  level {}: {:>4}×{:<4} {:>7} bytes at +{:#x}{}",
                m.level,
                m.width,
                m.height,
                m.byte_size,
                12 + m.offset_in_image_data,
                if m.complete { "" } else { "  TRUNCATED" }
            );
        }
        match self.trailing_bytes {
            0 => {}
            n if n > 0 => {
                let _ = writeln!(s, "{n} trailing bytes after the last level");
            }
            n => {
                let _ = writeln!(s, "data ends {} bytes short of the last level", -n);
            }
        }
        s
    }
}
