//! The JSON schemas of `info --json` (and `pose --json`), derived with serde: CMDL models
//! here, the other formats in the child modules ([`cinf`], [`cskr`], [`anim`],
//! [`character`], [`area`], [`pak`], [`txtr`]), one schema per format; `uvanim --json` in
//! [`uvanim`]. Each report also has its text form, so the CLI only prints them.
//!
//! Field names are the conformance JSONs' (`../shared/conformance`). The same types are the
//! document JSON Patch edits address (`crate::edit`): the material fields that say what the
//! hardware does are *sources* and are read back by [`MaterialInfo::to_material`]; every other
//! field (counts, raw words next to their decoded form, names next to numbers, section sizes,
//! offsets) is *derived* and recomputed. Derived fields default when absent, so an added TEV
//! stage, texgen or UV animation needs only its source fields.

use serde::{Deserialize, Serialize};

use crate::formats::cmdl::{Cmdl, Normals, Surface, UvSource};
use crate::formats::material::{
    Material, MaterialSet, TevStageWords, UvAnimationWords, VertexAttributes,
};
use crate::formats::{Game, asset_id_string};
use crate::gx;

/// A schema value that cannot become a material field, located by its path in the material.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {message}")]
pub struct SchemaError {
    /// Path relative to the material, e.g. `tev_stages/1/color_op/out_reg`.
    pub field: String,
    pub message: String,
}

fn schema_err(field: impl Into<String>, message: impl Into<String>) -> SchemaError {
    SchemaError {
        field: field.into(),
        message: message.into(),
    }
}

/// Checks `(name, value, max)` fields of the element at `at`.
fn check_ranges(at: &str, fields: &[(&str, u32, u32)]) -> Result<(), SchemaError> {
    match fields.iter().find(|(_, v, max)| v > max) {
        Some((name, v, max)) => Err(schema_err(
            format!("{at}/{name}"),
            format!("{v} is out of range 0–{max}"),
        )),
        None => Ok(()),
    }
}

pub mod anim;
pub mod anim_mp3;
pub mod area;
pub mod area_mp3;
pub mod bench;
pub mod character;
pub mod cinf;
pub mod cmdl_mp3;
pub mod cmdl_text;
pub mod cskr;
pub mod disc;
pub mod dolphin;
pub mod mlvl;
pub mod pak;
pub mod strg;
pub mod txtr;
pub mod uvanim;
pub mod worlds;

/// The SHA-256 of `bytes` as lowercase hex (reports name the bytes they describe).
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    use std::fmt::Write as _;
    Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The text reports' closing `warning:` lines.
fn warnings_text(out: &mut String, warnings: &[String]) {
    use std::fmt::Write as _;
    for w in warnings {
        let _ = writeln!(out, "warning: {w}");
    }
}

/// A report as pretty JSON (its fields in declaration order), or as its text form.
pub fn json_or_text<T: Serialize>(
    report: &T,
    json: bool,
    text: impl FnOnce(&T) -> String,
) -> serde_json::Result<String> {
    if json {
        serde_json::to_string_pretty(report)
    } else {
        Ok(text(report))
    }
}

/// A report as pretty JSON with every object's keys sorted: how the skeleton, skin,
/// animation and character reports have always printed (their field names and order are a
/// public interface; `tests/info_json.rs` keeps them byte for byte).
pub fn sorted_json<T: Serialize>(report: &T) -> serde_json::Result<String> {
    serde_json::to_string_pretty(&serde_json::to_value(report)?)
}

/// Floats as the fixtures report them: f32 converted exactly to f64.
pub(crate) fn f64s<const N: usize>(v: [f32; N]) -> [f64; N] {
    v.map(f64::from)
}

/// The game's name as the conformance JSONs spell it.
pub fn game_name(g: Game) -> &'static str {
    match g {
        Game::Mp1 => "MP1",
        Game::Mp2 => "MP2",
        Game::Mp3 => "MP3",
    }
}

// ------------------------------------------------------------------------------------------------
// Combiner inputs: the gx name, or `INVALID(n)` for a field a lenient parse kept.

fn input_name<T: std::fmt::Display>(v: u32, decode: impl Fn(u32) -> Option<T>) -> String {
    decode(v).map_or_else(|| format!("INVALID({v})"), |c| c.to_string())
}

