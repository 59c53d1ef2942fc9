//! `export --bake` (and the viewer's "Bake appearance"): what tevscope draws, baked into
//! one texture per material over the material's UV layout, for the glTF exporter.
//!
//! Each material's surfaces are drawn by a [`Scene`] whose materials bake
//! ([`crate::gx::tev::TevOptions::bake`]): the vertex stage rasterises at the vertex UVs
//! of [`base_color_uv`] while lighting, texgens and the whole TEV run on the real bind
//! pose positions, under the chosen lights, seen by the scene's camera (view-dependent
//! texgens bake what that camera sees). Texels no triangle covers take their covered
//! neighbours' mean for [`DILATE_TEXELS`] rings, so filtering at UV seams does not pull in
//! the background. UVs outside 0…1 fall off the texture (tiled layouts do not bake).

use std::sync::Arc;

use anyhow::{Context as _, Result};

use crate::camera::OrbitCamera;
use crate::gx::bake::{base_color_map, base_color_uv, view_dependent};
use crate::gx::lights::{LightSet, PrimeLight};
use crate::gx::tev::TevOptions;
use crate::image::RgbaImage;
use crate::load::scene_lights;
use crate::model::CpuModel;
use crate::render::RenderContext;
use crate::render::convert::CullMode;
use crate::render::{AdapterPreference, ClearMode, ImageAlpha, OffscreenTarget};
use crate::render::{Scene, SceneOptions};

/// Side of a bake when the material has no base texture.
pub const UNTEXTURED_SIZE: u32 = 512;
/// Default cap on a bake's side (`--bake-size`).
pub const DEFAULT_MAX_SIZE: u32 = 1024;
/// Rings of empty texels filled around covered ones.
pub const DILATE_TEXELS: usize = 4;

/// How to bake.
#[derive(Debug, Clone)]
pub struct BakeRequest {
    pub material_set: usize,
    /// Largest side of a bake texture (the base texture's size, or 512², capped to this).
    pub max_size: u32,
    pub lights: LightSet,
    /// yaw, pitch, distance of the camera view-dependent texgens see (as `render
    /// --camera`); None: the scene's framing.
    pub camera: Option<[f32; 3]>,
}

/// One image per material of the set (None: the material draws no triangles or failed),
/// and what could not be baked exactly.
#[derive(Debug, Default)]
pub struct Bake {
    pub images: Vec<Option<RgbaImage>>,
    pub warnings: Vec<String>,
}

/// `export --bake`: the cap on a baked texture's side, `--lights` and `--camera` as for
/// `render`.
#[derive(Debug, Clone, Default)]
pub struct BakeFlags {
    pub size: u32,
    pub lights: Option<String>,
    pub camera: Option<[f32; 3]>,
}

/// Bakes set `material_set` of `model` as `export --bake` asks (`light_layers`: the
/// loaded area's, for `--lights layerN`).
pub fn bake_for_export(
    model: &Arc<CpuModel>,
    light_layers: &[Vec<PrimeLight>],
    material_set: usize,
    flags: &BakeFlags,
) -> Result<Bake> {
    let request = BakeRequest {
        material_set,
        max_size: flags.size,
        lights: scene_lights(flags.lights.as_deref(), light_layers)?,
        camera: flags.camera,
    };
    bake_headless(model, &request)
}

/// [`bake_materials`] on a render context of its own (the CLI, and the viewer's export,
/// which runs outside its frame loop).
pub fn bake_headless(model: &Arc<CpuModel>, request: &BakeRequest) -> Result<Bake> {
    let ctx = RenderContext::new(AdapterPreference::Hardware)?;
    bake_materials(&ctx, Arc::clone(model), request)
}

