//! The fuzzer's workers: `-j` threads, each with its own async runtime, model clients and
//! scratch folder, playing trials under given plans and judging them (nothing is recorded). The search hands them
//! batches and reads the results in batch order, so a search's course does not depend on
//! which worker finished first.

use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};

use anyhow::{Context, Result, anyhow};

use super::observe::Observation;
use clawrun_faults::FaultPlan;
use clawrun_run::runner::worker_runtime;
use clawrun_run::trace_pack::{PackWriter, TraceLayout};
use clawrun_run::trial_record::{TrialContext, Worker, play};
use clawrun_trial::TaskEnv;
use clawrun_trial::judgement::Judged;

/// One trial to play: which task, under which plan, as which trial number.
#[derive(Clone, Debug)]
pub struct Job {
    /// Index of the task in the fuzzer's task list.
    pub task: usize,
    /// The trial's whole fault plan (the task's rules and the perturbations).
    pub plan: Arc<FaultPlan>,
    /// The trial number (its seeds derive from it).
    pub trial: u32,
}

type Work = (usize, Job);
type Done = (usize, Result<Observation>);

/// Workers waiting for jobs.
pub struct Pool {
    jobs: Option<Sender<Work>>,
    done: Receiver<Done>,
}

impl Pool {
    /// Starts `workers` threads in `scope`, playing trials of `tasks` in `cx`; each judges in
    /// its own scratch folder under `scratch`.
    pub fn start<'scope, 'env: 'scope>(
        scope: &'scope std::thread::Scope<'scope, 'env>,
        workers: usize,
        cx: &'env TrialContext<'env>,
        tasks: &'env [TaskEnv],
        scratch: PathBuf,
    ) -> Result<Pool> {
        let (jobs_tx, jobs_rx) = mpsc::channel::<Work>();
        let (done_tx, done) = mpsc::channel::<Done>();
        let jobs_rx = Arc::new(Mutex::new(jobs_rx));
        for w in 0..workers.max(1) {
            let dir = scratch.join(format!("worker-{w}"));
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("creating the scratch folder {}", dir.display()))?;
            let traces = PackWriter::open(TraceLayout::Files, &dir, None, w, |_| 0)?;
            let worker = Worker::new(cx, traces)?;
            let (jobs_rx, done_tx) = (Arc::clone(&jobs_rx), done_tx.clone());
            std::thread::Builder::new()
                .name(format!("fuzz-worker-{w}"))
                .spawn_scoped(scope, move || {
                    let rt = match worker_runtime() {
                        Ok(rt) => rt,
                        Err(e) => {
                            let _ = done_tx.send((usize::MAX, Err(e)));
                            return;
                        }
                    };
                    loop {
                        let next = jobs_rx.lock().unwrap_or_else(|p| p.into_inner()).recv();
                        let Ok((index, job)) = next else { return };
                        let played = play_job(&rt, cx, &worker, tasks, &job, &dir);
                        if done_tx.send((index, played)).is_err() {
                            return;
                        }
                    }
                })
                .context("starting a fuzz worker")?;
        }
        Ok(Pool {
            jobs: Some(jobs_tx),
            done,
        })
    }

    /// Plays `jobs` on the workers; the results in the jobs' order.
    pub fn map(&self, jobs: Vec<Job>) -> Result<Vec<Observation>> {
        let n = jobs.len();
        let sender = self.jobs.as_ref().expect("the pool is open");
        for (i, job) in jobs.into_iter().enumerate() {
            sender
                .send((i, job))
                .map_err(|_| anyhow!("the fuzz workers stopped"))?;
        }
        let mut results: Vec<Option<Observation>> = (0..n).map(|_| None).collect();
        for _ in 0..n {
            let (i, played) = self
                .done
                .recv()
                .map_err(|_| anyhow!("the fuzz workers stopped"))?;
            let played = played?;
            results[i] = Some(played);
        }
        Ok(results
            .into_iter()
            .map(|p| p.expect("every job answered"))
            .collect())
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Closing the queue lets the workers return, so the scope can end.
        self.jobs.take();
    }
}

/// Plays and judges one job.
fn play_job(
    rt: &tokio::runtime::Runtime,
    cx: &TrialContext<'_>,
    worker: &Worker,
    tasks: &[TaskEnv],
    job: &Job,
    scratch: &std::path::Path,
) -> Result<Observation> {
    let task = &tasks[job.task];
    let mut output = play(rt, cx, worker, task, job.trial, Some(&job.plan))?;
    let Judged {
        status,
        error,
        verdict,
        ..
    } = cx
        .judging(worker)
        .judge(rt, task, job.trial, &output, scratch)?;
    let census = std::mem::take(&mut output.census);
    Ok(Observation::new(
        output.outcome,
        status,
        verdict,
        error,
        &output.evidence,
        &output.root_hash,
        census,
    ))
}
