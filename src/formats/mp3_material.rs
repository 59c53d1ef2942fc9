//! MP3 material sets (`formats.md` §13.2): size-prefixed materials holding an element list
//! (`PASS`, `CLR `, `INT `, `END `) instead of a TEV program.
//!
//! Every element is kept as read, in file order, so [`Mp3MaterialSet::to_bytes`] reproduces
//! the set byte for byte; [`Mp3Material::synthesis_inputs`] gathers what the PASS → TEV
//! synthesis of [`crate::gx::mp3`] takes (its Defaults for absent elements, §13.2).

use serde::Serialize;

use super::cmdl::display_list::{DecodeOptions, VertexLayout, effective_layout};
use super::error::{ErrorKind, Result};
use super::material::{VertexAttributes, Within, warning};
use super::reader::{Reader, Writer};
use super::{FourCc, Game};
use crate::gx;
use crate::gx::mp3::{
    Mp3Program, PassInput, PassType, SynthesisInputs, SynthesisOptions, UvSource, synthesize,
};

/// "No texture" in a PASS.
pub const NO_TEXTURE: u64 = u64::MAX;

/// One PASS element: a texture, what it is for, and its UV animation bytes.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Pass {
    /// Pass type FourCC (`DIFF`, `CLR `, …), kept as stored.
    pub kind: FourCc,
    /// Bits 0–1 alpha channel, 0x4 bloom, 0x8 INCA colour mod, 0x10 invert.
    pub flags: u32,
    /// TXTR asset ID; all ones = none.
    pub texture_id: u64,
    /// Vertex attribute TEXn the pass's UVs come from.
    pub uv_set: u32,
    /// The A bytes of UV animation as stored (empty when A = 0).
    pub uv_animation: Vec<u8>,
    /// Bytes after the animation up to the end the PASS size gives, kept verbatim.
    pub trailing: Vec<u8>,
}

/// A PASS's UV animation decoded (§13.2): source, matrix configuration, mode and parameters.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PassUvAnimation {
    /// 0 POS, 1 NRM, 2 UV.
    pub source: u16,
    pub matrix_config: u16,
    pub mode: u32,
    /// Parameter words of a known mode (mode 8: sub-type then 8 f32); empty for unknown modes.
    pub params: Vec<u32>,
}

impl Pass {
    /// Its type, when it is one the spec names.
    pub fn pass_type(&self) -> Option<PassType> {
        PassType::from_fourcc(self.kind.0)
    }
    /// Whether it names a texture (all ones and 0 both mean none, `formats.md` §0).
    pub fn has_texture(&self) -> bool {
        self.texture_id != NO_TEXTURE && self.texture_id != 0
    }
    /// The animation decoded; None when A = 0 or the bytes are too short for its header.
    pub fn uv_anim(&self) -> Option<PassUvAnimation> {
        let b = &self.uv_animation;
        if b.len() < 8 {
            return None;
        }
        let word = |i: usize| u32::from_be_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let mode = word(4);
        let n = gx::UvAnimation::param_count(mode).unwrap_or(0);
        let params = if b.len() >= 8 + 4 * n {
            (0..n).map(|k| word(8 + 4 * k)).collect()
        } else {
            Vec::new()
        };
        Some(PassUvAnimation {
            source: u16::from_be_bytes([b[0], b[1]]),
            matrix_config: u16::from_be_bytes([b[2], b[3]]),
            mode,
            params,
        })
    }
    /// Bytes after the PASS size field.
    fn body_len(&self) -> usize {
        4 + 4 + 8 + 4 + 4 + self.uv_animation.len() + self.trailing.len()
    }
}

/// One element of a material's list, in file order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Element {
    Pass(Pass),
    /// `CLR `: subtype (`CLR ` or `DIFB`) and RGBA8 (R in the top byte).
    Color {
        kind: FourCc,
        rgba: u32,
    },
    /// `INT `: subtype (`OPAC`, `BLOD`, `BLOI`, `BNIF`, `XRBR`) and value.
    Int {
        kind: FourCc,
        value: u32,
    },
    End,
}

