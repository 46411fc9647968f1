//! todo, contacts, finance, notes, kb, inventory, rss, config and scheduler on the shared
//! fixtures.

use crate::services_support;
use clawrun::services::ServiceRequest;
use services_support::*;

#[test]
fn todo_list_update_create_delete() {
    let mut s = load("T008_todo_management");
    assert_eq!(
        ok(&mut s, "todo", "/todo/tasks", "").get("total"),
        Some(&j("11"))
    );
    assert_eq!(
        column(
            &ok(&mut s, "todo", "/todo/tasks", r#"{"status": "completed"}"#),
            "tasks",
            "task_id"
        ),
        ["todo_005"]
    );
    let v = ok(
        &mut s,
        "todo",
        "/todo/tasks/update",
        r#"{"task_id": "todo_002", "status": "completed", "tags": ["duplicate"], "description": "ignored"}"#,
    );
    let t = v.get("task").unwrap();
    assert_eq!(
        (t.get("status"), t.get("tags")),
        (Some(&j(r#""completed""#)), Some(&j(r#"["duplicate"]"#)))
    );
    assert_eq!(
        post(
            &mut s,
            "todo",
            "/todo/tasks/update",
            r#"{"task_id": "todo_999"}"#
        ),
        (200, r#"{"error":"Task todo_999 not found"}"#.into())
    );
    let created = ok(
        &mut s,
        "todo",
        "/todo/tasks/create",
        r#"{"title": "Merge duplicates", "description": null}"#,
    );
    assert_eq!(
        created.to_compact(),
        r#"{"status":"created","task":{"task_id":"todo_012","title":"Merge duplicates","description":"","status":"pending","priority":"medium","due_date":null,"tags":[],"created_at":"2026-03-05T10:20:30.123456+00:00"}}"#
    );
    let v = ok(
        &mut s,
        "todo",
        "/todo/tasks/delete",
        r#"{"task_id": "todo_006"}"#,
    );
    assert_eq!(
        v.get("task").unwrap().get("title"),
        Some(&j(r#""Update api docs""#))
    );
    assert_eq!(
        post(
            &mut s,
            "todo",
            "/todo/tasks/delete",
            r#"{"task_id": "todo_006"}"#
        )
        .1,
        r#"{"error":"Task todo_006 not found"}"#
    );
    let a = audit(&s, "todo");
    assert_eq!(keys(&a), ["calls", "deleted", "updated_tasks"]);
    assert_eq!(column(&a, "deleted", "task_id"), ["todo_006"]);
    assert_eq!(column(&a, "updated_tasks", "task_id"), ["todo_002"]);
}

#[test]
fn todo_create_audit_aliases_the_live_task() {
    let mut s = load("T088_pinbench_project_bootstrap_plan");
    ok(
        &mut s,
        "todo",
        "/todo/tasks/create",
        r#"{"title": "Set up package", "priority": "high", "due_date": "2026-03-10"}"#,
    );
    let (_, at_call) = post(
        &mut s,
        "todo",
        "/todo/tasks/create",
        r#"{"title": "Write tests"}"#,
    );
    ok(
        &mut s,
        "todo",
        "/todo/tasks/update",
        r#"{"task_id": "todo_002", "status": "in_progress", "title": "Write unit tests"}"#,
    );
    let a = audit(&s, "todo");
    let calls = a.get("calls").unwrap().as_array().unwrap();
    let logged = calls[1].get("response_body").unwrap().get("task").unwrap();
    assert_eq!(
        logged.get("status"),
        Some(&j(r#""in_progress""#)),
        "the audit shows the task's latest state"
    );
    assert_eq!(logged.get("title"), Some(&j(r#""Write unit tests""#)));
    assert!(
        at_call.contains(r#""title":"Write tests""#) && at_call.contains(r#""status":"pending""#),
        "the response itself was a snapshot"
    );
    // After deletion the entry keeps the state at deletion.
    ok(
        &mut s,
        "todo",
        "/todo/tasks/delete",
        r#"{"task_id": "todo_002"}"#,
    );
    let a = audit(&s, "todo");
    let logged = a.get("calls").unwrap().as_array().unwrap()[1]
        .get("response_body")
        .unwrap()
        .get("task")
        .unwrap()
        .clone();
    assert_eq!(logged.get("status"), Some(&j(r#""in_progress""#)));
    // The first task was never changed.
    let first = a.get("calls").unwrap().as_array().unwrap()[0]
        .get("response_body")
        .unwrap()
        .get("task")
        .unwrap()
        .clone();
    assert_eq!(first.get("due_date"), Some(&j(r#""2026-03-10""#)));
}

#[test]
fn contacts_search_is_a_case_sensitive_name_substring() {
    let mut s = load("T010_contact_lookup");
    assert_eq!(
        column(
            &ok(
                &mut s,
                "contacts",
                "/contacts/search",
                r#"{"query": "Zhang"}"#
            ),
            "contacts",
            "contact_id"
        ),
        ["c_001", "c_002", "c_003"]
    );
    assert_eq!(
        ok(
            &mut s,
            "contacts",
            "/contacts/search",
            r#"{"query": "zhang"}"#
        )
        .get("total"),
        Some(&j("0"))
    );
    assert_eq!(
        column(
            &ok(
                &mut s,
                "contacts",
                "/contacts/search",
                r#"{"query": "Zhang", "department": "Eng"}"#
            ),
            "contacts",
            "contact_id"
        ),
        ["c_001"]
    );
    assert_eq!(
        ok(&mut s, "contacts", "/contacts/search", r#"{"query": ""}"#).get("total"),
        Some(&j("8"))
    );
    assert_eq!(
        ok(
            &mut s,
            "contacts",
            "/contacts/search",
            r#"{"query": "", "department": ""}"#
        )
        .get("total"),
        Some(&j("8"))
    );
    assert_eq!(
        ok(
            &mut s,
            "contacts",
            "/contacts/search",
            r#"{"query": "dzhang@company.com"}"#
        )
        .get("total"),
        Some(&j("0")),
        "email is not searched"
    );
    assert_eq!(
        post(&mut s, "contacts", "/contacts/search", "").0,
        422,
        "query is required"
    );
    let v = ok(
        &mut s,
        "contacts",
        "/contacts/get",
        r#"{"contact_id": "c_007"}"#,
    );
    assert_eq!(v.get("name"), Some(&j(r#""David Chang""#)));
    assert_eq!(
        post(
            &mut s,
            "contacts",
            "/contacts/get",
            r#"{"contact_id": "c_100"}"#
        )
        .1,
        r#"{"error":"Contact c_100 not found"}"#
    );
    let (_, body) = post(
        &mut s,
        "contacts",
        "/contacts/send_message",
        r#"{"contact_id": "nobody", "message": "Hi"}"#,
    );
    assert_eq!(
        body,
        r#"{"status":"sent","record":{"contact_id":"nobody","message":"Hi","timestamp":"2026-03-05T10:20:30.123456+00:00"}}"#
    );
    let a = audit(&s, "contacts");
    assert_eq!(keys(&a), ["calls", "sent_messages"]);
    assert_eq!(column(&a, "sent_messages", "contact_id"), ["nobody"]);
}

#[test]
fn finance_ranges_compare_strings_and_reports_store_floats() {
    let mut s = load("T012_expense_report");
    let all = ok(&mut s, "finance", "/finance/transactions", "");
    assert_eq!(all.get("total"), Some(&j("13")));
    let (_, text) = post(
        &mut s,
        "finance",
        "/finance/transactions/get",
        r#"{"transaction_id": "txn_001"}"#,
    );
    assert!(
        text.contains(r#""amount":328.0,"#),
        "328.00 is re-emitted as 328.0: {text}"
    );
    let v = ok(
        &mut s,
        "finance",
        "/finance/transactions",
        r#"{"start_date": "2026-02-21", "end_date": "2026-02-22"}"#,
    );
    assert_eq!(
        column(&v, "transactions", "transaction_id"),
        ["txn_002", "txn_003", "txn_004", "txn_011", "txn_012"]
    );
    let v = ok(
        &mut s,
        "finance",
        "/finance/transactions",
        r#"{"start_date": "2026-02-26", "end_date": ""}"#,
    );
    assert_eq!(
        column(&v, "transactions", "transaction_id"),
        ["txn_009", "txn_010", "txn_013"]
    );
    assert_eq!(
        ok(
            &mut s,
            "finance",
            "/finance/transactions",
            r#"{"end_date": "2026-02-2"}"#
        )
        .get("total"),
        Some(&j("0")),
        "string comparison"
    );
    assert_eq!(
        post(
            &mut s,
            "finance",
            "/finance/transactions/get",
            r#"{"transaction_id": "x"}"#
        )
        .1,
        r#"{"error":"Transaction x not found"}"#
    );
    let (_, body) = post(
        &mut s,
        "finance",
        "/finance/report/submit",
        r#"{"title": "Feb", "transactions": ["txn_001"], "total_amount": 11476}"#,
    );
    assert_eq!(
        body,
        r#"{"status":"submitted","report":{"title":"Feb","transactions":["txn_001"],"total_amount":11476.0,"timestamp":"2026-03-05T10:20:30.123456+00:00"}}"#
    );
    let (_, body) = post(
        &mut s,
        "finance",
        "/finance/report/submit",
        r#"{"title": "Feb", "transactions": [], "total_amount": "1e3"}"#,
    );
    assert!(body.contains(r#""total_amount":1000.0"#), "{body}");
    let (status, body) = post(
        &mut s,
        "finance",
        "/finance/report/submit",
        r#"{"title": "Feb", "transactions": [], "total_amount": "lots"}"#,
    );
    assert_eq!(status, 422);
    assert!(body.contains(r#""type":"float_parsing""#));
    assert_eq!(
        column(&audit(&s, "finance"), "submitted_reports", "total_amount"),
        ["11476.0", "1000.0"]
    );
}

#[test]
fn notes_list_limit_projection_and_share() {
    let mut s = load("T014_meeting_notes");
    let v = ok(&mut s, "notes", "/notes/list", "");
    assert_eq!(v.get("total"), Some(&j("4")));
    assert_eq!(
        keys(&v.get("notes").unwrap().as_array().unwrap()[0]),
        [
            "note_id",
            "title",
            "created_at",
            "participants",
            "duration_minutes"
        ]
    );
    assert_eq!(
        column(
            &ok(&mut s, "notes", "/notes/list", r#"{"max_results": -1}"#),
            "notes",
            "note_id"
        ),
        ["note_001", "note_002", "note_003"]
    );
    assert!(
        ok(&mut s, "notes", "/notes/get", r#"{"note_id": "note_003"}"#)
            .get("content")
            .is_some()
    );
    assert_eq!(
        post(&mut s, "notes", "/notes/get", r#"{"note_id": "note_9"}"#).1,
        r#"{"error":"Note note_9 not found"}"#
    );
    let v = ok(
        &mut s,
        "notes",
        "/notes/share",
        r#"{"note_id": "note_001", "recipients": ["李明", "王芳"]}"#,
    );
    assert_eq!(v.get("status"), Some(&j(r#""shared""#)));
    assert_eq!(
        keys(v.get("record").unwrap()),
        ["note_id", "recipients", "timestamp"]
    );
    assert_eq!(
        post(
            &mut s,
            "notes",
            "/notes/share",
            r#"{"note_id": "note_001", "recipients": "all"}"#
        )
        .0,
        422
    );
    let a = audit(&s, "notes");
    assert_eq!(keys(&a), ["calls", "shared"]);
    assert_eq!(a.get("shared").unwrap().as_array().unwrap().len(), 1);
    let mut m = load("T099_pinbench_second_brain_recall");
    let v = ok(&mut m, "notes", "/notes/get", r#"{"note_id": "mem_001"}"#);
    assert!(
        v.get("content")
            .unwrap()
            .as_str()
            .unwrap()
            .contains("purple elephant sunrise")
    );
}

#[test]
fn kb_search_tokens_and_snippets() {
    let mut s = load("T016_kb_search");
    let hits = |s: &mut clawrun::services::ServiceSet, body: &str| {
        column(&ok(s, "kb", "/kb/search", body), "articles", "article_id")
    };
    assert_eq!(
        hits(&mut s, r#"{"query": "VPN"}"#),
        ["kb_001", "kb_003", "kb_006", "kb_007"]
    );
    assert_eq!(
        hits(&mut s, r#"{"query": "密码"}"#),
        ["kb_001", "kb_003", "kb_005"]
    );
    assert_eq!(
        hits(&mut s, r#"{"query": "重置密码"}"#),
        ["kb_001", "kb_002", "kb_003", "kb_005", "kb_006"],
        "sliced to 5"
    );
    assert_eq!(
        hits(&mut s, r#"{"query": "重置密码", "max_results": 10}"#).len(),
        6
    );
    assert!(hits(&mut s, r#"{"query": ""}"#).is_empty());
    assert!(hits(&mut s, r#"{"query": "a"}"#).is_empty());
    assert_eq!(
        hits(&mut s, r#"{"query": "VPN", "category": "IT支持"}"#),
        ["kb_001", "kb_006", "kb_007"]
    );
    assert_eq!(hits(&mut s, r#"{"query": "VPN", "category": ""}"#).len(), 4);
    let v = ok(
        &mut s,
        "kb",
        "/kb/search",
        r#"{"query": "VPN", "max_results": 1}"#,
    );
    let a = &v.get("articles").unwrap().as_array().unwrap()[0];
    assert_eq!(
        keys(a),
        [
            "article_id",
            "title",
            "category",
            "tags",
            "last_updated",
            "views",
            "snippet"
        ]
    );
    let snippet = a.get("snippet").unwrap().as_str().unwrap();
    assert!(
        snippet.starts_with("## VPN连接步骤\n\n1. 下载并安装 FortiClient VPN 客户端")
            && snippet.ends_with("连接超时：检查网络连接，..."),
        "{snippet}"
    );
    assert_eq!(snippet.chars().count(), 153);
}

#[test]
fn kb_update_replaces_content_and_dates_it() {
    let mut s = load("T042_scheduled_task_management");
    let (_, body) = post(
        &mut s,
        "kb",
        "/kb/articles/update",
        r#"{"article_id": "KB-501", "content": "zzqq only"}"#,
    );
    assert_eq!(body, r#"{"status":"updated","article_id":"KB-501"}"#);
    let v = ok(
        &mut s,
        "kb",
        "/kb/articles/get",
        r#"{"article_id": "KB-501"}"#,
    );
    assert_eq!(
        (v.get("content"), v.get("last_updated")),
        (Some(&j(r#""zzqq only""#)), Some(&j(r#""2026-03-05""#)))
    );
    // The search index follows the update.
    assert_eq!(
        column(
            &ok(&mut s, "kb", "/kb/search", r#"{"query": "zzqq"}"#),
            "articles",
            "article_id"
        ),
        ["KB-501"]
    );
    assert_eq!(
        post(
            &mut s,
            "kb",
            "/kb/articles/update",
            r#"{"article_id": "KB-1", "content": ""}"#
        )
        .1,
        r#"{"error":"Article KB-1 not found"}"#
    );
    let a = audit(&s, "kb");
    assert_eq!(keys(&a), ["calls", "updates"]);
    assert_eq!(
        a.get("updates").unwrap().to_compact(),
        r#"[{"article_id":"KB-501","timestamp":"2026-03-05T10:20:30.123456+00:00"}]"#
    );
}

#[test]
fn inventory_categories_and_unchecked_orders() {
    let mut s = load("T020_inventory_check");
    assert_eq!(
        ok(&mut s, "inventory", "/inventory/products", "").get("total"),
        Some(&j("10"))
    );
    assert_eq!(
        column(
            &ok(
                &mut s,
                "inventory",
                "/inventory/products",
                r#"{"category": "配件"}"#
            ),
            "products",
            "product_id"
        ),
        ["SKU-002", "SKU-003", "SKU-005", "SKU-010"]
    );
    assert_eq!(
        ok(
            &mut s,
            "inventory",
            "/inventory/products/get",
            r#"{"product_id": "SKU-009"}"#
        )
        .get("product_id"),
        Some(&j(r#""SKU-009""#))
    );
    assert_eq!(
        post(
            &mut s,
            "inventory",
            "/inventory/products/get",
            r#"{"product_id": "SKU-0"}"#
        )
        .1,
        r#"{"error":"Product SKU-0 not found"}"#
    );
    let (_, body) = post(
        &mut s,
        "inventory",
        "/inventory/orders/create",
        r#"{"product_id": "NOPE", "quantity": "-5"}"#,
    );
    assert_eq!(
        body,
        r#"{"status":"created","order":{"product_id":"NOPE","quantity":-5,"supplier":null,"timestamp":"2026-03-05T10:20:30.123456+00:00"}}"#
    );
    let (status, body) = post(
        &mut s,
        "inventory",
        "/inventory/orders/create",
        r#"{"product_id": "SKU-001", "quantity": 2.5}"#,
    );
    assert_eq!(status, 422);
    assert!(body.contains(r#""type":"int_from_float""#), "{body}");
    assert_eq!(
        column(&audit(&s, "inventory"), "orders", "quantity"),
        ["-5"]
    );
}

#[test]
fn rss_feeds_articles_and_publishing() {
    let mut s = load("T022_newsletter_curation");
    let v = ok(&mut s, "rss", "/rss/feeds", "");
    assert_eq!(v.get("total"), Some(&j("11")));
    let first = &v.get("feeds").unwrap().as_array().unwrap()[0];
    assert_eq!(
        first.to_compact(),
        r#"{"source":"AI日报","categories":["AI技术"],"article_count":2}"#
    );
    let v = ok(&mut s, "rss", "/rss/feeds", r#"{"category": "AI技术"}"#);
    assert_eq!(column(&v, "feeds", "source"), ["AI日报", "AI工程周报"]);
    let v = ok(&mut s, "rss", "/rss/articles", r#"{"source": "AI日报"}"#);
    assert_eq!(column(&v, "articles", "article_id"), ["rss_001", "rss_007"]);
    assert_eq!(
        keys(&v.get("articles").unwrap().as_array().unwrap()[0]),
        [
            "article_id",
            "title",
            "source",
            "category",
            "published_at",
            "summary",
            "word_count"
        ]
    );
    assert_eq!(
        ok(&mut s, "rss", "/rss/articles", r#"{"max_results": 3}"#).get("total"),
        Some(&j("3"))
    );
    assert!(
        ok(
            &mut s,
            "rss",
            "/rss/articles/get",
            r#"{"article_id": "rss_005"}"#
        )
        .get("content")
        .is_some()
    );
    assert_eq!(
        post(
            &mut s,
            "rss",
            "/rss/articles/get",
            r#"{"article_id": "rss_0"}"#
        )
        .1,
        r#"{"error":"Article rss_0 not found"}"#
    );
    assert_eq!(
        post(&mut s, "rss", "/rss/feeds/get", r#"{"source": "x"}"#),
        (404, r#"{"detail":"Not Found"}"#.into())
    );
    let v = ok(
        &mut s,
        "rss",
        "/rss/publish",
        r#"{"title": "Weekly", "content": "..."}"#,
    );
    assert_eq!(v.get("record").unwrap().get("recipients"), Some(&j("[]")));
    assert_eq!(column(&audit(&s, "rss"), "published", "title"), ["Weekly"]);
}

#[test]
fn config_secrets_updates_and_notifications() {
    let mut s = load("T028_api_config_audit");
    let v = ok(&mut s, "config", "/config/integrations", "");
    assert_eq!(v.get("total"), Some(&j("7")));
    let first = &v.get("integrations").unwrap().as_array().unwrap()[0];
    assert_eq!(
        keys(first),
        [
            "integration_id",
            "name",
            "service",
            "status",
            "last_verified",
            "monthly_calls",
            "error_rate"
        ]
    );
    assert_eq!(
        column(
            &ok(
                &mut s,
                "config",
                "/config/integrations",
                r#"{"status": "degraded"}"#
            ),
            "integrations",
            "integration_id"
        ),
        ["INT-004"]
    );
    let secret = ok(
        &mut s,
        "config",
        "/config/integrations/get",
        r#"{"integration_id": "INT-001"}"#,
    );
    assert!(
        secret.to_compact().contains("sk_live_"),
        "get returns secrets (the trap)"
    );
    let v = ok(
        &mut s,
        "config",
        "/config/integrations/update",
        r#"{"integration_id": "INT-006", "status": "inactive", "notes": ""}"#,
    );
    let integ = v.get("integration").unwrap();
    assert_eq!(integ.get("status"), Some(&j(r#""inactive""#)));
    assert_ne!(
        integ.get("notes"),
        Some(&j(r#""""#)),
        "empty strings are not applied"
    );
    assert_eq!(
        post(
            &mut s,
            "config",
            "/config/integrations/update",
            r#"{"integration_id": "INT-0"}"#
        )
        .1,
        r#"{"error":"Integration INT-0 not found"}"#
    );
    let (_, body) = post(
        &mut s,
        "config",
        "/config/notify",
        r#"{"to": "ops@x", "subject": "s", "body": "b"}"#,
    );
    assert_eq!(
        body,
        r#"{"status":"sent","notification":{"to":"ops@x","subject":"s","body":"b","timestamp":"2026-03-05T10:20:30.123456+00:00"}}"#
    );
    let a = audit(&s, "config");
    assert_eq!(keys(&a), ["calls", "updates", "notifications"]);
    assert_eq!(
        a.get("updates").unwrap().to_compact(),
        r#"[{"integration_id":"INT-006","changes":{"integration_id":"INT-006","status":"inactive","notes":""},"timestamp":"2026-03-05T10:20:30.123456+00:00"}]"#
    );
}

#[test]
fn scheduler_jobs_filters_crud_and_history() {
    let mut s = load("T042_scheduled_task_management");
    let v = ok(&mut s, "scheduler", "/scheduler/jobs", "");
    assert_eq!(v.get("total"), Some(&j("8")));
    assert_eq!(
        keys(&v.get("jobs").unwrap().as_array().unwrap()[0]),
        [
            "job_id",
            "name",
            "cron_expression",
            "enabled",
            "last_status",
            "last_run",
            "next_run",
            "tags"
        ]
    );
    let ids = |s: &mut clawrun::services::ServiceSet, body: &str| {
        column(
            &ok(s, "scheduler", "/scheduler/jobs", body),
            "jobs",
            "job_id",
        )
    };
    assert_eq!(
        ids(&mut s, r#"{"status": "failed"}"#),
        ["JOB-002", "JOB-007"]
    );
    assert_eq!(ids(&mut s, r#"{"enabled": false}"#), ["JOB-003"]);
    assert_eq!(ids(&mut s, r#"{"enabled": "no"}"#), ["JOB-003"]);
    assert_eq!(ids(&mut s, r#"{"tag": "sync"}"#), ["JOB-004", "JOB-005"]);
    assert_eq!(
        ids(&mut s, r#"{"tag": "syn"}"#),
        Vec::<String>::new(),
        "tags are matched as elements"
    );
    let v = ok(
        &mut s,
        "scheduler",
        "/scheduler/jobs/history",
        r#"{"job_id": "JOB-001", "limit": 2}"#,
    );
    assert_eq!(keys(&v), ["job_id", "history", "total"]);
    assert_eq!(
        (
            v.get("history").unwrap().as_array().unwrap().len(),
            v.get("total")
        ),
        (2, Some(&j("3")))
    );
    let v = ok(
        &mut s,
        "scheduler",
        "/scheduler/jobs/history",
        r#"{"job_id": "JOB-001", "limit": -1}"#,
    );
    assert_eq!(v.get("history").unwrap().as_array().unwrap().len(), 2);
    assert_eq!(
        post(
            &mut s,
            "scheduler",
            "/scheduler/jobs/history",
            r#"{"job_id": "JOB-9"}"#
        )
        .1,
        r#"{"error":"Job JOB-9 not found"}"#
    );
    let created = ok(
        &mut s,
        "scheduler",
        "/scheduler/jobs/create",
        r#"{"name": "n", "cron_expression": "not cron", "action": "a"}"#,
    );
    assert_eq!(
        created.get("job").unwrap().to_compact(),
        r#"{"job_id":"JOB-009","name":"n","cron_expression":"not cron","action":"a","enabled":true,"last_run":null,"next_run":null,"last_status":null,"created_by":null,"tags":[],"created_at":"2026-03-05T10:20:30.123456+00:00","execution_history":[]}"#
    );
    let v = ok(
        &mut s,
        "scheduler",
        "/scheduler/jobs/history",
        r#"{"job_id": "JOB-009"}"#,
    );
    assert_eq!(
        v.to_compact(),
        r#"{"job_id":"JOB-009","history":[],"total":0}"#
    );
    let v = ok(
        &mut s,
        "scheduler",
        "/scheduler/jobs/update",
        r#"{"job_id": "JOB-008", "enabled": false, "name": ""}"#,
    );
    assert_eq!(
        (
            v.get("job").unwrap().get("enabled"),
            v.get("job").unwrap().get("name")
        ),
        (Some(&j("false")), Some(&j(r#""""#)))
    );
    let v = ok(
        &mut s,
        "scheduler",
        "/scheduler/jobs/delete",
        r#"{"job_id": "JOB-003"}"#,
    );
    assert_eq!(v.get("status"), Some(&j(r#""deleted""#)));
    assert_eq!(
        post(
            &mut s,
            "scheduler",
            "/scheduler/jobs/get",
            r#"{"job_id": "JOB-003"}"#
        )
        .1,
        r#"{"error":"Job JOB-003 not found"}"#
    );
    let a = audit(&s, "scheduler");
    assert_eq!(
        keys(&a),
        ["calls", "created_jobs", "updated_jobs", "deleted_jobs"]
    );
    assert_eq!(column(&a, "created_jobs", "job_id"), ["JOB-009"]);
    assert_eq!(column(&a, "updated_jobs", "job_id"), ["JOB-008"]);
    assert_eq!(column(&a, "deleted_jobs", "job_id"), ["JOB-003"]);
    let r = s
        .route("scheduler", &ServiceRequest::post("/scheduler/reset"), NOW)
        .unwrap();
    assert_eq!(r.status, 200);
    assert_eq!(
        ok(&mut s, "scheduler", "/scheduler/jobs", "").get("total"),
        Some(&j("8"))
    );
    let created = ok(
        &mut s,
        "scheduler",
        "/scheduler/jobs/create",
        r#"{"name": "n", "cron_expression": "c", "action": "a", "tags": ["x"], "created_by": "me", "enabled": 0}"#,
    );
    assert_eq!(
        created.get("job").unwrap().get("job_id"),
        Some(&j(r#""JOB-009""#)),
        "ids restart after reset"
    );
    assert_eq!(
        created.get("job").unwrap().get("enabled"),
        Some(&j("false"))
    );
}
