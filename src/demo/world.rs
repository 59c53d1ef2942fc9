//! The demo's world: an MP1 MLVL (formats.md §12.2) whose rooms are the demo room and the
//! light set, named by STRGs in English and German, so `tevscope worlds builtin:demo.pak`
//! and the viewer's world tree show rooms by name from the first start.

use super::{DemoError, lights, room};
use crate::formats::FourCc;
use crate::formats::reader::Writer;
use crate::formats::strg::{Strg, StrgLanguage};

pub const WORLD_MLVL: u32 = 0xDE0B_0001;
pub const WORLD_NAME_STRG: u32 = 0xDE0B_0002;
/// Area-name STRGs follow, one per room.
const ROOM_NAME_STRG: u32 = 0xDE0B_0010;

const NONE: u32 = u32::MAX;

/// A room of the world: its MREA, names (English, German), bounds and position.
struct Room {
    mrea: u32,
    names: [&'static str; 2],
    aabb: ([f32; 3], [f32; 3]),
    at: [f32; 3],
    layers: &'static [&'static str],
}

const ROOMS: [Room; 2] = [
    Room {
        mrea: room::ROOM_MREA,
        names: ["Demo Room", "Demoraum"],
        aabb: (
            [-room::HALF_X, -room::HALF_Y, 0.0],
            [room::HALF_X, room::HALF_Y, room::HEIGHT],
        ),
        at: [0.0; 3],
        layers: &["Default", "Red Alarm"],
    },
    Room {
        mrea: lights::LIGHTS_MREA,
        names: ["Light Set", "Lichtset"],
        aabb: ([-1.0, -1.0, 0.0], [1.0, 1.0, 2.0]),
        at: [0.0, 6.0, 0.0],
        layers: &["Default"],
    },
];

const WORLD_NAMES: [&str; 2] = ["Demo World", "Demowelt"];

/// A version-0 STRG with one string in English and German.
fn strg(names: [&str; 2], what: &str) -> Result<Vec<u8>, DemoError> {
    let language = |code: &[u8; 4], s: &str| StrgLanguage {
        code: FourCc(*code),
        offset: 0,
        size: 0,
        string_offsets: Vec::new(),
        strings: vec![s.to_string()],
    };
    Strg {
        version: 0,
        string_count: 1,
        languages: vec![language(b"ENGL", names[0]), language(b"GERM", names[1])],
        names: Vec::new(),
        name_table_size: None,
        strings_start: 0,
        warnings: Vec::new(),
    }
    .to_bytes()
    .ok_or_else(|| DemoError::new(what, "STRG version 0 not written"))
}

/// The MLVL (areas in [`ROOMS`] order; no docks, dependencies, relays or audio groups).
fn mlvl() -> Vec<u8> {
    let mut w = Writer::new();
    w.u32(crate::formats::mlvl::MAGIC);
    w.u32(0x11);
    w.u32(WORLD_NAME_STRG);
    w.u32(NONE); // SAVW
    w.u32(NONE); // skybox
    w.u32(0); // memory relays
    w.u32(ROOMS.len() as u32);
    w.u32(1);
    for (i, r) in ROOMS.iter().enumerate() {
        w.u32(ROOM_NAME_STRG + i as u32);
        for (row, t) in r.at.iter().enumerate() {
            let mut m = [0.0; 4];
            m[row] = 1.0;
            m[3] = *t;
            for v in m {
                w.f32(v);
            }
        }
        w.vec3(r.aabb.0);
        w.vec3(r.aabb.1);
        w.u32(r.mrea);
        w.u32(i as u32); // internal area ID
        w.u32(0); // attached areas
        w.u32(0); // lazy dependencies
        w.u32(0); // dependencies
        w.u32(r.layers.len() as u32 + 1);
        for _ in 0..=r.layers.len() {
            w.u32(0);
        }
        w.u32(0); // docks
    }
    w.u32(NONE); // MAPW
    w.u8(0);
    w.u32(0); // empty script layer
    w.u32(0); // audio groups
    w.u8(0); // empty string
    w.u32(ROOMS.len() as u32);
    for r in &ROOMS {
        w.u32(r.layers.len() as u32);
        // Every layer active; the unused bits as 1s, as the games' tools write them.
        w.u64(u64::MAX);
    }
    let names: Vec<&str> = ROOMS
        .iter()
        .flat_map(|r| r.layers.iter().copied())
        .collect();
    w.u32(names.len() as u32);
    for n in &names {
        w.cstring(n);
    }
    w.u32(ROOMS.len() as u32);
    let mut first = 0;
    for r in &ROOMS {
        w.u32(first);
        first += r.layers.len() as u32;
    }
    w.pad_to(32, 0xFF);
    w.into_inner()
}

/// One resource of the world: type, ID, name, bytes, what it is.
pub type WorldResource = ([u8; 4], u32, String, Vec<u8>, String);

/// The world's resources.
pub fn build_world() -> Result<Vec<WorldResource>, DemoError> {
    let mut out = vec![
        (
            *b"MLVL",
            WORLD_MLVL,
            "demo_world".to_string(),
            mlvl(),
            format!(
                "world \"{}\": rooms {}",
                WORLD_NAMES[0],
                ROOMS
                    .iter()
                    .map(|r| format!("\"{}\"", r.names[0]))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ),
        (
            *b"STRG",
            WORLD_NAME_STRG,
            "demo_world_name".to_string(),
            strg(WORLD_NAMES, "demo_world_name")?,
            "world name (English, German)".to_string(),
        ),
    ];
    for (i, r) in ROOMS.iter().enumerate() {
        let name = format!("demo_area_name_{i}");
        out.push((
            *b"STRG",
            ROOM_NAME_STRG + i as u32,
            name.clone(),
            strg(r.names, &name)?,
            format!("name of room {i}, \"{}\" (English, German)", r.names[0]),
        ));
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::formats::mlvl::Mlvl;

    #[test]
    fn the_world_reads_back() {
        let m = Mlvl::parse(&mlvl(), "demo_world.MLVL").unwrap();
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        assert_eq!(m.areas.len(), 2);
        assert_eq!(u64::from(room::ROOM_MREA), m.areas[0].mrea_id);
        assert_eq!(m.areas[1].layers.len(), 1);
        assert_eq!(m.areas[0].layers[1].name, "Red Alarm");
        let s = Strg::parse(&strg(["a", "b"], "x").unwrap(), "x").unwrap();
        assert!(s.warnings.is_empty());
        assert_eq!(s.language(Some("GERM")).unwrap().strings, ["b"]);
    }
}
