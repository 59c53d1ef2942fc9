//! What the viewer remembers between runs: window size, panel widths, the last folders,
//! the recent files, the selection tint switch. A small JSON file in the user's config folder
//! (`$TEVSCOPE_CONFIG_DIR`, else `<config dir>/tevscope`), written through a temporary
//! file and a rename; a missing or broken file gives the defaults (a broken one with a
//! warning), never an error.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// How many recent files are kept.
pub const RECENT_MAX: usize = 10;

/// The file name inside the config folder.
const FILE_NAME: &str = "settings.json";

/// Everything remembered between runs. Unknown fields are ignored and missing ones take
/// their defaults, so older and newer files both load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Prefs {
    /// Inner window size in logical pixels.
    pub window_size: Option<[u32; 2]>,
    /// Widths of the file browser and the right panel (points).
    pub left_panel_width: Option<f32>,
    pub right_panel_width: Option<f32>,
    /// The folder the file browser and the Open dialog start in.
    pub last_open_dir: Option<PathBuf>,
    /// The folder Save As starts in.
    pub last_save_dir: Option<PathBuf>,
    /// Where screenshots go (default: the user's pictures folder).
    pub screenshot_dir: Option<PathBuf>,
    /// Recently opened specs, newest first, no repeats.
    pub recent: Vec<String>,
    /// "tint selection": the selected material's surfaces are tinted in the model view.
    pub tint_selection: bool,
}

impl Default for Prefs {
    fn default() -> Self {
        Self {
            window_size: None,
            left_panel_width: None,
            right_panel_width: None,
            last_open_dir: None,
            last_save_dir: None,
            screenshot_dir: None,
            recent: Vec::new(),
            tint_selection: true,
        }
    }
}

impl Prefs {
    /// The settings file: `$TEVSCOPE_CONFIG_DIR/settings.json`, else the platform's
    /// config folder (`~/.config/tevscope/settings.json` on Linux). None when neither is
    /// known (nothing is remembered then).
    pub fn path() -> Option<PathBuf> {
        match std::env::var_os("TEVSCOPE_CONFIG_DIR") {
            Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir).join(FILE_NAME)),
            _ => dirs::config_dir().map(|d| d.join("tevscope").join(FILE_NAME)),
        }
    }

    /// Reads `path`; a missing file gives the defaults, a broken one the defaults and a
    /// warning naming the file.
    pub fn load_from(path: &Path) -> (Self, Option<String>) {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Self::default(), None),
            Err(e) => {
                return (
                    Self::default(),
                    Some(format!("settings {}: {e}; using defaults", path.display())),
                );
            }
        };
        match serde_json::from_str::<Self>(&text) {
            Ok(mut p) => {
                p.normalize_recent();
                (p, None)
            }
            Err(e) => (
                Self::default(),
                Some(format!(
                    "settings {}: not valid ({e}); using defaults",
                    path.display()
                )),
            ),
        }
    }

    /// Loads from [`Prefs::path`].
    pub fn load() -> (Self, Option<String>) {
        match Self::path() {
            Some(p) => Self::load_from(&p),
            None => (Self::default(), None),
        }
    }

    /// Writes `path` (folders created, temporary file + rename).
    pub fn save_to(&self, path: &Path) -> Result<(), String> {
        let fail = |e: &dyn std::fmt::Display| format!("settings {}: {e}", path.display());
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| fail(&e))?;
        }
        let json = serde_json::to_string_pretty(self).map_err(|e| fail(&e))?;
        crate::edit::write_atomically(path, json.as_bytes()).map_err(|e| fail(&e))
    }

    /// Writes [`Prefs::path`]; Ok when there is no config folder.
    pub fn save(&self) -> Result<(), String> {
        match Self::path() {
            Some(p) => self.save_to(&p),
            None => Ok(()),
        }
    }

    /// Puts `spec` first in the recent files (once), keeping [`RECENT_MAX`].
    pub fn add_recent(&mut self, spec: &str) {
        self.recent.retain(|s| s != spec);
        self.recent.insert(0, spec.to_string());
        self.recent.truncate(RECENT_MAX);
    }

    /// A hand-edited list may repeat or be long.
    fn normalize_recent(&mut self) {
        let mut seen = Vec::new();
        self.recent.retain(|s| {
            let new = !seen.contains(s);
            if new {
                seen.push(s.clone());
            }
            new
        });
        self.recent.truncate(RECENT_MAX);
    }

    /// The folder screenshots go to: the remembered one, else the user's pictures folder,
    /// else the home folder, else the current one (never the opened file's folder: that
    /// is often the game's).
    pub fn screenshot_folder(&self) -> PathBuf {
        self.screenshot_dir
            .clone()
            .or_else(dirs::picture_dir)
            .or_else(dirs::home_dir)
            .unwrap_or_else(|| PathBuf::from("."))
    }
}

