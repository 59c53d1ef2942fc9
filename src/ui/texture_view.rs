//! The texture view's state and math, with no egui drawing (so it is unit-tested): which
//! texture is shown (a TXTR document, or a texture map of the selected material), its mip
//! level, channel view and sampling, zoom and pan at the true aspect ratio, the texel under
//! the cursor, and PNG export of the shown level. Levels and channels are converted on the
//! CPU from the document's [`TextureData`]; only the displayed image is uploaded
//! ([`TextureView::cached`]).

use std::path::{Path, PathBuf};

use crate::model::TextureData;

use super::prefs::with_png_extension;
use crate::session::{Asset, Content};

/// How the texels are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Channels {
    /// Colour with alpha, over the checkerboard.
    #[default]
    Rgba,
    Red,
    Green,
    Blue,
    /// Alpha as grey.
    Alpha,
    /// Colour with alpha ignored.
    Rgb,
    /// White at the texel's alpha over the checkerboard (the coverage alone).
    AlphaOverChecker,
}

impl Channels {
    pub const ALL: [Channels; 7] = [
        Channels::Rgba,
        Channels::Red,
        Channels::Green,
        Channels::Blue,
        Channels::Alpha,
        Channels::Rgb,
        Channels::AlphaOverChecker,
    ];

    pub fn label(self) -> &'static str {
        match self {
            Channels::Rgba => "RGBA",
            Channels::Red => "R",
            Channels::Green => "G",
            Channels::Blue => "B",
            Channels::Alpha => "A",
            Channels::Rgb => "RGB",
            Channels::AlphaOverChecker => "A mask",
        }
    }

    pub fn hint(self) -> &'static str {
        match self {
            Channels::Rgba => "Colour with alpha, over a checkerboard",
            Channels::Red => "Red as grey",
            Channels::Green => "Green as grey",
            Channels::Blue => "Blue as grey",
            Channels::Alpha => "Alpha as grey",
            Channels::Rgb => "Colour without alpha",
            Channels::AlphaOverChecker => {
                "Alpha alone: white at the texel's alpha over a checkerboard"
            }
        }
    }

    /// The displayed RGBA8 (unpremultiplied) of one texel.
    pub fn convert(self, [r, g, b, a]: [u8; 4]) -> [u8; 4] {
        match self {
            Channels::Rgba => [r, g, b, a],
            Channels::Red => [r, r, r, 255],
            Channels::Green => [g, g, g, 255],
            Channels::Blue => [b, b, b, 255],
            Channels::Alpha => [a, a, a, 255],
            Channels::Rgb => [r, g, b, 255],
            Channels::AlphaOverChecker => [255, 255, 255, a],
        }
    }

    /// Whether the view shows transparency (the checkerboard goes under it).
    pub fn uses_alpha(self) -> bool {
        matches!(self, Channels::Rgba | Channels::AlphaOverChecker)
    }

    /// Every texel of an RGBA8 level converted.
    pub fn convert_level(self, rgba: &[u8]) -> Vec<u8> {
        rgba.chunks_exact(4)
            .flat_map(|t| self.convert([t[0], t[1], t[2], t[3]]))
            .collect()
    }
}

/// Every mip level of `texture` with its size: (level, width, height).
pub fn mip_levels(texture: &TextureData) -> Vec<(usize, u32, u32)> {
    (0..texture.levels.len())
        .map(|l| {
            let (w, h) = texture.level_size(l);
            (l, w, h)
        })
        .collect()
}

/// Zoom limits in points per texel.
pub const MIN_ZOOM: f32 = 1.0 / 64.0;
pub const MAX_ZOOM: f32 = 512.0;

/// The zoom (points per texel) that fits a `size` texture whole into a `view` at its true
/// aspect ratio.
pub fn fit_zoom(size: [u32; 2], view: [f32; 2]) -> f32 {
    let (w, h) = (size[0].max(1) as f32, size[1].max(1) as f32);
    (view[0] / w).min(view[1] / h).clamp(MIN_ZOOM, MAX_ZOOM)
}

