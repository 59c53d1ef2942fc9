//! PAK archives (formats.md §1): MP1/MP2 version 3.5, its 64-bit-ID variant from the
//! MP3 E3 prototype, and MP3 version 2 (STRG/RSHD/DATA sections, CMPD compression).
//!
//! [`Pak::parse`] reads only the tables; [`Pak::read`] extracts one resource from the
//! archive bytes on demand (decompressing it), so opening a 100 MB PAK costs nothing but
//! its table. [`PakBuilder`] writes MP1, MP2 and MP3 archives deterministically.
//!
//! Every declared size is checked before anything is allocated: decompressed sizes are
//! capped at [`MAX_DECOMPRESSED_SIZE`] (the codecs are in [`super::compression`]), buffers are pre-sized to at most 64× the
//! compressed bytes and grow only as real output arrives.

use std::collections::HashMap;
use std::sync::Arc;

use super::compression::{
    LZO_SEGMENT_SIZE, MAX_DECOMPRESSED_SIZE, check_declared, compress_cmpd, compress_lzo,
    compress_zlib, decompress_cmpd, decompress_lzo_segments, decompress_zlib, lzo_segment_lengths,
    read_cmpd_headers,
};
use super::{ErrorKind, FormatError, Game, Reader, Result, Writer, asset_id_string, fourcc_string};

/// Version word of MP1/MP2 PAKs (u16 3, u16 5).
pub const VERSION_3_5: u32 = 0x0003_0005;

/// The table layout of a PAK.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum PakLayout {
    /// Version 3.5 with 32-bit asset IDs (MP1, MP2).
    V3_5,
    /// Version 3.5 tables with 64-bit asset IDs (MP3 E3 prototype), detected by shape.
    V3_5Wide,
    /// Version 2 (MP3, Wii): header, section table, STRG/RSHD/DATA.
    V2,
}

/// How a compressed resource is encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Compression {
    /// u32 size + one zlib stream (MP1, Echoes demo).
    Zlib,
    /// u32 size + s16-length LZO1X segments (MP2).
    LzoSegments,
    /// `CMPD` block list (MP3).
    Cmpd,
}

impl Compression {
    /// Name as the conformance JSONs spell it.
    pub fn name(self) -> &'static str {
        match self {
            Compression::Zlib => "zlib",
            Compression::LzoSegments => "lzo1x segments",
            Compression::Cmpd => "cmpd",
        }
    }
}

/// What decided [`Pak::game`]; MP1 and MP2 share one layout, so this is a judgement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum GameEvidence {
    /// Given by the caller ([`Pak::parse_as`]).
    Given,
    /// The layout itself (version 2 or 64-bit IDs → MP3).
    Layout,
    /// Version field of an uncompressed CMDL or MREA in the archive.
    Content,
    /// Codec of the compressed resources (zlib → MP1, LZO → MP2).
    Compression,
    /// Nothing to go on: MP1 assumed.
    Default,
}

/// A named-resource entry: a name for (type, ID).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedEntry {
    pub fourcc: [u8; 4],
    pub id: u64,
    pub name: String,
}

/// One row of the resource table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PakEntry {
    /// Position in the resource table.
    pub index: usize,
    /// Compressed flag as stored (0 raw, 1 compressed).
    pub flag: u32,
    pub fourcc: [u8; 4],
    pub id: u64,
    /// Stored size, including the 0xFF padding to 32 (64 in MP3) bytes.
    pub size: u32,
    /// Offset as stored: absolute in version 3.5, relative to DATA in version 2.
    pub offset: u32,
    /// Absolute offset of the stored bytes in the archive.
    pub data_offset: u64,
}

impl PakEntry {
    /// Whether the stored bytes are compressed.
    pub fn compressed(&self) -> bool {
        self.flag != 0
    }
}

/// MP3 (version 2) header fields kept for the writer and for `info`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V2Header {
    pub header_size: u32,
    pub md5: [u8; 16],
    /// Section table: FourCC and size, in file order.
    pub sections: Vec<([u8; 4], u32)>,
    /// Absolute offset of the DATA section.
    pub data_start: u64,
}

/// A parsed PAK table. The archive bytes are passed again to [`Pak::read`].
#[derive(Debug, Clone)]
pub struct Pak {
    /// Label used in errors.
    pub file: String,
    pub layout: PakLayout,
    pub game: Game,
    pub game_evidence: GameEvidence,
    /// Header word 0x04 of version 3.5 (unknown, normally 0).
    pub unused: u32,
    pub named: Vec<NamedEntry>,
    pub entries: Vec<PakEntry>,
    /// Offset just past the resource table (before its padding).
    pub table_end: u64,
    /// Codec of compressed version-3.5 resources, decided once per archive.
    pub codec: Option<Compression>,
    pub v2: Option<V2Header>,
    first_by_id: HashMap<u64, usize>,
    first_by_id_type: HashMap<(u64, [u8; 4]), usize>,
}

/// How many stored bytes of a payload [`Pak::payload_header_info`] needs: the size field,
/// a zlib header, or a CMPD block table of up to 127 blocks.
pub const PAYLOAD_HEADER: usize = 0x400;

/// What a stored resource payload looks like, without decompressing it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PayloadInfo {
    pub compression: Option<Compression>,
    /// The decompressed size the payload declares (u32 field, or the sum of CMPD blocks).
    pub declared_size: Option<u64>,
    /// First two bytes of a zlib stream.
    pub zlib_header: Option<[u8; 2]>,
    /// s16 lengths of the LZO segments (negative = stored raw).
    pub lzo_segments: Vec<i16>,
    /// CMPD blocks: (flag, compressed size, decompressed size).
    pub cmpd_blocks: Vec<(u8, u32, u32)>,
}

impl Pak {
    /// Parses the tables of a PAK, detecting layout and game.
    pub fn parse(data: &[u8], file: &str) -> Result<Pak> {
        Self::parse_as(data, file, None)
    }

    /// Like [`Pak::parse`], but with the game given (MP1 and MP2 share a layout).
    pub fn parse_as(data: &[u8], file: &str, game: Option<Game>) -> Result<Pak> {
        let sample = |e: &PakEntry| {
            let start = usize::try_from(e.data_offset).unwrap_or(usize::MAX);
            let end = start.saturating_add((e.size as usize).min(SAMPLE_BYTES));
            data.get(start..end.min(data.len())).unwrap_or(&[]).to_vec()
        };
        Self::parse_head(data, data.len() as u64, file, game, &sample)
    }

