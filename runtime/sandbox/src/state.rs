//! What each store holds: the WASI context, our filesystem and clock, and resource limits.

use wasmtime::ResourceLimiter;
use wasmtime::component::ResourceTable;
use wasmtime_wasi::{WasiCtx, WasiCtxView, WasiView};

use super::clock::{ClockView, HasVirtualClock, VirtualClock};
use super::fs::{HasWasiVfs, WasiVfsCtx, WasiVfsView};
use super::http::RouterHooks;
use super::process::ProcessCtx;
use wasmtime_wasi_http::{WasiHttpCtx, WasiHttpCtxView, WasiHttpView};

/// The data of one sandbox store (one program run).
pub struct StoreData {
    pub(super) wasi: WasiCtx,
    pub(super) table: ResourceTable,
    pub(super) vfs: WasiVfsCtx,
    pub(super) clock: VirtualClock,
    pub(super) limits: MemoryLimiter,
    pub(super) http: WasiHttpCtx,
    pub(super) http_hooks: RouterHooks,
    pub(super) process: ProcessCtx,
    /// The descriptor table of a wasip1 module run by our preview 1 host.
    pub(super) p1: super::p1::P1Ctx,
    /// Serves the interpreter's host door, when the run offers one.
    pub(crate) door: Option<std::sync::Arc<dyn super::door::Door>>,
}

impl StoreData {
    /// The guest rang the interpreter's host door: the run's door answers, over the run's own
    /// filesystem; without one, "no host".
    pub(crate) fn ring_door(&self) -> super::door::Answer {
        match &self.door {
            Some(door) => door.ring(&self.vfs.fs),
            None => super::door::Answer::code(super::door::NO_HOST),
        }
    }
}

impl WasiHttpView for StoreData {
    fn http(&mut self) -> WasiHttpCtxView<'_> {
        WasiHttpCtxView {
            ctx: &mut self.http,
            table: &mut self.table,
            hooks: &mut self.http_hooks,
        }
    }
}

impl WasiView for StoreData {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

impl HasWasiVfs for StoreData {
    fn vfs_view(&mut self) -> WasiVfsView<'_> {
        WasiVfsView {
            ctx: &mut self.vfs,
            table: &mut self.table,
        }
    }
}

impl HasVirtualClock for StoreData {
    fn clock_view(&mut self) -> ClockView<'_> {
        ClockView {
            clock: &self.clock,
            table: &mut self.table,
        }
    }
}

/// Caps linear memory and tables per store and remembers whether a growth was refused, so a
/// guest that dies after a refused allocation gets a clear "memory limit" message.
#[derive(Debug)]
pub struct MemoryLimiter {
    /// Largest total linear memory, in bytes, of any one memory.
    pub max_memory: usize,
    /// Largest table, in elements.
    pub max_table_elements: usize,
    /// The largest refused request, in bytes.
    pub refused: Option<usize>,
}

impl MemoryLimiter {
    /// A limiter allowing `max_memory` bytes per memory.
    pub fn new(max_memory: usize) -> Self {
        Self {
            max_memory,
            max_table_elements: 1 << 20,
            refused: None,
        }
    }
}

impl ResourceLimiter for MemoryLimiter {
    fn memory_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.max_memory {
            self.refused = Some(self.refused.map_or(desired, |r| r.max(desired)));
            return Ok(false);
        }
        Ok(true)
    }

    fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= self.max_table_elements)
    }
}
