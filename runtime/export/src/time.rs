//! Times as the formats write them: RFC 3339 UTC from nanoseconds since the Unix epoch (the
//! trace's virtual clock), without reading any clock.

/// `t_ns` as RFC 3339 UTC with microseconds: `2026-01-01T00:00:00.000000+00:00`.
pub fn rfc3339(t_ns: u64) -> String {
    let secs = t_ns / 1_000_000_000;
    let micros = (t_ns % 1_000_000_000) / 1_000;
    let days = secs / 86_400;
    let rem = secs % 86_400;
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{micros:06}+00:00",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
}

/// The proleptic Gregorian date of `days` since 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + u64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_instants_are_written_as_rfc3339() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000000+00:00");
        // 2026-01-01T00:00:00Z, clawrun's default task epoch.
        assert_eq!(
            rfc3339(1_767_225_600_000_000_000),
            "2026-01-01T00:00:00.000000+00:00"
        );
        // 2024-02-29T12:34:56.789012Z: a leap day.
        assert_eq!(
            rfc3339(1_709_210_096_789_012_345),
            "2024-02-29T12:34:56.789012+00:00"
        );
    }
}
