// The viewer's display pass: the exact target as the screen shows it (alpha over a
// checkerboard, colour only, or alpha as grey). Used by src/ui/viewport/display.rs.
struct Params { mode: u32, cell: f32, pad0: f32, pad1: f32 }
@group(0) @binding(0) var src: texture_2d<f32>;
@group(0) @binding(1) var<uniform> params: Params;

@vertex
fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let x = f32((i << 1u) & 2u);
    let y = f32(i & 2u);
    return vec4<f32>(x * 2.0 - 1.0, 1.0 - y * 2.0, 0.0, 1.0);
}

@fragment
fn fs(@builtin(position) pos: vec4<f32>) -> @location(0) vec4<f32> {
    let c = textureLoad(src, vec2<i32>(pos.xy), 0);
    let cell = vec2<i32>(pos.xy / params.cell);
    let check = select(0.235, 0.353, ((cell.x + cell.y) & 1) == 0);
    switch params.mode {
        case 1u: { return vec4<f32>(c.rgb, 1.0); }
        case 2u: { return vec4<f32>(c.aaa, 1.0); }
        default: { return vec4<f32>(mix(vec3<f32>(check), c.rgb, c.a), 1.0); }
    }
}
