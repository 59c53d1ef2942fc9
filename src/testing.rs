//! Helpers shared by unit tests, integration tests and benchmarks.

use std::path::{Path, PathBuf};

pub mod fuzz;

/// The conformance fixture folder: `$TEVSCOPE_CONFORMANCE_DIR`, else
/// `../shared/conformance` beside the crate. Returns None — after saying so loudly on
/// stderr — when the folder is absent, so the caller can skip only those tests.
pub fn conformance_dir() -> Option<PathBuf> {
    let dir = std::env::var_os("TEVSCOPE_CONFORMANCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/conformance"));
    if dir.join("manifest.json").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "\n!!!!!!!! CONFORMANCE FIXTURES NOT FOUND at {} — skipping conformance tests.\n!!!!!!!! Set TEVSCOPE_CONFORMANCE_DIR to the shared/conformance folder.\n",
            dir.display()
        );
        None
    }
}

/// Reads a conformance file and its JSON, or None when the folder is absent.
pub fn conformance_file(name: &str) -> Option<(Vec<u8>, serde_json::Value)> {
    let dir = conformance_dir()?;
    let bytes = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let json_path = dir.join(format!("{name}.json"));
    let json = std::fs::read_to_string(&json_path)
        .ok()
        .map(|s| serde_json::from_str(&s).unwrap_or_else(|e| panic!("{name}.json: {e}")))
        .unwrap_or(serde_json::Value::Null);
    Some((bytes, json))
}

/// Runs `parse` on every truncation of `data` and on `rounds` randomly corrupted copies
/// (deterministic xorshift), checking that it never panics. Returns how many inputs were
/// rejected, so a caller can assert that truncations are rejected.
pub fn torture<T, E>(
    data: &[u8],
    rounds: usize,
    mut parse: impl FnMut(&[u8]) -> Result<T, E>,
) -> usize {
    let mut rejected = 0;
    for len in 0..data.len() {
        if parse(&data[..len]).is_err() {
            rejected += 1;
        }
    }
    let mut state = 0x9E37_79B9_7F4A_7C15u64 ^ data.len() as u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..rounds {
        let mut copy = data.to_vec();
        let flips = 1 + (next() % 4) as usize;
        for _ in 0..flips {
            if copy.is_empty() {
                break;
            }
            let i = (next() % copy.len() as u64) as usize;
            copy[i] = next() as u8;
        }
        let _ = parse(&copy);
    }
    rejected
}

/// A small material with one textured stage, a konst colour and a scrolling UV animation.
pub fn sample_material() -> crate::formats::material::Material {
    crate::formats::material::MaterialBuilder::textured_lit(0)
        .konst(1, [1, 2, 3, 4])
        .uv_animation(crate::gx::UvAnimation::Scroll {
            offset_u: 0.25,
            offset_v: 0.5,
            speed_u: 1.0,
            speed_v: -1.0,
        })
        .build()
}

/// A fresh, empty folder in the temp dir for one test (`tevscope-NAME-PID`), removed again
/// when dropped, so test runs leave nothing behind.
pub struct Scratch(PathBuf);

impl Scratch {
    /// Creates (or empties) the folder.
    ///
    /// # Panics
    /// When the folder cannot be created (a broken test machine).
    #[allow(clippy::expect_used)]
    pub fn new(name: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("tevscope-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch folder");
        Self(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
