//! Shader cache: [`ShaderId`] → WGSL → naga validation → `wgpu::ShaderModule`.
//!
//! naga runs before wgpu sees a shader, so a generator bug becomes a [`RenderError::Shader`]
//! carrying the WGSL and naga's report, never a device error; failures are cached too, so
//! a broken key is reported once.

use super::lru::LruMap;
use std::sync::{Arc, Mutex};

use super::layouts::capture;
use super::{RenderError, SharedError};
use crate::gx::key::{ShaderKey, UberKey};
use crate::gx::wgsl;

/// What a shader module is made from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ShaderId {
    /// The specialized shader of a material structure.
    Specialized(ShaderKey),
    /// The ubershader for a vertex stage.
    Uber(UberKey),
    /// Hand-written or externally supplied WGSL (named for labels).
    Source { name: String, wgsl: Arc<str> },
}

impl ShaderId {
    /// The WGSL of this shader.
    pub fn wgsl(&self) -> String {
        match self {
            Self::Specialized(k) => wgsl::generate(k),
            Self::Uber(k) => wgsl::generate_uber(k),
            Self::Source { wgsl, .. } => wgsl.to_string(),
        }
    }

    /// A label naming the variant (shows in graphics debuggers and logs).
    pub fn label(&self) -> String {
        match self {
            Self::Specialized(k) => format!("tev {:016x}", k.short_hash()),
            Self::Uber(k) => format!("tev uber {:016x}", k.short_hash()),
            Self::Source { name, .. } => name.clone(),
        }
    }
}

/// A validated shader and its module.
#[derive(Debug)]
pub struct CompiledShader {
    pub label: String,
    pub source: String,
    pub module: wgpu::ShaderModule,
}

/// Thread-safe cache of compiled shaders (the pipeline worker compiles from it too).
pub struct ShaderCache {
    device: wgpu::Device,
    shaders: Mutex<LruMap<ShaderId, Result<Arc<CompiledShader>, SharedError>>>,
}

/// How many shaders the cache keeps before forgetting the least recently used.
pub const SHADER_CACHE_CAPACITY: usize = 512;

impl ShaderCache {
    pub fn new(device: wgpu::Device) -> Self {
        Self {
            device,
            shaders: Mutex::new(LruMap::new(SHADER_CACHE_CAPACITY)),
        }
    }

    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, LruMap<ShaderId, Result<Arc<CompiledShader>, SharedError>>> {
        self.shaders
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The module for `id`, generating, validating and compiling it on first use.
    pub fn get(&self, id: &ShaderId) -> Result<Arc<CompiledShader>, SharedError> {
        if let Some(r) = self.lock().get(id) {
            return r.clone();
        }
        // Compile outside the lock: generation and naga take milliseconds and the worker
        // thread shares this cache.
        let result = self.compile(id);
        let mut shaders = self.lock();
        // Another thread may have compiled it meanwhile: keep the first.
        if let Some(r) = shaders.get(id) {
            return r.clone();
        }
        shaders.insert(id.clone(), result.clone(), |_| true);
        result
    }

    fn compile(&self, id: &ShaderId) -> Result<Arc<CompiledShader>, SharedError> {
        let label = id.label();
        // Not logged here: whoever asked for the shader reports the error once (the material
        // pipeline's log line, or the CLI's error).
        let validated = wgsl::validate(id.wgsl()).map_err(|source| {
            Arc::new(RenderError::Shader {
                shader: label.clone(),
                source,
            })
        })?;
        let module = capture(&self.device, "creating a shader module", || {
            self.device
                .create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(&label),
                    source: wgpu::ShaderSource::Wgsl(validated.source.as_str().into()),
                })
        })?;
        Ok(Arc::new(CompiledShader {
            label,
            source: validated.source,
            module,
        }))
    }

    /// Number of cached entries (compiled or failed).
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
