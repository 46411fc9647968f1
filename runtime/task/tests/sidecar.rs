//! `clawrun.yaml` sidecars: clawrun's extensions next to an unmodified Claw-Eval task.yaml.

use std::path::{Path, PathBuf};

use clawrun_task::{Error, Group, LoadedTask, OracleStep, SIDECAR_FILE, Suite, Task};

const T002: &str = "T002_email_triage";
const C01: &str = "C01zh_mortgage_prepay";

fn vendored(id: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../third_party/claw-eval/tasks")
        .join(id)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// A temporary suite holding a copy of vendored task `id` (at `tasks/<id>`, so its fixture
/// paths resolve) and, when given, a sidecar.
struct TempSuite {
    tmp: tempfile::TempDir,
    id: &'static str,
}

impl TempSuite {
    fn new(id: &'static str, sidecar: Option<&str>) -> Self {
        let tmp = tempfile::tempdir().unwrap();
        copy_tree(&vendored(id), &tmp.path().join("tasks").join(id));
        let s = Self { tmp, id };
        if let Some(text) = sidecar {
            s.write_sidecar(text);
        }
        s
    }

    fn dir(&self) -> PathBuf {
        self.tmp.path().join("tasks").join(self.id)
    }

    fn write_sidecar(&self, text: &str) {
        std::fs::write(self.dir().join(SIDECAR_FILE), text).unwrap();
    }

    /// Loads the task through a fresh suite (no cached discovery).
    fn load(&self) -> Result<LoadedTask, Error> {
        Suite::open(self.tmp.path())
            .unwrap()
            .load(&format!("tasks/{}", self.id))
    }

    fn loaded(&self) -> LoadedTask {
        self.load().unwrap_or_else(|e| panic!("{e}"))
    }

    /// The diagnostics of a load that must fail.
    fn errors(&self) -> Vec<String> {
        match self.load() {
            Ok(_) => panic!("loaded"),
            Err(Error::Invalid(d)) => d.iter().map(|d| d.to_string()).collect(),
            Err(e) => panic!("{e}"),
        }
    }
}

const SIDECAR: &str = "\
# clawrun's extensions for T002 (task.yaml stays as Claw-Eval ships it)
group: general
epoch: 2026-03-02T09:00:00Z
rubric:
  - name: no_send
    gate: true
    check: {type: tool_not_called, tool_name: gmail_send_message}
  - name: said_spam
    weight: 1
    check: {type: final_text_regex, pattern: '(?i)spam'}
oracle:
  steps:
    - call: gmail_list_messages
      args: {days_back: 30}
    - parallel:
        - {call: gmail_get_message, args: {message_id: msg_001}}
        - {call: gmail_get_message, args: {message_id: msg_004}}
  answer: Needs reply - msg_001. Spam - msg_004.
";

#[test]
fn sidecar_extensions_are_merged() {
    let s = TempSuite::new(T002, Some(SIDECAR));
    let original = std::fs::read(vendored(T002).join("task.yaml")).unwrap();
    assert_eq!(std::fs::read(s.dir().join("task.yaml")).unwrap(), original);
    let t = s.loaded();
    // Claw-Eval's fields from task.yaml.
    assert_eq!(t.task.task_id, T002);
    assert_eq!(t.task.scoring_components.len(), 3);
    assert_eq!(t.task.tools.len(), 3);
    // Ours from the sidecar.
    assert_eq!(t.task.group, Group::General);
    assert_eq!(t.task.epoch, Some(1_772_442_000));
    let names: Vec<&str> = t.task.rubric.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["no_send", "said_spam"]);
    assert!(t.task.rubric[0].gate);
    let oracle = t.task.oracle.as_ref().expect("oracle");
    assert_eq!(oracle.steps.len(), 2);
    assert!(matches!(&oracle.steps[1], OracleStep::Parallel(c) if c.len() == 2));
    assert_eq!(oracle.answer, "Needs reply - msg_001. Spam - msg_004.");
    // Where each field was written.
    let side = t.sidecar.as_ref().expect("sidecar");
    assert_eq!(side.file, format!("tasks/{T002}/clawrun.yaml"));
    assert_eq!(side.fields, ["group", "epoch", "rubric", "oracle"]);
    assert_eq!(
        t.field_file("oracle.steps[0].call"),
        format!("tasks/{T002}/clawrun.yaml")
    );
    assert_eq!(t.field_file("faults"), format!("tasks/{T002}/task.yaml"));
    assert_eq!(t.file(), format!("tasks/{T002}/task.yaml"));
    assert!(
        t.warnings.iter().all(|w| !w.file.ends_with(SIDECAR_FILE)),
        "{:?}",
        t.warnings
    );
}

