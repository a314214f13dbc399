//! Source positions.

use serde::{Deserialize, Serialize};

/// A 1-based line and column in the shader text.
///
/// Spans locate errors for people; they are not part of the program's
/// meaning, so two spans always compare equal. That makes IR equality (the
/// round-trip property of the printer) ignore where the text came from.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Span {
    pub line: u32,
    pub column: u32,
}

impl Span {
    pub fn new(line: u32, column: u32) -> Self {
        Span { line, column }
    }
}

impl PartialEq for Span {
    fn eq(&self, _: &Span) -> bool {
        true
    }
}

impl Eq for Span {}

impl std::fmt::Display for Span {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)
    }
}
