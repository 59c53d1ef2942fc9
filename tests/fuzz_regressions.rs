//! Replays fuzz findings on stable: every fuzz target's harness (the very functions the
//! cargo-fuzz targets call, `tevscope::testing::fuzz`) runs on every input saved under
//! `fuzz/regressions/<target>/` and on every input in the shared `regressions/` folder
//! beside the conformance fixtures. Each run must not panic and must stay within the
//! fuzzer's own work bounds: heap growth at most `FACTOR` × the input's size + `SLACK`
//! (as `fuzz/src/lib.rs` enforces during fuzzing) and at most a minute of time.

#[path = "common/counting_alloc.rs"]
mod counting_alloc;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use counting_alloc::{Counting, peak_during};
use tevscope::testing::fuzz::TARGETS;

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// The fuzz crate's limit (`fuzz/src/lib.rs`).
const FACTOR: usize = 512;
const SLACK: usize = 64 << 20;
/// Far above any input's honest cost even unoptimised; a hang or a runaway loop is not.
const TIME_LIMIT: Duration = Duration::from_secs(60);

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|e| e != "md"))
        .collect();
    files.sort();
    files
}

/// Runs every harness on `path`; returns a description of each failure.
fn replay(path: &Path) -> Vec<String> {
    let data = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let limit = FACTOR * data.len() + SLACK;
    let mut failures = Vec::new();
    for (target, harness) in TARGETS {
        let start = Instant::now();
        let (outcome, peak) = peak_during(|| std::panic::catch_unwind(|| harness(&data)));
        let elapsed = start.elapsed();
        let what = format!("{} as {target}", path.display());
        if let Err(p) = outcome {
            let msg = p
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| p.downcast_ref::<&str>().copied())
                .unwrap_or("(non-string panic)");
            failures.push(format!("{what}: panicked: {msg}"));
        }
        if peak > limit {
            failures.push(format!("{what}: heap grew {peak} bytes > {limit}"));
        }
        if elapsed > TIME_LIMIT {
            failures.push(format!("{what}: took {elapsed:?}"));
        }
    }
    failures
}

fn replay_all(files: &[PathBuf]) {
    let failures: Vec<String> = files.iter().flat_map(|p| replay(p)).collect();
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// One test function: the heap counter is global, so no other test thread may run.
#[test]
fn fuzz_inputs_replay_cleanly() {
    saved_fuzz_regressions();
    shared_regression_inputs();
}

fn saved_fuzz_regressions() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/regressions");
    let mut files = Vec::new();
    for (target, _) in TARGETS {
        let dir = root.join(target);
        if dir.is_dir() {
            files.extend(files_in(&dir));
        }
    }
    assert!(
        !files.is_empty(),
        "no saved inputs under {}",
        root.display()
    );
    eprintln!("replaying {} saved fuzz inputs", files.len());
    replay_all(&files);
}

fn shared_regression_inputs() {
    let Some(conformance) = tevscope::testing::conformance_dir() else {
        return;
    };
    let dir = conformance.join("../regressions");
    if !dir.is_dir() {
        eprintln!(
            "\n!!!!!!!! SHARED REGRESSIONS NOT FOUND at {} — skipping.\n",
            dir.display()
        );
        return;
    }
    let files = files_in(&dir);
    assert!(!files.is_empty(), "{} holds no inputs", dir.display());
    eprintln!("replaying {} shared regression inputs", files.len());
    replay_all(&files);
}
