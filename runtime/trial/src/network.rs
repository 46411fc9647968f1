//! What a trial's guests reach over wasi:http (`curl` in the Bash tool, the judge phase's
//! commands): the trial's services — for the agent through the plan's `http:` faults and
//! without the harness's audit and reset endpoints — and the trial's web. The services leave the trial for the length of the call and come back after
//! it, with whatever the guest did to them.

use std::sync::{Arc, Mutex};

use super::setup::{TaskEnv, TrialEnv};
use clawrun_faults::FaultyRouter;
use clawrun_sandbox::http::{GuestNetwork, HttpRouter};
use clawrun_services::{GuestRouter, SharedServices};
use clawrun_web::WebMode;

/// The trial's services, lent to guests for one call.
pub struct Lent {
    services: SharedServices,
    /// The network to give the guest.
    pub network: GuestNetwork,
}

/// Who the guest runs for: the agent (its requests meet the trial's faults — at `http:`
/// points, and at a service's `service:` points as its tools do — and no harness endpoints)
/// or the judge phase (its commands get neither faults nor refusals).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Borrower {
    /// A tool call of the agent.
    Agent,
    /// A judge-phase command of the task.
    Judge,
}

/// Lends `env`'s services to a guest running for `borrower`; `None` when the trial has
/// neither services nor a web, so the guest gets no network at all.
pub fn lend(task: &TaskEnv, env: &mut TrialEnv, borrower: Borrower) -> Option<Lent> {
    if env.services.names().next().is_none() && env.web.web().mode() == WebMode::Off {
        return None;
    }
    let services: SharedServices = Arc::new(Mutex::new(std::mem::take(&mut env.services)));
    let shared = Arc::clone(&services);
    let router = task.router.clone();
    let clock = env.clock.clone();
    let web = env.web.clone();
    let faults = (borrower == Borrower::Agent).then(|| env.faults.clone());
    let network = GuestNetwork::new(move || {
        let guest = GuestRouter::new(Arc::clone(&shared), router.clone(), clock.clone())
            .with_web(web.clone());
        let inner: Box<dyn HttpRouter> = Box::new(match &faults {
            Some(f) => guest.for_agent().with_faults(f.clone()),
            None => guest,
        });
        match &faults {
            Some(f) => Box::new(FaultyRouter::new(inner, f.clone())),
            None => inner,
        }
    });
    Some(Lent { services, network })
}

impl Lent {
    /// Gives the services back to `env` (after the guest's network is gone).
    pub fn give_back(self, env: &mut TrialEnv) {
        let Lent { services, network } = self;
        drop(network);
        env.services = match Arc::try_unwrap(services) {
            Ok(m) => m.into_inner().unwrap_or_else(|p| p.into_inner()),
            // Something still holds a router: keep a copy of the state it left.
            Err(shared) => shared.lock().unwrap_or_else(|p| p.into_inner()).fork(),
        };
    }
}
