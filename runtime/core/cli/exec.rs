//! `clawrun exec`: run any WASI program over a VFS imported from host folders.

use std::io::{IsTerminal, Read, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use cap_std::ambient_authority;
use cap_std::fs::Dir;
use clawrun_vfs::Vfs;

use super::UsageError;
use super::write_back::{Target, WriteBack, write_back};
use clawrun_sandbox::clock::VirtualClock;
use clawrun_sandbox::fs::SharedFs;
use clawrun_sandbox::program::{self, ProgramKind};
use clawrun_sandbox::{
    DEFAULT_DEADLINE, DEFAULT_FUEL, DEFAULT_OUTPUT_CAP, Mount, RunConfig, Sandbox, SandboxConfig,
    Status,
};
use clawrun_trial::setup::DiskLimits;

/// Arguments of `clawrun exec`.
#[derive(Debug, clap::Args)]
pub struct ExecArgs {
    /// Copy a host folder into the sandbox at GUEST (absolute); add `:ro` to make it read-only.
    #[arg(long = "dir", value_name = "HOST::GUEST[:ro]")]
    dirs: Vec<String>,
    /// Set an environment variable for the program (nothing is inherited from the host).
    #[arg(long = "env", value_name = "K=V")]
    env: Vec<String>,
    /// Seed of every random byte the program sees.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Fuel budget (about one unit per wasm instruction).
    #[arg(long, default_value_t = DEFAULT_FUEL)]
    fuel: u64,
    /// Memory limit in MiB.
    #[arg(long, value_name = "MIB", default_value_t = 512)]
    memory: usize,
    /// Bytes the program may add to the filesystem beyond the imported folders (e.g. 1GiB);
    /// past it, writes fail with ENOSPC.
    #[arg(long, value_name = "SIZE", default_value = "256MiB", value_parser = super::size::parse_size)]
    disk_quota: u64,
    /// Real-time limit in seconds besides fuel (0: none).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_DEADLINE.as_secs())]
    deadline: u64,
    /// Print the filesystem's final blake3 root hash on stderr (`root-hash: <hex>`).
    #[arg(long)]
    hash: bool,
    /// Copy the program's changes back to the writable host folders: after a zero exit only
    /// (`--write-back`) or whatever the exit (`--write-back=always`). Refused, with nothing
    /// written, if a symlink would be absolute or lead out of its folder.
    #[arg(
        long,
        value_enum,
        value_name = "WHEN",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "on-success"
    )]
    write_back: Option<WriteBack>,
    /// Compile without the on-disk compile cache.
    #[arg(long)]
    no_cache: bool,
    /// The program: a WASI p2 component or a wasip1 core module.
    program: PathBuf,
    /// Arguments passed to the program (after `--`).
    #[arg(last = true)]
    args: Vec<String>,
}

/// A parsed `--dir`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct DirSpec {
    host: PathBuf,
    guest: String,
    writable: bool,
}

/// Parses `HOST::GUEST[:ro|:rw]`.
fn parse_dir(spec: &str) -> Result<DirSpec, UsageError> {
    let bad = |why: &str| UsageError(format!("--dir '{spec}': {why}"));
    let (host, rest) = spec
        .split_once("::")
        .ok_or_else(|| bad("expected HOST::GUEST or HOST::GUEST:ro"))?;
    let (guest, writable) = match rest.rsplit_once(':') {
        Some((g, "ro")) => (g, false),
        Some((g, "rw")) => (g, true),
        Some((_, mode)) => return Err(bad(&format!("unknown mode ':{mode}' (use :ro or :rw)"))),
        None => (rest, true),
    };
    if host.is_empty() {
        return Err(bad("the host folder is empty"));
    }
    if !guest.starts_with('/') {
        return Err(bad("the guest path must be absolute, like /data"));
    }
    let parts: Vec<&str> = guest.split('/').filter(|p| !p.is_empty()).collect();
    if parts.iter().any(|p| *p == "." || *p == "..") {
        return Err(bad("the guest path must not contain . or .."));
    }
    Ok(DirSpec {
        host: PathBuf::from(host),
        guest: format!("/{}", parts.join("/")),
        writable,
    })
}

