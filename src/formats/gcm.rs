//! Writing GameCube disc images (GCM/ISO, formats.md §14.2): the system area (boot.bin,
//! bi2.bin, apploader, DOL), a new FST, and the files' places. Reading images is the `nod`
//! crate's job; this writes what nod 2.0 does not build (a GameCube image from files), for
//! saving an edited PAK into a copy of the user's disc.

use super::{ErrorKind, FormatError, Result};

/// Sizes of the fixed system areas (§14.2).
const BOOT_SIZE: usize = 0x440;
const BI2_SIZE: usize = 0x2000;
const APPLOADER_AT: u64 = 0x2440;
/// Where the DOL and the FST start (retail masters align them so), and each file.
const SYSTEM_ALIGN: u64 = 0x100;
const FILE_ALIGN: u64 = 0x8000;

/// Where everything of a new image goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GcmLayout {
    /// boot.bin, bi2.bin, apploader, DOL and FST, with zeros between them: the image's
    /// first bytes, up to the first file.
    pub head: Vec<u8>,
    /// Each file's offset in the image, in the order given.
    pub offsets: Vec<u64>,
    /// The image's size (the end of the last file, rounded up to [`FILE_ALIGN`]).
    pub size: u64,
}

fn align(v: u64, to: u64) -> u64 {
    v.div_ceil(to) * to
}

fn invalid(field: &str, what: String) -> FormatError {
    FormatError::new("disc image", field, 0, ErrorKind::Invalid(what))
}

/// Lays out a GameCube image holding `files` (`/`-separated paths, in FST order, i.e. each
/// folder's files together, as a disc lists them) with the given system files. `boot` gets
/// the new DOL and FST offsets and sizes; the rest is copied as it is.
pub fn layout(
    boot: &[u8],
    bi2: &[u8],
    apploader: &[u8],
    dol: &[u8],
    files: &[(String, u64)],
) -> Result<GcmLayout> {
    if boot.len() != BOOT_SIZE || bi2.len() != BI2_SIZE {
        return Err(invalid(
            "boot.bin",
            format!(
                "boot.bin and bi2.bin must be {BOOT_SIZE:#x} and {BI2_SIZE:#x} bytes, not {:#x} and {:#x}",
                boot.len(),
                bi2.len()
            ),
        ));
    }
    let dol_at = align(APPLOADER_AT + apploader.len() as u64, SYSTEM_ALIGN);
    let fst_at = align(dol_at + dol.len() as u64, SYSTEM_ALIGN);
    let (entries, names) = fst_tables(files)?;
    let fst_size = entries.len() as u64 * 12 + names.len() as u64;
    let mut at = align(fst_at + fst_size, FILE_ALIGN);
    let mut offsets = Vec::with_capacity(files.len());
    for (path, size) in files {
        offsets.push(at);
        at = align(at + size, FILE_ALIGN);
        if at > u64::from(u32::MAX) {
            return Err(invalid(
                "fst",
                format!("{path}: a GameCube image cannot reach past 4 GiB"),
            ));
        }
    }
    let size = at.max(align(fst_at + fst_size, FILE_ALIGN));
    let u32_of = |v: u64| u32::try_from(v).unwrap_or(u32::MAX).to_be_bytes();

    let mut head = vec![0; usize::try_from(fst_at + fst_size).unwrap_or(usize::MAX)];
    head[..BOOT_SIZE].copy_from_slice(boot);
    head[0x420..0x424].copy_from_slice(&u32_of(dol_at));
    head[0x424..0x428].copy_from_slice(&u32_of(fst_at));
    head[0x428..0x42C].copy_from_slice(&u32_of(fst_size));
    head[0x42C..0x430].copy_from_slice(&u32_of(fst_size));
    head[BOOT_SIZE..BOOT_SIZE + BI2_SIZE].copy_from_slice(bi2);
    let put = |head: &mut Vec<u8>, at: u64, bytes: &[u8]| {
        let at = at as usize;
        head[at..at + bytes.len()].copy_from_slice(bytes);
    };
    put(&mut head, APPLOADER_AT, apploader);
    put(&mut head, dol_at, dol);
    let mut fst = Vec::with_capacity(fst_size as usize);
    let mut file_index = 0;
    for e in &entries {
        let (word1, word2) = match e.kind {
            Entry::Dir { parent, end } => (parent, end),
            Entry::File => {
                let w = (
                    u32::try_from(offsets[file_index]).unwrap_or(u32::MAX),
                    u32::try_from(files[file_index].1).map_err(|_| {
                        invalid("fst", format!("{}: larger than 4 GiB", files[file_index].0))
                    })?,
                );
                file_index += 1;
                w
            }
        };
        let flag = u32::from(matches!(e.kind, Entry::Dir { .. })) << 24;
        fst.extend_from_slice(&(flag | e.name_offset).to_be_bytes());
        fst.extend_from_slice(&word1.to_be_bytes());
        fst.extend_from_slice(&word2.to_be_bytes());
    }
    fst.extend_from_slice(&names);
    put(&mut head, fst_at, &fst);
    Ok(GcmLayout {
        head,
        offsets,
        size,
    })
}

