//! The selected material as drawn and the CPU side of the pixel inspector (no GPU, no egui).
//!
//! [`MaterialEdit`] holds the selected material in GX form with its [`TevProgram`] (the
//! stages the GPU runs, engine stages included); edits reach it from the document through
//! [`MaterialEdit::sync`]. Whether a change is a value change (uniforms only) or a
//! structural one (a new shader, ubershader meanwhile) is decided by comparing
//! [`ShaderKey`]s, the same test the renderer uses — so the panel can say which it was.

use crate::gx::key::ShaderKey;
use crate::gx::lighting::run_vertex;
use crate::gx::tev::{PixelInputs, StageOrigin, TevOptions, TevProgram, TevTrace, evaluate};
use crate::gx::types::Material;
use crate::gx::wgsl::vertex::{DrawUniforms, VertexKey};
use crate::model::TextureData;
use crate::render::quad::QuadGeometry;

use crate::session::asset::sample_nearest_repeat;

/// What an edit changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EditKind {
    None,
    /// Konsts, registers and other uniforms: applied this frame, no shader change.
    Value,
    /// Stage structure: a new specialized shader; the ubershader draws until it is ready.
    Structure,
}

/// A material under edit.
#[derive(Debug, Clone)]
pub struct MaterialEdit {
    /// The vertex side and the flags (texgens, channels, animations).
    pub material: Material,
    pub program: TevProgram,
    pub options: TevOptions,
    key: ShaderKey,
    /// Bumped on every change, so the renderer knows to upload.
    pub revision: u64,
    pub last_edit: EditKind,
}

impl MaterialEdit {
    pub fn new(material: Material, options: TevOptions) -> Self {
        let program = TevProgram::from_material(&material, &options);
        let key = ShaderKey::new(&material, &program);
        Self {
            material,
            program,
            options,
            key,
            revision: 0,
            last_edit: EditKind::None,
        }
    }

    /// Call after mutating `program`/`material`: classifies the change and bumps the
    /// revision if anything changed.
    pub fn commit(&mut self, before: &TevProgram) -> EditKind {
        let key = ShaderKey::new(&self.material, &self.program);
        let kind = if key != self.key {
            EditKind::Structure
        } else if *before != self.program {
            EditKind::Value
        } else {
            EditKind::None
        };
        if kind != EditKind::None {
            self.key = key;
            self.revision += 1;
            self.last_edit = kind;
        }
        kind
    }

    /// Shows `material` (the document's new state): classified like an edit; a change of
    /// the vertex side only (UV animation parameters) counts as a value edit.
    pub fn sync(&mut self, material: Material) -> EditKind {
        if material == self.material {
            return EditKind::None;
        }
        let before = self.program.clone();
        self.program = TevProgram::from_material(&material, &self.options);
        self.material = material;
        let kind = self.commit(&before);
        if kind != EditKind::None {
            return kind;
        }
        self.revision += 1;
        self.last_edit = EditKind::Value;
        EditKind::Value
    }

    /// Rebuilds the program from the material with new TEV switches.
    pub fn reset(&mut self, options: TevOptions) {
        self.options = options;
        let before = self.program.clone();
        self.program = TevProgram::from_material(&self.material, &options);
        self.commit(&before);
    }

    pub fn key(&self) -> &ShaderKey {
        &self.key
    }

    /// Whether program stage `i` is editable (material stages) or engine-appended.
    pub fn is_engine_stage(&self, i: usize) -> bool {
        self.program
            .stages
            .get(i)
            .is_some_and(|s| matches!(s.origin, StageOrigin::Engine(_)))
    }
}

/// Everything the inspector shows for one pixel.
#[derive(Debug, Clone)]
pub struct PixelReport {
    pub x: u32,
    pub y: u32,
    /// UV of texcoord 0 at the pixel centre (quad space).
    pub quad_uv: [f32; 2],
    /// Texture coordinate per texgen after the matrices.
    pub tex_coords: Vec<[f32; 2]>,
    pub inputs: PixelInputs,
    pub trace: TevTrace,
    /// The pixel read back from the GPU target (None until it arrives or on failure).
    pub gpu: Option<[u8; 4]>,
}

impl PixelReport {
    /// Whether the GPU pixel equals what the CPU reference writes (or the clear colour
    /// when the alpha test rejects it).
    pub fn matches(&self, clear: [u8; 4]) -> Option<bool> {
        let expected = if self.trace.alpha_pass {
            self.trace.written
        } else {
            clear
        };
        self.gpu.map(|g| g == expected)
    }
}

