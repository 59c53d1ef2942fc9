//! CMDL models, MP1 (version 2), MP2 (version 4; Echoes demo 3) and MP3 (version 5, its
//! element-list materials in [`super::mp3_material`]): `formats.md` §2, §13.1.
//!
//! [`Cmdl::parse`] reads every section, keeping whatever a typed field cannot hold (padding,
//! remainders, unknown words) so [`Cmdl::to_bytes`] reproduces the file byte for byte. Each
//! surface's display list is decoded into a [`SurfaceMesh`]: unique vertex references plus
//! indexed triangles, the shape a renderer uploads. [`CmdlBuilder`] makes new models from
//! arrays, materials and triangle lists.

pub mod builder;
pub mod display_list;

use serde::Serialize;

pub use builder::{BuildError, CmdlBuilder, MeshVertex, SurfaceDesc};
pub use display_list::{
    ArrayCounts, DecodeOptions, Primitive, PrimitiveKind, SurfaceMesh, UvSource, VertexLayout,
    VertexRef,
};

use super::Game;
use super::error::{ErrorKind, FormatError, Result};
use super::material::{MaterialOptions, MaterialSet, Within, warning};
use super::mp3_material::{Mp3Materials, SetLayout};
use super::reader::{Reader, Writer};

/// Magic of MP1/MP2/MP3 models.
pub const MAGIC: u32 = 0xDEAD_BABE;

/// Header flag: normals are 3×s16.
pub const FLAG_SHORT_NORMALS: u32 = 0x2;
/// Header flag: a short-UV section is present.
pub const FLAG_SHORT_UVS: u32 = 0x4;

pub use crate::geom::Aabb;

/// The box as files store it: min then max, three f32 each.
impl Aabb {
    pub fn read(r: &mut Reader, field: &str) -> Result<Self> {
        Ok(Self {
            min: r.vec3(field)?,
            max: r.vec3(field)?,
        })
    }
    pub fn write(&self, w: &mut Writer) {
        w.vec3(self.min);
        w.vec3(self.max);
    }
}

/// Parse switches for the places where sources disagree (`formats.md` §11).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CmdlOptions {
    pub material: MaterialOptions,
    /// Short normal component = s16 / this. Default 16384 (14 fraction bits); alt 32768.
    pub short_normal_divisor: f32,
    /// Read short UVs as s16 instead of u16 (alt; differs only for raw values ≥ 0x8000).
    pub short_uv_signed: bool,
    pub decode: DecodeOptions,
    /// Fail the whole parse on a display-list error instead of recording it on the surface.
    pub strict_display_lists: bool,
}

impl Default for CmdlOptions {
    fn default() -> Self {
        Self {
            material: MaterialOptions::default(),
            short_normal_divisor: 16384.0,
            short_uv_signed: false,
            decode: DecodeOptions::default(),
            strict_display_lists: false,
        }
    }
}

/// A vertex array section: `floor(size / stride)` elements (padding elements included, as
/// the game counts them) and the bytes that do not make a whole element.
#[derive(Debug, Clone, PartialEq, Default, Serialize)]
pub struct AttributeArray<T> {
    pub values: Vec<T>,
    /// `size % stride` trailing bytes, kept verbatim.
    pub remainder: Vec<u8>,
}

impl<T> AttributeArray<T> {
    pub fn len(&self) -> usize {
        self.values.len()
    }
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Reads a whole section (`r` spans exactly it) as `floor(size / stride)` elements.
    pub(crate) fn parse(r: &mut Reader) -> Self
    where
        T: ArrayElement,
    {
        let data = r.rest();
        let chunks = data.chunks_exact(T::STRIDE);
        let remainder = chunks.remainder().to_vec();
        let values = chunks.map(T::decode).collect();
        // A reader over exactly the section: consume it.
        let _ = r.seek("end", r.len());
        Self { values, remainder }
    }

    /// The section bytes: the elements, then the remainder as stored.
    pub fn to_bytes(&self) -> Vec<u8>
    where
        T: ArrayElement,
    {
        let mut w = Writer::new();
        self.values.iter().for_each(|v| v.encode(&mut w));
        w.bytes(&self.remainder);
        w.into_inner()
    }

    /// Replaces the remainder with zeros up to the next multiple of 32 bytes (after edits).
    pub fn repad(&mut self)
    where
        T: ArrayElement,
    {
        let len = self.values.len() * T::STRIDE;
        self.remainder = vec![0; len.next_multiple_of(32) - len];
    }
}

/// One element of a vertex array section: its stride and big-endian encoding.
pub trait ArrayElement: Sized {
    const STRIDE: usize;
    /// `b` holds exactly `STRIDE` bytes.
    fn decode(b: &[u8]) -> Self;
    fn encode(&self, w: &mut Writer);
}

impl ArrayElement for [f32; 3] {
    const STRIDE: usize = 12;
    fn decode(b: &[u8]) -> Self {
        [be_f32(&b[0..]), be_f32(&b[4..]), be_f32(&b[8..])]
    }
    fn encode(&self, w: &mut Writer) {
        w.vec3(*self);
    }
}

