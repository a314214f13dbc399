//! Several instances of one backend that share every batch: for a process
//! backend each instance is its own process (`fuzz --backends N`), so a
//! GPU driver that compiles one pipeline at a time per process compiles N
//! at once. The pool states what its first instance states; every
//! instance must state the same claim.

use crate::backend::{Backend, BackendError, Execution};
use crate::load::Case;
use ser_reference::Profile;
use std::sync::Arc;

pub struct Pool {
    members: Vec<Arc<dyn Backend>>,
}

impl Pool {
    /// A pool of `members`, or why they cannot share batches (none, or
    /// they state different claims).
    pub fn new(members: Vec<Arc<dyn Backend>>) -> Result<Pool, String> {
        let first = members.first().ok_or("a pool of no backends")?;
        let claim = |b: &Arc<dyn Backend>| {
            (
                b.name().to_string(),
                b.profile(),
                b.capabilities(),
                b.wave_sizes(),
                b.phase(),
            )
        };
        if let Some(other) = members.iter().find(|m| claim(m) != claim(first)) {
            return Err(format!(
                "the backend's instances state different claims: `{}` and `{}`",
                first.name(),
                other.name()
            ));
        }
        Ok(Pool { members })
    }
}

impl Backend for Pool {
    fn name(&self) -> &str {
        self.members[0].name()
    }
    fn profile(&self) -> Profile {
        self.members[0].profile()
    }
    fn capabilities(&self) -> Vec<String> {
        self.members[0].capabilities()
    }
    fn wave_sizes(&self) -> Vec<u32> {
        self.members[0].wave_sizes()
    }
    fn phase(&self) -> crate::claim::Phase {
        self.members[0].phase()
    }
    fn run(&self, case: &Case) -> Result<Execution, BackendError> {
        self.members[0].run(case)
    }
    /// Each instance runs an equal share of the batch, in order, at once.
    fn run_batch(&self, cases: &[&Case]) -> Vec<Result<Execution, BackendError>> {
        let share = cases.len().div_ceil(self.members.len()).max(1);
        std::thread::scope(|scope| {
            let running: Vec<_> = cases
                .chunks(share)
                .zip(&self.members)
                .map(|(chunk, m)| (chunk.len(), scope.spawn(move || m.run_batch(chunk))))
                .collect();
            running
                .into_iter()
                .flat_map(|(n, h)| {
                    h.join().unwrap_or_else(|_| {
                        (0..n)
                            .map(|_| Err(BackendError::Crashed("the backend panicked".into())))
                            .collect()
                    })
                })
                .collect()
        })
    }
    fn enforces_timeout(&self) -> bool {
        self.members.iter().all(|m| m.enforces_timeout())
    }
    fn notices(&self) -> Vec<String> {
        self.members.iter().flat_map(|m| m.notices()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::claim::Phase;
    use std::sync::Mutex;

    /// Answers each case with its instance's number, and records the
    /// batches it was given.
    struct Numbered(usize, Mutex<Vec<usize>>, &'static str);

    impl Backend for Numbered {
        fn name(&self) -> &str {
            self.2
        }
        fn profile(&self) -> Profile {
            Profile::VulkanNv
        }
        fn capabilities(&self) -> Vec<String> {
            Vec::new()
        }
        fn run(&self, _: &Case) -> Result<Execution, BackendError> {
            Err(BackendError::Failed(format!("instance {}", self.0)))
        }
        fn run_batch(&self, cases: &[&Case]) -> Vec<Result<Execution, BackendError>> {
            self.1.lock().unwrap().push(cases.len());
            cases.iter().map(|c| self.run(c)).collect()
        }
    }

    fn member(n: usize, name: &'static str) -> Arc<dyn Backend> {
        Arc::new(Numbered(n, Mutex::new(Vec::new()), name))
    }

    #[test]
    fn a_batch_is_shared_in_order_between_the_instances() {
        let pool = Pool::new((0..3).map(|n| member(n, "gpu")).collect()).unwrap();
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../cases");
        let case = crate::load::load_file(&root, &root.join("wave/packing.json"))
            .remove(0)
            .unwrap();
        let cases: Vec<&Case> = std::iter::repeat_n(&case, 7).collect();
        let answers: Vec<String> = pool
            .run_batch(&cases)
            .into_iter()
            .map(|a| a.unwrap_err().to_string())
            .collect();
        // Shares of 3, 3 and 1, in the batch's order.
        let expected: Vec<String> = [0, 0, 0, 1, 1, 1, 2]
            .iter()
            .map(|n| format!("instance {n}"))
            .collect();
        assert_eq!(answers, expected);
        assert_eq!(pool.phase(), Phase::Run);
    }

    #[test]
    fn instances_must_state_the_same_claim() {
        let e = Pool::new(vec![member(0, "one"), member(1, "other")])
            .err()
            .expect("different names are refused");
        assert!(e.contains("`one` and `other`"), "{e}");
        assert!(Pool::new(Vec::new()).is_err());
    }
}
