//! The precision model: how far an implementation's float results may lie
//! from the reference's.
//!
//! The documents leave precision to the implementation: traversal "may be
//! performed with floating point operations" and "inaccuracies are expected"
//! (`vk.candidate.precision.implementation_specific`), and HLSL lets a
//! compiler contract `a * b + c` into one fused operation. The reference
//! therefore carries, with every float it computes, an absolute error bound:
//! a value `v` with bound `e` stands for every result in `[v - e, v + e]`.
//! Values passed through unchanged (literals, ray parameters, instance
//! transforms, loads) have bound 0 and are checked bit for bit.
//!
//! The bounds below are the suite's stated reading, not numbers from the
//! documents: generous enough for any careful fp32 implementation, tight
//! enough to tell a right result from a wrong one.

/// Relative error allowed for values an implementation computes during
/// traversal and instance transforms (intersection `t`, object-space rays,
/// the inverse transform): `2^-16` of the magnitude of the terms involved.
pub const TRAVERSAL_REL: f64 = 1.0 / 65536.0;

/// Relative error allowed for shader float arithmetic (contraction into
/// fused multiply-add, division and square root are not correctly rounded,
/// denormals may be flushed): `2^-20` of the result's magnitude.
pub const ARITH_REL: f64 = 1.0 / 1_048_576.0;

/// Smallest positive normal f32: results below it may be flushed to zero.
pub const DENORM_FLUSH: f64 = f32::MIN_POSITIVE as f64;

/// The outcome of comparing values that carry error bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    True,
    False,
    /// The intervals overlap: an implementation may decide either way.
    Either,
}

impl Decision {
    pub fn from_bool(b: bool) -> Decision {
        if b {
            Decision::True
        } else {
            Decision::False
        }
    }
}

/// `a < b` for values `a ± ea` and `b ± eb`.
pub fn less(a: f64, ea: f64, b: f64, eb: f64) -> Decision {
    if ea == 0.0 && eb == 0.0 {
        return Decision::from_bool(a < b);
    }
    if a + ea < b - eb {
        Decision::True
    } else if a - ea >= b + eb {
        Decision::False
    } else {
        Decision::Either
    }
}

/// `a == b` for values with error bounds.
pub fn equal(a: f64, ea: f64, b: f64, eb: f64) -> Decision {
    if ea == 0.0 && eb == 0.0 {
        return Decision::from_bool(a == b);
    }
    if (a - b).abs() > ea + eb {
        Decision::False
    } else {
        Decision::Either
    }
}

/// The bound of a shader arithmetic result `r` computed from inputs whose
/// propagated error is `propagated`: exact inputs whose exact result needs no
/// rounding stay exact (so `1.0 + 2.0` is exactly `3.0`).
pub fn arith_error(exact_result: f64, rounded: f32, propagated: f64, inputs_exact: bool) -> f64 {
    if inputs_exact
        && exact_result == rounded as f64
        && (rounded == 0.0 || rounded.abs() >= f32::MIN_POSITIVE)
    {
        return 0.0;
    }
    let flush = if exact_result.abs() < DENORM_FLUSH {
        DENORM_FLUSH
    } else {
        0.0
    };
    propagated + ARITH_REL * exact_result.abs() + flush
}

/// The bound of a value an implementation computes from terms whose
/// magnitudes sum to `magnitude` (a dot product, a transformed coordinate).
pub fn traversal_error(magnitude: f64) -> f64 {
    TRAVERSAL_REL * magnitude
}

/// The stated reading, worked by hand on exactly representable numbers
/// (the documents prescribe no bound, so these pin the reading rather than
/// a clause; cases keep away from these boundaries,
/// `vk.candidate.precision.implementation_specific`).
#[cfg(test)]
mod tests {
    use super::*;
    use Decision::{Either, False, True};

    #[test]
    fn exact_values_compare_exactly() {
        assert_eq!(less(1.0, 0.0, 2.0, 0.0), True);
        assert_eq!(less(2.0, 0.0, 1.0, 0.0), False);
        assert_eq!(less(1.0, 0.0, 1.0, 0.0), False);
        assert_eq!(equal(1.0, 0.0, 1.0, 0.0), True);
        assert_eq!(equal(1.0, 0.0, 2.0, 0.0), False);
    }

    #[test]
    fn less_is_decided_only_when_the_intervals_are_apart() {
        // [0.75, 1.25] wholly below [1.75, 2.25]; wholly above the reverse.
        assert_eq!(less(1.0, 0.25, 2.0, 0.25), True);
        assert_eq!(less(2.0, 0.25, 1.0, 0.25), False);
        // Overlapping intervals: [0.75, 1.25] and [1.125, 1.625].
        assert_eq!(less(1.0, 0.25, 1.375, 0.25), Either);
        assert_eq!(less(1.375, 0.25, 1.0, 0.25), Either);
        // One side exact, inside the other's interval, on either side.
        assert_eq!(less(1.0, 0.25, 1.125, 0.0), Either);
        assert_eq!(less(1.125, 0.0, 1.0, 0.25), Either);
        // Touching at 1.25: a = b = 1.25 is possible, so is a < b.
        assert_eq!(less(1.0, 0.25, 1.5, 0.25), Either);
        // Touching the other way: a >= 1.25 >= b always.
        assert_eq!(less(1.5, 0.25, 1.0, 0.25), False);
    }

    #[test]
    fn equal_is_false_only_when_the_intervals_are_apart() {
        // 1.0 apart with bounds summing to 0.5.
        assert_eq!(equal(1.0, 0.25, 2.0, 0.25), False);
        // 0.125 apart, within one bound or within the sum of two.
        assert_eq!(equal(1.0, 0.25, 1.125, 0.0), Either);
        assert_eq!(equal(1.0, 0.25, 1.125, 0.25), Either);
        // Touching at 1.25.
        assert_eq!(equal(1.0, 0.25, 1.5, 0.25), Either);
    }

    #[test]
    fn exact_arithmetic_on_exact_inputs_stays_exact() {
        assert_eq!(arith_error(3.0, 3.0, 0.0, true), 0.0);
        assert_eq!(arith_error(0.0, 0.0, 0.0, true), 0.0);
    }

    #[test]
    fn a_rounded_result_gets_the_relative_bound() {
        // 0.1f + 0.2f is not representable in f32.
        let exact = 0.1f32 as f64 + 0.2f32 as f64;
        let rounded = exact as f32;
        assert_ne!(rounded as f64, exact);
        assert_eq!(
            arith_error(exact, rounded, 0.0, true),
            ARITH_REL * exact.abs()
        );
    }

    #[test]
    fn inexact_inputs_propagate_even_into_a_representable_result() {
        assert_eq!(arith_error(3.0, 3.0, 0.001, false), 0.001 + ARITH_REL * 3.0);
    }

    #[test]
    fn a_subnormal_result_may_be_flushed() {
        let tiny = f32::from_bits(1);
        assert_eq!(
            arith_error(tiny as f64, tiny, 0.0, true),
            ARITH_REL * tiny as f64 + DENORM_FLUSH
        );
        // The smallest normal is not flushed.
        let min = f32::MIN_POSITIVE;
        assert_eq!(
            arith_error(min as f64, min, 0.0, false),
            ARITH_REL * min as f64
        );
    }

    #[test]
    fn traversal_bound_is_relative_to_the_magnitudes() {
        assert_eq!(traversal_error(2.0), 2.0 / 65536.0);
        assert_eq!(traversal_error(0.0), 0.0);
    }
}
