//! A plain 8-bit RGBA image and PNG input/output.
//!
//! This is the exchange type between texture decoding, the renderer's read-back and the
//! CLI: rows are stored top to bottom (row 0 is texture coordinate t = 0, the first row
//! a TXTR stores), four bytes per pixel, no padding, straight (not premultiplied) alpha.

use std::io::Cursor;
use std::path::Path;

/// Why a PNG could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum ImageError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    #[error("PNG decoding failed: {0}")]
    Decode(#[from] png::DecodingError),
    #[error("PNG encoding failed: {0}")]
    Encode(#[from] png::EncodingError),
    #[error("image of {width}×{height} needs {expected} bytes of RGBA, got {actual}")]
    Size {
        width: u32,
        height: u32,
        expected: usize,
        actual: usize,
    },
    #[error("PNG of {width}×{height} is too large (limit {limit} pixels)")]
    TooLarge { width: u32, height: u32, limit: u64 },
}

/// Largest PNG [`RgbaImage::load_png`] accepts (a 16384 × 16384 RGBA image is 1 GiB).
pub const MAX_PNG_PIXELS: u64 = 16384 * 16384;

/// An RGBA8 image, rows top to bottom, `pixels.len() == width * height * 4`.
#[derive(Clone, PartialEq, Eq)]
pub struct RgbaImage {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

impl std::fmt::Debug for RgbaImage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RgbaImage({}×{})", self.width, self.height)
    }
}

