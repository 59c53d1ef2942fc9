//! glTF 2.0 export of a [`CpuModel`] (a model, a character or a room's world geometry):
//! meshes (one primitive per surface, indices as stored), the skeleton as nodes, the skin,
//! animations at the clips' own key times, and materials with embedded PNG textures. The
//! materials and their texture slots are the CPU model's, so edited materials export as
//! edited.
//!
//! Conventions:
//! - Prime is Z-up in metres; glTF is Y-up in metres. One root node rotates −90° about X;
//!   everything else keeps Prime's coordinates.
//! - The skinned mesh node sits at the scene root (glTF ignores a skinned mesh node's own
//!   transform); its joints live under the Z-up root, so the rotation still applies.
//! - Bone nodes carry the pose's parent-relative transforms ([`Pose::local`]); inverse bind
//!   matrices are the inverse of the bind transform ([`Skeleton::model_from_bone_bind`]),
//!   so a glTF evaluator reproduces [`crate::anim::skin_positions`].
//! - Animations: one sampler per channel component, LINEAR (slerp for rotations, as
//!   tevscope's shortest-path default), at `key frame × interval`. When a clip lasts
//!   longer than its last key, one closing key at the clip's duration holds what tevscope
//!   plays there (format 0 interpolates towards frame 0, format 2 holds the last key), so
//!   durations match. Every clip keys rotation, translation and scale of every joint; a
//!   component the clip has no track for holds the bind value (two keys spanning the
//!   clip), as tevscope plays it, so importers that keep the previous clip's values on
//!   unkeyed joints (Blender) play each clip alone.
//! - Scale (MP2): Prime's children do not inherit a parent's scale (`formats.md` §7.5),
//!   glTF's do. When an exported clip or the rest pose scales a bone with children, each
//!   bone's scale moves to a child node of its own (the skin's joint) and children's
//!   offsets are multiplied by the parent's scale at every key: exact at the keys, and
//!   between keys a lerp of the products stands in for the product of the lerps.
//! - Materials: base colour texture = the first colour map a TEV stage reads, factor = the
//!   konst or colour register the first stage reading one uses, alpha mode from
//!   punchthrough and blend factors; the full GX material goes into `extras.gx`. OPAQUE
//!   materials read their textures as RGB PNGs (importers premultiply straight alpha, as
//!   Blender does, which blackens the colour CMPR keeps under alpha 0); blended and masked
//!   ones read RGBA PNGs, so a texture both kinds use is written twice.
//!   `doubleSided` is false: Prime culls back faces on every surface. A lightmapped material
//!   (flag 0x800) names its lightmap (texture 0) in `extras.lightmap` instead.
//!   A second draw over the same surfaces (MP3's additive INCA draw, `formats.md` §13.3)
//!   has no glTF form (a material is one draw): its GX program and texture IDs are kept in
//!   `extras.second_draw` and the PBR view shows the first draw alone.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::f32::consts::FRAC_PI_2;

use ::gltf::json;
use glam::{Quat, Vec3};
use json::validation::Checked::Valid;
use json::validation::USize64;
use serde::Serialize;

use super::ExportError;
use crate::anim::{BindRotations, Clip, ClipBinding, Pose, PoseOptions, RootMotion, Skeleton};
use crate::formats::asset_id_string;
use crate::gx::tev::{stage_texcoord, stage_texture_map};
use crate::gx::types::{
    AlphaInput, BlendFactor, BlendMode, ColorInput, Compare, Material as GxMaterial, TexGenSrc,
    flags,
};
use crate::image::RgbaImage;
use crate::model::{CpuMaterial, CpuModel, CpuSkin, CpuSurface};

/// What to export.
#[derive(Debug, Clone, Default)]
pub struct GltfOptions {
    /// Material set (alternate skins).
    pub material_set: usize,
    /// Indices into the character's clips; None = every clip.
    pub animations: Option<Vec<usize>>,
    /// The rest pose of the nodes: clip index and time (None = the bind pose).
    pub pose_at: Option<(usize, f32)>,
    pub pose: PoseOptions,
    /// Name of the scene and root node.
    pub name: String,
    /// Baked appearance (`export --bake`), by material index of the set: each image, laid
    /// out over the material's bake UV set ([`crate::gx::bake::base_color_uv`]), becomes
    /// the base colour texture (factor 1) in place of the first colour map.
    pub baked: Vec<Option<RgbaImage>>,
}

impl GltfOptions {
    /// Options for a model called `label` with `clip_count` clips: every clip (`all`) or
    /// the one it was opened with (`animation`), posed at `time` with that clip (the first
    /// when exporting all).
    pub fn for_model(
        label: &str,
        animation: Option<usize>,
        clip_count: usize,
        all: bool,
        time: Option<f32>,
    ) -> Self {
        let chosen = animation.filter(|&i| i < clip_count);
        let animations = match (all, chosen) {
            (false, Some(i)) => Some(vec![i]),
            (false, None) => Some(Vec::new()),
            (true, _) => None,
        };
        let pose_clip = chosen.or((clip_count > 0).then_some(0));
        Self {
            animations,
            pose_at: time.and_then(|t| pose_clip.map(|c| (c, t))),
            // The label without its folders: `demo.pak:0xDE060001.ANCS (worm)`.
            name: label
                .rsplit(['/', '\\'])
                .next()
                .unwrap_or(label)
                .to_string(),
            ..Self::default()
        }
    }
}

/// One exported animation, for reports and tests.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnimationExport {
    pub name: String,
    /// Seconds (the last key time written).
    pub duration: f32,
    /// Key times of the samplers following the clip (held values have two).
    pub keys: usize,
    pub channels: usize,
    /// Keys the source clip stores per channel.
    pub source_keys: usize,
}

/// What an export contains.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct ExportSummary {
    pub primitives: usize,
    pub vertices: usize,
    pub triangles: usize,
    pub joints: usize,
    pub materials: usize,
    pub textures: usize,
    pub animations: Vec<AnimationExport>,
    /// Materials whose base colour is a bake (`export --bake`); counted in `textures`.
    pub baked: usize,
}

/// `(N primitives, …)`, then a line per animation: the CLI's report.
impl std::fmt::Display for ExportSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "({} primitives, {} vertices, {} triangles, {} materials, {} textures, {} joints, {} animations",
            self.primitives,
            self.vertices,
            self.triangles,
            self.materials,
            self.textures,
            self.joints,
            self.animations.len()
        )?;
        if self.baked > 0 {
            write!(f, ", {} materials baked", self.baked)?;
        }
        f.write_str(")")?;
        for a in &self.animations {
            write!(
                f,
                "\n  animation {:?}: {:.4} s, {} keys, {} channels",
                a.name, a.duration, a.keys, a.channels
            )?;
        }
        Ok(())
    }
}

