//! Keeps freed heap memory in the process instead of handing it back to the OS after
//! every frame.
//!
//! A software GPU (lavapipe's vertex stage on its queue thread) mallocs and frees
//! megabytes of vertex outputs per draw. glibc returns the top of a thread arena to the
//! OS (`madvise(MADV_DONTNEED)`) as soon as more than `M_TRIM_THRESHOLD` is free, so the
//! next draw page-faults every page back in, zero-filled: measured on the stress room
//! (600 surfaces, 1280×720, 120 frames), about 500,000 page faults per run and a third of
//! the queue thread in the kernel. A fixed 64 MiB threshold keeps those pages: about
//! 28,000 faults (the loading), no per-frame ones.

/// Freed memory glibc keeps per arena before returning it to the OS.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const TRIM_THRESHOLD: std::ffi::c_int = 64 << 20;

/// Sets the trim threshold once per process (before the first device opens).
pub(crate) fn keep_freed_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            /// glibc's `M_TRIM_THRESHOLD` (malloc.h).
            const M_TRIM_THRESHOLD: std::ffi::c_int = -1;
            #[allow(unsafe_code)]
            // SAFETY: `mallopt` only sets an allocator parameter (glibc takes the arena
            // locks itself); it is a plain C call with integer arguments.
            unsafe {
                unsafe extern "C" {
                    fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
                }
                // A failure (0) leaves glibc's default: slower frames, nothing wrong.
                mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD);
            }
        });
    }
}