#[test]
fn the_hash_covers_the_sidecar() {
    let s = TempSuite::new(T002, None);
    let bare = s.loaded();
    assert!(bare.sidecar.is_none());
    s.write_sidecar(SIDECAR);
    let with = s.loaded().hash;
    assert_ne!(bare.hash, with);
    // Same sidecar, same hash; any change to it (even a comment) changes it.
    assert_eq!(s.loaded().hash, with);
    s.write_sidecar(&format!("{SIDECAR}# reviewed\n"));
    let changed = s.loaded().hash;
    assert_ne!(changed, with);
    assert_ne!(changed, bare.hash);
    // Without a sidecar the hash is the one the task had before sidecars existed: the same
    // as that of the vendored copy.
    let vendored_suite = Suite::open(vendored(T002).join("../..")).unwrap();
    let v = vendored_suite.load(&format!("tasks/{T002}")).unwrap();
    assert_eq!(v.hash, bare.hash);
}

#[test]
fn a_field_set_in_both_files_is_an_error() {
    let s = TempSuite::new(T002, Some("group: multimodal\n"));
    let task_yaml = s.dir().join("task.yaml");
    let mut text = std::fs::read_to_string(&task_yaml).unwrap();
    text.push_str("group: general\n");
    std::fs::write(&task_yaml, text).unwrap();
    assert_eq!(
        s.errors(),
        [format!(
            "tasks/{T002}/clawrun.yaml:1:1: group: `group` is set in both task.yaml (task.yaml \
             line 137) and clawrun.yaml (hint: keep it in one file: in clawrun.yaml, so \
             task.yaml stays as Claw-Eval ships it)"
        )]
    );
}

#[test]
fn claw_eval_fields_are_refused_in_the_sidecar() {
    let side =
        "oracle:\n  steps: []\n  answer: ok\ntask_id: X\nscoring_components: []\nrubrik: []\n";
    let s = TempSuite::new(T002, Some(side));
    let hint = "clawrun.yaml holds only clawrun's extensions: group, epoch, workspace, judge, \
                system_tools, faults, rubric, oracle, limits, user_agent.script; Claw-Eval's fields \
                stay in task.yaml";
    let file = format!("tasks/{T002}/clawrun.yaml");
    assert_eq!(
        s.errors(),
        [
            format!(
                "{file}:4:1: task_id: `task_id` is one of Claw-Eval's fields, not one of \
                 clawrun's extensions (hint: {hint})"
            ),
            format!(
                "{file}:5:1: scoring_components: `scoring_components` is one of Claw-Eval's \
                 fields, not one of clawrun's extensions (hint: {hint})"
            ),
            format!(
                "{file}:6:1: rubrik: unknown field `rubrik` (hint: did you mean `rubric`? {hint})"
            ),
        ]
    );
}

#[test]
fn an_oracle_calling_an_unknown_tool_names_the_sidecar_line() {
    let side = "\
oracle:
  steps:
    - call: gmail_list_mesages
  answer: done
";
    let s = TempSuite::new(T002, Some(side));
    let errors = s.errors();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].starts_with(&format!(
            "tasks/{T002}/clawrun.yaml:3:13: oracle.steps[0].call: the oracle calls \
             `gmail_list_mesages`, which the task does not offer (hint: offered tools: \
             gmail_list_messages, gmail_get_message, gmail_send_message, Bash"
        )),
        "{}",
        errors[0]
    );
}

