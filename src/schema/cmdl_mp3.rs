//! `info --json` of an MP3 model (CMDL version 5): the conformance JSON's field names
//! (`conformance/mp3/*.CMDL.json`), plus each material's synthesised GX program (`gx`).

use serde::{Deserialize, Serialize};

use super::{AabbInfo, CombineInfo, DataSectionInfo, SchemaError, VertexAttributesInfo, f64s};
use crate::formats::cmdl::{Cmdl, Surface};
use crate::formats::mp3_material::{Element, Mp3Material, Mp3MaterialSet, Pass};
use crate::formats::{FourCc, asset_id_string, fourcc_from_string};
use crate::gx;
use crate::gx::mp3::{Mp3Program, StageSource, SynthesisOptions};

#[derive(Debug, Clone, Serialize)]
pub struct Mp3CmdlFlags {
    pub skinned_0x1: bool,
    pub short_normals_0x2: bool,
    pub short_uvs_0x4: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Mp3MaterialFlags {
    pub bloom_0x1: bool,
    pub force_lighting_stage_0x4: bool,
    pub pre_inca_transparency_0x8: bool,
    pub masked_0x10: bool,
    pub additive_incandescence_0x20: bool,
    pub occluder_0x100: bool,
    pub solid_white_only_0x200: bool,
    pub reflection_alpha_target_0x400: bool,
    pub solid_color_only_0x800: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PassFlagsInfo {
    pub alpha_channel: String,
    pub bloom_alpha_0x4: bool,
    pub inca_colour_mod_0x8: bool,
    pub invert_0x10: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PassUvAnimInfo {
    pub source: u16,
    /// Derived from `source`.
    #[serde(default)]
    pub source_name: String,
    pub matrix_config: u16,
    pub mode: u32,
    /// Derived from `mode`.
    #[serde(default)]
    pub mode_name: String,
    pub params: Vec<f64>,
    /// Derived from `mode`.
    #[serde(default)]
    pub param_names: Vec<String>,
}

/// One element; the fields of its kind only (a PASS's `uv_anim` is null when A = 0).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ElementInfo {
    pub element: String,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<u32>,
    /// Derived from `flags`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flags_decoded: Option<PassFlagsInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub texture_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uv_set: Option<u32>,
    /// Derived from `uv_anim`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uv_anim_size: Option<usize>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "present"
    )]
    pub uv_anim: Option<Option<PassUvAnimInfo>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<u32>,
    /// `CLR `: the colour (`value` is derived from it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rgba8: Option<[u8; 4]>,
}

/// A field that is present reads as Some, even when null (`uv_anim: null`).
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

impl ElementInfo {
    fn new(e: &Element) -> Self {
        let mut info = Self {
            element: e.tag().into(),
            kind: None,
            flags: None,
            flags_decoded: None,
            texture_id: None,
            uv_set: None,
            uv_anim_size: None,
            uv_anim: None,
            value: None,
            rgba8: None,
        };
        match e {
            Element::Pass(p) => Self::pass(&mut info, p),
            Element::Color { kind, rgba } => {
                info.kind = Some(kind.to_string());
                info.value = Some(*rgba);
                info.rgba8 = Some(rgba.to_be_bytes());
            }
            Element::Int { kind, value } => {
                info.kind = Some(kind.to_string());
                info.value = Some(*value);
            }
            Element::End => {}
        }
        info
    }

    fn pass(info: &mut Self, p: &Pass) {
        info.kind = Some(p.kind.to_string());
        info.flags = Some(p.flags);
        info.flags_decoded = Some(PassFlagsInfo {
            alpha_channel: ["R", "G", "B", "A"][(p.flags & 3) as usize].into(),
            bloom_alpha_0x4: p.flags & 0x4 != 0,
            inca_colour_mod_0x8: p.flags & 0x8 != 0,
            invert_0x10: p.flags & 0x10 != 0,
        });
        info.texture_id = Some(asset_id_string(p.texture_id, true));
        info.uv_set = Some(p.uv_set);
        info.uv_anim_size = Some(p.uv_animation.len());
        info.uv_anim = Some(p.uv_anim().map(|a| {
            let names = gx::UvAnimation::parameter_names(a.mode);
            PassUvAnimInfo {
                source: a.source,
                source_name: ["POS", "NRM", "UV"]
                    .get(a.source as usize)
                    .copied()
                    .unwrap_or("?")
                    .into(),
                matrix_config: a.matrix_config,
                mode: a.mode,
                mode_name: gx::UvAnimation::mode_name(a.mode).into(),
                // Mode 8's first word is its integer sub-type.
                params: a
                    .params
                    .iter()
                    .enumerate()
                    .map(|(i, &w)| {
                        if a.mode == 8 && i == 0 {
                            f64::from(w)
                        } else {
                            f64::from(f32::from_bits(w))
                        }
                    })
                    .collect(),
                param_names: names.iter().map(|n| n.to_string()).collect(),
            }
        }));
    }
}