impl Element {
    /// The element FourCC as stored.
    pub fn tag(&self) -> &'static str {
        match self {
            Self::Pass(_) => "PASS",
            Self::Color { .. } => "CLR ",
            Self::Int { .. } => "INT ",
            Self::End => "END ",
        }
    }
}

/// One MP3 material exactly as stored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mp3Material {
    /// Material flags (§13.2 table).
    pub flags: u32,
    pub group_index: u32,
    pub unknown_0x0c: u32,
    pub vertex_attributes: VertexAttributes,
    pub unknown_0x14: [u32; 3],
    pub elements: Vec<Element>,
    /// Bytes after `END ` (or from an unknown element on) up to the material's end.
    pub trailing: Vec<u8>,
}

/// Material flag bits the synthesis reads (§13.2).
pub mod flags {
    pub const BLOOM: u32 = 0x1;
    pub const FORCE_LIGHTING_STAGE: u32 = 0x4;
    pub const PRE_INCA_TRANSPARENCY: u32 = 0x8;
    pub const MASKED: u32 = 0x10;
    pub const ADDITIVE_INCANDESCENCE: u32 = 0x20;
    pub const OCCLUDER: u32 = 0x100;
    pub const SOLID_WHITE_ONLY: u32 = 0x200;
    pub const REFLECTION_ALPHA_TARGET: u32 = 0x400;
    pub const SOLID_COLOR_ONLY: u32 = 0x800;
}

impl Mp3Material {
    /// Reads one material (`r` at its size field); warnings for oddities the game tolerates.
    pub fn parse(r: &mut Reader, label: &str, warnings: &mut Vec<String>) -> Result<Self> {
        let size = r.u32("size")? as usize;
        if size > r.remaining() {
            return Err(r.err_at(
                "size",
                r.pos() - 4,
                ErrorKind::OutOfRange {
                    value: size as i64,
                    expected: format!("at most the {} bytes left in the set", r.remaining()),
                },
            ));
        }
        let mut m = r.sub("material", size)?;
        let flags = m.u32("flags")?;
        let group_index = m.u32("group_index")?;
        let unknown_0x0c = m.u32("unknown_0x0C")?;
        let vertex_attributes = VertexAttributes(m.u32("vertex_attribute_flags")?);
        let unknown_0x14 = [
            m.u32("unknown_0x14")?,
            m.u32("unknown_0x18")?,
            m.u32("unknown_0x1C")?,
        ];
        let mut elements = Vec::new();
        loop {
            let at = m.pos();
            let tag = m.fourcc("element")?;
            let i = elements.len();
            let element = match &tag {
                b"PASS" => {
                    Element::Pass(Self::parse_pass(&mut m).within(|| format!("element[{i}]"))?)
                }
                b"CLR " => Element::Color {
                    kind: FourCc(m.fourcc("clr_type").within(|| format!("element[{i}]"))?),
                    rgba: m.u32("rgba").within(|| format!("element[{i}]"))?,
                },
                b"INT " => Element::Int {
                    kind: FourCc(m.fourcc("int_type").within(|| format!("element[{i}]"))?),
                    value: m.u32("value").within(|| format!("element[{i}]"))?,
                },
                b"END " => Element::End,
                other => {
                    warnings.push(warning(
                        m.file(),
                        &format!("{label}.element[{i}]"),
                        m.abs_pos() - 4,
                        format!(
                            "unknown element {}; the rest of the material is kept verbatim",
                            FourCc(*other)
                        ),
                    ));
                    m.seek("element", at)?;
                    break;
                }
            };
            let end = element == Element::End;
            elements.push(element);
            if end {
                break;
            }
        }
        let trailing = m.rest().to_vec();
        m.seek("end", m.len())?;
        Ok(Self {
            flags,
            group_index,
            unknown_0x0c,
            vertex_attributes,
            unknown_0x14,
            elements,
            trailing,
        })
    }

