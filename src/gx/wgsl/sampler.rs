//! GX texture sampling in WGSL (`gx.md` §14), shared by the specialized shader and the
//! ubershader: `gx_sample` filters a texture map exactly as [`crate::gx::sampler`] does
//! (fixed-point coordinates, LOD from the quad's coarse derivatives, integer bilinear and
//! trilinear weights, hardware wraps) with `textureLoad`, or, when the map's mode words say
//! so, with the host sampler (`textureSampleGrad`: faster, up to ±1 LSB and other mips).
//! The mode words are [`crate::gx::sampler::GxSampler::uniform_words`] in
//! `TevUniforms.samplers`.

/// The sampling functions; needs `tev_u8_from_unorm` (the TEV library) before it.
pub const SAMPLER_LIBRARY: &str = "\
// ---- GX texture sampling (gx.md §14; CPU reference: src/gx/sampler.rs) ----

// Texel index wrapped into [0, size): clamp, repeat (AND size − 1), mirror (invert when the
// size bit is set, then AND); power-of-two sizes as on the hardware.
fn gx_wrap(c: i32, mode: u32, size: i32) -> i32 {
    if mode == 1u {
        return c & (size - 1);
    }
    if mode == 2u {
        return select(c, ~c, (c & size) != 0) & (size - 1);
    }
    return clamp(c, 0, size - 1);
}

fn gx_texel(t: texture_2d<f32>, x: i32, y: i32, level: i32) -> vec4<i32> {
    return vec4<i32>(round(textureLoad(t, vec2<i32>(x, y), level) * 255.0));
}

// One level: st in level-0 texels × 128; bilinear weights in 1/128², summed and truncated.
fn gx_sample_level(t: texture_2d<f32>, st0: vec2<i32>, level: i32, linear: bool, flags: u32) -> vec4<i32> {
    let size0 = vec2<i32>(textureDimensions(t, 0));
    let size = ((size0 - vec2<i32>(1)) >> vec2<u32>(u32(level))) + vec2<i32>(1);
    let st = st0 >> vec2<u32>(u32(level));
    let ws = (flags >> 5u) & 3u;
    let wt = (flags >> 7u) & 3u;
    if !linear {
        let i = st >> vec2<u32>(7u);
        return gx_texel(t, gx_wrap(i.x, ws, size.x), gx_wrap(i.y, wt, size.y), level);
    }
    let o = st - vec2<i32>(64);
    let i = o >> vec2<u32>(7u);
    let f = o & vec2<i32>(127);
    let x0 = gx_wrap(i.x, ws, size.x);
    let x1 = gx_wrap(i.x + 1, ws, size.x);
    let y0 = gx_wrap(i.y, wt, size.y);
    let y1 = gx_wrap(i.y + 1, wt, size.y);
    let sum = gx_texel(t, x0, y0, level) * ((128 - f.x) * (128 - f.y))
        + gx_texel(t, x1, y0, level) * (f.x * (128 - f.y))
        + gx_texel(t, x0, y1, level) * ((128 - f.x) * f.y)
        + gx_texel(t, x1, y1, level) * (f.x * f.y);
    return sum >> vec4<u32>(14u);
}

// The texel a GX texture map gives at uv (level-0 units) with the quad's coarse
// derivatives dx, dy; mode = GxSampler::uniform_words (bit 0 of x clear: host sampler).
fn gx_sample(t: texture_2d<f32>, smp: sampler, uv: vec2<f32>, dx: vec2<f32>, dy: vec2<f32>, mode: vec4<u32>) -> vec4<i32> {
    if (mode.x & 1u) == 0u {
        return tev_u8_from_unorm(textureSampleGrad(t, smp, uv, dx, dy));
    }
    let flags = mode.x;
    let size = vec2<f32>(textureDimensions(t, 0));
    // LOD: log2 of the largest texel-space step to the right or lower neighbour, in 1/16
    // (exponent and top four mantissa bits), plus the bias.
    let d = max(max(abs(dx.x), abs(dy.x)) * size.x, max(abs(dx.y), abs(dy.y)) * size.y);
    var lod = i32(bitcast<u32>(d) >> 19u) - 2032 + bitcast<i32>(mode.w);
    let linear = select((flags & 2u) != 0u, (flags & 4u) != 0u, lod > 0);
    if lod > i32(mode.z) {
        lod = i32(mode.z);
    } else if lod < i32(mode.y) {
        lod = i32(mode.y);
    }
    // Coordinates in texels × 128, truncated toward zero (s17.7), at the point the
    // rasteriser evaluates attributes (GX_ATTRIBUTE_OFFSET from the pixel centre).
    let st = vec2<i32>((uv + GX_ATTRIBUTE_OFFSET * (dx + dy)) * size * 128.0);
    let mip = (flags >> 3u) & 3u;
    var base = 0;
    var blend = 0;
    if lod > 0 && mip != 0u {
        base = lod >> 4u;
        let fract = lod & 15;
        if mip == 2u {
            blend = fract;
        } else if fract >= 8 {
            base += 1;
        }
    }
    let last = i32(textureNumLevels(t)) - 1;
    let a = gx_sample_level(t, st, min(base, last), linear, flags);
    if blend == 0 {
        return a;
    }
    let b = gx_sample_level(t, st, min(base + 1, last), linear, flags);
    return (a * (16 - blend) + b * blend) >> vec4<u32>(4u);
}
";
