//! Disc images as sources, on a synthetic 1 GB GameCube image built here (the demo PAK, whose
//! world names its rooms, grown to 256 MB with raw filler resources, placed four times as
//! `Metroid1.pak` … `Metroid4.pak`, by tevscope's own GCM writer), and its RVZ (nod's writer).
//!
//! - `disc_worlds/iso_1GB` and `/rvz_1GB`: `list_worlds` of the whole disc (FST, PAK tables,
//!   MLVLs and area-name STRGs only). The peak heap growth of one listing is printed.
//! - `room_open/{rvz,extracted_pak}`: loading the demo room (MREA with its textures) from the
//!   RVZ's PAK, and from the same PAK extracted to a folder.

#![allow(clippy::unwrap_used)]

#[path = "../tests/common/counting_alloc.rs"]
mod counting_alloc;

use std::hint::black_box;
use std::io::{Seek as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use counting_alloc::{Counting, peak_during};
use criterion::{Criterion, criterion_group, criterion_main};
use tevscope::formats::pak::Pak;
use tevscope::load::worlds::list_worlds;
use tevscope::load::{LoadRequest, load};

#[global_allocator]
static ALLOC: Counting = Counting;

const PAK_COUNT: usize = 4;
const PAK_TARGET: usize = 256 << 20;
const FILLER: usize = 1 << 20;
const ROOM: &str = "0xDE070002.MREA";

fn scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tevscope-bench-discs-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// The demo PAK plus raw 1 MiB filler resources up to about 256 MB.
fn big_pak() -> Vec<u8> {
    let demo = std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.pak"))
        .expect("assets/demo.pak");
    let mut b = Pak::parse(&demo, "demo.pak")
        .expect("demo PAK")
        .to_builder(&demo)
        .expect("builder");
    let filler: Vec<u8> = (0..FILLER).map(|i| (i * 31 % 251) as u8).collect();
    for i in 0..(PAK_TARGET - demo.len()) / FILLER {
        b.add_stored(*b"TXTR", 0x5000_0000 | i as u64, 0, &filler);
    }
    b.build().expect("build PAK")
}

/// Writes the 1 GB ISO, its RVZ and the PAK extracted; returns their paths.
fn build(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let pak = big_pak();
    let extracted = dir.join("Metroid1.pak");
    std::fs::write(&extracted, &pak).expect("write PAK");
    let fixture = std::fs::read(
        tevscope::testing::conformance_dir()
            .map(|d| d.join("discs/tevscope_fixture_shared.iso"))
            .expect("the disc fixture gives the system files"),
    )
    .expect("fixture ISO");
    let u32_at = |at: usize| u32::from_be_bytes(fixture[at..at + 4].try_into().unwrap()) as usize;
    let (dol_at, fst_at) = (u32_at(0x420), u32_at(0x424));
    let files: Vec<(String, u64)> = (1..=PAK_COUNT)
        .map(|i| (format!("Metroid{i}.pak"), pak.len() as u64))
        .collect();
    let layout = tevscope::formats::gcm::layout(
        &fixture[..0x440],
        &fixture[0x440..0x2440],
        &fixture[0x2440..dol_at],
        &fixture[dol_at..fst_at],
        &files,
    )
    .expect("layout");
    let iso = dir.join("synthetic.iso");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&iso).expect("create ISO"));
    f.write_all(&layout.head).unwrap();
    for &offset in &layout.offsets {
        f.seek(std::io::SeekFrom::Start(offset)).unwrap();
        f.write_all(&pak).unwrap();
    }
    f.into_inner().unwrap().set_len(layout.size).unwrap();

    let rvz = dir.join("synthetic.rvz");
    let disc = nod::read::DiscReader::new(&iso, &nod::read::DiscOptions::default()).unwrap();
    let options = nod::write::FormatOptions {
        format: nod::common::Format::Rvz,
        compression: nod::common::Compression::Zstandard(1),
        block_size: nod::common::Format::Rvz.default_block_size(),
    };
    let writer = nod::write::DiscWriter::new(disc, &options).unwrap();
    let mut out = std::fs::File::create(&rvz).unwrap();
    let fin = writer
        .process(
            |data, _, _| out.write_all(data.as_ref()),
            &nod::write::ProcessOptions {
                processor_threads: 2,
                ..Default::default()
            },
        )
        .unwrap();
    if !fin.header.is_empty() {
        out.rewind().unwrap();
        out.write_all(fin.header.as_ref()).unwrap();
    }
    (iso, rvz, extracted)
}

fn discs(c: &mut Criterion) {
    let dir = scratch();
    let (iso, rvz, extracted) = build(&dir);
    for (name, image) in [("iso_1GB", &iso), ("rvz_1GB", &rvz)] {
        let size = std::fs::metadata(image).unwrap().len();
        let (report, peak) = peak_during(|| list_worlds(image, None).expect("worlds"));
        eprintln!(
            "disc_worlds/{name}: {} worlds from a {:.2} GB image ({:.1} MB file); peak heap growth {:.2} MB",
            report.worlds.len(),
            layout_gb(),
            size as f64 / 1e6,
            peak as f64 / 1e6
        );
        c.bench_function(&format!("disc_worlds/{name}"), |b| {
            b.iter(|| black_box(list_worlds(image, None).expect("worlds")))
        });
    }
    let rvz_room = format!("{}:Metroid1.pak:{ROOM}", rvz.display());
    let pak_room = format!("{}:{ROOM}", extracted.display());
    c.bench_function("room_open/rvz", |b| {
        b.iter(|| black_box(load(&LoadRequest::new(&rvz_room)).expect("room")))
    });
    c.bench_function("room_open/extracted_pak", |b| {
        b.iter(|| black_box(load(&LoadRequest::new(&pak_room)).expect("room")))
    });
    std::fs::remove_dir_all(&dir).ok();
}

fn layout_gb() -> f64 {
    (PAK_COUNT * PAK_TARGET) as f64 / 1e9
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
    targets = discs
}
criterion_main!(benches);
