//! calendar (port 9101): events shifted so the earliest starts tomorrow, day windows, per-user
//! views, creation (with upstream's id scheme) and deletion.

use std::sync::Arc;

use super::gmail::{aware, shifted};
use super::prelude::*;
use crate::engine::PrepareError;
use crate::py;
use crate::store::Derived;
use crate::time::{self, DAY, DateTime, MAX_TIMEDELTA_DAYS, UtcInstant};

const ID: Field = Field::req("event_id", Ty::Str);

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "calendar",
    prefix: None,
    port: 9101,
    fixture: Fixture::Records {
        var: "CALENDAR_FIXTURES",
        default: "tasks/T003zh_calendar_scheduling/fixtures/calendar/events.json",
    },
    prepare: Some(shift_dates),
    collection: Some(Collection {
        id: "event_id",
        noun: "Event",
    }),
    derive: Some(parse_start),
    lists: &["deleted", "created_events"],
    endpoints: &[
        Endpoint {
            path: "/calendar/events",
            // No body at all: the literal date of the upstream default (not shifted).
            body: BodyMode::Optional {
                overrides: &[("date", Lit::Str("2026-03-02"))],
            },
            fields: &[
                Field::req("date", Ty::Str),
                Field::def("days", Ty::Int, Lit::Int(1)),
            ],
            op: Op::Custom(list_events),
        },
        Endpoint {
            path: "/calendar/events/get",
            body: REQUIRED,
            fields: &[ID],
            op: Op::Get,
        },
        Endpoint {
            path: "/calendar/events/create",
            body: REQUIRED,
            fields: &[
                Field::req("title", Ty::Str),
                Field::req("start_time", Ty::Str),
                Field::req("end_time", Ty::Str),
                Field::def("attendees", Ty::StrList, Lit::EmptyList),
                Field::def("location", Ty::Str, Lit::Str("")),
            ],
            op: Op::Custom(create_event),
        },
        Endpoint {
            path: "/calendar/user_events",
            body: REQUIRED,
            fields: &[Field::req("user", Ty::Str), Field::req("date", Ty::Str)],
            op: Op::Custom(user_events),
        },
        Endpoint {
            path: "/calendar/events/delete",
            body: REQUIRED,
            fields: &[ID],
            op: Op::Delete(DeleteOp {
                list: "deleted",
                key: "event",
            }),
        },
    ],
    health: None,
};

fn non_empty(rec: &Obj, field: &str) -> bool {
    rec.get(field)
        .is_some_and(|v| !matches!(v, Json::Null) && v.as_str() != Some(""))
}

/// Moves every start and end by `target - earliest`, where `target` is tomorrow (UTC) at the
/// earliest event's wall-clock hour and minute.
fn shift_dates(recs: &[Obj], now: UtcInstant) -> Result<Vec<Obj>, PrepareError> {
    let mut earliest: Option<DateTime> = None;
    for (i, r) in recs.iter().enumerate() {
        if non_empty(r, "start_time") {
            let dt = aware(r, i, "start_time")?;
            if earliest.is_none_or(|e| dt.instant() < e.instant()) {
                earliest = Some(dt);
            }
        }
    }
    let Some(earliest) = earliest else {
        return Ok(recs.to_vec());
    };
    let tomorrow = time::add(now.unix_micros(), DAY).ok_or(PrepareError::TargetOutOfRange)?;
    let (h, m) = earliest.hour_minute();
    let target = tomorrow.div_euclid(DAY) * DAY + (h * 3600 + m * 60) * 1_000_000;
    let delta = target - earliest.instant().unwrap_or(0);
    let mut out = recs.to_vec();
    for (i, rec) in out.iter_mut().enumerate() {
        for field in ["start_time", "end_time"] {
            if non_empty(rec, field) {
                let v = rec.get(field).cloned().unwrap_or(Json::Null);
                let s = v.as_str().ok_or_else(|| PrepareError::NotString {
                    index: i,
                    field: field.to_string(),
                    value: v.to_string(),
                })?;
                let dt = time::parse_isoformat(s).ok_or_else(|| PrepareError::Invalid {
                    index: i,
                    field: field.to_string(),
                    text: s.to_string(),
                })?;
                rec.insert(field, shifted(dt, delta, i, field)?);
            }
        }
    }
    Ok(out)
}

