//! The panels drawn headless from [`AppState`], and the editor driven through it.

#![allow(clippy::unwrap_used)]

use super::show;
use crate::session::LightChoice;
use crate::ui::history::{Answer, Pending};
use crate::ui::state::{AppState, Requests, RightTab, ViewMode};

pub(super) fn run_frame(state: &mut AppState) -> egui::FullOutput {
    let ctx = egui::Context::default();
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(
            egui::Pos2::ZERO,
            egui::vec2(1600.0, 900.0),
        )),
        ..Default::default()
    };
    let mut out = ctx.run_ui(input, |ui| show(ui, state));
    out.textures_delta.clear();
    out
}

pub(super) fn demo_spec(name: &str) -> String {
    let pak = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.pak");
    format!("{}:{name}", pak.display())
}

#[test]
fn a_character_opens_in_the_model_view_playing_its_first_clip() {
    let mut state = AppState::new(std::env::temp_dir());
    state.open(&demo_spec("worm_character"));
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    assert!(state.shows_model());
    // A character is shown read-only, with the reason.
    assert!(state.session.document().is_none());
    assert!(
        state
            .session
            .read_only_note()
            .is_some_and(|n| n.starts_with("Read-only"))
    );
    assert_eq!(state.session.clock.animation, Some(0));
    assert!(state.session.clock.playing && state.animating());
    let duration = f64::from(crate::ui::animation::animation_duration(&state.session).unwrap());
    assert!(duration > 0.0);
    // The clock loops over the clip.
    state.tick(duration * 0.75);
    state.tick(duration * 0.5);
    assert!((state.session.clock.time - duration * 0.25).abs() < 1e-9);
    // The MREA of the same PAK is offered, and choosing it loads its lights.
    let doc = state.session.asset().unwrap();
    let (label, spec) = doc.areas.first().cloned().expect("demo.pak:lights");
    state.set_lights(LightChoice::area(label, spec, 0));
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    assert_eq!(state.session.lights.revision, 1);
    assert_ne!(
        state.session.lights.set,
        crate::gx::lights::LightPreset::Basic.light_set()
    );
    // Frame model puts the camera back on the model's box.
    let framed = state.session.camera.orbit;
    state.session.camera.orbit.pan(100.0, 50.0, 500.0);
    state.session.camera.orbit.zoom(300.0);
    assert_ne!(state.session.camera.orbit, framed);
    state.frame_model();
    assert_eq!(state.session.camera.orbit, framed);
    state.central.texture = Some((egui::TextureId::User(1), [320, 200]));
    for tab in [RightTab::Material, RightTab::Wgsl, RightTab::Inspector] {
        state.tab = tab;
        run_frame(&mut state);
    }
    // Switching to the material quad is a view reload and leaves the model view.
    state.requests = Requests::default();
    state.view.mode = ViewMode::MaterialQuad;
    assert!(!state.shows_model());
    run_frame(&mut state);
}

/// The References name one file's parts: they are used when it opens (a character's model
/// and skin given explicitly) and when it is reopened, and cleared when another file opens —
/// a room opened after a character with a chosen skin opens, not "an area has no skin".
#[test]
fn references_apply_to_their_file_and_clear_when_another_opens() {
    let base = std::env::temp_dir().join(format!("tevscope-refs-{}", std::process::id()));
    let textures = base.join("textures");
    std::fs::create_dir_all(&textures).unwrap();
    let mut state = AppState::new(std::env::temp_dir());
    state.opening.references.texture_dir = textures.display().to_string();
    state.opening.references.model = demo_spec("worm");
    state.opening.references.skin = demo_spec("worm_skin");
    state.open(&demo_spec("worm_character"));
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    let sources = state.session.asset().unwrap().sources.join("\n");
    for part in ["model: ", "skin: "] {
        assert!(
            sources
                .lines()
                .any(|l| l.starts_with(part) && l.ends_with("(chosen explicitly)")),
            "{part}{sources}"
        );
    }
    // Reopening the same file keeps them.
    state.open(&demo_spec("worm_character"));
    assert_eq!(state.opening.references.model, demo_spec("worm"));
    state.opening.references.anim = "0".into();
    state.opening.references.skeleton = demo_spec("worm_skeleton");
    // Another file clears every part (the texture folder, a place to search, stays).
    state.open(&demo_spec("room"));
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    assert!(state.session.asset().unwrap().is_room());
    let cleared = crate::session::References {
        texture_dir: textures.display().to_string(),
        ..Default::default()
    };
    assert_eq!(state.opening.references, cleared);
    // A character whose model is ambiguous fails naming the field, and "Reopen with these"
    // opens it (not the room still shown) with the model chosen there.
    let Some(c) = crate::testing::conformance_dir() else {
        std::fs::remove_dir_all(&base).ok();
        return;
    };
    let dir = base.join("cube");
    std::fs::create_dir_all(&dir).unwrap();
    for (from, to) in [
        ("mp1_cube.ANCS", "cube.ANCS"),
        ("mp1_cube_skinned.CMDL", "cube_a.CMDL"),
        ("mp1_cube_skinned.CMDL", "cube_b.CMDL"),
        ("mp1_cube.CSKR", "cube.CSKR"),
        ("mp1_skeleton.CINF", "cube.CINF"),
    ] {
        std::fs::copy(c.join(from), dir.join(to)).unwrap();
    }
    let ancs = dir.join("cube.ANCS").display().to_string();
    state.open(&ancs);
    let error = state
        .messages
        .load_error
        .clone()
        .expect("two CMDLs: no guess");
    assert!(error.contains("References → Model"), "{error}");
    assert!(!error.contains("--model"), "{error}");
    assert!(state.session.asset().unwrap().is_room());
    assert_eq!(
        state.opening.references_spec.as_deref(),
        Some(ancs.as_str())
    );
    state.opening.references.model = dir.join("cube_b.CMDL").display().to_string();
    state.open(&ancs);
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    let sources = state.session.asset().unwrap().sources.join("\n");
    assert!(
        sources.contains("cube_b.CMDL (chosen explicitly)"),
        "{sources}"
    );
    std::fs::remove_dir_all(&base).ok();
}

#[test]
fn empty_state_draws_a_frame() {
    let mut state = AppState::new(std::env::temp_dir());
    let out = run_frame(&mut state);
    assert!(!out.shapes.is_empty());
    assert_eq!(state.requests.open, None);
    assert!(state.requests.viewport_size.is_some());
}

