//! `python3` / `python`: the host's CPython (`clawrun:process/python`, see
//! `guest_tools/wit/process.wit`), run over the same filesystem from the shell's working
//! directory with its exported environment and the command's stdin. `pip` explains why it
//! cannot install anything.

use crate::io::Io;
use crate::shell::Shell;

wit_bindgen::generate!({
    path: "../wit/process.wit",
    world: "bash",
});

use clawrun::process::python::{Invocation, run};

/// `python3 ARGS...`.
pub fn python(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    if let Some(code) = pip_refusal(&argv[1..], io) {
        return code;
    }
    let mut env: Vec<(String, String)> = sh
        .vars
        .iter()
        .filter(|(_, v)| v.exported)
        .map(|(k, v)| (k.clone(), v.value.clone()))
        .collect();
    env.sort();
    let call = Invocation {
        args: argv[1..].to_vec(),
        cwd: sh.cwd.clone(),
        env,
        stdin: io.stdin.read_all(),
    };
    match run(&call) {
        Ok(done) => {
            // In the order the program wrote them, so `2>&1` interleaves as a pipe would.
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
        Err(message) => {
            io.errln(format!("{}: {message}", argv[0]));
            127
        }
    }
}

/// `pip ...`.
pub fn pip(_sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    io.errln(format!("{}: {PIP_MESSAGE}", argv[0]));
    1
}

const PIP_MESSAGE: &str = "installing packages is not possible in this sandbox (no network); \
    numpy, pandas, scipy, scikit-learn, statsmodels, matplotlib, pillow, lxml, pypdf, openpyxl, \
    xlsxwriter, pyyaml, jinja2, beautifulsoup4, networkx, sympy, seaborn and more are already \
    available to python3";

/// `python3 -m pip ...` is answered like `pip`.
fn pip_refusal(args: &[String], io: &Io) -> Option<i32> {
    let m = args.iter().position(|a| a == "-m")?;
    let module = args.get(m + 1)?;
    (module == "pip" || module == "ensurepip").then(|| {
        io.errln(format!("python3 -m {module}: {PIP_MESSAGE}"));
        1
    })
}
