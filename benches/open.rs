//! Opening files: how fast a retail-sized archive lists, and how long the demo showcase
//! takes from a cold or warm start to its first exact frame.
//!
//! - `pak_list/100MB_5000`: a PAK of about 100 MB and 5,000 resources (most zlib-compressed,
//!   like a retail archive), written once by tevscope's own PAK writer into a temporary
//!   folder, listed as the viewer's browser lists it (tables only, nothing decompressed).
//!   The peak heap growth of one listing is printed next to the file size.
//! - `showcase_first_frame/{cold,warm}`: `tevscope render assets/demo.pak:showcase` at
//!   1280×720 with specialized pipelines (the exact frame), as a fresh process. Cold: empty
//!   shader caches (Mesa's on-disk cache and tevscope's pipeline store both point at empty
//!   folders). Warm: both kept from the previous run.

#[path = "../tests/common/counting_alloc.rs"]
mod counting_alloc;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;

use counting_alloc::{Counting, peak_during};
use criterion::{Criterion, criterion_group, criterion_main};
use tevscope::formats::Game;
use tevscope::formats::pak::PakBuilder;
use tevscope::load::source::list_pak;

#[global_allocator]
static ALLOC: Counting = Counting;

const RESOURCES: u32 = 5000;
const TYPES: [&[u8; 4]; 6] = [b"TXTR", b"CMDL", b"ANIM", b"PART", b"STRG", b"MREA"];

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tevscope-bench-open-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Resource `i`: 8–32 KiB of structured, half-compressible bytes.
fn resource(i: u32) -> Vec<u8> {
    let len = 8192 + (i.wrapping_mul(2_654_435_761) % 24_576) as usize;
    let mut state = i.wrapping_mul(747_796_405).wrapping_add(1);
    (0..len)
        .map(|k| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            if k % 4 < 2 {
                (k / 64) as u8
            } else {
                state as u8
            }
        })
        .collect()
}

/// Writes the big archive once (about 100 MB) and returns its path.
fn big_pak(dir: &Path) -> PathBuf {
    let path = dir.join("retail_sized.pak");
    let mut b = PakBuilder::new(Game::Mp1);
    for i in 0..RESOURCES {
        let fourcc = *TYPES[(i % TYPES.len() as u32) as usize];
        let id = 0x4000_0000 | i;
        b.add(fourcc, id.into(), &resource(i), i % 8 != 0);
        if i % 10 == 0 {
            b.add_name(fourcc, id.into(), &format!("resource_{i:04}"));
        }
    }
    std::fs::write(&path, b.build().expect("build PAK")).expect("write PAK");
    path
}

fn pak_listing(c: &mut Criterion) {
    let dir = scratch();
    let path = big_pak(&dir);
    let size = std::fs::metadata(&path).expect("PAK").len();
    let (rows, peak) = peak_during(|| list_pak(&path).expect("list"));
    eprintln!(
        "pak_list: {} rows from {:.1} MB; peak heap growth {:.2} MB ({:.3}× the file)",
        rows.len(),
        size as f64 / 1e6,
        peak as f64 / 1e6,
        peak as f64 / size as f64
    );
    let mut group = c.benchmark_group("pak_list");
    group.sample_size(20);
    group.bench_function("100MB_5000", |b| {
        b.iter(|| black_box(list_pak(&path).expect("list")))
    });
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

/// One `tevscope render` of the showcase with the given cache folders.
fn render_showcase(out: &Path, mesa_cache: &Path, store: &Path) {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.pak");
    let status = Command::new(env!("CARGO_BIN_EXE_tevscope"))
        .arg("render")
        .arg(format!("{}:showcase", demo.display()))
        .args(["--size", "1280x720", "-o"])
        .arg(out)
        .env("MESA_SHADER_CACHE_DIR", mesa_cache)
        .env("TEVSCOPE_CACHE_DIR", store)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("run tevscope");
    assert!(status.success(), "tevscope render failed");
}

fn first_frame(c: &mut Criterion) {
    let dir = scratch();
    let out = dir.join("showcase.png");
    let mut group = c.benchmark_group("showcase_first_frame");
    group.sample_size(10);
    let mut run = 0u32;
    group.bench_function("cold", |b| {
        b.iter(|| {
            run += 1;
            let fresh = dir.join(format!("cold{run}"));
            render_showcase(&out, &fresh.join("mesa"), &fresh.join("store"));
            let _ = std::fs::remove_dir_all(&fresh);
        })
    });
    let (mesa, store) = (dir.join("warm/mesa"), dir.join("warm/store"));
    render_showcase(&out, &mesa, &store);
    group.bench_function("warm", |b| b.iter(|| render_showcase(&out, &mesa, &store)));
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, pak_listing, first_frame);
criterion_main!(benches);
