//! End-to-end tests of the model renderer ([`tevscope::render::Scene`]).
//!
//! - Every CMDL of the conformance folder (and `pwe/`, `areas/`, `mp3/`) renders without error to a
//!   non-empty image, textures resolved as sibling `0xID.TXTR` files.
//! - Golden images of models built here with the CMDL builder (multi-stage TEV, alpha
//!   blend, additive, punchthrough, a UV scroll at a fixed time, a lit sphere) and of the
//!   posed skinned conformance cube, with the tolerance stated in [`golden`].
//! - GPU skinning equals CPU skinning: the posed cube drawn with GPU skinning and the same
//!   cube with CPU-skinned positions/normals drawn unskinned give the same pixels.

mod golden;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use glam::Vec3;
use golden::{check_golden, compare, out_dir};
use tevscope::anim::{Clip, Skeleton};
use tevscope::camera::OrbitCamera;
use tevscope::formats::Game;
use tevscope::formats::anim::Anim;
use tevscope::formats::cinf::Cinf;
use tevscope::formats::cmdl::Cmdl;
use tevscope::formats::cmdl::builder::{CmdlBuilder, MeshVertex};
use tevscope::formats::cskr::Cskr;
use tevscope::formats::txtr::Txtr;
use tevscope::gx::types::{
    AlphaTest, AttnFn, Blend, BlendFactor, BlendMode, ChannelControl, ColorSrc, DiffuseFn,
    GX_IDENTITY, GX_PTIDENTITY, Material, TevStage, TexGen, TexGenSrc, TexGenType, UvAnimation,
    flags,
};
use tevscope::image::RgbaImage;
use tevscope::load::{ModelAssets, SkinAssets};
use tevscope::model::TextureData;
use tevscope::render::scene::Scene;
use tevscope::render::{RenderContext, ShaderPath};

fn ctx() -> Option<RenderContext> {
    RenderContext::for_tests()
}

// ---------------------------------------------------------------------------------------
// Conformance models.

fn sibling_textures(cmdl: &Cmdl, dir: &Path) -> HashMap<u64, TextureData> {
    let mut out = HashMap::new();
    for id in cmdl.texture_ids() {
        let name = tevscope::formats::asset_id_string(id, id > u64::from(u32::MAX));
        let path = dir.join(format!("{name}.TXTR"));
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let txtr = Txtr::parse(&bytes, &path.display().to_string()).expect("sibling TXTR");
        out.insert(id, tevscope::load::decode_texture(&txtr).expect("decode").0);
    }
    out
}

#[test]
fn every_conformance_model_renders() {
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    let Some(ctx) = ctx() else { return };
    let mut files: Vec<PathBuf> = [
        dir.clone(),
        dir.join("pwe"),
        dir.join("areas"),
        dir.join("mp3"),
    ]
    .iter()
    .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
    .map(|e| e.path())
    .filter(|p| {
        p.extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("cmdl"))
    })
    .collect();
    files.sort();
    assert!(files.len() >= 7, "{files:?}");
    for path in files {
        let bytes = std::fs::read(&path).expect("read");
        let cmdl = Cmdl::parse(&bytes, &path.display().to_string()).expect("parse");
        let mut assets = ModelAssets::new(cmdl);
        assets.textures =
            sibling_textures(&assets.cmdl, path.parent().expect("parent of a fixture"));
        let textures = assets.textures.len();
        let mut scene = Scene::new(&ctx, assets.cpu_model().expect("model")).expect("scene");
        let image = scene
            .render_to_image(&ctx, 96, 96, false)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let name = path
            .file_name()
            .expect("name")
            .to_string_lossy()
            .into_owned();
        let _ = image.save_png(out_dir().join(format!("conformance_{name}.png")));
        // Pixels that differ from the background (some gizmo materials write alpha 0 and
        // no depth, so coverage is judged on colour).
        let background = image.pixel(0, 0);
        let covered = image.pixels.chunks(4).filter(|p| **p != background).count();
        let transparent = scene
            .render_to_image(&ctx, 96, 96, true)
            .expect("transparent");
        assert_eq!(transparent.pixel(0, 0)[3], 0, "transparent background");
        eprintln!(
            "{}: {covered} pixels, {textures} textures, warnings {:?}",
            path.display(),
            scene.warnings
        );
        assert!(
            covered > 50,
            "{}: only {covered} pixels drawn",
            path.display()
        );
    }
}

