//! `info` for PAK and TXTR, `texture` and `import-texture`: what the CLI
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

use crate::export::write_texture_pngs;
use crate::formats::pak::Pak;
use crate::formats::txtr::{EncodeOptions, PaletteFormat, TexFormat, Txtr, max_mip_count};
use crate::formats::{asset_id_string, fourcc_string};
use crate::image::RgbaImage;
use crate::load::source::{self, Resource};
use crate::schema::pak::PakReport;
use crate::schema::txtr::TxtrReport;
use crate::schema::{json_or_text, sha256_hex};

/// `info` for a whole PAK: the named table and the resource table.
pub fn info_pak(res: &Resource, json: bool) -> anyhow::Result<String> {
    let pak = Pak::parse(&res.bytes, &res.label)?;
    let report = PakReport::new(&pak, &res.bytes, res.id);
    Ok(json_or_text(&report, json, PakReport::text)?)
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
    Ok(json_or_text(&report, json, TxtrReport::text)?)
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
    let (model, warnings) = crate::load::load(&crate::load::LoadRequest::new(spec))?;
    let files = crate::export::write_model_texture_pngs(&model.assets.textures, dir, all_mips)?;
    let mut text = format!(
        "{}: wrote {files} PNGs of {} textures to {}",
        model.label,
        model.assets.textures.len(),
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
    let palette_format = palette
        .map(|p| {
            PaletteFormat::from_name(p)
                .with_context(|| format!("unknown palette format {p:?} (IA8, RGB565 or RGB5A3)"))
        })
        .transpose()?;
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
    crate::atomic::write_atomically(out_txtr, &bytes)
        .with_context(|| format!("writing {}", out_txtr.display()))?;
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
