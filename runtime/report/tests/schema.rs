//! `report --json` against the shipped schema (`schemas/report.schema.json`): one run, a run
//! with totals and costs, unjudged trials, and a comparison; and the schema refuses what the
//! report never writes.

mod common;

use clawrun_report::{
    ArmInput, Comparison, Inputs, Prices, Summary, TimingLine, Timings, render_comparison_json,
    render_json,
};
use serde_json::Value;

/// The schema, compiled.
fn validator() -> jsonschema::Validator {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../schemas/report.schema.json"
    );
    let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

/// Asserts `json` is valid, listing every error otherwise.
#[track_caller]
fn assert_valid(v: &jsonschema::Validator, json: &str) {
    let doc: Value = serde_json::from_str(json).unwrap();
    let errors: Vec<String> = v
        .iter_errors(&doc)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

fn fixture_with_totals(prices: &Prices) -> Summary {
    let mut recs = common::records();
    for r in &mut recs {
        r.agent = "openai:m".into();
        r.cached_input_tokens = 10;
    }
    let mut timings = Timings::default();
    timings.add(TimingLine::Trial {
        task_id: "T002_beta".into(),
        trial: 1,
        wall_ms: 900,
        wall_us: None,
    });
    timings.add(TimingLine::Session {
        wall_ms: 5000,
        trials: 12,
        started: None,
    });
    let inputs = Inputs {
        timings,
        prices: Some(prices),
        ..Inputs::default()
    };
    Summary::from_records_with(common::sourced("j", recs), Some(2), &inputs).unwrap()
}

#[test]
fn every_kind_of_report_matches_the_schema() {
    let v = validator();
    let plain = Summary::from_records(common::sourced("j", common::records()), None).unwrap();
    assert_valid(&v, &render_json(&plain));
    let prices = Prices::parse("m: {input: 1, output: 2}\n", "p.yaml").unwrap();
    assert_valid(&v, &render_json(&fixture_with_totals(&prices)));
    let arm = |label: &str, recs| ArmInput {
        label: label.to_string(),
        runs: Vec::new(),
        records: common::sourced(label, recs),
        inputs: Inputs::default(),
    };
    let mut other = common::records();
    other.truncate(7);
    for r in &mut other {
        r.agent = "idle".into();
        if let Some(v) = &mut r.verdict {
            v.scores.score /= 2.0;
        }
    }
    let c = Comparison::build(
        vec![
            arm("oracle", common::records()),
            arm("idle", other.clone()),
            arm("idle2", other),
        ],
        None,
    )
    .unwrap();
    assert_valid(&v, &render_comparison_json(&c));
}

#[test]
fn the_schema_refuses_what_the_report_never_writes() {
    let v = validator();
    let plain = Summary::from_records(common::sourced("j", common::records()), None).unwrap();
    let good: Value = serde_json::from_str(&render_json(&plain)).unwrap();
    let mut unknown = good.clone();
    unknown["summary"]["overall"]["surprise"] = Value::from(1);
    assert!(!v.is_valid(&unknown), "an unknown field");
    let mut wrong = good.clone();
    wrong["summary"]["tasks"][0]["trials"][0]["judgement"] = Value::from("maybe");
    assert!(!v.is_valid(&wrong), "an unknown judgement");
    let mut missing = good;
    missing["summary"]["tasks"][0]
        .as_object_mut()
        .unwrap()
        .remove("totals");
    assert!(!v.is_valid(&missing), "a missing field");
}