/// What `tevscope render`, screenshots and turntables write ([`Scene::render_to_image`]) is
/// opaque unless a transparent background is asked for, its RGB exactly as drawn: only the
/// game's alpha, which is not coverage, is dropped. Over the demo, every conformance model
/// and a room.
#[test]
fn written_images_are_opaque_with_the_drawn_rgb() {
    use tevscope::load::{LoadRequest, load, scene_lights};
    use tevscope::render::{ClearMode, OffscreenTarget};
    let Some(ctx) = ctx() else { return };
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak");
    let mut specs: Vec<String> = ["showcase", "worm_character", "room"]
        .iter()
        .map(|m| format!("{demo}:{m}"))
        .collect();
    if let Some(dir) = tevscope::testing::conformance_dir() {
        let mut files: Vec<PathBuf> = [dir.clone(), dir.join("pwe")]
            .iter()
            .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
            .map(|e| e.path())
            .filter(|p| {
                p.extension()
                    .is_some_and(|e| e.eq_ignore_ascii_case("cmdl"))
            })
            .collect();
        files.sort();
        assert!(files.len() >= 6, "{files:?}");
        files.push(dir.join("areas/mp1_area.MREA"));
        specs.extend(files.iter().map(|p| p.display().to_string()));
    }
    let (w, h) = (128, 96);
    let (mut game_alpha_total, mut transparent_total) = (0, 0);
    for spec in &specs {
        let (model, _) = load(&LoadRequest::new(spec)).unwrap_or_else(|e| panic!("{spec}: {e:#}"));
        let mut scene = Scene::new(&ctx, model.assets.cpu_model().expect("model")).expect(spec);
        scene.set_lights(scene_lights(None, &model.light_layers).expect("lights"));
        let written = scene.render_to_image(&ctx, w, h, false).expect(spec);
        // The same frame as drawn, with the game's alpha.
        let target = OffscreenTarget::new(&ctx, w, h).expect("target");
        scene
            .render(&ctx, &target, ClearMode::BACKGROUND)
            .expect(spec);
        let drawn = target.read_rgba(&ctx).expect("readback");
        let game_alpha = drawn.pixels.chunks(4).filter(|p| p[3] != 255).count();
        game_alpha_total += game_alpha;
        let not_opaque = written.pixels.chunks(4).filter(|p| p[3] != 255).count();
        assert_eq!(not_opaque, 0, "{spec}: pixels not opaque");
        let rgb_changed = written
            .pixels
            .chunks(4)
            .zip(drawn.pixels.chunks(4))
            .filter(|(a, b)| a[..3] != b[..3])
            .count();
        assert_eq!(
            rgb_changed, 0,
            "{spec}: RGB changed ({game_alpha} game-alpha pixels)"
        );
        // A transparent background keeps the drawn alpha where no surface wrote depth (0
        // where nothing is drawn), RGB as drawn.
        let clear = scene.render_to_image(&ctx, w, h, true).expect(spec);
        scene
            .render(&ctx, &target, ClearMode::Transparent)
            .expect(spec);
        let drawn = target.read_rgba(&ctx).expect("readback");
        for (a, b) in clear.pixels.chunks(4).zip(drawn.pixels.chunks(4)) {
            assert!(
                a[..3] == b[..3] && (a[3] == b[3] || a[3] == 255),
                "{spec}: {a:?} {b:?}"
            );
        }
        transparent_total += clear.pixels.chunks(4).filter(|p| p[3] == 0).count();
    }
    assert!(transparent_total > 1000, "{transparent_total}");
    // The game writes alpha below 255 on these models: without the rule they would fail.
    assert!(game_alpha_total > 1000, "{game_alpha_total}");
}

// ---------------------------------------------------------------------------------------
// Built models.

fn stage(color: [u32; 4], alpha: [u32; 4], kcsel: u8, raster: u8, tex: bool) -> TevStage {
    let word = |i: [u32; 4]| i[0] | i[1] << 5 | i[2] << 10 | i[3] << 15;
    let (map, coord) = if tex { (0, 0) } else { (0xFF, 0xFF) };
    // Combine 0x100: add, no bias, scale 1, clamp, → PREV.
    TevStage::from_words(
        word(color),
        word(alpha),
        0x100,
        0x100,
        0,
        kcsel,
        raster,
        map,
        coord,
    )
    .expect("valid stage")
}

// Colour inputs.
const CPREV: u32 = 0;
const TEXC: u32 = 8;
const RASC: u32 = 10;
const HALF: u32 = 13;
const KONST: u32 = 14;
const CZERO: u32 = 15;
// Alpha inputs.
const TEXA: u32 = 4;
const RASA: u32 = 5;
const AZERO: u32 = 7;
const RASTER_COLOR0A0: u8 = 4;

fn texgen(mtx: u32) -> TexGen {
    TexGen {
        kind: TexGenType::Mtx2x4,
        source: TexGenSrc::Tex(0),
        gx_tex_mtx: mtx,
        normalize: false,
        gx_post_mtx: GX_PTIDENTITY,
    }
}

/// COLOR0 unlit from the vertex colour (channel count 1), so rasterized colours show.
const VERTEX_COLOR0: ChannelControl = ChannelControl {
    lighting: false,
    ambient_src: ColorSrc::Register,
    material_src: ColorSrc::Vertex,
    light_mask: 0,
    diffuse_fn: DiffuseFn::None,
    attn_fn: AttnFn::None,
};

fn material(stages: Vec<TevStage>, textured: bool) -> Material {
    Material {
        stages,
        texgens: if textured {
            vec![texgen(GX_IDENTITY)]
        } else {
            vec![]
        },
        texture_count: textured as usize,
        konst: [[255, 64, 0, 255], [0; 4], [0; 4], [0; 4]],
        konst_count: 1,
        registers: Material::DEFAULT_REGISTERS,
        color0: Some(VERTEX_COLOR0),
        channel_count: 1,
        channel_alpha: tevscope::gx::ChannelAlpha::ENGINE,
        blend: Blend::OPAQUE,
        alpha_test: AlphaTest::ALWAYS,
        depth_write: true,
        depth_sorted: false,
        uv_animations: vec![],
        flags: flags::KONST | flags::DEPTH_WRITE,
    }
}

