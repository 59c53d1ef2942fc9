//! `info` for CMDL models: a readable report, or JSON using the conformance field names.

use std::fmt::Write as _;

use anyhow::Context as _;
use serde_json::{Value, json};

use crate::formats::cmdl::{Cmdl, CmdlOptions, Normals, Surface, UvSource};
use crate::formats::material::{Material, MaterialSet, UvAnimationWords, VertexAttributes};
use crate::formats::{Game, asset_id_string};
use crate::gx;

/// Describes a CMDL file: text by default, JSON when `json` (default parse options).
pub fn info_cmdl(bytes: &[u8], label: &str, json: bool) -> anyhow::Result<String> {
    info_cmdl_with(bytes, label, json, &CmdlOptions::default())
}

/// [`info_cmdl`] with explicit parse options (alt switches, lenient materials).
pub fn info_cmdl_with(
    bytes: &[u8],
    label: &str,
    json: bool,
    options: &CmdlOptions,
) -> anyhow::Result<String> {
    let cmdl = Cmdl::parse_with(bytes, label, options)
        .with_context(|| format!("cannot read {label} as a CMDL model"))?;
    if json {
        Ok(serde_json::to_string_pretty(&cmdl_json(
            &cmdl,
            label,
            bytes.len(),
        ))?)
    } else {
        Ok(cmdl_text(&cmdl, label, bytes.len()))
    }
}

fn f(v: f32) -> Value {
    json!(v as f64)
}

fn v3(v: [f32; 3]) -> Value {
    json!(v.map(|c| c as f64))
}

fn game_name(g: Game) -> &'static str {
    match g {
        Game::Mp1 => "MP1",
        Game::Mp2 => "MP2",
        Game::Mp3 => "MP3",
    }
}

fn color_input_name(v: u32) -> String {
    gx::ColorInput::from_bits(v).map_or_else(|| format!("INVALID({v})"), |c| c.name().into())
}

fn alpha_input_name(v: u32) -> String {
    gx::AlphaInput::from_bits(v).map_or_else(|| format!("INVALID({v})"), |c| c.name().into())
}

fn fields4(w: u32) -> [u32; 4] {
    [0, 1, 2, 3].map(|i| (w >> (5 * i)) & 31)
}

fn combine_json(w: u32) -> Value {
    let c = gx::TevCombine::from_word(w);
    json!({
        "op": c.op, "bias": c.bias, "scale": c.scale, "clamp": c.clamp, "out_reg": c.out_reg as u8,
    })
}

fn texgen_json(w: u32) -> Value {
    let kind = w & 0xF;
    let source = (w >> 4) & 0x1F;
    let mtx = (w >> 9) & 0x1F;
    let post = (w >> 15) & 0x3F;
    json!({
        "flags": w,
        "type": kind,
        "type_name": gx::TexGenType::from_bits(kind).map_or_else(|| format!("INVALID({kind})"), |t| t.name()),
        "source": source,
        "source_name": gx::TexGenSrc::from_bits(source).map_or_else(|| format!("INVALID({source})"), |s| s.name()),
        "mtx_field": mtx,
        "gx_tex_mtx": mtx + 30,
        "normalize": (w >> 14) & 1 != 0,
        "post_mtx_field": post,
        "gx_post_tex_mtx": post + 64,
    })
}

fn uv_animation_json(a: &UvAnimationWords) -> Value {
    let params: Vec<Value> = a
        .params
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            if a.mode == 8 && i == 0 {
                json!(p)
            } else {
                f(f32::from_bits(p))
            }
        })
        .collect();
    json!({
        "mode": a.mode,
        "mode_name": UvAnimationWords::mode_name(a.mode),
        "parameters": params,
        "parameter_names": UvAnimationWords::parameter_names(a.mode),
    })
}

fn vertex_attributes_json(va: VertexAttributes) -> Value {
    let mut m = serde_json::Map::new();
    for (i, name) in VertexAttributes::NAMES.iter().enumerate() {
        m.insert((*name).into(), json!(va.format(i).name()));
    }
    for (i, name) in VertexAttributes::MATRIX_INDEX_NAMES.iter().enumerate() {
        m.insert((*name).into(), json!(va.matrix_index(i)));
    }
    Value::Object(m)
}

