//! CLI functions for the vertex side: `info` on MREA files (layout, light layers and the
//! GX values the engine derives) and `uvanim` (a material's UV-animation matrices at a
//! time). The dispatcher parses arguments; these functions do the work and format text or
//! JSON (field names as in the conformance JSONs).
//!
//! Matrices on the command line are 16 comma-separated numbers, **row-major** (the
//! translation is in elements 3, 7, 11): see [`parse_matrix`].

use anyhow::{Context, bail};
use glam::Mat4;
use serde_json::{Value, json};

use crate::formats::mrea::{LightRecord, Mrea, parse_mrea};
use crate::gx::lights::{Falloff, GxLightValue, LightOptions};
use crate::gx::uvanim::{self, UvAnimInputs, UvAnimOptions};
use crate::gx::{Material, UvAnimation};

fn f(x: f32) -> f64 {
    // f32 → f64 exactly, so JSON shows the stored value as the conformance files do.
    f64::from(x)
}

fn fv<const N: usize>(v: [f32; N]) -> Vec<f64> {
    v.iter().map(|&x| f(x)).collect()
}

fn rows(m: &[[f32; 4]; 3]) -> Vec<Vec<f64>> {
    m.iter().map(|r| fv(*r)).collect()
}

fn gx_json(record: &LightRecord, options: &LightOptions) -> Value {
    match record.to_prime_light().to_gx(options) {
        GxLightValue::Ambient(c) => json!({
            "kind": "ambient",
            "ambient_rgba8": c,
        }),
        GxLightValue::Light(l) => {
            let radius = l.radius();
            json!({
                "kind": "light",
                "color_rgba8": l.color,
                "position": fv(l.position),
                "direction": fv(l.direction),
                "angle_atten": fv(l.angle_atten),
                "dist_atten": fv(l.dist_atten),
                "intensity": f(l.intensity()),
                // JSON has no infinity.
                "radius": if radius.is_finite() { json!(f(radius)) } else { Value::Null },
            })
        }
    }
}

fn light_json(record: &LightRecord, options: &LightOptions) -> Value {
    let mut v = json!({
        "type": record.light_type,
        "type_name": record.kind().name(),
    });
    let o = v.as_object_mut().expect("object literal");
    if record.codirection.is_some() {
        o.insert("color_rgba".into(), json!(fv(record.color)));
    } else {
        o.insert(
            "color_rgb".into(),
            json!(fv([record.color[0], record.color[1], record.color[2]])),
        );
    }
    o.insert("position".into(), json!(fv(record.position)));
    o.insert("direction".into(), json!(fv(record.direction)));
    if let Some(c) = record.codirection {
        o.insert("codirection".into(), json!(fv(c)));
    }
    o.insert("brightness".into(), json!(f(record.brightness)));
    o.insert("spot_cutoff".into(), json!(f(record.spot_cutoff)));
    o.insert("unknown_float_1".into(), json!(f(record.unknown_float_1)));
    o.insert("cast_shadows_u8".into(), json!(record.cast_shadows_u8));
    o.insert("unknown_float_2".into(), json!(f(record.unknown_float_2)));
    o.insert("falloff_type".into(), json!(record.falloff_type));
    o.insert(
        "falloff_name".into(),
        json!(Falloff::name_of_word(record.falloff_type)),
    );
    o.insert("unknown_float_3".into(), json!(f(record.unknown_float_3)));
    if let Some(u) = record.mp3_unknown_floats {
        o.insert("unknown_floats_0x51".into(), json!(fv(u)));
    }
    if let Some(u) = record.mp3_unknown_u32 {
        o.insert("unknown_u32_0x61".into(), json!(u));
    }
    o.insert("gx".into(), gx_json(record, options));
    v
}

/// The JSON report of an area (see the module docs).
pub fn mrea_json(m: &Mrea, label: &str, options: &LightOptions) -> Value {
    let section_index: serde_json::Map<String, Value> = m
        .section_index
        .iter()
        .map(|s| (s.name.clone(), json!(s.index)))
        .collect();
    let lights = m.lights_section.as_ref().map(|l| {
        json!({
            "offset": l.offset,
            "magic": l.magic,
            "layer_count": l.layers.len(),
            "layers": l.layers.iter().map(|layer| {
                layer.iter().map(|r| light_json(r, options)).collect::<Vec<_>>()
            }).collect::<Vec<_>>(),
            "light_record_size": l.light_record_size,
        })
    });
    json!({
        "file": label,
        "format": "MREA",
        "game": m.game,
        "magic": m.magic,
        "version": m.version,
        "area_transform": fv(m.area_transform),
        "world_model_count": m.world_model_count,
        "script_layer_count": m.script_layer_count,
        "data_section_count": m.data_section_count,
        "section_index": section_index,
        "data_section_sizes": m.data_section_sizes,
        "data_section_offsets": m.data_section_offsets,
        "data_section_offsets_are_decompressed": !m.compressed_blocks.is_empty(),
        "header_size": m.header_size,
        "compressed_blocks": m.compressed_blocks,
        "lights_section": lights,
        "light_options": options,
        "warnings": m.warnings,
    })
}

