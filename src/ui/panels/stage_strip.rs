//! Under the stage list: the stage strip (a live thumbnail of every stage's output over the
//! model; a click shows that stage in the main view) and each stage written out readably —
//! its equations with the inputs that cannot matter greyed, a thumbnail or swatch per
//! input, and the BP words that program it ([`crate::gx::readable`]).

use egui::{Color32, RichText, Ui};

use crate::gx::readable::{CombinerInput, InputSource, stage_text};
use crate::gx::tev::PRIME_SWAP_TABLES;
use crate::gx::types::{Material, TevStage};
use crate::gx::wgsl::stage_view::StageView;
use crate::ui::parts::StageStripPanel;
use crate::ui::perf::raster_slot;
use crate::ui::viewport::THUMB_SIZE;

/// Thumbnail width in points in the strip; inputs get half of it.
const STRIP_WIDTH: f32 = 84.0;
const INPUT_WIDTH: f32 = 42.0;

/// What a click in the strip asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum StripClick {
    /// Show stage K of the material in the main view (again: back to shaded).
    Stage(u8),
    Shaded,
}

/// The stage view the main view shows after `click` on material `material`.
pub(super) fn after_click(
    current: Option<StageView>,
    material: usize,
    click: StripClick,
) -> Option<StageView> {
    match click {
        StripClick::Shaded => None,
        StripClick::Stage(stage) => {
            let picked = StageView {
                material: Some(material),
                stage,
            };
            (current != Some(picked)).then_some(picked)
        }
    }
}

fn thumb_size(width: f32) -> egui::Vec2 {
    let [w, h] = THUMB_SIZE;
    egui::vec2(width, width * h as f32 / w as f32)
}

/// The strip and the readable stages of the selected material.
pub(super) fn stage_strip(ui: &mut Ui, mut state: StageStripPanel<'_>) {
    let material_index = state.session.selection.material;
    let Some(material) = state
        .session
        .asset()
        .and_then(|d| d.material(state.session.selection.set, material_index))
        .map(|e| e.material.clone())
    else {
        return;
    };
    // A stage view belongs to the material it was picked on: another selection shows the
    // model shaded again.
    if state
        .strip
        .view
        .is_some_and(|v| v.material != Some(material_index))
    {
        state.strip.view = None;
    }
    ui.separator();
    ui.horizontal(|ui| {
        ui.heading("Stage views");
        ui.checkbox(&mut state.strip.open, "live")
            .on_hover_text("Render a thumbnail of every stage's output (model view)");
    });
    let shown = state
        .strip
        .view
        .filter(|v| v.material == Some(material_index))
        .map(|v| v.stage);
    let mut click = None;
    if state.strip.open && !state.strip.thumbs.is_empty() {
        // Rows that fit the panel (it scrolls sideways, so wrapping would not happen).
        let cell = STRIP_WIDTH + ui.spacing().item_spacing.x + 8.0;
        let visible = ui.clip_rect().right() - ui.cursor().left();
        let per_row = ((visible / cell).floor() as usize).clamp(1, 16);
        for (row, ids) in state.strip.thumbs.chunks(per_row).enumerate() {
            ui.horizontal(|ui| {
                for (i, &id) in ids.iter().enumerate() {
                    let k = row * per_row + i;
                    ui.vertical(|ui| {
                        let selected = shown == Some(k as u8);
                        let image = egui::Image::new((id, thumb_size(STRIP_WIDTH)))
                            .sense(egui::Sense::click());
                        let frame = egui::Frame::NONE
                            .stroke(egui::Stroke::new(
                                2.0,
                                if selected {
                                    Color32::from_rgb(255, 200, 60)
                                } else {
                                    Color32::TRANSPARENT
                                },
                            ))
                            .inner_margin(1.0);
                        let r = frame.show(ui, |ui| ui.add(image)).inner;
                        state.perf.mark_shown(ui, k, r.rect);
                        if r.on_hover_text(format!(
                            "Stage {k}: the registers it writes, over the material. Click to show it in the view."
                        ))
                        .clicked()
                        {
                            click = Some(StripClick::Stage(k as u8));
                        }
                        ui.label(RichText::new(format!("{k}")).small());
                    });
                }
            });
        }
    } else if state.strip.open && !state.shows_model {
        ui.weak("(thumbnails show in the model view)");
    }
    ui.horizontal(|ui| {
        match shown {
            Some(k) => ui.label(format!("The view shows stage {k}'s output.")),
            None => ui.weak("The view shows the shaded model."),
        };
        if shown.is_some() && ui.small_button("shaded").clicked() {
            click = Some(StripClick::Shaded);
        }
    });
    if let Some(c) = click {
        state.strip.view = after_click(state.strip.view, material_index, c);
    }
    equations(ui, &mut state, &material);
}

