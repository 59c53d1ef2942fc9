//! TXTR decode (and encode) throughput, reported by criterion in pixels per second
//! (Melem/s = Mpixel/s).
//!
//! - `decode_fixture`: every level of each conformance texture (skipped, loudly, when
//!   the fixtures are absent);
//! - `decode_512`: one 512×512 level per format, made by tevscope's own encoders from a
//!   synthetic picture;
//! - `encode_256`: the slower encoders (CMPR, palettes) on a 256×256 picture.

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tevscope::formats::txtr::{EncodeOptions, TexFormat, Txtr};
use tevscope::image::RgbaImage;

/// A picture with gradients, hard edges and translucency, so no format gets a trivial
/// input.
fn picture(size: u32) -> RgbaImage {
    RgbaImage::from_fn(size, size, |x, y| {
        let checker = ((x / 16 + y / 16) % 2) as u8 * 60;
        [
            (x * 255 / size) as u8,
            (y * 255 / size) as u8,
            checker.wrapping_add((x ^ y) as u8 / 4),
            if (x / 32 + y / 32) % 3 == 0 { 128 } else { 255 },
        ]
    })
}

/// Level 0 of every non-paletted texture in `conformance/real/` (what the peer decoder in
/// `../shared/tools/peer` times; compare with `cargo run --release --example decode_rate`
/// alternated with the peer), parse included.
fn decode_real(c: &mut Criterion) {
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    let mut files = Vec::new();
    for folder in ["real/randomprime", "real/open-prime-rando"] {
        for entry in std::fs::read_dir(dir.join(folder))
            .into_iter()
            .flatten()
            .flatten()
        {
            let path = entry.path();
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            if let Ok(t) = Txtr::parse(&bytes, "real")
                && t.palette.is_none()
            {
                files.push((bytes, u64::from(t.width) * u64::from(t.height)));
            }
        }
    }
    let mut group = c.benchmark_group("decode_real");
    group.throughput(Throughput::Elements(files.iter().map(|f| f.1).sum()));
    group.bench_function("level0_all", |b| {
        b.iter(|| {
            for (bytes, _) in &files {
                let t = Txtr::parse(black_box(bytes), "real").ok();
                black_box(t.and_then(|t| t.decode_level(0).ok()));
            }
        })
    });
    group.finish();
}

fn decode_fixtures(c: &mut Criterion) {
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    let names = [
        "mp1_rgb5a3_8x8_2mips.TXTR",
        "mp1_cmpr_8x8.TXTR",
        "mp1_i8_16x8.TXTR",
        "mp1_c4_8x8.TXTR",
        "0x7EC00001.TXTR",
        "pwe/Checkerboard.TXTR",
        "pwe/LightSpot.TXTR",
    ];
    let mut group = c.benchmark_group("decode_fixture");
    for name in names {
        let Ok(bytes) = std::fs::read(dir.join(name)) else {
            continue;
        };
        let Ok(t) = Txtr::parse(&bytes, name) else {
            continue;
        };
        let pixels: u64 = t.mips().iter().map(|m| u64::from(m.width * m.height)).sum();
        group.throughput(Throughput::Elements(pixels));
        group.bench_function(name, |b| {
            b.iter(|| {
                for k in 0..t.mip_count {
                    black_box(t.decode_level(black_box(k)).ok());
                }
            })
        });
    }
    group.finish();
}

fn decode_synthetic(c: &mut Criterion) {
    let img = picture(512);
    let mut group = c.benchmark_group("decode_512");
    group.throughput(Throughput::Elements(512 * 512));
    for format in TexFormat::ALL {
        let options = EncodeOptions {
            mip_count: Some(1),
            ..Default::default()
        };
        let Ok(t) = Txtr::encode(&img, format, &options) else {
            continue;
        };
        group.bench_function(format.name(), |b| {
            b.iter(|| black_box(t.decode_level(0).ok()))
        });
    }
    group.finish();
}

fn encode(c: &mut Criterion) {
    let img = picture(256);
    let mut group = c.benchmark_group("encode_256");
    group.sample_size(10);
    group.throughput(Throughput::Elements(256 * 256));
    for format in [TexFormat::Cmpr, TexFormat::C8, TexFormat::Rgb5A3] {
        let options = EncodeOptions {
            mip_count: Some(1),
            ..Default::default()
        };
        group.bench_function(format.name(), |b| {
            b.iter(|| black_box(Txtr::encode(black_box(&img), format, &options).ok()))
        });
    }
    group.finish();
}

criterion_group!(
    benches,
    decode_real,
    decode_fixtures,
    decode_synthetic,
    encode
);
criterion_main!(benches);
