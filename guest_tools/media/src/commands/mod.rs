//! The `ffprobe` and `ffmpeg` commands over this tool's decoder: each takes its arguments and
//! the working directory, and gives what a process gives (stdout, stderr, exit status).

pub mod ffmpeg;
pub mod ffprobe;

/// What a command run gives back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ran {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Exit status.
    pub status: i32,
}

/// `path` resolved against `cwd` (absolute paths as they are).
pub fn resolve(cwd: &str, path: &str) -> String {
    clawrun_tool_protocol::ToolPath::resolve(cwd, path).display
}
