//! One frame of a [`Scene`] as a GX command stream (`gx.md` §17.5): the same materials,
//! uniforms (camera, lights, UV animation), pose and draw order the renderer uses, as BP/CP/XF
//! loads, textures as memory updates and each surface's triangles as direct f32 vertices.
//! With read-back, an EFB → RAM RGBA8 copy and a second frame that samples it follow
//! (`gx.md` §17.7), so Dolphin's texture dump holds the frame exactly.

use glam::{Mat3, Mat4, Vec3};

use super::{Dff, PRIM_LINES, PRIM_TRIANGLES, Registers, Stream, UPDATE_TEXTURE};
use crate::gx::frame::{FrameCamera, FrameUpdate};
use crate::gx::regs::{self, AttrKind, CullHw, PixelFormat, TexFilter, TexWrap};
use crate::gx::types::{
    AlphaTest, Blend, BlendMode, ChannelControl, ColorSrc, Compare, GX_IDENTITY, GX_PTIDENTITY,
    Material, TevStage, TexGen,
};
use crate::gx::wgsl::vertex::{CH_ALPHA0, CH_COLOR0, CH_COLOR1, DrawUniforms, VertexKey};
use crate::model::{CpuModel, TextureData};
use crate::render::Scene;
use crate::render::scene::SceneOptions;

/// The largest EFB a frame may use.
pub const MAX_WIDTH: u32 = 640;
pub const MAX_HEIGHT: u32 = 528;

/// MEM1 layout (32-byte-aligned, disjoint).
const FIFO_START: u32 = 0x0001_0000;
const FIFO_END: u32 = 0x0009_0000;
const XFB_ADDRESS: u32 = 0x0010_0000;
/// Where the clear copy and the read-back copy go (640 × 528 RGBA8 = 0x14A000 bytes each).
const CLEAR_COPY_ADDRESS: u32 = 0x0020_0000;
pub const READBACK_ADDRESS: u32 = 0x0040_0000;
/// The read-back frame samples the copy as a texture this many rows taller than the frame:
/// Dolphin 5.0-17995 reuses (and never dumps) a texture that exactly matches an EFB copy,
/// but loads and dumps one of another size from RAM. The extra tile row is cropped away.
pub const READBACK_PAD_ROWS: u32 = 4;
const TEXTURE_BASE: u32 = 0x0060_0000;

/// Why a frame cannot become a DFF.
#[derive(Debug, thiserror::Error)]
pub enum DffError {
    #[error("size {0}×{1}: a GX frame is 1×1 to {MAX_WIDTH}×{MAX_HEIGHT}")]
    Size(u32, u32),
    #[error(
        "textures need {needed} bytes of MEM1 from {TEXTURE_BASE:#x}; it ends at {:#x}",
        super::MEM1_SIZE
    )]
    Memory { needed: u64 },
}

/// What a frame draws: the scene as `render` leaves it, at a size and clear colour.
pub struct FrameSpec<'a> {
    pub scene: &'a Scene,
    pub width: u32,
    pub height: u32,
    pub clear: [u8; 4],
    /// Append the EFB → RAM copy and the frame that samples it.
    pub readback: bool,
}

/// Writes the scene's current frame (camera, time, pose, lights, edits) as a DFF.
pub fn scene_dff(spec: &FrameSpec) -> Result<Dff, DffError> {
    let (w, h) = (spec.width, spec.height);
    if w == 0 || h == 0 || w > MAX_WIDTH || h > MAX_HEIGHT {
        return Err(DffError::Size(w, h));
    }
    let scene = spec.scene;
    let model = scene.model();
    let set = scene.material_set();
    let camera = scene.view().frame_camera(w as f32 / h as f32);
    let mut s = Stream::default();
    frame_setup(&mut s, w, h, &camera);
    clear(&mut s, w, h, spec.clear);

    // The uniforms the renderer computes, block per material.
    let mut frame = FrameUpdate::new(scene.options().frame);
    let model_id = frame.add_model(Mat4::IDENTITY, Vec3::from(scene.aabb().center()));
    let mut materials: Vec<Option<(&Material, usize)>> = (0..scene.material_count())
        .map(|i| {
            let m = scene.material(set, i)?;
            Some((m, frame.add_material(model_id, m)))
        })
        .collect();
    let own = |i: usize| model.material_sets.get(set)?.materials.get(i);
    let mut texture_slots: Vec<&[Result<u64, String>]> = (0..materials.len())
        .map(|i| own(i).map_or(&[][..], |c| c.textures.as_slice()))
        .collect();
    // Second draws (MP3's INCA pass, `formats.md` §13.3) as entries after the set's
    // materials, as the renderer lays out its slots: `second[i]` is material i's.
    let mut second = vec![None; materials.len()];
    for (i, slot) in second.iter_mut().enumerate() {
        let Some(Some(d)) = materials[i].map(|_| own(i).and_then(|c| c.second_draw.as_deref()))
        else {
            continue;
        };
        let Ok(gx) = &d.gx else { continue };
        *slot = Some(materials.len());
        materials.push(Some((gx, frame.add_material(model_id, gx))));
        texture_slots.push(&d.textures);
    }
    frame.update(scene.time(), &camera, scene.lights());

    let textures = place_textures(model, &texture_slots, &materials, scene.options())?;
    for t in &textures.images {
        s.memory(t.address, t.bytes.clone(), UPDATE_TEXTURE);
    }
    let (positions, normals) = posed_vertices(scene);

    for i in draw_order(scene, &camera, &materials) {
        let first = model.surfaces[i].material;
        // The surface, then its material's second draw over it.
        for entry in std::iter::once(first).chain(second.get(first).copied().flatten()) {
            let Some(Some((material, block))) = materials.get(entry) else {
                continue;
            };
            let Some(u) = frame.uniforms(*block) else {
                continue;
            };
            material_state(
                &mut s,
                material,
                &u,
                &textures.maps[entry],
                Some(textures.fill),
            );
            draw_triangles(&mut s, model, i, &positions, &normals);
        }
    }
    let mut frames = Vec::new();
    if spec.readback {
        copy_to_ram(&mut s, w, h, READBACK_ADDRESS, false);
        copy_to_xfb(&mut s, w, h);
        let regs = s.regs.clone();
        frames.push(s);
        let mut r = Stream::continuing(regs);
        readback_frame(&mut r, w, h);
        copy_to_xfb(&mut r, w, h);
        frames.push(r);
    } else {
        copy_to_xfb(&mut s, w, h);
        frames.push(s);
    }
    let snapshot = sane_snapshot(&frames[0].regs);
    Ok(Dff {
        snapshot,
        frames,
        fifo_start: FIFO_START,
        fifo_end: FIFO_END,
    })
}