/// Reads a name back to its field value (`INVALID(n)` gives n, so lenient files round-trip).
fn input_bits<T: std::str::FromStr>(
    s: &str,
    bits: impl Fn(T) -> u32,
    field: &str,
) -> Result<u32, SchemaError>
where
    T::Err: std::fmt::Display,
{
    if let Some(n) = s
        .strip_prefix("INVALID(")
        .and_then(|r| r.strip_suffix(')'))
        .and_then(|n| n.parse::<u32>().ok())
        .filter(|&n| n < 32)
    {
        return Ok(n);
    }
    s.parse::<T>()
        .map(bits)
        .map_err(|e| schema_err(field, e.to_string()))
}

/// The four 5-bit fields of an input word.
pub fn input_fields(w: u32) -> [u32; 4] {
    [0, 1, 2, 3].map(|i| (w >> (5 * i)) & 31)
}

const INPUT_MASK: u32 = 0xF_FFFF;
const COMBINE_MASK: u32 = 0x7FF;
const TEXGEN_MASK: u32 = 0x1F_FFFF;

/// Colour input names of a stage word, as `info` prints them.
pub fn color_input_names(w: u32) -> [String; 4] {
    input_fields(w).map(|v| input_name(v, gx::ColorInput::from_bits))
}

/// Alpha input names of a stage word, as `info` prints them.
pub fn alpha_input_names(w: u32) -> [String; 4] {
    input_fields(w).map(|v| input_name(v, gx::AlphaInput::from_bits))
}

// ------------------------------------------------------------------------------------------------
// Material

/// The flag bits the conformance JSONs decode.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FlagsDecoded {
    pub konst_present_0x8: bool,
    pub transparent_0x10: bool,
    pub punchthrough_0x20: bool,
    pub samus_reflection_0x40: bool,
    pub depth_write_0x80: bool,
    pub reflection_surface_eye_0x100: bool,
    pub occluder_0x200: bool,
    pub indirect_texture_slot_present_0x400: bool,
    pub lightmap_0x800: bool,
    pub short_uv_0x2000: bool,
}

impl FlagsDecoded {
    fn new(flags: u32) -> Self {
        use gx::flags as f;
        Self {
            konst_present_0x8: flags & f::KONST != 0,
            transparent_0x10: flags & f::TRANSPARENT != 0,
            punchthrough_0x20: flags & f::PUNCHTHROUGH != 0,
            samus_reflection_0x40: flags & f::SAMUS_REFLECTION != 0,
            depth_write_0x80: flags & f::DEPTH_WRITE != 0,
            reflection_surface_eye_0x100: flags & f::REFLECTION_SURFACE_EYE != 0,
            occluder_0x200: flags & f::OCCLUDER != 0,
            indirect_texture_slot_present_0x400: flags & f::INDIRECT_SLOT != 0,
            lightmap_0x800: flags & f::LIGHTMAP != 0,
            short_uv_0x2000: flags & f::SHORT_UV != 0,
        }
    }
}

/// The vertex attribute word decoded: a format per attribute, a bool per matrix-index byte.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VertexAttributesInfo {
    pub position: String,
    pub normal: String,
    pub color0: String,
    pub color1: String,
    pub tex0: String,
    pub tex1: String,
    pub tex2: String,
    pub tex3: String,
    pub tex4: String,
    pub tex5: String,
    pub tex6: String,
    pub tex7: String,
    pub pnmtxidx: bool,
    pub tex0mtxidx: bool,
    pub tex1mtxidx: bool,
    pub tex2mtxidx: bool,
    pub tex3mtxidx: bool,
    pub tex4mtxidx: bool,
    pub tex5mtxidx: bool,
    pub tex6mtxidx: bool,
}

impl VertexAttributesInfo {
    pub(crate) fn new(va: VertexAttributes) -> Self {
        let f = |i: usize| va.format(i).name().to_string();
        let m = |i: usize| va.matrix_index(i);
        Self {
            position: f(0),
            normal: f(1),
            color0: f(2),
            color1: f(3),
            tex0: f(4),
            tex1: f(5),
            tex2: f(6),
            tex3: f(7),
            tex4: f(8),
            tex5: f(9),
            tex6: f(10),
            tex7: f(11),
            pnmtxidx: m(0),
            tex0mtxidx: m(1),
            tex1mtxidx: m(2),
            tex2mtxidx: m(3),
            tex3mtxidx: m(4),
            tex4mtxidx: m(5),
            tex5mtxidx: m(6),
            tex6mtxidx: m(7),
        }
    }
}

