//! Replacing one resource inside an existing PAK, leaving every other byte where it was.
//!
//! Rebuilding the archive from its table ([`super::pak::Pak::to_builder`]) would re-lay the data
//! in table order and re-pad it; modders' archives need not follow that, and the other
//! resources' compressed bytes must not change. So the new stored bytes are spliced over the
//! old ones, and only the size of the edited row and the offsets of data after it (plus, in
//! MP3's version 2, the DATA section size) are rewritten.

use super::compression::{compress_cmpd, compress_lzo, compress_zlib};
use super::pak::{Compression, Pak, PakEntry, PakLayout};
use super::{ErrorKind, FormatError, Result};

/// Bytes of one resource-table row.
fn row_size(layout: PakLayout) -> usize {
    match layout {
        PakLayout::V3_5 => 20,
        PakLayout::V3_5Wide | PakLayout::V2 => 24,
    }
}

/// The stored form of `resource` for `entry`: compressed the way the entry was (zlib, LZO
/// segments, CMPD), raw if it was raw, then padded with 0xFF like the rest of the archive.
pub fn stored_form(pak: &Pak, data: &[u8], entry: &PakEntry, resource: &[u8]) -> Vec<u8> {
    let mut out = match pak.compression_of(data, entry) {
        None => resource.to_vec(),
        Some(Compression::Zlib) => compress_zlib(resource),
        Some(Compression::LzoSegments) => compress_lzo(resource),
        Some(Compression::Cmpd) => compress_cmpd(resource),
    };
    let align = if pak.layout == PakLayout::V2 { 64 } else { 32 };
    out.resize(out.len().next_multiple_of(align), 0xFF);
    out
}

/// The archive with `entry`'s data replaced by `resource` (decompressed bytes). Rows sharing the
/// entry's data get its new size; data after it moves by the size difference.
pub fn replace_resource(
    pak: &Pak,
    data: &[u8],
    entry: &PakEntry,
    resource: &[u8],
) -> Result<Vec<u8>> {
    let stored = stored_form(pak, data, entry, resource);
    let old = pak.stored(data, entry)?;
    let start = entry.data_offset as usize;
    let end = start + old.len();
    let delta = stored.len() as i64 - old.len() as i64;
    let too_big = |field: String, at: u64| {
        FormatError::new(
            &pak.file,
            field,
            at,
            ErrorKind::Invalid("the edited archive would exceed 4 GiB".into()),
        )
    };
    let size = u32::try_from(stored.len())
        .map_err(|_| too_big(format!("resource[{}].size", entry.index), 0))?;

    let mut out = Vec::with_capacity(data.len().saturating_add_signed(delta as isize));
    out.extend_from_slice(&data[..start]);
    out.extend_from_slice(&stored);
    out.extend_from_slice(&data[end..]);

    let row = row_size(pak.layout);
    let entries = pak.entries();
    let rows_start = (pak.table_end as usize)
        .checked_sub(row * entries.len())
        .ok_or_else(|| {
            FormatError::new(
                &pak.file,
                "resource_table",
                pak.table_end,
                ErrorKind::Invalid("table end before its rows".into()),
            )
        })?;
    let put = |out: &mut Vec<u8>, at: usize, v: u32| {
        out[at..at + 4].copy_from_slice(&v.to_be_bytes());
    };
    for e in entries {
        let at = rows_start + e.index * row;
        if e.data_offset == entry.data_offset {
            put(&mut out, at + row - 8, size);
        } else if e.data_offset > entry.data_offset {
            let moved = u32::try_from(i64::from(e.offset) + delta)
                .map_err(|_| too_big(format!("resource[{}].offset", e.index), at as u64))?;
            put(&mut out, at + row - 4, moved);
        }
    }
    if let Some(v2) = &pak.v2 {
        // Section table at 0x40: count, then (FourCC, size) pairs.
        if let Some(i) = v2.sections.iter().position(|(f, _)| f == b"DATA") {
            let at = 0x44 + 8 * i + 4;
            let grown = u32::try_from(i64::from(v2.sections[i].1) + delta)
                .map_err(|_| too_big("section.size".into(), at as u64))?;
            put(&mut out, at, grown);
        }
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::formats::Game;
    use crate::formats::pak::PakBuilder;

    /// Three resources: the middle one is replaced; the others keep their stored bytes.
    fn check(game: Game, compress: bool) {
        let mut b = PakBuilder::new(game);
        let a = vec![1u8; 100];
        let mid = vec![2u8; 300];
        let c: Vec<u8> = (0..=255).collect();
        b.add(*b"TXTR", 1, &a, compress);
        b.add(*b"CMDL", 2, &mid, compress);
        b.add(*b"TXTR", 3, &c, compress);
        b.add_name(*b"CMDL", 2, "model");
        let data = b.build().unwrap();
        let pak = Pak::parse(&data, "t.pak").unwrap();
        let e = pak.entries()[1].clone();
        let bigger: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        let out = replace_resource(&pak, &data, &e, &bigger).unwrap();
        let back = Pak::parse(&out, "t.pak").unwrap();
        assert_eq!(back.game, pak.game);
        let read = back.read(&out, &back.entries()[1]).unwrap();
        assert_eq!(&read[..bigger.len()], &bigger[..]);
        for i in [0, 2] {
            assert_eq!(
                back.stored(&out, &back.entries()[i]).unwrap(),
                pak.stored(&data, &pak.entries()[i]).unwrap()
            );
        }
        assert_eq!(back.named(), pak.named());
        assert_eq!(
            back.compression_of(&out, &back.entries()[1]),
            pak.compression_of(&data, &e)
        );
        // Putting the original back gives the original archive when it was stored raw.
        if !compress {
            let again = replace_resource(&back, &out, &back.entries()[1], &mid).unwrap();
            assert_eq!(again, data);
        }
    }

    #[test]
    fn replaces_one_resource_in_every_layout() {
        for game in [Game::Mp1, Game::Mp2, Game::Mp3] {
            check(game, true);
            check(game, false);
        }
    }
}
