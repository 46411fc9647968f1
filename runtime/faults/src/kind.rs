//! Fault kinds: what an injected fault does.
//!
//! Kinds are written `name[:param]` in plans, events and traces:
//!
//! | kind | points | effect |
//! |---|---|---|
//! | `status429[:SECS]` | service, http, tool | 429 with `Retry-After: SECS` (default 2) |
//! | `status500` | service, http, tool | 500 |
//! | `status503` | service, http, tool | 503 |
//! | `timeout` | service, http, tool | the call times out |
//! | `connection_reset` | service, http, tool | the connection is reset |
//! | `latency[:MS]` or `latency:MIN-MAX` | any | virtual time advances, then the call is served (default 2000-4000 ms) |
//! | `truncated_body` | service, http, tool | the response body is cut short |
//! | `malformed_json` | service, http, tool | the response body is no longer JSON |
//! | `inject[:P[@R]]` | service, http, tool | prompt-injection payload P of [`INJECTION_CORPUS`] placed into record R of the body (defaults 0, 0) |
//! | `duplicate_record[:R]` | service, http, tool | record R of the body appears twice, the copy right after it (default 0) |
//! | `reorder_records` | service, http, tool | the body's records in reverse order |
//! | `eio`, `enospc`, `eacces` | fs | the host call fails with that errno |
//! | `short_write[:N]` | fs | a write takes at most N bytes (default 1); other ops are unaffected |
//!
//! A body's records are its first array of objects, breadth-first; see [`content`](super::content)
//! for where each content kind edits and what it does to a body without records.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::content::INJECTION_CORPUS;
use super::point::Category;
use clawrun_hostcall::fault::{FsErrno, FsFault};

/// An injected fault, fully decided (a latency has its exact duration). Ordered by variant,
/// then parameters (for sorted schedules).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FaultKind {
    /// HTTP 429 with a `Retry-After` header.
    Status429 {
        /// Seconds in `Retry-After` and the body's `retry_after_seconds`.
        retry_after_secs: u32,
    },
    /// HTTP 500.
    Status500,
    /// HTTP 503.
    Status503,
    /// The call times out (the caller applies its own timeout to its clock).
    Timeout,
    /// The connection is reset before a response.
    ConnectionReset,
    /// Virtual time advances by `millis`, then the call is served normally.
    Latency {
        /// Virtual milliseconds of delay.
        millis: u64,
    },
    /// The response body is cut short.
    TruncatedBody,
    /// The response body is made invalid JSON.
    MalformedJson,
    /// A prompt-injection payload from [`INJECTION_CORPUS`] is placed into a record of the
    /// response body.
    Inject {
        /// Index into [`INJECTION_CORPUS`].
        payload: u16,
        /// Index of the record (modulo the body's record count).
        record: u16,
    },
    /// A record of the response body appears twice, the copy right after it.
    DuplicateRecord {
        /// Index of the record (modulo the body's record count).
        record: u16,
    },
    /// The response body's records are given in reverse order.
    ReorderRecords,
    /// The filesystem call fails with EIO.
    Eio,
    /// The filesystem call fails with ENOSPC.
    Enospc,
    /// The filesystem call fails with EACCES.
    Eacces,
    /// A write accepts at most `max_bytes` bytes.
    ShortWrite {
        /// Upper bound on the bytes the write takes (at least 1).
        max_bytes: usize,
    },
}

/// Claw-Eval's `Retry-After` for its injected 429s.
pub const DEFAULT_RETRY_AFTER_SECS: u32 = 2;
/// Claw-Eval's slow-response range, in virtual milliseconds (2-4 s).
pub const DEFAULT_LATENCY_MILLIS: (u64, u64) = (2_000, 4_000);
/// The longest latency a plan may inject: an hour (the virtual clock stays far from overflow).
pub const MAX_LATENCY_MILLIS: u64 = 3_600_000;

/// The syntax of every kind, for error hints.
pub const KIND_SYNTAX: &[&str] = &[
    "status429[:SECS]",
    "status500",
    "status503",
    "timeout",
    "connection_reset",
    "latency[:MS|:MIN-MAX]",
    "truncated_body",
    "malformed_json",
    "inject[:P[@R]]",
    "duplicate_record[:R]",
    "reorder_records",
    "eio",
    "enospc",
    "eacces",
    "short_write[:N]",
];

/// Every kind name (the part before `:`).
pub const KIND_NAMES: &[&str] = &[
    "status429",
    "status500",
    "status503",
    "timeout",
    "connection_reset",
    "latency",
    "truncated_body",
    "malformed_json",
    "inject",
    "duplicate_record",
    "reorder_records",
    "eio",
    "enospc",
    "eacces",
    "short_write",
];