/// One material in the conformance JSON shape (plus `mp2_unknown`, `gx_valid`, …).
pub fn material_json(set: &MaterialSet, m: &Material) -> Value {
    let flags = m.effective_flags();
    let stages: Vec<Value> = m
        .tev_stages
        .iter()
        .map(|s| {
            json!({
                "color_input_flags": s.color_inputs,
                "alpha_input_flags": s.alpha_inputs,
                "color_combine_flags": s.color_combine,
                "alpha_combine_flags": s.alpha_combine,
                "padding": s.padding,
                "konst_alpha_input": s.kasel,
                "konst_color_input": s.kcsel,
                "rasterized_color_input": s.raster,
                "color_inputs": fields4(s.color_inputs).map(color_input_name),
                "alpha_inputs": fields4(s.alpha_inputs).map(alpha_input_name),
                "color_op": combine_json(s.color_combine),
                "alpha_op": combine_json(s.alpha_combine),
                "texture_index": s.tex_map,
                "tex_coord_index": s.tex_coord,
                "order_padding": s.order_padding,
            })
        })
        .collect();
    let konsts = m.konst_colors.clone().unwrap_or_default();
    json!({
        "flags": flags,
        "flags_decoded": {
            "konst_present_0x8": flags & gx::flags::KONST != 0,
            "transparent_0x10": flags & gx::flags::TRANSPARENT != 0,
            "punchthrough_0x20": flags & gx::flags::PUNCHTHROUGH != 0,
            "samus_reflection_0x40": flags & gx::flags::SAMUS_REFLECTION != 0,
            "depth_write_0x80": flags & gx::flags::DEPTH_WRITE != 0,
            "reflection_surface_eye_0x100": flags & gx::flags::REFLECTION_SURFACE_EYE != 0,
            "occluder_0x200": flags & gx::flags::OCCLUDER != 0,
            "indirect_texture_slot_present_0x400": flags & gx::flags::INDIRECT_SLOT != 0,
            "lightmap_0x800": flags & gx::flags::LIGHTMAP != 0,
            "short_uv_0x2000": flags & gx::flags::SHORT_UV != 0,
        },
        "texture_indices": m.texture_indices,
        "texture_file_ids": m.texture_indices.iter().map(|&i| {
            set.texture_ids.get(i as usize).map(|&id| asset_id_string(id.into(), false))
        }).collect::<Vec<_>>(),
        "vertex_attribute_flags": m.vertex_attributes.0,
        "vertex_attributes": vertex_attributes_json(m.vertex_attributes),
        "mp2_unknown": m.mp2_unknown,
        "group_index": m.group_index,
        "konst_colors": konsts,
        "konst_colors_rgba": m.konst_rgba(),
        "blend_destination_factor": m.blend_dst,
        "blend_source_factor": m.blend_src,
        "reflection_indirect_texture_slot_index": m.indirect_texture_slot,
        "color_channel_flags": m.color_channels,
        "tev_stage_count": m.tev_stages.len(),
        "tev_stages": stages,
        "texgen_count": m.texgens.len(),
        "texgens": m.texgens.iter().map(|&w| texgen_json(w)).collect::<Vec<_>>(),
        "material_animations_section_size": m.uv_block_size,
        "uv_animation_count": m.uv_animation_count,
        "uv_animations": m.uv_animations.iter().map(uv_animation_json).collect::<Vec<_>>(),
        "unknown_uv_mode": m.unknown_uv_mode,
        "trailing_bytes": m.trailing.len(),
        "gx_valid": m.to_gx().is_ok(),
    })
}

/// A material set in the conformance JSON shape.
pub fn material_set_json(set: &MaterialSet) -> Value {
    json!({
        "texture_file_ids": set.texture_ids.iter().map(|&id| asset_id_string(id.into(), false)).collect::<Vec<_>>(),
        "material_count": set.materials.len(),
        "material_end_offsets": set.end_offsets(),
        "materials": set.materials.iter().map(|m| material_json(set, m)).collect::<Vec<_>>(),
    })
}

