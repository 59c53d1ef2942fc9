//! Fuzz harness bodies, one per parser family. The cargo-fuzz targets in `fuzz/` and the
//! stable replay test (`tests/fuzz_regressions.rs`) call these same functions, so a crash
//! found by the fuzzer replays bit for bit under `cargo test`.
//!
//! Each takes arbitrary bytes, parses them, and then does what a caller of the parser
//! does next (decompress, decode, convert, generate shaders, build clips, pose), because
//! blow-ups hide there as often as in the parser. Errors are fine; panics, hangs and huge
//! allocations are the findings. The deliberate panics are the oracles: a material that
//! converts to `gx` must generate WGSL that naga accepts; a surface's indices must lie
//! inside its vertices; a parsed file written back unchanged must reproduce its input.

use std::collections::HashSet;
use std::sync::Mutex;

use glam::{Quat, Vec3};

use crate::anim::{
    BankedSkin, Channel, Clip, ClipBinding, ClipKind, MP3_NORMAL_MODE, NormalMode, Pose,
    PoseOptions, Skeleton, SkinBinding, SkinOptions, SlerpMode, bake, skin_normals, skin_positions,
    skin_vertex_normals, skin_vertex_positions,
};
use crate::formats::Game;
use crate::formats::ancs::Ancs;
use crate::formats::anim::{Anim, ChannelMapIndexing};
use crate::formats::char_mp3::CharMp3;
use crate::formats::cinf::{Cinf, CinfBone};
use crate::formats::cmdl::Cmdl;
use crate::formats::cskr::Cskr;
use crate::formats::mlvl::Mlvl;
use crate::formats::mp3_material::{Mp3Material, Mp3Materials, SetLayout};
use crate::formats::mrea;
use crate::formats::pak::Pak;
use crate::formats::sand::Sand;
use crate::formats::strg::{Strg, strip_tags};
use crate::formats::txtr::Txtr;
use crate::gx::key::{ShaderKey, UberKey};
use crate::gx::mp3::SynthesisOptions;
use crate::gx::tev::{
    AlphaSubRounding, DepthWriteRule, FinalRegister, MissingTexture, TevOptions, TevProgram,
};
use crate::gx::types::Material;
use crate::gx::wgsl;
use crate::load::area::{AreaView, area_model, mp3_area_model};
use crate::schema::cmdl_mp3::Mp3MaterialInfo;

const FILE: &str = "fuzz";

/// The game hints a container may pass: none (the parser detects), MP1, MP2.
const GAMES: [Option<Game>; 3] = [None, Some(Game::Mp1), Some(Game::Mp2)];

/// A harness: arbitrary bytes in, findings out as panics (or as the caller's limits).
pub type Harness = fn(&[u8]);

/// The harness of each fuzz target, by target name.
pub const TARGETS: [(&str, Harness); 18] = [
    ("pak", pak),
    ("pak_ranged", pak_ranged),
    ("cmdl", cmdl),
    ("cmdl_shaders", cmdl_shaders),
    ("mp3_material", mp3_material),
    ("mp3_material_shaders", mp3_material_shaders),
    ("txtr", txtr),
    ("anim", anim),
    ("ancs_char", ancs_char),
    ("mrea", mrea),
    ("mp3_mrea", mp3_mrea),
    ("mp3_mrea_shaders", mp3_mrea_shaders),
    ("mlvl", mlvl),
    ("strg", strg),
    ("mp3_cskr", mp3_cskr),
    ("mp3_cinf", mp3_cinf),
    ("mp3_anim", mp3_anim),
    ("sand", sand),
];

