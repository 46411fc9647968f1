//! What a task needs to run, from the task alone (no trial): `runnable` (offline, nothing
//! missing), `needs-judge` (weighted rubric items only an LLM judge scores),
//! `needs-user-model` (a simulated user without a script), `needs-web: REASON` (a `web_real`
//! service in a run whose web is off), `needs-fixtures: REASON` (a service fixture the suite
//! does not hold; in a Claw-Eval checkout, any file the task references that is missing, with
//! the command that fetches Claw-Eval's dataset) or `unsupported: REASON` (a service kind
//! clawrun does not implement). `run` skips tasks that need the web or fixtures or are
//! unsupported, `validate` reports them as skipped, `list` shows every task's status.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use clawrun_trial::grading::{Grading, TaskGrading};

use clawrun_task::{Check, LoadedTask, ServiceSpec, Suite, Task};
use clawrun_trial::claw_eval::Checkout;

use clawrun_services::{LoadError, ServiceSet, UtcInstant};
use clawrun_web::WebMode;

/// Why a task cannot run at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Cause {
    /// A service that reaches the web (`web_real`, `web_real_injection`) in a run whose web
    /// is off.
    LiveWeb,
    /// A service kind clawrun has no implementation of.
    UnknownService,
    /// A fixture the suite does not hold: a service's, or in a Claw-Eval checkout any file
    /// the task references (`needs-fixtures`).
    MissingFixture,
}

impl Cause {
    /// The cause in a few words, for counts (`9 missing fixture`).
    pub fn label(self) -> &'static str {
        match self {
            Cause::LiveWeb => "needs the web",
            Cause::UnknownService => "unknown service",
            Cause::MissingFixture => "missing fixture",
        }
    }
}

/// A task's status: see the module documentation.
#[derive(Clone, Debug, PartialEq)]
pub enum TaskStatus {
    /// Runs and is scored offline, as it is.
    Runnable,
    /// Runs, but some weighted rubric items are scored only by an LLM judge (`--judge`); they
    /// are named with their weights (`content_quality (0.40)`).
    NeedsJudge(Vec<String>),
    /// A multi-turn task without `user_agent.script`: its simulated user needs
    /// `--user-model`; `also_judge` when its rubric needs `--judge` too.
    NeedsUserModel {
        /// Whether weighted rubric items also need an LLM judge.
        also_judge: bool,
    },
    /// Cannot run: why, in a sentence naming the service or file.
    Unsupported {
        /// The kind of reason.
        cause: Cause,
        /// The reason.
        reason: String,
    },
}

impl TaskStatus {
    /// The status of `loaded`: unsupported first (its services' kinds; then, in a Claw-Eval
    /// checkout, the files it references; then whether the services' fixtures can be read as
    /// Setup reads them), then a simulated user without a script, then LLM-judged rubric
    /// items.
    pub fn of(loaded: &LoadedTask, web: WebMode) -> TaskStatus {
        let status = Self::before_setup(&loaded.task, web);
        if status.is_unsupported() {
            return status;
        }
        if let Some(missing) = Self::of_missing_files(loaded) {
            return missing;
        }
        match load_services(loaded)
            .err()
            .as_ref()
            .and_then(|e| missing_fixture(e, loaded.suite()))
        {
            Some(reason) => TaskStatus::Unsupported {
                cause: Cause::MissingFixture,
                reason,
            },
            None => status,
        }
    }