#[test]
fn opening_a_whole_pak_expands_it_and_opens_its_model() {
    let Some(dir) = crate::testing::conformance_dir() else {
        return;
    };
    let mut state = AppState::new(std::env::temp_dir());
    state.open(dir.join("tev_cases.pak").to_str().unwrap());
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    let doc = state.session.asset().unwrap();
    assert!(doc.spec.ends_with(".CMDL"), "{}", doc.spec);
    assert!(state.selected.edit.is_some());
    assert_eq!(state.browser.paks.len(), 1);
    run_frame(&mut state);
}

#[test]
fn open_error_is_shown_not_fatal() {
    let mut state = AppState::new(std::env::temp_dir());
    state.open("/nonexistent/model.CMDL");
    assert!(state.messages.load_error.is_some());
    run_frame(&mut state);
}

#[test]
fn every_tab_of_the_tev_cases_model_draws() {
    let Some(dir) = crate::testing::conformance_dir() else {
        return;
    };
    let mut state = AppState::new(dir.clone());
    state.open(dir.join("0x7EC00000.CMDL").to_str().unwrap());
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    assert!(state.requests.reload_view);
    assert!(state.selected.edit.is_some());
    state.central.texture = Some((egui::TextureId::User(1), [256, 256]));
    for tab in [RightTab::Material, RightTab::Wgsl, RightTab::Inspector] {
        state.tab = tab;
        run_frame(&mut state);
    }
    // The WGSL tab generated the specialized shader of the selected material.
    let src = state.wgsl_panel().source().unwrap().to_string();
    assert!(src.contains("fn"), "{src}");
    // Walk all 48 materials through the material tab.
    state.tab = RightTab::Material;
    for i in 0..48 {
        state.select_material(0, i);
        let before = state.selected.edit.as_ref().unwrap().program.clone();
        run_frame(&mut state);
        run_frame(&mut state);
        let edit = state.selected.edit.as_ref().unwrap();
        // Drawing the editor must not change anything by itself.
        assert_eq!(edit.program, before, "material {i}");
        assert_eq!(edit.revision, 0, "material {i}");
        assert!(!state.is_dirty(), "material {i}: drawing recorded an edit");
    }
    // The inspector with a report.
    let edit = state.selected.edit.as_ref().unwrap();
    let textures = state.current_textures();
    state.selected.report = Some(crate::ui::edit::trace_quad_pixel(
        &edit.material,
        &edit.program,
        &textures,
        &crate::gx::wgsl::vertex::DrawUniforms::default(),
        256,
        256,
        10,
        20,
    ));
    state.tab = RightTab::Inspector;
    run_frame(&mut state);
}

