//! Virtual time for the services: UTC instants in microseconds, Python `datetime` parsing
//! (`fromisoformat` of Python 3.11, `strptime("%Y-%m-%d")`) and formatting (`isoformat`,
//! `strftime("%Y-%m-%dT%H:%M:%SZ")`), with Python's year 1..=9999 range.

use std::fmt::Write as _;
use std::time::Duration;

/// Microseconds in a day.
pub(crate) const DAY: i64 = 86_400_000_000;
/// Microseconds in a second.
const SEC: i64 = 1_000_000;
/// 0001-01-01T00:00:00 in microseconds since the Unix epoch (Python's `datetime.min`).
const MIN_MICROS: i64 = -719_162 * DAY;
/// 9999-12-31T23:59:59.999999 (Python's `datetime.max`).
const MAX_MICROS: i64 = 2_932_897 * DAY - 1;
/// Python's `timedelta` limit, in days.
pub(crate) const MAX_TIMEDELTA_DAYS: i64 = 999_999_999;

/// A UTC instant, microseconds since the Unix epoch: the services' "now".
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UtcInstant(i64);

impl UtcInstant {
    /// The instant `micros` microseconds after 1970-01-01T00:00:00Z.
    pub const fn from_unix_micros(micros: i64) -> Self {
        Self(micros)
    }

    /// The instant `d` after the Unix epoch (sub-microsecond digits are dropped).
    pub fn from_duration(d: Duration) -> Self {
        Self(i64::try_from(d.as_micros()).unwrap_or(i64::MAX))
    }

    /// Microseconds since the Unix epoch.
    pub const fn unix_micros(self) -> i64 {
        self.0
    }

    /// Python's `datetime.now(timezone.utc).isoformat()`:
    /// `2026-11-22T01:49:04.133592+00:00` (the fraction is omitted when zero).
    pub fn isoformat(self) -> String {
        let mut s = format_fields(self.0, "T");
        let micros = self.0.rem_euclid(SEC);
        if micros != 0 {
            let _ = write!(s, ".{micros:06}");
        }
        s.push_str("+00:00");
        s
    }

    /// The UTC date, `YYYY-MM-DD`.
    pub fn date_string(self) -> String {
        let (y, m, d) = civil_from_days(self.0.div_euclid(DAY));
        format!("{y:04}-{m:02}-{d:02}")
    }
}

pub use clawrun_task::epoch::{civil_from_days, days_from_civil};

fn is_leap(y: i64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(y) => 29,
        2 => 28,
        _ => 0,
    }
}

/// Python's `date(y, m, d)` validity.
fn valid_date(y: i64, m: u32, d: u32) -> bool {
    (1..=9999).contains(&y) && (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m)
}

/// Whether a wall-clock reading (microseconds as if UTC) is inside Python's datetime range.
pub(crate) fn in_range(micros: i64) -> bool {
    (MIN_MICROS..=MAX_MICROS).contains(&micros)
}

/// `a + b` as Python datetime arithmetic: `None` on `OverflowError`.
pub(crate) fn add(a: i64, b: i64) -> Option<i64> {
    a.checked_add(b).filter(|&r| in_range(r))
}

fn format_fields(micros: i64, sep: &str) -> String {
    let days = micros.div_euclid(DAY);
    let secs = micros.rem_euclid(DAY) / SEC;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}{sep}{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    )
}

/// `strftime("%Y-%m-%dT%H:%M:%SZ")` of a wall-clock reading (the fraction is dropped).
pub(crate) fn format_z(local_micros: i64) -> String {
    let mut s = format_fields(local_micros, "T");
    s.push('Z');
    s
}

/// A parsed `datetime`: its wall-clock reading and, when aware, its UTC offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct DateTime {
    /// Wall-clock fields as microseconds since the epoch, as if they were UTC.
    pub local: i64,
    /// Offset east of UTC in microseconds; `None` for a naive datetime.
    pub offset: Option<i64>,
}

impl DateTime {
    /// The UTC instant (aware datetimes only).
    pub fn instant(self) -> Option<i64> {
        self.offset.map(|o| self.local - o)
    }

    /// Wall-clock hour and minute.
    pub fn hour_minute(self) -> (i64, i64) {
        let secs = self.local.rem_euclid(DAY) / SEC;
        (secs / 3600, secs / 60 % 60)
    }
}

