//! The layout holds still (messages, the animation choice), the material panel holds a
//! whole TEV stage, and the file browser lists and follows what the viewer opens.

#![allow(clippy::unwrap_used)]

use super::tests::{demo_spec, drew_text, frame_on};
use crate::ui::state::{AppState, Layout};

/// `frames` frames of the whole UI at `w` × `h` points on `ctx` (panel widths live in
/// the context, so frames on one context continue one window).
fn frames_on(
    ctx: &egui::Context,
    state: &mut AppState,
    size: (f32, f32),
    frames: usize,
) -> egui::FullOutput {
    frames_with(ctx, state, size, Vec::new(), frames)
}

/// [`frames_on`] with `events` in the first frame.
fn frames_with(
    ctx: &egui::Context,
    state: &mut AppState,
    (w, h): (f32, f32),
    events: Vec<egui::Event>,
    frames: usize,
) -> egui::FullOutput {
    let mut events = Some(events);
    let mut last = None;
    for _ in 0..frames {
        let events = events.take().unwrap_or_default();
        last = Some(frame_on(ctx, state, egui::vec2(w, h), events));
    }
    last.unwrap()
}

/// Where the first text drawn that starts with `start` is (None: not drawn).
fn text_rect(out: &egui::FullOutput, start: &str) -> Option<egui::Rect> {
    fn walk(shape: &egui::Shape, start: &str) -> Option<egui::Rect> {
        match shape {
            egui::Shape::Text(t) if t.galley.text().starts_with(start) => {
                Some(t.visual_bounding_rect())
            }
            egui::Shape::Vec(v) => v.iter().find_map(|s| walk(s, start)),
            _ => None,
        }
    }
    out.shapes.iter().find_map(|c| walk(&c.shape, start))
}

fn opened(spec: &str) -> AppState {
    let mut state = AppState::new(std::env::temp_dir());
    state.open(spec);
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    state.central.texture = Some((egui::TextureId::User(1), [320, 200]));
    state
}

/// A file loading, errors and a notice show in the status bar's one line: no panel, bar
/// or view moves (they used to insert rows under the top bar).
#[test]
fn messages_never_move_the_layout() {
    let mut state = opened(&demo_spec("showcase"));
    for size in [(1366.0, 768.0), (1000.0, 700.0)] {
        let ctx = egui::Context::default();
        frames_on(&ctx, &mut state, size, 3);
        let quiet: Layout = state.layout;
        state.messages.notice = Some("Saved a notice".into());
        state.messages.load_error = Some("an error\nover two lines".into());
        state.messages.edit_error = Some("an edit refused".into());
        state.start_open(&demo_spec("worm_character"));
        assert!(state.loader.loading.is_some());
        let out = frames_on(&ctx, &mut state, size, 2);
        assert_eq!(state.layout, quiet, "{size:?}");
        assert!(drew_text(&out, "Opening ") && drew_text(&out, "an error over two lines"));
        let messages = super::messages(&state.loader, &state.messages);
        assert_eq!(messages.len(), 4, "{messages:?}");
        state.messages.notice = None;
        state.messages.load_error = None;
        state.messages.edit_error = None;
        state.loader.loading = None;
        frames_on(&ctx, &mut state, size, 2);
        assert_eq!(state.layout, quiet, "{size:?}: back");
    }
}

/// Choosing another animation (a longer name, the bind pose) moves nothing in the timeline.
#[test]
fn choosing_an_animation_moves_nothing() {
    let mut state = opened(&demo_spec("worm_character"));
    let count = state.model().unwrap().1.len();
    assert!(count >= 1);
    let ctx = egui::Context::default();
    let mut seen = Vec::new();
    let choices = (0..count).map(Some).chain([None]);
    for choice in choices {
        state.session.clock.animation = choice;
        let out = frames_on(&ctx, &mut state, (1366.0, 768.0), 2);
        let speed = text_rect(&out, "speed ×").expect("the speed control");
        let once = text_rect(&out, "once").expect("the loop/once switch");
        seen.push((choice, speed, once, state.layout));
    }
    let (_, speed, once, layout) = seen[0];
    for (choice, s, o, l) in &seen {
        assert_eq!((s.min, o.min), (speed.min, once.min), "{choice:?}");
        assert_eq!(*l, layout, "{choice:?}");
    }
}

