//! Builds the agent's tools (`guest_tools/`, a cargo workspace of its own) for wasm32-wasip2 and
//! embeds them in this crate (and so in the `clawrun` binary), so one file carries everything.
//!
//! The nested build uses its own target folder (`<target>/guest_tools`, or
//! `$CLAWRUN_GUEST_TARGET_DIR`), so it never waits on the outer build's lock.

use std::env;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Command;

/// (tool name as agents know it, binary name in guest_tools).
const TOOLS: &[(&str, &str)] = &[
    ("Bash", "bash"),
    ("Read", "read"),
    ("Write", "write"),
    ("Edit", "edit"),
    ("Glob", "glob"),
    ("Grep", "grep"),
    ("ReadMedia", "media"),
];

/// Folders and files whose changes rebuild the tools.
const SOURCES: &[&str] = &[
    "Cargo.toml",
    "Cargo.lock",
    "protocol",
    "pdf",
    "bash",
    "read",
    "write",
    "edit",
    "glob",
    "grep",
    "media",
    "wit",
];

fn main() {
    let manifest = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    let guest = manifest.join("../../guest_tools");
    for s in SOURCES {
        println!("cargo:rerun-if-changed=../../guest_tools/{s}");
    }
    println!("cargo:rerun-if-env-changed=CLAWRUN_GUEST_TARGET_DIR");
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    // OUT_DIR = <target>/<profile>/build/clawrun-<hash>/out
    let target_dir = env::var_os("CLAWRUN_GUEST_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            out.ancestors()
                .nth(4)
                .expect("OUT_DIR is inside the target folder")
                .join("guest_tools")
        });

    let mut cargo = Command::new(env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo
        .args([
            "build",
            "--release",
            "--locked",
            "--target",
            "wasm32-wasip2",
        ])
        .arg("--manifest-path")
        .arg(guest.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir);
    for var in [
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
    ] {
        cargo.env_remove(var);
    }
    let status = cargo.status().expect("running cargo to build guest_tools");
    if !status.success() {
        panic!(
            "building guest_tools for wasm32-wasip2 failed (is the target installed? \
             `rustup target add wasm32-wasip2`)"
        );
    }

    let mut code =
        String::from("/// The agent tools embedded at build time: (name, component bytes).\n");
    code.push_str("pub static EMBEDDED: &[(&str, &[u8])] = &[\n");
    for (name, bin) in TOOLS {
        let wasm = target_dir
            .join("wasm32-wasip2/release")
            .join(format!("{bin}.wasm"));
        assert!(wasm.exists(), "guest tool {} was not built", wasm.display());
        writeln!(
            code,
            "    ({name:?}, include_bytes!({:?})),",
            wasm.display().to_string()
        )
        .expect("write to string");
    }
    code.push_str("];\n");
    std::fs::write(out.join("guest_tools.rs"), code).expect("writing guest_tools.rs");
}