    /// Parses the tables from `head`, the first bytes of an archive of `total_len` bytes
    /// (the whole archive, or a prefix holding its tables); `sample` gives the first bytes
    /// of an entry's stored payload for deciding the codec and game. This is how a PAK
    /// inside a disc image is opened without reading its data.
    pub fn parse_head(
        head: &[u8],
        total_len: u64,
        file: &str,
        game: Option<Game>,
        sample: &dyn Fn(&PakEntry) -> Vec<u8>,
    ) -> Result<Pak> {
        let data = head;
        let mut r = Reader::new(data, file);
        let version = r.u32("version")?;
        let mut pak = match version {
            // Shape decides the ID width: a strict 32-bit parse, else a strict 64-bit one,
            // else the lenient 32-bit parse whose error (if any) is reported.
            VERSION_3_5 => parse_v35(data, total_len, file, false, true)
                .or_else(|_| parse_v35(data, total_len, file, true, true))
                .or_else(|_| parse_v35(data, total_len, file, false, false))?,
            2 => parse_v2(data, total_len, file)?,
            _ => {
                return Err(r.err_at(
                    "version",
                    0,
                    ErrorKind::BadMagic {
                        expected: VERSION_3_5.into(),
                        found: version.into(),
                    },
                ));
            }
        };
        pak.detect_game(sample, game);
        for (i, e) in pak.entries.iter().enumerate() {
            pak.first_by_id.entry(e.id).or_insert(i);
            pak.first_by_id_type.entry((e.id, e.fourcc)).or_insert(i);
        }
        Ok(pak)
    }

    /// Whether `data` starts like a PAK (version 3.5 or 2).
    pub fn sniff(data: &[u8]) -> bool {
        match data.get(..4) {
            Some(&[0, 3, 0, 5]) => true,
            Some(&[0, 0, 0, 2]) => data.len() >= 0x40,
            _ => false,
        }
    }

    fn detect_game(&mut self, sample: &dyn Fn(&PakEntry) -> Vec<u8>, given: Option<Game>) {
        if self.layout != PakLayout::V2 {
            // One codec per archive, by majority over a sample of compressed payloads: an
            // LZO segment length can pass the zlib header check by chance (0x081D does), so
            // a payload counts as zlib only if it also starts to inflate.
            let (mut zlib, mut lzo) = (0usize, 0usize);
            for e in self
                .entries
                .iter()
                .filter(|e| e.compressed())
                .take(CODEC_SAMPLE)
            {
                let payload = sample(e);
                if inflates(payload.get(4..).unwrap_or(&[])) {
                    zlib += 1;
                } else {
                    lzo += 1;
                }
            }
            if zlib + lzo > 0 {
                self.codec = Some(if zlib > lzo {
                    Compression::Zlib
                } else {
                    Compression::LzoSegments
                });
            }
        }
        // Only MP2 stores LZO segments, so they decide; zlib is MP1's codec but also the
        // Echoes demo's, whose resources then name the game; with nothing compressed, the
        // resources' versions decide.
        let (game, evidence) = if let Some(g) = given {
            (g, GameEvidence::Given)
        } else if self.layout != PakLayout::V3_5 {
            (Game::Mp3, GameEvidence::Layout)
        } else if self.codec == Some(Compression::LzoSegments) {
            (Game::Mp2, GameEvidence::Compression)
        } else if let Some(g) = self.content_game(sample) {
            (g, GameEvidence::Content)
        } else if self.codec.is_some() {
            (Game::Mp1, GameEvidence::Compression)
        } else {
            (Game::Mp1, GameEvidence::Default)
        };
        self.game = game;
        self.game_evidence = evidence;
    }

    /// The game the resources' own version fields name, by majority over (a sample of) the
    /// CMDL, MREA, MLVL and STRG resources; compressed ones are decompressed only as far as
    /// their header. None when they are absent or split evenly.
    fn content_game(&self, sample: &dyn Fn(&PakEntry) -> Vec<u8>) -> Option<Game> {
        let (mut mp1, mut mp2) = (0usize, 0usize);
        let candidates = self
            .entries
            .iter()
            .filter(|e| matches!(&e.fourcc, b"CMDL" | b"MREA" | b"MLVL" | b"STRG"))
            .take(CONTENT_SAMPLE);
        for e in candidates {
            let stored = sample(e);
            let head = if e.compressed() {
                self.codec
                    .and_then(|c| decompress_prefix(stored.get(4..).unwrap_or(&[]), c))
            } else {
                stored.get(..8).map(<[u8]>::to_vec)
            };
            let Some(head) = head.filter(|h| h.len() >= 8) else {
                continue;
            };
            let magic = u32::from_be_bytes([head[0], head[1], head[2], head[3]]);
            let version = u32::from_be_bytes([head[4], head[5], head[6], head[7]]);
            match version_game(&e.fourcc, magic, version) {
                Some(Game::Mp1) => mp1 += 1,
                Some(Game::Mp2) => mp2 += 1,
                _ => {}
            }
        }
        match mp1.cmp(&mp2) {
            std::cmp::Ordering::Greater => Some(Game::Mp1),
            std::cmp::Ordering::Less => Some(Game::Mp2),
            std::cmp::Ordering::Equal => None,
        }
    }

    /// Whether asset IDs are 64-bit.
    pub fn wide_ids(&self) -> bool {
        self.layout != PakLayout::V3_5
    }

    /// The resource table, in file order (duplicates included).
    pub fn entries(&self) -> &[PakEntry] {
        &self.entries
    }

    /// The named-resource table, in file order.
    pub fn named(&self) -> &[NamedEntry] {
        &self.named
    }

    /// The first entry with asset ID `id` (duplicates: first wins).
    pub fn find_by_id(&self, id: u64) -> Option<&PakEntry> {
        self.first_by_id.get(&id).map(|&i| &self.entries[i])
    }

    /// The first entry with `id` and, if given, type `fourcc`.
    pub fn find(&self, id: u64, fourcc: Option<[u8; 4]>) -> Option<&PakEntry> {
        match fourcc {
            Some(f) => self
                .first_by_id_type
                .get(&(id, f))
                .map(|&i| &self.entries[i]),
            None => self.find_by_id(id),
        }
    }

    /// The entry a named resource refers to (exact name first, then ignoring case).
    pub fn find_by_name(&self, name: &str) -> Option<&PakEntry> {
        let named = self.named.iter().find(|n| n.name == name).or_else(|| {
            self.named
                .iter()
                .find(|n| n.name.eq_ignore_ascii_case(name))
        })?;
        self.find(named.id, Some(named.fourcc))
    }

    /// The first name the named table gives this entry's (type, ID).
    pub fn name_of(&self, entry: &PakEntry) -> Option<&str> {
        self.named
            .iter()
            .find(|n| n.id == entry.id && n.fourcc == entry.fourcc)
            .map(|n| n.name.as_str())
    }

    /// `0x1A000001.TXTR`: how tevscope names a resource (extract uses it as file name).
    pub fn entry_name(&self, entry: &PakEntry) -> String {
        format!(
            "{}.{}",
            asset_id_string(entry.id, self.wide_ids()),
            fourcc_string(entry.fourcc)
        )
    }

