//! The MP3-only sections a world model carries (`formats.md` §13.8 WOBJ items 3 and 4),
//! apart from the MP3 reader so the shared world-model type can hold them.

use serde::Serialize;

use crate::formats::reader::Writer;

/// One entry of a world model's mesh-info table (§13.8 WOBJ item 3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MeshInfo {
    pub unknown: u16,
    /// [PWE] groups surfaces into meshes by this ID.
    pub mesh_id: u16,
}

/// The MP3-only sections of a world model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mp3ModelSections {
    /// The mesh-info section as stored (what is written).
    pub mesh_info_section: Vec<u8>,
    /// Its entries; None (with a warning) when the section does not fit the layout.
    pub mesh_info: Option<Vec<MeshInfo>>,
    /// WOBJ section 4 of the model, meaning unknown, verbatim.
    pub unknown_section: Vec<u8>,
}

impl Mp3ModelSections {
    /// A mesh-info table giving every surface its own mesh ID, zero-padded to 32 bytes.
    pub fn for_surfaces(count: usize) -> Self {
        let mut w = Writer::new();
        w.u16(count as u16);
        let mesh_info: Vec<MeshInfo> = (0..count)
            .map(|i| MeshInfo {
                unknown: 0,
                mesh_id: i as u16,
            })
            .collect();
        for m in &mesh_info {
            w.u16(m.unknown);
            w.u16(m.mesh_id);
        }
        w.pad_to(32, 0);
        Self {
            mesh_info_section: w.into_inner(),
            mesh_info: Some(mesh_info),
            unknown_section: vec![0; 32],
        }
    }
}