/// `path` with `.ext` added when its name has no extension (another one is kept: the
/// user typed it).
pub fn with_default_extension(path: &Path, ext: &str) -> PathBuf {
    match path.extension() {
        Some(e) if !e.is_empty() => path.to_path_buf(),
        // "name." ends in the dot already.
        Some(_) => {
            let mut s = path.as_os_str().to_os_string();
            s.push(ext);
            PathBuf::from(s)
        }
        None => {
            let mut s = path.as_os_str().to_os_string();
            s.push(".");
            s.push(ext);
            PathBuf::from(s)
        }
    }
}

/// `path` with `.png` added when it has another or no extension.
pub fn with_png_extension(path: &Path) -> PathBuf {
    if path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("png"))
    {
        path.to_path_buf()
    } else {
        let mut s = path.as_os_str().to_os_string();
        s.push(".png");
        PathBuf::from(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("tevscope-prefs-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn round_trips_through_the_file() {
        let path = temp("roundtrip").join("sub").join(FILE_NAME);
        let mut p = Prefs {
            window_size: Some([1000, 700]),
            left_panel_width: Some(200.0),
            screenshot_dir: Some("/tmp/shots".into()),
            ..Prefs::default()
        };
        p.add_recent("a.CMDL");
        p.save_to(&path).expect("written");
        let (back, warning) = Prefs::load_from(&path);
        assert_eq!(warning, None);
        assert_eq!(back, p);
        let _ = std::fs::remove_dir_all(path.parent().and_then(Path::parent).expect("dir"));
    }

    #[test]
    fn a_broken_or_missing_file_gives_defaults() {
        let dir = temp("broken");
        let path = dir.join(FILE_NAME);
        assert_eq!(Prefs::load_from(&path), (Prefs::default(), None));
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(&path, "{ not json").expect("written");
        let (p, warning) = Prefs::load_from(&path);
        assert_eq!(p, Prefs::default());
        assert!(warning.is_some_and(|w| w.contains("not valid")));
        // Unknown fields and wrong-typed recent lists: unknown ignored.
        std::fs::write(&path, r#"{"recent": ["x", "x", "y"], "future": 1}"#).expect("written");
        let (p, warning) = Prefs::load_from(&path);
        assert_eq!(warning, None);
        assert_eq!(p.recent, ["x", "y"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn recent_files_are_deduplicated_newest_first_and_capped() {
        let mut p = Prefs::default();
        for i in 0..15 {
            p.add_recent(&format!("f{i}"));
        }
        p.add_recent("f12");
        assert_eq!(p.recent.len(), RECENT_MAX);
        assert_eq!(p.recent[0], "f12");
        assert_eq!(p.recent[1], "f14");
        assert_eq!(p.recent.iter().filter(|s| *s == "f12").count(), 1);
    }

    #[test]
    fn an_extension_is_added_only_to_a_name_without_one() {
        let cases = [
            ("a/rig", "a/rig.json"),
            ("a/rig.json", "a/rig.json"),
            ("a/rig.JSON", "a/rig.JSON"),
            ("a/rig.v2", "a/rig.v2"),
            ("a/rig.", "a/rig.json"),
            ("a.d/rig", "a.d/rig.json"),
        ];
        for (typed, saved) in cases {
            assert_eq!(
                with_default_extension(Path::new(typed), "json"),
                Path::new(saved),
                "{typed}"
            );
        }
    }

    #[test]
    fn the_tint_switch_is_remembered_and_on_by_default() {
        assert!(Prefs::default().tint_selection);
        let path = temp("tint").join(FILE_NAME);
        let p = Prefs {
            tint_selection: false,
            ..Prefs::default()
        };
        p.save_to(&path).expect("written");
        assert!(!Prefs::load_from(&path).0.tint_selection);
        // Files written before the switch was remembered keep it on.
        std::fs::write(&path, r#"{"recent": []}"#).expect("written");
        assert!(Prefs::load_from(&path).0.tint_selection);
        let _ = std::fs::remove_dir_all(path.parent().expect("dir"));
    }

    #[test]
    fn png_is_added_when_missing() {
        assert_eq!(with_png_extension(Path::new("a/b")), Path::new("a/b.png"));
        assert_eq!(
            with_png_extension(Path::new("a/b.PNG")),
            Path::new("a/b.PNG")
        );
        assert_eq!(
            with_png_extension(Path::new("a/b.jpg")),
            Path::new("a/b.jpg.png")
        );
    }
}
