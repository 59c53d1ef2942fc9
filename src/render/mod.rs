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
//! - [`camera`]: the orbit camera in Prime's Z-up world.
//! - [`scene`]: [`Scene`], a whole model (skinned, animated, lit) drawn as Prime draws it.
//! - [`quad`]: drawing a material on a screen-covering quad (CLI preview, TEV tests).
//! - [`pick`]: the ID pass behind [`Scene::pick`] (surface and material under a pixel).
//! - [`probe`]: vertex lists as one-pixel points, read back (vertex-stage GPU tests).

pub mod camera;
pub mod context;
pub mod convert;
pub mod layouts;
pub mod lru;
pub mod material;
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

pub use camera::{CameraMode, FlyMove, OrbitCamera};
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

/// Errors of the render layer.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RenderError {
    #[error("no graphics adapter available ({0})")]
    NoAdapter(String),
    #[error("could not open the graphics device: {0}")]
    Device(String),
    /// A generated shader that naga rejected (a generator bug; the source is kept).
    #[error("generated shader rejected: {0}")]
    Shader(#[from] crate::gx::wgsl::ShaderError),
    /// A wgpu validation or out-of-memory error captured by an error scope.
    #[error("wgpu error while {what}: {message}")]
    Wgpu { what: String, message: String },
    #[error("invalid texture data: {0}")]
    Texture(String),
    #[error("readback failed: {0}")]
    Readback(String),
    #[error("PNG encoding failed: {0}")]
    Encode(String),
    /// Model assets that cannot be drawn (a skin that does not fit the skeleton, …).
    #[error("model: {0}")]
    Model(String),
}

impl RenderError {
    pub(crate) fn wgpu(what: impl Into<String>, e: &wgpu::Error) -> Self {
        Self::Wgpu {
            what: what.into(),
            message: e.to_string(),
        }
    }
}

/// Shared form of errors kept in caches.
pub type SharedError = Arc<RenderError>;