impl FaultKind {
    /// The kind's name, without its parameter (e.g. `latency`).
    pub fn name(&self) -> &'static str {
        match self {
            FaultKind::Status429 { .. } => "status429",
            FaultKind::Status500 => "status500",
            FaultKind::Status503 => "status503",
            FaultKind::Timeout => "timeout",
            FaultKind::ConnectionReset => "connection_reset",
            FaultKind::Latency { .. } => "latency",
            FaultKind::TruncatedBody => "truncated_body",
            FaultKind::MalformedJson => "malformed_json",
            FaultKind::Inject { .. } => "inject",
            FaultKind::DuplicateRecord { .. } => "duplicate_record",
            FaultKind::ReorderRecords => "reorder_records",
            FaultKind::Eio => "eio",
            FaultKind::Enospc => "enospc",
            FaultKind::Eacces => "eacces",
            FaultKind::ShortWrite { .. } => "short_write",
        }
    }

    /// Whether this is a filesystem kind (`eio`, `enospc`, `eacces`, `short_write`).
    pub fn is_fs(&self) -> bool {
        matches!(
            self,
            FaultKind::Eio | FaultKind::Enospc | FaultKind::Eacces | FaultKind::ShortWrite { .. }
        )
    }

    /// Whether the kind edits the records of a response (injected content, duplicates,
    /// reordering) rather than failing or delaying the call.
    pub fn is_content(&self) -> bool {
        matches!(
            self,
            FaultKind::Inject { .. }
                | FaultKind::DuplicateRecord { .. }
                | FaultKind::ReorderRecords
        )
    }

    /// Whether the kind can be injected at points of `category` (latency anywhere, filesystem
    /// kinds only at `fs:` points, content kinds at service, http and tool points, the others
    /// — statuses, failures, body kinds — everywhere but `fs:`).
    pub fn applies_to(&self, category: Category) -> bool {
        match self {
            FaultKind::Latency { .. } => true,
            k if k.is_fs() => category == Category::Fs,
            k if k.is_content() => !matches!(category, Category::Fs | Category::Model),
            _ => category != Category::Fs,
        }
    }

    /// The HTTP status that replaces the response, for `status*` kinds.
    pub fn status(&self) -> Option<u16> {
        match self {
            FaultKind::Status429 { .. } => Some(429),
            FaultKind::Status500 => Some(500),
            FaultKind::Status503 => Some(503),
            _ => None,
        }
    }

    /// The virtual delay of a latency fault.
    pub fn latency(&self) -> Option<Duration> {
        match self {
            FaultKind::Latency { millis } => Some(Duration::from_millis(*millis)),
            _ => None,
        }
    }

    /// What the sandbox does for a filesystem kind.
    pub fn fs_fault(&self) -> Option<FsFault> {
        match *self {
            FaultKind::Eio => Some(FsFault::Error(FsErrno::Io)),
            FaultKind::Enospc => Some(FsFault::Error(FsErrno::NoSpace)),
            FaultKind::Eacces => Some(FsFault::Error(FsErrno::Access)),
            FaultKind::ShortWrite { max_bytes } => Some(FsFault::ShortWrite {
                max_bytes: max_bytes.max(1),
            }),
            _ => None,
        }
    }
}

impl fmt::Display for FaultKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FaultKind::Status429 { retry_after_secs } => write!(f, "status429:{retry_after_secs}"),
            FaultKind::Latency { millis } => write!(f, "latency:{millis}"),
            FaultKind::ShortWrite { max_bytes } => write!(f, "short_write:{max_bytes}"),
            FaultKind::Inject { payload, record } => write!(f, "inject:{payload}@{record}"),
            FaultKind::DuplicateRecord { record } => write!(f, "duplicate_record:{record}"),
            other => f.write_str(other.name()),
        }
    }
}

/// Why a kind did not parse.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum KindError {
    /// The name is not one of [`KIND_NAMES`].
    #[error("unknown fault kind `{0}`")]
    UnknownName(String),
    /// The name is known but its parameter is wrong.
    #[error("{0}")]
    BadParam(String),
}

impl KindError {
    /// A hint for the user: the valid kinds, or the syntax of the kind at fault.
    pub fn hint(&self) -> String {
        match self {
            KindError::UnknownName(_) => format!("valid kinds: {}", KIND_SYNTAX.join(", ")),
            KindError::BadParam(_) => format!("kind syntax: {}", KIND_SYNTAX.join(", ")),
        }
    }
}

