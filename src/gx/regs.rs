//! GX register words (`gx.md` §17.1, §17.5): BP, CP and XF addresses and field packing as
//! pure functions, so the command-stream writer (`crate::dff`) never packs bits itself and
//! every field is unit-tested against the spec's tables.

use super::types::{
    AlphaOp, AlphaTest, AttnFn, Blend, BlendMode, ChannelControl, ColorSrc, Compare, DiffuseFn,
    RasterChannel, TevCombine, TevStage, TexGen, TexGenSrc, TexGenType,
};

/// The coordinate offset of scissor and viewport origins.
pub const XY_OFFSET: u32 = 342;

// BP register addresses.
pub const BP_GENMODE: u8 = 0x00;
pub const BP_IND_MASK: u8 = 0x0F;
pub const BP_SCISSOR_TL: u8 = 0x20;
pub const BP_SCISSOR_BR: u8 = 0x21;
/// SU_LPSIZE: line width and point size.
pub const BP_LPSIZE: u8 = 0x22;
pub const BP_ZMODE: u8 = 0x40;
pub const BP_BLENDMODE: u8 = 0x41;
pub const BP_CONST_ALPHA: u8 = 0x42;
pub const BP_PE_CONTROL: u8 = 0x43;
pub const BP_FIELD_MASK: u8 = 0x44;
pub const BP_COPY_SRC_XY: u8 = 0x49;
pub const BP_COPY_SRC_WH: u8 = 0x4A;
pub const BP_COPY_DEST: u8 = 0x4B;
pub const BP_COPY_STRIDE: u8 = 0x4D;
pub const BP_COPY_YSCALE: u8 = 0x4E;
pub const BP_CLEAR_AR: u8 = 0x4F;
pub const BP_CLEAR_GB: u8 = 0x50;
pub const BP_CLEAR_Z: u8 = 0x51;
pub const BP_COPY_TRIGGER: u8 = 0x52;
pub const BP_COPY_FILTER0: u8 = 0x53;
pub const BP_COPY_FILTER1: u8 = 0x54;
pub const BP_SCISSOR_OFFSET: u8 = 0x59;
pub const BP_FOG3: u8 = 0xF1;
pub const BP_ALPHA_COMPARE: u8 = 0xF3;
pub const BP_ZTEX: u8 = 0xF5;
pub const BP_MASK: u8 = 0xFE;

/// BP 0x10 + s: indirect stage s.
pub fn bp_ind_stage(s: usize) -> u8 {
    0x10 + s as u8
}
/// BP 0x28 + p: TEV order of stages 2p, 2p + 1.
pub fn bp_tev_order(pair: usize) -> u8 {
    0x28 + pair as u8
}
/// BP 0x30 + 2n / 0x31 + 2n: texcoord n scale s, t.
pub fn bp_texcoord_scale(n: usize) -> (u8, u8) {
    (0x30 + 2 * n as u8, 0x31 + 2 * n as u8)
}
/// BP 0xC0 + 2s / 0xC1 + 2s: colour and alpha combiner of stage s.
pub fn bp_combiners(s: usize) -> (u8, u8) {
    (0xC0 + 2 * s as u8, 0xC1 + 2 * s as u8)
}
/// BP 0xE0 + 2r / 0xE1 + 2r: TEV register r, low and high.
pub fn bp_tev_register(r: usize) -> (u8, u8) {
    (0xE0 + 2 * r as u8, 0xE1 + 2 * r as u8)
}
/// BP 0xF6 + k: konst selectors of stages 2k, 2k + 1 and half a swap table.
pub fn bp_ksel(k: usize) -> u8 {
    0xF6 + k as u8
}

/// The texture registers of map k (0–7): mode 0, mode 1, image 0–3, TLUT.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TexMapRegs {
    pub mode0: u8,
    pub mode1: u8,
    pub image0: u8,
    pub image1: u8,
    pub image2: u8,
    pub image3: u8,
    pub tlut: u8,
}

pub fn bp_tex_map(k: usize) -> TexMapRegs {
    let (base, i) = if k < 4 { (0x80, k) } else { (0xA0, k - 4) };
    let r = |off: u8| base + off + i as u8;
    TexMapRegs {
        mode0: r(0x00),
        mode1: r(0x04),
        image0: r(0x08),
        image1: r(0x0C),
        image2: r(0x10),
        image3: r(0x14),
        tlut: r(0x18),
    }
}

/// A BP load's payload word: register in the top byte, 24-bit value below.
pub fn bp_word(reg: u8, value: u32) -> u32 {
    (reg as u32) << 24 | (value & 0xFF_FFFF)
}

/// GX culling as the hardware field stores it (`gx.md` §9).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CullHw {
    None = 0,
    Back = 1,
    Front = 2,
    All = 3,
}

/// BP 0x00.
pub fn genmode(texgens: u32, channels: u32, stages: u32, cull: CullHw, ind_stages: u32) -> u32 {
    (texgens & 0xF)
        | (channels & 7) << 4
        | (stages.clamp(1, 16) - 1) << 10
        | (cull as u32) << 14
        | (ind_stages & 7) << 16
}

/// BP 0x22 (SU_LPSIZE): line width 0–7 and point size 8–15 in 1/6 pixel; the line and
/// point texture-coordinate offsets (16–18, 19–21) 0 (GX_TO_ZERO, GXInit's and Prime's).
pub fn lp_size(line: u8, point: u8) -> u32 {
    line as u32 | (point as u32) << 8
}