/// Where the image lies: its top-left corner and size in points, for a `size` texture at
/// `zoom` whose centre is `pan` points from the view centre `center`.
pub fn image_rect(
    size: [u32; 2],
    zoom: f32,
    pan: [f32; 2],
    center: [f32; 2],
) -> ([f32; 2], [f32; 2]) {
    let extent = [size[0] as f32 * zoom, size[1] as f32 * zoom];
    let min = [
        center[0] + pan[0] - extent[0] * 0.5,
        center[1] + pan[1] - extent[1] * 0.5,
    ];
    (min, extent)
}

/// The texel under `pos` (points) of an image whose top-left is `min` at `zoom`; None
/// outside the `size` texture.
pub fn texel_at(pos: [f32; 2], min: [f32; 2], zoom: f32, size: [u32; 2]) -> Option<(u32, u32)> {
    let x = ((pos[0] - min[0]) / zoom).floor();
    let y = ((pos[1] - min[1]) / zoom).floor();
    (x >= 0.0 && y >= 0.0 && x < size[0] as f32 && y < size[1] as f32)
        .then_some((x as u32, y as u32))
}

/// Zooms from `zoom` to `new_zoom` keeping the point under `anchor` (points from the view
/// centre) in place: the new pan.
pub fn zoom_about(pan: [f32; 2], zoom: f32, new_zoom: f32, anchor: [f32; 2]) -> [f32; 2] {
    let k = new_zoom / zoom.max(f32::MIN_POSITIVE);
    [
        anchor[0] - (anchor[0] - pan[0]) * k,
        anchor[1] - (anchor[1] - pan[1]) * k,
    ]
}

/// What identifies the displayed image: an upload is made only when it changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ShownKey {
    pub doc_revision: u64,
    pub set: usize,
    pub material: usize,
    pub slot: usize,
    pub level: usize,
    pub channels: Channels,
    pub filtered: bool,
}

/// The texture view's settings.
#[derive(Default)]
pub struct TextureView {
    /// Model: the texture map of the selected material shown instead of the 3D view.
    pub slot: Option<usize>,
    pub level: usize,
    pub channels: Channels,
    /// Bilinear filtering instead of nearest texels.
    pub filtered: bool,
    /// Points per texel; None fits the view (and follows its size).
    pub zoom: Option<f32>,
    /// Image centre relative to the view centre, in points.
    pub pan: [f32; 2],
    /// Export path field (the fallback when no native dialog is available).
    pub export_text: String,
    pub export_open: bool,
    /// The default path last offered (replaced by the next level's unless edited).
    pub(crate) export_default: String,
    /// The last export's outcome (Ok: the line shown; Err: why it failed).
    pub export_result: Option<Result<String, String>>,
    /// The canvas size (points) last drawn, for the toolbar above it.
    pub(crate) canvas: [f32; 2],
    /// The uploaded image of the current view.
    pub(crate) cached: Option<(ShownKey, egui::TextureHandle)>,
}

impl TextureView {
    /// A new document: back to level 0, fitted, nothing uploaded; the channel view and
    /// sampling stay.
    pub fn document_opened(&mut self) {
        self.slot = None;
        self.reset_view();
        self.export_open = false;
        self.export_result = None;
    }

    /// Shows texture map `slot` of the selection (None: the 3D view again).
    pub fn show_slot(&mut self, slot: Option<usize>) {
        if self.slot != slot {
            self.slot = slot;
            self.reset_view();
        }
    }

    fn reset_view(&mut self) {
        self.level = 0;
        self.zoom = None;
        self.pan = [0.0; 2];
        self.cached = None;
    }

    /// Zoom by `factor` about `anchor` (points from the view centre), from the current
    /// zoom (`fitted` when fitting).
    pub fn zoom_by(&mut self, factor: f32, anchor: [f32; 2], fitted: f32) {
        let zoom = self.zoom.unwrap_or(fitted);
        let new_zoom = (zoom * factor).clamp(MIN_ZOOM, MAX_ZOOM);
        self.pan = zoom_about(self.pan, zoom, new_zoom, anchor);
        self.zoom = Some(new_zoom);
    }