/// Bakes every material of `request.material_set` of `model`.
pub fn bake_materials(
    ctx: &RenderContext,
    model: Arc<CpuModel>,
    request: &BakeRequest,
) -> Result<Bake> {
    let options = SceneOptions {
        material_set: request.material_set,
        tev: TevOptions {
            bake: true,
            ..TevOptions::default()
        },
        cull: CullMode::None,
        ..SceneOptions::default()
    };
    let mut scene =
        Scene::with_options(ctx, Arc::clone(&model), options).context("preparing the bake")?;
    scene.set_lights(request.lights.clone());
    if let Some([yaw, pitch, distance]) = request.camera {
        scene.set_camera(OrbitCamera {
            yaw_degrees: yaw,
            pitch_degrees: pitch,
            distance,
            ..crate::camera::OrbitCamera::framing(&scene.aabb())
        });
    }
    scene.set_time(0.0);
    let mut bake = Bake::default();
    let Some(set) = model.material_sets.get(request.material_set) else {
        return Ok(bake);
    };
    for (index, material) in set.materials.iter().enumerate() {
        let Ok(gx) = &material.gx else {
            bake.images.push(None);
            continue;
        };
        let hidden: Vec<bool> = model
            .surfaces
            .iter()
            .map(|s| s.material != index || s.triangles.is_empty())
            .collect();
        if hidden.iter().all(|&h| h) {
            bake.images.push(None);
            continue;
        }
        if view_dependent(gx) {
            bake.warnings.push(format!(
                "material {index}: its texture coordinates follow the camera (reflection); baked as the export camera sees it"
            ));
        }
        let size = base_color_map(gx)
            .and_then(|map| material.textures.get(usize::from(map))?.as_ref().ok())
            .and_then(|id| model.textures.get(id))
            .filter(|t| !t.levels.is_empty())
            .map_or((UNTEXTURED_SIZE, UNTEXTURED_SIZE), |t| t.level_size(0));
        let cap = request.max_size.max(1);
        let (w, h) = (size.0.clamp(1, cap), size.1.clamp(1, cap));
        scene.set_hidden_surfaces(&hidden);
        let target = OffscreenTarget::new(ctx, w, h)?;
        scene.finish_pipelines(ctx);
        // Drawn over two backgrounds: a texel is covered unless it shows both.
        scene.render(ctx, &target, ClearMode::Transparent)?;
        let over_black = target.read_image(ctx, ImageAlpha::AsDrawn)?;
        scene.render(ctx, &target, ClearMode::Color([1.0; 4]))?;
        let over_white = target.read_image(ctx, ImageAlpha::AsDrawn)?;
        let covered: Vec<bool> = over_black
            .pixels
            .chunks_exact(4)
            .zip(over_white.pixels.chunks_exact(4))
            .map(|(b, w)| b != [0; 4] || w != [255; 4])
            .collect();
        if !covered.iter().any(|&c| c) {
            bake.warnings.push(format!(
                "material {index}: no triangle lands inside UV set {}'s 0…1 square; not baked",
                base_color_uv(gx)
            ));
            bake.images.push(None);
            continue;
        }
        let mut image = over_black;
        dilate(&mut image, covered, DILATE_TEXELS);
        bake.images.push(Some(image));
    }
    bake.warnings.append(&mut scene.warnings);
    Ok(bake)
}

/// Fills empty texels next to covered ones with the mean of their covered 8-neighbours,
/// `rings` times; the rest stay transparent black.
pub fn dilate(image: &mut RgbaImage, mut covered: Vec<bool>, rings: usize) {
    let (w, h) = (image.width as usize, image.height as usize);
    for _ in 0..rings {
        let mut next = covered.clone();
        let mut fills = Vec::new();
        for y in 0..h {
            for x in 0..w {
                if covered[y * w + x] {
                    continue;
                }
                let mut sum = [0u32; 4];
                let mut n = 0;
                for (dx, dy) in NEIGHBOURS {
                    let (nx, ny) = (x as isize + dx, y as isize + dy);
                    if nx < 0 || ny < 0 || nx >= w as isize || ny >= h as isize {
                        continue;
                    }
                    let i = ny as usize * w + nx as usize;
                    if covered[i] {
                        for (s, &p) in sum.iter_mut().zip(&image.pixels[i * 4..i * 4 + 4]) {
                            *s += u32::from(p);
                        }
                        n += 1;
                    }
                }
                if n > 0 {
                    fills.push((y * w + x, sum.map(|s| ((s + n / 2) / n) as u8)));
                    next[y * w + x] = true;
                }
            }
        }
        if fills.is_empty() {
            break;
        }
        for (i, px) in fills {
            image.pixels[i * 4..i * 4 + 4].copy_from_slice(&px);
        }
        covered = next;
    }
}

const NEIGHBOURS: [(isize, isize); 8] = [
    (-1, -1),
    (0, -1),
    (1, -1),
    (-1, 0),
    (1, 0),
    (-1, 1),
    (0, 1),
    (1, 1),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dilation_fills_rings_around_covered_texels_only() {
        let mut image = RgbaImage::new(8, 1);
        image.set_pixel(0, 0, [200, 100, 50, 255]);
        let mut covered = vec![false; 8];
        covered[0] = true;
        dilate(&mut image, covered, 3);
        for x in 0..4 {
            assert_eq!(image.pixel(x, 0), [200, 100, 50, 255], "texel {x}");
        }
        assert_eq!(image.pixel(4, 0), [0; 4]);
    }
}
