//! The built-in demo content (`assets/`): deterministic, parses with the project's own
//! parsers, and contains what the README promises.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tevscope::anim::clip::Clip;
use tevscope::demo::{self, Demo};
use tevscope::formats::Game;
use tevscope::formats::ancs::{Ancs, AnimResources};
use tevscope::formats::anim::Anim;
use tevscope::formats::cinf::Cinf;
use tevscope::formats::cmdl::Cmdl;
use tevscope::formats::cskr::Cskr;
use tevscope::formats::mrea::parse_mrea;
use tevscope::formats::pak::Pak;
use tevscope::formats::txtr::{TexFormat, Txtr};
use tevscope::gx::lights::PrimeLightType;

fn assets_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets")
}

fn built() -> Demo {
    demo::build().expect("demo builds")
}

/// The PAK of a build and its parsed table.
fn pak(demo: &Demo) -> (Vec<u8>, Pak) {
    let bytes = demo.files[0].1.clone();
    assert_eq!(demo.files[0].0, demo::PAK_FILE);
    let pak = Pak::parse(&bytes, demo::PAK_FILE).expect("PAK parses");
    (bytes, pak)
}

fn member(bytes: &[u8], pak: &Pak, name: &str) -> (Vec<u8>, [u8; 4], u64) {
    let entry = pak
        .find_by_name(name)
        .unwrap_or_else(|| panic!("{name} is not named in the PAK"));
    (
        pak.read(bytes, entry).expect("member reads"),
        entry.fourcc,
        entry.id,
    )
}

#[test]
fn rebuild_matches_committed_assets_byte_for_byte() {
    let dir = std::env::temp_dir().join(format!("tevscope-demo-test-{}", std::process::id()));
    let written = demo::write_to(&dir).expect("demo writes");
    let committed = assets_dir();
    assert_eq!(written.len(), 4);
    for path in &written {
        let name = path.file_name().expect("file name");
        let fresh = std::fs::read(path).expect("written file");
        let old = std::fs::read(committed.join(name)).unwrap_or_else(|e| {
            panic!(
                "assets/{} is missing ({e}); run `cargo run --example make_demo`",
                name.to_string_lossy()
            )
        });
        assert!(
            fresh == old,
            "assets/{} differs from a rebuild; run `cargo run --example make_demo` and commit",
            name.to_string_lossy()
        );
    }
    std::fs::remove_dir_all(&dir).ok();
    // A second in-memory build is identical too (no hidden state, no hash-order effects).
    let (a, b) = (built(), built());
    assert_eq!(a.files, b.files);
    let total: usize = a.files.iter().map(|f| f.1.len()).sum();
    assert!(
        total < 1 << 20,
        "demo content is {total} bytes; keep it well under 2 MB"
    );
}

#[test]
fn every_resource_parses_without_warnings() {
    let demo = built();
    let (bytes, pak) = pak(&demo);
    assert_eq!(pak.entries().len(), demo.resources.len());
    assert_eq!(pak.named().len(), demo.resources.len());
    for r in &demo.resources {
        let (data, fourcc, id) = member(&bytes, &pak, &r.name);
        assert_eq!((fourcc, id), (r.fourcc, u64::from(r.id)), "{}", r.name);
        assert!(
            data.starts_with(&r.bytes),
            "{}: stored bytes differ",
            r.name
        );
        let label = r.name.as_str();
        match &fourcc {
            b"TXTR" => {
                let t = Txtr::parse(&data, label).expect("TXTR parses");
                assert_eq!(t.complete_levels(), t.mip_count, "{label}");
                for k in 0..t.mip_count {
                    t.decode_level(k).expect("level decodes");
                }
            }
            b"CMDL" => {
                let c = Cmdl::parse(&data, label).expect("CMDL parses");
                assert!(c.warnings.is_empty(), "{label}: {:?}", c.warnings);
                c.material_sets[0]
                    .gx_materials()
                    .expect("materials convert to GX");
            }
            b"CSKR" => {
                let s = Cskr::parse(&data, label, Some(Game::Mp1)).expect("CSKR parses");
                assert!(s.warnings.is_empty(), "{label}: {:?}", s.warnings);
            }
            b"CINF" => {
                let c = Cinf::parse(&data, label, Some(Game::Mp1)).expect("CINF parses");
                assert!(c.warnings.is_empty(), "{label}: {:?}", c.warnings);
            }
            b"ANIM" => {
                let a = Anim::parse(&data, label, Some(Game::Mp1)).expect("ANIM parses");
                assert!(a.warnings().is_empty(), "{label}: {:?}", a.warnings());
                Clip::from_anim(&a).expect("ANIM decodes to a clip");
            }
            b"ANCS" => {
                let a = Ancs::parse(&data, label, Some(Game::Mp1)).expect("ANCS parses");
                assert!(a.warnings.is_empty(), "{label}: {:?}", a.warnings);
            }
            b"MREA" => {
                let m = parse_mrea(&data, label).expect("MREA parses");
                assert!(m.warnings.is_empty(), "{label}: {:?}", m.warnings);
            }
            b"MLVL" => {
                let m = tevscope::formats::mlvl::Mlvl::parse(&data, label).expect("MLVL parses");
                assert!(m.warnings.is_empty(), "{label}: {:?}", m.warnings);
            }
            b"STRG" => {
                let s = tevscope::formats::strg::Strg::parse(&data, label).expect("STRG parses");
                assert!(s.warnings.is_empty(), "{label}: {:?}", s.warnings);
            }
            other => panic!("unexpected type {}", String::from_utf8_lossy(other)),
        }
    }
    // The loose light set is the PAK's.
    let loose = &demo.files[1];
    assert_eq!(loose.0, demo::LIGHTS_FILE);
    assert!(member(&bytes, &pak, "lights").0.starts_with(&loose.1));
}

