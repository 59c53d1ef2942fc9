//! What the `wireframe` and `overdraw` debug views ([`crate::gx::wgsl::debug`]) need
//! beyond a fragment function.
//!
//! `wireframe` draws each visible surface's triangle edges as a line list over the
//! shaded pass. Lines come from an index buffer of the model's unique edges per surface
//! rather than from `PolygonMode::Line`, which needs an optional device feature (and a
//! second pipeline per material); the edges reuse the pick pass's vertex stages, so they
//! sit exactly on the drawn (and skinned) triangles. `overdraw` keeps the materials'
//! pipelines but replaces their blend and depth state.

use std::collections::HashSet;
use std::ops::Range;

use wgpu::util::DeviceExt as _;

use super::RenderError;
use super::context::RenderContext;
use super::convert::RenderState;
use super::pick::{PassGeometry, PassPipeline, PickUniforms};
use super::target::COLOR_FORMAT;

/// Additive blending, no depth test or write: each fragment adds its colour
/// (`debug_overdraw`), so a pixel shows how many fragments were drawn there.
pub(crate) fn overdraw_state(state: RenderState) -> RenderState {
    let add = wgpu::BlendComponent {
        src_factor: wgpu::BlendFactor::One,
        dst_factor: wgpu::BlendFactor::One,
        operation: wgpu::BlendOperation::Add,
    };
    RenderState {
        blend: Some(wgpu::BlendState {
            color: add,
            alpha: wgpu::BlendComponent::REPLACE,
        }),
        depth_test: false,
        depth_write: false,
        ..state
    }
}

/// The unique edges of `triangles` (vertex index triples) as a line list, each edge once
/// in the order first met.
pub(crate) fn triangle_edges(triangles: &[u32]) -> Vec<u32> {
    let mut seen = HashSet::new();
    let mut lines = Vec::new();
    for t in triangles.chunks_exact(3) {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            if a != b && seen.insert((a.min(b), a.max(b))) {
                lines.extend([a, b]);
            }
        }
    }
    lines
}

/// The wireframe view's line pass: one index buffer holding every surface's edges.
pub(crate) struct WireframePass {
    inner: PassPipeline,
    edges: Option<wgpu::Buffer>,
    /// Index range of each surface's edges in `edges` (by surface index).
    ranges: Vec<Range<u32>>,
}

impl WireframePass {
    /// `surfaces`: each surface's triangles (absolute vertex indices).
    pub fn new<'a>(
        ctx: &RenderContext,
        skinned: bool,
        surfaces: impl Iterator<Item = &'a [u32]>,
    ) -> Result<Self, RenderError> {
        let target = wgpu::ColorTargetState {
            format: COLOR_FORMAT,
            blend: Some(wgpu::BlendState {
                color: wgpu::BlendComponent {
                    src_factor: wgpu::BlendFactor::SrcAlpha,
                    dst_factor: wgpu::BlendFactor::OneMinusSrcAlpha,
                    operation: wgpu::BlendOperation::Add,
                },
                alpha: wgpu::BlendComponent {
                    src_factor: wgpu::BlendFactor::Zero,
                    dst_factor: wgpu::BlendFactor::One,
                    operation: wgpu::BlendOperation::Add,
                },
            }),
            write_mask: wgpu::ColorWrites::ALL,
        };
        // Lines are never culled; both faces' edges that are in front show.
        let inner = PassPipeline::new(
            ctx,
            skinned,
            None,
            "wireframe",
            "fs_wire",
            target,
            false,
            PassGeometry::Lines,
        )?;
        let mut all = Vec::new();
        let mut ranges = Vec::new();
        for triangles in surfaces {
            let start = all.len() as u32;
            all.extend(triangle_edges(triangles));
            ranges.push(start..all.len() as u32);
        }
        let edges = (!all.is_empty()).then(|| {
            ctx.device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("wireframe edges"),
                    contents: bytemuck::cast_slice(&all),
                    usage: wgpu::BufferUsages::INDEX,
                })
        });
        Ok(Self {
            inner,
            edges,
            ranges,
        })
    }

    /// Uploads the camera for the next [`WireframePass::draw`].
    pub fn write(&self, ctx: &RenderContext, uniforms: &PickUniforms) {
        ctx.queue
            .write_buffer(&self.inner.uniforms, 0, bytemuck::bytes_of(uniforms));
    }

    /// Draws the edges of the surfaces `visible` says are drawn, over a pass whose vertex
    /// buffer 0 (and 1 with `skin_palette`) are the scene's.
    pub fn draw<'p>(
        &'p self,
        pass: &mut wgpu::RenderPass<'p>,
        vertices: &'p wgpu::Buffer,
        skin: Option<(&'p wgpu::Buffer, &'p wgpu::BindGroup)>,
        visible: impl Fn(usize) -> bool,
    ) {
        let Some(edges) = &self.edges else { return };
        pass.set_pipeline(&self.inner.pipeline);
        pass.set_bind_group(0, &self.inner.bind_group, &[]);
        pass.set_index_buffer(edges.slice(..), wgpu::IndexFormat::Uint32);
        pass.set_vertex_buffer(0, vertices.slice(..));
        if let Some((influences, palette)) = skin {
            pass.set_vertex_buffer(1, influences.slice(..));
            pass.set_bind_group(1, palette, &[]);
        }
        for (surface, range) in self.ranges.iter().enumerate() {
            if !range.is_empty() && visible(surface) {
                pass.draw_indexed(range.clone(), 0, 0..1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quad_has_five_edges() {
        let lines = triangle_edges(&[0, 1, 2, 2, 1, 3]);
        assert_eq!(lines.len(), 10);
        assert_eq!(&lines[..6], &[0, 1, 1, 2, 2, 0]);
        // Degenerate edges are left out.
        assert!(triangle_edges(&[4, 4, 5]).len() == 2);
    }
}
