//! GX lines (`gx::lines`): each segment is drawn as a screen-space quad one line width
//! (SU_LPSIZE / 6 px) across its major axis, snapped to GX's 1/16-pixel grid and sampled
//! at 9/16 of the pixel like a triangle. The pixels covered are compared with that rule
//! evaluated on the CPU, on both shader paths.

use std::collections::HashMap;

use glam::{Vec2, Vec3};
use tevscope::gx::lines::{LINE_WIDTH, line_offset};
use tevscope::gx::types::{AlphaInput, ColorInput, Material};
use tevscope::model::shapes::{PreviewShape, preview_model};
use tevscope::model::{CpuMaterial, CpuMesh, CpuModel};
use tevscope::render::scene::{Scene, SceneOptions};
use tevscope::render::{ClearMode, OffscreenTarget, RenderContext, ShaderPath};

/// One stage writing white: every covered pixel is white, the rest stays black.
fn white() -> Material {
    let mut m = Material::texture_passthrough();
    let s = &mut m.stages[0];
    s.color_in = [
        ColorInput::Zero,
        ColorInput::Zero,
        ColorInput::Zero,
        ColorInput::One,
    ];
    s.alpha_in = [AlphaInput::Zero; 4];
    (s.tex_map, s.tex_coord) = (None, None);
    m.texgens.clear();
    m.texture_count = 0;
    m
}

/// A model of line segments only (model space, the camera looks along −Y).
fn lines_model(ends: &[[f32; 3]]) -> CpuModel {
    let material = CpuMaterial {
        gx: Ok(white()),
        textures: Vec::new(),
        second_draw: None,
    };
    let mut model = preview_model(PreviewShape::Plane, material, HashMap::new());
    let n = ends.len();
    model.mesh = CpuMesh {
        positions: ends.to_vec(),
        normals: vec![[0.0, 1.0, 0.0]; n],
        colors: [vec![[255; 4]; n], vec![[255; 4]; n]],
        tex: vec![[[0.0; 2]; 8]; n],
    };
    let s = &mut model.surfaces[0];
    s.vertices = 0..n as u32;
    s.triangles.clear();
    s.lines = (0..n as u32 / 2).map(|i| [2 * i, 2 * i + 1]).collect();
    model
}

/// Whether `p` is strictly inside triangle `t` (None: on an edge, where the fill rule
/// decides and this reference does not say).
fn inside(t: [Vec2; 3], p: Vec2) -> Option<bool> {
    let e = |a: Vec2, b: Vec2| (b - a).perp_dot(p - a);
    let d = [e(t[0], t[1]), e(t[1], t[2]), e(t[2], t[0])];
    if d.iter().any(|&v| v.abs() < 1e-4) {
        return None;
    }
    Some(d.iter().all(|&v| v > 0.0) || d.iter().all(|&v| v < 0.0))
}

