//! CPU reference of the generated vertex stage: GX lighting channels (`gx.md` §10.1) and
//! texture coordinate generation (§11).
//!
//! It takes the same inputs as the shader — a [`VertexKey`], a [`DrawUniforms`] and
//! [`GpuVertex`]es — and performs the same operations in the same order, so a GPU test
//! renders a vertex list and compares against [`run_vertices`]. Floats follow the
//! shader (f32, WGSL's round-half-to-even); the integer steps (per-light rounding,
//! clamp, `(mat · (lacc + (lacc >> 7))) >> 8`) are exact.

use glam::{Mat4, Vec3, Vec4};
use serde::Serialize;

use super::types::{AttnFn, ChannelControl, ColorSrc, DiffuseFn, TexGen, TexGenSrc, TexGenType};
use super::wgsl::interface::GpuVertex;
use super::wgsl::vertex::{
    CH_ALPHA0, CH_ALPHA1, CH_COLOR0, CH_COLOR1, DrawUniforms, GpuLight, MtxRow, VertexKey,
    post_mtx_rows, tex_mtx_rows,
};

/// GX lighting steps 5–6 on one component: clamp lacc to 0…255, then the hardware's
/// `(mat · (lacc + (lacc >> 7))) >> 8` (128 · 128 gives 64, not a TEV multiply's 65).
pub fn channel_final(mat: i32, lacc: i32) -> i32 {
    let lacc = lacc.clamp(0, 255);
    (mat * (lacc + (lacc >> 7))) >> 8
}

fn round_i32(x: f32) -> i32 {
    // Same bound as the shader before its integer conversion.
    x.round_ties_even().clamp(-65536.0, 65536.0) as i32
}

fn v3(a: [f32; 4]) -> Vec3 {
    Vec3::new(a[0], a[1], a[2])
}

/// How the lights' contributions add up into lacc (`gx.md` §10.1 step 4, §16).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub enum LaccSum {
    /// Default (the spec): each light's term rounded, then summed as integers (Dolphin's
    /// GPU path).
    #[default]
    RoundedPerLight,
    /// Alt: the terms summed in float onto the ambient and truncated once (Dolphin's
    /// software renderer).
    FloatTruncated,
}

impl LaccSum {
    /// The `DrawUniforms.light_mask[1]` word the shader reads.
    pub fn uniform_word(self) -> u32 {
        (self == Self::FloatTruncated) as u32
    }

    pub fn from_uniform_word(w: u32) -> Self {
        if w != 0 {
            Self::FloatTruncated
        } else {
            Self::RoundedPerLight
        }
    }
}

/// One light's contribution to lacc (step 4), rounded per light. `p` and `n` are in view
/// space; `light.direction` is GX's stored (negated) direction.
pub fn light_term(
    light: &GpuLight,
    p: Vec3,
    n: Vec3,
    diffuse_fn: DiffuseFn,
    attn_fn: AttnFn,
) -> [i32; 4] {
    light_term_f32(light, p, n, diffuse_fn, attn_fn).map(round_i32)
}

/// One light's contribution before any rounding.
pub fn light_term_f32(
    light: &GpuLight,
    p: Vec3,
    n: Vec3,
    diffuse_fn: DiffuseFn,
    attn_fn: AttnFn,
) -> [f32; 4] {
    let v = v3(light.position) - p;
    let dist2 = v.dot(v);
    let dist = dist2.sqrt();
    let l = v / dist;
    let n_dot_l = l.dot(n);
    let diffuse = match diffuse_fn {
        DiffuseFn::None => 1.0,
        DiffuseFn::Sign => n_dot_l,
        DiffuseFn::Clamp => 0.0f32.max(n_dot_l),
    };
    let cos_atten = v3(light.cos_atten);
    let dist_atten = v3(light.dist_atten);
    let attn = match attn_fn {
        AttnFn::None => 1.0,
        AttnFn::Spot => {
            let c = 0.0f32.max(l.dot(v3(light.direction)));
            0.0f32.max(cos_atten.dot(Vec3::new(1.0, c, c * c)))
                / dist_atten.dot(Vec3::new(1.0, dist, dist2))
        }
        AttnFn::Spec => {
            let x = if n_dot_l >= 0.0 {
                0.0f32.max(n.dot(v3(light.direction)))
            } else {
                0.0
            };
            0.0f32.max(cos_atten.dot(Vec3::new(1.0, x, x * x)))
                / dist_atten.dot(Vec3::new(1.0, x, x * x))
        }
    };
    let scale = attn * diffuse;
    light.color.map(|c| scale * c)
}