/// A PAK read by ranges (as inside a disc image): the tables read through
/// `PakArchive::from_ranges` must equal `Pak::parse` of the whole bytes (both fail or both
/// agree), every entry must read the same either way, and its table-only report
/// (`info DISC:FILE.pak`) must not panic.
pub fn pak_ranged(data: &[u8]) {
    struct Bytes(Vec<u8>);
    impl crate::formats::pak::RangeSource for Bytes {
        fn len(&self) -> u64 {
            self.0.len() as u64
        }
        fn read_range(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
            let start = usize::try_from(offset).map_err(std::io::Error::other)?;
            self.0
                .get(start..start.saturating_add(len))
                .map(<[u8]>::to_vec)
                .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::UnexpectedEof))
        }
    }
    let ranged = crate::formats::pak::PakArchive::from_ranges(
        std::sync::Arc::new(Bytes(data.to_vec())),
        FILE,
    );
    let whole = Pak::parse(data, FILE);
    let (Ok(ranged), Ok(whole)) = (ranged, whole) else {
        return;
    };
    assert_eq!(
        ranged.pak.entries(),
        whole.entries(),
        "ranged and whole tables differ"
    );
    assert_eq!(ranged.pak.game, whole.game, "ranged and whole game differ");
    for e in whole.entries() {
        let a = ranged.read(e).ok();
        let b = whole.read(data, e).ok();
        assert_eq!(a, b, "entry {} reads differently by ranges", e.index);
        // The header-only description agrees with the whole one where both read.
        if let (Ok(h), Ok(w)) = (
            ranged
                .stored_prefix(e, crate::formats::pak::PAYLOAD_HEADER)
                .and_then(|p| whole.payload_header_info(&p, e)),
            whole.payload_info(data, e),
        ) {
            assert_eq!(h.compression, w.compression, "entry {}", e.index);
            assert_eq!(h.declared_size, w.declared_size, "entry {}", e.index);
        }
    }
    let _ = crate::schema::pak::PakReport::from_tables(&ranged, None);
}

/// PAK: parse, then read (decompress) every entry.
pub fn pak(data: &[u8]) {
    let Ok(p) = Pak::parse(data, FILE) else {
        return;
    };
    for e in p.entries() {
        let _ = p.payload_info(data, e);
        let _ = p.read(data, e);
    }
}

/// CMDL: [`cmdl_materials`], then every material's TEV programs and shader keys (no
/// generation: [`cmdl_shaders`] does that, slower).
pub fn cmdl(data: &[u8]) {
    for m in cmdl_materials(data) {
        shader_keys(&m);
    }
}

/// CMDL: [`cmdl_materials`], then both WGSL generators on every material, validated with
/// naga.
pub fn cmdl_shaders(data: &[u8]) {
    for m in cmdl_materials(data) {
        shaders_validate(&m);
    }
}

/// CMDL: parse; check that writing it back reproduces the input; then [`model_materials`].
pub fn cmdl_materials(data: &[u8]) -> Vec<Material> {
    let Ok(c) = Cmdl::parse(data, FILE) else {
        return Vec::new();
    };
    // Saving an unedited model reproduces it (documented on `Cmdl::to_bytes`).
    assert!(
        c.to_bytes() == data,
        "CMDL written back differs from its input"
    );
    model_materials(&c)
}

/// Expands every surface to resolved vertices and checks its triangles and lines index
/// them; converts every material of every set to `gx` (the ones that convert are
/// returned).
fn model_materials(c: &Cmdl) -> Vec<Material> {
    for (i, s) in c.surfaces.iter().enumerate() {
        let vertices = c.resolved_vertices(s);
        let _ = c.surface_aabb(s);
        for index in s
            .mesh
            .triangles
            .iter()
            .flatten()
            .chain(s.mesh.lines.iter().flatten())
        {
            assert!(
                (*index as usize) < vertices.len(),
                "surface {i}: index {index} past its {} vertices",
                vertices.len()
            );
        }
    }
    let mut out = Vec::new();
    for set in &c.material_sets {
        for m in &set.materials {
            let _ = m.problems(c.game(), Some(set.texture_ids.len()));
            if let Ok(g) = m.to_gx() {
                out.push(g);
            }
        }
    }
    for set in c.mp3_materials.iter().flat_map(|m| &m.sets) {
        for m in &set.materials {
            out.extend(mp3_programs(m));
        }
    }
    out
}

/// An MP3 material's synthesised programs (the draw and any second draw), after checking
/// that its `info --json` form reads back to the same material.
fn mp3_programs(m: &Mp3Material) -> Vec<Material> {
    let info = Mp3MaterialInfo::new(m);
    let back = info.to_material(m);
    assert!(
        back.as_ref() == Ok(m),
        "MP3 material does not read back from its report: {back:?}"
    );
    let built = m.program(&SynthesisOptions::default());
    let mut out = vec![built.program.material];
    out.extend(built.program.second_draw.map(|(second, _)| second));
    out
}

