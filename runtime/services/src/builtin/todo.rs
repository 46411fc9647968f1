//! todo (port 9102): tasks with status filter, update, create (whose audit entry aliases the
//! live task, as upstream) and delete.

use super::prelude::*;

const ID: Field = Field::req("task_id", Ty::Str);

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "todo",
    prefix: None,
    port: 9102,
    fixture: Fixture::Records {
        var: "TODO_FIXTURES",
        default: "tasks/T007zh_todo_management/fixtures/todo/tasks.json",
    },
    prepare: None,
    collection: Some(Collection {
        id: "task_id",
        noun: "Task",
    }),
    derive: None,
    lists: &["deleted", "updated_tasks"],
    endpoints: &[
        Endpoint {
            path: "/todo/tasks",
            body: OPTIONAL,
            fields: &[Field::def("status", Ty::Str, Lit::Str("all"))],
            op: Op::List(ListOp {
                key: "tasks",
                filters: &[Filter::EqUnless {
                    param: "status",
                    field: "status",
                    all: "all",
                }],
                project: None,
                defaults: &[],
                limit: None,
            }),
        },
        Endpoint {
            path: "/todo/tasks/update",
            body: REQUIRED,
            fields: &[
                ID,
                Field::opt("title", Ty::Str),
                Field::opt("priority", Ty::Str),
                Field::opt("status", Ty::Str),
                Field::opt("tags", Ty::StrList),
            ],
            op: Op::Update(UpdateOp {
                set: &[],
                fields: &["title", "priority", "status", "tags"],
                copy_to: "updated_tasks",
                status: "updated",
                key: "task",
            }),
        },
        Endpoint {
            path: "/todo/tasks/create",
            body: REQUIRED,
            fields: &[
                Field::req("title", Ty::Str),
                Field::opt("description", Ty::Str),
                Field::def("priority", Ty::Str, Lit::Str("medium")),
                Field::opt("due_date", Ty::Str),
            ],
            op: Op::Custom(create_task),
        },
        Endpoint {
            path: "/todo/tasks/delete",
            body: REQUIRED,
            fields: &[ID],
            op: Op::Delete(DeleteOp {
                list: "deleted",
                key: "task",
            }),
        },
    ],
    health: None,
};

fn create_task(cx: &mut Ctx<'_>, req: &Obj) -> Handled {
    let id = format!("todo_{:03}", cx.records().len() + 1);
    let description = match req.get("description") {
        Some(Json::Str(s)) => Json::Str(s.clone()),
        _ => Json::from(""),
    };
    let task = obj! {
        "task_id" => id,
        "title" => req.get("title").cloned().unwrap_or(Json::Null),
        "description" => description,
        "status" => "pending",
        "priority" => req.get("priority").cloned().unwrap_or(Json::Null),
        "due_date" => req.get("due_date").cloned().unwrap_or(Json::Null),
        "tags" => Json::Array(Vec::new()),
        "created_at" => cx.now.isoformat(),
    };
    let slot = cx.push(task.clone());
    Handled::ok_live(obj! { "status" => "created", "task" => task }, "task", slot)
}
