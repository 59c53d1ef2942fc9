//! The TEV stage editor: every field of every stage with named choices (the gx name
//! tables), and add, duplicate, remove, drag to reorder (or move up and down).

use egui::collapsing_header::CollapsingState;
use egui::{Color32, RichText, Ui};

use crate::formats::material::{Material as FileMaterial, TevStageWords};
use crate::gx::names::{TevBiasField, TevOp, TevScaleField};
use crate::gx::tev::{describe_alpha, describe_color, pass_through_stage};
use crate::gx::types::{
    AlphaInput, ColorInput, KonstSel, RasterChannel, TevCombine, TevReg, TevStage,
};

use super::{COMBO_WIDTH, combo, named};

/// GX runs at most 16 TEV stages.
const MAX_STAGES: usize = 16;

/// What a stage's buttons (or a drag) asked for.
#[derive(Debug, Clone, Copy, PartialEq)]
enum StageAction {
    Up(usize),
    Down(usize),
    /// Stage `.0` dropped onto stage `.1`'s place.
    Move(usize, usize),
    Duplicate(usize),
    Remove(usize),
}

/// The payload of a stage being dragged: its index.
struct StageDrag(usize);

/// Applies `a` to the stage list and names the edit (for the history).
fn apply(a: StageAction, s: &mut Vec<TevStageWords>) -> String {
    match a {
        StageAction::Up(i) => {
            s.swap(i - 1, i);
            format!("move stage {i} up")
        }
        StageAction::Down(i) => {
            s.swap(i, i + 1);
            format!("move stage {i} down")
        }
        StageAction::Move(from, to) => {
            let stage = s.remove(from);
            s.insert(to, stage);
            format!("move stage {from} to {to}")
        }
        StageAction::Duplicate(i) => {
            s.insert(i + 1, s[i]);
            format!("duplicate stage {i}")
        }
        StageAction::Remove(i) => {
            s.remove(i);
            format!("remove stage {i}")
        }
    }
}

