//! Pipeline cache: [`PipelineKey`] → `RenderPipeline`, synchronously or on a worker thread.
//!
//! A structural material edit produces a new shader key. Compiling its pipeline takes
//! from milliseconds (GPU drivers) to a second (lavapipe), so [`PipelineCache::request`]
//! queues it on a worker thread and reports [`PipelineStatus::Pending`]; meanwhile
//! [`MaterialPipeline::select`] draws with the ubershader, which interprets the same
//! program from a uniform buffer and gives identical pixels. When the specialized pipeline
//! is ready it is swapped in on the next frame. A shader that fails validation is an error
//! value: the draw keeps its last good pipeline.

use std::sync::mpsc::{Sender, channel};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use super::SharedError;
use super::convert::RenderState;
use super::layouts::{Layouts, capture};
use super::lru::LruMap;
use super::shader_cache::{ShaderCache, ShaderId};
use crate::gx::wgsl::interface::{GpuLineVertex, GpuVertex, VertexInputs};

/// Everything a render pipeline is made from.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PipelineKey {
    pub shader: ShaderId,
    pub state: RenderState,
    pub color_format: wgpu::TextureFormat,
    pub depth_format: Option<wgpu::TextureFormat>,
}

/// What [`PipelineCache::request`] knows about a key.
#[derive(Debug, Clone)]
pub enum PipelineStatus {
    Ready(Arc<wgpu::RenderPipeline>),
    /// Being built on the worker thread.
    Pending,
    Failed(SharedError),
}

type BuildResult = Result<Arc<wgpu::RenderPipeline>, SharedError>;

enum Slot {
    Pending,
    Done(BuildResult),
}

impl Slot {
    /// A pipeline being built stays (its builder will fill it in).
    fn evictable(&self) -> bool {
        matches!(self, Slot::Done(_))
    }
}

/// Stack of the threads that build pipelines: naga's WGSL front end recurses.
const BUILDER_STACK: usize = 16 << 20;

/// How many pipelines (built or failed) the cache keeps before forgetting the least
/// recently used.
pub const PIPELINE_CACHE_CAPACITY: usize = 512;

struct Shared {
    device: wgpu::Device,
    reported: Reported,
    layouts: Layouts,
    shaders: Arc<ShaderCache>,
    /// The driver's cache that compiled pipelines go into (see `pipeline_store`).
    driver_cache: Option<wgpu::PipelineCache>,
    slots: Mutex<LruMap<PipelineKey, Slot>>,
    /// Signalled whenever a slot leaves `Pending`.
    done: Condvar,
}

impl Shared {
    fn build(&self, key: &PipelineKey) -> BuildResult {
        build_pipeline(
            &self.device,
            &self.layouts,
            &self.shaders,
            self.driver_cache.as_ref(),
            key,
        )
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, LruMap<PipelineKey, Slot>> {
        self.slots
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn finish(&self, key: PipelineKey, result: BuildResult) {
        self.slots()
            .insert(key, Slot::Done(result), Slot::evictable);
        self.done.notify_all();
    }
}

/// Every attribute of [`GpuVertex`] (`gx/wgsl/interface.rs`).
const GPU_VERTEX_ATTRIBUTES: [wgpu::VertexAttribute; 12] = wgpu::vertex_attr_array![
    0 => Float32x3,
    1 => Float32x3,
    2 => Unorm8x4,
    3 => Unorm8x4,
    4 => Float32x2,
    5 => Float32x2,
    6 => Float32x2,
    7 => Float32x2,
    8 => Float32x2,
    9 => Float32x2,
    10 => Float32x2,
    11 => Float32x2,
];

/// The vertex buffer layout of [`GpuVertex`] with every attribute.
pub fn gpu_vertex_layout() -> wgpu::VertexBufferLayout<'static> {
    gpu_vertex_layout_of(&GPU_VERTEX_ATTRIBUTES)
}

fn gpu_vertex_layout_of(attributes: &[wgpu::VertexAttribute]) -> wgpu::VertexBufferLayout<'_> {
    wgpu::VertexBufferLayout {
        array_stride: std::mem::size_of::<GpuVertex>() as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes,
    }
}