fn field_err(field: String, message: impl Into<String>) -> SchemaError {
    SchemaError {
        field,
        message: message.into(),
    }
}

/// A FourCC field: exactly four ASCII characters.
fn fourcc(v: &Option<String>, at: &str) -> Result<FourCc, SchemaError> {
    let s = v.as_deref().unwrap_or("");
    fourcc_from_string(s).map(FourCc).ok_or_else(|| {
        field_err(
            format!("{at}/type"),
            format!("{s:?} is not four ASCII characters"),
        )
    })
}

impl ElementInfo {
    /// The element these source fields describe. `original` (the element stored at this
    /// position) keeps what the schema does not carry: a PASS's bytes after its animation, and
    /// the animation bytes themselves while its decoded form is unchanged.
    pub fn to_element(&self, original: Option<&Element>, at: &str) -> Result<Element, SchemaError> {
        let need =
            |v: Option<u32>, f: &str| v.ok_or_else(|| field_err(format!("{at}/{f}"), "missing"));
        Ok(match self.element.as_str() {
            "PASS" => {
                let old = match original {
                    Some(Element::Pass(p)) => Some(p),
                    _ => None,
                };
                let id = self.texture_id.as_deref().unwrap_or("");
                let texture_id =
                    u64::from_str_radix(id.trim_start_matches("0x"), 16).map_err(|_| {
                        field_err(
                            format!("{at}/texture_id"),
                            format!("{id:?} is not a hex asset ID"),
                        )
                    })?;
                // The stored bytes stay while their decoded form is unchanged (extra or
                // undecodable bytes, NaN payloads).
                let requested = self.uv_anim.clone().flatten();
                let bits = |a: &PassUvAnimInfo| {
                    let params: Vec<u64> = a.params.iter().map(|x| x.to_bits()).collect();
                    (a.source, a.matrix_config, a.mode, params)
                };
                let kept = old.and_then(|p| {
                    let stored = ElementInfo::new(&Element::Pass(p.clone()))
                        .uv_anim
                        .flatten();
                    let unchanged = match (&requested, &stored) {
                        (None, None) => true,
                        (Some(a), Some(o)) => bits(a) == bits(o),
                        _ => false,
                    };
                    unchanged.then(|| p.uv_animation.clone())
                });
                let uv_animation = match (kept, requested) {
                    (Some(bytes), _) => bytes,
                    (None, None) => Vec::new(),
                    (None, Some(a)) => encode_uv_anim(&a, &format!("{at}/uv_anim"))?,
                };
                Element::Pass(Pass {
                    kind: fourcc(&self.kind, at)?,
                    flags: need(self.flags, "flags")?,
                    texture_id,
                    uv_set: need(self.uv_set, "uv_set")?,
                    uv_animation,
                    trailing: old.map(|p| p.trailing.clone()).unwrap_or_default(),
                })
            }
            "CLR " => Element::Color {
                kind: fourcc(&self.kind, at)?,
                rgba: match self.rgba8 {
                    Some(c) => u32::from_be_bytes(c),
                    None => need(self.value, "value")?,
                },
            },
            "INT " => Element::Int {
                kind: fourcc(&self.kind, at)?,
                value: need(self.value, "value")?,
            },
            "END " => Element::End,
            other => {
                return Err(field_err(
                    format!("{at}/element"),
                    format!("{other:?}: expected \"PASS\", \"CLR \", \"INT \" or \"END \""),
                ));
            }
        })
    }
}

/// A PASS animation's bytes (§13.2): u16 source, u16 matrix configuration, u32 mode and its
/// parameters (mode 8's first one an integer).
fn encode_uv_anim(a: &PassUvAnimInfo, at: &str) -> Result<Vec<u8>, SchemaError> {
    let n = gx::UvAnimation::param_count(a.mode)
        .ok_or_else(|| field_err(format!("{at}/mode"), format!("unknown mode {}", a.mode)))?;
    if a.params.len() != n {
        return Err(field_err(
            format!("{at}/params"),
            format!(
                "mode {} takes {n} parameters, not {}",
                a.mode,
                a.params.len()
            ),
        ));
    }
    let mut w = crate::formats::Writer::new();
    w.u16(a.source);
    w.u16(a.matrix_config);
    w.u32(a.mode);
    for (i, &p) in a.params.iter().enumerate() {
        if a.mode == 8 && i == 0 {
            w.u32(p as u32);
        } else {
            w.f32(p as f32);
        }
    }
    Ok(w.into_inner())
}

