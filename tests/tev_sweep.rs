//! Combiner sweep: every combine word (op 0–15 × bias 0–3 × scale 0–3 × clamp), in the
//! colour and the alpha combiner at once, with 256 different input combinations per word
//! (one per pixel), on both shader paths, against the CPU reference; plus alpha SUB with
//! the software-renderer quirk. Inputs reach the combiner through registers so a, b and c
//! wrap (values outside 0…255) and d spans the saturated signed range.

mod tev_common;

use tev_common::*;
use tevscope::gx::tev::{AlphaSubRounding, TevOptions, TevProgram};
use tevscope::gx::types::*;
use tevscope::gx::wgsl::vertex::DrawUniforms;
use tevscope::model::TextureData;
use tevscope::render::context::RenderContext;
use tevscope::render::quad::{QuadGeometry, ShaderPath};

const TILE: u32 = 16;

fn texture(seed: u64) -> TextureData {
    let mut s = seed | 1;
    let bytes = (0..TILE * TILE * 4)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            match (s >> 32) % 10 {
                0 => 0,
                1 => 255,
                2 => 128,
                3 => 127,
                4 => 129,
                _ => (s >> 40) as u8,
            }
        })
        .collect();
    TextureData {
        width: TILE,
        height: TILE,
        levels: vec![bytes],
    }
}

fn stage(
    color: [ColorInput; 4],
    alpha: [AlphaInput; 4],
    color_word: u32,
    alpha_word: u32,
    map: u8,
) -> TevStage {
    TevStage::from_words(
        TevStage::color_inputs_word(color),
        TevStage::alpha_inputs_word(alpha),
        color_word,
        alpha_word,
        0, // kasel 1 (255)
        0, // kcsel 1 (255)
        0xFF,
        map,
        0,
    )
    .expect("valid stage")
}

/// Register loads, then the stage under test with combine word `word` to PREV.
fn sweep_material(word: u32) -> Material {
    use AlphaInput as A;
    use ColorInput as C;
    let z = [C::Zero, C::Zero, C::Zero];
    let za = [A::Zero, A::Zero, A::Zero];
    let stages = vec![
        // C1 = t0 + 128, A1 = ta0 + 128 (bias +½, no clamp: 128…383, wraps as an input).
        stage(
            [z[0], z[1], z[2], C::Texc],
            [za[0], za[1], za[2], A::Texa],
            0x010 | 2 << 9,
            0x010 | 2 << 9,
            0,
        ),
        // C2 = t1 − 128, A2 = ta1 − 128 (−128…127).
        stage(
            [z[0], z[1], z[2], C::Texc],
            [za[0], za[1], za[2], A::Texa],
            0x020 | 3 << 9,
            0x020 | 3 << 9,
            1,
        ),
        // C0 = 4(t3 − 128) + 4·ta3, A0 = 4(ta3 − 128) + 4·ta3: −512…1528, saturating.
        stage(
            [C::Zero, C::Texa, C::One, C::Texc],
            [A::Zero, A::Texa, A::Konst, A::Texa],
            0x0A0 | 1 << 9,
            0x0A0 | 1 << 9,
            3,
        ),
        // Under test: a = C1, b = C2, c = texel of map 2, d = C0.
        stage(
            [C::C1, C::C2, C::Texc, C::C0],
            [A::A1, A::A2, A::Texa, A::A0],
            word,
            word,
            2,
        ),
    ];
    base_material(stages, 4, 1)
}

#[test]
fn every_combine_word_matches_the_reference_on_both_paths() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let textures: Vec<Option<TextureData>> = (0..4)
        .map(|i| Some(texture(0x9E37_79B9 * (i + 1))))
        .collect();
    let mut items = Vec::new();
    for clamp in [0u32, 1] {
        for scale in 0..4u32 {
            for bias in 0..4u32 {
                for op in 0..16u32 {
                    let word = op | bias << 4 | scale << 6 | clamp << 8;
                    let m = sweep_material(word);
                    items.push(BatchItem {
                        program: default_program(&m),
                        material: m,
                        textures: textures.clone(),
                    });
                    if op == 1 && bias < 3 {
                        let quirk = TevOptions {
                            alpha_sub: AlphaSubRounding::SoftwareQuirk,
                            ..TevOptions::default()
                        };
                        let m = sweep_material(word);
                        items.push(BatchItem {
                            program: TevProgram::from_material(&m, &quirk),
                            material: m,
                            textures: textures.clone(),
                        });
                    }
                }
            }
        }
    }
    assert_eq!(items.len(), 512 + 24);
    for path in [ShaderPath::Specialized, ShaderPath::Uber] {
        let tiles = render_batch(
            &ctx,
            &items,
            TILE,
            &QuadGeometry::default(),
            &DrawUniforms::default(),
            path,
        );
        let mut varied = 0;
        for (it, got) in items.iter().zip(&tiles) {
            // Raster colours are not read: any image serves as the raster input.
            let want = reference_tile(it, TILE, got, got, false);
            if let Some(diff) = first_difference(got, &want) {
                let st = &it.program.stages[3].stage;
                panic!(
                    "{path:?}, word {:#05x} ({:?}), {:?}: {diff}",
                    st.color_op.to_word(),
                    st.color_op.kind(),
                    it.program.options.alpha_sub
                );
            }
            let mut px: Vec<&[u8]> = want.pixels.chunks(4).collect();
            px.sort();
            px.dedup();
            varied += (px.len() > 16) as usize;
        }
        // The sweep must exercise many input combinations, not a constant per word.
        assert!(varied > items.len() * 3 / 4, "only {varied} varied tiles");
    }
}