/// The 3-bit hardware raster select of a GXChannelID (`gx.md` §6.1).
pub fn raster_select(r: RasterChannel) -> u32 {
    match r {
        RasterChannel::Color0 | RasterChannel::Alpha0 | RasterChannel::Color0A0 => 0,
        RasterChannel::Color1 | RasterChannel::Alpha1 | RasterChannel::Color1A1 => 1,
        RasterChannel::AlphaBump => 5,
        RasterChannel::AlphaBumpN => 6,
        RasterChannel::ColorZero | RasterChannel::None => 7,
    }
}

/// One stage's 12-bit half of a TEV order register.
pub fn tev_order_half(stage: &TevStage) -> u32 {
    let (map, coord, enable) = match stage.tex_map {
        Some(m) => (m as u32 & 7, stage.tex_coord.unwrap_or(0) as u32 & 7, 1),
        None => (0, stage.tex_coord.unwrap_or(0) as u32 & 7, 0),
    };
    map | coord << 3 | enable << 6 | raster_select(stage.raster) << 7
}

/// BP 0x28 + p from stages 2p and (when present) 2p + 1.
pub fn tev_order(even: &TevStage, odd: Option<&TevStage>) -> u32 {
    tev_order_half(even) | odd.map_or(0, |s| tev_order_half(s) << 12)
}

/// Bias, subtract and scale fields of a combine word (`gx.md` §17.5: a compare op moves
/// into bias 3, subtract = op & 1, scale = (op >> 1) & 3).
fn op_fields(op: TevCombine) -> u32 {
    let (bias, sub, scale) = if op.op > 1 {
        (3, (op.op & 1) as u32, ((op.op >> 1) & 3) as u32)
    } else {
        (op.bias as u32, op.op as u32, op.scale as u32)
    };
    bias << 16 | sub << 18 | (op.clamp as u32) << 19 | scale << 20 | (op.out_reg as u32) << 22
}

/// BP 0xC0 + 2s.
pub fn color_combiner(stage: &TevStage) -> u32 {
    let [a, b, c, d] = stage.color_in.map(|i| i.bits());
    d | c << 4 | b << 8 | a << 12 | op_fields(stage.color_op)
}

/// BP 0xC1 + 2s.
pub fn alpha_combiner(stage: &TevStage) -> u32 {
    let [a, b, c, d] = stage.alpha_in.map(|i| i.bits());
    (stage.ras_swap as u32 & 3)
        | (stage.tex_swap as u32 & 3) << 2
        | d << 4
        | c << 7
        | b << 10
        | a << 13
        | op_fields(stage.alpha_op)
}

/// BP 0xE0 + 2r and 0xE1 + 2r (low: R, A; high: B, G) of a colour register (signed 11-bit)
/// or, with `konst`, a konst register.
pub fn tev_register(rgba: [i16; 4], konst: bool) -> (u32, u32) {
    let f = |v: i16| (v as u32) & 0x7FF;
    let k = (konst as u32) << 23;
    (
        f(rgba[0]) | f(rgba[3]) << 12 | k,
        f(rgba[2]) | f(rgba[1]) << 12 | k,
    )
}

/// Swap table: for output R, G, B, A the input channel (0–3) feeding it.
pub type SwapTable = [u8; 4];

/// GX's power-on swap tables as Prime reprograms them (`gx.md` §6.2).
pub const PRIME_SWAP_TABLES: [SwapTable; 4] =
    [[0, 1, 2, 3], [0, 1, 2, 0], [0, 1, 2, 1], [0, 1, 2, 2]];

/// BP 0xF6 + k: the konst selectors of stages 2k and 2k + 1 (0 when absent) and the half of
/// swap table k / 2 that this register holds.
pub fn ksel(
    k: usize,
    even: Option<&TevStage>,
    odd: Option<&TevStage>,
    swaps: &[SwapTable; 4],
) -> u32 {
    let t = swaps[(k / 2) & 3];
    let (x, y) = if k.is_multiple_of(2) {
        (t[0], t[1])
    } else {
        (t[2], t[3])
    };
    let sel = |s: Option<&TevStage>| {
        s.map_or(0, |s| {
            (s.kcsel.0 as u32 & 0x1F) | (s.kasel.0 as u32 & 0x1F) << 5
        })
    };
    (x as u32 & 3) | (y as u32 & 3) << 2 | sel(even) << 4 | sel(odd) << 14
}

fn compare_bits(c: Compare) -> u32 {
    c as u32
}

/// BP 0xF3.
pub fn alpha_compare(t: &AlphaTest) -> u32 {
    let op = match t.op {
        AlphaOp::And => 0,
        AlphaOp::Or => 1,
        AlphaOp::Xor => 2,
        AlphaOp::Xnor => 3,
    };
    t.ref0 as u32
        | (t.ref1 as u32) << 8
        | compare_bits(t.comp0) << 16
        | compare_bits(t.comp1) << 19
        | op << 22
}

