//! End-to-end tests for skeletons, skins, animations and characters: every value of the
//! conformance JSONs, round trips, sampling/posing/skinning on the fixtures, hostile input
//! and a property test of the format-2 encoder.
#![allow(clippy::unwrap_used)]

use glam::{Quat, Vec3};
use proptest::prelude::*;
use serde_json::Value;
use tevscope::anim::{
    Channel, Clip, ClipBinding, ClipKind, EncodeOptions, NormalMode, Pose, PoseOptions, Skeleton,
    SkinBinding, SkinOptions, SlerpMode, encode_compressed, skin_normals, skin_positions,
};
use tevscope::cli::anim as cli;
use tevscope::formats::ancs::{Ancs, AnimResources, MetaAnim};
use tevscope::formats::anim::{Anim, AnimCompressed};
use tevscope::formats::char_mp3::CharMp3;
use tevscope::formats::cinf::Cinf;
use tevscope::formats::cskr::Cskr;
use tevscope::formats::{ErrorKind, Game};
use tevscope::testing::{conformance_file, torture};

const TOL: f64 = 1e-5;

/// Fields that describe the file rather than its content, are prose, or need other files.
const SKIP: &[&str] = &[
    "file",
    "size",
    "sha256",
    "asset_id",
    "notes",
    "padding",
    "bound_cmdl",
    "bones_without_channel",
    "rds_reported_first_record_bone3",
];

/// Checks that every value in `expected` appears in `actual` (objects: every expected key;
/// arrays: same length, element-wise; numbers within `TOL`).
fn assert_subset(expected: &Value, actual: &Value, path: &str) {
    match (expected, actual) {
        (Value::Object(e), Value::Object(a)) => {
            for (k, ev) in e {
                if SKIP.contains(&k.as_str()) {
                    continue;
                }
                let av = a
                    .get(k)
                    .unwrap_or_else(|| panic!("{path}.{k}: missing in output"));
                assert_subset(ev, av, &format!("{path}.{k}"));
            }
        }
        (Value::Array(e), Value::Array(a)) => {
            assert_eq!(e.len(), a.len(), "{path}: array length");
            for (i, (ev, av)) in e.iter().zip(a).enumerate() {
                assert_subset(ev, av, &format!("{path}[{i}]"));
            }
        }
        (Value::Number(e), Value::Number(a)) => {
            let (e, a) = (e.as_f64().unwrap(), a.as_f64().unwrap());
            assert!((e - a).abs() <= TOL, "{path}: expected {e}, got {a}");
        }
        // The fixtures write booleans of the CHAR as 0/1.
        (Value::Number(e), Value::Bool(a)) => assert_eq!(e.as_f64().unwrap() != 0.0, *a, "{path}"),
        _ => assert_eq!(expected, actual, "{path}"),
    }
}

fn json_of(s: String) -> Value {
    serde_json::from_str(&s).expect("CLI JSON parses")
}

fn f3(v: &Value) -> [f32; 3] {
    let a = v.as_array().unwrap();
    [0, 1, 2].map(|i| a[i].as_f64().unwrap() as f32)
}

// ---------------------------------------------------------------------------------------
// CINF
// ---------------------------------------------------------------------------------------

#[test]
fn cinf_conformance() {
    let Some((data, json)) = conformance_file("mp1_skeleton.CINF") else {
        return;
    };
    let c = Cinf::parse(&data, "mp1_skeleton.CINF", None).unwrap();
    assert_eq!(c.game, Game::Mp1);
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    assert_eq!(c.bones.len() as u64, json["bone_count"].as_u64().unwrap());
    for (b, jb) in c.bones.iter().zip(json["bones"].as_array().unwrap()) {
        assert_eq!(u64::from(b.id), jb["id"].as_u64().unwrap());
        assert_eq!(c.name_of(b.id), jb["name"].as_str());
        assert_eq!(u64::from(b.parent_id), jb["parent_id"].as_u64().unwrap());
        assert_eq!(b.position, f3(&jb["position"]));
        assert_eq!(c.local_position(b), f3(&jb["local_position"]));
        let linked: Vec<u64> = b.linked_bone_ids.iter().map(|&x| x.into()).collect();
        assert_eq!(Value::from(linked), jb["linked_bone_ids"]);
        let children: Vec<u64> = c.children_of(b.id).iter().map(|&x| x.into()).collect();
        assert_eq!(Value::from(children), jb["children"]);
    }
    assert_eq!(
        c.root_bone_id().map(u64::from),
        json["root_bone_id"].as_u64()
    );
    // Every value, through the CLI's JSON.
    let out = json_of(cli::info_cinf(&data, "x", None, true).unwrap());
    assert_subset(&json, &out, "CINF");
    // Byte-identical writing (0xFF padding kept).
    assert_eq!(c.write().unwrap(), data);
    // The skeleton built from it.
    let s = Skeleton::from_cinf(&c).unwrap();
    assert_eq!(s.bones()[0].id, 3);
    assert_eq!(
        s.bone_by_id(7).unwrap().local_offset,
        Vec3::new(0.5, 0.0, 0.25)
    );
    assert!(
        cli::info_cinf(&data, "x", None, false)
            .unwrap()
            .contains("l_arm")
    );
}

