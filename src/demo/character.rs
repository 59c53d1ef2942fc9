//! The skinned, animated character: a segmented worm standing on its tail (Z up).
//!
//! Six bones run up its spine; every ring of the body is weighted to the bone of its
//! segment, blending smoothly into the next bone across each joint. The positions (and
//! normals) are laid out group by group as CSKR requires (formats.md §6). Two animations:
//! a looping wave (format 2, compressed with `encode_compressed`) and a curl (format 0).

use std::f32::consts::TAU;

use glam::{Quat, Vec3};

use crate::anim::clip::{Channel, Clip, ClipKind};
use crate::anim::encode::{EncodeOptions, encode_compressed, encode_uncompressed};
use crate::formats::Game;
use crate::formats::ancs::{
    Aabb, Ancs, AnimPrimitive, AnimResources, AnimationName, AnimationSet, Character, MetaAnim,
    MetaTrans, NamedAabb, NamedMetaAnim, ParticleResources, Pas4,
};
use crate::formats::anim::{Anim, CharAnimTime};
use crate::formats::cinf::{BoneName, Cinf, CinfBone};
use crate::formats::cmdl::{CmdlBuilder, SurfaceDesc, VertexRef};
use crate::formats::cskr::{BoneWeight, Cskr, CskrFooter, Mp1Count, WeightGroup};
use crate::formats::material::MaterialBuilder;

use super::textures::TEX_WORM;
use super::{DemoError, snap, snap3};

pub const WORM_CMDL: u32 = 0xDE01_0001;
pub const WORM_CSKR: u32 = 0xDE04_0001;
pub const WORM_CINF: u32 = 0xDE03_0001;
pub const WORM_ANCS: u32 = 0xDE06_0001;
/// Format 2 (compressed) looping wave.
pub const WORM_ANIM_WAVE: u32 = 0xDE05_0001;
/// Format 0 (uncompressed) curl.
pub const WORM_ANIM_CURL: u32 = 0xDE05_0002;

/// MP1 skeleton convention: bone IDs start at 3, the root's parent is the sentinel 2.
const ROOT_PARENT: u32 = 2;
/// (name, ID) of the spine bones, root first; bone k sits at height k × SEGMENT.
pub const BONES: [(&str, u32); 6] = [
    ("Skeleton_Root", 3),
    ("spine_1", 4),
    ("spine_2", 5),
    ("spine_3", 6),
    ("spine_4", 7),
    ("head", 8),
];
const SEGMENT: f32 = 0.5;
/// Height of the body's cylinder part (the head cap sits on top).
const BODY_LENGTH: f32 = 2.9;
const BODY_RADIUS: f32 = 0.32;
/// Rings along the body and vertices around each ring.
const RINGS: u32 = 30;
const SIDES: u32 = 12;
/// Rings of the rounded head cap (plus one apex vertex).
const CAP_RINGS: u32 = 3;
/// Half-width (in segments) of the weight blend across each joint.
const JOINT_BLEND: f32 = 0.3;

/// Wave: 2 s at 30 frames per second, looping.
const WAVE_DURATION: f32 = 2.0;
const FPS: f32 = 30.0;
const WAVE_AMPLITUDE: f32 = 0.35;
/// Phase lag between successive bones (radians), so the wave travels up the body.
const WAVE_LAG: f32 = 0.9;
/// The encoder may drop a wave frame when interpolating its neighbours stays within this
/// angle (radians, ≈ 0.3°), so the key bitmap has gaps the decoder must fill.
const WAVE_TOLERANCE: f32 = 0.005;
/// Curl: 1.5 s, every spine bone bends to CURL_ANGLE and back.
const CURL_DURATION: f32 = 1.5;
const CURL_ANGLE: f32 = 0.5;

/// Everything the character consists of, serialised.
pub struct CharacterFiles {
    pub cmdl: Vec<u8>,
    pub cskr: Vec<u8>,
    pub cinf: Vec<u8>,
    pub anim_wave: Vec<u8>,
    pub anim_curl: Vec<u8>,
    pub ancs: Vec<u8>,
    /// Vertex and weight-group counts (for the README).
    pub vertex_count: usize,
    pub group_count: usize,
}

