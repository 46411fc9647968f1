//! Checks on a read [`Task`] that need no files: weights, tool names, endpoints, regexes,
//! oracle calls, check values, and YAML pitfalls in keyword lists.

use std::collections::BTreeSet;

use regex::RegexBuilder;

use crate::bounds::{self, MAX_WEIGHT};
use crate::check::Check;
use crate::ids::{TASK_ID_RULE, task_id_problem};
use crate::load::node_at;
use crate::model::{SystemTool, Task};
use crate::source::Report;
use crate::yaml::{Node, Value};

/// Runs every check on the (merged) task, recording diagnostics in `r`.
pub(crate) fn validate(r: &mut Report<'_>, task: &Task) {
    let v = &mut V { r };
    v.task_id(task);
    v.tools(task);
    v.bounds(task);
    let mut sum = 0.0;
    for (i, c) in task.scoring_components.iter().enumerate() {
        let base = format!("scoring_components[{i}]");
        v.weight(&base, c.weight);
        sum += c.weight;
        v.check(task, &format!("{base}.check"), &c.check);
    }
    if !task.scoring_components.is_empty() && (sum - 1.0).abs() > 0.01 {
        let msg = format!("the weights sum to {}, not 1", round(sum));
        let hint = "Claw-Eval's components share the completion score; make them sum to 1";
        v.warn("scoring_components", msg, hint);
    }
    for (i, r) in task.rubric.iter().enumerate() {
        let base = format!("rubric[{i}]");
        v.weight(&base, r.weight);
        v.check(task, &format!("{base}.check"), &r.check);
    }
    for (i, s) in task.safety_checks.iter().enumerate() {
        if let Some(t) = &s.tool_name {
            v.offered(task, &format!("safety_checks[{i}].tool_name"), t, false);
        }
    }
    v.oracle(task);
    v.user_script(task);
}

fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The validator: the report, which knows each field's file (for positions and text).
struct V<'a, 'r> {
    r: &'a mut Report<'r>,
}

impl V<'_, '_> {
    fn error(&mut self, path: &str, msg: impl Into<String>, hint: &str) {
        self.r.error(path, msg, hint);
    }

    fn warn(&mut self, path: &str, msg: impl Into<String>, hint: &str) {
        self.r.warn(path, msg, hint);
    }

    /// The task id is an identifier (it names the run's trace folders).
    fn task_id(&mut self, task: &Task) {
        if let Some(problem) = task_id_problem(&task.task_id) {
            let hint = format!("{TASK_ID_RULE}; Claw-Eval's ids equal their folder names");
            self.error("task_id", problem, &hint);
        }
    }

    fn weight(&mut self, base: &str, w: f64) {
        if w < 0.0 {
            let hint = "weights are shares of the score: use 0 or more";
            self.error(
                &format!("{base}.weight"),
                format!("negative weight {w}"),
                hint,
            );
        } else if w > MAX_WEIGHT {
            let hint = format!(
                "weights are shares of the score: keep each at most {MAX_WEIGHT} (Claw-Eval's sum to 1)"
            );
            self.error(
                &format!("{base}.weight"),
                format!("weight {w} is too large: the score would not be a finite number"),
                &hint,
            );
        }
    }

