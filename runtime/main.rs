//! The `clawrun` binary.

fn main() -> std::process::ExitCode {
    tracing_subscriber_init();
    let code = clawrun::cli::main();
    std::process::ExitCode::from(u8::try_from(code & 0xff).unwrap_or(1))
}

/// Logs go to stderr only when `CLAWRUN_LOG` asks for them, so program output stays clean.
fn tracing_subscriber_init() {
    if let Ok(filter) = std::env::var("CLAWRUN_LOG") {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::new(filter))
            .with_writer(std::io::stderr)
            .try_init();
    }
}
