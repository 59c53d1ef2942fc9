//! Disc images as sources (formats.md §14): ISO/GCM, RVZ, WIA, WBFS, CISO, GCZ and TGC,
//! read with the `nod` crate. A file on a disc has a path of its own, `DISC:PATH_ON_DISC`
//! (`prime.rvz:MP2/Metroid1.pak`), that every spec accepts like a file on disk; it is read
//! through the disc reader by ranges (a PAK's tables and the resources asked for), never
//! whole, and is never written.

use std::collections::HashMap;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use anyhow::{Context as _, anyhow};
use nod::common::PartitionKind;
use nod::disc::fst::Node;
use nod::read::{DiscOptions, DiscReader, PartitionOptions, PartitionReader};

use crate::formats::pak::RangeSource;
use crate::schema::disc::{DiscFileInfo, DiscInfo, DiscReport};

/// One file of a disc's file system table.
#[derive(Debug, Clone)]
pub struct DiscFile {
    /// Path on the disc, `/`-separated, without a leading slash (`MP2/Metroid1.pak`).
    pub path: String,
    /// Byte offset in the data partition.
    pub offset: u64,
    pub size: u64,
    node: Node,
}

/// The parts of a disc before its files (GameCube layout, §14.2), for writing a new image.
#[derive(Debug, Clone)]
pub struct SystemFiles {
    pub boot: Vec<u8>,
    pub bi2: Vec<u8>,
    pub apploader: Vec<u8>,
    pub dol: Vec<u8>,
}

/// An open disc image: its header, its files, and a reader of its data partition.
pub struct Disc {
    pub path: PathBuf,
    /// `ISO`, `RVZ`, `WIA`, `WBFS`, `CISO`, `GCZ`, `TGC`, `NFS`.
    pub format: String,
    pub game_id: String,
    pub title: String,
    pub disc_number: u8,
    pub disc_version: u8,
    pub is_wii: bool,
    /// Every file, in FST order.
    pub files: Vec<DiscFile>,
    pub system: SystemFiles,
    partition: Mutex<Box<dyn PartitionReader>>,
}

impl std::fmt::Debug for Disc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Disc")
            .field("path", &self.path)
            .field("format", &self.format)
            .field("game_id", &self.game_id)
            .field("files", &self.files.len())
            .finish()
    }
}

impl Disc {
    /// Opens `path` and reads its header and FST (nothing else).
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let label = path.display().to_string();
        let disc = DiscReader::new(path, &DiscOptions::default())
            .map_err(|e| anyhow!("{label}: not a readable disc image: {e}"))?;
        let header = disc.header();
        let format = format!("{:?}", disc.meta().format).to_uppercase();
        let (game_id, title) = (
            header.game_id_str().to_string(),
            header.game_title_str().to_string(),
        );
        let (disc_number, disc_version, is_wii) =
            (header.disc_num, header.disc_version, header.is_wii());
        let mut partition = disc
            .open_partition_kind(PartitionKind::Data, &PartitionOptions::default())
            .map_err(|e| anyhow!("{label}: opening the data partition: {e}"))?;
        let meta = partition
            .meta()
            .map_err(|e| anyhow!("{label}: reading the partition header: {e}"))?;
        let fst = meta
            .fst()
            .map_err(|e| anyhow!("{label}: file system table: {e}"))?;
        let files = fst
            .iter()
            .filter(|(_, node, _)| node.is_file())
            .map(|(_, node, path)| DiscFile {
                path: path.trim_start_matches('/').to_string(),
                offset: node.offset(is_wii),
                size: u64::from(node.length()),
                node,
            })
            .collect();
        let system = SystemFiles {
            boot: meta.raw_boot.to_vec(),
            bi2: meta.raw_bi2.to_vec(),
            apploader: meta.raw_apploader.to_vec(),
            dol: meta.raw_dol.to_vec(),
        };
        Ok(Self {
            path: path.to_path_buf(),
            format,
            game_id,
            title,
            disc_number,
            disc_version,
            is_wii,
            files,
            system,
            partition: Mutex::new(partition),
        })
    }

    /// The file at `path` on the disc (case-insensitive, leading `/` optional).
    pub fn file(&self, path: &str) -> Option<&DiscFile> {
        let path = path.trim_start_matches('/');
        self.files.iter().find(|f| f.path == path).or_else(|| {
            self.files
                .iter()
                .find(|f| f.path.eq_ignore_ascii_case(path))
        })
    }

    /// `len` bytes at `offset` of `file`.
    pub fn read_range(&self, file: &DiscFile, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        if offset.saturating_add(len as u64) > file.size {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                format!(
                    "{}: {len} bytes at {offset:#x} lie outside the file ({} bytes)",
                    file.path, file.size
                ),
            ));
        }
        let mut partition = self
            .partition
            .lock()
            .map_err(|_| std::io::Error::other("disc reader poisoned by an earlier panic"))?;
        let mut reader = partition.open_file(file.node)?;
        reader.seek(SeekFrom::Start(offset))?;
        let mut out = vec![0; len];
        reader.read_exact(&mut out)?;
        Ok(out)
    }

    /// The whole of `file` (for loose files and extraction).
    pub fn read(&self, file: &DiscFile) -> std::io::Result<Vec<u8>> {
        let len = usize::try_from(file.size).map_err(std::io::Error::other)?;
        self.read_range(file, 0, len)
    }

    /// Copies `file` to `out` in pieces, so a large file is never held whole.
    pub fn copy_to(&self, file: &DiscFile, out: &mut impl std::io::Write) -> std::io::Result<()> {
        const PIECE: u64 = 4 << 20;
        let mut at = 0;
        while at < file.size {
            let n = (file.size - at).min(PIECE);
            out.write_all(&self.read_range(file, at, n as usize)?)?;
            at += n;
        }
        Ok(())
    }

    /// The `*.pak` files in any folder, in FST order (§14.3: PAKs are not picked by name).
    pub fn paks(&self) -> impl Iterator<Item = &DiscFile> {
        self.files.iter().filter(|f| {
            Path::new(&f.path)
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("pak"))
        })
    }

    /// The `info` report: header and files.
    pub fn report(&self) -> DiscReport {
        DiscReport {
            disc: DiscInfo {
                game_id: self.game_id.clone(),
                title: self.title.clone(),
                format: self.format.clone(),
                disc_number: self.disc_number,
                disc_version: self.disc_version,
                console: if self.is_wii { "wii" } else { "gamecube" },
                files: self
                    .files
                    .iter()
                    .map(|f| DiscFileInfo {
                        path: f.path.clone(),
                        size: f.size,
                        offset: f.offset,
                    })
                    .collect(),
            },
        }
    }

    /// The path of a file on this disc as specs write it: `DISC:PATH_ON_DISC`.
    pub fn member_path(&self, file: &DiscFile) -> PathBuf {
        PathBuf::from(format!("{}:{}", self.path.display(), file.path))
    }
}