impl Mp3MaterialInfo {
    /// The stored material these source fields describe (`original` keeps the bytes after
    /// the element list).
    pub fn to_material(&self, original: &Mp3Material) -> Result<Mp3Material, SchemaError> {
        let elements = self
            .elements
            .iter()
            .enumerate()
            .map(|(i, e)| e.to_element(original.elements.get(i), &format!("elements/{i}")))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Mp3Material {
            flags: self.flags,
            group_index: self.group_index,
            unknown_0x0c: self.unknown_0x0c,
            vertex_attributes: crate::formats::material::VertexAttributes(
                self.vertex_attribute_flags,
            ),
            unknown_0x14: self.unknown_0x14_0x1c,
            elements,
            trailing: original.trailing.clone(),
        })
    }
}

/// One stage of the synthesised program, in the MP1 stage schema plus where it samples.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mp3StageInfo {
    /// The §13.3 recipe that emitted it (R1 … R7, R5a, R6b, R9b, SW, SK, 2nd).
    pub recipe: &'static str,
    pub color_inputs: [String; 4],
    pub alpha_inputs: [String; 4],
    pub color_op: CombineInfo,
    pub alpha_op: CombineInfo,
    /// GX selector numbers.
    pub konst_color_input: u8,
    pub konst_alpha_input: u8,
    /// GXChannelID (4 COLOR0A0, 255 none).
    pub rasterized_color_input: u8,
    /// 255 none.
    pub texture_map: u8,
    pub tex_coord: u8,
    /// The PASS type the stage samples, or null.
    pub texture_pass: Option<String>,
    /// The texel's swap: which channel feeds R, G, B, A.
    pub tex_swap_rgba: [&'static str; 4],
}

fn combine(c: gx::TevCombine) -> CombineInfo {
    CombineInfo {
        op: c.op,
        bias: c.bias,
        scale: c.scale,
        clamp: c.clamp,
        out_reg: c.out_reg as u8,
    }
}

fn stages(m: &gx::Material, sources: &[StageSource]) -> Vec<Mp3StageInfo> {
    let swaps = gx::tev::PRIME_SWAP_TABLES;
    m.stages
        .iter()
        .zip(sources)
        .map(|(s, src)| Mp3StageInfo {
            recipe: src.recipe,
            color_inputs: s.color_in.map(|c| c.name().to_string()),
            alpha_inputs: s.alpha_in.map(|a| a.name().to_string()),
            color_op: combine(s.color_op),
            alpha_op: combine(s.alpha_op),
            konst_color_input: s.kcsel.0,
            konst_alpha_input: s.kasel.0,
            rasterized_color_input: s.raster.to_byte(),
            texture_map: s.tex_map.unwrap_or(0xFF),
            tex_coord: s.tex_coord.unwrap_or(0xFF),
            texture_pass: src.pass.map(|p| p.fourcc().to_string()),
            tex_swap_rgba: swaps[(s.tex_swap & 3) as usize]
                .map(|c| ["R", "G", "B", "A"][c as usize & 3]),
        })
        .collect()
}

/// Blend factor names as `gx.md` §8.1 and the fixtures write them.
pub fn blend_factor_name(f: gx::BlendFactor) -> &'static str {
    use gx::BlendFactor as B;
    match f {
        B::Zero => "ZERO",
        B::One => "ONE",
        B::SrcClr => "SRC_COLOR",
        B::InvSrcClr => "INV_SRC_COLOR",
        B::SrcAlpha => "SRC_ALPHA",
        B::InvSrcAlpha => "INV_SRC_ALPHA",
        B::DstAlpha => "DST_ALPHA",
        B::InvDstAlpha => "INV_DST_ALPHA",
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BlendInfo {
    pub src: &'static str,
    pub dst: &'static str,
}

impl BlendInfo {
    fn new(b: gx::Blend) -> Self {
        Self {
            src: blend_factor_name(b.src),
            dst: blend_factor_name(b.dst),
        }
    }
}

/// Initial TEV registers.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RegistersInfo {
    pub prev: [i16; 4],
    pub c0: [i16; 4],
    pub c1: [i16; 4],
    pub c2: [i16; 4],
}

