//! CHAR characters (Metroid Prime 3, formats.md §10): one character per file with 64-bit
//! asset IDs; shared animation data lives in a SAND asset.

use super::ancs::{Aabb, MetaAnim, Pas4};
use super::anim::CharAnimTime;
use super::{ErrorKind, Reader, Result, Writer, cinf::len_u32};

/// An alternative model for a state (FRZN frozen, HYPR hypermode, ACID, XRAY, …).
#[derive(Debug, Clone, PartialEq)]
pub struct Overlay {
    pub kind: [u8; 4],
    pub model_id: u64,
    pub skin_id: u64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Mp3Particles {
    pub part: Vec<u64>,
    pub swhc: Vec<u64>,
    pub elsc: Vec<u64>,
    pub spsc: Vec<u64>,
    /// The two words after the lists (0 in known files).
    pub unknown: [u32; 2],
}

/// The base every MP3 event starts with.
#[derive(Debug, Clone, PartialEq)]
pub struct Mp3EventBase {
    pub unknown_u16: u16,
    pub name: String,
    pub event_type: u16,
    pub time: CharAnimTime,
    pub index: u32,
    pub unknown_u32: u32,
    pub unique: u8,
    pub weight: f32,
    pub character_index: i32,
    pub flags: u32,
    pub unknown_tail: (u32, u32, u32, f32, f32),
}

impl Mp3EventBase {
    pub(crate) fn write(&self, w: &mut Writer) {
        w.u16(self.unknown_u16);
        w.cstring(&self.name);
        w.u16(self.event_type);
        self.time.write(w);
        w.u32(self.index);
        w.u32(self.unknown_u32);
        w.u8(self.unique);
        w.f32(self.weight);
        w.i32(self.character_index);
        w.u32(self.flags);
        let (a, b, c, d, e) = self.unknown_tail;
        [a, b, c].iter().for_each(|&x| w.u32(x));
        w.f32(d);
        w.f32(e);
    }