/// A 16×16 checker (two colours, alpha 255 / 0 in alternate cells for punchthrough) with
/// its full mip chain.
fn checker() -> TextureData {
    let level = |size: u32| -> Vec<u8> {
        let cell = (size / 4).max(1);
        (0..size * size)
            .flat_map(|i| {
                let (x, y) = (i % size, i / size);
                if ((x / cell) + (y / cell)).is_multiple_of(2) {
                    [240, 220, 40, 255]
                } else {
                    [30, 60, 200, 0]
                }
            })
            .collect()
    };
    TextureData {
        width: 16,
        height: 16,
        levels: [16, 8, 4, 2, 1].into_iter().map(level).collect(),
    }
}

const TEX_ID: u32 = 0x1000_0001;

/// A square facing +Y (the camera at yaw 0) with its lower-right corner (as seen) at
/// (x, z); counter-clockwise on screen.
fn quad(
    b: &mut CmdlBuilder,
    material: u32,
    x: f32,
    z: f32,
    y: f32,
    size: f32,
    colors: [[u8; 4]; 4],
) {
    let corners = [
        ([x, y, z], [1.0, 1.0]),
        ([x - size, y, z], [0.0, 1.0]),
        ([x - size, y, z + size], [0.0, 0.0]),
        ([x, y, z + size], [1.0, 0.0]),
    ];
    let v: Vec<MeshVertex> = corners
        .iter()
        .zip(colors)
        .map(|((p, uv), c)| {
            MeshVertex::new(*p)
                .normal([0.0, 1.0, 0.0])
                .color(c)
                .uv(0, *uv)
        })
        .collect();
    b.add_mesh(material, &v, &[[0, 1, 2], [0, 2, 3]])
        .expect("quad");
}

fn sphere(b: &mut CmdlBuilder, material: u32, center: [f32; 3], radius: f32) {
    let (rings, segments) = (12u32, 20u32);
    let c = Vec3::from(center);
    let mut v = Vec::new();
    for r in 0..=rings {
        let theta = std::f32::consts::PI * r as f32 / rings as f32;
        for s in 0..=segments {
            let phi = std::f32::consts::TAU * s as f32 / segments as f32;
            let n = Vec3::new(
                theta.sin() * phi.cos(),
                theta.sin() * phi.sin(),
                theta.cos(),
            );
            v.push(
                MeshVertex::new((c + n * radius).to_array())
                    .normal(n.to_array())
                    .color([255; 4]),
            );
        }
    }
    let mut tris = Vec::new();
    let row = segments + 1;
    for r in 0..rings {
        for s in 0..segments {
            let (a, bb, cc, d) = (
                r * row + s,
                r * row + s + 1,
                (r + 1) * row + s,
                (r + 1) * row + s + 1,
            );
            tris.push([a, cc, bb]);
            tris.push([bb, cc, d]);
        }
    }
    // Counter-clockwise seen from outside.
    for t in &mut tris {
        let p = |i: u32| Vec3::from(v[i as usize].position);
        let n = (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0]));
        let out = (p(t[0]) + p(t[1]) + p(t[2])) / 3.0 - c;
        if n.dot(out) < 0.0 {
            t.swap(1, 2);
        }
    }
    tris.retain(|t| {
        let p = |i: u32| Vec3::from(v[i as usize].position);
        (p(t[1]) - p(t[0])).cross(p(t[2]) - p(t[0])).length() > 1e-7
    });
    b.add_mesh(material, &v, &tris).expect("sphere");
}

const WHITE4: [[u8; 4]; 4] = [[255; 4]; 4];

