//! Property test: random valid TEV programs (all inputs, ops including compares and the
//! aliased op values, bias/scale/clamp, every destination, 1–16 stages, konsts, registers,
//! swap tables, textures with per-texel variation on up to 8 maps and 8 texcoords,
//! raster colours, alpha tests and the §16 switches) drawn on the GPU on both shader paths
//! and compared with the CPU reference for every pixel, exactly.
//!
//! `TEV_PROPTEST_BATCHES` (default 12) × 16–32 programs per run; one device, one target and
//! one readback per batch and path.

mod tev_common;

use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use tev_common::*;
use tevscope::gx::tev::{
    AlphaSubRounding, FinalRegister, MissingTexture, TevOptions, TevProgram, describe_alpha,
    describe_color,
};
use tevscope::gx::types::*;
use tevscope::gx::wgsl::vertex::DrawUniforms;
use tevscope::model::TextureData;
use tevscope::render::context::RenderContext;
use tevscope::render::quad::{QuadGeometry, ShaderPath};

const TILE: u32 = 16;
const BATCH: usize = 32;

#[derive(Debug, Clone)]
struct RandomProgram {
    stages: Vec<TevStage>,
    konst: [[u8; 4]; 4],
    registers: [[i16; 4]; 4],
    swap_tables: [[u8; 4]; 4],
    alpha_test: AlphaTest,
    options: TevOptions,
    /// Per map: None (unbound: placeholder) or (width divisor, height divisor, seed).
    textures: Vec<Option<(u32, u32, u64)>>,
}

/// 8-bit values biased toward the edges where wrapping, rounding and compares live.
fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![
        1 => Just(0u8),
        1 => Just(1u8),
        1 => Just(127u8),
        1 => Just(128u8),
        1 => Just(129u8),
        1 => Just(255u8),
        6 => any::<u8>(),
    ]
}

/// Signed 11-bit register values, biased likewise.
fn register() -> impl Strategy<Value = i16> {
    prop_oneof![
        1 => Just(-1024i16),
        1 => Just(1023i16),
        1 => Just(-1i16),
        1 => Just(256i16),
        3 => byte().prop_map(i16::from),
        3 => -1024i16..1024,
    ]
}

/// A combine word: mostly ADD/SUB with every bias and scale, the documented compares,
/// the aliased compare values 2–7 and bias 3 (compare) now and then.
fn combine_word() -> impl Strategy<Value = u32> {
    (
        prop_oneof![4 => 0u32..2, 3 => 8u32..16, 1 => 2u32..8],
        prop_oneof![4 => 0u32..3, 1 => Just(3u32)],
        0u32..4,
        any::<bool>(),
        0u32..4,
    )
        .prop_map(|(op, bias, scale, clamp, dest)| {
            op | bias << 4 | scale << 6 | (clamp as u32) << 8 | dest << 9
        })
}

/// Colour input numbers, weighted toward the texture so outputs vary per pixel.
fn color_input() -> impl Strategy<Value = u32> {
    prop_oneof![
        8 => 0u32..8, // registers
        4 => Just(8u32), // TEXC
        2 => Just(9u32), // TEXA
        1 => Just(10u32),
        1 => Just(11u32),
        1 => Just(12u32),
        1 => Just(13u32),
        2 => Just(14u32), // KONST
        1 => Just(15u32),
    ]
}

fn alpha_input() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => 0u32..4, // registers
        4 => Just(4u32), // TEXA
        1 => Just(5u32),
        2 => Just(6u32), // KONST
        1 => Just(7u32),
    ]
}

fn stage() -> impl Strategy<Value = TevStage> {
    (
        (
            prop::array::uniform4(color_input()),
            prop::array::uniform4(alpha_input()),
            combine_word(),
            combine_word(),
        ),
        (
            0u8..32,
            0u8..32,
            prop_oneof![4 => 0u8..=8, 1 => Just(0xFFu8)],
            prop_oneof![6 => 0u8..8, 1 => Just(0xFFu8), 1 => 8u8..12],
            prop_oneof![6 => 0u8..8, 1 => Just(0xFFu8)],
            0u8..4,
            0u8..4,
        ),
    )
        .prop_map(|((ci, ai, cw, aw), (kc, ka, ras, map, coord, ts, rs))| {
            let mut st = TevStage::from_words(
                TevStage::color_inputs_word(ci.map(|v| ColorInput::ALL[v as usize])),
                TevStage::alpha_inputs_word(ai.map(|v| AlphaInput::ALL[v as usize])),
                cw,
                aw,
                ka,
                kc,
                ras,
                map,
                coord,
            )
            .expect("valid by construction");
            st.tex_swap = ts;
            st.ras_swap = rs;
            st
        })
}

fn compare() -> impl Strategy<Value = Compare> {
    (0usize..8).prop_map(|v| {
        [
            Compare::Never,
            Compare::Less,
            Compare::Equal,
            Compare::LEqual,
            Compare::Greater,
            Compare::NEqual,
            Compare::GEqual,
            Compare::Always,
        ][v]
    })
}

