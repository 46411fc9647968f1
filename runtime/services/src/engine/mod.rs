//! The generic service engine: a [`ServiceDef`] declares a service (fixture, id field, action
//! lists, endpoints); a [`Service`] is one running instance (records + audit log) that answers
//! [`ServiceRequest`]s with FastAPI's routing, validation and error behaviour.

mod ops;

use std::any::Any;
use std::sync::Arc;

use self::ops::{op_delete, op_get, op_list, op_record, op_update};
use super::audit::{Audit, Call, Logged};
use super::excerpt::excerpt;
use super::http::{Method, ServiceRequest, ServiceResponse};
use super::json::{Json, Obj, obj};
use super::load::{Base, LoadCtx, LoadError, Loaded};
use super::py;
use super::store::{DeriveFn, Record, Records};
use super::time::UtcInstant;
use super::validate::{BodyMode, Field, Lit, validate};
use clawrun_web::WebSession;

/// The declaration of a service kind (one per Claw-Eval mock server).
pub struct ServiceDef {
    /// The kind, which is also the first path segment (`gmail` → `/gmail/...`) unless
    /// `prefix` names another.
    pub kind: &'static str,
    /// The first path segment when it is not the kind (`web_real` serves `/web/...`).
    pub prefix: Option<&'static str>,
    /// The default port.
    pub port: u16,
    /// How the fixture is loaded.
    pub fixture: Fixture,
    /// Load-time transformation of the records (date shifting), re-applied on reset.
    pub prepare: Option<PrepareFn>,
    /// The record collection's id field and "not found" noun, if the service has one.
    pub collection: Option<Collection>,
    /// Per-record derived data (parsed dates, token sets).
    pub derive: Option<DeriveFn>,
    /// The action lists of the audit, in output order (after `calls`).
    pub lists: &'static [&'static str],
    /// The tool endpoints (all `POST`).
    pub endpoints: &'static [Endpoint],
    /// The body of `GET /<kind>/health`, for services that have one.
    pub health: Option<&'static [(&'static str, &'static str)]>,
}

impl ServiceDef {
    /// The first path segment of the service's routes.
    pub fn path_prefix(&self) -> &'static str {
        self.prefix.unwrap_or(self.kind)
    }
}

/// Transforms freshly loaded records at `now` (an `Err` is a load error or a 500).
pub type PrepareFn = fn(&[Obj], UtcInstant) -> Result<Vec<Obj>, PrepareError>;

/// Why a fixture's records could not be prepared (dates shifted); the message names the record
/// (`[i]`) and its field.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PrepareError {
    /// The field is missing.
    #[error("[{index}].{field}: missing")]
    Missing {
        /// The record, from 0.
        index: usize,
        /// The field.
        field: String,
    },
    /// The field is not a string.
    #[error("[{index}].{field}: expected an ISO-8601 string, got {value}")]
    NotString {
        /// The record, from 0.
        index: usize,
        /// The field.
        field: String,
        /// The value found, as JSON.
        value: String,
    },
    /// The timestamp has no UTC offset.
    #[error("[{index}].{field}: {text:?} has no UTC offset")]
    NoOffset {
        /// The record, from 0.
        index: usize,
        /// The field.
        field: String,
        /// The timestamp.
        text: String,
    },
    /// The text is not an ISO-8601 timestamp.
    #[error("[{index}].{field}: invalid ISO-8601 timestamp {text:?}")]
    Invalid {
        /// The record, from 0.
        index: usize,
        /// The field.
        field: String,
        /// The text.
        text: String,
    },
    /// The shifted date is out of range.
    #[error("[{index}].{field}: date value out of range after shifting")]
    OutOfRange {
        /// The record, from 0.
        index: usize,
        /// The field.
        field: String,
    },
    /// The shift's target date (from `now`) is out of range.
    #[error("date value out of range")]
    TargetOutOfRange,
}