/// A built glTF document and its binary buffer.
pub struct GltfExport {
    pub root: json::Root,
    pub bin: Vec<u8>,
    pub summary: ExportSummary,
    pub warnings: Vec<String>,
}

/// Prime's Z-up to glTF's Y-up: −90° about X.
pub fn z_up_to_y_up() -> Quat {
    Quat::from_rotation_x(-FRAC_PI_2)
}

/// Component type, components per element, and whether integers are normalised.
#[derive(Clone, Copy)]
struct Layout {
    component: json::accessor::ComponentType,
    width: usize,
    normalized: bool,
}

impl Layout {
    fn new(component: json::accessor::ComponentType, width: usize) -> Self {
        Self {
            component,
            width,
            normalized: false,
        }
    }
}

/// Float accessors by content: component count, bounded, bits.
type SharedKey = (usize, bool, Vec<u32>);

struct Builder {
    root: json::Root,
    bin: Vec<u8>,
    buffer: json::Index<json::Buffer>,
    warnings: Vec<String>,
    shared: HashMap<SharedKey, json::Index<json::Accessor>>,
}

fn f32_bytes<const N: usize>(values: &[[f32; N]]) -> Vec<u8> {
    values
        .iter()
        .flat_map(|v| v.iter().flat_map(|c| c.to_le_bytes()))
        .collect()
}

fn type_of(n: usize) -> json::accessor::Type {
    match n {
        1 => json::accessor::Type::Scalar,
        2 => json::accessor::Type::Vec2,
        3 => json::accessor::Type::Vec3,
        4 => json::accessor::Type::Vec4,
        _ => json::accessor::Type::Mat4,
    }
}

fn raw_extras(value: &impl Serialize) -> Result<json::extras::Extras, ExportError> {
    serde_json::value::to_raw_value(value)
        .map(Some)
        .map_err(ExportError::Json)
}

impl Builder {
    fn new() -> Self {
        let mut root = json::Root {
            asset: json::Asset {
                generator: Some(format!("tevscope {}", env!("CARGO_PKG_VERSION"))),
                ..Default::default()
            },
            ..Default::default()
        };
        let buffer = root.push(json::Buffer {
            byte_length: USize64(0),
            name: None,
            uri: None,
            extensions: None,
            extras: None,
        });
        Self {
            root,
            bin: Vec::new(),
            buffer,
            warnings: Vec::new(),
            shared: HashMap::new(),
        }
    }

    fn view(
        &mut self,
        bytes: &[u8],
        target: Option<json::buffer::Target>,
    ) -> json::Index<json::buffer::View> {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
        self.root.push(json::buffer::View {
            buffer: self.buffer,
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Valid),
            extensions: None,
            extras: None,
        })
    }

    fn accessor(
        &mut self,
        bytes: &[u8],
        count: usize,
        layout: Layout,
        bounds: Option<(Vec<f32>, Vec<f32>)>,
        target: Option<json::buffer::Target>,
    ) -> json::Index<json::Accessor> {
        let view = self.view(bytes, target);
        let (min, max) = match bounds {
            Some((lo, hi)) => (Some(json::Value::from(lo)), Some(json::Value::from(hi))),
            None => (None, None),
        };
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(count),
            component_type: Valid(json::accessor::GenericComponentType(layout.component)),
            extensions: None,
            extras: None,
            type_: Valid(type_of(layout.width)),
            min,
            max,
            name: None,
            normalized: layout.normalized,
            sparse: None,
        })
    }

    /// A float accessor; `bounded` adds the exact component-wise min and max.
    fn floats<const N: usize>(
        &mut self,
        values: &[[f32; N]],
        bounded: bool,
        target: Option<json::buffer::Target>,
    ) -> json::Index<json::Accessor> {
        let bounds = bounded.then(|| {
            let mut lo = [f32::INFINITY; N];
            let mut hi = [f32::NEG_INFINITY; N];
            for v in values {
                for c in 0..N {
                    lo[c] = lo[c].min(v[c]);
                    hi[c] = hi[c].max(v[c]);
                }
            }
            (lo.to_vec(), hi.to_vec())
        });
        self.accessor(
            &f32_bytes(values),
            values.len(),
            Layout::new(json::accessor::ComponentType::F32, N),
            bounds,
            target,
        )
    }

    /// [`Self::floats`] (no target), written once per distinct content: held animation
    /// values repeat across joints and clips.
    fn shared_floats<const N: usize>(
        &mut self,
        values: &[[f32; N]],
        bounded: bool,
    ) -> json::Index<json::Accessor> {
        let key = (
            N,
            bounded,
            values.iter().flatten().map(|c| c.to_bits()).collect(),
        );
        if let Some(&a) = self.shared.get(&key) {
            return a;
        }
        let a = self.floats(values, bounded, None);
        self.shared.insert(key, a);
        a
    }

    fn finish(mut self) -> (json::Root, Vec<u8>, Vec<String>) {
        while !self.bin.len().is_multiple_of(4) {
            self.bin.push(0);
        }
        if self.bin.is_empty() {
            // Nothing refers to an empty buffer, and glTF forbids one.
            self.root.buffers.clear();
        } else {
            self.root.buffers[0].byte_length = USize64::from(self.bin.len());
        }
        (self.root, self.bin, self.warnings)
    }
}

/// Replaces non-finite components by 0, counting them.
fn finite<const N: usize>(v: [f32; N], bad: &mut usize) -> [f32; N] {
    v.map(|c| {
        if c.is_finite() {
            c
        } else {
            *bad += 1;
            0.0
        }
    })
}

/// Joints and weights of one vertex: repeated bones merged, weights renormalised to sum
/// to 1 exactly in f32, unused slots zero.
fn joint_weights(inf: &crate::anim::VertexInfluence, root: u32) -> ([u16; 4], [f32; 4], bool) {
    let mut merged: Vec<(u32, f32)> = Vec::with_capacity(4);
    for s in 0..(inf.count as usize).min(4) {
        let w = if inf.weights[s].is_finite() {
            inf.weights[s].max(0.0)
        } else {
            0.0
        };
        if w == 0.0 {
            continue;
        }
        match merged.iter_mut().find(|(b, _)| *b == inf.bones[s]) {
            Some(m) => m.1 += w,
            None => merged.push((inf.bones[s], w)),
        }
    }
    let sum: f32 = merged.iter().map(|m| m.1).sum();
    if merged.is_empty() || sum <= 0.0 || !sum.is_finite() {
        return ([root as u16, 0, 0, 0], [1.0, 0.0, 0.0, 0.0], true);
    }
    let mut joints = [0u16; 4];
    let mut weights = [0f32; 4];
    for (s, (b, w)) in merged.iter().enumerate() {
        joints[s] = *b as u16;
        weights[s] = w / sum;
    }
    // Put the rounding error on the largest weight so the f32 sum is 1.
    let largest = (0..merged.len())
        .max_by(|&a, &b| weights[a].total_cmp(&weights[b]))
        .unwrap_or(0);
    let others: f32 = (0..merged.len())
        .filter(|&s| s != largest)
        .map(|s| weights[s])
        .sum();
    weights[largest] = 1.0 - others;
    (joints, weights, (sum - 1.0).abs() > 1e-3)
}

