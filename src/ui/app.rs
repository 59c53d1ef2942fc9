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
use super::prefs::Prefs;
use super::script::{Host, Runner};
use super::state::AppState;
use super::view_sync::shortcuts;
pub use super::view_sync::{pick, sync_strip, sync_view};
use super::viewport::{StageStrip, Viewport};

struct Gpu {
    ctx: RenderContext,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    egui_renderer: egui_wgpu::Renderer,
    viewport: Viewport,
    /// The stage strip's thumbnails.
    strip: StageStrip,
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
        let strip = StageStrip::new(&ctx);
        Ok(Self {
            ctx,
            surface,
            config,
            egui_renderer,
            viewport,
            strip,
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
    /// The script being run (`tevscope view --script`).
    script: Option<Runner>,
}

/// What a script reaches of the app: the window, the GPU and the state.
struct AppHost<'a> {
    window: &'a Window,
    gpu: &'a mut Gpu,
    state: &'a mut AppState,
    ppp: f32,
}

impl Host for AppHost<'_> {
    fn state(&mut self) -> &mut AppState {
        self.state
    }

    fn window_size(&self) -> (u32, u32) {
        // The surface's size: what the next frames are painted at.
        (self.gpu.config.width, self.gpu.config.height)
    }

    fn request_window_size(&mut self, width: u32, height: u32) {
        // Applied now or later through a Resized event; the step waits for the surface.
        let _ = self
            .window
            .request_inner_size(winit::dpi::PhysicalSize::new(width, height));
    }

    fn pixels_per_point(&self) -> f32 {
        self.ppp
    }

    fn pipelines_pending(&self) -> bool {
        self.gpu.viewport.pipeline_pending()
    }

    fn view_size(&self) -> (u32, u32) {
        (
            self.gpu.viewport.target.width,
            self.gpu.viewport.target.height,
        )
    }

    fn screenshot_view(
        &mut self,
        path: &std::path::Path,
        size: Option<(u32, u32)>,
        transparent: bool,
    ) -> Result<String, String> {
        screenshot(self.gpu, self.state, path, size, transparent)
    }

    fn turntable(
        &mut self,
        path: &std::path::Path,
        frames: u32,
        size: Option<(u32, u32)>,
        transparent: bool,
    ) -> Result<String, String> {
        let camera = self.state.session.camera.orbit;
        turntable(self.gpu, path, frames, size, transparent, camera)
    }
}

/// Renders the 3D view at `size` (None: the view's) to `path`; the line to show.
fn screenshot(
    gpu: &mut Gpu,
    state: &AppState,
    path: &std::path::Path,
    size: Option<(u32, u32)>,
    transparent: bool,
) -> Result<String, String> {
    let img = gpu.viewport.save_screenshot(
        &gpu.ctx,
        state.selected.edit.as_ref(),
        &state.settings,
        transparent,
        size,
        path,
    )?;
    Ok(format!(
        "Saved {}x{} screenshot to {}",
        img.width,
        img.height,
        path.display()
    ))
}

/// A turntable of the model view next to `path`; the line to show.
fn turntable(
    gpu: &mut Gpu,
    path: &std::path::Path,
    frames: u32,
    size: Option<(u32, u32)>,
    transparent: bool,
    camera: crate::camera::OrbitCamera,
) -> Result<String, String> {
    let files = gpu
        .viewport
        .save_turntable(&gpu.ctx, transparent, size, frames, path, camera)?;
    Ok(format!(
        "Saved a {}-frame turntable: {} …",
        files.len(),
        files
            .first()
            .map_or_else(String::new, |f| f.display().to_string())
    ))
}