    fn parse_pass(r: &mut Reader) -> Result<Pass> {
        let size = r.u32("pass_size")? as usize;
        if size > r.remaining() || size < 24 {
            return Err(r.err_at(
                "pass_size",
                r.pos() - 4,
                ErrorKind::OutOfRange {
                    value: size as i64,
                    expected: format!(
                        "24 (the fixed fields) up to the {} bytes left in the material",
                        r.remaining()
                    ),
                },
            ));
        }
        let mut p = r.sub("pass", size)?;
        let kind = FourCc(p.fourcc("pass_type")?);
        let flags = p.u32("pass_flags")?;
        let texture_id = p.u64("texture_id")?;
        let uv_set = p.u32("uv_set")?;
        let a = p.u32("uv_anim_size")? as usize;
        if a > p.remaining() {
            return Err(p.err_at(
                "uv_anim_size",
                p.pos() - 4,
                ErrorKind::OutOfRange {
                    value: a as i64,
                    expected: format!("at most the {} bytes left in the PASS", p.remaining()),
                },
            ));
        }
        let uv_animation = p.bytes("uv_anim", a)?.to_vec();
        let trailing = p.rest().to_vec();
        Ok(Pass {
            kind,
            flags,
            texture_id,
            uv_set,
            uv_animation,
            trailing,
        })
    }

    /// Appends the material, size field included.
    pub fn write(&self, w: &mut Writer) {
        let body = self.body();
        w.u32(body.len() as u32);
        w.bytes(&body);
    }

    fn body(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(self.flags);
        w.u32(self.group_index);
        w.u32(self.unknown_0x0c);
        w.u32(self.vertex_attributes.0);
        self.unknown_0x14.iter().for_each(|&v| w.u32(v));
        for e in &self.elements {
            w.bytes(e.tag().as_bytes());
            match e {
                Element::Pass(p) => {
                    w.u32(p.body_len() as u32);
                    w.bytes(&p.kind.0);
                    w.u32(p.flags);
                    w.u64(p.texture_id);
                    w.u32(p.uv_set);
                    w.u32(p.uv_animation.len() as u32);
                    w.bytes(&p.uv_animation);
                    w.bytes(&p.trailing);
                }
                Element::Color { kind, rgba } => {
                    w.bytes(&kind.0);
                    w.u32(*rgba);
                }
                Element::Int { kind, value } => {
                    w.bytes(&kind.0);
                    w.u32(*value);
                }
                Element::End => {}
            }
        }
        w.bytes(&self.trailing);
        w.into_inner()
    }

    /// Size of the material as written, size field included.
    pub fn byte_len(&self) -> usize {
        4 + self.body().len()
    }

    /// The PASS elements in file order.
    pub fn passes(&self) -> impl Iterator<Item = &Pass> {
        self.elements.iter().filter_map(|e| match e {
            Element::Pass(p) => Some(p),
            _ => None,
        })
    }

    /// The last `CLR ` element of a subtype (a repeat overwrites, §13.2); default white.
    pub fn color(&self, kind: &str) -> u32 {
        self.elements
            .iter()
            .rev()
            .find_map(|e| match e {
                Element::Color { kind: k, rgba } if *k == kind => Some(*rgba),
                _ => None,
            })
            .unwrap_or(0xFFFF_FFFF)
    }

    /// The last `INT ` of a subtype, low byte (as [PWE]); the §13.2 default when absent.
    pub fn int(&self, kind: &str) -> u8 {
        let default = match kind {
            "BLOI" => 0,
            "BNIF" => 32,
            _ => 255,
        };
        self.elements
            .iter()
            .rev()
            .find_map(|e| match e {
                Element::Int { kind: k, value } if *k == kind => Some(*value as u8),
                _ => None,
            })
            .unwrap_or(default)
    }

