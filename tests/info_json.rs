//! `tevscope info --json` is a public interface: for every conformance file it opens, the
//! output stays byte for byte what `tests/snapshots/info_json.sha256` records (the SHA-256 of
//! the output, one line per file), so moving reports between modules or into serde types
//! cannot rename, reorder or reformat a field unnoticed.
//!
//! A deliberate change of a report: run with `TEVSCOPE_UPDATE_SNAPSHOTS=1`, review the diff of
//! the snapshot file and say why in the commit.

use std::path::Path;
use std::process::Command;

use sha2::{Digest, Sha256};

const SNAPSHOT: &str = "tests/snapshots/info_json.sha256";

/// The output's hash, with its trailing newlines folded to one (as a shell captures it).
fn output_hash(stdout: &[u8]) -> String {
    let text = String::from_utf8_lossy(stdout);
    let mut hasher = Sha256::new();
    hasher.update(text.trim_end_matches('\n').as_bytes());
    hasher.update(b"\n");
    hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn info_json_is_byte_identical_for_every_conformance_file() {
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    let snapshot_path = Path::new(env!("CARGO_MANIFEST_DIR")).join(SNAPSHOT);
    let snapshot = std::fs::read_to_string(&snapshot_path).expect("snapshot reads");
    let update = std::env::var_os("TEVSCOPE_UPDATE_SNAPSHOTS").is_some();
    let mut fresh = String::new();
    let mut differ = Vec::new();
    for line in snapshot.lines() {
        let (file, expected) = line.split_once(' ').expect("`FILE HASH` lines");
        // From the fixtures' folder, so the paths in the reports do not depend on it.
        let out = Command::new(env!("CARGO_BIN_EXE_tevscope"))
            .current_dir(&dir)
            .args(["info", "--json", file])
            .output()
            .expect("tevscope runs");
        assert!(
            out.status.success(),
            "info --json {file} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let hash = output_hash(&out.stdout);
        if hash != expected {
            differ.push(file.to_owned());
        }
        fresh.push_str(&format!("{file} {hash}\n"));
    }
    if update {
        std::fs::write(&snapshot_path, fresh).expect("snapshot writes");
        return;
    }
    assert!(
        differ.is_empty(),
        "`info --json` changed for {} file(s): {differ:#?}\n(a deliberate change: \
         TEVSCOPE_UPDATE_SNAPSHOTS=1 cargo test --test info_json)",
        differ.len()
    );
    assert!(
        snapshot.lines().count() >= 150,
        "the snapshot covers the fixtures"
    );
}
