//! glTF export (`tevscope export`) and PNG texture export (`texture --all-mips`,
//! `extract --png`):
//! - every export of the demo content and of the conformance models and characters passes
//!   the Khronos glTF Validator with no errors (`tests/gltf/validate.mjs`, run by node);
//! - the files re-read with the `gltf` crate, with vertex, triangle, joint, animation
//!   duration and key counts equal to the sources';
//! - a skinned character posed at time T by a small glTF evaluator below (node hierarchy ×
//!   skin) lands within 1e-4 of tevscope's GPU skinning at T (the scene's vertex stage,
//!   read back per vertex on lavapipe: `Scene::gpu_skinned_positions`) and of its CPU
//!   skinning reference (`golden::cpu_skinned`), also with `--time T` as the rest pose.

#![allow(clippy::unwrap_used)]

mod golden;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use glam::{Mat4, Quat, Vec3};
use tevscope::anim::{Clip, PoseOptions};
use tevscope::cli::export::{ExportRequest, export};
use tevscope::export::gltf::z_up_to_y_up;
use tevscope::formats::anim::Anim;
use tevscope::formats::cinf::Cinf;
use tevscope::formats::cmdl::Cmdl;
use tevscope::formats::pak::Pak;
use tevscope::load::{LoadRequest, LoadedModel, load};

const DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak");
const MP3_DEMO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo_mp3.pak");

/// One export: input spec, optional skin/skeleton/anim, output extension.
#[derive(Clone)]
struct Case {
    spec: String,
    skin: Option<String>,
    skeleton: Option<String>,
    anim: Option<String>,
    set: usize,
    ext: &'static str,
}

impl Case {
    fn new(spec: impl Into<String>) -> Self {
        Self {
            spec: spec.into(),
            skin: None,
            skeleton: None,
            anim: None,
            set: 0,
            ext: "glb",
        }
    }

    fn load(&self) -> LoadedModel {
        let anim = self.anim.as_deref().filter(|a| *a != "all");
        load(&LoadRequest {
            skin: self.skin.clone(),
            skeleton: self.skeleton.clone(),
            anim: anim.map(str::to_owned),
            ..LoadRequest::new(&self.spec)
        })
        .unwrap_or_else(|e| panic!("{}: {e:#}", self.spec))
        .0
    }
}

fn out_dir(test: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("export-{test}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Every CMDL, ANCS and MREA of the demo PAK, and the conformance models, characters and
/// rooms.
fn cases() -> Vec<Case> {
    let pak = Pak::parse(&std::fs::read(DEMO).unwrap(), DEMO).unwrap();
    let mut cases: Vec<Case> = pak
        .entries()
        .iter()
        .filter(|e| matches!(&e.fourcc, b"CMDL" | b"ANCS" | b"MREA"))
        .map(|e| Case::new(format!("{DEMO}:{}", pak.entry_name(e))))
        .collect();
    cases.push(Case {
        ext: "gltf",
        ..Case::new(format!("{DEMO}:showcase"))
    });
    // The MP3 room: WOBJ/GPUD world geometry, synthesised programs, 64-bit texture IDs.
    cases.push(Case::new(format!("{MP3_DEMO}:room")));
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return cases;
    };
    let c = |name: &str| dir.join(name).display().to_string();
    cases.push(Case::new(format!("{}:fixture_cube", c("mp1_fixtures.pak"))));
    cases.push(Case::new(format!("{}:0xC0000001", c("mp2_fixtures.pak"))));
    cases.push(Case::new(c("mp1_cube_skinned.CMDL")));
    cases.push(Case {
        set: 1,
        ext: "gltf",
        ..Case::new(c("mp1_cube_skinned.CMDL"))
    });
    for anim in ["mp1_wave_uncompressed.ANIM", "mp1_wave_compressed.ANIM"] {
        cases.push(Case {
            skin: Some(c("mp1_cube.CSKR")),
            skeleton: Some(c("mp1_skeleton.CINF")),
            anim: Some(c(anim)),
            ..Case::new(c("mp1_cube_skinned.CMDL"))
        });
    }
    cases.push(Case::new(c("0x7EC00000.CMDL")));
    // Rooms: world geometry with lightmapped materials (textures beside them).
    for area in ["mp1_area.MREA", "mp2_area.MREA"] {
        cases.push(Case::new(c(&format!("areas/{area}"))));
    }
    let mut found = Vec::new();
    collect_cmdls(&dir.join("pwe"), &mut found);
    collect_cmdls(&dir.join("real"), &mut found);
    collect_cmdls(&dir.join("areas"), &mut found);
    // Prime 3 models: synthesised programs, 64-bit texture IDs.
    collect_cmdls(&dir.join("mp3"), &mut found);
    found.sort();
    assert!(
        found.len() >= 6,
        "expected the pwe/ and real/ models, found {found:?}"
    );
    cases.extend(
        found
            .into_iter()
            .map(|p| Case::new(p.display().to_string())),
    );
    cases
}

fn collect_cmdls(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            collect_cmdls(&p, out);
        } else if p
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("cmdl"))
        {
            out.push(p);
        }
    }
}

