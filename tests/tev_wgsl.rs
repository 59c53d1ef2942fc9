//! Generated WGSL without a device: naga parse + validate for many materials on both
//! paths, and insta snapshots pinning the fragment stage of a few canonical materials
//! (the vertex stage belongs to the vertex generator and is snapshotted there).
//! Update snapshots with `INSTA_UPDATE=always cargo test --test tev_wgsl` or `cargo insta review`.

mod tev_common;

use tev_common::*;
use tevscope::gx::key::{FragmentKey, ShaderKey, UberKey};
use tevscope::gx::tev::{AlphaSubRounding, FinalRegister, MissingTexture, TevOptions, TevProgram};
use tevscope::gx::types::*;
use tevscope::gx::wgsl::{
    generate, generate_uber, tev::generate_fragment_stage, uber::generate_uber_fragment_stage,
    validate,
};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 32) as u32
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n
    }
}

fn random_material(rng: &mut Rng) -> (Material, TevOptions) {
    let count = 1 + rng.below(16) as usize;
    let stages = (0..count)
        .map(|_| {
            let ci = std::array::from_fn(|_| ColorInput::ALL[rng.below(16) as usize]);
            let ai = std::array::from_fn(|_| AlphaInput::ALL[rng.below(8) as usize]);
            let pick =
                |rng: &mut Rng, options: &[u8]| options[rng.below(options.len() as u32) as usize];
            let mut st = TevStage::from_words(
                TevStage::color_inputs_word(ci),
                TevStage::alpha_inputs_word(ai),
                rng.below(0x800),
                rng.below(0x800),
                rng.below(32) as u8,
                rng.below(32) as u8,
                pick(rng, &[0, 1, 2, 3, 4, 5, 6, 7, 8, 0xFF]),
                pick(rng, &[0, 1, 2, 3, 4, 5, 6, 7, 9, 0xFF]),
                pick(rng, &[0, 1, 2, 3, 4, 5, 6, 7, 0xFF]),
            )
            .expect("valid");
            st.tex_swap = rng.below(4) as u8;
            st.ras_swap = rng.below(4) as u8;
            st
        })
        .collect();
    let mut m = base_material(stages, 8, rng.below(9) as usize);
    if rng.below(3) == 0 {
        m.alpha_test = AlphaTest::PUNCHTHROUGH;
    }
    let options = TevOptions {
        final_register: if rng.below(2) == 0 {
            FinalRegister::LastStage
        } else {
            FinalRegister::Prev
        },
        alpha_sub: if rng.below(2) == 0 {
            AlphaSubRounding::Hardware
        } else {
            AlphaSubRounding::SoftwareQuirk
        },
        missing_texture: MissingTexture::White,
        reflection_pass_through: rng.below(2) == 0,
        alpha_one_as_zero: rng.below(4) == 0,
        ..TevOptions::default()
    };
    (m, options)
}

#[test]
fn a_thousand_random_materials_validate() {
    let mut rng = Rng(0xDEAD_BEEF_CAFE_F00D);
    for i in 0..1000 {
        let (m, options) = random_material(&mut rng);
        let p = TevProgram::from_material(&m, &options);
        let src = generate(&ShaderKey::new(&m, &p));
        if let Err(e) = validate(src) {
            panic!("material {i}: {e}\n{:?}", m.stages);
        }
    }
}

#[test]
fn the_ubershader_validates_for_every_texcoord_count() {
    for n in 0..=8 {
        let m = base_material(vec![], 0, n);
        let p = default_program(&m);
        let src = generate_uber(&UberKey::new(&m, &p));
        if let Err(e) = validate(src) {
            panic!("{n} texcoords: {e}");
        }
        // A program without stages outputs the initial PREV.
        validate(generate(&ShaderKey::new(&m, &p))).expect("zero stages");
    }
}

#[test]
fn conformance_materials_validate() {
    let Some(cases) = load_cases() else { return };
    for c in &cases {
        let p = default_program(&c.material);
        validate(generate(&ShaderKey::new(&c.material, &p)))
            .unwrap_or_else(|e| panic!("case {}: {e}", c.index));
    }
}

