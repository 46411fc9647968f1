//! The on-disk cache of compiled components, keyed by blake3 of the component and the engine's
//! compatibility hash, so each program is compiled once per machine and wasmtime build.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use wasmtime::Engine;
use wasmtime::component::Component;

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

    fn path_for(&self, key: &blake3::Hash) -> Option<PathBuf> {
        let dir = self.dir.as_ref()?;
        Some(
            dir.join("components")
                .join(format!("{}-{}.cwasm", key.to_hex(), self.engine_key)),
        )
    }

    /// The component compiled from the bytes `key` names: loaded from the cache if present,
    /// else built by `build`, compiled and stored.
    pub fn load_or_compile(
        &self,
        engine: &Engine,
        key: &blake3::Hash,
        build: impl FnOnce() -> Result<Vec<u8>>,
    ) -> Result<Component> {
        let path = self.path_for(key);
        if let Some(path) = path.as_deref().filter(|p| p.exists()) {
            // SAFETY: the cache only holds artifacts this engine configuration serialised
            // itself (the file name carries the engine's compatibility hash); a file that
            // fails to load is recompiled below.
            match unsafe { Component::deserialize_file(engine, path) } {
                Ok(component) => return Ok(component),
                Err(e) => tracing::warn!("ignoring unusable cache entry {}: {e}", path.display()),
            }
        }
        let bytes = build()?;
        let compiled = engine
            .precompile_component(&bytes)
            .map_err(anyhow::Error::from)
            .context("compiling the component")?;
        if let Some(path) = path.as_deref()
            && let Err(e) = store_atomically(path, &compiled)
        {
            tracing::warn!("could not write compile cache {}: {e:#}", path.display());
        }
        // SAFETY: `compiled` was produced by `precompile_component` on this very engine.
        let component = unsafe { Component::deserialize(engine, &compiled) }
            .map_err(anyhow::Error::from)
            .context("loading the compiled component")?;
        Ok(component)
    }
}

/// Writes `bytes` to `path` through a temporary file and a rename, so readers never see a
/// partial artifact.
fn store_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().context("cache path has no parent")?;
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
