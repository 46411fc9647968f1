//! Grading with Claw-Eval's own graders: a trial's evidence in Claw-Eval's formats
//! ([`export`]), graded by the task's unmodified `grader.py` with a checkout's own `claw_eval`
//! package ([`checkout`]) inside the Python sandbox ([`grade`]), its judge calls answered by
//! clawrun's judge model through the sandbox's door ([`judge_door`]), and the result as a
//! clawrun verdict ([`verdict`]).

pub mod checkout;
pub mod export;
pub mod grade;
pub mod judge_door;
pub mod server;
pub mod verdict;

pub use self::checkout::Checkout;
pub use self::grade::{ClawEvalGrader, Graded, GraderOutcome, GraderRun};
pub use self::judge_door::JudgeDoor;
