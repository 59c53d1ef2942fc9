//! The TEV stage editor: every field of every stage with named choices (the gx name
//! tables), and add, duplicate, remove, drag to reorder (or move up and down).

use egui::{Color32, RichText, Ui};

use crate::formats::material::{Material as FileMaterial, TevStageWords};
use crate::gx::names::{TevBiasField, TevOp, TevScaleField};
use crate::gx::tev::{describe_alpha, describe_color, pass_through_stage};
use crate::gx::types::{
    AlphaInput, ColorInput, KonstSel, RasterChannel, TevCombine, TevReg, TevStage,
};

use super::{combo, named};

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

pub(super) fn stages_editor(ui: &mut Ui, m: &mut FileMaterial, label: &mut Option<String>) {
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
            ui.horizontal(|ui| {
                ui.dnd_drag_source(ui.scope_id().with(("stage_drag", i)), StageDrag(i), |ui| {
                    ui.label(RichText::new("::").strong().monospace())
                        .on_hover_text("Drag onto another stage to move it there");
                });
                ui.vertical(|ui| {
                    egui::CollapsingHeader::new(header)
                        .id_salt(("stage", i))
                        .default_open(count <= 3)
                        .show(ui, |ui| {
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
                                    .add_enabled(
                                        count < MAX_STAGES,
                                        egui::Button::new("duplicate").small(),
                                    )
                                    .clicked()
                                {
                                    action = Some(StageAction::Duplicate(i));
                                }
                                if ui.small_button("remove").clicked() {
                                    action = Some(StageAction::Remove(i));
                                }
                            });
                            ui.monospace(describe_alpha(&stage));
                            if let Some(field) = stage_fields(ui, i, &mut stage, &maps, &coords) {
                                m.tev_stages[i] = words.with_gx(&stage);
                                *label = Some(format!("stage {i} {field}"));
                            }
                        });
                });
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
}

/// The stage's fields; returns the name of the one that changed.
fn stage_fields(
    ui: &mut Ui,
    i: usize,
    s: &mut TevStage,
    maps: &[Option<u8>],
    coords: &[Option<u8>],
) -> Option<String> {
    let mut changed = None;
    egui::Grid::new(("stage_grid", i))
        .num_columns(2)
        .spacing([6.0, 4.0])
        .show(ui, |ui| {
            ui.label("colour a b c d");
            ui.horizontal(|ui| {
                for (k, input) in s.color_in.iter_mut().enumerate() {
                    if named(ui, (i, "cin", k), input, &ColorInput::ALL) {
                        changed = Some(format!("colour input {}", ["a", "b", "c", "d"][k]));
                    }
                }
            });
            ui.end_row();
            ui.label("colour op");
            ui.horizontal(|ui| {
                if combine_editor(ui, (i, "cop"), &mut s.color_op) {
                    changed = Some("colour op".into());
                }
            });
            ui.end_row();
            ui.label("alpha a b c d");
            ui.horizontal(|ui| {
                for (k, input) in s.alpha_in.iter_mut().enumerate() {
                    if named(ui, (i, "ain", k), input, &AlphaInput::ALL) {
                        changed = Some(format!("alpha input {}", ["a", "b", "c", "d"][k]));
                    }
                }
            });
            ui.end_row();
            ui.label("alpha op");
            ui.horizontal(|ui| {
                if combine_editor(ui, (i, "aop"), &mut s.alpha_op) {
                    changed = Some("alpha op".into());
                }
            });
            ui.end_row();
            ui.label("konst sel");
            ui.horizontal(|ui| {
                ui.label("colour");
                if named(ui, (i, "kc"), &mut s.kcsel, &KonstSel::ALL) {
                    changed = Some("konst colour selector".into());
                }
                ui.label("alpha");
                if named(ui, (i, "ka"), &mut s.kasel, &KonstSel::ALL) {
                    changed = Some("konst alpha selector".into());
                }
            });
            ui.end_row();
            ui.label("raster");
            if named(ui, (i, "ras"), &mut s.raster, &RasterChannel::ALL) {
                changed = Some("raster channel".into());
            }
            ui.end_row();
            ui.label("texture");
            ui.horizontal(|ui| {
                let slot = |v: Option<u8>| v.map_or("none".into(), |v| v.to_string());
                ui.label("map");
                if combo(ui, (i, "map"), &mut s.tex_map, maps, slot) {
                    changed = Some("texture map".into());
                }
                ui.label("coord");
                if combo(ui, (i, "coord"), &mut s.tex_coord, coords, slot) {
                    changed = Some("texture coordinate".into());
                }
            });
            ui.end_row();
        });
    changed
}

/// Op (ADD, SUB or a compare), bias, scale, clamp and output register of one combiner.
fn combine_editor(ui: &mut Ui, id: (usize, &str), c: &mut TevCombine) -> bool {
    let mut op = TevOp(c.op);
    let mut bias = TevBiasField(c.bias);
    let mut scale = TevScaleField(c.scale);
    let mut changed = named(ui, (id, "op"), &mut op, &TevOp::ALL);
    changed |= named(ui, (id, "bias"), &mut bias, &TevBiasField::ALL);
    changed |= named(ui, (id, "scale"), &mut scale, &TevScaleField::ALL);
    changed |= ui.checkbox(&mut c.clamp, "clamp").changed();
    ui.label("to");
    changed |= named(ui, (id, "out"), &mut c.out_reg, &TevReg::ALL);
    (c.op, c.bias, c.scale) = (op.0, bias.0, scale.0);
    changed
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
