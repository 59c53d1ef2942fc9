//! Per-frame update of the vertex-side uniforms: texture and post matrices from the UV
//! animations (`gx.md` §12), channel registers and lights (§10.2, §10.4–10.5), and the
//! per-model transforms.
//!
//! [`FrameUpdate`] keeps one [`DrawUniforms`] block per registered material (a material
//! drawn on a model instance) and, each frame, recomputes them from the time, the camera
//! and the light set, reporting which blocks changed so the renderer uploads only those
//! (egui-wgpu's "skip unchanged uniforms"). Nothing is allocated per frame. A block is kept
//! as what is its own (UV matrices, channel registers) beside its model's values
//! (transforms, lights), each compared byte-wise with the last frame's: a frame touches a
//! few hundred bytes per block instead of the 2.4 KB a whole block holds, and the block is
//! written out whole only where it goes ([`FrameUpdate::write_block`]).
//!
//! The pure pieces ([`fill_uv_matrices`], [`channel_registers`], [`pack_light`]) are public
//! for callers that manage their own blocks.

use glam::{Mat4, Vec3};
use serde::Serialize;

use super::lights::{GxLight, LightSelection, LightSet, MAX_GX_LIGHTS, select_lights};
use super::types::{ChannelAlpha, Material, UvAnimation};
use super::uvanim::{self, IDENTITY_3X4, UvAnimInputs, UvAnimOptions};
use super::wgsl::vertex::{CH_COLOR0, DrawUniforms, GpuLight, raster_viewport};

/// GX has 10 texture matrices and 20 post matrices.
pub const TEX_MTX_SLOTS: usize = 10;
pub const POST_MTX_SLOTS: usize = 20;

/// Value-only Default/Alt switches of `gx.md` §10.2.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ChannelOptions {
    /// *Alt:* COLOR1 with channel count 2 is lit with no lights → black (Default: unlit →
    /// white).
    pub color1_lit_black: bool,
    /// *Alt:* alpha channels read 0 (pair with `VertexKeyOptions::alpha_from_register`).
    pub alpha_zero: bool,
    /// How the lights add up into lacc (Default: rounded per light; Alt: Dolphin's
    /// software renderer, a float sum truncated once).
    pub lacc_sum: crate::gx::lighting::LaccSum,
}

/// All per-frame switches.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct FrameOptions {
    pub uv: UvAnimOptions,
    pub channels: ChannelOptions,
    pub light_selection: LightSelection,
    /// Rasterise with the host GPU's own rules (pixel-centre sample, its sub-pixel
    /// precision) instead of GX's 1/16-pixel vertex grid and sample position
    /// ([`crate::gx::wgsl::vertex::GX_SNAP_WGSL`]); for hosts whose rasteriser has fewer
    /// than 4 sub-pixel bits.
    pub host_raster: bool,
}

/// The camera of a frame, in the renderer's (conventional, y-up camera axes) terms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FrameCamera {
    /// The usual view matrix (x right, y up, −z forward camera axes) in Prime's world.
    pub view_from_world: Mat4,
    pub clip_from_view: Mat4,
}

/// Channel register values and run-time lighting enables for one material.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Serialize, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ChannelRegisters {
    pub ambient: [[f32; 4]; 2],
    pub material: [[f32; 4]; 2],
    pub lit: [u32; 4],
}

impl ChannelRegisters {
    /// Writes a material's own COLOR0 ambient and material alphas over the engine's.
    pub fn set_alpha(&mut self, alpha: ChannelAlpha) {
        if let Some(a) = alpha.ambient {
            self.ambient[0][3] = f32::from(a);
        }
        if let Some(a) = alpha.material {
            self.material[0][3] = f32::from(a);
        }
    }
}

fn rgba(c: [u8; 4]) -> [f32; 4] {
    c.map(f32::from)
}

