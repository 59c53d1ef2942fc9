//! The PASS → TEV synthesis of MP3 materials (`formats.md` §13.3).
//!
//! MP3 files store no TEV program: the game builds one from the material's passes, colours,
//! integers and flags. [`synthesize`] is that construction as a pure function, producing
//! the same [`Material`] MP1/MP2 materials become, so the WGSL generator, the ubershader,
//! the CPU reference and the exporters take it like any other. It follows the spec's
//! Defaults; [`SynthesisOptions`] switches to its Alts.

use serde::Serialize;

use super::types::{
    AlphaInput, AlphaOp, AlphaTest, Blend, BlendFactor, BlendMode, ChannelAlpha, ChannelControl,
    ColorInput, Compare, GX_IDENTITY, GX_PTIDENTITY, KonstSel, Material, RasterChannel, TevCombine,
    TevReg, TevStage, TexGen, TexGenSrc, TexGenType, UvAnimation,
};

/// A pass type (§13.2 table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum PassType {
    Diff,
    Riml,
    Blol,
    Blod,
    Clr,
    Tran,
    Inca,
    Rflv,
    Rfld,
    Lrld,
    Lurd,
    Bloi,
    Xray,
    Toon,
}

impl PassType {
    pub const ALL: [PassType; 14] = [
        Self::Diff,
        Self::Riml,
        Self::Blol,
        Self::Blod,
        Self::Clr,
        Self::Tran,
        Self::Inca,
        Self::Rflv,
        Self::Rfld,
        Self::Lrld,
        Self::Lurd,
        Self::Bloi,
        Self::Xray,
        Self::Toon,
    ];

    /// The FourCC files store (`CLR ` with its space).
    pub fn fourcc(self) -> &'static str {
        [
            "DIFF", "RIML", "BLOL", "BLOD", "CLR ", "TRAN", "INCA", "RFLV", "RFLD", "LRLD", "LURD",
            "BLOI", "XRAY", "TOON",
        ][self as usize]
    }

    pub fn from_fourcc(f: [u8; 4]) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.fourcc().as_bytes() == f)
    }
}

/// Where a pass's texture coordinates come from (the UV animation's source word).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum UvSource {
    Position,
    Normal,
    /// Vertex attribute TEXn.
    Uv(u8),
}

/// One pass as the synthesis reads it (present, with a texture).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassInput {
    pub kind: PassType,
    /// Bits 0–1 alpha channel, 0x4 bloom alpha, 0x8 INCA colour mod, 0x10 invert.
    pub flags: u32,
    pub source: UvSource,
    pub animation: Option<UvAnimation>,
}

impl PassInput {
    /// The channel read as the texture's alpha (0 R, 1 G, 2 B, 3 A).
    pub fn alpha_channel(&self) -> u8 {
        (self.flags & 3) as u8
    }
}

/// Everything one material contributes (§13.3 "Inputs"; absent elements at their defaults).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SynthesisInputs {
    pub flags: u32,
    /// At most one per type.
    pub passes: Vec<PassInput>,
    pub clr: [u8; 4],
    pub difb: [u8; 4],
    pub opac: u8,
    pub blod: u8,
    pub bloi: u8,
    pub bnif: u8,
}

/// The spec's Alts (all off = its Defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct SynthesisOptions {
    /// D8 Alt: R2 without a CLR pass scales ×1 when no lighting stage was emitted.
    pub unlit_konst_color_x1: bool,
    /// D9 Alt ([noclip]): the swap channel is forced to R for TRAN and G for BLOL.
    pub forced_swap_channels: bool,
    /// D3 Alt ([PWE] literal): MaterialAlphaCompare's R2 writes RASA/APREV, not TEXA(CLR).
    pub alpha_compare_literal: bool,
    /// D5 Alt ([PWE]): FullRenderOpaque with DIFF and CLR passes becomes
    /// OptimizedDiffuseLightingColorOpaque (RFLD, INCA and the bloom passes dropped).
    pub optimized_opaque: bool,
}

/// Step 1's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Configuration {
    FullRenderOpaque,
    /// Only with the D5 Alt.
    OptimizedDiffuseLightingColorOpaque,
    NoBloomTransparent,
    NoBloomAdditiveIncandescence,
    MaterialAlphaCompare,
    AdditiveIncandescenceOnly,
    SolidWhite,
    SolidKColorKAlpha,
}

/// Which recipe emitted a stage and which pass it samples (for reports and the inspector).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct StageSource {
    pub recipe: &'static str,
    pub pass: Option<PassType>,
}

/// The synthesis result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mp3Program {
    pub configuration: Configuration,
    /// The GX program of the (first) draw.
    pub material: Material,
    /// Per stage of `material`.
    pub stage_sources: Vec<StageSource>,
    /// Texture map k samples this pass (texture coordinate k is its texgen).
    pub texture_passes: Vec<PassType>,
    /// Whether the lighting stage R1 was emitted.
    pub lit: bool,
    /// NoBloomAdditiveIncandescence's second draw (additive INCA), with its stage sources.
    pub second_draw: Option<(Material, Vec<StageSource>)>,
    pub warnings: Vec<String>,
}

