//! An area's world geometry as one drawable model: the world models' arrays concatenated
//! into a [`Cmdl`] whose surfaces index them, so the renderer, picking and material editing
//! that work on CMDL models draw rooms unchanged.
//!
//! Placement follows `formats.md` §9.5.6: vertex positions are world space, and neither the
//! area transform nor a world model's transform is applied. World models hidden in the
//! combat visor (visor flag 0x2) are left out unless asked for (§9.5.4 Default / Alt).
//!
//! Also the choice of lights a scene uses ([`LightSource`], `--lights`): an area is lit
//! by its own light layer 0 unless told otherwise, as the game lights a room.

use anyhow::{Result, anyhow, bail};

use crate::formats::Game;
use crate::formats::cmdl::{
    Aabb, ArrayBase, AttributeArray, Cmdl, FLAG_SHORT_UVS, Normals, Surface,
};
use crate::formats::mp3_material::Mp3Materials;
use crate::formats::mrea::{Mp3Geometry, WorldGeometry, WorldModel, parse_mrea_lights};
use crate::gx::lights::{LightOptions, LightPreset, LightSet, PrimeLight};

use super::source;

/// Where a scene's lights come from: `--lights`, the viewer's lights menu and the start of a
/// light set in its Lights tab. The one description of a light choice; the viewer adds only
/// its label and the "edited by hand" state.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LightSource {
    /// Light layer N of the opened area (`layer0`, `layer1`, …).
    Layer(usize),
    /// tevscope's neutral preset (`basic`).
    Basic,
    /// What the game does with no lights: ambient only (`none`).
    None,
    /// Light layer `layer` of an MREA, a file or `PAK:ID` / `PAK:name` (`--lights` names the
    /// first layer of another area).
    Area { spec: String, layer: usize },
    /// A light set saved by the viewer's Lights panel (a path ending in `.json`,
    /// [`crate::gx::light_file`]).
    File(std::path::PathBuf),
}

impl LightSource {
    /// Reads a `--lights` value: `layerN`, `basic`, `none`, a `.json` light set file,
    /// else an MREA.
    pub fn parse(spec: &str) -> LightSource {
        let spec = spec.trim();
        match spec {
            "basic" => return Self::Basic,
            "none" => return Self::None,
            _ => {}
        }
        if is_light_file(spec) {
            return Self::File(spec.into());
        }
        match spec.strip_prefix("layer").map(str::parse::<usize>) {
            Some(Ok(n)) => Self::Layer(n),
            _ => Self::Area {
                spec: spec.to_owned(),
                layer: 0,
            },
        }
    }

    /// The area light records this stands for (MREAs and files are read now); `own_layers`
    /// are the opened area's ([`super::LoadedModel::light_layers`]; empty for models).
    pub fn records(&self, own_layers: &[Vec<PrimeLight>]) -> Result<Vec<PrimeLight>> {
        match self {
            Self::Basic => Ok(LightPreset::Basic.records()),
            Self::None => Ok(LightPreset::GameNoLights.records()),
            Self::Layer(n) => match own_layers.get(*n) {
                Some(records) => Ok(records.clone()),
                None if own_layers.is_empty() => {
                    bail!(
                        "light layer {n}: only an area has light layers (name an MREA for its lights)"
                    )
                }
                None => bail!(
                    "light layer {n}: the area has {} light layers",
                    own_layers.len()
                ),
            },
            Self::Area { spec, layer } => {
                let layers = area_light_layers(spec)?;
                let count = layers.len();
                layers.into_iter().nth(*layer).ok_or_else(|| match count {
                    0 => anyhow!("{spec}: no light layers"),
                    _ => anyhow!("{spec}: no light layer {layer} (it has {count})"),
                })
            }
            Self::File(path) => read_light_file(path),
        }
    }
}

impl std::fmt::Display for LightSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Layer(n) => write!(f, "layer{n}"),
            Self::Basic => f.write_str("basic"),
            Self::None => f.write_str("none"),
            Self::Area { spec, layer: 0 } => f.write_str(spec),
            Self::Area { spec, layer } => write!(f, "{spec} layer {layer}"),
            Self::File(path) => write!(f, "{}", path.display()),
        }
    }
}

