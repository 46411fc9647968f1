//! A real Slurm (issue 37): a one-node cluster from Debian's packages (munged, slurmctld and
//! slurmd started here on localhost, in a folder of their own, on free ports) runs a 4-task
//! array of the shipped `deploy/slurm/clawrun-array.sbatch` over a few bundled tasks; one array
//! task is cancelled mid-run and resubmitted alone (`sbatch --array=2`, which Slurm presents as
//! an array of one); the shipped `clawrun-report.sbatch`, waiting for the array, fails on the
//! unfinished shard and passes after the resubmission; the merged report equals a
//! single-machine run's but for wall-clock fields, every trace is byte-identical, and
//! `clawrun replay` of the folder is identical.
//!
//! The daemons are stopped however the test ends (a guard's `Drop`). Where Slurm or munge is
//! not installed, or the daemons cannot start (not root, no node coming up), the test prints
//! `SKIPPED: ...` and why, on the real stderr; `CLAWRUN_REQUIRE_SLURM=1` (set by `.ci/run`
//! when it has the packages) makes that a failure instead.

use std::io::Write;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::runs::{sorted_records, without_wall_times};

/// Bundled tasks, in id order: shard 2 of 4 (2 trials each) owns T004's first trial, quick,
/// then data_xlsx_headcount_cost's first, which runs CPython in the sandbox for seconds — the
/// time the cancellation lands in.
const TASKS: [&str; 4] = [
    "T002_email_triage",
    "T004_calendar_scheduling",
    "T006_email_reply_draft",
    "data_xlsx_headcount_cost",
];
const TRIALS: usize = 2;
const SHARDS: usize = 4;
/// The array task cancelled mid-run and resubmitted alone.
const CANCELLED: usize = 2;
const PARTITION: &str = "clawrun";
/// How long to wait for anything the cluster does before calling it stuck (never reached when
/// it works: jobs here take seconds).
const STUCK: Duration = Duration::from_secs(300);

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn clawrun() -> &'static str {
    env!("CARGO_BIN_EXE_clawrun")
}

/// Says why the test does not run, on the process's real stderr (the test harness captures
/// only `eprintln!`), or fails when `CLAWRUN_REQUIRE_SLURM=1`.
fn skip(why: &str) {
    if std::env::var("CLAWRUN_REQUIRE_SLURM").is_ok_and(|v| v == "1") {
        panic!("CLAWRUN_REQUIRE_SLURM=1 but the Slurm test cannot run: {why}");
    }
    let _ = writeln!(std::io::stderr(), "SKIPPED: tests/it/slurm.rs: {why}");
}

