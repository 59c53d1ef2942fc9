//! `tevscope info DISC`: a disc image's header and files (a public JSON interface:
//! `{"disc": {"game_id", "title", "format", "files": [{"path", "size"}]}}`, in the README).

use std::fmt::Write as _;

use serde::Serialize;

#[derive(Debug, Serialize)]
pub struct DiscReport {
    pub disc: DiscInfo,
}

#[derive(Debug, Serialize)]
pub struct DiscInfo {
    /// Six characters: game code and maker (`GM8E01`).
    pub game_id: String,
    pub title: String,
    /// The container: `ISO`, `RVZ`, `WIA`, `WBFS`, `CISO`, `GCZ`, `TGC`, `NFS`.
    pub format: String,
    pub disc_number: u8,
    pub disc_version: u8,
    /// `gamecube` or `wii`.
    pub console: &'static str,
    /// Every file in FST order.
    pub files: Vec<DiscFileInfo>,
}

#[derive(Debug, Serialize)]
pub struct DiscFileInfo {
    /// Path on the disc (`MP2/Metroid1.pak`); `DISC:PATH` opens it.
    pub path: String,
    pub size: u64,
    /// Offset in the data partition.
    pub offset: u64,
}

impl DiscReport {
    pub fn text(&self) -> String {
        let d = &self.disc;
        let mut s = format!(
            "{} disc image: {} \"{}\" (disc {}, version {}), {} files\n",
            d.format,
            d.game_id,
            d.title,
            d.disc_number + 1,
            d.disc_version,
            d.files.len()
        );
        for f in &d.files {
            let _ = writeln!(s, "  {:>12}  {}", f.size, f.path);
        }
        s
    }
}
