//! The material showcase: one CMDL whose surfaces are tiles laid out in rows, each tile a
//! material demonstrating one GX feature (texture formats, TEV programs, konst colours,
//! blending, punchthrough, every MP1 UV-animation mode, a lightmap, vertex colours).
//!
//! Layout (Prime's Z-up convention): tiles face +Y, the model's front (where Prime actors
//! face), so the default viewer camera sees them; rows run along X (column 0 on the left as
//! seen from the front) and are stacked along Z, row 0 at the top.

use std::f32::consts::{PI, TAU};

use crate::formats::Game;
use crate::formats::cmdl::{CmdlBuilder, MeshVertex};
use crate::formats::material::MaterialBuilder;
use crate::gx::{
    self, AlphaInput as A, ChannelControl, ColorInput as C, KonstSel, RasterChannel, TevCombine,
    TevReg, TevStage, TexGen, TexGenSrc, TexGenType, UvAnimation,
};

use super::textures::*;
use super::{DemoError, snap3};

/// Tile edge length and the distance between tile centres.
const TILE: f32 = 1.0;
const PITCH: f32 = 1.25;
/// Vertical distance between rows.
const ROW_PITCH: f32 = 1.5;
/// Number of rows (formats, TEV, blending, UV animation).
const ROWS: usize = 4;
/// Quads are subdivided so per-vertex (GX) lighting from spot and point lights shows.
const PANEL_DIVISIONS: u32 = 4;
const SPHERE_SLICES: u32 = 16;
const SPHERE_STACKS: u32 = 10;
/// How far the blending row's opaque backdrop sits behind its tiles.
const BACKDROP_DEPTH: f32 = 0.35;

/// Channel words (formats.md §3.5): lit with register sources (Retro's usual 0x3001), lit
/// with the vertex colour as material, and unlit vertex colour.
const CHANNEL_LIT_VERTEX: u32 = 0x3005;
const CHANNEL_UNLIT_VERTEX: u32 = 0x3004;

/// Konst selectors (gx.md §4).
const KCSEL_K0: KonstSel = KonstSel(0x0C);
const KCSEL_K1: KonstSel = KonstSel(0x0D);
/// K2's green component splatted to RGB.
const KCSEL_K2_G: KonstSel = KonstSel(0x16);
/// K3's alpha component.
const KASEL_K3_A: KonstSel = KonstSel(0x1F);

/// TEV compare op: R8 "greater than" (d + (a.r > b.r ? c : 0)), gx.md §3.3.
const OP_COMPARE_R8_GT: u8 = 8;

/// One tile of the showcase as it ends up in the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ShowcaseTile {
    /// Material name (used in the README and tests).
    pub name: &'static str,
    /// What the material demonstrates.
    pub about: &'static str,
    pub row: usize,
    /// Column within the row; None for the row's backdrop.
    pub column: Option<usize>,
    /// Material index in the CMDL (also the surface's).
    pub material_index: u32,
    /// The TXTR IDs the material binds, map 0 first.
    pub textures: Vec<u32>,
    /// UV-animation modes used.
    pub uv_modes: Vec<u32>,
}

/// Row titles for the README.
pub const ROW_TITLES: [&str; ROWS] = [
    "Texture formats",
    "TEV programs, konst colours, vertex colours, lightmap",
    "Blending and alpha test",
    "UV animation modes 0–7",
];

#[derive(Clone, Copy)]
enum Shape {
    Panel,
    /// Panel with vertex colours.
    ColoredPanel,
    /// Panel with short-UV TEX0 (lightmap) and float TEX1.
    LightmapPanel,
    /// Panel whose TEX0 covers one filmstrip frame: (u extent, v extent).
    FramePanel(f32, f32),
    Sphere,
    /// The blending row's backdrop, `columns` tiles wide, behind the row.
    Backdrop(usize),
}

struct TileDef {
    name: &'static str,
    about: &'static str,
    shape: Shape,
    textures: Vec<u32>,
    material: MaterialBuilder,
}

// ------------------------------------------------------------------------------------------
// Small constructors for GX values.