/// Radius of the body at height z: a gentle taper plus a bulge per segment.
fn radius_at(z: f32) -> f32 {
    BODY_RADIUS * (1.0 - 0.3 * z / BODY_LENGTH) * (1.0 + 0.06 * (z / SEGMENT * TAU).cos())
}

/// Skin weights at height z (bone IDs, weights summing to 1).
fn weights_at(z: f32) -> Vec<BoneWeight> {
    let last = BONES.len() - 1;
    let u = (z / SEGMENT).max(0.0);
    let joint = u.round() as usize;
    let d = u - joint as f32;
    if (1..=last).contains(&joint) && d.abs() < JOINT_BLEND {
        let t = ((d + JOINT_BLEND) / (2.0 * JOINT_BLEND)).clamp(0.0, 1.0);
        let upper = t * t * (3.0 - 2.0 * t);
        // Quantise to 1/64 so neighbouring rings share exact values.
        let upper = (upper * 64.0).round() / 64.0;
        if upper <= 0.0 {
            return vec![one(BONES[joint - 1].1)];
        }
        if upper >= 1.0 {
            return vec![one(BONES[joint].1)];
        }
        return vec![
            BoneWeight {
                bone_id: BONES[joint - 1].1,
                weight: 1.0 - upper,
            },
            BoneWeight {
                bone_id: BONES[joint].1,
                weight: upper,
            },
        ];
    }
    vec![one(BONES[(u.floor() as usize).min(last)].1)]
}

fn one(bone_id: u32) -> BoneWeight {
    BoneWeight {
        bone_id,
        weight: 1.0,
    }
}

/// A ring of the mesh: its height, radius and outward normal tilt (−dr/dz).
struct Ring {
    z: f32,
    radius: f32,
    slope: f32,
}

fn rings() -> Vec<Ring> {
    let mut out: Vec<Ring> = (0..RINGS)
        .map(|j| {
            let z = BODY_LENGTH * j as f32 / (RINGS - 1) as f32;
            let h = 1e-3;
            Ring {
                z,
                radius: radius_at(z),
                slope: -(radius_at(z + h) - radius_at(z - h)) / (2.0 * h),
            }
        })
        .collect();
    // Head cap: a quarter circle from the last ring's radius.
    let r_top = radius_at(BODY_LENGTH);
    for k in 1..=CAP_RINGS {
        let a = (k as f32 / (CAP_RINGS + 1) as f32) * TAU / 4.0;
        out.push(Ring {
            z: BODY_LENGTH + r_top * a.sin(),
            radius: r_top * a.cos(),
            slope: a.tan(),
        });
    }
    out
}