/// A lit channel (steps 3–6) for all four components: ambient plus every light in
/// `mask`, clamped, then the final integer step with `mat`.
#[allow(clippy::too_many_arguments)]
pub fn lit_channel(
    mat: [i32; 4],
    amb: [i32; 4],
    lights: &[GpuLight; 8],
    mask: u32,
    p: Vec3,
    n: Vec3,
    diffuse_fn: DiffuseFn,
    attn_fn: AttnFn,
) -> [i32; 4] {
    lit_channel_summed(
        LaccSum::RoundedPerLight,
        mat,
        amb,
        lights,
        mask,
        p,
        n,
        diffuse_fn,
        attn_fn,
    )
}

/// [`lit_channel`] with the lights summed by `sum`.
#[allow(clippy::too_many_arguments)]
pub fn lit_channel_summed(
    sum: LaccSum,
    mat: [i32; 4],
    amb: [i32; 4],
    lights: &[GpuLight; 8],
    mask: u32,
    p: Vec3,
    n: Vec3,
    diffuse_fn: DiffuseFn,
    attn_fn: AttnFn,
) -> [i32; 4] {
    let mut lacc = amb;
    let mut laccf = amb.map(|v| v as f32);
    for (j, light) in lights.iter().enumerate() {
        if mask & (1 << j) != 0 {
            let t = light_term_f32(light, p, n, diffuse_fn, attn_fn);
            for k in 0..4 {
                lacc[k] = lacc[k].wrapping_add(round_i32(t[k]));
                laccf[k] += t[k].clamp(-65536.0, 65536.0);
            }
        }
    }
    if sum == LaccSum::FloatTruncated {
        // Truncated toward zero, as a float-to-int conversion does.
        lacc = laccf.map(|v| v.clamp(-1.0e9, 1.0e9) as i32);
    }
    [0, 1, 2, 3].map(|k| channel_final(mat[k], lacc[k]))
}

fn reg(c: [f32; 4]) -> [i32; 4] {
    c.map(|x| x.round_ties_even() as i32)
}

/// One channel control (index [`CH_COLOR0`] … [`CH_ALPHA1`]) as the shader evaluates it;
/// all four components are returned, the caller keeps rgb (colour) or a (alpha).
pub fn eval_channel(
    index: usize,
    control: &ChannelControl,
    u: &DrawUniforms,
    vertex_colors: &[[i32; 4]; 2],
    p: Vec3,
    n: Vec3,
) -> [i32; 4] {
    let ch = index / 2;
    let src = |s: ColorSrc, r: [f32; 4]| match s {
        ColorSrc::Register => reg(r),
        ColorSrc::Vertex => vertex_colors[ch],
    };
    let mat = src(control.material_src, u.channel_material[ch]);
    if control.lighting && u.channel_lit[index] != 0 {
        let amb = src(control.ambient_src, u.channel_ambient[ch]);
        lit_channel_summed(
            LaccSum::from_uniform_word(u.light_mask[1]),
            mat,
            amb,
            &u.lights,
            u.light_mask[0],
            p,
            n,
            control.diffuse_fn,
            control.attn_fn,
        )
    } else {
        mat
    }
}

/// What the vertex stage outputs for one vertex.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct VertexResult {
    pub clip_position: [f32; 4],
    /// rgb = COLOR0, a = ALPHA0 (8-bit values; the shader outputs them / 255).
    pub color0: [u8; 4],
    /// rgb = COLOR1, a = ALPHA1.
    pub color1: [u8; 4],
    /// Homogeneous (s, t, q) per texgen; only the first `tex_coord_count` are used.
    pub tex_coords: [[f32; 3]; 8],
    pub tex_coord_count: usize,
}

impl VertexResult {
    /// The projected texture coordinate (s/q, t/q) of texgen i, as the fragment stage
    /// samples with it.
    pub fn uv(&self, i: usize) -> [f32; 2] {
        let [s, t, q] = self.tex_coords[i];
        [s / q, t / q]
    }
}

fn mat4(m: &[[f32; 4]; 4]) -> Mat4 {
    // DrawUniforms stores WGSL mat4x4 = four columns.
    Mat4::from_cols_array_2d(m)
}