impl ArrayElement for [i16; 3] {
    const STRIDE: usize = 6;
    fn decode(b: &[u8]) -> Self {
        [0, 2, 4].map(|k| i16::from_be_bytes([b[k], b[k + 1]]))
    }
    fn encode(&self, w: &mut Writer) {
        self.iter().for_each(|&c| w.i16(c));
    }
}

impl ArrayElement for [u8; 4] {
    const STRIDE: usize = 4;
    fn decode(b: &[u8]) -> Self {
        [b[0], b[1], b[2], b[3]]
    }
    fn encode(&self, w: &mut Writer) {
        w.bytes(self);
    }
}

impl ArrayElement for [f32; 2] {
    const STRIDE: usize = 8;
    fn decode(b: &[u8]) -> Self {
        [be_f32(&b[0..]), be_f32(&b[4..])]
    }
    fn encode(&self, w: &mut Writer) {
        w.f32(self[0]);
        w.f32(self[1]);
    }
}

impl ArrayElement for [u16; 2] {
    const STRIDE: usize = 4;
    fn decode(b: &[u8]) -> Self {
        [
            u16::from_be_bytes([b[0], b[1]]),
            u16::from_be_bytes([b[2], b[3]]),
        ]
    }
    fn encode(&self, w: &mut Writer) {
        w.u16(self[0]);
        w.u16(self[1]);
    }
}

/// A short UV as floats: u16 / 32768 (the game's VAT), or s16 / 32768 with `signed` (alt).
pub fn short_uv_value(raw: [u16; 2], signed: bool) -> [f32; 2] {
    raw.map(|c| {
        if signed {
            c as i16 as f32 / 32768.0
        } else {
            c as f32 / 32768.0
        }
    })
}

fn be_f32(b: &[u8]) -> f32 {
    f32::from_be_bytes([b[0], b[1], b[2], b[3]])
}

/// Normals section: floats, or 3×s16 when header flag 0x2 is set.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Normals {
    Float(AttributeArray<[f32; 3]>),
    Short(AttributeArray<[i16; 3]>),
}

impl Normals {
    pub fn len(&self) -> usize {
        match self {
            Self::Float(a) => a.len(),
            Self::Short(a) => a.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Reads a normals section: 3×s16 when `short`, else 3×f32.
    pub(crate) fn parse(r: &mut Reader, short: bool) -> Self {
        if short {
            Self::Short(AttributeArray::parse(r))
        } else {
            Self::Float(AttributeArray::parse(r))
        }
    }
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            Self::Float(a) => a.to_bytes(),
            Self::Short(a) => a.to_bytes(),
        }
    }
    pub fn repad(&mut self) {
        match self {
            Self::Float(a) => a.repad(),
            Self::Short(a) => a.repad(),
        }
    }
    /// Normal `i` as floats (short components divided by `short_divisor`).
    pub fn get(&self, i: usize, short_divisor: f32) -> Option<[f32; 3]> {
        match self {
            Self::Float(a) => a.values.get(i).copied(),
            Self::Short(a) => a.values.get(i).map(|n| n.map(|c| c as f32 / short_divisor)),
        }
    }
}

/// Where a surface's display-list indices start in its model's arrays: zero in a CMDL. An
/// area's merged model ([`crate::load::area`]) concatenates its world models' arrays and
/// gives each surface the offsets of its world model, so the file's 16-bit indices reach
/// every entry however long the merged arrays are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ArrayBase {
    pub position: usize,
    pub normal: usize,
    pub color: usize,
    pub uv: usize,
    pub short_uv: usize,
}

/// One surface section (`formats.md` §2.4) and its decoded mesh.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Surface {
    /// Centre point, used for depth sorting.
    pub center: [f32; 3],
    pub material_index: u32,
    /// Bits 0–30 display-list size, bit 31 the "normal hint" flag (as stored).
    pub display_list_word: u32,
    /// Two runtime pointers (0 in files), kept verbatim.
    pub runtime_pointers: [u32; 2],
    /// Reflection-plane normal.
    pub normal: [f32; 3],
    /// MP2: the two unknown u16 after the normal. MP3 (§13.1): the skin-matrix bank index
    /// (s16) and the surface group.
    pub mp2_unknown: Option<[u16; 2]>,
    /// Extra data (E bytes); its first 24 bytes are an AABB when E ≥ 24.
    pub extra_data: Vec<u8>,
    /// Zero padding from the end of the header + extra data to the 32-byte boundary.
    pub header_padding: Vec<u8>,
    /// The display-list bytes up to the declared size (or the section end if smaller).
    pub display_list: Vec<u8>,
    /// Bytes after the declared size up to the end of the section. A list whose size field
    /// wrapped at 16 bits (`formats.md` §9.5.9) runs on into them; `mesh` decodes both.
    pub tail: Vec<u8>,
    /// Decoded geometry (not written; derived from `display_list`).
    pub mesh: SurfaceMesh,
    /// Offsets added to the mesh's indices (not written; see [`ArrayBase`]).
    #[serde(skip)]
    pub array_base: ArrayBase,
}

