//! The `clawrun` binary.

/// mimalloc instead of the system allocator: a trial makes and frees many small values (JSON
/// documents, trace events), and glibc's malloc was a fifth of a trial's CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    let code = clawrun::cli::main();
    std::process::ExitCode::from(u8::try_from(code & 0xff).unwrap_or(1))
}
