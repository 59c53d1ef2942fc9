//! A small MP3 room (MREA version 0x1E) made by tevscope's own MP3 area writer: no MP3
//! area fixture exists, so this is what tests, the demo and the viewer open to see MP3
//! world geometry and MP3 light layers.
//!
//! The room is 8 × 6 units and 3 high (x ∈ [−4, 4], y ∈ [−3, 3], z ∈ [0, 3], Z up), open at
//! the top. World models and their MP3 materials (each a different PASS configuration):
//!
//! 0. the floor: `DIFF` stone tiles × `CLR ` the room lightmap (both flat 4×4-texel
//!    blocks, so a CPU reference reads them exactly), lit (FullRenderOpaque);
//! 1. the walls, facing inward: `DIFF` rings with a `DIFB` colour (C1), lit (FullRenderOpaque);
//! 2. a box on the floor at (−2, 1.5): `DIFF` CMPR tiles, masked (MaterialAlphaCompare); and a
//!    glass pane at y = 0.4: `CLR ` + `TRAN` water, pre-INCA transparency, `OPAC` 180
//!    (NoBloomTransparent).
//!
//! Light layer 0: ambient, directional, spot and point; layer 1: a red alarm light;
//! layer 2: a moonlit directional; layer 3 is empty. `DEPS` lists the textures per layer.

use crate::formats::cmdl::{CmdlBuilder, MeshVertex};
use crate::formats::material::MaterialBuilder;
use crate::formats::mp3_material::{Element, Mp3Material, Mp3MaterialSet, Pass};
use crate::formats::mrea::{
    Dependencies, Dependency, LIGHT_RECORD_SIZE_MP3, LIGHTS_MAGIC, LightRecord, LightsSection,
    Mp3Geometry, WorldModel, write_mp3_area,
};
use crate::formats::pak::PakBuilder;
use crate::formats::{FourCc, Game};

use super::DemoError;
use super::lights::{ambient, directional, point, spot};
use super::room::{grid, merge};
use super::textures::{TEX_CMPR, TEX_I8, TEX_ROOM_LIGHTMAP, TEX_ROOM_TILES, TEX_WATER, TEXTURES};

/// The room's asset ID in the demo's MP3 PAK.
pub const MP3_ROOM_MREA: u64 = 0xDE0A_0000_0000_0001;
/// 64-bit texture IDs: the demo texture's 32-bit ID under this prefix.
pub const MP3_TEXTURE_PREFIX: u64 = 0xDE0A_0001_0000_0000;

/// Material indices.
pub const FLOOR: u32 = 0;
pub const WALL: u32 = 1;
pub const BOX: u32 = 2;
pub const GLASS: u32 = 3;

/// The glass pane: x range, y, z range.
pub const GLASS_X: [f32; 2] = [-3.2, -0.8];
pub const GLASS_Y: f32 = 0.4;
/// The box: centre (x, y), half width, height.
pub const BOX_CENTRE: [f32; 2] = [-2.0, 1.5];
const BOX_HALF: f32 = 0.6;
const BOX_HEIGHT: f32 = 1.5;

/// The demo textures the room uses (by their 32-bit demo IDs).
pub const ROOM_TEXTURES: [u32; 5] = [
    TEX_ROOM_TILES,
    TEX_ROOM_LIGHTMAP,
    TEX_I8,
    TEX_CMPR,
    TEX_WATER,
];

/// The 64-bit ID of a demo texture in the MP3 room.
pub fn texture_id(demo_id: u32) -> u64 {
    MP3_TEXTURE_PREFIX | u64::from(demo_id)
}

/// The room's files: the area and its textures (64-bit IDs, TXTR bytes).
pub struct Mp3Room {
    pub mrea: Vec<u8>,
    pub textures: Vec<(u64, Vec<u8>)>,
}

fn pass(kind: &str, texture: u64, flags: u32) -> Element {
    let mut k = [b' '; 4];
    k.copy_from_slice(kind.as_bytes());
    Element::Pass(Pass {
        kind: FourCc(k),
        flags,
        texture_id: texture,
        uv_set: 0,
        uv_animation: Vec::new(),
        trailing: Vec::new(),
    })
}

fn int(kind: &[u8; 4], value: u32) -> Element {
    Element::Int {
        kind: FourCc(*kind),
        value,
    }
}

