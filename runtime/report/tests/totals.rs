//! Tokens, wall time and cost: the price table, the timings file and their totals; and the
//! terminal table fitting a width.

mod common;

use clawrun_report::render::table::{Table, fit};
use clawrun_report::{
    Group, Inputs, Prices, Summary, TimingLine, Timings, render_text, render_text_width,
};
use common::{close, records, scored, sourced};

const PRICES: &str = "mock-model: {input: 2.0, output: 10.0, cached_input: 0.5}\n";

#[test]
fn the_price_table_prices_a_model_by_its_full_or_bare_name() {
    let p = Prices::parse(PRICES, "prices.yaml").unwrap();
    // (1000 − 400) × 2 + 400 × 0.5 + 100 × 10 = 1200 + 200 + 1000 = 2400 per million
    close(p.cost("openai:mock-model", 1000, 100, 400).unwrap(), 0.0024);
    let err = p.cost("openai:other", 1, 1, 0).unwrap_err().to_string();
    assert!(
        err.starts_with("prices.yaml: no price for model `openai:other`"),
        "{err}"
    );
    assert!(err.contains("`other`"), "{err}");
    let json = Prices::parse(r#"{"gpt-5": {"input": 1.25, "output": 10}}"#, "p.json").unwrap();
    // cached_input defaults to input: 1000 × 1.25 per million
    close(json.cost("openai:gpt-5", 1000, 0, 500).unwrap(), 0.00125);
    let bad = Prices::parse("m: {input: 1, outptu: 2}\n", "bad.yaml")
        .unwrap_err()
        .to_string();
    assert!(
        bad.starts_with("bad.yaml:") && bad.contains("outptu"),
        "{bad}"
    );
    let negative = Prices::parse("m: {input: -1, output: 2}\n", "neg.yaml")
        .unwrap_err()
        .to_string();
    assert!(
        negative.contains("m.input: -1 is not a price"),
        "{negative}"
    );
}

#[test]
fn timings_sum_attempts_and_sessions_and_skip_a_torn_line() {
    let mut t = Timings::default();
    let text = [
        TimingLine::Trial {
            task_id: "T1".into(),
            trial: 0,
            wall_ms: 1500,
            wall_us: None,
        },
        TimingLine::Trial {
            task_id: "T1".into(),
            trial: 0,
            wall_ms: 500,
            wall_us: None,
        },
        TimingLine::Session {
            wall_ms: 4000,
            trials: 2,
            started: Some("2026-11-25T19:30:12Z".into()),
        },
        TimingLine::Session {
            wall_ms: 0,
            trials: 0,
            started: Some("2026-11-24T08:00:00Z".into()),
        },
    ]
    .iter()
    .map(|l| format!("{}\n", l.to_line()))
    .collect::<String>()
        + "{\"type\":\"trial\",\"task_";
    t.read(text.as_bytes(), "timings.jsonl").unwrap();
    assert_eq!(t.trial_ms("T1", 0), Some(2000));
    assert_eq!((t.session_ms, t.sessions), (4000, 2));
    // The earliest session start is the run's.
    assert_eq!(t.first_started.as_deref(), Some("2026-11-24T08:00:00Z"));
    // A damaged line in the middle (a crash) is skipped and named; the lines after it count.
    let mut t = Timings::default();
    let session = TimingLine::Session {
        wall_ms: 10,
        trials: 1,
        started: None,
    };
    let text = format!("not json\n{}\n", session.to_line());
    let skipped = t.read(text.as_bytes(), "timings.jsonl").unwrap();
    assert_eq!(skipped.len(), 1);
    assert!(
        skipped[0].starts_with("timings.jsonl:1: not a timing line"),
        "{skipped:?}"
    );
    assert_eq!(t.session_ms, 10);
}

#[test]
fn sub_millisecond_trials_sum_in_microseconds() {
    // Three 0.4 ms attempts: each line's whole milliseconds are 0, their sum is 1.2 ms.
    let mut timings = Timings::default();
    for trial in 0..3 {
        timings.add(TimingLine::Trial {
            task_id: "T001_alpha".into(),
            trial,
            wall_ms: 0,
            wall_us: Some(400),
        });
    }
    assert_eq!(timings.trial_us("T001_alpha", 0), Some(400));
    assert_eq!(timings.trial_ms("T001_alpha", 0), Some(0));
    let inputs = Inputs {
        timings,
        prices: None,
        ..Inputs::default()
    };
    let s = Summary::from_records_with(sourced("j", records()), None, &inputs).unwrap();
    assert_eq!(s.overall.totals.wall_us, Some(1200));
    assert_eq!(s.overall.totals.wall_ms, Some(1));
    let json: serde_json::Value = serde_json::from_str(&clawrun_report::render_json(&s)).unwrap();
    assert_eq!(json["summary"]["overall"]["totals"]["wall_us"], 1200);
}

#[test]
fn totals_and_cost_reach_tasks_aggregates_and_every_format() {
    let mut recs = records();
    for r in &mut recs {
        r.agent = "openai:mock-model".into();
        r.cached_input_tokens = 40;
    }
    let mut timings = Timings::default();
    timings.add(TimingLine::Trial {
        task_id: "T001_alpha".into(),
        trial: 0,
        wall_ms: 2500,
        wall_us: None,
    });
    timings.add(TimingLine::Session {
        wall_ms: 61_000,
        trials: 12,
        started: None,
    });
    let prices = Prices::parse(PRICES, "prices.yaml").unwrap();
    let inputs = Inputs {
        timings,
        prices: Some(&prices),
        ..Inputs::default()
    };
    let s = Summary::from_records_with(sourced("j", recs), None, &inputs).unwrap();
    // 12 records (the infra error included) × 100 in (40 cached) / 20 out
    let o = &s.overall.totals;
    assert_eq!(
        (o.input_tokens, o.output_tokens, o.cached_input_tokens),
        (1200, 240, 480)
    );
    // each record: (60 × 2 + 40 × 0.5 + 20 × 10) / 1e6 = 340e-6
    close(o.cost_usd.unwrap(), 12.0 * 340e-6);
    assert_eq!(o.wall_ms, Some(2500));
    assert_eq!(s.run_wall_ms, Some(61_000));
    let t1 = &s.tasks[0];
    assert_eq!(t1.trials[0].totals.wall_ms, Some(2500));
    assert_eq!(t1.trials[1].totals.wall_ms, None);
    let text = render_text(&s);
    assert!(text.contains("tokens (agent model)"), "{text}");
    assert!(text.contains("1200 in (480 cached) / 240 out"), "{text}");
    assert!(
        text.contains("1m01s in 1 run session(s); trials 2.5s summed"),
        "{text}"
    );
    assert!(
        text.contains("cost                                   $0.0041"),
        "{text}"
    );
    let json: serde_json::Value = serde_json::from_str(&clawrun_report::render_json(&s)).unwrap();
    assert_eq!(
        json["summary"]["overall"]["totals"]["cached_input_tokens"],
        480
    );
    assert_eq!(json["summary"]["run_wall_ms"], 61_000);
    let md = clawrun_report::render_markdown(&s);
    assert!(md.contains("| cost |"), "{md}");
    let html = clawrun_report::render_html(&s, &[]);
    assert!(html.contains("<div class=\"label\">Cost</div><div class=\"value\">$0.0041</div>"));
    // without a price table no cost is shown anywhere
    let unpriced = Summary::from_records(sourced("j", records()), None).unwrap();
    assert_eq!(unpriced.overall.totals.cost_usd, None);
    assert!(!render_text(&unpriced).contains("cost"));
    assert!(!clawrun_report::render_html(&unpriced, &[]).contains(">Cost<"));
}

#[test]
fn a_model_without_a_price_is_an_error_naming_it() {
    let mut r = scored("T1", "files", Group::General, 0, 1.0);
    r.agent = "anthropic:claude-x".into();
    let prices = Prices::parse(PRICES, "prices.yaml").unwrap();
    let inputs = Inputs {
        prices: Some(&prices),
        ..Inputs::default()
    };
    let err = Summary::from_records_with(sourced("j", vec![r]), None, &inputs)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("no price for model `anthropic:claude-x`"),
        "{err}"
    );
    // the oracle spends nothing and needs no price
    let oracle = scored("T1", "files", Group::General, 0, 1.0);
    let s = Summary::from_records_with(sourced("j", vec![oracle]), None, &inputs).unwrap();
    assert_eq!(s.overall.totals.cost_usd, Some(0.0));
}

