//! Prime material sets (MP1 and MP2), shared by CMDL models and MREA world geometry
//! (`formats.md` §3).
//!
//! Two views of one material:
//! - [`Material`] keeps every word exactly as stored (including unknown fields and bytes the
//!   parser could not interpret), so [`MaterialSet::to_bytes`] reproduces the section byte for
//!   byte;
//! - [`Material::to_gx`] gives the typed [`gx::Material`] that the CPU reference and the WGSL
//!   generator consume.
//!
//! Building from gx-level values goes the other way: [`Material::from_gx`] or the chainable
//! [`MaterialBuilder`].

use std::fmt;

use serde::Serialize;

use super::Game;
use super::error::{ErrorKind, FormatError, Result};
use super::reader::{Reader, Writer};
use crate::gx;

/// Adds `prefix.` in front of the field of an error, lazily (only on the error path).
pub(crate) trait Within<T> {
    fn within(self, prefix: impl FnOnce() -> String) -> Result<T>;
}

impl<T> Within<T> for Result<T> {
    fn within(self, prefix: impl FnOnce() -> String) -> Result<T> {
        self.map_err(|mut e| {
            e.field = format!("{}.{}", prefix(), e.field);
            e
        })
    }
}

/// Formats a non-fatal finding the way [`FormatError`] displays, so warnings and errors read alike.
pub(crate) fn warning(file: &str, field: &str, offset: u64, message: impl fmt::Display) -> String {
    format!("{file}: {field} at byte offset {offset:#x}: {message}")
}

// ------------------------------------------------------------------------------------------------
// Options

/// Switches for the places where sources disagree (`formats.md` §3.3, §11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MaterialOptions {
    /// Material flag bit that makes TEX0 read the short-UV array. Default 0x2000, alt 0x1000.
    pub short_uv_flag: u32,
    /// Report §3.12 validation failures as warnings instead of errors (for inspecting broken
    /// files; [`Material::to_gx`] may then fail for the offending materials).
    pub lenient: bool,
}

/// Material flag bits that pick a vertex array for the surfaces' display lists: TEX0's
/// short-UV array under either [`MaterialOptions::short_uv_flag`]. With the vertex attribute
/// word they decide what geometry the same list bytes decode to.
pub const VERTEX_ARRAY_FLAGS: u32 = gx::flags::SHORT_UV | gx::flags::SHORT_UV_ALT;

impl Default for MaterialOptions {
    fn default() -> Self {
        Self {
            short_uv_flag: gx::flags::SHORT_UV,
            lenient: false,
        }
    }
}

// ------------------------------------------------------------------------------------------------
// Vertex attribute word

/// How one vertex attribute is sent in display lists (2-bit field of the vertex attribute
/// word, `formats.md` §3.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AttrFormat {
    None,
    /// Direct data: legal GX, never used by Retro for these attributes; rejected in surfaces.
    Direct,
    Index8,
    Index16,
}

impl AttrFormat {
    pub fn from_bits(v: u32) -> Self {
        [Self::None, Self::Direct, Self::Index8, Self::Index16][(v & 3) as usize]
    }
    pub fn bits(self) -> u32 {
        self as u32
    }
    /// Bytes one index takes in a display list (0 for none; direct data has no fixed size).
    pub fn index_size(self) -> usize {
        match self {
            Self::None | Self::Direct => 0,
            Self::Index8 => 1,
            Self::Index16 => 2,
        }
    }
    pub fn is_present(self) -> bool {
        self != Self::None
    }
    pub fn name(self) -> &'static str {
        ["none", "direct", "index8", "index16"][self as usize]
    }
}

/// The material's vertex attribute word: which attributes each display-list vertex carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(transparent)]
pub struct VertexAttributes(pub u32);

impl VertexAttributes {
    pub const POSITION: usize = 0;
    pub const NORMAL: usize = 1;
    pub const COLOR0: usize = 2;
    pub const COLOR1: usize = 3;
    /// TEX0; TEXn is `TEX0 + n` (n < 8).
    pub const TEX0: usize = 4;
    /// Attribute names in GX order (index = attribute number above).
    pub const NAMES: [&'static str; 12] = [
        "position", "normal", "color0", "color1", "tex0", "tex1", "tex2", "tex3", "tex4", "tex5",
        "tex6", "tex7",
    ];
    /// Matrix-index byte names (bit 24 + i).
    pub const MATRIX_INDEX_NAMES: [&'static str; 8] = [
        "pnmtxidx",
        "tex0mtxidx",
        "tex1mtxidx",
        "tex2mtxidx",
        "tex3mtxidx",
        "tex4mtxidx",
        "tex5mtxidx",
        "tex6mtxidx",
    ];

    /// Format of attribute `attr` (0 position … 11 TEX7).
    pub fn format(self, attr: usize) -> AttrFormat {
        AttrFormat::from_bits(self.0 >> (2 * attr))
    }
    /// Returns a copy with attribute `attr` set to `format`.
    pub fn with(self, attr: usize, format: AttrFormat) -> Self {
        let shift = 2 * attr;
        Self(self.0 & !(3 << shift) | format.bits() << shift)
    }
    /// Whether matrix-index byte `i` is sent (0 PNMTXIDX, 1–7 TEX0MTXIDX–TEX6MTXIDX).
    pub fn matrix_index(self, i: usize) -> bool {
        self.0 >> (24 + i) & 1 != 0
    }
    pub fn with_matrix_index(self, i: usize, on: bool) -> Self {
        Self(self.0 & !(1 << (24 + i)) | (on as u32) << (24 + i))
    }
    /// The 8 matrix-index bits as a mask (bit i = byte i).
    pub fn matrix_index_mask(self) -> u8 {
        (self.0 >> 24) as u8
    }
}

// ------------------------------------------------------------------------------------------------
// Raw pieces

/// One TEV stage as stored: the 20-byte stage plus its 4-byte order entry (`formats.md` §3.6–3.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct TevStageWords {
    pub color_inputs: u32,
    pub alpha_inputs: u32,
    pub color_combine: u32,
    pub alpha_combine: u32,
    /// Byte 0x10 of the stage (padding, kept verbatim).
    pub padding: u8,
    pub kasel: u8,
    pub kcsel: u8,
    pub raster: u8,
    /// First two bytes of the order entry (padding, kept verbatim).
    pub order_padding: u16,
    /// Material texture slot, 0xFF = none.
    pub tex_map: u8,
    /// Texgen output index, 0xFF = none.
    pub tex_coord: u8,
}

