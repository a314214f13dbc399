//! Shrinking a finding: proptest's value trees simplify a generated case
//! step by step; a step is kept while the case still shows the finding.

use proptest::strategy::ValueTree;

/// Shrinks `tree` while `still_fails` holds, for at most `budget` tries,
/// and returns the smallest failing value seen with the number of tries.
pub fn shrink<T: ValueTree>(
    tree: &mut T,
    budget: usize,
    mut still_fails: impl FnMut(&T::Value) -> bool,
) -> (T::Value, usize) {
    // The value tree's protocol: test the current value; a failing one is
    // kept and simplified further, a passing one is partly undone.
    let mut smallest = tree.current();
    let mut tries = 0;
    if !tree.simplify() {
        return (smallest, tries);
    }
    while tries < budget {
        tries += 1;
        let candidate = tree.current();
        let more = if still_fails(&candidate) {
            smallest = candidate;
            tree.simplify()
        } else {
            tree.complicate()
        };
        if !more {
            break;
        }
    }
    (smallest, tries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::TestRunner;

    #[test]
    fn shrinks_a_list_to_the_element_that_matters() {
        let mut runner = TestRunner::deterministic();
        let strategy = prop::collection::vec(0u32..1000, 50..=60);
        let mut tree = loop {
            let t = strategy.new_tree(&mut runner).unwrap();
            if t.current().iter().any(|v| *v >= 500) {
                break t;
            }
        };
        let (small, tries) = shrink(&mut tree, 10_000, |v| v.iter().any(|x| *x >= 500));
        // The vector's minimum length is 50: all zeros but one 500.
        assert_eq!(small.iter().filter(|x| **x != 0).count(), 1, "{small:?}");
        assert!(small.contains(&500), "{small:?}");
        assert!(tries > 0);
    }
}
