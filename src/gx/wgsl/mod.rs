//! WGSL generation from a [`crate::gx::Material`]'s structure.

pub mod interface;
pub mod tev;
pub mod uber;
pub mod vertex;
