//! A warm grading interpreter: one Python instance that imports Claw-Eval's package once and
//! then grades job after job (`python/clawrun_grade_server.py`), driven through its host door.
//!
//! Each ring of the door is either a judge call of the running job (answered from the spool by
//! that job's [`JudgeDoor`]) or the end of a job: its result is handed back, the next job's
//! files are written into the instance's filesystem, the wall clock restarts at its epoch and
//! the job's fuel budget is set, and the ring returns. When no job will come (the server is
//! dropped), the ring answers "no host" and the interpreter's loop ends.

use std::collections::BTreeSet;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

use anyhow::Result;
use clawrun_vfs::Vfs;

use super::checkout::put;
use super::judge_door::{JudgeDoor, SPOOL};
use clawrun_sandbox::clock::VirtualClock;
use clawrun_sandbox::door::{ANSWERED_IN_SPOOL, Answer, Door, NO_HOST};
use clawrun_sandbox::fs::SharedFs;
use clawrun_sandbox::{DEFAULT_OUTPUT_CAP, RunConfig};

/// Where the server reads its job.
const JOB_FILE: &str = "/run/clawrun/job.json";
/// Fuel for the server's start-up (importing the package and the stand-ins).
const STARTUP_FUEL: u64 = 20_000_000_000;
/// Memory of one server (its interpreter lives across jobs).
const SERVER_MEMORY: usize = 2 << 30;

/// One grading for the server.
pub struct Job {
    /// Files written before the job runs: the task's folder (the first time this server grades
    /// the task) and the evidence.
    pub files: Vec<(String, Vec<u8>)>,
    /// The task folder the files hold (written once per server).
    pub task_dir: String,
    /// The driver's arguments (`clawrun_grade.py`'s).
    pub args: Vec<String>,
    /// Where the driver writes its result.
    pub out: String,
    /// The job's seed (`random` is reseeded with it).
    pub seed: u64,
    /// Answers the job's judge calls.
    pub judge: Arc<JudgeDoor>,
    /// The job's fuel budget.
    pub fuel: u64,
}

/// What a finished job left.
pub struct Done {
    /// The driver's result file, if it wrote one.
    pub result: Option<Vec<u8>>,
}

/// Why a job got no result: the server died (it must not be used again).
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The server was closed.
    #[error("the grading server is closed")]
    Closed,
    /// The interpreter's thread is gone.
    #[error("the grading interpreter is gone")]
    Gone,
    /// The job's files could not be written into the interpreter's filesystem.
    #[error("placing the job's files: {0:#}")]
    Placing(anyhow::Error),
    /// The interpreter could not start (the message from the Python launcher).
    #[error("{0}")]
    Unavailable(String),
    /// The interpreter ended: its status and the last lines of its stderr.
    #[error("the grading interpreter ended ({status}){stderr_tail}")]
    Ended {
        /// How it ended (a trap, out of fuel, an exit status).
        status: String,
        /// Its last 20 stderr lines, each after a newline.
        stderr_tail: String,
    },
}

/// A running server.
pub struct Server {
    jobs: Option<Sender<Job>>,
    done: Receiver<Result<Done, ServerError>>,
    written: BTreeSet<String>,
    thread: Option<std::thread::JoinHandle<()>>,
}

struct ServerDoor {
    jobs: Mutex<Receiver<Job>>,
    done: Sender<Result<Done, ServerError>>,
    /// The running job: its judge and its result file.
    current: Mutex<Option<(Arc<JudgeDoor>, String)>>,
    clock: VirtualClock,
}

