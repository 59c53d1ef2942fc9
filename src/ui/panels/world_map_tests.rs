//! The world overview (open it from the tree's data, hover and click a room) and a room
//! pick naming its world model.

#![allow(clippy::unwrap_used)]

use super::show;
use super::tests::{demo_spec, drew_text};
use crate::ui::state::{AppState, ModelPick, RightTab};

fn frame(ctx: &egui::Context, state: &mut AppState, events: Vec<egui::Event>) -> egui::FullOutput {
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1600.0, 900.0),
        )),
        events,
        ..Default::default()
    };
    let mut out = ctx.run_ui(input, |ui| show(ui, state));
    out.textures_delta.clear();
    out
}

#[test]
fn the_overview_places_the_demo_rooms_and_a_click_opens_one() {
    let mut state = AppState::new(std::env::temp_dir());
    state.worlds.show_overview(0);
    let ctx = egui::Context::default();
    let out = frame(&ctx, &mut state, Vec::new());
    assert!(drew_text(&out, "Demo World — overview, 2 rooms"));
    // The demo room's name fits inside its 8 x 6 footprint.
    assert!(drew_text(&out, "Demo Room"));
    let rect = state.layout.view.unwrap();
    let view = state.worlds.overview.unwrap().view.unwrap();
    // The light set's centre (0, 6), on the screen.
    let at = view.to_screen(rect, egui::pos2(0.0, 6.0));
    assert!(rect.contains(at), "{at:?} outside {rect:?}");
    let mut events = vec![egui::Event::PointerMoved(at)];
    frame(&ctx, &mut state, events.clone());
    let out = frame(&ctx, &mut state, Vec::new());
    assert!(drew_text(&out, "click to open"), "no hover tooltip");
    for pressed in [true, false] {
        events.push(egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
    }
    frame(&ctx, &mut state, events);
    let spec = state
        .requests
        .open
        .take()
        .expect("the click opens the room");
    assert!(spec.ends_with(":0xDE070001.MREA"), "{spec}");
    // The room opens in the overview's place.
    state.open(&spec);
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    assert!(state.worlds.overview.is_none());
}

#[test]
fn a_pick_in_the_demo_room_names_its_world_model() {
    let mut state = AppState::new(std::env::temp_dir());
    state.open(&demo_spec("room"));
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    let parts = state.session.asset().unwrap().world_models.clone();
    assert_eq!(parts.len(), 5);
    let part = &parts[2];
    let surface = part.surfaces.start + part.surfaces.len() - 1;
    assert_eq!(
        crate::load::area::world_model_of(&parts, surface),
        Some((part.index, part.surfaces.len() - 1))
    );
    assert_eq!(
        crate::load::area::world_model_of(&parts, parts[4].surfaces.end),
        None
    );
    state.picking.pick = Some(ModelPick {
        x: 10,
        y: 10,
        set: 0,
        hit: Some(crate::render::PickHit {
            surface,
            material: 0,
            depth: 0.5,
        }),
        rgba: [1, 2, 3, 255],
        camera: state.session.camera.orbit,
    });
    state.tab = RightTab::Inspector;
    state.central.texture = Some((egui::TextureId::User(1), [640, 400]));
    let ctx = egui::Context::default();
    let out = frame(&ctx, &mut state, Vec::new());
    let words = format!("{} (its surface {})", part.index, part.surfaces.len() - 1);
    assert!(drew_text(&out, &words), "the inspector shows no {words:?}");
    assert!(
        drew_text(&out, &format!("world model {} · its surface", part.index)),
        "the view's pick label names no world model"
    );
}
