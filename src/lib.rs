//! tevscope: Metroid Prime (GameCube/Wii) assets drawn as the GX chip draws them.
//!
//! Data flows one way:
//!
//! ```text
//! file bytes ──formats──▶ plain data (CMDL, TXTR, CINF, ANIM, …) and gx::Material
//!            ──load────▶ model::CpuModel (vertex arrays, surfaces, gx materials, textures, skin)
//!            ──gx──────▶ shader key + uniforms ──WGSL generator──▶ naga-validated WGSL
//!            ──anim────▶ posed skeleton, skinning matrices
//!            ──render──▶ wgpu pipelines, buffers, offscreen targets, PNG
//!            ──ui──────▶ winit + egui viewer
//! ```
//!
//! `formats` and `anim` know nothing of GPUs; `gx`, `geom` and `image` depend on nothing
//! else in the crate (`camera`, the camera's math, on `geom` and `gx` only); `render` owns every wgpu object and reads only the CPU model, never a
//! file format; `ui` owns egui; the CLI is thin.

pub mod anim;
pub mod atomic;
pub mod camera;
pub mod cli;
pub mod demo;
pub mod dff;
pub mod edit;
pub mod export;
pub mod formats;
pub mod geom;
pub mod gx;
pub mod image;
pub mod load;
pub mod model;
pub mod render;
pub mod schema;
pub mod session;
#[doc(hidden)]
pub mod testing;
pub mod ui;
pub mod views;