impl Surface {
    /// MP3: the skin-matrix bank index (§13.4) the surface's PNMTXIDX bytes select within.
    pub fn skin_matrix_bank_index(&self) -> Option<i16> {
        self.mp2_unknown.map(|[b, _]| b as i16)
    }
    /// Stored display-list size (bits 0–30).
    pub fn display_list_size(&self) -> u32 {
        self.display_list_word & 0x7FFF_FFFF
    }
    /// The "normal hint" bit (bit 31; set in Retro's files, meaning unknown).
    pub fn normal_hint(&self) -> bool {
        self.display_list_word >> 31 != 0
    }
    /// Header size before the extra data (0x2C MP1, 0x30 MP2).
    pub fn header_size(&self) -> usize {
        if self.mp2_unknown.is_some() {
            0x30
        } else {
            0x2C
        }
    }
    /// Where the display list starts in the section (header + extra data, padded).
    pub fn display_list_start(&self) -> usize {
        self.header_size() + self.extra_data.len() + self.header_padding.len()
    }
    /// The AABB from the extra data, when it has one.
    pub fn stored_aabb(&self) -> Option<Aabb> {
        (self.extra_data.len() >= 24).then(|| {
            let f = |i: usize| be_f32(&self.extra_data[4 * i..]);
            Aabb {
                min: [f(0), f(1), f(2)],
                max: [f(3), f(4), f(5)],
            }
        })
    }

    /// Reads one surface section (`r` spans exactly the section) and decodes its display list
    /// with `layouts[material_index]` (from [`material_layouts`]). Shared with MREA world
    /// geometry, whose surfaces use the same encoding. Display-list problems land in
    /// `mesh.error`, not in the result.
    #[allow(clippy::too_many_arguments)]
    pub fn parse(
        r: &mut Reader,
        game: Game,
        layouts: &[VertexLayout],
        counts: &ArrayCounts,
        has_short_uvs: bool,
        options: &CmdlOptions,
        label: &str,
        warnings: &mut Vec<String>,
    ) -> Result<Surface> {
        let center = r.vec3("center_point")?;
        let material_at = r.abs_pos();
        let material_index = r.u32("material_index")?;
        let display_list_word = r.u32("display_list_size")?;
        let runtime_pointers = [r.u32("runtime_pointer")?, r.u32("runtime_pointer")?];
        let e = r.u32("extra_data_size")?;
        let normal = r.vec3("surface_normal")?;
        let mp2_unknown = if game == Game::Mp1 {
            None
        } else {
            Some([r.u16("mp2_unknown")?, r.u16("mp2_unknown")?])
        };
        r.check_count("extra_data", e.into(), 1)?;
        let extra_data = r.bytes("extra_data", e as usize)?.to_vec();
        let pad_end = r.pos().next_multiple_of(32).min(r.len());
        let header_padding = r.bytes("header_padding", pad_end - r.pos())?.to_vec();
        if header_padding.iter().any(|&b| b != 0) {
            warnings.push(warning(
                r.file(),
                &format!("{label}.header_padding"),
                r.abs_pos() - header_padding.len() as u64,
                "non-zero padding bytes after the surface header (kept)",
            ));
        }
        // formats.md §9.5.9: S is the declared size, A the bytes the section holds for the list.
        // The list is decoded over A; bytes past S are kept in `tail` so writing stays exact.
        let size_at = material_at + 4;
        let available = r.remaining();
        let declared = (display_list_word & 0x7FFF_FFFF) as usize;
        let declared = if declared > available {
            warnings.push(warning(
                r.file(),
                &format!("{label}.display_list_size"),
                size_at,
                format!(
                    "display list size {declared} exceeds the {available} bytes left in the section; decoding to the section end"
                ),
            ));
            available
        } else {
            declared
        };
        let mut dl = r.sub("display_list", available)?;
        let _ = r.seek("end", r.len());

        let Some(layout) = layouts.get(material_index as usize) else {
            return Err(FormatError::new(
                r.file(),
                "material_index",
                material_at,
                ErrorKind::OutOfRange {
                    value: material_index.into(),
                    expected: format!("below the {} materials of set 0", layouts.len()),
                },
            ));
        };
        let layout = *layout;
        let display_list = dl.data()[..declared].to_vec();
        let tail = dl.data()[declared..].to_vec();
        let mesh = display_list::decode(
            &mut dl,
            declared,
            layout,
            counts,
            has_short_uvs,
            &options.decode,
            label,
            warnings,
        );
        let used = mesh.bytes_used;
        if used > declared {
            let wrapped = (used.next_multiple_of(32) - declared).is_multiple_of(0x10000);
            warnings.push(warning(
                r.file(),
                &format!("{label}.display_list_size"),
                size_at,
                format!(
                    "display list runs past its declared size {declared} (used {used} of {available}){}",
                    if wrapped { "; size wrapped at 16 bits" } else { "" }
                ),
            ));
        }
        Ok(Surface {
            center,
            material_index,
            display_list_word,
            runtime_pointers,
            normal,
            mp2_unknown,
            extra_data,
            header_padding,
            display_list,
            tail,
            mesh,
            array_base: ArrayBase::default(),
        })
    }

    /// Appends the surface section.
    pub fn write(&self, w: &mut Writer) {
        w.vec3(self.center);
        w.u32(self.material_index);
        w.u32(self.display_list_word);
        w.u32(self.runtime_pointers[0]);
        w.u32(self.runtime_pointers[1]);
        w.u32(self.extra_data.len() as u32);
        w.vec3(self.normal);
        if let Some([a, b]) = self.mp2_unknown {
            w.u16(a);
            w.u16(b);
        }
        w.bytes(&self.extra_data);
        w.bytes(&self.header_padding);
        w.bytes(&self.display_list);
        w.bytes(&self.tail);
    }
}

