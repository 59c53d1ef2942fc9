//! The application core under the viewer and the CLI (no egui, no wgpu): what is open and
//! its one truth of materials.
//!
//! A [`Session`] holds the [`Asset`] opened (the model the renderer draws, its textures,
//! a room's light layers) and, when it is a model or a room, the editable
//! [`edit::Document`]. Both come from one [`crate::load::open`]: the file is read (or a
//! PAK mapped) once, and the editor splices its changes into the archive the loader
//! opened. The document is the only truth of materials: the asset's GX materials are
//! derived from it after every edit, undo and redo ([`Session::edit_material`]), and the
//! scene draws them as per-material overrides of the shared model, so a value edit
//! rewrites uniforms only and copies no model.

pub mod asset;
pub mod camera;
mod compare;
pub mod lights;

use std::path::Path;

use crate::edit;
use crate::formats::material::Material as FileMaterial;

pub use asset::{AnimationInfo, Asset, Content, MaterialEntry, MaterialSetEntry, References};
pub use lights::{LightChoice, Lights};

/// Whether an opened file's materials can be edited.
pub enum Editing {
    Editable(edit::Document),
    /// A model that cannot be edited, and why (the front end shows it).
    ReadOnly(String),
    /// Not a model (a texture): there is nothing to edit.
    NotAModel,
}

/// An input opened and parsed (no GPU; runs on any thread): the asset, and the editable
/// document made from the same bytes.
pub struct Opened {
    pub asset: anyhow::Result<Asset>,
    pub editing: Editing,
}

impl Opened {
    /// Opens `spec` once: the loader and the editor share the bytes read (and a PAK
    /// member's archive).
    pub fn load(spec: &str, references: &References) -> Self {
        Self::load_request(&references.request(spec))
    }

    /// [`Opened::load`] of a typed request (the CLI's flags: parts, texture folders, game).
    pub fn load_request(request: &crate::load::LoadRequest) -> Self {
        let spec = request.file.as_str();
        let (input, resolver) = match crate::load::open(spec) {
            Ok(opened) => opened,
            Err(e) => {
                return Self {
                    asset: Err(e),
                    editing: Editing::NotAModel,
                };
            }
        };
        let kind = input.kind();
        let editing = match kind {
            // Characters are shown, not edited.
            Some(k) if k.is_model() && !k.editable() => Editing::ReadOnly(
                "Read-only: only CMDL models and MREA areas are edited (open a character's \
                 CMDL to edit its materials)"
                    .to_string(),
            ),
            Some(k) if k.is_model() => {
                match edit::Document::from_input(&input, resolver.archive()) {
                    Ok(document) => Editing::Editable(document),
                    Err(e) => Editing::ReadOnly(format!("Read-only: {:#}", anyhow::Error::from(e))),
                }
            }
            _ => Editing::NotAModel,
        };
        let asset = Asset::from_input(spec, input, resolver, request);
        let editing = match &asset {
            Ok(_) => editing,
            Err(_) => Editing::NotAModel,
        };
        Self { asset, editing }
    }
}

/// An open model as the loader made it: what a front end draws or exports.
pub struct Loaded<'a> {
    pub model: &'a std::sync::Arc<crate::model::CpuModel>,
    /// What the loader calls it (`demo.pak:0xDE060001.ANCS (worm)`).
    pub label: &'a str,
    /// The clip the request chose, if any.
    pub animation: Option<usize>,
    /// The loader's warnings.
    pub warnings: &'a [String],
    /// A room's light layers (empty for models).
    pub light_layers: &'a [Vec<crate::gx::lights::PrimeLight>],
    /// Which file each part came from.
    pub sources: &'a [String],
}

/// Why a patch changed nothing.
#[derive(Debug, thiserror::Error)]
pub enum PatchRefused {
    #[error("the open file is not an editable model")]
    NotEditable,
    #[error(transparent)]
    Patch(#[from] edit::PatchError),
}

/// What an edit, undo or redo did to the drawn model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Nothing changed.
    None,
    /// Materials changed: the scene takes them, texture bindings included, as overrides of
    /// the shared model (uniforms; one material's pipeline for a new structure, its texture
    /// bind group for new maps). The model itself never changes.
    Materials,
    /// A second draw changed (MP3's INCA draw, which the scene builds from the CPU model):
    /// the CPU model was replaced and the scene is rebuilt. Texture bindings are overrides.
    Model,
}

