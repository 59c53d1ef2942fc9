//! Meta-animations (ANCS, `formats.md` §8.5): trees that play, blend, phase-blend, pick at
//! random or sequence primitive clips. [`bake`] samples a tree into one plain [`Clip`] at a
//! fixed frame interval, so everything that plays clips (posing, the renderer, the CLI)
//! plays meta-animations without knowing about trees.
//!
//! Semantics:
//! - `Play`: the clip, looping as its file says.
//! - `Sequence`: the children one after another; the whole lasts the sum of their lengths.
//! - `Blend`: both children from time 0, mixed by `weight` (0 = all `a`); lasts as long as
//!   the longer child.
//! - `PhaseBlend`: both children stretched to a common length (their lengths mixed by
//!   `weight`) so their phases line up, then mixed by `weight`.
//! - `Random`: the game picks a child by probability at each start; a baked clip is one
//!   deterministic choice, the most probable child (the first on ties).
//!
//! A bone animated by only one side of a blend takes that side's value: a bake has no
//! skeleton to supply the other side's bind pose.

use std::collections::BTreeMap;

use glam::{Quat, Vec3};

use super::clip::{Channel, ChannelSample, Clip, ClipKind, SlerpMode, slerp};

/// A meta-animation tree whose leaves are indices into a clip list.
#[derive(Debug, Clone, PartialEq)]
pub enum MetaClip {
    Play(usize),
    Blend {
        a: Box<MetaClip>,
        b: Box<MetaClip>,
        weight: f32,
    },
    PhaseBlend {
        a: Box<MetaClip>,
        b: Box<MetaClip>,
        weight: f32,
    },
    /// (child, probability).
    Random(Vec<(MetaClip, u32)>),
    Sequence(Vec<MetaClip>),
}

/// One bone's sampled values, by bone ID.
type Samples = BTreeMap<u32, ChannelSample>;

impl MetaClip {
    /// Length in seconds (0 when a leaf index is missing from `clips`).
    pub fn duration(&self, clips: &[Clip]) -> f32 {
        match self {
            MetaClip::Play(i) => clips.get(*i).map_or(0.0, |c| c.duration.max(0.0)),
            MetaClip::Blend { a, b, .. } => a.duration(clips).max(b.duration(clips)),
            MetaClip::PhaseBlend { a, b, weight } => {
                let (da, db) = (a.duration(clips), b.duration(clips));
                da + (db - da) * weight.clamp(0.0, 1.0)
            }
            MetaClip::Random(children) => Self::chosen(children).map_or(0.0, |c| c.duration(clips)),
            MetaClip::Sequence(children) => children.iter().map(|c| c.duration(clips)).sum(),
        }
    }

    /// The finest frame interval of the leaves (1/30 s when there are none).
    fn interval(&self, clips: &[Clip]) -> f32 {
        let mut best = f32::INFINITY;
        self.visit_leaves(&mut |i| {
            if let Some(c) = clips.get(i)
                && c.interval > 0.0
            {
                best = best.min(c.interval);
            }
        });
        if best.is_finite() { best } else { 1.0 / 30.0 }
    }

    fn visit_leaves(&self, f: &mut impl FnMut(usize)) {
        match self {
            MetaClip::Play(i) => f(*i),
            MetaClip::Blend { a, b, .. } | MetaClip::PhaseBlend { a, b, .. } => {
                a.visit_leaves(f);
                b.visit_leaves(f);
            }
            MetaClip::Random(children) => {
                if let Some(c) = Self::chosen(children) {
                    c.visit_leaves(f);
                }
            }
            MetaClip::Sequence(children) => children.iter().for_each(|c| c.visit_leaves(f)),
        }
    }

    /// The child a baked `Random` plays: the most probable, the first on ties.
    fn chosen(children: &[(MetaClip, u32)]) -> Option<&MetaClip> {
        let best = children.iter().map(|(_, p)| *p).max()?;
        children.iter().find(|(_, p)| *p == best).map(|(c, _)| c)
    }

