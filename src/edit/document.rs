//! The opened model or area as an editable document: where it came from, its bytes, the
//! parsed model ([`Edited`]: a CMDL, or an MREA whose world geometry's material set is
//! edited) and the history of commands. Every change goes through a [`Command`], which carries the
//! material sets before and after, so undo and redo restore the exact state (and the exact
//! bytes on save).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use json_patch::PatchOperation;

use super::patch::{self, PatchError, Refusal};
use super::patch_mp3;
pub use crate::atomic::write_atomically;
use crate::formats::FormatError;
use crate::formats::cmdl::Cmdl;
use crate::formats::material::{Material, MaterialSet};
use crate::formats::mp3_material::Mp3Materials;
use crate::formats::mrea::{Mrea, parse_mrea};
use crate::formats::pak::PakArchive;
use crate::formats::pak_splice;
use crate::load::{Resource, builtin, source};
use crate::schema::CmdlInfo;

/// Where the model's bytes live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// A loose CMDL file.
    Loose { path: PathBuf },
    /// Resource `entry` (table index) of a PAK archive.
    Pak { path: PathBuf, entry: usize },
}

impl Origin {
    /// The file on disk (the archive for a PAK member).
    pub fn path(&self) -> &Path {
        match self {
            Origin::Loose { path } | Origin::Pak { path, .. } => path,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// The input could not be opened (the loader's error is the source).
    #[error("cannot open {spec}")]
    Open {
        spec: String,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync + 'static>,
    },
    #[error("{label}: the area has no world geometry, so it has no materials to edit")]
    NoWorldGeometry { label: String },
    #[error("{}: resource {entry} of the archive opened is gone", path.display())]
    Vanished { path: PathBuf, entry: usize },
    #[error(transparent)]
    Format(#[from] FormatError),
    #[error("{0} is not a CMDL model or an MREA area (only their materials can be edited)")]
    NotAModel(String),
    #[error(transparent)]
    Patch(#[from] PatchError),
    #[error("{} is built into tevscope and cannot be overwritten: save it as a new file", .0.display())]
    BuiltIn(PathBuf),
    #[error(
        "{} is on a disc image, which tevscope never modifies: save as a new disc image (.iso) \
         or into a folder", .0.display()
    )]
    OnDisc(PathBuf),
    #[error("cannot write the disc image {path}: {message}")]
    DiscImage { path: PathBuf, message: String },
    /// Save As a disc image from a Wii disc: refused before anything is written.
    #[error(
        "nothing was written: {} is a Wii disc and tevscope writes new GameCube disc images          only, so {} was not created (the disc is unchanged). Save As a folder instead: the          edited {member} is written into it",
        disc.display(),
        target.display()
    )]
    WiiImage {
        disc: PathBuf,
        member: String,
        target: PathBuf,
    },
    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// One material set's state before and after a command.
#[derive(Debug, Clone, PartialEq)]
struct SetChange {
    set: usize,
    before: MaterialSet,
    after: MaterialSet,
}

/// An undoable edit: what it says it does, and the sets it changes (its own inverse).
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    pub label: String,
    changes: Vec<SetChange>,
    /// An MP3 model's material sets before and after (they are not [`MaterialSet`]s).
    mp3: Option<Box<(Mp3Materials, Mp3Materials)>>,
}

impl Command {
    /// The command that turns `before` into `after` (only the sets that differ).
    pub fn between(
        label: impl Into<String>,
        before: &[MaterialSet],
        after: Vec<MaterialSet>,
    ) -> Self {
        let changes = after
            .into_iter()
            .enumerate()
            .filter(|(i, a)| before.get(*i) != Some(a))
            .filter_map(|(set, after)| {
                Some(SetChange {
                    set,
                    before: before.get(set)?.clone(),
                    after,
                })
            })
            .collect();
        Self {
            label: label.into(),
            changes,
            mp3: None,
        }
    }

    /// The command that turns an MP3 model's sets `before` into `after`.
    pub fn between_mp3(
        label: impl Into<String>,
        before: Mp3Materials,
        after: Mp3Materials,
    ) -> Self {
        Self {
            label: label.into(),
            changes: Vec::new(),
            mp3: (before != after).then(|| Box::new((before, after))),
        }
    }

