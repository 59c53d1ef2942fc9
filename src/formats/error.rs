//! Errors for every parser: each names the file, the field and the byte offset.

use std::fmt;

/// What went wrong while reading a field.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ErrorKind {
    #[error("unexpected end of data: need {needed} bytes, {available} left")]
    Truncated { needed: u64, available: u64 },
    #[error("count {count} × {element_size} bytes exceeds the {remaining} bytes left")]
    CountTooLarge {
        count: u64,
        element_size: u64,
        remaining: u64,
    },
    #[error("bad magic: expected {expected:#x}, found {found:#x}")]
    BadMagic { expected: u64, found: u64 },
    #[error("offset {target:#x} lies outside the data (size {size:#x})")]
    OffsetOutOfRange { target: u64, size: u64 },
    #[error("value {value} out of range: {expected}")]
    OutOfRange { value: i64, expected: String },
    #[error("{0}")]
    Invalid(String),
    #[error("decompression failed: {0}")]
    Decompress(String),
}

/// A parse error located in a file: `file: field at byte offset 0x..: what`.
#[derive(Debug, Clone, PartialEq)]
pub struct FormatError {
    /// Label of the file (path, or `pak:0xID.TYPE` for a PAK member).
    pub file: String,
    /// The field being read, e.g. `surface[2].display_list`.
    pub field: String,
    /// Absolute byte offset in `file` where the field starts.
    pub offset: u64,
    pub kind: ErrorKind,
}

impl fmt::Display for FormatError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} at byte offset {:#x}: {}",
            self.file, self.field, self.offset, self.kind
        )
    }
}

impl std::error::Error for FormatError {}

impl FormatError {
    pub fn new(
        file: impl Into<String>,
        field: impl Into<String>,
        offset: u64,
        kind: ErrorKind,
    ) -> Self {
        Self {
            file: file.into(),
            field: field.into(),
            offset,
            kind,
        }
    }
}

pub type Result<T, E = FormatError> = std::result::Result<T, E>;
