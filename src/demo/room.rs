//! The demo room: a small MP1 area (`demo.pak:room`) made by tevscope's own MREA writer, and
//! the generated stress room the benchmarks open.
//!
//! The room is 8 × 6 units and 3 high (x ∈ [−4, 4], y ∈ [−3, 3], z ∈ [0, 3], Z up), open at
//! the top, its walls facing inward (so from outside the near wall is culled). World models:
//!
//! 0. the floor: lightmapped (flags 0x2000 + 0x800), TEX0 = the lightmap from the short UVs,
//!    × C1, × the stone tiles on TEX1 (float UVs), unlit;
//! 1. the four walls, lit, subdivided per unit so spot and point lights show per vertex;
//! 2. a pool of water in the corner x ∈ [1, 4], y ∈ [−3, −1]: UV scroll, alpha blended over
//!    the floor;
//! 3. a lit box standing on the floor at (−2, 1.5);
//! 4. a blended window pane at y = 0.4 beside the box, one face each way: K0
//!    pale blue × the lit colour, alpha K0.a.
//!
//! Layer 0 lights it with one light of each type (local ambient, directional, spot, custom
//! point); layer 1 is a red alarm light.

use crate::formats::Game;
use crate::formats::cmdl::{CmdlBuilder, MeshVertex};
use crate::formats::material::MaterialBuilder;
use crate::formats::mrea::{LightsSection, WorldGeometry, WorldModel, write_mp1_area};
use crate::formats::pak::PakBuilder;
use crate::gx::{self, AlphaInput as A, ColorInput as C, KonstSel, RasterChannel, UvAnimation};

use super::lights::{ambient, directional, mp1_section, point, spot};
use super::showcase::{lightmapped, orient, stage, textured, uv_texgen};
use super::textures::*;
use super::{DemoError, snap3};

pub const ROOM_MREA: u32 = 0xDE07_0002;

/// Half extents and height of the room.
pub const HALF_X: f32 = 4.0;
pub const HALF_Y: f32 = 3.0;
pub const HEIGHT: f32 = 3.0;

/// Material indices of the room's shared material set.
pub const FLOOR: u32 = 0;
pub const WALL: u32 = 1;
pub const WATER: u32 = 2;
pub const BOX: u32 = 3;
pub const WINDOW: u32 = 4;

/// The water's corner: x ∈ [1, 4], y ∈ [−3, −1], just above the floor.
pub const WATER_MIN: [f32; 2] = [1.0, -3.0];
pub const WATER_MAX: [f32; 2] = [4.0, -1.0];
const WATER_Z: f32 = 0.05;
/// The box: centre (x, y), half width, height.
pub const BOX_CENTRE: [f32; 2] = [-2.0, 1.5];
const BOX_HALF: f32 = 0.6;
const BOX_HEIGHT: f32 = 1.5;
/// The window pane: x range, y, z range.
pub const WINDOW_X: [f32; 2] = [-3.2, -0.8];
pub const WINDOW_Y: f32 = 0.4;
const WINDOW_Z: [f32; 2] = [0.1, 2.1];

/// A short description of each world model and light, for the README (same order).
pub const MODELS_ABOUT: [&str; 5] = [
    "floor: 8 × 6 quads; lightmap (`tex_room_lightmap`, flags 0x2000 + 0x800, TEX0 from the short UVs = floor position / room size) × C1, × stone tiles (`tex_room_tiles`, TEX1, one tile per unit) × 2; unlit",
    "walls: four walls facing inward, 1-unit cells, `tex_i8_rings` × lit COLOR0",
    "water: x ∈ [1, 4], y ∈ [−3, −1] at z = 0.05; `tex_water` scrolling (UV mode 2, speed (0.1, 0.05)/s) × lit COLOR0, alpha blended",
    "box: 1.2 × 1.2 × 1.5 at (−2, 1.5), `tex_cmpr_tiles` × lit COLOR0",
    "window: a two-sided pane at y = 0.4, x ∈ [−3.2, −0.8], beside the box; K0 pale blue × lit COLOR0, alpha K0.a = 140, alpha blended",
];
pub const LAYER0_ABOUT: [&str; 4] = [
    "local ambient: (0.2, 0.2, 0.25)",
    "directional: warm (0.55, 0.5, 0.42) along (0.3, 0.5, −0.8)",
    "spot: white (1.0, 0.95, 0.85) at (0, −1, 2.9) aimed at the box, 35° cone, linear falloff, brightness 750 (≈ 1 at 3 units)",
    "custom (point): blue-green (0.3, 0.8, 1.0) at (2.5, −2, 1) over the water, quadratic falloff, brightness 56250 (≈ 1 at 1.5 units)",
];
pub const LAYER1_ABOUT: [&str; 2] = [
    "local ambient: dark red (0.15, 0.03, 0.03)",
    "custom (point): alarm red (1.0, 0.15, 0.1) at (0, 0, 2.5), quadratic falloff, brightness 150000",
];