/// The first data section of a CMDL and its material-set count, when `data` is one (the
/// seeds are whole models).
fn cmdl_first_section(data: &[u8]) -> Option<(usize, &[u8])> {
    let word = |at: usize| -> Option<usize> {
        let b = data.get(at..at + 4)?;
        Some(u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize)
    };
    if word(0)? != crate::formats::cmdl::MAGIC as usize {
        return None;
    }
    let (s, m, size) = (word(0x24)?, word(0x28)?, word(0x2C)?);
    let start = 0x2Cusize
        .checked_add(s.checked_mul(4)?)?
        .next_multiple_of(32);
    Some((m.min(64), data.get(start..start.checked_add(size)?)?))
}

/// MP3 material sets (`formats.md` §13.2): [`mp3_material_programs`], then each program's
/// TEV programs and shader keys (no generation: [`mp3_material_shaders`] does that).
pub fn mp3_material(data: &[u8]) {
    for program in mp3_material_programs(data) {
        shader_keys(&program);
    }
}

/// [`mp3_material_programs`], then every synthesised program must generate WGSL that naga
/// accepts.
pub fn mp3_material_shaders(data: &[u8]) {
    for program in mp3_material_programs(data) {
        shaders_validate(&program);
    }
}

/// MP3 material sets (`formats.md` §13.2): the input is one material section holding one
/// set, or a whole CMDL whose first section is read with its header's set count. Written
/// back it must reproduce the section; every material's report must read back to it. The
/// synthesised programs (and second draws) are returned.
pub fn mp3_material_programs(data: &[u8]) -> Vec<Material> {
    let (sets, section) = cmdl_first_section(data).unwrap_or((1, data));
    let mut warnings = Vec::new();
    let Ok(parsed) = Mp3Materials::parse(
        vec![crate::formats::Reader::new(section, FILE)],
        sets,
        SetLayout::OneSection,
        &mut warnings,
    ) else {
        return Vec::new();
    };
    assert!(
        parsed.sections().first().map(Vec::as_slice) == Some(section),
        "MP3 material section written back differs from its input"
    );
    parsed
        .sets
        .iter()
        .flat_map(|set| &set.materials)
        .flat_map(mp3_programs)
        .collect()
}

/// Keys whose shaders already validated (generation is a pure function of the key), so
/// the fuzzer spends its time on new keys rather than re-running naga.
static VALIDATED: Mutex<Option<HashSet<ValidatedKey>>> = Mutex::new(None);

#[derive(PartialEq, Eq, Hash)]
enum ValidatedKey {
    Specialized(ShaderKey),
    Uber(UberKey),
}

/// Generates the specialized shader and the ubershader of `material` (for every program
/// of [`shader_keys`]), and panics with the source when naga rejects one: a material that
/// converts must draw.
pub fn shaders_validate(material: &Material) {
    for key in shader_keys(material) {
        let seen = VALIDATED
            .lock()
            .map(|s| s.as_ref().is_some_and(|s| s.contains(&key)))
            .unwrap_or(false);
        if seen {
            continue;
        }
        let source = match &key {
            ValidatedKey::Specialized(k) => wgsl::generate(k),
            ValidatedKey::Uber(k) => wgsl::generate_uber(k),
        };
        if let Err(e) = wgsl::validate(source) {
            panic!(
                "material converts to gx but its shader does not validate: {e}\n{material:?}\n{}",
                e.source_text()
            );
        }
        if let Ok(mut s) = VALIDATED.lock() {
            let s = s.get_or_insert_with(HashSet::new);
            // Bounded: a long run forgets and re-validates rather than growing.
            if s.len() >= 4096 {
                s.clear();
            }
            s.insert(key);
        }
    }
}