/// The registers the player starts from: the first frame's final state (every register
/// the frame relies on is also sent inside it, `gx.md` §17.4).
fn sane_snapshot(regs: &Registers) -> Registers {
    let mut r = regs.clone();
    r.bp[regs::BP_MASK as usize] = 0xFF_FFFF;
    r
}

/// EFB format, scissor, copy filter, viewport, projection: what every frame sets first.
fn frame_setup(s: &mut Stream, w: u32, h: u32, camera: &FrameCamera) {
    s.bp(regs::BP_MASK, 0xFF_FFFF);
    s.bp(
        regs::BP_PE_CONTROL,
        regs::pe_control(PixelFormat::Rgb8Z24, false),
    );
    let (tl, br) = regs::scissor(0, 0, w - 1, h - 1);
    s.bp(regs::BP_SCISSOR_TL, tl);
    s.bp(regs::BP_SCISSOR_BR, br);
    s.bp(regs::BP_SCISSOR_OFFSET, regs::scissor_offset(0, 0));
    let (f0, f1) = regs::copy_filter(regs::IDENTITY_COPY_FILTER);
    s.bp(regs::BP_COPY_FILTER0, f0);
    s.bp(regs::BP_COPY_FILTER1, f1);
    s.bp(regs::BP_FIELD_MASK, 3);
    // Line width and point size: what the renderer draws (`gx::lines`).
    s.bp(
        regs::BP_LPSIZE,
        regs::lp_size(crate::gx::lines::LINE_WIDTH, crate::gx::lines::POINT_SIZE),
    );
    s.bp(regs::BP_CONST_ALPHA, 0);
    s.bp(regs::BP_FOG3, 0);
    s.bp(regs::BP_ZTEX, 0);
    s.bp(regs::BP_IND_MASK, 0);
    for st in 0..16 {
        s.bp(regs::bp_ind_stage(st), 0);
    }
    // Sample pattern: every sample at the pixel centre.
    for r in 1..=4 {
        s.bp(r, 0x66_6666);
    }
    s.xf_f32(
        regs::XF_VIEWPORT,
        &regs::viewport(0.0, 0.0, w as f32, h as f32),
    );
    let (p, kind) = regs::projection(&camera.clip_from_view.to_cols_array_2d());
    let mut words: Vec<u32> = p.iter().map(|v| v.to_bits()).collect();
    words.push(kind);
    s.xf(regs::XF_PROJECTION, &words);
    // Vertex format 0: everything direct f32 / RGBA8.
    let (a, b, c) = regs::vat_float();
    s.cp(regs::cp_vat(0, 0), a);
    s.cp(regs::cp_vat(1, 0), b);
    s.cp(regs::cp_vat(2, 0), c);
    // Identity texture matrix (slot 60) and post matrix (125).
    s.xf_f32(regs::xf_matrix(GX_IDENTITY), &IDENTITY_3X4);
    s.xf_f32(regs::xf_post_matrix(GX_PTIDENTITY), &IDENTITY_3X4);
}

const IDENTITY_3X4: [f32; 12] = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 1., 0.];

fn copy_rect(s: &mut Stream, w: u32, h: u32) {
    let (xy, wh) = regs::copy_source(0, 0, w, h);
    s.bp(regs::BP_COPY_SRC_XY, xy);
    s.bp(regs::BP_COPY_SRC_WH, wh);
}