    /// `needs-fixtures` when `loaded` belongs to a Claw-Eval checkout and files it references
    /// (`sandbox_files`, `sandbox_grader_files`, `local_grader_files`, `prompt.attachments`,
    /// the services' fixture paths, ...) are missing from it: the videos and large PDFs
    /// Claw-Eval keeps in its Hugging Face dataset, which [`fetch_command`] fetches. The reason
    /// names each file and the field naming it. Paths written relative to the suite root in a
    /// field relative to the task folder (`tasks/...`) are left out: Claw-Eval never finds
    /// them either, and runs without them. Outside a checkout a missing file stays a warning
    /// of the task (its trials run without it).
    pub fn of_missing_files(loaded: &LoadedTask) -> Option<TaskStatus> {
        if !Checkout::holds_checkout(loaded.suite()) {
            return None;
        }
        let files = missing_fixture_files(loaded);
        if files.is_empty() {
            return None;
        }
        let list: Vec<String> = files
            .iter()
            .map(|(path, fields)| format!("{path} ({})", fields.join(", ")))
            .collect();
        Some(TaskStatus::Unsupported {
            cause: Cause::MissingFixture,
            reason: format!(
                "{} not in the checkout: {}; Claw-Eval keeps its videos and large files in its \
                 Hugging Face dataset: fetch them with `{}`",
                if files.len() == 1 {
                    "a file it references is".to_string()
                } else {
                    format!("{} files it references are", files.len())
                },
                list.join(", "),
                fetch_command(loaded.suite())
            ),
        })
    }

    /// The status of `task` before its files are read: what [`TaskStatus::of`] says, except
    /// that a missing fixture shows only when Setup fails on it (see
    /// [`TaskStatus::of_setup_error`]).
    pub fn before_setup(task: &Task, web: WebMode) -> TaskStatus {
        if let Some((cause, reason)) = task.services.iter().find_map(|s| unsupported_kind(s, web)) {
            return TaskStatus::Unsupported { cause, reason };
        }
        let judged = judged_items(task);
        if needs_user_model(task) {
            TaskStatus::NeedsUserModel {
                also_judge: !judged.is_empty(),
            }
        } else if !judged.is_empty() {
            TaskStatus::NeedsJudge(judged)
        } else {
            TaskStatus::Runnable
        }
    }

    /// The status a failed Setup (`TaskEnv::prepare`) of a task of `suite` gives it:
    /// `needs-fixtures` when a service fixture is missing from the suite; `None` for the
    /// errors of a broken task.
    pub fn of_setup_error(error: &anyhow::Error, suite: &Suite) -> Option<TaskStatus> {
        let reason = error
            .chain()
            .find_map(|e| e.downcast_ref::<LoadError>())
            .and_then(|e| missing_fixture(e, suite))?;
        Some(TaskStatus::Unsupported {
            cause: Cause::MissingFixture,
            reason,
        })
    }

    /// `runnable`, `needs-judge`, `needs-user-model`, `needs-web`, `needs-fixtures` or
    /// `unsupported`.
    pub fn label(&self) -> &'static str {
        match self {
            TaskStatus::Runnable => "runnable",
            TaskStatus::NeedsJudge(_) => "needs-judge",
            TaskStatus::NeedsUserModel { .. } => "needs-user-model",
            TaskStatus::Unsupported {
                cause: Cause::LiveWeb,
                ..
            } => "needs-web",
            TaskStatus::Unsupported {
                cause: Cause::MissingFixture,
                ..
            } => "needs-fixtures",
            TaskStatus::Unsupported { .. } => "unsupported",
        }
    }

    /// What the status means for this task (`None` when runnable).
    pub fn reason(&self) -> Option<String> {
        match self {
            TaskStatus::Runnable => None,
            TaskStatus::NeedsJudge(items) => Some(format!(
                "{}LLM-judged without --judge (left unjudged): {}",
                if items.iter().any(|i| i.contains("judge.evaluate_visual")) {
                    "needs a vision judge (images sent to the judge model); "
                } else {
                    ""
                },
                items.join(", ")
            )),
            TaskStatus::NeedsUserModel { also_judge } => Some(format!(
                "user_agent.enabled without user_agent.script: its simulated user needs --user-model{}",
                if *also_judge {
                    "; its rubric also needs --judge"
                } else {
                    ""
                }
            )),
            TaskStatus::Unsupported { reason, .. } => Some(reason.clone()),
        }
    }

    /// The status when `grading` scores the task with a Claw-Eval `grader.py`: whether a judge
    /// is needed comes from the grader's source (see [`Checkout::judge_uses`]), not from the
    /// declarative rubric it replaces. Unchanged for tasks clawrun's rubric grades.
    pub fn for_grading(self, loaded: &LoadedTask, grading: &Grading) -> TaskStatus {
        let Some(grader) = grading.claw_eval() else {
            return self;
        };
        if grading.for_task(loaded) == TaskGrading::Native {
            return self;
        }
        let uses = grader.checkout().judge_uses(loaded);
        match self {
            TaskStatus::Unsupported { .. } => self,
            TaskStatus::NeedsUserModel { .. } => TaskStatus::NeedsUserModel {
                also_judge: !uses.is_empty(),
            },
            TaskStatus::Runnable | TaskStatus::NeedsJudge(_) if uses.is_empty() => {
                TaskStatus::Runnable
            }
            TaskStatus::Runnable | TaskStatus::NeedsJudge(_) => TaskStatus::NeedsJudge(uses),
        }
    }

    /// Whether the task cannot run as it is (unsupported, or it needs the web or fixtures:
    /// `run` skips it).
    pub fn is_unsupported(&self) -> bool {
        matches!(self, TaskStatus::Unsupported { .. })
    }
}

