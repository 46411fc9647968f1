//! The built-in services, one module each, reproducing Claw-Eval's mock servers.

mod calendar;
mod caption;
mod config;
mod contacts;
mod crm;
mod documents;
mod finance;
mod gmail;
mod helpdesk;
mod inventory;
mod kb;
mod notes;
mod ocr;
mod rss;
mod scheduler;
mod todo;
mod web;
mod web_real;

pub use web_real::{MAX_CONTENT_CHARS, needs_web};

use super::engine::ServiceDef;

/// Every built-in service, by kind.
static ALL: &[&ServiceDef] = &[
    &caption::DEF,
    &calendar::DEF,
    &config::DEF,
    &contacts::DEF,
    &crm::DEF,
    &documents::DEF,
    &finance::DEF,
    &gmail::DEF,
    &helpdesk::DEF,
    &inventory::DEF,
    &kb::DEF,
    &notes::DEF,
    &ocr::DEF,
    &rss::DEF,
    &scheduler::DEF,
    &todo::DEF,
    &web::DEF,
    &web_real::DEF,
    &web_real::INJECTION_DEF,
];

/// The declaration of service kind `kind`.
pub fn lookup(kind: &str) -> Option<&'static ServiceDef> {
    ALL.iter().copied().find(|d| d.kind == kind)
}

/// The kinds of all built-in services, sorted.
pub fn kinds() -> impl Iterator<Item = &'static str> {
    ALL.iter().map(|d| d.kind)
}

/// What service modules use.
mod prelude {
    pub(super) use crate::engine::{
        Collection, Ctx, DeleteOp, Endpoint, Filter, Fixture, Handled, ListOp, Op, RecordOp,
        ServiceDef, UpdateOp, str_field,
    };
    pub(super) use crate::excerpt::excerpt;
    pub(super) use crate::json::{Json, Obj, obj};
    pub(super) use crate::validate::{BodyMode, Field, Lit, Ty};

    /// A required JSON object body.
    pub(super) const REQUIRED: BodyMode = BodyMode::Required;
    /// An optional body (absent or `null` means defaults).
    pub(super) const OPTIONAL: BodyMode = BodyMode::Optional { overrides: &[] };
}
