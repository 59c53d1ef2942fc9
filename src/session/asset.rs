//! What a session has open ([`Asset`]): a model with its material sets and decoded
//! textures, or a single texture. Loading is plain data work (no GPU, no egui), so it is
//! unit-tested and every failure becomes a message the front end shows instead of a crash.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, anyhow};

use crate::formats::material::MaterialSet;
use crate::formats::txtr::Txtr;
use crate::geom::Aabb;
use crate::gx::types::Material;
use crate::load::source::{self, Resolver, Resource};
use crate::load::{AssetKind, ModelAssets};
use crate::model::{CpuMaterialSet, CpuModel, TextureData};
use std::sync::Arc;

/// One material of a model in GX form, derived from the editable document's material.
/// Its textures are the model's ([`Asset::texture`]), looked up by ID, never copied.
#[derive(Debug, Clone, PartialEq)]
pub struct MaterialEntry {
    pub material: Material,
    /// TXTR asset IDs per texture slot (GX map k; 64-bit in MP3).
    pub texture_ids: Vec<Option<u64>>,
}

/// One material set of a model. Materials that failed to convert keep their error.
#[derive(Debug, Clone)]
pub struct MaterialSetEntry {
    pub materials: Vec<Result<MaterialEntry, String>>,
}

/// What is shown in the viewport.
#[derive(Debug, Clone)]
pub enum Content {
    Model {
        sets: Vec<MaterialSetEntry>,
        surface_count: usize,
        triangle_count: usize,
        /// The parsed files (for export and byte-level detail).
        assets: Arc<ModelAssets>,
        /// What the model view's [`crate::render::Scene`] is built from (shared, not
        /// copied, between the document and the viewport).
        model: Arc<CpuModel>,
        /// The character's animations (empty for a plain CMDL).
        animations: Vec<AnimationInfo>,
        /// The model's bounding box (bind pose), for framing the camera.
        aabb: Aabb,
        /// What the loader calls it (`demo.pak:0xDE060001.ANCS (worm)`).
        label: String,
        /// The clip the request chose (`--anim`), if any.
        animation: Option<usize>,
        /// The loader's own warnings (the asset's `warnings` add the model's and its
        /// materials').
        load_warnings: Vec<String>,
    },
    Texture {
        texture: TextureData,
        /// `I8 16x8, 1 mip`.
        summary: String,
    },
}

/// One animation of a character.
#[derive(Debug, Clone, PartialEq)]
pub struct AnimationInfo {
    pub name: String,
    /// Seconds.
    pub duration: f32,
}

/// What the user chose for the resources a model refers to (the viewer's References
/// section; empty fields are found automatically).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct References {
    /// A folder searched for textures first.
    pub texture_dir: String,
    /// A CMDL file or `PAK:ID` drawn instead of a character's model.
    pub model: String,
    /// A CSKR file or `PAK:ID`.
    pub skin: String,
    /// A CINF file or `PAK:ID`.
    pub skeleton: String,
    /// An animation name of the character, or an ANIM file or `PAK:ID`.
    pub anim: String,
    /// The MP3 Alts the model is derived with (the viewer's toggles; no part of a file).
    pub mp3_alts: crate::load::Mp3Alts,
}

impl References {
    /// The load request for `spec` with these choices.
    pub fn request(&self, spec: &str) -> crate::load::LoadRequest {
        let given = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
        crate::load::LoadRequest {
            model: given(&self.model),
            skin: given(&self.skin),
            skeleton: given(&self.skeleton),
            anim: given(&self.anim),
            texture_dirs: given(&self.texture_dir)
                .map(PathBuf::from)
                .into_iter()
                .collect(),
            mp3_alts: self.mp3_alts,
            ..crate::load::LoadRequest::new(spec)
        }
    }

    /// No file chosen (the MP3 Alts are no reference).
    pub fn is_empty(&self) -> bool {
        *self
            == Self {
                mp3_alts: self.mp3_alts,
                ..Self::default()
            }
    }

    /// Forgets the choices that name one file's parts (model, skin, skeleton, animation);
    /// the texture folder, a place to search, stays.
    pub fn clear_parts(&mut self) {
        *self = Self {
            texture_dir: std::mem::take(&mut self.texture_dir),
            mp3_alts: self.mp3_alts,
            ..Self::default()
        };
    }
}

