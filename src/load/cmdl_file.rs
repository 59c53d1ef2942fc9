//! One CMDL opened for its materials: each material in GX form (an MP3 material's
//! synthesised program) with its textures decoded, for the commands that show one material.

use anyhow::{Context as _, bail};

use super::cpu::{cpu_material_sets, decode_texture};
use super::source::{self, Resolver, Resource};
use crate::formats::cmdl::Cmdl;
use crate::formats::txtr::Txtr;
use crate::formats::{asset_id_string, fourcc_string};
use crate::gx;
use crate::model::{CpuMaterial, TextureData};

/// A CMDL opened through [`source::open`], with the resolver for its textures: one material
/// at a time in GX form with its decoded textures (`wgsl`, `uvanim`, the material quad).
pub struct OpenCmdl {
    pub resource: Resource,
    pub cmdl: Cmdl,
    pub resolver: Box<dyn Resolver>,
}

/// Opens `spec` as a CMDL.
pub fn open_cmdl(spec: &str) -> anyhow::Result<OpenCmdl> {
    let (resource, resolver) = source::open(spec)?;
    let kind = resource.type_code()?;
    if &kind != b"CMDL" {
        bail!(
            "{}: expected a CMDL, found {}",
            resource.label,
            fourcc_string(kind)
        );
    }
    let cmdl = Cmdl::parse(&resource.bytes, &resource.label)?;
    Ok(OpenCmdl {
        resource,
        cmdl,
        resolver,
    })
}

impl OpenCmdl {
    /// Material `index` of material set `set` in GX form (an MP3 material's synthesised
    /// program) with the texture ID of each map, as the renderer takes it.
    fn cpu_material(&self, set: usize, index: usize) -> anyhow::Result<CpuMaterial> {
        let label = &self.resource.label;
        let mut sets = cpu_material_sets(
            &self.cmdl.material_sets,
            self.cmdl.mp3_materials.as_ref(),
            &Default::default(),
        );
        let count = sets.len();
        if set >= count {
            bail!("{label}: no material set {set} (the model has {count})");
        }
        let mut s = sets.swap_remove(set);
        let n = s.materials.len();
        if index >= n {
            bail!("{label}: no material {index} in set {set} (it has {n})");
        }
        Ok(s.materials.swap_remove(index))
    }

    /// Material `index` of material set `set`, as GX state.
    pub fn material(&self, set: usize, index: usize) -> anyhow::Result<gx::Material> {
        let label = &self.resource.label;
        self.cpu_material(set, index)?
            .gx
            .map_err(|e| anyhow::anyhow!(e))
            .with_context(|| format!("{label}: material {index} of set {set}"))
    }

    /// The decoded textures of a material, by texture slot (None where a texture could
    /// not be found or decoded; a warning says why).
    pub fn textures(&self, set: usize, index: usize) -> anyhow::Result<Vec<Option<TextureData>>> {
        Ok(self
            .cpu_material(set, index)?
            .textures
            .into_iter()
            .map(|id| {
                let id = id.ok()?;
                match self.texture(id) {
                    Ok(t) => Some(t),
                    Err(e) => {
                        let wide = id > u64::from(u32::MAX);
                        eprintln!("warning: texture {}: {e:#}", asset_id_string(id, wide));
                        None
                    }
                }
            })
            .collect())
    }

    fn texture(&self, id: u64) -> anyhow::Result<TextureData> {
        let res = self
            .resolver
            .find(id, Some(*b"TXTR"))?
            .with_context(|| format!("not found ({})", self.resolver.describe()))?;
        let txtr = Txtr::parse(&res.bytes, &res.label)?;
        let (data, problem) = decode_texture(&txtr).with_context(|| res.label.clone())?;
        if let Some(p) = problem {
            eprintln!("warning: {}: {p}", res.label);
        }
        Ok(data)
    }
}
