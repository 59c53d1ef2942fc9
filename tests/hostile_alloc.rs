//! Hostile input must never make a parser allocate much more than the input's size.
//!
//! A counting global allocator records the peak heap growth while each parser (and the
//! decoding its output invites: PAK members, TXTR levels, animation keys) runs on every
//! truncation and on random corruptions of every conformance file. One test function, so
//! no other test thread disturbs the counters.

#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

use tevscope::anim::clip::Clip;
use tevscope::formats::{
    ancs::Ancs, anim::Anim, char_mp3::CharMp3, cinf::Cinf, cmdl::Cmdl, cskr::Cskr, mrea, pak::Pak,
    txtr::Txtr,
};

struct Counting;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

fn grow(n: usize) {
    let now = CURRENT.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

// SAFETY: forwards to the system allocator unchanged; only counts bytes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        CURRENT.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if new_size > layout.size() {
            grow(new_size - layout.size());
        } else {
            CURRENT.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
        }
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Peak heap growth while `f` runs.
fn peak_during(f: impl FnOnce()) -> usize {
    let base = CURRENT.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    f();
    PEAK.load(Ordering::Relaxed).saturating_sub(base)
}

/// Parses `data` as the format named by `ext`, then decodes what the result invites.
fn parse_and_decode(ext: &str, data: &[u8]) {
    let f = "fuzz";
    match ext {
        "pak" => {
            if let Ok(p) = Pak::parse(data, f) {
                for e in p.entries() {
                    let _ = p.read(data, e);
                }
            }
        }
        "CMDL" => drop(Cmdl::parse(data, f)),
        "TXTR" => {
            if let Ok(t) = Txtr::parse(data, f) {
                let _ = t.decode_complete_levels();
            }
        }
        "CINF" => drop(Cinf::parse(data, f, None)),
        "CSKR" => drop(Cskr::parse(data, f, None)),
        "ANIM" => {
            if let Ok(a) = Anim::parse(data, f, None) {
                let _ = Clip::from_anim(&a);
            }
        }
        "ANCS" => drop(Ancs::parse(data, f, None)),
        "CHAR" => drop(CharMp3::parse(data, f)),
        "MREA" => drop(mrea::parse_mrea(data, f)),
        other => panic!("no parser for {other}"),
    }
}

#[test]
fn parsers_allocate_at_most_a_small_multiple_of_their_input() {
    let Some(dir) = tevscope::testing::conformance_dir() else {
        return;
    };
    // Decoded RGBA8 is 8× a 4-bit texture and a PAK member may inflate up to 64× (the
    // spec's cap), so the bound is generous in factor but tight against runaway counts.
    const FACTOR: usize = 72;
    const SLACK: usize = 256 << 10;
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("conformance dir")
        .chain(std::fs::read_dir(dir.join("pwe")).expect("pwe"))
        .chain(std::fs::read_dir(dir.join("areas")).expect("areas"))
        .map(|e| e.expect("entry").path())
        .filter(|p| {
            p.extension().is_some_and(|e| {
                e != "json" && e != "md" && p.file_name() != Some("LICENSE".as_ref())
            })
        })
        .collect();
    files.sort();
    let mut worst = (0.0f64, String::new());
    let mut inputs = 0usize;
    for path in &files {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .expect("extension")
            .to_string();
        let data = std::fs::read(path).expect("read");
        let name = path.display().to_string();
        let mut check = |input: &[u8], what: &str| {
            let peak = peak_during(|| parse_and_decode(&ext, input));
            let limit = FACTOR * input.len().max(data.len()) + SLACK;
            assert!(
                peak <= limit,
                "{name} ({what}): peak heap growth {peak} bytes > {limit}"
            );
            let ratio = peak as f64 / data.len() as f64;
            if ratio > worst.0 {
                worst = (ratio, format!("{name} ({what})"));
            }
            inputs += 1;
        };
        // Truncations (step keeps large files quick) and random corruptions.
        let step = (data.len() / 512).max(1);
        for len in (0..data.len()).step_by(step) {
            check(&data[..len], &format!("truncated to {len}"));
        }
        let mut state = 0x2545_F491_4F6C_DD1Du64 ^ data.len() as u64;
        for round in 0..200 {
            let mut copy = data.clone();
            for _ in 0..1 + round % 8 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let i = (state % copy.len() as u64) as usize;
                copy[i] = (state >> 32) as u8;
            }
            check(&copy, &format!("corruption round {round}"));
        }
    }
    eprintln!(
        "{inputs} hostile inputs over {} files; worst peak/size ratio {:.1} ({})",
        files.len(),
        worst.0,
        worst.1
    );
    assert!(inputs > 1000);
}
