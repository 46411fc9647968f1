//! helpdesk (port 9107): tickets (open by default), triage updates, closing.

use super::prelude::*;

const ID: Field = Field::req("ticket_id", Ty::Str);

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "helpdesk",
    prefix: None,
    port: 9107,
    fixture: Fixture::Records {
        var: "HELPDESK_FIXTURES",
        default: "tasks/T017zh_ticket_triage/fixtures/helpdesk/tickets.json",
    },
    prepare: None,
    collection: Some(Collection {
        id: "ticket_id",
        noun: "Ticket",
    }),
    derive: None,
    lists: &["closed", "updated_tickets"],
    endpoints: &[
        Endpoint {
            path: "/helpdesk/tickets",
            body: OPTIONAL,
            fields: &[Field::def("status", Ty::Str, Lit::Str("open"))],
            op: Op::List(ListOp {
                key: "tickets",
                filters: &[Filter::EqUnless {
                    param: "status",
                    field: "status",
                    all: "all",
                }],
                project: Some(&[
                    "ticket_id",
                    "title",
                    "reporter",
                    "department",
                    "priority",
                    "status",
                    "created_at",
                ]),
                defaults: &[],
                limit: None,
            }),
        },
        Endpoint {
            path: "/helpdesk/tickets/get",
            body: REQUIRED,
            fields: &[ID],
            op: Op::Get,
        },
        Endpoint {
            path: "/helpdesk/tickets/update",
            body: REQUIRED,
            fields: &[
                ID,
                Field::opt("priority", Ty::Str),
                Field::opt("tags", Ty::StrList),
                Field::opt("category", Ty::Str),
            ],
            op: Op::Update(UpdateOp {
                set: &[],
                fields: &["priority", "tags", "category"],
                copy_to: "updated_tickets",
                status: "updated",
                key: "ticket",
            }),
        },
        Endpoint {
            path: "/helpdesk/tickets/close",
            body: REQUIRED,
            fields: &[ID, Field::req("resolution", Ty::Str)],
            op: Op::Update(UpdateOp {
                set: &[("status", Lit::Str("closed"))],
                fields: &["resolution"],
                copy_to: "closed",
                status: "closed",
                key: "ticket",
            }),
        },
    ],
    health: None,
};