/// Clears colour and depth (far) with a copy to scratch RAM, which presents nothing.
fn clear(s: &mut Stream, w: u32, h: u32, rgba: [u8; 4]) {
    let (ar, gb, z) = regs::clear_values(rgba, 0xFF_FFFF);
    s.bp(regs::BP_CLEAR_AR, ar);
    s.bp(regs::BP_CLEAR_GB, gb);
    s.bp(regs::BP_CLEAR_Z, z);
    // Colour and depth writes on so the clear reaches both.
    s.bp(regs::BP_ZMODE, regs::zmode(true, Compare::Always, true));
    s.bp(
        regs::BP_BLENDMODE,
        regs::blend_mode(&Blend::OPAQUE, true, true),
    );
    copy_to_ram(s, w, h, CLEAR_COPY_ADDRESS, true);
}

/// An EFB → RAM RGBA8 copy (`gx.md` §17.7).
fn copy_to_ram(s: &mut Stream, w: u32, h: u32, address: u32, clear: bool) {
    copy_rect(s, w, h);
    s.bp(regs::BP_COPY_DEST, address >> 5);
    s.bp(regs::BP_COPY_STRIDE, (w.div_ceil(4) * 64) >> 5);
    s.bp(
        regs::BP_COPY_TRIGGER,
        regs::copy_trigger(regs::COPY_FORMAT_RGBA8, clear, false),
    );
}

/// The frame's last command: the EFB → XFB copy that presents it.
fn copy_to_xfb(s: &mut Stream, w: u32, h: u32) {
    copy_rect(s, w, h);
    s.bp(regs::BP_COPY_DEST, XFB_ADDRESS >> 5);
    s.bp(regs::BP_COPY_STRIDE, (w * 2) >> 5);
    s.bp(regs::BP_COPY_YSCALE, 256);
    s.bp(regs::BP_COPY_TRIGGER, regs::copy_trigger(0, false, true));
}

/// One full-screen quad sampling the read-back copy as a w × h RGBA8 texture, texel for
/// pixel (nearest, clamp, quarter-texel offset; `gx.md` §17.7).
fn readback_frame(s: &mut Stream, w: u32, h: u32) {
    let camera = FrameCamera {
        view_from_world: Mat4::IDENTITY,
        // Pixels, top-left origin, depth mid-range.
        clip_from_view: Mat4::from_cols(
            glam::Vec4::new(2.0 / w as f32, 0.0, 0.0, 0.0),
            glam::Vec4::new(0.0, -2.0 / h as f32, 0.0, 0.0),
            glam::Vec4::ZERO,
            glam::Vec4::new(-1.0, 1.0, 0.5, 1.0),
        ),
    };
    frame_setup(s, w, h, &camera);
    let m = Material::texture_passthrough();
    let th = h + READBACK_PAD_ROWS;
    let maps = [MapState {
        address: READBACK_ADDRESS,
        width: w,
        height: th,
        levels: 1,
        nearest_clamp: true,
    }];
    let u = DrawUniforms::default();
    material_state(s, &m, &u, &maps, None);
    // Channel count as XF 0x1009 says (a mismatch draws nothing in Dolphin), no culling.
    s.bp(regs::BP_GENMODE, regs::genmode(1, 2, 1, CullHw::None, 0));
    s.bp(
        regs::BP_PE_CONTROL,
        regs::pe_control(PixelFormat::Rgb8Z24, false),
    );
    s.bp(regs::BP_ZMODE, regs::zmode(false, Compare::Always, false));
    let (du, dv) = (0.25 / w as f32, 0.25 / th as f32);
    let v_max = h as f32 / th as f32;
    let quad = [
        (0.0, 0.0),
        (1.0, 0.0),
        (1.0, 1.0),
        (0.0, 0.0),
        (1.0, 1.0),
        (0.0, 1.0),
    ];
    s.draw(PRIM_TRIANGLES, 0, quad.len() as u16);
    for (x, y) in quad {
        s.f32(x * w as f32);
        s.f32(y * h as f32);
        s.f32(0.0);
        // Normal +Z, white colours.
        s.f32(0.0);
        s.f32(0.0);
        s.f32(1.0);
        s.u8s(&[255; 8]);
        s.f32(x + du);
        s.f32(y * v_max + dv);
        for _ in 1..8 {
            s.f32(0.0);
            s.f32(0.0);
        }
    }
}

/// Where a material's texture map lives in RAM and how it samples.
#[derive(Debug, Clone, Copy)]
struct MapState {
    address: u32,
    width: u32,
    height: u32,
    levels: u32,
    nearest_clamp: bool,
}

struct PlacedTextures {
    images: Vec<PlacedImage>,
    /// Per material, its texture maps.
    maps: Vec<Vec<MapState>>,
    /// The solid tile a stage without a texture map samples instead ([`fill_missing_maps`]).
    fill: MapState,
}

struct PlacedImage {
    address: u32,
    bytes: Vec<u8>,
}