/// An opened resource: what the viewer shows and the CLI reports.
#[derive(Debug, Clone)]
pub struct Asset {
    /// The spec it was opened with (`file`, `file.pak:0xID`).
    pub spec: String,
    /// What it is (from the type table every open path shares).
    pub kind: AssetKind,
    /// The file on disk (the PAK for a member).
    pub path: PathBuf,
    /// The PAK member as `0xID.TYPE`, when opened from a PAK.
    pub member: Option<String>,
    /// Where screenshots go by default (next to the file).
    pub dir: PathBuf,
    /// File stem used for screenshot names.
    pub stem: String,
    pub content: Content,
    /// Non-fatal problems (missing textures, parser warnings).
    pub warnings: Vec<String>,
    /// Which file each part of a model came from and how it was found.
    pub sources: Vec<String>,
    /// MREA areas next to the file whose light layers the model view offers (label, spec).
    pub areas: Vec<(String, String)>,
    /// An area's world models in surface order (empty unless the document is a room).
    pub world_models: Vec<crate::load::area::WorldModelPart>,
    /// A room's own light layers, read with it (empty for models).
    pub light_layers: Vec<Vec<crate::gx::lights::PrimeLight>>,
}

impl Asset {
    /// Where textures the file refers to are looked for (by asset ID), for messages.
    pub fn texture_place(&self) -> String {
        match self.spec.rsplit_once(':') {
            Some((file, _)) if file.to_ascii_lowercase().ends_with(".pak") => {
                format!("the PAK {file}")
            }
            _ => format!("{} and the folders above it", self.dir.display()),
        }
    }

    /// Opens a spec (see [`crate::load::source`]) of a type [`AssetKind::opens`]. A whole
    /// PAK is not an asset: the browser lists it instead.
    pub fn open(spec: &str) -> anyhow::Result<Self> {
        let (resource, resolver) = source::open(spec)?;
        Self::from_input(
            spec,
            resource,
            resolver,
            &crate::load::LoadRequest::new(spec),
        )
    }

    /// The asset of an input already opened ([`source::open`] gave `resource` and its
    /// `resolver`), with the explicit choices of `request` for what a model refers to.
    pub fn from_input(
        spec: &str,
        resource: Resource,
        resolver: Box<dyn Resolver>,
        request: &crate::load::LoadRequest,
    ) -> anyhow::Result<Self> {
        let kinds = AssetKind::openable_list();
        match resource.kind() {
            Some(AssetKind::Pak) => Err(anyhow!(
                "{spec} is a whole PAK archive: expand it in the file browser and pick a {kinds}"
            )),
            // An area's world geometry is a model too (see `load::area`).
            Some(kind) if kind.is_model() => {
                Self::open_model(spec, kind, resource, resolver, request)
            }
            Some(AssetKind::Texture) => Self::open_texture(spec, &resource),
            _ => {
                let code = resource
                    .fourcc
                    .map_or_else(|| "unknown".to_string(), crate::formats::fourcc_string);
                Err(anyhow!(
                    "{}: type {code} cannot be viewed (open a {kinds})",
                    resource.label
                ))
            }
        }
    }

    /// A document showing `content`, with the fields that say where it came from.
    fn new(spec: &str, kind: AssetKind, resource: &Resource, content: Content) -> Self {
        let dir = folder_of(resource);
        // A member's label is `file.pak:0xID.TYPE` (as the browser's rows spell it).
        let member = source::split_spec(spec)
            .is_ok_and(|(_, m)| m.is_some())
            .then(|| resource.label.rsplit_once(':').map(|(_, m)| m.to_string()))
            .flatten();
        Self {
            spec: spec.to_string(),
            kind,
            path: resource.path.clone(),
            member,
            dir,
            stem: screenshot_stem(resource),
            content,
            warnings: Vec::new(),
            sources: Vec::new(),
            areas: Vec::new(),
            world_models: Vec::new(),
            light_layers: Vec::new(),
        }
    }