/// A stage with the default combine (ADD, ×1, clamp, to PREV) and neutral selectors.
pub(super) fn stage(
    color_in: [C; 4],
    alpha_in: [A; 4],
    tex: Option<(u8, u8)>,
    raster: RasterChannel,
) -> TevStage {
    TevStage {
        color_in,
        alpha_in,
        color_op: TevCombine::DEFAULT,
        alpha_op: TevCombine::DEFAULT,
        kcsel: KCSEL_K0,
        kasel: KonstSel(0x00),
        raster,
        tex_map: tex.map(|t| t.0),
        tex_coord: tex.map(|t| t.1),
        tex_swap: 0,
        ras_swap: 0,
    }
}

fn combine_to(out_reg: TevReg) -> TevCombine {
    TevCombine {
        out_reg,
        ..TevCombine::DEFAULT
    }
}

/// TEXn through TEXMTX`slot` (a UV animation) or the identity, no post matrix.
pub(super) fn uv_texgen(tex: u8, anim_slot: Option<u32>) -> TexGen {
    TexGen {
        kind: TexGenType::Mtx2x4,
        source: TexGenSrc::Tex(tex),
        gx_tex_mtx: anim_slot.map_or(gx::GX_IDENTITY, |s| 30 + 3 * s),
        normalize: false,
        gx_post_mtx: gx::GX_PTIDENTITY,
    }
}

/// A 3×4 texgen through TEXMTX`slot` and PTTEXMTX`slot`, as the environment-style UV
/// animations (modes 0, 1, 6, 7) load both.
fn projected_texgen(source: TexGenSrc, slot: u32, normalize: bool) -> TexGen {
    TexGen {
        kind: TexGenType::Mtx3x4,
        source,
        gx_tex_mtx: 30 + 3 * slot,
        normalize,
        gx_post_mtx: 64 + 3 * slot,
    }
}

/// One texture, TEXC × RASC (alpha TEXA), lit, through `texgen`.
pub(super) fn textured(set_tex: u32, texgen: TexGen, lit: bool) -> MaterialBuilder {
    let mut b = MaterialBuilder::new();
    let slot = b.texture(set_tex);
    let tc = b.texgen(texgen);
    let (c, raster) = if lit {
        (
            [C::Zero, C::Texc, C::Rasc, C::Zero],
            RasterChannel::Color0A0,
        )
    } else {
        ([C::Zero, C::Zero, C::Zero, C::Texc], RasterChannel::None)
    };
    b.stage(stage(
        c,
        [A::Zero, A::Zero, A::Zero, A::Texa],
        Some((slot, tc)),
        raster,
    ))
}

// ------------------------------------------------------------------------------------------
// The tiles, row by row.

fn format_tiles(b: &mut CmdlBuilder) -> Vec<TileDef> {
    const ABOUT: [&str; 11] = [
        "texture format I4 (TXTR 0), lit",
        "texture format I8 (TXTR 1), lit",
        "texture format IA4 (TXTR 2), lit; alpha not used here",
        "texture format IA8 (TXTR 3), lit; alpha not used here",
        "texture format C4 (TXTR 4) with an RGB565 palette, lit",
        "texture format C8 (TXTR 5) with an RGB565 palette, lit",
        "texture format C14X2 (TXTR 6) with an RGB5A3 palette, lit",
        "texture format RGB565 (TXTR 7), lit",
        "texture format RGB5A3 (TXTR 8), lit; alpha not used here",
        "texture format RGBA8 (TXTR 9), lit; alpha not used here",
        "texture format CMPR (TXTR 10), lit; transparent texels show black",
    ];
    const NAMES: [&str; 11] = [
        "format_i4",
        "format_i8",
        "format_ia4",
        "format_ia8",
        "format_c4",
        "format_c8",
        "format_c14x2",
        "format_rgb565",
        "format_rgb5a3",
        "format_rgba8",
        "format_cmpr",
    ];
    const IDS: [u32; 11] = [
        TEX_I4, TEX_I8, TEX_IA4, TEX_IA8, TEX_C4, TEX_C8, TEX_C14X2, TEX_RGB565, TEX_RGB5A3,
        TEX_RGBA8, TEX_CMPR,
    ];
    (0..11)
        .map(|i| TileDef {
            name: NAMES[i],
            about: ABOUT[i],
            shape: Shape::Panel,
            textures: vec![IDS[i]],
            material: MaterialBuilder::textured_lit(b.add_texture(IDS[i])),
        })
        .collect()
}

