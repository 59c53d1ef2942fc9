//! A material on the GPU: its TEV program, keys, uniform buffers and bind groups.

use super::context::RenderContext;
use super::convert::RenderState;
use super::pipeline_cache::PipelineKey;
use super::shader_cache::ShaderId;
use super::texture::{GpuTexture, SamplerMode, Wrap};
use crate::anim::NormalMode;
use crate::gx::key::{ShaderKey, UberKey};
use crate::gx::sampler::MapSampling;
use crate::gx::tev::{MAX_TEXTURE_MAPS, TevOptions, TevProgram};
use crate::gx::types::Material;
use crate::gx::wgsl::interface::{
    BINDING_DRAW_UNIFORMS, BINDING_TEV_UNIFORMS, BINDING_UBER_PROGRAM, GROUP_MATERIAL,
    texture_map_binding,
};
use crate::gx::wgsl::tev::TevUniforms;
use crate::gx::wgsl::uber::UberProgram;

/// A texture bound to one GX texture map, with its sampling.
#[derive(Debug, Clone)]
pub struct BoundTexture {
    pub texture: GpuTexture,
    pub sampler: SamplerMode,
}

/// Uniform buffers and bind groups of one material draw. Value edits rewrite the
/// uniforms (only when they changed); structural edits change [`GpuMaterial::shader_key`]
/// and the ubershader program, never the bind groups.
pub struct GpuMaterial {
    pub program: TevProgram,
    pub shader_key: ShaderKey,
    pub uber_key: UberKey,
    tev_uniforms: wgpu::Buffer,
    uber_program: wgpu::Buffer,
    uniforms_written: TevUniforms,
    /// Each map's sampling words (`TevUniforms.samplers`), fixed by the bound textures.
    samplers: [[u32; 4]; MAX_TEXTURE_MAPS],
    /// GPU skinning and how it skins normals (None: not skinned).
    skinning: Option<NormalMode>,
    program_written: UberProgram,
    /// Texture maps 0–7 and their samplers (placeholders where the material has none).
    maps: Vec<(wgpu::TextureView, wgpu::Sampler)>,
    /// Group 0: `DrawUniforms` (supplied by the caller), `TevUniforms`, the ubershader
    /// program and [`GpuMaterial::maps`].
    pub group: wgpu::BindGroup,
}

impl GpuMaterial {
    /// `draw_uniforms` is the per-draw vertex-side block (`DrawUniforms`, a whole buffer or
    /// a range of a shared one); `textures[k]`
    /// is GX texture map k (material texture k); missing maps get the white placeholder.
    pub fn new(
        ctx: &RenderContext,
        material: &Material,
        options: &TevOptions,
        draw_uniforms: wgpu::BufferBinding<'_>,
        textures: &[Option<BoundTexture>],
    ) -> Self {
        let program = TevProgram::from_material(material, options);
        Self::with_program(ctx, material, program, draw_uniforms, textures)
    }

