//! The session's one camera: how the open model or room is looked at (orbit or fly),
//! framed on what the model covers as it moves. The viewer's pointer and keys drive it;
//! the renderer takes its [`crate::camera::CameraView`] each frame and keeps no camera.

use std::sync::Arc;

use glam::Vec3;

use crate::anim::pose::PoseOptions;
use crate::camera::{CameraMode, OrbitCamera};
use crate::geom::Aabb;
use crate::model::CpuModel;

/// At most this many positions are kept to frame a model (a sample of very large ones).
const FRAMING_POINTS: usize = 20_000;

/// What the camera is framed on: positions and their bounds (with the file's box).
struct FramingPoints {
    points: Vec<Vec3>,
    bounds: Aabb,
}

/// [`FramingPoints`] of one model posed through one clip (None: bind pose): posing a
/// character again on every resize is not needed.
struct FramingCache {
    model: Arc<CpuModel>,
    clip: Option<usize>,
    points: Arc<FramingPoints>,
}

/// The camera and how it is driven.
pub struct Camera {
    pub orbit: OrbitCamera,
    /// Rooms start in fly mode, models in orbit.
    pub mode: CameraMode,
    /// Fly mode's speed in world units per second.
    pub fly_speed: f32,
    /// The camera [`Camera::frame`] last set and the view size it fitted: while the camera
    /// is untouched, a new view size frames the model again ([`Camera::keeps_framing`]).
    pub framed: Option<(OrbitCamera, [u32; 2])>,
    cache: Option<FramingCache>,
}

impl Default for Camera {
    fn default() -> Self {
        Self {
            orbit: OrbitCamera::default(),
            mode: CameraMode::Orbit,
            fly_speed: 1.0,
            framed: None,
            cache: None,
        }
    }
}

impl Camera {
    /// A newly opened model (`room`: an area's geometry) of box `aabb`: rooms are seen from
    /// inside (fly, crossing the box in about four seconds), models are turned around.
    pub fn opened(&mut self, room: bool, aabb: Option<&Aabb>) {
        self.mode = if room {
            CameraMode::Fly
        } else {
            CameraMode::Orbit
        };
        if let Some(aabb) = aabb {
            let size = Vec3::from(aabb.max) - Vec3::from(aabb.min);
            self.fly_speed = (size.length() * 0.25).max(1e-3);
        }
    }

    /// Frames just `aabb` by its bounding sphere (e.g. a preview shape's −1…1 box).
    pub fn frame_box(&mut self, aabb: &Aabb) {
        self.orbit = OrbitCamera::framing(aabb);
    }

    /// Points the camera at `model` (box `file_aabb`, posed through `clip`): its bounding
    /// sphere, then, when the view's size is known, as close as keeps every position in
    /// 90 % of the view. Fly mode keeps that view but pivots just ahead of the eye.
    pub fn frame(
        &mut self,
        model: &Arc<CpuModel>,
        clip: Option<usize>,
        file_aabb: Aabb,
        view_size: Option<[u32; 2]>,
    ) {
        let framing = self.framing_points(model, clip, file_aabb);
        let aabb = framing.as_ref().map_or(file_aabb, |f| f.bounds);
        self.orbit = OrbitCamera::framing(&aabb);
        if let (Some([w, h]), Some(framing)) = (view_size, framing)
            && w > 0
            && h > 0
        {
            let mut camera = self.orbit;
            camera.fit_points(&framing.points, w as f32 / h as f32, 0.9);
            if self.mode == CameraMode::Fly {
                camera.set_pivot_distance(fly_pivot(&aabb));
            }
            self.orbit = camera;
            self.framed = Some((camera, [w, h]));
        }
    }

    /// Whether a view now `size` big should be framed again: the camera is still where
    /// framing put it, for another size.
    pub fn keeps_framing(&self, size: [u32; 2]) -> bool {
        self.framed
            .is_some_and(|(camera, framed)| framed != size && camera == self.orbit)
    }

    /// Back to the default camera, framed on nothing.
    pub fn reset(&mut self) {
        self.orbit = OrbitCamera::default();
        self.framed = None;
    }

    /// Switches between orbit and fly over a scene of box `aabb`; the view stays where it
    /// is (fly pivots just ahead of the eye, orbit about the box's centre depth).
    pub fn set_mode(&mut self, mode: CameraMode, aabb: Option<&Aabb>) {
        if mode == self.mode {
            return;
        }
        self.mode = mode;
        if let Some(aabb) = aabb {
            let pivot = match mode {
                CameraMode::Fly => fly_pivot(aabb),
                CameraMode::Orbit => (Vec3::from(aabb.center()) - self.orbit.eye())
                    .length()
                    .max(fly_pivot(aabb)),
            };
            self.orbit.set_pivot_distance(pivot);
        }
    }

    /// The positions framing keeps in view (bind pose, and posed through `clip`) and their
    /// bounds with the file's; made once per model and clip.
    fn framing_points(
        &mut self,
        model: &Arc<CpuModel>,
        clip: Option<usize>,
        file_aabb: Aabb,
    ) -> Option<Arc<FramingPoints>> {
        if let Some(c) = &self.cache
            && Arc::ptr_eq(&c.model, model)
            && c.clip == clip
        {
            return Some(c.points.clone());
        }
        let points = model.animated_points(clip, &PoseOptions::default(), FRAMING_POINTS);
        let bounds = Aabb::from_points(
            points
                .iter()
                .map(|p| p.to_array())
                .chain(file_aabb.corners()),
        )?;
        let points = Arc::new(FramingPoints { points, bounds });
        self.cache = Some(FramingCache {
            model: Arc::clone(model),
            clip,
            points: points.clone(),
        });
        Some(points)
    }
}

/// The fly camera's pivot distance for a scene of this box: close enough that walls near
/// the eye are not clipped, far enough that the far plane covers the room.
fn fly_pivot(aabb: &Aabb) -> f32 {
    let size = Vec3::from(aabb.max) - Vec3::from(aabb.min);
    (size.length() * 0.04).max(1e-3)
}
