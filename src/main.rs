fn main() -> std::process::ExitCode {
    tevscope::cli::main()
}