fn parse_env(spec: &str) -> Result<(String, String), UsageError> {
    match spec.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(UsageError(format!("--env '{spec}': expected K=V"))),
    }
}

/// True when one guest path is inside the other (or they are equal).
fn nested(a: &str, b: &str) -> bool {
    let within = |inner: &str, outer: &str| {
        outer == "/" || inner == outer || inner.starts_with(&format!("{outer}/"))
    };
    within(a, b) || within(b, a)
}

/// Runs `clawrun exec`; returns the program's exit status.
pub fn run(args: ExecArgs) -> Result<i32> {
    let specs = args
        .dirs
        .iter()
        .map(|d| parse_dir(d))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, a) in specs.iter().enumerate() {
        if let Some(b) = specs[..i].iter().find(|b| nested(&a.guest, &b.guest)) {
            return Err(UsageError(format!(
                "--dir guest paths {} and {} overlap; mount folders at separate paths",
                b.guest, a.guest
            ))
            .into());
        }
    }
    let env = args
        .env
        .iter()
        .map(|e| parse_env(e))
        .collect::<Result<Vec<_>, _>>()?;
    let bytes = std::fs::read(&args.program).map_err(|e| {
        UsageError(format!(
            "cannot read program '{}': {e}",
            args.program.display()
        ))
    })?;

    let clock = VirtualClock::default();
    let mut vfs = Vfs::new();
    // Imported files get the virtual epoch as their times, never the host's.
    vfs.set_now(clock.timestamp());
    for spec in &specs {
        let dir = Dir::open_ambient_dir(&spec.host, ambient_authority()).map_err(|e| {
            UsageError(format!(
                "--dir '{}::{}': cannot open host folder '{}': {e}",
                spec.host.display(),
                spec.guest,
                spec.host.display()
            ))
        })?;
        let at = vfs
            .create_dir_all(&spec.guest)
            .with_context(|| format!("creating {} in the VFS", spec.guest))?;
        vfs.import_dir(at, &dir)
            .map_err(|e| UsageError(format!("importing '{}': {e}", spec.host.display())))?;
    }
    let disk = DiskLimits {
        bytes: args.disk_quota,
        ..DiskLimits::default()
    };
    vfs.set_quota(disk.quota_over(vfs.usage()));
    let mut base = vfs.fork();

    let reactor = program::detect(&bytes).ok() == Some(ProgramKind::CoreWasip1)
        && program::is_run_reactor(&bytes).unwrap_or(false);
    let mut stdin = Vec::new();
    if !std::io::stdin().is_terminal() {
        std::io::stdin()
            .read_to_end(&mut stdin)
            .context("reading stdin")?;
    }
    let mut argv = vec![program_name(&args.program)];
    argv.extend(args.args.iter().cloned());
    let config = RunConfig {
        args: argv,
        env,
        stdin,
        mounts: specs
            .iter()
            .map(|s| Mount {
                guest_path: s.guest.clone(),
                writable: s.writable,
            })
            .collect(),
        seed: args.seed,
        fuel: args.fuel,
        max_memory: args.memory.saturating_mul(1 << 20),
        stdout_cap: DEFAULT_OUTPUT_CAP,
        stderr_cap: DEFAULT_OUTPUT_CAP,
        clock: clock.clone(),
        deadline: (args.deadline > 0).then(|| std::time::Duration::from_secs(args.deadline)),
        ..RunConfig::default()
    };
    let cache_dir = if args.no_cache {
        None
    } else {
        SandboxConfig::from_env().cache_dir
    };
    let outcome = if reactor {
        run_reactor(&bytes, &args.program, vfs, clock, config, cache_dir)?
    } else {
        let sandbox = Sandbox::new(SandboxConfig {
            cache_dir,
            ..SandboxConfig::default()
        })?;
        let program = sandbox
            .load(&bytes)
            .map_err(|e| UsageError(format!("program '{}': {e:#}", args.program.display())))?;
        sandbox.run(&program, vfs, config)?
    };

    super::output::write_bytes(&outcome.stdout)?;
    let mut err = std::io::stderr();
    err.write_all(&outcome.stderr)?;
    if let Some(msg) = outcome.status.message() {
        writeln!(err, "clawrun: {msg}")?;
    }
    let mut after = outcome.vfs;
    if args.hash {
        writeln!(err, "root-hash: {}", after.root_hash().to_hex())?;
    }
    match args.write_back {
        Some(WriteBack::OnSuccess) if outcome.status != Status::Exited(0) => {
            writeln!(
                err,
                "clawrun: not writing changes back: the program did not exit with status 0 \
                 (use --write-back=always to write them anyway)"
            )?;
        }
        Some(_) => {
            let targets: Vec<Target<'_>> = specs
                .iter()
                .filter(|s| s.writable)
                .map(|s| Target {
                    guest: &s.guest,
                    host: &s.host,
                })
                .collect();
            write_back(&mut base, &mut after, &targets)?;
        }
        None => {}
    }
    Ok(match outcome.status {
        Status::Exited(code) => code,
        other => other.exit_code(),
    })
}

