//! `python3` / `python`: the host's CPython (`clawrun:process/python`, see
//! `guest_tools/wit/process.wit`), run over the same filesystem from the shell's working
//! directory with its exported environment and the command's stdin. `pip` explains why it
//! cannot install anything.

use crate::io::Io;
use crate::shell::Shell;

use super::child;

/// `python3 ARGS...`.
pub fn python(sh: &mut Shell, argv: &[String], io: &Io) -> i32 {
    if let Some(code) = pip_refusal(&argv[1..], io) {
        return code;
    }
    match child::python::run(&child::invocation(sh, argv, io)) {
        Ok(done) => child::replay(&done, io),
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
