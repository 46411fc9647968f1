//! Plans from the command line (`--faults none|claw-eval|claw-eval:RATE|PLAN.yaml`) and from
//! plan files.

use std::path::Path;

use super::error::{PlanError, plan_error};
use super::plan::FaultPlan;
use super::preset::{self, CLAW_EVAL};
use super::spec::{FaultsSection, PlanOptions, PlanSource};

/// How `--faults` values are named in errors.
pub const CLI_ORIGIN: &str = "--faults";

/// What `--faults` accepts, for hints.
const CLI_HINT: &str = "--faults takes `none`, `claw-eval`, `claw-eval:RATE` (RATE within 0..=1) \
                        or the path of a YAML/JSON plan file";

/// The plan a `--faults` value names: `none`, `claw-eval` (rate from `ERROR_RATE`, else 0),
/// `claw-eval:RATE`, or a path to a YAML/JSON plan file.
pub fn plan_from_cli(arg: &str, options: &PlanOptions) -> Result<FaultPlan, PlanError> {
    let arg_trimmed = arg.trim();
    if arg_trimmed.is_empty() || arg_trimmed == "none" {
        return Ok(FaultPlan::new(options.seed, Vec::new()).expect("empty plan"));
    }
    let cli_err = |message: String| plan_error(CLI_ORIGIN, "", message).hint(CLI_HINT);
    if let Some(rest) = arg_trimmed.strip_prefix(CLAW_EVAL) {
        let rate = match rest {
            "" => preset::default_rate(options.error_rate.as_deref()).map_err(|e| cli_err(e.0))?,
            _ if rest.starts_with(':') => {
                preset::parse_rate(&rest[1..]).map_err(|e| cli_err(format!("`{arg}`: {}", e.0)))?
            }
            _ if Path::new(arg).is_file() => return plan_from_file(Path::new(arg), options),
            _ => return Err(cli_err(format!("`{arg}` is not a preset"))),
        };
        return preset::claw_eval(options.seed, rate).map_err(|e| cli_err(e.0));
    }
    let path = Path::new(arg);
    if path.is_file() {
        plan_from_file(path, options)
    } else {
        Err(cli_err(format!(
            "`{arg}` is neither a preset nor an existing plan file"
        )))
    }
}

/// The plan in the YAML or JSON file at `path`.
pub fn plan_from_file(path: &Path, options: &PlanOptions) -> Result<FaultPlan, PlanError> {
    let origin = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| plan_error(origin.as_str(), "", format!("cannot read the plan: {e}")))?;
    plan_from_yaml(&text, &origin, options)
}

/// The plan in YAML or JSON `text` that came from `origin` (used in errors).
pub fn plan_from_yaml(
    text: &str,
    origin: &str,
    options: &PlanOptions,
) -> Result<FaultPlan, PlanError> {
    FaultsSection::from_yaml(text, origin)?.compile(PlanSource { origin, field: "" }, options)
}
