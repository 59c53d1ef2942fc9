/// mimalloc instead of glibc's malloc: a frame allocates and frees thousands of small
/// command records in wgpu, and glibc's fast-bin consolidation made the first large
/// allocation of each frame cost tens of microseconds (see README, Performance).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    tevscope::cli::main()
}
