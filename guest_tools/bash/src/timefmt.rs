//! Calendar arithmetic and `strftime`-style formatting in UTC (the sandbox has no time zones).

/// A broken-down UTC time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tm {
    /// Year, e.g. 2024.
    pub year: i64,
    /// Month 1..=12.
    pub month: u32,
    /// Day of month 1..=31.
    pub day: u32,
    /// Hour 0..=23.
    pub hour: u32,
    /// Minute 0..=59.
    pub min: u32,
    /// Second 0..=59.
    pub sec: u32,
    /// Day of week, 0 = Sunday.
    pub wday: u32,
    /// Day of year, 0-based.
    pub yday: u32,
}

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];
const MONTHS_LONG: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];
const DAYS_LONG: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];

/// Days since 1970-01-01 for a civil date (Howard Hinnant's algorithm).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// Converts seconds since the epoch into a UTC broken-down time.
pub fn gmtime(secs: i64) -> Tm {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = if m <= 2 { y + 1 } else { y };
    let yday = (days - days_from_civil(year, 1, 1)) as u32;
    Tm {
        year,
        month: m,
        day: d,
        hour: (rem / 3600) as u32,
        min: (rem % 3600 / 60) as u32,
        sec: (rem % 60) as u32,
        wday: (days + 4).rem_euclid(7) as u32,
        yday,
    }
}

/// Formats `tm` with a `strftime` format string (`secs` supplies `%s`).
pub fn strftime(fmt: &str, tm: &Tm, secs: i64, nanos: u32) -> String {
    let mut out = String::new();
    let mut chars = fmt.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            out.push(c);
            continue;
        }
        // Optional flag: `-` (no padding).
        let mut nopad = false;
        if chars.peek() == Some(&'-') {
            nopad = true;
            chars.next();
        }
        let Some(spec) = chars.next() else {
            out.push('%');
            break;
        };
        let num = |v: i64, w: usize| {
            if nopad {
                v.to_string()
            } else {
                format!("{v:0w$}")
            }
        };
        let s = match spec {
            'Y' => tm.year.to_string(),
            'y' => num(tm.year % 100, 2),
            'C' => num(tm.year / 100, 2),
            'm' => num(i64::from(tm.month), 2),
            'd' => num(i64::from(tm.day), 2),
            'e' => {
                if nopad {
                    tm.day.to_string()
                } else {
                    format!("{:>2}", tm.day)
                }
            }
            'H' => num(i64::from(tm.hour), 2),
            'I' => num(i64::from((tm.hour + 11) % 12 + 1), 2),
            'M' => num(i64::from(tm.min), 2),
            'S' => num(i64::from(tm.sec), 2),
            'p' => if tm.hour < 12 { "AM" } else { "PM" }.to_owned(),
            'j' => num(i64::from(tm.yday) + 1, 3),
            'a' => DAYS[tm.wday as usize].to_owned(),
            'A' => DAYS_LONG[tm.wday as usize].to_owned(),
            'b' | 'h' => MONTHS[tm.month as usize - 1].to_owned(),
            'B' => MONTHS_LONG[tm.month as usize - 1].to_owned(),
            'u' => (if tm.wday == 0 { 7 } else { tm.wday }).to_string(),
            'w' => tm.wday.to_string(),
            's' => secs.to_string(),
            'N' => format!("{nanos:09}"),
            'Z' => "UTC".to_owned(),
            'z' => "+0000".to_owned(),
            'F' => format!("{}-{:02}-{:02}", tm.year, tm.month, tm.day),
            'D' => format!("{:02}/{:02}/{:02}", tm.month, tm.day, tm.year % 100),
            'T' => format!("{:02}:{:02}:{:02}", tm.hour, tm.min, tm.sec),
            'R' => format!("{:02}:{:02}", tm.hour, tm.min),
            'c' => strftime("%a %b %e %H:%M:%S %Y", tm, secs, nanos),
            'x' => strftime("%m/%d/%y", tm, secs, nanos),
            'X' => strftime("%H:%M:%S", tm, secs, nanos),
            'n' => "\n".to_owned(),
            't' => "\t".to_owned(),
            '%' => "%".to_owned(),
            other => format!("%{other}"),
        };
        out.push_str(&s);
    }
    out
}

/// Seconds since the epoch of a `std::time::SystemTime`, with nanoseconds.
pub fn epoch(t: std::time::SystemTime) -> (i64, u32) {
    match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(e) => (-(e.duration().as_secs() as i64), 0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_roundtrip() {
        let tm = gmtime(1_709_287_201); // 2024-03-01 10:00:01 UTC, a Friday
        assert_eq!((tm.year, tm.month, tm.day), (2024, 3, 1));
        assert_eq!((tm.hour, tm.min, tm.sec, tm.wday), (10, 0, 1, 5));
        assert_eq!(
            strftime("%Y-%m-%d %H:%M:%S %a %j", &tm, 0, 0),
            "2024-03-01 10:00:01 Fri 061"
        );
        assert_eq!(days_from_civil(1970, 1, 1), 0);
    }
}
