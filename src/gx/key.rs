//! The structural shader key: everything that changes generated code, nothing else.
//!
//! Two materials with equal [`ShaderKey`]s share one compiled shader; values (konsts,
//! registers, alpha-test references, channel colours, matrices) live in uniforms, so a
//! value edit never recompiles. The fragment half is normalised: selectors and swaps a
//! stage never reads are dropped, so editing them does not change the key either.

use serde::Serialize;

use super::sampler::MapSampling;
use super::tev::{
    AlphaSubRounding, FinalRegister, IDENTITY_SWAP, MAX_STAGES, MAX_TEXTURE_MAPS, MissingTexture,
    StageOrigin, StageReads, SwapTable, TevProgram, stage_texcoord, stage_texture_map,
};
use super::types::{
    AlphaInput, AlphaOp, AlphaTest, Blend, BlendMode, ColorInput, CombineKind, Compare, KonstSel,
    Material, TevReg,
};
use super::wgsl::vertex::VertexKey;

/// Key of one specialized shader: the vertex stage's key plus the TEV's.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct ShaderKey {
    pub vertex: VertexKey,
    pub fragment: FragmentKey,
}

impl ShaderKey {
    /// The key for drawing `material` with `program` (built from that material).
    pub fn new(material: &Material, program: &TevProgram) -> Self {
        Self {
            vertex: vertex_key(material, program),
            fragment: FragmentKey::from_program(program),
        }
    }

    /// A short stable hash for labels and logs (FNV-1a over the key's debug form).
    pub fn short_hash(&self) -> u64 {
        fnv1a(format!("{self:?}").as_bytes())
    }
}

/// Key of the ubershader: only the vertex side and how many texture coordinates reach
/// the fragment stage change its code.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct UberKey {
    pub vertex: VertexKey,
    pub texcoord_count: u8,
}

impl UberKey {
    pub fn new(material: &Material, program: &TevProgram) -> Self {
        Self {
            vertex: vertex_key(material, program),
            texcoord_count: program.texcoord_count as u8,
        }
    }

    pub fn short_hash(&self) -> u64 {
        fnv1a(format!("{self:?}").as_bytes())
    }
}

/// The vertex key of `material`, rasterising in its bake UV layout when `program` bakes.
fn vertex_key(material: &Material, program: &TevProgram) -> VertexKey {
    VertexKey {
        bake_uv: program
            .options
            .bake
            .then(|| super::bake::base_color_uv(material)),
        ..VertexKey::for_material(material)
    }
}

pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The TEV half of a shader key.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct FragmentKey {
    /// Texture coordinates the vertex stage outputs (`VertexOut.tc0…`).
    pub texcoord_count: u8,
    pub stages: Vec<StageKey>,
    pub final_register: FinalRegister,
    pub alpha_sub: AlphaSubRounding,
    pub missing_texture: MissingTexture,
    pub alpha_one_as_zero: bool,
    /// None when the test passes whatever the references are.
    pub alpha_test: Option<AlphaTestKey>,
    /// The blend the shader does itself against a copy of the destination (exact GX
    /// integer blending, [`crate::gx::tev::TevOptions::exact_blend`]); None: the renderer
    /// blends with fixed-function blending, or the material does not blend.
    pub shader_blend: Option<Blend>,
    /// A debug view drawn instead of the pixel ([`crate::gx::wgsl::debug`]); None: the
    /// TEV's output.
    pub debug: Option<crate::gx::wgsl::debug::DebugView>,
    /// A stage view: the (already cut) program's last stage's registers, clamped, are the
    /// pixel ([`crate::gx::wgsl::stage_view`]).
    pub stage_view: bool,
    /// How each sampled map filters (others stay `Dynamic`); set from the bound textures
    /// by [`FragmentKey::with_sampling`], `Dynamic` for a key built from a program alone.
    pub sampling: [MapSampling; MAX_TEXTURE_MAPS],
}

/// One stage's structure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct StageKey {
    /// Material or engine stage (shown in the generated comment header).
    pub origin: StageOrigin,
    pub color_in: [ColorInput; 4],
    pub alpha_in: [AlphaInput; 4],
    pub color_op: OpKey,
    pub alpha_op: OpKey,
    /// Colour konst selector, when KONST is a colour input.
    pub kcsel: Option<KonstSel>,
    /// Alpha konst selector, when KONST is an alpha input.
    pub kasel: Option<KonstSel>,
    /// The raster colour read, when the stage reads one and it is not zero.
    pub raster: Option<RasterKey>,
    /// The texture sampled, when the stage reads TEXC/TEXA and has a map; a stage that
    /// reads a texture without one reads [`FragmentKey::missing_texture`].
    pub texture: Option<TextureKey>,
}

