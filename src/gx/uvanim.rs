//! UV animations: the texture and post-transform matrices Prime loads each frame
//! (`gx.md` §12).
//!
//! Animation *i* of a material writes TEXMTX*i* and, for modes 0, 1, 6 and 7, PTTEXMTX*i*.
//! Matrices here are GX's 3 rows × 4 columns applied to column vectors
//! (result = M · (x, y, z, 1)), stored row-major as [`Mtx3x4`], exactly the layout of
//! `DrawUniforms::tex_mtx` / `post_mtx`.
//!
//! Everything is computed in `f32`, the precision the game uses, so values match the
//! console's bit for bit where the spec states the operations (the float → s16
//! conversion of modes 4/5, the `fmod` fractions of mode 7).

use glam::{Mat4, Vec3, Vec4};
use serde::Serialize;

use super::types::{TexGen, UvAnimation};

/// A GX 3×4 matrix, row-major: `m[row][col]`, column 3 is the translation.
pub type Mtx3x4 = [[f32; 4]; 3];

/// The 3×4 identity.
pub const IDENTITY_3X4: Mtx3x4 = [
    [1.0, 0.0, 0.0, 0.0],
    [0.0, 1.0, 0.0, 0.0],
    [0.0, 0.0, 1.0, 0.0],
];

/// The environment post matrix P_env: u = x/2 + ½, v = z/2 + ½ (Prime's camera is Z up).
pub const ENV_POST: Mtx3x4 = [
    [0.5, 0.0, 0.0, 0.5],
    [0.0, 0.0, 0.5, 0.5],
    [0.0, 0.0, 0.0, 1.0],
];

/// *Alt* environment post matrix: v from y, for viewers feeding a Y-up camera directly.
pub const ENV_POST_V_FROM_Y: Mtx3x4 = [
    [0.5, 0.0, 0.0, 0.5],
    [0.0, 0.5, 0.0, 0.5],
    [0.0, 0.0, 0.0, 1.0],
];

/// The game's time base wraps here: 54000 frames at 60 Hz.
pub const TIME_WRAP_SECONDS: f64 = 900.0;

/// The Default/Alt switches of `gx.md` §12 and §16. `Default::default()` is tevscope's
/// default everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct UvAnimOptions {
    /// *Alt:* quantise time to whole 60 Hz frames (the game's frame counter).
    pub quantize_time: bool,
    /// *Alt:* modes 0/1/7 post matrix takes v from y instead of z (swapped rows).
    pub post_v_from_y: bool,
    /// *Alt:* modes 2/4/5 start from P_env instead of identity (the decompilation's
    /// reusable matrix; collapses v).
    pub scroll_start_env: bool,
    /// *Alt:* mode 6 translation factor 0.5 instead of 0.05.
    pub mode6_factor_half: bool,
    /// *Alt:* mode 8 uses transS for the S row (Default: transT for both rows).
    pub mode8_s_offset: bool,
}

/// The animation time `s` in seconds as the game sees it: `t mod 900`, or with
/// [`UvAnimOptions::quantize_time`] whole 60 Hz frames mod 54000, divided by 60.
pub fn uv_seconds(time_seconds: f64, options: &UvAnimOptions) -> f32 {
    if options.quantize_time {
        let frames = (time_seconds * 60.0).floor().rem_euclid(54000.0);
        // The game divides the integer frame count by 60 in single precision.
        frames as f32 / 60.0
    } else {
        time_seconds.rem_euclid(TIME_WRAP_SECONDS) as f32
    }
}

/// Prime's camera axes expressed in a conventional viewer camera (x right, y up, −z
/// forward): Prime X = viewer X, Prime Y (forward) = viewer −Z, Prime Z (up) = viewer Y.
/// Columns are the images of Prime's camera axes: `viewer_camera_from_prime_camera`.
pub const VIEWER_CAMERA_FROM_PRIME_CAMERA: Mat4 = Mat4::from_cols(
    Vec4::new(1.0, 0.0, 0.0, 0.0),
    Vec4::new(0.0, 0.0, -1.0, 0.0),
    Vec4::new(0.0, 1.0, 0.0, 0.0),
    Vec4::new(0.0, 0.0, 0.0, 1.0),
);

