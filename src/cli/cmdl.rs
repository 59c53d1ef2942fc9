//! `info` for CMDL models: a readable report, or JSON using the conformance field names.

use anyhow::Context as _;
use serde_json::Value;

use crate::formats::cmdl::{Cmdl, CmdlOptions};
use crate::formats::mp3_material::Element;
use crate::schema::CmdlInfo;
use crate::schema::cmdl_mp3::{Mp3CmdlInfo, Mp3GxInfo};
use crate::schema::cmdl_text::cmdl_text;

/// Describes a CMDL file: text by default, JSON when `json` (default parse options).
pub fn info_cmdl(bytes: &[u8], label: &str, json: bool) -> anyhow::Result<String> {
    info_cmdl_with(bytes, label, json, &CmdlOptions::default())
}

/// [`info_cmdl`] with explicit parse options (alt switches, lenient materials).
pub fn info_cmdl_with(
    bytes: &[u8],
    label: &str,
    json: bool,
    options: &CmdlOptions,
) -> anyhow::Result<String> {
    let cmdl = Cmdl::parse_with(bytes, label, options)
        .with_context(|| format!("cannot read {label} as a CMDL model"))?;
    if json && cmdl.mp3_materials.is_some() {
        Ok(serde_json::to_string_pretty(&Mp3CmdlInfo::new(
            &cmdl,
            label,
            bytes.len(),
        ))?)
    } else if json {
        Ok(serde_json::to_string_pretty(&CmdlInfo::new(
            &cmdl,
            label,
            bytes.len(),
        ))?)
    } else {
        let mut text = cmdl_text(&cmdl, label, bytes.len());
        if cmdl.mp3_materials.is_some() {
            text.push_str(&mp3_materials_text(&cmdl));
        }
        Ok(text)
    }
}

/// The MP3 material sets: each material's passes and the GX program they make.
fn mp3_materials_text(cmdl: &Cmdl) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    for (si, set) in cmdl.mp3_materials.iter().flat_map(|m| &m.sets).enumerate() {
        let _ = writeln!(
            out,
            "MP3 material set {si}: {} materials",
            set.materials.len()
        );
        for (mi, m) in set.materials.iter().enumerate() {
            let gx = Mp3GxInfo::new(m);
            let elements: Vec<String> = m
                .elements
                .iter()
                .map(|e| match e {
                    Element::Pass(p) => format!("PASS {}", p.kind),
                    Element::Color { kind, rgba } => format!("{kind}=#{rgba:08X}"),
                    Element::Int { kind, value } => format!("{kind}={value}"),
                    Element::End => "END".into(),
                })
                .collect();
            let _ = writeln!(
                out,
                "  material {mi}: flags {:#x}, {}; {:?}, {} TEV stages ({})",
                m.flags,
                elements.join(", "),
                gx.configuration,
                gx.tev_stages.len(),
                gx.tev_stages
                    .iter()
                    .map(|s| s.recipe)
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            for w in &gx.warnings {
                let _ = writeln!(out, "    warning: {w}");
            }
        }
    }
    out
}

/// The whole model in the conformance JSON shape (every array element by section size).
pub fn cmdl_json(cmdl: &Cmdl, label: &str, size: usize) -> Value {
    serde_json::to_value(CmdlInfo::new(cmdl, label, size)).unwrap_or(Value::Null)
}
