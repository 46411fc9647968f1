//! The sandbox's side of virtual time ([`VirtualClock`], from `clawrun-hostcall`): the
//! WASI wall and monotonic clocks over it, and `wasi:clocks/monotonic-clock` pollables whose
//! sleeps move it.

use std::time::Duration;

use wasmtime::component::Resource;
use wasmtime_wasi_io::poll::{DynPollable, Pollable, subscribe};

use crate::fs::bindings::wasi::clocks::monotonic_clock;

pub use clawrun_hostcall::clock::{DEFAULT_EPOCH_SECS, VirtualClock};

/// A [`VirtualClock`] as wasmtime-wasi's wall and monotonic clocks.
#[derive(Clone, Debug)]
pub(crate) struct WasiClock(pub(crate) VirtualClock);

impl wasmtime_wasi::HostWallClock for WasiClock {
    fn resolution(&self) -> Duration {
        Duration::from_nanos(1)
    }

    fn now(&self) -> Duration {
        self.0.wall()
    }
}

impl wasmtime_wasi::HostMonotonicClock for WasiClock {
    fn resolution(&self) -> u64 {
        1
    }

    fn now(&self) -> u64 {
        self.0.monotonic_now()
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
        self.clock.sleep_until(self.deadline_ns).await
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
        Ok(self.clock.monotonic_now())
    }

    fn resolution(&mut self) -> wasmtime::Result<u64> {
        Ok(1)
    }

    fn subscribe_instant(&mut self, when: u64) -> wasmtime::Result<Resource<DynPollable>> {
        self.sleep_until(when)
    }

    fn subscribe_duration(&mut self, when: u64) -> wasmtime::Result<Resource<DynPollable>> {
        self.sleep_until(self.clock.deadline_after(when))
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