/// Builds the glTF of a model (see the module docs): the one path for models, characters
/// and rooms, reading materials and textures from the CPU model (so a viewer's edited
/// materials export as edited).
pub fn build_gltf(model: &CpuModel, options: &GltfOptions) -> Result<GltfExport, ExportError> {
    let mut b = Builder::new();
    b.warnings.extend(model.warnings.iter().cloned());
    let mut summary = ExportSummary::default();
    let set_index = options.material_set;
    let set = model.material_sets.get(set_index);
    if set.is_none() && !model.material_sets.is_empty() {
        return Err(ExportError::Invalid(format!(
            "no material set {set_index}; the model has {}",
            model.material_sets.len()
        )));
    }

    let skin = match &model.skin {
        Some(s) if !s.skeleton.is_empty() => Some(s),
        Some(_) => {
            b.warnings
                .push("the skeleton has no bones; exported unskinned".into());
            None
        }
        None => None,
    };

    // Textures: one PNG image and texture per decoded texture ID the set's slots name and
    // per alpha use (`TextureUse`): RGB for OPAQUE materials, RGBA for blended or masked
    // ones, so a texture both use is written twice.
    let sampler = b.root.push(json::texture::Sampler {
        mag_filter: Some(Valid(json::texture::MagFilter::Linear)),
        min_filter: Some(Valid(json::texture::MinFilter::LinearMipmapLinear)),
        name: None,
        // The renderer samples every Prime texture with REPEAT (`render::texture::Wrap`).
        wrap_s: Valid(json::texture::WrappingMode::Repeat),
        wrap_t: Valid(json::texture::WrappingMode::Repeat),
        extensions: None,
        extras: None,
    });
    let mut uses: Vec<TextureUse> = Vec::new();
    for m in set.into_iter().flat_map(|s| &s.materials) {
        let alpha = uses_alpha(m);
        for id in m.textures.iter().filter_map(|t| t.as_ref().ok().copied()) {
            if !uses.contains(&(id, alpha)) {
                uses.push((id, alpha));
            }
        }
    }
    let mut texture_of: HashMap<TextureUse, json::Index<json::Texture>> = HashMap::new();
    let mut missing = HashSet::new();
    for &(id, alpha) in &uses {
        let mut name = asset_id_string(id, id > u64::from(u32::MAX));
        let Some(t) = model.textures.get(&id) else {
            if missing.insert(id) {
                b.warnings
                    .push(format!("texture {name} missing or undecodable; left out"));
            }
            continue;
        };
        if t.levels.is_empty() {
            continue;
        }
        let png = super::textures::level_png(t, 0, alpha, &format!("texture {name}"))?;
        if alpha && uses.contains(&(id, false)) {
            name.push_str(" alpha");
        }
        let view = b.view(&png, None);
        let image = b.root.push(json::Image {
            buffer_view: Some(view),
            mime_type: Some(json::image::MimeType("image/png".into())),
            name: Some(name.clone()),
            uri: None,
            extensions: None,
            extras: None,
        });
        let texture = b.root.push(json::Texture {
            name: Some(name),
            sampler: Some(sampler),
            source: image,
            extensions: None,
            extras: None,
        });
        texture_of.insert((id, alpha), texture);
    }
    summary.textures = texture_of.len();

    // Primitives first (materials need to know which UV sets their surfaces carry).
    let mut primitives = Vec::new();
    let mut uv_sets_of_material: HashMap<usize, usize> = HashMap::new();
    let mut non_finite = 0usize;
    let mut bad_weights = 0usize;
    for (si, surface) in model.surfaces.iter().enumerate() {
        if surface.triangles.is_empty() && surface.lines.is_empty() && surface.points.is_empty() {
            continue;
        }
        let prims = primitives_of(
            &mut b,
            model,
            surface,
            skin,
            &mut non_finite,
            &mut bad_weights,
        );
        let uv_sets = usize::from(surface.attributes.uv_sets);
        summary.primitives += prims.len();
        summary.vertices += surface.vertices.len();
        summary.triangles += surface.triangles.len();
        let m = surface.material;
        let e = uv_sets_of_material.entry(m).or_insert(uv_sets);
        *e = (*e).min(uv_sets);
        primitives.extend(prims.into_iter().map(|p| (si, m, p)));
    }
    if non_finite > 0 {
        b.warnings.push(format!(
            "{non_finite} non-finite vertex components written as 0"
        ));
    }
    if bad_weights > 0 {
        b.warnings.push(format!(
            "{bad_weights} vertices' skin weights did not sum to 1 (renormalised, or bound to the root when all were 0)"
        ));
    }

    // Materials.
    let mut material_index: HashMap<usize, json::Index<json::Material>> = HashMap::new();
    if let Some(set) = set {
        for (i, m) in set.materials.iter().enumerate() {
            if let Err(e) = &m.gx {
                b.warnings
                    .push(format!("material {i}: {e} (exported as plain white)"));
            }
            // An unused material constrains no UV set.
            let uv_sets = uv_sets_of_material.get(&i).copied().unwrap_or(8);
            let mut mat = material(&mut b, i, m, &texture_of, uv_sets)?;
            if let (Some(Some(image)), Ok(gx)) = (options.baked.get(i), &m.gx) {
                let baked = bake_into(
                    &mut b,
                    &mut mat,
                    (i, image, uses_alpha(m)),
                    gx,
                    sampler,
                    uv_sets,
                )?;
                summary.textures += usize::from(baked);
                summary.baked += usize::from(baked);
            }
            material_index.insert(i, b.root.push(mat));
        }
    }
    summary.materials = material_index.len();

    let mesh = if primitives.is_empty() {
        b.warnings.push("the model has no geometry".into());
        None
    } else {
        let prims = primitives
            .into_iter()
            .map(|(si, m, mut p)| {
                p.material = material_index.get(&m).copied();
                if p.material.is_none() {
                    b.warnings.push(format!(
                        "surface {si}: material {m} is not in the set; default material"
                    ));
                }
                p
            })
            .collect();
        Some(b.root.push(json::Mesh {
            extensions: None,
            extras: None,
            name: Some(options.name.clone()),
            primitives: prims,
            weights: None,
        }))
    };

    // Nodes: the Z-up root, the skeleton under it, and the mesh.
    let root_node = b.root.push(json::Node {
        name: Some(options.name.clone()),
        rotation: Some(json::scene::UnitQuaternion(z_up_to_y_up().to_array())),
        ..Default::default()
    });
    let mut scene_nodes = vec![root_node];
    let mut root_children = Vec::new();
    match skin {
        Some(s) => {
            let skeleton = &s.skeleton;
            let pose = rest_pose(skeleton, &s.clips, options, &mut b.warnings);
            let wanted: Vec<usize> = match &options.animations {
                Some(list) => list.clone(),
                None => (0..s.clips.len()).collect(),
            };
            let mut clips = Vec::with_capacity(wanted.len());
            for &ci in &wanted {
                clips.push(s.clips.get(ci).ok_or_else(|| {
                    ExportError::Invalid(format!(
                        "no animation {ci}; the character has {}",
                        s.clips.len()
                    ))
                })?);
            }
            let plain: Vec<&Clip> = clips.iter().map(|(_, c)| c).collect();
            let nodes = BoneNodes {
                first: b.root.nodes.len() as u32,
                count: skeleton.len() as u32,
                split_scale: needs_split_scale(skeleton, &plain, &pose),
            };
            if nodes.split_scale {
                b.warnings.push(
                    "bones with children are scaled: each bone's scale sits on a child node \
                     (the skin's joint), as Prime's children do not inherit it"
                        .into(),
                );
            }
            for (i, bone) in skeleton.bones().iter().enumerate() {
                let l = pose.local[i];
                let name = if bone.name.is_empty() {
                    format!("bone {}", bone.id)
                } else {
                    bone.name.clone()
                };
                // With scale split off, the parent's scale multiplies the offset here.
                let translation = match bone.parent {
                    Some(p) if nodes.split_scale => pose.local[p].scale * l.translation,
                    _ => l.translation,
                };
                let mut children: Vec<_> = bone.children.iter().map(|&c| nodes.bone(c)).collect();
                if nodes.split_scale {
                    children.push(nodes.scale(i));
                }
                let own_scale = !nodes.split_scale && l.scale != Vec3::ONE;
                b.root.push(json::Node {
                    name: Some(name),
                    translation: Some(translation.to_array()),
                    rotation: Some(json::scene::UnitQuaternion(
                        l.rotation.normalize().to_array(),
                    )),
                    scale: own_scale.then(|| l.scale.to_array()),
                    children: (!children.is_empty()).then_some(children),
                    extras: raw_extras(&serde_json::json!({ "bone_id": bone.id }))?,
                    ..Default::default()
                });
                if bone.parent.is_none() {
                    root_children.push(nodes.bone(i));
                }
            }
            if nodes.split_scale {
                for (i, bone) in skeleton.bones().iter().enumerate() {
                    let l = pose.local[i];
                    b.root.push(json::Node {
                        name: Some(format!("{} scale", bone.name)),
                        scale: (l.scale != Vec3::ONE).then(|| l.scale.to_array()),
                        extras: raw_extras(&serde_json::json!({ "bone_id": bone.id }))?,
                        ..Default::default()
                    });
                }
            }
            let with_rotation = options.pose.bind_rotations == BindRotations::Use;
            let ibms: Vec<[f32; 16]> = (0..skeleton.len())
                .map(|i| {
                    skeleton
                        .model_from_bone_bind(i, with_rotation)
                        .inverse()
                        .to_cols_array()
                })
                .collect();
            let ibm = b.floats(&ibms, false, None);
            let gltf_skin = b.root.push(json::Skin {
                extensions: None,
                extras: None,
                inverse_bind_matrices: Some(ibm),
                joints: (0..skeleton.len()).map(|i| nodes.scale(i)).collect(),
                name: Some(options.name.clone()),
                skeleton: Some(root_node),
            });
            summary.joints = skeleton.len();
            if let Some(mesh) = mesh {
                let node = b.root.push(json::Node {
                    name: Some(format!("{} mesh", options.name)),
                    mesh: Some(mesh),
                    skin: Some(gltf_skin),
                    ..Default::default()
                });
                scene_nodes.push(node);
            }
            let bind = Pose::bind(skeleton, &options.pose);
            for (name, clip) in clips {
                if let Some(a) = animation(&mut b, name, clip, skeleton, &bind, options, nodes)? {
                    summary.animations.push(a);
                }
            }
        }
        _ => {
            if let Some(mesh) = mesh {
                let node = b.root.push(json::Node {
                    name: Some(format!("{} mesh", options.name)),
                    mesh: Some(mesh),
                    ..Default::default()
                });
                root_children.push(node);
            }
        }
    }
    if !root_children.is_empty() {
        b.root.nodes[root_node.value()].children = Some(root_children);
    }
    let scene = b.root.push(json::Scene {
        extensions: None,
        extras: None,
        name: Some(options.name.clone()),
        nodes: scene_nodes,
    });
    b.root.scene = Some(scene);
    let (root, bin, warnings) = b.finish();
    Ok(GltfExport {
        root,
        bin,
        summary,
        warnings,
    })
}

