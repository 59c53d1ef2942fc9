//! The world overview in the viewport: the rooms' geometry uploaded as it arrives from
//! the world tree's loader ([`crate::ui::worlds::WorldGeometry`]) and drawn from above by
//! [`OverviewRenderer`] into the viewport's target, which egui then shows like any view.

use crate::render::RenderContext;
use crate::render::overview::OverviewRenderer;
use crate::ui::state::OverviewFrame;
use crate::ui::worlds::WorldTree;

use super::{AlphaDisplay, Viewport};

/// The GPU side of the overview: which world's rooms are uploaded, and how many.
pub(super) struct OverviewView {
    renderer: OverviewRenderer,
    /// The source and world index the uploaded rooms belong to.
    world: Option<(std::path::PathBuf, usize)>,
    /// How many of the world's arrived rooms are uploaded (they arrive in order).
    uploaded: usize,
    /// What the target holds: the frame and target size last drawn (None after anything
    /// else drew into it). An unchanged frame is not drawn again, so an idle or hovered
    /// overview of a large world costs nothing on a software rasterizer.
    drawn: Option<(OverviewFrame, usize, u32, u32)>,
}

impl OverviewView {
    /// The target no longer holds the overview (the model view drew into it).
    pub(super) fn forget_drawn(&mut self) {
        self.drawn = None;
    }
}

/// The background behind the rooms (the panel's colour).
const BACKGROUND: [u8; 4] = [18, 18, 18, 255];

impl Viewport {
    /// Draws `frame` of the world overview into the target (instead of the content).
    pub fn render_overview(
        &mut self,
        ctx: &RenderContext,
        tree: &WorldTree,
        frame: &OverviewFrame,
    ) {
        let view = self.overview.get_or_insert_with(|| OverviewView {
            renderer: OverviewRenderer::new(ctx),
            world: None,
            uploaded: 0,
            drawn: None,
        });
        let key = tree.source.clone().map(|s| (s, frame.world));
        if view.world != key {
            view.renderer.clear();
            view.world = key;
            view.uploaded = 0;
        }
        if let Some(g) = tree.rooms.get(&frame.world) {
            for (area, mesh) in g.rooms.iter().skip(view.uploaded) {
                if let Ok(mesh) = mesh {
                    let tint = crate::model::overview::room_tint(*area);
                    view.renderer.set_room(ctx, *area as u32, mesh, tint);
                }
            }
            view.uploaded = g.rooms.len();
        }
        let now = (*frame, view.uploaded, self.target.width, self.target.height);
        if view.drawn == Some(now) {
            return;
        }
        view.drawn = Some(now);
        view.renderer.draw(
            ctx,
            &self.target,
            &frame.camera,
            BACKGROUND,
            frame.highlight,
        );
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("overview display"),
            });
        self.display
            .encode(ctx, &mut encoder, AlphaDisplay::Rgb, 12.0);
        ctx.queue.submit([encoder.finish()]);
    }
}
