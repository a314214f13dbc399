//! The reference's legal outcome as a case's expectations, in the case
//! format: what a backend must write, word by word. A generated case gets
//! these before it runs on the backend, and a regression case keeps them.

use crate::load::Expected;
use ser_lang::ast::ScalarType;
use ser_reference::outcome::{Legal, LegalBuffer, Observed};
use serde_json::{json, Value as Json};
use std::collections::BTreeMap;

/// One legal value as an expectation: the number, its bits where a number
/// cannot carry them (NaN, infinities), or approx with the error bound the
/// precision model allows.
fn value(o: &Observed, ty: ScalarType) -> Json {
    match ty {
        ScalarType::Float => {
            let f = f32::from_bits(o.bits);
            if !f.is_finite() {
                json!(format!("{:#010x}", o.bits))
            } else if o.err > 0.0 {
                json!({"approx": f as f64, "tolerance": o.err})
            } else {
                json!(f as f64)
            }
        }
        ScalarType::Int => json!(o.bits as i32),
        ScalarType::Uint | ScalarType::Bool => json!(o.bits),
    }
}

/// One word's expectation.
pub fn word(legal: &Legal, ty: ScalarType) -> Json {
    match legal {
        Legal::Unspecified(_) => json!("unspecified"),
        Legal::Values(v) if v.len() == 1 => value(&v[0], ty),
        Legal::Values(v) => json!({"any_of": v.iter().map(|o| value(o, ty)).collect::<Vec<_>>()}),
    }
}

/// The `expect` object of a case whose buffers must hold `legal`. Vector
/// elements are written component lists.
pub fn expect(legal: &BTreeMap<String, LegalBuffer>) -> Json {
    let buffers: serde_json::Map<String, Json> = legal
        .iter()
        .map(|(name, b)| {
            let n = b.element.components.max(1) as usize;
            let words: Vec<Json> = b.words.iter().map(|l| word(l, b.element.scalar)).collect();
            let elements: Vec<Json> = if n == 1 {
                words
            } else {
                words.chunks(n).map(|c| json!(c)).collect()
            };
            (name.clone(), Json::Array(elements))
        })
        .collect();
    json!({ "buffers": buffers })
}

/// The `expect` object [`expect`] wrote, parsed as the loader parses a case
/// file's (one parser for both, so what runs is what a regression case
/// file says).
pub fn parse(expect: &Json, legal: &BTreeMap<String, LegalBuffer>) -> Result<Expected, String> {
    let mut out = BTreeMap::new();
    for (name, b) in legal {
        let list = expect["buffers"][name]
            .as_array()
            .ok_or_else(|| format!("no expectations for buffer `{name}`"))?;
        let elements = (b.words.len() / b.element.components.max(1) as usize) as u32;
        let path = format!("expect.buffers.{name}");
        let parsed = crate::expect::parse_buffer(list, b.element, elements, &path)
            .map_err(|(at, why)| format!("{at}: {why}"))?;
        out.insert(name.clone(), parsed);
    }
    Ok(Expected::Buffers(out))
}