/// Material flag bits (§13.2).
mod f {
    pub const FORCE_LIGHTING: u32 = 0x4;
    pub const PRE_INCA_TRANSPARENCY: u32 = 0x8;
    pub const MASKED: u32 = 0x10;
    pub const ADDITIVE_INCANDESCENCE: u32 = 0x20;
    pub const REFLECTION_ALPHA_TARGET: u32 = 0x400;
    pub const SOLID_WHITE: u32 = 0x200;
    pub const SOLID_COLOR: u32 = 0x800;
    pub const OCCLUDER: u32 = 0x100;
}

/// Konst selector for a fixed eighth: E(v) = (⌊v/32⌋ + 1)/8 (`gx.md` §4).
pub fn eighths(v: u8) -> KonstSel {
    KonstSel(7 - v / 32)
}
/// Konst selector 1 (8/8).
const KONST_ONE: KonstSel = KonstSel(0);
/// kcsel of Kn's rgb.
fn k_rgb(n: usize) -> KonstSel {
    KonstSel(0x0C + n as u8)
}
/// kasel of Kn's alpha.
fn k_alpha(n: usize) -> KonstSel {
    KonstSel(0x1C + n as u8)
}

use AlphaInput as A;
use ColorInput as C;

/// Colour halves in the canonical slot order of the fixtures.
fn c_pass() -> [C; 4] {
    [C::Zero, C::Zero, C::Zero, C::Cprev]
}
fn c_one(x: C) -> [C; 4] {
    [C::Zero, C::Zero, C::Zero, x]
}
fn c_mul(x: C, y: C) -> [C; 4] {
    [C::Zero, x, y, C::Zero]
}
fn c_mad(x: C, y: C, z: C) -> [C; 4] {
    [C::Zero, y, z, x]
}
fn a_pass() -> [A; 4] {
    [A::Zero, A::Zero, A::Zero, A::Aprev]
}
fn a_one(x: A) -> [A; 4] {
    [A::Zero, A::Zero, A::Zero, x]
}
fn a_mul(x: A, y: A) -> [A; 4] {
    [A::Zero, x, y, A::Zero]
}
fn a_mad(x: A, y: A, z: A) -> [A; 4] {
    [A::Zero, y, z, x]
}
fn a_sum(x: A, y: A) -> [A; 4] {
    [y, A::Zero, A::Zero, x]
}

struct Builder<'a> {
    inputs: &'a SynthesisInputs,
    options: SynthesisOptions,
    stages: Vec<TevStage>,
    sources: Vec<StageSource>,
    konst: [[u8; 4]; 4],
    konst_count: usize,
    textures: Vec<PassType>,
    texgens: Vec<TexGen>,
    uv_animations: Vec<UvAnimation>,
    lit: bool,
    alpha_set: bool,
    diffuse_set: bool,
}

/// One stage under construction: inputs, destinations and selectors.
struct S {
    recipe: &'static str,
    pass: Option<PassType>,
    /// Swap the texel's alpha from this channel (TEXA[s]).
    swap: Option<u8>,
    color: [C; 4],
    alpha: [A; 4],
    color_dest: TevReg,
    alpha_dest: TevReg,
    color_x2: bool,
    kcsel: Option<KonstSel>,
    kasel: Option<KonstSel>,
}

impl S {
    fn new(recipe: &'static str, color: [C; 4], alpha: [A; 4]) -> Self {
        Self {
            recipe,
            pass: None,
            swap: None,
            color,
            alpha,
            color_dest: TevReg::Prev,
            alpha_dest: TevReg::Prev,
            color_x2: false,
            kcsel: None,
            kasel: None,
        }
    }
    fn pass(mut self, p: PassType) -> Self {
        self.pass = Some(p);
        self
    }
    fn kc(mut self, k: KonstSel) -> Self {
        self.kcsel = Some(k);
        self
    }
    fn ka(mut self, k: KonstSel) -> Self {
        self.kasel = Some(k);
        self
    }
}

impl<'a> Builder<'a> {
    /// An empty program for `inputs`.
    fn new(inputs: &'a SynthesisInputs, options: SynthesisOptions) -> Self {
        Self {
            inputs,
            options,
            stages: Vec::new(),
            sources: Vec::new(),
            konst: [[0; 4]; 4],
            konst_count: 0,
            textures: Vec::new(),
            texgens: Vec::new(),
            uv_animations: Vec::new(),
            lit: false,
            alpha_set: false,
            diffuse_set: false,
        }
    }