/// Python 3.11's `datetime.fromisoformat` (the C implementation, byte for byte; only the
/// date/time separator may be a non-ASCII character).
pub(crate) fn parse_isoformat(s: &str) -> Option<DateTime> {
    if s.is_ascii() {
        return parse_ascii(s.as_bytes());
    }
    let mut b: Vec<u8> = s
        .chars()
        .map(|c| if c.is_ascii() { c as u8 } else { 0xff })
        .collect();
    if b.len() < 7 {
        return None;
    }
    let sep = find_separator(&b)?;
    if b.iter().enumerate().any(|(i, &c)| c == 0xff && i != sep) {
        return None;
    }
    if let Some(c) = b.get_mut(sep) {
        *c = b'T';
    }
    parse_ascii(&b)
}

fn parse_ascii(b: &[u8]) -> Option<DateTime> {
    let len = b.len();
    if len < 7 {
        return None;
    }
    let sep = find_separator(b)?;
    let (y, m, d) = parse_date(b, sep)?;
    let (mut h, mut mi, mut sec, mut us, mut offset) = (0, 0, 0, 0, None);
    if len > sep {
        let t = parse_time(&b[sep + 1..])?;
        (h, mi, sec, us, offset) = t;
    }
    if !valid_date(y, m, d) || h > 23 || mi > 59 || sec > 59 {
        return None;
    }
    if let Some(o) = offset
        && o.abs() >= DAY
    {
        return None;
    }
    let local = days_from_civil(y, m, d) * DAY + (h * 3600 + mi * 60 + sec) * SEC + us;
    Some(DateTime { local, offset })
}

fn byte(b: &[u8], i: usize) -> u8 {
    b.get(i).copied().unwrap_or(0)
}

fn find_separator(b: &[u8]) -> Option<usize> {
    let len = b.len();
    if len == 7 {
        return Some(7);
    }
    if b[4] == b'-' {
        if b[5] == b'W' {
            if len < 8 {
                return None;
            }
            if len > 8 && b[8] == b'-' {
                if len == 9 {
                    return None;
                }
                if len > 10 && b[10].is_ascii_digit() {
                    return Some(8);
                }
                return Some(10);
            }
            return Some(8);
        }
        return Some(10);
    }
    if b[4] == b'W' {
        let mut idx = 7;
        while idx < len && b[idx].is_ascii_digit() {
            idx += 1;
        }
        if idx < 9 {
            return Some(idx);
        }
        return Some(if idx % 2 == 0 { 7 } else { 8 });
    }
    Some(8)
}

/// Parses exactly `n` ASCII digits at `*p` (reading past the end yields NUL, which fails).
fn digits(b: &[u8], p: &mut usize, n: usize) -> Option<i64> {
    let mut v = 0;
    for _ in 0..n {
        let c = byte(b, *p);
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + i64::from(c - b'0');
        *p += 1;
    }
    Some(v)
}

fn parse_date(full: &[u8], len: usize) -> Option<(i64, u32, u32)> {
    // The C code reads the date from the whole (NUL-terminated) buffer, bounded by `len` only for
    // the optional ISO weekday.
    let b = full;
    let mut p = 0;
    let year = digits(b, &mut p, 4)?;
    let sep = byte(b, p) == b'-';
    if sep {
        p += 1;
    }
    if byte(b, p) == b'W' {
        p += 1;
        let week = digits(b, &mut p, 2)?;
        let mut day = 1;
        if p < len {
            if sep {
                if byte(b, p) != b'-' {
                    return None;
                }
                p += 1;
            }
            day = digits(b, &mut p, 1)?;
        }
        return iso_week_to_ymd(year, week, day);
    }
    let month = digits(b, &mut p, 2)?;
    if sep {
        if byte(b, p) != b'-' {
            return None;
        }
        p += 1;
    }
    let day = digits(b, &mut p, 2)?;
    Some((year, month as u32, day as u32))
}

fn iso_week_to_ymd(year: i64, week: i64, day: i64) -> Option<(i64, u32, u32)> {
    if !(1..=9999).contains(&year) {
        return None;
    }
    let weekday = |days: i64| (days + 3).rem_euclid(7);
    if !(1..53).contains(&week) {
        let jan1 = weekday(days_from_civil(year, 1, 1));
        if !(week == 53 && (jan1 == 3 || (jan1 == 2 && is_leap(year)))) {
            return None;
        }
    }
    if !(1..=7).contains(&day) {
        return None;
    }
    let jan4 = days_from_civil(year, 1, 4);
    let monday = jan4 - weekday(jan4);
    let (y, m, d) = civil_from_days(monday + (week - 1) * 7 + (day - 1));
    Some((y, m, d))
}

type Time = (i64, i64, i64, i64, Option<i64>);

