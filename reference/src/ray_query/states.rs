//! Which methods a `RayQuery` supports in which state: DXR's three tables
//! under "RayQuery intrinsics". "Calling unsupported methods is invalid and
//! produces undefined results"
//! (`dxr.ray_query.intrinsics.unsupported_call_undefined`): the reference
//! reports such a call as undefined behaviour, never a value.
//!
//! - A new query supports only `TraceRayInline`; after it, the query's
//!   ray system values, `CommittedStatus` and `CommittedRayT` are
//!   available in every state. Suite's reading: the first table lists only
//!   `Proceed`, `Abort` and `CommittedStatus` before the first `Proceed`,
//!   but `CommittedRayT` "is initialized by the TraceRayInline() call to
//!   RayDesc::TMax" (`dxr.ray_query.committed_ray_t.initialized_to_tmax`)
//!   and the table by committed status "applies regardless of whether
//!   Proceed() has returned TRUE [...] or FALSE", so the reference reads
//!   the third table from `TraceRayInline` on.
//! - `Candidate*` methods and the two commits need the candidate the last
//!   `Proceed` returned `TRUE` for, of the kind their column names.
//! - `Committed*` instance, geometry, primitive, object-space and matrix
//!   values need a committed hit; `CommittedTriangleBarycentrics` and
//!   `CommittedTriangleFrontFace` a committed triangle hit.

use super::COMMITTED_NOTHING;
use crate::outcome::{Fault, FaultCode};

/// A call the state of the query does not support.
pub fn unavailable(what: impl std::fmt::Display) -> Fault {
    Fault::new(
        FaultCode::RayQueryState,
        format!("{what}: the RayQuery's state does not support the call"),
    )
    .clause("dxr.ray_query.intrinsics.unsupported_call_undefined")
}

/// A `Committed*` hit value (`name` without the prefix) the committed
/// status does not support, with the table row that says so.
pub(super) fn committed_unavailable(name: &str, status: u32) -> Fault {
    let (row, what) = match name {
        "TriangleBarycentrics" => (
            "dxr.ray_query.intrinsics.committed_barycentrics_triangle_only",
            "without a committed triangle hit",
        ),
        "TriangleFrontFace" => (
            "dxr.ray_query.intrinsics.committed_front_face_triangle_only",
            "without a committed triangle hit",
        ),
        _ => {
            debug_assert_eq!(status, COMMITTED_NOTHING);
            (
                "dxr.ray_query.intrinsics.committed_instance_needs_hit",
                "under COMMITTED_NOTHING",
            )
        }
    };
    unavailable(format!("Committed{name} {what}")).clause(row)
}
