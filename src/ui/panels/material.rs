//! The Material tab: selection, view options, and the material's own fields.

use egui::{Color32, Ui};

use crate::formats::material::{Material as FileMaterial, channel_word};
use crate::gx::tev::{FinalRegister, MissingTexture};
use crate::gx::types::{
    AttnFn, Blend, BlendFactor, ChannelControl, ColorSrc, DiffuseFn, flags as gxflags,
};
use crate::session::{Asset, Content, MaterialEntry};
use crate::ui::editing::{selected_file_material, selected_texture_ids};
use crate::ui::parts::MaterialPanel;
use crate::ui::viewport::{AlphaDisplay, Compositing, Sampling};

use super::{color_button, named};
use crate::session::asset::texture_id_text;

pub(super) fn material_tab(ui: &mut Ui, state: &mut MaterialPanel<'_>) {
    if let Some(Asset {
        content: Content::Texture { .. },
        ..
    }) = state.session.asset()
    {
        ui.weak(
            "A texture has no material: its mip level, channels, sampling, zoom and PNG \
             export are above the texture.",
        );
        return;
    }
    // Set / material selector.
    let mut select = None;
    let mut hovered = None;
    if let Some(
        asset @ Asset {
            content: Content::Model { sets, .. },
            ..
        },
    ) = state.session.asset()
    {
        ui.horizontal_wrapped(|ui| {
            ui.label("Set");
            egui::ComboBox::from_id_salt("set")
                .selected_text(format!("{}", state.session.selection.set))
                .show_ui(ui, |ui| {
                    for i in 0..sets.len() {
                        if ui
                            .selectable_label(i == state.session.selection.set, format!("{i}"))
                            .clicked()
                        {
                            select = Some((i, 0));
                        }
                    }
                });
            let materials = sets
                .get(state.session.selection.set)
                .map_or(&[][..], |s| &s.materials[..]);
            ui.label(format!(
                "material {} of {}",
                state.session.selection.material,
                materials.len()
            ));
            if ui.button("<").clicked() && state.session.selection.material > 0 {
                select = Some((
                    state.session.selection.set,
                    state.session.selection.material - 1,
                ));
            }
            if ui.button(">").clicked() && state.session.selection.material + 1 < materials.len() {
                select = Some((
                    state.session.selection.set,
                    state.session.selection.material + 1,
                ));
            }
        });
        // Every material in one line each; hovering a row tints its surfaces.
        let materials = sets
            .get(state.session.selection.set)
            .map_or(&[][..], |s| &s.materials[..]);
        egui::CollapsingHeader::new(format!("Materials ({})", materials.len()))
            .id_salt("material_list")
            .default_open(true)
            .show(ui, |ui| {
                egui::ScrollArea::both()
                    .id_salt("material_list_scroll")
                    .max_height(160.0)
                    .show(ui, |ui| {
                        // One line per material; long rows scroll sideways.
                        ui.style_mut().wrap_mode = Some(egui::TextWrapMode::Extend);
                        // A selection made elsewhere (a pick, < >) scrolls its row into view.
                        let shown_id = ui.scope_id().with("material_list_shown");
                        let shown = ui.data(|d| d.get_temp::<(usize, usize)>(shown_id));
                        let current = (
                            state.session.selection.set,
                            state.session.selection.material,
                        );
                        for (i, m) in materials.iter().enumerate() {
                            let text = egui::RichText::new(material_row(i, m, |id| {
                                asset.texture(id).is_some()
                            }))
                            .monospace();
                            let row =
                                ui.selectable_label(i == state.session.selection.material, text);
                            if i == state.session.selection.material && shown != Some(current) {
                                // Vertically only: the rows' start stays in view.
                                let left = ui.max_rect().left();
                                let rect = egui::Rect::from_x_y_ranges(
                                    left..=left + 1.0,
                                    row.rect.y_range(),
                                );
                                ui.scroll_to_rect(rect, Some(egui::Align::Center));
                                ui.data_mut(|d| d.insert_temp(shown_id, current));
                            }
                            if row.hovered() {
                                hovered = Some(i);
                            }
                            if row.clicked() {
                                select = Some((state.session.selection.set, i));
                            }
                        }
                    });
            });
        if let Some(Err(e)) = sets
            .get(state.session.selection.set)
            .and_then(|s| s.materials.get(state.session.selection.material))
        {
            ui.colored_label(Color32::from_rgb(255, 110, 110), e);
        }
    }
    if let Some((s, m)) = select {
        state.editor().select_material(s, m);
    }
    if hovered.is_some() {
        state.picking.hovered_material = hovered;
    }

    // The quad preview's own settings (the model view draws with Prime's blending and
    // filtering).
    if !state.shows_model {
        quad_settings(ui, state);
    }
    ui.horizontal_wrapped(|ui| {
        ui.label("Show");
        let d = &mut state.settings.alpha_display;
        ui.selectable_value(d, AlphaDisplay::Checker, "RGBA over checker");
        ui.selectable_value(d, AlphaDisplay::Rgb, "RGB");
        ui.selectable_value(d, AlphaDisplay::Alpha, "alpha");
        ui.separator();
        ui.label("Background");
        color_button(ui, &mut state.settings.background);
    });

    let Some(edit) = state.selected.edit.as_mut() else {
        ui.weak("No material selected.");
        return;
    };
    let mut options = edit.options;
    let mut options_changed = false;
    ui.collapsing("TEV switches (gx.md §16)", |ui| {
        options_changed |= ui
            .checkbox(
                &mut options.reflection_pass_through,
                "engine reflection pass-through stage (§13)",
            )
            .changed();
        options_changed |= ui
            .checkbox(
                &mut options.alpha_one_as_zero,
                "write source alpha 1 as 0 (§8.2)",
            )
            .changed();
        options_changed |= ui
            .checkbox(
                &mut options.exact_blend,
                "exact GX blending in the shader (§8.2; model view)",
            )
            .on_hover_text(
                "Blended surfaces read a copy of the target and blend with GX's integer rule; \
                 off: host blending, which may differ by 1 LSB",
            )
            .changed();
        ui.horizontal_wrapped(|ui| {
            ui.label("final pixel from");
            options_changed |= ui
                .selectable_value(
                    &mut options.final_register,
                    FinalRegister::LastStage,
                    "last stage's registers",
                )
                .changed();
            options_changed |= ui
                .selectable_value(&mut options.final_register, FinalRegister::Prev, "PREV")
                .changed();
        });
        ui.horizontal_wrapped(|ui| {
            ui.label("missing texture reads");
            options_changed |= ui
                .selectable_value(&mut options.missing_texture, MissingTexture::White, "255")
                .changed();
            options_changed |= ui
                .selectable_value(&mut options.missing_texture, MissingTexture::Black, "0")
                .changed();
        });
        ui.weak("Switches change how the material is drawn, not the file.");
    });
    if options_changed {
        *state.tev_options = options;
        edit.reset(options);
    }
    if let Some(note) = state.session.read_only_note() {
        ui.colored_label(Color32::from_rgb(240, 200, 80), note);
    }
    super::mp3_material::mp3_alt_toggles(ui, state);
    if super::mp3_material::mp3_material_editor(ui, state) {
        return;
    }
    let Some(original) = selected_file_material(state.session).cloned() else {
        return;
    };
    let textures = selected_texture_ids(state.session).to_vec();
    let missing: Vec<(usize, u64, String)> = state
        .session
        .asset()
        .and_then(|d| {
            Some((
                d,
                d.material(
                    state.session.selection.set,
                    state.session.selection.material,
                )?,
                d.texture_place(),
            ))
        })
        .map(|(doc, entry, place)| {
            entry
                .texture_ids
                .iter()
                .enumerate()
                .filter_map(|(k, id)| Some((k, (*id)?, place.clone())))
                .filter(|(_, id, _)| doc.texture(*id).is_none())
                .collect()
        })
        .unwrap_or_default();
    let mut m = original.clone();
    let mut label = None;
    let stage = egui::ScrollArea::both()
        .id_salt("material_scroll")
        .show(ui, |ui| {
            summary(ui, &m);
            flags_editor(ui, &mut m, &mut label);
            textures_editor(ui, &mut m, &textures, &missing, &mut label);
            konst_editor(ui, &mut m, &mut label);
            blend_editor(ui, &mut m, &mut label);
            channel_editor(ui, &mut m, &mut label);
            let stage = super::stages::stages_editor(ui, &mut m, &mut label);
            super::stage_strip::stage_strip(ui, state.stage_strip_panel());
            super::vertex::texgens_editor(ui, &mut m, &mut label);
            super::vertex::uv_animations_editor(ui, &mut m, &mut label);
            stage
        })
        .inner;
    state.layout.stage = stage;
    if let Some(label) = label
        && m != original
    {
        state.editor().apply_material(m, &label);
    }
}

