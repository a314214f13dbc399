//! The reference interpreter of the SER conformance suite.
//!
//! A deliberately simple interpreter that *defines* the semantics the suite
//! checks: accessor values on NOP, miss and hit objects, identity-like
//! matrices, index masking, traversal and culling, invocation and reorder
//! points. It is pure and deterministic: no files, no processes, no reports.
//!
//! Modules follow the spec's concepts. Every rule is a function whose doc
//! comment names the clause ID it implements (see `spec-map/`). Where the
//! spec leaves a result open, the reference does not pick one: it explores
//! every legal choice ([`exec::choice`]) and reports the set of legal
//! results, or marks a value *unspecified* with the reason.

pub mod choice;
pub mod exec;
pub mod hit_object;
pub mod mutation;
pub mod numeric;
pub mod outcome;
pub mod payload;
pub mod profile;
pub mod program;
pub mod ray;
pub mod ray_query;
pub mod sbt;
pub mod scene;
pub mod traversal;
pub mod validate;
pub mod value;

pub use exec::{run, Dispatch, RunOptions};
pub use outcome::{Fault, FaultCode, Legal, Outcome, RunResult};
pub use profile::Profile;