/// A combiner's decoded operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct OpKey {
    pub kind: CombineKind,
    pub clamp: bool,
    pub dest: TevReg,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct RasterKey {
    /// Lit channel 0 or 1.
    pub channel: u8,
    pub swap: SwapTable,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct TextureKey {
    /// GX texture map 0–7 (group 1, binding 2·map).
    pub map: u8,
    /// Texture coordinate; None samples at (0, 0).
    pub coord: Option<u8>,
    pub swap: SwapTable,
}

/// The alpha test's structure; the references are uniforms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct AlphaTestKey {
    pub comp0: Compare,
    pub op: AlphaOp,
    pub comp1: Compare,
}

impl AlphaTestKey {
    /// None when `test` passes for every alpha and every pair of references, i.e. the
    /// comparisons and the op alone make it always true.
    pub fn of(test: &AlphaTest) -> Option<Self> {
        let outcomes = |c: Compare| match c {
            Compare::Always => &[true][..],
            Compare::Never => &[false][..],
            _ => &[false, true][..],
        };
        let always = outcomes(test.comp0).iter().all(|&a| {
            outcomes(test.comp1).iter().all(|&b| match test.op {
                AlphaOp::And => a && b,
                AlphaOp::Or => a || b,
                AlphaOp::Xor => a != b,
                AlphaOp::Xnor => a == b,
            })
        });
        (!always).then_some(Self {
            comp0: test.comp0,
            op: test.op,
            comp1: test.comp1,
        })
    }
}

impl OpKey {
    fn of(c: &super::types::TevCombine) -> Self {
        Self {
            kind: c.kind(),
            clamp: c.clamp,
            dest: c.out_reg,
        }
    }
}

impl FragmentKey {
    pub fn from_program(program: &TevProgram) -> Self {
        let stages = program
            .stages
            .iter()
            .take(MAX_STAGES)
            .map(|ps| {
                let st = &ps.stage;
                let reads = StageReads::of(st);
                let raster = st
                    .raster
                    .channel()
                    .filter(|_| reads.raster)
                    .map(|ch| RasterKey {
                        channel: ch as u8,
                        swap: program.swap_tables[(st.ras_swap & 3) as usize],
                    });
                let texture =
                    stage_texture_map(st)
                        .filter(|_| reads.texture)
                        .map(|map| TextureKey {
                            map,
                            coord: stage_texcoord(st, program.texcoord_count),
                            swap: program.swap_tables[(st.tex_swap & 3) as usize],
                        });
                StageKey {
                    origin: ps.origin,
                    color_in: st.color_in,
                    alpha_in: st.alpha_in,
                    color_op: OpKey::of(&st.color_op),
                    alpha_op: OpKey::of(&st.alpha_op),
                    kcsel: reads.konst_color.then_some(st.kcsel),
                    kasel: reads.konst_alpha.then_some(st.kasel),
                    raster,
                    texture,
                }
            })
            .collect();
        let blends = reads_destination(program.blend);
        let stage_view = program.options.stage_view.is_some();
        // A stage view wins over a debug view.
        let debug = (program.options.debug)
            .filter(|_| !stage_view)
            .and_then(|d| d.in_shader(blends));
        Self {
            texcoord_count: program.texcoord_count as u8,
            stages,
            final_register: program.options.final_register,
            alpha_sub: program.options.alpha_sub,
            missing_texture: program.options.missing_texture,
            alpha_one_as_zero: program.options.alpha_one_as_zero && !stage_view,
            alpha_test: AlphaTestKey::of(&program.alpha_test),
            // A debug view is written as is, never blended in the shader.
            shader_blend: (program.options.exact_blend && debug.is_none() && !stage_view && blends)
                .then_some(program.blend),
            debug,
            stage_view,
            sampling: [MapSampling::Dynamic; MAX_TEXTURE_MAPS],
        }
    }

    /// The key with the sampling of the maps it samples taken from `maps` (one per map,
    /// [`MapSampling::from_words`] of the bound textures); unsampled maps stay `Dynamic`
    /// so that materials differing only there share a shader.
    pub fn with_sampling(mut self, maps: &[MapSampling; MAX_TEXTURE_MAPS]) -> Self {
        self.sampling = [MapSampling::Dynamic; MAX_TEXTURE_MAPS];
        for map in self.texture_maps() {
            if let Some(s) = maps.get(map as usize) {
                self.sampling[map as usize] = *s;
            }
        }
        self
    }

