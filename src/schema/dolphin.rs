//! The report of `tevscope dolphin --json`: tevscope's frame against Dolphin's software
//! renderer (`gx.md` §17).

use serde::Serialize;

/// One model's frame compared with Dolphin's.
#[derive(Debug, Clone, Serialize)]
pub struct DolphinReport {
    pub file: String,
    pub width: u32,
    pub height: u32,
    pub pixels: u64,
    /// Pixels whose RGB is identical (the EFB stores no alpha).
    pub identical: u64,
    pub identical_share: f64,
    /// Pixels within 1 per channel.
    pub within_one: u64,
    /// Largest per-channel difference.
    pub max_diff: u8,
    /// The Dolphin binary that played the frame.
    pub dolphin: String,
    /// Where the DFF and the diff image (|Δ| × 16) were written, when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dff: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff_image: Option<String>,
    /// How the frame came back: `texture_dump` (exact) or `xfb` (lossy, `gx.md` §17.7).
    pub route: Route,
    /// The `gx.md` §16 alternatives tevscope rendered with because Dolphin's software
    /// renderer follows them and the DFF cannot say otherwise (e.g. how lights sum).
    pub software_alternatives: Vec<String>,
    pub warnings: Vec<String>,
}

impl DolphinReport {
    pub fn text(&self) -> String {
        let mut s = format!(
            "{}: {}×{} vs Dolphin's software renderer ({:?} route): {:.4} % identical ({} of {} pixels), {:.4} % within 1, largest difference {}\n",
            self.file,
            self.width,
            self.height,
            self.route,
            self.identical_share * 100.0,
            self.identical,
            self.pixels,
            self.within_one as f64 * 100.0 / self.pixels.max(1) as f64,
            self.max_diff
        );
        for (what, p) in [("DFF", &self.dff), ("diff image", &self.diff_image)] {
            if let Some(p) = p {
                s += &format!("{what}: {p}\n");
            }
        }
        for a in &self.software_alternatives {
            s += &format!("rendered with the software renderer's alternative {a}\n");
        }
        for w in &self.warnings {
            s += &format!("warning: {w}\n");
        }
        s
    }
}

/// How the frame came back from Dolphin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Route {
    /// The RGBA8 texture dump of the EFB copy: exact.
    TextureDump,
    /// The last frame dump (the XFB through YUV 4:2:2): up to ~2 LSB off, colour edges blurred.
    Xfb,
}