#[test]
fn checks_and_reading_errors_in_the_sidecar_name_its_lines() {
    let side = "\
rubric:
  - name: bad_regex
    check: {type: final_text_regex, pattern: '(unclosed'}
  - name: count
    weigth: 1
    check: {type: tool_called, tool_name: gmail_list_messages, min_calls: two}
epoch: 2026-03-02T09:00:00+01:00
";
    let s = TempSuite::new(T002, Some(side));
    let file = format!("tasks/{T002}/clawrun.yaml");
    let heads: Vec<String> = s
        .errors()
        .iter()
        .map(|e| e.split(" (hint").next().unwrap().to_string())
        .collect();
    // Reading errors and the checks on the merged task, all at once, in file order.
    assert_eq!(
        heads,
        [
            format!("{file}:3:46: rubric[0].check.pattern: invalid regex: unclosed group"),
            format!("{file}:6:75: rubric[1].check.min_calls: expected an integer, found \"two\""),
            format!("{file}:7:8: epoch: `2026-03-02T09:00:00+01:00` is not UTC (offset +01:00)"),
            format!("{file}:5:5: warning: rubric[1].weigth: unknown field `weigth` (ignored)"),
        ]
    );
}

#[test]
fn warnings_about_sidecar_fields_name_the_sidecar() {
    let side = "rubric:\n  - name: n\n    check: {type: tool_called, tool_name: slack_post}\n";
    let s = TempSuite::new(T002, Some(side));
    let t = s.loaded();
    let w: Vec<String> = t.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        w.contains(&format!(
            "tasks/{T002}/clawrun.yaml:3:43: warning: rubric[0].check.tool_name: tool \
             `slack_post` is not offered to the agent; the check can never pass (hint: name a \
             tool from `tools` (or a system tool), or offer this one)"
        )),
        "{w:#?}"
    );
}

#[test]
fn a_yaml_syntax_error_in_the_sidecar() {
    let s = TempSuite::new(T002, Some("oracle:\n  steps: [\n  answer: x\n"));
    let errors = s.errors();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].starts_with(&format!("tasks/{T002}/clawrun.yaml:")),
        "{errors:#?}"
    );
    assert!(errors[0].contains("invalid YAML"), "{errors:#?}");
}

#[test]
fn a_script_joins_task_yamls_simulated_user() {
    let side = "\
user_agent:
  script:
    rules:
      - when: 'LPR|利率'
        reply: 4.95%
    default: '[DONE]'
";
    let s = TempSuite::new(C01, Some(side));
    let t = s.loaded();
    let ua = t.task.user_agent.as_ref().unwrap();
    assert!(ua.enabled, "task.yaml's user_agent is kept");
    assert!(!ua.persona.is_empty());
    let script = ua.script.as_ref().expect("script");
    assert_eq!(script.rules[0].reply, "4.95%");
    assert_eq!(t.task.group, Group::MultiTurn);
    assert_eq!(t.sidecar.as_ref().unwrap().fields, ["user_agent.script"]);
    assert_eq!(
        t.field_file("user_agent.script.rules[0].when"),
        format!("tasks/{C01}/clawrun.yaml")
    );
    assert_eq!(
        t.field_file("user_agent.persona"),
        format!("tasks/{C01}/task.yaml")
    );

    // A bad regex in the script is reported in the sidecar.
    s.write_sidecar(&side.replace("'LPR|利率'", "'(LPR'"));
    let errors = s.errors();
    assert!(
        errors[0].starts_with(&format!(
            "tasks/{C01}/clawrun.yaml:4:15: user_agent.script.rules[0].when: invalid regex"
        )),
        "{errors:#?}"
    );

    // Only `script`: the simulated user's own fields stay in task.yaml.
    s.write_sidecar(&format!("{side}  enabled: false\n"));
    let errors = s.errors();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].starts_with(&format!(
            "tasks/{C01}/clawrun.yaml:7:3: user_agent.enabled: clawrun.yaml's `user_agent` \
             holds only `script`, not `enabled`"
        )),
        "{errors:#?}"
    );
}

