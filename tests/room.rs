//! The demo room (`assets/demo.pak:room`, an MREA made by tevscope's own writers), loaded as
//! `tevscope render` loads it and lit by its own light layer 0:
//!
//! - golden images from two camera positions (tolerance and update switch in [`golden`]);
//! - the lightmapped floor's pixels equal the CPU TEV reference (`gx::tev`) fed with the
//!   lightmap texel and the tile texel under them;
//! - `tevscope bench` on the room.

mod golden;

use glam::Vec3;
use golden::{check_golden, compare, project};
use tevscope::camera::OrbitCamera;
use tevscope::demo::room::{self, FLOOR, HALF_X, HALF_Y, floor_lightmap_uv, floor_tile_uv};
use tevscope::demo::textures::{ROOM_BLOCK, TEX_ROOM_LIGHTMAP, TEX_ROOM_TILES};
use tevscope::gx::tev::{PixelInputs, TevProgram, evaluate};
use tevscope::image::RgbaImage;
use tevscope::load::{LoadRequest, LoadedModel, ModelAssets, load, scene_lights};
use tevscope::model::{CpuModel, TextureData};
use tevscope::render::scene::Scene;
use tevscope::render::{ClearMode, OffscreenTarget, RenderContext};

const ROOM: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak:room");

fn room() -> LoadedModel {
    let (model, warnings) = load(&LoadRequest::new(ROOM)).expect("the demo room loads");
    assert!(warnings.is_empty(), "{warnings:?}");
    model
}

fn camera(yaw: f32, pitch: f32, distance: f32) -> OrbitCamera {
    OrbitCamera {
        yaw_degrees: yaw,
        pitch_degrees: pitch,
        distance,
        target: [0.0, 0.0, 1.0],
        ..OrbitCamera::default()
    }
}

#[test]
fn room_golden_images_lit_by_its_own_layer0() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let model = room();
    let layers = model.light_layers.clone();
    assert_eq!(layers.len(), 2);
    assert_eq!(layers[0].len(), 4);
    // No --lights: the area's layer 0, which differs from the basic preset and layer 1.
    let own = scene_lights(None, &layers).expect("lights");
    assert_eq!(own, scene_lights(Some("layer0"), &layers).expect("layer0"));
    assert!(scene_lights(Some("layer2"), &layers).is_err());
    let mut scene = Scene::new(&ctx, model.assets.into_cpu_model().expect("model")).expect("scene");
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    assert_eq!(scene.model().surfaces.len(), 5);
    scene.set_time(1.0);
    let (w, h) = (480, 300);
    for (name, cam) in [
        ("demo_room_overview", camera(30.0, 35.0, 11.0)),
        ("demo_room_inside", camera(205.0, 18.0, 4.5)),
    ] {
        scene.set_camera(cam);
        scene.set_lights(own.clone());
        let image = scene.render_to_image(&ctx, w, h, false).expect("render");
        // The floor, the box and the wall behind it are drawn.
        for p in [
            Vec3::new(0.5, 0.0, 0.0),
            Vec3::new(room::BOX_CENTRE[0], room::BOX_CENTRE[1], 0.75),
        ] {
            let (x, y) = project(&cam, w, h, p).unwrap_or_else(|| panic!("{name}: {p} off screen"));
            assert_ne!(
                image.pixel(x, y),
                image.pixel(0, 0),
                "{name}: {p} not drawn"
            );
        }
        for other in ["basic", "layer1"] {
            scene.set_lights(scene_lights(Some(other), &layers).expect("lights"));
            let lit = scene.render_to_image(&ctx, w, h, false).expect("render");
            assert!(
                compare(&image, &lit, 0, 0.0).is_some(),
                "{name}: lights {other} draw the same picture as layer 0"
            );
        }
        check_golden(name, &image);
    }
}

/// The decoded RGBA of texel (x, y) of level 0.
fn texel(t: &TextureData, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * t.width + x) * 4) as usize;
    t.levels[0][i..i + 4].try_into().expect("4 bytes")
}

/// Every [`ROOM_BLOCK`] block of the texture is one colour (so any filter reads it there).
fn assert_flat_blocks(name: &str, t: &TextureData) {
    assert_eq!(t.levels.len(), 1, "{name}: one level, no mip selection");
    for y in 0..t.height {
        for x in 0..t.width {
            let corner = texel(t, x - x % ROOM_BLOCK, y - y % ROOM_BLOCK);
            assert_eq!(texel(t, x, y), corner, "{name} texel ({x}, {y})");
        }
    }
}

/// The texel under `uv` (wrapping) and whether a bilinear footprint half a texel wider
/// than a texel stays inside its flat block.
fn block_texel(t: &TextureData, uv: [f32; 2]) -> ([u8; 4], bool) {
    let coord = |c: f32, n: u32| (c * n as f32).rem_euclid(n as f32);
    let (u, v) = (coord(uv[0], t.width), coord(uv[1], t.height));
    let inside = |c: f32| (1.0..=ROOM_BLOCK as f32 - 1.0).contains(&(c % ROOM_BLOCK as f32));
    (texel(t, u as u32, v as u32), inside(u) && inside(v))
}