/// Prime's *view matrix* (camera → world, Prime camera axes: X right, Y forward, Z up)
/// from the placement of a conventional camera (`world_from_camera`, x right, y up,
/// −z forward). The world is not changed: only the camera's local axes are renamed.
pub fn prime_view_from_viewer_camera(world_from_viewer_camera: Mat4) -> Mat4 {
    world_from_viewer_camera * VIEWER_CAMERA_FROM_PRIME_CAMERA
}

/// Prime's view matrix from a conventional view matrix (`view_from_world`, as
/// `Mat4::look_at_rh` builds it).
pub fn prime_view_from_view_matrix(view_from_world: Mat4) -> Mat4 {
    prime_view_from_viewer_camera(view_from_world.inverse())
}

/// Per-model, per-frame inputs shared by every animation of that model's materials.
/// Build once per (model, camera, time) and evaluate many animations against it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct UvAnimInputs {
    /// `s` of `gx.md` §12 (see [`uv_seconds`]).
    pub seconds: f32,
    /// M: model → world.
    pub world_from_model: Mat4,
    /// V: Prime's view matrix, camera → world in Prime's camera axes.
    pub prime_world_from_camera: Mat4,
    /// inv(V) · M, computed once.
    camera_from_model: Mat4,
}

impl UvAnimInputs {
    pub fn new(seconds: f32, world_from_model: Mat4, prime_world_from_camera: Mat4) -> Self {
        Self {
            seconds,
            world_from_model,
            prime_world_from_camera,
            camera_from_model: prime_world_from_camera.inverse() * world_from_model,
        }
    }

    /// Inputs at `time_seconds` (wrapped as the options say).
    pub fn at_time(
        time_seconds: f64,
        options: &UvAnimOptions,
        world_from_model: Mat4,
        prime_world_from_camera: Mat4,
    ) -> Self {
        Self::new(
            uv_seconds(time_seconds, options),
            world_from_model,
            prime_world_from_camera,
        )
    }
}

/// What one animation loads: TEXMTX*i* and, for modes 0, 1, 6, 7, PTTEXMTX*i*.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct UvMatrices {
    pub tex: Mtx3x4,
    pub post: Option<Mtx3x4>,
}

/// Something about an animation worth telling the user (not an error).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum UvAnimNote {
    /// Mode 8 with a non-zero transform-type word: its meaning is unknown; evaluated as 0.
    #[error("mode 8 transform type {0} is unexplained; evaluated as type 0")]
    UnexplainedSrtType(u32),
}

/// A material's UV-animation list stopped at an unknown mode: the game cannot know its
/// size and skips the remaining animations (`formats.md` §3.9). Parsers report this.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("UV animation {index} has unknown mode {mode}; it and the animations after it are skipped")]
pub struct UnknownUvMode {
    pub index: usize,
    pub mode: u32,
}

/// Notes for an animation (empty for everything but mode 8 with a non-zero type).
pub fn notes(anim: &UvAnimation) -> Option<UvAnimNote> {
    match *anim {
        UvAnimation::Srt { transform_type, .. } if transform_type != 0 => {
            Some(UvAnimNote::UnexplainedSrtType(transform_type))
        }
        _ => None,
    }
}

/// Whether animation `index` (of `mode`) reaches a texture coordinate: some texgen reads
/// the matrix it loads, TEXMTX*index*, or for the modes that load one its PTTEXMTX*index*.
/// One that reaches none animates nothing (a texgen left on the identity, say).
pub fn reaches_a_texgen(index: usize, mode: u32, texgens: &[TexGen]) -> bool {
    texgens.iter().any(|t| {
        t.tex_mtx_slot() == Some(index)
            || (UvAnimation::loads_post_matrix(mode) && t.post_mtx_slot() == Some(index))
    })
}