/// The display-list layout of every material of set 0 (all sets share layouts), warning once
/// per material about attribute bits the game ignores. `set_offset` is the set section's
/// absolute offset (for locating those warnings).
pub fn material_layouts(
    set0: &MaterialSet,
    has_short_uvs: bool,
    options: &CmdlOptions,
    file: &str,
    set_offset: u64,
    warnings: &mut Vec<String>,
) -> Vec<VertexLayout> {
    set0.materials
        .iter()
        .zip(set0.material_offsets())
        .enumerate()
        .map(|(i, (m, at))| {
            display_list::effective_layout(
                m.vertex_attributes,
                set0.game,
                has_short_uvs && m.uses_short_uvs(&options.material),
                &options.decode,
                file,
                &format!("material_set[0].material[{i}].vertex_attribute_flags"),
                set_offset + (at + 8 + 4 * m.texture_indices.len()) as u64,
                warnings,
            )
        })
        .collect()
}

/// The surface offset table section (`formats.md` §2.2 item 7): u32 count N, N end offsets
/// (relative to the first surface), then padding.
pub(crate) struct SurfaceTable;

impl SurfaceTable {
    /// End offsets and the bytes after them (`r` spans exactly the section).
    pub(crate) fn read(r: &mut Reader) -> Result<(Vec<u32>, Vec<u8>)> {
        let c = r.count("surface_count", 4)?;
        let ends = r.u32_vec("end_offsets", c)?;
        let padding = r.rest().to_vec();
        let _ = r.seek("end", r.len());
        Ok((ends, padding))
    }

    pub(crate) fn to_bytes(ends: &[u32], padding: &[u8]) -> Vec<u8> {
        let mut w = Writer::new();
        w.u32(ends.len() as u32);
        ends.iter().for_each(|&o| w.u32(o));
        w.bytes(padding);
        w.into_inner()
    }

    /// Warns (once) when the stored end offsets disagree with the cumulative sizes of the
    /// surface sections; readers follow the sizes. `table_at` locates the table section.
    pub(crate) fn check(
        ends: &[u32],
        surface_sizes: &[u32],
        file: &str,
        label: &str,
        table_at: u64,
        warnings: &mut Vec<String>,
    ) {
        let mut cumulative = 0u64;
        for (j, (&stored, &size)) in ends.iter().zip(surface_sizes).enumerate() {
            cumulative += u64::from(size);
            if u64::from(stored) != cumulative {
                warnings.push(warning(
                    file,
                    &format!("{label}.end_offsets[{j}]"),
                    table_at + 4 + 4 * j as u64,
                    format!(
                        "stored end offset {stored} disagrees with the section sizes ({cumulative}); following the sizes"
                    ),
                ));
                break;
            }
        }
    }
}

/// After edits: pads each surface's header and display list to 32 bytes, rewrites the
/// display-list size words and the surface table's end offsets (CMDL and MREA world models).
pub(crate) fn refresh_surface_layout(
    surfaces: &mut [Surface],
    end_offsets: &mut Vec<u32>,
    table_padding: &mut Vec<u8>,
) {
    let mut end = 0u32;
    end_offsets.clear();
    for s in surfaces {
        let head = s.header_size() + s.extra_data.len();
        s.header_padding = vec![0; head.next_multiple_of(32) - head];
        // A list that ran past its declared size (§9.5.9) keeps what it used; the size
        // written below is then the true one.
        let overrun = s.mesh.bytes_used.saturating_sub(s.display_list.len());
        let used_tail: Vec<u8> = s.tail.drain(..overrun.min(s.tail.len())).collect();
        s.display_list.extend(used_tail);
        s.display_list
            .resize(s.display_list.len().next_multiple_of(32), 0);
        s.tail.clear();
        s.display_list_word = (s.display_list_word & 0x8000_0000) | s.display_list.len() as u32;
        end += (head + s.header_padding.len() + s.display_list.len()) as u32;
        end_offsets.push(end);
    }
    let len = 4 + 4 * end_offsets.len();
    *table_padding = vec![0; len.next_multiple_of(32) - len];
}

/// A vertex with its attribute values looked up (what a renderer uploads).
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize)]
pub struct ResolvedVertex {
    pub position: [f32; 3],
    pub normal: Option<[f32; 3]>,
    pub colors: [Option<[u8; 4]>; 2],
    /// TEX0 … TEX7 (TEX0 from the short-UV array when the surface says so).
    pub tex: [Option<[f32; 2]>; 8],
    /// Matrix-index bytes (MP2), as in [`VertexRef::matrix_indices`].
    pub matrix_indices: [Option<u8>; 8],
}

/// Name, offset and size of one data section, as the conformance JSON lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SectionInfo {
    pub index: usize,
    pub name: String,
    pub offset: usize,
    pub size: usize,
}

