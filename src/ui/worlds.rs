//! The game browser's data (no egui here): the open source (a disc image, a folder or a PAK),
//! its worlds and rooms by name in the chosen language ([`crate::load::worlds`]), the search
//! text, and the models listed under each expanded room.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use std::sync::{Arc, mpsc};

use crate::load::overview::{RoomLoaded, spawn_world_loader};
use crate::load::worlds::{list_worlds, room_models};
use crate::model::overview::RoomMesh;
use crate::schema::worlds::WorldsReport;

/// The models listed under a room, (name, spec) each, or why they could not be read.
pub type RoomModels = Result<Vec<(String, String)>, String>;

/// The world tree of one source.
#[derive(Debug, Default)]
pub struct WorldTree {
    /// The disc image, folder or PAK listed.
    pub source: Option<PathBuf>,
    /// Its worlds, or why they could not be listed.
    pub listing: Option<Result<WorldsReport, String>>,
    /// Language code of the names (None: English, else each table's first).
    pub language: Option<String>,
    /// Case-insensitive filter on world and room names.
    pub search: String,
    /// Rooms whose models are shown: (world index, area index) → (name, spec) rows.
    pub expanded: HashMap<(usize, usize), RoomModels>,
    /// Whether the left panel shows this tree (else the file browser).
    pub shown: bool,
    /// The world overview the central panel shows instead of the open file.
    pub overview: Option<super::world_map::Overview>,
    /// Each overview world's room geometry (by world index), read in the background once
    /// per source and kept while it stays open.
    pub rooms: HashMap<usize, WorldGeometry>,
}

/// The room geometry of one world as it arrives from its loader thread.
#[derive(Debug, Default)]
pub struct WorldGeometry {
    /// The loader, until it has sent every room.
    pending: Option<mpsc::Receiver<RoomLoaded>>,
    /// Rooms read so far, in arrival order: area index and mesh (or why it has none).
    pub rooms: Vec<(usize, Result<Arc<RoomMesh>, String>)>,
}

impl WorldGeometry {
    /// Whether rooms are still being read.
    pub fn loading(&self) -> bool {
        self.pending.is_some()
    }

    /// Room `area`'s mesh, when it has arrived.
    pub fn mesh(&self, area: usize) -> Option<&RoomMesh> {
        self.rooms
            .iter()
            .find(|(a, _)| *a == area)
            .and_then(|(_, m)| m.as_deref().ok())
    }

    /// Takes what the loader has sent since the last call.
    fn poll(&mut self) {
        let Some(rx) = &self.pending else { return };
        loop {
            match rx.try_recv() {
                Ok(room) => self.rooms.push((room.area, room.mesh.map(Arc::new))),
                Err(mpsc::TryRecvError::Empty) => return,
                Err(mpsc::TryRecvError::Disconnected) => {
                    self.pending = None;
                    return;
                }
            }
        }
    }
}

impl WorldTree {
    /// The tree of the built-in demo's world, behind the Files tab until asked for.
    pub fn with_demo() -> Self {
        let mut t = Self::default();
        t.open(Path::new(crate::load::builtin::DEMO_PAK));
        t.shown = false;
        t
    }

    /// Lists the worlds of `source` (in the current language) and shows the tree, unless
    /// it holds none (a folder of loose files stays in the file browser).
    pub fn open(&mut self, source: &Path) {
        self.source = Some(source.to_path_buf());
        self.expanded.clear();
        self.overview = None;
        self.rooms.clear();
        self.relist();
        self.shown = !matches!(&self.listing, Some(Ok(r)) if r.worlds.is_empty());
    }

    /// Lists the current source again (after a language change).
    pub fn relist(&mut self) {
        let Some(source) = &self.source else { return };
        self.listing =
            Some(list_worlds(source, self.language.as_deref()).map_err(|e| format!("{e:#}")));
    }

    /// Every language some name of the listing has, for the language choice.
    pub fn languages(&self) -> Vec<String> {
        let mut out = BTreeSet::new();
        if let Some(Ok(report)) = &self.listing {
            for w in &report.worlds {
                out.extend(w.names.keys().cloned());
                for a in &w.areas {
                    out.extend(a.names.keys().cloned());
                }
            }
        }
        out.into_iter().collect()
    }

    /// Whether `name` passes the search.
    pub fn matches(&self, name: &str) -> bool {
        let s = self.search.trim();
        s.is_empty() || name.to_lowercase().contains(&s.to_lowercase())
    }

    /// Shows world `world`'s overview (fitted to the panel on its first frame).
    pub fn show_overview(&mut self, world: usize) {
        self.overview = Some(super::world_map::Overview { world, view: None });
    }

    /// The geometry of world `world` read so far, starting its loader on first use (a
    /// worker thread; never blocks). Call each frame the overview shows.
    pub fn world_geometry(&mut self, world: usize) -> Option<&WorldGeometry> {
        let Some(Ok(report)) = &self.listing else {
            return None;
        };
        let info = report.worlds.get(world)?;
        let g = self.rooms.entry(world).or_insert_with(|| WorldGeometry {
            pending: Some(spawn_world_loader(info)),
            rooms: Vec::new(),
        });
        g.poll();
        Some(g)
    }

    /// Shows or hides the models under room `area` of world `world` (read on first show).
    pub fn toggle_room(&mut self, world: usize, area: usize) {
        if self.expanded.remove(&(world, area)).is_some() {
            return;
        }
        let Some(Ok(report)) = &self.listing else {
            return;
        };
        let Some(w) = report.worlds.get(world) else {
            return;
        };
        let rows = room_models(w, area).map_err(|e| format!("{e:#}"));
        self.expanded.insert((world, area), rows);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_world_lists_its_rooms_by_name() {
        let mut t = WorldTree::default();
        t.open(Path::new(crate::load::builtin::DEMO_PAK));
        let Some(Ok(report)) = &t.listing else {
            panic!("{:?}", t.listing)
        };
        let names: Vec<&str> = report.worlds[0]
            .areas
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        assert_eq!(names, ["Demo Room", "Light Set"]);
        assert_eq!(t.languages(), ["ENGL", "GERM"]);
        t.language = Some("GERM".into());
        t.relist();
        let Some(Ok(report)) = &t.listing else {
            panic!()
        };
        assert_eq!(report.worlds[0].name, "Demowelt");
        t.search = "LICHT".into();
        assert!(t.matches("Lichtset") && !t.matches("Demoraum"));
        t.toggle_room(0, 0);
        assert!(t.expanded[&(0, 0)].is_ok());
    }

    #[test]
    fn the_overview_geometry_arrives_from_the_worker_and_is_kept() {
        let mut t = WorldTree::default();
        t.open(Path::new(crate::load::builtin::DEMO_PAK));
        let start = std::time::Instant::now();
        while t.world_geometry(0).unwrap().loading() {
            assert!(start.elapsed().as_secs() < 60, "the loader hangs");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let g = t.world_geometry(0).unwrap();
        assert_eq!(g.rooms.len(), 2);
        assert!(g.mesh(0).is_some_and(|m| !m.triangles.is_empty()));
        assert!(t.world_geometry(7).is_none());
        // Reopening the source forgets it.
        t.open(Path::new(crate::load::builtin::DEMO_PAK));
        assert!(t.rooms.is_empty());
    }
}
