//! GX texture sampling in WGSL (`gx.md` §14), shared by the specialized shader and the
//! ubershader: `gx_sample` filters a texture map exactly as [`crate::gx::sampler`] does
//! (fixed-point coordinates, LOD from the quad's coarse derivatives, integer bilinear and
//! trilinear weights, hardware wraps) with `textureLoad`, or, when the map's mode words say
//! so, with the host sampler (`textureSampleGrad`: faster, up to ±1 LSB and other mips).
//! A specialized shader whose key knows a map's [`crate::gx::sampler::MapSampling`] calls
//! `gx_sample_exact` (or the host sampler) directly with the filters as constants.
//! The mode words are [`crate::gx::sampler::GxSampler::uniform_words`] in
//! `TevUniforms.samplers`.

/// The sampling functions; needs `tev_u8_from_unorm` (the TEV library) before it.
pub const SAMPLER_LIBRARY: &str = "\
// ---- GX texture sampling (gx.md §14; CPU reference: src/gx/sampler.rs) ----

// Texel index wrapped into [0, size): clamp, repeat (AND size − 1), mirror (invert when the
// size bit is set, then AND); power-of-two sizes as on the hardware. Branch-free: Mesa's
// lavapipe inlines a uniform that alone decides a branch and then recompiles the shader on
// every bind (the mode words are uniforms).
fn gx_wrap(c: i32, mode: u32, size: i32) -> i32 {
    let folded = select(c, select(c, ~c, (c & size) != 0), mode == 2u) & (size - 1);
    return select(clamp(c, 0, size - 1), folded, mode == 1u || mode == 2u);
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
// A specialized shader whose key knows the map's sampling calls the path itself.
fn gx_sample(t: texture_2d<f32>, smp: sampler, uv: vec2<f32>, dx: vec2<f32>, dy: vec2<f32>, mode: vec4<u32>) -> vec4<i32> {
    // The level count (never 0) joins the test so that it does not depend on uniforms
    // alone (see gx_wrap: lavapipe would recompile the shader on every bind).
    if (mode.x & 1u) == 0u && textureNumLevels(t) != 0u {
        return tev_u8_from_unorm(textureSampleGrad(t, smp, uv, dx, dy));
    }
    return gx_sample_exact(t, uv, dx, dy, mode, mode.x);
}

// GX's rule. `filters` holds the mode word's filter bits (1 mag linear, 2 min linear, 3–4
// mip filter): a constant in a specialized shader, so that the compiler drops the paths
// it never takes (a software rasteriser runs both sides of a branch); wraps and LODs
// come from the uniform mode words.
fn gx_sample_exact(t: texture_2d<f32>, uv: vec2<f32>, dx: vec2<f32>, dy: vec2<f32>, mode: vec4<u32>, filters: u32) -> vec4<i32> {
    let size = vec2<f32>(textureDimensions(t, 0));
    // LOD: log2 of the largest texel-space step to the right or lower neighbour, in 1/16
    // (exponent and top four mantissa bits), plus the bias.
    let d = max(max(abs(dx.x), abs(dy.x)) * size.x, max(abs(dx.y), abs(dy.y)) * size.y);
    var lod = i32(bitcast<u32>(d) >> 19u) - 2032 + bitcast<i32>(mode.w);
    let linear = select((filters & 2u) != 0u, (filters & 4u) != 0u, lod > 0);
    if lod > i32(mode.z) {
        lod = i32(mode.z);
    } else if lod < i32(mode.y) {
        lod = i32(mode.y);
    }
    // Coordinates in texels × 128, truncated toward zero (s17.7), at the point the
    // rasteriser evaluates attributes (GX_ATTRIBUTE_OFFSET from the pixel centre).
    let st = vec2<i32>((uv + GX_ATTRIBUTE_OFFSET * (dx + dy)) * size * 128.0);
    let mip = (filters >> 3u) & 3u;
    // Mipmapping (LOD > 0 and a mip filter): level LOD >> 4; linear blends the next level
    // by the fraction, nearest rounds up at a fraction ≥ 8. No branch on the filter alone.
    let mipped = lod > 0 && mip != 0u;
    let fract = lod & 15;
    let base = select(0, (lod >> 4u) + select(0, 1, mip != 2u && fract >= 8), mipped);
    let blend = select(0, fract, mipped && mip == 2u);
    let last = i32(textureNumLevels(t)) - 1;
    let a = gx_sample_level(t, st, min(base, last), linear, mode.x);
    if blend == 0 {
        return a;
    }
    let b = gx_sample_level(t, st, min(base + 1, last), linear, mode.x);
    return (a * (16 - blend) + b * blend) >> vec4<u32>(4u);
}
";

#[cfg(test)]
mod tests {
    use super::SAMPLER_LIBRARY;

    /// Mesa's lavapipe (22.x) inlines uniforms that alone decide a branch and recompiles
    /// the shader on every bind (measured on the stress room: 240 → 38 ms per frame at
    /// 320×180 once the sampler stopped doing it). Every branch here that reads a mode word
    /// also reads a per-pixel or per-texture value.
    #[test]
    fn no_branch_is_decided_by_mode_words_alone() {
        let words = |line: &str| {
            line.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .map(str::to_owned)
                .collect::<Vec<_>>()
        };
        let uniform = ["mode", "flags", "filters", "mip", "ws", "wt"];
        let varying = [
            "lod",
            "linear",
            "textureNumLevels",
            "blend",
            "st",
            "uv",
            "dx",
            "dy",
        ];
        let mut branches = 0;
        for line in SAMPLER_LIBRARY.lines().map(str::trim) {
            assert!(
                !["switch", "for ", "loop", "while"]
                    .iter()
                    .any(|b| line.starts_with(b)),
                "{line}"
            );
            let Some(cond) = line.strip_prefix("if ").or(line.strip_prefix("} else if ")) else {
                continue;
            };
            branches += 1;
            let w = words(cond);
            if w.iter().any(|x| uniform.contains(&x.as_str())) {
                assert!(
                    w.iter().any(|x| varying.contains(&x.as_str())),
                    "a branch decided by the mode words alone: {line}"
                );
            }
        }
        assert!(branches >= 3, "the scan found the branches");
    }
}
