//! A service's record collection: a persistent vector of shared JSON objects, so a fork shares
//! every record and a write copies only what it touches.

use std::any::Any;
use std::sync::Arc;

use imbl::Vector;

use super::json::{Json, Obj};

/// Data a service derives from a record once (a parsed date, a token set), recomputed when the
/// record changes.
pub type Derived = Option<Arc<dyn Any + Send + Sync>>;

/// Computes a record's [`Derived`] data.
pub type DeriveFn = fn(&Obj) -> Derived;

/// One stored record.
#[derive(Clone)]
pub struct Record {
    /// Identity of the Python object this record stands for (stable across updates).
    pub(crate) slot: u32,
    /// The record.
    pub(crate) data: Arc<Obj>,
    /// Derived data, if the service derives any.
    pub(crate) derived: Derived,
}

impl Record {
    /// The record's fields.
    pub fn data(&self) -> &Obj {
        &self.data
    }

    /// The derived data downcast to `T`.
    pub fn derived<T: 'static>(&self) -> Option<&T> {
        self.derived.as_deref().and_then(|d| d.downcast_ref())
    }
}

/// The records of a service, in order.
#[derive(Clone, Default)]
pub struct Records {
    items: Vector<Record>,
    next_slot: u32,
    derive: Option<DeriveFn>,
}

impl Records {
    /// Records from fixture objects, in order.
    pub(crate) fn new(objs: impl IntoIterator<Item = Obj>, derive: Option<DeriveFn>) -> Self {
        let mut r = Records {
            items: Vector::new(),
            next_slot: 0,
            derive,
        };
        for o in objs {
            r.push(o);
        }
        r
    }

    /// The number of records.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether there are no records.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The records in order.
    pub fn iter(&self) -> impl Iterator<Item = &Record> {
        self.items.iter()
    }

    /// Record `i`.
    pub fn get(&self, i: usize) -> Option<&Record> {
        self.items.get(i)
    }

    /// The index of the first record whose `field` is the string `id`.
    pub fn find(&self, field: &str, id: &str) -> Option<usize> {
        self.items
            .iter()
            .position(|r| r.data.get(field).and_then(Json::as_str) == Some(id))
    }

    /// The record standing for Python object `slot`, if still stored.
    pub(crate) fn by_slot(&self, slot: u32) -> Option<&Record> {
        self.items.iter().find(|r| r.slot == slot)
    }

    /// Appends a record; returns its slot.
    pub(crate) fn push(&mut self, data: Obj) -> u32 {
        let slot = self.next_slot;
        self.next_slot += 1;
        let derived = self.derive.and_then(|f| f(&data));
        self.items.push_back(Record {
            slot,
            data: Arc::new(data),
            derived,
        });
        slot
    }

    /// Replaces the fields of record `i` (same identity).
    pub(crate) fn replace(&mut self, i: usize, data: Obj) {
        let derived = self.derive.and_then(|f| f(&data));
        if let Some(r) = self.items.get_mut(i) {
            r.data = Arc::new(data);
            r.derived = derived;
        }
    }

    /// Removes record `i`.
    pub(crate) fn remove(&mut self, i: usize) -> Record {
        self.items.remove(i)
    }
}
