//! The GX state model, exact CPU references and the WGSL generator. Pure: no GPU, and
//! no dependency on the rest of the crate.

pub mod bake;
pub mod frame;
pub mod key;
pub mod light_file;
pub mod lighting;
pub mod lights;
pub mod lines;
pub mod mp3;
pub mod names;
pub mod readable;
pub mod regs;
pub mod sampler;
pub mod tev;
pub mod texel;
pub mod types;
pub mod uvanim;
pub mod wgsl;

pub use types::*;
