//! Generated shapes for the material preview (`render --preview sphere|cube|plane|torus`):
//! one material drawn on a plain [`CpuModel`] with normals and UVs, so the renderer draws it
//! like any opened model (lit by the scene's lights, seen by its camera).
//!
//! Every shape is centred on the origin within −1…1 (Prime is Z-up). All eight texture
//! coordinate sets carry the same UV, so whichever set a texgen reads maps the texture
//! once over the shape; vertex colours are white (GX's default for absent colours).

use std::collections::HashMap;

use super::{
    CpuMaterial, CpuMaterialSet, CpuMesh, CpuModel, CpuSurface, TextureData, VertexAttributes,
};
use crate::geom::Aabb;

/// A shape [`preview_model`] generates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PreviewShape {
    /// UV sphere of radius 1: u around Z (0 at +Y, the model front the default camera
    /// sees, growing to the viewer's right), v from the top pole (0) to the bottom (1).
    Sphere,
    /// Cube of side 2, each face mapping the whole texture (row 0 at the top).
    Cube,
    /// A 2 × 2 square in the XZ plane facing +Y (the model front the default camera sees).
    Plane,
    /// Torus around Z (major radius 0.7, minor 0.3): u around Z, v around the tube.
    Torus,
}

impl PreviewShape {
    pub const ALL: [Self; 4] = [Self::Sphere, Self::Cube, Self::Plane, Self::Torus];

    pub fn name(self) -> &'static str {
        match self {
            Self::Sphere => "sphere",
            Self::Cube => "cube",
            Self::Plane => "plane",
            Self::Torus => "torus",
        }
    }
}

/// Vertices and triangles of a shape (counter-clockwise seen from outside).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShapeMesh {
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    pub uvs: Vec<[f32; 2]>,
    pub triangles: Vec<[u32; 3]>,
}

impl ShapeMesh {
    fn push(&mut self, p: [f32; 3], n: [f32; 3], uv: [f32; 2]) {
        self.positions.push(p);
        self.normals.push(n);
        self.uvs.push(uv);
    }

    /// Triangles of a `cols` × `rows` grid of quads whose (cols + 1) × (rows + 1)
    /// vertices start at `base`, row-major; `flip` reverses the winding.
    fn grid(&mut self, base: u32, cols: u32, rows: u32, flip: bool) {
        for r in 0..rows {
            for c in 0..cols {
                let i = base + r * (cols + 1) + c;
                let (a, b, d, e) = (i, i + 1, i + cols + 1, i + cols + 2);
                if flip {
                    self.triangles.push([a, b, d]);
                    self.triangles.push([b, e, d]);
                } else {
                    self.triangles.push([a, d, b]);
                    self.triangles.push([b, d, e]);
                }
            }
        }
    }
}