/// A file of a disc read by ranges (a PAK opened through the disc reader).
pub struct DiscMember {
    disc: Arc<Disc>,
    file: DiscFile,
}

impl RangeSource for DiscMember {
    fn len(&self) -> u64 {
        self.file.size
    }

    fn read_range(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        self.disc.read_range(&self.file, offset, len)
    }
}

/// Open discs by path, so specs naming the same disc share one reader and one FST.
fn cache() -> &'static Mutex<HashMap<PathBuf, Arc<Disc>>> {
    static CACHE: OnceLock<Mutex<HashMap<PathBuf, Arc<Disc>>>> = OnceLock::new();
    CACHE.get_or_init(Mutex::default)
}

/// Whether the file at `path` is a disc image (by its content, as nod detects it).
pub fn is_disc_image(path: &Path) -> bool {
    if !path.is_file() {
        return false;
    }
    if cache().lock().is_ok_and(|c| c.contains_key(path)) {
        return true;
    }
    std::fs::File::open(path)
        .ok()
        .and_then(|mut f| DiscReader::detect(&mut f).ok().flatten())
        .is_some()
}

/// The open disc at `path` (opened once, then shared).
pub fn open(path: &Path) -> anyhow::Result<Arc<Disc>> {
    if let Some(d) = cache().lock().ok().and_then(|c| c.get(path).cloned()) {
        return Ok(d);
    }
    let disc = Arc::new(Disc::open(path)?);
    if let Ok(mut c) = cache().lock() {
        c.insert(path.to_path_buf(), disc.clone());
    }
    Ok(disc)
}

/// Splits a path naming a file on a disc, `DISC:PATH_ON_DISC`, at the first colon after
/// which the part before is a disc image. None for any other path.
pub fn split_member(path: &Path) -> Option<(PathBuf, String)> {
    let text = path.to_str()?;
    text.match_indices(':').find_map(|(at, _)| {
        let (disc, inner) = (Path::new(&text[..at]), &text[at + 1..]);
        (!inner.is_empty() && is_disc_image(disc)).then(|| (disc.to_path_buf(), inner.to_string()))
    })
}

/// The disc and file a `DISC:PATH_ON_DISC` path names; None when it names none (not a
/// disc path, or no such file on the disc).
pub fn member(path: &Path) -> Option<(Arc<Disc>, DiscFile)> {
    let (disc, inner) = split_member(path)?;
    let disc = open(&disc).ok()?;
    let file = disc.file(&inner)?.clone();
    Some((disc, file))
}

/// Whether `path` names a file on a disc.
pub fn is_member(path: &Path) -> bool {
    member(path).is_some()
}

/// The bytes of the disc file `path` names; None when it names none.
pub fn read_member(path: &Path) -> Option<std::io::Result<Vec<u8>>> {
    let (disc, file) = member(path)?;
    Some(disc.read(&file))
}

/// The disc file `path` names as a ranged source (for opening a PAK without reading it).
pub fn member_source(path: &Path) -> Option<Arc<dyn RangeSource>> {
    let (disc, file) = member(path)?;
    Some(Arc::new(DiscMember { disc, file }))
}