fn rest_pose(
    skeleton: &Skeleton,
    clips: &[(String, Clip)],
    options: &GltfOptions,
    warnings: &mut Vec<String>,
) -> Pose {
    let mut pose = Pose::bind(skeleton, &options.pose);
    if let Some((ci, t)) = options.pose_at {
        match clips.get(ci) {
            Some((name, clip)) => match ClipBinding::new(clip, skeleton) {
                Ok(binding) => pose.sample(skeleton, clip, &binding, t, &options.pose),
                Err(e) => warnings.push(format!("animation {name:?}: {e}; bind pose")),
            },
            None => warnings.push(format!("no animation {ci} to pose with; bind pose")),
        }
    }
    pose
}

/// One surface's primitives (triangles, then lines, then points, sharing the vertex
/// attributes; material unset).
fn primitives_of(
    b: &mut Builder,
    model: &CpuModel,
    surface: &CpuSurface,
    skin: Option<&CpuSkin>,
    non_finite: &mut usize,
    bad_weights: &mut usize,
) -> Vec<json::mesh::Primitive> {
    use json::accessor::ComponentType as C;
    use json::buffer::Target;
    use json::mesh::Semantic;
    let range = surface.vertices.start as usize..surface.vertices.end as usize;
    let count = range.len();
    let mesh = &model.mesh;
    let has = surface.attributes;
    let mut attributes = BTreeMap::new();
    let positions: Vec<[f32; 3]> = mesh.positions[range.clone()]
        .iter()
        .map(|&p| finite(p, non_finite))
        .collect();
    attributes.insert(
        Valid(Semantic::Positions),
        b.floats(&positions, true, Some(Target::ArrayBuffer)),
    );
    if has.normals {
        let normals: Vec<[f32; 3]> = mesh.normals[range.clone()]
            .iter()
            .map(|&n| {
                let n = Vec3::from(finite(n, non_finite));
                // glTF requires unit normals; a zero normal becomes +Z.
                n.try_normalize().unwrap_or(Vec3::Z).to_array()
            })
            .collect();
        attributes.insert(
            Valid(Semantic::Normals),
            b.floats(&normals, false, Some(Target::ArrayBuffer)),
        );
    }
    if has.colors[0] {
        let bytes: Vec<u8> = mesh.colors[0][range.clone()]
            .iter()
            .flatten()
            .copied()
            .collect();
        let a = b.accessor(
            &bytes,
            count,
            Layout {
                normalized: true,
                ..Layout::new(C::U8, 4)
            },
            None,
            Some(Target::ArrayBuffer),
        );
        attributes.insert(Valid(Semantic::Colors(0)), a);
    }
    // UV sets are numbered without gaps (the CPU model counts the leading sets).
    for set in 0..usize::from(has.uv_sets.min(8)) {
        let uvs: Vec<[f32; 2]> = mesh.tex[range.clone()]
            .iter()
            .map(|t| finite(t[set], non_finite))
            .collect();
        let a = b.floats(&uvs, false, Some(Target::ArrayBuffer));
        attributes.insert(Valid(Semantic::TexCoords(set as u32)), a);
    }
    if let Some(skin) = skin {
        let root = skin.skeleton.default_root().unwrap_or(0) as u32;
        let wide = skin.skeleton.len() > 256;
        let mut joints = Vec::with_capacity(count * 8);
        let mut weights = Vec::with_capacity(count);
        for v in range.clone() {
            let (j, w, bad) = match skin.influences.get(v) {
                Some(inf) => joint_weights(inf, root),
                None => ([root as u16, 0, 0, 0], [1.0, 0.0, 0.0, 0.0], true),
            };
            *bad_weights += usize::from(bad);
            if wide {
                joints.extend(j.iter().flat_map(|x| x.to_le_bytes()));
            } else {
                joints.extend(j.iter().map(|&x| x as u8));
            }
            weights.push(w);
        }
        let a = b.accessor(
            &joints,
            count,
            Layout::new(if wide { C::U16 } else { C::U8 }, 4),
            None,
            Some(Target::ArrayBuffer),
        );
        attributes.insert(Valid(Semantic::Joints(0)), a);
        let a = b.floats(&weights, false, Some(Target::ArrayBuffer));
        attributes.insert(Valid(Semantic::Weights(0)), a);
    }
    let wide = count > usize::from(u16::MAX);
    let lists: [(&[u32], json::mesh::Mode); 3] = [
        (
            surface.triangles.as_flattened(),
            json::mesh::Mode::Triangles,
        ),
        (surface.lines.as_flattened(), json::mesh::Mode::Lines),
        (&surface.points, json::mesh::Mode::Points),
    ];
    let mut prims = Vec::new();
    for (indices, mode) in lists {
        if indices.is_empty() {
            continue;
        }
        let bytes: Vec<u8> = if wide {
            indices.iter().flat_map(|i| i.to_le_bytes()).collect()
        } else {
            indices
                .iter()
                .flat_map(|&i| (i as u16).to_le_bytes())
                .collect()
        };
        let accessor = b.accessor(
            &bytes,
            indices.len(),
            Layout::new(if wide { C::U32 } else { C::U16 }, 1),
            None,
            Some(Target::ElementArrayBuffer),
        );
        prims.push(json::mesh::Primitive {
            attributes: attributes.clone(),
            extensions: None,
            extras: None,
            indices: Some(accessor),
            material: None,
            mode: Valid(mode),
            targets: None,
        });
    }
    prims
}