impl TevStageWords {
    /// Decodes into the GX stage; None when an input field or the raster byte is out of range.
    pub fn to_gx(&self) -> Option<gx::TevStage> {
        gx::TevStage::from_words(
            self.color_inputs,
            self.alpha_inputs,
            self.color_combine,
            self.alpha_combine,
            self.kasel,
            self.kcsel,
            self.raster,
            self.tex_map,
            self.tex_coord,
        )
    }

    /// Encodes a GX stage over this stored one: its padding and the word bits the GX stage
    /// does not hold are kept (an edit changes only the fields it edits).
    pub fn with_gx(&self, s: &gx::TevStage) -> Self {
        const INPUTS: u32 = 0xF_FFFF;
        let mut w = Self::from_gx(s);
        w.padding = self.padding;
        w.order_padding = self.order_padding;
        w.color_inputs |= self.color_inputs & !INPUTS;
        w.alpha_inputs |= self.alpha_inputs & !INPUTS;
        w.color_combine |= gx::TevCombine::unused_bits(self.color_combine);
        w.alpha_combine |= gx::TevCombine::unused_bits(self.alpha_combine);
        w
    }

    /// Encodes a GX stage (padding bytes zero; swap tables are not stored by Prime).
    pub fn from_gx(s: &gx::TevStage) -> Self {
        Self {
            color_inputs: gx::TevStage::color_inputs_word(s.color_in),
            alpha_inputs: gx::TevStage::alpha_inputs_word(s.alpha_in),
            color_combine: s.color_op.to_word(),
            alpha_combine: s.alpha_op.to_word(),
            padding: 0,
            kasel: s.kasel.0,
            kcsel: s.kcsel.0,
            raster: s.raster.to_byte(),
            order_padding: 0,
            tex_map: s.tex_map.unwrap_or(0xFF),
            tex_coord: s.tex_coord.unwrap_or(0xFF),
        }
    }
}

/// One UV animation as stored: mode word and parameter words (`formats.md` §3.9).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct UvAnimationWords {
    pub mode: u32,
    pub params: Vec<u32>,
}

impl UvAnimationWords {
    pub fn to_gx(&self) -> Option<gx::UvAnimation> {
        gx::UvAnimation::from_words(self.mode, &self.params)
    }
    pub fn from_gx(a: &gx::UvAnimation) -> Self {
        Self {
            mode: a.mode(),
            params: a.param_words(),
        }
    }
    /// Bytes this animation takes in the block.
    pub fn byte_size(&self) -> usize {
        4 + 4 * self.params.len()
    }
}

/// Which UV-animation modes a game knows (MP1 has no mode 8).
fn uv_param_count(game: Game, mode: u32) -> Option<usize> {
    if mode == 8 && game == Game::Mp1 {
        return None;
    }
    gx::UvAnimation::param_count(mode)
}

// ------------------------------------------------------------------------------------------------
// Material

/// One material exactly as stored (`formats.md` §3.2). Writing it back reproduces its bytes.
///
/// Presence of the optional blocks follows the data: `konst_colors` Some ⇔ flag 0x8,
/// `indirect_texture_slot` Some ⇔ flag 0x400 (the writer sets those two flag bits from the
/// fields, so they cannot disagree).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Material {
    pub flags: u32,
    /// Indices into the set's texture list; material texture k is GX texture map k.
    pub texture_indices: Vec<u32>,
    pub vertex_attributes: VertexAttributes,
    /// The two unknown MP2 words after the vertex attribute word (None in MP1 files).
    pub mp2_unknown: Option<[u32; 2]>,
    pub group_index: u32,
    /// Konst colours, RGBA8 with R in the top byte (present iff flag 0x8).
    pub konst_colors: Option<Vec<u32>>,
    /// GX blend factor, destination (stored first).
    pub blend_dst: u16,
    /// GX blend factor, source.
    pub blend_src: u16,
    /// Material texture slot warping the reflection (present iff flag 0x400).
    pub indirect_texture_slot: Option<u32>,
    /// Colour-channel words; only the first is used (COLOR0).
    pub color_channels: Vec<u32>,
    pub tev_stages: Vec<TevStageWords>,
    pub texgens: Vec<u32>,
    /// UV-animation block size as stored (counts the count word and the animations).
    pub uv_block_size: u32,
    /// Animation count as stored (may exceed `uv_animations.len()` after an unknown mode).
    pub uv_animation_count: u32,
    pub uv_animations: Vec<UvAnimationWords>,
    /// Set when animation processing stopped at a mode the game does not know: that mode
    /// word and everything after it are in `trailing`.
    pub unknown_uv_mode: Option<u32>,
    /// Bytes between the last field read and the material's end offset, kept verbatim.
    pub trailing: Vec<u8>,
}

/// A §3.12 validation finding, located relative to the material's first byte.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MaterialProblem {
    /// Field path inside the material, e.g. `tev_stage[1].color_inputs`.
    pub field: String,
    /// Byte offset of the field from the start of the material.
    pub offset: usize,
    pub message: String,
    /// Errors make the material unusable (or break GX limits); warnings are oddities.
    pub is_error: bool,
}

impl fmt::Display for MaterialProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} at material byte {:#x}: {}",
            self.field, self.offset, self.message
        )
    }
}

impl std::error::Error for MaterialProblem {}

/// Byte offsets of the variable-position fields of a material (for locating problems).
struct FieldOffsets {
    texture_indices: usize,
    konst: usize,
    blend: usize,
    indirect: usize,
    channels: usize,
    stage_count: usize,
    stages: usize,
    orders: usize,
    texgen_count: usize,
    texgens: usize,
    uv_block: usize,
}

