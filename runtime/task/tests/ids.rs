//! Task ids are identifiers (they name trace folders): ids that are paths are errors naming
//! file:line:column and `task_id`; two tasks of a selection sharing an id are refused together,
//! naming both files.

use std::path::Path;

use clawrun_task::{Error, Suite};

/// A suite in a temporary folder with one task per `(folder, task_id)`.
fn suite_of(tasks: &[(&str, &str)]) -> (tempfile::TempDir, Suite) {
    let tmp = tempfile::tempdir().unwrap();
    for (folder, id) in tasks {
        let dir = tmp.path().join("tasks").join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("task.yaml"),
            format!("task_id: {id}\nprompt: {{text: hi}}\n"),
        )
        .unwrap();
    }
    let suite = Suite::open(tmp.path()).unwrap();
    (tmp, suite)
}

/// The error lines of loading `folder`, which must fail.
fn load_errors(suite: &Suite, folder: &str) -> Vec<String> {
    match suite.load(folder) {
        Ok(t) => panic!("{folder} loaded with id {:?}", t.task.task_id),
        Err(e) => e.to_string().lines().map(str::to_string).collect(),
    }
}

#[test]
fn an_id_that_climbs_out_is_an_error_not_a_warning() {
    let (_tmp, suite) = suite_of(&[("x", "\"../../x\"")]);
    assert_eq!(
        load_errors(&suite, "tasks/x"),
        [
            "tasks/x/task.yaml:1:10: task_id: `../../x` is not a valid task id: it contains a path \
          separator `/` (hint: task ids name the run's trace folders: use ASCII letters, digits, `_`, \
          `-` and `.`, starting with a letter, digit or `_`, at most 128 characters; Claw-Eval's ids \
          equal their folder names)"
        ]
    );
}

#[test]
fn absolute_dotted_and_blank_ids_are_errors() {
    let (_tmp, suite) = suite_of(&[
        ("abs", "/tmp/abs"),
        ("dots", "\"..\""),
        ("hidden", ".hidden"),
        ("back", "'a\\b'"),
        ("space", "\"a b\""),
        ("empty", "\"\""),
    ]);
    let first = |f: &str| load_errors(&suite, &format!("tasks/{f}"))[0].clone();
    assert!(
        first("abs").contains(
            "task_id: `/tmp/abs` is not a valid task id: it contains a path separator `/`"
        )
    );
    assert!(first("dots").contains("task_id: `..` is not a valid task id: it starts with `.`"));
    assert!(first("hidden").contains("`.hidden` is not a valid task id: it starts with `.`"));
    assert!(first("back").contains("it contains a path separator `\\`"));
    assert!(first("space").contains("it contains the character ' '"));
    assert!(first("empty").contains("task_id: the task id is empty"));
}

#[test]
fn duplicate_ids_are_refused_naming_both_files() {
    let (_tmp, suite) = suite_of(&[("a", "same"), ("b", "same"), ("c", "other")]);
    let dirs = suite.discover().unwrap();
    let selection = suite.load_selection(&dirs);
    let ids: Vec<&str> = selection
        .tasks
        .iter()
        .map(|t| t.task.task_id.as_str())
        .collect();
    assert_eq!(ids, ["other"], "both tasks of the repeat are left out");
    let errors: Vec<String> = selection.errors.iter().map(Error::to_string).collect();
    assert_eq!(
        errors,
        [
            "tasks/b/task.yaml:1:10: task_id: `same` is also the id of tasks/a/task.yaml:1:10 (hint: \
          task ids must be unique in a selection (they name the run's trace folders and report rows; \
          ids differing only in case would share a folder on macOS and Windows): rename one, or \
          select only one of them)"
        ]
    );
    // load_all goes through the same check.
    assert!(
        suite
            .load_all()
            .unwrap_err()
            .to_string()
            .contains("is also the id of")
    );
    // Selecting only one of them is fine.
    assert_eq!(suite.load_selection(&dirs[..1]).tasks.len(), 1);
}

#[test]
fn ids_differing_only_in_case_are_duplicates() {
    let (_tmp, suite) = suite_of(&[("a", "Task1"), ("b", "task1")]);
    let selection = suite.load_selection(&suite.discover().unwrap());
    assert!(selection.tasks.is_empty());
    let text = selection.errors[0].to_string();
    assert!(
        text.contains(
            "`task1` differs only in letter case from `Task1`, the id of tasks/a/task.yaml:1:10"
        ),
        "{text}"
    );
}

#[test]
fn every_vendored_claw_eval_id_is_valid() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../third_party/claw-eval");
    let suite = Suite::open(&root).unwrap();
    let tasks = suite.load_all().unwrap();
    assert!(tasks.len() >= 46);
    for t in &tasks {
        assert_eq!(clawrun_task::task_id_problem(&t.task.task_id), None);
    }
}
