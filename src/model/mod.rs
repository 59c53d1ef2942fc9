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

use crate::anim::pose::{ClipBinding, Pose, PoseOptions};
use crate::anim::{Clip, NormalMode, Skeleton, VertexInfluence};
use crate::geom::Aabb;
use crate::gx;

pub mod overview;
pub mod shapes;
pub mod texture;

pub use texture::{TextureData, TextureError};

/// Times of a clip [`CpuModel::animated_points`] poses the mesh at (its first and last
/// frame included).
pub const FRAMING_SAMPLES: usize = 24;

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
    /// A program drawn again over the same surfaces right after this one, with its own
    /// blend (MP3's additive INCA draw, `formats.md` §13.3); None for one draw.
    pub second_draw: Option<Box<CpuMaterial>>,
}

/// A skeleton, the bone weights of every mesh vertex, and the animations.
#[derive(Debug, Clone)]
pub struct CpuSkin {
    pub skeleton: Skeleton,
    /// One per vertex of [`CpuModel::mesh`]; unused slots weigh 0.
    pub influences: Vec<VertexInfluence>,
    /// Named clips (ANCS animation names, or file names).
    pub clips: Vec<(String, Clip)>,
    /// How normals are skinned: the first weight's rotation (MP1/MP2, `formats.md` §7.5)
    /// or every weight's, blended (MP3, §13.4).
    pub normals: NormalMode,
}

impl CpuModel {
    pub fn triangle_count(&self) -> usize {
        self.surfaces.iter().map(|s| s.triangles.len()).sum()
    }

    /// Positions (model space) the mesh takes while clip `clip` plays: every vertex at the
    /// bind pose and skinned at [`FRAMING_SAMPLES`] evenly spaced times of the clip, for
    /// framing a camera on a character that moves as it animates (its file bounds hold
    /// the bind pose only). Large meshes use every n-th vertex so that about `max_points`
    /// come back. No skin, no clip or a clip that does not fit the skeleton: the bind
    /// pose alone.
    pub fn animated_points(
        &self,
        clip: Option<usize>,
        options: &PoseOptions,
        max_points: usize,
    ) -> Vec<glam::Vec3> {
        let positions = &self.mesh.positions;
        let animated = self.skin.as_ref().and_then(|skin| {
            let (_, c) = skin.clips.get(clip?)?;
            let binding = ClipBinding::new(c, &skin.skeleton).ok()?;
            Some((skin, c, binding))
        });
        let poses = if animated.is_some() {
            FRAMING_SAMPLES + 1
        } else {
            1
        };
        let step = (positions.len() * poses).div_ceil(max_points.max(1)).max(1);
        let mut points: Vec<glam::Vec3> = positions
            .iter()
            .step_by(step)
            .map(|&p| glam::Vec3::from(p))
            .collect();
        let Some((skin, c, binding)) = animated else {
            return points;
        };
        let mut pose = Pose::bind(&skin.skeleton, options);
        for k in 0..FRAMING_SAMPLES {
            let t = c.duration * k as f32 / (FRAMING_SAMPLES - 1) as f32;
            pose.sample(&skin.skeleton, c, &binding, t, options);
            let palette = pose.skin_palette(&skin.skeleton, options);
            points.extend(
                positions
                    .iter()
                    .zip(&skin.influences)
                    .step_by(step)
                    .map(|(&v, inf)| inf.skin_position(&palette, glam::Vec3::from(v))),
            );
        }
        points
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn worm() -> CpuModel {
        let pak = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak");
        let (loaded, _) = crate::load::load(&crate::load::LoadRequest::new(&format!(
            "{pak}:worm_character"
        )))
        .unwrap();
        loaded.assets.cpu_model().unwrap()
    }

    #[test]
    fn animated_points_follow_the_clip_beyond_the_bind_pose() {
        let model = worm();
        let options = PoseOptions::default();
        let n = model.mesh.positions.len();
        let bind = model.animated_points(None, &options, usize::MAX);
        let bind_array: Vec<[f32; 3]> = bind.iter().map(|p| p.to_array()).collect();
        assert_eq!(bind_array, model.mesh.positions);
        // An unknown clip is the bind pose.
        assert_eq!(model.animated_points(Some(99), &options, usize::MAX), bind);

        let moving = model.animated_points(Some(0), &options, usize::MAX);
        assert_eq!(moving.len(), n * (FRAMING_SAMPLES + 1));
        assert_eq!(moving[..n], bind[..]);
        let bounds =
            |points: &[glam::Vec3]| Aabb::from_points(points.iter().map(|p| p.to_array())).unwrap();
        let (still, posed) = (bounds(&bind), bounds(&moving));
        let grows = (0..3)
            .any(|a| posed.min[a] < still.min[a] - 1e-3 || posed.max[a] > still.max[a] + 1e-3);
        assert!(
            grows,
            "the clip never leaves the bind pose's box: {still:?} {posed:?}"
        );

        // Large meshes are sampled down to about the asked number.
        let few = model.animated_points(Some(0), &options, 200);
        assert!(few.len() <= 200 + FRAMING_SAMPLES + 1, "{}", few.len());
        assert!(few.len() >= 100, "{}", few.len());
    }
}
