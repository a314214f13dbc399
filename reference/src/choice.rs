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
    /// Runs still needed, at least: see [`ChoiceLog::pending`].
    pending: usize,
    /// What the choices were about, first occurrence first.
    pub reasons: Vec<&'static str>,
}

impl ChoiceLog {
    /// Prepares for the next run.
    pub fn start_run(&mut self) {
        self.taken.clear();
        self.pos = 0;
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
                // The next sequence, the alternatives after it at its
                // choice, and those not yet taken at every choice before.
                let before: usize = self.taken.iter().map(|(t, of)| of - 1 - t).sum();
                self.pending = 1 + (of - 2 - taken) + before;
                return true;
            }
        }
        self.exhausted = true;
        self.prefix.clear();
        self.pending = 0;
        false
    }

    /// After [`ChoiceLog::advance`], the fewest runs this thread still
    /// needs: each alternative not yet taken at a choice of the run just
    /// ended starts a sequence of its own. Exact as a lower bound while the
    /// choices a thread meets do not depend on its neighbours' choices (they
    /// can, through memory); the driver uses it only to stop early an
    /// exploration that would pass its run limit anyway.
    pub fn pending(&self) -> usize {
        self.pending
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

    #[test]
    fn walks_every_sequence_once() {
        let mut log = ChoiceLog::default();
        let mut seen = Vec::new();
        loop {
            log.start_run();
            let a = log.choose(2, "a");
            let b = if a == 1 { log.choose(3, "b") } else { 0 };
            seen.push((a, b));
            if !log.advance() {
                break;
            }
        }
        assert_eq!(seen, vec![(0, 0), (1, 0), (1, 1), (1, 2)]);
    }

    #[test]
    fn pending_counts_one_run_per_alternative_not_taken() {
        // Three choices of 2, 3 and 2 alternatives on every path: 12
        // sequences. After the first run, the alternatives not taken are
        // 1 + 2 + 1; the next sequence is one of them: 4 runs at least.
        let mut log = ChoiceLog::default();
        let mut runs = 0;
        loop {
            log.start_run();
            log.choose(2, "a");
            log.choose(3, "b");
            log.choose(2, "c");
            runs += 1;
            if !log.advance() {
                assert_eq!(log.pending(), 0);
                break;
            }
            if runs == 1 {
                assert_eq!(log.pending(), 4);
            }
            assert!(runs + log.pending() <= 12, "{runs} + {}", log.pending());
            assert!(log.pending() >= 1);
        }
        assert_eq!(runs, 12);
    }

    #[test]
    fn pending_is_a_lower_bound_when_paths_differ() {
        let mut log = ChoiceLog::default();
        let mut runs = 0;
        loop {
            log.start_run();
            if log.choose(2, "a") == 1 {
                log.choose(4, "b");
            }
            runs += 1;
            if !log.advance() {
                break;
            }
            assert!(runs + log.pending() <= 5, "{runs} + {}", log.pending());
        }
        assert_eq!(runs, 5);
    }
}