/// At 1366×768 and 1600×1000 the material panel holds a whole TEV stage (every input,
/// op, bias, scale, clamp and output) at its default width and dragged to its narrowest;
/// hiding the browser lets the panel take the width freed.
#[test]
fn the_material_panel_holds_a_whole_tev_stage() {
    let mut state = opened(&demo_spec("showcase"));
    for size in [(1366.0, 768.0), (1600.0, 1000.0)] {
        for narrowest in [false, true] {
            state.prefs.right_panel_width =
                narrowest.then_some(super::SidePanels::for_width(size.0).right_min);
            let ctx = egui::Context::default();
            frames_on(&ctx, &mut state, size, 3);
            let right = state.layout.right.unwrap();
            let stage = state.layout.stage.expect("an open stage");
            assert!(
                stage.min.x >= right.min.x && stage.max.x <= right.max.x,
                "{size:?} narrowest {narrowest}: the stage {stage:?} in the panel {right:?}"
            );
        }
    }
    // A remembered wide material panel: capped by the browser beside it, not by a fixed
    // share of the window.
    let p = super::SidePanels::for_width(1600.0);
    assert_eq!(p.right_max_beside(0.0), 640.0);
    assert!(p.right_max_beside(p.left_max) <= 640.0 - p.left_max);
    state.prefs.right_panel_width = Some(600.0);
    state.panels.browser = false;
    let ctx = egui::Context::default();
    frames_on(&ctx, &mut state, (1600.0, 1000.0), 3);
    let right = state.layout.right.unwrap();
    assert!(
        (right.width() - 600.0).abs() < 2.0,
        "{} wide with the browser hidden",
        right.width()
    );
    state.panels.browser = true;
    let ctx = egui::Context::default();
    frames_on(&ctx, &mut state, (1600.0, 1000.0), 3);
    let (left, right) = (state.layout.left.unwrap(), state.layout.right.unwrap());
    assert!(
        left.width() + right.width() <= 0.4 * 1600.0 + 1.0,
        "{} + {}",
        left.width(),
        right.width()
    );
}

/// What the Open field opens, the browser shows: its folder, its PAK expanded and its row
/// selected; rooms in the PAK are listed and open; a folder typed there is browsed.
#[test]
fn the_browser_follows_what_is_opened_and_lists_rooms() {
    let mut state = opened(&demo_spec("showcase"));
    let pak = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/demo.pak")
        .canonicalize()
        .unwrap();
    assert_eq!(state.browser.dir, pak.parent().unwrap());
    let Some(Ok(rows)) = state.browser.paks.get(&pak) else {
        panic!("the PAK is expanded: {:?}", state.browser.paks.keys());
    };
    let selected = state.browser.selected.clone().unwrap();
    let row = rows.iter().find(|r| r.spec == selected).expect("its row");
    assert_eq!(row.name.as_deref(), Some("showcase"));
    let room = rows
        .iter()
        .find(|r| r.fourcc == "MREA")
        .expect("a room row")
        .spec
        .clone();
    let out = frames_on(&egui::Context::default(), &mut state, (1366.0, 768.0), 2);
    assert!(drew_text(&out, "MREA 0x"), "rooms are listed");
    state.open(&room);
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    assert!(state.session.asset().unwrap().is_room());
    assert_eq!(state.browser.selected.as_deref(), Some(room.as_str()));

    // A folder (even one named like a model) typed in the Open field is browsed.
    let folder = std::env::temp_dir().join(format!("tevscope-x-{}.CMDL", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    state.open(folder.to_str().unwrap());
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    assert_eq!(state.browser.dir, folder.canonicalize().unwrap());
    assert!(
        state
            .messages
            .notice
            .as_deref()
            .unwrap()
            .contains("is a folder")
    );
    // The room stays open.
    assert!(state.session.asset().unwrap().is_room());
    let _ = std::fs::remove_dir_all(&folder);
}

/// A click at `pos` (move, press, release).
fn click(pos: egui::Pos2) -> Vec<egui::Event> {
    let button = |pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    vec![egui::Event::PointerMoved(pos), button(true), button(false)]
}

/// Typing `text` and Enter.
fn type_enter(text: &str) -> Vec<egui::Event> {
    vec![
        egui::Event::Text(text.into()),
        egui::Event::Key {
            key: egui::Key::Enter,
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers: egui::Modifiers::NONE,
        },
    ]
}

/// The browser's path field, as a user types in it: a folder (relative to the one shown)
/// is browsed, a file is opened, a missing one is an error in the browser.
#[test]
fn the_path_field_browses_a_typed_folder_and_opens_a_typed_file() {
    let d = std::env::temp_dir().join(format!("tevscope-pathfield-{}", std::process::id()));
    std::fs::create_dir_all(d.join("sub")).unwrap();
    let model = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.pak");
    let mut state = AppState::new(d.clone());
    let ctx = egui::Context::default();
    let size = (1366.0, 768.0);
    let enter = |state: &mut AppState, text: &str| {
        // The field shows the folder: click it, select all, type, Enter.
        let out = frames_on(&ctx, state, size, 2);
        let shown = state.browser.dir.display().to_string();
        let field = text_rect(&out, &shown)
            .unwrap_or_else(|| panic!("the path field showing {shown}, to type {text:?}"));
        frames_with(&ctx, state, size, click(field.center()), 1);
        let select_all = egui::Event::Key {
            key: egui::Key::A,
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers: egui::Modifiers::COMMAND,
        };
        let mut events = vec![select_all];
        events.extend(type_enter(text));
        frames_with(&ctx, state, size, events, 1);
    };
    enter(&mut state, "sub");
    assert_eq!(state.browser.dir, d.join("sub").canonicalize().unwrap());
    assert_eq!(state.requests.open, None);
    let pak = model.display().to_string();
    enter(&mut state, &pak);
    assert_eq!(state.requests.open.as_deref(), Some(pak.as_str()));
    enter(&mut state, "missing.CMDL");
    let e = state.browser.error.clone().unwrap_or_default();
    assert!(e.contains("no such file"), "{e}");
    let _ = std::fs::remove_dir_all(&d);
}
