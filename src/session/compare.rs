//! The open model as it was opened, for the A/B compare (B is the scene as edited).
//!
//! The document keeps its whole history, so the opened materials are a copy of it with
//! every command undone, derived to GX form exactly as edits are (`Session::derive`'s
//! `cpu_material_sets`); it shares everything but the materials with the open model.

use std::sync::Arc;

use super::Session;
use crate::edit::Document;
use crate::load::Mp3Alts;
use crate::model::{CpuMaterialSet, CpuModel};

impl Session {
    /// The open model with the materials it was opened with (None: no model open). A
    /// model that cannot be edited has no history: it is returned as it is.
    pub fn opened_model(&self) -> Option<Arc<CpuModel>> {
        let model = self.asset()?.cpu_model()?;
        Some(match self.document() {
            Some(document) => {
                let mut opened = document.clone();
                while opened.undo() {}
                with_materials_of(model, &opened, &self.mp3_alts())
            }
            None => Arc::clone(model),
        })
    }

    /// The document's current materials in GX form (None: nothing editable is open).
    pub fn document_materials(&self) -> Option<Vec<CpuMaterialSet>> {
        let alts = self.mp3_alts();
        self.document().map(|d| gx_materials(d, &alts))
    }
}

/// `document`'s materials in GX form, derived as edits are.
fn gx_materials(document: &Document, alts: &Mp3Alts) -> Vec<CpuMaterialSet> {
    crate::load::cpu_material_sets(
        document.material_sets(),
        document.cmdl().and_then(|c| c.mp3_materials.as_ref()),
        &alts.synthesis,
    )
}

/// `model` drawing `document`'s materials (the same model when they already are its own).
fn with_materials_of(model: &Arc<CpuModel>, document: &Document, alts: &Mp3Alts) -> Arc<CpuModel> {
    let sets = gx_materials(document, alts);
    if sets == model.material_sets {
        return Arc::clone(model);
    }
    let mut m = (**model).clone();
    m.material_sets = sets;
    Arc::new(m)
}