/// Every texture the drawn materials bind, as GX RGBA8 images one after another in MEM1
/// (missing ones as the texture the renderer substitutes: its white placeholder or, with
/// `missing_checker`, the checker), then the [`fill_missing_maps`] tile.
fn place_textures(
    model: &CpuModel,
    texture_slots: &[&[Result<u64, String>]],
    materials: &[Option<(&Material, usize)>],
    options: &SceneOptions,
) -> Result<PlacedTextures, DffError> {
    let placeholder = if options.missing_checker {
        TextureData::missing_checker()
    } else {
        TextureData::solid(4, 4, [255; 4])
    };
    let mut next = TEXTURE_BASE as u64;
    let mut by_id = std::collections::HashMap::new();
    let mut images = Vec::new();
    let mut maps = Vec::new();
    let mut place = |tex: &TextureData, nearest_clamp: bool| {
        let bytes = encode_rgba8_levels(tex);
        let address = next as u32;
        next = (next + bytes.len() as u64).div_ceil(32) * 32;
        if next > super::MEM1_SIZE as u64 {
            return Err(DffError::Memory {
                needed: next - TEXTURE_BASE as u64,
            });
        }
        images.push(PlacedImage { address, bytes });
        Ok(MapState {
            address,
            width: tex.width,
            height: tex.height,
            levels: tex.levels.len() as u32,
            nearest_clamp,
        })
    };
    for (i, m) in materials.iter().enumerate() {
        let mut list = Vec::new();
        if let Some((m, _)) = m {
            let slots = texture_slots.get(i).copied().unwrap_or(&[]);
            for k in 0..m.texture_count {
                let id = slots.get(k).and_then(|r| r.as_ref().ok()).copied();
                let key = id.filter(|id| model.textures.contains_key(id));
                let state = match by_id.get(&key) {
                    Some(state) => *state,
                    None => {
                        let tex = key
                            .and_then(|id| model.textures.get(&id))
                            .unwrap_or(&placeholder);
                        let state = place(tex, false)?;
                        by_id.insert(key, state);
                        state
                    }
                };
                list.push(state);
            }
        }
        maps.push(list);
    }
    let v = options.tev.missing_texture.value();
    let fill = place(&TextureData::solid(4, 4, [v; 4]), true)?;
    Ok(PlacedTextures { images, maps, fill })
}

/// A stage without a texture map reads a constant in TEXC/TEXA (`gx.md` §2.3: 255 by
/// default, the `missing_texture` option), which the hardware has no register for: Dolphin's
/// software renderer reuses the last texel it sampled. So the DFF gives every such stage that
/// reads the texel the constant as a texture — a solid tile (`fill_map`, nearest, clamp, so
/// any coordinate reads it) at a free map slot, through an existing texcoord (or an added
/// identity texgen when the material has none) — and both sides read the same texels. With
/// all eight map slots bound the material is left as it is.
fn fill_missing_maps(m: &Material, fill_map: usize) -> std::borrow::Cow<'_, Material> {
    use crate::gx::types::{AlphaInput, ColorInput, TexGenSrc, TexGenType};
    let reads_texel = |st: &TevStage| {
        st.color_in
            .iter()
            .any(|i| matches!(i, ColorInput::Texc | ColorInput::Texa))
            || st.alpha_in.contains(&AlphaInput::Texa)
    };
    let needs = |st: &TevStage| st.tex_map.is_none() && reads_texel(st);
    if fill_map >= 8 || !m.stages.iter().any(needs) {
        return std::borrow::Cow::Borrowed(m);
    }
    let mut out = m.clone();
    if out.texgens.is_empty() {
        out.texgens.push(TexGen {
            kind: TexGenType::Mtx2x4,
            source: TexGenSrc::Tex(0),
            gx_tex_mtx: GX_IDENTITY,
            normalize: false,
            gx_post_mtx: GX_PTIDENTITY,
        });
    }
    let coords = out.texgens.len().min(8) as u8;
    for st in out.stages.iter_mut().filter(|st| needs(st)) {
        st.tex_map = Some(fill_map as u8);
        st.tex_coord = Some(st.tex_coord.filter(|&c| c < coords).unwrap_or(0));
    }
    std::borrow::Cow::Owned(out)
}

/// A texture's levels in GX RGBA8 layout (`formats.md` §4.2): 4×4 tiles, 32 bytes of A, R
/// pairs then 32 of G, B; each level padded to whole tiles.
pub fn encode_rgba8_levels(t: &TextureData) -> Vec<u8> {
    let mut out = Vec::new();
    for (level, texels) in t.levels.iter().enumerate() {
        let (w, h) = t.level_size(level);
        for ty in (0..h).step_by(4) {
            for tx in (0..w).step_by(4) {
                let mut ar = [0u8; 32];
                let mut gb = [0u8; 32];
                for j in 0..16u32 {
                    let (x, y) = (tx + j % 4, ty + j / 4);
                    let p = if x < w && y < h {
                        let i = ((y * w + x) * 4) as usize;
                        texels
                            .get(i..i + 4)
                            .map_or([0; 4], |p| [p[0], p[1], p[2], p[3]])
                    } else {
                        [0; 4]
                    };
                    let j = j as usize;
                    ar[2 * j] = p[3];
                    ar[2 * j + 1] = p[0];
                    gb[2 * j] = p[1];
                    gb[2 * j + 1] = p[2];
                }
                out.extend_from_slice(&ar);
                out.extend_from_slice(&gb);
            }
        }
    }
    out
}

