//! The panels' parts of the viewer state: each panel that shows the core is handed a struct
//! of the fields it shows, borrowed one by one from [`AppState`] (so the borrows are
//! disjoint and a panel reaches nothing else), all built here by `AppState::…_panel`. The
//! operations on the two that change the core live with their kind: the lights'
//! ([`LightsPanel`]) in [`super::lights`], the selected material's ([`MaterialEditor`]) in
//! [`super::editing`].

use crate::gx::tev::TevOptions;
use crate::session::Session;

use super::animation::AnimView;
use super::edit::MaterialEdit;
use super::history::History;
use super::light_editor::LightEditor;
use super::perf::PerfState;
use super::state::{
    AppState, CentralView, Layout, Messages, Opening, Picking, Requests, RightTab,
    SelectedMaterial, StripPanel, ViewChoice, WgslTab,
};
use super::viewport::{ViewSettings, ViewStatus};
use super::worlds::WorldTree;

/// What the Lights tab shows and changes: the session's lights, the records as edited, the
/// undo history the edits are steps of, the message line (a saved light file) and the
/// right panel's tab (a click on a gizmo opens the Lights tab).
pub(crate) struct LightsPanel<'a> {
    pub session: &'a mut Session,
    pub light_editor: &'a mut LightEditor,
    pub history: &'a mut History,
    pub messages: &'a mut Messages,
    pub tab: &'a mut RightTab,
}

/// The selected material's editor: what a selection or a material edit changes (the
/// session's document and selection, the viewer's edit of the material and what it shows
/// of it, the undo history, the message line, the viewport's rebuild request). The
/// Material tab and [`AppState`] edit through it.
pub(crate) struct MaterialEditor<'a> {
    pub session: &'a mut Session,
    pub selected: &'a mut SelectedMaterial,
    pub history: &'a mut History,
    pub messages: &'a mut Messages,
    pub requests: &'a mut Requests,
    pub tev_options: TevOptions,
}

/// What the WGSL tab shows: the shown shader key and the selected material's edit.
pub(crate) struct WgslPanel<'a> {
    pub wgsl: &'a mut WgslTab,
    /// The key whose WGSL is shown ([`AppState::shown_key`]).
    pub key: Option<crate::gx::key::ShaderKey>,
    pub edit: Option<&'a MaterialEdit>,
    pub view_status: &'a ViewStatus,
}

impl WgslPanel<'_> {
    /// The WGSL shown (generated once per key).
    pub(crate) fn source(&mut self) -> Option<&str> {
        self.wgsl.source(self.key.clone(), self.edit)
    }
}

/// What the timeline shows and changes: the clock (in the session) and the clip controls.
pub(crate) struct TimelinePanel<'a> {
    pub session: &'a mut Session,
    pub anim_view: &'a mut AnimView,
    /// The selected material (its UV animations, outside the model view).
    pub selected: &'a SelectedMaterial,
    /// The central view draws the whole model (clips and frame stepping apply).
    pub shows_model: bool,
}

/// What the room controls change: the camera (in the session) and which world models show.
pub(crate) struct RoomPanel<'a> {
    pub session: &'a mut Session,
    pub view: &'a mut ViewChoice,
}

/// What the pixel inspector shows: the last pick on the model, or the traced quad pixel of
/// the selected material; it can switch to the Material tab.
pub(crate) struct InspectorPanel<'a> {
    pub session: &'a Session,
    pub picking: &'a Picking,
    pub settings: &'a ViewSettings,
    pub selected: &'a SelectedMaterial,
    pub tab: &'a mut RightTab,
    pub shows_model: bool,
}

/// What the History tab lists: the viewer's steps and the document's commands they name.
pub(crate) struct HistoryPanel<'a> {
    pub session: &'a Session,
    pub history: &'a History,
}

/// What the Material tab shows and edits: the selection's editor and document, the quad
/// view's settings, the hovered row, the stage strip under the stages, and the MP3 Alts the
/// next open keeps.
pub(crate) struct MaterialPanel<'a> {
    pub session: &'a mut Session,
    pub selected: &'a mut SelectedMaterial,
    pub history: &'a mut History,
    pub messages: &'a mut Messages,
    pub requests: &'a mut Requests,
    pub tev_options: &'a mut TevOptions,
    pub settings: &'a mut ViewSettings,
    pub picking: &'a mut Picking,
    pub layout: &'a mut Layout,
    pub strip: &'a mut StripPanel,
    pub perf: &'a mut PerfState,
    pub opening: &'a mut Opening,
    pub shows_model: bool,
}

