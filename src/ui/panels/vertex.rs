//! The vertex side of a material: texgens (type, source, matrix, normalize, post-matrix)
//! and UV animations (mode and parameters), with add and remove.

use egui::Ui;

use crate::formats::material::{Material as FileMaterial, UvAnimationWords};
use crate::gx::types::{GX_IDENTITY, GX_PTIDENTITY, TexGen, TexGenSrc, TexGenType, UvAnimation};
use crate::gx::uvanim::reaches_a_texgen;

use super::{combo, named};

/// GX has 8 texture coordinate generators.
const MAX_TEXGENS: usize = 8;
/// The texgen fields a word holds (bits above are kept as read).
const TEXGEN_BITS: u32 = 0x1F_FFFF;

/// `TEXMTX0`–`TEXMTX9` (30, 33, …, 57) and the identity (60).
fn matrix_name(id: u32) -> String {
    match id {
        GX_IDENTITY => "IDENTITY".into(),
        30..=57 if (id - 30).is_multiple_of(3) => format!("TEXMTX{}", (id - 30) / 3),
        _ => format!("{id} (raw)"),
    }
}

/// `PTTEXMTX0`–`PTTEXMTX19` (64, 67, …, 121) and the identity (125).
fn post_matrix_name(id: u32) -> String {
    match id {
        GX_PTIDENTITY => "PTIDENTITY".into(),
        64..=121 if (id - 64).is_multiple_of(3) => format!("PTTEXMTX{}", (id - 64) / 3),
        _ => format!("{id} (raw)"),
    }
}

pub(super) fn texgens_editor(ui: &mut Ui, m: &mut FileMaterial, label: &mut Option<String>) {
    ui.separator();
    ui.heading("Texgens");
    let types: Vec<TexGenType> = (0..=10).filter_map(TexGenType::from_bits).collect();
    let sources: Vec<TexGenSrc> = (0..=20).filter_map(TexGenSrc::from_bits).collect();
    let matrices: Vec<u32> = (0..10).map(tex_mtx_id).chain([GX_IDENTITY]).collect();
    let posts: Vec<u32> = (0..20).map(|n| 64 + 3 * n).chain([GX_PTIDENTITY]).collect();
    let mut remove = None;
    for (i, word) in m.texgens.iter_mut().enumerate() {
        let Some(mut t) = TexGen::from_word(*word) else {
            ui.horizontal(|ui| {
                ui.monospace(format!("TEXCOORD{i}: invalid word 0x{word:08X}"));
                if ui.small_button("remove").clicked() {
                    remove = Some(i);
                }
            });
            continue;
        };
        let mut changed = None;
        ui.horizontal_wrapped(|ui| {
            ui.monospace(format!("TEXCOORD{i}"));
            if named(ui, ("tg_type", i), &mut t.kind, &types) {
                changed = Some("type");
            }
            if named(ui, ("tg_src", i), &mut t.source, &sources) {
                changed = Some("source");
            }
            if combo(ui, ("tg_mtx", i), &mut t.gx_tex_mtx, &matrices, matrix_name) {
                changed = Some("matrix");
            }
            if ui.checkbox(&mut t.normalize, "normalize").changed() {
                changed = Some("normalize");
            }
            ui.label("post");
            if combo(
                ui,
                ("tg_post", i),
                &mut t.gx_post_mtx,
                &posts,
                post_matrix_name,
            ) {
                changed = Some("post-matrix");
            }
            if ui.small_button("remove").clicked() {
                remove = Some(i);
            }
        });
        if let Some(field) = changed {
            *word = t.to_word() | (*word & !TEXGEN_BITS);
            *label = Some(format!("texgen {i} {field}"));
        }
    }
    if let Some(i) = remove {
        m.texgens.remove(i);
        *label = Some(format!("remove texgen {i}"));
    }
    if ui
        .add_enabled(
            m.texgens.len() < MAX_TEXGENS,
            egui::Button::new("add texgen"),
        )
        .on_hover_text("MTX2x4 from TEX0 through the identity")
        .clicked()
    {
        let t = TexGen {
            kind: TexGenType::Mtx2x4,
            source: TexGenSrc::Tex(0),
            gx_tex_mtx: GX_IDENTITY,
            normalize: false,
            gx_post_mtx: GX_PTIDENTITY,
        };
        m.texgens.push(t.to_word());
        *label = Some(format!("add texgen {}", m.texgens.len() - 1));
    }
}

/// The GX id of TEXMTX*slot* (30, 33, …).
fn tex_mtx_id(slot: usize) -> u32 {
    30 + 3 * slot as u32
}

/// The text that says UV animation `index` (of `mode`) moves nothing.
pub(super) fn unused_animation_text(index: usize, mode: u32) -> String {
    let matrices = if UvAnimation::loads_post_matrix(mode) {
        format!("TEXMTX{index} or PTTEXMTX{index}")
    } else {
        format!("TEXMTX{index}")
    };
    format!("no texgen uses {matrices} — this animation has no effect")
}

