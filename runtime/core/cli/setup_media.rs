//! `clawrun setup claw-eval-media`: the files a Claw-Eval checkout lacks (its videos and
//! large PDFs, kept in its Hugging Face dataset), fetched by `clawrun_run::claw_eval_media`
//! with a progress bar on stderr.

use std::path::PathBuf;

use anyhow::Result;
use indicatif::{HumanBytes, ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::UsageError;
use super::output::outln;
use clawrun_run::claw_eval_media::{
    self, DATASET, MediaError, MediaProgress, Plan, Source, TOKEN_VAR, Wanted,
};

/// The flags of `clawrun setup claw-eval-media`.
#[derive(Debug, clap::Args)]
pub struct MediaArgs {
    /// The Claw-Eval clone to complete (the folder holding `tasks/`).
    #[arg(long, value_name = "DIR")]
    checkout: Option<PathBuf>,
    /// The Hub or a mirror of it [default: $HF_ENDPOINT, else https://huggingface.co]. A token
    /// in $HF_TOKEN is sent as a bearer token.
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The dataset's revision: a branch, tag or commit.
    #[arg(long, value_name = "REV", default_value = claw_eval_media::DEFAULT_REVISION)]
    revision: String,
    /// List what would be fetched (files and sizes) and download nothing.
    #[arg(long)]
    dry_run: bool,
}

impl MediaArgs {
    /// The first of these flags given, if any (they mean nothing to `setup python`).
    pub fn given(&self) -> Option<&'static str> {
        if self.checkout.is_some() {
            Some("--checkout")
        } else if self.base_url.is_some() {
            Some("--base-url")
        } else if self.revision != claw_eval_media::DEFAULT_REVISION {
            Some("--revision")
        } else if self.dry_run {
            Some("--dry-run")
        } else {
            None
        }
    }
}

/// Runs `clawrun setup claw-eval-media`: 0 when every chosen file is in place, 1 when some
/// failed (each named), 2 for bad flags or a folder that is not a checkout. `quiet` (`-q`):
/// no bar and no line per file, only the summary and errors.
pub fn setup_media(args: MediaArgs, quiet: bool) -> Result<i32> {
    let checkout = args.checkout.ok_or_else(|| {
        UsageError(
            "setup claw-eval-media needs --checkout DIR: the Claw-Eval clone (the folder \
             holding tasks/) the files go into"
                .into(),
        )
    })?;
    let source = Source::from_env(args.base_url.as_deref(), Some(&args.revision));
    if !quiet {
        eprintln!(
            "claw-eval-media: listing {DATASET} at {} (revision {}{})",
            source.endpoint,
            source.revision,
            if std::env::var_os(TOKEN_VAR).is_some() {
                format!(", with the token in {TOKEN_VAR}")
            } else {
                String::new()
            }
        );
    }
    let bar = Bar::new(quiet);
    let result = claw_eval_media::fetch(&checkout, &source, args.dry_run, &bar);
    bar.bar.finish_and_clear();
    let fetched = match result {
        Ok(f) => f,
        Err(MediaError::Usage(m)) => return Err(UsageError(m).into()),
        Err(e) => return Err(e.into()),
    };
    let plan = &fetched.plan;
    if args.dry_run {
        for w in &plan.wanted {
            outln!("{}  {}", w.dest, HumanBytes(w.file.size))?;
        }
        eprintln!(
            "claw-eval-media: would fetch {} files ({}); {} already in the checkout, {} of the \
             dataset's {} files are not for its tasks",
            plan.wanted.len(),
            HumanBytes(plan.bytes()),
            plan.present,
            plan.elsewhere,
            plan.listed
        );
        return Ok(0);
    }
    let secs = fetched.elapsed.as_secs_f64();
    eprintln!(
        "claw-eval-media: fetched {} of {} files ({} in {secs:.1} s{}); {} already in the \
         checkout; {} of the dataset's {} files are not for its tasks",
        fetched.written.len(),
        plan.wanted.len(),
        HumanBytes(fetched.bytes),
        if secs > 0.0 {
            format!(", {}/s", HumanBytes((fetched.bytes as f64 / secs) as u64))
        } else {
            String::new()
        },
        plan.present,
        plan.elsewhere,
        plan.listed
    );
    if !fetched.still_missing.is_empty() {
        eprintln!(
            "claw-eval-media: {} files the tasks reference are in neither the checkout nor the \
             dataset (their tasks stay needs-fixtures in `clawrun list`):",
            fetched.still_missing.len()
        );
        for m in &fetched.still_missing {
            eprintln!("  {m}");
        }
    }
    if fetched.failed.is_empty() {
        return Ok(0);
    }
    for e in &fetched.failed {
        eprintln!("clawrun: error: {e}");
    }
    eprintln!(
        "claw-eval-media: {} files failed (above); run the command again to retry them \
         (partial downloads resume)",
        fetched.failed.len()
    );
    Ok(1)
}