fn row(u: &DrawUniforms, r: MtxRow) -> Vec4 {
    match r {
        MtxRow::Tex(i) => Vec4::from(u.tex_mtx[i / 3][i % 3]),
        MtxRow::Post(i) => Vec4::from(u.post_mtx[i / 3][i % 3]),
        MtxRow::Identity(k) => Vec4::from([0, 1, 2, 3].map(|j| if j == k { 1.0 } else { 0.0 })),
        MtxRow::Zero => Vec4::ZERO,
    }
}

fn color_vec(c: [i32; 4]) -> Vec3 {
    Vec3::new(c[0] as f32, c[1] as f32, c[2] as f32) / 255.0
}

struct Ctx<'a> {
    u: &'a DrawUniforms,
    v: &'a GpuVertex,
    p_view: Vec3,
    chan_color0: [i32; 4],
    chan_color1: [i32; 4],
}

fn texgen_input(ctx: &Ctx, done: &[[f32; 3]], i: usize, src: TexGenSrc) -> Vec4 {
    match src {
        TexGenSrc::Position => Vec3::from(ctx.v.position).extend(1.0),
        TexGenSrc::Normal => Vec3::from(ctx.v.normal).extend(1.0),
        TexGenSrc::Binormal | TexGenSrc::Tangent => Vec4::new(0.0, 0.0, 0.0, 1.0),
        TexGenSrc::Tex(n) => {
            let [s, t] = ctx.v.tex[n as usize];
            Vec4::new(s, t, 1.0, 1.0)
        }
        TexGenSrc::TexCoord(n) if (n as usize) < i => {
            let [s, t, _] = done[n as usize];
            Vec4::new(s, t, 1.0, 1.0)
        }
        TexGenSrc::TexCoord(_) => Vec4::new(0.0, 0.0, 1.0, 1.0),
        TexGenSrc::Color0 => color_vec(ctx.chan_color0).extend(1.0),
        TexGenSrc::Color1 => color_vec(ctx.chan_color1).extend(1.0),
    }
}

fn texgen(ctx: &Ctx, done: &[[f32; 3]], i: usize, tg: &TexGen) -> [f32; 3] {
    match tg.kind {
        TexGenType::Mtx2x4 | TexGenType::Mtx3x4 => {
            let x = texgen_input(ctx, done, i, tg.source);
            let two = tg.kind == TexGenType::Mtx2x4;
            let mut c = match tex_mtx_rows(tg.gx_tex_mtx) {
                None if two => Vec3::new(x.x, x.y, 1.0),
                None => x.truncate(),
                Some([r0, r1, r2]) => {
                    let s = row(ctx.u, r0).dot(x);
                    let t = row(ctx.u, r1).dot(x);
                    let q = if two { 1.0 } else { row(ctx.u, r2).dot(x) };
                    Vec3::new(s, t, q)
                }
            };
            if tg.normalize {
                c = c.normalize();
            }
            if let Some([r0, r1, r2]) = post_mtx_rows(tg.gx_post_mtx) {
                let x = c.extend(1.0);
                c = Vec3::new(
                    row(ctx.u, r0).dot(x),
                    row(ctx.u, r1).dot(x),
                    row(ctx.u, r2).dot(x),
                );
            }
            c.to_array()
        }
        TexGenType::Bump(light) => {
            let base = match tg.source {
                TexGenSrc::TexCoord(n) if (n as usize) < i => Vec3::from(done[n as usize]),
                other => texgen_input(ctx, done, i, other).truncate(),
            };
            // No tangent/binormal attributes: the emboss offset is zero (as the shader).
            let l = (v3(ctx.u.lights[light as usize].position) - ctx.p_view).normalize();
            (base + Vec3::new(l.dot(Vec3::ZERO), l.dot(Vec3::ZERO), 0.0)).to_array()
        }
        TexGenType::Srtg => {
            let c = match tg.source {
                TexGenSrc::Color1 => ctx.chan_color1,
                _ => ctx.chan_color0,
            };
            [c[0] as f32 / 255.0, c[1] as f32 / 255.0, 1.0]
        }
    }
}