/// The vertices the export writes, in order: every surface with geometry.
fn source_vertices(cmdl: &Cmdl) -> impl Iterator<Item = &tevscope::formats::cmdl::VertexRef> {
    cmdl.surfaces
        .iter()
        .filter(|s| {
            !(s.mesh.triangles.is_empty() && s.mesh.lines.is_empty() && s.mesh.points.is_empty())
        })
        .flat_map(|s| &s.mesh.vertices)
}

/// Every exported position, primitive by primitive (each shared attribute once).
fn exported_positions(g: &Read) -> Vec<[f32; 3]> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for mesh in g.doc.meshes() {
        for p in mesh.primitives() {
            if seen.insert(p.get(&gltf::Semantic::Positions).unwrap().index()) {
                out.extend(p.reader(g.data()).read_positions().unwrap());
            }
        }
    }
    out
}

/// Exports every case into `dir` through the CLI's library entry; returns the paths.
fn export_all(cases: &[Case], dir: &Path) -> Vec<PathBuf> {
    cases
        .iter()
        .enumerate()
        .map(|(i, case)| {
            let path = dir.join(format!("case{i:02}.{}", case.ext));
            let report = export(
                &ExportRequest {
                    file: &case.spec,
                    output: &path,
                    anim: case.anim.as_deref(),
                    set: case.set,
                    time: None,
                    model: None,
                    skin: case.skin.as_deref(),
                    skeleton: case.skeleton.as_deref(),
                    texture_dirs: Vec::new(),
                    game: None,
                    bake: None,
                },
                true,
            )
            .unwrap_or_else(|e| panic!("{}: {e:#}", case.spec));
            let report: serde_json::Value = serde_json::from_str(&report).unwrap();
            assert_eq!(report["output"], path.display().to_string());
            path
        })
        .collect()
}

/// The validator script, or None (after saying so loudly) when node or the npm package
/// is missing; under CI that is a failure.
fn validator() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/gltf");
    let node = Command::new("node").arg("--version").output();
    let installed = dir
        .join("node_modules/gltf-validator/package.json")
        .is_file();
    let problem = match node {
        Err(e) => Some(format!("node not runnable ({e})")),
        Ok(_) if !installed => Some(format!(
            "the gltf-validator package is not installed (run `npm ci` in {})",
            dir.display()
        )),
        Ok(_) => None,
    };
    match problem {
        None => Some(dir.join("validate.mjs")),
        Some(p) => {
            eprintln!(
                "\n!!!!!!!! KHRONOS glTF VALIDATOR UNAVAILABLE: {p} — skipping only the validator check.\n"
            );
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "CI needs the glTF validator: {p}"
            );
            None
        }
    }
}

#[test]
fn every_export_passes_the_khronos_validator() {
    let cases = cases();
    let files = export_all(&cases, &out_dir("validator"));
    let Some(script) = validator() else { return };
    let out = Command::new("node")
        .arg(&script)
        .args(&files)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let reports: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(
        reports.len(),
        files.len(),
        "validator output:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut failed = Vec::new();
    for (case, report) in cases.iter().zip(&reports) {
        eprintln!(
            "{}: {} errors, {} warnings, {} infos",
            case.spec, report["errors"], report["warnings"], report["infos"]
        );
        if report["errors"] != 0 {
            failed.push(format!("{}: {}", case.spec, report["messages"]));
        }
    }
    assert!(
        failed.is_empty(),
        "validator errors:\n{}",
        failed.join("\n")
    );
    assert!(out.status.success());
}

/// A re-read file: the document and its buffers.
struct Read {
    doc: gltf::Document,
    buffers: Vec<Vec<u8>>,
}

fn read(path: &Path) -> Read {
    let bytes = std::fs::read(path).unwrap();
    let g = gltf::Gltf::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let buffers = g
        .document
        .buffers()
        .map(|b| match b.source() {
            gltf::buffer::Source::Bin => g.blob.clone().expect("GLB blob"),
            gltf::buffer::Source::Uri(uri) => std::fs::read(path.with_file_name(uri)).unwrap(),
        })
        .collect();
    Read {
        doc: g.document,
        buffers,
    }
}

impl Read {
    fn data<'s>(&'s self) -> impl Fn(gltf::Buffer<'_>) -> Option<&'s [u8]> + Clone + 's {
        |b| self.buffers.get(b.index()).map(Vec::as_slice)
    }
}

