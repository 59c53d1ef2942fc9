//! Rooms: a generated stress room (600 surfaces, 160 materials in 6 world models, written by
//! tevscope's own MREA writer into a PAK with the demo textures) at 1280×720.
//!
//! - `stress_room/first_frame_cold`: `tevscope render PAK:stress_room` as a fresh process
//!   with empty shader caches (Mesa's on-disk cache and tevscope's pipeline store): opening
//!   to the first exact frame written.
//! - `stress_room/open_to_first_frame`: in this process, device already created: load, build
//!   the scene, draw one frame (ubershader where a pipeline is not ready yet) and wait.
//! - `stress_room/cpu_update`: the per-frame CPU work of a drawn frame (uniforms, sort,
//!   command recording: `FrameStats::cpu`), time and camera moving.
//! - `stress_room/edit_to_frame`, `edit_cpu`: a konst edit handed to the scene directly,
//!   then the next frame (wall time; the frame's CPU update).
//! - `stress_room/edit_to_frame_session`, `edit_cpu_session`: the same edit made as the
//!   viewer makes it — through the application core (`Session::edit_material`: the
//!   document's command, the material derived again) — then handed to the scene.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use tevscope::load::{LoadRequest, load, scene_lights};
use tevscope::render::scene::{ClearMode, Scene};
use tevscope::render::{AdapterPreference, OffscreenTarget, RenderContext};
use tevscope::session::{References, Session};

/// The allocator the `tevscope` binary runs with (`src/main.rs`), so the frame costs measured
/// here are the application's.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

const SIZE: (u32, u32) = (1280, 720);

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tevscope-bench-room-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

fn stress_pak(dir: &Path) -> String {
    let path = dir.join("stress_room.pak");
    let pak = tevscope::demo::room::build_stress_pak(600, 160, 6).expect("stress room builds");
    std::fs::write(&path, pak).expect("write PAK");
    format!("{}:stress_room", path.display())
}

fn open_scene(ctx: &RenderContext, spec: &str) -> Scene {
    let (model, _) = load(&LoadRequest::new(spec)).expect("stress room loads");
    let lights = scene_lights(None, &model.light_layers).expect("lights");
    let mut scene = Scene::new(ctx, model.assets.into_cpu_model().expect("model")).expect("scene");
    scene.set_lights(lights);
    scene
}

fn first_frame_cold(c: &mut Criterion, dir: &Path, spec: &str) {
    let out = dir.join("stress.png");
    let mut group = c.benchmark_group("stress_room");
    group.sample_size(10);
    let mut run = 0u32;
    group.bench_function("first_frame_cold", |b| {
        b.iter(|| {
            run += 1;
            let fresh = dir.join(format!("cold{run}"));
            // Mesa does not create missing parents; without its folder it disables the cache.
            std::fs::create_dir_all(fresh.join("mesa")).expect("cache folder");
            let status = Command::new(env!("CARGO_BIN_EXE_tevscope"))
                .args(["render", spec, "--size", "1280x720", "-o"])
                .arg(&out)
                .env("MESA_SHADER_CACHE_DIR", fresh.join("mesa"))
                .env("TEVSCOPE_CACHE_DIR", fresh.join("store"))
                .stdout(std::process::Stdio::null())
                .status()
                .expect("run tevscope");
            assert!(status.success(), "tevscope render failed");
            let _ = std::fs::remove_dir_all(&fresh);
        })
    });
    group.finish();
}