/// How the engine sets the channel registers for a material (`gx.md` §10.2) given the
/// material's channel count, the number of active lights and the ambient colour.
///
/// - COLOR0 (count ≥ 1): lights active → material white, lighting on; none → lighting
///   off and material := ambient (the channel outputs the ambient colour). Count 0: the
///   game leaves the register stale; tevscope uses white.
/// - COLOR1: count 2 → ambient black, material white (Alt: black); otherwise 0.
pub fn channel_registers(
    channel_count: u32,
    active_lights: usize,
    ambient: [u8; 4],
    options: &ChannelOptions,
) -> ChannelRegisters {
    const WHITE: [f32; 4] = [255.0; 4];
    const BLACK: [f32; 4] = [0.0; 4];
    let lit0 = channel_count >= 1 && active_lights > 0;
    let material0 = if channel_count >= 1 && active_lights == 0 {
        rgba(ambient)
    } else {
        WHITE
    };
    let material1 = if channel_count == 2 && !options.color1_lit_black {
        WHITE
    } else {
        BLACK
    };
    let mut material = [material0, material1];
    if options.alpha_zero {
        material[0][3] = 0.0;
        material[1][3] = 0.0;
    }
    let mut lit = [0; 4];
    lit[CH_COLOR0] = lit0 as u32;
    ChannelRegisters {
        ambient: [rgba(ambient), BLACK],
        material,
        lit,
    }
}

/// A world-space GX light as the shader wants it: view-space position and GX's stored
/// (negated) view-space direction, colour 0…255.
pub fn pack_light(light: &GxLight, view_from_world: &Mat4) -> GpuLight {
    let p = view_from_world.transform_point3(Vec3::from(light.position));
    let d = -view_from_world.transform_vector3(Vec3::from(light.direction));
    let [a0, a1, a2] = light.angle_atten;
    let [k0, k1, k2] = light.dist_atten;
    GpuLight {
        position: [p.x, p.y, p.z, 1.0],
        direction: [d.x, d.y, d.z, 0.0],
        color: rgba(light.color),
        cos_atten: [a0, a1, a2, 0.0],
        dist_atten: [k0, k1, k2, 0.0],
    }
}

/// Writes TEXMTX*i*/PTTEXMTX*i* for every animation (slots no animation loads are
/// identity: stale in the game).
pub fn fill_uv_matrices(
    out: &mut DrawUniforms,
    animations: &[UvAnimation],
    inputs: &UvAnimInputs,
    options: &UvAnimOptions,
) {
    out.tex_mtx = [IDENTITY_3X4; TEX_MTX_SLOTS];
    out.post_mtx = [IDENTITY_3X4; POST_MTX_SLOTS];
    for (i, anim) in animations.iter().take(TEX_MTX_SLOTS).enumerate() {
        let m = uvanim::evaluate(anim, inputs, options);
        out.tex_mtx[i] = m.tex;
        if let Some(post) = m.post {
            out.post_mtx[i] = post;
        }
    }
}

fn cols(m: Mat4) -> [[f32; 4]; 4] {
    m.to_cols_array_2d()
}

/// Identifies a model instance registered with [`FrameUpdate::add_model`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModelId(pub usize);

#[derive(Debug, Clone, Copy)]
struct ModelSlot {
    world_from_model: Mat4,
    /// Where lights are selected (the model's bounding-box centre), model space.
    light_point: Vec3,
}

/// Per-model values computed once per frame.
#[derive(Debug, Clone, Copy)]
struct ModelFrame {
    uv_inputs: UvAnimInputs,
    /// What every block of the model holds of it.
    values: ModelValues,
}

/// The part of a block that is its model's: transforms and lights.
#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct ModelValues {
    clip_from_model: [[f32; 4]; 4],
    view_from_model: [[f32; 4]; 4],
    normal_view_from_model: [[f32; 4]; 4],
    lights: [GpuLight; MAX_GX_LIGHTS],
    light_count: u32,
}

