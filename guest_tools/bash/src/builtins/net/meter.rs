//! curl's progress meter, which it writes to stderr whenever it is not silenced (its output
//! is never a terminal here): the two header lines and `\r`-separated status lines in
//! curl's column layout.
//!
//! Times are virtual: a transfer takes no time unless the host moves the sandbox clock, so
//! speeds are computed as if anything under one millisecond took one (the resolution the
//! meter is shown at), which keeps them finite and deterministic.

use std::time::Duration;

/// The two header lines.
pub const HEADER: &str = "  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current\n                                 Dload  Upload   Total   Spent    Left  Speed\n";

/// The state of one transfer.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Bytes to download, when known (`Content-Length`).
    pub dl_size: Option<u64>,
    /// Bytes to upload, when known.
    pub ul_size: Option<u64>,
    /// Bytes downloaded so far.
    pub downloaded: u64,
    /// Bytes uploaded so far.
    pub uploaded: u64,
    /// Time since the transfer started.
    pub elapsed: Duration,
}

/// One status line, starting with `\r` and without a line end.
pub fn line(p: &Progress) -> String {
    let us = (p.elapsed.as_micros() as u64).max(1000);
    let dlspeed = speed(p.downloaded, us);
    let ulspeed = speed(p.uploaded, us);
    let current = speed(p.downloaded + p.uploaded, us);
    let percent = |done: u64, size: Option<u64>| match size {
        Some(s) if s > 10_000 => done / (s / 100),
        Some(s) if s > 0 => done * 100 / s,
        _ => 0,
    };
    // Unknown sizes count as what has been transferred, so the total reaches 100%.
    let total_size = p.dl_size.unwrap_or(p.downloaded) + p.ul_size.unwrap_or(p.uploaded);
    let total_percent = percent(p.downloaded + p.uploaded, Some(total_size));
    let estimate = |size: Option<u64>, rate: u64| match size {
        Some(s) if rate > 0 => s / rate,
        _ => 0,
    };
    let total_secs = estimate(p.dl_size, dlspeed).max(estimate(p.ul_size, ulspeed));
    let spent = p.elapsed.as_secs();
    let left = if p.dl_size.is_some() || p.ul_size.is_some() {
        total_secs.saturating_sub(spent)
    } else {
        0
    };
    format!(
        "\r{:3} {}  {:3} {}  {:3} {}  {}  {} {} {} {} {}",
        total_percent,
        max5(total_size),
        percent(p.downloaded, p.dl_size),
        max5(p.downloaded),
        percent(p.uploaded, p.ul_size),
        max5(p.uploaded),
        max5(dlspeed),
        max5(ulspeed),
        time(total_secs),
        time(spent),
        time(left),
        max5(current),
    )
}

/// Bytes per second for `size` bytes in `us` microseconds.
fn speed(size: u64, us: u64) -> u64 {
    (u128::from(size) * 1_000_000 / u128::from(us.max(1))) as u64
}

/// A byte count in five characters, as curl's `max5data` writes it.
fn max5(bytes: u64) -> String {
    const K: u64 = 1024;
    const M: u64 = K * K;
    const G: u64 = M * K;
    const T: u64 = G * K;
    if bytes < 100_000 {
        format!("{bytes:5}")
    } else if bytes < 10_000 * K {
        format!("{:4}k", bytes / K)
    } else if bytes < 100 * M {
        format!("{:2}.{}M", bytes / M, (bytes % M) / (M / 10))
    } else if bytes < 10_000 * M {
        format!("{:4}M", bytes / M)
    } else if bytes < 100 * G {
        format!("{:2}.{}G", bytes / G, (bytes % G) / (G / 10))
    } else if bytes < 10_000 * G {
        format!("{:4}G", bytes / G)
    } else if bytes < 10_000 * T {
        format!("{:4}T", bytes / T)
    } else {
        format!("{:4}P", bytes / (T * K))
    }
}

/// Seconds as curl's `time2str` writes them: `--:--:--` for none, `H:MM:SS` up to 99 hours.
fn time(secs: u64) -> String {
    if secs == 0 {
        return "--:--:--".into();
    }
    let h = secs / 3600;
    if h <= 99 {
        format!("{h:2}:{:02}:{:02}", (secs % 3600) / 60, secs % 60)
    } else if h / 24 <= 999 {
        format!("{:3}d {:02}h", h / 24, h % 24)
    } else {
        format!("{:7}d", h / 24)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_starting_line_is_all_zero() {
        assert_eq!(
            line(&Progress::default()),
            "\r  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0"
        );
    }

    #[test]
    fn a_finished_download_in_no_time_counts_one_millisecond() {
        let p = Progress {
            dl_size: Some(11),
            downloaded: 11,
            ..Progress::default()
        };
        assert_eq!(
            line(&p),
            "\r100    11  100    11    0     0  11000      0 --:--:-- --:--:-- --:--:-- 11000"
        );
    }

    #[test]
    fn an_unknown_size_still_totals_100_percent() {
        let p = Progress {
            ul_size: Some(3),
            downloaded: 11,
            uploaded: 3,
            ..Progress::default()
        };
        assert_eq!(
            line(&p),
            "\r100    14    0    11  100     3  11000   3000 --:--:-- --:--:-- --:--:-- 14000"
        );
    }

    #[test]
    fn uploads_and_large_sizes() {
        let p = Progress {
            dl_size: Some(209),
            ul_size: Some(3),
            downloaded: 209,
            uploaded: 3,
            elapsed: Duration::from_millis(5),
        };
        assert_eq!(
            line(&p),
            "\r100   212  100   209  100     3  41800    600 --:--:-- --:--:-- --:--:-- 42400"
        );
        assert_eq!(max5(123_456), " 120k");
        assert_eq!(max5(15 * 1024 * 1024 + 600 * 1024), "15.5M");
        assert_eq!(time(3725), " 1:02:05");
    }
}