/// Runs a wasip1 reactor exporting `run` (the Python interpreter, by hand) over `vfs`: its
/// result is the exit status. The installed interpreter gets its standard library layer.
fn run_reactor(
    bytes: &[u8],
    path: &Path,
    vfs: Vfs,
    clock: VirtualClock,
    config: RunConfig,
    cache_dir: Option<PathBuf>,
) -> Result<clawrun_sandbox::RunOutcome> {
    let installed = clawrun_sandbox::python::install::find(cache_dir.as_deref())
        .ok()
        .flatten();
    let stdlib = match &installed {
        Some(i)
            if [i.module(), i.snapshot()]
                .iter()
                .any(|m| std::fs::read(m).ok().as_deref() == Some(bytes)) =>
        {
            Some(
                std::fs::read(i.stdlib())
                    .with_context(|| format!("reading {}", i.stdlib().display()))?,
            )
        }
        _ => None,
    };
    let runtime = clawrun_sandbox::python::PythonRuntime::from_module(
        bytes,
        stdlib.as_deref(),
        cache_dir.as_deref(),
    )
    .map_err(|e| UsageError(format!("program '{}': {e:#}", path.display())))?;
    let fs = SharedFs::new(vfs, clock);
    Ok(runtime.run_module(fs, config)?)
}

/// argv\[0\]: the file name only, so no host path reaches the guest.
fn program_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "program".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dir_specs() {
        let d = parse_dir("data::/data:ro").unwrap();
        assert_eq!(
            (d.host, d.guest, d.writable),
            (PathBuf::from("data"), "/data".into(), false)
        );
        let d = parse_dir("./x::/a//b/").unwrap();
        assert_eq!((d.guest, d.writable), ("/a/b".into(), true));
        assert!(
            parse_dir("data:/data")
                .unwrap_err()
                .0
                .contains("HOST::GUEST")
        );
        assert!(parse_dir("data::data").unwrap_err().0.contains("absolute"));
        assert!(parse_dir("data::/a/../b").unwrap_err().0.contains(".."));
        assert!(parse_dir("data::/a:rx").unwrap_err().0.contains(":rx"));
        assert!(parse_dir("::/a").unwrap_err().0.contains("empty"));
    }

    #[test]
    fn env_and_nesting() {
        assert_eq!(parse_env("A=b=c").unwrap(), ("A".into(), "b=c".into()));
        assert!(parse_env("=x").is_err());
        assert!(nested("/a", "/a/b") && nested("/", "/x") && !nested("/ab", "/a"));
    }
}
