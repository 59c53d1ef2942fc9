//! [`RenderContext`]: the wgpu device plus everything shared between draws.

use std::sync::Arc;

use super::RenderError;
use super::layouts::Layouts;
use super::pipeline_cache::{PIPELINE_CACHE_CAPACITY, PipelineCache};
use super::pipeline_store::PipelineStore;
use super::shader_cache::ShaderCache;
use super::texture::{GpuTexture, SamplerCache};
use crate::model::TextureData;

/// Which adapter to open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AdapterPreference {
    /// A CPU rasterizer (lavapipe, llvmpipe, WARP) if present, else any: deterministic
    /// results for tests.
    Software,
    /// A discrete/integrated GPU if present, else any (the viewer).
    Hardware,
}

/// Instance, adapter, device and queue, the shared layouts, and the caches.
pub struct RenderContext {
    pub instance: wgpu::Instance,
    pub adapter: wgpu::Adapter,
    pub device: wgpu::Device,
    pub queue: wgpu::Queue,
    pub adapter_info: wgpu::AdapterInfo,
    pub layouts: Layouts,
    pub shaders: Arc<ShaderCache>,
    pub pipelines: PipelineCache,
    /// Compiled pipelines persisted across runs, when the backend keeps them.
    pub pipeline_store: Option<PipelineStore>,
    pub samplers: SamplerCache,
    /// 1×1 white texture bound to texture maps a material does not provide (so a stage
    /// sampling an unloaded map reads 255, like a stage without a map).
    pub placeholder: GpuTexture,
}

impl RenderContext {
    /// Opens a device on the preferred kind of adapter (Vulkan, Metal or DX12, then GL;
    /// `WGPU_BACKEND` narrows the choice), with compiled pipelines persisted in the user's
    /// cache folder ([`PipelineStore::default_dir`]).
    pub fn new(preference: AdapterPreference) -> Result<Self, RenderError> {
        Self::with_pipeline_store(preference, PipelineStore::default_dir().as_deref())
    }

    /// [`RenderContext::new`] with compiled pipelines persisted in `store_dir` (None: kept
    /// for this run only).
    pub fn with_pipeline_store(
        preference: AdapterPreference,
        store_dir: Option<&std::path::Path>,
    ) -> Result<Self, RenderError> {
        super::heap::keep_freed_pages();
        // Primary backends first; GL (llvmpipe, old drivers) only when they offer nothing
        // suitable — initialising EGL is slow and noisy on headless machines.
        let env = wgpu::Backends::from_env();
        let tiers = match env {
            Some(b) => vec![b],
            None => vec![wgpu::Backends::PRIMARY, wgpu::Backends::GL],
        };
        let rank = |a: &wgpu::Adapter| {
            let software = a.get_info().device_type == wgpu::DeviceType::Cpu;
            match preference {
                AdapterPreference::Software => !software as u8,
                AdapterPreference::Hardware => software as u8,
            }
        };
        let mut best: Option<(wgpu::Instance, wgpu::Adapter)> = None;
        for &backends in &tiers {
            let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
            desc.backends = backends;
            let instance = wgpu::Instance::new(desc);
            let adapters = pollster::block_on(instance.enumerate_adapters(backends));
            if let Some(adapter) = adapters.into_iter().min_by_key(rank) {
                let preferred = rank(&adapter) == 0;
                if best.as_ref().is_none_or(|(_, b)| rank(b) > rank(&adapter)) {
                    best = Some((instance, adapter));
                }
                if preferred {
                    break;
                }
            }
        }
        let Some((instance, adapter)) = best else {
            return Err(RenderError::NoAdapter { backends: tiers });
        };
        let adapter_info = adapter.get_info();
        let store_dir = store_dir.filter(|_| PipelineStore::supported(&adapter));
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("tevscope device"),
            required_features: if store_dir.is_some() {
                wgpu::Features::PIPELINE_CACHE
            } else {
                wgpu::Features::empty()
            },
            required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .map_err(|source| RenderError::Device {
            adapter: adapter_info.name.clone(),
            source,
        })?;
        // Never panic on an uncaught wgpu error: the viewer logs it and keeps running.
        device.on_uncaptured_error(Arc::new(|e: wgpu::Error| {
            log::error!("uncaptured wgpu error: {e}");
        }));
        let layouts = Layouts::new(&device);
        let shaders = Arc::new(ShaderCache::new(device.clone()));
        let pipeline_store =
            store_dir.and_then(|dir| PipelineStore::open(&device, &adapter_info, dir));
        let pipelines = PipelineCache::with_driver_cache(
            device.clone(),
            layouts.clone(),
            shaders.clone(),
            PIPELINE_CACHE_CAPACITY,
            pipeline_store.as_ref().map(|s| s.cache().clone()),
        );
        let samplers = SamplerCache::default();
        let placeholder = GpuTexture::upload(
            &device,
            &queue,
            &TextureData::solid(1, 1, [255; 4]),
            "placeholder (white)",
        )?;
        Ok(Self {
            instance,
            adapter,
            device,
            queue,
            adapter_info,
            layouts,
            shaders,
            pipelines,
            pipeline_store,
            samplers,
            placeholder,
        })
    }

    /// A software context for tests, or None — after a loud message — when this machine
    /// has no adapter at all, so GPU tests skip cleanly instead of failing.
    pub fn for_tests() -> Option<Self> {
        // Tests keep no pipelines across runs: each run starts from the same state.
        match Self::with_pipeline_store(AdapterPreference::Software, None) {
            Ok(ctx) => {
                eprintln!(
                    "GPU tests on {} ({:?}, {:?})",
                    ctx.adapter_info.name, ctx.adapter_info.backend, ctx.adapter_info.device_type
                );
                Some(ctx)
            }
            Err(e) => {
                eprintln!(
                    "\n!!!!!!!! NO GPU ADAPTER ({e}) — skipping GPU tests.\n!!!!!!!! Install lavapipe (apt-get install mesa-vulkan-drivers libvulkan1) to run them.\n"
                );
                None
            }
        }
    }

    /// Blocks until the GPU has finished all submitted work.
    pub fn wait_idle(&self) -> Result<(), RenderError> {
        self.device
            .poll(wgpu::PollType::Wait {
                submission_index: None,
                timeout: None,
            })
            .map(|_| ())
            .map_err(RenderError::Poll)
    }
}
