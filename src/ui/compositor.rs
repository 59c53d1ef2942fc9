//! Paints egui onto the window, repainting only what changed since the last frame.
//!
//! On a software GPU (lavapipe) rasterising the whole UI costs far more than the 3D view:
//! at 1600×900 egui's ~30 paint jobs took ~100 ms a frame on an idle machine, so playing
//! an animation ran at 8–9 fps while the scene itself took ~3 ms. The compositor keeps the
//! last frame in a layer texture and, each frame, repaints only the *damaged* rectangles:
//! where a paint job's mesh changed (the time readout while playing, a hovered button) and
//! the 3D view's image. The view's image is copied into the layer instead of being sampled
//! by egui's shader when egui shows it 1:1, which is how the viewer shows it; the paint jobs
//! after it (overlays: thumbnails, gizmos, popups) are drawn over the copy. The layer is
//! then copied to the window's surface.
//!
//! Inside a damaged rectangle every paint job is drawn in order with its clip narrowed to
//! the rectangle, over black, which is exactly what a full repaint draws there: partial
//! repaints are pixel-identical to full ones (tested). A surface that cannot be a copy
//! destination is painted in full every frame, as before.

use egui::epaint::{ClippedPrimitive, Mesh, Primitive};
use egui::{Color32, Pos2, Rect, TextureId};

use crate::render::RenderContext;

/// A rectangle in physical pixels, `min` inclusive, `max` exclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PixelRect {
    pub min: [u32; 2],
    pub max: [u32; 2],
}

impl PixelRect {
    fn full(size: [u32; 2]) -> Self {
        Self {
            min: [0, 0],
            max: size,
        }
    }

    fn is_empty(&self) -> bool {
        self.max[0] <= self.min[0] || self.max[1] <= self.min[1]
    }

    fn area(&self) -> u64 {
        if self.is_empty() {
            0
        } else {
            u64::from(self.max[0] - self.min[0]) * u64::from(self.max[1] - self.min[1])
        }
    }

    fn intersect(&self, other: &Self) -> Self {
        Self {
            min: [self.min[0].max(other.min[0]), self.min[1].max(other.min[1])],
            max: [self.max[0].min(other.max[0]), self.max[1].min(other.max[1])],
        }
    }

    fn union(&self, other: &Self) -> Self {
        Self {
            min: [self.min[0].min(other.min[0]), self.min[1].min(other.min[1])],
            max: [self.max[0].max(other.max[0]), self.max[1].max(other.max[1])],
        }
    }

    fn contains(&self, other: &Self) -> bool {
        other.min[0] >= self.min[0]
            && other.min[1] >= self.min[1]
            && other.max[0] <= self.max[0]
            && other.max[1] <= self.max[1]
    }

    /// Whether the rectangles overlap or lie within `gap` pixels of each other.
    fn near(&self, other: &Self, gap: u32) -> bool {
        self.min[0] <= other.max[0] + gap
            && other.min[0] <= self.max[0] + gap
            && self.min[1] <= other.max[1] + gap
            && other.min[1] <= self.max[1] + gap
    }

    /// The pixels egui-wgpu's scissor covers for a clip rectangle in points (it rounds).
    fn from_clip(clip: &Rect, pixels_per_point: f32, size: [u32; 2]) -> Self {
        let px = |v: f32, limit: u32| ((v * pixels_per_point).round().max(0.0) as u32).min(limit);
        Self {
            min: [px(clip.min.x, size[0]), px(clip.min.y, size[1])],
            max: [px(clip.max.x, size[0]), px(clip.max.y, size[1])],
        }
    }

    /// The pixels a mesh may touch: its bounding box, widened by a pixel for
    /// anti-aliasing feathering and rounding.
    fn around_mesh(mesh: &Mesh, pixels_per_point: f32, size: [u32; 2]) -> Option<Self> {
        let (lo, hi) = bounds(mesh.vertices.iter().map(|v| v.pos))?;
        Self::around(lo, hi, pixels_per_point, size)
    }