/// Stores `new` in `dst` when their bytes differ; returns whether they did.
fn store_if_changed<T: bytemuck::Pod>(dst: &mut T, new: T) -> bool {
    let changed = bytemuck::bytes_of(dst) != bytemuck::bytes_of(&new);
    if changed {
        *dst = new;
    }
    changed
}

#[derive(Debug, Clone)]
struct MaterialSlot {
    model: usize,
    /// Its UV animations: a range of [`FrameUpdate`]'s pool, so one frame reads them all
    /// from one run of memory instead of one allocation per material.
    animations: std::ops::Range<usize>,
    channel_count: u32,
    channel_alpha: ChannelAlpha,
}

/// Keeps the vertex uniforms of many materials current.
#[derive(Debug, Clone, Default)]
pub struct FrameUpdate {
    pub options: FrameOptions,
    models: Vec<ModelSlot>,
    model_frames: Vec<ModelFrame>,
    /// Whether each model's values changed in the last update.
    model_changed: Vec<bool>,
    materials: Vec<MaterialSlot>,
    /// Every material's UV animations, one after another ([`MaterialSlot::animations`]),
    /// and the texture and post matrix each loads this frame (identity: none).
    animations: Vec<UvAnimation>,
    tex_mtx: Vec<[[f32; 4]; 3]>,
    post_mtx: Vec<[[f32; 4]; 3]>,
    /// Each block's channel registers.
    channels: Vec<ChannelRegisters>,
    /// Blocks `..reported` were in the last update's answer at least once.
    reported: usize,
    /// What every block holds alike: the viewport word and how lights sum.
    shared: ([f32; 4], u32),
    changed: Vec<usize>,
    /// The render target's size in pixels (0 × 0 until [`FrameUpdate::set_target_size`]:
    /// no vertex snapping).
    target: [u32; 2],
}

impl FrameUpdate {
    pub fn new(options: FrameOptions) -> Self {
        Self {
            options,
            ..Default::default()
        }
    }

    /// Registers a model instance; `light_point` is its bounding-box centre (model space).
    pub fn add_model(&mut self, world_from_model: Mat4, light_point: Vec3) -> ModelId {
        self.models.push(ModelSlot {
            world_from_model,
            light_point,
        });
        let frame = ModelFrame {
            uv_inputs: UvAnimInputs::new(0.0, world_from_model, Mat4::IDENTITY),
            values: ModelValues {
                clip_from_model: cols(Mat4::IDENTITY),
                view_from_model: cols(Mat4::IDENTITY),
                normal_view_from_model: cols(Mat4::IDENTITY),
                lights: [GpuLight::default_zeroed(); MAX_GX_LIGHTS],
                light_count: 0,
            },
        };
        self.model_frames.push(frame);
        ModelId(self.models.len() - 1)
    }

    /// The size of the target the next [`FrameUpdate::update`] draws into, which GX's
    /// vertex snapping needs (the viewport transform happens in the vertex stage).
    pub fn set_target_size(&mut self, width: u32, height: u32) {
        self.target = [width, height];
    }

    /// Moves a model instance (takes effect at the next [`FrameUpdate::update`]).
    pub fn set_model_transform(&mut self, model: ModelId, world_from_model: Mat4) {
        if let Some(m) = self.models.get_mut(model.0) {
            m.world_from_model = world_from_model;
        }
    }