/// Runs the vertex stage for one vertex.
pub fn run_vertex(key: &VertexKey, u: &DrawUniforms, v: &GpuVertex) -> VertexResult {
    let pos = Vec3::from(v.position).extend(1.0);
    let clip = mat4(&u.clip_from_model) * pos;
    let p_view = (mat4(&u.view_from_model) * pos).truncate();
    let n_view = (mat4(&u.normal_view_from_model) * Vec3::from(v.normal).extend(0.0))
        .truncate()
        .normalize();
    let vtx = [v.color0.map(i32::from), v.color1.map(i32::from)];
    let chans: [[i32; 4]; 4] =
        [0, 1, 2, 3].map(|i| eval_channel(i, &key.channels[i], u, &vtx, p_view, n_view));
    let to_u8 = |c: i32| c.clamp(0, 255) as u8;
    let color0 = [
        to_u8(chans[CH_COLOR0][0]),
        to_u8(chans[CH_COLOR0][1]),
        to_u8(chans[CH_COLOR0][2]),
        to_u8(chans[CH_ALPHA0][3]),
    ];
    let color1 = [
        to_u8(chans[CH_COLOR1][0]),
        to_u8(chans[CH_COLOR1][1]),
        to_u8(chans[CH_COLOR1][2]),
        to_u8(chans[CH_ALPHA1][3]),
    ];
    let ctx = Ctx {
        u,
        v,
        p_view,
        chan_color0: chans[CH_COLOR0],
        chan_color1: chans[CH_COLOR1],
    };
    let mut tex_coords = [[0.0f32; 3]; 8];
    let count = key.texgens.len().min(8);
    for (i, tg) in key.texgens.iter().take(8).enumerate() {
        let c = texgen(&ctx, &tex_coords[..i], i, tg);
        tex_coords[i] = c;
    }
    VertexResult {
        clip_position: clip.to_array(),
        color0,
        color1,
        tex_coords,
        tex_coord_count: count,
    }
}

