//! The engine's built-in operations on a service's records: get, list (with filters and
//! projection), record (append), update and delete, each with FastAPI's answers.

use super::{Ctx, DeleteOp, Filter, Handled, ListOp, RecordOp, UpdateOp, str_field};
use crate::json::{Json, Obj, obj};
use crate::py;
use crate::validate::Lit;

pub(super) fn id_of<'o>(cx: &Ctx<'_>, req: &'o Obj) -> &'o str {
    str_field(req, cx.def.collection.map_or("id", |c| c.id))
}

pub(super) fn op_get(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let id = id_of(cx, req);
    match cx.find(id) {
        Some(i) => Handled::ok(Json::Object((*cx.record(i).data).clone())),
        None => cx.not_found(id),
    }
}

pub(super) fn truthy(v: Option<&Json>) -> Option<&Json> {
    v.filter(|v| match v {
        Json::Null => false,
        Json::Str(s) => !s.is_empty(),
        Json::Bool(b) => *b,
        Json::Array(a) => !a.is_empty(),
        _ => true,
    })
}

pub(super) fn passes(f: &Filter, rec: &Obj, req: &Obj) -> Result<bool, py::Crash> {
    Ok(match f {
        Filter::EqUnless { param, field, all } => {
            let want = req.get(param).unwrap_or(&Json::Null);
            want.as_str() == Some(all) || rec.get(field).is_some_and(|v| py::eq(v, want))
        }
        Filter::EqIfSet { param, field } => match truthy(req.get(param)) {
            None => true,
            Some(want) => rec.get(field).is_some_and(|v| py::eq(v, want)),
        },
        Filter::EqIfNotNull { param, field } => match req.get(param) {
            None | Some(Json::Null) => true,
            Some(want) => rec.get(field).is_some_and(|v| py::eq(v, want)),
        },
        Filter::InIfSet { param, field } => match truthy(req.get(param)) {
            None => true,
            Some(want) => match rec.get(field) {
                None => false,
                Some(container) => py::contains(container, want)?,
            },
        },
        Filter::SubstrIfNotNull { param, field } => match req.get(param) {
            None | Some(Json::Null) => true,
            Some(want) => match rec.get(field) {
                None => false,
                Some(container) => py::contains(container, want)?,
            },
        },
        Filter::Range { field, min, max } => {
            use std::cmp::Ordering::{Greater, Less};
            for (bound, reject) in [(min, Less), (max, Greater)] {
                if let Some(b) = truthy(req.get(bound)) {
                    let Some(v) = rec.get(field) else {
                        return Ok(false);
                    };
                    if py::compare(v, b)? == Some(reject) {
                        return Ok(false);
                    }
                }
            }
            true
        }
    })
}

pub(super) fn op_list(cx: &Ctx<'_>, op: &ListOp, req: &Obj) -> Result<Handled, py::Crash> {
    let mut out = Vec::new();
    for r in cx.records.iter() {
        let mut keep = true;
        for f in op.filters {
            if !passes(f, &r.data, req)? {
                keep = false;
                break;
            }
        }
        if keep {
            out.push(project(&r.data, op.project, op.defaults));
        }
    }
    if let Some(limit) = op.limit {
        out.truncate(py::slice_len(
            out.len(),
            req.get(limit).unwrap_or(&Json::Null),
        ));
    }
    let total = out.len();
    Ok(Handled::ok(
        obj! { op.key => Json::Array(out), "total" => total },
    ))
}

/// A record as a listing shows it.
pub fn project(rec: &Obj, fields: Option<&[&str]>, defaults: &[(&str, Lit)]) -> Json {
    let Some(fields) = fields else {
        return Json::Object(rec.clone());
    };
    let mut o = Obj::with_capacity(fields.len());
    for &f in fields {
        let v = match rec.get(f) {
            Some(v) => v.clone(),
            None => defaults
                .iter()
                .find(|(k, _)| *k == f)
                .map_or(Json::Null, |(_, l)| l.to_json()),
        };
        o.push(f, v);
    }
    Json::Object(o)
}

pub(super) fn op_record(cx: &mut Ctx<'_>, op: &RecordOp, req: &Obj) -> Handled {
    let mut rec = req.clone();
    rec.insert("timestamp", cx.now.isoformat());
    let rec = Json::Object(rec);
    cx.append(op.list, rec.clone());
    Handled::ok(obj! { "status" => op.status, op.key => rec })
}

pub(super) fn op_update(cx: &mut Ctx<'_>, op: &UpdateOp, req: &Obj) -> Handled {
    let id = id_of(cx, req);
    let Some(i) = cx.find(id) else {
        return cx.not_found(id);
    };
    let mut rec = (*cx.record(i).data).clone();
    for (k, v) in op.set {
        rec.insert(*k, v.to_json());
    }
    for &f in op.fields {
        if let Some(v) = req.get(f).filter(|v| !v.is_null()) {
            rec.insert(f, v.clone());
        }
    }
    cx.replace(i, rec.clone());
    let copy = Json::Object(rec);
    cx.append(op.copy_to, copy.clone());
    Handled::ok(obj! { "status" => op.status, op.key => copy })
}

pub(super) fn op_delete(cx: &mut Ctx<'_>, op: &DeleteOp, req: &Obj) -> Handled {
    let id = id_of(cx, req);
    let Some(i) = cx.find(id) else {
        return cx.not_found(id);
    };
    let removed = cx.remove(i);
    let rec = Json::Object((*removed.data).clone());
    cx.append_slot(op.list, rec.clone(), Some(removed.slot));
    Handled::ok(obj! { "status" => "deleted", op.key => rec })
}