    pub(crate) fn read(r: &mut Reader<'_>, f: &str) -> Result<Self> {
        Ok(Self {
            unknown_u16: r.u16(f)?,
            name: r.cstring(f)?,
            event_type: r.u16(f)?,
            time: CharAnimTime::read(r, f)?,
            index: r.u32(f)?,
            unknown_u32: r.u32(f)?,
            unique: r.u8(f)?,
            weight: r.f32(f)?,
            character_index: r.i32(f)?,
            flags: r.u32(f)?,
            unknown_tail: (r.u32(f)?, r.u32(f)?, r.u32(f)?, r.f32(f)?, r.f32(f)?),
        })
    }
}

/// A particle (effect) event.
#[derive(Debug, Clone, PartialEq)]
pub struct ParticleEvent {
    /// The name preceding the event in the set.
    pub set_name: String,
    pub base: Mp3EventBase,
    pub kind: [u8; 4],
    pub particle_id: u64,
    pub unknown_f32: f32,
    pub unknown_u32: u32,
}

/// A spline knot: time, amplitude and two tangent modes; mode 5 adds two floats each.
#[derive(Debug, Clone, PartialEq)]
pub struct SplineKnot {
    pub time: f32,
    pub amplitude: f32,
    pub mode_a: u8,
    pub mode_b: u8,
    pub tangent_a: Option<[f32; 2]>,
    pub tangent_b: Option<[f32; 2]>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Spline {
    pub pre_infinity: u8,
    pub post_infinity: u8,
    pub knots: Vec<SplineKnot>,
    pub clamp_mode: u8,
    pub min_amplitude: f32,
    pub max_amplitude: f32,
}

/// One of the two sound-data blocks of a sound event.
#[derive(Debug, Clone, PartialEq)]
pub enum SoundData {
    /// Kind 1: one word.
    Value(u32),
    /// Kind 2: a spline.
    Spline(Spline),
    /// Other kinds: nothing follows (per the only known parser); reported as a warning.
    Other(u32),
}

#[derive(Debug, Clone, PartialEq)]
pub struct SoundEvent {
    pub set_name: String,
    pub base: Mp3EventBase,
    pub sound_id: u64,
    pub unknown: [u32; 2],
    pub data: [SoundData; 2],
}

#[derive(Debug, Clone, PartialEq)]
pub struct EventSet {
    /// Likely the animation ID this set belongs to.
    pub anim_id: u32,
    pub name: String,
    pub particle_events: Vec<ParticleEvent>,
    pub sound_events: Vec<SoundEvent>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CollisionPrimitive {
    pub unknown_words: [u32; 5],
    pub unknown_floats: [f32; 8],
    pub name: String,
    pub unknown_f32: f32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CollisionSet {
    pub name: String,
    pub primitives: Vec<CollisionPrimitive>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NamedAnimation {
    pub name: String,
    pub meta: MetaAnim,
}

/// A parsed MP3 CHAR.
#[derive(Debug, Clone, PartialEq)]
pub struct CharMp3 {
    pub version: u8,
    pub id: u8,
    pub name: String,
    pub model_id: u64,
    pub skin_id: u64,
    pub overlays: Vec<Overlay>,
    pub skeleton_id: u64,
    pub sand_id: u64,
    pub pas_database: Pas4,
    pub particles: Mp3Particles,
    pub event_sets: Vec<EventSet>,
    pub animations: Vec<NamedAnimation>,
    pub animation_aabbs: Vec<(u64, Aabb)>,
    /// The unknown bool, as its raw byte.
    pub unknown_bool: u8,
    pub unknown_bools: Vec<u8>,
    pub collision_sets: Vec<CollisionSet>,
    pub sound_resources: Vec<u64>,
    pub trailing: Vec<u8>,
    pub warnings: Vec<String>,
}

fn id64_list(r: &mut Reader<'_>, field: &str) -> Result<Vec<u64>> {
    let n = r.count(field, 8)?;
    (0..n).map(|_| r.u64(field)).collect()
}

fn read_spline(r: &mut Reader<'_>, f: &str) -> Result<Spline> {
    let pre_infinity = r.u8(f)?;
    let post_infinity = r.u8(f)?;
    let n = r.count(&format!("{f}.knot_count"), 10)?;
    let mut knots = Vec::with_capacity(n);
    for _ in 0..n {
        let time = r.f32(f)?;
        let amplitude = r.f32(f)?;
        let mode_a = r.u8(f)?;
        let mode_b = r.u8(f)?;
        let tangent_a = if mode_a == 5 {
            Some([r.f32(f)?, r.f32(f)?])
        } else {
            None
        };
        let tangent_b = if mode_b == 5 {
            Some([r.f32(f)?, r.f32(f)?])
        } else {
            None
        };
        knots.push(SplineKnot {
            time,
            amplitude,
            mode_a,
            mode_b,
            tangent_a,
            tangent_b,
        });
    }
    Ok(Spline {
        pre_infinity,
        post_infinity,
        knots,
        clamp_mode: r.u8(f)?,
        min_amplitude: r.f32(f)?,
        max_amplitude: r.f32(f)?,
    })
}

fn write_count(w: &mut Writer, n: usize, field: &str) -> Result<()> {
    w.u32(len_u32(n, field)?);
    Ok(())
}

fn write_ids(w: &mut Writer, ids: &[u64], field: &str) -> Result<()> {
    write_count(w, ids.len(), field)?;
    ids.iter().for_each(|&i| w.u64(i));
    Ok(())
}

impl Spline {
    fn write(&self, w: &mut Writer) -> Result<()> {
        w.u8(self.pre_infinity);
        w.u8(self.post_infinity);
        write_count(w, self.knots.len(), "knot_count")?;
        for k in &self.knots {
            w.f32(k.time);
            w.f32(k.amplitude);
            w.u8(k.mode_a);
            w.u8(k.mode_b);
            // The tangents follow their modes (5 = present), as the parser reads them.
            for (mode, t) in [(k.mode_a, k.tangent_a), (k.mode_b, k.tangent_b)] {
                if mode == 5 {
                    t.unwrap_or_default().iter().for_each(|&x| w.f32(x));
                }
            }
        }
        w.u8(self.clamp_mode);
        w.f32(self.min_amplitude);
        w.f32(self.max_amplitude);
        Ok(())
    }
}

impl SoundData {
    /// One sound-data record (kind 1 → u32, kind 2 → spline, other kinds → nothing, with a
    /// warning naming the offset).
    pub(crate) fn read(r: &mut Reader<'_>, f: &str, warnings: &mut Vec<String>) -> Result<Self> {
        let at = r.abs_pos();
        let kind = r.u32(&format!("{f}.data.kind"))?;
        Ok(match kind {
            1 => SoundData::Value(r.u32(&format!("{f}.data.value"))?),
            2 => SoundData::Spline(read_spline(r, &format!("{f}.data.spline"))?),
            other => {
                warnings.push(format!(
                    "{f}.data at byte offset {at:#x}: sound data kind {other} (nothing read after it)"
                ));
                SoundData::Other(other)
            }
        })
    }

    pub(crate) fn write(&self, w: &mut Writer) -> Result<()> {
        match self {
            SoundData::Value(v) => {
                w.u32(1);
                w.u32(*v);
            }
            SoundData::Spline(s) => {
                w.u32(2);
                s.write(w)?;
            }
            SoundData::Other(kind) => w.u32(*kind),
        }
        Ok(())
    }
}

impl CharMp3 {
    /// Writes the character back: `write(parse(bytes)) == bytes` (trailing padding kept).
    pub fn write(&self) -> Result<Vec<u8>> {
        let mut w = Writer::new();
        w.u8(self.version);
        w.u8(self.id);
        w.cstring(&self.name);
        w.u64(self.model_id);
        w.u64(self.skin_id);
        write_count(&mut w, self.overlays.len(), "overlays")?;
        for o in &self.overlays {
            w.bytes(&o.kind);
            w.u64(o.model_id);
            w.u64(o.skin_id);
        }
        w.u64(self.skeleton_id);
        w.u64(self.sand_id);
        self.pas_database.write(&mut w)?;
        let p = &self.particles;
        write_ids(&mut w, &p.part, "particles.PART")?;
        write_ids(&mut w, &p.swhc, "particles.SWHC")?;
        write_ids(&mut w, &p.elsc, "particles.ELSC")?;
        write_ids(&mut w, &p.spsc, "particles.SPSC")?;
        p.unknown.iter().for_each(|&x| w.u32(x));
        write_count(&mut w, self.event_sets.len(), "event_sets")?;
        for s in &self.event_sets {
            w.u32(s.anim_id);
            w.cstring(&s.name);
            write_count(&mut w, s.particle_events.len(), "particle_events")?;
            for e in &s.particle_events {
                w.cstring(&e.set_name);
                e.base.write(&mut w);
                w.bytes(&e.kind);
                w.u64(e.particle_id);
                w.f32(e.unknown_f32);
                w.u32(e.unknown_u32);
            }
            write_count(&mut w, s.sound_events.len(), "sound_events")?;
            for e in &s.sound_events {
                w.cstring(&e.set_name);
                e.base.write(&mut w);
                w.u64(e.sound_id);
                e.unknown.iter().for_each(|&x| w.u32(x));
                for d in &e.data {
                    d.write(&mut w)?;
                }
            }
        }
        write_count(&mut w, self.animations.len(), "animations")?;
        for a in &self.animations {
            w.cstring(&a.name);
            a.meta.write(&mut w, true)?;
        }
        write_count(&mut w, self.animation_aabbs.len(), "animation_aabbs")?;
        for (id, aabb) in &self.animation_aabbs {
            w.u64(*id);
            aabb.write(&mut w);
        }
        w.u8(self.unknown_bool);
        write_count(&mut w, self.unknown_bools.len(), "unknown_bools")?;
        w.bytes(&self.unknown_bools);
        write_count(&mut w, self.collision_sets.len(), "collision_sets")?;
        for c in &self.collision_sets {
            w.cstring(&c.name);
            write_count(&mut w, c.primitives.len(), "primitives")?;
            for p in &c.primitives {
                p.unknown_words.iter().for_each(|&x| w.u32(x));
                p.unknown_floats.iter().for_each(|&x| w.f32(x));
                w.cstring(&p.name);
                w.f32(p.unknown_f32);
            }
        }
        write_ids(&mut w, &self.sound_resources, "sound_resources")?;
        w.bytes(&self.trailing);
        Ok(w.into_inner())
    }

    pub fn parse(data: &[u8], file: &str) -> Result<CharMp3> {
        let mut r = Reader::new(data, file);
        let mut warnings = Vec::new();
        let version = r.u8("version")?;
        if version != 5 && version != 3 {
            return Err(r.err_at(
                "version",
                0,
                ErrorKind::OutOfRange {
                    value: version.into(),
                    expected: "CHAR version 5 (retail) or 3 (earlier builds)".into(),
                },
            ));
        }
        let id = r.u8("id")?;
        let name = r.cstring("name")?;
        let model_id = r.u64("model_id")?;
        let skin_id = r.u64("skin_id")?;
        let n = r.count("overlays", 20)?;
        let mut overlays = Vec::with_capacity(n);
        for _ in 0..n {
            overlays.push(Overlay {
                kind: r.fourcc("overlays.type")?,
                model_id: r.u64("overlays.model_id")?,
                skin_id: r.u64("overlays.skin_id")?,
            });
        }
        let skeleton_id = r.u64("skeleton_id")?;
        let sand_id = r.u64("sand_id")?;
        let pas_database = Pas4::read(&mut r)?;
        let particles = Mp3Particles {
            part: id64_list(&mut r, "particles.PART")?,
            swhc: id64_list(&mut r, "particles.SWHC")?,
            elsc: id64_list(&mut r, "particles.ELSC")?,
            spsc: id64_list(&mut r, "particles.SPSC")?,
            unknown: [r.u32("particles.unknown")?, r.u32("particles.unknown")?],
        };

        // Minimum base: u16 + "\0" + u16 + 8 + 4 + 4 + 1 + 4 + 4 + 4 + 20.
        const BASE: usize = 54;
        let n = r.count("event_sets", 13)?;
        let mut event_sets = Vec::with_capacity(n);
        for s in 0..n {
            let f = format!("event_sets[{s}]");
            let anim_id = r.u32(&f)?;
            let set_name = r.cstring(&f)?;
            let m = r.count(&format!("{f}.particle_events"), BASE + 1 + 20)?;
            let mut particle_events = Vec::with_capacity(m);
            for e in 0..m {
                let f = format!("{f}.particle_events[{e}]");
                particle_events.push(ParticleEvent {
                    set_name: r.cstring(&f)?,
                    base: Mp3EventBase::read(&mut r, &f)?,
                    kind: r.fourcc(&f)?,
                    particle_id: r.u64(&f)?,
                    unknown_f32: r.f32(&f)?,
                    unknown_u32: r.u32(&f)?,
                });
            }
            let k = r.count(&format!("{f}.sound_events"), BASE + 1 + 24)?;
            let mut sound_events = Vec::with_capacity(k);
            for e in 0..k {
                let f = format!("{f}.sound_events[{e}]");
                let set_name = r.cstring(&f)?;
                let base = Mp3EventBase::read(&mut r, &f)?;
                let sound_id = r.u64(&f)?;
                let unknown = [r.u32(&f)?, r.u32(&f)?];
                let d0 = SoundData::read(&mut r, &f, &mut warnings)?;
                let d1 = SoundData::read(&mut r, &f, &mut warnings)?;
                sound_events.push(SoundEvent {
                    set_name,
                    base,
                    sound_id,
                    unknown,
                    data: [d0, d1],
                });
            }
            event_sets.push(EventSet {
                anim_id,
                name: set_name,
                particle_events,
                sound_events,
            });
        }

        let n = r.count("animations", 5)?;
        let mut animations = Vec::with_capacity(n);
        for _ in 0..n {
            let name = r.cstring("animations.name")?;
            animations.push(NamedAnimation {
                name,
                meta: MetaAnim::read(&mut r, true, 0)?,
            });
        }
        let n = r.count("animation_aabbs", 32)?;
        let mut animation_aabbs = Vec::with_capacity(n);
        for _ in 0..n {
            let id = r.u64("animation_aabbs.anim_id")?;
            animation_aabbs.push((id, Aabb::read(&mut r, "animation_aabbs.aabb")?));
        }
        let unknown_bool = r.u8("unknown_bool")?;
        let n = r.count("unknown_bools", 1)?;
        let unknown_bools = r.bytes("unknown_bools", n)?.to_vec();
        let n = r.count("collision_sets", 5)?;
        let mut collision_sets = Vec::with_capacity(n);
        for s in 0..n {
            let f = format!("collision_sets[{s}]");
            let name = r.cstring(&f)?;
            let m = r.count(&format!("{f}.primitives"), 57)?;
            let mut primitives = Vec::with_capacity(m);
            for _ in 0..m {
                let mut unknown_words = [0u32; 5];
                for w in &mut unknown_words {
                    *w = r.u32(&f)?;
                }
                let mut unknown_floats = [0f32; 8];
                for x in &mut unknown_floats {
                    *x = r.f32(&f)?;
                }
                primitives.push(CollisionPrimitive {
                    unknown_words,
                    unknown_floats,
                    name: r.cstring(&f)?,
                    unknown_f32: r.f32(&f)?,
                });
            }
            collision_sets.push(CollisionSet { name, primitives });
        }
        let sound_resources = id64_list(&mut r, "sound_resources")?;
        let trailing = r.rest().to_vec();
        if trailing.iter().any(|&b| b != 0xFF && b != 0) || trailing.len() >= 64 {
            return Err(r.invalid(
                "trailing",
                format!(
                    "{} bytes after the sound list are not padding",
                    trailing.len()
                ),
            ));
        }
        Ok(CharMp3 {
            version,
            id,
            name,
            model_id,
            skin_id,
            overlays,
            skeleton_id,
            sand_id,
            pas_database,
            particles,
            event_sets,
            animations,
            animation_aabbs,
            unknown_bool,
            unknown_bools,
            collision_sets,
            sound_resources,
            trailing,
            warnings,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::formats::Writer;

    fn base(w: &mut Writer, name: &str) {
        w.u16(0);
        w.cstring(name);
        w.u16(1);
        w.f32(0.25);
        w.u32(0);
        w.u32(0);
        w.u32(0);
        w.u8(0);
        w.f32(1.0);
        w.i32(-1);
        w.u32(0);
        w.u32(0);
        w.u32(0);
        w.u32(0);
        w.f32(0.0);
        w.f32(0.0);
    }

    #[test]
    fn events_with_splines_and_collision_sets() {
        let mut w = Writer::new();
        w.u8(5);
        w.u8(1);
        w.cstring("c");
        w.u64(1);
        w.u64(2);
        w.u32(0); // overlays
        w.u64(3);
        w.u64(4);
        w.bytes(b"PAS4");
        w.u32(0);
        w.u32(0);
        for _ in 0..4 {
            w.u32(0);
        }
        w.u32(0);
        w.u32(0);
        w.u32(1); // one event set
        w.u32(9);
        w.cstring("set");
        w.u32(1); // particle event
        w.cstring("p");
        base(&mut w, "p");
        w.bytes(b"PART");
        w.u64(0x20);
        w.f32(1.0);
        w.u32(0);
        w.u32(1); // sound event
        w.cstring("s");
        base(&mut w, "s");
        w.u64(0x30);
        w.u32(0);
        w.u32(0);
        w.u32(2); // spline
        w.u8(0);
        w.u8(0);
        w.u32(2);
        w.f32(0.0);
        w.f32(1.0);
        w.u8(5);
        w.u8(0);
        w.f32(0.1);
        w.f32(0.2);
        w.f32(1.0);
        w.f32(0.0);
        w.u8(0);
        w.u8(5);
        w.f32(0.3);
        w.f32(0.4);
        w.u8(1);
        w.f32(0.0);
        w.f32(1.0);
        w.u32(7); // unknown kind: nothing follows
        w.u32(0); // animations
        w.u32(0); // aabbs
        w.u8(0);
        w.u32(0);
        w.u32(1); // collision set
        w.cstring("cs");
        w.u32(1);
        for _ in 0..5 {
            w.u32(1);
        }
        for _ in 0..8 {
            w.f32(2.0);
        }
        w.cstring("prim");
        w.f32(3.0);
        w.u32(0); // sounds
        let data = w.into_inner();
        let c = CharMp3::parse(&data, "t").unwrap();
        assert_eq!(c.write().unwrap(), data, "byte-identical write-back");
        let s = &c.event_sets[0].sound_events[0];
        let SoundData::Spline(sp) = &s.data[0] else {
            panic!()
        };
        assert_eq!(sp.knots[0].tangent_a, Some([0.1, 0.2]));
        assert_eq!(sp.knots[1].tangent_b, Some([0.3, 0.4]));
        assert_eq!(s.data[1], SoundData::Other(7));
        assert_eq!(c.warnings.len(), 1);
        assert_eq!(c.collision_sets[0].primitives[0].name, "prim");
        // Non-padding data after the sound list is rejected.
        let mut bad = data.clone();
        bad.push(1);
        assert!(CharMp3::parse(&bad, "t").is_err());
    }
}
