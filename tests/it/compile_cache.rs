//! The on-disk compile cache: keyed by blake3 of the program and the engine's compatibility
//! hash, reused by later engines, and a damaged entry is recompiled instead of trusted.

use crate::common;
use clawrun::sandbox::{RunConfig, Sandbox, SandboxConfig, Status};
use common::{Target, guest, vfs_with_dirs};

fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("components"))
        .map(|rd| {
            rd.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                // The compile locks beside the entries are not entries.
                .filter(|n| !n.ends_with(".lock"))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

fn runs(sandbox: &Sandbox, wasm: &[u8]) {
    let program = sandbox.load(wasm).unwrap();
    let out = sandbox
        .run(
            &program,
            vfs_with_dirs(&[]),
            RunConfig {
                args: vec!["exitcode".into(), "0".into()],
                ..RunConfig::default()
            },
        )
        .unwrap();
    assert_eq!(out.status, Status::Exited(0));
}

#[test]
fn compiled_components_are_cached_reused_and_damage_is_recompiled() {
    let cache = tempfile::tempdir().unwrap();
    let config = SandboxConfig {
        cache_dir: Some(cache.path().to_path_buf()),
        pooling: false,
    };
    let wasm = guest("exitcode", Target::P2);
    let first = Sandbox::new(config.clone()).unwrap();
    runs(&first, &wasm);
    let names = entries(cache.path());
    assert_eq!(names.len(), 1, "{names:?}");
    let (key, engine) = names[0].trim_end_matches(".cwasm").split_once('-').unwrap();
    assert_eq!(key.len(), 64);
    assert_eq!(engine.len(), 16);
    let path = cache.path().join("components").join(&names[0]);
    let stamp = std::fs::metadata(&path).unwrap().modified().unwrap();

    // A new engine (a new process, in effect) loads the artifact instead of compiling.
    let second = Sandbox::new(config.clone()).unwrap();
    runs(&second, &wasm);
    assert_eq!(entries(cache.path()), names);
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), stamp);

    // A wasip1 module gets its own entry (it is adapted before compiling).
    runs(&second, &guest("exitcode", Target::P1));
    assert_eq!(entries(cache.path()).len(), 2);

    // A damaged entry is not trusted: it is recompiled and rewritten. (Replaced by rename, as
    // the cache itself writes: truncating a file that a live engine has mapped is a SIGBUS.)
    drop((first, second));
    let damaged = cache.path().join("damaged");
    std::fs::write(&damaged, b"not a compiled component").unwrap();
    std::fs::rename(&damaged, &path).unwrap();
    let third = Sandbox::new(config).unwrap();
    runs(&third, &wasm);
    assert!(std::fs::read(&path).unwrap().len() > 1000);
}

#[test]
fn processes_sharing_a_cache_compile_an_artifact_once() {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let cache = tempfile::tempdir().unwrap();
    let engine = wasmtime::Engine::default();
    let key = blake3::hash(b"an artifact compiled by several workers at once");
    let builds = AtomicUsize::new(0);
    // The smallest module: its compile is quick, so the build step waits to overlap.
    let empty_module = b"\0asm\x01\0\0\0".to_vec();
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                // Each its own cache handle and lock file descriptor, as separate processes.
                let handle = clawrun::sandbox::cache::ComponentCache::new(
                    &engine,
                    Some(cache.path().to_path_buf()),
                );
                let _: wasmtime::Module = handle
                    .load_or_compile(&engine, &key, || {
                        builds.fetch_add(1, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(300));
                        Ok(empty_module.clone())
                    })
                    .unwrap();
            });
        }
    });
    assert_eq!(
        builds.load(Ordering::SeqCst),
        1,
        "compiled once, loaded thrice"
    );
    assert_eq!(entries(cache.path()).len(), 1);
}
