//! GPU tests of the generated vertex stage against its CPU reference (`gx::lighting`).
//!
//! Every vertex is drawn as a one-pixel point (`render::probe`), at a pixel chosen by
//! placing it on the camera ray through that pixel at a random depth, so positions are
//! random in 3-D while each vertex owns exactly one pixel of the readback.
//!
//! **Lighting** (`lighting_*`): a one-stage TEV program outputs RASC/RASA of channel 0 or
//! 1 into an Rgba8Unorm target; each pixel must equal the reference's final 8-bit value.
//! The one relaxation is the one `gx.md` §10.1 states: the float part of step 4 (per
//! light `attn · diffuse · colour` before its rounding) is not hardware-exact, so where
//! that unrounded value lies within its float-error margin of a .5 boundary (margin
//! 1e-3 plus 2e-6 × the magnitude of the terms that form it; and for SPEC attenuation, N·L
//! within 1e-5 of its 0 branch), either rounding is accepted — i.e. lacc may move by the
//! number of such terms before step 6, and the output may be any value step 6 gives for
//! that lacc range. Everything else (ambient, clamp, step 6, unlit channels, sources,
//! masks, run-time enables) must be exact. The counts of exact and tie-relaxed components
//! are printed, and tie-relaxed ones must stay under 0.5 %.
//!
//! **Texgen** (`texgen_*`): (a) a probe fragment stage writes each texgen's (s, t, q) as
//! f32; each component must be within 1e-4 × (1 + Σ|terms|) of the reference (Σ|terms|
//! bounds the magnitude of the products that formed it), and (s/q, t/q) within 1e-3 ×
//! (1 + |uv|) where |q| ≥ 0.1; (b) through the real TEV fragment stage: TEXC of a
//! 1024 × 1024 coordinate texture (texel (x, y) stores x and y in 10-bit fields), nearest
//! sampling, REPEAT, must name the texel the reference's (s/q, t/q) falls in, within one
//! texel (≈ 1e-3 UV) circularly, where |uv| < 64 and |q| ≥ 0.1.
//! The reference is also checked against an independent evaluation for aligned matrix
//! ids, so a bug shared by the generator and the reference in the GX row addressing would
//! show up too.
//!
//! Cases come from a seeded generator (`VERTEX_GPU_SEED` overrides the seed).

mod tev_common;

use glam::{Mat4, Quat, Vec3, Vec4};
use tevscope::formats::mrea::parse_mrea;
use tevscope::gx::frame::{FrameCamera, FrameOptions, FrameUpdate, pack_light};
use tevscope::gx::lighting::{VertexResult, channel_final, run_vertices};
use tevscope::gx::lights::{
    GxLight, LightOptions, LightPreset, LightSelection, LightSet, PrimeLight,
};
use tevscope::gx::tev::{TevOptions, TevProgram};
use tevscope::gx::types::*;
use tevscope::gx::wgsl::interface::GpuVertex;
use tevscope::gx::wgsl::vertex::{
    CH_ALPHA0, CH_ALPHA1, CH_COLOR0, CH_COLOR1, DrawUniforms, GpuLight, VertexKey,
};
use tevscope::model::TextureData;
use tevscope::render::context::RenderContext;
use tevscope::render::material::BoundTexture;
use tevscope::render::probe::{
    PointItem, TexcoordItem, bare_material, pixel_center_ndc, read_texcoords, render_point_tiles,
};
use tevscope::render::target::RgbaImage;
use tevscope::render::texture::{GpuTexture, SamplerMode, Wrap};

const TILE: u32 = 32;
const VERTS: usize = (TILE * TILE) as usize;
const FOV_Y: f32 = 1.0;
const NEAR: f32 = 0.05;

// ---------------------------------------------------------------------------------------
// Seeded generator

struct Rng(u64);