/// One line of the material list: index, stage count, blend mode and texture IDs.
/// `found` tells whether the model has the texture of an ID.
pub(super) fn material_row(
    index: usize,
    entry: &Result<MaterialEntry, String>,
    found: impl Fn(u64) -> bool,
) -> String {
    let m = match entry {
        Ok(m) => m,
        Err(e) => return format!("{index:>3} · error: {e}"),
    };
    let stages = m.material.stages.len();
    let b = m.material.blend;
    let blend = if b == Blend::OPAQUE {
        "opaque".to_string()
    } else {
        format!("{} {}/{}", b.mode, b.src, b.dst)
    };
    let textures = if m.texture_ids.is_empty() {
        "no textures".to_string()
    } else {
        m.texture_ids
            .iter()
            .map(|id| match id {
                Some(id) if found(*id) => texture_id_text(*id),
                Some(id) => format!("{} (missing)", texture_id_text(*id)),
                None => "(no ID)".to_string(),
            })
            .collect::<Vec<_>>()
            .join(" ")
    };
    format!(
        "{index:>3} · {stages} stage{} · {blend} · {textures}",
        if stages == 1 { "" } else { "s" }
    )
}

/// Counts and the texture IDs in one line.
fn summary(ui: &mut Ui, m: &FileMaterial) {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    ui.label(format!(
        "{} stage{}, {} texgen{}, {} texture{}, {} UV animation{}, flags 0x{:04X}",
        m.tev_stages.len(),
        plural(m.tev_stages.len()),
        m.texgens.len(),
        plural(m.texgens.len()),
        m.texture_indices.len(),
        plural(m.texture_indices.len()),
        m.uv_animations.len(),
        plural(m.uv_animations.len()),
        m.flags
    ));
}

