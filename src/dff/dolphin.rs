//! Playing a DFF with Dolphin's software renderer (`gx.md` §17.6) and reading the frame back
//! exactly through its texture dump (§17.7). Dolphin is an external program the user
//! installs (Debian `dolphin-emu`); it runs under a private Xvfb with its own temporary user
//! folder, so the user's configuration is never read or written.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::image::RgbaImage;
pub use crate::schema::dolphin::Route;

/// Why Dolphin could not give a frame back.
#[derive(Debug, thiserror::Error)]
pub enum DolphinError {
    #[error(
        "Dolphin is not installed: no dolphin-emu-nogui in /usr/games or PATH (set TEVSCOPE_DOLPHIN to its path, or install Debian's dolphin-emu)"
    )]
    NotInstalled,
    #[error("Xvfb is not installed (Dolphin's software renderer needs an X display)")]
    NoXvfb,
    #[error("{what}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error("Dolphin ran for more than {0} s; stopped")]
    Timeout(u64),
    #[error(
        "Dolphin wrote no {width}×{height} RGBA8 texture dump under {dir} (exit {status}); its log: {log}"
    )]
    NoDump {
        width: u32,
        height: u32,
        dir: String,
        status: String,
        log: String,
    },
    #[error("reading Dolphin's dump {path}")]
    Image {
        path: String,
        #[source]
        source: crate::image::ImageError,
    },
}

fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> DolphinError {
    let what = what.into();
    move |source| DolphinError::Io { what, source }
}

/// The Dolphin binary: `TEVSCOPE_DOLPHIN`, Debian's /usr/games path, or PATH.
pub fn find_dolphin() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("TEVSCOPE_DOLPHIN") {
        return Some(PathBuf::from(p)).filter(|p| p.is_file());
    }
    let games = PathBuf::from("/usr/games/dolphin-emu-nogui");
    if games.is_file() {
        return Some(games);
    }
    find_in_path("dolphin-emu-nogui")
}

fn find_in_path(name: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// A private X server, stopped on drop.
struct Xvfb {
    child: Child,
    display: String,
}

impl Xvfb {
    fn start() -> Result<Self, DolphinError> {
        let bin = find_in_path("Xvfb").ok_or(DolphinError::NoXvfb)?;
        // -displayfd: the server picks a free display and writes its number.
        let mut child = Command::new(bin)
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1024x768x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(io("starting Xvfb"))?;
        let mut line = String::new();
        if let Some(out) = child.stdout.take() {
            BufReader::new(out)
                .read_line(&mut line)
                .map_err(io("reading Xvfb's display number"))?;
        }
        let n = line.trim();
        if n.is_empty() {
            let _ = child.kill();
            let _ = child.wait();
            return Err(DolphinError::Io {
                what: "Xvfb exited without a display".into(),
                source: std::io::Error::other("no display number"),
            });
        }
        Ok(Self {
            display: format!(":{n}"),
            child,
        })
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A temporary folder removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new() -> Result<Self, DolphinError> {
        let base = std::env::temp_dir();
        for i in 0..1000u32 {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.subsec_nanos());
            let p = base.join(format!(
                "tevscope-dolphin-{}-{nanos}-{i}",
                std::process::id()
            ));
            if std::fs::create_dir(&p).is_ok() {
                return Ok(Self(p));
            }
        }
        Err(DolphinError::Io {
            what: format!("creating a temporary folder in {}", base.display()),
            source: std::io::Error::other("no free name"),
        })
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

const DOLPHIN_INI: &str = "[Core]\nGFXBackend = Software Renderer\nCPUThread = False\n\
[Movie]\nDumpFrames = True\nDumpFramesSilent = True\n\
[FifoPlayer]\nLoopReplay = False\n\
[Interface]\nUsePanicHandlers = False\nConfirmStop = False\n\
[Analytics]\nEnabled = False\nPermissionAsked = True\n";

const GFX_INI: &str = "[Settings]\nDumpFramesAsImages = True\nInternalResolutionFrameDumps = True\nDumpTextures = True\n\
[Hacks]\nImmediateXFBEnable = True\nSkipDuplicateXFBs = False\nDeferEFBCopies = False\n";

/// How long one playback may take.
pub const TIMEOUT: Duration = Duration::from_secs(180);

/// Plays `dff` (file bytes) and returns the read-back frame of `width` × `height`: the
/// newest RGBA8 texture dump of that size (`gx.md` §17.7), else the last XFB frame dump
/// (Dolphin 5.0-17995 here does not dump a texture that an EFB copy wrote).
pub fn play_readback(
    dff: &[u8],
    width: u32,
    height: u32,
) -> Result<(RgbaImage, Route), DolphinError> {
    let bin = find_dolphin().ok_or(DolphinError::NotInstalled)?;
    let dir = TempDir::new()?;
    let user = dir.0.join("user");
    let config = user.join("Config");
    std::fs::create_dir_all(&config).map_err(io(format!("creating {}", config.display())))?;
    std::fs::write(config.join("Dolphin.ini"), DOLPHIN_INI).map_err(io("writing Dolphin.ini"))?;
    std::fs::write(config.join("GFX.ini"), GFX_INI).map_err(io("writing GFX.ini"))?;
    let file = dir.0.join("frame.dff");
    std::fs::write(&file, dff).map_err(io(format!("writing {}", file.display())))?;
    let x = Xvfb::start()?;
    let log_path = dir.0.join("dolphin.log");
    let log = std::fs::File::create(&log_path).map_err(io("creating Dolphin's log"))?;
    let log_err = log.try_clone().map_err(io("creating Dolphin's log"))?;
    let mut child = Command::new(&bin)
        .arg("-u")
        .arg(&user)
        .args(["-p", "x11", "-e"])
        .arg(&file)
        .env("DISPLAY", &x.display)
        .env("HOME", &dir.0)
        .env("XDG_CONFIG_HOME", dir.0.join("xdg-config"))
        .env("XDG_DATA_HOME", dir.0.join("xdg-data"))
        .env("XDG_CACHE_HOME", dir.0.join("xdg-cache"))
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log_err)
        .spawn()
        .map_err(io(format!("starting {}", bin.display())))?;
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().map_err(io("waiting for Dolphin"))? {
            break s;
        }
        if start.elapsed() > TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(DolphinError::Timeout(TIMEOUT.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    drop(x);
    let dumps = user.join("Dump").join("Textures");
    let pad = super::scene::READBACK_PAD_ROWS;
    let found = newest_dump(&dumps, width, height + pad)
        .map(|p| (p, Route::TextureDump))
        .or_else(|| last_frame_dump(&user.join("Dump").join("Frames")).map(|p| (p, Route::Xfb)));
    let Some((path, route)) = found else {
        let log = std::fs::read_to_string(&log_path).unwrap_or_default();
        let tail: String = log
            .lines()
            .rev()
            .take(12)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join(" | ");
        return Err(DolphinError::NoDump {
            width,
            height,
            dir: dumps.display().to_string(),
            status: status.to_string(),
            log: tail,
        });
    };
    let image = RgbaImage::load_png(&path).map_err(|source| DolphinError::Image {
        path: path.display().to_string(),
        source,
    })?;
    Ok((
        image.crop(0, 0, width.min(image.width), height.min(image.height)),
        route,
    ))
}

/// `framedump_N.png` with the largest N.
fn last_frame_dump(dir: &Path) -> Option<PathBuf> {
    std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let n: u32 = name
                .strip_prefix("framedump_")?
                .strip_suffix(".png")?
                .parse()
                .ok()?;
            Some((n, e.path()))
        })
        .max_by_key(|(n, _)| *n)
        .map(|(_, p)| p)
}

/// The newest `tex1_<W>x<H>_…_6.png` under `dir` (any game-ID subfolder).
fn newest_dump(dir: &Path, width: u32, height: u32) -> Option<PathBuf> {
    let prefix = format!("tex1_{width}x{height}_");
    let mut best: Option<(std::time::SystemTime, PathBuf)> = None;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).ok()?.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with(&prefix) && name.ends_with("_6.png") {
                let t = e.metadata().and_then(|m| m.modified()).ok()?;
                if best.as_ref().is_none_or(|(bt, _)| t >= *bt) {
                    best = Some((t, p));
                }
            }
        }
    }
    best.map(|(_, p)| p)
}