#[test]
fn exports_reread_with_the_sources_counts() {
    let cases = cases();
    let files = export_all(&cases, &out_dir("reread"));
    let mut animations_checked = 0;
    for (case, path) in cases.iter().zip(&files) {
        let what = &case.spec;
        let model = case.load();
        let g = read(path);
        let cmdl = &model.assets.cmdl;
        // Vertices and triangles: primitives of one surface share their attributes.
        let mut positions = HashMap::new();
        let mut triangles = 0;
        for mesh in g.doc.meshes() {
            for p in mesh.primitives() {
                let a = p.get(&gltf::Semantic::Positions).unwrap();
                positions.insert(a.index(), a.count());
                if p.mode() == gltf::mesh::Mode::Triangles {
                    triangles += p.indices().unwrap().count() / 3;
                }
            }
        }
        let expect_vertices = source_vertices(cmdl).count();
        assert_eq!(
            positions.values().sum::<usize>(),
            expect_vertices,
            "{what}: vertices"
        );
        assert_eq!(triangles, cmdl.triangle_count(), "{what}: triangles");
        // The conformance rooms, against their JSON.
        let area_json = PathBuf::from(format!("{what}.json"));
        if what.ends_with(".MREA") && area_json.is_file() {
            check_area(what, &area_json, &g, positions.values().sum(), triangles);
        }
        // Every position, bit for bit.
        let got = exported_positions(&g);
        // Resolved per surface: a room's surfaces index their world model's part of the
        // merged arrays (`Surface::array_base`).
        let want: Vec<[f32; 3]> = cmdl
            .surfaces
            .iter()
            .filter(|s| {
                !(s.mesh.triangles.is_empty()
                    && s.mesh.lines.is_empty()
                    && s.mesh.points.is_empty())
            })
            .flat_map(|s| cmdl.resolved_vertices(s).into_iter().map(|v| v.position))
            .collect();
        assert!(got == want, "{what}: positions differ");
        // MP3: every PASS texture of the (one) set; MP1/MP2: the set's texture list.
        let mp3_textures = cmdl.mp3_materials.as_ref().map(|_| {
            cmdl.texture_ids()
                .iter()
                .filter(|id| model.assets.textures.contains_key(id))
                .count()
        });
        let distinct_textures = cmdl
            .material_sets
            .get(case.set)
            .map(|s| {
                let mut ids: Vec<_> = s
                    .texture_ids
                    .iter()
                    .filter(|&&id| model.assets.textures.contains_key(&u64::from(id)))
                    .collect();
                ids.sort();
                ids.dedup();
                ids.len()
            })
            .unwrap_or(0);
        // Images are named by texture ID (a texture blended and opaque materials share is
        // written twice, its RGBA copy named "ID alpha").
        let exported_ids: std::collections::HashSet<&str> = g
            .doc
            .textures()
            .map(|t| t.source().name().unwrap().split(' ').next().unwrap())
            .collect();
        assert_eq!(
            exported_ids.len(),
            mp3_textures.unwrap_or(distinct_textures),
            "{what}: textures"
        );

        let Some(skin) = &model.assets.skin else {
            assert_eq!(g.doc.skins().count(), 0, "{what}");
            continue;
        };
        // Joints: the CINF's bone count, read independently of the loader where we can.
        let joints = g.doc.skins().next().expect("a skin").joints().count();
        assert_eq!(joints, skin.skeleton.len(), "{what}: joints");
        if let Some(k) = &case.skeleton {
            let cinf = Cinf::parse(&std::fs::read(k).unwrap(), k, None).unwrap();
            assert_eq!(joints, cinf.bones.len(), "{what}: CINF bones");
        }
        // Animations: durations and key counts of the clips (for a loose ANIM, parsed here).
        let clips: Vec<(String, Clip)> = match &case.anim {
            Some(a) if case.skin.is_some() => {
                let anim = Anim::parse(&std::fs::read(a).unwrap(), a, None).unwrap();
                vec![(
                    model.assets.skin.as_ref().unwrap().clips[0].0.clone(),
                    Clip::from_anim(&anim).unwrap(),
                )]
            }
            _ => skin.clips.clone(),
        };
        assert_eq!(
            g.doc.animations().count(),
            clips.len(),
            "{what}: animations"
        );
        for (anim, (name, clip)) in g.doc.animations().zip(&clips) {
            assert_eq!(anim.name(), Some(name.as_str()), "{what}");
            let last_key = *clip.key_frames.last().unwrap() as f32 * clip.interval;
            let closing = usize::from(clip.duration > last_key + 1e-6);
            let keys = clip.key_frames.len() + closing;
            // Each channel follows the clip's key times, or holds one value over it.
            let mut keyed = 0;
            for ch in anim.channels() {
                let input = ch.sampler().input();
                assert_eq!(ch.sampler().output().count(), input.count(), "{what}");
                let outputs = channel_outputs(&g, &ch);
                let held = outputs.iter().all(|o| *o == outputs[0]);
                assert!(
                    input.count() == keys || held && input.count() <= 2,
                    "{what} {name}: {} keys, not {keys} nor a held value",
                    input.count()
                );
                keyed += usize::from(input.count() == keys);
                let times: Vec<f32> = ch.reader(g.data()).read_inputs().unwrap().collect();
                let duration = *times.last().unwrap();
                assert!(
                    (duration - clip.duration).abs() <= 1e-5,
                    "{what} {name}: duration {duration} vs {}",
                    clip.duration
                );
            }
            let source_components: usize = clip
                .channels
                .iter()
                .map(|c| {
                    usize::from(c.rotation.is_some())
                        + usize::from(c.translation.is_some())
                        + usize::from(c.scale.is_some())
                })
                .sum();
            if keys > 2 {
                assert!(
                    keyed >= source_components,
                    "{what} {name}: {keyed} channels at the key times, the clip has {source_components}"
                );
            }
            animations_checked += 1;
        }
    }
    assert!(
        animations_checked >= 3,
        "only {animations_checked} animations checked"
    );
}

