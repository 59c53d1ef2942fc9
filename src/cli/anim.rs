//! CLI functions for skeletons, skins, animations and characters: `info_*` reports and
//! `pose`. The dispatcher calls these; they return the text to print (readable text, or
//! JSON using the conformance files' field names).

use std::fmt::Write as _;

use anyhow::{Context, Result, bail};
use serde_json::{Value, json};

use crate::anim::{Clip, ClipBinding, Pose, PoseOptions, Skeleton};
use crate::formats::ancs::{
    Aabb, Ancs, AnimEvent, AnimResources, BoneRef, MetaAnim, MetaTrans, Pas4, PasValue,
};
use crate::formats::anim::{Anim, AnimCompressed, AnimUncompressed, ChannelMapIndexing};
use crate::formats::char_mp3::{CharMp3, SoundData};
use crate::formats::cinf::Cinf;
use crate::formats::cskr::{Cskr, CskrFooter};
use crate::formats::{Game, asset_id_string, fourcc_string};

/// Parses a game option: `mp1`, `mp2`, `mp3` or `auto` (None: detect where the spec gives
/// a rule, else MP1).
pub fn parse_game(s: &str) -> Result<Option<Game>> {
    Ok(match s.to_ascii_lowercase().as_str() {
        "auto" | "" => None,
        "mp1" | "prime" | "1" => Some(Game::Mp1),
        "mp2" | "echoes" | "2" => Some(Game::Mp2),
        "mp3" | "corruption" | "3" => Some(Game::Mp3),
        other => bail!("unknown game {other:?} (expected mp1, mp2, mp3 or auto)"),
    })
}

fn f(v: f32) -> Value {
    json!(f64::from(v))
}

fn v3(v: [f32; 3]) -> Value {
    json!(v.map(f64::from))
}

fn v4(v: [f32; 4]) -> Value {
    json!(v.map(f64::from))
}

fn id32(v: u32) -> Value {
    json!(asset_id_string(v.into(), false))
}

fn id64(v: u64) -> Value {
    json!(asset_id_string(v, true))
}

fn game_str(g: Game) -> &'static str {
    match g {
        Game::Mp1 => "MP1",
        Game::Mp2 => "MP2",
        Game::Mp3 => "MP3",
    }
}

fn to_json(v: &Value) -> Result<String> {
    Ok(serde_json::to_string_pretty(v)?)
}

fn warnings_text(out: &mut String, warnings: &[String]) {
    for w in warnings {
        let _ = writeln!(out, "warning: {w}");
    }
}

// ---------------------------------------------------------------------------------------
// CINF
// ---------------------------------------------------------------------------------------

/// The CINF report as JSON (conformance field names).
pub fn cinf_json(c: &Cinf) -> Value {
    let bones: Vec<Value> = c
        .bones
        .iter()
        .map(|b| {
            let mut v = json!({
                "id": b.id,
                "name": c.name_of(b.id),
                "parent_id": b.parent_id,
                "position": v3(b.position),
                "local_position": v3(c.local_position(b)),
                "linked_bone_ids": b.linked_bone_ids,
                "children": c.children_of(b.id),
            });
            if let (Some(r), Some(l)) = (b.rotation, b.local_rotation) {
                v["rotation_wxyz"] = v4(r);
                v["local_rotation_wxyz"] = v4(l);
            }
            v
        })
        .collect();
    json!({
        "format": "CINF",
        "game": game_str(c.game),
        "bone_count": c.bones.len(),
        "bones": bones,
        "root_bone_id": c.root_bone_id(),
        "build_order": c.build_order,
        "bone_names": c.bone_names.iter().map(|n| json!({"name": n.name, "bone_id": n.bone_id})).collect::<Vec<_>>(),
        "warnings": c.warnings,
    })
}

