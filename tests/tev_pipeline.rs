//! Render-side behaviour: the asynchronous pipeline cache (ubershader until the
//! specialized pipeline is ready, identical pixels), invalid shaders keeping the last good
//! pipeline, value edits not recompiling, alpha test without depth writes, and host
//! blending against the integer reference.

mod tev_common;

use std::sync::Arc;

use tev_common::*;
use tevscope::gx::tev::{BlendOptions, TevOptions, TevProgram, blend};
use tevscope::gx::types::*;
use tevscope::gx::wgsl::vertex::DrawUniforms;
use tevscope::model::TextureData;
use tevscope::render::RenderError;
use tevscope::render::context::RenderContext;
use tevscope::render::convert::{BlendConversion, CullMode, RenderState};
use tevscope::render::material::{BoundTexture, GpuMaterial};
use tevscope::render::pipeline_cache::{
    MaterialPipeline, PipelineKey, PipelineStatus, SelectedPath, ShaderPath,
};
use tevscope::render::quad::{QuadGeometry, QuadRenderer};
use tevscope::render::shader_cache::ShaderId;
use tevscope::render::target::{COLOR_FORMAT, DEPTH_FORMAT, OffscreenTarget, RgbaImage};
use tevscope::render::texture::{GpuTexture, SamplerMode, Wrap};

/// colour = TEXC × KONST (K0), alpha = TEXA; one texture.
fn textured(konst: [u8; 4]) -> Material {
    let s = TevStage::from_words(
        TevStage::color_inputs_word([
            ColorInput::Zero,
            ColorInput::Texc,
            ColorInput::Konst,
            ColorInput::Zero,
        ]),
        TevStage::alpha_inputs_word([
            AlphaInput::Zero,
            AlphaInput::Zero,
            AlphaInput::Zero,
            AlphaInput::Texa,
        ]),
        0x100,
        0x100,
        0,
        0x0C,
        0xFF,
        0,
        0,
    )
    .expect("stage");
    let mut m = base_material(vec![s], 1, 1);
    m.konst[0] = konst;
    m
}

fn gradient() -> TextureData {
    let mut bytes = Vec::new();
    for y in 0..8u32 {
        for x in 0..8u32 {
            bytes.extend_from_slice(&[(x * 32) as u8, (y * 32) as u8, 200, (x * 30 + y) as u8]);
        }
    }
    TextureData {
        width: 8,
        height: 8,
        levels: vec![bytes],
    }
}

struct Scene {
    quad: QuadRenderer,
    textures: Vec<Option<BoundTexture>>,
}

impl Scene {
    fn new(ctx: &RenderContext) -> Self {
        let tex =
            GpuTexture::upload(&ctx.device, &ctx.queue, &gradient(), "gradient").expect("upload");
        Self {
            quad: QuadRenderer::new(ctx, &QuadGeometry::default(), &DrawUniforms::default()),
            textures: vec![Some(BoundTexture {
                texture: tex,
                sampler: SamplerMode::Nearest { wrap: Wrap::Repeat },
            })],
        }
    }

    fn material(&self, ctx: &RenderContext, m: &Material) -> GpuMaterial {
        GpuMaterial::new(
            ctx,
            m,
            &TevOptions::default(),
            self.quad.draw_uniforms.as_entire_buffer_binding(),
            &self.textures,
        )
    }

    /// Draws `draws` in order into a fresh 8×8 target cleared to `clear`.
    fn draw(
        &self,
        ctx: &RenderContext,
        clear: wgpu::Color,
        draws: &[(&GpuMaterial, &wgpu::RenderPipeline)],
    ) -> RgbaImage {
        let target = OffscreenTarget::new(ctx, 8, 8).expect("target");
        let mut encoder = ctx.device.create_command_encoder(&Default::default());
        {
            let mut pass = target.begin_pass(&mut encoder, Some(clear));
            for (m, p) in draws {
                self.quad.draw(&mut pass, m, p);
            }
        }
        ctx.queue.submit([encoder.finish()]);
        target.read_rgba(ctx).expect("readback")
    }
}