fn surface_json(cmdl: &Cmdl, s: &Surface) -> Value {
    let mesh = &s.mesh;
    let prims: Vec<Value> = mesh
        .primitives
        .iter()
        .map(|p| {
            let verts: Vec<Value> = p
                .vertices
                .iter()
                .map(|&i| {
                    let v = &mesh.vertices[i as usize];
                    json!([v.position, v.normal, v.tex[0]])
                })
                .collect();
            json!({
                "opcode": p.opcode,
                "primitive": p.kind.name(),
                "vertex_format": p.vertex_format,
                "vertex_count": p.vertices.len(),
                "offset_in_display_list": p.offset,
                "vertices_pos_nrm_uv0": verts,
            })
        })
        .collect();
    let head = s.header_size() + s.extra_data.len();
    json!({
        "material_index": s.material_index,
        "center_point": v3(s.center),
        "mantissa": s.display_list_word >> 16,
        "display_list_size": s.display_list_word & 0xFFFF,
        "display_list_size_bits_0_30": s.display_list_size(),
        "normal_hint": s.normal_hint(),
        "extra_data_size": s.extra_data.len(),
        "surface_normal": v3(s.normal),
        "mp2_unknown": s.mp2_unknown,
        "header_padded_size": head.next_multiple_of(32),
        "aabb": cmdl.surface_aabb(s).map(|b| json!({"min": v3(b.min), "max": v3(b.max)})),
        "stored_aabb": s.stored_aabb().is_some(),
        "vertex_attribute_flags": mesh.layout.attributes.0,
        "tex0_array": match mesh.layout.tex0_source { UvSource::Float => "float", UvSource::Short => "short" },
        "primitive_count": mesh.primitives.len(),
        "vertex_refs": mesh.vertex_ref_count(),
        "unique_vertices": mesh.vertices.len(),
        "primitives": prims,
        "triangles_pos": mesh.triangle_positions(),
        "triangle_count": mesh.triangles.len(),
        "line_count": mesh.lines.len(),
        "point_count": mesh.points.len(),
        "padding_bytes": mesh.padding_bytes,
        "error": mesh.error.as_ref().map(|e| e.to_string()),
    })
}

/// The whole model in the conformance JSON shape (every array element by section size).
pub fn cmdl_json(cmdl: &Cmdl, label: &str, size: usize) -> Value {
    let counts = cmdl.array_counts();
    let sections = cmdl.data_sections();
    json!({
        "file": label,
        "size": size,
        "format": "CMDL",
        "game": game_name(cmdl.game()),
        "magic": crate::formats::cmdl::MAGIC,
        "version": cmdl.version,
        "flags": cmdl.effective_flags(),
        "aabb": {"min": v3(cmdl.aabb.min), "max": v3(cmdl.aabb.max)},
        "data_section_count": sections.len(),
        "material_set_count": cmdl.material_sets.len(),
        "data_sections": sections,
        "material_sets": cmdl.material_sets.iter().map(material_set_json).collect::<Vec<_>>(),
        "material_counts": cmdl.material_sets.iter().map(|s| s.materials.len()).collect::<Vec<_>>(),
        "array_counts": {
            "positions": counts.positions,
            "normals": counts.normals,
            "colors": counts.colors,
            "uvs": counts.uvs,
            "lightmap_uvs": counts.short_uvs,
        },
        "short_normals": matches!(cmdl.normals, Normals::Short(_)),
        "positions": cmdl.positions.values.iter().map(|p| v3(*p)).collect::<Vec<_>>(),
        "normals": cmdl.normals_f32().into_iter().map(v3).collect::<Vec<_>>(),
        "colors": cmdl.colors.values,
        "uvs": cmdl.uvs.values.iter().map(|uv| json!([uv[0] as f64, uv[1] as f64])).collect::<Vec<_>>(),
        "lightmap_uvs": cmdl.short_uvs.as_ref().map(|_| {
            cmdl.short_uvs_f32().into_iter().map(|uv| json!([uv[0] as f64, uv[1] as f64])).collect::<Vec<_>>()
        }),
        "surface_count": cmdl.surfaces.len(),
        "surface_end_offsets": cmdl.surface_end_offsets,
        "surfaces": cmdl.surfaces.iter().map(|s| surface_json(cmdl, s)).collect::<Vec<_>>(),
        "triangles": cmdl.triangle_count(),
        "trailing_bytes": cmdl.trailing.len(),
        "warnings": cmdl.warnings,
    })
}

// ------------------------------------------------------------------------------------------------
// Text

