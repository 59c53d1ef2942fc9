//! CLI edge of the TEV work: `tevscope wgsl FILE --material N [--uber]` and
//! `tevscope render FILE --material N --preview quad`. The dispatcher resolves the file,
//! material and textures; these functions do the rest.

use anyhow::Context as _;

use crate::gx::key::{ShaderKey, UberKey};
use crate::gx::tev::{TevOptions, TevProgram};
use crate::gx::types::Material;
use crate::gx::wgsl;
use crate::model::TextureData;
use crate::render::{
    AdapterPreference, QuadOptions, RenderContext, RgbaImage, ShaderPath, render_material_quad,
};

/// The naga-validated WGSL the renderer would compile for `material`: its specialized
/// shader, or with `uber` the ubershader (whose code depends only on the vertex side).
pub fn wgsl(material: &Material, uber: bool) -> anyhow::Result<String> {
    wgsl_with_options(material, uber, &TevOptions::default())
}

/// [`wgsl()`] with explicit TEV switches (`gx.md` §16).
pub fn wgsl_with_options(
    material: &Material,
    uber: bool,
    options: &TevOptions,
) -> anyhow::Result<String> {
    let program = TevProgram::from_material(material, options);
    let source = if uber {
        wgsl::generate_uber(&UberKey::new(material, &program))
    } else {
        wgsl::generate(&ShaderKey::new(material, &program))
    };
    let validated = wgsl::validate(source).context("generated WGSL failed naga validation")?;
    Ok(validated.source)
}

/// Renders `material` on a screen-covering `width` × `height` quad (nearest sampling,
/// transparent black clear, blending off) and returns the exact TEV output.
/// `textures[k]` is material texture k decoded to RGBA8 (None: not loaded → white).
pub fn render_quad(
    material: &Material,
    textures: &[Option<TextureData>],
    width: u32,
    height: u32,
    uber: bool,
) -> anyhow::Result<RgbaImage> {
    let ctx = RenderContext::new(AdapterPreference::Hardware).context("opening a GPU device")?;
    let path = if uber {
        ShaderPath::Uber
    } else {
        ShaderPath::Specialized
    };
    render_quad_with(
        &ctx,
        material,
        textures,
        &QuadOptions::new(width, height, path),
    )
}

/// [`render_quad`] on an existing context with full options.
pub fn render_quad_with(
    ctx: &RenderContext,
    material: &Material,
    textures: &[Option<TextureData>],
    options: &QuadOptions,
) -> anyhow::Result<RgbaImage> {
    render_material_quad(ctx, material, textures, options)
        .with_context(|| format!("rendering the material quad on {}", ctx.adapter_info.name))
}

/// [`render_quad`] written as a PNG file.
pub fn render_quad_png(
    material: &Material,
    textures: &[Option<TextureData>],
    width: u32,
    height: u32,
    uber: bool,
    out: &std::path::Path,
) -> anyhow::Result<()> {
    let image = render_quad(material, textures, width, height, uber)?;
    Ok(image.save_png(out)?)
}
