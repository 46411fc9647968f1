//! `epoch:` — a task's virtual start time, written as an RFC 3339 UTC timestamp
//! (`2026-03-02T09:00:00Z`) and kept as seconds since the Unix epoch.

/// The runner's start time when a task sets no `epoch` (2026-01-01T00:00:00Z).
pub const DEFAULT_EPOCH: i64 = 1_767_225_600;

/// Why a text is not a task's epoch.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EpochError {
    /// Not in the RFC 3339 form.
    #[error("`{0}` is not an RFC 3339 timestamp like 2026-03-02T09:00:00Z")]
    NotRfc3339(String),
    /// A fraction of a second that is not zero.
    #[error("`{0}`: the epoch must be a whole second")]
    Fraction(String),
    /// An offset other than UTC.
    #[error("`{text}` is not UTC (offset {offset})")]
    NotUtc {
        /// The timestamp, as written.
        text: String,
        /// Its offset, as written.
        offset: String,
    },
    /// A date that does not exist.
    #[error("`{0}`: no such date")]
    NoSuchDate(String),
    /// A time of day that does not exist.
    #[error("`{0}`: no such time of day")]
    NoSuchTime(String),
    /// Before 1970-01-01T00:00:00Z (the virtual clock counts from the Unix epoch).
    #[error("`{0}` is before 1970-01-01T00:00:00Z, where the virtual clock starts")]
    BeforeUnixEpoch(String),
}

/// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|+00:00)` into whole seconds since 1970-01-01 UTC
/// (a fraction must be zero: the virtual clock starts on a whole second).
pub fn parse_epoch(s: &str) -> Result<i64, EpochError> {
    let b = s.as_bytes();
    let bad = || EpochError::NotRfc3339(s.to_string());
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || !matches!(b[10], b'T' | b't') {
        return Err(bad());
    }
    if b[13] != b':' || b[16] != b':' {
        return Err(bad());
    }
    let num = |r: std::ops::Range<usize>| -> Result<i64, EpochError> {
        // `get`: a field's end may fall inside a character the separators' checks did not
        // see (`...T09:00:0éZ`).
        let t = s.get(r).ok_or_else(bad)?;
        if t.bytes().all(|c| c.is_ascii_digit()) {
            t.parse().map_err(|_| bad())
        } else {
            Err(bad())
        }
    };
    let (year, month, day) = (num(0..4)?, num(5..7)?, num(8..10)?);
    let (hour, minute, second) = (num(11..13)?, num(14..16)?, num(17..19)?);
    let mut rest = &s[19..];
    if let Some(frac) = rest.strip_prefix('.') {
        let digits = frac.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return Err(bad());
        }
        if frac[..digits].bytes().any(|c| c != b'0') {
            return Err(EpochError::Fraction(s.to_string()));
        }
        rest = &frac[digits..];
    }
    match rest {
        "Z" | "z" | "+00:00" | "-00:00" => {}
        _ if rest.len() == 6 && (rest.starts_with('+') || rest.starts_with('-')) => {
            return Err(EpochError::NotUtc {
                text: s.to_string(),
                offset: rest.to_string(),
            });
        }
        _ => return Err(bad()),
    }
    let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    let days_in = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&month) || day < 1 || day > days_in[(month - 1) as usize] {
        return Err(EpochError::NoSuchDate(s.to_string()));
    }
    if hour > 23 || minute > 59 || second > 59 {
        return Err(EpochError::NoSuchTime(s.to_string()));
    }
    let secs = days_from_civil(year, month as u32, day as u32) * 86_400
        + hour * 3600
        + minute * 60
        + second;
    if secs < 0 {
        return Err(EpochError::BeforeUnixEpoch(s.to_string()));
    }
    Ok(secs)
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm); the one
/// calendar computation of clawrun (the services' dates use it too).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian date (year, month, day) of a day number since 1970-01-01.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_utc() {
        assert_eq!(parse_epoch("1970-01-01T00:00:00Z"), Ok(0));
        assert_eq!(parse_epoch("2026-01-01T00:00:00Z"), Ok(DEFAULT_EPOCH));
        assert_eq!(parse_epoch("2026-03-02T09:00:00Z"), Ok(1_772_442_000));
        assert_eq!(parse_epoch("2000-02-29T23:59:59+00:00"), Ok(951_868_799));
        assert_eq!(parse_epoch("2026-03-02T09:00:00.000Z"), Ok(1_772_442_000));
        // Before 1970 the trial would silently start at the default epoch instead.
        assert_eq!(
            parse_epoch("1969-12-31T23:59:59Z"),
            Err(EpochError::BeforeUnixEpoch("1969-12-31T23:59:59Z".into()))
        );
    }

    #[test]
    fn rejects_others() {
        assert!(
            parse_epoch("2026-03-02T09:00:00+08:00")
                .unwrap_err()
                .to_string()
                .contains("not UTC")
        );
        assert!(parse_epoch("2026-03-02 09:00").is_err());
        assert!(
            parse_epoch("2026-02-29T00:00:00Z")
                .unwrap_err()
                .to_string()
                .contains("no such date")
        );
        assert!(parse_epoch("2026-03-02T24:00:00Z").is_err());
        assert!(parse_epoch("2026-03-02T09:00:00").is_err());
        assert!(parse_epoch("2026-03-02T09:00:00.5Z").is_err());
        // A character of two bytes across a field's end (the seconds' here) once panicked.
        assert!(parse_epoch("2026-03-02T09:00:0\u{e9}Z").is_err());
        assert!(parse_epoch("2026-03-02T09:00:\u{e9}Z").is_err());
    }

    proptest::proptest! {
        /// No text makes the parser panic: a valid epoch with one character replaced or
        /// inserted anywhere, and any short text.
        #[test]
        fn no_text_panics(
            at in 0usize..24,
            c in proptest::char::any(),
            insert in proptest::bool::ANY,
            any in "\\PC{0,30}",
        ) {
            let mut s: Vec<char> = "2026-03-02T09:00:00.000Z".chars().collect();
            if insert {
                s.insert(at, c);
            } else {
                s[at] = c;
            }
            let _ = parse_epoch(&s.into_iter().collect::<String>());
            let _ = parse_epoch(&any);
        }
    }
}
