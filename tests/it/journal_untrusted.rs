//! A run folder is input (copied, shared, damaged by a crash): whatever its journal's lines
//! say — a `trace` naming a host file or `..`, spans past any file or overflowing, hashes
//! that are no hashes, bytes that are not JSON, a torn tail — every reader (the run's resume
//! scan and `Journal::open`, the report's `JournalReader`, a record's `trace_bytes`) neither
//! panics nor reads outside the run folder, and a repaired journal keeps every intact record;
//! the report's figures over such records (counts at their type's largest) neither panic nor
//! overflow. Property-tested over journals built from hostile field values.

use std::path::Path;

use clawrun::report::{JournalReader, Summary, TraceSpan, TrialRecord};
use clawrun::run::journal::{Journal, damaged_path, read_journal, scan_heads};
use proptest::prelude::*;
use serde_json::Value;

/// What the file outside the run folder holds: never to be read as a trace.
const SECRET: &[u8] = b"host secret outside the run folder\n";

/// A real record of the fixture journal, as a JSON object.
fn template() -> Value {
    let line = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/journal_line.json"
    ))
    .unwrap();
    serde_json::from_str(line.trim_end()).unwrap()
}

/// A line of a hostile journal.
#[derive(Clone, Debug)]
enum Line {
    /// A record with these `trace`, span and hash fields, and these counts (tokens: input,
    /// output, cached; turns, cached turns, faults seen, failed calls).
    Record {
        trace: String,
        span: Option<(u64, u64)>,
        hash: Option<String>,
        tokens: [u64; 3],
        counts: [u32; 4],
    },
    /// Bytes that are not a record (zeros, text, half a record).
    Garbage(Vec<u8>),
}

fn trace_field() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("traces/0.jsonl".to_string()),
        Just("../secret".to_string()),
        Just("traces/../../secret".to_string()),
        Just("/dev/zero".to_string()),
        Just("traces/link.jsonl".to_string()),
        Just("traces".to_string()),
        Just(String::new()),
        "[a-z./]{0,12}",
    ]
}

fn hash_field() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        Just(Some(blake3::hash(b"{\"seq\":0}\n").to_hex().to_string())),
        Just(Some("aé".to_string())),
        // Not ASCII where a message cuts the hash (its 12th byte): once a panic.
        Just(Some("0123456789aé0123".to_string())),
        Just(Some(String::new())),
        "[0-9a-f]{0,70}".prop_map(Some),
        "[0-9a-fé]{0,70}".prop_map(Some),
    ]
}

/// A count as a journal may hold it: small, or at its type's largest (sums of such overflow).
fn count64() -> impl Strategy<Value = u64> {
    prop_oneof![Just(0), Just(3), Just(u64::MAX)]
}

/// As [`count64`], for the counts a record keeps in 32 bits.
fn count32() -> impl Strategy<Value = u32> {
    prop_oneof![Just(0), Just(3), Just(u32::MAX)]
}

fn line() -> impl Strategy<Value = Line> {
    prop_oneof![
        3 => (
            trace_field(),
            proptest::option::of((
                prop_oneof![Just(0u64), Just(u64::MAX), Just(u64::MAX - 3), 0u64..64],
                prop_oneof![Just(0u64), Just(u64::MAX), 0u64..64],
            )),
            hash_field(),
            [count64(), count64(), count64()],
            [count32(), count32(), count32(), count32()],
        )
            .prop_map(|(trace, span, hash, tokens, counts)| Line::Record {
                trace,
                span,
                hash,
                tokens,
                counts,
            }),
        1 => proptest::collection::vec(any::<u8>(), 0..40).prop_map(Line::Garbage),
        1 => (1usize..40).prop_map(|n| Line::Garbage(vec![0; n])),
    ]
}

