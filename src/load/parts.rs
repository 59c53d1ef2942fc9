//! What a load asks for and how a model's parts are found: the request, the parts a
//! character refers to (found by ID, name, or as the only one of their type), and its
//! meta-animations as clips — shared by ANCS characters ([`super::model`]) and MP3
//! characters ([`super::character_mp3`]).

use std::collections::HashMap;

use anyhow::{Result, anyhow, bail};

use super::source::{self, Resolver, Resource};
use crate::anim::{Clip, MetaClip, SlerpMode, bake};
use crate::formats::ancs::MetaAnim;
use crate::formats::anim::Anim;
use crate::formats::{FourCc, Game, asset_id_string};

/// What to open, and the user's explicit choices for what it refers to.
#[derive(Debug, Clone, Default)]
pub struct LoadRequest {
    /// `FILE`, `PAK:ID` or `PAK:name` (see [`source`]).
    pub file: String,
    /// A CMDL to draw instead of the model a character names.
    pub model: Option<String>,
    /// A CSKR to use instead of the character's (or to skin a bare CMDL).
    pub skin: Option<String>,
    /// A CINF to use instead of the character's (or for a bare CMDL).
    pub skeleton: Option<String>,
    /// An animation name of the character, or an ANIM file / `PAK:ID`.
    pub anim: Option<String>,
    /// Folders searched for textures (and other resources) before the input's own.
    pub texture_dirs: Vec<std::path::PathBuf>,
    pub game: Option<Game>,
    /// The MP3 Alts switched on (`--mp3-alt`).
    pub mp3_alts: super::Mp3Alts,
}

impl LoadRequest {
    pub fn new(file: &str) -> Self {
        Self {
            file: file.to_owned(),
            ..Self::default()
        }
    }
}

/// A part a character refers to, which the caller may also give explicitly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    Model,
    Skin,
    Skeleton,
}

impl Part {
    /// Its name in messages (`model`).
    pub fn name(self) -> &'static str {
        match self {
            Part::Model => "model",
            Part::Skin => "skin",
            Part::Skeleton => "skeleton",
        }
    }
}

/// A part of a character found neither by asset ID, by name nor as the only file of its
/// type. The edges say how to give it (`--model`, the viewer's References).
#[derive(Debug, thiserror::Error)]
#[error(
    "{} 0x{id:08X}.{fourcc} not found in {place} (looked for 0x{id:08X}.{fourcc} and \
     {id:08X}.{fourcc}, then a single {fourcc} beside the input)",
    part.name()
)]
pub struct MissingPart {
    pub part: Part,
    pub id: u64,
    pub fourcc: FourCc,
    /// Where the lookups went ([`Resolver::describe`]).
    pub place: String,
}

impl MissingPart {
    /// The missing part behind `e`, if that is why it failed.
    pub fn find(e: &anyhow::Error) -> Option<&MissingPart> {
        e.chain().find_map(|c| c.downcast_ref::<MissingPart>())
    }
}

/// How a referenced resource was found, for [`LoadedModel::sources`].
#[derive(Debug, Clone, Copy)]
enum Found {
    ById,
    ByName,
    OnlyOfType,
    Given,
}

impl Found {
    fn describe(self, fourcc: &[u8; 4]) -> String {
        let t = String::from_utf8_lossy(fourcc);
        match self {
            Found::ById => "by asset ID".to_owned(),
            Found::ByName => "by name".to_owned(),
            Found::OnlyOfType => format!("the only {t} beside the input"),
            Found::Given => "chosen explicitly".to_owned(),
        }
    }
}

/// Finds what a character refers to: the explicitly `given` file or `PAK:ID`, else by asset
/// ID, else by `name` (a file or PAK name), else — for the parts a character has one of —
/// the only file of that type beside the input. Records the choice in `sources`.
pub(super) fn find_part(
    resolver: &dyn Resolver,
    given: Option<&str>,
    id: u64,
    fourcc: &[u8; 4],
    part: Part,
    name: Option<&str>,
    sources: &mut Vec<String>,
) -> Result<Resource> {
    let what = part.name();
    if let Some(spec) = given {
        return open_given(spec, fourcc, what, sources);
    }
    let t = FourCc(*fourcc);
    let mut found = resolver.find(id, Some(*fourcc))?.map(|r| (r, Found::ById));
    if found.is_none()
        && let Some(name) = name
    {
        found = resolver
            .find_named(name, *fourcc)?
            .map(|r| (r, Found::ByName));
    }
    if found.is_none() {
        found = resolver
            .only_of_type(*fourcc)?
            .map(|r| (r, Found::OnlyOfType));
    }
    let (r, how) = found.ok_or_else(|| MissingPart {
        part,
        id,
        fourcc: t,
        place: resolver.describe(),
    })?;
    sources.push(format!(
        "{what} 0x{id:08X}.{t}: {} ({})",
        r.label,
        how.describe(fourcc)
    ));
    Ok(r)
}

