//! The audit log of a service: the `calls` list plus its action lists (`sent_messages`,
//! `drafts`, ...), persistent so forks share history, rendered as `GET /<svc>/audit` returns it.

use std::sync::Arc;

use imbl::Vector;

use super::json::{Json, Obj, Sorted};
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

    /// [`Audit::render`] written as JSON text with sorted keys (as
    /// [`SortedKeys`](super::json::SortedKeys) writes the rendered value), without building
    /// the document: a trial's audits go into its trace this way.
    pub(crate) fn render_text(&self, lists: &[&str], records: &Records) -> String {
        let doc = AuditDoc {
            audit: self,
            lists,
            records,
        };
        serde_json::to_string(&doc).expect("an audit serialises")
    }

    /// The value a live entry shows: record `slot` as it is now, else the removed record
    /// itself, else `snapshot` (its value when logged).
    fn live<'a>(&'a self, slot: u32, records: &'a Records, snapshot: &'a Json) -> Sorted<'a> {
        records
            .by_slot(slot)
            .map(|r| Sorted::Object(&r.data))
            .or_else(|| {
                self.entries
                    .iter()
                    .find(|e| e.slot == Some(slot))
                    .map(|e| Sorted::Value(&e.value))
            })
            .unwrap_or(Sorted::Value(snapshot))
    }

    /// What call `c` shows as `response_body` now, if it shows one.
    fn response_body<'a>(&'a self, c: &'a Call, records: &'a Records) -> Option<Sorted<'a>> {
        match &c.response {
            Logged::Body(b) => Some(Sorted::Value(b)),
            Logged::Omitted => None,
            Logged::Live {
                body,
                key,
                slot,
                snapshot,
            } => Some(Sorted::With(
                body,
                key,
                Box::new(self.live(*slot, records, snapshot)),
            )),
        }
    }

    fn render_call(&self, c: &Call, records: &Records) -> Json {
        let mut o = Obj::with_capacity(4);
        o.push("endpoint", c.endpoint);
        o.push("request_body", Json::Object(c.request.clone()));
        if let Some(body) = self.response_body(c, records) {
            o.push("response_body", body.to_json());
        }
        o.push("timestamp", c.timestamp.isoformat());
        Json::Object(o)
    }
}

/// An audit as [`Audit::render`] renders it, serialised from the log itself.
struct AuditDoc<'a> {
    audit: &'a Audit,
    lists: &'a [&'a str],
    records: &'a Records,
}

impl serde::Serialize for AuditDoc<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        // `calls` and the action lists, in byte order of their names (as the rendered
        // audit is sorted).
        let mut keys: Vec<(&str, Option<usize>)> = vec![("calls", None)];
        keys.extend(
            self.lists
                .iter()
                .enumerate()
                .map(|(i, name)| (*name, Some(i))),
        );
        keys.sort_by(|a, b| a.0.cmp(b.0));
        let mut map = s.serialize_map(Some(keys.len()))?;
        for (key, list) in keys {
            match list {
                None => map.serialize_entry(key, &CallsDoc(self))?,
                Some(i) => map.serialize_entry(key, &ListDoc(self.audit, i))?,
            }
        }
        map.end()
    }
}

/// The `calls` list of an [`AuditDoc`].
struct CallsDoc<'a>(&'a AuditDoc<'a>);

impl serde::Serialize for CallsDoc<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let doc = self.0;
        let mut seq = s.serialize_seq(Some(doc.audit.calls.len()))?;
        for c in &doc.audit.calls {
            seq.serialize_element(&CallDoc {
                audit: doc.audit,
                call: c,
                records: doc.records,
            })?;
        }
        seq.end()
    }
}

/// One `calls` entry, as [`Audit::render_call`] renders it.
struct CallDoc<'a> {
    audit: &'a Audit,
    call: &'a Call,
    records: &'a Records,
}

impl serde::Serialize for CallDoc<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let c = self.call;
        // The keys in byte order: endpoint, request_body, response_body, timestamp.
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("endpoint", c.endpoint)?;
        map.serialize_entry("request_body", &Sorted::Object(&c.request))?;
        if let Some(body) = self.audit.response_body(c, self.records) {
            map.serialize_entry("response_body", &body)?;
        }
        map.serialize_entry("timestamp", &c.timestamp.isoformat())?;
        map.end()
    }
}

/// Action list `i` of an audit.
struct ListDoc<'a>(&'a Audit, usize);

impl serde::Serialize for ListDoc<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeSeq;
        let mut seq = s.serialize_seq(None)?;
        for e in self
            .0
            .entries
            .iter()
            .filter(|e| usize::from(e.list) == self.1)
        {
            seq.serialize_element(&Sorted::Value(&e.value))?;
        }
        seq.end()
    }
}
