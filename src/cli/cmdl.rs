//! `info` for CMDL models: a readable report, or JSON using the conformance field names.

use anyhow::Context as _;
use serde_json::Value;

use crate::formats::cmdl::{Cmdl, CmdlOptions};
use crate::gx::mp3::SynthesisOptions;
use crate::schema::CmdlInfo;
use crate::schema::cmdl_mp3::Mp3CmdlInfo;
use crate::schema::cmdl_text::cmdl_text;

/// Describes a CMDL file: text by default, JSON when `json` (default parse options).
pub fn info_cmdl(bytes: &[u8], label: &str, json: bool) -> anyhow::Result<String> {
    let defaults = (CmdlOptions::default(), SynthesisOptions::default());
    info_cmdl_with(bytes, label, json, &defaults.0, &defaults.1)
}

/// [`info_cmdl`] with explicit parse options (alt switches, lenient materials) and, for
/// MP3 models, the synthesis' Alts (`--mp3-alt`).
pub fn info_cmdl_with(
    bytes: &[u8],
    label: &str,
    json: bool,
    options: &CmdlOptions,
    synthesis: &SynthesisOptions,
) -> anyhow::Result<String> {
    let cmdl = Cmdl::parse_with(bytes, label, options)
        .with_context(|| format!("cannot read {label} as a CMDL model"))?;
    let size = bytes.len();
    if json && cmdl.mp3_materials.is_some() {
        let info = Mp3CmdlInfo::new(&cmdl, label, size).with_synthesis(&cmdl, synthesis);
        Ok(serde_json::to_string_pretty(&info)?)
    } else if json {
        let info = CmdlInfo::new(&cmdl, label, size);
        Ok(serde_json::to_string_pretty(&info)?)
    } else {
        Ok(cmdl_text(&cmdl, label, size))
    }
}

/// The whole model in the conformance JSON shape (every array element by section size).
pub fn cmdl_json(cmdl: &Cmdl, label: &str, size: usize) -> Value {
    serde_json::to_value(CmdlInfo::new(cmdl, label, size)).unwrap_or(Value::Null)
}