    /// Whether the command changes nothing.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty() && self.mp3.is_none()
    }

    /// The command that undoes this one.
    pub fn inverse(&self) -> Self {
        Self {
            label: self.label.clone(),
            changes: self
                .changes
                .iter()
                .map(|c| SetChange {
                    set: c.set,
                    before: c.after.clone(),
                    after: c.before.clone(),
                })
                .collect(),
            mp3: self
                .mp3
                .as_ref()
                .map(|m| Box::new((m.1.clone(), m.0.clone()))),
        }
    }

    fn apply(&self, edited: &mut Edited) {
        if let Some(m) = &self.mp3 {
            match edited {
                Edited::Model(c) => c.mp3_materials = Some(m.1.clone()),
                Edited::Area(a) => {
                    if let Some(g) = a.mp3_geometry.as_mut() {
                        g.materials = m.1.clone();
                    }
                }
            }
        }
        let sets = edited.material_sets_mut();
        for c in &self.changes {
            if let Some(set) = sets.get_mut(c.set) {
                *set = c.after.clone();
            }
        }
    }
}

/// What a document edits: a model's material sets, or an area's one material set (its
/// world geometry's; patches address it as `/material_sets/0/…`, as for a model).
#[derive(Debug, Clone)]
pub enum Edited {
    Model(Box<Cmdl>),
    /// Always has world geometry (MP1/MP2, or MP3's whose one MP3 set is edited).
    Area(Box<Mrea>),
}

impl Edited {
    pub fn material_sets(&self) -> &[MaterialSet] {
        match self {
            Edited::Model(c) => &c.material_sets,
            Edited::Area(m) => m
                .geometry
                .as_ref()
                .map_or(&[], |g| std::slice::from_ref(&g.material_set)),
        }
    }

    /// An MP3 model's material sets, or an MP3 area's one set (patched as
    /// `/material_sets/0/…`, as for a model).
    pub fn mp3_materials(&self) -> Option<&Mp3Materials> {
        match self {
            Edited::Model(c) => c.mp3_materials.as_ref(),
            Edited::Area(m) => m.mp3_geometry.as_ref().map(|g| &g.materials),
        }
    }

    fn material_sets_mut(&mut self) -> &mut [MaterialSet] {
        match self {
            Edited::Model(c) => &mut c.material_sets,
            Edited::Area(m) => m
                .geometry
                .as_mut()
                .map_or(&mut [], |g| std::slice::from_mut(&mut g.material_set)),
        }
    }

    /// The resource's bytes: an unchanged file gives back the bytes read (the MREA writer
    /// keeps unchanged compressed blocks as stored and recompresses the edited one).
    fn to_bytes(&self) -> Result<Vec<u8>, FormatError> {
        match self {
            Edited::Model(c) => Ok(c.to_bytes()),
            Edited::Area(m) => m.to_bytes(),
        }
    }
}

/// An opened model with its edit history.
#[derive(Debug, Clone)]
pub struct Document {
    origin: Origin,
    /// The archive a PAK member came from, as the loader opened it (shared, not read
    /// again): a save splices the edited resource into it.
    archive: Option<Arc<PakArchive>>,
    /// The model's own bytes as read (decompressed for a PAK member).
    model_bytes: Vec<u8>,
    label: String,
    edited: Edited,
    undo: Vec<Command>,
    redo: Vec<Command>,
    /// Undo depth at the last save (or open): the document is clean there.
    saved_depth: Option<usize>,
}

impl Document {
    /// Opens a loose CMDL or MREA, or `FILE.pak:ID` / `FILE.pak:name` (see
    /// [`source::split_spec`]).
    pub fn open(spec: &str) -> Result<Self, DocumentError> {
        let (input, resolver) = source::open(spec).map_err(|e| DocumentError::Open {
            spec: spec.to_owned(),
            source: e.into(),
        })?;
        Self::from_input(&input, resolver.archive())
    }

