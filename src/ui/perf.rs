//! What the viewer measures about its own frames: the frame rate over the last second
//! (View → Frame rate, `view --fps`, the `view_aids` script action's `fps`), drawn on an
//! egui overlay layer over the 3D view, and which of the stage strip's thumbnails the
//! panels actually showed this frame (the strip redraws only those).

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use egui::{Color32, RichText, Ui};

/// Slots of [`StripShown`]: the 16 stage thumbnails, then the two raster-colour ones.
pub const STRIP_SLOTS: usize = 18;
/// The slot of raster channel `c`'s thumbnail.
pub const fn raster_slot(channel: usize) -> usize {
    16 + channel
}

/// Which strip thumbnails some panel drew in a visible place this frame.
pub type StripShown = [bool; STRIP_SLOTS];

/// The frame-rate meter and the strip's visibility, kept in [`super::state::AppState::perf`].
#[derive(Debug, Default)]
pub struct PerfState {
    /// The frame-rate overlay is shown.
    pub fps_shown: bool,
    pub frames: FrameMeter,
    /// Thumbnails shown this frame: reset before the UI pass by the window, marked by the
    /// panels that show them. None when no UI pass runs (tests driving the viewport
    /// directly): every thumbnail then counts as shown.
    pub strip_shown: Option<StripShown>,
    /// Strip thumbnails drawn since the window opened (for measurements).
    pub strip_draws: u64,
    /// The GPU drawing the window and its backend (the status bar and About show it).
    pub adapter: String,
}

impl PerfState {
    /// Called by the window at the start of each frame, before the UI pass.
    pub fn begin_frame(&mut self, now: Instant) {
        self.frames.record(now);
        self.strip_shown = Some([false; STRIP_SLOTS]);
    }

    /// A panel showed the thumbnail in `slot` at `rect` (marked when the rect is visible).
    pub fn mark_shown(&mut self, ui: &Ui, slot: usize, rect: egui::Rect) {
        if let Some(shown) = &mut self.strip_shown
            && let Some(s) = shown.get_mut(slot)
        {
            *s |= ui.is_rect_visible(rect);
        }
    }
}

/// Frame rate and frame time measured over the last second.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameRate {
    pub fps: f32,
    /// Mean time between frames.
    pub frame_ms: f32,
    /// Longest time between two frames.
    pub worst_ms: f32,
}

/// Frame start times of the last second.
#[derive(Debug, Default)]
pub struct FrameMeter {
    starts: VecDeque<Instant>,
}

/// How far back the meter looks.
const WINDOW: Duration = Duration::from_secs(1);

impl FrameMeter {
    pub fn record(&mut self, now: Instant) {
        self.starts.push_back(now);
        // The last two frames stay however far apart, so a slow frame rate still reads.
        while self.starts.len() > 2
            && self
                .starts
                .front()
                .is_some_and(|s| now.duration_since(*s) >= WINDOW)
        {
            self.starts.pop_front();
        }
    }

    /// The rate over the intervals of the last second; None before two frames.
    pub fn rate(&self) -> Option<FrameRate> {
        let (first, last) = (self.starts.front()?, self.starts.back()?);
        let intervals = self.starts.len().checked_sub(1).filter(|&n| n > 0)?;
        let span = last.duration_since(*first).as_secs_f32();
        if span <= 0.0 {
            return None;
        }
        let worst = self
            .starts
            .iter()
            .zip(self.starts.iter().skip(1))
            .map(|(a, b)| b.duration_since(*a).as_secs_f32())
            .fold(0.0, f32::max);
        Some(FrameRate {
            fps: intervals as f32 / span,
            frame_ms: span * 1000.0 / intervals as f32,
            worst_ms: worst * 1000.0,
        })
    }
}

/// The frame-rate readout on a foreground layer at the top left of `view` (the 3D view's
/// rectangle), so it floats over the image without taking layout space.
pub fn fps_overlay(ctx: &egui::Context, perf: &PerfState, view: Option<egui::Rect>) {
    if !perf.fps_shown {
        return;
    }
    let Some(view) = view else { return };
    let text = match perf.frames.rate() {
        Some(r) => format!(
            "{:5.1} fps  {:5.1} ms (worst {:.0})",
            r.fps, r.frame_ms, r.worst_ms
        ),
        None => "  – fps".to_owned(),
    };
    egui::Area::new(egui::Id::unique("fps_overlay"))
        .order(egui::Order::Foreground)
        .fixed_pos(view.min + egui::vec2(6.0, 6.0))
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::NONE
                .fill(Color32::from_black_alpha(170))
                .inner_margin(egui::Margin::symmetric(6, 3))
                .corner_radius(3.0)
                .show(ui, |ui| {
                    let text = RichText::new(text)
                        .monospace()
                        .color(Color32::from_rgb(140, 255, 140));
                    ui.add(egui::Label::new(text).wrap_mode(egui::TextWrapMode::Extend))
                        .on_hover_text("frames per second and frame time over the last second");
                });
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_meter_measures_the_last_second() {
        let mut m = FrameMeter::default();
        let t0 = Instant::now();
        assert!(m.rate().is_none());
        m.record(t0);
        assert!(m.rate().is_none(), "one frame has no interval");
        // 2 s at 10 fps, then 1 s at 40 fps: only the last second counts.
        for i in 1..=20 {
            m.record(t0 + Duration::from_millis(100 * i));
        }
        let slow = m.rate().expect("rate");
        assert!((slow.fps - 10.0).abs() < 0.01, "{slow:?}");
        assert!((slow.frame_ms - 100.0).abs() < 0.1, "{slow:?}");
        for i in 1..=40 {
            m.record(t0 + Duration::from_millis(2000 + 25 * i));
        }
        let fast = m.rate().expect("rate");
        assert!((fast.fps - 40.0).abs() < 0.5, "{fast:?}");
        assert!((fast.frame_ms - 25.0).abs() < 0.5, "{fast:?}");
        assert!((fast.worst_ms - 25.0).abs() < 0.5, "{fast:?}");
        // A stall shows as the worst frame.
        m.record(t0 + Duration::from_millis(3000 + 300));
        assert!((m.rate().expect("rate").worst_ms - 300.0).abs() < 0.5);
    }

    #[test]
    fn thumbnails_count_as_shown_only_when_a_panel_marks_them() {
        let mut perf = PerfState::default();
        assert!(perf.strip_shown.is_none(), "no UI pass: everything counts");
        perf.begin_frame(Instant::now());
        assert_eq!(perf.strip_shown, Some([false; STRIP_SLOTS]));
        let ctx = egui::Context::default();
        let mut output = ctx.run_ui(egui::RawInput::default(), |ui| {
            let inside = egui::Rect::from_min_size(egui::pos2(10.0, 10.0), egui::vec2(20.0, 20.0));
            let outside = inside.translate(egui::vec2(-1.0e5, 0.0));
            perf.mark_shown(ui, 2, inside);
            perf.mark_shown(ui, raster_slot(1), outside);
        });
        output.textures_delta.clear();
        let shown = perf.strip_shown.expect("marked");
        assert!(shown[2]);
        assert!(!shown[raster_slot(1)]);
        assert_eq!(shown.iter().filter(|s| **s).count(), 1);
    }
}