/// Texture × lit vertex colour + konst in one stage (d = KONST adds a violet floor).
fn tev_modulate_konst(b: &mut CmdlBuilder) -> TileDef {
    let mut m = MaterialBuilder::new()
        .color0(Some(ChannelControl::from_word(CHANNEL_LIT_VERTEX)))
        .konst(0, [40, 0, 70, 255]);
    let slot = m.texture(b.add_texture(TEX_I8));
    let tc = m.texgen(uv_texgen(0, None));
    m = m.stage(stage(
        [C::Zero, C::Texc, C::Rasc, C::Konst],
        [A::Zero, A::Zero, A::Zero, A::Texa],
        Some((slot, tc)),
        RasterChannel::Color0A0,
    ));
    TileDef {
        name: "tev_modulate_konst",
        about: "1 stage: TEXC × RASC + KONST (K0 violet); COLOR0 lit with the vertex colour as material (channel word 0x3005)",
        shape: Shape::ColoredPanel,
        textures: vec![TEX_I8],
        material: m,
    }
}

/// Four stages passing intermediate results through C0 and C2, then multiplying by C1.
fn tev_four_stage(b: &mut CmdlBuilder) -> TileDef {
    let mut m = MaterialBuilder::new().konst(0, [255, 140, 20, 255]);
    let checker = m.texture(b.add_texture(TEX_I4));
    let rings = m.texture(b.add_texture(TEX_I8));
    let tc = m.texgen(uv_texgen(0, None));
    let alpha_one = [A::Zero, A::Zero, A::Zero, A::Konst];
    // Stage 0: C0 := checker.
    let mut s0 = stage(
        [C::Zero, C::Zero, C::Zero, C::Texc],
        alpha_one,
        Some((checker, tc)),
        RasterChannel::None,
    );
    s0.color_op = combine_to(TevReg::C0);
    // Stage 1: C2 := lerp(C0, K0, rings).
    let mut s1 = stage(
        [C::C0, C::Konst, C::Texc, C::Zero],
        alpha_one,
        Some((rings, tc)),
        RasterChannel::None,
    );
    s1.color_op = combine_to(TevReg::C2);
    // Stage 2: PREV := C2 × lit colour.
    let s2 = stage(
        [C::Zero, C::C2, C::Rasc, C::Zero],
        alpha_one,
        None,
        RasterChannel::Color0A0,
    );
    // Stage 3: PREV := PREV × C1 (the world light level register), ×2 and clamped.
    let mut s3 = stage(
        [C::Zero, C::Cprev, C::C1, C::Zero],
        alpha_one,
        None,
        RasterChannel::None,
    );
    s3.color_op.scale = 1;
    m = m.stage(s0).stage(s1).stage(s2).stage(s3);
    TileDef {
        name: "tev_four_stage",
        about: "4 stages: C0 = checker; C2 = lerp(C0, K0 orange, rings); PREV = C2 × RASC; PREV = PREV × C1 × 2 (C1 = world light level)",
        shape: Shape::Panel,
        textures: vec![TEX_I4, TEX_I8],
        material: m,
    }
}