    /// The document of an input already opened ([`source::open`]): a loose file's bytes,
    /// or a PAK member with the `archive` its resolver holds. Nothing is read again.
    pub fn from_input(
        input: &Resource,
        archive: Option<Arc<PakArchive>>,
    ) -> Result<Self, DocumentError> {
        let Some(archive) = archive else {
            return Self::from_bytes(
                Origin::Loose {
                    path: input.path.clone(),
                },
                None,
                input.bytes.clone(),
                input.label.clone(),
            );
        };
        let entry = input
            .id
            .and_then(|id| archive.pak.find(id, input.fourcc))
            .filter(|e| crate::load::AssetKind::from_fourcc(e.fourcc).is_some_and(|k| k.editable()))
            .map(|e| e.index)
            .ok_or_else(|| DocumentError::NotAModel(input.label.clone()))?;
        let origin = Origin::Pak {
            path: input.path.clone(),
            entry,
        };
        Self::from_bytes(
            origin,
            Some(archive),
            input.bytes.clone(),
            input.label.clone(),
        )
    }

    /// A loose model from bytes already read (`label` names it in errors).
    pub fn from_cmdl_bytes(path: PathBuf, bytes: Vec<u8>) -> Result<Self, DocumentError> {
        let label = path.display().to_string();
        Self::from_bytes(Origin::Loose { path }, None, bytes, label)
    }

    fn from_bytes(
        origin: Origin,
        archive: Option<Arc<PakArchive>>,
        model_bytes: Vec<u8>,
        label: String,
    ) -> Result<Self, DocumentError> {
        let area = model_bytes.starts_with(&crate::formats::mrea::MREA_MAGIC.to_be_bytes());
        let edited = if area {
            let m = parse_mrea(&model_bytes, &label)?;
            if m.geometry.is_none() && m.mp3_geometry.is_none() {
                return Err(DocumentError::NoWorldGeometry { label });
            }
            Edited::Area(Box::new(m))
        } else {
            Edited::Model(Box::new(Cmdl::parse(&model_bytes, &label)?))
        };
        Ok(Self {
            origin,
            archive,
            model_bytes,
            label,
            edited,
            undo: Vec::new(),
            redo: Vec::new(),
            saved_depth: Some(0),
        })
    }

    pub fn origin(&self) -> &Origin {
        &self.origin
    }

    /// What errors call the model (`path`, or `file.pak:0xID.CMDL`).
    pub fn label(&self) -> &str {
        &self.label
    }

    /// The model in its current state (None for an area).
    pub fn cmdl(&self) -> Option<&Cmdl> {
        match &self.edited {
            Edited::Model(c) => Some(c),
            Edited::Area(_) => None,
        }
    }

    /// What is edited, in its current state.
    pub fn edited(&self) -> &Edited {
        &self.edited
    }

    /// The material sets in their current state (an area has one).
    pub fn material_sets(&self) -> &[MaterialSet] {
        self.edited.material_sets()
    }

    /// The MP3 material sets in their current state (an MP3 model's, or an MP3 area's one).
    pub fn mp3_materials(&self) -> Option<&Mp3Materials> {
        self.edited.mp3_materials()
    }

    /// A model's `info --json` document of the current state (what patches address; an
    /// area's is `info --json` on the area, whose `material_sets` patches address alike).
    pub fn info(&self) -> Option<CmdlInfo> {
        let cmdl = self.cmdl()?;
        Some(CmdlInfo::new(cmdl, &self.label, cmdl.to_bytes().len()))
    }

    /// Applies a JSON Patch as one command. A refused patch changes nothing.
    pub fn apply_patch(
        &mut self,
        ops: &[PatchOperation],
        label: impl Into<String>,
    ) -> Result<(), PatchError> {
        if let Some(before) = self.edited.mp3_materials().cloned() {
            let after = patch_mp3::apply(&before, ops)?;
            self.execute(Command::between_mp3(label, before, after));
            return Ok(());
        }
        let after = patch::apply(self.material_sets(), ops)?;
        self.execute(Command::between(label, self.material_sets(), after));
        Ok(())
    }

    /// Replaces one material as one command (for editors that change typed fields).
    pub fn set_material(
        &mut self,
        set: usize,
        index: usize,
        material: Material,
        label: impl Into<String>,
    ) {
        // Only the changed set is copied (before and after), not the whole model's.
        let Some(before) = self.material_sets().get(set) else {
            return;
        };
        let mut after = before.clone();
        let Some(slot) = after.materials.get_mut(index) else {
            return;
        };
        *slot = material;
        after.repad();
        let changes = if after == *before {
            Vec::new()
        } else {
            vec![SetChange {
                set,
                before: before.clone(),
                after,
            }]
        };
        self.execute(Command {
            label: label.into(),
            changes,
            mp3: None,
        });
    }

