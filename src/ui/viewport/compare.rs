//! The A/B split of the model view: the model as opened (A) drawn into a second target
//! with the edited scene's camera, clock and lights, and its columns left of the split
//! copied over the edited frame (B). A is rebuilt only when its source changes.

use std::sync::Arc;

use crate::model::CpuModel;
use crate::render::RgbaImage;
use crate::render::compare::{CompareMode, compose, split_column};
use crate::render::scene::{Scene, SceneOptions};
use crate::render::{OffscreenTarget, RenderContext};

use super::{SceneView, Viewport};

/// Makes the model as opened (asked only when A must be built again).
pub type OpenedModel<'a> = dyn Fn() -> Option<Arc<CpuModel>> + 'a;

/// The A side: what it was built from, its scene and target.
pub(crate) struct OpenedSide {
    /// The model B draws (identity: A is rebuilt when it is replaced).
    source: Arc<CpuModel>,
    scene: Scene,
    target: Option<OffscreenTarget>,
    /// Where B starts, as a fraction of the width.
    pub split: f32,
}

impl OpenedSide {
    /// Takes B's camera, clock, animation and lights.
    fn follow(&mut self, b: &Scene) {
        self.scene.set_view(*b.view());
        self.scene.set_time(b.time());
        self.scene.set_animation(b.animation());
        if self.scene.lights() != b.lights() {
            self.scene.set_lights(b.lights().clone());
        }
    }
}

impl Viewport {
    /// A screenshot of the model view (`b`, B's image) with the split applied: A drawn
    /// the same way at the same size, its columns left of the split over B's.
    pub(super) fn split_screenshot(
        &mut self,
        ctx: &RenderContext,
        b: RgbaImage,
        transparent: bool,
    ) -> Result<RgbaImage, String> {
        let (Some(a), super::ViewContent::Scene(sv)) = (&mut self.opened, &self.content) else {
            return Ok(b);
        };
        a.follow(&sv.scene);
        let image = a
            .scene
            .render_to_image(ctx, b.width, b.height, transparent)
            .map_err(|e| e.report())?;
        Ok(compose(CompareMode::Split, &image, &b, a.split))
    }

    /// Turns the A/B split on (with the opened model `opened` makes, called only when
    /// B's model changed since A was built) or off (None).
    pub fn set_compare(&mut self, ctx: &RenderContext, compare: Option<(f32, &OpenedModel<'_>)>) {
        let Some((split, opened)) = compare else {
            self.opened = None;
            return;
        };
        let Some(SceneView { scene, .. }) = self.scene_view() else {
            self.opened = None;
            return;
        };
        let source = Arc::clone(scene.shared_model());
        let options: SceneOptions = *scene.options();
        if let Some(a) = &mut self.opened
            && Arc::ptr_eq(&a.source, &source)
        {
            a.split = split;
            if *a.scene.options() != options
                && let Err(e) = a.scene.rebuild_materials(ctx, options)
            {
                self.status.error = Some(e.to_string());
            }
            return;
        }
        let Some(model) = opened() else {
            self.opened = None;
            return;
        };
        match Scene::with_options(ctx, model, options) {
            Ok(scene) => {
                self.opened = Some(OpenedSide {
                    source,
                    scene,
                    target: None,
                    split,
                });
            }
            Err(e) => {
                self.opened = None;
                self.status.error = Some(format!("A/B: {e}"));
            }
        }
    }

    /// Hides on A what B hides (a room's world models toggled off).
    pub(super) fn hide_opened(&mut self, hidden: &[bool]) {
        if let Some(a) = &mut self.opened {
            a.scene.set_hidden_surfaces(hidden);
        }
    }

    /// Draws A as B was just drawn and copies its columns left of the split over the
    /// target (after B's frame, before the display pass).
    pub(super) fn draw_opened(&mut self, ctx: &RenderContext, encoder: &mut wgpu::CommandEncoder) {
        let (w, h) = (self.target.width, self.target.height);
        let Some(a) = &mut self.opened else { return };
        let super::ViewContent::Scene(b) = &self.content else {
            return;
        };
        let cut = split_column(w, a.split);
        if cut == 0 {
            return;
        }
        if a.target
            .as_ref()
            .is_none_or(|t| (t.width, t.height) != (w, h))
        {
            match OffscreenTarget::new(ctx, w, h) {
                Ok(t) => a.target = Some(t),
                Err(e) => {
                    self.status.error = Some(e.to_string());
                    return;
                }
            }
        }
        a.follow(&b.scene);
        let Some(target) = &a.target else { return };
        if let Err(e) = a.scene.render(ctx, target, b.clear) {
            self.status.error = Some(format!("A/B: {}", e.report()));
            return;
        }
        encoder.copy_texture_to_texture(
            target.color.as_image_copy(),
            self.target.color.as_image_copy(),
            wgpu::Extent3d {
                width: cut,
                height: h,
                depth_or_array_layers: 1,
            },
        );
    }
}
