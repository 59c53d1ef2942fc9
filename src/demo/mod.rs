//! The built-in demo content: everything in `assets/`, made from procedural geometry and
//! textures through tevscope's own writers (no game files).
//!
//! - `demo.pak` (MP1 PAK, uncompressed, every resource named): the material showcase model,
//!   its textures (every TXTR format), the skinned worm character (CMDL, CSKR, CINF, a
//!   format-2 and a format-0 ANIM, ANCS), the light set (MREA) and a small room (MREA with
//!   world geometry, lightmapped floor and its own light layers), and a world (MLVL with
//!   area-name STRGs) whose named rooms are that room and the light set.
//! - `demo_lights.MREA`: the light set as a loose file.
//! - `README.md`: what every material, texture and light demonstrates.
//!
//! `cargo run --example make_demo [-- OUT_DIR]` writes them; the output is deterministic
//! (tests/demo.rs rebuilds and compares byte for byte with the committed assets). Floats
//! stored as such that come from transcendental functions (sphere and worm vertices,
//! animation keys) are first snapped with [`snap`], so a platform whose `sin`/`cos` differ
//! in the last bit still produces the same bytes.

pub mod character;
pub mod lights;
pub mod room;
pub mod room_mp3;
pub mod showcase;
pub mod textures;
pub mod world;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::formats::Game;
use crate::formats::pak::PakBuilder;

pub use character::CharacterFiles;
pub use showcase::ShowcaseTile;

/// File names inside the output directory.
pub const PAK_FILE: &str = "demo.pak";
pub const LIGHTS_FILE: &str = "demo_lights.MREA";
pub const README_FILE: &str = "README.md";

/// The showcase model's asset ID.
pub const SHOWCASE_CMDL: u32 = 0xDE01_0002;

/// Grid that stored geometry and keys are snapped to (2⁻¹², exact in binary).
const SNAP_GRID: f32 = 4096.0;

/// Rounds `x` to a multiple of 1/4096: visually lossless for the demo's geometry and keys,
/// and immune to last-bit differences between math libraries.
pub fn snap(x: f32) -> f32 {
    (x * SNAP_GRID).round() / SNAP_GRID
}

/// [`snap`] per component.
pub fn snap3(v: [f32; 3]) -> [f32; 3] {
    v.map(snap)
}

/// Why the demo could not be built or written.
#[derive(Debug, thiserror::Error)]
#[error("demo asset {what}: {message}")]
pub struct DemoError {
    pub what: String,
    pub message: String,
}

impl DemoError {
    pub fn new(what: &str, message: impl Into<String>) -> Self {
        Self {
            what: what.to_owned(),
            message: message.into(),
        }
    }
}

/// One resource of the PAK.
#[derive(Debug, Clone)]
pub struct Resource {
    pub fourcc: [u8; 4],
    pub id: u32,
    /// Named-resource entry (`demo.pak:NAME`).
    pub name: String,
    pub bytes: Vec<u8>,
    /// One line for the README.
    pub about: String,
}

/// The whole demo, in memory.
#[derive(Debug, Clone)]
pub struct Demo {
    /// PAK resources in archive order.
    pub resources: Vec<Resource>,
    /// The showcase's tiles in material order.
    pub tiles: Vec<ShowcaseTile>,
    /// Output files (name relative to the output directory, bytes), PAK first.
    pub files: Vec<(String, Vec<u8>)>,
}

fn resource(fourcc: &[u8; 4], id: u32, name: &str, bytes: Vec<u8>, about: String) -> Resource {
    Resource {
        fourcc: *fourcc,
        id,
        name: name.to_owned(),
        bytes,
        about,
    }
}