fn flag_names(flags: u32) -> String {
    use gx::flags as fl;
    let names = [
        (fl::KONST, "konst"),
        (fl::TRANSPARENT, "depth-sorted"),
        (fl::PUNCHTHROUGH, "punchthrough"),
        (fl::SAMUS_REFLECTION, "samus-reflection"),
        (fl::DEPTH_WRITE, "depth-write"),
        (fl::REFLECTION_SURFACE_EYE, "surface-reflection"),
        (fl::OCCLUDER, "occluder"),
        (fl::INDIRECT_SLOT, "indirect"),
        (fl::LIGHTMAP, "lightmap"),
        (fl::SHORT_UV, "short-uv"),
    ];
    let v: Vec<&str> = names
        .iter()
        .filter(|(b, _)| flags & b != 0)
        .map(|(_, n)| *n)
        .collect();
    v.join(" ")
}

fn attribute_names(va: VertexAttributes) -> String {
    let mut v: Vec<String> = Vec::new();
    for i in 0..8 {
        if va.matrix_index(i) {
            v.push(VertexAttributes::MATRIX_INDEX_NAMES[i].into());
        }
    }
    for (i, name) in VertexAttributes::NAMES.iter().enumerate() {
        let fmt = va.format(i);
        if fmt.is_present() {
            let short = match *name {
                "position" => "pos",
                "normal" => "nrm",
                "color0" => "clr0",
                "color1" => "clr1",
                other => other,
            };
            v.push(match fmt.name() {
                "index16" => short.to_string(),
                other => format!("{short}({other})"),
            });
        }
    }
    v.join(" ")
}

/// One combiner as a formula, e.g. `PREV = ZERO + lerp(ZERO, TEXC, RASC), clamp`.
pub fn combine_text(inputs: [&str; 4], word: u32) -> String {
    let c = gx::TevCombine::from_word(word);
    let [a, b, cc, d] = inputs;
    let mut s = match c.kind() {
        gx::CombineKind::Regular {
            subtract,
            bias,
            scale,
        } => {
            let mut s = format!(
                "{d} {} lerp({a}, {b}, {cc})",
                if subtract { "-" } else { "+" }
            );
            match bias {
                gx::TevBias::AddHalf => s.push_str(" + 0.5"),
                gx::TevBias::SubHalf => s.push_str(" - 0.5"),
                _ => {}
            }
            match scale {
                gx::TevScale::Two => s = format!("({s}) × 2"),
                gx::TevScale::Four => s = format!("({s}) × 4"),
                gx::TevScale::Half => s = format!("({s}) ÷ 2"),
                gx::TevScale::One => {}
            }
            s
        }
        gx::CombineKind::Compare { mode, equal } => format!(
            "{d} + ({a} {} {b} ? {cc} : 0) [{mode:?}]",
            if equal { "==" } else { ">" }
        ),
    };
    s = format!("{} = {s}", c.out_reg.name());
    if c.clamp {
        s.push_str(", clamp");
    }
    if gx::TevCombine::unused_bits(word) != 0 {
        write!(
            s,
            " (+unused bits {:#x})",
            gx::TevCombine::unused_bits(word)
        )
        .ok();
    }
    s
}

fn uv_text(a: &UvAnimationWords) -> String {
    let names = UvAnimationWords::parameter_names(a.mode);
    let params: Vec<String> = a
        .params
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let name = names.get(i).copied().unwrap_or("?");
            if a.mode == 8 && i == 0 {
                format!("{name}={p}")
            } else {
                format!("{name}={}", f32::from_bits(p))
            }
        })
        .collect();
    format!(
        "mode {} {}({})",
        a.mode,
        UvAnimationWords::mode_name(a.mode),
        params.join(", ")
    )
}

fn texgen_text(w: u32) -> String {
    match gx::TexGen::from_word(w) {
        Some(t) => {
            let mtx = t
                .tex_mtx_slot()
                .map_or_else(|| format!("mtx {}", t.gx_tex_mtx), |s| format!("TEXMTX{s}"));
            let post = t.post_mtx_slot().map_or_else(
                || format!("post {}", t.gx_post_mtx),
                |s| format!("PTTEXMTX{s}"),
            );
            let mtx = if t.gx_tex_mtx == gx::GX_IDENTITY {
                "identity".into()
            } else {
                mtx
            };
            let post = if t.gx_post_mtx == gx::GX_PTIDENTITY {
                "post identity".into()
            } else {
                post
            };
            format!(
                "{} {} {mtx}{} {post}",
                t.kind.name(),
                t.source.name(),
                if t.normalize { " normalize" } else { "" }
            )
        }
        None => format!("invalid word {w:#010x}"),
    }
}

