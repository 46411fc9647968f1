//! `ffprobe`: the probe document of one file, printed by the writer asked for.

use super::{Ran, resolve};
use crate::cli::ffprobe::{Writer, parse};
use crate::ff::input::Input;
use crate::probe::{fill, write};

/// Runs `ffprobe ARGS` in `cwd`.
pub fn run(args: &[String], cwd: &str) -> Ran {
    let probe = match parse(args) {
        Ok(p) => p,
        Err(e) => {
            return Ran {
                stderr: format!("{e}\n"),
                status: 1,
                ..Ran::default()
            };
        }
    };
    match Input::open(&resolve(cwd, &probe.input)) {
        Ok(input) => Ran {
            stdout: write::render(&fill::document(&input, &probe.input), &probe),
            ..Ran::default()
        },
        Err(e) => {
            // FFmpeg's message names the path as given, not as resolved.
            let reason = e.rsplit_once(": ").map_or(e.as_str(), |(_, r)| r);
            Ran {
                stdout: if probe.writer == Writer::Json {
                    "{\n\n}\n".into()
                } else {
                    String::new()
                },
                stderr: if probe.print_errors {
                    format!("{}: {reason}\n", probe.input)
                } else {
                    String::new()
                },
                status: 1,
            }
        }
    }
}