    /// A CMDL, ANCS character or MREA area through [`crate::load::load`] (textures, skin,
    /// skeleton and animations found by asset ID), with the material entries the editor
    /// and the quad preview use.
    fn open_model(
        spec: &str,
        kind: AssetKind,
        resource: Resource,
        resolver: Box<dyn Resolver>,
        request: &crate::load::LoadRequest,
    ) -> anyhow::Result<Self> {
        // The loader takes the input's bytes; only the fields that name it are kept.
        let named = Resource {
            label: resource.label.clone(),
            path: resource.path.clone(),
            bytes: Vec::new(),
            ..resource
        };
        let (model, mut warnings) = crate::load::load_input(request, resource, resolver)?;
        let load_warnings = warnings.clone();
        let resource = &named;
        let (label, animation) = (model.label, model.animation);
        let sources = model.sources;
        let world_models = model.world_models;
        let light_layers = model.light_layers;
        let assets = model.assets;
        let cmdl = &assets.cmdl;
        warnings.extend(cmdl.warnings.iter().cloned());
        for (i, e) in cmdl.surface_errors() {
            warnings.push(format!("surface {i}: {e}"));
        }
        let model = assets.cpu_model()?;
        let sets = material_entries(&model.material_sets, &model.textures, &mut warnings);
        let animations = assets
            .skin
            .as_ref()
            .map(|s| {
                s.clips
                    .iter()
                    .map(|(name, clip)| AnimationInfo {
                        name: name.clone(),
                        duration: clip.duration,
                    })
                    .collect()
            })
            .unwrap_or_default();
        let content = Content::Model {
            sets,
            surface_count: model.surfaces.len(),
            triangle_count: model.triangle_count(),
            animations,
            // The same box the scene frames.
            aabb: model.aabb,
            assets: Arc::new(assets),
            model: Arc::new(model),
            label,
            animation,
            load_warnings,
        };
        Ok(Self {
            warnings,
            sources,
            areas: area_sources(spec),
            world_models,
            light_layers,
            ..Self::new(spec, kind, resource, content)
        })
    }

    /// A TXTR, decoded.
    fn open_texture(spec: &str, resource: &Resource) -> anyhow::Result<Self> {
        let txtr = Txtr::parse(&resource.bytes, &resource.label)?;
        let summary = format!(
            "{} {}x{}, {} mip{}",
            txtr.format.name(),
            txtr.width,
            txtr.height,
            txtr.mip_count,
            if txtr.mip_count == 1 { "" } else { "s" }
        );
        let (texture, warning) = texture_data(&txtr)?;
        let content = Content::Texture { texture, summary };
        Ok(Self {
            warnings: warning.into_iter().collect(),
            ..Self::new(spec, AssetKind::Texture, resource, content)
        })
    }

    /// Whether the document is an area's world geometry (a room).
    pub fn is_room(&self) -> bool {
        self.kind.is_room()
    }

    /// The CPU model of an open model (what the model view draws).
    pub fn cpu_model(&self) -> Option<&Arc<CpuModel>> {
        match &self.content {
            Content::Model { model, .. } => Some(model),
            Content::Texture { .. } => None,
        }
    }

    /// Whether the open model is an MP3 one (its materials are synthesised, §13.3).
    pub fn is_mp3_model(&self) -> bool {
        matches!(&self.content, Content::Model { assets, .. } if assets.cmdl.mp3_materials.is_some())
    }

    /// The MP3 Alts the model was derived with (the Defaults for a texture).
    pub fn mp3_alts(&self) -> crate::load::Mp3Alts {
        match &self.content {
            Content::Model { assets, .. } => assets.mp3_alts,
            Content::Texture { .. } => crate::load::Mp3Alts::default(),
        }
    }

    /// Rebuilds the CPU model and its material entries with `alts` (false: they are already
    /// in force, or this is no model).
    pub fn set_mp3_alts(&mut self, alts: crate::load::Mp3Alts) -> anyhow::Result<bool> {
        let Content::Model {
            sets,
            model,
            assets,
            ..
        } = &mut self.content
        else {
            return Ok(false);
        };
        if assets.mp3_alts == alts {
            return Ok(false);
        }
        let mut changed = (**assets).clone();
        changed.mp3_alts = alts;
        let rebuilt = changed.cpu_model()?;
        *sets = material_entries(&rebuilt.material_sets, &rebuilt.textures, &mut Vec::new());
        *model = Arc::new(rebuilt);
        *assets = Arc::new(changed);
        Ok(true)
    }