/// One world model: its meshes (material index, vertices, triangles) and visor flags.
pub struct Part {
    pub visor_flags: u32,
    pub meshes: Vec<(u32, Vec<MeshVertex>, Vec<[u32; 3]>)>,
}

/// An MP1 area from world models that share one material set: `materials` adds the same
/// textures and materials to every model's builder, so material indices agree, and each
/// material keeps the vertex attributes its surfaces gave it. Normals are stored as s16.
pub fn build_area(
    materials: &dyn Fn(&mut CmdlBuilder),
    parts: &[Part],
    lights: &LightsSection,
) -> Result<Vec<u8>, DemoError> {
    let mut models = Vec::with_capacity(parts.len());
    let mut set = None;
    for (k, part) in parts.iter().enumerate() {
        let what = format!("world model {k}");
        let mut b = CmdlBuilder::new(Game::Mp1);
        // Retail world models store s16 normals (visor bit 0), which lightmapped surfaces'
        // vertex format 2 requires (formats.md §9.5.5).
        b.short_normals = true;
        materials(&mut b);
        for (m, v, t) in &part.meshes {
            b.add_mesh(*m, v, t)
                .map_err(|e| DemoError::new(&what, e.to_string()))?;
        }
        let cmdl = b
            .build()
            .map_err(|e| DemoError::new(&what, e.to_string()))?;
        let own = &cmdl.material_sets[0];
        let set = set.get_or_insert_with(|| own.clone());
        for s in &cmdl.surfaces {
            let i = s.material_index as usize;
            set.materials[i] = own.materials[i].clone();
        }
        models.push(WorldModel::from_cmdl(&cmdl, part.visor_flags));
    }
    let set = set.ok_or_else(|| DemoError::new("area", "no world models"))?;
    let geometry = WorldGeometry::new_mp1(set, models);
    write_mp1_area(&geometry, lights).map_err(|e| DemoError::new("area", e.to_string()))
}

/// A grid of `n[0]` × `n[1]` cells spanning `origin` + s·`du` + t·`dv` (s, t ∈ [0, 1]),
/// facing `normal`; `f` fills each vertex from its position and (s, t).
pub(super) fn grid(
    origin: [f32; 3],
    du: [f32; 3],
    dv: [f32; 3],
    n: [u32; 2],
    normal: [f32; 3],
    f: impl Fn(MeshVertex, [f32; 3], f32, f32) -> MeshVertex,
) -> (Vec<MeshVertex>, Vec<[u32; 3]>) {
    let mut verts = Vec::new();
    for j in 0..=n[1] {
        for i in 0..=n[0] {
            let (s, t) = (i as f32 / n[0] as f32, j as f32 / n[1] as f32);
            let p = snap3([0, 1, 2].map(|k| origin[k] + s * du[k] + t * dv[k]));
            verts.push(f(MeshVertex::new(p).normal(normal), p, s, t));
        }
    }
    let at = |i: u32, j: u32| j * (n[0] + 1) + i;
    let mut tris = Vec::new();
    for j in 0..n[1] {
        for i in 0..n[0] {
            let (a, b, c, d) = (at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1));
            tris.push(orient([a, b, c], &verts, normal));
            tris.push(orient([a, c, d], &verts, normal));
        }
    }
    (verts, tris)
}