    /// What the PASS → TEV synthesis reads, with the texture ID of each input pass. Passes
    /// without a texture, repeats of a type (the later one wins) and unknown types are
    /// dropped with a warning naming the element.
    pub fn synthesis_inputs(&self) -> (SynthesisInputs, Vec<u64>, Vec<String>) {
        let mut warnings = Vec::new();
        let mut passes: Vec<(PassInput, u64)> = Vec::new();
        for (i, e) in self.elements.iter().enumerate() {
            let Element::Pass(p) = e else { continue };
            let Some(kind) = p.pass_type() else {
                warnings.push(format!(
                    "element[{i}]: unknown pass type {} ignored",
                    p.kind
                ));
                continue;
            };
            if !p.has_texture() {
                warnings.push(format!(
                    "element[{i}]: {} pass has no texture; treated as absent",
                    p.kind
                ));
                continue;
            }
            let anim = p.uv_anim();
            let animation = anim
                .as_ref()
                .and_then(|a| gx::UvAnimation::from_words(a.mode, &a.params));
            if let Some(a) = &anim
                && animation.is_none()
            {
                warnings.push(format!(
                    "element[{i}]: UV animation mode {} not understood; drawn unanimated",
                    a.mode
                ));
            }
            let source = match anim.map(|a| a.source) {
                Some(0) => UvSource::Position,
                Some(1) => UvSource::Normal,
                _ => UvSource::Uv(p.uv_set.min(7) as u8),
            };
            passes.retain(|(q, _)| q.kind != kind);
            passes.push((
                PassInput {
                    kind,
                    flags: p.flags,
                    source,
                    animation,
                },
                p.texture_id,
            ));
        }
        let rgba = |v: u32| v.to_be_bytes();
        let inputs = SynthesisInputs {
            flags: self.flags,
            passes: passes.iter().map(|(p, _)| p.clone()).collect(),
            clr: rgba(self.color("CLR ")),
            difb: rgba(self.color("DIFB")),
            opac: self.int("OPAC"),
            blod: self.int("BLOD"),
            bloi: self.int("BLOI"),
            bnif: self.int("BNIF"),
        };
        (
            inputs,
            passes.into_iter().map(|(_, id)| id).collect(),
            warnings,
        )
    }
}

/// An MP3 material's GX program and the TXTR ID bound to each of its texture maps.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mp3MaterialProgram {
    pub program: Mp3Program,
    /// Texture map k's TXTR ID (the pass `program.texture_passes[k]` names).
    pub texture_ids: Vec<u64>,
    /// The second draw's texture map IDs (NoBloomAdditiveIncandescence).
    pub second_draw_texture_ids: Vec<u64>,
}

impl Mp3Material {
    /// The material's GX program (`formats.md` §13.3), with the input warnings first.
    pub fn program(&self, options: &SynthesisOptions) -> Mp3MaterialProgram {
        let (inputs, ids, mut warnings) = self.synthesis_inputs();
        let mut program = synthesize(&inputs, options);
        warnings.append(&mut program.warnings);
        program.warnings = warnings;
        let id_of = |p: &PassType| {
            inputs
                .passes
                .iter()
                .position(|x| x.kind == *p)
                .map_or(NO_TEXTURE, |i| ids[i])
        };
        let texture_ids = program.texture_passes.iter().map(id_of).collect();
        let second_draw_texture_ids = program
            .second_draw
            .as_ref()
            .map(|(_, sources)| {
                sources
                    .iter()
                    .filter_map(|s| s.pass)
                    .map(|p| id_of(&p))
                    .collect()
            })
            .unwrap_or_default();
        Mp3MaterialProgram {
            program,
            texture_ids,
            second_draw_texture_ids,
        }
    }
}

/// One MP3 material set: u32 count, then the materials.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mp3MaterialSet {
    pub materials: Vec<Mp3Material>,
}

impl Mp3MaterialSet {
    /// Reads one set from `r`'s position, leaving `r` after its last material.
    pub fn parse(r: &mut Reader, label: &str, warnings: &mut Vec<String>) -> Result<Self> {
        // A material is at least its size field and the 0x20-byte header.
        let n = r
            .count("material_count", 0x24)
            .within(|| label.to_string())?;
        let mut materials = Vec::with_capacity(n);
        for i in 0..n {
            let ml = format!("{label}.material[{i}]");
            materials.push(Mp3Material::parse(r, &ml, warnings).within(|| ml.clone())?);
        }
        Ok(Self { materials })
    }

    pub fn write(&self, w: &mut Writer) {
        w.u32(self.materials.len() as u32);
        self.materials.iter().for_each(|m| m.write(w));
    }

    /// Each material's size as the set stores it (size field excluded), as the fixture JSON lists them.
    pub fn material_sizes(&self) -> Vec<usize> {
        self.materials.iter().map(|m| m.byte_len() - 4).collect()
    }
}

