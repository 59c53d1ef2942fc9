//! What every GPU object of the material path is made with: the shared bind-group layouts
//! and the error scope around creating shaders and pipelines. A leaf of `render`, so the
//! context and both caches build on it without depending on each other in a circle.

use std::sync::Arc;

use super::{RenderError, SharedError};
use crate::gx::tev::MAX_TEXTURE_MAPS;
use crate::gx::wgsl::interface::{
    BINDING_DRAW_UNIFORMS, BINDING_TEV_UNIFORMS, BINDING_UBER_PROGRAM, texture_map_binding,
};

/// The bind-group layouts every material pipeline uses (see `gx/wgsl/interface.rs`).
///
/// One layout serves both shader paths: group 0 carries `DrawUniforms`, `TevUniforms`,
/// the ubershader program (unused by specialized shaders) and all eight texture maps and
/// samplers (placeholders where the material has none), so switching between a
/// specialized pipeline and the ubershader never rebinds anything, and changing material
/// binds one group.
/// Skinned draws add group 1 (the bone palette, `SkinPalette` of `gx/wgsl/vertex.rs`) and
/// use [`Layouts::skinned_pipeline_layout`].
#[derive(Debug, Clone)]
pub struct Layouts {
    pub material_group: wgpu::BindGroupLayout,
    pub pipeline_layout: wgpu::PipelineLayout,
    pub skin_group: wgpu::BindGroupLayout,
    pub skinned_pipeline_layout: wgpu::PipelineLayout,
    /// Group 2: the destination copy of shaders that blend themselves.
    pub destination_group: wgpu::BindGroupLayout,
    /// [`Layouts::pipeline_layout`] / [`Layouts::skinned_pipeline_layout`] plus group 2.
    pub blending_pipeline_layout: wgpu::PipelineLayout,
    pub skinned_blending_pipeline_layout: wgpu::PipelineLayout,
}

impl Layouts {
    pub(super) fn new(device: &wgpu::Device) -> Self {
        let uniform = |binding, visibility| wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let both = wgpu::ShaderStages::VERTEX_FRAGMENT;
        let mut entries = vec![
            uniform(BINDING_DRAW_UNIFORMS, both),
            uniform(BINDING_TEV_UNIFORMS, both),
            uniform(BINDING_UBER_PROGRAM, wgpu::ShaderStages::FRAGMENT),
        ];
        for map in 0..MAX_TEXTURE_MAPS as u32 {
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: texture_map_binding(map),
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: true },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            });
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: texture_map_binding(map) + 1,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            });
        }
        let material_group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("tevscope material group"),
            entries: &entries,
        });
        let skin_group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("tevscope skin group"),
            entries: &[uniform(0, wgpu::ShaderStages::VERTEX)],
        });
        let destination_group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("tevscope destination group"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });
        // Groups at the indices of `gx/wgsl/interface.rs`: material, skin, destination.
        let layout = |label, groups: &[Option<&wgpu::BindGroupLayout>]| {
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some(label),
                bind_group_layouts: groups,
                immediate_size: 0,
            })
        };
        let (m, s, d) = (
            Some(&material_group),
            Some(&skin_group),
            Some(&destination_group),
        );
        let pipeline_layout = layout("tevscope material pipeline layout", &[m]);
        let skinned_pipeline_layout = layout("tevscope skinned material pipeline layout", &[m, s]);
        let blending_pipeline_layout = layout(
            "tevscope shader-blending material pipeline layout",
            &[m, None, d],
        );
        let skinned_blending_pipeline_layout = layout(
            "tevscope skinned shader-blending material pipeline layout",
            &[m, s, d],
        );
        Self {
            material_group,
            pipeline_layout,
            skin_group,
            skinned_pipeline_layout,
            destination_group,
            blending_pipeline_layout,
            skinned_blending_pipeline_layout,
        }
    }
}

/// Runs `f` inside a validation + out-of-memory error scope and returns its value or
/// the first error wgpu reported (error scopes are per thread).
pub(crate) fn capture<T>(
    device: &wgpu::Device,
    what: &str,
    f: impl FnOnce() -> T,
) -> Result<T, SharedError> {
    let oom = device.push_error_scope(wgpu::ErrorFilter::OutOfMemory);
    let validation = device.push_error_scope(wgpu::ErrorFilter::Validation);
    let value = f();
    let v = pollster::block_on(validation.pop());
    let o = pollster::block_on(oom.pop());
    match v.or(o) {
        Some(e) => Err(Arc::new(RenderError::wgpu(what, e))),
        None => Ok(value),
    }
}
