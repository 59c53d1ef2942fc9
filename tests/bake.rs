//! `export --bake`: what tevscope draws, baked into each material's UV layout.
//! - layout: a texture read through the base colour's UV set bakes to itself, texel for
//!   texel (bake size = texture size, so each texel centre samples its own texel, up to
//!   GX's sub-texel sampling offset);
//! - exactness: on a flat plane under the basic preset (ambient + one directional light:
//!   constant lighting), every opaque showcase material's baked texels at probe points
//!   equal tevscope's render of that surface with the same lights, and the exported
//!   glTF's base colour image (decoded from the file) holds the same texels;
//! - the baked glTF passes the Khronos validator with `extras.gx` kept;
//! - a material whose texgens follow the camera (environment map) is warned about.

#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Arc;

use tevscope::export::gltf::{GltfOptions, build_gltf};
use tevscope::gx::lights::LightPreset;
use tevscope::gx::types::{Blend, Material, UvAnimation};
use tevscope::image::RgbaImage;
use tevscope::load::{LoadRequest, load};
use tevscope::model::shapes::{PreviewShape, preview_model};
use tevscope::model::{CpuMaterial, CpuModel, TextureData};
use tevscope::render::RenderContext;
use tevscope::render::scene::Scene;
use tevscope::views::bake::{BakeRequest, bake_materials};

const SHOWCASE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak:showcase");

fn request(max_size: u32) -> BakeRequest {
    BakeRequest {
        material_set: 0,
        max_size,
        lights: LightPreset::Basic.light_set(),
        camera: None,
    }
}

fn out_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bake");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn a_texture_bakes_to_itself_texel_for_texel() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let (w, h) = (16u32, 8u32);
    let texture = RgbaImage::from_fn(w, h, |x, y| [(x * 16) as u8, (y * 32) as u8, 77, 255]);
    let id = 0x1234;
    let material = CpuMaterial {
        gx: Ok(Material::texture_passthrough()),
        textures: vec![Ok(id)],
        second_draw: None,
    };
    let textures = HashMap::from([(
        id,
        TextureData {
            width: w,
            height: h,
            levels: vec![texture.pixels.clone()],
        },
    )]);
    let model = preview_model(PreviewShape::Plane, material, textures);
    let bake = bake_materials(&ctx, Arc::new(model), &request(1024)).unwrap();
    let image = bake.images[0].as_ref().expect("the plane bakes");
    assert_eq!(
        (image.width, image.height),
        (w, h),
        "the base texture's size"
    );
    // GX evaluates texture coordinates 0.005 px before the pixel centre and truncates
    // them to 1/128 texel (`gx.md` §14), so a bake texel takes up to 2/128 of its upper
    // and left neighbours (wrapping at the edges): within 4 here, where neighbours differ
    // by 16 and 32 (a flipped or half-texel-shifted layout would be off by 8 or more).
    for y in 0..h {
        for x in 0..w {
            let (got, want) = (image.pixel(x, y), texture.pixel(x, y));
            let off = (0..4).map(|c| got[c].abs_diff(want[c])).max().unwrap();
            assert!(
                off <= 4,
                "texel ({x}, {y}): baked {got:?}, texture {want:?}"
            );
        }
    }
}