/// How a service's fixture is found and read.
pub enum Fixture {
    /// A JSON array of objects named by environment variable `var`, else at `default` (relative
    /// to the Claw-Eval root).
    Records {
        /// The environment variable.
        var: &'static str,
        /// The default path.
        default: &'static str,
    },
    /// A service-specific loader.
    Custom(fn(&LoadCtx<'_>) -> Result<Loaded, LoadError>),
}

/// A record collection: the id field (also the request field of get/update/delete) and the noun
/// of `{"error": "<Noun> <id> not found"}`.
#[derive(Clone, Copy, Debug)]
pub struct Collection {
    /// The id field, e.g. `message_id`.
    pub id: &'static str,
    /// The noun, e.g. `Message`.
    pub noun: &'static str,
}

/// A tool endpoint.
pub struct Endpoint {
    /// The route path, e.g. `/gmail/messages/get`.
    pub path: &'static str,
    /// Body handling.
    pub body: BodyMode,
    /// The declared fields, in declaration order.
    pub fields: &'static [Field],
    /// What the endpoint does.
    pub op: Op,
}

/// An endpoint's behaviour: a generic operation or a custom handler.
pub enum Op {
    /// The full record whose id field equals the request's, or the "not found" body.
    Get,
    /// A filtered, projected, sliced listing.
    List(ListOp),
    /// Appends the request (plus a timestamp) to an action list.
    Record(RecordOp),
    /// Overwrites fields of a record and logs a copy.
    Update(UpdateOp),
    /// Removes a record and logs it.
    Delete(DeleteOp),
    /// Service-specific behaviour.
    Custom(Handler),
}

/// A custom endpoint handler: the validated request in, the outcome out.
pub type Handler = fn(&mut Ctx<'_>, &Obj) -> Handled;

/// A listing: `{<key>: [...], "total": n}`.
pub struct ListOp {
    /// The key of the list in the response.
    pub key: &'static str,
    /// Filters, all of which must pass.
    pub filters: &'static [Filter],
    /// Projected fields (missing ones become `null`, or the value in `defaults`); `None` for full
    /// records.
    pub project: Option<&'static [&'static str]>,
    /// Values for projected fields missing from a record.
    pub defaults: &'static [(&'static str, Lit)],
    /// The request field holding the Python slice limit, if any.
    pub limit: Option<&'static str>,
}

/// A listing filter. Records lacking the field never match.
pub enum Filter {
    /// Unless the parameter equals `all`, the field must equal it.
    EqUnless {
        /// Request field.
        param: &'static str,
        /// Record field.
        field: &'static str,
        /// The "no filter" value.
        all: &'static str,
    },
    /// When the parameter is truthy (non-null, non-empty), the field must equal it.
    EqIfSet {
        /// Request field.
        param: &'static str,
        /// Record field.
        field: &'static str,
    },
    /// When the parameter is not null, the field must equal it.
    EqIfNotNull {
        /// Request field.
        param: &'static str,
        /// Record field.
        field: &'static str,
    },
    /// When the parameter is truthy, it must be an element of the field (`param in field`).
    InIfSet {
        /// Request field.
        param: &'static str,
        /// Record field.
        field: &'static str,
    },
    /// When the parameter is not null, it must be a substring of the field.
    SubstrIfNotNull {
        /// Request field.
        param: &'static str,
        /// Record field.
        field: &'static str,
    },
    /// When set, the field must be `>= min` and `<= max` (Python comparison).
    Range {
        /// Record field.
        field: &'static str,
        /// Request field of the lower bound.
        min: &'static str,
        /// Request field of the upper bound.
        max: &'static str,
    },
}

/// An action: `{<request fields>, "timestamp"}` appended to `list`; response
/// `{"status": status, key: record}`.
pub struct RecordOp {
    /// The action list.
    pub list: &'static str,
    /// The response status string.
    pub status: &'static str,
    /// The key of the record in the response.
    pub key: &'static str,
}

