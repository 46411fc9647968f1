//! Deliberately broken task files: each error names file:line:column, the field path and a
//! hint; warnings leave the task loadable.

use clawrun_task::{Error, Suite};

fn suite() -> Suite {
    Suite::open(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data")).unwrap()
}

/// The diagnostics (errors, then warnings) of a case that must fail to load.
fn errors(case: &str) -> Vec<String> {
    match suite().load(&format!("broken/{case}")) {
        Ok(_) => panic!("{case} loaded"),
        Err(Error::Invalid(d)) => d.iter().map(|d| d.to_string()).collect(),
        Err(e) => panic!("{case}: {e}"),
    }
}

#[test]
fn wrong_type_for_min_calls() {
    assert_eq!(
        errors("min_calls_type"),
        [
            "broken/min_calls_type/task.yaml:19:18: scoring_components[0].check.min_calls: expected an integer, \
          found \"two\" (hint: write a whole number without quotes, e.g. `min_calls: 2`)"
        ]
    );
}

#[test]
fn missing_task_id() {
    assert_eq!(
        errors("missing_task_id"),
        [
            "broken/missing_task_id/task.yaml:1:1: task_id: missing required field (hint: add `task_id: <ID>` \
          at the top (Claw-Eval's ids equal the folder name))"
        ]
    );
}

#[test]
fn missing_prompt_text() {
    assert_eq!(
        errors("missing_prompt_text"),
        [
            "broken/missing_prompt_text/task.yaml:3:1: prompt.text: missing required field (hint: add `text:` \
          under `prompt:` (the user's message to the agent))"
        ]
    );
}

#[test]
fn unknown_check_type_lists_the_valid_ones() {
    assert_eq!(
        errors("bad_check_type"),
        [
            "broken/bad_check_type/task.yaml:17:13: scoring_components[0].check.type: unknown check type \
          `tool_calld` (hint: did you mean `tool_called`? valid types: tool_called, keywords_present, \
          keywords_absent, categories_present, min_length, llm_judge, tool_not_called, tool_order, distinct_args, \
          final_text_regex, audit, file_exists, file_absent, file_regex, json_path, csv_cell, \
          number_within, interval_iou, command)"
        ]
    );
}

#[test]
fn negative_weight() {
    assert_eq!(
        errors("negative_weight"),
        [
            "broken/negative_weight/task.yaml:18:13: scoring_components[1].weight: negative weight -0.5 \
          (hint: weights are shares of the score: use 0 or more)"
        ]
    );
}

#[test]
fn invalid_regex_in_final_text_regex() {
    assert_eq!(
        errors("bad_regex"),
        [
            "broken/bad_regex/task.yaml:10:16: rubric[0].check.pattern: invalid regex: unclosed group \
          (hint: fix the regex (Rust `regex` syntax: no look-around or backreferences))"
        ]
    );
}

#[test]
fn invalid_regex_in_user_script() {
    assert_eq!(
        errors("bad_user_script"),
        [
            "broken/bad_user_script/task.yaml:10:15: user_agent.script.rules[0].when: invalid regex: unclosed \
          group (hint: fix the regex (Rust `regex` syntax: no look-around or backreferences))"
        ]
    );
}

#[test]
fn sandbox_file_climbing_out() {
    assert_eq!(
        errors("sandbox_escape"),
        [
            "broken/sandbox_escape/task.yaml:7:5: sandbox_files[1]: `../../etc/passwd`: leads outside the \
          task folder (`..` or a symlink) (hint: name a file inside the task folder, relative to it (no \
          `..`, no absolute paths, no symlinks out))"
        ]
    );
}

#[test]
fn absolute_path() {
    assert_eq!(
        errors("absolute_path"),
        [
            "broken/absolute_path/task.yaml:6:5: sandbox_grader_files[0]: `/etc/passwd`: absolute paths are \
          not allowed (hint: name a file inside the task folder, relative to it (no `..`, no absolute \
          paths, no symlinks out))"
        ]
    );
}

#[test]
fn oracle_calling_an_unknown_tool() {
    assert_eq!(
        errors("oracle_unknown_tool"),
        [
            "broken/oracle_unknown_tool/task.yaml:19:18: oracle.steps[1].parallel[1].call: the oracle calls \
          `gmail_send_message`, which the task does not offer (hint: offered tools: gmail_list_messages, \
          Bash, Read)"
        ]
    );
}

#[test]
fn epoch_not_utc() {
    assert_eq!(
        errors("bad_epoch"),
        [
            "broken/bad_epoch/task.yaml:5:8: epoch: `2026-03-02T09:00:00+08:00` is not UTC (offset +08:00) \
          (hint: write the start time in UTC, e.g. `epoch: 2026-03-02T09:00:00Z`)"
        ]
    );
}

#[test]
fn duplicate_key() {
    assert_eq!(
        errors("duplicate_key"),
        [
            "broken/duplicate_key/task.yaml:8:3: invalid YAML: duplicate mapping key: max_turns (hint: a \
          field may appear only once in a mapping; remove or merge the repeat)"
        ]
    );
}

#[test]
fn tool_without_endpoint() {
    // `Bash` is a system tool and needs no endpoint; the service tool does.
    assert_eq!(
        errors("tool_without_endpoint"),
        [
            "broken/tool_without_endpoint/task.yaml:6:11: tools[0].name: tool `gmail_list_messages` has no \
          entry in `tool_endpoints` (hint: add `- {tool_name: gmail_list_messages, url: \
          http://localhost:PORT/..., method: POST}` to `tool_endpoints` (only system tools Bash, Read, \
          Write, Edit, Glob, Grep, BrowserScreenshot, ReadMedia, Download need none))"
        ]
    );
}

#[test]
fn yaml_syntax_error() {
    assert_eq!(
        errors("syntax_error"),
        [
            "broken/syntax_error/task.yaml:8:4: invalid YAML: while parsing a block collection, did not find \
          expected '-' indicator (hint: check the indentation and quoting around this line)"
        ]
    );
}

#[test]
fn several_errors_at_once_in_file_order() {
    assert_eq!(
        errors("wrong_shapes"),
        [
            "broken/wrong_shapes/task.yaml:5:7: tags: expected a list, found \"general\" (hint: write a \
             list: `tags: [a, b]`, or one `- item` per line under `tags:`)",
            "broken/wrong_shapes/task.yaml:6:8: group: unknown group `multiturn` (hint: valid: general, \
             multimodal, multi-turn (or leave it out to derive it from tags))",
            "broken/wrong_shapes/task.yaml:8:14: environment.max_turns: expected an integer, found `2.5` \
             (hint: write a whole number without quotes, e.g. `max_turns: 2`)",
        ]
    );
}

#[test]
fn unknown_fields_are_warnings() {
    let t = suite().load("broken/unknown_field").unwrap();
    let w: Vec<String> = t.warnings.iter().map(|w| w.to_string()).collect();
    assert_eq!(w.len(), 2, "{w:#?}");
    assert_eq!(
        w[0],
        "broken/unknown_field/task.yaml:6:1: warning: prompt_text: unknown field `prompt_text` (ignored) \
         (hint: known fields: task_id, task_name, version, category, difficulty, tags, services, prompt, \
         tools, tool_endpoints, sandbox_files, sandbox_grader_files, env_snapshot_commands, \
         env_snapshot_files, local_grader_files, environment, user_agent, scoring_components, \
         safety_checks, expected_actions, judge_rubric, reference_solution, primary_dimensions, group, \
         workspace, judge, faults, rubric, oracle, system_tools, epoch, limits)"
    );
    assert_eq!(
        w[1],
        "broken/unknown_field/task.yaml:9:3: warning: environment.max_turn: unknown field `max_turn` \
         (ignored) (hint: did you mean `max_turns`? known fields: timeout_seconds, max_turns, \
         env_snapshot_timeout, enable_todo, enable_compact, compact_*)"
    );
    // The misspelt field kept its default; `compact_*` knobs are accepted silently.
    assert_eq!(t.task.environment.max_turns, 20);
    assert_eq!(t.task.environment.timeout_seconds, 60);
}

/// A task in a temporary suite: `task.yaml` text plus extra setup.
fn temp_task(
    yaml: &str,
    setup: impl FnOnce(&std::path::Path),
) -> (tempfile::TempDir, Result<clawrun_task::LoadedTask, Error>) {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("suite/case");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("task.yaml"), yaml).unwrap();
    setup(&dir);
    let r = Suite::open(tmp.path().join("suite")).unwrap().load("case");
    (tmp, r)
}

