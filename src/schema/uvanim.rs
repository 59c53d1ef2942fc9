//! `uvanim --json`: a material's UV animations evaluated at a time (texture and post
//! matrices), with each animation's parameters by name.

use serde::Serialize;

use glam::Mat4;

use crate::gx::uvanim::{self, UvAnimInputs, UvAnimOptions, UvMatrices};
use crate::gx::{Material, UvAnimation};

#[derive(Debug, Clone, Serialize)]
pub struct UvAnimReport {
    /// The time asked for, and the seconds the animations were evaluated at.
    pub time: f64,
    pub seconds: f64,
    pub model_matrix_row_major: Vec<f64>,
    pub view_matrix_row_major: Vec<f64>,
    pub options: UvAnimOptions,
    pub animations: Vec<UvAnimEntry>,
}

#[derive(Debug, Clone, Serialize)]
pub struct UvAnimEntry {
    pub index: usize,
    pub mode: u32,
    pub name: &'static str,
    pub params: UvParams,
    pub texture_matrix_slot: String,
    /// 3×4, rows.
    pub texture_matrix: Vec<Vec<f64>>,
    pub post_matrix_slot: Option<String>,
    pub post_matrix: Option<Vec<Vec<f64>>>,
    pub note: Option<String>,
}

/// An animation's parameters by name (an empty object for the modes that have none).
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum UvParams {
    None {},
    Scroll {
        offset_u: f64,
        offset_v: f64,
        speed_u: f64,
        speed_v: f64,
    },
    Rotation {
        offset: f64,
        speed: f64,
    },
    Filmstrip {
        scale: f64,
        num_frames: f64,
        step: f64,
        offset: f64,
    },
    Cylinder {
        scale: f64,
        phase: f64,
    },
    Srt {
        transform_type: u32,
        scale_s: f64,
        scale_t: f64,
        rotation: f64,
        rotation_speed: f64,
        translate_s: f64,
        translate_t: f64,
        translate_s_speed: f64,
        translate_t_speed: f64,
    },
}

fn rows(m: &[[f32; 4]; 3]) -> Vec<Vec<f64>> {
    m.iter().map(|r| r.map(f64::from).to_vec()).collect()
}

impl UvAnimReport {
    /// `material`'s UV animations at `time` seconds, for a model placed by
    /// `world_from_model` and seen through Prime's view matrix (camera → world).
    pub fn evaluate(
        material: &Material,
        time: f64,
        world_from_model: Mat4,
        prime_view: Mat4,
        options: &UvAnimOptions,
    ) -> Self {
        let inputs = UvAnimInputs::at_time(time, options, world_from_model, prime_view);
        let row_major = |m: Mat4| m.transpose().to_cols_array().map(f64::from).to_vec();
        Self {
            time,
            seconds: f64::from(inputs.seconds),
            model_matrix_row_major: row_major(world_from_model),
            view_matrix_row_major: row_major(prime_view),
            options: *options,
            animations: (material.uv_animations.iter().enumerate())
                .map(|(i, a)| {
                    let m = uvanim::evaluate(a, &inputs, options);
                    UvAnimEntry::new(i, a, &m, uvanim::notes(a).map(|n| n.to_string()))
                })
                .collect(),
        }
    }
}

impl UvAnimEntry {
    /// Animation `index` of a material and its matrices.
    pub fn new(index: usize, anim: &UvAnimation, m: &UvMatrices, note: Option<String>) -> Self {
        let (name, params) = name_and_params(anim);
        Self {
            index,
            mode: anim.mode(),
            name,
            params,
            texture_matrix_slot: format!("TEXMTX{index}"),
            texture_matrix: rows(&m.tex),
            post_matrix_slot: m.post.map(|_| format!("PTTEXMTX{index}")),
            post_matrix: m.post.as_ref().map(rows),
            note,
        }
    }
}

fn name_and_params(anim: &UvAnimation) -> (&'static str, UvParams) {
    let f = f64::from;
    match *anim {
        UvAnimation::InverseModelViewNoTranslation => {
            ("inverse_model_view_no_translation", UvParams::None {})
        }
        UvAnimation::InverseModelView => ("inverse_model_view", UvParams::None {}),
        UvAnimation::Scroll {
            offset_u,
            offset_v,
            speed_u,
            speed_v,
        } => (
            "scroll",
            UvParams::Scroll {
                offset_u: f(offset_u),
                offset_v: f(offset_v),
                speed_u: f(speed_u),
                speed_v: f(speed_v),
            },
        ),
        UvAnimation::Rotation { offset, speed } => (
            "rotation",
            UvParams::Rotation {
                offset: f(offset),
                speed: f(speed),
            },
        ),
        UvAnimation::HorizontalFilmstrip {
            scale,
            num_frames,
            step,
            offset,
        }
        | UvAnimation::VerticalFilmstrip {
            scale,
            num_frames,
            step,
            offset,
        } => (
            if matches!(anim, UvAnimation::HorizontalFilmstrip { .. }) {
                "horizontal_filmstrip"
            } else {
                "vertical_filmstrip"
            },
            UvParams::Filmstrip {
                scale: f(scale),
                num_frames: f(num_frames),
                step: f(step),
                offset: f(offset),
            },
        ),
        UvAnimation::Model => ("model", UvParams::None {}),
        UvAnimation::Cylinder { scale, phase } => (
            "cylinder",
            UvParams::Cylinder {
                scale: f(scale),
                phase: f(phase),
            },
        ),
        UvAnimation::Srt {
            transform_type,
            scale_s,
            scale_t,
            rotation,
            rotation_speed,
            translate_s,
            translate_t,
            translate_s_speed,
            translate_t_speed,
        } => (
            "srt",
            UvParams::Srt {
                transform_type,
                scale_s: f(scale_s),
                scale_t: f(scale_t),
                rotation: f(rotation),
                rotation_speed: f(rotation_speed),
                translate_s: f(translate_s),
                translate_t: f(translate_t),
                translate_s_speed: f(translate_s_speed),
                translate_t_speed: f(translate_t_speed),
            },
        ),
    }
}