/// Appends `b`'s vertices and triangles to `a`.
pub(super) fn merge(a: &mut (Vec<MeshVertex>, Vec<[u32; 3]>), b: (Vec<MeshVertex>, Vec<[u32; 3]>)) {
    let base = a.0.len() as u32;
    a.0.extend(b.0);
    a.1.extend(b.1.into_iter().map(|t| t.map(|i| i + base)));
}

/// The floor's lightmap UV of a floor position (short UVs: 0..1 over the room).
pub fn floor_lightmap_uv(p: [f32; 3]) -> [f32; 2] {
    [
        (p[0] + HALF_X) / (2.0 * HALF_X),
        (p[1] + HALF_Y) / (2.0 * HALF_Y),
    ]
}

/// The floor's tile UV of a floor position: one 16-texel texture repeat per 4 units, so one
/// flat block per unit.
pub fn floor_tile_uv(p: [f32; 3]) -> [f32; 2] {
    [(p[0] + HALF_X) / 4.0, (p[1] + HALF_Y) / 4.0]
}

/// Konst K0 × the lit colour, alpha K0.a, alpha blended (glass).
fn glass(rgba: [u8; 4]) -> MaterialBuilder {
    let mut s = stage(
        [C::Zero, C::Konst, C::Rasc, C::Zero],
        [A::Zero, A::Zero, A::Zero, A::Konst],
        None,
        RasterChannel::Color0A0,
    );
    // K0's alpha (kasel 0x1C).
    s.kasel = KonstSel(0x1C);
    MaterialBuilder::new()
        .konst(0, rgba)
        .stage(s)
        .alpha_blended()
}

fn room_materials(b: &mut CmdlBuilder) {
    let floor = lightmapped(b, TEX_ROOM_LIGHTMAP, TEX_ROOM_TILES).build();
    let wall = MaterialBuilder::textured_lit(b.add_texture(TEX_I8)).build();
    let water = textured(b.add_texture(TEX_WATER), uv_texgen(0, Some(0)), true)
        .uv_animation(UvAnimation::Scroll {
            offset_u: 0.0,
            offset_v: 0.0,
            speed_u: 0.1,
            speed_v: 0.05,
        })
        .alpha_blended()
        .build();
    let boxm = MaterialBuilder::textured_lit(b.add_texture(TEX_CMPR)).build();
    let window = glass([120, 190, 255, 140]).build();
    for (index, m) in [
        (FLOOR, floor),
        (WALL, wall),
        (WATER, water),
        (BOX, boxm),
        (WINDOW, window),
    ] {
        let got = b.add_material(m);
        debug_assert_eq!(got, index);
    }
}

