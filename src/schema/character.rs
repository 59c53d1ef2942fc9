//! `info --json` for character sets: MP1/MP2 ANCS and MP3 CHAR, with what they share (the
//! PAS4 database, meta-animation trees), in the conformance files' field names.

use std::fmt::Write as _;

use serde::Serialize;

use super::f64s;
use crate::formats::ancs::{
    Ancs, AnimEvent, AnimResources, BoneRef, Character, EventBase, MetaAnim, MetaTrans, Pas4,
    PasValue,
};
use crate::formats::char_mp3::{CharMp3, Mp3EventBase, SoundData};
use crate::formats::{Game, asset_id_string, fourcc_string};
use crate::geom::Aabb;

fn id32(v: u32) -> String {
    asset_id_string(v.into(), false)
}

fn id64(v: u64) -> String {
    asset_id_string(v, true)
}

/// An asset ID in the width of the file (64-bit in MP3).
fn id(v: u64, wide: bool) -> String {
    if wide { id64(v) } else { id32(v as u32) }
}

// ---------------------------------------------------------------------------------------
// Shared: PAS4 and meta-animations
// ---------------------------------------------------------------------------------------

/// A PAS4 parameter value, as its own JSON type.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum PasValueInfo {
    Int(i32),
    UInt(u32),
    Float(f64),
    Bool(bool),
}

