//! Programs the host starts for the shell (`clawrun:process`, see `guest_tools/wit/process.wit`):
//! each runs as its own sandboxed instance over the same filesystem, from the shell's working
//! directory, with its exported environment and the command's stdin; the shell waits for it.

use crate::io::Io;
use crate::shell::Shell;

wit_bindgen::generate!({
    path: "../wit/process.wit",
    world: "bash",
});

pub use clawrun::process::{media, python};

use clawrun::process::python::{Completion, Invocation};

/// The invocation of `argv` (`argv[0]` is the program, not passed) as the shell runs it.
pub fn invocation(sh: &Shell, argv: &[String], io: &Io) -> Invocation {
    let mut env: Vec<(String, String)> = sh
        .vars
        .iter()
        .filter(|(_, v)| v.exported)
        .map(|(k, v)| (k.clone(), v.value.clone()))
        .collect();
    env.sort();
    Invocation {
        args: argv[1..].to_vec(),
        cwd: sh.cwd.clone(),
        env,
        stdin: io.stdin.read_all(),
    }
}

/// Writes what the program wrote, in the order it wrote it (so `2>&1` interleaves as a pipe
/// would); its exit status.
pub fn replay(done: &Completion, io: &Io) -> i32 {
    let (mut out, mut err) = (0usize, 0usize);
    for run in &done.order {
        let (data, at) = if run.stderr {
            (&done.stderr, &mut err)
        } else {
            (&done.stdout, &mut out)
        };
        let end = (*at + run.bytes as usize).min(data.len());
        if run.stderr {
            io.err(&data[*at..end]);
        } else {
            io.out(&data[*at..end]);
        }
        *at = end;
    }
    io.out(&done.stdout[out..]);
    io.err(&done.stderr[err..]);
    done.status
}