    /// `file.pak:0x1A000001.TXTR`: the label errors inside a resource carry.
    pub fn entry_label(&self, entry: &PakEntry) -> String {
        format!("{}:{}", self.file, self.entry_name(entry))
    }

    /// The stored bytes of an entry (compressed or not, padding included).
    pub fn stored<'d>(&self, data: &'d [u8], entry: &PakEntry) -> Result<&'d [u8]> {
        let start = usize::try_from(entry.data_offset).unwrap_or(usize::MAX);
        start
            .checked_add(entry.size as usize)
            .and_then(|end| data.get(start..end))
            .ok_or_else(|| {
                FormatError::new(
                    &self.file,
                    format!("resource[{}].offset", entry.index),
                    entry.data_offset,
                    ErrorKind::OffsetOutOfRange {
                        target: entry.data_offset + u64::from(entry.size),
                        size: data.len() as u64,
                    },
                )
            })
    }

    /// How an entry is compressed, without decompressing it.
    pub fn compression_of(&self, data: &[u8], entry: &PakEntry) -> Option<Compression> {
        self.compression_in(self.stored(data, entry).unwrap_or(&[]), entry)
    }

    /// How an entry whose stored bytes are `payload` is compressed.
    fn compression_in(&self, payload: &[u8], entry: &PakEntry) -> Option<Compression> {
        if !entry.compressed() {
            return None;
        }
        Some(match self.layout {
            PakLayout::V2 if payload.starts_with(b"CMPD") => Compression::Cmpd,
            PakLayout::V2 => match payload.get(4..6) {
                Some(h) if is_zlib_header(h[0], h[1]) => Compression::Zlib,
                _ => Compression::LzoSegments,
            },
            _ => self.codec.unwrap_or(Compression::Zlib),
        })
    }

    /// Describes an entry's payload (codec, declared size, segments) without
    /// decompressing it.
    pub fn payload_info(&self, data: &[u8], entry: &PakEntry) -> Result<PayloadInfo> {
        if !entry.compressed() {
            return Ok(PayloadInfo::default());
        }
        self.describe_payload(self.stored(data, entry)?, entry, true)
    }

    /// [`Pak::payload_info`] from the first bytes of the payload only (at least
    /// [`PAYLOAD_HEADER`] of them, or all it has): the LZO segment lengths, which run through
    /// the whole payload, are not walked.
    pub fn payload_header_info(&self, prefix: &[u8], entry: &PakEntry) -> Result<PayloadInfo> {
        self.describe_payload(prefix, entry, false)
    }

    fn describe_payload(
        &self,
        payload: &[u8],
        entry: &PakEntry,
        segments: bool,
    ) -> Result<PayloadInfo> {
        let mut info = PayloadInfo::default();
        let Some(compression) = self.compression_in(payload, entry) else {
            return Ok(info);
        };
        info.compression = Some(compression);
        let label = self.entry_label(entry);
        let mut r = Reader::new(payload, &label);
        match compression {
            Compression::Cmpd => {
                let blocks = read_cmpd_headers(&mut r)?;
                info.declared_size = Some(blocks.iter().map(|b| u64::from(b.2)).sum());
                info.cmpd_blocks = blocks;
            }
            Compression::Zlib => {
                info.declared_size = Some(r.u32("decompressed_size")?.into());
                info.zlib_header = Some(r.array("zlib_header")?);
            }
            Compression::LzoSegments => {
                let declared = r.u32("decompressed_size")?;
                info.declared_size = Some(declared.into());
                if segments {
                    info.lzo_segments = lzo_segment_lengths(r.rest(), declared.into(), &label, 4)?;
                }
            }
        }
        Ok(info)
    }

    /// The resource's bytes, decompressed. Uncompressed entries return their stored
    /// bytes, padding included (the table does not record the unpadded size). Errors are
    /// labelled `file:0xID.TYPE`.
    pub fn read(&self, data: &[u8], entry: &PakEntry) -> Result<Vec<u8>> {
        self.decode(self.stored(data, entry)?, entry)
    }

    /// Decompresses `stored`, the stored bytes of `entry` (see [`Pak::read`]).
    pub fn decode(&self, stored: &[u8], entry: &PakEntry) -> Result<Vec<u8>> {
        let Some(compression) = self.compression_in(stored, entry) else {
            return Ok(stored.to_vec());
        };
        let label = self.entry_label(entry);
        match compression {
            Compression::Cmpd => decompress_cmpd(stored, &label),
            Compression::Zlib | Compression::LzoSegments => {
                let mut r = Reader::new(stored, &label);
                let declared = r.u32("decompressed_size")?;
                check_declared(&r, declared.into(), 0)?;
                if compression == Compression::Zlib {
                    decompress_zlib(r.rest(), declared as usize, &label, 4)
                } else {
                    decompress_lzo_segments(r.rest(), declared as usize, &label, 4)
                }
            }
        }
    }

    /// A builder holding every entry's stored bytes verbatim, which rebuilds this
    /// archive byte for byte when its data is laid out in table order (as tools write it).
    pub fn to_builder(&self, data: &[u8]) -> Result<PakBuilder> {
        let mut b = PakBuilder::new(self.game);
        b.layout = self.layout;
        b.unused = self.unused;
        if let Some(v2) = &self.v2 {
            b.md5 = v2.md5;
        }
        for n in &self.named {
            b.add_name(n.fourcc, n.id, &n.name);
        }
        for e in &self.entries {
            b.add_stored(e.fourcc, e.id, e.flag, self.stored(data, e)?);
        }
        Ok(b)
    }
}

/// The bytes of an opened archive: owned, or a read-only view such as a memory map (so a
/// large PAK is listed and read on demand without being loaded whole).
pub type ArchiveBytes = Arc<dyn AsRef<[u8]> + Send + Sync>;

/// An archive read by ranges instead of held as one slice: a PAK inside a disc image, read
/// through the image's (possibly compressed) reader.
pub trait RangeSource: Send + Sync {
    /// The archive's size in bytes.
    fn len(&self) -> u64;
    /// `len` bytes at `offset` (the caller keeps them inside [`RangeSource::len`]).
    fn read_range(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>>;
    /// Whether the archive has no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Where an open archive's bytes are.
#[derive(Clone)]
enum ArchiveData {
    Whole(ArchiveBytes),
    Ranged(Arc<dyn RangeSource>),
}

/// A PAK together with its bytes, for callers that keep an archive open.
#[derive(Clone)]
pub struct PakArchive {
    data: ArchiveData,
    pub pak: Pak,
}

impl std::fmt::Debug for PakArchive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PakArchive")
            .field("bytes", &self.len())
            .field("pak", &self.pak)
            .finish()
    }
}

