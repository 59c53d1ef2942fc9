//! MP3 characters (CHAR, formats.md §10 and §13.7): the model, skin, skeleton, overlays
//! and animations a CHAR names, found by asset ID the way an ANCS character's parts are
//! ([`super::model`]). The CMDL is returned unparsed: [`super::model::load`] reads it like
//! any other model.

use anyhow::Result;

use super::parts::{LoadRequest, Part, character_clips, find_part};
use super::source::{Resolver, Resource};
use crate::anim::{Clip, Skeleton};
use crate::formats::char_mp3::CharMp3;
use crate::formats::cinf::Cinf;
use crate::formats::cskr::Cskr;
use crate::formats::sand::Sand;
use crate::formats::{FourCc, Game};

/// "No asset" (formats.md §0): all ones, or 0.
fn is_none(id: u64) -> bool {
    id == u64::MAX || id == 0
}

/// An overlay (FRZN frozen, HYPR hypermode, ACID acid rain, XRAY X-ray visor): an
/// alternative model and skin, each None when it is not found.
#[derive(Debug)]
pub struct Mp3Overlay {
    pub kind: FourCc,
    pub model: Option<Resource>,
    pub skin: Option<Resource>,
}

/// A CHAR with what it refers to.
#[derive(Debug)]
pub struct Mp3Character {
    pub char: CharMp3,
    /// The CMDL (unparsed).
    pub model: Resource,
    pub skin: Cskr,
    pub skeleton: Skeleton,
    pub overlays: Vec<Mp3Overlay>,
    /// Each named meta-animation as a clip (Play entries as is, trees baked).
    pub clips: Vec<(String, Clip)>,
    /// The SAND (transitions and event sets, §13.7) when the CHAR names one and it is found
    /// and reads (else a warning says why).
    pub sand: Option<Sand>,
}

/// Resolves a CHAR's parts through `resolver` (explicit `--model`, `--skin`, `--skeleton`
/// first). Missing overlays and a missing SAND are warnings; a missing model, skin or
/// skeleton is an error ([`super::model::MissingPart`]).
pub fn resolve(
    input: &Resource,
    req: &LoadRequest,
    resolver: &dyn Resolver,
    warnings: &mut Vec<String>,
    sources: &mut Vec<String>,
) -> Result<Mp3Character> {
    let game = Some(Game::Mp3);
    let c = CharMp3::parse(&input.bytes, &input.label)?;
    warnings.extend(c.warnings.iter().cloned());
    let name = Some(c.name.as_str());
    let model = find_part(
        resolver,
        req.model.as_deref(),
        c.model_id,
        b"CMDL",
        Part::Model,
        name,
        sources,
    )?;
    let skin = find_part(
        resolver,
        req.skin.as_deref(),
        c.skin_id,
        b"CSKR",
        Part::Skin,
        name,
        sources,
    )?;
    let cinf = find_part(
        resolver,
        req.skeleton.as_deref(),
        c.skeleton_id,
        b"CINF",
        Part::Skeleton,
        name,
        sources,
    )?;
    let skin = Cskr::parse(&skin.bytes, &skin.label, game)?;
    warnings.extend(skin.warnings.iter().map(|w| format!("skin: {w}")));
    let cinf = Cinf::parse(&cinf.bytes, &cinf.label, game)?;
    warnings.extend(cinf.warnings.iter().map(|w| format!("skeleton: {w}")));
    let skeleton = Skeleton::from_cinf(&cinf)?;

    let mut find_optional =
        |id: u64, fourcc: &[u8; 4], what: String, warnings: &mut Vec<String>| {
            if is_none(id) {
                return None;
            }
            match resolver.find(id, Some(*fourcc)) {
                Ok(Some(r)) => {
                    sources.push(format!(
                        "{what} 0x{id:016X}.{}: {}",
                        FourCc(*fourcc),
                        r.label
                    ));
                    Some(r)
                }
                Ok(None) => {
                    warnings.push(format!(
                        "{what}: 0x{id:016X}.{} not found in {}",
                        FourCc(*fourcc),
                        resolver.describe()
                    ));
                    None
                }
                Err(e) => {
                    warnings.push(format!("{what}: {e:#}"));
                    None
                }
            }
        };
    let overlays = c
        .overlays
        .iter()
        .map(|o| {
            let kind = FourCc(o.kind);
            Mp3Overlay {
                kind,
                model: find_optional(
                    o.model_id,
                    b"CMDL",
                    format!("overlay {kind} model"),
                    warnings,
                ),
                skin: find_optional(o.skin_id, b"CSKR", format!("overlay {kind} skin"), warnings),
            }
        })
        .collect();
    let sand =
        find_optional(c.sand_id, b"SAND", "animation data".to_owned(), warnings).and_then(|r| {
            match Sand::parse(&r.bytes, &r.label) {
                Ok(s) => {
                    warnings.extend(s.warnings.iter().map(|w| format!("animation data: {w}")));
                    Some(s)
                }
                Err(e) => {
                    warnings.push(format!("animation data: {e}"));
                    None
                }
            }
        });
    let clips = character_clips(
        c.animations.iter().map(|a| (a.name.as_str(), &a.meta)),
        resolver,
        game,
        warnings,
        sources,
    );
    Ok(Mp3Character {
        char: c,
        model,
        skin,
        skeleton,
        overlays,
        clips,
        sand,
    })
}