    fn has(&self, p: PassType) -> bool {
        self.pass(p).is_some()
    }
    fn pass(&self, p: PassType) -> Option<&'a PassInput> {
        self.inputs.passes.iter().find(|x| x.kind == p)
    }
    /// The swap channel TEXA[s] reads for pass `p` (None for A: no swap).
    fn channel(&self, p: PassType) -> Option<u8> {
        let s = match (self.options.forced_swap_channels, p) {
            (true, PassType::Tran) => 0,
            (true, PassType::Blol) => 1,
            _ => self.pass(p).map_or(3, PassInput::alpha_channel),
        };
        (s != 3).then_some(s)
    }
    /// K(c): the next free konst register loaded with `c`.
    fn konst(&mut self, c: [u8; 4]) -> usize {
        let n = self.konst_count.min(3);
        self.konst[n] = c;
        self.konst_count = n + 1;
        n
    }
    /// Texture map (and texgen) of pass `p`, allocated on first use.
    fn map(&mut self, p: PassType) -> u8 {
        if let Some(k) = self.textures.iter().position(|&t| t == p) {
            return k as u8;
        }
        let input = self.pass(p);
        let (kind, source) = match input.map_or(UvSource::Uv(0), |i| i.source) {
            UvSource::Position => (TexGenType::Mtx3x4, TexGenSrc::Position),
            UvSource::Normal => (TexGenType::Mtx3x4, TexGenSrc::Normal),
            UvSource::Uv(n) => (TexGenType::Mtx2x4, TexGenSrc::Tex(n)),
        };
        let mut texgen = TexGen {
            kind,
            source,
            gx_tex_mtx: GX_IDENTITY,
            normalize: false,
            gx_post_mtx: GX_PTIDENTITY,
        };
        if let Some(a) = input.and_then(|i| i.animation) {
            let slot = self.uv_animations.len() as u32;
            self.uv_animations.push(a);
            texgen.gx_tex_mtx = 30 + 3 * slot;
            if a.mode() <= 1 || a.mode() >= 6 {
                texgen.normalize = true;
                if UvAnimation::loads_post_matrix(a.mode()) {
                    texgen.gx_post_mtx = 64 + 3 * slot;
                }
            }
        }
        self.textures.push(p);
        self.texgens.push(texgen);
        (self.textures.len() - 1) as u8
    }

    fn emit(&mut self, s: S) {
        let map = s.pass.map(|p| self.map(p));
        let reads_ras =
            s.color.iter().any(|c| matches!(c, C::Rasc | C::Rasa)) || s.alpha.contains(&A::Rasa);
        let combine = |dest: TevReg, x2: bool| TevCombine {
            scale: u8::from(x2),
            out_reg: dest,
            ..TevCombine::DEFAULT
        };
        // Prime's swap tables (tev::PRIME_SWAP_TABLES): SWAP1..3 put R, G, B in alpha.
        let tex_swap = s.swap.map_or(0, |ch| ch + 1);
        self.stages.push(TevStage {
            color_in: s.color,
            alpha_in: s.alpha,
            color_op: combine(s.color_dest, s.color_x2),
            alpha_op: combine(s.alpha_dest, false),
            kcsel: s.kcsel.unwrap_or(KONST_ONE),
            kasel: s.kasel.unwrap_or(KONST_ONE),
            raster: if reads_ras {
                RasterChannel::Color0A0
            } else {
                RasterChannel::None
            },
            tex_map: map,
            tex_coord: map,
            tex_swap,
            ras_swap: 0,
        });
        self.sources.push(StageSource {
            recipe: s.recipe,
            pass: s.pass,
        });
    }

    /// A stage that passes colour and changes only alpha.
    fn alpha_stage(&mut self, recipe: &'static str, pass: Option<PassType>, alpha: [A; 4]) -> S {
        let mut s = S::new(recipe, c_pass(), alpha);
        s.pass = pass;
        s.swap = pass.and_then(|p| self.channel(p));
        s
    }

    /// R1 lighting (FA = `fa`).
    fn r1(&mut self, fa: bool) {
        let f = self.inputs.flags;
        if !(self.has(PassType::Diff) || f & 0x2C == f::FORCE_LIGHTING) {
            return;
        }
        self.lit = true;
        if self.has(PassType::Diff) {
            let mut s =
                S::new("R1", c_mad(C::Rasc, C::Texc, C::C1), a_one(A::Zero)).pass(PassType::Diff);
            s.color_dest = TevReg::C0;
            if fa {
                s.alpha = a_one(A::Konst);
                s.kasel = Some(KONST_ONE);
            } else if !self.has(PassType::Blol) {
                self.alpha_set = true;
                self.diffuse_set = true;
            } else {
                s.alpha = match self.inputs.blod {
                    0 => a_one(A::Rasa),
                    255 => a_mad(A::Rasa, A::Texa, A::A1),
                    b => {
                        let k = self.konst([0, 0, 0, b]);
                        s.kasel = Some(k_alpha(k));
                        a_mad(A::Rasa, A::Texa, A::Konst)
                    }
                };
                self.alpha_set = true;
                self.diffuse_set = true;
            }
            self.emit(s);
        } else {
            let mut s = S::new("R1", c_mad(C::Rasc, C::Konst, C::C1), a_one(A::Zero)).kc(KONST_ONE);
            s.color_dest = TevReg::C0;
            if fa {
                s.alpha = a_one(A::Konst);
                s.kasel = Some(KONST_ONE);
            }
            self.alpha_set = true;
            self.emit(s);
        }
    }

    /// R8 bloom lightmap.
    fn r8(&mut self) {
        if self.lit && self.has(PassType::Blol) {
            let s = self.alpha_stage("R8", Some(PassType::Blol), a_mul(A::Aprev, A::Texa));
            self.emit(s);
        }
    }

    /// R9 bloom diffuse.
    fn r9(&mut self) {
        if !self.lit {
            self.diffuse_set = true;
            return;
        }
        let untouched = !self.diffuse_set;
        if self.has(PassType::Blod) {
            let s = self.alpha_stage("R9", Some(PassType::Blod), a_mul(A::Aprev, A::Texa));
            self.emit(s);
        }
        let blod = self.inputs.blod;
        if untouched && blod != 255 {
            let s = if blod == 0 {
                self.alpha_stage("R9b", None, a_one(A::Zero))
            } else {
                let base = if self.alpha_set { A::Aprev } else { A::Rasa };
                self.alpha_set = true;
                self.alpha_stage("R9b", None, a_mul(base, A::Konst))
                    .ka(eighths(blod))
            };
            self.emit(s);
        }
        self.diffuse_set = true;
    }

    /// R2 colour (argument σ).
    fn r2(&mut self, sigma: bool, masked_clr_alpha: bool) {
        let alpha_value = if sigma { self.inputs.opac } else { 255 };
        let kept = if self.alpha_set { A::Aprev } else { A::Rasa };
        let s = if self.has(PassType::Clr) {
            let mut s = if self.lit {
                let mut s = S::new("R2", c_mul(C::C0, C::Texc), a_one(kept));
                s.color_x2 = true;
                s
            } else {
                S::new("R2", c_mul(C::Rasc, C::Texc), a_one(kept))
            }
            .pass(PassType::Clr);
            if sigma || masked_clr_alpha {
                if alpha_value == 255 {
                    s.alpha = a_one(A::Texa);
                } else {
                    let k = self.konst([0, 0, 0, alpha_value]);
                    s.alpha = a_mul(A::Texa, A::Konst);
                    s.kasel = Some(k_alpha(k));
                }
            }
            s
        } else {
            let c = self.inputs.clr;
            let k = self.konst([c[0], c[1], c[2], alpha_value]);
            let lit = if self.lit { C::C0 } else { C::Rasc };
            let mut s = S::new("R2", c_mul(lit, C::Konst), a_one(kept)).kc(k_rgb(k));
            s.color_x2 = self.lit || !self.options.unlit_konst_color_x1;
            if sigma {
                s.alpha = a_one(A::Konst);
                s.kasel = Some(k_alpha(k));
            }
            s
        };
        self.alpha_set = true;
        self.emit(s);
    }

    /// R3 opacity.
    fn r3(&mut self) {
        let Some(tran) = self.pass(PassType::Tran) else {
            return;
        };
        let alpha = if tran.flags & 0x10 != 0 {
            // APREV·(1 − TEXA) = lerp(APREV, 0, TEXA).
            [A::Aprev, A::Zero, A::Texa, A::Zero]
        } else {
            a_mul(A::Aprev, A::Texa)
        };
        let s = self.alpha_stage("R3", Some(PassType::Tran), alpha);
        self.emit(s);
    }

    /// R4 reflection alpha.
    fn r4(&mut self) {
        if self.inputs.flags & f::REFLECTION_ALPHA_TARGET != 0 && self.has(PassType::Rfld) {
            let mut s = self.alpha_stage("R4", Some(PassType::Rfld), a_mul(A::Aprev, A::Texa));
            s.swap = Some(0);
            self.emit(s);
        }
    }

    /// R5 reflection.
    fn r5(&mut self) {
        if !self.has(PassType::Rfld) || self.inputs.flags & f::REFLECTION_ALPHA_TARGET != 0 {
            return;
        }
        let lit = if self.lit { C::C0 } else { C::Rasc };
        let first = if self.has(PassType::Rflv) {
            Some(S::new("R5a", c_one(C::Texc), a_one(A::Zero)).pass(PassType::Rflv))
        } else if self.has(PassType::Lrld) {
            Some(S::new("R5a", c_mul(lit, C::Texc), a_one(A::Zero)).pass(PassType::Lrld))
        } else if self.has(PassType::Lurd) {
            // Plain TEXA (no swap), as the spec writes it.
            Some(S::new("R5a", c_mad(C::Texc, lit, C::Texa), a_one(A::Zero)).pass(PassType::Lurd))
        } else {
            None
        };
        let c2 = first.is_some();
        if let Some(mut s) = first {
            s.color_dest = TevReg::C2;
            s.alpha_dest = TevReg::C2;
            self.emit(s);
        }
        let scale = if c2 { C::C2 } else { C::One };
        let s = S::new("R5", c_mad(C::Cprev, C::Texc, scale), a_pass()).pass(PassType::Rfld);
        self.emit(s);
    }

    /// Alpha stage PREV.a ← APREV + E(BLOI).
    fn bloi_stage(&mut self, recipe: &'static str) {
        let s = self
            .alpha_stage(recipe, None, a_sum(A::Aprev, A::Konst))
            .ka(eighths(self.inputs.bloi));
        self.emit(s);
    }

    /// R6 incandescence.
    fn r6(&mut self) {
        let bloi = self.inputs.bloi;
        match self.pass(PassType::Inca) {
            Some(inca) => {
                let mut s = S::new("R6", c_mad(C::Cprev, C::Texc, C::Konst), a_pass())
                    .pass(PassType::Inca)
                    .kc(KONST_ONE);
                let bloom = inca.flags & 0x4 != 0;
                if bloom {
                    s.alpha = a_mad(A::Aprev, A::Texa, A::Konst);
                    s.kasel = Some(eighths(self.inputs.bnif));
                    s.swap = self.channel(PassType::Inca);
                } else if bloi != 0 {
                    s.alpha = a_sum(A::Aprev, A::Konst);
                    s.kasel = Some(eighths(bloi));
                }
                self.emit(s);
                if bloom && bloi != 0 {
                    self.bloi_stage("R6b");
                }
            }
            None if bloi != 0 => self.bloi_stage("R6"),
            None => {}
        }
    }

    /// R6′ incandescence without bloom.
    fn r6_no_bloom(&mut self) {
        if self.has(PassType::Inca) {
            let s = S::new("R6'", c_mad(C::Cprev, C::Texc, C::One), a_pass()).pass(PassType::Inca);
            self.emit(s);
        }
    }

    /// R6s starting incandescence.
    fn r6_start(&mut self) {
        let (bloi, bnif) = (self.inputs.bloi, self.inputs.bnif);
        match self.pass(PassType::Inca) {
            Some(inca) => {
                let mut s = S::new("R6s", c_mul(C::Texc, C::Konst), a_one(A::Zero))
                    .pass(PassType::Inca)
                    .kc(KONST_ONE);
                let mut then_bloi = false;
                if inca.flags & 0x4 != 0 {
                    s.swap = self.channel(PassType::Inca);
                    if bnif == 0 && bloi != 0 {
                        s.alpha = a_sum(A::Texa, A::Konst);
                        s.kasel = Some(eighths(bloi));
                    } else {
                        s.alpha = a_mul(A::Texa, A::Konst);
                        s.kasel = Some(eighths(bnif));
                        then_bloi = bloi != 0;
                    }
                } else if bloi != 0 {
                    s.alpha = a_one(A::Konst);
                    s.kasel = Some(eighths(bloi));
                }
                self.emit(s);
                if then_bloi {
                    self.bloi_stage("R6b");
                }
            }
            None if bloi != 0 => {
                let s = S::new("R6s", c_one(C::Zero), a_one(A::Konst)).ka(eighths(bloi));
                self.emit(s);
            }
            None => {}
        }
    }

    /// R7 bloom incandescence.
    fn r7(&mut self) {
        if self.has(PassType::Bloi) {
            let s = self.alpha_stage("R7", Some(PassType::Bloi), a_sum(A::Aprev, A::Texa));
            self.emit(s);
        }
    }

    fn material(
        &self,
        blend: (BlendFactor, BlendFactor),
        depth_write: bool,
        sorted: bool,
    ) -> Material {
        let d = self.inputs.difb;
        Material {
            stages: self.stages.clone(),
            texgens: self.texgens.clone(),
            texture_count: self.textures.len(),
            konst: self.konst,
            konst_count: self.konst_count,
            // PREV = C0 = C2 = 0; C1 = DIFB (§13.3).
            registers: [[0; 4], [0; 4], d.map(i16::from), [0; 4]],
            // D10 Default: `gx.md` §10.2 with the typical word 0x3001 (lit, REG, CLAMP, SPOT),
            // material and ambient alpha 0.
            color0: Some(ChannelControl::from_word(0x3001)),
            channel_count: 1,
            channel_alpha: ChannelAlpha {
                ambient: Some(0),
                material: Some(0),
            },
            blend: Blend {
                mode: BlendMode::Blend,
                src: blend.0,
                dst: blend.1,
            },
            alpha_test: AlphaTest::ALWAYS,
            depth_write,
            depth_sorted: sorted,
            uv_animations: self.uv_animations.clone(),
            // The gx flag bits mean MP1/MP2 things; only "occluder" has an MP3 counterpart
            // (material flag 0x100): such surfaces are not drawn unless occluders are shown.
            flags: if self.inputs.flags & f::OCCLUDER != 0 {
                super::flags::OCCLUDER
            } else {
                0
            },
        }
    }
}