/// Whether `program` is on PATH (or, for the daemons, in /usr/sbin, which a user's PATH may
/// lack); its path.
fn find_program(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// Waits until `ready` says yes (`Ok(Some(_))`), for at most `limit`.
fn wait_for<T>(
    what: &str,
    limit: Duration,
    mut ready: impl FnMut() -> Option<T>,
) -> Result<T, String> {
    let start = Instant::now();
    loop {
        if let Some(v) = ready() {
            return Ok(v);
        }
        if start.elapsed() > limit {
            return Err(format!("{what}: still waiting after {limit:?}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A one-node Slurm cluster of our own: its daemons are stopped when it is dropped.
struct Cluster {
    dir: PathBuf,
    conf: PathBuf,
    /// The daemons, in the order they started (stopped in reverse).
    daemons: Vec<(&'static str, Child)>,
}

impl Cluster {
    /// Starts munged, slurmctld and slurmd with their files in `dir`; `Err` says why they
    /// could not start (the guard stops whatever had started).
    fn start(dir: &Path, programs: &Programs) -> Result<Cluster, String> {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755))
            .map_err(|e| e.to_string())?;
        let mut cluster = Cluster {
            dir: dir.to_path_buf(),
            conf: dir.join("slurm.conf"),
            daemons: Vec::new(),
        };
        for sub in ["state", "spool"] {
            std::fs::create_dir_all(dir.join(sub)).map_err(|e| e.to_string())?;
        }
        // munge: a fresh key (munge's keys are random bytes), its own socket.
        let key = dir.join("munge.key");
        let mut bytes = [0u8; 128];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes))
            .map_err(|e| format!("/dev/urandom: {e}"))?;
        std::fs::write(&key, bytes).map_err(|e| e.to_string())?;
        std::fs::set_permissions(&key, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| e.to_string())?;
        let socket = dir.join("munge.socket");
        let munged = Command::new(&programs.munged)
            .arg("--foreground")
            .arg("--force")
            .arg(format!("--socket={}", socket.display()))
            .arg(format!("--key-file={}", key.display()))
            .arg(format!("--pid-file={}", dir.join("munged.pid").display()))
            .arg(format!("--log-file={}", dir.join("munged.log").display()))
            .arg(format!("--seed-file={}", dir.join("munged.seed").display()))
            .stdout(Stdio::null())
            .stderr(Stdio::from(log_file(&dir.join("munged.out"))?))
            .spawn()
            .map_err(|e| format!("starting munged: {e}"))?;
        cluster.daemons.push(("munged", munged));
        wait_for("munged's socket", Duration::from_secs(30), || {
            socket.exists().then_some(())
        })
        .map_err(|e| cluster.with_logs(&e))?;

        // Two free ports (held until the configuration names them).
        let ctld_port = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let slurmd_port = TcpListener::bind("127.0.0.1:0").map_err(|e| e.to_string())?;
        let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
            .map_err(|e| format!("the host name: {e}"))?;
        let host = host
            .trim()
            .split('.')
            .next()
            .unwrap_or_default()
            .to_string();
        let memory_mb = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|m| {
                let kb = m.lines().find(|l| l.starts_with("MemTotal:"))?;
                kb.split_whitespace().nth(1)?.parse::<u64>().ok()
            })
            .map_or(4096, |kb| kb / 1024);
        let d = dir.display();
        let conf = format!(
            "ClusterName=clawruntest
SlurmctldHost={host}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={socket}
CredType=cred/munge
SlurmctldPort={ctld}
SlurmdPort={slurmd}
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
# No systemd, no cgroup set-up: processes tracked by their parents, tasks not confined.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
# Four CPUs whatever the machine has: the four array tasks run at once.
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=5
NodeName={host} NodeAddr=127.0.0.1 CPUs=4 RealMemory={memory_mb} State=UNKNOWN
PartitionName={PARTITION} Nodes=ALL Default=YES MaxTime=INFINITE State=UP
",
            socket = socket.display(),
            ctld = ctld_port.local_addr().map_err(|e| e.to_string())?.port(),
            slurmd = slurmd_port.local_addr().map_err(|e| e.to_string())?.port(),
        );
        std::fs::write(&cluster.conf, conf).map_err(|e| e.to_string())?;
        drop((ctld_port, slurmd_port));
        for (name, program, args) in [
            ("slurmctld", &programs.slurmctld, &["-D", "-i"][..]),
            ("slurmd", &programs.slurmd, &["-D"][..]),
        ] {
            let child = Command::new(program)
                .args(args)
                .arg("-f")
                .arg(&cluster.conf)
                .env("SLURM_CONF", &cluster.conf)
                .stdout(Stdio::null())
                .stderr(Stdio::from(log_file(&dir.join(format!("{name}.out")))?))
                .spawn()
                .map_err(|e| format!("starting {name}: {e}"))?;
            cluster.daemons.push((name, child));
        }
        // The node is up when sinfo calls it idle.
        let up = wait_for("the node to be idle", Duration::from_secs(60), || {
            if let Some(dead) = cluster.dead_daemon() {
                return Some(Err(format!("{dead} exited")));
            }
            let out = cluster
                .cmd("sinfo")
                .args(["-h", "-o", "%T"])
                .output()
                .ok()?;
            (String::from_utf8_lossy(&out.stdout).trim() == "idle").then_some(Ok(()))
        })
        .and_then(|r| r);
        up.map_err(|e| cluster.with_logs(&e))?;
        Ok(cluster)
    }

    /// A Slurm command against this cluster.
    fn cmd(&self, program: &str) -> Command {
        let mut c = Command::new(program);
        c.env("SLURM_CONF", &self.conf);
        c
    }

    /// The first daemon that has exited, if any.
    fn dead_daemon(&mut self) -> Option<&'static str> {
        self.daemons
            .iter_mut()
            .find_map(|(name, child)| (!matches!(child.try_wait(), Ok(None))).then_some(*name))
    }

    /// `message` and the end of each daemon's log.
    fn with_logs(&self, message: &str) -> String {
        let mut text = message.to_string();
        for log in [
            "munged.log",
            "munged.out",
            "slurmctld.log",
            "slurmctld.out",
            "slurmd.log",
            "slurmd.out",
        ] {
            if let Ok(body) = std::fs::read_to_string(self.dir.join(log)) {
                let lines: Vec<&str> = body.lines().collect();
                let tail = lines[lines.len().saturating_sub(8)..].join("\n  ");
                text.push_str(&format!("\n{log}:\n  {tail}"));
            }
        }
        text
    }

    /// Submits `script` with sbatch `options` and script `args`; the job id.
    fn sbatch(&self, options: &[String], script: &str, args: &[String], out: &Path) -> u32 {
        let o = self
            .cmd("sbatch")
            .arg("--parsable")
            .arg(format!("--partition={PARTITION}"))
            .arg(format!("--chdir={}", self.dir.display()))
            .args(options)
            .arg(repo().join("deploy/slurm").join(script))
            .args(args)
            .env("CLAWRUN", clawrun())
            .env("CLAWRUN_OUT", out)
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(
            o.status.success(),
            "sbatch {script}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        text.trim()
            .split(';')
            .next()
            .and_then(|id| id.parse().ok())
            .unwrap_or_else(|| panic!("sbatch printed {text:?}"))
    }

    /// The jobs `scontrol show job ID` lists (an array: each task), as their fields.
    fn jobs(&self, id: u32) -> Vec<Job> {
        let o = self
            .cmd("scontrol")
            .args(["show", "job", "-o", &id.to_string()])
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "scontrol show job {id}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|line| {
                let field = |name: &str| {
                    line.split_whitespace()
                        .find_map(|f| f.strip_prefix(&format!("{name}=")))
                        .unwrap_or_default()
                        .to_string()
                };
                Job {
                    array_task: field("ArrayTaskId").parse().ok(),
                    state: field("JobState"),
                    exit: field("ExitCode"),
                }
            })
            .collect()
    }

    /// Waits until every job of `id` has ended; their final states.
    fn wait_ended(&self, id: u32) -> Vec<Job> {
        let jobs = wait_for(&format!("job {id} to end"), STUCK, || {
            let jobs = self.jobs(id);
            jobs.iter().all(Job::ended).then_some(jobs)
        });
        jobs.unwrap_or_else(|e| panic!("{}", self.with_logs(&e)))
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Cancel what is left (a failed assertion mid-way), let the jobs go, then stop the
        // daemons, last started first.
        let _ = self
            .cmd("scancel")
            .arg(format!("--partition={PARTITION}"))
            .output();
        let _ = wait_for("the queue to empty", Duration::from_secs(30), || {
            let o = self.cmd("squeue").args(["-h"]).output().ok()?;
            (!o.status.success() || o.stdout.iter().all(u8::is_ascii_whitespace)).then_some(())
        });
        for (_, child) in self.daemons.iter_mut().rev() {
            let _ = Command::new("kill")
                .args(["-TERM", &child.id().to_string()])
                .status();
            let stopped = wait_for("a daemon to stop", Duration::from_secs(10), || {
                child.try_wait().ok().flatten()
            });
            if stopped.is_err() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

/// The daemons and clients the test needs.
struct Programs {
    munged: PathBuf,
    slurmctld: PathBuf,
    slurmd: PathBuf,
}

impl Programs {
    fn find() -> Result<Programs, String> {
        let need = |p: &str| {
            find_program(p).ok_or_else(|| {
                format!("{p} is not installed (Debian: apt-get install slurmctld slurmd slurm-client munge; .ci/run does)")
            })
        };
        for client in ["sbatch", "scancel", "squeue", "sinfo", "scontrol"] {
            need(client)?;
        }
        Ok(Programs {
            munged: need("munged")?,
            slurmctld: need("slurmctld")?,
            slurmd: need("slurmd")?,
        })
    }
}

/// One job's record (`scontrol show job -o`).
#[derive(Debug)]
struct Job {
    array_task: Option<usize>,
    state: String,
    exit: String,
}

impl Job {
    fn ended(&self) -> bool {
        !matches!(
            self.state.as_str(),
            "PENDING" | "RUNNING" | "CONFIGURING" | "COMPLETING" | "SUSPENDED" | "REQUEUED"
        )
    }
}

fn log_file(path: &Path) -> Result<std::fs::File, String> {
    std::fs::File::create(path).map_err(|e| format!("{}: {e}", path.display()))
}

/// `clawrun run`'s arguments after the script (the same for every submission).
fn run_args() -> Vec<String> {
    let mut args = vec!["--suite".to_string(), repo().display().to_string()];
    args.extend(TASKS.iter().map(|t| t.to_string()));
    args.extend(["--trials".into(), TRIALS.to_string()]);
    args
}

fn lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

fn clawrun_cmd(args: &[&str], run: &Path) -> std::process::Output {
    Command::new(clawrun())
        .args(args)
        .arg(run)
        .output()
        .unwrap()
}

#[test]
fn a_slurm_array_with_a_task_cancelled_and_resubmitted_equals_a_single_machine_run() {
    if !is_root() {
        return skip("the Slurm daemons need root (slurmd starts jobs as their user)");
    }
    let programs = match Programs::find() {
        Ok(p) => p,
        Err(why) => return skip(&why),
    };
    let tmp = tempfile::tempdir().unwrap();
    let cluster_dir = tmp.path().join("cluster");
    std::fs::create_dir(&cluster_dir).unwrap();
    let cluster = match Cluster::start(&cluster_dir, &programs) {
        Ok(c) => c,
        Err(why) => return skip(&format!("the Slurm daemons did not start: {why}")),
    };

    // The single-machine run.
    let whole = tmp.path().join("whole");
    let mut args: Vec<String> = vec!["run".into(), "--out".into(), whole.display().to_string()];
    args.extend(run_args());
    let o = Command::new(clawrun()).args(&args).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // The array, and the report job that waits for it whatever becomes of its tasks.
    let out = tmp.path().join("sharded");
    let submitted = Instant::now();
    let array = cluster.sbatch(
        &[
            format!("--array=0-{}", SHARDS - 1),
            // One CPU each: clawrun's -j defaults to SLURM_CPUS_PER_TASK, so each shard runs
            // one trial at a time (one trace pack; checked below).
            "--cpus-per-task=1".into(),
            format!("--output={}/array-%A_%a.out", cluster.dir.display()),
        ],
        "clawrun-array.sbatch",
        &run_args(),
        &out,
    );
    let report = cluster.sbatch(
        &[
            format!("--dependency=afterany:{array}"),
            format!("--output={}/report-%j.out", cluster.dir.display()),
        ],
        "clawrun-report.sbatch",
        &[],
        &out,
    );

    // Cancel array task 2 once it has recorded a trial.
    let journal = out.join(format!("journal.shard-{CANCELLED}-of-{SHARDS}.jsonl"));
    wait_for("array task 2's first record", STUCK, || {
        (lines(&journal) >= 1).then_some(())
    })
    .unwrap_or_else(|e| panic!("{}", cluster.with_logs(&e)));
    let o = cluster
        .cmd("scancel")
        .arg(format!("{array}_{CANCELLED}"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let tasks = cluster.wait_ended(array);
    let array_seconds = submitted.elapsed().as_secs_f64();
    let recorded = lines(&journal);
    let owned = (0..TASKS.len() * TRIALS)
        .filter(|p| p % SHARDS == CANCELLED)
        .count();
    let mid_run = recorded < owned;
    for job in &tasks {
        let task = job.array_task.expect("array tasks");
        if task == CANCELLED && mid_run {
            assert_eq!(job.state, "CANCELLED", "{job:?}");
        } else if task == CANCELLED {
            // Every trial recorded: the cancellation met the process ending, or came after.
            assert!(
                job.state == "CANCELLED" || (job.state == "COMPLETED" && job.exit == "0:0"),
                "{job:?}"
            );
        } else {
            assert_eq!(
                (job.state.as_str(), job.exit.as_str()),
                ("COMPLETED", "0:0"),
                "{job:?}"
            );
        }
    }
    assert_eq!(tasks.len(), SHARDS, "{tasks:?}");
    // The report job ran after the array: it fails while a shard is unfinished.
    let first_report = cluster.wait_ended(report);
    let report_text =
        std::fs::read_to_string(cluster.dir.join(format!("report-{report}.out"))).unwrap();
    if mid_run {
        assert_eq!(
            (
                first_report[0].state.as_str(),
                first_report[0].exit.as_str()
            ),
            ("FAILED", "1:0"),
            "{report_text}"
        );
        assert!(
            report_text.contains(&format!(
                "shard {CANCELLED}/{SHARDS}: unfinished: {recorded} of {owned} trials recorded"
            )),
            "{report_text}"
        );
    } else {
        // The cancellation came after the shard's last trial: nothing to resume, which the
        // rest still checks.
        let _ = writeln!(
            std::io::stderr(),
            "note: tests/it/slurm.rs: array task {CANCELLED} had recorded every trial when its cancellation landed"
        );
        assert_eq!(first_report[0].state, "COMPLETED", "{report_text}");
    }

    // Resubmitted alone: Slurm says an array of one, the folder says which shard.
    let resubmitted_at = Instant::now();
    let again = cluster.sbatch(
        &[
            format!("--array={CANCELLED}"),
            "--cpus-per-task=1".into(),
            format!("--output={}/again-%A_%a.out", cluster.dir.display()),
        ],
        "clawrun-array.sbatch",
        &run_args(),
        &out,
    );
    let final_report = cluster.sbatch(
        &[
            format!("--dependency=afterok:{again}"),
            format!("--output={}/report-%j.out", cluster.dir.display()),
        ],
        "clawrun-report.sbatch",
        &[],
        &out,
    );
    let resubmitted = cluster.wait_ended(again);
    let again_seconds = resubmitted_at.elapsed().as_secs_f64();
    let again_text =
        std::fs::read_to_string(cluster.dir.join(format!("again-{again}_{CANCELLED}.out")))
            .unwrap();
    assert_eq!(
        (resubmitted[0].state.as_str(), resubmitted[0].exit.as_str()),
        ("COMPLETED", "0:0"),
        "{again_text}"
    );
    assert!(
        again_text.contains("SLURM_ARRAY_TASK_COUNT=1 but")
            && again_text.contains(&format!("this is shard {CANCELLED}/{SHARDS}")),
        "{again_text}"
    );
    let done = cluster.wait_ended(final_report);
    let report_text =
        std::fs::read_to_string(cluster.dir.join(format!("report-{final_report}.out"))).unwrap();
    assert_eq!(
        (done[0].state.as_str(), done[0].exit.as_str()),
        ("COMPLETED", "0:0"),
        "{report_text}"
    );
    assert_eq!(lines(&journal), owned);

    // The merged run equals the single-machine run: the report (wall-clock fields aside), each
    // trial's record and trace bytes, and a replay of the folder.
    let json = |run: &Path| {
        let o = clawrun_cmd(&["report", "--json"], run);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        without_wall_times(&String::from_utf8(o.stdout).unwrap())
    };
    assert_eq!(json(&out), json(&whole));
    let mut merged = Vec::new();
    for index in 0..SHARDS {
        let journal = out.join(format!("journal.shard-{index}-of-{SHARDS}.jsonl"));
        merged.extend(sorted_records(&out, &journal));
    }
    merged.sort();
    assert_eq!(merged, sorted_records(&whole, &whole.join("journal.jsonl")));
    let o = clawrun_cmd(&["report", "--require-complete"], &out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = clawrun_cmd(&["replay"], &out);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let n = TASKS.len() * TRIALS;
    assert!(
        text.contains(&format!("{n} trials replayed, {n} identical, 0 diverged")),
        "{text}"
    );
    // -j followed --cpus-per-task=1: each shard wrote with one worker, into one pack.
    let packs: Vec<String> = std::fs::read_dir(out.join("traces"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        packs.iter().all(|p| p.ends_with(".0.jsonl")),
        "more than one worker in a shard: {packs:?}"
    );
    let _ = writeln!(
        std::io::stderr(),
        "tests/it/slurm.rs: the 4-task array took {array_seconds:.1} s from submission to its \
         last task's end (task {CANCELLED} cancelled {}), the resubmitted task {again_seconds:.1} s",
        if mid_run {
            "mid-run"
        } else {
            "after its last trial"
        }
    );
}

fn is_root() -> bool {
    // The owner of /proc/self is this process's effective user.
    std::fs::metadata("/proc/self").is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
}