fn mrea_text(m: &Mrea, label: &str, options: &LightOptions) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{label}: MREA {:?} (version {:#x}), {} data sections, {} world models",
        m.game, m.version, m.data_section_count, m.world_model_count
    );
    if !m.compressed_blocks.is_empty() {
        let _ = writeln!(s, "  {} compressed blocks", m.compressed_blocks.len());
    }
    for sec in &m.section_index {
        let size = m
            .data_section_sizes
            .get(sec.index as usize)
            .map_or("-".to_string(), |x| x.to_string());
        let _ = writeln!(
            s,
            "  {:<28} section {:>3}  ({size} bytes)",
            sec.name, sec.index
        );
    }
    match &m.lights_section {
        None => s += "  no lights\n",
        Some(l) => {
            for (i, layer) in l.layers.iter().enumerate() {
                let _ = writeln!(s, "  light layer {i}: {} lights", layer.len());
                for (j, r) in layer.iter().enumerate() {
                    let _ = write!(s, "    [{j}] {:<13}", r.kind().name());
                    match r.to_prime_light().to_gx(options) {
                        GxLightValue::Ambient(c) => {
                            let _ = writeln!(s, " ambient register {c:?}");
                        }
                        GxLightValue::Light(g) => {
                            let _ = writeln!(
                                s,
                                " colour {:?} pos {:?} dir {:?} angle {:?} dist {:?} radius {}",
                                g.color,
                                g.position,
                                g.direction,
                                g.angle_atten,
                                g.dist_atten,
                                g.radius()
                            );
                        }
                    }
                }
            }
        }
    }
    for w in &m.warnings {
        let _ = writeln!(s, "  warning: {w}");
    }
    s
}

/// `tevscope info AREA.MREA [--json]`: layout and light layers with GX values.
pub fn info_mrea(bytes: &[u8], label: &str, json: bool) -> anyhow::Result<String> {
    info_mrea_with(bytes, label, json, &LightOptions::default())
}

/// [`info_mrea`] with the light Alt switches.
pub fn info_mrea_with(
    bytes: &[u8],
    label: &str,
    json: bool,
    options: &LightOptions,
) -> anyhow::Result<String> {
    let m = parse_mrea(bytes, label)?;
    Ok(if json {
        serde_json::to_string_pretty(&mrea_json(&m, label, options))?
    } else {
        mrea_text(&m, label, options)
    })
}

/// Parses a matrix written as 16 comma-separated numbers, row-major (translation in
/// elements 3, 7, 11), e.g. `1,0,0,5,0,1,0,0,0,0,1,0,0,0,0,1`.
pub fn parse_matrix(text: &str) -> anyhow::Result<[f32; 16]> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != 16 {
        bail!(
            "a matrix is 16 comma-separated numbers (row-major), got {}",
            parts.len()
        );
    }
    let mut m = [0f32; 16];
    for (i, p) in parts.iter().enumerate() {
        m[i] = p
            .parse()
            .with_context(|| format!("matrix element {i}: {p:?} is not a number"))?;
        if !m[i].is_finite() {
            bail!("matrix element {i} is not finite");
        }
    }
    Ok(m)
}

fn mat4_from_row_major(m: &[f32; 16]) -> Mat4 {
    Mat4::from_cols_array(m).transpose()
}

fn anim_json(anim: &UvAnimation) -> (&'static str, Value) {
    match *anim {
        UvAnimation::InverseModelViewNoTranslation => {
            ("inverse_model_view_no_translation", json!({}))
        }
        UvAnimation::InverseModelView => ("inverse_model_view", json!({})),
        UvAnimation::Scroll {
            offset_u,
            offset_v,
            speed_u,
            speed_v,
        } => (
            "scroll",
            json!({"offset_u": f(offset_u), "offset_v": f(offset_v), "speed_u": f(speed_u), "speed_v": f(speed_v)}),
        ),
        UvAnimation::Rotation { offset, speed } => {
            ("rotation", json!({"offset": f(offset), "speed": f(speed)}))
        }
        UvAnimation::HorizontalFilmstrip {
            scale,
            num_frames,
            step,
            offset,
        } => (
            "horizontal_filmstrip",
            json!({"scale": f(scale), "num_frames": f(num_frames), "step": f(step), "offset": f(offset)}),
        ),
        UvAnimation::VerticalFilmstrip {
            scale,
            num_frames,
            step,
            offset,
        } => (
            "vertical_filmstrip",
            json!({"scale": f(scale), "num_frames": f(num_frames), "step": f(step), "offset": f(offset)}),
        ),
        UvAnimation::Model => ("model", json!({})),
        UvAnimation::Cylinder { scale, phase } => {
            ("cylinder", json!({"scale": f(scale), "phase": f(phase)}))
        }
        UvAnimation::Srt {
            transform_type,
            scale_s,
            scale_t,
            rotation,
            rotation_speed,
            translate_s,
            translate_t,
            translate_s_speed,
            translate_t_speed,
        } => (
            "srt",
            json!({
                "transform_type": transform_type,
                "scale_s": f(scale_s), "scale_t": f(scale_t),
                "rotation": f(rotation), "rotation_speed": f(rotation_speed),
                "translate_s": f(translate_s), "translate_t": f(translate_t),
                "translate_s_speed": f(translate_s_speed), "translate_t_speed": f(translate_t_speed),
            }),
        ),
    }
}

