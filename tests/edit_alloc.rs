//! A value edit made through the application core copies no model (issue #20): on the
//! criterion stress room (600 surfaces, 160 materials), a konst colour changed in the
//! session's document, derived into the asset's GX material and handed to the scene as an
//! override, grows the heap by far less than the model it draws. A counting global
//! allocator measures the peak heap growth from the edit to the end of the next frame.
//! A control in the same test clones the model the way the old viewer did on every edit
//! and checks the measurement sees it, so the bound cannot pass by measuring nothing.
//! A texture-binding edit (a material's map pointed at another texture) is bounded the
//! same way: the scene rebinds that material's maps over the textures it uploaded.

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

/// The allocator counts every thread: the tests take turns so one does not measure the other.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

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

/// Hands the session's materials of `set` that differ from what the scene draws to it,
/// and their texture bindings (as the viewport does once per document revision).
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
        if let Ok(entry) = entry {
            scene.set_material_textures(set, index, &entry.texture_ids);
        }
    }
}

/// The stress room's scene, drawn twice so pipelines and uploads are settled.
fn settled_scene(ctx: &RenderContext, model: &Arc<CpuModel>, target: &OffscreenTarget) -> Scene {
    let mut scene = Scene::new(ctx, Arc::clone(model)).expect("scene");
    scene.finish_pipelines(ctx);
    for _ in 0..2 {
        scene
            .render(ctx, target, ClearMode::BACKGROUND)
            .expect("frame");
    }
    ctx.wait_idle().expect("idle");
    scene
}

#[test]
fn a_texture_binding_edit_through_the_session_allocates_no_copy_of_the_model() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let mut session = stress_session();
    let model: Arc<CpuModel> = session
        .asset()
        .and_then(|a| a.cpu_model())
        .expect("a model")
        .clone();
    let size = model_bytes(&model);
    let target = OffscreenTarget::new(&ctx, 320, 180).expect("target");
    let mut scene = settled_scene(&ctx, &model, &target);
    let set = scene.material_set();
    let file_set = session.document().expect("editable").material_sets()[set].clone();
    // A material with a map, and another texture of the set that is not the map's.
    let (index, other) = (0..scene.material_count())
        .find_map(|i| {
            let first = *file_set.materials[i].texture_indices.first()?;
            let other = (0..file_set.texture_ids.len() as u32).find(|&t| {
                file_set.texture_ids[t as usize] != file_set.texture_ids[first as usize]
                    && model
                        .textures
                        .contains_key(&u64::from(file_set.texture_ids[t as usize]))
            })?;
            Some((i, other))
        })
        .expect("a textured material and another texture");
    let before = scene.texture_ids(set, index).expect("bound");
    let mut edited = file_set.materials[index].clone();
    edited.texture_indices[0] = other;
    let new_id = u64::from(file_set.texture_ids[other as usize]);
    let image_before = target.read_rgba(&ctx).expect("readback");

    // The session's edit and the scene taking it (CPU), then the frame that rebinds the map.
    let (change, edit_peak) = counting_alloc::peak_during(|| {
        let change = session
            .edit_material(set, index, edited.clone(), "texture 0", false)
            .expect("the edit is accepted");
        sync_scene(&mut scene, &session, set);
        change
    });
    let ((), frame_peak) = counting_alloc::peak_during(|| {
        scene
            .render(&ctx, &target, ClearMode::BACKGROUND)
            .expect("frame after the edit");
        ctx.wait_idle().expect("idle");
    });
    eprintln!(
        "texture-binding edit through the session: {edit_peak} bytes peak heap growth; the \
         frame that rebinds it: {frame_peak} (model: {size} bytes)"
    );
    assert_eq!(change, Change::Materials, "a binding edit keeps the model");
    assert!(
        (edit_peak + frame_peak) * 4 < size,
        "a texture-binding edit grew the heap by {edit_peak} + {frame_peak} bytes (the model: \
         {size})"
    );
    assert!(
        Arc::ptr_eq(
            session.asset().and_then(|a| a.cpu_model()).expect("model"),
            &model
        ),
        "the session still holds the model it opened"
    );
    let bound = scene.texture_ids(set, index).expect("bound");
    assert_eq!(bound[0], Some(new_id), "the scene draws the new map");
    assert_eq!(bound[1..], before[1..], "the other maps stay");
    assert!(
        target.read_rgba(&ctx).expect("readback") != image_before,
        "the new map shows"
    );

    // Undo rebinds the file's map; the frame matches the one before the edit.
    assert_eq!(session.undo(), Some(Change::Materials));
    sync_scene(&mut scene, &session, set);
    scene
        .render(&ctx, &target, ClearMode::BACKGROUND)
        .expect("frame after undo");
    assert_eq!(scene.texture_ids(set, index), Some(before));
    assert!(
        target.read_rgba(&ctx).expect("readback") == image_before,
        "undo draws the frame before the edit"
    );
}

#[test]
fn a_konst_edit_through_the_session_allocates_no_copy_of_the_model() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
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

    let target = OffscreenTarget::new(&ctx, 320, 180).expect("target");
    let mut scene = settled_scene(&ctx, &model, &target);

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