impl Material {
    /// Reads one material from `r` (a reader over exactly the material's byte range).
    pub fn parse(
        r: &mut Reader,
        game: Game,
        label: &str,
        warnings: &mut Vec<String>,
    ) -> Result<Material> {
        let flags = r.u32("flags")?;
        let n = r.count("texture_count", 4)?;
        let texture_indices = r.u32_vec("texture_indices", n)?;
        let vertex_attributes = VertexAttributes(r.u32("vertex_attribute_flags")?);
        let mp2_unknown = if game == Game::Mp1 {
            None
        } else {
            Some([r.u32("mp2_unknown")?, r.u32("mp2_unknown")?])
        };
        let group_index = r.u32("group_index")?;
        let konst_colors = if flags & gx::flags::KONST != 0 {
            let k = r.count("konst_count", 4)?;
            Some(r.u32_vec("konst_colors", k)?)
        } else {
            None
        };
        let blend_dst = r.u16("blend_destination_factor")?;
        let blend_src = r.u16("blend_source_factor")?;
        let indirect_texture_slot = if flags & gx::flags::INDIRECT_SLOT != 0 {
            Some(r.u32("indirect_texture_slot")?)
        } else {
            None
        };
        let c = r.count("color_channel_count", 4)?;
        let color_channels = r.u32_vec("color_channel_flags", c)?;
        // 20-byte stage plus 4-byte order entry per stage.
        let s = r.count("tev_stage_count", 24)?;
        let mut tev_stages = Vec::with_capacity(s);
        for i in 0..s {
            let mut read = || -> Result<TevStageWords> {
                Ok(TevStageWords {
                    color_inputs: r.u32("color_inputs")?,
                    alpha_inputs: r.u32("alpha_inputs")?,
                    color_combine: r.u32("color_combine")?,
                    alpha_combine: r.u32("alpha_combine")?,
                    padding: r.u8("padding")?,
                    kasel: r.u8("konst_alpha_input")?,
                    kcsel: r.u8("konst_color_input")?,
                    raster: r.u8("rasterized_color_input")?,
                    order_padding: 0,
                    tex_map: 0xFF,
                    tex_coord: 0xFF,
                })
            };
            tev_stages.push(read().within(|| format!("tev_stage[{i}]"))?);
        }
        for (i, stage) in tev_stages.iter_mut().enumerate() {
            let mut read = || -> Result<()> {
                stage.order_padding = r.u16("padding")?;
                stage.tex_map = r.u8("texture_index")?;
                stage.tex_coord = r.u8("tex_coord_index")?;
                Ok(())
            };
            read().within(|| format!("tev_order[{i}]"))?;
        }
        let g = r.count("texgen_count", 4)?;
        let texgens = r.u32_vec("texgens", g)?;
        let uv_block_size = r.u32("uv_animation_block_size")?;
        let uv_count_raw = r.u32("uv_animation_count")?;
        r.check_count("uv_animation_count", uv_count_raw.into(), 4)
            .map_err(|e| FormatError {
                offset: e.offset - 4,
                ..e
            })?;
        let mut uv_animations = Vec::with_capacity(uv_count_raw as usize);
        let mut unknown_uv_mode = None;
        for i in 0..uv_count_raw as usize {
            let at = r.pos();
            let mode = r.u32("mode").within(|| format!("uv_animation[{i}]"))?;
            let Some(p) = uv_param_count(game, mode) else {
                // The game cannot know the size of an unknown mode, so it stops here; so do we.
                warnings.push(warning(
                    r.file(),
                    &format!("{label}.uv_animation[{i}].mode"),
                    r.abs_pos() - 4,
                    format!(
                        "unknown UV-animation mode {mode}: the remaining {} animation(s) are not processed (as in the game)",
                        uv_count_raw as usize - i
                    ),
                ));
                unknown_uv_mode = Some(mode);
                r.seek("uv_animation", at)?;
                break;
            };
            let params = r
                .u32_vec("parameters", p)
                .within(|| format!("uv_animation[{i}]"))?;
            uv_animations.push(UvAnimationWords { mode, params });
        }
        let trailing = r.rest().to_vec();
        r.seek("end", r.len())?;
        Ok(Material {
            flags,
            texture_indices,
            vertex_attributes,
            mp2_unknown,
            group_index,
            konst_colors,
            blend_dst,
            blend_src,
            indirect_texture_slot,
            color_channels,
            tev_stages,
            texgens,
            uv_block_size,
            uv_animation_count: uv_count_raw,
            uv_animations,
            unknown_uv_mode,
            trailing,
        })
    }

    /// Flags as written: bits 0x8 and 0x400 follow the konst and indirect-slot fields.
    pub fn effective_flags(&self) -> u32 {
        let mut f = self.flags & !(gx::flags::KONST | gx::flags::INDIRECT_SLOT);
        if self.konst_colors.is_some() {
            f |= gx::flags::KONST;
        }
        if self.indirect_texture_slot.is_some() {
            f |= gx::flags::INDIRECT_SLOT;
        }
        f
    }

    /// Appends the material's bytes. `game` decides whether the MP2 words are written
    /// (zeros when `mp2_unknown` is None).
    pub fn write(&self, w: &mut Writer, game: Game) {
        w.u32(self.effective_flags());
        w.u32(self.texture_indices.len() as u32);
        self.texture_indices.iter().for_each(|&v| w.u32(v));
        w.u32(self.vertex_attributes.0);
        if game != Game::Mp1 {
            let [a, b] = self.mp2_unknown.unwrap_or([0, 0]);
            w.u32(a);
            w.u32(b);
        }
        w.u32(self.group_index);
        if let Some(k) = &self.konst_colors {
            w.u32(k.len() as u32);
            k.iter().for_each(|&v| w.u32(v));
        }
        w.u16(self.blend_dst);
        w.u16(self.blend_src);
        if let Some(slot) = self.indirect_texture_slot {
            w.u32(slot);
        }
        w.u32(self.color_channels.len() as u32);
        self.color_channels.iter().for_each(|&v| w.u32(v));
        w.u32(self.tev_stages.len() as u32);
        for s in &self.tev_stages {
            w.u32(s.color_inputs);
            w.u32(s.alpha_inputs);
            w.u32(s.color_combine);
            w.u32(s.alpha_combine);
            w.u8(s.padding);
            w.u8(s.kasel);
            w.u8(s.kcsel);
            w.u8(s.raster);
        }
        for s in &self.tev_stages {
            w.u16(s.order_padding);
            w.u8(s.tex_map);
            w.u8(s.tex_coord);
        }
        w.u32(self.texgens.len() as u32);
        self.texgens.iter().for_each(|&v| w.u32(v));
        w.u32(self.uv_block_size);
        w.u32(self.uv_animation_count);
        for a in &self.uv_animations {
            w.u32(a.mode);
            a.params.iter().for_each(|&v| w.u32(v));
        }
        w.bytes(&self.trailing);
    }

    /// The material's bytes on their own.
    pub fn to_bytes(&self, game: Game) -> Vec<u8> {
        let mut w = Writer::new();
        self.write(&mut w, game);
        w.into_inner()
    }

    /// UV block size implied by the animations (what a correct file stores).
    pub fn expected_uv_block_size(&self) -> u32 {
        (4 + self
            .uv_animations
            .iter()
            .map(|a| a.byte_size())
            .sum::<usize>()) as u32
    }

    /// Recomputes the UV block size and count from `uv_animations` (after editing them).
    pub fn refresh_uv_block(&mut self) {
        if self.unknown_uv_mode.is_none() {
            self.uv_block_size = self.expected_uv_block_size();
            self.uv_animation_count = self.uv_animations.len() as u32;
        }
    }

    /// Whether TEX0 reads the short-UV array (given the model has one), per `options`.
    pub fn uses_short_uvs(&self, options: &MaterialOptions) -> bool {
        self.flags & options.short_uv_flag != 0
    }