fn parse_time(t: &[u8]) -> Option<Time> {
    // A do-while loop in C: an empty time part leaves the position one past the end.
    let tz_pos = t
        .iter()
        .position(|&c| matches!(c, b'Z' | b'+' | b'-'))
        .unwrap_or(t.len().max(1));
    let (h, m, s, us, rv) = parse_hh_mm_ss_ff(t, 0, tz_pos)?;
    if tz_pos >= t.len() {
        return if rv { None } else { Some((h, m, s, us, None)) };
    }
    if t[tz_pos] == b'Z' {
        return if tz_pos + 1 == t.len() {
            Some((h, m, s, us, Some(0)))
        } else {
            None
        };
    }
    let sign = if t[tz_pos] == b'-' { -1 } else { 1 };
    let (th, tm, ts, tus, rv) = parse_hh_mm_ss_ff(t, tz_pos + 1, t.len())?;
    if rv {
        return None;
    }
    let offset = sign * ((th * 3600 + tm * 60 + ts) * SEC + tus);
    Some((h, m, s, us, Some(offset)))
}

/// `parse_hh_mm_ss_ff` of CPython: `(h, m, s, us, trailing)` where `trailing` is the C return
/// value 1 (characters follow the parsed part).
fn parse_hh_mm_ss_ff(b: &[u8], start: usize, end: usize) -> Option<(i64, i64, i64, i64, bool)> {
    let mut vals = [0i64; 3];
    let mut p = start;
    let mut has_sep = true;
    for (i, val) in vals.iter_mut().enumerate() {
        *val = digits(b, &mut p, 2)?;
        let c = byte(b, p);
        p += 1;
        if i == 0 {
            has_sep = c == b':';
        }
        if p >= end {
            return Some((vals[0], vals[1], vals[2], 0, c != 0));
        } else if has_sep && c == b':' {
            continue;
        } else if c == b'.' || c == b',' {
            break;
        } else if !has_sep {
            p -= 1;
        } else {
            return None;
        }
    }
    let to_parse = end.saturating_sub(p).min(6);
    // With nothing to parse CPython multiplies a zero by an out-of-bounds factor: still zero.
    let us = digits(b, &mut p, to_parse)? * 10i64.pow((6 - to_parse) as u32);
    while byte(b, p).is_ascii_digit() {
        p += 1;
    }
    Some((vals[0], vals[1], vals[2], us, byte(b, p) != 0))
}

/// `datetime.strptime(s, "%Y-%m-%d")`: the day number, or `None` on `ValueError`.
pub(crate) fn strptime_ymd(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() < 4 || !b[..4].iter().all(u8::is_ascii_digit) || byte(b, 4) != b'-' {
        return None;
    }
    let year: i64 = s[..4].parse().ok()?;
    // Regex alternatives in order: m = 1[0-2] | 0[1-9] | [1-9]; d = 3[01] | [12]\d | 0[1-9] | [1-9] | " "[1-9].
    type Alternative = fn(&[u8]) -> Option<(u32, usize)>;
    let months: [Alternative; 3] = [
        |b| {
            (byte(b, 0) == b'1' && matches!(byte(b, 1), b'0'..=b'2'))
                .then(|| (10 + u32::from(b[1] - b'0'), 2))
        },
        |b| {
            (byte(b, 0) == b'0' && matches!(byte(b, 1), b'1'..=b'9'))
                .then(|| (u32::from(b[1] - b'0'), 2))
        },
        |b| matches!(byte(b, 0), b'1'..=b'9').then(|| (u32::from(b[0] - b'0'), 1)),
    ];
    let rest = &b[5..];
    for month in months {
        let Some((m, mlen)) = month(rest) else {
            continue;
        };
        if byte(rest, mlen) != b'-' {
            continue;
        }
        let dpart = &rest[mlen + 1..];
        let two = |b: &[u8]| u32::from(b[0] - b'0') * 10 + u32::from(b[1] - b'0');
        let day = match (byte(dpart, 0), byte(dpart, 1)) {
            (b'3', b'0' | b'1') => Some((two(dpart), 2)),
            (b'1' | b'2', c) if c.is_ascii_digit() => Some((two(dpart), 2)),
            (b'0', b'1'..=b'9') => Some((two(dpart), 2)),
            (c @ b'1'..=b'9', _) => Some((u32::from(c - b'0'), 1)),
            (b' ', c @ b'1'..=b'9') => Some((u32::from(c - b'0'), 2)),
            _ => None,
        };
        let Some((d, dlen)) = day else { continue };
        if dpart.len() != dlen || !valid_date(year, m, d) {
            return None;
        }
        return Some(days_from_civil(year, m, d));
    }
    None
}