/// Rows 0–2 of a 4×4 matrix as a GX 3×4.
pub fn mtx3x4_from_mat4(m: Mat4) -> Mtx3x4 {
    let r = |i: usize| m.row(i).to_array();
    [r(0), r(1), r(2)]
}

/// `[m | 0]`: the 3×3 part of `m`, translation zeroed.
fn rotation_only(m: Mat4) -> Mtx3x4 {
    let mut out = mtx3x4_from_mat4(m);
    for row in &mut out {
        row[3] = 0.0;
    }
    out
}

/// GX's `fmod(x, 1)` fraction: x − trunc(x), keeping x's sign (`gx.md` §12 mode 7).
pub fn fmod1(x: f32) -> f32 {
    x - x.trunc()
}

/// Float → s16 as the game converts it: `fctiwz` (truncate toward zero, saturating to
/// i32, NaN → 0x80000000) then a halfword store keeping the low 16 bits. Rust's
/// saturating `as i32` maps NaN to 0, whose low 16 bits equal those of 0x80000000.
pub fn game_f32_to_s16(x: f32) -> i16 {
    (x as i32) as i16
}

/// Filmstrip offset of modes 4/5: v = (p3 + s)·p0·p2; f = fmod(v, 1); n = s16(f·p1);
/// off = n·p2. The product is formed as the game does: (p0·p2)·(p3 + s).
pub fn filmstrip_offset(seconds: f32, scale: f32, num_frames: f32, step: f32, offset: f32) -> f32 {
    let v = scale * step * (offset + seconds);
    let frame = game_f32_to_s16(num_frames * (v % 1.0));
    f32::from(frame) * step
}

/// The matrix a scroll mode (2, 4, 5) starts from before writing its translation.
fn scroll_base(options: &UvAnimOptions) -> Mtx3x4 {
    if options.scroll_start_env {
        ENV_POST
    } else {
        IDENTITY_3X4
    }
}

fn translate(u: f32, v: f32, options: &UvAnimOptions) -> Mtx3x4 {
    let mut m = scroll_base(options);
    m[0][3] = u;
    m[1][3] = v;
    m
}

fn env_post(options: &UvAnimOptions) -> Mtx3x4 {
    if options.post_v_from_y {
        ENV_POST_V_FROM_Y
    } else {
        ENV_POST
    }
}

