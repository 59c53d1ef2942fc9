//! The rooms of a world overview: each area's MREA world geometry (world models only, the
//! ones the game shows outside the combat visor filter of §9.5.4; no script objects), read
//! from the world's own PAK and reduced to triangles ([`RoomMesh`]).
//!
//! Placement: the MLVL asks the brief to place rooms by their area transform, but the spec
//! (formats.md §9.5.6, §12.5) says MREA vertex positions are already world space and the
//! game never applies that transform to geometry, so the triangles are used as stored; the
//! transform only places the MLVL bounds, which already are world space.
//!
//! [`spawn_world_loader`] reads them on a worker thread, one message per room as it
//! finishes, so the viewer fills the overview in as rooms arrive.

use std::path::Path;
use std::sync::mpsc;

use anyhow::{Context, Result, anyhow, bail};

use crate::formats::mrea::parse_mrea;
use crate::geom::Aabb;
use crate::model::overview::RoomMesh;
use crate::schema::worlds::WorldInfo;

use super::area::{AreaView, area_model};
use super::source::PakResolver;

/// One room read by the loader: its area index and its mesh, or why it has none.
#[derive(Debug, Clone)]
pub struct RoomLoaded {
    pub area: usize,
    pub mesh: Result<RoomMesh, String>,
}

/// What the loader needs of a world: its PAK and each area's index and MREA ID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorldRooms {
    pub pak: String,
    pub areas: Vec<(usize, String)>,
}

impl WorldRooms {
    pub fn of(world: &WorldInfo) -> Self {
        Self {
            pak: world.pak.clone(),
            areas: world
                .areas
                .iter()
                .map(|a| (a.index, a.mrea_id.clone()))
                .collect(),
        }
    }
}

/// Reads every room of `world` in area order, handing each to `each` as it is read (which
/// returns false to stop). The world's PAK is opened once; a room that fails is reported
/// and the rest still load.
pub fn load_world_rooms(world: &WorldRooms, mut each: impl FnMut(RoomLoaded) -> bool) {
    let pak = PakResolver::open(Path::new(&world.pak));
    for (area, mrea_id) in &world.areas {
        let mesh = match &pak {
            Ok(pak) => room_mesh(pak, mrea_id).map_err(|e| format!("{e:#}")),
            Err(e) => Err(format!("{e:#}")),
        };
        if !each(RoomLoaded { area: *area, mesh }) {
            return;
        }
    }
}

/// [`load_world_rooms`] on a worker thread: the receiver yields each room as it is read.
/// Dropping the receiver stops the worker after the room it is reading.
pub fn spawn_world_loader(world: &WorldInfo) -> mpsc::Receiver<RoomLoaded> {
    let (tx, rx) = mpsc::channel();
    let world = WorldRooms::of(world);
    let spawned = std::thread::Builder::new()
        .name("overview rooms".into())
        .spawn(move || load_world_rooms(&world, |room| tx.send(room).is_ok()));
    if let Err(e) = spawned {
        log::warn!("cannot start the overview's loader: {e}");
    }
    rx
}

/// A world's rooms for one overview image (the CLI's `render --overview`).
#[derive(Debug, Clone)]
pub struct WorldOverview {
    /// The world's name.
    pub name: String,
    pub rooms: Vec<OverviewRoom>,
}

/// One room of a [`WorldOverview`].
#[derive(Debug, Clone)]
pub struct OverviewRoom {
    pub area: usize,
    pub name: String,
    /// The MLVL bounds (world space), when finite.
    pub bounds: Option<Aabb>,
    pub mesh: Result<RoomMesh, String>,
}

impl WorldOverview {
    /// The union of the rooms' MLVL bounds and geometry (None when nothing has any).
    pub fn bounds(&self) -> Option<Aabb> {
        let mut corners = Vec::new();
        for r in &self.rooms {
            let mesh = r.mesh.as_ref().ok().and_then(RoomMesh::bounds);
            for b in r.bounds.iter().chain(&mesh) {
                corners.extend([b.min, b.max]);
            }
        }
        Aabb::from_points(corners)
    }
}

