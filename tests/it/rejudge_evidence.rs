//! Re-judging rests on evidence rebuilt from traces (`clawrun::trial::recorded`): for every
//! bundled task, what a trace gives back is the trial's own evidence (conversation, calls,
//! faults, audits, judge commands, final text), the judge model is shown the same prompts,
//! and re-judging the golden run without a model gives back every recorded verdict exactly.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use async_trait::async_trait;
use clawrun::agents::trace::read_trace;
use clawrun::agents::{AgentError, Block, Complete, Conversation, Message, Usage};
use clawrun::run::runner::prepare_tasks;
use clawrun::run::{AgentSpec, RunOptions};
use clawrun::trial::recorded::{NO_FILES, evidence_from_trace};
use clawrun::trial::{Harness, Limits, SimulatedUser, TrialInputs};
use clawrun_judge::{Evidence, ScoreConfig};
use clawrun_report::{Status, TrialRecord};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A judge model that answers every question with 0.5 and keeps the questions.
#[derive(Default)]
struct Recorder {
    prompts: Mutex<Vec<String>>,
}

#[async_trait]
impl Complete for Recorder {
    fn describe(&self) -> String {
        "recorder".into()
    }

    async fn complete(&self, c: &Conversation) -> Result<(String, Usage), AgentError> {
        let text = c.messages.iter().map(Message::text).collect::<String>();
        self.prompts.lock().unwrap().push(text);
        Ok((
            r#"{"score": 0.5, "reasoning": "half"}"#.into(),
            Usage::default(),
        ))
    }
}

/// `messages` with the bytes of images inside tool results dropped (the trace keeps their
/// hashes only; the judge shows them by media type).
fn without_result_images(messages: &[Message]) -> Vec<Message> {
    let mut out = messages.to_vec();
    for m in &mut out {
        for b in &mut m.content {
            if let Block::ToolResult { content, .. } = b {
                for inner in content {
                    if let Block::Image { data, .. } = inner {
                        data.clear();
                    }
                }
            }
        }
    }
    out
}

/// The prompts `model` is shown when judging `task` over `ev`.
fn prompts(
    rt: &tokio::runtime::Runtime,
    task: &clawrun_task::Task,
    ev: &Evidence,
) -> (Vec<String>, clawrun_judge::Verdict) {
    let model = Recorder::default();
    let v = rt.block_on(clawrun_judge::judge(
        task,
        ev,
        Some(&model),
        &ScoreConfig::default(),
    ));
    (model.prompts.into_inner().unwrap(), v)
}

/// Whether `task` has an llm_judge item showing files (their prompts differ by design).
fn shows_files(task: &clawrun_task::Task) -> bool {
    task.scoring_components
        .iter()
        .map(|c| &c.check)
        .chain(task.rubric.iter().map(|r| &r.check))
        .any(|c| {
            matches!(c, clawrun_task::Check::LlmJudge { evidence, .. }
                if evidence.iter().any(|e| matches!(e, clawrun_task::EvidenceSource::File(_))))
        })
}

#[test]
fn a_trace_gives_back_every_bundled_task_s_evidence_and_judge_prompts() {
    let mut options = RunOptions::new(repo(), AgentSpec::Oracle, PathBuf::new());
    options.faults = Some("claw-eval:0.3".into());
    options.seed = 42;
    let plan = options.fault_plan().unwrap();
    let tasks = prepare_tasks(&options, plan.as_ref()).unwrap();
    assert!(tasks.len() > 80);
    let harness = Harness::new(clawrun::sandbox::SandboxConfig::from_env());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (mut compared, mut judged_prompts) = (0, 0);
    for task in &tasks {
        let t = &task.loaded.task;
        let user: Option<Box<dyn SimulatedUser>> = match &t.user_agent {
            Some(u) if u.enabled => match &u.script {
                Some(s) => Some(Box::new(s.start().unwrap())),
                None => continue,
            },
            _ => None,
        };
        let seed = clawrun::faults::trial_seed(42, task.id(), 0);
        let mut agent = AgentSpec::Oracle.build(task, None, seed).unwrap();
        let out = TrialInputs {
            rt: &rt,
            harness: &harness,
            task,
            run_seed: 42,
            trial: 0,
            agent: agent.as_mut(),
            user,
            limits: &Limits::of(task),
            plan: None,
            share_faults: None,
        }
        .run()
        .unwrap();
        let id = task.id();
        let ev = evidence_from_trace(&out.events, &t.prompt.text).unwrap();
        let own = &out.evidence;
        assert_eq!(
            without_result_images(&ev.messages),
            without_result_images(&own.messages),
            "{id}: messages"
        );
        assert_eq!(ev.calls, own.calls, "{id}: calls");
        assert_eq!(ev.audits, own.audits, "{id}: audits");
        assert_eq!(ev.commands, own.commands, "{id}: commands");
        assert_eq!(ev.final_text, own.final_text, "{id}: final text");
        assert_eq!(ev.faults_seen, own.faults_seen, "{id}: faults");
        assert_eq!(ev.user_rounds, own.user_rounds, "{id}: user rounds");
        assert_eq!(ev.tampering, own.tampering, "{id}: tampering");
        assert_eq!(ev.filesystem_missing.as_deref(), Some(NO_FILES));
        compared += 1;
        if !shows_files(t) {
            let (again, _) = prompts(&rt, t, &ev);
            let (first, _) = prompts(&rt, t, own);
            assert_eq!(again, first, "{id}: the judge model's prompts");
            judged_prompts += usize::from(!first.is_empty());
        }
    }
    assert!(compared > 80, "{compared}");
    assert!(
        judged_prompts > 10,
        "only {judged_prompts} tasks asked the judge anything"
    );
}

