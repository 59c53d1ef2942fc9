//! The viewer's stage strip on a software adapter, driven as the app drives it
//! (`sync_view`, `sync_strip`): one live thumbnail per stage of the selected material,
//! following the selection and the strip's switch; a picked stage shows in the main view
//! as the stage view `tevscope render --stage` draws.

use std::path::PathBuf;

use tevscope::gx::wgsl::stage_view::StageView;
use tevscope::render::RenderContext;
use tevscope::render::target::RgbaImage;
use tevscope::ui::app::{sync_strip, sync_view};
use tevscope::ui::state::AppState;
use tevscope::ui::viewport::{StageStrip, ViewSettings, Viewport};

const W: u32 = 160;
const H: u32 = 120;

struct Harness {
    ctx: RenderContext,
    egui_renderer: egui_wgpu::Renderer,
    viewport: Viewport,
    strip: StageStrip,
    state: AppState,
}

impl Harness {
    fn open() -> Option<Self> {
        let ctx = RenderContext::for_tests()?;
        let mut egui_renderer = egui_wgpu::Renderer::new(
            &ctx.device,
            wgpu::TextureFormat::Rgba8Unorm,
            egui_wgpu::RendererOptions::default(),
        );
        let mut viewport = Viewport::new(&ctx, &mut egui_renderer).expect("viewport");
        viewport.resize(&ctx, &mut egui_renderer, W, H);
        let strip = StageStrip::new(&ctx);
        let pak = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/demo.pak");
        let mut state = AppState::new(std::env::temp_dir());
        state.open(&format!("{}:showcase", pak.display()));
        assert!(state.load_error.is_none(), "{:?}", state.load_error);
        state.session.clock.playing = false;
        state.prefs.tint_selection = false;
        let mut h = Self {
            ctx,
            egui_renderer,
            viewport,
            strip,
            state,
        };
        h.frame(true);
        Some(h)
    }

    /// One frame as the app draws it (view and strip), the view read back.
    fn frame(&mut self, reload: bool) -> RgbaImage {
        let reload = reload || std::mem::take(&mut self.state.requests.reload_view);
        sync_view(&mut self.viewport, &self.ctx, &self.state, reload);
        sync_strip(
            &mut self.strip,
            &self.ctx,
            &mut self.egui_renderer,
            &mut self.state,
        );
        if let Some(sv) = self.viewport.scene_view() {
            sv.scene.finish_pipelines(&self.ctx);
        }
        self.viewport
            .render(&self.ctx, self.state.edit.as_ref(), &ViewSettings::default());
        self.viewport.read(&self.ctx).expect("readback")
    }

    fn thumbnail(&self, k: usize) -> RgbaImage {
        self.strip
            .thumbnail_image(&self.ctx, k)
            .expect("thumbnail")
            .expect("readback")
    }
}

fn differing(a: &RgbaImage, b: &RgbaImage) -> usize {
    a.pixels
        .chunks_exact(4)
        .zip(b.pixels.chunks_exact(4))
        .filter(|(x, y)| x != y)
        .count()
}

#[test]
fn the_strip_has_a_live_thumbnail_per_stage_and_follows_the_selection() {
    let Some(mut h) = Harness::open() else { return };
    // Showcase material 12: 4 stages; stage 0 writes C0 = TEXC (a checker), stage 3 PREV.
    h.state.select_material(0, 12);
    for _ in 0..4 {
        h.frame(false);
    }
    assert_eq!(h.state.stage_thumbs.len(), 4);
    let thumbs: Vec<RgbaImage> = (0..4).map(|k| h.thumbnail(k)).collect();
    let background = thumbs[0].pixel(0, 0);
    for (k, t) in thumbs.iter().enumerate() {
        let covered = t.pixels.chunks_exact(4).filter(|p| *p != background).count();
        // Framed on the material: its surface fills much of the thumbnail.
        assert!(covered > t.pixels.len() / 4 / 5, "stage {k}: {covered}");
    }
    assert!(differing(&thumbs[0], &thumbs[3]) > 100);
    // The raster-colour thumbnail for RASC inputs (stage 2 of material 12 reads one).
    assert!(h.state.stage_raster_thumb.is_some());
    // Live: the clock moves the UV animations and lights; thumbnails are redrawn in turn.
    let again = h.thumbnail(0);
    assert_eq!(again.pixels, thumbs[0].pixels, "deterministic when nothing moves");

    // Another material: its stage count.
    h.state.select_material(0, 14);
    h.frame(false);
    assert_eq!(h.state.stage_thumbs.len(), 3);
    // Closed: no thumbnails are kept or drawn.
    h.state.stage_strip_open = false;
    h.frame(false);
    assert!(h.state.stage_thumbs.is_empty());
    assert!(h.state.stage_raster_thumb.is_none());
}

#[test]
fn a_picked_stage_shows_in_the_main_view_and_back() {
    let Some(mut h) = Harness::open() else { return };
    h.state.select_material(0, 12);
    let shaded = h.frame(false);
    h.state.stage_view = Some(StageView {
        material: Some(12),
        stage: 0,
    });
    let stage0 = h.frame(false);
    assert!(differing(&shaded, &stage0) > 20, "the stage view shows");
    h.state.stage_view = None;
    let back = h.frame(false);
    assert_eq!(back.pixels, shaded.pixels);
}