/// The material the front end shows and edits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Selection {
    pub set: usize,
    pub material: usize,
    /// The user chose it (a click on the model or the list): only then is it tinted.
    pub chosen: bool,
}

/// The animation clock: the time every view draws at (skeletal and UV animations; the
/// renderer takes it each frame), and whether and how fast it runs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Clock {
    /// Seconds.
    pub time: f64,
    pub playing: bool,
    /// Playback rate (1 = real time).
    pub speed: f64,
    /// The character clip chosen (None: none, the bind pose).
    pub animation: Option<usize>,
}

impl Default for Clock {
    fn default() -> Self {
        Self {
            time: 0.0,
            playing: false,
            speed: 1.0,
            animation: None,
        }
    }
}

/// The open asset and its editable document (see the module docs), the selection, the
/// clock, the camera and the lights.
#[derive(Default)]
pub struct Session {
    pub selection: Selection,
    pub clock: Clock,
    pub camera: camera::Camera,
    pub lights: Lights,
    asset: Option<Asset>,
    document: Option<edit::Document>,
    /// Why the open model cannot be edited.
    read_only: Option<String>,
    /// Bumped on every change of the materials (edit, undo, redo, open), so the scene
    /// re-reads them once.
    revision: u64,
}

impl Session {
    /// A session showing what `opened` holds (an open failure leaves the session as it
    /// was and is returned).
    pub fn install(&mut self, opened: Opened) -> anyhow::Result<()> {
        let asset = opened.asset?;
        (self.document, self.read_only) = match opened.editing {
            Editing::Editable(d) => (Some(d), None),
            Editing::ReadOnly(note) => (None, Some(note)),
            Editing::NotAModel => (None, None),
        };
        self.asset = Some(asset);
        self.revision += 1;
        Ok(())
    }

    /// Opens `spec` now, on this thread (the viewer opens on a worker).
    pub fn open(spec: &str, references: &References) -> anyhow::Result<Self> {
        Self::open_request(&references.request(spec))
    }

    /// Opens a typed request now, on this thread (the CLI's way).
    pub fn open_request(request: &crate::load::LoadRequest) -> anyhow::Result<Self> {
        let mut session = Self::default();
        session.install(Opened::load_request(request))?;
        Ok(session)
    }

    /// Opens a model (CMDL, character or room) for a front end that draws or exports it; a
    /// texture is refused.
    pub fn open_model(request: &crate::load::LoadRequest) -> anyhow::Result<Self> {
        let session = Self::open_request(request)?;
        match session.asset() {
            Some(asset) if session.loaded().is_none() => anyhow::bail!(
                "{}: expected a CMDL, an ANCS, a CHAR or an MREA, not a TXTR",
                asset.spec
            ),
            _ => Ok(session),
        }
    }