/// The flag bits as named checkboxes (konst and indirect follow their blocks; the bits that
/// pick a vertex array are shown disabled, as the geometry fixes them).
fn flags_editor(ui: &mut Ui, m: &mut FileMaterial, label: &mut Option<String>) {
    ui.collapsing("Flags", |ui| {
        ui.horizontal_wrapped(|ui| {
            for (bit, name) in [
                (gxflags::TRANSPARENT, "depth-sorted (0x10)"),
                (gxflags::PUNCHTHROUGH, "punchthrough (0x20)"),
                (gxflags::SAMUS_REFLECTION, "Samus reflection (0x40)"),
                (gxflags::DEPTH_WRITE, "depth write (0x80)"),
                (gxflags::REFLECTION_SURFACE_EYE, "reflection eye (0x100)"),
                (gxflags::OCCLUDER, "occluder (0x200)"),
                (gxflags::LIGHTMAP, "lightmap (0x800)"),
                (gxflags::SHORT_UV_ALT, "short UVs, alt (0x1000)"),
                (gxflags::SHORT_UV, "short UVs (0x2000)"),
            ] {
                let mut on = m.flags & bit != 0;
                let fixed = crate::edit::fixed_flag(bit);
                let response = ui.add_enabled(fixed.is_none(), egui::Checkbox::new(&mut on, name));
                let response = match fixed {
                    Some(why) => response.on_disabled_hover_text(why),
                    None => response,
                };
                if response.changed() {
                    m.flags ^= bit;
                    *label = Some(format!("flag {name} {}", if on { "on" } else { "off" }));
                }
            }
        });
        ui.weak("konst (0x8) and indirect (0x400) follow the konst and indirect blocks.");
    });
}

/// One combo per texture slot over the set's textures; add and remove slots.
/// `missing`: (slot, ID, where it was looked for) of each slot whose texture was not found.
fn textures_editor(
    ui: &mut Ui,
    m: &mut FileMaterial,
    textures: &[u32],
    missing: &[(usize, u64, String)],
    label: &mut Option<String>,
) {
    ui.heading("Textures");
    let options: Vec<u32> = (0..textures.len() as u32).collect();
    let name = |i: u32| {
        textures.get(i as usize).map_or_else(
            || format!("#{i} (missing)"),
            |id| format!("#{i} 0x{id:08X}"),
        )
    };
    let mut remove = None;
    for (k, slot) in m.texture_indices.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            ui.label(format!("map {k}"));
            if super::combo(ui, ("texslot", k), slot, &options, name) {
                *label = Some(format!("texture map {k}"));
            }
            if ui.small_button("remove").clicked() {
                remove = Some(k);
            }
        });
        for (_, id, place) in missing.iter().filter(|(slot, _, _)| *slot == k) {
            ui.colored_label(
                Color32::from_rgb(255, 110, 110),
                format!(
                    "TXTR {} not found in {place}: drawn as a magenta checker",
                    texture_id_text(*id)
                ),
            );
        }
    }
    if let Some(k) = remove {
        m.texture_indices.remove(k);
        *label = Some(format!("remove texture map {k}"));
    }
    if !textures.is_empty()
        && m.texture_indices.len() < 8
        && ui.small_button("add texture map").clicked()
    {
        m.texture_indices.push(0);
        *label = Some("add texture map".into());
    }
}

