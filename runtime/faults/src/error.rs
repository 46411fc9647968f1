//! Errors in fault plans, as the user sees them: the task loader's [`Diagnostic`], so plans
//! and task files report problems alike (file, line:column, field path, message, hint).

pub use clawrun_task::yaml::Pos;

/// An invalid fault plan: a [`Diagnostic`] whose `file` is where the plan came from (a file
/// path, `--faults`, or a task file) and whose `field` is the path within it (e.g.
/// `faults.rules[1].kind`; empty for the whole input).
///
/// Displays as `<origin>:<line>:<column>: <field>: <message> (hint: <hint>)`, e.g.
///
/// ```text
/// plan.yaml:4:11: rules[0].kind: unknown fault kind `status502` (hint: valid kinds: status429[:SECS], status500, ...)
/// ```
pub type PlanError = Diagnostic;

pub use clawrun_task::Diagnostic;

/// An error about `field` of the plan from `origin`.
pub(crate) fn plan_error(origin: &str, field: &str, message: impl Into<String>) -> PlanError {
    Diagnostic::error(origin, field, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display() {
        let e = plan_error("plan.yaml", "rules[0].kind", "unknown fault kind `x`")
            .at(Some(Pos {
                line: 4,
                column: 11,
            }))
            .hint("valid kinds: eio");
        assert_eq!(
            e.to_string(),
            "plan.yaml:4:11: rules[0].kind: unknown fault kind `x` (hint: valid kinds: eio)"
        );
        assert_eq!(
            plan_error("--faults", "", "bad").to_string(),
            "--faults: bad"
        );
    }
}