/// Opens an explicitly given resource, which must be of type `fourcc` if its name says.
pub(super) fn open_given(
    spec: &str,
    fourcc: &[u8; 4],
    what: &str,
    sources: &mut Vec<String>,
) -> Result<Resource> {
    let (r, _) = source::open(spec)?;
    if r.fourcc.is_some_and(|f| &f != fourcc) {
        bail!(
            "{}: expected a {}",
            r.label,
            String::from_utf8_lossy(fourcc)
        );
    }
    sources.push(format!(
        "{what}: {} ({})",
        r.label,
        Found::Given.describe(fourcc)
    ));
    Ok(r)
}

/// A character's named meta-animations as clips (ANCS and MP3 CHAR alike): primitive
/// clips by ANIM ID (each found and loaded once: by ID, else — in a folder of named files —
/// by the animation's name), then a plain `Play` as is and any other tree baked (see
/// `anim::meta`). An animation that cannot be played is left out with a warning.
pub(super) fn character_clips<'a>(
    animations: impl IntoIterator<Item = (&'a str, &'a MetaAnim)>,
    resolver: &dyn Resolver,
    game: Option<Game>,
    warnings: &mut Vec<String>,
    sources: &mut Vec<String>,
) -> Vec<(String, Clip)> {
    let mut clips = Vec::new();
    let mut primitives: Vec<Clip> = Vec::new();
    // A failed primitive keeps its error (shared: every tree using it reports it).
    let mut index_of: HashMap<u64, Result<usize, std::sync::Arc<anyhow::Error>>> = HashMap::new();
    for (name, meta) in animations {
        let mut problem = None;
        let tree = meta_clip(meta, &mut |id| {
            let slot = index_of.entry(id).or_insert_with(|| {
                let shown = asset_id_string(id, id > u64::from(u32::MAX));
                let loaded = || -> Result<(Clip, String)> {
                    // By ID; a folder of named files may hold it under the animation's name.
                    let r = match resolver.find(id, Some(*b"ANIM"))? {
                        Some(r) => Some(r),
                        None => resolver.find_named(name, *b"ANIM")?,
                    }
                    .ok_or_else(|| anyhow!("ANIM {shown} not found"))?;
                    let anim = Anim::parse(&r.bytes, &r.label, game)?;
                    Ok((Clip::from_anim(&anim)?, r.label))
                };
                let (clip, label) = loaded().map_err(std::sync::Arc::new)?;
                sources.push(format!("animation {shown}.ANIM: {label}"));
                primitives.push(clip);
                Ok(primitives.len() - 1)
            });
            match slot {
                Ok(i) => Some(*i),
                Err(e) => {
                    problem.get_or_insert_with(|| e.clone());
                    None
                }
            }
        });
        let clip = match (tree, problem) {
            (Some(MetaClip::Play(i)), None) => Some(primitives[i].clone()),
            (Some(tree), None) => bake(&tree, &primitives, SlerpMode::default()),
            (_, Some(e)) => {
                warnings.push(format!("animation {name:?}: {e:#}"));
                continue;
            }
            (None, None) => None,
        };
        match clip {
            Some(c) => clips.push((name.to_owned(), c)),
            None => warnings.push(format!("animation {name:?}: no clip to play")),
        }
    }
    clips
}

/// The tree of `meta` with each primitive's ANIM ID mapped through `clip_of` (None when
/// any primitive has no clip).
pub(crate) fn meta_clip(
    meta: &MetaAnim,
    clip_of: &mut dyn FnMut(u64) -> Option<usize>,
) -> Option<MetaClip> {
    Some(match meta {
        MetaAnim::Play(p) => MetaClip::Play(clip_of(p.anim_id)?),
        MetaAnim::Blend { a, b, weight, .. } => MetaClip::Blend {
            a: Box::new(meta_clip(a, clip_of)?),
            b: Box::new(meta_clip(b, clip_of)?),
            weight: *weight,
        },
        MetaAnim::PhaseBlend { a, b, weight, .. } => MetaClip::PhaseBlend {
            a: Box::new(meta_clip(a, clip_of)?),
            b: Box::new(meta_clip(b, clip_of)?),
            weight: *weight,
        },
        MetaAnim::Random(children) => MetaClip::Random(
            children
                .iter()
                .map(|(m, p)| Some((meta_clip(m, clip_of)?, *p)))
                .collect::<Option<_>>()?,
        ),
        MetaAnim::Sequence(children) => MetaClip::Sequence(
            children
                .iter()
                .map(|m| meta_clip(m, clip_of))
                .collect::<Option<_>>()?,
        ),
    })
}