#[test]
fn the_demo_world_names_its_rooms() {
    let listing = tevscope::load::worlds::list_worlds(
        std::path::Path::new(tevscope::load::builtin::DEMO_PAK),
        Some("GERM"),
    )
    .expect("worlds");
    let w = &listing.worlds[0];
    assert_eq!(w.name, "Demowelt");
    let rooms: Vec<(&str, &str)> = w
        .areas
        .iter()
        .map(|a| (a.name.as_str(), a.spec.as_str()))
        .collect();
    assert_eq!(
        rooms,
        [
            ("Demoraum", "builtin:demo.pak:0xDE070002.MREA"),
            ("Lichtset", "builtin:demo.pak:0xDE070001.MREA")
        ]
    );
    assert!(w.warnings.is_empty(), "{:?}", w.warnings);
}

#[test]
fn pak_names_the_expected_resources() {
    let demo = built();
    let (_, pak) = pak(&demo);
    let names: BTreeSet<&str> = pak.named().iter().map(|n| n.name.as_str()).collect();
    for expected in [
        "showcase",
        "worm",
        "worm_skin",
        "worm_skeleton",
        "worm_wave",
        "worm_curl",
        "worm_character",
        "lights",
        "tex_i4_checker",
        "tex_cmpr_tiles",
        "tex_digits_h",
        "tex_digits_v",
        "tex_env_sky",
        "tex_lightmap",
        "room",
        "tex_room_lightmap",
        "tex_room_tiles",
        "tex_water",
    ] {
        assert!(
            names.contains(expected),
            "{expected} missing from {names:?}"
        );
    }
    // Names are unique, so `demo.pak:NAME` is unambiguous.
    assert_eq!(names.len(), pak.named().len());
}