    /// The pixels a box in points may touch, widened by a pixel.
    fn around(lo: Pos2, hi: Pos2, pixels_per_point: f32, size: [u32; 2]) -> Option<Self> {
        let px = |v: f32, limit: u32| (v.max(0.0) as u32).min(limit);
        Some(Self {
            min: [
                px((lo.x * pixels_per_point).floor() - 1.0, size[0]),
                px((lo.y * pixels_per_point).floor() - 1.0, size[1]),
            ],
            max: [
                px((hi.x * pixels_per_point).ceil() + 1.0, size[0]),
                px((hi.y * pixels_per_point).ceil() + 1.0, size[1]),
            ],
        })
    }

    /// The clip rectangle in points that egui-wgpu turns back into exactly these pixels.
    fn to_clip(self, pixels_per_point: f32) -> Rect {
        let pt = |v: u32| v as f32 / pixels_per_point;
        Rect::from_min_max(
            Pos2::new(pt(self.min[0]), pt(self.min[1])),
            Pos2::new(pt(self.max[0]), pt(self.max[1])),
        )
    }
}

/// What must be repainted this frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Damage {
    Full,
    Rects(Vec<PixelRect>),
}

/// Above this share of the window, repainting everything is as cheap and simpler.
const FULL_REPAINT_SHARE: f64 = 0.7;
/// More rectangles than this are merged into a full repaint.
const MAX_RECTS: usize = 12;
/// Rectangles closer than this many pixels are merged into one.
const MERGE_GAP: u32 = 8;

/// Where the paint jobs of this frame differ from those of the last one, plus the `always`
/// rectangles (content that changed without its mesh changing, such as the 3D view).
pub(crate) fn damage(
    previous: &[ClippedPrimitive],
    jobs: &[ClippedPrimitive],
    pixels_per_point: f32,
    size: [u32; 2],
    always: &[PixelRect],
) -> Damage {
    if previous.len() != jobs.len() {
        return Damage::Full;
    }
    let mut rects: Vec<PixelRect> = always.to_vec();
    for (old, new) in previous.iter().zip(jobs) {
        let (Primitive::Mesh(old_mesh), Primitive::Mesh(new_mesh)) =
            (&old.primitive, &new.primitive)
        else {
            // Paint callbacks draw whatever they like: repaint everything.
            return Damage::Full;
        };
        if old.clip_rect != new.clip_rect || old_mesh.texture_id != new_mesh.texture_id {
            return Damage::Full;
        }
        if old_mesh == new_mesh {
            continue;
        }
        let clip = PixelRect::from_clip(&new.clip_rect, pixels_per_point, size);
        if let Some(r) = changed_triangles(old_mesh, new_mesh)
            .and_then(|(lo, hi)| PixelRect::around(lo, hi, pixels_per_point, size))
        {
            let r = r.intersect(&clip);
            if !r.is_empty() {
                rects.push(r);
            }
        }
    }
    let rects = merge(rects);
    let area: u64 = rects.iter().map(PixelRect::area).sum();
    if rects.len() > MAX_RECTS
        || area as f64 > FULL_REPAINT_SHARE * PixelRect::full(size).area() as f64
    {
        Damage::Full
    } else {
        Damage::Rects(rects)
    }
}

/// The bounding box of `points`.
fn bounds(mut points: impl Iterator<Item = Pos2>) -> Option<(Pos2, Pos2)> {
    let first = points.next()?;
    Some(points.fold((first, first), |(lo, hi), p| (lo.min(p), hi.max(p))))
}

/// Where two versions of a mesh differ: the box around the triangles between their
/// common leading and trailing triangles (compared by vertex values, so a glyph that
/// changes mid-text damages only the text from there to where it matches again).
/// Pixels outside the box are drawn by the same triangles, in the same order, in both.
fn changed_triangles(old: &Mesh, new: &Mesh) -> Option<(Pos2, Pos2)> {
    // Triangle `k` by value, read in place: this runs every frame on every changed mesh.
    let triangle = |m: &Mesh, k: usize| -> [egui::epaint::Vertex; 3] {
        let v = |i: u32| m.vertices.get(i as usize).copied().unwrap_or_default();
        [
            v(m.indices[3 * k]),
            v(m.indices[3 * k + 1]),
            v(m.indices[3 * k + 2]),
        ]
    };
    let (a, b) = (old.indices.len() / 3, new.indices.len() / 3);
    let prefix = (0..a.min(b))
        .take_while(|&k| triangle(old, k) == triangle(new, k))
        .count();
    let suffix = (1..=(a - prefix).min(b - prefix))
        .take_while(|&k| triangle(old, a - k) == triangle(new, b - k))
        .count();
    let changed = (prefix..a - suffix)
        .map(|k| triangle(old, k))
        .chain((prefix..b - suffix).map(|k| triangle(new, k)));
    bounds(changed.flat_map(|t| t.map(|v| v.pos)))
}

