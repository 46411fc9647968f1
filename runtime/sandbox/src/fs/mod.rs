//! clawrun's own `wasi:filesystem` host, served from the in-memory [`Vfs`].
//!
//! wasmtime-wasi 48 has no pluggable filesystem, so this module generates its own bindings from
//! the exact WIT version that wasmtime-wasi ships (`runtime/sandbox/wit`) and installs them over
//! the stock implementation with linker shadowing. Every host call passes through
//! [`FsFaultHook`] first, so faults can be injected at the host-call boundary.
//!
//! Capability rules: a guest sees only its preopens; each preopen is a subtree of the VFS with
//! read-only or read-write rights; absolute paths, `..` above the directory handle a path is
//! resolved from and symlinks whose target leaves that directory (absolute targets included)
//! are refused with `not-permitted`, as cap-std refuses them. Symlinks with absolute targets
//! cannot be created (`not-permitted`, as the WIT says).

mod descriptor;
mod error;
mod host;
mod path;
mod stream;

use std::sync::{Arc, Mutex, MutexGuard};

use clawrun_vfs::Vfs;

pub use self::descriptor::{Descriptor, DirEntryStream, Preopen};
pub use self::error::FsError;

use crate::fault::{FsCall, FsFault, FsFaultHook, FsOp, NoFaults};

/// Bindings generated from `runtime/sandbox/wit` (the WIT that wasmtime-wasi 48.0.8 ships).
#[allow(missing_docs)] // generated
pub mod bindings {
    wasmtime::component::bindgen!({
        path: "wit",
        world: "clawrun:sandbox/host",
        with: {
            "wasi:io": wasmtime_wasi_io::bindings::wasi::io,
            "wasi:clocks/wall-clock": wasmtime_wasi::p2::bindings::clocks::wall_clock,
            "wasi:filesystem/types.descriptor": super::Descriptor,
            "wasi:filesystem/types.directory-entry-stream": super::DirEntryStream,
        },
        trappable_error_type: {
            "wasi:filesystem/types.error-code" => super::FsError,
        },
        imports: { default: trappable },
        require_store_data_send: true,
    });
}

pub use bindings::wasi::filesystem::types::ErrorCode;

/// Mutable filesystem state shared by a store's descriptors and streams.
pub struct FsState {
    /// The trial's filesystem.
    pub vfs: Vfs,
    /// Asked before every filesystem host call.
    pub hook: Box<dyn FsFaultHook>,
    /// Virtual clock used to stamp modification times.
    pub clock: crate::clock::VirtualClock,
}

impl FsState {
    /// Stamps the VFS with the current virtual time, then asks the fault hook about `op` on
    /// `path`; an injected error is returned as the WASI error code the guest will see.
    fn enter(&mut self, op: FsOp, path: &str) -> Result<Option<FsFault>, ErrorCode> {
        self.vfs.set_now(self.clock.timestamp());
        match self.hook.on_call(&FsCall { op, path }) {
            Some(FsFault::Error(errno)) => Err(errno.into()),
            other => Ok(other),
        }
    }
}

/// Handle to a store's filesystem: the VFS plus the fault hook, shared with open streams.
#[derive(Clone)]
pub struct SharedFs(Arc<Mutex<FsState>>);

impl SharedFs {
    /// Wraps a VFS for use by one store.
    pub fn new(vfs: Vfs, clock: crate::clock::VirtualClock) -> Self {
        Self(Arc::new(Mutex::new(FsState {
            vfs,
            hook: Box::new(NoFaults),
            clock,
        })))
    }

    /// Replaces the fault hook.
    pub fn set_hook(&self, hook: Box<dyn FsFaultHook>) {
        self.lock().hook = hook;
    }

    /// Locks the state (a poisoned lock still yields the data: the VFS is never left torn).
    pub fn lock(&self) -> MutexGuard<'_, FsState> {
        self.0.lock().unwrap_or_else(|poison| poison.into_inner())
    }

    /// Whether both handles are the same filesystem.
    pub fn same(&self, other: &SharedFs) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }

    /// Takes a snapshot of the current filesystem (O(1)).
    pub fn snapshot(&self) -> Vfs {
        self.lock().vfs.fork()
    }
}

/// The filesystem part of a store's data: shared state plus the preopens handed to the guest.
pub struct WasiVfsCtx {
    /// Shared filesystem state.
    pub fs: SharedFs,
    /// Directories the guest may open, with their guest paths.
    pub preopens: Vec<Preopen>,
}

/// What the generated `Host` traits are implemented on: the fs context plus the resource table.
pub struct WasiVfsView<'a> {
    /// The filesystem context.
    pub ctx: &'a mut WasiVfsCtx,
    /// The store's resource table (descriptors, streams).
    pub table: &'a mut wasmtime::component::ResourceTable,
}

/// Store data that can lend a [`WasiVfsView`].
pub trait HasWasiVfs: Send {
    /// Borrows the filesystem context and the resource table.
    fn vfs_view(&mut self) -> WasiVfsView<'_>;
}

struct HasVfs;

impl wasmtime::component::HasData for HasVfs {
    type Data<'a> = WasiVfsView<'a>;
}

/// Installs our `wasi:filesystem/{types,preopens}` over whatever the linker already holds
/// (normally wasmtime-wasi's stock implementation).
pub fn add_to_linker<T: HasWasiVfs + 'static>(
    linker: &mut wasmtime::component::Linker<T>,
) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    bindings::wasi::filesystem::types::add_to_linker::<T, HasVfs>(linker, T::vfs_view)?;
    bindings::wasi::filesystem::preopens::add_to_linker::<T, HasVfs>(linker, T::vfs_view)?;
    linker.allow_shadowing(false);
    Ok(())
}

/// Installs our filesystem without shadowing: fails if anything of the same name and version
/// is already defined (used to prove that ours replaces the stock one, see
/// [`crate::Sandbox::check_filesystem_shadows_stock`]).
pub fn add_to_linker_unshadowed<T: HasWasiVfs + 'static>(
    linker: &mut wasmtime::component::Linker<T>,
) -> wasmtime::Result<()> {
    bindings::wasi::filesystem::types::add_to_linker::<T, HasVfs>(linker, T::vfs_view)?;
    bindings::wasi::filesystem::preopens::add_to_linker::<T, HasVfs>(linker, T::vfs_view)
}

/// Joins a guest path onto a base guest path lexically, for fault points and messages.
fn display_path(base: &str, rel: &str) -> String {
    if rel.starts_with('/') {
        return rel.to_string();
    }
    let mut parts: Vec<&str> = base.split('/').filter(|p| !p.is_empty()).collect();
    for comp in rel.split('/') {
        match comp {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            c => parts.push(c),
        }
    }
    let mut out = String::with_capacity(base.len() + rel.len() + 1);
    for p in parts {
        out.push('/');
        out.push_str(p);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::display_path;

    #[test]
    fn display_path_joins_lexically() {
        assert_eq!(display_path("/workspace", "a/b.txt"), "/workspace/a/b.txt");
        assert_eq!(display_path("/workspace", "./a/../b"), "/workspace/b");
        assert_eq!(display_path("/", "."), "/");
        assert_eq!(display_path("/w", "/etc/passwd"), "/etc/passwd");
    }
}