#[test]
fn character_set_resolves_to_the_pak() {
    let demo = built();
    let (bytes, pak) = pak(&demo);
    let (data, _, _) = member(&bytes, &pak, "worm_character");
    let ancs = Ancs::parse(&data, "worm_character", Some(Game::Mp1)).expect("ANCS");
    assert_eq!(ancs.characters.len(), 1);
    let c = &ancs.characters[0];
    let find = |id: u32, fourcc: &[u8; 4]| {
        let e = pak
            .find(u64::from(id), Some(*fourcc))
            .unwrap_or_else(|| panic!("{id:#x} {fourcc:?} not in the PAK"));
        pak.read(&bytes, e).expect("reads")
    };
    let cmdl = Cmdl::parse(&find(c.model_id, b"CMDL"), "worm").expect("CMDL");
    let cskr = Cskr::parse(&find(c.skin_id, b"CSKR"), "skin", Some(Game::Mp1)).expect("CSKR");
    let cinf = Cinf::parse(&find(c.skeleton_id, b"CINF"), "cinf", Some(Game::Mp1)).expect("CINF");
    // The skin covers exactly the positions the surfaces use (the array itself counts the
    // section's padding elements too), with ≤ 3 weights summing to 1 on skeleton bones.
    let used = cmdl
        .surfaces
        .iter()
        .flat_map(|s| s.mesh.vertices.iter().map(|v| u64::from(v.position) + 1))
        .max()
        .expect("vertices");
    assert_eq!(cskr.total_vertex_count(), used);
    assert!(cmdl.positions.values.len() as u64 >= used);
    cskr.check_bones(|id| cinf.has_bone(id))
        .expect("skin bones exist");
    for g in &cskr.groups {
        let sum: f32 = g.weights.iter().map(|w| w.weight).sum();
        assert!((sum - 1.0).abs() < 1e-5 && g.weights.len() <= 3, "{g:?}");
    }
    assert!(
        cskr.groups.iter().any(|g| g.weights.len() == 2),
        "weights blend across joints"
    );
    assert!(cinf.bones.len() >= 5 && cinf.bone_names.len() == cinf.bones.len());
    // Named Play animations resolve to ANIMs in the PAK, one compressed and one not.
    let names: Vec<&str> = ancs
        .animation_set
        .animations
        .iter()
        .map(|a| a.name.as_str())
        .collect();
    assert!(
        names.contains(&"wave") && names.contains(&"curl"),
        "{names:?}"
    );
    let mut formats = BTreeSet::new();
    for a in &ancs.animation_set.animations {
        for p in a.meta.primitives() {
            let data = find(p.anim_id as u32, b"ANIM");
            let anim = Anim::parse(&data, &p.name, Some(Game::Mp1)).expect("ANIM");
            let clip = Clip::from_anim(&anim).expect("clip");
            assert!(clip.channels.iter().all(|ch| cinf.has_bone(ch.bone_id)));
            formats.insert(match &anim {
                Anim::Compressed(c) => {
                    assert!(c.looping != 0, "the wave loops");
                    assert!(
                        (0..c.frame_count()).any(|f| !c.is_stored(f)),
                        "the encoder dropped frames the decoder must interpolate"
                    );
                    2
                }
                Anim::Uncompressed(_) => 0,
                Anim::Mp3Bitstream(_) => 1,
            });
        }
    }
    assert_eq!(formats, BTreeSet::from([0, 2]));
    let AnimResources::Mp1(pairs) = &ancs.animation_set.resources else {
        panic!("MP1 resources expected");
    };
    for (anim, _) in pairs {
        find(*anim, b"ANIM");
    }
}

fn showcase(demo: &Demo) -> Cmdl {
    let (bytes, pak) = pak(demo);
    Cmdl::parse(&member(&bytes, &pak, "showcase").0, "showcase").expect("showcase")
}

#[test]
fn every_texture_format_is_present_and_used() {
    let demo = built();
    let (bytes, pak) = pak(&demo);
    let mut formats = BTreeSet::new();
    for e in pak.entries().iter().filter(|e| &e.fourcc == b"TXTR") {
        let t = Txtr::parse(&pak.read(&bytes, e).expect("reads"), "t").expect("TXTR");
        formats.insert(t.format.id());
    }
    let all: BTreeSet<u32> = TexFormat::ALL.iter().map(|f| f.id()).collect();
    assert_eq!(formats, all);
    // Every texture the showcase binds is in the PAK.
    let cmdl = showcase(&demo);
    for id in &cmdl.material_sets[0].texture_ids {
        assert!(
            pak.find(u64::from(*id), Some(*b"TXTR")).is_some(),
            "{id:#x}"
        );
    }
}