/// Builds every asset and the files that hold them.
pub fn build() -> Result<Demo, DemoError> {
    let mut resources = Vec::new();
    for spec in textures::TEXTURES {
        let txtr = spec.encode()?;
        let about = format!(
            "{}×{}, {} mip{}: {}",
            spec.width,
            spec.height,
            txtr.mip_count,
            if txtr.mip_count == 1 { "" } else { "s" },
            spec.about
        );
        resources.push(resource(
            b"TXTR",
            spec.id,
            spec.name,
            txtr.to_bytes(),
            about,
        ));
    }
    let (showcase, tiles) = showcase::build_showcase()?;
    resources.push(resource(
        b"CMDL",
        SHOWCASE_CMDL,
        "showcase",
        showcase,
        format!(
            "material showcase: {} tiles, one material each",
            tiles.len()
        ),
    ));
    let worm = character::build_character()?;
    let mut add = |fourcc: &[u8; 4], id: u32, name: &str, bytes: &[u8], about: String| {
        resources.push(resource(fourcc, id, name, bytes.to_vec(), about))
    };
    add(
        b"CMDL",
        character::WORM_CMDL,
        "worm",
        &worm.cmdl,
        format!(
            "worm body: {} positions/normals in {} skin groups, textured and lit",
            worm.vertex_count, worm.group_count
        ),
    );
    add(
        b"CSKR",
        character::WORM_CSKR,
        "worm_skin",
        &worm.cskr,
        "skin: one group per run of equal weights, blending two bones across each joint".into(),
    );
    add(
        b"CINF",
        character::WORM_CINF,
        "worm_skeleton",
        &worm.cinf,
        format!(
            "skeleton: {} bones ({})",
            character::BONES.len(),
            character::BONES
                .iter()
                .map(|b| format!("{} = {}", b.1, b.0))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    add(
        b"ANIM",
        character::WORM_ANIM_WAVE,
        "worm_wave",
        &worm.anim_wave,
        "format 2 (compressed, encode_compressed): looping 2 s wave travelling up the body".into(),
    );
    add(
        b"ANIM",
        character::WORM_ANIM_CURL,
        "worm_curl",
        &worm.anim_curl,
        "format 0 (uncompressed): 1.5 s curl and release".into(),
    );
    add(
        b"ANCS",
        character::WORM_ANCS,
        "worm_character",
        &worm.ancs,
        "character set: character \"worm\" (model, skin, skeleton above); Play animations \"wave\" and \"curl\", Sequence \"wave_then_curl\"".into(),
    );
    let area = lights::build_lights_area()?;
    add(
        b"MREA",
        lights::LIGHTS_MREA,
        "lights",
        &area,
        "light set: layer 0 = local ambient, directional, spot, custom point; layer 1 = moonlight"
            .into(),
    );

    let room = room::build_room()?;
    add(
        b"MREA",
        room::ROOM_MREA,
        "room",
        &room,
        format!(
            "room: {} world models (lightmapped floor, walls, scrolling water, box, blended window); layer 0 = local ambient, directional, spot, custom point; layer 1 = red alarm",
            room::MODELS_ABOUT.len()
        ),
    );

    for (fourcc, id, name, bytes, about) in world::build_world()? {
        resources.push(resource(&fourcc, id, &name, bytes, about));
    }

    let mut pak = PakBuilder::new(Game::Mp1);
    for r in &resources {
        pak.add(r.fourcc, u64::from(r.id), &r.bytes, false);
    }
    for r in &resources {
        pak.add_name(r.fourcc, u64::from(r.id), &r.name);
    }
    let pak = pak
        .build()
        .map_err(|e| DemoError::new(PAK_FILE, e.to_string()))?;
    let mut demo = Demo {
        resources,
        tiles,
        files: vec![(PAK_FILE.into(), pak), (LIGHTS_FILE.into(), area)],
    };
    demo.files
        .push((room_mp3::MP3_PAK_FILE.into(), room_mp3::build_mp3_pak()?));
    let readme = readme(&demo);
    demo.files
        .insert(2, (README_FILE.into(), readme.into_bytes()));
    Ok(demo)
}

/// Builds the demo and writes its files into `dir` (created if missing). Returns the paths.
pub fn write_to(dir: &Path) -> Result<Vec<PathBuf>, DemoError> {
    let demo = build()?;
    let io = |p: &Path, e: std::io::Error| DemoError::new(&p.display().to_string(), e.to_string());
    std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
    let mut paths = Vec::new();
    for (name, bytes) in &demo.files {
        let path = dir.join(name);
        crate::atomic::write_atomically(&path, bytes).map_err(|e| io(&path, e))?;
        paths.push(path);
    }
    Ok(paths)
}

fn fourcc(f: [u8; 4]) -> String {
    String::from_utf8_lossy(&f).into_owned()
}

/// The assets' README, generated so it always matches the content.
fn readme(demo: &Demo) -> String {
    let mut s = String::new();
    let w = &mut s;
    let size_of = |name: &str| {
        demo.files
            .iter()
            .find(|f| f.0 == name)
            .map_or(0, |f| f.1.len())
    };
    let _ = writeln!(w, "# tevscope demo content\n");
    let _ = writeln!(
        w,
        "Generated by `cargo run --example make_demo [-- OUT_DIR]` from procedural geometry and textures \
         through tevscope's own writers (`src/demo/`). No game files. Do not edit by hand: tests/demo.rs \
         rebuilds everything and compares it byte for byte with this directory.\n"
    );
    let _ = writeln!(w, "| file | bytes | contents |\n|---|---|---|");
    let _ = writeln!(
        w,
        "| `{PAK_FILE}` | {} | MP1 PAK (version 3.5, stored uncompressed), {} named resources |",
        size_of(PAK_FILE),
        demo.resources.len()
    );
    let _ = writeln!(
        w,
        "| `{LIGHTS_FILE}` | {} | the light set (same bytes as `{PAK_FILE}:lights`) |",
        size_of(LIGHTS_FILE)
    );
    let _ = writeln!(
        w,
        "| `{}` | {} | MP3 PAK (version 2, CMPD/LZO entries): the MP3 room `room` (MREA version 0x1E: 3 world models, 4 MP3 materials, 4 light layers, `DEPS`), an MP3 world `world` (MLVL version 0x19) holding it, and the room's 5 textures under 64-bit IDs (`src/demo/room_mp3.rs`) |",
        room_mp3::MP3_PAK_FILE,
        size_of(room_mp3::MP3_PAK_FILE)
    );
    let _ = writeln!(w, "| `{README_FILE}` | — | this file |\n");
    let _ = writeln!(
        w,
        "Address a resource as `{PAK_FILE}:NAME` (or by ID, `{PAK_FILE}:0xDE010002`), e.g. \
         `tevscope info assets/{PAK_FILE}:showcase`, `tevscope info assets/{PAK_FILE}:worm_character`, \
         `tevscope info assets/{LIGHTS_FILE}`.\n"
    );
    let _ = writeln!(
        w,
        "## Resources\n\n| name | type | ID | bytes | what |\n|---|---|---|---|---|"
    );
    for r in &demo.resources {
        let _ = writeln!(
            w,
            "| `{}` | {} | `{:#010X}` | {} | {} |",
            r.name,
            fourcc(r.fourcc),
            r.id,
            r.bytes.len(),
            r.about
        );
    }
    let _ = writeln!(
        w,
        "\n## Material showcase (`showcase`)\n\n\
         Tiles face +Y, the model's front (Prime is Z-up and actors face +Y), rows are stacked \
         along Z with row 0 on top, column 0 on the left as seen from the front. Material i is drawn by surface i.\n"
    );
    for (r, title) in showcase::ROW_TITLES.iter().enumerate() {
        let _ = writeln!(
            w,
            "### Row {r}: {title}\n\n| material | name | textures | demonstrates |\n|---|---|---|---|"
        );
        for t in demo.tiles.iter().filter(|t| t.row == r) {
            let textures = t
                .textures
                .iter()
                .map(|id| {
                    demo.resources
                        .iter()
                        .find(|x| x.id == *id)
                        .map_or(format!("{id:#010X}"), |x| format!("`{}`", x.name))
                })
                .collect::<Vec<_>>()
                .join(", ");
            let _ = writeln!(
                w,
                "| {} | `{}` | {} | {} |",
                t.material_index,
                t.name,
                if textures.is_empty() {
                    "—".into()
                } else {
                    textures
                },
                t.about
            );
        }
        let _ = writeln!(w);
    }
    let _ = writeln!(
        w,
        "## Character (`worm_character`)\n\n\
         A segmented worm standing on its tail at the origin, about 3.1 units tall (Z up). Bone 3 (`Skeleton_Root`) \
         is not animated, so the tail stays planted; bones 4–8 carry rotation channels. \
         Animations: `wave` → `worm_wave` (format 2, looping), `curl` → `worm_curl` (format 0), \
         `wave_then_curl` (Sequence of both).\n"
    );
    let _ = writeln!(w, "## Lights (`lights`, `{LIGHTS_FILE}`)\n");
    let _ = writeln!(
        w,
        "A minimal MP1 area (version 0xF): no world geometry, one empty script layer, and the lights \
         section.\n\nLayer 0:\n"
    );
    for l in lights::LAYER0_ABOUT {
        let _ = writeln!(w, "- {l}");
    }
    let _ = writeln!(w, "\nLayer 1:\n");
    for l in lights::LAYER1_ABOUT {
        let _ = writeln!(w, "- {l}");
    }
    let _ = writeln!(
        w,
        "\n## Room (`room`)\n\n\
         An MP1 area (version 0xF) written by tevscope's MREA writer: an 8 × 6 × 3 room \
         (x ∈ [−4, 4], y ∈ [−3, 3], Z up), open at the top, walls facing inward. \
         `tevscope render assets/{PAK_FILE}:room -o room.png` draws it lit by its light layer 0 \
         (`--lights layer1` for the other).\n\nWorld models:\n"
    );
    for (i, m) in room::MODELS_ABOUT.iter().enumerate() {
        let _ = writeln!(w, "{i}. {m}");
    }
    let _ = writeln!(w, "\nLayer 0:\n");
    for l in room::LAYER0_ABOUT {
        let _ = writeln!(w, "- {l}");
    }
    let _ = writeln!(w, "\nLayer 1:\n");
    for l in room::LAYER1_ABOUT {
        let _ = writeln!(w, "- {l}");
    }
    s
}
