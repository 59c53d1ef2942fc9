//! The character animation's controls and skeleton overlay as plain data (no egui drawing,
//! unit-tested): loop or once, bind pose, frame stepping and the frame readout; the posed
//! joints (through [`crate::anim`], as the scene poses them) projected with the scene's
//! [`OrbitCamera`], and the joint under the cursor.

use glam::Vec3;

use crate::anim::pose::{ClipBinding, Pose, PoseOptions};
use crate::model::CpuSkin;
use crate::session::{Asset, Content, Session};

/// The animation controls' settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AnimView {
    /// Loop the clip (else play it once and stop at its end).
    pub looping: bool,
    /// Show the skin at its bind pose (the clip and time stay chosen).
    pub bind_pose: bool,
    /// Draw the skeleton over the model.
    pub skeleton: bool,
}

impl Default for AnimView {
    fn default() -> Self {
        Self {
            looping: true,
            bind_pose: false,
            skeleton: false,
        }
    }
}

/// The clock and the character's clip, as these controls pose them.
impl AnimView {
    /// The clip the scene poses: the chosen one, or None at the bind pose.
    pub fn posed_animation(&self, session: &Session) -> Option<usize> {
        session.clock.animation.filter(|_| !self.bind_pose)
    }

    /// Pauses and moves the clock one frame forward or back.
    pub fn step_frame(&self, session: &mut Session, forward: bool) {
        if let Some(timing) = clip_timing(session) {
            session.clock.playing = false;
            session.clock.time = timing.step(session.clock.time, forward, self.looping);
        }
    }

    /// The open model's skeleton and its joints (model space) as the scene poses them now.
    pub fn posed_skeleton<'s>(
        &self,
        session: &'s Session,
    ) -> Option<(&'s crate::anim::skeleton::Skeleton, Vec<Vec3>)> {
        let skin = session.asset()?.cpu_model()?.skin.as_ref()?;
        let options = crate::render::SceneOptions::default().pose;
        let joints = posed_joints(
            skin,
            self.posed_animation(session),
            session.clock.time as f32,
            &options,
        );
        Some((&skin.skeleton, joints))
    }
}

/// The chosen clip's frame grid.
pub fn clip_timing(session: &Session) -> Option<ClipTiming> {
    let skin = session.asset()?.cpu_model()?.skin.as_ref()?;
    let (_, clip) = skin.clips.get(session.clock.animation?)?;
    Some(ClipTiming {
        duration: f64::from(clip.duration),
        interval: f64::from(clip.interval),
        frame_count: clip.frame_count,
    })
}

/// Duration of the playing animation, if any.
pub fn animation_duration(session: &Session) -> Option<f32> {
    match session.asset()? {
        Asset {
            content: Content::Model { animations, .. },
            ..
        } => animations.get(session.clock.animation?).map(|a| a.duration),
        _ => None,
    }
}

/// A clip's frame grid: frame i lies at i × `interval`, i < `frame_count`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipTiming {
    pub duration: f64,
    pub interval: f64,
    pub frame_count: u32,
}

/// Times this close to a frame count as on it (float clocks).
const ON_FRAME: f64 = 1e-4;

impl ClipTiming {
    fn last_frame(&self) -> u32 {
        self.frame_count.saturating_sub(1)
    }

    fn valid(&self) -> bool {
        self.interval > 0.0 && self.frame_count > 0
    }

    /// The frame shown at `time` (0-based): the last one reached.
    pub fn frame_at(&self, time: f64) -> u32 {
        if !self.valid() {
            return 0;
        }
        let f = (time / self.interval + ON_FRAME).floor().max(0.0);
        (f as u32).min(self.last_frame())
    }

    /// The time of the next (`forward`) or previous frame from `time`; past either end it
    /// wraps when `looping`, else stays at the end.
    pub fn step(&self, time: f64, forward: bool, looping: bool) -> f64 {
        if !self.valid() {
            return time;
        }
        let x = time / self.interval;
        let last = i64::from(self.last_frame());
        let frame = if forward {
            (x + ON_FRAME).floor() as i64 + 1
        } else {
            (x - ON_FRAME).ceil() as i64 - 1
        };
        let frame = match (frame < 0, frame > last, looping) {
            (true, _, true) => last,
            (_, true, true) => 0,
            _ => frame.clamp(0, last),
        };
        (frame as f64 * self.interval).min(self.duration.max(0.0))
    }