/// Merges overlapping or nearly touching rectangles until none are left to merge.
fn merge(mut rects: Vec<PixelRect>) -> Vec<PixelRect> {
    rects.retain(|r| !r.is_empty());
    let mut merged = true;
    while merged {
        merged = false;
        'outer: for i in 0..rects.len() {
            for j in i + 1..rects.len() {
                if rects[i].near(&rects[j], MERGE_GAP) {
                    rects[i] = rects[i].union(&rects[j]);
                    rects.swap_remove(j);
                    merged = true;
                    break 'outer;
                }
            }
        }
    }
    rects
}

/// The paint job that shows the 3D view, when egui draws it 1:1 (so a copy of the view's
/// texture gives the same pixels): its index and where it lands in the window.
fn one_to_one_image(
    jobs: &[ClippedPrimitive],
    id: TextureId,
    texture_size: [u32; 2],
    pixels_per_point: f32,
    size: [u32; 2],
) -> Option<(usize, PixelRect)> {
    let index = jobs
        .iter()
        .position(|j| matches!(&j.primitive, Primitive::Mesh(m) if m.texture_id == id))?;
    let Primitive::Mesh(mesh) = &jobs[index].primitive else {
        return None;
    };
    if mesh.vertices.len() != 4 || mesh.vertices.iter().any(|v| v.color != Color32::WHITE) {
        return None;
    }
    let (mut lo, mut hi) = (mesh.vertices[0].pos, mesh.vertices[0].pos);
    let (mut uv_lo, mut uv_hi) = (mesh.vertices[0].uv, mesh.vertices[0].uv);
    for v in &mesh.vertices {
        (lo, hi) = (lo.min(v.pos), hi.max(v.pos));
        (uv_lo, uv_hi) = (uv_lo.min(v.uv), uv_hi.max(v.uv));
    }
    let whole_texture = uv_lo == Pos2::ZERO && uv_hi == Pos2::new(1.0, 1.0);
    let to_pixel = |v: f32| {
        let p = v * pixels_per_point;
        ((p - p.round()).abs() < 1e-3 && p >= 0.0).then_some(p.round() as u32)
    };
    let rect = PixelRect {
        min: [to_pixel(lo.x)?, to_pixel(lo.y)?],
        max: [to_pixel(hi.x)?, to_pixel(hi.y)?],
    };
    let exact = whole_texture
        && rect.max[0] - rect.min[0] == texture_size[0]
        && rect.max[1] - rect.min[1] == texture_size[1]
        && PixelRect::full(size).contains(&rect)
        && PixelRect::from_clip(&jobs[index].clip_rect, pixels_per_point, size).contains(&rect);
    exact.then_some((index, rect))
}

/// Where the meshes drawing any of `textures` land (within their clips).
fn textured_rects<'a>(
    jobs: &'a [ClippedPrimitive],
    textures: &'a [TextureId],
    pixels_per_point: f32,
    size: [u32; 2],
) -> impl Iterator<Item = PixelRect> + 'a {
    jobs.iter().filter_map(move |j| match &j.primitive {
        Primitive::Mesh(m) if textures.contains(&m.texture_id) => {
            PixelRect::around_mesh(m, pixels_per_point, size)
                .map(|r| r.intersect(&PixelRect::from_clip(&j.clip_rect, pixels_per_point, size)))
        }
        _ => None,
    })
}

/// A job that paints `rect` opaque black: what the full repaint's clear leaves there.
fn clear_job(rect: PixelRect, pixels_per_point: f32) -> ClippedPrimitive {
    let clip = rect.to_clip(pixels_per_point);
    let mut mesh = Mesh::with_texture(TextureId::default());
    mesh.add_colored_rect(clip, Color32::BLACK);
    ClippedPrimitive {
        clip_rect: clip,
        primitive: Primitive::Mesh(mesh),
    }
}