fn parse_param<T: FromStr>(name: &str, param: &str, what: &str) -> Result<T, KindError> {
    param
        .trim()
        .parse()
        .map_err(|_| KindError::BadParam(format!("`{name}:{param}`: the parameter must be {what}")))
}

/// A rule's kind before the decision: a fixed kind or a latency range to pick from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum KindSpec {
    /// Always this kind.
    Fixed(FaultKind),
    /// A latency whose duration is picked (seeded) from `min_millis..=max_millis`.
    LatencyRange {
        /// Shortest delay, virtual milliseconds.
        min_millis: u64,
        /// Longest delay, virtual milliseconds.
        max_millis: u64,
    },
}

impl KindSpec {
    /// The kind's name, without its parameter.
    pub fn name(&self) -> &'static str {
        match self {
            KindSpec::Fixed(kind) => kind.name(),
            KindSpec::LatencyRange { .. } => "latency",
        }
    }

    /// Whether the kind can be injected at points of `category`.
    pub fn applies_to(&self, category: Category) -> bool {
        match self {
            KindSpec::Fixed(kind) => kind.applies_to(category),
            KindSpec::LatencyRange { .. } => true,
        }
    }

    /// Whether resolving needs a random draw (only latency ranges do).
    pub fn needs_draw(&self) -> bool {
        matches!(self, KindSpec::LatencyRange { min_millis, max_millis } if min_millis != max_millis)
    }

    /// The decided kind, a latency range picking its millis from `param` (a uniform u64).
    pub fn resolve(&self, param: u64) -> FaultKind {
        match *self {
            KindSpec::Fixed(kind) => kind,
            KindSpec::LatencyRange {
                min_millis,
                max_millis,
            } => {
                let span = u128::from(max_millis - min_millis) + 1;
                // Multiply-high maps the u64 onto 0..span without modulo bias worth a mention.
                let offset = ((u128::from(param) * span) >> 64) as u64;
                FaultKind::Latency {
                    millis: min_millis + offset,
                }
            }
        }
    }
}

impl FromStr for KindSpec {
    type Err = KindError;

    fn from_str(text: &str) -> Result<Self, KindError> {
        let text = text.trim();
        let (name, param) = match text.split_once(':') {
            Some((name, param)) => (name.trim(), Some(param.trim())),
            None => (text, None),
        };
        let no_param = |kind: FaultKind| match param {
            None => Ok(KindSpec::Fixed(kind)),
            Some(p) => Err(KindError::BadParam(format!(
                "`{name}` takes no parameter (got `{p}`)"
            ))),
        };
        match name {
            "status429" => Ok(KindSpec::Fixed(FaultKind::Status429 {
                retry_after_secs: match param {
                    None => DEFAULT_RETRY_AFTER_SECS,
                    Some(p) => parse_param(name, p, "whole seconds, e.g. `status429:2`")?,
                },
            })),
            "status500" => no_param(FaultKind::Status500),
            "status503" => no_param(FaultKind::Status503),
            "timeout" => no_param(FaultKind::Timeout),
            "connection_reset" => no_param(FaultKind::ConnectionReset),
            "truncated_body" => no_param(FaultKind::TruncatedBody),
            "malformed_json" => no_param(FaultKind::MalformedJson),
            "reorder_records" => no_param(FaultKind::ReorderRecords),
            "inject" => {
                const RECORD: &str = "a record index 0-65535, e.g. `inject:3@1`";
                let (payload, record) = match param {
                    None => (0, 0),
                    Some(p) => {
                        let (payload, record) = match p.split_once('@') {
                            Some((payload, record)) => (payload, Some(record)),
                            None => (p, None),
                        };
                        let payload: u16 = parse_param(
                            name,
                            payload,
                            "a payload index (`inject:P` or `inject:P@R`), e.g. `inject:3@1`",
                        )?;
                        let record = match record {
                            None => 0,
                            Some(r) => parse_param(name, r, RECORD)?,
                        };
                        (payload, record)
                    }
                };
                if usize::from(payload) >= INJECTION_CORPUS.len() {
                    return Err(KindError::BadParam(format!(
                        "`{text}`: there are {} injection payloads, numbered 0-{}",
                        INJECTION_CORPUS.len(),
                        INJECTION_CORPUS.len() - 1
                    )));
                }
                Ok(KindSpec::Fixed(FaultKind::Inject { payload, record }))
            }
            "duplicate_record" => Ok(KindSpec::Fixed(FaultKind::DuplicateRecord {
                record: match param {
                    None => 0,
                    Some(p) => {
                        parse_param(name, p, "a record index 0-65535, e.g. `duplicate_record:2`")?
                    }
                },
            })),
            "eio" => no_param(FaultKind::Eio),
            "enospc" => no_param(FaultKind::Enospc),
            "eacces" => no_param(FaultKind::Eacces),
            "latency" => {
                const WHAT: &str =
                    "milliseconds `MS` or a range `MIN-MAX`, e.g. `latency:2000-4000`";
                let (min, max) = match param {
                    None => DEFAULT_LATENCY_MILLIS,
                    Some(p) => match p.split_once('-') {
                        Some((a, b)) => (parse_param(name, a, WHAT)?, parse_param(name, b, WHAT)?),
                        None => {
                            let ms = parse_param(name, p, WHAT)?;
                            (ms, ms)
                        }
                    },
                };
                if min > max {
                    return Err(KindError::BadParam(format!(
                        "`{text}`: the range is empty ({min} > {max})"
                    )));
                }
                if max > MAX_LATENCY_MILLIS {
                    return Err(KindError::BadParam(format!(
                        "`{text}`: a latency is at most {MAX_LATENCY_MILLIS} ms (an hour)"
                    )));
                }
                Ok(if min == max {
                    KindSpec::Fixed(FaultKind::Latency { millis: min })
                } else {
                    KindSpec::LatencyRange {
                        min_millis: min,
                        max_millis: max,
                    }
                })
            }
            "short_write" => {
                let max_bytes: usize = match param {
                    None => 1,
                    Some(p) => parse_param(name, p, "a byte count of at least 1")?,
                };
                if max_bytes == 0 {
                    return Err(KindError::BadParam(format!(
                        "`{text}`: a short write takes at least 1 byte"
                    )));
                }
                Ok(KindSpec::Fixed(FaultKind::ShortWrite { max_bytes }))
            }
            _ => Err(KindError::UnknownName(name.to_string())),
        }
    }
}

