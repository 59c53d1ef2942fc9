//! STRG string tables (formats.md §12.6): per language, the same number of strings.
//! Versions 0 (MP1), 1 (MP2, with a name table) and 3 (MP3, UTF-8). Read only.

use super::reader::{Reader, Writer, to_latin1};
use super::{ErrorKind, FourCc, Result};

pub const MAGIC: u32 = 0x8765_4321;

/// One language's strings, with where the file put them (for reports).
#[derive(Debug, Clone, PartialEq)]
pub struct StrgLanguage {
    /// `ENGL`, `GERM`, `FREN`…
    pub code: FourCc,
    /// The language's offset as its table stores it (version 0 and 1; 0 in version 3).
    pub offset: u32,
    /// The block size as stored (version 0: the size field; 1: the table's; 3: strings size).
    pub size: u32,
    /// Each string's offset as stored.
    pub string_offsets: Vec<u32>,
    pub strings: Vec<String>,
}

/// A parsed STRG.
#[derive(Debug, Clone, PartialEq)]
pub struct Strg {
    pub version: u32,
    pub string_count: u32,
    pub languages: Vec<StrgLanguage>,
    /// Name table (versions 1 and 3): (name, string index), in file order.
    pub names: Vec<(String, u32)>,
    /// The name table's stored byte size (`T`), when the version has one.
    pub name_table_size: Option<u32>,
    /// Where the first language's data starts (after the tables).
    pub strings_start: usize,
    pub warnings: Vec<String>,
}

impl Strg {
    pub fn parse(data: &[u8], file: &str) -> Result<Strg> {
        let mut r = Reader::new(data, file);
        r.expect_u32("magic", MAGIC)?;
        let at = r.pos();
        let version = r.u32("version")?;
        let mut warnings = Vec::new();
        let languages_n = r.count("language_count", 8)?;
        let string_count = r.u32("string_count")?;
        let budget = &mut Budget::new(data.len());
        let (languages, names, name_table_size, strings_start) = match version {
            0 => {
                let (l, start) =
                    parse_v0(&mut r, languages_n, string_count, &mut warnings, budget)?;
                (l, Vec::new(), None, start)
            }
            1 => parse_v1(&mut r, languages_n, string_count, budget)?,
            3 => parse_v3(&mut r, languages_n, string_count, budget)?,
            v => {
                return Err(r.err_at(
                    "version",
                    at,
                    ErrorKind::OutOfRange {
                        value: v.into(),
                        expected: "0 (MP1), 1 (MP2) or 3 (MP3)".into(),
                    },
                ));
            }
        };
        for (name, index) in &names {
            if *index >= string_count {
                warnings.push(format!(
                    "name `{name}` points at string {index}, but there are {string_count}"
                ));
            }
        }
        Ok(Strg {
            version,
            string_count,
            languages,
            names,
            name_table_size,
            strings_start,
            warnings,
        })
    }

    /// The file in the layout the games use (versions 0 and 1; None for 3, not written yet):
    /// MP1 offsets pointing at each block's size field (§12.6), blocks and strings in order,
    /// 0xFF padding to 32. A file in that layout comes back byte for byte.
    pub fn to_bytes(&self) -> Option<Vec<u8>> {
        let blocks: Vec<Vec<u8>> = self.languages.iter().map(utf16_bytes).collect();
        let mut w = Writer::new();
        w.u32(MAGIC);
        w.u32(self.version);
        w.u32(self.languages.len() as u32);
        w.u32(self.string_count);
        let mut offset = 0;
        for (l, b) in self.languages.iter().zip(&blocks) {
            w.bytes(&l.code.0);
            w.u32(offset);
            match self.version {
                0 => offset += 4 + b.len() as u32,
                1 => {
                    w.u32(b.len() as u32);
                    offset += b.len() as u32;
                }
                _ => return None,
            }
        }
        if self.version == 1 {
            let n = self.names.len() as u32;
            let text: usize = self
                .names
                .iter()
                .map(|(name, _)| to_latin1(name).len() + 1)
                .sum();
            w.u32(n);
            w.u32(8 * n + text as u32);
            let mut at = 8 * n;
            for (name, index) in &self.names {
                w.u32(at);
                w.u32(*index);
                at += to_latin1(name).len() as u32 + 1;
            }
            self.names.iter().for_each(|(name, _)| w.cstring(name));
        }
        for b in &blocks {
            if self.version == 0 {
                w.u32(b.len() as u32);
            }
            w.bytes(b);
        }
        w.pad_to(32, 0xFF);
        Some(w.into_inner())
    }