    /// Registers a material drawn on `model`; returns the index of its uniform block,
    /// which the next update reports changed.
    /// Materials with the same vertex-side inputs on the same model (UV animations and
    /// channel count; most of a room's materials have no UV animation) share one block,
    /// computed and uploaded once per frame.
    pub fn add_material(&mut self, model: ModelId, material: &Material) -> usize {
        let model = model.0.min(self.models.len().saturating_sub(1));
        if let Some(shared) = (0..self.materials.len())
            .find(|&b| self.materials[b].model == model && self.shares_block(b, material))
        {
            return shared;
        }
        let start = self.animations.len();
        self.animations.extend_from_slice(&material.uv_animations);
        let end = self.animations.len();
        self.tex_mtx.resize(end, IDENTITY_3X4);
        self.post_mtx.resize(end, IDENTITY_3X4);
        self.materials.push(MaterialSlot {
            model,
            animations: start..end,
            channel_count: material.channel_count,
            channel_alpha: material.channel_alpha,
        });
        self.channels.push(bytemuck::Zeroable::zeroed());
        self.changed.reserve(1);
        self.materials.len() - 1
    }

    /// Whether `material` has the vertex-side inputs of block `block` (an edit that keeps
    /// them leaves every material's block where it is).
    pub fn shares_block(&self, block: usize, material: &Material) -> bool {
        self.materials.get(block).is_some_and(|m| {
            m.channel_count == material.channel_count
                && m.channel_alpha == material.channel_alpha
                && self.animations[m.animations.clone()] == material.uv_animations[..]
        })
    }

    /// Number of uniform blocks (materials that share one count once).
    pub fn material_count(&self) -> usize {
        self.materials.len()
    }

    /// The current uniform block `index` (as the last update left it).
    pub fn uniforms(&self, index: usize) -> Option<DrawUniforms> {
        let mut block = DrawUniforms::default();
        self.write_block(index, &mut block).then_some(block)
    }

    /// Writes the current uniform block `index` into `out` (whole: every field); false
    /// when there is no such block.
    pub fn write_block(&self, index: usize, out: &mut DrawUniforms) -> bool {
        let Some(mat) = self.materials.get(index) else {
            return false;
        };
        let Some(frame) = self.model_frames.get(mat.model) else {
            return false;
        };
        let model = &frame.values;
        out.clip_from_model = model.clip_from_model;
        out.view_from_model = model.view_from_model;
        out.normal_view_from_model = model.normal_view_from_model;
        // Slots no animation loads are identity (stale in the game).
        out.tex_mtx = [IDENTITY_3X4; TEX_MTX_SLOTS];
        out.post_mtx = [IDENTITY_3X4; POST_MTX_SLOTS];
        for (slot, i) in mat.animations.clone().take(TEX_MTX_SLOTS).enumerate() {
            out.tex_mtx[slot] = self.tex_mtx[i];
            out.post_mtx[slot] = self.post_mtx[i];
        }
        let channels = &self.channels[index];
        out.channel_ambient = channels.ambient;
        out.channel_material = channels.material;
        out.channel_lit = channels.lit;
        out.lights = model.lights;
        let (viewport, lacc_word) = self.shared;
        out.light_mask = [(1u32 << model.light_count) - 1, lacc_word, 0, 0];
        out.viewport = viewport;
        true
    }

    /// The blocks the last [`FrameUpdate::update`] changed.
    pub fn changed(&self) -> &[usize] {
        &self.changed
    }