/// `tevscope uvanim FILE.CMDL --material N --time T [--model M] [--view V] --json`:
/// the texture and post matrices of each UV animation of `material` at `time` seconds.
/// `model` is model → world and `view` is Prime's view matrix (camera → world, Prime
/// camera axes X right, Y forward, Z up), both row-major (see [`parse_matrix`]); both
/// default to identity.
pub fn uvanim(
    material: &Material,
    time: f64,
    model: Option<[f32; 16]>,
    view: Option<[f32; 16]>,
) -> anyhow::Result<String> {
    uvanim_with(material, time, model, view, &UvAnimOptions::default())
}

/// [`uvanim`] with the UV-animation Alt switches.
pub fn uvanim_with(
    material: &Material,
    time: f64,
    model: Option<[f32; 16]>,
    view: Option<[f32; 16]>,
    options: &UvAnimOptions,
) -> anyhow::Result<String> {
    if !time.is_finite() {
        bail!("time must be a finite number of seconds");
    }
    let world_from_model = model.as_ref().map_or(Mat4::IDENTITY, mat4_from_row_major);
    let prime_view = view.as_ref().map_or(Mat4::IDENTITY, mat4_from_row_major);
    if prime_view.determinant().abs() < 1e-12 {
        bail!("the view matrix is singular");
    }
    let inputs = UvAnimInputs::at_time(time, options, world_from_model, prime_view);
    let row_major = |m: Mat4| -> Vec<f64> { m.transpose().to_cols_array().map(f).to_vec() };
    let anims: Vec<Value> = material
        .uv_animations
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let m = uvanim::evaluate(a, &inputs, options);
            let (name, params) = anim_json(a);
            json!({
                "index": i,
                "mode": a.mode(),
                "name": name,
                "params": params,
                "texture_matrix_slot": format!("TEXMTX{i}"),
                "texture_matrix": rows(&m.tex),
                "post_matrix_slot": m.post.map(|_| format!("PTTEXMTX{i}")),
                "post_matrix": m.post.as_ref().map(rows),
                "note": uvanim::notes(a).map(|n| n.to_string()),
            })
        })
        .collect();
    let out = json!({
        "time": time,
        "seconds": f(inputs.seconds),
        "model_matrix_row_major": row_major(world_from_model),
        "view_matrix_row_major": row_major(prime_view),
        "options": options,
        "animations": anims,
    });
    Ok(serde_json::to_string_pretty(&out)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrices_parse_row_major() {
        let m = parse_matrix("1,0,0,5, 0,1,0,6, 0,0,1,7, 0,0,0,1").expect("parses");
        let m4 = mat4_from_row_major(&m);
        assert_eq!(m4.w_axis.truncate(), glam::Vec3::new(5.0, 6.0, 7.0));
        assert!(parse_matrix("1,2,3").is_err());
        assert!(parse_matrix("1,0,0,x,0,1,0,0,0,0,1,0,0,0,0,1").is_err());
    }

    #[test]
    fn uvanim_reports_every_animation() {
        let m = Material {
            uv_animations: vec![
                UvAnimation::Scroll {
                    offset_u: 0.0,
                    offset_v: 0.5,
                    speed_u: 0.25,
                    speed_v: 0.0,
                },
                UvAnimation::Model,
            ],
            ..Material::default()
        };
        let model = parse_matrix("1,0,0,10,0,1,0,20,0,0,1,0,0,0,0,1").expect("matrix");
        let out = uvanim(&m, 902.0, Some(model), None).expect("runs");
        let v: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(v["seconds"], json!(2.0));
        let a = &v["animations"];
        assert_eq!(a[0]["mode"], json!(2));
        assert_eq!(a[0]["texture_matrix"][0][3], json!(0.5));
        assert_eq!(a[0]["post_matrix"], Value::Null);
        assert_eq!(a[1]["post_matrix_slot"], json!("PTTEXMTX1"));
        assert_eq!(a[1]["post_matrix"][0][3], json!(f(10.0 * 0.05)));
        assert!(uvanim(&m, f64::NAN, None, None).is_err());
    }
}