    /// "Frame n / N (t s)", frames numbered from 1.
    pub fn readout(&self, time: f64) -> String {
        format!(
            "Frame {} / {} ({time:.3} s)",
            self.frame_at(time) + 1,
            self.frame_count
        )
    }
}

/// The clock after `delta` seconds of play over a clip of `duration`: wraps when
/// `looping`; else stops at either end (false: playing ends), and a clock already at the
/// end it runs towards starts over.
pub fn advance(time: f64, delta: f64, duration: f64, looping: bool) -> (f64, bool) {
    if duration <= 0.0 {
        return (0.0, !looping);
    }
    if looping {
        return ((time + delta).rem_euclid(duration), true);
    }
    let start = if delta > 0.0 && time >= duration {
        0.0
    } else if delta < 0.0 && time <= 0.0 {
        duration
    } else {
        time
    };
    let t = start + delta;
    if t >= duration {
        (duration, false)
    } else if t <= 0.0 {
        (0.0, false)
    } else {
        (t, true)
    }
}

/// Model-space joint positions of `skin` posed with clip `animation` at `time`, as the
/// scene poses it (its [`PoseOptions`]); the bind pose for None, an unknown clip or one
/// that does not fit the skeleton.
pub fn posed_joints(
    skin: &CpuSkin,
    animation: Option<usize>,
    time: f32,
    options: &PoseOptions,
) -> Vec<Vec3> {
    let mut pose = Pose::bind(&skin.skeleton, options);
    if let Some((_, clip)) = animation.and_then(|a| skin.clips.get(a))
        && let Ok(binding) = ClipBinding::new(clip, &skin.skeleton)
    {
        pose.sample(&skin.skeleton, clip, &binding, time, options);
    }
    pose.model.iter().map(|t| t.translation).collect()
}