#[test]
fn a_sidecar_cannot_enable_a_simulated_user() {
    let side = "user_agent:\n  script:\n    rules: []\n";
    let s = TempSuite::new(T002, Some(side));
    let errors = s.errors();
    assert_eq!(errors.len(), 1, "{errors:#?}");
    assert!(
        errors[0].starts_with(&format!(
            "tasks/{T002}/clawrun.yaml:1:1: user_agent: task.yaml has no `user_agent`: \
             clawrun.yaml can give a simulated user a script, not enable one"
        )),
        "{errors:#?}"
    );
}

#[test]
fn faults_workspace_and_system_tools_from_the_sidecar() {
    let side = "\
workspace: fixtures
system_tools: [Read, Grep]
faults:
  rules:
    - {name: slow, on: gmail_list_messages}
";
    let s = TempSuite::new(T002, Some(side));
    let t = s.loaded();
    assert_eq!(t.task.workspace.as_deref(), Some("fixtures"));
    assert_eq!(t.task.system_tools.len(), 2);
    let faults = t.task.faults.as_ref().expect("faults");
    // The faults tree's positions are in the sidecar: `field_file` says which file.
    assert_eq!(faults.pos.map(|p| p.line), Some(4));
    assert_eq!(t.field_file("faults"), format!("tasks/{T002}/clawrun.yaml"));
    assert!(
        t.workspace_files()
            .unwrap()
            .iter()
            .any(|(p, _)| p == "/workspace/gmail/inbox.json")
    );

    // A missing workspace folder is a warning naming the sidecar.
    s.write_sidecar("workspace: nowhere\n");
    let t = s.loaded();
    assert!(
        t.warnings
            .iter()
            .any(|w| w.to_string().starts_with(&format!(
                "tasks/{T002}/clawrun.yaml:1:12: warning: workspace: referenced file missing"
            ))),
        "{:?}",
        t.warnings
    );
}

#[test]
fn an_empty_sidecar_only_warns() {
    let s = TempSuite::new(T002, Some("# nothing yet\n"));
    let t = s.loaded();
    assert!(t.sidecar.as_ref().unwrap().fields.is_empty());
    assert!(
        t.warnings.iter().any(|w| w
            .to_string()
            .contains("clawrun.yaml:1:1: warning: clawrun.yaml sets nothing")),
        "{:?}",
        t.warnings
    );
}

#[test]
fn from_yaml_with_sidecar_without_a_suite() {
    let main = "task_id: t\nprompt: {text: hi}\ntools: []\n";
    let side = "oracle:\n  steps:\n    - call: Read\n      args: {file_path: a.md}\n  answer: ok\n";
    let p = Task::from_yaml_with_sidecar(main, "t/task.yaml", Some((side, "t/clawrun.yaml")))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(p.task.oracle.unwrap().answer, "ok");
    let (file, root) = p
        .sidecar
        .as_ref()
        .map_or(("", &p.root), |s| (&s.file, &s.root));
    assert_eq!(file, "t/clawrun.yaml");
    assert!(root.get("oracle").is_some());
    // Errors of both files at once: task.yaml's first.
    let err = Task::from_yaml_with_sidecar(
        "task_id: t\nprompt: {text: hi}\nenvironment: {max_turns: many}\n",
        "t/task.yaml",
        Some(("prompt: x\n", "t/clawrun.yaml")),
    )
    .unwrap_err();
    let files: Vec<&str> = err.diagnostics().iter().map(|d| d.file.as_str()).collect();
    assert_eq!(files, ["t/task.yaml", "t/clawrun.yaml"]);
}