#[test]
fn equal_structures_share_a_shader() {
    let mut rng = Rng(42);
    let (m, options) = random_material(&mut rng);
    let mut v = m.clone();
    v.konst = [[9; 4]; 4];
    v.registers[2] = [-5, 6, 7, 8];
    v.alpha_test.ref0 = 200;
    let k = |m: &Material| ShaderKey::new(m, &TevProgram::from_material(m, &options));
    assert_eq!(generate(&k(&m)), generate(&k(&v)));
}

// ---- Snapshots ----

fn st(
    color: [ColorInput; 4],
    alpha: [AlphaInput; 4],
    color_word: u32,
    alpha_word: u32,
    (kcsel, kasel): (u8, u8),
    raster: u8,
    (map, coord): (u8, u8),
) -> TevStage {
    TevStage::from_words(
        TevStage::color_inputs_word(color),
        TevStage::alpha_inputs_word(alpha),
        color_word,
        alpha_word,
        kasel,
        kcsel,
        raster,
        map,
        coord,
    )
    .expect("valid")
}

fn fragment(m: &Material, options: &TevOptions) -> String {
    let p = TevProgram::from_material(m, options);
    let key = FragmentKey::from_program(&p);
    let mut s = String::new();
    generate_fragment_stage(&key, &mut s);
    s
}

use AlphaInput as A;
use ColorInput as C;

/// A world material as Prime draws it: lightmap × C1 (world light level), then diffuse.
fn lightmapped() -> Material {
    let stages = vec![
        st(
            [C::Zero, C::Texc, C::C1, C::Zero],
            [A::Zero, A::Zero, A::Zero, A::Konst],
            0x100,
            0x100,
            (0x0C, 0x00),
            0xFF,
            (0, 0),
        ),
        st(
            [C::Zero, C::Cprev, C::Texc, C::Zero],
            [A::Zero, A::Zero, A::Zero, A::Aprev],
            0x100,
            0x100,
            (0x0C, 0x00),
            0xFF,
            (1, 1),
        ),
    ];
    base_material(stages, 2, 2)
}

/// Alpha-tested, lit (raster colour), last stage writes C0 so the engine appends its
/// pass-through stage.
fn punchthrough_lit() -> Material {
    let stages = vec![
        st(
            [C::Zero, C::Rasc, C::Texc, C::Zero],
            [A::Zero, A::Rasa, A::Texa, A::Zero],
            0x100,
            0x100,
            (0x1D, 0x1C),
            4,
            (0, 0),
        ),
        st(
            [C::Cprev, C::Konst, C::Half, C::Zero],
            [A::Zero, A::Zero, A::Zero, A::Aprev],
            0x100 | 1 << 9,
            0x100,
            (0x14, 0x04),
            0xFF,
            (0xFF, 0xFF),
        ),
    ];
    let mut m = base_material(stages, 1, 1);
    m.alpha_test = AlphaTest::PUNCHTHROUGH;
    m.flags |= flags::PUNCHTHROUGH;
    m
}

/// Compare ops (colour GR16, alpha R8 reading the colour inputs, RGB8/A8), a non-identity
/// swap, unclamped results and a texture read without a map.
fn compares() -> Material {
    let mut s0 = st(
        [C::Texc, C::Konst, C::Aprev, C::C2],
        [A::Texa, A::Konst, A::A1, A::A2],
        0x00B | 2 << 9,
        0x008,
        (0x0E, 0x1B),
        0xFF,
        (2, 0),
    );
    s0.tex_swap = 1;
    let s1 = st(
        [C::C1, C::C2, C::Texc, C::Cprev],
        [A::A1, A::A2, A::Texa, A::Aprev],
        0x00E,
        0x00F,
        (0x00, 0x07),
        0xFF,
        (0xFF, 0xFF),
    );
    let s2 = st(
        [C::Zero, C::One, C::Half, C::C1],
        [A::Zero, A::Konst, A::Konst, A::Zero],
        0x0E1,
        0x0E1,
        (0x00, 0x04),
        0xFF,
        (0xFF, 0xFF),
    );
    base_material(vec![s0, s1, s2], 3, 1)
}

#[test]
fn snapshot_lightmapped() {
    insta::assert_snapshot!(fragment(&lightmapped(), &TevOptions::default()));
}

#[test]
fn snapshot_punchthrough_lit() {
    insta::assert_snapshot!(fragment(&punchthrough_lit(), &TevOptions::default()));
}