    /// Like [`GpuMaterial::new`] with an explicit program (an edited stage list, swap
    /// tables, …); `material` supplies the vertex side.
    pub fn with_program(
        ctx: &RenderContext,
        material: &Material,
        program: TevProgram,
        draw_uniforms: wgpu::BufferBinding<'_>,
        textures: &[Option<BoundTexture>],
    ) -> Self {
        let uber_key = UberKey::new(material, &program);
        let sampler_words: [[u32; 4]; MAX_TEXTURE_MAPS] = std::array::from_fn(|map| {
            textures
                .get(map)
                .and_then(|t| t.as_ref())
                .map_or([0; 4], |t| t.sampler.uniform_words())
        });
        let shader_key = specialized_key(material, &program, &sampler_words);
        let uniforms = TevUniforms {
            samplers: sampler_words,
            ..TevUniforms::from_program(&program)
        };
        let packed = UberProgram::from_key(&shader_key.fragment);
        let buffer = |label: &str, bytes: &[u8]| {
            let b = ctx.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: bytes.len() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
            ctx.queue.write_buffer(&b, 0, bytes);
            b
        };
        let tev_uniforms = buffer("TevUniforms", bytemuck::bytes_of(&uniforms));
        let uber_program = buffer("UberProgram", bytemuck::bytes_of(&packed));
        let placeholder_sampler = ctx
            .samplers
            .get(&ctx.device, SamplerMode::Nearest { wrap: Wrap::Repeat });
        let maps: Vec<_> = (0..MAX_TEXTURE_MAPS)
            .map(|map| match textures.get(map).and_then(|t| t.as_ref()) {
                Some(t) => (
                    t.texture.view.clone(),
                    ctx.samplers.get(&ctx.device, t.sampler),
                ),
                None => (ctx.placeholder.view.clone(), placeholder_sampler.clone()),
            })
            .collect();
        let group = Self::group(ctx, draw_uniforms, &tev_uniforms, &uber_program, &maps);
        Self {
            program,
            shader_key,
            uber_key,
            tev_uniforms,
            uber_program,
            uniforms_written: uniforms,
            samplers: sampler_words,
            program_written: packed,
            skinning: None,
            maps,
            group,
        }
    }