/// A compare stage: yellow where the texture's red channel exceeds one half.
fn tev_compare(b: &mut CmdlBuilder) -> TileDef {
    let mut m = MaterialBuilder::new().konst(0, [255, 230, 0, 255]);
    let slot = m.texture(b.add_texture(TEX_RGB565));
    let tc = m.texgen(uv_texgen(0, None));
    let alpha_one = [A::Zero, A::Zero, A::Zero, A::Konst];
    // Stage 0: PREV := texture (red = u).
    let s0 = stage(
        [C::Zero, C::Zero, C::Zero, C::Texc],
        alpha_one,
        Some((slot, tc)),
        RasterChannel::None,
    );
    // Stage 1: C0 := (PREV.r > ½) ? K0 : 0.
    let mut s1 = stage(
        [C::Cprev, C::Half, C::Konst, C::Zero],
        alpha_one,
        None,
        RasterChannel::None,
    );
    s1.color_op = TevCombine {
        op: OP_COMPARE_R8_GT,
        ..combine_to(TevReg::C0)
    };
    // Stage 2: PREV := PREV × ½ + C0.
    let s2 = stage(
        [C::Zero, C::Cprev, C::Half, C::C0],
        alpha_one,
        None,
        RasterChannel::None,
    );
    // Stage 3: lit.
    let s3 = stage(
        [C::Zero, C::Cprev, C::Rasc, C::Zero],
        alpha_one,
        None,
        RasterChannel::Color0A0,
    );
    m = m.stage(s0).stage(s1).stage(s2).stage(s3);
    TileDef {
        name: "tev_compare",
        about: "compare op R8 GT (op 8): C0 = (TEXC.r > HALF) ? K0 yellow : 0, then PREV = TEXC/2 + C0, lit",
        shape: Shape::Panel,
        textures: vec![TEX_RGB565],
        material: m,
    }
}

/// All four konst registers, register and component selectors.
fn konst_colors(b: &mut CmdlBuilder) -> TileDef {
    let mut m = MaterialBuilder::new()
        .konst(0, [220, 40, 160, 255])
        .konst(1, [20, 160, 170, 255])
        .konst(2, [0, 40, 0, 255])
        .konst(3, [0, 0, 0, 200]);
    let slot = m.texture(b.add_texture(TEX_I8));
    let tc = m.texgen(uv_texgen(0, None));
    let alpha = [A::Zero, A::Zero, A::Zero, A::Konst];
    // Stage 0: PREV := K0 × tex.
    let mut s0 = stage(
        [C::Zero, C::Konst, C::Texc, C::Zero],
        alpha,
        Some((slot, tc)),
        RasterChannel::None,
    );
    s0.kcsel = KCSEL_K0;
    // Stage 1: PREV += K1 × (1 − tex)  → lerp(K1, K0, tex).
    let mut s1 = stage(
        [C::Konst, C::Zero, C::Texc, C::Cprev],
        alpha,
        Some((slot, tc)),
        RasterChannel::None,
    );
    s1.kcsel = KCSEL_K1;
    // Stage 2: PREV := PREV × RASC + K2.g (splatted); alpha := K3.a.
    let mut s2 = stage(
        [C::Zero, C::Cprev, C::Rasc, C::Konst],
        alpha,
        None,
        RasterChannel::Color0A0,
    );
    s2.kcsel = KCSEL_K2_G;
    s2.kasel = KASEL_K3_A;
    m = m.stage(s0).stage(s1).stage(s2);
    TileDef {
        name: "konst_colors",
        about: "konst block (flag 0x8) with K0–K3: lerp(K1 teal, K0 magenta, rings) × RASC + K2.g (kcsel 0x16); alpha = K3.a (kasel 0x1F)",
        shape: Shape::Panel,
        textures: vec![TEX_I8],
        material: m,
    }
}

/// Unlit vertex colours (COLOR0 lighting off, material source VTX).
fn vertex_colors(_b: &mut CmdlBuilder) -> TileDef {
    TileDef {
        name: "vertex_colors",
        about: "vertex colours only: COLOR0 unlit with material source VTX (channel word 0x3004), stage passes RASC",
        shape: Shape::ColoredPanel,
        textures: vec![],
        material: MaterialBuilder::lit_color()
            .color0(Some(ChannelControl::from_word(CHANNEL_UNLIT_VERTEX))),
    }
}

