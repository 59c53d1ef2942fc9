// A full-screen triangle writing the bits of each pixel's stored depth as RGBA8.
// Used by src/render/target.rs.
@group(0) @binding(0) var t_depth: texture_2d<f32>;

@vertex
fn vs_main(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let p = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    return vec4<f32>(p * 2.0 - 1.0, 0.0, 1.0);
}

@fragment
fn fs_main(@builtin(position) frag: vec4<f32>) -> @location(0) vec4<f32> {
    let bits = bitcast<u32>(textureLoad(t_depth, vec2<i32>(frag.xy), 0).r);
    let bytes = (vec4<u32>(bits) >> vec4<u32>(0u, 8u, 16u, 24u)) & vec4<u32>(255u);
    return vec4<f32>(bytes) / 255.0;
}