/// Runs the vertex stage for a vertex list (what a GPU test compares against).
pub fn run_vertices(
    key: &VertexKey,
    u: &DrawUniforms,
    vertices: &[GpuVertex],
) -> Vec<VertexResult> {
    vertices.iter().map(|v| run_vertex(key, u, v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gx::types::GX_PTIDENTITY;

    fn light(pos: [f32; 3], dir: [f32; 3], color: [f32; 4], a: [f32; 3], k: [f32; 3]) -> GpuLight {
        GpuLight {
            position: [pos[0], pos[1], pos[2], 0.0],
            direction: [dir[0], dir[1], dir[2], 0.0],
            color,
            cos_atten: [a[0], a[1], a[2], 0.0],
            dist_atten: [k[0], k[1], k[2], 0.0],
        }
    }

    #[test]
    fn final_step_truncates() {
        assert_eq!(channel_final(128, 128), 64);
        assert_eq!(channel_final(255, 255), 255);
        assert_eq!(channel_final(255, 128), 128);
        assert_eq!(channel_final(255, 100), 99);
        assert_eq!(channel_final(0, 255), 0);
        // lacc is clamped before the step.
        assert_eq!(channel_final(200, 400), channel_final(200, 255));
        assert_eq!(channel_final(200, -30), 0);
    }

    #[test]
    fn ambient_only_and_clamp() {
        let lights = [GpuLight::zeroed(); 8];
        let out = lit_channel(
            [255, 128, 64, 255],
            [128, 128, 255, 0],
            &lights,
            0,
            Vec3::ZERO,
            Vec3::Z,
            DiffuseFn::Clamp,
            AttnFn::Spot,
        );
        assert_eq!(out, [128, 64, 64, 0]);
        // A white light straight above a +Z normal saturates: clamp to 255.
        let mut lights = [GpuLight::zeroed(); 8];
        lights[0] = light(
            [0.0, 0.0, 10.0],
            [0.0, 0.0, -1.0],
            [255.0; 4],
            [1.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
        );
        let out = lit_channel(
            [200; 4],
            [100; 4],
            &lights,
            1,
            Vec3::ZERO,
            Vec3::Z,
            DiffuseFn::Clamp,
            AttnFn::Spot,
        );
        assert_eq!(out, [channel_final(200, 255); 4]);
        // Masked out: ambient only.
        let out = lit_channel(
            [200; 4],
            [100; 4],
            &lights,
            2,
            Vec3::ZERO,
            Vec3::Z,
            DiffuseFn::Clamp,
            AttnFn::Spot,
        );
        assert_eq!(out, [channel_final(200, 100); 4]);
    }

    #[test]
    fn float_sum_truncates_once() {
        // Two lights of 0.6 each on an ambient of 10: per light each rounds to 1 (12);
        // summed in float, 11.2 truncates to 11.
        let l = light(
            [0.0, 0.0, 1.0],
            [0.0; 3],
            [0.6; 4],
            [1.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
        );
        let mut lights = [GpuLight::zeroed(); 8];
        lights[0] = l;
        lights[1] = l;
        let run = |sum| {
            lit_channel_summed(
                sum,
                [255; 4],
                [10; 4],
                &lights,
                3,
                Vec3::ZERO,
                Vec3::Z,
                DiffuseFn::None,
                AttnFn::None,
            )
        };
        assert_eq!(run(LaccSum::RoundedPerLight), [channel_final(255, 12); 4]);
        assert_eq!(run(LaccSum::FloatTruncated), [channel_final(255, 11); 4]);
    }

    #[test]
    fn diffuse_functions() {
        // Light along (3, 0, 4)/5 from the vertex: N·L = 0.8.
        let l = light(
            [3.0, 0.0, 4.0],
            [0.0; 3],
            [200.0, 100.0, 50.0, 255.0],
            [1.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
        );
        let t = light_term(&l, Vec3::ZERO, Vec3::Z, DiffuseFn::Clamp, AttnFn::None);
        assert_eq!(t, [160, 80, 40, 204]);
        let t = light_term(&l, Vec3::ZERO, -Vec3::Z, DiffuseFn::Sign, AttnFn::None);
        assert_eq!(t, [-160, -80, -40, -204]);
        let t = light_term(&l, Vec3::ZERO, -Vec3::Z, DiffuseFn::Clamp, AttnFn::None);
        assert_eq!(t, [0; 4]);
        let t = light_term(&l, Vec3::ZERO, -Vec3::Z, DiffuseFn::None, AttnFn::None);
        assert_eq!(t, [200, 100, 50, 255]);
        // A negative (SIGN) term subtracts from the ambient before the clamp.
        let mut lights = [GpuLight::zeroed(); 8];
        lights[0] = l;
        let out = lit_channel(
            [255; 4],
            [200; 4],
            &lights,
            1,
            Vec3::ZERO,
            -Vec3::Z,
            DiffuseFn::Sign,
            AttnFn::None,
        );
        assert_eq!(out, [40, 120, 160, 0].map(|lacc| channel_final(255, lacc)));
    }

    #[test]
    fn spot_attenuation_cone() {
        // Spot at (0,0,10) pointing down (−Z): GX stores direction negated = +Z.
        // COS2 with cutoff 30°: a = (0, −cr/(1−cr), 1/(1−cr)); k = (1, 0, 0).
        let cr = 30.0f32.to_radians().cos();
        let a = [0.0, -cr / (1.0 - cr), 1.0 / (1.0 - cr)];
        let l = light(
            [0.0, 0.0, 10.0],
            [0.0, 0.0, 1.0],
            [255.0; 4],
            a,
            [1.0, 0.0, 0.0],
        );
        // Straight below: cos θ = 1 → attn = a1 + a2 = 1.
        let t = light_term(&l, Vec3::ZERO, Vec3::Z, DiffuseFn::Clamp, AttnFn::Spot);
        assert_eq!(t, [255; 4]);
        // Outside the cone (45° off axis): a1·c + a2·c² < 0 → 0.
        let p = Vec3::new(10.0, 0.0, 0.0);
        let t = light_term(&l, p, Vec3::Z, DiffuseFn::None, AttnFn::Spot);
        assert_eq!(t, [0; 4]);
        // Inside, 20° off axis: c = cos 20°, attn = c(c − cr)/(1 − cr).
        let x = 10.0 * 20.0f32.to_radians().tan();
        let t = light_term(
            &l,
            Vec3::new(x, 0.0, 0.0),
            Vec3::Z,
            DiffuseFn::None,
            AttnFn::Spot,
        );
        let c = 20.0f32.to_radians().cos();
        let expect = (c * (c - cr) / (1.0 - cr) * 255.0).round() as i32;
        assert!((t[0] - expect).abs() <= 1, "{t:?} vs {expect}");
        // Distance attenuation: k2 = 0.01 at d = 10 → ÷ 2.
        let mut far = l;
        far.cos_atten = [1.0, 0.0, 0.0, 0.0];
        far.dist_atten = [1.0, 0.0, 0.01, 0.0];
        let t = light_term(&far, Vec3::ZERO, Vec3::Z, DiffuseFn::Clamp, AttnFn::Spot);
        assert_eq!(t, [128; 4]); // 127.5 ties to even → 128
    }

    #[test]
    fn vertex_stage_reference_runs_channels_and_texgens() {
        let key = VertexKey {
            texgens: vec![
                TexGen {
                    kind: TexGenType::Mtx2x4,
                    source: TexGenSrc::Tex(0),
                    gx_tex_mtx: 30,
                    normalize: false,
                    gx_post_mtx: GX_PTIDENTITY,
                },
                TexGen {
                    kind: TexGenType::Mtx3x4,
                    source: TexGenSrc::Normal,
                    gx_tex_mtx: 33,
                    normalize: true,
                    gx_post_mtx: 67,
                },
                TexGen {
                    kind: TexGenType::Srtg,
                    source: TexGenSrc::Color0,
                    gx_tex_mtx: 60,
                    normalize: false,
                    gx_post_mtx: GX_PTIDENTITY,
                },
            ],
            channels: [
                ChannelControl::from_word(0x3001),
                ChannelControl::GX_DEFAULT,
                ChannelControl::from_word(0),
                ChannelControl::GX_DEFAULT,
            ],
            skinned: false,
            bake_uv: None,
            blended_normals: false,
            line: false,
        };
        let mut u = DrawUniforms::default();
        // TEXMTX0: scroll by (0.25, 0.5).
        u.tex_mtx[0] = [
            [1.0, 0.0, 0.0, 0.25],
            [0.0, 1.0, 0.0, 0.5],
            [0.0, 0.0, 1.0, 0.0],
        ];
        // TEXMTX1 identity, PTTEXMTX1 = P_env.
        u.post_mtx[1] = crate::gx::uvanim::ENV_POST;
        u.channel_ambient[0] = [64.0, 64.0, 64.0, 255.0];
        u.channel_material[0] = [255.0; 4];
        u.channel_material[1] = [0.0; 4];
        u.lights[0] = light(
            [0.0, 0.0, 1e6],
            [0.0, 0.0, 1.0],
            [255.0, 128.0, 0.0, 255.0],
            [1.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
        );
        u.light_mask[0] = 1;
        u.channel_lit[CH_COLOR0] = 1;
        let v = GpuVertex {
            position: [0.0, 0.0, 0.0],
            normal: [0.0, 0.0, 1.0],
            color0: [10, 20, 30, 77],
            tex: [[0.5, 0.25]; 8],
            ..Default::default()
        };
        let r = run_vertex(&key, &u, &v);
        // lacc = 64 + (255, 128, 0) → (255, 192, 64); mat white.
        assert_eq!(
            &r.color0[..3],
            &[
                channel_final(255, 255) as u8,
                channel_final(255, 192) as u8,
                channel_final(255, 64) as u8
            ]
        );
        // ALPHA0 is the vertex alpha; COLOR1 the (black) material register.
        assert_eq!(r.color0[3], 77);
        assert_eq!(r.color1, [0, 0, 0, 255]);
        assert_eq!(r.tex_coord_count, 3);
        assert_eq!(r.tex_coords[0], [0.75, 0.75, 1.0]);
        // Normal (0,0,1) through identity, normalised, then P_env: u = x/2 + ½, v = z/2 + ½.
        let n = Vec3::new(0.0, 0.0, 1.0).normalize();
        assert_eq!(r.tex_coords[1], [0.5, n.z * 0.5 + 0.5, 1.0]);
        assert_eq!(r.uv(1), [0.5, 1.0]);
        // SRTG: (COLOR0.r, COLOR0.g, 1).
        assert_eq!(
            r.tex_coords[2],
            [r.color0[0] as f32 / 255.0, r.color0[1] as f32 / 255.0, 1.0]
        );
        // Run-time disabled lighting outputs the material register.
        u.channel_lit[CH_COLOR0] = 0;
        assert_eq!(&run_vertex(&key, &u, &v).color0[..3], &[255, 255, 255]);
        assert_eq!(run_vertices(&key, &u, &[v, v]).len(), 2);
    }

    use bytemuck::Zeroable;
}
