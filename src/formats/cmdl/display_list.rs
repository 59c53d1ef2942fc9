//! GX display lists (`formats.md` §2.5): draw commands → deduplicated vertex references and
//! indexed triangle lists, and the reverse encoder used by the model builder.
//!
//! Shared by CMDL surfaces and MREA world-geometry surfaces (same encoding).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use serde::Serialize;

use crate::formats::Game;
use crate::formats::error::{ErrorKind, FormatError, Result};
use crate::formats::material::{AttrFormat, VertexAttributes, Within, warning};
use crate::formats::reader::{Reader, Writer};

/// GX primitive type (`opcode & 0xF8`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PrimitiveKind {
    Quads,
    Triangles,
    TriangleStrip,
    TriangleFan,
    Lines,
    LineStrip,
    Points,
}

impl PrimitiveKind {
    pub const ALL: [PrimitiveKind; 7] = [
        Self::Quads,
        Self::Triangles,
        Self::TriangleStrip,
        Self::TriangleFan,
        Self::Lines,
        Self::LineStrip,
        Self::Points,
    ];

    /// Decodes the high 5 bits of an opcode; None for anything else (including GX's 0x88
    /// "quads 2", which Prime never emits).
    pub fn from_opcode(op: u8) -> Option<Self> {
        Some(match op & 0xF8 {
            0x80 => Self::Quads,
            0x90 => Self::Triangles,
            0x98 => Self::TriangleStrip,
            0xA0 => Self::TriangleFan,
            0xA8 => Self::Lines,
            0xB0 => Self::LineStrip,
            0xB8 => Self::Points,
            _ => return None,
        })
    }

    pub fn opcode(self) -> u8 {
        [0x80, 0x90, 0x98, 0xA0, 0xA8, 0xB0, 0xB8][self as usize]
    }

    /// Name as in the conformance JSONs (`triangle_strip`, …).
    pub fn name(self) -> &'static str {
        [
            "quads",
            "triangles",
            "triangle_strip",
            "triangle_fan",
            "lines",
            "line_strip",
            "points",
        ][self as usize]
    }

    /// Triangles produced from `n` vertices (formats.md §2.5 table).
    pub fn triangle_count(self, n: usize) -> usize {
        match self {
            Self::Quads => n / 4 * 2,
            Self::Triangles => n / 3,
            Self::TriangleStrip | Self::TriangleFan => n.saturating_sub(2),
            _ => 0,
        }
    }
}

/// Which array a TEX0 index reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum UvSource {
    /// The float UV array (2×f32).
    Float,
    /// The short-UV array (2×u16 / 32768).
    Short,
}

/// What a vertex in this surface's display list carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub struct VertexLayout {
    /// The attribute word as the game applies it (TEX7 bits cleared unless honoured; matrix
    /// index bits cleared for MP1).
    pub attributes: VertexAttributes,
    /// The array TEX0 indexes (TEX1–TEX7 always index the float array).
    pub tex0_source: UvSource,
}

impl VertexLayout {
    /// Bytes per vertex, or None when an attribute uses direct data.
    pub fn vertex_size(&self) -> Option<usize> {
        let mut size = self.attributes.matrix_index_mask().count_ones() as usize;
        for a in 0..12 {
            match self.attributes.format(a) {
                AttrFormat::Direct => return None,
                f => size += f.index_size(),
            }
        }
        Some(size)
    }
}

/// One vertex as the display list references it: indices into the model's arrays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub struct VertexRef {
    /// PNMTXIDX, then TEX0MTXIDX … TEX6MTXIDX: GX matrix row addresses (MP2 only).
    pub matrix_indices: [Option<u8>; 8],
    pub position: u16,
    pub normal: Option<u16>,
    pub colors: [Option<u16>; 2],
    /// TEX0 … TEX7; TEX0 reads the array named by the surface's [`VertexLayout::tex0_source`].
    pub tex: [Option<u16>; 8],
}

