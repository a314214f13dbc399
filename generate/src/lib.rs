//! Generated cases: proptest strategies that produce valid scenes
//! (`scene`), rays (`ray`), random SER programs (`program`) and fixed
//! probe programs for the reference's laws (`probe`), assembled into
//! ordinary case files (`case`) that the loader checks like hand-written
//! ones. Every generated case carries its origin (the generator and its
//! inputs) in its description.

pub mod case;
pub mod clauses;
pub mod dialect;
pub mod probe;
pub mod program;
pub mod ray;
pub mod scene;
