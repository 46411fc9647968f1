//! Times as the formats write them: RFC 3339 UTC from nanoseconds since the Unix epoch (the
//! trace's virtual clock), without reading any clock; the calendar is `clawrun_task::epoch`'s.

/// `t_ns` as RFC 3339 UTC with microseconds: `2026-01-01T00:00:00.000000+00:00`.
pub fn rfc3339(t_ns: u64) -> String {
    let secs = t_ns / 1_000_000_000;
    let micros = (t_ns % 1_000_000_000) / 1_000;
    let days = secs / 86_400;
    let rem = secs % 86_400;
    // Days since 1970 fit an i64 for any u64 of nanoseconds.
    let (y, m, d) = clawrun_task::epoch::civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{micros:06}+00:00",
        rem / 3600,
        (rem % 3600) / 60,
        rem % 60
    )
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
