//! The compression codecs of Prime's archives and areas (`formats.md` §1): zlib (MP1),
//! segmented LZO (MP2, and MP2 area blocks) and CMPD blocks of LZO segments (MP3), both
//! ways. Decompression is hostile-input safe: declared sizes are capped at
//! [`MAX_DECOMPRESSED_SIZE`] and checked against what the stream really produces, and
//! buffers grow only as real output arrives.

use std::io::Read;

use super::{ErrorKind, FormatError, Reader, Result, Writer};

/// Largest decompressed size accepted for one resource.
pub const MAX_DECOMPRESSED_SIZE: u64 = 256 << 20;
/// Output size of one LZO segment (the last one of a resource may be shorter).
pub const LZO_SEGMENT_SIZE: usize = 0x4000;

// ------------------------------------------------------------------------------------------
// Decompression.

/// Rejects a declared decompressed size above [`MAX_DECOMPRESSED_SIZE`]; `at` is the
/// position of the size field in `r`.
pub(crate) fn check_declared(r: &Reader, declared: u64, at: usize) -> Result<()> {
    if declared > MAX_DECOMPRESSED_SIZE {
        return Err(r.err_at(
            "decompressed_size",
            at,
            ErrorKind::OutOfRange {
                value: declared as i64,
                expected: format!("at most {MAX_DECOMPRESSED_SIZE} bytes"),
            },
        ));
    }
    Ok(())
}

/// Initial capacity for `declared` output bytes from `compressed` input bytes: never
/// more than 64× the input, so a lying header costs nothing until data arrives.
fn initial_capacity(declared: usize, compressed: usize) -> usize {
    declared.min(compressed.saturating_mul(64))
}

fn size_mismatch(
    label: &str,
    field: &str,
    offset: u64,
    got: usize,
    declared: usize,
) -> FormatError {
    FormatError::new(
        label,
        field,
        offset,
        ErrorKind::Invalid(format!(
            "decompressed to {got} bytes, the header declares {declared}"
        )),
    )
}

/// Inflates one zlib stream that must produce exactly `declared` bytes (trailing input,
/// such as PAK padding, is ignored). `base` is the stream's offset inside `label`.
pub fn decompress_zlib(stream: &[u8], declared: usize, label: &str, base: u64) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(initial_capacity(declared, stream.len()));
    let decoder = flate2::read::ZlibDecoder::new(stream);
    decoder
        .take(declared as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|e| {
            FormatError::new(
                label,
                "zlib_stream",
                base,
                ErrorKind::Decompress(e.to_string()),
            )
        })?;
    if out.len() != declared {
        return Err(size_mismatch(
            label,
            "zlib_stream",
            base,
            out.len(),
            declared,
        ));
    }
    Ok(out)
}

/// Walks s16-length LZO segments until they account for `declared` output bytes and
/// returns their lengths (used by `info`; no decompression).
pub fn lzo_segment_lengths(
    payload: &[u8],
    declared: u64,
    label: &str,
    base: u64,
) -> Result<Vec<i16>> {
    let mut lengths = Vec::new();
    let mut produced = 0u64;
    let mut pos = 0usize;
    while produced < declared {
        let (len, data_len) = segment_header(payload, pos, lengths.len(), label, base)?;
        lengths.push(len);
        produced += if len > 0 {
            (LZO_SEGMENT_SIZE as u64).min(declared - produced)
        } else {
            data_len as u64
        };
        pos += 2 + data_len;
    }
    Ok(lengths)
}

/// Reads the length of segment `index` at `pos` and checks its data fits.
fn segment_header(
    payload: &[u8],
    pos: usize,
    index: usize,
    label: &str,
    base: u64,
) -> Result<(i16, usize)> {
    let at = base + pos as u64;
    let field = format!("lzo_segment[{index}]");
    let Some(&[b0, b1]) = payload.get(pos..pos + 2) else {
        return Err(FormatError::new(
            label,
            field,
            at,
            ErrorKind::Truncated {
                needed: 2,
                available: payload.len().saturating_sub(pos) as u64,
            },
        ));
    };
    let len = i16::from_be_bytes([b0, b1]);
    if len == 0 {
        return Err(FormatError::new(
            label,
            field,
            at,
            ErrorKind::Invalid("segment length 0".into()),
        ));
    }
    let data_len = usize::from(len.unsigned_abs());
    if payload.len() - pos - 2 < data_len {
        return Err(FormatError::new(
            label,
            field,
            at,
            ErrorKind::Truncated {
                needed: data_len as u64,
                available: (payload.len() - pos - 2) as u64,
            },
        ));
    }
    Ok((len, data_len))
}

