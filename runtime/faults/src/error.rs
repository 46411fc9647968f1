//! Errors in fault plans, as the user sees them: file, line:column, field path, message, hint.

use std::fmt;

/// A position in a plan's source text (1-based); shared with task files.
pub use clawrun_task::yaml::Pos;

/// An invalid fault plan.
///
/// Displays as `<origin>:<line>:<column>: <field>: <message>` (the position and field when
/// known) with the hint on a second line, e.g.
///
/// ```text
/// plan.yaml:4:11: rules[0].kind: unknown fault kind `status502`
///   hint: valid kinds: status429[:SECS], status500, ...
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlanError {
    /// Where the plan came from: a file path, `--faults`, or a task file.
    pub origin: String,
    /// The field path within it (e.g. `faults.rules[1].kind`); empty for the whole input.
    pub field: String,
    /// The position in the source text, when known.
    pub pos: Option<Pos>,
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: Option<String>,
}

impl PlanError {
    /// An error about `field` of the plan from `origin`.
    pub fn new(
        origin: impl Into<String>,
        field: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        Self {
            origin: origin.into(),
            field: field.into(),
            pos: None,
            message: message.into(),
            hint: None,
        }
    }

    /// The same error at `pos`.
    pub fn at(mut self, pos: Option<Pos>) -> Self {
        self.pos = pos;
        self
    }

    /// The same error with `hint`.
    pub fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.origin)?;
        if let Some(pos) = self.pos {
            write!(f, ":{}:{}", pos.line, pos.column)?;
        }
        f.write_str(": ")?;
        if !self.field.is_empty() {
            write!(f, "{}: ", self.field)?;
        }
        f.write_str(&self.message)?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for PlanError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display() {
        let e = PlanError::new("plan.yaml", "rules[0].kind", "unknown fault kind `x`")
            .at(Some(Pos {
                line: 4,
                column: 11,
            }))
            .hint("valid kinds: eio");
        assert_eq!(
            e.to_string(),
            "plan.yaml:4:11: rules[0].kind: unknown fault kind `x`\n  hint: valid kinds: eio"
        );
        assert_eq!(
            PlanError::new("--faults", "", "bad").to_string(),
            "--faults: bad"
        );
    }
}