/// An update: constants, then non-null request fields, are written to the record; a copy goes to
/// `copy_to`; response `{"status": status, key: copy}`.
pub struct UpdateOp {
    /// Fixed values written first.
    pub set: &'static [(&'static str, Lit)],
    /// Request fields copied when not null.
    pub fields: &'static [&'static str],
    /// The action list receiving a copy.
    pub copy_to: &'static str,
    /// The response status string.
    pub status: &'static str,
    /// The key of the record in the response.
    pub key: &'static str,
}

/// A deletion: the record is removed and appended to `list`; response
/// `{"status": "deleted", key: record}`.
pub struct DeleteOp {
    /// The action list.
    pub list: &'static str,
    /// The key of the record in the response.
    pub key: &'static str,
}

/// What a handler produced and how it is logged.
pub struct Handled {
    response: ServiceResponse,
    log: Log,
}

enum Log {
    Response,
    Omit,
    Summary(Json),
    Live { key: &'static str, slot: u32 },
    Skip,
}

impl Handled {
    /// A 200 JSON response, logged as is.
    pub fn ok(body: impl Into<Json>) -> Self {
        Self {
            response: ServiceResponse::ok(body),
            log: Log::Response,
        }
    }

    /// A JSON response with status `status`, logged as is.
    pub fn with_status(status: u16, body: impl Into<Json>) -> Self {
        Self {
            response: ServiceResponse::json(status, body),
            log: Log::Response,
        }
    }

    /// A response that is not logged (errors raised before the handler's logging point).
    pub fn unlogged(response: ServiceResponse) -> Self {
        Self {
            response,
            log: Log::Skip,
        }
    }

    /// An unhandled exception: plain-text 500, not logged.
    pub fn crash() -> Self {
        Self::unlogged(ServiceResponse::internal_error())
    }

    /// A 200 JSON response logged without a `response_body` key.
    pub fn ok_without_response_body(body: impl Into<Json>) -> Self {
        Self {
            response: ServiceResponse::ok(body),
            log: Log::Omit,
        }
    }

    /// A 200 JSON response logged with `summary` as its `response_body`.
    pub fn ok_with_summary(body: impl Into<Json>, summary: Json) -> Self {
        Self {
            response: ServiceResponse::ok(body),
            log: Log::Summary(summary),
        }
    }

    /// A 200 response whose logged `body[key]` stays bound to the live record `slot`.
    pub fn ok_live(body: Obj, key: &'static str, slot: u32) -> Self {
        Self {
            response: ServiceResponse::ok(body),
            log: Log::Live { key, slot },
        }
    }
}

impl From<py::Crash> for Handled {
    fn from(_: py::Crash) -> Self {
        Handled::crash()
    }
}

/// A handler's view of its service during one call.
pub struct Ctx<'a> {
    /// The virtual "now" of the call.
    pub now: UtcInstant,
    def: &'static ServiceDef,
    base: &'a Base,
    records: &'a mut Records,
    audit: &'a mut Audit,
    web: Option<&'a WebSession>,
}

impl Ctx<'_> {
    /// The trial's web, when the run has one attached ([`Service::attach_web`]).
    pub fn web(&self) -> Option<&WebSession> {
        self.web
    }

    /// Calls logged so far (since the last reset).
    pub fn call_count(&self) -> usize {
        self.audit.call_count()
    }

    /// Calls to `endpoint` logged so far (since the last reset).
    pub fn calls_to(&self, endpoint: &str) -> usize {
        self.audit.calls_to(endpoint)
    }

    /// The records.
    pub fn records(&self) -> &Records {
        self.records
    }

    /// The index of the record with id `id` (the collection's id field).
    pub fn find(&self, id: &str) -> Option<usize> {
        self.records
            .find(self.def.collection.map_or("id", |c| c.id), id)
    }

    /// Record `i`.
    pub fn record(&self, i: usize) -> &Record {
        self.records.get(i).expect("record index in range")
    }

    /// Appends a record; returns its identity.
    pub fn push(&mut self, data: Obj) -> u32 {
        self.records.push(data)
    }

    /// Replaces record `i`.
    pub fn replace(&mut self, i: usize, data: Obj) {
        self.records.replace(i, data);
    }

    /// Removes record `i`.
    pub fn remove(&mut self, i: usize) -> Record {
        self.records.remove(i)
    }

    /// Appends `value` to action list `list`.
    pub fn append(&mut self, list: &str, value: Json) {
        self.append_slot(list, value, None);
    }

    fn append_slot(&mut self, list: &str, value: Json, slot: Option<u32>) {
        let i = self.def.lists.iter().position(|l| *l == list);
        debug_assert!(
            i.is_some(),
            "{}: undeclared audit list {list}",
            self.def.kind
        );
        if let Some(i) = i {
            self.audit.append(i, value, slot);
        }
    }

    /// The service's loader-specific data.
    pub fn extra<T: Any>(&self) -> Option<&T> {
        self.base.extra.as_deref().and_then(|e| e.downcast_ref())
    }

    /// `{"error": "<Noun> <id> not found"}`, logged.
    pub fn not_found(&self, id: &str) -> Handled {
        let noun = self.def.collection.map_or("Item", |c| c.noun);
        let id = excerpt(id);
        Handled::ok(obj! { "error" => format!("{noun} {id} not found") })
    }
}

