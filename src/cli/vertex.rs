//! `uvanim` (a material's UV-animation matrices at a time) and `info` on MREA files (in
//! [`super::area`]). Matrices on the command line are 16 comma-separated numbers,
//! **row-major** (translation in elements 3, 7, 11): see [`parse_matrix`].

use crate::gx::Material;
use crate::gx::uvanim::UvAnimOptions;
use crate::schema::{self, uvanim::UvAnimReport};
use anyhow::{Context, bail};
use glam::Mat4;

pub use super::area::info_mrea;

/// Parses a matrix written as 16 comma-separated numbers, row-major (translation in
/// elements 3, 7, 11), e.g. `1,0,0,5,0,1,0,0,0,0,1,0,0,0,0,1`.
pub fn parse_matrix(text: &str) -> anyhow::Result<[f32; 16]> {
    let parts: Vec<&str> = text.split(',').map(str::trim).collect();
    if parts.len() != 16 {
        bail!(
            "a matrix is 16 comma-separated numbers (row-major), got {}",
            parts.len()
        );
    }
    let mut m = [0f32; 16];
    for (i, p) in parts.iter().enumerate() {
        m[i] = p
            .parse()
            .with_context(|| format!("matrix element {i}: {p:?} is not a number"))?;
        if !m[i].is_finite() {
            bail!("matrix element {i} is not finite");
        }
    }
    Ok(m)
}

fn mat4_from_row_major(m: &[f32; 16]) -> Mat4 {
    Mat4::from_cols_array(m).transpose()
}

/// `tevscope uvanim FILE.CMDL --material N --time T [--model M] [--view V] --json`:
/// the texture and post matrices of each UV animation of `material` at `time` seconds.
/// `model` is model → world and `view` is Prime's view matrix (camera → world, Prime
/// camera axes X right, Y forward, Z up), both row-major (see [`parse_matrix`]); both
/// default to identity.
pub fn uvanim(
    material: &Material,
    time: f64,
    model: Option<[f32; 16]>,
    view: Option<[f32; 16]>,
) -> anyhow::Result<String> {
    if !time.is_finite() {
        bail!("time must be a finite number of seconds");
    }
    let world_from_model = model.as_ref().map_or(Mat4::IDENTITY, mat4_from_row_major);
    let prime_view = view.as_ref().map_or(Mat4::IDENTITY, mat4_from_row_major);
    if prime_view.determinant().abs() < 1e-12 {
        bail!("the view matrix is singular");
    }
    let options = UvAnimOptions::default();
    let report = UvAnimReport::evaluate(material, time, world_from_model, prime_view, &options);
    Ok(schema::sorted_json(&report)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gx::UvAnimation;
    use serde_json::{Value, json};

    #[test]
    fn matrices_parse_row_major() {
        let m = parse_matrix("1,0,0,5, 0,1,0,6, 0,0,1,7, 0,0,0,1").expect("parses");
        let m4 = mat4_from_row_major(&m);
        assert_eq!(m4.w_axis.truncate(), glam::Vec3::new(5.0, 6.0, 7.0));
        assert!(parse_matrix("1,2,3").is_err());
        assert!(parse_matrix("1,0,0,x,0,1,0,0,0,0,1,0,0,0,0,1").is_err());
    }

    #[test]
    fn uvanim_reports_every_animation() {
        let m = Material {
            uv_animations: vec![
                UvAnimation::Scroll {
                    offset_u: 0.0,
                    offset_v: 0.5,
                    speed_u: 0.25,
                    speed_v: 0.0,
                },
                UvAnimation::Model,
            ],
            ..Material::default()
        };
        let model = parse_matrix("1,0,0,10,0,1,0,20,0,0,1,0,0,0,0,1").expect("matrix");
        let out = uvanim(&m, 902.0, Some(model), None).expect("runs");
        let v: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(v["seconds"], json!(2.0));
        let a = &v["animations"];
        assert_eq!(a[0]["mode"], json!(2));
        assert_eq!(a[0]["texture_matrix"][0][3], json!(0.5));
        assert_eq!(a[0]["post_matrix"], Value::Null);
        assert_eq!(a[1]["post_matrix_slot"], json!("PTTEXMTX1"));
        assert_eq!(a[1]["post_matrix"][0][3], json!(f64::from(10.0f32 * 0.05)));
        assert!(uvanim(&m, f64::NAN, None, None).is_err());
    }
}
