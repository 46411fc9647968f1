//! notes (port 9105): meeting notes, listing with a limit, sharing.

use super::prelude::*;

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "notes",
    prefix: None,
    port: 9105,
    fixture: Fixture::Records {
        var: "NOTES_FIXTURES",
        default: "tasks/T013zh_meeting_notes/fixtures/notes/meetings.json",
    },
    prepare: None,
    collection: Some(Collection {
        id: "note_id",
        noun: "Note",
    }),
    derive: None,
    lists: &["shared"],
    endpoints: &[
        Endpoint {
            path: "/notes/list",
            body: OPTIONAL,
            fields: &[Field::def("max_results", Ty::Int, Lit::Int(10))],
            op: Op::List(ListOp {
                key: "notes",
                filters: &[],
                project: Some(&[
                    "note_id",
                    "title",
                    "created_at",
                    "participants",
                    "duration_minutes",
                ]),
                defaults: &[],
                limit: Some("max_results"),
            }),
        },
        Endpoint {
            path: "/notes/get",
            body: REQUIRED,
            fields: &[Field::req("note_id", Ty::Str)],
            op: Op::Get,
        },
        Endpoint {
            path: "/notes/share",
            body: REQUIRED,
            fields: &[
                Field::req("note_id", Ty::Str),
                Field::req("recipients", Ty::StrList),
            ],
            op: Op::Record(RecordOp {
                list: "shared",
                status: "shared",
                key: "record",
            }),
        },
    ],
    health: None,
};