#[test]
fn showcase_covers_uv_modes_blending_and_tev_features() {
    let demo = built();
    let cmdl = showcase(&demo);
    let materials = &cmdl.material_sets[0].materials;
    assert_eq!(materials.len(), demo.tiles.len());
    assert_eq!(cmdl.surfaces.len(), demo.tiles.len());
    let modes: BTreeSet<u32> = materials
        .iter()
        .flat_map(|m| m.uv_animations.iter().map(|a| a.mode))
        .collect();
    assert_eq!(modes, (0..=7).collect());
    let gx = cmdl.material_sets[0].gx_materials().expect("GX materials");
    let has = |f: &dyn Fn(&tevscope::gx::Material) -> bool| gx.iter().any(f);
    use tevscope::gx::{BlendFactor as B, ColorInput, CombineKind, TevReg, flags};
    assert!(has(&|m| m.blend.src == B::One
        && m.blend.dst == B::One
        && m.depth_sorted));
    assert!(has(&|m| m.blend.src == B::SrcAlpha
        && m.blend.dst == B::InvSrcAlpha
        && m.flags & flags::TRANSPARENT != 0));
    assert!(has(&|m| m.flags & flags::PUNCHTHROUGH != 0
        && m.alpha_test == tevscope::gx::AlphaTest::PUNCHTHROUGH));
    assert!(has(&|m| m.konst_count == 4));
    assert!(has(&|m| m.stages.len() >= 4
        && [TevReg::C0, TevReg::C2]
            .iter()
            .all(|r| m.stages.iter().any(|s| s.color_op.out_reg == *r))
        && m.stages
            .iter()
            .any(|s| s.color_in.contains(&ColorInput::C1))));
    assert!(has(&|m| m.stages.iter().any(|s| matches!(
        s.color_op.kind(),
        CombineKind::Compare { .. }
    ))));
    // Lightmap: short-UV flag, the short-UV section, TEX0 read from it, × C1.
    assert!(cmdl.short_uvs.is_some());
    let lm = demo
        .tiles
        .iter()
        .find(|t| t.name == "lightmap")
        .expect("lightmap tile");
    let m = &gx[lm.material_index as usize];
    assert!(m.flags & flags::SHORT_UV != 0);
    assert!(m.stages[0].color_in.contains(&ColorInput::C1));
    let surface = &cmdl.surfaces[lm.material_index as usize];
    assert_eq!(
        surface.mesh.layout.tex0_source,
        tevscope::formats::cmdl::UvSource::Short
    );
    // Vertex colours reach a surface.
    assert!(!cmdl.colors.values.is_empty());
    // The README lists every material.
    let readme = String::from_utf8(demo.files[2].1.clone()).expect("UTF-8");
    for t in &demo.tiles {
        assert!(
            readme.contains(&format!("`{}`", t.name)),
            "{} not in README",
            t.name
        );
    }
}

#[test]
fn light_set_has_every_light_type() {
    let demo = built();
    let m = parse_mrea(&demo.files[1].1, demo::LIGHTS_FILE).expect("MREA");
    let layers = m.light_layers();
    assert_eq!(layers.len(), 2);
    let kinds: Vec<PrimeLightType> = layers[0].iter().map(|l| l.kind()).collect();
    for k in [
        PrimeLightType::LocalAmbient,
        PrimeLightType::Directional,
        PrimeLightType::Spot,
        PrimeLightType::Custom,
    ] {
        assert!(kinds.contains(&k), "{k:?} missing from {kinds:?}");
    }
    for l in &layers[0] {
        assert!(l.color.iter().all(|c| (0.0..=1.0).contains(c)) && l.brightness > 0.0);
    }
}

#[test]
fn every_material_compiles_to_valid_wgsl() {
    use tevscope::gx::key::{ShaderKey, UberKey};
    use tevscope::gx::tev::{TevOptions, TevProgram};
    use tevscope::gx::wgsl;
    let demo = built();
    let (bytes, pak) = pak(&demo);
    for name in ["showcase", "worm"] {
        let cmdl = Cmdl::parse(&member(&bytes, &pak, name).0, name).expect("CMDL");
        for (i, m) in cmdl.material_sets[0]
            .gx_materials()
            .expect("GX materials")
            .iter()
            .enumerate()
        {
            let program = TevProgram::from_material(m, &TevOptions::default());
            wgsl::validate(wgsl::generate(&ShaderKey::new(m, &program)))
                .unwrap_or_else(|e| panic!("{name} material {i}: specialized WGSL: {e}"));
            wgsl::validate(wgsl::generate_uber(&UberKey::new(m, &program)))
                .unwrap_or_else(|e| panic!("{name} material {i}: uber WGSL: {e}"));
        }
    }
}