/// BP 0x41 (logic op COPY when not a logic blend; no dither).
pub fn blend_mode(b: &Blend, color_update: bool, alpha_update: bool) -> u32 {
    let enable = matches!(b.mode, BlendMode::Blend | BlendMode::Subtract) as u32;
    let logic = (b.mode == BlendMode::Logic) as u32;
    let subtract = (b.mode == BlendMode::Subtract) as u32;
    enable
        | logic << 1
        | (color_update as u32) << 3
        | (alpha_update as u32) << 4
        | (b.dst as u32) << 5
        | (b.src as u32) << 8
        | subtract << 11
        | 3 << 12
}

/// BP 0x40.
pub fn zmode(test: bool, compare: Compare, update: bool) -> u32 {
    test as u32 | compare_bits(compare) << 1 | (update as u32) << 4
}

/// EFB pixel formats of BP 0x43.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PixelFormat {
    Rgb8Z24 = 0,
    Rgba6Z24 = 1,
    Rgb565Z16 = 2,
}

/// BP 0x43 (depth format 0: linear).
pub fn pe_control(format: PixelFormat, early_z: bool) -> u32 {
    format as u32 | (early_z as u32) << 6
}

/// BP 0x20 and 0x21 for the inclusive rectangle (x0, y0)–(x1, y1).
pub fn scissor(x0: u32, y0: u32, x1: u32, y1: u32) -> (u32, u32) {
    let p = |x: u32, y: u32| ((y + XY_OFFSET) & 0xFFF) | ((x + XY_OFFSET) & 0xFFF) << 12;
    (p(x0, y0), p(x1, y1))
}

/// BP 0x59 for a scissor offset (x, y).
pub fn scissor_offset(x: u32, y: u32) -> u32 {
    ((x + XY_OFFSET) >> 1) & 0x3FF | (((y + XY_OFFSET) >> 1) & 0x3FF) << 10
}

/// BP 0x49 / 0x4A: copy source (x, y) and size.
pub fn copy_source(x: u32, y: u32, w: u32, h: u32) -> (u32, u32) {
    (
        x & 0x3FF | (y & 0x3FF) << 10,
        (w - 1) & 0x3FF | ((h - 1) & 0x3FF) << 10,
    )
}

/// BP 0x4F, 0x50, 0x51: clear colour (RGBA) and 24-bit depth.
pub fn clear_values(rgba: [u8; 4], z: u32) -> (u32, u32, u32) {
    let [r, g, b, a] = rgba.map(u32::from);
    (a << 8 | r, g << 8 | b, z & 0xFF_FFFF)
}

/// Texture copy format of the copy trigger: RGBA8.
pub const COPY_FORMAT_RGBA8: u32 = 6;

/// BP 0x52: an EFB copy (gamma 1.0, no scaling, both clamps on).
pub fn copy_trigger(format: u32, clear: bool, to_xfb: bool) -> u32 {
    let rotated = ((format << 1) & 0xE) | (format >> 3);
    3 | rotated << 3 | (clear as u32) << 11 | (to_xfb as u32) << 14
}

/// BP 0x53 / 0x54: the copy filter weights w0 … w6.
pub fn copy_filter(w: [u32; 7]) -> (u32, u32) {
    (
        w[0] & 0x3F | (w[1] & 0x3F) << 6 | (w[2] & 0x3F) << 12 | (w[3] & 0x3F) << 18,
        w[4] & 0x3F | (w[5] & 0x3F) << 6 | (w[6] & 0x3F) << 12,
    )
}

/// The software renderer's identity copy filter (`gx.md` §17.4).
pub const IDENTITY_COPY_FILTER: [u32; 7] = [0, 0, 21, 22, 21, 0, 0];

/// Texture wrap of mode 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TexWrap {
    Clamp = 0,
    Repeat = 1,
    Mirror = 2,
}

/// Texture filters of mode 0 (`gx.md` §17.5 numbering).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TexFilter {
    Near = 0,
    NearMipNear = 1,
    NearMipLin = 2,
    Linear = 4,
    LinMipNear = 5,
    LinMipLin = 6,
}

/// BP texture mode 0: wraps, filters, LOD bias (in 1/32), max anisotropy (0 1×, 1 2×, 2 4×),
/// LOD clamp; diagonal LOD off.
pub fn tex_mode0(
    wrap_s: TexWrap,
    wrap_t: TexWrap,
    mag_linear: bool,
    min: TexFilter,
    lod_bias: i8,
    max_aniso: u32,
    lod_clamp: bool,
) -> u32 {
    wrap_s as u32
        | (wrap_t as u32) << 2
        | (mag_linear as u32) << 4
        | (min as u32) << 5
        | (lod_bias as u8 as u32) << 9
        | (max_aniso & 3) << 19
        | (lod_clamp as u32) << 21
}

/// BP texture mode 1: min and max LOD in levels (stored × 16).
pub fn tex_mode1(min_lod: f32, max_lod: f32) -> u32 {
    let q = |v: f32| (v * 16.0).round().clamp(0.0, 255.0) as u32;
    q(min_lod) | q(max_lod) << 8
}

/// BP texture image 0: size and GX format.
pub fn tex_image0(width: u32, height: u32, format: u32) -> u32 {
    (width - 1) & 0x3FF | ((height - 1) & 0x3FF) << 10 | (format & 0xF) << 20
}

/// BP texture image 1 / 2: TMEM offset (bytes), cache width and height codes (3 = 32 KiB).
pub fn tex_image_tmem(tmem_offset: u32, cache_w: u32, cache_h: u32) -> u32 {
    (tmem_offset >> 5) & 0x7FFF | (cache_w & 7) << 15 | (cache_h & 7) << 18
}

