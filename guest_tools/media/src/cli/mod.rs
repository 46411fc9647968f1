//! The command lines this tool understands: `ffprobe` ([`ffprobe`]) and the `ffmpeg` subset
//! ([`ffmpeg`]), parsed into plans without touching any file.

pub mod ffmpeg;
pub mod ffprobe;

/// An option the subset does not implement: the error names it and says what is supported.
pub fn unsupported(program: &str, option: &str, supported: &str) -> String {
    format!(
        "{program}: option {option} is not supported by clawrun's {program} (supported: {supported})"
    )
}

/// The value after option `option`, or an error naming it.
pub fn value<'a>(
    program: &str,
    option: &str,
    rest: &mut impl Iterator<Item = &'a String>,
) -> Result<&'a str, String> {
    rest.next()
        .map(String::as_str)
        .ok_or_else(|| format!("{program}: missing argument for option '{option}'"))
}