    /// Group 0 over `draw_uniforms`, the material's own buffers and its texture maps.
    fn group(
        ctx: &RenderContext,
        draw_uniforms: wgpu::BufferBinding<'_>,
        tev_uniforms: &wgpu::Buffer,
        uber_program: &wgpu::Buffer,
        maps: &[(wgpu::TextureView, wgpu::Sampler)],
    ) -> wgpu::BindGroup {
        let mut entries = vec![
            wgpu::BindGroupEntry {
                binding: BINDING_DRAW_UNIFORMS,
                resource: wgpu::BindingResource::Buffer(draw_uniforms),
            },
            wgpu::BindGroupEntry {
                binding: BINDING_TEV_UNIFORMS,
                resource: tev_uniforms.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: BINDING_UBER_PROGRAM,
                resource: uber_program.as_entire_binding(),
            },
        ];
        for (map, (view, sampler)) in (0..).zip(maps) {
            entries.push(wgpu::BindGroupEntry {
                binding: texture_map_binding(map),
                resource: wgpu::BindingResource::TextureView(view),
            });
            entries.push(wgpu::BindGroupEntry {
                binding: texture_map_binding(map) + 1,
                resource: wgpu::BindingResource::Sampler(sampler),
            });
        }
        ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("material group"),
            layout: &ctx.layouts.material_group,
            entries: &entries,
        })
    }

    /// Points group 0 at another `DrawUniforms` block (a scene's shared blocks moved).
    pub fn rebind_draw_uniforms(
        &mut self,
        ctx: &RenderContext,
        draw_uniforms: wgpu::BufferBinding<'_>,
    ) {
        self.group = Self::group(
            ctx,
            draw_uniforms,
            &self.tev_uniforms,
            &self.uber_program,
            &self.maps,
        );
    }

    /// Applies an edited material (same textures): rewrites the uniforms and program buffer
    /// when they changed. Returns true when the structure (shader key) changed.
    pub fn update(
        &mut self,
        ctx: &RenderContext,
        material: &Material,
        options: &TevOptions,
    ) -> bool {
        self.update_program(ctx, material, TevProgram::from_material(material, options))
    }

    /// Applies an edited program; see [`GpuMaterial::update`].
    pub fn update_program(
        &mut self,
        ctx: &RenderContext,
        material: &Material,
        program: TevProgram,
    ) -> bool {
        let queue = &ctx.queue;
        self.update_program_into(material, program, |buffer, bytes| {
            queue.write_buffer(buffer, 0, bytes)
        })
    }

    /// [`GpuMaterial::update`] handing each rewritten buffer (whole, from offset 0) to
    /// `write`: a scene stages them through its upload belt with the frame's uniforms,
    /// where `queue.write_buffer` would allocate a staging buffer per write.
    pub fn update_into(
        &mut self,
        material: &Material,
        options: &TevOptions,
        write: impl FnMut(&wgpu::Buffer, &[u8]),
    ) -> bool {
        self.update_program_into(
            material,
            TevProgram::from_material(material, options),
            write,
        )
    }

    fn update_program_into(
        &mut self,
        material: &Material,
        program: TevProgram,
        mut write: impl FnMut(&wgpu::Buffer, &[u8]),
    ) -> bool {
        let mut key = specialized_key(material, &program, &self.samplers);
        skin_vertex_key(&mut key.vertex, self.skinning);
        let uniforms = TevUniforms {
            samplers: self.samplers,
            ..TevUniforms::from_program(&program)
        };
        if uniforms != self.uniforms_written {
            write(&self.tev_uniforms, bytemuck::bytes_of(&uniforms));
            self.uniforms_written = uniforms;
        }
        let changed = key != self.shader_key;
        if changed {
            let packed = UberProgram::from_key(&key.fragment);
            if packed != self.program_written {
                write(&self.uber_program, bytemuck::bytes_of(&packed));
                self.program_written = packed;
            }
            self.uber_key = UberKey::new(material, &program);
            skin_vertex_key(&mut self.uber_key.vertex, self.skinning);
            self.shader_key = key;
        }
        self.program = program;
        changed
    }

    /// Switches the vertex stage to GPU skinning (the draw then binds group 1 and vertex
    /// buffer 1). Changes both shader keys.
    /// `skinning` says how normals are skinned (the model's rule; None: not skinned).
    pub fn set_skinned(&mut self, skinning: Option<NormalMode>) {
        self.skinning = skinning;
        skin_vertex_key(&mut self.shader_key.vertex, skinning);
        skin_vertex_key(&mut self.uber_key.vertex, skinning);
    }

    pub fn skinned(&self) -> bool {
        self.skinning.is_some()
    }

    /// Pipeline keys of the specialized shader and the ubershader for `state`.
    pub fn pipeline_keys(
        &self,
        state: RenderState,
        color_format: wgpu::TextureFormat,
        depth_format: Option<wgpu::TextureFormat>,
    ) -> (PipelineKey, PipelineKey) {
        let make = |shader| PipelineKey {
            shader,
            state,
            color_format,
            depth_format,
        };
        (
            make(ShaderId::Specialized(self.shader_key.clone())),
            make(ShaderId::Uber(self.uber_key.clone())),
        )
    }

    /// Binds the material group.
    pub fn bind(&self, pass: &mut wgpu::RenderPass<'_>) {
        pass.set_bind_group(GROUP_MATERIAL, &self.group, &[]);
    }

    /// Binds a material's group ([`GpuMaterial::group`] or a clone of it) into a pass or a
    /// render bundle.
    pub fn bind_group_to<'a>(
        group: &'a wgpu::BindGroup,
        encoder: &mut impl wgpu::util::RenderEncoder<'a>,
    ) {
        encoder.set_bind_group(GROUP_MATERIAL, Some(group), &[]);
    }
}

/// The specialized shader's key: the program's structure and how its maps filter (the
/// bound textures' mode words decide it; they stay as long as the textures do).
fn specialized_key(
    material: &Material,
    program: &TevProgram,
    sampler_words: &[[u32; 4]; MAX_TEXTURE_MAPS],
) -> ShaderKey {
    let mut key = ShaderKey::new(material, program);
    key.fragment = key
        .fragment
        .with_sampling(&sampler_words.map(MapSampling::from_words));
    key
}

/// Sets a vertex key's skinning fields from the scene's skinning rule.
fn skin_vertex_key(key: &mut crate::gx::wgsl::vertex::VertexKey, skinning: Option<NormalMode>) {
    key.skinned = skinning.is_some();
    key.blended_normals = skinning == Some(NormalMode::Blended);
}
