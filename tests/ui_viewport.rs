//! The viewer's viewport on a software adapter: every material of the TEV-cases model
//! drawn into the viewport's own offscreen target (the egui texture the window shows),
//! compared pixel by pixel with the pixel inspector's CPU trace; edits applied as the UI
//! applies them (value edits and structural edits) must show up in the next frame.

use tevscope::gx::types::ColorInput;
use tevscope::render::RenderContext;
use tevscope::render::pipeline_cache::SelectedPath;
use tevscope::ui::edit::{EditKind, trace_quad_pixel};
use tevscope::ui::state::AppState;
use tevscope::ui::viewport::{ViewSettings, Viewport};

const SIZE: u32 = 48;

/// Pixels checked per material: corners, centre and a diagonal.
/// An egui renderer and a viewport of `width` × `height` pixels on it.
fn viewport_of(ctx: &RenderContext, width: u32, height: u32) -> (egui_wgpu::Renderer, Viewport) {
    let mut egui_renderer = egui_wgpu::Renderer::new(
        &ctx.device,
        wgpu::TextureFormat::Rgba8Unorm,
        egui_wgpu::RendererOptions::default(),
    );
    let mut viewport = Viewport::new(ctx, &mut egui_renderer).expect("viewport");
    viewport.resize(ctx, &mut egui_renderer, width, height);
    (egui_renderer, viewport)
}

/// `image` with the game's alpha dropped (RGB unchanged): what screenshots and `tevscope
/// render` write without a transparent background.
fn opaque(image: &tevscope::image::RgbaImage) -> tevscope::image::RgbaImage {
    let mut out = image.clone();
    for p in out.pixels.chunks_exact_mut(4) {
        p[3] = 255;
    }
    out
}

fn probes() -> Vec<(u32, u32)> {
    let mut p = vec![(0, 0), (SIZE - 1, 0), (0, SIZE - 1), (SIZE - 1, SIZE - 1)];
    p.extend((0..SIZE).step_by(7).map(|i| (i, (i * 5 + 3) % SIZE)));
    p
}

fn check_frame(
    ctx: &RenderContext,
    viewport: &mut Viewport,
    state: &AppState,
    label: &str,
) -> Option<SelectedPath> {
    let settings = ViewSettings::default();
    let edit = state.selected.edit.as_ref().expect("material");
    viewport.render(ctx, Some(edit), &settings);
    assert!(
        viewport.status.error.is_none(),
        "{label}: {:?}",
        viewport.status.error
    );
    let image = viewport.read(ctx).expect("readback");
    let textures = state.current_textures();
    for (x, y) in probes() {
        let mut r = trace_quad_pixel(
            &edit.material,
            &edit.program,
            &textures,
            &viewport.draw_uniforms(),
            SIZE,
            SIZE,
            x,
            y,
        );
        r.gpu = Some(image.pixel(x, y));
        assert_eq!(
            r.matches(settings.background),
            Some(true),
            "{label} pixel ({x}, {y}): GPU {:?}, CPU {:?} (pass {})",
            r.gpu,
            r.trace.written,
            r.trace.alpha_pass
        );
    }
    viewport.status.path
}

#[test]
fn viewport_matches_the_cpu_trace_for_every_material_and_edit() {
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let (_egui_renderer, mut viewport) = viewport_of(&ctx, SIZE, SIZE);
    assert_eq!(
        (viewport.target.width, viewport.target.height),
        (SIZE, SIZE)
    );

    let mut state = AppState::new(dir.clone());
    state.open(dir.join("0x7EC00000.CMDL").to_str().expect("utf-8 path"));
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    for i in 0..48 {
        state.select_material(0, i);
        let edit = state.selected.edit.as_ref().expect("material converts");
        viewport.show_material(
            &ctx,
            edit,
            &state.current_textures(),
            state.settings.sampling,
        );
        check_frame(&ctx, &mut viewport, &state, &format!("material {i}"));
    }

    // Value edit on the last material: uniforms only, visible next frame.
    let edit = state.selected.edit.as_mut().expect("material");
    let before = edit.program.clone();
    for k in &mut edit.program.konst {
        *k = [k[2], k[0], k[1], 255 - k[3]];
    }
    edit.program.registers[2] = [17, 300, -40, 90];
    assert_eq!(edit.commit(&before), EditKind::Value);
    check_frame(&ctx, &mut viewport, &state, "after a value edit");

    // Structural edit: the next frame is drawn (ubershader or specialized) and matches.
    let edit = state.selected.edit.as_mut().expect("material");
    let before = edit.program.clone();
    edit.program.stages[0].stage.color_in = [
        ColorInput::Konst,
        ColorInput::C1,
        ColorInput::Half,
        ColorInput::Rasc,
    ];
    assert_eq!(edit.commit(&before), EditKind::Structure);
    let path = check_frame(&ctx, &mut viewport, &state, "after a structural edit");
    assert!(
        matches!(path, Some(SelectedPath::Uber | SelectedPath::Specialized)),
        "{path:?}"
    );
    // Once the specialized pipeline is built it takes over and still matches.
    ctx.pipelines.wait_idle();
    let path = check_frame(&ctx, &mut viewport, &state, "specialized after the edit");
    assert_eq!(path, Some(SelectedPath::Specialized));
}