/// Builds the golden test model: one row of material showcases.
fn showcase() -> Cmdl {
    let mut b = CmdlBuilder::new(Game::Mp1);
    // 0: texture × vertex colour.
    let modulate = material(
        vec![stage(
            [CZERO, TEXC, RASC, CZERO],
            [AZERO, TEXA, RASA, AZERO],
            0x0C,
            RASTER_COLOR0A0,
            true,
        )],
        true,
    );
    // 1: two stages: texture, then halfway to konst K0.
    let mut multi = material(
        vec![
            stage(
                [CZERO, CZERO, CZERO, TEXC],
                [AZERO, AZERO, AZERO, TEXA],
                0x0C,
                0xFF,
                true,
            ),
            stage(
                [CPREV, KONST, HALF, CZERO],
                [AZERO, AZERO, AZERO, AZERO],
                0x0C,
                0xFF,
                false,
            ),
        ],
        true,
    );
    multi.stages[1].alpha_in = [tevscope::gx::types::AlphaInput::from_bits(7).expect("zero"); 4];
    // 2: alpha blend of the vertex colour (alpha 128), sorted.
    let mut blend = material(
        vec![stage(
            [CZERO, CZERO, CZERO, RASC],
            [AZERO, AZERO, AZERO, RASA],
            0x0C,
            RASTER_COLOR0A0,
            false,
        )],
        false,
    );
    blend.blend = Blend {
        mode: BlendMode::Blend,
        src: BlendFactor::SrcAlpha,
        dst: BlendFactor::InvSrcAlpha,
    };
    blend.depth_sorted = true;
    blend.depth_write = false;
    blend.flags = flags::KONST | flags::TRANSPARENT;
    // 3: additive texture.
    let mut additive = material(
        vec![stage(
            [CZERO, CZERO, CZERO, TEXC],
            [AZERO, AZERO, AZERO, TEXA],
            0x0C,
            0xFF,
            true,
        )],
        true,
    );
    additive.blend = Blend {
        mode: BlendMode::Blend,
        src: BlendFactor::One,
        dst: BlendFactor::One,
    };
    additive.depth_sorted = true;
    additive.depth_write = false;
    additive.flags = flags::KONST | flags::TRANSPARENT;
    // 4: punchthrough: checker alpha 0 cells are cut out.
    let mut punch = material(
        vec![stage(
            [CZERO, CZERO, CZERO, TEXC],
            [AZERO, AZERO, AZERO, TEXA],
            0x0C,
            0xFF,
            true,
        )],
        true,
    );
    punch.alpha_test = AlphaTest::PUNCHTHROUGH;
    // 5: UV scroll through TEXMTX0.
    let mut scroll = material(
        vec![stage(
            [CZERO, CZERO, CZERO, TEXC],
            [AZERO, AZERO, AZERO, TEXA],
            0x0C,
            0xFF,
            true,
        )],
        true,
    );
    scroll.texgens = vec![texgen(30)];
    scroll.uv_animations = vec![UvAnimation::Scroll {
        offset_u: 0.0,
        offset_v: 0.0,
        speed_u: 0.5,
        speed_v: 0.25,
    }];
    // 6: lit (COLOR0 lit by the basic light rig, material and ambient registers).
    let mut lit = material(
        vec![stage(
            [CZERO, CZERO, CZERO, RASC],
            [AZERO, AZERO, AZERO, RASA],
            0x0C,
            RASTER_COLOR0A0,
            false,
        )],
        false,
    );
    lit.channel_count = 1;
    lit.color0 = Some(ChannelControl {
        lighting: true,
        ambient_src: ColorSrc::Register,
        material_src: ColorSrc::Register,
        light_mask: 0xFF,
        diffuse_fn: DiffuseFn::Clamp,
        attn_fn: AttnFn::Spot,
    });
    let ids = [TEX_ID];
    let m: Vec<u32> = [
        (&modulate, &ids[..]),
        (&multi, &ids[..]),
        (&blend, &[][..]),
        (&additive, &ids[..]),
        (&punch, &ids[..]),
        (&scroll, &ids[..]),
        (&lit, &[][..]),
    ]
    .iter()
    .map(|(mat, t)| b.add_gx_material(mat, t))
    .collect();
    let colors = [
        [255, 0, 0, 255],
        [0, 255, 0, 255],
        [0, 0, 255, 255],
        [255, 255, 255, 255],
    ];
    // Top row (z 1.2…2.2): modulate, multi-stage, punchthrough, scroll; the screen's
    // right is world −X.
    quad(&mut b, m[0], 3.3, 1.2, 0.0, 1.0, colors);
    quad(&mut b, m[1], 2.1, 1.2, 0.0, 1.0, WHITE4);
    quad(&mut b, m[4], 0.9, 1.2, 0.0, 1.0, WHITE4);
    quad(&mut b, m[5], -0.3, 1.2, 0.0, 1.0, WHITE4);
    // Bottom row: an opaque backdrop with the blended and additive quads in front.
    quad(&mut b, m[0], 3.3, 0.0, -0.2, 2.2, WHITE4);
    quad(&mut b, m[2], 2.8, 0.3, 0.3, 1.0, [[40, 200, 255, 128]; 4]);
    quad(&mut b, m[3], 2.0, 0.6, 0.5, 1.0, WHITE4);
    sphere(&mut b, m[6], [-0.9, 0.0, 0.6], 0.6);
    b.build().expect("showcase model")
}

fn front_camera(scene: &Scene) -> OrbitCamera {
    let mut c = tevscope::camera::OrbitCamera::framing(&scene.aabb());
    c.yaw_degrees = 0.0;
    c.pitch_degrees = 0.0;
    c.distance *= 0.6;
    c
}

#[test]
fn golden_material_showcase() {
    let Some(ctx) = ctx() else { return };
    let mut assets = ModelAssets::new(showcase());
    assets.textures.insert(u64::from(TEX_ID), checker());
    let mut scene = Scene::new(&ctx, assets.cpu_model().expect("model")).expect("scene");
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    scene.set_camera(front_camera(&scene));
    scene.set_time(0.25);
    let image = scene
        .render_to_image(&ctx, 320, 200, false)
        .expect("render");
    check_golden("showcase", &image);
    // The UV scroll moves with time: another time gives another picture.
    scene.set_time(0.75);
    let later = scene
        .render_to_image(&ctx, 320, 200, false)
        .expect("render");
    assert!(
        compare(&image, &later, 0, 0.0).is_some(),
        "UV scroll did not move"
    );
}

// ---------------------------------------------------------------------------------------
// Skinning.

struct SkinnedCube {
    cmdl: Cmdl,
    skeleton: Skeleton,
    cskr: Cskr,
    clip: Clip,
}

