//! task.yaml text -> [`Task`]: YAML syntax (serde-saphyr, positioned nodes), then the typed
//! reading with field paths, then validation.

use crate::epoch::parse_epoch;
use crate::error::{Diagnostic, Error};
use crate::model::{Group, Prompt, SystemTool, Task, UserAgent};
use crate::oracle::Oracle;
use crate::read::{Cx, FromNode, Map};
use crate::sidecar::{Sidecar, read_sidecar};
use crate::source::{Report, Source, Sources};
use crate::yaml::{Node, Pos, Value};

/// Top-level fields of a task.yaml (Claw-Eval's, then ours).
pub const TASK_FIELDS: &[&str] = &[
    "task_id",
    "task_name",
    "version",
    "category",
    "difficulty",
    "tags",
    "services",
    "prompt",
    "tools",
    "tool_endpoints",
    "sandbox_files",
    "sandbox_grader_files",
    "env_snapshot_commands",
    "env_snapshot_files",
    "local_grader_files",
    "environment",
    "user_agent",
    "scoring_components",
    "safety_checks",
    "expected_actions",
    "judge_rubric",
    "reference_solution",
    "primary_dimensions",
    "group",
    "workspace",
    "judge",
    "faults",
    "rubric",
    "oracle",
    "system_tools",
    "epoch",
    "limits",
];

/// A parsed task with the node tree it came from (for positions) and its warnings.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The task (with the sidecar's extensions merged in).
    pub task: Task,
    /// The positioned YAML tree of task.yaml.
    pub root: Node,
    /// The `clawrun.yaml` sidecar merged in, if any (its tree and the fields it set).
    pub sidecar: Option<Sidecar>,
    /// Warnings (unknown fields, suspicious values, ...), task.yaml's first.
    pub warnings: Vec<Diagnostic>,
}

impl Task {
    /// Parses and validates task.yaml text; `file` is the name errors show (relative to the
    /// suite root). File references are not checked here (see [`Suite::load`]).
    ///
    /// [`Suite::load`]: crate::Suite::load
    pub fn from_yaml(text: &str, file: &str) -> Result<Parsed, Error> {
        Self::from_yaml_with_sidecar(text, file, None)
    }

    /// Like [`Task::from_yaml`], with the text and file name of a `clawrun.yaml` sidecar whose
    /// extensions are merged into the task (see [`sidecar`](crate::sidecar)). The sidecar is
    /// read on its own, so its diagnostics name its file and its lines; validation sees the
    /// merged task, and reports each field in the file that sets it.
    pub fn from_yaml_with_sidecar(
        text: &str,
        file: &str,
        sidecar: Option<(&str, &str)>,
    ) -> Result<Parsed, Error> {
        let root = parse_yaml(text, file);
        let side_root = sidecar.map(|(t, f)| parse_yaml(t, f)).transpose();
        let (root, side_root) = match (root, side_root) {
            (Ok(r), Ok(s)) => (r, s),
            (r, s) => {
                let mut d = Vec::new();
                for e in [r.err(), s.err()].into_iter().flatten() {
                    d.extend(e.diagnostics().iter().cloned());
                }
                return Err(Error::Invalid(sorted_in(d, file)));
            }
        };
        let mut cx = Cx::new(text, file);
        let mut task = read_task(&mut cx, &root);
        let mut diags = cx.diags;
        let side = match (sidecar, side_root) {
            (Some((side_text, side_file)), Some(side_root)) => {
                let mut scx = Cx::new(side_text, side_file);
                let (ext, fields) = read_sidecar(&mut scx, &side_root, &root);
                diags.extend(scx.diags);
                if let Some(t) = &mut task {
                    ext.merge_into(t);
                }
                Some((
                    side_text,
                    Sidecar {
                        file: side_file.to_string(),
                        root: side_root,
                        fields,
                    },
                ))
            }
            _ => None,
        };
        if let Some(task) = &task {
            let main = Source {
                file,
                text,
                root: &root,
            };
            let srcs = Sources::new(main, side.as_ref().map(|(t, s)| (s, *t)));
            let mut r = Report::new(&srcs);
            crate::validate::validate(&mut r, task);
            diags.extend(r.diags);
        }
        match task {
            Some(task) if !diags.iter().any(Diagnostic::is_error) => Ok(Parsed {
                task,
                root,
                sidecar: side.map(|(_, s)| s),
                warnings: sorted_in(diags, file),
            }),
            _ => Err(Error::Invalid(sorted_in(diags, file))),
        }
    }
}

/// Errors first, then warnings, each in file order (those without a position last).
pub(crate) fn sorted(d: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let first = d.first().map(|d| d.file.clone()).unwrap_or_default();
    sorted_in(d, &first)
}

