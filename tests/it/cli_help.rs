//! The help a new user reads (issue 36): wrapped to the terminal, options under headings with
//! the global flags last, every agent kind named, examples that parse (and, for the quick ones,
//! run); and "did you mean" for agents, models, task ids and subcommands.

use std::path::Path;
use std::process::{Command, Output};

use clap::{CommandFactory, Parser};
use clawrun::cli::Cli;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `clawrun ARGS` in the repository, the terminal `columns` wide, no model keys.
fn clawrun(args: &[&str], columns: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_clawrun"))
        .args(args)
        .current_dir(repo())
        .env("COLUMNS", columns)
        .env_remove("RUST_LOG")
        .env_remove("CLAWRUN_LOG")
        .env_remove("OPENAI_API_KEY")
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The subcommands' names.
fn subcommands() -> Vec<String> {
    Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect()
}

/// The section headings of a help text (`Selection:`), in order.
fn headings(help: &str) -> Vec<&str> {
    help.lines()
        .filter(|l| l.ends_with(':') && l.chars().next().is_some_and(char::is_uppercase))
        .map(|l| l.trim_end_matches(':'))
        .collect()
}

#[test]
fn help_is_wrapped_to_the_terminal_grouped_under_headings_global_flags_last() {
    for columns in ["80", "60"] {
        let width: usize = columns.parse().unwrap();
        for name in std::iter::once(String::new()).chain(subcommands()) {
            for flag in ["-h", "--help"] {
                let mut args: Vec<&str> = Vec::new();
                if !name.is_empty() {
                    args.push(&name);
                }
                args.push(flag);
                let o = clawrun(&args, columns);
                assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
                let help = text(&o.stdout);
                for line in help.lines() {
                    assert!(
                        line.chars().count() <= width,
                        "clawrun {args:?} at COLUMNS={columns}: a line of {} characters:\n{line}",
                        line.chars().count()
                    );
                }
                // -v and -q are listed last, under their own heading.
                let found = headings(&help);
                let options: Vec<&str> = found
                    .iter()
                    .copied()
                    .filter(|h| !matches!(*h, "Usage" | "Arguments" | "Commands" | "Examples"))
                    .collect();
                assert_eq!(
                    options.last(),
                    Some(&"Global options"),
                    "{args:?}: {found:?}"
                );
                let global = help.find("Global options:").unwrap();
                assert!(help[global..].contains("-v, --verbose"), "{args:?}");
            }
        }
    }
    // A wide terminal still gets lines a reader can follow.
    let help = text(&clawrun(&["run", "--help"], "300").stdout);
    assert!(help.lines().all(|l| l.chars().count() <= 100), "{help}");

    // run -h: its options under headings, and every agent kind in --agent's help.
    let help = text(&clawrun(&["run", "-h"], "80").stdout);
    assert_eq!(
        headings(&help),
        [
            "Arguments",
            "Options",
            "Selection",
            "Agent and models",
            "Trials",
            "Judging",
            "Web",
            "Run folder and output",
            "Parallelism",
            "Global options",
            "Examples"
        ],
        "{help}"
    );
    let agent = &help[help.find("--agent <AGENT>").unwrap()..help.find("--model <MODEL>").unwrap()];
    for kind in [
        "oracle",
        "careless",
        "idle",
        "scripted:FILE",
        "replay:RUN_DIR",
        "openai:MODEL",
        "anthropic:MODEL",
        "openrouter:MODEL",
        "cmd:RECIPE",
    ] {
        assert!(agent.contains(kind), "--agent's help lacks {kind}: {agent}");
    }
}

/// The example command lines of `help` (after `Examples:`, the lines that start `clawrun`),
/// split into words as a shell would (single quotes group, and are removed).
fn examples(help: &str) -> Vec<Vec<String>> {
    let Some(at) = help.find("\nExamples:\n") else {
        return Vec::new();
    };
    help[at..]
        .lines()
        .map(str::trim)
        .filter(|l| l.starts_with("clawrun "))
        .map(shell_words)
        .collect()
}

/// `line` split at spaces outside single quotes.
fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quoted, mut any) = (Vec::new(), String::new(), false, false);
    for c in line.chars() {
        match c {
            '\'' => (quoted, any) = (!quoted, true),
            ' ' if !quoted => {
                if any {
                    words.push(std::mem::take(&mut word));
                }
                any = false;
            }
            c => (word, any) = (word + &c.to_string(), true),
        }
    }
    assert!(!quoted, "an unclosed quote: {line}");
    if any {
        words.push(word);
    }
    words
}

