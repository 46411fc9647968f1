//! The `clawrun` binary.

fn main() -> std::process::ExitCode {
    let code = clawrun::cli::main();
    std::process::ExitCode::from(u8::try_from(code & 0xff).unwrap_or(1))
}