impl fmt::Display for TaskStatus {
    /// The label, and for tasks that cannot run the reason: `needs-fixtures: ...`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskStatus::Unsupported { reason, .. } => write!(f, "{}: {reason}", self.label()),
            other => f.write_str(other.label()),
        }
    }
}

/// Why service `spec` cannot run in a run whose web is `web`: clawrun has no service of its
/// kind, or it reaches the web and the web is off.
pub fn unsupported_kind(spec: &ServiceSpec, web: WebMode) -> Option<(Cause, String)> {
    let kind = spec.kind();
    let name = &spec.name;
    if clawrun_services::builtin::needs_web(kind) {
        return (web == WebMode::Off).then(|| {
            (
                Cause::LiveWeb,
                format!(
                    "service `{name}` (kind {kind}) needs the web: run with --web live or --web \
                     record, or replay a recording with --web-cassette DIR"
                ),
            )
        });
    }
    if clawrun_services::builtin::lookup(kind).is_some() {
        return None;
    }
    Some((
        Cause::UnknownService,
        format!(
            "service `{name}` (kind {kind}) is not one of clawrun's services ({})",
            clawrun_services::builtin::kinds()
                .collect::<Vec<_>>()
                .join(", ")
        ),
    ))
}

/// Loads the services of `loaded` as Setup does (through the suite's folder, at the task's
/// start time).
fn load_services(loaded: &LoadedTask) -> Result<ServiceSet, LoadError> {
    let task = &loaded.task;
    let epoch =
        u64::try_from(task.start_time()).unwrap_or(clawrun_trial::setup::DEFAULT_EPOCH_SECS);
    ServiceSet::load_in(
        loaded.suite().dir(),
        &task.services,
        &clawrun_services::FixtureOptions::default(),
        UtcInstant::from_duration(Duration::from_secs(epoch)),
    )
}

/// The files `loaded` references that its suite lacks, each once with every field naming it
/// (T091's blog is an attachment and a sandbox file): (path relative to the suite root,
/// fields). Paths Claw-Eval never finds either ([`clawrun_task::MissingFile::misplaced`]) are
/// left out.
pub fn missing_fixture_files(loaded: &LoadedTask) -> Vec<(String, Vec<String>)> {
    let mut files: Vec<(String, Vec<String>)> = Vec::new();
    for m in loaded.missing_files().into_iter().filter(|m| !m.misplaced) {
        match files.iter_mut().find(|(path, _)| *path == m.path) {
            Some((_, fields)) => fields.push(m.field),
            None => files.push((m.path, vec![m.field])),
        }
    }
    files
}

