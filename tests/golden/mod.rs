//! Golden-image comparison shared by the renderer's end-to-end tests, and the CPU skinning
//! reference the GPU-skinning tests compare with.
//!
//! Tolerance: each channel within ±[`TOLERANCE`], at most [`MAX_OUTLIER_FRACTION`] of the
//! pixels beyond it (host filtering and blending differ by an LSB between drivers; the
//! references come from lavapipe, where the comparison is in practice exact). On failure
//! the actual image and a diff land in `$CARGO_TARGET_TMPDIR/render_images/`.
//! `TEVSCOPE_UPDATE_IMAGES=1` rewrites the references in `tests/images/`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use glam::{Vec3, Vec4};
use tevscope::anim::{
    Clip, ClipBinding, NormalMode, Pose, PoseOptions, Skeleton, SkinBinding, SkinOptions,
};
use tevscope::camera::OrbitCamera;
use tevscope::formats::cmdl::{Cmdl, Normals};
use tevscope::formats::cskr::Cskr;
use tevscope::image::RgbaImage;

/// Per-channel tolerance of the golden comparisons.
pub const TOLERANCE: u8 = 3;
/// Fraction of pixels allowed beyond [`TOLERANCE`] (edge pixels on other rasterizers).
pub const MAX_OUTLIER_FRACTION: f64 = 0.005;

pub fn out_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("render_images");
    let _ = std::fs::create_dir_all(&d);
    d
}

/// Compares `actual` with `tests/images/NAME.png` (or rewrites it when
/// `TEVSCOPE_UPDATE_IMAGES=1`).
pub fn check_golden(name: &str, actual: &RgbaImage) {
    let reference = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/images")
        .join(format!("{name}.png"));
    if std::env::var("TEVSCOPE_UPDATE_IMAGES").is_ok_and(|v| v == "1") {
        let _ = std::fs::create_dir_all(reference.parent().expect("images dir"));
        actual.save_png(&reference).expect("write reference");
        eprintln!("updated {}", reference.display());
        return;
    }
    let want = RgbaImage::load_png(&reference).unwrap_or_else(|e| {
        let path = out_dir().join(format!("{name}.actual.png"));
        let _ = actual.save_png(&path);
        panic!(
            "{}: {e}; actual image at {} (TEVSCOPE_UPDATE_IMAGES=1 creates references)",
            reference.display(),
            path.display()
        )
    });
    if let Some(msg) = compare(actual, &want, TOLERANCE, MAX_OUTLIER_FRACTION) {
        let a = out_dir().join(format!("{name}.actual.png"));
        let d = out_dir().join(format!("{name}.diff.png"));
        let _ = actual.save_png(&a);
        let _ = diff_image(actual, &want).save_png(&d);
        panic!("{name}: {msg}; actual {} diff {}", a.display(), d.display());
    }
}

/// None when the images match within the tolerance.
pub fn compare(got: &RgbaImage, want: &RgbaImage, tolerance: u8, outliers: f64) -> Option<String> {
    if (got.width, got.height) != (want.width, want.height) {
        return Some(format!(
            "size {}x{} != {}x{}",
            got.width, got.height, want.width, want.height
        ));
    }
    let mut bad = 0usize;
    let mut worst = 0u8;
    for (a, b) in got.pixels.chunks(4).zip(want.pixels.chunks(4)) {
        let d = a
            .iter()
            .zip(b)
            .map(|(x, y)| x.abs_diff(*y))
            .max()
            .unwrap_or(0);
        worst = worst.max(d);
        if d > tolerance {
            bad += 1;
        }
    }
    let allowed = (got.pixel_count() as f64 * outliers) as usize;
    (bad > allowed).then(|| {
        format!("{bad} pixels differ by more than {tolerance} (allowed {allowed}), worst {worst}")
    })
}

pub fn diff_image(a: &RgbaImage, b: &RgbaImage) -> RgbaImage {
    RgbaImage::from_fn(a.width, a.height, |x, y| {
        let (p, q) = (a.pixel(x, y), b.pixel(x, y));
        let d = (0..4).map(|i| p[i].abs_diff(q[i])).max().unwrap_or(0);
        let v = d.saturating_mul(16);
        [v, v, v, 255]
    })
}

/// `cmdl` posed on the CPU: `clip` sampled at `time` through `skeleton`, positions and
/// normals skinned by `cskr` (the reference GPU skinning must reproduce).
pub fn cpu_skinned(
    cmdl: &Cmdl,
    skeleton: &Skeleton,
    cskr: &Cskr,
    clip: &Clip,
    time: f32,
    options: &PoseOptions,
) -> Cmdl {
    let mut pose = Pose::bind(skeleton, options);
    let binding = ClipBinding::new(clip, skeleton).expect("binding");
    pose.sample(skeleton, clip, &binding, time, options);
    let palette = pose.skin_palette(skeleton, options);
    let skin = SkinBinding::new(
        cskr,
        skeleton,
        cmdl.positions.len(),
        cmdl.normals.len(),
        SkinOptions::default(),
    )
    .expect("skin");
    let mut out = cmdl.clone();
    let positions: Vec<Vec3> = cmdl
        .positions
        .values
        .iter()
        .map(|&p| Vec3::from(p))
        .collect();
    out.positions.values = tevscope::anim::skin_positions(&skin, &palette, &positions)
        .iter()
        .map(|p| p.to_array())
        .collect();
    if let Normals::Float(n) = &mut out.normals {
        let normals: Vec<Vec3> = n.values.iter().map(|&p| Vec3::from(p)).collect();
        n.values = tevscope::anim::skin_normals(&skin, &palette, &normals, NormalMode::FirstWeight)
            .iter()
            .map(|p| p.to_array())
            .collect();
    }
    out
}

/// Where a world point lands in a `width` × `height` image (None when off screen).
pub fn project(camera: &OrbitCamera, width: u32, height: u32, p: Vec3) -> Option<(u32, u32)> {
    let c = camera.frame_camera(width as f32 / height as f32);
    let clip = c.clip_from_view * c.view_from_world * Vec4::from((p, 1.0));
    let ndc = clip.truncate() / clip.w;
    let x = (ndc.x * 0.5 + 0.5) * width as f32;
    let y = (0.5 - ndc.y * 0.5) * height as f32;
    ((0.0..width as f32).contains(&x) && (0.0..height as f32).contains(&y))
        .then_some((x as u32, y as u32))
}
