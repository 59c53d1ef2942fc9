//! The texture view and the animation controls drawn headless from [`AppState`].

#![allow(clippy::unwrap_used)]

use super::show;
use super::tests::{demo_spec, drew_text};
use crate::ui::state::AppState;
use crate::ui::texture_view::Channels;

/// One frame of the whole UI at 1366 × 768 points on `ctx`, the pointer at `pointer`.
fn frame(
    ctx: &egui::Context,
    state: &mut AppState,
    pointer: Option<egui::Pos2>,
) -> egui::FullOutput {
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1366.0, 768.0),
        )),
        events: pointer.map(egui::Event::PointerMoved).into_iter().collect(),
        ..Default::default()
    };
    let mut out = ctx.run_ui(input, |ui| show(ui, state));
    out.textures_delta.clear();
    out
}

fn walk<'a>(shape: &'a egui::Shape, out: &mut Vec<&'a egui::Shape>) {
    match shape {
        egui::Shape::Vec(v) => v.iter().for_each(|s| walk(s, out)),
        s => out.push(s),
    }
}

fn shapes(out: &egui::FullOutput) -> Vec<&egui::Shape> {
    let mut all = Vec::new();
    out.shapes.iter().for_each(|c| walk(&c.shape, &mut all));
    all
}

/// The screen rectangle of the mesh drawn with `texture`.
fn image_rect(out: &egui::FullOutput, texture: egui::TextureId) -> Option<egui::Rect> {
    shapes(out).into_iter().find_map(|s| match s {
        egui::Shape::Mesh(m) if m.texture_id == texture => Some(egui::Rect::from_points(
            &m.vertices.iter().map(|v| v.pos).collect::<Vec<_>>(),
        )),
        _ => None,
    })
}

/// The uploaded image's id and size.
fn uploaded(state: &AppState) -> (egui::TextureId, [usize; 2]) {
    let (_, handle) = state.texture_view.cached.as_ref().unwrap();
    (handle.id(), handle.size())
}

#[test]
fn a_txtr_shows_at_its_aspect_with_only_the_shown_level_uploaded() {
    let mut state = AppState::new(std::env::temp_dir());
    state.open(&demo_spec("tex_worm_skin"));
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    assert!(state.texture_view_shown());
    let ctx = egui::Context::default();
    for _ in 0..3 {
        frame(&ctx, &mut state, None);
    }
    let out = frame(&ctx, &mut state, None);
    let (id, size) = uploaded(&state);
    assert_eq!(size, [64, 32]);
    let rect = image_rect(&out, id).expect("the texture is drawn");
    assert!(
        (rect.width() / rect.height() - 2.0).abs() < 1e-3,
        "{rect:?}"
    );
    // Level 3 (8x4), alpha as grey: one upload of that level, same aspect.
    state.texture_view.level = 3;
    state.texture_view.channels = Channels::Alpha;
    let out = frame(&ctx, &mut state, None);
    let (id, size) = uploaded(&state);
    assert_eq!(size, [8, 4]);
    let rect = image_rect(&out, id).unwrap();
    assert!(
        (rect.width() / rect.height() - 2.0).abs() < 1e-3,
        "{rect:?}"
    );
    // The readout names the texel under the pointer (the image's centre: texel 4, 2).
    let out = frame(&ctx, &mut state, Some(rect.center() + egui::vec2(0.5, 0.5)));
    assert!(drew_text(&out, "x    4, y    2"), "no readout");
    assert!(drew_text(&out, "RGBA"));
    // Zoom in about the centre: the texel under the pointer stays.
    state
        .texture_view
        .zoom_by(4.0, [0.5, 0.5], rect.width() / 8.0);
    let out = frame(&ctx, &mut state, Some(rect.center() + egui::vec2(0.5, 0.5)));
    assert!(drew_text(&out, "x    4, y    2"));
    let zoomed = image_rect(&out, uploaded(&state).0).unwrap();
    assert!((zoomed.width() / rect.width() - 4.0).abs() < 1e-3);
}

