//! The SER conformance harness: loads case files, runs them against any
//! [`backend::Backend`] (the reference interpreter first), judges the
//! results, and writes reports.
//!
//! The harness knows nothing of SER semantics: those live in
//! `ser-reference`.

pub mod alloc;
pub mod backend;
pub mod baseline;
pub mod broken;
pub mod capability;
pub mod case;
pub mod claim;
pub mod compare;
pub mod conclusion;
pub mod console;
pub mod expect;
pub mod files;
pub mod fuzz;
pub mod junit;
pub mod load;
pub mod mutant_backend;
pub mod mutants;
pub mod output;
pub mod pool;
pub mod protocol;
pub mod reference_backend;
pub mod report;
pub mod runner;
pub mod spec_map;
pub mod strict_json;
pub mod traceability;
pub mod verdict;