/// Errors first, then warnings; within each, those of `main` (task.yaml) before those of
/// other files (the sidecar), each in file order (those without a position last).
pub(crate) fn sorted_in(mut d: Vec<Diagnostic>, main: &str) -> Vec<Diagnostic> {
    d.sort_by_key(|d| {
        (
            std::cmp::Reverse(d.severity),
            d.file != main,
            d.pos.is_none(),
            d.pos,
        )
    });
    d
}

/// Parses YAML text into a positioned tree; a syntax error (or a duplicate key) is one
/// diagnostic with line:column.
pub fn parse_yaml(text: &str, file: &str) -> Result<Node, Error> {
    serde_saphyr::from_str::<Node>(text).map_err(|e| {
        let pos = e.location().filter(|l| l.line() > 0).map(|l| Pos {
            line: l.line(),
            column: l.column(),
        });
        let mut message = e.without_snippet().to_string();
        if let Some(pos) = pos {
            // serde-saphyr appends the position; ours leads the line instead.
            let tail = format!(" at line {}, column {}", pos.line, pos.column);
            if let Some(stripped) = message.strip_suffix(&tail) {
                message = stripped.to_string();
            }
        }
        let mut hint = "check the indentation and quoting around this line".to_string();
        // Drop serde-saphyr's advice to its API users; ours is for the task's author.
        if let Some(i) = message.find(", set DuplicateKeyPolicy") {
            message.truncate(i);
            hint = "a field may appear only once in a mapping; remove or merge the repeat".into();
        }
        let d = Diagnostic::error(file, "", format!("invalid YAML: {message}"))
            .at(pos)
            .hint(hint);
        Error::Invalid(vec![d])
    })
}

pub(crate) fn read_task(cx: &mut Cx<'_>, root: &Node) -> Option<Task> {
    if root.value == Value::Null {
        let hint = "a task file starts with `task_id: ...` and `prompt: {text: ...}`";
        cx.error(
            "",
            Some(Pos { line: 1, column: 1 }),
            "the task file is empty",
            Some(hint.into()),
        );
        return None;
    }
    let mut m = Map::open(cx, root, "")?;
    // A mapping's own position is its first key's; a missing field is reported at line 1.
    m.pos = Some(Pos { line: 1, column: 1 });
    let task_id: Option<String> = m.req(
        "task_id",
        "add `task_id: <ID>` at the top (Claw-Eval's ids equal the folder name)",
    );
    let task_name: Option<String> = m.opt("task_name");
    let version = m.opt("version");
    let category = m.opt("category");
    let difficulty = m.opt("difficulty");
    let tags: Vec<String> = m.or_default("tags");
    let services = m.or_default("services");
    let prompt = match m.node("prompt") {
        Some(p) => read_prompt(m.cx, p, key_pos(root, "prompt")),
        None => {
            let hint = "add `prompt:` with `text: ...` (what the user asks the agent)";
            m.cx.error(
                "prompt",
                Some(Pos { line: 1, column: 1 }),
                "missing required field",
                Some(hint.into()),
            );
            None
        }
    };
    let tools = m.or_default("tools");
    let tool_endpoints = m.or_default("tool_endpoints");
    let system_tools = match m.node("system_tools") {
        Some(n) => read_system_tools(m.cx, n),
        None => Some(SystemTool::ALL.to_vec()),
    };
    let sandbox_files = m.or_default("sandbox_files");
    let sandbox_grader_files = m.or_default("sandbox_grader_files");
    let env_snapshot_commands = m.or_default("env_snapshot_commands");
    let env_snapshot_files = m.or_default("env_snapshot_files");
    let local_grader_files = m.or_default("local_grader_files");
    let workspace = m.opt("workspace");
    let judge = m.opt("judge");
    let environment = m.or_default("environment");
    let user_agent: Option<UserAgent> = m.opt("user_agent");
    let scoring_components = m.or_default("scoring_components");
    let safety_checks = m.or_default("safety_checks");
    let expected_actions = m.or_default("expected_actions");
    let judge_rubric = m.opt("judge_rubric");
    let reference_solution = m.opt("reference_solution");
    let primary_dimensions = m.or_default("primary_dimensions");
    let rubric = m.or_default("rubric");
    let oracle: Option<Oracle> = m.opt("oracle");
    let faults = m.node("faults").filter(|n| n.value != Value::Null).cloned();
    let epoch = match m.node("epoch") {
        Some(n) if n.value != Value::Null => read_epoch(m.cx, n),
        _ => None,
    };
    let limits = m.opt("limits");
    let group = match m.node("group") {
        Some(n) if n.value != Value::Null => read_group(m.cx, n),
        _ => None,
    };
    m.finish(TASK_FIELDS);
    let group = group.unwrap_or_else(|| {
        let multi = tags.iter().any(|t| t == "user_agent")
            || user_agent.as_ref().is_some_and(|u| u.enabled);
        if multi {
            Group::MultiTurn
        } else if tags.iter().any(|t| t == "multimodal") {
            Group::Multimodal
        } else {
            Group::General
        }
    });
    let task_id = task_id?;
    Some(Task {
        task_name: task_name.unwrap_or_else(|| task_id.clone()),
        task_id,
        version,
        category,
        difficulty,
        tags,
        group,
        services,
        prompt: prompt?,
        tools,
        tool_endpoints,
        system_tools: system_tools?,
        sandbox_files,
        sandbox_grader_files,
        env_snapshot_commands,
        env_snapshot_files,
        local_grader_files,
        workspace,
        judge,
        environment,
        user_agent,
        scoring_components,
        safety_checks,
        expected_actions,
        judge_rubric,
        reference_solution,
        primary_dimensions,
        rubric,
        oracle,
        faults,
        epoch,
        limits,
    })
}