/// A material whose vertex attributes the built surfaces fill in.
fn material(flags: u32, mut elements: Vec<Element>) -> Mp3Material {
    elements.push(Element::End);
    Mp3Material {
        flags,
        group_index: 0,
        unknown_0x0c: 0,
        vertex_attributes: crate::formats::material::VertexAttributes(0),
        unknown_0x14: [0; 3],
        elements,
        trailing: Vec::new(),
    }
}

/// The room's material set (see the module docs).
pub fn room_materials() -> Mp3MaterialSet {
    let t = texture_id;
    Mp3MaterialSet {
        materials: vec![
            material(
                0,
                vec![
                    pass("DIFF", t(TEX_ROOM_TILES), 0),
                    pass("CLR ", t(TEX_ROOM_LIGHTMAP), 0),
                ],
            ),
            material(
                0,
                vec![
                    pass("DIFF", t(TEX_I8), 0),
                    Element::Color {
                        kind: FourCc(*b"DIFB"),
                        rgba: 0x5070_A0FF,
                    },
                ],
            ),
            material(0x10, vec![pass("DIFF", t(TEX_CMPR), 0), int(b"OPAC", 255)]),
            material(
                0x8,
                vec![
                    pass("CLR ", t(TEX_WATER), 0),
                    pass("TRAN", t(TEX_WATER), 3),
                    int(b"OPAC", 180),
                ],
            ),
        ],
    }
}

type Mesh = (Vec<MeshVertex>, Vec<[u32; 3]>);

/// A quad grid with one texture repeat per unit.
fn panel(origin: [f32; 3], du: [f32; 3], dv: [f32; 3], n: [u32; 2], normal: [f32; 3]) -> Mesh {
    let (lu, lv) = (n[0] as f32, n[1] as f32);
    grid(origin, du, dv, n, normal, move |v, _, s, t| {
        v.uv(0, [s * lu / 2.0, t * lv / 2.0])
    })
}

/// World models as (material, mesh) lists.
fn room_parts() -> Vec<Vec<(u32, Mesh)>> {
    let floor = panel(
        [-4.0, -3.0, 0.0],
        [8.0, 0.0, 0.0],
        [0.0, 6.0, 0.0],
        [8, 6],
        [0.0, 0.0, 1.0],
    );
    let mut walls = panel(
        [-4.0, 3.0, 0.0],
        [8.0, 0.0, 0.0],
        [0.0, 0.0, 3.0],
        [8, 3],
        [0.0, -1.0, 0.0],
    );
    for (origin, du, n, normal) in [
        ([-4.0, -3.0, 0.0], [8.0, 0.0, 0.0], 8, [0.0, 1.0, 0.0]),
        ([-4.0, -3.0, 0.0], [0.0, 6.0, 0.0], 6, [1.0, 0.0, 0.0]),
        ([4.0, -3.0, 0.0], [0.0, 6.0, 0.0], 6, [-1.0, 0.0, 0.0]),
    ] {
        merge(
            &mut walls,
            panel(origin, du, [0.0, 0.0, 3.0], [n, 3], normal),
        );
    }
    let [cx, cy] = BOX_CENTRE;
    let (h, z) = (BOX_HALF, BOX_HEIGHT);
    let mut boxm = panel(
        [cx - h, cy - h, z],
        [2.0 * h, 0.0, 0.0],
        [0.0, 2.0 * h, 0.0],
        [1, 1],
        [0.0, 0.0, 1.0],
    );
    for (origin, du, normal) in [
        ([cx - h, cy - h, 0.0], [2.0 * h, 0.0, 0.0], [0.0, -1.0, 0.0]),
        ([cx - h, cy + h, 0.0], [2.0 * h, 0.0, 0.0], [0.0, 1.0, 0.0]),
        ([cx - h, cy - h, 0.0], [0.0, 2.0 * h, 0.0], [-1.0, 0.0, 0.0]),
        ([cx + h, cy - h, 0.0], [0.0, 2.0 * h, 0.0], [1.0, 0.0, 0.0]),
    ] {
        merge(&mut boxm, panel(origin, du, [0.0, 0.0, z], [1, 1], normal));
    }
    let glass_face = |normal: [f32; 3]| {
        panel(
            [GLASS_X[0], GLASS_Y, 0.1],
            [GLASS_X[1] - GLASS_X[0], 0.0, 0.0],
            [0.0, 0.0, 2.0],
            [2, 2],
            normal,
        )
    };
    let mut glass = glass_face([0.0, -1.0, 0.0]);
    merge(&mut glass, glass_face([0.0, 1.0, 0.0]));
    vec![
        vec![(FLOOR, floor)],
        vec![(WALL, walls)],
        vec![(BOX, boxm), (GLASS, glass)],
    ]
}