/// The joint nearest `cursor` within `radius` (same units as the points).
pub fn nearest_joint(points: &[Option<[f32; 2]>], cursor: [f32; 2], radius: f32) -> Option<usize> {
    points
        .iter()
        .enumerate()
        .filter_map(|(i, p)| {
            let [x, y] = (*p)?;
            let d2 = (x - cursor[0]).powi(2) + (y - cursor[1]).powi(2);
            (d2 <= radius * radius).then_some((i, d2))
        })
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::camera::OrbitCamera;

    /// The demo's wave: 61 frames at 1/30 s over 2 s.
    const WAVE: ClipTiming = ClipTiming {
        duration: 2.0,
        interval: 1.0 / 30.0,
        frame_count: 61,
    };

    #[test]
    fn frames_step_and_wrap_or_stop() {
        let i = WAVE.interval;
        assert_eq!(WAVE.frame_at(0.0), 0);
        assert_eq!(WAVE.frame_at(3.0 * i), 3);
        assert_eq!(WAVE.frame_at(3.5 * i), 3);
        assert_eq!(WAVE.frame_at(2.0), 60);
        assert_eq!(WAVE.readout(2.0), "Frame 61 / 61 (2.000 s)");
        assert_eq!(WAVE.readout(0.0), "Frame 1 / 61 (0.000 s)");
        // Between frames: next goes to the following frame, previous to the one reached.
        assert!((WAVE.step(3.5 * i, true, true) - 4.0 * i).abs() < 1e-9);
        assert!((WAVE.step(3.5 * i, false, true) - 3.0 * i).abs() < 1e-9);
        // On a frame (float error included).
        assert!((WAVE.step(3.0 * i + 1e-9, true, true) - 4.0 * i).abs() < 1e-9);
        assert!((WAVE.step(3.0 * i - 1e-9, false, true) - 2.0 * i).abs() < 1e-9);
        // Past the ends: loop wraps, once stays.
        assert_eq!(WAVE.step(2.0, true, true), 0.0);
        assert!((WAVE.step(2.0, true, false) - 2.0).abs() < 1e-9);
        assert!((WAVE.step(0.0, false, true) - 2.0).abs() < 1e-9);
        assert_eq!(WAVE.step(0.0, false, false), 0.0);
        // 61 steps forward come back to the start when looping.
        let mut t = 0.0;
        for _ in 0..61 {
            t = WAVE.step(t, true, true);
        }
        assert_eq!(t, 0.0);
    }

    #[test]
    fn the_clock_loops_or_plays_once() {
        let (t, playing) = advance(1.5, 1.0, 2.0, true);
        assert!((t - 0.5).abs() < 1e-12 && playing);
        let (t, playing) = advance(-0.25, 0.0, 2.0, true);
        assert!((t - 1.75).abs() < 1e-12 && playing);
        // Once: stops at the end, and playing again starts over.
        assert_eq!(advance(1.5, 1.0, 2.0, false), (2.0, false));
        assert_eq!(advance(1.0, 0.5, 2.0, false), (1.5, true));
        assert_eq!(advance(2.0, 0.25, 2.0, false), (0.25, true));
        // Backwards: stops at 0, and from 0 starts at the end.
        assert_eq!(advance(0.5, -1.0, 2.0, false), (0.0, false));
        assert_eq!(advance(0.0, -0.5, 2.0, false), (1.5, true));
    }

    #[test]
    fn projection_matches_the_camera() {
        let camera = OrbitCamera {
            yaw_degrees: 0.0,
            pitch_degrees: 0.0,
            distance: 10.0,
            target: [1.0, 2.0, 3.0],
            fov_y_degrees: 45.0,
        };
        let size = [800.0, 400.0];
        // The target is the view's centre; world +Z is up, and from +Y world −X is right.
        let c = camera.project(Vec3::new(1.0, 2.0, 3.0), size).unwrap();
        assert!((c[0] - 400.0).abs() < 1e-3 && (c[1] - 200.0).abs() < 1e-3);
        let up = camera.project(Vec3::new(1.0, 2.0, 4.0), size).unwrap();
        assert!(up[1] < 200.0 && (up[0] - 400.0).abs() < 1e-3);
        let right = camera.project(Vec3::new(0.0, 2.0, 3.0), size).unwrap();
        assert!(right[0] > 400.0);
        // One unit up at distance 10 with a 45° field of view: 1 / (10 tan 22.5°) of
        // half the height.
        let want = 200.0 / (10.0 * 22.5f32.to_radians().tan());
        assert!(((200.0 - up[1]) - want).abs() < 1e-2, "{up:?}");
        // Behind the eye: nothing.
        assert_eq!(camera.project(Vec3::new(1.0, 20.0, 3.0), size), None);
    }

    #[test]
    fn hover_picks_the_nearest_joint_within_the_radius() {
        let points = [
            Some([10.0, 10.0]),
            None,
            Some([14.0, 10.0]),
            Some([100.0, 0.0]),
        ];
        assert_eq!(nearest_joint(&points, [13.0, 10.0], 6.0), Some(2));
        assert_eq!(nearest_joint(&points, [11.0, 11.0], 6.0), Some(0));
        assert_eq!(nearest_joint(&points, [50.0, 50.0], 6.0), None);
    }

    #[test]
    fn the_demo_worm_poses_differently_than_at_bind() {
        let pak = concat!(env!("CARGO_MANIFEST_DIR"), "/assets/demo.pak");
        let (loaded, _) = crate::load::load(&crate::load::LoadRequest::new(&format!(
            "{pak}:worm_character"
        )))
        .unwrap();
        let model = loaded.assets.cpu_model().unwrap();
        let skin = model.skin.as_ref().unwrap();
        let options = PoseOptions::default();
        let bind = posed_joints(skin, None, 0.0, &options);
        assert_eq!(bind.len(), skin.skeleton.len());
        for (j, b) in bind.iter().zip(skin.skeleton.bones()) {
            assert!((*j - b.bind_position).length() < 1e-4, "{}", b.name);
        }
        let posed = posed_joints(skin, Some(0), 0.5, &options);
        assert!(
            bind.iter()
                .zip(&posed)
                .any(|(a, b)| (*a - *b).length() > 1e-3)
        );
        // An unknown clip is the bind pose.
        assert_eq!(posed_joints(skin, Some(99), 0.5, &options), bind);
    }
}