/// Says animation `index` reaches no texgen and offers to point the first texgen on the
/// identity at its matrix. Returns (texgen, animation) when that was clicked.
fn unused_animation_warning(
    ui: &mut Ui,
    index: usize,
    mode: u32,
    words: &[u32],
) -> Option<(usize, usize)> {
    let mut fix = None;
    // On lines of their own: the panel scrolls sideways, a long row would hide the button.
    ui.add(
        egui::Label::new(
            egui::RichText::new(unused_animation_text(index, mode))
                .color(egui::Color32::from_rgb(240, 200, 80)),
        )
        .wrap(),
    );
    // Matrices 0–9 exist; a texgen still on the identity is the one to change.
    let free = words
        .iter()
        .position(|w| TexGen::from_word(*w).is_some_and(|t| t.gx_tex_mtx == GX_IDENTITY));
    if let Some(k) = free.filter(|_| index < 10) {
        let button = ui
            .small_button(format!("use it on TEXCOORD{k}"))
            .on_hover_text(format!("Set texgen {k}'s matrix to TEXMTX{index}"));
        if button.clicked() {
            fix = Some((k, index));
        }
    } else if words.is_empty() {
        ui.weak("(add a texgen, then set its matrix)");
    }
    fix
}

pub(super) fn uv_animations_editor(ui: &mut Ui, m: &mut FileMaterial, label: &mut Option<String>) {
    ui.separator();
    ui.heading("UV animations");
    if let Some(mode) = m.unknown_uv_mode {
        ui.weak(format!(
            "Unknown UV animation mode {mode}: the block is kept as read and not editable."
        ));
        return;
    }
    // MP2 materials carry two extra words; only they know mode 8 (SRT).
    let modes: Vec<u32> = (0..=if m.mp2_unknown.is_some() { 8 } else { 7 }).collect();
    let texgens: Vec<TexGen> = m
        .texgens
        .iter()
        .filter_map(|w| TexGen::from_word(*w))
        .collect();
    let mut remove = None;
    let mut use_matrix = None;
    for (i, a) in m.uv_animations.iter_mut().enumerate() {
        ui.horizontal(|ui| {
            ui.monospace(format!("TEXMTX{i}"));
            let mut mode = a.mode;
            if combo(ui, ("uv_mode", i), &mut mode, &modes, |v| {
                UvAnimation::mode_name(v).to_string()
            }) {
                let count = UvAnimation::param_count(mode).unwrap_or(0);
                a.mode = mode;
                a.params.resize(count, 0);
                *label = Some(format!("UV animation {i} mode"));
            }
            if ui.small_button("remove").clicked() {
                remove = Some(i);
            }
        });
        if !reaches_a_texgen(i, a.mode, &texgens) {
            use_matrix = unused_animation_warning(ui, i, a.mode, &m.texgens).or(use_matrix);
        }
        let names = UvAnimation::parameter_names(a.mode);
        ui.horizontal_wrapped(|ui| {
            for (k, p) in a.params.iter_mut().enumerate() {
                let name = names.get(k).copied().unwrap_or("param");
                ui.label(name);
                let changed = if name == "transform_type" {
                    ui.add(egui::DragValue::new(p)).changed()
                } else {
                    let mut v = f32::from_bits(*p);
                    let r = ui.add(egui::DragValue::new(&mut v).speed(0.01));
                    if r.changed() {
                        *p = v.to_bits();
                    }
                    r.changed()
                };
                if changed {
                    *label = Some(format!("UV animation {i} {name}"));
                }
            }
        });
    }
    if let Some((k, i)) = use_matrix
        && let Some(word) = m.texgens.get_mut(k)
        && let Some(mut t) = TexGen::from_word(*word)
    {
        t.gx_tex_mtx = tex_mtx_id(i);
        *word = t.to_word() | (*word & !TEXGEN_BITS);
        *label = Some(format!("texgen {k} matrix"));
    }
    if let Some(i) = remove {
        m.uv_animations.remove(i);
        *label = Some(format!("remove UV animation {i}"));
    }
    if ui
        .add_enabled(
            m.uv_animations.len() < 8,
            egui::Button::new("add UV animation"),
        )
        .on_hover_text("A scroll (mode 2) at rest: set its speeds")
        .clicked()
    {
        m.uv_animations.push(UvAnimationWords {
            mode: 2,
            params: vec![
                0.0f32.to_bits(),
                0.0f32.to_bits(),
                1.0f32.to_bits(),
                1.0f32.to_bits(),
            ],
        });
        *label = Some(format!("add UV animation {}", m.uv_animations.len() - 1));
    }
}