fn keys(m: &GpuMaterial, state: RenderState) -> (PipelineKey, PipelineKey) {
    m.pipeline_keys(state, COLOR_FORMAT, Some(DEPTH_FORMAT))
}

#[test]
fn ubershader_until_the_specialized_pipeline_is_ready() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let scene = Scene::new(&ctx);
    let gm = scene.material(&ctx, &textured([200, 100, 50, 255]));
    let (spec, uber) = keys(&gm, RenderState::EXACT_QUAD);
    let mut selector = MaterialPipeline::default();
    let first = selector
        .select(&ctx.pipelines, &spec, &uber, ShaderPath::Specialized)
        .expect("select");
    // The worker may finish before select() returns on a fast machine; either way the
    // draw is never blocked on the specialized compile.
    assert!(matches!(
        first.path,
        SelectedPath::Uber | SelectedPath::Specialized
    ));
    let uber_img = scene.draw(
        &ctx,
        wgpu::Color::TRANSPARENT,
        &[(&gm, &ctx.pipelines.get_blocking(&uber).expect("uber"))],
    );
    ctx.pipelines.wait_idle();
    let second = selector
        .select(&ctx.pipelines, &spec, &uber, ShaderPath::Specialized)
        .expect("select");
    assert_eq!(second.path, SelectedPath::Specialized);
    let spec_img = scene.draw(&ctx, wgpu::Color::TRANSPARENT, &[(&gm, &second.pipeline)]);
    assert_eq!(spec_img, uber_img, "both paths give identical pixels");
    // TEXC × K0 at texel (x, y): r = lerp(0, 32x, 200).
    let p = spec_img.pixel(3, 5);
    let expect_r = ((3 * 32 * (200 + (200 >> 7)) + 128) >> 8) as u8;
    assert_eq!(p[0], expect_r);
    assert_eq!(p[3], (3 * 30 + 5) as u8);
}

#[test]
fn request_reports_pending_then_ready() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let scene = Scene::new(&ctx);
    let gm = scene.material(&ctx, &textured([1, 2, 3, 4]));
    let mut state = RenderState::EXACT_QUAD;
    state.cull = Some(wgpu::Face::Front); // a key no other test uses
    let (spec, _) = keys(&gm, state);
    match ctx.pipelines.request(&spec) {
        PipelineStatus::Pending | PipelineStatus::Ready(_) => {}
        PipelineStatus::Failed(e) => panic!("{e}"),
    }
    ctx.pipelines.wait_idle();
    assert!(matches!(
        ctx.pipelines.request(&spec),
        PipelineStatus::Ready(_)
    ));
}

/// The cache forgets its least recently used pipelines beyond its capacity; a forgotten
/// key is simply built again.
#[test]
fn the_pipeline_cache_forgets_the_least_recently_used() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let cache = tevscope::render::PipelineCache::with_capacity(
        ctx.device.clone(),
        ctx.layouts.clone(),
        ctx.shaders.clone(),
        2,
    );
    let scene = Scene::new(&ctx);
    let gm = scene.material(&ctx, &textured([5, 6, 7, 8]));
    let key = |cull| {
        let mut state = RenderState::EXACT_QUAD;
        state.cull = cull;
        keys(&gm, state).0
    };
    let (a, b, c) = (
        key(None),
        key(Some(wgpu::Face::Front)),
        key(Some(wgpu::Face::Back)),
    );
    cache.get_blocking(&a).expect("a");
    cache.get_blocking(&b).expect("b");
    assert!(
        matches!(cache.request(&a), PipelineStatus::Ready(_)),
        "a is now the newest"
    );
    let c_first = cache.get_blocking(&c).expect("c");
    assert_eq!(cache.len(), 2);
    // b was the least recently used: requesting it builds it again.
    assert!(matches!(cache.request(&b), PipelineStatus::Pending));
    cache.wait_idle();
    assert!(matches!(cache.request(&b), PipelineStatus::Ready(_)));
    // Rebuilding b pushed out a (used before c); c is still the same cached pipeline.
    assert_eq!(cache.len(), 2);
    let c_again = cache.get_blocking(&c).expect("c");
    assert!(Arc::ptr_eq(&c_first, &c_again));
    assert!(matches!(cache.request(&a), PipelineStatus::Pending));
    cache.wait_idle();
}

