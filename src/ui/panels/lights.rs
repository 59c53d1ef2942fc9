//! The Lights tab (the light list and the selected light's fields, start-from, save/load)
//! and the lights' gizmos over the model view (egui overlay only: never in screenshots).

use egui::{Color32, Pos2, RichText, Stroke, Ui, vec2};
use glam::Vec3;

use crate::gx::lights::{
    Falloff, GxLightValue, LightOptions, PrimeLight, PrimeLightType, RADIUS_FACTOR,
};
use crate::ui::light_editor::GizmoMode;
use crate::ui::lights::{angles_of_direction, direction_from_angles};
use crate::ui::parts::LightsPanel;
use crate::ui::state::RightTab;

/// The panel's name of a kind (the game's "custom" lights are its point lights).
fn kind_name(kind: PrimeLightType) -> &'static str {
    match kind {
        PrimeLightType::LocalAmbient => "ambient",
        PrimeLightType::Directional => "directional",
        PrimeLightType::Spot => "spot",
        PrimeLightType::Custom => "point (custom)",
    }
}

fn falloff_name(f: Falloff) -> String {
    Falloff::name_of_word(f.word()).to_string()
}

/// The record's colour as egui shows it (RGB clamped to 0…1).
fn swatch(r: &PrimeLight) -> Color32 {
    let [red, g, b, _] = r.color.map(crate::gx::lights::color_to_u8);
    Color32::from_rgb(red, g, b)
}

pub(super) fn lights_tab(ui: &mut Ui, state: &mut LightsPanel<'_>) {
    start_and_files(ui, state);
    ui.separator();
    ui.horizontal_wrapped(|ui| {
        ui.label("Add");
        for kind in PrimeLightType::ALL {
            if ui
                .button(kind_name(kind))
                .on_hover_text("Add one at the camera's target")
                .clicked()
            {
                state.add_light(kind);
            }
        }
    });
    let selected = state.light_editor.selected;
    ui.horizontal(|ui| {
        let has = selected.is_some();
        if ui
            .add_enabled(has, egui::Button::new("Duplicate"))
            .clicked()
            && let Some(i) = selected
        {
            state.duplicate_light(i);
        }
        if ui.add_enabled(has, egui::Button::new("Remove")).clicked()
            && let Some(i) = selected
        {
            state.remove_light(i);
        }
        let mode = &mut state.light_editor.gizmos;
        egui::ComboBox::from_id_salt("light gizmos")
            .selected_text(format!("gizmos: {}", mode.label()))
            .show_ui(ui, |ui| {
                for m in GizmoMode::ALL {
                    ui.selectable_value(mode, m, m.label());
                }
            })
            .response
            .on_hover_text("When the lights are drawn over the model view (never in screenshots)");
    });
    light_list(ui, state);
    let lights = state.session.lights.set.lights.len();
    if lights > 4 {
        ui.weak(format!(
            "{lights} lights: each model is lit by the 4 brightest at its centre, as the game \
             picks area lights (gx.md §10.5)"
        ));
    }
    if let Some(i) = state.light_editor.selected {
        ui.separator();
        light_fields(ui, state, i);
    }
}

/// Start from a preset or an area layer; save and load light set files.
fn start_and_files(ui: &mut Ui, state: &mut LightsPanel<'_>) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Start from");
        let mut pick = None;
        egui::ComboBox::from_id_salt("light_start")
            .selected_text(state.session.lights.choice.label().to_string())
            .width(200.0)
            .show_ui(ui, |ui| {
                // Listed only while the menu is open (the layers are read once per file).
                for (choice, count) in state.light_starts() {
                    let text = match count {
                        Some(n) => format!("{} ({n} records)", choice.label()),
                        None => choice.label().to_string(),
                    };
                    if ui
                        .selectable_label(state.session.lights.choice == choice, text)
                        .clicked()
                    {
                        pick = Some(choice);
                    }
                }
            })
            .response
            .on_hover_text("Replace the list with a preset or an MREA light layer");
        if let Some(c) = pick {
            state.set_lights(c);
        }
    });
    ui.horizontal(|ui| {
        if ui
            .button("Save…")
            .on_hover_text("Write a light set (JSON)")
            .clicked()
        {
            state.light_file_dialog(true);
        }
        if ui
            .button("Load…")
            .on_hover_text("Read a light set (JSON)")
            .clicked()
        {
            state.light_file_dialog(false);
        }
    });
    if state.light_editor.path_open {
        ui.horizontal(|ui| {
            ui.add(
                egui::TextEdit::singleline(&mut state.light_editor.path_text)
                    .desired_width(220.0)
                    .hint_text("lights.json"),
            );
            let path = std::path::PathBuf::from(state.light_editor.path_text.trim());
            if ui.button("Save").clicked() {
                state.save_light_file(&path);
            }
            if ui.button("Load").clicked() {
                state.load_light_file(&path);
            }
        });
    }
    if let Some(e) = &state.light_editor.error {
        ui.add(egui::Label::new(RichText::new(e).color(Color32::from_rgb(255, 110, 110))).wrap());
    }
}