#[cfg(unix)]
#[test]
fn symlink_out_of_the_task_folder() {
    let yaml = "task_id: case\nprompt: {text: hi}\nsandbox_files:\n  - fixtures/secret.txt\n";
    let (tmp, r) = temp_task(yaml, |dir| {
        std::fs::write(dir.join("../../outside.txt"), "host secret").unwrap();
        std::fs::create_dir(dir.join("fixtures")).unwrap();
        std::os::unix::fs::symlink("../../../outside.txt", dir.join("fixtures/secret.txt"))
            .unwrap();
    });
    let Err(Error::Invalid(d)) = r else {
        panic!("loaded")
    };
    let d: Vec<String> = d.iter().map(|d| d.to_string()).collect();
    assert_eq!(
        d,
        [
            "case/task.yaml:4:5: sandbox_files[0]: `fixtures/secret.txt`: leads outside the task folder (`..` \
          or a symlink) (hint: name a file inside the task folder, relative to it (no `..`, no absolute \
          paths, no symlinks out))"
        ]
    );
    // No host path appears anywhere.
    assert!(!d[0].contains(&tmp.path().display().to_string()));
}

#[cfg(unix)]
#[test]
fn symlink_out_of_a_workspace_tree() {
    let yaml = "task_id: case\nprompt: {text: hi}\nworkspace: ws\n";
    let (_tmp, r) = temp_task(yaml, |dir| {
        std::fs::create_dir(dir.join("ws")).unwrap();
        std::fs::write(dir.join("ws/a.txt"), "a").unwrap();
        std::fs::write(dir.join("secret.txt"), "s").unwrap();
        std::os::unix::fs::symlink("../secret.txt", dir.join("ws/link.txt")).unwrap();
    });
    // The tree is hashed at load time, so the escaping link is reported then.
    let Err(Error::Invalid(d)) = r else {
        panic!("loaded")
    };
    assert_eq!(
        d[0].to_string(),
        "case/task.yaml:3:12: workspace: `ws/link.txt`: leads outside its folder (`..` or a symlink) \
         (hint: task files must be regular files or folders inside the task folder)"
    );
}

