//! Writes the benchmarks' stress room as a PAK with the textures it uses:
//! `cargo run --release --example make_stress_room -- OUT.pak [SURFACES MATERIALS MODELS]`
//! (default 600 surfaces, 160 materials, 6 world models). Then
//! `tevscope bench OUT.pak:stress_room`. See `tevscope::demo::room::build_stress_room`.

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let out = args.next().unwrap_or_else(|| "stress_room.pak".into());
    let mut number = |default: u32| -> anyhow::Result<u32> {
        Ok(args
            .next()
            .map(|a| a.parse())
            .transpose()?
            .unwrap_or(default))
    };
    let (surfaces, materials, models) = (number(600)?, number(160)?, number(6)?);
    let pak = tevscope::demo::room::build_stress_pak(surfaces, materials, models)?;
    std::fs::write(&out, &pak)?;
    println!(
        "{out}: {surfaces} surfaces, {materials} materials, {models} world models ({} bytes)",
        pak.len()
    );
    Ok(())
}