#[test]
fn skinned_worm_bends_smoothly_and_keeps_its_tail_planted() {
    use glam::Vec3;
    use tevscope::anim::pose::{ClipBinding, Pose, PoseOptions};
    use tevscope::anim::skeleton::Skeleton;
    use tevscope::anim::skinning::{SkinBinding, SkinOptions, skin_positions};
    let demo = built();
    let (bytes, pak) = pak(&demo);
    let read = |n: &str| member(&bytes, &pak, n).0;
    let cmdl = Cmdl::parse(&read("worm"), "worm").expect("CMDL");
    let cskr = Cskr::parse(&read("worm_skin"), "skin", Some(Game::Mp1)).expect("CSKR");
    let cinf = Cinf::parse(&read("worm_skeleton"), "cinf", Some(Game::Mp1)).expect("CINF");
    let skeleton = Skeleton::from_cinf(&cinf).expect("skeleton");
    let positions: Vec<Vec3> = cmdl
        .positions
        .values
        .iter()
        .map(|&p| Vec3::from(p))
        .collect();
    let binding = SkinBinding::new(
        &cskr,
        &skeleton,
        positions.len(),
        cmdl.normals.len(),
        SkinOptions::default(),
    )
    .expect("skin binds");
    let anim = Anim::parse(&read("worm_wave"), "wave", Some(Game::Mp1)).expect("ANIM");
    let clip = Clip::from_anim(&anim).expect("clip");
    let clip_binding = ClipBinding::new(&clip, &skeleton).expect("clip binds");
    let options = PoseOptions::default();
    let mesh = &cmdl.surfaces[0].mesh;
    let edge_lengths = |p: &[Vec3]| -> Vec<f32> {
        mesh.triangles
            .iter()
            .flat_map(|t| {
                let v = t.map(|i| p[mesh.vertices[i as usize].position as usize]);
                [
                    v[0].distance(v[1]),
                    v[1].distance(v[2]),
                    v[2].distance(v[0]),
                ]
            })
            .collect()
    };
    let rest = edge_lengths(&positions);
    let mut pose = Pose::bind(&skeleton, &options);
    let mut max_head_offset = 0.0f32;
    for step in 0..8 {
        let t = step as f32 * 0.25;
        pose.sample(&skeleton, &clip, &clip_binding, t, &options);
        let palette = pose.skin_palette(&skeleton, &options);
        let skinned = skin_positions(&binding, &palette, &positions);
        // The tail ring (bone 3 only, not animated) does not move.
        assert!(skinned[0].distance(positions[0]) < 1e-5, "t {t}");
        // No triangle tears or collapses: every edge keeps a length near its rest length.
        for (e, (a, b)) in edge_lengths(&skinned).iter().zip(&rest).enumerate() {
            assert!(
                *a < b * 1.6 + 0.02 && *a > b * 0.4 - 0.02,
                "t {t} edge {e}: {a} vs {b}"
            );
        }
        let used = cskr.total_vertex_count() as usize;
        max_head_offset = max_head_offset.max(skinned[used - 1].distance(positions[used - 1]));
    }
    assert!(max_head_offset > 0.5, "the head sways ({max_head_offset})");
}

#[test]
fn cli_sources_address_committed_assets_by_name() {
    use tevscope::cli;
    let pak = assets_dir().join(demo::PAK_FILE);
    let spec = |name: &str| format!("{}:{name}", pak.display());
    let (lights, _) = tevscope::load::source::open(&spec("lights")).expect("demo.pak:lights opens");
    let text = cli::vertex::info_mrea(&lights.bytes, "lights", false).expect("info MREA");
    for kind in ["local_ambient", "directional", "spot", "custom"] {
        assert!(text.contains(kind), "{kind} missing from:\n{text}");
    }
    let loose = assets_dir().join(demo::LIGHTS_FILE);
    let (loose, _) =
        tevscope::load::source::open(&loose.display().to_string()).expect("loose MREA opens");
    assert!(lights.bytes.starts_with(&loose.bytes));
    let (showcase, _) =
        tevscope::load::source::open(&spec("showcase")).expect("demo.pak:showcase opens");
    let text = cli::cmdl::info_cmdl(&showcase.bytes, "showcase", false).expect("info CMDL");
    let materials = format!("{} material(s)", built().tiles.len());
    assert!(text.contains(&materials), "{text}");
    let (ancs, _) = tevscope::load::source::open(&spec("worm_character")).expect("ANCS opens");
    let text = cli::anim::info_ancs(&ancs.bytes, "worm", None, false).expect("info ANCS");
    assert!(
        text.contains("Play(0xDE050001") && text.contains("Play(0xDE050002"),
        "{text}"
    );
}