#[test]
fn texture_preview_shows_the_texels() {
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let (_egui_renderer, mut viewport) = viewport_of(&ctx, 16, 8);
    let mut state = AppState::new(dir.clone());
    state.open(dir.join("mp1_i8_16x8.TXTR").to_str().expect("utf-8 path"));
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    let edit = state.selected.edit.as_ref().expect("preview material");
    let textures = state.current_textures();
    viewport.show_material(&ctx, edit, &textures, state.settings.sampling);
    viewport.render(&ctx, Some(edit), &ViewSettings::default());
    let image = viewport.read(&ctx).expect("readback");
    let texture = textures[0].as_ref().expect("decoded");
    for y in 0..8 {
        for x in 0..16 {
            assert_eq!(image.pixel(x, y), texture.texel(x, y), "texel ({x}, {y})");
        }
    }
}

#[test]
fn screenshot_writes_the_exact_target_with_optional_transparency() {
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let (_egui_renderer, mut viewport) = viewport_of(&ctx, 32, 32);
    let mut state = AppState::new(dir.clone());
    state.open(dir.join("0x7EC00000.CMDL").to_str().expect("utf-8 path"));
    let edit = state.selected.edit.as_ref().expect("material");
    viewport.show_material(
        &ctx,
        edit,
        &state.current_textures(),
        state.settings.sampling,
    );

    let out = std::env::temp_dir().join(format!("tevscope-ui-shot-{}.png", std::process::id()));
    // Material 0 writes alpha 0: with an opaque background and the exact view the
    // background is overwritten (blending off), so the PNG holds the TEV output's colour,
    // opaque (the game's alpha only with a transparent background)...
    let mut settings = ViewSettings {
        background: [10, 20, 30, 255],
        ..ViewSettings::default()
    };
    let image = viewport
        .save_screenshot(&ctx, Some(edit), &settings, false, None, &out)
        .expect("screenshot");
    let bytes = std::fs::read(&out).expect("png written");
    assert_eq!(&bytes[1..4], b"PNG");
    let decoded = tevscope::image::RgbaImage::decode_png(&bytes).expect("decodes");
    assert_eq!((decoded.width, decoded.height), (32, 32));
    assert_eq!(
        decoded.pixels, image.pixels,
        "the PNG is the image returned"
    );
    let target = viewport.read(&ctx).expect("readback");
    assert!(
        target.pixels.chunks(4).any(|p| p[3] != 255),
        "the game's alpha"
    );
    assert_eq!(
        decoded.pixels,
        opaque(&target).pixels,
        "the exact target, opaque"
    );
    // ...while an alpha-tested-away pixel keeps the clear colour: make every pixel fail.
    let edit = state.selected.edit.as_mut().expect("material");
    let before = edit.program.clone();
    edit.program.alpha_test.comp0 = tevscope::gx::types::Compare::Never;
    edit.program.alpha_test.comp1 = tevscope::gx::types::Compare::Never;
    edit.commit(&before);
    ctx.pipelines.wait_idle();
    let image = viewport
        .save_screenshot(&ctx, Some(edit), &settings, false, None, &out)
        .expect("screenshot");
    assert!(image.pixels.chunks(4).all(|p| p == [10, 20, 30, 255]));
    let image = viewport
        .save_screenshot(&ctx, Some(edit), &settings, true, None, &out)
        .expect("transparent screenshot");
    assert!(image.pixels.chunks(4).all(|p| p == [0, 0, 0, 0]));
    settings.background = [1, 2, 3, 4];
    assert!(
        viewport
            .save_screenshot(
                &ctx,
                Some(edit),
                &settings,
                false,
                None,
                std::path::Path::new("")
            )
            .is_err()
    );
    // Another size is rendered at that size (every pixel the clear colour here, as at
    // the view's size, opaque), and the view keeps its own target.
    let image = viewport
        .save_screenshot(&ctx, Some(edit), &settings, false, Some((50, 20)), &out)
        .expect("sized screenshot");
    assert_eq!((image.width, image.height), (50, 20));
    assert!(image.pixels.chunks(4).all(|p| p == [1, 2, 3, 255]));
    assert_eq!((viewport.target.width, viewport.target.height), (32, 32));
    let too_big = viewport
        .save_screenshot(&ctx, Some(edit), &settings, false, Some((9000, 10)), &out)
        .expect_err("over 8192");
    assert!(too_big.contains("9000x10"), "{too_big}");
    std::fs::remove_file(&out).ok();
}

