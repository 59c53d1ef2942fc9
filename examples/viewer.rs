//! Launches the viewer: `cargo run --example viewer -- [FILE | FILE.pak:ID]`.
//! With no argument it opens the demo built into the program.

fn main() -> anyhow::Result<()> {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let file = std::env::args().nth(1);
    tevscope::ui::run(tevscope::ui::ViewerOptions::with_file_or_demo(file))
}