/// The attributes of [`GpuVertex`] that `inputs` reads: lavapipe fetches every declared
/// attribute of every vertex, read or not.
fn gpu_vertex_attributes(inputs: VertexInputs) -> Vec<wgpu::VertexAttribute> {
    GPU_VERTEX_ATTRIBUTES
        .into_iter()
        .filter(|a| inputs.reads(a.shader_location))
        .collect()
}

/// Vertex buffer 1 of skinned draws: [`SkinVertex`] (bone indices and weights).
pub fn skin_vertex_layout() -> wgpu::VertexBufferLayout<'static> {
    const ATTRIBUTES: [wgpu::VertexAttribute; 2] = wgpu::vertex_attr_array![
        12 => Uint32x4,
        13 => Float32x4,
    ];
    wgpu::VertexBufferLayout {
        array_stride: std::mem::size_of::<SkinVertex>() as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &ATTRIBUTES,
    }
}

/// Vertex buffer 1 of GX line draws: [`GpuLineVertex`] (the other end, the side).
pub fn line_vertex_layout() -> wgpu::VertexBufferLayout<'static> {
    const ATTRIBUTES: [wgpu::VertexAttribute; 1] = wgpu::vertex_attr_array![
        14 => Float32x4,
    ];
    wgpu::VertexBufferLayout {
        array_stride: std::mem::size_of::<GpuLineVertex>() as u64,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &ATTRIBUTES,
    }
}

/// Per-vertex skinning input (vertex buffer 1, locations 12 and 13): up to four palette
/// indices and their weights, unused slots weight 0.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct SkinVertex {
    pub bones: [u32; 4],
    pub weights: [f32; 4],
}

impl ShaderId {
    /// Whether the shader draws GX line corners (vertex buffer 1, `gx::lines`).
    pub fn lines(&self) -> bool {
        match self {
            Self::Specialized(k) => k.vertex.line,
            Self::Uber(k) => k.vertex.line,
            Self::Source { .. } => false,
        }
    }

    /// The vertex attributes the shader reads.
    pub fn vertex_inputs(&self) -> VertexInputs {
        match self {
            Self::Specialized(k) => k.vertex.inputs(),
            Self::Uber(k) => k.vertex.inputs(),
            Self::Source { .. } => VertexInputs::ALL,
        }
    }

    /// Whether the shader's vertex stage is skinned (group 1 + vertex buffer 1).
    pub fn skinned(&self) -> bool {
        match self {
            Self::Specialized(k) => k.vertex.skinned,
            Self::Uber(k) => k.vertex.skinned,
            Self::Source { .. } => false,
        }
    }

    /// Whether the shader blends itself against a destination copy (group 2).
    pub fn reads_destination(&self) -> bool {
        match self {
            Self::Specialized(k) => k.fragment.reads_destination(),
            Self::Uber(_) | Self::Source { .. } => false,
        }
    }
}

/// Builds one pipeline (shader from the cache, naga-validated; wgpu errors captured).
pub fn build_pipeline(
    device: &wgpu::Device,
    layouts: &Layouts,
    shaders: &ShaderCache,
    driver_cache: Option<&wgpu::PipelineCache>,
    key: &PipelineKey,
) -> BuildResult {
    let shader = shaders.get(&key.shader)?;
    let skinned = key.shader.skinned();
    let second = if skinned {
        Some(skin_vertex_layout())
    } else if key.shader.lines() {
        Some(line_vertex_layout())
    } else {
        None
    };
    let attributes = gpu_vertex_attributes(key.shader.vertex_inputs());
    let buffers = [Some(gpu_vertex_layout_of(&attributes)), second];
    let buffers = if buffers[1].is_some() {
        &buffers[..]
    } else {
        &buffers[..1]
    };
    let layout = match (skinned, key.shader.reads_destination()) {
        (false, false) => &layouts.pipeline_layout,
        (true, false) => &layouts.skinned_pipeline_layout,
        (false, true) => &layouts.blending_pipeline_layout,
        (true, true) => &layouts.skinned_blending_pipeline_layout,
    };
    let pipeline = capture(device, "creating a render pipeline", || {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(&shader.label),
            layout: Some(layout),
            vertex: wgpu::VertexState {
                module: &shader.module,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers,
            },
            primitive: wgpu::PrimitiveState {
                topology: key.state.topology,
                strip_index_format: None,
                front_face: wgpu::FrontFace::Ccw,
                cull_mode: key.state.cull,
                unclipped_depth: false,
                polygon_mode: wgpu::PolygonMode::Fill,
                conservative: false,
            },
            depth_stencil: key.depth_format.map(|f| key.state.depth_stencil(f)),
            multisample: wgpu::MultisampleState::default(),
            fragment: Some(wgpu::FragmentState {
                module: &shader.module,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: key.color_format,
                    blend: key.state.blend,
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: driver_cache,
        })
    })?;
    Ok(Arc::new(pipeline))
}