impl Door for ServerDoor {
    fn ring(&self, fs: &SharedFs) -> Answer {
        let mut current = self.current.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((judge, _)) = current.as_ref()
            && judge.answer_spool(fs) == ANSWERED_IN_SPOOL
        {
            return Answer::code(ANSWERED_IN_SPOOL);
        }
        if let Some((_, out)) = current.take() {
            let result = fs.lock().vfs.read_file(&out).ok();
            let _ = self.done.send(Ok(Done { result }));
        }
        let next = self.jobs.lock().unwrap_or_else(|p| p.into_inner()).recv();
        let Ok(job) = next else {
            return Answer::code(NO_HOST);
        };
        if let Err(e) = place(fs, &job) {
            let _ = self.done.send(Err(ServerError::Placing(e)));
            return Answer::code(NO_HOST);
        }
        self.clock.restart_wall();
        let fuel = job.fuel;
        *current = Some((job.judge, job.out));
        Answer {
            code: ANSWERED_IN_SPOOL,
            set_fuel: Some(fuel),
        }
    }
}

/// Writes `job`'s files and its job file, and empties the judge spool and the last result.
fn place(fs: &SharedFs, job: &Job) -> Result<()> {
    let mut state = fs.lock();
    let vfs = &mut state.vfs;
    let _ = vfs.remove_all(SPOOL);
    vfs.create_dir_all(SPOOL)?;
    let _ = vfs.remove_all(&job.out);
    for (path, bytes) in &job.files {
        put(vfs, path, bytes)?;
    }
    let spec = serde_json::json!({"seed": job.seed, "args": job.args, "out": job.out});
    put(vfs, JOB_FILE, &serde_json::to_vec(&spec)?)?;
    Ok(())
}

impl Server {
    /// Starts a server over `base` (the checkout's layer with clawrun's Python files), the
    /// checkout at `checkout` in it, running `script`.
    pub fn start(base: &Vfs, script: &str, checkout: &str) -> Self {
        let (jobs_tx, jobs_rx) = mpsc::channel();
        let (done_tx, done_rx) = mpsc::channel();
        let clock = VirtualClock::default();
        let door = Arc::new(ServerDoor {
            jobs: Mutex::new(jobs_rx),
            done: done_tx.clone(),
            current: Mutex::new(None),
            clock: clock.clone(),
        });
        let fs = SharedFs::new(base.fork(), clock.clone());
        let config = RunConfig {
            args: vec![script.to_string(), checkout.to_string()],
            fuel: STARTUP_FUEL,
            max_memory: SERVER_MEMORY,
            stdout_cap: DEFAULT_OUTPUT_CAP,
            stderr_cap: DEFAULT_OUTPUT_CAP,
            clock,
            deadline: None,
            door: Some(door),
            ..RunConfig::default()
        };
        let thread = std::thread::Builder::new()
            .name("clawrun-grading".into())
            .spawn(move || {
                let why = match clawrun_sandbox::python::launcher().run_python(fs, "/", config) {
                    Ok(run) => {
                        let stderr = String::from_utf8_lossy(&run.stderr);
                        let tail: Vec<&str> = stderr.lines().rev().take(20).collect();
                        ServerError::Ended {
                            status: run.status.message().unwrap_or_else(|| {
                                format!("exit status {}", run.status.exit_code())
                            }),
                            stderr_tail: tail
                                .into_iter()
                                .rev()
                                .map(|l| format!("\n{l}"))
                                .collect::<String>(),
                        }
                    }
                    Err(e) => ServerError::Unavailable(e),
                };
                let _ = done_tx.send(Err(why));
            })
            .expect("spawning the grading thread");
        Self {
            jobs: Some(jobs_tx),
            done: done_rx,
            written: BTreeSet::new(),
            thread: Some(thread),
        }
    }

    /// Runs `job`; `Err` when the server died (it must not be used again).
    pub fn run(&mut self, mut job: Job) -> Result<Done, ServerError> {
        if !self.written.insert(job.task_dir.clone()) {
            let dir = format!("{}/", job.task_dir);
            job.files.retain(|(p, _)| !p.starts_with(&dir));
        }
        let jobs = self.jobs.as_ref().ok_or(ServerError::Closed)?;
        jobs.send(job).map_err(|_| ServerError::Gone)?;
        self.done.recv().map_err(|_| ServerError::Gone)?
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        // No more jobs: the door answers "no host" and the interpreter's loop ends.
        self.jobs.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