/// BP texture image 3: RAM address.
pub fn tex_image3(address: u32) -> u32 {
    (address >> 5) & 0xFF_FFFF
}

/// GX texture format numbers (`formats.md` §4.2) the writer uses.
pub const TEX_FORMAT_RGBA8: u32 = 6;

/// BP 0x30 + 2n and 0x31 + 2n: texcoord scale (texture size − 1), no bias or cylindrical wrap.
pub fn texcoord_scale(width: u32, height: u32) -> (u32, u32) {
    ((width - 1) & 0xFFFF, (height - 1) & 0xFFFF)
}

// CP registers.
pub const CP_MATINDEX_A: u8 = 0x30;
pub const CP_MATINDEX_B: u8 = 0x40;
pub const CP_VCD_LO: u8 = 0x50;
pub const CP_VCD_HI: u8 = 0x60;
pub fn cp_vat(group: usize, format: usize) -> u8 {
    [0x70, 0x80, 0x90][group] + format as u8
}

/// How a vertex attribute arrives (vertex descriptor codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttrKind {
    None = 0,
    Direct = 1,
    Index8 = 2,
    Index16 = 3,
}

/// CP 0x50: position-matrix index, per-texcoord matrix indices, position, normal, colours.
pub fn vcd_lo(
    pnmtx_idx: bool,
    tex_mtx_idx: u8,
    pos: AttrKind,
    nrm: AttrKind,
    clr: [AttrKind; 2],
) -> u32 {
    pnmtx_idx as u32
        | (tex_mtx_idx as u32) << 1
        | (pos as u32) << 9
        | (nrm as u32) << 11
        | (clr[0] as u32) << 13
        | (clr[1] as u32) << 15
}

/// CP 0x60: texture coordinates 0–7.
pub fn vcd_hi(tex: [AttrKind; 8]) -> u32 {
    tex.iter()
        .enumerate()
        .fold(0, |w, (n, k)| w | (*k as u32) << (2 * n))
}

/// Component formats of a vertex attribute array.
pub const COMP_F32: u32 = 4;
/// Colour format RGBA8888.
pub const COLOR_RGBA8: u32 = 5;

/// CP 0x70 + v, 0x80 + v, 0x90 + v for f32 XYZ positions, f32 normals (N), RGBA8 colours and
/// f32 ST texture coordinates 0–7 (what [`crate::dff`] sends).
pub fn vat_float() -> (u32, u32, u32) {
    let tex = 1 | COMP_F32 << 1; // ST, f32, fraction 0
    let a = 1 | COMP_F32 << 1 // POS XYZ f32
        | COMP_F32 << 10 // NRM f32
        | 1 << 13 | COLOR_RGBA8 << 14 // CLR0 RGBA8
        | 1 << 17 | COLOR_RGBA8 << 18 // CLR1 RGBA8
        | tex << 21 // TEX0
        | 1 << 30; // byte dequantisation (the SDK always sets it)
    let b = tex | tex << 9 | tex << 18 | tex << 27 | 1 << 31;
    let c = tex << 5 | tex << 14 | tex << 23;
    (a, b, c)
}

/// CP 0x30 / XF 0x1018: position matrix row and TEX0–3 matrix rows; CP 0x40 / XF 0x1019:
/// TEX4–7 rows.
pub fn matrix_index(pos_row: u32, tex_rows: [u32; 8]) -> (u32, u32) {
    let a = (pos_row & 0x3F)
        | tex_rows[..4]
            .iter()
            .enumerate()
            .fold(0, |w, (i, r)| w | (r & 0x3F) << (6 + 6 * i));
    let b = tex_rows[4..]
        .iter()
        .enumerate()
        .fold(0, |w, (i, r)| w | (r & 0x3F) << (6 * i));
    (a, b)
}

// XF addresses.
pub const XF_LIGHTS: u16 = 0x0600;
pub const XF_NORMAL_MATRICES: u16 = 0x0400;
pub const XF_POST_MATRICES: u16 = 0x0500;
pub const XF_VTX_SPECS: u16 = 0x1008;
pub const XF_NUM_CHANS: u16 = 0x1009;
pub const XF_AMBIENT0: u16 = 0x100A;
pub const XF_MATERIAL0: u16 = 0x100C;
pub const XF_CHAN_CTRL: u16 = 0x100E;
pub const XF_DUAL_TEX: u16 = 0x1012;
pub const XF_MATINDEX_A: u16 = 0x1018;
pub const XF_MATINDEX_B: u16 = 0x1019;
pub const XF_VIEWPORT: u16 = 0x101A;
pub const XF_PROJECTION: u16 = 0x1020;
pub const XF_NUM_TEXGENS: u16 = 0x103F;
pub const XF_TEXGEN: u16 = 0x1040;
pub const XF_POST_TEXGEN: u16 = 0x1050;

/// XF memory address of matrix row `row` (position / texture matrices).
pub fn xf_matrix(row: u32) -> u16 {
    (row * 4) as u16
}
/// XF memory address of the post-transform matrix with GX id `id` (64 … 125).
pub fn xf_post_matrix(id: u32) -> u16 {
    XF_POST_MATRICES + (4 * (id - 64)) as u16
}
/// XF memory address of the normal matrix for position matrix row `row`.
pub fn xf_normal_matrix(row: u32) -> u16 {
    XF_NORMAL_MATRICES + (row * 3) as u16
}
/// XF memory address of light i.
pub fn xf_light(i: usize) -> u16 {
    XF_LIGHTS + 16 * i as u16
}