// ---------------------------------------------------------------------------------------
// The model view (`ViewContent::Scene`), driven as the app drives it: `AppState` edits,
// `app::sync_view` hands them to the viewport, `Viewport::render` draws the frame.

mod model_view {
    use std::path::PathBuf;

    use tevscope::gx::types::ColorInput;
    use tevscope::render::RenderContext;
    use tevscope::render::pipeline_cache::SelectedPath;
    use tevscope::render::target::RgbaImage;
    use tevscope::ui::app::{pick, sync_view};
    use tevscope::ui::edit::EditKind;
    use tevscope::ui::state::AppState;
    use tevscope::ui::viewport::{ViewSettings, Viewport};

    const W: u32 = 160;
    const H: u32 = 120;

    fn demo(name: &str) -> String {
        let pak = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/demo.pak");
        format!("{}:{name}", pak.display())
    }

    struct Harness {
        ctx: RenderContext,
        viewport: Viewport,
        state: AppState,
    }

    impl Harness {
        fn open(spec: &str) -> Option<Self> {
            let ctx = RenderContext::for_tests()?;
            let (_egui_renderer, viewport) = super::viewport_of(&ctx, W, H);
            let mut state = AppState::new(std::env::temp_dir());
            state.open(spec);
            assert!(
                state.messages.load_error.is_none(),
                "{:?}",
                state.messages.load_error
            );
            assert!(state.shows_model(), "a model opens in the model view");
            state.session.clock.playing = false;
            // Exact comparisons with `tevscope render`: no selection tint unless a test
            // turns it on.
            state.prefs.tint_selection = false;
            let mut h = Self {
                ctx,
                viewport,
                state,
            };
            h.sync(true);
            Some(h)
        }

        fn sync(&mut self, reload: bool) {
            let reload = reload || std::mem::take(&mut self.state.requests.reload_view);
            sync_view(&mut self.viewport, &self.ctx, &self.state, reload);
        }

        /// One frame as the app draws it, read back.
        fn frame(&mut self) -> RgbaImage {
            self.sync(false);
            self.viewport.render(
                &self.ctx,
                self.state.selected.edit.as_ref(),
                &ViewSettings::default(),
            );
            assert!(
                self.viewport.status.error.is_none(),
                "{:?}",
                self.viewport.status.error
            );
            self.viewport.read(&self.ctx).expect("readback")
        }

        /// A frame with every requested pipeline built (deterministic pixels).
        fn settled_frame(&mut self) -> RgbaImage {
            self.sync(false);
            let sv = self.viewport.scene_view().expect("model view");
            sv.scene.finish_pipelines(&self.ctx);
            self.frame()
        }
    }

    use super::opaque;

    fn differing_pixels(a: &RgbaImage, b: &RgbaImage) -> usize {
        a.pixels
            .chunks_exact(4)
            .zip(b.pixels.chunks_exact(4))
            .filter(|(x, y)| x != y)
            .count()
    }

