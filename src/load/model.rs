//! Models with everything they need, found by asset ID: an ANCS character's model, skin,
//! skeleton and animations, a model's textures, and MREA light layers. `tevscope render`,
//! `tevscope bench` and the viewer all load through here.

use anyhow::{Result, anyhow, bail};

use super::source::{self, Resolver, Resource};
use std::collections::HashMap;

use crate::anim::{Clip, MetaClip, Skeleton, SlerpMode, bake};
use crate::formats::Game;
use crate::formats::ancs::{Ancs, MetaAnim};
use crate::formats::anim::Anim;
use crate::formats::cinf::Cinf;
use crate::formats::cmdl::Cmdl;
use crate::formats::cskr::Cskr;
use crate::formats::txtr::Txtr;
use crate::gx::lights::{LightOptions, LightPreset, LightSet};
use crate::render::TextureData;
use crate::render::scene::{ModelAssets, SkinAssets};

/// A model with what it needs, and the animation the request asked for.
pub struct LoadedModel {
    pub label: String,
    pub assets: ModelAssets,
    pub animation: Option<usize>,
}

fn find(resolver: &dyn Resolver, id: u64, fourcc: &[u8; 4], what: &str) -> Result<Resource> {
    resolver.find(id, Some(*fourcc))?.ok_or_else(|| {
        anyhow!(
            "{what} 0x{id:08X}.{} not found in {}",
            String::from_utf8_lossy(fourcc),
            resolver.describe()
        )
    })
}

fn open_typed(spec: &str, fourcc: &[u8; 4]) -> Result<Resource> {
    let (r, _) = source::open(spec)?;
    if r.fourcc.is_some_and(|f| &f != fourcc) {
        bail!(
            "{}: expected a {}",
            r.label,
            String::from_utf8_lossy(fourcc)
        );
    }
    Ok(r)
}

/// Textures of every material set, decoded; IDs that are missing or broken are left out
/// (the scene draws the white placeholder and warns).
fn load_textures(
    cmdl: &Cmdl,
    resolver: &dyn Resolver,
    warnings: &mut Vec<String>,
) -> ModelTextures {
    let mut out = ModelTextures::new();
    for set in &cmdl.material_sets {
        for &id in &set.texture_ids {
            let id = u64::from(id);
            if out.contains_key(&id) {
                continue;
            }
            let loaded = resolver.find(id, Some(*b"TXTR")).and_then(|r| {
                r.map(|r| {
                    let t = Txtr::parse(&r.bytes, &r.label)?;
                    Ok(TextureData::from_txtr(&t)?)
                })
                .transpose()
            });
            match loaded {
                Ok(Some(t)) => {
                    out.insert(id, t);
                }
                Ok(None) => {}
                Err(e) => warnings.push(format!("texture 0x{id:08X}: {e:#}")),
            }
        }
    }
    out
}

type ModelTextures = std::collections::HashMap<u64, TextureData>;