/// Writes every file of the disc under `out` (folders as on the disc) byte for byte, and
/// the system files (`sys/boot.bin`, `bi2.bin`, `apploader.img`, `main.dol`) as Dolphin's
/// extractor names them. Returns the number of files written.
pub fn extract(disc: &Disc, out: &Path) -> anyhow::Result<usize> {
    let files = out.join("files");
    for f in &disc.files {
        let target = safe_join(&files, &f.path)
            .ok_or_else(|| anyhow!("{}: unsafe file name on the disc", f.path))?;
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
        }
        crate::atomic::write_with(&target, |w| disc.copy_to(f, w))
            .with_context(|| format!("writing {} from {}", target.display(), f.path))?;
    }
    let sys = out.join("sys");
    std::fs::create_dir_all(&sys).with_context(|| format!("creating {}", sys.display()))?;
    for (name, bytes) in [
        ("boot.bin", &disc.system.boot),
        ("bi2.bin", &disc.system.bi2),
        ("apploader.img", &disc.system.apploader),
        ("main.dol", &disc.system.dol),
    ] {
        let p = sys.join(name);
        crate::atomic::write_atomically(&p, bytes)
            .with_context(|| format!("writing {}", p.display()))?;
    }
    Ok(disc.files.len())
}

/// `tevscope info DISC` and `info DISC:FILE.pak`: the report of the disc image at `path`,
/// or of a PAK on a disc from its tables only ([`PakReport::from_tables`]: the PAK is read
/// by ranges, never whole); None for any other file.
pub fn info(path: &Path, json: bool) -> anyhow::Result<Option<String>> {
    if let Some(source) = member_source(path).filter(|_| has_pak_extension(path)) {
        let label = path.display().to_string();
        let archive = crate::formats::pak::PakArchive::from_ranges(source, &label)?;
        let report = crate::schema::pak::PakReport::from_tables(&archive, None);
        return Ok(Some(crate::schema::json_or_text(&report, json, |r| {
            r.text()
        })?));
    }
    if !is_disc_image(path) {
        return Ok(None);
    }
    let report = open(path)?.report();
    Ok(Some(crate::schema::json_or_text(
        &report,
        json,
        DiscReport::text,
    )?))
}

fn has_pak_extension(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pak"))
}

/// `tevscope extract DISC -o DIR`: every file of the disc image at `path`; None for any
/// other file (a PAK is extracted by resource).
pub fn extract_image(path: &Path, out: &Path) -> anyhow::Result<Option<String>> {
    if !is_disc_image(path) {
        return Ok(None);
    }
    let n = extract(&*open(path)?, out)?;
    Ok(Some(format!(
        "{}: extracted {n} files to {} (files/ as on the disc, sys/ the system files)\n",
        path.display(),
        out.display()
    )))
}

/// `base/rel` when `rel` stays inside `base` (no `..`, no absolute parts).
fn safe_join(base: &Path, rel: &str) -> Option<PathBuf> {
    let mut out = base.to_path_buf();
    for part in rel.split('/') {
        if part.is_empty() || part == "." || part == ".." || part.contains('\\') {
            return None;
        }
        out.push(part);
    }
    Some(out)
}

/// Writes a new GameCube image to `target`: the disc's system files and every file, in FST
/// order, byte for byte, except those in `replace` (path on the disc → new bytes). The
/// source disc is only read. Files are copied in pieces, so the disc is never held whole.
pub fn write_image(disc: &Disc, replace: &[(&str, &[u8])], target: &Path) -> anyhow::Result<()> {
    if disc.is_wii {
        anyhow::bail!(
            "{}: writing Wii images is not supported; save the PAK into a folder instead",
            disc.path.display()
        );
    }
    let replacement = |f: &DiscFile| {
        replace
            .iter()
            .find(|(p, _)| p.eq_ignore_ascii_case(&f.path))
            .map(|(_, b)| *b)
    };
    let files: Vec<(String, u64)> = disc
        .files
        .iter()
        .map(|f| {
            let size = replacement(f).map_or(f.size, |b| b.len() as u64);
            (f.path.clone(), size)
        })
        .collect();
    let s = &disc.system;
    let layout = crate::formats::gcm::layout(&s.boot, &s.bi2, &s.apploader, &s.dol, &files)
        .with_context(|| format!("laying out {}", target.display()))?;
    crate::atomic::write_with(target, |w| {
        use std::io::Write as _;
        w.write_all(&layout.head)?;
        let mut at = layout.head.len() as u64;
        let zeros = |w: &mut std::io::BufWriter<std::fs::File>, n: u64| {
            std::io::copy(&mut std::io::repeat(0).take(n), w).map(|_| ())
        };
        for (f, &offset) in disc.files.iter().zip(&layout.offsets) {
            zeros(w, offset - at)?;
            match replacement(f) {
                Some(bytes) => w.write_all(bytes)?,
                None => disc.copy_to(f, w)?,
            }
            at = offset + files_size(replacement(f), f);
        }
        zeros(w, layout.size - at)
    })
    .with_context(|| format!("writing {}", target.display()))
}

fn files_size(replacement: Option<&[u8]>, f: &DiscFile) -> u64 {
    replacement.map_or(f.size, |b| b.len() as u64)
}
