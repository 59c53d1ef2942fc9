//! Per-frame vertex-side update cost: 64 materials with 2 UV animations each, 8 lights.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use glam::{Mat4, Vec3};
use tevscope::gx::frame::{FrameCamera, FrameOptions, FrameUpdate};
use tevscope::gx::lights::{GxLight, LightSelection, LightSet};
use tevscope::gx::{ChannelControl, Material, UvAnimation};

fn material(i: usize) -> Material {
    let anims = [
        UvAnimation::Scroll {
            offset_u: 0.1,
            offset_v: 0.2,
            speed_u: 0.05,
            speed_v: -0.1,
        },
        UvAnimation::Rotation {
            offset: 0.0,
            speed: 0.5,
        },
        UvAnimation::HorizontalFilmstrip {
            scale: 1.0,
            num_frames: 8.0,
            step: 0.125,
            offset: 0.0,
        },
        UvAnimation::InverseModelViewNoTranslation,
        UvAnimation::Model,
        UvAnimation::Cylinder {
            scale: 1.0,
            phase: 0.5,
        },
    ];
    Material {
        texture_count: 2,
        color0: Some(ChannelControl::from_word(0x3001)),
        channel_count: 1,
        uv_animations: vec![anims[i % anims.len()], anims[(i + 3) % anims.len()]],
        ..Material::default()
    }
}

fn lights() -> LightSet {
    let mut lights: Vec<GxLight> = (0..7)
        .map(|i| {
            GxLight::point(
                [200, 180, 160, 255],
                [i as f32 * 3.0 - 9.0, 2.0, 4.0],
                [0.0, 0.0, 0.5],
            )
        })
        .collect();
    lights.push(GxLight::directional([255; 4], [0.0, 0.6, -0.8]));
    LightSet {
        ambient: [64, 64, 64, 255],
        lights,
    }
}

fn bench(c: &mut Criterion) {
    let options = FrameOptions {
        light_selection: LightSelection::Brightest(8),
        ..Default::default()
    };
    let mut frame = FrameUpdate::new(options);
    // 8 model instances with 8 materials each: per-model work (light selection, matrices)
    // is done 8 times, per-material work 64 times.
    for m in 0..8 {
        let model = frame.add_model(
            Mat4::from_translation(Vec3::new(m as f32 * 5.0, 0.0, 0.0)),
            Vec3::ZERO,
        );
        for k in 0..8 {
            frame.add_material(model, &material(m * 8 + k));
        }
    }
    let lights = lights();
    let mut t = 0.0f64;
    let mut eye = Vec3::new(0.0, -20.0, 5.0);
    c.bench_function("frame_update_64_materials_2_uv_8_lights", |b| {
        b.iter(|| {
            t += 1.0 / 60.0;
            eye.x += 0.01;
            let camera = FrameCamera {
                view_from_world: glam::camera::rh::view::look_at_mat4(eye, Vec3::ZERO, Vec3::Z),
                clip_from_view: glam::camera::rh::proj::directx::perspective(1.0, 1.6, 0.1, 1000.0),
            };
            black_box(frame.update(black_box(t), &camera, &lights).len())
        })
    });
    // A static frame: nothing changes, so this is the cost of recomputing and comparing.
    let camera = FrameCamera {
        view_from_world: glam::camera::rh::view::look_at_mat4(eye, Vec3::ZERO, Vec3::Z),
        clip_from_view: glam::camera::rh::proj::directx::perspective(1.0, 1.6, 0.1, 1000.0),
    };
    frame.update(1.0, &camera, &lights);
    c.bench_function("frame_update_64_materials_unchanged", |b| {
        b.iter(|| black_box(frame.update(black_box(1.0), &camera, &lights).len()))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