    /// The language `asked` if present, else ENGL, else the first (§12.7 step 2).
    pub fn language(&self, asked: Option<&str>) -> Option<&StrgLanguage> {
        let find = |code: &str| self.languages.iter().find(|l| l.code == code);
        asked
            .and_then(|a| find(&a.to_ascii_uppercase()))
            .or_else(|| find("ENGL"))
            .or_else(|| self.languages.first())
    }
}

/// Version 0: (FourCC, offset) per language, offsets counted from the end of the table and
/// pointing at each block's size field ([PWE], [MF]). [RDS] 0.38.0 writes them 4 bytes short
/// per earlier language; when an offset does not land on a size that fits, the blocks are
/// read one after another instead, with a warning (§12.6 default).
fn parse_v0(
    r: &mut Reader,
    n: usize,
    string_count: u32,
    warnings: &mut Vec<String>,
    budget: &mut Budget,
) -> Result<(Vec<StrgLanguage>, usize)> {
    let table: Vec<(FourCc, u32)> = (0..n)
        .map(|_| Ok((FourCc(r.fourcc("language.id")?), r.u32("language.offset")?)))
        .collect::<Result<_>>()?;
    let start = r.pos();
    let data = r.data();
    let fits = |pos: usize| {
        let size = data.get(pos..pos + 4)?;
        let size = u32::from_be_bytes(size.try_into().ok()?) as usize;
        (pos + 4 + size <= data.len()).then_some(size)
    };
    let mut sequential = start;
    let mut out = Vec::with_capacity(n);
    for (code, offset) in table {
        let stated = start.saturating_add(offset as usize);
        let pos = if fits(stated).is_some() {
            stated
        } else {
            warnings.push(format!(
                "{code}: offset {offset:#x} does not point at a block size; read after the previous block"
            ));
            sequential
        };
        r.seek("language.block", pos)?;
        let size = r.u32("language.block_size")?;
        let mut block = r.sub("language.block", size as usize)?;
        sequential = r.pos();
        let (string_offsets, strings) = utf16_block(&mut block, string_count, budget)?;
        out.push(StrgLanguage {
            code,
            offset,
            size,
            string_offsets,
            strings,
        });
    }
    Ok((out, start))
}

type Parsed = (Vec<StrgLanguage>, Vec<(String, u32)>, Option<u32>, usize);

/// Version 1: (FourCC, offset, size) per language, then the name table, then the blocks.
fn parse_v1(r: &mut Reader, n: usize, string_count: u32, budget: &mut Budget) -> Result<Parsed> {
    r.check_count("language_table", n as u64, 12)?;
    let table: Vec<(FourCc, u32, u32)> = (0..n)
        .map(|_| {
            Ok((
                FourCc(r.fourcc("language.id")?),
                r.u32("language.offset")?,
                r.u32("language.size")?,
            ))
        })
        .collect::<Result<_>>()?;
    let (names, size) = name_table(r)?;
    let start = r.pos();
    let mut out = Vec::with_capacity(n);
    for (code, offset, size) in table {
        let mut block = r.slice("language.block", start + offset as usize, size as usize)?;
        let (string_offsets, strings) = utf16_block(&mut block, string_count, budget)?;
        out.push(StrgLanguage {
            code,
            offset,
            size,
            string_offsets,
            strings,
        });
    }
    Ok((out, names, Some(size), start))
}