fn in_process(c: &mut Criterion, spec: &str) {
    let ctx = RenderContext::new(AdapterPreference::Hardware).expect("GPU device");
    let target = OffscreenTarget::new(&ctx, SIZE.0, SIZE.1).expect("target");
    let mut group = c.benchmark_group("stress_room");
    group.sample_size(10);
    group.bench_function("open_to_first_frame", |b| {
        b.iter(|| {
            let mut scene = open_scene(&ctx, spec);
            scene
                .render(&ctx, &target, ClearMode::BACKGROUND)
                .expect("frame");
            ctx.wait_idle().expect("idle");
            black_box(scene)
        })
    });
    let mut scene = open_scene(&ctx, spec);
    scene.finish_pipelines(&ctx);
    let camera = tevscope::camera::OrbitCamera::framing(&scene.aabb());
    let mut frame = 0u32;
    group.sample_size(50);
    group.bench_function("cpu_update", |b| {
        b.iter_custom(|iters| {
            let mut cpu = Duration::ZERO;
            for _ in 0..iters {
                frame += 1;
                scene.set_time(f64::from(frame) / 60.0);
                let mut c = camera;
                c.yaw_degrees += frame as f32 * 0.5;
                scene.set_camera(c);
                let stats = scene
                    .render(&ctx, &target, ClearMode::BACKGROUND)
                    .expect("frame");
                ctx.wait_idle().expect("idle");
                cpu += stats.cpu;
            }
            cpu
        })
    });
    edit_to_frame(&mut group, &ctx, &target, &mut scene);
    edit_through_session(&mut group, &ctx, &target, &mut scene, spec);
    group.finish();
}

/// [`edit_to_frame`] with the edit made in the session's document (what the viewer does).
fn edit_through_session(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    ctx: &RenderContext,
    target: &OffscreenTarget,
    scene: &mut Scene,
    spec: &str,
) {
    let mut session = Session::open(spec, &References::default()).expect("stress room opens");
    let set = scene.material_set();
    let (index, original) = (0..scene.material_count())
        .find_map(|i| {
            scene.material(set, i)?;
            Some((i, session.file_material(set, i)?.clone()))
        })
        .expect("a usable material");
    let mut edit = 0u8;
    let mut edited_frame = || {
        edit = edit.wrapping_add(1);
        let mut m = original.clone();
        m.konst_colors = Some(vec![u32::from_be_bytes([edit, 255 - edit, 128, 255]); 4]);
        session
            .edit_material(set, index, m, "konst", true)
            .expect("edit accepted");
        let gx = session
            .asset()
            .and_then(|a| a.material(set, index))
            .map(|e| e.material.clone())
            .expect("GX material");
        scene.set_material(set, index, gx);
        let stats = scene
            .render(ctx, target, ClearMode::BACKGROUND)
            .expect("frame");
        ctx.wait_idle().expect("idle");
        stats
    };
    group.sample_size(20);
    group.bench_function("edit_to_frame_session", |b| b.iter(&mut edited_frame));
    group.bench_function("edit_cpu_session", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| edited_frame().cpu).sum())
    });
}

fn edit_to_frame(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    ctx: &RenderContext,
    target: &OffscreenTarget,
    scene: &mut Scene,
) {
    let set = scene.material_set();
    let (index, original) = (0..scene.material_count())
        .find_map(|i| Some((i, scene.material(set, i)?.clone())))
        .expect("a usable material");
    let mut edit = 0u8;
    // One value edit, then the next frame drawn to its end.
    let mut edited_frame = || {
        edit = edit.wrapping_add(1);
        let mut m = original.clone();
        m.konst[0] = [edit, 255 - edit, 128, 255];
        scene.set_material(set, index, m);
        let stats = scene
            .render(ctx, target, ClearMode::BACKGROUND)
            .expect("frame");
        ctx.wait_idle().expect("idle");
        stats
    };
    group.sample_size(20);
    group.bench_function("edit_to_frame", |b| b.iter(&mut edited_frame));
    group.bench_function("edit_cpu", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| edited_frame().cpu).sum())
    });
}

fn rooms(c: &mut Criterion) {
    let dir = scratch();
    let spec = stress_pak(&dir);
    first_frame_cold(c, &dir, &spec);
    in_process(c, &spec);
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, rooms);
criterion_main!(benches);
