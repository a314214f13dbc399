//! The shader language of the SER conformance suite.
//!
//! Case shaders are written as text in a small subset of HLSL with the syntax
//! of the SER proposal (`HitObject h = HitObject::TraceRay(...);
//! MaybeReorderThread(h, hint, 3);`). This crate parses that text into an IR
//! ([`ast::Library`]) that the reference interpreter runs and that backends
//! translate, and prints the IR back to canonical text ([`printer::print`]).
//! The round trip `parse(print(ir)) == ir` keeps the two honest.
//!
//! The language is documented in `cases/README.md`.

pub mod ast;
pub mod error;
pub mod forms;
pub mod lexer;
pub mod names;
pub mod nesting;
pub mod parser;
pub mod printer;
pub mod signatures;
pub mod span;
pub mod visit;

pub use ast::Library;
pub use error::ParseError;
pub use parser::parse;
pub use printer::print;
pub use span::Span;
