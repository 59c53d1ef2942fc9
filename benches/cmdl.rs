//! CMDL parse throughput (sections, materials, display lists → indexed triangle lists).
//!
//! Inputs: every CMDL in the conformance folder (real PrimeWorldEditor models included), and a
//! large model made with the builder (a 255×255-quad grid, 130k triangles, 65536 positions: the 16-bit index limit) because the
//! fixtures are small.
#![allow(clippy::unwrap_used)]

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tevscope::formats::Game;
use tevscope::formats::cmdl::{Cmdl, CmdlBuilder, MeshVertex};
use tevscope::formats::material::MaterialBuilder;
use tevscope::testing::conformance_dir;

fn fixtures() -> Vec<(String, Vec<u8>)> {
    let Some(dir) = conformance_dir() else {
        return Vec::new();
    };
    let mut paths = vec![
        dir.join("mp1_cube_skinned.CMDL"),
        dir.join("0x7EC00000.CMDL"),
    ];
    let mut pwe: Vec<_> = std::fs::read_dir(dir.join("pwe"))
        .map(|d| {
            d.filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("CMDL"))
                .collect()
        })
        .unwrap_or_default();
    pwe.sort();
    paths.extend(pwe);
    paths
        .into_iter()
        .filter_map(|p| {
            let name = p.file_name()?.to_str()?.to_string();
            Some((name, std::fs::read(&p).ok()?))
        })
        .collect()
}

fn grid_model(n: usize) -> Vec<u8> {
    let mut b = CmdlBuilder::new(Game::Mp1);
    let t = b.add_texture(0x1000_0001);
    let m = b.add_material(MaterialBuilder::textured_lit(t).build());
    let mut verts = Vec::with_capacity((n + 1) * (n + 1));
    for y in 0..=n {
        for x in 0..=n {
            let (u, v) = (x as f32 / n as f32, y as f32 / n as f32);
            let h = (u * 12.0).sin() * (v * 9.0).cos() * 0.1;
            verts.push(
                MeshVertex::new([u * 2.0 - 1.0, v * 2.0 - 1.0, h])
                    .normal([0.0, 0.0, 1.0])
                    .uv(0, [u, v]),
            );
        }
    }
    let row = (n + 1) as u32;
    let mut tris = Vec::with_capacity(2 * n * n);
    for y in 0..n as u32 {
        for x in 0..n as u32 {
            let i = y * row + x;
            tris.push([i, i + 1, i + row + 1]);
            tris.push([i, i + row + 1, i + row]);
        }
    }
    // Several surfaces, as real models have.
    let rows_per_surface = 64usize;
    for start in (0..n).step_by(rows_per_surface) {
        let end = (start + rows_per_surface).min(n);
        let first = start * (n + 1);
        let last = (end + 1) * (n + 1);
        let local: Vec<[u32; 3]> = tris[2 * n * start..2 * n * end]
            .iter()
            .map(|t| t.map(|i| i - first as u32))
            .collect();
        b.add_mesh(m, &verts[first..last], &local).unwrap();
    }
    b.build_bytes().unwrap()
}

fn parse_throughput(c: &mut Criterion) {
    let mut inputs = fixtures();
    inputs.push(("grid_255x255_130k_tris".into(), grid_model(255)));
    let mut g = c.benchmark_group("cmdl_parse");
    for (name, bytes) in &inputs {
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(name.as_str(), |b| {
            b.iter(|| Cmdl::parse(black_box(bytes), "bench").unwrap())
        });
    }
    let all: u64 = inputs
        .iter()
        .filter(|(n, _)| !n.starts_with("grid"))
        .map(|(_, b)| b.len() as u64)
        .sum();
    if all > 0 {
        g.throughput(Throughput::Bytes(all));
        g.bench_function("all_conformance_cmdls", |b| {
            b.iter(|| {
                for (name, bytes) in inputs.iter().filter(|(n, _)| !n.starts_with("grid")) {
                    black_box(Cmdl::parse(black_box(bytes), name).unwrap());
                }
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("cmdl_write");
    let (_, grid) = inputs.last().unwrap();
    let parsed = Cmdl::parse(grid, "grid").unwrap();
    g.throughput(Throughput::Bytes(grid.len() as u64));
    g.bench_function("grid_255x255_130k_tris", |b| {
        b.iter(|| black_box(&parsed).to_bytes())
    });
    g.finish();
}

criterion_group!(benches, parse_throughput);
criterion_main!(benches);