/// The glTF texture reference of the texture in slot `map` read through `stage`'s texgen,
/// when the texture was exported and the surfaces carry that UV set; otherwise why not
/// (None when the slot has no exported texture).
fn texture_info(
    gx: &GxMaterial,
    stage: &crate::gx::types::TevStage,
    slots: &[Result<u64, String>],
    texture_of: &HashMap<TextureUse, json::Index<json::Texture>>,
    alpha: bool,
    uv_sets: usize,
) -> Option<Result<json::texture::Info, u32>> {
    let map = usize::from(stage_texture_map(stage)?);
    let &id = slots.get(map)?.as_ref().ok()?;
    let &index = texture_of.get(&(id, alpha))?;
    let uv = stage_texcoord(stage, gx.texgens.len())
        .and_then(|c| gx.texgens.get(usize::from(c)))
        .map(|g| match g.source {
            TexGenSrc::Tex(n) => u32::from(n),
            _ => 0,
        })
        .unwrap_or(0);
    Some(if (uv as usize) < uv_sets {
        Ok(json::texture::Info {
            index,
            tex_coord: uv,
            extensions: None,
            extras: None,
        })
    } else {
        Err(uv)
    })
}

/// The PBR view of a GX material, with the GX description in extras. A lightmapped
/// material (flag 0x800: its texture 0 is the lightmap, read through the short UVs) keeps
/// the lightmap out of the base colour and names it in `extras.lightmap` as a texture
/// reference (core glTF has no lightmap slot).
fn material(
    b: &mut Builder,
    index: usize,
    cpu: &CpuMaterial,
    texture_of: &HashMap<TextureUse, json::Index<json::Texture>>,
    uv_sets: usize,
) -> Result<json::Material, ExportError> {
    let mut m = json::Material {
        name: Some(format!("material {index}")),
        ..Default::default()
    };
    let texture_ids: Vec<Option<u64>> = cpu
        .textures
        .iter()
        .map(|t| t.as_ref().ok().copied())
        .collect();
    let gx = match &cpu.gx {
        Ok(gx) => gx,
        Err(e) => {
            m.extras = raw_extras(&serde_json::json!({ "texture_ids": texture_ids, "error": e }))?;
            return Ok(m);
        }
    };
    let alpha = uses_alpha(cpu);
    let lightmapped = gx.flags & flags::LIGHTMAP != 0;
    let reads_color = |s: &&crate::gx::types::TevStage| {
        stage_texture_map(s).is_some()
            && (s.color_in.contains(&ColorInput::Texc) || s.color_in.contains(&ColorInput::Texa))
    };
    let warn_uv = |b: &mut Builder, what: &str, uv: u32| {
        b.warnings.push(format!(
            "material {index}: its {what} reads UV set {uv}, which its surfaces lack; no texture"
        ))
    };
    // Base colour texture: the first stage reading a texture's colour (not the lightmap's).
    let base = gx
        .stages
        .iter()
        .filter(reads_color)
        .find(|s| !(lightmapped && stage_texture_map(s) == Some(0)));
    if let Some(stage) = base {
        match texture_info(gx, stage, &cpu.textures, texture_of, alpha, uv_sets) {
            Some(Ok(info)) => m.pbr_metallic_roughness.base_color_texture = Some(info),
            Some(Err(uv)) => warn_uv(b, "colour map", uv),
            None => {}
        }
    }
    let lightmap = gx
        .stages
        .iter()
        .filter(|_| lightmapped)
        .find(|s| stage_texture_map(s) == Some(0))
        .and_then(|stage| {
            match texture_info(gx, stage, &cpu.textures, texture_of, alpha, uv_sets)? {
                Ok(info) => Some(serde_json::json!({
                    "index": info.index.value(),
                    "texCoord": info.tex_coord,
                })),
                Err(uv) => {
                    warn_uv(b, "lightmap", uv);
                    None
                }
            }
        });
    // Base colour factor: the konst or register colour of the first stage that reads one.
    let mut factor = [1.0f32; 4];
    for s in &gx.stages {
        let reg = |c: ColorInput| match c {
            ColorInput::C0 => Some(1),
            ColorInput::C1 => Some(2),
            ColorInput::C2 => Some(3),
            _ => None,
        };
        if s.color_in.contains(&ColorInput::Konst) {
            let [r, g, bl] = s.kcsel.color(&gx.konst);
            factor[..3].copy_from_slice(&[r, g, bl].map(|c| f32::from(c) / 255.0));
            if s.alpha_in.contains(&AlphaInput::Konst) {
                factor[3] = f32::from(s.kasel.alpha(&gx.konst)) / 255.0;
            }
            break;
        }
        if let Some(r) = s.color_in.iter().find_map(|&c| reg(c)) {
            let v = gx.registers[r];
            for c in 0..4 {
                factor[c] = f32::from(v[c].clamp(0, 255)) / 255.0;
            }
            factor[3] = 1.0;
            break;
        }
    }
    m.pbr_metallic_roughness.base_color_factor = json::material::PbrBaseColorFactor(factor);
    m.pbr_metallic_roughness.metallic_factor = json::material::StrengthFactor(0.0);
    m.pbr_metallic_roughness.roughness_factor = json::material::StrengthFactor(1.0);
    let (mode, cutoff) = alpha_mode(gx);
    m.alpha_mode = Valid(mode);
    m.alpha_cutoff = cutoff.map(json::material::AlphaCutoff);
    m.double_sided = false;
    let mut extras = serde_json::json!({
        "flags": gx.flags,
        "texture_ids": texture_ids,
        "gx": gx,
    });
    if let Some(lightmap) = lightmap {
        extras["lightmap"] = lightmap;
    }
    if let Some(second) = &cpu.second_draw
        && let Ok(gx2) = &second.gx
    {
        let ids: Vec<Option<u64>> = second
            .textures
            .iter()
            .map(|t| t.as_ref().ok().copied())
            .collect();
        extras["second_draw"] = serde_json::json!({ "gx": gx2, "texture_ids": ids });
    }
    m.extras = raw_extras(&extras)?;
    Ok(m)
}