fn material_text(out: &mut String, set: &MaterialSet, i: usize, m: &Material) {
    let flags = m.effective_flags();
    let textures: Vec<String> = m
        .texture_indices
        .iter()
        .map(|&t| {
            set.texture_ids
                .get(t as usize)
                .map_or_else(|| format!("{t}→?"), |&id| format!("{t}→{id:#010X}"))
        })
        .collect();
    let blend_name =
        |v: u16| gx::BlendFactor::from_u16(v).map_or_else(|| format!("?{v}"), |b| format!("{b:?}"));
    writeln!(
        out,
        "    material {i}: flags {flags:#x} [{}], textures [{}], attributes {:#x} ({}), group {}",
        flag_names(flags),
        textures.join(", "),
        m.vertex_attributes.0,
        attribute_names(m.vertex_attributes),
        m.group_index
    )
    .ok();
    let konsts: Vec<String> = m
        .konst_rgba()
        .iter()
        .map(|c| format!("{:02X}{:02X}{:02X}{:02X}", c[0], c[1], c[2], c[3]))
        .collect();
    let channel = m.color_channels.first().map_or_else(
        || "none".to_string(),
        |&w| {
            let c = gx::ChannelControl::from_word(w);
            format!(
                "{w:#x} ({}, amb {:?}, mat {:?}, {:?}/{:?})",
                if c.lighting { "lit" } else { "unlit" },
                c.ambient_src,
                c.material_src,
                c.diffuse_fn,
                c.attn_fn
            )
        },
    );
    writeln!(
        out,
        "      blend src {} dst {}{}, konst [{}], channels {} × {channel}{}{}",
        blend_name(m.blend_src),
        blend_name(m.blend_dst),
        if flags & gx::flags::PUNCHTHROUGH != 0 {
            " (forced ONE/ZERO, alpha ≥ 64)"
        } else {
            ""
        },
        konsts.join(" "),
        m.color_channels.len(),
        m.indirect_texture_slot
            .map_or_else(String::new, |s| format!(", indirect slot {s}")),
        m.mp2_unknown
            .map_or_else(String::new, |[a, b]| format!(", mp2 words {a:#x} {b:#x}")),
    )
    .ok();
    for (k, s) in m.tev_stages.iter().enumerate() {
        let ci = fields4(s.color_inputs).map(color_input_name);
        let ai = fields4(s.alpha_inputs).map(alpha_input_name);
        let opt = |b: u8| {
            if b == 0xFF {
                "-".to_string()
            } else {
                b.to_string()
            }
        };
        let ras = gx::RasterChannel::from_byte(s.raster)
            .map_or_else(|| format!("?{}", s.raster), |r| format!("{r:?}"));
        writeln!(
            out,
            "      stage {k}: {} | {} | map {} coord {} ras {ras} kc {:#x} ka {:#x}",
            combine_text([&ci[0], &ci[1], &ci[2], &ci[3]], s.color_combine),
            combine_text([&ai[0], &ai[1], &ai[2], &ai[3]], s.alpha_combine),
            opt(s.tex_map),
            opt(s.tex_coord),
            s.kcsel,
            s.kasel
        )
        .ok();
    }
    for (k, &w) in m.texgens.iter().enumerate() {
        writeln!(out, "      texgen {k}: {}", texgen_text(w)).ok();
    }
    for (k, a) in m.uv_animations.iter().enumerate() {
        writeln!(out, "      uv anim {k}: {}", uv_text(a)).ok();
    }
    if let Some(mode) = m.unknown_uv_mode {
        writeln!(
            out,
            "      uv anims stop at unknown mode {mode} ({} of {} processed)",
            m.uv_animations.len(),
            m.uv_animation_count
        )
        .ok();
    }
    if let Err(p) = m.to_gx() {
        writeln!(out, "      NOT RENDERABLE: {p}").ok();
    }
}