/// Reads a window capture back as RGBA8 (the bytes the window shows).
fn read_capture(gpu: &Gpu, texture: &wgpu::Texture) -> Result<crate::render::RgbaImage, String> {
    use wgpu::TextureFormat as F;
    let format = gpu.config.format;
    let bgra = match format {
        F::Bgra8Unorm | F::Bgra8UnormSrgb => true,
        F::Rgba8Unorm | F::Rgba8UnormSrgb => false,
        other => {
            return Err(format!(
                "window screenshots of a {other:?} surface are not supported"
            ));
        }
    };
    let (width, height) = (texture.width(), texture.height());
    let mut pixels =
        crate::render::target::read_texture_region(&gpu.ctx, texture, (0, 0), (width, height), 4)
            .map_err(|e| e.to_string())?;
    if bgra {
        for px in pixels.chunks_exact_mut(4) {
            px.swap(0, 2);
        }
    }
    Ok(crate::render::RgbaImage {
        width,
        height,
        pixels,
    })
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
        state.opening.references = options.references.clone();
        state.perf.fps_shown = options.fps;
        // A scripted run opens its file as its first step (a failed open fails the run),
        // starts from the default settings and remembers nothing: the same script gives
        // the same window everywhere.
        let script = options.script.clone().map(|mut steps| {
            if let Some(spec) = &options.file {
                steps.insert(0, super::script::Action::Open { spec: spec.clone() });
            }
            Runner::new(steps, options.step_timeout)
        });
        if script.is_none() {
            let (prefs, warning) = Prefs::load();
            if let Some(w) = warning {
                log::warn!("{w}");
                state.messages.notice = Some(w);
            }
            if options.file.is_none()
                && let Some(dir) = prefs.last_open_dir.as_ref().filter(|d| d.is_dir())
            {
                state.browser.set_dir(dir.clone());
            }
            state.prefs = prefs;
        }
        match &options.file {
            Some(_) if script.is_some() => {}
            Some(f) => state.requests.open = Some(f.clone()),
            None => {
                state.messages.notice = Some(
                    "No file given. Browse on the left, drop a file on the window, or type a spec above."
                        .into(),
                )
            }
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
            script,
        }
    }

    /// Writes the remembered settings (window size, panel widths); not for scripts.
    fn save_prefs(&mut self) {
        if self.script.is_some() {
            return;
        }
        let prefs = &mut self.state.prefs;
        if let Some(w) = &self.window {
            let size = w.inner_size().to_logical::<f64>(w.scale_factor());
            prefs.window_size = Some([size.width.round() as u32, size.height.round() as u32]);
        }
        let layout = &self.state.layout;
        prefs.left_panel_width = layout.left.map(|r| r.width()).or(prefs.left_panel_width);
        prefs.right_panel_width = layout.right.map(|r| r.width()).or(prefs.right_panel_width);
        if let Err(e) = prefs.save() {
            log::warn!("{e}");
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
        self.state.perf.begin_frame(now);
        self.state.tick(dt);
        let ppp = self.egui_ctx.pixels_per_point();
        if let Some(runner) = self.script.as_mut() {
            runner.before_frame(&mut AppHost {
                window: &window,
                gpu,
                state: &mut self.state,
                ppp,
            });
        }

        // UI pass: edits state, queues requests.
        self.state.central.texture = Some((
            gpu.viewport.texture_id,
            [gpu.viewport.target.width, gpu.viewport.target.height],
        ));
        self.state.view_status = gpu.viewport.status.clone();
        let mut input = egui_state.take_egui_input(&window);
        if let Some(runner) = self.script.as_mut() {
            input.events.extend(runner.take_events());
        }
        if self.state.poll_loading() {
            window.set_title(&self.state.title());
            // The recent files changed.
            if self.script.is_none()
                && let Err(e) = self.state.prefs.save()
            {
                log::warn!("{e}");
            }
        }
        let state = &mut self.state;
        let mut full = self.egui_ctx.run_ui(input, |ui| {
            shortcuts(ui, state);
            show(ui, state);
            super::perf::fps_overlay(ui.ctx(), &state.perf, state.layout.view);
        });
        egui_state.handle_platform_output(&window, full.platform_output);
        // Texture updates are kept until a frame is actually painted (a skipped frame must
        // not lose the font atlas).
        self.pending_textures
            .append(std::mem::take(&mut full.textures_delta));

        // Requests.
        let mut requests = std::mem::take(&mut self.state.requests);
        if let Some(spec) = requests.open.take() {
            self.state.messages.notice = None;
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
        sync_strip(
            &mut gpu.strip,
            &gpu.ctx,
            &mut gpu.egui_renderer,
            &mut self.state,
        );

        // Screenshot: rendered on its own with the chosen background, then the normal frame.
        if requests.screenshot && self.state.texture_view_shown() {
            // What is on screen is a texture: its shown level, exactly, is the screenshot.
            let path = std::path::PathBuf::from(self.state.screenshot.path.trim());
            self.state.export_shown_level(&path);
            if let Some(Err(e)) = &self.state.texture_view.export_result {
                self.state.messages.load_error = Some(format!("screenshot failed: {e}"));
            }
        } else if requests.screenshot || requests.turntable {
            let path = std::path::PathBuf::from(self.state.screenshot.path.trim());
            let size = self.state.screenshot.size.map(|[w, h]| (w, h));
            let transparent = self.state.screenshot.transparent;
            let result = if requests.turntable {
                let frames = self.state.screenshot.turntable_frames;
                let camera = self.state.session.camera.orbit;
                turntable(gpu, &path, frames, size, transparent, camera)
            } else {
                screenshot(gpu, &self.state, &path, size, transparent)
            };
            match result {
                Ok(line) => {
                    self.state.messages.load_error = None;
                    log::info!("{line}");
                    self.state.messages.notice = Some(line);
                }
                Err(e) => self.state.messages.load_error = Some(format!("screenshot failed: {e}")),
            }
        }

        match &requests.overview {
            Some(frame) => gpu
                .viewport
                .render_overview(&gpu.ctx, &self.state.worlds, frame),
            None => gpu.viewport.render(
                &gpu.ctx,
                self.state.selected.edit.as_ref(),
                &self.state.settings,
            ),
        }

        if let Some((x, y)) = requests.pick {
            pick(&mut gpu.viewport, &gpu.ctx, &mut self.state, x, y);
            window.request_redraw();
        }
        if let Some((x, y)) = requests.inspect
            && self.state.settings.orbit.is_none()
            && let Some(edit) = &self.state.selected.edit
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
            self.state.selected.report = Some(report);
            window.request_redraw();
        }
        if requests.reload_view || requests.screenshot || requests.turntable {
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
            gpu.strip.redrawn(),
        );
        // A script's window screenshot: the frame just painted, read back.
        if let Some(runner) = self.script.as_mut()
            && runner.wants_capture()
        {
            let texture = gpu
                .compositor
                .capture(&gpu.ctx, &mut gpu.egui_renderer, &screen);
            runner.captured(read_capture(gpu, &texture));
        }
        window.pre_present_notify();
        gpu.ctx.queue.present(frame);
        for id in &self.pending_textures.free {
            gpu.egui_renderer.free_texture(id);
        }
        self.pending_textures.clear();

        if let Some(runner) = self.script.as_mut() {
            runner.after_frame(&mut AppHost {
                window: &window,
                gpu,
                state: &mut self.state,
                ppp,
            });
            if runner.finished() {
                if let Some(e) = runner.error.take() {
                    self.fatal = Some(anyhow::anyhow!("script: {e}"));
                }
                self.exit = true;
            }
            // Scripts run frame after frame.
            window.request_redraw();
        }

        let delay = full
            .viewport_output
            .get(&egui::ViewportId::ROOT)
            .map(|v| v.repaint_delay);
        let repaint_now = delay.is_some_and(|d| d.is_zero());
        // egui asks for delayed repaints (tooltips, fades): wake up for them when idle.
        self.next_repaint = delay
            .filter(|d| !d.is_zero() && *d < std::time::Duration::from_secs(3600))
            .map(|d| Instant::now() + d);
        if self.state.loader.loading.is_some() {
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

/// Share of the monitor a window may take when it opens (the rest for the desktop's bars and
/// the title bar).
const WINDOW_SCREEN_SHARE: f64 = 0.9;

/// The size of the monitor the window will open on (logical pixels), if the platform says.
fn monitor_size(event_loop: &ActiveEventLoop) -> Option<[f64; 2]> {
    let monitor =
        (event_loop.primary_monitor()).or_else(|| event_loop.available_monitors().next())?;
    let size = monitor.size().to_logical::<f64>(monitor.scale_factor());
    Some([size.width, size.height])
}

/// The window's first size (logical pixels): `wanted` (the remembered size or the default)
/// shrunk to [`WINDOW_SCREEN_SHARE`] of the monitor where it is larger, so that on a smaller
/// screen than the default's (a 1366 × 768 laptop) every panel shows.
fn fitted_window_size(wanted: [u32; 2], monitor: Option<[f64; 2]>) -> [u32; 2] {
    let Some(monitor) = monitor.filter(|m| m.iter().all(|&v| v.is_finite() && v >= 1.0)) else {
        return wanted;
    };
    let fit =
        |w: u32, m: f64| (f64::from(w).min((m * WINDOW_SCREEN_SHARE).floor())).max(1.0) as u32;
    [fit(wanted[0], monitor[0]), fit(wanted[1], monitor[1])]
}

impl ApplicationHandler for App {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.window.is_some() {
            return;
        }
        let wanted = match self.state.prefs.window_size {
            Some([w, h]) if w >= 200 && h >= 150 && !self.options.size_given => [w, h],
            _ => [self.options.width, self.options.height],
        };
        // `--size` is kept as given.
        let [width, height] = match self.options.size_given {
            true => wanted,
            false => fitted_window_size(wanted, monitor_size(event_loop)),
        };
        let attrs = Window::default_attributes()
            .with_title("tevscope")
            .with_inner_size(winit::dpi::LogicalSize::new(width as f64, height as f64));
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
                self.state.perf.adapter = format!(
                    "{} ({:?})",
                    gpu.ctx.adapter_info.name, gpu.ctx.adapter_info.backend
                );
                self.state.screenshot.max_side = Viewport::max_screenshot_side(&gpu.ctx);
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
                if self.script.is_some() || self.state.request_close() {
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

    fn exiting(&mut self, _event_loop: &ActiveEventLoop) {
        self.save_prefs();
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if let Some(runner) = self.script.as_mut()
            && runner.stalled()
        {
            if let Some(e) = runner.error.take() {
                self.fatal = Some(anyhow::anyhow!("script: {e}"));
            }
            self.exit = true;
        }
        if self.exit {
            event_loop.exit();
            return;
        }
        if self.script.is_some() {
            // Wake up to notice a window that stopped drawing.
            event_loop.set_control_flow(ControlFlow::WaitUntil(
                Instant::now() + std::time::Duration::from_secs(1),
            ));
            if let Some(w) = &self.window {
                w.request_redraw();
            }
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

#[cfg(test)]
mod tests {
    use super::fitted_window_size;

    #[test]
    fn a_window_opens_inside_a_smaller_monitor() {
        // The 1600 × 900 default on a 1366 × 768 laptop: 90 % of each side.
        assert_eq!(
            fitted_window_size([1600, 900], Some([1366.0, 768.0])),
            [1229, 691]
        );
        // Room to spare: as wanted.
        assert_eq!(
            fitted_window_size([1600, 900], Some([2560.0, 1440.0])),
            [1600, 900]
        );
        // Only the side that does not fit shrinks.
        assert_eq!(
            fitted_window_size([1200, 1000], Some([1920.0, 1080.0])),
            [1200, 972]
        );
        // No monitor known (Wayland before the window exists), or a nonsense one: as wanted.
        for monitor in [None, Some([0.0, 0.0]), Some([f64::NAN, 768.0])] {
            assert_eq!(fitted_window_size([1600, 900], monitor), [1600, 900]);
        }
    }
}
