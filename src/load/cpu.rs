//! From parsed files to the [`CpuModel`] the renderer draws: the one place a CMDL's
//! materials become `gx` materials, its display lists vertex arrays and index lists, and a
//! CSKR bone weights per vertex.

use std::collections::HashMap;

use anyhow::{Context as _, Result};

use crate::anim::{
    AnimError, BankedSkin, Clip, NormalMode, Skeleton, SkinBinding, SkinOptions, VertexInfluence,
};
use crate::formats::Game;
use crate::formats::cmdl::{Cmdl, ResolvedVertex};
use crate::formats::cskr::Cskr;
use crate::formats::material::MaterialSet;
use crate::formats::mp3_material::{Mp3MaterialSet, Mp3Materials};
use crate::formats::txtr::Txtr;
use crate::geom::Aabb;
use crate::gx::mp3::SynthesisOptions;
use crate::model::{
    CpuMaterial, CpuMaterialSet, CpuMesh, CpuModel, CpuSkin, CpuSurface, TextureData, TextureError,
    VertexAttributes,
};

/// A skeleton, its skin and the character's animations, as read from their files.
#[derive(Debug, Clone)]
pub struct SkinAssets {
    pub skeleton: Skeleton,
    pub cskr: Cskr,
    /// Named clips (ANCS animation names, or file names).
    pub clips: Vec<(String, Clip)>,
}

impl SkinAssets {
    /// The skin resolved against `cmdl`. Only the positions the display lists use count: a
    /// CMDL's position section is padded to 32 bytes, so its parsed length can include zero
    /// entries the skin's groups (rightly) do not cover. Normals are counted the same way,
    /// as Retro's skins list them one to one with positions.
    pub fn binding(&self, cmdl: &Cmdl) -> Result<SkinBinding, AnimError> {
        let used = cmdl
            .surfaces
            .iter()
            .flat_map(|s| &s.mesh.vertices)
            .map(|v| usize::from(v.position) + 1)
            .max()
            .unwrap_or(0)
            .min(cmdl.positions.len());
        SkinBinding::new(
            &self.cskr,
            &self.skeleton,
            used,
            cmdl.normals.len().min(used),
            SkinOptions::default(),
        )
    }
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
    /// The MP3 Alts its materials and skin are derived with.
    pub mp3_alts: super::Mp3Alts,
}

impl ModelAssets {
    pub fn new(cmdl: Cmdl) -> Self {
        Self {
            cmdl,
            textures: HashMap::new(),
            skin: None,
            mp3_alts: super::Mp3Alts::default(),
        }
    }

    /// The model as the renderer takes it (see [`crate::model`]). Fails only when the skin
    /// does not fit the skeleton.
    pub fn cpu_model(&self) -> Result<CpuModel> {
        self.describe(self.textures.clone())
    }

    /// [`ModelAssets::cpu_model`] that moves the textures instead of copying them.
    pub fn into_cpu_model(mut self) -> Result<CpuModel> {
        let textures = std::mem::take(&mut self.textures);
        self.describe(textures)
    }

    fn describe(&self, textures: HashMap<u64, TextureData>) -> Result<CpuModel> {
        let cmdl = &self.cmdl;
        let mut warnings = Vec::new();
        let material_sets = cpu_material_sets(
            &cmdl.material_sets,
            cmdl.mp3_materials.as_ref(),
            &self.mp3_alts.synthesis,
        );

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
            let resolved = cmdl.resolved_vertices(s);
            let every = |has: &dyn Fn(&ResolvedVertex) -> bool| resolved.iter().all(has);
            let attributes = VertexAttributes {
                normals: every(&|v| v.normal.is_some()),
                colors: [0, 1].map(|c| every(&|v| v.colors[c].is_some())),
                uv_sets: (0..8u8)
                    .take_while(|&t| every(&|v| v.tex[usize::from(t)].is_some()))
                    .count() as u8,
            };
            for v in resolved {
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
                points: s.mesh.points.clone(),
                attributes,
                center: cmdl.surface_aabb(s).map_or(s.center, |b| b.center()),
            });
        }
        let aabb = Aabb::from_points(cmdl.positions.values.iter().copied()).unwrap_or(cmdl.aabb);
        let skin = match &self.skin {
            Some(s) => {
                let (skin, skin_warnings) = cpu_skin(cmdl, s, &position_of_vertex, &self.mp3_alts)?;
                warnings.extend(skin_warnings.iter().map(|w| format!("skin: {w}")));
                Some(skin)
            }
            None => None,
        };
        Ok(CpuModel {
            mesh,
            surfaces,
            material_sets,
            textures,
            skin,
            aabb,
            warnings,
        })
    }
}