/// Lists the worlds of `source` (a disc image, folder or PAK), picks `world` (its index in
/// the listing, its MLVL ID or its name, any case) and reads every room.
pub fn load_overview(source: &Path, world: &str, language: Option<&str>) -> Result<WorldOverview> {
    let report = super::worlds::list_worlds(source, language)?;
    let w = world.trim();
    let found = report.worlds.iter().enumerate().find(|(k, info)| {
        w.parse::<usize>().ok() == Some(*k)
            || info.mlvl_id.eq_ignore_ascii_case(w)
            || info.name.eq_ignore_ascii_case(w)
    });
    let Some((_, info)) = found else {
        let names: Vec<String> = report
            .worlds
            .iter()
            .enumerate()
            .map(|(k, i)| format!("{k} {:?} ({})", i.name, i.mlvl_id))
            .collect();
        bail!(
            "{}: no world {world:?} (give its index, MLVL ID or name: {})",
            source.display(),
            if names.is_empty() {
                "it has none".into()
            } else {
                names.join(", ")
            }
        );
    };
    let mut rooms = Vec::with_capacity(info.areas.len());
    load_world_rooms(&WorldRooms::of(info), |loaded| {
        let area = &info.areas[rooms.len()];
        let (min, max) = (
            area.aabb.min.map(|v| v as f32),
            area.aabb.max.map(|v| v as f32),
        );
        let finite = min.iter().chain(&max).all(|v| v.is_finite());
        rooms.push(OverviewRoom {
            area: loaded.area,
            name: area.name.clone(),
            bounds: finite.then(|| Aabb::from_points([min, max])).flatten(),
            mesh: loaded.mesh,
        });
        true
    });
    Ok(WorldOverview {
        name: info.name.clone(),
        rooms,
    })
}

/// The world geometry of MREA `mrea_id` (`0x…`) of `pak` as triangles.
pub fn room_mesh(pak: &PakResolver, mrea_id: &str) -> Result<RoomMesh> {
    let id = u64::from_str_radix(mrea_id.trim_start_matches("0x"), 16)
        .with_context(|| format!("area ID {mrea_id}"))?;
    let entry = pak
        .archive
        .pak
        .find(id, Some(*b"MREA"))
        .ok_or_else(|| anyhow!("{}: no MREA {mrea_id}", pak.path.display()))?;
    let resource = pak.resource(entry)?;
    let mrea = parse_mrea(&resource.bytes, &resource.label)?;
    let geometry = mrea.geometry.as_ref().ok_or_else(|| {
        anyhow!(
            "{}: the world geometry of MP3 areas is not read",
            resource.label
        )
    })?;
    let cmdl = area_model(geometry, AreaView::default())?;
    let mut mesh = RoomMesh::default();
    for s in &cmdl.surfaces {
        let first = mesh.positions.len() as u32;
        let count = s.mesh.vertices.len() as u32;
        mesh.positions.extend(s.mesh.vertices.iter().map(|v| {
            let i = s.array_base.position + usize::from(v.position);
            // A vertex past the array is drawn at the origin rather than dropped, so the
            // surface's triangle indices stay valid (the CPU model does the same).
            cmdl.positions.values.get(i).copied().unwrap_or_default()
        }));
        mesh.triangles.extend(
            s.mesh
                .triangles
                .iter()
                .filter(|t| t.iter().all(|&i| i < count))
                .map(|t| t.map(|i| first + i)),
        );
    }
    Ok(mesh)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_world_reads_the_room_and_reports_the_light_set_without_geometry() {
        let report =
            super::super::worlds::list_worlds(Path::new(super::super::builtin::DEMO_PAK), None)
                .unwrap();
        let mut rooms = Vec::new();
        load_world_rooms(&WorldRooms::of(&report.worlds[0]), |r| {
            rooms.push(r);
            true
        });
        assert_eq!(rooms.len(), 2);
        let room = rooms[0].mesh.as_ref().unwrap();
        assert!(room.triangles.len() > 10, "{}", room.triangles.len());
        // World space inside the MLVL bounds of the demo room.
        let b = room.bounds().unwrap();
        let a = &report.worlds[0].areas[0].aabb;
        for k in 0..3 {
            assert!(
                f64::from(b.min[k]) >= a.min[k] - 1e-3 && f64::from(b.max[k]) <= a.max[k] + 1e-3
            );
        }
        // The light set has no world models: an empty mesh, not an error.
        assert!(rooms[1].mesh.as_ref().unwrap().triangles.is_empty());
    }

    #[test]
    fn the_worker_sends_every_room() {
        let report =
            super::super::worlds::list_worlds(Path::new(super::super::builtin::DEMO_PAK), None)
                .unwrap();
        let rx = spawn_world_loader(&report.worlds[0]);
        let areas: Vec<usize> = rx.iter().map(|r| r.area).collect();
        assert_eq!(areas, [0, 1]);
    }
}