/// Skinned (or bind-pose) model-space positions and normals, as the renderer's vertex stage
/// computes them.
fn posed_vertices(scene: &Scene) -> (Vec<Vec3>, Vec<Vec3>) {
    let model = scene.model();
    let mesh = &model.mesh;
    let positions: Vec<Vec3> = mesh.positions.iter().map(|&p| Vec3::from(p)).collect();
    let normals: Vec<Vec3> = mesh.normals.iter().map(|&n| Vec3::from(n)).collect();
    let (Some(skin), Some(pose)) = (&model.skin, scene.pose()) else {
        return (positions, normals);
    };
    let palette = pose.skin_palette(&skin.skeleton, &scene.options().pose);
    let p = positions
        .iter()
        .zip(&skin.influences)
        .map(|(&v, inf)| inf.skin_position(&palette, v))
        .collect();
    let n = normals
        .iter()
        .zip(&skin.influences)
        .map(|(&v, inf)| {
            let m: Mat3 = palette
                .normal_from_bind
                .get(inf.bones[0] as usize)
                .copied()
                .unwrap_or(Mat3::IDENTITY);
            m * v
        })
        .collect();
    (p, n)
}

/// Material flag of occluder surfaces, which the renderer leaves out.
const FLAG_OCCLUDER: u32 = 0x200;

/// The renderer's draw order: opaque surfaces in file order, then depth-sorted ones back to
/// front by their transformed centre (ties by index). Occluders, hidden surfaces and
/// unreadable materials are left out as the renderer leaves them out.
fn draw_order(
    scene: &Scene,
    camera: &FrameCamera,
    materials: &[Option<(&Material, usize)>],
) -> Vec<usize> {
    let model = scene.model();
    let mut opaque = Vec::new();
    let mut sorted = Vec::new();
    for (i, s) in model.surfaces.iter().enumerate() {
        let Some(Some((m, _))) = materials.get(s.material) else {
            continue;
        };
        if m.flags & FLAG_OCCLUDER != 0 && !scene.options().show_occluders
            || scene.surface_hidden(i)
        {
            continue;
        }
        if m.depth_sorted {
            let z = camera
                .view_from_world
                .transform_point3(Vec3::from(s.center))
                .z;
            sorted.push((z, i));
        } else {
            opaque.push(i);
        }
    }
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    opaque.extend(sorted.into_iter().map(|(_, i)| i));
    opaque
}

fn rows3x4(m: &[[f32; 4]; 4]) -> [f32; 12] {
    // Column-major 4×4 → three rows of four.
    let mut out = [0.0; 12];
    for r in 0..3 {
        for c in 0..4 {
            out[r * 4 + c] = m[c][r];
        }
    }
    out
}

fn u8_color(c: [f32; 4]) -> [u8; 4] {
    c.map(|v| v.round().clamp(0.0, 255.0) as u8)
}