/// The stage list; returns where the first open stage's fields were laid out (whole, even
/// where the panel cuts them), for the layout report.
pub(super) fn stages_editor(
    ui: &mut Ui,
    m: &mut FileMaterial,
    label: &mut Option<String>,
) -> Option<egui::Rect> {
    ui.separator();
    ui.heading("TEV stages");
    let count = m.tev_stages.len();
    let maps: Vec<Option<u8>> = std::iter::once(None)
        .chain((0..m.texture_indices.len().max(1) as u8).map(Some))
        .collect();
    let coords: Vec<Option<u8>> = std::iter::once(None)
        .chain((0..m.texgens.len().max(1) as u8).map(Some))
        .collect();
    let mut action = None;
    let mut first_fields = None;
    for i in 0..count {
        let words = m.tev_stages[i];
        let Some(mut stage) = words.to_gx() else {
            ui.horizontal(|ui| {
                ui.colored_label(
                    Color32::from_rgb(255, 110, 110),
                    format!("stage {i}: fields out of range ({words:?})"),
                );
                if ui.small_button("remove").clicked() {
                    action = Some(StageAction::Remove(i));
                }
            });
            continue;
        };
        let header = RichText::new(format!("stage {i}   {}", describe_color(&stage))).monospace();
        let (_, dropped) = ui.dnd_drop_zone::<StageDrag, ()>(egui::Frame::NONE, |ui| {
            let id = ui.make_persistent_id(("stage", i));
            let mut clicked = false;
            let mut stage_ui = CollapsingState::load_with_default_open(ui.ctx(), id, count <= 3)
                .show_header(ui, |ui| {
                    ui.dnd_drag_source(ui.scope_id().with(("stage_drag", i)), StageDrag(i), |ui| {
                        ui.label(RichText::new("::").strong().monospace())
                            .on_hover_text("Drag onto another stage to move it there");
                    });
                    clicked = ui
                        .add(egui::Label::new(header).sense(egui::Sense::click()))
                        .clicked();
                });
            if clicked {
                stage_ui.toggle();
            }
            // The body takes the panel's whole width (no indent): a stage fits a narrow panel.
            stage_ui.body_unindented(|ui| {
                ui.horizontal(|ui| {
                    if ui
                        .add_enabled(i > 0, egui::Button::new("up").small())
                        .clicked()
                    {
                        action = Some(StageAction::Up(i));
                    }
                    if ui
                        .add_enabled(i + 1 < count, egui::Button::new("down").small())
                        .clicked()
                    {
                        action = Some(StageAction::Down(i));
                    }
                    if ui
                        .add_enabled(count < MAX_STAGES, egui::Button::new("duplicate").small())
                        .clicked()
                    {
                        action = Some(StageAction::Duplicate(i));
                    }
                    if ui.small_button("remove").clicked() {
                        action = Some(StageAction::Remove(i));
                    }
                });
                ui.monospace(describe_alpha(&stage));
                let (rect, field) = stage_fields(ui, i, &mut stage, &maps, &coords);
                first_fields.get_or_insert(rect);
                if let Some(field) = field {
                    m.tev_stages[i] = words.with_gx(&stage);
                    *label = Some(format!("stage {i} {field}"));
                }
            });
        });
        if let Some(from) = dropped
            .map(|d| d.0)
            .filter(|&from| from != i && from < count)
        {
            action = Some(StageAction::Move(from, i));
        }
    }
    if let Some(a) = action {
        *label = Some(apply(a, &mut m.tev_stages));
    }
    if ui
        .add_enabled(count < MAX_STAGES, egui::Button::new("add stage"))
        .on_hover_text("A stage that passes the previous result through (d = PREV)")
        .clicked()
    {
        m.tev_stages
            .push(TevStageWords::from_gx(&pass_through_stage()));
        *label = Some(format!("add stage {count}"));
    }
    first_fields
}

/// The gap between the stage grid's columns (points).
const COLUMN_GAP: f32 = 6.0;

/// The id salt of one combiner field: stage, side (colour or alpha) and field.
type FieldSalt = (usize, &'static str, &'static str);

/// One field of a combiner, as a grid row: its label and its editor (true when changed).
type CombineField = (
    &'static str,
    fn(&mut Ui, FieldSalt, &mut TevCombine) -> bool,
);

/// The combiner fields in the order GX applies them: `out = clamp(scale * (op(a, b, c, d)
/// + bias))`.
const COMBINE_FIELDS: [CombineField; 5] = [
    ("op", |ui, id, c| {
        let mut op = TevOp(c.op);
        let changed = named(ui, id, &mut op, &TevOp::ALL);
        c.op = op.0;
        changed
    }),
    ("bias", |ui, id, c| {
        let mut bias = TevBiasField(c.bias);
        let changed = named(ui, id, &mut bias, &TevBiasField::ALL);
        c.bias = bias.0;
        changed
    }),
    ("scale", |ui, id, c| {
        let mut scale = TevScaleField(c.scale);
        let changed = named(ui, id, &mut scale, &TevScaleField::ALL);
        c.scale = scale.0;
        changed
    }),
    ("clamp", |ui, _, c| ui.checkbox(&mut c.clamp, "").changed()),
    ("out", |ui, id, c| {
        named(ui, id, &mut c.out_reg, &TevReg::ALL)
    }),
];