#[test]
fn a_texture_map_of_the_model_opens_in_the_view_and_closes() {
    let mut state = AppState::new(std::env::temp_dir());
    state.open(&demo_spec("worm_character"));
    state.central.texture = Some((egui::TextureId::User(1), [800, 500]));
    let ctx = egui::Context::default();
    frame(&ctx, &mut state, None);
    assert!(
        state.texture_view.cached.is_none(),
        "nothing uploaded for the 3D view"
    );
    assert!(!state.texture_view_shown(), "screenshots draw the model");
    state.texture_view.show_slot(Some(0));
    let out = frame(&ctx, &mut state, None);
    assert!(state.texture_view_shown(), "screenshots write the map");
    assert_eq!(uploaded(&state).1, [64, 32]);
    assert!(drew_text(&out, "Back to 3D view"));
    assert!(drew_text(&out, "TXTR 0xDE020015"));
    // A map the material does not have: the 3D view again.
    state.texture_view.show_slot(Some(5));
    frame(&ctx, &mut state, None);
    assert_eq!(state.texture_view.slot, None);
    // A new document starts without a map shown.
    state.texture_view.show_slot(Some(0));
    state.open(&demo_spec("worm_character"));
    assert_eq!(state.texture_view.slot, None);
}

#[test]
fn frames_step_the_clip_play_once_stops_and_bind_pose_keeps_the_choice() {
    let mut state = AppState::new(std::env::temp_dir());
    state.open(&demo_spec("worm_character"));
    let timing = crate::ui::animation::clip_timing(&state.session).unwrap();
    assert_eq!(timing.frame_count, 61);
    state.anim_view.step_frame(&mut state.session, true);
    assert!(!state.session.clock.playing);
    assert!((state.session.clock.time - timing.interval).abs() < 1e-9);
    state.anim_view.step_frame(&mut state.session, false);
    state.anim_view.step_frame(&mut state.session, false);
    assert!(
        (state.session.clock.time - timing.duration).abs() < 1e-6,
        "wraps to the end"
    );
    // Once: the clock stops at the end.
    state.anim_view.looping = false;
    state.session.clock.time = 0.0;
    state.session.clock.playing = true;
    state.tick(timing.duration * 0.5);
    assert!(state.session.clock.playing);
    state.tick(timing.duration);
    assert!(!state.session.clock.playing);
    assert_eq!(state.session.clock.time, timing.duration);
    // Bind pose: the scene gets no clip, the choice stays.
    state.anim_view.bind_pose = true;
    assert_eq!(state.anim_view.posed_animation(&state.session), None);
    assert_eq!(state.session.clock.animation, Some(0));
    let ctx = egui::Context::default();
    let out = frame(&ctx, &mut state, None);
    assert!(drew_text(&out, "Frame 61 / 61"));
}

#[test]
fn the_skeleton_overlay_draws_each_joint_and_names_the_hovered_one() {
    let mut state = AppState::new(std::env::temp_dir());
    state.open(&demo_spec("worm_character"));
    state.central.texture = Some((egui::TextureId::User(1), [800, 500]));
    state.session.clock.playing = false;
    state.session.clock.time = 0.5;
    let joints = |out: &egui::FullOutput| -> Vec<egui::Pos2> {
        shapes(out)
            .into_iter()
            .filter_map(|s| match s {
                egui::Shape::Circle(c) if c.radius == 3.0 && c.fill == egui::Color32::WHITE => {
                    Some(c.center)
                }
                _ => None,
            })
            .collect()
    };
    let ctx = egui::Context::default();
    let out = frame(&ctx, &mut state, None);
    assert!(joints(&out).is_empty(), "off by default");
    state.anim_view.skeleton = true;
    let out = frame(&ctx, &mut state, None);
    let posed = joints(&out);
    let (skeleton, _) = state.anim_view.posed_skeleton(&state.session).unwrap();
    let names: Vec<String> = skeleton.bones().iter().map(|b| b.name.clone()).collect();
    assert_eq!(posed.len(), names.len());
    // Pointing near a joint names its bone.
    let (i, at) = posed
        .iter()
        .enumerate()
        .max_by(|a, b| a.1.y.total_cmp(&b.1.y))
        .map(|(i, p)| (i, *p))
        .unwrap();
    let out = frame(&ctx, &mut state, Some(at + egui::vec2(3.0, 2.0)));
    assert!(drew_text(&out, &names[i]), "{} not named", names[i]);
    // The bind pose moves the joints.
    state.anim_view.bind_pose = true;
    let out = frame(&ctx, &mut state, None);
    assert_ne!(joints(&out), posed);
}
