//! The winit event loop: window, wgpu surface, egui-winit input and egui-wgpu painting.
//!
//! Each redraw runs the egui panels (which only edit [`AppState`] and queue
//! [`Requests`](super::state::Requests)), then carries the requests out on the GPU
//! (open, viewport resize, inspect, screenshot), renders the viewport's offscreen target
//! and paints egui — with the target as an image — onto the window.

use std::sync::Arc;
use std::time::Instant;

use winit::application::ApplicationHandler;
use winit::event::WindowEvent;
use winit::event_loop::{ActiveEventLoop, ControlFlow};
use winit::window::{Window, WindowId};

use crate::render::{AdapterPreference, RenderContext};

use super::ViewerOptions;
use super::compositor::{Compositor, ViewImage};
use super::edit::trace_quad_pixel;
use super::panels::show;
use super::state::AppState;
use super::view_sync::shortcuts;
pub use super::view_sync::{pick, sync_view};
use super::viewport::Viewport;

struct Gpu {
    ctx: RenderContext,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    egui_renderer: egui_wgpu::Renderer,
    viewport: Viewport,
    compositor: Compositor,
}

impl Gpu {
    fn new(window: Arc<Window>) -> anyhow::Result<Self> {
        let ctx = RenderContext::new(AdapterPreference::Hardware)?;
        let surface = ctx.instance.create_surface(window.clone())?;
        let caps = surface.get_capabilities(&ctx.adapter);
        if caps.formats.is_empty() {
            anyhow::bail!(
                "the adapter {} cannot present to this window",
                ctx.adapter_info.name
            );
        }
        let format =
            egui_wgpu::preferred_framebuffer_format(&caps.formats).unwrap_or(caps.formats[0]);
        let size = window.inner_size();
        let compositor = Compositor::new(format, caps.usages);
        let config = wgpu::SurfaceConfiguration {
            usage: compositor.surface_usages(),
            format,
            color_space: wgpu::SurfaceColorSpace::Auto,
            width: size.width.max(1),
            height: size.height.max(1),
            present_mode: wgpu::PresentMode::AutoVsync,
            desired_maximum_frame_latency: 2,
            alpha_mode: caps.alpha_modes[0],
            view_formats: vec![],
        };
        surface.configure(&ctx.device, &config);
        let mut egui_renderer =
            egui_wgpu::Renderer::new(&ctx.device, format, egui_wgpu::RendererOptions::default());
        let viewport = Viewport::with_display_format(&ctx, &mut egui_renderer, format)
            .map_err(|e| anyhow::anyhow!(e))?;
        Ok(Self {
            ctx,
            surface,
            config,
            egui_renderer,
            viewport,
            compositor,
        })
    }

    fn resize(&mut self, width: u32, height: u32) {
        if width == 0 || height == 0 {
            return;
        }
        self.config.width = width;
        self.config.height = height;
        self.surface.configure(&self.ctx.device, &self.config);
    }
}

struct App {
    options: ViewerOptions,
    window: Option<Arc<Window>>,
    egui_ctx: egui::Context,
    egui_state: Option<egui_winit::State>,
    gpu: Option<Gpu>,
    state: AppState,
    last_frame: Instant,
    pending_textures: egui::TexturesDelta,
    /// When egui wants the next frame without new input.
    next_repaint: Option<Instant>,
    /// Set when the window or GPU could not be created; `run` returns it.
    fatal: Option<anyhow::Error>,
    /// The user confirmed closing the window.
    exit: bool,
}

impl App {
    fn new(options: ViewerOptions) -> Self {
        let start_dir = options
            .file
            .as_deref()
            .and_then(|f| {
                let (path, _) = crate::load::source::split_spec(f).ok()?;
                path.parent().map(std::path::Path::to_path_buf)
            })
            .filter(|p| !p.as_os_str().is_empty())
            .or_else(|| std::env::current_dir().ok())
            .unwrap_or_else(|| ".".into());
        let mut state = AppState::new(start_dir);
        match &options.file {
            Some(f) => state.requests.open = Some(f.clone()),
            None => {
                state.notice = Some(
                    "No file given. Browse on the left, drop a file on the window, or type a spec above."
                        .into(),
                )
            }
        }
        if let Some(missing) = &options.missing_demo {
            state.notice = Some(format!(
                "The built-in demo ({missing}) is not present; open a file instead."
            ));
        }
        Self {
            options,
            window: None,
            egui_ctx: egui::Context::default(),
            egui_state: None,
            gpu: None,
            state,
            last_frame: Instant::now(),
            pending_textures: egui::TexturesDelta::default(),
            next_repaint: None,
            fatal: None,
            exit: false,
        }
    }

