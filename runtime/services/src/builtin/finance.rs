//! finance (port 9104): transactions with an inclusive date-string range, expense reports.

use super::prelude::*;

pub(super) static DEF: ServiceDef = ServiceDef {
    kind: "finance",
    prefix: None,
    port: 9104,
    fixture: Fixture::Records {
        var: "FINANCE_FIXTURES",
        default: "tasks/T011zh_expense_report/fixtures/finance/transactions.json",
    },
    prepare: None,
    collection: Some(Collection {
        id: "transaction_id",
        noun: "Transaction",
    }),
    derive: None,
    lists: &["submitted_reports"],
    endpoints: &[
        Endpoint {
            path: "/finance/transactions",
            body: OPTIONAL,
            fields: &[
                Field::opt("start_date", Ty::Str),
                Field::opt("end_date", Ty::Str),
            ],
            op: Op::List(ListOp {
                key: "transactions",
                filters: &[Filter::Range {
                    field: "date",
                    min: "start_date",
                    max: "end_date",
                }],
                project: None,
                defaults: &[],
                limit: None,
            }),
        },
        Endpoint {
            path: "/finance/transactions/get",
            body: REQUIRED,
            fields: &[Field::req("transaction_id", Ty::Str)],
            op: Op::Get,
        },
        Endpoint {
            path: "/finance/report/submit",
            body: REQUIRED,
            fields: &[
                Field::req("title", Ty::Str),
                Field::req("transactions", Ty::StrList),
                Field::req("total_amount", Ty::Float),
            ],
            op: Op::Record(RecordOp {
                list: "submitted_reports",
                status: "submitted",
                key: "report",
            }),
        },
    ],
    health: None,
};
