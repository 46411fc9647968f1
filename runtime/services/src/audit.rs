//! The audit log of a service: the `calls` list plus its action lists (`sent_messages`,
//! `drafts`, ...), persistent so forks share history, rendered as `GET /<svc>/audit` returns it.

use std::sync::Arc;

use imbl::Vector;

use super::json::{Json, Obj};
use super::store::Records;
use super::time::UtcInstant;

/// What a call entry records as `response_body`.
#[derive(Clone, Debug)]
pub(crate) enum Logged {
    /// The response, as returned.
    Body(Json),
    /// No `response_body` key (OCR, caption).
    Omitted,
    /// `body` with `key` bound to a live record (Python aliasing: todo `create` stores the task
    /// object itself, so later updates show through). `snapshot` is the value at call time, used
    /// if the record can no longer be found.
    Live {
        body: Obj,
        key: &'static str,
        slot: u32,
        snapshot: Json,
    },
}

/// One `calls` entry.
#[derive(Clone, Debug)]
pub(crate) struct Call {
    pub endpoint: &'static str,
    pub request: Obj,
    pub response: Logged,
    pub timestamp: UtcInstant,
}

/// One entry of an action list.
#[derive(Clone, Debug)]
struct Entry {
    list: u8,
    value: Arc<Json>,
    /// The record identity when the entry is a removed record itself (Python aliasing).
    slot: Option<u32>,
}

/// A service's audit log.
#[derive(Clone, Debug, Default)]
pub struct Audit {
    calls: Vector<Arc<Call>>,
    entries: Vector<Entry>,
}

impl Audit {
    /// The number of logged calls.
    pub fn call_count(&self) -> usize {
        self.calls.len()
    }

    /// The number of logged calls to `endpoint`.
    pub fn calls_to(&self, endpoint: &str) -> usize {
        self.calls.iter().filter(|c| c.endpoint == endpoint).count()
    }

    pub(crate) fn log(&mut self, call: Call) {
        self.calls.push_back(Arc::new(call));
    }

    pub(crate) fn append(&mut self, list: usize, value: Json, slot: Option<u32>) {
        self.entries.push_back(Entry {
            list: list as u8,
            value: Arc::new(value),
            slot,
        });
    }

    /// Renders `{"calls": [...], <list>: [...], ...}`.
    pub(crate) fn render(&self, lists: &[&str], records: &Records) -> Json {
        let mut out = Obj::with_capacity(1 + lists.len());
        let calls = self
            .calls
            .iter()
            .map(|c| self.render_call(c, records))
            .collect();
        out.push("calls", Json::Array(calls));
        for (i, name) in lists.iter().enumerate() {
            let items = self
                .entries
                .iter()
                .filter(|e| usize::from(e.list) == i)
                .map(|e| (*e.value).clone())
                .collect();
            out.push(*name, Json::Array(items));
        }
        Json::Object(out)
    }

    fn render_call(&self, c: &Call, records: &Records) -> Json {
        let mut o = Obj::with_capacity(4);
        o.push("endpoint", c.endpoint);
        o.push("request_body", Json::Object(c.request.clone()));
        match &c.response {
            Logged::Body(b) => o.push("response_body", b.clone()),
            Logged::Omitted => {}
            Logged::Live {
                body,
                key,
                slot,
                snapshot,
            } => {
                let live = records
                    .by_slot(*slot)
                    .map(|r| Json::Object((*r.data).clone()))
                    .or_else(|| {
                        self.entries
                            .iter()
                            .find(|e| e.slot == Some(*slot))
                            .map(|e| (*e.value).clone())
                    })
                    .unwrap_or_else(|| snapshot.clone());
                let mut b = body.clone();
                b.insert(*key, live);
                o.push("response_body", Json::Object(b));
            }
        }
        o.push("timestamp", c.timestamp.isoformat());
        Json::Object(o)
    }
}