/// Every BP/CP/XF register a draw with `m` relies on; stages without a texture map that
/// read the texel sample `fill` ([`fill_missing_maps`]).
fn material_state(
    s: &mut Stream,
    material: &Material,
    u: &DrawUniforms,
    maps: &[MapState],
    fill: Option<MapState>,
) {
    let m = match fill {
        Some(_) => fill_missing_maps(material, maps.len()),
        None => std::borrow::Cow::Borrowed(material),
    };
    let m = &*m;
    let maps: Vec<MapState> = maps.iter().copied().chain(fill).collect();
    let stages = &m.stages;
    let nstages = stages.len().clamp(1, 16);
    // Both channels computed, as the renderer's vertex stage does.
    s.bp(
        regs::BP_GENMODE,
        regs::genmode(m.texgens.len() as u32, 2, nstages as u32, CullHw::Front, 0),
    );
    for p in 0..nstages.div_ceil(2) {
        if let Some(even) = stages.get(2 * p) {
            s.bp(
                regs::bp_tev_order(p),
                regs::tev_order(even, stages.get(2 * p + 1)),
            );
        }
    }
    for (i, st) in stages.iter().enumerate().take(16) {
        let (c, a) = regs::bp_combiners(i);
        s.bp(c, regs::color_combiner(st));
        s.bp(a, regs::alpha_combiner(st));
    }
    for k in 0..8 {
        s.bp(
            regs::bp_ksel(k),
            regs::ksel(
                k,
                stages.get(2 * k),
                stages.get(2 * k + 1),
                &regs::PRIME_SWAP_TABLES,
            ),
        );
    }
    for r in 0..4 {
        let (lo, hi) = regs::bp_tev_register(r);
        let (l, h) = regs::tev_register(m.registers[r], false);
        s.bp(lo, l);
        // The high half three times (hardware write quirk the SDK works around).
        for _ in 0..3 {
            s.bp(hi, h);
        }
        let k = m.konst[r].map(i16::from);
        let (l, h) = regs::tev_register(k, true);
        s.bp(lo, l);
        s.bp(hi, h);
    }
    s.bp(regs::BP_ALPHA_COMPARE, regs::alpha_compare(&m.alpha_test));
    let alpha_tested = m.alpha_test != AlphaTest::ALWAYS;
    s.bp(
        regs::BP_PE_CONTROL,
        regs::pe_control(PixelFormat::Rgb8Z24, !alpha_tested),
    );
    let blend = if m.blend.mode == BlendMode::None {
        Blend::OPAQUE
    } else {
        m.blend
    };
    s.bp(regs::BP_BLENDMODE, regs::blend_mode(&blend, true, false));
    s.bp(
        regs::BP_ZMODE,
        regs::zmode(true, Compare::LEqual, m.depth_write),
    );

    // Textures and the texcoord scale of every texcoord that samples them.
    for (k, map) in maps.iter().enumerate().take(8) {
        let r = regs::bp_tex_map(k);
        let (wrap, mag, min) = if map.nearest_clamp {
            (TexWrap::Clamp, false, TexFilter::Near)
        } else if map.levels > 1 {
            (TexWrap::Repeat, true, TexFilter::LinMipLin)
        } else {
            (TexWrap::Repeat, true, TexFilter::Linear)
        };
        s.bp(r.mode0, regs::tex_mode0(wrap, wrap, mag, min, 0, 0, true));
        s.bp(
            r.mode1,
            regs::tex_mode1(0.0, map.levels.saturating_sub(1) as f32),
        );
        s.bp(
            r.image0,
            regs::tex_image0(map.width, map.height, regs::TEX_FORMAT_RGBA8),
        );
        s.bp(r.image1, regs::tex_image_tmem(0x8000 * k as u32, 3, 3));
        s.bp(
            r.image2,
            regs::tex_image_tmem(0x8_0000 + 0x8000 * k as u32, 3, 3),
        );
        s.bp(r.image3, regs::tex_image3(map.address));
    }
    // The fill tile reads the same at any scale: its stages leave the texcoord's scale alone.
    for st in &material.stages {
        if let (Some(map), Some(coord)) = (st.tex_map, st.tex_coord)
            && let Some(t) = maps.get(map as usize)
        {
            let (ss, tt) = regs::bp_texcoord_scale(coord as usize & 7);
            let (sv, tv) = regs::texcoord_scale(t.width, t.height);
            s.bp(ss, sv);
            s.bp(tt, tv);
        }
    }

    // Vertex side: descriptor, matrices, channels, lights, texgens.
    let uv_sets = m
        .texgens
        .iter()
        .filter_map(|t| match t.source {
            crate::gx::types::TexGenSrc::Tex(n) => Some(n as usize + 1),
            _ => None,
        })
        .max()
        .unwrap_or(0)
        .max(1);
    let _ = uv_sets;
    let d = AttrKind::Direct;
    s.cp(regs::CP_VCD_LO, regs::vcd_lo(false, 0, d, d, [d, d]));
    s.cp(regs::CP_VCD_HI, regs::vcd_hi([d; 8]));
    s.xf(regs::XF_VTX_SPECS, &[regs::vtx_specs(2, 1, 8)]);
    let mut tex_rows = [GX_IDENTITY; 8];
    for (i, tg) in m.texgens.iter().enumerate().take(8) {
        tex_rows[i] = tg.gx_tex_mtx;
    }
    let (ma, mb) = regs::matrix_index(0, tex_rows);
    s.cp(regs::CP_MATINDEX_A, ma);
    s.cp(regs::CP_MATINDEX_B, mb);
    s.xf(regs::XF_MATINDEX_A, &[ma, mb]);
    s.xf_f32(regs::xf_matrix(0), &rows3x4(&u.view_from_model));
    let n = &u.normal_view_from_model;
    let nrm: Vec<f32> = (0..3).flat_map(|r| (0..3).map(move |c| n[c][r])).collect();
    s.xf_f32(regs::xf_normal_matrix(0), &nrm);
    for (slot, rows) in u.tex_mtx.iter().enumerate() {
        let flat: Vec<f32> = rows.iter().flatten().copied().collect();
        s.xf_f32(regs::xf_matrix(30 + 3 * slot as u32), &flat);
    }
    for (slot, rows) in u.post_mtx.iter().enumerate() {
        let flat: Vec<f32> = rows.iter().flatten().copied().collect();
        s.xf_f32(regs::xf_post_matrix(64 + 3 * slot as u32), &flat);
    }
    s.xf(regs::XF_DUAL_TEX, &[1]);
    s.xf(regs::XF_NUM_TEXGENS, &[m.texgens.len() as u32]);
    for (i, tg) in m.texgens.iter().enumerate().take(8) {
        s.xf(regs::XF_TEXGEN + i as u16, &[regs::texgen(tg)]);
        s.xf(
            regs::XF_POST_TEXGEN + i as u16,
            &[regs::post_texgen(&post_or_identity(tg))],
        );
    }
    let key = VertexKey::for_material(m);
    s.xf(regs::XF_NUM_CHANS, &[2]);
    let colors = [
        u8_color(u.channel_ambient[0]),
        u8_color(u.channel_ambient[1]),
        u8_color(u.channel_material[0]),
        u8_color(u.channel_material[1]),
    ];
    s.xf(regs::XF_AMBIENT0, &colors.map(regs::xf_color));
    let mask = u.light_mask[0] as u8;
    let ctrl =
        |c: &ChannelControl, lit: u32| regs::channel_control(c, mask, c.lighting && lit != 0);
    let ch = &key.channels;
    let alpha1 = ChannelControl {
        material_src: ColorSrc::Vertex,
        ..ch[3]
    };
    s.xf(
        regs::XF_CHAN_CTRL,
        &[
            ctrl(&ch[CH_COLOR0], u.channel_lit[CH_COLOR0]),
            ctrl(&ch[CH_COLOR1], u.channel_lit[CH_COLOR1]),
            ctrl(&ch[CH_ALPHA0], u.channel_lit[CH_ALPHA0]),
            ctrl(&alpha1, u.channel_lit[3]),
        ],
    );
    for (i, l) in u.lights.iter().enumerate() {
        let mut words = [0u32; 16];
        words[3] = regs::xf_color(u8_color(l.color));
        let f = [
            l.cos_atten[0],
            l.cos_atten[1],
            l.cos_atten[2],
            l.dist_atten[0],
            l.dist_atten[1],
            l.dist_atten[2],
            l.position[0],
            l.position[1],
            l.position[2],
            l.direction[0],
            l.direction[1],
            l.direction[2],
        ];
        for (j, v) in f.iter().enumerate() {
            words[4 + j] = v.to_bits();
        }
        s.xf(regs::xf_light(i), &words);
    }
}