#[test]
fn lines_cover_the_pixels_of_their_gx_quads_on_both_shader_paths() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    // A shallow segment (widens in y), a steep one (widens in x), a near-diagonal one.
    let ends = [
        [-0.8, 0.0, 0.55],
        [0.3, 0.0, 0.41],
        [0.6, 0.0, -0.7],
        [0.47, 0.0, 0.3],
        [-0.7, 0.0, -0.2],
        [-0.05, 0.0, -0.83],
    ];
    let (w, h) = (160u32, 120u32);
    for shader in [ShaderPath::Specialized, ShaderPath::Uber] {
        let options = SceneOptions {
            shader,
            ..Default::default()
        };
        let mut scene = Scene::with_options(&ctx, lines_model(&ends), options).expect("scene");
        let mut c = tevscope::camera::OrbitCamera::framing(&scene.aabb());
        (c.yaw_degrees, c.pitch_degrees) = (0.0, 0.0);
        scene.set_camera(c);
        scene.finish_pipelines(&ctx);
        let target = OffscreenTarget::new(&ctx, w, h).expect("target");
        scene
            .render(&ctx, &target, ClearMode::Color([0.0, 0.0, 0.0, 1.0]))
            .expect("render");
        let image = target.read_rgba(&ctx).expect("readback");

        // The quads as GX builds them: ends on screen, ± the offset, snapped to 1/16.
        let cam = scene.view().frame_camera(w as f32 / h as f32);
        let screen = |p: [f32; 3]| {
            let clip = cam.clip_from_view * cam.view_from_world * Vec3::from(p).extend(1.0);
            Vec2::new(
                (clip.x / clip.w * 0.5 + 0.5) * w as f32,
                (0.5 - clip.y / clip.w * 0.5) * h as f32,
            )
        };
        let snap = |v: Vec2| (v * 16.0 + 0.5).floor() / 16.0;
        let quads: Vec<[Vec2; 4]> = ends
            .chunks(2)
            .map(|e| {
                let (a, b) = (screen(e[0]), screen(e[1]));
                let off = Vec2::from(line_offset(a.into(), b.into(), LINE_WIDTH));
                [a + off, a - off, b + off, b - off].map(snap)
            })
            .collect();
        let (mut checked, mut covered) = (0, 0);
        for y in 0..h {
            for x in 0..w {
                let p = Vec2::new(x as f32, y as f32) + 9.0 / 16.0;
                let mut expect = Some(false);
                for q in &quads {
                    for t in [[q[0], q[2], q[3]], [q[0], q[3], q[1]]] {
                        expect = match (expect, inside(t, p)) {
                            (Some(true), _) | (_, Some(true)) => Some(true),
                            (None, _) | (_, None) => None,
                            _ => Some(false),
                        };
                    }
                }
                let Some(expect) = expect else { continue };
                let drawn = image.pixel(x, y)[0] > 127;
                assert_eq!(drawn, expect, "{shader:?}: pixel ({x}, {y})");
                checked += 1;
                covered += expect as usize;
            }
        }
        assert!(
            checked > (w * h) as usize * 9 / 10,
            "{checked} pixels decided"
        );
        // Each segment is about one pixel wide along its length.
        assert!(covered > 100, "{shader:?}: {covered} pixels covered");
    }
}

/// The pick and selection-tint passes draw GX line quads too: a pixel a line covers picks
/// its surface and takes the tint when selected, one beside it does neither.
#[test]
fn lines_can_be_picked() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    // One shallow segment across the middle of the view.
    let ends = [[-0.8, 0.0, 0.02], [0.8, 0.0, -0.02]];
    let mut scene = Scene::new(&ctx, lines_model(&ends)).expect("scene");
    let mut c = tevscope::camera::OrbitCamera::framing(&scene.aabb());
    (c.yaw_degrees, c.pitch_degrees) = (0.0, 0.0);
    scene.set_camera(c);
    scene.finish_pipelines(&ctx);
    let (w, h) = (160u32, 120u32);
    let target = OffscreenTarget::new(&ctx, w, h).expect("target");
    scene
        .render(&ctx, &target, ClearMode::Color([0.0, 0.0, 0.0, 1.0]))
        .expect("render");
    let image = target.read_rgba(&ctx).expect("readback");
    let x = w / 2;
    let y = (0..h)
        .find(|&y| image.pixel(x, y)[0] > 127)
        .expect("the line is drawn");
    let hit = scene.pick(&ctx, w, h, x, y).expect("pick");
    assert_eq!(hit.map(|h| (h.surface, h.material)), Some((0, 0)));
    assert!(scene.pick(&ctx, w, h, x, y + 3).expect("pick").is_none());
    // Selected, the line takes the selection tint (yellow over white) and nothing beside it.
    assert_eq!(image.pixel(x, y)[..3], [255, 255, 255]);
    scene.set_highlight(Some(0));
    scene
        .render(&ctx, &target, ClearMode::Color([0.0, 0.0, 0.0, 1.0]))
        .expect("render");
    let tinted = target.read_rgba(&ctx).expect("readback");
    let [r, _, b, _] = tinted.pixel(x, y);
    assert!(r > 250 && b < 200, "{:?}", tinted.pixel(x, y));
    assert_eq!(tinted.pixel(x, y + 3), image.pixel(x, y + 3));
}