impl Rng {
    fn new(salt: u64) -> Self {
        let seed = std::env::var("VERTEX_GPU_SEED")
            .ok()
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(0x7e55_c0de);
        eprintln!("seed {seed} (salt {salt}); set VERTEX_GPU_SEED to change");
        Self(seed ^ salt.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn f(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * ((self.next() >> 40) as f32 / (1u64 << 24) as f32)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn chance(&mut self, p: f32) -> bool {
        self.f(0.0, 1.0) < p
    }
    /// Bytes biased toward the values where the integer steps change behaviour.
    fn byte(&mut self) -> u8 {
        match self.below(10) {
            0 => [0, 1, 127, 128, 129, 254, 255][self.below(7)],
            _ => self.next() as u8,
        }
    }
    fn rgba(&mut self) -> [u8; 4] {
        [self.byte(), self.byte(), self.byte(), self.byte()]
    }
    fn unit(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(self.f(-1.0, 1.0), self.f(-1.0, 1.0), self.f(-1.0, 1.0));
            let l = v.length();
            if l > 0.1 && l <= 1.0 {
                return v / l;
            }
        }
    }
    fn vec(&mut self, r: f32) -> Vec3 {
        Vec3::new(self.f(-r, r), self.f(-r, r), self.f(-r, r))
    }
}

// ---------------------------------------------------------------------------------------
// Scenes: a camera and a model placement; vertices on the rays through their pixels.

#[derive(Clone, Copy)]
struct Scene {
    world_from_model: Mat4,
    view_from_world: Mat4,
    clip_from_view: Mat4,
}

impl Scene {
    fn random(rng: &mut Rng) -> Self {
        let rot = Quat::from_axis_angle(rng.unit(), rng.f(-3.1, 3.1));
        let scale = if rng.chance(0.5) {
            Vec3::splat(rng.f(0.5, 2.0))
        } else {
            Vec3::new(rng.f(0.5, 2.0), rng.f(0.5, 2.0), rng.f(0.5, 2.0))
        };
        let world_from_model = Mat4::from_scale_rotation_translation(scale, rot, rng.vec(5.0));
        let eye = rng.vec(10.0);
        let target = rng.vec(2.0);
        let up = if rng.chance(0.5) { Vec3::Z } else { Vec3::Y };
        let view_from_world = if (target - eye).normalize().cross(up).length() < 0.1 {
            glam::camera::rh::view::look_at_mat4(eye, target, Vec3::X)
        } else {
            glam::camera::rh::view::look_at_mat4(eye, target, up)
        };
        Self {
            world_from_model,
            view_from_world,
            clip_from_view: glam::camera::rh::proj::directx::perspective(FOV_Y, 1.0, NEAR, 200.0),
        }
    }

    fn view_from_model(&self) -> Mat4 {
        self.view_from_world * self.world_from_model
    }

    fn camera(&self) -> FrameCamera {
        FrameCamera {
            view_from_world: self.view_from_world,
            clip_from_view: self.clip_from_view,
        }
    }

    fn uniforms(&self) -> DrawUniforms {
        let vm = self.view_from_model();
        DrawUniforms {
            clip_from_model: (self.clip_from_view * vm).to_cols_array_2d(),
            view_from_model: vm.to_cols_array_2d(),
            normal_view_from_model: vm.inverse().transpose().to_cols_array_2d(),
            ..Default::default()
        }
    }

    /// Model-space position of vertex `index` at view depth `depth`.
    fn position(&self, index: usize, depth: f32) -> [f32; 3] {
        let [x, y] = pixel_center_ndc(index, TILE, TILE);
        let t = (FOV_Y * 0.5).tan();
        let p_view = Vec3::new(x * t * depth, y * t * depth, -depth);
        self.view_from_model()
            .inverse()
            .transform_point3(p_view)
            .to_array()
    }

    /// World position of a view-space point.
    fn world(&self, p_view: Vec3) -> Vec3 {
        self.view_from_world.inverse().transform_point3(p_view)
    }

    fn world_dir(&self, d_view: Vec3) -> Vec3 {
        self.view_from_world
            .inverse()
            .transform_vector3(d_view)
            .normalize()
    }
}

fn random_vertices(rng: &mut Rng, scene: &Scene, depth: (f32, f32)) -> Vec<GpuVertex> {
    (0..VERTS)
        .map(|i| {
            let mut tex = [[0.0f32; 2]; 8];
            for t in &mut tex {
                *t = [rng.f(-2.0, 2.0), rng.f(-2.0, 2.0)];
            }
            GpuVertex {
                position: scene.position(i, rng.f(depth.0, depth.1)),
                normal: (rng.unit() * rng.f(0.5, 2.0)).to_array(),
                color0: rng.rgba(),
                color1: rng.rgba(),
                tex,
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Lights

/// Region of view space where vertices live (centre of the depth range).
const SCENE_CENTRE_VIEW: Vec3 = Vec3::new(0.0, 0.0, -6.0);

/// A brightness that makes a light of `falloff` reach attenuation ≈ 0.2…2 at `dist`.
fn brightness(rng: &mut Rng, falloff: u32, dist: f32) -> f32 {
    let f = rng.f(0.2, 2.0);
    match falloff {
        0 => 2.0 * f,
        1 => 250.0 * dist * f,
        _ => 25000.0 * dist * dist * f,
    }
}

/// One random light (world space) from gx::lights; `k0_positive` keeps to lights whose
/// k0 > 0 (for SPEC attenuation, where k0 = 0 divides by zero when x = 0).
fn random_light(rng: &mut Rng, scene: &Scene, k0_positive: bool) -> GxLight {
    let color = rng.rgba();
    let colorf = color.map(|c| f32::from(c) / 255.0);
    let p_view =
        SCENE_CENTRE_VIEW + Vec3::new(rng.f(-7.0, 7.0), rng.f(-7.0, 7.0), rng.f(-6.0, 6.0));
    let dist = (p_view - SCENE_CENTRE_VIEW).length().max(0.5);
    let position = scene.world(p_view).to_array();
    let toward = scene
        .world_dir(SCENE_CENTRE_VIEW + rng.vec(2.0) - p_view)
        .to_array();
    let falloff = if k0_positive { 0 } else { rng.below(3) as u32 };
    match rng.below(4) {
        0 => GxLight::directional(color, scene.world_dir(rng.unit()).to_array()),
        1 => {
            let cutoff = match rng.below(8) {
                0 => 0.0,
                1 => 200.0,
                _ => rng.f(10.0, 175.0),
            };
            let rec = PrimeLight {
                light_type: 3,
                color: colorf,
                position,
                direction: toward,
                brightness: brightness(rng, falloff, dist),
                spot_cutoff: cutoff,
                falloff,
            };
            match rec.to_gx(&LightOptions::default()) {
                tevscope::gx::lights::GxLightValue::Light(l) => l,
                _ => unreachable!("a spot record is a light"),
            }
        }
        2 => {
            let rec = PrimeLight {
                light_type: 2,
                color: colorf,
                position,
                direction: [1.0, 0.0, 0.0],
                brightness: brightness(rng, falloff, dist),
                spot_cutoff: 0.0,
                falloff,
            };
            match rec.to_gx(&LightOptions::default()) {
                tevscope::gx::lights::GxLightValue::Light(l) => l,
                _ => unreachable!("a custom record is a light"),
            }
        }
        _ => GxLight {
            color,
            position,
            direction: if rng.chance(0.5) {
                toward
            } else {
                rng.unit().to_array()
            },
            angle_atten: [rng.f(-1.5, 1.5), rng.f(-1.5, 1.5), rng.f(-1.5, 1.5)],
            dist_atten: [
                rng.f(0.2, 2.0),
                rng.f(0.0, 0.3) / dist,
                rng.f(0.0, 0.05) / dist,
            ],
        },
    }
}

// ---------------------------------------------------------------------------------------
// Channel controls

/// All 72 structural combinations of a channel control (light mask is a uniform).
fn all_controls() -> Vec<ChannelControl> {
    let mut out = Vec::new();
    for lighting in [false, true] {
        for ambient_src in [ColorSrc::Register, ColorSrc::Vertex] {
            for material_src in [ColorSrc::Register, ColorSrc::Vertex] {
                for diffuse_fn in [DiffuseFn::None, DiffuseFn::Sign, DiffuseFn::Clamp] {
                    for attn_fn in [AttnFn::Spec, AttnFn::Spot, AttnFn::None] {
                        out.push(ChannelControl {
                            lighting,
                            ambient_src,
                            material_src,
                            light_mask: 0,
                            diffuse_fn,
                            attn_fn,
                        });
                    }
                }
            }
        }
    }
    out
}

/// The word of a control with light mask bits `mask`.
fn control_word(c: &ChannelControl, mask: u8) -> u32 {
    let src = |s: ColorSrc| (s == ColorSrc::Vertex) as u32;
    let d = match c.diffuse_fn {
        DiffuseFn::None => 0,
        DiffuseFn::Sign => 1,
        DiffuseFn::Clamp => 2,
    };
    let a = match c.attn_fn {
        AttnFn::Spec => 0,
        AttnFn::Spot => 1,
        AttnFn::None => 2,
    };
    c.lighting as u32
        | src(c.ambient_src) << 1
        | src(c.material_src) << 2
        | u32::from(mask) << 3
        | d << 11
        | a << 13
}

// ---------------------------------------------------------------------------------------
// Tie-aware expectation for lit channels

fn v3(a: [f32; 4]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

/// The view-space position and normal the reference uses for a vertex.
fn view_pn(u: &DrawUniforms, v: &GpuVertex) -> (Vec3, Vec3) {
    let vm = Mat4::from_cols_array_2d(&u.view_from_model);
    let nm = Mat4::from_cols_array_2d(&u.normal_view_from_model);
    let p = (vm * Vec3::from(v.position).extend(1.0)).truncate();
    let n = (nm * Vec3::from(v.normal).extend(0.0))
        .truncate()
        .normalize();
    (p, n)
}

/// The integers one light's term (component `k`) may round to, given the float error of
/// step 4 (`gx.md` §10.1: not hardware-exact).
fn term_bounds(
    light: &GpuLight,
    p: Vec3,
    n: Vec3,
    diffuse_fn: DiffuseFn,
    attn_fn: AttnFn,
    k: usize,
) -> (i32, i32) {
    let v = v3(light.position) - p;
    let dist2 = v.dot(v);
    let dist = dist2.sqrt();
    let l = v / dist;
    let ndl = l.dot(n);
    let diffuse = match diffuse_fn {
        DiffuseFn::None => 1.0,
        DiffuseFn::Sign => ndl,
        DiffuseFn::Clamp => ndl.max(0.0),
    };
    let a = v3(light.cos_atten);
    let kd = v3(light.dist_atten);
    let poly = |x: f32, den: f32| -> (f32, f32) {
        let num = a.x + a.y * x + a.z * x * x;
        (
            num.max(0.0) / den,
            (a.x.abs() + a.y.abs() + a.z.abs()) / den.abs(),
        )
    };
    // (attenuation, magnitude of its terms) for each branch GX could take.
    let attns: Vec<(f32, f32)> = match attn_fn {
        AttnFn::None => vec![(1.0, 1.0)],
        AttnFn::Spot => {
            let c = l.dot(v3(light.direction)).max(0.0);
            vec![poly(c, kd.x + kd.y * dist + kd.z * dist2)]
        }
        AttnFn::Spec => {
            let x_pos = n.dot(v3(light.direction)).max(0.0);
            let branch = |x: f32| poly(x, kd.x + kd.y * x + kd.z * x * x);
            let mut v = vec![branch(if ndl >= 0.0 { x_pos } else { 0.0 })];
            if ndl.abs() < 1e-5 {
                v.push(branch(if ndl >= 0.0 { 0.0 } else { x_pos }));
            }
            v
        }
    };
    let c = light.color[k];
    let mut lo = i32::MAX;
    let mut hi = i32::MIN;
    for (attn, mag) in attns {
        let x = attn * diffuse * c;
        let margin = 1e-3 + 2e-6 * c * (mag + attn.abs()) * diffuse.abs().max(1.0);
        let r = |x: f32| x.round_ties_even().clamp(-65536.0, 65536.0) as i32;
        lo = lo.min(r(x - margin));
        hi = hi.max(r(x + margin));
    }
    (lo, hi)
}

/// The range of outputs GX allows for component `k` of control `index` of a vertex.
fn channel_bounds(
    index: usize,
    control: &ChannelControl,
    u: &DrawUniforms,
    v: &GpuVertex,
    k: usize,
) -> (i32, i32) {
    let ch = index / 2;
    let vtx = [v.color0, v.color1][ch].map(i32::from);
    let src = |s: ColorSrc, r: [f32; 4]| match s {
        ColorSrc::Register => r[k].round_ties_even() as i32,
        ColorSrc::Vertex => vtx[k],
    };
    let mat = src(control.material_src, u.channel_material[ch]);
    if !(control.lighting && u.channel_lit[index] != 0) {
        return (mat, mat);
    }
    let amb = src(control.ambient_src, u.channel_ambient[ch]);
    let (p, n) = view_pn(u, v);
    let (mut lo, mut hi) = (amb, amb);
    for (j, light) in u.lights.iter().enumerate() {
        if u.light_mask[0] & (1 << j) != 0 {
            let (a, b) = term_bounds(light, p, n, control.diffuse_fn, control.attn_fn, k);
            lo += a;
            hi += b;
        }
    }
    (channel_final(mat, lo), channel_final(mat, hi))
}

// ---------------------------------------------------------------------------------------
// Lighting harness

/// One lighting case: a vertex key, its uniforms and vertices, and a description.
struct LightCase {
    name: String,
    key: VertexKey,
    draw: DrawUniforms,
    vertices: Vec<GpuVertex>,
}

#[derive(Default)]
struct Tally {
    exact: usize,
    tie: usize,
    failures: Vec<String>,
}

/// A point draw of a case's vertices (its key, uniforms and vertices) through
/// `material`'s TEV program.
fn probe_item(
    (key, draw, vertices): (&VertexKey, DrawUniforms, &[GpuVertex]),
    material: Material,
    textures: Vec<Option<BoundTexture>>,
) -> PointItem {
    let program = TevProgram::from_material(&material, &TevOptions::default());
    PointItem {
        vertex_key: key.clone(),
        material,
        program,
        draw,
        vertices: vertices.to_vec(),
        textures,
    }
}

fn check_lighting(ctx: &RenderContext, cases: &[LightCase]) -> Tally {
    let mut tally = Tally::default();
    // Two probes per case (channel 0 and channel 1), in chunks that fit one target.
    for chunk in cases.chunks(64) {
        let mut items = Vec::with_capacity(chunk.len() * 2);
        for case in chunk {
            for ch in 0..2u8 {
                let material =
                    tev_common::raster_probe(&bare_material(case.key.texgens.clone()), ch);
                let case = (&case.key, case.draw, &case.vertices[..]);
                items.push(probe_item(case, material, vec![]));
            }
        }
        // Clear to a colour the reference is unlikely to produce everywhere: a missing
        // point shows up as a mismatch.
        let clear = [3.0 / 255.0, 5.0 / 255.0, 7.0 / 255.0, 11.0 / 255.0];
        let tiles = render_point_tiles(ctx, &items, TILE, TILE, clear)
            .unwrap_or_else(|e| panic!("probe render: {e}"));
        for (ci, case) in chunk.iter().enumerate() {
            let expected = run_vertices(&case.key, &case.draw, &case.vertices);
            for ch in 0..2usize {
                let tile = &tiles[ci * 2 + ch];
                compare_channel(&mut tally, case, ch, tile, &expected);
            }
        }
    }
    tally
}

fn compare_channel(
    tally: &mut Tally,
    case: &LightCase,
    ch: usize,
    tile: &RgbaImage,
    expected: &[VertexResult],
) {
    for (i, (v, r)) in case.vertices.iter().zip(expected).enumerate() {
        let got = tile.pixel(i as u32 % TILE, i as u32 / TILE);
        let want = if ch == 0 { r.color0 } else { r.color1 };
        for k in 0..4 {
            if got[k] == want[k] {
                tally.exact += 1;
                continue;
            }
            let index = match (ch, k) {
                (0, 3) => CH_ALPHA0,
                (0, _) => CH_COLOR0,
                (_, 3) => CH_ALPHA1,
                _ => CH_COLOR1,
            };
            let (lo, hi) = channel_bounds(index, &case.key.channels[index], &case.draw, v, k);
            let g = i32::from(got[k]);
            if lo != hi && (lo..=hi).contains(&g) {
                tally.tie += 1;
            } else if tally.failures.len() < 20 {
                tally.failures.push(format!(
                    "{}: vertex {i} channel {ch} component {k}: GPU {got:?}, CPU {want:?} \
                     (allowed {lo}..={hi}); control {:?}; lit {:?}; mask {:#x}",
                    case.name,
                    case.key.channels[index],
                    case.draw.channel_lit,
                    case.draw.light_mask[0]
                ));
            } else {
                tally.failures.push(String::new());
            }
        }
    }
}

fn report(what: &str, tally: &Tally) {
    let total = tally.exact + tally.tie + tally.failures.len();
    eprintln!(
        "{what}: {total} components: {} exact, {} within a .5-boundary tie (gx.md §10.1), {} wrong",
        tally.exact,
        tally.tie,
        tally.failures.len()
    );
    let shown: Vec<&String> = tally.failures.iter().filter(|f| !f.is_empty()).collect();
    assert!(
        tally.failures.is_empty(),
        "{} of {total} components differ; first ones:\n{}",
        tally.failures.len(),
        shown
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert!(
        (tally.tie as f64) < 0.005 * total as f64,
        "too many tie-relaxed components: {} of {total}",
        tally.tie
    );
}

// ---------------------------------------------------------------------------------------
// Lighting tests

fn random_light_case(rng: &mut Rng, index: usize, controls: &[ChannelControl]) -> LightCase {
    let scene = Scene::random(rng);
    let channels: [ChannelControl; 4] =
        std::array::from_fn(|c| controls[(index + 17 * c) % controls.len()]);
    let spec = channels
        .iter()
        .any(|c| c.lighting && c.attn_fn == AttnFn::Spec);
    let n = rng.below(9);
    let mut draw = scene.uniforms();
    for j in 0..8 {
        let l = random_light(rng, &scene, spec);
        draw.lights[j] = pack_light(&l, &scene.view_from_world);
    }
    let full = ((1u32 << n) - 1) as u8;
    let mask = if rng.chance(0.6) {
        full
    } else {
        (rng.next() as u8) & full
    };
    draw.light_mask = [u32::from(mask), 0, 0, 0];
    for ch in 0..2 {
        draw.channel_ambient[ch] = rng.rgba().map(f32::from);
        draw.channel_material[ch] = rng.rgba().map(f32::from);
    }
    draw.channel_lit = std::array::from_fn(|_| rng.chance(0.85) as u32);
    let vertices = random_vertices(rng, &scene, (2.0, 10.0));
    LightCase {
        name: format!(
            "random case {index} (words {:#06x} {:#06x} {:#06x} {:#06x}, {n} lights)",
            control_word(&channels[0], mask),
            control_word(&channels[1], mask),
            control_word(&channels[2], mask),
            control_word(&channels[3], mask)
        ),
        key: VertexKey {
            texgens: vec![],
            channels,
            skinned: false,
            bake_uv: None,
            blended_normals: false,
            line: false,
        },
        draw,
        vertices,
    }
}

/// Every structural channel combination on each of COLOR0, ALPHA0, COLOR1 and ALPHA1,
/// 0–8 lights of every kind, random masks, registers, run-time enables,
/// positions, normals and colours.
#[test]
fn lighting_random_channels_match_the_reference_per_vertex() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let mut rng = Rng::new(1);
    let controls = all_controls();
    let cases: Vec<LightCase> = (0..controls.len())
        .map(|i| random_light_case(&mut rng, i, &controls))
        .collect();
    let tally = check_lighting(&ctx, &cases);
    report("random channel lighting", &tally);
}

fn prime_material(word: u32, channel_count: u32) -> Material {
    Material {
        color0: Some(ChannelControl::from_word(word)),
        channel_count,
        ..bare_material(vec![])
    }
}

/// The light sets of the MREA fixture: both layers' lights, layer 0's ambient.
fn mrea_light_set() -> Option<LightSet> {
    let (bytes, _) = tevscope::testing::conformance_file("mp1_lights_minimal.MREA")?;
    let m = parse_mrea(&bytes, "mp1_lights_minimal.MREA").expect("fixture parses");
    let layers = m.light_layers();
    let mut set = LightSet::from_layer(&layers[0], &LightOptions::default());
    for layer in &layers[1..] {
        set.lights
            .extend(LightSet::from_layer(layer, &LightOptions::default()).lights);
    }
    Some(set)
}

/// Materials as Prime sets them up (`VertexKey::for_material`, channel registers and
/// lights from `gx::frame::FrameUpdate`): channel counts 0/1/2, every COLOR0 word
/// structure, the Default and Alt channel switches, with the MREA fixture's lights, the
/// presets and random user light rigs.
#[test]
fn lighting_prime_materials_match_the_reference_per_vertex() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let mut rng = Rng::new(2);
    let controls = all_controls();
    let mrea = mrea_light_set();
    if let Some(set) = &mrea {
        assert_eq!(set.ambient, [63, 63, 127, 255]);
        assert_eq!(set.lights.len(), 2, "directional + spot");
    }
    let mut cases = Vec::new();
    for (i, &c) in controls.iter().enumerate() {
        let channel_count = (i % 3) as u32;
        let rig = i % 4;
        let scene;
        let depth;
        let (lights, selection) = match (rig, &mrea) {
            (0, Some(set)) if c.attn_fn != AttnFn::Spec => {
                // Camera close to the fixture's spot light (quadratic falloff, 25000/q):
                // vertices within centimetres of it, so its term is not negligible.
                let spot = Vec3::from(set.lights[1].position);
                let eye = spot + rng.unit() * 0.3;
                scene = Scene {
                    world_from_model: Mat4::IDENTITY,
                    view_from_world: glam::camera::rh::view::look_at_mat4(eye, spot, Vec3::Z),
                    clip_from_view: glam::camera::rh::proj::directx::perspective(
                        FOV_Y, 1.0, 0.01, 100.0,
                    ),
                };
                depth = (0.15, 0.45);
                (set.clone(), LightSelection::Brightest(4))
            }
            (1, _) => {
                scene = Scene::random(&mut rng);
                depth = (2.0, 10.0);
                (LightPreset::Basic.light_set(), LightSelection::default())
            }
            (2, _) => {
                scene = Scene::random(&mut rng);
                depth = (2.0, 10.0);
                (
                    LightPreset::GameNoLights.light_set(),
                    LightSelection::default(),
                )
            }
            _ => {
                scene = Scene::random(&mut rng);
                depth = (2.0, 10.0);
                let n = rng.below(9);
                let spec = c.attn_fn == AttnFn::Spec;
                let set = LightSet {
                    ambient: rng.rgba(),
                    lights: (0..n)
                        .map(|_| random_light(&mut rng, &scene, spec))
                        .collect(),
                };
                (set, LightSelection::First(8))
            }
        };
        let alt = rng.chance(0.2);
        let options = FrameOptions {
            light_selection: selection,
            channels: tevscope::gx::frame::ChannelOptions {
                color1_lit_black: alt && rng.chance(0.5),
                alpha_zero: alt,
                ..Default::default()
            },
            ..Default::default()
        };
        let material = prime_material(control_word(&c, rng.byte()), channel_count);
        let key = VertexKey::for_material_with(
            &material,
            &tevscope::gx::wgsl::vertex::VertexKeyOptions {
                alpha_from_register: alt,
            },
        );
        let mut frame = FrameUpdate::new(options);
        let model = frame.add_model(scene.world_from_model, Vec3::ZERO);
        let id = frame.add_material(model, &material);
        frame.update(rng.f(0.0, 100.0) as f64, &scene.camera(), &lights);
        let draw = frame.uniforms(id).expect("block");
        let vertices = random_vertices(&mut rng, &scene, depth);
        cases.push(LightCase {
            name: format!(
                "prime case {i} (word {:#06x}, {channel_count} channels, rig {rig}, alt {alt}, {} lights)",
                control_word(&c, 0),
                draw.light_mask[0].count_ones()
            ),
            key,
            draw,
            vertices,
        });
    }
    let tally = check_lighting(&ctx, &cases);
    report("Prime material lighting", &tally);
}

// ---------------------------------------------------------------------------------------
// Texgen harness

struct TexgenCase {
    name: String,
    key: VertexKey,
    draw: DrawUniforms,
    vertices: Vec<GpuVertex>,
}

fn rows_of(m: &[[f32; 4]; 3]) -> [Vec4; 3] {
    [Vec4::from(m[0]), Vec4::from(m[1]), Vec4::from(m[2])]
}

/// Texgens evaluated independently of `gx::lighting` for aligned matrix ids (TEXMTX0–9,
/// identity, PTTEXMTX0–19, PTIDENTITY), with Σ|terms| per component for the tolerance.
fn independent_texgens(
    key: &VertexKey,
    u: &DrawUniforms,
    v: &GpuVertex,
    r: &VertexResult,
) -> Vec<Option<([f32; 3], [f32; 3])>> {
    let mut done: Vec<[f32; 3]> = Vec::new();
    let mut out = Vec::new();
    for (i, tg) in key.texgens.iter().enumerate() {
        let x = match tg.source {
            TexGenSrc::Position => Vec3::from(v.position).extend(1.0),
            TexGenSrc::Normal => Vec3::from(v.normal).extend(1.0),
            TexGenSrc::Tex(n) => Vec4::new(v.tex[n as usize][0], v.tex[n as usize][1], 1.0, 1.0),
            TexGenSrc::TexCoord(n) if (n as usize) < i => {
                let c = done[n as usize];
                Vec4::new(c[0], c[1], 1.0, 1.0)
            }
            TexGenSrc::Color0 => Vec4::new(
                f32::from(r.color0[0]) / 255.0,
                f32::from(r.color0[1]) / 255.0,
                f32::from(r.color0[2]) / 255.0,
                1.0,
            ),
            TexGenSrc::Color1 => Vec4::new(
                f32::from(r.color1[0]) / 255.0,
                f32::from(r.color1[1]) / 255.0,
                f32::from(r.color1[2]) / 255.0,
                1.0,
            ),
            _ => {
                out.push(None);
                done.push(r.tex_coords[i]);
                continue;
            }
        };
        let rows = match tg.tex_mtx_slot() {
            Some(slot) => rows_of(&u.tex_mtx[slot]),
            None if tg.gx_tex_mtx == GX_IDENTITY => [Vec4::X, Vec4::Y, Vec4::Z],
            None => {
                out.push(None);
                done.push(r.tex_coords[i]);
                continue;
            }
        };
        let abs = x.abs();
        let mut c = Vec3::new(rows[0].dot(x), rows[1].dot(x), rows[2].dot(x));
        let mut mag = Vec3::new(
            rows[0].abs().dot(abs),
            rows[1].abs().dot(abs),
            rows[2].abs().dot(abs),
        );
        if tg.kind == TexGenType::Mtx2x4 {
            c.z = 1.0;
            mag.z = 1.0;
        }
        if tg.normalize {
            let len = c.length();
            c /= len;
            mag = (mag / len).max(Vec3::ONE);
        }
        match tg.post_mtx_slot() {
            Some(slot) => {
                let p = rows_of(&u.post_mtx[slot]);
                let x = c.extend(1.0);
                let m = mag.extend(1.0);
                c = Vec3::new(p[0].dot(x), p[1].dot(x), p[2].dot(x));
                mag = Vec3::new(p[0].abs().dot(m), p[1].abs().dot(m), p[2].abs().dot(m));
            }
            None if tg.gx_post_mtx == GX_PTIDENTITY => {}
            None => {
                out.push(None);
                done.push(r.tex_coords[i]);
                continue;
            }
        }
        done.push(c.to_array());
        out.push(Some((c.to_array(), mag.to_array())));
    }
    out
}

/// 1024 × 1024 texture whose texel (x, y) stores x and y in 10-bit fields:
/// R = x & 255, G = (x >> 8) | (y & 63) << 2, B = y >> 6, A = 255.
const COORD_SIZE: u32 = 1024;

fn coordinate_texture() -> TextureData {
    let mut bytes = Vec::with_capacity((COORD_SIZE * COORD_SIZE * 4) as usize);
    for y in 0..COORD_SIZE {
        for x in 0..COORD_SIZE {
            bytes.extend_from_slice(&[
                (x & 255) as u8,
                ((x >> 8) | (y & 63) << 2) as u8,
                (y >> 6) as u8,
                255,
            ]);
        }
    }
    TextureData {
        width: COORD_SIZE,
        height: COORD_SIZE,
        levels: vec![bytes],
    }
}

fn decode_coordinate(p: [u8; 4]) -> (u32, u32) {
    let x = u32::from(p[0]) | (u32::from(p[1]) & 3) << 8;
    let y = u32::from(p[1]) >> 2 | u32::from(p[2]) << 6;
    (x, y)
}

/// The texel index nearest sampling with REPEAT reads for coordinate `c`.
fn repeat_texel(c: f32) -> i64 {
    let f = c - c.floor();
    ((f * COORD_SIZE as f32).floor() as i64).rem_euclid(COORD_SIZE as i64)
}

fn circular_distance(a: i64, b: i64) -> i64 {
    let d = (a - b).rem_euclid(COORD_SIZE as i64);
    d.min(COORD_SIZE as i64 - d)
}

/// A one-stage program whose output is TEXC/TEXA of map 0 at texture coordinate `coord`.
fn texc_probe_material(texgens: Vec<TexGen>, coord: u8) -> Material {
    let st = TevStage::from_words(
        TevStage::color_inputs_word([
            ColorInput::Zero,
            ColorInput::Zero,
            ColorInput::Zero,
            ColorInput::Texc,
        ]),
        TevStage::alpha_inputs_word([
            AlphaInput::Zero,
            AlphaInput::Zero,
            AlphaInput::Zero,
            AlphaInput::Texa,
        ]),
        0x100,
        0x100,
        0,
        0,
        0xFF,
        0,
        coord,
    )
    .expect("texc stage");
    Material {
        stages: vec![st],
        texture_count: 1,
        ..bare_material(texgens)
    }
}

#[derive(Default)]
struct TexTally {
    float_checked: usize,
    uv_checked: usize,
    tev_checked: usize,
    max_rel_stq: f32,
    max_rel_uv: f32,
    failures: Vec<String>,
}

impl TexTally {
    fn fail(&mut self, s: String) {
        if self.failures.len() < 20 {
            self.failures.push(s);
        } else {
            self.failures.push(String::new());
        }
    }
}

fn check_texgens(ctx: &RenderContext, cases: &[TexgenCase]) -> TexTally {
    let mut tally = TexTally::default();
    let items: Vec<TexcoordItem> = cases
        .iter()
        .map(|c| TexcoordItem {
            vertex_key: c.key.clone(),
            draw: c.draw,
            vertices: c.vertices.clone(),
        })
        .collect();
    let got = read_texcoords(ctx, &items, TILE, TILE).unwrap_or_else(|e| panic!("probe: {e}"));
    let expected: Vec<Vec<VertexResult>> = cases
        .iter()
        .map(|c| run_vertices(&c.key, &c.draw, &c.vertices))
        .collect();

    // (a) Float readback of (s, t, q), and the reference against the independent sum.
    for (ci, case) in cases.iter().enumerate() {
        for (vi, (v, r)) in case.vertices.iter().zip(&expected[ci]).enumerate() {
            let indep = independent_texgens(&case.key, &case.draw, v, r);
            for (k, ind) in indep.iter().enumerate() {
                let want = r.tex_coords[k];
                let Some((ind_c, mag)) = ind else {
                    tally.fail(format!(
                        "{}: texgen {k} not independently evaluable",
                        case.name
                    ));
                    continue;
                };
                for c in 0..3 {
                    let tol = 1e-4 * (1.0 + mag[c]);
                    if (ind_c[c] - want[c]).abs() > tol * 0.1 {
                        tally.fail(format!(
                            "{}: vertex {vi} texgen {k} ({:?}): reference {want:?} vs independent {ind_c:?}",
                            case.name, case.key.texgens[k]
                        ));
                        break;
                    }
                }
                let Some(g) = got[ci][k][vi] else {
                    tally.fail(format!(
                        "{}: vertex {vi} texgen {k}: no point drawn",
                        case.name
                    ));
                    continue;
                };
                tally.float_checked += 1;
                for c in 0..3 {
                    let tol = 1e-4 * (1.0 + mag[c]);
                    let err = (g[c] - want[c]).abs();
                    tally.max_rel_stq = tally.max_rel_stq.max(err / (1.0 + mag[c]));
                    // NaN fails too.
                    if err.is_nan() || err > tol {
                        tally.fail(format!(
                            "{}: vertex {vi} texgen {k} ({:?}): GPU (s,t,q) {g:?}, CPU {want:?}",
                            case.name, case.key.texgens[k]
                        ));
                        break;
                    }
                }
                if want[2].abs() >= 0.1 {
                    tally.uv_checked += 1;
                    let uv_g = [g[0] / g[2], g[1] / g[2]];
                    let uv_w = r.uv(k);
                    for c in 0..2 {
                        let err = (uv_g[c] - uv_w[c]).abs() / (1.0 + uv_w[c].abs());
                        tally.max_rel_uv = tally.max_rel_uv.max(err);
                        if err.is_nan() || err > 1e-3 {
                            tally.fail(format!(
                                "{}: vertex {vi} texgen {k}: GPU uv {uv_g:?}, CPU {uv_w:?}",
                                case.name
                            ));
                            break;
                        }
                    }
                }
            }
        }
    }

    // (b) Through the TEV fragment stage: the coordinate texture's texel at (s/q, t/q).
    let coord = coordinate_texture();
    let bound = BoundTexture {
        texture: GpuTexture::upload(&ctx.device, &ctx.queue, &coord, "coordinate texture")
            .expect("upload"),
        sampler: SamplerMode::Nearest { wrap: Wrap::Repeat },
    };
    let mut items = Vec::new();
    let mut owners = Vec::new();
    for (ci, case) in cases.iter().enumerate() {
        // One texgen per case through the TEV (each case's pipeline costs a compile; the
        // float readback above covers every texgen), rotating over the texgens.
        let n = case.key.texgens.len();
        let k = (ci * 7 + ci / n.max(1)) % n.max(1);
        let material = texc_probe_material(case.key.texgens.clone(), k as u8);
        let case = (&case.key, case.draw, &case.vertices[..]);
        items.push(probe_item(case, material, vec![Some(bound.clone())]));
        owners.push((ci, k));
    }
    for (chunk, owner_chunk) in items.chunks(64).zip(owners.chunks(64)) {
        let tiles = render_point_tiles(ctx, chunk, TILE, TILE, [0.0; 4])
            .unwrap_or_else(|e| panic!("probe render: {e}"));
        for (tile, &(ci, k)) in tiles.iter().zip(owner_chunk) {
            let case = &cases[ci];
            for (vi, r) in expected[ci].iter().enumerate() {
                let [_, _, q] = r.tex_coords[k];
                let uv = r.uv(k);
                if q.abs() < 0.1 || uv[0].abs() >= 64.0 || uv[1].abs() >= 64.0 {
                    continue;
                }
                let px = tile.pixel(vi as u32 % TILE, vi as u32 / TILE);
                if px[3] != 255 {
                    tally.fail(format!(
                        "{}: vertex {vi} texgen {k}: no TEV point",
                        case.name
                    ));
                    continue;
                }
                tally.tev_checked += 1;
                let (x, y) = decode_coordinate(px);
                let (wx, wy) = (repeat_texel(uv[0]), repeat_texel(uv[1]));
                if circular_distance(i64::from(x), wx) > 1
                    || circular_distance(i64::from(y), wy) > 1
                {
                    tally.fail(format!(
                        "{}: vertex {vi} texgen {k} ({:?}): TEV sampled texel ({x}, {y}), CPU uv {uv:?} → ({wx}, {wy})",
                        case.name, case.key.texgens[k]
                    ));
                }
            }
        }
    }
    tally
}

fn report_texgens(what: &str, t: &TexTally) {
    eprintln!(
        "{what}: {} (s,t,q) checked (max error / (1 + Σ|terms|) {:.2e}), {} uv checked (max relative {:.2e}), {} TEV coordinate-texture lookups checked",
        t.float_checked, t.max_rel_stq, t.uv_checked, t.max_rel_uv, t.tev_checked
    );
    let shown: Vec<&str> = t
        .failures
        .iter()
        .filter(|f| !f.is_empty())
        .map(|s| s.as_str())
        .collect();
    assert!(
        t.failures.is_empty(),
        "{} texgen failures; first ones:\n{}",
        t.failures.len(),
        shown.join("\n")
    );
    assert!(t.float_checked > 0 && t.tev_checked > 0);
}

fn random_mtx(rng: &mut Rng) -> [[f32; 4]; 3] {
    std::array::from_fn(|_| std::array::from_fn(|_| rng.f(-1.5, 1.5)))
}

/// Lighting-free channel setup for texgen cases: COLOR0/COLOR1 unlit (REG or VTX) or lit
/// with no lights in the mask (ambient only: exact integers), so COLOR texgen inputs are
/// exact.
fn texgen_channels(rng: &mut Rng, draw: &mut DrawUniforms) -> [ChannelControl; 4] {
    let controls = all_controls();
    draw.light_mask = [0; 4];
    for ch in 0..2 {
        draw.channel_ambient[ch] = rng.rgba().map(f32::from);
        draw.channel_material[ch] = rng.rgba().map(f32::from);
    }
    draw.channel_lit = [1; 4];
    std::array::from_fn(|_| controls[rng.below(controls.len())])
}

fn random_texgen(rng: &mut Rng, i: usize) -> TexGen {
    let source = match rng.below(if i > 0 { 6 } else { 5 }) {
        0 => TexGenSrc::Position,
        1 => TexGenSrc::Normal,
        2 | 3 => TexGenSrc::Tex(rng.below(8) as u8),
        4 => {
            if rng.chance(0.5) {
                TexGenSrc::Color0
            } else {
                TexGenSrc::Color1
            }
        }
        _ => TexGenSrc::TexCoord(rng.below(i.min(7)) as u8),
    };
    TexGen {
        kind: if rng.chance(0.5) {
            TexGenType::Mtx3x4
        } else {
            TexGenType::Mtx2x4
        },
        source,
        gx_tex_mtx: if rng.chance(0.15) {
            GX_IDENTITY
        } else {
            30 + 3 * rng.below(10) as u32
        },
        normalize: rng.chance(0.3),
        gx_post_mtx: if rng.chance(0.3) {
            GX_PTIDENTITY
        } else {
            64 + 3 * rng.below(20) as u32
        },
    }
}

/// Every source Prime's texgens use (POS, NRM, TEX0–7, TEXCOORDn, COLOR0/1), MTX2x4 and
/// MTX3x4, every texture and post matrix slot and the identities, normalize on and off,
/// with random matrices.
#[test]
fn texgen_random_matches_the_reference() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let mut rng = Rng::new(3);
    let mut cases = Vec::new();
    for i in 0..64 {
        let scene = Scene::random(&mut rng);
        let mut draw = scene.uniforms();
        for m in &mut draw.tex_mtx {
            *m = random_mtx(&mut rng);
        }
        for m in &mut draw.post_mtx {
            *m = random_mtx(&mut rng);
        }
        let channels = texgen_channels(&mut rng, &mut draw);
        let count = 1 + i % 8;
        let texgens = (0..count).map(|k| random_texgen(&mut rng, k)).collect();
        let vertices = random_vertices(&mut rng, &scene, (2.0, 10.0));
        cases.push(TexgenCase {
            name: format!("random texgen case {i}"),
            key: VertexKey {
                texgens,
                channels,
                skinned: false,
                bake_uv: None,
                blended_normals: false,
                line: false,
            },
            draw,
            vertices,
        });
    }
    let t = check_texgens(&ctx, &cases);
    report_texgens("random texgens", &t);
}

fn random_animation(rng: &mut Rng, mode: u32) -> UvAnimation {
    match mode {
        0 => UvAnimation::InverseModelViewNoTranslation,
        1 => UvAnimation::InverseModelView,
        2 => UvAnimation::Scroll {
            offset_u: rng.f(-1.0, 1.0),
            offset_v: rng.f(-1.0, 1.0),
            speed_u: rng.f(-2.0, 2.0),
            speed_v: rng.f(-2.0, 2.0),
        },
        3 => UvAnimation::Rotation {
            offset: rng.f(-3.0, 3.0),
            speed: rng.f(-2.0, 2.0),
        },
        4 | 5 => {
            let frames = (1 + rng.below(16)) as f32;
            let (scale, num_frames, step, offset) =
                (rng.f(0.1, 1.0), frames, 1.0 / frames, rng.f(0.0, 10.0));
            if mode == 4 {
                UvAnimation::HorizontalFilmstrip {
                    scale,
                    num_frames,
                    step,
                    offset,
                }
            } else {
                UvAnimation::VerticalFilmstrip {
                    scale,
                    num_frames,
                    step,
                    offset,
                }
            }
        }
        6 => UvAnimation::Model,
        _ => UvAnimation::Cylinder {
            scale: rng.f(0.5, 2.0),
            phase: rng.f(-2.0, 2.0),
        },
    }
}

/// The texgen Prime pairs with animation `i` of `mode`: environment modes map normals or
/// positions through TEXMTXi and PTTEXMTXi, scroll-type modes map TEX0/TEX1.
fn prime_texgen(rng: &mut Rng, i: usize, mode: u32) -> TexGen {
    let mtx = 30 + 3 * i as u32;
    let post = 64 + 3 * i as u32;
    match mode {
        0 | 7 => TexGen {
            kind: TexGenType::Mtx3x4,
            source: TexGenSrc::Normal,
            gx_tex_mtx: mtx,
            normalize: true,
            gx_post_mtx: post,
        },
        1 | 6 => TexGen {
            kind: TexGenType::Mtx3x4,
            source: TexGenSrc::Position,
            gx_tex_mtx: mtx,
            normalize: false,
            gx_post_mtx: post,
        },
        _ => TexGen {
            kind: TexGenType::Mtx2x4,
            source: TexGenSrc::Tex(rng.below(2) as u8),
            gx_tex_mtx: mtx,
            normalize: false,
            gx_post_mtx: GX_PTIDENTITY,
        },
    }
}

/// Texture and post matrices of every UV-animation mode 0–7, evaluated by
/// `gx::frame::FrameUpdate` (and so `gx::uvanim`) at several times and camera poses.
#[test]
fn texgen_uv_animations_match_the_reference() {
    let Some(ctx) = RenderContext::for_tests() else {
        return;
    };
    let mut rng = Rng::new(4);
    let mut cases = Vec::new();
    for m in 0..16 {
        // Each material: up to four animations, covering every mode twice over the set.
        let count = 1 + m % 4;
        let modes: Vec<u32> = (0..count).map(|k| ((m + 5 * k) % 8) as u32).collect();
        let anims: Vec<UvAnimation> = modes
            .iter()
            .map(|&md| random_animation(&mut rng, md))
            .collect();
        let mut texgens: Vec<TexGen> = modes
            .iter()
            .enumerate()
            .map(|(i, &md)| prime_texgen(&mut rng, i, md))
            .collect();
        // Plus an untouched TEX0 texgen through the identity, as most materials have.
        texgens.push(TexGen {
            kind: TexGenType::Mtx2x4,
            source: TexGenSrc::Tex(0),
            gx_tex_mtx: GX_IDENTITY,
            normalize: false,
            gx_post_mtx: GX_PTIDENTITY,
        });
        let material = Material {
            texgens: texgens.clone(),
            uv_animations: anims,
            color0: Some(ChannelControl::from_word(0x3001)),
            channel_count: 1,
            ..bare_material(vec![])
        };
        let key = VertexKey::for_material(&material);
        for pose in 0..2 {
            let scene = Scene::random(&mut rng);
            let mut frame = FrameUpdate::new(FrameOptions::default());
            let model = frame.add_model(scene.world_from_model, Vec3::ZERO);
            let id = frame.add_material(model, &material);
            for &t in &[0.0, 1.25, 37.5, 901.5] {
                frame.update(t, &scene.camera(), &LightPreset::Basic.light_set());
                let draw = frame.uniforms(id).expect("block");
                let vertices = random_vertices(&mut rng, &scene, (2.0, 10.0));
                cases.push(TexgenCase {
                    name: format!("material {m} modes {modes:?} pose {pose} t {t}"),
                    key: key.clone(),
                    draw,
                    vertices,
                });
            }
        }
    }
    let t = check_texgens(&ctx, &cases);
    report_texgens("UV-animation texgens", &t);
}
