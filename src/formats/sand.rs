//! SAND (Metroid Prime 3 shared animation data, formats.md §13.7): the transitions between a
//! CHAR's animations (keyed by ANIM ID), additive animations and the animations' event sets.
//! Fields of unknown meaning are kept so [`Sand::write`] reproduces the file.

use super::ancs::MetaAnim;
use super::char_mp3::{Mp3EventBase, SoundData};
use super::{ErrorKind, Reader, Result, Writer, cinf::len_u32};

/// A meta-transition in its MP3 form.
#[derive(Debug, Clone, PartialEq)]
pub enum SandTransition {
    /// Type 0: play a meta-animation (u64 IDs).
    Animation(MetaAnim),
    /// Type 1 Transition, 2 PhaseTransition: 0x13 bytes (u32, f32, u32, u16, u8, u32), kept raw.
    Transition { phase: bool, raw: [u8; 0x13] },
    /// Type 3: cut.
    Snap,
    /// Type 4 (MP3 only): 0x14 bytes (u32, f32, u32, u32, u32), kept raw.
    Type4([u8; 0x14]),
}

impl SandTransition {
    fn read(r: &mut Reader<'_>, field: &str) -> Result<Self> {
        let at = r.pos();
        let ty = r.u32(&format!("{field}.type"))?;
        Ok(match ty {
            // `MetaAnim::read` limits the nesting depth.
            0 => SandTransition::Animation(MetaAnim::read(r, true, 0)?),
            1 | 2 => SandTransition::Transition {
                phase: ty == 2,
                raw: r.array(field)?,
            },
            3 => SandTransition::Snap,
            4 => SandTransition::Type4(r.array(field)?),
            other => {
                return Err(r.err_at(
                    &format!("{field}.type"),
                    at,
                    ErrorKind::OutOfRange {
                        value: other.into(),
                        expected: "meta-transition type 0–4".into(),
                    },
                ));
            }
        })
    }

    fn write(&self, w: &mut Writer) -> Result<()> {
        match self {
            SandTransition::Animation(m) => {
                w.u32(0);
                m.write(w, true)?;
            }
            SandTransition::Transition { phase, raw } => {
                w.u32(if *phase { 2 } else { 1 });
                w.bytes(raw);
            }
            SandTransition::Snap => w.u32(3),
            SandTransition::Type4(raw) => {
                w.u32(4);
                w.bytes(raw);
            }
        }
        Ok(())
    }
}

/// A particle point of interest: the event base, then FourCC, u64 particle ID, f32, u32.
#[derive(Debug, Clone, PartialEq)]
pub struct ParticlePoi {
    pub base: Mp3EventBase,
    pub kind: [u8; 4],
    pub particle_id: u64,
    pub unknown_f32: f32,
    pub unknown_u32: u32,
}

/// A sound point of interest: the event base, u64 sound ID, two u32, two sound-data records.
#[derive(Debug, Clone, PartialEq)]
pub struct SoundPoi {
    pub base: Mp3EventBase,
    pub sound_id: u64,
    pub unknown: [u32; 2],
    pub data: [SoundData; 2],
}

/// An int32 point of interest: the event base, then u8, u16, u16.
#[derive(Debug, Clone, PartialEq)]
pub struct Int32Poi {
    pub base: Mp3EventBase,
    pub unknown_u8: u8,
    pub unknown_u16: [u16; 2],
}

/// The timeline markers of one animation.
#[derive(Debug, Clone, PartialEq)]
pub struct SandEventSet {
    pub anim_id: u64,
    pub unknown: u32,
    pub particles: Vec<ParticlePoi>,
    pub sounds: Vec<SoundPoi>,
    pub int32s: Vec<Int32Poi>,
}

/// A parsed SAND.
#[derive(Debug, Clone, PartialEq)]
pub struct Sand {
    /// The leading u16 (0).
    pub unknown_u16: u16,
    /// (u8 0, ANIM A, ANIM B, transition from A to B).
    pub transitions: Vec<(u8, u64, u64, SandTransition)>,
    /// (u8 0, ANIM, transition into it from anything).
    pub half_transitions: Vec<(u8, u64, SandTransition)>,
    pub default_transition: SandTransition,
    /// (ANIM, fade-in, fade-out).
    pub additive: Vec<(u64, f32, f32)>,
    pub default_additive_fades: [f32; 2],
    /// The u8 before the event sets (0).
    pub unknown_u8: u8,
    pub event_sets: Vec<SandEventSet>,
    pub trailing: Vec<u8>,
    pub warnings: Vec<String>,
}

/// The smallest event base: u16, empty name, u16, CharAnimTime, u32 × 2, u8, f32, s32,
/// u32, then 3 × u32 and 2 × f32.
const BASE: usize = 2 + 1 + 2 + 8 + 8 + 1 + 4 + 4 + 4 + 20;

