//! What a bake (`export --bake`) needs to know about a material: which vertex UV set its
//! baked texture is laid out over, and whether its look depends on the camera.

use super::tev::{stage_texcoord, stage_texture_map};
use super::types::{ColorInput, Material, TevStage, TexGenSrc, UvAnimation, flags};

/// The first stage reading a texture's colour, not a lightmapped material's lightmap
/// (map 0): the glTF base colour's stage.
fn base_color_stage(material: &Material) -> Option<&TevStage> {
    let lightmapped = material.flags & flags::LIGHTMAP != 0;
    material
        .stages
        .iter()
        .filter(|s| {
            stage_texture_map(s).is_some()
                && (s.color_in.contains(&ColorInput::Texc)
                    || s.color_in.contains(&ColorInput::Texa))
        })
        .find(|s| !(lightmapped && stage_texture_map(s) == Some(0)))
}

/// The texture map of the base colour stage (its texture sizes the bake).
pub fn base_color_map(material: &Material) -> Option<u8> {
    base_color_stage(material).and_then(stage_texture_map)
}

/// The vertex UV set a material's bake is laid out over. One rule, shared with the glTF
/// base colour: the texgen source of the first stage that reads a texture's colour (not
/// a lightmapped material's lightmap, map 0) when that texgen reads a vertex UV set
/// (TEX n); otherwise UV0.
pub fn base_color_uv(material: &Material) -> u8 {
    base_color_stage(material)
        .and_then(|s| stage_texcoord(s, material.texgens.len()))
        .and_then(|c| material.texgens.get(usize::from(c)))
        .map_or(0, |g| match g.source {
            TexGenSrc::Tex(n) => n,
            _ => 0,
        })
}

/// Whether the material's texture coordinates follow the camera (UV animation modes 0
/// and 1, the inverse model-view environment maps, and 7, the cylinder, `gx.md` §12):
/// its bake holds what the export camera sees, not a view-independent texture.
pub fn view_dependent(material: &Material) -> bool {
    material.uv_animations.iter().any(|a| {
        matches!(
            a,
            UvAnimation::InverseModelViewNoTranslation
                | UvAnimation::InverseModelView
                | UvAnimation::Cylinder { .. }
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gx::types::{GX_IDENTITY, GX_PTIDENTITY, TexGen, TexGenType};

    fn texgen(source: TexGenSrc) -> TexGen {
        TexGen {
            kind: TexGenType::Mtx2x4,
            source,
            gx_tex_mtx: GX_IDENTITY,
            normalize: false,
            gx_post_mtx: GX_PTIDENTITY,
        }
    }

    #[test]
    fn bake_uv_follows_the_base_colour_stage() {
        let mut m = Material::texture_passthrough();
        assert_eq!(base_color_uv(&m), 0);
        m.texgens = vec![texgen(TexGenSrc::Tex(1))];
        assert_eq!(base_color_uv(&m), 1);
        // A lightmap (map 0 of a lightmapped material) does not decide the layout.
        m.flags |= flags::LIGHTMAP;
        assert_eq!(base_color_uv(&m), 0);
        m.flags &= !flags::LIGHTMAP;
        m.texgens = vec![texgen(TexGenSrc::Normal)];
        assert_eq!(base_color_uv(&m), 0);
    }

    #[test]
    fn environment_maps_are_view_dependent() {
        let mut m = Material::texture_passthrough();
        assert!(!view_dependent(&m));
        m.uv_animations = vec![UvAnimation::Model];
        assert!(!view_dependent(&m));
        m.uv_animations
            .push(UvAnimation::InverseModelViewNoTranslation);
        assert!(view_dependent(&m));
    }
}