/// The reason when `error` is a service fixture `suite` does not hold (with the command that
/// fetches Claw-Eval's dataset when the suite is a checkout). Other loading problems (a
/// fixture that is not valid JSON, two services on one port, ...) are errors in the task's
/// files, not a status.
fn missing_fixture(error: &LoadError, suite: &Suite) -> Option<String> {
    match error {
        LoadError::Read {
            service,
            file,
            origin,
            source,
        } if source.kind() == std::io::ErrorKind::NotFound => {
            let mut reason = format!(
                "service `{service}`: its fixture {} ({origin}) is not in the suite",
                file.display()
            );
            if Checkout::holds_checkout(suite) {
                reason.push_str(&format!(
                    "; fetch the checkout's missing files from Claw-Eval's dataset with `{}`",
                    fetch_command(suite)
                ));
            }
            Some(reason)
        }
        _ => None,
    }
}

/// The command that fetches the missing files of the checkout `suite` (`clawrun setup
/// claw-eval-media --checkout PATH`, the path as the suite was opened, quoted for a shell when
/// it needs quotes).
pub fn fetch_command(suite: &Suite) -> String {
    let dir = suite.path().map_or_else(
        || "DIR".to_string(),
        |p| shell_word(&p.display().to_string()),
    );
    format!("clawrun setup claw-eval-media --checkout {dir}")
}

/// `word` as one shell word: as it is when it has only safe characters, else single-quoted.
fn shell_word(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "/._-+:=@,%".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// Whether the task has a simulated user that only a model can play.
pub fn needs_user_model(task: &Task) -> bool {
    task.user_agent
        .as_ref()
        .is_some_and(|u| u.enabled && u.script.is_none())
}

/// The weighted rubric items only an LLM judge scores, as `name (weight)`: `llm_judge`
/// items of `scoring_components` and `rubric`, or — when the task has no weighted item at
/// all — its `judge_rubric`, judged as one item of weight 1 (as the judge builds them).
pub fn judged_items(task: &Task) -> Vec<String> {
    let weighted = task
        .scoring_components
        .iter()
        .map(|c| (&c.name, c.weight, &c.check))
        .chain(task.rubric.iter().map(|r| (&r.name, r.weight, &r.check)));
    let mut any_weight = false;
    let mut out = Vec::new();
    for (name, weight, check) in weighted {
        any_weight |= weight > 0.0;
        if weight > 0.0 && matches!(check, Check::LlmJudge { .. }) {
            out.push(format!("{name} ({weight:.2})"));
        }
    }
    if !any_weight && has_judge_rubric(task) {
        out.push(format!("{} (1.00)", clawrun_judge::TASK_RUBRIC_ITEM));
    }
    out
}

/// Whether the task has a rubric clawrun can apply: a weighted `scoring_components` or native
/// `rubric` item, or a `judge_rubric`. Without one only the robustness part is ever scored.
pub fn has_rubric(task: &Task) -> bool {
    task.scoring_components.iter().any(|c| c.weight > 0.0)
        || task.rubric.iter().any(|r| r.weight > 0.0)
        || has_judge_rubric(task)
}

/// Whether `judge_rubric` has text.
fn has_judge_rubric(task: &Task) -> bool {
    task.judge_rubric
        .as_deref()
        .is_some_and(|r| !r.trim().is_empty())
}

/// Tasks counted by status, unsupported ones also by cause.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StatusCounts {
    /// `runnable`.
    pub runnable: usize,
    /// `needs-judge`.
    pub needs_judge: usize,
    /// `needs-user-model`.
    pub needs_user_model: usize,
    /// `needs-web`.
    pub needs_web: usize,
    /// `needs-fixtures`.
    pub needs_fixtures: usize,
    /// `unsupported`, by cause.
    pub unsupported: BTreeMap<Cause, usize>,
}

