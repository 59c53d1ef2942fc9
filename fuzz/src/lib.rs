//! Shared by every fuzz target: an allocator that turns an allocation blow-up into a
//! crash libFuzzer records, and the `target!` macro that wires a harness from
//! `tevscope::testing::fuzz` to libFuzzer.
//!
//! libFuzzer's own `-malloc_limit_mb` needs a sanitizer's malloc hooks, and the targets
//! run without one (`-s none`: tevscope forbids `unsafe`, so AddressSanitizer finds
//! nothing the Rust checks do not, at half the speed). This allocator bounds the live
//! heap *growth* during one input instead: at most [`FACTOR`] × the input's size plus
//! [`SLACK`], the same kind of bound `tests/hostile_alloc.rs` holds the parsers to (with
//! room for the legitimate expansion of decompression, texture decoding and the shader
//! generators).

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

pub use libfuzzer_sys;

/// Live-heap growth allowed per input byte.
pub const FACTOR: usize = 512;
/// Growth allowed whatever the input's size (naga, shader text, decoded 1024² levels).
pub const SLACK: usize = 64 << 20;

static CURRENT: AtomicUsize = AtomicUsize::new(0);
/// Heap size when the current input started, and its limit (0 = not running an input).
static BASE: AtomicUsize = AtomicUsize::new(0);
static LIMIT: AtomicUsize = AtomicUsize::new(0);
static REPORTING: AtomicBool = AtomicBool::new(false);

pub struct Capped;

fn over(requested: usize) {
    let limit = LIMIT.load(Ordering::Relaxed);
    if limit == 0 || REPORTING.swap(true, Ordering::Relaxed) {
        return;
    }
    let base = BASE.load(Ordering::Relaxed);
    let now = CURRENT.load(Ordering::Relaxed);
    // A fixed buffer: the allocator must not allocate while reporting.
    let mut msg = [0u8; 200];
    let mut cursor = std::io::Cursor::new(&mut msg[..]);
    let _ = write!(
        cursor,
        "\n==tevscope-fuzz== allocation blow-up: {requested} bytes requested with {} live for this input; limit {limit}\n",
        now.saturating_sub(base)
    );
    let len = cursor.position() as usize;
    let _ = std::io::stderr().write_all(&msg[..len]);
    std::process::abort();
}

fn grow(n: usize) {
    let now = CURRENT.fetch_add(n, Ordering::Relaxed) + n;
    let limit = LIMIT.load(Ordering::Relaxed);
    if limit != 0 && now.saturating_sub(BASE.load(Ordering::Relaxed)) > limit {
        over(n);
    }
}

// SAFETY: forwards to the system allocator unchanged; only counts bytes (and aborts the
// process on a blow-up, before allocating).
unsafe impl GlobalAlloc for Capped {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grow(layout.size());
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
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

/// Runs `harness` on `data` under the allocation limit.
pub fn run(data: &[u8], harness: fn(&[u8])) {
    // A panic is the finding: lift the limit before reporting it (the backtrace's symbol
    // tables would otherwise be reported as a blow-up).
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            LIMIT.store(0, Ordering::Relaxed);
            previous(info);
        }));
    });
    BASE.store(CURRENT.load(Ordering::Relaxed), Ordering::Relaxed);
    LIMIT.store(
        FACTOR.saturating_mul(data.len()).saturating_add(SLACK),
        Ordering::Relaxed,
    );
    harness(data);
    LIMIT.store(0, Ordering::Relaxed);
}

/// `target!(path::to::harness)`: a libFuzzer target running the harness under [`Capped`].
#[macro_export]
macro_rules! target {
    ($harness:path) => {
        #[global_allocator]
        static ALLOCATOR: $crate::Capped = $crate::Capped;

        $crate::libfuzzer_sys::fuzz_target!(|data: &[u8]| {
            $crate::run(data, $harness);
        });
    };
}