/// XF 0x1008: colour count, normals (1 N, 2 NBT), texcoord count.
pub fn vtx_specs(colors: u32, normals: u32, texcoords: u32) -> u32 {
    (colors & 3) | (normals & 3) << 2 | (texcoords & 0xF) << 4
}

/// XF 0x1040 + i: a texgen (SDK form → hardware, `gx.md` §17.5).
pub fn texgen(tg: &TexGen) -> u32 {
    let row = |s: TexGenSrc| match s {
        TexGenSrc::Position => 0,
        TexGenSrc::Normal => 1,
        TexGenSrc::Color0 | TexGenSrc::Color1 => 2,
        TexGenSrc::Binormal => 3,
        TexGenSrc::Tangent => 4,
        TexGenSrc::Tex(n) => 5 + n as u32,
        TexGenSrc::TexCoord(n) => 5 + n as u32,
    };
    let abc1 = matches!(
        tg.source,
        TexGenSrc::Position | TexGenSrc::Normal | TexGenSrc::Binormal | TexGenSrc::Tangent
    ) as u32;
    match tg.kind {
        TexGenType::Mtx3x4 | TexGenType::Mtx2x4 => {
            let proj = (tg.kind == TexGenType::Mtx3x4) as u32;
            proj << 1 | abc1 << 2 | row(tg.source) << 7
        }
        TexGenType::Bump(light) => {
            let src = match tg.source {
                TexGenSrc::TexCoord(n) | TexGenSrc::Tex(n) => n as u32,
                _ => 0,
            };
            1 << 4
                | row(TexGenSrc::Tex(src as u8)) << 7
                | (src & 7) << 12
                | (light as u32 & 7) << 15
        }
        TexGenType::Srtg => {
            let kind = if tg.source == TexGenSrc::Color1 { 3 } else { 2 };
            kind << 4 | 2 << 7
        }
    }
}

/// XF 0x1050 + i: post matrix index (id − 64) and normalisation.
pub fn post_texgen(tg: &TexGen) -> u32 {
    (tg.gx_post_mtx.saturating_sub(64) & 0x3F) | (tg.normalize as u32) << 8
}

/// XF 0x100E–0x1011: a channel control with the light mask `mask` and lighting `lit`.
pub fn channel_control(c: &ChannelControl, mask: u8, lit: bool) -> u32 {
    let src = |s: ColorSrc| (s == ColorSrc::Vertex) as u32;
    let (diffuse, attn_enable, attn_select) = match c.attn_fn {
        AttnFn::Spec => (0, 1, 0),
        AttnFn::Spot => (diffuse_bits(c.diffuse_fn), 1, 1),
        AttnFn::None => (diffuse_bits(c.diffuse_fn), 0, 1),
    };
    let m = mask as u32;
    src(c.material_src)
        | (lit as u32) << 1
        | (m & 0xF) << 2
        | src(c.ambient_src) << 6
        | diffuse << 7
        | attn_enable << 9
        | attn_select << 10
        | (m >> 4) << 11
}

fn diffuse_bits(d: DiffuseFn) -> u32 {
    match d {
        DiffuseFn::None => 0,
        DiffuseFn::Sign => 1,
        DiffuseFn::Clamp => 2,
    }
}

/// A colour as XF stores it, 0xRRGGBBAA.
pub fn xf_color(rgba: [u8; 4]) -> u32 {
    u32::from_be_bytes(rgba)
}

/// XF 0x101A–0x101F for a viewport (x0, y0, width, height) with depth 0 … 1 → 0 … 2²⁴ − 1.
pub fn viewport(x0: f32, y0: f32, w: f32, h: f32) -> [f32; 6] {
    let z = 16_777_215.0;
    let o = XY_OFFSET as f32;
    [w / 2.0, -h / 2.0, z, x0 + w / 2.0 + o, y0 + h / 2.0 + o, z]
}

