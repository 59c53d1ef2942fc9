//! The file browser's data: folder listings and PAK tables (no egui here). What is listed
//! and what opens is [`AssetKind`]'s table, the same the open path reads.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::load::{AssetKind, builtin};

/// What a listed file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FileKind {
    Folder,
    /// A file the viewer opens, or a PAK (expanded in place).
    Asset(AssetKind),
}

/// One row of a folder listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    pub name: String,
    pub path: PathBuf,
    pub kind: FileKind,
}

/// Folders first, then the files the browser lists ([`AssetKind::listed`]), each sorted
/// case-insensitively; hidden entries (dot files) are skipped.
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
        } else if let Some(k) = AssetKind::from_path(&path).filter(|k| k.listed()) {
            FileKind::Asset(k)
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

/// The demo PAK built into the program, as a listing row.
fn builtin_demo_entry() -> DirEntry {
    DirEntry {
        name: "demo.pak (built in)".into(),
        path: PathBuf::from(builtin::DEMO_PAK),
        kind: FileKind::Asset(AssetKind::Pak),
    }
}

/// Browser state: the current folder, its listing, expanded PAKs and a type filter.
#[derive(Debug, Default)]
pub struct Browser {
    pub dir: PathBuf,
    pub entries: Vec<DirEntry>,
    pub error: Option<String>,
    /// Expanded PAKs and their rows (or the error listing them gave).
    pub paks: HashMap<PathBuf, Result<Vec<PakRow>, String>>,
    /// Only show the PAK resources the viewer opens.
    pub viewable_only: bool,
    /// Case-insensitive text filter on names.
    pub filter: String,
    /// The path field: the folder shown, or what the user is typing.
    pub path_text: String,
    /// The row of the open file (a listing row's path or PAK spec), highlighted.
    pub selected: Option<String>,
    /// The selected row should scroll into view (it was just revealed).
    pub scroll_to_selected: bool,
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
        self.path_text = self.dir.display().to_string();
        self.refresh();
    }

    /// Lists the folder again, the built-in demo pinned first so it is always one click away.
    pub fn refresh(&mut self) {
        self.entries = vec![builtin_demo_entry()];
        match list_dir(&self.dir) {
            Ok(e) => {
                self.entries.extend(e);
                self.error = None;
            }
            Err(e) => self.error = Some(format!("{}: {e}", self.dir.display())),
        }
    }

    /// Goes to the parent folder, if any.
    pub fn up(&mut self) {
        if let Some(p) = self.dir.parent() {
            self.set_dir(p.to_path_buf());
        }
    }

    /// Acts on the path field: a folder is browsed (None), a file or `PAK:ID` is returned
    /// to be opened. Relative paths start at the folder shown; anything else is an error
    /// shown in the browser.
    pub fn enter_path(&mut self, text: &str) -> Option<String> {
        let text = text.trim();
        if text.is_empty() {
            self.path_text = self.dir.display().to_string();
            return None;
        }
        let typed = Path::new(text);
        let spec = if typed.is_absolute() {
            text.to_string()
        } else {
            self.dir.join(typed).display().to_string()
        };
        if Path::new(&spec).is_dir() {
            self.set_dir(PathBuf::from(spec));
            return None;
        }
        match crate::load::source::split_spec(&spec) {
            Ok(_) => {
                self.path_text = self.dir.display().to_string();
                Some(spec)
            }
            Err(e) => {
                self.error = Some(format!("{e:#}"));
                None
            }
        }
    }

    /// Shows the open file: moves to its folder, expands its PAK (for a member `0xID.TYPE`)
    /// and selects its row.
    pub fn reveal(&mut self, file: &Path, member: Option<&str>) {
        let row = if builtin::is_builtin(file) {
            // Pinned in every listing: the folder stays as it is.
            file.to_path_buf()
        } else {
            let file = file.canonicalize().unwrap_or_else(|_| file.to_path_buf());
            let (Some(dir), Some(name)) = (file.parent(), file.file_name()) else {
                return;
            };
            if dir != self.dir {
                self.set_dir(dir.to_path_buf());
            }
            self.dir.join(name)
        };
        self.selected = Some(match member {
            Some(member) => {
                if !self.paks.contains_key(&row) {
                    self.toggle_pak(&row);
                }
                format!("{}:{member}", row.display())
            }
            None => row.display().to_string(),
        });
        self.scroll_to_selected = true;
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
            (!self.viewable_only || r.opens())
                && (self.matches(&r.id)
                    || self.matches(&r.fourcc.to_string())
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
    fn lists_folders_first_and_every_openable_file_rooms_included() {
        let d = temp_dir("browse");
        std::fs::create_dir_all(d.join("Zeta")).unwrap();
        std::fs::create_dir_all(d.join(".hidden")).unwrap();
        // A folder named like a model is a folder.
        std::fs::create_dir_all(d.join("x.CMDL")).unwrap();
        for f in [
            "b.TXTR",
            "a.cmdl",
            "notes.txt",
            "World.pak",
            "room.MREA",
            "c.ANCS",
            "skin.CSKR",
        ] {
            std::fs::write(d.join(f), b"x").unwrap();
        }
        let names: Vec<(String, FileKind)> = list_dir(&d)
            .unwrap()
            .into_iter()
            .map(|e| (e.name, e.kind))
            .collect();
        let asset = FileKind::Asset;
        assert_eq!(
            names,
            vec![
                ("x.CMDL".into(), FileKind::Folder),
                ("Zeta".into(), FileKind::Folder),
                ("a.cmdl".into(), asset(AssetKind::Model)),
                ("b.TXTR".into(), asset(AssetKind::Texture)),
                ("c.ANCS".into(), asset(AssetKind::Character)),
                ("room.MREA".into(), asset(AssetKind::Room)),
                ("World.pak".into(), asset(AssetKind::Pak)),
            ]
        );
        // The browser pins the built-in demo above every listing.
        let mut b = Browser::new(d.clone());
        assert_eq!(b.entries.len(), 8);
        assert_eq!(b.entries[0], builtin_demo_entry());
        b.set_dir(d.join("Zeta"));
        assert_eq!(b.entries, [builtin_demo_entry()]);
        b.up();
        assert_eq!(b.entries.len(), 8);
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn the_built_in_demo_is_revealed_in_place_and_lists_its_rooms() {
        let d = temp_dir("builtin");
        let mut b = Browser::new(d.clone());
        let here = b.dir.clone();
        let pak = PathBuf::from(builtin::DEMO_PAK);
        b.reveal(&pak, Some("0xDE020015.TXTR"));
        // The folder stays; the demo's PAK is expanded and the member highlighted.
        assert_eq!(b.dir, here);
        assert!(b.error.is_none(), "{:?}", b.error);
        assert_eq!(
            b.selected.as_deref(),
            Some("builtin:demo.pak:0xDE020015.TXTR")
        );
        let rows = b.paks.get(&pak).unwrap().as_ref().unwrap();
        let room = rows
            .iter()
            .find(|r| r.name.as_deref() == Some("room"))
            .unwrap();
        assert_eq!(room.kind, Some(AssetKind::Room));
        assert!(room.spec.starts_with("builtin:demo.pak:"), "{}", room.spec);
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn the_path_field_browses_folders_and_opens_files() {
        let d = temp_dir("path");
        std::fs::create_dir_all(d.join("sub/x.CMDL")).unwrap();
        std::fs::write(d.join("sub/m.CMDL"), b"x").unwrap();
        let mut b = Browser::new(d.clone());
        // A folder, relative to the one shown, even one named like a model.
        assert_eq!(b.enter_path("sub"), None);
        assert_eq!(b.dir, d.join("sub").canonicalize().unwrap());
        assert_eq!(b.path_text, b.dir.display().to_string());
        assert_eq!(b.enter_path("x.CMDL"), None);
        assert!(b.dir.ends_with("x.CMDL") && b.error.is_none());
        // A file (absolute) is handed back to be opened.
        let file = d.join("sub/m.CMDL").display().to_string();
        assert_eq!(b.enter_path(&file), Some(file.clone()));
        // Nothing there: an error in the browser, the folder stays.
        let here = b.dir.clone();
        assert_eq!(b.enter_path("nothing.CMDL"), None);
        assert!(b.error.as_deref().unwrap().contains("no such file"));
        assert_eq!(b.dir, here);
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn revealing_a_file_moves_to_its_folder_and_selects_it() {
        let d = temp_dir("reveal");
        std::fs::create_dir_all(d.join("a")).unwrap();
        std::fs::write(d.join("a/m.CMDL"), b"x").unwrap();
        let mut b = Browser::new(std::env::temp_dir());
        b.reveal(&d.join("a/m.CMDL"), None);
        let dir = d.join("a").canonicalize().unwrap();
        assert_eq!(b.dir, dir);
        assert_eq!(
            b.selected.as_deref(),
            Some(dir.join("m.CMDL").display().to_string().as_str())
        );
        assert!(b.scroll_to_selected);
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn a_revealed_pak_member_expands_its_pak_and_rooms_open() {
        let pak = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo.pak");
        let mut b = Browser::new(std::env::temp_dir());
        let rows = list_pak(&pak).unwrap();
        let room = rows
            .iter()
            .find(|r| r.fourcc == "MREA")
            .expect("the demo has a room");
        assert!(room.opens(), "an MREA row opens");
        assert!(b.visible_rows(&rows).any(|r| r.spec == room.spec));
        let member = room.spec.rsplit_once(':').unwrap().1;
        b.reveal(&pak, Some(member));
        let key = pak.canonicalize().unwrap();
        assert!(matches!(b.paks.get(&key), Some(Ok(_))), "expanded");
        let selected = b.selected.clone().unwrap();
        let Some(Ok(listed)) = b.paks.get(&key) else {
            unreachable!()
        };
        assert!(listed.iter().any(|r| r.spec == selected), "{selected}");
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
        let doc = crate::session::Asset::open(&cmdl.spec).unwrap();
        assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
        let mut b = Browser::new(path.parent().unwrap().to_path_buf());
        b.filter = "txtr".into();
        assert!(b.visible_rows(&rows).all(|r| r.fourcc == "TXTR"));
    }
}