/// A copy of the TEV cases model in a fresh folder (saving must not touch the fixture).
fn scratch_model(name: &str) -> Option<(std::path::PathBuf, String)> {
    let dir = crate::testing::conformance_dir()?;
    let scratch = std::env::temp_dir().join(format!("tevscope-ui-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let n = entry.file_name().to_string_lossy().into_owned();
        if n.starts_with("0x7EC0000") && !n.ends_with(".json") {
            std::fs::copy(entry.path(), scratch.join(&n)).unwrap();
        }
    }
    let spec = scratch.join("0x7EC00000.CMDL").display().to_string();
    Some((scratch, spec))
}

/// Whether any text drawn this frame contains `needle`.
pub(super) fn drew_text(out: &egui::FullOutput, needle: &str) -> bool {
    fn walk(shape: &egui::Shape, needle: &str) -> bool {
        match shape {
            egui::Shape::Text(t) => t.galley.text().contains(needle),
            egui::Shape::Vec(v) => v.iter().any(|s| walk(s, needle)),
            _ => false,
        }
    }
    out.shapes.iter().any(|c| walk(&c.shape, needle))
}

/// Konst K0 of the selected material set to `rgba` through the editor.
fn set_konst0(state: &mut AppState, rgba: [u8; 4], label: &str) {
    let mut m = state.file_material().unwrap().clone();
    let mut k = m.konst_colors.clone().unwrap_or_default();
    if k.is_empty() {
        k.push(0);
    }
    k[0] = u32::from_be_bytes(rgba);
    m.konst_colors = Some(k);
    state.apply_material(m, label);
}

#[test]
fn edits_go_through_the_document_with_undo_redo_and_a_dirty_title() {
    let Some((scratch, spec)) = scratch_model("undo") else {
        return;
    };
    let mut state = AppState::new(scratch.clone());
    state.open(&spec);
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    assert!(state.session.document().is_some() && !state.is_dirty());
    assert!(!state.title().starts_with('●'));
    let original = state.selected.edit.as_ref().unwrap().program.clone();
    let revision = state.session.revision();

    set_konst0(&mut state, [1, 2, 3, 4], "K0 colour");
    assert!(
        state.messages.edit_error.is_none(),
        "{:?}",
        state.messages.edit_error
    );
    assert!(state.is_dirty());
    assert!(state.title().starts_with('●'), "{}", state.title());
    assert!(state.session.revision() > revision);
    // The document, the viewer's material and the preview program all changed.
    let k0 = state.session.document().unwrap().material_sets()[0].materials[0].konst_rgba()[0];
    assert_eq!(k0, [1, 2, 3, 4]);
    assert_eq!(
        state.selected.edit.as_ref().unwrap().program.konst[0],
        [1, 2, 3, 4]
    );
    let doc = state.session.asset().unwrap();
    assert_eq!(doc.material(0, 0).unwrap().material.konst[0], [1, 2, 3, 4]);

    // A structural edit: one more stage.
    let mut m = state.file_material().unwrap().clone();
    let stages = m.tev_stages.len();
    m.tev_stages.push(m.tev_stages[0]);
    state.apply_material(m, "add stage");
    assert_eq!(
        state.selected.edit.as_ref().unwrap().material.stages.len(),
        stages + 1
    );
    let history: Vec<_> = state
        .session
        .document()
        .unwrap()
        .history()
        .map(str::to_owned)
        .collect();
    assert_eq!(history, ["material 0: K0 colour", "material 0: add stage"]);

    assert!(state.undo() && state.undo());
    assert_eq!(state.selected.edit.as_ref().unwrap().program, original);
    assert!(!state.is_dirty());
    assert!(state.redo());
    assert_eq!(
        state.selected.edit.as_ref().unwrap().program.konst[0],
        [1, 2, 3, 4]
    );
    assert!(state.redo() && !state.redo());
    assert_eq!(
        state.selected.edit.as_ref().unwrap().material.stages.len(),
        stages + 1
    );

    // A limit is refused with a message and changes nothing.
    let mut m = state.file_material().unwrap().clone();
    m.tev_stages = vec![m.tev_stages[0]; 17];
    state.apply_material(m, "too many stages");
    assert!(state.messages.edit_error.is_some());
    assert_eq!(state.session.document().unwrap().history().count(), 2);

    // Every tab draws with the history.
    state.central.texture = Some((egui::TextureId::User(1), [256, 256]));
    for tab in [RightTab::Material, RightTab::History] {
        state.tab = tab;
        let out = run_frame(&mut state);
        if tab == RightTab::History {
            assert!(drew_text(&out, "add stage"));
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn save_and_reopen_gives_the_edited_material() {
    let Some((scratch, spec)) = scratch_model("save") else {
        return;
    };
    let mut state = AppState::new(scratch.clone());
    state.open(&spec);
    state.select_material(0, 3);
    let mut m = state.file_material().unwrap().clone();
    m.uv_animations
        .push(crate::formats::material::UvAnimationWords {
            mode: 3,
            params: vec![0.5f32.to_bits(), 2.0f32.to_bits()],
        });
    m.texgens.push(m.texgens.first().copied().unwrap_or(0x3C1));
    state.apply_material(m, "rotate");
    assert!(
        state.messages.edit_error.is_none(),
        "{:?}",
        state.messages.edit_error
    );
    let edited = state.file_material().unwrap().clone();
    assert_eq!(edited.uv_animation_count, edited.uv_animations.len() as u32);

    let out = scratch.join("edited.CMDL");
    assert!(state.save_as(&out));
    assert!(!state.is_dirty());
    assert_eq!(state.session.document().unwrap().origin().path(), out);
    // The original is untouched; the new file reopens with the edit.
    let before = crate::edit::Document::open(&spec).unwrap();
    assert_ne!(before.material_sets()[0].materials[3], edited);
    let mut reopened = AppState::new(scratch.clone());
    reopened.open(out.to_str().unwrap());
    assert!(
        reopened.messages.load_error.is_none(),
        "{:?}",
        reopened.messages.load_error
    );
    reopened.select_material(0, 3);
    assert_eq!(reopened.file_material(), Some(&edited));
    assert_eq!(
        reopened.selected.edit.as_ref().unwrap().material,
        state.selected.edit.as_ref().unwrap().material
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn unsaved_edits_prompt_before_opening_another_file_or_closing() {
    let Some((scratch, spec)) = scratch_model("prompt") else {
        return;
    };
    let mut state = AppState::new(scratch.clone());
    state.open(&spec);
    // Clean: opening goes ahead.
    state.request_open("other.CMDL");
    assert_eq!(state.requests.open.as_deref(), Some("other.CMDL"));
    state.requests = Requests::default();

    set_konst0(&mut state, [9, 9, 9, 9], "K0 colour");
    state.request_open("other.CMDL");
    assert_eq!(state.requests.open, None);
    assert_eq!(
        state.loader.pending,
        Some(Pending::Open("other.CMDL".into()))
    );
    let out = run_frame(&mut state);
    assert!(drew_text(&out, "edits that are not saved"));
    assert!(drew_text(&out, "Discard edits"));
    state.answer_pending(Answer::Cancel);
    assert_eq!(
        (state.loader.pending.clone(), state.requests.open.clone()),
        (None, None)
    );
    assert!(!drew_text(
        &run_frame(&mut state),
        "edits that are not saved"
    ));

    state.request_open("other.CMDL");
    state.answer_pending(Answer::Discard);
    assert_eq!(state.requests.open.as_deref(), Some("other.CMDL"));
    assert!(
        state.is_dirty(),
        "discarding only happens when the other file opens"
    );

    // Closing: Save writes the file and then closes.
    state.requests = Requests::default();
    assert!(!state.request_close());
    assert_eq!(state.loader.pending, Some(Pending::Close));
    state.answer_pending(Answer::Save);
    assert!(state.requests.exit && !state.is_dirty());
    let saved = crate::edit::Document::open(&spec).unwrap();
    assert_eq!(
        saved.material_sets()[0].materials[0].konst_rgba()[0],
        [9; 4]
    );
    assert!(state.request_close());
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn files_open_on_a_worker_thread() {
    let Some((scratch, spec)) = scratch_model("worker") else {
        return;
    };
    let mut state = AppState::new(scratch.clone());
    state.start_open(&spec);
    assert!(state.loader.loading.is_some());
    // The progress line shows while it loads.
    if state.loader.loading.is_some() {
        run_frame(&mut state);
    }
    let started = std::time::Instant::now();
    while !state.poll_loading() {
        assert!(
            started.elapsed().as_secs() < 60,
            "the worker never finished"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(state.loader.loading.is_none());
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    assert!(state.session.document().is_some() && state.selected.edit.is_some());
    let _ = std::fs::remove_dir_all(&scratch);
}

/// Frames of the whole UI at `w` × `h` points on one context (panel widths settle over
/// the first frames), with the material tab showing; returns the last output.
fn run_frames_at(state: &mut AppState, w: f32, h: f32, frames: usize) -> egui::FullOutput {
    let ctx = egui::Context::default();
    let mut last = None;
    for _ in 0..frames {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(w, h),
            )),
            ..Default::default()
        };
        let mut out = ctx.run_ui(input, |ui| show(ui, state));
        out.textures_delta.clear();
        last = Some(out);
    }
    last.unwrap()
}

/// The four window sizes the layout is checked at.
const SIZES: [(f32, f32); 4] = [
    (1000.0, 700.0),
    (1366.0, 768.0),
    (1920.0, 1080.0),
    (2560.0, 1440.0),
];

#[test]
fn side_panel_limits_leave_the_view_sixty_percent() {
    for (w, _) in SIZES {
        let p = super::SidePanels::for_width(w);
        assert!(
            p.left_min <= p.left_default && p.left_default <= p.left_max,
            "{w}: {p:?}"
        );
        assert!(
            p.right_min <= p.right_default && p.right_default <= p.right_max,
            "{w}: {p:?}"
        );
        assert!(p.left_max + p.right_max <= w * 0.4 + 0.01, "{w}: {p:?}");
        assert!(p.right_min >= 200.0, "{w}: the editor stays usable: {p:?}");
    }
    // Tiny windows: the minimums give way to the 40 % rule.
    let p = super::SidePanels::for_width(500.0);
    assert!(p.left_max + p.right_max <= 200.01 && p.right_min <= p.right_max);
}

#[test]
fn the_view_keeps_sixty_percent_of_the_window_with_every_tab() {
    let mut state = AppState::new(std::env::temp_dir());
    state.open(&demo_spec("showcase"));
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    for tab in [
        RightTab::Material,
        RightTab::Wgsl,
        RightTab::Inspector,
        RightTab::History,
    ] {
        state.tab = tab;
        state.windows.log = true;
        for (w, h) in SIZES {
            run_frames_at(&mut state, w, h, 3);
            let (vw, vh) = state.requests.viewport_size.expect("viewport size asked");
            // The central panel is the view plus its 16-point margin.
            assert!(
                vw as f32 + 16.0 >= 0.6 * w,
                "{tab:?} at {w}x{h}: view {vw}x{vh}"
            );
            assert!(vh as f32 >= 0.3 * h, "{tab:?} at {w}x{h}: view {vw}x{vh}");
        }
    }
}

#[test]
fn the_material_list_names_index_stages_blend_and_textures() {
    let mut state = AppState::new(std::env::temp_dir());
    state.open(&demo_spec("showcase"));
    let doc = state.session.asset().unwrap();
    let crate::session::Content::Model { sets, .. } = &doc.content else {
        panic!("a model");
    };
    let rows: Vec<String> = sets[0]
        .materials
        .iter()
        .enumerate()
        .map(|(i, m)| super::material::material_row(i, m, |id| doc.texture(id).is_some()))
        .collect();
    let entry = sets[0].materials[3].as_ref().unwrap().clone();
    let row = &rows[3];
    assert!(row.starts_with("  3 · "), "{row}");
    assert!(
        row.contains(&format!("{} stage", entry.material.stages.len())),
        "{row}"
    );
    for id in entry.texture_ids.iter().flatten() {
        assert!(row.contains(&format!("0x{id:08X}")), "{row}");
    }
    assert!(rows.iter().any(|r| r.contains("opaque")), "{rows:?}");
    assert!(rows.iter().any(|r| r.contains("BLEND ")), "{rows:?}");
    // The list is drawn with those rows.
    state.tab = RightTab::Material;
    let out = run_frames_at(&mut state, 1920.0, 1080.0, 2);
    assert!(drew_text(&out, &rows[3]));
    // A missing texture is marked in its row.
    if !entry.texture_ids.is_empty() {
        assert!(
            super::material::material_row(3, &Ok(entry.clone()), |_| false).contains("(missing)")
        );
    }
    assert!(super::material::material_row(7, &Err("bad".into()), |_| true).contains("error: bad"));
}

#[test]
fn selection_hover_and_warnings_in_the_state() {
    let mut state = AppState::new(std::env::temp_dir());
    state.open(&demo_spec("showcase"));
    // Opening shows material 0 in the editor but tints nothing until the user selects.
    assert!(state.selected.edit.is_some() && state.prefs.tint_selection);
    assert_eq!(state.highlighted_material(), None);
    state.select_material(0, 4);
    assert_eq!(state.highlighted_material(), Some(4));
    state.picking.hovered_material = Some(9);
    assert_eq!(state.highlighted_material(), Some(9));
    state.picking.hovered_material = None;
    state.prefs.tint_selection = false;
    assert_eq!(state.highlighted_material(), None);
    // Warnings: the document's and the view's, each once; the status bar counts them.
    state.view_status.warnings = vec!["one".into(), "two".into(), "one".into()];
    let before = state.session.asset().unwrap().warnings.len();
    assert_eq!(state.warnings().len(), before + 2);
    let out = run_frames_at(&mut state, 1366.0, 768.0, 2);
    assert!(drew_text(&out, &format!("{} warnings", before + 2)));
    state.windows.log = true;
    let out = run_frames_at(&mut state, 1366.0, 768.0, 2);
    assert!(drew_text(&out, "two"));
}

#[test]
fn a_new_view_size_reframes_an_untouched_camera_only() {
    let mut state = AppState::new(std::env::temp_dir());
    state.open(&demo_spec("showcase"));
    state.central.texture = Some((egui::TextureId::default(), [800, 600]));
    state.frame_model();
    let wide = state.session.camera.orbit;
    state.central.texture = Some((egui::TextureId::default(), [300, 600]));
    state.keep_framed([300, 600]);
    let narrow = state.session.camera.orbit;
    assert!(
        narrow.distance > wide.distance,
        "a narrow view moves the camera back"
    );
    // Once the user moves the camera, resizing keeps it.
    state.session.camera.orbit.orbit(30.0, 0.0);
    let moved = state.session.camera.orbit;
    state.central.texture = Some((egui::TextureId::default(), [800, 600]));
    state.keep_framed([800, 600]);
    assert_eq!(state.session.camera.orbit, moved);
}

#[test]
fn a_missing_texture_slot_names_the_id_and_where_it_was_looked_for() {
    let Some(dir) = crate::testing::conformance_dir() else {
        return;
    };
    // The TEV-cases CMDL alone in a folder: none of its TXTRs can be found.
    let lone = std::env::temp_dir().join(format!("tevscope-lone-{}", std::process::id()));
    std::fs::create_dir_all(&lone).unwrap();
    let cmdl = lone.join("0x7EC00000.CMDL");
    std::fs::copy(dir.join("0x7EC00000.CMDL"), &cmdl).unwrap();
    let mut state = AppState::new(std::env::temp_dir());
    state.open(cmdl.to_str().unwrap());
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    state.select_material(0, 0);
    state.tab = RightTab::Material;
    let entry = state
        .session
        .asset()
        .unwrap()
        .material(0, 0)
        .unwrap()
        .clone();
    let id = entry.texture_ids[0].unwrap();
    // (The texture strip shows under a drawn view.)
    state.central.texture = Some((egui::TextureId::default(), [800, 600]));
    let out = run_frames_at(&mut state, 1920.0, 1080.0, 2);
    std::fs::remove_dir_all(&lone).ok();
    let place = lone.display().to_string();
    assert!(drew_text(
        &out,
        &format!("TXTR 0x{id:08X} not found in {place}")
    ));
    assert!(drew_text(&out, &format!("map 0 0x{id:08X} missing")));
    assert!(drew_text(&out, "warnings"));
}

/// Frames on one context; `events` go into the first.
fn run_frames_with(
    state: &mut AppState,
    events: Vec<egui::Event>,
    frames: usize,
) -> egui::FullOutput {
    let ctx = egui::Context::default();
    let mut events = Some(events);
    let mut last = None;
    for _ in 0..frames {
        let events = events.take().unwrap_or_default();
        last = Some(frame_on(&ctx, state, egui::vec2(1600.0, 900.0), events));
    }
    last.unwrap()
}

#[test]
fn f1_shows_every_shortcut_and_the_menu_bar_draws() {
    let mut state = AppState::new(std::env::temp_dir());
    let out = run_frames_with(&mut state, Vec::new(), 2);
    for menu in ["File", "View", "Help"] {
        assert!(drew_text(&out, menu), "{menu} menu");
    }
    assert!(!state.windows.shortcuts);
    let (modifiers, key) = crate::ui::script::parse_keys("f1").unwrap();
    let press = egui::Event::Key {
        key,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers,
    };
    let out = run_frames_with(&mut state, vec![press], 3);
    assert!(state.windows.shortcuts);
    for (keys, what) in super::menu::SHORTCUTS {
        assert!(
            drew_text(&out, keys) && drew_text(&out, what),
            "{keys}: {what}"
        );
    }
}

#[test]
fn screenshots_get_png_an_overwrite_prompt_and_a_remembered_folder() {
    let dir = std::env::temp_dir().join(format!("tevscope-shots-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut state = AppState::new(dir.clone());
    state.screenshot.path = dir.join("shot").display().to_string();
    state.confirm_screenshot(false);
    assert!(state.requests.screenshot && state.screenshot.overwrite_prompt.is_none());
    assert_eq!(
        state.screenshot.path,
        dir.join("shot.png").display().to_string()
    );
    assert_eq!(state.prefs.screenshot_dir.as_deref(), Some(dir.as_path()));
    // An existing file is asked about; "Replace" queues it.
    state.requests = Requests::default();
    std::fs::write(dir.join("shot.png"), b"x").unwrap();
    state.confirm_screenshot(false);
    assert!(!state.requests.screenshot);
    assert_eq!(
        state.screenshot.overwrite_prompt.as_deref(),
        Some(dir.join("shot.png").as_path())
    );
    let out = run_frames_with(&mut state, Vec::new(), 2);
    assert!(drew_text(&out, "exists. Replace it?"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn opening_remembers_the_file_and_screenshots_leave_the_game_folder() {
    let mut state = AppState::new(std::env::temp_dir());
    state.prefs.screenshot_dir = Some("/tmp/shots-here".into());
    let spec = demo_spec("showcase");
    state.open(&spec);
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    assert_eq!(state.prefs.recent, std::slice::from_ref(&spec));
    assert!(
        state.screenshot.path.starts_with("/tmp/shots-here/"),
        "{}",
        state.screenshot.path
    );
    let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
    assert_eq!(state.prefs.last_open_dir.as_deref(), Some(assets.as_path()));
    state.open(&demo_spec("worm"));
    state.open(&spec);
    assert_eq!(
        state.prefs.recent,
        [spec, demo_spec("worm")],
        "newest first, once"
    );
}

/// The demo room opens in fly mode with its world models listed, WASD flies, hiding a world
/// model hides its surfaces, and its materials are edited and saved into the PAK.
#[test]
fn a_room_flies_lists_its_world_models_and_saves_edits() {
    let scratch = std::env::temp_dir().join(format!("tevscope-ui-room-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let pak = scratch.join("demo.pak");
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.pak"),
        &pak,
    )
    .unwrap();
    let spec = format!("{}:room", pak.display());
    let mut state = AppState::new(scratch.clone());
    state.open(&spec);
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    assert_eq!(state.session.camera.mode, crate::camera::CameraMode::Fly);
    // Lit by its own layer 0, which has one light of each kind.
    assert!(
        matches!(
            state.session.lights.choice.source(),
            Some(crate::load::LightSource::Area { .. })
        ),
        "{:?} {:?}",
        state.session.lights.choice,
        state.messages.load_error
    );
    assert_eq!(state.light_editor.records.len(), 4);
    assert_eq!(state.view.world_models_visible, vec![true; 5]);
    assert!(state.hidden_surfaces().is_none());
    assert!(
        state.session.document().is_some(),
        "{:?}",
        state.session.read_only_note()
    );

    // W held for a few frames moves the eye forward, along the view.
    state.central.texture = Some((egui::TextureId::User(1), [640, 400]));
    let ctx = egui::Context::default();
    let eye = state.session.camera.orbit.eye();
    let forward = (glam::Vec3::from(state.session.camera.orbit.target) - eye).normalize();
    let mut out = None;
    for frame in 0..4 {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1600.0, 900.0),
            )),
            events: if frame == 0 {
                vec![egui::Event::Key {
                    key: egui::Key::W,
                    physical_key: None,
                    pressed: true,
                    repeat: false,
                    modifiers: egui::Modifiers::NONE,
                }]
            } else {
                Vec::new()
            },
            ..Default::default()
        };
        let mut o = ctx.run_ui(input, |ui| show(ui, &mut state));
        o.textures_delta.clear();
        out = Some(o);
    }
    let moved = state.session.camera.orbit.eye() - eye;
    assert!(moved.length() > 0.0, "W did not move the camera");
    assert!(moved.normalize().dot(forward) > 0.99, "{moved}");
    assert!(drew_text(&out.unwrap(), "World models (5)"));

    // Orbit and back keeps the view.
    let view = state.session.camera.orbit.view_from_world();
    state.set_camera_mode(crate::camera::CameraMode::Orbit);
    state.set_camera_mode(crate::camera::CameraMode::Fly);
    assert!(
        state
            .session
            .camera
            .orbit
            .view_from_world()
            .abs_diff_eq(view, 1e-3)
    );

    // Hiding world model 1 hides exactly its surfaces.
    state.view.world_models_visible[1] = false;
    let hidden = state.hidden_surfaces().unwrap();
    let part = state.session.asset().unwrap().world_models[1].clone();
    for (i, h) in hidden.iter().enumerate() {
        assert_eq!(*h, part.surfaces.contains(&i), "surface {i}");
    }

    // The room's material is edited and saved into the PAK.
    set_konst0(&mut state, [9, 8, 7, 255], "K0 colour");
    assert!(
        state.messages.edit_error.is_none(),
        "{:?}",
        state.messages.edit_error
    );
    assert!(state.is_dirty());
    assert!(state.save());
    let reopened = crate::edit::Document::open(&spec).unwrap();
    assert_eq!(
        reopened.material_sets()[0].materials[0].konst_rgba()[0],
        [9, 8, 7, 255]
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

/// The rectangle of the text drawn exactly as `text` (the last one drawn: windows and menus
/// paint over the panels).
fn text_rect(out: &egui::FullOutput, text: &str) -> Option<egui::Rect> {
    fn walk(shape: &egui::Shape, text: &str, found: &mut Option<egui::Rect>) {
        match shape {
            egui::Shape::Text(t) if t.galley.text() == text => {
                *found = Some(t.galley.rect.translate(t.pos.to_vec2()));
            }
            egui::Shape::Vec(v) => v.iter().for_each(|s| walk(s, text, found)),
            _ => {}
        }
    }
    let mut found = None;
    out.shapes
        .iter()
        .for_each(|c| walk(&c.shape, text, &mut found));
    found
}

#[test]
fn the_short_uv_flags_are_shown_fixed_by_the_geometry_and_cannot_be_toggled() {
    use crate::gx::types::flags;
    let mut state = AppState::new(std::env::temp_dir());
    state.open(&demo_spec("showcase"));
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    let materials = &state.session.document().unwrap().material_sets()[0].materials;
    let index = materials
        .iter()
        .position(|m| m.flags & flags::SHORT_UV != 0)
        .expect("a showcase material with short UVs");
    state.select_material(0, index);
    state.tab = RightTab::Material;
    /// One egui context over frames (the Flags section stays open), with a clock.
    struct Frames(egui::Context, f64);
    impl Frames {
        fn frame(&mut self, state: &mut AppState, events: Vec<egui::Event>) -> egui::FullOutput {
            self.1 += 0.1;
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(1600.0, 900.0),
                )),
                time: Some(self.1),
                events,
                ..Default::default()
            };
            let mut out = self.0.run_ui(input, |ui| show(ui, state));
            out.textures_delta.clear();
            out
        }
        fn click(&mut self, state: &mut AppState, pos: egui::Pos2) -> egui::FullOutput {
            self.frame(state, vec![egui::Event::PointerMoved(pos)]);
            for pressed in [true, false] {
                let button = egui::Event::PointerButton {
                    pos,
                    button: egui::PointerButton::Primary,
                    pressed,
                    modifiers: Default::default(),
                };
                self.frame(state, vec![button]);
            }
            self.frame(state, vec![])
        }
    }
    let mut frames = Frames(egui::Context::default(), 0.0);
    frames
        .0
        .global_style_mut(|s| s.interaction.tooltip_delay = 0.0);
    // Open the Flags section, then click both short-UV boxes.
    let out = frames.frame(&mut state, vec![]);
    let header = text_rect(&out, "Flags").expect("the Flags section");
    let mut out = frames.click(&mut state, header.center());
    for name in ["short UVs (0x2000)", "short UVs, alt (0x1000)"] {
        let rect = text_rect(&out, name).unwrap_or_else(|| panic!("{name} is shown"));
        out = frames.click(&mut state, rect.center());
        assert!(
            state.messages.edit_error.is_none(),
            "{name}: {:?}",
            state.messages.edit_error
        );
        assert!(!state.is_dirty(), "{name} was toggled");
    }
    assert!(state.file_material().unwrap().flags & flags::SHORT_UV != 0);
    // Hovering one says why.
    let rect = text_rect(&out, "short UVs (0x2000)").unwrap();
    let mut hovered = frames.frame(&mut state, vec![egui::Event::PointerMoved(rect.center())]);
    for _ in 0..3 {
        hovered = frames.frame(&mut state, vec![]);
    }
    assert!(drew_text(&hovered, "fixed by the geometry"));
    // The other bits stay editable.
    let occluder = state.file_material().unwrap().flags & flags::OCCLUDER;
    let rect = text_rect(&hovered, "occluder (0x200)").unwrap();
    frames.click(&mut state, rect.center());
    assert!(state.is_dirty(), "the occluder bit did not toggle");
    assert_ne!(
        state.file_material().unwrap().flags & flags::OCCLUDER,
        occluder
    );
}

/// One frame of the whole UI at `size` points on `ctx` with `events`.
pub(super) fn frame_on(
    ctx: &egui::Context,
    state: &mut AppState,
    size: egui::Vec2,
    events: Vec<egui::Event>,
) -> egui::FullOutput {
    let input = egui::RawInput {
        screen_rect: Some(egui::Rect::from_min_size(egui::Pos2::ZERO, size)),
        events,
        ..Default::default()
    };
    let mut out = ctx.run_ui(input, |ui| show(ui, state));
    out.textures_delta.clear();
    out
}

/// The centre of the text drawn exactly as `text` (see [`text_rect`]).
fn text_at(out: &egui::FullOutput, text: &str) -> Option<egui::Pos2> {
    text_rect(out, text).map(|r| r.center())
}

/// A left click at `at` (press and release over two frames), then a frame.
fn click_on(ctx: &egui::Context, state: &mut AppState, size: egui::Vec2, at: egui::Pos2) {
    let button = |pressed| egui::Event::PointerButton {
        pos: at,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: Default::default(),
    };
    frame_on(
        ctx,
        state,
        size,
        vec![egui::Event::PointerMoved(at), button(true)],
    );
    frame_on(ctx, state, size, vec![button(false)]);
    frame_on(ctx, state, size, vec![]);
}

#[test]
fn save_as_adds_the_open_files_extension() {
    let Some((scratch, spec)) = scratch_model("save-as-ext") else {
        return;
    };
    let mut state = AppState::new(scratch.clone());
    state.open(&spec);
    set_konst0(&mut state, [5, 6, 7, 8], "K0 colour");
    assert!(
        state.save_as(&scratch.join("renamed")),
        "{:?}",
        state.messages.edit_error
    );
    let written = scratch.join("renamed.CMDL");
    assert!(written.is_file() && !scratch.join("renamed").exists());
    assert_eq!(state.session.document().unwrap().origin().path(), written);
    // The viewer opens what it wrote as an editable model, with the edit.
    let mut reopened = AppState::new(scratch.clone());
    reopened.open(written.to_str().unwrap());
    assert!(
        reopened.session.document().is_some(),
        "{:?}",
        reopened.session.read_only_note()
    );
    assert_eq!(
        reopened.file_material().unwrap().konst_rgba()[0],
        [5, 6, 7, 8]
    );
    // A typed extension is kept.
    assert!(state.save_as(&scratch.join("other.cmdl")));
    assert!(scratch.join("other.cmdl").is_file());
    let _ = std::fs::remove_dir_all(&scratch);
}

/// File → Export… opens a window whose path field takes typing (a menu closed on the
/// first click into it), and Export glTF writes where it says.
#[test]
fn file_export_opens_a_window_with_an_editable_path() {
    let dir =
        std::env::temp_dir().join(format!("tevscope-ui-export-window-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut state = AppState::new(dir.clone());
    state.open(&demo_spec("showcase"));
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    let size = egui::vec2(1600.0, 900.0);
    let ctx = egui::Context::default();
    let out = frame_on(&ctx, &mut state, size, vec![]);
    click_on(&ctx, &mut state, size, text_at(&out, "File").unwrap());
    let out = frame_on(&ctx, &mut state, size, vec![]);
    click_on(
        &ctx,
        &mut state,
        size,
        text_at(&out, "Export…").expect("File → Export…"),
    );
    assert!(state.export.open);
    let out = frame_on(&ctx, &mut state, size, vec![]);
    assert!(drew_text(&out, "Export glTF"));
    // Click into the path, select it all and type another.
    let field = text_at(&out, &state.export.path).expect("the path field");
    click_on(&ctx, &mut state, size, field);
    let typed = dir.join("typed.glb").display().to_string();
    let select_all = egui::Event::Key {
        key: egui::Key::A,
        physical_key: None,
        pressed: true,
        repeat: false,
        modifiers: egui::Modifiers::COMMAND,
    };
    frame_on(&ctx, &mut state, size, vec![select_all]);
    frame_on(
        &ctx,
        &mut state,
        size,
        vec![egui::Event::Text(typed.clone())],
    );
    assert_eq!(state.export.path, typed);
    let out = frame_on(&ctx, &mut state, size, vec![]);
    assert!(state.export.open, "typing keeps the window open");
    click_on(
        &ctx,
        &mut state,
        size,
        text_at(&out, "Export glTF").unwrap(),
    );
    assert!(
        matches!(&state.export.result, Some(Ok(line)) if line.contains("typed.glb")),
        "{:?}",
        state.export.result
    );
    assert!(dir.join("typed.glb").is_file());
    // The outcome shows in the window.
    let out = frame_on(&ctx, &mut state, size, vec![]);
    assert!(drew_text(&out, "Exported"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Export window's "Export DFF" writes the current view as a DFF: byte for byte what
/// `tevscope export -o X.dff` writes for the same camera and size, atomically, with the
/// outcome in the window.
#[test]
fn export_window_writes_the_current_view_as_a_dff() {
    use crate::render::{AdapterPreference, RenderContext};
    if RenderContext::for_tests().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("tevscope-ui-dff-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let spec = demo_spec("showcase");
    let mut state = AppState::new(dir.clone());
    state.open(&spec);
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    // The command line's frame: the same model, camera and size.
    let mut req = crate::cli::render::RenderRequest::new(spec, "");
    (req.width, req.height) = (640, 480);
    req.camera = Some([30.0, 20.0, 7.0]);
    let ctx = RenderContext::new(AdapterPreference::Hardware).unwrap();
    let (mut scene, ..) = crate::cli::render::build_scene(&ctx, &req).unwrap();
    let (_, expected) = crate::dff::check::frame_dff(&mut scene, &ctx, (640, 480), false).unwrap();
    // The CLI's camera: framed on the model's box, then turned as `req.camera` says.
    state.session.camera.frame_box(&scene.aabb());
    let c = &mut state.session.camera.orbit;
    (c.yaw_degrees, c.pitch_degrees, c.distance) = (30.0, 20.0, 7.0);
    assert_eq!(
        &state.session.lights.set,
        scene.lights(),
        "the viewer's lights"
    );

    state.export.open = true;
    let out_path = dir.join("view.dff");
    state.export.dff.path = out_path.display().to_string();
    let size = egui::vec2(1600.0, 900.0);
    let ui = egui::Context::default();
    let out = frame_on(&ui, &mut state, size, vec![]);
    click_on(
        &ui,
        &mut state,
        size,
        text_at(&out, "Export DFF").expect("the button"),
    );
    let line = match &state.export.result {
        Some(Ok(line)) => line.clone(),
        other => panic!("{other:?}"),
    };
    assert!(
        line.contains("view.dff") && line.contains("640×480"),
        "{line}"
    );
    let written = std::fs::read(&out_path).unwrap();
    assert!(
        written == expected,
        "the viewer's DFF differs from the command line's"
    );
    let out = frame_on(&ui, &mut state, size, vec![]);
    assert!(drew_text(&out, "Exported"));
    // No stray temporary files next to it (written atomically).
    let files: Vec<_> = std::fs::read_dir(&dir).unwrap().flatten().collect();
    assert_eq!(files.len(), 1, "{files:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Export window's "Bake appearance" checkbox bakes what the viewer draws: the written
/// glTF's materials take baked base colours and keep `extras.gx`.
#[test]
fn export_window_bakes_appearance_when_asked() {
    if crate::render::RenderContext::for_tests().is_none() {
        return;
    }
    let dir = std::env::temp_dir().join(format!("tevscope-ui-bake-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut state = AppState::new(dir.clone());
    state.open(&demo_spec("showcase"));
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    state.export.open = true;
    let glb = dir.join("baked.glb");
    state.export.path = glb.display().to_string();
    let size = egui::vec2(1600.0, 900.0);
    let ctx = egui::Context::default();
    let out = frame_on(&ctx, &mut state, size, vec![]);
    let checkbox = text_at(&out, "Bake appearance").expect("the checkbox");
    assert!(!state.export.bake);
    click_on(&ctx, &mut state, size, checkbox);
    assert!(state.export.bake, "the click ticks it");
    let out = frame_on(&ctx, &mut state, size, vec![]);
    click_on(
        &ctx,
        &mut state,
        size,
        text_at(&out, "Export glTF").unwrap(),
    );
    let line = match &state.export.result {
        Some(Ok(line)) => line.clone(),
        other => panic!("{other:?}"),
    };
    assert!(line.contains("29 materials baked"), "{line}");
    let g = ::gltf::Gltf::open(&glb).unwrap();
    for m in g.materials() {
        let extras: serde_json::Value =
            serde_json::from_str(m.extras().as_ref().unwrap().get()).unwrap();
        assert_eq!(extras["baked"], true, "{:?}", m.name());
        assert!(extras["gx"].is_object());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A UV animation whose matrix no texgen reads says so next to it, and its fix points
/// the first texgen on the identity at that matrix.
#[test]
fn a_uv_animation_no_texgen_uses_says_so() {
    use crate::gx::types::{GX_IDENTITY, GX_PTIDENTITY, TexGen};
    let mut state = AppState::new(std::env::temp_dir());
    state.open(&demo_spec("showcase"));
    let mut m = state.file_material().unwrap().clone();
    assert!(!m.texgens.is_empty());
    for w in &mut m.texgens {
        let mut t = TexGen::from_word(*w).unwrap();
        t.gx_tex_mtx = GX_IDENTITY;
        t.gx_post_mtx = GX_PTIDENTITY;
        *w = t.to_word() | (*w & !0x1F_FFFF);
    }
    m.uv_animations = vec![crate::formats::material::UvAnimationWords {
        mode: 2,
        params: [0.0f32, 0.0, 1.0, 1.0].map(f32::to_bits).to_vec(),
    }];
    state.apply_material(m, "identity texgens, a scroll");
    assert!(
        state.messages.edit_error.is_none(),
        "{:?}",
        state.messages.edit_error
    );
    state.tab = RightTab::Material;
    // Tall enough that the whole material panel shows without scrolling.
    let size = egui::vec2(1600.0, 4000.0);
    let ctx = egui::Context::default();
    frame_on(&ctx, &mut state, size, vec![]);
    let out = frame_on(&ctx, &mut state, size, vec![]);
    let warning = super::vertex::unused_animation_text(0, 2);
    assert!(warning.contains("no texgen uses TEXMTX0"), "{warning}");
    assert!(drew_text(&out, &warning));
    let fix = text_at(&out, "use it on TEXCOORD0").expect("the fix");
    click_on(&ctx, &mut state, size, fix);
    let t = TexGen::from_word(state.file_material().unwrap().texgens[0]).unwrap();
    assert_eq!(t.tex_mtx_slot(), Some(0));
    let out = frame_on(&ctx, &mut state, size, vec![]);
    assert!(!drew_text(&out, "no texgen uses"));
}

#[test]
fn the_built_in_demo_offers_save_as_in_a_real_folder() {
    let mut state = AppState::new(std::env::temp_dir());
    let saves = std::env::temp_dir().join(format!("tevscope-builtin-save-{}", std::process::id()));
    state.prefs.last_save_dir = Some(saves.clone());
    state.open(&crate::load::builtin::demo_spec("showcase"));
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    // Not the built-in path (Save would refuse it), but demo.pak in the last save folder.
    assert_eq!(
        std::path::PathBuf::from(&state.save_as.text),
        saves.join("demo.pak")
    );
    // Exports and the like go to a real folder too, not a `builtin:` path.
    assert!(
        !state.export.path.starts_with("builtin:"),
        "{}",
        state.export.path
    );
    assert!(
        std::path::Path::new(&state.export.path).is_absolute(),
        "{}",
        state.export.path
    );
}

/// An MP3 model opens with its synthesised programs and 64-bit texture IDs; an element
/// edit (the script's and `tevscope edit`'s JSON Patch) re-synthesises the drawn program,
/// undo restores it, and what is saved after the undo is the file byte for byte.
#[test]
fn mp3_model_opens_edits_undoes_and_saves_byte_identically() {
    let Some(dir) = crate::testing::conformance_dir() else {
        return;
    };
    let source = dir.join("mp3/0x0C3F1E7D00000100.CMDL");
    let scratch = std::env::temp_dir().join(format!("tevscope-ui-mp3-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).unwrap();
    let mut state = AppState::new(scratch.clone());
    state.open(source.to_str().unwrap());
    assert!(
        state.messages.load_error.is_none(),
        "{:?}",
        state.messages.load_error
    );
    let asset = state.session.asset().unwrap();
    let entry = asset.material(0, 0).unwrap().clone();
    assert_eq!(entry.texture_ids, [Some(0x0C3F_1E7D_0000_1000)]);
    assert!(
        asset.material_textures(0, 0)[0].is_some(),
        "the 64-bit ID's TXTR was found"
    );
    assert_eq!(entry.material.konst[0], [208, 128, 64, 255]);
    // The Material tab draws the element editor without recording an edit.
    state.tab = RightTab::Material;
    state.select_material(0, 3);
    run_frame(&mut state);
    run_frame(&mut state);
    assert!(!state.is_dirty());
    state.select_material(0, 0);
    run_frame(&mut state);
    let ops: json_patch::Patch = serde_json::from_value(serde_json::json!([
        {"op": "replace", "path": "/material_sets/0/materials/0/elements/1/rgba8", "value": [255, 0, 0, 255]}
    ]))
    .unwrap();
    let change = state.session.apply_patch(&ops, "CLR").unwrap();
    state.document_changed(change);
    let edited = state.session.asset().unwrap().material(0, 0).unwrap();
    assert_eq!(edited.material.konst[0], [255, 0, 0, 255]);
    assert!(state.is_dirty());
    run_frame(&mut state);
    assert!(state.undo());
    let undone = state.session.asset().unwrap().material(0, 0).unwrap();
    assert_eq!(undone.material.konst[0], [208, 128, 64, 255]);
    let out = scratch.join("saved.CMDL");
    assert!(state.save_as(&out), "{:?}", state.messages.edit_error);
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&source).unwrap());
    std::fs::remove_dir_all(&scratch).ok();
}