/// Version 3: name table, FourCCs, per language (strings size, offsets), then UTF-8 strings
/// each behind a u32 length, offsets counted from the start of the string data.
fn parse_v3(r: &mut Reader, n: usize, string_count: u32, budget: &mut Budget) -> Result<Parsed> {
    let (names, name_size) = name_table(r)?;
    r.check_count("language_ids", n as u64, 4)?;
    let codes: Vec<FourCc> = (0..n)
        .map(|_| Ok(FourCc(r.fourcc("language.id")?)))
        .collect::<Result<_>>()?;
    let per = 4 + 4 * string_count as usize;
    r.check_count("language_offsets", n as u64, per)?;
    let mut tables = Vec::with_capacity(n);
    for _ in 0..n {
        let size = r.u32("language.strings_size")?;
        tables.push((
            size,
            r.u32_vec("language.string_offsets", string_count as usize)?,
        ));
    }
    let start = r.pos();
    let data = r.slice("strings", start, r.len() - start)?;
    let mut out = Vec::with_capacity(n);
    for (code, (size, string_offsets)) in codes.into_iter().zip(tables) {
        let strings = string_offsets
            .iter()
            .map(|&o| {
                let mut s = data.clone();
                s.seek("string", o as usize)?;
                let len = s.u32("string.length")? as usize;
                let bytes = s.bytes("string", len)?;
                budget.take(&s, len)?;
                match bytes.split_last() {
                    Some((0, text)) => Ok(String::from_utf8_lossy(text).into_owned()),
                    _ => Err(s.invalid("string", "does not end in a zero byte")),
                }
            })
            .collect::<Result<_>>()?;
        out.push(StrgLanguage {
            code,
            offset: 0,
            size,
            string_offsets,
            strings,
        });
    }
    Ok((out, names, Some(name_size), start))
}

/// `u32 n, u32 T, T bytes`: n × (name offset from the first entry, string index), names.
fn name_table(r: &mut Reader) -> Result<(Vec<(String, u32)>, u32)> {
    let n = r.count("name_table.count", 8)?;
    let size = r.u32("name_table.size")?;
    let mut t = r.sub("name_table", size as usize)?;
    t.check_count("name_table.entries", n as u64, 8)?;
    let entries: Vec<(u32, u32)> = (0..n)
        .map(|_| Ok((t.u32("name.offset")?, t.u32("name.index")?)))
        .collect::<Result<_>>()?;
    let names = entries
        .into_iter()
        .map(|(offset, index)| {
            t.seek("name", offset as usize)?;
            Ok((t.cstring("name")?, index))
        })
        .collect::<Result<_>>()?;
    Ok((names, size))
}

/// `S × u32` offsets (relative to the block's start), then UTF-16BE strings ending in a u16
/// zero, all inside `block`.
fn utf16_block(
    block: &mut Reader,
    count: u32,
    budget: &mut Budget,
) -> Result<(Vec<u32>, Vec<String>)> {
    let offsets = block.u32_vec("string_offsets", count as usize)?;
    let strings = offsets
        .iter()
        .map(|&o| {
            block.seek("string", o as usize)?;
            let start = block.pos();
            while block.u16("string (no terminating zero in its block)")? != 0 {}
            let bytes = &block.data()[start..block.pos() - 2];
            budget.take(block, bytes.len())?;
            let units: Vec<u16> = bytes
                .chunks_exact(2)
                .map(|u| u16::from_be_bytes([u[0], u[1]]))
                .collect();
            Ok(String::from_utf16_lossy(&units))
        })
        .collect::<Result<_>>()?;
    Ok((offsets, strings))
}

/// A version 0/1 language block: offsets from the block's start, then the UTF-16BE strings.
fn utf16_bytes(l: &StrgLanguage) -> Vec<u8> {
    let mut w = Writer::new();
    let mut at = 4 * l.strings.len() as u32;
    for s in &l.strings {
        w.u32(at);
        at += 2 * (s.encode_utf16().count() as u32 + 1);
    }
    for s in &l.strings {
        s.encode_utf16().chain([0]).for_each(|u| w.u16(u));
    }
    w.into_inner()
}

/// How many bytes of text a file may decode to: 16 × its size (plus 64 KiB). Offsets may
/// point several strings, or languages, at the same bytes, but a small file must not decode
/// to gigabytes.
struct Budget(usize);

impl Budget {
    fn new(len: usize) -> Self {
        Self(len.saturating_mul(16).saturating_add(1 << 16))
    }