impl StatusCounts {
    /// Counts `statuses`.
    pub fn of<'a>(statuses: impl IntoIterator<Item = &'a TaskStatus>) -> Self {
        let mut counts = StatusCounts::default();
        for s in statuses {
            match s {
                TaskStatus::Runnable => counts.runnable += 1,
                TaskStatus::NeedsJudge(_) => counts.needs_judge += 1,
                TaskStatus::NeedsUserModel { .. } => counts.needs_user_model += 1,
                TaskStatus::Unsupported {
                    cause: Cause::LiveWeb,
                    ..
                } => counts.needs_web += 1,
                TaskStatus::Unsupported {
                    cause: Cause::MissingFixture,
                    ..
                } => counts.needs_fixtures += 1,
                TaskStatus::Unsupported { cause, .. } => {
                    *counts.unsupported.entry(*cause).or_default() += 1
                }
            }
        }
        counts
    }

    /// Every task counted.
    pub fn total(&self) -> usize {
        self.runnable
            + self.needs_judge
            + self.needs_user_model
            + self.needs_web
            + self.needs_fixtures
            + self.unsupported_total()
    }

    /// The unsupported tasks (those that need the web or fixtures not counted).
    pub fn unsupported_total(&self) -> usize {
        self.unsupported.values().sum()
    }
}

