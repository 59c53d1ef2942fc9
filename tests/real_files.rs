//! Files that modding tools ship and the games load (`conformance/real/`), and PrimeWorldEditor's
//! own files (`conformance/pwe/`): every one must parse, decode to the independently computed
//! hash and draw. A file the game loads is never refused; odd header values are warnings.

use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};
use tevscope::formats::cmdl::Cmdl;
use tevscope::formats::txtr::Txtr;
use tevscope::gx::types::Material;
use tevscope::load::{LoadRequest, load};
use tevscope::render::quad::{QuadOptions, render_material_quad};
use tevscope::render::scene::Scene;
use tevscope::render::{RenderContext, ShaderPath};
use tevscope::testing::conformance_dir;

/// `real/<folder>/textures.json` entries with their folder.
fn listed_textures() -> Option<Vec<(PathBuf, Value)>> {
    let real = conformance_dir()?.join("real");
    let mut out = Vec::new();
    for folder in ["randomprime", "open-prime-rando"] {
        let dir = real.join(folder);
        let json: Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join("textures.json")).expect("textures.json"),
        )
        .expect("textures.json parses");
        for t in json["textures"].as_array().expect("textures[]") {
            out.push((dir.join(t["file"].as_str().expect("file")), t.clone()));
        }
    }
    assert!(out.len() >= 100, "only {} real textures listed", out.len());
    Some(out)
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn every_real_texture_parses_and_decodes_to_its_hash() {
    let Some(textures) = listed_textures() else {
        return;
    };
    let (mut hashed, mut warned) = (0, 0);
    for (path, want) in &textures {
        let label = path.display().to_string();
        let bytes = std::fs::read(path).expect("read");
        let txtr = Txtr::parse(&bytes, &label).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(u64::from(txtr.format.id()), want["txtr_format"], "{label}");
        assert_eq!(u64::from(txtr.width), want["width"], "{label}");
        assert_eq!(u64::from(txtr.height), want["height"], "{label}");
        assert_eq!(
            u64::from(txtr.stored_mip_count),
            want["mip_count"],
            "{label}"
        );
        if txtr.stored_mip_count == 0 {
            assert!(
                txtr.warnings.iter().any(|w| w.contains("mip_count")),
                "{label}: a mip count of 0 warns"
            );
            warned += 1;
        }
        // Every level decodes; the writer gives the file back.
        let (levels, error) = txtr.decode_complete_levels();
        assert!(error.is_none(), "{label}: {error:?}");
        assert_eq!(levels.len() as u32, txtr.mip_count, "{label}");
        assert_eq!(txtr.to_bytes(), bytes, "{label}: byte-identical rewrite");
        if let Some(hash) = want["rgba8_level0_sha256"].as_str() {
            assert_eq!(sha256_hex(&levels[0].pixels), hash, "{label}: level 0");
            hashed += 1;
        }
    }
    eprintln!(
        "{} real textures: {hashed} hashes matched, {warned} with mip count 0",
        textures.len()
    );
    assert!(hashed >= 100);
}

/// Each real texture drawn through the TEV on a quad at its own size, nearest sampling: the
/// pixels on screen are the decoded texels, exactly.
#[test]
fn every_real_texture_draws_its_texels() {
    let Some(textures) = listed_textures() else {
        return;
    };
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let material = Material::texture_passthrough();
    for (path, _) in &textures {
        let label = path.display().to_string();
        let txtr = Txtr::parse(&std::fs::read(path).expect("read"), &label).expect("parse");
        let data = tevscope::load::decode_texture(&txtr).expect("decode").0;
        let (w, h) = (data.width, data.height);
        let options = QuadOptions::new(w, h, ShaderPath::Specialized);
        let image = render_material_quad(&ctx, &material, &[Some(data.clone())], &options)
            .unwrap_or_else(|e| panic!("{label}: {e}"));
        for y in 0..h {
            for x in 0..w {
                assert_eq!(
                    image.pixel(x, y),
                    data.texel(x, y),
                    "{label}: pixel ({x}, {y})"
                );
            }
        }
    }
}

/// The community model opens with its two textures found beside it, and draws.
#[test]
fn real_model_opens_with_its_textures_and_draws() {
    let Some(dir) = conformance_dir() else { return };
    let path = dir.join("real/randomprime/randovania_gamecube.CMDL");
    let (loaded, warnings) = load(&LoadRequest::new(&path.display().to_string())).expect("load");
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(loaded.assets.textures.len(), 2, "both textures resolved");
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let mut scene = Scene::new(&ctx, loaded.assets.cpu_model().expect("model")).expect("scene");
    let image = scene.render_to_image(&ctx, 128, 128, true).expect("render");
    let covered = image.pixels.chunks(4).filter(|p| p[3] != 0).count();
    assert!(covered > 128 * 128 / 10, "only {covered} pixels drawn");
}

/// Every PrimeWorldEditor model and the wrapped-display-list model parse with every surface
/// decoded (no surface stopped early).
#[test]
fn pwe_and_tool_written_models_decode_every_surface() {
    let Some(dir) = conformance_dir() else { return };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join("pwe"))
        .expect("pwe/")
        .flatten()
        .map(|e| e.path())
        .filter(|p| has_ext(p, "cmdl"))
        .collect();
    files.push(dir.join("areas/mp1_dl_size_wrapped.CMDL"));
    files.push(dir.join("real/randomprime/randovania_gamecube.CMDL"));
    for path in files {
        let label = path.display().to_string();
        let cmdl = Cmdl::parse(&std::fs::read(&path).expect("read"), &label).expect("parse");
        for (i, s) in cmdl.surfaces.iter().enumerate() {
            assert!(
                s.mesh.error.is_none(),
                "{label} surface {i}: {:?}",
                s.mesh.error
            );
        }
    }
}

fn has_ext(p: &Path, ext: &str) -> bool {
    p.extension().is_some_and(|e| e.eq_ignore_ascii_case(ext))
}
