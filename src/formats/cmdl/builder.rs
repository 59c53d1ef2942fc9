//! Building new CMDL models from scratch (demo content, tests, converters).
//!
//! ```
//! use tevscope::formats::cmdl::{CmdlBuilder, MeshVertex};
//! use tevscope::formats::material::MaterialBuilder;
//! use tevscope::formats::Game;
//!
//! let mut b = CmdlBuilder::new(Game::Mp1);
//! let tex = b.add_texture(0x7EC0_0001);
//! let mat = b.add_material(MaterialBuilder::textured_lit(tex).build());
//! let quad = [[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]].map(|[x, y]| {
//!     MeshVertex::new([x, y, 0.0])
//!         .normal([0.0, 0.0, 1.0])
//!         .uv(0, [(x + 1.0) / 2.0, (y + 1.0) / 2.0])
//! });
//! b.add_mesh(mat, &quad, &[[0, 1, 2], [0, 2, 3]]).unwrap();
//! let model = b.build().unwrap();
//! assert_eq!(model.surfaces[0].mesh.triangles.len(), 2);
//! let bytes = model.to_bytes(); // a CMDL file
//! # assert_eq!(&bytes[..4], &[0xDE, 0xAD, 0xBA, 0xBE]);
//! ```

use std::collections::HashMap;

use super::display_list::{self, PrimitiveKind, SurfaceMesh, UvSource, VertexLayout, VertexRef};
use super::{Aabb, AttributeArray, Cmdl, CmdlOptions, Normals, Surface};
use crate::formats::material::{
    AttrFormat, Material, MaterialOptions, MaterialSet, VertexAttributes,
};
use crate::formats::reader::Writer;
use crate::formats::{FormatError, Game};
use crate::gx;

/// Why a model could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BuildError {
    #[error("{0}")]
    Invalid(String),
    /// The built bytes did not parse back (a bug in the builder, reported rather than hidden).
    #[error("built model does not parse: {0}")]
    Reparse(#[from] FormatError),
}

fn invalid(msg: impl Into<String>) -> BuildError {
    BuildError::Invalid(msg.into())
}

/// A vertex given by value; [`CmdlBuilder::add_mesh`] stores its attributes in the arrays.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MeshVertex {
    pub position: [f32; 3],
    pub normal: Option<[f32; 3]>,
    pub color: Option<[u8; 4]>,
    /// TEX0 … TEX6. TEX0 goes to the short-UV array when the material has the short-UV flag.
    pub uvs: [Option<[f32; 2]>; 7],
}

impl MeshVertex {
    pub fn new(position: [f32; 3]) -> Self {
        Self {
            position,
            ..Self::default()
        }
    }
    pub fn normal(mut self, n: [f32; 3]) -> Self {
        self.normal = Some(n);
        self
    }
    pub fn color(mut self, rgba: [u8; 4]) -> Self {
        self.color = Some(rgba);
        self
    }
    /// Sets TEX`t` (0–6).
    pub fn uv(mut self, t: usize, uv: [f32; 2]) -> Self {
        if let Some(slot) = self.uvs.get_mut(t) {
            *slot = Some(uv);
        }
        self
    }
}

/// A surface given as vertex references and index lists (the shape [`SurfaceMesh`] decodes to).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SurfaceDesc {
    pub material_index: u32,
    pub vertices: Vec<VertexRef>,
    /// Encoded as GX triangle lists (0x90), vertices in the given order.
    pub triangles: Vec<[u32; 3]>,
    /// Encoded as GX lines (0xA8).
    pub lines: Vec<[u32; 2]>,
    /// Encoded as GX points (0xB8).
    pub points: Vec<u32>,
    /// Further primitives (strips, fans, quads, …) encoded as given, after the lists above.
    pub primitives: Vec<(PrimitiveKind, Vec<u32>)>,
}