/// `jobs` with their clips narrowed to `rect` (jobs left with nothing to draw dropped).
fn clipped_to(
    jobs: &[ClippedPrimitive],
    rect: PixelRect,
    pixels_per_point: f32,
    size: [u32; 2],
) -> impl Iterator<Item = ClippedPrimitive> {
    jobs.iter().filter_map(move |job| {
        let clip = PixelRect::from_clip(&job.clip_rect, pixels_per_point, size).intersect(&rect);
        if clip.is_empty() {
            return None;
        }
        if let Primitive::Mesh(m) = &job.primitive
            && PixelRect::around_mesh(m, pixels_per_point, size)
                .is_none_or(|r| r.intersect(&clip).is_empty())
        {
            return None;
        }
        Some(ClippedPrimitive {
            clip_rect: clip.to_clip(pixels_per_point),
            primitive: job.primitive.clone(),
        })
    })
}

/// The 3D view as egui shows it: its texture id and the texture (same format as the window).
pub(crate) struct ViewImage<'a> {
    pub id: TextureId,
    pub texture: &'a wgpu::Texture,
}

/// What the last paint did (for measurements).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct PaintStats {
    /// Pixels repainted by egui this frame.
    pub painted_pixels: u64,
    /// Pixels copied from the 3D view.
    pub copied_pixels: u64,
}

struct Layer {
    texture: wgpu::Texture,
    view: wgpu::TextureView,
    size: [u32; 2],
}

/// Keeps the last frame and repaints its damaged parts (see the module docs).
pub(crate) struct Compositor {
    format: wgpu::TextureFormat,
    /// False when the surface cannot be a copy destination: paint in full every frame.
    retained: bool,
    layer: Option<Layer>,
    previous: Vec<ClippedPrimitive>,
}

impl Compositor {
    /// `surface_usages` are the usages the window's surface supports.
    pub(crate) fn new(format: wgpu::TextureFormat, surface_usages: wgpu::TextureUsages) -> Self {
        Self {
            format,
            retained: surface_usages.contains(wgpu::TextureUsages::COPY_DST),
            layer: None,
            previous: Vec::new(),
        }
    }

    /// The usages the window's surface must be configured with.
    pub(crate) fn surface_usages(&self) -> wgpu::TextureUsages {
        if self.retained {
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_DST
        } else {
            wgpu::TextureUsages::RENDER_ATTACHMENT
        }
    }