    /// Every animated bone's values at `t` seconds into this node.
    pub fn sample(&self, clips: &[Clip], t: f32, mode: SlerpMode) -> BTreeMap<u32, ChannelSample> {
        match self {
            MetaClip::Play(i) => {
                let Some(clip) = clips.get(*i) else {
                    return Samples::new();
                };
                let mut out = Samples::new();
                for (c, s) in clip.channels.iter().zip(clip.sample(t, false, mode)) {
                    // The last channel of a bone wins, as in posing.
                    out.insert(c.bone_id, s);
                }
                out
            }
            MetaClip::Blend { a, b, weight } => mix(
                a.sample(clips, t, mode),
                b.sample(clips, t, mode),
                *weight,
                mode,
            ),
            MetaClip::PhaseBlend { a, b, weight } => {
                let total = self.duration(clips);
                let phase = if total > 0.0 { t / total } else { 0.0 };
                let (da, db) = (a.duration(clips), b.duration(clips));
                mix(
                    a.sample(clips, phase * da, mode),
                    b.sample(clips, phase * db, mode),
                    *weight,
                    mode,
                )
            }
            MetaClip::Random(children) => Self::chosen(children)
                .map(|c| c.sample(clips, t, mode))
                .unwrap_or_default(),
            MetaClip::Sequence(children) => {
                let mut start = 0.0;
                for (k, c) in children.iter().enumerate() {
                    let d = c.duration(clips);
                    if t < start + d || k + 1 == children.len() {
                        return c.sample(clips, t - start, mode);
                    }
                    start += d;
                }
                Samples::new()
            }
        }
    }
}

fn mix(mut a: Samples, b: Samples, weight: f32, mode: SlerpMode) -> Samples {
    let w = weight.clamp(0.0, 1.0);
    for (bone, sb) in b {
        let s = a.entry(bone).or_insert(sb);
        s.rotation = match (s.rotation, sb.rotation) {
            (Some(x), Some(y)) => Some(slerp(x, y, w, mode)),
            (x, y) => x.or(y),
        };
        let lerp = |x: Option<Vec3>, y: Option<Vec3>| match (x, y) {
            (Some(x), Some(y)) => Some(x.lerp(y, w)),
            (x, y) => x.or(y),
        };
        s.translation = lerp(s.translation, sb.translation);
        s.scale = lerp(s.scale, sb.scale);
    }
    a
}

/// Upper bounds of a baked clip: frames (≈ 55 min at 30 fps), and frames × animated
/// bones (≈ 40 MB of samples).
pub const MAX_BAKED_FRAMES: usize = 100_000;
pub const MAX_BAKED_SAMPLES: usize = 1_000_000;