/// Builds the worm's model and skin: returns (CMDL bytes, CSKR, vertex count).
fn build_mesh() -> Result<(Vec<u8>, Cskr, usize), DemoError> {
    let err = |e: crate::formats::cmdl::BuildError| DemoError::new("worm", e.to_string());
    let mut b = CmdlBuilder::new(Game::Mp1);
    let tex = b.add_texture(TEX_WORM);
    let material = b.add_material(MaterialBuilder::textured_lit(tex).build());
    let rings = rings();
    let apex_z = BODY_LENGTH + radius_at(BODY_LENGTH);
    let v_of = |z: f32| 1.0 - z / apex_z;

    // Positions and normals, one to one, in skin-group order: the bottom centre, the rings
    // from the tail up, the apex. Consecutive entries with equal weights share a group.
    let mut groups: Vec<WeightGroup> = Vec::new();
    let mut push_group = |weights: Vec<BoneWeight>, count: u32| match groups.last_mut() {
        Some(g) if g.weights == weights => g.vertex_count += count,
        _ => groups.push(WeightGroup {
            weights,
            vertex_count: count,
        }),
    };
    let bottom = b.add_position([0.0; 3]).map_err(err)?;
    b.add_normal([0.0, 0.0, -1.0]).map_err(err)?;
    push_group(weights_at(0.0), 1);
    let mut ring_start = Vec::new();
    for ring in &rings {
        ring_start.push(b.positions.len() as u16);
        let n_len = (1.0 + ring.slope * ring.slope).sqrt();
        for i in 0..SIDES {
            let theta = TAU * i as f32 / SIDES as f32;
            let (s, c) = theta.sin_cos();
            b.add_position(snap3([ring.radius * c, ring.radius * s, ring.z]))
                .map_err(err)?;
            b.add_normal(snap3([c / n_len, s / n_len, ring.slope / n_len]))
                .map_err(err)?;
        }
        push_group(weights_at(ring.z), SIDES);
    }
    let apex = b.add_position(snap3([0.0, 0.0, apex_z])).map_err(err)?;
    b.add_normal([0.0, 0.0, 1.0]).map_err(err)?;
    push_group(weights_at(apex_z), 1);

    // UVs: SIDES + 1 columns per ring (the seam repeats u = 0 as u = 1).
    let mut uv_start = Vec::new();
    for ring in &rings {
        uv_start.push(b.uvs.len() as u16);
        for i in 0..=SIDES {
            b.add_uv([i as f32 / SIDES as f32, snap(v_of(ring.z))])
                .map_err(err)?;
        }
    }
    let bottom_uv = b.add_uv([0.5, 1.0]).map_err(err)?;
    let apex_uv = b.add_uv([0.5, 0.0]).map_err(err)?;

    let mut verts: Vec<VertexRef> = Vec::new();
    let mut vertex = |pos: u16, uv: u16| {
        verts.push(VertexRef {
            normal: Some(pos),
            tex: [Some(uv), None, None, None, None, None, None, None],
            ..VertexRef::position(pos)
        });
        (verts.len() - 1) as u32
    };
    let mut tris: Vec<[u32; 3]> = Vec::new();
    let ring_vertex =
        |j: usize, i: u32| (ring_start[j] + (i % SIDES) as u16, uv_start[j] + i as u16);
    // Side quads. With Z up and i counter-clockwise seen from above, (lower i, lower i+1,
    // upper i+1) is counter-clockwise seen from outside.
    for j in 0..rings.len() - 1 {
        for i in 0..SIDES {
            let (p0, t0) = ring_vertex(j, i);
            let (p1, t1) = ring_vertex(j, i + 1);
            let (p2, t2) = ring_vertex(j + 1, i + 1);
            let (p3, t3) = ring_vertex(j + 1, i);
            let (a, bb, c, d) = (
                vertex(p0, t0),
                vertex(p1, t1),
                vertex(p2, t2),
                vertex(p3, t3),
            );
            tris.push([a, bb, c]);
            tris.push([a, c, d]);
        }
    }
    // Bottom fan (seen from below) and apex fan (seen from above).
    let last = rings.len() - 1;
    for i in 0..SIDES {
        let (p0, t0) = ring_vertex(0, i);
        let (p1, t1) = ring_vertex(0, i + 1);
        let (c, a, bb) = (vertex(bottom, bottom_uv), vertex(p0, t0), vertex(p1, t1));
        tris.push([c, bb, a]);
        let (q0, s0) = ring_vertex(last, i);
        let (q1, s1) = ring_vertex(last, i + 1);
        let (c, a, bb) = (vertex(apex, apex_uv), vertex(q0, s0), vertex(q1, s1));
        tris.push([a, bb, c]);
    }
    b.add_surface(SurfaceDesc {
        material_index: material,
        vertices: verts,
        triangles: tris,
        ..SurfaceDesc::default()
    });
    let vertex_count = b.positions.len();
    let cmdl = b.build_bytes().map_err(err)?;
    let count = |n: usize| Mp1Count {
        marker: u32::MAX,
        count: n as u32,
        skipped: Vec::new(),
    };
    let cskr = Cskr {
        game: Game::Mp1,
        skin_version: None,
        groups,
        footer: CskrFooter::Mp1 {
            positions: count(vertex_count),
            normals: count(vertex_count),
        },
        trailing: Vec::new(),
        warnings: Vec::new(),
    };
    Ok((cmdl, cskr, vertex_count))
}

