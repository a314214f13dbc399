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