    /// Replaces one material as one command after the checks a patch gets (the geometry read
    /// as before, and hardware and game limits the material did not already break; see
    /// [`patch::check_material`]); a refused material changes nothing. The
    /// UV block size and count are recomputed from the animations. With `merge`, a last
    /// command of the same label (not saved, nothing to redo) takes this change in instead
    /// (a slider dragged over many frames is one undo step).
    pub fn edit_material(
        &mut self,
        set: usize,
        index: usize,
        mut material: Material,
        label: impl Into<String>,
        merge: bool,
    ) -> Result<(), Refusal> {
        let label = label.into();
        let Some((s, before)) = self
            .material_sets()
            .get(set)
            .and_then(|s| Some((s, s.materials.get(index)?)))
        else {
            return Err(Refusal::NotEditable);
        };
        material.refresh_uv_block();
        patch::check_material(s, before, &material)?;
        let mergeable = merge
            && self.redo.is_empty()
            && self.saved_depth != Some(self.undo.len())
            && self.undo.last().is_some_and(|c| c.label == label);
        if mergeable && let Some(last) = self.undo.pop() {
            last.inverse().apply(&mut self.edited);
        }
        self.set_material(set, index, material, label);
        Ok(())
    }

    /// Runs a command and records it (an empty command is dropped).
    pub fn execute(&mut self, command: Command) {
        if command.is_empty() {
            return;
        }
        command.apply(&mut self.edited);
        self.clear_redo();
        self.undo.push(command);
    }

    /// Drops the undone commands: a new edit took their place (here, or in a history the
    /// caller keeps around this one, such as the viewer's light edits).
    pub fn clear_redo(&mut self) {
        if self.saved_depth.is_some_and(|d| d > self.undo.len()) {
            // The saved state was on the redo branch being discarded.
            self.saved_depth = None;
        }
        self.redo.clear();
    }

    /// Undoes the last command; false when there is none.
    pub fn undo(&mut self) -> bool {
        let Some(c) = self.undo.pop() else {
            return false;
        };
        c.inverse().apply(&mut self.edited);
        self.redo.push(c);
        true
    }

    /// Redoes the last undone command; false when there is none.
    pub fn redo(&mut self) -> bool {
        let Some(c) = self.redo.pop() else {
            return false;
        };
        c.apply(&mut self.edited);
        self.undo.push(c);
        true
    }

    /// Labels of the done commands, oldest first.
    pub fn history(&self) -> impl Iterator<Item = &str> {
        self.undo.iter().map(|c| c.label.as_str())
    }

    /// Labels of the undone commands, next to redo first.
    pub fn redo_history(&self) -> impl Iterator<Item = &str> {
        self.redo.iter().rev().map(|c| c.label.as_str())
    }

    /// Whether the state differs from the last save (or the opened file).
    pub fn is_dirty(&self) -> bool {
        self.saved_depth != Some(self.undo.len())
    }

    /// The resource's bytes in the current state (the bytes read when nothing changed).
    pub fn model_bytes(&self) -> Result<Vec<u8>, DocumentError> {
        Ok(self.edited.to_bytes()?)
    }

    /// The whole file in the current state: the CMDL or MREA, or the PAK with only this
    /// resource replaced. An unchanged resource gives the file as read.
    pub fn file_bytes(&self) -> Result<Vec<u8>, DocumentError> {
        let model = self.model_bytes()?;
        match (&self.origin, &self.archive) {
            (Origin::Loose { .. }, _) => Ok(model),
            (Origin::Pak { path, entry }, archive) => {
                let vanished = || DocumentError::Vanished {
                    path: path.clone(),
                    entry: *entry,
                };
                let archive = archive.as_ref().ok_or_else(vanished)?;
                if model == self.model_bytes {
                    // Recompressing would not reproduce the stored bytes; keep them.
                    return Ok(archive.bytes()?.into_owned());
                }
                let e = archive.pak.entries().get(*entry).ok_or_else(vanished)?;
                Ok(pak_splice::replace_resource(
                    &archive.pak,
                    &archive.bytes()?,
                    e,
                    &model,
                )?)
            }
        }
    }

