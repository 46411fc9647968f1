//! Where a field of a loaded task was written: task.yaml, or its `clawrun.yaml` sidecar for
//! the extension fields the sidecar sets. Checks on the merged task report through
//! [`Report`], which names the right file, line:column and source text for each field path.

use crate::error::Diagnostic;
use crate::load::node_at;
use crate::sidecar::{Sidecar, holds};
use crate::yaml::{Node, Pos};

/// One file a task was read from.
#[derive(Clone, Copy)]
pub(crate) struct Source<'a> {
    /// The file name shown (relative to the suite root).
    pub file: &'a str,
    /// Its text (for scalars as written).
    pub text: &'a str,
    /// Its node tree (for positions).
    pub root: &'a Node,
}

/// task.yaml and, when present, the sidecar with the top-level fields it set.
pub(crate) struct Sources<'a> {
    /// task.yaml.
    pub main: Source<'a>,
    /// clawrun.yaml and its fields (`oracle`, `user_agent.script`, ...).
    pub side: Option<(Source<'a>, &'a [String])>,
}

impl<'a> Sources<'a> {
    /// task.yaml, and the sidecar merged into it with its text.
    pub fn new(main: Source<'a>, side: Option<(&'a Sidecar, &'a str)>) -> Self {
        let side = side.map(|(s, text)| {
            let src = Source {
                file: &s.file,
                text,
                root: &s.root,
            };
            (src, s.fields.as_slice())
        });
        Self { main, side }
    }

    /// The file holding field `path` (`oracle.steps[0].call`).
    pub fn of(&self, path: &str) -> Source<'a> {
        match self.side {
            Some((side, fields)) if holds(fields, path) => side,
            _ => self.main,
        }
    }

    /// The position of field `path` in its file.
    pub fn pos(&self, path: &str) -> Option<Pos> {
        node_at(self.of(path).root, path).and_then(|n| n.pos)
    }
}

/// Diagnostics about the fields of a (merged) task, each naming the file the field is in.
pub(crate) struct Report<'a> {
    /// Where the fields are.
    pub srcs: &'a Sources<'a>,
    /// What was found.
    pub diags: Vec<Diagnostic>,
}

impl<'a> Report<'a> {
    /// An empty report over `srcs`.
    pub fn new(srcs: &'a Sources<'a>) -> Self {
        Self {
            srcs,
            diags: Vec::new(),
        }
    }

    /// Records an error about field `path`, at its position.
    pub fn error(&mut self, path: &str, msg: impl Into<String>, hint: impl Into<String>) {
        let pos = self.srcs.pos(path);
        self.error_at(path, pos, msg, hint);
    }

    /// Records an error about field `path` at `pos` (in the field's file).
    pub fn error_at(
        &mut self,
        path: &str,
        pos: Option<Pos>,
        msg: impl Into<String>,
        hint: impl Into<String>,
    ) {
        let file = self.srcs.of(path).file;
        let d = Diagnostic::error(file, path, msg).at(pos).hint(hint);
        self.diags.push(d);
    }

    /// Records a warning about field `path`, at its position.
    pub fn warn(&mut self, path: &str, msg: impl Into<String>, hint: impl Into<String>) {
        let pos = self.srcs.pos(path);
        self.warn_at(path, pos, msg, hint);
    }

    /// Records a warning about field `path` at `pos` (in the field's file).
    pub fn warn_at(
        &mut self,
        path: &str,
        pos: Option<Pos>,
        msg: impl Into<String>,
        hint: impl Into<String>,
    ) {
        let file = self.srcs.of(path).file;
        let d = Diagnostic::warning(file, path, msg).at(pos).hint(hint);
        self.diags.push(d);
    }
}