/// Evaluates one animation (`gx.md` §12).
pub fn evaluate(anim: &UvAnimation, inputs: &UvAnimInputs, options: &UvAnimOptions) -> UvMatrices {
    let s = inputs.seconds;
    match *anim {
        // Mode 0: [R_V⁻¹ · R_M | 0] — the rotation part of inv(V)·M (R_V⁻¹ = R_Vᵀ for a
        // rigid camera); the game multiplies ignoring translation and zeroes it.
        UvAnimation::InverseModelViewNoTranslation => UvMatrices {
            tex: rotation_only(inputs.camera_from_model),
            post: Some(env_post(options)),
        },
        // Mode 1: inv(V)·M, translation kept.
        UvAnimation::InverseModelView => UvMatrices {
            tex: mtx3x4_from_mat4(inputs.camera_from_model),
            post: Some(env_post(options)),
        },
        UvAnimation::Scroll {
            offset_u,
            offset_v,
            speed_u,
            speed_v,
        } => UvMatrices {
            tex: translate(s * speed_u + offset_u, s * speed_v + offset_v, options),
            post: None,
        },
        UvAnimation::Rotation { offset, speed } => {
            let theta = s * speed + offset;
            let (sin, cos) = theta.sin_cos();
            UvMatrices {
                tex: [
                    [cos, -sin, 0.0, (1.0 - (cos - sin)) * 0.5],
                    [sin, cos, 0.0, (1.0 - (sin + cos)) * 0.5],
                    [0.0, 0.0, 1.0, 0.0],
                ],
                post: None,
            }
        }
        UvAnimation::HorizontalFilmstrip {
            scale,
            num_frames,
            step,
            offset,
        } => UvMatrices {
            tex: translate(
                filmstrip_offset(s, scale, num_frames, step, offset),
                0.0,
                options,
            ),
            post: None,
        },
        UvAnimation::VerticalFilmstrip {
            scale,
            num_frames,
            step,
            offset,
        } => UvMatrices {
            tex: translate(
                0.0,
                filmstrip_offset(s, scale, num_frames, step, offset),
                options,
            ),
            post: None,
        },
        // Mode 6: [R_M | 0] with a world-planar post matrix scrolled by the model's
        // position. The seed's 0.50000001 is read as a dropped zero of 0.050000001.
        UvAnimation::Model => {
            let factor = if options.mode6_factor_half { 0.5 } else { 0.05 };
            let t = inputs.world_from_model.w_axis;
            UvMatrices {
                tex: rotation_only(inputs.world_from_model),
                post: Some([
                    [0.5, 0.0, 0.0, t.x * factor],
                    [0.0, 0.0, 0.5, t.y * factor],
                    [0.0, 0.0, 0.0, 1.0],
                ]),
            }
        }
        // Mode 7: mode 0's matrix and a post matrix scrolled by the camera position.
        UvAnimation::Cylinder { scale, phase } => {
            let t_v = inputs.prime_world_from_camera.w_axis;
            let xy = fmod1((t_v.x + t_v.y) * 0.025 * phase);
            let z = fmod1(t_v.z * 0.05 * phase);
            let half = scale * 0.5;
            let row1 = if options.post_v_from_y {
                [0.0, half, 0.0, z]
            } else {
                [0.0, 0.0, half, z]
            };
            UvMatrices {
                tex: rotation_only(inputs.camera_from_model),
                post: Some([[half, 0.0, 0.0, xy], row1, [0.0, 0.0, 0.0, 1.0]]),
            }
        }
        // Mode 8 (MP2+), one viewer's reading (unverified); see `gx.md` §12.
        UvAnimation::Srt {
            transform_type: _,
            scale_s,
            scale_t,
            rotation,
            rotation_speed,
            translate_s,
            translate_t,
            translate_s_speed,
            translate_t_speed,
        } => {
            let theta = rotation + s * rotation_speed;
            let (sin, cos) = theta.sin_cos();
            let static_s = if options.mode8_s_offset {
                translate_s
            } else {
                translate_t
            };
            UvMatrices {
                tex: [
                    [
                        scale_s * cos,
                        scale_s * sin,
                        0.0,
                        scale_s * (static_s + s * translate_s_speed) + 0.5 - 0.5 * (cos - sin),
                    ],
                    [
                        -scale_t * sin,
                        scale_t * cos,
                        0.0,
                        scale_t * (translate_t + s * translate_t_speed) + 0.5 - 0.5 * (sin + cos),
                    ],
                    [0.0, 0.0, 1.0, 0.0],
                ],
                post: None,
            }
        }
    }
}

