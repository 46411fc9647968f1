//! Loading a service's fixtures: environment variables of the task's `services:` entry name
//! files relative to the Claw-Eval root, with each service's hard-wired default otherwise.

use std::any::Any;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::json::{self, DecodeError, Json, Obj};
use super::spec::ServiceSpec;
use super::time::UtcInstant;

/// Which file a service reads when its fixture variable is absent.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum FixturePolicy {
    /// Upstream behaviour: the service's built-in default (a Chinese task's file).
    #[default]
    Upstream,
    /// The task's own copy (`<task dir>/fixtures/<kind>/<file>`) when it exists, else the
    /// default: what English tasks without `env` evidently intended.
    TaskLocal(PathBuf),
}

/// Where fixture files are read from.
#[derive(Clone, Copy)]
pub enum FixtureRoot<'a> {
    /// An absolute host folder read with ambient authority (`clawrun services`, tests): paths
    /// relative to it, or absolute.
    Host(&'a Path, cap_std::AmbientAuthority),
    /// A capability on the suite folder (trials): paths relative to it only; `..` out of it,
    /// absolute paths and symlinks leading out are refused.
    Dir(&'a cap_std::fs::Dir),
}

impl std::fmt::Debug for FixtureRoot<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FixtureRoot::Host(root, _) => f.debug_tuple("Host").field(root).finish(),
            FixtureRoot::Dir(dir) => f.debug_tuple("Dir").field(dir).finish(),
        }
    }
}

/// Options for [`ServiceSet::load`](super::ServiceSet::load).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FixtureOptions {
    /// Fallback fixture choice.
    pub policy: FixturePolicy,
}

/// Why a task's services could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// `command`/`name` names no known service.
    #[error("service `{name}`: unknown service kind `{kind}`")]
    UnknownKind {
        /// The instance name.
        name: String,
        /// The kind.
        kind: String,
    },
    /// Two entries share a name.
    #[error("service `{name}` is declared twice")]
    Duplicate {
        /// The instance name.
        name: String,
    },
    /// Two services would answer on one port.
    #[error("services `{first}` and `{second}` both use port {port}")]
    PortClash {
        /// The port.
        port: u16,
        /// One service.
        first: String,
        /// The other.
        second: String,
    },
    /// The fixture root (a host folder) could not be made absolute.
    #[error("cannot resolve the fixture root {}: {source}", root.display())]
    Root {
        /// The folder as given.
        root: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// A fixture file could not be read.
    #[error("service `{service}`: cannot read {} ({origin}): {source}", file.display())]
    Read {
        /// The instance name.
        service: String,
        /// The file.
        file: PathBuf,
        /// Where the path came from (`GMAIL_FIXTURES`, or the default for it).
        origin: String,
        /// The I/O error.
        source: io::Error,
    },
    /// A fixture file's content is not what the service expects.
    #[error("service `{service}`: {}: {message}", file.display())]
    Fixture {
        /// The instance name.
        service: String,
        /// The file.
        file: PathBuf,
        /// What is wrong, with the JSON location (`[3].date: ...`) or syntax position.
        message: String,
    },
}

/// What a fixture loader produces.
pub struct Loaded {
    /// The records as read (before date shifting).
    pub records: Vec<Obj>,
    /// Service-specific data (web fixtures, OCR text, ...).
    pub extra: Option<Arc<dyn Any + Send + Sync>>,
}

/// The immutable data a service instance (and all its forks) starts from.
pub(crate) struct Base {
    /// The records as read, for reset.
    pub raw: Vec<Obj>,
    /// Loader-specific data.
    pub extra: Option<Arc<dyn Any + Send + Sync>>,
}

impl Base {
    pub(crate) fn new(loaded: Loaded) -> Self {
        Self {
            raw: loaded.records,
            extra: loaded.extra,
        }
    }
}

/// What a loader may consult.
pub struct LoadCtx<'a> {
    /// The Claw-Eval root (the directory holding `tasks/`).
    pub root: FixtureRoot<'a>,
    /// The task's entry.
    pub spec: &'a ServiceSpec,
    /// Load options.
    pub options: &'a FixtureOptions,
    /// The virtual "now" at load time.
    pub now: UtcInstant,
}

/// A fixture path and where it came from.
#[derive(Clone, Debug)]
pub struct FixtureSource {
    /// The resolved path.
    pub path: PathBuf,
    /// `VAR` or `default for VAR` or `task copy for VAR`.
    pub origin: String,
}