/// The CPU TEV reference confirms that showcase materials compute what the README says.
#[test]
fn showcase_programs_compute_what_the_readme_says() {
    use tevscope::gx::tev::{PixelInputs, TevOptions, TevProgram, TevTrace, evaluate};
    let demo = built();
    let cmdl = showcase(&demo);
    let gx = cmdl.material_sets[0].gx_materials().expect("GX materials");
    let material = |name: &str| {
        let t = demo.tiles.iter().find(|t| t.name == name).expect("tile");
        gx[t.material_index as usize].clone()
    };
    let eval = |name: &str, texels: &[[u8; 4]], raster: [u8; 4]| -> TevTrace {
        let program = TevProgram::from_material(&material(name), &TevOptions::default());
        let inputs =
            PixelInputs::sampled(&program, [raster, [0; 4]], |map, _| texels[map as usize]);
        evaluate(&program, &inputs)
    };
    let white = [255; 4];
    // Compare: yellow only where the texel's red exceeds one half.
    let hi = eval("tev_compare", &[[200, 10, 64, 255]], white).rgba;
    let lo = eval("tev_compare", &[[50, 10, 64, 255]], white).rgba;
    assert!(hi[0] == 255 && hi[1] >= 230, "{hi:?}");
    assert!(lo[0] < 30 && lo[1] < 10, "{lo:?}");
    // Four stages: rings select between the checker (via C0) and K0 orange; × C1 × 2.
    let checker_only = eval("tev_four_stage", &[[64, 64, 64, 255], [0; 4]], white).rgba;
    let orange = eval("tev_four_stage", &[[64, 64, 64, 255], white], white).rgba;
    assert_eq!(&checker_only[..3], &[128, 128, 128]);
    assert!(orange[0] == 255 && orange[2] < 60, "{orange:?}");
    // Konst colours: K0 where the texture is white, K1 where it is black, plus K2.g; alpha K3.a.
    let k0 = eval("konst_colors", &[white], white);
    let k1 = eval("konst_colors", &[[0, 0, 0, 255]], white);
    assert_eq!(k0.rgba, [255, 80, 200, 200]);
    assert_eq!(k1.rgba, [60, 200, 210, 200]);
    // Punchthrough: alpha < 64 is discarded.
    assert!(!eval("punchthrough", &[[255, 255, 255, 0]], white).alpha_pass);
    assert!(eval("punchthrough", &[white], white).alpha_pass);
    // Lightmap × C1 (white by default) × diffuse × 2, no raster colour involved.
    let lit = eval(
        "lightmap",
        &[[128, 64, 0, 255], [255, 255, 255, 255]],
        [0; 4],
    )
    .rgba;
    assert!(
        lit[0] == 255 && (120..=135).contains(&lit[1]) && lit[2] == 0,
        "{lit:?}"
    );
}

/// The demo is compiled into the binary: run from another folder, with the source tree's
/// `assets/` hidden (an empty folder bind-mounted over it in a private mount namespace),
/// `tevscope` still lists, describes and exports it.
#[test]
fn the_binary_carries_its_demo_when_the_assets_folder_is_gone() {
    let bin = env!("CARGO_BIN_EXE_tevscope");
    let scratch =
        std::env::temp_dir().join(format!("tevscope-builtin-demo-{}", std::process::id()));
    let (empty, out) = (scratch.join("empty"), scratch.join("out"));
    std::fs::create_dir_all(&empty).expect("scratch folder");
    std::fs::create_dir_all(&out).expect("scratch folder");
    let probe = std::process::Command::new("unshare")
        .args(["-m", "--propagation", "private", "true"])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        eprintln!(
            "SKIPPED: hiding assets/ needs `unshare -m` (root, or a user namespace); \
             the demo's bytes are still checked by load::builtin's unit test"
        );
        return;
    }
    let assets = assets_dir();
    let glb = out.join("worm.glb");
    let script = format!(
        "mount --bind '{empty}' '{assets}' && test ! -e '{assets}/demo.pak' && cd '{empty}' \
         && '{bin}' info builtin:demo.pak && '{bin}' info --json builtin:demo.pak:showcase \
         && '{bin}' export builtin:demo.pak:worm_character -o '{glb}'",
        empty = empty.display(),
        assets = assets.display(),
        glb = glb.display(),
    );
    let run = std::process::Command::new("unshare")
        .args(["-m", "--propagation", "private", "sh", "-c", &script])
        .output()
        .expect("unshare runs");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(
        stdout.contains("showcase"),
        "the PAK listing names the showcase: {stdout}"
    );
    assert!(
        stdout.contains("\"material_sets\""),
        "the showcase's report: {stdout}"
    );
    let glb = std::fs::read(&glb).expect("the export was written");
    assert_eq!(&glb[..4], b"glTF");
    // The real assets are back outside the namespace.
    assert!(assets.join("demo.pak").is_file());
    std::fs::remove_dir_all(&scratch).ok();
}