/// The lights of a scene: `spec` (see [`LightSource::parse`]) against `own_layers`, the
/// opened area's light layers ([`super::LoadedModel::light_layers`]; empty for models).
/// Without a spec an area with lights in layer 0 is lit by that layer, anything else by
/// the basic preset.
pub fn scene_lights(spec: Option<&str>, own_layers: &[Vec<PrimeLight>]) -> Result<LightSet> {
    let source = match spec.map(LightSource::parse) {
        Some(s) => s,
        None if own_layers.first().is_some_and(|l| !l.is_empty()) => LightSource::Layer(0),
        None => LightSource::Basic,
    };
    Ok(match source {
        LightSource::Basic => LightPreset::Basic.light_set(),
        LightSource::None => LightPreset::GameNoLights.light_set(),
        other => LightSet::from_layer(&other.records(own_layers)?, &LightOptions::default()),
    })
}

/// Whether a `--lights` value names a light set file (ends in `.json`, any case).
pub fn is_light_file(spec: &str) -> bool {
    std::path::Path::new(spec)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

/// Every light layer of an MREA (a file or `PAK:ID` / `PAK:name`), as records.
pub fn area_light_layers(spec: &str) -> Result<Vec<Vec<PrimeLight>>> {
    let (r, _) = source::open(spec)?;
    Ok(parse_mrea_lights(&r.bytes, &r.label)?.light_layers())
}

/// Reads a light set file ([`crate::gx::light_file`]); errors name the file and field.
pub fn read_light_file(path: &std::path::Path) -> Result<Vec<PrimeLight>> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow!("{}: cannot read the light set: {e}", path.display()))?;
    crate::gx::light_file::from_json(&text)
        .map_err(|e| anyhow::Error::new(e).context(path.display().to_string()))
}

/// [`scene_lights`] for something that is not an area: `layerN` is refused.
pub fn load_lights(spec: Option<&str>) -> Result<LightSet> {
    scene_lights(spec, &[])
}

/// Which world models [`area_model`] takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AreaView {
    /// Also world models the combat visor hides (flag 0x2), as PWE and noclip draw them.
    pub all_world_models: bool,
}

fn array<T>(values: Vec<T>) -> AttributeArray<T> {
    AttributeArray {
        values,
        remainder: Vec::new(),
    }
}

/// One world model of an area as the merged model holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldModelPart {
    /// Index in the area's world model list.
    pub index: usize,
    /// Its surfaces in the merged model (they are consecutive).
    pub surfaces: std::ops::Range<usize>,
    pub triangles: usize,
}

/// The world models `view` shows (with their index in the area), in file order: the
/// ones [`area_model`] merges, whose parts [`world_model_parts`] lists.
fn shown_world_models(
    models: &[WorldModel],
    view: AreaView,
) -> impl Iterator<Item = (usize, &WorldModel)> {
    models
        .iter()
        .enumerate()
        .filter(move |(_, m)| view.all_world_models || !m.header.hidden_in_combat())
}

/// The world models [`area_model`] takes, in its surface order.
pub fn world_model_parts(g: &WorldGeometry, view: AreaView) -> Vec<WorldModelPart> {
    parts_of(&g.world_models, view)
}

/// [`world_model_parts`] of an MP3 area: every world model (§13.8 Default).
pub fn mp3_world_model_parts(g: &Mp3Geometry) -> Vec<WorldModelPart> {
    parts_of(&g.world_models, MP3_VIEW)
}

/// MP3 areas draw every world model: no source uses their visor flags (§13.8 Default).
const MP3_VIEW: AreaView = AreaView {
    all_world_models: true,
};

fn parts_of(models: &[WorldModel], view: AreaView) -> Vec<WorldModelPart> {
    let mut first = 0;
    shown_world_models(models, view)
        .map(|(index, m)| {
            let surfaces = first..first + m.surfaces.len();
            first = surfaces.end;
            WorldModelPart {
                index,
                surfaces,
                triangles: m.triangle_count(),
            }
        })
        .collect()
}

