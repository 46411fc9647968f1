//! FFmpeg's time durations (`-ss`, `-t`, `-to`): `[-][HH:]MM:SS[.m...]` or `[-]S+[.m...][s|ms|us]`,
//! read as `av_parse_time` reads a duration, into microseconds.

/// Microseconds of the duration `text`, or an error naming it.
pub fn parse_duration(option: &str, text: &str) -> Result<i64, String> {
    parse(text).ok_or_else(|| {
        format!("Invalid duration for option {option}: {text} (expected [-][HH:]MM:SS[.m...] or [-]S+[.m...][s|ms|us])")
    })
}

fn parse(text: &str) -> Option<i64> {
    let (negative, body) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (body, unit) = if let Some(b) = body.strip_suffix("ms") {
        (b, 1_000)
    } else if let Some(b) = body.strip_suffix("us") {
        (b, 1)
    } else if let Some(b) = body.strip_suffix('s') {
        (b, 1_000_000)
    } else {
        (body, 1_000_000)
    };
    let (whole, fraction) = match body.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (body, None),
    };
    let parts: Vec<&str> = whole.split(':').collect();
    if parts.len() > 3
        || parts
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    if parts.len() > 1 && unit != 1_000_000 {
        return None;
    }
    let mut seconds: i64 = 0;
    for (i, part) in parts.iter().enumerate() {
        let value: i64 = part.parse().ok()?;
        // In the colon form, minutes and seconds are at most 59 (hours are free).
        if parts.len() > 1 && i > 0 && value > 59 {
            return None;
        }
        seconds = seconds.checked_mul(60)?.checked_add(value)?;
    }
    let mut micros = seconds.checked_mul(unit)?;
    if let Some(f) = fraction {
        if !f.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        // Digits after the point, in units of `unit`: av_parse_time keeps six of them.
        let mut scale = unit;
        for digit in f.bytes().take(6) {
            scale /= 10;
            micros = micros.checked_add(i64::from(digit - b'0') * scale)?;
            if scale == 0 {
                break;
            }
        }
    }
    Some(if negative { -micros } else { micros })
}

/// `micros` as FFmpeg prints a time in seconds (`%f`: six decimals).
pub fn seconds_text(micros: i64) -> String {
    let sign = if micros < 0 { "-" } else { "" };
    let m = micros.unsigned_abs();
    format!("{sign}{}.{:06}", m / 1_000_000, m % 1_000_000)
}

/// `seconds` as C's `%f` prints a double (six decimals, `-0.000000` kept as FFmpeg would).
pub fn seconds_f64_text(seconds: f64) -> String {
    format!("{seconds:.6}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_forms_ffmpeg_accepts() {
        assert_eq!(parse("5"), Some(5_000_000));
        assert_eq!(parse("2.5"), Some(2_500_000));
        assert_eq!(parse("30.0"), Some(30_000_000));
        assert_eq!(parse("00:01:02.5"), Some(62_500_000));
        assert_eq!(parse("01:02"), Some(62_000_000));
        assert_eq!(parse("1500ms"), Some(1_500_000));
        assert_eq!(parse("250us"), Some(250));
        assert_eq!(parse("3s"), Some(3_000_000));
        assert_eq!(parse("-1.25"), Some(-1_250_000));
        assert_eq!(parse("0.1234567"), Some(123_456));
    }

    #[test]
    fn rejects_what_ffmpeg_rejects() {
        for bad in ["", "abc", "1:2:3:4", "00:61", "1.2.3", "1e3", " 1", "1:x"] {
            assert_eq!(parse(bad), None, "{bad}");
        }
        assert!(parse_duration("-t", "abc").unwrap_err().contains("-t: abc"));
    }

    #[test]
    fn prints_seconds_as_ffprobe() {
        assert_eq!(seconds_text(30_000_000), "30.000000");
        assert_eq!(seconds_text(33_333), "0.033333");
        assert_eq!(seconds_text(-1_500_000), "-1.500000");
    }
}