    /// Paints `jobs` into `target` (the surface texture, `screen` sized).
    /// `textures_changed`: egui updated managed textures this frame (their pixels may show
    /// anywhere). `redrawn`: native textures drawn into this frame (the stage strip's
    /// thumbnails): where they show is repainted.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn paint(
        &mut self,
        ctx: &RenderContext,
        renderer: &mut egui_wgpu::Renderer,
        target: &wgpu::Texture,
        jobs: Vec<ClippedPrimitive>,
        screen: &egui_wgpu::ScreenDescriptor,
        textures_changed: bool,
        view_image: Option<ViewImage<'_>>,
        redrawn: &[TextureId],
    ) -> PaintStats {
        let size = screen.size_in_pixels;
        let ppp = screen.pixels_per_point;
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("egui"),
            });
        if !self.retained {
            let view = target.create_view(&wgpu::TextureViewDescriptor::default());
            let stats = self.draw(ctx, renderer, &mut encoder, &view, &jobs, screen, true);
            ctx.queue.submit([encoder.finish()]);
            self.previous = jobs;
            return stats;
        }
        if self.layer.as_ref().is_none_or(|l| l.size != size) {
            self.layer = Some(self.new_layer(ctx, size));
            self.previous.clear();
        }
        let Some(layer) = &self.layer else {
            return PaintStats::default();
        };
        let image = view_image.as_ref().and_then(|v| {
            let texture_size = [v.texture.width(), v.texture.height()];
            (v.texture.format() == self.format)
                .then(|| one_to_one_image(&jobs, v.id, texture_size, ppp, size))
                .flatten()
        });
        // The view's content changes every frame without its mesh changing.
        let view_rect = view_image.as_ref().and_then(|v| {
            jobs.iter().find_map(|j| match &j.primitive {
                Primitive::Mesh(m) if m.texture_id == v.id => PixelRect::around_mesh(m, ppp, size)
                    .map(|r| r.intersect(&PixelRect::from_clip(&j.clip_rect, ppp, size))),
                _ => None,
            })
        });
        let damage = if self.previous.is_empty() || textures_changed {
            Damage::Full
        } else {
            let mut always: Vec<PixelRect> =
                image.map(|(_, r)| r).or(view_rect).into_iter().collect();
            always.extend(textured_rects(&jobs, redrawn, ppp, size));
            damage(&self.previous, &jobs, ppp, size, &always)
        };

        let mut stats = PaintStats::default();
        let mut to_draw: Vec<ClippedPrimitive> = Vec::new();
        let full = match &damage {
            Damage::Full => true,
            Damage::Rects(rects) => {
                for &rect in rects {
                    match (image, &view_image) {
                        (Some((index, image_rect)), Some(v)) if image_rect.contains(&rect) => {
                            encoder.copy_texture_to_texture(
                                wgpu::TexelCopyTextureInfo {
                                    texture: v.texture,
                                    mip_level: 0,
                                    origin: wgpu::Origin3d {
                                        x: rect.min[0] - image_rect.min[0],
                                        y: rect.min[1] - image_rect.min[1],
                                        z: 0,
                                    },
                                    aspect: wgpu::TextureAspect::All,
                                },
                                wgpu::TexelCopyTextureInfo {
                                    texture: &layer.texture,
                                    mip_level: 0,
                                    origin: wgpu::Origin3d {
                                        x: rect.min[0],
                                        y: rect.min[1],
                                        z: 0,
                                    },
                                    aspect: wgpu::TextureAspect::All,
                                },
                                wgpu::Extent3d {
                                    width: rect.max[0] - rect.min[0],
                                    height: rect.max[1] - rect.min[1],
                                    depth_or_array_layers: 1,
                                },
                            );
                            stats.copied_pixels += rect.area();
                            // What egui draws over the view (the image is opaque).
                            to_draw.extend(clipped_to(&jobs[index + 1..], rect, ppp, size));
                        }
                        _ => {
                            stats.painted_pixels += rect.area();
                            to_draw.push(clear_job(rect, ppp));
                            to_draw.extend(clipped_to(&jobs, rect, ppp, size));
                        }
                    }
                }
                false
            }
        };
        if full {
            let view = &layer.view;
            stats = self.draw(ctx, renderer, &mut encoder, view, &jobs, screen, true);
        } else if !to_draw.is_empty() {
            let painted = stats.painted_pixels;
            let view = &layer.view;
            self.draw(ctx, renderer, &mut encoder, view, &to_draw, screen, false);
            stats.painted_pixels = painted;
        }
        encoder.copy_texture_to_texture(
            layer.texture.as_image_copy(),
            target.as_image_copy(),
            wgpu::Extent3d {
                width: size[0],
                height: size[1],
                depth_or_array_layers: 1,
            },
        );
        ctx.queue.submit([encoder.finish()]);
        self.previous = jobs;
        stats
    }

    /// The last painted frame in a readable texture (`COPY_SRC`, the window's format):
    /// the layer itself, or — when the window is painted in full — the last frame's
    /// jobs painted again into a new texture.
    pub(crate) fn capture(
        &self,
        ctx: &RenderContext,
        renderer: &mut egui_wgpu::Renderer,
        screen: &egui_wgpu::ScreenDescriptor,
    ) -> wgpu::Texture {
        if let Some(layer) = self
            .layer
            .as_ref()
            .filter(|l| l.size == screen.size_in_pixels)
        {
            return layer.texture.clone();
        }
        let layer = self.new_layer(ctx, screen.size_in_pixels);
        let mut encoder = ctx
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("window capture"),
            });
        self.draw(
            ctx,
            renderer,
            &mut encoder,
            &layer.view,
            &self.previous,
            screen,
            true,
        );
        ctx.queue.submit([encoder.finish()]);
        layer.texture
    }

    fn new_layer(&self, ctx: &RenderContext, size: [u32; 2]) -> Layer {
        let texture = ctx.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("ui layer"),
            size: wgpu::Extent3d {
                width: size[0].max(1),
                height: size[1].max(1),
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: self.format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let view = texture.create_view(&wgpu::TextureViewDescriptor::default());
        Layer {
            texture,
            view,
            size,
        }
    }

    /// Uploads and draws `jobs` in one pass (cleared to black when `clear`).
    #[allow(clippy::too_many_arguments)]
    fn draw(
        &self,
        ctx: &RenderContext,
        renderer: &mut egui_wgpu::Renderer,
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        jobs: &[ClippedPrimitive],
        screen: &egui_wgpu::ScreenDescriptor,
        clear: bool,
    ) -> PaintStats {
        let extra = renderer.update_buffers(&ctx.device, &ctx.queue, encoder, jobs, screen);
        if !extra.is_empty() {
            ctx.queue.submit(extra);
        }
        let load = if clear {
            wgpu::LoadOp::Clear(wgpu::Color::BLACK)
        } else {
            wgpu::LoadOp::Load
        };
        let pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("egui pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load,
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        let mut pass = pass.forget_lifetime();
        renderer.render(&mut pass, jobs, screen);
        PaintStats {
            painted_pixels: PixelRect::full(screen.size_in_pixels).area(),
            copied_pixels: 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui::epaint::Vertex;

    fn rect_job(min: (f32, f32), max: (f32, f32), color: Color32) -> ClippedPrimitive {
        let r = Rect::from_min_max(Pos2::new(min.0, min.1), Pos2::new(max.0, max.1));
        let mut mesh = Mesh::default();
        mesh.add_colored_rect(r, color);
        ClippedPrimitive {
            clip_rect: Rect::from_min_max(Pos2::ZERO, Pos2::new(100.0, 100.0)),
            primitive: Primitive::Mesh(mesh),
        }
    }

    const SIZE: [u32; 2] = [100, 100];

    #[test]
    fn unchanged_jobs_damage_nothing() {
        let jobs = vec![rect_job((0.0, 0.0), (10.0, 10.0), Color32::RED)];
        assert_eq!(damage(&jobs, &jobs, 1.0, SIZE, &[]), Damage::Rects(vec![]));
    }

    #[test]
    fn a_changed_mesh_damages_its_old_and_new_box() {
        let old = vec![rect_job((10.0, 10.0), (20.0, 20.0), Color32::RED)];
        let new = vec![rect_job((12.0, 10.0), (22.0, 20.0), Color32::RED)];
        assert_eq!(
            damage(&old, &new, 1.0, SIZE, &[]),
            Damage::Rects(vec![PixelRect {
                min: [9, 9],
                max: [23, 21]
            }])
        );
    }

    #[test]
    fn structural_changes_and_large_damage_repaint_everything() {
        let a = vec![rect_job((0.0, 0.0), (10.0, 10.0), Color32::RED)];
        let two = vec![a[0].clone(), a[0].clone()];
        assert_eq!(damage(&a, &two, 1.0, SIZE, &[]), Damage::Full);
        let big = vec![rect_job((0.0, 0.0), (90.0, 90.0), Color32::BLUE)];
        assert_eq!(damage(&a, &big, 1.0, SIZE, &[]), Damage::Full);
        let mut moved = a.clone();
        moved[0].clip_rect = Rect::from_min_max(Pos2::ZERO, Pos2::new(50.0, 50.0));
        assert_eq!(damage(&a, &moved, 1.0, SIZE, &[]), Damage::Full);
    }

    #[test]
    fn a_redrawn_native_texture_damages_where_it_shows() {
        let id = TextureId::User(3);
        let mut thumb = rect_job((30.0, 40.0), (50.0, 50.0), Color32::WHITE);
        if let Primitive::Mesh(m) = &mut thumb.primitive {
            m.texture_id = id;
        }
        let jobs = vec![rect_job((0.0, 0.0), (10.0, 10.0), Color32::RED), thumb];
        let rects: Vec<PixelRect> = textured_rects(&jobs, &[id], 1.0, SIZE).collect();
        assert_eq!(
            rects,
            vec![PixelRect {
                min: [29, 39],
                max: [51, 51]
            }]
        );
        assert_eq!(
            textured_rects(&jobs, &[TextureId::User(4)], 1.0, SIZE).count(),
            0
        );
        // The same jobs again: only the redrawn thumbnail is repainted.
        assert_eq!(
            damage(&jobs, &jobs, 1.0, SIZE, &rects),
            Damage::Rects(rects.clone())
        );
    }

    #[test]
    fn nearby_rects_merge_and_distant_ones_stay_apart() {
        let merged = merge(vec![
            PixelRect {
                min: [0, 0],
                max: [10, 10],
            },
            PixelRect {
                min: [12, 0],
                max: [20, 10],
            },
            PixelRect {
                min: [60, 60],
                max: [70, 70],
            },
        ]);
        assert_eq!(
            merged,
            vec![
                PixelRect {
                    min: [0, 0],
                    max: [20, 10]
                },
                PixelRect {
                    min: [60, 60],
                    max: [70, 70]
                },
            ]
        );
    }

    #[test]
    fn the_view_image_is_found_only_when_shown_one_to_one() {
        let id = TextureId::User(7);
        let image = |max: f32| {
            let mut mesh = Mesh::with_texture(id);
            mesh.add_rect_with_uv(
                Rect::from_min_max(Pos2::new(20.0, 10.0), Pos2::new(max, 50.0)),
                Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0)),
                Color32::WHITE,
            );
            ClippedPrimitive {
                clip_rect: Rect::from_min_max(Pos2::ZERO, Pos2::new(100.0, 100.0)),
                primitive: Primitive::Mesh(mesh),
            }
        };
        let jobs = vec![rect_job((0.0, 0.0), (5.0, 5.0), Color32::RED), image(60.0)];
        assert_eq!(
            one_to_one_image(&jobs, id, [40, 40], 1.0, SIZE),
            Some((
                1,
                PixelRect {
                    min: [20, 10],
                    max: [60, 50]
                }
            ))
        );
        // Scaled (a 40×40 texture over 41 px) or at half pixels: egui must sample it.
        assert_eq!(
            one_to_one_image(&[image(61.0)], id, [40, 40], 1.0, SIZE),
            None
        );
        assert_eq!(
            one_to_one_image(&[image(60.0)], id, [40, 40], 1.5, SIZE),
            None
        );
    }

    #[test]
    fn clipping_to_a_rect_keeps_only_jobs_that_reach_it() {
        let jobs = vec![
            rect_job((0.0, 0.0), (10.0, 10.0), Color32::RED),
            rect_job((50.0, 50.0), (60.0, 60.0), Color32::RED),
        ];
        let rect = PixelRect {
            min: [40, 40],
            max: [70, 70],
        };
        let kept: Vec<_> = clipped_to(&jobs, rect, 1.0, SIZE).collect();
        assert_eq!(kept.len(), 1);
        assert_eq!(PixelRect::from_clip(&kept[0].clip_rect, 1.0, SIZE), rect);
        // A clear job covers exactly its rect.
        let Primitive::Mesh(m) = clear_job(rect, 1.0).primitive else {
            unreachable!()
        };
        let corners: Vec<Pos2> = m.vertices.iter().map(|v: &Vertex| v.pos).collect();
        assert!(
            corners.contains(&Pos2::new(40.0, 40.0)) && corners.contains(&Pos2::new(70.0, 70.0))
        );
    }

    /// One frame of a small UI: a label that changes with `t`, the "3D view" image at
    /// an exact pixel rect, and an overlay drawn over the image that moves with `t`.
    fn frame(
        ctx: &egui::Context,
        image: TextureId,
        t: u32,
    ) -> (Vec<ClippedPrimitive>, egui::TexturesDelta) {
        let input = egui::RawInput {
            screen_rect: Some(Rect::from_min_size(Pos2::ZERO, egui::vec2(160.0, 120.0))),
            ..Default::default()
        };
        let out = ctx.run_ui(input, |ui| {
            // Every digit each frame, so the font atlas is complete after the first.
            ui.label(format!("time {t} of 0123456789"));
            let painter = ui.painter();
            painter.image(
                image,
                Rect::from_min_size(Pos2::new(20.0, 40.0), egui::vec2(64.0, 48.0)),
                Rect::from_min_max(Pos2::ZERO, Pos2::new(1.0, 1.0)),
                Color32::WHITE,
            );
            painter.circle_filled(Pos2::new(30.0 + t as f32 * 7.0, 60.0), 5.0, Color32::YELLOW);
            painter.rect_filled(
                Rect::from_min_size(Pos2::new(100.0, 90.0), egui::vec2(20.0, 10.0)),
                2.0,
                Color32::from_rgb(40, 90, 200),
            );
        });
        (ctx.tessellate(out.shapes, 1.0), out.textures_delta)
    }

    #[test]
    fn partial_repaints_equal_full_repaints() {
        let Some(gpu) = RenderContext::for_tests() else {
            return;
        };
        let format = wgpu::TextureFormat::Rgba8Unorm;
        let texture = |w: u32, h: u32, usage: wgpu::TextureUsages| {
            gpu.device.create_texture(&wgpu::TextureDescriptor {
                label: None,
                size: wgpu::Extent3d {
                    width: w,
                    height: h,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        let view_texture = texture(
            64,
            48,
            wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::COPY_DST,
        );
        let fill = |seed: u8| {
            let pixels: Vec<u8> = (0..64 * 48 * 4)
                .map(|i: usize| {
                    if i % 4 == 3 {
                        255
                    } else {
                        (i as u8).wrapping_mul(seed)
                    }
                })
                .collect();
            gpu.queue.write_texture(
                view_texture.as_image_copy(),
                &pixels,
                wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(64 * 4),
                    rows_per_image: None,
                },
                wgpu::Extent3d {
                    width: 64,
                    height: 48,
                    depth_or_array_layers: 1,
                },
            );
        };
        let screen = egui_wgpu::ScreenDescriptor {
            size_in_pixels: [160, 120],
            pixels_per_point: 1.0,
        };
        let usage = wgpu::TextureUsages::RENDER_ATTACHMENT
            | wgpu::TextureUsages::COPY_DST
            | wgpu::TextureUsages::COPY_SRC;
        // Paints frames 0..=last through one compositor; returns the last frame's pixels.
        let run = |frames: &[(u32, u8)]| {
            let egui_ctx = egui::Context::default();
            let mut renderer = egui_wgpu::Renderer::new(
                &gpu.device,
                format,
                egui_wgpu::RendererOptions::default(),
            );
            let view = view_texture.create_view(&wgpu::TextureViewDescriptor::default());
            let id =
                renderer.register_native_texture(&gpu.device, &view, wgpu::FilterMode::Nearest);
            let mut compositor = Compositor::new(format, usage);
            let target = texture(160, 120, usage);
            let mut stats = PaintStats::default();
            for &(t, seed) in frames {
                fill(seed);
                let (jobs, mut delta) = frame(&egui_ctx, id, t);
                for (tid, deltas) in &delta.set {
                    for d in deltas {
                        renderer.update_texture(&gpu.device, &gpu.queue, *tid, d);
                    }
                }
                let image = ViewImage {
                    id,
                    texture: &view_texture,
                };
                stats = compositor.paint(
                    &gpu,
                    &mut renderer,
                    &target,
                    jobs,
                    &screen,
                    !delta.set.is_empty(),
                    Some(image),
                    &[],
                );
                delta.clear();
            }
            let pixels =
                crate::render::target::read_texture_region(&gpu, &target, (0, 0), (160, 120), 4)
                    .expect("readback");
            (pixels, stats)
        };
        // Frame 2 is seen before the last frame, so egui's atlas (glyphs at sub-pixel
        // offsets) no longer changes: the last paint is a partial one.
        let (partial, stats) = run(&[(2, 3), (0, 3), (2, 5)]);
        let (full, _) = run(&[(2, 5)]);
        assert!(stats.copied_pixels == 64 * 48, "{stats:?}");
        assert!(
            stats.painted_pixels > 0 && stats.painted_pixels < 160 * 120 / 2,
            "{stats:?}"
        );
        let differing = partial
            .chunks(4)
            .zip(full.chunks(4))
            .filter(|(a, b)| a != b)
            .count();
        assert_eq!(
            differing, 0,
            "partial repaint differs from a full one in {differing} pixels"
        );
    }
}