fn skeleton() -> Cinf {
    let bones = BONES
        .iter()
        .enumerate()
        .map(|(k, &(_, id))| {
            let parent_id = if k == 0 { ROOT_PARENT } else { BONES[k - 1].1 };
            let mut linked = vec![parent_id];
            if let Some(&(_, child)) = BONES.get(k + 1) {
                linked.push(child);
            }
            CinfBone {
                id,
                parent_id,
                position: [0.0, 0.0, k as f32 * SEGMENT],
                rotation: None,
                local_rotation: None,
                linked_bone_ids: linked,
            }
        })
        .collect();
    Cinf {
        game: Game::Mp1,
        bones,
        build_order: BONES.iter().map(|b| b.1).collect(),
        bone_names: BONES
            .iter()
            .map(|&(name, bone_id)| BoneName {
                name: name.into(),
                bone_id,
            })
            .collect(),
        trailing: Vec::new(),
        warnings: Vec::new(),
    }
}

/// A clip sampled at `FPS` with one rotation channel per spine bone (not the root, which
/// keeps the worm planted).
fn clip(duration: f32, looping: bool, rotation: impl Fn(usize, f32) -> Quat) -> Clip {
    let frames = (duration * FPS).round() as u32 + 1;
    let channels = BONES[1..]
        .iter()
        .enumerate()
        .map(|(k, &(_, id))| Channel {
            bone_id: id,
            rotation: Some(
                (0..frames)
                    .map(|f| {
                        let q = rotation(k, f as f32 / FPS);
                        Quat::from_xyzw(snap(q.x), snap(q.y), snap(q.z), snap(q.w)).normalize()
                    })
                    .collect(),
            ),
            translation: None,
            scale: None,
        })
        .collect();
    Clip {
        kind: ClipKind::Compressed,
        game: Game::Mp1,
        duration,
        interval: 1.0 / FPS,
        frame_count: frames,
        looping,
        root_bone_id: BONES[0].1,
        key_frames: (0..frames).collect(),
        key_times: None,
        channels,
        evnt_id: None,
    }
}

/// The wave: each bone swings about X with a phase lag and a smaller sway about Y; one
/// period per clip so the loop is seamless.
fn wave_clip() -> Clip {
    clip(WAVE_DURATION, true, |k, t| {
        let phase = TAU * t / WAVE_DURATION - WAVE_LAG * k as f32;
        Quat::from_rotation_y(0.5 * WAVE_AMPLITUDE * phase.cos())
            * Quat::from_rotation_x(WAVE_AMPLITUDE * phase.sin())
    })
}

/// The curl: every spine bone bends about Y to `CURL_ANGLE` and back.
fn curl_clip() -> Clip {
    clip(CURL_DURATION, false, |k, t| {
        let bend = CURL_ANGLE * (1.0 - (TAU * t / CURL_DURATION).cos()) / 2.0;
        Quat::from_axis_angle(Vec3::Y, bend * (1.0 + 0.15 * k as f32))
    })
}

fn play(anim_id: u32, primitive_id: u32, name: &str) -> MetaAnim {
    MetaAnim::Play(AnimPrimitive {
        anim_id: u64::from(anim_id),
        primitive_id,
        name: name.into(),
        time: CharAnimTime::default(),
    })
}