/// Prime's world-geometry lightmap program: TEX0 (the lightmap, from the short-UV array,
/// flag 0x2000) × C1, then × the diffuse texture on TEX1 × 2; unlit.
pub(super) fn lightmapped(b: &mut CmdlBuilder, lightmap: u32, diffuse: u32) -> MaterialBuilder {
    let mut m = MaterialBuilder::new()
        .color0(None)
        .flags(gx::flags::SHORT_UV | gx::flags::LIGHTMAP);
    let lm = m.texture(b.add_texture(lightmap));
    let diffuse = m.texture(b.add_texture(diffuse));
    let tc0 = m.texgen(uv_texgen(0, None));
    let tc1 = m.texgen(uv_texgen(1, None));
    let alpha_one = [A::Zero, A::Zero, A::Zero, A::Konst];
    let s0 = stage(
        [C::Zero, C::Texc, C::C1, C::Zero],
        alpha_one,
        Some((lm, tc0)),
        RasterChannel::None,
    );
    let mut s1 = stage(
        [C::Zero, C::Texc, C::Cprev, C::Zero],
        alpha_one,
        Some((diffuse, tc1)),
        RasterChannel::None,
    );
    s1.color_op.scale = 1;
    m.stage(s0).stage(s1)
}

/// The lightmap tile (see [`lightmapped`]).
fn lightmap(b: &mut CmdlBuilder) -> TileDef {
    let m = lightmapped(b, TEX_LIGHTMAP, TEX_C4);
    TileDef {
        name: "lightmap",
        about: "lightmap: flags 0x2000 + 0x800, TEX0 from the short-UV array (u16/32768); PREV = lightmap × C1, then × diffuse (TEX1, float UVs) × 2; no lighting (channel count 0)",
        shape: Shape::LightmapPanel,
        textures: vec![TEX_LIGHTMAP, TEX_C4],
        material: m,
    }
}

/// The blending row's opaque backdrop, so blended tiles have something behind them.
fn backdrop(b: &mut CmdlBuilder) -> TileDef {
    TileDef {
        name: "backdrop",
        about: "opaque backdrop behind the blending tiles (C4 stripes, lit)",
        shape: Shape::Backdrop(3),
        textures: vec![TEX_C4],
        material: MaterialBuilder::textured_lit(b.add_texture(TEX_C4)),
    }
}

fn blend_additive(b: &mut CmdlBuilder) -> TileDef {
    let mut m = MaterialBuilder::new()
        .konst(0, [60, 200, 255, 255])
        .additive();
    let slot = m.texture(b.add_texture(TEX_I8));
    let tc = m.texgen(uv_texgen(0, None));
    m = m.stage(stage(
        [C::Zero, C::Texc, C::Konst, C::Zero],
        [A::Zero, A::Zero, A::Zero, A::Texa],
        Some((slot, tc)),
        RasterChannel::None,
    ));
    TileDef {
        name: "blend_additive",
        about: "additive blending ONE/ONE (1/1), depth-sorted (0x10), no depth write: rings × K0 cyan glow",
        shape: Shape::Panel,
        textures: vec![TEX_I8],
        material: m,
    }
}

fn blend_alpha(b: &mut CmdlBuilder) -> TileDef {
    TileDef {
        name: "blend_alpha",
        about: "alpha blending SRCALPHA/INVSRCALPHA (4/5), flag 0x10 (depth-sorted), no depth write: RGB5A3 disc with soft alpha",
        shape: Shape::Panel,
        textures: vec![TEX_RGB5A3],
        material: textured(b.add_texture(TEX_RGB5A3), uv_texgen(0, None), true).alpha_blended(),
    }
}

fn punchthrough(b: &mut CmdlBuilder) -> TileDef {
    TileDef {
        name: "punchthrough",
        about: "punchthrough (flag 0x20): alpha test ≥ 64, blend forced ONE/ZERO; IA4 rings cut holes",
        shape: Shape::Panel,
        textures: vec![TEX_IA4],
        material: textured(b.add_texture(TEX_IA4), uv_texgen(0, None), true).punchthrough(),
    }
}