/// The first table read of a ranged archive, and the most it grows to: retail tables are
/// well under a megabyte, and a table claiming more is refused rather than read.
const HEAD_FIRST: u64 = 64 << 10;
const HEAD_MAX: u64 = 64 << 20;

/// How much of a payload game detection looks at: the first LZO segment at most.
const SAMPLE_BYTES: usize = 2 + 0x8000;

impl PakArchive {
    /// Parses `data` (see [`Pak::parse`]).
    pub fn new(data: Vec<u8>, file: &str) -> Result<Self> {
        Self::from_bytes(Arc::new(data), file)
    }

    /// Parses an archive held by any byte view (e.g. a memory map).
    pub fn from_bytes(data: ArchiveBytes, file: &str) -> Result<Self> {
        let pak = Pak::parse((*data).as_ref(), file)?;
        Ok(Self {
            data: ArchiveData::Whole(data),
            pak,
        })
    }

    /// Opens an archive read by ranges: only its tables (growing the read until they fit)
    /// and a few payload prefixes for the game are read now; resources are read when asked.
    pub fn from_ranges(source: Arc<dyn RangeSource>, file: &str) -> Result<Self> {
        let total = source.len();
        let io_err = |at: u64, e: std::io::Error| {
            FormatError::new(
                file,
                "data",
                at,
                ErrorKind::Invalid(format!("cannot read: {e}")),
            )
        };
        let sample = |e: &PakEntry| {
            let len = (e.size as usize).min(SAMPLE_BYTES);
            source.read_range(e.data_offset, len).unwrap_or_default()
        };
        let mut want = HEAD_FIRST.min(total);
        loop {
            let head = source
                .read_range(0, want as usize)
                .map_err(|e| io_err(0, e))?;
            match Pak::parse_head(&head, total, file, None, &sample) {
                Ok(pak) => {
                    return Ok(Self {
                        data: ArchiveData::Ranged(source),
                        pak,
                    });
                }
                // The tables may run past what was read: read more, up to the whole
                // archive or the cap.
                Err(e) if want < total && want < HEAD_MAX && ran_short(&e, want) => {
                    want = (want * 4).min(total).min(HEAD_MAX);
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The archive's size in bytes.
    pub fn len(&self) -> u64 {
        match &self.data {
            ArchiveData::Whole(b) => (**b).as_ref().len() as u64,
            ArchiveData::Ranged(r) => r.len(),
        }
    }

    /// Whether the archive has no bytes (never true of a parsed one).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The whole archive: borrowed when held whole, else read (for reports and edits that
    /// need every byte; listing and opening resources never call it).
    pub fn bytes(&self) -> Result<std::borrow::Cow<'_, [u8]>> {
        match &self.data {
            ArchiveData::Whole(b) => Ok(std::borrow::Cow::Borrowed((**b).as_ref())),
            ArchiveData::Ranged(r) => {
                let len = usize::try_from(r.len()).unwrap_or(usize::MAX);
                r.read_range(0, len)
                    .map(std::borrow::Cow::Owned)
                    .map_err(|e| {
                        FormatError::new(
                            &self.pak.file,
                            "data",
                            0,
                            ErrorKind::Invalid(format!("cannot read: {e}")),
                        )
                    })
            }
        }
    }

    /// The stored (still compressed) bytes of `entry`.
    pub fn stored(&self, entry: &PakEntry) -> Result<std::borrow::Cow<'_, [u8]>> {
        match &self.data {
            ArchiveData::Whole(b) => self
                .pak
                .stored((**b).as_ref(), entry)
                .map(std::borrow::Cow::Borrowed),
            ArchiveData::Ranged(r) => r
                .read_range(entry.data_offset, entry.size as usize)
                .map(std::borrow::Cow::Owned)
                .map_err(|e| {
                    FormatError::new(
                        self.pak.entry_label(entry),
                        "data",
                        entry.data_offset,
                        ErrorKind::Invalid(format!("cannot read: {e}")),
                    )
                }),
        }
    }

    /// The first `len` stored bytes of `entry` (all of them when it is shorter): what
    /// [`Pak::payload_header_info`] reads.
    pub fn stored_prefix(
        &self,
        entry: &PakEntry,
        len: usize,
    ) -> Result<std::borrow::Cow<'_, [u8]>> {
        let short = PakEntry {
            size: entry.size.min(u32::try_from(len).unwrap_or(u32::MAX)),
            ..entry.clone()
        };
        self.stored(&short)
    }

    /// The decompressed bytes of `entry`.
    pub fn read(&self, entry: &PakEntry) -> Result<Vec<u8>> {
        self.pak.decode(&self.stored(entry)?, entry)
    }

    /// The decompressed bytes of the first resource with `id` (and type), if present.
    pub fn read_id(&self, id: u64, fourcc: Option<[u8; 4]>) -> Option<Result<Vec<u8>>> {
        self.pak.find(id, fourcc).map(|e| self.read(e))
    }
}

/// Whether a table parse of a `read`-byte head failed because the head ended too soon.
fn ran_short(e: &FormatError, read: u64) -> bool {
    match e.kind {
        ErrorKind::Truncated { .. } | ErrorKind::CountTooLarge { .. } => true,
        ErrorKind::OffsetOutOfRange { target, .. } => target > read,
        _ => false,
    }
}

/// How many compressed payloads decide an archive's codec, and how many versioned resources
/// its game: enough to outvote a chance match, few enough that listing stays instant.
const CODEC_SAMPLE: usize = 32;
const CONTENT_SAMPLE: usize = 64;

/// The game a resource's version field names (`formats.md` §2.1, §9; MLVL and STRG headers).
fn version_game(fourcc: &[u8; 4], magic: u32, version: u32) -> Option<Game> {
    match (fourcc, magic, version) {
        (b"CMDL", 0xDEAD_BABE, 2)
        | (b"MREA", 0xDEAD_BEEF, 0xC | 0xF)
        | (b"MLVL", super::mlvl::MAGIC, 0xD | 0x11)
        | (b"STRG", super::strg::MAGIC, 0) => Some(Game::Mp1),
        (b"CMDL", 0xDEAD_BABE, 3 | 4)
        | (b"MREA", 0xDEAD_BEEF, 0x15 | 0x19)
        | (b"MLVL", super::mlvl::MAGIC, 0x14 | 0x17)
        | (b"STRG", super::strg::MAGIC, 1) => Some(Game::Mp2),
        _ => None,
    }
}

/// Whether `stream` has a zlib header and its first bytes inflate without error.
fn inflates(stream: &[u8]) -> bool {
    if !stream.get(..2).is_some_and(|h| is_zlib_header(h[0], h[1])) {
        return false;
    }
    let mut out = [0u8; 64];
    let input = &stream[..stream.len().min(512)];
    flate2::Decompress::new(true)
        .decompress(input, &mut out, flate2::FlushDecompress::None)
        .is_ok()
}

/// The first bytes (at least 8 when possible) of a compressed payload (after its size
/// field), decoding no more than its first zlib block or LZO segment.
fn decompress_prefix(payload: &[u8], codec: Compression) -> Option<Vec<u8>> {
    match codec {
        Compression::Zlib => {
            let mut out = [0u8; 16];
            let mut z = flate2::Decompress::new(true);
            z.decompress(payload, &mut out, flate2::FlushDecompress::None)
                .ok()?;
            Some(out[..z.total_out() as usize].to_vec())
        }
        Compression::LzoSegments => {
            let len = i16::from_be_bytes(payload.get(..2)?.try_into().ok()?);
            let src = payload.get(2..2 + usize::from(len.unsigned_abs()))?;
            if len < 0 {
                return Some(src.to_vec());
            }
            let mut out = vec![0u8; LZO_SEGMENT_SIZE];
            let n = lzokay::decompress::decompress(src, &mut out).ok()?;
            out.truncate(n);
            Some(out)
        }
        Compression::Cmpd => None,
    }
}

/// RFC 1950 header check: CM = 8, CINFO ≤ 7, no preset dictionary, check bits.
pub fn is_zlib_header(b0: u8, b1: u8) -> bool {
    b0 & 0x0F == 8
        && b0 >> 4 <= 7
        && b1 & 0x20 == 0
        && (u16::from(b0) * 256 + u16::from(b1)) % 31 == 0
}

fn printable_fourcc(f: &[u8; 4]) -> bool {
    f.iter().all(|&b| b.is_ascii_alphanumeric() || b == b' ')
}

/// Parses a version-3.5 table with 32- or 64-bit IDs. `strict` additionally requires
/// alphanumeric FourCCs; it is used to tell the two ID widths apart by shape.
fn parse_v35(data: &[u8], total_len: u64, file: &str, wide: bool, strict: bool) -> Result<Pak> {
    let mut r = Reader::new(data, file);
    r.u32("version")?;
    let unused = r.u32("unused")?;
    let id_size = if wide { 8 } else { 4 };
    let read_id = |r: &mut Reader, field: &str| -> Result<u64> {
        if wide {
            r.u64(field)
        } else {
            r.u32(field).map(u64::from)
        }
    };
    let check_fourcc = |r: &Reader, field: &str, at: usize, f: &[u8; 4]| -> Result<()> {
        if strict && !printable_fourcc(f) {
            return Err(r.err_at(
                field,
                at,
                ErrorKind::Invalid(format!("FourCC {:?} is not text", fourcc_string(*f))),
            ));
        }
        Ok(())
    };
    let named_count = r.count("named_count", 4 + id_size + 4)?;
    let mut named = Vec::with_capacity(named_count);
    for i in 0..named_count {
        let at = r.pos();
        let fourcc = r.fourcc("named[].type")?;
        check_fourcc(&r, "named[].type", at, &fourcc)?;
        let id = read_id(&mut r, "named[].id")?;
        let len = r.count(&format!("named[{i}].name_length"), 1)?;
        let name = super::reader::latin1(r.bytes("named[].name", len)?);
        named.push(NamedEntry { fourcc, id, name });
    }
    let entry_size = 4 + 4 + id_size + 4 + 4;
    let count = r.count("resource_count", entry_size)?;
    let mut entries = Vec::with_capacity(count);
    for index in 0..count {
        let at = r.pos();
        let flag = compressed_flag(&mut r, &format!("resource[{index}].compressed"))?;
        let fourcc = r.fourcc("resource[].type")?;
        check_fourcc(&r, &format!("resource[{index}].type"), at + 4, &fourcc)?;
        let id = read_id(&mut r, "resource[].id")?;
        let size = r.u32("resource[].size")?;
        let offset = r.u32("resource[].offset")?;
        if u64::from(offset) + u64::from(size) > total_len {
            return Err(r.err_at(
                &format!("resource[{index}].offset"),
                at + entry_size - 4,
                ErrorKind::OffsetOutOfRange {
                    target: u64::from(offset) + u64::from(size),
                    size: total_len,
                },
            ));
        }
        entries.push(PakEntry {
            index,
            flag,
            fourcc,
            id,
            size,
            offset,
            data_offset: offset.into(),
        });
    }
    Ok(Pak {
        file: file.to_owned(),
        layout: if wide {
            PakLayout::V3_5Wide
        } else {
            PakLayout::V3_5
        },
        game: Game::Mp1,
        game_evidence: GameEvidence::Default,
        unused,
        named,
        entries,
        table_end: r.pos() as u64,
        codec: None,
        v2: None,
        first_by_id: HashMap::new(),
        first_by_id_type: HashMap::new(),
    })
}

/// Parses an MP3 (version 2) PAK: header, section table, STRG, RSHD; DATA is located.
fn parse_v2(data: &[u8], total_len: u64, file: &str) -> Result<Pak> {
    let mut r = Reader::new(data, file);
    r.expect_u32("version", 2)?;
    let header_size = r.u32("header_size")?;
    let md5 = r.array::<16>("md5")?;
    r.seek("section_table", 0x40)?;
    let section_count = r.count("section_count", 8)?;
    let mut sections = Vec::with_capacity(section_count);
    for _ in 0..section_count {
        let fourcc = r.fourcc("section.type")?;
        let size = r.u32("section.size")?;
        sections.push((fourcc, size));
    }
    r.align("section_table.padding", 64)?;
    let mut starts = HashMap::new();
    let mut pos = r.pos() as u64;
    for (i, &(fourcc, size)) in sections.iter().enumerate() {
        if pos + u64::from(size) > total_len {
            return Err(FormatError::new(
                file,
                format!("section[{i}] {}", fourcc_string(fourcc)),
                pos,
                ErrorKind::OffsetOutOfRange {
                    target: pos + u64::from(size),
                    size: total_len,
                },
            ));
        }
        starts.entry(fourcc).or_insert((pos, size));
        pos += u64::from(size);
    }
    // Where a section lies (checked against the whole archive above).
    let place = |name: &[u8; 4]| -> Result<(u64, u32)> {
        starts.get(name).copied().ok_or_else(|| {
            FormatError::new(
                file,
                "section_table",
                0x40,
                ErrorKind::Invalid(format!("no {} section", fourcc_string(*name))),
            )
        })
    };
    // A table section, which must lie in `data` (the head read so far).
    let section = |name: &[u8; 4]| -> Result<Reader> {
        let (start, size) = place(name)?;
        let start = usize::try_from(start).unwrap_or(usize::MAX);
        Reader::new(data, file).slice(&fourcc_string(*name), start, size as usize)
    };

    let mut strg = section(b"STRG")?;
    let named_count = strg.count("STRG.count", 13)?;
    let mut named = Vec::with_capacity(named_count);
    for _ in 0..named_count {
        let name = strg.cstring("STRG.name")?;
        let fourcc = strg.fourcc("STRG.type")?;
        let id = strg.u64("STRG.id")?;
        named.push(NamedEntry { fourcc, id, name });
    }

    let mut rshd = section(b"RSHD")?;
    let (data_start, data_len) = place(b"DATA")?;
    let count = rshd.count("RSHD.count", 24)?;
    let mut entries = Vec::with_capacity(count);
    for index in 0..count {
        let at = rshd.pos();
        let flag = compressed_flag(&mut rshd, &format!("RSHD[{index}].compressed"))?;
        let fourcc = rshd.fourcc("RSHD.type")?;
        let id = rshd.u64("RSHD.id")?;
        let size = rshd.u32("RSHD.size")?;
        let offset = rshd.u32("RSHD.offset")?;
        if u64::from(offset) + u64::from(size) > u64::from(data_len) {
            return Err(rshd.err_at(
                &format!("RSHD[{index}].offset"),
                at + 20,
                ErrorKind::OffsetOutOfRange {
                    target: data_start + u64::from(offset) + u64::from(size),
                    size: data_start + u64::from(data_len),
                },
            ));
        }
        entries.push(PakEntry {
            index,
            flag,
            fourcc,
            id,
            size,
            offset,
            data_offset: data_start + u64::from(offset),
        });
    }
    Ok(Pak {
        file: file.to_owned(),
        layout: PakLayout::V2,
        game: Game::Mp3,
        game_evidence: GameEvidence::Layout,
        unused: 0,
        named,
        entries,
        table_end: rshd.abs_pos(),
        codec: None,
        v2: Some(V2Header {
            header_size,
            md5,
            sections,
            data_start,
        }),
        first_by_id: HashMap::new(),
        first_by_id_type: HashMap::new(),
    })
}

/// A resource entry's compressed flag: 0 (raw) or 1 (compressed).
fn compressed_flag(r: &mut Reader, field: &str) -> Result<u32> {
    let at = r.pos();
    let flag = r.u32(field)?;
    if flag > 1 {
        return Err(r.err_at(
            field,
            at,
            ErrorKind::OutOfRange {
                value: flag.into(),
                expected: "0 or 1".into(),
            },
        ));
    }
    Ok(flag)
}

#[derive(Debug, Clone)]
enum BuildPayload {
    /// Uncompressed bytes, compressed by the builder if asked.
    Raw { bytes: Vec<u8>, compress: bool },
    /// Bytes written verbatim with this compressed flag.
    Stored { flag: u32, bytes: Vec<u8> },
}

#[derive(Debug, Clone)]
struct BuildEntry {
    fourcc: [u8; 4],
    id: u64,
    payload: BuildPayload,
}

/// Writes a PAK: MP1 (zlib), MP2 (LZO segments) or MP3 (version 2, CMPD). Resources
/// are laid out in the order added, each padded with 0xFF to 32 bytes (64 for MP3);
/// the table is padded with zeros. The output is deterministic.
#[derive(Debug, Clone)]
pub struct PakBuilder {
    /// Game whose compression is used.
    pub game: Game,
    /// Table layout (defaults from the game).
    pub layout: PakLayout,
    /// Header word 0x04 of version 3.5.
    pub unused: u32,
    /// MD5 field of version 2.
    pub md5: [u8; 16],
    named: Vec<NamedEntry>,
    entries: Vec<BuildEntry>,
}

impl PakBuilder {
    /// An empty archive for `game` (MP3 gives the version-2 layout).
    pub fn new(game: Game) -> Self {
        Self {
            game,
            layout: if game == Game::Mp3 {
                PakLayout::V2
            } else {
                PakLayout::V3_5
            },
            unused: 0,
            md5: [0; 16],
            named: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// Adds a resource; `compress` stores it compressed with the game's codec.
    pub fn add(&mut self, fourcc: [u8; 4], id: u64, bytes: &[u8], compress: bool) -> &mut Self {
        self.entries.push(BuildEntry {
            fourcc,
            id,
            payload: BuildPayload::Raw {
                bytes: bytes.to_vec(),
                compress,
            },
        });
        self
    }

    /// Adds stored bytes verbatim (already compressed when `flag` is 1).
    pub fn add_stored(&mut self, fourcc: [u8; 4], id: u64, flag: u32, stored: &[u8]) -> &mut Self {
        self.entries.push(BuildEntry {
            fourcc,
            id,
            payload: BuildPayload::Stored {
                flag,
                bytes: stored.to_vec(),
            },
        });
        self
    }

    /// Adds a named-resource entry.
    pub fn add_name(&mut self, fourcc: [u8; 4], id: u64, name: &str) -> &mut Self {
        self.named.push(NamedEntry {
            fourcc,
            id,
            name: name.to_owned(),
        });
        self
    }

    fn err(field: &str, message: String) -> FormatError {
        FormatError::new("<PakBuilder>", field, 0, ErrorKind::Invalid(message))
    }

    /// The stored bytes and flag of each entry.
    fn payloads(&self) -> Result<Vec<(u32, Vec<u8>)>> {
        self.entries
            .iter()
            .enumerate()
            .map(|(i, e)| {
                Ok(match &e.payload {
                    BuildPayload::Stored { flag, bytes } => (*flag, bytes.clone()),
                    BuildPayload::Raw {
                        bytes,
                        compress: false,
                    } => (0, bytes.clone()),
                    BuildPayload::Raw {
                        bytes,
                        compress: true,
                    } => {
                        if bytes.len() as u64 > MAX_DECOMPRESSED_SIZE {
                            return Err(Self::err(
                                &format!("resource[{i}]"),
                                "too large to compress".into(),
                            ));
                        }
                        let payload = match (self.layout, self.game) {
                            (PakLayout::V2, _) => compress_cmpd(bytes),
                            (_, Game::Mp2) => compress_lzo(bytes),
                            _ => compress_zlib(bytes),
                        };
                        (1, payload)
                    }
                })
            })
            .collect()
    }

    /// Serialises the archive.
    pub fn build(&self) -> Result<Vec<u8>> {
        let payloads = self.payloads()?;
        match self.layout {
            PakLayout::V2 => self.build_v2(&payloads),
            layout => self.build_v35(&payloads, layout == PakLayout::V3_5Wide),
        }
    }

    fn build_v35(&self, payloads: &[(u32, Vec<u8>)], wide: bool) -> Result<Vec<u8>> {
        let id = |w: &mut Writer, id: u64, field: &str| -> Result<()> {
            if wide {
                w.u64(id);
            } else {
                let narrow = u32::try_from(id)
                    .map_err(|_| Self::err(field, format!("ID {id:#x} does not fit 32 bits")))?;
                w.u32(narrow);
            }
            Ok(())
        };
        let mut w = Writer::new();
        w.u32(VERSION_3_5);
        w.u32(self.unused);
        w.u32(self.named.len() as u32);
        for n in &self.named {
            w.bytes(&n.fourcc);
            id(&mut w, n.id, "named.id")?;
            let name = super::reader::to_latin1(&n.name);
            w.u32(name.len() as u32);
            w.bytes(&name);
        }
        w.u32(self.entries.len() as u32);
        let table = w.len();
        for (e, (flag, _)) in self.entries.iter().zip(payloads) {
            w.u32(*flag);
            w.bytes(&e.fourcc);
            id(&mut w, e.id, "resource.id")?;
            w.u32(0);
            w.u32(0);
        }
        let entry_size = if wide { 24 } else { 20 };
        w.pad_to(32, 0);
        for (i, (_, bytes)) in payloads.iter().enumerate() {
            let offset = w.len();
            w.bytes(bytes);
            w.pad_to(32, 0xFF);
            let size = w.len() - offset;
            let row = table + i * entry_size + entry_size - 8;
            w.patch_u32(
                row,
                u32::try_from(size).map_err(|_| Self::err("resource.size", "over 4 GiB".into()))?,
            );
            w.patch_u32(
                row + 4,
                u32::try_from(offset)
                    .map_err(|_| Self::err("resource.offset", "over 4 GiB".into()))?,
            );
        }
        Ok(w.into_inner())
    }

    fn build_v2(&self, payloads: &[(u32, Vec<u8>)]) -> Result<Vec<u8>> {
        let mut strg = Writer::new();
        strg.u32(self.named.len() as u32);
        for n in &self.named {
            strg.cstring(&n.name);
            strg.bytes(&n.fourcc);
            strg.u64(n.id);
        }
        strg.pad_to(64, 0);
        let mut data = Writer::new();
        let mut rshd = Writer::new();
        rshd.u32(self.entries.len() as u32);
        for (e, (flag, bytes)) in self.entries.iter().zip(payloads) {
            let offset = data.len();
            data.bytes(bytes);
            data.pad_to(64, 0xFF);
            rshd.u32(*flag);
            rshd.bytes(&e.fourcc);
            rshd.u64(e.id);
            rshd.u32(
                u32::try_from(data.len() - offset)
                    .map_err(|_| Self::err("resource.size", "over 4 GiB".into()))?,
            );
            rshd.u32(
                u32::try_from(offset)
                    .map_err(|_| Self::err("resource.offset", "over 4 GiB".into()))?,
            );
        }
        rshd.pad_to(64, 0);
        let mut w = Writer::new();
        w.u32(2);
        w.u32(0x40);
        w.bytes(&self.md5);
        w.pad_to(0x40, 0);
        w.u32(3);
        for (name, len) in [
            (b"STRG", strg.len()),
            (b"RSHD", rshd.len()),
            (b"DATA", data.len()),
        ] {
            w.bytes(name);
            w.u32(u32::try_from(len).map_err(|_| Self::err("section.size", "over 4 GiB".into()))?);
        }
        w.pad_to(64, 0);
        w.bytes(&strg.buf);
        w.bytes(&rshd.buf);
        w.bytes(&data.buf);
        Ok(w.into_inner())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn sample(n: usize, seed: u8) -> Vec<u8> {
        (0..n)
            .map(|i| ((i / 7) as u8).wrapping_mul(seed) ^ (i % 5) as u8)
            .collect()
    }

    fn build(game: Game) -> (Vec<u8>, Vec<(Vec<u8>, bool)>) {
        let resources = vec![
            (sample(100, 3), false),
            (sample(40_000, 5), true),
            (vec![0xAB; 0x4000 * 2 + 7], true),
            (
                (0..5000u32)
                    .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
                    .collect(),
                true,
            ),
            (Vec::new(), false),
        ];
        let mut b = PakBuilder::new(game);
        b.add_name(*b"TXTR", 0x10, "first");
        for (i, (bytes, compress)) in resources.iter().enumerate() {
            b.add(*b"TXTR", 0x10 + i as u64, bytes, *compress);
        }
        (b.build().unwrap(), resources)
    }

    /// MP1 and MP2 share a layout; the codec and the resources' versions tell them apart,
    /// including when an LZO segment length happens to pass the zlib header check.
    #[test]
    fn mp2_archives_are_told_from_mp1() {
        let mut strg = 0x8765_4321u32.to_be_bytes().to_vec();
        strg.extend(1u32.to_be_bytes());
        strg.extend([0u8; 56]);
        let mut b = PakBuilder::new(Game::Mp2);
        b.add(*b"TXTR", 1, &[0u8; 96], false);
        b.add(*b"STRG", 2, &strg, true);
        let pak = Pak::parse(&b.build().unwrap(), "mp2.pak").unwrap();
        assert_eq!(
            (pak.game, pak.game_evidence, pak.codec),
            (
                Game::Mp2,
                GameEvidence::Compression,
                Some(Compression::LzoSegments)
            )
        );

        // One compressed resource whose first segment length (0x081D) is also a valid
        // zlib header: it does not inflate, so the archive stays LZO, hence MP2.
        let mut payload = 4096u32.to_be_bytes().to_vec();
        payload.extend([0x08, 0x1D]);
        payload.extend([0xFFu8; 0x81D]);
        assert!(is_zlib_header(0x08, 0x1D));
        let mut b = PakBuilder::new(Game::Mp2);
        b.add(*b"TXTR", 1, &[0u8; 96], false);
        b.add_stored(*b"PART", 3, 1, &payload);
        let pak = Pak::parse(&b.build().unwrap(), "mp2.pak").unwrap();
        assert_eq!(
            (pak.game, pak.game_evidence),
            (Game::Mp2, GameEvidence::Compression)
        );

        // Uncompressed resources alone: the STRG version decides.
        let mut b = PakBuilder::new(Game::Mp2);
        b.add(*b"STRG", 2, &strg, false);
        assert_eq!(
            Pak::parse(&b.build().unwrap(), "p").unwrap().game,
            Game::Mp2
        );
        strg[7] = 0;
        let mut b = PakBuilder::new(Game::Mp1);
        b.add(*b"STRG", 2, &strg, true);
        let pak = Pak::parse(&b.build().unwrap(), "p").unwrap();
        assert_eq!((pak.game, pak.codec), (Game::Mp1, Some(Compression::Zlib)));
    }

    #[test]
    fn builder_round_trips_for_every_game() {
        for game in [Game::Mp1, Game::Mp2, Game::Mp3] {
            let (bytes, resources) = build(game);
            let pak = Pak::parse(&bytes, "built.pak").unwrap();
            assert_eq!(pak.game, game);
            assert_eq!(pak.entries().len(), resources.len());
            assert_eq!(pak.find_by_name("FIRST").unwrap().id, 0x10);
            let align = if game == Game::Mp3 { 64 } else { 32 };
            for (e, (orig, compress)) in pak.entries().iter().zip(&resources) {
                assert_eq!(e.compressed(), *compress);
                assert_eq!(e.data_offset % align, 0);
                assert_eq!(u64::from(e.size) % align, 0);
                let out = pak.read(&bytes, e).unwrap();
                assert_eq!(&out[..orig.len()], &orig[..], "{game:?} {}", e.index);
                if *compress {
                    assert_eq!(out.len(), orig.len());
                } else {
                    assert!(out[orig.len()..].iter().all(|&b| b == 0xFF));
                }
            }
            // Rebuilding from stored bytes is the identity.
            assert_eq!(pak.to_builder(&bytes).unwrap().build().unwrap(), bytes);
            // Deterministic.
            assert_eq!(build(game).0, bytes);
        }
    }

    #[test]
    fn lzo_payloads_use_raw_segments_when_incompressible() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let noise: Vec<u8> = (0..0x4000 + 10)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                (state >> 24) as u8
            })
            .collect();
        let payload = compress_lzo(&noise);
        let lengths = lzo_segment_lengths(&payload[4..], noise.len() as u64, "t", 4).unwrap();
        assert_eq!(lengths[0], -0x4000);
        assert_eq!(
            decompress_lzo_segments(&payload[4..], noise.len(), "t", 4).unwrap(),
            noise
        );
    }

