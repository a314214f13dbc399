//! Schedules: where threads go at reorder points.
//!
//! "An implementation may only reorder threads whose control flow arrives at
//! a reorder point" (`ser.divergence.only_arriving_threads_reordered`); it
//! may "remove, replace, or do nothing with threads that arrive", and
//! "replace threads that were inactive at the start of the wave or those
//! that exited" (`ser.divergence.arriving_threads_removed_replaced_or_kept`,
//! `ser.divergence.inactive_or_exited_lanes_replaceable`). Each schedule
//! here is one legal policy; the reference's legal outcomes do not depend on
//! which one runs (see `Board::packed_results`), and the test suite checks that.

use std::str::FromStr;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Schedule {
    /// No thread ever migrates: the minimal implementation.
    #[default]
    None,
    /// Arriving threads leave their waves and form new full waves, in
    /// order: the MyFunc example's "reorders threads invoking
    /// MaybeReorderThread but does not replace them".
    Regroup,
    /// Arriving threads fill the free lanes of their waves from the highest
    /// wave and lane down, in arrival order: "replaces threads in a wave",
    /// so a wave with lanes of exited or inactive threads may be joined by
    /// more threads than it lost.
    Replace,
    /// A seeded random initial layout of the dispatch in its waves, and a
    /// seeded random legal rearrangement at every reorder point.
    Shuffle(u64),
    /// ILLEGAL: also moves threads that did not arrive at a reorder point.
    /// It exists so the suite's own tests can show such a schedule is
    /// caught (`ser.divergence.non_arriving_threads_do_not_migrate`).
    IllegalMigrateAll,
}

impl FromStr for Schedule {
    type Err = String;

    fn from_str(s: &str) -> Result<Schedule, String> {
        match s {
            "none" => Ok(Schedule::None),
            "regroup" => Ok(Schedule::Regroup),
            "replace" => Ok(Schedule::Replace),
            "illegal-migrate-all" => Ok(Schedule::IllegalMigrateAll),
            _ => match s.strip_prefix("shuffle:").map(str::parse) {
                Some(Ok(seed)) => Ok(Schedule::Shuffle(seed)),
                _ => Err(format!(
                    "`{s}`: expected none, regroup, replace or shuffle:SEED"
                )),
            },
        }
    }
}

impl std::fmt::Display for Schedule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Schedule::None => f.write_str("none"),
            Schedule::Regroup => f.write_str("regroup"),
            Schedule::Replace => f.write_str("replace"),
            Schedule::Shuffle(s) => write!(f, "shuffle:{s}"),
            Schedule::IllegalMigrateAll => f.write_str("illegal-migrate-all"),
        }
    }
}

/// SplitMix64: a small generator whose sequence for a seed never changes,
/// so a schedule named in a report replays exactly.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// A lane: wave and index in it.
pub type Slot = (usize, usize);

/// New slots for the threads arriving at reorder points. `occupied` are the
/// slots of live threads that did not arrive (they never move); `arriving`
/// are the arriving threads with their current slots, in lane order. Returns
/// the new slot of each arriving thread.
pub fn place(
    schedule: Schedule,
    rng: &mut Rng,
    wave_size: usize,
    waves: usize,
    occupied: &[Slot],
    arriving: &[Slot],
) -> Vec<Slot> {
    // A wave takes in threads only while one of its own threads is at the
    // reorder point: lanes of exited or inactive threads may be refilled
    // "as long as any remaining thread reach a reorder point"
    // (`ser.divergence.inactive_or_exited_lanes_replaceable`).
    let free_in_existing = || -> Vec<Slot> {
        (0..waves)
            .filter(|w| arriving.iter().any(|(aw, _)| aw == w))
            .flat_map(|w| (0..wave_size).map(move |l| (w, l)))
            .filter(|s| !occupied.contains(s))
            .collect()
    };
    let fresh = |k: usize| -> Slot { (waves + k / wave_size, k % wave_size) };
    match schedule {
        Schedule::None | Schedule::IllegalMigrateAll => arriving.to_vec(),
        Schedule::Regroup => (0..arriving.len()).map(fresh).collect(),
        Schedule::Replace => {
            // The k-th arrival takes the k-th free lane from the end.
            let free = free_in_existing();
            (0..arriving.len())
                .map(|k| {
                    free.iter()
                        .rev()
                        .nth(k)
                        .copied()
                        .unwrap_or_else(|| fresh(k))
                })
                .collect()
        }
        Schedule::Shuffle(_) => {
            // Free lanes of existing waves and of as many new waves as it
            // takes, in random order.
            let mut free = free_in_existing();
            free.extend((0..arriving.len()).map(fresh));
            for i in (1..free.len()).rev() {
                free.swap(i, rng.below(i + 1));
            }
            free.truncate(arriving.len());
            free
        }
    }
}

/// Where the threads of the dispatch start: linear thread `t` in lane
/// `t % wave_size` of wave `t / wave_size`; `Shuffle` starts from a seeded
/// permutation of those slots. The spec does not say how dispatch indices
/// are packed into waves: only a case that pins a schedule sees this
/// packing in its wave results; otherwise the reference explores every
/// packing (`super::packing`) and these slots only carry the schedule's
/// moves.
pub fn initial_layout(
    schedule: Schedule,
    rng: &mut Rng,
    threads: usize,
    wave_size: usize,
) -> Vec<Slot> {
    let mut slots: Vec<Slot> = (0..threads)
        .map(|t| (t / wave_size, t % wave_size))
        .collect();
    if let Schedule::Shuffle(_) = schedule {
        for i in (1..slots.len()).rev() {
            slots.swap(i, rng.below(i + 1));
        }
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_print() {
        for s in ["none", "regroup", "replace", "shuffle:42"] {
            assert_eq!(s.parse::<Schedule>().unwrap().to_string(), s);
        }
        assert!("shuffle:x".parse::<Schedule>().is_err());
    }

    #[test]
    fn placements_never_collide_with_staying_threads() {
        let occupied = [(0, 1), (0, 2), (1, 0)];
        let arriving = [(0, 0), (0, 3), (1, 1)];
        for schedule in [
            Schedule::None,
            Schedule::Regroup,
            Schedule::Replace,
            Schedule::Shuffle(7),
        ] {
            let mut rng = Rng::new(3);
            let slots = place(schedule, &mut rng, 4, 2, &occupied, &arriving);
            assert_eq!(slots.len(), 3);
            for (i, s) in slots.iter().enumerate() {
                assert!(!occupied.contains(s), "{schedule}: {s:?}");
                assert!(!slots[..i].contains(s), "{schedule}: two threads in {s:?}");
            }
        }
    }
}