impl VertexRef {
    /// A vertex with only a position index.
    pub fn position(index: u16) -> Self {
        Self {
            position: index,
            ..Self::default()
        }
    }
}

/// One draw command, decoded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Primitive {
    pub opcode: u8,
    pub kind: PrimitiveKind,
    /// Low 3 bits of the opcode (VAT index): 0 all float, 1 short normals, 2 + short TEX0.
    pub vertex_format: u8,
    /// Byte offset of the command inside the display list.
    pub offset: usize,
    /// Indices into [`SurfaceMesh::vertices`], in display-list order.
    pub vertices: Vec<u32>,
}

/// A surface's geometry ready for a renderer: unique vertex references and index lists.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SurfaceMesh {
    pub layout: VertexLayout,
    /// Unique vertex references, in order of first use.
    pub vertices: Vec<VertexRef>,
    /// Triangles as indices into `vertices`, winding as `formats.md` §2.5 (counter-clockwise
    /// on screen = the face Prime shows). Degenerate strip triangles are kept.
    pub triangles: Vec<[u32; 3]>,
    /// Line segments (lines and line strips), for debug views.
    pub lines: Vec<[u32; 2]>,
    pub points: Vec<u32>,
    pub primitives: Vec<Primitive>,
    /// Bytes from the terminating NOP to the end of the display list (0 when the list was
    /// used up). Some tools count each 3 of them as an empty "primitive".
    pub padding_bytes: usize,
    /// Bytes of the list the decoded primitives use (U of `formats.md` §9.5.9).
    pub bytes_used: usize,
    /// The first error that stopped decoding; primitives decoded before it are kept.
    #[serde(skip)]
    pub error: Option<FormatError>,
}

impl SurfaceMesh {
    pub fn empty(layout: VertexLayout) -> Self {
        Self {
            layout,
            vertices: Vec::new(),
            triangles: Vec::new(),
            lines: Vec::new(),
            points: Vec::new(),
            primitives: Vec::new(),
            padding_bytes: 0,
            bytes_used: 0,
            error: None,
        }
    }

    /// Vertex references summed over primitives (before deduplication).
    pub fn vertex_ref_count(&self) -> usize {
        self.primitives.iter().map(|p| p.vertices.len()).sum()
    }

    /// Triangles as position indices (what the conformance JSON calls `triangles_pos`).
    pub fn triangle_positions(&self) -> Vec<[u16; 3]> {
        self.triangles
            .iter()
            .map(|t| t.map(|i| self.vertices[i as usize].position))
            .collect()
    }
}

/// Element counts of the arrays a display list indexes (for range checks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ArrayCounts {
    pub positions: usize,
    pub normals: usize,
    pub colors: usize,
    pub uvs: usize,
    pub short_uvs: usize,
}

/// Choices for decoding (`formats.md` §11).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DecodeOptions {
    /// Read TEX7 indices when bits 22–23 are set (the game ignores them).
    pub honour_tex7: bool,
    /// Pick TEX0's array from the VAT index of the surface's first primitive instead of the
    /// material flag.
    pub tex0_from_vat: bool,
    /// Alt of `formats.md` §9.5.9 (the game's behaviour): stop at the declared display-list
    /// size and drop a primitive that crosses it. The default decodes to the section end, so
    /// lists whose size field wrapped at 16 bits (PrimeWorldEditor's writer) draw completely.
    pub strict_display_list_size: bool,
}

