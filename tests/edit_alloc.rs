//! A value edit made through the application core copies no model (issue #20): on the
//! criterion stress room (600 surfaces, 160 materials), a konst colour changed in the
//! session's document, derived into the asset's GX material and handed to the scene as an
//! override, grows the heap by far less than the model it draws. A counting global
//! allocator measures the peak heap growth from the edit to the end of the next frame.
//! A control in the same test clones the model the way the old viewer did on every edit
//! and checks the measurement sees it, so the bound cannot pass by measuring nothing.

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use std::sync::Arc;

use counting_alloc::Counting;
use tevscope::model::CpuModel;
use tevscope::render::scene::{ClearMode, Scene};
use tevscope::render::{OffscreenTarget, RenderContext};
use tevscope::session::{Change, References, Session};

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

/// The benchmark's stress room, opened as the viewer and the CLI open files.
fn stress_session() -> Session {
    let dir = std::env::temp_dir().join(format!("tevscope-edit-alloc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let path = dir.join("stress_room.pak");
    let pak = tevscope::demo::room::build_stress_pak(600, 160, 6).expect("stress room builds");
    std::fs::write(&path, pak).expect("write PAK");
    let spec = format!("{}:stress_room", path.display());
    let session = Session::open(&spec, &References::default()).expect("stress room opens");
    let _ = std::fs::remove_dir_all(&dir);
    session
}

/// Hands the session's materials of `set` that differ from what the scene draws to it (as
/// the viewport does once per document revision).
fn sync_scene(scene: &mut Scene, session: &Session, set: usize) {
    let Some(tevscope::session::Content::Model { sets, .. }) = session.asset().map(|a| &a.content)
    else {
        return;
    };
    for (index, entry) in sets[set].materials.iter().enumerate() {
        if let Ok(entry) = entry
            && scene.material(set, index) != Some(&entry.material)
        {
            scene.set_material(set, index, entry.material.clone());
        }
    }
}

#[test]
fn a_konst_edit_through_the_session_allocates_no_copy_of_the_model() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let mut session = stress_session();
    let asset = session.asset().expect("asset");
    let model: Arc<CpuModel> = asset.cpu_model().expect("a model").clone();
    let size = model_bytes(&model);
    assert!(
        size > 1 << 20,
        "the stress room holds a megabyte or more ({size} bytes)"
    );
    assert!(session.document().is_some(), "the room is editable");

    let mut scene = Scene::new(&ctx, Arc::clone(&model)).expect("scene");
    let target = OffscreenTarget::new(&ctx, 320, 180).expect("target");
    scene.finish_pipelines(&ctx);
    for _ in 0..2 {
        scene
            .render(&ctx, &target, ClearMode::BACKGROUND)
            .expect("frame");
    }
    ctx.wait_idle().expect("idle");

    let set = scene.material_set();
    let index = (0..scene.material_count())
        .find(|&i| {
            scene.material(set, i).is_some_and(|m| m.konst_count > 0)
                && session
                    .file_material(set, i)
                    .is_some_and(|m| m.konst_colors.as_ref().is_some_and(|k| !k.is_empty()))
        })
        .expect("a material with konst colours");
    let mut edited = session.file_material(set, index).expect("material").clone();
    if let Some(k) = edited.konst_colors.as_mut() {
        k[0] ^= 0xFF00_FF00;
    }
    let key = scene.shader_key(index).cloned();
    let (pipelines, shaders) = (ctx.pipelines.len(), ctx.shaders.len());

    // What a frame without an edit grows the heap by (wgpu's command recording).
    let (_, plain) = counting_alloc::peak_during(|| {
        scene
            .render(&ctx, &target, ClearMode::BACKGROUND)
            .expect("frame");
        ctx.wait_idle().expect("idle");
    });
    let (change, peak) = counting_alloc::peak_during(|| {
        let change = session
            .edit_material(set, index, edited.clone(), "konst 0", false)
            .expect("the edit is accepted");
        sync_scene(&mut scene, &session, set);
        scene
            .render(&ctx, &target, ClearMode::BACKGROUND)
            .expect("frame after the edit");
        ctx.wait_idle().expect("idle");
        change
    });
    eprintln!(
        "konst edit through the session to end of frame: {peak} bytes peak heap growth, a \
         frame without an edit {plain} (model: {size} bytes)"
    );
    assert_eq!(change, Change::Materials, "a value edit keeps the model");
    assert!(
        peak * 8 < size,
        "a value edit grew the heap by {peak} bytes (a plain frame: {plain}; the model: {size})"
    );
    let drawn = scene.material(set, index).expect("drawn").clone();
    assert_ne!(
        model.material(set, index),
        Some(&drawn),
        "the scene draws the edit; the shared model is not edited"
    );
    assert_eq!(
        scene.shader_key(index).cloned(),
        key,
        "a konst edit keeps the shader"
    );
    assert_eq!(ctx.pipelines.len(), pipelines, "no pipeline was built");
    assert_eq!(ctx.shaders.len(), shaders, "no shader was compiled");
    assert!(
        Arc::ptr_eq(
            session.asset().and_then(|a| a.cpu_model()).expect("model"),
            &model
        ),
        "the session still holds the model it opened"
    );

    // The control: the same measurement sees a model copy (what `refresh_materials` made
    // on every edit before the core) — so the bound above is a real one.
    let (copy, copied) = counting_alloc::peak_during(|| (*model).clone());
    assert!(
        copied >= size && copied > peak * 8,
        "a copy of the model grows the heap by {copied} bytes (the edit: {peak})"
    );
    drop(copy);

    // Undo through the session restores the file's material, and the scene follows.
    assert_eq!(session.undo(), Some(Change::Materials));
    sync_scene(&mut scene, &session, set);
    assert_eq!(scene.material(set, index), model.material(set, index));
}