/// A file material set in GX form with each material's texture IDs (the one place file
/// materials become GX materials; the application core calls it again after each edit).
pub fn cpu_material_set(set: &MaterialSet) -> CpuMaterialSet {
    CpuMaterialSet {
        materials: set.materials.iter().map(|m| cpu_material(set, m)).collect(),
    }
}

/// Material `m` of `set` in GX form with its texture IDs (through the set's ID list).
pub fn cpu_material(set: &MaterialSet, m: &crate::formats::material::Material) -> CpuMaterial {
    CpuMaterial {
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
        second_draw: None,
    }
}

/// Every material set of a model in GX form: the MP1/MP2 sets, or an MP3 model's
/// (synthesised with `options`).
pub fn cpu_material_sets(
    sets: &[MaterialSet],
    mp3: Option<&Mp3Materials>,
    options: &SynthesisOptions,
) -> Vec<CpuMaterialSet> {
    match mp3 {
        Some(m) => m
            .sets
            .iter()
            .map(|s| cpu_mp3_material_set(s, options))
            .collect(),
        None => sets.iter().map(cpu_material_set).collect(),
    }
}

/// An MP3 material set in GX form: each material's program as the PASS → TEV synthesis
/// builds it (`formats.md` §13.3; its Defaults unless `options` turns Alts on), with the
/// TXTR ID of each texture map.
pub fn cpu_mp3_material_set(set: &Mp3MaterialSet, options: &SynthesisOptions) -> CpuMaterialSet {
    CpuMaterialSet {
        materials: set
            .materials
            .iter()
            .map(|m| {
                let built = m.program(options);
                let second_draw = built.program.second_draw.map(|(gx, _)| {
                    Box::new(CpuMaterial {
                        gx: Ok(gx),
                        textures: built.second_draw_texture_ids.into_iter().map(Ok).collect(),
                        second_draw: None,
                    })
                });
                CpuMaterial {
                    gx: Ok(built.program.material),
                    textures: built.texture_ids.into_iter().map(Ok).collect(),
                    second_draw,
                }
            })
            .collect(),
    }
}

/// [MP3] Bone weights per vertex through the skin's matrix banks: each surface passes its
/// bank index, each vertex its PNMTXIDX (one position may take different groups). Vertices
/// in the order [`ModelAssets::cpu_model`] lays them out (surface by surface).
pub fn banked_influences(
    cmdl: &Cmdl,
    assets: &SkinAssets,
) -> Result<(Vec<VertexInfluence>, Vec<String>), AnimError> {
    let skin = BankedSkin::new(&assets.cskr, &assets.skeleton, SkinOptions::default())?;
    let mut warnings = skin.warnings.clone();
    let mut influences = Vec::new();
    for (i, s) in cmdl.surfaces.iter().enumerate() {
        let pnmtxidx = s.mesh.vertices.iter().map(|v| v.matrix_indices[0]);
        let (inf, w) =
            skin.surface_influences(s.skin_matrix_bank_index().unwrap_or(-1), pnmtxidx)?;
        influences.extend(inf);
        warnings.extend(w.map(|w| format!("surface {i}: {w}")));
    }
    Ok((influences, warnings))
}

