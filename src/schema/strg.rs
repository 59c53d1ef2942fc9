//! `info` on STRG string tables: JSON with the world fixtures' field names
//! (`worlds/*.pak.json` `strings[]`), or text.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::Serialize;

use super::sha256_hex;
use crate::formats::strg::Strg;

#[derive(Debug, Serialize)]
pub struct StrgReport {
    pub format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub version: u32,
    pub language_count: usize,
    pub string_count: u32,
    /// Per language code, the strings as stored (tags kept).
    pub strings: BTreeMap<String, Vec<String>>,
    pub language_table: Vec<LanguageInfo>,
    pub strings_start: usize,
    pub size: usize,
    pub sha256: String,
    /// Versions 1 and 3: name → string index.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_table: Option<BTreeMap<String, u32>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_table_header: Option<NameTableHeader>,
    pub warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
pub struct LanguageInfo {
    pub language: String,
    pub offset: u32,
    pub table_size_field: u32,
    pub string_offsets: Vec<u32>,
}

#[derive(Debug, Serialize)]
pub struct NameTableHeader {
    pub name_count: usize,
    pub table_size: u32,
}

impl StrgReport {
    pub fn new(s: &Strg, bytes: &[u8], id: Option<String>) -> Self {
        Self {
            format: "STRG",
            id,
            version: s.version,
            language_count: s.languages.len(),
            string_count: s.string_count,
            strings: s
                .languages
                .iter()
                .map(|l| (l.code.to_string(), l.strings.clone()))
                .collect(),
            language_table: s
                .languages
                .iter()
                .map(|l| LanguageInfo {
                    language: l.code.to_string(),
                    offset: l.offset,
                    table_size_field: l.size,
                    string_offsets: l.string_offsets.clone(),
                })
                .collect(),
            strings_start: s.strings_start,
            size: bytes.len(),
            sha256: sha256_hex(bytes),
            name_table: s.name_table_size.map(|_| s.names.iter().cloned().collect()),
            name_table_header: s.name_table_size.map(|table_size| NameTableHeader {
                name_count: s.names.len(),
                table_size,
            }),
            warnings: s.warnings.clone(),
        }
    }

    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "STRG version {}: {} languages × {} strings",
            self.version, self.language_count, self.string_count
        );
        for (lang, strings) in &self.strings {
            for (i, s) in strings.iter().enumerate() {
                let _ = writeln!(out, "  {lang} {i:>4}  {s:?}");
            }
        }
        for (name, index) in self.name_table.iter().flatten() {
            let _ = writeln!(out, "  name {name} → string {index}");
        }
        super::warnings_text(&mut out, &self.warnings);
        out
    }
}