/// One combiner word's fields (source; the word itself is derived).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CombineInfo {
    /// 0 ADD, 1 SUB, 8–15 compare (0–15).
    pub op: u8,
    /// 0–3 (3 selects a compare).
    pub bias: u8,
    /// 0–3.
    pub scale: u8,
    pub clamp: bool,
    /// 0 PREV, 1 C0, 2 C1, 3 C2.
    pub out_reg: u8,
}

impl CombineInfo {
    fn new(w: u32) -> Self {
        let c = gx::TevCombine::from_word(w);
        Self {
            op: c.op,
            bias: c.bias,
            scale: c.scale,
            clamp: c.clamp,
            out_reg: c.out_reg as u8,
        }
    }

    /// Re-encodes over `word`, keeping its unused bits.
    fn to_word(&self, word: u32, field: &str) -> Result<u32, SchemaError> {
        check_ranges(
            field,
            &[
                ("op", self.op.into(), 15),
                ("bias", self.bias.into(), 3),
                ("scale", self.scale.into(), 3),
                ("out_reg", self.out_reg.into(), 3),
            ],
        )?;
        let c = gx::TevCombine {
            op: self.op,
            bias: self.bias,
            scale: self.scale,
            clamp: self.clamp,
            out_reg: gx::TevReg::ALL[self.out_reg as usize],
        };
        Ok(word & !COMBINE_MASK | c.to_word())
    }
}

/// One TEV stage with its order entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TevStageInfo {
    /// Derived from `color_inputs` (bits above the four fields are kept).
    #[serde(default)]
    pub color_input_flags: u32,
    /// Derived from `alpha_inputs`.
    #[serde(default)]
    pub alpha_input_flags: u32,
    /// Derived from `color_op` (bits above bit 10 are kept).
    #[serde(default)]
    pub color_combine_flags: u32,
    /// Derived from `alpha_op`.
    #[serde(default)]
    pub alpha_combine_flags: u32,
    #[serde(default)]
    pub padding: u8,
    /// Konst alpha selector (0–31).
    pub konst_alpha_input: u8,
    /// Konst colour selector (0–31).
    pub konst_color_input: u8,
    /// GXChannelID (0–8, 255 none).
    pub rasterized_color_input: u8,
    pub color_inputs: [String; 4],
    pub alpha_inputs: [String; 4],
    pub color_op: CombineInfo,
    pub alpha_op: CombineInfo,
    /// Material texture slot (255 none).
    pub texture_index: u8,
    /// Texgen output (255 none).
    pub tex_coord_index: u8,
    #[serde(default)]
    pub order_padding: u16,
}

impl TevStageInfo {
    pub fn new(s: &TevStageWords) -> Self {
        Self {
            color_input_flags: s.color_inputs,
            alpha_input_flags: s.alpha_inputs,
            color_combine_flags: s.color_combine,
            alpha_combine_flags: s.alpha_combine,
            padding: s.padding,
            konst_alpha_input: s.kasel,
            konst_color_input: s.kcsel,
            rasterized_color_input: s.raster,
            color_inputs: color_input_names(s.color_inputs),
            alpha_inputs: alpha_input_names(s.alpha_inputs),
            color_op: CombineInfo::new(s.color_combine),
            alpha_op: CombineInfo::new(s.alpha_combine),
            texture_index: s.tex_map,
            tex_coord_index: s.tex_coord,
            order_padding: s.order_padding,
        }
    }

    /// The stored stage: source fields encoded over the stored words' unused bits.
    pub fn to_words(&self, at: &str) -> Result<TevStageWords, SchemaError> {
        let mut color_inputs = self.color_input_flags & !INPUT_MASK;
        for (i, name) in self.color_inputs.iter().enumerate() {
            let f = format!("{at}/color_inputs/{i}");
            color_inputs |= input_bits(name, gx::ColorInput::bits, &f)? << (5 * i);
        }
        let mut alpha_inputs = self.alpha_input_flags & !INPUT_MASK;
        for (i, name) in self.alpha_inputs.iter().enumerate() {
            let f = format!("{at}/alpha_inputs/{i}");
            alpha_inputs |= input_bits(name, gx::AlphaInput::bits, &f)? << (5 * i);
        }
        // Konst selectors are 5-bit fields.
        check_ranges(
            at,
            &[
                ("konst_alpha_input", self.konst_alpha_input.into(), 31),
                ("konst_color_input", self.konst_color_input.into(), 31),
            ],
        )?;
        Ok(TevStageWords {
            color_inputs,
            alpha_inputs,
            color_combine: self
                .color_op
                .to_word(self.color_combine_flags, &format!("{at}/color_op"))?,
            alpha_combine: self
                .alpha_op
                .to_word(self.alpha_combine_flags, &format!("{at}/alpha_op"))?,
            padding: self.padding,
            kasel: self.konst_alpha_input,
            kcsel: self.konst_color_input,
            raster: self.rasterized_color_input,
            order_padding: self.order_padding,
            tex_map: self.texture_index,
            tex_coord: self.tex_coord_index,
        })
    }
}