    /// Writes the current state to `target` safely (temporary file next to it, then rename)
    /// and marks the document clean. When the document comes from a disc image, which is
    /// never modified, `target` is a new image (`.iso`/`.gcm`: the disc with the edited PAK
    /// replaced) or a folder (the edited PAK goes into it); the result says which.
    pub fn save_to(&mut self, target: &Path) -> Result<Saved, DocumentError> {
        if builtin::is_builtin(target) {
            return Err(DocumentError::BuiltIn(target.to_path_buf()));
        }
        if crate::load::disc::is_member(target) {
            return Err(DocumentError::OnDisc(target.to_path_buf()));
        }
        let on_disc = crate::load::disc::member(self.origin.path());
        if let Some((disc, file)) = &on_disc {
            check_disc_route(&disc.path, disc.is_wii, &file.path, target)?;
        }
        let bytes = self.file_bytes()?;
        let saved = match &on_disc {
            Some((disc, file)) if has_image_extension(target) => {
                crate::load::disc::write_image(disc, &[(&file.path, &bytes)], target).map_err(
                    |e| DocumentError::DiscImage {
                        path: target.to_path_buf(),
                        message: format!("{e:#}"),
                    },
                )?;
                Saved::DiscImage {
                    image: target.to_path_buf(),
                    member: file.path.clone(),
                }
            }
            Some((_, file)) if target.is_dir() => {
                let name = file.path.rsplit('/').next().unwrap_or(&file.path);
                let path = target.join(name);
                self.write(&path, &bytes)?;
                Saved::IntoFolder(path)
            }
            Some(_) => return Err(DocumentError::OnDisc(self.origin.path().to_path_buf())),
            None if target.is_dir() => {
                let name = self
                    .origin
                    .path()
                    .file_name()
                    .map_or_else(|| "out".into(), |n| n.to_os_string());
                let path = target.join(name);
                self.write(&path, &bytes)?;
                Saved::IntoFolder(path)
            }
            None => {
                self.write(target, &bytes)?;
                Saved::File(target.to_path_buf())
            }
        };
        self.saved_depth = Some(self.undo.len());
        Ok(saved)
    }

    fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), DocumentError> {
        write_atomically(path, bytes).map_err(|source| DocumentError::Write {
            path: path.to_path_buf(),
            source,
        })
    }
}

/// Where Save As may put a document read from a disc (`disc`, a Wii disc when `is_wii`,
/// holding `member`): a new image (`.iso`/`.gcm`, GameCube discs only) or an existing folder.
/// Anything else is refused up front, naming what was not written and the route that works.
fn check_disc_route(
    disc: &Path,
    is_wii: bool,
    member: &str,
    target: &Path,
) -> Result<(), DocumentError> {
    if has_image_extension(target) && is_wii {
        return Err(DocumentError::WiiImage {
            disc: disc.to_path_buf(),
            member: member.to_string(),
            target: target.to_path_buf(),
        });
    }
    if !has_image_extension(target) && !target.is_dir() {
        return Err(DocumentError::OnDisc(PathBuf::from(format!(
            "{}:{member}",
            disc.display()
        ))));
    }
    Ok(())
}

/// Whether `path` names a GameCube disc image by its extension.
fn has_image_extension(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("iso") || e.eq_ignore_ascii_case("gcm"))
}

/// Where [`Document::save_to`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Saved {
    /// The file named (the model, or the whole PAK for a PAK member).
    File(PathBuf),
    /// A new disc image: the source disc with `member`, the edited PAK, replaced.
    DiscImage { image: PathBuf, member: String },
    /// The edited file, under its own name, in the folder named.
    IntoFolder(PathBuf),
}

impl Saved {
    /// The file written, which now holds the document: for an image, its edited PAK.
    pub fn document_path(&self) -> PathBuf {
        match self {
            Saved::File(p) | Saved::IntoFolder(p) => p.clone(),
            Saved::DiscImage { image, member } => {
                PathBuf::from(format!("{}:{member}", image.display()))
            }
        }
    }
}