#[test]
fn lightmapped_floor_pixels_equal_the_cpu_tev_reference() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let model = room();
    let assets = model.assets;
    let lightmap = &assets.textures[&u64::from(TEX_ROOM_LIGHTMAP)];
    let tiles = &assets.textures[&u64::from(TEX_ROOM_TILES)];
    assert_flat_blocks("lightmap", lightmap);
    assert_flat_blocks("tiles", tiles);
    let material = assets.cmdl.material_sets[0]
        .gx_materials()
        .expect("GX materials")
        .swap_remove(FLOOR as usize);
    // The floor alone, seen from above.
    let mut cmdl = assets.cmdl.clone();
    cmdl.surfaces.retain(|s| s.material_index == FLOOR);
    assert_eq!(cmdl.surfaces.len(), 1);
    let mut floor = ModelAssets::new(cmdl);
    floor.textures = assets.textures.clone();
    let mut scene = Scene::new(&ctx, floor.into_cpu_model().expect("model")).expect("scene");
    let cam = OrbitCamera {
        target: [0.0, 0.0, 0.0],
        ..camera(20.0, 70.0, 11.0)
    };
    scene.set_camera(cam);
    let (w, h) = (512, 384);
    let image: RgbaImage = scene.render_to_image(&ctx, w, h, false).expect("render");
    let program = TevProgram::from_material(&material, &scene.options().tev);
    let (mut checked, mut colours) = (0, std::collections::BTreeSet::new());
    let steps = 64;
    for j in 0..steps {
        for i in 0..steps {
            let p = [
                -HALF_X + 2.0 * HALF_X * (i as f32 + 0.5) / steps as f32,
                -HALF_Y + 2.0 * HALF_Y * (j as f32 + 0.5) / steps as f32,
                0.0,
            ];
            let (lm, lm_flat) = block_texel(lightmap, floor_lightmap_uv(p));
            let (tile, tile_flat) = block_texel(tiles, floor_tile_uv(p));
            if !(lm_flat && tile_flat) {
                continue;
            }
            let (x, y) = project(&cam, w, h, Vec3::from(p)).expect("floor point on screen");
            // Map 0 is the lightmap (TEX0 from the short UVs), map 1 the tiles (TEX1).
            let inputs = PixelInputs::sampled(&program, [[0; 4]; 2], |map, _| match map {
                0 => lm,
                _ => tile,
            });
            let want = evaluate(&program, &inputs).rgba;
            let got = image.pixel(x, y);
            assert_eq!(
                got[..3],
                want[..3],
                "floor at ({:.3}, {:.3}), pixel ({x}, {y}): lightmap {lm:?}, tile {tile:?}",
                p[0],
                p[1]
            );
            checked += 1;
            colours.insert(want);
        }
    }
    assert!(checked > 300, "only {checked} floor points checked");
    assert!(
        colours.len() > 20,
        "only {} distinct colours",
        colours.len()
    );
}

/// `tevscope bench AREA`: the room's surfaces and triangles, a first frame and frame times;
/// a light layer the room lacks is an error.
#[test]
fn bench_times_the_room() {
    if RenderContext::for_tests().is_none() {
        return;
    }
    let mut req = tevscope::cli::render::RenderRequest::new(ROOM, "");
    (req.width, req.height) = (96, 64);
    let r = tevscope::cli::render::bench_report(&req, 3).expect("bench");
    assert_eq!((r.surfaces, r.triangles, r.frames), (5, 352, 3));
    assert!(r.first_frame_ms > 0.0 && r.fps_median > 0.0, "{r:?}");
    // The last frame's draws: at least one, at most one per surface (merged runs draw fewer).
    assert!(r.draws >= 1 && r.draws <= r.surfaces, "{r:?}");
    // The uniform update is timed inside the CPU frame.
    assert!(
        r.update_ms_median > 0.0 && r.update_ms_median <= r.cpu_ms_median,
        "{r:?}"
    );
    req.lights = Some("layer2".into());
    let e = tevscope::cli::render::bench_report(&req, 1).expect_err("no layer 2");
    assert!(format!("{e:#}").contains("2 light layers"), "{e:#}");
}

/// The benchmarks' stress room (`surfaces`, `materials`, `models` world models), written
/// to a PAK by the project's writers and opened as a user would.
fn stress_room(surfaces: u32, materials: u32, models: u32) -> CpuModel {
    let path = std::env::temp_dir().join(format!(
        "tevscope-stress-{surfaces}-{}.pak",
        std::process::id()
    ));
    let pak = room::build_stress_pak(surfaces, materials, models).expect("stress room");
    std::fs::write(&path, pak).expect("write");
    let loaded = load(&LoadRequest::new(&format!(
        "{}:stress_room",
        path.display()
    )));
    let _ = std::fs::remove_file(&path);
    let (model, _) = loaded.expect("stress room loads");
    model.assets.into_cpu_model().expect("model")
}