/// Step 1: the configuration of a material.
pub fn configuration(inputs: &SynthesisInputs) -> Configuration {
    let flags = inputs.flags;
    let has = |p: PassType| inputs.passes.iter().any(|x| x.kind == p);
    if flags & f::SOLID_WHITE != 0 {
        Configuration::SolidWhite
    } else if flags & f::SOLID_COLOR != 0 {
        Configuration::SolidKColorKAlpha
    } else if flags & f::ADDITIVE_INCANDESCENCE != 0 && flags & f::PRE_INCA_TRANSPARENCY == 0 {
        Configuration::AdditiveIncandescenceOnly
    } else {
        let alpha_compare = flags & f::MASKED != 0 && inputs.opac == 255;
        let additive = if flags & f::ADDITIVE_INCANDESCENCE != 0 {
            has(PassType::Inca)
        } else {
            has(PassType::Inca) || has(PassType::Bloi)
        };
        if flags & f::ADDITIVE_INCANDESCENCE != 0 {
            if additive {
                Configuration::NoBloomAdditiveIncandescence
            } else {
                Configuration::NoBloomTransparent
            }
        } else if alpha_compare {
            Configuration::MaterialAlphaCompare
        } else if flags & f::PRE_INCA_TRANSPARENCY != 0 || inputs.opac < 255 {
            if additive {
                Configuration::NoBloomAdditiveIncandescence
            } else {
                Configuration::NoBloomTransparent
            }
        } else {
            Configuration::FullRenderOpaque
        }
    }
}