/// The run folder: a pack holding one short trace, a symlink in `traces/` to the host file.
fn lay_out(root: &Path) -> std::path::PathBuf {
    let run = root.join("run");
    std::fs::create_dir_all(run.join("traces")).unwrap();
    std::fs::write(root.join("secret"), SECRET).unwrap();
    std::fs::write(run.join("traces/0.jsonl"), b"{\"seq\":0}\n").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.join("secret"), run.join("traces/link.jsonl")).unwrap();
    run
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn no_journal_makes_a_reader_panic_or_read_outside_its_run_folder(
        lines in proptest::collection::vec(line(), 0..8),
        torn in proptest::collection::vec(any::<u8>(), 0..20),
    ) {
        let tmp = tempfile::tempdir().unwrap();
        let run = lay_out(tmp.path());
        let template = template();
        let mut text = Vec::new();
        let mut records = 0;
        for l in &lines {
            match l {
                Line::Record { trace, span, hash, tokens, counts } => {
                    let mut r = template.clone();
                    // One trial each: duplicates are refused before anything is summed.
                    r["trial"] = records.into();
                    r["input_tokens"] = tokens[0].into();
                    r["output_tokens"] = tokens[1].into();
                    r["cached_input_tokens"] = tokens[2].into();
                    r["turns"] = counts[0].into();
                    r["cached_turns"] = counts[1].into();
                    r["verdict"]["faults_seen"] = counts[2].into();
                    r["verdict"]["failed_calls"] = counts[3].into();
                    r["trace"] = trace.clone().into();
                    r["trace_span"] = match span {
                        Some((offset, len)) => serde_json::json!({"offset": offset, "len": len}),
                        None => Value::Null,
                    };
                    r["trace_hash"] = hash.clone().map_or(Value::Null, Value::from);
                    text.extend_from_slice(serde_json::to_string(&r).unwrap().as_bytes());
                    records += 1;
                }
                Line::Garbage(bytes) => {
                    text.extend(bytes.iter().map(|&b| if b == b'\n' { b' ' } else { b }));
                }
            }
            text.push(b'\n');
        }
        text.extend(torn.iter().filter(|&&b| b != b'\n'));
        let journal = run.join("journal.jsonl");
        std::fs::write(&journal, &text).unwrap();

        // The report's reader: every record read, the rest named.
        let (read, _damage): (Vec<_>, _) = {
            let mut reader = JournalReader::new(std::io::BufReader::new(&text[..]), "j");
            let read: Vec<_> = (&mut reader).collect::<Result<_, _>>().unwrap();
            (read, reader.damage())
        };
        prop_assert_eq!(read.len(), records);
        // The report's figures over them, in every format: sums stay within their types.
        let summary = Summary::from_records(read.clone(), None).unwrap();
        let _ = clawrun::report::render_text(&summary);
        let _ = clawrun::report::render_json(&summary);
        let _ = clawrun::report::render_markdown(&summary);
        // Reading each record's trace: an error or the pack's own bytes, never the secret.
        for s in &read {
            let r: &TrialRecord = &s.record;
            if let Ok(bytes) = r.trace_bytes(&run) {
                prop_assert!(!bytes.windows(SECRET.len()).any(|w| w == SECRET));
                prop_assert!(bytes.len() <= 16);
            }
            let _ = r.trace_present(&run);
            let _ = r.trace_span.map(|s: TraceSpan| s.end());
        }
        // The run's own scans, then the repair a resume makes: the intact records stay, the
        // rest is set aside (not lost), and the journal is then whole.
        let mut heads = 0;
        scan_heads(&journal, |_, _| heads += 1).unwrap();
        prop_assert_eq!(heads, records);
        drop(Journal::open(&journal).unwrap());
        prop_assert_eq!(read_journal(&journal).unwrap().len(), records);
        let scan = scan_heads(&journal, |_, _| {}).unwrap();
        prop_assert!(scan.damage.is_empty(), "{:?}", scan.damage);
        let kept = std::fs::read(&journal).unwrap().len()
            + std::fs::read(damaged_path(&journal)).map_or(0, |b| b.len());
        prop_assert!(kept + torn.len() + 1 >= text.len());
    }
}
