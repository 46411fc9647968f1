//! scheduler (port 9112): cron jobs with filters, create/update/delete and run history.

use super::prelude::*;
use crate::py;

const ID: Field = Field::req("job_id", Ty::Str);

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "scheduler",
    prefix: None,
    port: 9112,
    fixture: Fixture::Records {
        var: "SCHEDULER_FIXTURES",
        default: "tasks/T041zh_scheduled_task_management/fixtures/scheduler/jobs.json",
    },
    prepare: None,
    collection: Some(Collection {
        id: "job_id",
        noun: "Job",
    }),
    derive: None,
    lists: &["created_jobs", "updated_jobs", "deleted_jobs"],
    endpoints: &[
        Endpoint {
            path: "/scheduler/jobs",
            body: OPTIONAL,
            fields: &[
                Field::opt("status", Ty::Str),
                Field::opt("enabled", Ty::Bool),
                Field::opt("tag", Ty::Str),
            ],
            op: Op::List(ListOp {
                key: "jobs",
                filters: &[
                    Filter::EqIfSet {
                        param: "status",
                        field: "last_status",
                    },
                    Filter::EqIfNotNull {
                        param: "enabled",
                        field: "enabled",
                    },
                    Filter::InIfSet {
                        param: "tag",
                        field: "tags",
                    },
                ],
                project: Some(&[
                    "job_id",
                    "name",
                    "cron_expression",
                    "enabled",
                    "last_status",
                    "last_run",
                    "next_run",
                    "tags",
                ]),
                defaults: &[("tags", Lit::EmptyList)],
                limit: None,
            }),
        },
        Endpoint {
            path: "/scheduler/jobs/get",
            body: REQUIRED,
            fields: &[ID],
            op: Op::Get,
        },
        Endpoint {
            path: "/scheduler/jobs/create",
            body: REQUIRED,
            fields: &[
                Field::req("name", Ty::Str),
                Field::req("cron_expression", Ty::Str),
                Field::req("action", Ty::Str),
                Field::def("enabled", Ty::Bool, Lit::Bool(true)),
                Field::opt("tags", Ty::StrList),
                Field::opt("created_by", Ty::Str),
            ],
            op: Op::Custom(create),
        },
        Endpoint {
            path: "/scheduler/jobs/update",
            body: REQUIRED,
            fields: &[
                ID,
                Field::opt("enabled", Ty::Bool),
                Field::opt("cron_expression", Ty::Str),
                Field::opt("name", Ty::Str),
                Field::opt("action", Ty::Str),
                Field::opt("tags", Ty::StrList),
            ],
            op: Op::Update(UpdateOp {
                set: &[],
                fields: &["enabled", "cron_expression", "name", "action", "tags"],
                copy_to: "updated_jobs",
                status: "updated",
                key: "job",
            }),
        },
        Endpoint {
            path: "/scheduler/jobs/delete",
            body: REQUIRED,
            fields: &[ID],
            op: Op::Delete(DeleteOp {
                list: "deleted_jobs",
                key: "job",
            }),
        },
        Endpoint {
            path: "/scheduler/jobs/history",
            body: REQUIRED,
            fields: &[ID, Field::def("limit", Ty::Int, Lit::Int(10))],
            op: Op::Custom(history),
        },
    ],
    health: None,
};

fn create(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let field = |k: &str| req.get(k).cloned().unwrap_or(Json::Null);
    let tags = match req.get("tags") {
        Some(t @ Json::Array(_)) => t.clone(),
        _ => Json::Array(Vec::new()),
    };
    let job = obj! {
        "job_id" => format!("JOB-{:03}", cx.records().len() + 1),
        "name" => field("name"),
        "cron_expression" => field("cron_expression"),
        "action" => field("action"),
        "enabled" => field("enabled"),
        "last_run" => Json::Null,
        "next_run" => Json::Null,
        "last_status" => Json::Null,
        "created_by" => field("created_by"),
        "tags" => tags,
        "created_at" => cx.now.isoformat(),
        "execution_history" => Json::Array(Vec::new()),
    };
    cx.push(job.clone());
    let job = Json::Object(job);
    cx.append("created_jobs", job.clone());
    Handled::ok(obj! { "status" => "created", "job" => job })
}

fn history(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let id = str_field(req, "job_id");
    let Some(i) = cx.find(id) else {
        return cx.not_found(id);
    };
    let all = cx
        .record(i)
        .data()
        .get("execution_history")
        .cloned()
        .unwrap_or(Json::Array(Vec::new()));
    let limit = req.get("limit").unwrap_or(&Json::Null);
    let (Ok(history), Ok(total)) = (py::slice(&all, limit), py::len(&all)) else {
        return Handled::crash();
    };
    Handled::ok(obj! { "job_id" => id, "history" => history, "total" => total })
}
