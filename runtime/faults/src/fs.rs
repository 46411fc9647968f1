//! A shared handle to a trial's injector: the sandbox takes a `Box<dyn FsFaultHook>` per run,
//! the service router and tool dispatcher ask the same injector, so they share it.

use std::sync::{Arc, Mutex, MutexGuard};

use super::injector::{FaultEvent, FaultInjector};
use super::plan::Fault;
use super::point::{Call, Category};
use clawrun_hostcall::fault::{FsCall, FsFault, FsFaultHook};

/// A cloneable handle to one [`FaultInjector`]; also the sandbox's filesystem fault hook.
#[derive(Clone, Debug)]
pub struct SharedInjector {
    inner: Arc<Mutex<FaultInjector>>,
    /// Whether fs calls need the injector: the plan has `fs:` rules, or the census is on
    /// (else fs calls skip the lock).
    fs: bool,
}

impl SharedInjector {
    /// Shares `injector`.
    pub fn new(injector: FaultInjector) -> Self {
        Self {
            fs: injector.census_on() || injector.plan().covers(Category::Fs),
            inner: Arc::new(Mutex::new(injector)),
        }
    }

    /// Locks the injector (a poisoned lock still yields it: its state is never left torn).
    pub fn lock(&self) -> MutexGuard<'_, FaultInjector> {
        self.inner
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// [`FaultInjector::decide`] through the handle.
    pub fn decide(&self, call: &Call<'_>) -> Option<Fault> {
        self.lock().decide(call)
    }

    /// [`FaultInjector::census`] through the handle.
    pub fn census(&self) -> Vec<(Arc<str>, u64)> {
        self.lock().census()
    }

    /// [`FaultInjector::drain_events`] through the handle.
    pub fn drain_events(&self) -> Vec<FaultEvent> {
        self.lock().drain_events()
    }

    /// [`FaultInjector::drain_events_at`] through the handle.
    pub fn drain_events_at(&self, prefix: &str) -> Vec<FaultEvent> {
        self.lock().drain_events_at(prefix)
    }

    /// A boxed hook for one sandbox run (`RunConfig::fs_hook`), sharing this injector.
    pub fn fs_hook(&self) -> Box<dyn FsFaultHook> {
        Box::new(self.clone())
    }
}

impl From<FaultInjector> for SharedInjector {
    fn from(injector: FaultInjector) -> Self {
        Self::new(injector)
    }
}

impl FsFaultHook for SharedInjector {
    fn on_call(&mut self, call: &FsCall<'_>) -> Option<FsFault> {
        if !self.fs {
            return None;
        }
        self.lock().decide_fs(call)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::FaultPlan;
    use clawrun_hostcall::fault::FsOp;

    #[test]
    fn fs_calls_reach_a_census_injector() {
        let call = FsCall {
            op: FsOp::Open,
            path: "/workspace/a.txt",
        };
        let mut plain = SharedInjector::new(FaultInjector::new(FaultPlan::none()));
        assert_eq!(plain.on_call(&call), None);
        assert!(plain.census().is_empty());
        let mut census = SharedInjector::new(FaultInjector::new(FaultPlan::none()).with_census());
        let mut hook = census.fs_hook();
        assert_eq!(hook.on_call(&call), None);
        assert_eq!(census.on_call(&call), None);
        assert_eq!(census.decide(&Call::new("tool:Read")), None);
        assert_eq!(
            census.census(),
            [
                (Arc::from("fs:open:/workspace/a.txt"), 2),
                (Arc::from("tool:Read"), 1)
            ]
        );
    }
}