    /// Whether the shader reads the destination (group 3, `t_dst`).
    pub fn reads_destination(&self) -> bool {
        self.shader_blend.is_some()
    }

    /// Registers the final pixel is read from (colour, alpha).
    pub fn final_registers(&self) -> (TevReg, TevReg) {
        let rule = match self.stage_view {
            true => FinalRegister::LastStage,
            false => self.final_register,
        };
        match (rule, self.stages.last()) {
            (FinalRegister::LastStage, Some(last)) => (last.color_op.dest, last.alpha_op.dest),
            _ => (TevReg::Prev, TevReg::Prev),
        }
    }

    /// The distinct (texture map, texcoord) pairs sampled, in first-use order.
    pub fn samples(&self) -> Vec<(u8, Option<u8>)> {
        let mut out: Vec<(u8, Option<u8>)> = Vec::new();
        for t in self.stages.iter().filter_map(|s| s.texture) {
            if !out.contains(&(t.map, t.coord)) {
                out.push((t.map, t.coord));
            }
        }
        out
    }

    /// Texture maps the shader binds.
    pub fn texture_maps(&self) -> Vec<u8> {
        let mut maps: Vec<u8> = self.samples().iter().map(|s| s.0).collect();
        maps.sort_unstable();
        maps.dedup();
        maps
    }
}

impl StageKey {
    /// Whether a swap table is the identity (no code emitted).
    pub fn is_identity(swap: &SwapTable) -> bool {
        *swap == IDENTITY_SWAP
    }
}

/// Whether a blend reads the framebuffer: SUBTRACT, or BLEND other than ONE/ZERO (LOGIC,
/// which Prime never uses, stays with the host).
pub fn reads_destination(blend: Blend) -> bool {
    match blend.mode {
        BlendMode::Subtract => true,
        BlendMode::Blend => blend != Blend::OPAQUE,
        BlendMode::None | BlendMode::Logic => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gx::tev::TevOptions;
    use crate::gx::types::*;

    fn material() -> Material {
        let st = TevStage::from_words(
            TevStage::color_inputs_word([
                ColorInput::Texc,
                ColorInput::Konst,
                ColorInput::Half,
                ColorInput::Zero,
            ]),
            0, // alpha: APREV everywhere
            0x100,
            0x100,
            0,
            0x0C,
            0xFF,
            0,
            0,
        )
        .expect("valid stage");
        Material {
            stages: vec![st],
            texgens: vec![TexGen::from_word(1998913).expect("texgen")],
            texture_count: 1,
            konst: [[1, 2, 3, 4]; 4],
            konst_count: 1,
            ..Material::default()
        }
    }

    fn key(m: &Material) -> ShaderKey {
        ShaderKey::new(m, &TevProgram::from_material(m, &TevOptions::default()))
    }

    #[test]
    fn values_do_not_change_the_key() {
        let m = material();
        let k = key(&m);
        let mut v = m.clone();
        v.konst[0] = [9, 9, 9, 9];
        v.registers[1] = [7, 7, 7, 7];
        v.blend.src = BlendFactor::SrcAlpha;
        assert_eq!(key(&v), k);
        // Unused selectors are normalised away.
        let mut v = m.clone();
        v.stages[0].raster = RasterChannel::Color1;
        assert_eq!(key(&v), k);
    }

    #[test]
    fn structure_changes_the_key() {
        let m = material();
        let k = key(&m);
        let mut v = m.clone();
        v.stages[0].kcsel = KonstSel(0x0D);
        assert_ne!(key(&v), k);
        let mut v = m.clone();
        v.stages[0].color_op.op = 1;
        assert_ne!(key(&v), k);
        let mut v = m.clone();
        v.alpha_test = AlphaTest::PUNCHTHROUGH;
        assert_ne!(key(&v), k);
        // The punchthrough reference is a value.
        let mut w = v.clone();
        w.alpha_test.ref0 = 100;
        assert_eq!(key(&w), key(&v));
    }

    #[test]
    fn alpha_test_structure() {
        assert_eq!(AlphaTestKey::of(&AlphaTest::ALWAYS), None);
        assert!(AlphaTestKey::of(&AlphaTest::PUNCHTHROUGH).is_some());
        let t = AlphaTest {
            comp0: Compare::Never,
            ref0: 0,
            op: AlphaOp::Xnor,
            comp1: Compare::Never,
            ref1: 0,
        };
        assert_eq!(AlphaTestKey::of(&t), None);
    }
}