    /// Derives the material entries from the document's materials in GX form (`cpu_sets`).
    /// The model stays as loaded, texture bindings included: the scene draws the entries
    /// (materials and their texture IDs) as per-material overrides, so no such edit copies
    /// it. True when a second draw (MP3's INCA draw, which the scene builds from the CPU
    /// model, not from the entries) changed: then the CPU model takes the new materials and
    /// the scene is rebuilt — the only edit that replaces the model.
    pub fn refresh_materials(&mut self, cpu_sets: Vec<CpuMaterialSet>) -> bool {
        let Content::Model { sets, model, .. } = &mut self.content else {
            return false;
        };
        let mut warnings = Vec::new();
        *sets = material_entries(&cpu_sets, &model.textures, &mut warnings);
        let same_second_draws = model.material_sets.len() == cpu_sets.len()
            && model.material_sets.iter().zip(&cpu_sets).all(|(a, b)| {
                a.materials.len() == b.materials.len()
                    && a.materials
                        .iter()
                        .zip(&b.materials)
                        .all(|(a, b)| a.second_draw == b.second_draw)
            });
        if same_second_draws {
            return false;
        }
        let mut m = (**model).clone();
        m.material_sets = cpu_sets;
        *model = Arc::new(m);
        true
    }

    /// Derives material `index` of set `set` alone from the document's `file_set` (a
    /// material edit: the other entries stay as they are). False when there is no such
    /// material (then [`Asset::refresh_materials`] derives them all).
    pub fn refresh_material(&mut self, set: usize, index: usize, file_set: &MaterialSet) -> bool {
        let Content::Model { sets, .. } = &mut self.content else {
            return true;
        };
        let (Some(file), Some(slot)) = (
            file_set.materials.get(index),
            sets.get_mut(set).and_then(|s| s.materials.get_mut(index)),
        ) else {
            return false;
        };
        *slot = entry_of(&crate::load::cpu_material(file_set, file));
        true
    }

    /// A decoded texture of the model by asset ID (None: missing, or not a model).
    pub fn texture(&self, id: u64) -> Option<&TextureData> {
        match &self.content {
            Content::Model { model, .. } => model.textures.get(&id),
            Content::Texture { .. } => None,
        }
    }

    /// The textures of material (set, index), per slot (None: no texture or missing).
    pub fn material_textures(&self, set: usize, index: usize) -> Vec<Option<&TextureData>> {
        self.material(set, index).map_or_else(Vec::new, |m| {
            m.texture_ids
                .iter()
                .map(|id| id.and_then(|id| self.texture(id)))
                .collect()
        })
    }

    /// The material at (set, index), if it converted.
    pub fn material(&self, set: usize, index: usize) -> Option<&MaterialEntry> {
        match &self.content {
            Content::Model { sets, .. } => sets.get(set)?.materials.get(index)?.as_ref().ok(),
            Content::Texture { .. } => None,
        }
    }
}

/// The entries for `sets`: each material in GX form with its texture IDs; IDs the model
/// has no texture for add a warning.
fn material_entries(
    sets: &[CpuMaterialSet],
    textures: &std::collections::HashMap<u64, TextureData>,
    warnings: &mut Vec<String>,
) -> Vec<MaterialSetEntry> {
    sets.iter()
        .map(|set| MaterialSetEntry {
            materials: set
                .materials
                .iter()
                .map(|m| {
                    let entry = entry_of(m);
                    if let Ok(entry) = &entry {
                        for id in entry.texture_ids.iter().flatten() {
                            let w =
                                format!("texture {} not found or unreadable", texture_id_text(*id));
                            if !textures.contains_key(id) && !warnings.contains(&w) {
                                warnings.push(w);
                            }
                        }
                    }
                    entry
                })
                .collect(),
        })
        .collect()
}