    #[test]
    fn wide_ids_are_detected_by_table_shape() {
        let mut b = PakBuilder::new(Game::Mp3);
        b.layout = PakLayout::V3_5Wide;
        b.add_name(*b"CMDL", 0x0123_4567_89AB_CDEF, "model");
        b.add(*b"CMDL", 0x0123_4567_89AB_CDEF, b"model bytes", false);
        b.add(*b"TXTR", 0x0000_0000_0000_0002, &sample(3000, 9), true);
        let bytes = b.build().unwrap();
        let pak = Pak::parse(&bytes, "e3.pak").unwrap();
        assert_eq!(pak.layout, PakLayout::V3_5Wide);
        assert_eq!(pak.game, Game::Mp3);
        assert_eq!(pak.entry_name(&pak.entries()[0]), "0x0123456789ABCDEF.CMDL");
        assert_eq!(
            pak.read(&bytes, &pak.entries()[1]).unwrap(),
            sample(3000, 9)
        );
    }

    #[test]
    fn duplicates_first_wins() {
        let mut b = PakBuilder::new(Game::Mp1);
        b.add(*b"TXTR", 7, b"first", false);
        b.add(*b"TXTR", 7, b"second", false);
        let bytes = b.build().unwrap();
        let pak = Pak::parse(&bytes, "d.pak").unwrap();
        assert_eq!(pak.entries().len(), 2);
        let e = pak.find_by_id(7).unwrap();
        assert_eq!(e.index, 0);
        assert!(pak.read(&bytes, e).unwrap().starts_with(b"first"));
    }