/// A parsed MP1/MP2/MP3 model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Cmdl {
    /// 2 (MP1), 3 (Echoes demo), 4 (MP2) or 5 (MP3).
    pub version: u32,
    /// Header flags as stored; bits 0x2 and 0x4 are rewritten from `normals` / `short_uvs`.
    pub flags: u32,
    pub aabb: Aabb,
    /// Bytes between the section table and the first section (zero padding to 32).
    pub header_padding: Vec<u8>,
    /// MP1/MP2 material sets (empty in MP3 models, whose sets are in `mp3_materials`).
    pub material_sets: Vec<MaterialSet>,
    /// MP3 (version 5) material sets, §13.2.
    pub mp3_materials: Option<Mp3Materials>,
    pub positions: AttributeArray<[f32; 3]>,
    pub normals: Normals,
    /// RGBA8 vertex colours (R first).
    pub colors: AttributeArray<[u8; 4]>,
    pub uvs: AttributeArray<[f32; 2]>,
    /// Raw short UVs (u16 pairs); Some iff header flag 0x4.
    pub short_uvs: Option<AttributeArray<[u16; 2]>>,
    /// The surface table's end offsets as stored (relative to the first surface).
    pub surface_end_offsets: Vec<u32>,
    /// Bytes after the surface table up to its section end.
    pub surface_table_padding: Vec<u8>,
    pub surfaces: Vec<Surface>,
    /// Sections beyond the ones the layout accounts for, kept verbatim.
    pub extra_sections: Vec<Vec<u8>>,
    /// Bytes after the last section (e.g. PAK padding).
    pub trailing: Vec<u8>,
    /// The options the file was parsed with (scales for short normals/UVs).
    #[serde(skip)]
    pub options: CmdlOptions,
    /// Non-fatal oddities, formatted like errors (`file: field at byte offset 0x..: …`).
    pub warnings: Vec<String>,
}

/// Game implied by a CMDL version; None for versions tevscope cannot read.
pub fn game_for_version(version: u32) -> Option<Game> {
    match version {
        2 => Some(Game::Mp1),
        3 | 4 => Some(Game::Mp2),
        5 => Some(Game::Mp3),
        _ => None,
    }
}

impl Cmdl {
    /// Parses a model with default options.
    pub fn parse(data: &[u8], file: &str) -> Result<Cmdl> {
        Self::parse_with(data, file, &CmdlOptions::default())
    }