fn light_list(ui: &mut Ui, state: &mut LightsPanel<'_>) {
    let mut select = None;
    egui::ScrollArea::vertical()
        .id_salt("light_list")
        .max_height(180.0)
        .auto_shrink([false, true])
        .show(ui, |ui| {
            if state.light_editor.records.is_empty() {
                ui.weak("No lights: the ambient is black.");
            }
            for (i, r) in state.light_editor.records.iter().enumerate() {
                ui.horizontal(|ui| {
                    let (rect, _) = ui.allocate_exact_size(vec2(12.0, 12.0), egui::Sense::hover());
                    ui.painter().rect_filled(rect, 2.0, swatch(r));
                    let text = format!("{i}  {}  ×{:.3}", kind_name(r.kind()), r.brightness);
                    if ui
                        .selectable_label(state.light_editor.selected == Some(i), text)
                        .clicked()
                    {
                        select = Some(i);
                    }
                });
            }
        });
    if let Some(i) = select {
        state.light_editor.selected = Some(i);
    }
}

/// A drag value for a record's `f32` that changes it only when the user does: it shows
/// and parses the exact value (clicking in and out again leaves it as it was), and `range`
/// (set by the caller) bounds drags and typed values but never clamps a value it is only
/// shown (game records hold brightnesses like ×56250).
fn exact_drag(value: &mut f32, speed: f32) -> egui::DragValue<'_> {
    egui::DragValue::new(value)
        .speed(speed)
        .clamp_existing_to_range(false)
        .custom_formatter(|v, _| format!("{}", v as f32))
        .custom_parser(|text| {
            text.trim()
                .parse::<f32>()
                .ok()
                .filter(|v| v.is_finite())
                .map(f64::from)
        })
}

/// A drag step that suits the value's size (×56250 and ×0.5 both drag comfortably).
fn speed_for(value: f32, least: f32) -> f32 {
    (value.abs() * 0.005).max(least)
}

/// A row of three drag values; true when one changed.
fn vec3_row(ui: &mut Ui, v: &mut [f32; 3], speed: f32) -> bool {
    let mut changed = false;
    for (x, axis) in v.iter_mut().zip(["x ", "y ", "z "]) {
        changed |= ui.add(exact_drag(x, speed).prefix(axis)).changed();
    }
    changed
}

/// The selected light's fields, each shown only where the game uses it. Each widget edits
/// a copy of its own field, and only a field the user changed is written back: no value
/// is rounded, clamped or converted by merely being shown.
fn light_fields(ui: &mut Ui, state: &mut LightsPanel<'_>, index: usize) {
    let Some(mut r) = state.light_editor.records.get(index).copied() else {
        return;
    };
    let kind = r.kind();
    let mut changed = None;
    // Position steps scale with the view so small and large models both edit comfortably.
    let step = (state.session.camera.orbit.distance * 0.005).max(1e-4);
    egui::Grid::new("light_fields")
        .num_columns(2)
        .spacing([8.0, 6.0])
        .show(ui, |ui| {
            ui.label("Kind");
            let mut k = kind;
            if super::combo(ui, "light_kind", &mut k, &PrimeLightType::ALL, |k| {
                kind_name(k).to_string()
            }) {
                r.light_type = k.word();
                changed = Some("kind");
            }
            ui.end_row();
            ui.label("Colour");
            let mut colour = r.color;
            if ui
                .color_edit_button_rgba_unmultiplied(&mut colour)
                .changed()
            {
                r.color = colour;
                changed = Some("colour");
            }
            ui.end_row();
            ui.label("Brightness").on_hover_text(
                "The record's q: ambient colour × q; point and spot lights divide their \
                 distance coefficients by q",
            );
            let mut q = r.brightness;
            let speed = speed_for(q, 0.01);
            if ui
                .add(exact_drag(&mut q, speed).range(0.0..=f32::MAX))
                .changed()
            {
                r.brightness = q;
                changed = Some("brightness");
            }
            ui.end_row();
            if matches!(kind, PrimeLightType::Spot | PrimeLightType::Custom) {
                ui.label("Falloff");
                let mut f = r.falloff();
                if super::combo(ui, "light_falloff", &mut f, &Falloff::ALL, falloff_name) {
                    r.falloff = f.word();
                    changed = Some("falloff");
                }
                ui.end_row();
                ui.label("Position");
                let mut p = r.position;
                ui.horizontal(|ui| {
                    if vec3_row(ui, &mut p, step) {
                        r.position = p;
                        changed = Some("position");
                    }
                });
                ui.end_row();
            }
            if kind == PrimeLightType::Spot {
                ui.label("Cutoff").on_hover_text(
                    "Full cone angle as records store it; the engine halves it (off above 180°)",
                );
                let mut cutoff = r.spot_cutoff;
                if ui
                    .add(exact_drag(&mut cutoff, 0.5).range(0.0..=360.0).suffix("°"))
                    .changed()
                {
                    r.spot_cutoff = cutoff;
                    changed = Some("cutoff");
                }
                ui.end_row();
            }
            if matches!(kind, PrimeLightType::Spot | PrimeLightType::Directional) {
                ui.label("Direction").on_hover_text(
                    "Yaw about Z (0 = towards +Y, the actors' front) and pitch above the XY plane",
                );
                let (mut yaw, mut pitch) = angles_of_direction(r.direction);
                ui.horizontal(|ui| {
                    let a = ui.add(
                        exact_drag(&mut yaw, 0.5)
                            .range(-180.0..=180.0)
                            .prefix("yaw ")
                            .suffix("°"),
                    );
                    let b = ui.add(
                        exact_drag(&mut pitch, 0.5)
                            .range(-90.0..=90.0)
                            .prefix("pitch ")
                            .suffix("°"),
                    );
                    if a.changed() || b.changed() {
                        r.direction = direction_from_angles(yaw, pitch);
                        changed = Some("direction");
                    }
                });
                ui.end_row();
                ui.label("");
                let [x, y, z] = r.direction;
                ui.weak(format!("({x:.3}, {y:.3}, {z:.3})"));
                ui.end_row();
            }
        });
    if let Some(field) = changed {
        state.edit_light(index, field, |rec| *rec = r);
    }
    derived(ui, &r);
}