/// The room's world models (see the module docs).
fn room_parts() -> Vec<Part> {
    let (hx, hy, h) = (HALF_X, HALF_Y, HEIGHT);
    let floor = grid(
        [-hx, -hy, 0.0],
        [2.0 * hx, 0.0, 0.0],
        [0.0, 2.0 * hy, 0.0],
        [8, 6],
        [0.0, 0.0, 1.0],
        |v, p, _, _| v.uv(0, floor_lightmap_uv(p)).uv(1, floor_tile_uv(p)),
    );
    // Walls: one texture repeat per 2 units along the wall and up.
    let wall = |origin: [f32; 3], along: [f32; 3], cells: u32, normal: [f32; 3]| {
        let len = cells as f32;
        grid(
            origin,
            along.map(|c| c * len),
            [0.0, 0.0, h],
            [cells, 3],
            normal,
            move |v, _, s, t| v.uv(0, [s * len / 2.0, (1.0 - t) * h / 2.0]),
        )
    };
    let mut walls = wall([-hx, hy, 0.0], [1.0, 0.0, 0.0], 8, [0.0, -1.0, 0.0]);
    merge(
        &mut walls,
        wall([-hx, -hy, 0.0], [1.0, 0.0, 0.0], 8, [0.0, 1.0, 0.0]),
    );
    merge(
        &mut walls,
        wall([-hx, -hy, 0.0], [0.0, 1.0, 0.0], 6, [1.0, 0.0, 0.0]),
    );
    merge(
        &mut walls,
        wall([hx, -hy, 0.0], [0.0, 1.0, 0.0], 6, [-1.0, 0.0, 0.0]),
    );
    let (w0, w1) = (WATER_MIN, WATER_MAX);
    let water = grid(
        [w0[0], w0[1], WATER_Z],
        [w1[0] - w0[0], 0.0, 0.0],
        [0.0, w1[1] - w0[1], 0.0],
        [3, 2],
        [0.0, 0.0, 1.0],
        |v, p, _, _| v.uv(0, [p[0] / 3.0, p[1] / 3.0]),
    );
    // The box: four sides and the top, each face one texture repeat.
    let [bx, by] = BOX_CENTRE;
    let (r, bh) = (BOX_HALF, BOX_HEIGHT);
    let side = |origin: [f32; 3], along: [f32; 3], normal: [f32; 3]| {
        grid(
            origin,
            along,
            [0.0, 0.0, bh],
            [2, 2],
            normal,
            |v, _, s, t| v.uv(0, [s, 1.0 - t]),
        )
    };
    let mut boxm = side([bx - r, by - r, 0.0], [2.0 * r, 0.0, 0.0], [0.0, -1.0, 0.0]);
    merge(
        &mut boxm,
        side([bx - r, by + r, 0.0], [2.0 * r, 0.0, 0.0], [0.0, 1.0, 0.0]),
    );
    merge(
        &mut boxm,
        side([bx - r, by - r, 0.0], [0.0, 2.0 * r, 0.0], [-1.0, 0.0, 0.0]),
    );
    merge(
        &mut boxm,
        side([bx + r, by - r, 0.0], [0.0, 2.0 * r, 0.0], [1.0, 0.0, 0.0]),
    );
    merge(
        &mut boxm,
        grid(
            [bx - r, by - r, bh],
            [2.0 * r, 0.0, 0.0],
            [0.0, 2.0 * r, 0.0],
            [2, 2],
            [0.0, 0.0, 1.0],
            |v, _, s, t| v.uv(0, [s, t]),
        ),
    );
    // Both faces of the pane, so it shows from either side.
    let pane = |normal: [f32; 3]| {
        grid(
            [WINDOW_X[0], WINDOW_Y, WINDOW_Z[0]],
            [WINDOW_X[1] - WINDOW_X[0], 0.0, 0.0],
            [0.0, 0.0, WINDOW_Z[1] - WINDOW_Z[0]],
            [3, 3],
            normal,
            |v, _, _, _| v,
        )
    };
    let mut window = pane([0.0, -1.0, 0.0]);
    merge(&mut window, pane([0.0, 1.0, 0.0]));
    [
        (FLOOR, floor),
        (WALL, walls),
        (WATER, water),
        (BOX, boxm),
        (WINDOW, window),
    ]
    .into_iter()
    .map(|(m, (v, t))| Part {
        visor_flags: 0,
        meshes: vec![(m, v, t)],
    })
    .collect()
}

/// The room's two MP1 light layers.
pub fn room_lights() -> LightsSection {
    let target = [BOX_CENTRE[0], BOX_CENTRE[1], BOX_HEIGHT * 0.5];
    mp1_section(vec![
        vec![
            ambient([0.2, 0.2, 0.25]),
            directional([0.55, 0.5, 0.42], [0.3, 0.5, -0.8]),
            spot([1.0, 0.95, 0.85], [0.0, -1.0, 2.9], target, 750.0, 35.0),
            point([0.3, 0.8, 1.0], [2.5, -2.0, 1.0], 56_250.0),
        ],
        vec![
            ambient([0.15, 0.03, 0.03]),
            point([1.0, 0.15, 0.1], [0.0, 0.0, 2.5], 150_000.0),
        ],
    ])
}

/// The demo room's MREA bytes.
pub fn build_room() -> Result<Vec<u8>, DemoError> {
    build_area(&room_materials, &room_parts(), &room_lights())
}

// ------------------------------------------------------------------------------------------
// The stress room.

/// Textures the stress room's materials cycle through.
const STRESS_TEXTURES: [u32; 11] = [
    TEX_I4, TEX_I8, TEX_IA4, TEX_IA8, TEX_C4, TEX_C8, TEX_C14X2, TEX_RGB565, TEX_RGB5A3, TEX_RGBA8,
    TEX_CMPR,
];
/// Material kinds of the stress room, as a retail room mixes them.
const STRESS_KINDS: u32 = 8;
/// Panel cells per side (a panel is one surface of (n + 1)² vertices).
const STRESS_PANEL_CELLS: u32 = 4;

