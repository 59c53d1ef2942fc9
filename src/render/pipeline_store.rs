//! Compiled pipelines kept across runs: wgpu's pipeline cache (Vulkan drivers fill it), read
//! from the user's cache folder when a context opens and written back when it closes, so a
//! model opened a second time finds its pipelines already compiled.
//!
//! The folder is `$TEVSCOPE_CACHE_DIR`, else `$XDG_CACHE_HOME/tevscope`, else
//! `~/.cache/tevscope`; `TEVSCOPE_PIPELINE_CACHE=off` turns the store off. One file per
//! driver ([`wgpu::util::pipeline_cache_key`]); a file from another driver version is
//! ignored by the driver and replaced.

use std::path::{Path, PathBuf};

/// The driver's pipeline cache and the file it persists to.
pub struct PipelineStore {
    cache: wgpu::PipelineCache,
    path: PathBuf,
    /// Bytes read at start (0 when the run began cold).
    pub loaded_bytes: usize,
}

impl PipelineStore {
    /// The folder the store uses by default, or None when turned off or no home is known.
    pub fn default_dir() -> Option<PathBuf> {
        if std::env::var("TEVSCOPE_PIPELINE_CACHE")
            .is_ok_and(|v| matches!(v.to_ascii_lowercase().as_str(), "off" | "0" | "false"))
        {
            return None;
        }
        let env = |k: &str| {
            std::env::var_os(k)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
        };
        env("TEVSCOPE_CACHE_DIR")
            .or_else(|| env("XDG_CACHE_HOME").map(|d| d.join("tevscope")))
            .or_else(|| env("HOME").map(|h| h.join(".cache/tevscope")))
    }

    /// Whether `adapter` can keep a pipeline cache (the device must then be created with
    /// [`wgpu::Features::PIPELINE_CACHE`]).
    pub fn supported(adapter: &wgpu::Adapter) -> bool {
        adapter.features().contains(wgpu::Features::PIPELINE_CACHE)
            && wgpu::util::pipeline_cache_key(&adapter.get_info()).is_some()
    }

    /// Opens the store in `dir` for `device` (created with the feature), reading any saved
    /// data. None when the backend keeps no cache.
    pub fn open(device: &wgpu::Device, info: &wgpu::AdapterInfo, dir: &Path) -> Option<Self> {
        if !device.features().contains(wgpu::Features::PIPELINE_CACHE) {
            return None;
        }
        let path = dir.join(wgpu::util::pipeline_cache_key(info)?);
        let data = std::fs::read(&path).ok();
        // SAFETY: `data` is only ever what `PipelineCache::get_data` returned for a device
        // with this cache key (this module writes the file, atomically); the driver validates
        // its header against its own version and falls back to an empty cache otherwise.
        #[allow(unsafe_code)]
        let cache = unsafe {
            device.create_pipeline_cache(&wgpu::PipelineCacheDescriptor {
                label: Some("tevscope pipeline store"),
                data: data.as_deref(),
                fallback: true,
            })
        };
        Some(Self {
            cache,
            path,
            loaded_bytes: data.map_or(0, |d| d.len()),
        })
    }

    /// The cache to name in pipeline descriptors.
    pub fn cache(&self) -> &wgpu::PipelineCache {
        &self.cache
    }

    /// Writes the cache to its file (a temporary file renamed over the old one, so a crash
    /// never leaves half a file).
    pub fn save(&self) -> std::io::Result<()> {
        let Some(data) = self.cache.get_data() else {
            return Ok(());
        };
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let temp = self
            .path
            .with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&temp, &data)?;
        std::fs::rename(&temp, &self.path)
    }
}

impl Drop for PipelineStore {
    fn drop(&mut self) {
        if let Err(e) = self.save() {
            log::warn!(
                "cannot save the pipeline cache {}: {e}",
                self.path.display()
            );
        }
    }
}