/// An MP3 light record from the demo's light helpers, with the MP3-only fields set.
fn mp3_light(mut l: LightRecord, alpha: f32) -> LightRecord {
    l.color[3] = alpha;
    l.codirection = Some([0.0, 0.0, 1.0]);
    l.mp3_unknown_floats = Some([0.0, 1.0, 0.0, 0.0]);
    l.mp3_unknown_u32 = Some(0);
    l
}

/// The four MP3 light layers (see the module docs).
pub fn room_lights() -> LightsSection {
    let layers = vec![
        vec![
            ambient([0.2, 0.2, 0.25]),
            directional([0.55, 0.5, 0.42], [0.3, 0.5, -0.8]),
            spot(
                [1.0, 0.95, 0.85],
                [0.0, -1.0, 2.9],
                [-2.0, 1.5, 0.75],
                750.0,
                35.0,
            ),
            point([0.3, 0.8, 1.0], [2.5, -2.0, 1.0], 56250.0),
        ],
        vec![
            ambient([0.15, 0.03, 0.03]),
            point([1.0, 0.15, 0.1], [0.0, 0.0, 2.5], 150_000.0),
        ],
        vec![
            ambient([0.05, 0.06, 0.12]),
            directional([0.35, 0.4, 0.6], [0.0, 0.2, -1.0]),
        ],
        Vec::new(),
    ];
    LightsSection {
        offset: None,
        magic: LIGHTS_MAGIC,
        layers: layers
            .into_iter()
            .map(|l| l.into_iter().map(|r| mp3_light(r, 1.0)).collect())
            .collect(),
        light_record_size: LIGHT_RECORD_SIZE_MP3,
    }
}

/// The room's world geometry: each world model built by the CMDL builder (its MP2 surface
/// header is MP3's) with stand-in MP1 materials, then given the MP3 set, each material
/// taking the vertex attributes its surfaces were encoded with.
pub fn room_geometry() -> Result<Mp3Geometry, DemoError> {
    let mut set = room_materials();
    let mut models = Vec::new();
    for (k, part) in room_parts().into_iter().enumerate() {
        let what = format!("MP3 room world model {k}");
        let err = |e: &dyn std::fmt::Display| DemoError::new(&what, e.to_string());
        let mut b = CmdlBuilder::new(Game::Mp2);
        for _ in &set.materials {
            b.add_material(MaterialBuilder::textured_lit(0).build());
        }
        b.add_texture(0);
        for (m, (v, t)) in &part {
            b.add_mesh(*m, v, t).map_err(|e| err(&e))?;
        }
        let cmdl = b.build().map_err(|e| err(&e))?;
        for s in &cmdl.surfaces {
            let i = s.material_index as usize;
            set.materials[i].vertex_attributes =
                cmdl.material_sets[0].materials[i].vertex_attributes;
        }
        models.push(WorldModel::from_cmdl(&cmdl, 0));
    }
    Ok(Mp3Geometry::new(set, models))
}

/// The room's `DEPS`: layer 0 the floor and wall textures, layer 1 the others, and the
/// area itself area-wide.
pub fn room_dependencies() -> Dependencies {
    let txtr = |id: u32| Dependency {
        id: texture_id(id),
        kind: FourCc(*b"TXTR"),
    };
    Dependencies::new(
        0,
        &[
            vec![txtr(TEX_ROOM_TILES), txtr(TEX_ROOM_LIGHTMAP), txtr(TEX_I8)],
            vec![txtr(TEX_CMPR), txtr(TEX_WATER)],
        ],
        &[Dependency {
            id: MP3_ROOM_MREA,
            kind: FourCc(*b"MREA"),
        }],
    )
}

/// Builds the room and its textures.
pub fn build_mp3_room() -> Result<Mp3Room, DemoError> {
    let geometry = room_geometry()?;
    let mrea = write_mp3_area(&geometry, &room_dependencies(), &room_lights())
        .map_err(|e| DemoError::new("MP3 room", e.to_string()))?;
    let textures = ROOM_TEXTURES
        .into_iter()
        .map(|id| {
            let spec = TEXTURES
                .iter()
                .find(|t| t.id == id)
                .ok_or_else(|| DemoError::new("MP3 room", format!("no demo texture {id:#x}")))?;
            Ok((texture_id(id), spec.encode()?.to_bytes()))
        })
        .collect::<Result<Vec<_>, DemoError>>()?;
    Ok(Mp3Room { mrea, textures })
}

