//! WGSL generation from a [`crate::gx::Material`]'s structure, and naga validation.
//!
//! - [`generate`]: the specialized shader of a [`ShaderKey`] (vertex stage from
//!   [`vertex::generate_vertex_stage`], then the TEV fragment stage of [`tev`]).
//! - [`generate_uber`]: the ubershader of an [`UberKey`] ([`uber`]).
//! - [`validate`]: naga parse + validate; every shader passes through it before wgpu sees
//!   it, so a generator bug is an error value, never a device error or a crash.

pub mod debug;
pub mod interface;
pub mod sampler;
pub mod stage_view;
pub mod tev;
pub mod uber;
pub mod vertex;

use super::key::{ShaderKey, UberKey};

/// Header comment naming the key, so a dumped shader says what produced it.
fn header(kind: &str, hash: u64) -> String {
    format!(
        "// tevscope generated shader ({kind}, key {hash:016x}).\n// Bind groups: see src/gx/wgsl/interface.rs.\n\n"
    )
}

/// The specialized shader for `key`.
pub fn generate(key: &ShaderKey) -> String {
    let mut out = header("specialized TEV", key.short_hash());
    let debug_normal = key.fragment.debug.is_some_and(|d| d.needs_normal());
    vertex::generate_vertex_stage_with(&key.vertex, debug_normal, &mut out);
    tev::generate_fragment_stage(&key.fragment, &mut out);
    out
}

/// The ubershader for `key`: the TEV program comes from the program buffer at run time.
pub fn generate_uber(key: &UberKey) -> String {
    let mut out = header("TEV ubershader", key.short_hash());
    vertex::generate_vertex_stage(&key.vertex, &mut out);
    uber::generate_uber_fragment_stage(key.texcoord_count, &mut out);
    out
}

/// A generated shader that naga accepted.
#[derive(Debug, Clone)]
pub struct ValidatedShader {
    pub source: String,
    pub module: naga::Module,
    pub info: naga::valid::ModuleInfo,
}

/// Why naga rejected a generated shader; keeps the source for display.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ShaderError {
    #[error("WGSL parse error:\n{message}")]
    Parse {
        message: String,
        source_text: String,
    },
    #[error("WGSL validation error:\n{message}")]
    Validation {
        message: String,
        source_text: String,
    },
}

impl ShaderError {
    /// The rejected WGSL.
    pub fn source_text(&self) -> &str {
        match self {
            Self::Parse { source_text, .. } | Self::Validation { source_text, .. } => source_text,
        }
    }
}

/// Parses and validates `source` with naga (all validation flags, default capabilities,
/// which is what wgpu's WebGPU-level devices accept).
pub fn validate(source: String) -> Result<ValidatedShader, ShaderError> {
    let module = match naga::front::wgsl::parse_str(&source) {
        Ok(m) => m,
        Err(e) => {
            return Err(ShaderError::Parse {
                message: e.emit_to_string(&source),
                source_text: source,
            });
        }
    };
    let mut validator = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    );
    match validator.validate(&module) {
        Ok(info) => Ok(ValidatedShader {
            source,
            module,
            info,
        }),
        Err(e) => Err(ShaderError::Validation {
            message: e.emit_to_string(&source),
            source_text: source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gx::tev::{TevOptions, TevProgram};
    use crate::gx::types::*;

    fn material(stages: Vec<TevStage>, texgens: usize) -> Material {
        Material {
            stages,
            texgens: vec![TexGen::from_word(1998913).expect("texgen"); texgens],
            texture_count: 2,
            konst: [[1, 2, 3, 4]; 4],
            konst_count: 4,
            alpha_test: AlphaTest::PUNCHTHROUGH,
            ..Material::default()
        }
    }

    #[test]
    fn a_textured_material_validates_on_both_paths() {
        let st = TevStage::from_words(
            TevStage::color_inputs_word([
                ColorInput::Texc,
                ColorInput::Rasc,
                ColorInput::Konst,
                ColorInput::C1,
            ]),
            TevStage::alpha_inputs_word([
                AlphaInput::Texa,
                AlphaInput::Rasa,
                AlphaInput::Konst,
                AlphaInput::A2,
            ]),
            0x3C1, // SUB, bias 3 -> compare … clamp
            0x10E,
            0x1C,
            0x12,
            4,
            1,
            0,
        )
        .expect("stage");
        let m = material(vec![st, st], 1);
        let p = TevProgram::from_material(&m, &TevOptions::default());
        let key = ShaderKey::new(&m, &p);
        let src = generate(&key);
        if let Err(e) = validate(src.clone()) {
            panic!("{e}\n{src}");
        }
        let uber = generate_uber(&UberKey::new(&m, &p));
        if let Err(e) = validate(uber.clone()) {
            panic!("{e}\n{uber}");
        }
    }

    /// A key that knows its maps' sampling calls one path with the filters as constants
    /// (the compiler then drops the others); the key built from the program alone keeps
    /// the per-pixel choice. Unsampled maps stay out of the key.
    #[test]
    fn keyed_sampling_calls_one_path() {
        use crate::gx::sampler::{GxSampler, MapSampling};
        use crate::gx::tev::MAX_TEXTURE_MAPS;
        let st = TevStage::from_words(
            TevStage::color_inputs_word([
                ColorInput::Zero,
                ColorInput::Zero,
                ColorInput::Zero,
                ColorInput::Texc,
            ]),
            TevStage::alpha_inputs_word([
                AlphaInput::Zero,
                AlphaInput::Zero,
                AlphaInput::Zero,
                AlphaInput::Texa,
            ]),
            0x100,
            0x100,
            0x0C,
            0xFF,
            0,
            0,
            0,
        )
        .expect("stage");
        let mut second = st;
        second.tex_map = Some(1);
        let m = material(vec![st, second], 1);
        let p = TevProgram::from_material(&m, &TevOptions::default());
        let plain = ShaderKey::new(&m, &p);
        assert!(generate(&plain).contains("= gx_sample(t_map0"));
        let words = GxSampler::prime(crate::gx::regs::TexWrap::Repeat, 4).uniform_words();
        let mut maps = [MapSampling::Host; MAX_TEXTURE_MAPS];
        maps[0] = MapSampling::from_words(words);
        let mut key = plain.clone();
        key.fragment = key.fragment.with_sampling(&maps);
        assert_eq!(key.fragment.sampling[2], MapSampling::Dynamic);
        let src = generate(&key);
        let bits = words[0] & 0x1E;
        assert!(
            src.contains(&format!(
                "= gx_sample_exact(t_map0, uv0, uv0_dx, uv0_dy, u_tev.samplers[0], {bits}u);"
            )),
            "{src}"
        );
        assert!(src.contains("= tev_u8_from_unorm(textureSampleGrad(t_map1, s_map1,"));
        assert!(!src.contains("= gx_sample("), "{src}");
        if let Err(e) = validate(src.clone()) {
            panic!("{e}\n{src}");
        }
    }

    #[test]
    fn invalid_source_is_an_error_not_a_panic() {
        let e = validate("fn broken( {".into()).expect_err("must fail");
        assert!(matches!(e, ShaderError::Parse { .. }));
        assert_eq!(e.source_text(), "fn broken( {");
        let e = validate("fn f() -> i32 { return 1.5; }".into()).expect_err("must fail");
        assert!(e.to_string().contains("error"), "{e}");
    }
}