    /// Konst colours as RGBA bytes.
    pub fn konst_rgba(&self) -> Vec<[u8; 4]> {
        self.konst_colors
            .iter()
            .flatten()
            .map(|c| c.to_be_bytes())
            .collect()
    }

    fn offsets(&self, game: Game) -> FieldOffsets {
        let texture_indices = 8;
        let mut o = texture_indices + 4 * self.texture_indices.len() + 4;
        if game != Game::Mp1 {
            o += 8;
        }
        o += 4; // group index
        let konst = o;
        if let Some(k) = &self.konst_colors {
            o += 4 + 4 * k.len();
        }
        let blend = o;
        o += 4;
        let indirect = o;
        if self.indirect_texture_slot.is_some() {
            o += 4;
        }
        let channels = o;
        o += 4 + 4 * self.color_channels.len();
        let stage_count = o;
        let stages = o + 4;
        let orders = stages + 20 * self.tev_stages.len();
        let texgen_count = orders + 4 * self.tev_stages.len();
        let texgens = texgen_count + 4;
        let uv_block = texgens + 4 * self.texgens.len();
        FieldOffsets {
            texture_indices,
            konst,
            blend,
            indirect,
            channels,
            stage_count,
            stages,
            orders,
            texgen_count,
            texgens,
            uv_block,
        }
    }

    /// §3.12 checks that need only the material (plus the set's texture count, when known).
    pub fn problems(&self, game: Game, set_texture_count: Option<usize>) -> Vec<MaterialProblem> {
        let mut out = Vec::new();
        let o = self.offsets(game);
        let mut err = |field: String, offset: usize, message: String| {
            out.push(MaterialProblem {
                field,
                offset,
                message,
                is_error: true,
            })
        };
        let n = self.texture_indices.len();
        if n > 8 {
            err(
                "texture_count".into(),
                4,
                format!("{n} textures exceed the 8 GX texture maps"),
            );
        }
        if let Some(t) = set_texture_count {
            for (i, &ix) in self.texture_indices.iter().enumerate() {
                if ix as usize >= t {
                    err(
                        format!("texture_indices[{i}]"),
                        o.texture_indices + 4 * i,
                        format!("texture index {ix} ≥ the set's {t} textures"),
                    );
                }
            }
        }
        for (field, offset, v) in [
            ("blend_destination_factor", o.blend, self.blend_dst),
            ("blend_source_factor", o.blend + 2, self.blend_src),
        ] {
            if gx::BlendFactor::from_u16(v).is_none() {
                err(field.into(), offset, format!("blend factor {v} is not 0–7"));
            }
        }
        let s = self.tev_stages.len();
        if !(1..=16).contains(&s) {
            err(
                "tev_stage_count".into(),
                o.stage_count,
                format!("{s} TEV stages (GX needs 1–16)"),
            );
        }
        let g = self.texgens.len();
        for (i, st) in self.tev_stages.iter().enumerate() {
            let at = o.stages + 20 * i;
            if gx::TevStage::color_inputs_from_word(st.color_inputs).is_none() {
                err(
                    format!("tev_stage[{i}].color_inputs"),
                    at,
                    format!(
                        "colour input word {:#x} has a field above 15",
                        st.color_inputs
                    ),
                );
            }
            if gx::TevStage::alpha_inputs_from_word(st.alpha_inputs).is_none() {
                err(
                    format!("tev_stage[{i}].alpha_inputs"),
                    at + 4,
                    format!(
                        "alpha input word {:#x} has a field above 7",
                        st.alpha_inputs
                    ),
                );
            }
            if gx::RasterChannel::from_byte(st.raster).is_none() {
                err(
                    format!("tev_stage[{i}].rasterized_color_input"),
                    at + 19,
                    format!(
                        "raster channel {} is not in the GXChannelID table",
                        st.raster
                    ),
                );
            }
            let ord = o.orders + 4 * i;
            if st.tex_map != 0xFF && st.tex_map as usize >= n {
                err(
                    format!("tev_order[{i}].texture_index"),
                    ord + 2,
                    format!("texture slot {} ≥ the material's {n} textures", st.tex_map),
                );
            }
            if st.tex_coord != 0xFF && st.tex_coord as usize >= g {
                err(
                    format!("tev_order[{i}].tex_coord_index"),
                    ord + 3,
                    format!("texcoord {} ≥ the material's {g} texgens", st.tex_coord),
                );
            }
        }
        if g > 8 {
            err(
                "texgen_count".into(),
                o.texgen_count,
                format!("{g} texgens exceed the 8 GX texture coordinates"),
            );
        }
        for (i, &w) in self.texgens.iter().enumerate() {
            if gx::TexGen::from_word(w).is_none() {
                err(
                    format!("texgens[{i}]"),
                    o.texgens + 4 * i,
                    format!("texgen word {w:#x} has an invalid type or source"),
                );
            }
        }
        // Warnings.
        let mut warn = |field: String, offset: usize, message: String| {
            out.push(MaterialProblem {
                field,
                offset,
                message,
                is_error: false,
            })
        };
        if let Some(k) = &self.konst_colors
            && k.len() > 4
        {
            warn(
                "konst_count".into(),
                o.konst,
                format!(
                    "{} konst colours; GX has K0–K3, the extras are kept but unused",
                    k.len()
                ),
            );
        }
        if self.color_channels.len() > 2 {
            warn(
                "color_channel_count".into(),
                o.channels,
                format!("{} colour channels; GX has 2", self.color_channels.len()),
            );
        }
        if let Some(slot) = self.indirect_texture_slot
            && slot as usize >= n
        {
            warn(
                "indirect_texture_slot".into(),
                o.indirect,
                format!("indirect texture slot {slot} ≥ the material's {n} textures"),
            );
        }
        for (i, st) in self.tev_stages.iter().enumerate() {
            let at = o.stages + 20 * i;
            for (name, off, word) in [
                ("color_combine", 8, st.color_combine),
                ("alpha_combine", 12, st.alpha_combine),
            ] {
                if gx::TevCombine::unused_bits(word) != 0 {
                    warn(
                        format!("tev_stage[{i}].{name}"),
                        at + off,
                        format!("combine word {word:#x} has bits set above bit 10 (ignored)"),
                    );
                }
            }
        }
        if self.unknown_uv_mode.is_none() && self.uv_block_size != self.expected_uv_block_size() {
            warn(
                "uv_animation_block_size".into(),
                o.uv_block,
                format!(
                    "block size {} does not match the {} bytes of the animations",
                    self.uv_block_size,
                    self.expected_uv_block_size()
                ),
            );
        }
        out
    }

