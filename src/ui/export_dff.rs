//! File → Export's "Export DFF": the current view as a Dolphin FIFO log, through the same
//! frame writer as `tevscope export -o X.dff` (`dff::check::frame_dff`) on a render context
//! of its own. Plain data and GPU work, no egui and no app state.

use std::path::Path;

use crate::gx::lights::LightSet;
use crate::model::CpuModel;

/// File → Export's DFF part: where "Export DFF" writes.
#[derive(Debug, Clone, Default)]
pub struct DffExport {
    pub path: String,
}

/// The frame size of a DFF of a `view`-sized view: the view scaled down (aspect kept) to
/// fit GX's largest EFB, and the note saying so when it had to be.
pub fn dff_size([w, h]: [u32; 2]) -> ((u32, u32), Option<String>) {
    use crate::dff::scene::{MAX_HEIGHT, MAX_WIDTH};
    let (w, h) = (w.max(1), h.max(1));
    let scale = (MAX_WIDTH as f64 / w as f64).min(MAX_HEIGHT as f64 / h as f64);
    if scale >= 1.0 {
        return ((w, h), None);
    }
    let fit = |v: u32, max: u32| ((v as f64 * scale).round() as u32).clamp(1, max);
    let size = (fit(w, MAX_WIDTH), fit(h, MAX_HEIGHT));
    let note = format!(
        "the {w}×{h} view scaled to {}×{} (GX's EFB is at most {MAX_WIDTH}×{MAX_HEIGHT})",
        size.0, size.1
    );
    (size, Some(note))
}

/// The view a DFF export draws: what the viewer shows, at a GX frame size.
pub struct DffView<'a> {
    pub camera: crate::camera::OrbitCamera,
    pub size: (u32, u32),
    pub time: f64,
    pub animation: Option<usize>,
    pub lights: &'a LightSet,
    pub material_set: usize,
    pub hidden_surfaces: &'a [bool],
}

/// Writes `model` as `view` shows it to `path` as a DFF (atomically), on a render
/// context of its own: the frame `tevscope export -o X.dff` writes for the same camera,
/// size, time, pose and lights. Returns the line the viewer shows.
pub fn export_dff(model: CpuModel, view: &DffView, path: &Path) -> anyhow::Result<String> {
    use crate::render::{AdapterPreference, RenderContext, Scene, SceneOptions};
    let ctx = RenderContext::new(AdapterPreference::Hardware)?;
    let options = SceneOptions {
        material_set: view.material_set,
        ..SceneOptions::default()
    };
    let mut scene = Scene::with_options(&ctx, model, options)?;
    scene.set_camera(view.camera);
    scene.set_lights(view.lights.clone());
    scene.set_animation(view.animation);
    scene.set_time(view.time);
    scene.set_hidden_surfaces(view.hidden_surfaces);
    let (_, bytes) = crate::dff::check::frame_dff(&mut scene, &ctx, view.size, false)?;
    crate::dff::check::write(path, &bytes)?;
    Ok(format!(
        "Exported {} ({}×{}, {} bytes)",
        path.display(),
        view.size.0,
        view.size.1,
        bytes.len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dff_frames_keep_the_views_aspect_within_gxs_largest_efb() {
        assert_eq!(dff_size([640, 480]), ((640, 480), None));
        assert_eq!(dff_size([320, 528]), ((320, 528), None));
        let ((w, h), note) = dff_size([1366, 700]);
        assert_eq!((w, h), (640, 328));
        assert!(note.unwrap().contains("1366×700 view scaled to 640×328"));
        // Tall views are bound by the height.
        assert_eq!(dff_size([800, 1056]).0, (400, 528));
        assert_eq!(dff_size([0, 0]).0, (1, 1));
    }
}
