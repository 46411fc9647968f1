//! `clawrun.yaml`: clawrun's extensions beside a Claw-Eval task.yaml that stays byte-identical
//! to the one Claw-Eval ships.
//!
//! The sidecar may set only the extension fields ([`SIDECAR_FIELDS`]); `user_agent` only with
//! `script`, added to task.yaml's simulated user. It is read with its own source text and file
//! name, so its diagnostics name `…/clawrun.yaml:LINE:COL`; its values are then moved into the
//! task, and validation sees the merged task (see [`Task::from_yaml_with_sidecar`]).
//!
//! [`Task::from_yaml_with_sidecar`]: crate::Task::from_yaml_with_sidecar

use crate::load::{TASK_FIELDS, read_epoch, read_group, read_system_tools};
use crate::model::{Group, RubricItem, SystemTool, Task};
use crate::oracle::Oracle;
use crate::read::{Cx, FromNode, Map, did_you_mean};
use crate::user_script::UserScript;
use crate::yaml::{Node, Pos, Value};

/// The name of the sidecar file, next to `task.yaml`.
pub const SIDECAR_FILE: &str = "clawrun.yaml";

/// The top-level fields a sidecar may set (`user_agent` only with `script`).
pub const SIDECAR_FIELDS: &[&str] = &[
    "group",
    "epoch",
    "workspace",
    "judge",
    "system_tools",
    "faults",
    "rubric",
    "oracle",
    "limits",
    "user_agent",
];

/// A `clawrun.yaml` merged into a task: its file, its node tree (for positions) and the
/// fields it set.
#[derive(Clone, Debug, PartialEq)]
pub struct Sidecar {
    /// The file, relative to the suite root (`tasks/T002_email_triage/clawrun.yaml`).
    pub file: String,
    /// Its positioned YAML tree. Field paths of the task (`oracle.steps[0].call`) address it
    /// for the fields it set.
    pub root: Node,
    /// The fields it set, in file order: top-level names (`oracle`, `rubric`, ...) and
    /// `user_agent.script`.
    pub fields: Vec<String>,
}

impl Sidecar {
    /// Whether field `path` of the task (`oracle.steps[0].call`, `user_agent.script.rules[1]`)
    /// was written in the sidecar.
    pub fn holds(&self, path: &str) -> bool {
        holds(&self.fields, path)
    }
}

/// Whether `path` is one of `fields` or lies inside one.
pub(crate) fn holds(fields: &[String], path: &str) -> bool {
    fields.iter().any(|f| {
        path.strip_prefix(f.as_str())
            .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
    })
}

/// The values a sidecar set, read with its own context.
#[derive(Default)]
pub(crate) struct Ext {
    group: Option<Group>,
    epoch: Option<i64>,
    workspace: Option<String>,
    judge: Option<String>,
    system_tools: Option<Vec<SystemTool>>,
    faults: Option<Node>,
    rubric: Option<Vec<RubricItem>>,
    oracle: Option<Oracle>,
    script: Option<UserScript>,
    limits: Option<crate::model::TaskLimits>,
}

const HINT: &str = "clawrun.yaml holds only clawrun's extensions: group, epoch, workspace, \
                    judge, system_tools, faults, rubric, oracle, limits, user_agent.script; Claw-Eval's \
                    fields stay in task.yaml";

/// Reads sidecar `root` (parsed from `cx`'s text) against task.yaml's tree `main`: errors for
/// fields that are not extensions and for fields task.yaml also sets. Returns the values and
/// the fields set.
pub(crate) fn read_sidecar(cx: &mut Cx<'_>, root: &Node, main: &Node) -> (Ext, Vec<String>) {
    let mut ext = Ext::default();
    let mut fields = Vec::new();
    let entries = match &root.value {
        Value::Null => {
            let hint = "add extensions (e.g. `oracle:`), or delete the file";
            let pos = Some(Pos { line: 1, column: 1 });
            cx.warn("", pos, "clawrun.yaml sets nothing", Some(hint.into()));
            return (ext, fields);
        }
        Value::Map(entries) => entries,
        _ => {
            cx.expected("", root, "a mapping", Some(HINT.into()));
            return (ext, fields);
        }
    };
    for (k, v) in entries {
        let Some(key) = cx.text(k) else {
            cx.expected("", k, "a text key", Some(HINT.into()));
            continue;
        };
        if !SIDECAR_FIELDS.contains(&key.as_str()) {
            let msg = if TASK_FIELDS.contains(&key.as_str()) {
                format!("`{key}` is one of Claw-Eval's fields, not one of clawrun's extensions")
            } else {
                format!("unknown field `{key}`")
            };
            let hint = match did_you_mean(&key, SIDECAR_FIELDS) {
                Some(m) if !TASK_FIELDS.contains(&key.as_str()) => {
                    format!("did you mean `{m}`? {HINT}")
                }
                _ => HINT.to_string(),
            };
            cx.error(&key, k.pos, msg, Some(hint));
            continue;
        }
        if v.value == Value::Null {
            continue;
        }
        if key == "user_agent" {
            if let Some(script) = read_user_agent(cx, v, main, k.pos) {
                ext.script = Some(script);
                fields.push("user_agent.script".to_string());
            }
            continue;
        }
        if let Some((mk, _)) = main.entry(&key).filter(|(_, mv)| mv.value != Value::Null) {
            both(cx, &key, k.pos, mk.pos);
            continue;
        }
        fields.push(key.clone());
        match key.as_str() {
            "group" => ext.group = read_group(cx, v),
            "epoch" => ext.epoch = read_epoch(cx, v),
            "workspace" => ext.workspace = String::read(cx, v, "workspace"),
            "judge" => ext.judge = String::read(cx, v, "judge"),
            "system_tools" => ext.system_tools = read_system_tools(cx, v),
            "faults" => ext.faults = Some(v.clone()),
            "rubric" => ext.rubric = Vec::read(cx, v, "rubric"),
            "oracle" => ext.oracle = Oracle::read(cx, v, "oracle"),
            "limits" => ext.limits = FromNode::read(cx, v, "limits"),
            _ => unreachable!("every sidecar field is read"),
        }
    }
    (ext, fields)
}

