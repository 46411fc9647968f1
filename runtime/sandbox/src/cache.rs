//! The on-disk cache of compiled programs (components and core modules), keyed by blake3 of
//! the program and the engine's compatibility hash, so each program is compiled once per
//! machine and wasmtime build.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use crate::error::SandboxError;
use wasmtime::component::Component;
use wasmtime::{Engine, Module};

/// What the cache compiles and holds: a component or a core module.
pub trait Compiled: Sized {
    /// What the artifact is, for messages.
    const WHAT: &'static str;
    /// Compiles `bytes` into an artifact `engine` can load.
    fn precompile(engine: &Engine, bytes: &[u8]) -> wasmtime::Result<Vec<u8>>;
    /// Loads an artifact from a file.
    ///
    /// # Safety
    /// The file must hold an artifact serialised by an engine of this configuration.
    unsafe fn deserialize_file(engine: &Engine, path: &Path) -> wasmtime::Result<Self>;
    /// Loads an artifact from memory.
    ///
    /// # Safety
    /// `bytes` must be an artifact serialised by an engine of this configuration.
    unsafe fn deserialize(engine: &Engine, bytes: &[u8]) -> wasmtime::Result<Self>;
}

impl Compiled for Component {
    const WHAT: &'static str = "component";
    fn precompile(engine: &Engine, bytes: &[u8]) -> wasmtime::Result<Vec<u8>> {
        engine.precompile_component(bytes)
    }
    unsafe fn deserialize_file(engine: &Engine, path: &Path) -> wasmtime::Result<Self> {
        // SAFETY: the caller's contract.
        unsafe { Component::deserialize_file(engine, path) }
    }
    unsafe fn deserialize(engine: &Engine, bytes: &[u8]) -> wasmtime::Result<Self> {
        // SAFETY: the caller's contract.
        unsafe { Component::deserialize(engine, bytes) }
    }
}

impl Compiled for Module {
    const WHAT: &'static str = "module";
    fn precompile(engine: &Engine, bytes: &[u8]) -> wasmtime::Result<Vec<u8>> {
        engine.precompile_module(bytes)
    }
    unsafe fn deserialize_file(engine: &Engine, path: &Path) -> wasmtime::Result<Self> {
        // SAFETY: the caller's contract.
        unsafe { Module::deserialize_file(engine, path) }
    }
    unsafe fn deserialize(engine: &Engine, bytes: &[u8]) -> wasmtime::Result<Self> {
        // SAFETY: the caller's contract.
        unsafe { Module::deserialize(engine, bytes) }
    }
}

/// Where compiled components live.
#[derive(Clone, Debug)]
pub struct ComponentCache {
    dir: Option<PathBuf>,
    engine_key: String,
}

/// A `Hasher` that feeds blake3, so the engine's compatibility hash is stable across runs.
struct Blake3Hasher(blake3::Hasher);

