//! ANCS character sets (MP1 and MP2, formats.md §8), plus the pieces CHAR (MP3) shares:
//! the PAS4 database, meta-animations and meta-transitions.
//!
//! ANCS has no sizes or offsets, so everything is parsed in order to reach the animation
//! list. Character fields are gated by the per-character version `v` (MP2 uses 10).

use super::anim::CharAnimTime;
use super::{ErrorKind, Game, Reader, Result, Writer, fourcc_string};

/// Meta-animations and meta-transitions nest; deeper input is rejected.
pub const MAX_DEPTH: usize = 64;

pub use crate::geom::Aabb;

// ---------------------------------------------------------------------------------------
// PAS4
// ---------------------------------------------------------------------------------------

/// A typed PAS4 parameter value (bool is one byte, the rest four).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum PasValue {
    Int(i32),
    UInt(u32),
    Float(f32),
    Bool(bool),
    Enum(u32),
}

/// A parameter's description within a state.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PasParamInfo {
    /// 0 s32, 1 u32, 2 f32, 3 bool, 4 enum.
    pub param_type: u32,
    /// 0 exact match, 1 percent error, 2 angular percent, 3 no weight.
    pub weight_function: u32,
    pub weight: f32,
    pub min: PasValue,
    pub max: PasValue,
}

/// An animation entry of a state with one value per parameter.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PasAnimInfo {
    pub anim_id: u32,
    pub values: Vec<PasValue>,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PasState {
    pub state_type: u32,
    pub params: Vec<PasParamInfo>,
    pub anims: Vec<PasAnimInfo>,
}

/// The PAS4 animation-selection database (parsed mostly to skip it).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Pas4 {
    pub default_state: u32,
    pub states: Vec<PasState>,
}

fn read_pas_value(r: &mut Reader<'_>, ty: u32, field: &str) -> Result<PasValue> {
    Ok(match ty {
        0 => PasValue::Int(r.i32(field)?),
        1 => PasValue::UInt(r.u32(field)?),
        2 => PasValue::Float(r.f32(field)?),
        3 => PasValue::Bool(r.bool(field)?),
        _ => PasValue::Enum(r.u32(field)?),
    })
}

impl Pas4 {
    pub fn read(r: &mut Reader<'_>) -> Result<Self> {
        r.expect_u32("pas4.magic", u32::from_be_bytes(*b"PAS4"))?;
        let n = r.count("pas4.state_count", 12)?;
        let default_state = r.u32("pas4.default_state")?;
        let mut states = Vec::with_capacity(n);
        for s in 0..n {
            let state_type = r.u32(&format!("pas4.states[{s}].type"))?;
            let np = r.count(&format!("pas4.states[{s}].param_count"), 14)?;
            let na_pos = r.pos();
            let na = r.u32(&format!("pas4.states[{s}].anim_count"))?;
            let mut params = Vec::with_capacity(np);
            for p in 0..np {
                let field = format!("pas4.states[{s}].params[{p}]");
                let at = r.pos();
                let param_type = r.u32(&field)?;
                if param_type > 4 {
                    return Err(r.err_at(
                        &field,
                        at,
                        ErrorKind::OutOfRange {
                            value: param_type.into(),
                            expected: "a parameter type 0..=4".into(),
                        },
                    ));
                }
                let weight_function = r.u32(&field)?;
                let weight = r.f32(&field)?;
                let min = read_pas_value(r, param_type, &field)?;
                let max = read_pas_value(r, param_type, &field)?;
                params.push(PasParamInfo {
                    param_type,
                    weight_function,
                    weight,
                    min,
                    max,
                });
            }
            let per_anim = 4 + params
                .iter()
                .map(|p| if p.param_type == 3 { 1 } else { 4 })
                .sum::<usize>();
            let na = r
                .check_count(&format!("pas4.states[{s}].anim_count"), na.into(), per_anim)
                .map_err(|e| super::FormatError {
                    offset: na_pos as u64,
                    ..e
                })?;
            let mut anims = Vec::with_capacity(na);
            for a in 0..na {
                let field = format!("pas4.states[{s}].anims[{a}]");
                let anim_id = r.u32(&field)?;
                let values = params
                    .iter()
                    .map(|p| read_pas_value(r, p.param_type, &field))
                    .collect::<Result<_>>()?;
                anims.push(PasAnimInfo { anim_id, values });
            }
            states.push(PasState {
                state_type,
                params,
                anims,
            });
        }
        Ok(Pas4 {
            default_state,
            states,
        })
    }
}

// ---------------------------------------------------------------------------------------
// Meta-animations and meta-transitions
// ---------------------------------------------------------------------------------------

/// A playable animation primitive (a Play node).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AnimPrimitive {
    /// ANIM asset ID (u32 in MP1/MP2, u64 in MP3).
    pub anim_id: u64,
    pub primitive_id: u32,
    pub name: String,
    /// Unknown use.
    pub time: CharAnimTime,
}

/// A meta-animation tree (formats.md §8.5).
#[derive(Debug, Clone, PartialEq)]
pub enum MetaAnim {
    Play(AnimPrimitive),
    Blend {
        a: Box<MetaAnim>,
        b: Box<MetaAnim>,
        weight: f32,
        flag: u8,
    },
    PhaseBlend {
        a: Box<MetaAnim>,
        b: Box<MetaAnim>,
        weight: f32,
        flag: u8,
    },
    Random(Vec<(MetaAnim, u32)>),
    Sequence(Vec<MetaAnim>),
}