/// A texgen whose post matrix is not a loaded slot reads the identity (slot 125).
fn post_or_identity(tg: &TexGen) -> TexGen {
    match tg.post_mtx_slot() {
        Some(_) => *tg,
        None => TexGen {
            gx_post_mtx: GX_PTIDENTITY,
            ..*tg
        },
    }
}

/// Surface `i`'s triangles as GX_TRIANGLES, then its line segments as GX_LINES, of
/// direct vertices (vertex format 0), as the renderer draws them (triangles first).
fn draw_triangles(
    s: &mut Stream,
    model: &CpuModel,
    i: usize,
    positions: &[Vec3],
    normals: &[Vec3],
) {
    let surface = &model.surfaces[i];
    // Vertex counts are u16: whole triangles (segments) per command.
    for chunk in surface.triangles.chunks(21_845) {
        s.draw(PRIM_TRIANGLES, 0, (chunk.len() * 3) as u16);
        for &v in chunk.iter().flatten() {
            direct_vertex(s, model, i, v, positions, normals);
        }
    }
    for chunk in surface.lines.chunks(32_767) {
        s.draw(PRIM_LINES, 0, (chunk.len() * 2) as u16);
        for &v in chunk.iter().flatten() {
            direct_vertex(s, model, i, v, positions, normals);
        }
    }
}