/// Cache of render pipelines with a background builder.
pub struct PipelineCache {
    shared: Arc<Shared>,
    jobs: Mutex<Option<Sender<PipelineKey>>>,
    worker: Option<JoinHandle<()>>,
}

impl PipelineCache {
    pub fn new(device: wgpu::Device, layouts: Layouts, shaders: Arc<ShaderCache>) -> Self {
        Self::with_capacity(device, layouts, shaders, PIPELINE_CACHE_CAPACITY)
    }

    /// A cache keeping at most `capacity` built pipelines (plus those being built).
    pub fn with_capacity(
        device: wgpu::Device,
        layouts: Layouts,
        shaders: Arc<ShaderCache>,
        capacity: usize,
    ) -> Self {
        Self::with_driver_cache(device, layouts, shaders, capacity, None)
    }

    /// [`PipelineCache::with_capacity`], compiling into the driver's `driver_cache` (so a
    /// persisted one makes later runs compile nothing).
    pub fn with_driver_cache(
        device: wgpu::Device,
        layouts: Layouts,
        shaders: Arc<ShaderCache>,
        capacity: usize,
        driver_cache: Option<wgpu::PipelineCache>,
    ) -> Self {
        let shared = Arc::new(Shared {
            device,
            reported: Reported::default(),
            layouts,
            shaders,
            driver_cache,
            slots: Mutex::new(LruMap::new(capacity)),
            done: Condvar::new(),
        });
        let (tx, rx) = channel::<PipelineKey>();
        let worker_shared = shared.clone();
        let worker = std::thread::Builder::new()
            .name("tevscope pipeline builder".into())
            .stack_size(BUILDER_STACK)
            .spawn(move || {
                while let Ok(key) = rx.recv() {
                    let s = &worker_shared;
                    let result = s.build(&key);
                    s.finish(key, result);
                }
            })
            .map_err(|e| log::error!("cannot start the pipeline worker: {e}"))
            .ok();
        Self {
            shared,
            jobs: Mutex::new(worker.is_some().then_some(tx)),
            worker,
        }
    }

    /// The pipeline for `key`, built on this thread if needed (waits if the worker is
    /// already building it).
    pub fn get_blocking(&self, key: &PipelineKey) -> BuildResult {
        let mut slots = self.shared.slots();
        loop {
            match slots.get(key) {
                Some(Slot::Done(r)) => return r.clone(),
                Some(Slot::Pending) => {
                    slots = self
                        .shared
                        .done
                        .wait(slots)
                        .unwrap_or_else(|poisoned| poisoned.into_inner());
                }
                None => break,
            }
        }
        slots.insert(key.clone(), Slot::Pending, Slot::evictable);
        drop(slots);
        let s = &self.shared;
        let result = s.build(key);
        s.finish(key.clone(), result.clone());
        result
    }

    /// Builds every pipeline of `keys` not built yet, in parallel (shader generation, naga
    /// validation and the driver's compile all run on several threads), and waits for them.
    pub fn get_all_blocking(&self, keys: &[PipelineKey]) {
        self.build_parallel(keys, None);
        // Whatever a thread that failed to start left undone is built here.
        for key in keys {
            let _ = self.get_blocking(key);
        }
    }