impl MetaAnim {
    /// `wide_ids`: u64 ANIM IDs (MP3).
    pub fn read(r: &mut Reader<'_>, wide_ids: bool, depth: usize) -> Result<Self> {
        if depth >= MAX_DEPTH {
            return Err(r.invalid(
                "meta_animation",
                format!("nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        let at = r.pos();
        let ty = r.u32("meta_animation.type")?;
        Ok(match ty {
            0 => {
                let anim_id = if wide_ids {
                    r.u64("meta_animation.anim_id")?
                } else {
                    u64::from(r.u32("meta_animation.anim_id")?)
                };
                MetaAnim::Play(AnimPrimitive {
                    anim_id,
                    primitive_id: r.u32("meta_animation.primitive_id")?,
                    name: r.cstring("meta_animation.name")?,
                    time: CharAnimTime::read(r, "meta_animation.time")?,
                })
            }
            1 | 2 => {
                let a = Box::new(Self::read(r, wide_ids, depth + 1)?);
                let b = Box::new(Self::read(r, wide_ids, depth + 1)?);
                let weight = r.f32("meta_animation.blend_weight")?;
                let flag = r.u8("meta_animation.blend_flag")?;
                if ty == 1 {
                    MetaAnim::Blend { a, b, weight, flag }
                } else {
                    MetaAnim::PhaseBlend { a, b, weight, flag }
                }
            }
            3 => {
                // Each entry is at least a Snap-sized node: u32 type + u32 probability.
                let n = r.count("meta_animation.random_count", 8)?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    let m = Self::read(r, wide_ids, depth + 1)?;
                    v.push((m, r.u32("meta_animation.probability")?));
                }
                MetaAnim::Random(v)
            }
            4 => {
                let n = r.count("meta_animation.sequence_count", 4)?;
                let mut v = Vec::with_capacity(n);
                for _ in 0..n {
                    v.push(Self::read(r, wide_ids, depth + 1)?);
                }
                MetaAnim::Sequence(v)
            }
            other => {
                return Err(r.err_at(
                    "meta_animation.type",
                    at,
                    ErrorKind::OutOfRange {
                        value: other.into(),
                        expected: "0 Play, 1 Blend, 2 PhaseBlend, 3 Random, 4 Sequence".into(),
                    },
                ));
            }
        })
    }

    /// The node type as stored (0 Play … 4 Sequence).
    pub fn type_code(&self) -> u32 {
        match self {
            MetaAnim::Play(_) => 0,
            MetaAnim::Blend { .. } => 1,
            MetaAnim::PhaseBlend { .. } => 2,
            MetaAnim::Random(_) => 3,
            MetaAnim::Sequence(_) => 4,
        }
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            MetaAnim::Play(_) => "Play",
            MetaAnim::Blend { .. } => "Blend",
            MetaAnim::PhaseBlend { .. } => "PhaseBlend",
            MetaAnim::Random(_) => "Random",
            MetaAnim::Sequence(_) => "Sequence",
        }
    }

    /// Every Play primitive in the tree, depth first.
    pub fn primitives(&self) -> Vec<&AnimPrimitive> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'s>(&'s self, out: &mut Vec<&'s AnimPrimitive>) {
        match self {
            MetaAnim::Play(p) => out.push(p),
            MetaAnim::Blend { a, b, .. } | MetaAnim::PhaseBlend { a, b, .. } => {
                a.collect(out);
                b.collect(out);
            }
            MetaAnim::Random(v) => v.iter().for_each(|(m, _)| m.collect(out)),
            MetaAnim::Sequence(v) => v.iter().for_each(|m| m.collect(out)),
        }
    }

    /// A one-line description of the tree, e.g. `Blend(Play(0xA0000001 #0 "walk"), …, 0.5)`.
    pub fn describe(&self, wide_ids: bool) -> String {
        let id = |v: u64| super::asset_id_string(v, wide_ids);
        match self {
            MetaAnim::Play(p) => {
                format!("Play({} #{} {:?})", id(p.anim_id), p.primitive_id, p.name)
            }
            MetaAnim::Blend { a, b, weight, .. } => {
                format!(
                    "Blend({}, {}, {weight})",
                    a.describe(wide_ids),
                    b.describe(wide_ids)
                )
            }
            MetaAnim::PhaseBlend { a, b, weight, .. } => format!(
                "PhaseBlend({}, {}, {weight})",
                a.describe(wide_ids),
                b.describe(wide_ids)
            ),
            MetaAnim::Random(v) => format!(
                "Random({})",
                v.iter()
                    .map(|(m, p)| format!("{}: {p}%", m.describe(wide_ids)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            MetaAnim::Sequence(v) => format!(
                "Sequence({})",
                v.iter()
                    .map(|m| m.describe(wide_ids))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

/// A meta-transition (MP1/MP2).
#[derive(Debug, Clone, PartialEq)]
pub enum MetaTrans {
    /// Type 0: play an embedded meta-animation.
    Animation(MetaAnim),
    /// Type 1 Transition / type 2 PhaseTransition.
    Transition {
        phase: bool,
        duration: f32,
        duration_mode: u32,
        unknown: u8,
        run_a: u8,
        flags: u32,
    },
    /// Type 3: cut.
    Snap,
}

impl MetaTrans {
    pub fn read(r: &mut Reader<'_>, wide_ids: bool, depth: usize) -> Result<Self> {
        if depth >= MAX_DEPTH {
            return Err(r.invalid(
                "meta_transition",
                format!("nested deeper than {MAX_DEPTH} levels"),
            ));
        }
        let at = r.pos();
        let ty = r.u32("meta_transition.type")?;
        Ok(match ty {
            0 => MetaTrans::Animation(MetaAnim::read(r, wide_ids, depth + 1)?),
            1 | 2 => MetaTrans::Transition {
                phase: ty == 2,
                duration: r.f32("meta_transition.duration")?,
                duration_mode: r.u32("meta_transition.duration_mode")?,
                unknown: r.u8("meta_transition.unknown")?,
                run_a: r.u8("meta_transition.run_a")?,
                flags: r.u32("meta_transition.flags")?,
            },
            3 => MetaTrans::Snap,
            other => {
                return Err(r.err_at(
                    "meta_transition.type",
                    at,
                    ErrorKind::OutOfRange {
                        value: other.into(),
                        expected: "0 Animation, 1 Transition, 2 PhaseTransition, 3 Snap".into(),
                    },
                ));
            }
        })
    }

    pub fn type_code(&self) -> u32 {
        match self {
            MetaTrans::Animation(_) => 0,
            MetaTrans::Transition { phase: false, .. } => 1,
            MetaTrans::Transition { phase: true, .. } => 2,
            MetaTrans::Snap => 3,
        }
    }

    pub fn describe(&self, wide_ids: bool) -> String {
        match self {
            MetaTrans::Animation(m) => format!("Animation({})", m.describe(wide_ids)),
            MetaTrans::Transition {
                phase, duration, ..
            } => format!(
                "{}({duration} s)",
                if *phase {
                    "PhaseTransition"
                } else {
                    "Transition"
                }
            ),
            MetaTrans::Snap => "Snap".into(),
        }
    }

    pub fn primitives(&self) -> Vec<&AnimPrimitive> {
        match self {
            MetaTrans::Animation(m) => m.primitives(),
            _ => Vec::new(),
        }
    }
}

// ---------------------------------------------------------------------------------------
// Character
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct AnimationName {
    pub id: u32,
    /// Present when v < 10 (usually empty).
    pub unknown_string: Option<String>,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ParticleResources {
    pub part: Vec<u32>,
    pub swhc: Vec<u32>,
    /// Present when v ≥ 6.
    pub unknown_u32: Option<u32>,
    pub elsc: Vec<u32>,
    /// Present when v ≥ 10.
    pub spsc: Option<Vec<u32>>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NamedAabb {
    pub name: String,
    pub aabb: Aabb,
}

/// Where an effect component attaches: MP1 names the bone, MP2 gives its ID.
#[derive(Debug, Clone, PartialEq)]
pub enum BoneRef {
    Name(String),
    Id(u32),
}

#[derive(Debug, Clone, PartialEq)]
pub struct EffectComponent {
    pub name: String,
    pub kind: [u8; 4],
    pub id: u32,
    pub bone: BoneRef,
    pub scale: f32,
    pub parented_mode: u32,
    pub flags: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Effect {
    pub name: String,
    pub components: Vec<EffectComponent>,
}

/// [v ≥ 10] spatial primitives block.
#[derive(Debug, Clone, PartialEq)]
pub struct SpatialPrimitives {
    pub cspp_id: u32,
    pub unknown_u8: u8,
    pub entries: Vec<(u32, Aabb)>,
}

/// One character of the set.
#[derive(Debug, Clone, PartialEq)]
pub struct Character {
    pub id: u32,
    /// Character info version v.
    pub version: u16,
    pub name: String,
    pub model_id: u32,
    pub skin_id: u32,
    pub skeleton_id: u32,
    pub animation_names: Vec<AnimationName>,
    pub pas_database: Pas4,
    pub particles: ParticleResources,
    pub unknown_1: u32,
    /// Present when v ≥ 10.
    pub unknown_2: Option<u32>,
    /// Present when v ≥ 2.
    pub animation_aabbs: Option<Vec<NamedAabb>>,
    /// Present when v ≥ 2.
    pub effects: Option<Vec<Effect>>,
    /// Present when v ≥ 4: (frozen-overlay CMDL, CSKR).
    pub frozen: Option<(u32, u32)>,
    /// Present when v ≥ 5.
    pub animation_id_map: Option<Vec<u32>>,
    /// Present when v ≥ 10.
    pub spatial: Option<SpatialPrimitives>,
}

fn id_list(r: &mut Reader<'_>, field: &str) -> Result<Vec<u32>> {
    let n = r.count(field, 4)?;
    r.u32_vec(field, n)
}

impl Character {
    fn read(r: &mut Reader<'_>, index: usize, game: Game) -> Result<Self> {
        let f = |s: &str| format!("characters[{index}].{s}");
        let id = r.u32(&f("id"))?;
        let version = r.u16(&f("version"))?;
        let name = r.cstring(&f("name"))?;
        let model_id = r.u32(&f("model_id"))?;
        let skin_id = r.u32(&f("skin_id"))?;
        let skeleton_id = r.u32(&f("skeleton_id"))?;
        let v = version;
        let n = r.count(&f("animation_names"), 5)?;
        let mut animation_names = Vec::with_capacity(n);
        for _ in 0..n {
            let aid = r.u32(&f("animation_names.id"))?;
            let unknown_string = if v < 10 {
                Some(r.cstring(&f("animation_names.unknown_string"))?)
            } else {
                None
            };
            animation_names.push(AnimationName {
                id: aid,
                unknown_string,
                name: r.cstring(&f("animation_names.name"))?,
            });
        }
        let pas_database = Pas4::read(r)?;
        let part = id_list(r, &f("particles.PART"))?;
        let swhc = id_list(r, &f("particles.SWHC"))?;
        let unknown_u32 = if v >= 6 {
            Some(r.u32(&f("particles.unknown_u32"))?)
        } else {
            None
        };
        let elsc = id_list(r, &f("particles.ELSC"))?;
        let spsc = if v >= 10 {
            Some(id_list(r, &f("particles.SPSC"))?)
        } else {
            None
        };
        let unknown_1 = r.u32(&f("unknown_1"))?;
        let unknown_2 = if v >= 10 {
            Some(r.u32(&f("unknown_2"))?)
        } else {
            None
        };
        let (animation_aabbs, effects) = if v >= 2 {
            let n = r.count(&f("animation_aabbs"), 25)?;
            let mut aabbs = Vec::with_capacity(n);
            for _ in 0..n {
                aabbs.push(NamedAabb {
                    name: r.cstring(&f("animation_aabbs.name"))?,
                    aabb: Aabb::read(r, &f("animation_aabbs.aabb"))?,
                });
            }
            let n = r.count(&f("effects"), 5)?;
            let mut effects = Vec::with_capacity(n);
            for e in 0..n {
                let name = r.cstring(&f(&format!("effects[{e}].name")))?;
                let field = f(&format!("effects[{e}].components"));
                let m = r.count(&field, 21)?;
                let mut components = Vec::with_capacity(m);
                for _ in 0..m {
                    let name = r.cstring(&field)?;
                    let kind = r.fourcc(&field)?;
                    let id = r.u32(&field)?;
                    let bone = if game == Game::Mp2 {
                        BoneRef::Id(r.u32(&field)?)
                    } else {
                        BoneRef::Name(r.cstring(&field)?)
                    };
                    components.push(EffectComponent {
                        name,
                        kind,
                        id,
                        bone,
                        scale: r.f32(&field)?,
                        parented_mode: r.u32(&field)?,
                        flags: r.u32(&field)?,
                    });
                }
                effects.push(Effect { name, components });
            }
            (Some(aabbs), Some(effects))
        } else {
            (None, None)
        };
        let frozen = if v >= 4 {
            Some((r.u32(&f("frozen_model"))?, r.u32(&f("frozen_skin"))?))
        } else {
            None
        };
        let animation_id_map = if v >= 5 {
            Some(id_list(r, &f("animation_id_map"))?)
        } else {
            None
        };
        let spatial = if v >= 10 {
            let cspp_id = r.u32(&f("cspp_id"))?;
            let unknown_u8 = r.u8(&f("spatial.unknown_u8"))?;
            let n = r.count(&f("spatial.entries"), 28)?;
            let mut entries = Vec::with_capacity(n);
            for _ in 0..n {
                let id = r.u32(&f("spatial.entries.id"))?;
                entries.push((id, Aabb::read(r, &f("spatial.entries.aabb"))?));
            }
            Some(SpatialPrimitives {
                cspp_id,
                unknown_u8,
                entries,
            })
        } else {
            None
        };
        Ok(Character {
            id,
            version,
            name,
            model_id,
            skin_id,
            skeleton_id,
            animation_names,
            pas_database,
            particles: ParticleResources {
                part,
                swhc,
                unknown_u32,
                elsc,
                spsc,
            },
            unknown_1,
            unknown_2,
            animation_aabbs,
            effects,
            frozen,
            animation_id_map,
            spatial,
        })
    }
}

// ---------------------------------------------------------------------------------------
// Events (EVNT layout, embedded per animation in MP2 ANCS)
// ---------------------------------------------------------------------------------------

/// Fields every MP1/MP2 event starts with.
#[derive(Debug, Clone, PartialEq)]
pub struct EventBase {
    pub unknown: u16,
    pub name: String,
    pub event_type: u16,
    pub time: CharAnimTime,
    pub index: u32,
    pub unique: u8,
    pub weight: f32,
    pub character_index: i32,
    pub flags: u32,
}

impl EventBase {
    fn read(r: &mut Reader<'_>, field: &str) -> Result<Self> {
        Ok(Self {
            unknown: r.u16(field)?,
            name: r.cstring(field)?,
            event_type: r.u16(field)?,
            time: CharAnimTime::read(r, field)?,
            index: r.u32(field)?,
            unique: r.u8(field)?,
            weight: r.f32(field)?,
            character_index: r.i32(field)?,
            flags: r.u32(field)?,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum AnimEvent {
    Loop {
        base: EventBase,
        looping: u8,
    },
    /// "User"/int32 event: a value and a locator (bone) name.
    User {
        base: EventBase,
        value: u32,
        locator: String,
    },
    Effect {
        base: EventBase,
        frame_count: u32,
        kind: [u8; 4],
        particle_id: u32,
        bone: BoneRef,
        scale: f32,
        parented_mode: u32,
    },
    Sound {
        base: EventBase,
        sound_id: u32,
        falloff: f32,
        max_distance: f32,
        /// [MP2] three unknown words.
        extra: Option<[u32; 3]>,
    },
}

/// The event set of one animation (an EVNT file, or embedded in an MP2 ANCS).
#[derive(Debug, Clone, PartialEq)]
pub struct EventSet {
    pub version: u32,
    pub events: Vec<AnimEvent>,
}

impl EventSet {
    /// Reads an EVNT structure; `game` chooses the effect-bone and sound layouts.
    pub fn read(r: &mut Reader<'_>, game: Game, field: &str) -> Result<Self> {
        let at = r.pos();
        let version = r.u32(&format!("{field}.version"))?;
        if !(1..=2).contains(&version) {
            return Err(r.err_at(
                &format!("{field}.version"),
                at,
                ErrorKind::OutOfRange {
                    value: version.into(),
                    expected: "EVNT version 1 or 2".into(),
                },
            ));
        }
        let mp2 = game == Game::Mp2;
        let mut events = Vec::new();
        // Minimum base size: u16 + "\0" + u16 + 8 + 4 + 1 + 4 + 4 + 4.
        const BASE: usize = 30;
        let n = r.count(&format!("{field}.loop_events"), BASE + 1)?;
        for _ in 0..n {
            let base = EventBase::read(r, &format!("{field}.loop_event"))?;
            events.push(AnimEvent::Loop {
                base,
                looping: r.u8(&format!("{field}.loop_event"))?,
            });
        }
        let n = r.count(&format!("{field}.user_events"), BASE + 5)?;
        for _ in 0..n {
            let f = format!("{field}.user_event");
            let base = EventBase::read(r, &f)?;
            events.push(AnimEvent::User {
                base,
                value: r.u32(&f)?,
                locator: r.cstring(&f)?,
            });
        }
        let n = r.count(&format!("{field}.effect_events"), BASE + 21)?;
        for _ in 0..n {
            let f = format!("{field}.effect_event");
            let base = EventBase::read(r, &f)?;
            let frame_count = r.u32(&f)?;
            let kind = r.fourcc(&f)?;
            let particle_id = r.u32(&f)?;
            let bone = if mp2 {
                BoneRef::Id(r.u32(&f)?)
            } else {
                BoneRef::Name(r.cstring(&f)?)
            };
            events.push(AnimEvent::Effect {
                base,
                frame_count,
                kind,
                particle_id,
                bone,
                scale: r.f32(&f)?,
                parented_mode: r.u32(&f)?,
            });
        }
        if version == 2 {
            let n = r.count(&format!("{field}.sound_events"), BASE + 12)?;
            for _ in 0..n {
                let f = format!("{field}.sound_event");
                let base = EventBase::read(r, &f)?;
                let sound_id = r.u32(&f)?;
                let falloff = r.f32(&f)?;
                let max_distance = r.f32(&f)?;
                let extra = if mp2 {
                    Some([r.u32(&f)?, r.u32(&f)?, r.u32(&f)?])
                } else {
                    None
                };
                events.push(AnimEvent::Sound {
                    base,
                    sound_id,
                    falloff,
                    max_distance,
                    extra,
                });
            }
        }
        Ok(EventSet { version, events })
    }
}

// ---------------------------------------------------------------------------------------
// Animation set
// ---------------------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub struct NamedMetaAnim {
    pub name: String,
    pub meta: MetaAnim,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Transition {
    pub unknown: u32,
    pub anim_a: u32,
    pub anim_b: u32,
    pub meta: MetaTrans,
}

#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct AdditiveAnim {
    pub anim_id: u32,
    pub fade_in: f32,
    pub fade_out: f32,
}

/// The per-game tail of the animation set.
#[derive(Debug, Clone, PartialEq)]
pub enum AnimResources {
    /// MP1: (ANIM ID, EVNT ID) pairs.
    Mp1(Vec<(u32, u32)>),
    /// MP2: one embedded event set per animation.
    Mp2(Vec<EventSet>),
    /// MP2 events that did not parse with the known layout, kept verbatim.
    Mp2Raw(Vec<u8>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct AnimationSet {
    /// Table version t.
    pub table_version: u16,
    pub animations: Vec<NamedMetaAnim>,
    pub transitions: Vec<Transition>,
    pub default_transition: MetaTrans,
    /// Present when t ≥ 2.
    pub additive: Option<(Vec<AdditiveAnim>, f32, f32)>,
    /// Present when t ≥ 3.
    pub half_transitions: Option<Vec<(u32, MetaTrans)>>,
    pub resources: AnimResources,
}

/// A parsed ANCS.
#[derive(Debug, Clone, PartialEq)]
pub struct Ancs {
    pub game: Game,
    pub version: u16,
    pub character_set_version: u16,
    pub characters: Vec<Character>,
    pub animation_set: AnimationSet,
    pub trailing: Vec<u8>,
    pub warnings: Vec<String>,
}

impl Ancs {
    /// Parses an ANCS. `game`: from the container; `None` takes MP2 when the first character
    /// has v ≥ 10, else MP1 (formats.md §8.5).
    pub fn parse(data: &[u8], file: &str, game: Option<Game>) -> Result<Ancs> {
        let mut r = Reader::new(data, file);
        let mut warnings = Vec::new();
        let version = r.u16("version")?;
        let character_set_version = r.u16("character_set_version")?;
        if version != 1 || character_set_version != 1 {
            warnings.push(format!(
                "version {version}, character set version {character_set_version} (1 expected)"
            ));
        }
        if game == Some(Game::Mp3) {
            return Err(r.invalid("game", "MP3 uses CHAR files, not ANCS"));
        }
        let n = r.count("character_count", 24)?;
        // The game decides effect-bone and event layouts; peek at the first version.
        let game = game.unwrap_or_else(|| {
            let mut p = r.clone();
            match (p.u32("id"), p.u16("version")) {
                (Ok(_), Ok(v)) if v >= 10 => Game::Mp2,
                _ => Game::Mp1,
            }
        });
        let mut characters = Vec::with_capacity(n);
        for i in 0..n {
            characters.push(Character::read(&mut r, i, game)?);
        }
        for c in &characters {
            if (c.version >= 10) != (game == Game::Mp2) {
                warnings.push(format!(
                    "character {} has version {} in a {game:?} set",
                    c.id, c.version
                ));
            }
        }
        let animation_set = read_animation_set(&mut r, game, &mut warnings)?;
        let trailing = r.rest().to_vec();
        if trailing.iter().any(|&b| b != 0xFF && b != 0) {
            return Err(r.invalid(
                "trailing",
                format!(
                    "{} bytes after the animation set are not padding",
                    trailing.len()
                ),
            ));
        }
        Ok(Ancs {
            game,
            version,
            character_set_version,
            characters,
            animation_set,
            trailing,
            warnings,
        })
    }
}

fn read_animation_set(
    r: &mut Reader<'_>,
    game: Game,
    warnings: &mut Vec<String>,
) -> Result<AnimationSet> {
    let table_version = r.u16("animation_set.table_version")?;
    let n = r.count("animation_set.animations", 5)?;
    let mut animations = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.cstring("animation_set.animations.name")?;
        let meta = MetaAnim::read(r, false, 0)?;
        animations.push(NamedMetaAnim { name, meta });
    }
    let n = r.count("animation_set.transitions", 16)?;
    let mut transitions = Vec::with_capacity(n);
    for _ in 0..n {
        transitions.push(Transition {
            unknown: r.u32("animation_set.transitions.unknown")?,
            anim_a: r.u32("animation_set.transitions.anim_a")?,
            anim_b: r.u32("animation_set.transitions.anim_b")?,
            meta: MetaTrans::read(r, false, 0)?,
        });
    }
    let default_transition = MetaTrans::read(r, false, 0)?;
    let additive = if table_version >= 2 {
        let n = r.count("animation_set.additive_animations", 12)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(AdditiveAnim {
                anim_id: r.u32("animation_set.additive_animations")?,
                fade_in: r.f32("animation_set.additive_animations")?,
                fade_out: r.f32("animation_set.additive_animations")?,
            });
        }
        let fade_in = r.f32("animation_set.default_fade_in")?;
        let fade_out = r.f32("animation_set.default_fade_out")?;
        Some((v, fade_in, fade_out))
    } else {
        None
    };
    let half_transitions = if table_version >= 3 {
        let n = r.count("animation_set.half_transitions", 8)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            let id = r.u32("animation_set.half_transitions.anim")?;
            v.push((id, MetaTrans::read(r, false, 0)?));
        }
        Some(v)
    } else {
        None
    };
    let resources = if game == Game::Mp2 {
        let start = r.pos();
        let mut attempt = r.clone();
        match read_mp2_events(&mut attempt) {
            Ok(sets) => {
                *r = attempt;
                if sets.len() != animations.len() {
                    warnings.push(format!(
                        "animation_set: {} event sets for {} animations",
                        sets.len(),
                        animations.len()
                    ));
                }
                AnimResources::Mp2(sets)
            }
            // Without even the set count the file is simply cut short.
            Err(e) if r.remaining() < 4 => return Err(e),
            Err(e) => {
                warnings.push(format!(
                    "MP2 event data at byte offset {start:#x} kept as raw bytes: {e}"
                ));
                let rest = r.rest().to_vec();
                r.skip("animation_set.events", rest.len())?;
                AnimResources::Mp2Raw(rest)
            }
        }
    } else {
        let n = r.count("animation_set.animation_resources", 8)?;
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push((
                r.u32("animation_set.animation_resources.anim_id")?,
                r.u32("animation_set.animation_resources.evnt_id")?,
            ));
        }
        AnimResources::Mp1(v)
    };
    Ok(AnimationSet {
        table_version,
        animations,
        transitions,
        default_transition,
        additive,
        half_transitions,
        resources,
    })
}

fn read_mp2_events(r: &mut Reader<'_>) -> Result<Vec<EventSet>> {
    let n = r.count("animation_set.event_sets", 16)?;
    let mut sets = Vec::with_capacity(n);
    for i in 0..n {
        sets.push(EventSet::read(
            r,
            Game::Mp2,
            &format!("animation_set.event_sets[{i}]"),
        )?);
    }
    if r.rest().iter().any(|&b| b != 0xFF && b != 0) {
        return Err(r.invalid(
            "animation_set.event_sets",
            "data follows the last event set",
        ));
    }
    Ok(sets)
}

// ---------------------------------------------------------------------------------------
// Writer (the mirror of the parser: `parse(write(x)) == x`, and for files whose optional
// fields follow their version gates, `write(parse(bytes)) == bytes`)
// ---------------------------------------------------------------------------------------

fn write_error(field: &str, message: impl Into<String>) -> super::FormatError {
    super::FormatError::new("ANCS writer", field, 0, ErrorKind::Invalid(message.into()))
}

fn write_count(w: &mut Writer, n: usize, field: &str) -> Result<()> {
    w.u32(super::cinf::len_u32(n, field)?);
    Ok(())
}

fn write_ids(w: &mut Writer, ids: &[u32], field: &str) -> Result<()> {
    write_count(w, ids.len(), field)?;
    ids.iter().for_each(|&i| w.u32(i));
    Ok(())
}

fn write_pas_value(w: &mut Writer, v: PasValue) {
    match v {
        PasValue::Int(x) => w.i32(x),
        PasValue::UInt(x) | PasValue::Enum(x) => w.u32(x),
        PasValue::Float(x) => w.f32(x),
        PasValue::Bool(x) => w.bool(x),
    }
}

/// An optional field must be present exactly when its version gate says so, or the file
/// would not parse back the same.
fn gate<T>(value: &Option<T>, required: bool, field: &str, version: u16) -> Result<()> {
    if value.is_some() != required {
        return Err(write_error(
            field,
            format!(
                "{} for character version {version}",
                if required {
                    "missing but required"
                } else {
                    "present but not stored"
                }
            ),
        ));
    }
    Ok(())
}

impl Pas4 {
    /// Writes the database; a value whose variant disagrees with its parameter type is
    /// written as its own variant (the parser would then read it differently), so it is
    /// rejected.
    pub fn write(&self, w: &mut Writer) -> Result<()> {
        w.u32(u32::from_be_bytes(*b"PAS4"));
        write_count(w, self.states.len(), "pas4.state_count")?;
        w.u32(self.default_state);
        for (s, state) in self.states.iter().enumerate() {
            w.u32(state.state_type);
            write_count(w, state.params.len(), "pas4.param_count")?;
            write_count(w, state.anims.len(), "pas4.anim_count")?;
            let fits = |ty: u32, v: PasValue| {
                matches!(
                    (ty, v),
                    (0, PasValue::Int(_))
                        | (1, PasValue::UInt(_))
                        | (2, PasValue::Float(_))
                        | (3, PasValue::Bool(_))
                        | (4, PasValue::Enum(_))
                )
            };
            for (p, info) in state.params.iter().enumerate() {
                if !fits(info.param_type, info.min) || !fits(info.param_type, info.max) {
                    return Err(write_error(
                        &format!("pas4.states[{s}].params[{p}]"),
                        "min/max do not match the parameter type",
                    ));
                }
                w.u32(info.param_type);
                w.u32(info.weight_function);
                w.f32(info.weight);
                write_pas_value(w, info.min);
                write_pas_value(w, info.max);
            }
            for (a, anim) in state.anims.iter().enumerate() {
                if anim.values.len() != state.params.len()
                    || anim
                        .values
                        .iter()
                        .zip(&state.params)
                        .any(|(v, p)| !fits(p.param_type, *v))
                {
                    return Err(write_error(
                        &format!("pas4.states[{s}].anims[{a}]"),
                        "values do not match the state's parameters",
                    ));
                }
                w.u32(anim.anim_id);
                anim.values.iter().for_each(|&v| write_pas_value(w, v));
            }
        }
        Ok(())
    }
}

impl MetaAnim {
    /// Writes the tree (`wide_ids`: u64 ANIM IDs, MP3).
    pub fn write(&self, w: &mut Writer, wide_ids: bool) -> Result<()> {
        w.u32(self.type_code());
        match self {
            MetaAnim::Play(p) => {
                if wide_ids {
                    w.u64(p.anim_id);
                } else {
                    let id = u32::try_from(p.anim_id).map_err(|_| {
                        write_error(
                            "meta_animation.anim_id",
                            format!("{:#x} does not fit 32 bits", p.anim_id),
                        )
                    })?;
                    w.u32(id);
                }
                w.u32(p.primitive_id);
                w.cstring(&p.name);
                p.time.write(w);
            }
            MetaAnim::Blend { a, b, weight, flag }
            | MetaAnim::PhaseBlend { a, b, weight, flag } => {
                a.write(w, wide_ids)?;
                b.write(w, wide_ids)?;
                w.f32(*weight);
                w.u8(*flag);
            }
            MetaAnim::Random(v) => {
                write_count(w, v.len(), "meta_animation.random_count")?;
                for (m, p) in v {
                    m.write(w, wide_ids)?;
                    w.u32(*p);
                }
            }
            MetaAnim::Sequence(v) => {
                write_count(w, v.len(), "meta_animation.sequence_count")?;
                for m in v {
                    m.write(w, wide_ids)?;
                }
            }
        }
        Ok(())
    }
}

impl MetaTrans {
    pub fn write(&self, w: &mut Writer, wide_ids: bool) -> Result<()> {
        w.u32(self.type_code());
        match self {
            MetaTrans::Animation(m) => m.write(w, wide_ids)?,
            MetaTrans::Transition {
                duration,
                duration_mode,
                unknown,
                run_a,
                flags,
                ..
            } => {
                w.f32(*duration);
                w.u32(*duration_mode);
                w.u8(*unknown);
                w.u8(*run_a);
                w.u32(*flags);
            }
            MetaTrans::Snap => {}
        }
        Ok(())
    }
}

impl Character {
    /// Writes the character; optional fields must match the version gates of §8.2 and the
    /// effect bones the game's layout (MP1 names, MP2 IDs).
    pub fn write(&self, w: &mut Writer, game: Game) -> Result<()> {
        let v = self.version;
        w.u32(self.id);
        w.u16(v);
        w.cstring(&self.name);
        w.u32(self.model_id);
        w.u32(self.skin_id);
        w.u32(self.skeleton_id);
        write_count(w, self.animation_names.len(), "animation_names")?;
        for a in &self.animation_names {
            w.u32(a.id);
            gate(
                &a.unknown_string,
                v < 10,
                "animation_names.unknown_string",
                v,
            )?;
            if let Some(s) = &a.unknown_string {
                w.cstring(s);
            }
            w.cstring(&a.name);
        }
        self.pas_database.write(w)?;
        let p = &self.particles;
        write_ids(w, &p.part, "particles.PART")?;
        write_ids(w, &p.swhc, "particles.SWHC")?;
        gate(&p.unknown_u32, v >= 6, "particles.unknown_u32", v)?;
        if let Some(u) = p.unknown_u32 {
            w.u32(u);
        }
        write_ids(w, &p.elsc, "particles.ELSC")?;
        gate(&p.spsc, v >= 10, "particles.SPSC", v)?;
        if let Some(s) = &p.spsc {
            write_ids(w, s, "particles.SPSC")?;
        }
        w.u32(self.unknown_1);
        gate(&self.unknown_2, v >= 10, "unknown_2", v)?;
        if let Some(u) = self.unknown_2 {
            w.u32(u);
        }
        gate(&self.animation_aabbs, v >= 2, "animation_aabbs", v)?;
        gate(&self.effects, v >= 2, "effects", v)?;
        if let (Some(aabbs), Some(effects)) = (&self.animation_aabbs, &self.effects) {
            write_count(w, aabbs.len(), "animation_aabbs")?;
            for a in aabbs {
                w.cstring(&a.name);
                a.aabb.write(w);
            }
            write_count(w, effects.len(), "effects")?;
            for e in effects {
                w.cstring(&e.name);
                write_count(w, e.components.len(), "effects.components")?;
                for c in &e.components {
                    w.cstring(&c.name);
                    w.bytes(&c.kind);
                    w.u32(c.id);
                    match (&c.bone, game == Game::Mp2) {
                        (BoneRef::Id(id), true) => w.u32(*id),
                        (BoneRef::Name(n), false) => w.cstring(n),
                        _ => {
                            return Err(write_error(
                                "effects.components.bone",
                                format!("bone reference does not match the {game:?} layout"),
                            ));
                        }
                    }
                    w.f32(c.scale);
                    w.u32(c.parented_mode);
                    w.u32(c.flags);
                }
            }
        }
        gate(&self.frozen, v >= 4, "frozen", v)?;
        if let Some((m, s)) = self.frozen {
            w.u32(m);
            w.u32(s);
        }
        gate(&self.animation_id_map, v >= 5, "animation_id_map", v)?;
        if let Some(map) = &self.animation_id_map {
            write_ids(w, map, "animation_id_map")?;
        }
        gate(&self.spatial, v >= 10, "spatial", v)?;
        if let Some(s) = &self.spatial {
            w.u32(s.cspp_id);
            w.u8(s.unknown_u8);
            write_count(w, s.entries.len(), "spatial.entries")?;
            for (id, b) in &s.entries {
                w.u32(*id);
                b.write(w);
            }
        }
        Ok(())
    }
}

impl EventBase {
    fn write(&self, w: &mut Writer) {
        w.u16(self.unknown);
        w.cstring(&self.name);
        w.u16(self.event_type);
        self.time.write(w);
        w.u32(self.index);
        w.u8(self.unique);
        w.f32(self.weight);
        w.i32(self.character_index);
        w.u32(self.flags);
    }
}

impl EventSet {
    /// Writes the set in EVNT layout: loop, user, effect and (version 2) sound events, each
    /// kind in its stored order.
    pub fn write(&self, w: &mut Writer, game: Game) -> Result<()> {
        let mp2 = game == Game::Mp2;
        w.u32(self.version);
        let of = |k: u8| {
            self.events
                .iter()
                .filter(move |e| {
                    k == match e {
                        AnimEvent::Loop { .. } => 0,
                        AnimEvent::User { .. } => 1,
                        AnimEvent::Effect { .. } => 2,
                        AnimEvent::Sound { .. } => 3,
                    }
                })
                .collect::<Vec<_>>()
        };
        let sounds = of(3);
        if self.version != 2 && !sounds.is_empty() {
            return Err(write_error(
                "event_set.sound_events",
                "sound events need EVNT version 2",
            ));
        }
        for k in 0..3 {
            let list = of(k);
            write_count(w, list.len(), "event_set.events")?;
            for e in list {
                match e {
                    AnimEvent::Loop { base, looping } => {
                        base.write(w);
                        w.u8(*looping);
                    }
                    AnimEvent::User {
                        base,
                        value,
                        locator,
                    } => {
                        base.write(w);
                        w.u32(*value);
                        w.cstring(locator);
                    }
                    AnimEvent::Effect {
                        base,
                        frame_count,
                        kind,
                        particle_id,
                        bone,
                        scale,
                        parented_mode,
                    } => {
                        base.write(w);
                        w.u32(*frame_count);
                        w.bytes(kind);
                        w.u32(*particle_id);
                        match (bone, mp2) {
                            (BoneRef::Id(id), true) => w.u32(*id),
                            (BoneRef::Name(n), false) => w.cstring(n),
                            _ => {
                                return Err(write_error(
                                    "event_set.effect_event.bone",
                                    format!("bone reference does not match the {game:?} layout"),
                                ));
                            }
                        }
                        w.f32(*scale);
                        w.u32(*parented_mode);
                    }
                    // Filtered out above (k < 3); written after the loop.
                    AnimEvent::Sound { .. } => {}
                }
            }
        }
        if self.version == 2 {
            write_count(w, sounds.len(), "event_set.sound_events")?;
            for e in sounds {
                if let AnimEvent::Sound {
                    base,
                    sound_id,
                    falloff,
                    max_distance,
                    extra,
                } = e
                {
                    if extra.is_some() != mp2 {
                        return Err(write_error(
                            "event_set.sound_event.extra",
                            format!("extra words do not match the {game:?} layout"),
                        ));
                    }
                    base.write(w);
                    w.u32(*sound_id);
                    w.f32(*falloff);
                    w.f32(*max_distance);
                    if let Some(x) = extra {
                        x.iter().for_each(|&v| w.u32(v));
                    }
                }
            }
        }
        Ok(())
    }
}

impl Ancs {
    /// Writes the character set back (trailing padding appended verbatim). Fields follow
    /// `self.game`'s layout; optional fields must match their version gates.
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut w = Writer::new();
        w.u16(self.version);
        w.u16(self.character_set_version);
        write_count(&mut w, self.characters.len(), "character_count")?;
        for c in &self.characters {
            c.write(&mut w, self.game)?;
        }
        let set = &self.animation_set;
        w.u16(set.table_version);
        write_count(&mut w, set.animations.len(), "animation_set.animations")?;
        for a in &set.animations {
            w.cstring(&a.name);
            a.meta.write(&mut w, false)?;
        }
        write_count(&mut w, set.transitions.len(), "animation_set.transitions")?;
        for t in &set.transitions {
            w.u32(t.unknown);
            w.u32(t.anim_a);
            w.u32(t.anim_b);
            t.meta.write(&mut w, false)?;
        }
        set.default_transition.write(&mut w, false)?;
        let t = set.table_version;
        if set.additive.is_some() != (t >= 2) || set.half_transitions.is_some() != (t >= 3) {
            return Err(write_error(
                "animation_set",
                format!("additive/half-transition lists do not match table version {t}"),
            ));
        }
        if let Some((list, fade_in, fade_out)) = &set.additive {
            write_count(&mut w, list.len(), "animation_set.additive_animations")?;
            for a in list {
                w.u32(a.anim_id);
                w.f32(a.fade_in);
                w.f32(a.fade_out);
            }
            w.f32(*fade_in);
            w.f32(*fade_out);
        }
        if let Some(list) = &set.half_transitions {
            write_count(&mut w, list.len(), "animation_set.half_transitions")?;
            for (id, m) in list {
                w.u32(*id);
                m.write(&mut w, false)?;
            }
        }
        match (&set.resources, self.game) {
            (AnimResources::Mp1(list), Game::Mp1) => {
                write_count(&mut w, list.len(), "animation_set.animation_resources")?;
                for (anim, evnt) in list {
                    w.u32(*anim);
                    w.u32(*evnt);
                }
            }
            (AnimResources::Mp2(sets), Game::Mp2) => {
                write_count(&mut w, sets.len(), "animation_set.event_sets")?;
                for s in sets {
                    s.write(&mut w, Game::Mp2)?;
                }
            }
            (AnimResources::Mp2Raw(bytes), Game::Mp2) => w.bytes(bytes),
            (_, game) => {
                return Err(write_error(
                    "animation_set.resources",
                    format!("resource list does not match the {game:?} layout"),
                ));
            }
        }
        w.bytes(&self.trailing);
        Ok(w.into_inner())
    }
}

/// FourCC helper for reports.
pub fn kind_string(k: [u8; 4]) -> String {
    fourcc_string(k)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::formats::Writer;

    fn play(w: &mut Writer, id: u32, name: &str) {
        w.u32(0);
        w.u32(id);
        w.u32(7);
        w.cstring(name);
        w.f32(1.0);
        w.u32(0);
    }

    #[test]
    fn meta_animation_trees_and_depth_limit() {
        let mut w = Writer::new();
        w.u32(1); // Blend
        play(&mut w, 0xA1, "a");
        w.u32(4); // Sequence of 2
        w.u32(2);
        play(&mut w, 0xA2, "b");
        w.u32(3); // Random of 1
        w.u32(1);
        play(&mut w, 0xA3, "c");
        w.u32(50);
        w.f32(0.5);
        w.u8(0);
        let data = w.into_inner();
        let mut r = Reader::new(&data, "t");
        let m = MetaAnim::read(&mut r, false, 0).unwrap();
        assert!(r.at_end());
        let ids: Vec<u64> = m.primitives().iter().map(|p| p.anim_id).collect();
        assert_eq!(ids, vec![0xA1, 0xA2, 0xA3]);
        assert!(m.describe(false).starts_with("Blend(Play(0x000000A1"));

        // 70 nested Sequence nodes of one child each.
        let mut w = Writer::new();
        for _ in 0..70 {
            w.u32(4);
            w.u32(1);
        }
        play(&mut w, 1, "x");
        let data = w.into_inner();
        let e = MetaAnim::read(&mut Reader::new(&data, "t"), false, 0).unwrap_err();
        assert!(e.to_string().contains("deeper than 64"), "{e}");

        let bad = 9u32.to_be_bytes();
        let e = MetaAnim::read(&mut Reader::new(&bad, "t"), false, 0).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::OutOfRange { .. }));
    }

    #[test]
    fn pas4_with_states() {
        let mut w = Writer::new();
        w.bytes(b"PAS4");
        w.u32(1);
        w.u32(0);
        w.u32(5); // state type
        w.u32(2); // params
        w.u32(1); // anims
        w.u32(2); // f32 param
        w.u32(1);
        w.f32(1.0);
        w.f32(0.0);
        w.f32(10.0);
        w.u32(3); // bool param
        w.u32(0);
        w.f32(1.0);
        w.u8(0);
        w.u8(1);
        w.u32(42); // anim 42
        w.f32(2.5);
        w.u8(1);
        let data = w.into_inner();
        let mut r = Reader::new(&data, "t");
        let p = Pas4::read(&mut r).unwrap();
        assert!(r.at_end());
        assert_eq!(
            p.states[0].anims[0].values,
            vec![PasValue::Float(2.5), PasValue::Bool(true)]
        );
    }

    /// A whole MP2 set: character v10 (SPSC, second unknown, effect bone IDs, spatial
    /// primitives), table version 3, embedded event sets.
    #[test]
    fn mp2_character_set() {
        let mut w = Writer::new();
        w.u16(1);
        w.u16(1);
        w.u32(1);
        w.u32(0); // character ID
        w.u16(10);
        w.cstring("ing");
        w.u32(0xC0);
        w.u32(0xC2);
        w.u32(0xC1);
        w.u32(1); // one animation name, no middle string at v10
        w.u32(0);
        w.cstring("idle");
        w.bytes(b"PAS4");
        w.u32(0);
        w.u32(0);
        w.u32(1); // PART
        w.u32(0x11);
        w.u32(0); // SWHC
        w.u32(7); // unknown (v ≥ 6)
        w.u32(0); // ELSC
        w.u32(1); // SPSC
        w.u32(0x22);
        w.u32(0); // unknown_1
        w.u32(5); // unknown_2 (v ≥ 10)
        w.u32(0); // AABBs
        w.u32(1); // one effect with one component
        w.cstring("fx");
        w.u32(1);
        w.cstring("spark");
        w.bytes(b"PART");
        w.u32(0x11);
        w.u32(12); // bone ID (MP2)
        w.f32(1.0);
        w.u32(0);
        w.u32(0);
        w.u32(0xFFFF_FFFF); // frozen model, skin
        w.u32(0xFFFF_FFFF);
        w.u32(1); // animation ID map
        w.u32(0);
        w.u32(0x33); // CSPP
        w.u8(1);
        w.u32(1);
        w.u32(0x44);
        for v in [-1.0, -1.0, -1.0, 1.0, 1.0, 1.0] {
            w.f32(v);
        }
        // Animation set, table version 3.
        w.u16(3);
        w.u32(1);
        w.cstring("idle");
        w.u32(2); // PhaseBlend of two plays
        play(&mut w, 0xA1, "a");
        play(&mut w, 0xA2, "b");
        w.f32(0.25);
        w.u8(1);
        w.u32(1); // one transition: Transition type
        w.u32(0);
        w.u32(0);
        w.u32(0);
        w.u32(1);
        w.f32(0.3);
        w.u32(0);
        w.u8(0);
        w.u8(1);
        w.u32(0);
        w.u32(3); // default: Snap
        w.u32(0); // additive
        w.f32(0.1);
        w.f32(0.2);
        w.u32(1); // half transition
        w.u32(0);
        w.u32(3);
        w.u32(1); // one event set: version 1, nothing in it
        w.u32(1);
        w.u32(0);
        w.u32(0);
        w.u32(0);
        w.pad_to(32, 0xFF);
        let data = w.into_inner();
        let a = Ancs::parse(&data, "t", None).unwrap();
        assert_eq!(
            a.write().unwrap(),
            data,
            "MP2 set writes back byte for byte"
        );
        assert_eq!(a.game, Game::Mp2);
        assert!(a.warnings.is_empty(), "{:?}", a.warnings);
        let c = &a.characters[0];
        assert_eq!(c.animation_names[0].unknown_string, None);
        assert_eq!(c.particles.spsc, Some(vec![0x22]));
        assert_eq!(c.unknown_2, Some(5));
        assert_eq!(
            c.effects.as_ref().unwrap()[0].components[0].bone,
            BoneRef::Id(12)
        );
        assert_eq!(c.spatial.as_ref().unwrap().entries[0].0, 0x44);
        let s = &a.animation_set;
        assert!(
            matches!(s.animations[0].meta, MetaAnim::PhaseBlend { weight, .. } if weight == 0.25)
        );
        assert_eq!(s.animations[0].meta.primitives().len(), 2);
        assert_eq!(s.transitions[0].meta.type_code(), 1);
        assert_eq!(s.half_transitions.as_ref().unwrap().len(), 1);
        assert!(matches!(&s.resources, AnimResources::Mp2(v) if v.len() == 1));
        // Truncated anywhere before the padding, it is rejected, except inside the event
        // data, which is then kept raw with a warning (events are optional for playback).
        let end = data.len() - data.iter().rev().take_while(|&&b| b == 0xFF).count();
        let events_at = end - 20; // count, then one set: version and three counts
        for len in 0..end {
            match Ancs::parse(&data[..len], "t", None) {
                Err(_) => {}
                Ok(a) => {
                    assert!(len >= events_at + 4, "length {len} accepted");
                    assert!(matches!(
                        a.animation_set.resources,
                        AnimResources::Mp2Raw(_)
                    ));
                    assert!(
                        a.warnings[0].contains("kept as raw bytes"),
                        "{:?}",
                        a.warnings
                    );
                }
            }
        }
    }

    #[test]
    fn mp2_event_set() {
        let mut w = Writer::new();
        w.u32(2); // version
        w.u32(0); // loop
        w.u32(0); // user
        w.u32(1); // effect
        w.u16(0);
        w.cstring("fx");
        w.u16(3);
        w.f32(0.5);
        w.u32(0);
        w.u32(1);
        w.u8(0);
        w.f32(1.0);
        w.i32(-1);
        w.u32(0);
        w.u32(2);
        w.bytes(b"PART");
        w.u32(0x1234);
        w.u32(9); // bone ID
        w.f32(1.0);
        w.u32(0);
        w.u32(0); // sound
        let data = w.into_inner();
        let mut r = Reader::new(&data, "t");
        let s = EventSet::read(&mut r, Game::Mp2, "e").unwrap();
        assert!(r.at_end());
        let AnimEvent::Effect {
            bone, particle_id, ..
        } = &s.events[0]
        else {
            panic!()
        };
        assert_eq!((bone, *particle_id), (&BoneRef::Id(9), 0x1234));
    }

    #[test]
    fn writer_round_trips_parsed_sets() {
        // MP1 fixture: bytes back exactly.
        if let Some((data, _)) = crate::testing::conformance_file("mp1_cube.ANCS") {
            let a = Ancs::parse(&data, "fixture", Some(Game::Mp1)).unwrap();
            assert_eq!(a.write().unwrap(), data);
        }
        // A constructed MP1 set with every meta-animation and meta-transition type.
        let play = |id: u64, name: &str| {
            MetaAnim::Play(AnimPrimitive {
                anim_id: id,
                primitive_id: id as u32 & 0xFF,
                name: name.into(),
                time: CharAnimTime::default(),
            })
        };
        let character = Character {
            id: 0,
            version: 6,
            name: "c".into(),
            model_id: 1,
            skin_id: 2,
            skeleton_id: 3,
            animation_names: vec![AnimationName {
                id: 0,
                unknown_string: Some(String::new()),
                name: "walk".into(),
            }],
            pas_database: Pas4 {
                default_state: 0,
                states: vec![PasState {
                    state_type: 1,
                    params: vec![
                        PasParamInfo {
                            param_type: 2,
                            weight_function: 1,
                            weight: 0.5,
                            min: PasValue::Float(0.0),
                            max: PasValue::Float(1.0),
                        },
                        PasParamInfo {
                            param_type: 3,
                            weight_function: 0,
                            weight: 1.0,
                            min: PasValue::Bool(false),
                            max: PasValue::Bool(true),
                        },
                    ],
                    anims: vec![PasAnimInfo {
                        anim_id: 0,
                        values: vec![PasValue::Float(0.5), PasValue::Bool(true)],
                    }],
                }],
            },
            particles: ParticleResources {
                part: vec![9],
                swhc: vec![],
                unknown_u32: Some(0),
                elsc: vec![],
                spsc: None,
            },
            unknown_1: 1,
            unknown_2: None,
            animation_aabbs: Some(vec![NamedAabb {
                name: "walk".into(),
                aabb: Aabb {
                    min: [-1.0; 3],
                    max: [1.0; 3],
                },
            }]),
            effects: Some(vec![Effect {
                name: "fx".into(),
                components: vec![EffectComponent {
                    name: "part".into(),
                    kind: *b"PART",
                    id: 9,
                    bone: BoneRef::Name("head".into()),
                    scale: 1.0,
                    parented_mode: 1,
                    flags: 0,
                }],
            }]),
            frozen: Some((u32::MAX, u32::MAX)),
            animation_id_map: Some(vec![0, 1]),
            spatial: None,
        };
        let set = Ancs {
            game: Game::Mp1,
            version: 1,
            character_set_version: 1,
            characters: vec![character],
            animation_set: AnimationSet {
                table_version: 3,
                animations: vec![
                    NamedMetaAnim {
                        name: "walk".into(),
                        meta: MetaAnim::Blend {
                            a: Box::new(play(0xA1, "a")),
                            b: Box::new(MetaAnim::Sequence(vec![
                                play(0xA2, "b"),
                                MetaAnim::Random(vec![(play(0xA3, "c"), 50)]),
                            ])),
                            weight: 0.5,
                            flag: 1,
                        },
                    },
                    NamedMetaAnim {
                        name: "idle".into(),
                        meta: MetaAnim::PhaseBlend {
                            a: Box::new(play(0xA4, "d")),
                            b: Box::new(play(0xA5, "e")),
                            weight: 0.25,
                            flag: 0,
                        },
                    },
                ],
                transitions: vec![Transition {
                    unknown: 0,
                    anim_a: 0,
                    anim_b: 1,
                    meta: MetaTrans::Transition {
                        phase: true,
                        duration: 0.3,
                        duration_mode: 0,
                        unknown: 1,
                        run_a: 1,
                        flags: 0,
                    },
                }],
                default_transition: MetaTrans::Animation(play(0xA6, "f")),
                additive: Some((
                    vec![AdditiveAnim {
                        anim_id: 1,
                        fade_in: 0.1,
                        fade_out: 0.2,
                    }],
                    0.25,
                    0.25,
                )),
                half_transitions: Some(vec![(1, MetaTrans::Snap)]),
                resources: AnimResources::Mp1(vec![(0xA1, u32::MAX)]),
            },
            trailing: vec![0xFF; 3],
            warnings: Vec::new(),
        };
        let bytes = set.write().unwrap();
        let back = Ancs::parse(&bytes, "t", Some(Game::Mp1)).unwrap();
        assert_eq!(back, set);
        assert_eq!(back.write().unwrap(), bytes);
        // Fields that contradict their version gate are refused rather than silently lost.
        let mut bad = set.clone();
        bad.characters[0].version = 10;
        assert!(bad.write().is_err());
        let mut bad = set;
        bad.game = Game::Mp2;
        assert!(bad.write().is_err());
    }
}
