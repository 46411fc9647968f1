//! `clawrun:process`: programs a guest starts through the host (see
//! `guest_tools/wit/process.wit`): the Python interpreter, and `ffprobe`/`ffmpeg` (the media
//! component, [`crate::media`]). Each is a separate instance over the caller's filesystem (so
//! its fault hook too), virtual clock and limits, with a seed derived from the caller's,
//! charged to the caller's fuel.

use std::sync::Arc;

use wasmtime::StoreContextMut;
use wasmtime::component::{ComponentType, Lift, Linker, Lower};

use super::fs::SharedFs;
use super::output::Stream;
use super::run::{RunConfig, RunOutcome, Status};
use super::state::StoreData;

/// The interface name the guest imports.
pub const PYTHON_INTERFACE: &str = "clawrun:process/python@0.1.0";

/// The media tools' interface name.
pub const MEDIA_INTERFACE: &str = "clawrun:process/media@0.1.0";

/// Runs the interpreter for guests; implemented by [`crate::python`].
pub trait PythonHost: Send + Sync {
    /// Makes the interpreter ready (found, fetched, compiled or loaded: one-off host work,
    /// done before the first run, or waited for); `Err` as for [`run_python`](Self::run_python).
    /// Required, so that no host does that work inside a run's real-time deadline.
    fn prepare(&self) -> Result<(), String>;

    /// Runs `python3` with `config.args` from `cwd` over `fs`; `Err` is a one-line message for
    /// the guest when the interpreter is not available.
    fn run_python(&self, fs: SharedFs, cwd: &str, config: RunConfig) -> Result<RunOutcome, String>;
}

/// One invocation, as the guest sends it.
#[derive(ComponentType, Lift, Debug)]
#[component(record)]
struct Invocation {
    args: Vec<String>,
    cwd: String,
    env: Vec<(String, String)>,
    stdin: Vec<u8>,
}

/// A run of output in the order the program wrote it.
#[derive(ComponentType, Lower, Debug)]
#[component(record)]
struct OutputRun {
    stderr: bool,
    bytes: u64,
}

/// How it ended, as the guest receives it.
#[derive(ComponentType, Lower, Debug)]
#[component(record)]
struct Completion {
    status: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    order: Vec<OutputRun>,
}

/// Defines `clawrun:process/python.run` and `clawrun:process/media.run` in `linker`.
pub(crate) fn add_to_linker(linker: &mut Linker<StoreData>) -> wasmtime::Result<()> {
    linker.instance(PYTHON_INTERFACE)?.func_wrap(
        "run",
        |store: StoreContextMut<'_, StoreData>, (call,): (Invocation,)| {
            let Some(host) = store.data().process.python.clone() else {
                return Ok((Err("python3 is not available in this sandbox".into()),));
            };
            let prepare = || host.prepare();
            let run = |fs, cwd: &str, config| host.run_python(fs, cwd, config);
            Ok((run_child(store, "python3", call, &prepare, &run)?,))
        },
    )?;
    linker.instance(MEDIA_INTERFACE)?.func_wrap(
        "run",
        |store: StoreContextMut<'_, StoreData>, (program, call): (String, Invocation)| {
            let launcher = crate::media::launcher();
            let prepare = || launcher.prepare();
            let run = |fs, cwd: &str, config| launcher.run(fs, cwd, &program, config);
            let label = program.clone();
            Ok((run_child(store, &label, call, &prepare, &run)?,))
        },
    )?;
    Ok(())
}