impl Sand {
    pub fn parse(data: &[u8], file: &str) -> Result<Sand> {
        let mut r = Reader::new(data, file);
        let mut warnings = Vec::new();
        let unknown_u16 = r.u16("unknown_u16")?;
        let n = r.count("transitions", 1 + 16 + 4)?;
        let mut transitions = Vec::with_capacity(n);
        for i in 0..n {
            let f = format!("transitions[{i}]");
            let flag = r.u8(&f)?;
            let (a, b) = (r.u64(&f)?, r.u64(&f)?);
            transitions.push((flag, a, b, SandTransition::read(&mut r, &f)?));
        }
        let n = r.count("half_transitions", 1 + 8 + 4)?;
        let mut half_transitions = Vec::with_capacity(n);
        for i in 0..n {
            let f = format!("half_transitions[{i}]");
            let flag = r.u8(&f)?;
            let id = r.u64(&f)?;
            half_transitions.push((flag, id, SandTransition::read(&mut r, &f)?));
        }
        let default_transition = SandTransition::read(&mut r, "default_transition")?;
        let n = r.count("additive_animations", 16)?;
        let additive = (0..n)
            .map(|_| {
                let f = "additive_animations";
                Ok((r.u64(f)?, r.f32(f)?, r.f32(f)?))
            })
            .collect::<Result<Vec<_>>>()?;
        let default_additive_fades = [
            r.f32("default_additive_fades")?,
            r.f32("default_additive_fades")?,
        ];
        let unknown_u8 = r.u8("unknown_u8")?;
        let n = r.count("event_sets", 8 + 4 + 12)?;
        let mut event_sets = Vec::with_capacity(n);
        for s in 0..n {
            let f = format!("event_sets[{s}]");
            let anim_id = r.u64(&f)?;
            let unknown = r.u32(&f)?;
            let a = r.count(&format!("{f}.particles"), BASE + 20)?;
            let particles = (0..a)
                .map(|_| {
                    Ok(ParticlePoi {
                        base: Mp3EventBase::read(&mut r, &f)?,
                        kind: r.fourcc(&f)?,
                        particle_id: r.u64(&f)?,
                        unknown_f32: r.f32(&f)?,
                        unknown_u32: r.u32(&f)?,
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            let b = r.count(&format!("{f}.sounds"), BASE + 24)?;
            let mut sounds = Vec::with_capacity(b);
            for _ in 0..b {
                let base = Mp3EventBase::read(&mut r, &f)?;
                let sound_id = r.u64(&f)?;
                let unknown = [r.u32(&f)?, r.u32(&f)?];
                let d0 = SoundData::read(&mut r, &f, &mut warnings)?;
                let d1 = SoundData::read(&mut r, &f, &mut warnings)?;
                sounds.push(SoundPoi {
                    base,
                    sound_id,
                    unknown,
                    data: [d0, d1],
                });
            }
            let c = r.count(&format!("{f}.int32s"), BASE + 5)?;
            let int32s = (0..c)
                .map(|_| {
                    Ok(Int32Poi {
                        base: Mp3EventBase::read(&mut r, &f)?,
                        unknown_u8: r.u8(&f)?,
                        unknown_u16: [r.u16(&f)?, r.u16(&f)?],
                    })
                })
                .collect::<Result<Vec<_>>>()?;
            event_sets.push(SandEventSet {
                anim_id,
                unknown,
                particles,
                sounds,
                int32s,
            });
        }
        let trailing = r.rest().to_vec();
        if trailing.iter().any(|&b| b != 0xFF && b != 0) || trailing.len() >= 64 {
            return Err(r.invalid(
                "trailing",
                format!(
                    "{} bytes after the event sets are not padding",
                    trailing.len()
                ),
            ));
        }
        Ok(Sand {
            unknown_u16,
            transitions,
            half_transitions,
            default_transition,
            additive,
            default_additive_fades,
            unknown_u8,
            event_sets,
            trailing,
            warnings,
        })
    }

    /// The transition that chains `from` into `to` (§13.7): the pair's, else `to`'s half
    /// transition, else the default.
    pub fn transition(&self, from: u64, to: u64) -> &SandTransition {
        self.transitions
            .iter()
            .find(|t| t.1 == from && t.2 == to)
            .map(|t| &t.3)
            .or_else(|| {
                self.half_transitions
                    .iter()
                    .find(|t| t.1 == to)
                    .map(|t| &t.2)
            })
            .unwrap_or(&self.default_transition)
    }

    pub fn write(&self) -> Result<Vec<u8>> {
        let mut w = Writer::new();
        let count = |w: &mut Writer, n: usize, f: &str| -> Result<()> {
            w.u32(len_u32(n, f)?);
            Ok(())
        };
        w.u16(self.unknown_u16);
        count(&mut w, self.transitions.len(), "transitions")?;
        for (flag, a, b, t) in &self.transitions {
            w.u8(*flag);
            w.u64(*a);
            w.u64(*b);
            t.write(&mut w)?;
        }
        count(&mut w, self.half_transitions.len(), "half_transitions")?;
        for (flag, id, t) in &self.half_transitions {
            w.u8(*flag);
            w.u64(*id);
            t.write(&mut w)?;
        }
        self.default_transition.write(&mut w)?;
        count(&mut w, self.additive.len(), "additive_animations")?;
        for &(id, fade_in, fade_out) in &self.additive {
            w.u64(id);
            w.f32(fade_in);
            w.f32(fade_out);
        }
        self.default_additive_fades.iter().for_each(|&x| w.f32(x));
        w.u8(self.unknown_u8);
        count(&mut w, self.event_sets.len(), "event_sets")?;
        for s in &self.event_sets {
            w.u64(s.anim_id);
            w.u32(s.unknown);
            count(&mut w, s.particles.len(), "particles")?;
            for p in &s.particles {
                p.base.write(&mut w);
                w.bytes(&p.kind);
                w.u64(p.particle_id);
                w.f32(p.unknown_f32);
                w.u32(p.unknown_u32);
            }
            count(&mut w, s.sounds.len(), "sounds")?;
            for p in &s.sounds {
                p.base.write(&mut w);
                w.u64(p.sound_id);
                p.unknown.iter().for_each(|&x| w.u32(x));
                for d in &p.data {
                    d.write(&mut w)?;
                }
            }
            count(&mut w, s.int32s.len(), "int32s")?;
            for p in &s.int32s {
                p.base.write(&mut w);
                w.u8(p.unknown_u8);
                p.unknown_u16.iter().for_each(|&x| w.u16(x));
            }
        }
        w.bytes(&self.trailing);
        Ok(w.into_inner())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::formats::anim::CharAnimTime;
    use crate::testing::torture;

    fn base() -> Mp3EventBase {
        Mp3EventBase {
            unknown_u16: 0,
            name: "step".into(),
            event_type: 1,
            time: CharAnimTime {
                seconds: 0.25,
                differential_state: 0,
            },
            index: 0,
            unknown_u32: 0,
            unique: 1,
            weight: 1.0,
            character_index: -1,
            flags: 0,
            unknown_tail: (0, 0, 0, 0.0, 1.0),
        }
    }

    fn sample() -> Sand {
        Sand {
            unknown_u16: 0,
            transitions: vec![(
                0,
                0x400,
                0x401,
                SandTransition::Transition {
                    phase: false,
                    raw: [7; 0x13],
                },
            )],
            half_transitions: vec![(0, 0x401, SandTransition::Type4([1; 0x14]))],
            default_transition: SandTransition::Snap,
            additive: vec![(0x402, 0.1, 0.2)],
            default_additive_fades: [0.25, 0.25],
            unknown_u8: 0,
            event_sets: vec![SandEventSet {
                anim_id: 0x400,
                unknown: 3,
                particles: vec![ParticlePoi {
                    base: base(),
                    kind: *b"PART",
                    particle_id: 0x900,
                    unknown_f32: 1.0,
                    unknown_u32: 2,
                }],
                sounds: vec![SoundPoi {
                    base: base(),
                    sound_id: 0x901,
                    unknown: [0, 1],
                    data: [SoundData::Value(5), SoundData::Other(9)],
                }],
                int32s: vec![Int32Poi {
                    base: base(),
                    unknown_u8: 1,
                    unknown_u16: [2, 3],
                }],
            }],
            trailing: vec![0xFF; 3],
            warnings: vec![],
        }
    }

    #[test]
    fn round_trips_and_chains_transitions() {
        let s = sample();
        let bytes = s.write().unwrap();
        let back = Sand::parse(&bytes, "t").unwrap();
        // The unknown sound-data kind is a warning, not an error.
        assert_eq!(back.warnings.len(), 1, "{:?}", back.warnings);
        assert_eq!(
            Sand {
                warnings: vec![],
                ..back.clone()
            },
            s
        );
        assert_eq!(back.write().unwrap(), bytes);
        assert!(matches!(
            back.transition(0x400, 0x401),
            SandTransition::Transition { .. }
        ));
        assert!(matches!(
            back.transition(0x999, 0x401),
            SandTransition::Type4(_)
        ));
        assert_eq!(back.transition(0x401, 0x400), &SandTransition::Snap);
    }

    #[test]
    fn hostile_inputs_are_errors() {
        let bytes = sample().write().unwrap();
        let rejected = torture(&bytes, 400, |d| Sand::parse(d, "t"));
        // Every truncation before the padding fails.
        assert!(rejected + 3 >= bytes.len(), "{rejected} of {}", bytes.len());
        let mut bad = bytes.clone();
        bad[2..6].copy_from_slice(&0x7FFF_FFFFu32.to_be_bytes());
        let e = Sand::parse(&bad, "t").unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("transitions", 2));
    }
}
