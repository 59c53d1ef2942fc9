//! Animation benchmarks: format-2 decoding speed (keys per second) on a large synthetic
//! animation made with the encoder, and posing + skinning a 100-bone skeleton with 10,000
//! vertices.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::{Quat, Vec3};
use tevscope::anim::{
    Channel, Clip, ClipBinding, ClipKind, EncodeOptions, NormalMode, Pose, PoseOptions, Skeleton,
    SkinBinding, SkinOptions, encode_compressed, skin_normals_into, skin_positions_into,
};
use tevscope::formats::Game;
use tevscope::formats::anim::Anim;
use tevscope::formats::cinf::{BoneName, Cinf, CinfBone};
use tevscope::formats::cskr::{BoneWeight, Cskr, CskrFooter, Mp1Count, WeightGroup};

const BONES: u32 = 100;
const FRAMES: u32 = 1200;
const VERTICES: usize = 10_000;

/// A smooth, non-trivial motion for every bone: each frame differs, so every frame is
/// stored when encoding losslessly.
fn synthetic_clip(frames: u32) -> Clip {
    let channels = (0..BONES)
        .map(|b| {
            let phase = b as f32 * 0.37;
            Channel {
                bone_id: b,
                rotation: Some(
                    (0..frames)
                        .map(|f| {
                            let t = f as f32 / 30.0;
                            Quat::from_euler(
                                glam::EulerRot::XYZ,
                                (t * 1.3 + phase).sin() * 0.8,
                                (t * 0.7 + phase).cos() * 0.5,
                                (t * 2.1 + phase).sin() * 0.3,
                            )
                        })
                        .collect(),
                ),
                translation: (b % 3 == 0).then(|| {
                    (0..frames)
                        .map(|f| {
                            Vec3::new(
                                (f as f32 * 0.05 + phase).sin(),
                                1.0,
                                (f as f32 * 0.03).cos(),
                            )
                        })
                        .collect()
                }),
                scale: None,
            }
        })
        .collect();
    Clip {
        kind: ClipKind::Compressed,
        game: Game::Mp1,
        duration: (frames - 1) as f32 / 30.0,
        interval: 1.0 / 30.0,
        frame_count: frames,
        looping: true,
        root_bone_id: 0,
        key_frames: (0..frames).collect(),
        key_times: None,
        channels,
        evnt_id: None,
    }
}

/// 100 bones: a spine of 10 with a 9-bone chain hanging off each spine bone.
fn skeleton_cinf() -> Cinf {
    let mut bones = Vec::new();
    for b in 0..BONES {
        let (parent, position) = if b < 10 {
            (
                if b == 0 { u32::MAX } else { b - 1 },
                [0.0, 0.0, b as f32 * 0.2],
            )
        } else {
            let spine = b / 10;
            let k = b % 10;
            let parent = if k == 0 { spine - 1 } else { b - 1 };
            (
                parent,
                [k as f32 * 0.1, spine as f32 * 0.05, spine as f32 * 0.2],
            )
        };
        bones.push(CinfBone {
            id: b,
            parent_id: parent,
            position,
            rotation: None,
            local_rotation: None,
            linked_bone_ids: vec![],
        });
    }
    Cinf {
        game: Game::Mp1,
        bone_names: bones
            .iter()
            .map(|b| BoneName {
                name: format!("bone{}", b.id),
                bone_id: b.id,
            })
            .collect(),
        build_order: bones.iter().map(|b| b.id).collect(),
        bones,
        trailing: vec![],
        warnings: vec![],
    }
}

/// Groups of 20 vertices with 1–3 weights on neighbouring bones.
fn skin() -> Cskr {
    let groups = (0..VERTICES / 20)
        .map(|g| {
            let b = (g as u32 * 7) % BONES;
            let n = 1 + g % 3;
            let weights = (0..n)
                .map(|i| BoneWeight {
                    bone_id: (b + i as u32) % BONES,
                    weight: 1.0 / n as f32,
                })
                .collect();
            WeightGroup {
                weights,
                vertex_count: 20,
            }
        })
        .collect();
    let count = Mp1Count {
        marker: u32::MAX,
        count: VERTICES as u32,
        skipped: vec![],
    };
    Cskr {
        game: Game::Mp1,
        skin_version: None,
        groups,
        footer: CskrFooter::Mp1 {
            positions: count.clone(),
            normals: count,
        },
        trailing: vec![],
        warnings: vec![],
    }
}