/// The alpha test (null when it passes everything).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlphaTestInfo {
    pub comp0: gx::Compare,
    pub ref0: u8,
    pub op: gx::AlphaOp,
    pub comp1: gx::Compare,
    pub ref1: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SecondDrawInfo {
    pub tev_stages: Vec<Mp3StageInfo>,
    pub blend: BlendInfo,
    pub depth_write: bool,
    pub texture_ids: Vec<String>,
}

/// A material's synthesised GX program.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mp3GxInfo {
    pub configuration: gx::mp3::Configuration,
    pub lighting_stage: bool,
    pub tev_stages: Vec<Mp3StageInfo>,
    /// Texture map k's pass and TXTR ID.
    pub texture_passes: Vec<String>,
    pub texture_ids: Vec<String>,
    pub konst_colors_rgba: Vec<[u8; 4]>,
    pub registers: RegistersInfo,
    pub blend: BlendInfo,
    pub alpha_test: Option<AlphaTestInfo>,
    pub depth_write: bool,
    pub depth_sorted: bool,
    pub second_draw: Option<SecondDrawInfo>,
    pub warnings: Vec<String>,
}

impl Mp3GxInfo {
    pub fn new(m: &Mp3Material) -> Self {
        Self::with_options(m, &SynthesisOptions::default())
    }