    fn redraw(&mut self) {
        let (Some(window), Some(egui_state), Some(gpu)) = (
            self.window.clone(),
            self.egui_state.as_mut(),
            self.gpu.as_mut(),
        ) else {
            return;
        };
        let now = Instant::now();
        let dt = (now - self.last_frame).as_secs_f64().min(0.25);
        self.last_frame = now;
        self.state.tick(dt);

        // UI pass: edits state, queues requests.
        self.state.viewport_texture = Some((
            gpu.viewport.texture_id,
            [gpu.viewport.target.width, gpu.viewport.target.height],
        ));
        self.state.view_status = gpu.viewport.status.clone();
        let input = egui_state.take_egui_input(&window);
        if self.state.poll_loading() {
            window.set_title(&self.state.title());
        }
        let state = &mut self.state;
        let mut full = self.egui_ctx.run_ui(input, |ui| {
            shortcuts(ui, state);
            show(ui, state);
        });
        egui_state.handle_platform_output(&window, full.platform_output);
        // Texture updates are kept until a frame is actually painted (a skipped frame must
        // not lose the font atlas).
        self.pending_textures
            .append(std::mem::take(&mut full.textures_delta));

        // Requests.
        let mut requests = std::mem::take(&mut self.state.requests);
        if let Some(spec) = requests.open.take() {
            self.state.notice = None;
            self.state.start_open(&spec);
        }
        // Opening, edits and saves change the title.
        let title = self.state.title();
        if window.title() != title {
            window.set_title(&title);
        }
        if let Some((w, h)) = requests.viewport_size {
            gpu.viewport.resize(&gpu.ctx, &mut gpu.egui_renderer, w, h);
        }
        sync_view(
            &mut gpu.viewport,
            &gpu.ctx,
            &self.state,
            requests.reload_view,
        );

        // Screenshot: rendered on its own with the chosen background, then the normal frame.
        if requests.screenshot {
            let path = std::path::PathBuf::from(self.state.screenshot_path.trim());
            match gpu.viewport.save_screenshot(
                &gpu.ctx,
                self.state.edit.as_ref(),
                &self.state.settings,
                self.state.screenshot_transparent,
                &path,
            ) {
                Ok(img) => {
                    self.state.load_error = None;
                    self.state.notice = Some(format!(
                        "Saved {}x{} screenshot to {}",
                        img.width,
                        img.height,
                        path.display()
                    ));
                    log::info!("screenshot written to {}", path.display());
                }
                Err(e) => self.state.load_error = Some(format!("screenshot failed: {e}")),
            }
        }

        gpu.viewport
            .render(&gpu.ctx, self.state.edit.as_ref(), &self.state.settings);

        if let Some((x, y)) = requests.pick {
            pick(&mut gpu.viewport, &gpu.ctx, &mut self.state, x, y);
            window.request_redraw();
        }
        if let Some((x, y)) = requests.inspect
            && self.state.settings.orbit.is_none()
            && let Some(edit) = &self.state.edit
        {
            let mut report = trace_quad_pixel(
                &edit.material,
                &edit.program,
                &self.state.current_textures(),
                &gpu.viewport.draw_uniforms(),
                gpu.viewport.target.width,
                gpu.viewport.target.height,
                x,
                y,
            );
            report.gpu = gpu.viewport.read_pixel(&gpu.ctx, x, y).ok();
            self.state.report = Some(report);
            window.request_redraw();
        }
        if requests.reload_view || requests.screenshot {
            window.request_redraw();
        }
        if requests.exit {
            self.exit = true;
        }

        // Paint egui with the viewport image onto the window.
        let frame = match gpu.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(f)
            | wgpu::CurrentSurfaceTexture::Suboptimal(f) => f,
            wgpu::CurrentSurfaceTexture::Outdated | wgpu::CurrentSurfaceTexture::Lost => {
                let size = window.inner_size();
                gpu.resize(size.width, size.height);
                window.request_redraw();
                return;
            }
            _ => {
                window.request_redraw();
                return;
            }
        };
        let ppp = full.pixels_per_point;
        let jobs = self.egui_ctx.tessellate(full.shapes, ppp);
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [gpu.config.width, gpu.config.height],
            pixels_per_point: ppp,
        };
        for (id, deltas) in &self.pending_textures.set {
            for delta in deltas {
                gpu.egui_renderer
                    .update_texture(&gpu.ctx.device, &gpu.ctx.queue, *id, delta);
            }
        }
        let textures_changed =
            !self.pending_textures.set.is_empty() || !self.pending_textures.free.is_empty();
        gpu.compositor.paint(
            &gpu.ctx,
            &mut gpu.egui_renderer,
            &frame.texture,
            jobs,
            &screen,
            textures_changed,
            Some(ViewImage {
                id: gpu.viewport.texture_id,
                texture: gpu.viewport.display_texture(),
            }),
        );
        window.pre_present_notify();
        gpu.ctx.queue.present(frame);
        for id in &self.pending_textures.free {
            gpu.egui_renderer.free_texture(id);
        }
        self.pending_textures.clear();

        let delay = full
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .map(|v| v.repaint_delay);
        let repaint_now = delay.is_some_and(|d| d.is_zero());
        // egui asks for delayed repaints (tooltips, fades): wake up for them when idle.
        self.next_repaint = delay
            .filter(|d| !d.is_zero() && *d < std::time::Duration::from_secs(3600))
            .map(|d| Instant::now() + d);
        if self.state.loading.is_some() {
            // Poll the worker and move the progress line.
            self.next_repaint = Some(Instant::now() + std::time::Duration::from_millis(100));
        }
        if self.state.animating()
            || gpu.viewport.pipeline_pending()
            || repaint_now
            || !self.state.requests.is_empty()
        {
            window.request_redraw();
        }
    }
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_some() {
            return;
        }
        let attrs = Window::default_attributes()
            .with_title("tevscope")
            .with_inner_size(winit::dpi::LogicalSize::new(
                self.options.width as f64,
                self.options.height as f64,
            ));
        let window = match event_loop.create_window(attrs) {
            Ok(w) => Arc::new(w),
            Err(e) => {
                self.fatal = Some(anyhow::anyhow!("could not open a window: {e}"));
                event_loop.exit();
                return;
            }
        };
        match Gpu::new(window.clone()) {
            Ok(gpu) => {
                self.state.adapter = format!(
                    "{} ({:?})",
                    gpu.ctx.adapter_info.name, gpu.ctx.adapter_info.backend
                );
                let max = gpu.ctx.device.limits().max_texture_dimension_2d as usize;
                self.egui_state = Some(egui_winit::State::new(
                    self.egui_ctx.clone(),
                    egui::ViewportId::ROOT,
                    event_loop,
                    Some(window.scale_factor() as f32),
                    window.theme(),
                    Some(max),
                ));
                self.gpu = Some(gpu);
            }
            Err(e) => {
                self.fatal = Some(e.context("setting up the GPU for the window"));
                event_loop.exit();
                return;
            }
        }
        window.request_redraw();
        self.window = Some(window);
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(window) = self.window.clone() else {
            return;
        };
        if let Some(s) = self.egui_state.as_mut() {
            let response = s.on_window_event(&window, &event);
            // egui-winit reports RedrawRequested itself as needing a repaint: honouring
            // that would redraw forever instead of idling.
            if response.repaint && !matches!(event, WindowEvent::RedrawRequested) {
                window.request_redraw();
            }
        }
        match event {
            WindowEvent::CloseRequested => {
                if self.state.request_close() {
                    event_loop.exit();
                } else {
                    window.request_redraw();
                }
            }
            WindowEvent::Resized(size) => {
                if let Some(gpu) = self.gpu.as_mut() {
                    gpu.resize(size.width, size.height);
                }
                window.request_redraw();
            }
            WindowEvent::DroppedFile(path) => {
                self.state.request_open(&path.display().to_string());
                window.request_redraw();
            }
            WindowEvent::RedrawRequested => self.redraw(),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if self.exit {
            event_loop.exit();
            return;
        }
        // Idle unless something animates; redraws are requested where needed.
        let Some(w) = &self.window else {
            event_loop.set_control_flow(ControlFlow::Wait);
            return;
        };
        if self.state.animating() {
            w.request_redraw();
        }
        match self.next_repaint {
            Some(at) if at <= Instant::now() => {
                self.next_repaint = None;
                w.request_redraw();
                event_loop.set_control_flow(ControlFlow::Wait);
            }
            Some(at) => event_loop.set_control_flow(ControlFlow::WaitUntil(at)),
            None => event_loop.set_control_flow(ControlFlow::Wait),
        }
    }
}

/// Runs the viewer until its window closes.
pub fn run(options: ViewerOptions) -> anyhow::Result<()> {
    let event_loop = winit::event_loop::EventLoop::new()?;
    let mut app = App::new(options);
    event_loop.run_app(&mut app)?;
    match app.fatal.take() {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

impl Drop for App {
    fn drop(&mut self) {
        // Updates never painted (window closed first) are dropped on purpose.
        self.pending_textures.clear();
    }
}