/// Works out the layout the game uses for a material's attribute word, warning about bits the
/// game ignores.
#[allow(clippy::too_many_arguments)]
pub fn effective_layout(
    attributes: VertexAttributes,
    game: Game,
    tex0_short: bool,
    options: &DecodeOptions,
    file: &str,
    label: &str,
    offset: u64,
    warnings: &mut Vec<String>,
) -> VertexLayout {
    let mut va = attributes;
    if !options.honour_tex7 && va.format(VertexAttributes::TEX0 + 7) != AttrFormat::None {
        warnings.push(warning(
            file,
            label,
            offset,
            "TEX7 attribute bits are set; ignored as the game does",
        ));
        va = va.with(VertexAttributes::TEX0 + 7, AttrFormat::None);
    }
    if game == Game::Mp1 && va.matrix_index_mask() != 0 {
        warnings.push(warning(
            file,
            label,
            offset,
            "matrix-index attribute bits are set in an MP1 material; ignored as the game does",
        ));
        va = VertexAttributes(va.0 & 0x00FF_FFFF);
    }
    VertexLayout {
        attributes: va,
        tex0_source: if tex0_short {
            UvSource::Short
        } else {
            UvSource::Float
        },
    }
}

/// A vertex record packed into integers (records are at most 8 matrix bytes + 12 × 2 index
/// bytes = 32 bytes), so deduplication compares and hashes four words instead of a slice.
#[derive(Clone, Copy, Eq)]
struct VertexKey([u64; 4]);

impl PartialEq for VertexKey {
    // Word by word: a derived (vectorised) compare of a key just built from 8-byte stores
    // stalls on store forwarding.
    #[inline]
    fn eq(&self, o: &Self) -> bool {
        (self.0[0] ^ o.0[0]) | (self.0[1] ^ o.0[1]) | (self.0[2] ^ o.0[2]) | (self.0[3] ^ o.0[3])
            == 0
    }
}

impl VertexKey {
    fn new(bytes: &[u8]) -> Self {
        // Built with shifts rather than a copy into a stack buffer: a variable-length copy
        // followed by wide loads stalls on store forwarding.
        let mut key = [0u64; 4];
        let mut chunks = bytes.chunks_exact(8);
        let mut i = 0;
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            key[i.min(3)] = u64::from_le_bytes(w);
            i += 1;
        }
        for (k, &b) in chunks.remainder().iter().enumerate() {
            key[i.min(3)] |= (b as u64) << (8 * k);
        }
        Self(key)
    }
}

impl VertexKey {
    fn mixed(&self) -> u64 {
        let mut h = 0u64;
        for w in self.0 {
            h = (h ^ w).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(31);
        }
        // murmur3's finaliser: hashbrown uses both the low bits and the top 7 bits.
        h ^= h >> 33;
        h = h.wrapping_mul(0xFF51_AFD7_ED55_8CCD);
        h ^= h >> 33;
        h
    }
}

impl std::hash::Hash for VertexKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        state.write_u64(self.mixed());
    }
}

/// Passes the key's own hash through (it is already mixed).
#[derive(Default)]
struct VertexHasher(u64);

impl Hasher for VertexHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01B3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type VertexMap = HashMap<VertexKey, u32, BuildHasherDefault<VertexHasher>>;

/// Vertex deduplication: a hash map of every record seen, fronted by a small direct-mapped
/// cache of recent ones. Strips and grids re-reference vertices within a few hundred records,
/// and the cache turns those lookups into L1/L2 hits instead of a random probe into a table
/// that, for big surfaces, does not fit in cache.
struct Dedup {
    map: VertexMap,
    recent: Vec<(VertexKey, u32)>,
}

impl Dedup {
    const EMPTY: u32 = u32::MAX;

    /// `expected` bounds the sizes (it is derived from the display list's length).
    fn new(expected: usize) -> Self {
        let recent = expected.clamp(16, 2048).next_power_of_two();
        Self {
            map: VertexMap::with_capacity_and_hasher(expected.min(1 << 16), Default::default()),
            recent: vec![(VertexKey([0; 4]), Self::EMPTY); recent],
        }
    }

    fn slot(&self, key: &VertexKey) -> usize {
        (key.mixed() >> 7) as usize & (self.recent.len() - 1)
    }

    fn get(&mut self, key: &VertexKey) -> Option<u32> {
        let slot = self.slot(key);
        let (k, i) = self.recent[slot];
        if i != Self::EMPTY && k == *key {
            return Some(i);
        }
        let found = self.map.get(key).copied();
        if let Some(i) = found {
            self.recent[slot] = (*key, i);
        }
        found
    }

