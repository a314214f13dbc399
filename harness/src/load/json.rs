//! From JSON to the case file's structs. Well-formed input takes the quick
//! way (moved, or read without tracking where serde is); input with a
//! mistake is read again by `serde_path_to_error`, so that the error names
//! its JSON path.

use crate::case::{CaseFile, CaseSpec};
use serde::Deserialize;
use serde_json::{Map, Value};

pub(super) type Error = serde_path_to_error::Error<serde_json::Error>;

/// The file's defaults and cases. The parts of a file of that shape are
/// moved out of `json`, not copied.
pub(super) fn case_file(json: Value) -> Result<CaseFile, Error> {
    if !has_case_file_shape(&json) {
        return serde_path_to_error::deserialize(json);
    }
    let Value::Object(mut top) = json else {
        unreachable!("checked: an object")
    };
    let defaults = match top.remove("defaults") {
        Some(Value::Object(defaults)) => defaults,
        _ => Map::new(),
    };
    let cases = match top.remove("cases") {
        Some(Value::Array(cases)) => cases.into_iter().filter_map(object).collect(),
        _ => unreachable!("checked: an array of objects"),
    };
    Ok(CaseFile { defaults, cases })
}

/// What [`CaseFile`] accepts: an object of `cases` (objects) and optional
/// `defaults` (an object), nothing else.
fn has_case_file_shape(json: &Value) -> bool {
    let Some(top) = json.as_object() else {
        return false;
    };
    top.keys().all(|k| k == "defaults" || k == "cases")
        && top.get("defaults").is_none_or(Value::is_object)
        && top
            .get("cases")
            .and_then(Value::as_array)
            .is_some_and(|cases| cases.iter().all(Value::is_object))
}

fn object(v: Value) -> Option<Map<String, Value>> {
    match v {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

/// One case's fields, defaults merged in.
pub(super) fn case_spec(merged: &Value) -> Result<CaseSpec, Error> {
    CaseSpec::deserialize(merged).or_else(|_| serde_path_to_error::deserialize(merged))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_well_formed_file_is_moved_apart() {
        let cf = case_file(json!({"defaults": {"a": 1}, "cases": [{"name": "x"}, {}]}))
            .expect("well formed");
        assert_eq!(Value::Object(cf.defaults), json!({"a": 1}));
        assert_eq!(cf.cases.len(), 2);
        assert_eq!(cf.cases[0]["name"], "x");
        let cf = case_file(json!({"cases": []})).expect("defaults are optional");
        assert!(cf.defaults.is_empty() && cf.cases.is_empty());
    }

    #[test]
    fn a_mistake_is_reported_where_it_is() {
        for (json, path) in [
            (json!({"cases": [{}, 3]}), "cases[1]"),
            (json!({"defaults": null, "cases": []}), "defaults"),
            (json!({"cases": [], "extra": 1}), "extra"),
            (json!([]), "."),
        ] {
            let e = case_file(json.clone()).expect_err("malformed");
            assert_eq!(e.path().to_string(), path, "{json}");
        }
    }

    #[test]
    fn a_spec_error_names_its_path() {
        let e = case_spec(&json!({"name": "x", "dispatch": {"raygen": 3}}))
            .expect_err("raygen is a name");
        assert_eq!(e.path().to_string(), "dispatch.raygen", "{e}");
    }
}
