//! Decoded textures as PNG files: level 0 as `STEM.png`, further mip levels (when asked)
//! as `STEM.mipK.png`.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::{ExportError, write_atomic};
use crate::image::RgbaImage;
use crate::model::TextureData;

/// One PNG written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TextureFile {
    pub path: PathBuf,
    pub level: usize,
    pub width: u32,
    pub height: u32,
}

/// The file name of mip `level` of `stem`.
pub fn png_name(stem: &str, level: usize) -> String {
    if level == 0 {
        format!("{stem}.png")
    } else {
        format!("{stem}.mip{level}.png")
    }
}

/// Mip `level` of `texture` as a PNG file's bytes: RGBA, or RGB without the alpha channel
/// when `alpha` is false (`what` names it in errors).
pub(crate) fn level_png(
    texture: &TextureData,
    level: usize,
    alpha: bool,
    what: &str,
) -> Result<Vec<u8>, ExportError> {
    let (width, height) = texture.level_size(level);
    let image = RgbaImage {
        width,
        height,
        pixels: texture.levels.get(level).cloned().unwrap_or_default(),
    };
    if alpha {
        image.encode_png()
    } else {
        image.encode_rgb_png()
    }
    .map_err(|source| ExportError::Png {
        what: what.to_string(),
        source,
    })
}

/// Writes level 0 of `texture` (every level with `all_mips`) into `dir`.
pub fn write_texture_pngs(
    texture: &TextureData,
    stem: &str,
    dir: &Path,
    all_mips: bool,
) -> Result<Vec<TextureFile>, ExportError> {
    let count = if all_mips { texture.levels.len() } else { 1 };
    (0..count)
        .map(|level| {
            write_level_png(
                texture,
                level,
                &dir.join(png_name(stem, level)),
                &format!("{stem} level {level}"),
            )
        })
        .collect()
}

/// Every texture of a model as `DIR/0xID.png` (and its levels with `all_mips`), in ID
/// order; returns how many PNGs were written.
pub fn write_model_texture_pngs(
    textures: &std::collections::HashMap<u64, TextureData>,
    dir: &Path,
    all_mips: bool,
) -> Result<usize, ExportError> {
    std::fs::create_dir_all(dir).map_err(|source| ExportError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut ids: Vec<_> = textures.keys().copied().collect();
    ids.sort_unstable();
    let mut files = 0;
    for id in ids {
        let stem = crate::formats::asset_id_string(id, id > u64::from(u32::MAX));
        files += write_texture_pngs(&textures[&id], &stem, dir, all_mips)?.len();
    }
    Ok(files)
}

/// Writes mip `level` of `texture` exactly (RGBA8) as a PNG at `path`, through a temporary
/// file and a rename (`what` names it in errors).
pub fn write_level_png(
    texture: &TextureData,
    level: usize,
    path: &Path,
    what: &str,
) -> Result<TextureFile, ExportError> {
    if level >= texture.levels.len() {
        return Err(ExportError::Invalid(format!(
            "{what}: the texture has {} mip levels",
            texture.levels.len()
        )));
    }
    let (width, height) = texture.level_size(level);
    write_atomic(path, &level_png(texture, level, true, what)?)?;
    Ok(TextureFile {
        path: path.to_path_buf(),
        level,
        width,
        height,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn writes_every_level_with_all_mips() {
        let dir = std::env::temp_dir().join(format!("tevscope-png-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let t = TextureData {
            width: 4,
            height: 2,
            levels: vec![vec![7; 4 * 2 * 4], vec![9; 2 * 4], vec![1; 4]],
        };
        let one = write_texture_pngs(&t, "t", &dir, false).unwrap();
        assert_eq!(one.len(), 1);
        let all = write_texture_pngs(&t, "t", &dir, true).unwrap();
        let sizes: Vec<_> = all.iter().map(|f| (f.width, f.height)).collect();
        assert_eq!(sizes, vec![(4, 2), (2, 1), (1, 1)]);
        let back = RgbaImage::load_png(dir.join("t.mip1.png")).unwrap();
        assert_eq!((back.width, back.height), (2, 1));
        assert_eq!(back.pixels, vec![9; 8]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