/// Each stage readable: equations, inputs (greyed when they cannot matter) with a
/// thumbnail where they vary, and the BP words.
fn equations(ui: &mut Ui, state: &mut StageStripPanel<'_>, material: &Material) {
    egui::CollapsingHeader::new("Stage equations")
        .id_salt("stage_equations")
        .default_open(true)
        .show(ui, |ui| {
            for k in 0..material.stages.len().min(16) {
                let Some(text) = stage_text(&material.stages, k, &PRIME_SWAP_TABLES) else {
                    continue;
                };
                let stage = &material.stages[k];
                ui.label(RichText::new(format!("stage {k}")).strong());
                for (combiner, alpha) in [(&text.color, false), (&text.alpha, true)] {
                    ui.monospace(&combiner.equation).on_hover_text(if alpha {
                        "alpha combiner"
                    } else {
                        "colour combiner"
                    });
                    ui.horizontal_wrapped(|ui| {
                        for input in &combiner.inputs {
                            input_chip(ui, state, material, stage, k, alpha, input);
                        }
                    });
                }
                ui.horizontal_wrapped(|ui| {
                    for w in &text.bp_words {
                        ui.label(
                            RichText::new(format!("BP {:02X}: {:08X}", w.reg, w.word()))
                                .monospace()
                                .small()
                                .color(Color32::GRAY),
                        )
                        .on_hover_text(w.what);
                    }
                });
                ui.add_space(4.0);
            }
        });
}

/// One input: slot and name (weak when unused), and a thumbnail (a register an earlier
/// stage wrote: that stage's strip thumbnail) or a swatch (konst, initial register).
fn input_chip(
    ui: &mut Ui,
    state: &mut StageStripPanel<'_>,
    material: &Material,
    stage: &TevStage,
    k: usize,
    alpha_combiner: bool,
    input: &CombinerInput,
) {
    ui.vertical(|ui| {
        let text = RichText::new(format!("{} {}", input.slot, input.name)).monospace();
        if input.used {
            ui.label(text);
        } else {
            ui.label(text.weak().strikethrough())
                .on_hover_text("cannot change this stage's result");
        }
        if !input.used {
            return;
        }
        match input.source {
            InputSource::Register { reg, alpha } => {
                let writer = (0..k).rev().find(|&j| {
                    let s = &material.stages[j];
                    if alpha {
                        s.alpha_op.out_reg == reg
                    } else {
                        s.color_op.out_reg == reg
                    }
                });
                match writer.and_then(|j| state.strip.thumbs.get(j).map(|&id| (j, id))) {
                    Some((j, id)) => {
                        let r = ui
                            .add(egui::Image::new((id, thumb_size(INPUT_WIDTH))))
                            .on_hover_text(format!("as stage {j} wrote it"));
                        state.perf.mark_shown(ui, j, r.rect);
                    }
                    None if writer.is_none() => {
                        let v = material.registers[reg.index()];
                        let rgba = v.map(|c| c.clamp(0, 255) as u8);
                        swatch(ui, rgba, alpha, "the register's initial value");
                    }
                    None => {}
                }
            }
            InputSource::Konst => {
                let rgba = if alpha_combiner {
                    [stage.kasel.alpha(&material.konst); 4]
                } else {
                    let [r, g, b] = stage.kcsel.color(&material.konst);
                    [r, g, b, 255]
                };
                swatch(ui, rgba, false, "konst: the same everywhere");
            }
            InputSource::Texture { alpha } => {
                // The texture list's thumbnail of the stage's map (the image itself; how it
                // lies on the model is the stage view's business).
                let thumb = stage.tex_map.and_then(|map| {
                    let t = state
                        .selected
                        .thumbnails
                        .as_ref()?
                        .get(map as usize)?
                        .as_ref()?;
                    Some((map, t.0.id()))
                });
                if let Some((map, id)) = thumb {
                    ui.add(egui::Image::new((id, thumb_size(INPUT_WIDTH))))
                        .on_hover_text(format!(
                            "texture map {map}{}",
                            if alpha { " (its alpha is read)" } else { "" }
                        ));
                }
            }
            // The lit colour channel the stage reads, over the material (the alpha has no
            // thumbnail).
            InputSource::Raster { alpha: false } => {
                if let Some(c) = stage.raster.channel()
                    && let Some(id) = state.strip.raster_thumbs[c]
                {
                    let r = ui
                        .add(egui::Image::new((id, thumb_size(INPUT_WIDTH))))
                        .on_hover_text(format!("lit colour channel {c} over the material"));
                    state.perf.mark_shown(ui, raster_slot(c), r.rect);
                }
            }
            InputSource::Raster { alpha: true } | InputSource::Constant => {}
        }
    });
}

fn swatch(ui: &mut Ui, rgba: [u8; 4], alpha: bool, hover: &str) {
    let [r, g, b, a] = rgba;
    let color = if alpha {
        Color32::from_gray(a)
    } else {
        Color32::from_rgb(r, g, b)
    };
    let (rect, response) = ui.allocate_exact_size(thumb_size(INPUT_WIDTH), egui::Sense::hover());
    ui.painter().rect_filled(rect, 2.0, color);
    response.on_hover_text(hover);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_click_shows_a_stage_and_a_second_click_goes_back() {
        let v = after_click(None, 3, StripClick::Stage(1));
        assert_eq!(
            v,
            Some(StageView {
                material: Some(3),
                stage: 1
            })
        );
        assert_eq!(after_click(v, 3, StripClick::Stage(1)), None);
        assert_eq!(
            after_click(v, 3, StripClick::Stage(2)).map(|v| v.stage),
            Some(2)
        );
        // Another material's stage replaces it.
        assert_eq!(
            after_click(v, 4, StripClick::Stage(1)).and_then(|v| v.material),
            Some(4)
        );
        assert_eq!(after_click(v, 3, StripClick::Shaded), None);
    }
}