/// The string value of validated field `name` (empty if absent or not a string).
pub fn str_field<'o>(req: &'o Obj, name: &str) -> &'o str {
    req.get_str(name).unwrap_or("")
}

/// A running service: its declaration, shared base data, records and audit log.
#[derive(Clone)]
pub struct Service {
    name: Arc<str>,
    def: &'static ServiceDef,
    port: u16,
    base: Arc<Base>,
    records: Records,
    audit: Audit,
    web: Option<WebSession>,
}

impl Service {
    pub(crate) fn new(
        name: Arc<str>,
        def: &'static ServiceDef,
        port: u16,
        base: Arc<Base>,
        records: Records,
    ) -> Self {
        Self {
            name,
            def,
            port,
            base,
            records,
            audit: Audit::default(),
            web: None,
        }
    }

    /// Gives the service the trial's web (services that need none ignore it).
    pub fn attach_web(&mut self, web: WebSession) {
        self.web = Some(web);
    }

    /// The instance name (the task's `services[].name`, the key of audit data).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The kind (`gmail`, `ocr`, ...).
    pub fn kind(&self) -> &'static str {
        self.def.kind
    }

    /// The port the task's URLs use for this service.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The declaration.
    pub fn def(&self) -> &'static ServiceDef {
        self.def
    }

    /// The current records.
    pub fn records(&self) -> &Records {
        &self.records
    }

    /// The audit log.
    pub fn audit_log(&self) -> &Audit {
        &self.audit
    }

    /// The audit as `GET /<kind>/audit` returns it.
    pub fn audit(&self) -> Json {
        self.audit.render(self.def.lists, &self.records)
    }

    /// [`Service::audit`] as JSON text with every object's keys sorted (what a trace records),
    /// written without building the document.
    pub fn audit_text(&self) -> String {
        self.audit.render_text(self.def.lists, &self.records)
    }

    /// `POST /<kind>/reset`: clears the audit and reloads the records (re-applying date shifts
    /// at `now`). Fails only if re-preparing fails (upstream: a 500).
    pub fn reset(&mut self, now: UtcInstant) -> Result<(), PrepareError> {
        let raw = &self.base.raw;
        let objs = match self.def.prepare {
            Some(prepare) => prepare(raw, now)?,
            None => raw.to_vec(),
        };
        self.records = Records::new(objs, self.def.derive);
        self.audit = Audit::default();
        Ok(())
    }

    /// Which route `path` is, and the methods it allows.
    fn route(&self, path: &str) -> Option<(Route, &'static str)> {
        let rest = path
            .strip_prefix('/')?
            .strip_prefix(self.def.path_prefix())?;
        match rest {
            "/audit" => return Some((Route::Audit, "GET, HEAD")),
            "/reset" => return Some((Route::Reset, "POST")),
            "/health" if self.def.health.is_some() => return Some((Route::Health, "GET, HEAD")),
            _ => {}
        }
        self.def
            .endpoints
            .iter()
            .position(|e| e.path == path)
            .map(|i| (Route::Endpoint(i), "POST"))
    }

    /// Answers one request at virtual time `now`.
    pub fn call(&mut self, req: &ServiceRequest, now: UtcInstant) -> ServiceResponse {
        let path = req.route_path();
        let Some((route, allow)) = self.route(path) else {
            return self.redirect_or_404(req);
        };
        let get_like = matches!(req.method, Method::Get | Method::Head);
        let allowed = if allow == "POST" {
            req.method == Method::Post
        } else {
            get_like
        };
        if !allowed {
            return ServiceResponse::method_not_allowed(allow);
        }
        let mut resp = match route {
            Route::Audit => ServiceResponse::ok(self.audit()),
            Route::Health => {
                let body: Obj = self
                    .def
                    .health
                    .unwrap_or(&[])
                    .iter()
                    .map(|(k, v)| (Arc::from(*k), Json::from(*v)))
                    .collect();
                ServiceResponse::ok(body)
            }
            Route::Reset => match self.reset(now) {
                Ok(()) => ServiceResponse::ok(obj! { "status" => "reset" }),
                Err(_) => ServiceResponse::internal_error(),
            },
            Route::Endpoint(i) => self.run(&self.def.endpoints[i], req, now),
        };
        if req.method == Method::Head {
            resp.body = super::http::Body::Empty;
        }
        resp
    }

    /// Starlette's `redirect_slashes`: a path with trailing slashes that names a route without
    /// them gets a 307 to it.
    fn redirect_or_404(&self, req: &ServiceRequest) -> ServiceResponse {
        let path = req.route_path();
        if path != "/" && path.ends_with('/') {
            let trimmed = path.trim_end_matches('/');
            if self.route(trimmed).is_some() {
                let query = req
                    .path
                    .split_once('?')
                    .map(|(_, q)| format!("?{q}"))
                    .unwrap_or_default();
                let location = match req.headers.get("host") {
                    Some(host) => format!("http://{host}{trimmed}{query}"),
                    None => format!("{trimmed}{query}"),
                };
                return ServiceResponse::redirect(&location);
            }
        }
        ServiceResponse::not_found()
    }

    fn run(
        &mut self,
        ep: &'static Endpoint,
        req: &ServiceRequest,
        now: UtcInstant,
    ) -> ServiceResponse {
        let validated = match validate(req, ep.body, ep.fields) {
            Ok(v) => v,
            Err(resp) => return resp,
        };
        let base = Arc::clone(&self.base);
        let mut cx = Ctx {
            now,
            def: self.def,
            base: &base,
            records: &mut self.records,
            audit: &mut self.audit,
            web: self.web.as_ref(),
        };
        let outcome = match &ep.op {
            Op::Get => op_get(&mut cx, &validated),
            Op::List(op) => op_list(&cx, op, &validated).unwrap_or_else(Handled::from),
            Op::Record(op) => op_record(&mut cx, op, &validated),
            Op::Update(op) => op_update(&mut cx, op, &validated),
            Op::Delete(op) => op_delete(&mut cx, op, &validated),
            Op::Custom(h) => h(&mut cx, &validated),
        };
        let Handled { response, log } = outcome;
        let logged = match log {
            Log::Skip => return response,
            Log::Response => Logged::Body(response.json_body().cloned().unwrap_or(Json::Null)),
            Log::Omit => Logged::Omitted,
            Log::Summary(s) => Logged::Body(s),
            Log::Live { key, slot } => {
                let body = response.json_obj().cloned().unwrap_or_default();
                let snapshot = body.get(key).cloned().unwrap_or(Json::Null);
                Logged::Live {
                    body,
                    key,
                    slot,
                    snapshot,
                }
            }
        };
        self.audit.log(Call {
            endpoint: ep.path,
            request: validated,
            response: logged,
            timestamp: now,
        });
        response
    }
}

#[derive(Clone, Copy)]
enum Route {
    Audit,
    Reset,
    Health,
    Endpoint(usize),
}