    /// Recomputes every block for this frame and returns the indices that changed.
    pub fn update(
        &mut self,
        time_seconds: f64,
        camera: &FrameCamera,
        lights: &LightSet,
    ) -> &[usize] {
        let options = self.options;
        let seconds = uvanim::uv_seconds(time_seconds, &options.uv);
        let prime_view = uvanim::prime_view_from_view_matrix(camera.view_from_world);
        let clip_from_world = camera.clip_from_view * camera.view_from_world;
        let mut selected = [0usize; MAX_GX_LIGHTS];

        self.model_changed.resize(self.models.len(), false);
        for ((slot, frame), changed) in self
            .models
            .iter()
            .zip(&mut self.model_frames)
            .zip(&mut self.model_changed)
        {
            let world_from_model = slot.world_from_model;
            let view_from_model = camera.view_from_world * world_from_model;
            frame.uv_inputs = UvAnimInputs::new(seconds, world_from_model, prime_view);
            let point = world_from_model.transform_point3(slot.light_point);
            let n = select_lights(
                &lights.lights,
                point,
                options.light_selection,
                &mut selected,
            );
            let mut packed = [GpuLight::default_zeroed(); MAX_GX_LIGHTS];
            for (dst, &src) in packed.iter_mut().zip(&selected[..n]) {
                *dst = pack_light(&lights.lights[src], &camera.view_from_world);
            }
            let values = ModelValues {
                clip_from_model: cols(clip_from_world * world_from_model),
                view_from_model: cols(view_from_model),
                normal_view_from_model: cols(view_from_model.inverse().transpose()),
                lights: packed,
                light_count: n as u32,
            };
            *changed = store_if_changed(&mut frame.values, values);
        }

        let [width, height] = self.target;
        let shared = (
            raster_viewport(
                width,
                height,
                width > 0 && height > 0 && !options.host_raster,
            ),
            options.channels.lacc_sum.uniform_word(),
        );
        let shared_changed = store_if_changed(&mut self.shared.0, shared.0)
            | store_if_changed(&mut self.shared.1, shared.1);

        self.changed.clear();
        for (index, mat) in self.materials.iter().enumerate() {
            let Some(frame) = self.model_frames.get(mat.model) else {
                continue;
            };
            let mut changed =
                shared_changed || index >= self.reported || self.model_changed[mat.model];
            for i in mat.animations.clone().take(TEX_MTX_SLOTS) {
                let m = uvanim::evaluate(&self.animations[i], &frame.uv_inputs, &options.uv);
                changed |= store_if_changed(&mut self.tex_mtx[i], m.tex);
                changed |= store_if_changed(&mut self.post_mtx[i], m.post.unwrap_or(IDENTITY_3X4));
            }
            let mut regs = channel_registers(
                mat.channel_count,
                frame.values.light_count as usize,
                lights.ambient,
                &options.channels,
            );
            regs.set_alpha(mat.channel_alpha);
            changed |= store_if_changed(&mut self.channels[index], regs);
            if changed {
                self.changed.push(index);
            }
        }
        self.reported = self.materials.len();
        &self.changed
    }
}