/// Makes material `index`'s baked image (RGBA when the material keeps alpha) its base
/// colour texture at factor 1 and marks `extras.baked`; the GX material stays in
/// `extras.gx`. False when its surfaces lack the bake's UV set.
fn bake_into(
    b: &mut Builder,
    m: &mut json::Material,
    (index, image, alpha): (usize, &RgbaImage, bool),
    gx: &GxMaterial,
    sampler: json::Index<json::texture::Sampler>,
    uv_sets: usize,
) -> Result<bool, ExportError> {
    let uv = crate::gx::bake::base_color_uv(gx);
    if usize::from(uv) >= uv_sets {
        b.warnings.push(format!(
            "material {index}: its bake is laid out over UV set {uv}, which its surfaces lack; not baked"
        ));
        return Ok(false);
    }
    let png = if alpha {
        image.encode_png()
    } else {
        image.encode_rgb_png()
    }
    .map_err(|source| ExportError::Png {
        what: format!("material {index} bake"),
        source,
    })?;
    let name = format!("material {index} baked");
    let view = b.view(&png, None);
    let source = b.root.push(json::Image {
        buffer_view: Some(view),
        mime_type: Some(json::image::MimeType("image/png".into())),
        name: Some(name.clone()),
        uri: None,
        extensions: None,
        extras: None,
    });
    let texture = b.root.push(json::Texture {
        name: Some(name),
        sampler: Some(sampler),
        source,
        extensions: None,
        extras: None,
    });
    let pbr = &mut m.pbr_metallic_roughness;
    pbr.base_color_texture = Some(json::texture::Info {
        index: texture,
        tex_coord: u32::from(uv),
        extensions: None,
        extras: None,
    });
    pbr.base_color_factor = json::material::PbrBaseColorFactor([1.0; 4]);
    if let Some(extras) = &m.extras {
        let mut value: serde_json::Value =
            serde_json::from_str(extras.get()).map_err(|e| ExportError::Invalid(e.to_string()))?;
        value["baked"] = serde_json::Value::Bool(true);
        m.extras = raw_extras(&value)?;
    }
    Ok(true)
}

/// A texture ID and whether the materials reading it keep its alpha.
type TextureUse = (u64, bool);

/// Whether `m` is blended or masked, so its textures keep their alpha. An OPAQUE
/// material's are written without it: importers that premultiply straight alpha
/// (Blender) would blacken the colour CMPR keeps under alpha 0.
fn uses_alpha(m: &CpuMaterial) -> bool {
    m.gx.as_ref()
        .is_ok_and(|gx| alpha_mode(gx).0 != json::material::AlphaMode::Opaque)
}