/// Samples `tree` into one looping clip with a key at every frame of the finest leaf
/// interval. `template` supplies the game and root bone (the first leaf's clip).
pub fn bake(tree: &MetaClip, clips: &[Clip], mode: SlerpMode) -> Option<Clip> {
    let mut first = None;
    tree.visit_leaves(&mut |i| {
        first = first.or(clips.get(i));
    });
    let template = first?;
    let duration = tree.duration(clips);
    // Bounded whatever the files say (a longer or denser tree is baked at a coarser
    // interval).
    let mut bone_ids = std::collections::BTreeSet::new();
    tree.visit_leaves(&mut |i| {
        if let Some(c) = clips.get(i) {
            bone_ids.extend(c.channels.iter().map(|ch| ch.bone_id));
        }
    });
    let max_frames = (MAX_BAKED_SAMPLES / bone_ids.len().max(1)).clamp(2, MAX_BAKED_FRAMES) as f32;
    let interval = tree.interval(clips).max(duration / (max_frames - 1.0));
    let frame_count = ((duration / interval).ceil() as u32).max(1) + 1;
    let frames: Vec<Samples> = (0..frame_count)
        .map(|f| tree.sample(clips, (f as f32 * interval).min(duration), mode))
        .collect();
    let mut bones: BTreeMap<u32, (bool, bool, bool)> = BTreeMap::new();
    for s in frames.iter().flat_map(|f| f.iter()) {
        let e = bones.entry(*s.0).or_default();
        e.0 |= s.1.rotation.is_some();
        e.1 |= s.1.translation.is_some();
        e.2 |= s.1.scale.is_some();
    }
    // A component missing in some frames (a sequence child that does not animate it)
    // holds the nearest earlier value (the first known one before any).
    fn track<T: Copy>(
        frames: &[Samples],
        bone: u32,
        get: impl Fn(&ChannelSample) -> Option<T>,
    ) -> Vec<T> {
        let values: Vec<Option<T>> = frames.iter().map(|f| f.get(&bone).and_then(&get)).collect();
        let Some(first) = values.iter().flatten().next().copied() else {
            return Vec::new();
        };
        values
            .into_iter()
            .scan(first, |last, v| {
                if let Some(v) = v {
                    *last = v;
                }
                Some(*last)
            })
            .collect()
    }
    let channels = bones
        .into_iter()
        .map(|(bone_id, (r, t, s))| Channel {
            bone_id,
            rotation: r.then(|| track::<Quat>(&frames, bone_id, |c| c.rotation)),
            translation: t.then(|| track::<Vec3>(&frames, bone_id, |c| c.translation)),
            scale: s.then(|| track::<Vec3>(&frames, bone_id, |c| c.scale)),
        })
        .collect();
    Some(Clip {
        kind: ClipKind::Compressed,
        game: template.game,
        duration,
        interval,
        frame_count,
        looping: true,
        root_bone_id: template.root_bone_id,
        key_frames: (0..frame_count).collect(),
        key_times: None,
        channels,
        evnt_id: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::Game;

    /// A clip moving bone 3 along X from `x0` to `x1` over `frames` frames at 30 fps,
    /// rotating it about Z by `angle` radians per second.
    fn clip(x0: f32, x1: f32, frames: u32, angle: f32) -> Clip {
        let interval = 1.0 / 30.0;
        let key_frames: Vec<u32> = (0..frames).collect();
        let last = (frames - 1) as f32;
        Clip {
            kind: ClipKind::Compressed,
            game: Game::Mp1,
            duration: last * interval,
            interval,
            frame_count: frames,
            looping: false,
            root_bone_id: 0,
            channels: vec![Channel {
                bone_id: 3,
                rotation: Some(
                    key_frames
                        .iter()
                        .map(|&f| Quat::from_rotation_z(angle * f as f32 * interval))
                        .collect(),
                ),
                translation: Some(
                    key_frames
                        .iter()
                        .map(|&f| Vec3::new(x0 + (x1 - x0) * f as f32 / last, 0.0, 0.0))
                        .collect(),
                ),
                scale: None,
            }],
            key_frames,
            key_times: None,
            evnt_id: None,
        }
    }

    fn x_at(c: &Clip, t: f32) -> f32 {
        c.sample(t, false, SlerpMode::default())[0]
            .translation
            .expect("translation")
            .x
    }

    #[test]
    fn sequence_plays_children_one_after_another() {
        let clips = [clip(0.0, 1.0, 31, 0.0), clip(5.0, 7.0, 16, 0.0)];
        let tree = MetaClip::Sequence(vec![MetaClip::Play(0), MetaClip::Play(1)]);
        assert!((tree.duration(&clips) - 1.5).abs() < 1e-6);
        let baked = bake(&tree, &clips, SlerpMode::default()).expect("bakes");
        assert!(baked.looping);
        assert_eq!(baked.frame_count, 46);
        assert!((x_at(&baked, 0.5) - 0.5).abs() < 1e-5);
        assert!((x_at(&baked, 1.0 + 0.25) - 6.0).abs() < 1e-4);
        // The last frame holds the sequence's end (time 1.5 itself wraps: the bake loops).
        let end = baked.frame_sample(45, SlerpMode::default())[0].translation;
        assert!((end.expect("translation").x - 7.0).abs() < 1e-5);
    }

    #[test]
    fn blends_mix_by_weight() {
        let clips = [clip(0.0, 0.0, 31, 0.0), clip(2.0, 2.0, 31, 1.0)];
        for (weight, want) in [(0.0, 0.0), (0.25, 0.5), (1.0, 2.0)] {
            let tree = MetaClip::Blend {
                a: Box::new(MetaClip::Play(0)),
                b: Box::new(MetaClip::Play(1)),
                weight,
            };
            let s = tree.sample(&clips, 0.5, SlerpMode::default());
            let x = s[&3].translation.expect("t").x;
            assert!((x - want).abs() < 1e-6, "weight {weight}: {x}");
            let angle = s[&3].rotation.expect("r").to_axis_angle().1;
            assert!(
                (angle - 0.5 * weight).abs() < 1e-4,
                "weight {weight}: {angle}"
            );
        }
    }

    #[test]
    fn phase_blend_lines_up_phases() {
        // 1 s and 2 s clips: at weight 0.5 the blend lasts 1.5 s, and halfway through
        // each child is halfway through its own motion.
        let clips = [clip(0.0, 1.0, 31, 0.0), clip(0.0, 3.0, 61, 0.0)];
        let tree = MetaClip::PhaseBlend {
            a: Box::new(MetaClip::Play(0)),
            b: Box::new(MetaClip::Play(1)),
            weight: 0.5,
        };
        assert!((tree.duration(&clips) - 1.5).abs() < 1e-6);
        let x = tree.sample(&clips, 0.75, SlerpMode::default())[&3]
            .translation
            .expect("t")
            .x;
        assert!((x - (0.5 + 1.5) / 2.0).abs() < 1e-5, "{x}");
    }

    #[test]
    fn hostile_lengths_bake_within_the_sample_budget() {
        let mut long = clip(0.0, 1.0, 31, 0.0);
        long.duration = 1.0e9;
        long.interval = 1.0e-6;
        let tree = MetaClip::Sequence(vec![MetaClip::Play(0), MetaClip::Play(0)]);
        let baked = bake(&tree, &[long], SlerpMode::default()).expect("bakes");
        assert!(baked.frame_count as usize <= MAX_BAKED_FRAMES + 1);
        assert!(baked.frame_count as usize * baked.channels.len() <= MAX_BAKED_SAMPLES + 1);
        assert!((baked.duration - 2.0e9).abs() < 1.0e3);
        // Non-finite lengths and intervals bake to something small, never a panic.
        for (duration, interval) in [
            (f32::INFINITY, 1.0 / 30.0),
            (f32::NAN, f32::NAN),
            (1.0, 0.0),
        ] {
            let mut odd = clip(0.0, 1.0, 31, 0.0);
            (odd.duration, odd.interval) = (duration, interval);
            let baked = bake(&tree, &[odd], SlerpMode::default()).expect("bakes");
            assert!(baked.frame_count as usize <= MAX_BAKED_FRAMES + 1);
        }
    }

    #[test]
    fn random_bakes_the_most_probable_child_and_missing_leaves_are_empty() {
        let clips = [clip(0.0, 1.0, 31, 0.0), clip(4.0, 4.0, 11, 0.0)];
        let tree = MetaClip::Random(vec![(MetaClip::Play(0), 30), (MetaClip::Play(1), 70)]);
        let baked = bake(&tree, &clips, SlerpMode::default()).expect("bakes");
        assert!((x_at(&baked, 0.2) - 4.0).abs() < 1e-6);
        assert!(bake(&MetaClip::Play(9), &clips, SlerpMode::default()).is_none());
        assert!(
            MetaClip::Play(9)
                .sample(&clips, 0.0, SlerpMode::default())
                .is_empty()
        );
    }
}
