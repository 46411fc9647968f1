//! Where a suite's tasks are looked for: `tasks/ID/task.yaml` and `tasks/GROUP/ID/task.yaml`
//! (or the same two levels under the root when it has no `tasks/` folder), nothing deeper and
//! nothing inside a task folder.

use std::path::Path;

use clawrun_task::Suite;

/// Writes an (empty) task.yaml at each of `dirs` under `root`.
fn tasks_at(root: &Path, dirs: &[&str]) {
    for d in dirs {
        let dir = root.join(d);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("task.yaml"), "task_id: x\n").unwrap();
    }
}

#[test]
fn tasks_are_found_two_levels_below_the_tasks_folder_and_no_deeper() {
    let tmp = tempfile::tempdir().unwrap();
    tasks_at(
        tmp.path(),
        &[
            "tasks/a",
            "tasks/a/inner",
            "tasks/group/b",
            "tasks/group/deeper/c",
            "elsewhere/d",
        ],
    );
    let suite = Suite::open(tmp.path()).unwrap();
    assert_eq!(suite.discover().unwrap(), ["tasks/a", "tasks/group/b"]);
}

#[test]
fn without_a_tasks_folder_the_root_is_searched_two_levels_deep() {
    let tmp = tempfile::tempdir().unwrap();
    tasks_at(tmp.path(), &["x", "group/y", "group/sub/z", "a/b/c/d"]);
    let suite = Suite::open(tmp.path()).unwrap();
    assert_eq!(suite.discover().unwrap(), ["group/y", "x"]);
}