#[test]
fn cinf_hostile_input() {
    let Some((data, _)) = conformance_file("mp1_skeleton.CINF") else {
        return;
    };
    // Truncations inside the structure fail; cutting only padding is fine.
    let rejected = torture(&data, 400, |d| Cinf::parse(d, "t", Some(Game::Mp1)));
    assert_eq!(rejected, 0x148);
    // A parent loop: root 3's parent becomes 9 (tail), whose parent 4's parent is 3.
    let mut looped = data.clone();
    looped[8..12].copy_from_slice(&9u32.to_be_bytes());
    // Keep the linked list consistent (it names the parent first).
    looped[0x1C..0x20].copy_from_slice(&9u32.to_be_bytes());
    let e = Cinf::parse(&looped, "loop.CINF", Some(Game::Mp1)).unwrap_err();
    assert!(e.to_string().contains("parent chain loops"), "{e}");
    assert!(
        e.to_string()
            .starts_with("loop.CINF: bones[0].parent_id at byte offset 0x8"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------
// CSKR
// ---------------------------------------------------------------------------------------

fn cube_arrays() -> Option<(Vec<Vec3>, Vec<Vec3>)> {
    let (_, cmdl) = conformance_file("mp1_cube_skinned.CMDL")?;
    let arr = |k: &str| {
        cmdl[k]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| Vec3::from(f3(v)))
            .collect()
    };
    Some((arr("positions"), arr("normals")))
}

#[test]
fn cskr_conformance() {
    let Some((data, json)) = conformance_file("mp1_cube.CSKR") else {
        return;
    };
    let s = Cskr::parse(&data, "mp1_cube.CSKR", None).unwrap();
    assert_eq!(s.game, Game::Mp1);
    assert_eq!(s.groups.len(), 3);
    assert_eq!(
        s.total_vertex_count(),
        json["total_vertex_count"].as_u64().unwrap()
    );
    let out = json_of(cli::info_cskr(&data, "x", None, true).unwrap());
    assert_subset(&json, &out, "CSKR");
    assert_eq!(s.write().unwrap(), data);

    // Bound to the skeleton and the cube's arrays, each vertex gets the JSON's weights.
    let Some((cinf, _)) = conformance_file("mp1_skeleton.CINF") else {
        return;
    };
    let skel = Skeleton::from_cinf(&Cinf::parse(&cinf, "c", None).unwrap()).unwrap();
    let (positions, normals) = cube_arrays().unwrap();
    let b = SkinBinding::new(
        &s,
        &skel,
        positions.len(),
        normals.len(),
        SkinOptions::default(),
    )
    .unwrap();
    assert!(b.warnings.is_empty(), "{:?}", b.warnings);
    for v in json["per_vertex_binding"].as_array().unwrap() {
        let i = v["vertex"].as_u64().unwrap() as usize;
        let inf = b.position_influence(i);
        let want = v["weights"].as_array().unwrap();
        assert_eq!(inf.count as usize, want.len());
        for (slot, w) in want.iter().enumerate() {
            assert_eq!(
                skel.bones()[inf.bones[slot] as usize].id as u64,
                w["bone_id"].as_u64().unwrap()
            );
            assert_eq!(f64::from(inf.weights[slot]), w["weight"].as_f64().unwrap());
        }
        let sum: f32 = inf.weights.iter().sum();
        assert!((sum - 1.0).abs() < 1e-6);
        // Normals use the same groups.
        assert_eq!(b.normal_influence(i), inf);
    }
}

#[test]
fn skinning_the_cube() {
    let (Some((cinf, _)), Some((cskr, _)), Some((anim, _))) = (
        conformance_file("mp1_skeleton.CINF"),
        conformance_file("mp1_cube.CSKR"),
        conformance_file("mp1_wave_compressed.ANIM"),
    ) else {
        return;
    };
    let skel = Skeleton::from_cinf(&Cinf::parse(&cinf, "c", None).unwrap()).unwrap();
    let skin = Cskr::parse(&cskr, "s", None).unwrap();
    let (positions, normals) = cube_arrays().unwrap();
    let b = SkinBinding::new(
        &skin,
        &skel,
        positions.len(),
        normals.len(),
        SkinOptions::default(),
    )
    .unwrap();
    let opts = PoseOptions::default();
    // Bind pose: identity.
    let bind = Pose::bind(&skel, &opts);
    let palette = bind.skin_palette(&skel, &opts);
    for (p, q) in positions
        .iter()
        .zip(skin_positions(&b, &palette, &positions))
    {
        assert!(p.abs_diff_eq(q, 1e-6));
    }
    // Animated: vertices of a single-bone group move rigidly with their bone.
    let clip = Clip::from_anim(&Anim::parse(&anim, "a", None).unwrap()).unwrap();
    let binding = ClipBinding::new(&clip, &skel).unwrap();
    let mut pose = bind.clone();
    pose.sample(&skel, &clip, &binding, 0.25, &opts);
    let palette = pose.skin_palette(&skel, &opts);
    let skinned = skin_positions(&b, &palette, &positions);
    let i4 = skel.index_of(4).unwrap();
    for v in 0..4 {
        let m = pose.model[i4];
        let bind_pos = skel.bones()[i4].bind_position;
        let want = m.translation + m.rotation * (m.scale * (positions[v] - bind_pos));
        assert!(skinned[v].abs_diff_eq(want, 1e-5), "vertex {v}");
    }
    // Normals follow the first weight's rotation; skinned normals stay unit length.
    let sn = skin_normals(&b, &palette, &normals, NormalMode::FirstWeight);
    for (n, s) in normals.iter().zip(&sn) {
        assert!((n.length() - s.length()).abs() < 1e-5);
    }
    let rows = palette.to_gpu();
    assert_eq!(rows.len(), skel.len());
}

// ---------------------------------------------------------------------------------------
// ANIM format 0
// ---------------------------------------------------------------------------------------

#[test]
fn anim_uncompressed_conformance() {
    let Some((data, json)) = conformance_file("mp1_wave_uncompressed.ANIM") else {
        return;
    };
    let anim = Anim::parse(&data, "mp1_wave_uncompressed.ANIM", None).unwrap();
    let Anim::Uncompressed(a) = &anim else {
        panic!("format 0 expected")
    };
    assert_eq!(a.game, Game::Mp1);
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
    assert_eq!(a.frame_count, 5);
    assert_eq!(a.evnt_id, Some(u32::MAX));
    let out = json_of(cli::info_anim(&data, "x", None, true).unwrap());
    assert_subset(&json, &out, "ANIM0");
    assert_eq!(anim.write().unwrap(), data);

    // Sampled at each key time, the clip returns the keys (channel-major layout).
    let clip = Clip::from_anim(&anim).unwrap();
    for (bone, jb) in json["per_bone"].as_object().unwrap() {
        let bone: u32 = bone.parse().unwrap();
        let ch = clip.channel_of_bone(bone).unwrap();
        let ci = clip
            .channels
            .iter()
            .position(|c| c.bone_id == bone)
            .unwrap();
        for (k, q) in jb["rotation_wxyz"].as_object().unwrap() {
            let k: u32 = k.parse().unwrap();
            let s = clip.sample(k as f32 * clip.interval, false, SlerpMode::ShortestPath)[ci];
            let r = s.rotation.unwrap();
            let want = q.as_array().unwrap();
            for (got, want) in [r.w, r.x, r.y, r.z].iter().zip(want) {
                assert!((f64::from(*got) - want.as_f64().unwrap()).abs() < TOL);
            }
            assert!(ch.rotation.is_some());
        }
        if let Some(t) = jb.get("translation") {
            for (k, v) in t.as_object().unwrap() {
                let k: u32 = k.parse().unwrap();
                let s = clip.sample(k as f32 * clip.interval, false, SlerpMode::ShortestPath)[ci];
                assert_eq!(s.translation.unwrap().to_array(), f3(v));
            }
        }
    }
    // Bones of the skeleton without a channel.
    if let Some((cinf, _)) = conformance_file("mp1_skeleton.CINF") {
        let skel = Skeleton::from_cinf(&Cinf::parse(&cinf, "c", None).unwrap()).unwrap();
        let without: Vec<u64> = skel
            .bones()
            .iter()
            .filter(|b| clip.channel_of_bone(b.id).is_none())
            .map(|b| b.id.into())
            .collect();
        assert_eq!(Value::from(without), json["bones_without_channel"]);
    }
}

#[test]
fn anim_uncompressed_hostile() {
    let Some((data, _)) = conformance_file("mp1_wave_uncompressed.ANIM") else {
        return;
    };
    let rejected = torture(&data, 400, |d| Anim::parse(d, "t", None));
    assert_eq!(rejected, data.len());
    // The rotation key count (at 0x8D) claims more keys than the data holds.
    let mut big = data.clone();
    big[0x8D..0x91].copy_from_slice(&1000u32.to_be_bytes());
    let e = Anim::parse(&big, "t", Some(Game::Mp1)).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }), "{e}");
    // A bone channel beyond the translation map.
    let mut short = data.clone();
    short[0x20 + 7] = 9;
    let e = Anim::parse(&short, "t", Some(Game::Mp1)).unwrap_err();
    assert!(e.to_string().contains("translation map"), "{e}");
    // Bone 5's translation channel 1 → 4: the maps address 25 keys, 10 are stored.
    let mut few = data.clone();
    few[0x88 + 2] = 4;
    let e = Anim::parse(&few, "t", Some(Game::Mp1)).unwrap_err();
    assert!(
        e.to_string()
            .contains("10 keys stored, but the channel maps address 25"),
        "{e}"
    );
}

