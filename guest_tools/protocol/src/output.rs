//! The output size cap applied to every tool response.

/// Maximum number of characters (Unicode scalar values, not bytes) of tool output the model sees.
pub const MAX_OUTPUT_CHARS: usize = 30_000;

/// Caps `output` at [`MAX_OUTPUT_CHARS`] characters.
///
/// Longer output keeps its first [`MAX_OUTPUT_CHARS`] characters followed by the marker
/// `\n... [output truncated: N more characters]`, where `N` is the number of characters cut.
pub fn truncate_output(output: String) -> String {
    truncate_chars(output, MAX_OUTPUT_CHARS)
}

/// [`truncate_output`] with an explicit limit (exposed for tests and tools with tighter caps).
pub fn truncate_chars(output: String, max_chars: usize) -> String {
    truncate_chars_counted(output, max_chars).0
}

/// [`truncate_output`], also returning how many characters were cut (0 when none).
pub fn truncate_counted(output: String) -> (String, u64) {
    truncate_chars_counted(output, MAX_OUTPUT_CHARS)
}

fn truncate_chars_counted(mut output: String, max_chars: usize) -> (String, u64) {
    let Some((cut_at, _)) = output.char_indices().nth(max_chars) else {
        return (output, 0);
    };
    let cut = output[cut_at..].chars().count();
    output.truncate(cut_at);
    output.push_str(&format!("\n... [output truncated: {cut} more characters]"));
    (output, cut as u64)
}

/// The line the model reads after a command's output when it failed: `[exit code: N]` for a
/// non-zero status, `None` for 0.
pub fn exit_line(status: i32) -> Option<String> {
    (status != 0).then(|| format!("[exit code: {status}]"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_untouched() {
        assert_eq!(truncate_output("hello".into()), "hello");
        assert_eq!(truncate_output(String::new()), "");
    }

    #[test]
    fn exactly_at_limit_is_untouched() {
        let s = "x".repeat(MAX_OUTPUT_CHARS);
        assert_eq!(truncate_output(s.clone()), s);
    }

    #[test]
    fn one_over_limit_is_cut() {
        let s = "x".repeat(MAX_OUTPUT_CHARS + 1);
        let out = truncate_output(s);
        let expected = format!(
            "{}\n... [output truncated: 1 more characters]",
            "x".repeat(MAX_OUTPUT_CHARS)
        );
        assert_eq!(out, expected);
    }

    #[test]
    fn counts_characters_not_bytes() {
        // 'é' is two bytes in UTF-8; the cap is about characters.
        let s = "é".repeat(MAX_OUTPUT_CHARS);
        assert_eq!(truncate_output(s.clone()), s);

        let s = "é".repeat(MAX_OUTPUT_CHARS + 5);
        let out = truncate_output(s);
        assert!(out.starts_with(&"é".repeat(MAX_OUTPUT_CHARS)));
        assert!(out.ends_with("\n... [output truncated: 5 more characters]"));
        assert_eq!(out.chars().filter(|&c| c == 'é').count(), MAX_OUTPUT_CHARS);
    }

    #[test]
    fn multibyte_boundary_is_respected() {
        let out = truncate_chars("ab😀cd".into(), 3);
        assert_eq!(out, "ab😀\n... [output truncated: 2 more characters]");
    }
}
