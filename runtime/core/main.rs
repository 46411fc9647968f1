//! The `clawrun` binary.

use std::sync::Mutex;

/// mimalloc instead of the system allocator: a trial makes and frees many small values (JSON
/// documents, trace events), and glibc's malloc was a fifth of a trial's CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The last panics' descriptions (`panicked at FILE:LINE:COL: MESSAGE`), newest last.
static PANICS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn main() -> std::process::ExitCode {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let mut seen = PANICS.lock().unwrap_or_else(|p| p.into_inner());
        if seen.len() == 4 {
            seen.remove(0);
        }
        seen.push(info.to_string().replace('\n', " "));
        drop(seen);
        default(info);
    }));
    // A panic that reaches here ends clawrun with status 101: a bug, whatever the input.
    let code = std::panic::catch_unwind(clawrun::cli::main).unwrap_or_else(|_| {
        record_panic();
        101
    });
    std::process::ExitCode::from(u8::try_from(code & 0xff).unwrap_or(1))
}

/// Appends one line naming the command and its panics to the file `CLAWRUN_PANIC_LOG` names,
/// if it is set: the test command (`scripts/test.sh`) sets it for every clawrun the tests
/// start and fails when the file is not empty, so that no test can pass over an exit 101.
fn record_panic() {
    let Some(log) = std::env::var_os("CLAWRUN_PANIC_LOG") else {
        return;
    };
    let args: Vec<String> = std::env::args().collect();
    let panics = PANICS.lock().unwrap_or_else(|p| p.into_inner()).join(" | ");
    let line = format!("{}: exit 101: {panics}\n", args.join(" "));
    if let Ok(mut file) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
    {
        let _ = std::io::Write::write_all(&mut file, line.as_bytes());
    }
}
