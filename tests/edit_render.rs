//! A model edited in the document, saved and reopened renders exactly the pixels of the edited
//! model in memory (and not those of the original, so the edit is visible).
#![allow(clippy::unwrap_used)]

use std::collections::HashMap;
use std::path::Path;

use serde_json::json;
use tevscope::edit::Document;
use tevscope::formats::cmdl::Cmdl;
use tevscope::formats::txtr::Txtr;
use tevscope::image::RgbaImage;
use tevscope::load::ModelAssets;
use tevscope::render::RenderContext;
use tevscope::render::scene::Scene;

fn render(ctx: &RenderContext, cmdl: Cmdl, dir: &Path) -> RgbaImage {
    let mut textures = HashMap::new();
    for set in &cmdl.material_sets {
        for &id in &set.texture_ids {
            if let Ok(bytes) = std::fs::read(dir.join(format!("0x{id:08X}.TXTR"))) {
                let txtr = Txtr::parse(&bytes, "t").unwrap();
                textures.insert(
                    u64::from(id),
                    tevscope::load::decode_texture(&txtr).unwrap().0,
                );
            }
        }
    }
    let mut assets = ModelAssets::new(cmdl);
    assets.textures = textures;
    let mut scene = Scene::new(ctx, assets.cpu_model().unwrap()).unwrap();
    scene.render_to_image(ctx, 96, 96, false).unwrap()
}

#[test]
fn edited_saved_and_reopened_model_renders_like_the_edited_document() {
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let spec = dir.join("0x7EC00000.CMDL");
    let mut doc = Document::open(&spec.display().to_string()).unwrap();
    let original = render(&ctx, doc.cmdl().unwrap().clone(), &dir);
    // Value edits (konst colours), a structural one (a stage duplicated and moved last) and a
    // combiner output change, on every material of set 0.
    let materials = doc.material_sets()[0].materials.len();
    let mut ops = Vec::new();
    for m in 0..materials {
        let base = format!("/material_sets/0/materials/{m}");
        let konsts = doc.material_sets()[0].materials[m].konst_rgba().len();
        for k in 0..konsts {
            ops.push(
                json!({"op": "replace", "path": format!("{base}/konst_colors_rgba/{k}"),
                            "value": [255, 64 * k, 32, 255]}),
            );
        }
        ops.push(json!({"op": "copy", "from": format!("{base}/tev_stages/0"),
                        "path": format!("{base}/tev_stages/-")}));
        ops.push(
            json!({"op": "replace", "path": format!("{base}/tev_stages/0/color_inputs/3"),
                        "value": "KONST"}),
        );
    }
    let patch: json_patch::Patch = serde_json::from_value(json!(ops)).unwrap();
    doc.apply_patch(&patch, "recolour").unwrap();
    let edited = render(&ctx, doc.cmdl().unwrap().clone(), &dir);

    let out =
        std::env::temp_dir().join(format!("tevscope-edit-render-{}.CMDL", std::process::id()));
    doc.save_to(&out).unwrap();
    assert!(!doc.is_dirty());
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    let reopened = render(&ctx, Cmdl::parse(&bytes, "reopened").unwrap(), &dir);

    assert_eq!(
        (reopened.width, reopened.height),
        (edited.width, edited.height)
    );
    assert!(
        reopened.pixels == edited.pixels,
        "the reopened model draws differently from the edited document"
    );
    assert!(
        edited.pixels != original.pixels,
        "the edit is not visible, so this test would prove nothing"
    );
    // Undo brings back the original pixels.
    assert!(doc.undo());
    assert!(render(&ctx, doc.cmdl().unwrap().clone(), &dir).pixels == original.pixels);
}
