//! JSON text as the runner reads it: serde_json's grammar, with every key
//! of an object named once. serde_json keeps the last of two values of one
//! key without a word; a case file with `"expect"` written twice would be
//! judged by whichever came last. Here the second is an error that names
//! the key, its JSON path and its line.

use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::fmt;

/// A JSON text that is not what the reader accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    /// `line L, column C`.
    pub location: String,
    pub message: String,
}

/// Parses `text` as one JSON value, refusing duplicate keys.
pub fn parse(text: &str) -> Result<Value, JsonError> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Node {
        path: String::new(),
    }
    .deserialize(&mut de)
    .and_then(|v| de.end().map(|()| v));
    value.map_err(|e| JsonError {
        location: format!("line {}, column {}", e.line(), e.column()),
        message: e
            .to_string()
            .split(" at line ")
            .next()
            .unwrap_or("")
            .to_string(),
    })
}

/// One value, at a JSON path (for the message on a duplicate key).
struct Node {
    path: String,
}

impl Node {
    fn child(&self, key: &str) -> Node {
        let simple = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        let path = match (self.path.is_empty(), simple) {
            (true, true) => key.to_string(),
            (false, true) => format!("{}.{key}", self.path),
            (_, false) => format!("{}[{key:?}]", self.path),
        };
        Node { path }
    }
}

impl<'de> DeserializeSeed<'de> for Node {
    type Value = Value;

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Node {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::Number(v.into()))
    }

    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        Ok(Number::from_f64(v).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        loop {
            let at = Node {
                path: format!("{}[{}]", self.path, out.len()),
            };
            match seq.next_element_seed(at)? {
                Some(v) => out.push(v),
                None => return Ok(Value::Array(out)),
            }
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                let whole = self.child(&key).path;
                return Err(A::Error::custom(format_args!(
                    "the key `{key}` appears twice (at {whole}); each key is named once"
                )));
            }
            let value = map.next_value_seed(self.child(&key))?;
            out.insert(key, value);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_as_serde_json_does() {
        let text = r#"{"a": [1, -2, 3.5, "x", null, true, {"b": {}}], "c": 18446744073709551615}"#;
        assert_eq!(
            parse(text).unwrap(),
            serde_json::from_str::<Value>(text).unwrap()
        );
    }

    #[test]
    fn a_duplicate_key_is_named_with_its_path_and_line() {
        let e = parse("{\"cases\": [{\"name\": \"a\",\n \"name\": \"b\"}]}").unwrap_err();
        assert_eq!(e.location, "line 2, column 7", "{e:?}");
        assert_eq!(
            e.message,
            "the key `name` appears twice (at cases[0].name); each key is named once"
        );
        let e = parse(r#"{"buffers": {"Out x": 1, "Out x": 2}}"#).unwrap_err();
        assert!(e.message.contains(r#"buffers["Out x"]"#), "{e:?}");
    }

    #[test]
    fn syntax_errors_keep_their_place() {
        let e = parse("{\"a\": }").unwrap_err();
        assert_eq!(e.location, "line 1, column 7");
        assert!(e.message.starts_with("expected value"), "{e:?}");
        assert!(parse("{} x").is_err());
    }
}
