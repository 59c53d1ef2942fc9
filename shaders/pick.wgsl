// The pick pass (surface index + depth per pixel), the selection tint and the wireframe
// view's edges; src/render/pick.rs appends the vertex stages (`vs_plain`, `vs_skinned`) with GX's
// vertex snapping (`gx_snap`).

// The selection tint, blended over the surface (src/render/pick.rs `TINT_RGBA` matches).
const TINT_RGBA = vec4<f32>(1.0, 0.78, 0.1, 0.45);

struct PickUniforms { clip_from_model: mat4x4<f32>, viewport: vec4<f32> }
@group(0) @binding(0) var<uniform> u_pick: PickUniforms;

struct PickOut {
    @builtin(position) position: vec4<f32>,
    @location(0) @interpolate(flat) surface: u32,
}

@fragment
fn fs_main(i: PickOut) -> @location(0) vec2<u32> {
    return vec2<u32>(i.surface + 1u, bitcast<u32>(i.position.z));
}

@fragment
fn fs_tint() -> @location(0) vec4<f32> {
    return TINT_RGBA;
}

// The wireframe debug view's edges (src/render/debug_pass.rs): drawn a little nearer than
// the triangles they border, so the depth test keeps them over their own faces.
const WIRE_RGBA = vec4<f32>(0.85, 1.0, 0.9, 0.85);

struct WireOut {
    @location(0) color: vec4<f32>,
    @builtin(frag_depth) depth: f32,
}

@fragment
fn fs_wire(i: PickOut) -> WireOut {
    var o: WireOut;
    o.color = WIRE_RGBA;
    o.depth = max(i.position.z - 1e-5, 0.0);
    return o;
}