    /// Times and limits within [`bounds`](crate::bounds), so that a task that validates runs.
    fn bounds(&mut self, task: &Task) {
        let e = &task.environment;
        let time = "a trial's time limit: seconds from 0 to 604800 (a week)";
        for (field, secs) in [
            ("timeout_seconds", e.timeout_seconds),
            ("env_snapshot_timeout", e.env_snapshot_timeout),
        ] {
            if secs > bounds::MAX_SECONDS {
                self.error(
                    &format!("environment.{field}"),
                    format!("{secs} seconds is beyond {} (a week)", bounds::MAX_SECONDS),
                    time,
                );
            }
        }
        if e.max_turns > bounds::MAX_TURNS {
            self.error(
                "environment.max_turns",
                format!("{} turns is beyond {}", e.max_turns, bounds::MAX_TURNS),
                "a trial's turn limit: use at most 100000",
            );
        }
        if let Some(u) = &task.user_agent
            && u.max_rounds > bounds::MAX_TURNS
        {
            self.error(
                "user_agent.max_rounds",
                format!("{} rounds is beyond {}", u.max_rounds, bounds::MAX_TURNS),
                "the simulated user's reply limit: use at most 100000",
            );
        }
        if let Some(l) = &task.limits {
            if let Some(mib) = l.disk_mib
                && mib > bounds::MAX_DISK_MIB
            {
                self.error(
                    "limits.disk_mib",
                    format!("{mib} MiB is beyond {} (1 TiB)", bounds::MAX_DISK_MIB),
                    "the bytes a trial may add, in MiB: use at most 1048576",
                );
            }
            if let Some(n) = l.inodes
                && n > bounds::MAX_INODES
            {
                self.error(
                    "limits.inodes",
                    format!("{n} is beyond {}", bounds::MAX_INODES),
                    "the files, folders and links a trial may add: use at most 1000000000",
                );
            }
        }
    }

    /// Tools: unique names, an endpoint each unless a system tool, endpoints for known tools.
    fn tools(&mut self, task: &Task) {
        let mut seen = BTreeSet::new();
        for (i, t) in task.tools.iter().enumerate() {
            let path = format!("tools[{i}].name");
            if !seen.insert(t.name.as_str()) {
                self.error(
                    &path,
                    format!("tool `{}` is declared twice", t.name),
                    "remove the repeat",
                );
                continue;
            }
            if task.endpoint(&t.name).is_some() {
                continue;
            }
            match SystemTool::parse(&t.name) {
                Some(s) if task.system_tools.contains(&s) => {}
                Some(_) => self.warn(
                    &path,
                    format!(
                        "`{}` is a system tool, but `system_tools` leaves it out",
                        t.name
                    ),
                    "add it to `system_tools` or remove it from `tools`",
                ),
                None => {
                    let names: Vec<&str> = SystemTool::ALL.iter().map(|s| s.name()).collect();
                    self.error(
                        &path,
                        format!("tool `{}` has no entry in `tool_endpoints`", t.name),
                        &format!(
                            "add `- {{tool_name: {}, url: http://localhost:PORT/..., method: POST}}` \
                             to `tool_endpoints` (only system tools {} need none)",
                            t.name,
                            names.join(", ")
                        ),
                    );
                }
            }
        }
        for (i, e) in task.tool_endpoints.iter().enumerate() {
            if !seen.contains(e.tool_name.as_str()) {
                self.warn(
                    &format!("tool_endpoints[{i}].tool_name"),
                    format!(
                        "endpoint for `{}`, which `tools` does not declare",
                        e.tool_name
                    ),
                    "the model never sees this tool; declare it in `tools` or remove the endpoint",
                );
            }
        }
    }

    /// Warns when a check names a tool the agent is not offered.
    fn offered(&mut self, task: &Task, path: &str, tool: &str, must_be_called: bool) {
        if task.offers(tool) {
            return;
        }
        let effect = if must_be_called {
            "the check can never pass"
        } else {
            "the check is trivially satisfied"
        };
        self.warn(
            path,
            format!("tool `{tool}` is not offered to the agent; {effect}"),
            "name a tool from `tools` (or a system tool), or offer this one",
        );
    }

    fn regex(&mut self, path: &str, pattern: &str, case_insensitive: bool) {
        if let Err(e) = RegexBuilder::new(pattern)
            .case_insensitive(case_insensitive)
            .build()
        {
            let hint = "fix the regex (Rust `regex` syntax: no look-around or backreferences)";
            self.error(path, format!("invalid regex: {}", regex_message(&e)), hint);
        }
    }