#[test]
fn every_example_in_the_help_parses_and_the_quick_ones_run() {
    let mut seen = 0;
    for name in subcommands() {
        let help = text(&clawrun(&[&name, "--help"], "100").stdout);
        for words in examples(&help) {
            assert_eq!(
                words[1], name,
                "an example of `{name}` runs another command"
            );
            if let Err(e) = Cli::try_parse_from(&words) {
                panic!("the example `{}` does not parse:\n{e}", words.join(" "));
            }
            seen += 1;
        }
    }
    assert!(seen >= 30, "{seen} examples");
    assert_eq!(
        shell_words("clawrun tool Bash '{\"command\": \"ls -la\"}' --workspace ."),
        [
            "clawrun",
            "tool",
            "Bash",
            "{\"command\": \"ls -la\"}",
            "--workspace",
            "."
        ]
    );
    for command in subcommands() {
        let help = text(&clawrun(&[&command, "-h"], "100").stdout);
        assert!(!examples(&help).is_empty(), "{command} shows examples");
        // An 80-column terminal shows each example on one line, as it is typed.
        let narrow = text(&clawrun(&[&command, "-h"], "80").stdout);
        assert_eq!(
            examples(&narrow),
            examples(&help),
            "{command} at 80 columns"
        );
    }

    // The list examples run as shown, and run's one-task example too (into a scratch folder).
    let help = text(&clawrun(&["list", "--help"], "100").stdout);
    for words in examples(&help) {
        let args: Vec<&str> = words[1..].iter().map(String::as_str).collect();
        let o = clawrun(&args, "100");
        assert!(o.status.success(), "{words:?}: {}", text(&o.stderr));
    }
    let help = text(&clawrun(&["run", "--help"], "100").stdout);
    let one = examples(&help)
        .into_iter()
        .find(|w| w.contains(&"T002_email_triage".to_string()))
        .expect("a one-task example");
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("run");
    let mut args: Vec<&str> = one[1..].iter().map(String::as_str).collect();
    args.extend(["--out", out.to_str().unwrap(), "--report", "none"]);
    let o = clawrun(&args, "100");
    assert!(o.status.success(), "{args:?}: {}", text(&o.stderr));
    assert!(out.join("journal.jsonl").is_file());
}

/// Runs `args` and returns its stderr, demanding exit status 2.
fn usage_error(args: &[&str]) -> String {
    let o = clawrun(args, "100");
    let stderr = text(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{args:?}: {stderr}");
    stderr
}

#[test]
fn slips_get_a_did_you_mean_naming_the_flag() {
    // Agent kinds and model providers, named with the flag.
    let e = usage_error(&["run", "--agent", "orcale"]);
    assert!(
        e.contains("--agent") && e.contains("(did you mean oracle?)"),
        "{e}"
    );
    let e = usage_error(&["run", "--agent", "carless"]);
    assert!(e.contains("(did you mean careless?)"), "{e}");
    let e = usage_error(&["run", "--agent", "opnai:gpt-4o"]);
    assert!(
        e.contains("--agent") && e.contains("(did you mean openai?)"),
        "{e}"
    );
    let e = usage_error(&["run", "--judge", "antropic:claude"]);
    assert!(
        e.contains("--judge") && e.contains("(did you mean anthropic?)"),
        "{e}"
    );
    let e = usage_error(&["run", "--agent", "scripted"]);
    assert!(
        e.contains("--agent scripted: give its FILE as scripted:FILE"),
        "{e}"
    );
    // Inspect's provider/model spelling is accepted: the run goes as far as the missing key.
    let e = usage_error(&["run", "--agent", "openai/gpt-4o", "--out", "/nonexistent/x"]);
    assert!(e.contains("--agent openai:gpt-4o: no API key"), "{e}");
    assert_eq!(
        format!(
            "{:?}",
            clawrun::run::AgentSpec::parse("anthropic/claude-x")
                .unwrap()
                .describe()
        ),
        "\"anthropic:claude-x\""
    );

    // Task ids: a slip, a prefix of one id, a prefix of several; for run, validate and list.
    for command in ["run", "validate", "list"] {
        let e = usage_error(&[command, "T002_email_triag"]);
        assert!(
            e.contains("no task matches \"T002_email_triag\"")
                && e.contains("(did you mean T002_email_triage?)"),
            "{command}: {e}"
        );
    }
    let e = usage_error(&["list", "T002"]);
    assert!(e.contains("(did you mean T002_email_triage?)"), "{e}");
    let e = usage_error(&["run", "T00"]);
    assert!(
        e.contains("ids beginning with it: T002_email_triage, "),
        "{e}"
    );
    let e = usage_error(&["run", "tasks/genral"]);
    assert!(e.contains("(did you mean tasks/general?)"), "{e}");
    let e = usage_error(&["run", "zzzzzzzzzz"]);
    assert!(!e.contains("did you mean"), "{e}");

    // Subcommands: clap's own tip, and the short slips its measure misses.
    for (typed, meant) in [
        ("reprot", "report"),
        ("rnu", "run"),
        ("rn", "run"),
        ("lsit", "list"),
    ] {
        let e = usage_error(&[typed]);
        assert!(
            e.contains("similar subcommand") && e.contains(&format!("'{meant}'")),
            "{typed}: {e}"
        );
    }
    let e = usage_error(&["frobnicate"]);
    assert!(!e.contains("similar subcommand"), "{e}");

    // `list TASKS` picks tasks as run does.
    let o = clawrun(&["list", "T002_email_triage", "--json"], "100");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let rows: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(rows.as_array().unwrap().len(), 1, "{rows}");
}
