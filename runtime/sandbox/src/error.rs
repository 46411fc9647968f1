//! The sandbox's errors, typed so that a caller can tell a program the sandbox cannot run from
//! an engine that could not be made; wasmtime's own errors are kept as their source.

/// Why the sandbox could not load or run a program (what the program itself does, its exit
/// status, traps and limits, is a [`crate::RunOutcome`], not an error).
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The engine or its linkers could not be made.
    #[error("setting up the wasmtime engine")]
    Engine(#[source] wasmtime::Error),
    /// The bytes are not a WebAssembly program the sandbox knows.
    #[error("{0}")]
    NotAProgram(String),
    /// Compiling the program, or loading its compiled form, failed.
    #[error("{what} the {kind}")]
    Compile {
        /// `compiling` or `loading the compiled`.
        what: &'static str,
        /// `component` or `module`.
        kind: &'static str,
        /// wasmtime's error.
        #[source]
        source: wasmtime::Error,
    },
    /// The program imports what the sandbox does not provide.
    #[error("the program needs imports the sandbox does not provide")]
    MissingImports(#[source] wasmtime::Error),
    /// The program is a library, not a command.
    #[error("{0}")]
    NotACommand(String),
    /// A mount point names no folder of the VFS.
    #[error("mount point {0} is not a directory in the VFS")]
    MountPoint(String),
    /// The program's store could not be set up.
    #[error("setting up the program's store")]
    Store(#[source] wasmtime::Error),
    /// A file the sandbox needs (the interpreter, its standard library) could not be read.
    #[error("reading {}", path.display())]
    Read {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// A folder the program should start in is not one.
    #[error("{0}")]
    NotADirectory(String),
    /// The VFS refused a layer the sandbox builds (the interpreter's standard library).
    #[error("building the interpreter's filesystem layer")]
    Layer(#[source] clawrun_vfs::VfsError),
    /// The thread a program runs on could not start or panicked.
    #[error("{0}")]
    Thread(String),
    /// Our `wasi:filesystem` no longer shadows wasmtime-wasi's (a wasmtime bump without
    /// re-copying `runtime/sandbox/wit`).
    #[error("{0}")]
    WitDrift(String),
}