// ---------------------------------------------------------------------------------------
// ANIM format 2
// ---------------------------------------------------------------------------------------

fn compressed_fixture() -> Option<(Vec<u8>, Value, AnimCompressed)> {
    let (data, json) = conformance_file("mp1_wave_compressed.ANIM")?;
    let Anim::Compressed(a) = Anim::parse(&data, "mp1_wave_compressed.ANIM", None).unwrap() else {
        panic!("format 2 expected")
    };
    Some((data, json, a))
}

#[test]
fn anim_compressed_conformance() {
    let Some((data, json, a)) = compressed_fixture() else {
        return;
    };
    assert_eq!(a.game, Game::Mp1);
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
    assert_eq!(a.stored_frames, vec![0, 1, 3, 4]);
    assert_eq!(a.bitstream_bits, 183);
    // Every value (quantized_xyz, wsign, quaternion_wxyz, deltas, translations…) via the CLI.
    let out = json_of(cli::info_anim(&data, "x", None, true).unwrap());
    assert_subset(&json, &out, "ANIM2");
    // And directly from the parsed keys (f32 path), tolerance 1e-5.
    for (ch, jc) in a.channels.iter().zip(json["channels"].as_array().unwrap()) {
        let frames = jc["rotation"]["frames"].as_object().unwrap();
        for (k, &(xyz, sign)) in a.stored_frames.iter().zip(&ch.rotation_keys) {
            let jf = &frames[&k.to_string()];
            assert_eq!(Value::from(xyz.to_vec()), jf["quantized_xyz"]);
            assert_eq!(u64::from(sign), jf["wsign"].as_u64().unwrap());
            let q = a.dequantize_rotation(xyz, sign);
            for (got, want) in q.iter().zip(jf["quaternion_wxyz"].as_array().unwrap()) {
                assert!((f64::from(*got) - want.as_f64().unwrap()).abs() < TOL);
            }
        }
        if let Some(t) = jc["translation"]["frames"].as_object() {
            for (k, key) in a.stored_frames.iter().zip(&ch.translation_keys) {
                let jf = &t[&k.to_string()];
                assert_eq!(a.dequantize_translation(*key), f3(&jf["translation"]));
            }
        }
    }
    // Byte-identical writing.
    assert_eq!(a.write().unwrap(), data);
}

#[test]
fn missing_frame_2_is_interpolated() {
    let Some((_, _, a)) = compressed_fixture() else {
        return;
    };
    let clip = Clip::from_anim(&Anim::Compressed(a.clone())).unwrap();
    assert!(clip.looping);
    let at = |t: f32, mode| clip.sample(t, false, mode);
    let mid = at(0.5, SlerpMode::ShortestPath);
    let f1 = at(0.25, SlerpMode::ShortestPath);
    let f3 = at(0.75, SlerpMode::ShortestPath);
    for c in 0..clip.channels.len() {
        let want = tevscope::anim::slerp(
            f1[c].rotation.unwrap(),
            f3[c].rotation.unwrap(),
            0.5,
            SlerpMode::ShortestPath,
        );
        assert!(
            mid[c].rotation.unwrap().abs_diff_eq(want, 1e-6),
            "channel {c}"
        );
        if let (Some(m), Some(a1), Some(a3)) =
            (mid[c].translation, f1[c].translation, f3[c].translation)
        {
            assert!(m.abs_diff_eq((a1 + a3) * 0.5, 1e-6));
        }
    }
    // Bone 6 flips W sign between frames 1 and 3: shortest-path and plain slerp differ
    // only in sign or path; both stay unit length.
    let plain = at(0.5, SlerpMode::Plain);
    assert!((plain[2].rotation.unwrap().length() - 1.0).abs() < 1e-5);
    // Looping wraps past the end; past the last key (frame 4 at 1.0 s) the value holds.
    let wrapped = clip.sample(1.25, false, SlerpMode::ShortestPath);
    assert_eq!(wrapped, f1);
    let mut held = clip.clone();
    held.looping = false;
    assert_eq!(
        held.sample(9.0, false, SlerpMode::ShortestPath),
        held.sample(1.0, false, SlerpMode::ShortestPath)
    );
}

