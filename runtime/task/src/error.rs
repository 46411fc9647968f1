//! What a user sees when a task is wrong: diagnostics naming file, line:column, field path,
//! message and hint, one per line; and errors reading the files a task references.

use std::fmt;

use crate::yaml::Pos;

/// How bad a [`Diagnostic`] is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The task still loads.
    Warning,
    /// The task does not load.
    Error,
}

/// One problem in a task file.
///
/// Displays on one line as `<file>:<line>:<column>: <field>: <message> (hint: <hint>)`, with
/// `warning: ` before the field for warnings, e.g.
///
/// ```text
/// tasks/T002/task.yaml:12:5: scoring_components[0].check.min_calls: expected an integer, found "two" (hint: ...)
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The file, relative to the suite root (e.g. `tasks/T002_email_triage/task.yaml`).
    pub file: String,
    /// Where in the file, when known.
    pub pos: Option<Pos>,
    /// The field path (e.g. `scoring_components[2].check.min_calls`); empty for the whole file.
    pub field: String,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub hint: Option<String>,
}

impl Diagnostic {
    /// An error about `field` of `file`.
    pub fn error(file: &str, field: &str, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            file: file.to_string(),
            pos: None,
            field: field.to_string(),
            message: message.into(),
            hint: None,
        }
    }

    /// A warning about `field` of `file`.
    pub fn warning(file: &str, field: &str, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(file, field, message)
        }
    }

    /// The same diagnostic at `pos`.
    pub fn at(mut self, pos: Option<Pos>) -> Self {
        self.pos = pos;
        self
    }

    /// The same diagnostic with `hint`.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Whether this is an error (not a warning).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.file)?;
        if let Some(pos) = self.pos {
            write!(f, ":{}:{}", pos.line, pos.column)?;
        }
        f.write_str(": ")?;
        if self.severity == Severity::Warning {
            f.write_str("warning: ")?;
        }
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        f.write_str(&self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, " (hint: {hint})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}

/// Why a file a task references cannot be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FileProblem {
    /// The path is absolute.
    Absolute,
    /// The path (through `..` or a symlink) leads out of the folder it must stay in.
    Escapes,
    /// There is no such file.
    NotFound,
    /// It is a folder where a file was expected, or a file where a folder was expected.
    WrongKind(&'static str),
    /// The path is empty or not valid (e.g. contains a NUL byte).
    BadPath,
    /// Another I/O error (its message).
    Io(String),
}

impl fmt::Display for FileProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FileProblem::Absolute => f.write_str("absolute paths are not allowed"),
            FileProblem::Escapes => f.write_str("leads outside its folder"),
            FileProblem::NotFound => f.write_str("file not found"),
            FileProblem::WrongKind(what) => write!(f, "expected {what}"),
            FileProblem::BadPath => f.write_str("not a valid relative path"),
            FileProblem::Io(m) => f.write_str(m),
        }
    }
}

/// A file a task references could not be read.
///
/// Displays as `<field>: <path>: <problem>`, e.g.
/// `prompt.attachments[0]: fixtures/docs/ai_blog.txt: file not found`; the path is the one
/// written in the task (never an absolute host path).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct FileError {
    /// The field that names the file (empty when the caller named it directly).
    pub field: String,
    /// The path as written (relative to the task folder, or to the suite root for suite
    /// files).
    pub path: String,
    /// What is wrong.
    pub problem: FileProblem,
}

impl fmt::Display for FileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        write!(f, "{}: {}", self.path, self.problem)
    }
}

/// Why a suite or a task could not be opened or loaded.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The task file is malformed or invalid: every error (and the warnings found so far),
    /// one per line.
    #[error("{}", lines(.0))]
    Invalid(Vec<Diagnostic>),
    /// A file could not be read.
    #[error("{file}: {problem}")]
    Io {
        /// The file or folder, relative to the suite root (or as given to [`Suite::open`]).
        ///
        /// [`Suite::open`]: crate::Suite::open
        file: String,
        /// What went wrong.
        problem: FileProblem,
    },
}

impl Error {
    /// The diagnostics of an [`Error::Invalid`] (empty otherwise).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            Error::Invalid(d) => d,
            Error::Io { .. } => &[],
        }
    }
}

fn lines(d: &[Diagnostic]) -> String {
    d.iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Classifies an I/O error from a capability-confined open.
pub(crate) fn problem(e: &std::io::Error) -> FileProblem {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::NotFound => FileProblem::NotFound,
        // cap-std's answer to `..`, absolute paths and symlinks that leave the folder: an
        // error of its own making (the kernel's EXDEV under RESOLVE_BENEATH included), so it
        // carries no OS error code, unlike a real EACCES.
        ErrorKind::PermissionDenied if e.raw_os_error().is_none() => FileProblem::Escapes,
        ErrorKind::IsADirectory => FileProblem::WrongKind("a file, found a folder"),
        ErrorKind::NotADirectory => FileProblem::WrongKind("a folder, found a file"),
        _ => FileProblem::Io(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display() {
        let d = Diagnostic::error("tasks/T/task.yaml", "a.b", "bad")
            .at(Some(Pos { line: 3, column: 7 }))
            .hint("fix it");
        assert_eq!(
            d.to_string(),
            "tasks/T/task.yaml:3:7: a.b: bad (hint: fix it)"
        );
        let w = Diagnostic::warning("t.yaml", "", "odd");
        assert_eq!(w.to_string(), "t.yaml: warning: odd");
    }
}
