//! The shader's exact GX sampling (`gx_sample`, `gx.md` §14) against the CPU reference
//! (`gx::sampler`): a texture on the screen-covering quad (UV 0..1), magnified and
//! minified through its mips, every pixel compared. Pixel centres are chosen so no
//! coordinate lies near a 1/128-texel step (float interpolation cannot flip one).

use tevscope::gx::regs::TexWrap;
use tevscope::gx::sampler::{GxSampler, fixed_coord, fixed_log2};
use tevscope::gx::types::Material;
use tevscope::model::TextureData;
use tevscope::render::quad::{QuadOptions, ShaderPath, render_material_quad};
use tevscope::render::texture::{SamplerMode, Wrap};
use tevscope::render::{AdapterPreference, RenderContext};

/// A w × h texture with `levels` levels of pseudo-random texels.
fn noise(w: u32, h: u32, levels: usize) -> TextureData {
    let mut seed = 0x9E37_79B9u32;
    let levels = (0..levels)
        .map(|l| {
            let n = ((w >> l).max(1) * (h >> l).max(1) * 4) as usize;
            (0..n)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    (seed >> 24) as u8
                })
                .collect()
        })
        .collect();
    TextureData {
        width: w,
        height: h,
        levels,
    }
}

/// The reference's pixel (x, y) of a `size`² quad showing `tex` (attributes taken 0.495
/// into the pixel, as the shader does).
fn expected(tex: &TextureData, size: u32, x: u32, y: u32) -> [u8; 4] {
    let s = GxSampler::prime(TexWrap::Repeat, tex.levels.len() as u32);
    let at = |p: u32| (p as f32 + 0.495) / size as f32;
    let st = [
        fixed_coord(at(x), tex.width),
        fixed_coord(at(y), tex.height),
    ];
    let (lod, linear) = s.lod(tex.width as f32 / size as f32);
    let fetch = |level: u32, x: u32, y: u32| {
        let w = (tex.width >> level).max(1);
        let i = ((y * w + x) * 4) as usize;
        let t = &tex.levels[level as usize];
        [t[i], t[i + 1], t[i + 2], t[i + 3]]
    };
    s.sample(
        [tex.width, tex.height],
        tex.levels.len() as u32,
        st,
        lod,
        linear,
        &fetch,
    )
}

#[test]
fn exact_sampling_matches_the_reference() {
    let ctx = RenderContext::new(AdapterPreference::Hardware).expect("GPU adapter");
    let material = Material::texture_passthrough();
    // (texture size, mip levels, quad size): magnified ×4, 1:1, minified to level 2, and
    // trilinear (128 texels on 48 px: 2.67 texels a pixel, LOD 21/16 in the linear
    // approximation: level 1 blended 5/16 with level 2).
    for (tex, levels, size) in [(16, 1, 64), (32, 1, 32), (64, 4, 16), (128, 5, 48)] {
        let t = noise(tex, tex, levels);
        let (_, linear) = GxSampler::prime(TexWrap::Repeat, levels as u32).lod(1.0);
        assert!(linear);
        for path in [ShaderPath::Specialized, ShaderPath::Uber] {
            let mut options = QuadOptions::new(size, size, path);
            options.sampler = SamplerMode::Gx {
                wrap: Wrap::Repeat,
                mip_count: levels as u32,
            };
            let image = render_material_quad(&ctx, &material, &[Some(t.clone())], &options)
                .expect("quad renders");
            let mut bad = Vec::new();
            for y in 0..size {
                for x in 0..size {
                    let want = expected(&t, size, x, y);
                    let got = image.pixel(x, y);
                    if got != want {
                        bad.push(format!("({x}, {y}): {got:?} != {want:?}"));
                    }
                }
            }
            assert!(
                bad.is_empty(),
                "{tex}² texture ({levels} levels, LOD {}) on {size}² ({path:?}): {} pixels differ, e.g. {:?}",
                fixed_log2(tex as f32 / size as f32),
                bad.len(),
                &bad[..bad.len().min(4)]
            );
        }
    }
}

/// The switch back to the host's sampler (`SamplerMode::GxHost`, `SceneOptions::host_filtering`)
/// still filters the same texture, within a few LSB of GX where it magnifies.
#[test]
fn host_filtering_stays_close() {
    let ctx = RenderContext::new(AdapterPreference::Hardware).expect("GPU adapter");
    let material = Material::texture_passthrough();
    let t = noise(16, 16, 1);
    let mut options = QuadOptions::new(64, 64, ShaderPath::Specialized);
    options.sampler = SamplerMode::GxHost {
        wrap: Wrap::Repeat,
        mip_count: 1,
    };
    let image =
        render_material_quad(&ctx, &material, &[Some(t.clone())], &options).expect("renders");
    let mut worst = 0;
    for y in 0..64 {
        for x in 0..64 {
            let (got, want) = (image.pixel(x, y), expected(&t, 64, x, y));
            for c in 0..4 {
                worst = worst.max(got[c].abs_diff(want[c]));
            }
        }
    }
    eprintln!("host filtering: {worst} LSB from GX at most");
    // Host bilinear uses its own weight precision and the pixel centre: close, not exact.
    assert!(worst <= 6, "host filtering is {worst} LSB from GX's");
}
