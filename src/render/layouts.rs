//! What every GPU object of the material path is made with: the shared bind-group layouts
//! and the error scope around creating shaders and pipelines. A leaf of `render`, so the
//! context and both caches build on it without depending on each other in a circle.

use std::sync::Arc;

use super::{RenderError, SharedError};
use crate::gx::wgsl::interface::{
    BINDING_DRAW_UNIFORMS, BINDING_TEV_UNIFORMS, BINDING_UBER_PROGRAM,
};

/// The bind-group layouts every material pipeline uses (see `gx/wgsl/interface.rs`).
///
/// One layout serves both shader paths: group 0 carries `DrawUniforms`, `TevUniforms` and
/// the ubershader program (unused by specialized shaders), group 1 all eight texture
/// maps and samplers (placeholders where the material has none), so switching between
/// a specialized pipeline and the ubershader never rebinds anything.
/// Skinned draws add group 2 (the bone palette, `SkinPalette` of `gx/wgsl/vertex.rs`) and
/// use [`Layouts::skinned_pipeline_layout`].
#[derive(Debug, Clone)]
pub struct Layouts {
    pub draw_group: wgpu::BindGroupLayout,
    pub texture_group: wgpu::BindGroupLayout,
    pub pipeline_layout: wgpu::PipelineLayout,
    pub skin_group: wgpu::BindGroupLayout,
    pub skinned_pipeline_layout: wgpu::PipelineLayout,
    /// Group 3: the destination copy of shaders that blend themselves.
    pub destination_group: wgpu::BindGroupLayout,
    /// [`Layouts::pipeline_layout`] / [`Layouts::skinned_pipeline_layout`] plus group 3.
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
        let draw_group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("tevscope draw group"),
            entries: &[
                uniform(BINDING_DRAW_UNIFORMS, both),
                uniform(BINDING_TEV_UNIFORMS, both),
                uniform(BINDING_UBER_PROGRAM, wgpu::ShaderStages::FRAGMENT),
            ],
        });
        let mut entries = Vec::new();
        for map in 0..8u32 {
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: 2 * map,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: true },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            });
            entries.push(wgpu::BindGroupLayoutEntry {
                binding: 2 * map + 1,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            });
        }
        let texture_group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("tevscope texture group"),
            entries: &entries,
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("tevscope material pipeline layout"),
            bind_group_layouts: &[Some(&draw_group), Some(&texture_group)],
            immediate_size: 0,
        });
        let skin_group = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("tevscope skin group"),
            entries: &[uniform(0, wgpu::ShaderStages::VERTEX)],
        });
        let skinned_pipeline_layout =
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("tevscope skinned material pipeline layout"),
                bind_group_layouts: &[Some(&draw_group), Some(&texture_group), Some(&skin_group)],
                immediate_size: 0,
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
        let blending_pipeline_layout =
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("tevscope shader-blending material pipeline layout"),
                bind_group_layouts: &[
                    Some(&draw_group),
                    Some(&texture_group),
                    None,
                    Some(&destination_group),
                ],
                immediate_size: 0,
            });
        let skinned_blending_pipeline_layout =
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("tevscope skinned shader-blending material pipeline layout"),
                bind_group_layouts: &[
                    Some(&draw_group),
                    Some(&texture_group),
                    Some(&skin_group),
                    Some(&destination_group),
                ],
                immediate_size: 0,
            });
        Self {
            draw_group,
            texture_group,
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