#[test]
fn workspace_must_be_a_folder() {
    let yaml = "task_id: case\nprompt: {text: hi}\nworkspace: notes.md\n";
    let (_tmp, r) = temp_task(yaml, |dir| {
        std::fs::write(dir.join("notes.md"), "x").unwrap()
    });
    let Err(Error::Invalid(d)) = r else {
        panic!("loaded")
    };
    assert_eq!(
        d[0].to_string(),
        "case/task.yaml:3:12: workspace: `notes.md` is a file, not a folder (hint: `workspace:` names a \
         folder relative to the task folder)"
    );
}

#[test]
fn task_id_differing_from_the_folder_warns() {
    let (_tmp, r) = temp_task("task_id: other\nprompt: {text: hi}\n", |_| {});
    let t = r.unwrap();
    assert_eq!(
        t.warnings[0].to_string(),
        "case/task.yaml:1:10: warning: task_id: `other` differs from the folder name `case` (hint: \
         Claw-Eval's task ids equal their folder names; rename one)"
    );
}

#[test]
fn empty_file() {
    let (_tmp, r) = temp_task("", |_| {});
    assert_eq!(
        r.unwrap_err().to_string(),
        "case/task.yaml:1:1: the task file is empty (hint: a task file starts with `task_id: ...` and \
         `prompt: {text: ...}`)"
    );
}
