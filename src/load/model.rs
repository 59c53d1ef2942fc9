//! Models with everything they need, found by asset ID: an ANCS character's model, skin,
//! skeleton and animations, a model's textures, and MREA light layers. `tevscope render`,
//! `tevscope bench` and the viewer all load through here.

use anyhow::{Result, anyhow, bail};

use rayon::prelude::*;

use super::area::{AreaView, area_model, world_model_parts};
use super::kind::AssetKind;
use super::source::{self, Resolver, Resource};
use std::collections::HashMap;

use super::cpu::{ModelAssets, SkinAssets, decode_texture};
use crate::anim::{Clip, MetaClip, Skeleton, SlerpMode, bake};
use crate::formats::ancs::{Ancs, MetaAnim};
use crate::formats::anim::Anim;
use crate::formats::cinf::Cinf;
use crate::formats::cmdl::Cmdl;
use crate::formats::cskr::Cskr;
use crate::formats::mrea::parse_mrea;
use crate::formats::txtr::Txtr;
use crate::formats::{FourCc, Game, asset_id_string};
use crate::gx::lights::PrimeLight;
use crate::model::TextureData;

/// A model with what it needs, and the animation the request asked for.
pub struct LoadedModel {
    pub label: String,
    pub assets: ModelAssets,
    pub animation: Option<usize>,
    /// Which file each part came from and how it was found, one line each
    /// (`skin 0x1A2B3C4D.CSKR: /x/Samus.CSKR (the only CSKR beside the input)`).
    pub sources: Vec<String>,
    /// An area's own light layers (empty for models): what [`super::area::scene_lights`]
    /// lights it with by default.
    pub light_layers: Vec<Vec<PrimeLight>>,
    /// An area's world models in surface order (empty for models).
    pub world_models: Vec<super::area::WorldModelPart>,
}

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
fn open_given(
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

/// Textures of every material set, decoded in parallel; IDs that are missing or broken are
/// left out (the scene draws the placeholder and warns).
fn load_textures(
    cmdl: &Cmdl,
    resolver: &dyn Resolver,
    warnings: &mut Vec<String>,
    sources: &mut Vec<String>,
) -> ModelTextures {
    let ids = cmdl.texture_ids();
    /// A texture, the file it came from and its parser's warnings (None: not found).
    type Loaded = Result<Option<(TextureData, String, Vec<String>)>>;
    let results: Vec<(u64, Loaded)> = ids
        .par_iter()
        .map(|&id| {
            let loaded = resolver.find(id, Some(*b"TXTR")).and_then(|r| {
                r.map(|r| {
                    let t = Txtr::parse(&r.bytes, &r.label)?;
                    Ok((decode_texture(&t)?.0, r.label, t.warnings))
                })
                .transpose()
            });
            (id, loaded)
        })
        .collect();
    let mut out = ModelTextures::new();
    for (id, loaded) in results {
        match loaded {
            Ok(Some((t, label, mut texture_warnings))) => {
                sources.push(format!(
                    "texture {}.TXTR: {label}",
                    asset_id_string(id, id > u64::from(u32::MAX))
                ));
                warnings.append(&mut texture_warnings);
                out.insert(id, t);
            }
            Ok(None) => {}
            Err(e) => warnings.push(format!(
                "texture {}: {e:#}",
                asset_id_string(id, id > u64::from(u32::MAX))
            )),
        }
    }
    out
}

type ModelTextures = HashMap<u64, TextureData>;

/// Loads a CMDL, an ANCS character or an MREA area's world geometry (see the module docs)
/// with what it refers to: explicit choices first, then by asset ID beside the input, then
/// by name.
pub fn load(req: &LoadRequest) -> Result<(LoadedModel, Vec<String>)> {
    let (input, own) = source::open(&req.file)?;
    load_input(req, input, own)
}

/// [`load`] of an input already opened (`req.file` names it; `own` is the resolver
/// [`source::open`] gave with it), so a caller that keeps the input reads it once.
pub fn load_input(
    req: &LoadRequest,
    input: Resource,
    own: Box<dyn Resolver>,
) -> Result<(LoadedModel, Vec<String>)> {
    let resolver: Box<dyn Resolver> = if req.texture_dirs.is_empty() {
        own
    } else {
        let mut chain: Vec<Box<dyn Resolver>> = req
            .texture_dirs
            .iter()
            .map(|d| Box::new(source::FolderResolver::without_ancestors(d)) as Box<dyn Resolver>)
            .collect();
        chain.push(own);
        Box::new(source::ChainResolver(chain))
    };
    let game = req.game.or(input.game);
    let mut warnings = Vec::new();
    let mut sources = Vec::new();
    if input.is(b"ANCS") {
        let ancs = Ancs::parse(&input.bytes, &input.label, game)?;
        let character = ancs
            .characters
            .first()
            .ok_or_else(|| anyhow!("{}: no characters", input.label))?;
        let name = Some(character.name.as_str());
        let model = find_part(
            &*resolver,
            req.model.as_deref(),
            character.model_id.into(),
            b"CMDL",
            Part::Model,
            name,
            &mut sources,
        )?;
        let cskr = find_part(
            &*resolver,
            req.skin.as_deref(),
            character.skin_id.into(),
            b"CSKR",
            Part::Skin,
            name,
            &mut sources,
        )?;
        let cinf = find_part(
            &*resolver,
            req.skeleton.as_deref(),
            character.skeleton_id.into(),
            b"CINF",
            Part::Skeleton,
            name,
            &mut sources,
        )?;
        let cmdl = Cmdl::parse(&model.bytes, &model.label)?;
        let cskr = Cskr::parse(&cskr.bytes, &cskr.label, game)?;
        let skeleton = Skeleton::from_cinf(&Cinf::parse(&cinf.bytes, &cinf.label, game)?)?;
        let mut clips = character_clips(
            ancs.animation_set
                .animations
                .iter()
                .map(|a| (a.name.as_str(), &a.meta)),
            &*resolver,
            game,
            &mut warnings,
            &mut sources,
        );
        let animation = match &req.anim {
            None => None,
            Some(a) => Some(pick_animation(a, &mut clips, game, &mut sources)?),
        };
        let textures = load_textures(&cmdl, &*resolver, &mut warnings, &mut sources);
        let assets = ModelAssets {
            cmdl,
            textures,
            skin: Some(SkinAssets {
                skeleton,
                cskr,
                clips,
            }),
        };
        return Ok((
            LoadedModel {
                label: format!("{} ({})", input.label, character.name),
                assets,
                animation,
                sources,
                light_layers: Vec::new(),
                world_models: Vec::new(),
            },
            warnings,
        ));
    }
    if input.is(b"CHAR") {
        let c =
            super::character_mp3::resolve(&input, req, &*resolver, &mut warnings, &mut sources)?;
        let cmdl = Cmdl::parse(&c.model.bytes, &c.model.label)?;
        let mut clips = c.clips;
        let animation = match &req.anim {
            None => None,
            Some(a) => Some(pick_animation(
                a,
                &mut clips,
                Some(Game::Mp3),
                &mut sources,
            )?),
        };
        let textures = load_textures(&cmdl, &*resolver, &mut warnings, &mut sources);
        return Ok((
            LoadedModel {
                label: format!("{} ({})", input.label, c.char.name),
                assets: ModelAssets {
                    cmdl,
                    textures,
                    skin: Some(SkinAssets {
                        skeleton: c.skeleton,
                        cskr: c.skin,
                        clips,
                    }),
                },
                animation,
                sources,
                light_layers: Vec::new(),
                world_models: Vec::new(),
            },
            warnings,
        ));
    }
    if input.kind().is_some_and(AssetKind::is_room) {
        if req.model.is_some() || req.skin.is_some() || req.skeleton.is_some() || req.anim.is_some()
        {
            bail!(
                "{}: an area has no character model, skin, skeleton or animation to replace",
                input.label
            );
        }
        let m = parse_mrea(&input.bytes, &input.label)?;
        warnings.extend(m.warnings.iter().cloned());
        let geometry = m.geometry.as_ref().ok_or_else(|| {
            anyhow!(
                "{}: the world geometry of MP3 areas is not read",
                input.label
            )
        })?;
        let cmdl = area_model(geometry, AreaView::default())?;
        let textures = load_textures(&cmdl, &*resolver, &mut warnings, &mut sources);
        return Ok((
            LoadedModel {
                label: input.label,
                assets: ModelAssets {
                    cmdl,
                    textures,
                    skin: None,
                },
                animation: None,
                sources,
                light_layers: m.light_layers(),
                world_models: world_model_parts(geometry, AreaView::default()),
            },
            warnings,
        ));
    }
    if let Some(f) = input
        .fourcc
        .filter(|&f| AssetKind::from_fourcc(f) != Some(AssetKind::Model))
    {
        bail!(
            "{}: expected a CMDL, an ANCS, a CHAR or an MREA, not a {}",
            input.label,
            String::from_utf8_lossy(&f)
        );
    }
    if req.model.is_some() {
        bail!(
            "{}: a model to draw instead is given, but this is a CMDL, not a character",
            input.label
        );
    }
    let cmdl = Cmdl::parse(&input.bytes, &input.label)?;
    let textures = load_textures(&cmdl, &*resolver, &mut warnings, &mut sources);
    let skin_assets = match (&req.skin, &req.skeleton) {
        (None, None) => {
            if req.anim.is_some() {
                bail!(
                    "{}: an animation for a bare CMDL needs a skin and a skeleton too (or open the character)",
                    input.label
                );
            }
            None
        }
        (Some(s), Some(k)) => {
            let s = open_given(s, b"CSKR", "skin", &mut sources)?;
            let k = open_given(k, b"CINF", "skeleton", &mut sources)?;
            let cskr = Cskr::parse(&s.bytes, &s.label, game)?;
            let skeleton = Skeleton::from_cinf(&Cinf::parse(&k.bytes, &k.label, game)?)?;
            let clips = match &req.anim {
                Some(a) => {
                    let r = open_given(a, b"ANIM", "animation", &mut sources)?;
                    vec![(
                        r.label.clone(),
                        Clip::from_anim(&Anim::parse(&r.bytes, &r.label, game)?)?,
                    )]
                }
                None => Vec::new(),
            };
            Some(SkinAssets {
                skeleton,
                cskr,
                clips,
            })
        }
        _ => bail!(
            "{}: a skin and a skeleton go together: give both (or neither)",
            input.label
        ),
    };
    let animation = skin_assets
        .as_ref()
        .and_then(|s| (!s.clips.is_empty()).then_some(0));
    Ok((
        LoadedModel {
            label: input.label,
            assets: ModelAssets {
                cmdl,
                textures,
                skin: skin_assets,
            },
            animation,
            sources,
            light_layers: Vec::new(),
            world_models: Vec::new(),
        },
        warnings,
    ))
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
    let mut index_of: HashMap<u64, Result<usize, std::sync::Arc<anyhow::Error>>> =
        HashMap::new();
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

/// `--anim` for a character: one of its animations by name (exact, then ignoring case) or
/// index, else an ANIM file or `PAK:ID`, added to its clips.
fn pick_animation(
    a: &str,
    clips: &mut Vec<(String, Clip)>,
    game: Option<Game>,
    sources: &mut Vec<String>,
) -> Result<usize> {
    if let Some(i) = clips
        .iter()
        .position(|(n, _)| n == a)
        .or_else(|| clips.iter().position(|(n, _)| n.eq_ignore_ascii_case(a)))
        .or_else(|| a.parse::<usize>().ok().filter(|&i| i < clips.len()))
    {
        return Ok(i);
    }
    let names = clips
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let r = open_given(a, b"ANIM", "animation", sources)
        .map_err(|e| anyhow!("no animation {a:?}; the character has: {names} ({e:#})"))?;
    clips.push((
        r.label.clone(),
        Clip::from_anim(&Anim::parse(&r.bytes, &r.label, game)?)?,
    ));
    Ok(clips.len() - 1)
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
