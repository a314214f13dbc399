//! Parse errors.

use crate::span::Span;

/// A syntax error: where, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    pub span: Span,
    pub message: String,
    /// The entry point (or other top-level declaration) the error lies in,
    /// when the parser got that far.
    pub within: Option<String>,
}

impl ParseError {
    pub fn new(span: Span, message: impl Into<String>) -> Self {
        ParseError {
            span,
            message: message.into(),
            within: None,
        }
    }
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.within {
            Some(name) => write!(f, "{} (in `{}`): {}", self.span, name, self.message),
            None => write!(f, "{}: {}", self.span, self.message),
        }
    }
}

impl std::error::Error for ParseError {}