/// The journal records of `path`.
fn journal(path: &Path) -> Vec<TrialRecord> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn rejudging_the_golden_run_without_a_model_gives_back_every_recorded_verdict() {
    let golden = repo().join("snapshots/golden");
    let suite = clawrun_task::Suite::open(repo()).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut checked = 0;
    for record in journal(&golden.join("journal.jsonl")) {
        if record.status != Status::Scored {
            continue;
        }
        let folder = suite.find(&record.task_id).unwrap().unwrap();
        let loaded = suite.load(&folder).unwrap();
        assert_eq!(loaded.hash_hex(), record.task_hash, "{}", record.task_id);
        let bytes = record.trace_bytes(&golden).unwrap();
        let events = read_trace(bytes.as_slice()).unwrap();
        let ev = evidence_from_trace(&events, &loaded.task.prompt.text).unwrap();
        let recorded = record.verdict.as_ref().unwrap();
        let (again, _) = rt
            .block_on(clawrun_judge::rejudge_with_log(
                &loaded.task,
                &ev,
                recorded,
                None,
                &ScoreConfig::default(),
            ))
            .unwrap();
        assert_eq!(&again, recorded, "{}", record.task_id);
        checked += 1;
    }
    assert!(checked > 80, "{checked}");
}

#[test]
fn without_its_files_a_trace_judges_file_checks_as_unjudged_never_as_failed() {
    let golden = repo().join("snapshots/golden");
    let suite = clawrun_task::Suite::open(repo()).unwrap();
    let record = journal(&golden.join("journal.jsonl"))
        .into_iter()
        .find(|r| r.task_id == "orch_weekly_rss_digest")
        .unwrap();
    let loaded = suite
        .load(&suite.find(&record.task_id).unwrap().unwrap())
        .unwrap();
    let bytes = record.trace_bytes(&golden).unwrap();
    let events = read_trace(bytes.as_slice()).unwrap();
    let ev = evidence_from_trace(&events, &loaded.task.prompt.text).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // Plain judging of trace evidence: the file items are unjudged, with the reason.
    let model = Recorder::default();
    let v = rt.block_on(clawrun_judge::judge(
        &loaded.task,
        &ev,
        Some(&model),
        &ScoreConfig::default(),
    ));
    let recorded = record.verdict.as_ref().unwrap();
    let mut file_items = 0;
    for (item, old) in v.items.iter().zip(&recorded.items) {
        let shows_file = item.check == "llm_judge" && item.evidence.contains("file");
        let reads_file = item.check.starts_with("file_")
            || ["json_path", "csv_cell", "interval_iou"].contains(&item.check.as_str());
        if reads_file || (shows_file && item.score.is_none()) {
            assert_eq!(item.score, None, "{}", item.name);
            assert!(
                item.evidence.contains(NO_FILES),
                "{}: {}",
                item.name,
                item.evidence
            );
            file_items += 1;
        } else {
            assert_eq!(item.name, old.name);
        }
    }
    assert!(file_items >= 2, "{file_items}");
    // Re-judging keeps the deterministic file checks' recorded results and asks the model
    // the rest, but never about a file it cannot show.
    let (again, _) = rt
        .block_on(clawrun_judge::rejudge_with_log(
            &loaded.task,
            &ev,
            recorded,
            Some(&model),
            &ScoreConfig::default(),
        ))
        .unwrap();
    for (item, old) in again.items.iter().zip(&recorded.items) {
        if item.check.starts_with("file_") {
            assert_eq!(item, old);
        }
        if item.check == "llm_judge" && item.score.is_none() {
            assert!(item.evidence.contains(NO_FILES), "{}", item.evidence);
        }
    }
    let asked = model.prompts.lock().unwrap();
    assert!(
        asked.iter().all(|p| !p.contains("## Files")),
        "a prompt showed files the trace does not hold"
    );
}