/// Accumulates arrays, materials and surfaces, then lays out a valid CMDL.
#[derive(Debug, Clone)]
pub struct CmdlBuilder {
    pub game: Game,
    /// Header flag bits to set besides 0x2/0x4 (which follow the data), e.g. 0x1.
    pub flags: u32,
    /// Material set 0's texture list.
    pub texture_ids: Vec<u32>,
    /// Further material sets: the same materials with these texture lists (alternate skins).
    pub alternate_texture_sets: Vec<Vec<u32>>,
    pub materials: Vec<Material>,
    pub positions: Vec<[f32; 3]>,
    pub normals: Vec<[f32; 3]>,
    /// Store normals as s16 × 16384 (header flag 0x2).
    pub short_normals: bool,
    pub colors: Vec<[u8; 4]>,
    pub uvs: Vec<[f32; 2]>,
    /// Short UVs (stored as u16 × 32768, so 0 ≤ value < 2); Some adds the section (flag 0x4).
    pub short_uvs: Option<Vec<[f32; 2]>>,
    pub surfaces: Vec<SurfaceDesc>,
    /// Write each surface's AABB as its extra data (as world geometry does); off by default,
    /// like Retro's CMDLs.
    pub surface_aabbs: bool,
    dedup_pos: HashMap<[u32; 3], u16>,
    dedup_nrm: HashMap<[u32; 3], u16>,
    dedup_clr: HashMap<[u8; 4], u16>,
    dedup_uv: HashMap<[u32; 2], u16>,
    dedup_suv: HashMap<[u32; 2], u16>,
}

fn push_index<T: Copy>(list: &mut Vec<T>, v: T, what: &str) -> Result<u16, BuildError> {
    if list.len() > u16::MAX as usize {
        return Err(invalid(format!(
            "more than 65536 {what}: display lists use 16-bit indices"
        )));
    }
    list.push(v);
    Ok((list.len() - 1) as u16)
}

impl CmdlBuilder {
    pub fn new(game: Game) -> Self {
        Self {
            game,
            flags: 0,
            texture_ids: Vec::new(),
            alternate_texture_sets: Vec::new(),
            materials: Vec::new(),
            positions: Vec::new(),
            normals: Vec::new(),
            short_normals: false,
            colors: Vec::new(),
            uvs: Vec::new(),
            short_uvs: None,
            surfaces: Vec::new(),
            surface_aabbs: false,
            dedup_pos: HashMap::new(),
            dedup_nrm: HashMap::new(),
            dedup_clr: HashMap::new(),
            dedup_uv: HashMap::new(),
            dedup_suv: HashMap::new(),
        }
    }

    /// Adds a TXTR ID to set 0's texture list (or finds it); returns its index.
    pub fn add_texture(&mut self, id: u32) -> u32 {
        if let Some(i) = self.texture_ids.iter().position(|&t| t == id) {
            return i as u32;
        }
        self.texture_ids.push(id);
        (self.texture_ids.len() - 1) as u32
    }

    /// Adds a material; returns its index. A vertex attribute word of 0 is filled from the
    /// surfaces that use it.
    pub fn add_material(&mut self, m: Material) -> u32 {
        self.materials.push(m);
        (self.materials.len() - 1) as u32
    }

    /// Adds a gx-level material whose map k is the TXTR `texture_ids[k]`.
    pub fn add_gx_material(&mut self, m: &gx::Material, texture_ids: &[u32]) -> u32 {
        let indices = texture_ids.iter().map(|&id| self.add_texture(id)).collect();
        self.add_material(Material::from_gx(m, indices, VertexAttributes(0)))
    }

    pub fn add_position(&mut self, p: [f32; 3]) -> Result<u16, BuildError> {
        push_index(&mut self.positions, p, "positions")
    }
    pub fn add_normal(&mut self, n: [f32; 3]) -> Result<u16, BuildError> {
        push_index(&mut self.normals, n, "normals")
    }
    pub fn add_color(&mut self, c: [u8; 4]) -> Result<u16, BuildError> {
        push_index(&mut self.colors, c, "colours")
    }
    pub fn add_uv(&mut self, uv: [f32; 2]) -> Result<u16, BuildError> {
        push_index(&mut self.uvs, uv, "UVs")
    }
    pub fn add_short_uv(&mut self, uv: [f32; 2]) -> Result<u16, BuildError> {
        push_index(self.short_uvs.get_or_insert_with(Vec::new), uv, "short UVs")
    }

    pub fn add_surface(&mut self, s: SurfaceDesc) -> usize {
        self.surfaces.push(s);
        self.surfaces.len() - 1
    }