/// A distinct colour per material.
fn stress_colour(i: u32) -> [u8; 4] {
    let h = i.wrapping_mul(2_654_435_761);
    [(h >> 24) as u8, (h >> 16) as u8, (h >> 8) as u8 | 0x40, 255]
}

/// Material `i` of the stress room: eight kinds (textured, texture + konst, two-texture
/// lerp, UV scroll, UV rotation, alpha blended, lightmapped, additive), textures and konst
/// colours varying with `i`.
fn stress_material(b: &mut CmdlBuilder, i: u32) -> MaterialBuilder {
    let tex = STRESS_TEXTURES[(i / STRESS_KINDS) as usize % STRESS_TEXTURES.len()];
    let other = STRESS_TEXTURES[(i / STRESS_KINDS + 3) as usize % STRESS_TEXTURES.len()];
    let k = stress_colour(i);
    let lit = |b: &mut CmdlBuilder, t: u32, anim: Option<UvAnimation>| {
        let m = textured(b.add_texture(t), uv_texgen(0, anim.map(|_| 0)), true);
        match anim {
            Some(a) => m.uv_animation(a),
            None => m,
        }
    };
    let speed = (i % 7) as f32 * 0.05 + 0.05;
    match i % STRESS_KINDS {
        0 => lit(b, tex, None),
        1 => {
            let mut m = MaterialBuilder::new().konst(0, k);
            let slot = m.texture(b.add_texture(tex));
            let tc = m.texgen(uv_texgen(0, None));
            m.stage(stage(
                [C::Zero, C::Texc, C::Rasc, C::Konst],
                [A::Zero, A::Zero, A::Zero, A::Texa],
                Some((slot, tc)),
                RasterChannel::Color0A0,
            ))
        }
        2 => {
            let mut m = MaterialBuilder::new().konst(0, k);
            let a = m.texture(b.add_texture(tex));
            let c = m.texture(b.add_texture(other));
            let tc = m.texgen(uv_texgen(0, None));
            let alpha = [A::Zero, A::Zero, A::Zero, A::Konst];
            let mut s0 = stage(
                [C::Zero, C::Zero, C::Zero, C::Texc],
                alpha,
                Some((a, tc)),
                RasterChannel::None,
            );
            s0.color_op.out_reg = gx::TevReg::C0;
            let s1 = stage(
                [C::C0, C::Konst, C::Texc, C::Zero],
                alpha,
                Some((c, tc)),
                RasterChannel::None,
            );
            let s2 = stage(
                [C::Zero, C::Cprev, C::Rasc, C::Zero],
                alpha,
                None,
                RasterChannel::Color0A0,
            );
            m.stage(s0).stage(s1).stage(s2)
        }
        3 => lit(
            b,
            tex,
            Some(UvAnimation::Scroll {
                offset_u: 0.0,
                offset_v: 0.0,
                speed_u: speed,
                speed_v: speed * 0.5,
            }),
        ),
        4 => lit(b, tex, Some(UvAnimation::Rotation { offset: 0.0, speed })),
        5 => lit(b, TEX_RGB5A3, None).konst(0, k).alpha_blended(),
        6 => lightmapped(b, TEX_LIGHTMAP, tex).konst(0, k),
        _ => {
            let mut m = MaterialBuilder::new().konst(0, k).additive();
            let slot = m.texture(b.add_texture(tex));
            let tc = m.texgen(uv_texgen(0, None));
            m.stage(stage(
                [C::Zero, C::Texc, C::Konst, C::Zero],
                [A::Zero, A::Zero, A::Zero, A::Texa],
                Some((slot, tc)),
                RasterChannel::None,
            ))
        }
    }
}