    /// The open model as the loader made it (None: a texture, or nothing open).
    pub fn loaded(&self) -> Option<Loaded<'_>> {
        let asset = self.asset.as_ref()?;
        let Content::Model {
            model,
            label,
            animation,
            load_warnings,
            ..
        } = &asset.content
        else {
            return None;
        };
        Some(Loaded {
            model,
            label,
            animation: *animation,
            warnings: load_warnings,
            light_layers: &asset.light_layers,
            sources: &asset.sources,
        })
    }

    /// Opens `spec` for editing alone (`tevscope edit`): the document, without decoding
    /// what the renderer would draw.
    pub fn open_document(spec: &str) -> Result<Self, edit::DocumentError> {
        Ok(Self {
            document: Some(edit::Document::open(spec)?),
            ..Self::default()
        })
    }

    /// Frames the camera on the open model posed through `clip` (see
    /// [`camera::Camera::frame`]); nothing for a texture.
    pub fn frame_camera(&mut self, clip: Option<usize>, view_size: Option<[u32; 2]>) {
        if let Some(Asset {
            content: Content::Model { model, aabb, .. },
            ..
        }) = &self.asset
        {
            self.camera.frame(model, clip, *aabb, view_size);
        }
    }

    pub fn asset(&self) -> Option<&Asset> {
        self.asset.as_ref()
    }

    /// The editable document (None for textures, characters and files it cannot read).
    pub fn document(&self) -> Option<&edit::Document> {
        self.document.as_ref()
    }

    /// Why the open model cannot be edited.
    pub fn read_only_note(&self) -> Option<&str> {
        self.read_only.as_deref()
    }

    /// The materials' revision (see [`Session::revision`]'s field).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// Material `index` of set `set` as stored in the file (what the editor changes).
    pub fn file_material(&self, set: usize, index: usize) -> Option<&FileMaterial> {
        self.document
            .as_ref()?
            .material_sets()
            .get(set)?
            .materials
            .get(index)
    }

    /// Replaces one material as one command (see [`edit::Document::edit_material`]); a
    /// refused material changes nothing.
    pub fn edit_material(
        &mut self,
        set: usize,
        index: usize,
        material: FileMaterial,
        label: &str,
        merge: bool,
    ) -> Result<Change, edit::Refusal> {
        let document = self.document.as_mut().ok_or(edit::Refusal::NotEditable)?;
        document.edit_material(set, index, material, label, merge)?;
        self.revision += 1;
        // Only the edited material is derived again.
        match (self.document.as_ref(), self.asset.as_mut()) {
            (Some(document), Some(asset)) => match document.material_sets().get(set) {
                Some(file_set) if asset.refresh_material(set, index, file_set) => {
                    Ok(Change::Materials)
                }
                _ => Ok(self.derive()),
            },
            _ => Ok(Change::None),
        }
    }

    /// Applies a JSON Patch over the `info --json` schema as one command.
    pub fn apply_patch(
        &mut self,
        ops: &[json_patch::PatchOperation],
        label: &str,
    ) -> Result<Change, PatchRefused> {
        let document = self.document.as_mut().ok_or(PatchRefused::NotEditable)?;
        document.apply_patch(ops, label)?;
        Ok(self.derive())
    }

    /// Undoes the document's last command (None when there is none).
    pub fn undo(&mut self) -> Option<Change> {
        self.document.as_mut()?.undo().then(|| self.derive())
    }

    /// Redoes the document's last undone command (None when there is none).
    pub fn redo(&mut self) -> Option<Change> {
        self.document.as_mut()?.redo().then(|| self.derive())
    }

    /// Drops the document's undone commands (a new step of a history kept around it).
    pub fn clear_redo(&mut self) {
        if let Some(d) = self.document.as_mut() {
            d.clear_redo();
        }
    }

    /// Whether the document has edits that are not saved.
    pub fn is_dirty(&self) -> bool {
        self.document.as_ref().is_some_and(edit::Document::is_dirty)
    }

    /// Writes the document to `path` (the open file stays the document's file).
    pub fn save_to(&mut self, path: &Path) -> Result<Option<edit::Saved>, edit::DocumentError> {
        self.document.as_mut().map(|d| d.save_to(path)).transpose()
    }

    /// Writes the document to `path` and keeps editing that file.
    pub fn save_as(&mut self, path: &Path) -> Result<Option<edit::Saved>, edit::DocumentError> {
        self.document.as_mut().map(|d| d.save_as(path)).transpose()
    }

    /// The MP3 Alts the open model was derived with (the Defaults when none is open).
    pub fn mp3_alts(&self) -> crate::load::Mp3Alts {
        self.asset.as_ref().map(Asset::mp3_alts).unwrap_or_default()
    }

    /// Derives the open model again with other MP3 Alts (the viewer's toggles), keeping
    /// the document and its history: the CPU model is rebuilt (skin normals included) and
    /// the document's materials derived over it.
    pub fn set_mp3_alts(&mut self, alts: crate::load::Mp3Alts) -> anyhow::Result<Change> {
        let Some(asset) = self.asset.as_mut() else {
            return Ok(Change::None);
        };
        if !asset.set_mp3_alts(alts)? {
            return Ok(Change::None);
        }
        if self.document.is_some() {
            self.derive();
        } else {
            self.revision += 1;
        }
        Ok(Change::Model)
    }

    /// Derives the asset's materials from the document after it changed.
    fn derive(&mut self) -> Change {
        self.revision += 1;
        let (Some(document), Some(asset)) = (&self.document, self.asset.as_mut()) else {
            return Change::None;
        };
        let sets = crate::load::cpu_material_sets(
            document.material_sets(),
            document.mp3_materials(),
            &asset.mp3_alts().synthesis,
        );
        if asset.refresh_materials(sets) {
            Change::Model
        } else {
            Change::Materials
        }
    }
}
