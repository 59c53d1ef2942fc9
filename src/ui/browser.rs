//! The file browser's data: folder listings and PAK tables (no egui here).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// What a listed file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    Folder,
    Pak,
    Cmdl,
    /// An ANCS character set (shown with its model, skin, skeleton and animations).
    Ancs,
    Txtr,
}

/// One row of a folder listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    pub path: PathBuf,
    pub kind: FileKind,
}

/// The kind of a file by extension; None for files the viewer does not open.
pub fn file_kind(path: &Path) -> Option<FileKind> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "pak" => Some(FileKind::Pak),
        "cmdl" => Some(FileKind::Cmdl),
        "ancs" => Some(FileKind::Ancs),
        "txtr" => Some(FileKind::Txtr),
        _ => None,
    }
}

/// Folders first, then viewable files, each sorted case-insensitively; hidden entries
/// (dot files) are skipped.
pub fn list_dir(dir: &Path) -> std::io::Result<Vec<DirEntry>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let Ok(entry) = entry else { continue };
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let path = entry.path();
        let kind = if path.is_dir() {
            FileKind::Folder
        } else if let Some(k) = file_kind(&path) {
            k
        } else {
            continue;
        };
        out.push(DirEntry { name, path, kind });
    }
    out.sort_by(|a, b| {
        (a.kind != FileKind::Folder)
            .cmp(&(b.kind != FileKind::Folder))
            .then_with(|| a.name.to_lowercase().cmp(&b.name.to_lowercase()))
    });
    Ok(out)
}

pub use crate::load::source::{PakRow, list_pak};

impl PakRow {
    pub fn viewable(&self) -> bool {
        matches!(self.fourcc.as_str(), "CMDL" | "ANCS" | "TXTR")
    }
}

/// MREA areas next to `spec` (other entries of its PAK, or `.MREA` files in its folder),
/// as (label, spec) pairs: the light layers the viewer offers.
pub fn area_sources(spec: &str) -> Vec<(String, String)> {
    let Ok((path, member)) = crate::load::source::split_spec(spec) else {
        return Vec::new();
    };
    if member.is_some() {
        return list_pak(&path)
            .map(|rows| {
                rows.into_iter()
                    .filter(|r| r.fourcc == "MREA")
                    .map(|r| (r.name.clone().unwrap_or_else(|| r.id.clone()), r.spec))
                    .collect()
            })
            .unwrap_or_default();
    }
    let Some(dir) = path.parent() else {
        return Vec::new();
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let mut out: Vec<(String, String)> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.extension()
                        .and_then(|e| e.to_str())
                        .is_some_and(|e| e.eq_ignore_ascii_case("mrea"))
                })
                .map(|p| {
                    let name = p
                        .file_name()
                        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
                    (name, p.display().to_string())
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

/// Browser state: the current folder, its listing, expanded PAKs and a type filter.
#[derive(Debug, Default)]
pub struct Browser {
    pub dir: PathBuf,
    pub entries: Vec<DirEntry>,
    pub error: Option<String>,
    /// Expanded PAKs and their rows (or the error listing them gave).
    pub paks: HashMap<PathBuf, Result<Vec<PakRow>, String>>,
    /// Only show viewable PAK resources.
    pub viewable_only: bool,
    /// Case-insensitive text filter on names.
    pub filter: String,
}

impl Browser {
    pub fn new(dir: PathBuf) -> Self {
        let mut b = Self {
            viewable_only: true,
            ..Self::default()
        };
        b.set_dir(dir);
        b
    }

    /// Moves to `dir` and lists it.
    pub fn set_dir(&mut self, dir: PathBuf) {
        self.dir = dir.canonicalize().unwrap_or(dir);
        self.refresh();
    }

    pub fn refresh(&mut self) {
        match list_dir(&self.dir) {
            Ok(e) => {
                self.entries = e;
                self.error = None;
            }
            Err(e) => {
                self.entries.clear();
                self.error = Some(format!("{}: {e}", self.dir.display()));
            }
        }
    }

    /// Goes to the parent folder, if any.
    pub fn up(&mut self) {
        if let Some(p) = self.dir.parent() {
            self.set_dir(p.to_path_buf());
        }
    }

    /// Expands or collapses a PAK (listing it on first expansion).
    pub fn toggle_pak(&mut self, path: &Path) {
        if self.paks.remove(path).is_none() {
            let rows = list_pak(path).map_err(|e| format!("{e:#}"));
            self.paks.insert(path.to_path_buf(), rows);
        }
    }

    /// Whether a name passes the text filter.
    pub fn matches(&self, text: &str) -> bool {
        self.filter.is_empty() || text.to_lowercase().contains(&self.filter.to_lowercase())
    }

    /// Rows of an expanded PAK that pass the filters.
    pub fn visible_rows<'a>(&'a self, rows: &'a [PakRow]) -> impl Iterator<Item = &'a PakRow> {
        rows.iter().filter(move |r| {
            (!self.viewable_only || r.viewable())
                && (self.matches(&r.id)
                    || self.matches(&r.fourcc)
                    || r.name.as_deref().is_some_and(|n| self.matches(n)))
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("tevscope-ui-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn lists_folders_first_and_only_viewable_files() {
        let d = temp_dir("browse");
        std::fs::create_dir_all(d.join("Zeta")).unwrap();
        std::fs::create_dir_all(d.join(".hidden")).unwrap();
        for f in ["b.TXTR", "a.cmdl", "notes.txt", "World.pak"] {
            std::fs::write(d.join(f), b"x").unwrap();
        }
        let names: Vec<(String, FileKind)> = list_dir(&d)
            .unwrap()
            .into_iter()
            .map(|e| (e.name, e.kind))
            .collect();
        assert_eq!(
            names,
            vec![
                ("Zeta".into(), FileKind::Folder),
                ("a.cmdl".into(), FileKind::Cmdl),
                ("b.TXTR".into(), FileKind::Txtr),
                ("World.pak".into(), FileKind::Pak),
            ]
        );
        let mut b = Browser::new(d.clone());
        assert_eq!(b.entries.len(), 4);
        b.set_dir(d.join("Zeta"));
        assert!(b.entries.is_empty());
        b.up();
        assert_eq!(b.entries.len(), 4);
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn missing_folder_is_an_error_message() {
        let b = Browser::new(PathBuf::from("/nonexistent/tevscope"));
        assert!(b.error.as_deref().unwrap_or("").contains("nonexistent"));
    }

    #[test]
    fn bad_pak_expands_to_an_error() {
        let d = temp_dir("badpak");
        let p = d.join("broken.pak");
        std::fs::write(&p, [0u8; 7]).unwrap();
        let mut b = Browser::new(d.clone());
        b.toggle_pak(&p);
        assert!(matches!(b.paks.get(&p), Some(Err(_))));
        b.toggle_pak(&p);
        assert!(b.paks.is_empty());
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn lists_the_tev_cases_pak_with_openable_specs() {
        let Some(dir) = crate::testing::conformance_dir() else {
            return;
        };
        let path = dir.join("tev_cases.pak");
        let rows = list_pak(&path).unwrap();
        let cmdl = rows.iter().find(|r| r.fourcc == "CMDL").expect("a CMDL");
        assert!(cmdl.spec.ends_with(".CMDL"), "{}", cmdl.spec);
        let doc = super::super::document::Document::open(&cmdl.spec).unwrap();
        assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
        let mut b = Browser::new(path.parent().unwrap().to_path_buf());
        b.filter = "txtr".into();
        assert!(b.visible_rows(&rows).all(|r| r.fourcc == "TXTR"));
    }
}
