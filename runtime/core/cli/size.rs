//! Sizes on the command line: `512`, `64KiB`, `256MiB`, `2GiB` (also `K`, `M`, `G`, `KB`, ...,
//! all binary multiples, as `ulimit` and container runtimes read them).

/// Parses a size in bytes with an optional binary suffix.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let split = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(split);
    let shift = match suffix.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kb" | "kib" => 10,
        "m" | "mb" | "mib" => 20,
        "g" | "gb" | "gib" => 30,
        "t" | "tb" | "tib" => 40,
        _ => {
            return Err(format!(
                "{text:?} is not a size: write a number of bytes with an optional KiB, MiB, GiB or TiB suffix (e.g. 512MiB)"
            ));
        }
    };
    let n: u64 = digits.parse().map_err(|_| {
        format!("{text:?} is not a size: it must start with a whole number (e.g. 512MiB)")
    })?;
    n.checked_mul(1u64 << shift)
        .ok_or_else(|| format!("{text:?} is too large"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_with_and_without_suffixes() {
        assert_eq!(parse_size("512"), Ok(512));
        assert_eq!(parse_size("64KiB"), Ok(64 << 10));
        assert_eq!(parse_size("256MiB"), Ok(256 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert_eq!(parse_size("1 gb"), Ok(1 << 30));
        for bad in ["", "MiB", "12XB", "-1", "1.5GiB", "99999999999999TiB"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
    }
}
