//! How every command names an input, and how it finds the resources an input refers to.
//!
//! An input is one of:
//! - `FILE` — a loose file (`0x7EC00000.CMDL`, `Sphere.CMDL`) or a whole PAK;
//! - `FILE.pak:0x1A2B3C4D` — a PAK member by asset ID (hex, `0x` optional, any case),
//!   optionally with its type: `FILE.pak:0x1A2B3C4D.TXTR`;
//! - `FILE.pak:name` — a PAK member by its name in the named-resource table (exact, then
//!   ignoring case).
//!
//! `FILE` may also be a file built into the program ([`super::builtin`]): `builtin:demo.pak`,
//! or a file on a disc image ([`super::disc`]): `prime.rvz:MP2/Metroid1.pak`, so
//! `prime.rvz:MP2/Metroid1.pak:0x1A2B3C4D` is a resource of a PAK on a disc.
//!
//! The [`Resolver`] returned with the input finds *other* resources by asset ID (a model's
//! textures, a character's skin and skeleton): in the same PAK, or — for a loose file —
//! among the files of its folder whose names carry the ID (see [`id_from_file_name`]),
//! the layout `tevscope extract` writes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, anyhow, bail};

use super::builtin;
use super::kind::AssetKind;
use crate::formats::pak::{ArchiveBytes, Pak, PakArchive, PakEntry};
use crate::formats::{FourCc, Game, asset_id_string, fourcc_string};

/// One input resource, decompressed.
#[derive(Debug, Clone)]
pub struct Resource {
    /// What errors and output call it: the path, or `file.pak:0xID.TYPE`.
    pub label: String,
    /// The file on disk (the PAK for a member).
    pub path: PathBuf,
    /// The decompressed bytes (a PAK member keeps its 0xFF padding if stored raw).
    pub bytes: Vec<u8>,
    /// Type from the PAK entry, or from a 4-character file extension.
    pub fourcc: Option<[u8; 4]>,
    /// Asset ID from the PAK entry, or from the file name.
    pub id: Option<u64>,
    /// Game, when the container tells (PAK members and whole PAKs).
    pub game: Option<Game>,
}

impl Resource {
    /// Whether this input is a whole PAK archive (not a member).
    pub fn is_pak(&self) -> bool {
        self.fourcc.is_none() && Pak::sniff(&self.bytes)
    }

    /// What kind of resource this is: a whole PAK, its entry type or extension, else its
    /// magic (a CMDL or MREA named without its type).
    pub fn kind(&self) -> Option<AssetKind> {
        if self.is_pak() {
            return Some(AssetKind::Pak);
        }
        AssetKind::from_fourcc(self.type_code().ok()?)
    }

    /// The format code: `PAK ` for an archive, else its PAK type or file extension (upper
    /// case), else what its magic tells; an error names the file when nothing does.
    pub fn type_code(&self) -> anyhow::Result<[u8; 4]> {
        if self.is_pak() {
            return Ok(*b"PAK ");
        }
        if let Some(f) = self.fourcc {
            return Ok(f.map(|b| b.to_ascii_uppercase()));
        }
        match AssetKind::sniff(&self.bytes).and_then(AssetKind::fourcc) {
            Some(f) => Ok(f),
            None => bail!(
                "{}: cannot tell the format (name the file with its type as extension, e.g. .CMDL)",
                self.label
            ),
        }
    }

    /// Whether the type is `fourcc`.
    pub fn is(&self, fourcc: &[u8; 4]) -> bool {
        self.fourcc.as_ref() == Some(fourcc)
    }

    /// Whether IDs in this resource's world are 64-bit (MP3).
    pub fn wide_ids(&self) -> bool {
        self.game == Some(Game::Mp3) || self.id.is_some_and(|id| id > u64::from(u32::MAX))
    }
}

/// Finds resources by asset ID for the input they were opened with.
pub trait Resolver: Send + Sync {
    /// The resource with asset `id` (and type `fourcc`, if given); `Ok(None)` when there
    /// is none, `Err` when it exists but cannot be read.
    fn find(&self, id: u64, fourcc: Option<[u8; 4]>) -> anyhow::Result<Option<Resource>>;

