//! The checkerboards painted under images: grey behind transparent texels, magenta and
//! black where a texture is missing.

use egui::{Color32, Ui};

/// Paints a grey checkerboard (so transparent pixels read as such).
pub(super) fn alpha_checker(ui: &Ui, rect: egui::Rect, cell: f32) {
    // One textured rectangle over a repeating 2×2 texture (one repeat = two cells), not a
    // shape per cell: a fitted texture view covers thousands of cells every frame.
    let id = egui::Id::unique("alpha checker texture");
    let ctx = ui.ctx();
    let texture = match ctx.data(|d| d.get_temp::<egui::TextureHandle>(id)) {
        Some(t) => t,
        None => {
            // Made outside `data_mut`: loading a texture takes the context's lock too.
            let [light, dark] = [Color32::from_gray(90), Color32::from_gray(60)];
            let t = ctx.load_texture(
                "alpha checker",
                egui::ColorImage::new([2, 2], vec![light, dark, dark, light]),
                egui::TextureOptions {
                    wrap_mode: egui::TextureWrapMode::Repeat,
                    ..egui::TextureOptions::NEAREST
                },
            );
            ctx.data_mut(|d| d.insert_temp(id, t.clone()));
            t
        }
    };
    let repeats = rect.size() / (2.0 * cell);
    let uv = egui::Rect::from_min_max(egui::Pos2::ZERO, repeats.to_pos2());
    ui.painter_at(rect)
        .image(texture.id(), rect, uv, Color32::WHITE);
}

/// The magenta/black checker the model view draws for a missing texture.
pub(super) fn missing_checker(ui: &Ui, rect: egui::Rect) {
    let cell = rect.width() / 8.0;
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 0.0, Color32::BLACK);
    for y in 0..8 {
        for x in 0..8 {
            if (x + y) % 2 == 0 {
                let min = rect.min + egui::vec2(x as f32 * cell, y as f32 * cell);
                painter.rect_filled(
                    egui::Rect::from_min_size(min, egui::vec2(cell, cell)),
                    0.0,
                    Color32::from_rgb(255, 0, 255),
                );
            }
        }
    }
}