impl Hasher for Blake3Hasher {
    fn finish(&self) -> u64 {
        let h = self.0.finalize();
        u64::from_le_bytes(h.as_bytes()[..8].try_into().expect("8 bytes"))
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

impl ComponentCache {
    /// A cache in `dir` (created on first store), or no cache at all when `dir` is `None`.
    pub fn new(engine: &Engine, dir: Option<PathBuf>) -> Self {
        let mut h = Blake3Hasher(blake3::Hasher::new());
        engine.precompile_compatibility_hash().hash(&mut h);
        let engine_key = h.0.finalize().to_hex()[..16].to_string();
        Self { dir, engine_key }
    }

    /// The default cache folder: `$CLAWRUN_CACHE_DIR`, else `$XDG_CACHE_HOME/clawrun`, else
    /// `~/.cache/clawrun`; `None` if none can be determined.
    pub fn default_dir() -> Option<PathBuf> {
        if let Some(dir) = std::env::var_os("CLAWRUN_CACHE_DIR") {
            return Some(PathBuf::from(dir));
        }
        if let Some(dir) = std::env::var_os("XDG_CACHE_HOME") {
            return Some(PathBuf::from(dir).join("clawrun"));
        }
        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache").join("clawrun"))
    }

    /// Whether the cache holds a compiled artifact for `key` (so that a load is quick).
    pub fn holds(&self, key: &blake3::Hash) -> bool {
        self.path_for(key).is_some_and(|p| p.exists())
    }

    fn path_for(&self, key: &blake3::Hash) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(
            dir.join("components")
                .join(format!("{}-{}.cwasm", key.to_hex(), self.engine_key)),
        )
    }

    /// The component or module compiled from the bytes `key` names: loaded from the cache if
    /// present, else built by `build`, compiled and stored. Compiling takes the entry's lock
    /// (`flock` on `NAME.lock` beside it, freed by the kernel however its holder ends), so
    /// that processes sharing the cache — workers, or the shards of a cluster on a shared
    /// folder — compile an artifact once: the others wait, then load it.
    pub fn load_or_compile<C: Compiled>(
        &self,
        engine: &Engine,
        key: &blake3::Hash,
        build: impl FnOnce() -> Result<Vec<u8>, SandboxError>,
    ) -> Result<C, SandboxError> {
        let path = self.path_for(key);
        if let Some(loaded) = path.as_deref().and_then(|p| Self::load_entry(engine, p)) {
            return Ok(loaded);
        }
        let _compiling = path.as_deref().and_then(lock_entry);
        if let Some(loaded) = path.as_deref().and_then(|p| Self::load_entry(engine, p)) {
            // Another process compiled it while this one waited.
            return Ok(loaded);
        }
        self.compile_and_store(engine, path.as_deref(), build)
    }

    /// The artifact at `path`, when there is one that loads.
    fn load_entry<C: Compiled>(engine: &Engine, path: &Path) -> Option<C> {
        if path.exists() {
            // SAFETY: the cache only holds artifacts this engine configuration serialised
            // itself (the file name carries the engine's compatibility hash); a file that
            // fails to load is recompiled below.
            match unsafe { C::deserialize_file(engine, path) } {
                Ok(compiled) => return Some(compiled),
                Err(e) => tracing::warn!("ignoring unusable cache entry {}: {e}", path.display()),
            }
        }
        None
    }

    /// Builds, compiles and (when the cache has a folder) stores the artifact at `path`.
    fn compile_and_store<C: Compiled>(
        &self,
        engine: &Engine,
        path: Option<&Path>,
        build: impl FnOnce() -> Result<Vec<u8>, SandboxError>,
    ) -> Result<C, SandboxError> {
        let bytes = build()?;
        let compiled = C::precompile(engine, &bytes).map_err(|source| SandboxError::Compile {
            what: "compiling",
            kind: C::WHAT,
            source,
        })?;
        if let Some(path) = path
            && let Err(e) = store_atomically(path, &compiled)
        {
            tracing::warn!("could not write compile cache {}: {e:#}", path.display());
        }
        // SAFETY: `compiled` was produced by `C::precompile` on this very engine.
        unsafe { C::deserialize(engine, &compiled) }.map_err(|source| SandboxError::Compile {
            what: "loading the compiled",
            kind: C::WHAT,
            source,
        })
    }
}

/// Takes the compile lock of the cache entry at `path` (`NAME.lock` beside it), waiting for a
/// process that holds it; `None` when the lock cannot be had (a read-only cache: compiling
/// then goes ahead unlocked, as before).
fn lock_entry(path: &Path) -> Option<std::fs::File> {
    let dir = path.parent()?;
    std::fs::create_dir_all(dir).ok()?;
    let name = path.file_name()?.to_str()?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(format!("{name}.lock")))
        .ok()?;
    if file.try_lock().is_err() {
        tracing::info!("waiting for another process compiling {name}");
        file.lock().ok()?;
    }
    Some(file)
}

/// Writes `bytes` to `path` through a temporary file and a rename, so readers never see a
/// partial artifact.
fn store_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("cache path has no parent"))?;
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("entry"),
        std::process::id()
    ));
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}