#[test]
fn anim_compressed_hostile() {
    let Some((data, _, _)) = compressed_fixture() else {
        return;
    };
    let rejected = torture(&data, 600, |d| Anim::parse(d, "t", None));
    assert_eq!(rejected, data.len());
    // Descriptor 0 (bone 3) at 0x40: rotation x bit width at 0x48.
    let mut wide = data.clone();
    wide[0x48] = 33;
    let e = Anim::parse(&wide, "t", None).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::OutOfRange { .. }), "{e}");
    assert_eq!(e.offset, 0x48);
    // Widths that need more bits than the stream holds.
    let mut hungry = data.clone();
    hungry[0x48] = 32;
    let e = Anim::parse(&hungry, "t", None).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Truncated { .. }), "{e}");
    assert_eq!(e.field, "bitstream");
    // A bone ID outside the addressable range.
    let mut far = data.clone();
    far[0x40..0x44].copy_from_slice(&120u32.to_be_bytes());
    let e = Anim::parse(&far, "t", None).unwrap_err();
    assert!(e.to_string().contains("below 100"), "{e}");
    // A divisor of 0.
    let mut zero = data.clone();
    zero[0x20..0x24].copy_from_slice(&0u32.to_be_bytes());
    assert!(
        Anim::parse(&zero, "t", None)
            .unwrap_err()
            .to_string()
            .contains("divisor")
    );
    // A bone the skeleton lacks (valid ID 50).
    let mut absent = data.clone();
    absent[0x40..0x44].copy_from_slice(&50u32.to_be_bytes());
    let clip = Clip::from_anim(&Anim::parse(&absent, "t", None).unwrap()).unwrap();
    let Some((cinf, _)) = conformance_file("mp1_skeleton.CINF") else {
        return;
    };
    let skel = Skeleton::from_cinf(&Cinf::parse(&cinf, "c", None).unwrap()).unwrap();
    let e = ClipBinding::new(&clip, &skel).unwrap_err();
    assert!(e.to_string().contains("bone 50"), "{e}");
    // A huge bitmap of zero-width frames: keys cost no bits, so the decoder bounds them by
    // the input size instead.
    let zero_width = |channels: u32| {
        let mut w = tevscope::formats::Writer::new();
        w.bytes(&data[..0x30]);
        w.u32(8 * 4096);
        for _ in 0..1024 {
            w.u32(u32::MAX);
        }
        w.u32(channels);
        w.u32(channels);
        for c in 0..channels {
            w.u32(3 + c); // MP1 descriptor: no rotation, translation with width 0
            w.u16(0);
            w.u16(1);
            for _ in 0..3 {
                w.i16(0);
                w.u8(0);
            }
        }
        w.into_inner()
    };
    let Anim::Compressed(ok) = Anim::parse(&zero_width(1), "t", None).unwrap() else {
        panic!()
    };
    assert_eq!(ok.stored_frames.len(), 8 * 4096);
    let e = Anim::parse(&zero_width(20), "t", None).unwrap_err();
    assert!(e.to_string().contains("refusing to decode"), "{e}");
}

#[test]
fn pose_through_the_skeleton() {
    let (Some((cinf, _)), Some((anim, _))) = (
        conformance_file("mp1_skeleton.CINF"),
        conformance_file("mp1_wave_uncompressed.ANIM"),
    ) else {
        return;
    };
    let out = json_of(cli::pose(&anim, &cinf, 0.25, true).unwrap());
    let bones = out["bones"].as_array().unwrap();
    assert_eq!(bones.len(), 7);
    // Bone 3 at key 1: rotation 10° about Z, translation (0.125, 0, 0.4375) replaces its
    // bind offset (it is a root, so that is its model position).
    let b3 = &bones[0];
    assert_eq!(b3["id"], 3);
    assert_eq!(f3(&b3["model"]["translation"]), [0.125, 0.0, 0.4375]);
    // Bone 4 (no translation channel): P = P3 + R3 · (0, 0, 0.25); R3 is about Z so Z is kept.
    let b4 = &bones[1];
    let p4 = Vec3::from(f3(&b4["model"]["translation"]));
    assert!(p4.abs_diff_eq(Vec3::new(0.125, 0.0, 0.6875), 1e-6), "{p4}");
    // Bone 5 has a translation channel: (0, 0.25, 0.75) at key 1 replaces its offset, and is
    // rotated by R4 · … : R3 = 10° about Z, R4 local = 20° about X.
    let r3 = Quat::from_rotation_z(10f32.to_radians());
    let r4 = r3 * Quat::from_rotation_x(20f32.to_radians());
    let want5 = p4 + r4 * Vec3::new(0.0, 0.25, 0.75);
    let p5 = Vec3::from(f3(&bones[2]["model"]["translation"]));
    assert!(p5.abs_diff_eq(want5, 1e-5), "{p5} vs {want5}");
    // The model matrix agrees with the model transform.
    let rows = bones[2]["model_from_bone_rows"].as_array().unwrap();
    assert!((rows[0][3].as_f64().unwrap() as f32 - p5.x).abs() < 1e-6);
    let text = cli::pose(&anim, &cinf, 0.25, false).unwrap();
    assert!(text.contains("pelvis"));
}

// ---------------------------------------------------------------------------------------
// ANCS and CHAR
// ---------------------------------------------------------------------------------------

#[test]
fn ancs_conformance() {
    let Some((data, json)) = conformance_file("mp1_cube.ANCS") else {
        return;
    };
    let a = Ancs::parse(&data, "mp1_cube.ANCS", None).unwrap();
    assert_eq!(a.game, Game::Mp1);
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
    let c = &a.characters[0];
    assert_eq!(
        (c.model_id, c.skin_id, c.skeleton_id),
        (0xC000_0001, 0xC200_0001, 0xC100_0001)
    );
    let prims: Vec<(u64, u32, &str)> = a
        .animation_set
        .animations
        .iter()
        .flat_map(|n| n.meta.primitives())
        .map(|p| (p.anim_id, p.primitive_id, p.name.as_str()))
        .collect();
    assert_eq!(
        prims,
        vec![
            (0xA000_0001, 0, "wave_uncompressed"),
            (0xA000_0002, 1, "wave_compressed")
        ]
    );
    assert!(matches!(a.animation_set.resources, AnimResources::Mp1(ref v) if v.len() == 2));
    let out = json_of(cli::info_ancs(&data, "x", None, true).unwrap());
    assert_subset(&json, &out, "ANCS");
    let text = cli::info_ancs(&data, "x", None, false).unwrap();
    assert!(
        text.contains("Play(0xA0000002 #1 \"wave_compressed\")"),
        "{text}"
    );
    let rejected = torture(&data, 600, |d| Ancs::parse(d, "t", None));
    assert_eq!(rejected, data.len());
}

#[test]
fn char_conformance() {
    let Some((data, json)) = conformance_file("mp3_fixture.CHAR") else {
        return;
    };
    let c = CharMp3::parse(&data, "mp3_fixture.CHAR").unwrap();
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    assert_eq!(c.skeleton_id, 0x00C0_FFEE_0000_0003);
    assert!(
        matches!(&c.animations[0].meta, MetaAnim::Play(p) if p.anim_id == 0x00C0_FFEE_0000_0010)
    );
    let out = json_of(cli::info_char(&data, "x", true).unwrap());
    assert_subset(&json, &out, "CHAR");
    assert!(cli::info_char(&data, "x", false).unwrap().contains("FROZ"));
    let rejected = torture(&data, 600, |d| CharMp3::parse(d, "t"));
    assert_eq!(rejected, data.len());
}

