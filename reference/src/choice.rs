//! Implementation choices, explored rather than picked.
//!
//! Wherever the documents let an implementation decide (a candidate at
//! exactly `t = tmax` "may be set as the current closest hit or dropped", the
//! order of candidates is not guaranteed, a comparison falls within the
//! precision an implementation is allowed), the reference asks a [`Chooser`]
//! for one of the `n` alternatives. The driver in [`crate::exec`] re-runs the
//! dispatch until every sequence of choices has been taken, and reports the
//! union of the results as the legal outcomes.

/// Supplies the alternative to take at each choice point.
pub trait Chooser {
    /// Picks one of `n` alternatives (`n >= 2`); `why` says what the choice
    /// is, for reports.
    fn choose(&mut self, n: usize, why: &'static str) -> usize;
}

/// A depth-first walk over the tree of choice sequences of one thread.
///
/// Each run replays `prefix` and takes alternative 0 at every choice beyond
/// it, recording how many alternatives there were; [`ChoiceLog::advance`]
/// then moves to the next unexplored sequence.
#[derive(Clone, Debug, Default)]
pub struct ChoiceLog {
    /// `(taken, of)` for each choice made in the current run.
    taken: Vec<(usize, usize)>,
    /// The sequence to replay at the start of the next run.
    prefix: Vec<usize>,
    /// Position in the current run.
    pos: usize,
    exhausted: bool,
    /// What the choices were about, first occurrence first.
    pub reasons: Vec<&'static str>,
}

impl ChoiceLog {
    /// Prepares for the next run.
    pub fn start_run(&mut self) {
        self.taken.clear();
        self.pos = 0;
    }

    /// How many more runs the walk would take if every alternative not yet
    /// taken at a choice of the current run's path led to as many
    /// sequences as the path does below that choice: the sum, over those
    /// choices, of the alternatives left times the product of the
    /// alternatives of the choices after it, saturating. Knuth's estimate
    /// of a tree's size from one path, applied to what is left of the walk
    /// (after the first run it is that estimate less the run taken); it
    /// sharpens as later runs take other paths.
    pub fn estimated_runs_left(&self) -> u64 {
        let mut below = 1u64;
        let mut left = 0u64;
        for (untaken, of) in self.untaken().rev() {
            left = left.saturating_add(untaken.saturating_mul(below));
            below = below.saturating_mul(of);
        }
        left
    }

    /// How many more runs the walk takes at least: every alternative not
    /// yet taken at a choice of the current run's path starts a run of its
    /// own (the walk takes alternatives in order, so those below the one
    /// taken are done). Exact as a lower bound while the thread's choices
    /// do not depend on other threads'.
    pub fn runs_left(&self) -> u64 {
        self.untaken().map(|(untaken, _)| untaken).sum()
    }

    /// For each choice of the current run's path, first first: how many of
    /// its alternatives the walk has still to take, and how many it has;
    /// none once the walk is exhausted.
    fn untaken(&self) -> impl DoubleEndedIterator<Item = (u64, u64)> + '_ {
        let path = if self.exhausted {
            &[][..]
        } else {
            &self.taken[..]
        };
        path.iter()
            .map(|&(taken, of)| ((of - taken - 1) as u64, of as u64))
    }

    /// Moves to the next unexplored sequence; returns `false` when this
    /// thread has taken every sequence. An exhausted log replays its first
    /// sequence, so that a thread with fewer paths than its neighbours still
    /// runs.
    pub fn advance(&mut self) -> bool {
        if self.exhausted {
            return false;
        }
        while let Some((taken, of)) = self.taken.pop() {
            if taken + 1 < of {
                self.prefix = self.taken.iter().map(|(t, _)| *t).collect();
                self.prefix.push(taken + 1);
                return true;
            }
        }
        self.exhausted = true;
        self.prefix.clear();
        false
    }
}

impl Chooser for ChoiceLog {
    fn choose(&mut self, n: usize, why: &'static str) -> usize {
        debug_assert!(n >= 2);
        let pick = if self.exhausted {
            0
        } else {
            self.prefix.get(self.pos).copied().unwrap_or(0).min(n - 1)
        };
        self.pos += 1;
        self.taken.push((pick, n));
        if !self.reasons.contains(&why) {
            self.reasons.push(why);
        }
        pick
    }
}

/// A chooser that always takes the first alternative (for unit tests that
/// want one legal result).
#[cfg(test)]
pub struct First;

#[cfg(test)]
impl Chooser for First {
    fn choose(&mut self, _: usize, _: &'static str) -> usize {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Walks the tree a in {0, 1}, b in {0, 1, 2} under a = 1 (four
    /// sequences) to its end; `f` sees each run's choices and the log as
    /// the run left it. Gives what `f` returned, and the exhausted log.
    fn walk_small_tree<T>(
        mut f: impl FnMut((usize, usize), &ChoiceLog) -> T,
    ) -> (Vec<T>, ChoiceLog) {
        let mut log = ChoiceLog::default();
        let mut seen = Vec::new();
        loop {
            log.start_run();
            let a = log.choose(2, "a");
            let b = if a == 1 { log.choose(3, "b") } else { 0 };
            seen.push(f((a, b), &log));
            if !log.advance() {
                return (seen, log);
            }
        }
    }

    #[test]
    fn walks_every_sequence_once() {
        let (seen, _) = walk_small_tree(|taken, _| taken);
        assert_eq!(seen, vec![(0, 0), (1, 0), (1, 1), (1, 2)]);
    }

    #[test]
    fn estimates_the_runs_left_from_the_path_taken() {
        let mut log = ChoiceLog::default();
        log.start_run();
        assert_eq!(log.estimated_runs_left(), 0);
        log.choose(3, "a");
        log.choose(2, "b");
        // 3 x 2 = 6 sequences as the first path sees the tree: 5 to go.
        assert_eq!(log.estimated_runs_left(), 5);
        log.advance();
        log.start_run();
        log.choose(3, "a");
        log.choose(2, "b");
        // (0, 1): a's two other alternatives, two sequences each.
        assert_eq!(log.estimated_runs_left(), 4);
        log.advance();
        log.start_run();
        log.choose(3, "a");
        // (1): a has one alternative left, and the path ends here.
        assert_eq!(log.estimated_runs_left(), 1, "only the current run's path");
        for _ in 0..80 {
            log.choose(4, "c");
        }
        assert_eq!(log.estimated_runs_left(), u64::MAX, "saturates");
    }

    #[test]
    fn counts_the_runs_left_on_the_path_taken() {
        let (left, log) = walk_small_tree(|_, log| log.runs_left());
        // After the first run only a = 1 is known to be left (its three
        // b's are not yet seen); after (1, 0), b = 1 and b = 2.
        assert_eq!(left, vec![1, 2, 1, 0]);
        assert_eq!(log.runs_left(), 0, "exhausted");
    }
}
