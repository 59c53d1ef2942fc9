//! The viewer's stage strip on a software adapter, driven as the app drives it
//! (`sync_view`, `sync_strip`): one live thumbnail per stage of the selected material,
//! following the selection and the strip's switch; a picked stage shows in the main view
//! as the stage view `tevscope render --stage` draws. Thumbnails are redrawn only when on
//! screen and out of date (an edit, the camera), a bounded number per frame; the lit
//! channel 1 has its thumbnail; the strip stays live on a preview shape.

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
        assert!(
            state.messages.load_error.is_none(),
            "{:?}",
            state.messages.load_error
        );
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
        self.viewport.render(
            &self.ctx,
            self.state.selected.edit.as_ref(),
            &ViewSettings::default(),
        );
        self.viewport.read(&self.ctx).expect("readback")
    }

    /// Frames until every thumbnail on screen is up to date (the strip redraws a few a
    /// frame); the number of frames it took.
    fn settle(&mut self) -> usize {
        for n in 1..=40 {
            self.frame(false);
            if self.strip.pending(self.state.perf.strip_shown.as_ref()) == 0 {
                return n;
            }
        }
        panic!("the strip never settled");
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
    h.settle();
    assert_eq!(h.state.strip.thumbs.len(), 4);
    let thumbs: Vec<RgbaImage> = (0..4).map(|k| h.thumbnail(k)).collect();
    let background = thumbs[0].pixel(0, 0);
    for (k, t) in thumbs.iter().enumerate() {
        let covered = t
            .pixels
            .chunks_exact(4)
            .filter(|p| *p != background)
            .count();
        // Framed on the material: its surface fills much of the thumbnail.
        assert!(covered > t.pixels.len() / 4 / 5, "stage {k}: {covered}");
    }
    assert!(differing(&thumbs[0], &thumbs[3]) > 100);
    // The raster-colour thumbnail for RASC inputs (stage 2 of material 12 reads one).
    assert!(h.state.strip.raster_thumbs[0].is_some());
    assert!(
        h.state.strip.raster_thumbs[1].is_none(),
        "no stage reads COLOR1"
    );
    // Live: the clock moves the UV animations and lights; thumbnails are redrawn in turn.
    let again = h.thumbnail(0);
    assert_eq!(
        again.pixels, thumbs[0].pixels,
        "deterministic when nothing moves"
    );

    // Another material: its stage count.
    h.state.select_material(0, 14);
    h.frame(false);
    assert_eq!(h.state.strip.thumbs.len(), 3);
    // Closed: no thumbnails are kept or drawn.
    h.state.strip.open = false;
    h.frame(false);
    assert!(h.state.strip.thumbs.is_empty());
    assert_eq!(h.state.strip.raster_thumbs, [None, None]);
}

#[test]
fn a_picked_stage_shows_in_the_main_view_and_back() {
    let Some(mut h) = Harness::open() else { return };
    h.state.select_material(0, 12);
    let shaded = h.frame(false);
    h.state.strip.view = Some(StageView {
        material: Some(12),
        stage: 0,
    });
    let stage0 = h.frame(false);
    assert!(differing(&shaded, &stage0) > 20, "the stage view shows");
    h.state.strip.view = None;
    let back = h.frame(false);
    assert_eq!(back.pixels, shaded.pixels);
}

#[test]
fn a_still_strip_is_drawn_once_and_an_edit_redraws_it() {
    let Some(mut h) = Harness::open() else { return };
    h.state.select_material(0, 12);
    h.settle();
    let before = h.thumbnail(3);
    let draws = h.strip.draws;
    // Nothing moves: nothing is redrawn, whatever the clock says (material 12 has no UV
    // animation and no skeleton plays).
    for _ in 0..5 {
        h.frame(false);
    }
    h.state.session.clock.time += 1.5;
    h.frame(false);
    assert_eq!(h.strip.draws, draws, "a still material is not redrawn");

    // An edit (K0, which the last stage adds) redraws the thumbnails, a bounded number a
    // frame, and the last stage shows it.
    let mut m = h.state.file_material().cloned().expect("material 12");
    let konst = m.konst_colors.as_mut().expect("material 12 sets konsts");
    konst[0] = 0x148C_FFFF;
    h.state.apply_material(m, "K0");
    h.frame(false);
    let first = h.strip.draws - draws;
    assert!(
        (1..=4).contains(&first),
        "at most 4 thumbnails a frame after an edit: {first}"
    );
    h.settle();
    assert_eq!(h.strip.draws - draws, 5, "each of 4 stages and RASC once");
    let after = h.thumbnail(3);
    assert!(differing(&before, &after) > 50, "the edit shows");

    // The camera turns: redrawn again.
    let draws = h.strip.draws;
    h.state.session.camera.orbit.yaw_degrees += 30.0;
    h.settle();
    assert_eq!(h.strip.draws - draws, 5);
}