/// The mesh of `shape`.
pub fn shape_mesh(shape: PreviewShape) -> ShapeMesh {
    use std::f32::consts::{PI, TAU};
    let mut m = ShapeMesh::default();
    match shape {
        PreviewShape::Sphere => {
            let (cols, rows) = (64u32, 32u32);
            for r in 0..=rows {
                let v = r as f32 / rows as f32;
                let theta = v * PI;
                for c in 0..=cols {
                    let u = c as f32 / cols as f32;
                    let phi = u * TAU;
                    let n = [
                        -theta.sin() * phi.sin(),
                        theta.sin() * phi.cos(),
                        theta.cos(),
                    ];
                    m.push(n, n, [u, v]);
                }
            }
            m.grid(0, cols, rows, false);
        }
        PreviewShape::Torus => {
            let (cols, rows) = (64u32, 24u32);
            let (big, small) = (0.7f32, 0.3f32);
            for r in 0..=rows {
                let v = r as f32 / rows as f32;
                let psi = v * TAU;
                for c in 0..=cols {
                    let u = c as f32 / cols as f32;
                    let phi = u * TAU;
                    let (dx, dy) = (-phi.sin(), phi.cos());
                    let n = [psi.cos() * dx, psi.cos() * dy, psi.sin()];
                    let ring = big + small * psi.cos();
                    m.push([ring * dx, ring * dy, small * psi.sin()], n, [u, v]);
                }
            }
            m.grid(0, cols, rows, true);
        }
        PreviewShape::Plane => face(&mut m, [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        PreviewShape::Cube => {
            // (outward normal, right, up) of each face, seen from outside.
            let faces = [
                ([0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
                ([-1.0, 0.0, 0.0], [0.0, -1.0, 0.0], [0.0, 0.0, 1.0]),
                ([0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
                ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]),
                ([0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
                ([0.0, 0.0, -1.0], [1.0, 0.0, 0.0], [0.0, -1.0, 0.0]),
            ];
            for (n, right, up) in faces {
                face(&mut m, n, right, up);
            }
        }
    }
    // The plane is one face: drop the offset along its normal so it stands at the origin.
    if shape == PreviewShape::Plane {
        for p in &mut m.positions {
            p[1] = 0.0;
        }
    }
    m
}

/// A 2 × 2 square at distance 1 along `n`, subdivided so per-vertex lighting varies over it.
fn face(m: &mut ShapeMesh, n: [f32; 3], right: [f32; 3], up: [f32; 3]) {
    const CELLS: u32 = 8;
    let base = m.positions.len() as u32;
    for r in 0..=CELLS {
        let v = r as f32 / CELLS as f32;
        for c in 0..=CELLS {
            let u = c as f32 / CELLS as f32;
            let (x, y) = (2.0 * u - 1.0, 1.0 - 2.0 * v);
            let p = std::array::from_fn(|i| n[i] + x * right[i] + y * up[i]);
            m.push(p, n, [u, v]);
        }
    }
    m.grid(base, CELLS, CELLS, false);
}

/// A model of one surface: `shape` drawn with `material` (the only material of the only
/// set), its textures from `textures` by asset ID.
pub fn preview_model(
    shape: PreviewShape,
    material: CpuMaterial,
    textures: HashMap<u64, TextureData>,
) -> CpuModel {
    let m = shape_mesh(shape);
    let n = m.positions.len();
    let aabb = Aabb::from_points(m.positions.iter().copied()).unwrap_or(Aabb {
        min: [-1.0; 3],
        max: [1.0; 3],
    });
    CpuModel {
        mesh: CpuMesh {
            tex: m.uvs.iter().map(|&uv| [uv; 8]).collect(),
            positions: m.positions,
            normals: m.normals,
            colors: [vec![[255; 4]; n], vec![[255; 4]; n]],
        },
        surfaces: vec![CpuSurface {
            material: 0,
            vertices: 0..n as u32,
            triangles: m.triangles,
            lines: Vec::new(),
            points: Vec::new(),
            attributes: VertexAttributes {
                normals: true,
                colors: [false; 2],
                uv_sets: 8,
            },
            center: [0.0; 3],
        }],
        material_sets: vec![CpuMaterialSet {
            materials: vec![material],
        }],
        textures,
        skin: None,
        aabb,
        warnings: Vec::new(),
    }
}

impl CpuModel {
    /// Material `index` of set `set` alone on `shape` (the preview), with the textures it
    /// names; None when the model has no such material.
    pub fn material_preview(&self, shape: PreviewShape, set: usize, index: usize) -> Option<Self> {
        let material = self.material_sets.get(set)?.materials.get(index)?.clone();
        let second = material.second_draw.iter().flat_map(|m| &m.textures);
        let textures = material
            .textures
            .iter()
            .chain(second)
            .filter_map(|t| t.as_ref().ok())
            .filter_map(|id| Some((*id, self.textures.get(id)?.clone())))
            .collect();
        Some(preview_model(shape, material, textures))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_have_unit_normals_uvs_in_range_and_valid_indices() {
        for shape in PreviewShape::ALL {
            let m = shape_mesh(shape);
            let n = m.positions.len();
            assert!(
                n > 0 && m.normals.len() == n && m.uvs.len() == n,
                "{shape:?}"
            );
            assert!(!m.triangles.is_empty(), "{shape:?}");
            for t in &m.triangles {
                assert!(t.iter().all(|&i| (i as usize) < n), "{shape:?}: {t:?}");
            }
            for (k, nrm) in m.normals.iter().enumerate() {
                let len = nrm.iter().map(|x| x * x).sum::<f32>().sqrt();
                assert!((len - 1.0).abs() < 1e-4, "{shape:?} normal {k}: {nrm:?}");
            }
            for uv in &m.uvs {
                assert!(
                    uv.iter().all(|x| (0.0..=1.0).contains(x)),
                    "{shape:?}: {uv:?}"
                );
            }
            for p in &m.positions {
                assert!(p.iter().all(|x| x.abs() <= 1.0 + 1e-5), "{shape:?}: {p:?}");
            }
        }
    }

    /// Each triangle's winding agrees with its normals (counter-clockwise seen from
    /// outside), so back-face culling keeps the front.
    #[test]
    fn triangles_face_outwards() {
        for shape in PreviewShape::ALL {
            let m = shape_mesh(shape);
            let v = |i: u32| glam::Vec3::from(m.positions[i as usize]);
            let mut checked = 0;
            for t in &m.triangles {
                let cross = (v(t[1]) - v(t[0])).cross(v(t[2]) - v(t[0]));
                if cross.length() < 1e-6 {
                    continue; // degenerate at a pole
                }
                let normal: glam::Vec3 = t
                    .iter()
                    .map(|&i| glam::Vec3::from(m.normals[i as usize]))
                    .sum();
                assert!(cross.dot(normal) > 0.0, "{shape:?}: {t:?}");
                checked += 1;
            }
            assert!(checked > 10, "{shape:?}");
        }
    }
}