/// The demo's MP3 PAK (`assets/demo_mp3.pak`, version 2): the room (named `room`), a world
/// holding it (`world`, [`mp3_world_mlvl`]) and the room's textures (named as in the MP1
/// demo), each stored LZO-compressed in CMPD form.
pub fn build_mp3_pak() -> Result<Vec<u8>, DemoError> {
    let room = build_mp3_room()?;
    let mut pak = PakBuilder::new(Game::Mp3);
    pak.add(*b"MREA", MP3_ROOM_MREA, &room.mrea, true);
    pak.add_name(*b"MREA", MP3_ROOM_MREA, "room");
    let mlvl = mp3_world_mlvl();
    pak.add(*b"MLVL", MP3_WORLD_MLVL, &mlvl, true);
    pak.add_name(*b"MLVL", MP3_WORLD_MLVL, "world");
    for (id, bytes) in &room.textures {
        pak.add(*b"TXTR", *id, bytes, true);
        if let Some(spec) = TEXTURES.iter().find(|t| texture_id(t.id) == *id) {
            pak.add_name(*b"TXTR", *id, spec.name);
        }
    }
    pak.build()
        .map_err(|e| DemoError::new(MP3_PAK_FILE, e.to_string()))
}

/// The MP3 world's MLVL asset ID in the demo's MP3 PAK.
pub const MP3_WORLD_MLVL: u64 = 0xDE0A_0000_0000_0002;

/// An MP3 MLVL (version 0x19, `formats.md` §12.4) with the room as its one area: no name
/// STRGs (the internal name `mp3_room` names it), no docks, script layers "Default" (active)
/// and "Alarm" as `DEPS` lists them, one layer GUID per layer.
pub fn mp3_world_mlvl() -> Vec<u8> {
    const NONE: u64 = u64::MAX;
    let mut w = crate::formats::reader::Writer::new();
    w.u32(crate::formats::mlvl::MAGIC);
    w.u32(0x19);
    w.u64(NONE); // world name STRG
    w.u32(0);
    w.u64(NONE); // SAVW
    w.u64(NONE); // skybox
    w.u32(1); // areas
    w.u64(NONE); // area name STRG
    for row in 0..3 {
        for c in 0..4 {
            w.f32(if c == row { 1.0 } else { 0.0 });
        }
    }
    w.vec3([-4.0, -3.0, 0.0]);
    w.vec3([4.0, 3.0, 3.0]);
    w.u64(MP3_ROOM_MREA);
    w.u64(1); // internal area ID
    w.u32(0); // attached areas
    w.u32(0); // docks
    w.cstring("mp3_room");
    w.u64(NONE); // MAPW
    w.u8(0);
    w.u32(0);
    w.u32(1);
    w.u32(2);
    w.u64(0b01);
    w.u32(2);
    w.cstring("Default");
    w.cstring("Alarm");
    w.u32(2);
    w.bytes(&[0xA0; 16]);
    w.bytes(&[0xA1; 16]);
    w.u32(1);
    w.u32(0);
    w.pad_to(32, 0xFF);
    w.into_inner()
}

/// The MP3 PAK's file name in the demo output.
pub const MP3_PAK_FILE: &str = "demo_mp3.pak";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::mrea::parse_mrea;

    #[test]
    fn the_mp3_room_parses_back_and_writes_byte_for_byte() {
        let room = build_mp3_room().expect("builds");
        let m = parse_mrea(&room.mrea, "room.MREA").expect("parses");
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        assert_eq!(m.version, 0x1E);
        let g = m.mp3_geometry.as_ref().expect("MP3 geometry");
        assert_eq!(g.world_models.len(), 3);
        assert_eq!(g.materials.sets[0].materials.len(), 4);
        let built = room_geometry().expect("geometry");
        assert_eq!(g.wobj_sections(), built.wobj_sections());
        assert_eq!(g.gpud_sections(), built.gpud_sections());
        assert_eq!(g.triangle_count(), built.triangle_count());
        assert!(
            g.world_models
                .iter()
                .all(|w| w.surfaces.iter().all(|s| s.mesh.error.is_none()))
        );
        assert_eq!(
            m.lights_section.as_ref().map(|l| &l.layers),
            Some(&room_lights().layers)
        );
        let d = m.dependencies.as_ref().expect("DEPS");
        assert_eq!(d.layers().len(), 2);
        assert_eq!(d.area_wide().len(), 1);
        assert_eq!(m.to_bytes().expect("writes"), room.mrea);
        assert_eq!(room.mrea.len() % 64, 0);
    }
}