fn program() -> impl Strategy<Value = RandomProgram> {
    (
        // Long random programs mostly saturate to a constant; keep most short.
        prop_oneof![
            5 => prop::collection::vec(stage(), 1..=3),
            3 => prop::collection::vec(stage(), 4..=8),
            2 => prop::collection::vec(stage(), 9..=16),
        ],
        prop::array::uniform4(prop::array::uniform4(byte())),
        prop::array::uniform4(prop::array::uniform4(register())),
        prop::array::uniform4(prop::array::uniform4(0u8..4)),
        (
            prop_oneof![
                3 => Just(None),
                1 => (compare(), byte(), 0usize..4, compare(), byte()).prop_map(Some)
            ],
            any::<[bool; 5]>(),
        ),
        prop::collection::vec(
            prop_oneof![1 => Just(None), 4 => (0u32..3, 0u32..3, any::<u64>()).prop_map(Some)],
            8,
        ),
    )
        .prop_map(
            |(stages, konst, registers, swap_tables, (test, switches), textures)| {
                let alpha_test = match test {
                    None => AlphaTest::ALWAYS,
                    Some((comp0, ref0, op, comp1, ref1)) => AlphaTest {
                        comp0,
                        ref0,
                        op: [AlphaOp::And, AlphaOp::Or, AlphaOp::Xor, AlphaOp::Xnor][op],
                        comp1,
                        ref1,
                    },
                };
                let options = TevOptions {
                    final_register: if switches[0] {
                        FinalRegister::Prev
                    } else {
                        FinalRegister::LastStage
                    },
                    alpha_sub: if switches[1] {
                        AlphaSubRounding::SoftwareQuirk
                    } else {
                        AlphaSubRounding::Hardware
                    },
                    missing_texture: if switches[2] {
                        MissingTexture::Black
                    } else {
                        MissingTexture::White
                    },
                    reflection_pass_through: switches[3],
                    alpha_one_as_zero: switches[4],
                    ..TevOptions::default()
                };
                RandomProgram {
                    stages,
                    konst,
                    registers,
                    swap_tables,
                    alpha_test,
                    options,
                    textures: textures
                        .into_iter()
                        .map(|t| t.map(|(w, h, seed)| (1 << w, 1 << h, seed)))
                        .collect(),
                }
            },
        )
}

fn texture(wdiv: u32, hdiv: u32, seed: u64) -> TextureData {
    let (w, h) = (TILE / wdiv, TILE / hdiv);
    let mut s = seed | 1;
    let bytes = (0..w * h * 4)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            // Bias toward the edges of the range, where wrapping and clamping live.
            match (s >> 32) % 8 {
                0 => 0,
                1 => 255,
                2 => 128,
                3 => 1,
                _ => (s >> 40) as u8,
            }
        })
        .collect();
    TextureData {
        width: w,
        height: h,
        levels: vec![bytes],
    }
}

fn vertex_side() -> Material {
    base_material(vec![], 8, 8)
}

fn item(p: &RandomProgram) -> BatchItem {
    let material = Material {
        stages: p.stages.clone(),
        konst: p.konst,
        registers: p.registers,
        alpha_test: p.alpha_test,
        ..vertex_side()
    };
    let mut program = TevProgram::from_material(&material, &p.options);
    program.swap_tables = p.swap_tables;
    BatchItem {
        material,
        program,
        textures: p
            .textures
            .iter()
            .map(|t| t.map(|(w, h, seed)| texture(w, h, seed)))
            .collect(),
    }
}

fn describe(p: &TevProgram) -> String {
    let mut s = format!(
        "options {:?}\nalpha test {:?}\nswap tables {:?}\nkonst {:?}\nregisters {:?}\n",
        p.options, p.alpha_test, p.swap_tables, p.konst, p.registers
    );
    for (i, st) in p.stages.iter().enumerate() {
        s += &format!(
            "stage {i} {:?}: {} | {}\n    {:?}\n",
            st.origin,
            describe_color(&st.stage),
            describe_alpha(&st.stage),
            st.stage
        );
    }
    s
}

#[test]
fn gpu_matches_cpu_reference_for_random_programs() {
    // Deep strategy trees while shrinking and naga's recursive parser want more than the
    // test thread's default stack.
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(run_property)
        .expect("spawn")
        .join()
        .unwrap_or_else(|e| std::panic::resume_unwind(e));
}

fn run_property() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let batches = std::env::var("TEV_PROPTEST_BATCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(12);
    let mut runner = TestRunner::new(Config {
        cases: batches,
        failure_persistence: None,
        max_shrink_iters: 64,
        ..Config::default()
    });
    let strategy = (
        prop::collection::vec(program(), BATCH / 2..=BATCH),
        // One colour pair for all four corners: interpolating a constant is exact, whereas
        // varying corners put raster values on x.5 boundaries where two separately compiled
        // pipelines may round differently (gx.md §6.1 allows ±1 there on hardware too).
        prop::array::uniform2(prop::array::uniform4(any::<u8>())),
        prop::array::uniform2(prop::array::uniform4(0u8..=255)),
    );
    let result = runner.run(&strategy, |(programs, corner_colors, channel_material)| {
        let geometry = QuadGeometry {
            colors: [corner_colors; 4],
            varied_uvs: true,
        };
        let draw = DrawUniforms {
            channel_material: channel_material.map(|c| c.map(f32::from)),
            ..DrawUniforms::default()
        };
        let vs = vertex_side();
        let mut items = vec![
            BatchItem {
                program: default_program(&raster_probe(&vs, 0)),
                material: raster_probe(&vs, 0),
                textures: vec![],
            },
            BatchItem {
                program: default_program(&raster_probe(&vs, 1)),
                material: raster_probe(&vs, 1),
                textures: vec![],
            },
        ];
        items.extend(programs.iter().map(item));
        for path in [ShaderPath::Uber, ShaderPath::Specialized] {
            let tiles = render_batch(&ctx, &items, TILE, &geometry, &draw, path);
            let (ras0, ras1) = (&tiles[0], &tiles[1]);
            for (i, (it, got)) in items.iter().zip(&tiles).enumerate().skip(2) {
                let want = reference_tile(it, TILE, ras0, ras1, true);
                if let Some(diff) = first_difference(got, &want) {
                    return Err(TestCaseError::fail(format!(
                        "{path:?}, program {}: {diff}\n{}",
                        i - 2,
                        describe(&it.program)
                    )));
                }
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
