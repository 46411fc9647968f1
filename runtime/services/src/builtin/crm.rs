//! crm (port 9110): customers filtered by status/tier/industry, report export.

use super::prelude::*;

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "crm",
    prefix: None,
    port: 9110,
    fixture: Fixture::Records {
        var: "CRM_FIXTURES",
        default: "tasks/T023zh_crm_data_export/fixtures/crm/customers.json",
    },
    prepare: None,
    collection: Some(Collection {
        id: "customer_id",
        noun: "Customer",
    }),
    derive: None,
    lists: &["exported_reports"],
    endpoints: &[
        Endpoint {
            path: "/crm/customers",
            body: OPTIONAL,
            fields: &[
                Field::opt("status", Ty::Str),
                Field::opt("tier", Ty::Str),
                Field::opt("industry", Ty::Str),
            ],
            op: Op::List(ListOp {
                key: "customers",
                filters: &[
                    Filter::EqIfSet {
                        param: "status",
                        field: "status",
                    },
                    Filter::EqIfSet {
                        param: "tier",
                        field: "tier",
                    },
                    Filter::EqIfSet {
                        param: "industry",
                        field: "industry",
                    },
                ],
                project: Some(&[
                    "customer_id",
                    "name",
                    "contact_person",
                    "tier",
                    "status",
                    "industry",
                    "annual_revenue",
                ]),
                defaults: &[],
                limit: None,
            }),
        },
        Endpoint {
            path: "/crm/customers/get",
            body: REQUIRED,
            fields: &[Field::req("customer_id", Ty::Str)],
            op: Op::Get,
        },
        Endpoint {
            path: "/crm/export",
            body: REQUIRED,
            fields: &[
                Field::req("title", Ty::Str),
                Field::req("customer_ids", Ty::StrList),
                Field::req("summary", Ty::Str),
            ],
            op: Op::Record(RecordOp {
                list: "exported_reports",
                status: "exported",
                key: "report",
            }),
        },
    ],
    health: None,
};