#[test]
fn an_invalid_shader_is_an_error_and_keeps_the_last_good_pipeline() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let scene = Scene::new(&ctx);
    let gm = scene.material(&ctx, &textured([9, 9, 9, 9]));
    let (spec, uber) = keys(&gm, RenderState::EXACT_QUAD);
    let good = ctx.pipelines.get_blocking(&spec).expect("valid");
    let mut selector = MaterialPipeline::default();
    assert_eq!(
        selector
            .select(&ctx.pipelines, &spec, &uber, ShaderPath::Specialized)
            .expect("ok")
            .path,
        SelectedPath::Specialized
    );

    let broken = PipelineKey {
        shader: ShaderId::Source {
            name: "broken".into(),
            wgsl: Arc::from("@fragment fn fs_main() -> @location(0) vec4<f32> { return 1; }"),
        },
        ..spec.clone()
    };
    match ctx.pipelines.get_blocking(&broken) {
        Err(e) => assert!(matches!(*e, RenderError::Shader { .. }), "{e}"),
        Ok(_) => panic!("broken WGSL must not build"),
    }
    let sel = selector
        .select(&ctx.pipelines, &broken, &uber, ShaderPath::Specialized)
        .expect("falls back");
    assert_eq!(sel.path, SelectedPath::LastGood);
    assert!(Arc::ptr_eq(&sel.pipeline, &good));
    assert!(selector.last_error.is_some());
    // Without a last good pipeline the ubershader stands in.
    let mut fresh = MaterialPipeline::default();
    assert_eq!(
        fresh
            .select(&ctx.pipelines, &broken, &uber, ShaderPath::Specialized)
            .expect("uber")
            .path,
        SelectedPath::Uber
    );
}

#[test]
fn value_edits_keep_the_key_and_structural_edits_change_it() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let scene = Scene::new(&ctx);
    let m = textured([10, 20, 30, 40]);
    let mut gm = scene.material(&ctx, &m);
    let key = gm.shader_key.clone();
    let mut v = m.clone();
    v.konst[0] = [250, 20, 30, 40];
    assert!(!gm.update(&ctx, &v, &TevOptions::default()));
    assert_eq!(gm.shader_key, key);
    // The new konst shows without a new pipeline.
    let p = ctx
        .pipelines
        .get_blocking(&keys(&gm, RenderState::EXACT_QUAD).0)
        .expect("pipeline");
    let img = scene.draw(&ctx, wgpu::Color::TRANSPARENT, &[(&gm, &p)]);
    assert_eq!(img.pixel(7, 0)[0], ((224 * 251 + 128) >> 8) as u8);
    // Structure: SUB instead of ADD; the ubershader shows it at once.
    let mut w = v.clone();
    w.stages[0].color_op.op = 1;
    assert!(gm.update(&ctx, &w, &TevOptions::default()));
    assert_ne!(gm.shader_key, key);
    let uber = ctx
        .pipelines
        .get_blocking(&keys(&gm, RenderState::EXACT_QUAD).1)
        .expect("uber");
    let img = scene.draw(&ctx, wgpu::Color::TRANSPARENT, &[(&gm, &uber)]);
    assert_eq!(img.pixel(7, 0)[0], 0, "0 − lerp clamps to 0");
}

