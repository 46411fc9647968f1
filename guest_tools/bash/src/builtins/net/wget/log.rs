//! wget's log formatting: timestamps, rates, sizes, durations and the dot progress display.

use crate::timefmt;

/// The current (virtual) time as wget logs it.
pub(super) fn now() -> String {
    let (secs, _) = timefmt::epoch(std::time::SystemTime::now());
    timefmt::strftime("%Y-%m-%d %H:%M:%S", &timefmt::gmtime(secs), secs, 0)
}

/// Seconds a transfer took, as used for speeds: under a millisecond counts as one (the
/// sandbox's clock only moves when the host moves it).
pub(super) fn rate_secs(secs: f64) -> f64 {
    secs.max(0.001)
}

/// wget's `calc_rate`: the rate and its unit index (B, K, M, G, T per second).
pub(super) fn calc_rate(bytes: u64, secs: f64) -> (f64, usize) {
    let mut rate = bytes as f64 / rate_secs(secs);
    let mut unit = 0;
    while rate >= 1024.0 && unit < 4 {
        rate /= 1024.0;
        unit += 1;
    }
    (rate, unit)
}

pub(super) fn precision(rate: f64) -> usize {
    if rate >= 99.95 {
        0
    } else if rate >= 9.995 {
        1
    } else {
        2
    }
}

/// `12.5 KB/s`.
pub(super) fn retr_rate(bytes: u64, secs: f64) -> String {
    const NAMES: [&str; 5] = ["B/s", "KB/s", "MB/s", "GB/s", "TB/s"];
    let (rate, unit) = calc_rate(bytes, secs);
    format!("{rate:.*} {}", precision(rate), NAMES[unit])
}

/// wget's `human_readable(n, 10, 1)`: `2.9K`, `121K`, `1.5M`.
pub(super) fn human_size(n: u64) -> String {
    const POWERS: [char; 6] = ['K', 'M', 'G', 'T', 'P', 'E'];
    if n < 1024 {
        return n.to_string();
    }
    let mut n = n as f64;
    for (i, p) in POWERS.iter().enumerate() {
        if n / 1024.0 < 1024.0 || i == POWERS.len() - 1 {
            let val = n / 1024.0;
            return format!("{val:.*}{p}", if val < 10.0 { 1 } else { 0 });
        }
        n /= 1024.0;
    }
    unreachable!("the loop returns at the last power")
}

/// wget's `print_decimal`.
pub(super) fn decimal(n: f64) -> String {
    if n >= 9.95 {
        format!("{n:.0}")
    } else if n >= 0.95 {
        format!("{n:.1}")
    } else if n >= 0.001 {
        let s = format!("{:.0e}", n);
        // `%.1g`: one significant digit, plain notation.
        let v: f64 = s.parse().unwrap_or(n);
        format!("{v}")
    } else if n >= 0.0005 {
        "0.001".into()
    } else {
        "0".into()
    }
}

/// wget's `secs_to_human_time`.
pub(super) fn human_time(secs: f64) -> String {
    let whole = (secs + 0.5) as u64;
    let (h, m, s) = (whole / 3600, (whole % 3600) / 60, whole % 60);
    if h > 0 {
        format!("{h}h {m}m {s}s")
    } else if m > 0 {
        format!("{m}m {s}s")
    } else if secs >= 10.0 {
        format!("{s}s")
    } else {
        format!("{}s", decimal(secs))
    }
}

/// wget's `eta_to_human_short(secs, true)`.
pub(super) fn eta(secs: u64) -> String {
    if secs < 100 {
        format!("{secs}s")
    } else if secs < 100 * 60 {
        format!("{}m{}s", secs / 60, secs % 60)
    } else if secs < 48 * 3600 {
        format!("{}h{}m", secs / 3600, (secs / 60) % 60)
    } else if secs < 100 * 86400 {
        format!("{}d{}h", secs / 86400, (secs / 3600) % 24)
    } else {
        format!("{}d", secs / 86400)
    }
}

/// The dot display of a finished download of `n` bytes (1K a dot, 10 dots a group, 50 a
/// row), starting with the blank line after `Saving to:` and ending with the blank line
/// before the summary. Every row took the transfer's (virtual) time.
pub(super) fn dots(n: u64, total: Option<u64>, secs: f64) -> String {
    const DOT: u64 = 1024;
    const ROW: u64 = 50 * DOT;
    let mut out = String::new();
    let full_rows = n / ROW;
    let row_stats = |out: &mut String, shown: u64, row_bytes: u64, last: bool| {
        if let Some(t) = total.filter(|t| *t > 0) {
            out.push_str(&format!("{:3}%", shown * 100 / t));
        }
        let (rate, unit) = calc_rate(row_bytes, secs);
        out.push_str(&format!(
            " {rate:4.*}{}",
            precision(rate),
            [' ', 'K', 'M', 'G', 'T'][unit]
        ));
        if last {
            out.push_str(&format!("={}s", decimal(secs)));
        } else if let Some(t) = total.filter(|t| *t > 0) {
            let remaining = t.saturating_sub(shown);
            let est = if shown > 0 {
                secs * remaining as f64 / shown as f64
            } else {
                0.0
            };
            out.push_str(&format!(" {}", eta((est + 0.5) as u64)));
        }
    };
    for row in 0..full_rows {
        out.push_str(&format!("\n{:>6}K", row * ROW / 1024));
        for d in 0..50 {
            if d % 10 == 0 {
                out.push(' ');
            }
            out.push('.');
        }
        row_stats(&mut out, (row + 1) * ROW, ROW, false);
    }
    let rest = n - full_rows * ROW;
    let dots = rest / DOT;
    out.push_str(&format!("\n{:>6}K", full_rows * ROW / 1024));
    for d in 0..50 {
        if d % 10 == 0 {
            out.push(' ');
        }
        out.push(if d < dots { '.' } else { ' ' });
    }
    row_stats(&mut out, n, rest, true);
    out.push('\n');
    out
}
