//! Models with everything they need, found by asset ID: an ANCS character's model, skin,
//! skeleton and animations, a model's textures, and MREA light layers. `tevscope render`,
//! `tevscope bench` and the viewer all load through here.

use anyhow::{Result, anyhow, bail};

use rayon::prelude::*;

use super::area::{AreaView, area_model, mp3_area_model, mp3_world_model_parts, world_model_parts};
use super::kind::AssetKind;
use super::source::{self, Resolver, Resource};
use std::collections::HashMap;

use super::cpu::{ModelAssets, SkinAssets, decode_texture};
pub use super::parts::{LoadRequest, MissingPart, Part};
use super::parts::{character_clips, find_part, open_given};
use crate::anim::{Clip, Skeleton};
use crate::formats::ancs::Ancs;
use crate::formats::anim::Anim;
use crate::formats::cinf::Cinf;
use crate::formats::cmdl::Cmdl;
use crate::formats::cskr::Cskr;
use crate::formats::mrea::parse_mrea;
use crate::formats::txtr::Txtr;
use crate::formats::{Game, asset_id_string};
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
            mp3_alts: req.mp3_alts,
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
                    mp3_alts: req.mp3_alts,
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
        let (cmdl, world_models) = match (&m.geometry, &m.mp3_geometry) {
            (Some(g), _) => (
                area_model(g, AreaView::default())?,
                world_model_parts(g, AreaView::default()),
            ),
            (None, Some(g)) => (mp3_area_model(g)?, mp3_world_model_parts(g)),
            (None, None) => bail!("{}: the area has no world geometry", input.label),
        };
        let textures = load_textures(&cmdl, &*resolver, &mut warnings, &mut sources);
        return Ok((
            LoadedModel {
                label: input.label,
                assets: ModelAssets {
                    cmdl,
                    textures,
                    skin: None,
                    mp3_alts: req.mp3_alts,
                },
                animation: None,
                sources,
                light_layers: m.light_layers(),
                world_models,
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
                mp3_alts: req.mp3_alts,
            },
            animation,
            sources,
            light_layers: Vec::new(),
            world_models: Vec::new(),
        },
        warnings,
    ))
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
