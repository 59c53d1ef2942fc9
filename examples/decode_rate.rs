//! Texture decode rate, measured the way `../shared/tools/peer` measures its decoder so the
//! two can be run alternately and compared: level 0 of every non-paletted TXTR in the folders
//! given, parse included, best of 5 rounds of 20 passes. Prints `tevscope_mpx_per_s N`.
//!
//! ```sh
//! cargo run --release --example decode_rate -- ../shared/conformance/real/randomprime \
//!     ../shared/conformance/real/open-prime-rando
//! ```

use std::time::Instant;

use tevscope::formats::txtr::Txtr;

fn main() -> anyhow::Result<()> {
    let mut files = Vec::new();
    for dir in std::env::args().skip(1) {
        for entry in std::fs::read_dir(&dir)? {
            let path = entry?.path();
            if !path
                .extension()
                .is_some_and(|e| e.eq_ignore_ascii_case("txtr"))
            {
                continue;
            }
            let bytes = std::fs::read(&path)?;
            let txtr = Txtr::parse(&bytes, &path.display().to_string())?;
            // The peer decodes the non-paletted formats only.
            if txtr.palette.is_none() {
                files.push((bytes, u64::from(txtr.width) * u64::from(txtr.height)));
            }
        }
    }
    let texels: u64 = files.iter().map(|f| f.1).sum();
    let mut best = f64::MAX;
    let mut sink = 0u64;
    for _ in 0..5 {
        let t = Instant::now();
        for _ in 0..20 {
            for (bytes, _) in &files {
                let txtr = Txtr::parse(bytes, "bench")?;
                let image = txtr.decode_level(0)?;
                sink = sink.wrapping_add(u64::from(image.pixels[0]));
            }
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    eprintln!(
        "{} textures, {:.2} Mpx per pass (sink {sink})",
        files.len(),
        texels as f64 / 1e6
    );
    println!(
        "tevscope_mpx_per_s {:.1}",
        (texels * 20) as f64 / best / 1e6
    );
    Ok(())
}
