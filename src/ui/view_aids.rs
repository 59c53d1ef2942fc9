//! The View menu's ways of looking at a material: a debug view of the model (or shape),
//! the selected material alone on a preview shape, and the A/B split against the model
//! as opened. The viewport reads them each frame ([`crate::ui::view_sync`]).

use egui::Ui;

use crate::gx::wgsl::debug::DebugView;
use crate::model::shapes::PreviewShape;

/// What the model view shows besides the shaded model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ViewAids {
    /// A debug view instead of the shaded pixels (None: shaded).
    pub debug: Option<DebugView>,
    /// The selected material alone on this shape instead of the model.
    pub preview: Option<PreviewShape>,
    /// A/B: the model as opened left of `split`, as edited right of it.
    pub compare: bool,
    /// Where the A/B split is, as a fraction of the view's width.
    pub split: f32,
}

impl Default for ViewAids {
    fn default() -> Self {
        Self {
            debug: None,
            preview: None,
            compare: false,
            split: 0.5,
        }
    }
}

impl ViewAids {
    /// The View menu's part; true when the preview shape changed (the view is rebuilt and
    /// the camera framed again).
    pub fn menu(&mut self, ui: &mut Ui) -> bool {
        ui.menu_button("Debug view", |ui| {
            ui.radio_value(&mut self.debug, None, "shaded");
            for view in DebugView::all() {
                ui.radio_value(&mut self.debug, Some(view), view.name());
            }
        });
        let before = self.preview;
        ui.menu_button("Preview shape", |ui| {
            ui.radio_value(&mut self.preview, None, "the model");
            for shape in PreviewShape::ALL {
                ui.radio_value(&mut self.preview, Some(shape), shape.name());
            }
        });
        ui.checkbox(&mut self.compare, "A/B: opened | edited");
        if self.compare {
            ui.add(egui::Slider::new(&mut self.split, 0.0..=1.0).text("split"));
        }
        before != self.preview
    }

    /// Sets the debug view by name (`shaded`, or a `render --debug` name).
    pub fn set_debug(&mut self, name: &str) -> Result<(), String> {
        self.debug = match name {
            "shaded" | "none" => None,
            _ => Some(DebugView::parse(name).ok_or_else(|| {
                let names: Vec<String> = DebugView::all().iter().map(|v| v.name()).collect();
                format!(
                    "{name}: unknown debug view; shaded or one of {}",
                    names.join(", ")
                )
            })?),
        };
        Ok(())
    }

    /// Sets the preview shape by name (`model`, or a shape's name).
    pub fn set_preview(&mut self, name: &str) -> Result<(), String> {
        self.preview = match name {
            "model" | "none" => None,
            _ => Some(
                PreviewShape::ALL
                    .into_iter()
                    .find(|s| s.name() == name)
                    .ok_or_else(|| {
                        format!("{name}: unknown shape; model, sphere, cube, plane or torus")
                    })?,
            ),
        };
        Ok(())
    }
}

/// The A/B divider over the view image `rect` (`width` target pixels): a line at the first
/// column drawn from B ([`crate::render::compare::split_column`]) and the sides' names.
pub fn paint_split(painter: &egui::Painter, rect: egui::Rect, width: u32, split: f32, ppp: f32) {
    let x = rect.left() + crate::render::compare::split_column(width, split) as f32 / ppp;
    let stroke = egui::Stroke::new(1.0, egui::Color32::from_rgb(255, 200, 40));
    painter.vline(x, rect.y_range(), stroke);
    let font = egui::FontId::proportional(13.0);
    let y = rect.top() + 6.0;
    painter.text(
        egui::pos2(x - 6.0, y),
        egui::Align2::RIGHT_TOP,
        "A: opened",
        font.clone(),
        stroke.color,
    );
    painter.text(
        egui::pos2(x + 6.0, y),
        egui::Align2::LEFT_TOP,
        "B: edited",
        font,
        stroke.color,
    );
}