#[test]
fn rejected_pixels_write_neither_colour_nor_depth() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let scene = Scene::new(&ctx);
    // Alpha = TEXA = 30x + y: x ≥ 3 passes (≥ 64 … x = 2 gives 60..67: y ≥ 4 passes).
    let mut m = textured([255, 255, 255, 255]);
    m.alpha_test = AlphaTest::PUNCHTHROUGH;
    m.flags |= flags::PUNCHTHROUGH;
    let first = scene.material(&ctx, &m);
    let program = TevProgram::from_material(&m, &TevOptions::default());
    let state = RenderState::for_program(&program, BlendConversion::default(), CullMode::None);
    assert!(state.depth_write);
    let (p1, _) = first.pipeline_keys(
        RenderState {
            topology: wgpu::PrimitiveTopology::TriangleStrip,
            ..state
        },
        COLOR_FORMAT,
        Some(DEPTH_FORMAT),
    );
    let p1 = ctx.pipelines.get_blocking(&p1).expect("p1");
    // Second draw at the same depth with LESS: passes only where the first wrote no depth.
    let second = scene.material(&ctx, &textured([0, 0, 0, 255]));
    let mut s2 = RenderState::EXACT_QUAD;
    s2.depth_compare = wgpu::CompareFunction::Less;
    let p2 = ctx
        .pipelines
        .get_blocking(&keys(&second, s2).0)
        .expect("p2");
    let img = scene.draw(
        &ctx,
        wgpu::Color::TRANSPARENT,
        &[(&first, &p1), (&second, &p2)],
    );
    for y in 0..8u32 {
        for x in 0..8u32 {
            let alpha = x * 30 + y;
            let px = img.pixel(x, y);
            if alpha >= 64 {
                assert_eq!(
                    px[3] as u32, alpha,
                    "({x}, {y}) drawn by the first material"
                );
                assert_eq!(px[0] as u32, x * 32, "({x}, {y})");
            } else {
                // Rejected: no depth written, so the second (black) draw lands.
                assert_eq!(px, [0, 0, 0, alpha as u8], "({x}, {y})");
            }
        }
    }
}

#[test]
fn host_blending_is_within_two_lsb_of_the_integer_reference() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let scene = Scene::new(&ctx);
    let dst = [40u8, 200, 120, 255];
    let clear = wgpu::Color {
        r: dst[0] as f64 / 255.0,
        g: dst[1] as f64 / 255.0,
        b: dst[2] as f64 / 255.0,
        a: dst[3] as f64 / 255.0,
    };
    let exact = scene.material(&ctx, &textured([255, 255, 255, 255]));
    let p = ctx
        .pipelines
        .get_blocking(&keys(&exact, RenderState::EXACT_QUAD).0)
        .expect("p");
    let src_img = scene.draw(&ctx, wgpu::Color::TRANSPARENT, &[(&exact, &p)]);
    let factors = [
        BlendFactor::Zero,
        BlendFactor::One,
        BlendFactor::SrcClr,
        BlendFactor::InvSrcClr,
        BlendFactor::SrcAlpha,
        BlendFactor::InvSrcAlpha,
        BlendFactor::DstAlpha,
        BlendFactor::InvDstAlpha,
    ];
    let mut worst = 0i32;
    for src in factors {
        for dstf in factors {
            for mode in [BlendMode::Blend, BlendMode::Subtract] {
                let b = Blend {
                    mode,
                    src,
                    dst: dstf,
                };
                let mut m = textured([255, 255, 255, 255]);
                m.blend = b;
                let gm = scene.material(&ctx, &m);
                let program = TevProgram::from_material(&m, &TevOptions::default());
                let mut state =
                    RenderState::for_program(&program, BlendConversion::default(), CullMode::None);
                state.topology = wgpu::PrimitiveTopology::TriangleStrip;
                let pipe = ctx
                    .pipelines
                    .get_blocking(&keys(&gm, state).0)
                    .expect("pipeline");
                let img = scene.draw(&ctx, clear, &[(&gm, &pipe)]);
                for y in 0..8 {
                    for x in 0..8 {
                        let s = src_img.pixel(x, y);
                        let want = blend(b, s, dst, BlendOptions::default());
                        let got = img.pixel(x, y);
                        // The colour channels are what Prime shows (RGB8 framebuffer). The
                        // alpha-1 rule cannot apply in host blending (TEV output kept).
                        if s[3] == 1 {
                            continue;
                        }
                        for c in 0..3 {
                            let d = (got[c] as i32 - want[c] as i32).abs();
                            worst = worst.max(d);
                            // Float factors k/255 vs GX's (k + k>>7)/256 with truncation:
                            // ±1 in exact float; software rasterizers blend in 8-bit fixed
                            // point and add one more rounding (lavapipe: 2).
                            assert!(
                                d <= 2,
                                "{b:?} src {s:?} dst {dst:?}: got {got:?} want {want:?}"
                            );
                        }
                    }
                }
            }
        }
    }
    eprintln!("largest host-vs-integer blend difference: {worst} LSB");
}