    #[test]
    fn huge_declared_sizes_are_rejected_before_allocating() {
        for game in [Game::Mp1, Game::Mp2] {
            let mut b = PakBuilder::new(game);
            b.add_stored(*b"CMDL", 1, 1, &[0xFF, 0xFF, 0xFF, 0xF0, 0x78, 0xDA, 1, 2]);
            let bytes = b.build().unwrap();
            let pak = Pak::parse_as(&bytes, "huge.pak", Some(game)).unwrap();
            let e = pak.read(&bytes, &pak.entries()[0]).unwrap_err();
            assert_eq!(e.field, "decompressed_size");
            assert_eq!(e.file, "huge.pak:0x00000001.CMDL");
            assert!(matches!(e.kind, ErrorKind::OutOfRange { .. }));
        }
        // Under the cap but far beyond what the data holds: fails on the data, having
        // reserved at most 64× the input.
        let mut stored = (200u32 << 20).to_be_bytes().to_vec();
        stored.extend(&compress_zlib(b"tiny")[4..]);
        let err = decompress_zlib(&stored[4..], 200 << 20, "t", 4).unwrap_err();
        assert!(err.to_string().contains("declares"), "{err}");
        let mut cmpd = b"CMPD".to_vec();
        cmpd.extend(1u32.to_be_bytes());
        cmpd.extend(0xA000_0010u32.to_be_bytes());
        cmpd.extend(0x7FFF_FFFFu32.to_be_bytes());
        assert!(matches!(
            decompress_cmpd(&cmpd, "t").unwrap_err().kind,
            ErrorKind::OutOfRange { .. }
        ));
    }