    fn insert(&mut self, key: VertexKey, i: u32) {
        let slot = self.slot(&key);
        self.recent[slot] = (key, i);
        self.map.insert(key, i);
    }
}

/// Decodes one display list. `r` spans the bytes the surface's section holds for the list (A of
/// `formats.md` §9.5.9) and `declared` is the size its header states (S, already capped at A);
/// `label` names the surface in errors (e.g. `surface[3]`). A list that runs past S is decoded
/// to its end (the default; the caller warns) or cut at S (`strict_display_list_size`). Errors
/// stop decoding and land in [`SurfaceMesh::error`]; everything decoded before them is kept
/// and every index in the result is inside its array.
#[allow(clippy::too_many_arguments)]
pub fn decode(
    r: &mut Reader,
    declared: usize,
    layout: VertexLayout,
    counts: &ArrayCounts,
    has_short_uvs: bool,
    options: &DecodeOptions,
    label: &str,
    warnings: &mut Vec<String>,
) -> SurfaceMesh {
    let mut mesh = SurfaceMesh::empty(layout);
    // Sized for a list that shares each vertex about twice, bounded by the list's bytes.
    let mut dedup = Dedup::new(
        layout
            .vertex_size()
            .filter(|&v| v > 0)
            .map_or(0, |v| r.remaining() / v / 2),
    );
    let mut vat_warned = false;
    let mut leftover_warned = false;
    let mut index = 0usize;
    let base = r.abs_pos() - r.pos() as u64;
    while !r.at_end() {
        let at = r.pos();
        let Ok(op) = r.u8("opcode") else { break };
        if op == 0 {
            // GX NOP: Retro pads the list with zeros to 32 bytes.
            mesh.padding_bytes = r.remaining() + 1;
            if r.rest().iter().any(|&b| b != 0) {
                warnings.push(warning(
                    r.file(),
                    &format!("{label}.display_list"),
                    r.abs_pos() - 1,
                    "non-zero bytes after the terminating NOP (ignored)",
                ));
            }
            r.seek("end", r.len()).ok();
            break;
        }
        let before = mesh.vertices.len();
        let result = decode_primitive(
            r,
            op,
            at,
            &mut mesh,
            &mut dedup,
            counts,
            has_short_uvs,
            options,
        )
        .within(|| format!("{label}.display_list.primitive[{index}]"));
        match result {
            Ok(_) if options.strict_display_list_size && r.pos() > declared => {
                mesh.vertices.truncate(before);
                break;
            }
            Ok(prim) => {
                mesh.bytes_used = r.pos();
                let n = prim.vertices.len();
                if mesh
                    .layout
                    .attributes
                    .format(VertexAttributes::TEX0)
                    .is_present()
                {
                    if options.tex0_from_vat && mesh.primitives.is_empty() {
                        mesh.layout.tex0_source = if prim.vertex_format == 2 && has_short_uvs {
                            UvSource::Short
                        } else {
                            UvSource::Float
                        };
                    }
                    let short = mesh.layout.tex0_source == UvSource::Short;
                    if short != (prim.vertex_format == 2) && !vat_warned {
                        vat_warned = true;
                        warnings.push(warning(
                            r.file(),
                            &format!("{label}.display_list.primitive[{index}].opcode"),
                            base + at as u64,
                            format!(
                                "vertex format {} disagrees with the {} TEX0 array chosen by {}",
                                prim.vertex_format,
                                if short { "short" } else { "float" },
                                if options.tex0_from_vat {
                                    "the first primitive"
                                } else {
                                    "the material flag"
                                },
                            ),
                        ));
                    }
                }
                let used = match prim.kind {
                    PrimitiveKind::Quads => n / 4 * 4,
                    PrimitiveKind::Triangles => n / 3 * 3,
                    PrimitiveKind::Lines => n / 2 * 2,
                    _ => n,
                };
                if used != n && !leftover_warned {
                    leftover_warned = true;
                    warnings.push(warning(
                        r.file(),
                        &format!("{label}.display_list.primitive[{index}].vertex_count"),
                        base + at as u64 + 1,
                        format!(
                            "{n} vertices do not fill whole {}; {} ignored",
                            prim.kind.name(),
                            n - used
                        ),
                    ));
                }
                expand(&prim, &mut mesh);
                mesh.primitives.push(prim);
            }
            Err(e) => {
                mesh.vertices.truncate(before);
                mesh.error = Some(e);
                break;
            }
        }
        index += 1;
    }
    mesh
}