    /// [`PipelineCache::get_all_blocking`] that starts no new build after `deadline`: the
    /// keys left are requested in the background instead. True when every key is built.
    pub fn get_all_until(&self, keys: &[PipelineKey], deadline: std::time::Instant) -> bool {
        let started = self.build_parallel(keys, Some(deadline));
        for key in &keys[started.min(keys.len())..] {
            let _ = self.request(key);
        }
        started >= keys.len()
    }

    /// Builds `keys` in order on parallel threads until they run out (or `deadline`
    /// passes); returns how many builds were started.
    fn build_parallel(&self, keys: &[PipelineKey], deadline: Option<std::time::Instant>) -> usize {
        use std::sync::atomic::Ordering;
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let next = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for _ in 0..threads.min(keys.len()) {
                let spawned = std::thread::Builder::new()
                    .name("tevscope pipeline builder".into())
                    .stack_size(BUILDER_STACK)
                    .spawn_scoped(scope, || {
                        while deadline.is_none_or(|d| std::time::Instant::now() < d) {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            let Some(key) = keys.get(i) else { break };
                            let _ = self.get_blocking(key);
                        }
                    });
                if let Err(e) = spawned {
                    log::warn!("cannot start a pipeline builder thread: {e}");
                }
            }
        });
        next.load(Ordering::Relaxed)
    }

    /// The pipeline for `key` if built; otherwise starts building it in the background.
    pub fn request(&self, key: &PipelineKey) -> PipelineStatus {
        let mut slots = self.shared.slots();
        match slots.get(key) {
            Some(Slot::Done(Ok(p))) => return PipelineStatus::Ready(p.clone()),
            Some(Slot::Done(Err(e))) => return PipelineStatus::Failed(e.clone()),
            Some(Slot::Pending) => return PipelineStatus::Pending,
            None => {}
        }
        let jobs = self
            .jobs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let sent = jobs.as_ref().is_some_and(|tx| tx.send(key.clone()).is_ok());
        if sent {
            slots.insert(key.clone(), Slot::Pending, Slot::evictable);
            PipelineStatus::Pending
        } else {
            // No worker: build here.
            drop(jobs);
            drop(slots);
            match self.get_blocking(key) {
                Ok(p) => PipelineStatus::Ready(p),
                Err(e) => PipelineStatus::Failed(e),
            }
        }
    }

    /// Blocks until no pipeline is being built in the background.
    pub fn wait_idle(&self) {
        let mut slots = self.shared.slots();
        while slots.values().any(|s| matches!(s, Slot::Pending)) {
            slots = self
                .shared
                .done
                .wait(slots)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
        }
    }

    /// True the first time the failure `e` (of a pipeline or its shader) is asked about:
    /// the caller then logs it, so each failure is logged once however many draws meet it.
    pub fn first_report(&self, e: &SharedError) -> bool {
        self.shared.reported.first(e)
    }

    /// Number of pipelines built or failed.
    pub fn len(&self) -> usize {
        self.shared
            .slots()
            .values()
            .filter(|s| matches!(s, Slot::Done(_)))
            .count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Drop for PipelineCache {
    fn drop(&mut self) {
        // Closing the channel ends the worker after its current job.
        self.jobs
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        if let Some(w) = self.worker.take() {
            let _ = w.join();
        }
    }
}

/// The errors already logged, so that an error shared by several requests (one shader
/// behind a triangle and a line pipeline, several materials, the viewer's preview and its
/// scene) is logged once. Weak: an entry keeps no error alive, and while it exists the
/// error's allocation cannot be reused by another.
#[derive(Default)]
struct Reported(Mutex<Vec<std::sync::Weak<super::RenderError>>>);

impl Reported {
    /// True the first time `e` is asked about.
    fn first(&self, e: &SharedError) -> bool {
        let mut seen = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        seen.retain(|w| w.strong_count() > 0);
        if seen
            .iter()
            .any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(e)))
        {
            return false;
        }
        seen.push(Arc::downgrade(e));
        true
    }
}

/// Which pipeline a draw uses this frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SelectedPath {
    Specialized,
    /// The specialized pipeline is still compiling.
    Uber,
    /// The current structure failed; drawing with the last pipeline that worked.
    LastGood,
}