    #[test]
    fn model_view_draws_what_tevscope_render_draws() {
        let Some(mut h) = Harness::open(&demo("showcase")) else {
            return;
        };
        let shown = h.settled_frame();
        let dir = std::env::temp_dir().join(format!("tevscope-uivp-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let out = dir.join("showcase.png");
        let mut req = tevscope::cli::render::RenderRequest::new(demo("showcase"), &out);
        (req.width, req.height) = (W, H);
        tevscope::cli::render::render_model(&req).expect("tevscope render");
        let cli = RgbaImage::decode_png(&std::fs::read(&out).expect("png")).expect("decode");
        // The viewer's screenshot of the model view is the same exact image, and the
        // transparent one clears the background only.
        let shot = dir.join("shot.png");
        let settings = ViewSettings::default();
        let saved = h
            .viewport
            .save_screenshot(
                &h.ctx,
                h.state.selected.edit.as_ref(),
                &settings,
                false,
                None,
                &shot,
            )
            .expect("screenshot");
        let written = RgbaImage::decode_png(&std::fs::read(&shot).expect("png")).expect("decode");
        assert_eq!(differing_pixels(&saved, &cli), 0);
        assert_eq!(differing_pixels(&written, &cli), 0);
        let clear = h
            .viewport
            .save_screenshot(
                &h.ctx,
                h.state.selected.edit.as_ref(),
                &settings,
                true,
                None,
                &shot,
            )
            .expect("screenshot");
        assert_eq!(clear.pixel(0, 0), [0, 0, 0, 0]);
        let covered = clear.pixels.chunks_exact(4).filter(|p| p[3] == 255).count();
        let drawn = cli
            .pixels
            .chunks_exact(4)
            .filter(|p| *p != cli.pixel(0, 0))
            .count();
        // (Transparent surfaces write no depth: their pixels keep their blended alpha.)
        assert!(
            covered * 10 >= drawn * 9,
            "{covered} opaque pixels, {drawn} drawn"
        );
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!((cli.width, cli.height), (shown.width, shown.height));
        assert_eq!(
            differing_pixels(&cli, &opaque(&shown)),
            0,
            "the viewport's model view (alpha dropped) differs from `tevscope render`"
        );
        // And the model covers a good part of the view (not an empty frame).
        let bg = shown.pixel(0, 0);
        let covered = shown.pixels.chunks_exact(4).filter(|p| *p != bg).count();
        assert!(covered > (W * H / 20) as usize, "{covered} pixels drawn");
    }

    /// The "exact GX blending" switch: the model view then draws what `tevscope render
    /// --exact-blend` draws, and only blended pixels change.
    #[test]
    fn exact_blending_switch_matches_the_cli() {
        let Some(mut h) = Harness::open(&demo("showcase")) else {
            return;
        };
        let host = h.settled_frame();
        let mut options = h.state.tev_options;
        options.exact_blend = true;
        h.state.tev_options = options;
        if let Some(edit) = h.state.selected.edit.as_mut() {
            edit.reset(options);
        }
        let exact = h.settled_frame();
        let dir = std::env::temp_dir().join(format!("tevscope-uivp-exact-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let out = dir.join("exact.png");
        let mut req = tevscope::cli::render::RenderRequest::new(demo("showcase"), &out);
        (req.width, req.height, req.exact_blend) = (W, H, true);
        tevscope::cli::render::render_model(&req).expect("tevscope render --exact-blend");
        let cli = RgbaImage::decode_png(&std::fs::read(&out).expect("png")).expect("decode");
        std::fs::remove_dir_all(&dir).ok();
        assert_eq!(
            differing_pixels(&opaque(&exact), &cli),
            0,
            "viewer and CLI disagree"
        );
        // Blending moves by at most 1 LSB per channel; something moves.
        let changed = differing_pixels(&host, &exact);
        assert!(changed > 0, "exact blending changed nothing");
        let worst = host
            .pixels
            .iter()
            .zip(&exact.pixels)
            .map(|(a, b)| a.abs_diff(*b))
            .max()
            .unwrap_or(0);
        assert!(worst <= 1, "exact and host blending differ by {worst}");
    }

    /// The showcase material that reads a konst colour, and the pixel of one of its
    /// surfaces (found by picking).
    fn konst_material(h: &mut Harness) -> (usize, (u32, u32)) {
        let count = h
            .viewport
            .scene_view()
            .expect("model view")
            .scene
            .material_count();
        let doc = h.state.session.asset().expect("doc");
        let reads_konst: Vec<bool> = (0..count)
            .map(|i| {
                doc.material(0, i).is_some_and(|m| {
                    m.material
                        .stages
                        .iter()
                        .any(|s| s.color_in.contains(&ColorInput::Konst))
                })
            })
            .collect();
        visible_material(h, |_, i| reads_konst.get(i).copied().unwrap_or(false))
    }

    #[test]
    fn value_edits_change_pixels_without_a_new_pipeline_and_structure_edits_land() {
        let Some(mut h) = Harness::open(&demo("showcase")) else {
            return;
        };
        let before = h.settled_frame();
        let (material, (x, y)) = konst_material(&mut h);
        h.state.select_material(0, material);
        let pipelines = h.ctx.pipelines.len();

        // Value edit through the document: every konst colour to a loud magenta, as the
        // konst editor does.
        let mut m = h.state.file_material().expect("editable model").clone();
        let konsts = m.konst_colors.as_ref().map_or(0, Vec::len);
        m.konst_colors = Some(vec![0xFF00_FFFF; konsts.max(1)]);
        h.state.apply_material(m, "konsts magenta");
        assert_eq!(h.state.messages.edit_error, None);
        assert_eq!(
            h.state.selected.edit.as_ref().expect("edit").last_edit,
            EditKind::Value
        );
        let valued = h.frame();
        assert_eq!(
            h.ctx.pipelines.len(),
            pipelines,
            "a value edit requested a pipeline"
        );
        assert_eq!(h.viewport.status.path, Some(SelectedPath::Specialized));
        assert_eq!(h.viewport.status.uber_draws, 0);
        assert_ne!(
            valued.pixel(x, y),
            before.pixel(x, y),
            "the konst edit did not reach pixel ({x}, {y}) of material {material}"
        );

        // Structural edit: every stage's colour becomes ONE (white).
        let mut m = h.state.file_material().expect("editable model").clone();
        for words in &mut m.tev_stages {
            let mut stage = words.to_gx().expect("stage decodes");
            stage.color_in = [
                ColorInput::Zero,
                ColorInput::Zero,
                ColorInput::Zero,
                ColorInput::One,
            ];
            stage.color_op = tevscope::gx::types::TevCombine::DEFAULT;
            *words = words.with_gx(&stage);
        }
        h.state.apply_material(m, "stages white");
        assert_eq!(
            h.state.selected.edit.as_ref().expect("edit").last_edit,
            EditKind::Structure
        );
        let key_before = h
            .viewport
            .scene_view()
            .and_then(|sv| sv.scene.shader_key(material).cloned());
        h.frame();
        let structured = h.settled_frame();
        let sv = h.viewport.scene_view().expect("model view");
        let key_after = sv.scene.shader_key(material).cloned();
        assert!(h.ctx.pipelines.len() > pipelines, "no pipeline was built");
        assert_ne!(key_before, key_after, "the scene material's shader changed");
        assert_eq!(h.viewport.status.path, Some(SelectedPath::Specialized));
        assert_ne!(structured.pixel(x, y), valued.pixel(x, y));

        // Selecting another material and back keeps the edits (they are the document's).
        h.state.select_material(0, (material + 1) % 29);
        h.state.select_material(0, material);
        assert_eq!(differing_pixels(&h.settled_frame(), &structured), 0);

        // Undo and redo through the UI state give back the exact pixels of each state.
        assert!(h.state.undo());
        assert_eq!(differing_pixels(&h.settled_frame(), &valued), 0, "undo 1");
        assert!(h.state.undo());
        assert_eq!(differing_pixels(&h.settled_frame(), &before), 0, "undo 2");
        assert!(!h.state.is_dirty());
        assert!(h.state.redo() && h.state.redo());
        assert_eq!(differing_pixels(&h.settled_frame(), &structured), 0, "redo");
    }

    /// A texture slot edit rebinds the texture: the scene is rebuilt from the edited
    /// document, and undo brings the old pixels back.
    #[test]
    fn a_texture_slot_edit_rebinds_and_undoes() {
        let Some(mut h) = Harness::open(&demo("showcase")) else {
            return;
        };
        let before = h.settled_frame();
        let textures = h.state.set_texture_ids().len();
        // The first textured material that shows on screen takes another texture.
        let mut changed = false;
        for i in 0..29 {
            h.state.select_material(0, i);
            let Some(m) = h.state.file_material().cloned() else {
                continue;
            };
            let Some(&slot) = m.texture_indices.first() else {
                continue;
            };
            let mut edited = m.clone();
            edited.texture_indices[0] = (slot + 1) % textures as u32;
            h.state.apply_material(edited, "texture map 0");
            assert!(h.state.requests.reload_view, "a rebinding reloads the view");
            if differing_pixels(&h.settled_frame(), &before) > 0 {
                changed = true;
                break;
            }
            assert!(h.state.undo());
        }
        assert!(changed, "no texture slot edit changed the picture");
        assert!(h.state.undo());
        assert_eq!(differing_pixels(&h.settled_frame(), &before), 0);
    }

    #[test]
    fn pick_finds_the_surface_under_the_pixel_and_selects_its_material() {
        let Some(mut h) = Harness::open(&demo("showcase")) else {
            return;
        };
        h.settled_frame();
        let sv = h.viewport.scene_view().expect("model view");
        let model = sv.scene.model().clone();
        let camera = sv.scene.view().frame_camera(W as f32 / H as f32);
        let clip_from_world = camera.clip_from_view * camera.view_from_world;
        let mut checked = 0;
        for (i, s) in model.surfaces.iter().enumerate() {
            let ndc = clip_from_world.project_point3(glam::Vec3::from(s.center));
            if ndc.x.abs() >= 1.0 || ndc.y.abs() >= 1.0 {
                continue;
            }
            let x = ((ndc.x * 0.5 + 0.5) * W as f32) as u32;
            let y = ((0.5 - ndc.y * 0.5) * H as f32) as u32;
            let hit = sv.scene.pick(&h.ctx, W, H, x, y).expect("pick");
            let Some(hit) = hit else { continue };
            assert_eq!(hit.material, model.surfaces[hit.surface].material);
            assert!((0.0..1.0).contains(&hit.depth));
            if hit.surface == i {
                checked += 1;
            }
        }
        assert!(
            checked * 2 >= model.surfaces.len(),
            "only {checked} of {} tile centres picked their own surface",
            model.surfaces.len()
        );
        // The corner is background.
        assert_eq!(sv.scene.pick(&h.ctx, W, H, 0, 0).expect("pick"), None);

        // A click as the app handles it: the material under the cursor is selected and
        // the inspector gets the hit and the displayed pixel.
        let shown = h.frame();
        let (x, y) = (W / 2, H / 2);
        pick(&mut h.viewport, &h.ctx, &mut h.state, x, y);
        let p = h.state.picking.pick.clone().expect("pick report");
        let hit = p.hit.expect("the centre is covered");
        assert_eq!(h.state.session.selection.material, hit.material);
        assert_eq!(h.state.selected.edit.as_ref().map(|e| e.revision), Some(0));
        assert_eq!(p.rgba, shown.pixel(x, y));
        pick(&mut h.viewport, &h.ctx, &mut h.state, 0, 0);
        assert_eq!(h.state.picking.pick.as_ref().and_then(|p| p.hit), None);
        assert_eq!(
            h.state.session.selection.material, hit.material,
            "background keeps the selection"
        );
    }

    /// The first visible surface (grid scan) whose material passes `wanted`: its
    /// material and pixel.
    fn visible_material(
        h: &mut Harness,
        wanted: impl Fn(&tevscope::model::CpuModel, usize) -> bool,
    ) -> (usize, (u32, u32)) {
        let sv = h.viewport.scene_view().expect("model view");
        let model = sv.scene.model().clone();
        for y in (2..H).step_by(4) {
            for x in (2..W).step_by(4) {
                if let Some(hit) = sv.scene.pick(&h.ctx, W, H, x, y).expect("pick")
                    && wanted(&model, hit.material)
                {
                    return (hit.material, (x, y));
                }
            }
        }
        panic!("no visible surface fits");
    }

    #[test]
    fn the_selection_is_tinted_and_nothing_else_changes() {
        let Some(mut h) = Harness::open(&demo("showcase")) else {
            return;
        };
        let plain = h.settled_frame();
        let (material, (x, y)) = visible_material(&mut h, |_, _| true);
        h.state.select_material(0, material);
        h.state.prefs.tint_selection = true;
        assert_eq!(h.state.highlighted_material(), Some(material));
        let tinted = h.settled_frame();
        assert_ne!(
            tinted.pixel(x, y),
            plain.pixel(x, y),
            "the picked pixel is tinted"
        );
        let changed: Vec<(u32, u32)> = (0..W * H)
            .map(|i| (i % W, i / W))
            .filter(|&(x, y)| tinted.pixel(x, y) != plain.pixel(x, y))
            .collect();
        let sv = h.viewport.scene_view().expect("model view");
        // Every tinted pixel (a sample) shows the selected material...
        for &(x, y) in changed.iter().step_by((changed.len() / 40).max(1)) {
            let hit = sv.scene.pick(&h.ctx, W, H, x, y).expect("pick");
            assert_eq!(hit.map(|h| h.material), Some(material), "pixel ({x}, {y})");
        }
        // ...and pixels of other materials and the background keep their exact colour.
        let mut others = 0;
        for y in (0..H).step_by(5) {
            for x in (0..W).step_by(5) {
                let hit = sv.scene.pick(&h.ctx, W, H, x, y).expect("pick");
                if hit.is_none_or(|h| h.material != material) {
                    others += 1;
                    assert_eq!(tinted.pixel(x, y), plain.pixel(x, y), "pixel ({x}, {y})");
                }
            }
        }
        assert!(others > 100, "{others} pixels of other content checked");
        // The pixel inspector reports the model's pixel, not the tinted one.
        pick(&mut h.viewport, &h.ctx, &mut h.state, x, y);
        let p = h.state.picking.pick.clone().expect("pick report");
        assert_eq!(p.hit.map(|hit| hit.material), Some(material));
        assert_eq!(p.rgba, plain.pixel(x, y));
        // Screenshots are the model's pixels, without the tint.
        let shot = std::env::temp_dir().join(format!("tevscope-tint-{}.png", std::process::id()));
        let saved = h
            .viewport
            .save_screenshot(
                &h.ctx,
                h.state.selected.edit.as_ref(),
                &ViewSettings::default(),
                false,
                None,
                &shot,
            )
            .expect("screenshot");
        std::fs::remove_file(&shot).ok();
        assert_eq!(differing_pixels(&saved, &opaque(&plain)), 0);
        // Hovering another material in the list moves the tint there.
        h.state.picking.hovered_material = Some(material + 1);
        assert_eq!(h.state.highlighted_material(), Some(material + 1));
        h.state.picking.hovered_material = None;
        h.state.prefs.tint_selection = false;
        assert_eq!(differing_pixels(&h.settled_frame(), &plain), 0);
    }

    #[test]
    fn a_missing_texture_draws_the_checker_and_names_its_slot() {
        use tevscope::model::TextureData;
        use tevscope::render::{Scene, SceneOptions};
        let Some(mut h) = Harness::open(&demo("showcase")) else {
            return;
        };
        h.settled_frame();
        let textured = |m: &tevscope::model::CpuModel, i: usize| {
            matches!(
                m.material_sets[0].materials[i].textures.first(),
                Some(Ok(_))
            )
        };
        let (material, _) = visible_material(&mut h, textured);
        let sv = h.viewport.scene_view().expect("model view");
        let full = sv.scene.model().clone();
        let Some(Ok(id)) = full.material_sets[0].materials[material]
            .textures
            .first()
            .cloned()
        else {
            unreachable!("a textured material")
        };
        let ctx = &h.ctx;
        let draw = |cpu: tevscope::model::CpuModel, missing_checker: bool| {
            let options = SceneOptions {
                missing_checker,
                ..SceneOptions::default()
            };
            let mut scene = Scene::with_options(ctx, cpu, options).expect("scene");
            let image = scene.render_to_image(ctx, W, H, false).expect("render");
            (image, scene.warnings.clone())
        };
        let mut missing = full.clone();
        missing.textures.remove(&id);
        let (white, white_warnings) = draw(missing.clone(), false);
        let (checker, warnings) = draw(missing, true);
        // The checker is exactly what a model with the checker as that texture draws.
        let mut with_checker = full.clone();
        with_checker
            .textures
            .insert(id, TextureData::missing_checker());
        let (reference, _) = draw(with_checker, false);
        assert_eq!(differing_pixels(&checker, &reference), 0);
        assert!(differing_pixels(&checker, &white) > 20, "the checker shows");
        // The warning names the ID and where it was looked for.
        let wanted = format!("material {material} map 0: texture 0x{id:08X} not found");
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with(&wanted) && w.ends_with("magenta checker")),
            "{warnings:?}"
        );
        assert!(
            white_warnings
                .iter()
                .any(|w| w.ends_with("white placeholder")),
            "{white_warnings:?}"
        );
    }

    #[test]
    fn the_worm_moves_with_its_animation_clock() {
        let Some(mut h) = Harness::open(&demo("worm_character")) else {
            return;
        };
        assert_eq!(
            h.state.session.clock.animation,
            Some(0),
            "the first animation plays"
        );
        let at0 = h.settled_frame();
        h.state.session.clock.time = 0.5;
        let at_half = h.settled_frame();
        assert!(
            differing_pixels(&at0, &at_half) > 50,
            "the animation did not move the worm"
        );
        // The bind pose does not move with time (the worm has no UV animations).
        h.state.session.clock.animation = None;
        let bind_a = h.settled_frame();
        h.state.session.clock.time = 1.25;
        let bind_b = h.settled_frame();
        assert_eq!(differing_pixels(&bind_a, &bind_b), 0);
        assert_ne!(differing_pixels(&bind_a, &at_half), 0);
        // Picking follows the pose: something of the worm is found where it is drawn.
        h.state.session.clock.animation = Some(0);
        h.state.session.clock.time = 0.5;
        let img = h.settled_frame();
        let bg = img.pixel(0, 0);
        let (x, y) = (0..W * H)
            .map(|i| (i % W, i / W))
            .find(|&(x, y)| img.pixel(x, y) != bg && x > 2 && y > 2)
            .expect("worm pixel");
        let sv = h.viewport.scene_view().expect("model view");
        // A pixel at the silhouette may be rasterised differently; look at a 3x3 block.
        let found = (x..x + 3)
            .flat_map(|x| (y..y + 3).map(move |y| (x, y)))
            .any(|(x, y)| matches!(sv.scene.pick(&h.ctx, W, H, x, y), Ok(Some(_))));
        assert!(found, "no surface picked at the worm's pixel ({x}, {y})");
        // The selection tint follows the skinned pose too.
        let hit = (x..x + 3)
            .flat_map(|x| (y..y + 3).map(move |y| (x, y)))
            .find_map(|(x, y)| {
                sv.scene
                    .pick(&h.ctx, W, H, x, y)
                    .ok()
                    .flatten()
                    .map(|hit| (hit, (x, y)))
            });
        let (hit, (hx, hy)) = hit.expect("a worm surface");
        h.state.picking.hovered_material = Some(hit.material);
        let tinted = h.settled_frame();
        assert_ne!(
            tinted.pixel(hx, hy),
            img.pixel(hx, hy),
            "the worm's picked pixel is tinted"
        );
        assert_eq!(tinted.pixel(0, 0), img.pixel(0, 0));
    }
}

mod conformance_character {
    use tevscope::render::RenderContext;
    use tevscope::ui::app::sync_view;
    use tevscope::ui::state::{AppState, RightTab};
    use tevscope::ui::viewport::ViewSettings;

    /// The conformance ANCS (2 animations) over the two-material-set cube: switching the
    /// set in the panel rebuilds the scene's materials for that set.
    #[test]
    fn character_with_two_material_sets() {
        let Some(dir) = tevscope::testing::conformance_dir() else {
            return;
        };
        let spec = format!("{}:0xAC000001", dir.join("mp1_fixtures.pak").display());
        let Some(ctx) = RenderContext::for_tests() else {
            return;
        };
        let (_egui_renderer, mut viewport) = super::viewport_of(&ctx, 64, 64);
        let mut state = AppState::new(std::env::temp_dir());
        state.open(&spec);
        assert!(
            state.messages.load_error.is_none(),
            "{:?}",
            state.messages.load_error
        );
        assert_eq!(
            state.session.asset().map(|d| d.areas.len()),
            Some(1),
            "the PAK's MREA is offered for lights"
        );
        let (assets, animations, _) = state.model().expect("a model");
        assert_eq!(animations.len(), 2);
        assert_eq!(assets.cmdl.material_sets.len(), 2);
        sync_view(&mut viewport, &ctx, &state, true);
        viewport.render(&ctx, state.selected.edit.as_ref(), &ViewSettings::default());
        assert!(
            viewport.status.error.is_none(),
            "{:?}",
            viewport.status.error
        );
        let sv = viewport.scene_view().expect("model view");
        assert!(sv.scene.is_skinned());
        assert_eq!(sv.scene.material_set(), 0);
        sv.scene.finish_pipelines(&ctx);
        viewport.render(&ctx, state.selected.edit.as_ref(), &ViewSettings::default());
        let set0 = viewport.read(&ctx).expect("readback");

        state.select_material(1, 2);
        sync_view(&mut viewport, &ctx, &state, true);
        viewport.render(&ctx, state.selected.edit.as_ref(), &ViewSettings::default());
        let sv = viewport.scene_view().expect("scene");
        assert_eq!(sv.scene.material_set(), 1);
        sv.scene.finish_pipelines(&ctx);
        viewport.render(&ctx, state.selected.edit.as_ref(), &ViewSettings::default());
        let set1 = viewport.read(&ctx).expect("readback");
        assert_ne!(set0.pixels, set1.pixels, "the second set's textures differ");
        // The WGSL tab shows the scene's own (skinned) shader for the selection.
        state.view_status = viewport.status.clone();
        let key = state.view_status.shader_key.clone().expect("selected key");
        assert!(key.vertex.skinned);
        state.tab = RightTab::Wgsl;
        let ctx_ui = egui::Context::default();
        let mut out = ctx_ui.run_ui(egui::RawInput::default(), |ui| {
            tevscope::ui::panels::show(ui, &mut state)
        });
        out.textures_delta.clear();
    }
}
