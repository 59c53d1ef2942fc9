//! Hostile input must never make a parser allocate much more than the input's size.
//!
//! A counting global allocator records the peak heap growth while each parser
//! and the work its output invites runs on every truncation and on random corruptions of
//! every conformance file, and on the shared fuzz regression inputs.

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::Counting;
use tevscope::testing::fuzz;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak heap growth while `f` runs (one test function, so no other thread disturbs it).
fn peak_during(f: impl FnOnce()) -> usize {
    counting_alloc::peak_during(f).1
}

#[test]
fn hostile_inputs_allocate_at_most_a_small_multiple_of_their_size() {
    conformance_files_and_their_corruptions();
    shared_regression_inputs();
}

/// Parses `data` as the format named by `ext`, then does what a caller does next: the
/// fuzz harness of its family (PAK members decompressed; TXTR levels decoded; CMDL
/// surfaces expanded to vertices and triangles and materials converted to `gx`; CINF,
/// CSKR and ANIM built into skeletons, skins and clips, sampled and posed; ANCS and CHAR
/// meta-animations baked; MREA lights converted, world geometry merged and its materials
/// converted). The shader generators are left to the
/// fuzz replay test: naga's working memory does not scale with the input.
fn parse_and_decode(ext: &str, data: &[u8]) {
    match ext.to_ascii_uppercase().as_str() {
        "PAK" => {
            fuzz::pak(data);
            fuzz::pak_ranged(data);
        }
        "CMDL" => drop(fuzz::cmdl_materials(data)),
        "TXTR" => fuzz::txtr(data),
        "CINF" | "CSKR" | "ANIM" => {
            fuzz::anim(data);
            fuzz::mp3_cskr(data);
            fuzz::mp3_cinf(data);
            fuzz::mp3_anim(data);
        }
        "ANCS" | "CHAR" => fuzz::ancs_char(data),
        "MREA" => drop(fuzz::mrea_materials(data)),
        "MLVL" => fuzz::mlvl(data),
        "STRG" => fuzz::strg(data),
        other => panic!("no parser for {other}"),
    }
}

/// Every truncation (stepped) and 200 random corruptions of every conformance file: 72 ×
/// the file's size + 256 KiB.
fn conformance_files_and_their_corruptions() {
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    // Decoded RGBA8 is 8× a 4-bit texture and a PAK member may inflate up to 64× (the
    // spec's cap), so the bound is generous in factor but tight against runaway counts.
    const FACTOR: usize = 72;
    const SLACK: usize = 256 << 10;
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("conformance dir")
        .chain(std::fs::read_dir(dir.join("pwe")).expect("pwe"))
        .chain(std::fs::read_dir(dir.join("areas")).expect("areas"))
        .chain(std::fs::read_dir(dir.join("mp3")).expect("mp3"))
        .map(|e| e.expect("entry").path())
        // Prime 3's models (version 5, element-list materials).
        .chain(
            std::fs::read_dir(dir.join("mp3"))
                .expect("mp3")
                .map(|e| e.expect("entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "CMDL")),
        )
        .filter(|p| {
            p.extension().is_some_and(|e| {
                e != "json" && e != "md" && p.file_name() != Some("LICENSE".as_ref())
            })
        })
        .collect();
    files.sort();
    let mut worst = (0.0f64, String::new());
    let mut inputs = 0usize;
    let mut members = Vec::new();
    for path in &files {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .expect("extension")
            .to_string();
        members.push((
            path.display().to_string(),
            ext,
            std::fs::read(path).expect("read"),
        ));
    }
    // The world fixtures' MLVLs and STRGs, which exist only inside their PAKs.
    for name in ["mp1_world.pak", "mp2_world.pak"] {
        let path = dir.join("worlds").join(name);
        let bytes = std::fs::read(&path).expect("world fixture");
        let pak = tevscope::formats::pak::Pak::parse(&bytes, name).expect("world PAK");
        for e in pak.entries() {
            if matches!(&e.fourcc, b"MLVL" | b"STRG") {
                let ext = String::from_utf8_lossy(&e.fourcc).into_owned();
                let data = pak.read(&bytes, e).expect("member");
                members.push((pak.entry_label(e), ext, data));
            }
        }
    }
    // The MP3 room (no MP3 area fixture exists): WOBJ/GPUD, DEPS, four light layers.
    members.push((
        "demo MP3 room".into(),
        "MREA".into(),
        tevscope::demo::room_mp3::build_mp3_room()
            .expect("the MP3 room builds")
            .mrea,
    ));
    for (name, ext, data) in &members {
        let (name, ext, data) = (name.as_str(), ext.as_str(), data);
        let mut check = |input: &[u8], what: &str| {
            let peak = peak_during(|| parse_and_decode(ext, input));
            let limit = FACTOR * input.len().max(data.len()) + SLACK;
            assert!(
                peak <= limit,
                "{name} ({what}): peak heap growth {peak} bytes > {limit}"
            );
            let ratio = peak as f64 / data.len() as f64;
            if ratio > worst.0 {
                worst = (ratio, format!("{name} ({what})"));
            }
            inputs += 1;
        };
        // Truncations (step keeps large files quick) and random corruptions.
        let step = (data.len() / 512).max(1);
        for len in (0..data.len()).step_by(step) {
            check(&data[..len], &format!("truncated to {len}"));
        }
        let mut state = 0x2545_F491_4F6C_DD1Du64 ^ data.len() as u64;
        for round in 0..200 {
            let mut copy = data.clone();
            for _ in 0..1 + round % 8 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let i = (state % copy.len() as u64) as usize;
                copy[i] = (state >> 32) as u8;
            }
            check(&copy, &format!("corruption round {round}"));
        }
    }
    eprintln!(
        "{inputs} hostile inputs over {} files; worst peak/size ratio {:.1} ({})",
        members.len(),
        worst.0,
        worst.1
    );
    assert!(inputs > 1000);
}

/// The inputs that once broke tevscope under the fuzzer (`../shared/regressions/`, e.g. a
/// 48-byte ANIM whose clip asked for 14 GB): parsing them and everything after must stay
/// within 16 × their size + 4 KiB (measured: at most 878 bytes, 3.4 × the 259-byte one).
fn shared_regression_inputs() {
    const FACTOR: usize = 16;
    const SLACK: usize = 4 << 10;
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    let dir = dir.join("../regressions");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!(
            "\n!!!!!!!! SHARED REGRESSIONS NOT FOUND at {} — skipping.\n",
            dir.display()
        );
        return;
    };
    let mut paths: Vec<_> = entries.map(|e| e.expect("entry").path()).collect();
    paths.sort();
    let mut checked = 0;
    for path in paths {
        let Some(ext) = path.extension().and_then(|e| e.to_str()) else {
            continue;
        };
        if ext == "md" {
            continue;
        }
        let data = std::fs::read(&path).expect("read");
        let peak = peak_during(|| parse_and_decode(ext, &data));
        let limit = FACTOR * data.len() + SLACK;
        eprintln!("{}: peak heap growth {peak} bytes", path.display());
        assert!(
            peak <= limit,
            "{}: peak heap growth {peak} bytes > {limit}",
            path.display()
        );
        checked += 1;
    }
    assert!(checked > 0, "{} holds no inputs", dir.display());
}