/// The TEV programs of `material` (the default program, the exact-blend one, the one with
/// every alternative switch, a bake, debug and stage views), their uniforms, and the
/// specialized and ubershader keys they draw with: everything before shader generation.
fn shader_keys(material: &Material) -> Vec<ValidatedKey> {
    let plain = TevOptions::default();
    let exact = TevOptions {
        exact_blend: true,
        ..TevOptions::default()
    };
    // Every alternative of `gx.md` §16 at once.
    let alternatives = TevOptions {
        final_register: FinalRegister::Prev,
        alpha_sub: AlphaSubRounding::SoftwareQuirk,
        missing_texture: MissingTexture::Black,
        reflection_pass_through: false,
        alpha_one_as_zero: true,
        exact_blend: false,
        depth_write: DepthWriteRule::OffWhenSorted,
        debug: None,
        stage_view: None,
        bake: false,
    };
    use crate::gx::wgsl::debug::DebugView;
    // Debug views: white textures, the extra normal varying, a texgen checker (with the
    // exact blend they must drop).
    let debug = |view| TevOptions {
        debug: Some(view),
        exact_blend: true,
        ..TevOptions::default()
    };
    let views = [DebugView::Lighting, DebugView::Normals, DebugView::Uv(0)].map(debug);
    // Stage views: the first stage, and one past any program (its last stage), over the
    // alternatives (final register PREV must not matter).
    let stage_view = |k| TevOptions {
        stage_view: Some(k),
        ..alternatives
    };
    let stages = [0, 16].map(stage_view);
    // A bake: the vertex stage rasterises in UV space.
    let bake = TevOptions {
        bake: true,
        ..TevOptions::default()
    };
    [plain, exact, alternatives, bake]
        .into_iter()
        .chain(views)
        .chain(stages)
        .flat_map(|options| {
            let program = TevProgram::from_material(material, &options);
            let _ = crate::gx::wgsl::tev::TevUniforms::from_program(&program);
            [
                ValidatedKey::Specialized(ShaderKey::new(material, &program)),
                ValidatedKey::Uber(UberKey::new(material, &program)),
            ]
        })
        .collect()
}

/// TXTR: parse, check that writing it back reproduces the input, decode every declared
/// level (the incomplete ones report an error) and the complete chain the renderer
/// uploads.
pub fn txtr(data: &[u8]) {
    let Ok(t) = Txtr::parse(data, FILE) else {
        return;
    };
    assert!(
        t.to_bytes() == data,
        "TXTR written back differs from its input"
    );
    for k in 0..t.mip_count {
        let _ = t.decode_level(k);
    }
    let _ = t.decode_complete_levels();
    let _ = t.levels_size();
}

/// CINF, CSKR and ANIM under every game hint, each also written back unchanged:
/// skeletons are posed in their bind pose; skins are bound to a skeleton of the bones they
/// name and skin a few positions; animations become clips, sampled at several times and
/// frames, and pose a skeleton of the bones they drive.
pub fn anim(data: &[u8]) {
    let options = PoseOptions::default();
    for game in GAMES {
        if let Ok(cinf) = Cinf::parse(data, FILE, game) {
            assert_rewrites(cinf.write(), data, "CINF");
            if let Ok(skeleton) = Skeleton::from_cinf(&cinf) {
                let pose = Pose::bind(&skeleton, &options);
                let _ = pose.skin_palette(&skeleton, &options).to_gpu();
            }
        }
        if let Ok(cskr) = Cskr::parse(data, FILE, game) {
            assert_rewrites(cskr.write(), data, "CSKR");
            let ids = cskr
                .groups
                .iter()
                .flat_map(|g| g.weights.iter().map(|w| w.bone_id));
            if let Ok(skeleton) = flat_skeleton(ids) {
                // A model's position count is its own; a few past the groups' end
                // exercise the root fallback.
                let n = (cskr.total_vertex_count().min(1024) + 3) as usize;
                if let Ok(skin) = SkinBinding::new(&cskr, &skeleton, n, n, SkinOptions::default()) {
                    let pose = Pose::bind(&skeleton, &options);
                    let palette = pose.skin_palette(&skeleton, &options);
                    let points = vec![Vec3::ONE; n];
                    let _ = skin_positions(&skin, &palette, &points);
                    for mode in [NormalMode::FirstWeight, NormalMode::Blended] {
                        let _ = skin_normals(&skin, &palette, &points, mode);
                    }
                }
            }
        }
        if let Ok(a) = Anim::parse(data, FILE, game) {
            assert_rewrites(a.write(), data, "ANIM");
            for indexing in [
                ChannelMapIndexing::ByChannelValue,
                ChannelMapIndexing::ByAnimatedOrdinal,
            ] {
                if let Ok(clip) = Clip::from_anim_with(&a, indexing) {
                    play(&clip);
                }
            }
        }
    }
}