/// Loads a CMDL or an ANCS character (see the module docs).
pub fn load_model(
    file: &str,
    skin: Option<&str>,
    skeleton: Option<&str>,
    anim: Option<&str>,
    game: Option<Game>,
) -> Result<(LoadedModel, Vec<String>)> {
    let (input, resolver) = source::open(file)?;
    let game = game.or(input.game);
    let mut warnings = Vec::new();
    if input.is(b"ANCS") {
        let ancs = Ancs::parse(&input.bytes, &input.label, game)?;
        let character = ancs
            .characters
            .first()
            .ok_or_else(|| anyhow!("{}: no characters", input.label))?;
        let model = find(&*resolver, character.model_id.into(), b"CMDL", "model")?;
        let cskr = find(&*resolver, character.skin_id.into(), b"CSKR", "skin")?;
        let cinf = find(
            &*resolver,
            character.skeleton_id.into(),
            b"CINF",
            "skeleton",
        )?;
        let cmdl = Cmdl::parse(&model.bytes, &model.label)?;
        let cskr = Cskr::parse(&cskr.bytes, &cskr.label, game)?;
        let skeleton = Skeleton::from_cinf(&Cinf::parse(&cinf.bytes, &cinf.label, game)?)?;
        let mut clips = Vec::new();
        // Primitive clips by ANIM ID (loaded once), then each named meta-animation as a
        // clip: a plain `Play` as is, any other tree baked (see `anim::meta`).
        let mut primitives: Vec<Clip> = Vec::new();
        let mut index_of: HashMap<u64, Result<usize, String>> = HashMap::new();
        for named in &ancs.animation_set.animations {
            let mut problem = None;
            let tree = meta_clip(&named.meta, &mut |id| {
                let slot = index_of.entry(id).or_insert_with(|| {
                    let clip = resolver
                        .find(id, Some(*b"ANIM"))
                        .map_err(|e| format!("{e:#}"))
                        .and_then(|r| {
                            let r = r.ok_or_else(|| format!("ANIM 0x{id:08X} not found"))?;
                            let anim =
                                Anim::parse(&r.bytes, &r.label, game).map_err(|e| e.to_string())?;
                            Clip::from_anim(&anim).map_err(|e| e.to_string())
                        })?;
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
                    warnings.push(format!("animation {:?}: {e}", named.name));
                    continue;
                }
                (None, None) => None,
            };
            match clip {
                Some(c) => clips.push((named.name.clone(), c)),
                None => warnings.push(format!("animation {:?}: no clip to play", named.name)),
            }
        }
        let animation = match anim {
            None => None,
            Some(a) => Some(
                clips
                    .iter()
                    .position(|(n, _)| n == a)
                    .or_else(|| clips.iter().position(|(n, _)| n.eq_ignore_ascii_case(a)))
                    .or_else(|| a.parse::<usize>().ok().filter(|&i| i < clips.len()))
                    .ok_or_else(|| {
                        anyhow!(
                            "no animation {a:?}; the character has: {}",
                            clips
                                .iter()
                                .map(|(n, _)| n.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    })?,
            ),
        };
        let textures = load_textures(&cmdl, &*resolver, &mut warnings);
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
            },
            warnings,
        ));
    }
    if input.fourcc.is_some_and(|f| &f != b"CMDL") {
        bail!(
            "{}: expected a CMDL or an ANCS, not a {}",
            input.label,
            String::from_utf8_lossy(&input.fourcc.unwrap_or(*b"????"))
        );
    }
    let cmdl = Cmdl::parse(&input.bytes, &input.label)?;
    let textures = load_textures(&cmdl, &*resolver, &mut warnings);
    let skin_assets = match (skin, skeleton) {
        (None, None) => {
            if anim.is_some() {
                bail!("--anim on a CMDL needs --skin and --skeleton (or render the ANCS)");
            }
            None
        }
        (Some(s), Some(k)) => {
            let s = open_typed(s, b"CSKR")?;
            let k = open_typed(k, b"CINF")?;
            let cskr = Cskr::parse(&s.bytes, &s.label, game)?;
            let skeleton = Skeleton::from_cinf(&Cinf::parse(&k.bytes, &k.label, game)?)?;
            let clips = match anim {
                Some(a) => {
                    let r = open_typed(a, b"ANIM")?;
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
        _ => bail!("--skin and --skeleton go together"),
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
        },
        warnings,
    ))
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

/// `--lights`: an MREA (first light layer), `basic` or `none`.
pub fn load_lights(spec: Option<&str>) -> Result<LightSet> {
    match spec.map(str::trim) {
        None | Some("basic") => Ok(LightPreset::Basic.light_set()),
        Some("none") => Ok(LightPreset::GameNoLights.light_set()),
        Some(path) => {
            let (r, _) = source::open(path)?;
            let m = crate::formats::mrea::parse_mrea(&r.bytes, &r.label)?;
            let layer = m
                .lights_section
                .as_ref()
                .and_then(|l| l.layers.first())
                .ok_or_else(|| anyhow!("{}: no light layers", r.label))?;
            let records: Vec<_> = layer.iter().map(|l| l.to_prime_light()).collect();
            Ok(LightSet::from_layer(&records, &LightOptions::default()))
        }
    }
}