/// Decompresses MP2-style LZO segments to exactly `declared` bytes: a positive length
/// is LZO1X data for the next min(0x4000, missing) bytes, a negative one |length| raw
/// bytes. Trailing input (padding) is ignored.
pub fn decompress_lzo_segments(
    payload: &[u8],
    declared: usize,
    label: &str,
    base: u64,
) -> Result<Vec<u8>> {
    let mut out = Vec::with_capacity(initial_capacity(declared, payload.len()));
    let mut pos = 0usize;
    let mut index = 0;
    while out.len() < declared {
        let (len, data_len) = segment_header(payload, pos, index, label, base)?;
        let src = &payload[pos + 2..pos + 2 + data_len];
        let missing = declared - out.len();
        let field = || format!("lzo_segment[{index}]");
        if len > 0 {
            let start = out.len();
            out.resize(start + LZO_SEGMENT_SIZE.min(missing), 0);
            let n = lzokay::decompress::decompress(src, &mut out[start..]).map_err(|e| {
                FormatError::new(
                    label,
                    field(),
                    base + pos as u64,
                    ErrorKind::Decompress(format!("LZO1X: {e}")),
                )
            })?;
            if n == 0 {
                return Err(FormatError::new(
                    label,
                    field(),
                    base + pos as u64,
                    ErrorKind::Invalid("segment decompresses to nothing".into()),
                ));
            }
            out.truncate(start + n);
        } else {
            if data_len > missing {
                return Err(size_mismatch(
                    label,
                    &field(),
                    base + pos as u64,
                    out.len() + data_len,
                    declared,
                ));
            }
            out.extend_from_slice(src);
        }
        pos += 2 + data_len;
        index += 1;
    }
    Ok(out)
}

pub(crate) fn read_cmpd_headers(r: &mut Reader) -> Result<Vec<(u8, u32, u32)>> {
    let at = r.pos();
    let magic = r.fourcc("CMPD.magic")?;
    if &magic != b"CMPD" {
        return Err(r.err_at(
            "CMPD.magic",
            at,
            ErrorKind::BadMagic {
                expected: u32::from_be_bytes(*b"CMPD").into(),
                found: u32::from_be_bytes(magic).into(),
            },
        ));
    }
    let count = r.count("CMPD.block_count", 8)?;
    let mut blocks = Vec::with_capacity(count);
    for _ in 0..count {
        let word = r.u32("CMPD.block.compressed_size")?;
        let decompressed = r.u32("CMPD.block.decompressed_size")?;
        blocks.push(((word >> 24) as u8, word & 0x00FF_FFFF, decompressed));
    }
    Ok(blocks)
}

/// Decompresses an MP3 `CMPD` payload: blocks whose compressed size is below their
/// decompressed size are LZO segments, the others are stored raw.
pub fn decompress_cmpd(payload: &[u8], label: &str) -> Result<Vec<u8>> {
    let mut r = Reader::new(payload, label);
    let blocks = read_cmpd_headers(&mut r)?;
    let total: u64 = blocks.iter().map(|b| u64::from(b.2)).sum();
    check_declared(&r, total, 8)?;
    let mut out = Vec::with_capacity(initial_capacity(total as usize, payload.len()));
    for (i, &(_, compressed, decompressed)) in blocks.iter().enumerate() {
        let field = format!("CMPD.block[{i}]");
        if compressed < decompressed {
            let at = r.abs_pos();
            let block = r.bytes(&field, compressed as usize)?;
            out.extend(decompress_lzo_segments(
                block,
                decompressed as usize,
                label,
                at,
            )?);
        } else {
            out.extend_from_slice(r.bytes(&field, decompressed as usize)?);
        }
    }
    Ok(out)
}

// ------------------------------------------------------------------------------------------
// Compression.

/// `u32 size` + zlib stream at the best level (MP1).
pub fn compress_zlib(bytes: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    // Writing into a Vec cannot fail.
    let _ = std::io::Write::write_all(&mut enc, bytes);
    let stream = enc.finish().unwrap_or_default();
    let mut out = (bytes.len() as u32).to_be_bytes().to_vec();
    out.extend(stream);
    out
}

/// LZO segments of 0x4000 input bytes each; a segment that does not shrink is stored raw
/// with a negative length (as MP2 and MP3 do).
pub fn lzo_segments(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut dict = lzokay::compress::Dict::new();
    for chunk in bytes.chunks(LZO_SEGMENT_SIZE) {
        match lzokay::compress::compress_with_dict(chunk, &mut dict) {
            Ok(c) if c.len() < chunk.len() => {
                out.extend((c.len() as i16).to_be_bytes());
                out.extend(c);
            }
            _ => {
                out.extend((-(chunk.len() as i32) as i16).to_be_bytes());
                out.extend_from_slice(chunk);
            }
        }
    }
    out
}

/// `u32 size` + LZO segments (MP2).
pub fn compress_lzo(bytes: &[u8]) -> Vec<u8> {
    let mut out = (bytes.len() as u32).to_be_bytes().to_vec();
    out.extend(lzo_segments(bytes));
    out
}

/// A `CMPD` payload (MP3): one block per 4 MiB of input (well under the u24
/// compressed-size limit), each LZO-segmented, or stored raw if that does not shrink.
/// The block flag is written as 0xA0, the value seen in the games.
pub fn compress_cmpd(bytes: &[u8]) -> Vec<u8> {
    const BLOCK: usize = 0x40_0000;
    let chunks: Vec<&[u8]> = if bytes.is_empty() {
        vec![bytes]
    } else {
        bytes.chunks(BLOCK).collect()
    };
    let mut w = Writer::new();
    w.bytes(b"CMPD");
    w.u32(chunks.len() as u32);
    let bodies: Vec<Vec<u8>> = chunks
        .iter()
        .map(|c| {
            let seg = lzo_segments(c);
            if seg.len() < c.len() { seg } else { c.to_vec() }
        })
        .collect();
    for (c, body) in chunks.iter().zip(&bodies) {
        w.u32(0xA0 << 24 | body.len() as u32);
        w.u32(c.len() as u32);
    }
    for body in &bodies {
        w.bytes(body);
    }
    w.into_inner()
}