impl MaterialPanel<'_> {
    /// The editor of the selected material (selection, edits, refreshes).
    pub(crate) fn editor(&mut self) -> MaterialEditor<'_> {
        MaterialEditor {
            session: self.session,
            selected: self.selected,
            history: self.history,
            messages: self.messages,
            requests: self.requests,
            tev_options: *self.tev_options,
        }
    }

    pub(crate) fn stage_strip_panel(&mut self) -> StageStripPanel<'_> {
        StageStripPanel {
            session: self.session,
            selected: self.selected,
            strip: self.strip,
            perf: self.perf,
            shows_model: self.shows_model,
        }
    }
}

/// What the stage strip shows: the selected material's stages as thumbnails (rendered by
/// the app), its texture maps, and which stage the main view draws.
pub(crate) struct StageStripPanel<'a> {
    pub session: &'a Session,
    pub selected: &'a SelectedMaterial,
    pub strip: &'a mut StripPanel,
    pub perf: &'a mut PerfState,
    pub shows_model: bool,
}

/// What the world overview shows and asks of the viewport: the world tree, the overview
/// frame it requests, the view image the viewport drew, and where it lays it out.
pub(crate) struct WorldMapPanel<'a> {
    pub worlds: &'a mut WorldTree,
    pub requests: &'a mut Requests,
    pub central: &'a CentralView,
    pub layout: &'a mut Layout,
}

/// The panels' parts, built in one place (only the panels that lay out or orchestrate the
/// others take the whole [`AppState`], see [`super::panels`]).
impl AppState {
    pub(crate) fn lights_panel(&mut self) -> LightsPanel<'_> {
        LightsPanel {
            session: &mut self.session,
            light_editor: &mut self.light_editor,
            history: &mut self.history,
            messages: &mut self.messages,
            tab: &mut self.tab,
        }
    }

    pub(crate) fn material_editor(&mut self) -> MaterialEditor<'_> {
        MaterialEditor {
            session: &mut self.session,
            selected: &mut self.selected,
            history: &mut self.history,
            messages: &mut self.messages,
            requests: &mut self.requests,
            tev_options: self.tev_options,
        }
    }

    pub(crate) fn material_panel(&mut self) -> MaterialPanel<'_> {
        let shows_model = self.shows_model();
        MaterialPanel {
            session: &mut self.session,
            selected: &mut self.selected,
            history: &mut self.history,
            messages: &mut self.messages,
            requests: &mut self.requests,
            tev_options: &mut self.tev_options,
            settings: &mut self.settings,
            picking: &mut self.picking,
            layout: &mut self.layout,
            strip: &mut self.strip,
            perf: &mut self.perf,
            opening: &mut self.opening,
            shows_model,
        }
    }

    pub(crate) fn world_map_panel(&mut self) -> WorldMapPanel<'_> {
        WorldMapPanel {
            worlds: &mut self.worlds,
            requests: &mut self.requests,
            central: &self.central,
            layout: &mut self.layout,
        }
    }

    pub(crate) fn timeline_panel(&mut self) -> TimelinePanel<'_> {
        let shows_model = self.shows_model();
        TimelinePanel {
            session: &mut self.session,
            anim_view: &mut self.anim_view,
            selected: &self.selected,
            shows_model,
        }
    }

    pub(crate) fn room_panel(&mut self) -> RoomPanel<'_> {
        RoomPanel {
            session: &mut self.session,
            view: &mut self.view,
        }
    }

    pub(crate) fn inspector_panel(&mut self) -> InspectorPanel<'_> {
        let shows_model = self.shows_model();
        InspectorPanel {
            session: &self.session,
            picking: &self.picking,
            settings: &self.settings,
            selected: &self.selected,
            tab: &mut self.tab,
            shows_model,
        }
    }

    pub(crate) fn history_panel(&self) -> HistoryPanel<'_> {
        HistoryPanel {
            session: &self.session,
            history: &self.history,
        }
    }

    pub(crate) fn wgsl_panel(&mut self) -> WgslPanel<'_> {
        WgslPanel {
            key: self.shown_key(),
            edit: self.selected.edit.as_ref(),
            view_status: &self.view_status,
            wgsl: &mut self.wgsl,
        }
    }
}
