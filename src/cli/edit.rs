//! `edit`: a JSON Patch applied to a model through the application core
//! ([`crate::session::Session`], as the viewer edits), written safely.

use std::io::Read as _;
use std::path::Path;

use anyhow::{Context as _, bail};

use crate::session::Session;

/// Reads the patch from a file or, for `-`, from standard input.
pub(crate) fn read_patch(spec: &str) -> anyhow::Result<json_patch::Patch> {
    let text = if spec == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .context("reading the patch from standard input")?;
        s
    } else {
        std::fs::read_to_string(spec).with_context(|| format!("reading the patch {spec}"))?
    };
    serde_json::from_str(&text).with_context(|| {
        format!("{spec}: not a JSON Patch (an array of {{\"op\", \"path\", …}} objects, RFC 6902)")
    })
}

/// Applies the patch at `patch` to `file` and writes `output` (or `file` with `in_place`).
pub fn edit(
    file: &str,
    patch: &str,
    output: Option<&Path>,
    in_place: bool,
) -> anyhow::Result<String> {
    let ops = read_patch(patch)?;
    let mut session = Session::open_document(file)?;
    let Some(doc) = session.document() else {
        bail!("{file}: nothing to edit");
    };
    let label = doc.label().to_owned();
    let target = match (output, in_place) {
        (Some(out), _) => out.to_path_buf(),
        (None, true) => doc.origin().path().to_path_buf(),
        (None, false) => bail!(
            "{file}: give -o OUT to write the result, or --in-place to overwrite {}",
            doc.origin().path().display()
        ),
    };
    session
        .apply_patch(&ops, &format!("patch {patch}"))
        .with_context(|| format!("{label}: patch {patch} not applied; nothing written"))?;
    let saved = session
        .save_to(&target)?
        .with_context(|| format!("{label}: nothing to save"))?;
    Ok(format!(
        "{label}: {} operation(s) applied, {saved}\n",
        ops.len(),
    ))
}