/// MP3 CSKR (formats.md §13.4): parsed (from its bytes and as MP3), written back, bound to a
/// skeleton of its bones, and every bank slot (and a few past the end) looked up for a
/// vertex of a surface; the vertices skinned.
pub fn mp3_cskr(data: &[u8]) {
    for game in [None, Some(Game::Mp3)] {
        let Ok(cskr) = Cskr::parse(data, FILE, game) else {
            continue;
        };
        assert_rewrites(cskr.write(), data, "CSKR");
        let ids = cskr
            .groups
            .iter()
            .flat_map(|g| g.weights.iter().map(|w| w.bone_id));
        let Ok(skeleton) = flat_skeleton(ids) else {
            continue;
        };
        let Ok(skin) = BankedSkin::new(&cskr, &skeleton, SkinOptions::default()) else {
            continue;
        };
        let options = PoseOptions::default();
        let palette = Pose::bind(&skeleton, &options).skin_palette(&skeleton, &options);
        let banks = cskr.matrix_banks().len().min(64) as i16;
        for bank in -1..=banks {
            let slots = (0u8..=33).step_by(3).map(Some).chain([None, Some(255)]);
            if let Ok((inf, _)) = skin.surface_influences(bank, slots) {
                let points = vec![Vec3::ONE; inf.len()];
                let _ = skin_vertex_positions(&inf, &palette, &points);
                let _ = skin_vertex_normals(&inf, &palette, &points, MP3_NORMAL_MODE);
            }
        }
    }
}

/// MP3 CINF (the MP2 layout, §13.5): parsed as MP3, written back, built into a skeleton and
/// its bind pose.
pub fn mp3_cinf(data: &[u8]) {
    if let Ok(cinf) = Cinf::parse(data, FILE, Some(Game::Mp3)) {
        assert_rewrites(cinf.write(), data, "CINF");
        if let Ok(skeleton) = Skeleton::from_cinf(&cinf) {
            let options = PoseOptions::default();
            let pose = Pose::bind(&skeleton, &options);
            let _ = pose.skin_palette(&skeleton, &options).to_gpu();
        }
    }
}

/// MP3 ANIM versions 0 and 1 (§13.6): parsed (from its bytes and as MP3), written back,
/// decoded to a clip, sampled and posed.
pub fn mp3_anim(data: &[u8]) {
    for game in [None, Some(Game::Mp3)] {
        if let Ok(a) = Anim::parse(data, FILE, game) {
            assert_rewrites(a.write(), data, "ANIM");
            if let Ok(clip) = Clip::from_anim(&a) {
                play(&clip);
            }
        }
    }
}

/// MP3 SAND (§13.7): parsed, written back, and the transition between every pair of the
/// ANIM IDs it names looked up.
pub fn sand(data: &[u8]) {
    if let Ok(s) = Sand::parse(data, FILE) {
        assert_rewrites(s.write(), data, "SAND");
        let ids: Vec<u64> = s
            .transitions
            .iter()
            .flat_map(|t| [t.1, t.2])
            .chain(s.half_transitions.iter().map(|t| t.1))
            .take(64)
            .collect();
        for &a in &ids {
            for &b in &ids {
                let _ = s.transition(a, b);
            }
        }
    }
}

/// A parsed file written back unchanged reproduces its input (every parser keeps what it
/// does not interpret, trailing bytes included). A refusal to write is fine.
fn assert_rewrites(written: crate::formats::Result<Vec<u8>>, data: &[u8], what: &str) {
    if let Ok(bytes) = written {
        assert!(bytes == data, "{what} written back differs from its input");
    }
}

/// Samples and poses `clip` the ways the viewer and the CLI do.
fn play(clip: &Clip) {
    let d = clip.duration;
    for t in [0.0, d * 0.37, d, d * 1.5 + 0.01, -1.0, f32::NAN] {
        for mode in [SlerpMode::ShortestPath, SlerpMode::Plain] {
            let _ = clip.sample(t, false, mode);
            let _ = clip.sample(t, true, mode);
        }
    }
    for frame in [0, 1, clip.frame_count / 2, clip.frame_count, u32::MAX] {
        let _ = clip.frame_sample(frame, SlerpMode::ShortestPath);
    }
    let _ = clip.key_count();
    let ids = clip.channels.iter().map(|c| c.bone_id);
    if let Ok(skeleton) = flat_skeleton(ids)
        && let Ok(binding) = ClipBinding::new(clip, &skeleton)
    {
        let options = PoseOptions::default();
        let mut pose = Pose::bind(&skeleton, &options);
        for t in [0.0, d * 0.5, d] {
            pose.sample(&skeleton, clip, &binding, t, &options);
        }
        let _ = pose.skin_palette(&skeleton, &options).to_gpu();
    }
}