/// The UTC instant of a record's `start_time` (`None`: listing crashes, as upstream).
fn parse_start(rec: &Obj) -> Derived {
    let instant = rec
        .get_str("start_time")
        .and_then(time::parse_isoformat)
        .and_then(DateTime::instant);
    Some(Arc::new(instant))
}

enum Window {
    Range(i64, i64),
    BadDate(Handled),
    Crash,
}

fn window(date: &str, days: &Json) -> Window {
    let Some(day) = time::strptime_ymd(date) else {
        return Window::BadDate(Handled::ok(
            obj! { "error" => format!("Invalid date format: {}", excerpt(date)) },
        ));
    };
    let start = day * DAY;
    match days
        .as_i64()
        .filter(|d| d.abs() <= MAX_TIMEDELTA_DAYS)
        .and_then(|d| time::add(start, d.checked_mul(DAY)?))
    {
        Some(end) => Window::Range(start, end),
        None => Window::Crash,
    }
}

/// Events starting in `[start, end)` and accepted by `keep`, sorted by `start_time` text.
fn events_in(
    cx: &Ctx<'_>,
    start: i64,
    end: i64,
    keep: impl Fn(&Obj) -> Result<bool, py::Crash>,
) -> Result<Vec<Json>, py::Crash> {
    let mut hits: Vec<&Obj> = Vec::new();
    for r in cx.records().iter() {
        let Some(&Some(t)) = r.derived::<Option<i64>>() else {
            return Err(py::Crash);
        };
        if start <= t && t < end && keep(r.data())? {
            hits.push(r.data());
        }
    }
    hits.sort_by(|a, b| {
        py::cmp_str(
            a.get_str("start_time").unwrap_or(""),
            b.get_str("start_time").unwrap_or(""),
        )
    });
    Ok(hits.into_iter().map(|o| Json::Object(o.clone())).collect())
}

fn list_events(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let (start, end) = match window(
        str_field(req, "date"),
        req.get("days").unwrap_or(&Json::Null),
    ) {
        Window::Range(s, e) => (s, e),
        Window::BadDate(o) => return o,
        Window::Crash => return Handled::crash(),
    };
    match events_in(cx, start, end, |_| Ok(true)) {
        Ok(events) => {
            let total = events.len();
            Handled::ok(obj! { "events" => events, "total" => total })
        }
        Err(c) => c.into(),
    }
}

fn user_events(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let user = str_field(req, "user");
    let (start, end) = match window(str_field(req, "date"), &Json::Int(1)) {
        Window::Range(s, e) => (s, e),
        Window::BadDate(o) => return o,
        Window::Crash => return Handled::crash(),
    };
    let matches = |ev: &Obj| -> Result<bool, py::Crash> {
        let Some(Json::Array(attendees)) = ev.get("attendees") else {
            return Ok(false);
        };
        for a in attendees {
            let Json::Str(a) = a else {
                return Err(py::Crash);
            };
            if **a == *user || a.contains(user) {
                return Ok(true);
            }
        }
        Ok(false)
    };
    match events_in(cx, start, end, matches) {
        Ok(events) => {
            let total = events.len();
            Handled::ok(obj! { "events" => events, "total" => total, "user" => user })
        }
        Err(c) => c.into(),
    }
}

fn create_event(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let id = format!("evt_{:03}", cx.records().len() + 1);
    let mut rec = Obj::with_capacity(7);
    rec.push("event_id", id);
    for f in ["title", "start_time", "end_time", "attendees", "location"] {
        rec.push(f, req.get(f).cloned().unwrap_or(Json::Null));
    }
    rec.push("recurring", false);
    cx.push(rec.clone());
    let rec = Json::Object(rec);
    cx.append("created_events", rec.clone());
    Handled::ok(obj! { "status" => "created", "event" => rec })
}
