//! File → Export: the open model or character as glTF, and its textures as PNG files.
//! Plain data work on the document's [`ModelAssets`] (no GPU, no egui), so it runs
//! headless in tests. Material edits made in the viewer are not part of the export: it
//! writes the materials as loaded.

use std::path::Path;

use crate::export::{GltfOptions, build_gltf, write_texture_pngs};
use crate::load::ModelAssets;

/// Writes `assets` as glTF to `path` (`.glb` or `.gltf`): material set `set`, every
/// animation or only `only_animation`. Returns the line the viewer shows.
pub fn export_gltf(
    assets: &ModelAssets,
    name: &str,
    path: &Path,
    set: usize,
    only_animation: Option<usize>,
) -> anyhow::Result<String> {
    let options = GltfOptions {
        material_set: set,
        animations: only_animation.map(|i| vec![i]),
        name: name.to_string(),
        ..Default::default()
    };
    let export = build_gltf(assets, &options)?;
    export.write(path)?;
    let s = &export.summary;
    let mut line = format!(
        "Exported {} ({} vertices, {} joints, {} animations, {} textures)",
        path.display(),
        s.vertices,
        s.joints,
        s.animations.len(),
        s.textures
    );
    if !export.warnings.is_empty() {
        line.push_str(&format!(
            "; {} warnings, first: {}",
            export.warnings.len(),
            export.warnings[0]
        ));
    }
    Ok(line)
}

/// Writes every texture of `assets` (all mip levels) into `dir` as `0xID.png`,
/// `0xID.mip1.png`, …. Returns the line the viewer shows.
pub fn export_textures(assets: &ModelAssets, dir: &Path) -> anyhow::Result<String> {
    std::fs::create_dir_all(dir)?;
    let mut ids: Vec<u64> = assets.textures.keys().copied().collect();
    ids.sort_unstable();
    let mut files = 0;
    for id in &ids {
        let stem = crate::formats::asset_id_string(*id, *id > u64::from(u32::MAX));
        files += write_texture_pngs(&assets.textures[id], &stem, dir, true)?.len();
    }
    Ok(format!(
        "Exported {} textures ({files} PNGs with their mip levels) to {}",
        ids.len(),
        dir.display()
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn exports_the_demo_character_and_its_textures() {
        let pak = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak");
        let (model, _) =
            crate::load::load_model(&format!("{pak}:worm_character"), None, None, None, None)
                .unwrap();
        let dir = std::env::temp_dir().join(format!("tevscope-ui-export-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let glb = dir.join("worm.glb");
        let line = export_gltf(&model.assets, "worm", &glb, 0, Some(1)).unwrap();
        assert!(line.contains("1 animations"), "{line}");
        let g = ::gltf::Gltf::open(&glb).unwrap();
        assert_eq!(g.animations().count(), 1);
        assert_eq!(g.animations().next().unwrap().name(), Some("curl"));
        let line = export_textures(&model.assets, &dir.join("png")).unwrap();
        assert!(line.starts_with("Exported 1 textures"), "{line}");
        assert!(dir.join("png/0xDE020015.png").is_file());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