/// The world model (its index in the area) that surface `surface` of the merged model
/// belongs to, and the surface's index within that world model (its file order).
pub fn world_model_of(parts: &[WorldModelPart], surface: usize) -> Option<(usize, usize)> {
    let k = parts.partition_point(|p| p.surfaces.end <= surface);
    let part = parts.get(k).filter(|p| p.surfaces.contains(&surface))?;
    Some((part.index, surface - part.surfaces.start))
}

/// The world geometry as one model (see the module docs): the world models' arrays
/// concatenated, each surface indexing its own world model's part through its
/// [`ArrayBase`] (so the merged arrays may pass the 65,536 entries a 16-bit index reaches).
/// The display-list bytes are the file's, so the model is for drawing and inspection, not
/// for writing back (edit the [`WorldGeometry`] and write the area).
pub fn area_model(g: &WorldGeometry, view: AreaView) -> Result<Cmdl> {
    let mut cmdl = merged_model(&g.world_models, view, |m, i| g.normal(m, i));
    cmdl.version = if g.game == Game::Mp2 { 4 } else { 2 };
    cmdl.material_sets = vec![g.material_set.clone()];
    cmdl.options = g.options;
    Ok(cmdl)
}

/// [`area_model`] of an MP3 area: a version-5 model with the area's MP3 material set, so
/// its materials go through the PASS → TEV synthesis as a CMDL v5's do. No short UVs.
pub fn mp3_area_model(g: &Mp3Geometry) -> Result<Cmdl> {
    let mut cmdl = merged_model(&g.world_models, MP3_VIEW, |m, i| g.normal(m, i));
    cmdl.version = 5;
    cmdl.flags = 0;
    cmdl.short_uvs = None;
    cmdl.mp3_materials = Some(Mp3Materials {
        sets: g.materials.sets.clone(),
        layout: g.materials.layout,
        paddings: Vec::new(),
    });
    cmdl.options = g.options;
    Ok(cmdl)
}