/// A room's export against its conformance JSON (read independently of the loader): each
/// surface's distinct vertex tuples (the export writes each once) and the 22 triangles, and each lightmapped material's lightmap
/// named in `extras.lightmap` on UV set 0 (the short UVs), its colour map on another set.
fn check_area(what: &str, json: &Path, g: &Read, vertices: usize, triangles: usize) {
    let json: serde_json::Value = serde_json::from_slice(&std::fs::read(json).unwrap()).unwrap();
    let geometry = &json["geometry"];
    let want_vertices: usize = geometry["world_models"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|w| w["surfaces"].as_array().unwrap())
        .map(|s| {
            let tuples: std::collections::HashSet<String> = s["primitives"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|p| p["vertex_index_tuples"].as_array().unwrap())
                .map(|t| t.to_string())
                .collect();
            tuples.len()
        })
        .sum();
    assert_eq!(vertices, want_vertices, "{what}: vertices");
    assert_eq!(
        triangles as u64,
        geometry["triangle_count"].as_u64().unwrap()
    );
    assert_eq!(triangles, 22, "{what}: triangles");
    let mut lightmapped = 0;
    for m in g.doc.materials() {
        let extras: serde_json::Value =
            serde_json::from_str(m.extras().as_ref().unwrap().get()).unwrap();
        if extras["flags"].as_u64().unwrap() & 0x800 == 0 {
            continue;
        }
        lightmapped += 1;
        let lightmap = &extras["lightmap"];
        assert_eq!(lightmap["texCoord"], 0, "{what}: {extras}");
        let index = lightmap["index"].as_u64().unwrap() as usize;
        assert!(g.doc.textures().nth(index).is_some(), "{what}");
        let base = m
            .pbr_metallic_roughness()
            .base_color_texture()
            .expect("colour map");
        assert_ne!(
            base.texture().index(),
            index,
            "{what}: lightmap as base colour"
        );
        assert_ne!(base.tex_coord(), 0, "{what}");
    }
    assert!(lightmapped >= 1, "{what}: no lightmapped material");
}

// ---------------------------------------------------------------------------------------
// A small glTF evaluator: animation sampling, node hierarchy, skin.

/// A node's local transform: translation, rotation, scale.
type Local = (Vec3, Quat, Vec3);

/// Node local transforms (T, R, S) after applying `anim` at `t` (None: the nodes' own).
fn node_locals(g: &Read, anim: Option<usize>, t: f32) -> Vec<Local> {
    let mut locals: Vec<Local> = g
        .doc
        .nodes()
        .map(|n| {
            let (tr, r, s) = n.transform().decomposed();
            (Vec3::from(tr), Quat::from_array(r), Vec3::from(s))
        })
        .collect();
    if let Some(a) = anim {
        play(g, &mut locals, a, t);
    }
    locals
}

/// Sets what animation `anim` keys at `t` on `locals`, leaving the rest as it was (like an
/// importer that keeps the last value set).
fn play(g: &Read, locals: &mut [Local], anim: usize, t: f32) {
    let a = g.doc.animations().nth(anim).unwrap();
    for ch in a.channels() {
        let reader = ch.reader(g.data());
        let times: Vec<f32> = reader.read_inputs().unwrap().collect();
        // Key interval and fraction, clamped at both ends (LINEAR).
        let (i, j, f) = match times.iter().position(|&k| k > t) {
            Some(0) => (0, 0, 0.0),
            None => (times.len() - 1, times.len() - 1, 0.0),
            Some(j) => (j - 1, j, (t - times[j - 1]) / (times[j] - times[j - 1])),
        };
        let node = ch.target().node().index();
        match reader.read_outputs().unwrap() {
            gltf::animation::util::ReadOutputs::Translations(v) => {
                let v: Vec<Vec3> = v.map(Vec3::from).collect();
                locals[node].0 = v[i].lerp(v[j], f);
            }
            gltf::animation::util::ReadOutputs::Rotations(v) => {
                let v: Vec<Quat> = v.into_f32().map(Quat::from_array).collect();
                locals[node].1 = v[i].slerp(v[j], f);
            }
            gltf::animation::util::ReadOutputs::Scales(v) => {
                let v: Vec<Vec3> = v.map(Vec3::from).collect();
                locals[node].2 = v[i].lerp(v[j], f);
            }
            gltf::animation::util::ReadOutputs::MorphTargetWeights(_) => {}
        }
    }
}

/// A channel's output values, each key's components as floats.
fn channel_outputs(g: &Read, ch: &gltf::animation::Channel) -> Vec<Vec<f32>> {
    use gltf::animation::util::ReadOutputs;
    match ch.reader(g.data()).read_outputs().unwrap() {
        ReadOutputs::Translations(v) | ReadOutputs::Scales(v) => v.map(|x| x.to_vec()).collect(),
        ReadOutputs::Rotations(v) => v.into_f32().map(|x| x.to_vec()).collect(),
        ReadOutputs::MorphTargetWeights(v) => v.into_f32().map(|x| vec![x]).collect(),
    }
}

/// World matrices of every node from the scene roots down.
fn world_matrices(g: &Read, locals: &[Local]) -> Vec<Mat4> {
    let mut world = vec![Mat4::IDENTITY; locals.len()];
    let scene = g.doc.default_scene().unwrap();
    let mut stack: Vec<(gltf::Node, Mat4)> = scene.nodes().map(|n| (n, Mat4::IDENTITY)).collect();
    while let Some((n, parent)) = stack.pop() {
        let (t, r, s) = locals[n.index()];
        let m = parent * Mat4::from_scale_rotation_translation(s, r, t);
        world[n.index()] = m;
        stack.extend(n.children().map(|c| (c, m)));
    }
    world
}

