//! The camera in Prime's Z-up world: the math of the core's one camera
//! ([`crate::session::camera`]), and what the renderer takes from it each frame
//! ([`CameraView`]). Pure glam, below both.
//!
//! Prime's world is Z-up and actors face +Y. The camera orbits `target`: yaw turns about
//! world Z (yaw 0 = looking at the model's front from +Y), pitch raises the eye above the
//! XY plane. [`OrbitCamera::frame_camera`] produces the conventional view matrix (camera
//! x right, y up, −z forward) that [`crate::gx::frame::FrameCamera`] expects, and a wgpu
//! (depth 0…1) perspective projection.
//!
//! The fly camera is the same camera driven differently ([`CameraMode::Fly`]): mouse look
//! turns the view about the eye instead of the target ([`OrbitCamera::look`]) and
//! [`OrbitCamera::fly`] moves eye and target together, so both modes share one set of
//! view parameters and one view/projection code path.

use glam::{Mat4, Vec3};

use crate::geom::Aabb;
use crate::gx::frame::FrameCamera;

/// Orbit camera parameters (angles in degrees, distances in model units).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitCamera {
    /// Rotation about world Z; 0 = the eye on +Y looking towards −Y (the model's front).
    pub yaw_degrees: f32,
    /// Elevation above the XY plane (−89…89).
    pub pitch_degrees: f32,
    /// Eye distance from `target`.
    pub distance: f32,
    /// The point looked at (world space).
    pub target: [f32; 3],
    /// Vertical field of view.
    pub fov_y_degrees: f32,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            yaw_degrees: 30.0,
            pitch_degrees: 20.0,
            distance: 5.0,
            target: [0.0; 3],
            fov_y_degrees: 45.0,
        }
    }
}

/// What the renderer takes from the camera for a frame: the view matrix, the eye and view
/// direction (draw order), and the projection's parameters (the target's aspect is the
/// renderer's).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CameraView {
    pub view_from_world: Mat4,
    /// World-space eye position and unit view direction.
    pub eye: Vec3,
    pub forward: Vec3,
    pub fov_y_degrees: f32,
    /// Near and far planes (view-space distances).
    pub near: f32,
    pub far: f32,
}

impl CameraView {
    /// Perspective projection for `aspect` (width / height): right-handed view space, wgpu
    /// clip depth 0 (near) … 1 (far).
    pub fn clip_from_view(&self, aspect: f32) -> Mat4 {
        let (near, far) = (self.near, self.far);
        let h = 1.0 / (self.fov_y_degrees.clamp(1.0, 170.0).to_radians() * 0.5).tan();
        let w = h / aspect.max(1e-4);
        let r = far / (near - far);
        Mat4::from_cols(
            glam::Vec4::new(w, 0.0, 0.0, 0.0),
            glam::Vec4::new(0.0, h, 0.0, 0.0),
            glam::Vec4::new(0.0, 0.0, r, -1.0),
            glam::Vec4::new(0.0, 0.0, r * near, 0.0),
        )
    }

    /// The matrices of a frame of `aspect`.
    pub fn frame_camera(&self, aspect: f32) -> FrameCamera {
        FrameCamera {
            view_from_world: self.view_from_world,
            clip_from_view: self.clip_from_view(aspect),
        }
    }
}

/// How the viewer's pointer and keys drive the camera.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CameraMode {
    /// Drag turns the view around the target, scroll zooms (models).
    #[default]
    Orbit,
    /// Drag looks around from the eye, WASD/QE move it, scroll sets the speed (rooms).
    Fly,
}

impl CameraMode {
    pub fn label(self) -> &'static str {
        match self {
            Self::Orbit => "Orbit",
            Self::Fly => "Fly",
        }
    }
}

/// One frame of fly movement in camera axes (each −1…1): +forward, +right, +up (world Z).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct FlyMove {
    pub forward: f32,
    pub right: f32,
    pub up: f32,
}

impl FlyMove {
    pub fn is_zero(&self) -> bool {
        self.forward == 0.0 && self.right == 0.0 && self.up == 0.0
    }
}

impl OrbitCamera {
    /// A camera that shows the whole box (its bounding sphere fits the vertical field of
    /// view with a small margin), from the front-right and slightly above.
    pub fn framing(aabb: &Aabb) -> Self {
        let mut c = Self::default();
        let min = Vec3::from(aabb.min);
        let max = Vec3::from(aabb.max);
        let radius = ((max - min).length() * 0.5).max(1e-3);
        c.target = ((min + max) * 0.5).to_array();
        let half_fov = (c.fov_y_degrees.to_radians() * 0.5).sin();
        c.distance = radius / half_fov * 1.05;
        c
    }

