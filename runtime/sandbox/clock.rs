//! Virtual time: a wall clock and a monotonic clock that only move when the guest sleeps (or
//! when the host advances them, e.g. for injected latency). Nothing ever blocks on real time.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use wasmtime::component::Resource;
use wasmtime_wasi_io::poll::{DynPollable, Pollable, subscribe};

use crate::sandbox::fs::bindings::wasi::clocks::monotonic_clock;

/// 2026-01-01T00:00:00Z, the default virtual epoch.
pub const DEFAULT_EPOCH_SECS: u64 = 1_767_225_600;

/// A shared virtual clock: a fixed wall-clock epoch plus nanoseconds elapsed since it.
#[derive(Clone, Debug)]
pub struct VirtualClock {
    inner: Arc<ClockInner>,
}

#[derive(Debug)]
struct ClockInner {
    epoch: Duration,
    elapsed_ns: AtomicU64,
}

impl Default for VirtualClock {
    fn default() -> Self {
        Self::new(Duration::from_secs(DEFAULT_EPOCH_SECS))
    }
}

impl VirtualClock {
    /// A clock whose wall time starts at `epoch` (since the Unix epoch) and monotonic time at 0.
    pub fn new(epoch: Duration) -> Self {
        Self {
            inner: Arc::new(ClockInner {
                epoch,
                elapsed_ns: AtomicU64::new(0),
            }),
        }
    }

    /// Nanoseconds elapsed since the epoch (the monotonic reading).
    pub fn elapsed_ns(&self) -> u64 {
        self.inner.elapsed_ns.load(Ordering::SeqCst)
    }

    /// Moves time forward by `ns` nanoseconds.
    pub fn advance(&self, ns: u64) {
        self.inner.elapsed_ns.fetch_add(ns, Ordering::SeqCst);
    }

    /// Moves time forward to `ns` since the epoch, if it is not there already.
    pub fn advance_to(&self, ns: u64) {
        self.inner.elapsed_ns.fetch_max(ns, Ordering::SeqCst);
    }

    /// The wall-clock reading, as a duration since the Unix epoch.
    pub fn wall(&self) -> Duration {
        self.inner.epoch + Duration::from_nanos(self.elapsed_ns())
    }

    /// The wall-clock reading as a VFS timestamp.
    pub fn timestamp(&self) -> clawrun_vfs::Timestamp {
        let wall = self.wall();
        clawrun_vfs::Timestamp {
            secs: wall.as_secs(),
            nanos: wall.subsec_nanos(),
        }
    }
}

impl wasmtime_wasi::HostWallClock for VirtualClock {
    fn resolution(&self) -> Duration {
        Duration::from_nanos(1)
    }

    fn now(&self) -> Duration {
        self.wall()
    }
}

impl wasmtime_wasi::HostMonotonicClock for VirtualClock {
    fn resolution(&self) -> u64 {
        1
    }

    fn now(&self) -> u64 {
        self.elapsed_ns()
    }
}

/// A pending virtual sleep: becoming ready moves the clock to its deadline.
struct VirtualSleep {
    clock: VirtualClock,
    deadline_ns: u64,
}

#[async_trait::async_trait]
impl Pollable for VirtualSleep {
    async fn ready(&mut self) {
        self.clock.advance_to(self.deadline_ns);
    }
}

/// The view our `wasi:clocks/monotonic-clock` host is implemented on.
pub struct ClockView<'a> {
    /// The store's clock.
    pub clock: &'a VirtualClock,
    /// The store's resource table (pollables).
    pub table: &'a mut wasmtime::component::ResourceTable,
}

impl ClockView<'_> {
    fn sleep_until(&mut self, deadline_ns: u64) -> wasmtime::Result<Resource<DynPollable>> {
        let sleep = self.table.push(VirtualSleep {
            clock: self.clock.clone(),
            deadline_ns,
        })?;
        subscribe(self.table, sleep)
    }
}

impl monotonic_clock::Host for ClockView<'_> {
    fn now(&mut self) -> wasmtime::Result<u64> {
        Ok(self.clock.elapsed_ns())
    }

    fn resolution(&mut self) -> wasmtime::Result<u64> {
        Ok(1)
    }

    fn subscribe_instant(&mut self, when: u64) -> wasmtime::Result<Resource<DynPollable>> {
        self.sleep_until(when)
    }

    fn subscribe_duration(&mut self, when: u64) -> wasmtime::Result<Resource<DynPollable>> {
        let deadline = self.clock.elapsed_ns().saturating_add(when);
        self.sleep_until(deadline)
    }
}

/// Store data that can lend a [`ClockView`].
pub trait HasVirtualClock: Send {
    /// Borrows the clock and the resource table.
    fn clock_view(&mut self) -> ClockView<'_>;
}

struct HasClock;

impl wasmtime::component::HasData for HasClock {
    type Data<'a> = ClockView<'a>;
}

/// Installs the virtual `wasi:clocks/monotonic-clock` over the stock one.
pub fn add_to_linker<T: HasVirtualClock + 'static>(
    linker: &mut wasmtime::component::Linker<T>,
) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    monotonic_clock::add_to_linker::<T, HasClock>(linker, T::clock_view)?;
    linker.allow_shadowing(false);
    Ok(())
}