#[test]
fn only_thumbnails_on_screen_are_drawn() {
    let Some(mut h) = Harness::open() else { return };
    h.state.select_material(0, 12);
    h.settle();
    let draws = h.strip.draws;
    // As the window does each frame: the panels mark what they showed (here: nothing,
    // the strip is scrolled out of view), then the strip draws.
    h.state.session.camera.orbit.yaw_degrees += 30.0;
    for _ in 0..4 {
        h.state.perf.strip_shown = Some([false; tevscope::ui::perf::STRIP_SLOTS]);
        h.frame(false);
    }
    assert_eq!(h.strip.draws, draws, "nothing on screen, nothing drawn");
    // Thumbnail 1 scrolls into view: it alone is brought up to date.
    let mut shown = [false; tevscope::ui::perf::STRIP_SLOTS];
    shown[1] = true;
    h.state.perf.strip_shown = Some(shown);
    h.frame(false);
    assert_eq!(h.strip.draws, draws + 1);
    assert_eq!(h.strip.pending(Some(&shown)), 0);
    assert_eq!(h.strip.pending(None), 4, "the others wait until shown");
}

#[test]
fn a_stage_reading_colour_channel_1_gets_its_raster_thumbnail() {
    let Some(mut h) = Harness::open() else { return };
    h.state.select_material(0, 12);
    // Stage 2 becomes C = RASC with the raster colour COLOR1A1: its output is channel 1.
    let mut m = h.state.file_material().cloned().expect("material 12");
    m.tev_stages[2].color_inputs = 15 | (15 << 5) | (15 << 10) | (10 << 15);
    m.tev_stages[2].raster = 5;
    h.state.apply_material(m, "COLOR1");
    h.settle();
    assert!(h.state.strip.raster_thumbs[1].is_some());
    let lit = h
        .strip
        .raster_image(&h.ctx, 1)
        .expect("channel 1 thumbnail")
        .expect("readback");
    let stage2 = h.thumbnail(2);
    // Exact: the channel as the stage hands it on, pixel for pixel (colour; the stage
    // view's alpha is the alpha register, the raster thumbnail's RASA).
    let rgb = |i: &RgbaImage| -> Vec<u8> {
        i.pixels
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect()
    };
    assert_eq!(rgb(&lit), rgb(&stage2));
    let background = lit.pixel(0, 0);
    let covered = lit
        .pixels
        .chunks_exact(4)
        .filter(|p| *p != background)
        .count();
    assert!(covered > lit.pixels.len() / 4 / 5, "{covered}");
}

#[test]
fn the_strip_stays_live_on_a_preview_shape() {
    let Some(mut h) = Harness::open() else { return };
    h.state.select_material(0, 12);
    h.settle();
    let on_model: Vec<RgbaImage> = (0..4).map(|k| h.thumbnail(k)).collect();
    h.state.aids.preview = Some(tevscope::model::shapes::PreviewShape::Sphere);
    h.state.requests.reload_view = true;
    h.state.frame_model();
    h.settle();
    assert_eq!(h.state.strip.thumbs.len(), 4);
    assert!(h.state.strip.raster_thumbs[0].is_some());
    for (k, model) in on_model.iter().enumerate() {
        let sphere = h.thumbnail(k);
        let background = sphere.pixel(0, 0);
        let covered = sphere
            .pixels
            .chunks_exact(4)
            .filter(|p| *p != background)
            .count();
        assert!(
            covered > sphere.pixels.len() / 4 / 5,
            "stage {k}: {covered}"
        );
        assert!(
            differing(model, &sphere) > 100,
            "stage {k} shows the sphere"
        );
    }
    // An edit shows on the shape's thumbnails too.
    let before = h.thumbnail(3);
    let mut m = h.state.file_material().cloned().expect("material 12");
    m.konst_colors.as_mut().expect("konsts")[0] = 0x148C_FFFF;
    h.state.apply_material(m, "K0");
    h.settle();
    assert!(differing(&before, &h.thumbnail(3)) > 50);
}