/// Bone weights per vertex from the skin's weight groups (MP1/MP2: by position index;
/// MP3: through the matrix banks).
fn cpu_skin(
    cmdl: &Cmdl,
    assets: &SkinAssets,
    position_of_vertex: &[u16],
    alts: &super::Mp3Alts,
) -> Result<(CpuSkin, Vec<String>)> {
    if assets.cskr.game == Game::Mp3 {
        let (influences, warnings) = banked_influences(cmdl, assets).context("skin")?;
        return Ok((
            CpuSkin {
                skeleton: assets.skeleton.clone(),
                influences,
                clips: assets.clips.clone(),
                normals: alts.normal_mode(),
            },
            warnings,
        ));
    }
    let binding = assets.binding(cmdl).context("skin")?;
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
            normals: NormalMode::FirstWeight,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::cinf::Cinf;
    use crate::testing::conformance_file;

    fn id(v: &serde_json::Value) -> u64 {
        u64::from_str_radix(v.as_str().expect("hex id").trim_start_matches("0x"), 16).expect("id")
    }

    /// The CPU model of the skinned cube has the surfaces, triangles, materials, texture
    /// slots and bone weights its conformance JSON describes.
    #[test]
    fn conformance_cube_becomes_the_cpu_model_its_json_describes() {
        let Some((bytes, json)) = conformance_file("mp1_cube_skinned.CMDL") else {
            return;
        };
        let cmdl = Cmdl::parse(&bytes, "cube").expect("parses");
        let model = ModelAssets::new(cmdl).cpu_model().expect("model");
        let positions: Vec<[f32; 3]> =
            serde_json::from_value(json["positions"].clone()).expect("positions");
        let surfaces = json["surfaces"].as_array().expect("surfaces");
        assert_eq!(model.surfaces.len(), surfaces.len());
        let mut triangles = 0;
        for (s, want) in model.surfaces.iter().zip(surfaces) {
            assert_eq!(s.material as u64, want["material_index"].as_u64().unwrap());
            let count = want["triangle_count"].as_u64().unwrap() as usize;
            assert_eq!(s.triangles.len(), count);
            triangles += count;
            // Each triangle's corners are the positions the file's indices name.
            let by_position: Vec<[[f32; 3]; 3]> =
                serde_json::from_value::<Vec<[usize; 3]>>(want["triangles_pos"].clone())
                    .expect("triangles_pos")
                    .iter()
                    .map(|t| t.map(|p| positions[p]))
                    .collect();
            let ours: Vec<[[f32; 3]; 3]> = s
                .triangles
                .iter()
                .map(|t| t.map(|v| model.mesh.positions[(s.vertices.start + v) as usize]))
                .collect();
            assert_eq!(ours, by_position);
            assert!(s.lines.is_empty() && s.points.is_empty());
            // The attributes its material's vertex attribute flags name (two bits each:
            // position, normal, colour 0, colour 1, then UV sets 0–7).
            let vaf = json["material_sets"][0]["materials"][s.material]["vertex_attribute_flags"]
                .as_u64()
                .unwrap();
            let has = |bit: u32| vaf >> (2 * bit) & 3 != 0;
            let want = VertexAttributes {
                normals: has(1),
                colors: [has(2), has(3)],
                uv_sets: (0..8).take_while(|&t| has(4 + t)).count() as u8,
            };
            assert_eq!(s.attributes, want);
        }
        assert_eq!(model.triangle_count(), triangles);
        let mesh = &model.mesh;
        assert!(!mesh.is_empty());
        for array_len in [mesh.normals.len(), mesh.colors[0].len(), mesh.tex.len()] {
            assert_eq!(array_len, mesh.len());
        }
        assert_eq!(model.aabb.min, [-0.5, -0.5, 0.0]);
        assert_eq!(model.aabb.max, [0.5, 0.5, 1.0]);

        let sets = json["material_sets"].as_array().expect("sets");
        assert_eq!(model.material_sets.len(), sets.len());
        for (set, want) in model.material_sets.iter().zip(sets) {
            let materials = want["materials"].as_array().expect("materials");
            assert_eq!(set.materials.len(), materials.len());
            for (m, want) in set.materials.iter().zip(materials) {
                let gx = m.gx.as_ref().expect("converts to gx");
                assert_eq!(
                    gx.stages.len() as u64,
                    want["tev_stage_count"].as_u64().unwrap()
                );
                let ids: Vec<u64> = want["texture_file_ids"]
                    .as_array()
                    .expect("ids")
                    .iter()
                    .map(id)
                    .collect();
                let ours: Vec<u64> = m
                    .textures
                    .iter()
                    .map(|t| *t.as_ref().expect("slot"))
                    .collect();
                assert_eq!(ours, ids);
            }
        }
        assert!(model.skin.is_none());
        assert!(model.warnings.is_empty(), "{:?}", model.warnings);
    }

    #[test]
    fn a_skin_gives_every_vertex_weights_that_sum_to_one() {
        let (Some((cmdl, _)), Some((cskr, _)), Some((cinf, _))) = (
            conformance_file("mp1_cube_skinned.CMDL"),
            conformance_file("mp1_cube.CSKR"),
            conformance_file("mp1_skeleton.CINF"),
        ) else {
            return;
        };
        let mut assets = ModelAssets::new(Cmdl::parse(&cmdl, "cube").expect("cmdl"));
        assets.skin = Some(SkinAssets {
            skeleton: Skeleton::from_cinf(&Cinf::parse(&cinf, "cinf", None).expect("cinf"))
                .expect("skeleton"),
            cskr: Cskr::parse(&cskr, "cskr", None).expect("cskr"),
            clips: Vec::new(),
        });
        let model = assets.cpu_model().expect("model");
        let skin = model.skin.as_ref().expect("skinned");
        assert_eq!(skin.influences.len(), model.mesh.len());
        for v in &skin.influences {
            let n = v.count as usize;
            assert!((1..=4).contains(&n));
            assert!((v.weights.iter().sum::<f32>() - 1.0).abs() < 1e-4, "{v:?}");
            assert!(v.weights[n..].iter().all(|&w| w == 0.0));
            assert!(
                v.bones[..n]
                    .iter()
                    .all(|&b| (b as usize) < skin.skeleton.len())
            );
        }
    }
}