/// The download drawn on stderr: one bar over the bytes to fetch, a line per file (neither
/// when quiet).
struct Bar {
    bar: ProgressBar,
    quiet: bool,
}

impl Bar {
    fn new(quiet: bool) -> Self {
        let target = if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(None, target);
        if let Ok(style) = ProgressStyle::with_template(
            "{spinner} {msg} [{bar:30}] {bytes}/{total_bytes} ({bytes_per_sec}, ETA {eta})",
        ) {
            bar.set_style(style.progress_chars("=> "));
        }
        Self { bar, quiet }
    }

    /// Prints `line` above the bar (or alone when stderr is not a terminal).
    fn line(&self, line: &str) {
        if !self.quiet {
            self.bar.suspend(|| eprintln!("{line}"));
        }
    }
}

impl MediaProgress for Bar {
    fn listed_page(&self, page: usize, files: usize) {
        self.bar
            .set_message(format!("listing: page {page} ({files} files)"));
    }

    fn planned(&self, plan: &Plan) {
        self.bar.set_length(plan.bytes());
        self.bar.set_position(0);
        self.bar.reset_eta();
        let resumed = plan.wanted.iter().filter(|w| w.resumed > 0).count();
        self.line(&format!(
            "claw-eval-media: {} files to fetch ({}){}",
            plan.wanted.len(),
            HumanBytes(plan.bytes()),
            if resumed > 0 {
                format!(", {resumed} resuming a partial download")
            } else {
                String::new()
            }
        ));
    }

    fn started(&self, wanted: &Wanted, from: u64) {
        self.bar.set_message(short(&wanted.dest));
        if from > 0 {
            self.line(&format!(
                "resuming {} at {} of {}",
                wanted.dest,
                HumanBytes(from),
                HumanBytes(wanted.file.size)
            ));
        }
    }

    fn advanced(&self, n: u64) {
        self.bar.inc(n);
    }

    fn rewound(&self, n: u64) {
        self.bar.inc_length(n);
    }

    fn retrying(&self, wanted: &Wanted, next: u32, error: &MediaError) {
        self.line(&format!(
            "{}: {error}; attempt {next} resumes shortly",
            wanted.dest
        ));
    }

    fn written(&self, wanted: &Wanted) {
        self.line(&format!(
            "fetched {} ({}, {} verified)",
            wanted.dest,
            HumanBytes(wanted.file.size),
            wanted.file.hash.kind()
        ));
    }

    fn failed(&self, wanted: &Wanted, _error: &MediaError) {
        // The error itself is printed with the others at the end.
        self.line(&format!("failed: {}", wanted.dest));
    }
}

/// `path` cut to its last 40 characters, for the bar's message.
fn short(path: &str) -> String {
    let n = path.chars().count();
    if n <= 40 {
        return path.to_string();
    }
    let tail: String = path.chars().skip(n - 39).collect();
    format!("…{tail}")
}
