//! The summary is folded from a stream of records: the order they arrive in and how many
//! per-trial rows are kept change no figure.

mod common;

use clawrun_report::stats::all_k_pass;
use clawrun_report::{Group, Inputs, Summary, TrialRows, render_json};
use common::{records, scored, sourced};
use proptest::prelude::*;

fn summary(recs: Vec<clawrun_report::TrialRecord>, k: Option<u32>, rows: TrialRows) -> Summary {
    let inputs = Inputs {
        trial_rows: rows,
        ..Inputs::default()
    };
    Summary::from_records_with(sourced("j", recs), k, &inputs).unwrap()
}

#[test]
fn the_first_rows_only_leave_every_figure_as_it_was() {
    let mut recs = records();
    recs.reverse();
    let all = summary(recs.clone(), None, TrialRows::All);
    let mut first = summary(recs, None, TrialRows::First(2));
    for (t, full) in first.tasks.iter().zip(&all.tasks) {
        // the two lowest trial numbers, in order, however the records arrived
        let expected: Vec<u32> = full.trials.iter().take(2).map(|s| s.trial).collect();
        let kept: Vec<u32> = t.trials.iter().map(|s| s.trial).collect();
        assert_eq!(kept, expected, "{}", t.task_id);
        assert_eq!(t.scored_trials(), full.trials.len() as u32);
    }
    for (t, full) in first.tasks.iter_mut().zip(&all.tasks) {
        t.trials = full.trials.clone();
    }
    assert_eq!(render_json(&first), render_json(&all));
}

/// A task's trials: (trial number, passed, score in hundredths).
fn trials() -> impl Strategy<Value = Vec<(u32, bool, u8)>> {
    prop::collection::btree_map(0u32..40, (any::<bool>(), 0u8..=100), 1..25)
        .prop_map(|m| m.into_iter().map(|(t, (p, s))| (t, p, s)).collect())
}

proptest! {
    #[test]
    fn arrival_order_changes_nothing(
        trials in trials(),
        order in any::<prop::sample::Index>(),
        k in 1u32..6,
    ) {
        let recs: Vec<_> = trials
            .iter()
            .map(|&(trial, passed, score)| {
                let mut r = scored("T001_alpha", "finance", Group::General, trial, f64::from(score) / 100.0);
                let v = r.verdict.as_mut().unwrap();
                v.scores.passed = passed;
                r
            })
            .collect();
        // a rotation and a reversal of the trial order
        let mut shuffled = recs.clone();
        shuffled.rotate_left(order.index(recs.len()));
        shuffled.reverse();
        let a = summary(recs, Some(k), TrialRows::All);
        let b = summary(shuffled, Some(k), TrialRows::First(3));
        let (ta, tb) = (&a.tasks[0], &b.tasks[0]);
        prop_assert_eq!(ta.mean_score.map(f64::to_bits), tb.mean_score.map(f64::to_bits));
        let passes: Vec<bool> = trials.iter().map(|t| t.1).collect();
        prop_assert_eq!(tb.all_k_pass, all_k_pass(&passes, k));
        prop_assert_eq!(ta.all_k_pass, tb.all_k_pass);
        prop_assert_eq!(tb.flipped, passes.contains(&true) && passes.contains(&false));
        prop_assert_eq!(&ta.trials[..ta.trials.len().min(3)], &tb.trials[..]);
    }
}