    #[test]
    fn segment_errors_name_the_segment() {
        // Declared 10 bytes, one raw segment of 4 then a zero length.
        let mut p = vec![0xFF, 0xFC, 1, 2, 3, 4, 0, 0];
        let e = decompress_lzo_segments(&p, 10, "x.pak:0x00000001.CMDL", 4).unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("lzo_segment[1]", 10));
        // A segment running past the payload.
        p = vec![0x00, 0x40, 1, 2];
        let e = decompress_lzo_segments(&p, 10, "x", 4).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::Truncated { .. }));
        // A raw segment longer than the missing bytes.
        p = vec![0xFF, 0xF0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert!(decompress_lzo_segments(&p, 10, "x", 4).is_err());
    }

    #[test]
    fn zlib_header_check() {
        assert!(is_zlib_header(0x78, 0xDA));
        assert!(is_zlib_header(0x78, 0x9C));
        assert!(is_zlib_header(0x78, 0x01));
        assert!(!is_zlib_header(0x02, 0x1B));
        assert!(!is_zlib_header(0xC0, 0x00));
    }

    #[test]
    fn hostile_tables_never_panic() {
        for game in [Game::Mp1, Game::Mp2, Game::Mp3] {
            let mut b = PakBuilder::new(game);
            b.add_name(*b"TXTR", 1, "n");
            b.add(*b"TXTR", 1, &sample(300, 3), true);
            b.add(*b"CMDL", 2, &sample(64, 7), false);
            let bytes = b.build().unwrap();
            let rejected = crate::testing::torture(&bytes, 300, |d| {
                let pak = Pak::parse(d, "t.pak")?;
                for e in pak.entries() {
                    pak.payload_info(d, e)?;
                    pak.read(d, e)?;
                }
                Ok::<_, FormatError>(())
            });
            assert_eq!(
                rejected,
                bytes.len(),
                "{game:?}: every truncation must be rejected"
            );
        }
    }
}