/// Skinned positions of every vertex of the skinned mesh, primitive by primitive.
fn evaluate_skinned(g: &Read, world: &[Mat4]) -> Vec<Vec3> {
    let node = g.doc.nodes().find(|n| n.skin().is_some()).unwrap();
    let skin = node.skin().unwrap();
    let ibms: Vec<Mat4> = skin
        .reader(g.data())
        .read_inverse_bind_matrices()
        .unwrap()
        .map(|m| Mat4::from_cols_array_2d(&m))
        .collect();
    let mesh_inverse = world[node.index()].inverse();
    let joint: Vec<Mat4> = skin
        .joints()
        .zip(&ibms)
        .map(|(j, ibm)| mesh_inverse * world[j.index()] * *ibm)
        .collect();
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for p in node.mesh().unwrap().primitives() {
        if !seen.insert(p.get(&gltf::Semantic::Positions).unwrap().index()) {
            continue;
        }
        let r = p.reader(g.data());
        let positions: Vec<Vec3> = r.read_positions().unwrap().map(Vec3::from).collect();
        let joints: Vec<[u16; 4]> = r.read_joints(0).unwrap().into_u16().collect();
        let weights: Vec<[f32; 4]> = r.read_weights(0).unwrap().into_f32().collect();
        for ((pos, js), ws) in positions.iter().zip(&joints).zip(&weights) {
            let mut acc = Vec3::ZERO;
            for k in 0..4 {
                acc += ws[k] * joint[usize::from(js[k])].transform_point3(*pos);
            }
            out.push(acc);
        }
    }
    out
}

/// tevscope's skinned positions at `t`, per exported vertex, in glTF's Y-up space: the
/// CPU skinning reference the GPU-skinning tests compare the renderer with.
fn tevscope_skinned(model: &LoadedModel, clip: usize, t: f32) -> Vec<Vec3> {
    let skin = model.assets.skin.as_ref().unwrap();
    let skinned = golden::cpu_skinned(
        &model.assets.cmdl,
        &skin.skeleton,
        &skin.cskr,
        &skin.clips[clip].1,
        t,
        &PoseOptions::default(),
    );
    let to_y_up = Mat4::from_quat(z_up_to_y_up());
    source_vertices(&model.assets.cmdl)
        .map(|v| {
            to_y_up.transform_point3(Vec3::from(
                skinned.positions.values[usize::from(v.position)],
            ))
        })
        .collect()
}

fn max_distance(a: &[Vec3], b: &[Vec3]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .map(|(x, y)| x.distance(*y))
        .fold(0.0, f32::max)
}

/// The skinned, animated characters: the demo worm and the conformance cube.
fn characters() -> Vec<String> {
    let mut characters = vec![format!("{DEMO}:worm_character")];
    if let Some(dir) = tevscope::testing::conformance_dir() {
        characters.push(format!(
            "{}:fixture_cube",
            dir.join("mp1_fixtures.pak").display()
        ));
    }
    characters
}

/// Each character's animations, posed at several times by the glTF evaluator (animated
/// file) and as the nodes' rest pose (`--time`), against tevscope's skinning.
#[test]
fn posed_characters_match_tevscope_skinning() {
    let characters = characters();
    let dir = out_dir("pose");
    let mut compared = 0;
    for spec in &characters {
        let (model, _) = load(&LoadRequest::new(spec)).unwrap();
        let skin = model.assets.skin.as_ref().unwrap();
        let animated = dir.join("animated.glb");
        let request = |output: &Path, time: Option<f32>, anim: Option<String>| {
            let anim = anim.clone();
            export(
                &ExportRequest {
                    file: spec,
                    output,
                    anim: anim.as_deref(),
                    set: 0,
                    time,
                    model: None,
                    skin: None,
                    skeleton: None,
                    texture_dirs: Vec::new(),
                    game: None,
                    bake: None,
                },
                false,
            )
            .unwrap()
        };
        request(&animated, None, None);
        let g = read(&animated);
        // The bind pose is the unskinned model.
        let bind = evaluate_skinned(&g, &world_matrices(&g, &node_locals(&g, None, 0.0)));
        let rest: Vec<Vec3> = {
            let to_y_up = Mat4::from_quat(z_up_to_y_up());
            let cmdl = &model.assets.cmdl;
            source_vertices(cmdl)
                .map(|v| {
                    to_y_up.transform_point3(Vec3::from(
                        cmdl.positions.values[usize::from(v.position)],
                    ))
                })
                .collect()
        };
        let d = max_distance(&bind, &rest);
        assert!(d <= 1e-4, "{spec}: bind pose off by {d}");
        for (ci, (name, clip)) in skin.clips.iter().enumerate() {
            // A looping clip plays its start again at exactly its duration (tevscope wraps
            // the time); a glTF player holds the last key there.
            let end = if clip.looping { 0.999 } else { 1.0 };
            let times = [0.0, 0.37, 0.81, end].map(|f| clip.duration * f);
            let mut moved = 0.0f32;
            for t in times {
                let want = tevscope_skinned(&model, ci, t);
                let got = evaluate_skinned(&g, &world_matrices(&g, &node_locals(&g, Some(ci), t)));
                let d = max_distance(&got, &want);
                assert!(d <= 1e-4, "{spec} {name} at {t}s: off by {d}");
                moved = moved.max(max_distance(&got, &bind));
                compared += 1;
            }
            // The clip must move something, or the comparison proves little.
            assert!(moved > 1e-2, "{spec} {name}: no motion");
            // --time: the same pose as the nodes' rest transforms (no animation played).
            let t = clip.duration * 0.37;
            let posed = dir.join(format!("posed{ci}.gltf"));
            request(&posed, Some(t), Some(name.clone()));
            let p = read(&posed);
            assert_eq!(
                p.doc.animations().count(),
                1,
                "{spec}: --anim {name} exports one"
            );
            let got = evaluate_skinned(&p, &world_matrices(&p, &node_locals(&p, None, 0.0)));
            let d = max_distance(&got, &tevscope_skinned(&model, ci, t));
            assert!(d <= 1e-4, "{spec} {name} --time {t}: off by {d}");
        }
    }
    assert!(compared >= 12, "only {compared} poses compared");
}