/// The shown world models' arrays concatenated and their surfaces (see [`area_model`]),
/// as an MP1-shaped model without materials; `normal` reads a model's normal as floats.
fn merged_model(
    models: &[WorldModel],
    view: AreaView,
    normal: impl Fn(&WorldModel, usize) -> Option<[f32; 3]>,
) -> Cmdl {
    let mut positions = Vec::new();
    let mut normals = Vec::new();
    let mut colors = Vec::new();
    let mut uvs = Vec::new();
    let mut short_uvs = Vec::new();
    let mut surfaces: Vec<Surface> = Vec::new();
    let mut bounds: Option<Aabb> = None;
    for (_, m) in shown_world_models(models, view) {
        let base = ArrayBase {
            position: positions.len(),
            normal: normals.len(),
            color: colors.len(),
            uv: uvs.len(),
            short_uv: short_uvs.len(),
        };
        // Up to the last referenced position: the array's 32-byte padding reads as extra
        // entries at the origin, which would stretch the bounds the camera frames.
        let used = m
            .surfaces
            .iter()
            .flat_map(|s| s.mesh.vertices.iter().map(|v| usize::from(v.position) + 1))
            .max()
            .unwrap_or(0)
            .min(m.positions.len());
        positions.extend_from_slice(&m.positions.values[..used]);
        normals.extend((0..m.normals.len()).map(|i| normal(m, i).unwrap_or_default()));
        colors.extend_from_slice(&m.colors.values);
        uvs.extend_from_slice(&m.uvs.values);
        short_uvs.extend_from_slice(&m.short_uvs.values);
        let h = &m.header.aabb;
        bounds = Some(match bounds {
            None => *h,
            Some(a) => Aabb::from_points([a.min, a.max, h.min, h.max]).unwrap_or(a),
        });
        // The surfaces keep the file's indices into their world model's arrays.
        surfaces.extend(m.surfaces.iter().map(|s| Surface {
            array_base: base,
            ..s.clone()
        }));
    }
    Cmdl {
        version: 2,
        flags: FLAG_SHORT_UVS,
        aabb: bounds.unwrap_or_default(),
        header_padding: Vec::new(),
        material_sets: Vec::new(),
        mp3_materials: None,
        positions: array(positions),
        normals: Normals::Float(array(normals)),
        colors: array(colors),
        uvs: array(uvs),
        short_uvs: Some(array(short_uvs)),
        surface_end_offsets: Vec::new(),
        surface_table_padding: Vec::new(),
        surfaces,
        extra_sections: Vec::new(),
        trailing: Vec::new(),
        options: Default::default(),
        warnings: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::cmdl::UvSource;
    use crate::formats::mrea::parse_mrea;

    #[test]
    fn fixture_rooms_become_one_model_with_their_22_triangles() {
        for name in ["mp1_area.MREA", "mp2_area.MREA"] {
            let Some((data, _)) = crate::testing::conformance_file(&format!("areas/{name}")) else {
                return;
            };
            let m = parse_mrea(&data, name).expect("parses");
            let g = m.geometry.as_ref().expect("geometry");
            let model = area_model(g, AreaView::default()).expect("model");
            assert_eq!(model.triangle_count(), 22, "{name}");
            assert_eq!(model.surfaces.len(), 4);
            // The lightmapped floor takes TEX0 from the short UVs (raw 0x8000 → 1.0) and
            // TEX1 from the float UVs.
            let floor = &model.surfaces[0];
            assert_eq!(floor.mesh.layout.tex0_source, UvSource::Short);
            let v = model.resolved_vertices(floor);
            let corner = v
                .iter()
                .find(|v| v.position == [8.0, 8.0, 0.0])
                .expect("corner vertex");
            assert_eq!(corner.tex[0], Some([1.0, 1.0]));
            assert_eq!(corner.tex[1], Some([2.0, 2.0]));
            // World model 1 stays where its vertices are (no transform applied), with its
            // float normals and its surfaces indexing its own part of the arrays.
            let pillar = model.resolved_vertices(&model.surfaces[2]);
            assert!(
                pillar
                    .iter()
                    .all(|v| (10.0..=12.0).contains(&v.position[0]))
            );
            assert!(pillar.iter().all(|v| v.normal.is_some()));
            let top = model.resolved_vertices(&model.surfaces[3]);
            assert!(top.iter().all(|v| v.position[2] == 3.0), "{top:?}");
            assert_eq!(model.aabb.min, [0.0, 0.0, 0.0]);
            assert_eq!(model.aabb.max, [12.0, 8.0, 4.0]);
            // Padding entries past the last referenced position are left out.
            assert_eq!(model.positions.len(), 17 + 8);
        }
    }

    /// World models end up as surfaces of one CPU model, with the room's one material set
    /// converted to GX and each surface's triangles on world-space positions.
    #[test]
    fn fixture_rooms_become_one_cpu_model() {
        for name in ["mp1_area.MREA", "mp2_area.MREA"] {
            let Some((data, _)) = crate::testing::conformance_file(&format!("areas/{name}")) else {
                return;
            };
            let m = parse_mrea(&data, name).expect("parses");
            let g = m.geometry.as_ref().expect("geometry");
            let cmdl = area_model(g, AreaView::default()).expect("model");
            let cpu = super::super::ModelAssets::new(cmdl)
                .cpu_model()
                .expect("cpu model");
            assert_eq!(cpu.surfaces.len(), 4, "{name}");
            assert_eq!(cpu.triangle_count(), 22, "{name}");
            assert_eq!(cpu.material_sets.len(), 1);
            let set = &cpu.material_sets[0];
            for s in &cpu.surfaces {
                assert!(
                    set.materials[s.material].gx.is_ok(),
                    "{name}: material {}",
                    s.material
                );
                let vertices = s.vertices.start as usize..s.vertices.end as usize;
                assert!(
                    s.triangles
                        .iter()
                        .flatten()
                        .all(|&v| (v as usize) < vertices.len())
                );
            }
            // The pillar (world model 1) keeps its world-space placement.
            let pillar = &cpu.surfaces[2];
            let xs =
                &cpu.mesh.positions[pillar.vertices.start as usize..pillar.vertices.end as usize];
            assert!(xs.iter().all(|p| (10.0..=12.0).contains(&p[0])), "{name}");
            assert_eq!((cpu.aabb.min, cpu.aabb.max), ([0.0; 3], [12.0, 8.0, 4.0]));
            assert!(cpu.warnings.is_empty(), "{name}: {:?}", cpu.warnings);
        }
    }

    /// A room whose world models hold more than 65,536 positions together (each fewer, as
    /// the file's 16-bit indices require) draws every world model at its own vertices.
    #[test]
    fn a_room_past_65536_positions_draws_every_world_model() {
        let bytes = crate::demo::room::build_stress_room(2800, 4, 4).expect("builds");
        let m = parse_mrea(&bytes, "big").expect("parses");
        let g = m.geometry.as_ref().expect("geometry");
        let model = area_model(g, AreaView::default()).expect("model");
        assert!(model.positions.len() > 65_536, "{}", model.positions.len());
        assert!(g.world_models.iter().all(|w| w.positions.len() <= 65_536));
        assert_eq!(model.triangle_count(), g.triangle_count());
        // The last world model's surfaces resolve to its own positions.
        let last = g.world_models.last().expect("world models");
        let surface = model.surfaces.last().expect("surfaces");
        let local = last.surfaces.last().expect("surface");
        let want: Vec<[f32; 3]> = local
            .mesh
            .vertices
            .iter()
            .map(|v| last.positions.values[usize::from(v.position)])
            .collect();
        let got: Vec<[f32; 3]> = model
            .resolved_vertices(surface)
            .iter()
            .map(|v| v.position)
            .collect();
        assert_eq!(got, want);
        let cpu = crate::load::ModelAssets::new(model)
            .cpu_model()
            .expect("cpu model");
        assert_eq!(cpu.triangle_count(), g.triangle_count());
        assert!(cpu.mesh.len() > 65_536);
    }

    #[test]
    fn lights_default_to_the_areas_layer0_and_take_layers_presets_and_files() {
        assert_eq!(LightSource::parse("layer1"), LightSource::Layer(1));
        assert_eq!(LightSource::parse(" basic "), LightSource::Basic);
        assert_eq!(LightSource::parse("none"), LightSource::None);
        assert_eq!(
            LightSource::parse("layers.MREA"),
            LightSource::Area {
                spec: "layers.MREA".into(),
                layer: 0
            }
        );
        assert_eq!(
            LightSource::parse("rigs/warm.JSON"),
            LightSource::File("rigs/warm.JSON".into())
        );
        for s in ["layer0", "basic", "none", "x.pak:lights", "rig.json"] {
            assert_eq!(LightSource::parse(s).to_string(), s);
        }
        let room = crate::demo::room::room_lights();
        let layers: Vec<Vec<PrimeLight>> = room
            .layers
            .iter()
            .map(|l| l.iter().map(|r| r.to_prime_light()).collect())
            .collect();
        let own = |n: usize| LightSet::from_layer(&layers[n], &LightOptions::default());
        assert_eq!(scene_lights(None, &layers).expect("default"), own(0));
        assert_eq!(
            scene_lights(Some("layer1"), &layers).expect("layer1"),
            own(1)
        );
        assert_eq!(
            scene_lights(Some("basic"), &layers).expect("basic"),
            LightPreset::Basic.light_set()
        );
        // Models (no layers) and areas whose layer 0 is empty get the basic preset.
        assert_eq!(
            scene_lights(None, &[]).expect("model"),
            LightPreset::Basic.light_set()
        );
        assert_eq!(
            scene_lights(None, &[Vec::new()]).expect("dark area"),
            LightPreset::Basic.light_set()
        );
        let e = scene_lights(Some("layer2"), &layers).expect_err("two layers");
        assert!(e.to_string().contains("2 light layers"), "{e}");
        assert!(load_lights(Some("layer0")).is_err());
    }

    #[test]
    fn world_models_hidden_in_the_combat_visor_are_left_out_by_default() {
        let Some((data, _)) = crate::testing::conformance_file("areas/mp1_area.MREA") else {
            return;
        };
        let mut m = parse_mrea(&data, "a").expect("parses");
        let g = m.geometry.as_mut().expect("geometry");
        g.world_models[1].header.visor_flags |= 0x2;
        assert_eq!(
            area_model(g, AreaView::default())
                .expect("model")
                .triangle_count(),
            12
        );
        let all = AreaView {
            all_world_models: true,
        };
        assert_eq!(area_model(g, all).expect("model").triangle_count(), 22);
    }
}