    /// The program the synthesis builds with `options` (Alts switched on).
    pub fn with_options(m: &Mp3Material, options: &SynthesisOptions) -> Self {
        let built = m.program(options);
        let Mp3Program {
            configuration,
            material: gm,
            stage_sources,
            texture_passes,
            lit,
            second_draw,
            warnings,
        } = built.program;
        let ids = |v: &[u64]| v.iter().map(|&i| asset_id_string(i, true)).collect();
        let r = gm.registers;
        Self {
            configuration,
            lighting_stage: lit,
            tev_stages: stages(&gm, &stage_sources),
            texture_passes: texture_passes.iter().map(|p| p.fourcc().into()).collect(),
            texture_ids: ids(&built.texture_ids),
            konst_colors_rgba: gm.konst[..gm.konst_count].to_vec(),
            registers: RegistersInfo {
                prev: r[0],
                c0: r[1],
                c1: r[2],
                c2: r[3],
            },
            blend: BlendInfo::new(gm.blend),
            alpha_test: (!gm.alpha_test.is_always()).then(|| {
                let a = gm.alpha_test;
                AlphaTestInfo {
                    comp0: a.comp0,
                    ref0: a.ref0,
                    op: a.op,
                    comp1: a.comp1,
                    ref1: a.ref1,
                }
            }),
            depth_write: gm.depth_write,
            depth_sorted: gm.depth_sorted,
            second_draw: second_draw.map(|(m2, sources)| SecondDrawInfo {
                tev_stages: stages(&m2, &sources),
                blend: BlendInfo::new(m2.blend),
                depth_write: m2.depth_write,
                texture_ids: ids(&built.second_draw_texture_ids),
            }),
            warnings,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Mp3MaterialInfo {
    pub flags: u32,
    /// Derived from `flags`.
    #[serde(default)]
    pub flags_decoded: Mp3MaterialFlags,
    pub group_index: u32,
    #[serde(rename = "unknown_0x0C")]
    pub unknown_0x0c: u32,
    #[serde(rename = "unknown_0x14_0x1C")]
    pub unknown_0x14_0x1c: [u32; 3],
    pub vertex_attribute_flags: u32,
    /// Derived from `vertex_attribute_flags`.
    #[serde(default)]
    pub vertex_attributes: VertexAttributesInfo,
    /// Derived from `elements`.
    #[serde(default)]
    pub element_count_including_end: usize,
    pub elements: Vec<ElementInfo>,
    /// Read-only.
    #[serde(default)]
    pub trailing_bytes: usize,
    /// The synthesised program: derived, read-only.
    #[serde(default, skip_deserializing)]
    pub gx: Option<Mp3GxInfo>,
}

impl Mp3MaterialInfo {
    pub fn new(m: &Mp3Material) -> Self {
        let f = m.flags;
        Self {
            flags: f,
            flags_decoded: Mp3MaterialFlags {
                bloom_0x1: f & 0x1 != 0,
                force_lighting_stage_0x4: f & 0x4 != 0,
                pre_inca_transparency_0x8: f & 0x8 != 0,
                masked_0x10: f & 0x10 != 0,
                additive_incandescence_0x20: f & 0x20 != 0,
                occluder_0x100: f & 0x100 != 0,
                solid_white_only_0x200: f & 0x200 != 0,
                reflection_alpha_target_0x400: f & 0x400 != 0,
                solid_color_only_0x800: f & 0x800 != 0,
            },
            group_index: m.group_index,
            unknown_0x0c: m.unknown_0x0c,
            unknown_0x14_0x1c: m.unknown_0x14,
            vertex_attribute_flags: m.vertex_attributes.0,
            vertex_attributes: VertexAttributesInfo::new(m.vertex_attributes),
            element_count_including_end: m.elements.len(),
            elements: m.elements.iter().map(ElementInfo::new).collect(),
            trailing_bytes: m.trailing.len(),
            gx: Some(Mp3GxInfo::new(m)),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Mp3MaterialSetInfo {
    /// Derived.
    #[serde(default)]
    pub material_count: usize,
    /// Derived.
    #[serde(default)]
    pub material_sizes: Vec<usize>,
    pub materials: Vec<Mp3MaterialInfo>,
}

impl Mp3MaterialSetInfo {
    pub fn new(set: &Mp3MaterialSet) -> Self {
        Self {
            material_count: set.materials.len(),
            material_sizes: set.material_sizes(),
            materials: set.materials.iter().map(Mp3MaterialInfo::new).collect(),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct Mp3ArrayCounts {
    pub positions: usize,
    pub normals: usize,
    pub colors: usize,
    pub uvs: usize,
}

/// One vertex of a primitive: the indices it sends (absent attributes omitted).
#[derive(Debug, Clone, Serialize)]
pub struct Mp3VertexInfo {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pnmtxidx: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tex0mtxidx: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tex1mtxidx: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tex2mtxidx: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tex3mtxidx: Option<u8>,
    pub position: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub normal: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color0: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color1: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tex0: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tex1: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tex2: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tex3: Option<u16>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Mp3PrimitiveInfo {
    pub opcode: u8,
    pub primitive: String,
    pub vertex_format: u8,
    pub vertex_count: usize,
    pub vertices: Vec<Mp3VertexInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Mp3SurfaceInfo {
    pub index: usize,
    pub material_index: u32,
    pub center_point: [f64; 3],
    pub mantissa: u32,
    pub display_list_size: u32,
    pub extra_data_size: usize,
    pub extra_aabb: Option<AabbInfo>,
    pub reflection_normal: [f64; 3],
    pub skin_matrix_bank_index: i16,
    pub surface_group: u16,
    pub header_padded_size: usize,
    pub display_list_offset_in_section: usize,
    pub primitives: Vec<Mp3PrimitiveInfo>,
    pub triangles_pos: Vec<[u16; 3]>,
    pub triangle_count: usize,
    pub error: Option<String>,
}

impl Mp3SurfaceInfo {
    pub(crate) fn new(index: usize, s: &Surface) -> Self {
        let mesh = &s.mesh;
        let [bank, group] = s.mp2_unknown.unwrap_or_default();
        let head = s.header_size() + s.extra_data.len();
        Self {
            index,
            material_index: s.material_index,
            center_point: f64s(s.center),
            mantissa: s.display_list_word >> 16,
            display_list_size: s.display_list_word & 0xFFFF,
            extra_data_size: s.extra_data.len(),
            extra_aabb: s.stored_aabb().map(|b| AabbInfo {
                min: f64s(b.min),
                max: f64s(b.max),
            }),
            reflection_normal: f64s(s.normal),
            skin_matrix_bank_index: bank as i16,
            surface_group: group,
            header_padded_size: head.next_multiple_of(32),
            display_list_offset_in_section: s.display_list_start(),
            primitives: mesh
                .primitives
                .iter()
                .map(|p| Mp3PrimitiveInfo {
                    opcode: p.opcode,
                    primitive: p.kind.name().into(),
                    vertex_format: p.vertex_format,
                    vertex_count: p.vertices.len(),
                    vertices: p
                        .vertices
                        .iter()
                        .map(|&i| {
                            let v = &mesh.vertices[i as usize];
                            Mp3VertexInfo {
                                pnmtxidx: v.matrix_indices[0],
                                tex0mtxidx: v.matrix_indices[1],
                                tex1mtxidx: v.matrix_indices[2],
                                tex2mtxidx: v.matrix_indices[3],
                                tex3mtxidx: v.matrix_indices[4],
                                position: v.position,
                                normal: v.normal,
                                color0: v.colors[0],
                                color1: v.colors[1],
                                tex0: v.tex[0],
                                tex1: v.tex[1],
                                tex2: v.tex[2],
                                tex3: v.tex[3],
                            }
                        })
                        .collect(),
                })
                .collect(),
            triangles_pos: mesh.triangle_positions(),
            triangle_count: mesh.triangles.len(),
            error: mesh.error.as_ref().map(|e| e.to_string()),
        }
    }
}

/// The whole MP3 model in the conformance JSON shape.
#[derive(Debug, Clone, Serialize)]
pub struct Mp3CmdlInfo {
    pub file: String,
    pub size: usize,
    pub format: &'static str,
    pub game: &'static str,
    pub magic: u32,
    pub version: u32,
    pub flags: u32,
    pub flags_decoded: Mp3CmdlFlags,
    pub aabb: AabbInfo,
    pub data_section_count: usize,
    pub material_set_count: usize,
    /// `OneSection` (Default) or `SectionPerSet` (Alt), as decided from the section count.
    pub material_set_layout: Option<crate::formats::mp3_material::SetLayout>,
    pub data_sections: Vec<DataSectionInfo>,
    pub material_sets: Vec<Mp3MaterialSetInfo>,
    /// Element counts by section size (padding elements included).
    pub array_counts: Mp3ArrayCounts,
    pub positions: Vec<[f64; 3]>,
    pub normals: Vec<[f64; 3]>,
    pub colors: Vec<[u8; 4]>,
    pub uvs: Vec<[f64; 2]>,
    pub surface_count: usize,
    pub surface_end_offsets: Vec<u32>,
    pub surfaces: Vec<Mp3SurfaceInfo>,
    pub total_triangles: usize,
    pub trailing_bytes: usize,
    pub warnings: Vec<String>,
}

impl Mp3CmdlInfo {
    /// Each material's `gx` as synthesised with `options` instead of the Defaults.
    pub fn with_synthesis(mut self, cmdl: &Cmdl, options: &SynthesisOptions) -> Self {
        let sets = cmdl.mp3_materials.iter().flat_map(|m| &m.sets);
        for (info, set) in self.material_sets.iter_mut().zip(sets) {
            for (info, m) in info.materials.iter_mut().zip(&set.materials) {
                info.gx = Some(Mp3GxInfo::with_options(m, options));
            }
        }
        self
    }

    pub fn new(cmdl: &Cmdl, label: &str, size: usize) -> Self {
        let counts = cmdl.array_counts();
        let sections = cmdl.data_sections();
        let flags = cmdl.effective_flags();
        let sets = cmdl.mp3_materials.as_ref();
        Self {
            file: label.into(),
            size,
            format: "CMDL",
            game: "MP3",
            magic: crate::formats::cmdl::MAGIC,
            version: cmdl.version,
            flags,
            flags_decoded: Mp3CmdlFlags {
                skinned_0x1: flags & 1 != 0,
                short_normals_0x2: flags & 2 != 0,
                short_uvs_0x4: flags & 4 != 0,
            },
            aabb: AabbInfo::new(&cmdl.aabb),
            data_section_count: sections.len(),
            material_set_count: cmdl.material_set_count(),
            material_set_layout: sets.map(|s| s.layout),
            data_sections: DataSectionInfo::all(cmdl),
            material_sets: sets
                .map(|s| s.sets.iter().map(Mp3MaterialSetInfo::new).collect())
                .unwrap_or_default(),
            array_counts: Mp3ArrayCounts {
                positions: counts.positions,
                normals: counts.normals,
                colors: counts.colors,
                uvs: counts.uvs,
            },
            positions: cmdl.positions.values.iter().map(|p| f64s(*p)).collect(),
            normals: cmdl.normals_f32().into_iter().map(f64s).collect(),
            colors: cmdl.colors.values.clone(),
            uvs: cmdl.uvs.values.iter().map(|uv| f64s(*uv)).collect(),
            surface_count: cmdl.surfaces.len(),
            surface_end_offsets: cmdl.surface_end_offsets.clone(),
            surfaces: cmdl
                .surfaces
                .iter()
                .enumerate()
                .map(|(i, s)| Mp3SurfaceInfo::new(i, s))
                .collect(),
            total_triangles: cmdl.triangle_count(),
            trailing_bytes: cmdl.trailing.len(),
            warnings: cmdl.warnings.clone(),
        }
    }
}