fn skinned_cube() -> Option<SkinnedCube> {
    let (cmdl, _) = tevscope::testing::conformance_file("mp1_cube_skinned.CMDL")?;
    let (cskr, _) = tevscope::testing::conformance_file("mp1_cube.CSKR")?;
    let (cinf, _) = tevscope::testing::conformance_file("mp1_skeleton.CINF")?;
    let (anim, _) = tevscope::testing::conformance_file("mp1_wave_compressed.ANIM")?;
    Some(SkinnedCube {
        cmdl: Cmdl::parse(&cmdl, "mp1_cube_skinned.CMDL").expect("cmdl"),
        skeleton: Skeleton::from_cinf(
            &Cinf::parse(&cinf, "mp1_skeleton.CINF", None).expect("cinf"),
        )
        .expect("skeleton"),
        cskr: Cskr::parse(&cskr, "mp1_cube.CSKR", None).expect("cskr"),
        clip: Clip::from_anim(&Anim::parse(&anim, "wave.ANIM", None).expect("anim")).expect("clip"),
    })
}

const POSE_TIME: f64 = 0.4;

#[test]
fn gpu_skinning_matches_cpu_skinning() {
    let Some(cube) = skinned_cube() else { return };
    let Some(ctx) = ctx() else { return };
    let assets = ModelAssets {
        cmdl: cube.cmdl.clone(),
        textures: HashMap::new(),
        skin: Some(SkinAssets {
            skeleton: cube.skeleton.clone(),
            cskr: cube.cskr.clone(),
            clips: vec![("wave".into(), cube.clip.clone())],
        }),
        mp3_alts: Default::default(),
    };
    let mut gpu = Scene::new(&ctx, assets.cpu_model().expect("model")).expect("skinned scene");
    assert!(gpu.is_skinned());
    // The wave moves the cube well outside its bind box: step back.
    let mut camera = tevscope::camera::OrbitCamera::framing(&gpu.aabb());
    camera.distance *= 2.5;
    gpu.set_camera(camera);
    let bind = gpu
        .render_to_image(&ctx, 128, 128, true)
        .expect("bind pose");
    gpu.set_animation(Some(0));
    gpu.set_time(POSE_TIME);
    let posed = gpu.render_to_image(&ctx, 128, 128, true).expect("posed");
    assert!(
        compare(&bind, &posed, 8, 0.01).is_some(),
        "the pose at {POSE_TIME}s should move the cube"
    );

    // CPU reference: the same pose, skinned on the CPU, drawn unskinned.
    let cpu_cmdl = golden::cpu_skinned(
        &cube.cmdl,
        &cube.skeleton,
        &cube.cskr,
        &cube.clip,
        POSE_TIME as f32,
        &gpu.options().pose,
    );
    let mut cpu = Scene::new(&ctx, ModelAssets::new(cpu_cmdl).cpu_model().expect("model"))
        .expect("cpu scene");
    assert!(!cpu.is_skinned());
    cpu.set_camera(camera);
    let reference = cpu
        .render_to_image(&ctx, 128, 128, true)
        .expect("cpu render");
    // Same triangles through two float paths: allow 1 LSB and a few edge pixels.
    if let Some(msg) = compare(&posed, &reference, 1, 0.002) {
        let _ = posed.save_png(out_dir().join("skin_gpu.png"));
        let _ = reference.save_png(out_dir().join("skin_cpu.png"));
        panic!(
            "GPU vs CPU skinning: {msg} (images in {})",
            out_dir().display()
        );
    }
    check_golden("skinned_cube_posed", &posed);
}

// ---------------------------------------------------------------------------------------
// Material edits and the CLI.

#[test]
fn material_edits_update_the_picture() {
    let Some(ctx) = ctx() else { return };
    let mut assets = ModelAssets::new(showcase());
    assets.textures.insert(u64::from(TEX_ID), checker());
    let mut scene = Scene::new(&ctx, assets.cpu_model().expect("model")).expect("scene");
    scene.set_camera(front_camera(&scene));
    let before = scene
        .render_to_image(&ctx, 160, 100, false)
        .expect("render");

    // A value edit (konst K0 of the multi-stage material): same shader, new uniforms.
    let key = scene.shader_key(1).cloned();
    let original = scene.material(0, 1).expect("material 1").clone();
    let mut konst = original.clone();
    konst.konst[0] = [0, 255, 0, 255];
    assert!(scene.set_material(0, 1, konst.clone()));
    assert_eq!(scene.material(0, 1), Some(&konst));
    assert_ne!(
        scene.model().material(0, 1),
        Some(&konst),
        "the model stays as loaded"
    );
    let value = scene
        .render_to_image(&ctx, 160, 100, false)
        .expect("render");
    assert_eq!(
        scene.shader_key(1).cloned(),
        key,
        "a konst edit keeps the shader"
    );
    assert!(
        compare(&before, &value, 0, 0.0).is_some(),
        "konst edit not visible"
    );
    // The value edit draws what a scene built with it draws; dropping it draws the model.
    let rebuilt = |material: &tevscope::gx::types::Material| {
        let mut cpu = assets.cpu_model().expect("model");
        *cpu.material_mut(0, 1).expect("material 1") = material.clone();
        let mut fresh = Scene::new(&ctx, cpu).expect("fresh scene");
        fresh.set_view(*scene.view());
        fresh
            .render_to_image(&ctx, 160, 100, false)
            .expect("render")
    };
    assert_eq!(compare(&value, &rebuilt(&konst), 0, 0.0), None);
    scene.clear_material_override(0, 1);
    assert_eq!(scene.material(0, 1), Some(&original));
    let cleared = scene
        .render_to_image(&ctx, 160, 100, false)
        .expect("render");
    assert_eq!(compare(&cleared, &before, 0, 0.0), None);
    assert!(scene.set_material(0, 1, konst));

    // A structural edit (stage 1 drops the konst blend): a new pipeline, drawn by the
    // ubershader until it is built; the settled picture equals a scene built with it.
    let mut edited = scene.material(0, 1).expect("material 1").clone();
    edited.stages.truncate(1);
    assert!(scene.set_material(0, 1, edited.clone()));
    let target = tevscope::render::OffscreenTarget::new(&ctx, 160, 100).expect("target");
    scene
        .render(&ctx, &target, tevscope::render::ClearMode::BACKGROUND)
        .expect("frame during compilation");
    assert_ne!(
        scene.shader_key(1).cloned(),
        key,
        "a stage edit changes the shader"
    );
    let settled = scene
        .render_to_image(&ctx, 160, 100, false)
        .expect("render");
    assert_eq!(
        scene.material_status(1).map(|s| s.0),
        Some(tevscope::render::pipeline_cache::SelectedPath::Specialized)
    );
    let mut fresh_cmdl = assets.cmdl.clone();
    fresh_cmdl.material_sets[0].materials[1] = tevscope::formats::material::Material::from_gx(
        &edited,
        assets.cmdl.material_sets[0].materials[1]
            .texture_indices
            .clone(),
        assets.cmdl.material_sets[0].materials[1].vertex_attributes,
    );
    let mut fresh = Scene::new(
        &ctx,
        ModelAssets {
            cmdl: fresh_cmdl,
            ..assets
        }
        .cpu_model()
        .expect("model"),
    )
    .expect("fresh scene");
    fresh.set_view(*scene.view());
    let want = fresh
        .render_to_image(&ctx, 160, 100, false)
        .expect("render");
    assert_eq!(compare(&settled, &want, 0, 0.0), None);
}