fn decode(c: &mut Criterion) {
    let clip = synthetic_clip(FRAMES);
    let encoded = encode_compressed(&clip, &EncodeOptions::lossless(Game::Mp1)).expect("encode");
    let bytes = encoded.write().expect("write");
    let keys: u64 = encoded
        .channels
        .iter()
        .map(|ch| (ch.rotation_keys.len() + ch.translation_keys.len()) as u64)
        .sum();
    eprintln!(
        "synthetic ANIM: {} bones × {} frames, {} keys, {} bytes ({:.2} bits/key)",
        BONES,
        FRAMES,
        keys,
        bytes.len(),
        encoded.bitstream_bits as f64 / keys as f64
    );
    let mut g = c.benchmark_group("anim_format2");
    g.throughput(Throughput::Elements(keys));
    g.bench_function("parse_and_decode_keys", |b| {
        b.iter(|| Anim::parse(black_box(&bytes), "bench.ANIM", None).expect("parse"))
    });
    g.bench_function("parse_decode_dequantize_to_clip", |b| {
        b.iter(|| {
            let a = Anim::parse(black_box(&bytes), "bench.ANIM", None).expect("parse");
            Clip::from_anim(&a).expect("clip")
        })
    });
    g.finish();

    let mut g = c.benchmark_group("anim_encode");
    g.throughput(Throughput::Elements(keys));
    g.sample_size(10);
    g.bench_function("encode_lossless", |b| {
        b.iter(|| {
            encode_compressed(black_box(&clip), &EncodeOptions::lossless(Game::Mp1))
                .expect("encode")
        })
    });
    g.bench_function("encode_tolerance_1e-3", |b| {
        b.iter(|| encode_compressed(black_box(&clip), &EncodeOptions::default()).expect("encode"))
    });
    g.finish();
}

fn pose_and_skin(c: &mut Criterion) {
    let skel = Skeleton::from_cinf(&skeleton_cinf()).expect("skeleton");
    let clip = synthetic_clip(120);
    let binding = ClipBinding::new(&clip, &skel).expect("binding");
    let skin =
        SkinBinding::new(&skin(), &skel, VERTICES, VERTICES, SkinOptions::default()).expect("skin");
    let positions: Vec<Vec3> = (0..VERTICES)
        .map(|i| {
            Vec3::new(
                (i % 100) as f32 * 0.01,
                (i / 100) as f32 * 0.01,
                (i % 7) as f32 * 0.1,
            )
        })
        .collect();
    let normals: Vec<Vec3> = positions
        .iter()
        .map(|p| (*p + Vec3::ONE).normalize())
        .collect();
    let opts = PoseOptions::default();
    let mut pose = Pose::bind(&skel, &opts);
    let (mut out_p, mut out_n) = (Vec::with_capacity(VERTICES), Vec::with_capacity(VERTICES));

    let mut g = c.benchmark_group("pose_100_bones");
    let mut t = 0.0f32;
    g.bench_function("sample_and_model_space", |b| {
        b.iter(|| {
            t = (t + 0.013) % 4.0;
            pose.sample(&skel, &clip, &binding, black_box(t), &opts);
        })
    });
    g.bench_function("skin_palette", |b| {
        b.iter(|| pose.skin_palette(&skel, &opts))
    });
    g.finish();

    let mut g = c.benchmark_group("skin_10000_vertices");
    g.throughput(Throughput::Elements(VERTICES as u64));
    g.bench_function("pose_palette_positions_normals", |b| {
        b.iter(|| {
            t = (t + 0.013) % 4.0;
            pose.sample(&skel, &clip, &binding, black_box(t), &opts);
            let palette = pose.skin_palette(&skel, &opts);
            skin_positions_into(&skin, &palette, &positions, &mut out_p);
            skin_normals_into(
                &skin,
                &palette,
                &normals,
                NormalMode::FirstWeight,
                &mut out_n,
            );
            black_box((&out_p, &out_n));
        })
    });
    g.bench_function("gpu_upload_data", |b| {
        b.iter(|| {
            let palette = pose.skin_palette(&skel, &opts);
            black_box(palette.to_gpu())
        })
    });
    g.finish();
}

criterion_group!(benches, decode, pose_and_skin);
criterion_main!(benches);