/// K0–K3 as colour pickers and exact bytes; add or remove the konst block.
fn konst_editor(ui: &mut Ui, m: &mut FileMaterial, label: &mut Option<String>) {
    ui.heading("Konst colours");
    let mut colors = m.konst_rgba();
    let mut changed = None;
    let mut removed = false;
    egui::Grid::new("konst").num_columns(6).show(ui, |ui| {
        for (k, c) in colors.iter_mut().enumerate() {
            ui.label(format!("K{k}"));
            if color_button(ui, c) {
                changed = Some(k);
            }
            for v in c.iter_mut() {
                if ui.add(egui::DragValue::new(v)).changed() {
                    changed = Some(k);
                }
            }
            ui.end_row();
        }
    });
    ui.horizontal(|ui| {
        if colors.len() < 4 && ui.small_button("add konst").clicked() {
            colors.push([255; 4]);
            changed = Some(colors.len() - 1);
        }
        if !colors.is_empty() && ui.small_button("remove last konst").clicked() {
            colors.pop();
            removed = true;
        }
    });
    if removed {
        *label = Some(format!("remove K{}", colors.len()));
    } else if let Some(k) = changed {
        *label = Some(format!("K{k} colour"));
    } else {
        return;
    }
    let words: Vec<u32> = colors.iter().map(|c| u32::from_be_bytes(*c)).collect();
    m.konst_colors = (!words.is_empty()).then_some(words);
}

/// Source and destination blend factors.
fn blend_editor(ui: &mut Ui, m: &mut FileMaterial, label: &mut Option<String>) {
    ui.heading("Blend");
    ui.horizontal(|ui| {
        for (name, value) in [("src", &mut m.blend_src), ("dst", &mut m.blend_dst)] {
            ui.label(name);
            let Some(mut f) = BlendFactor::from_u16(*value) else {
                ui.monospace(format!("{value} (invalid)"));
                continue;
            };
            if named(ui, ("blend", name), &mut f, &BlendFactor::ALL) {
                *value = f as u16;
                *label = Some(format!("blend {name} factor"));
            }
        }
    });
    if m.flags & gxflags::PUNCHTHROUGH != 0 {
        ui.weak("Punchthrough draws opaque (ONE, ZERO) whatever the factors say.");
    }
}

/// The COLOR0 channel word, decoded.
fn channel_editor(ui: &mut Ui, m: &mut FileMaterial, label: &mut Option<String>) {
    ui.heading("Colour channel");
    let Some(word) = m.color_channels.first().copied() else {
        ui.weak("no colour channel word");
        return;
    };
    let mut c = ChannelControl::from_word(word);
    let mut changed = false;
    ui.horizontal_wrapped(|ui| {
        changed |= ui.checkbox(&mut c.lighting, "lighting").changed();
        ui.label("ambient");
        changed |= named(ui, "amb_src", &mut c.ambient_src, &ColorSrc::ALL);
        ui.label("material");
        changed |= named(ui, "mat_src", &mut c.material_src, &ColorSrc::ALL);
        ui.label("diffuse");
        changed |= named(ui, "diffuse", &mut c.diffuse_fn, &DiffuseFn::ALL);
        ui.label("attenuation");
        changed |= named(ui, "attn", &mut c.attn_fn, &AttnFn::ALL);
        ui.label("light mask");
        changed |= ui
            .add(egui::DragValue::new(&mut c.light_mask).hexadecimal(2, false, true))
            .changed();
    });
    ui.weak(format!(
        "word 0x{word:08X} (the engine replaces the light mask)"
    ));
    if changed {
        // Bits above the decoded fields are kept.
        m.color_channels[0] = channel_word(&c) | (word & !0x7FFF);
        *label = Some("colour channel".into());
    }
}

fn quad_settings(ui: &mut Ui, state: &mut MaterialPanel<'_>) {
    ui.horizontal_wrapped(|ui| {
        ui.label("View:");
        ui.selectable_value(
            &mut state.settings.compositing,
            Compositing::ExactTev,
            "exact TEV output",
        )
        .on_hover_text("Blending off: the target holds exactly what the TEV wrote");
        ui.selectable_value(
            &mut state.settings.compositing,
            Compositing::GxBlend,
            "GX blend",
        )
        .on_hover_text("The material's blend over the background colour");
        ui.separator();
        ui.selectable_value(&mut state.settings.sampling, Sampling::Nearest, "nearest");
        ui.selectable_value(&mut state.settings.sampling, Sampling::Gx, "GX filtering");
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("Preview");
        let flat = state.settings.orbit.is_none();
        if ui
            .selectable_label(flat, "flat quad (pixel-exact)")
            .on_hover_text("Screen-covering quad; the pixel inspector traces it")
            .clicked()
        {
            state.settings.orbit = None;
        }
        if ui
            .selectable_label(!flat, "plane in 3D (orbit)")
            .on_hover_text(
                "Drag to rotate, scroll to zoom; view-dependent UV animations follow the camera",
            )
            .clicked()
            && flat
        {
            state.settings.orbit = Some(crate::camera::OrbitCamera::facing_plane());
        }
    });
}
