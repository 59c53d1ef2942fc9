//! The Material tab for an MP3 model: the selected material's flags and element list (what
//! the file stores), edited through the same JSON Patch paths as `tevscope edit`, so each
//! change is one undoable command; and the program the synthesis builds from them.

use egui::{Color32, Ui};
use serde::Serialize;
use serde_json::Value;

use super::super::parts::MaterialPanel;
use crate::formats::mp3_material::{Element, Mp3Material};
use crate::gx::mp3::PassType;
use crate::schema::cmdl_mp3::{ElementInfo, Mp3GxInfo};

/// The selected MP3 material as stored, when the open model is an MP3 one.
fn selected(state: &MaterialPanel<'_>) -> Option<Mp3Material> {
    let sets = state.session.document()?.mp3_materials()?;
    let selection = &state.session.selection;
    Some(
        sets.sets
            .get(selection.set)?
            .materials
            .get(selection.material)?
            .clone(),
    )
}

/// The spec's MP3 Alts (`load::MP3_ALTS`) as toggles, for an MP3 model: a change derives
/// the open model again (edits and history kept) and is kept for the next file opened.
pub(super) fn mp3_alt_toggles(ui: &mut Ui, state: &mut MaterialPanel<'_>) {
    if !state.session.asset().is_some_and(|a| a.is_mp3_model()) {
        return;
    }
    let mut alts = state.session.mp3_alts();
    let mut changed = false;
    ui.collapsing("MP3 Alts (formats.md §13)", |ui| {
        for alt in &crate::load::MP3_ALTS {
            changed |= ui
                .checkbox((alt.flag)(&mut alts), alt.name)
                .on_hover_text(format!("{}: {}", alt.spec, alt.what))
                .changed();
        }
        ui.weak("Alts change how the model is derived and drawn, not the file.");
    });
    if changed {
        state.opening.references.mp3_alts = alts;
        match state.session.set_mp3_alts(alts) {
            Ok(change) => state.editor().document_changed(change),
            Err(e) => state.messages.edit_error = Some(format!("MP3 Alts: {e:#}")),
        }
    }
}

/// Draws the editor; false when the open model is not an MP3 one (the caller draws its own).
pub(super) fn mp3_material_editor(ui: &mut Ui, state: &mut MaterialPanel<'_>) -> bool {
    let Some(m) = selected(state) else {
        return false;
    };
    egui::ScrollArea::vertical()
        .id_salt("mp3_material_scroll")
        .show(ui, |ui| draw(ui, state, &m));
    true
}