/// What the engine makes of the record (`gx.md` §10.4), so the effect of an edit is seen.
fn derived(ui: &mut Ui, r: &PrimeLight) {
    let text = match r.to_gx(&LightOptions::default()) {
        GxLightValue::Ambient(c) => format!("ambient register {c:?}"),
        GxLightValue::Light(l) => {
            let [k0, k1, k2] = l.dist_atten;
            let [a0, a1, a2] = l.angle_atten;
            let radius = l.radius();
            let radius = if radius.is_finite() {
                format!("{radius:.3}")
            } else {
                "∞".to_string()
            };
            format!(
                "GX colour {:?}\nk = ({k0}, {k1}, {k2})\na = ({a0:.4}, {a1:.4}, {a2:.4})\n\
                 radius {radius} (I / k·{RADIUS_FACTOR:.4})",
                l.color
            )
        }
    };
    ui.add(egui::Label::new(RichText::new(text).monospace()).wrap());
}

const SELECTED: Color32 = Color32::YELLOW;

/// Draws each light over the model view `rect` (projected through the view's camera),
/// the selected one highlighted; point and spot lights can be clicked to select them and
/// dragged to move them in the view plane.
pub(super) fn gizmos(ui: &mut Ui, state: &mut LightsPanel<'_>, rect: egui::Rect) {
    let lights_tab_open = *state.tab == RightTab::Lights;
    if !state.light_editor.gizmos.shows(lights_tab_open) || state.light_editor.records.is_empty() {
        return;
    }
    let camera = state.session.camera.orbit;
    let size = [rect.width(), rect.height()];
    let to_screen = |p: Vec3| camera.project(p, size).map(|[x, y]| rect.min + vec2(x, y));
    let painter = ui.painter_at(rect);
    // World length of the spot cones and direction arrows: a fixed share of the view.
    let reach = camera.distance * 0.15;
    let target = Vec3::from(camera.target);
    let selected = state.light_editor.selected;
    let mut picked = None;
    let mut dragged = None;
    let mut directional = 0;
    for (i, r) in state.light_editor.records.iter().enumerate() {
        let is_selected = selected == Some(i);
        let colour = swatch(r);
        let outline = if is_selected {
            Stroke::new(2.5, SELECTED)
        } else {
            Stroke::new(1.0, Color32::from_gray(20))
        };
        let line = Stroke::new(
            if is_selected { 2.0 } else { 1.2 },
            if is_selected { SELECTED } else { colour },
        );
        let label = |pos: Pos2| {
            let fg = if is_selected {
                SELECTED
            } else {
                Color32::WHITE
            };
            // A dark copy behind the number keeps it readable on bright surfaces.
            for (offset, colour) in [(vec2(10.0, -8.0), Color32::BLACK), (vec2(9.0, -9.0), fg)] {
                painter.text(
                    pos + offset,
                    egui::Align2::LEFT_BOTTOM,
                    i.to_string(),
                    egui::FontId::monospace(12.0),
                    colour,
                );
            }
        };
        let dir = Vec3::from(r.direction).normalize_or(Vec3::NEG_Z);
        match r.kind() {
            PrimeLightType::LocalAmbient => {
                // Not in space: a swatch in the view's corner.
                let at = rect.min + vec2(10.0, 10.0 + 20.0 * i as f32);
                let sq = egui::Rect::from_min_size(at, vec2(14.0, 14.0));
                painter.rect_filled(sq, 2.0, colour);
                painter.rect_stroke(sq, 2.0, outline, egui::StrokeKind::Outside);
                painter.text(
                    sq.right_center() + vec2(6.0, 0.0),
                    egui::Align2::LEFT_CENTER,
                    format!("{i} ambient"),
                    egui::FontId::proportional(12.0),
                    if is_selected {
                        SELECTED
                    } else {
                        Color32::WHITE
                    },
                );
                let hit = ui.interact(
                    sq,
                    ui.scope_id().with(("light_gizmo", i)),
                    egui::Sense::click(),
                );
                if hit.clicked() {
                    picked = Some(i);
                }
            }
            PrimeLightType::Directional => {
                // An arrow towards the view's centre along the light's direction, fanned
                // out sideways when there are several.
                let side = camera.right() * (directional as f32 * reach * 0.35);
                directional += 1;
                let end = target - dir * reach * 0.6 + side;
                let start = end - dir * reach;
                if let (Some(a), Some(b)) = (to_screen(start), to_screen(end)) {
                    arrow(&painter, a, b, line);
                    label(a);
                    let hit = marker(ui, &painter, i, a, (colour, outline), egui::Sense::click());
                    if hit.clicked() {
                        picked = Some(i);
                    }
                }
            }
            kind @ (PrimeLightType::Spot | PrimeLightType::Custom) => {
                let p = Vec3::from(r.position);
                let Some(c) = to_screen(p) else { continue };
                if kind == PrimeLightType::Spot {
                    spot_cone(
                        &painter,
                        &to_screen,
                        p,
                        dir,
                        r.spot_cutoff * 0.5,
                        reach,
                        line,
                    );
                }
                label(c);
                let hit = marker(
                    ui,
                    &painter,
                    i,
                    c,
                    (colour, outline),
                    egui::Sense::click_and_drag(),
                );
                if hit.clicked() || hit.drag_started() {
                    picked = Some(i);
                }
                if hit.dragged() {
                    let d = hit.drag_delta();
                    dragged = Some((i, camera.drag_offset(p, d.x, d.y, size[1])));
                }
                hit.on_hover_text(format!("light {i}: drag to move it in the view plane"));
            }
        }
    }
    if let Some(i) = picked {
        state.light_editor.selected = Some(i);
        *state.tab = RightTab::Lights;
    }
    if let Some((i, offset)) = dragged {
        state.edit_light(i, "position", |r| {
            r.position = (Vec3::from(r.position) + offset).to_array();
        });
    }
}