impl fmt::Display for KindSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KindSpec::Fixed(kind) => kind.fmt(f),
            KindSpec::LatencyRange {
                min_millis,
                max_millis,
            } => write!(f, "latency:{min_millis}-{max_millis}"),
        }
    }
}

impl From<FaultKind> for KindSpec {
    fn from(kind: FaultKind) -> Self {
        KindSpec::Fixed(kind)
    }
}

impl FromStr for FaultKind {
    type Err = KindError;

    /// Parses a decided kind (a latency must have one duration, not a range).
    fn from_str(text: &str) -> Result<Self, KindError> {
        match text.parse::<KindSpec>()? {
            KindSpec::Fixed(kind) => Ok(kind),
            KindSpec::LatencyRange { .. } if text.contains(':') => Err(KindError::BadParam(
                format!("`{text}`: a decided latency has one duration, not a range"),
            )),
            // A bare `latency` means the default range, which is not a decided kind.
            KindSpec::LatencyRange { .. } => Err(KindError::BadParam(format!(
                "`{text}`: a decided latency needs its duration, e.g. `latency:2500`"
            ))),
        }
    }
}

impl Serialize for FaultKind {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for FaultKind {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

impl Serialize for KindSpec {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for KindSpec {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_round_trips_through_its_text() {
        let kinds = [
            FaultKind::Status429 {
                retry_after_secs: 7,
            },
            FaultKind::Status500,
            FaultKind::Status503,
            FaultKind::Timeout,
            FaultKind::ConnectionReset,
            FaultKind::Latency { millis: 2500 },
            FaultKind::TruncatedBody,
            FaultKind::MalformedJson,
            FaultKind::Inject {
                payload: 3,
                record: 1,
            },
            FaultKind::DuplicateRecord { record: 2 },
            FaultKind::ReorderRecords,
            FaultKind::Eio,
            FaultKind::Enospc,
            FaultKind::Eacces,
            FaultKind::ShortWrite { max_bytes: 3 },
        ];
        assert_eq!(kinds.len(), KIND_NAMES.len());
        for (kind, name) in kinds.iter().zip(KIND_NAMES) {
            assert_eq!(kind.name(), *name);
            assert_eq!(kind.to_string().parse::<FaultKind>().unwrap(), *kind);
            let json = serde_json::to_string(kind).unwrap();
            assert_eq!(serde_json::from_str::<FaultKind>(&json).unwrap(), *kind);
        }
    }

