//! WGSL generation + naga validation per material, and pipeline creation on the
//! (software, when present) adapter.
//!
//! `cargo bench --bench wgsl`; pipeline benches skip when no adapter exists.

use criterion::{Criterion, criterion_group, criterion_main};
use tevscope::gx::key::{ShaderKey, UberKey};
use tevscope::gx::tev::{TevOptions, TevProgram};
use tevscope::gx::types::*;
use tevscope::gx::wgsl::{generate, generate_uber, validate};
use tevscope::render::context::RenderContext;
use tevscope::render::convert::RenderState;
use tevscope::render::pipeline_cache::{PipelineKey, build_pipeline};
use tevscope::render::shader_cache::{ShaderCache, ShaderId};
use tevscope::render::target::{COLOR_FORMAT, DEPTH_FORMAT};

/// A deterministic material with `stages` stages using every kind of input.
fn material(stages: usize) -> Material {
    let mut s = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |n: u32| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        ((s >> 32) as u32) % n
    };
    let stages = (0..stages)
        .map(|_| {
            TevStage::from_words(
                TevStage::color_inputs_word(std::array::from_fn(|_| {
                    ColorInput::ALL[next(16) as usize]
                })),
                TevStage::alpha_inputs_word(std::array::from_fn(|_| {
                    AlphaInput::ALL[next(8) as usize]
                })),
                next(0x800),
                next(0x800),
                next(32) as u8,
                next(32) as u8,
                next(6) as u8,
                next(4) as u8,
                next(2) as u8,
            )
            .expect("valid")
        })
        .collect();
    let texgen = TexGen {
        kind: TexGenType::Mtx2x4,
        source: TexGenSrc::Tex(0),
        gx_tex_mtx: GX_IDENTITY,
        normalize: false,
        gx_post_mtx: GX_PTIDENTITY,
    };
    Material {
        stages,
        texgens: vec![texgen; 2],
        texture_count: 4,
        konst: [[10, 20, 30, 40]; 4],
        konst_count: 4,
        alpha_test: AlphaTest::PUNCHTHROUGH,
        ..Material::default()
    }
}

fn keys(stages: usize) -> (Material, ShaderKey, UberKey) {
    let m = material(stages);
    let p = TevProgram::from_material(&m, &TevOptions::default());
    let k = ShaderKey::new(&m, &p);
    let u = UberKey::new(&m, &p);
    (m, k, u)
}

fn wgsl(c: &mut Criterion) {
    let mut g = c.benchmark_group("wgsl");
    for n in [1usize, 4, 16] {
        let (_, key, _) = keys(n);
        g.bench_function(format!("generate/{n}_stages"), |b| {
            b.iter(|| generate(&key))
        });
        g.bench_function(format!("generate+validate/{n}_stages"), |b| {
            b.iter(|| validate(generate(&key)).expect("valid"))
        });
    }
    let (_, _, uber) = keys(1);
    g.bench_function("generate+validate/uber", |b| {
        b.iter(|| validate(generate_uber(&uber)).expect("valid"))
    });
    g.finish();
}

fn pipelines(c: &mut Criterion) {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let mut g = c.benchmark_group(format!("pipeline ({})", ctx.adapter_info.name));
    g.sample_size(20);
    let (_, k4, uber) = keys(4);
    let (_, k16, _) = keys(16);
    let cases = [
        ("4_stages", ShaderId::Specialized(k4)),
        ("16_stages", ShaderId::Specialized(k16)),
        ("uber", ShaderId::Uber(uber)),
    ];
    for (name, shader) in cases {
        let key = PipelineKey {
            shader,
            state: RenderState::EXACT_QUAD,
            color_format: COLOR_FORMAT,
            depth_format: Some(DEPTH_FORMAT),
        };
        // A fresh shader cache per iteration: generation, naga, module and pipeline.
        g.bench_function(format!("create/{name}"), |b| {
            b.iter(|| {
                let shaders = ShaderCache::new(ctx.device.clone());
                build_pipeline(&ctx.device, &ctx.layouts, &shaders, None, &key).expect("pipeline")
            })
        });
    }
    g.finish();
}

criterion_group!(benches, wgsl, pipelines);
criterion_main!(benches);
