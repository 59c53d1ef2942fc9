//! `info` for PAK and TXTR, `texture`, `import-texture` and `extract`: what the CLI
//! dispatcher calls. Each function returns the text to print (or an error, reported once
//! by the caller).
//!
//! `--json` output uses the conformance fixtures' field names (`named_resources`,
//! `resources[]` with `compressed`/`type`/`id`/`size`/`offset`; `header` with `format`,
//! `width`, `height`, `mipmap_count`; `mips[]` with `offset_in_image_data`/`byte_size`),
//! so a script can diff the two; extra fields are added, none renamed.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, bail};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::export::write_texture_pngs;
use crate::formats::pak::Pak;
use crate::formats::txtr::{EncodeOptions, PaletteFormat, TexFormat, Txtr, max_mip_count};
use crate::formats::{Game, asset_id_string, fourcc_string};
use crate::image::RgbaImage;
use crate::load::source::{self, Resource};

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

fn game_name(game: Game) -> &'static str {
    match game {
        Game::Mp1 => "MP1",
        Game::Mp2 => "MP2",
        Game::Mp3 => "MP3",
    }
}

// ------------------------------------------------------------------------------------------
// PAK

/// JSON report of a PAK (conformance field names plus extras).
#[derive(Debug, Serialize)]
pub struct PakReport {
    pub file: String,
    pub size: usize,
    pub sha256: String,
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
        let wide = pak.wide_ids();
        let id = |id: u64| asset_id_string(id, wide);
        let resources = pak
            .entries()
            .iter()
            .map(|e| {
                let first = pak.find(e.id, Some(e.fourcc)).map(|f| f.index);
                let (info, error) = match pak.payload_info(data, e) {
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
            size: data.len(),
            sha256: sha256_hex(data),
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
            game_name(self.game),
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

/// `info` for a whole PAK: the named table and the resource table.
pub fn info_pak(res: &Resource, json: bool) -> anyhow::Result<String> {
    let pak = Pak::parse(&res.bytes, &res.label)?;
    let report = PakReport::new(&pak, &res.bytes, res.id);
    if json {
        Ok(serde_json::to_string_pretty(&report)?)
    } else {
        Ok(report.text())
    }
}

// ------------------------------------------------------------------------------------------
// TXTR

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

/// `info` for a texture.
pub fn info_txtr(res: &Resource, json: bool) -> anyhow::Result<String> {
    let t = Txtr::parse(&res.bytes, &res.label)?;
    let wide = res.wide_ids();
    let report = TxtrReport::new(
        &t,
        res.bytes.len(),
        sha256_hex(&res.bytes),
        res.id.map(|id| asset_id_string(id, wide)),
    );
    if json {
        Ok(serde_json::to_string_pretty(&report)?)
    } else {
        Ok(report.text())
    }
}

/// `texture SPEC OUT.png [--mip K]`: decodes one level of a TXTR to a PNG. With
/// `all_mips`, `out` is a folder that receives every level (`STEM.png`, `STEM.mip1.png`,
/// …); a CMDL or ANCS writes every texture of the model there (`0xID.png`). Returns a
/// summary.
pub fn texture(spec: &str, out: &Path, mip: u32, all_mips: bool) -> anyhow::Result<String> {
    let (res, _) = source::open(spec)?;
    if res.is_pak() {
        bail!(
            "{} is a PAK: name a texture in it, e.g. {spec}:0x1A2B3C4D (or `extract --png` for all)",
            res.label
        );
    }
    if res.is(b"CMDL") || res.is(b"ANCS") {
        return model_textures(spec, out, all_mips);
    }
    if let Some(f) = res.fourcc.filter(|f| f != b"TXTR") {
        bail!(
            "{}: a {} resource, not a texture",
            res.label,
            fourcc_string(f)
        );
    }
    let t = Txtr::parse(&res.bytes, &res.label)?;
    if all_mips {
        let stem = match res.id {
            Some(id) => asset_id_string(id, res.wide_ids()),
            None => res
                .path
                .file_stem()
                .map_or_else(|| "texture".into(), |s| s.to_string_lossy().into_owned()),
        };
        let data = crate::load::decode_texture(&t)?.0;
        std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
        let files = write_texture_pngs(&data, &stem, out, true)?;
        let mut text = format!(
            "{}: wrote {} of {} levels ({}×{} {}) to {}",
            res.label,
            files.len(),
            t.mip_count,
            t.width,
            t.height,
            t.format.name(),
            out.display()
        );
        if files.len() < t.mip_count as usize {
            let _ = write!(
                text,
                "\nwarning: levels from {} on are cut short",
                files.len()
            );
        }
        return Ok(text);
    }
    let img = t.decode_level(mip)?;
    img.save_png(out)?;
    Ok(format!(
        "{}: wrote level {mip} of {} ({}×{} {}) to {}",
        res.label,
        t.mip_count,
        img.width,
        img.height,
        t.format.name(),
        out.display()
    ))
}

/// Every texture of a CMDL or character as `DIR/0xID.png` (and its levels with
/// `all_mips`).
fn model_textures(spec: &str, dir: &Path, all_mips: bool) -> anyhow::Result<String> {
    let (model, warnings) = crate::load::load_model(spec, None, None, None, None)?;
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let mut ids: Vec<_> = model.assets.textures.keys().copied().collect();
    ids.sort_unstable();
    let mut files = 0;
    for id in &ids {
        let stem = asset_id_string(*id, *id > u64::from(u32::MAX));
        files += write_texture_pngs(&model.assets.textures[id], &stem, dir, all_mips)?.len();
    }
    let mut text = format!(
        "{}: wrote {files} PNGs of {} textures to {}",
        model.label,
        ids.len(),
        dir.display()
    );
    for w in warnings {
        let _ = write!(text, "\nwarning: {w}");
    }
    Ok(text)
}

/// `import-texture IN.png OUT.TXTR --format F [--mips N] [--palette P]`: encodes a PNG
/// as a TXTR with a box-filtered mip chain (all levels down to 1×1 unless `mips` says
/// otherwise). `format` and `palette` are names (`CMPR`, `RGB5A3`, …).
pub fn import_texture(
    png: &Path,
    out_txtr: &Path,
    format: &str,
    mips: Option<u32>,
    palette: Option<&str>,
) -> anyhow::Result<String> {
    let format = TexFormat::from_name(format).with_context(|| {
        let names: Vec<_> = TexFormat::ALL.iter().map(|f| f.name()).collect();
        format!(
            "unknown texture format {format:?} (one of {})",
            names.join(", ")
        )
    })?;
    let palette_format = match palette {
        None => None,
        Some(p) => Some(match p.to_ascii_uppercase().as_str() {
            "IA8" => PaletteFormat::Ia8,
            "RGB565" => PaletteFormat::Rgb565,
            "RGB5A3" => PaletteFormat::Rgb5A3,
            _ => bail!("unknown palette format {p:?} (IA8, RGB565 or RGB5A3)"),
        }),
    };
    let img = RgbaImage::load_png(png)?;
    let t = Txtr::encode(
        &img,
        format,
        &EncodeOptions {
            mip_count: mips,
            palette_format,
        },
    )
    .with_context(|| {
        format!(
            "{}: {}×{} (at most {} levels)",
            png.display(),
            img.width,
            img.height,
            max_mip_count(img.width, img.height)
        )
    })?;
    let bytes = t.to_bytes();
    std::fs::write(out_txtr, &bytes).with_context(|| format!("writing {}", out_txtr.display()))?;
    Ok(format!(
        "{}: {}×{} {} with {} levels, {} bytes",
        out_txtr.display(),
        t.width,
        t.height,
        t.format.name(),
        t.mip_count,
        bytes.len()
    ))
}

/// `extract PAK OUT_DIR`: writes every resource, decompressed, as `OUT_DIR/0xID.TYPE`
/// (IDs in upper-case hex; raw entries keep their 0xFF padding, which every parser
/// tolerates), so the folder works as a loose-file source for the other commands.
/// Duplicate entries (same ID and type) are written once, first wins. Names and the
/// full table go to `OUT_DIR/pak.json` (the `info --json` report; each resource's
/// `file_name` and `name` link the two). Resources that fail to decompress are
/// skipped and reported in the error after everything else is written. With `png`, every
/// TXTR is also decoded to `OUT_DIR/0xID.png` (level 0); textures that do not decode are
/// listed as warnings.
pub fn extract(pak_path: &Path, out_dir: &Path, png: bool) -> anyhow::Result<String> {
    let archive = crate::load::source::open_archive(pak_path)?;
    let pak = &archive.pak;
    std::fs::create_dir_all(out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let mut written = 0;
    let mut pngs = 0;
    let mut failures = Vec::new();
    let mut png_warnings = Vec::new();
    for e in pak.entries() {
        if pak.find(e.id, Some(e.fourcc)).map(|f| f.index) != Some(e.index) {
            continue;
        }
        match archive.read(e) {
            Ok(data) => {
                let path = out_dir.join(pak.entry_name(e));
                std::fs::write(&path, &data)
                    .with_context(|| format!("writing {}", path.display()))?;
                written += 1;
                if png && &e.fourcc == b"TXTR" {
                    let stem = asset_id_string(e.id, pak.wide_ids());
                    let decoded = Txtr::parse(&data, &pak.entry_label(e))
                        .map_err(anyhow::Error::from)
                        .and_then(|t| Ok(crate::load::decode_texture(&t)?.0));
                    match decoded {
                        Ok(t) => {
                            write_texture_pngs(&t, &stem, out_dir, false)?;
                            pngs += 1;
                        }
                        Err(err) => png_warnings.push(format!("{}: {err:#}", pak.entry_label(e))),
                    }
                }
            }
            Err(err) => failures.push(err.to_string()),
        }
    }
    let report = PakReport::new(pak, archive.bytes(), None);
    let json_path = out_dir.join("pak.json");
    std::fs::write(&json_path, serde_json::to_string_pretty(&report)?)
        .with_context(|| format!("writing {}", json_path.display()))?;
    if !failures.is_empty() {
        bail!(
            "{}: extracted {written} resources to {}, {} failed:\n  {}",
            pak_path.display(),
            out_dir.display(),
            failures.len(),
            failures.join("\n  ")
        );
    }
    let mut text = format!(
        "{}: extracted {written} resources ({} named) to {} (table in pak.json)",
        pak_path.display(),
        pak.named().len(),
        out_dir.display()
    );
    if png {
        let _ = write!(text, "\n{pngs} textures as PNG");
        for w in png_warnings {
            let _ = write!(text, "\nwarning: not converted: {w}");
        }
    }
    Ok(text)
}