/// The entry of one CPU material: its GX form (or why it has none) and texture IDs.
fn entry_of(m: &crate::model::CpuMaterial) -> Result<MaterialEntry, String> {
    m.gx.clone().map(|material| MaterialEntry {
        material,
        texture_ids: m
            .textures
            .iter()
            .map(|id| id.as_ref().ok().copied())
            .collect(),
    })
}

/// MREA areas next to `spec` (other entries of its PAK, or `.MREA` files in its folder),
/// as (label, spec) pairs: the light layers the viewer offers.
pub fn area_sources(spec: &str) -> Vec<(String, String)> {
    let Ok((path, member)) = crate::load::source::split_spec(spec) else {
        return Vec::new();
    };
    if member.is_some() {
        return source::list_pak(&path)
            .map(|rows| {
                rows.into_iter()
                    .filter(|r| r.kind.is_some_and(AssetKind::is_room))
                    .map(|r| (r.name.clone().unwrap_or_else(|| r.id.clone()), r.spec))
                    .collect()
            })
            .unwrap_or_default();
    }
    let Some(dir) = path.parent() else {
        return Vec::new();
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| AssetKind::from_path(p).is_some_and(AssetKind::is_room))
                .map(|p| {
                    let name = p
                        .file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                    (name, p.display().to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// An asset ID as the files name it: 8 hex digits (MP1/MP2), 16 for a 64-bit MP3 ID.
pub fn texture_id_text(id: u64) -> String {
    crate::formats::asset_id_string(id, id > u64::from(u32::MAX))
}

/// The folder an opened resource sits in (where "next to the file" is); for a file built
/// into the program, which has none, the home folder.
fn folder_of(resource: &Resource) -> PathBuf {
    if crate::load::builtin::is_read_only(&resource.path) {
        return dirs::home_dir().unwrap_or_else(|| PathBuf::from("."));
    }
    resource
        .path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// The file name without the folders and, when it names a type, its extension
/// (`file.pak_0x1A2B3C4D` for a PAK member).
fn screenshot_stem(resource: &Resource) -> String {
    let base = resource
        .label
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or("tevscope")
        .replace(':', "_");
    match base.rsplit_once('.') {
        Some((stem, ext)) if AssetKind::from_code(ext).is_some_and(|k| k.opens()) => {
            stem.to_string()
        }
        _ => base,
    }
}

/// Finds and decodes TXTR `id` through the resolver.
pub fn load_texture(resolver: &dyn Resolver, id: u64) -> anyhow::Result<TextureData> {
    let resource = resolver
        .find(id, Some(*b"TXTR"))?
        .ok_or_else(|| anyhow!("not found in {}", resolver.describe()))?;
    let txtr = Txtr::parse(&resource.bytes, &resource.label)?;
    let (data, _) = texture_data(&txtr)?;
    Ok(data)
}

/// Decodes every complete mip of a TXTR into upload form; a cut-short later mip is a
/// warning (the levels before it are kept).
pub fn texture_data(txtr: &Txtr) -> anyhow::Result<(TextureData, Option<String>)> {
    crate::load::decode_texture(txtr).context("decoding the base level")
}

/// The material that shows texture map 0 as sampled ([`Material::texture_passthrough`]).
pub fn texture_preview_material() -> Material {
    Material::texture_passthrough()
}

/// Texel of `texture` at `uv` with nearest sampling and REPEAT wrapping (what the preview
/// quad's sampler does), for the pixel inspector.
pub fn sample_nearest_repeat(texture: &TextureData, uv: [f32; 2]) -> [u8; 4] {
    let w = texture.width.max(1);
    let h = texture.height.max(1);
    let wrap = |c: f32, n: u32| -> u32 {
        let t = (c * n as f32).floor() as i64;
        t.rem_euclid(i64::from(n)) as u32
    };
    if !uv[0].is_finite() || !uv[1].is_finite() {
        return [0; 4];
    }
    texture.texel(wrap(uv[0], w), wrap(uv[1], h))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn nearest_repeat_wraps_both_ways() {
        let t = TextureData {
            width: 2,
            height: 1,
            levels: vec![vec![1, 1, 1, 1, 2, 2, 2, 2]],
        };
        assert_eq!(sample_nearest_repeat(&t, [0.25, 0.5]), [1; 4]);
        assert_eq!(sample_nearest_repeat(&t, [0.75, 0.5]), [2; 4]);
        assert_eq!(sample_nearest_repeat(&t, [-0.25, 0.5]), [2; 4]);
        assert_eq!(sample_nearest_repeat(&t, [1.25, 3.5]), [1; 4]);
        assert_eq!(sample_nearest_repeat(&t, [f32::NAN, 0.0]), [0; 4]);
    }

    #[test]
    fn opening_a_missing_file_is_an_error_not_a_panic() {
        let e = Asset::open("/nonexistent/x.CMDL").unwrap_err();
        assert!(format!("{e:#}").contains("x.CMDL"), "{e:#}");
    }

    #[test]
    fn garbage_cmdl_reports_the_file() {
        let dir = std::env::temp_dir().join(format!("tevscope-ui-doc-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.CMDL");
        std::fs::write(&path, [0xDE, 0xAD, 0xBE, 0xEF, 0, 0]).unwrap();
        let e = Asset::open(path.to_str().unwrap()).unwrap_err();
        assert!(format!("{e:#}").contains("bad.CMDL"), "{e:#}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn opens_the_tev_cases_model_with_textures() {
        let Some(dir) = crate::testing::conformance_dir() else {
            return;
        };
        let path = dir.join("0x7EC00000.CMDL");
        let doc = Asset::open(path.to_str().unwrap()).unwrap();
        let Content::Model { sets, .. } = &doc.content else {
            panic!("not a model");
        };
        assert_eq!(sets[0].materials.len(), 48);
        let textured = sets[0]
            .materials
            .iter()
            .enumerate()
            .filter(|(i, _)| doc.material_textures(0, *i).iter().any(Option::is_some))
            .count();
        assert!(textured > 0, "no material found its textures");
        assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    }

    /// An area opens as a model: its world geometry, materials and textures.
    #[test]
    fn opens_an_area_as_a_model() {
        let Some(dir) = crate::testing::conformance_dir() else {
            return;
        };
        let path = dir.join("areas").join("mp1_area.MREA");
        let doc = Asset::open(path.to_str().unwrap()).unwrap();
        let Content::Model {
            sets,
            surface_count,
            triangle_count,
            model,
            ..
        } = &doc.content
        else {
            panic!("not a model");
        };
        assert_eq!((*surface_count, *triangle_count), (4, 22));
        assert_eq!(sets.len(), model.material_sets.len());
        assert!(sets[0].materials.iter().all(|m| m.is_ok()));
        assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    }

    /// The viewer's References section: an explicit texture folder and skin are used and
    /// listed among the files used.
    #[test]
    fn explicit_references_are_used_and_listed() {
        let Some(dir) = crate::testing::conformance_dir() else {
            return;
        };
        let pak = dir.join("mp1_fixtures.pak").display().to_string();
        let references = References {
            texture_dir: dir.display().to_string(),
            skin: format!("{pak}:0xC2000001"),
            ..References::default()
        };
        let doc =
            crate::session::Session::open(&format!("{pak}:fixture_cube"), &references).unwrap();
        let doc = doc.asset().unwrap();
        let sources = doc.sources.join("\n");
        assert!(
            sources.contains("0xC2000001.CSKR (chosen explicitly)"),
            "{sources}"
        );
        assert!(sources.contains("skeleton 0xC1000001.CINF"), "{sources}");
        let plain = Asset::open(&format!("{pak}:fixture_cube")).unwrap();
        assert!(!plain.sources.join("\n").contains("chosen explicitly"));
    }

    #[test]
    fn preview_material_passes_the_texture_through() {
        use crate::gx::tev::{PixelInputs, TevOptions, TevProgram, evaluate};
        let m = texture_preview_material();
        let p = TevProgram::from_material(&m, &TevOptions::default());
        let inputs = PixelInputs::sampled(&p, [[0; 4]; 2], |_, _| [10, 20, 30, 40]);
        assert_eq!(evaluate(&p, &inputs).rgba, [10, 20, 30, 40]);
    }
}