/// A stress room of `surfaces` panels (one surface each, 4 × 4 cells) lying on a square
/// grid, in `models` world models, using `materials` materials round-robin (see
/// [`stress_material`]), lit by the demo room's layers. Returns the MREA bytes.
pub fn build_stress_room(surfaces: u32, materials: u32, models: u32) -> Result<Vec<u8>, DemoError> {
    let materials = materials.max(1);
    let models = models.clamp(1, surfaces.max(1));
    let add_materials = move |b: &mut CmdlBuilder| {
        for i in 0..materials {
            let m = stress_material(b, i).build();
            b.add_material(m);
        }
    };
    let side = (surfaces as f32).sqrt().ceil() as u32;
    let mut parts: Vec<Part> = (0..models)
        .map(|_| Part {
            visor_flags: 0,
            meshes: Vec::new(),
        })
        .collect();
    let n = STRESS_PANEL_CELLS;
    for s in 0..surfaces {
        let (col, row) = (s % side, s / side);
        let origin = [
            col as f32 * 1.25 - side as f32 * 0.625,
            row as f32 * 1.25 - side as f32 * 0.625,
            (s % 5) as f32 * 0.1,
        ];
        let material = s % materials;
        let (v, t) = grid(
            origin,
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [n, n],
            [0.0, 0.0, 1.0],
            |v, _, u, w| v.uv(0, [u, w]).uv(1, [2.0 * u, 2.0 * w]),
        );
        // Only lightmapped materials read TEX1; the others carry TEX0 alone.
        let v = if material % STRESS_KINDS == 6 {
            v
        } else {
            v.into_iter()
                .map(|mut x| {
                    x.uvs[1] = None;
                    x
                })
                .collect()
        };
        parts[(s % models) as usize].meshes.push((material, v, t));
    }
    build_area(&add_materials, &parts, &room_lights())
}

/// A PAK holding a stress room (named `stress_room`) and every demo texture it uses, so
/// `tevscope bench PAK:stress_room` finds them.
pub fn build_stress_pak(surfaces: u32, materials: u32, models: u32) -> Result<Vec<u8>, DemoError> {
    let room = build_stress_room(surfaces, materials, models)?;
    let mut pak = PakBuilder::new(Game::Mp1);
    let mut textures = Vec::new();
    for spec in TEXTURES {
        textures.push((spec.id, spec.encode()?.to_bytes()));
    }
    for (id, bytes) in &textures {
        pak.add(*b"TXTR", u64::from(*id), bytes, false);
    }
    pak.add(*b"MREA", u64::from(ROOM_MREA), &room, false);
    pak.add_name(*b"MREA", u64::from(ROOM_MREA), "stress_room");
    pak.build()
        .map_err(|e| DemoError::new("stress PAK", e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::demo::lights::{CUSTOM, DIRECTIONAL, LOCAL_AMBIENT, SPOT};
    use crate::formats::mrea::parse_mrea;

    #[test]
    fn room_parses_back_with_its_world_models_materials_and_lights() {
        let bytes = build_room().expect("room builds");
        let m = parse_mrea(&bytes, "room.MREA").expect("room parses");
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        assert_eq!(m.to_bytes().expect("writes"), bytes);
        let g = m.geometry.as_ref().expect("geometry");
        assert_eq!(g.world_models.len(), 5);
        assert_eq!(g.material_set.materials.len(), 5);
        let floor = &g.material_set.materials[FLOOR as usize];
        assert!(floor.uses_short_uvs(&Default::default()));
        assert_eq!(
            m.lights_section.as_ref().map(|l| l.layers[0].len()),
            Some(4)
        );
        let kinds: Vec<u32> = m.lights_section.as_ref().expect("lights").layers[0]
            .iter()
            .map(|l| l.light_type)
            .collect();
        assert_eq!(kinds, [LOCAL_AMBIENT, DIRECTIONAL, SPOT, CUSTOM]);
    }

    #[test]
    fn stress_room_has_the_surfaces_and_materials_asked_for() {
        let bytes = build_stress_room(40, 17, 3).expect("stress room builds");
        let m = parse_mrea(&bytes, "stress.MREA").expect("parses");
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        let g = m.geometry.as_ref().expect("geometry");
        assert_eq!(g.world_models.len(), 3);
        assert_eq!(g.material_set.materials.len(), 17);
        let surfaces: usize = g.world_models.iter().map(|w| w.surfaces.len()).sum();
        assert_eq!(surfaces, 40);
        assert_eq!(g.triangle_count(), 40 * 32);
    }
}