fn uv_tiles(b: &mut CmdlBuilder) -> Vec<TileDef> {
    let frame = 1.0 / FILMSTRIP_FRAMES as f32;
    let filmstrip = |num_frames: f32| (1.0, num_frames, 1.0 / num_frames, 0.0);
    let (scale, frames, step, offset) = filmstrip(FILMSTRIP_FRAMES as f32);
    vec![
        TileDef {
            name: "uv_env_mode0",
            about: "UV mode 0 (inverse model-view without translation): NRM through TEXMTX0 (3×4, normalised) and PTTEXMTX0 = env post matrix; sphere reflects the sky map",
            shape: Shape::Sphere,
            textures: vec![TEX_ENV],
            material: textured(
                b.add_texture(TEX_ENV),
                projected_texgen(TexGenSrc::Normal, 0, true),
                false,
            )
            .uv_animation(UvAnimation::InverseModelViewNoTranslation),
        },
        TileDef {
            name: "uv_env_mode1",
            about: "UV mode 1 (full inverse model-view): POS through TEXMTX0 (3×4, normalised) and the env post matrix; the lookup follows the view direction",
            shape: Shape::Sphere,
            textures: vec![TEX_ENV],
            material: textured(
                b.add_texture(TEX_ENV),
                projected_texgen(TexGenSrc::Position, 0, true),
                false,
            )
            .uv_animation(UvAnimation::InverseModelView),
        },
        TileDef {
            name: "uv_scroll",
            about: "UV mode 2 (scroll): offset (0, 0), speed (0.25, 0) per second through TEXMTX0",
            shape: Shape::Panel,
            textures: vec![TEX_ARROW],
            material: textured(b.add_texture(TEX_ARROW), uv_texgen(0, Some(0)), true).uv_animation(
                UvAnimation::Scroll {
                    offset_u: 0.0,
                    offset_v: 0.0,
                    speed_u: 0.25,
                    speed_v: 0.0,
                },
            ),
        },
        TileDef {
            name: "uv_rotate",
            about: "UV mode 3 (rotation about (½, ½)): offset 0, speed 1 rad/s",
            shape: Shape::Panel,
            textures: vec![TEX_ARROW],
            material: textured(b.add_texture(TEX_ARROW), uv_texgen(0, Some(0)), true).uv_animation(
                UvAnimation::Rotation {
                    offset: 0.0,
                    speed: 1.0,
                },
            ),
        },
        TileDef {
            name: "uv_filmstrip_h",
            about: "UV mode 4 (horizontal filmstrip): scale 1, 8 frames, step 1/8, offset 0; the tile shows one frame, the digit counts seconds mod 8",
            shape: Shape::FramePanel(frame, 1.0),
            textures: vec![TEX_DIGITS_H],
            material: textured(b.add_texture(TEX_DIGITS_H), uv_texgen(0, Some(0)), true)
                .uv_animation(UvAnimation::HorizontalFilmstrip {
                    scale,
                    num_frames: frames,
                    step,
                    offset,
                }),
        },
        TileDef {
            name: "uv_filmstrip_v",
            about: "UV mode 5 (vertical filmstrip): scale 1, 8 frames, step 1/8, offset 0; digits stacked vertically",
            shape: Shape::FramePanel(1.0, frame),
            textures: vec![TEX_DIGITS_V],
            material: textured(b.add_texture(TEX_DIGITS_V), uv_texgen(0, Some(0)), true)
                .uv_animation(UvAnimation::VerticalFilmstrip {
                    scale,
                    num_frames: frames,
                    step,
                    offset,
                }),
        },
        TileDef {
            name: "uv_model_mode6",
            about: "UV mode 6 (model matrix): POS through TEXMTX0 = model rotation and PTTEXMTX0 (u = x/2, v = z/2 + 0.05·translation); planar projection on a sphere",
            shape: Shape::Sphere,
            textures: vec![TEX_RGB565],
            material: textured(
                b.add_texture(TEX_RGB565),
                projected_texgen(TexGenSrc::Position, 0, false),
                true,
            )
            .uv_animation(UvAnimation::Model),
        },
        TileDef {
            name: "uv_cylinder_mode7",
            about: "UV mode 7 (cylinder): NRM through TEXMTX0 (as mode 0) and PTTEXMTX0 scaled by 1 with a camera-position phase of 1",
            shape: Shape::Sphere,
            textures: vec![TEX_C8],
            material: textured(
                b.add_texture(TEX_C8),
                projected_texgen(TexGenSrc::Normal, 0, true),
                false,
            )
            .uv_animation(UvAnimation::Cylinder {
                scale: 1.0,
                phase: 1.0,
            }),
        },
    ]
}

