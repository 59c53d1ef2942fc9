//! Big-endian cursor shared by every parser.
//!
//! Every read names its field, so an error says where it happened without the caller
//! building messages. Counts are checked against the bytes left *before* anything is
//! allocated ([`Reader::count`]), which bounds memory by the input size.

use super::error::{ErrorKind, FormatError, Result};

/// A bounds-checked big-endian reader over a byte slice.
#[derive(Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    /// Absolute offset of `data[0]` inside the file named by `file` (for sub-readers).
    base: u64,
    file: &'a str,
}

impl<'a> Reader<'a> {
    /// A reader over a whole file; `file` labels every error.
    pub fn new(data: &'a [u8], file: &'a str) -> Self {
        Self {
            data,
            pos: 0,
            base: 0,
            file,
        }
    }

    pub fn file(&self) -> &'a str {
        self.file
    }

    /// Position relative to the start of this reader's slice.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Absolute offset in the file of the current position.
    pub fn abs_pos(&self) -> u64 {
        self.base + self.pos as u64
    }

    pub fn len(&self) -> usize {
        self.data.len()
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub fn at_end(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// The whole underlying slice.
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The bytes from the current position to the end.
    pub fn rest(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// An error at the current position.
    pub fn err(&self, field: &str, kind: ErrorKind) -> FormatError {
        self.err_at(field, self.pos, kind)
    }

    /// An error at `pos` (relative to this reader).
    pub fn err_at(&self, field: &str, pos: usize, kind: ErrorKind) -> FormatError {
        FormatError::new(self.file, field, self.base + pos as u64, kind)
    }

    /// An `Invalid` error with a message, at the current position.
    pub fn invalid(&self, field: &str, message: impl Into<String>) -> FormatError {
        self.err(field, ErrorKind::Invalid(message.into()))
    }

    fn need(&self, field: &str, n: usize) -> Result<()> {
        if n > self.remaining() {
            Err(self.err(
                field,
                ErrorKind::Truncated {
                    needed: n as u64,
                    available: self.remaining() as u64,
                },
            ))
        } else {
            Ok(())
        }
    }

    /// Reads `n` raw bytes.
    pub fn bytes(&mut self, field: &str, n: usize) -> Result<&'a [u8]> {
        self.need(field, n)?;
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    pub fn array<const N: usize>(&mut self, field: &str) -> Result<[u8; N]> {
        let b = self.bytes(field, N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(b);
        Ok(out)
    }

    pub fn u8(&mut self, field: &str) -> Result<u8> {
        Ok(self.array::<1>(field)?[0])
    }
    pub fn u16(&mut self, field: &str) -> Result<u16> {
        Ok(u16::from_be_bytes(self.array(field)?))
    }
    pub fn i16(&mut self, field: &str) -> Result<i16> {
        Ok(i16::from_be_bytes(self.array(field)?))
    }
    pub fn u32(&mut self, field: &str) -> Result<u32> {
        Ok(u32::from_be_bytes(self.array(field)?))
    }
    pub fn i32(&mut self, field: &str) -> Result<i32> {
        Ok(i32::from_be_bytes(self.array(field)?))
    }
    pub fn u64(&mut self, field: &str) -> Result<u64> {
        Ok(u64::from_be_bytes(self.array(field)?))
    }
    pub fn f32(&mut self, field: &str) -> Result<f32> {
        Ok(f32::from_be_bytes(self.array(field)?))
    }
    /// A one-byte bool: 0 or 1. Any other byte is refused: read as `true` it would be
    /// written back as 1, changing a file nobody edited.
    pub fn bool(&mut self, field: &str) -> Result<bool> {
        let at = self.pos;
        match self.u8(field)? {
            0 => Ok(false),
            1 => Ok(true),
            other => Err(self.err_at(
                field,
                at,
                ErrorKind::OutOfRange {
                    value: other.into(),
                    expected: "0 or 1 (a bool)".into(),
                },
            )),
        }
    }
    pub fn vec3(&mut self, field: &str) -> Result<[f32; 3]> {
        Ok([self.f32(field)?, self.f32(field)?, self.f32(field)?])
    }
    pub fn quat(&mut self, field: &str) -> Result<[f32; 4]> {
        Ok([
            self.f32(field)?,
            self.f32(field)?,
            self.f32(field)?,
            self.f32(field)?,
        ])
    }
    pub fn fourcc(&mut self, field: &str) -> Result<[u8; 4]> {
        self.array(field)
    }

    /// A zero-terminated string (the terminator is consumed, not returned), bytes read as
    /// [`latin1`] so that writing it back reproduces them.
    pub fn cstring(&mut self, field: &str) -> Result<String> {
        let rest = self.rest();
        let Some(end) = rest.iter().position(|&b| b == 0) else {
            return Err(self.invalid(field, "string has no terminating zero byte"));
        };
        let s = latin1(&rest[..end]);
        self.pos += end + 1;
        Ok(s)
    }

    /// Reads a u32 magic and checks it.
    pub fn expect_u32(&mut self, field: &str, expected: u32) -> Result<()> {
        let start = self.pos;
        let found = self.u32(field)?;
        if found != expected {
            return Err(self.err_at(
                field,
                start,
                ErrorKind::BadMagic {
                    expected: expected.into(),
                    found: found.into(),
                },
            ));
        }
        Ok(())
    }

    /// Checks that `count` elements of at least `min_element_size` bytes each fit in the
    /// bytes left, so that a `Vec::with_capacity(count)` is bounded by the input size.
    pub fn check_count(&self, field: &str, count: u64, min_element_size: usize) -> Result<usize> {
        let need = count.saturating_mul(min_element_size.max(1) as u64);
        if need > self.remaining() as u64 {
            return Err(self.err(
                field,
                ErrorKind::CountTooLarge {
                    count,
                    element_size: min_element_size as u64,
                    remaining: self.remaining() as u64,
                },
            ));
        }
        Ok(count as usize)
    }

    /// Reads a u32 count and checks it with [`Reader::check_count`].
    pub fn count(&mut self, field: &str, min_element_size: usize) -> Result<usize> {
        let n = self.u32(field)?;
        // Report the position of the count itself.
        let here = self.pos;
        self.check_count(field, n.into(), min_element_size)
            .map_err(|e| FormatError {
                offset: self.base + here as u64 - 4,
                ..e
            })
    }

    /// Reads `count` u32 values (after checking the count fits).
    pub fn u32_vec(&mut self, field: &str, count: usize) -> Result<Vec<u32>> {
        self.check_count(field, count as u64, 4)?;
        (0..count).map(|_| self.u32(field)).collect()
    }

    pub fn skip(&mut self, field: &str, n: usize) -> Result<()> {
        self.bytes(field, n).map(|_| ())
    }

    /// Moves to `pos` (relative to this reader); `pos == len` is allowed.
    pub fn seek(&mut self, field: &str, pos: usize) -> Result<()> {
        if pos > self.data.len() {
            return Err(self.err(
                field,
                ErrorKind::OffsetOutOfRange {
                    target: self.base + pos as u64,
                    size: self.base + self.data.len() as u64,
                },
            ));
        }
        self.pos = pos;
        Ok(())
    }

    /// Skips forward to the next multiple of `align` (relative to this reader's start).
    pub fn align(&mut self, field: &str, align: usize) -> Result<()> {
        let target = self.pos.next_multiple_of(align);
        self.seek(field, target)
    }

    /// A reader over the next `len` bytes (which are consumed here); offsets in its
    /// errors stay absolute.
    pub fn sub(&mut self, field: &str, len: usize) -> Result<Reader<'a>> {
        let start = self.pos;
        let data = self.bytes(field, len)?;
        Ok(Reader {
            data,
            pos: 0,
            base: self.base + start as u64,
            file: self.file,
        })
    }

    /// A reader over `[start, start + len)` of this reader's slice, without moving.
    pub fn slice(&self, field: &str, start: usize, len: usize) -> Result<Reader<'a>> {
        let end = start.checked_add(len).filter(|&e| e <= self.data.len());
        let Some(end) = end else {
            return Err(self.err(
                field,
                ErrorKind::OffsetOutOfRange {
                    target: self.base + start as u64 + len as u64,
                    size: self.base + self.data.len() as u64,
                },
            ));
        };
        Ok(Reader {
            data: &self.data[start..end],
            pos: 0,
            base: self.base + start as u64,
            file: self.file,
        })
    }
}

/// Big-endian byte writer, the mirror of [`Reader`].
#[derive(Default, Clone)]
pub struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn len(&self) -> usize {
        self.buf.len()
    }
    pub fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }
    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }
    pub fn u16(&mut self, v: u16) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn i16(&mut self, v: i16) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn u32(&mut self, v: u32) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn i32(&mut self, v: i32) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn u64(&mut self, v: u64) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn f32(&mut self, v: f32) {
        self.bytes(&v.to_be_bytes());
    }
    pub fn bool(&mut self, v: bool) {
        self.u8(v as u8);
    }
    pub fn vec3(&mut self, v: [f32; 3]) {
        v.into_iter().for_each(|x| self.f32(x));
    }
    pub fn quat(&mut self, v: [f32; 4]) {
        v.into_iter().for_each(|x| self.f32(x));
    }
    /// A string with its terminating zero byte, encoded as [`to_latin1`].
    pub fn cstring(&mut self, s: &str) {
        let bytes = to_latin1(s);
        self.bytes(&bytes);
        self.u8(0);
    }
    /// Pads with `fill` up to the next multiple of `align`.
    pub fn pad_to(&mut self, align: usize, fill: u8) {
        let target = self.buf.len().next_multiple_of(align);
        self.buf.resize(target, fill);
    }
    /// Overwrites a u32 written earlier (for sizes known only later).
    pub fn patch_u32(&mut self, at: usize, v: u32) {
        self.buf[at..at + 4].copy_from_slice(&v.to_be_bytes());
    }
}

