//! The help's layout: the headings options are grouped under in the long commands (the global
//! `-v`/`-q` under their own, printed last) and each command's examples, shown after its
//! options. `tests/it/cli_help.rs` parses every example shown.

/// Which tasks: the suite, task ids, the filters.
pub const SELECTION: &str = "Selection";
/// The agent, its model and the models' settings.
pub const AGENT: &str = "Agent and models";
/// How each trial runs: trials, faults, seed, limits.
pub const TRIALS: &str = "Trials";
/// How trials are scored: the judge, the grader, the pass threshold.
pub const JUDGING: &str = "Judging";
/// The web `web_real` services and `curl` reach.
pub const WEB: &str = "Web";
/// The run folder and what is printed and written.
pub const OUTPUT: &str = "Run folder and output";
/// Parallel trials and cluster shards.
pub const PARALLEL: &str = "Parallelism";
/// The search's settings (`fuzz`).
pub const SEARCH: &str = "Search";
/// How the tools are served (`mcp`).
pub const SERVING: &str = "Serving";
/// Where `setup claw-eval-media` fetches from and into.
pub const MEDIA: &str = "Claw-Eval media";
/// The flags every command takes.
pub const GLOBAL: &str = "Global options";

/// `clawrun run`'s examples.
pub const RUN: &str = "\
Examples:
  # every bundled task, oracle agent, 3 trials each
  clawrun run
  # one task, one trial, no faults
  clawrun run T002_email_triage --trials 1 --faults none
  # a model, judged by a model, 8 trials at once
  clawrun run --agent openai:gpt-5-mini --judge openai:gpt-5-mini -j 8
  # the multi-turn group, into a folder of your choice
  clawrun run --group multi-turn --out runs/multi-turn
  # finish an interrupted run
  clawrun run --resume --out runs/multi-turn";

/// `clawrun fuzz`'s examples.
pub const FUZZ: &str = "\
Examples:
  # 200 search trials on one task, filesystem faults too
  clawrun fuzz T002_email_triage --budget 200 --fs
  # stop at the first failure (CI)
  clawrun fuzz --agent careless --time 2m --stop-after 1
  # play a folder of reproducers again
  clawrun fuzz --regress runs/fuzz-oracle-seed0";

/// `clawrun mcp`'s examples.
pub const MCP: &str = "\
Examples:
  # over stdin/stdout, started by an MCP client
  clawrun mcp T002_email_triage
  # streamable HTTP on a free loopback port (printed on stderr)
  clawrun mcp T002_email_triage --listen 127.0.0.1:0 --faults none";

/// `clawrun report`'s examples.
pub const REPORT: &str = "\
Examples:
  clawrun report runs/oracle-seed0
  # two runs side by side, 80 columns
  clawrun report runs/a runs/b --width 80
  clawrun report runs/oracle-seed0 --json";

/// `clawrun judge`'s examples.
pub const JUDGE: &str = "\
Examples:
  clawrun judge runs/oracle-seed0 --judge openai:gpt-5-mini
  clawrun judge runs/oracle-seed0 --judge anthropic:claude-haiku-4-5 -j 4";

/// `clawrun validate`'s examples.
pub const VALIDATE: &str = "\
Examples:
  clawrun validate
  clawrun validate T002_email_triage --strict
  clawrun validate --group general";

/// `clawrun list`'s examples.
pub const LIST: &str = "\
Examples:
  clawrun list
  clawrun list --group multi-turn
  clawrun list --tags general --json";

/// `clawrun replay`'s examples.
pub const REPLAY: &str = "\
Examples:
  clawrun replay runs/oracle-seed0
  clawrun replay runs/oracle-seed0/T002_email_triage/0";

/// `clawrun trace`'s examples.
pub const TRACE: &str = "\
Examples:
  clawrun trace runs/oracle-seed0/T002_email_triage
  clawrun trace runs/oracle-seed0/T002_email_triage/0";

/// `clawrun exec`'s examples.
pub const EXEC: &str = "\
Examples:
  # a component over a read-only copy of ./data, its final root hash on stderr
  clawrun exec app.wasm --dir ./data::/data:ro --hash -- --input /data/in.txt
  # keep what it wrote in ./out
  clawrun exec app.wasm --dir ./out::/out --write-back";

/// `clawrun tool`'s examples.
pub const TOOL: &str = "\
Examples:
  clawrun tool Bash '{\"command\": \"ls -la\"}' --workspace .
  clawrun tool Read '{\"file_path\": \"/workspace/README.md\"}' --workspace .";

/// `clawrun services`'s examples.
pub const SERVICES: &str = "\
Examples:
  clawrun services --task tasks/T002_email_triage
  # on ports from 20000
  clawrun services --task tasks/T002_email_triage --port-base 20000
  # with Claw-Eval's faults
  clawrun services --task tasks/T002_email_triage --faults claw-eval";

/// `clawrun cassette`'s examples.
pub const CASSETTE: &str = "\
Examples:
  clawrun cassette show runs/web-run/web
  clawrun cassette merge cassettes/all runs/a/web runs/b/web";

/// `clawrun mock-llm`'s examples.
pub const MOCK_LLM: &str = "\
Examples:
  # any free port, printed
  clawrun mock-llm --script script.yaml --port 0";

/// `clawrun setup`'s examples.
pub const SETUP: &str = "\
Examples:
  clawrun setup python
  # the videos and PDFs a Claw-Eval clone lacks, from its Hugging Face dataset
  clawrun setup claw-eval-media --checkout ../claw-eval
  # what would be fetched, and from a mirror of the Hub (or set HF_ENDPOINT)
  clawrun setup claw-eval-media --checkout ../claw-eval --dry-run
  clawrun setup claw-eval-media --checkout . --base-url https://hf-mirror.com";

/// `clawrun completions`'s examples.
pub const COMPLETIONS: &str = "\
Examples:
  clawrun completions bash
  clawrun completions zsh";

/// `clawrun man`'s examples.
pub const MAN: &str = "\
Examples:
  clawrun man
  clawrun man --dir man1";

/// `clawrun view`'s examples.
pub const VIEW: &str = "\
Examples:
  # the runs under runs/, at http://127.0.0.1:7766
  clawrun view
  clawrun view runs/oracle-seed0 --port 0";

/// `clawrun export`'s examples.
pub const EXPORT: &str = "\
Examples:
  clawrun export runs/oracle-seed0 --format inspect --out oracle.eval
  clawrun export runs/oracle-seed0 --format atif --out trajectories
  # OTLP spans to a collector
  clawrun export runs/a --format otel --otlp-endpoint http://localhost:4318";
