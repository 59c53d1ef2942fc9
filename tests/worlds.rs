//! Worlds by name on the world fixtures (`conformance/worlds/`): MLVL and STRG through the
//! library, `tevscope info --json` and `tevscope worlds --json`, every value the fixture JSONs
//! list for them; every listed room opens; truncated and corrupted files fail cleanly.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use tevscope::formats::mlvl::Mlvl;
use tevscope::formats::pak::Pak;
use tevscope::formats::strg::Strg;
use tevscope::load::worlds::list_worlds;
use tevscope::load::{LoadRequest, load};
use tevscope::testing::{conformance_dir, torture};

const PAKS: [&str; 2] = ["mp1_world.pak", "mp2_world.pak"];

fn fixture(name: &str) -> Option<(PathBuf, Value)> {
    let path = conformance_dir()?.join("worlds").join(name);
    let json = std::fs::read_to_string(path.with_extension("pak.json")).expect("fixture json");
    Some((
        path,
        serde_json::from_str(&json).expect("fixture json parses"),
    ))
}

fn tevscope(args: &[&str]) -> Value {
    let out = Command::new(env!("CARGO_BIN_EXE_tevscope"))
        .args(args)
        .output()
        .expect("run tevscope");
    assert!(
        out.status.success(),
        "tevscope {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON output")
}

/// Every key of `expected` named in `keys` equals the same key of `actual` (present).
fn same(actual: &Value, expected: &Value, keys: &[&str], what: &str) {
    for k in keys {
        let Some(e) = expected.get(k) else { continue };
        assert_eq!(actual.get(k), Some(e), "{what}: {k}");
    }
}

const WORLD_KEYS: &[&str] = &[
    "mlvl_id",
    "version",
    "world_name_strg_id",
    "dark_world_name_strg_id",
    "temple_key_world_index",
    "savw_id",
    "default_skybox_id",
    "mapw_id",
    "area_count",
    "layer_names_flat",
    "layer_name_offsets",
    "memory_relays",
    "audio_groups",
    "area_count_extra_u32",
    "mlvl_size",
    "mlvl_sha256",
];

const AREA_KEYS: &[&str] = &[
    "index",
    "area_name_strg_id",
    "mrea_id",
    "internal_area_id",
    "transform_rows_3x4",
    "aabb_local",
    "aabb_world",
    "attached_areas",
    "lazy_dependency_u32",
    "dependencies",
    "docks",
    "layers",
    "layer_flags_raw",
    "internal_area_name",
    "modules_per_layer",
    "module_offsets_raw",
];

const STRG_KEYS: &[&str] = &[
    "id",
    "version",
    "language_count",
    "string_count",
    "strings",
    "language_table",
    "strings_start",
    "size",
    "sha256",
    "name_table",
    "name_table_header",
];

#[test]
fn info_json_reports_every_mlvl_and_strg_value() {
    for name in PAKS {
        let Some((path, fx)) = fixture(name) else {
            return;
        };
        let world = &fx["world"];
        let spec = format!("{}:{}", path.display(), world["mlvl_id"].as_str().unwrap());
        let got = tevscope(&["info", "--json", &spec]);
        same(&got, world, WORLD_KEYS, name);
        assert_eq!(got["warnings"], json!([]), "{name}");
        let areas = world["areas"].as_array().unwrap();
        assert_eq!(got["areas"].as_array().unwrap().len(), areas.len());
        for (a, e) in got["areas"].as_array().unwrap().iter().zip(areas) {
            same(a, e, AREA_KEYS, &format!("{name} area {}", e["index"]));
        }
        for s in fx["strings"].as_array().unwrap() {
            let spec = format!("{}:{}", path.display(), s["id"].as_str().unwrap());
            let got = tevscope(&["info", "--json", &spec]);
            same(&got, s, STRG_KEYS, &spec);
            assert_eq!(got["warnings"], json!([]), "{spec}");
        }
    }
}

