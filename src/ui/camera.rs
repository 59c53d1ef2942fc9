//! Orbit camera: drag to rotate around a target, scroll to zoom. Used by the "plane in 3D"
//! preview today and by the model scene next (which sets `target`/`distance` from the
//! model's bounding box).

use glam::{Mat4, Vec3, Vec4};

/// A camera orbiting `target` (Prime's world is Z up; the camera keeps Z up).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OrbitCamera {
    pub target: Vec3,
    /// Radians around Z; 0 looks along +Y.
    pub yaw: f32,
    /// Radians above the XY plane, kept inside ±89°.
    pub pitch: f32,
    pub distance: f32,
    /// Vertical field of view, radians.
    pub fov_y: f32,
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            target: Vec3::ZERO,
            yaw: 0.0,
            pitch: 0.0,
            distance: 3.0,
            fov_y: 50f32.to_radians(),
        }
    }
}

const MAX_PITCH: f32 = 89.0 * std::f32::consts::PI / 180.0;

impl OrbitCamera {
    /// Frames a box: looks at its centre from far enough to see its bounding sphere.
    pub fn framing(min: Vec3, max: Vec3) -> Self {
        let radius = ((max - min).length() * 0.5).max(1e-3);
        let fov_y = 50f32.to_radians();
        Self {
            target: (min + max) * 0.5,
            yaw: 0.6,
            pitch: 0.35,
            distance: radius / (fov_y * 0.5).sin() * 1.1,
            fov_y,
        }
    }

    /// Rotates by a pointer drag of (dx, dy) points.
    pub fn drag(&mut self, dx: f32, dy: f32) {
        self.yaw -= dx * 0.008;
        self.pitch = (self.pitch + dy * 0.008).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Zooms by a scroll of `delta` points (positive = closer).
    pub fn zoom(&mut self, delta: f32) {
        self.distance = (self.distance * (-delta * 0.002).exp()).clamp(1e-3, 1e6);
    }

    /// Camera position in the world.
    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        // yaw 0: camera on −Y looking toward +Y.
        self.target + self.distance * Vec3::new(-sy * cp, -cy * cp, sp)
    }

    pub fn view_from_world(&self) -> Mat4 {
        look_at_rh(self.eye(), self.target, Vec3::Z)
    }

    /// Perspective with wgpu's [0, 1] depth range.
    pub fn clip_from_view(&self, aspect: f32) -> Mat4 {
        let near = (self.distance * 0.01).max(1e-4);
        let far = self.distance * 100.0 + 10.0;
        perspective_rh(self.fov_y, aspect.max(1e-3), near, far)
    }
}

/// Right-handed view matrix (camera x right, y up, looking down −z).
fn look_at_rh(eye: Vec3, center: Vec3, up: Vec3) -> Mat4 {
    let f = (center - eye).normalize();
    let s = f.cross(up).normalize();
    let u = s.cross(f);
    Mat4::from_cols(
        Vec4::new(s.x, u.x, -f.x, 0.0),
        Vec4::new(s.y, u.y, -f.y, 0.0),
        Vec4::new(s.z, u.z, -f.z, 0.0),
        Vec4::new(-s.dot(eye), -u.dot(eye), f.dot(eye), 1.0),
    )
}

/// Right-handed perspective mapping view depth [near, far] to wgpu's [0, 1].
fn perspective_rh(fov_y: f32, aspect: f32, near: f32, far: f32) -> Mat4 {
    let h = 1.0 / (fov_y * 0.5).tan();
    let w = h / aspect;
    let r = far / (near - far);
    Mat4::from_cols(
        Vec4::new(w, 0.0, 0.0, 0.0),
        Vec4::new(0.0, h, 0.0, 0.0),
        Vec4::new(0.0, 0.0, r, -1.0),
        Vec4::new(0.0, 0.0, r * near, 0.0),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_camera_looks_along_plus_y_with_z_up() {
        let c = OrbitCamera::default();
        let eye = c.eye();
        assert!((eye - Vec3::new(0.0, -3.0, 0.0)).length() < 1e-5, "{eye}");
        // The target lands at the centre of the screen, in front of the camera.
        let clip = c.clip_from_view(1.0) * c.view_from_world() * c.target.extend(1.0);
        assert!(clip.x.abs() < 1e-5 && clip.y.abs() < 1e-5);
        let depth = clip.z / clip.w;
        assert!((0.0..1.0).contains(&depth), "{depth}");
        // +Z in the world is up on screen.
        let up = c.clip_from_view(1.0) * c.view_from_world() * Vec3::Z.extend(1.0);
        assert!(up.y / up.w > 0.0);
    }

    #[test]
    fn drag_and_zoom_stay_in_range() {
        let mut c = OrbitCamera::default();
        c.drag(0.0, 1e6);
        assert!(c.pitch <= MAX_PITCH);
        let d = c.distance;
        c.zoom(100.0);
        assert!(c.distance < d);
        c.zoom(-1e9);
        assert!(c.distance.is_finite() && c.distance <= 1e6);
        let eye = c.eye();
        assert!(eye.is_finite());
    }

    #[test]
    fn framing_sees_the_whole_box() {
        let c = OrbitCamera::framing(Vec3::splat(-2.0), Vec3::splat(2.0));
        let m = c.clip_from_view(1.0) * c.view_from_world();
        for corner in [
            Vec3::new(-2.0, -2.0, -2.0),
            Vec3::new(2.0, 2.0, 2.0),
            Vec3::new(-2.0, 2.0, 2.0),
            Vec3::new(2.0, -2.0, -2.0),
        ] {
            let p = m * corner.extend(1.0);
            let ndc = p.truncate() / p.w;
            assert!(
                ndc.x.abs() <= 1.0 && ndc.y.abs() <= 1.0,
                "{corner} -> {ndc}"
            );
        }
    }
}