/// The exports as Blender 3.4's importer reads them, over the demo content and the
/// conformance models, characters (`mp1_fixtures.pak`'s ANCS, the cube with the loose
/// ANIMs) and rooms:
/// - (a) it premultiplies a texture's straight alpha, so each base colour texel of an
///   OPAQUE material must keep its decoded colour once premultiplied (the PNG has no alpha,
///   or 255); a blended or masked material's texture keeps its decoded RGBA exactly;
/// - (b) it keeps a node's last value where a clip has no key, so every clip, played after
///   the previous one, must set every node's local transform as it does from the rest
///   pose: every joint keyed in rotation, translation and scale.
#[test]
fn blender_style_import_keeps_colours_and_switches_clips() {
    use tevscope::image::RgbaImage;
    let cases = cases();
    let files = export_all(&cases, &out_dir("blender"));
    let (mut opaque_texels, mut under_alpha, mut alpha_texels, mut switches) = (0, 0, 0, 0);
    for (case, path) in cases.iter().zip(&files) {
        let what = &case.spec;
        let model = case.load();
        let g = read(path);
        // (a) Base colour textures.
        for m in g.doc.materials() {
            let Some(info) = m.pbr_metallic_roughness().base_color_texture() else {
                continue;
            };
            let image = info.texture().source();
            let name = image.name().unwrap();
            let id = name.split(' ').next().unwrap().trim_start_matches("0x");
            let id = u64::from_str_radix(id, 16).unwrap();
            let decoded = &model.assets.textures[&id];
            let gltf::image::Source::View { view, .. } = image.source() else {
                panic!("{what}: image {name} not embedded");
            };
            let bytes = &g.buffers[view.buffer().index()][view.offset()..][..view.length()];
            let png = RgbaImage::decode_png(bytes).unwrap();
            assert_eq!(
                (png.width, png.height),
                decoded.level_size(0),
                "{what} {name}"
            );
            let opaque = m.alpha_mode() == gltf::material::AlphaMode::Opaque;
            for (i, (p, d)) in png
                .pixels
                .chunks_exact(4)
                .zip(decoded.levels[0].chunks_exact(4))
                .enumerate()
            {
                if opaque {
                    let premultiplied = [0, 1, 2]
                        .map(|c| (f32::from(p[c]) * f32::from(p[3]) / 255.0).round() as u8);
                    assert_eq!(
                        premultiplied,
                        d[..3],
                        "{what}: opaque material's texture {name}, texel {i} (PNG {p:?})"
                    );
                    opaque_texels += 1;
                    under_alpha += usize::from(d[3] < 255 && d[..3] != [0, 0, 0]);
                } else {
                    assert_eq!(p, d, "{what}: texture {name}, texel {i} lost its alpha");
                    alpha_texels += 1;
                }
            }
        }
        // (b) Switching clips.
        switches += clip_switches(what, &g);
    }
    eprintln!(
        "{opaque_texels} opaque texels ({under_alpha} under alpha), {alpha_texels} with alpha, {switches} switches"
    );
    // Without these the checks prove little.
    assert!(
        under_alpha > 0,
        "no opaque material reads a coloured texel under alpha < 255 ({opaque_texels} texels)"
    );
    assert!(
        alpha_texels > 0,
        "no blended or masked material's texture checked"
    );
    assert!(switches >= 24, "only {switches} clip switches checked");
}

