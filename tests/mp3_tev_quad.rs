//! The synthesised program of every MP3 fixture material (and its second draw) on the
//! material quad: the GPU on both shader paths against the CPU reference, every pixel, with
//! the fixture's textures. Swap tables, konsts and the DIFB register go through the same
//! key, WGSL and uniforms as MP1/MP2 materials.
#![allow(clippy::unwrap_used)]

mod tev_common;

use tev_common::*;
use tevscope::formats::cmdl::Cmdl;
use tevscope::formats::txtr::Txtr;
use tevscope::gx::mp3::SynthesisOptions;
use tevscope::gx::types::{Blend, Material};
use tevscope::gx::wgsl::vertex::DrawUniforms;
use tevscope::load::decode_texture;
use tevscope::render::context::RenderContext;
use tevscope::render::quad::{QuadGeometry, ShaderPath};
use tevscope::testing::conformance_dir;

/// A material as the quad draws it: its texture maps read TEX k through identity texgens
/// (the reference samples the quad's UV sets), drawn opaque so the tile is the TEV output.
fn on_quad(m: &Material) -> Material {
    let mut q = m.clone();
    q.texgens = (0..m.texture_count as u8).map(identity_texgen).collect();
    q.uv_animations.clear();
    q.blend = Blend::OPAQUE;
    q
}

#[test]
fn mp3_materials_match_the_cpu_reference_on_both_paths() {
    let Some(dir) = conformance_dir() else {
        return;
    };
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let dir = dir.join("mp3");
    let texture = |id: u64| {
        let name = format!("0x{id:016X}.TXTR");
        let bytes = std::fs::read(dir.join(&name)).unwrap();
        Some(
            decode_texture(&Txtr::parse(&bytes, &name).unwrap())
                .unwrap()
                .0,
        )
    };
    let mut items = Vec::new();
    let mut labels = Vec::new();
    for name in ["0x0C3F1E7D00000100.CMDL", "0x0C3F1E7D00000101.CMDL"] {
        let cmdl = Cmdl::parse(&std::fs::read(dir.join(name)).unwrap(), name).unwrap();
        for (i, m) in cmdl.mp3_materials.unwrap().sets[0]
            .materials
            .iter()
            .enumerate()
        {
            let built = m.program(&SynthesisOptions::default());
            let mut draws = vec![(built.program.material.clone(), built.texture_ids.clone())];
            if let Some((second, _)) = &built.program.second_draw {
                draws.push((second.clone(), built.second_draw_texture_ids.clone()));
            }
            for (k, (gx, ids)) in draws.into_iter().enumerate() {
                let material = on_quad(&gx);
                items.push(BatchItem {
                    program: default_program(&material),
                    material,
                    textures: ids.into_iter().map(texture).collect(),
                });
                labels.push(format!("{name} material {i} draw {k}"));
            }
        }
    }
    assert_eq!(items.len(), 14, "13 materials and one second draw");
    let vertex_side = items[0].material.clone();
    let probes = [0, 1].map(|c| {
        let m = raster_probe(&vertex_side, c);
        BatchItem {
            program: default_program(&m),
            material: m,
            textures: vec![],
        }
    });
    let mut all: Vec<BatchItem> = probes.into_iter().collect();
    all.extend(items);
    let geometry = QuadGeometry {
        colors: [[[200, 120, 40, 160], [30, 60, 90, 255]]; 4],
        varied_uvs: true,
    };
    let tile = 16;
    for path in [ShaderPath::Specialized, ShaderPath::Uber] {
        let tiles = render_batch(&ctx, &all, tile, &geometry, &DrawUniforms::default(), path);
        let (ras0, ras1) = (&tiles[0], &tiles[1]);
        for ((item, got), label) in all.iter().zip(&tiles).skip(2).zip(&labels) {
            let want = reference_tile(item, tile, ras0, ras1, true);
            if let Some(diff) = first_difference(got, &want) {
                panic!("{label}, {path:?}: {diff}");
            }
        }
    }
}