/// A skeleton whose bones are `ids` (deduplicated), all roots at the origin.
fn flat_skeleton(ids: impl Iterator<Item = u32>) -> Result<Skeleton, crate::anim::AnimError> {
    let mut seen = HashSet::new();
    let bones = ids
        .filter(|id| seen.insert(*id))
        .map(|id| CinfBone {
            id,
            parent_id: u32::MAX,
            position: [0.0; 3],
            rotation: None,
            local_rotation: None,
            linked_bone_ids: Vec::new(),
        })
        .collect();
    Skeleton::from_cinf(&Cinf {
        game: Game::Mp1,
        bones,
        build_order: Vec::new(),
        bone_names: Vec::new(),
        trailing: Vec::new(),
        warnings: Vec::new(),
    })
}

/// ANCS (every game hint, written back unchanged) and MP3 CHAR: parse, then bake every named meta-animation
/// against small stand-in clips (leaf ANIM IDs pick one of three by value).
pub fn ancs_char(data: &[u8]) {
    let clips = stand_in_clips();
    let pick = |id: u64| Some((id % clips.len() as u64) as usize);
    let mut trees = Vec::new();
    for game in GAMES {
        if let Ok(a) = Ancs::parse(data, FILE, game) {
            assert_rewrites(a.write(), data, "ANCS");
            trees.extend(a.animation_set.animations.iter().map(|n| n.meta.clone()));
        }
    }
    if let Ok(c) = CharMp3::parse(data, FILE) {
        assert_rewrites(c.write(), data, "CHAR");
        trees.extend(c.animations.iter().map(|n| n.meta.clone()));
    }
    for meta in &trees {
        if let Some(tree) = crate::load::parts::meta_clip(meta, &mut |id| pick(id)) {
            let _ = tree.duration(&clips);
            if let Some(baked) = bake(&tree, &clips, SlerpMode::ShortestPath) {
                play(&baked);
            }
        }
    }
}

/// Three short clips of two bones (different lengths and intervals), the leaves of baked
/// meta-animations.
fn stand_in_clips() -> Vec<Clip> {
    [(4u32, 1.0f32 / 30.0), (9, 1.0 / 60.0), (2, 0.5)]
        .into_iter()
        .map(|(frames, interval)| {
            let keys = |f: fn(u32) -> Vec3| (0..frames).map(f).collect::<Vec<_>>();
            Clip {
                kind: ClipKind::Compressed,
                game: Game::Mp1,
                duration: (frames - 1) as f32 * interval,
                interval,
                frame_count: frames,
                looping: frames % 2 == 0,
                root_bone_id: 3,
                key_frames: (0..frames).collect(),
                key_times: None,
                channels: vec![
                    Channel {
                        bone_id: 3,
                        rotation: Some(
                            (0..frames)
                                .map(|i| Quat::from_rotation_z(i as f32 * 0.3))
                                .collect(),
                        ),
                        translation: Some(keys(|i| Vec3::new(i as f32, 0.0, 0.0))),
                        scale: None,
                    },
                    Channel {
                        bone_id: 4 + frames,
                        rotation: None,
                        translation: None,
                        scale: Some(keys(|i| Vec3::splat(1.0 + i as f32 * 0.1))),
                    },
                ],
                evnt_id: None,
            }
        })
        .collect()
}

/// MREA: [`mrea_materials`], then both WGSL generators on every world-geometry material.
pub fn mrea(data: &[u8]) {
    for m in mrea_materials(data) {
        shaders_validate(&m);
    }
}

/// MREA: parse the header, section table, compressed blocks, lights and world geometry;
/// check that writing it back reproduces the input; convert the light layers to `gx`
/// lights; merge the geometry into the drawable model and treat it as [`model_materials`]
/// does (its converted materials are returned).
pub fn mrea_materials(data: &[u8]) -> Vec<Material> {
    let Ok(m) = mrea::parse_mrea(data, FILE) else {
        return Vec::new();
    };
    // A parsed, unchanged area gives back the input bytes (documented on `to_bytes`).
    if let Ok(bytes) = m.to_bytes() {
        assert!(bytes == data, "MREA written back differs from its input");
    }
    let _ = m.light_layers();
    let _ = m.section_index("lights_section");
    let view = AreaView {
        all_world_models: true,
    };
    let model = match (&m.geometry, &m.mp3_geometry) {
        (Some(g), _) => area_model(g, view),
        (None, Some(g)) => mp3_area_model(g),
        (None, None) => return Vec::new(),
    };
    match model {
        Ok(model) => model_materials(&model),
        Err(_) => Vec::new(),
    }
}