/// A light's disc at `at` (fill colour, outline) and its hit area, larger than the disc so
/// a press lands on it even when the pointer moved a little before a slow frame.
fn marker(
    ui: &Ui,
    painter: &egui::Painter,
    index: usize,
    at: Pos2,
    (fill, outline): (Color32, Stroke),
    sense: egui::Sense,
) -> egui::Response {
    painter.circle_filled(at, 6.0, fill);
    painter.circle_stroke(at, 6.0, outline);
    ui.interact(
        egui::Rect::from_center_size(at, vec2(22.0, 22.0)),
        ui.scope_id().with(("light_gizmo", index)),
        sense,
    )
}

fn arrow(painter: &egui::Painter, from: Pos2, to: Pos2, stroke: Stroke) {
    painter.line_segment([from, to], stroke);
    let d = to - from;
    let len = d.length();
    if len < 1.0 {
        return;
    }
    let u = d / len;
    let n = vec2(-u.y, u.x);
    let head = 8.0_f32.min(len * 0.5);
    painter.line_segment([to, to - u * head + n * head * 0.5], stroke);
    painter.line_segment([to, to - u * head - n * head * 0.5], stroke);
}

/// A spot light's cone (half angle `half_degrees`) as a ring at `reach` along `dir` and
/// four lines from the apex; the axis as an arrow. A cone the engine turns off (half angle
/// ≤ 0 or > 90°) is drawn as the axis alone.
fn spot_cone(
    painter: &egui::Painter,
    to_screen: &impl Fn(Vec3) -> Option<Pos2>,
    apex: Vec3,
    dir: Vec3,
    half_degrees: f32,
    reach: f32,
    stroke: Stroke,
) {
    let tip = apex + dir * reach;
    if let (Some(a), Some(b)) = (to_screen(apex), to_screen(tip)) {
        arrow(painter, a, b, stroke);
    }
    if !(half_degrees > 0.0 && half_degrees <= 90.0) {
        return;
    }
    // Beyond ~80° the ring grows without bound: draw it at a shorter axial distance.
    let half = half_degrees.min(80.0).to_radians();
    let (u, v) = dir.any_orthonormal_pair();
    let axial = reach * half.cos();
    let radius = reach * half.sin();
    let ring: Vec<Option<Pos2>> = (0..32)
        .map(|k| {
            let t = k as f32 / 32.0 * std::f32::consts::TAU;
            to_screen(apex + dir * axial + (u * t.cos() + v * t.sin()) * radius)
        })
        .collect();
    let thin = Stroke::new(1.0, stroke.color.gamma_multiply(0.8));
    if ring.iter().all(Option::is_some) {
        let points: Vec<Pos2> = ring.iter().flatten().copied().collect();
        painter.add(egui::Shape::closed_line(points.clone(), thin));
        if let Some(a) = to_screen(apex) {
            for k in [0, 8, 16, 24] {
                painter.line_segment([a, points[k]], thin);
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::tests::{demo_spec, drew_text, run_frame};
    use crate::gx::lights::{
        Falloff, GxLight, LightPreset, LightSet, PrimeLight, PrimeLightType, spot_attenuation,
    };
    use crate::load::LightSource;
    use crate::session::LightChoice;
    use crate::ui::light_editor::GizmoMode;
    use crate::ui::state::{AppState, RightTab};

    fn state() -> AppState {
        AppState::new(std::env::temp_dir())
    }

    fn lights_of(set: &LightSet) -> &[GxLight] {
        &set.lights
    }

    #[test]
    fn add_remove_duplicate_and_edits_bump_the_revision() {
        let mut s = state();
        assert_eq!(s.session.lights.set, LightPreset::Basic.light_set());
        s.session.camera.orbit.target = [1.0, 2.0, 3.0];
        let r0 = s.session.lights.revision;
        s.lights_panel().add_light(PrimeLightType::Spot);
        assert_eq!(s.session.lights.revision, r0 + 1);
        assert_eq!(s.session.lights.choice, LightChoice::Edited);
        assert_eq!(s.light_editor.selected, Some(2));
        // Added between the eye and the target, pointing at the target, and it is now a GX
        // light of the set.
        let at =
            (glam::Vec3::from(s.session.camera.orbit.target) + s.session.camera.orbit.eye()) * 0.5;
        let spot = s.light_editor.records[2];
        assert!((glam::Vec3::from(spot.position) - at).length() < 1e-4);
        let to_target = (glam::Vec3::from(s.session.camera.orbit.target) - at).normalize();
        assert!((glam::Vec3::from(spot.direction) - to_target).length() < 1e-5);
        assert_eq!(lights_of(&s.session.lights.set).len(), 2);
        assert_eq!(lights_of(&s.session.lights.set)[1].position, spot.position);
        s.lights_panel().duplicate_light(2);
        assert_eq!(s.session.lights.revision, r0 + 2);
        assert_eq!(s.light_editor.records.len(), 4);
        assert_eq!(s.light_editor.selected, Some(3));
        // An edit that changes nothing does not re-upload.
        assert!(
            !s.lights_panel()
                .edit_light(3, "test", |r| r.brightness = 2.0)
        );
        assert_eq!(s.session.lights.revision, r0 + 2);
        assert!(
            s.lights_panel()
                .edit_light(3, "test", |r| r.position = [-4.0, 2.0, 3.0])
        );
        assert_eq!(s.session.lights.revision, r0 + 3);
        assert_eq!(
            lights_of(&s.session.lights.set)[2].position,
            [-4.0, 2.0, 3.0]
        );
        s.lights_panel().remove_light(1);
        assert_eq!(s.session.lights.revision, r0 + 4);
        assert_eq!(s.light_editor.selected, Some(1));
        assert_eq!(lights_of(&s.session.lights.set).len(), 2);
        assert!(
            lights_of(&s.session.lights.set)
                .iter()
                .all(|l| l.angle_atten != [1.0, 0.0, 0.0])
        );
        // Removing the ambient record leaves a black ambient, as an area layer without one.
        s.lights_panel().remove_light(0);
        assert_eq!(s.session.lights.set.ambient, [0, 0, 0, 255]);
        assert!(
            !s.lights_panel()
                .edit_light(9, "test", |r| r.brightness = 2.0)
        );
        s.lights_panel().remove_light(9);
        assert_eq!(s.session.lights.revision, r0 + 5);
    }

    #[test]
    fn edits_give_the_engines_attenuation_coefficients() {
        let mut s = state();
        s.set_lights(LightChoice::none());
        s.lights_panel().add_light(PrimeLightType::Spot);
        s.lights_panel().add_light(PrimeLightType::Custom);
        let gx = |s: &AppState, i: usize| lights_of(&s.session.lights.set)[i];
        // Spot: the full cone is halved, COS2 coefficients.
        s.lights_panel()
            .edit_light(1, "test", |r| r.spot_cutoff = 60.0);
        assert_eq!(gx(&s, 0).angle_atten, spot_attenuation(30.0));
        s.lights_panel()
            .edit_light(1, "test", |r| r.spot_cutoff = 200.0);
        assert_eq!(gx(&s, 0).angle_atten, [1.0, 0.0, 0.0]);
        // Falloff and brightness set the one distance coefficient.
        for (falloff, q, k) in [
            (Falloff::Constant, 4.0, [0.5, 0.0, 0.0]),
            (Falloff::Linear, 2.0, [0.0, 125.0, 0.0]),
            (Falloff::Quadratic, 2.0, [0.0, 0.0, 12500.0]),
            (Falloff::Linear, 0.0, [0.0, 250.0 / 1e-6, 0.0]),
        ] {
            s.lights_panel().edit_light(2, "test", |r| {
                r.falloff = falloff.word();
                r.brightness = q;
            });
            assert_eq!(gx(&s, 1).dist_atten, k, "{falloff:?} q {q}");
            assert_eq!(gx(&s, 1).angle_atten, [1.0, 0.0, 0.0]);
        }
        // Colour goes to 8 bits by truncation; ambient is colour × brightness.
        s.lights_panel().edit_light(0, "test", |r| {
            r.color = [0.5, 1.0, 0.0, 1.0];
            r.brightness = 1.5;
        });
        assert_eq!(s.session.lights.set.ambient, [191, 255, 0, 255]);
        // A spot turned into a directional light is far along −direction.
        s.lights_panel().edit_light(1, "test", |r| {
            r.light_type = PrimeLightType::Directional.word();
            r.direction = crate::ui::lights::direction_from_angles(0.0, -90.0);
        });
        let d = gx(&s, 0);
        assert_eq!(d.dist_atten, [1.0, 0.0, 0.0]);
        assert!(
            (d.position[2] - 1_048_576.0).abs() < 1.0,
            "{:?}",
            d.position
        );
    }

    #[test]
    fn directions_round_trip_through_yaw_and_pitch() {
        use crate::ui::lights::{angles_of_direction, direction_from_angles};
        for (yaw, pitch) in [(0.0, 0.0), (30.0, -45.0), (-120.0, 10.0), (179.0, 89.0)] {
            let d = direction_from_angles(yaw, pitch);
            let len = glam::Vec3::from(d).length();
            assert!((len - 1.0).abs() < 1e-6);
            let (y, p) = angles_of_direction(d);
            assert!(
                (y - yaw).abs() < 1e-3 && (p - pitch).abs() < 1e-3,
                "{y} {p}"
            );
        }
        assert_eq!(angles_of_direction([0.0; 3]), (0.0, 0.0));
    }

    #[test]
    fn a_saved_light_set_loads_back_and_bad_files_are_refused_by_name() {
        let dir = std::env::temp_dir().join(format!("tevscope-lights-ui-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("rig.json");
        let mut s = state();
        s.lights_panel().add_light(PrimeLightType::Custom);
        s.lights_panel().add_light(PrimeLightType::Spot);
        s.lights_panel()
            .edit_light(3, "test", |r| r.color = [0.2, 0.4, 0.6, 1.0]);
        assert!(
            s.lights_panel().save_light_file(&path),
            "{:?}",
            s.light_editor.error
        );
        let (records, set) = (s.light_editor.records.clone(), s.session.lights.set.clone());
        // No temporary file is left next to it.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1);
        s.set_lights(LightChoice::none());
        assert_ne!(s.session.lights.set, set);
        let before = s.session.lights.revision;
        assert!(s.lights_panel().load_light_file(&path));
        assert_eq!(s.light_editor.records, records);
        assert_eq!(s.session.lights.set, set);
        assert_eq!(s.session.lights.revision, before + 1);
        assert_eq!(s.session.lights.choice, LightChoice::file(&path));
        // The same file through the Start-from choice.
        s.set_lights(LightChoice::basic());
        s.set_lights(LightChoice::file(&path));
        assert_eq!(s.session.lights.set, set);
        // A broken file: the error names the file and the field, the lights stay.
        let text =
            std::fs::read_to_string(&path)
                .unwrap()
                .replacen("\"brightness\"", "\"brightnes\"", 1);
        let bad = dir.join("bad.json");
        std::fs::write(&bad, text).unwrap();
        let before = s.session.lights.revision;
        assert!(!s.lights_panel().load_light_file(&bad));
        let e = s.light_editor.error.clone().unwrap();
        assert!(
            e.contains("bad.json") && e.contains("lights[0]") && e.contains("brightnes"),
            "{e}"
        );
        assert_eq!(
            (s.session.lights.revision, &s.session.lights.set),
            (before, &set)
        );
        // Saving where no file can be written names the path.
        assert!(
            !s.lights_panel()
                .save_light_file(&dir.join("missing/rig.json"))
        );
        assert!(s.light_editor.error.as_ref().unwrap().contains("missing"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Where the gizmo of light `i` was drawn: its number's text sits up-right of it.
    fn gizmo_centre(out: &egui::FullOutput, i: usize) -> Option<egui::Pos2> {
        out.shapes.iter().find_map(|c| match &c.shape {
            egui::Shape::Text(t) if t.galley.text() == i.to_string() => {
                Some(t.pos + egui::vec2(-9.0, t.galley.rect.height() + 9.0))
            }
            _ => None,
        })
    }

    #[test]
    fn dragging_a_gizmo_moves_its_light_not_the_camera() {
        let mut s = state();
        s.open(&demo_spec("room"));
        let layer0 = s
            .lights_panel()
            .light_starts()
            .into_iter()
            .find(|(c, _)| matches!(c, LightChoice::Source { label, source: LightSource::Area { layer: 0, .. } } if label.contains("room")))
            .unwrap()
            .0;
        s.set_lights(layer0);
        let spot = s
            .light_editor
            .records
            .iter()
            .position(|r| r.kind() == PrimeLightType::Spot)
            .unwrap();
        s.central.texture = Some((egui::TextureId::User(1), [900, 600]));
        s.central.frame_pending = false;
        let ctx = egui::Context::default();
        let frame = |s: &mut AppState, events: Vec<egui::Event>| {
            let input = egui::RawInput {
                screen_rect: Some(egui::Rect::from_min_size(
                    egui::Pos2::ZERO,
                    egui::vec2(1600.0, 900.0),
                )),
                events,
                ..Default::default()
            };
            let mut out = ctx.run_ui(input, |ui| super::super::show(ui, s));
            out.textures_delta.clear();
            out
        };
        // By default the gizmos show only while the Lights tab is open.
        s.tab = RightTab::Material;
        let mut out = frame(&mut s, vec![]);
        for _ in 0..3 {
            out = frame(&mut s, vec![]);
        }
        assert!(
            gizmo_centre(&out, spot).is_none(),
            "gizmos drawn with the Material tab"
        );
        s.light_editor.gizmos = GizmoMode::Always;
        out = frame(&mut s, vec![]);
        assert!(
            gizmo_centre(&out, spot).is_some(),
            "gizmos missing in Always mode"
        );
        s.light_editor.gizmos = GizmoMode::WithLightsTab;
        s.tab = RightTab::Lights;
        out = frame(&mut s, vec![]);
        let at = gizmo_centre(&out, spot).expect("the spot's gizmo is drawn");
        let camera = s.session.camera.orbit;
        let before = s.light_editor.records[spot].position;
        let button = |pos, pressed| egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Default::default(),
        };
        frame(&mut s, vec![egui::Event::PointerMoved(at)]);
        frame(&mut s, vec![button(at, true)]);
        let mut p = at;
        for _ in 0..6 {
            p += egui::vec2(10.0, 5.0);
            frame(&mut s, vec![egui::Event::PointerMoved(p)]);
        }
        frame(&mut s, vec![button(p, false)]);
        assert_eq!(s.session.camera.orbit, camera, "the camera stays");
        assert_eq!(s.light_editor.selected, Some(spot));
        let after = s.light_editor.records[spot].position;
        assert_ne!(after, before);
        // It followed the cursor.
        let out = frame(&mut s, vec![]);
        let moved = gizmo_centre(&out, spot).unwrap();
        assert!((moved - p).length() < 2.0, "{moved:?} vs {p:?}");
    }

    #[test]
    fn the_room_offers_its_layers_and_the_tab_and_gizmos_draw() {
        let mut s = state();
        s.open(&demo_spec("room"));
        assert!(
            s.messages.load_error.is_none(),
            "{:?}",
            s.messages.load_error
        );
        let starts = s.lights_panel().light_starts();
        let room_layer1 = starts
            .iter()
            .find(|(c, _)| matches!(c, LightChoice::Source { label, source: LightSource::Area { layer: 1, .. } } if label.contains("room")))
            .cloned()
            .expect("the room's layer 1 is offered");
        let room_layer0 = starts
            .iter()
            .find(|(c, _)| matches!(c, LightChoice::Source { label, source: LightSource::Area { layer: 0, .. } } if label.contains("room")))
            .cloned()
            .expect("the room's layer 0 is offered");
        assert_eq!(room_layer0.1, Some(4));
        s.set_lights(room_layer0.0.clone());
        assert!(
            s.messages.load_error.is_none(),
            "{:?}",
            s.messages.load_error
        );
        let kinds: Vec<_> = s.light_editor.records.iter().map(|r| r.kind()).collect();
        for k in PrimeLightType::ALL {
            assert!(kinds.contains(&k), "{k:?} in {kinds:?}");
        }
        let layer0 = s.session.lights.set.clone();
        s.set_lights(room_layer1.0);
        assert_ne!(s.session.lights.set, layer0);
        s.set_lights(room_layer0.0);
        assert_eq!(s.session.lights.set, layer0);
        // The tab and the gizmos draw with a light of each kind selected in turn.
        s.tab = RightTab::Lights;
        s.central.texture = Some((egui::TextureId::User(1), [640, 400]));
        for (i, &kind) in kinds.iter().enumerate() {
            s.light_editor.selected = Some(i);
            let out = run_frame(&mut s);
            assert!(drew_text(&out, "Start from"));
            assert!(drew_text(&out, "ambient"));
            let derived = if kind == PrimeLightType::LocalAmbient {
                "ambient register"
            } else {
                "k = ("
            };
            assert!(drew_text(&out, derived), "derived GX values of light {i}");
        }
        let revision = s.session.lights.revision;
        run_frame(&mut s);
        assert_eq!(s.session.lights.revision, revision, "drawing edits nothing");
    }

    /// One frame of the whole UI at 1600 × 900 points on `ctx` with `events`.
    fn frame_with(
        ctx: &egui::Context,
        s: &mut AppState,
        events: Vec<egui::Event>,
    ) -> egui::FullOutput {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1600.0, 900.0),
            )),
            events,
            ..Default::default()
        };
        let mut out = ctx.run_ui(input, |ui| super::super::show(ui, s));
        out.textures_delta.clear();
        out
    }

    /// Where each number of the selected light's fields was drawn (below "Kind", in the
    /// right panel), top to bottom.
    fn number_fields(out: &egui::FullOutput, right: egui::Rect) -> Vec<egui::Pos2> {
        let texts: Vec<(String, egui::Pos2)> = out
            .shapes
            .iter()
            .filter_map(|c| match &c.shape {
                egui::Shape::Text(t) => Some((
                    t.galley.text().to_string(),
                    t.pos + t.galley.rect.center().to_vec2(),
                )),
                _ => None,
            })
            .filter(|(_, at)| right.contains(*at))
            .collect();
        let kind_y = texts
            .iter()
            .find(|(t, _)| t == "Kind")
            .map(|(_, at)| at.y)
            .expect("the Kind field");
        let mut fields: Vec<egui::Pos2> = texts
            .into_iter()
            .filter(|(t, at)| {
                let number = ["x ", "y ", "z ", "yaw ", "pitch "]
                    .iter()
                    .fold(t.as_str(), |t, p| t.trim_start_matches(p))
                    .trim_end_matches('°');
                at.y > kind_y && number.parse::<f32>().is_ok()
            })
            .map(|(_, at)| at)
            .collect();
        fields.sort_by(|a, b| a.y.total_cmp(&b.y).then(a.x.total_cmp(&b.x)));
        fields
    }

    fn press(at: egui::Pos2, pressed: bool) -> egui::Event {
        egui::Event::PointerButton {
            pos: at,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: Default::default(),
        }
    }

    fn key(key: egui::Key) -> egui::Event {
        egui::Event::Key {
            key,
            physical_key: None,
            pressed: true,
            repeat: false,
            modifiers: Default::default(),
        }
    }

    /// A user selects each light of the room and clicks into every number field and out
    /// again (Enter): no record changes by a bit (the ×56250 point light stays ×56250),
    /// nothing is recorded and the lights still stand for the room's layer.
    #[test]
    fn looking_at_light_fields_changes_nothing() {
        let mut s = state();
        s.open(&demo_spec("room"));
        assert!(
            s.messages.load_error.is_none(),
            "{:?}",
            s.messages.load_error
        );
        let records = s.light_editor.records.clone();
        assert!(
            records.iter().any(|r| r.brightness == 56_250.0),
            "{records:?}"
        );
        let choice = s.session.lights.choice.clone();
        assert!(
            matches!(choice.source(), Some(LightSource::Area { .. })),
            "{choice:?}"
        );
        s.tab = RightTab::Lights;
        s.central.texture = Some((egui::TextureId::User(1), [640, 400]));
        let ctx = egui::Context::default();
        let mut clicked = 0;
        for i in 0..records.len() {
            s.light_editor.selected = Some(i);
            let mut k = 0;
            loop {
                let out = frame_with(&ctx, &mut s, vec![]);
                let right = s.layout.right.expect("the right panel");
                let Some(&at) = number_fields(&out, right).get(k) else {
                    break;
                };
                frame_with(
                    &ctx,
                    &mut s,
                    vec![egui::Event::PointerMoved(at), press(at, true)],
                );
                frame_with(&ctx, &mut s, vec![press(at, false)]);
                frame_with(&ctx, &mut s, vec![]);
                frame_with(&ctx, &mut s, vec![key(egui::Key::Enter)]);
                frame_with(&ctx, &mut s, vec![]);
                k += 1;
                clicked += 1;
            }
            assert!(k >= 1, "light {i} shows its brightness");
        }
        // Brightness of each, position ×3 of the spot and point, cutoff, yaw and pitch.
        assert!(clicked >= 4 + 6 + 1 + 4, "{clicked} fields clicked");
        let same = |a: &PrimeLight, b: &PrimeLight| format!("{a:?}") == format!("{b:?}");
        for (i, (now, then)) in s.light_editor.records.iter().zip(&records).enumerate() {
            assert!(same(now, then), "light {i}: {now:?} was {then:?}");
        }
        assert_eq!(s.session.lights.choice, choice);
        assert_eq!(s.history_labels(), (vec![], vec![]));
    }

    /// Light edits are steps of the one undo history, between material edits, with their
    /// labels in the History tab; a drag of one field is one step.
    #[test]
    fn light_edits_undo_and_redo_with_the_material_edits() {
        let mut s = state();
        s.open(&demo_spec("room"));
        assert!(
            s.session.document().is_some(),
            "{:?}",
            s.session.read_only_note()
        );
        let opened = s.light_editor.records.clone();
        let choice = s.session.lights.choice.clone();
        let point = opened
            .iter()
            .position(|r| r.kind() == PrimeLightType::Custom)
            .unwrap();
        // A drag: many changes of one field, one step.
        for q in [56_000.0, 55_000.0, 54_000.0] {
            assert!(
                s.lights_panel()
                    .edit_light(point, "brightness", |r| r.brightness = q)
            );
        }
        let mut m = s.file_material().unwrap().clone();
        m.group_index ^= 1;
        s.apply_material(m, "group");
        assert!(
            s.messages.edit_error.is_none(),
            "{:?}",
            s.messages.edit_error
        );
        s.lights_panel().add_light(PrimeLightType::Spot);
        let label = format!("light {point}: brightness");
        let (done, undone) = s.history_labels();
        assert_eq!(
            done,
            [label.as_str(), "material 0: group", "add light 4"],
            "{undone:?}"
        );
        // Ctrl+Z undoes the added light, then the material, then the brightness.
        assert!(s.undo());
        assert_eq!(s.light_editor.records.len(), opened.len());
        assert!(s.is_dirty());
        assert!(s.undo());
        assert!(!s.is_dirty());
        assert_eq!(s.light_editor.records[point].brightness, 54_000.0);
        let revision = s.session.lights.revision;
        assert!(s.undo());
        assert_eq!(s.light_editor.records, opened);
        assert_eq!(
            s.session.lights.choice, choice,
            "the lights stand for the room's layer again"
        );
        assert_eq!(
            s.session.lights.revision,
            revision + 1,
            "the view is lit as before"
        );
        assert!(!s.undo());
        // Redo all; the History tab lists both kinds.
        assert!(s.redo() && s.redo());
        assert!(s.is_dirty());
        assert_eq!(s.session.lights.choice, LightChoice::Edited);
        s.tab = RightTab::History;
        let out = run_frame(&mut s);
        assert!(drew_text(&out, &label) && drew_text(&out, "add light 4 (undone)"));
        // A light edit after an undo drops what was undone, the document's too.
        assert!(s.undo());
        assert!(!s.is_dirty());
        s.lights_panel().remove_light(0);
        assert!(!s.redo());
        assert_eq!(s.session.document().unwrap().redo_history().count(), 0);
        assert_eq!(s.history_labels().0.len(), 2);
        // Opening a file starts a new history.
        s.open(&demo_spec("showcase"));
        assert_eq!(s.history_labels(), (vec![], vec![]));
        assert!(!s.undo());
    }

    #[test]
    fn a_light_set_saved_without_an_extension_gets_json() {
        let dir = std::env::temp_dir().join(format!("tevscope-lights-ext-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut s = state();
        assert!(s.lights_panel().save_light_file(&dir.join("rig")));
        assert!(dir.join("rig.json").is_file());
        assert!(!dir.join("rig").exists());
        assert_eq!(
            s.light_editor.path_text,
            dir.join("rig.json").display().to_string()
        );
        assert!(s.lights_panel().load_light_file(&dir.join("rig.json")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
