//! The renderer shares the CPU model instead of copying it: a [`Scene`] is built from the
//! loader's `Arc<CpuModel>`, and a value edit (a konst colour) on the stress room allocates
//! no copy of the model and builds no pipeline (issue #20). A counting global allocator
//! measures the heap growth from the edit to the end of the next frame.

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use std::sync::Arc;

use counting_alloc::Counting;
use tevscope::load::{LoadRequest, load};
use tevscope::model::CpuModel;
use tevscope::render::scene::{ClearMode, Scene};
use tevscope::render::{OffscreenTarget, RenderContext};

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Heap bytes of the model's vertex arrays and decoded textures: what a copy would cost.
fn model_bytes(model: &CpuModel) -> usize {
    let mesh = &model.mesh;
    let vertex = size_of::<[f32; 3]>() * 2 + size_of::<[u8; 4]>() * 2 + size_of::<[[f32; 2]; 8]>();
    let textures: usize = model
        .textures
        .values()
        .flat_map(|t| &t.levels)
        .map(Vec::len)
        .sum();
    mesh.len() * vertex + textures
}

/// The benchmark's stress room (600 surfaces, 160 materials, 6 world models), loaded.
fn stress_room() -> CpuModel {
    let dir = std::env::temp_dir().join(format!("tevscope-scene-share-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let path = dir.join("stress_room.pak");
    let pak = tevscope::demo::room::build_stress_pak(600, 160, 6).expect("stress room builds");
    std::fs::write(&path, pak).expect("write PAK");
    let (model, _) = load(&LoadRequest::new(&format!(
        "{}:stress_room",
        path.display()
    )))
    .expect("stress room loads");
    let _ = std::fs::remove_dir_all(&dir);
    model.assets.into_cpu_model().expect("model")
}

#[test]
fn a_value_edit_on_the_stress_room_copies_no_model_and_builds_no_pipeline() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let model = Arc::new(stress_room());
    let size = model_bytes(&model);
    assert!(
        size > 1 << 20,
        "the stress room holds a megabyte or more ({size} bytes)"
    );

    let mut scene = Scene::new(&ctx, Arc::clone(&model)).expect("scene");
    assert!(
        Arc::ptr_eq(scene.shared_model(), &model),
        "the scene shares the model"
    );
    let target = OffscreenTarget::new(&ctx, 320, 180).expect("target");
    scene.finish_pipelines(&ctx);
    // Two frames: pipelines settle and the opaque draws are recorded once.
    for _ in 0..2 {
        scene
            .render(&ctx, &target, ClearMode::BACKGROUND)
            .expect("frame");
    }
    ctx.wait_idle().expect("idle");

    let set = scene.material_set();
    let index = (0..scene.material_count())
        .find(|&i| scene.material(set, i).is_some_and(|m| m.konst_count > 0))
        .expect("a material with konst colours");
    let mut edited = scene.material(set, index).expect("material").clone();
    edited.konst[0] = [255 - edited.konst[0][0], 17, 200, 255];
    let key = scene.shader_key(index).cloned();
    let (pipelines, shaders) = (ctx.pipelines.len(), ctx.shaders.len());

    // What a frame without an edit grows the heap by (wgpu's command recording): the
    // edit's own cost is what comes on top.
    let (_, plain) = counting_alloc::peak_during(|| {
        scene
            .render(&ctx, &target, ClearMode::BACKGROUND)
            .expect("frame");
        ctx.wait_idle().expect("idle");
    });
    let (stats, peak) = counting_alloc::peak_during(|| {
        assert!(scene.set_material(set, index, edited.clone()));
        let stats = scene
            .render(&ctx, &target, ClearMode::BACKGROUND)
            .expect("frame after the edit");
        ctx.wait_idle().expect("idle");
        stats
    });
    eprintln!(
        "value edit to end of frame: {peak} bytes peak heap growth, a frame without an edit \
         {plain} (model: {size} bytes)"
    );
    assert!(
        peak <= plain + (16 << 10) && peak * 8 < size,
        "a value edit grew the heap by {peak} bytes (a plain frame: {plain}; the model: {size})"
    );
    assert_eq!(scene.material(set, index), Some(&edited));
    assert_ne!(
        model.material(set, index),
        Some(&edited),
        "the shared model is not edited"
    );
    assert_eq!(
        scene.shader_key(index).cloned(),
        key,
        "a konst edit keeps the shader"
    );
    assert_eq!(ctx.pipelines.len(), pipelines, "no pipeline was built");
    assert_eq!(ctx.shaders.len(), shaders, "no shader was compiled");
    assert_eq!(
        stats.uber_draws, 0,
        "every material kept its specialized pipeline"
    );
    assert_eq!(
        Arc::strong_count(&model),
        2,
        "nothing else holds a copy or a handle"
    );
}