/// Runs one program the guest started: its one-off preparation outside the caller's clock,
/// then `run` with what is left of the caller's fuel and real-time deadline.
fn run_child(
    mut store: StoreContextMut<'_, StoreData>,
    label: &str,
    call: Invocation,
    prepare: &dyn Fn() -> Result<(), String>,
    run: &dyn Fn(SharedFs, &str, RunConfig) -> Result<RunOutcome, String>,
) -> wasmtime::Result<Result<Completion, String>> {
    let remaining = store.get_fuel()?;
    // The program's one-off preparation (the interpreter's or the media tools' first load, or
    // a wait for another worker's) is host work outside the caller's clock: the time it took
    // is given back to the caller's real-time deadline, so that no busy machine turns it into
    // the program's fate.
    let waited = std::time::Instant::now();
    if let Err(message) = prepare() {
        return Ok(Err(message));
    }
    let waited = waited.elapsed();
    let data = store.data_mut();
    data.process.started += waited;
    let left = data
        .process
        .deadline
        .map(|d| d.saturating_sub(data.process.started.elapsed()));
    if let Some(left) = left
        && waited >= super::run::DEADLINE_TICK
    {
        store.set_epoch_deadline(super::run::ticks(left));
    }
    let data = store.data_mut();
    data.process.calls += 1;
    let config = RunConfig {
        args: call.args,
        env: call.env,
        stdin: call.stdin,
        seed: derive_seed(data.process.seed, data.process.calls),
        fuel: remaining,
        max_memory: data.limits.max_memory,
        stdout_cap: data.process.output_cap,
        stderr_cap: data.process.output_cap,
        clock: data.clock.clone(),
        // What is left of the caller's real-time deadline, not a fresh one.
        deadline: left,
        ..RunConfig::default()
    };
    let fs = data.vfs.fs.clone();
    let outcome = match run(fs, &call.cwd, config) {
        Ok(outcome) => outcome,
        Err(message) => return Ok(Err(message)),
    };
    store.set_fuel(remaining.saturating_sub(outcome.fuel_used))?;
    // The backstop fired in the child: the caller's run ends with it (a wall-clock fact is
    // never the shell's to read as the command's output).
    if matches!(outcome.status, Status::Deadline { .. }) {
        return Err(wasmtime::Error::new(super::run::ChildPassedDeadline));
    }
    let mut stderr = outcome.stderr;
    if let Some(message) = outcome.status.message() {
        if !stderr.is_empty() && !stderr.ends_with(b"\n") {
            stderr.push(b'\n');
        }
        stderr.extend_from_slice(format!("{label}: {message}\n").as_bytes());
    }
    Ok(Ok(Completion {
        status: match outcome.status {
            Status::Exited(code) => code,
            ref other => other.exit_code(),
        },
        stdout: outcome.stdout,
        stderr,
        order: outcome
            .order
            .iter()
            .map(|&(stream, bytes)| OutputRun {
                stderr: stream == Stream::Stderr,
                bytes,
            })
            .collect(),
    }))
}

/// The seed of the caller's `n`th program: the same caller seed gives the same programs the
/// same randomness.
fn derive_seed(seed: u64, n: u64) -> u64 {
    let mut material = [0u8; 16];
    material[..8].copy_from_slice(&seed.to_le_bytes());
    material[8..].copy_from_slice(&n.to_le_bytes());
    let key = blake3::derive_key("clawrun 2026-11 process seed", &material);
    u64::from_le_bytes(key[..8].try_into().expect("8 bytes"))
}

/// What a store keeps for the programs its guest starts.
#[derive(Clone)]
pub(crate) struct ProcessCtx {
    /// Runs the interpreter, when this run offers it.
    pub python: Option<Arc<dyn PythonHost>>,
    /// The caller's seed.
    pub seed: u64,
    /// Programs started so far.
    pub calls: u64,
    /// Bytes of each stream kept.
    pub output_cap: usize,
    /// The caller's real-time deadline; each program gets what is left of it.
    pub deadline: Option<std::time::Duration>,
    /// When the caller started (real time, for the deadline only: never in any output).
    pub started: std::time::Instant,
}

#[cfg(test)]
mod tests {
    use super::derive_seed;

    #[test]
    fn seeds_differ_per_program_and_repeat_per_caller_seed() {
        assert_eq!(derive_seed(7, 1), derive_seed(7, 1));
        assert_ne!(derive_seed(7, 1), derive_seed(7, 2));
        assert_ne!(derive_seed(7, 1), derive_seed(8, 1));
    }
}