#[test]
fn cskr_torture() {
    let Some((data, _)) = conformance_file("mp1_cube.CSKR") else {
        return;
    };
    let rejected = torture(&data, 400, |d| Cskr::parse(d, "t", None));
    assert_eq!(rejected, data.len());
}

// ---------------------------------------------------------------------------------------
// Encoder property test
// ---------------------------------------------------------------------------------------

fn unit_quat() -> impl Strategy<Value = Quat> {
    (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0)
        .prop_filter("non-degenerate", |(x, y, z, w)| {
            x * x + y * y + z * z + w * w > 0.01
        })
        .prop_map(|(x, y, z, w)| Quat::from_xyzw(x, y, z, w).normalize())
}

prop_compose! {
    fn random_clip()(frames in 1u32..24, ids in proptest::collection::btree_set(0u32..100, 1..6))
        (channels in proptest::collection::vec(
            (any::<bool>(), any::<bool>(),
             proptest::collection::vec(unit_quat(), frames as usize),
             proptest::collection::vec((-20.0f32..20.0, -20.0f32..20.0, -20.0f32..20.0), frames as usize)),
            ids.len()),
         ids in Just(ids.clone()), frames in Just(frames), looping in any::<bool>())
        -> Clip
    {
        let channels = ids.iter().zip(channels).map(|(&bone_id, (has_r, has_t, r, t))| Channel {
            bone_id,
            rotation: (has_r || !has_t).then_some(r),
            translation: has_t.then(|| t.into_iter().map(|(x, y, z)| Vec3::new(x, y, z)).collect()),
            scale: None,
        }).collect();
        Clip {
            kind: ClipKind::Compressed,
            game: Game::Mp1,
            duration: (frames.max(2) - 1) as f32 / 30.0,
            interval: 1.0 / 30.0,
            frame_count: frames,
            looping,
            root_bone_id: 3,
            key_frames: (0..frames).collect(),
            key_times: None,
            channels,
            evnt_id: None,
        }
    }
}

