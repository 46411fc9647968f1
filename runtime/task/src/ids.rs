//! Task ids are identifiers: they name a run's trace folders (`<out>/<task_id>/<trial>/`),
//! journal records and report rows, so they are checked to a safe character set here, and no
//! two tasks of a selection may share one.

use std::collections::BTreeMap;

use crate::error::Diagnostic;
use crate::loaded::LoadedTask;

/// The longest task id accepted, in bytes (Claw-Eval's longest is 40).
pub const MAX_TASK_ID_LEN: usize = 128;

/// What a task id may look like, for hints.
pub const TASK_ID_RULE: &str = "task ids name the run's trace folders: use ASCII letters, digits, \
     `_`, `-` and `.`, starting with a letter, digit or `_`, at most 128 characters";

/// Why `id` is not a valid task id, or `None` when it is one: ASCII letters, digits, `_`, `-`
/// and `.`; the first character a letter, digit or `_` (so never `.`, `..`, a hidden folder or
/// something that reads as a command-line flag); at most [`MAX_TASK_ID_LEN`] bytes.
pub fn task_id_problem(id: &str) -> Option<String> {
    if id.is_empty() {
        return Some("the task id is empty".into());
    }
    if id.len() > MAX_TASK_ID_LEN {
        return Some(format!(
            "the task id is {} characters long (at most {MAX_TASK_ID_LEN})",
            id.len()
        ));
    }
    if let Some(c) = id
        .chars()
        .find(|c| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')))
    {
        let what = match c {
            '/' | '\\' => format!("a path separator `{c}`"),
            c if c.is_whitespace() || c.is_control() => format!("the character {c:?}"),
            c => format!("the character `{c}`"),
        };
        return Some(format!("`{id}` is not a valid task id: it contains {what}"));
    }
    let first = id.chars().next().unwrap_or('_');
    if !(first.is_ascii_alphanumeric() || first == '_') {
        return Some(format!(
            "`{id}` is not a valid task id: it starts with `{first}`"
        ));
    }
    None
}

/// One diagnostic per task of `tasks` whose id another, earlier task already has (ASCII case
/// ignored: such ids would share a trace folder on case-insensitive file systems), each at the
/// repeat's `task_id` and naming the first file. Returns the indices of every task involved.
pub(crate) fn duplicate_ids(tasks: &[LoadedTask]) -> (Vec<Diagnostic>, Vec<usize>) {
    let mut first: BTreeMap<String, usize> = BTreeMap::new();
    let mut diags = Vec::new();
    let mut involved = Vec::new();
    for (i, t) in tasks.iter().enumerate() {
        let key = t.task.task_id.to_ascii_lowercase();
        let Some(&j) = first.get(&key) else {
            first.insert(key, i);
            continue;
        };
        let other = &tasks[j];
        let at = match other.id_pos {
            Some(p) => format!("{}:{}:{}", other.file(), p.line, p.column),
            None => other.file(),
        };
        let msg = if other.task.task_id == t.task.task_id {
            format!("`{}` is also the id of {at}", t.task.task_id)
        } else {
            format!(
                "`{}` differs only in letter case from `{}`, the id of {at}",
                t.task.task_id, other.task.task_id
            )
        };
        let d = Diagnostic::error(&t.file(), "task_id", msg)
            .at(t.id_pos)
            .hint(
                "task ids must be unique in a selection (they name the run's trace folders \
                 and report rows; ids differing only in case would share a folder on macOS and \
                 Windows): rename one, or select only one of them",
            );
        diags.push(d);
        involved.extend([j, i]);
    }
    involved.sort_unstable();
    involved.dedup();
    (diags, involved)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_identifiers() {
        for ok in [
            "T002_email_triage",
            "C01zh_mortgage_prepay",
            "a",
            "_x",
            "v1.2-b",
            "9",
        ] {
            assert_eq!(task_id_problem(ok), None, "{ok}");
        }
        let cases = [
            ("../../x", "a path separator `/`"),
            ("/etc/x", "a path separator `/`"),
            ("a\\b", "a path separator `\\`"),
            ("..", "starts with `.`"),
            (".hidden", "starts with `.`"),
            ("-rf", "starts with `-`"),
            ("a b", "the character ' '"),
            ("tab\tx", "the character '\\t'"),
            ("é", "the character `é`"),
            ("", "empty"),
        ];
        for (bad, why) in cases {
            let p = task_id_problem(bad).unwrap_or_else(|| panic!("{bad:?} accepted"));
            assert!(p.contains(why), "{bad:?}: {p}");
        }
        assert!(task_id_problem(&"x".repeat(128)).is_none());
        assert!(task_id_problem(&"x".repeat(129)).unwrap().contains("129"));
    }
}