/// The glTF alpha mode of a GX material and its MASK cutoff: punchthrough or an alpha test
/// passing above a reference is MASK at that reference; else any real blend is BLEND.
fn alpha_mode(gx: &GxMaterial) -> (json::material::AlphaMode, Option<f32>) {
    use json::material::AlphaMode;
    let test = gx.alpha_test;
    let blends = match gx.blend.mode {
        BlendMode::Blend => {
            !(gx.blend.src == BlendFactor::One && gx.blend.dst == BlendFactor::Zero)
        }
        BlendMode::Subtract => true,
        BlendMode::None | BlendMode::Logic => false,
    };
    if gx.flags & flags::PUNCHTHROUGH != 0
        || matches!(test.comp0, Compare::GEqual | Compare::Greater) && test.comp1 == Compare::Never
    {
        (AlphaMode::Mask, Some(f32::from(test.ref0) / 255.0))
    } else if blends {
        (AlphaMode::Blend, None)
    } else {
        (AlphaMode::Opaque, None)
    }
}

/// Where a bone's transform goes: its node (translation, rotation, and scale unless split)
/// and, when scale is split off, the child node carrying the scale (the skin's joint).
#[derive(Clone, Copy)]
struct BoneNodes {
    first: u32,
    count: u32,
    split_scale: bool,
}

impl BoneNodes {
    fn bone(&self, i: usize) -> json::Index<json::Node> {
        json::Index::new(self.first + i as u32)
    }
    fn scale(&self, i: usize) -> json::Index<json::Node> {
        if self.split_scale {
            json::Index::new(self.first + self.count + i as u32)
        } else {
            self.bone(i)
        }
    }
}

/// The channel (index) driving each bone's rotation, translation and scale: the last one
/// wins, as in [`Pose::sample`]; bone 3 is left out when root motion is skipped.
type Drivers = Vec<[Option<usize>; 3]>;

fn drivers(clip: &Clip, binding: &ClipBinding, skeleton: &Skeleton, pose: &PoseOptions) -> Drivers {
    let mut out = vec![[None; 3]; skeleton.len()];
    for (ci, (c, &bone)) in clip
        .channels
        .iter()
        .zip(&binding.bone_of_channel)
        .enumerate()
    {
        if pose.root_motion == RootMotion::Skip
            && skeleton.bones()[bone].id == skeleton.root_motion_id()
        {
            continue;
        }
        for (slot, present) in [
            c.rotation.is_some(),
            c.translation.is_some(),
            c.scale.is_some(),
        ]
        .into_iter()
        .enumerate()
        {
            if present {
                out[bone][slot] = Some(ci);
            }
        }
    }
    out
}

/// Whether any exported clip scales a bone that has children: glTF children inherit a
/// parent's scale, Prime's do not (`formats.md` §7.5), so scale moves to its own node.
fn needs_split_scale(skeleton: &Skeleton, clips: &[&Clip], rest: &Pose) -> bool {
    let parent_scaled = |i: usize, scaled: bool| scaled && !skeleton.bones()[i].children.is_empty();
    rest.local
        .iter()
        .enumerate()
        .any(|(i, l)| parent_scaled(i, l.scale != Vec3::ONE))
        || clips.iter().any(|clip| {
            clip.channels.iter().any(|c| {
                skeleton
                    .index_of(c.bone_id)
                    .is_some_and(|i| parent_scaled(i, c.scale.is_some()))
            })
        })
}

/// A channel component's values over a clip: one per key time, or one held throughout.
enum Track<T> {
    Keys(Vec<T>),
    Held(T),
}

impl<T> Track<T> {
    fn map<U>(self, f: impl Fn(T) -> U) -> Track<U> {
        match self {
            Track::Keys(v) => Track::Keys(v.into_iter().map(f).collect()),
            Track::Held(v) => Track::Held(f(v)),
        }
    }
}

/// The output accessor of `track` and whether it follows the clip's key times (a held
/// value is written `held_keys` times, once per distinct value in the whole file).
fn track_output<const N: usize>(
    b: &mut Builder,
    track: Track<[f32; N]>,
    held_keys: usize,
) -> (bool, json::Index<json::Accessor>) {
    match track {
        Track::Keys(v) => (true, b.floats(&v, false, None)),
        Track::Held(v) => (false, b.shared_floats(&vec![v; held_keys], false)),
    }
}

