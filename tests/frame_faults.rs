//! Frames of a big room reuse the heap pages of the last frame: on lavapipe the vertex
//! stage mallocs and frees megabytes per draw, and with glibc's default trim threshold
//! every frame page-faulted them back in (about 2,000 faults a frame on the stress room,
//! a third of the queue thread's time). `render::heap` keeps them; this counts the minor
//! page faults of the process (`/proc/self/stat`) over frames of the stress room. A
//! control touches fresh memory and checks the count sees it.
#![cfg(all(target_os = "linux", target_env = "gnu"))]

use tevscope::render::scene::{ClearMode, Scene};
use tevscope::render::{OffscreenTarget, RenderContext};
use tevscope::session::{References, Session};

/// Minor page faults of this process so far (field 10 of `/proc/self/stat`).
fn minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").expect("/proc/self/stat");
    // The command name (field 2) may hold spaces: count from the closing parenthesis.
    let rest = &stat[stat.rfind(')').expect("stat format") + 2..];
    rest.split(' ')
        .nth(7)
        .and_then(|f| f.parse().ok())
        .expect("minflt field")
}

const FRAMES: u64 = 30;

#[test]
fn stress_room_frames_do_not_fault_their_heap_back_in() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tevscope-frame-faults-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let path = dir.join("stress_room.pak");
    let pak = tevscope::demo::room::build_stress_pak(600, 160, 6).expect("stress room builds");
    std::fs::write(&path, pak).expect("write PAK");
    let session = Session::open(
        &format!("{}:stress_room", path.display()),
        &References::default(),
    )
    .expect("stress room opens");
    let _ = std::fs::remove_dir_all(&dir);
    let model = session
        .asset()
        .and_then(|a| a.cpu_model())
        .expect("a model")
        .clone();
    let target = OffscreenTarget::new(&ctx, 320, 180).expect("target");
    let mut scene = Scene::new(&ctx, model).expect("scene");
    scene.finish_pipelines(&ctx);
    let frame = |scene: &mut Scene, i: u64| {
        scene.set_time(i as f64 / 60.0);
        scene
            .render(&ctx, &target, ClearMode::BACKGROUND)
            .expect("frame");
        ctx.wait_idle().expect("idle");
    };
    // Settle: pipelines, uploads, lavapipe's own caches.
    for i in 0..20 {
        frame(&mut scene, i);
    }
    let before = minor_faults();
    for i in 20..20 + FRAMES {
        frame(&mut scene, i);
    }
    let per_frame = (minor_faults() - before) / FRAMES;
    eprintln!("{per_frame} minor page faults per frame");

    // Control: 8 MiB of fresh memory written once faults about 2,000 pages in.
    let control_before = minor_faults();
    let fresh = std::hint::black_box(vec![1u8; 8 << 20]);
    let control = minor_faults() - control_before;
    drop(fresh);
    assert!(
        control >= 1000,
        "the count sees fresh pages ({control} faults)"
    );

    assert!(
        per_frame < 200,
        "{per_frame} minor page faults per frame of the stress room (was about 2,000 before \
         render::heap kept freed pages)"
    );
}