/// Reads one command (opcode already read at `at`) and its vertices.
#[allow(clippy::too_many_arguments)]
fn decode_primitive(
    r: &mut Reader,
    op: u8,
    at: usize,
    mesh: &mut SurfaceMesh,
    dedup: &mut Dedup,
    counts: &ArrayCounts,
    has_short_uvs: bool,
    options: &DecodeOptions,
) -> Result<Primitive> {
    let Some(kind) = PrimitiveKind::from_opcode(op) else {
        return Err(r.err_at(
            "opcode",
            at,
            ErrorKind::Invalid(format!("unknown GX command {op:#04x}")),
        ));
    };
    let n = r.u16("vertex_count")? as usize;
    let layout = mesh.layout;
    let va = layout.attributes;
    let Some(vsize) = layout.vertex_size() else {
        return Err(r.err_at(
            "vertex_attributes",
            at,
            ErrorKind::Invalid(format!(
                "the material's vertex attribute word {:#010x} asks for direct data, which Prime data never uses",
                va.0
            )),
        ));
    };
    if n > 0 && !va.format(VertexAttributes::POSITION).is_present() {
        return Err(r.err_at(
            "vertex_attributes",
            at,
            ErrorKind::Invalid(format!(
                "the material's vertex attribute word {:#010x} has no position",
                va.0
            )),
        ));
    }
    r.check_count("vertices", n as u64, vsize)?;
    let vat = op & 7;
    let tex0_short = if options.tex0_from_vat && mesh.primitives.is_empty() {
        vat == 2 && has_short_uvs
    } else {
        layout.tex0_source == UvSource::Short
    };
    let mut vertices = Vec::with_capacity(n);
    for v in 0..n {
        let start = r.pos();
        let bytes = r.bytes("vertex", vsize)?;
        let key = VertexKey::new(bytes);
        if let Some(i) = dedup.get(&key) {
            vertices.push(i);
            continue;
        }
        let vref = read_vertex(bytes, va, counts, tex0_short).map_err(|(field, message)| {
            r.err_at(
                &format!("vertex[{v}].{field}"),
                start,
                ErrorKind::Invalid(message),
            )
        })?;
        let i = mesh.vertices.len() as u32;
        mesh.vertices.push(vref);
        dedup.insert(key, i);
        vertices.push(i);
    }
    Ok(Primitive {
        opcode: op,
        kind,
        vertex_format: vat,
        offset: at,
        vertices,
    })
}

/// Decodes one vertex record and checks every index against its array.
fn read_vertex(
    bytes: &[u8],
    va: VertexAttributes,
    counts: &ArrayCounts,
    tex0_short: bool,
) -> std::result::Result<VertexRef, (&'static str, String)> {
    let mut v = VertexRef::default();
    let mut p = 0usize;
    for (i, slot) in v.matrix_indices.iter_mut().enumerate() {
        if va.matrix_index(i) {
            *slot = Some(bytes[p]);
            p += 1;
        }
    }
    let mut read =
        |attr: usize, limit: usize| -> std::result::Result<Option<u16>, (&'static str, String)> {
            let value = match va.format(attr) {
                AttrFormat::Index8 => {
                    p += 1;
                    bytes[p - 1] as u16
                }
                AttrFormat::Index16 => {
                    p += 2;
                    u16::from_be_bytes([bytes[p - 2], bytes[p - 1]])
                }
                _ => return Ok(None),
            };
            if value as usize >= limit {
                let name = VertexAttributes::NAMES[attr];
                return Err((
                    name,
                    format!("{name} index {value} is outside the array of {limit} elements"),
                ));
            }
            Ok(Some(value))
        };
    v.position = read(VertexAttributes::POSITION, counts.positions)?.unwrap_or(0);
    v.normal = read(VertexAttributes::NORMAL, counts.normals)?;
    v.colors[0] = read(VertexAttributes::COLOR0, counts.colors)?;
    v.colors[1] = read(VertexAttributes::COLOR1, counts.colors)?;
    let tex0_limit = if tex0_short {
        counts.short_uvs
    } else {
        counts.uvs
    };
    v.tex[0] = read(VertexAttributes::TEX0, tex0_limit)?;
    for t in 1..8 {
        v.tex[t] = read(VertexAttributes::TEX0 + t, counts.uvs)?;
    }
    Ok(v)
}

