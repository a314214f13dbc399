//! One message per line: encoding, and decoding with errors that say which
//! message, where in it, what is wrong and what was expected.

use serde::de::DeserializeOwned;
use serde::Serialize;

/// A line that is not the message it should be.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProtocolError {
    /// The message expected (`the backend's hello`, `a reply`).
    pub what: String,
    /// JSON path in the message, or `line L, column C` for bad JSON.
    pub location: String,
    pub message: String,
    /// The start of the offending line, for people.
    pub excerpt: String,
}

impl std::fmt::Display for ProtocolError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: at {}: {} (the line began `{}`)",
            self.what, self.location, self.message, self.excerpt
        )
    }
}

impl std::error::Error for ProtocolError {}

/// The message as one line (no newline).
pub fn encode<T: Serialize>(message: &T) -> String {
    serde_json::to_string(message).expect("protocol messages always serialize")
}

fn excerpt(line: &str) -> String {
    const SHOWN: usize = 80;
    let mut out: String = line
        .chars()
        .take(SHOWN)
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect();
    if line.chars().count() > SHOWN {
        out.push_str("...");
    }
    out
}

/// Decodes one line as the message `what` names.
pub fn decode<T: DeserializeOwned>(what: &str, line: &str) -> Result<T, ProtocolError> {
    let fail = |location: String, message: String| ProtocolError {
        what: what.to_string(),
        location,
        message,
        excerpt: excerpt(line),
    };
    let value: serde_json::Value = serde_json::from_str(line.trim_end()).map_err(|e| {
        fail(
            format!("line 1, column {}", e.column()),
            format!("not a JSON message: {e}; expected one JSON object per line"),
        )
    })?;
    if !value.is_object() {
        return Err(fail(
            "top level".into(),
            "expected a JSON object with a `type` field".into(),
        ));
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let location = if path == "." { "top level".into() } else { path };
        fail(location, e.inner().to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{BackendHello, Reply};

    #[test]
    fn bad_json_names_the_column() {
        let e = decode::<Reply>("a reply", "{\"type\": ").unwrap_err();
        assert!(e.location.starts_with("line 1, column"), "{e}");
        assert!(e.to_string().contains("a reply"), "{e}");
    }

    #[test]
    fn a_wrong_field_names_its_path() {
        let e = decode::<Reply>(
            "a reply",
            r#"{"type":"buffers","id":"x","buffers":{"Out":[1,"two"]}}"#,
        )
        .unwrap_err();
        assert_eq!(e.location, "buffers.Out[1]", "{e}");
    }

    #[test]
    fn an_unknown_type_lists_the_known_ones() {
        let e = decode::<Reply>("a reply", r#"{"type":"bufers","id":"x"}"#).unwrap_err();
        assert!(e.message.contains("not_supported"), "{e}");
    }

    #[test]
    fn a_hello_round_trips() {
        let h = BackendHello {
            kind: crate::protocol::HelloType::Hello,
            protocol: 1,
            name: "x".into(),
            profile: ser_reference::Profile::Sm69,
            capabilities: vec!["validation".into()],
        };
        let line = encode(&h);
        assert!(line.starts_with(r#"{"type":"hello""#), "{line}");
        assert_eq!(decode::<BackendHello>("hello", &line).unwrap(), h);
    }

    #[test]
    fn control_characters_are_not_echoed() {
        let e = decode::<Reply>("a reply", "\u{1b}[2J garbage").unwrap_err();
        assert!(!e.to_string().contains('\u{1b}'));
    }
}