impl LoadCtx<'_> {
    /// The instance name.
    pub fn name(&self) -> &str {
        &self.spec.name
    }

    /// An environment variable of the entry (`None` when absent; empty values are returned).
    pub fn env(&self, var: &str) -> Option<&str> {
        self.spec.env.get(var).map(String::as_str)
    }

    /// A path from the environment: relative to a host root unless absolute; as written under
    /// a capability root (which refuses absolute paths when reading).
    pub fn resolve(&self, p: &str) -> PathBuf {
        let p = Path::new(p);
        match self.root {
            FixtureRoot::Host(root, _) if !p.is_absolute() => root.join(p),
            _ => p.to_path_buf(),
        }
    }

    /// Whether `path` (from [`LoadCtx::resolve`]) names a file.
    pub fn is_file(&self, path: &Path) -> bool {
        match self.root {
            FixtureRoot::Host(..) => path.is_file(),
            FixtureRoot::Dir(dir) => dir.metadata(path).is_ok_and(|m| m.is_file()),
        }
    }

    /// The root as a path for messages and base folders (`.` for a capability root).
    pub fn root_path(&self) -> PathBuf {
        match self.root {
            FixtureRoot::Host(root, _) => root.to_path_buf(),
            FixtureRoot::Dir(_) => PathBuf::from("."),
        }
    }

    /// The fixture file named by `var`, else the default (or the task's copy, per policy).
    pub fn source(&self, var: &str, default: &str) -> FixtureSource {
        if let Some(v) = self.env(var) {
            return FixtureSource {
                path: self.resolve(v),
                origin: var.to_string(),
            };
        }
        if let FixturePolicy::TaskLocal(task_dir) = &self.options.policy
            && let Some(i) = default.find("/fixtures/")
        {
            let local = task_dir.join(&default[i + 1..]);
            if self.is_file(&local) {
                return FixtureSource {
                    path: local,
                    origin: format!("task copy for {var}"),
                };
            }
        }
        FixtureSource {
            path: self.resolve(default),
            origin: format!("default for {var}"),
        }
    }

    /// Reads a file.
    pub fn read(&self, src: &FixtureSource) -> Result<Vec<u8>, LoadError> {
        let read = match self.root {
            FixtureRoot::Host(..) => std::fs::read(&src.path),
            FixtureRoot::Dir(dir) => dir.read(&src.path),
        };
        read.map_err(|source| LoadError::Read {
            service: self.name().into(),
            file: src.path.clone(),
            origin: src.origin.clone(),
            source,
        })
    }

    /// A content error about `src`.
    pub fn bad(&self, src: &FixtureSource, message: impl Into<String>) -> LoadError {
        LoadError::Fixture {
            service: self.name().into(),
            file: src.path.clone(),
            message: message.into(),
        }
    }

    /// Reads a UTF-8 JSON file as Python's `json.load` would.
    pub fn read_json(&self, src: &FixtureSource) -> Result<Json, LoadError> {
        let bytes = self.read(src)?;
        let text =
            std::str::from_utf8(&bytes).map_err(|e| self.bad(src, format!("not UTF-8: {e}")))?;
        json::parse(text).map_err(|e| match e {
            DecodeError::Syntax(e) => self.bad(src, format!("invalid JSON: {e}")),
            other => self.bad(src, format!("invalid JSON: {other}")),
        })
    }

    /// Reads a JSON array of objects.
    pub fn read_records(&self, src: &FixtureSource) -> Result<Vec<Obj>, LoadError> {
        match self.read_json(src)? {
            Json::Array(items) => items
                .into_iter()
                .enumerate()
                .map(|(i, v)| match v {
                    Json::Object(o) => Ok(o),
                    _ => Err(self.bad(src, format!("[{i}]: expected an object"))),
                })
                .collect(),
            _ => Err(self.bad(src, "expected a JSON array of objects")),
        }
    }
}

/// Reads the records fixture of a service declared with `Fixture::Records`.
pub(crate) fn load_records(
    cx: &LoadCtx<'_>,
    var: &str,
    default: &str,
) -> Result<(Loaded, FixtureSource), LoadError> {
    let src = cx.source(var, default);
    let records = cx.read_records(&src)?;
    Ok((
        Loaded {
            records,
            extra: None,
        },
        src,
    ))
}