/// Plays each animation of `g` after the previous one (the last before the first) the way
/// an importer that keeps a node's last value does, and checks that every node's local
/// transform at several times equals playing the clip from the rest pose; also that every
/// skin joint is keyed in rotation, translation and scale. Returns the poses compared.
fn clip_switches(what: &str, g: &Read) -> usize {
    use gltf::animation::Property;
    let Some(skin) = g.doc.skins().next() else {
        return 0;
    };
    let n = g.doc.animations().count();
    let rest = node_locals(g, None, 0.0);
    let duration = |a: usize| {
        let anim = g.doc.animations().nth(a).unwrap();
        anim.channels()
            .map(|ch| ch.sampler().input().max().unwrap()[0].as_f64().unwrap() as f32)
            .fold(0.0, f32::max)
    };
    let mut switches = 0;
    for a in 0..n {
        let anim = g.doc.animations().nth(a).unwrap();
        let name = anim.name().unwrap_or_default();
        let targets: std::collections::HashSet<(usize, String)> = anim
            .channels()
            .map(|ch| {
                (
                    ch.target().node().index(),
                    format!("{:?}", ch.target().property()),
                )
            })
            .collect();
        for joint in skin.joints() {
            for path in [Property::Translation, Property::Rotation, Property::Scale] {
                assert!(
                    targets.contains(&(joint.index(), format!("{path:?}"))),
                    "{what} {name}: joint {:?} has no {path:?} key",
                    joint.name()
                );
            }
        }
        let previous = (a + n - 1) % n;
        let mut after_previous = rest.clone();
        play(g, &mut after_previous, previous, duration(previous));
        for f in [0.0, 0.37, 0.81, 1.0] {
            let t = duration(a) * f;
            let mut switched = after_previous.clone();
            play(g, &mut switched, a, t);
            let alone = node_locals(g, Some(a), t);
            for (node, (s, r)) in switched.iter().zip(&alone).enumerate() {
                let close = s.0.abs_diff_eq(r.0, 1e-6)
                    && s.1.abs_diff_eq(r.1, 1e-6)
                    && s.2.abs_diff_eq(r.2, 1e-6);
                assert!(
                    close,
                    "{what}: {name} at {t}s after clip {previous}: node {node} is {s:?}, alone {r:?}"
                );
            }
            switches += 1;
        }
    }
    switches
}

// ---------------------------------------------------------------------------------------
// Textures as PNG.

#[test]
fn texture_all_mips_and_extract_png() {
    use tevscope::cli::pak_txtr::texture;
    use tevscope::export::extract_to_folder as extract;
    use tevscope::formats::txtr::Txtr;
    use tevscope::image::RgbaImage;
    let dir = out_dir("png");
    let spec = format!("{DEMO}:tex_rgba8_wheel");
    let (res, _) = tevscope::load::source::open(&spec).unwrap();
    let t = Txtr::parse(&res.bytes, &res.label).unwrap();
    assert!(t.mip_count > 1, "the demo wheel has mips");
    let mips = dir.join("mips");
    texture(&spec, &mips, 0, true).unwrap();
    for k in 0..t.mip_count {
        let name = if k == 0 {
            "0xDE020009.png".to_string()
        } else {
            format!("0xDE020009.mip{k}.png")
        };
        let img = RgbaImage::load_png(mips.join(&name)).unwrap();
        let want = t.decode_level(k).unwrap();
        assert_eq!(img, want, "level {k}");
    }
    // A model writes every texture it uses.
    let model_dir = dir.join("model");
    texture(&format!("{DEMO}:showcase"), &model_dir, 0, false).unwrap();
    let (model, _) = load(&LoadRequest::new(&format!("{DEMO}:showcase"))).unwrap();
    let pngs = std::fs::read_dir(&model_dir).unwrap().count();
    assert_eq!(pngs, model.assets.textures.len());

    // extract --png: every TXTR as 0xID.png beside the raw resources.
    let extracted = dir.join("extract");
    let text = extract(Path::new(DEMO), &extracted, true).unwrap();
    let pak = Pak::parse(&std::fs::read(DEMO).unwrap(), DEMO).unwrap();
    let txtrs: Vec<_> = pak
        .entries()
        .iter()
        .filter(|e| &e.fourcc == b"TXTR")
        .collect();
    assert!(
        text.contains(&format!("{} textures as PNG", txtrs.len())),
        "{text}"
    );
    for e in txtrs {
        let stem = pak.entry_name(e);
        let stem = stem.trim_end_matches(".TXTR");
        let img = RgbaImage::load_png(extracted.join(format!("{stem}.png"))).unwrap();
        let raw = std::fs::read(extracted.join(format!("{stem}.TXTR"))).unwrap();
        let want = Txtr::parse(&raw, stem).unwrap().decode_level(0).unwrap();
        assert_eq!(img, want, "{stem}");
    }
}

