//! One message per line: encoding, and decoding with errors that say which
//! message, where in it, what is wrong and what was expected.

use super::wire::{Reply, REPLY_TYPES};
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

/// The deepest a message's JSON may nest. A request carries the case's IR,
/// a few JSON levels for every level of the case language's nesting
/// ([`ser_lang::nesting::MAX_NESTING`]), far past serde_json's default
/// limit of 128; anything deeper than this is refused before it is parsed.
pub const MAX_JSON_DEPTH: usize = 16 * ser_lang::nesting::MAX_NESTING;

/// Nesting past which a line is decoded on a thread with a stack of
/// [`DEEP_STACK`] bytes (decoding and dropping JSON recurse per level).
const SHALLOW: usize = 100;
const DEEP_STACK: usize = 256 << 20;

/// How deep the arrays and objects of a JSON text nest (brackets inside
/// strings do not count).
fn json_depth(text: &str) -> usize {
    let (mut depth, mut deepest, mut in_string, mut escaped) = (0usize, 0, false, false);
    for b in text.bytes() {
        match (in_string, escaped, b) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (true, false, b'"') => in_string = false,
            (true, false, _) => {}
            (false, _, b'"') => in_string = true,
            (false, _, b'[' | b'{') => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            (false, _, b']' | b'}') => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    deepest
}

/// Decodes one line as the message `what` names.
pub fn decode<T: Message + Send>(what: &str, line: &str) -> Result<T, ProtocolError> {
    let fail = |location: String, message: String| ProtocolError {
        what: what.to_string(),
        location,
        message,
        excerpt: excerpt(line),
    };
    let depth = json_depth(line);
    if depth > MAX_JSON_DEPTH {
        return Err(fail(
            "top level".into(),
            format!("JSON nested {depth} levels deep; a message nests at most {MAX_JSON_DEPTH}"),
        ));
    }
    let parse = || -> Result<T, ProtocolError> {
        T::decode_line(line.trim_end()).map_err(|(location, message)| fail(location, message))
    };
    if depth <= SHALLOW {
        return parse();
    }
    ser_lang::nesting::on_stack("decode", DEEP_STACK, parse).unwrap_or_else(|e| {
        Err(fail(
            "top level".into(),
            format!("cannot start a thread: {e}"),
        ))
    })
}

/// A message type: how to decode it from a line holding one JSON object,
/// with the place of whatever is wrong (a JSON path, or `line 1, column C`
/// for bad JSON).
pub trait Message: Sized {
    fn decode_line(line: &str) -> Result<Self, (String, String)>;
}

/// A message decoded through a JSON value, so that a mistake is found at
/// its path; it may nest as deep as [`MAX_JSON_DEPTH`] (a request carries
/// the case's IR).
fn through_value<T: DeserializeOwned>(line: &str) -> Result<T, (String, String)> {
    {
        let mut de = serde_json::Deserializer::from_str(line);
        de.disable_recursion_limit();
        let value = serde::Deserialize::deserialize(&mut de)
            .and_then(|v: serde_json::Value| de.end().map(|()| v))
            .map_err(not_json)?;
        if !value.is_object() {
            return Err((
                "top level".into(),
                "expected a JSON object with a `type` field".into(),
            ));
        }
        located(value)
    }
}

fn not_json(e: serde_json::Error) -> (String, String) {
    (
        format!("line 1, column {}", e.column()),
        format!("not a JSON message: {e}; expected one JSON object per line"),
    )
}

/// A serde_json message without its ` at line L column C` (the place is
/// given apart, as a JSON path).
fn without_place(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

/// The fields of a message's top-level object, each value still the text
/// it was (a JSON array of a million words is not a million JSON values
/// on the way to a `Vec<u32>`). A key named twice is an error.
struct Fields<'a>(Vec<(String, &'a serde_json::value::RawValue)>);

impl<'de> serde::Deserialize<'de> for Fields<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Fields<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object with a `type` field")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Fields<'de>, A::Error> {
                let mut out: Vec<(String, &'de serde_json::value::RawValue)> = Vec::new();
                while let Some(key) = map.next_key::<String>()? {
                    if out.iter().any(|(k, _)| *k == key) {
                        return Err(serde::de::Error::custom(format_args!(
                            "the key `{key}` appears twice; each key is named once"
                        )));
                    }
                    out.push((key, map.next_value()?));
                }
                Ok(Fields(out))
            }
        }
        d.deserialize_map(V)
    }
}

fn located<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, (String, String)> {
    serde_path_to_error::deserialize(value).map_err(|e| (location(e.path()), e.inner().to_string()))
}