    /// The resource of type `fourcc` named `name` (a PAK's named table, or a file stem
    /// such as `Samus.CINF` in a folder an extractor wrote with names).
    fn find_named(&self, _name: &str, _fourcc: [u8; 4]) -> anyhow::Result<Option<Resource>> {
        Ok(None)
    }

    /// The one resource of type `fourcc` beside the input, when there is exactly one: how a
    /// character finds its skin and skeleton among named files. None when there are several.
    fn only_of_type(&self, _fourcc: [u8; 4]) -> anyhow::Result<Option<Resource>> {
        Ok(None)
    }

    /// Where lookups go, for messages (`mp1.pak`, `folder /x/y`).
    fn describe(&self) -> String;

    /// The archive an input member was read from, so an editor splices its change into
    /// the bytes already opened instead of reading the PAK again (None: not a PAK member).
    fn archive(&self) -> Option<Arc<PakArchive>> {
        None
    }
}

/// Tries several resolvers in order (explicit `--texture-dir` folders before the input's own
/// surroundings).
pub struct ChainResolver(pub Vec<Box<dyn Resolver>>);

impl Resolver for ChainResolver {
    fn find(&self, id: u64, fourcc: Option<[u8; 4]>) -> anyhow::Result<Option<Resource>> {
        for r in &self.0 {
            if let Some(found) = r.find(id, fourcc)? {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    fn find_named(&self, name: &str, fourcc: [u8; 4]) -> anyhow::Result<Option<Resource>> {
        for r in &self.0 {
            if let Some(found) = r.find_named(name, fourcc)? {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    fn only_of_type(&self, fourcc: [u8; 4]) -> anyhow::Result<Option<Resource>> {
        for r in &self.0 {
            if let Some(found) = r.only_of_type(fourcc)? {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }

    fn describe(&self) -> String {
        self.0
            .iter()
            .map(|r| r.describe())
            .collect::<Vec<_>>()
            .join(", then ")
    }
}

/// Opens an input spec (see the module docs) and a resolver for what it references.
pub fn open(spec: &str) -> anyhow::Result<(Resource, Box<dyn Resolver>)> {
    let (path, member) = split_spec(spec)?;
    if let Some(member) = member {
        let resolver = PakResolver::open(&path)?;
        let pak = &resolver.archive.pak;
        let entry = resolve_member(pak, member).ok_or_else(|| {
            let example = pak.entries().first().map_or("0x1A2B3C4D".into(), |e| {
                asset_id_string(e.id, pak.wide_ids())
            });
            anyhow!(
                "{}: no resource {member:?} (give an asset ID such as {example}, ID.TYPE, \
                 or a name from the named table; `info` lists them)",
                path.display(),
            )
        })?;
        let resource = resolver.resource(entry)?;
        return Ok((resource, Box::new(resolver)));
    }

    if super::disc::is_disc_image(&path) {
        bail!(
            "{}: is a disc image: name a file on it (DISC:PATH_ON_DISC[:0xID], e.g. \
             {}:Metroid1.pak:0x1A2B3C4D); `tevscope info` lists its files and `tevscope worlds` \
             its rooms",
            path.display(),
            path.display()
        );
    }
    let bytes = builtin::read(&path).with_context(|| format!("reading {}", path.display()))?;
    if Pak::sniff(&bytes) && has_extension(&path, "pak") {
        // Parse the table only for the game; the resolver re-reads the archive if it is
        // ever used, so a large PAK is not held twice.
        let label = path.display().to_string();
        let game = Pak::parse(&bytes, &label).ok().map(|p| p.game);
        let resource = Resource {
            label,
            path: path.clone(),
            bytes,
            fourcc: None,
            id: None,
            game,
        };
        let resolver = LazyPakResolver {
            path,
            pak: std::sync::OnceLock::new(),
        };
        return Ok((resource, Box::new(resolver)));
    }

    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (id, fourcc) = match id_from_file_name(&name) {
        Some((id, f)) => (Some(id), Some(f)),
        None => (None, fourcc_from_extension(&path)),
    };
    let resource = Resource {
        label: path.display().to_string(),
        path: path.clone(),
        bytes,
        fourcc,
        id,
        game: None,
    };
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((resource, Box::new(FolderResolver::new(&dir))))
}

/// Splits `FILE` or `FILE:MEMBER`. A spec that names an existing file (or a built-in one)
/// is never split (so paths with colons work); otherwise the part before the last colon must
/// exist. A folder is named as one (even `x.CMDL`), not reported missing.
pub fn split_spec(spec: &str) -> anyhow::Result<(PathBuf, Option<&str>)> {
    const FORMS: &str = "inputs are FILE, FILE.pak:0xID[.TYPE], FILE.pak:name or \
                         DISC:PATH_ON_DISC[:0xID|:name]";
    let exists = |p: &Path| builtin::is_builtin(p) || p.is_file() || super::disc::is_member(p);
    let whole = Path::new(spec);
    if exists(whole) {
        return Ok((whole.to_path_buf(), None));
    }
    if whole.is_dir() {
        bail!("{spec}: is a folder, not a file ({FORMS})");
    }
    if let Some((file, member)) = spec.rsplit_once(':') {
        let path = Path::new(file);
        if exists(path) && !member.is_empty() {
            return Ok((path.to_path_buf(), Some(member)));
        }
        if path.is_dir() {
            bail!("{file}: is a folder, not a PAK ({FORMS})");
        }
    }
    bail!("{spec}: no such file ({FORMS})")
}

/// Finds a PAK member by `0xID`, `ID`, `0xID.TYPE` or name.
pub fn resolve_member<'p>(pak: &'p Pak, member: &str) -> Option<&'p PakEntry> {
    if let Some(entry) = pak.find_by_name(member) {
        return Some(entry);
    }
    let (id_part, fourcc) = match member.rsplit_once('.') {
        Some((id, ext)) => (id, Some(fourcc_from_str(ext)?)),
        None => (member, None),
    };
    let hex = id_part
        .strip_prefix("0x")
        .or_else(|| id_part.strip_prefix("0X"))
        .unwrap_or(id_part);
    let id = u64::from_str_radix(hex, 16).ok()?;
    pak.find(id, fourcc)
}

/// The asset ID and type in a file name such as `0x7EC00001.TXTR`, `7ec00001.txtr`,
/// `0x7EC00001_spot.TXTR` or `spot_0x7EC00001.TXTR`: an 8- or 16-digit hex ID (with
/// `0x`, anywhere between separators; or without, at the start) and a 4-character
/// extension.
pub fn id_from_file_name(name: &str) -> Option<(u64, [u8; 4])> {
    let (stem, ext) = name.rsplit_once('.')?;
    let fourcc = fourcc_from_str(ext)?;
    let is_sep = |c: Option<char>| c.is_none_or(|c| !c.is_ascii_alphanumeric());
    let hex_run = |s: &str| s.chars().take_while(char::is_ascii_hexdigit).count();
    // `0x` + hex, between separators.
    for (at, _) in stem.match_indices(['0']) {
        let rest = &stem[at..];
        let Some(digits) = rest.strip_prefix("0x").or_else(|| rest.strip_prefix("0X")) else {
            continue;
        };
        let n = hex_run(digits);
        if (n == 8 || n == 16)
            && is_sep(stem[..at].chars().next_back())
            && is_sep(digits[n..].chars().next())
        {
            return Some((u64::from_str_radix(&digits[..n], 16).ok()?, fourcc));
        }
    }
    // Bare hex at the start.
    let n = hex_run(stem);
    if (n == 8 || n == 16) && is_sep(stem[n..].chars().next()) {
        return Some((u64::from_str_radix(&stem[..n], 16).ok()?, fourcc));
    }
    None
}

/// `txtr` → `TXTR`; None unless 4 ASCII alphanumerics.
fn fourcc_from_str(s: &str) -> Option<[u8; 4]> {
    let b = s.as_bytes();
    if b.len() != 4 || !b.iter().all(u8::is_ascii_alphanumeric) {
        return None;
    }
    Some([b[0], b[1], b[2], b[3]].map(|c| c.to_ascii_uppercase()))
}

fn fourcc_from_extension(path: &Path) -> Option<[u8; 4]> {
    fourcc_from_str(path.extension()?.to_str()?)
}

fn has_extension(path: &Path, ext: &str) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(ext))
}

/// Archives at least this large are memory-mapped instead of read.
const MAP_THRESHOLD: u64 = 1 << 20;

/// Opens a PAK on disk. Large archives are memory-mapped, so parsing the tables touches only
/// the pages it reads and each resource is decompressed on demand: a retail-sized archive is
/// listed without reading (or holding) its data.
pub fn open_archive(path: &Path) -> anyhow::Result<PakArchive> {
    let label = path.display().to_string();
    if let Some(bytes) = builtin::bytes(path) {
        return Ok(PakArchive::from_bytes(Arc::new(bytes), &label)?);
    }
    if !path.exists()
        && let Some(source) = super::disc::member_source(path)
    {
        return Ok(PakArchive::from_ranges(source, &label)?);
    }
    let file = std::fs::File::open(path).with_context(|| format!("opening {label}"))?;
    let len = file
        .metadata()
        .with_context(|| format!("reading {label}"))?
        .len();
    let bytes: ArchiveBytes = if len >= MAP_THRESHOLD {
        Arc::new(map_file(&file).with_context(|| format!("mapping {label}"))?)
    } else {
        Arc::new(std::fs::read(path).with_context(|| format!("reading {label}"))?)
    };
    Ok(PakArchive::from_bytes(bytes, &label)?)
}

/// Maps `file` read-only.
#[allow(unsafe_code)]
fn map_file(file: &std::fs::File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: the map is read-only and lives as long as the archive that owns it. Another
    // program truncating the file while it is open would make reads past the new end fault;
    // tevscope itself never rewrites a file in place (it writes a temporary file and renames
    // it over the original, which leaves this mapping on the old file).
    unsafe { memmap2::Mmap::map(file) }
}

/// One resource of a PAK, as a listing shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PakRow {
    /// `0x1A2B3C4D`.
    pub id: String,
    /// `CMDL`.
    pub fourcc: FourCc,
    /// Name from the named-resource table, if any.
    pub name: Option<String>,
    /// The spec that opens it: `file.pak:0x1A2B3C4D.CMDL`.
    pub spec: String,
    /// Stored size in bytes.
    pub size: u32,
    /// What the type is to the application (None for types it does not know).
    pub kind: Option<AssetKind>,
}

impl PakRow {
    /// Whether the viewer opens it (see [`AssetKind::opens`]).
    pub fn opens(&self) -> bool {
        self.kind.is_some_and(AssetKind::opens)
    }
}

/// Lists a PAK's resources (named ones first, then by type and ID) from its tables alone:
/// nothing is decompressed.
pub fn list_pak(path: &Path) -> anyhow::Result<Vec<PakRow>> {
    let archive = open_archive(path)?;
    let pak = &archive.pak;
    let label = path.display().to_string();
    let wide = pak.wide_ids();
    let mut rows: Vec<PakRow> = pak
        .entries()
        .iter()
        .map(|e| {
            let id = asset_id_string(e.id, wide);
            let fourcc = FourCc(e.fourcc);
            PakRow {
                spec: format!("{label}:{id}.{fourcc}"),
                name: pak.name_of(e).map(str::to_string),
                id,
                fourcc,
                size: e.size,
                kind: AssetKind::from_fourcc(e.fourcc),
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        a.name
            .is_none()
            .cmp(&b.name.is_none())
            .then_with(|| a.fourcc.cmp(&b.fourcc))
            .then_with(|| a.id.cmp(&b.id))
    });
    rows.dedup_by(|a, b| a.spec == b.spec);
    Ok(rows)
}

/// Resolves within one PAK (the archive is shared, so clones are cheap).
#[derive(Clone)]
pub struct PakResolver {
    pub archive: Arc<PakArchive>,
    pub path: PathBuf,
}

impl PakResolver {
    /// Opens and parses a PAK (see [`open_archive`]).
    pub fn open(path: &Path) -> anyhow::Result<Self> {
        let archive = open_archive(path)?;
        Ok(Self {
            archive: Arc::new(archive),
            path: path.to_path_buf(),
        })
    }

    /// The decompressed member `entry` as a [`Resource`].
    pub fn resource(&self, entry: &PakEntry) -> anyhow::Result<Resource> {
        let pak = &self.archive.pak;
        Ok(Resource {
            label: pak.entry_label(entry),
            path: self.path.clone(),
            bytes: self.archive.read(entry)?,
            fourcc: Some(entry.fourcc),
            id: Some(entry.id),
            game: Some(pak.game),
        })
    }
}

impl Resolver for PakResolver {
    fn find(&self, id: u64, fourcc: Option<[u8; 4]>) -> anyhow::Result<Option<Resource>> {
        match self.archive.pak.find(id, fourcc) {
            Some(entry) => self.resource(entry).map(Some),
            None => Ok(None),
        }
    }

    fn find_named(&self, name: &str, fourcc: [u8; 4]) -> anyhow::Result<Option<Resource>> {
        match self.archive.pak.find_by_name(name) {
            Some(entry) if entry.fourcc == fourcc => self.resource(entry).map(Some),
            _ => Ok(None),
        }
    }

    fn describe(&self) -> String {
        self.path.display().to_string()
    }

    fn archive(&self) -> Option<Arc<PakArchive>> {
        Some(Arc::clone(&self.archive))
    }
}

/// A [`PakResolver`] opened on first use (for inputs that are a whole PAK).
pub struct LazyPakResolver {
    path: PathBuf,
    pak: std::sync::OnceLock<Result<PakResolver, String>>,
}

impl Resolver for LazyPakResolver {
    fn find(&self, id: u64, fourcc: Option<[u8; 4]>) -> anyhow::Result<Option<Resource>> {
        let resolver = self
            .pak
            .get_or_init(|| PakResolver::open(&self.path).map_err(|e| format!("{e:#}")));
        match resolver {
            Ok(r) => r.find(id, fourcc),
            Err(e) => bail!("{e}"),
        }
    }

    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}

/// How deep below a folder [`FolderResolver`] looks (extractors nest resources in type or
/// name folders such as `Uncategorized/`), and how many files it indexes at most, so a
/// resolver opened in a huge folder stays cheap.
const FOLDER_DEPTH: usize = 3;
const FOLDER_MAX_FILES: usize = 50_000;
/// How many folders above the input's own a lookup that missed looks for the root of an
/// extracted archive (an extractor puts `Characters/Samus/Samus.ANCS` and
/// `Uncategorized/1A2B3C4D.TXTR` under one root).
const FOLDER_ANCESTORS: usize = 4;

/// Whether `dir` looks like the root of an extracted archive: it holds an `Uncategorized`
/// folder or the `pak.json` that `tevscope extract` writes. Lookups climb only to such a
/// folder, never into unrelated parents.
fn is_extraction_root(dir: &Path) -> bool {
    dir.join("pak.json").is_file()
        || std::fs::read_dir(dir)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| {
                e.file_type().is_ok_and(|t| t.is_dir())
                    && e.file_name().eq_ignore_ascii_case("uncategorized")
            })
}

/// The files of one folder tree, indexed by the asset IDs and names their file names carry.
#[derive(Default)]
struct FolderIndex {
    by_id_type: HashMap<(u64, [u8; 4]), PathBuf>,
    by_id: HashMap<u64, PathBuf>,
    /// Lowercase file stem and type → path (files named after their resource).
    by_name: HashMap<(String, [u8; 4]), PathBuf>,
    /// Files of each type directly in the root folder.
    top_level: HashMap<[u8; 4], Vec<PathBuf>>,
}

impl FolderIndex {
    /// Indexes `root` and its subfolders, breadth first (the root's own files win over
    /// deeper ones with the same ID, and within a folder the first in name order wins).
    fn build(root: &Path) -> Self {
        let mut index = Self::default();
        let mut level = vec![root.to_path_buf()];
        let mut seen = 0usize;
        for depth in 0..=FOLDER_DEPTH {
            let mut next = Vec::new();
            for dir in &level {
                let mut entries: Vec<(String, PathBuf, bool)> = std::fs::read_dir(dir)
                    .into_iter()
                    .flatten()
                    .flatten()
                    .filter_map(|e| {
                        let kind = e.file_type().ok()?;
                        let name = e.file_name().to_string_lossy().into_owned();
                        Some((name, e.path(), kind.is_dir()))
                    })
                    .collect();
                entries.sort();
                for (name, path, is_dir) in entries {
                    if is_dir {
                        if !name.starts_with('.') {
                            next.push(path);
                        }
                        continue;
                    }
                    seen += 1;
                    if seen > FOLDER_MAX_FILES {
                        return index;
                    }
                    index.add(&name, path, depth == 0);
                }
            }
            level = next;
        }
        index
    }

    fn add(&mut self, name: &str, path: PathBuf, top: bool) {
        if let Some((id, fourcc)) = id_from_file_name(name) {
            self.by_id_type
                .entry((id, fourcc))
                .or_insert_with(|| path.clone());
            self.by_id.entry(id).or_insert_with(|| path.clone());
        }
        let Some((stem, ext)) = name.rsplit_once('.') else {
            return;
        };
        let Some(fourcc) = fourcc_from_str(ext) else {
            return;
        };
        self.by_name
            .entry((stem.to_lowercase(), fourcc))
            .or_insert_with(|| path.clone());
        if top {
            self.top_level.entry(fourcc).or_default().push(path);
        }
    }

    fn find(&self, id: u64, fourcc: Option<[u8; 4]>) -> Option<&PathBuf> {
        match fourcc {
            Some(f) => self.by_id_type.get(&(id, f)),
            None => self.by_id.get(&id),
        }
    }
}

/// Resolves among the files of a folder and its subfolders, by the asset IDs their names
/// carry (`0x1A2B3C4D.TXTR`, `1A2B3C4D.TXTR`, `Uncategorized/1A2B3C4D.TXTR`), then by name;
/// a lookup that misses climbs to the root of the extracted archive the folder is in, if
/// any (see [`is_extraction_root`]).
pub struct FolderResolver {
    dir: PathBuf,
    index: FolderIndex,
    /// Index of the extraction root above the folder, if any, built on the first miss.
    ancestors: std::sync::OnceLock<Vec<FolderIndex>>,
}

impl FolderResolver {
    /// Indexes `dir` (an unreadable folder gives an empty index).
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            index: FolderIndex::build(dir),
            ancestors: std::sync::OnceLock::new(),
        }
    }

    /// A resolver for one folder tree only (an explicit `--texture-dir`): no climbing.
    pub fn without_ancestors(dir: &Path) -> Self {
        let r = Self::new(dir);
        let _ = r.ancestors.set(Vec::new());
        r
    }

    fn ancestors(&self) -> &[FolderIndex] {
        self.ancestors.get_or_init(|| {
            let dir = std::fs::canonicalize(&self.dir).unwrap_or_else(|_| self.dir.clone());
            dir.ancestors()
                .skip(1)
                .take(FOLDER_ANCESTORS)
                .find(|up| is_extraction_root(up))
                .map(|root| vec![FolderIndex::build(root)])
                .unwrap_or_default()
        })
    }

    /// The first index (own folder, then ancestors) where `pick` finds a path.
    fn lookup(&self, pick: impl Fn(&FolderIndex) -> Option<&PathBuf>) -> Option<PathBuf> {
        pick(&self.index)
            .or_else(|| self.ancestors().iter().find_map(&pick))
            .cloned()
    }

    fn read(&self, path: &Path, id: Option<u64>) -> anyhow::Result<Resource> {
        let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let named = id_from_file_name(&name);
        Ok(Resource {
            label: path.display().to_string(),
            path: path.to_path_buf(),
            bytes,
            fourcc: named
                .map(|(_, f)| f)
                .or_else(|| fourcc_from_extension(path)),
            id: id.or(named.map(|(i, _)| i)),
            game: None,
        })
    }
}

impl Resolver for FolderResolver {
    fn find(&self, id: u64, fourcc: Option<[u8; 4]>) -> anyhow::Result<Option<Resource>> {
        match self.lookup(|i| i.find(id, fourcc)) {
            Some(path) => self.read(&path, Some(id)).map(Some),
            None => Ok(None),
        }
    }