/// One texgen word decoded (`formats.md` §3.8).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TexGenInfo {
    /// Derived (bits above bit 20 are kept).
    #[serde(default)]
    pub flags: u32,
    /// GX texgen type (0–10).
    #[serde(rename = "type")]
    pub kind: u32,
    #[serde(default)]
    pub type_name: String,
    /// GX texgen source (0–20).
    pub source: u32,
    #[serde(default)]
    pub source_name: String,
    /// Texture matrix field (0–31): GX matrix 30 + field.
    pub mtx_field: u32,
    #[serde(default)]
    pub gx_tex_mtx: u32,
    pub normalize: bool,
    /// Post-transform matrix field (0–63): GX matrix 64 + field.
    pub post_mtx_field: u32,
    #[serde(default)]
    pub gx_post_tex_mtx: u32,
}

impl TexGenInfo {
    pub fn new(w: u32) -> Self {
        let kind = w & 0xF;
        let source = (w >> 4) & 0x1F;
        let mtx = (w >> 9) & 0x1F;
        let post = (w >> 15) & 0x3F;
        Self {
            flags: w,
            kind,
            type_name: input_name(kind, gx::TexGenType::from_bits),
            source,
            source_name: input_name(source, gx::TexGenSrc::from_bits),
            mtx_field: mtx,
            gx_tex_mtx: mtx + 30,
            normalize: (w >> 14) & 1 != 0,
            post_mtx_field: post,
            gx_post_tex_mtx: post + 64,
        }
    }

    /// The texgen word (validity of type and source is checked with the material).
    pub fn to_word(&self, at: &str) -> Result<u32, SchemaError> {
        check_ranges(
            at,
            &[
                ("type", self.kind, 15),
                ("source", self.source, 31),
                ("mtx_field", self.mtx_field, 31),
                ("post_mtx_field", self.post_mtx_field, 63),
            ],
        )?;
        Ok(self.flags & !TEXGEN_MASK
            | self.kind
            | self.source << 4
            | self.mtx_field << 9
            | (self.normalize as u32) << 14
            | self.post_mtx_field << 15)
    }
}

/// One UV-animation parameter: a float, or the SRT transform type (an integer word).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum UvParam {
    Int(u32),
    Float(f64),
}

/// One UV animation (`formats.md` §3.9).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UvAnimationInfo {
    pub mode: u32,
    #[serde(default)]
    pub mode_name: String,
    /// One per name in `parameter_names` (mode 8's first is an integer).
    pub parameters: Vec<UvParam>,
    #[serde(default)]
    pub parameter_names: Vec<String>,
}

impl UvAnimationInfo {
    pub fn new(a: &UvAnimationWords) -> Self {
        Self {
            mode: a.mode,
            mode_name: gx::UvAnimation::mode_name(a.mode).into(),
            parameters: a
                .params
                .iter()
                .enumerate()
                .map(|(i, &p)| {
                    if a.mode == 8 && i == 0 {
                        UvParam::Int(p)
                    } else {
                        UvParam::Float(f32::from_bits(p).into())
                    }
                })
                .collect(),
            parameter_names: gx::UvAnimation::parameter_names(a.mode)
                .iter()
                .map(|s| s.to_string())
                .collect(),
        }
    }

