//! The material preview quad (also the TXTR preview) and its GPU resources.

use super::*;

/// The material preview quad and its GPU resources.
pub struct QuadView {
    pub(super) quad: QuadRenderer,
    pub(super) gpu: GpuMaterial,
    pub(super) pipeline: MaterialPipeline,
    pub(super) textures: Vec<Option<TextureData>>,
    pub(super) uploaded: Vec<Option<GpuTexture>>,
    pub(super) sampling: Sampling,
    pub(super) revision: u64,
    /// Vertex-side uniforms of the last frame (the inspector's CPU trace uses them).
    pub draw: DrawUniforms,
}

impl QuadView {
    fn bound(&self) -> Vec<Option<BoundTexture>> {
        self.uploaded
            .iter()
            .zip(&self.textures)
            .map(|(gpu, data)| {
                let gpu = gpu.as_ref()?;
                let wrap = Wrap::Repeat;
                let sampler = match self.sampling {
                    Sampling::Nearest => SamplerMode::Nearest { wrap },
                    Sampling::Gx => SamplerMode::Gx {
                        wrap,
                        mip_count: data.as_ref().map_or(1, |d| d.levels.len() as u32),
                    },
                };
                Some(BoundTexture {
                    texture: gpu.clone(),
                    sampler,
                })
            })
            .collect()
    }

    pub fn new(
        ctx: &RenderContext,
        edit: &MaterialEdit,
        textures: &[Option<TextureData>],
        sampling: Sampling,
    ) -> Result<Self, String> {
        let quad = QuadRenderer::new(ctx, &QuadGeometry::default(), &DrawUniforms::default());
        let uploaded = textures
            .iter()
            .enumerate()
            .map(|(k, t)| {
                t.as_ref()
                    .map(|t| GpuTexture::upload(&ctx.device, &ctx.queue, t, &format!("map {k}")))
                    .transpose()
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.report())?;
        let mut view = Self {
            gpu: GpuMaterial::with_program(
                ctx,
                &edit.material,
                quad_program(edit),
                quad.draw_uniforms.as_entire_buffer_binding(),
                &[],
            ),
            quad,
            pipeline: MaterialPipeline::default(),
            textures: textures.to_vec(),
            uploaded,
            sampling,
            revision: edit.revision,
            draw: DrawUniforms::default(),
        };
        view.rebind(ctx, edit);
        Ok(view)
    }

    pub(super) fn rebind(&mut self, ctx: &RenderContext, edit: &MaterialEdit) {
        let bound = self.bound();
        self.gpu = GpuMaterial::with_program(
            ctx,
            &edit.material,
            quad_program(edit),
            self.quad.draw_uniforms.as_entire_buffer_binding(),
            &bound,
        );
        self.revision = edit.revision;
    }
}

/// The edited program as the quad draws it: the quad shows the TEV output (or host
/// blending over the background), never a shader blending against a destination copy.
pub(super) fn quad_program(edit: &MaterialEdit) -> crate::gx::tev::TevProgram {
    let mut program = edit.program.clone();
    program.options.exact_blend = false;
    program
}