fn draw(ui: &mut Ui, state: &mut MaterialPanel<'_>, m: &Mp3Material) {
    let selection = &state.session.selection;
    let base = format!(
        "/material_sets/{}/materials/{}",
        selection.set, selection.material
    );
    let mut ops: Vec<(Value, String)> = Vec::new();
    let gx = Mp3GxInfo::with_options(m, &state.session.mp3_alts().synthesis);
    ui.label(format!(
        "{:?} · {} TEV stages ({})",
        gx.configuration,
        gx.tev_stages.len(),
        gx.tev_stages
            .iter()
            .map(|s| s.recipe)
            .collect::<Vec<_>>()
            .join(" ")
    ));
    for w in &gx.warnings {
        ui.colored_label(Color32::from_rgb(240, 200, 80), w);
    }
    ui.heading("Flags");
    ui.horizontal_wrapped(|ui| {
        for (bit, name) in [
            (0x4, "force lighting"),
            (0x8, "transparent"),
            (0x10, "masked"),
            (0x20, "additive incandescence"),
            (0x100, "occluder"),
            (0x200, "solid white"),
            (0x400, "reflection alpha"),
            (0x800, "solid colour"),
        ] {
            let mut on = m.flags & bit != 0;
            if ui.checkbox(&mut on, name).changed() {
                ops.push((
                    op("replace", format!("{base}/flags"), Some(m.flags ^ bit)),
                    format!("flag {name}"),
                ));
            }
        }
    });
    ui.heading("Elements");
    let last = m.elements.len().saturating_sub(1);
    for (i, e) in m.elements.iter().enumerate() {
        let at = format!("{base}/elements/{i}");
        ui.horizontal_wrapped(|ui| {
            ui.monospace(e.tag());
            match e {
                Element::Pass(p) => {
                    let current = p
                        .pass_type()
                        .map_or_else(|| p.kind.to_string(), |t| t.fourcc().into());
                    egui::ComboBox::from_id_salt(("mp3pass", i))
                        .selected_text(current.clone())
                        .show_ui(ui, |ui| {
                            for t in PassType::ALL {
                                if ui
                                    .selectable_label(t.fourcc() == current, t.fourcc())
                                    .clicked()
                                {
                                    ops.push((
                                        op("replace", format!("{at}/type"), Some(t.fourcc())),
                                        format!("element {i} pass type"),
                                    ));
                                }
                            }
                        });
                    let channel = (p.flags & 3) as usize;
                    egui::ComboBox::from_id_salt(("mp3chan", i))
                        .selected_text(format!("alpha from {}", ["R", "G", "B", "A"][channel]))
                        .show_ui(ui, |ui| {
                            for (c, name) in ["R", "G", "B", "A"].iter().enumerate() {
                                if ui.selectable_label(c == channel, *name).clicked() {
                                    ops.push((
                                        op(
                                            "replace",
                                            format!("{at}/flags"),
                                            Some((p.flags & !3) | c as u32),
                                        ),
                                        format!("element {i} alpha channel"),
                                    ));
                                }
                            }
                        });
                    for (bit, name) in [(0x4, "bloom"), (0x8, "INCA mod"), (0x10, "invert")] {
                        let mut on = p.flags & bit != 0;
                        if ui.checkbox(&mut on, name).changed() {
                            ops.push((
                                op("replace", format!("{at}/flags"), Some(p.flags ^ bit)),
                                format!("element {i} {name}"),
                            ));
                        }
                    }
                    ui.weak(format!(
                        "{} · TEX{} · {} animation bytes",
                        crate::session::asset::texture_id_text(p.texture_id),
                        p.uv_set,
                        p.uv_animation.len()
                    ));
                }
                Element::Color { kind, rgba } => {
                    ui.monospace(kind.to_string());
                    let c = rgba.to_be_bytes();
                    let mut color = Color32::from_rgba_unmultiplied(c[0], c[1], c[2], c[3]);
                    if ui.color_edit_button_srgba(&mut color).changed() {
                        ops.push((
                            op(
                                "replace",
                                format!("{at}/rgba8"),
                                Some(color.to_srgba_unmultiplied()),
                            ),
                            format!("element {i} colour"),
                        ));
                    }
                }
                Element::Int { kind, value } => {
                    ui.monospace(format!("{kind} = {value}"));
                    for (step, name) in [(-32i64, "−32"), (32, "+32")] {
                        if ui.small_button(name).clicked() {
                            let v = (i64::from(*value) + step).clamp(0, 255);
                            ops.push((
                                op("replace", format!("{at}/value"), Some(v)),
                                format!("element {i} value"),
                            ));
                        }
                    }
                }
                Element::End => {}
            }
            if !matches!(e, Element::End) && ui.small_button("remove").clicked() {
                ops.push((
                    op("remove", at.clone(), None::<()>),
                    format!("remove element {i}"),
                ));
            }
        });
    }
    ui.horizontal(|ui| {
        let add = |value: ElementInfo| op("add", format!("{base}/elements/{last}"), Some(value));
        if ui.button("add DIFB colour").clicked() {
            ops.push((
                add(ElementInfo {
                    element: "CLR ".into(),
                    kind: Some("DIFB".into()),
                    rgba8: Some([255; 4]),
                    ..Default::default()
                }),
                "add DIFB".into(),
            ));
        }
        if ui.button("add OPAC").clicked() {
            ops.push((
                add(ElementInfo {
                    element: "INT ".into(),
                    kind: Some("OPAC".into()),
                    value: Some(255),
                    ..Default::default()
                }),
                "add OPAC".into(),
            ));
        }
    });
    for (op, label) in ops {
        let label = format!("material {}: {label}", state.session.selection.material);
        let result = serde_json::from_value::<json_patch::Patch>(Value::Array(vec![op]))
            .map_err(|e| e.to_string())
            .and_then(|patch| {
                state
                    .session
                    .apply_patch(&patch, &label)
                    .map_err(|e| e.to_string())
            });
        match result {
            Ok(change) => {
                state.messages.edit_error = None;
                state.editor().document_changed(change);
            }
            Err(e) => state.messages.edit_error = Some(format!("{label} refused: {e}")),
        }
    }
    if let Some(e) = &state.messages.edit_error {
        ui.colored_label(Color32::from_rgb(255, 110, 110), e);
    }
}

/// One JSON Patch operation (RFC 6902) on the model's schema, as `tevscope edit` takes it.
fn op<T: Serialize>(op: &'static str, path: String, value: Option<T>) -> Value {
    #[derive(Serialize)]
    struct Op<T> {
        op: &'static str,
        path: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        value: Option<T>,
    }
    serde_json::to_value(Op { op, path, value }).unwrap_or(Value::Null)
}