/// Vertex `v` of surface `i` in vertex format 0.
fn direct_vertex(
    s: &mut Stream,
    model: &CpuModel,
    i: usize,
    v: u32,
    positions: &[Vec3],
    normals: &[Vec3],
) {
    let mesh = &model.mesh;
    let v = model.surfaces[i].vertices.start as usize + v as usize;
    let p = positions.get(v).copied().unwrap_or(Vec3::ZERO);
    let n = normals.get(v).copied().unwrap_or(Vec3::Z);
    for c in [p.x, p.y, p.z, n.x, n.y, n.z] {
        s.f32(c);
    }
    s.u8s(&mesh.colors[0].get(v).copied().unwrap_or([255; 4]));
    s.u8s(&mesh.colors[1].get(v).copied().unwrap_or([255; 4]));
    let tex = mesh.tex.get(v).copied().unwrap_or_default();
    for uv in tex {
        s.f32(uv[0]);
        s.f32(uv[1]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines go out as GX_LINES after the surface's triangles, at the width the renderer
    /// draws (SU_LPSIZE in every frame's setup).
    #[test]
    fn line_segments_are_drawn_as_gx_lines_at_the_renderers_width() {
        use crate::model::shapes::{PreviewShape, preview_model};
        let mut model = preview_model(
            PreviewShape::Plane,
            crate::model::CpuMaterial {
                gx: Ok(Material::texture_passthrough()),
                textures: Vec::new(),
                second_draw: None,
            },
            Default::default(),
        );
        let triangles = model.surfaces[0].triangles.len();
        model.surfaces[0].lines = vec![[0, 1], [1, 2], [2, 3]];
        let positions: Vec<Vec3> = model.mesh.positions.iter().map(|&p| p.into()).collect();
        let normals = vec![Vec3::Z; positions.len()];
        let mut s = Stream::default();
        draw_triangles(&mut s, &model, 0, &positions, &normals);
        const VERTEX: usize = 24 + 8 + 64;
        let lines_at = 3 + triangles * 3 * VERTEX;
        assert_eq!(s.bytes[0], PRIM_TRIANGLES);
        assert_eq!(s.bytes[lines_at], PRIM_LINES);
        assert_eq!(&s.bytes[lines_at + 1..lines_at + 3], &6u16.to_be_bytes());
        assert_eq!(s.bytes.len(), lines_at + 3 + 6 * VERTEX);
        // The second segment starts at vertex 1: its position is the first word pair's.
        let p1 = model.mesh.positions[1];
        let second = lines_at + 3 + 2 * VERTEX;
        assert_eq!(&s.bytes[second..second + 4], &p1[0].to_be_bytes());

        let camera = FrameCamera {
            view_from_world: Mat4::IDENTITY,
            clip_from_view: Mat4::IDENTITY,
        };
        let mut s = Stream::default();
        frame_setup(&mut s, 64, 64, &camera);
        assert_eq!(s.regs.bp[regs::BP_LPSIZE as usize], 0x0606);
    }

    /// A material's second draw (MP3's INCA pass) follows its surface with its own blend
    /// (SRCALPHA/ONE) and no depth write, as the renderer draws it.
    #[test]
    fn a_second_draw_follows_its_surface_with_its_blend_and_zmode() {
        use crate::gx::types::BlendFactor;
        use crate::model::CpuMaterial;
        use crate::model::shapes::{PreviewShape, preview_model};
        let Some(ctx) = crate::render::RenderContext::for_tests() else {
            return;
        };
        let first = Material::texture_passthrough();
        let mut second = Material::texture_passthrough();
        second.blend = Blend {
            mode: BlendMode::Blend,
            src: BlendFactor::SrcAlpha,
            dst: BlendFactor::One,
        };
        second.depth_write = false;
        let material = |gx: &Material, second_draw| CpuMaterial {
            gx: Ok(gx.clone()),
            textures: Vec::new(),
            second_draw,
        };
        let frame = |second_draw| {
            let model = preview_model(
                PreviewShape::Plane,
                material(&first, second_draw),
                Default::default(),
            );
            let triangles = model.surfaces[0].triangles.len();
            let scene = Scene::new(&ctx, model).unwrap();
            let dff = scene_dff(&FrameSpec {
                scene: &scene,
                width: 64,
                height: 48,
                clear: [0, 0, 0, 255],
                readback: false,
            })
            .unwrap();
            (
                dff.frames[0].bytes.len(),
                dff.frames[0].regs.bp.clone(),
                triangles,
            )
        };
        let (one_len, one, triangles) = frame(None);
        let (two_len, two, _) = frame(Some(Box::new(material(&second, None))));
        let (blend, zmode) = (regs::BP_BLENDMODE as usize, regs::BP_ZMODE as usize);
        assert_eq!(one[blend], regs::blend_mode(&Blend::OPAQUE, true, false));
        assert_eq!(one[zmode], regs::zmode(true, Compare::LEqual, true));
        // The frame's last draw is the second one.
        assert_eq!(two[blend], regs::blend_mode(&second.blend, true, false));
        assert_eq!(two[zmode], regs::zmode(true, Compare::LEqual, false));
        // The surface's vertices go out twice.
        let draw = 3 + triangles * 3 * (24 + 8 + 64);
        assert!(two_len >= one_len + draw, "{two_len} vs {one_len} + {draw}");
    }

    #[test]
    fn stages_reading_a_missing_map_sample_the_fill_tile() {
        let mut m = Material::texture_passthrough();
        m.texgens.clear();
        m.texture_count = 0;
        let mut plain = m.stages[0];
        plain.tex_map = None;
        plain.tex_coord = None;
        // A second stage that does not read the texel stays without a map.
        let mut other = plain;
        other.color_in = [crate::gx::types::ColorInput::Zero; 4];
        other.alpha_in = [crate::gx::types::AlphaInput::Zero; 4];
        m.stages = vec![plain, other];
        let f = fill_missing_maps(&m, 0);
        assert_eq!(f.stages[0].tex_map, Some(0));
        assert_eq!(f.stages[0].tex_coord, Some(0));
        assert_eq!(f.stages[1].tex_map, None);
        assert_eq!(f.texgens.len(), 1, "an identity texgen feeds the fill tile");
        // Eight bound maps: no free slot, the material stays as it is.
        assert!(matches!(
            fill_missing_maps(&m, 8),
            std::borrow::Cow::Borrowed(_)
        ));
        // A material whose stages all have maps is unchanged.
        let p = Material::texture_passthrough();
        assert!(matches!(
            fill_missing_maps(&p, 1),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn rgba8_tiles_split_ar_and_gb() {
        let t = TextureData {
            width: 4,
            height: 4,
            levels: vec![(0..64).map(|i| i as u8).collect()],
        };
        let b = encode_rgba8_levels(&t);
        assert_eq!(b.len(), 64);
        // Texel 0 = (0, 1, 2, 3): A, R then G, B.
        assert_eq!(&b[0..2], &[3, 0]);
        assert_eq!(&b[32..34], &[1, 2]);
        // Texel 5 = (20, 21, 22, 23).
        assert_eq!(&b[10..12], &[23, 20]);
        assert_eq!(&b[42..44], &[21, 22]);
        // A 2×2 level pads to one tile.
        let small = TextureData::solid(2, 2, [9; 4]);
        assert_eq!(encode_rgba8_levels(&small).len(), 64);
    }
}