/// The readable report.
pub fn cmdl_text(cmdl: &Cmdl, label: &str, size: usize) -> String {
    let mut out = String::new();
    let game = cmdl.game();
    let flags = cmdl.effective_flags();
    writeln!(
        out,
        "{label}: CMDL version {} ({}), {size} bytes",
        cmdl.version,
        game_name(game)
    )
    .ok();
    writeln!(
        out,
        "flags {flags:#x}: {} normals, {}{}",
        if flags & 2 != 0 { "short" } else { "float" },
        if flags & 4 != 0 {
            "short-UV section"
        } else {
            "no short-UV section"
        },
        if flags & 1 != 0 {
            ", bit 0 (skinned?)"
        } else {
            ""
        }
    )
    .ok();
    writeln!(out, "aabb min {:?} max {:?}", cmdl.aabb.min, cmdl.aabb.max).ok();
    let sections = cmdl.data_sections();
    writeln!(out, "data sections ({}):", sections.len()).ok();
    for s in &sections {
        writeln!(
            out,
            "  {:3} {:<16} offset {:#07x} size {}",
            s.index, s.name, s.offset, s.size
        )
        .ok();
    }
    let c = cmdl.array_counts();
    writeln!(
        out,
        "arrays: {} positions, {} normals, {} colours, {} UVs, {} short UVs (counts by section size)",
        c.positions, c.normals, c.colors, c.uvs, c.short_uvs
    )
    .ok();
    for (si, set) in cmdl.material_sets.iter().enumerate() {
        let ids: Vec<String> = set
            .texture_ids
            .iter()
            .map(|&id| format!("{id:#010X}"))
            .collect();
        writeln!(
            out,
            "material set {si}: {} texture(s) [{}], {} material(s)",
            set.texture_ids.len(),
            ids.join(", "),
            set.materials.len()
        )
        .ok();
        if si > 0 && set.materials == cmdl.material_sets[0].materials {
            writeln!(out, "    (materials identical to set 0)").ok();
            continue;
        }
        for (i, m) in set.materials.iter().enumerate() {
            material_text(&mut out, set, i, m);
        }
    }
    writeln!(
        out,
        "surfaces ({}), {} triangles in total:",
        cmdl.surfaces.len(),
        cmdl.triangle_count()
    )
    .ok();
    for (j, s) in cmdl.surfaces.iter().enumerate() {
        let mesh = &s.mesh;
        let mut kinds: Vec<(String, usize)> = Vec::new();
        for p in &mesh.primitives {
            match kinds.iter_mut().find(|(k, _)| k == p.kind.name()) {
                Some((_, n)) => *n += 1,
                None => kinds.push((p.kind.name().into(), 1)),
            }
        }
        let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{k} ×{n}")).collect();
        writeln!(
            out,
            "  surface {j}: material {}, {} primitive(s) [{}], {} vertex refs, {} unique, {} triangles{}{}, TEX0 {}",
            s.material_index,
            mesh.primitives.len(),
            kinds.join(", "),
            mesh.vertex_ref_count(),
            mesh.vertices.len(),
            mesh.triangles.len(),
            if mesh.lines.is_empty() {
                String::new()
            } else {
                format!(", {} line segments", mesh.lines.len())
            },
            if mesh.points.is_empty() {
                String::new()
            } else {
                format!(", {} points", mesh.points.len())
            },
            match mesh.layout.tex0_source {
                UvSource::Float => "float",
                UvSource::Short => "short",
            },
        )
        .ok();
        if let Some(e) = &mesh.error {
            writeln!(out, "    ERROR: {e}").ok();
        }
    }
    if !cmdl.warnings.is_empty() {
        writeln!(out, "warnings ({}):", cmdl.warnings.len()).ok();
        for w in &cmdl.warnings {
            writeln!(out, "  {w}").ok();
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn combine_formulas() {
        assert_eq!(
            combine_text(["ZERO", "TEXC", "RASC", "ZERO"], 0x100),
            "PREV = ZERO + lerp(ZERO, TEXC, RASC), clamp"
        );
        assert_eq!(
            combine_text(["a", "b", "c", "d"], 0x1 | 0x10 | 0x40 | 0x200),
            "C0 = (d - lerp(a, b, c) + 0.5) × 2"
        );
        assert_eq!(
            combine_text(["a", "b", "c", "d"], 0xF),
            "PREV = d + (a == b ? c : 0) [Rgb8]"
        );
    }
}
