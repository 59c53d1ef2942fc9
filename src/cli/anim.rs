//! CLI functions for skeletons, skins, animations and characters: `info_*` reports and
//! `pose`. The dispatcher calls these; they return the text to print (readable text, or
//! JSON using the conformance files' field names).

use crate::anim::{Clip, ClipBinding, Pose, PoseOptions, Skeleton};
use crate::formats::Game;
use crate::formats::ancs::Ancs;
use crate::formats::anim::Anim;
use crate::formats::char_mp3::CharMp3;
use crate::formats::cinf::Cinf;
use crate::formats::cskr::Cskr;
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

// ---------------------------------------------------------------------------------------
// CINF
// ---------------------------------------------------------------------------------------

pub fn info_cinf(bytes: &[u8], file: &str, game: Option<Game>, as_json: bool) -> Result<String> {
    let c = Cinf::parse(bytes, file, game)?;
    if as_json {
        return to_json(&CinfInfo::from_cinf(&c));
    }
    Ok(schema::cinf::text(&c)?)
}

// ---------------------------------------------------------------------------------------
// CSKR
// ---------------------------------------------------------------------------------------

pub fn info_cskr(bytes: &[u8], file: &str, game: Option<Game>, as_json: bool) -> Result<String> {
    let s = Cskr::parse(bytes, file, game)?;
    if as_json {
        return to_json(&CskrInfo::from_cskr(&s));
    }
    Ok(schema::cskr::text(&s))
}

// ---------------------------------------------------------------------------------------
// ANIM
// ---------------------------------------------------------------------------------------

pub fn info_anim(bytes: &[u8], file: &str, game: Option<Game>, as_json: bool) -> Result<String> {
    let a = Anim::parse(bytes, file, game)?;
    if as_json {
        return to_json(&AnimInfo::from_anim(&a));
    }
    Ok(schema::anim::text(&a)?)
}

// ---------------------------------------------------------------------------------------
// ANCS and CHAR
// ---------------------------------------------------------------------------------------

pub fn info_ancs(bytes: &[u8], file: &str, game: Option<Game>, as_json: bool) -> Result<String> {
    let a = Ancs::parse(bytes, file, game)?;
    if as_json {
        return to_json(&AncsInfo::from_ancs(&a));
    }
    Ok(schema::character::ancs_text(&a))
}

pub fn info_char(bytes: &[u8], file: &str, as_json: bool) -> Result<String> {
    let c = CharMp3::parse(bytes, file)?;
    if as_json {
        return to_json(&CharInfo::from_char(&c));
    }
    Ok(schema::character::char_text(&c))
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
    // An MP3 animation (told by its bytes) poses an MP3 skeleton, which its bytes cannot tell
    // from an MP2 one.
    let game = game.or((anim.game() == Game::Mp3).then_some(Game::Mp3));
    let cinf = Cinf::parse(cinf_bytes, "CINF", game).context("reading the skeleton")?;
    let skeleton = Skeleton::from_cinf(&cinf)?;
    let clip = Clip::from_anim(&anim)?;
    let binding = ClipBinding::new(&clip, &skeleton)?;
    let mut pose = Pose::bind(&skeleton, options);
    pose.sample(&skeleton, &clip, &binding, time, options);

    if as_json {
        return to_json(&PoseInfo::new(
            &skeleton, &clip, &pose, &anim, &cinf, time, options,
        ));
    }
    let text = schema::anim::pose_text(&skeleton, &clip, &pose, &anim, &cinf, time, options);
    Ok(text)
}