/// Names in the files are byte strings (ASCII in practice, no encoding declared). Each
/// byte becomes the char of the same value (ISO 8859-1), so any bytes — a UTF-8 decode
/// would replace invalid sequences with U+FFFD — come back unchanged through
/// [`to_latin1`], and a saved file keeps names the editor never touched.
pub fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// The inverse of [`latin1`]: chars up to U+00FF as one byte each; a char beyond (only
/// from an edit) as its UTF-8 bytes.
pub fn to_latin1(s: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    for c in s.chars() {
        match u8::try_from(c) {
            Ok(b) => out.push(b),
            Err(_) => out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_big_endian_and_reports_offsets() {
        let data = [0x12, 0x34, 0x56, 0x78, 0x3F, 0x80, 0x00, 0x00, 0xAB];
        let mut r = Reader::new(&data, "t.bin");
        assert_eq!(r.u32("a").unwrap(), 0x1234_5678);
        assert_eq!(r.f32("b").unwrap(), 1.0);
        let e = r.u32("c").unwrap_err();
        assert_eq!(e.offset, 8);
        assert_eq!(e.field, "c");
        assert!(e.to_string().contains("t.bin: c at byte offset 0x8"));
    }

    #[test]
    fn counts_are_checked_before_allocating() {
        let data = [0xFF, 0xFF, 0xFF, 0xFF, 0, 0];
        let mut r = Reader::new(&data, "t.bin");
        let e = r.count("n", 4).unwrap_err();
        assert!(matches!(e.kind, ErrorKind::CountTooLarge { .. }));
        assert_eq!(e.offset, 0);
    }

    #[test]
    fn sub_readers_keep_absolute_offsets() {
        let data = [0u8; 16];
        let mut r = Reader::new(&data, "t.bin");
        r.skip("pad", 4).unwrap();
        let mut s = r.sub("inner", 8).unwrap();
        s.skip("x", 8).unwrap();
        assert_eq!(s.u8("y").unwrap_err().offset, 12);
        assert_eq!(r.pos(), 12);
        assert!(r.slice("bad", 10, 10).is_err());
    }

    #[test]
    fn writer_mirrors_reader() {
        let mut w = Writer::new();
        w.u32(7);
        w.cstring("hi");
        w.pad_to(32, 0xFF);
        assert_eq!(w.len(), 32);
        let mut r = Reader::new(&w.buf, "w");
        assert_eq!(r.u32("a").unwrap(), 7);
        assert_eq!(r.cstring("s").unwrap(), "hi");
        assert_eq!(r.u8("p").unwrap(), 0xFF);
    }

    #[test]
    fn strings_of_any_bytes_write_back_unchanged() {
        // Not UTF-8 (a fuzz find: a CINF bone name came back as U+FFFD's three bytes).
        let data = [b'h', 0xFF, 0xE9, 0xC3, b'a', 0];
        let s = Reader::new(&data, "t").cstring("name").unwrap();
        assert_eq!(s, "h\u{ff}\u{e9}\u{c3}a");
        let mut w = Writer::new();
        w.cstring(&s);
        assert_eq!(w.buf, data);
        // An edited name beyond Latin-1 is written as UTF-8.
        assert_eq!(to_latin1("é→"), [0xE9, 0xE2, 0x86, 0x92]);
    }

    #[test]
    fn bools_other_than_0_and_1_are_refused() {
        // A fuzz find: a PAS4 bool byte 7 was read as true and written back as 1.
        let mut r = Reader::new(&[0, 1, 7], "t");
        assert!(!r.bool("a").unwrap() && r.bool("b").unwrap());
        let e = r.bool("flag").unwrap_err();
        assert_eq!((e.field.as_str(), e.offset), ("flag", 2));
    }
}
