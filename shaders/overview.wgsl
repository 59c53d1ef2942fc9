// The world overview: room geometry seen from above, flat-shaded per triangle (the normal
// from screen-space derivatives, so vertices carry no normals) and tinted per room; higher
// floors are brighter so levels read apart. The hovered room is lightened.

struct Uniforms {
    clip_from_world: mat4x4<f32>,
    // World z of the lowest and highest geometry (brightness by height).
    z_range: vec2<f32>,
    // Room index to lighten; 0xFFFFFFFF: none.
    highlight: u32,
    _pad: u32,
};

@group(0) @binding(0) var<uniform> u: Uniforms;

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) tint: vec4<f32>,
    @location(2) @interpolate(flat) room: u32,
};

@vertex
fn vs_main(
    @location(0) position: vec3<f32>,
    @location(1) tint: vec4<f32>,
    @location(2) room: u32,
) -> VertexOut {
    var out: VertexOut;
    out.clip = u.clip_from_world * vec4<f32>(position, 1.0);
    out.world = position;
    out.tint = tint;
    out.room = room;
    return out;
}

@fragment
fn fs_main(in: VertexOut) -> @location(0) vec4<f32> {
    var n = cross(dpdx(in.world), dpdy(in.world));
    let len = length(n);
    if (len > 0.0) {
        n = n / len;
    } else {
        n = vec3<f32>(0.0, 0.0, 1.0);
    }
    // Seen from above: the side facing the viewer.
    if (n.z < 0.0) {
        n = -n;
    }
    let light = normalize(vec3<f32>(-0.35, 0.45, 1.0));
    let lambert = 0.45 + 0.55 * max(dot(n, light), 0.0);
    let span = max(u.z_range.y - u.z_range.x, 1e-4);
    let height = clamp((in.world.z - u.z_range.x) / span, 0.0, 1.0);
    var rgb = in.tint.rgb * lambert * (0.7 + 0.3 * height);
    if (in.room == u.highlight) {
        rgb = mix(rgb, vec3<f32>(1.0, 1.0, 1.0), 0.35);
    }
    return vec4<f32>(rgb, 1.0);
}