    /// Parses a model. Display-list problems are recorded on the surface (and in
    /// `warnings`) unless `options.strict_display_lists`.
    pub fn parse_with(data: &[u8], file: &str, options: &CmdlOptions) -> Result<Cmdl> {
        let mut r = Reader::new(data, file);
        r.expect_u32("magic", MAGIC)?;
        let version_at = r.pos();
        let version = r.u32("version")?;
        let Some(game) = game_for_version(version) else {
            let why = match version {
                1 => "prototype models (version 1) are not supported",
                _ => "expected 2 (MP1), 3 (Echoes demo), 4 (MP2) or 5 (MP3)",
            };
            return Err(r.err_at(
                "version",
                version_at,
                ErrorKind::OutOfRange {
                    value: version.into(),
                    expected: why.into(),
                },
            ));
        };
        let flags = r.u32("flags")?;
        let aabb = Aabb::read(&mut r, "aabb")?;
        let s = r.count("data_section_count", 4)?;
        let m_at = r.pos();
        let m = r.u32("material_set_count")? as usize;
        let sizes = r.u32_vec("data_section_sizes", s)?;
        let short_uv_section = flags & FLAG_SHORT_UVS != 0;
        let f = usize::from(short_uv_section);
        // MP3 (§13.1): the sets share one section (Default) or have one each (Alt); the
        // surface count at the table each layout predicts decides.
        let mp3_layout = (game == Game::Mp3).then(|| {
            let fits = |k: usize| {
                let table = k + 4 + f;
                if table >= s {
                    return false;
                }
                let at = 0x2Cusize + 4 * s;
                let start = at.next_multiple_of(32)
                    + sizes[..table].iter().map(|&z| z as usize).sum::<usize>();
                let c = data
                    .get(start..start + 4)
                    .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]) as usize);
                c.is_some_and(|c| (table + 1).checked_add(c) == Some(s))
            };
            if fits(1) || m <= 1 {
                SetLayout::OneSection
            } else if fits(m) {
                SetLayout::SectionPerSet
            } else {
                SetLayout::OneSection
            }
        });
        let material_sections = match mp3_layout {
            Some(SetLayout::OneSection) => 1,
            _ => m,
        };
        // Material sets, four arrays, optional short UVs, surface table.
        let fixed = material_sections as u64 + 5 + short_uv_section as u64;
        if (s as u64) < fixed {
            return Err(r.err_at(
                "material_set_count",
                m_at,
                ErrorKind::Invalid(format!(
                    "{s} data sections cannot hold {m} material set(s), the vertex arrays and the surface table"
                )),
            ));
        }
        let first = r.pos().next_multiple_of(32);
        if first > data.len() {
            return Err(r.err(
                "header_padding",
                ErrorKind::Truncated {
                    needed: (first - r.pos()) as u64,
                    available: r.remaining() as u64,
                },
            ));
        }
        let header_padding = r.bytes("header_padding", first - r.pos())?.to_vec();
        let mut offsets = Vec::with_capacity(s);
        let mut at = first as u64;
        for (i, &size) in sizes.iter().enumerate() {
            offsets.push(at as usize);
            at += size as u64;
            if at > data.len() as u64 {
                return Err(r.err_at(
                    &format!("data_section_sizes[{i}]"),
                    0x2C + 4 * i,
                    ErrorKind::OffsetOutOfRange {
                        target: at,
                        size: data.len() as u64,
                    },
                ));
            }
        }
        let end = at as usize;
        let section =
            |i: usize| r.slice(&format!("data_section[{i}]"), offsets[i], sizes[i] as usize);

        let mut warnings = Vec::new();
        let mut material_sets = Vec::with_capacity(if mp3_layout.is_some() { 0 } else { m });
        let material_bytes: u64 = sizes[..material_sections.min(s)]
            .iter()
            .map(|&z| u64::from(z))
            .sum();
        if mp3_layout.is_some() && m as u64 > material_bytes / 4 {
            return Err(r.err_at(
                "material_set_count",
                m_at,
                ErrorKind::CountTooLarge {
                    count: m as u64,
                    element_size: 4,
                    remaining: material_bytes,
                },
            ));
        }
        let mp3_materials = match mp3_layout {
            Some(layout) => Some(Mp3Materials::parse(
                (0..material_sections)
                    .map(section)
                    .collect::<Result<Vec<_>>>()?,
                m,
                layout,
                &mut warnings,
            )?),
            None => None,
        };
        for i in (0..m).filter(|_| mp3_layout.is_none()) {
            let mut sr = section(i)?;
            let label = format!("material_set[{i}]");
            material_sets.push(MaterialSet::parse(
                &mut sr,
                game,
                &options.material,
                &label,
                &mut warnings,
            )?);
        }
        let m0 = material_sections;
        let positions = AttributeArray::parse(&mut section(m0)?);
        let normals = Normals::parse(&mut section(m0 + 1)?, flags & FLAG_SHORT_NORMALS != 0);
        let colors = AttributeArray::parse(&mut section(m0 + 2)?);
        let uvs = AttributeArray::parse(&mut section(m0 + 3)?);
        let mut next = m0 + 4;
        let short_uvs = if short_uv_section {
            next += 1;
            Some(AttributeArray::parse(&mut section(m0 + 4)?))
        } else {
            None
        };
        let table_index = next;
        let mut tr = section(table_index)?;
        let (surface_end_offsets, surface_table_padding) =
            SurfaceTable::read(&mut tr).within(|| "surface_offsets".into())?;
        let c = surface_end_offsets.len();
        let needed = table_index + 1 + c;
        if s < needed {
            return Err(FormatError::new(
                file,
                "data_section_count",
                0x24,
                ErrorKind::Invalid(format!(
                    "{s} data sections, but the layout needs {needed} ({c} surfaces)"
                )),
            ));
        }
        if s > needed {
            warnings.push(warning(
                file,
                "data_section_count",
                0x24,
                format!(
                    "{} data section(s) beyond the {needed} the layout uses (kept verbatim)",
                    s - needed
                ),
            ));
        }
        SurfaceTable::check(
            &surface_end_offsets,
            &sizes[table_index + 1..needed],
            file,
            "surface_offsets",
            offsets[table_index] as u64,
            &mut warnings,
        );
        let set_count = mp3_materials
            .as_ref()
            .map_or(material_sets.len(), |x| x.sets.len());
        if set_count == 0 && c > 0 {
            return Err(FormatError::new(
                file,
                "material_set_count",
                m_at as u64,
                ErrorKind::Invalid("surfaces need material set 0, but there are no sets".into()),
            ));
        }
        let no_sets = MaterialSet {
            game,
            texture_ids: Vec::new(),
            materials: Vec::new(),
            padding: Vec::new(),
        };
        let set0 = material_sets.first().unwrap_or(&no_sets);
        let layouts = match &mp3_materials {
            Some(mp3) => mp3.vertex_layouts(&options.decode, file, &mut warnings),
            None => material_layouts(
                set0,
                short_uvs.is_some(),
                options,
                file,
                offsets.first().map_or(0, |&o| o as u64),
                &mut warnings,
            ),
        };
        let counts = ArrayCounts {
            positions: positions.len(),
            normals: normals.len(),
            colors: colors.len(),
            uvs: uvs.len(),
            short_uvs: short_uvs.as_ref().map_or(0, |a| a.len()),
        };
        let mut surfaces = Vec::with_capacity(c);
        for j in 0..c {
            let mut sr = section(table_index + 1 + j)?;
            let label = format!("surface[{j}]");
            let surface = Surface::parse(
                &mut sr,
                game,
                &layouts,
                &counts,
                short_uvs.is_some(),
                options,
                &label,
                &mut warnings,
            )
            .within(|| label.clone())?;
            if let Some(e) = &surface.mesh.error {
                if options.strict_display_lists {
                    return Err(e.clone());
                }
                warnings.push(format!("{e} (surface decoding stopped there)"));
            }
            surfaces.push(surface);
        }
        let extra_sections = (needed..s)
            .map(|i| section(i).map(|x| x.data().to_vec()))
            .collect::<Result<_>>()?;
        Ok(Cmdl {
            version,
            flags,
            aabb,
            header_padding,
            material_sets,
            mp3_materials,
            positions,
            normals,
            colors,
            uvs,
            short_uvs,
            surface_end_offsets,
            surface_table_padding,
            surfaces,
            extra_sections,
            trailing: data[end..].to_vec(),
            options: *options,
            warnings,
        })
    }

    /// The game this model's version belongs to.
    pub fn game(&self) -> Game {
        game_for_version(self.version).unwrap_or(Game::Mp1)
    }

    /// Header flags as written (bits 0x2 / 0x4 follow the normal format and short-UV array).
    pub fn effective_flags(&self) -> u32 {
        let mut f = self.flags & !(FLAG_SHORT_NORMALS | FLAG_SHORT_UVS);
        if matches!(self.normals, Normals::Short(_)) {
            f |= FLAG_SHORT_NORMALS;
        }
        if self.short_uvs.is_some() {
            f |= FLAG_SHORT_UVS;
        }
        f
    }

    /// Every data section's bytes, in file order, with its name.
    pub fn section_bytes(&self) -> Vec<(String, Vec<u8>)> {
        let mut out = Vec::new();
        for (i, set) in self.material_sets.iter().enumerate() {
            out.push((format!("material_set_{i}"), set.to_bytes()));
        }
        if let Some(mp3) = &self.mp3_materials {
            let one = mp3.layout == SetLayout::OneSection && mp3.sets.len() > 1;
            for (i, bytes) in mp3.sections().into_iter().enumerate() {
                let name = if one {
                    "material_sets".to_string()
                } else {
                    format!("material_set_{i}")
                };
                out.push((name, bytes));
            }
        }
        out.push(("positions".into(), self.positions.to_bytes()));
        out.push(("normals".into(), self.normals.to_bytes()));
        out.push(("colors".into(), self.colors.to_bytes()));
        out.push(("uvs".into(), self.uvs.to_bytes()));
        if let Some(s) = &self.short_uvs {
            out.push(("lightmap_uvs".into(), s.to_bytes()));
        }
        out.push((
            "surface_offsets".into(),
            SurfaceTable::to_bytes(&self.surface_end_offsets, &self.surface_table_padding),
        ));
        for (j, s) in self.surfaces.iter().enumerate() {
            let mut w = Writer::new();
            s.write(&mut w);
            out.push((format!("surface_{j}"), w.into_inner()));
        }
        for (k, x) in self.extra_sections.iter().enumerate() {
            out.push((format!("extra_{k}"), x.clone()));
        }
        out
    }

    /// Section names, offsets and sizes as written.
    pub fn data_sections(&self) -> Vec<SectionInfo> {
        let sections = self.section_bytes();
        let mut offset = self.header_len(sections.len());
        sections
            .into_iter()
            .enumerate()
            .map(|(index, (name, bytes))| {
                let info = SectionInfo {
                    index,
                    name,
                    offset,
                    size: bytes.len(),
                };
                offset += bytes.len();
                info
            })
            .collect()
    }

    /// Header length including padding: the stored padding when it still aligns, else zeros.
    fn header_padding_for(&self, section_count: usize) -> Vec<u8> {
        let raw = 0x2C + 4 * section_count;
        if (raw + self.header_padding.len()).is_multiple_of(32) {
            self.header_padding.clone()
        } else {
            vec![0; raw.next_multiple_of(32) - raw]
        }
    }

    fn header_len(&self, section_count: usize) -> usize {
        0x2C + 4 * section_count + self.header_padding_for(section_count).len()
    }

    /// Serialises the model. For a parsed, unmodified model this reproduces the input bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        let sections = self.section_bytes();
        let mut w = Writer::new();
        w.u32(MAGIC);
        w.u32(self.version);
        w.u32(self.effective_flags());
        self.aabb.write(&mut w);
        w.u32(sections.len() as u32);
        w.u32(self.material_set_count() as u32);
        sections.iter().for_each(|(_, b)| w.u32(b.len() as u32));
        w.bytes(&self.header_padding_for(sections.len()));
        sections.iter().for_each(|(_, b)| w.bytes(b));
        w.bytes(&self.trailing);
        w.into_inner()
    }

    /// Every TXTR ID the materials name (MP1/MP2 set lists, MP3 PASS textures), sorted,
    /// without repeats.
    pub fn texture_ids(&self) -> Vec<u64> {
        let mut ids: Vec<u64> = self
            .material_sets
            .iter()
            .flat_map(|set| set.texture_ids.iter().map(|&id| u64::from(id)))
            .chain(
                self.mp3_materials
                    .iter()
                    .flat_map(|m| &m.sets)
                    .flat_map(|s| &s.materials)
                    .flat_map(|m| m.passes())
                    .filter(|p| p.has_texture())
                    .map(|p| p.texture_id),
            )
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Material sets in the file (MP1/MP2 or MP3).
    pub fn material_set_count(&self) -> usize {
        self.mp3_materials
            .as_ref()
            .map_or(self.material_sets.len(), |m| m.sets.len())
    }

    /// After edits: pads every section with zeros to 32 bytes, recomputes the surface end
    /// offsets, display-list size words and UV block sizes.
    pub fn refresh_layout(&mut self) {
        if let Some(m) = &mut self.mp3_materials {
            m.repad();
        }
        for set in &mut self.material_sets {
            set.materials.iter_mut().for_each(|m| m.refresh_uv_block());
            set.repad();
        }
        self.positions.repad();
        self.normals.repad();
        self.colors.repad();
        self.uvs.repad();
        if let Some(s) = &mut self.short_uvs {
            s.repad();
        }
        refresh_surface_layout(
            &mut self.surfaces,
            &mut self.surface_end_offsets,
            &mut self.surface_table_padding,
        );
    }

    /// Normal `i` as floats (short normals scaled per the parse options).
    pub fn normal(&self, i: usize) -> Option<[f32; 3]> {
        self.normals.get(i, self.options.short_normal_divisor)
    }

    /// All normals as floats.
    pub fn normals_f32(&self) -> Vec<[f32; 3]> {
        (0..self.normals.len())
            .filter_map(|i| self.normal(i))
            .collect()
    }

    /// Short UV `i` as floats (u16 / 32768, or s16 / 32768 with the alt option).
    pub fn short_uv(&self, i: usize) -> Option<[f32; 2]> {
        let raw = self.short_uvs.as_ref()?.values.get(i)?;
        Some(short_uv_value(*raw, self.options.short_uv_signed))
    }

    /// All short UVs as floats (empty without a short-UV section).
    pub fn short_uvs_f32(&self) -> Vec<[f32; 2]> {
        let n = self.short_uvs.as_ref().map_or(0, |a| a.len());
        (0..n).filter_map(|i| self.short_uv(i)).collect()
    }

    /// TEX`t` coordinate of a vertex reference in `surface` (TEX0 may read the short array).
    pub fn tex_coord(&self, surface: &Surface, v: &VertexRef, t: usize) -> Option<[f32; 2]> {
        let i = v.tex.get(t).copied().flatten()? as usize;
        let base = &surface.array_base;
        if t == 0 && surface.mesh.layout.tex0_source == UvSource::Short {
            self.short_uv(base.short_uv + i)
        } else {
            self.uvs.values.get(base.uv + i).copied()
        }
    }

    /// Looks up a vertex reference's values. Decoded meshes only hold in-range indices; an
    /// index made invalid by later edits reads as zero / None instead of panicking.
    pub fn resolve_vertex(&self, surface: &Surface, v: &VertexRef) -> ResolvedVertex {
        let base = &surface.array_base;
        let color = |c: Option<u16>| {
            c.and_then(|i| self.colors.values.get(base.color + i as usize).copied())
        };
        ResolvedVertex {
            position: self
                .positions
                .values
                .get(base.position + v.position as usize)
                .copied()
                .unwrap_or_default(),
            normal: v.normal.and_then(|i| self.normal(base.normal + i as usize)),
            colors: [color(v.colors[0]), color(v.colors[1])],
            tex: [0, 1, 2, 3, 4, 5, 6, 7].map(|t| self.tex_coord(surface, v, t)),
            matrix_indices: v.matrix_indices,
        }
    }

    /// [`Cmdl::resolve_vertex`] for every unique vertex of a surface, in mesh order, so
    /// `surface.mesh.triangles` index the result directly.
    pub fn resolved_vertices(&self, surface: &Surface) -> Vec<ResolvedVertex> {
        surface
            .mesh
            .vertices
            .iter()
            .map(|v| self.resolve_vertex(surface, v))
            .collect()
    }

    /// The surface's stored AABB, or one computed from the positions it references.
    pub fn surface_aabb(&self, surface: &Surface) -> Option<Aabb> {
        surface.stored_aabb().or_else(|| {
            Aabb::from_points(surface.mesh.vertices.iter().filter_map(|v| {
                let i = surface.array_base.position + v.position as usize;
                self.positions.values.get(i).copied()
            }))
        })
    }

    pub fn triangle_count(&self) -> usize {
        self.surfaces.iter().map(|s| s.mesh.triangles.len()).sum()
    }

    /// Element counts of the arrays (padding elements included).
    pub fn array_counts(&self) -> ArrayCounts {
        ArrayCounts {
            positions: self.positions.len(),
            normals: self.normals.len(),
            colors: self.colors.len(),
            uvs: self.uvs.len(),
            short_uvs: self.short_uvs.as_ref().map_or(0, |a| a.len()),
        }
    }

    /// Surfaces whose display list could not be fully decoded, with the error.
    pub fn surface_errors(&self) -> impl Iterator<Item = (usize, &FormatError)> {
        self.surfaces
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.mesh.error.as_ref().map(|e| (i, e)))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn rejects_bad_magic_and_versions() {
        let mut b = vec![0u8; 64];
        assert!(matches!(
            Cmdl::parse(&b, "x").unwrap_err().kind,
            ErrorKind::BadMagic { .. }
        ));
        b[..4].copy_from_slice(&MAGIC.to_be_bytes());
        b[7] = 6;
        let e = Cmdl::parse(&b, "x").unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("version", 4));
        // Version 5 (MP3) is read: an empty header fails at its section layout instead.
        b[7] = 5;
        let e = Cmdl::parse(&b, "x").unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("material_set_count", 0x28));
    }
}