impl RgbaImage {
    /// A transparent black image.
    pub fn new(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            pixels: vec![0; width as usize * height as usize * 4],
        }
    }

    /// Wraps RGBA bytes, checking their length.
    pub fn from_pixels(width: u32, height: u32, pixels: Vec<u8>) -> Result<Self, ImageError> {
        let expected = width as usize * height as usize * 4;
        if pixels.len() != expected {
            return Err(ImageError::Size {
                width,
                height,
                expected,
                actual: pixels.len(),
            });
        }
        Ok(Self {
            width,
            height,
            pixels,
        })
    }

    /// An image whose pixel (x, y) is `f(x, y)`.
    pub fn from_fn(width: u32, height: u32, mut f: impl FnMut(u32, u32) -> [u8; 4]) -> Self {
        let mut pixels = Vec::with_capacity(width as usize * height as usize * 4);
        for y in 0..height {
            for x in 0..width {
                pixels.extend_from_slice(&f(x, y));
            }
        }
        Self {
            width,
            height,
            pixels,
        }
    }

    /// The pixel at (x, y); panics when outside the image.
    pub fn pixel(&self, x: u32, y: u32) -> [u8; 4] {
        let i = (y as usize * self.width as usize + x as usize) * 4;
        [
            self.pixels[i],
            self.pixels[i + 1],
            self.pixels[i + 2],
            self.pixels[i + 3],
        ]
    }

    /// Sets the pixel at (x, y); panics when outside the image.
    pub fn set_pixel(&mut self, x: u32, y: u32, rgba: [u8; 4]) {
        let i = (y as usize * self.width as usize + x as usize) * 4;
        self.pixels[i..i + 4].copy_from_slice(&rgba);
    }

    /// The sub-image at (x, y) of size w × h (clipped to the image).
    pub fn crop(&self, x: u32, y: u32, w: u32, h: u32) -> RgbaImage {
        let w = w.min(self.width.saturating_sub(x));
        let h = h.min(self.height.saturating_sub(y));
        let mut pixels = Vec::with_capacity(w as usize * h as usize * 4);
        for row in y..y + h {
            let start = (row as usize * self.width as usize + x as usize) * 4;
            pixels.extend_from_slice(&self.pixels[start..start + w as usize * 4]);
        }
        RgbaImage {
            width: w,
            height: h,
            pixels,
        }
    }

    /// Number of pixels.
    pub fn pixel_count(&self) -> usize {
        self.width as usize * self.height as usize
    }

    /// The image encoded as an 8-bit RGBA PNG.
    pub fn encode_png(&self) -> Result<Vec<u8>, ImageError> {
        self.encode(png::ColorType::Rgba, &self.pixels)
    }

    /// The colour channels alone as an 8-bit RGB PNG (alpha dropped, colour kept exactly):
    /// for readers that would premultiply a straight alpha the image does not use.
    pub fn encode_rgb_png(&self) -> Result<Vec<u8>, ImageError> {
        let rgb: Vec<u8> = self
            .pixels
            .chunks_exact(4)
            .flat_map(|p| [p[0], p[1], p[2]])
            .collect();
        self.encode(png::ColorType::Rgb, &rgb)
    }

    fn encode(&self, color: png::ColorType, data: &[u8]) -> Result<Vec<u8>, ImageError> {
        let mut out = Vec::new();
        {
            let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
            encoder.set_color(color);
            encoder.set_depth(png::BitDepth::Eight);
            let mut writer = encoder.write_header()?;
            writer.write_image_data(data)?;
            writer.finish()?;
        }
        Ok(out)
    }

    /// Writes the image as a PNG file (a temporary file renamed over `path`).
    pub fn save_png(&self, path: impl AsRef<Path>) -> Result<(), ImageError> {
        let path = path.as_ref();
        let bytes = self.encode_png()?;
        crate::atomic::write_atomically(path, &bytes).map_err(|source| ImageError::Io {
            path: path.display().to_string(),
            source,
        })
    }

    /// Decodes a PNG of any colour type and bit depth into RGBA8 (grey is replicated,
    /// missing alpha is 255, 16-bit channels keep their high byte).
    pub fn decode_png(bytes: &[u8]) -> Result<Self, ImageError> {
        let mut decoder = png::Decoder::new(Cursor::new(bytes));
        decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
        let mut reader = decoder.read_info()?;
        let (width, height) = {
            let info = reader.info();
            (info.width, info.height)
        };
        if u64::from(width) * u64::from(height) > MAX_PNG_PIXELS {
            return Err(ImageError::TooLarge {
                width,
                height,
                limit: MAX_PNG_PIXELS,
            });
        }
        let (color, _) = reader.output_color_type();
        let size = reader.output_buffer_size().ok_or(ImageError::TooLarge {
            width,
            height,
            limit: MAX_PNG_PIXELS,
        })?;
        let mut buf = vec![0; size];
        let frame = reader.next_frame(&mut buf)?;
        buf.truncate(frame.buffer_size());
        let n = width as usize * height as usize;
        let pixels = match color {
            png::ColorType::Rgba => buf,
            png::ColorType::Rgb => buf
                .chunks_exact(3)
                .flat_map(|c| [c[0], c[1], c[2], 255])
                .collect(),
            png::ColorType::GrayscaleAlpha => buf
                .chunks_exact(2)
                .flat_map(|c| [c[0], c[0], c[0], c[1]])
                .collect(),
            png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
            // EXPAND turns indexed images into RGB(A); this arm is not reached.
            png::ColorType::Indexed => vec![0; n * 4],
        };
        Self::from_pixels(width, height, pixels)
    }

    /// Reads a PNG file (see [`RgbaImage::decode_png`]).
    pub fn load_png(path: impl AsRef<Path>) -> Result<Self, ImageError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| ImageError::Io {
            path: path.display().to_string(),
            source,
        })?;
        Self::decode_png(&bytes)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn png_round_trip_is_exact() {
        let img = RgbaImage::from_fn(5, 3, |x, y| [x as u8 * 40, y as u8 * 70, 7, 255 - x as u8]);
        let png = img.encode_png().unwrap();
        let back = RgbaImage::decode_png(&png).unwrap();
        assert_eq!(back, img);
        assert_eq!(back.pixel(4, 2), [160, 140, 7, 251]);
    }

    #[test]
    fn rgb_png_drops_alpha_and_keeps_colour() {
        let img = RgbaImage::from_fn(3, 2, |x, y| [x as u8 * 90, y as u8 * 100, 5, x as u8]);
        let png = img.encode_rgb_png().unwrap();
        let info = png::Decoder::new(Cursor::new(&png)).read_info().unwrap();
        assert_eq!(info.info().color_type, png::ColorType::Rgb);
        let back = RgbaImage::decode_png(&png).unwrap();
        let opaque = RgbaImage::from_fn(3, 2, |x, y| {
            let [r, g, b, _] = img.pixel(x, y);
            [r, g, b, 255]
        });
        assert_eq!(back, opaque);
    }

    #[test]
    fn grey_and_rgb_pngs_expand_to_rgba() {
        let mut out = Vec::new();
        {
            let mut e = png::Encoder::new(&mut out, 2, 1);
            e.set_color(png::ColorType::Grayscale);
            e.set_depth(png::BitDepth::Eight);
            let mut w = e.write_header().unwrap();
            w.write_image_data(&[10, 200]).unwrap();
        }
        let img = RgbaImage::decode_png(&out).unwrap();
        assert_eq!(img.pixels, vec![10, 10, 10, 255, 200, 200, 200, 255]);
    }

    #[test]
    fn wrong_buffer_size_is_rejected() {
        assert!(RgbaImage::from_pixels(2, 2, vec![0; 15]).is_err());
        assert!(RgbaImage::decode_png(b"not a png").is_err());
    }
}