impl From<&PasValue> for PasValueInfo {
    fn from(v: &PasValue) -> Self {
        match *v {
            PasValue::Int(i) => Self::Int(i),
            PasValue::UInt(u) | PasValue::Enum(u) => Self::UInt(u),
            PasValue::Float(x) => Self::Float(f64::from(x)),
            PasValue::Bool(b) => Self::Bool(b),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct PasInfo {
    pub magic: &'static str,
    pub anim_state_count: usize,
    pub default_anim_state: u32,
    pub states: Vec<PasStateInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PasStateInfo {
    #[serde(rename = "type")]
    pub state_type: u32,
    pub params: Vec<PasParamInfo>,
    pub anims: Vec<PasAnimInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PasParamInfo {
    #[serde(rename = "type")]
    pub param_type: u32,
    pub weight_function: u32,
    pub weight: f64,
    pub min: PasValueInfo,
    pub max: PasValueInfo,
}

#[derive(Debug, Clone, Serialize)]
pub struct PasAnimInfo {
    pub anim_id: u32,
    pub values: Vec<PasValueInfo>,
}

impl PasInfo {
    fn new(p: &Pas4) -> Self {
        Self {
            magic: "PAS4",
            anim_state_count: p.states.len(),
            default_anim_state: p.default_state,
            states: p
                .states
                .iter()
                .map(|s| PasStateInfo {
                    state_type: s.state_type,
                    params: s
                        .params
                        .iter()
                        .map(|p| PasParamInfo {
                            param_type: p.param_type,
                            weight_function: p.weight_function,
                            weight: f64::from(p.weight),
                            min: (&p.min).into(),
                            max: (&p.max).into(),
                        })
                        .collect(),
                    anims: s
                        .anims
                        .iter()
                        .map(|a| PasAnimInfo {
                            anim_id: a.anim_id,
                            values: a.values.iter().map(PasValueInfo::from).collect(),
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

/// A meta-animation tree node.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum MetaInfo {
    Play {
        #[serde(rename = "type")]
        kind: &'static str,
        anim_id: String,
        primitive_id: u32,
        name: String,
        time: f64,
        time_differential_state: u32,
    },
    /// Blend and PhaseBlend.
    Blend {
        #[serde(rename = "type")]
        kind: &'static str,
        a: Box<MetaInfo>,
        b: Box<MetaInfo>,
        weight: f64,
        flag: u8,
    },
    Random {
        #[serde(rename = "type")]
        kind: &'static str,
        entries: Vec<RandomEntryInfo>,
    },
    Sequence {
        #[serde(rename = "type")]
        kind: &'static str,
        children: Vec<MetaInfo>,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct RandomEntryInfo {
    pub probability: u32,
    pub anim: MetaInfo,
}

impl MetaInfo {
    fn new(m: &MetaAnim, wide: bool) -> Self {
        match m {
            MetaAnim::Play(p) => Self::Play {
                kind: "Play",
                anim_id: id(p.anim_id, wide),
                primitive_id: p.primitive_id,
                name: p.name.clone(),
                time: f64::from(p.time.seconds),
                time_differential_state: p.time.differential_state,
            },
            MetaAnim::Blend { a, b, weight, flag }
            | MetaAnim::PhaseBlend { a, b, weight, flag } => Self::Blend {
                kind: m.type_name(),
                a: Box::new(Self::new(a, wide)),
                b: Box::new(Self::new(b, wide)),
                weight: f64::from(*weight),
                flag: *flag,
            },
            MetaAnim::Random(v) => Self::Random {
                kind: "Random",
                entries: v
                    .iter()
                    .map(|(m, p)| RandomEntryInfo {
                        probability: *p,
                        anim: Self::new(m, wide),
                    })
                    .collect(),
            },
            MetaAnim::Sequence(v) => Self::Sequence {
                kind: "Sequence",
                children: v.iter().map(|m| Self::new(m, wide)).collect(),
            },
        }
    }
}

/// An animation entry: name, type, the tree and its primitives, and a Play node's fields
/// flattened.
#[derive(Debug, Clone, Serialize)]
pub struct AnimationInfo {
    pub name: String,
    pub meta_type: u32,
    pub tree: MetaInfo,
    pub primitives: Vec<PrimitiveInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anim_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primitive_id: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primitive_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time: Option<f64>,
    /// [MP3 CHAR] the node type's name and the Play node's name and time state under the
    /// MP3 fixtures' names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub meta_type_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub play_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub differential_state: Option<u32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PrimitiveInfo {
    pub anim_id: String,
    pub primitive_id: u32,
    pub name: String,
}

impl AnimationInfo {
    fn new(name: &str, m: &MetaAnim, wide: bool) -> Self {
        let play = match m {
            MetaAnim::Play(p) => Some(p),
            _ => None,
        };
        Self {
            name: name.to_owned(),
            meta_type: m.type_code(),
            tree: MetaInfo::new(m, wide),
            primitives: m
                .primitives()
                .iter()
                .map(|p| PrimitiveInfo {
                    anim_id: id(p.anim_id, wide),
                    primitive_id: p.primitive_id,
                    name: p.name.clone(),
                })
                .collect(),
            anim_id: play.map(|p| id(p.anim_id, wide)),
            primitive_id: play.map(|p| p.primitive_id),
            primitive_name: play.map(|p| p.name.clone()),
            time: play.map(|p| f64::from(p.time.seconds)),
            meta_type_name: wide.then(|| m.type_name().to_owned()),
            play_name: play.filter(|_| wide).map(|p| p.name.clone()),
            differential_state: play.filter(|_| wide).map(|p| p.time.differential_state),
        }
    }
}

/// A transition: its type, a description, and the fields of its kind.
#[derive(Debug, Clone, Serialize)]
pub struct TransInfo {
    #[serde(rename = "type")]
    pub kind: u32,
    pub description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub animation: Option<MetaInfo>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_mode: Option<u32>,
    /// The transition's own unknown byte (a transition-table entry names its own `unknown`
    /// instead).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_a: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub flags: Option<u32>,
}

impl TransInfo {
    fn new(t: &MetaTrans) -> Self {
        let mut info = Self {
            kind: t.type_code(),
            description: t.describe(false),
            animation: None,
            duration: None,
            duration_mode: None,
            unknown: None,
            run_a: None,
            flags: None,
        };
        match t {
            MetaTrans::Animation(m) => info.animation = Some(MetaInfo::new(m, false)),
            MetaTrans::Transition {
                duration,
                duration_mode,
                unknown,
                run_a,
                flags,
                ..
            } => {
                info.duration = Some(f64::from(*duration));
                info.duration_mode = Some(*duration_mode);
                info.unknown = Some(*unknown);
                info.run_a = Some(*run_a);
                info.flags = Some(*flags);
            }
            MetaTrans::Snap => {}
        }
        info
    }
}

/// A box's corners, flattened into the entry that names it.
#[derive(Debug, Clone, Serialize)]
pub struct AabbInfo {
    pub min: [f64; 3],
    pub max: [f64; 3],
}

impl From<&Aabb> for AabbInfo {
    fn from(a: &Aabb) -> Self {
        Self {
            min: f64s(a.min),
            max: f64s(a.max),
        }
    }
}

/// A bone named or numbered.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum BoneRefInfo {
    Name(String),
    Id(u32),
}

impl From<&BoneRef> for BoneRefInfo {
    fn from(b: &BoneRef) -> Self {
        match b {
            BoneRef::Name(n) => Self::Name(n.clone()),
            BoneRef::Id(i) => Self::Id(*i),
        }
    }
}

// ---------------------------------------------------------------------------------------
// ANCS
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Serialize)]
pub struct AncsInfo {
    pub format: &'static str,
    pub game: Game,
    pub version: u16,
    pub character_set_version: u16,
    pub characters: Vec<CharacterInfo>,
    pub animation_set: AnimationSetInfo,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CharacterInfo {
    pub id: u32,
    pub info_version: u16,
    pub name: String,
    pub model_id: String,
    pub skin_id: String,
    pub skeleton_id: String,
    pub animation_names: Vec<AnimationNameInfo>,
    pub pas_database: PasInfo,
    pub particles: ParticlesInfo,
    pub unknown_1: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_2: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub animation_aabbs: Option<Vec<NamedAabbInfo>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub effects: Option<Vec<EffectInfo>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frozen_model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frozen_skin: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub animation_id_map: Option<Vec<u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spatial_primitives: Option<SpatialInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub struct AnimationNameInfo {
    pub id: u32,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_string: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ParticlesInfo {
    #[serde(rename = "PART")]
    pub part: Vec<String>,
    #[serde(rename = "SWHC")]
    pub swhc: Vec<String>,
    #[serde(rename = "ELSC")]
    pub elsc: Vec<String>,
    #[serde(rename = "SPSC", skip_serializing_if = "Option::is_none")]
    pub spsc: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unknown_u32: Option<u32>,
}

#[derive(Debug, Clone, Serialize)]
pub struct NamedAabbInfo {
    pub name: String,
    #[serde(flatten)]
    pub aabb: AabbInfo,
}

#[derive(Debug, Clone, Serialize)]
pub struct EffectInfo {
    pub name: String,
    pub components: Vec<EffectComponentInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub struct EffectComponentInfo {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub id: String,
    pub bone: BoneRefInfo,
    pub scale: f64,
    pub parented_mode: u32,
    pub flags: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct SpatialInfo {
    pub cspp_id: String,
    pub unknown_u8: u8,
    pub entries: Vec<SpatialEntryInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SpatialEntryInfo {
    pub id: u32,
    #[serde(flatten)]
    pub aabb: AabbInfo,
}

impl CharacterInfo {
    fn new(c: &Character) -> Self {
        let ids = |v: &[u32]| v.iter().map(|&i| id32(i)).collect::<Vec<_>>();
        Self {
            id: c.id,
            info_version: c.version,
            name: c.name.clone(),
            model_id: id32(c.model_id),
            skin_id: id32(c.skin_id),
            skeleton_id: id32(c.skeleton_id),
            animation_names: c
                .animation_names
                .iter()
                .map(|n| AnimationNameInfo {
                    id: n.id,
                    name: n.name.clone(),
                    unknown_string: n.unknown_string.clone(),
                })
                .collect(),
            pas_database: PasInfo::new(&c.pas_database),
            particles: ParticlesInfo {
                part: ids(&c.particles.part),
                swhc: ids(&c.particles.swhc),
                elsc: ids(&c.particles.elsc),
                spsc: c.particles.spsc.as_deref().map(ids),
                unknown_u32: c.particles.unknown_u32,
            },
            unknown_1: c.unknown_1,
            unknown_2: c.unknown_2,
            animation_aabbs: c.animation_aabbs.as_ref().map(|aabbs| {
                aabbs
                    .iter()
                    .map(|n| NamedAabbInfo {
                        name: n.name.clone(),
                        aabb: (&n.aabb).into(),
                    })
                    .collect()
            }),
            effects: c.effects.as_ref().map(|effects| {
                effects
                    .iter()
                    .map(|e| EffectInfo {
                        name: e.name.clone(),
                        components: e
                            .components
                            .iter()
                            .map(|c| EffectComponentInfo {
                                name: c.name.clone(),
                                kind: fourcc_string(c.kind),
                                id: id32(c.id),
                                bone: (&c.bone).into(),
                                scale: f64::from(c.scale),
                                parented_mode: c.parented_mode,
                                flags: c.flags,
                            })
                            .collect(),
                    })
                    .collect()
            }),
            frozen_model: c.frozen.map(|(m, _)| id32(m)),
            frozen_skin: c.frozen.map(|(_, s)| id32(s)),
            animation_id_map: c.animation_id_map.clone(),
            spatial_primitives: c.spatial.as_ref().map(|sp| SpatialInfo {
                cspp_id: id32(sp.cspp_id),
                unknown_u8: sp.unknown_u8,
                entries: sp
                    .entries
                    .iter()
                    .map(|(id, b)| SpatialEntryInfo {
                        id: *id,
                        aabb: b.into(),
                    })
                    .collect(),
            }),
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct AnimationSetInfo {
    pub table_count: u16,
    pub animations: Vec<AnimationInfo>,
    pub transitions: Vec<TransitionEntryInfo>,
    pub default_transition_type: u32,
    pub default_transition: TransInfo,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additive_animations: Option<Vec<AdditiveInfo>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_fade_in_time: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_fade_out_time: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub half_transitions: Option<Vec<HalfTransitionInfo>>,
    /// [MP1] ANIM → EVNT pairs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub animation_resources: Option<Vec<AnimResourceInfo>>,
    /// [MP2] embedded event sets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_sets: Option<Vec<EventSetInfo>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event_data_raw_length: Option<usize>,
}

#[derive(Debug, Clone, Serialize)]
pub struct TransitionEntryInfo {
    #[serde(flatten)]
    pub transition: TransInfo,
    pub unknown: u32,
    pub anim_a: u32,
    pub anim_b: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct HalfTransitionInfo {
    #[serde(flatten)]
    pub transition: TransInfo,
    pub anim_id: u32,
}

#[derive(Debug, Clone, Serialize)]
pub struct AdditiveInfo {
    pub anim_id: u32,
    pub fade_in: f64,
    pub fade_out: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct AnimResourceInfo {
    pub anim_id: String,
    pub evnt_id: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct EventSetInfo {
    pub version: u32,
    pub events: Vec<EventInfo>,
}

/// An MP2 event: the shared fields and those of its kind.
#[derive(Debug, Clone, Serialize)]
pub struct EventInfo {
    pub kind: &'static str,
    pub name: String,
    #[serde(rename = "type")]
    pub event_type: u16,
    pub time: f64,
    pub index: u32,
    pub unique: u8,
    pub weight: f64,
    pub character_index: i32,
    pub flags: u32,
    pub unknown: u16,
    #[serde(flatten)]
    pub fields: EventFieldsInfo,
}

#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum EventFieldsInfo {
    Loop {
        looping: u8,
    },
    User {
        value: u32,
        locator: String,
    },
    Effect {
        frame_count: u32,
        particle_type: String,
        particle_id: String,
        bone: BoneRefInfo,
        scale: f64,
        parented_mode: u32,
    },
    Sound {
        sound_id: u32,
        falloff: f64,
        max_distance: f64,
        #[serde(skip_serializing_if = "Option::is_none")]
        extra: Option<[u32; 3]>,
    },
}

impl EventInfo {
    fn new(e: &AnimEvent) -> Self {
        let (kind, base, fields) = match e {
            AnimEvent::Loop { base, looping } => {
                ("loop", base, EventFieldsInfo::Loop { looping: *looping })
            }
            AnimEvent::User {
                base,
                value,
                locator,
            } => (
                "user",
                base,
                EventFieldsInfo::User {
                    value: *value,
                    locator: locator.clone(),
                },
            ),
            AnimEvent::Effect {
                base,
                frame_count,
                kind,
                particle_id,
                bone,
                scale,
                parented_mode,
            } => (
                "effect",
                base,
                EventFieldsInfo::Effect {
                    frame_count: *frame_count,
                    particle_type: fourcc_string(*kind),
                    particle_id: id32(*particle_id),
                    bone: bone.into(),
                    scale: f64::from(*scale),
                    parented_mode: *parented_mode,
                },
            ),
            AnimEvent::Sound {
                base,
                sound_id,
                falloff,
                max_distance,
                extra,
            } => (
                "sound",
                base,
                EventFieldsInfo::Sound {
                    sound_id: *sound_id,
                    falloff: f64::from(*falloff),
                    max_distance: f64::from(*max_distance),
                    extra: *extra,
                },
            ),
        };
        let b: &EventBase = base;
        Self {
            kind,
            name: b.name.clone(),
            event_type: b.event_type,
            time: f64::from(b.time.seconds),
            index: b.index,
            unique: b.unique,
            weight: f64::from(b.weight),
            character_index: b.character_index,
            flags: b.flags,
            unknown: b.unknown,
            fields,
        }
    }
}

impl AncsInfo {
    pub fn from_ancs(a: &Ancs) -> Self {
        let s = &a.animation_set;
        let (animation_resources, event_sets, event_data_raw_length) = match &s.resources {
            AnimResources::Mp1(pairs) => (
                Some(
                    pairs
                        .iter()
                        .map(|&(a, e)| AnimResourceInfo {
                            anim_id: id32(a),
                            evnt_id: id32(e),
                        })
                        .collect(),
                ),
                None,
                None,
            ),
            AnimResources::Mp2(sets) => (
                None,
                Some(
                    sets.iter()
                        .map(|s| EventSetInfo {
                            version: s.version,
                            events: s.events.iter().map(EventInfo::new).collect(),
                        })
                        .collect(),
                ),
                None,
            ),
            AnimResources::Mp2Raw(bytes) => (None, None, Some(bytes.len())),
        };
        let additive = s.additive.as_ref();
        let set = AnimationSetInfo {
            table_count: s.table_version,
            animations: s
                .animations
                .iter()
                .map(|n| AnimationInfo::new(&n.name, &n.meta, false))
                .collect(),
            transitions: s
                .transitions
                .iter()
                .map(|t| TransitionEntryInfo {
                    transition: TransInfo {
                        unknown: None,
                        ..TransInfo::new(&t.meta)
                    },
                    unknown: t.unknown,
                    anim_a: t.anim_a,
                    anim_b: t.anim_b,
                })
                .collect(),
            default_transition_type: s.default_transition.type_code(),
            default_transition: TransInfo::new(&s.default_transition),
            additive_animations: additive.map(|(add, _, _)| {
                add.iter()
                    .map(|a| AdditiveInfo {
                        anim_id: a.anim_id,
                        fade_in: f64::from(a.fade_in),
                        fade_out: f64::from(a.fade_out),
                    })
                    .collect()
            }),
            default_fade_in_time: additive.map(|(_, fade_in, _)| f64::from(*fade_in)),
            default_fade_out_time: additive.map(|(_, _, fade_out)| f64::from(*fade_out)),
            half_transitions: s.half_transitions.as_ref().map(|half| {
                half.iter()
                    .map(|(id, t)| HalfTransitionInfo {
                        transition: TransInfo::new(t),
                        anim_id: *id,
                    })
                    .collect()
            }),
            animation_resources,
            event_sets,
            event_data_raw_length,
        };
        Self {
            format: "ANCS",
            game: a.game,
            version: a.version,
            character_set_version: a.character_set_version,
            characters: a.characters.iter().map(CharacterInfo::new).collect(),
            animation_set: set,
            warnings: a.warnings.clone(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// MP3 CHAR
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, Serialize)]
pub struct CharInfo {
    pub format: &'static str,
    pub game: Game,
    pub version: u8,
    pub id: u8,
    pub name: String,
    pub model_id: String,
    pub skin_id: String,
    pub overlays: Vec<OverlayInfo>,
    pub skeleton_id: String,
    pub sand_id: String,
    pub pas_database: PasInfo,
    pub particles: Mp3ParticlesInfo,
    pub event_sets: Vec<Mp3EventSetInfo>,
    pub animations: Vec<AnimationInfo>,
    pub animation_aabbs: Vec<AnimAabbInfo>,
    #[serde(rename = "bool")]
    pub unknown_bool: u8,
    #[serde(rename = "unk_bool_array")]
    pub unknown_bools: Vec<u8>,
    pub collision_sets: Vec<CollisionSetInfo>,
    pub sound_resources: Vec<String>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OverlayInfo {
    #[serde(rename = "type")]
    pub kind: String,
    pub model_id: String,
    pub skin_id: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Mp3ParticlesInfo {
    #[serde(rename = "PART")]
    pub part: Vec<String>,
    #[serde(rename = "SWHC")]
    pub swhc: Vec<String>,
    #[serde(rename = "ELSC")]
    pub elsc: Vec<String>,
    #[serde(rename = "SPSC")]
    pub spsc: Vec<String>,
    pub unknown: [u32; 2],
}

#[derive(Debug, Clone, Serialize)]
pub struct Mp3EventSetInfo {
    pub anim_id: u32,
    pub name: String,
    pub particle_events: Vec<Mp3EventInfo>,
    pub sound_events: Vec<Mp3EventInfo>,
}

/// An MP3 event: the shared fields, its set's name and those of its kind.
#[derive(Debug, Clone, Serialize)]
pub struct Mp3EventInfo {
    pub name: String,
    #[serde(rename = "type")]
    pub event_type: u16,
    pub time: f64,
    pub index: u32,
    pub unique: u8,
    pub weight: f64,
    pub character_index: i32,
    pub flags: u32,
    pub set_name: String,
    #[serde(flatten)]
    pub fields: Mp3EventFieldsInfo,
}

#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Mp3EventFieldsInfo {
    Particle {
        particle_type: String,
        particle_id: String,
    },
    Sound {
        sound_id: String,
        data: Vec<SoundDataInfo>,
    },
}

#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum SoundDataInfo {
    /// Kind 1.
    Value {
        kind: u32,
        value: u32,
    },
    /// Kind 2.
    Spline {
        kind: u32,
        pre_infinity: u8,
        post_infinity: u8,
        knots: Vec<KnotInfo>,
        clamp_mode: u8,
        min_amplitude: f64,
        max_amplitude: f64,
    },
    Other {
        kind: u32,
    },
}

#[derive(Debug, Clone, Serialize)]
pub struct KnotInfo {
    pub time: f64,
    pub amplitude: f64,
    pub mode_a: u8,
    pub mode_b: u8,
    pub tangent_a: Option<[f64; 2]>,
    pub tangent_b: Option<[f64; 2]>,
}

impl From<&SoundData> for SoundDataInfo {
    fn from(d: &SoundData) -> Self {
        match d {
            SoundData::Value(v) => Self::Value { kind: 1, value: *v },
            SoundData::Spline(s) => Self::Spline {
                kind: 2,
                pre_infinity: s.pre_infinity,
                post_infinity: s.post_infinity,
                knots: s
                    .knots
                    .iter()
                    .map(|k| KnotInfo {
                        time: f64::from(k.time),
                        amplitude: f64::from(k.amplitude),
                        mode_a: k.mode_a,
                        mode_b: k.mode_b,
                        tangent_a: k.tangent_a.map(|t| t.map(f64::from)),
                        tangent_b: k.tangent_b.map(|t| t.map(f64::from)),
                    })
                    .collect(),
                clamp_mode: s.clamp_mode,
                min_amplitude: f64::from(s.min_amplitude),
                max_amplitude: f64::from(s.max_amplitude),
            },
            SoundData::Other(k) => Self::Other { kind: *k },
        }
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct AnimAabbInfo {
    pub anim_id: String,
    #[serde(flatten)]
    pub aabb: AabbInfo,
}

#[derive(Debug, Clone, Serialize)]
pub struct CollisionSetInfo {
    pub name: String,
    pub primitives: Vec<CollisionPrimitiveInfo>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CollisionPrimitiveInfo {
    pub name: String,
    pub unknown_words: [u32; 5],
    pub unknown_floats: [f64; 8],
    pub unknown_f32: f64,
}

impl Mp3EventInfo {
    fn new(b: &Mp3EventBase, set_name: &str, fields: Mp3EventFieldsInfo) -> Self {
        Self {
            name: b.name.clone(),
            event_type: b.event_type,
            time: f64::from(b.time.seconds),
            index: b.index,
            unique: b.unique,
            weight: f64::from(b.weight),
            character_index: b.character_index,
            flags: b.flags,
            set_name: set_name.to_owned(),
            fields,
        }
    }
}

impl CharInfo {
    pub fn from_char(c: &CharMp3) -> Self {
        let ids = |v: &[u64]| v.iter().map(|&i| id64(i)).collect::<Vec<_>>();
        Self {
            format: "CHAR",
            game: Game::Mp3,
            version: c.version,
            id: c.id,
            name: c.name.clone(),
            model_id: id64(c.model_id),
            skin_id: id64(c.skin_id),
            overlays: c
                .overlays
                .iter()
                .map(|o| OverlayInfo {
                    kind: fourcc_string(o.kind),
                    model_id: id64(o.model_id),
                    skin_id: id64(o.skin_id),
                })
                .collect(),
            skeleton_id: id64(c.skeleton_id),
            sand_id: id64(c.sand_id),
            pas_database: PasInfo::new(&c.pas_database),
            particles: Mp3ParticlesInfo {
                part: ids(&c.particles.part),
                swhc: ids(&c.particles.swhc),
                elsc: ids(&c.particles.elsc),
                spsc: ids(&c.particles.spsc),
                unknown: c.particles.unknown,
            },
            event_sets: c
                .event_sets
                .iter()
                .map(|s| Mp3EventSetInfo {
                    anim_id: s.anim_id,
                    name: s.name.clone(),
                    particle_events: s
                        .particle_events
                        .iter()
                        .map(|e| {
                            let fields = Mp3EventFieldsInfo::Particle {
                                particle_type: fourcc_string(e.kind),
                                particle_id: id64(e.particle_id),
                            };
                            Mp3EventInfo::new(&e.base, &e.set_name, fields)
                        })
                        .collect(),
                    sound_events: s
                        .sound_events
                        .iter()
                        .map(|e| {
                            let fields = Mp3EventFieldsInfo::Sound {
                                sound_id: id64(e.sound_id),
                                data: e.data.iter().map(SoundDataInfo::from).collect(),
                            };
                            Mp3EventInfo::new(&e.base, &e.set_name, fields)
                        })
                        .collect(),
                })
                .collect(),
            animations: c
                .animations
                .iter()
                .map(|a| AnimationInfo::new(&a.name, &a.meta, true))
                .collect(),
            animation_aabbs: c
                .animation_aabbs
                .iter()
                .map(|(id, b)| AnimAabbInfo {
                    anim_id: id64(*id),
                    aabb: b.into(),
                })
                .collect(),
            unknown_bool: c.unknown_bool,
            unknown_bools: c.unknown_bools.clone(),
            collision_sets: c
                .collision_sets
                .iter()
                .map(|s| CollisionSetInfo {
                    name: s.name.clone(),
                    primitives: s
                        .primitives
                        .iter()
                        .map(|p| CollisionPrimitiveInfo {
                            name: p.name.clone(),
                            unknown_words: p.unknown_words,
                            unknown_floats: p.unknown_floats.map(f64::from),
                            unknown_f32: f64::from(p.unknown_f32),
                        })
                        .collect(),
                })
                .collect(),
            sound_resources: ids(&c.sound_resources),
            warnings: c.warnings.clone(),
        }
    }
}

/// The character set as readable text: characters, animations and ANIM/EVNT pairs.
pub fn ancs_text(a: &Ancs) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "ANCS ({}): {} characters, {} animations, {} transitions",
        super::game_name(a.game),
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
    super::warnings_text(&mut out, &a.warnings);
    out
}

/// The MP3 character as readable text.
pub fn char_text(c: &CharMp3) -> String {
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
    super::warnings_text(&mut out, &c.warnings);
    out
}