pub fn info_cinf(bytes: &[u8], file: &str, game: Option<Game>, as_json: bool) -> Result<String> {
    let c = Cinf::parse(bytes, file, game)?;
    if as_json {
        return to_json(&cinf_json(&c));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "CINF ({}): {} bones, roots {:?}",
        game_str(c.game),
        c.bones.len(),
        c.roots()
    );
    // Print as a tree in evaluation order.
    let skel = Skeleton::from_cinf(&c)?;
    let depth = |mut i: usize| {
        let mut d = 0;
        while let Some(p) = skel.bones()[i].parent {
            d += 1;
            i = p;
        }
        d
    };
    for (i, b) in skel.bones().iter().enumerate() {
        let p = b.bind_position;
        let o = b.local_offset;
        let _ = writeln!(
            out,
            "{:indent$}bone {:>3} {:<20} bind ({:.4}, {:.4}, {:.4})  offset ({:.4}, {:.4}, {:.4})",
            "",
            b.id,
            if b.name.is_empty() {
                "(unnamed)"
            } else {
                &b.name
            },
            p.x,
            p.y,
            p.z,
            o.x,
            o.y,
            o.z,
            indent = 2 * depth(i)
        );
    }
    let _ = writeln!(out, "build order: {:?}", c.build_order);
    warnings_text(&mut out, &c.warnings);
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// CSKR
// ---------------------------------------------------------------------------------------

pub fn cskr_json(s: &Cskr) -> Value {
    let weights = |g: &crate::formats::cskr::WeightGroup| {
        g.weights
            .iter()
            .map(|w| json!({"bone_id": w.bone_id, "weight": f(w.weight)}))
            .collect::<Vec<_>>()
    };
    let footer = match &s.footer {
        CskrFooter::Mp1 { positions, normals } => json!({
            "vertex_count_marker": positions.marker,
            "vertex_count": positions.count,
            "vertex_skipped_words": positions.skipped,
            "normal_count_marker": normals.marker,
            "normal_count": normals.count,
            "normal_skipped_words": normals.skipped,
        }),
        CskrFooter::Mp2 { pool_map, unknown } => json!({
            "pool_map": pool_map,
            "unknown_length": unknown.len(),
            "unknown_hex": unknown.iter().map(|b| format!("{b:02x}")).collect::<String>(),
        }),
    };
    let total = s.total_vertex_count();
    // Per-vertex bindings up to a sane size (the groups can claim billions).
    let shown = total.min(1 << 16) as usize;
    let per_vertex: Vec<Value> = s
        .groups_by_index(shown)
        .into_iter()
        .enumerate()
        .filter_map(|(i, g)| {
            g.map(|g| json!({"vertex": i, "group": g, "weights": weights(&s.groups[g])}))
        })
        .collect();
    json!({
        "format": "CSKR",
        "game": game_str(s.game),
        "skin_version": s.skin_version,
        "vertex_group_count": s.groups.len(),
        "vertex_groups": s.groups.iter().map(|g| json!({"weights": weights(g), "vertex_count": g.vertex_count})).collect::<Vec<_>>(),
        "total_vertex_count": total,
        "footer": footer,
        "per_vertex_binding": per_vertex,
        "warnings": s.warnings,
    })
}

pub fn info_cskr(bytes: &[u8], file: &str, game: Option<Game>, as_json: bool) -> Result<String> {
    let s = Cskr::parse(bytes, file, game)?;
    if as_json {
        return to_json(&cskr_json(&s));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "CSKR ({}): {} weight groups covering {} positions",
        game_str(s.game),
        s.groups.len(),
        s.total_vertex_count()
    );
    let mut start = 0u64;
    for (i, g) in s.groups.iter().enumerate() {
        let end = start + u64::from(g.vertex_count);
        let ws: Vec<String> = g
            .weights
            .iter()
            .map(|w| format!("bone {} × {}", w.bone_id, w.weight))
            .collect();
        let _ = writeln!(
            out,
            "  group {i:>3}: positions {start}..{end}  {}",
            ws.join(", ")
        );
        start = end;
    }
    match &s.footer {
        CskrFooter::Mp1 { positions, normals } => {
            let _ = writeln!(
                out,
                "footer: {} skinned positions, {} skinned normals",
                positions.count, normals.count
            );
        }
        CskrFooter::Mp2 { pool_map, unknown } => {
            let _ = writeln!(
                out,
                "footer: pool map of {} entries, {} unknown bytes",
                pool_map.len(),
                unknown.len()
            );
        }
    }
    warnings_text(&mut out, &s.warnings);
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// ANIM
// ---------------------------------------------------------------------------------------

fn anim0_json(a: &AnimUncompressed) -> Value {
    let bone_to_channel: serde_json::Map<String, Value> = a
        .bone_channels
        .iter()
        .enumerate()
        .filter(|(_, c)| **c != 0xFF)
        .map(|(b, &c)| (b.to_string(), json!(c)))
        .collect();
    let bones = a
        .bones(ChannelMapIndexing::ByChannelValue)
        .unwrap_or_default();
    let frames = a.frame_count;
    let mut per_bone = serde_json::Map::new();
    for b in &bones {
        let mut v = json!({"channel": b.channel});
        if let Some(r) = b.rotation {
            v["rotation_channel"] = json!(r);
            let keys: serde_json::Map<String, Value> = (0..frames)
                .filter_map(|k| a.rotation_key(r, k).map(|q| (k.to_string(), v4(q))))
                .collect();
            v["rotation_wxyz"] = Value::Object(keys);
        }
        if let Some(t) = b.translation {
            v["translation_channel"] = json!(t);
            let keys: serde_json::Map<String, Value> = (0..frames)
                .filter_map(|k| a.translation_key(t, k).map(|q| (k.to_string(), v3(q))))
                .collect();
            v["translation"] = Value::Object(keys);
        }
        if let Some(s) = b.scale {
            v["scale_channel"] = json!(s);
            let keys: serde_json::Map<String, Value> = (0..frames)
                .filter_map(|k| a.scale_key(s, k).map(|q| (k.to_string(), v3(q))))
                .collect();
            v["scale"] = Value::Object(keys);
        }
        per_bone.insert(b.bone_id.to_string(), v);
    }
    let mut out = json!({
        "format": "ANIM",
        "game": game_str(a.game),
        "anim_version": 0,
        "duration": f(a.duration.seconds),
        "duration_differential_state": a.duration.differential_state,
        "key_interval": f(a.interval.seconds),
        "key_interval_differential_state": a.interval.differential_state,
        "key_count": a.frame_count,
        "root_bone_id": a.root_bone_id,
        "bone_channel_index_array_length": a.bone_channels.len(),
        "bone_to_channel": bone_to_channel,
        "translation_channel_index_array": a.translation_channels,
        "rotation_key_count": a.rotation_keys.len(),
        "translation_key_count": a.translation_keys.len(),
        "rotation_keys_channel_major_wxyz": a.rotation_keys.iter().map(|&q| v4(q)).collect::<Vec<_>>(),
        "translation_keys_channel_major": a.translation_keys.iter().map(|&t| v3(t)).collect::<Vec<_>>(),
        "per_bone": per_bone,
        "warnings": a.warnings,
    });
    if let Some(e) = a.evnt_id {
        out["event_id"] = json!(e);
    }
    if let Some(r) = &a.rotation_channels {
        out["rotation_channel_index_array"] = json!(r);
    }
    if let Some(s) = &a.scale_channels {
        out["scale_channel_index_array"] = json!(s);
        out["scale_key_count"] = json!(a.scale_keys.len());
        out["scale_keys_channel_major"] =
            json!(a.scale_keys.iter().map(|&t| v3(t)).collect::<Vec<_>>());
    }
    out
}

fn anim2_json(a: &AnimCompressed) -> Value {
    let q = a.rotation_quantum();
    let frames_of = |keys: &[[i32; 3]], m: f32, name: &str| -> Value {
        let map: serde_json::Map<String, Value> = a
            .stored_frames
            .iter()
            .zip(keys)
            .map(|(fr, k)| {
                (
                    fr.to_string(),
                    json!({"quantized_xyz": k, name: k.map(|v| f64::from(v as f32 * m))}),
                )
            })
            .collect();
        Value::Object(map)
    };
    let deltas = |keys: &[[i32; 3]]| -> Vec<[i32; 3]> {
        keys.windows(2)
            .map(|w| [0, 1, 2].map(|i| w[1][i].wrapping_sub(w[0][i])))
            .collect()
    };
    let channels: Vec<Value> = a
        .channels
        .iter()
        .map(|c| {
            let rotation = c.rotation.map(|p| {
                let xyz: Vec<[i32; 3]> = c.rotation_keys.iter().map(|k| k.0).collect();
                let frames: serde_json::Map<String, Value> = a
                    .stored_frames
                    .iter()
                    .zip(&c.rotation_keys)
                    .map(|(fr, &(k, s))| {
                        // Full precision here; the pose path uses f32.
                        let [x, y, z] = k.map(|v| (f64::from(v) * q).sin());
                        let w = (1.0 - x * x - y * y - z * z).max(0.0).sqrt() * if s { -1.0 } else { 1.0 };
                        (
                            fr.to_string(),
                            json!({"quantized_xyz": k, "wsign": u8::from(s), "quaternion_wxyz": [w, x, y, z]}),
                        )
                    })
                    .collect();
                json!({"key_count": p.key_count, "initial": p.initial, "bits": p.bits, "deltas": deltas(&xyz), "frames": frames})
            });
            let comp = |p: Option<crate::formats::anim::ComponentParams>, keys: &[[i32; 3]], m: f32, name: &str| {
                p.map(|p| {
                    json!({"key_count": p.key_count, "initial": p.initial, "bits": p.bits, "deltas": deltas(keys), "frames": frames_of(keys, m, name)})
                })
            };
            let mut v = json!({
                "bone_id": c.bone_id,
                "rotation": rotation,
                "translation": comp(c.translation, &c.translation_keys, a.translation_multiplier, "translation"),
            });
            if a.game == Game::Mp2 {
                v["scale"] = json!(comp(c.scale, &c.scale_keys, a.scale_multiplier.unwrap_or(1.0), "scale"));
            }
            v
        })
        .collect();
    let mut out = json!({
        "format": "ANIM",
        "game": game_str(a.game),
        "anim_version": 2,
        "scratch_size": a.scratch_size,
        "duration": f(a.duration),
        "interval": f(a.interval),
        "root_bone_id": a.root_bone_id,
        "looping": a.looping,
        "rotation_divisor": a.rotation_divisor,
        "translation_multiplier": f(a.translation_multiplier),
        "bone_channel_count": a.bone_channel_count,
        "unk_3": a.unknown_3,
        "key_bitmap_bit_count": a.key_bitmap_bit_count,
        "key_bitmap": (0..a.key_bitmap_bit_count).map(|i| u8::from(a.is_stored(i) && (i > 0 || (a.key_bitmap[0] & 1) == 1))).collect::<Vec<_>>(),
        "stored_frames": a.stored_frames,
        "bitstream_offset": a.bitstream_offset,
        "bitstream_bits": a.bitstream_bits,
        "frame_count": a.frame_count(),
        "channels": channels,
        "warnings": a.warnings,
    });
    if a.game == Game::Mp1 {
        out["event_id"] = json!(a.evnt_id);
        out["unk_const_1"] = json!(a.unknown_1);
    } else {
        out["unk_mp2_u16"] = json!(a.unknown_mp2);
        out["scale_multiplier"] = f(a.scale_multiplier.unwrap_or(1.0));
    }
    out
}

pub fn anim_json(a: &Anim) -> Value {
    match a {
        Anim::Uncompressed(a) => anim0_json(a),
        Anim::Compressed(a) => anim2_json(a),
    }
}

pub fn info_anim(bytes: &[u8], file: &str, game: Option<Game>, as_json: bool) -> Result<String> {
    let a = Anim::parse(bytes, file, game)?;
    if as_json {
        return to_json(&anim_json(&a));
    }
    let clip = Clip::from_anim(&a)?;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ANIM format {} ({}): {:.4} s, {} frames at {:.4} s, {} stored, root bone {}, {}",
        match a {
            Anim::Uncompressed(_) => 0,
            Anim::Compressed(_) => 2,
        },
        game_str(a.game()),
        clip.duration,
        clip.frame_count,
        clip.interval,
        clip.key_frames.len(),
        clip.root_bone_id,
        if clip.looping {
            "looping"
        } else {
            "not looping"
        }
    );
    if let Anim::Compressed(c) = &a {
        let _ = writeln!(
            out,
            "rotation divisor {}, translation multiplier {}{}; bitstream {} bits at {:#x}",
            c.rotation_divisor,
            c.translation_multiplier,
            c.scale_multiplier
                .map(|m| format!(", scale multiplier {m}"))
                .unwrap_or_default(),
            c.bitstream_bits,
            c.bitstream_offset
        );
        let bitmap: String = (0..c.frame_count())
            .map(|i| if c.is_stored(i) { '1' } else { '.' })
            .collect();
        let _ = writeln!(out, "key bitmap: {bitmap}");
    }
    if let Some(e) = clip.evnt_id {
        let _ = writeln!(
            out,
            "events: {}",
            if e == u32::MAX {
                "none".to_string()
            } else {
                asset_id_string(e.into(), false)
            }
        );
    }
    for c in &clip.channels {
        let mut parts = Vec::new();
        if c.rotation.is_some() {
            parts.push("rotation");
        }
        if c.translation.is_some() {
            parts.push("translation");
        }
        if c.scale.is_some() {
            parts.push("scale");
        }
        let _ = writeln!(out, "  bone {:>3}: {}", c.bone_id, parts.join(" + "));
    }
    warnings_text(&mut out, a.warnings());
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// ANCS and CHAR
// ---------------------------------------------------------------------------------------

fn pas_value(v: &PasValue) -> Value {
    match *v {
        PasValue::Int(i) => json!(i),
        PasValue::UInt(u) | PasValue::Enum(u) => json!(u),
        PasValue::Float(x) => f(x),
        PasValue::Bool(b) => json!(b),
    }
}

fn pas_json(p: &Pas4) -> Value {
    json!({
        "magic": "PAS4",
        "anim_state_count": p.states.len(),
        "default_anim_state": p.default_state,
        "states": p.states.iter().map(|s| json!({
            "type": s.state_type,
            "params": s.params.iter().map(|p| json!({
                "type": p.param_type, "weight_function": p.weight_function, "weight": f(p.weight),
                "min": pas_value(&p.min), "max": pas_value(&p.max),
            })).collect::<Vec<_>>(),
            "anims": s.anims.iter().map(|a| json!({
                "anim_id": a.anim_id, "values": a.values.iter().map(pas_value).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn aabb_json(a: &Aabb) -> (Value, Value) {
    (v3(a.min), v3(a.max))
}

fn meta_json(m: &MetaAnim, wide: bool) -> Value {
    let id = |v: u64| if wide { id64(v) } else { id32(v as u32) };
    match m {
        MetaAnim::Play(p) => json!({
            "type": "Play", "anim_id": id(p.anim_id), "primitive_id": p.primitive_id,
            "name": p.name, "time": f(p.time.seconds), "time_differential_state": p.time.differential_state,
        }),
        MetaAnim::Blend { a, b, weight, flag } | MetaAnim::PhaseBlend { a, b, weight, flag } => {
            json!({
                "type": m.type_name(), "a": meta_json(a, wide), "b": meta_json(b, wide),
                "weight": f(*weight), "flag": flag,
            })
        }
        MetaAnim::Random(v) => json!({
            "type": "Random",
            "entries": v.iter().map(|(m, p)| json!({"probability": p, "anim": meta_json(m, wide)})).collect::<Vec<_>>(),
        }),
        MetaAnim::Sequence(v) => json!({
            "type": "Sequence",
            "children": v.iter().map(|m| meta_json(m, wide)).collect::<Vec<_>>(),
        }),
    }
}

/// An animation entry: name, type, the Play fields flattened for Play nodes, the tree and
/// its primitives.
fn animation_json(name: &str, m: &MetaAnim, wide: bool) -> Value {
    let id = |v: u64| if wide { id64(v) } else { id32(v as u32) };
    let mut v = json!({
        "name": name,
        "meta_type": m.type_code(),
        "tree": meta_json(m, wide),
        "primitives": m.primitives().iter().map(|p| json!({
            "anim_id": id(p.anim_id), "primitive_id": p.primitive_id, "name": p.name,
        })).collect::<Vec<_>>(),
    });
    if let MetaAnim::Play(p) = m {
        v["anim_id"] = id(p.anim_id);
        v["primitive_id"] = json!(p.primitive_id);
        v["primitive_name"] = json!(p.name);
        v["time"] = f(p.time.seconds);
    }
    v
}

fn trans_json(t: &MetaTrans) -> Value {
    let mut v = json!({"type": t.type_code(), "description": t.describe(false)});
    match t {
        MetaTrans::Animation(m) => v["animation"] = meta_json(m, false),
        MetaTrans::Transition {
            duration,
            duration_mode,
            unknown,
            run_a,
            flags,
            ..
        } => {
            v["duration"] = f(*duration);
            v["duration_mode"] = json!(duration_mode);
            v["unknown"] = json!(unknown);
            v["run_a"] = json!(run_a);
            v["flags"] = json!(flags);
        }
        MetaTrans::Snap => {}
    }
    v
}

fn bone_ref(b: &BoneRef) -> Value {
    match b {
        BoneRef::Name(n) => json!(n),
        BoneRef::Id(i) => json!(i),
    }
}

fn event_json(e: &AnimEvent) -> Value {
    let base = |b: &crate::formats::ancs::EventBase, kind: &str| {
        json!({
            "kind": kind, "name": b.name, "type": b.event_type, "time": f(b.time.seconds),
            "index": b.index, "unique": b.unique, "weight": f(b.weight),
            "character_index": b.character_index, "flags": b.flags, "unknown": b.unknown,
        })
    };
    match e {
        AnimEvent::Loop { base: b, looping } => {
            let mut v = base(b, "loop");
            v["looping"] = json!(looping);
            v
        }
        AnimEvent::User {
            base: b,
            value,
            locator,
        } => {
            let mut v = base(b, "user");
            v["value"] = json!(value);
            v["locator"] = json!(locator);
            v
        }
        AnimEvent::Effect {
            base: b,
            frame_count,
            kind,
            particle_id,
            bone,
            scale,
            parented_mode,
        } => {
            let mut v = base(b, "effect");
            v["frame_count"] = json!(frame_count);
            v["particle_type"] = json!(fourcc_string(*kind));
            v["particle_id"] = id32(*particle_id);
            v["bone"] = bone_ref(bone);
            v["scale"] = f(*scale);
            v["parented_mode"] = json!(parented_mode);
            v
        }
        AnimEvent::Sound {
            base: b,
            sound_id,
            falloff,
            max_distance,
            extra,
        } => {
            let mut v = base(b, "sound");
            v["sound_id"] = json!(sound_id);
            v["falloff"] = f(*falloff);
            v["max_distance"] = f(*max_distance);
            if let Some(x) = extra {
                v["extra"] = json!(x);
            }
            v
        }
    }
}

pub fn ancs_json(a: &Ancs) -> Value {
    let characters: Vec<Value> =
        a.characters
            .iter()
            .map(|c| {
                let mut particles = json!({
                    "PART": c.particles.part.iter().map(|&i| id32(i)).collect::<Vec<_>>(),
                    "SWHC": c.particles.swhc.iter().map(|&i| id32(i)).collect::<Vec<_>>(),
                    "ELSC": c.particles.elsc.iter().map(|&i| id32(i)).collect::<Vec<_>>(),
                });
                if let Some(u) = c.particles.unknown_u32 {
                    particles["unknown_u32"] = json!(u);
                }
                if let Some(s) = &c.particles.spsc {
                    particles["SPSC"] = json!(s.iter().map(|&i| id32(i)).collect::<Vec<_>>());
                }
                let mut v = json!({
                    "id": c.id,
                    "info_version": c.version,
                    "name": c.name,
                    "model_id": id32(c.model_id),
                    "skin_id": id32(c.skin_id),
                    "skeleton_id": id32(c.skeleton_id),
                    "animation_names": c.animation_names.iter().map(|n| {
                        let mut v = json!({"id": n.id, "name": n.name});
                        if let Some(s) = &n.unknown_string { v["unknown_string"] = json!(s); }
                        v
                    }).collect::<Vec<_>>(),
                    "pas_database": pas_json(&c.pas_database),
                    "particles": particles,
                    "unknown_1": c.unknown_1,
                });
                if let Some(u) = c.unknown_2 {
                    v["unknown_2"] = json!(u);
                }
                if let Some(aabbs) = &c.animation_aabbs {
                    v["animation_aabbs"] = json!(
                        aabbs
                            .iter()
                            .map(|n| {
                                let (min, max) = aabb_json(&n.aabb);
                                json!({"name": n.name, "min": min, "max": max})
                            })
                            .collect::<Vec<_>>()
                    );
                }
                if let Some(effects) = &c.effects {
                    v["effects"] =
                        json!(effects.iter().map(|e| json!({
                    "name": e.name,
                    "components": e.components.iter().map(|c| json!({
                        "name": c.name, "type": fourcc_string(c.kind), "id": id32(c.id),
                        "bone": bone_ref(&c.bone), "scale": f(c.scale),
                        "parented_mode": c.parented_mode, "flags": c.flags,
                    })).collect::<Vec<_>>(),
                })).collect::<Vec<_>>());
                }
                if let Some((m, s)) = c.frozen {
                    v["frozen_model"] = id32(m);
                    v["frozen_skin"] = id32(s);
                }
                if let Some(map) = &c.animation_id_map {
                    v["animation_id_map"] = json!(map);
                }
                if let Some(sp) = &c.spatial {
                    v["spatial_primitives"] = json!({
                        "cspp_id": id32(sp.cspp_id),
                        "unknown_u8": sp.unknown_u8,
                        "entries": sp.entries.iter().map(|(id, b)| {
                            let (min, max) = aabb_json(b);
                            json!({"id": id, "min": min, "max": max})
                        }).collect::<Vec<_>>(),
                    });
                }
                v
            })
            .collect();
    let s = &a.animation_set;
    let mut set = json!({
        "table_count": s.table_version,
        "animations": s.animations.iter().map(|n| animation_json(&n.name, &n.meta, false)).collect::<Vec<_>>(),
        "transitions": s.transitions.iter().map(|t| {
            let mut v = trans_json(&t.meta);
            v["unknown"] = json!(t.unknown);
            v["anim_a"] = json!(t.anim_a);
            v["anim_b"] = json!(t.anim_b);
            v
        }).collect::<Vec<_>>(),
        "default_transition_type": s.default_transition.type_code(),
        "default_transition": trans_json(&s.default_transition),
    });
    if let Some((add, fade_in, fade_out)) = &s.additive {
        set["additive_animations"] = json!(
            add.iter()
                .map(|a| json!({
                    "anim_id": a.anim_id, "fade_in": f(a.fade_in), "fade_out": f(a.fade_out),
                }))
                .collect::<Vec<_>>()
        );
        set["default_fade_in_time"] = f(*fade_in);
        set["default_fade_out_time"] = f(*fade_out);
    }
    if let Some(half) = &s.half_transitions {
        set["half_transitions"] = json!(
            half.iter()
                .map(|(id, t)| {
                    let mut v = trans_json(t);
                    v["anim_id"] = json!(id);
                    v
                })
                .collect::<Vec<_>>()
        );
    }
    match &s.resources {
        AnimResources::Mp1(pairs) => {
            set["animation_resources"] = json!(
                pairs
                    .iter()
                    .map(|&(a, e)| json!({"anim_id": id32(a), "evnt_id": id32(e)}))
                    .collect::<Vec<_>>()
            );
        }
        AnimResources::Mp2(sets) => {
            set["event_sets"] = json!(
                sets.iter()
                    .map(|s| json!({
                        "version": s.version,
                        "events": s.events.iter().map(event_json).collect::<Vec<_>>(),
                    }))
                    .collect::<Vec<_>>()
            );
        }
        AnimResources::Mp2Raw(bytes) => {
            set["event_data_raw_length"] = json!(bytes.len());
        }
    }
    json!({
        "format": "ANCS",
        "game": game_str(a.game),
        "version": a.version,
        "character_set_version": a.character_set_version,
        "characters": characters,
        "animation_set": set,
        "warnings": a.warnings,
    })
}

pub fn info_ancs(bytes: &[u8], file: &str, game: Option<Game>, as_json: bool) -> Result<String> {
    let a = Ancs::parse(bytes, file, game)?;
    if as_json {
        return to_json(&ancs_json(&a));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ANCS ({}): {} characters, {} animations, {} transitions",
        game_str(a.game),
        a.characters.len(),
        a.animation_set.animations.len(),
        a.animation_set.transitions.len()
    );
    for c in &a.characters {
        let _ = writeln!(
            out,
            "character {} {:?} (v{}): model {}, skin {}, skeleton {}",
            c.id,
            c.name,
            c.version,
            asset_id_string(c.model_id.into(), false),
            asset_id_string(c.skin_id.into(), false),
            asset_id_string(c.skeleton_id.into(), false)
        );
        if let Some((m, s)) = c.frozen {
            let _ = writeln!(
                out,
                "  frozen overlay: model {}, skin {}",
                asset_id_string(m.into(), false),
                asset_id_string(s.into(), false)
            );
        }
        let _ = writeln!(
            out,
            "  {} animation names, {} PAS4 states, particles: {} PART, {} SWHC, {} ELSC{}",
            c.animation_names.len(),
            c.pas_database.states.len(),
            c.particles.part.len(),
            c.particles.swhc.len(),
            c.particles.elsc.len(),
            c.particles
                .spsc
                .as_ref()
                .map(|s| format!(", {} SPSC", s.len()))
                .unwrap_or_default()
        );
    }
    let _ = writeln!(out, "animations:");
    for (i, n) in a.animation_set.animations.iter().enumerate() {
        let _ = writeln!(out, "  {i:>3} {:<24} {}", n.name, n.meta.describe(false));
    }
    if let AnimResources::Mp1(pairs) = &a.animation_set.resources {
        let _ = writeln!(out, "ANIM/EVNT pairs:");
        for &(anim, evnt) in pairs {
            let _ = writeln!(
                out,
                "  {} → {}",
                asset_id_string(anim.into(), false),
                asset_id_string(evnt.into(), false)
            );
        }
    }
    warnings_text(&mut out, &a.warnings);
    Ok(out)
}

pub fn char_json(c: &CharMp3) -> Value {
    let base = |b: &crate::formats::char_mp3::Mp3EventBase| {
        json!({
            "name": b.name, "type": b.event_type, "time": f(b.time.seconds), "index": b.index,
            "unique": b.unique, "weight": f(b.weight), "character_index": b.character_index, "flags": b.flags,
        })
    };
    let sound_data = |d: &SoundData| match d {
        SoundData::Value(v) => json!({"kind": 1, "value": v}),
        SoundData::Spline(s) => json!({
            "kind": 2, "pre_infinity": s.pre_infinity, "post_infinity": s.post_infinity,
            "knots": s.knots.iter().map(|k| json!({
                "time": f(k.time), "amplitude": f(k.amplitude), "mode_a": k.mode_a, "mode_b": k.mode_b,
                "tangent_a": k.tangent_a.map(|t| t.map(f64::from)), "tangent_b": k.tangent_b.map(|t| t.map(f64::from)),
            })).collect::<Vec<_>>(),
            "clamp_mode": s.clamp_mode, "min_amplitude": f(s.min_amplitude), "max_amplitude": f(s.max_amplitude),
        }),
        SoundData::Other(k) => json!({"kind": k}),
    };
    json!({
        "format": "CHAR",
        "game": "MP3",
        "version": c.version,
        "id": c.id,
        "name": c.name,
        "model_id": id64(c.model_id),
        "skin_id": id64(c.skin_id),
        "overlays": c.overlays.iter().map(|o| json!({
            "type": fourcc_string(o.kind), "model_id": id64(o.model_id), "skin_id": id64(o.skin_id),
        })).collect::<Vec<_>>(),
        "skeleton_id": id64(c.skeleton_id),
        "sand_id": id64(c.sand_id),
        "pas_database": pas_json(&c.pas_database),
        "particles": {
            "PART": c.particles.part.iter().map(|&i| id64(i)).collect::<Vec<_>>(),
            "SWHC": c.particles.swhc.iter().map(|&i| id64(i)).collect::<Vec<_>>(),
            "ELSC": c.particles.elsc.iter().map(|&i| id64(i)).collect::<Vec<_>>(),
            "SPSC": c.particles.spsc.iter().map(|&i| id64(i)).collect::<Vec<_>>(),
            "unknown": c.particles.unknown,
        },
        "event_sets": c.event_sets.iter().map(|s| json!({
            "anim_id": s.anim_id,
            "name": s.name,
            "particle_events": s.particle_events.iter().map(|e| {
                let mut v = base(&e.base);
                v["set_name"] = json!(e.set_name);
                v["particle_type"] = json!(fourcc_string(e.kind));
                v["particle_id"] = id64(e.particle_id);
                v
            }).collect::<Vec<_>>(),
            "sound_events": s.sound_events.iter().map(|e| {
                let mut v = base(&e.base);
                v["set_name"] = json!(e.set_name);
                v["sound_id"] = id64(e.sound_id);
                v["data"] = json!(e.data.iter().map(sound_data).collect::<Vec<_>>());
                v
            }).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "animations": c.animations.iter().map(|a| animation_json(&a.name, &a.meta, true)).collect::<Vec<_>>(),
        "animation_aabbs": c.animation_aabbs.iter().map(|(id, b)| {
            let (min, max) = aabb_json(b);
            json!({"anim_id": id64(*id), "min": min, "max": max})
        }).collect::<Vec<_>>(),
        "bool": c.unknown_bool,
        "unk_bool_array": c.unknown_bools,
        "collision_sets": c.collision_sets.iter().map(|s| json!({
            "name": s.name,
            "primitives": s.primitives.iter().map(|p| json!({
                "name": p.name, "unknown_words": p.unknown_words,
                "unknown_floats": p.unknown_floats.map(f64::from), "unknown_f32": f(p.unknown_f32),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "sound_resources": c.sound_resources.iter().map(|&i| id64(i)).collect::<Vec<_>>(),
        "warnings": c.warnings,
    })
}

pub fn info_char(bytes: &[u8], file: &str, as_json: bool) -> Result<String> {
    let c = CharMp3::parse(bytes, file)?;
    if as_json {
        return to_json(&char_json(&c));
    }
    let id = |v: u64| asset_id_string(v, true);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "CHAR (MP3) v{} character {} {:?}: model {}, skin {}, skeleton {}, SAND {}",
        c.version,
        c.id,
        c.name,
        id(c.model_id),
        id(c.skin_id),
        id(c.skeleton_id),
        id(c.sand_id)
    );
    for o in &c.overlays {
        let _ = writeln!(
            out,
            "  overlay {}: model {}, skin {}",
            fourcc_string(o.kind),
            id(o.model_id),
            id(o.skin_id)
        );
    }
    let _ = writeln!(
        out,
        "  {} PAS4 states; particles: {} PART, {} SWHC, {} ELSC, {} SPSC; {} event sets; {} collision sets; {} sounds",
        c.pas_database.states.len(),
        c.particles.part.len(),
        c.particles.swhc.len(),
        c.particles.elsc.len(),
        c.particles.spsc.len(),
        c.event_sets.len(),
        c.collision_sets.len(),
        c.sound_resources.len()
    );
    let _ = writeln!(out, "animations:");
    for (i, a) in c.animations.iter().enumerate() {
        let _ = writeln!(out, "  {i:>3} {:<24} {}", a.name, a.meta.describe(true));
    }
    warnings_text(&mut out, &c.warnings);
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// pose
// ---------------------------------------------------------------------------------------

/// `pose` with MP1/MP2 detection and default options.
pub fn pose(anim_bytes: &[u8], cinf_bytes: &[u8], time: f32, as_json: bool) -> Result<String> {
    pose_with(
        anim_bytes,
        cinf_bytes,
        time,
        None,
        &PoseOptions::default(),
        as_json,
    )
}

/// Poses the CINF's skeleton with the ANIM at `time` seconds and reports every bone: ID,
/// name, local rotation (w, x, y, z), translation, scale and the model-space matrix.
pub fn pose_with(
    anim_bytes: &[u8],
    cinf_bytes: &[u8],
    time: f32,
    game: Option<Game>,
    options: &PoseOptions,
    as_json: bool,
) -> Result<String> {
    let anim = Anim::parse(anim_bytes, "ANIM", game).context("reading the animation")?;
    let cinf = Cinf::parse(cinf_bytes, "CINF", game).context("reading the skeleton")?;
    let skeleton = Skeleton::from_cinf(&cinf)?;
    let clip = Clip::from_anim(&anim)?;
    let binding = ClipBinding::new(&clip, &skeleton)?;
    let mut pose = Pose::bind(&skeleton, options);
    pose.sample(&skeleton, &clip, &binding, time, options);
    let sampled_time = clip.normalize_time(time, options.force_loop);

    let wxyz = |q: glam::Quat| [q.w, q.x, q.y, q.z];
    if as_json {
        let bones: Vec<Value> = skeleton
            .bones()
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let l = pose.local[i];
                let m = pose.model[i];
                let rows = pose.model_from_bone(i).transpose().to_cols_array_2d();
                json!({
                    "id": b.id,
                    "name": b.name,
                    "parent_id": b.parent.map(|p| skeleton.bones()[p].id),
                    "animated": clip.channel_of_bone(b.id).is_some(),
                    "local": {
                        "rotation_wxyz": v4(wxyz(l.rotation)),
                        "translation": v3(l.translation.to_array()),
                        "scale": v3(l.scale.to_array()),
                    },
                    "model": {
                        "rotation_wxyz": v4(wxyz(m.rotation)),
                        "translation": v3(m.translation.to_array()),
                        "scale": v3(m.scale.to_array()),
                    },
                    "model_from_bone_rows": rows.map(|r| r.map(f64::from)),
                })
            })
            .collect();
        return to_json(&json!({
            "time": f(time),
            "sampled_time": f(sampled_time),
            "game": game_str(anim.game()),
            "anim_format": match anim { Anim::Uncompressed(_) => 0, Anim::Compressed(_) => 2 },
            "duration": f(clip.duration),
            "looping": clip.looping || options.force_loop,
            "bones": bones,
            "warnings": anim.warnings().iter().chain(&cinf.warnings).collect::<Vec<_>>(),
        }));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "pose at t = {time} s (sampled at {sampled_time:.4} s of {:.4} s), {} bones",
        clip.duration,
        skeleton.len()
    );
    for (i, b) in skeleton.bones().iter().enumerate() {
        let l = pose.local[i];
        let [w, x, y, z] = wxyz(l.rotation);
        let t = l.translation;
        let s = l.scale;
        let _ = writeln!(
            out,
            "bone {:>3} {:<20}{} rot (w {w:.5}, x {x:.5}, y {y:.5}, z {z:.5})  trans ({:.5}, {:.5}, {:.5})  scale ({:.3}, {:.3}, {:.3})",
            b.id,
            if b.name.is_empty() {
                "(unnamed)"
            } else {
                &b.name
            },
            if clip.channel_of_bone(b.id).is_some() {
                "*"
            } else {
                " "
            },
            t.x,
            t.y,
            t.z,
            s.x,
            s.y,
            s.z
        );
        for r in pose.model_from_bone(i).transpose().to_cols_array_2d() {
            let _ = writeln!(
                out,
                "      [{:>9.5} {:>9.5} {:>9.5} {:>9.5}]",
                r[0], r[1], r[2], r[3]
            );
        }
    }
    let _ = writeln!(
        out,
        "(* = animated; matrices are model_from_bone, row-major)"
    );
    warnings_text(&mut out, anim.warnings());
    warnings_text(&mut out, &cinf.warnings);
    Ok(out)
}