#[test]
fn mipped_textures_with_the_gx_sampler() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    // Every level the same colour: any filtering and mip choice gives it exactly.
    let colour = [12, 34, 56, 78];
    let data = TextureData {
        width: 16,
        height: 8,
        levels: (0..5)
            .map(|l| colour.repeat(((16 >> l).max(1) * (8 >> l).max(1)) as usize))
            .collect(),
    };
    let texture = GpuTexture::upload(&ctx.device, &ctx.queue, &data, "mipped").expect("upload");
    assert_eq!(texture.mip_count, 5);
    let quad = QuadRenderer::new(&ctx, &QuadGeometry::default(), &DrawUniforms::default());
    let bound = vec![Some(BoundTexture {
        texture,
        sampler: SamplerMode::Gx {
            wrap: Wrap::Repeat,
            mip_count: 5,
        },
    })];
    let m = textured([255, 255, 255, 255]);
    let gm = GpuMaterial::new(
        &ctx,
        &m,
        &TevOptions::default(),
        quad.draw_uniforms.as_entire_buffer_binding(),
        &bound,
    );
    let p = ctx
        .pipelines
        .get_blocking(&keys(&gm, RenderState::EXACT_QUAD).0)
        .expect("pipeline");
    let target = OffscreenTarget::new(&ctx, 32, 32).expect("target");
    let mut encoder = ctx.device.create_command_encoder(&Default::default());
    {
        let mut pass = target.begin_pass(&mut encoder, Some(wgpu::Color::TRANSPARENT));
        quad.draw(&mut pass, &gm, &p);
    }
    ctx.queue.submit([encoder.finish()]);
    let img = target.read_rgba(&ctx).expect("readback");
    // colour × K0 (255) = colour; alpha = TEXA.
    assert!(
        img.pixels.chunks(4).all(|px| px == colour),
        "{:?}",
        img.pixel(0, 0)
    );
}

/// The first-frame wait: keys are built in parallel until the deadline; past it, the rest
/// is left to the background worker (pending, then ready).
#[test]
fn get_all_until_builds_until_the_deadline_and_queues_the_rest() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let cache = tevscope::render::PipelineCache::new(
        ctx.device.clone(),
        ctx.layouts.clone(),
        ctx.shaders.clone(),
    );
    let scene = Scene::new(&ctx);
    let gm = scene.material(&ctx, &textured([9, 10, 11, 12]));
    let key = |cull| {
        let mut state = RenderState::EXACT_QUAD;
        state.cull = cull;
        keys(&gm, state).0
    };
    let all = [key(None), key(Some(wgpu::Face::Front))];
    // A deadline already passed: nothing is built here, everything is queued.
    let past = std::time::Instant::now() - std::time::Duration::from_secs(1);
    assert!(!cache.get_all_until(&all, past));
    cache.wait_idle();
    assert!(
        all.iter()
            .all(|k| matches!(cache.request(k), PipelineStatus::Ready(_)))
    );
    // A far deadline builds every key before returning.
    let more = [key(Some(wgpu::Face::Back))];
    let far = std::time::Instant::now() + std::time::Duration::from_secs(600);
    assert!(cache.get_all_until(&more, far));
    assert!(matches!(cache.request(&more[0]), PipelineStatus::Ready(_)));
}