#[test]
fn a_narrow_width_drops_the_least_important_columns_and_says_which() {
    let s = Summary::from_records(sourced("j", records()), None).unwrap();
    let wide = render_text(&s);
    assert!(wide.lines().map(|l| l.chars().count()).max().unwrap() > 100);
    let narrow = render_text_width(&s, Some(80));
    let (tasks, _) = narrow
        .split_once("\nCATEGORIES")
        .expect("the task table comes first");
    let tasks = tasks.split_once("\nTASKS\n").unwrap().1;
    for line in tasks.lines().filter(|l| !l.starts_with('(')) {
        assert!(line.chars().count() <= 80, "{line:?} is wider than 80");
    }
    // the task, its score, n, pass@1 and the unjudged count stay; the chips go first
    let header = tasks.lines().next().unwrap();
    for col in ["task", "n", "score", "pass@1", "unjudged"] {
        assert!(
            header.split_whitespace().any(|h| h == col),
            "{col}: {header}"
        );
    }
    assert!(!header.contains("trials"), "{header}");
    assert!(
        tasks.contains("columns hidden to fit 80 characters: "),
        "{tasks}"
    );
    assert!(
        tasks.contains("trials"),
        "the note names the hidden chips column"
    );
    // a width nothing fits keeps the priority-0 columns
    let t = Table {
        header: vec!["a".into(), "b".into(), "c".into()],
        rows: vec![vec!["xxxx".into(), "yyyy".into(), "zzzz".into()]],
        priority: vec![0, 1, 0],
        left: 1,
    };
    let out = fit(&t, Some(3));
    assert!(out.starts_with("a        c\n"), "{out}");
    // no limit: identical to the wide layout, every column
    assert_eq!(render_text_width(&s, None), wide);
}
