//! The shell's mutable state: variables, working directory, functions and the last status.

use std::cell::Cell;
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::rc::Rc;

use brush_parser::ast;

use crate::random::BashRandom;

/// One shell variable.
#[derive(Clone, Debug, Default)]
pub struct Var {
    /// The scalar value.
    pub value: String,
    /// Whether it is exported (persisted in the tool state).
    pub exported: bool,
    /// Array elements for `name=(a b c)`, indexed from zero.
    pub array: Option<Vec<String>>,
}

/// Non-local control flow: `exit`, `return`, `break`, `continue`, and the command budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// `exit N`.
    Exit(i32),
    /// `return N` from a function.
    Return(i32),
    /// `break N`.
    Break(u32),
    /// `continue N`.
    Continue(u32),
    /// The command budget ran out (an endless loop).
    Timeout,
}

/// Result of executing a command: its status, or a control-flow transfer.
pub type ExecResult = Result<i32, Flow>;

/// Maximum number of simple commands one tool call may execute (guards endless loops).
pub const COMMAND_BUDGET: u64 = 200_000;

/// The interpreter state that persists for the duration of one tool call.
#[derive(Clone)]
pub struct Shell {
    /// Shell variables.
    pub vars: HashMap<String, Var>,
    /// Absolute working directory.
    pub cwd: String,
    /// Status of the last command (`$?`).
    pub last_status: i32,
    /// Positional parameters `$1..` (`$0` is always `bash`).
    pub positional: Vec<String>,
    /// Defined functions.
    pub functions: HashMap<String, Rc<ast::FunctionDefinition>>,
    /// Saved variables of enclosing function calls for `local`.
    pub locals: Vec<Vec<(String, Option<Var>)>>,
    /// Simple commands executed so far.
    pub steps: u64,
    /// Nesting depth of loops (for `break`/`continue`).
    pub loop_depth: u32,
    /// `set -e`.
    pub errexit: bool,
    /// `set -u`.
    pub nounset: bool,
    /// `set -o pipefail`.
    pub pipefail: bool,
    /// `set -x`.
    pub xtrace: bool,
    /// Depth of `if`/`while` conditions and `&&`/`||` operands (where `set -e` is off).
    pub condition_depth: u32,
    /// Status of the last command substitution during the current expansion.
    pub subst_status: Option<i32>,
    /// Counter for process-substitution temporary files.
    pub psub_counter: u64,
    /// The command of `trap CMD EXIT`, run when the shell exits.
    pub exit_trap: Option<String>,
    /// Built-in default variables (not persisted in the state unless changed).
    defaults: Vec<(&'static str, &'static str)>,
    /// `$RANDOM`'s generator (advanced by every expansion); `None` after `unset RANDOM`,
    /// which makes `RANDOM` an ordinary variable, as in bash.
    random: Option<Cell<BashRandom>>,
    /// Subshells started so far (kept across them: each draws its own `$RANDOM` stream).
    subshells: u64,
}

impl Shell {
    /// A shell at `cwd` with the given exported environment.
    pub fn new(cwd: &str, env: &BTreeMap<String, String>) -> Self {
        let mut sh = Shell {
            vars: HashMap::new(),
            cwd: cwd.to_owned(),
            last_status: 0,
            positional: Vec::new(),
            functions: HashMap::new(),
            locals: Vec::new(),
            steps: 0,
            loop_depth: 0,
            errexit: false,
            nounset: false,
            pipefail: false,
            xtrace: false,
            condition_depth: 0,
            subst_status: None,
            psub_counter: 0,
            exit_trap: None,
            defaults: Vec::new(),
            random: Some(Cell::new(BashRandom::from_entropy())),
            subshells: 0,
        };
        for (k, v) in [
            ("HOME", "/root"),
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("USER", "user"),
            ("SHELL", "/bin/bash"),
            ("LANG", "C.UTF-8"),
        ] {
            sh.set_exported(k, v);
            if !env.contains_key(k) {
                sh.defaults.push((k, v));
            }
        }
        for (k, v) in env {
            sh.set_exported(k, v);
        }
        sh.set_var("IFS", " \t\n");
        sh.set_exported("PWD", cwd);
        sh
    }

