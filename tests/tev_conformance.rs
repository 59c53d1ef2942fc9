//! The TEV exactness cases (`conformance/tev_cases.json`): CPU reference (final pixel,
//! per-stage registers, formula texts) and the GPU on both shader paths, every pixel.

mod tev_common;

use tev_common::*;
use tevscope::gx::tev::{
    AlphaSubRounding, PixelInputs, TevOptions, TevProgram, describe_alpha, describe_color, evaluate,
};
use tevscope::gx::wgsl::vertex::DrawUniforms;
use tevscope::model::TextureData;
use tevscope::render::context::RenderContext;
use tevscope::render::quad::{QuadGeometry, ShaderPath};

fn inputs(case: &Case, program: &TevProgram) -> PixelInputs {
    PixelInputs::sampled(program, [[0; 4]; 2], |map, _| case.slot_rgba[map as usize])
}

#[test]
fn cpu_reference_matches_every_case() {
    let Some(cases) = load_cases() else { return };
    assert_eq!(cases.len(), 48);
    for case in &cases {
        let program = default_program(&case.material);
        // Every case ends writing PREV: no engine stage is appended.
        assert_eq!(
            program.stages.len(),
            case.trace.len(),
            "case {}",
            case.index
        );
        let t = evaluate(&program, &inputs(case, &program));
        for (s, want) in case.trace.iter().enumerate() {
            for (r, reg) in want.iter().enumerate() {
                for (c, v) in reg.iter().enumerate() {
                    if let Some(v) = v {
                        assert_eq!(
                            t.stages[s].registers[r][c], *v,
                            "case {} stage {s} register {r} component {c}",
                            case.index
                        );
                    }
                }
            }
        }
        assert_eq!(t.rgba, case.expected, "case {}", case.index);
        assert!(t.alpha_pass);

        let quirk = TevOptions {
            alpha_sub: AlphaSubRounding::SoftwareQuirk,
            ..TevOptions::default()
        };
        let p = TevProgram::from_material(&case.material, &quirk);
        let t = evaluate(&p, &inputs(case, &p));
        assert_eq!(
            t.rgba, case.expected_sw_quirk,
            "case {} (quirk)",
            case.index
        );
    }
}

#[test]
fn results_do_not_depend_on_initial_registers_or_raster() {
    let Some(cases) = load_cases() else { return };
    let mut seed = 0x1234_5678u32;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 17;
        seed ^= seed << 5;
        seed
    };
    for case in &cases {
        for _ in 0..8 {
            let mut m = case.material.clone();
            m.registers =
                std::array::from_fn(|_| std::array::from_fn(|_| (next() % 2048) as i16 - 1024));
            let p = default_program(&m);
            let raster = std::array::from_fn(|_| std::array::from_fn(|_| next() as u8));
            let t = evaluate(
                &p,
                &PixelInputs::sampled(&p, raster, |map, _| case.slot_rgba[map as usize]),
            );
            assert_eq!(t.rgba, case.expected, "case {}", case.index);
        }
    }
}

#[test]
fn formula_texts_match_the_fixture() {
    let Some(cases) = load_cases() else { return };
    for case in &cases {
        for (s, (stage, [color, alpha])) in case.material.stages.iter().zip(&case.texts).enumerate()
        {
            assert_eq!(
                &describe_color(stage),
                color,
                "case {} stage {s}",
                case.index
            );
            assert_eq!(
                &describe_alpha(stage),
                alpha,
                "case {} stage {s}",
                case.index
            );
        }
    }
}

#[test]
fn gpu_matches_every_case_on_both_paths() {
    let Some(cases) = load_cases() else { return };
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let tile = 8;
    let items: Vec<BatchItem> = cases
        .iter()
        .map(|c| BatchItem {
            material: c.material.clone(),
            program: default_program(&c.material),
            textures: c
                .slot_rgba
                .iter()
                .map(|&rgba| Some(TextureData::solid(4, 4, rgba)))
                .collect(),
        })
        .collect();
    for path in [ShaderPath::Specialized, ShaderPath::Uber] {
        let tiles = render_batch(
            &ctx,
            &items,
            tile,
            &QuadGeometry::default(),
            &DrawUniforms::default(),
            path,
        );
        for (case, img) in cases.iter().zip(&tiles) {
            assert_eq!(
                img.pixel(tile / 2, tile / 2),
                case.expected,
                "case {} centre pixel, {path:?}",
                case.index
            );
            for y in 0..tile {
                for x in 0..tile {
                    assert_eq!(
                        img.pixel(x, y),
                        case.expected,
                        "case {} pixel ({x}, {y}), {path:?}",
                        case.index
                    );
                }
            }
        }
    }
}

#[test]
fn render_material_quad_matches_a_case() {
    // The one-call API the CLI uses (own target, own pipeline), on both paths.
    let Some(cases) = load_cases() else { return };
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let case = &cases[cases.len() - 1];
    let textures: Vec<_> = case
        .slot_rgba
        .iter()
        .map(|&rgba| Some(TextureData::solid(4, 4, rgba)))
        .collect();
    for uber in [false, true] {
        let path = if uber {
            ShaderPath::Uber
        } else {
            ShaderPath::Specialized
        };
        let opts = tevscope::render::QuadOptions::new(5, 3, path);
        let img = tevscope::cli::tev::render_quad_with(&ctx, &case.material, &textures, &opts)
            .expect("render");
        assert_eq!((img.width, img.height), (5, 3));
        assert!(img.pixels.chunks(4).all(|p| p == case.expected), "{path:?}");
    }
}
