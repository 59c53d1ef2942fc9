//! Everything that touches wgpu.
//!
//! - [`context`]: [`RenderContext`] (instance, adapter, device, queue, the shared bind-group
//!   layouts, and the shader/pipeline/sampler caches).
//! - [`layouts`]: the bind-group layouts every material pipeline shares, and the error
//!   scope around creating GPU objects.
//! - [`convert`]: GX render state → wgpu state (blend, depth, cull), in one reviewable place.
//! - [`shader_cache`]: [`ShaderId`] → naga-validated WGSL → `ShaderModule`.
//! - [`pipeline_cache`]: [`PipelineKey`] → `RenderPipeline`, built synchronously or on a
//!   worker thread ([`PipelineCache::request`]); [`MaterialPipeline`] picks specialized,
//!   ubershader or last-good.
//! - [`texture`]: RGBA8 upload with mips, samplers, placeholders.
//! - [`material`]: a material's uniform buffers and bind groups ([`GpuMaterial`]).
//! - [`target`]: offscreen colour + depth target and readback to [`RgbaImage`].
//! - [`scene`]: [`Scene`], a whole model (skinned, animated, lit) drawn as Prime draws it.
//! - [`quad`]: drawing a material on a screen-covering quad (CLI preview, TEV tests).
//! - [`overview`]: the world overview (room geometry from above, flat-shaded per room).
//! - [`pick`]: the ID pass behind [`Scene::pick`] (surface and material under a pixel).
//! - [`probe`]: vertex lists as one-pixel points, read back (vertex-stage GPU tests).
//! - `heap`: keeps the pages a software GPU frees every draw (glibc's trim threshold).

pub mod compare;
pub mod context;
pub mod convert;
pub(crate) mod debug_pass;
mod heap;
pub mod layouts;
pub mod lru;
pub mod material;
pub mod overview;
pub mod pick;
pub mod pipeline_cache;
pub mod pipeline_store;
pub mod plan;
pub mod probe;
pub mod quad;
pub mod scene;
pub mod shader_cache;
pub mod skin_probe;
pub mod target;
pub mod texture;

pub use context::{AdapterPreference, RenderContext};
pub use material::GpuMaterial;
pub use pick::PickHit;
pub use pipeline_cache::{
    MaterialPipeline, PipelineCache, PipelineKey, PipelineStatus, ShaderPath,
};
pub use quad::{QuadOptions, QuadRenderer, render_material_quad};
pub use scene::{ClearMode, FrameStats, Scene, SceneOptions};
pub use shader_cache::{ShaderCache, ShaderId};
pub use target::{ImageAlpha, OffscreenTarget, RgbaImage};
pub use texture::SamplerMode;

use std::sync::Arc;

/// Errors of the render layer. Causes travel as `#[source]` (print the chain, e.g. with
/// [`RenderError::report`] or anyhow's `{:#}`), never folded into the message.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error(
        "no graphics adapter available (backends tried: {backends:?}); on Linux install \
         mesa-vulkan-drivers (lavapipe)"
    )]
    NoAdapter { backends: Vec<wgpu::Backends> },
    #[error("could not open the graphics device on {adapter}")]
    Device {
        adapter: String,
        #[source]
        source: wgpu::RequestDeviceError,
    },
    /// A generated shader that naga rejected (a generator bug; the error keeps the source).
    #[error("generated shader {shader} rejected")]
    Shader {
        /// The shader's label ([`ShaderId::label`]: its key's hash, or a hand-written name).
        shader: String,
        #[source]
        source: crate::gx::wgsl::ShaderError,
    },
    /// A wgpu validation or out-of-memory error captured by an error scope.
    #[error("wgpu error while {what}")]
    Wgpu {
        what: String,
        #[source]
        source: wgpu::Error,
    },
    /// Texture data that cannot be uploaded as it is.
    #[error("texture {label} cannot be uploaded")]
    Texture {
        label: String,
        #[source]
        source: crate::model::TextureError,
    },
    /// A texture or target larger than the device allows (or empty).
    #[error("{what} of {width}x{height} is outside 1..={limit} texels a side")]
    Size {
        what: &'static str,
        width: u32,
        height: u32,
        limit: u32,
    },
    /// More probe vertices than a probe tile has pixels.
    #[error("{count} vertices do not fit a {width}x{height} probe tile")]
    ProbeTile {
        count: usize,
        width: u32,
        height: u32,
    },
    /// A read-back region outside its texture.
    #[error(
        "region {width}x{height} at ({x}, {y}) outside the {texture_width}x{texture_height} texture"
    )]
    Region {
        x: u32,
        y: u32,
        width: u32,
        height: u32,
        texture_width: u32,
        texture_height: u32,
    },
    /// Waiting for the GPU failed.
    #[error("waiting for the GPU failed")]
    Poll(#[source] wgpu::PollError),
    /// Mapping a read-back buffer failed.
    #[error("mapping the read-back buffer failed")]
    Map(#[source] wgpu::BufferAsyncError),
    #[error("reading the mapped read-back buffer failed")]
    MapRange(#[source] wgpu::MapRangeError),
    /// The mapping callback was dropped without answering (the device was lost).
    #[error("the read-back buffer was never mapped (device lost?)")]
    MapDropped(#[source] std::sync::mpsc::RecvError),
    /// Model assets that cannot be drawn.
    #[error("the skeleton has {bones} bones; the skinning palette holds {max}")]
    SkeletonTooLarge { bones: usize, max: usize },
    /// An error kept in a cache (a shader or pipeline that failed once), handed on.
    #[error(transparent)]
    Cached(#[from] SharedError),
}

impl RenderError {
    pub(crate) fn wgpu(what: impl Into<String>, e: wgpu::Error) -> Self {
        Self::Wgpu {
            what: what.into(),
            source: e,
        }
    }

    /// The error and its causes on one line (`a: b: c`), as anyhow's `{:#}` shows them:
    /// for front ends that show a message, not a chain.
    pub fn report(&self) -> String {
        let mut out = self.to_string();
        let mut source = std::error::Error::source(self);
        while let Some(s) = source {
            out.push_str(": ");
            out.push_str(&s.to_string());
            source = s.source();
        }
        out
    }
}

/// Shared form of errors kept in caches.
pub type SharedError = Arc<RenderError>;