/// One clip as a glTF animation (None, with a warning, when it does not fit the skeleton
/// or drives no bone). Every joint's rotation, translation and scale is keyed: what the
/// clip has no track for holds its `bind` value (as tevscope plays it), so an importer
/// that keeps the last value set by the previous clip (Blender) still plays this one alone.
fn animation(
    b: &mut Builder,
    name: &str,
    clip: &Clip,
    skeleton: &Skeleton,
    bind: &Pose,
    options: &GltfOptions,
    nodes: BoneNodes,
) -> Result<Option<AnimationExport>, ExportError> {
    use json::animation::Property;
    let binding = match ClipBinding::new(clip, skeleton) {
        Ok(b) => b,
        Err(e) => {
            b.warnings
                .push(format!("animation {name:?}: {e}; left out"));
            return Ok(None);
        }
    };
    let drive = drivers(clip, &binding, skeleton, &options.pose);
    if drive.iter().flatten().all(Option::is_none) {
        b.warnings
            .push(format!("animation {name:?}: no channels; left out"));
        return Ok(None);
    }
    let (times, source_of_key) = key_times(clip);
    if source_of_key.len() < clip.key_frames.len() {
        b.warnings.push(format!(
            "animation {name:?}: {} keys at repeated times left out",
            clip.key_frames.len() - source_of_key.len()
        ));
    }
    let closing = times.len() > source_of_key.len();
    let end_sample = closing.then(|| clip.sample(clip.duration, false, options.pose.slerp));
    // Values of channel `ci`'s component at every key time (the closing key sampled).
    let rotations = |ci: usize| -> Vec<Quat> {
        let v = clip.channels[ci].rotation.as_deref().unwrap_or_default();
        let mut out: Vec<Quat> = source_of_key.iter().map(|&k| pick(v, k)).collect();
        if let Some(e) = &end_sample {
            out.push(e[ci].rotation.unwrap_or_default());
        }
        out
    };
    let vectors = |ci: usize, scale: bool| -> Vec<Vec3> {
        let c = &clip.channels[ci];
        let v = if scale { &c.scale } else { &c.translation };
        let v = v.as_deref().unwrap_or_default();
        let mut out: Vec<Vec3> = source_of_key.iter().map(|&k| pick(v, k)).collect();
        if let Some(e) = &end_sample {
            let s = if scale {
                e[ci].scale
            } else {
                e[ci].translation
            };
            out.push(s.unwrap_or_default());
        }
        out
    };
    let n_times: Vec<[f32; 1]> = times.iter().map(|&t| [t]).collect();
    let input = b.floats(&n_times, true, None);
    // A held value: two keys spanning the clip (one for a one-key clip).
    let held_times: Vec<[f32; 1]> = match (times.first(), times.last()) {
        (Some(&first), Some(&last)) if last > first => vec![[first], [last]],
        _ => vec![[times.first().copied().unwrap_or(0.0)]],
    };
    let held_keys = held_times.len();
    let held_input = b.shared_floats(&held_times, true);
    let mut samplers = Vec::new();
    let mut channels = Vec::new();
    let mut push = |node, path: Property, (keyed, output): (bool, json::Index<json::Accessor>)| {
        let sampler = json::Index::new(samplers.len() as u32);
        samplers.push(json::animation::Sampler {
            extensions: None,
            extras: None,
            input: if keyed { input } else { held_input },
            interpolation: Valid(json::animation::Interpolation::Linear),
            output,
        });
        channels.push(json::animation::Channel {
            sampler,
            target: json::animation::Target {
                extensions: None,
                extras: None,
                node,
                path: Valid(path),
            },
            extensions: None,
            extras: None,
        });
    };
    for (bone, d) in drive.iter().enumerate() {
        let rest = bind.local[bone];
        let rotation = match d[0] {
            Some(ci) => Track::Keys(rotations(ci)),
            None => Track::Held(rest.rotation),
        };
        let out = track_output(b, rotation.map(|q| q.normalize().to_array()), held_keys);
        push(nodes.bone(bone), Property::Rotation, out);
        // With scale split off, a child's offset is scaled by its parent's scale here
        // (exact at the keys; between keys the product of two lerps is approximated by
        // a lerp of products).
        let parent = skeleton.bones()[bone].parent.filter(|_| nodes.split_scale);
        let translation = match (d[1], parent.and_then(|p| drive[p][2])) {
            (Some(ci), None) => Track::Keys(vectors(ci, false)),
            (t, Some(pi)) => {
                let t = t.map_or_else(
                    || vec![rest.translation; times.len()],
                    |ci| vectors(ci, false),
                );
                Track::Keys(
                    t.iter()
                        .zip(vectors(pi, true))
                        .map(|(t, s)| *t * s)
                        .collect(),
                )
            }
            (None, None) => {
                Track::Held(rest.translation * parent.map_or(Vec3::ONE, |p| bind.local[p].scale))
            }
        };
        let out = track_output(b, translation.map(|v| v.to_array()), held_keys);
        push(nodes.bone(bone), Property::Translation, out);
        let scale = match d[2] {
            Some(ci) => Track::Keys(vectors(ci, true)),
            None => Track::Held(rest.scale),
        };
        let out = track_output(b, scale.map(|v| v.to_array()), held_keys);
        push(nodes.scale(bone), Property::Scale, out);
        if nodes.split_scale {
            // The joint node carrying the scale: its rotation and offset stay identity.
            let out = track_output(b, Track::Held(Quat::IDENTITY.to_array()), held_keys);
            push(nodes.scale(bone), Property::Rotation, out);
            let out = track_output(b, Track::Held(Vec3::ZERO.to_array()), held_keys);
            push(nodes.scale(bone), Property::Translation, out);
        }
    }
    let export = AnimationExport {
        name: name.to_string(),
        duration: times.last().copied().unwrap_or(0.0),
        keys: times.len(),
        channels: channels.len(),
        source_keys: clip.key_frames.len(),
    };
    let extras = raw_extras(&serde_json::json!({
        "looping": clip.looping,
        "frame_interval": clip.interval,
        "frame_count": clip.frame_count,
        "source_keys": clip.key_frames.len(),
    }))?;
    b.root.push(json::Animation {
        extensions: None,
        extras,
        channels,
        name: Some(name.to_string()),
        samplers,
    });
    Ok(Some(export))
}

fn pick<T: Copy + Default>(values: &[T], k: usize) -> T {
    values.get(k).or(values.last()).copied().unwrap_or_default()
}

/// Key times of a clip (strictly increasing) with the stored key each one reads; a final
/// time without a stored key is the closing key at the clip's duration (module docs).
pub fn key_times(clip: &Clip) -> (Vec<f32>, Vec<usize>) {
    let interval = clip.interval;
    if !(interval.is_finite() && interval > 0.0) || clip.key_frames.is_empty() {
        return (vec![0.0], vec![0]);
    }
    let mut times = Vec::with_capacity(clip.key_frames.len() + 1);
    let mut source = Vec::with_capacity(clip.key_frames.len());
    for (k, &f) in clip.key_frames.iter().enumerate() {
        let t = f as f32 * interval;
        if times.last().is_some_and(|&last| t <= last) || !t.is_finite() {
            continue;
        }
        times.push(t);
        source.push(k);
    }
    let last = times.last().copied().unwrap_or(0.0);
    let d = clip.duration;
    // A clip lasting past its last key plays on there: format 0 interpolates towards
    // frame 0, format 2 holds its last key.
    if d.is_finite() && d > last && (d - last) > 1e-6 * d.max(1.0) {
        times.push(d);
    }
    (times, source)
}

/// The GLB container of an export.
pub fn to_glb(export: &GltfExport) -> Result<Vec<u8>, ExportError> {
    let json = json::serialize::to_vec(&export.root).map_err(ExportError::Json)?;
    let glb = ::gltf::binary::Glb {
        header: ::gltf::binary::Header {
            magic: *b"glTF",
            version: 2,
            // to_vec computes the real length.
            length: 0,
        },
        json: json.into(),
        bin: (!export.bin.is_empty()).then(|| export.bin.as_slice().into()),
    };
    glb.to_vec().map_err(ExportError::Glb)
}

impl GltfExport {
    /// Writes `path`: a `.glb`, or a `.gltf` with its buffer beside it as `NAME.bin`.
    /// Each file is written to a temporary name and renamed into place.
    pub fn write(&self, path: &std::path::Path) -> Result<(), ExportError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("glb") => super::write_atomic(path, &to_glb(self)?),
            Some("gltf") => {
                let stem = path
                    .file_stem()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "model".into());
                let bin_name = format!("{stem}.bin");
                let mut root = self.root.clone();
                if let Some(buffer) = root.buffers.first_mut() {
                    buffer.uri = Some(bin_name.clone());
                    super::write_atomic(&path.with_file_name(&bin_name), &self.bin)?;
                }
                let json = json::serialize::to_vec_pretty(&root).map_err(ExportError::Json)?;
                super::write_atomic(path, &json)
            }
            _ => Err(ExportError::Invalid(format!(
                "{}: the output must end in .glb or .gltf",
                path.display()
            ))),
        }
    }
}