/// The position of `key`'s key node in mapping `n`.
fn key_pos(n: &Node, key: &str) -> Option<Pos> {
    n.entry(key).and_then(|(k, _)| k.pos)
}

fn read_prompt(cx: &mut Cx<'_>, n: &Node, at: Option<Pos>) -> Option<Prompt> {
    if let Value::Str(_) = n.value {
        let hint = "write `prompt:` as a mapping: `prompt: {text: \"...\", language: en}`";
        cx.expected("prompt", n, "a mapping", Some(hint.into()));
        return None;
    }
    let mut m = Map::open(cx, n, "prompt")?;
    m.pos = at.or(m.pos);
    let text = m.req(
        "text",
        "add `text:` under `prompt:` (the user's message to the agent)",
    );
    let language = m.or("language", "en".to_string());
    let attachments = m.or_default("attachments");
    m.finish(&["text", "language", "attachments"]);
    Some(Prompt {
        text: text?,
        language,
        attachments,
    })
}

pub(crate) fn read_system_tools(cx: &mut Cx<'_>, n: &Node) -> Option<Vec<SystemTool>> {
    let names: Vec<String> = Vec::read(cx, n, "system_tools")?;
    let items: &[Node] = match &n.value {
        Value::Seq(items) => items,
        _ => &[],
    };
    let mut out = Vec::new();
    for (i, name) in names.iter().enumerate() {
        match SystemTool::parse(name) {
            Some(t) if !out.contains(&t) => out.push(t),
            Some(_) => {}
            None => {
                let valid: Vec<&str> = SystemTool::ALL.iter().map(|t| t.name()).collect();
                let hint = format!("valid: {}", valid.join(", "));
                let pos = items.get(i).and_then(|n| n.pos);
                let msg = format!("unknown system tool `{name}`");
                cx.error(&format!("system_tools[{i}]"), pos, msg, Some(hint));
                return None;
            }
        }
    }
    Some(out)
}

pub(crate) fn read_epoch(cx: &mut Cx<'_>, n: &Node) -> Option<i64> {
    let text = String::read(cx, n, "epoch")?;
    match parse_epoch(&text) {
        Ok(t) => Some(t),
        Err(msg) => {
            let hint = "write the start time in UTC, e.g. `epoch: 2026-03-02T09:00:00Z`";
            cx.error("epoch", n.pos, msg.to_string(), Some(hint.into()));
            None
        }
    }
}

pub(crate) fn read_group(cx: &mut Cx<'_>, n: &Node) -> Option<Group> {
    let text = String::read(cx, n, "group")?;
    let g = Group::parse(&text);
    if g.is_none() {
        let hint =
            "valid: general, multimodal, multi-turn (or leave it out to derive it from tags)";
        cx.error(
            "group",
            n.pos,
            format!("unknown group `{text}`"),
            Some(hint.into()),
        );
    }
    g
}

/// The node at a field path (`scoring_components[2].check.min_calls`), if present.
pub fn node_at<'n>(root: &'n Node, path: &str) -> Option<&'n Node> {
    let mut n = root;
    if path.is_empty() {
        return Some(n);
    }
    for seg in path.split('.') {
        let (key, mut rest) = match seg.find('[') {
            Some(i) => (&seg[..i], &seg[i..]),
            None => (seg, ""),
        };
        if !key.is_empty() {
            n = n.get(key)?;
        }
        while let Some(r) = rest.strip_prefix('[') {
            let end = r.find(']')?;
            let i: usize = r[..end].parse().ok()?;
            n = match &n.value {
                Value::Seq(items) => items.get(i)?,
                _ => return None,
            };
            rest = &r[end + 1..];
        }
    }
    Some(n)
}