/// The decoded rotation `d` matches `q` within one quantisation step: each imaginary
/// component within q/2 (sin is 1-Lipschitz), W's magnitude as implied, and the same
/// rotation up to sign.
fn rotation_within_step(q: Quat, d: Quat, divisor: u32) -> Result<(), String> {
    let step = std::f32::consts::FRAC_PI_2 / divisor as f32;
    let q = if q.dot(d) < 0.0 { -q } else { q };
    for (a, b) in [(q.x, d.x), (q.y, d.y), (q.z, d.z)] {
        if (a - b).abs() > step / 2.0 + 1e-5 {
            return Err(format!("component {a} decoded as {b} (step {step})"));
        }
    }
    // |w|² = 1 − |v|²: its error follows from the components'.
    if (q.w * q.w - d.w * d.w).abs() > 2.0 * 3f32.sqrt() * step + 1e-4 {
        return Err(format!("w {} decoded as {}", q.w, d.w));
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn encoder_round_trips_within_the_quantisation_step(clip in random_clip(), mp2 in any::<bool>()) {
        let game = if mp2 { Game::Mp2 } else { Game::Mp1 };
        let opts = EncodeOptions::lossless(game);
        let encoded = encode_compressed(&clip, &opts).unwrap();
        let bytes = encoded.write().unwrap();
        let parsed = Anim::parse(&bytes, "enc", None).unwrap();
        prop_assert_eq!(parsed.game(), game);
        let Anim::Compressed(p) = &parsed else { panic!() };
        prop_assert_eq!(p, &encoded);
        // Writing again is byte-identical.
        prop_assert_eq!(&parsed.write().unwrap(), &bytes);
        let decoded = Clip::from_anim(&parsed).unwrap();
        prop_assert_eq!(decoded.key_frames.len() as u32, clip.frame_count.max(1));
        let t_step = encoded.translation_multiplier;
        for f in 0..clip.frame_count {
            let want = clip.frame_sample(f, SlerpMode::ShortestPath);
            let got = decoded.frame_sample(f, SlerpMode::ShortestPath);
            for (w, g) in want.iter().zip(&got) {
                if let (Some(a), Some(b)) = (w.rotation, g.rotation) {
                    let r = rotation_within_step(a, b, opts.rotation_divisor);
                    prop_assert!(r.is_ok(), "frame {}: {:?}", f, r);
                }
                prop_assert_eq!(w.rotation.is_some(), g.rotation.is_some());
                if let (Some(a), Some(b)) = (w.translation, g.translation) {
                    prop_assert!((a - b).abs().max_element() <= t_step / 2.0 + 1e-5, "{} vs {}", a, b);
                }
            }
        }
    }

    #[test]
    fn dropped_frames_stay_within_tolerance(frames in 3u32..60, speed in 0.0f32..0.2, wobble in 0.0f32..0.02) {
        // A smooth motion with a little noise: the encoder drops what interpolates.
        let rot: Vec<Quat> = (0..frames).map(|f| Quat::from_rotation_y(f as f32 * speed + (f as f32 * 1.7).sin() * wobble)).collect();
        let tr: Vec<Vec3> = (0..frames).map(|f| Vec3::new((f as f32 * 0.3).sin(), f as f32 * 0.01, 0.0)).collect();
        let clip = Clip {
            kind: ClipKind::Compressed, game: Game::Mp1, duration: (frames - 1) as f32 / 30.0,
            interval: 1.0 / 30.0, frame_count: frames, looping: false, root_bone_id: 3,
            key_frames: (0..frames).collect(),
            key_times: None,
            channels: vec![Channel { bone_id: 3, rotation: Some(rot.clone()), translation: Some(tr.clone()), scale: None }],
            evnt_id: None,
        };
        let opts = EncodeOptions { rotation_tolerance: 0.01, translation_tolerance: 0.01, ..EncodeOptions::default() };
        let encoded = encode_compressed(&clip, &opts).unwrap();
        let decoded = Clip::from_anim(&Anim::parse(&encoded.write().unwrap(), "enc", None).unwrap()).unwrap();
        let step = std::f32::consts::FRAC_PI_2 / opts.rotation_divisor as f32;
        for f in 0..frames {
            let g = decoded.frame_sample(f, SlerpMode::ShortestPath)[0];
            let angle = g.rotation.unwrap().angle_between(rot[f as usize]);
            // Stored frames carry quantisation error only; dropped ones the tolerance.
            prop_assert!(angle <= opts.rotation_tolerance + 4.0 * step.sqrt(), "frame {}: {}", f, angle);
            let d = g.translation.unwrap().distance(tr[f as usize]);
            prop_assert!(d <= opts.translation_tolerance + encoded.translation_multiplier, "frame {}: {}", f, d);
        }
    }
}

#[test]
fn encoder_output_matches_the_fixture_decoding() {
    // Re-encoding the compressed fixture's decoded clip (lossless) reproduces its values.
    let Some((_, _, a)) = compressed_fixture() else {
        return;
    };
    let clip = Clip::from_anim(&Anim::Compressed(a.clone())).unwrap();
    let opts = EncodeOptions {
        rotation_divisor: a.rotation_divisor,
        translation_step: a.translation_multiplier,
        ..EncodeOptions::lossless(Game::Mp1)
    };
    let e = encode_compressed(&clip, &opts).unwrap();
    // Frame 2 was missing; the encoder stores every frame, frame 2 interpolated.
    assert_eq!(e.stored_frames, vec![0, 1, 2, 3, 4]);
    for (orig, enc) in a.channels.iter().zip(&e.channels) {
        for (k, &fr) in a.stored_frames.iter().enumerate() {
            assert_eq!(
                orig.translation_keys.get(k),
                enc.translation_keys.get(fr as usize)
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// MP3 (formats.md §13.4–13.7): the `mp3/` fixtures
// ---------------------------------------------------------------------------------------

/// Fields of the MP3 fixtures that need other files, are prose, or are checked separately:
/// the CSKR's per-position groups need the CMDL's PNMTXIDX and bank indices; the ANIMs'
/// samples are the pose test's.
const MP3_SKIP: &[&str] = &[
    "per_position_group",
    "samples",
    "sampling_rule",
    "rds_parse",
    "cinf",
    "unknown_fields",
    "resolves_to",
];

fn mp3_file(name: &str) -> Option<(Vec<u8>, Value)> {
    conformance_file(&format!("mp3/{name}"))
}

/// `assert_subset` without the MP3 fields that are not the file's own.
fn assert_mp3_subset(expected: &Value, actual: &Value, path: &str) {
    let mut e = expected.clone();
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.retain(|k, _| !MP3_SKIP.contains(&k.as_str()));
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut e);
    assert_subset(&e, actual, path);
}

#[test]
fn mp3_cskr_conformance() {
    let Some((data, json)) = mp3_file("0x0C3F1E7D00000200.CSKR") else {
        return;
    };
    // Recognised from its bytes ("SKIN").
    let s = Cskr::parse(&data, "mp3.CSKR", None).unwrap();
    assert_eq!(s.game, Game::Mp3);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let out = json_of(cli::info_cskr(&data, "x", None, true).unwrap());
    assert_mp3_subset(&json, &out, "CSKR");
    assert_eq!(s.write().unwrap(), data, "byte-identical write-back");
    // Bank lookups: bank 1 reverses bank 0; slot 4 is unused (−1); bank 2 does not exist.
    assert_eq!(s.bank_group(0, Some(3)), Ok(1));
    assert_eq!(s.bank_group(1, Some(0)), Ok(3));
    assert!(
        s.bank_group(0, Some(12))
            .unwrap_err()
            .contains("unweighted")
    );
    assert!(s.bank_group(2, Some(0)).is_err());
    assert!(s.bank_group(-1, Some(0)).is_err());
    assert!(s.bank_group(0, None).is_err());
    assert!(s.bank_group(0, Some(30)).is_err());
    let rejected = torture(&data, 600, |d| Cskr::parse(d, "t", Some(Game::Mp3)));
    // Every truncation inside the groups and banks is an error; the tail never is.
    assert!(rejected + 8 >= data.len(), "{rejected} of {}", data.len());
}

#[test]
fn mp3_cinf_conformance() {
    let Some((data, json)) = mp3_file("0x0C3F1E7D00000300.CINF") else {
        return;
    };
    let c = Cinf::parse(&data, "mp3.CINF", Some(Game::Mp3)).unwrap();
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let out = json_of(cli::info_cinf(&data, "x", Some(Game::Mp3), true).unwrap());
    assert_mp3_subset(&json, &out, "CINF");
    assert_eq!(c.write().unwrap(), data, "byte-identical write-back");
    let rejected = torture(&data, 600, |d| Cinf::parse(d, "t", Some(Game::Mp3)));
    // Truncations inside the 0xFF padding still parse.
    assert!(rejected + 32 >= data.len());
}

/// Checks every animated bone's local pose at the fixture's three times.
fn check_samples(
    anim: &Anim,
    json: &Value,
    skeleton: &Skeleton,
    cinf_bytes: &[u8],
    anim_bytes: &[u8],
) {
    let clip = Clip::from_anim(anim).unwrap();
    let binding = ClipBinding::new(&clip, skeleton).unwrap();
    let options = PoseOptions::default();
    let mut pose = Pose::bind(skeleton, &options);
    let samples = json["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 3);
    // The fixture rounds to 6 decimals; the keys are f32 (v0) or s16 totals dequantised in
    // f32 (v1), interpolated in f32: 2e-5 covers both.
    const POSE_TOL: f32 = 2e-5;
    for s in samples {
        let t = s["time"].as_f64().unwrap() as f32;
        pose.sample(skeleton, &clip, &binding, t, &options);
        // The CLI's `pose --json` reports the same local transforms.
        let cli_pose =
            json_of(cli::pose_with(anim_bytes, cinf_bytes, t, None, &options, true).unwrap());
        for b in s["bones"].as_array().unwrap() {
            let id = b["bone_id"].as_u64().unwrap() as u32;
            let i = skeleton.index_of(id).unwrap();
            let l = pose.local[i];
            let q = b["rotation_wxyz"].as_array().unwrap();
            let q = Quat::from_xyzw(
                q[1].as_f64().unwrap() as f32,
                q[2].as_f64().unwrap() as f32,
                q[3].as_f64().unwrap() as f32,
                q[0].as_f64().unwrap() as f32,
            );
            let at = format!("t={t} bone {id}");
            assert!(
                l.rotation.abs_diff_eq(q, POSE_TOL),
                "{at}: rotation {:?} vs {q:?}",
                l.rotation
            );
            assert!(
                l.translation
                    .abs_diff_eq(Vec3::from(f3(&b["translation"])), POSE_TOL),
                "{at}: translation {:?}",
                l.translation
            );
            assert!(
                l.scale.abs_diff_eq(Vec3::from(f3(&b["scale"])), POSE_TOL),
                "{at}: scale {:?}",
                l.scale
            );
            let cb = cli_pose["bones"]
                .as_array()
                .unwrap()
                .iter()
                .find(|x| x["id"] == id)
                .unwrap();
            assert_subset(&b["translation"], &cb["local"]["translation"], &at);
        }
    }
}

fn mp3_anim_conformance(name: &str, version: u64) {
    let Some((data, json)) = mp3_file(name) else {
        return;
    };
    let Some((cinf_bytes, _)) = mp3_file("0x0C3F1E7D00000300.CINF") else {
        return;
    };
    // Recognised from its bytes: version 1 by its number, version 0 by its layout.
    let anim = Anim::parse(&data, name, None).unwrap();
    assert_eq!(anim.game(), Game::Mp3);
    assert!(anim.warnings().is_empty(), "{:?}", anim.warnings());
    let out = json_of(cli::info_anim(&data, "x", None, true).unwrap());
    assert_eq!(out["version"], version);
    assert_mp3_subset(&json, &out, name);
    assert_eq!(anim.write().unwrap(), data, "byte-identical write-back");
    let cinf = Cinf::parse(&cinf_bytes, "mp3.CINF", Some(Game::Mp3)).unwrap();
    let skeleton = Skeleton::from_cinf(&cinf).unwrap();
    check_samples(&anim, &json, &skeleton, &cinf_bytes, &data);
    let rejected = torture(&data, 800, |d| Anim::parse(d, "t", Some(Game::Mp3)));
    assert_eq!(rejected, data.len(), "every truncation is an error");
}

#[test]
fn mp3_anim_v0_conformance() {
    mp3_anim_conformance("0x0C3F1E7D00000400.ANIM", 0);
}

#[test]
fn mp3_anim_v1_conformance() {
    mp3_anim_conformance("0x0C3F1E7D00000401.ANIM", 1);
}

#[test]
fn mp3_anim_v1_key_flood_is_refused() {
    // 1000 keys × 2550 zero-width components in 12 KB: refused before decoding.
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fuzz/regressions/mp3_anim/v1_zero_width_key_flood.ANIM"
    );
    let data = std::fs::read(path).unwrap();
    let e = Anim::parse(&data, "flood.ANIM", None).unwrap_err();
    assert_eq!((e.field.as_str(), e.offset), ("key_count", 0x26), "{e}");
    assert!(e.to_string().contains("refusing"), "{e}");
}

#[test]
fn mp3_char_conformance() {
    let Some((data, json)) = mp3_file("0x0C3F1E7D00000500.CHAR") else {
        return;
    };
    let c = CharMp3::parse(&data, "mp3.CHAR").unwrap();
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    let out = json_of(cli::info_char(&data, "x", true).unwrap());
    assert_mp3_subset(&json, &out, "CHAR");
    assert_eq!(c.write().unwrap(), data, "byte-identical write-back");
}

/// The CHAR's parts and animations, resolved inside the MP3 PAK and among loose files named
/// by ID: the model, skin, skeleton, the FRZN overlay, and both Play entries as clips that
/// pose as the ANIM fixtures say.
#[test]
fn mp3_char_resolves_its_parts_and_animations() {
    use tevscope::load::{LoadRequest, character_mp3, open};
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    let Some((_, v1)) = mp3_file("0x0C3F1E7D00000401.ANIM") else {
        return;
    };
    let pak = dir.join("mp3/mp3_fixtures.pak");
    let loose = dir.join("mp3/0x0C3F1E7D00000500.CHAR");
    for spec in [
        format!("{}:0x0C3F1E7D00000500", pak.display()),
        loose.display().to_string(),
    ] {
        let (input, resolver) = open(&spec).unwrap();
        let (mut warnings, mut sources) = (Vec::new(), Vec::new());
        let c = character_mp3::resolve(
            &input,
            &LoadRequest::new(&spec),
            &*resolver,
            &mut warnings,
            &mut sources,
        )
        .unwrap();
        assert!(warnings.is_empty(), "{spec}: {warnings:?}");
        assert!(
            c.model.label.contains("0x0C3F1E7D00000100"),
            "{}",
            c.model.label
        );
        assert_eq!((c.skeleton.len(), c.skin.groups.len()), (6, 4));
        assert_eq!(c.skin.matrix_banks().len(), 2);
        assert_eq!(c.overlays.len(), 1);
        assert_eq!(c.overlays[0].kind, "FRZN");
        assert!(
            c.overlays[0]
                .model
                .as_ref()
                .unwrap()
                .label
                .contains("0x0C3F1E7D00000101")
        );
        assert!(c.sand.is_none(), "the CHAR names no SAND");
        let names: Vec<&str> = c.clips.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["idle_v0", "sway_v1"]);
        assert_eq!(
            sources
                .iter()
                .filter(|s| s.starts_with("animation"))
                .count(),
            2,
            "{sources:?}"
        );
        // The v1 clip from the PAK (0xFF-padded member) poses like the loose fixture.
        let clip = &c.clips[1].1;
        let binding = ClipBinding::new(clip, &c.skeleton).unwrap();
        let options = PoseOptions::default();
        let mut pose = Pose::bind(&c.skeleton, &options);
        let s = &v1["samples"][1];
        pose.sample(
            &c.skeleton,
            clip,
            &binding,
            s["time"].as_f64().unwrap() as f32,
            &options,
        );
        let b = &s["bones"][0];
        let i = c
            .skeleton
            .index_of(b["bone_id"].as_u64().unwrap() as u32)
            .unwrap();
        assert!(
            pose.local[i]
                .translation
                .abs_diff_eq(Vec3::from(f3(&b["translation"])), 2e-5)
        );
        // The whole load reads the CMDL next: the MP3 model reader is another branch's, so
        // until it lands this stops at the CMDL (named), never at a missing part.
        match tevscope::load::load(&LoadRequest::new(&spec)) {
            Ok((m, _)) => assert_eq!(m.assets.skin.unwrap().clips.len(), 2),
            Err(e) => assert!(format!("{e:#}").contains("0x0C3F1E7D00000100"), "{e:#}"),
        }
    }
}

/// `tevscope pose --game mp3 --json` (and without `--game`: the ANIM's bytes say MP3) on
/// the fixture skeleton, at a sample time of each ANIM version.
#[test]
fn mp3_pose_cli() {
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    for (anim, sample) in [
        ("0x0C3F1E7D00000400.ANIM", 1),
        ("0x0C3F1E7D00000401.ANIM", 2),
    ] {
        let (_, json) = mp3_file(anim).unwrap();
        let s = &json["samples"][sample];
        let t = s["time"].as_f64().unwrap().to_string();
        for game in [&["--game", "mp3"][..], &[]] {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_tevscope"))
                .current_dir(dir.join("mp3"))
                .args([
                    "pose",
                    anim,
                    "--skeleton",
                    "0x0C3F1E7D00000300.CINF",
                    "--time",
                    &t,
                    "--json",
                ])
                .args(game)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let pose = json_of(String::from_utf8(out.stdout).unwrap());
            assert_eq!(pose["game"], "MP3");
            assert_eq!(pose["anim_format"], u64::from(anim.ends_with("401.ANIM")));
            for b in s["bones"].as_array().unwrap() {
                let p = pose["bones"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .find(|x| x["id"] == b["bone_id"])
                    .unwrap();
                assert_eq!(p["animated"], true);
                assert_subset(&b["translation"], &p["local"]["translation"], anim);
                assert_subset(&b["scale"], &p["local"]["scale"], anim);
            }
        }
    }
}

/// A CHAR naming a SAND: the SAND is found by ID beside it, read, and chains the CHAR's
/// animations (the fixture CHAR names none, so a copy in a temporary folder names one).
#[test]
fn mp3_char_reads_its_sand() {
    use tevscope::formats::sand::{Sand, SandTransition};
    use tevscope::load::{LoadRequest, character_mp3, open};
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    let tmp = std::env::temp_dir().join(format!("tevscope-mp3-sand-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for f in [
        "0x0C3F1E7D00000100.CMDL",
        "0x0C3F1E7D00000101.CMDL",
        "0x0C3F1E7D00000200.CSKR",
        "0x0C3F1E7D00000300.CINF",
        "0x0C3F1E7D00000400.ANIM",
        "0x0C3F1E7D00000401.ANIM",
    ] {
        std::fs::copy(dir.join("mp3").join(f), tmp.join(f)).unwrap();
    }
    let mut c = CharMp3::parse(
        &std::fs::read(dir.join("mp3/0x0C3F1E7D00000500.CHAR")).unwrap(),
        "c",
    )
    .unwrap();
    c.sand_id = 0x0C3F_1E7D_0000_0600;
    std::fs::write(tmp.join("0x0C3F1E7D00000500.CHAR"), c.write().unwrap()).unwrap();
    let sand = Sand {
        unknown_u16: 0,
        transitions: vec![(
            0,
            0x0C3F_1E7D_0000_0400,
            0x0C3F_1E7D_0000_0401,
            SandTransition::Transition {
                phase: true,
                raw: [0; 0x13],
            },
        )],
        half_transitions: vec![],
        default_transition: SandTransition::Snap,
        additive: vec![],
        default_additive_fades: [0.0, 0.0],
        unknown_u8: 0,
        event_sets: vec![],
        trailing: vec![],
        warnings: vec![],
    };
    std::fs::write(tmp.join("0x0C3F1E7D00000600.SAND"), sand.write().unwrap()).unwrap();
    let spec = tmp.join("0x0C3F1E7D00000500.CHAR").display().to_string();
    let (input, resolver) = open(&spec).unwrap();
    let (mut warnings, mut sources) = (Vec::new(), Vec::new());
    let ch = character_mp3::resolve(
        &input,
        &LoadRequest::new(&spec),
        &*resolver,
        &mut warnings,
        &mut sources,
    )
    .unwrap();
    std::fs::remove_dir_all(&tmp).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    let s = ch.sand.expect("the SAND is read");
    assert!(matches!(
        s.transition(0x0C3F_1E7D_0000_0400, 0x0C3F_1E7D_0000_0401),
        SandTransition::Transition { phase: true, .. }
    ));
    assert_eq!(
        s.transition(0x0C3F_1E7D_0000_0401, 0x0C3F_1E7D_0000_0400),
        &SandTransition::Snap
    );
    assert!(
        sources
            .iter()
            .any(|l| l.contains("0x0C3F1E7D00000600.SAND")),
        "{sources:?}"
    );
}

/// MP3 skinned normals on the GPU (the colour pass's rule, read back per vertex) equal the
/// CPU's §13.4 Default (every weight's rotation blended, renormalised) for the fixture
/// CHAR at several times of both clips, and somewhere differ from MP1/MP2's first-weight
/// rule, so the comparison tells the rules apart.
#[test]
fn mp3_gpu_skinned_normals_blend_every_weight_like_the_cpu() {
    use tevscope::anim::{MP3_NORMAL_MODE, skin_vertex_normals};
    use tevscope::load::{LoadRequest, load};
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    let Some(ctx) = tevscope::render::RenderContext::for_tests() else {
        return;
    };
    let spec = dir
        .join("mp3/0x0C3F1E7D00000500.CHAR")
        .display()
        .to_string();
    let (model, _) = load(&LoadRequest::new(&spec)).unwrap();
    let cpu = model.assets.cpu_model().unwrap();
    let skin = cpu.skin.clone().unwrap();
    assert_eq!(skin.normals, NormalMode::Blended);
    let normals: Vec<Vec3> = cpu.mesh.normals.iter().map(|&n| Vec3::from(n)).collect();
    let mut scene = tevscope::render::Scene::new(&ctx, cpu).unwrap();
    let options = scene.options().pose;
    let (mut compared, mut rules_differ) = (0, false);
    for (ci, (name, clip)) in skin.clips.iter().enumerate() {
        scene.set_animation(Some(ci));
        let binding = ClipBinding::new(clip, &skin.skeleton).unwrap();
        for f in [0.0, 0.37, 0.81] {
            let t = clip.duration * f;
            scene.set_time(f64::from(t));
            let gpu = scene.gpu_skinned_normals(&ctx).unwrap().unwrap();
            let mut pose = Pose::bind(&skin.skeleton, &options);
            pose.sample(&skin.skeleton, clip, &binding, t, &options);
            let palette = pose.skin_palette(&skin.skeleton, &options);
            let want = skin_vertex_normals(&skin.influences, &palette, &normals, MP3_NORMAL_MODE);
            let first = skin_vertex_normals(
                &skin.influences,
                &palette,
                &normals,
                NormalMode::FirstWeight,
            );
            assert_eq!(gpu.len(), want.len());
            for (v, (g, w)) in gpu.iter().zip(&want).enumerate() {
                assert!(
                    Vec3::from(*g).abs_diff_eq(*w, 1e-5),
                    "{name} at {t}s, vertex {v}: GPU {g:?}, CPU {w}"
                );
                rules_differ |= !first[v].normalize_or_zero().abs_diff_eq(*w, 1e-3);
            }
            compared += 1;
        }
    }
    assert_eq!(compared, 6);
    assert!(
        rules_differ,
        "no vertex where blending differs from the first weight"
    );
}
