//! Sets `CLAWRUN_VERSION`, the text `clawrun --version` prints after the name: the
//! package version and, when known, the commit ([`commit`]).

use std::env;
use std::path::PathBuf;

#[path = "build/commit.rs"]
mod commit;

fn main() {
    let root = PathBuf::from(env::var("CARGO_MANIFEST_DIR").expect("CARGO_MANIFEST_DIR"));
    version(&root);
}

/// Sets `CLAWRUN_VERSION` (`0.1.0 (401b58b 2026-11-25)`, or `0.1.0` without a known commit)
/// and watches the git files that move with the checked-out commit.
fn version(root: &std::path::Path) {
    let found = match commit::from_git(root) {
        Some((found, watch)) => {
            for path in watch {
                println!("cargo:rerun-if-changed={}", path.display());
            }
            Some(found)
        }
        None => commit::from_vcs_info(root),
    };
    let package = env::var("CARGO_PKG_VERSION").expect("CARGO_PKG_VERSION");
    println!(
        "cargo:rustc-env=CLAWRUN_VERSION={}",
        commit::version_text(&package, found.as_ref())
    );
}