    /// Fit the view (and centre the image).
    pub fn fit(&mut self) {
        self.zoom = None;
        self.pan = [0.0; 2];
    }

    /// One texel per physical pixel, centred.
    pub fn one_to_one(&mut self, pixels_per_point: f32) {
        self.zoom = Some((1.0 / pixels_per_point.max(1e-3)).clamp(MIN_ZOOM, MAX_ZOOM));
        self.pan = [0.0; 2];
    }
}

/// The texture the view shows: the TXTR document's, or map `slot` of material (`set`,
/// `material`) (None when that map is missing). With its label for file names.
pub fn shown_texture(
    doc: &Asset,
    set: usize,
    material: usize,
    slot: Option<usize>,
) -> Option<ShownTexture<'_>> {
    match &doc.content {
        Content::Texture { texture, .. } => Some(ShownTexture {
            texture,
            slot: 0,
            id: None,
            stem: doc.stem.clone(),
        }),
        Content::Model { .. } => {
            let slot = slot?;
            let id = doc
                .material(set, material)?
                .texture_ids
                .get(slot)
                .copied()?;
            let texture = doc.texture(id?)?;
            let stem = match id {
                Some(id) => crate::session::asset::texture_id_text(id),
                None => format!("{}_map{slot}", doc.stem),
            };
            Some(ShownTexture {
                texture,
                slot,
                id,
                stem,
            })
        }
    }
}

/// A texture the view shows.
pub struct ShownTexture<'a> {
    pub texture: &'a TextureData,
    /// The material's texture map (0 for a TXTR document).
    pub slot: usize,
    /// The map's TXTR asset ID (None for a TXTR document).
    pub id: Option<u64>,
    /// File stem for exports (the TXTR's name or asset ID).
    pub stem: String,
}

impl ShownTexture<'_> {
    /// The default export path of `level`: next to the document, named like `extract --png`.
    pub fn export_path(&self, doc: &Asset, level: usize) -> PathBuf {
        doc.dir
            .join(crate::export::textures::png_name(&self.stem, level))
    }
}