/// How a CMDL v5 stores its sets (§13.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SetLayout {
    /// Default: every set in one section.
    OneSection,
    /// Alt: one section per set.
    SectionPerSet,
}

/// A CMDL v5's material sets with the layout they were stored in and each section's padding.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mp3Materials {
    pub sets: Vec<Mp3MaterialSet>,
    pub layout: SetLayout,
    /// Bytes after the last material of each material section.
    pub paddings: Vec<Vec<u8>>,
}

impl Mp3Materials {
    /// Reads the material sections (`sections`: readers over exactly each section).
    pub fn parse(
        sections: Vec<Reader>,
        set_count: usize,
        layout: SetLayout,
        warnings: &mut Vec<String>,
    ) -> Result<Self> {
        // Each set is at least its u32 material count: check the header's set count against
        // the bytes before allocating for it.
        let bytes: usize = sections.iter().map(Reader::remaining).sum();
        if set_count > bytes / 4 {
            let r = sections
                .first()
                .map_or_else(|| Reader::new(&[], ""), Reader::clone);
            return Err(r.err_at(
                "material_set_count",
                0,
                ErrorKind::CountTooLarge {
                    count: set_count as u64,
                    element_size: 4,
                    remaining: bytes as u64,
                },
            ));
        }
        let mut sets = Vec::with_capacity(set_count);
        let mut paddings = Vec::with_capacity(sections.len());
        for (k, mut r) in sections.into_iter().enumerate() {
            let here = match layout {
                SetLayout::OneSection => set_count,
                SetLayout::SectionPerSet => 1,
            };
            for _ in 0..here {
                let i = sets.len();
                sets.push(Mp3MaterialSet::parse(
                    &mut r,
                    &format!("material_set[{i}]"),
                    warnings,
                )?);
            }
            let padding = r.rest().to_vec();
            if padding.iter().any(|&b| b != 0) {
                warnings.push(warning(
                    r.file(),
                    &format!("material_section[{k}]"),
                    r.abs_pos(),
                    "non-zero bytes after the last material (kept)",
                ));
            }
            paddings.push(padding);
        }
        Ok(Self {
            sets,
            layout,
            paddings,
        })
    }

    /// The display-list layout of each material of set 0 (all sets share layouts). No MP3
    /// material selects short UVs (§13.1), so TEX0 always reads the float array.
    pub fn vertex_layouts(
        &self,
        options: &DecodeOptions,
        file: &str,
        warnings: &mut Vec<String>,
    ) -> Vec<VertexLayout> {
        let Some(set0) = self.sets.first() else {
            return Vec::new();
        };
        set0.materials
            .iter()
            .enumerate()
            .map(|(i, m)| {
                effective_layout(
                    m.vertex_attributes,
                    Game::Mp3,
                    false,
                    options,
                    file,
                    &format!("material_set[0].material[{i}].vertex_attribute_flags"),
                    0,
                    warnings,
                )
            })
            .collect()
    }

    /// The material sections' bytes, in file order.
    pub fn sections(&self) -> Vec<Vec<u8>> {
        let pad = |k: usize| self.paddings.get(k).cloned().unwrap_or_default();
        match self.layout {
            SetLayout::OneSection => {
                let mut w = Writer::new();
                self.sets.iter().for_each(|s| s.write(&mut w));
                w.bytes(&pad(0));
                vec![w.into_inner()]
            }
            SetLayout::SectionPerSet => self
                .sets
                .iter()
                .enumerate()
                .map(|(k, s)| {
                    let mut w = Writer::new();
                    s.write(&mut w);
                    w.bytes(&pad(k));
                    w.into_inner()
                })
                .collect(),
        }
    }

    /// After edits: zero padding to 32 bytes for each section.
    pub fn repad(&mut self) {
        let n = match self.layout {
            SetLayout::OneSection => 1,
            SetLayout::SectionPerSet => self.sets.len(),
        };
        self.paddings = vec![Vec::new(); n];
        let lens: Vec<usize> = self.sections().iter().map(Vec::len).collect();
        self.paddings = lens
            .into_iter()
            .map(|l| vec![0; l.next_multiple_of(32) - l])
            .collect();
    }
}