    pub fn to_words(&self, game: Game, at: &str) -> Result<UvAnimationWords, SchemaError> {
        let known = !(self.mode == 8 && game == Game::Mp1);
        let count = gx::UvAnimation::param_count(self.mode)
            .filter(|_| known)
            .ok_or_else(|| {
                schema_err(
                    format!("{at}/mode"),
                    format!(
                        "UV-animation mode {} is unknown to {}",
                        self.mode,
                        game_name(game)
                    ),
                )
            })?;
        if self.parameters.len() != count {
            return Err(schema_err(
                format!("{at}/parameters"),
                format!(
                    "mode {} takes {count} parameter(s), {} given",
                    self.mode,
                    self.parameters.len()
                ),
            ));
        }
        let params = self
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| match (self.mode == 8 && i == 0, *p) {
                (true, UvParam::Int(v)) => Ok(v),
                (true, UvParam::Float(_)) => Err(schema_err(
                    format!("{at}/parameters/{i}"),
                    "the SRT transform type is an integer",
                )),
                (false, UvParam::Int(v)) => Ok((v as f32).to_bits()),
                (false, UvParam::Float(v)) => Ok((v as f32).to_bits()),
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(UvAnimationWords {
            mode: self.mode,
            params,
        })
    }
}

/// One material in the conformance JSON shape (plus `mp2_unknown`, `gx_valid`, …).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialInfo {
    /// Bits 0x8 and 0x400 follow `konst_colors_rgba` and the indirect slot; bits 0x1000 and
    /// 0x2000 are read-only (they pick TEX0's vertex array).
    pub flags: u32,
    #[serde(default)]
    pub flags_decoded: FlagsDecoded,
    /// Indices into the set's `texture_file_ids` (material texture k is GX map k).
    pub texture_indices: Vec<u32>,
    #[serde(default)]
    pub texture_file_ids: Vec<Option<String>>,
    /// Read-only: the surfaces' display lists are encoded with it.
    pub vertex_attribute_flags: u32,
    #[serde(default)]
    pub vertex_attributes: VertexAttributesInfo,
    #[serde(default)]
    pub mp2_unknown: Option<[u32; 2]>,
    pub group_index: u32,
    /// Derived from `konst_colors_rgba`.
    #[serde(default)]
    pub konst_colors: Vec<u32>,
    pub konst_colors_rgba: Vec<[u8; 4]>,
    pub blend_destination_factor: u16,
    pub blend_source_factor: u16,
    pub reflection_indirect_texture_slot_index: Option<u32>,
    pub color_channel_flags: Vec<u32>,
    #[serde(default)]
    pub tev_stage_count: usize,
    pub tev_stages: Vec<TevStageInfo>,
    #[serde(default)]
    pub texgen_count: usize,
    pub texgens: Vec<TexGenInfo>,
    #[serde(default)]
    pub material_animations_section_size: u32,
    #[serde(default)]
    pub uv_animation_count: u32,
    pub uv_animations: Vec<UvAnimationInfo>,
    #[serde(default)]
    pub unknown_uv_mode: Option<u32>,
    #[serde(default)]
    pub trailing_bytes: usize,
    #[serde(default)]
    pub gx_valid: bool,
}

impl MaterialInfo {
    pub fn new(set: &MaterialSet, m: &Material) -> Self {
        let flags = m.effective_flags();
        Self {
            flags,
            flags_decoded: FlagsDecoded::new(flags),
            texture_indices: m.texture_indices.clone(),
            texture_file_ids: m
                .texture_indices
                .iter()
                .map(|&i| {
                    set.texture_ids
                        .get(i as usize)
                        .map(|&id| asset_id_string(id.into(), false))
                })
                .collect(),
            vertex_attribute_flags: m.vertex_attributes.0,
            vertex_attributes: VertexAttributesInfo::new(m.vertex_attributes),
            mp2_unknown: m.mp2_unknown,
            group_index: m.group_index,
            konst_colors: m.konst_colors.clone().unwrap_or_default(),
            konst_colors_rgba: m.konst_rgba(),
            blend_destination_factor: m.blend_dst,
            blend_source_factor: m.blend_src,
            reflection_indirect_texture_slot_index: m.indirect_texture_slot,
            color_channel_flags: m.color_channels.clone(),
            tev_stage_count: m.tev_stages.len(),
            tev_stages: m.tev_stages.iter().map(TevStageInfo::new).collect(),
            texgen_count: m.texgens.len(),
            texgens: m.texgens.iter().map(|&w| TexGenInfo::new(w)).collect(),
            material_animations_section_size: m.uv_block_size,
            uv_animation_count: m.uv_animation_count,
            uv_animations: m.uv_animations.iter().map(UvAnimationInfo::new).collect(),
            unknown_uv_mode: m.unknown_uv_mode,
            trailing_bytes: m.trailing.len(),
            gx_valid: m.to_gx().is_ok(),
        }
    }