/// The character set: one character, animations "wave", "curl" and "wave_then_curl".
fn character_set(bounds: Aabb) -> Ancs {
    let names = ["wave", "curl", "wave_then_curl"];
    let character = Character {
        id: 0,
        // Version 6: the layout of the MP1 fixtures (PAS4, particles with the v ≥ 6 word,
        // AABBs and effects, frozen overlay, animation ID map).
        version: 6,
        name: "worm".into(),
        model_id: WORM_CMDL,
        skin_id: WORM_CSKR,
        skeleton_id: WORM_CINF,
        animation_names: names
            .iter()
            .enumerate()
            .map(|(i, n)| AnimationName {
                id: i as u32,
                unknown_string: Some(String::new()),
                name: (*n).into(),
            })
            .collect(),
        pas_database: Pas4 {
            default_state: 0,
            states: Vec::new(),
        },
        particles: ParticleResources {
            part: Vec::new(),
            swhc: Vec::new(),
            unknown_u32: Some(0),
            elsc: Vec::new(),
            spsc: None,
        },
        unknown_1: 0,
        unknown_2: None,
        animation_aabbs: Some(
            names
                .iter()
                .map(|n| NamedAabb {
                    name: (*n).into(),
                    aabb: bounds,
                })
                .collect(),
        ),
        effects: Some(Vec::new()),
        frozen: Some((u32::MAX, u32::MAX)),
        animation_id_map: Some(Vec::new()),
        spatial: None,
    };
    Ancs {
        game: Game::Mp1,
        version: 1,
        character_set_version: 1,
        characters: vec![character],
        animation_set: AnimationSet {
            table_version: 2,
            animations: vec![
                NamedMetaAnim {
                    name: names[0].into(),
                    meta: play(WORM_ANIM_WAVE, 0, "worm_wave"),
                },
                NamedMetaAnim {
                    name: names[1].into(),
                    meta: play(WORM_ANIM_CURL, 1, "worm_curl"),
                },
                NamedMetaAnim {
                    name: names[2].into(),
                    meta: MetaAnim::Sequence(vec![
                        play(WORM_ANIM_WAVE, 0, "worm_wave"),
                        play(WORM_ANIM_CURL, 1, "worm_curl"),
                    ]),
                },
            ],
            transitions: Vec::new(),
            default_transition: MetaTrans::Transition {
                phase: false,
                duration: 0.25,
                duration_mode: 0,
                unknown: 0,
                run_a: 1,
                flags: 0,
            },
            additive: Some((Vec::new(), 0.25, 0.25)),
            half_transitions: None,
            resources: AnimResources::Mp1(vec![
                (WORM_ANIM_WAVE, u32::MAX),
                (WORM_ANIM_CURL, u32::MAX),
            ]),
        },
        trailing: Vec::new(),
        warnings: Vec::new(),
    }
}

/// Builds every file of the character.
pub fn build_character() -> Result<CharacterFiles, DemoError> {
    let (cmdl, cskr, vertex_count) = build_mesh()?;
    let anim_err = |e: crate::anim::AnimError| DemoError::new("worm animation", e.to_string());
    let fmt_err = |what: &str| {
        let what = what.to_owned();
        move |e: crate::formats::FormatError| DemoError::new(&what, e.to_string())
    };
    let wave = encode_compressed(
        &wave_clip(),
        &EncodeOptions {
            game: Game::Mp1,
            rotation_tolerance: WAVE_TOLERANCE,
            ..EncodeOptions::default()
        },
    )
    .map_err(anim_err)?;
    let curl = encode_uncompressed(&curl_clip(), Game::Mp1, u32::MAX).map_err(anim_err)?;
    // Generous bounds: the body swings at most ~0.4 rad per joint.
    let reach = BODY_LENGTH + BODY_RADIUS;
    let bounds = Aabb {
        min: [-reach, -reach, -BODY_RADIUS],
        max: [reach, reach, reach],
    };
    Ok(CharacterFiles {
        cmdl,
        group_count: cskr.groups.len(),
        cskr: cskr.write().map_err(fmt_err("worm CSKR"))?,
        cinf: skeleton().write().map_err(fmt_err("worm CINF"))?,
        anim_wave: Anim::Compressed(wave)
            .write()
            .map_err(fmt_err("worm wave ANIM"))?,
        anim_curl: Anim::Uncompressed(curl)
            .write()
            .map_err(fmt_err("worm curl ANIM"))?,
        ancs: character_set(bounds)
            .write()
            .map_err(fmt_err("worm ANCS"))?,
        vertex_count,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_sum_to_one_and_blend_across_joints() {
        for i in 0..=100 {
            let z = BODY_LENGTH * i as f32 / 100.0;
            let w = weights_at(z);
            let sum: f32 = w.iter().map(|b| b.weight).sum();
            assert!((sum - 1.0).abs() < 1e-6, "z {z}: {w:?}");
            assert!(w.len() <= 2);
        }
        assert_eq!(weights_at(0.1), vec![one(3)]);
        assert_eq!(weights_at(SEGMENT).len(), 2);
        assert_eq!(weights_at(BODY_LENGTH), vec![one(8)]);
    }
}
