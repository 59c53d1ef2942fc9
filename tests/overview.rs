//! `tevscope render SOURCE --overview WORLD`: the world overview drawn offscreen covers the
//! pixels where the rooms' world-geometry triangles project from above and leaves every
//! pixel away from them empty, including parts of a room's MLVL box its geometry does not
//! reach (so rooms are drawn by their geometry, not their bounds). Sources: the fixture
//! disc (both worlds), a world PAK and the built-in demo world.

#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

use tevscope::image::RgbaImage;
use tevscope::load::overview::load_overview;
use tevscope::render::overview::OverviewCamera;
use tevscope::testing::conformance_dir;

const BACKGROUND: [u8; 4] = [18, 18, 18, 255];

/// Renders `world` of `source` through the CLI and checks its pixels against the triangles.
/// Returns how many pixels lie inside a room's box but away from its geometry.
fn check_overview(source: &str, world: &str, (w, h): (u32, u32)) -> usize {
    let dir = tevscope::testing::Scratch::new(&format!("overview-{}", world.replace(' ', "_")));
    let png = dir.join("overview.png");
    let out = Command::new(env!("CARGO_BIN_EXE_tevscope"))
        .args(["render", source, "--overview", world, "-o"])
        .arg(&png)
        .args(["--size", &format!("{w}x{h}")])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let image = RgbaImage::load_png(&png).unwrap();
    assert_eq!((image.width, image.height), (w, h));

    let overview = load_overview(Path::new(source), world, None).unwrap();
    let b = overview.bounds().unwrap();
    let camera = OverviewCamera::fit(b.min, b.max, w, h);
    let project = |p: [f32; 3]| camera.to_pixel(p[0], p[1], w, h);
    let mut triangles = Vec::new();
    let mut boxes = Vec::new();
    for room in &overview.rooms {
        let mesh = room.mesh.as_ref().unwrap();
        triangles.extend(mesh.triangle_corners().map(|t| t.map(project)));
        if let Some(bb) = room.bounds {
            let (a, c) = (project(bb.min), project(bb.max));
            boxes.push([
                a[0].min(c[0]),
                a[1].min(c[1]),
                a[0].max(c[0]),
                a[1].max(c[1]),
            ]);
        }
    }
    assert!(!triangles.is_empty());
    let (mut covered, mut empty, mut box_only) = (0, 0, 0);
    for y in 0..h {
        for x in 0..w {
            let p = [x as f32 + 0.5, y as f32 + 0.5];
            let px = image.pixel(x, y);
            let (inside, near) = triangles.iter().fold((false, false), |(i, n), t| {
                let d = edge_distances(*t, p);
                (
                    i || d.is_some_and(|d| d.min_inside > 1.0),
                    n || d.is_some_and(|d| d.max_outside < 1.5),
                )
            });
            if inside {
                assert_ne!(
                    px, BACKGROUND,
                    "{source} {world}: pixel {x},{y} is inside a triangle"
                );
                covered += 1;
            } else if !near {
                assert_eq!(
                    px, BACKGROUND,
                    "{source} {world}: pixel {x},{y} is away from every triangle"
                );
                empty += 1;
                if boxes
                    .iter()
                    .any(|b| p[0] > b[0] && p[0] < b[2] && p[1] > b[1] && p[1] < b[3])
                {
                    box_only += 1;
                }
            }
        }
    }
    assert!(
        covered > 100 && empty > 100,
        "{covered} covered, {empty} empty"
    );
    box_only
}

#[derive(Clone, Copy)]
struct Distances {
    /// The smallest distance to an edge, positive inside.
    min_inside: f32,
    /// The largest distance outside an edge's line (a lower bound of the distance outside).
    max_outside: f32,
}

/// Signed distances of `p` to the edges of the pixel-space triangle `t` (None when it is
/// degenerate, i.e. a wall seen edge-on).
fn edge_distances(t: [[f32; 2]; 3], p: [f32; 2]) -> Option<Distances> {
    let area =
        (t[1][0] - t[0][0]) * (t[2][1] - t[0][1]) - (t[1][1] - t[0][1]) * (t[2][0] - t[0][0]);
    if area.abs() < 1e-6 {
        return None;
    }
    let d = [0, 1, 2].map(|i| {
        let (a, b) = (t[i], t[(i + 1) % 3]);
        let e = [b[0] - a[0], b[1] - a[1]];
        let len = (e[0] * e[0] + e[1] * e[1]).sqrt();
        area.signum() * (e[0] * (p[1] - a[1]) - e[1] * (p[0] - a[0])) / len
    });
    Some(Distances {
        min_inside: d.iter().copied().fold(f32::INFINITY, f32::min),
        max_outside: d.iter().map(|v| -v).fold(f32::NEG_INFINITY, f32::max),
    })
}

#[test]
fn the_fixture_disc_worlds_are_drawn_by_their_triangles() {
    let Some(dir) = conformance_dir() else { return };
    let iso = dir.join("discs/tevscope_fixture_shared.iso");
    let iso = iso.to_str().unwrap();
    // MP1: Glass Corridor's box reaches past its two world models (x 40..42 is empty).
    assert!(check_overview(iso, "0", (640, 200)) > 100);
    check_overview(iso, "Fixture Temple", (200, 400));
    let pak = dir.join("worlds/mp1_world.pak");
    check_overview(pak.to_str().unwrap(), "0x4D100000", (320, 120));
}

#[test]
fn the_demo_world_is_drawn_by_its_triangles() {
    // The light set has no world models: its box stays empty.
    assert!(check_overview("builtin:demo.pak", "Demo World", (240, 240)) > 100);
}