    /// The stored material these source fields describe. `original` supplies what the schema
    /// does not carry or does not let change (MP2 words, trailing bytes, and the UV block of a
    /// material whose animations stop at an unknown mode); derived fields are ignored here and
    /// recomputed. The vertex attribute word is taken as given: editors refuse a change (it
    /// shapes the geometry), naming why.
    pub fn to_material(&self, original: &Material, game: Game) -> Result<Material, SchemaError> {
        let tev_stages = self
            .tev_stages
            .iter()
            .enumerate()
            .map(|(i, s)| s.to_words(&format!("tev_stages/{i}")))
            .collect::<Result<Vec<_>, _>>()?;
        let texgens = self
            .texgens
            .iter()
            .enumerate()
            .map(|(i, t)| t.to_word(&format!("texgens/{i}")))
            .collect::<Result<Vec<_>, _>>()?;
        // Konsts are present when the flag says so or there are any (an empty block is legal).
        let konst_colors =
            (self.flags & gx::flags::KONST != 0 || !self.konst_colors_rgba.is_empty()).then(|| {
                self.konst_colors_rgba
                    .iter()
                    .map(|&c| u32::from_be_bytes(c))
                    .collect()
            });
        let mut m = Material {
            flags: self.flags,
            texture_indices: self.texture_indices.clone(),
            vertex_attributes: VertexAttributes(self.vertex_attribute_flags),
            mp2_unknown: original.mp2_unknown,
            group_index: self.group_index,
            konst_colors,
            blend_dst: self.blend_destination_factor,
            blend_src: self.blend_source_factor,
            indirect_texture_slot: self.reflection_indirect_texture_slot_index,
            color_channels: self.color_channel_flags.clone(),
            tev_stages,
            texgens,
            uv_block_size: original.uv_block_size,
            uv_animation_count: original.uv_animation_count,
            uv_animations: original.uv_animations.clone(),
            unknown_uv_mode: original.unknown_uv_mode,
            trailing: original.trailing.clone(),
        };
        if original.unknown_uv_mode.is_none() {
            m.uv_animations = self
                .uv_animations
                .iter()
                .enumerate()
                .map(|(i, a)| a.to_words(game, &format!("uv_animations/{i}")))
                .collect::<Result<Vec<_>, _>>()?;
            // Keep an odd stored block size unless the animations changed.
            if m.uv_animations != original.uv_animations {
                m.refresh_uv_block();
            }
        }
        Ok(m)
    }
}

/// A material set in the conformance JSON shape.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MaterialSetInfo {
    /// Read-only.
    #[serde(default)]
    pub texture_file_ids: Vec<String>,
    #[serde(default)]
    pub material_count: usize,
    #[serde(default)]
    pub material_end_offsets: Vec<u32>,
    pub materials: Vec<MaterialInfo>,
}