#[test]
fn cli_renders_a_character_from_a_pak() {
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    if ctx().is_none() {
        return;
    }
    let pak = dir.join("mp1_fixtures.pak");
    let out = out_dir().join("cli_character.png");
    let mut req =
        tevscope::cli::render::RenderRequest::new(format!("{}:0xAC000001", pak.display()), &out);
    (req.width, req.height) = (96, 64);
    req.anim = Some("wave_compressed".into());
    req.time = 0.4;
    req.lights = Some(format!("{}:0xAE000001", pak.display()));
    req.camera = Some([30.0, 20.0, 6.0]);
    let report = tevscope::cli::render::render_model(&req).expect("render");
    eprintln!("{report}");
    assert!(report.contains("wave_compressed"), "{report}");
    assert!(
        !report.contains("not found"),
        "textures resolve in the PAK: {report}"
    );
    let image = RgbaImage::load_png(&out).expect("PNG written");
    assert_eq!((image.width, image.height), (96, 64));
    let bg = image.pixel(0, 0);
    assert!(image.pixels.chunks(4).filter(|p| *p != bg).count() > 100);

    req.anim = Some("no such animation".into());
    let err = tevscope::cli::render::render_model(&req).expect_err("unknown animation");
    assert!(format!("{err:#}").contains("wave_uncompressed"), "{err:#}");

    let spec = format!("{}:0xAC000001", pak.display());
    for (path, name, exact_blend) in [
        (ShaderPath::Specialized, "specialized", false),
        (ShaderPath::Uber, "uber", false),
        (ShaderPath::Specialized, "specialized", true),
    ] {
        let mut req = tevscope::cli::render::RenderRequest::new(spec.clone(), "");
        (req.width, req.height, req.shader, req.exact_blend) = (64, 64, path, exact_blend);
        let bench = tevscope::cli::render::bench(&req, 3, true).expect("bench");
        let v: serde_json::Value = serde_json::from_str(&bench).expect("json");
        assert_eq!(v["frames"], 3);
        assert_eq!(v["shader"], name);
        assert_eq!(v["exact_blend"], exact_blend);
        assert!(v["fps_median"].as_f64().is_some_and(|f| f > 0.0));
    }
}

/// `tevscope bench` numbers at 1280×720 (run with `--ignored --nocapture`; prints only).
#[test]
#[ignore = "benchmark report, prints timings"]
fn bench_1280x720() {
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak");
    for spec in [
        format!("{demo}:showcase"),
        format!("{demo}:worm_character"),
        dir.join("0x7EC00000.CMDL").display().to_string(),
        dir.join("pwe/Sphere.CMDL").display().to_string(),
        format!("{}:0xAC000001", dir.join("mp1_fixtures.pak").display()),
    ] {
        for (path, exact_blend) in [
            (ShaderPath::Specialized, false),
            (ShaderPath::Uber, false),
            (ShaderPath::Specialized, true),
        ] {
            let mut req = tevscope::cli::render::RenderRequest::new(spec.clone(), "");
            (req.width, req.height, req.shader, req.exact_blend) = (1280, 720, path, exact_blend);
            let r = tevscope::cli::render::bench(&req, 60, false).expect("bench");
            eprintln!("{r}");
        }
    }
}

// ---------------------------------------------------------------------------------------
// Exact blending.

