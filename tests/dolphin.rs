//! Frames checked against Dolphin's software renderer (`gx.md` §17): each test model's DFF
//! is played by `dolphin-emu-nogui` under Xvfb, read back exactly (the texture dump of the
//! EFB copy) and compared with tevscope's render at 640×480. A ratchet: the share of
//! identical pixels may not fall below what was reached (raise the table as differences
//! close). Without Dolphin the test skips loudly; under CI=true that fails.

use tevscope::cli::render::{RenderRequest, build_scene};
use tevscope::dff::check::check;
use tevscope::dff::dolphin::find_dolphin;
use tevscope::model::shapes::PreviewShape;
use tevscope::render::{AdapterPreference, RenderContext};

/// (model, minimum share of identical pixels, as reached; what remains: see README).
const RATCHET: &[(&str, f64)] = &[
    ("0x7EC00000.CMDL", 1.0),
    // 28 GX_LINES: quads one pixel wide (gx::lines), the DFF at the same SU_LPSIZE.
    ("pwe/RotateX.CMDL", 1.0),
    // TEXC without a texture reads 255 (spec default): the DFF binds it as a solid tile.
    ("pwe/Cube.CMDL", 1.0),
    ("real/randomprime/randovania_gamecube.CMDL", 0.9996),
    // MP3 fixtures; 0x…0101 has a material with an INCA second draw (97.61 % before the DFF
    // wrote it).
    ("mp3/0x0C3F1E7D00000100.CMDL", 0.9998),
    ("mp3/0x0C3F1E7D00000101.CMDL", 0.99998),
    ("builtin:demo.pak:showcase", 0.9984),
    ("builtin:demo.pak:worm_character", 0.9996),
    ("builtin:demo.pak:room", 0.9924),
];

fn have_dolphin() -> bool {
    if find_dolphin().is_some() {
        return true;
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true but Dolphin (dolphin-emu-nogui) is not installed: .ci/run installs dolphin-emu"
    );
    eprintln!(
        "!!! SKIPPED: Dolphin (Debian dolphin-emu) is not installed; the Dolphin comparison did not run"
    );
    false
}

#[test]
fn frames_match_dolphin_at_least_as_well_as_before() {
    if !have_dolphin() {
        return;
    }
    for (model, min) in RATCHET {
        let file = if model.starts_with("builtin:") {
            model.to_string()
        } else {
            let Some(dir) = tevscope::testing::conformance_dir() else {
                eprintln!(
                    "!!! SKIPPED {model}: conformance fixtures not found (TEVSCOPE_CONFORMANCE_DIR)"
                );
                continue;
            };
            dir.join(model).display().to_string()
        };
        let mut req = RenderRequest::new(file, "");
        (req.width, req.height) = (640, 480);
        let ctx = RenderContext::new(AdapterPreference::Hardware).expect("GPU adapter");
        let (mut scene, label, _, warnings) = build_scene(&ctx, &req).expect("model loads");
        let r = check(&mut scene, &ctx, (640, 480), label, warnings, None, None)
            .unwrap_or_else(|e| panic!("{model}: {e:#}"));
        let r = serde_json::to_value(&r).expect("report JSON");
        assert_eq!(
            r["route"], "texture_dump",
            "{model}: the exact read-back route failed"
        );
        let share = r["identical_share"].as_f64().unwrap_or(0.0);
        eprintln!(
            "{model}: {share:.5} identical, {} within 1 LSB, largest difference {}",
            r["within_one"], r["max_diff"]
        );
        assert!(
            share >= *min,
            "{model}: {share:.5} of pixels identical to Dolphin, below the ratchet {min}"
        );
    }
}

/// Showcase materials with real textures: I8 rings, RGBA8 wheel, CMPR tiles.
const QUAD_MATERIALS: &[usize] = &[1, 9, 10];

/// (camera yaw, pitch, distance; minimum identical share as reached). The first fills the
/// frame with the magnified texture (every pixel is filtered texels: exact); the others
/// move and shrink the quad (sub-texel offsets, minification through the mips), where
/// what remains is the quad's silhouette (rasterisation, not filtering).
///
/// At [5, 3, 1.7] the quad runs past the frame: lavapipe's clipper hands the triangles it
/// clips at the frame's edge wrong screen-linear (noperspective) colours, a black wedge
/// each (the raster debug view shows them; Dolphin draws them). Which triangles it clips
/// moved with GX's vertex snapping (0.9925 before), the silhouettes elsewhere closed.
const QUAD_CAMERAS: &[([f32; 3], f64)] = &[
    ([0.0, 0.0, 1.2], 1.0),
    ([5.0, 3.0, 1.7], 0.9800),
    ([-12.0, 8.0, 3.0], 0.9997),
    ([20.0, -15.0, 6.0], 0.9996),
    ([3.0, 1.0, 20.0], 0.9999),
];

/// Texture filtering on real textures (`gx.md` §14): a textured quad at several scales
/// and offsets, compared with Dolphin.
#[test]
fn textured_quads_match_dolphin() {
    if !have_dolphin() {
        return;
    }
    let ctx = RenderContext::new(AdapterPreference::Hardware).expect("GPU adapter");
    for &material in QUAD_MATERIALS {
        for &(camera, min) in QUAD_CAMERAS {
            let mut req = RenderRequest::new("builtin:demo.pak:showcase", "");
            (req.width, req.height) = (320, 240);
            req.preview = Some(PreviewShape::Plane);
            req.material = material;
            req.camera = Some(camera);
            let (mut scene, label, _, warnings) = build_scene(&ctx, &req).expect("model loads");
            let r = check(&mut scene, &ctx, (320, 240), label, warnings, None, None)
                .unwrap_or_else(|e| panic!("material {material} at {camera:?}: {e:#}"));
            let r = serde_json::to_value(&r).expect("report JSON");
            assert_eq!(r["route"], "texture_dump");
            let share = r["identical_share"].as_f64().unwrap_or(0.0);
            eprintln!(
                "material {material} at {camera:?}: {share:.5} identical, largest difference {}",
                r["max_diff"]
            );
            assert!(
                share >= min,
                "material {material} at {camera:?}: {share:.5} identical to Dolphin, below {min}"
            );
        }
    }
}