fn rows(b: &mut CmdlBuilder) -> [Vec<TileDef>; ROWS] {
    [
        format_tiles(b),
        vec![
            tev_modulate_konst(b),
            tev_four_stage(b),
            tev_compare(b),
            konst_colors(b),
            vertex_colors(b),
            lightmap(b),
        ],
        vec![
            backdrop(b),
            blend_additive(b),
            blend_alpha(b),
            punchthrough(b),
        ],
        uv_tiles(b),
    ]
}

// ------------------------------------------------------------------------------------------
// Geometry.

/// Keeps Prime's winding: a face is shown when it is counter-clockwise on screen, i.e. its
/// right-handed normal points toward the viewer (formats.md §2.5). Flips `t` to agree with
/// `outward`.
pub(super) fn orient(t: [u32; 3], verts: &[MeshVertex], outward: [f32; 3]) -> [u32; 3] {
    let p = |i: u32| verts[i as usize].position;
    let (a, b, c) = (p(t[0]), p(t[1]), p(t[2]));
    let u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
    let v = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    if n[0] * outward[0] + n[1] * outward[1] + n[2] * outward[2] < 0.0 {
        [t[0], t[2], t[1]]
    } else {
        t
    }
}

/// A subdivided panel facing +Y, the model's front (Prime actors face +Y, so a viewer
/// looking at a model's front sees it); `f` fills each vertex's attributes from (s, t) ∈ [0, 1]²
/// with t = 0 at the top edge.
fn panel(
    center: [f32; 3],
    size: [f32; 2],
    f: impl Fn(MeshVertex, f32, f32) -> MeshVertex,
) -> (Vec<MeshVertex>, Vec<[u32; 3]>) {
    let n = PANEL_DIVISIONS;
    let mut verts = Vec::new();
    for j in 0..=n {
        for i in 0..=n {
            let (s, t) = (i as f32 / n as f32, j as f32 / n as f32);
            let pos = [
                center[0] - (s - 0.5) * size[0],
                center[1],
                center[2] + (0.5 - t) * size[1],
            ];
            verts.push(f(MeshVertex::new(pos).normal([0.0, 1.0, 0.0]), s, t));
        }
    }
    let mut tris = Vec::new();
    let at = |i: u32, j: u32| j * (n + 1) + i;
    for j in 0..n {
        for i in 0..n {
            let (tl, tr, bl, br) = (at(i, j), at(i + 1, j), at(i, j + 1), at(i + 1, j + 1));
            tris.push(orient([bl, br, tr], &verts, [0.0, 1.0, 0.0]));
            tris.push(orient([bl, tr, tl], &verts, [0.0, 1.0, 0.0]));
        }
    }
    (verts, tris)
}

/// A UV sphere with outward normals and TEX0 = (longitude, latitude).
fn sphere(center: [f32; 3], radius: f32) -> (Vec<MeshVertex>, Vec<[u32; 3]>) {
    let (slices, stacks) = (SPHERE_SLICES, SPHERE_STACKS);
    let mut verts = Vec::new();
    for j in 0..=stacks {
        let phi = PI * j as f32 / stacks as f32;
        for i in 0..=slices {
            let theta = TAU * i as f32 / slices as f32;
            let n = [phi.sin() * theta.cos(), phi.sin() * theta.sin(), phi.cos()];
            let pos = [
                center[0] + radius * n[0],
                center[1] + radius * n[1],
                center[2] + radius * n[2],
            ];
            verts.push(
                MeshVertex::new(snap3(pos))
                    .normal(snap3(n))
                    .uv(0, [i as f32 / slices as f32, j as f32 / stacks as f32]),
            );
        }
    }
    let at = |i: u32, j: u32| j * (slices + 1) + i;
    let mut tris = Vec::new();
    for j in 0..stacks {
        for i in 0..slices {
            let quad = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
            for t in [[quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]] {
                // Skip the degenerate triangles at the poles.
                let p = |k: u32| verts[k as usize].position;
                if p(t[0]) == p(t[1]) || p(t[1]) == p(t[2]) || p(t[0]) == p(t[2]) {
                    continue;
                }
                let mid =
                    [0, 1, 2].map(|c| (p(t[0])[c] + p(t[1])[c] + p(t[2])[c]) / 3.0 - center[c]);
                tris.push(orient(t, &verts, mid));
            }
        }
    }
    (verts, tris)
}