/// Runs the CPU references (vertex stage, nearest texel fetch, TEV) for pixel (x, y) of a
/// `width` × `height` preview quad drawn with `draw` uniforms.
#[allow(clippy::too_many_arguments)]
pub fn trace_quad_pixel(
    material: &Material,
    program: &TevProgram,
    textures: &[Option<TextureData>],
    draw: &DrawUniforms,
    width: u32,
    height: u32,
    x: u32,
    y: u32,
) -> PixelReport {
    let u = (x as f32 + 0.5) / width.max(1) as f32;
    let v = (y as f32 + 0.5) / height.max(1) as f32;
    // The quad is affine with constant vertex attributes apart from position and UV, so
    // the vertex stage evaluated at the pixel centre equals the interpolated result.
    let geometry = QuadGeometry::default();
    let corners = geometry.vertices();
    let mut vertex = corners[0];
    vertex.position = [2.0 * u - 1.0, 1.0 - 2.0 * v, 0.0];
    vertex.tex =
        std::array::from_fn(|set| crate::render::quad::quad_uv(set, u, v, geometry.varied_uvs));
    let key = VertexKey::for_material(material);
    let result = run_vertex(&key, draw, &vertex);
    let tex_coords: Vec<[f32; 2]> = (0..result.tex_coord_count).map(|i| result.uv(i)).collect();
    let inputs = PixelInputs::sampled(program, [result.color0, result.color1], |map, coord| {
        let uv = coord.map_or([0.0, 0.0], |c| {
            tex_coords.get(c as usize).copied().unwrap_or([0.0, 0.0])
        });
        match textures.get(map as usize).and_then(Option::as_ref) {
            Some(t) => sample_nearest_repeat(t, uv),
            // The renderer binds a white placeholder for maps it has no texture for.
            None => [255; 4],
        }
    });
    let trace = evaluate(program, &inputs);
    PixelReport {
        x,
        y,
        quad_uv: [u, v],
        tex_coords,
        inputs,
        trace,
        gpu: None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::gx::types::{ColorInput, KonstSel};
    use crate::session::asset::texture_preview_material;

    #[test]
    fn konst_edit_is_a_value_change_and_input_edit_is_structural() {
        let mut e = MaterialEdit::new(texture_preview_material(), TevOptions::default());
        let before = e.program.clone();
        e.program.konst[0] = [1, 2, 3, 4];
        assert_eq!(e.commit(&before), EditKind::Value);
        assert_eq!(e.revision, 1);

        let before = e.program.clone();
        e.program.registers[1] = [10, 20, 30, 40];
        assert_eq!(e.commit(&before), EditKind::Value);

        let before = e.program.clone();
        e.program.stages[0].stage.color_in[3] = ColorInput::Konst;
        assert_eq!(e.commit(&before), EditKind::Structure);
        assert_eq!(e.revision, 3);

        let before = e.program.clone();
        assert_eq!(e.commit(&before), EditKind::None);
        assert_eq!(e.revision, 3);

        // The konst selector picks a value source: whether it is structural depends on
        // the key; either way it must be reported as a change.
        let before = e.program.clone();
        e.program.stages[0].stage.kcsel = KonstSel(0x0C);
        assert_ne!(e.commit(&before), EditKind::None);

        e.reset(TevOptions::default());
        assert_eq!(e.program.stages[0].stage.color_in[3], ColorInput::Texc);
        assert_eq!(e.last_edit, EditKind::Structure);
    }

    #[test]
    fn syncing_a_new_material_classifies_the_change() {
        let m = texture_preview_material();
        let mut e = MaterialEdit::new(m.clone(), TevOptions::default());
        assert_eq!(e.sync(m.clone()), EditKind::None);
        let mut konst = m.clone();
        konst.konst[0] = [1, 2, 3, 4];
        assert_eq!(e.sync(konst.clone()), EditKind::Value);
        assert_eq!(e.program.konst[0], [1, 2, 3, 4]);
        let mut input = konst.clone();
        input.stages[0].color_in[3] = ColorInput::Konst;
        assert_eq!(e.sync(input), EditKind::Structure);
        let mut anim = konst;
        anim.uv_animations
            .push(crate::gx::types::UvAnimation::Model);
        assert_ne!(e.sync(anim), EditKind::None);
        assert_eq!(e.revision, 3);
    }

    #[test]
    fn quad_pixel_trace_reads_the_texel_under_the_pixel() {
        let m = texture_preview_material();
        let p = TevProgram::from_material(&m, &TevOptions::default());
        let texture = TextureData {
            width: 2,
            height: 2,
            levels: vec![vec![
                10, 0, 0, 255, 20, 0, 0, 255, //
                30, 0, 0, 255, 40, 0, 0, 128,
            ]],
        };
        let draw = DrawUniforms::default();
        let r = trace_quad_pixel(&m, &p, &[Some(texture)], &draw, 64, 64, 63, 63);
        assert_eq!(r.trace.rgba, [40, 0, 0, 128]);
        let r = trace_quad_pixel(&m, &p, &[None], &draw, 64, 64, 0, 0);
        assert_eq!(r.trace.rgba, [255; 4]);
        let mut r = trace_quad_pixel(&m, &p, &[None], &draw, 64, 64, 0, 0);
        assert_eq!(r.matches([0; 4]), None);
        r.gpu = Some([255; 4]);
        assert_eq!(r.matches([0; 4]), Some(true));
    }
}