#[test]
fn snapshot_compares_with_alternatives() {
    let options = TevOptions {
        alpha_sub: AlphaSubRounding::SoftwareQuirk,
        alpha_one_as_zero: true,
        final_register: FinalRegister::Prev,
        missing_texture: MissingTexture::Black,
        ..TevOptions::default()
    };
    insta::assert_snapshot!(fragment(&compares(), &options));
}

#[test]
fn snapshot_ubershader_fragment() {
    let mut s = String::new();
    generate_uber_fragment_stage(2, &mut s);
    insta::assert_snapshot!(s);
}

#[test]
fn snapshot_materials_validate_in_full() {
    for m in [lightmapped(), punchthrough_lit(), compares()] {
        let p = default_program(&m);
        validate(generate(&ShaderKey::new(&m, &p))).expect("valid");
    }
}

/// Issue "GX pixel pipeline": every material of every conformance CMDL (the cube, the
/// 48-material TEV quad and PrimeWorldEditor's models) generates WGSL that naga accepts,
/// on both shader paths.
#[test]
fn every_conformance_cmdl_material_generates_valid_wgsl() {
    use tevscope::formats::cmdl::Cmdl;
    use tevscope::gx::key::{ShaderKey, UberKey};
    use tevscope::gx::tev::{TevOptions, TevProgram};
    use tevscope::gx::wgsl;

    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    let mut files = vec![
        dir.join("mp1_cube_skinned.CMDL"),
        dir.join("0x7EC00000.CMDL"),
    ];
    for entry in std::fs::read_dir(dir.join("pwe")).expect("pwe folder") {
        let p = entry.expect("entry").path();
        if p.extension().is_some_and(|e| e == "CMDL") {
            files.push(p);
        }
    }
    let mut validated = 0;
    for file in &files {
        let label = file.display().to_string();
        let bytes = std::fs::read(file).expect("read");
        let cmdl = Cmdl::parse(&bytes, &label).expect("parse");
        for (s, set) in cmdl.material_sets.iter().enumerate() {
            for (i, m) in set.materials.iter().enumerate() {
                let material = m
                    .to_gx()
                    .unwrap_or_else(|e| panic!("{label} set {s} material {i}: {e}"));
                let program = TevProgram::from_material(&material, &TevOptions::default());
                for (path, source) in [
                    (
                        "specialized",
                        wgsl::generate(&ShaderKey::new(&material, &program)),
                    ),
                    (
                        "uber",
                        wgsl::generate_uber(&UberKey::new(&material, &program)),
                    ),
                ] {
                    if let Err(e) = wgsl::validate(source) {
                        panic!("{label} set {s} material {i} ({path}): {e}");
                    }
                    validated += 1;
                }
            }
        }
    }
    // 2 sets × 3 cube materials, 48 TEV cases, and at least one per PWE model, × 2 paths.
    assert!(
        validated >= 2 * (6 + 48 + 5),
        "validated {validated} shaders"
    );
}

/// Exact blending in the shader: every pair of GX blend factors and SUBTRACT generate WGSL
/// that naga accepts; the additive-alpha case is pinned as a snapshot.
#[test]
fn shader_blending_validates_for_every_factor_pair() {
    let options = TevOptions {
        exact_blend: true,
        ..TevOptions::default()
    };
    let mut m = lightmapped();
    for src in BlendFactor::ALL {
        for dst in BlendFactor::ALL {
            m.blend = Blend {
                mode: BlendMode::Blend,
                src,
                dst,
            };
            let p = TevProgram::from_material(&m, &options);
            let key = ShaderKey::new(&m, &p);
            assert_eq!(p.blend, m.blend);
            assert_eq!(
                key.fragment.shader_blend.is_some(),
                m.blend != Blend::OPAQUE
            );
            validate(generate(&key)).expect("valid");
        }
    }
    m.blend.mode = BlendMode::Subtract;
    let p = TevProgram::from_material(&m, &options);
    validate(generate(&ShaderKey::new(&m, &p))).expect("valid");
    m.blend = Blend {
        mode: BlendMode::Blend,
        src: BlendFactor::SrcAlpha,
        dst: BlendFactor::One,
    };
    insta::assert_snapshot!(fragment(&m, &options));
}
