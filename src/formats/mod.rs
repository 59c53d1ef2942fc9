//! Parsers and writers: bytes → plain data, no GPU.
//!
//! Every parser treats its input as hostile: counts are checked against the bytes left,
//! offsets against the data, and errors name the file, the field and the byte offset.

pub mod ancs;
pub mod anim;
pub mod anim_mp3;
pub mod bits;
pub mod char_mp3;
pub mod cinf;
pub mod cmdl;
pub mod compression;
pub mod cskr;
pub mod error;
pub mod gcm;
pub mod material;
pub mod mlvl;
pub mod mp3_material;
pub mod mrea;
pub mod pak;
pub mod pak_splice;
pub mod reader;
pub mod sand;
pub mod strg;
pub mod txtr;

pub use error::{ErrorKind, FormatError, Result};
pub use reader::{Reader, Writer};

/// Which game a file belongs to (decides layouts that carry no version).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum Game {
    /// Metroid Prime (GameCube).
    #[serde(rename = "MP1")]
    Mp1,
    /// Metroid Prime 2: Echoes (GameCube).
    #[serde(rename = "MP2")]
    Mp2,
    /// Metroid Prime 3: Corruption (Wii).
    #[serde(rename = "MP3")]
    Mp3,
}

/// Formats a 32- or 64-bit asset ID as the conformance JSONs do (`0x1A000001`).
pub fn asset_id_string(id: u64, wide: bool) -> String {
    if wide {
        format!("0x{id:016X}")
    } else {
        format!("0x{id:08X}")
    }
}

/// A resource type code (`CMDL`, `TXTR`), as PAK tables and file extensions carry it. Shown
/// as text with non-printable bytes escaped; compares with `&str`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FourCc(pub [u8; 4]);

impl std::fmt::Display for FourCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&fourcc_string(self.0))
    }
}

impl std::fmt::Debug for FourCc {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")
    }
}

impl PartialEq<&str> for FourCc {
    fn eq(&self, other: &&str) -> bool {
        self.0 == other.as_bytes()
    }
}

impl serde::Serialize for FourCc {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A FourCC as text (`CMDL`), with non-printable bytes and `\` escaped as `\xNN`.
pub fn fourcc_string(f: [u8; 4]) -> String {
    f.iter()
        .map(|&b| {
            if (b.is_ascii_graphic() && b != b'\\') || b == b' ' {
                (b as char).to_string()
            } else {
                format!("\\x{b:02x}")
            }
        })
        .collect()
}

/// The inverse of [`fourcc_string`]: four bytes from text with `\xNN` escapes.
pub fn fourcc_from_string(s: &str) -> Option<[u8; 4]> {
    let mut out = Vec::with_capacity(4);
    let mut rest = s;
    while let Some(c) = rest.chars().next() {
        if let Some(hex) = rest.strip_prefix("\\x").and_then(|r| r.get(..2)) {
            out.push(u8::from_str_radix(hex, 16).ok()?);
            rest = &rest[4..];
        } else if c.is_ascii() {
            out.push(c as u8);
            rest = &rest[1..];
        } else {
            return None;
        }
    }
    out.try_into().ok()
}
