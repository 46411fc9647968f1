//! Task selection flags (`--limit`, `--tags`, `--category`, `--group`, `--exclude`) shared by
//! `clawrun run`, `validate` and `list`: applied to the loaded tasks, sorted by id.

use clawrun_task::{Group, LoadedTask};
use globset::{Glob, GlobMatcher};

/// Which of the loaded tasks a command works on.
#[derive(Clone, Debug, Default)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
pub struct TaskFilter {
    /// Only N tasks: the first by id after the other filters, those `run` can score without a
    /// judge or simulated user it lacks first.
    #[cfg_attr(feature = "clap", arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..)))]
    pub limit: Option<u64>,
    /// Only tasks having any of these tags (comma-separated).
    #[cfg_attr(
        feature = "clap",
        arg(long, value_name = "T1,T2", value_delimiter = ',')
    )]
    pub tags: Vec<String>,
    /// Only tasks of this category (e.g. communication).
    #[cfg_attr(feature = "clap", arg(long, value_name = "C"))]
    pub category: Option<String>,
    /// Only tasks of this group: general, multimodal or multi-turn.
    #[cfg_attr(feature = "clap", arg(long, value_name = "G", value_parser = parse_group))]
    pub group: Option<Group>,
    /// Leave out tasks whose id matches (an id or a glob such as `T0*`; repeatable).
    #[cfg_attr(feature = "clap", arg(long, value_name = "ID_OR_GLOB", value_parser = parse_exclude))]
    pub exclude: Vec<Exclude>,
}

/// One `--exclude` pattern.
#[derive(Clone, Debug)]
pub struct Exclude {
    /// As given.
    text: String,
    /// The compiled glob.
    matcher: GlobMatcher,
}

/// Parses `--group`.
pub fn parse_group(text: &str) -> Result<Group, String> {
    Group::parse(text)
        .ok_or_else(|| format!("{text:?}: expected general, multimodal or multi-turn"))
}

/// Parses `--exclude` (a task id or a glob over task ids).
pub fn parse_exclude(text: &str) -> Result<Exclude, String> {
    let glob = Glob::new(text).map_err(|e| format!("{text:?}: not a glob: {e}"))?;
    Ok(Exclude {
        text: text.to_string(),
        matcher: glob.compile_matcher(),
    })
}

impl TaskFilter {
    /// Whether no filter is set.
    pub fn is_empty(&self) -> bool {
        self.limit.is_none()
            && self.tags.is_empty()
            && self.category.is_none()
            && self.group.is_none()
            && self.exclude.is_empty()
    }

    /// The filters as flags, for messages (`--tags a,b --group general`).
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if !self.tags.is_empty() {
            parts.push(format!("--tags {}", self.tags.join(",")));
        }
        if let Some(c) = &self.category {
            parts.push(format!("--category {c}"));
        }
        if let Some(g) = self.group {
            parts.push(format!("--group {g}"));
        }
        for e in &self.exclude {
            parts.push(format!("--exclude {}", e.text));
        }
        if let Some(n) = self.limit {
            parts.push(format!("--limit {n}"));
        }
        parts.join(" ")
    }

    /// Whether `task` passes every filter but `--limit`.
    fn admits(&self, task: &LoadedTask) -> bool {
        let t = &task.task;
        (self.tags.is_empty() || self.tags.iter().any(|tag| t.tags.contains(tag)))
            && self
                .category
                .as_ref()
                .is_none_or(|c| t.category.as_deref() == Some(c.as_str()))
            && self.group.is_none_or(|g| t.group == g)
            && !self.exclude.iter().any(|e| e.matcher.is_match(&t.task_id))
    }

    /// The tasks passing the filters, sorted by id, the first `--limit` of them.
    pub fn apply(&self, tasks: Vec<LoadedTask>) -> Vec<LoadedTask> {
        self.apply_preferring(tasks, |_| true)
    }

    /// [`Self::apply`], `--limit` taking the tasks `scorable` admits before the others (each
    /// kind in id order): a run without a judge spends its few tasks on what it can score.
    /// The result is sorted by id.
    pub fn apply_preferring(
        &self,
        mut tasks: Vec<LoadedTask>,
        scorable: impl Fn(&LoadedTask) -> bool,
    ) -> Vec<LoadedTask> {
        tasks.retain(|t| self.admits(t));
        tasks.sort_by(|a, b| a.task.task_id.cmp(&b.task.task_id));
        let Some(limit) = self.limit else {
            return tasks;
        };
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        // A stable sort: scorable tasks first, each kind still in id order.
        tasks.sort_by_key(|t| !scorable(t));
        tasks.truncate(limit);
        tasks.sort_by(|a, b| a.task.task_id.cmp(&b.task.task_id));
        tasks
    }
}