    fn check(&mut self, task: &Task, path: &str, check: &Check) {
        match check {
            Check::ToolCalled { tool_name, .. } => {
                self.offered(task, &format!("{path}.tool_name"), tool_name, true)
            }
            Check::ToolNotCalled { tool_name } => {
                self.offered(task, &format!("{path}.tool_name"), tool_name, false)
            }
            Check::DistinctArgs { tool_name, .. } => {
                self.offered(task, &format!("{path}.tool_name"), tool_name, true)
            }
            Check::ToolOrder { tools } => {
                if tools.is_empty() {
                    self.error(
                        &format!("{path}.tools"),
                        "no tools listed",
                        "list at least one tool",
                    );
                }
                for (i, t) in tools.iter().enumerate() {
                    self.offered(task, &format!("{path}.tools[{i}]"), t, true);
                }
            }
            Check::KeywordsPresent { keywords, .. } => {
                if keywords.is_empty() {
                    self.warn(
                        &format!("{path}.keywords"),
                        "no keywords: the check always passes",
                        "list the keywords",
                    );
                }
                self.split_numbers(&format!("{path}.keywords"));
            }
            Check::KeywordsAbsent { keywords, .. } if keywords.is_empty() => {
                self.warn(
                    &format!("{path}.keywords"),
                    "no keywords: the check always passes",
                    "list the phrases that must not appear",
                );
            }
            Check::CategoriesPresent { .. } => self.split_numbers(&format!("{path}.categories")),
            Check::IntervalIou { min_iou, .. } if !(0.0..=1.0).contains(min_iou) => {
                self.error(
                    &format!("{path}.min_iou"),
                    format!("min_iou {min_iou} is outside 0..1"),
                    "use a value from 0 to 1",
                );
            }
            Check::IntervalIou { start, end, .. }
                if start.abs() > bounds::MAX_INTERVAL_END
                    || end.abs() > bounds::MAX_INTERVAL_END =>
            {
                let field = if start.abs() > bounds::MAX_INTERVAL_END {
                    "start"
                } else {
                    "end"
                };
                self.error(
                    &format!("{path}.{field}"),
                    format!(
                        "[{start}, {end}] reaches beyond ±{:e}: its overlap would not be a finite number",
                        bounds::MAX_INTERVAL_END
                    ),
                    "give the interval's ends as ordinary numbers (seconds, pages, ...)",
                );
            }
            Check::NumberWithin { tolerance, .. } if *tolerance < 0.0 => {
                self.error(
                    &format!("{path}.tolerance"),
                    "negative tolerance",
                    "use 0 or more",
                );
            }
            Check::Audit {
                min,
                max: Some(max),
                ..
            } if max < min => {
                self.error(
                    &format!("{path}.max"),
                    format!("max {max} is below min {min}"),
                    "make max >= min",
                );
            }
            _ => {}
        }
        if let Check::JsonPath {
            tolerance: Some(t), ..
        }
        | Check::CsvCell {
            tolerance: Some(t), ..
        } = check
            && *t < 0.0
        {
            self.error(
                &format!("{path}.tolerance"),
                "negative tolerance",
                "use 0 or more",
            );
        }
        if let Check::JsonPath { pointer, .. } | Check::IntervalIou { pointer, .. } = check
            && !pointer.is_empty()
            && !pointer.starts_with('/')
        {
            self.error(
                &format!("{path}.pointer"),
                format!("`{pointer}` is not a JSON pointer"),
                "RFC 6901 pointers start with `/`, e.g. `/items/0/total` (empty = whole document)",
            );
        }
        for (field, pattern) in check.regexes() {
            let p = if field == "where" {
                self.where_regex_path(path, pattern)
            } else {
                format!("{path}.{field}")
            };
            self.regex(&p, pattern, false);
        }
    }