fn location(p: &serde_path_to_error::Path) -> String {
    let path = p.to_string();
    if path == "." {
        "top level".into()
    } else {
        path
    }
}

macro_rules! plain_messages {
    ($($t:ty),*) => {$(
        impl Message for $t {
            fn decode_line(line: &str) -> Result<Self, (String, String)> {
                through_value(line)
            }
        }
    )*};
}

plain_messages!(
    super::wire::RunnerHello,
    super::wire::BackendHello,
    super::wire::BatchHeader,
    super::wire::Request
);

impl Message for Reply {
    /// By its `type`, then the rest of its fields straight from their text
    /// into the reply's types: decoding a reply costs little more than the
    /// reply's size, however many words its buffers hold (serde's own
    /// tagged decoding would buffer every value first, and lose the path
    /// inside the reply).
    fn decode_line(line: &str) -> Result<Self, (String, String)> {
        let mut fields = match serde_json::from_str::<Fields>(line) {
            Ok(f) => f.0,
            Err(e) if e.is_data() => return Err(("top level".into(), without_place(&e))),
            Err(e) => return Err(not_json(e)),
        };
        let known = || {
            REPLY_TYPES
                .iter()
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let kind = match fields.iter().position(|(k, _)| k == "type") {
            None => {
                return Err((
                    "type".into(),
                    format!("missing; expected one of {}", known()),
                ))
            }
            Some(i) => fields.remove(i).1,
        };
        let kind = match serde_json::from_str::<String>(kind.get()) {
            Ok(k) if REPLY_TYPES.contains(&k.as_str()) => k,
            _ => {
                return Err((
                    "type".into(),
                    format!(
                        "{} is not a reply type; expected one of {}",
                        kind.get(),
                        known()
                    ),
                ))
            }
        };
        let de = serde::de::value::MapDeserializer::new(fields.into_iter());
        Reply::from_fields(&kind, de).map_err(|e| (location(e.path()), without_place(e.inner())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_depth_counts_brackets_outside_strings() {
        assert_eq!(json_depth("{}"), 1);
        assert_eq!(json_depth(r#"{"a": [[1], {"b": "[[[{"}]}"#), 3);
        assert_eq!(json_depth(r#"{"a": "\\\"[["}"#), 1);
    }

    #[test]
    fn deep_messages_decode_and_deeper_ones_are_refused() {
        let nested = |n: usize| {
            format!(
                "{{\"type\": \"hello\", \"x\": {}1{}}}",
                "[".repeat(n),
                "]".repeat(n)
            )
        };
        // Deeper than serde_json's default limit: still a message (here a
        // hello with an unknown field, refused by its field, not its depth).
        let e = decode::<super::super::wire::RunnerHello>("a hello", &nested(1000)).unwrap_err();
        assert!(e.message.contains("unknown field `x`"), "{e}");
        let e = decode::<super::super::wire::RunnerHello>("a hello", &nested(MAX_JSON_DEPTH))
            .unwrap_err();
        assert!(e.message.contains("a message nests at most"), "{e}");
    }
    use crate::protocol::BackendHello;

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
        assert_eq!(e.location, "type");
        let e = decode::<Reply>("a reply", r#"{"id":"x"}"#).unwrap_err();
        assert!(e.message.starts_with("missing"), "{e}");
    }

    #[test]
    fn a_hello_round_trips() {
        let h = BackendHello {
            kind: crate::protocol::HelloType::Hello,
            protocol: 1,
            name: "x".into(),
            profile: ser_reference::Profile::Sm69,
            capabilities: vec!["validation".into()],
            wave_sizes: Vec::new(),
            phase: crate::claim::Phase::Run,
            batch: false,
        };
        let line = encode(&h);
        assert!(line.starts_with(r#"{"type":"hello""#), "{line}");
        assert!(
            !line.contains("phase"),
            "a running backend's hello names no phase: {line}"
        );
        assert_eq!(decode::<BackendHello>("hello", &line).unwrap(), h);
        assert!(
            !line.contains("wave_sizes"),
            "a hello that names no wave size: {line}"
        );
        let compiler = BackendHello {
            phase: crate::claim::Phase::Compile,
            wave_sizes: vec![8],
            ..h
        };
        let line = encode(&compiler);
        assert!(line.contains(r#""phase":"compile""#), "{line}");
        assert!(line.contains(r#""wave_sizes":[8]"#), "{line}");
        assert_eq!(decode::<BackendHello>("hello", &line).unwrap(), compiler);
    }

    #[test]
    fn control_characters_are_not_echoed() {
        let e = decode::<Reply>("a reply", "\u{1b}[2J garbage").unwrap_err();
        assert!(!e.to_string().contains('\u{1b}'));
    }
}