/// A smooth colour field for vertex-coloured tiles.
fn vertex_color(s: f32, t: f32) -> [u8; 4] {
    let c = |x: f32| (x.clamp(0.0, 1.0) * 255.0).round() as u8;
    [c(1.0 - s), c(s * (1.0 - t) + 0.2), c(t), 255]
}

fn tile_mesh(shape: Shape, center: [f32; 3]) -> (Vec<MeshVertex>, Vec<[u32; 3]>) {
    let size = [TILE, TILE];
    match shape {
        Shape::Panel => panel(center, size, |v, s, t| v.uv(0, [s, t])),
        Shape::ColoredPanel => panel(center, size, |v, s, t| {
            v.uv(0, [s, t]).color(vertex_color(s, t))
        }),
        // Lightmap UVs span the texture once (short UVs hold 0..2); the diffuse repeats twice.
        Shape::LightmapPanel => panel(center, size, |v, s, t| {
            v.uv(0, [s, t]).uv(1, [2.0 * s, 2.0 * t])
        }),
        Shape::FramePanel(du, dv) => panel(center, size, move |v, s, t| v.uv(0, [s * du, t * dv])),
        Shape::Sphere => sphere(center, TILE * 0.5),
        Shape::Backdrop(columns) => {
            let width = columns as f32 * PITCH + 0.5;
            let c = [center[0], center[1] - BACKDROP_DEPTH, center[2]];
            panel(c, [width, TILE + 0.3], move |v, s, t| {
                v.uv(0, [s * width, t * (TILE + 0.3)])
            })
        }
    }
}

/// Builds the showcase CMDL; returns its bytes and the tiles in material order.
pub fn build_showcase() -> Result<(Vec<u8>, Vec<ShowcaseTile>), DemoError> {
    let mut b = CmdlBuilder::new(Game::Mp1);
    let rows = rows(&mut b);
    let mut tiles = Vec::new();
    for (r, row) in rows.into_iter().enumerate() {
        let z = (ROWS - 1 - r) as f32 * ROW_PITCH;
        // The backdrop does not take a column; it is centred on the row.
        let columns = row
            .iter()
            .filter(|t| !matches!(t.shape, Shape::Backdrop(_)))
            .count();
        let mut column = 0;
        for def in row {
            let (center, col) = match def.shape {
                Shape::Backdrop(_) => ([0.0, 0.0, z], None),
                _ => {
                    // Seen from the front (+Y, x to the left), column 0 is on the left.
                    let x = -(column as f32 - (columns as f32 - 1.0) / 2.0) * PITCH;
                    column += 1;
                    ([x, 0.0, z], Some(column - 1))
                }
            };
            let material = def.material.build();
            let uv_modes = material.uv_animations.iter().map(|a| a.mode).collect();
            let index = b.add_material(material);
            let (verts, tris) = tile_mesh(def.shape, center);
            b.add_mesh(index, &verts, &tris)
                .map_err(|e| DemoError::new(def.name, e.to_string()))?;
            tiles.push(ShowcaseTile {
                name: def.name,
                about: def.about,
                row: r,
                column: col,
                material_index: index,
                textures: def.textures,
                uv_modes,
            });
        }
    }
    let bytes = b
        .build_bytes()
        .map_err(|e| DemoError::new("showcase", e.to_string()))?;
    Ok((bytes, tiles))
}