impl MaterialSetInfo {
    pub fn new(set: &MaterialSet) -> Self {
        Self {
            texture_file_ids: set
                .texture_ids
                .iter()
                .map(|&id| asset_id_string(id.into(), false))
                .collect(),
            material_count: set.materials.len(),
            material_end_offsets: set.end_offsets(),
            materials: set
                .materials
                .iter()
                .map(|m| MaterialInfo::new(set, m))
                .collect(),
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Surfaces and the model

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct AabbInfo {
    pub min: [f64; 3],
    pub max: [f64; 3],
}

impl AabbInfo {
    pub(crate) fn new(b: &crate::formats::cmdl::Aabb) -> Self {
        Self {
            min: f64s(b.min),
            max: f64s(b.max),
        }
    }
}

/// One draw command of a surface's display list.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PrimitiveInfo {
    pub opcode: u8,
    pub primitive: String,
    pub vertex_format: u8,
    pub vertex_count: usize,
    pub offset_in_display_list: usize,
    /// Position, normal and TEX0 indices of each vertex.
    pub vertices_pos_nrm_uv0: Vec<(u16, Option<u16>, Option<u16>)>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SurfaceInfo {
    pub material_index: u32,
    pub center_point: [f64; 3],
    pub mantissa: u32,
    pub display_list_size: u32,
    pub display_list_size_bits_0_30: u32,
    pub normal_hint: bool,
    pub extra_data_size: usize,
    pub surface_normal: [f64; 3],
    pub mp2_unknown: Option<[u16; 2]>,
    pub header_padded_size: usize,
    pub aabb: Option<AabbInfo>,
    pub stored_aabb: bool,
    pub vertex_attribute_flags: u32,
    pub tex0_array: String,
    pub primitive_count: usize,
    pub vertex_refs: usize,
    pub unique_vertices: usize,
    pub primitives: Vec<PrimitiveInfo>,
    pub triangles_pos: Vec<[u16; 3]>,
    pub triangle_count: usize,
    pub line_count: usize,
    pub point_count: usize,
    pub padding_bytes: usize,
    pub error: Option<String>,
}

impl SurfaceInfo {
    fn new(cmdl: &Cmdl, s: &Surface) -> Self {
        let mesh = &s.mesh;
        let primitives = mesh
            .primitives
            .iter()
            .map(|p| PrimitiveInfo {
                opcode: p.opcode,
                primitive: p.kind.name().into(),
                vertex_format: p.vertex_format,
                vertex_count: p.vertices.len(),
                offset_in_display_list: p.offset,
                vertices_pos_nrm_uv0: p
                    .vertices
                    .iter()
                    .map(|&i| {
                        let v = &mesh.vertices[i as usize];
                        (v.position, v.normal, v.tex[0])
                    })
                    .collect(),
            })
            .collect();
        let head = s.header_size() + s.extra_data.len();
        Self {
            material_index: s.material_index,
            center_point: f64s(s.center),
            mantissa: s.display_list_word >> 16,
            display_list_size: s.display_list_word & 0xFFFF,
            display_list_size_bits_0_30: s.display_list_size(),
            normal_hint: s.normal_hint(),
            extra_data_size: s.extra_data.len(),
            surface_normal: f64s(s.normal),
            mp2_unknown: s.mp2_unknown,
            header_padded_size: head.next_multiple_of(32),
            aabb: cmdl.surface_aabb(s).map(|b| AabbInfo::new(&b)),
            stored_aabb: s.stored_aabb().is_some(),
            vertex_attribute_flags: mesh.layout.attributes.0,
            tex0_array: match mesh.layout.tex0_source {
                UvSource::Float => "float",
                UvSource::Short => "short",
            }
            .into(),
            primitive_count: mesh.primitives.len(),
            vertex_refs: mesh.vertex_ref_count(),
            unique_vertices: mesh.vertices.len(),
            primitives,
            triangles_pos: mesh.triangle_positions(),
            triangle_count: mesh.triangles.len(),
            line_count: mesh.lines.len(),
            point_count: mesh.points.len(),
            padding_bytes: mesh.padding_bytes,
            error: mesh.error.as_ref().map(|e| e.to_string()),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DataSectionInfo {
    pub index: usize,
    pub name: String,
    pub offset: usize,
    pub size: usize,
}

impl DataSectionInfo {
    /// Every data section of a model, in file order.
    pub(crate) fn all(cmdl: &Cmdl) -> Vec<Self> {
        cmdl.data_sections()
            .into_iter()
            .map(|s| Self {
                index: s.index,
                name: s.name,
                offset: s.offset,
                size: s.size,
            })
            .collect()
    }
}

/// Array lengths by section size.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ArrayCountsInfo {
    pub positions: usize,
    pub normals: usize,
    pub colors: usize,
    pub uvs: usize,
    pub lightmap_uvs: usize,
}

/// The whole model in the conformance JSON shape (every array element by section size).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct CmdlInfo {
    pub file: String,
    pub size: usize,
    pub format: String,
    pub game: String,
    pub magic: u32,
    pub version: u32,
    pub flags: u32,
    pub aabb: AabbInfo,
    pub data_section_count: usize,
    pub material_set_count: usize,
    pub data_sections: Vec<DataSectionInfo>,
    pub material_sets: Vec<MaterialSetInfo>,
    pub material_counts: Vec<usize>,
    pub array_counts: ArrayCountsInfo,
    pub short_normals: bool,
    pub positions: Vec<[f64; 3]>,
    pub normals: Vec<[f64; 3]>,
    pub colors: Vec<[u8; 4]>,
    pub uvs: Vec<[f64; 2]>,
    pub lightmap_uvs: Option<Vec<[f64; 2]>>,
    pub surface_count: usize,
    pub surface_end_offsets: Vec<u32>,
    pub surfaces: Vec<SurfaceInfo>,
    pub triangles: usize,
    pub trailing_bytes: usize,
    pub warnings: Vec<String>,
}

impl CmdlInfo {
    pub fn new(cmdl: &Cmdl, label: &str, size: usize) -> Self {
        let counts = cmdl.array_counts();
        let sections = cmdl.data_sections();
        Self {
            file: label.into(),
            size,
            format: "CMDL".into(),
            game: game_name(cmdl.game()).into(),
            magic: crate::formats::cmdl::MAGIC,
            version: cmdl.version,
            flags: cmdl.effective_flags(),
            aabb: AabbInfo::new(&cmdl.aabb),
            data_section_count: sections.len(),
            material_set_count: cmdl.material_sets.len(),
            data_sections: DataSectionInfo::all(cmdl),
            material_sets: cmdl
                .material_sets
                .iter()
                .map(MaterialSetInfo::new)
                .collect(),
            material_counts: cmdl
                .material_sets
                .iter()
                .map(|s| s.materials.len())
                .collect(),
            array_counts: ArrayCountsInfo {
                positions: counts.positions,
                normals: counts.normals,
                colors: counts.colors,
                uvs: counts.uvs,
                lightmap_uvs: counts.short_uvs,
            },
            short_normals: matches!(cmdl.normals, Normals::Short(_)),
            positions: cmdl.positions.values.iter().map(|p| f64s(*p)).collect(),
            normals: cmdl.normals_f32().into_iter().map(f64s).collect(),
            colors: cmdl.colors.values.clone(),
            uvs: cmdl.uvs.values.iter().map(|uv| f64s(*uv)).collect(),
            lightmap_uvs: cmdl
                .short_uvs
                .as_ref()
                .map(|_| cmdl.short_uvs_f32().into_iter().map(f64s).collect()),
            surface_count: cmdl.surfaces.len(),
            surface_end_offsets: cmdl.surface_end_offsets.clone(),
            surfaces: cmdl
                .surfaces
                .iter()
                .map(|s| SurfaceInfo::new(cmdl, s))
                .collect(),
            triangles: cmdl.triangle_count(),
            trailing_bytes: cmdl.trailing.len(),
            warnings: cmdl.warnings.clone(),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::testing::sample_material as sample;

    #[test]
    fn material_round_trips_through_the_schema() {
        let mut m = sample();
        m.flags = m.effective_flags();
        // Unused bits and an invalid input field survive the trip.
        m.tev_stages[0].color_combine |= 0x8000;
        m.tev_stages[0].color_inputs =
            m.tev_stages[0].color_inputs & !(31 << 15) | 17 << 15 | 1 << 25;
        m.texgens[0] |= 1 << 30;
        let set = MaterialSet {
            game: Game::Mp1,
            texture_ids: vec![7],
            materials: vec![m.clone()],
            padding: vec![],
        };
        let info = MaterialInfo::new(&set, &m);
        assert_eq!(info.tev_stages[0].color_inputs[3], "INVALID(17)");
        let json = serde_json::to_value(&info).unwrap();
        let back: MaterialInfo = serde_json::from_value(json).unwrap();
        assert_eq!(back.to_material(&m, Game::Mp1).unwrap(), m);
    }

    #[test]
    fn out_of_range_fields_name_their_path() {
        let m = sample();
        let set = MaterialSet {
            game: Game::Mp1,
            texture_ids: vec![7],
            materials: vec![m.clone()],
            padding: vec![],
        };
        let mut info = MaterialInfo::new(&set, &m);
        info.tev_stages[0].alpha_op.out_reg = 4;
        let e = info.to_material(&m, Game::Mp1).unwrap_err();
        assert_eq!(e.field, "tev_stages/0/alpha_op/out_reg");
        let mut info = MaterialInfo::new(&set, &m);
        info.tev_stages[0].color_inputs[1] = "TEXX".into();
        let e = info.to_material(&m, Game::Mp1).unwrap_err();
        assert_eq!(e.field, "tev_stages/0/color_inputs/1");
        let mut info = MaterialInfo::new(&set, &m);
        info.uv_animations[0].parameters.pop();
        let e = info.to_material(&m, Game::Mp1).unwrap_err();
        assert_eq!(e.field, "uv_animations/0/parameters");
    }
}
