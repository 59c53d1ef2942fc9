//! The readable form of `info` on a CMDL model ([`cmdl_text`]): header, arrays, surfaces and
//! each material's TEV stages, texgens and UV animations written out.

use std::fmt::Write as _;

use crate::formats::cmdl::{Cmdl, UvSource};
use crate::formats::material::{Material, MaterialSet, UvAnimationWords, VertexAttributes};
use crate::formats::mp3_material::Element;
use crate::gx;
use crate::schema;
use crate::schema::cmdl_mp3::Mp3GxInfo;

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
    let names = gx::UvAnimation::parameter_names(a.mode);
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
        gx::UvAnimation::mode_name(a.mode),
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
        let ci = schema::color_input_names(s.color_inputs);
        let ai = schema::alpha_input_names(s.alpha_inputs);
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
        schema::game_name(game)
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
    if cmdl.mp3_materials.is_some() {
        out.push_str(&mp3_materials_text(cmdl));
    }
    out
}

/// The MP3 material sets: each material's passes and the GX program they make.
fn mp3_materials_text(cmdl: &Cmdl) -> String {
    let mut out = String::new();
    for (si, set) in cmdl.mp3_materials.iter().flat_map(|m| &m.sets).enumerate() {
        let _ = writeln!(
            out,
            "MP3 material set {si}: {} materials",
            set.materials.len()
        );
        for (mi, m) in set.materials.iter().enumerate() {
            let gx = Mp3GxInfo::new(m);
            let elements: Vec<String> = m
                .elements
                .iter()
                .map(|e| match e {
                    Element::Pass(p) => format!("PASS {}", p.kind),
                    Element::Color { kind, rgba } => format!("{kind}=#{rgba:08X}"),
                    Element::Int { kind, value } => format!("{kind}={value}"),
                    Element::End => "END".into(),
                })
                .collect();
            let _ = writeln!(
                out,
                "  material {mi}: flags {:#x}, {}; {:?}, {} TEV stages ({})",
                m.flags,
                elements.join(", "),
                gx.configuration,
                gx.tev_stages.len(),
                gx.tev_stages
                    .iter()
                    .map(|s| s.recipe)
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            for w in &gx.warnings {
                let _ = writeln!(out, "    warning: {w}");
            }
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