#[derive(Debug, Clone, Copy)]
enum Entry {
    Dir { parent: u32, end: u32 },
    File,
}

struct FstEntry {
    name_offset: u32,
    kind: Entry,
}

/// The FST entries (root first) and name table for `files` in order: a folder opens where
/// its first file is met and closes when a file outside it follows.
fn fst_tables(files: &[(String, u64)]) -> Result<(Vec<FstEntry>, Vec<u8>)> {
    let mut names = Vec::new();
    let mut entries = vec![FstEntry {
        name_offset: 0,
        kind: Entry::Dir { parent: 0, end: 0 },
    }];
    let mut add_name = |name: &str| -> Result<u32> {
        if name.is_empty() || !name.is_ascii() {
            return Err(invalid(
                "fst.name",
                format!("{name:?}: names must be non-empty ASCII"),
            ));
        }
        let at = u32::try_from(names.len()).unwrap_or(u32::MAX);
        if at >= 1 << 24 {
            return Err(invalid("fst.name", "name table larger than 16 MiB".into()));
        }
        names.extend_from_slice(name.as_bytes());
        names.push(0);
        Ok(at)
    };
    // Open folders: (name, entry index).
    let mut open: Vec<(String, usize)> = Vec::new();
    let close = |entries: &mut Vec<FstEntry>, idx: usize| {
        let end = entries.len() as u32;
        if let Entry::Dir { end: e, .. } = &mut entries[idx].kind {
            *e = end;
        }
    };
    for (path, _) in files {
        let parts: Vec<&str> = path.split('/').collect();
        let (file, dirs) = parts
            .split_last()
            .ok_or_else(|| invalid("fst", "empty path".into()))?;
        let common = open
            .iter()
            .zip(dirs.iter())
            .take_while(|((o, _), d)| o == *d)
            .count();
        for (_, idx) in open.split_off(common).into_iter().rev() {
            close(&mut entries, idx);
        }
        for d in &dirs[common..] {
            let parent = open.last().map_or(0, |(_, i)| *i as u32);
            let name_offset = add_name(d)?;
            open.push(((*d).to_string(), entries.len()));
            entries.push(FstEntry {
                name_offset,
                kind: Entry::Dir { parent, end: 0 },
            });
        }
        let name_offset = add_name(file)?;
        entries.push(FstEntry {
            name_offset,
            kind: Entry::File,
        });
    }
    while let Some((_, idx)) = open.pop() {
        close(&mut entries, idx);
    }
    let count = entries.len() as u32;
    entries[0].kind = Entry::Dir {
        parent: 0,
        end: count,
    };
    Ok((entries, names))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn folders_open_and_close_in_order() {
        let files = [
            ("a/x.txt".to_string(), 3),
            ("a/b/y.pak".to_string(), 40_000),
            ("z.bin".to_string(), 1),
        ];
        let l = layout(&[0; 0x440], &[0; 0x2000], &[1; 0x20], &[2; 0x100], &files).unwrap();
        assert_eq!(l.offsets, vec![0x8000, 0x10000, 0x20000]);
        assert_eq!(l.size, 0x28000);
        let fst_at = u32::from_be_bytes(l.head[0x424..0x428].try_into().unwrap()) as usize;
        let word = |i: usize, w: usize| {
            let at = fst_at + i * 12 + w * 4;
            u32::from_be_bytes(l.head[at..at + 4].try_into().unwrap())
        };
        // root, a/, x.txt, b/, y.pak, z.bin
        assert_eq!(word(0, 2), 6);
        assert_eq!(word(1, 0) >> 24, 1);
        assert_eq!((word(1, 1), word(1, 2)), (0, 5));
        assert_eq!((word(3, 1), word(3, 2)), (1, 5));
        assert_eq!((word(4, 1), word(4, 2)), (0x10000, 40_000));
        assert_eq!(word(5, 0) >> 24, 0);
        assert!(layout(&[0; 4], &[0; 0x2000], &[], &[], &files).is_err());
    }
}
