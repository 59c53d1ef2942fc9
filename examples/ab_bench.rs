//! Compares two tevscope builds the only way this kind of host allows: alternately, in the
//! same minutes (lavapipe's threads share the cores with whatever else runs, so a number from
//! an hour ago says little). Runs `A bench SPEC --json`, then `B …`, for each round and prints
//! every pair, the medians and the median ratio B / A:
//!
//! `cargo run --release --example ab_bench -- [--rounds N] [--frames N] [--size WxH] A B SPEC`
//!
//! (A and B are `tevscope` binaries; SPEC is what `tevscope bench` opens, e.g.
//! `stress.pak:stress_room` from `examples/make_stress_room.rs`.) Older builds' reports parse
//! too: fields they lack read as zero.

use anyhow::{Context, Result, bail};
use std::process::Command;
use tevscope::schema::bench::{BenchReport, mean_median};

struct Options {
    rounds: usize,
    frames: u32,
    size: String,
    binaries: [String; 2],
    spec: String,
}

fn options() -> Result<Options> {
    let (mut rounds, mut frames, mut size) = (6, 300, "1280x720".to_string());
    let mut free = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().with_context(|| format!("{name} needs a value"));
        match arg.as_str() {
            "--rounds" => rounds = value("--rounds")?.parse().context("--rounds")?,
            "--frames" => frames = value("--frames")?.parse().context("--frames")?,
            "--size" => size = value("--size")?,
            _ => free.push(arg),
        }
    }
    let [a, b, spec] = <[String; 3]>::try_from(free)
        .ok()
        .context("usage: ab_bench [--rounds N] [--frames N] [--size WxH] A B SPEC")?;
    if rounds == 0 {
        bail!("--rounds must be at least 1");
    }
    Ok(Options {
        rounds,
        frames,
        size,
        binaries: [a, b],
        spec,
    })
}

fn run(binary: &str, o: &Options) -> Result<BenchReport> {
    let frames = o.frames.to_string();
    let args = [
        "bench", &o.spec, "--size", &o.size, "--frames", &frames, "--json",
    ];
    let out = Command::new(binary)
        .args(args)
        .output()
        .with_context(|| format!("running {binary}"))?;
    if !out.status.success() {
        bail!(
            "{binary} {}: {}\n{}",
            args.join(" "),
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
    serde_json::from_slice(&out.stdout).with_context(|| format!("{binary}'s bench report"))
}

fn median(v: &[f64]) -> f64 {
    mean_median(&mut v.to_vec()).1
}

/// One measure of a report, as printed.
struct Measure {
    name: &'static str,
    unit: &'static str,
    of: fn(&BenchReport) -> f64,
}

const MEASURES: [Measure; 3] = [
    Measure {
        name: "CPU frame median",
        unit: "µs",
        of: |r| r.cpu_ms_median * 1000.0,
    },
    Measure {
        name: "GPU frame median",
        unit: "ms",
        of: |r| r.gpu_ms_median,
    },
    Measure {
        name: "fps median",
        unit: "fps",
        of: |r| r.fps_median,
    },
];

fn main() -> Result<()> {
    let o = options()?;
    let mut pairs = Vec::with_capacity(o.rounds);
    for round in 1..=o.rounds {
        let a = run(&o.binaries[0], &o)?;
        let b = run(&o.binaries[1], &o)?;
        let row: Vec<String> = MEASURES
            .iter()
            .map(|m| format!("{:.1} / {:.1} {}", (m.of)(&a), (m.of)(&b), m.unit))
            .collect();
        println!("pair {round}: {}", row.join(", "));
        pairs.push((a, b));
    }
    println!(
        "A = {}, B = {}; {} on {}, {} frames, {} pairs",
        o.binaries[0], o.binaries[1], o.spec, o.size, o.frames, o.rounds
    );
    for m in &MEASURES {
        let (a, b): (Vec<f64>, Vec<f64>) =
            pairs.iter().map(|(a, b)| ((m.of)(a), (m.of)(b))).unzip();
        let ratios = a.iter().zip(&b).map(|(a, b)| b / a).collect::<Vec<_>>();
        let range = |v: &[f64]| {
            let (lo, hi) = v
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                    (lo.min(x), hi.max(x))
                });
            format!("{lo:.1}–{hi:.1}")
        };
        println!(
            "{}: A {} (median {:.1}), B {} (median {:.1}) {}; B / A median {:.3}",
            m.name,
            range(&a),
            median(&a),
            range(&b),
            median(&b),
            m.unit,
            median(&ratios),
        );
    }
    Ok(())
}
