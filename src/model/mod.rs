//! The CPU model: one plain description of an opened model (a CMDL, a character or an
//! area's world geometry), built by `load` and turned into GPU objects by `render`.
//!
//! It holds what drawing needs and nothing of the file's layout: vertex arrays with every
//! attribute resolved, surfaces as index lists into them, each material set's materials
//! converted to [`gx::types::Material`] once (the viewer edits these), decoded textures by
//! asset ID, and the skin (bone weights per vertex), skeleton and clips. Like Rerun's
//! `CpuMesh` → `GpuMesh`, the renderer never reads a file format.

use std::collections::HashMap;
use std::ops::Range;

use crate::anim::{Clip, Skeleton, VertexInfluence};
use crate::geom::Aabb;
use crate::gx;

pub mod texture;

pub use texture::{TextureData, TextureError};

/// A model ready to hand to the renderer; see the module docs.
#[derive(Debug, Clone)]
pub struct CpuModel {
    pub mesh: CpuMesh,
    /// In file order (the order opaque surfaces draw in).
    pub surfaces: Vec<CpuSurface>,
    pub material_sets: Vec<CpuMaterialSet>,
    /// Decoded textures by asset ID; IDs the materials name but this map lacks draw with
    /// a white placeholder.
    pub textures: HashMap<u64, TextureData>,
    /// Skeleton, weights and animations; None draws unskinned.
    pub skin: Option<CpuSkin>,
    /// The bind pose's bounds (what the camera frames).
    pub aabb: Aabb,
    /// Problems found while building it (surfaces cut short, skin oddities).
    pub warnings: Vec<String>,
}

/// Per-vertex arrays of all surfaces, each surface owning a consecutive range. Attributes a
/// vertex lacks hold GX's defaults for the shader: normal +Z, white colours, UV (0, 0).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CpuMesh {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub colors: [Vec<[u8; 4]>; 2],
    /// Texture coordinates 0–7 of each vertex.
    pub tex: Vec<[[f32; 2]; 8]>,
}

impl CpuMesh {
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }
}

/// One surface: its material and its primitives as indices into its vertex range.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuSurface {
    /// Index into each material set's materials.
    pub material: usize,
    /// Its vertices in [`CpuModel::mesh`].
    pub vertices: Range<u32>,
    /// Triangles, indices relative to `vertices.start`.
    pub triangles: Vec<[u32; 3]>,
    /// GX lines and line strips as segments, relative to `vertices.start`.
    pub lines: Vec<[u32; 2]>,
    /// GX points, relative to `vertices.start` (exported; the renderer does not draw them).
    pub points: Vec<u32>,
    /// What its vertices carry; the rest of [`CpuMesh`] holds defaults for them.
    pub attributes: VertexAttributes,
    /// Centre of its bounds (model space), for sorting transparent surfaces.
    pub center: [f32; 3],
}

/// The attributes every vertex of a surface has in its file (exporters leave the others out
/// rather than write the shader's defaults as data).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VertexAttributes {
    pub normals: bool,
    pub colors: [bool; 2],
    /// Texture coordinate sets 0..n (the first set some vertex lacks ends the count).
    pub uv_sets: u8,
}

/// One material set.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuMaterialSet {
    pub materials: Vec<CpuMaterial>,
}

/// One material of a set.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuMaterial {
    /// The material as GX draws it, or why it could not be read (its surfaces are not drawn).
    pub gx: Result<gx::types::Material, String>,
    /// The texture asset ID of each slot (GX map k), or why the slot has none.
    pub textures: Vec<Result<u64, String>>,
}

/// A skeleton, the bone weights of every mesh vertex, and the animations.
#[derive(Debug, Clone)]
pub struct CpuSkin {
    pub skeleton: Skeleton,
    /// One per vertex of [`CpuModel::mesh`]; unused slots weigh 0.
    pub influences: Vec<VertexInfluence>,
    /// Named clips (ANCS animation names, or file names).
    pub clips: Vec<(String, Clip)>,
}

impl CpuModel {
    pub fn triangle_count(&self) -> usize {
        self.surfaces.iter().map(|s| s.triangles.len()).sum()
    }

    /// The GX form of material `index` of set `set`, when it could be read.
    pub fn material(&self, set: usize, index: usize) -> Option<&gx::types::Material> {
        self.material_sets
            .get(set)?
            .materials
            .get(index)?
            .gx
            .as_ref()
            .ok()
    }

    pub fn material_mut(&mut self, set: usize, index: usize) -> Option<&mut gx::types::Material> {
        self.material_sets
            .get_mut(set)?
            .materials
            .get_mut(index)?
            .gx
            .as_mut()
            .ok()
    }

    /// Names of the animations (empty without a skin).
    pub fn animation_names(&self) -> Vec<&str> {
        self.skin
            .as_ref()
            .map(|s| s.clips.iter().map(|(n, _)| n.as_str()).collect())
            .unwrap_or_default()
    }
}