    /// The field path of the `{regex: ...}` of an audit check's `where` holding `pattern`.
    fn where_regex_path(&self, path: &str, pattern: &str) -> String {
        let base = format!("{path}.where");
        if let Some(Node {
            value: Value::Map(entries),
            ..
        }) = node_at(self.r.srcs.of(&base).root, &base)
        {
            for (k, v) in entries {
                if v.get("regex").and_then(Node::as_str) == Some(pattern)
                    && let Some(k) = k.as_str()
                {
                    return format!("{base}.{k}.regex");
                }
            }
        }
        base
    }

    /// Warns about flow-list items that look like one number split at a thousands comma
    /// (`[..., 450,000]` reads as `"450"`, `"000"`).
    fn split_numbers(&mut self, path: &str) {
        let source = self.r.srcs.of(path);
        let Some(Node {
            value: Value::Seq(items),
            ..
        }) = node_at(source.root, path)
        else {
            return;
        };
        let src = source.text;
        let mut i = 0;
        while i + 1 < items.len() {
            let mut j = i;
            while j + 1 < items.len() && glued(src, &items[j], &items[j + 1], j == i) {
                j += 1;
            }
            if j > i {
                let parts: Vec<&str> = (i..=j).filter_map(|k| items[k].source_text(src)).collect();
                let joined = parts.join(",");
                let field = format!("{path}[{i}]");
                let pos = items[i].pos;
                let msg = format!(
                    "`{joined}` in a flow list reads as {} separate items: {}",
                    parts.len(),
                    parts
                        .iter()
                        .map(|p| format!("\"{p}\""))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                let hint = format!("quote it if it is one keyword: \"{joined}\"");
                self.r.warn_at(&field, pos, msg, hint);
                i = j + 1;
            } else {
                i += 1;
            }
        }
    }

    fn oracle(&mut self, task: &Task) {
        let Some(o) = &task.oracle else { return };
        for (path, call) in o.calls() {
            if !task.offers(&call.call) {
                let mut offered: Vec<&str> = task.tools.iter().map(|t| t.name.as_str()).collect();
                offered.extend(task.system_tools.iter().map(|t| t.name()));
                self.error(
                    &format!("oracle.{path}.call"),
                    format!(
                        "the oracle calls `{}`, which the task does not offer",
                        call.call
                    ),
                    &format!("offered tools: {}", offered.join(", ")),
                );
            }
        }
    }

    fn user_script(&mut self, task: &Task) {
        let Some(script) = task.user_agent.as_ref().and_then(|u| u.script.as_ref()) else {
            return;
        };
        for (i, r) in script.rules.iter().enumerate() {
            self.regex(&format!("user_agent.script.rules[{i}].when"), &r.when, true);
        }
    }
}

/// Whether `b` follows `a` after exactly one comma, both plain digit groups of a number
/// written with thousands separators (`450,000`).
fn glued(src: &str, a: &Node, b: &Node, first: bool) -> bool {
    let (Some(ra), Some(rb)) = (a.span.clone(), b.span.clone()) else {
        return false;
    };
    let (Some(ta), Some(tb)) = (src.get(ra.clone()), src.get(rb.clone())) else {
        return false;
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|c| c.is_ascii_digit());
    let head_ok = digits(ta) && if first { ta.len() <= 3 } else { ta.len() == 3 };
    let tail = tb.split('.').next().unwrap_or(tb);
    let tail_ok =
        digits(tail) && tail.len() == 3 && tb[3..].chars().all(|c| c == '.' || c.is_ascii_digit());
    head_ok && tail_ok && ra.end < rb.start && src.get(ra.end..rb.start) == Some(",")
}

/// The one-line reason of a regex error.
fn regex_message(e: &regex::Error) -> String {
    let text = e.to_string();
    text.lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("error: "))
        .map(str::to_string)
        .unwrap_or_else(|| text.lines().last().unwrap_or("").trim().to_string())
}
