//! `poll_oneoff` on the virtual clock.
//!
//! Stdio and files are always ready (nothing in the sandbox blocks), so a poll that waits on
//! any descriptor returns at once with the ready descriptors and the clocks already due; time
//! moves only when a poll waits on clocks alone, and then exactly to the earliest deadline —
//! the rule the preview 2 clock host follows (see [`crate::clock`]).

use wiggle::{GuestMemory, GuestPtr};

use super::fds::Fd;
use super::types::{self, Errno, Error};
use crate::fs::HasWasiVfs;
use crate::fs::bindings::wasi::filesystem::types::HostDescriptor;
use crate::state::StoreData;

/// Guest bytes of one subscription and one event (charged to the call's copy budget).
const SUBSCRIPTION_BYTES: u64 = 48;
const EVENT_BYTES: u64 = 32;

/// What one subscription waits for.
enum Wait {
    /// The monotonic time (virtual nanoseconds) it is due at.
    Clock(u64),
    /// A descriptor event, ready now.
    Ready(types::Event),
}

/// Serves `poll_oneoff` for `data` (see the module docs).
pub(super) fn poll_oneoff(
    data: &mut StoreData,
    memory: &mut GuestMemory<'_>,
    subs: GuestPtr<types::Subscription>,
    events: GuestPtr<types::Event>,
    nsubscriptions: types::Size,
) -> Result<types::Size, Error> {
    if nsubscriptions == 0 {
        // Waiting for nothing would never return.
        return Err(Errno::Inval.into());
    }
    data.charge(u64::from(nsubscriptions) * (SUBSCRIPTION_BYTES + EVENT_BYTES))?;
    let mut waits = Vec::with_capacity(nsubscriptions as usize);
    for sub in subs.as_array(nsubscriptions).iter() {
        let sub = memory.read(sub?)?;
        let wait = match sub.u {
            types::SubscriptionU::Clock(clock) => Wait::Clock(deadline(data, &clock)?),
            types::SubscriptionU::FdRead(rw) => {
                Wait::Ready(fd_event(data, sub.userdata, rw.file_descriptor, true)?)
            }
            types::SubscriptionU::FdWrite(rw) => {
                Wait::Ready(fd_event(data, sub.userdata, rw.file_descriptor, false)?)
            }
        };
        waits.push((sub.userdata, wait));
    }
    let any_ready = waits.iter().any(|(_, w)| matches!(w, Wait::Ready(_)));
    if !any_ready {
        let earliest = waits.iter().filter_map(|(_, w)| match w {
            Wait::Clock(due) => Some(*due),
            Wait::Ready(_) => None,
        });
        if let Some(earliest) = earliest.min() {
            data.clock.advance_to(earliest);
        }
    }
    let now = data.clock.elapsed_ns();
    let slots = events.as_array(nsubscriptions);
    let mut out = slots.iter();
    let mut count = 0;
    for (userdata, wait) in waits {
        let event = match wait {
            Wait::Ready(event) => event,
            Wait::Clock(due) if due <= now => types::Event {
                userdata,
                error: Errno::Success,
                type_: types::Eventtype::Clock,
                fd_readwrite: types::EventFdReadwrite {
                    flags: types::Eventrwflags::empty(),
                    nbytes: 0,
                },
            },
            Wait::Clock(_) => continue,
        };
        let slot = out.next().ok_or(Errno::Overflow)??;
        memory.write(slot, event)?;
        count += 1;
    }
    Ok(count)
}

/// The virtual monotonic time a clock subscription is due at.
fn deadline(data: &StoreData, clock: &types::SubscriptionClock) -> Result<u64, Error> {
    let absolute = clock
        .flags
        .contains(types::Subclockflags::SUBSCRIPTION_CLOCK_ABSTIME);
    match (clock.id, absolute) {
        (types::Clockid::Monotonic | types::Clockid::Realtime, false) => {
            Ok(data.clock.deadline_after(clock.timeout))
        }
        (types::Clockid::Monotonic, true) => Ok(clock.timeout),
        (types::Clockid::Realtime, true) => {
            let wall = u64::try_from(data.clock.wall().as_nanos())?;
            Ok(data
                .clock
                .elapsed_ns()
                .saturating_add(clock.timeout.saturating_sub(wall)))
        }
        _ => Err(Errno::Inval.into()),
    }
}

/// The event of a read (`read`) or write subscription on descriptor `fd`: stdin, stdout,
/// stderr and files are ready at once; anything else is `badf`.
fn fd_event(
    data: &mut StoreData,
    userdata: types::Userdata,
    fd: types::Fd,
    read: bool,
) -> Result<types::Event, Error> {
    let mut flags = types::Eventrwflags::empty();
    let nbytes = match (data.p1.fds.get(fd)?, read) {
        (Fd::Stdin(_), true) | (Fd::Stdout(_) | Fd::Stderr(_), false) => 1,
        (Fd::File(file), true) => {
            let (desc, position) = (super::fds::borrow(&file.desc), file.position);
            let size = data.vfs_view().stat(desc)?.size;
            let left = size.saturating_sub(position);
            if left == 0 {
                flags |= types::Eventrwflags::FD_READWRITE_HANGUP;
            }
            left
        }
        (Fd::File(_), false) => 1,
        _ => return Err(Errno::Badf.into()),
    };
    Ok(types::Event {
        userdata,
        error: Errno::Success,
        type_: if read {
            types::Eventtype::FdRead
        } else {
            types::Eventtype::FdWrite
        },
        fd_readwrite: types::EventFdReadwrite { flags, nbytes },
    })
}