    fn take(&mut self, r: &Reader, n: usize) -> Result<()> {
        self.0 = self.0.checked_sub(n).ok_or_else(|| {
            r.invalid(
                "string",
                "string offsets overlap so much the text exceeds 16 × the file size",
            )
        })?;
        Ok(())
    }
}

/// A string for display: formatting tags (`&image=…;`, `&font=…;`) removed (§12.6).
pub fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        match rest[i..].find(';') {
            Some(j) => rest = &rest[i + j + 1..],
            None => {
                rest = &rest[i..];
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::formats::Writer;

    #[test]
    fn tags_are_stripped() {
        assert_eq!(strip_tags("&font=0x1;Hall &image=x;B"), "Hall B");
        assert_eq!(strip_tags("a & b"), "a & b");
        assert_eq!(strip_tags("plain"), "plain");
    }

    #[test]
    fn bad_version_and_magic_are_refused() {
        let mut b = MAGIC.to_be_bytes().to_vec();
        b.extend([0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0, 0]);
        let e = Strg::parse(&b, "x.STRG").unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("version", 4));
        b[0] = 0;
        assert!(Strg::parse(&b, "x.STRG").is_err());
    }

    #[test]
    fn offsets_repeating_one_long_string_are_refused() {
        let mut w = Writer::new();
        w.u32(MAGIC);
        w.u32(0);
        w.u32(1);
        w.u32(2000);
        w.bytes(b"ENGL");
        w.u32(0);
        w.u32(2000 * 4 + 4002);
        (0..2000).for_each(|_| w.u32(2000 * 4));
        (0..2000).for_each(|_| w.u16(0x41));
        w.u16(0);
        let e = Strg::parse(&w.buf, "x.STRG").unwrap_err();
        assert!(e.to_string().contains("overlap"), "{e}");
    }

    fn header(w: &mut Writer, version: u32) {
        w.u32(MAGIC);
        w.u32(version);
        w.u32(2);
        w.u32(1);
    }

    fn utf16(w: &mut Writer, s: &str) {
        s.encode_utf16().chain([0]).for_each(|u| w.u16(u));
    }

    #[test]
    fn mp1_offsets_written_short_fall_back_to_reading_in_order() {
        let mut w = Writer::new();
        header(&mut w, 0);
        w.bytes(b"ENGL");
        w.u32(0);
        w.bytes(b"GERM");
        w.u32(8); // [RDS]: 4 short of 12
        for s in ["A", "B"] {
            w.u32(8);
            w.u32(4);
            utf16(&mut w, s);
        }
        w.pad_to(32, 0xFF);
        let s = Strg::parse(&w.buf, "x.STRG").unwrap();
        assert_eq!(s.languages[1].strings, ["B"]);
        assert!(s.warnings[0].contains("GERM"), "{:?}", s.warnings);
    }

    /// Version 3 (no fixture exists): name table, FourCCs, per-language offsets into shared
    /// UTF-8 string data.
    #[test]
    fn mp3_tables_read_utf8_strings_and_names() {
        let mut w = Writer::new();
        header(&mut w, 3);
        w.u32(1);
        w.u32(13);
        w.u32(8);
        w.u32(0);
        w.cstring("Name");
        w.bytes(b"ENGL");
        w.bytes(b"GERM");
        w.u32(10);
        w.u32(0);
        w.u32(11);
        w.u32(10);
        for s in ["Hello", "Hallö"] {
            w.u32(s.len() as u32 + 1);
            w.bytes(s.as_bytes());
            w.u8(0);
        }
        w.pad_to(32, 0xFF);
        let s = Strg::parse(&w.buf, "x.STRG").unwrap();
        assert!(s.warnings.is_empty(), "{:?}", s.warnings);
        assert_eq!(s.names, [("Name".to_string(), 0)]);
        assert_eq!(s.language(Some("germ")).unwrap().strings, ["Hallö"]);
        assert_eq!(s.language(Some("KORE")).unwrap().strings, ["Hello"]);
        assert_eq!(s.language(None).unwrap().code, "ENGL");
        let rejected = crate::testing::torture(&w.buf, 500, |d| Strg::parse(d, "x.STRG"));
        assert!(rejected >= w.buf.len() - w.buf.iter().rev().take_while(|&&b| b == 0xFF).count());
    }
}
