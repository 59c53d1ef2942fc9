//! The Lights tab's data: the editable light records and the controls around them, and
//! the undo steps light edits make (operations in [`super::lights`]).

use crate::gx::lights::PrimeLight;
use crate::session::LightChoice;

/// The editable light list and the file and start-from controls around it.
#[derive(Debug, Clone, PartialEq)]
pub struct LightEditor {
    /// What `light_set` is built from, in order (the last ambient record wins, as in an
    /// area layer).
    pub records: Vec<PrimeLight>,
    pub selected: Option<usize>,
    /// When the lights are drawn over the model view (never in screenshots: egui overlay
    /// only).
    pub gizmos: GizmoMode,
    /// The light set file path (the fallback when no native dialog is available).
    pub path_text: String,
    /// The typed path field is shown.
    pub path_open: bool,
    /// The last failed load or save of a light set file.
    pub error: Option<String>,
    /// Area light layers offered as starting points, read once per list of areas:
    /// (the areas, their layer choices with light counts).
    pub(crate) layer_cache: Option<LayerCache>,
}

/// When light gizmos are drawn over the model view. By default only while the Lights tab
/// is open: elsewhere the basic preset's arrow would sit over every model being studied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GizmoMode {
    WithLightsTab,
    Always,
    Never,
}

impl GizmoMode {
    pub const ALL: [GizmoMode; 3] = [Self::WithLightsTab, Self::Always, Self::Never];

    pub fn label(self) -> &'static str {
        match self {
            Self::WithLightsTab => "with this tab",
            Self::Always => "always",
            Self::Never => "never",
        }
    }

    /// Whether gizmos show, given whether the Lights tab is open.
    pub fn shows(self, lights_tab_open: bool) -> bool {
        match self {
            Self::WithLightsTab => lights_tab_open,
            Self::Always => true,
            Self::Never => false,
        }
    }
}

/// The lights as an undo step leaves them: the records and what they stand for.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LightsState {
    pub(crate) records: Vec<PrimeLight>,
    pub(crate) choice: LightChoice,
}

/// A change of the lights in the undo history.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LightStep {
    pub label: String,
    pub before: LightsState,
    pub after: LightsState,
}

/// The areas (label, spec) the cache was read for, and their layers with light counts.
pub(crate) type LayerCache = (Vec<(String, String)>, Vec<(LightChoice, usize)>);

impl LightEditor {
    pub fn new() -> Self {
        Self {
            records: crate::gx::lights::LightPreset::Basic.records(),
            selected: None,
            gizmos: GizmoMode::WithLightsTab,
            path_text: "lights.json".to_string(),
            path_open: false,
            error: None,
            layer_cache: None,
        }
    }
}

impl Default for LightEditor {
    fn default() -> Self {
        Self::new()
    }
}