/// MP3 MREA (`formats.md` §13.8): parse (WOBJ/GPUD world geometry, DEPS, the four LITE
/// layers); written back it must reproduce the input; an unchanged MP3 geometry's runs must
/// give back the sections read; the section roles, DEPS layers and the `info` report; the
/// geometry merged into the drawable version-5 model, its synthesised materials to TEV
/// programs and shader keys. A lights-only parse must agree on the lights.
pub fn mp3_mrea(data: &[u8]) {
    for material in mp3_mrea_materials(data) {
        shader_keys(&material);
    }
}

/// [`mp3_mrea_materials`], then both generators and naga on every material (as [`mrea`]).
pub fn mp3_mrea_shaders(data: &[u8]) {
    for material in mp3_mrea_materials(data) {
        shaders_validate(&material);
    }
}

/// The checks of [`mp3_mrea`] short of shaders; the world geometry's drawable materials
/// are returned.
pub fn mp3_mrea_materials(data: &[u8]) -> Vec<Material> {
    let Ok(m) = mrea::parse_mrea(data, FILE) else {
        return Vec::new();
    };
    if let Ok(bytes) = m.to_bytes() {
        assert!(bytes == data, "MREA written back differs from its input");
    }
    let lights = mrea::parse_mrea_lights(data, FILE);
    assert!(
        // Compared as text: a light's NaN fields (kept as read) are never `==` themselves.
        lights.is_ok_and(|l| {
            format!("{:?}", l.lights_section) == format!("{:?}", m.lights_section)
        }),
        "the lights-only parse disagrees with the full one"
    );
    let _ = m.section_roles();
    if let Some(d) = &m.dependencies {
        let n: usize = d.layers().iter().map(|l| l.len()).sum::<usize>() + d.area_wide().len();
        assert!(
            n <= d.entries.len(),
            "DEPS layers hold more than its entries"
        );
    }
    let _ = crate::schema::area::AreaReport::new(
        &m,
        data,
        FILE,
        &crate::gx::lights::LightOptions::default(),
    );
    let Some(g) = &m.mp3_geometry else {
        return Vec::new();
    };
    let parts = crate::load::area::mp3_world_model_parts(g);
    assert_eq!(parts.len(), g.world_models.len());
    mp3_area_model(g)
        .map(|model| model_materials(&model))
        .unwrap_or_default()
}

/// MLVL: parse, then what a room listing does with each area: dependency layers, modules,
/// world-space bounds and dock corners, and the info report.
pub fn mlvl(data: &[u8]) {
    let Ok(m) = Mlvl::parse(data, FILE) else {
        return;
    };
    for a in &m.areas {
        let _ = a.dependency_layers();
        let _ = a.modules_per_layer();
        let _ = a.world_aabb();
        for d in &a.docks {
            d.coordinates.iter().for_each(|&p| {
                a.to_world(p);
            });
        }
    }
    let _ = crate::schema::mlvl::MlvlReport::new(&m, data, None);
}

/// STRG: parse, then choose a language and strip the tags of every string, the report, and
/// the write-back oracle.
pub fn strg(data: &[u8]) {
    let Ok(s) = Strg::parse(data, FILE) else {
        return;
    };
    for asked in [None, Some("GERM")] {
        if let Some(l) = s.language(asked) {
            l.strings.iter().for_each(|t| {
                strip_tags(t);
            });
        }
    }
    let _ = crate::schema::strg::StrgReport::new(&s, data, None);
    // Written in the games' layout and read again, the strings and names are the same.
    if let Some(bytes) = s.to_bytes() {
        let again = Strg::parse(&bytes, FILE).expect("a written STRG reads back");
        let text = |s: &Strg| {
            (
                s.names.clone(),
                s.languages
                    .iter()
                    .map(|l| (l.code, l.strings.clone()))
                    .collect::<Vec<_>>(),
            )
        };
        assert!(
            text(&again) == text(&s),
            "STRG written back reads differently"
        );
    }
}
