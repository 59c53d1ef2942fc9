//! `extract`: every resource of a PAK (or every file of a disc image, see
//! [`crate::load::disc::extract_image`]) written out as loose files that the other commands
//! open, with the PAK's table beside them.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, bail};

use super::write_texture_pngs;
use crate::formats::asset_id_string;
use crate::formats::txtr::Txtr;
use crate::schema::pak::PakReport;

/// `extract PAK OUT_DIR`: writes every resource, decompressed, as `OUT_DIR/0xID.TYPE`
/// (IDs in upper-case hex; raw entries keep their 0xFF padding, which every parser
/// tolerates), so the folder works as a loose-file source for the other commands.
/// Duplicate entries (same ID and type) are written once, first wins. Names and the
/// full table go to `OUT_DIR/pak.json` (the `info --json` report; each resource's
/// `file_name` and `name` link the two). Resources that fail to decompress are
/// skipped and reported in the error after everything else is written. With `png`, every
/// TXTR is also decoded to `OUT_DIR/0xID.png` (level 0); textures that do not decode are
/// listed as warnings.
pub fn extract_to_folder(pak_path: &Path, out_dir: &Path, png: bool) -> anyhow::Result<String> {
    if let Some(done) = crate::load::disc::extract_image(pak_path, out_dir)? {
        return Ok(done);
    }
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
                crate::atomic::write_atomically(&path, &data)
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
    let report = PakReport::new(pak, &archive.bytes()?, None);
    let json_path = out_dir.join("pak.json");
    crate::atomic::write_atomically(
        &json_path,
        serde_json::to_string_pretty(&report)?.as_bytes(),
    )
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