#[test]
fn library_parses_the_fixture_worlds() {
    for name in PAKS {
        let Some((path, fx)) = fixture(name) else {
            return;
        };
        let bytes = std::fs::read(&path).unwrap();
        let pak = Pak::parse(&bytes, name).unwrap();
        let world = &fx["world"];
        let id = u64::from_str_radix(&world["mlvl_id"].as_str().unwrap()[2..], 16).unwrap();
        let entry = pak.find(id, Some(*b"MLVL")).unwrap();
        let m = Mlvl::parse(&pak.read(&bytes, entry).unwrap(), name).unwrap();
        assert_eq!(u64::from(m.version), world["version"].as_u64().unwrap());
        assert!(m.warnings.is_empty(), "{:?}", m.warnings);
        for (a, e) in m.areas.iter().zip(world["areas"].as_array().unwrap()) {
            let (layers, tail) = a.dependency_layers();
            let per_layer = &e["dependencies"]["per_layer"];
            assert_eq!(layers.len(), per_layer.as_array().unwrap().len());
            for (l, el) in layers.iter().zip(per_layer.as_array().unwrap()) {
                assert_eq!(l.len(), el.as_array().unwrap().len());
            }
            assert_eq!(
                tail.len(),
                e["dependencies"]["area_wide_tail"]
                    .as_array()
                    .unwrap()
                    .len()
            );
            assert_eq!(a.docks.len(), e["docks"].as_array().unwrap().len());
            assert_eq!(a.layers.len() as u64, e["layer_flags_raw"]["layer_count"]);
        }
        for s in fx["strings"].as_array().unwrap() {
            let id = u64::from_str_radix(&s["id"].as_str().unwrap()[2..], 16).unwrap();
            let entry = pak.find(id, Some(*b"STRG")).unwrap();
            let data = pak.read(&bytes, entry).unwrap();
            let strg = Strg::parse(&data, name).unwrap();
            assert!(strg.warnings.is_empty(), "{:?}", strg.warnings);
            assert!(
                strg.to_bytes().unwrap() == data,
                "{name} {id:#x} written back"
            );
            for l in &strg.languages {
                assert_eq!(
                    json!(l.strings),
                    s["strings"][l.code.to_string()],
                    "{name} {}",
                    l.code
                );
            }
        }
    }
}

/// What `worlds` must list for a fixture, from its JSON (names in `lang`).
#[allow(clippy::unwrap_used)]
fn check_listing(listing: &Value, path: &Path, fx: &Value, lang: &str) {
    let world = &fx["world"];
    let worlds = listing["worlds"].as_array().unwrap();
    let w = worlds
        .iter()
        .find(|w| w["mlvl_id"] == world["mlvl_id"])
        .expect("world listed");
    assert_eq!(w["pak"], json!(path.display().to_string()));
    assert_eq!(w["game"], fx["game"]);
    assert_eq!(w["name"], world["world_name"][lang]);
    assert_eq!(w["names"], world["world_name"]);
    if let Some(dark) = world.get("dark_world_name") {
        assert_eq!(w["dark_name"], dark[lang]);
    }
    let areas = w["areas"].as_array().unwrap();
    let expected = world["areas"].as_array().unwrap();
    assert_eq!(areas.len(), expected.len());
    for ((a, e), room) in areas
        .iter()
        .zip(expected)
        .zip(world["room_listing"].as_array().unwrap())
    {
        assert_eq!(a["index"], e["index"]);
        assert_eq!(a["name"], room[lang]);
        assert_eq!(a["name_source"], "strg");
        assert_eq!(a["names"], e["name"]);
        assert_eq!(a["mrea_id"], e["mrea_id"]);
        assert_eq!(a["mrea_id"], room["mrea_id"]);
        assert_eq!(
            a["internal_name"],
            e.get("internal_area_name").cloned().unwrap_or(Value::Null)
        );
        assert_eq!(
            a["spec"],
            json!(format!(
                "{}:{}.MREA",
                path.display(),
                e["mrea_id"].as_str().unwrap()
            ))
        );
        assert_eq!(a["transform_rows_3x4"], e["transform_rows_3x4"]);
        assert_eq!(a["aabb"], e["aabb_world"]);
        assert_eq!(a["attached_areas"], e["attached_areas"]);
        assert_eq!(a["layers"], e["layers"]);
        assert_eq!(a["dependency_count"], e["dependencies"]["count"]);
    }
}