/// "set in both": the sidecar's key at `at`, task.yaml's at `main_at`.
fn both(cx: &mut Cx<'_>, field: &str, at: Option<Pos>, main_at: Option<Pos>) {
    let line = main_at.map(|p| format!(" (task.yaml line {})", p.line));
    let msg = format!(
        "`{field}` is set in both task.yaml{} and clawrun.yaml",
        line.unwrap_or_default()
    );
    let hint = "keep it in one file: in clawrun.yaml, so task.yaml stays as Claw-Eval ships it";
    cx.error(field, at, msg, Some(hint.into()));
}

/// A sidecar's `user_agent:`: only `script`, and only for a task.yaml that has a simulated
/// user (`key_at`: the sidecar's `user_agent` key).
fn read_user_agent(
    cx: &mut Cx<'_>,
    n: &Node,
    main: &Node,
    key_at: Option<Pos>,
) -> Option<UserScript> {
    let mut m = Map::open(cx, n, "user_agent")?;
    for (k, _) in m.rest() {
        if k == "script" {
            continue;
        }
        let pos = n.entry(&k).and_then(|(kn, _)| kn.pos);
        let msg = format!("clawrun.yaml's `user_agent` holds only `script`, not `{k}`");
        let hint = "the simulated user's `enabled`, `persona`, `max_rounds` and \
                    `system_prompt_suffix` are Claw-Eval's fields: they stay in task.yaml";
        let field = m.field(&k);
        m.cx.error(&field, pos, msg, Some(hint.into()));
    }
    let script_node = n.get("script").filter(|s| s.value != Value::Null)?;
    let main_ua = main.get("user_agent").filter(|u| u.value != Value::Null);
    let Some(main_ua) = main_ua else {
        let msg = "task.yaml has no `user_agent`: clawrun.yaml can give a simulated user a \
                   script, not enable one";
        let hint = "remove `user_agent` from clawrun.yaml, or use a task whose task.yaml has \
                    `user_agent: {enabled: true, ...}`";
        m.cx.error("user_agent", key_at, msg, Some(hint.into()));
        return None;
    };
    if let Some((mk, _)) = main_ua
        .entry("script")
        .filter(|(_, v)| v.value != Value::Null)
    {
        let at = n.entry("script").and_then(|(k, _)| k.pos);
        both(m.cx, "user_agent.script", at, mk.pos);
        return None;
    }
    UserScript::read(m.cx, script_node, "user_agent.script")
}

impl Ext {
    /// Moves the values into `task` (task.yaml's values of these fields are unset: a field set
    /// in both files is an error).
    pub(crate) fn merge_into(self, task: &mut Task) {
        if let Some(g) = self.group {
            task.group = g;
        }
        if let Some(t) = self.system_tools {
            task.system_tools = t;
        }
        if let Some(r) = self.rubric {
            task.rubric = r;
        }
        task.epoch = self.epoch.or(task.epoch);
        task.workspace = self.workspace.or(task.workspace.take());
        task.judge = self.judge.or(task.judge.take());
        task.faults = self.faults.or(task.faults.take());
        task.oracle = self.oracle.or(task.oracle.take());
        task.limits = self.limits.or(task.limits.take());
        if let (Some(s), Some(ua)) = (self.script, task.user_agent.as_mut()) {
            ua.script = Some(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_held() {
        let f = ["oracle".to_string(), "user_agent.script".to_string()];
        assert!(holds(&f, "oracle"));
        assert!(holds(&f, "oracle.steps[0].call"));
        assert!(holds(&f, "user_agent.script.rules[2].when"));
        assert!(!holds(&f, "user_agent"));
        assert!(!holds(&f, "user_agent.persona"));
        assert!(!holds(&f, "oracles"));
        assert!(!holds(&f, "rubric[0]"));
    }
}
