//! The pixel inspector tab.

use egui::{Color32, RichText, Ui};

use crate::gx::tev::{describe_alpha, describe_color};
use crate::gx::types::TevReg;
use crate::ui::parts::InspectorPanel;
use crate::ui::state::RightTab;

fn rgba_cell(ui: &mut Ui, v: [i32; 4]) {
    let clamp = |x: i32| (x & 255) as u8;
    let color = Color32::from_rgb(clamp(v[0]), clamp(v[1]), clamp(v[2]));
    let (rect, _) = ui.allocate_exact_size(egui::vec2(12.0, 12.0), egui::Sense::hover());
    ui.painter().rect_filled(rect, 2.0, color);
    ui.monospace(format!("{:5} {:5} {:5} {:5}", v[0], v[1], v[2], v[3]));
}

fn model_inspector(ui: &mut Ui, state: &mut InspectorPanel<'_>) {
    let Some(p) = &state.picking.pick else {
        ui.weak("Click the model to see the surface, material and exact pixel under the cursor.");
        return;
    };
    ui.heading(format!("Pixel ({}, {})", p.x, p.y));
    egui::Grid::new("model_pick").num_columns(2).show(ui, |ui| {
        ui.label("displayed RGBA8");
        ui.horizontal(|ui| rgba_cell(ui, p.rgba.map(i32::from)));
        ui.end_row();
        match &p.hit {
            Some(hit) => {
                if let Some((wm, s)) = state
                    .session
                    .asset()
                    .and_then(|d| crate::load::area::world_model_of(&d.world_models, hit.surface))
                {
                    ui.label("world model");
                    ui.monospace(format!("{wm} (its surface {s})"));
                    ui.end_row();
                }
                ui.label("surface");
                ui.monospace(format!("{}", hit.surface));
                ui.end_row();
                ui.label("material");
                ui.monospace(format!("{} (set {})", hit.material, p.set));
                ui.end_row();
                ui.label("depth");
                ui.monospace(format!("{:.6}", hit.depth));
                ui.end_row();
            }
            None => {
                ui.label("surface");
                ui.weak("background");
                ui.end_row();
            }
        }
    });
    if let Some(hit) = &p.hit {
        if let Some(m) = state
            .session
            .asset()
            .and_then(|d| d.material(p.set, hit.material))
        {
            ui.separator();
            ui.label("Material stages");
            for (i, st) in m.material.stages.iter().enumerate() {
                ui.monospace(format!("{i}: {}", describe_color(st)));
                ui.monospace(format!("   {}", describe_alpha(st)));
            }
        }
        if ui.button("Edit this material").clicked() {
            *state.tab = RightTab::Material;
        }
    }
    ui.separator();
    ui.weak(
        "The exact TEV trace runs on the material quad: switch to \"Material quad\" and click \
         a pixel there.",
    );
}

pub(super) fn inspector_tab(ui: &mut Ui, mut state: InspectorPanel<'_>) {
    if state.shows_model {
        model_inspector(ui, &mut state);
        return;
    }
    if state.settings.orbit.is_some() {
        ui.weak("The pixel inspector traces the flat quad: switch the preview to \"flat quad\".");
        return;
    }
    let Some(r) = &state.selected.report else {
        ui.weak("Click a pixel in the viewport to trace it through the CPU reference TEV.");
        return;
    };
    let clear = state.settings.background;
    egui::ScrollArea::vertical()
        .id_salt("inspector_scroll")
        .show(ui, |ui| {
            ui.heading(format!("Pixel ({}, {})", r.x, r.y));
            ui.monospace(format!(
                "quad uv ({:.4}, {:.4})",
                r.quad_uv[0], r.quad_uv[1]
            ));
            for (i, tc) in r.tex_coords.iter().enumerate() {
                ui.monospace(format!("texcoord{i} ({:.4}, {:.4})", tc[0], tc[1]));
            }
            ui.label("Inputs");
            egui::Grid::new("inputs").num_columns(2).show(ui, |ui| {
                for (c, ras) in r.inputs.raster.iter().enumerate() {
                    ui.label(format!("raster COLOR{c}A{c}"));
                    ui.horizontal(|ui| rgba_cell(ui, ras.map(i32::from)));
                    ui.end_row();
                }
                let program = state.selected.edit.as_ref().map(|e| &e.program);
                for (i, t) in r.inputs.texels.iter().enumerate() {
                    let map = program
                        .and_then(|p| p.stages.get(i))
                        .and_then(|s| crate::gx::tev::stage_texture_map(&s.stage));
                    match map {
                        Some(m) => {
                            ui.label(format!("stage {i} texel (map {m})"));
                            ui.horizontal(|ui| rgba_cell(ui, t.map(i32::from)));
                        }
                        None => {
                            ui.label(format!("stage {i} texel"));
                            ui.weak("no texture map");
                        }
                    }
                    ui.end_row();
                }
            });
            ui.separator();
            ui.label("Registers after each stage (PREV, C0, C1, C2)");
            for (i, st) in r.trace.stages.iter().enumerate() {
                ui.strong(format!(
                    "stage {i}: colour -> {} {:?}, alpha -> {} {}",
                    st.color_dest.name(),
                    st.color,
                    st.alpha_dest.name(),
                    st.alpha
                ));
                egui::Grid::new(("trace", i)).num_columns(2).show(ui, |ui| {
                    for (k, reg) in st.registers.iter().enumerate() {
                        ui.monospace(TevReg::ALL[k].name());
                        ui.horizontal(|ui| rgba_cell(ui, reg.map(i32::from)));
                        ui.end_row();
                    }
                });
            }
            ui.separator();
            egui::Grid::new("final").num_columns(2).show(ui, |ui| {
                ui.label("TEV output");
                ui.horizontal(|ui| rgba_cell(ui, r.trace.rgba.map(i32::from)));
                ui.end_row();
                ui.label("alpha test");
                ui.label(if r.trace.alpha_pass {
                    RichText::new("pass").color(Color32::LIGHT_GREEN)
                } else {
                    RichText::new("fail (discarded)").color(Color32::from_rgb(255, 110, 110))
                });
                ui.end_row();
                ui.label("CPU writes");
                ui.horizontal(|ui| rgba_cell(ui, r.trace.written.map(i32::from)));
                ui.end_row();
                ui.label("GPU pixel");
                match r.gpu {
                    Some(g) => {
                        ui.horizontal(|ui| rgba_cell(ui, g.map(i32::from)));
                    }
                    None => {
                        ui.weak("not read");
                    }
                }
                ui.end_row();
            });
            match r.matches(clear) {
                Some(true) => {
                    ui.colored_label(Color32::LIGHT_GREEN, "GPU matches the CPU reference.");
                }
                Some(false) => {
                    ui.colored_label(
                        Color32::from_rgb(255, 110, 110),
                        "GPU differs from the CPU reference (GX filtering or GX blend views \
                         are not bit-exact; use exact TEV output + nearest).",
                    );
                }
                None => {}
            }
        });
}
