//! `ffprobe` and `ffmpeg`: FFmpeg's tools over its libraries built for WASI (the host's media
//! component, `guest_tools/media`), run over the same filesystem as the shell.

use super::child;
use crate::io::Io;
use crate::shell::Shell;

/// `ffprobe ARGS...` or `ffmpeg ARGS...`.
pub fn media(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    let program = argv[0].rsplit('/').next().unwrap_or(&argv[0]).to_string();
    match child::media::run(&program, &child::invocation(sh, argv, io)) {
        Ok(done) => child::replay(&done, io),
        Err(message) => {
            io.errln(format!("{program}: {message}"));
            127
        }
    }
}