/// Per-pixel comparison of two frames' RGB (the EFB stores no alpha).
#[derive(Debug, Clone, PartialEq)]
pub struct FrameDiff {
    pub pixels: u64,
    pub identical: u64,
    /// Largest per-channel difference.
    pub max_diff: u8,
    /// Pixels differing by at most 1 per channel.
    pub within_one: u64,
    /// |a − b| per channel, scaled ×16 (saturating) so 1-LSB differences show.
    pub image: RgbaImage,
}

impl FrameDiff {
    pub fn identical_share(&self) -> f64 {
        if self.pixels == 0 {
            1.0
        } else {
            self.identical as f64 / self.pixels as f64
        }
    }
}

/// Compares `a` and `b` (same size expected: the smaller common area is compared).
pub fn compare(a: &RgbaImage, b: &RgbaImage) -> FrameDiff {
    let (w, h) = (a.width.min(b.width), a.height.min(b.height));
    let mut image = RgbaImage::new(w, h);
    let (mut identical, mut within_one, mut max_diff) = (0u64, 0u64, 0u8);
    for y in 0..h {
        for x in 0..w {
            let (p, q) = (a.pixel(x, y), b.pixel(x, y));
            let d = [0, 1, 2].map(|c| p[c].abs_diff(q[c]));
            let m = d.into_iter().max().unwrap_or(0);
            max_diff = max_diff.max(m);
            identical += (m == 0) as u64;
            within_one += (m <= 1) as u64;
            image.set_pixel(
                x,
                y,
                [
                    d[0].saturating_mul(16),
                    d[1].saturating_mul(16),
                    d[2].saturating_mul(16),
                    255,
                ],
            );
        }
    }
    FrameDiff {
        pixels: w as u64 * h as u64,
        identical,
        max_diff,
        within_one,
        image,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_counts_identical_and_largest() {
        let a = RgbaImage::from_fn(4, 2, |x, _| [x as u8, 0, 0, 255]);
        let b = RgbaImage::from_fn(4, 2, |x, y| {
            [
                if y == 1 && x == 3 { 9 } else { x as u8 },
                (x == 0) as u8,
                0,
                0,
            ]
        });
        let d = compare(&a, &b);
        assert_eq!(
            (d.pixels, d.identical, d.within_one, d.max_diff),
            (8, 5, 7, 6)
        );
        assert_eq!(d.image.pixel(3, 1), [96, 0, 0, 255]);
        assert!((d.identical_share() - 5.0 / 8.0).abs() < 1e-12);
    }
}