impl fmt::Display for StatusCounts {
    /// `43 tasks: 19 runnable, 24 needs-judge, 0 needs-user-model, 0 needs-web, 0
    /// needs-fixtures, 0 unsupported`, with the causes of unsupported ones in parentheses (`3
    /// unsupported (3 unknown service)`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = self.total();
        write!(
            f,
            "{total} {}: {} runnable, {} needs-judge, {} needs-user-model, {} needs-web, {} \
             needs-fixtures, {} unsupported",
            if total == 1 { "task" } else { "tasks" },
            self.runnable,
            self.needs_judge,
            self.needs_user_model,
            self.needs_web,
            self.needs_fixtures,
            self.unsupported_total()
        )?;
        if !self.unsupported.is_empty() {
            let causes: Vec<String> = self
                .unsupported
                .iter()
                .map(|(cause, n)| format!("{n} {}", cause.label()))
                .collect();
            write!(f, " ({})", causes.join(", "))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A task from task.yaml text with `extra` appended after a minimal header.
    fn task(extra: &str) -> Task {
        let text = format!("task_id: t\nprompt: {{text: hi}}\n{extra}");
        Task::from_yaml(&text, "tasks/t/task.yaml").unwrap().task
    }

    const WEB_REAL: &str = "services:
  - name: web_real
    command: python mock_services/web_real/server.py
    port: 9114
tools:
  - {name: web_search, description: s, input_schema: {type: object}}
tool_endpoints:
  - {tool_name: web_search, url: http://localhost:9114/web/search}
";

    #[test]
    fn web_kinds_need_the_web_only_when_it_is_off_and_unknown_kinds_are_unsupported() {
        let t = task(WEB_REAL);
        let (cause, reason) = unsupported_kind(&t.services[0], WebMode::Off).unwrap();
        assert_eq!(cause, Cause::LiveWeb);
        assert_eq!(
            reason,
            "service `web_real` (kind web_real) needs the web: run with --web live or --web \
             record, or replay a recording with --web-cassette DIR"
        );
        for mode in [WebMode::Live, WebMode::Record, WebMode::Replay] {
            assert_eq!(unsupported_kind(&t.services[0], mode), None, "{mode}");
        }
        let injected = ServiceSpec {
            command: Some("python mock_services/web_real_injection/server.py".into()),
            ..ServiceSpec::named("web")
        };
        let (cause, reason) = unsupported_kind(&injected, WebMode::Off).unwrap();
        assert_eq!(cause, Cause::LiveWeb);
        assert!(reason.contains("(kind web_real_injection)"), "{reason}");
        let (cause, reason) =
            unsupported_kind(&ServiceSpec::named("browser"), WebMode::Live).unwrap();
        assert_eq!(cause, Cause::UnknownService);
        assert!(
            reason
                .starts_with("service `browser` (kind browser) is not one of clawrun's services (")
                && reason.contains("gmail"),
            "{reason}"
        );
        assert_eq!(
            unsupported_kind(&ServiceSpec::named("gmail"), WebMode::Off),
            None
        );
        // The kind is the command's folder, not the instance name.
        let ocr = ServiceSpec {
            command: Some("python mock_services/ocr/server.py".into()),
            ..ServiceSpec::named("ocr_t50")
        };
        assert_eq!(unsupported_kind(&ocr, WebMode::Off), None);
    }

    #[test]
    fn llm_judged_weighted_items_need_a_judge() {
        let t = task(
            "scoring_components:
  - {name: kw, weight: 0.6, check: {type: keywords_present, keywords: [a]}}
  - {name: quality, weight: 0.4, check: {type: llm_judge, description: q}}
  - {name: unweighted, weight: 0, check: {type: llm_judge, description: q}}
",
        );
        assert_eq!(judged_items(&t), ["quality (0.40)"]);
        let s = TaskStatus::before_setup(&t, WebMode::Off);
        assert_eq!(s.label(), "needs-judge");
        assert_eq!(
            s.reason().unwrap(),
            "LLM-judged without --judge (left unjudged): quality (0.40)"
        );
    }

    #[test]
    fn a_judge_only_task_needs_a_judge_and_deterministic_rubrics_do_not() {
        let judge_only = task("judge_rubric: Is the brief good?\n");
        assert_eq!(judged_items(&judge_only), ["judge_rubric (1.00)"]);
        assert!(has_rubric(&judge_only));
        // A weighted deterministic item: the judge_rubric is not an item then.
        let both = task(
            "judge_rubric: Is it good?
rubric:
  - {name: file, weight: 1, check: {type: file_exists, path: out.txt}}
",
        );
        assert!(judged_items(&both).is_empty());
        assert_eq!(
            TaskStatus::before_setup(&both, WebMode::Off),
            TaskStatus::Runnable
        );
        // A native llm_judge item needs the judge as a scoring component does.
        let native = task(
            "rubric:
  - {name: tone, weight: 0.5, check: {type: llm_judge, description: polite}}
  - {name: file, weight: 0.5, check: {type: file_exists, path: out.txt}}
",
        );
        assert_eq!(judged_items(&native), ["tone (0.50)"]);
    }

    #[test]
    fn tasks_without_a_rubric_are_runnable_but_have_no_rubric() {
        let none = task("judge_rubric: \"\"\nscoring_components: []\n");
        assert!(!has_rubric(&none));
        assert_eq!(
            TaskStatus::before_setup(&none, WebMode::Off),
            TaskStatus::Runnable
        );
        assert!(has_rubric(&task(
            "scoring_components:
  - {name: kw, weight: 1, check: {type: keywords_present, keywords: [a]}}
"
        )));
    }

    #[test]
    fn a_simulated_user_without_a_script_needs_a_user_model() {
        let persona = task(
            "user_agent: {enabled: true, persona: a client}
judge_rubric: Was the advice sound?
",
        );
        let s = TaskStatus::before_setup(&persona, WebMode::Off);
        assert_eq!(s, TaskStatus::NeedsUserModel { also_judge: true });
        assert!(s.reason().unwrap().ends_with("also needs --judge"));
        let scripted = task(
            "user_agent:
  enabled: true
  persona: a client
  script: {rules: [], default: \"[DONE]\"}
rubric:
  - {name: file, weight: 1, check: {type: file_exists, path: out.txt}}
",
        );
        assert_eq!(
            TaskStatus::before_setup(&scripted, WebMode::Off),
            TaskStatus::Runnable
        );
        let disabled = task("user_agent: {enabled: false, persona: x}\n");
        assert!(!needs_user_model(&disabled));
    }

    #[test]
    fn counts_name_every_status_and_the_causes_of_unsupported_ones() {
        let unsupported = |cause| TaskStatus::Unsupported {
            cause,
            reason: "r".into(),
        };
        let statuses = [
            TaskStatus::Runnable,
            TaskStatus::NeedsJudge(vec!["q (1.00)".into()]),
            TaskStatus::NeedsJudge(vec!["q (1.00)".into()]),
            unsupported(Cause::MissingFixture),
            unsupported(Cause::LiveWeb),
            unsupported(Cause::LiveWeb),
        ];
        let counts = StatusCounts::of(&statuses);
        assert_eq!(
            counts.to_string(),
            "6 tasks: 1 runnable, 2 needs-judge, 0 needs-user-model, 2 needs-web, 1 \
             needs-fixtures, 0 unsupported"
        );
        let mut more = statuses.to_vec();
        more.push(unsupported(Cause::UnknownService));
        assert_eq!(
            StatusCounts::of(&more).to_string(),
            "7 tasks: 1 runnable, 2 needs-judge, 0 needs-user-model, 2 needs-web, 1 \
             needs-fixtures, 1 unsupported (1 unknown service)"
        );
        assert_eq!(
            StatusCounts::of(&[TaskStatus::Runnable]).to_string(),
            "1 task: 1 runnable, 0 needs-judge, 0 needs-user-model, 0 needs-web, 0 \
             needs-fixtures, 0 unsupported"
        );
        assert_eq!(unsupported(Cause::LiveWeb).to_string(), "needs-web: r");
        assert_eq!(
            unsupported(Cause::MissingFixture).to_string(),
            "needs-fixtures: r"
        );
        assert!(unsupported(Cause::MissingFixture).is_unsupported());
        assert_eq!(TaskStatus::Runnable.to_string(), "runnable");
    }

    #[test]
    fn a_service_fixture_missing_from_the_suite_needs_fixtures_and_a_present_one_does_not() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("tasks/t");
        std::fs::create_dir_all(&dir).unwrap();
        let yaml = "task_id: t
prompt: {text: hi}
services:
  - name: gmail
    command: python mock_services/gmail/server.py
    env: {GMAIL_FIXTURES: tasks/t/fixtures/gmail/inbox.json}
";
        std::fs::write(dir.join("task.yaml"), yaml).unwrap();
        let suite = clawrun_task::Suite::open(tmp.path()).unwrap();
        let status = TaskStatus::of(&suite.load("tasks/t").unwrap(), WebMode::Off);
        assert_eq!(
            status.to_string(),
            "needs-fixtures: service `gmail`: its fixture tasks/t/fixtures/gmail/inbox.json \
             (GMAIL_FIXTURES) is not in the suite"
        );
        // Setup fails on it with the same status.
        assert_eq!(
            TaskStatus::before_setup(&suite.load("tasks/t").unwrap().task, WebMode::Off),
            TaskStatus::Runnable
        );
        let setup = clawrun_trial::TaskEnv::prepare(suite.load("tasks/t").unwrap(), None);
        let error = setup.err().expect("Setup fails without the fixture");
        assert_eq!(TaskStatus::of_setup_error(&error, &suite), Some(status));
        assert_eq!(
            TaskStatus::of_setup_error(&anyhow::anyhow!("tasks/t/task.yaml: faults: bad"), &suite),
            None
        );
        std::fs::create_dir_all(dir.join("fixtures/gmail")).unwrap();
        std::fs::write(dir.join("fixtures/gmail/inbox.json"), "[]").unwrap();
        assert_eq!(
            TaskStatus::of(&suite.load("tasks/t").unwrap(), WebMode::Off),
            TaskStatus::Runnable
        );
        // A broken fixture is the task's error (reported when it is prepared), not a status.
        std::fs::write(dir.join("fixtures/gmail/inbox.json"), "[").unwrap();
        assert_eq!(
            TaskStatus::of(&suite.load("tasks/t").unwrap(), WebMode::Off),
            TaskStatus::Runnable
        );
    }

    /// A checkout's task: a video in sandbox_files, a blog both attached and in sandbox_files,
    /// a path written relative to the suite root (Claw-Eval never finds it) and a present
    /// fixture.
    const MEDIA_TASK: &str = "task_id: M1
prompt:
  text: hi
  attachments: [fixtures/docs/blog.txt]
sandbox_files:
  - fixtures/video.mp4
  - fixtures/docs/blog.txt
  - tasks/T0_other/fixtures/rss/articles.json
services:
  - name: gmail
    command: python mock_services/gmail/server.py
    env: {GMAIL_FIXTURES: tasks/M1/fixtures/inbox.json}
";

    #[test]
    fn in_a_checkout_missing_referenced_files_need_fixtures_naming_each_and_the_command() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("my checkout");
        let dir = root.join("tasks/M1");
        std::fs::create_dir_all(dir.join("fixtures")).unwrap();
        std::fs::write(dir.join("task.yaml"), MEDIA_TASK).unwrap();
        std::fs::write(dir.join("fixtures/inbox.json"), "[]").unwrap();
        let load = || {
            clawrun_task::Suite::open(&root)
                .unwrap()
                .load("tasks/M1")
                .unwrap()
        };
        // Not a checkout: the missing files stay warnings.
        assert_eq!(TaskStatus::of_missing_files(&load()), None);
        assert_eq!(TaskStatus::of(&load(), WebMode::Off), TaskStatus::Runnable);

        std::fs::create_dir_all(root.join("src/claw_eval")).unwrap();
        std::fs::write(root.join("src/claw_eval/__init__.py"), "").unwrap();
        let status = TaskStatus::of(&load(), WebMode::Off);
        assert_eq!(status.label(), "needs-fixtures");
        assert_eq!(
            status.reason().unwrap(),
            format!(
                "2 files it references are not in the checkout: tasks/M1/fixtures/video.mp4 \
                 (sandbox_files[0]), tasks/M1/fixtures/docs/blog.txt (sandbox_files[1], \
                 prompt.attachments[0]); Claw-Eval keeps its videos and large files in its Hugging \
                 Face dataset: fetch them with `clawrun setup claw-eval-media --checkout '{}'`",
                root.display()
            )
        );
        std::fs::create_dir_all(dir.join("fixtures/docs")).unwrap();
        std::fs::write(dir.join("fixtures/docs/blog.txt"), "text").unwrap();
        let status = TaskStatus::of(&load(), WebMode::Off);
        assert!(
            status
                .reason()
                .unwrap()
                .starts_with("a file it references is not in the checkout: tasks/M1/fixtures/video.mp4 (sandbox_files[0]);"),
            "{status}"
        );
        // With the video, only the misplaced path is missing: runnable, as in Claw-Eval.
        std::fs::write(dir.join("fixtures/video.mp4"), "mp4").unwrap();
        assert_eq!(TaskStatus::of(&load(), WebMode::Off), TaskStatus::Runnable);
        let missing = load().missing_files();
        assert_eq!(missing.len(), 1, "{missing:?}");
        assert!(missing[0].misplaced);
        // A missing service fixture of a checkout names the command too.
        std::fs::remove_file(dir.join("fixtures/inbox.json")).unwrap();
        let status = TaskStatus::of(&load(), WebMode::Off);
        assert_eq!(status.label(), "needs-fixtures");
        assert!(
            status.to_string().starts_with(
                "needs-fixtures: a file it references is not in the checkout: \
                 tasks/M1/fixtures/inbox.json (services[0].env.GMAIL_FIXTURES);"
            ),
            "{status}"
        );
    }

    #[test]
    fn the_fetch_command_quotes_paths_a_shell_would_split() {
        assert_eq!(shell_word("/work/claw-eval"), "/work/claw-eval");
        assert_eq!(shell_word("my checkout"), "'my checkout'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
