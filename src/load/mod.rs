//! Opening assets named on a command line or picked in the viewer: loose files,
//! `PAK:ID` entries and names, and whole models resolved with their textures, skins,
//! skeletons and animations. This is the application edge, so errors are `anyhow`.

pub mod area;
pub mod builtin;
pub mod character_mp3;
pub mod cmdl_file;
pub mod cpu;
pub mod disc;
pub mod kind;
pub mod model;
pub mod mp3_alts;
pub mod overview;
pub mod parts;
pub mod source;
pub mod worlds;

pub use area::{
    LightSource, area_light_layers, is_light_file, load_lights, read_light_file, scene_lights,
};
pub use cmdl_file::{OpenCmdl, open_cmdl};
pub use cpu::{
    ModelAssets, SkinAssets, cpu_material, cpu_material_set, cpu_material_sets,
    cpu_mp3_material_set, decode_texture,
};
pub use kind::AssetKind;
pub use model::{LoadRequest, LoadedModel, MissingPart, Part, load, load_input};
pub use mp3_alts::{MP3_ALTS, Mp3Alt, Mp3Alts};
pub use source::{Resolver, Resource, open, split_spec};