/// Appends the triangles / lines / points of one primitive (winding per `formats.md` §2.5).
fn expand(p: &Primitive, mesh: &mut SurfaceMesh) {
    let v = &p.vertices;
    match p.kind {
        PrimitiveKind::Quads => {
            for q in v.chunks_exact(4) {
                mesh.triangles.push([q[0], q[1], q[2]]);
                mesh.triangles.push([q[0], q[2], q[3]]);
            }
        }
        PrimitiveKind::Triangles => {
            mesh.triangles
                .extend(v.chunks_exact(3).map(|t| [t[0], t[1], t[2]]));
        }
        PrimitiveKind::TriangleStrip => {
            for i in 0..v.len().saturating_sub(2) {
                mesh.triangles.push(if i % 2 == 0 {
                    [v[i], v[i + 1], v[i + 2]]
                } else {
                    [v[i + 1], v[i], v[i + 2]]
                });
            }
        }
        PrimitiveKind::TriangleFan => {
            for i in 0..v.len().saturating_sub(2) {
                mesh.triangles.push([v[0], v[i + 1], v[i + 2]]);
            }
        }
        PrimitiveKind::Lines => mesh.lines.extend(v.chunks_exact(2).map(|l| [l[0], l[1]])),
        PrimitiveKind::LineStrip => mesh.lines.extend(v.windows(2).map(|l| [l[0], l[1]])),
        PrimitiveKind::Points => mesh.points.extend_from_slice(v),
    }
}

// ------------------------------------------------------------------------------------------------
// Encoding

/// Writes one vertex record for `layout` (u8 or u16 indices as the layout says).
pub fn write_vertex(w: &mut Writer, v: &VertexRef, va: VertexAttributes) {
    for (i, m) in v.matrix_indices.iter().enumerate() {
        if va.matrix_index(i) {
            w.u8(m.unwrap_or(0));
        }
    }
    let mut put = |attr: usize, value: Option<u16>| match va.format(attr) {
        AttrFormat::Index8 => w.u8(value.unwrap_or(0) as u8),
        AttrFormat::Index16 => w.u16(value.unwrap_or(0)),
        _ => {}
    };
    put(VertexAttributes::POSITION, Some(v.position));
    put(VertexAttributes::NORMAL, v.normal);
    put(VertexAttributes::COLOR0, v.colors[0]);
    put(VertexAttributes::COLOR1, v.colors[1]);
    for t in 0..8 {
        put(VertexAttributes::TEX0 + t, v.tex[t]);
    }
}