impl GpuLight {
    fn default_zeroed() -> Self {
        bytemuck::Zeroable::zeroed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gx::lights::LightPreset;
    use crate::gx::types::ChannelControl;
    use crate::gx::wgsl::vertex::{CH_ALPHA0, CH_COLOR1};

    fn material(anims: Vec<UvAnimation>, channel_count: u32) -> Material {
        Material {
            color0: Some(ChannelControl::from_word(0x3001)),
            channel_count,
            uv_animations: anims,
            ..Material::default()
        }
    }

    fn camera() -> FrameCamera {
        FrameCamera {
            view_from_world: Mat4::from_translation(Vec3::new(0.0, 0.0, -10.0)),
            clip_from_view: Mat4::IDENTITY,
        }
    }

    #[test]
    fn channel_registers_follow_the_engine() {
        let o = ChannelOptions::default();
        let amb = [10, 20, 30, 255];
        let r = channel_registers(1, 2, amb, &o);
        assert_eq!(r.material[0], [255.0; 4]);
        assert_eq!(r.ambient[0], [10.0, 20.0, 30.0, 255.0]);
        assert_eq!(r.lit, [1, 0, 0, 0]);
        assert_eq!(r.material[1], [0.0; 4]);
        let r = channel_registers(1, 0, amb, &o);
        assert_eq!(r.material[0], [10.0, 20.0, 30.0, 255.0]);
        assert_eq!(r.lit, [0; 4]);
        let r = channel_registers(2, 1, amb, &o);
        assert_eq!(r.material[1], [255.0; 4]);
        assert_eq!(r.ambient[1], [0.0; 4]);
        let alt = channel_registers(
            2,
            1,
            amb,
            &ChannelOptions {
                color1_lit_black: true,
                alpha_zero: true,
                ..Default::default()
            },
        );
        assert_eq!(alt.material[1], [0.0; 4]);
        assert_eq!(alt.material[0][3], 0.0);
        let r = channel_registers(0, 3, amb, &o);
        assert_eq!(r.lit, [0; 4]);
        assert_eq!(r.material[0], [255.0; 4]);
    }

    #[test]
    fn lights_are_packed_in_view_space_with_negated_direction() {
        let l = GxLight::directional([255; 4], [0.0, 0.0, -1.0]);
        let view = Mat4::from_rotation_x(std::f32::consts::FRAC_PI_2);
        let p = pack_light(&l, &view);
        // World −Z maps to view +Y under a +90° X rotation; stored negated: −Y. The
        // position (world +Z, far away) maps to view −Y.
        assert!((p.direction[1] + 1.0).abs() < 1e-6, "{:?}", p.direction);
        assert!(
            (p.position[1] + 1_048_576.0).abs() < 1.0,
            "{:?}",
            p.position
        );
        assert_eq!(p.color, [255.0; 4]);
    }

    #[test]
    fn materials_with_the_same_vertex_inputs_share_a_block() {
        let mut f = FrameUpdate::new(FrameOptions::default());
        let m0 = f.add_model(Mat4::IDENTITY, Vec3::ZERO);
        let m1 = f.add_model(Mat4::from_translation(Vec3::X), Vec3::ZERO);
        let scroll = UvAnimation::Scroll {
            offset_u: 0.0,
            offset_v: 0.0,
            speed_u: 1.0,
            speed_v: 0.0,
        };
        let a = f.add_material(m0, &material(vec![], 1));
        let b = f.add_material(m0, &material(vec![], 1));
        let c = f.add_material(m0, &material(vec![scroll], 1));
        let d = f.add_material(m0, &material(vec![], 2));
        let e = f.add_material(m1, &material(vec![], 1));
        let g = f.add_material(m0, &material(vec![scroll], 1));
        assert_eq!((a, b, g), (a, a, c));
        assert_eq!(f.material_count(), 4);
        assert!(
            [a, c, d, e]
                .iter()
                .collect::<std::collections::HashSet<_>>()
                .len()
                == 4
        );
        let lights = LightPreset::Basic.light_set();
        assert_eq!(f.update(1.0, &camera(), &lights).len(), 4);
    }

    #[test]
    fn blocks_carry_the_target_size_for_vertex_snapping() {
        let lights = LightPreset::Basic.light_set();
        let mut f = FrameUpdate::new(FrameOptions::default());
        let m0 = f.add_model(Mat4::IDENTITY, Vec3::ZERO);
        let a = f.add_material(m0, &material(vec![], 1));
        f.update(0.0, &camera(), &lights);
        // No size yet: nothing snaps.
        assert_eq!(f.uniforms(a).unwrap().viewport[2], 0.0);
        f.set_target_size(640, 480);
        assert_eq!(f.update(0.0, &camera(), &lights), &[a]);
        assert_eq!(f.uniforms(a).unwrap().viewport, [640.0, 480.0, 1.0, 0.0]);
        // The host's own rules: the size stays, snapping is off.
        let mut h = FrameUpdate::new(FrameOptions {
            host_raster: true,
            ..FrameOptions::default()
        });
        let m1 = h.add_model(Mat4::IDENTITY, Vec3::ZERO);
        let b = h.add_material(m1, &material(vec![], 1));
        h.set_target_size(640, 480);
        h.update(0.0, &camera(), &lights);
        assert_eq!(h.uniforms(b).unwrap().viewport, [640.0, 480.0, 0.0, 0.0]);
    }

    #[test]
    fn update_reports_only_changed_blocks() {
        let mut f = FrameUpdate::new(FrameOptions::default());
        let m0 = f.add_model(Mat4::IDENTITY, Vec3::ZERO);
        let scroll = UvAnimation::Scroll {
            offset_u: 0.0,
            offset_v: 0.0,
            speed_u: 1.0,
            speed_v: 0.0,
        };
        let a = f.add_material(m0, &material(vec![scroll], 1));
        let b = f.add_material(m0, &material(vec![], 1));
        let lights = LightPreset::Basic.light_set();
        let changed = f.update(1.0, &camera(), &lights).to_vec();
        assert_eq!(changed, vec![a, b]);
        // Same time: nothing changes.
        assert!(f.update(1.0, &camera(), &lights).is_empty());
        // Time moves: only the animated material changes.
        assert_eq!(f.update(1.5, &camera(), &lights), &[a]);
        let u = f.uniforms(a).expect("block");
        assert_eq!(u.tex_mtx[0][0][3], 1.5);
        assert_eq!(u.light_mask[0], 1);
        assert_eq!(u.channel_lit[CH_COLOR0], 1);
        assert_eq!(u.channel_ambient[0], [128.0, 128.0, 128.0, 255.0]);
        // Moving the camera changes every block (matrices, view-space lights).
        let mut cam = camera();
        cam.view_from_world = Mat4::from_translation(Vec3::new(1.0, 0.0, -10.0));
        assert_eq!(f.update(1.5, &cam, &lights), &[a, b]);
        // No lights: COLOR0 outputs the ambient.
        let none = LightPreset::GameNoLights.light_set();
        f.update(1.5, &cam, &none);
        let u = f.uniforms(b).expect("block");
        assert_eq!(u.light_mask[0], 0);
        assert_eq!(u.channel_lit[CH_COLOR0], 0);
        assert_eq!(u.channel_material[0], [255.0; 4]);
        assert_eq!(u.channel_lit[CH_ALPHA0], 0);
        assert_eq!(u.channel_lit[CH_COLOR1], 0);
    }

    /// A block's model values are compared once per model: moving one model reports its
    /// blocks only; a block added later is reported by the next update; a new target size
    /// (the viewport word every block holds) reports them all.
    #[test]
    fn changes_are_found_per_model_per_block_and_per_frame() {
        let mut f = FrameUpdate::new(FrameOptions::default());
        let m0 = f.add_model(Mat4::IDENTITY, Vec3::ZERO);
        let m1 = f.add_model(Mat4::from_translation(Vec3::X), Vec3::ZERO);
        let a = f.add_material(m0, &material(vec![], 1));
        let b = f.add_material(m1, &material(vec![], 1));
        let lights = LightPreset::Basic.light_set();
        assert_eq!(f.update(0.0, &camera(), &lights), &[a, b]);
        f.set_model_transform(m1, Mat4::from_translation(Vec3::Y));
        assert_eq!(f.update(0.0, &camera(), &lights), &[b]);
        let u = f.uniforms(b).expect("block");
        assert_eq!(
            u.view_from_model[3][1], 1.0,
            "the moved model's translation"
        );
        let c = f.add_material(m0, &material(vec![], 2));
        assert_eq!(f.update(0.0, &camera(), &lights), &[c]);
        f.set_target_size(64, 32);
        assert_eq!(f.update(0.0, &camera(), &lights), &[a, b, c]);
        assert!(f.update(0.0, &camera(), &lights).is_empty());
        assert_eq!(f.uniforms(c).expect("block").viewport[..2], [64.0, 32.0]);
        assert!(f.uniforms(3).is_none());
    }

    /// MP3's D10 Default: the material's own COLOR0 ambient and material alphas (0) replace
    /// the engine's in the registers, with and without lights; RGB stays the engine's, and
    /// a material without its own alphas keeps them in a block of its own.
    #[test]
    fn material_channel_alphas_replace_the_engines() {
        let mut f = FrameUpdate::new(FrameOptions::default());
        let m0 = f.add_model(Mat4::IDENTITY, Vec3::ZERO);
        let mp3 = Material {
            channel_alpha: ChannelAlpha {
                ambient: Some(0),
                material: Some(0),
            },
            ..material(vec![], 1)
        };
        let engine = f.add_material(m0, &material(vec![], 1));
        let own = f.add_material(m0, &mp3);
        assert_ne!(engine, own, "different registers, different blocks");
        assert!(f.shares_block(own, &mp3) && !f.shares_block(engine, &mp3));
        for (preset, material_rgb) in [
            (LightPreset::Basic, [255.0; 3]),
            (LightPreset::GameNoLights, [255.0; 3]),
        ] {
            let lights = preset.light_set();
            f.update(0.0, &camera(), &lights);
            let ambient = lights.ambient.map(f32::from);
            let e = f.uniforms(engine).expect("block");
            assert_eq!(e.channel_ambient[0], ambient, "{preset:?}");
            assert_eq!(e.channel_material[0][3], 255.0, "{preset:?}");
            let o = f.uniforms(own).expect("block");
            assert_eq!(
                o.channel_ambient[0],
                [ambient[0], ambient[1], ambient[2], 0.0]
            );
            assert_eq!(o.channel_material[0][..3], material_rgb, "{preset:?}");
            assert_eq!(o.channel_material[0][3], 0.0, "{preset:?}");
            // COLOR1's registers are the engine's.
            assert_eq!(o.channel_ambient[1], e.channel_ambient[1]);
            assert_eq!(o.channel_material[1], e.channel_material[1]);
        }
    }

    #[test]
    fn brightest_lights_are_selected_per_model() {
        let mut f = FrameUpdate::new(FrameOptions::default());
        let near = f.add_model(Mat4::IDENTITY, Vec3::ZERO);
        let far = f.add_model(
            Mat4::from_translation(Vec3::new(100.0, 0.0, 0.0)),
            Vec3::ZERO,
        );
        let a = f.add_material(near, &material(vec![], 1));
        let b = f.add_material(far, &material(vec![], 1));
        let mut set = LightSet {
            ambient: [0, 0, 0, 255],
            lights: Vec::new(),
        };
        // Five point lights near the first model, one near the second.
        for i in 0..5 {
            set.lights.push(GxLight::point(
                [50 + 40 * i as u8; 4],
                [i as f32, 0.0, 0.0],
                [0.0, 0.0, 1.0],
            ));
        }
        set.lights
            .push(GxLight::point([255; 4], [100.0, 1.0, 0.0], [0.0, 0.0, 1.0]));
        f.update(0.0, &camera(), &set);
        let ua = f.uniforms(a).expect("block");
        let ub = f.uniforms(b).expect("block");
        assert_eq!(ua.light_mask[0], 0b1111);
        assert_eq!(ub.light_mask[0], 0b1111);
        // The second model's brightest is the light beside it (view x = 100).
        assert_eq!(ub.lights[0].position[0], 100.0);
        // The first model's brightest is the light at its centre (x = 0, colour 50).
        assert_eq!(ua.lights[0].position[0], 0.0);
    }

    #[test]
    fn uv_matrices_fill_slots_and_reset_the_rest() {
        let mut u: DrawUniforms = bytemuck::Zeroable::zeroed();
        let inputs = UvAnimInputs::new(2.0, Mat4::IDENTITY, Mat4::IDENTITY);
        fill_uv_matrices(
            &mut u,
            &[
                UvAnimation::Rotation {
                    offset: 0.0,
                    speed: 0.0,
                },
                UvAnimation::InverseModelView,
            ],
            &inputs,
            &UvAnimOptions::default(),
        );
        assert_eq!(u.tex_mtx[2], IDENTITY_3X4);
        assert_eq!(u.post_mtx[0], IDENTITY_3X4);
        assert_eq!(u.post_mtx[1], uvanim::ENV_POST);
        assert_eq!(u.tex_mtx[0][0][0], 1.0);
    }
}