    /// The value of a variable, if set.
    pub fn get_var(&self, name: &str) -> Option<String> {
        match name {
            "PWD" => Some(self.cwd.clone()),
            "RANDOM" if self.random.is_some() => self.random.as_ref().map(|r| {
                let mut g = r.get();
                let v = g.next_value();
                r.set(g);
                v.to_string()
            }),
            _ => self.vars.get(name).map(|v| v.value.clone()),
        }
    }

    /// Sets a variable, keeping its exported flag. `RANDOM=expr` reseeds `$RANDOM` instead.
    pub fn set_var(&mut self, name: &str, value: &str) {
        if name == "RANDOM" && self.random.is_some() {
            if let Ok(seed) = crate::arith::eval_str(self, value)
                && let Some(r) = &self.random
            {
                r.set(BashRandom::seeded(seed));
            }
            return;
        }
        let var = self.vars.entry(name.to_owned()).or_default();
        var.value = value.to_owned();
        var.array = None;
    }

    /// Sets and exports a variable.
    pub fn set_exported(&mut self, name: &str, value: &str) {
        self.set_var(name, value);
        if let Some(v) = self.vars.get_mut(name) {
            v.exported = true;
        }
    }

    /// Removes a variable (`RANDOM` loses its special meaning, as in bash).
    pub fn unset_var(&mut self, name: &str) {
        if name == "RANDOM" {
            self.random = None;
        }
        self.vars.remove(name);
    }

    /// Enters a subshell: the next of this shell's subshells, with a `$RANDOM` stream of its
    /// own (the parent's generator is left as it was, as bash reseeds subshells).
    pub(crate) fn enter_subshell(&mut self) -> u64 {
        self.subshells += 1;
        if let Some(r) = &self.random {
            r.set(r.get().for_subshell(self.subshells));
        }
        self.subshells
    }

    /// Subshells started so far.
    pub(crate) fn subshells(&self) -> u64 {
        self.subshells
    }

    /// Keeps the subshell count of a subshell that ended (restoring the parent's state).
    pub(crate) fn keep_subshells(&mut self, n: u64) {
        self.subshells = n;
    }

    /// The exported environment, as the tool state persists it.
    pub fn exported_env(&self) -> BTreeMap<String, String> {
        self.vars
            .iter()
            .filter(|(k, v)| v.exported && k.as_str() != "PWD")
            .filter(|(k, v)| !self.defaults.contains(&(k.as_str(), v.value.as_str())))
            .map(|(k, v)| (k.clone(), v.value.clone()))
            .collect()
    }

    /// Resolves a path argument against the working directory (lexically normalised).
    pub fn resolve(&self, path: &str) -> PathBuf {
        PathBuf::from(resolve_str(&self.cwd, path))
    }
}

/// Joins `path` onto `cwd` (if relative) and normalises `.` and `..` lexically.
pub fn resolve_str(cwd: &str, path: &str) -> String {
    let joined = if path.starts_with('/') {
        path.to_owned()
    } else {
        format!("{}/{}", cwd.trim_end_matches('/'), path)
    };
    let mut parts: Vec<&str> = Vec::new();
    for comp in joined.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    format!("/{}", parts.join("/"))
}

/// The `strerror` text for an I/O error, as GNU tools print it.
pub fn io_err_msg(err: &std::io::Error) -> &'static str {
    use std::io::ErrorKind::*;
    match err.kind() {
        NotFound => "No such file or directory",
        PermissionDenied => "Permission denied",
        AlreadyExists => "File exists",
        IsADirectory => "Is a directory",
        NotADirectory => "Not a directory",
        DirectoryNotEmpty => "Directory not empty",
        InvalidInput => "Invalid argument",
        ReadOnlyFilesystem => "Read-only file system",
        StorageFull => "No space left on device",
        QuotaExceeded => "Disk quota exceeded",
        InvalidFilename => "File name too long",
        _ => match err.raw_os_error() {
            Some(21) => "Is a directory",
            Some(20) => "Not a directory",
            Some(39) => "Directory not empty",
            _ => "Input/output error",
        },
    }
}