/// A room whose surfaces interleave their materials (the stress room) draws its opaque
/// surfaces in material runs — fewer draws — and its transparent ones back to front with
/// one material's together where their pixels allow — fewer material changes — and
/// exactly the same pixels as in file order, from several views (one grazing, where the
/// transparent panels cover each other) and with world models hidden.
#[test]
fn interleaved_materials_draw_fewer_draws_and_the_same_pixels() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let model = stress_room(96, 16, 3);
    let mut scene = Scene::new(&ctx, model).expect("scene");
    let surfaces = scene.model().surfaces.len();
    assert_eq!(surfaces, 96);
    let target = OffscreenTarget::new(&ctx, 256, 160).expect("target");
    scene.finish_pipelines(&ctx);
    let frame = |scene: &mut Scene| {
        let stats = scene
            .render(&ctx, &target, ClearMode::BACKGROUND)
            .expect("render");
        (stats, target.read_rgba(&ctx).expect("read"))
    };
    let hidden: Vec<bool> = (0..surfaces).map(|i| i % 7 == 3).collect();
    for (yaw, pitch, hide) in [
        (30.0, 40.0, false),
        (200.0, 40.0, false),
        (110.0, 40.0, true),
        (75.0, 8.0, false),
    ] {
        scene.set_camera(OrbitCamera {
            yaw_degrees: yaw,
            pitch_degrees: pitch,
            ..tevscope::camera::OrbitCamera::framing(&scene.aabb())
        });
        scene.set_hidden_surfaces(if hide { &hidden } else { &[] });
        scene.set_draw_plan(true);
        let (planned_stats, planned) = frame(&mut scene);
        scene.set_draw_plan(false);
        let (file_stats, file_order) = frame(&mut scene);
        let (planned_draws, file_draws) = (planned_stats.draws, file_stats.draws);
        assert!(
            planned_draws < file_draws,
            "yaw {yaw}: {planned_draws} draws planned, {file_draws} in file order"
        );
        // Opaque runs are one draw per material; transparent surfaces of one material
        // gathered side by side share a bind (and, adjacent in the index buffer, a draw).
        let planned_binds = planned_stats.material_binds;
        assert!(
            planned_binds <= planned_draws && planned_binds < file_stats.material_binds,
            "yaw {yaw}, pitch {pitch}: {planned_binds} material binds for {planned_draws} draws \
             planned, {} in file order",
            file_stats.material_binds
        );
        assert!(
            planned.pixels == file_order.pixels,
            "yaw {yaw}, hidden {hide}: the planned order changed pixels"
        );
        assert!(planned.pixels.chunks(4).any(|p| p != &planned.pixels[..4]));
    }
}

/// The opaque draws replay from a recorded bundle and the sorted ones from a cached list:
/// hiding and showing surfaces on a scene that has drawn before must draw exactly what a
/// fresh scene with that visibility draws, as the camera turns.
#[test]
fn a_scene_redrawn_after_visibility_changes_matches_a_fresh_one() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let model = stress_room(64, 16, 2);
    let scene = || {
        let mut scene = Scene::new(&ctx, model.clone()).expect("scene");
        scene.finish_pipelines(&ctx);
        scene
    };
    let mut reused = scene();
    let target = OffscreenTarget::new(&ctx, 192, 128).expect("target");
    let frame = |scene: &mut Scene, yaw: f32, hidden: &[bool]| {
        scene.set_camera(OrbitCamera {
            yaw_degrees: yaw,
            pitch_degrees: 35.0,
            ..tevscope::camera::OrbitCamera::framing(&scene.aabb())
        });
        scene.set_hidden_surfaces(hidden);
        scene
            .render(&ctx, &target, ClearMode::BACKGROUND)
            .expect("render");
        target.read_rgba(&ctx).expect("read").pixels
    };
    let every_third: Vec<bool> = (0..64).map(|i| i % 3 == 1).collect();
    let shown = frame(&mut reused, 20.0, &[]);
    for (yaw, hidden) in [
        (20.0, &every_third[..]),
        (80.0, &every_third[..]),
        (80.0, &[][..]),
        (140.0, &[][..]),
    ] {
        let again = frame(&mut reused, yaw, hidden);
        let fresh = frame(&mut scene(), yaw, hidden);
        assert!(
            again == fresh,
            "yaw {yaw}, {} hidden: the reused scene drew something else",
            hidden.iter().filter(|&&h| h).count()
        );
        if yaw == 20.0 {
            assert!(again != shown, "hiding every third surface changed nothing");
        }
    }
}
