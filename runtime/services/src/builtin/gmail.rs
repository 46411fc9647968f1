//! gmail (port 9100): an inbox shifted so the newest mail is a day old, a `days_back` window,
//! send and draft actions.

use std::sync::Arc;

use super::prelude::*;
use crate::engine::PrepareError;
use crate::py;
use crate::store::Derived;
use crate::time::{self, DAY, DateTime, MAX_TIMEDELTA_DAYS, UtcInstant};

const MAIL: [Field; 3] = [
    Field::req("to", Ty::Str),
    Field::req("subject", Ty::Str),
    Field::req("body", Ty::Str),
];

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "gmail",
    prefix: None,
    port: 9100,
    fixture: Fixture::Records {
        var: "GMAIL_FIXTURES",
        default: "tasks/T001zh_email_triage/fixtures/gmail/inbox.json",
    },
    prepare: Some(shift_dates),
    collection: Some(Collection {
        id: "message_id",
        noun: "Message",
    }),
    derive: Some(parse_date),
    lists: &["sent_messages", "drafts"],
    endpoints: &[
        Endpoint {
            path: "/gmail/messages",
            body: OPTIONAL,
            fields: &[
                Field::def("days_back", Ty::Int, Lit::Int(7)),
                Field::def("max_results", Ty::Int, Lit::Int(20)),
            ],
            op: Op::Custom(list_messages),
        },
        Endpoint {
            path: "/gmail/messages/get",
            body: REQUIRED,
            fields: &[Field::req("message_id", Ty::Str)],
            op: Op::Get,
        },
        Endpoint {
            path: "/gmail/send",
            body: REQUIRED,
            fields: &MAIL,
            op: Op::Record(RecordOp {
                list: "sent_messages",
                status: "sent",
                key: "message",
            }),
        },
        Endpoint {
            path: "/gmail/drafts/save",
            body: REQUIRED,
            fields: &[
                MAIL[0],
                MAIL[1],
                MAIL[2],
                Field::opt("reply_to_message_id", Ty::Str),
            ],
            op: Op::Record(RecordOp {
                list: "drafts",
                status: "draft_saved",
                key: "draft",
            }),
        },
    ],
    health: None,
};

const SUMMARY: &[&str] = &["message_id", "from", "subject", "date", "is_read", "labels"];

/// An aware datetime from field `field` of record `i`.
pub(super) fn aware(rec: &Obj, i: usize, field: &str) -> Result<DateTime, PrepareError> {
    let v = rec.get(field).ok_or_else(|| PrepareError::Missing {
        index: i,
        field: field.to_string(),
    })?;
    let s = v.as_str().ok_or_else(|| PrepareError::NotString {
        index: i,
        field: field.to_string(),
        value: v.to_string(),
    })?;
    match time::parse_isoformat(s) {
        Some(dt) if dt.offset.is_some() => Ok(dt),
        Some(_) => Err(PrepareError::NoOffset {
            index: i,
            field: field.to_string(),
            text: s.to_string(),
        }),
        None => Err(PrepareError::Invalid {
            index: i,
            field: field.to_string(),
            text: s.to_string(),
        }),
    }
}

/// `original + delta` written with the wall clock of the original offset and a `Z`.
pub(super) fn shifted(
    dt: DateTime,
    delta: i64,
    i: usize,
    field: &str,
) -> Result<Json, PrepareError> {
    time::add(dt.local, delta)
        .map(|l| Json::from(time::format_z(l)))
        .ok_or_else(|| PrepareError::OutOfRange {
            index: i,
            field: field.to_string(),
        })
}

/// Moves every `date` by `(now - 1 day) - newest`.
fn shift_dates(recs: &[Obj], now: UtcInstant) -> Result<Vec<Obj>, PrepareError> {
    if recs.is_empty() {
        return Ok(Vec::new());
    }
    let dates = recs
        .iter()
        .enumerate()
        .map(|(i, r)| aware(r, i, "date"))
        .collect::<Result<Vec<_>, _>>()?;
    let newest = dates.iter().filter_map(|d| d.instant()).max().unwrap_or(0);
    let delta = now.unix_micros() - DAY - newest;
    let mut out = recs.to_vec();
    for (i, (rec, dt)) in out.iter_mut().zip(dates).enumerate() {
        rec.insert("date", shifted(dt, delta, i, "date")?);
    }
    Ok(out)
}

/// The UTC instant of a record's `date` (`None` if it does not parse as an aware timestamp).
fn parse_date(rec: &Obj) -> Derived {
    let instant = rec
        .get_str("date")
        .and_then(time::parse_isoformat)
        .and_then(DateTime::instant);
    Some(Arc::new(instant))
}

/// `now - days` as Python computes it (`None` on `OverflowError`).
pub(super) fn days_from(now: UtcInstant, days: &Json, sign: i64) -> Option<i64> {
    let d = days.as_i64().filter(|d| d.abs() <= MAX_TIMEDELTA_DAYS)?;
    time::add(now.unix_micros(), (sign * d).checked_mul(DAY)?)
}

fn list_messages(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let Some(cutoff) = days_from(cx.now, req.get("days_back").unwrap_or(&Json::Null), -1) else {
        return Handled::crash();
    };
    let mut out = Vec::new();
    for r in cx.records().iter() {
        let Some(&Some(t)) = r.derived::<Option<i64>>() else {
            return Handled::crash();
        };
        if t >= cutoff {
            out.push(Json::Object(r.data().project(SUMMARY)));
        }
    }
    out.truncate(py::slice_len(
        out.len(),
        req.get("max_results").unwrap_or(&Json::Null),
    ));
    let total = out.len();
    Handled::ok(obj! { "messages" => out, "total" => total })
}