impl std::fmt::Display for Saved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Saved::File(p) => write!(f, "wrote {}", p.display()),
            Saved::DiscImage { image, member } => write!(
                f,
                "wrote a new disc image {} with {member} replaced (every other file as on the \
                 source disc, which was not modified)",
                image.display()
            ),
            Saved::IntoFolder(p) => {
                write!(f, "wrote the edited file into a folder: {}", p.display())
            }
        }
    }
}

impl Document {
    /// [`Document::save_to`], then the written file is the document's (Save As): a PAK
    /// member stays the same resource of the written archive.
    pub fn save_as(&mut self, target: &Path) -> Result<Saved, DocumentError> {
        let saved = self.save_to(target)?;
        let path = saved.document_path();
        match &mut self.origin {
            Origin::Loose { path: p } | Origin::Pak { path: p, .. } => *p = path,
        }
        if let Origin::Loose { path } = &self.origin {
            self.label = path.display().to_string();
        }
        Ok(saved)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    #[test]
    fn save_as_from_a_wii_disc_refuses_an_image_and_names_the_folder_route() {
        let dir = crate::testing::Scratch::new("wii-route");
        let (disc, member) = (Path::new("prime3.wbfs"), "Metroid3.pak");
        let iso = dir.join("new.iso");
        let e = check_disc_route(disc, true, member, &iso).unwrap_err();
        assert!(matches!(e, DocumentError::WiiImage { .. }), "{e:?}");
        let text = e.to_string();
        for part in [
            "nothing was written",
            "prime3.wbfs is a Wii disc",
            "new.iso was not created",
            "Save As a folder",
            "Metroid3.pak",
        ] {
            assert!(text.contains(part), "{text}");
        }
        assert!(!iso.exists());
        // The folder route is open to Wii and GameCube discs; a GameCube disc may be saved
        // as a new image.
        check_disc_route(disc, true, member, &dir).unwrap();
        check_disc_route(disc, false, member, &iso).unwrap();
        check_disc_route(disc, false, member, &dir.join("x.GCM")).unwrap();
        // Anything else (another container, a file that is not a folder) is refused
        // naming the disc file.
        let e = check_disc_route(disc, false, member, &dir.join("new.rvz")).unwrap_err();
        assert!(
            e.to_string()
                .contains("prime3.wbfs:Metroid3.pak is on a disc image"),
            "{e}"
        );
    }

    use super::*;
    use crate::formats::Game;
    use crate::formats::cmdl::builder::{CmdlBuilder, MeshVertex};
    use crate::testing::sample_material;

    /// Two materials, one triangle each.
    fn doc() -> Document {
        let mut b = CmdlBuilder::new(Game::Mp1);
        b.add_texture(0x1234);
        let tri = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
            .map(|p| MeshVertex::new(p).normal([0.0, 0.0, 1.0]).uv(0, [0.0, 0.0]));
        for _ in 0..2 {
            let m = b.add_material(sample_material());
            b.add_mesh(m, &tri, &[[0, 1, 2]]).unwrap();
        }
        let bytes = b.build_bytes().unwrap();
        Document::from_cmdl_bytes(PathBuf::from("t.CMDL"), bytes).unwrap()
    }

    fn with_group(d: &Document, m: usize, g: u32) -> Material {
        let mut mat = d.material_sets()[0].materials[m].clone();
        mat.group_index = g;
        mat
    }

    #[test]
    fn undo_redo_and_the_dirty_marker() {
        let mut d = doc();
        let original = d.model_bytes().unwrap();
        assert!(!d.is_dirty() && !d.undo() && !d.redo());
        d.set_material(0, 0, with_group(&d, 0, 5), "group 5");
        d.set_material(0, 1, with_group(&d, 1, 6), "group 6");
        assert!(d.is_dirty());
        assert_eq!(d.history().collect::<Vec<_>>(), ["group 5", "group 6"]);
        let two = d.model_bytes().unwrap();
        assert!(d.undo());
        assert_eq!(d.redo_history().collect::<Vec<_>>(), ["group 6"]);
        assert!(d.undo());
        assert_eq!(d.model_bytes().unwrap(), original);
        assert!(!d.is_dirty());
        assert!(d.redo() && d.redo());
        assert_eq!(d.model_bytes().unwrap(), two);
        // A no-op edit records nothing.
        d.set_material(0, 0, with_group(&d, 0, 5), "same");
        assert_eq!(d.history().count(), 2);
    }

    #[test]
    fn guarded_material_edits_merge_by_label_and_refuse_limits() {
        let mut d = doc();
        let original = d.model_bytes().unwrap();
        d.edit_material(0, 0, with_group(&d, 0, 1), "drag", true)
            .unwrap();
        d.edit_material(0, 0, with_group(&d, 0, 2), "drag", true)
            .unwrap();
        assert_eq!(d.history().count(), 1, "same label: one command");
        d.edit_material(0, 0, with_group(&d, 0, 3), "drag", false)
            .unwrap();
        assert_eq!(d.history().count(), 2, "merge off: a new command");
        assert!(d.undo() && d.undo());
        assert_eq!(d.model_bytes().unwrap(), original);
        // 17 TEV stages break the GX limit: refused, nothing recorded.
        let mut m = d.material_sets()[0].materials[0].clone();
        m.tev_stages = vec![m.tev_stages[0]; 17];
        let e = d.edit_material(0, 0, m, "too many", false).unwrap_err();
        assert!(matches!(e, Refusal::Limit { .. }), "{e}");
        assert_eq!(d.model_bytes().unwrap(), original);
        assert!(!d.is_dirty());
        let m = d.material_sets()[0].materials[0].clone();
        assert!(matches!(
            d.edit_material(3, 0, m, "no set", false),
            Err(Refusal::NotEditable)
        ));
    }

    #[test]
    fn a_new_edit_after_undo_drops_the_redo_branch_and_the_saved_state() {
        let mut d = doc();
        d.set_material(0, 0, with_group(&d, 0, 5), "a");
        let dir = std::env::temp_dir().join(format!("tevscope-doc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("saved.CMDL");
        d.save_to(&out).unwrap();
        assert!(!d.is_dirty());
        assert_eq!(std::fs::read(&out).unwrap(), d.model_bytes().unwrap());
        assert!(d.undo());
        assert!(d.is_dirty());
        d.set_material(0, 1, with_group(&d, 1, 9), "b");
        assert!(!d.redo());
        // The saved state ("a") can no longer be reached: dirty at every depth.
        assert!(d.is_dirty());
        assert!(d.undo());
        assert!(d.is_dirty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_failed_write_leaves_no_temporary_file_and_the_target_alone() {
        let dir = std::env::temp_dir().join(format!("tevscope-write-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("target")).unwrap();
        std::fs::write(dir.join("target/keep"), b"x").unwrap();
        // Renaming a file over a non-empty folder fails.
        assert!(write_atomically(&dir.join("target"), b"bytes").is_err());
        assert!(write_atomically(&dir.join("missing/out"), b"bytes").is_err());
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(names, ["target"]);
        assert_eq!(std::fs::read(dir.join("target/keep")).unwrap(), b"x");
        write_atomically(&dir.join("ok"), b"bytes").unwrap();
        assert_eq!(std::fs::read(dir.join("ok")).unwrap(), b"bytes");
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_built_in_demo_opens_edits_and_saves_only_elsewhere() {
        let spec = builtin::demo_spec("room");
        let mut d = Document::open(&spec).unwrap();
        assert_eq!(d.origin().path(), Path::new(builtin::DEMO_PAK));
        let set = d.material_sets()[0].clone();
        let mut m = set.materials[0].clone();
        m.group_index ^= 1;
        d.set_material(0, 0, m, "konst");
        let err = d.save_to(Path::new(builtin::DEMO_PAK)).unwrap_err();
        assert!(matches!(err, DocumentError::BuiltIn(_)), "{err}");
        assert!(d.is_dirty());
        let dir = std::env::temp_dir().join(format!("tevscope-builtin-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let out = dir.join("demo.pak");
        d.save_as(&out).unwrap();
        assert!(!d.is_dirty());
        let again = Document::open(&format!("{}:room", out.display())).unwrap();
        assert_eq!(
            again.material_sets()[0].materials[0],
            d.material_sets()[0].materials[0]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