    /// The material preview's plane in 3D (it stands in the XZ plane facing −Y): seen
    /// head-on from 3 units in front.
    pub fn facing_plane() -> Self {
        Self {
            yaw_degrees: 180.0,
            pitch_degrees: 0.0,
            distance: 3.0,
            target: [0.0; 3],
            fov_y_degrees: 50.0,
        }
    }

    /// Turns the camera by a pointer drag of (dx, dy) pixels: dragging right turns the
    /// model right (the eye moves left around it), dragging down raises the eye.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        const DEGREES_PER_PIXEL: f32 = 0.4;
        self.yaw_degrees = (self.yaw_degrees - dx * DEGREES_PER_PIXEL).rem_euclid(360.0);
        self.pitch_degrees = (self.pitch_degrees + dy * DEGREES_PER_PIXEL).clamp(-89.0, 89.0);
    }

    /// Fly mode's mouse look: turns the view by a drag of (dx, dy) pixels about the eye
    /// (dragging right looks right, dragging down looks down); the eye stays put.
    pub fn look(&mut self, dx: f32, dy: f32) {
        const DEGREES_PER_PIXEL: f32 = 0.25;
        let eye = self.eye();
        self.yaw_degrees = (self.yaw_degrees + dx * DEGREES_PER_PIXEL).rem_euclid(360.0);
        self.pitch_degrees = (self.pitch_degrees + dy * DEGREES_PER_PIXEL).clamp(-89.0, 89.0);
        self.keep_eye(eye);
    }

    /// Fly mode's movement: `step` (camera axes, see [`FlyMove`]) scaled to `distance`
    /// world units; forward follows the view direction, up is world Z.
    pub fn fly(&mut self, step: FlyMove, distance: f32) {
        if step.is_zero() || !distance.is_finite() {
            return;
        }
        let (_, right, _, forward) = self.basis();
        let dir = forward * step.forward + right * step.right + Vec3::Z * step.up;
        let dir = dir.normalize_or_zero();
        self.target = (Vec3::from(self.target) + dir * distance).to_array();
    }

    /// Keeps the eye and the view direction but puts the target `distance` ahead: the fly
    /// camera's pivot, which also sets the depth range ([`OrbitCamera::clip_from_view`]).
    pub fn set_pivot_distance(&mut self, distance: f32) {
        let eye = self.eye();
        self.distance = distance.clamp(1e-4, 1e7);
        self.keep_eye(eye);
    }

    /// Moves the target so the eye is at `eye` with the current angles and distance.
    fn keep_eye(&mut self, eye: Vec3) {
        let back = self.eye() - Vec3::from(self.target);
        self.target = (eye - back).to_array();
    }

    /// World units one pixel spans at the target's depth in a view `height` pixels high.
    pub fn units_per_pixel(&self, height: f32) -> f32 {
        let half = (self.fov_y_degrees.clamp(1.0, 170.0).to_radians() * 0.5).tan();
        2.0 * self.distance.max(1e-4) * half / height.max(1.0)
    }

    /// Moves the target in the view plane by a drag of (dx, dy) pixels in a view `height`
    /// pixels high, so the point under the cursor at the target's depth follows it.
    pub fn pan(&mut self, dx: f32, dy: f32, height: f32) {
        let (_, right, up, _) = self.basis();
        let k = self.units_per_pixel(height);
        let t = Vec3::from(self.target) - right * (dx * k) + up * (dy * k);
        self.target = t.to_array();
    }

    /// Zooms by a scroll of `delta` points (positive = closer), exponentially so each
    /// notch is the same ratio at any scale.
    pub fn zoom(&mut self, delta: f32) {
        self.distance = (self.distance * (-delta * 0.002).exp()).clamp(1e-4, 1e7);
    }

    /// Moves the eye along its current direction to the nearest distance at which every
    /// corner of `aabb` lies in front of the camera and inside `margin` (e.g. 0.9) of a
    /// view of `aspect`: the box fills the view instead of its bounding sphere. Keeps the
    /// current distance when the box cannot be fitted (degenerate input).
    pub fn fit_box(&mut self, aabb: &Aabb, aspect: f32, margin: f32) {
        let corners = aabb.corners().map(Vec3::from);
        self.fit_points(&corners, aspect, margin);
    }

    /// [`OrbitCamera::fit_box`] for a point cloud (e.g. a model's positions: tighter than
    /// its box when the geometry does not fill the box's corners).
    pub fn fit_points(&mut self, points: &[Vec3], aspect: f32, margin: f32) {
        let Some(first) = points.first() else {
            return;
        };
        if points.iter().any(|c| !c.is_finite()) || !aspect.is_finite() || aspect <= 0.0 {
            return;
        }
        let (min, max) = points
            .iter()
            .fold((*first, *first), |(lo, hi), p| (lo.min(*p), hi.max(*p)));
        let corners = points;
        let fits = |distance: f32| {
            let c = Self { distance, ..*self };
            let (view_from_world, clip_from_view) = (c.view_from_world(), c.clip_from_view(aspect));
            corners.iter().all(|&p| {
                c.ndc(&view_from_world, &clip_from_view, p)
                    .is_some_and(|ndc| ndc.x.abs() <= margin && ndc.y.abs() <= margin)
            })
        };
        let radius = ((max - min).length() * 0.5
            + (Vec3::from(self.target) - (min + max) * 0.5).length())
        .max(1e-3);
        // Far enough for any view direction and aspect, then bisect down to the fit.
        let half = (self.fov_y_degrees.clamp(1.0, 170.0).to_radians() * 0.5).tan();
        let mut hi = radius * 4.0 / (half * aspect.min(1.0) * margin.clamp(0.05, 1.0)) + radius;
        if !fits(hi) {
            return;
        }
        let mut lo = 0.0f32;
        for _ in 0..40 {
            let mid = 0.5 * (lo + hi);
            if fits(mid) {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        self.distance = hi;
    }

    /// World-space eye position.
    pub fn eye(&self) -> Vec3 {
        let (yaw, pitch) = (
            self.yaw_degrees.to_radians(),
            self.pitch_degrees.clamp(-89.0, 89.0).to_radians(),
        );
        let dir = Vec3::new(
            pitch.cos() * yaw.sin(),
            pitch.cos() * yaw.cos(),
            pitch.sin(),
        );
        Vec3::from(self.target) + dir * self.distance.max(1e-4)
    }

    /// The eye and the camera's right, up and forward axes in world space.
    fn basis(&self) -> (Vec3, Vec3, Vec3, Vec3) {
        let eye = self.eye();
        let forward = (Vec3::from(self.target) - eye).normalize_or(Vec3::NEG_Y);
        let right = forward.cross(Vec3::Z).normalize_or(Vec3::X);
        let up = right.cross(forward);
        (eye, right, up, forward)
    }

    /// The camera's right axis in world space.
    pub fn right(&self) -> Vec3 {
        self.basis().1
    }

    /// View matrix (camera axes x right, y up, −z forward) of Prime's Z-up world.
    pub fn view_from_world(&self) -> Mat4 {
        let (eye, right, up, forward) = self.basis();
        Mat4::from_cols(
            glam::Vec4::new(right.x, up.x, -forward.x, 0.0),
            glam::Vec4::new(right.y, up.y, -forward.y, 0.0),
            glam::Vec4::new(right.z, up.z, -forward.z, 0.0),
            glam::Vec4::new(-right.dot(eye), -up.dot(eye), forward.dot(eye), 1.0),
        )
    }

    /// Perspective projection for `aspect` (width / height); near and far planes follow
    /// the distance so models of any scale keep depth precision.
    pub fn clip_from_view(&self, aspect: f32) -> Mat4 {
        self.view().clip_from_view(aspect)
    }

    /// What the renderer takes for a frame (see [`CameraView`]).
    pub fn view(&self) -> CameraView {
        let d = self.distance.max(1e-4);
        let (eye, _, _, forward) = self.basis();
        CameraView {
            view_from_world: self.view_from_world(),
            eye,
            forward,
            fov_y_degrees: self.fov_y_degrees,
            near: d * 0.01,
            far: d * 100.0,
        }
    }

    /// Where world point `p` lands in a view `size` (width, height) units big, top-left
    /// origin (e.g. for overlay gizmos); None when it is behind the near plane.
    pub fn project(&self, p: Vec3, size: [f32; 2]) -> Option<[f32; 2]> {
        let clip_from_view = self.clip_from_view(size[0] / size[1].max(1e-4));
        let ndc = self.ndc(&self.view_from_world(), &clip_from_view, p)?;
        Some([(ndc.x * 0.5 + 0.5) * size[0], (0.5 - ndc.y * 0.5) * size[1]])
    }

    /// Normalized device coordinates of `p` through this camera's matrices; None when it
    /// is not in front of the near plane.
    fn ndc(&self, view_from_world: &Mat4, clip_from_view: &Mat4, p: Vec3) -> Option<Vec3> {
        let v = view_from_world.transform_point3(p);
        (-v.z > self.distance.max(1e-4) * 0.01).then(|| clip_from_view.project_point3(v))
    }

    /// The world offset that moves point `p` by a drag of (dx, dy) in a view `height` units
    /// high, in the plane facing the camera through `p` (so it follows the cursor).
    pub fn drag_offset(&self, p: Vec3, dx: f32, dy: f32, height: f32) -> Vec3 {
        let (_, right, up, _) = self.basis();
        let depth = (-self.view_from_world().transform_point3(p).z).max(1e-4);
        let at_depth = Self {
            distance: depth,
            ..*self
        };
        let k = at_depth.units_per_pixel(height);
        right * (dx * k) - up * (dy * k)
    }

    pub fn frame_camera(&self, aspect: f32) -> FrameCamera {
        self.view().frame_camera(aspect)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_turns_about_the_eye_and_fly_moves_along_the_view() {
        let mut c = OrbitCamera {
            yaw_degrees: 0.0,
            pitch_degrees: 0.0,
            distance: 2.0,
            target: [0.0; 3],
            fov_y_degrees: 45.0,
        };
        let eye = c.eye();
        c.look(100.0, -40.0);
        assert!((c.eye() - eye).length() < 1e-4, "{} {eye}", c.eye());
        assert!(c.yaw_degrees != 0.0 && c.pitch_degrees < 0.0);
        // Dragging right looks right: a point to the camera's right comes towards the centre.
        let mut c = OrbitCamera {
            yaw_degrees: 0.0,
            pitch_degrees: 0.0,
            ..c
        };
        c.target = [0.0, 8.0, 0.0];
        // Eye at (0, 10, 0) looking −Y: the camera's right is world −X.
        let right_point = Vec3::new(-3.0, 0.0, 0.0);
        let before = c.view_from_world().transform_point3(right_point).x;
        c.look(20.0, 0.0);
        let after = c.view_from_world().transform_point3(right_point).x;
        assert!(before > 0.0 && after < before, "{before} {after}");
        // Forward moves towards the target; up is world Z whatever the pitch.
        let eye = c.eye();
        c.fly(
            FlyMove {
                forward: 1.0,
                ..Default::default()
            },
            3.0,
        );
        let moved = c.eye() - eye;
        assert!((moved.length() - 3.0).abs() < 1e-4);
        let forward = (Vec3::from(c.target) - c.eye()).normalize();
        assert!(moved.normalize().dot(forward) > 0.999);
        c.pitch_degrees = 40.0;
        let eye = c.eye();
        c.fly(
            FlyMove {
                up: 1.0,
                ..Default::default()
            },
            2.0,
        );
        assert!((c.eye() - eye - Vec3::new(0.0, 0.0, 2.0)).length() < 1e-4);
        // A new pivot keeps the view matrix.
        let view = c.view_from_world();
        c.set_pivot_distance(0.5);
        assert!(c.view_from_world().abs_diff_eq(view, 1e-4));
        assert_eq!(c.distance, 0.5);
    }

    #[test]
    fn yaw_zero_looks_at_the_front_from_plus_y() {
        let c = OrbitCamera {
            yaw_degrees: 0.0,
            pitch_degrees: 0.0,
            distance: 10.0,
            ..Default::default()
        };
        assert!((c.eye() - Vec3::new(0.0, 10.0, 0.0)).length() < 1e-4);
        let v = c.view_from_world();
        // World +Z is camera up; world origin is in front (−z) of the camera.
        assert!((v.transform_vector3(Vec3::Z) - Vec3::Y).length() < 1e-5);
        assert!(v.transform_point3(Vec3::ZERO).z < 0.0);
    }

    #[test]
    fn a_dragged_point_follows_the_cursor() {
        let c = OrbitCamera {
            yaw_degrees: 37.0,
            pitch_degrees: 25.0,
            distance: 8.0,
            target: [1.0, -2.0, 0.5],
            fov_y_degrees: 45.0,
        };
        let size = [800.0, 600.0];
        let p = Vec3::new(2.0, 0.0, 1.5);
        let [x, y] = c.project(p, size).expect("in front");
        let moved = p + c.drag_offset(p, 30.0, -20.0, size[1]);
        let [x2, y2] = c.project(moved, size).expect("in front");
        assert!((x2 - x - 30.0).abs() < 0.05 && (y2 - y + 20.0).abs() < 0.05);
        // The target projects to the centre; the eye itself is behind the near plane.
        let [cx, cy] = c.project(Vec3::from(c.target), size).unwrap();
        assert!((cx - 400.0).abs() < 1e-3 && (cy - 300.0).abs() < 1e-3);
        assert_eq!(c.project(c.eye(), size), None);
    }

    #[test]
    fn pan_keeps_the_grabbed_point_under_the_cursor() {
        let mut c = OrbitCamera {
            yaw_degrees: 37.0,
            pitch_degrees: 25.0,
            distance: 8.0,
            target: [1.0, -2.0, 0.5],
            fov_y_degrees: 45.0,
        };
        let height = 600.0;
        let to_pixels = |c: &OrbitCamera, p: Vec3| {
            let ndc = (c.clip_from_view(1.0) * c.view_from_world()).project_point3(p);
            (ndc.x * height * 0.5, -ndc.y * height * 0.5)
        };
        let grabbed = Vec3::from(c.target);
        let before = to_pixels(&c, grabbed);
        c.pan(30.0, -12.0, height);
        let after = to_pixels(&c, grabbed);
        assert!(
            (after.0 - before.0 - 30.0).abs() < 1e-2,
            "{before:?} {after:?}"
        );
        assert!(
            (after.1 - before.1 + 12.0).abs() < 1e-2,
            "{before:?} {after:?}"
        );
        // Panning keeps the viewing direction and distance.
        assert!((c.distance - 8.0).abs() < 1e-6 && c.yaw_degrees == 37.0);
    }

    #[test]
    fn zoom_is_a_ratio_and_orbit_clamps_pitch() {
        let mut c = OrbitCamera::default();
        c.zoom(100.0);
        let once = c.distance;
        c.zoom(100.0);
        assert!((c.distance / once - once / 5.0).abs() < 1e-5);
        assert!(c.distance < 5.0);
        c.zoom(-1e9);
        assert!(c.distance.is_finite() && c.distance <= 1e7);
        c.orbit(0.0, 1e6);
        assert_eq!(c.pitch_degrees, 89.0);
        c.orbit(900.0, 0.0);
        assert!((0.0..360.0).contains(&c.yaw_degrees));
        assert!(c.eye().is_finite());
    }

    #[test]
    fn fit_box_fills_the_view_with_every_corner_inside() {
        let aabb = Aabb {
            min: [-4.0, -0.1, 0.0],
            max: [4.0, 0.1, 3.0],
        };
        for aspect in [0.5f32, 1.0, 16.0 / 9.0] {
            let mut c = OrbitCamera::framing(&aabb);
            c.fit_box(&aabb, aspect, 0.9);
            let m = c.clip_from_view(aspect) * c.view_from_world();
            let mut widest = 0.0f32;
            for i in 0..8 {
                let p = Vec3::new(
                    if i & 1 == 0 { -4.0 } else { 4.0 },
                    if i & 2 == 0 { -0.1 } else { 0.1 },
                    if i & 4 == 0 { 0.0 } else { 3.0 },
                );
                let ndc = m.project_point3(p);
                assert!(
                    ndc.x.abs() <= 0.9 + 1e-4 && ndc.y.abs() <= 0.9 + 1e-4,
                    "{ndc}"
                );
                widest = widest.max(ndc.x.abs()).max(ndc.y.abs());
            }
            // Tight: some corner touches the margin.
            assert!(widest > 0.89, "{aspect}: {widest}");
        }
    }

    #[test]
    fn framing_contains_the_box() {
        let aabb = Aabb {
            min: [-1.0, -2.0, 0.0],
            max: [1.0, 2.0, 3.0],
        };
        let c = OrbitCamera::framing(&aabb);
        let clip_from_world = c.clip_from_view(1.0) * c.view_from_world();
        for &x in &[aabb.min[0], aabb.max[0]] {
            for &y in &[aabb.min[1], aabb.max[1]] {
                for &z in &[aabb.min[2], aabb.max[2]] {
                    let p = clip_from_world.project_point3(Vec3::new(x, y, z));
                    assert!(p.x.abs() <= 1.0 && p.y.abs() <= 1.0, "{p}");
                    assert!((0.0..=1.0).contains(&p.z));
                }
            }
        }
    }
}