    /// The typed GX view (`formats.md` §3, `gx.md` §7–8): stages, texgens, konsts, tevscope's
    /// default registers, COLOR0 control, blend (punchthrough forces ONE/ZERO and the alpha
    /// test), depth write (0x80), depth sorting (0x10) and UV animations.
    pub fn to_gx(&self) -> Result<gx::Material, MaterialProblem> {
        // The MP2 words are present exactly in MP2 materials; only the offsets depend on it.
        let game = if self.mp2_unknown.is_some() {
            Game::Mp2
        } else {
            Game::Mp1
        };
        if let Some(p) = self.problems(game, None).into_iter().find(|p| p.is_error) {
            return Err(p);
        }
        let problem = |field: String, message: &str| MaterialProblem {
            field,
            offset: 0,
            message: message.into(),
            is_error: true,
        };
        let stages = self
            .tev_stages
            .iter()
            .enumerate()
            .map(|(i, s)| {
                s.to_gx()
                    .ok_or_else(|| problem(format!("tev_stage[{i}]"), "invalid stage"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let texgens = self
            .texgens
            .iter()
            .enumerate()
            .map(|(i, &w)| {
                gx::TexGen::from_word(w)
                    .ok_or_else(|| problem(format!("texgens[{i}]"), "invalid texgen"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut konst = [[0u8; 4]; 4];
        let rgba = self.konst_rgba();
        for (k, c) in konst.iter_mut().zip(&rgba) {
            *k = *c;
        }
        let flags = self.effective_flags();
        let punch = flags & gx::flags::PUNCHTHROUGH != 0;
        let factor = |v: u16, field: &str| {
            gx::BlendFactor::from_u16(v).ok_or_else(|| problem(field.into(), "bad blend factor"))
        };
        let blend = if punch {
            gx::Blend::OPAQUE
        } else {
            gx::Blend {
                mode: gx::BlendMode::Blend,
                src: factor(self.blend_src, "blend_source_factor")?,
                dst: factor(self.blend_dst, "blend_destination_factor")?,
            }
        };
        let uv_animations = self
            .uv_animations
            .iter()
            .enumerate()
            .map(|(i, a)| {
                a.to_gx()
                    .ok_or_else(|| problem(format!("uv_animation[{i}]"), "unknown mode"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(gx::Material {
            stages,
            texgens,
            texture_count: self.texture_indices.len(),
            konst,
            konst_count: rgba.len().min(4),
            registers: gx::Material::DEFAULT_REGISTERS,
            color0: self
                .color_channels
                .first()
                .map(|&w| gx::ChannelControl::from_word(w)),
            channel_count: self.color_channels.len() as u32,
            channel_alpha: gx::ChannelAlpha::ENGINE,
            blend,
            alpha_test: if punch {
                gx::AlphaTest::PUNCHTHROUGH
            } else {
                gx::AlphaTest::ALWAYS
            },
            depth_write: flags & gx::flags::DEPTH_WRITE != 0,
            depth_sorted: flags & gx::flags::TRANSPARENT != 0,
            uv_animations,
            flags,
        })
    }

    /// Builds a file material from gx-level values. `texture_indices` are indices into the
    /// set's texture list (material texture k = GX map k). The flag bits that the GX values
    /// decide (konst 0x8, transparent 0x10, punchthrough 0x20, depth write 0x80) are set from
    /// them; other bits come from `m.flags`. Konst colours are written when `m.konst_count > 0`.
    pub fn from_gx(
        m: &gx::Material,
        texture_indices: Vec<u32>,
        vertex_attributes: VertexAttributes,
    ) -> Material {
        use gx::flags as f;
        let mut flags = m.flags & !(f::KONST | f::TRANSPARENT | f::PUNCHTHROUGH | f::DEPTH_WRITE);
        let punch = m.alpha_test == gx::AlphaTest::PUNCHTHROUGH;
        if punch {
            flags |= f::PUNCHTHROUGH;
        }
        if m.depth_write {
            flags |= f::DEPTH_WRITE;
        }
        if m.depth_sorted {
            flags |= f::TRANSPARENT;
        }
        let konst_colors = (m.konst_count > 0).then(|| {
            m.konst[..m.konst_count.min(4)]
                .iter()
                .map(|c| u32::from_be_bytes(*c))
                .collect()
        });
        let mut color_channels = Vec::new();
        if let Some(c) = m.color0 {
            color_channels.push(channel_word(&c));
            // A second word only matters as "channel count 2" (gx.md §10.2).
            for _ in 1..m.channel_count.max(1) {
                color_channels.push(channel_word(&c));
            }
        }
        let uv_animations: Vec<_> = m
            .uv_animations
            .iter()
            .map(UvAnimationWords::from_gx)
            .collect();
        let mut mat = Material {
            flags,
            texture_indices,
            vertex_attributes,
            mp2_unknown: None,
            group_index: 0,
            konst_colors,
            blend_dst: m.blend.dst as u16,
            blend_src: m.blend.src as u16,
            indirect_texture_slot: (m.flags & f::INDIRECT_SLOT != 0).then_some(0),
            color_channels,
            tev_stages: m.stages.iter().map(TevStageWords::from_gx).collect(),
            texgens: m.texgens.iter().map(|t| t.to_word()).collect(),
            uv_block_size: 0,
            uv_animation_count: 0,
            uv_animations,
            unknown_uv_mode: None,
            trailing: Vec::new(),
        };
        mat.refresh_uv_block();
        mat
    }
}

/// Encodes a colour-channel control as Prime's channel word (`formats.md` §3.5).
pub fn channel_word(c: &gx::ChannelControl) -> u32 {
    let src = |s: gx::ColorSrc| (s == gx::ColorSrc::Vertex) as u32;
    c.lighting as u32
        | src(c.ambient_src) << 1
        | src(c.material_src) << 2
        | (c.light_mask as u32) << 3
        | (match c.diffuse_fn {
            gx::DiffuseFn::None => 0,
            gx::DiffuseFn::Sign => 1,
            gx::DiffuseFn::Clamp => 2,
        }) << 11
        | (match c.attn_fn {
            gx::AttnFn::Spec => 0,
            gx::AttnFn::Spot => 1,
            gx::AttnFn::None => 2,
        }) << 13
}

// ------------------------------------------------------------------------------------------------
// Material set

/// A material set (`formats.md` §3.1): texture list and materials, plus the section's padding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MaterialSet {
    /// Decides the MP2 extra words.
    pub game: Game,
    /// TXTR asset IDs; material texture indices point into this list.
    pub texture_ids: Vec<u32>,
    pub materials: Vec<Material>,
    /// Bytes after the last material up to the end of the section (zero padding).
    pub padding: Vec<u8>,
}

impl MaterialSet {
    /// Reads a set from `r`, which spans exactly the set's section; the bytes after the last
    /// material are kept as padding. `label` prefixes error fields (e.g. `material_set[0]`).
    pub fn parse(
        r: &mut Reader,
        game: Game,
        options: &MaterialOptions,
        label: &str,
        warnings: &mut Vec<String>,
    ) -> Result<MaterialSet> {
        Self::parse_inner(r, game, options, label, warnings).within(|| label.to_string())
    }

    fn parse_inner(
        r: &mut Reader,
        game: Game,
        options: &MaterialOptions,
        label: &str,
        warnings: &mut Vec<String>,
    ) -> Result<MaterialSet> {
        let t = r.count("texture_count", 4)?;
        let texture_ids = r.u32_vec("texture_ids", t)?;
        let m = r.count("material_count", 4)?;
        let ends_at = r.pos();
        let ends = r.u32_vec("material_end_offsets", m)?;
        let start = r.pos();
        let available = r.len() - start;
        let mut materials = Vec::with_capacity(m);
        let mut prev = 0usize;
        for (i, &end) in ends.iter().enumerate() {
            let end = end as usize;
            if end < prev || end > available {
                return Err(r.err_at(
                    &format!("material_end_offsets[{i}]"),
                    ends_at + 4 * i,
                    ErrorKind::OutOfRange {
                        value: end as i64,
                        expected: format!(
                            "between the previous end {prev} and the {available} bytes of materials"
                        ),
                    },
                ));
            }
            let mut sub = r.slice("material", start + prev, end - prev)?;
            let mlabel = format!("{label}.material[{i}]");
            let mat = Material::parse(&mut sub, game, &mlabel, warnings)
                .within(|| format!("material[{i}]"))?;
            if !mat.trailing.is_empty() && mat.unknown_uv_mode.is_none() {
                warnings.push(warning(
                    r.file(),
                    &mlabel,
                    sub.abs_pos() - mat.trailing.len() as u64,
                    format!(
                        "material ends {} bytes before its end offset (bytes kept verbatim)",
                        mat.trailing.len()
                    ),
                ));
            }
            let base = sub.abs_pos() - (end - prev) as u64;
            for p in mat.problems(game, Some(t)) {
                let field = format!("material[{i}].{}", p.field);
                let offset = base + p.offset as u64;
                if p.is_error && !options.lenient {
                    return Err(FormatError::new(
                        r.file(),
                        field,
                        offset,
                        ErrorKind::Invalid(p.message),
                    ));
                }
                warnings.push(warning(
                    r.file(),
                    &format!("{label}.{field}"),
                    offset,
                    p.message,
                ));
            }
            materials.push(mat);
            prev = end;
        }
        r.seek("padding", start + prev)?;
        let padding = r.rest().to_vec();
        r.seek("end", r.len())?;
        Ok(MaterialSet {
            game,
            texture_ids,
            materials,
            padding,
        })
    }

    /// Parses a set from a standalone byte slice (a whole section).
    pub fn from_bytes(
        data: &[u8],
        file: &str,
        game: Game,
        options: &MaterialOptions,
    ) -> Result<(MaterialSet, Vec<String>)> {
        let mut warnings = Vec::new();
        let mut r = Reader::new(data, file);
        let set = Self::parse(&mut r, game, options, "material_set", &mut warnings)?;
        Ok((set, warnings))
    }

    /// Byte offset of each material from the start of the set section (as written, which for
    /// a parsed set is where it was read).
    pub fn material_offsets(&self) -> Vec<usize> {
        let mut at = 8 + 4 * self.texture_ids.len() + 4 * self.materials.len();
        self.materials
            .iter()
            .map(|m| {
                let start = at;
                at += m.to_bytes(self.game).len();
                start
            })
            .collect()
    }

    /// Material end offsets as written (relative to the first material).
    pub fn end_offsets(&self) -> Vec<u32> {
        let mut end = 0usize;
        self.materials
            .iter()
            .map(|m| {
                end += m.to_bytes(self.game).len();
                end as u32
            })
            .collect()
    }

    /// Appends the set (with its padding as stored).
    pub fn write(&self, w: &mut Writer) {
        w.u32(self.texture_ids.len() as u32);
        self.texture_ids.iter().for_each(|&v| w.u32(v));
        w.u32(self.materials.len() as u32);
        let bodies: Vec<Vec<u8>> = self
            .materials
            .iter()
            .map(|m| m.to_bytes(self.game))
            .collect();
        let mut end = 0usize;
        for b in &bodies {
            end += b.len();
            w.u32(end as u32);
        }
        bodies.iter().for_each(|b| w.bytes(b));
        w.bytes(&self.padding);
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        self.write(&mut w);
        w.into_inner()
    }

    /// Replaces the padding with zeros up to the next multiple of 32 (after edits).
    pub fn repad(&mut self) {
        self.padding.clear();
        let len = self.to_bytes().len();
        self.padding = vec![0; len.next_multiple_of(32) - len];
    }

    /// TXTR IDs bound to material `index`'s texture slots (None for an index outside the set).
    pub fn material_texture_ids(&self, index: usize) -> Vec<Option<u32>> {
        self.materials
            .get(index)
            .map(|m| {
                m.texture_indices
                    .iter()
                    .map(|&i| self.texture_ids.get(i as usize).copied())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Typed GX materials, one per material.
    pub fn gx_materials(&self) -> Result<Vec<gx::Material>, MaterialProblem> {
        self.materials.iter().map(Material::to_gx).collect()
    }
}

// ------------------------------------------------------------------------------------------------
// Builder

/// Chainable construction of a material from gx-level values.
///
/// ```
/// use tevscope::formats::material::MaterialBuilder;
/// // One texture modulated by the lit vertex colour; texture 0 of the set.
/// let m = MaterialBuilder::textured_lit(0).build();
/// assert_eq!(m.tev_stages.len(), 1);
/// ```
#[derive(Debug, Clone)]
pub struct MaterialBuilder {
    gx: gx::Material,
    texture_indices: Vec<u32>,
    vertex_attributes: VertexAttributes,
    group_index: u32,
    indirect_slot: Option<u32>,
}

impl Default for MaterialBuilder {
    fn default() -> Self {
        Self::new()
    }
}

impl MaterialBuilder {
    /// Opaque, depth-writing, no stages yet, lit COLOR0 (word 0x3001 semantics without the
    /// light mask), flag bits 0x3 set as in Retro's files.
    pub fn new() -> Self {
        Self {
            gx: gx::Material {
                stages: Vec::new(),
                texgens: Vec::new(),
                texture_count: 0,
                konst: [[0; 4]; 4],
                konst_count: 0,
                registers: gx::Material::DEFAULT_REGISTERS,
                color0: Some(gx::ChannelControl::from_word(0x3001)),
                channel_count: 1,
                channel_alpha: gx::ChannelAlpha::ENGINE,
                blend: gx::Blend::OPAQUE,
                alpha_test: gx::AlphaTest::ALWAYS,
                depth_write: true,
                depth_sorted: false,
                uv_animations: Vec::new(),
                flags: 0x3,
            },
            texture_indices: Vec::new(),
            vertex_attributes: VertexAttributes(0),
            group_index: 0,
            indirect_slot: None,
        }
    }

    /// One stage: TEXC × RASC (and TEXA × RASA), texture slot 0 from `set_texture` through an
    /// identity texgen on TEX0, lit.
    pub fn textured_lit(set_texture: u32) -> Self {
        use gx::{AlphaInput as A, ColorInput as C};
        let mut b = Self::new();
        let slot = b.texture(set_texture);
        let tc = b.texgen(gx::TexGen {
            kind: gx::TexGenType::Mtx2x4,
            source: gx::TexGenSrc::Tex(0),
            gx_tex_mtx: gx::GX_IDENTITY,
            normalize: false,
            gx_post_mtx: gx::GX_PTIDENTITY,
        });
        b.stage(gx::TevStage {
            color_in: [C::Zero, C::Texc, C::Rasc, C::Zero],
            alpha_in: [A::Zero, A::Texa, A::Rasa, A::Zero],
            color_op: gx::TevCombine::DEFAULT,
            alpha_op: gx::TevCombine::DEFAULT,
            kcsel: gx::KonstSel(0x0C),
            kasel: gx::KonstSel(0x1C),
            raster: gx::RasterChannel::Color0A0,
            tex_map: Some(slot),
            tex_coord: Some(tc),
            tex_swap: 0,
            ras_swap: 0,
        })
    }

    /// One stage passing the lit raster colour through (vertex-coloured / untextured).
    pub fn lit_color() -> Self {
        use gx::{AlphaInput as A, ColorInput as C};
        Self::new().stage(gx::TevStage {
            color_in: [C::Zero, C::Zero, C::Zero, C::Rasc],
            alpha_in: [A::Zero, A::Zero, A::Zero, A::Rasa],
            color_op: gx::TevCombine::DEFAULT,
            alpha_op: gx::TevCombine::DEFAULT,
            kcsel: gx::KonstSel(0x0C),
            kasel: gx::KonstSel(0x1C),
            raster: gx::RasterChannel::Color0A0,
            tex_map: None,
            tex_coord: None,
            tex_swap: 0,
            ras_swap: 0,
        })
    }

    /// Adds a material texture bound to set texture `set_texture`; returns its slot (GX map).
    pub fn texture(&mut self, set_texture: u32) -> u8 {
        self.texture_indices.push(set_texture);
        (self.texture_indices.len() - 1) as u8
    }

    /// Adds a texgen; returns its output index (texcoord).
    pub fn texgen(&mut self, t: gx::TexGen) -> u8 {
        self.gx.texgens.push(t);
        (self.gx.texgens.len() - 1) as u8
    }

    pub fn stage(mut self, s: gx::TevStage) -> Self {
        self.gx.stages.push(s);
        self
    }

    /// Sets konst colour K`index` (0–3) and raises the konst count to cover it.
    pub fn konst(mut self, index: usize, rgba: [u8; 4]) -> Self {
        let i = index.min(3);
        self.gx.konst[i] = rgba;
        self.gx.konst_count = self.gx.konst_count.max(i + 1);
        self
    }

    pub fn blend(mut self, src: gx::BlendFactor, dst: gx::BlendFactor) -> Self {
        self.gx.blend = gx::Blend {
            mode: gx::BlendMode::Blend,
            src,
            dst,
        };
        self
    }

    /// Alpha blend (SRCALPHA / INVSRCALPHA), depth-sorted, no depth write.
    pub fn alpha_blended(self) -> Self {
        self.blend(gx::BlendFactor::SrcAlpha, gx::BlendFactor::InvSrcAlpha)
            .depth_write(false)
            .depth_sorted(true)
    }

    /// Additive (ONE / ONE), depth-sorted, no depth write.
    pub fn additive(self) -> Self {
        self.blend(gx::BlendFactor::One, gx::BlendFactor::One)
            .depth_write(false)
            .depth_sorted(true)
    }

    /// Punchthrough: alpha test ≥ 64 with blend forced to ONE/ZERO (flag 0x20).
    pub fn punchthrough(mut self) -> Self {
        self.gx.alpha_test = gx::AlphaTest::PUNCHTHROUGH;
        self.gx.blend = gx::Blend::OPAQUE;
        self
    }

    pub fn depth_write(mut self, on: bool) -> Self {
        self.gx.depth_write = on;
        self
    }

    pub fn depth_sorted(mut self, on: bool) -> Self {
        self.gx.depth_sorted = on;
        self
    }

    /// COLOR0 control (None = channel count 0).
    pub fn color0(mut self, c: Option<gx::ChannelControl>) -> Self {
        self.gx.channel_count = c.is_some() as u32;
        self.gx.color0 = c;
        self
    }

    pub fn uv_animation(mut self, a: gx::UvAnimation) -> Self {
        self.gx.uv_animations.push(a);
        self
    }

    /// ORs raw flag bits (e.g. 0x40 Samus reflection, 0x2000 short UVs).
    pub fn flags(mut self, bits: u32) -> Self {
        self.gx.flags |= bits;
        self
    }

    pub fn group_index(mut self, g: u32) -> Self {
        self.group_index = g;
        self
    }

    /// Indirect texture slot (flag 0x400).
    pub fn indirect_texture_slot(mut self, slot: u32) -> Self {
        self.indirect_slot = Some(slot);
        self
    }

    /// Vertex attribute word; [`super::cmdl::CmdlBuilder`] fills it from the surfaces when 0.
    pub fn vertex_attributes(mut self, va: VertexAttributes) -> Self {
        self.vertex_attributes = va;
        self
    }

    pub fn build(self) -> Material {
        let mut gx_mat = self.gx;
        gx_mat.texture_count = self.texture_indices.len();
        let mut m = Material::from_gx(&gx_mat, self.texture_indices, self.vertex_attributes);
        m.group_index = self.group_index;
        m.indirect_texture_slot = self.indirect_slot;
        m
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn sample() -> Material {
        let mut m = crate::testing::sample_material();
        m.indirect_texture_slot = Some(0);
        m
    }

    #[test]
    fn only_the_vertex_array_flags_pick_the_short_uv_array() {
        // Under either option, no flag bit outside VERTEX_ARRAY_FLAGS changes the choice.
        for short_uv_flag in [gx::flags::SHORT_UV, gx::flags::SHORT_UV_ALT] {
            let options = MaterialOptions {
                short_uv_flag,
                ..MaterialOptions::default()
            };
            for base in [0, short_uv_flag] {
                let mut m = sample();
                m.flags = base;
                let uses = m.uses_short_uvs(&options);
                for bit in (0..32).map(|i| 1u32 << i) {
                    m.flags = base ^ bit;
                    let differs = m.uses_short_uvs(&options) != uses;
                    assert!(!differs || bit & VERTEX_ARRAY_FLAGS != 0, "{bit:#x}");
                }
            }
        }
    }

    #[test]
    fn material_round_trips_in_both_games() {
        let m = sample();
        for game in [Game::Mp1, Game::Mp2] {
            let bytes = m.to_bytes(game);
            let mut w = Vec::new();
            let mut r = Reader::new(&bytes, "m");
            let back = Material::parse(&mut r, game, "m", &mut w).unwrap();
            assert!(w.is_empty(), "{w:?}");
            assert_eq!(back.to_bytes(game), bytes);
            let mut expect = m.clone();
            if game == Game::Mp2 {
                expect.mp2_unknown = Some([0, 0]);
            }
            expect.flags = expect.effective_flags();
            assert_eq!(back, expect);
        }
    }

    #[test]
    fn typed_view_matches_builder_values() {
        let g = sample().to_gx().unwrap();
        assert_eq!(g.konst_count, 2);
        assert_eq!(g.konst[1], [1, 2, 3, 4]);
        assert_eq!(g.stages[0].tex_map, Some(0));
        assert_eq!(g.blend, gx::Blend::OPAQUE);
        assert!(g.depth_write);
        assert_eq!(g.uv_animations.len(), 1);
        assert!(g.color0.unwrap().lighting);
        assert_eq!(channel_word(&g.color0.unwrap()), 0x3001);
    }

    #[test]
    fn punchthrough_forces_opaque_blend_and_alpha_test() {
        let mut m = sample();
        m.flags |= gx::flags::PUNCHTHROUGH;
        m.blend_src = 4;
        m.blend_dst = 5;
        let g = m.to_gx().unwrap();
        assert_eq!(g.blend, gx::Blend::OPAQUE);
        assert_eq!(g.alpha_test, gx::AlphaTest::PUNCHTHROUGH);
    }

    #[test]
    fn unknown_uv_mode_stops_and_is_kept() {
        let mut m = sample();
        m.uv_animations.push(UvAnimationWords {
            mode: 8,
            params: vec![0; 9],
        });
        m.refresh_uv_block();
        let bytes = m.to_bytes(Game::Mp1);
        let mut warnings = Vec::new();
        let mut r = Reader::new(&bytes, "m");
        // MP1 does not know mode 8: processing stops there.
        let back = Material::parse(&mut r, Game::Mp1, "mat", &mut warnings).unwrap();
        assert_eq!(back.unknown_uv_mode, Some(8));
        assert_eq!(back.uv_animations.len(), 1);
        assert_eq!(back.trailing.len(), 40);
        assert!(
            warnings[0].contains("mat.uv_animation[1].mode"),
            "{warnings:?}"
        );
        assert_eq!(back.to_bytes(Game::Mp1), bytes);
        // MP2 knows it.
        let bytes2 = m.to_bytes(Game::Mp2);
        let mut r = Reader::new(&bytes2, "m");
        let back2 = Material::parse(&mut r, Game::Mp2, "mat", &mut warnings).unwrap();
        assert_eq!(back2.uv_animations.len(), 2);
        assert!(matches!(
            back2.to_gx().unwrap().uv_animations[1],
            gx::UvAnimation::Srt { .. }
        ));
    }

    #[test]
    fn validation_names_field_and_offset() {
        let mut m = sample();
        m.tev_stages[0].color_inputs = 16;
        let mut set = MaterialSet {
            game: Game::Mp1,
            texture_ids: vec![0x1234],
            materials: vec![sample(), m],
            padding: vec![],
        };
        set.repad();
        let bytes = set.to_bytes();
        let err =
            MaterialSet::from_bytes(&bytes, "x.bin", Game::Mp1, &Default::default()).unwrap_err();
        assert_eq!(
            err.field,
            "material_set.material[1].tev_stage[0].color_inputs"
        );
        // Header 4+4+4+8, first material, then the second material's stage.
        let first = sample().to_bytes(Game::Mp1).len() as u64;
        let stage_off = sample().offsets(Game::Mp1).stages as u64;
        assert_eq!(err.offset, 20 + first + stage_off);
        // Lenient mode keeps it as a warning.
        let opts = MaterialOptions {
            lenient: true,
            ..Default::default()
        };
        let (set2, warnings) = MaterialSet::from_bytes(&bytes, "x.bin", Game::Mp1, &opts).unwrap();
        assert_eq!(set2.to_bytes(), bytes);
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("tev_stage[0].color_inputs"))
        );
        assert!(set2.materials[1].to_gx().is_err());
    }

    #[test]
    fn set_checks_texture_indices_and_end_offsets() {
        let set = MaterialSet {
            game: Game::Mp1,
            texture_ids: vec![],
            materials: vec![sample()],
            padding: vec![],
        };
        let bytes = set.to_bytes();
        let err = MaterialSet::from_bytes(&bytes, "x", Game::Mp1, &Default::default()).unwrap_err();
        assert_eq!(err.field, "material_set.material[0].texture_indices[0]");
        let mut bad = bytes.clone();
        bad[11] = 0xFF; // end offset beyond the data
        let err = MaterialSet::from_bytes(&bad, "x", Game::Mp1, &Default::default()).unwrap_err();
        assert_eq!(err.field, "material_set.material_end_offsets[0]");
        assert_eq!(err.offset, 8);
    }

    #[test]
    fn vertex_attribute_fields() {
        let va = VertexAttributes(0x0100_030F);
        assert_eq!(va.format(VertexAttributes::POSITION), AttrFormat::Index16);
        assert_eq!(va.format(VertexAttributes::COLOR0), AttrFormat::None);
        assert_eq!(va.format(VertexAttributes::TEX0), AttrFormat::Index16);
        assert!(va.matrix_index(0));
        assert!(!va.matrix_index(1));
        let v2 = VertexAttributes(0)
            .with(VertexAttributes::TEX0 + 3, AttrFormat::Index8)
            .with_matrix_index(2, true);
        assert_eq!(v2.0, 0x0400_8000);
    }
}