    fn find_named(&self, name: &str, fourcc: [u8; 4]) -> anyhow::Result<Option<Resource>> {
        let key = (name.to_lowercase(), fourcc);
        match self.lookup(|i| i.by_name.get(&key)) {
            Some(path) => self.read(&path, None).map(Some),
            None => Ok(None),
        }
    }

    fn only_of_type(&self, fourcc: [u8; 4]) -> anyhow::Result<Option<Resource>> {
        match self.index.top_level.get(&fourcc).map(Vec::as_slice) {
            Some([only]) => self.read(only, None).map(Some),
            _ => Ok(None),
        }
    }

    fn describe(&self) -> String {
        format!("folder {} (and its subfolders)", self.dir.display())
    }
}

/// `0x1A000001.TXTR` for a resource with known ID and type.
pub fn resource_name(id: u64, fourcc: [u8; 4], wide: bool) -> String {
    format!("{}.{}", asset_id_string(id, wide), fourcc_string(fourcc))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn file_names_carry_ids() {
        let t = |n: &str| id_from_file_name(n);
        assert_eq!(t("0x7EC00001.TXTR"), Some((0x7EC0_0001, *b"TXTR")));
        assert_eq!(t("0x7ec00001.txtr"), Some((0x7EC0_0001, *b"TXTR")));
        assert_eq!(t("7EC00001.TXTR"), Some((0x7EC0_0001, *b"TXTR")));
        assert_eq!(t("0x7EC00001_spot.TXTR"), Some((0x7EC0_0001, *b"TXTR")));
        assert_eq!(t("spot_0x7EC00001.TXTR"), Some((0x7EC0_0001, *b"TXTR")));
        assert_eq!(
            t("0x0123456789ABCDEF.CMDL"),
            Some((0x0123_4567_89AB_CDEF, *b"CMDL"))
        );
        assert_eq!(t("Sphere.CMDL"), None);
        assert_eq!(t("0x7EC0001.TXTR"), None);
        assert_eq!(t("a0x7EC00001.TXTR"), None);
        assert_eq!(t("0x7EC00001.pak"), None);
        assert_eq!(t("deadbeef1.TXTR"), None);
    }

    #[test]
    fn a_folder_is_named_as_one_even_with_a_model_extension() {
        let d = std::env::temp_dir().join(format!("tevscope-spec-{}", std::process::id()));
        let folder = d.join("x.CMDL");
        std::fs::create_dir_all(&folder).unwrap();
        let e = split_spec(folder.to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("is a folder"), "{e}");
        let e = open(&format!("{}:0x10", folder.display()))
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains("x.CMDL: is a folder, not a PAK"), "{e}");
        let e = split_spec(d.join("missing.CMDL").to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("no such file"), "{e}");
        std::fs::remove_dir_all(&d).ok();
    }

    #[test]
    fn members_by_id_type_or_name() {
        let mut b = crate::formats::pak::PakBuilder::new(Game::Mp1);
        b.add_name(*b"CMDL", 0x20, "model");
        b.add(*b"TXTR", 0x10, b"t", false);
        b.add(*b"CMDL", 0x20, b"m", false);
        let bytes = b.build().unwrap();
        let pak = Pak::parse(&bytes, "p.pak").unwrap();
        assert_eq!(resolve_member(&pak, "0x10").unwrap().index, 0);
        assert_eq!(resolve_member(&pak, "00000010").unwrap().index, 0);
        assert_eq!(resolve_member(&pak, "0x00000020.cmdl").unwrap().index, 1);
        assert!(resolve_member(&pak, "0x20.TXTR").is_none());
        assert_eq!(resolve_member(&pak, "Model").unwrap().index, 1);
        assert!(resolve_member(&pak, "nothing").is_none());
    }
}