/// The stage's fields, colour and alpha side by side (one row per field, so a stage fits
/// a narrow panel whole); returns where the grid went and the name of the field changed.
fn stage_fields(
    ui: &mut Ui,
    i: usize,
    s: &mut TevStage,
    maps: &[Option<u8>],
    coords: &[Option<u8>],
) -> (egui::Rect, Option<String>) {
    let mut changed = None;
    let grid = egui::Grid::new(("stage_grid", i))
        .num_columns(3)
        .spacing([COLUMN_GAP, 4.0])
        .show(ui, |ui| {
            ui.label("");
            ui.weak("colour");
            ui.weak("alpha");
            ui.end_row();
            for (k, name) in ["a", "b", "c", "d"].into_iter().enumerate() {
                ui.label(name);
                if named(ui, (i, "cin", k), &mut s.color_in[k], &ColorInput::ALL) {
                    changed = Some(format!("colour input {name}"));
                }
                if named(ui, (i, "ain", k), &mut s.alpha_in[k], &AlphaInput::ALL) {
                    changed = Some(format!("alpha input {name}"));
                }
                ui.end_row();
            }
            for (field, edit) in COMBINE_FIELDS {
                ui.label(field);
                for (side, c) in [("colour", &mut s.color_op), ("alpha", &mut s.alpha_op)] {
                    if edit(ui, (i, side, field), c) {
                        changed = Some(format!("{side} {field}"));
                    }
                }
                ui.end_row();
            }
            ui.label("konst");
            if named(ui, (i, "kc"), &mut s.kcsel, &KonstSel::ALL) {
                changed = Some("konst colour selector".into());
            }
            if named(ui, (i, "ka"), &mut s.kasel, &KonstSel::ALL) {
                changed = Some("konst alpha selector".into());
            }
            ui.end_row();
            // One value each, in the colour column. Raster names are long (ALPHA_BUMPN):
            // cut where the alpha column would be pushed past the panel's visible edge
            // (whole on hover and in the list).
            ui.label("raster");
            let room = ui.clip_rect().right() - ui.cursor().left() - COLUMN_GAP - COMBO_WIDTH;
            let size = egui::vec2(room.max(COMBO_WIDTH), ui.spacing().interact_size.y);
            let layout = egui::Layout::left_to_right(egui::Align::Center);
            ui.allocate_ui_with_layout(size, layout, |ui| {
                ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Truncate);
                if named(ui, (i, "ras"), &mut s.raster, &RasterChannel::ALL) {
                    changed = Some("raster channel".into());
                }
            })
            .response
            .on_hover_text(s.raster.to_string());
            ui.end_row();
            let slot = |v: Option<u8>| v.map_or("none".into(), |v| v.to_string());
            ui.label("map");
            if combo(ui, (i, "map"), &mut s.tex_map, maps, slot) {
                changed = Some("texture map".into());
            }
            ui.end_row();
            ui.label("coord");
            if combo(ui, (i, "coord"), &mut s.tex_coord, coords, slot) {
                changed = Some("texture coordinate".into());
            }
            ui.end_row();
        });
    (grid.response.rect, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A dragged stage lands where it was dropped, the others keep their order; up, down,
    /// duplicate and remove do what they say.
    #[test]
    fn stage_actions_reorder_as_asked() {
        let stages: Vec<TevStageWords> = (0..4u32)
            .map(|k| {
                let mut w = TevStageWords::from_gx(&pass_through_stage());
                w.color_inputs = k;
                w
            })
            .collect();
        let order = |s: &[TevStageWords]| s.iter().map(|w| w.color_inputs).collect::<Vec<_>>();
        let mut s = stages.clone();
        assert_eq!(apply(StageAction::Move(0, 2), &mut s), "move stage 0 to 2");
        assert_eq!(order(&s), [1, 2, 0, 3]);
        apply(StageAction::Move(3, 0), &mut s);
        assert_eq!(order(&s), [3, 1, 2, 0]);
        apply(StageAction::Up(1), &mut s);
        assert_eq!(order(&s), [1, 3, 2, 0]);
        apply(StageAction::Down(2), &mut s);
        assert_eq!(order(&s), [1, 3, 0, 2]);
        apply(StageAction::Duplicate(0), &mut s);
        apply(StageAction::Remove(4), &mut s);
        assert_eq!(order(&s), [1, 1, 3, 0]);
    }
}