/// XF 0x1020–0x1026 from a wgpu-style clip matrix (column-major, clip z 0 … 1, w = −z for a
/// perspective): GX's z′/w runs −1 … 0, so z′ = z_wgpu − w. Orthographic when its last row is
/// (0, 0, 0, 1).
pub fn projection(clip_from_view: &[[f32; 4]; 4]) -> ([f32; 6], u32) {
    let m = |row: usize, col: usize| clip_from_view[col][row];
    if m(3, 2) != 0.0 {
        // Perspective: w = −z.
        (
            [m(0, 0), m(0, 2), m(1, 1), m(1, 2), m(2, 2) + 1.0, m(2, 3)],
            0,
        )
    } else {
        (
            [m(0, 0), m(0, 3), m(1, 1), m(1, 3), m(2, 2), m(2, 3) - 1.0],
            1,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_point_size_pack_into_su_lpsize() {
        // GXInit: line 6, point 6 (one pixel each), offsets GX_TO_ZERO.
        assert_eq!(lp_size(6, 6), 0x0606);
        assert_eq!(lp_size(0xFF, 0x01), 0x01FF);
    }
    use crate::gx::types::{
        AlphaInput, BlendFactor, ColorInput, GX_IDENTITY, GX_PTIDENTITY, KonstSel, Material, TevReg,
    };

    fn stage() -> TevStage {
        Material::texture_passthrough().stages[0]
    }

    #[test]
    fn bp_addresses_follow_the_table() {
        assert_eq!(bp_word(0x61, 0x1234_5678), 0x6134_5678);
        assert_eq!(bp_tev_order(3), 0x2B);
        assert_eq!(bp_texcoord_scale(2), (0x34, 0x35));
        assert_eq!(bp_combiners(15), (0xDE, 0xDF));
        assert_eq!(bp_tev_register(3), (0xE6, 0xE7));
        assert_eq!(bp_ksel(7), 0xFD);
        let m1 = bp_tex_map(1);
        assert_eq!(
            (
                m1.mode0, m1.mode1, m1.image0, m1.image1, m1.image2, m1.image3, m1.tlut
            ),
            (0x81, 0x85, 0x89, 0x8D, 0x91, 0x95, 0x99)
        );
        let m5 = bp_tex_map(5);
        assert_eq!(
            (
                m5.mode0, m5.mode1, m5.image0, m5.image1, m5.image2, m5.image3, m5.tlut
            ),
            (0xA1, 0xA5, 0xA9, 0xAD, 0xB1, 0xB5, 0xB9)
        );
    }

    #[test]
    fn genmode_fields() {
        assert_eq!(genmode(2, 1, 1, CullHw::None, 0), 0x12);
        assert_eq!(genmode(0, 0, 16, CullHw::Front, 0), 15 << 10 | 2 << 14);
        assert_eq!(
            genmode(8, 2, 3, CullHw::Back, 1),
            8 | 2 << 4 | 2 << 10 | 1 << 14 | 1 << 16
        );
    }

    #[test]
    fn tev_order_fields() {
        let mut s = stage();
        s.tex_map = Some(5);
        s.tex_coord = Some(3);
        s.raster = RasterChannel::Color0A0;
        let mut t = stage();
        t.tex_map = None;
        t.tex_coord = None;
        t.raster = RasterChannel::ColorZero;
        let w = tev_order(&s, Some(&t));
        assert_eq!(w & 0xFFF, 5 | 3 << 3 | 1 << 6);
        assert_eq!(w >> 12, 7 << 7);
        assert_eq!(raster_select(RasterChannel::Alpha1), 1);
        assert_eq!(raster_select(RasterChannel::AlphaBump), 5);
        assert_eq!(raster_select(RasterChannel::AlphaBumpN), 6);
        assert_eq!(raster_select(RasterChannel::None), 7);
    }

    #[test]
    fn combiner_fields() {
        let mut s = stage();
        s.color_in = [
            ColorInput::C0,
            ColorInput::Texc,
            ColorInput::Rasa,
            ColorInput::Konst,
        ];
        s.color_op = TevCombine {
            op: 1,
            bias: 2,
            scale: 3,
            clamp: true,
            out_reg: TevReg::C2,
        };
        let w = color_combiner(&s);
        assert_eq!(w & 0xF, 14); // d = KONST
        assert_eq!((w >> 4) & 0xF, 11); // c = RASA
        assert_eq!((w >> 8) & 0xF, 8); // b = TEXC
        assert_eq!((w >> 12) & 0xF, 2); // a = C0
        assert_eq!((w >> 16) & 3, 2);
        assert_eq!((w >> 18) & 1, 1);
        assert_eq!((w >> 19) & 1, 1);
        assert_eq!((w >> 20) & 3, 3);
        assert_eq!((w >> 22) & 3, 3);
        // A compare op: bias 3, subtract = op & 1, scale = (op >> 1) & 3.
        s.color_op = TevCombine {
            op: 13,
            bias: 0,
            scale: 0,
            clamp: false,
            out_reg: TevReg::Prev,
        };
        let w = color_combiner(&s);
        assert_eq!(
            ((w >> 16) & 3, (w >> 18) & 1, (w >> 19) & 1, (w >> 20) & 3),
            (3, 1, 0, 2)
        );

        s.alpha_in = [
            AlphaInput::A1,
            AlphaInput::Texa,
            AlphaInput::Konst,
            AlphaInput::Zero,
        ];
        s.alpha_op = TevCombine {
            op: 0,
            bias: 1,
            scale: 2,
            clamp: false,
            out_reg: TevReg::C0,
        };
        s.ras_swap = 2;
        s.tex_swap = 3;
        let w = alpha_combiner(&s);
        assert_eq!((w & 3, (w >> 2) & 3), (2, 3));
        assert_eq!(
            ((w >> 4) & 7, (w >> 7) & 7, (w >> 10) & 7, (w >> 13) & 7),
            (7, 6, 4, 2)
        );
        assert_eq!(
            (
                (w >> 16) & 3,
                (w >> 18) & 1,
                (w >> 19) & 1,
                (w >> 20) & 3,
                (w >> 22) & 3
            ),
            (1, 0, 0, 2, 1)
        );
    }

    #[test]
    fn tev_registers_pack_signed_11_bit() {
        let (lo, hi) = tev_register([-1, 0x12, 0x3FF, -1024], false);
        assert_eq!(lo, 0x7FF | 0x400 << 12);
        assert_eq!(hi, 0x3FF | 0x12 << 12);
        let (lo, hi) = tev_register([1, 2, 3, 4], true);
        assert_eq!((lo, hi), (1 | 4 << 12 | 1 << 23, 3 | 2 << 12 | 1 << 23));
    }

    #[test]
    fn konst_selectors_and_swap_tables() {
        let mut a = stage();
        a.kcsel = KonstSel(0x0C);
        a.kasel = KonstSel(0x1F);
        let mut b = stage();
        b.kcsel = KonstSel(0x15);
        b.kasel = KonstSel(0x03);
        let w0 = ksel(0, Some(&a), Some(&b), &PRIME_SWAP_TABLES);
        assert_eq!(w0 & 0xF, 1 << 2);
        assert_eq!(((w0 >> 4) & 0x1F, (w0 >> 9) & 0x1F), (0x0C, 0x1F));
        assert_eq!(((w0 >> 14) & 0x1F, (w0 >> 19) & 0x1F), (0x15, 0x03));
        // Register 0xF9 holds table 1's B and A sources: RGBR → B = 2, A = 0.
        assert_eq!(ksel(3, None, None, &PRIME_SWAP_TABLES), 2);
        assert_eq!(ksel(7, None, None, &PRIME_SWAP_TABLES), 2 | 2 << 2);
    }

    #[test]
    fn pixel_engine_fields() {
        assert_eq!(
            alpha_compare(&AlphaTest::PUNCHTHROUGH),
            64 | 6 << 16 | 1 << 22
        );
        assert_eq!(
            alpha_compare(&AlphaTest::ALWAYS),
            7 << 16 | 7 << 19 | 1 << 22
        );
        let b = Blend {
            mode: BlendMode::Blend,
            src: BlendFactor::SrcAlpha,
            dst: BlendFactor::InvSrcAlpha,
        };
        assert_eq!(
            blend_mode(&b, true, false),
            1 | 1 << 3 | 5 << 5 | 4 << 8 | 3 << 12
        );
        let s = Blend {
            mode: BlendMode::Subtract,
            ..b
        };
        assert_eq!(
            blend_mode(&s, true, true) & (1 | 1 << 11 | 1 << 4),
            1 | 1 << 11 | 1 << 4
        );
        assert_eq!(zmode(true, Compare::LEqual, true), 1 | 3 << 1 | 1 << 4);
        assert_eq!(zmode(false, Compare::Always, false), 7 << 1);
        assert_eq!(pe_control(PixelFormat::Rgba6Z24, true), 1 | 1 << 6);
    }

    #[test]
    fn copy_and_scissor_fields() {
        assert_eq!(
            scissor(0, 0, 639, 479),
            (342 | 342 << 12, (479 + 342) | (639 + 342) << 12)
        );
        assert_eq!(scissor_offset(0, 0), 171 | 171 << 10);
        assert_eq!(copy_source(0, 0, 640, 480), (0, 639 | 479 << 10));
        assert_eq!(
            clear_values([1, 2, 3, 4], 0x1FF_FFFF),
            (4 << 8 | 1, 2 << 8 | 3, 0xFF_FFFF)
        );
        // RGBA8 (6) rotates to 0xC at bits 3–6.
        assert_eq!(copy_trigger(COPY_FORMAT_RGBA8, false, false), 3 | 0xC << 3);
        assert_eq!(copy_trigger(0, true, true), 3 | 1 << 11 | 1 << 14);
        assert_eq!(copy_trigger(8, false, false) >> 3 & 0xF, 1);
        assert_eq!(copy_filter(IDENTITY_COPY_FILTER), (21 << 12 | 22 << 18, 21));
    }

    #[test]
    fn texture_fields() {
        let w = tex_mode0(
            TexWrap::Repeat,
            TexWrap::Mirror,
            true,
            TexFilter::LinMipLin,
            -32,
            2,
            true,
        );
        assert_eq!(w & 3, 1);
        assert_eq!((w >> 2) & 3, 2);
        assert_eq!((w >> 4) & 1, 1);
        assert_eq!((w >> 5) & 7, 6);
        assert_eq!((w >> 9) & 0xFF, 0xE0);
        assert_eq!((w >> 19) & 3, 2);
        assert_eq!((w >> 21) & 1, 1);
        assert_eq!(tex_mode1(0.0, 3.0), 48 << 8);
        assert_eq!(
            tex_image0(640, 480, TEX_FORMAT_RGBA8),
            639 | 479 << 10 | 6 << 20
        );
        assert_eq!(tex_image_tmem(0x8000, 3, 3), 0x400 | 3 << 15 | 3 << 18);
        assert_eq!(tex_image3(0x0030_0000), 0x0030_0000 >> 5);
        assert_eq!(texcoord_scale(64, 32), (63, 31));
    }

    #[test]
    fn cp_fields() {
        assert_eq!(cp_vat(0, 3), 0x73);
        assert_eq!(cp_vat(2, 7), 0x97);
        let d = AttrKind::Direct;
        assert_eq!(
            vcd_lo(true, 0, d, AttrKind::Index16, [AttrKind::Index8, d]),
            1 | 1 << 9 | 3 << 11 | 2 << 13 | 1 << 15
        );
        let mut t = [AttrKind::None; 8];
        t[0] = d;
        t[7] = AttrKind::Index8;
        assert_eq!(vcd_hi(t), 1 | 2 << 14);
        let (a, b, c) = vat_float();
        assert_eq!(a & 0x1FF, 1 | 4 << 1);
        assert_eq!((a >> 9) & 1, 0);
        assert_eq!((a >> 10) & 7, 4);
        assert_eq!(
            ((a >> 13) & 1, (a >> 14) & 7, (a >> 17) & 1, (a >> 18) & 7),
            (1, 5, 1, 5)
        );
        assert_eq!(
            (
                (a >> 21) & 1,
                (a >> 22) & 7,
                (a >> 25) & 0x1F,
                (a >> 30) & 1,
                a >> 31
            ),
            (1, 4, 0, 1, 0)
        );
        for n in 0..3 {
            assert_eq!((b >> (9 * n)) & 0x1FF, 9, "TEX{}", n + 1);
        }
        assert_eq!(((b >> 27) & 0xF, b >> 31), (9, 1));
        assert_eq!(
            (
                c & 0x1F,
                (c >> 5) & 0x1FF,
                (c >> 14) & 0x1FF,
                (c >> 23) & 0x1FF
            ),
            (0, 9, 9, 9)
        );
        assert_eq!(
            matrix_index(0, [60, 30, 33, 36, 39, 42, 45, 48]),
            (
                60 << 6 | 30 << 12 | 33 << 18 | 36 << 24,
                39 | 42 << 6 | 45 << 12 | 48 << 18
            )
        );
    }

    #[test]
    fn xf_fields() {
        assert_eq!(xf_matrix(60), 240);
        assert_eq!(xf_post_matrix(GX_PTIDENTITY), 0x5F4);
        assert_eq!(xf_post_matrix(67), 0x50C);
        assert_eq!(xf_normal_matrix(3), 0x409);
        assert_eq!(xf_light(2), 0x620);
        assert_eq!(vtx_specs(2, 1, 3), 2 | 1 << 2 | 3 << 4);
        let tg = |kind, source| TexGen {
            kind,
            source,
            gx_tex_mtx: GX_IDENTITY,
            normalize: true,
            gx_post_mtx: 67,
        };
        assert_eq!(texgen(&tg(TexGenType::Mtx2x4, TexGenSrc::Tex(1))), 6 << 7);
        assert_eq!(
            texgen(&tg(TexGenType::Mtx3x4, TexGenSrc::Normal)),
            1 << 1 | 1 << 2 | 1 << 7
        );
        assert_eq!(
            texgen(&tg(TexGenType::Mtx3x4, TexGenSrc::Position)),
            1 << 1 | 1 << 2
        );
        assert_eq!(
            texgen(&tg(TexGenType::Bump(3), TexGenSrc::TexCoord(1))),
            1 << 4 | 6 << 7 | 1 << 12 | 3 << 15
        );
        assert_eq!(
            texgen(&tg(TexGenType::Srtg, TexGenSrc::Color1)),
            3 << 4 | 2 << 7
        );
        assert_eq!(
            post_texgen(&tg(TexGenType::Mtx2x4, TexGenSrc::Tex(0))),
            3 | 1 << 8
        );
        let c = ChannelControl {
            lighting: true,
            ambient_src: ColorSrc::Vertex,
            material_src: ColorSrc::Register,
            light_mask: 0,
            diffuse_fn: DiffuseFn::Clamp,
            attn_fn: AttnFn::Spot,
        };
        assert_eq!(
            channel_control(&c, 0x93, true),
            1 << 1 | 3 << 2 | 1 << 6 | 2 << 7 | 1 << 9 | 1 << 10 | 9 << 11
        );
        let spec = ChannelControl {
            attn_fn: AttnFn::Spec,
            ..c
        };
        assert_eq!(channel_control(&spec, 0, false) & (3 << 7 | 3 << 9), 1 << 9);
        let none = ChannelControl {
            attn_fn: AttnFn::None,
            ..c
        };
        assert_eq!((channel_control(&none, 0, false) >> 9) & 1, 0);
        assert_eq!(xf_color([0x11, 0x22, 0x33, 0x44]), 0x1122_3344);
        assert_eq!(
            viewport(0.0, 0.0, 640.0, 480.0),
            [320.0, -240.0, 16_777_215.0, 662.0, 582.0, 16_777_215.0]
        );
    }

    #[test]
    fn projection_maps_wgpu_depth_to_gx() {
        // Perspective, near 1, far 100: GX z'/w is −1 at the near plane and 0 at the far one.
        let (n, f) = (1.0f32, 100.0f32);
        let r = f / (n - f);
        let m = [
            [2.0, 0.0, 0.0, 0.0],
            [0.0, 3.0, 0.0, 0.0],
            [0.0, 0.0, r, -1.0],
            [0.0, 0.0, r * n, 0.0],
        ];
        let (p, kind) = projection(&m);
        assert_eq!(kind, 0);
        let z = |vz: f32| (p[4] * vz + p[5]) / -vz;
        assert!((z(-n) + 1.0).abs() < 1e-5, "{}", z(-n));
        assert!(z(-f).abs() < 1e-5, "{}", z(-f));
        assert_eq!((p[0], p[2]), (2.0, 3.0));
        // Orthographic: z' = p4 z + p5 from wgpu's z − 1.
        let o = [
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 0.0, -0.5, 0.0],
            [0.0, 0.0, 0.5, 1.0],
        ];
        let (p, kind) = projection(&o);
        assert_eq!((kind, p[4], p[5]), (1, -0.5, -0.5));
    }
}
