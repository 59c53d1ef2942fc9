//! CLI functions for skeletons, skins, animations and characters: `info_*` reports and
//! `pose`. The dispatcher calls these; they return the text to print (readable text, or
//! JSON using the conformance files' field names).

use std::fmt::Write as _;

use crate::anim::{Clip, ClipBinding, Pose, PoseOptions, Skeleton};
use crate::formats::ancs::{Ancs, AnimResources};
use crate::formats::anim::Anim;
use crate::formats::char_mp3::CharMp3;
use crate::formats::cinf::Cinf;
use crate::formats::cskr::{Cskr, CskrFooter};
use crate::formats::{Game, asset_id_string, fourcc_string};
use crate::schema::{
    self,
    anim::{AnimInfo, PoseInfo},
    character::{AncsInfo, CharInfo},
    cinf::CinfInfo,
    cskr::CskrInfo,
};
use anyhow::{Context, Result, bail};

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

/// A report as JSON with its keys sorted, as every `info` report of these formats has always
/// printed (see [`schema::sorted_json`]).
fn to_json<T: serde::Serialize>(report: &T) -> Result<String> {
    Ok(schema::sorted_json(report)?)
}

fn warnings_text(out: &mut String, warnings: &[String]) {
    for w in warnings {
        let _ = writeln!(out, "warning: {w}");
    }
}

// ---------------------------------------------------------------------------------------
// CINF
// ---------------------------------------------------------------------------------------

pub fn info_cinf(bytes: &[u8], file: &str, game: Option<Game>, as_json: bool) -> Result<String> {
    let c = Cinf::parse(bytes, file, game)?;
    if as_json {
        return to_json(&CinfInfo::from_cinf(&c));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "CINF ({}): {} bones, roots {:?}",
        schema::game_name(c.game),
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

pub fn info_cskr(bytes: &[u8], file: &str, game: Option<Game>, as_json: bool) -> Result<String> {
    let s = Cskr::parse(bytes, file, game)?;
    if as_json {
        return to_json(&CskrInfo::from_cskr(&s));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "CSKR ({}): {} weight groups covering {} positions",
        schema::game_name(s.game),
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

pub fn info_anim(bytes: &[u8], file: &str, game: Option<Game>, as_json: bool) -> Result<String> {
    let a = Anim::parse(bytes, file, game)?;
    if as_json {
        return to_json(&AnimInfo::from_anim(&a));
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
        schema::game_name(a.game()),
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

pub fn info_ancs(bytes: &[u8], file: &str, game: Option<Game>, as_json: bool) -> Result<String> {
    let a = Ancs::parse(bytes, file, game)?;
    if as_json {
        return to_json(&AncsInfo::from_ancs(&a));
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ANCS ({}): {} characters, {} animations, {} transitions",
        schema::game_name(a.game),
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

pub fn info_char(bytes: &[u8], file: &str, as_json: bool) -> Result<String> {
    let c = CharMp3::parse(bytes, file)?;
    if as_json {
        return to_json(&CharInfo::from_char(&c));
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
        return to_json(&PoseInfo::new(
            &skeleton, &clip, &pose, &anim, &cinf, time, options,
        ));
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