/// Builds the GX program of an MP3 material (§13.3 steps 1–3).
pub fn synthesize(inputs: &SynthesisInputs, options: &SynthesisOptions) -> Mp3Program {
    let mut warnings = Vec::new();
    for p in &inputs.passes {
        if matches!(p.kind, PassType::Riml | PassType::Xray | PassType::Toon) {
            warnings.push(format!(
                "{} pass ignored: no source implements it",
                p.kind.fourcc()
            ));
        }
    }
    let mut config = configuration(inputs);
    let mut b = Builder::new(inputs, *options);
    if options.optimized_opaque
        && config == Configuration::FullRenderOpaque
        && b.has(PassType::Diff)
        && b.has(PassType::Clr)
    {
        config = Configuration::OptimizedDiffuseLightingColorOpaque;
    }
    use BlendFactor as B;
    let transparent = (B::SrcAlpha, B::InvSrcAlpha);
    let mut second_draw = None;
    let material = match config {
        Configuration::FullRenderOpaque => {
            b.r1(false);
            b.r8();
            b.r9();
            b.r2(false, false);
            b.r5();
            b.r6();
            b.r7();
            b.material((B::One, B::Zero), true, false)
        }
        Configuration::OptimizedDiffuseLightingColorOpaque => {
            // D5 Alt: R1 with alpha 0, then PREV.rgb ← 2·C0·TEXC(CLR), alpha passing.
            b.lit = true;
            let mut s =
                S::new("R1", c_mad(C::Rasc, C::Texc, C::C1), a_one(A::Zero)).pass(PassType::Diff);
            s.color_dest = TevReg::C0;
            b.emit(s);
            let mut s = S::new("R2", c_mul(C::C0, C::Texc), a_pass()).pass(PassType::Clr);
            s.color_x2 = true;
            b.emit(s);
            b.material((B::One, B::Zero), true, false)
        }
        Configuration::NoBloomTransparent | Configuration::NoBloomAdditiveIncandescence => {
            b.r1(true);
            b.r2(true, false);
            b.r3();
            b.r4();
            b.r5();
            let m = b.material(transparent, false, true);
            // D7: a BLOI pass without INCA draws no second time.
            if config == Configuration::NoBloomAdditiveIncandescence && b.has(PassType::Inca) {
                let mut second = Builder::new(inputs, *options);
                let s = S::new("2nd", c_one(C::Texc), a_one(A::Konst))
                    .pass(PassType::Inca)
                    .ka(KONST_ONE);
                second.emit(s);
                let m2 = second.material((B::SrcAlpha, B::One), false, true);
                second_draw = Some((m2, second.sources.clone()));
            }
            m
        }
        Configuration::MaterialAlphaCompare => {
            b.r1(true);
            let clr_alpha = !options.alpha_compare_literal;
            b.r2(false, clr_alpha);
            b.r3();
            b.r4();
            b.r5();
            b.r6_no_bloom();
            // D4 Default: opaque, depth write on, pass iff a8 ≥ 192.
            let mut m = b.material((B::One, B::Zero), true, true);
            m.alpha_test = AlphaTest {
                comp0: Compare::GEqual,
                ref0: 192,
                op: AlphaOp::And,
                comp1: Compare::Always,
                ref1: 0,
            };
            m
        }
        Configuration::AdditiveIncandescenceOnly => {
            b.r6_start();
            b.r7();
            b.r5();
            b.material((B::One, B::One), false, true)
        }
        Configuration::SolidWhite => {
            b.emit(S::new("SW", c_one(C::One), a_one(A::Zero)));
            b.material((B::One, B::Zero), false, false)
        }
        Configuration::SolidKColorKAlpha => {
            let k = b.konst(inputs.clr);
            let s = S::new("SK", c_one(C::Konst), a_one(A::Konst))
                .kc(k_rgb(k))
                .ka(k_alpha(k));
            b.emit(s);
            b.material((B::SrcAlpha, B::One), false, true)
        }
    };
    Mp3Program {
        configuration: config,
        material,
        stage_sources: b.sources,
        texture_passes: b.textures,
        lit: b.lit,
        second_draw,
        warnings,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn pass(kind: PassType, flags: u32) -> PassInput {
        PassInput {
            kind,
            flags,
            source: UvSource::Uv(0),
            animation: None,
        }
    }

    fn inputs(flags: u32, passes: &[(PassType, u32)]) -> SynthesisInputs {
        SynthesisInputs {
            flags,
            passes: passes.iter().map(|&(k, f)| pass(k, f)).collect(),
            clr: [255; 4],
            difb: [255; 4],
            opac: 255,
            blod: 255,
            bloi: 0,
            bnif: 32,
        }
    }

    fn recipes(p: &Mp3Program) -> Vec<&'static str> {
        p.stage_sources.iter().map(|s| s.recipe).collect()
    }

    #[test]
    fn occluders_carry_the_gx_occluder_flag_and_nothing_else_does() {
        let o = SynthesisOptions::default();
        let occluder = synthesize(&inputs(0x100, &[(PassType::Diff, 0)]), &o);
        assert_eq!(occluder.material.flags, crate::gx::flags::OCCLUDER);
        for flags in [0, 0x8, 0x10, 0x20, 0x200, 0x800] {
            let p = synthesize(&inputs(flags, &[(PassType::Diff, 0)]), &o);
            assert_eq!(p.material.flags, 0, "flags {flags:#x}");
        }
    }

    #[test]
    fn configurations_follow_step_one() {
        let c = |flags, passes: &[(PassType, u32)]| configuration(&inputs(flags, passes));
        assert_eq!(c(0x200 | 0x800, &[]), Configuration::SolidWhite);
        assert_eq!(c(0x800, &[]), Configuration::SolidKColorKAlpha);
        assert_eq!(c(0x20, &[]), Configuration::AdditiveIncandescenceOnly);
        assert_eq!(
            c(0x28, &[(PassType::Inca, 3)]),
            Configuration::NoBloomAdditiveIncandescence
        );
        assert_eq!(c(0x28, &[]), Configuration::NoBloomTransparent);
        assert_eq!(c(0x10, &[]), Configuration::MaterialAlphaCompare);
        assert_eq!(
            c(0x8, &[(PassType::Bloi, 3)]),
            Configuration::NoBloomAdditiveIncandescence
        );
        assert_eq!(c(0, &[]), Configuration::FullRenderOpaque);
        let mut half = inputs(0x10, &[]);
        half.opac = 128;
        assert_eq!(configuration(&half), Configuration::NoBloomTransparent);
    }

    #[test]
    fn d5_alt_drops_reflection_incandescence_and_bloom_from_opaque_diffuse_colour() {
        let i = inputs(
            0,
            &[
                (PassType::Diff, 3),
                (PassType::Clr, 3),
                (PassType::Rfld, 3),
                (PassType::Inca, 3),
            ],
        );
        let default = synthesize(&i, &SynthesisOptions::default());
        assert_eq!(default.configuration, Configuration::FullRenderOpaque);
        let alt = SynthesisOptions {
            optimized_opaque: true,
            ..SynthesisOptions::default()
        };
        let p = synthesize(&i, &alt);
        assert_eq!(
            p.configuration,
            Configuration::OptimizedDiffuseLightingColorOpaque
        );
        assert_eq!(recipes(&p), ["R1", "R2"]);
        assert_eq!(p.texture_passes, [PassType::Diff, PassType::Clr]);
        assert_eq!(p.material.stages[0].alpha_in, a_one(A::Zero));
        assert_eq!(p.material.stages[1].color_in, c_mul(C::C0, C::Texc));
        assert_eq!(p.material.stages[1].color_op.scale, 1, "×2");
        assert_eq!(p.material.stages[1].alpha_in, a_pass());
        assert!(p.material.depth_write && p.lit);
        // Without a CLR pass the Alt changes nothing.
        let no_clr = inputs(0, &[(PassType::Diff, 3), (PassType::Rfld, 3)]);
        assert_eq!(
            synthesize(&no_clr, &alt),
            synthesize(&no_clr, &SynthesisOptions::default())
        );
    }

    #[test]
    fn opaque_lightmapped_colour_is_two_stages_with_c1_from_difb() {
        let mut i = inputs(0, &[(PassType::Diff, 3), (PassType::Clr, 3)]);
        i.difb = [10, 20, 30, 255];
        let p = synthesize(&i, &SynthesisOptions::default());
        assert_eq!(recipes(&p), ["R1", "R2"]);
        assert!(p.lit);
        assert_eq!(p.material.registers[2], [10, 20, 30, 255]);
        assert_eq!(p.material.stages[0].color_op.out_reg, TevReg::C0);
        assert_eq!(
            p.material.stages[1].color_op.scale, 1,
            "×2 on the lit CLR stage (D2)"
        );
        assert_eq!(p.texture_passes, [PassType::Diff, PassType::Clr]);
        assert_eq!(p.material.blend.dst, BlendFactor::Zero);
    }

    #[test]
    fn blol_and_blod_emit_the_bloom_stages() {
        let mut i = inputs(
            0,
            &[
                (PassType::Diff, 3),
                (PassType::Blol, 1),
                (PassType::Blod, 0),
            ],
        );
        i.blod = 100;
        let p = synthesize(&i, &SynthesisOptions::default());
        assert_eq!(recipes(&p), ["R1", "R8", "R9", "R2"]);
        // R1 with BLOL and BLOD 100: RASA + TEXA·K0.a with K0 = (0,0,0,100).
        assert_eq!(p.material.konst[0], [0, 0, 0, 100]);
        assert_eq!(p.material.stages[0].kasel, KonstSel(0x1C));
        // R8 reads the BLOL texel's G as alpha (SWAP2), R9 the BLOD texel's R (SWAP1).
        assert_eq!(p.material.stages[1].tex_swap, 2);
        assert_eq!(p.material.stages[2].tex_swap, 1);
    }

    #[test]
    fn r9_without_blol_writes_eighths_once_when_blod_is_partial() {
        let mut i = inputs(0x4, &[]);
        i.blod = 64;
        let p = synthesize(&i, &SynthesisOptions::default());
        // No DIFF but forced lighting: R1 (konst ONE), R9's eighths stage, R2.
        assert_eq!(recipes(&p), ["R1", "R9b", "R2"]);
        assert_eq!(p.material.stages[1].kasel, eighths(64));
        assert_eq!(eighths(64), KonstSel(5));
        assert_eq!(eighths(0), KonstSel(7));
        assert_eq!(eighths(255), KonstSel(0));
    }

    #[test]
    fn transparent_and_masked_alphas() {
        let mut i = inputs(0x8, &[(PassType::Diff, 3), (PassType::Tran, 0x11)]);
        i.opac = 200;
        i.clr = [1, 2, 3, 4];
        let p = synthesize(&i, &SynthesisOptions::default());
        assert_eq!(recipes(&p), ["R1", "R2", "R3"]);
        assert_eq!(p.material.konst[0], [1, 2, 3, 200]);
        assert!(!p.material.depth_write && p.material.depth_sorted);
        let r3 = p.material.stages[2];
        assert_eq!(r3.tex_swap, 2, "TRAN flags 0x11: channel G");
        assert_eq!(r3.alpha_in, [A::Aprev, A::Zero, A::Texa, A::Zero]);
        let forced = synthesize(
            &i,
            &SynthesisOptions {
                forced_swap_channels: true,
                ..Default::default()
            },
        );
        assert_eq!(
            forced.material.stages[2].tex_swap, 1,
            "D9 Alt: TRAN reads R"
        );

        let m = inputs(0x10, &[(PassType::Clr, 3)]);
        let p = synthesize(&m, &SynthesisOptions::default());
        assert_eq!(p.configuration, Configuration::MaterialAlphaCompare);
        assert!(!p.material.alpha_test.passes(191) && p.material.alpha_test.passes(192));
        assert_eq!(p.material.stages[0].alpha_in[3], A::Texa, "D3 Default");
        let literal = synthesize(
            &m,
            &SynthesisOptions {
                alpha_compare_literal: true,
                ..Default::default()
            },
        );
        assert_eq!(literal.material.stages[0].alpha_in[3], A::Rasa, "D3 Alt");
    }

    #[test]
    fn unlit_konst_colour_scales_per_d8() {
        let i = inputs(0, &[]);
        let p = synthesize(&i, &SynthesisOptions::default());
        assert_eq!(recipes(&p), ["R2"]);
        assert_eq!(p.material.stages[0].color_op.scale, 1);
        let alt = synthesize(
            &i,
            &SynthesisOptions {
                unlit_konst_color_x1: true,
                ..Default::default()
            },
        );
        assert_eq!(alt.material.stages[0].color_op.scale, 0);
    }

    #[test]
    fn additive_configurations_and_solid_colours() {
        let mut i = inputs(0x28, &[(PassType::Diff, 3), (PassType::Inca, 3)]);
        i.opac = 10;
        let p = synthesize(&i, &SynthesisOptions::default());
        // D10 Default: both draws zero COLOR0's ambient and material alpha.
        let zero = ChannelAlpha {
            ambient: Some(0),
            material: Some(0),
        };
        assert_eq!(p.material.channel_alpha, zero);
        let (second, sources) = p.second_draw.unwrap();
        assert_eq!(second.channel_alpha, zero);
        assert_eq!(sources[0].pass, Some(PassType::Inca));
        assert_eq!(second.blend.dst, BlendFactor::One);

        let mut i = inputs(0x20, &[(PassType::Inca, 0x4), (PassType::Bloi, 3)]);
        i.bloi = 96;
        i.bnif = 64;
        let p = synthesize(&i, &SynthesisOptions::default());
        assert_eq!(recipes(&p), ["R6s", "R6b", "R7"]);
        assert_eq!(p.material.blend.src, BlendFactor::One);
        assert_eq!(p.material.blend.dst, BlendFactor::One);

        let p = synthesize(&inputs(0x200, &[]), &SynthesisOptions::default());
        assert_eq!(recipes(&p), ["SW"]);
        let mut k = inputs(0x800, &[]);
        k.clr = [9, 8, 7, 6];
        let p = synthesize(&k, &SynthesisOptions::default());
        assert_eq!(p.material.konst[0], [9, 8, 7, 6]);
        assert_eq!(p.material.konst_count, 1);
    }

    #[test]
    fn animated_passes_get_their_own_texture_matrix() {
        let mut i = inputs(0, &[(PassType::Clr, 3), (PassType::Rfld, 3)]);
        i.passes[1].source = UvSource::Normal;
        i.passes[1].animation = Some(UvAnimation::InverseModelView);
        let p = synthesize(&i, &SynthesisOptions::default());
        let t = p.material.texgens[1];
        assert_eq!(t.source, TexGenSrc::Normal);
        assert_eq!((t.gx_tex_mtx, t.gx_post_mtx, t.normalize), (30, 64, true));
        assert_eq!(p.material.uv_animations.len(), 1);
    }
}
