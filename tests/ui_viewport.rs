//! The viewer's viewport on a software adapter: every material of the TEV-cases model
//! drawn into the viewport's own offscreen target (the egui texture the window shows),
//! compared pixel by pixel with the pixel inspector's CPU trace; edits applied as the UI
//! applies them (value edits and structural edits) must show up in the next frame.

use tevscope::gx::types::ColorInput;
use tevscope::render::RenderContext;
use tevscope::render::pipeline_cache::SelectedPath;
use tevscope::ui::edit::{EditKind, trace_quad_pixel};
use tevscope::ui::panels::AppState;
use tevscope::ui::viewport::{ViewSettings, Viewport};

const SIZE: u32 = 48;

/// Pixels checked per material: corners, centre and a diagonal.
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
    let edit = state.edit.as_ref().expect("material");
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
    let mut egui_renderer = egui_wgpu::Renderer::new(
        &ctx.device,
        wgpu::TextureFormat::Rgba8Unorm,
        egui_wgpu::RendererOptions::default(),
    );
    let mut viewport = Viewport::new(&ctx, &mut egui_renderer).expect("viewport");
    viewport.resize(&ctx, &mut egui_renderer, SIZE, SIZE);
    assert_eq!(
        (viewport.target.width, viewport.target.height),
        (SIZE, SIZE)
    );

    let mut state = AppState::new(dir.clone());
    state.open(dir.join("0x7EC00000.CMDL").to_str().expect("utf-8 path"));
    assert!(state.load_error.is_none(), "{:?}", state.load_error);
    for i in 0..48 {
        state.select_material(0, i);
        let edit = state.edit.as_ref().expect("material converts");
        viewport.show_material(
            &ctx,
            edit,
            &state.current_textures(),
            state.settings.sampling,
        );
        check_frame(&ctx, &mut viewport, &state, &format!("material {i}"));
    }

    // Value edit on the last material: uniforms only, visible next frame.
    let edit = state.edit.as_mut().expect("material");
    let before = edit.program.clone();
    for k in &mut edit.program.konst {
        *k = [k[2], k[0], k[1], 255 - k[3]];
    }
    edit.program.registers[2] = [17, 300, -40, 90];
    assert_eq!(edit.commit(&before), EditKind::Value);
    check_frame(&ctx, &mut viewport, &state, "after a value edit");

    // Structural edit: the next frame is drawn (ubershader or specialized) and matches.
    let edit = state.edit.as_mut().expect("material");
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
    let mut egui_renderer = egui_wgpu::Renderer::new(
        &ctx.device,
        wgpu::TextureFormat::Rgba8Unorm,
        egui_wgpu::RendererOptions::default(),
    );
    let mut viewport = Viewport::new(&ctx, &mut egui_renderer).expect("viewport");
    viewport.resize(&ctx, &mut egui_renderer, 16, 8);
    let mut state = AppState::new(dir.clone());
    state.open(dir.join("mp1_i8_16x8.TXTR").to_str().expect("utf-8 path"));
    assert!(state.load_error.is_none(), "{:?}", state.load_error);
    let edit = state.edit.as_ref().expect("preview material");
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
    let mut egui_renderer = egui_wgpu::Renderer::new(
        &ctx.device,
        wgpu::TextureFormat::Rgba8Unorm,
        egui_wgpu::RendererOptions::default(),
    );
    let mut viewport = Viewport::new(&ctx, &mut egui_renderer).expect("viewport");
    viewport.resize(&ctx, &mut egui_renderer, 32, 32);
    let mut state = AppState::new(dir.clone());
    state.open(dir.join("0x7EC00000.CMDL").to_str().expect("utf-8 path"));
    let edit = state.edit.as_ref().expect("material");
    viewport.show_material(
        &ctx,
        edit,
        &state.current_textures(),
        state.settings.sampling,
    );

    let out = std::env::temp_dir().join(format!("tevscope-ui-shot-{}.png", std::process::id()));
    // Material 0 writes alpha 0: with an opaque background and the exact view the
    // background is overwritten (blending off), so both PNGs hold the TEV output...
    let mut settings = ViewSettings {
        background: [10, 20, 30, 255],
        ..ViewSettings::default()
    };
    let image = viewport
        .save_screenshot(&ctx, Some(edit), &settings, false, &out)
        .expect("screenshot");
    let bytes = std::fs::read(&out).expect("png written");
    assert_eq!(&bytes[1..4], b"PNG");
    let decoded = tevscope::formats::image::RgbaImage::decode_png(&bytes).expect("decodes");
    assert_eq!((decoded.width, decoded.height), (32, 32));
    assert_eq!(decoded.pixels, image.pixels, "the PNG is the exact target");
    // ...while an alpha-tested-away pixel keeps the clear colour: make every pixel fail.
    let edit = state.edit.as_mut().expect("material");
    let before = edit.program.clone();
    edit.program.alpha_test.comp0 = tevscope::gx::types::Compare::Never;
    edit.program.alpha_test.comp1 = tevscope::gx::types::Compare::Never;
    edit.commit(&before);
    ctx.pipelines.wait_idle();
    let image = viewport
        .save_screenshot(&ctx, Some(edit), &settings, false, &out)
        .expect("screenshot");
    assert!(image.pixels.chunks(4).all(|p| p == [10, 20, 30, 255]));
    let image = viewport
        .save_screenshot(&ctx, Some(edit), &settings, true, &out)
        .expect("transparent screenshot");
    assert!(image.pixels.chunks(4).all(|p| p == [0, 0, 0, 0]));
    settings.background = [1, 2, 3, 4];
    assert!(
        viewport
            .save_screenshot(&ctx, Some(edit), &settings, false, std::path::Path::new(""))
            .is_err()
    );
    std::fs::remove_file(&out).ok();
}