/// With `TevOptions::exact_blend`, blended surfaces match GX's integer blend (the CPU
/// reference `gx::tev::blend`) exactly, for several factor pairs (and a source alpha of 1,
/// which blends as 0), each over an opaque backdrop; host fixed-function blending misses
/// by an LSB somewhere.
#[test]
fn shader_blending_is_exact() {
    use tevscope::gx::tev::{BlendOptions, TevOptions, blend as gx_blend};
    let Some(ctx) = ctx() else { return };
    let flat = |blend: Blend| {
        let mut m = material(
            vec![stage(
                [CZERO, CZERO, CZERO, RASC],
                [AZERO, AZERO, AZERO, RASA],
                0x0C,
                RASTER_COLOR0A0,
                false,
            )],
            false,
        );
        if blend != Blend::OPAQUE {
            m.blend = blend;
            m.depth_sorted = true;
            m.depth_write = false;
            m.flags = flags::KONST | flags::TRANSPARENT;
        }
        m
    };
    let blends = [
        (
            BlendMode::Blend,
            BlendFactor::SrcAlpha,
            BlendFactor::InvSrcAlpha,
        ),
        (BlendMode::Blend, BlendFactor::SrcAlpha, BlendFactor::One),
        (BlendMode::Blend, BlendFactor::SrcClr, BlendFactor::Zero),
        (
            BlendMode::Blend,
            BlendFactor::InvSrcClr,
            BlendFactor::SrcClr,
        ),
        (
            BlendMode::Blend,
            BlendFactor::DstAlpha,
            BlendFactor::InvSrcAlpha,
        ),
        // CMDL materials store only the factors (Prime always blends in BLEND mode), so
        // SUBTRACT is covered by the shader tests and the CPU reference, not here.
        (BlendMode::Blend, BlendFactor::One, BlendFactor::InvSrcAlpha),
    ]
    .map(|(mode, src, dst)| Blend { mode, src, dst });
    let backdrop = [37, 201, 113, 255];
    let fronts = [
        [200, 100, 37, 77],
        [13, 250, 128, 1],
        [129, 3, 255, 200],
        [90, 180, 60, 130],
        [250, 250, 250, 33],
        [20, 40, 60, 255],
    ];
    let mut b = CmdlBuilder::new(Game::Mp1);
    let back = b.add_gx_material(&flat(Blend::OPAQUE), &[]);
    // One column per blend: the backdrop behind, the blended square in front.
    for (i, (blend, front)) in blends.iter().zip(fronts).enumerate() {
        let x = i as f32 * 1.5;
        let m = b.add_gx_material(&flat(*blend), &[]);
        quad(&mut b, back, x, 0.0, -0.5, 1.0, [backdrop; 4]);
        quad(&mut b, m, x, 0.0, 0.5, 1.0, [front; 4]);
    }
    let cmdl = b.build().expect("model");
    let camera = |scene: &Scene| {
        let mut c = tevscope::camera::OrbitCamera::framing(&scene.aabb());
        (c.yaw_degrees, c.pitch_degrees) = (0.0, 0.0);
        c
    };
    let render = |exact: bool| {
        let options = tevscope::render::SceneOptions {
            tev: TevOptions {
                exact_blend: exact,
                ..TevOptions::default()
            },
            ..Default::default()
        };
        let mut scene = Scene::with_options(
            &ctx,
            ModelAssets::new(cmdl.clone()).cpu_model().expect("model"),
            options,
        )
        .expect("scene");
        let mut c = camera(&scene);
        c.distance *= 1.2;
        scene.set_camera(c);
        scene.finish_pipelines(&ctx);
        // The target as drawn: the blend's alpha too (written images are opaque).
        let target = tevscope::render::OffscreenTarget::new(&ctx, 480, 120).expect("target");
        scene
            .render(&ctx, &target, tevscope::render::ClearMode::BACKGROUND)
            .expect("render");
        let image = target.read_rgba(&ctx).expect("readback");
        (scene, image)
    };
    let (scene, exact) = render(true);
    let (_, host) = render(false);
    let mut host_misses = 0;
    for (i, (blend, front)) in blends.iter().zip(fronts).enumerate() {
        let centre = Vec3::new(i as f32 * 1.5 - 0.5, 0.5, 0.5);
        let cam = scene.view().frame_camera(480.0 / 120.0);
        let clip = cam.clip_from_view * cam.view_from_world * centre.extend(1.0);
        let (x, y) = (
            ((clip.x / clip.w * 0.5 + 0.5) * 480.0) as u32,
            ((0.5 - clip.y / clip.w * 0.5) * 120.0) as u32,
        );
        let want = gx_blend(*blend, front, backdrop, BlendOptions::default());
        assert_eq!(
            exact.pixel(x, y),
            want,
            "{blend:?} of {front:?} over {backdrop:?} at ({x}, {y})"
        );
        host_misses += usize::from(host.pixel(x, y) != want);
    }
    assert!(
        host_misses > 0,
        "host blending matched GX everywhere: pick other values"
    );
}

