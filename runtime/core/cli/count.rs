//! Whole-number flags that must be at least 1 (`-j`, `--trials`, `--k`, `--budget`, ...): one
//! parser, so that every such flag answers 0 the same way ("must be at least 1").

use std::fmt::Display;
use std::str::FromStr;

/// `text` as a whole number of at least 1.
pub fn at_least_one<T>(text: &str) -> Result<T, String>
where
    T: FromStr + PartialEq + Default,
    T::Err: Display,
{
    match text.trim().parse::<T>() {
        Ok(n) if n == T::default() => Err("must be at least 1".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::at_least_one;

    #[test]
    fn zero_and_junk_are_refused_alike_for_every_width() {
        assert_eq!(at_least_one::<u32>("0"), Err("must be at least 1".into()));
        assert_eq!(at_least_one::<u64>("0"), Err("must be at least 1".into()));
        assert_eq!(at_least_one::<usize>("3"), Ok(3));
        assert!(at_least_one::<u32>("-1").is_err());
        assert!(at_least_one::<u32>("x").is_err());
    }
}