/// Writes mip `level` of `texture` exactly to `path` (`.png` added), temporary file and
/// rename; returns the line the view shows.
pub fn export_level(texture: &TextureData, level: usize, path: &Path) -> anyhow::Result<String> {
    let path = with_png_extension(path);
    let what = format!("level {level}");
    let file = crate::export::textures::write_level_png(texture, level, &path, &what)?;
    Ok(format!(
        "Saved level {} ({}x{}) to {}",
        file.level,
        file.width,
        file.height,
        file.path.display()
    ))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn a_wide_texture_keeps_its_aspect_when_fitted() {
        // 32x8 in a square view: 4:1, as wide as the view.
        let z = fit_zoom([32, 8], [400.0, 400.0]);
        assert_eq!(z, 12.5);
        let (min, size) = image_rect([32, 8], z, [0.0; 2], [200.0, 200.0]);
        assert_eq!(size, [400.0, 100.0]);
        assert_eq!(min, [0.0, 150.0]);
        // A tall one in a wide view: limited by the height.
        assert_eq!(fit_zoom([8, 64], [1000.0, 320.0]), 5.0);
    }

    #[test]
    fn zoom_keeps_the_texel_under_the_cursor() {
        let size = [64, 32];
        let center = [300.0, 200.0];
        let mut view = TextureView::default();
        let fitted = fit_zoom(size, [600.0, 400.0]);
        let cursor = [410.0, 233.0];
        let (min, _) = image_rect(size, fitted, view.pan, center);
        let before = texel_at(cursor, min, fitted, size).unwrap();
        let anchor = [cursor[0] - center[0], cursor[1] - center[1]];
        view.zoom_by(3.7, anchor, fitted);
        let zoom = view.zoom.unwrap();
        assert!((zoom - fitted * 3.7).abs() < 1e-4);
        let (min, _) = image_rect(size, zoom, view.pan, center);
        assert_eq!(texel_at(cursor, min, zoom, size).unwrap(), before);
        // Clamped at the limits; fit and 1:1 centre the image.
        view.zoom_by(1e9, anchor, fitted);
        assert_eq!(view.zoom, Some(MAX_ZOOM));
        view.one_to_one(2.0);
        assert_eq!((view.zoom, view.pan), (Some(0.5), [0.0; 2]));
        view.fit();
        assert_eq!((view.zoom, view.pan), (None, [0.0; 2]));
    }

    #[test]
    fn texel_readout_is_inside_the_image_only() {
        let size = [4, 2];
        assert_eq!(
            texel_at([10.0, 10.0], [10.0, 10.0], 8.0, size),
            Some((0, 0))
        );
        assert_eq!(
            texel_at([41.9, 25.9], [10.0, 10.0], 8.0, size),
            Some((3, 1))
        );
        assert_eq!(texel_at([42.0, 12.0], [10.0, 10.0], 8.0, size), None);
        assert_eq!(texel_at([9.9, 12.0], [10.0, 10.0], 8.0, size), None);
    }

    #[test]
    fn channels_convert_each_texel() {
        let t = [10, 20, 30, 40];
        let got: Vec<[u8; 4]> = Channels::ALL.iter().map(|c| c.convert(t)).collect();
        assert_eq!(
            got,
            [
                [10, 20, 30, 40],
                [10, 10, 10, 255],
                [20, 20, 20, 255],
                [30, 30, 30, 255],
                [40, 40, 40, 255],
                [10, 20, 30, 255],
                [255, 255, 255, 40],
            ]
        );
        assert_eq!(
            Channels::Green.convert_level(&[1, 2, 3, 4, 5, 6, 7, 8]),
            [2, 2, 2, 255, 6, 6, 6, 255]
        );
    }

    fn chain() -> TextureData {
        let level = |w: u32, h: u32, seed: u8| {
            (0..w * h * 4)
                .map(|i| (i as u8).wrapping_mul(seed))
                .collect()
        };
        TextureData {
            width: 32,
            height: 8,
            levels: vec![level(32, 8, 3), level(16, 4, 5), level(8, 2, 7)],
        }
    }

    #[test]
    fn every_mip_level_is_listed_with_its_size() {
        let t = chain();
        assert_eq!(mip_levels(&t), [(0, 32, 8), (1, 16, 4), (2, 8, 2)]);
        let i = (3 * 16 + 5) * 4;
        assert_eq!(
            t.level_texel(1, 5, 3),
            Some([
                t.levels[1][i],
                t.levels[1][i + 1],
                t.levels[1][i + 2],
                t.levels[1][i + 3]
            ])
        );
        assert_eq!(t.level_texel(1, 16, 0), None);
        assert_eq!(t.level_texel(3, 0, 0), None);
    }

    #[test]
    fn export_writes_the_shown_level_exactly() {
        let t = chain();
        let dir = std::env::temp_dir().join(format!("tevscope-texview-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // `.png` is added; the file holds level 1's texels exactly.
        let line = export_level(&t, 1, &dir.join("out")).unwrap();
        assert!(line.contains("16x4"), "{line}");
        let img = crate::image::RgbaImage::load_png(dir.join("out.png")).unwrap();
        assert_eq!((img.width, img.height), (16, 4));
        assert_eq!(img.pixels, t.levels[1]);
        // An existing .PNG extension is kept; a level the texture lacks is an error.
        assert_eq!(
            with_png_extension(Path::new("a/b.PNG")),
            Path::new("a/b.PNG")
        );
        assert!(export_level(&t, 3, &dir.join("none.png")).is_err());
        assert!(!dir.join("none.png").exists());
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["out.png"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