    /// Adds a surface from vertices given by value and a triangle list; equal attribute values
    /// share one array element. Returns the surface index.
    pub fn add_mesh(
        &mut self,
        material_index: u32,
        vertices: &[MeshVertex],
        triangles: &[[u32; 3]],
    ) -> Result<usize, BuildError> {
        let short_tex0 = self
            .materials
            .get(material_index as usize)
            .ok_or_else(|| invalid(format!("material {material_index} does not exist")))?
            .uses_short_uvs(&MaterialOptions::default());
        let mut refs = Vec::with_capacity(vertices.len());
        for v in vertices {
            let mut r = VertexRef::position(dedup(
                &mut self.dedup_pos,
                &mut self.positions,
                v.position,
                v.position.map(f32::to_bits),
                "positions",
            )?);
            if let Some(n) = v.normal {
                r.normal = Some(dedup(
                    &mut self.dedup_nrm,
                    &mut self.normals,
                    n,
                    n.map(f32::to_bits),
                    "normals",
                )?);
            }
            if let Some(c) = v.color {
                r.colors[0] = Some(dedup(
                    &mut self.dedup_clr,
                    &mut self.colors,
                    c,
                    c,
                    "colours",
                )?);
            }
            for (t, uv) in v.uvs.iter().enumerate() {
                let Some(uv) = *uv else { continue };
                let key = uv.map(f32::to_bits);
                r.tex[t] = Some(if t == 0 && short_tex0 {
                    let list = self.short_uvs.get_or_insert_with(Vec::new);
                    dedup(&mut self.dedup_suv, list, uv, key, "short UVs")?
                } else {
                    dedup(&mut self.dedup_uv, &mut self.uvs, uv, key, "UVs")?
                });
            }
            refs.push(r);
        }
        if let Some(t) = triangles
            .iter()
            .flatten()
            .find(|&&i| i as usize >= refs.len())
        {
            return Err(invalid(format!(
                "triangle index {t} is outside the {} vertices",
                refs.len()
            )));
        }
        Ok(self.add_surface(SurfaceDesc {
            material_index,
            vertices: refs,
            triangles: triangles.to_vec(),
            ..SurfaceDesc::default()
        }))
    }

    /// Lays the model out and parses it back (so the result carries decoded meshes and is
    /// guaranteed to be a file tevscope reads without warnings about its structure).
    pub fn build(&self) -> Result<Cmdl, BuildError> {
        let bytes = self.build_bytes()?;
        Ok(Cmdl::parse(&bytes, "<built CMDL>")?)
    }

    /// The model as CMDL bytes.
    pub fn build_bytes(&self) -> Result<Vec<u8>, BuildError> {
        Ok(self.assemble()?.to_bytes())
    }

    fn vertex_attributes_of(v: &VertexRef) -> VertexAttributes {
        let mut va = VertexAttributes(0).with(VertexAttributes::POSITION, AttrFormat::Index16);
        let mut set = |attr: usize, on: bool| {
            if on {
                va = va.with(attr, AttrFormat::Index16);
            }
        };
        set(VertexAttributes::NORMAL, v.normal.is_some());
        set(VertexAttributes::COLOR0, v.colors[0].is_some());
        set(VertexAttributes::COLOR1, v.colors[1].is_some());
        for t in 0..8 {
            set(VertexAttributes::TEX0 + t, v.tex[t].is_some());
        }
        for (i, m) in v.matrix_indices.iter().enumerate() {
            va = va.with_matrix_index(i, m.is_some());
        }
        va
    }

