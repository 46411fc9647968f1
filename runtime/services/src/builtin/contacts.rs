//! contacts (port 9103): name search, lookup and messaging.

use super::prelude::*;

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "contacts",
    prefix: None,
    port: 9103,
    fixture: Fixture::Records {
        var: "CONTACTS_FIXTURES",
        default: "tasks/T009zh_contact_lookup/fixtures/contacts/contacts.json",
    },
    prepare: None,
    collection: Some(Collection {
        id: "contact_id",
        noun: "Contact",
    }),
    derive: None,
    lists: &["sent_messages"],
    endpoints: &[
        Endpoint {
            path: "/contacts/search",
            body: REQUIRED,
            fields: &[
                Field::req("query", Ty::Str),
                Field::opt("department", Ty::Str),
            ],
            op: Op::List(ListOp {
                key: "contacts",
                filters: &[
                    Filter::SubstrIfNotNull {
                        param: "query",
                        field: "name",
                    },
                    Filter::SubstrIfNotNull {
                        param: "department",
                        field: "department",
                    },
                ],
                project: None,
                defaults: &[],
                limit: None,
            }),
        },
        Endpoint {
            path: "/contacts/get",
            body: REQUIRED,
            fields: &[Field::req("contact_id", Ty::Str)],
            op: Op::Get,
        },
        Endpoint {
            path: "/contacts/send_message",
            body: REQUIRED,
            fields: &[
                Field::req("contact_id", Ty::Str),
                Field::req("message", Ty::Str),
            ],
            op: Op::Record(RecordOp {
                list: "sent_messages",
                status: "sent",
                key: "record",
            }),
        },
    ],
    health: None,
};
