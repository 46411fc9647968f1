//! The largest numbers a task may give, so that a task that validates runs: its times fit
//! `Instant` and the virtual clock, its weights keep the score a finite number, its limits are
//! limits. Validation refuses a number beyond them, naming file, field and line.

/// Seconds of `environment.timeout_seconds` and `env_snapshot_timeout`: a week.
pub const MAX_SECONDS: u64 = 7 * 24 * 3600;

/// A rubric or scoring-component weight. Any number of weights this size sum to a finite
/// number (Claw-Eval's sum to 1).
pub const MAX_WEIGHT: f64 = 1_000_000.0;

/// `environment.max_turns` and `user_agent.max_rounds`.
pub const MAX_TURNS: u32 = 100_000;

/// `limits.disk_mib`: 1 TiB.
pub const MAX_DISK_MIB: u64 = 1 << 20;

/// `limits.inodes`.
pub const MAX_INODES: u64 = 1_000_000_000;

/// The magnitude of an interval's ends in an `interval_iou` check: lengths and overlaps of
/// such intervals are finite.
pub const MAX_INTERVAL_END: f64 = 1e15;