    fn assemble(&self) -> Result<Cmdl, BuildError> {
        let game = self.game;
        if !self.surfaces.is_empty() && self.materials.is_empty() {
            return Err(invalid("surfaces need at least one material"));
        }
        // Vertex layouts: every vertex of every surface using a material must carry the same
        // attributes; the material's word is derived from them.
        let mut materials = self.materials.clone();
        let mut derived: Vec<Option<VertexAttributes>> = vec![None; materials.len()];
        for (j, s) in self.surfaces.iter().enumerate() {
            let m = s.material_index as usize;
            if m >= materials.len() {
                return Err(invalid(format!(
                    "surface {j} uses material {m}, but there are {}",
                    materials.len()
                )));
            }
            for (i, v) in s.vertices.iter().enumerate() {
                let va = Self::vertex_attributes_of(v);
                match derived[m] {
                    None => derived[m] = Some(va),
                    Some(d) if d != va => {
                        return Err(invalid(format!(
                            "surface {j} vertex {i} carries attributes {:#010x}, but other vertices of material {m} carry {:#010x}",
                            va.0, d.0
                        )));
                    }
                    _ => {}
                }
                if game == Game::Mp1 && va.matrix_index_mask() != 0 {
                    return Err(invalid(format!(
                        "surface {j} vertex {i} has matrix-index bytes, which MP1 never sends"
                    )));
                }
                if v.tex[7].is_some() {
                    return Err(invalid(format!(
                        "surface {j} vertex {i} uses TEX7, which the game does not enable"
                    )));
                }
            }
        }
        for (m, (mat, d)) in materials.iter_mut().zip(&derived).enumerate() {
            if let Some(d) = *d {
                if mat.vertex_attributes.0 != 0 && mat.vertex_attributes != d {
                    return Err(invalid(format!(
                        "material {m} declares vertex attributes {:#010x}, but its surfaces carry {:#010x}",
                        mat.vertex_attributes.0, d.0
                    )));
                }
                mat.vertex_attributes = d;
            }
            mat.mp2_unknown = match game {
                Game::Mp1 => None,
                _ => Some(mat.mp2_unknown.unwrap_or([0, 0])),
            };
            mat.refresh_uv_block();
        }
        // Arrays.
        let short_uvs = match &self.short_uvs {
            Some(list) => Some(
                list.iter()
                    .enumerate()
                    .map(|(i, uv)| {
                        let enc = |c: f32| {
                            let v = (c * 32768.0).round();
                            (0.0..=65535.0)
                                .contains(&v)
                                .then_some(v as u16)
                                .ok_or_else(|| {
                                    invalid(format!(
                                        "short UV {i} component {c} is outside 0..2 (u16 / 32768)"
                                    ))
                                })
                        };
                        Ok([enc(uv[0])?, enc(uv[1])?])
                    })
                    .collect::<Result<Vec<_>, BuildError>>()?,
            ),
            None => None,
        };
        let counts = display_list::ArrayCounts {
            positions: self.positions.len(),
            normals: self.normals.len(),
            colors: self.colors.len(),
            uvs: self.uvs.len(),
            short_uvs: short_uvs.as_ref().map_or(0, Vec::len),
        };
        // Surfaces.
        let mut surfaces = Vec::with_capacity(self.surfaces.len());
        for (j, s) in self.surfaces.iter().enumerate() {
            let mat = &materials[s.material_index as usize];
            let va = mat.vertex_attributes;
            let tex0_short = short_uvs.is_some() && mat.uses_short_uvs(&MaterialOptions::default());
            for (i, v) in s.vertices.iter().enumerate() {
                let check = |what: &str, value: Option<u16>, limit: usize| match value {
                    Some(x) if x as usize >= limit => Err(invalid(format!(
                        "surface {j} vertex {i}: {what} index {x} is outside the {limit} elements"
                    ))),
                    _ => Ok(()),
                };
                check("position", Some(v.position), counts.positions)?;
                check("normal", v.normal, counts.normals)?;
                check("colour 0", v.colors[0], counts.colors)?;
                check("colour 1", v.colors[1], counts.colors)?;
                let t0 = if tex0_short {
                    counts.short_uvs
                } else {
                    counts.uvs
                };
                check("TEX0", v.tex[0], t0)?;
                for t in 1..8 {
                    check("TEX", v.tex[t], counts.uvs)?;
                }
            }
            let get = |i: u32| {
                s.vertices.get(i as usize).copied().ok_or_else(|| {
                    invalid(format!(
                        "surface {j}: vertex index {i} is outside its {} vertices",
                        s.vertices.len()
                    ))
                })
            };
            let vat = if tex0_short {
                2
            } else if self.short_normals {
                1
            } else {
                0
            };
            let mut dl = Writer::new();
            let mut emit = |kind: PrimitiveKind, idx: &mut dyn Iterator<Item = u32>| {
                let verts = idx.map(get).collect::<Result<Vec<_>, _>>()?;
                display_list::encode_primitive(&mut dl, kind, vat, &verts, va);
                Ok::<(), BuildError>(())
            };
            emit(
                PrimitiveKind::Triangles,
                &mut s.triangles.iter().flatten().copied(),
            )?;
            emit(PrimitiveKind::Lines, &mut s.lines.iter().flatten().copied())?;
            emit(PrimitiveKind::Points, &mut s.points.iter().copied())?;
            for (kind, idx) in &s.primitives {
                emit(*kind, &mut idx.iter().copied())?;
            }
            dl.pad_to(32, 0);
            // Centre and box from the referenced positions; reflection normal from the
            // area-weighted face normals.
            let pos = |i: u32| self.positions[s.vertices[i as usize].position as usize];
            let bbox = Aabb::from_points(
                s.vertices
                    .iter()
                    .map(|v| self.positions[v.position as usize]),
            )
            .unwrap_or_default();
            let mut nsum = [0.0f32; 3];
            for t in &s.triangles {
                let [a, b, c] = t.map(pos);
                let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
                let w = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
                nsum[0] += u[1] * w[2] - u[2] * w[1];
                nsum[1] += u[2] * w[0] - u[0] * w[2];
                nsum[2] += u[0] * w[1] - u[1] * w[0];
            }
            let len = (nsum[0] * nsum[0] + nsum[1] * nsum[1] + nsum[2] * nsum[2]).sqrt();
            let normal = if len > 0.0 {
                nsum.map(|c| c / len)
            } else {
                [0.0, 0.0, 1.0]
            };
            let mut extra = Writer::new();
            if self.surface_aabbs {
                bbox.write(&mut extra);
            }
            surfaces.push(Surface {
                center: bbox.center(),
                material_index: s.material_index,
                display_list_word: 0x8000_0000,
                runtime_pointers: [0, 0],
                normal,
                mp2_unknown: (game != Game::Mp1).then_some([0, 0]),
                extra_data: extra.into_inner(),
                header_padding: Vec::new(),
                display_list: dl.into_inner(),
                tail: Vec::new(),
                mesh: SurfaceMesh::empty(VertexLayout {
                    attributes: va,
                    tex0_source: if tex0_short {
                        UvSource::Short
                    } else {
                        UvSource::Float
                    },
                }),
                array_base: Default::default(),
            });
        }
        // Material sets.
        let mut material_sets = vec![MaterialSet {
            game,
            texture_ids: self.texture_ids.clone(),
            materials: materials.clone(),
            padding: Vec::new(),
        }];
        for (k, ids) in self.alternate_texture_sets.iter().enumerate() {
            if ids.len() != self.texture_ids.len() {
                return Err(invalid(format!(
                    "alternate texture set {k} has {} textures, set 0 has {}",
                    ids.len(),
                    self.texture_ids.len()
                )));
            }
            material_sets.push(MaterialSet {
                game,
                texture_ids: ids.clone(),
                materials: materials.clone(),
                padding: Vec::new(),
            });
        }
        for (m, mat) in materials.iter().enumerate() {
            if let Some(p) = mat
                .problems(game, Some(self.texture_ids.len()))
                .into_iter()
                .find(|p| p.is_error)
            {
                return Err(invalid(format!("material {m}: {p}")));
            }
        }
        let referenced = self.surfaces.iter().flat_map(|s| {
            s.vertices
                .iter()
                .map(|v| self.positions[v.position as usize])
        });
        let aabb = Aabb::from_points(referenced)
            .or_else(|| Aabb::from_points(self.positions.iter().copied()))
            .unwrap_or_default();
        let normals = if self.short_normals {
            Normals::Short(AttributeArray {
                values: self
                    .normals
                    .iter()
                    .map(|n| n.map(|c| (c * 16384.0).round().clamp(-32768.0, 32767.0) as i16))
                    .collect(),
                remainder: Vec::new(),
            })
        } else {
            Normals::Float(AttributeArray {
                values: self.normals.clone(),
                remainder: Vec::new(),
            })
        };
        let array = |v: Vec<_>| AttributeArray {
            values: v,
            remainder: Vec::new(),
        };
        let mut cmdl = Cmdl {
            version: if game == Game::Mp1 { 2 } else { 4 },
            flags: self.flags,
            aabb,
            header_padding: Vec::new(),
            material_sets,
            mp3_materials: None,
            positions: AttributeArray {
                values: self.positions.clone(),
                remainder: Vec::new(),
            },
            normals,
            colors: array(self.colors.clone()),
            uvs: AttributeArray {
                values: self.uvs.clone(),
                remainder: Vec::new(),
            },
            short_uvs: short_uvs.map(|v| AttributeArray {
                values: v,
                remainder: Vec::new(),
            }),
            surface_end_offsets: Vec::new(),
            surface_table_padding: Vec::new(),
            surfaces,
            extra_sections: Vec::new(),
            trailing: Vec::new(),
            options: CmdlOptions::default(),
            warnings: Vec::new(),
        };
        cmdl.refresh_layout();
        Ok(cmdl)
    }
}

fn dedup<T: Copy, K: std::hash::Hash + Eq>(
    map: &mut HashMap<K, u16>,
    list: &mut Vec<T>,
    value: T,
    key: K,
    what: &str,
) -> Result<u16, BuildError> {
    if let Some(&i) = map.get(&key) {
        return Ok(i);
    }
    let i = push_index(list, value, what)?;
    map.insert(key, i);
    Ok(i)
}
