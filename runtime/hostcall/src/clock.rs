//! Virtual time: a wall clock and a monotonic clock that only move when the guest sleeps (or
//! when the host advances them, e.g. for injected latency). Nothing ever blocks on real time.
//!
//! A sleep moves time only when nothing else in the same `poll` is ready: its readiness
//! future first reports pending (and wakes itself), so the poll returns the other ready
//! pollables; only if the whole list was pending does the next pass move the clock, and then
//! only to the earliest deadline still waited for (so a 1 s and a 5 s timeout polled together
//! fire one after the other, as in real time).
//!
//! Guests read the monotonic clock through [`VirtualClock::monotonic_now`]: the virtual time,
//! but never the same reading twice — when time has not moved since the last reading, the next
//! one is 1 ns (the resolution we report) past it, as on a real clock. Programs that time
//! themselves (`t2 - t1` as a divisor, "did the clock move?" checks) see progress, and the
//! sequence stays deterministic: it depends only on the order of the reads. Wall time, file
//! times and the run's deadline use the virtual time itself, unaffected by reads.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

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
    /// Nanoseconds of elapsed time the wall clock does not count (see
    /// [`VirtualClock::restart_wall`]); 0 unless restarted.
    wall_base_ns: AtomicU64,
    /// The smallest monotonic reading the guest may get next (one past the last one given).
    next_reading_ns: AtomicU64,
    /// Deadlines of the sleeps currently being polled (deadline -> how many), so a pass that
    /// finds nothing ready advances only to the earliest.
    waiting: Mutex<BTreeMap<u64, usize>>,
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
                wall_base_ns: AtomicU64::new(0),
                next_reading_ns: AtomicU64::new(0),
                waiting: Mutex::new(BTreeMap::new()),
            }),
        }
    }

    /// Nanoseconds elapsed since the epoch (the monotonic reading).
    pub fn elapsed_ns(&self) -> u64 {
        self.inner.elapsed_ns.load(Ordering::SeqCst)
    }

    /// A monotonic reading for the guest: the virtual time, or 1 ns past the previous reading
    /// when time has not moved since (readings strictly increase; see the module docs).
    pub fn monotonic_now(&self) -> u64 {
        let now = self.elapsed_ns();
        let previous = self
            .inner
            .next_reading_ns
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |next| {
                Some(next.max(now).saturating_add(1))
            })
            .unwrap_or_else(|next| next);
        previous.max(now)
    }

    /// The latest monotonic reading given to the guest, or the virtual time if it is later:
    /// what a relative sleep counts from, so that it lasts at least its duration as measured
    /// by the guest's own readings.
    fn last_reading_ns(&self) -> u64 {
        let next = self.inner.next_reading_ns.load(Ordering::SeqCst);
        self.elapsed_ns().max(next.saturating_sub(1))
    }

    /// The deadline of a relative sleep of `ns` started now: counted from the guest's last
    /// monotonic reading (see [`Self::last_reading_ns`]).
    pub fn deadline_after(&self, ns: u64) -> u64 {
        self.last_reading_ns().saturating_add(ns)
    }

    /// Moves time forward by `ns` nanoseconds (time stops at the end of the range instead of
    /// wrapping to the start).
    pub fn advance(&self, ns: u64) {
        let _ = self
            .inner
            .elapsed_ns
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |t| {
                Some(t.saturating_add(ns))
            });
    }

    /// Moves time forward to `ns` since the epoch, if it is not there already.
    pub fn advance_to(&self, ns: u64) {
        self.inner.elapsed_ns.fetch_max(ns, Ordering::SeqCst);
    }

    /// A wait until `deadline_ns` as one `poll` sees it: ready once time is there, and moving
    /// time there when the poll finds nothing else ready (see the module docs).
    pub fn sleep_until(&self, deadline_ns: u64) -> SleepReady<'_> {
        SleepReady {
            clock: self,
            deadline_ns,
            waiting: false,
        }
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, BTreeMap<u64, usize>> {
        self.inner
            .waiting
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// The wall-clock reading, as a duration since the Unix epoch.
    pub fn wall(&self) -> Duration {
        let base = self.inner.wall_base_ns.load(Ordering::SeqCst);
        self.inner.epoch + Duration::from_nanos(self.elapsed_ns().saturating_sub(base))
    }

    /// Sets the wall clock back to the epoch while monotonic time goes on (a wall clock may
    /// jump; a monotonic one may not): a program kept across independent jobs reads the same
    /// wall time at the start of each.
    pub fn restart_wall(&self) {
        self.inner
            .wall_base_ns
            .store(self.elapsed_ns(), Ordering::SeqCst);
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

/// One poll's wait for a deadline (see the module docs for the two passes), made by
/// [`VirtualClock::sleep_until`].
pub struct SleepReady<'a> {
    clock: &'a VirtualClock,
    deadline_ns: u64,
    /// Whether the deadline is registered in the clock's waiting set.
    waiting: bool,
}

impl Future for SleepReady<'_> {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let clock = self.clock;
        let deadline = self.deadline_ns;
        if clock.elapsed_ns() >= deadline {
            return Poll::Ready(());
        }
        let mut waiting = clock.waiting();
        if !self.waiting {
            // First pass: give the other pollables of this poll the chance to be ready.
            *waiting.entry(deadline).or_insert(0) += 1;
            drop(waiting);
            self.waiting = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        // A later pass: the poll found nothing else ready. The earliest sleep moves time.
        if waiting
            .keys()
            .next()
            .is_some_and(|&first| first >= deadline)
        {
            drop(waiting);
            clock.advance_to(deadline);
            return Poll::Ready(());
        }
        // An earlier sleep of this poll moves time first; look again after it has.
        drop(waiting);
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

impl Drop for SleepReady<'_> {
    fn drop(&mut self) {
        if !self.waiting {
            return;
        }
        let mut waiting = self.clock.waiting();
        if let Some(n) = waiting.get_mut(&self.deadline_ns) {
            *n -= 1;
            if *n == 0 {
                waiting.remove(&self.deadline_ns);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_strictly_increase_and_catch_up_with_virtual_time() {
        let clock = VirtualClock::default();
        assert_eq!(
            [
                clock.monotonic_now(),
                clock.monotonic_now(),
                clock.monotonic_now()
            ],
            [0, 1, 2]
        );
        // Reads do not move the virtual time itself (wall clock, file times, deadlines).
        assert_eq!(clock.elapsed_ns(), 0);
        assert_eq!(clock.wall(), Duration::from_secs(DEFAULT_EPOCH_SECS));
        clock.advance(1_000);
        assert_eq!(clock.monotonic_now(), 1_000);
        assert_eq!(clock.monotonic_now(), 1_001);
        // A relative sleep counts from the last reading.
        assert_eq!(clock.last_reading_ns(), 1_001);
    }
}
