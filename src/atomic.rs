//! Whole-file writes that never leave a half-written file behind.

use std::path::{Path, PathBuf};

/// Writes `bytes` to a temporary file in `target`'s folder, syncs it and renames it over
/// `target`; on failure the temporary file is removed and `target` is untouched.
pub fn write_atomically(target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_with(target, |f| std::io::Write::write_all(f, bytes))
}

/// [`write_atomically`] for output produced in pieces (a disc image, a file copied out of
/// one), so it is never held whole: `fill` writes into the temporary file.
pub fn write_with(
    target: &Path,
    fill: impl FnOnce(&mut std::io::BufWriter<std::fs::File>) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.tevscope-{}.tmp", std::process::id()));
    let result = (|| {
        let mut w = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        fill(&mut w)?;
        let f = w.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, target)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