/// Applies a 3×4 to a point (x, y, z, 1).
pub fn apply(m: &Mtx3x4, p: Vec3) -> Vec3 {
    let x = Vec4::new(p.x, p.y, p.z, 1.0);
    Vec3::new(
        Vec4::from(m[0]).dot(x),
        Vec4::from(m[1]).dot(x),
        Vec4::from(m[2]).dot(x),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const EPS: f32 = 1e-5;

    fn close(a: &Mtx3x4, b: &Mtx3x4) -> bool {
        a.iter()
            .flatten()
            .zip(b.iter().flatten())
            .all(|(x, y)| (x - y).abs() <= EPS * (1.0 + y.abs()))
    }

    fn eval_at(anim: UvAnimation, t: f64) -> UvMatrices {
        let o = UvAnimOptions::default();
        evaluate(
            &anim,
            &UvAnimInputs::at_time(t, &o, Mat4::IDENTITY, Mat4::IDENTITY),
            &o,
        )
    }

    #[test]
    fn time_wraps_at_900_seconds_and_quantises_in_alt() {
        let d = UvAnimOptions::default();
        assert_eq!(uv_seconds(12.5, &d), 12.5);
        assert_eq!(uv_seconds(900.0, &d), 0.0);
        assert_eq!(uv_seconds(905.25, &d), 5.25);
        assert_eq!(uv_seconds(-1.0, &d), 899.0);
        let q = UvAnimOptions {
            quantize_time: true,
            ..d
        };
        // 1.999 s is frame 119 → 119/60.
        assert_eq!(uv_seconds(1.999, &q), 119.0f32 / 60.0);
        assert_eq!(uv_seconds(900.0 + 1.0 / 60.0 + 1e-9, &q), 1.0f32 / 60.0);
    }

    #[test]
    fn mode2_scrolls_and_wraps_s() {
        let a = UvAnimation::Scroll {
            offset_u: 0.25,
            offset_v: -0.5,
            speed_u: 0.1,
            speed_v: 2.0,
        };
        let m = eval_at(a, 3.0);
        assert!(m.post.is_none());
        let expect = [
            [1.0, 0.0, 0.0, 3.0 * 0.1 + 0.25],
            [0.0, 1.0, 0.0, 3.0 * 2.0 - 0.5],
            [0.0, 0.0, 1.0, 0.0],
        ];
        assert!(close(&m.tex, &expect), "{:?}", m.tex);
        // 903 s evaluates as 3 s.
        assert_eq!(eval_at(a, 903.0).tex, m.tex);
        // Alt: the scroll starts from the environment matrix.
        let o = UvAnimOptions {
            scroll_start_env: true,
            ..Default::default()
        };
        let alt = evaluate(
            &a,
            &UvAnimInputs::new(3.0, Mat4::IDENTITY, Mat4::IDENTITY),
            &o,
        );
        assert_eq!(alt.tex[1][2], 0.5);
        assert_eq!(alt.tex[1][3], 5.5);
        assert_eq!(alt.tex[2], [0.0, 0.0, 0.0, 1.0]);
    }

    #[test]
    fn mode3_rotates_about_the_texture_centre() {
        let a = UvAnimation::Rotation {
            offset: 0.5,
            speed: 0.25,
        };
        for t in [0.0, 2.0, 10.0] {
            let m = eval_at(a, t);
            let theta = 0.5 + t as f32 * 0.25;
            let (s, c) = theta.sin_cos();
            assert!((m.tex[0][0] - c).abs() < EPS && (m.tex[0][1] + s).abs() < EPS);
            assert!((m.tex[1][0] - s).abs() < EPS && (m.tex[1][1] - c).abs() < EPS);
            // (½, ½) is a fixed point.
            let p = apply(&m.tex, Vec3::new(0.5, 0.5, 1.0));
            assert!((p.x - 0.5).abs() < EPS && (p.y - 0.5).abs() < EPS, "{p:?}");
        }
        // θ = π/2: (1, ½) → (½, 1).
        let m = eval_at(
            UvAnimation::Rotation {
                offset: std::f32::consts::FRAC_PI_2,
                speed: 0.0,
            },
            0.0,
        );
        let p = apply(&m.tex, Vec3::new(1.0, 0.5, 1.0));
        assert!((p.x - 0.5).abs() < EPS && (p.y - 1.0).abs() < EPS, "{p:?}");
    }

    #[test]
    fn modes4_and_5_step_through_frames_with_s16_truncation() {
        // scale 1, 4 frames of 0.25, offset 0: v = s·0.25, f = fmod(v, 1), n = trunc(4f).
        let h = |t| {
            eval_at(
                UvAnimation::HorizontalFilmstrip {
                    scale: 1.0,
                    num_frames: 4.0,
                    step: 0.25,
                    offset: 0.0,
                },
                t,
            )
        };
        // t = 1: v = 0.25, n = 1 → 0.25.
        assert_eq!(h(1.0).tex[0][3], 0.25);
        assert_eq!(h(1.0).tex[1][3], 0.0);
        // t = 3.9: v = 0.975, n = trunc(3.9) = 3 → 0.75.
        assert_eq!(h(3.9).tex[0][3], 0.75);
        // t = 4.5: v = 1.125, f = 0.125, n = 0.
        assert_eq!(h(4.5).tex[0][3], 0.0);
        // Vertical writes [1][3].
        let v = eval_at(
            UvAnimation::VerticalFilmstrip {
                scale: 2.0,
                num_frames: 8.0,
                step: 0.125,
                offset: 1.0,
            },
            3.0,
        );
        // v = (1 + 3)·2·0.125 = 1.0 → f = 0 → 0.
        assert_eq!(v.tex[1][3], 0.0);
        assert_eq!(v.tex[0][3], 0.0);
        // Negative offset keeps fmod's sign: v = (−1.5 + 0)·1·0.5 = −0.75, f = −0.75,
        // n = trunc(−0.75·4) = −3 → −1.5.
        let neg = eval_at(
            UvAnimation::HorizontalFilmstrip {
                scale: 1.0,
                num_frames: 4.0,
                step: 0.5,
                offset: -1.5,
            },
            0.0,
        );
        assert_eq!(neg.tex[0][3], -1.5);
    }

    #[test]
    fn s16_conversion_wraps_like_the_game() {
        assert_eq!(game_f32_to_s16(3.99), 3);
        assert_eq!(game_f32_to_s16(-3.99), -3);
        // 40000 does not fit an s16: the halfword store keeps the low bits.
        assert_eq!(game_f32_to_s16(40000.7), (40000i32 as i16));
        assert_eq!(game_f32_to_s16(40000.7), -25536);
        assert_eq!(game_f32_to_s16(f32::NAN), 0);
        // Filmstrip with 100000 frames: f = 0.5 → 50000 → s16 −15536 → offset −15536·step.
        let off = filmstrip_offset(0.5, 1.0, 100000.0, 1.0, 0.0);
        assert_eq!(off, -15536.0);
    }

    fn rot_z(deg: f32) -> Mat4 {
        Mat4::from_rotation_z(deg.to_radians())
    }

    #[test]
    fn mode0_and_mode1_follow_inverse_view_times_model() {
        let model = Mat4::from_translation(Vec3::new(3.0, 4.0, 5.0)) * rot_z(30.0);
        let view = Mat4::from_translation(Vec3::new(-2.0, 1.0, 7.0)) * rot_z(-45.0);
        let o = UvAnimOptions::default();
        let inputs = UvAnimInputs::new(0.0, model, view);
        let m0 = evaluate(&UvAnimation::InverseModelViewNoTranslation, &inputs, &o);
        let m1 = evaluate(&UvAnimation::InverseModelView, &inputs, &o);
        // Rotation part: rotation by 30 − (−45) = 75° about Z.
        let expect_rot = mtx3x4_from_mat4(rot_z(75.0));
        assert!(close(&m0.tex, &expect_rot), "{:?}", m0.tex);
        assert_eq!(m0.post, Some(ENV_POST));
        // Mode 1 keeps translation: model origin seen from the camera.
        let origin = view.inverse().transform_point3(Vec3::new(3.0, 4.0, 5.0));
        assert!((m1.tex[0][3] - origin.x).abs() < 1e-4);
        assert!((m1.tex[1][3] - origin.y).abs() < 1e-4);
        assert!((m1.tex[2][3] - origin.z).abs() < 1e-4);
        // A normal pointing at the camera's up axis lands at v = 1 through P_env.
        let up_in_model = (view.inverse() * model)
            .inverse()
            .transform_vector3(Vec3::Z);
        let c = apply(&m0.tex, up_in_model) - Vec3::new(m0.tex[0][3], 0.0, 0.0);
        let uv = apply(&ENV_POST, c);
        assert!(
            (uv.y - 1.0).abs() < 1e-4 && (uv.x - 0.5).abs() < 1e-4,
            "{uv:?}"
        );
        // Alt: v from y.
        let alt = evaluate(
            &UvAnimation::InverseModelView,
            &inputs,
            &UvAnimOptions {
                post_v_from_y: true,
                ..o
            },
        );
        assert_eq!(alt.post, Some(ENV_POST_V_FROM_Y));
    }

    #[test]
    fn mode6_uses_the_model_matrix_and_005_factor() {
        let model = Mat4::from_translation(Vec3::new(10.0, -20.0, 3.0)) * rot_z(90.0);
        let o = UvAnimOptions::default();
        let inputs = UvAnimInputs::new(0.0, model, Mat4::IDENTITY);
        let m = evaluate(&UvAnimation::Model, &inputs, &o);
        assert!(close(&m.tex, &mtx3x4_from_mat4(rot_z(90.0))));
        let post = m.post.expect("mode 6 has a post matrix");
        assert!((post[0][3] - 0.5).abs() < EPS && (post[1][3] + 1.0).abs() < EPS);
        assert_eq!(post[1][2], 0.5);
        let alt = evaluate(
            &UvAnimation::Model,
            &inputs,
            &UvAnimOptions {
                mode6_factor_half: true,
                ..o
            },
        );
        assert_eq!(alt.post.map(|p| p[0][3]), Some(5.0));
    }

    #[test]
    fn mode7_fractions_keep_the_sign() {
        let view = Mat4::from_translation(Vec3::new(-30.0, 2.0, -7.0));
        let o = UvAnimOptions::default();
        let inputs = UvAnimInputs::new(0.0, Mat4::IDENTITY, view);
        let m = evaluate(
            &UvAnimation::Cylinder {
                scale: 3.0,
                phase: 1.0,
            },
            &inputs,
            &o,
        );
        let post = m.post.expect("mode 7 has a post matrix");
        // xy = (−30 + 2)·0.025 = −0.7 → fmod −0.7 (a floor fract would give 0.3).
        let xy = (-28.0f32 * 0.025) * 1.0;
        assert_eq!(post[0][3], xy - xy.trunc());
        assert!((post[0][3] + 0.7).abs() < 1e-6);
        // z = −7·0.05 = −0.35.
        assert!((post[1][3] + 0.35).abs() < 1e-6);
        assert_eq!(post[0][0], 1.5);
        assert_eq!(post[1][2], 1.5);
        assert_eq!(post[1][1], 0.0);
        // Larger values keep only the fraction: 50·0.05·1 = 2.5 → 0.5.
        let far = UvAnimInputs::new(
            0.0,
            Mat4::IDENTITY,
            Mat4::from_translation(Vec3::new(0.0, 0.0, 50.0)),
        );
        let m = evaluate(
            &UvAnimation::Cylinder {
                scale: 1.0,
                phase: 1.0,
            },
            &far,
            &o,
        );
        assert!((m.post.map_or(0.0, |p| p[1][3]) - 0.5).abs() < 1e-6);
        assert_eq!(fmod1(-2.25), -0.25);
    }

    #[test]
    fn mode8_follows_the_viewer_reading() {
        let a = UvAnimation::Srt {
            transform_type: 0,
            scale_s: 2.0,
            scale_t: 3.0,
            rotation: 0.0,
            rotation_speed: 0.0,
            translate_s: 0.125,
            translate_t: 0.25,
            translate_s_speed: 0.5,
            translate_t_speed: 1.0,
        };
        let m = eval_at(a, 2.0);
        // θ = 0: cos 1, sin 0. S row offset: 2·(0.25 + 2·0.5) + ½ − ½ = 2.5.
        let expect = [
            [2.0, 0.0, 0.0, 2.5],
            [0.0, 3.0, 0.0, 3.0 * (0.25 + 2.0) + 0.5 - 0.5],
            [0.0, 0.0, 1.0, 0.0],
        ];
        assert!(close(&m.tex, &expect), "{:?}", m.tex);
        let alt = evaluate(
            &a,
            &UvAnimInputs::new(2.0, Mat4::IDENTITY, Mat4::IDENTITY),
            &UvAnimOptions {
                mode8_s_offset: true,
                ..Default::default()
            },
        );
        assert!((alt.tex[0][3] - 2.0 * (0.125 + 1.0)).abs() < EPS);
        assert_eq!(notes(&a), None);
        let UvAnimation::Srt { scale_s, .. } = a else {
            unreachable!()
        };
        let odd = UvAnimation::Srt {
            transform_type: 2,
            scale_s,
            scale_t: 1.0,
            rotation: 0.0,
            rotation_speed: 0.0,
            translate_s: 0.0,
            translate_t: 0.0,
            translate_s_speed: 0.0,
            translate_t_speed: 0.0,
        };
        assert_eq!(notes(&odd), Some(UvAnimNote::UnexplainedSrtType(2)));
    }

    #[test]
    fn viewer_camera_conversion_renames_axes() {
        // A viewer camera at (1,2,3) looking along world +Y with world +Z up.
        let view_from_world = glam::camera::rh::view::look_at_mat4(
            Vec3::new(1.0, 2.0, 3.0),
            Vec3::new(1.0, 3.0, 3.0),
            Vec3::Z,
        );
        let v = prime_view_from_view_matrix(view_from_world);
        // Prime camera Y (forward) = world +Y, Z (up) = world +Z, X = world +X.
        assert!(v.transform_vector3(Vec3::Y).abs_diff_eq(Vec3::Y, 1e-6));
        assert!(v.transform_vector3(Vec3::Z).abs_diff_eq(Vec3::Z, 1e-6));
        assert!(v.transform_vector3(Vec3::X).abs_diff_eq(Vec3::X, 1e-6));
        assert!(
            v.w_axis
                .truncate()
                .abs_diff_eq(Vec3::new(1.0, 2.0, 3.0), 1e-5)
        );
    }

    #[test]
    fn an_animation_reaches_texgens_through_its_matrices_only() {
        use crate::gx::types::{GX_IDENTITY, GX_PTIDENTITY, TexGenSrc, TexGenType};
        let texgen = |tex: u32, post: u32| TexGen {
            kind: TexGenType::Mtx2x4,
            source: TexGenSrc::Tex(0),
            gx_tex_mtx: tex,
            normalize: false,
            gx_post_mtx: post,
        };
        let identity = [texgen(GX_IDENTITY, GX_PTIDENTITY)];
        // A scroll (mode 2) in slot 0 with every texgen on the identity does nothing.
        assert!(!reaches_a_texgen(0, 2, &identity));
        assert!(!reaches_a_texgen(0, 2, &[]));
        // TEXMTX0 (GX 30) used: it does; TEXMTX1 (33) is another slot.
        assert!(reaches_a_texgen(0, 2, &[texgen(30, GX_PTIDENTITY)]));
        assert!(!reaches_a_texgen(0, 2, &[texgen(33, GX_PTIDENTITY)]));
        assert!(reaches_a_texgen(1, 2, &[texgen(33, GX_PTIDENTITY)]));
        // PTTEXMTX1 (67) counts only for the modes that load it.
        let post1 = [texgen(GX_IDENTITY, 67)];
        assert!(reaches_a_texgen(1, 0, &post1));
        assert!(!reaches_a_texgen(1, 2, &post1));
    }
}