#[test]
fn worlds_lists_rooms_by_name_in_every_language() {
    for name in PAKS {
        let Some((path, fx)) = fixture(name) else {
            return;
        };
        let langs: Vec<String> = fx["world"]["languages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect();
        for lang in &langs {
            let lib = serde_json::to_value(list_worlds(&path, Some(lang)).unwrap()).unwrap();
            check_listing(&lib, &path, &fx, lang);
            let cli = tevscope(&["worlds", "--json", "--lang", lang, path.to_str().unwrap()]);
            assert_eq!(cli, lib, "{name} {lang}");
        }
        // Unknown language: English; none asked: English.
        for asked in [Some("KORE"), None] {
            let lib = serde_json::to_value(list_worlds(&path, asked).unwrap()).unwrap();
            check_listing(&lib, &path, &fx, "ENGL");
        }
        // Every room opens through the spec the listing gives.
        let listing = list_worlds(&path, None).unwrap();
        for a in &listing.worlds[0].areas {
            load(&LoadRequest::new(&a.spec)).unwrap_or_else(|e| panic!("{}: {e:#}", a.spec));
        }
    }
}

#[test]
fn a_folder_lists_the_worlds_of_every_pak() {
    let Some(dir) = conformance_dir() else {
        return;
    };
    let dir = dir.join("worlds");
    let listing = tevscope(&["worlds", "--json", dir.to_str().unwrap()]);
    assert_eq!(listing["worlds"].as_array().unwrap().len(), 2);
    for name in PAKS {
        let (path, fx) = fixture(name).unwrap();
        check_listing(&listing, &path, &fx, "ENGL");
    }
}

#[test]
fn truncated_and_corrupted_worlds_fail_cleanly() {
    for name in PAKS {
        let Some((path, fx)) = fixture(name) else {
            return;
        };
        let bytes = std::fs::read(&path).unwrap();
        let pak = Pak::parse(&bytes, name).unwrap();
        let mut ids = vec![fx["world"]["mlvl_id"].clone()];
        ids.extend(
            fx["strings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s["id"].clone()),
        );
        for id in ids {
            let id = u64::from_str_radix(&id.as_str().unwrap()[2..], 16).unwrap();
            let entry = pak.find(id, None).unwrap();
            let data = pak.read(&bytes, entry).unwrap();
            let rejected = if entry.fourcc == *b"MLVL" {
                torture(&data, 2000, |d| Mlvl::parse(d, "t"))
            } else {
                torture(&data, 2000, |d| Strg::parse(d, "t"))
            };
            // Everything short of the padding is rejected.
            let body = data.len() - data.iter().rev().take_while(|&&b| b == 0xFF).count();
            assert!(rejected >= body, "{name} {id:#x}: {rejected} of {body}");
        }
        // A truncated PAK is an error from the listing, not a panic.
        let scratch = std::env::temp_dir().join(format!("tevscope-worlds-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).unwrap();
        let cut = scratch.join(name);
        for len in [0, 40, bytes.len() / 2] {
            std::fs::write(&cut, &bytes[..len]).unwrap();
            let _ = list_worlds(&cut, None);
        }
        std::fs::remove_dir_all(&scratch).ok();
    }
}

/// A world whose STRGs are missing: MP2 rooms fall back to their internal names, MP1 rooms
/// to their MREA IDs, the world to its PAK name; each fallback is marked and warned about.
#[test]
fn missing_strgs_give_marked_fallback_names() {
    use tevscope::formats::Game;
    use tevscope::formats::pak::PakBuilder;
    use tevscope::schema::worlds::NameSource;
    let scratch = std::env::temp_dir().join(format!("tevscope-worlds-fb-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    for (name, game) in PAKS.into_iter().zip([Game::Mp1, Game::Mp2]) {
        let Some((path, fx)) = fixture(name) else {
            return;
        };
        let bytes = std::fs::read(&path).unwrap();
        let pak = Pak::parse(&bytes, name).unwrap();
        let world = &fx["world"];
        let id = u64::from_str_radix(&world["mlvl_id"].as_str().unwrap()[2..], 16).unwrap();
        let mlvl = pak
            .read(&bytes, pak.find(id, Some(*b"MLVL")).unwrap())
            .unwrap();
        let mut b = PakBuilder::new(game);
        b.add_name(*b"MLVL", id, "!Lonely_Master");
        b.add(*b"MLVL", id, &mlvl, false);
        let lonely = scratch.join(name);
        std::fs::write(&lonely, b.build().unwrap()).unwrap();
        let listing = list_worlds(&lonely, Some("GERM")).unwrap();
        let w = &listing.worlds[0];
        assert_eq!(
            (w.name.as_str(), w.name_source),
            ("!Lonely_Master", NameSource::ResourceName)
        );
        assert!(w.warnings.iter().any(|m| m.contains("in none of the PAKs")));
        for (a, e) in w.areas.iter().zip(world["areas"].as_array().unwrap()) {
            match e.get("internal_area_name") {
                Some(n) => {
                    assert_eq!(json!(a.name), *n);
                    assert_eq!(a.name_source, NameSource::InternalName);
                }
                None => {
                    assert_eq!(json!(a.name), e["mrea_id"]);
                    assert_eq!(a.name_source, NameSource::Id);
                }
            }
            assert!(a.names.is_empty());
        }
    }
    std::fs::remove_dir_all(&scratch).ok();
}

/// Listing reads only the PAK tables, MLVLs and STRGs: with every MREA and TXTR payload
/// overwritten by garbage it lists the same worlds.
#[test]
fn listing_never_reads_rooms_or_textures() {
    let scratch = std::env::temp_dir().join(format!("tevscope-worlds-ro-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    for name in PAKS {
        let Some((path, _)) = fixture(name) else {
            return;
        };
        let mut bytes = std::fs::read(&path).unwrap();
        let pak = Pak::parse(&bytes, name).unwrap();
        for e in pak.entries() {
            if e.fourcc == *b"MREA" || e.fourcc == *b"TXTR" {
                let at = e.offset as usize;
                bytes[at..at + e.size as usize].fill(0xAB);
            }
        }
        let garbled = scratch.join(name);
        std::fs::write(&garbled, &bytes).unwrap();
        let a = serde_json::to_value(list_worlds(&path, None).unwrap()).unwrap();
        let mut b = serde_json::to_value(list_worlds(&garbled, None).unwrap()).unwrap();
        let own = path.display().to_string();
        let text = serde_json::to_string(&b)
            .unwrap()
            .replace(&garbled.display().to_string(), &own);
        b = serde_json::from_str(&text).unwrap();
        assert_eq!(a, b, "{name}");
    }
    std::fs::remove_dir_all(&scratch).ok();
}