    #[test]
    fn defaults_and_ranges() {
        assert_eq!(
            "status429".parse::<KindSpec>().unwrap(),
            KindSpec::Fixed(FaultKind::Status429 {
                retry_after_secs: 2
            })
        );
        assert_eq!(
            "latency".parse::<KindSpec>().unwrap(),
            KindSpec::LatencyRange {
                min_millis: 2000,
                max_millis: 4000
            }
        );
        assert_eq!(
            "latency: 250".parse::<KindSpec>().unwrap(),
            KindSpec::Fixed(FaultKind::Latency { millis: 250 })
        );
        assert_eq!(
            "short_write".parse::<KindSpec>().unwrap(),
            KindSpec::Fixed(FaultKind::ShortWrite { max_bytes: 1 })
        );
        assert_eq!(
            "latency:100-200".parse::<KindSpec>().unwrap().to_string(),
            "latency:100-200"
        );
        let inject = |payload, record| KindSpec::Fixed(FaultKind::Inject { payload, record });
        assert_eq!("inject".parse::<KindSpec>().unwrap(), inject(0, 0));
        assert_eq!("inject:5".parse::<KindSpec>().unwrap(), inject(5, 0));
        assert_eq!("inject: 3 @ 1".parse::<KindSpec>().unwrap(), inject(3, 1));
        assert_eq!(
            "duplicate_record".parse::<KindSpec>().unwrap(),
            KindSpec::Fixed(FaultKind::DuplicateRecord { record: 0 })
        );
        for (text, shown) in [
            ("inject:3@1", "inject:3@1"),
            ("inject", "inject:0@0"),
            ("duplicate_record:2", "duplicate_record:2"),
            ("reorder_records", "reorder_records"),
        ] {
            assert_eq!(text.parse::<FaultKind>().unwrap().to_string(), shown);
        }
    }

    #[test]
    fn bad_kinds_say_why() {
        assert_eq!(
            "status502".parse::<KindSpec>().unwrap_err(),
            KindError::UnknownName("status502".into())
        );
        assert!(
            "status502"
                .parse::<KindSpec>()
                .unwrap_err()
                .hint()
                .contains("status503")
        );
        for bad in [
            "eio:3",
            "latency:4-2",
            "latency:x",
            "short_write:0",
            "status429:-1",
            "inject:8",
            "inject:x",
            "inject:1@",
            "inject:@1",
            "inject:1@70000",
            "duplicate_record:-1",
            "reorder_records:1",
            "latency:3600001",
            "latency:1-18446744073709551615",
        ] {
            assert!(
                matches!(bad.parse::<KindSpec>(), Err(KindError::BadParam(_))),
                "{bad}"
            );
        }
        assert!("latency".parse::<FaultKind>().is_err());
        assert!("latency:1-2".parse::<FaultKind>().is_err());
        assert_eq!(
            "inject:8@0".parse::<KindSpec>().unwrap_err().to_string(),
            "`inject:8@0`: there are 8 injection payloads, numbered 0-7"
        );
    }

    #[test]
    fn latency_ranges_cover_both_ends() {
        let spec: KindSpec = "latency:2000-4000".parse().unwrap();
        assert_eq!(spec.resolve(0), FaultKind::Latency { millis: 2000 });
        assert_eq!(spec.resolve(u64::MAX), FaultKind::Latency { millis: 4000 });
        assert_eq!(spec.resolve(1 << 63), FaultKind::Latency { millis: 3000 });
    }

    #[test]
    fn categories_and_fs_mapping() {
        assert!(FaultKind::Eio.applies_to(Category::Fs));
        assert!(!FaultKind::Eio.applies_to(Category::Service));
        assert!(!FaultKind::Status500.applies_to(Category::Fs));
        assert!(FaultKind::Latency { millis: 1 }.applies_to(Category::Fs));
        for kind in [
            FaultKind::Inject {
                payload: 0,
                record: 0,
            },
            FaultKind::DuplicateRecord { record: 0 },
            FaultKind::ReorderRecords,
        ] {
            assert!(!kind.is_fs() && kind.fs_fault().is_none());
            assert!(!kind.applies_to(Category::Fs));
            for category in [Category::Service, Category::Http, Category::Tool] {
                assert!(kind.applies_to(category));
            }
        }
        assert_eq!(
            FaultKind::Enospc.fs_fault(),
            Some(FsFault::Error(FsErrno::NoSpace))
        );
        assert_eq!(
            FaultKind::ShortWrite { max_bytes: 0 }.fs_fault(),
            Some(FsFault::ShortWrite { max_bytes: 1 })
        );
        assert_eq!(FaultKind::Timeout.fs_fault(), None);
    }
}