#[derive(Debug, Clone)]
pub struct Selected {
    pub pipeline: Arc<wgpu::RenderPipeline>,
    pub path: SelectedPath,
}

/// Per-draw pipeline choice: specialized when ready, ubershader while it compiles, the
/// last good pipeline when the current structure fails.
#[derive(Debug, Default)]
pub struct MaterialPipeline {
    last_good: Option<(PipelineKey, Arc<wgpu::RenderPipeline>)>,
    /// The error of the current structure, if it failed (shown in the UI with its WGSL).
    pub last_error: Option<SharedError>,
}

/// Which shader path draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShaderPath {
    /// The specialized shader (the ubershader stands in while it compiles).
    Specialized,
    /// The ubershader only.
    Uber,
}

impl MaterialPipeline {
    pub fn select(
        &mut self,
        cache: &PipelineCache,
        specialized: &PipelineKey,
        uber: &PipelineKey,
        path: ShaderPath,
    ) -> Result<Selected, SharedError> {
        if path == ShaderPath::Uber {
            return match cache.get_blocking(uber) {
                Ok(p) => {
                    self.last_good = Some((uber.clone(), p.clone()));
                    self.last_error = None;
                    Ok(Selected {
                        pipeline: p,
                        path: SelectedPath::Uber,
                    })
                }
                Err(e) => self.fallback(e),
            };
        }
        match cache.request(specialized) {
            PipelineStatus::Ready(p) => {
                self.last_good = Some((specialized.clone(), p.clone()));
                self.last_error = None;
                Ok(Selected {
                    pipeline: p,
                    path: SelectedPath::Specialized,
                })
            }
            PipelineStatus::Pending => match cache.get_blocking(uber) {
                Ok(p) => Ok(Selected {
                    pipeline: p,
                    path: SelectedPath::Uber,
                }),
                Err(e) => self.fallback(e),
            },
            PipelineStatus::Failed(e) => {
                if cache.first_report(&e) {
                    log::error!(
                        "material pipeline failed, keeping the last good one: {}",
                        e.report()
                    );
                }
                self.last_error = Some(e.clone());
                if self.last_good.is_some() {
                    return self.fallback(e);
                }
                // Nothing drawn yet: the ubershader runs the same program.
                cache
                    .get_blocking(uber)
                    .map(|p| Selected {
                        pipeline: p,
                        path: SelectedPath::Uber,
                    })
                    .map_err(|_| e)
            }
        }
    }

    fn fallback(&self, e: SharedError) -> Result<Selected, SharedError> {
        match &self.last_good {
            Some((_, p)) => Ok(Selected {
                pipeline: p.clone(),
                path: SelectedPath::LastGood,
            }),
            None => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pipeline declares the attributes its shader reads, at their offsets in the one
    /// interleaved vertex.
    #[test]
    fn a_pipeline_declares_only_the_attributes_read() {
        let inputs = VertexInputs {
            colors: [false, true],
            tex: 0b0000_0101,
        };
        let attributes = gpu_vertex_attributes(inputs);
        let locations: Vec<u32> = attributes.iter().map(|a| a.shader_location).collect();
        assert_eq!(locations, [0, 1, 3, 4, 6]);
        for a in &attributes {
            assert_eq!(*a, GPU_VERTEX_ATTRIBUTES[a.shader_location as usize]);
        }
        assert_eq!(gpu_vertex_attributes(VertexInputs::ALL).len(), 12);
    }

    #[test]
    fn each_error_is_reported_once() {
        let reported = Reported::default();
        let shader = |name: &str| {
            Arc::new(super::super::RenderError::Shader {
                shader: name.into(),
                source: crate::gx::wgsl::validate("fn broken( {".into())
                    .expect_err("does not parse"),
            })
        };
        let a = shader("a");
        let also_a = a.clone();
        let b = shader("b");
        assert!(reported.first(&a));
        assert!(!reported.first(&also_a), "the same error, shared");
        assert!(reported.first(&b), "another error");
        drop((a, also_a));
        let c = shader("c");
        assert!(reported.first(&c), "a new error after the first is gone");
        assert!(!reported.first(&c));
    }
}