/// Encodes one primitive, split into commands of at most 65535 vertices (whole triangles,
/// quads and segments per command; strips, fans and line strips repeat the joint vertices).
pub fn encode_primitive(
    w: &mut Writer,
    kind: PrimitiveKind,
    vat: u8,
    vertices: &[VertexRef],
    va: VertexAttributes,
) {
    const MAX: usize = 0xFFFF;
    let chunks: Vec<&[VertexRef]> = match kind {
        PrimitiveKind::Quads => vertices.chunks(MAX / 4 * 4).collect(),
        PrimitiveKind::Triangles => vertices.chunks(MAX / 3 * 3).collect(),
        PrimitiveKind::Lines => vertices.chunks(MAX / 2 * 2).collect(),
        PrimitiveKind::Points => vertices.chunks(MAX).collect(),
        PrimitiveKind::TriangleStrip | PrimitiveKind::LineStrip | PrimitiveKind::TriangleFan => {
            if vertices.len() <= MAX {
                vec![vertices]
            } else {
                // Rare enough to not matter for Prime-sized meshes: fall back to explicit
                // triangles / segments so the output stays exact.
                let mut tmp = SurfaceMesh::empty(VertexLayout {
                    attributes: va,
                    tex0_source: UvSource::Float,
                });
                let prim = Primitive {
                    opcode: kind.opcode(),
                    kind,
                    vertex_format: vat,
                    offset: 0,
                    vertices: (0..vertices.len() as u32).collect(),
                };
                expand(&prim, &mut tmp);
                if kind == PrimitiveKind::LineStrip {
                    let flat: Vec<VertexRef> = tmp
                        .lines
                        .iter()
                        .flat_map(|l| l.map(|i| vertices[i as usize]))
                        .collect();
                    encode_primitive(w, PrimitiveKind::Lines, vat, &flat, va);
                } else {
                    let flat: Vec<VertexRef> = tmp
                        .triangles
                        .iter()
                        .flat_map(|t| t.map(|i| vertices[i as usize]))
                        .collect();
                    encode_primitive(w, PrimitiveKind::Triangles, vat, &flat, va);
                }
                return;
            }
        }
    };
    for c in chunks {
        if c.is_empty() {
            continue;
        }
        w.u8(kind.opcode() | (vat & 7));
        w.u16(c.len() as u16);
        for v in c {
            write_vertex(w, v, va);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn layout() -> VertexLayout {
        VertexLayout {
            attributes: VertexAttributes(0x30F),
            tex0_source: UvSource::Float,
        }
    }

    fn counts() -> ArrayCounts {
        ArrayCounts {
            positions: 8,
            normals: 8,
            colors: 0,
            uvs: 4,
            short_uvs: 0,
        }
    }

    fn v(p: u16) -> VertexRef {
        VertexRef {
            position: p,
            normal: Some(p),
            tex: [Some(p % 4), None, None, None, None, None, None, None],
            ..Default::default()
        }
    }

    fn run(bytes: &[u8]) -> (SurfaceMesh, Vec<String>) {
        let mut w = Vec::new();
        let mut r = Reader::new(bytes, "dl");
        let m = decode(
            &mut r,
            bytes.len(),
            layout(),
            &counts(),
            false,
            &Default::default(),
            "surface[0]",
            &mut w,
        );
        (m, w)
    }

    #[test]
    fn every_primitive_kind_expands_as_specified() {
        let verts: Vec<VertexRef> = (0..6).map(v).collect();
        let mut w = Writer::new();
        for kind in PrimitiveKind::ALL {
            encode_primitive(&mut w, kind, 0, &verts, layout().attributes);
        }
        w.pad_to(32, 0);
        let (m, warnings) = run(&w.buf);
        assert!(m.error.is_none(), "{:?}", m.error);
        assert_eq!(m.primitives.len(), 7);
        assert_eq!(m.vertices.len(), 6);
        // Warned once about the quads' leftover vertices (6 is not a multiple of 4).
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        let tri = m.triangle_positions();
        let expect: Vec<[u16; 3]> = vec![
            // quads (one quad, 2 leftover)
            [0, 1, 2],
            [0, 2, 3],
            // triangles
            [0, 1, 2],
            [3, 4, 5],
            // strip
            [0, 1, 2],
            [2, 1, 3],
            [2, 3, 4],
            [4, 3, 5],
            // fan
            [0, 1, 2],
            [0, 2, 3],
            [0, 3, 4],
            [0, 4, 5],
        ];
        assert_eq!(tri, expect);
        assert_eq!(m.lines.len(), 3 + 5);
        assert_eq!(m.points.len(), 6);
        assert!(m.padding_bytes > 0);
    }

    #[test]
    fn out_of_range_index_stops_the_surface_with_a_located_error() {
        let mut w = Writer::new();
        encode_primitive(
            &mut w,
            PrimitiveKind::Triangles,
            0,
            &[v(0), v(1), v(2)],
            layout().attributes,
        );
        let mut bad = v(3);
        bad.position = 8;
        encode_primitive(
            &mut w,
            PrimitiveKind::Triangles,
            0,
            &[v(0), v(1), bad],
            layout().attributes,
        );
        let (m, _) = run(&w.buf);
        let e = m.error.unwrap();
        assert_eq!(
            e.field,
            "surface[0].display_list.primitive[1].vertex[2].position"
        );
        assert_eq!(e.offset, 3 + 18 + 3 + 12);
        assert_eq!(m.primitives.len(), 1);
        assert_eq!(m.vertices.len(), 3);
    }

    #[test]
    fn huge_vertex_counts_are_checked_against_the_bytes_left() {
        let (m, _) = run(&[0x98, 0xFF, 0xFF, 0, 1, 0, 1, 0, 1]);
        let e = m.error.unwrap();
        assert_eq!(e.field, "surface[0].display_list.primitive[0].vertices");
        assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }));
    }

    #[test]
    fn unknown_opcode_is_an_error_for_the_surface() {
        let (m, _) = run(&[0x88, 0, 0]);
        assert_eq!(
            m.error.unwrap().field,
            "surface[0].display_list.primitive[0].opcode"
        );
    }

    #[test]
    fn dedup_survives_cache_collisions_and_large_lists() {
        // 3000 references to 600 distinct records in a scrambled order: far more than the
        // recent-vertex cache holds, so lookups go through both levels.
        let counts = ArrayCounts {
            positions: 600,
            normals: 600,
            colors: 0,
            uvs: 4,
            short_uvs: 0,
        };
        let refs: Vec<VertexRef> = (0..3000u32)
            .map(|i| {
                let k = (i.wrapping_mul(2_654_435_761) >> 7) % 600;
                VertexRef {
                    position: k as u16,
                    normal: Some((599 - k) as u16),
                    tex: [
                        Some((k % 4) as u16),
                        None,
                        None,
                        None,
                        None,
                        None,
                        None,
                        None,
                    ],
                    ..Default::default()
                }
            })
            .collect();
        let mut w = Writer::new();
        encode_primitive(&mut w, PrimitiveKind::Points, 0, &refs, layout().attributes);
        let mut warnings = Vec::new();
        let mut r = Reader::new(&w.buf, "dl");
        let m = decode(
            &mut r,
            w.buf.len(),
            layout(),
            &counts,
            false,
            &Default::default(),
            "s",
            &mut warnings,
        );
        assert!(m.error.is_none());
        let distinct: std::collections::HashSet<_> = refs.iter().collect();
        assert_eq!(m.vertices.len(), distinct.len());
        let back: Vec<VertexRef> = m.points.iter().map(|&i| m.vertices[i as usize]).collect();
        assert_eq!(back, refs);
    }

    #[test]
    fn long_strips_are_split_exactly() {
        let verts: Vec<VertexRef> = (0..70000u32).map(|i| v((i % 8) as u16)).collect();
        let mut w = Writer::new();
        encode_primitive(
            &mut w,
            PrimitiveKind::TriangleStrip,
            0,
            &verts,
            layout().attributes,
        );
        let (m, _) = run(&w.buf);
        assert!(m.error.is_none());
        assert_eq!(m.triangles.len(), 70000 - 2);
        let tri = m.triangle_positions();
        assert_eq!(tri[1], [2, 1, 3]);
        assert_eq!(
            tri[69997],
            [(69998 % 8) as u16, (69997 % 8) as u16, (69999 % 8) as u16]
        );
    }
}
