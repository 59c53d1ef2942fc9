//! Exports to the formats modders' tools read: glTF 2.0 ([`gltf`]) and textures as PNG
//! ([`textures`]). Works on the CPU model [`crate::load`] builds (no GPU).

pub mod extract;
pub mod gltf;
pub mod textures;

pub use extract::extract_to_folder;
pub use gltf::{AnimationExport, ExportSummary, GltfExport, GltfOptions, build_gltf};
pub use textures::{TextureFile, write_model_texture_pngs, write_texture_pngs};

use std::path::{Path, PathBuf};

/// Errors of the export layer.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("writing {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("encoding {what}")]
    Png {
        what: String,
        #[source]
        source: crate::image::ImageError,
    },
    #[error("glTF document")]
    Json(#[source] serde_json::Error),
    #[error("GLB container")]
    Glb(#[source] ::gltf::Error),
    #[error("{0}")]
    Invalid(String),
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so a
/// failed export never leaves a half-written file.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), ExportError> {
    crate::atomic::write_atomically(path, bytes).map_err(|source| ExportError::Io {
        path: path.to_path_buf(),
        source,
    })
}