/// MP2 scale channels: Prime's children do not inherit a parent's scale, glTF's do; the
/// export moves scale to joint nodes of its own and must still pose exactly at the keys.
#[test]
fn scaled_bones_pose_like_tevscope_at_the_keys() {
    use tevscope::export::gltf::{GltfOptions, build_gltf, to_glb};
    let (mut model, _) = load(&LoadRequest::new(&format!("{DEMO}:worm_character"))).unwrap();
    let skin = model.assets.skin.as_mut().unwrap();
    // Scale every bone that has children, differently at each key.
    let parents: Vec<u32> = skin
        .skeleton
        .bones()
        .iter()
        .filter(|b| !b.children.is_empty())
        .map(|b| b.id)
        .collect();
    assert!(parents.len() >= 2);
    let clip = &mut skin.clips[0].1;
    let keys = clip.key_frames.len();
    for (n, id) in parents.iter().enumerate() {
        let values: Vec<Vec3> = (0..keys)
            .map(|k| Vec3::new(1.0 + 0.05 * (k + n) as f32, 1.0, 0.8 + 0.03 * k as f32))
            .collect();
        match clip.channels.iter_mut().find(|c| c.bone_id == *id) {
            Some(c) => c.scale = Some(values),
            None => clip.channels.push(tevscope::anim::Channel {
                bone_id: *id,
                rotation: None,
                translation: None,
                scale: Some(values),
            }),
        }
    }
    let clip = clip.clone();
    let export = build_gltf(
        &model.assets.cpu_model().unwrap(),
        &GltfOptions {
            animations: Some(vec![0, 1]),
            name: "scaled".into(),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(
        export
            .warnings
            .iter()
            .any(|w| w.contains("scale sits on a child node")),
        "{:?}",
        export.warnings
    );
    let path = out_dir("scaled").join("scaled.glb");
    std::fs::write(&path, to_glb(&export).unwrap()).unwrap();
    let g = read(&path);
    let mut worst = 0.0f32;
    for &f in clip.key_frames.iter().step_by(3) {
        let t = f as f32 * clip.interval;
        let got = evaluate_skinned(&g, &world_matrices(&g, &node_locals(&g, Some(0), t)));
        let want = tevscope_skinned(&model, 0, t);
        worst = worst.max(max_distance(&got, &want));
    }
    assert!(worst <= 1e-4, "scaled pose off by {worst}");
    // The scale nodes (the joints) are keyed too: switching clips changes nothing.
    assert_eq!(clip_switches("scaled", &g), 8);
    if let Some(script) = validator() {
        let out = Command::new("node")
            .arg(script)
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

/// The GPU side: each character rendered by tevscope's scene, posed at T and skinned on
/// the GPU (the colour pass's palette and influences, read back per vertex), against the
/// exported glTF posed at T by the evaluator above.
#[test]
fn gpu_skinned_characters_match_the_exported_gltf() {
    let Some(ctx) = tevscope::render::RenderContext::for_tests() else {
        return;
    };
    let characters = characters();
    let dir = out_dir("gpu");
    let to_y_up = Mat4::from_quat(z_up_to_y_up());
    let mut compared = 0;
    for spec in &characters {
        let (model, _) = load(&LoadRequest::new(spec)).unwrap();
        let path = dir.join("character.glb");
        export(
            &ExportRequest {
                file: spec,
                output: &path,
                anim: None,
                set: 0,
                time: None,
                model: None,
                skin: None,
                skeleton: None,
                texture_dirs: Vec::new(),
                game: None,
                bake: None,
            },
            false,
        )
        .unwrap();
        let g = read(&path);
        let mut scene =
            tevscope::render::Scene::new(&ctx, model.assets.cpu_model().unwrap()).unwrap();
        let skin = model.assets.skin.as_ref().unwrap();
        for (ci, (name, clip)) in skin.clips.iter().enumerate() {
            scene.set_animation(Some(ci));
            let end = if clip.looping { 0.999 } else { 1.0 };
            for f in [0.0, 0.29, 0.63, end] {
                let t = clip.duration * f;
                scene.set_time(f64::from(t));
                let gpu: Vec<Vec3> = scene
                    .gpu_skinned_positions(&ctx)
                    .unwrap()
                    .expect("a skinned scene")
                    .into_iter()
                    .map(|p| to_y_up.transform_point3(Vec3::from(p)))
                    .collect();
                let gltf = evaluate_skinned(&g, &world_matrices(&g, &node_locals(&g, Some(ci), t)));
                let d = max_distance(&gpu, &gltf);
                assert!(d <= 1e-4, "{spec} {name} at {t}s: GPU vs glTF off by {d}");
                let cpu = tevscope_skinned(&model, ci, t);
                let d = max_distance(&gpu, &cpu);
                assert!(
                    d <= 1e-5,
                    "{spec} {name} at {t}s: GPU vs CPU skinning off by {d}"
                );
                compared += 1;
            }
        }
    }
    assert!(compared >= 12, "only {compared} poses compared");
}

/// `tevscope export` as a command: the `--json` report (a public interface), and clear
/// errors that leave nothing behind.
#[test]
fn export_command_line() {
    let dir = out_dir("cli");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tevscope"))
            .args(args)
            .output()
            .unwrap()
    };
    let spec = format!("{DEMO}:worm_character");
    let glb = dir.join("worm.glb");
    let out = run(&[
        "export",
        &spec,
        "-o",
        glb.to_str().unwrap(),
        "--anim",
        "curl",
        "--time",
        "0.5",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for field in [
        "input",
        "output",
        "primitives",
        "vertices",
        "triangles",
        "joints",
        "materials",
        "textures",
        "animations",
        "warnings",
    ] {
        assert!(report.get(field).is_some(), "no {field} in {report}");
    }
    assert_eq!(report["joints"], 6);
    let animations = report["animations"].as_array().unwrap();
    assert_eq!(animations.len(), 1);
    assert_eq!(animations[0]["name"], "curl");
    let duration = animations[0]["duration"].as_f64().unwrap();
    assert!((duration - 1.5).abs() < 1e-5, "{duration}");
    assert!(read(&glb).doc.animations().count() == 1);

    let text = run(&[
        "export",
        &spec,
        "-o",
        dir.join("all.gltf").to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("3 animations"), "{text}");
    assert!(dir.join("all.bin").is_file());

    let bad = dir.join("worm.obj");
    let out = run(&["export", &spec, "-o", bad.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains(".glb or .gltf"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = run(&[
        "export",
        &spec,
        "-o",
        glb.to_str().unwrap(),
        "--anim",
        "nope",
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("wave, curl"));
    // Only what was asked for was written (no temporary files, nothing for the failures).
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["all.bin", "all.gltf", "worm.glb"]);
}