/// Exact blending copies only the pixels a blended draw covers, and draws whose pixels meet
/// none drawn since the last copy share it: surfaces overlapping on screen must still each
/// read what the ones behind them wrote. Two overlapping blended squares and one apart, over
/// an opaque backdrop: every region equals GX's integer blend applied in back-to-front order.
#[test]
fn overlapping_shader_blended_surfaces_read_what_is_behind_them() {
    use tevscope::gx::tev::{BlendOptions, TevOptions, blend as gx_blend};
    let Some(ctx) = ctx() else { return };
    let flat = |blend: Option<Blend>| {
        let mut m = material(
            vec![stage(
                [CZERO, CZERO, CZERO, RASC],
                [AZERO, AZERO, AZERO, RASA],
                0x0C,
                RASTER_COLOR0A0,
                false,
            )],
            false,
        );
        if let Some(blend) = blend {
            m.blend = blend;
            m.depth_sorted = true;
            m.depth_write = false;
            m.flags = flags::KONST | flags::TRANSPARENT;
        }
        m
    };
    let over = Blend {
        mode: BlendMode::Blend,
        src: BlendFactor::SrcAlpha,
        dst: BlendFactor::InvSrcAlpha,
    };
    let add = Blend {
        dst: BlendFactor::One,
        ..over
    };
    let backdrop = [37, 201, 113, 255];
    let (fa, fb, fc) = ([200, 100, 37, 77], [90, 180, 60, 130], [13, 250, 128, 201]);
    let mut b = CmdlBuilder::new(Game::Mp1);
    let back = b.add_gx_material(&flat(None), &[]);
    let ma = b.add_gx_material(&flat(Some(over)), &[]);
    let mb = b.add_gx_material(&flat(Some(add)), &[]);
    let mc = b.add_gx_material(&flat(Some(over)), &[]);
    quad(&mut b, back, 2.5, -1.0, -0.5, 4.0, [backdrop; 4]);
    // A spans x −0.5…0.5 behind B (x 0…1); C (x 1.5…2.5) is apart from both.
    quad(&mut b, ma, 0.5, 0.0, 0.0, 1.0, [fa; 4]);
    quad(&mut b, mb, 1.0, 0.0, 0.5, 1.0, [fb; 4]);
    quad(&mut b, mc, 2.5, 0.0, 0.25, 1.0, [fc; 4]);
    let cmdl = b.build().expect("model");
    let options = tevscope::render::SceneOptions {
        tev: TevOptions {
            exact_blend: true,
            ..TevOptions::default()
        },
        ..Default::default()
    };
    let mut scene = Scene::with_options(
        &ctx,
        ModelAssets::new(cmdl).cpu_model().expect("model"),
        options,
    )
    .expect("scene");
    let mut c = tevscope::camera::OrbitCamera::framing(&scene.aabb());
    (c.yaw_degrees, c.pitch_degrees) = (0.0, 0.0);
    scene.set_camera(c);
    scene.finish_pipelines(&ctx);
    let (w, h) = (320, 200);
    let target = tevscope::render::OffscreenTarget::new(&ctx, w, h).expect("target");
    let stats = scene
        .render(&ctx, &target, tevscope::render::ClearMode::BACKGROUND)
        .expect("render");
    let image = target.read_rgba(&ctx).expect("readback");
    let cam = scene.view().frame_camera(w as f32 / h as f32);
    let pixel = |x: f32, y: f32, z: f32| {
        let clip = cam.clip_from_view * cam.view_from_world * Vec3::new(x, y, z).extend(1.0);
        image.pixel(
            ((clip.x / clip.w * 0.5 + 0.5) * w as f32) as u32,
            ((0.5 - clip.y / clip.w * 0.5) * h as f32) as u32,
        )
    };
    let bo = BlendOptions::default();
    let a_only = gx_blend(over, fa, backdrop, bo);
    assert_eq!(pixel(-0.25, 0.0, 0.5), a_only, "A over the backdrop");
    assert_eq!(
        pixel(0.25, 0.5, 0.5),
        gx_blend(add, fb, a_only, bo),
        "B over A over the backdrop"
    );
    assert_eq!(
        pixel(0.75, 0.5, 0.5),
        gx_blend(add, fb, backdrop, bo),
        "B over the backdrop"
    );
    assert_eq!(
        pixel(2.0, 0.25, 0.5),
        gx_blend(over, fc, backdrop, bo),
        "C over the backdrop"
    );
    // A and C share the first copy; B meets A's pixels and needs its own.
    assert_eq!(stats.destination_copies, 3, "{stats:?}");
}

/// Compiled pipelines persist: a context opened on the same store folder after the first one
/// closed starts with the driver's cache filled (where the backend keeps one).
#[test]
fn pipeline_store_persists_across_contexts() {
    let dir = std::env::temp_dir().join(format!("tevscope-store-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let open = || {
        tevscope::render::RenderContext::with_pipeline_store(
            tevscope::render::AdapterPreference::Software,
            Some(&dir),
        )
        .ok()
    };
    let Some(first) = open() else {
        eprintln!("!!!!!!!! no GPU adapter — skipping");
        return;
    };
    let Some(store) = &first.pipeline_store else {
        eprintln!(
            "{:?} keeps no pipeline cache — nothing to persist",
            first.adapter_info.backend
        );
        return;
    };
    assert_eq!(store.loaded_bytes, 0, "a fresh folder starts cold");
    let mut scene = Scene::new(
        &first,
        ModelAssets::new(showcase()).cpu_model().expect("model"),
    )
    .expect("scene");
    scene
        .render_to_image(&first, 64, 64, false)
        .expect("render");
    drop(scene);
    drop(first);
    let second = open().expect("adapter");
    let loaded = second.pipeline_store.as_ref().map_or(0, |s| s.loaded_bytes);
    eprintln!("pipeline store: {loaded} bytes loaded");
    assert!(loaded > 0, "the first context saved its pipelines");
    let _ = std::fs::remove_dir_all(&dir);
}
