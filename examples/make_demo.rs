//! Writes the built-in demo content: `cargo run --example make_demo [-- OUT_DIR]`
//! (default `assets/`). See `tevscope::demo`.

fn main() -> anyhow::Result<()> {
    let dir = std::env::args().nth(1).unwrap_or_else(|| "assets".into());
    for path in tevscope::demo::write_to(std::path::Path::new(&dir))? {
        let size = std::fs::metadata(&path)?.len();
        println!("{} ({size} bytes)", path.display());
    }
    Ok(())
}
