//! Programs a sandbox can run: WASI p2 components, and core wasip1 modules (run on clawrun's
//! own preview 1 host, see `sandbox::p1`).

use crate::error::SandboxError;

/// The sandbox's results.
type Result<T, E = SandboxError> = std::result::Result<T, E>;

/// What kind of WebAssembly binary a program is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProgramKind {
    /// A component (WASI preview 2).
    Component,
    /// A core module targeting WASI preview 1; run on our preview 1 host.
    CoreWasip1,
}

/// Tells a component from a core module by its header.
pub fn detect(bytes: &[u8]) -> Result<ProgramKind> {
    if bytes.len() < 8 || &bytes[..4] != b"\0asm" {
        return Err(SandboxError::NotAProgram(
            "not a WebAssembly binary (it does not start with the `\\0asm` magic bytes)".into(),
        ));
    }
    match [bytes[4], bytes[5], bytes[6], bytes[7]] {
        [1, 0, 0, 0] => Ok(ProgramKind::CoreWasip1),
        [0x0d, 0, 1, 0] => Ok(ProgramKind::Component),
        [a, b, c, d] => Err(SandboxError::NotAProgram(format!(
            "unsupported WebAssembly binary version {a:#04x} {b:#04x} {c:#04x} {d:#04x}"
        ))),
    }
}

/// Whether a wasip1 core module is a reactor to run through its `run` export: it exports
/// `run` and no `_start` (a command). Such modules (the Python interpreter) run on
/// [`crate::python::PythonRuntime`].
pub fn is_run_reactor(module: &[u8]) -> Result<bool> {
    let mut run = false;
    let mut start = false;
    for payload in wasmparser::Parser::new(0).parse_all(module) {
        if let wasmparser::Payload::ExportSection(exports) =
            payload.map_err(|e| SandboxError::NotAProgram(format!("reading the module: {e}")))?
        {
            for export in exports {
                let export = export.map_err(|e| {
                    SandboxError::NotAProgram(format!("reading the module's exports: {e}"))
                })?;
                if export.kind == wasmparser::ExternalKind::Func {
                    run |= export.name == "run";
                    start |= export.name == "_start";
                }
            }
        }
    }
    Ok(run && !start)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_kinds_and_rejects_garbage() {
        assert_eq!(detect(b"\0asm\x01\0\0\0").unwrap(), ProgramKind::CoreWasip1);
        assert_eq!(
            detect(b"\0asm\x0d\0\x01\0").unwrap(),
            ProgramKind::Component
        );
        assert!(
            detect(b"#!/bin/sh\n")
                .unwrap_err()
                .to_string()
                .contains("not a WebAssembly")
        );
        assert!(
            detect(b"\0asm\x02\0\0\0")
                .unwrap_err()
                .to_string()
                .contains("version")
        );
    }
}
