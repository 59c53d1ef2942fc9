//! From parsed files to the [`CpuModel`] the renderer draws: the one place a CMDL's
//! materials become `gx` materials, its display lists vertex arrays and index lists, and a
//! CSKR bone weights per vertex.

use std::collections::HashMap;

use anyhow::{Context as _, Result};

use crate::anim::{Clip, Skeleton, SkinBinding, SkinOptions, VertexInfluence};
use crate::formats::cmdl::Cmdl;
use crate::formats::cskr::Cskr;
use crate::formats::txtr::Txtr;
use crate::geom::Aabb;
use crate::model::{
    CpuMaterial, CpuMaterialSet, CpuMesh, CpuModel, CpuSkin, CpuSurface, TextureData,
    TextureError,
};

/// A skeleton, its skin and the character's animations, as read from their files.
#[derive(Debug, Clone)]
pub struct SkinAssets {
    pub skeleton: Skeleton,
    pub cskr: Cskr,
    /// Named clips (ANCS animation names, or file names).
    pub clips: Vec<(String, Clip)>,
}

/// The parsed files of a model: what [`ModelAssets::cpu_model`] describes, and what
/// exporters and the material editor read byte-level detail from.
#[derive(Debug, Clone)]
pub struct ModelAssets {
    pub cmdl: Cmdl,
    /// Decoded textures by asset ID (see [`decode_texture`]).
    pub textures: HashMap<u64, TextureData>,
    /// Skeleton, skin and animations; None draws unskinned.
    pub skin: Option<SkinAssets>,
}

impl ModelAssets {
    pub fn new(cmdl: Cmdl) -> Self {
        Self {
            cmdl,
            textures: HashMap::new(),
            skin: None,
        }
    }

    /// The model as the renderer takes it (see [`crate::model`]). Fails only when the skin
    /// does not fit the skeleton.
    pub fn cpu_model(&self) -> Result<CpuModel> {
        let cmdl = &self.cmdl;
        let mut warnings = Vec::new();
        let material_sets = cmdl
            .material_sets
            .iter()
            .map(|set| CpuMaterialSet {
                materials: set
                    .materials
                    .iter()
                    .map(|m| CpuMaterial {
                        gx: m.to_gx().map_err(|p| p.to_string()),
                        textures: m
                            .texture_indices
                            .iter()
                            .enumerate()
                            .map(|(k, &ti)| {
                                set.texture_ids
                                    .get(ti as usize)
                                    .map(|&id| u64::from(id))
                                    .ok_or_else(|| {
                                        format!(
                                            "texture {k} indexes entry {ti} of a {}-entry list",
                                            set.texture_ids.len()
                                        )
                                    })
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect();

        let mut mesh = CpuMesh::default();
        let mut position_of_vertex: Vec<u16> = Vec::new();
        let mut surfaces = Vec::with_capacity(cmdl.surfaces.len());
        for (i, s) in cmdl.surfaces.iter().enumerate() {
            if let Some(e) = &s.mesh.error {
                warnings.push(format!(
                    "surface {i}: display list stopped early ({e}); drawing what decoded"
                ));
            }
            let first = mesh.len() as u32;
            for v in cmdl.resolved_vertices(s) {
                mesh.positions.push(v.position);
                mesh.normals.push(v.normal.unwrap_or([0.0, 0.0, 1.0]));
                for (c, out) in v.colors.iter().zip(&mut mesh.colors) {
                    out.push(c.unwrap_or([255; 4]));
                }
                mesh.tex.push(v.tex.map(|t| t.unwrap_or([0.0; 2])));
            }
            position_of_vertex.extend(s.mesh.vertices.iter().map(|v| v.position));
            surfaces.push(CpuSurface {
                material: s.material_index as usize,
                vertices: first..mesh.len() as u32,
                triangles: s.mesh.triangles.clone(),
                lines: s.mesh.lines.clone(),
                center: cmdl.surface_aabb(s).map_or(s.center, |b| b.center()),
            });
        }
        let aabb = Aabb::from_points(cmdl.positions.values.iter().copied()).unwrap_or(cmdl.aabb);
        let skin = match &self.skin {
            Some(s) => {
                let (skin, skin_warnings) = cpu_skin(cmdl, s, &position_of_vertex)?;
                warnings.extend(skin_warnings.iter().map(|w| format!("skin: {w}")));
                Some(skin)
            }
            None => None,
        };
        Ok(CpuModel {
            mesh,
            surfaces,
            material_sets,
            textures: self.textures.clone(),
            skin,
            aabb,
            warnings,
        })
    }
}

/// Bone weights per vertex from the skin's weight groups.
fn cpu_skin(
    cmdl: &Cmdl,
    assets: &SkinAssets,
    position_of_vertex: &[u16],
) -> Result<(CpuSkin, Vec<String>)> {
    // Only the positions the display lists use count: a CMDL's position section is padded
    // to 32 bytes, so its parsed length can include zero entries the skin's groups (rightly)
    // do not cover. Normals are counted the same way, as Retro's skins list them one to one
    // with positions (the GPU uses position influences).
    let used = position_of_vertex
        .iter()
        .map(|&p| usize::from(p) + 1)
        .max()
        .unwrap_or(0)
        .min(cmdl.positions.len());
    let binding = SkinBinding::new(
        &assets.cskr,
        &assets.skeleton,
        used,
        cmdl.normals.len().min(used),
        SkinOptions::default(),
    )
    .context("skin")?;
    let influences = position_of_vertex
        .iter()
        .map(|&p| {
            if usize::from(p) < binding.position_count() {
                let inf = binding.position_influence(usize::from(p));
                let n = inf.count as usize;
                let mut v = VertexInfluence {
                    bones: inf.bones,
                    weights: [0.0; 4],
                    count: inf.count,
                };
                v.weights[..n].copy_from_slice(&inf.weights[..n]);
                v
            } else {
                // A position index past the array: nothing to skin (the vertex reads
                // position 0 anyway); keep it on bone 0 with weight 1.
                VertexInfluence {
                    bones: [0; 4],
                    weights: [1.0, 0.0, 0.0, 0.0],
                    count: 1,
                }
            }
        })
        .collect();
    Ok((
        CpuSkin {
            skeleton: assets.skeleton.clone(),
            influences,
            clips: assets.clips.clone(),
        },
        binding.warnings,
    ))
}

/// The complete mip levels of a TXTR, decoded, and why the chain ends early when a later
/// level is cut short (the levels before it are kept). A texture without a decodable level 0
/// is an error.
pub fn decode_texture(txtr: &Txtr) -> Result<(TextureData, Option<String>), TextureError> {
    let (levels, error) = txtr.decode_complete_levels();
    let Some(first) = levels.first() else {
        return Err(TextureError(match error {
            Some(e) => e.to_string(),
            None => "no mip levels".into(),
        }));
    };
    let data = TextureData {
        width: first.width,
        height: first.height,
        levels: levels.into_iter().map(|l| l.pixels).collect(),
    };
    data.validate()?;
    Ok((data, error.map(|e| format!("mip chain cut short: {e}"))))
}