#[test]
fn baked_texels_equal_the_render_and_the_gltf_validates() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let (source, _) = load(&LoadRequest::new(SHOWCASE)).unwrap();
    let source = source.assets.into_cpu_model().unwrap();
    let lights = LightPreset::Basic.light_set();
    let dir = out_dir();
    let mut files = Vec::new();
    let mut compared = 0;
    for index in 0..source.material_sets[0].materials.len() {
        let mut material = source.material_sets[0].materials[index].clone();
        let Ok(gx) = &material.gx else { continue };
        if gx.blend != Blend::OPAQUE {
            continue;
        }
        // White placeholders: a flat surface under constant lighting draws one colour,
        // so any pixel of the render is the TEV at any point of the surface.
        material.textures.clear();
        let model: CpuModel = preview_model(PreviewShape::Plane, material, Default::default());
        let mut scene = Scene::new(&ctx, model.clone()).unwrap();
        scene.set_lights(lights.clone());
        let render = scene.render_to_image(&ctx, 64, 64, false).unwrap();
        let expected = render.pixel(32, 32);
        let bake = bake_materials(&ctx, Arc::new(model.clone()), &request(64)).unwrap();
        let image = bake.images[0].clone().expect("the plane bakes");
        assert_eq!((image.width, image.height), (64, 64), "512² capped at 64");
        for (x, y) in [(1, 1), (32, 32), (10, 50), (62, 3), (63, 63)] {
            let got = image.pixel(x, y);
            assert_eq!(
                got[..3],
                expected[..3],
                "material {index}: texel ({x}, {y})"
            );
        }
        // The exported file's base colour image holds the same texels.
        let options = GltfOptions {
            name: format!("material {index}"),
            baked: bake.images.clone(),
            ..Default::default()
        };
        let export = build_gltf(&model, &options).unwrap();
        assert_eq!(export.summary.baked, 1);
        let path = dir.join(format!("plane{index}.glb"));
        export.write(&path).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        let g = gltf::Gltf::from_slice(&bytes).unwrap();
        let m = g.document.materials().next().unwrap();
        let pbr = m.pbr_metallic_roughness();
        assert_eq!(pbr.base_color_factor(), [1.0; 4]);
        let extras: serde_json::Value =
            serde_json::from_str(m.extras().as_ref().unwrap().get()).unwrap();
        assert_eq!(extras["baked"], true);
        assert!(
            extras["gx"].is_object(),
            "the GX material stays in extras.gx"
        );
        let info = pbr.base_color_texture().unwrap();
        let gltf::image::Source::View { view, .. } = info.texture().source().source() else {
            panic!("embedded image expected");
        };
        let blob = g.blob.as_ref().unwrap();
        let png = &blob[view.offset()..view.offset() + view.length()];
        let file_image = RgbaImage::decode_png(png).unwrap();
        assert_eq!((file_image.width, file_image.height), (64, 64));
        for (x, y) in [(32, 32), (5, 60)] {
            assert_eq!(
                file_image.pixel(x, y)[..3],
                expected[..3],
                "material {index}: file texel ({x}, {y})"
            );
        }
        files.push(path);
        compared += 1;
    }
    assert!(compared >= 2, "compared {compared} materials");
    validate(&files);
}

#[test]
fn view_dependent_texgens_are_warned() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let mut gx = Material::texture_passthrough();
    gx.uv_animations = vec![UvAnimation::InverseModelViewNoTranslation];
    let material = CpuMaterial {
        gx: Ok(gx),
        textures: Vec::new(),
        second_draw: None,
    };
    let model = preview_model(PreviewShape::Plane, material, Default::default());
    let bake = bake_materials(&ctx, Arc::new(model), &request(32)).unwrap();
    assert!(bake.images[0].is_some());
    assert!(
        bake.warnings
            .iter()
            .any(|w| w.contains("material 0") && w.contains("follow the camera")),
        "{:?}",
        bake.warnings
    );
}

/// The Khronos validator over `files` (skipped loudly when node or the package is
/// missing, as tests/export.rs does; CI requires it).
fn validate(files: &[PathBuf]) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gltf");
    let installed = dir
        .join("node_modules/gltf-validator/package.json")
        .is_file();
    if Command::new("node").arg("--version").output().is_err() || !installed {
        eprintln!(
            "\n!!!!!!!! KHRONOS glTF VALIDATOR UNAVAILABLE — skipping only the validator check.\n"
        );
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI needs the glTF validator"
        );
        return;
    }
    let out = Command::new("node")
        .arg(dir.join("validate.mjs"))
        .args(files)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let reports: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reports.len(), files.len(), "{stdout}");
    for (file, report) in files.iter().zip(&reports) {
        assert_eq!(
            report["errors"],
            0,
            "{}: {}",
            file.display(),
            report["messages"]
        );
    }
}

/// `tevscope export FILE --bake [--bake-size N] -o OUT`: every material baked, capped at N,
/// the view-dependent ones warned about; a malformed `--camera` is refused.
#[test]
fn export_bake_command_line() {
    if RenderContext::for_tests().is_none() {
        return;
    }
    let out = out_dir().join("cli.glb");
    let run = |extra: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tevscope"))
            .args(["export", SHOWCASE, "--bake", "-o"])
            .arg(&out)
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&["--bake-size", "32", "--json"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let report: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(report["baked"], report["materials"]);
    assert!(
        report["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("follow the camera")),
        "{report}"
    );
    let g = gltf::Gltf::open(&out).unwrap();
    let m = g.materials().next().unwrap();
    let info = m.pbr_metallic_roughness().base_color_texture().unwrap();
    let gltf::image::Source::View { view, .. } = info.texture().source().source() else {
        panic!("embedded image expected");
    };
    let blob = g.blob.as_ref().unwrap();
    let png = &blob[view.offset()..view.offset() + view.length()];
    let image = RgbaImage::decode_png(png).unwrap();
    assert!(image.width <= 32 && image.height <= 32, "{image:?}");
    let o = run(&["--camera", "1,2"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--camera"));
}
