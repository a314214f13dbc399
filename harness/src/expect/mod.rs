//! Expected values: parsed from a case against the buffer's element type,
//! checked against a backend's words, and checked against the reference's
//! legal outcomes.

pub mod diagnostics;
pub mod layout;

use ser_lang::ast::ScalarType;
use ser_reference::outcome::{Element, Legal, LegalBuffer, Observed};
use serde_json::Value as Json;

/// What one 32-bit component must hold.
#[derive(Clone, Debug, PartialEq)]
pub enum Expect {
    /// Exactly this value: integers by bits, floats by value (so `0.0`
    /// and `-0.0` are equal; use `Bits` to demand one).
    Exact(u32),
    /// Exactly these bits.
    Bits(u32),
    /// A float within `tolerance` of `value`: where the spec leaves precision
    /// to the implementation.
    Approx { value: f64, tolerance: f64 },
    /// A float within `ulps` units in the last place of `value` (as the
    /// offload-test-suite's `BufferFloatULP` and the Vulkan CTS's ULP
    /// thresholds): a ported peer case keeps its own precision rule.
    Ulps { value: f32, ulps: u32 },
    /// Any of these.
    AnyOf(Vec<Expect>),
    /// The spec leaves the value open.
    Unspecified,
}

/// The expectations of one buffer, component by component (elements of
/// `components` words each).
#[derive(Clone, Debug, PartialEq)]
pub struct BufferExpect {
    pub element: Element,
    pub words: Vec<Expect>,
}

/// A parse error at a JSON path relative to the element.
pub type ParseError = (String, String);

fn err<T>(path: &str, message: impl Into<String>) -> Result<T, ParseError> {
    Err((path.to_string(), message.into()))
}

/// A number or `"0x..."` string as the bits of a scalar of type `ty`.
pub fn parse_number(j: &Json, ty: ScalarType, path: &str) -> Result<u32, ParseError> {
    if let Some(s) = j.as_str() {
        if let Some(hex) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
            return u32::from_str_radix(&hex.replace('_', ""), 16)
                .or_else(|_| err(path, format!("`{s}` is not a 32-bit hexadecimal value")));
        }
        return match (ty, s) {
            (ScalarType::Float, "inf") => Ok(f32::INFINITY.to_bits()),
            (ScalarType::Float, "-inf") => Ok(f32::NEG_INFINITY.to_bits()),
            _ => err(
                path,
                format!("`{s}`: expected a number or a \"0x...\" bit pattern"),
            ),
        };
    }
    let Some(n) = j.as_number() else {
        return err(path, format!("expected a number, found {j}"));
    };
    match ty {
        ScalarType::Float => Ok((n.as_f64().expect("JSON numbers are f64") as f32).to_bits()),
        ScalarType::Uint | ScalarType::Bool => match n.as_u64() {
            Some(v) if v <= u32::MAX as u64 => Ok(v as u32),
            _ => err(path, format!("{n} is not a 32-bit unsigned integer")),
        },
        ScalarType::Int => match n.as_i64() {
            Some(v) if v >= i32::MIN as i64 && v <= i32::MAX as i64 => Ok(v as i32 as u32),
            _ => err(path, format!("{n} is not a 32-bit signed integer")),
        },
    }
}

/// Parses the expectation of one component.
pub fn parse_component(j: &Json, ty: ScalarType, path: &str) -> Result<Expect, ParseError> {
    match j {
        Json::String(s) if s == "unspecified" => Ok(Expect::Unspecified),
        Json::String(s) if s.starts_with("0x") || s.starts_with("0X") => {
            Ok(Expect::Bits(parse_number(j, ty, path)?))
        }
        Json::Number(_) | Json::String(_) => Ok(Expect::Exact(parse_number(j, ty, path)?)),
        Json::Object(o) => {
            let keys: Vec<&str> = o.keys().map(String::as_str).collect();
            match keys.as_slice() {
                ["any_of"] => {
                    let Some(list) = o["any_of"].as_array().filter(|l| l.len() >= 2) else {
                        return err(
                            &format!("{path}.any_of"),
                            "expected a list of at least two alternatives",
                        );
                    };
                    let alts = list
                        .iter()
                        .enumerate()
                        .map(|(i, a)| parse_component(a, ty, &format!("{path}.any_of[{i}]")))
                        .collect::<Result<_, _>>()?;
                    Ok(Expect::AnyOf(alts))
                }
                ["bits"] => Ok(Expect::Bits(parse_number(
                    &o["bits"],
                    ScalarType::Uint,
                    &format!("{path}.bits"),
                )?)),
                ["approx", "ulps"] | ["ulps", "approx"] => {
                    if ty != ScalarType::Float {
                        return err(path, "`approx` applies only to float buffers");
                    }
                    let Some(value) = o["approx"].as_f64() else {
                        return err(&format!("{path}.approx"), "expected a number");
                    };
                    match o["ulps"].as_u64() {
                        Some(ulps) if ulps <= MAX_ULPS as u64 => Ok(Expect::Ulps {
                            value: value as f32,
                            ulps: ulps as u32,
                        }),
                        _ => err(
                            &format!("{path}.ulps"),
                            format!("expected a whole number of ULPs from 0 to {MAX_ULPS}"),
                        ),
                    }
                }
                ["approx", "tolerance"] | ["tolerance", "approx"] => {
                    if ty != ScalarType::Float {
                        return err(path, "`approx` applies only to float buffers");
                    }
                    let (Some(value), Some(tolerance)) =
                        (o["approx"].as_f64(), o["tolerance"].as_f64())
                    else {
                        return err(path, "`approx` and `tolerance` are numbers");
                    };
                    if tolerance < 0.0 {
                        return err(&format!("{path}.tolerance"), "a tolerance is not negative");
                    }
                    Ok(Expect::Approx { value, tolerance })
                }
                _ => err(
                    path,
                    format!(
                        "unknown expectation {j}: expected any_of, bits, or approx with tolerance or ulps"
                    ),
                ),
            }
        }
        _ => err(
            path,
            format!("expected a value, \"unspecified\" or an expectation object, found {j}"),
        ),
    }
}

/// The most ULPs an expectation may allow (a window of 2^16 steps either
/// side is already far past any precision rule a text or a peer states).
pub const MAX_ULPS: u32 = 1 << 16;

/// The float `steps` representable values below (negative) or above
/// `value`: the edge of a ULP window.
fn ulps_away(value: f32, steps: i64) -> f32 {
    let mut v = value;
    for _ in 0..steps.unsigned_abs() {
        v = if steps < 0 {
            v.next_down()
        } else {
            v.next_up()
        };
    }
    v
}

/// The interval of reals an expectation accepts, where it is one.
fn window(e: &Expect) -> Option<(f64, f64)> {
    match e {
        Expect::Approx { value, tolerance } => Some((value - tolerance, value + tolerance)),
        Expect::Ulps { value, ulps } => Some((
            ulps_away(*value, -i64::from(*ulps)) as f64,
            ulps_away(*value, i64::from(*ulps)) as f64,
        )),
        _ => None,
    }
}

/// The most elements a buffer may have (the largest in `cases/` has 64).
/// The loader checks it before it allocates anything for a buffer, so that
/// a case asking for billions of elements is an error, not a process killed
/// for memory (`cases/README.md`, "Limits").
pub const MAX_BUFFER_ELEMENTS: u32 = 65_536;

/// The words of the element list of a buffer of `elements` elements, each
/// entry's made by `words_of` (from the entry and its JSON path) once and
/// repeated where the entry is `{"repeat": x, "count": n}`; `what` names
/// the list's entries in the error when their number differs (`element(s)
/// expected`). The entries are counted before any is made, so a list never
/// makes more than the buffer has.
pub fn expand_repeats<W: Clone>(
    list: &[Json],
    path: &str,
    elements: u32,
    what: &str,
    mut words_of: impl FnMut(&Json, &str) -> Result<Vec<W>, ParseError>,
) -> Result<Vec<W>, ParseError> {
    let mut total = 0u64;
    for (i, j) in list.iter().enumerate() {
        total = total.saturating_add(match repeat(j) {
            Some(Ok((_, count))) => count,
            Some(Err(())) => {
                return err(
                    &format!("{path}[{i}]"),
                    "expected {\"repeat\": element, \"count\": n}",
                )
            }
            None => 1,
        });
    }
    if total != u64::from(elements) {
        return err(path, format!("{total} {what}, the buffer has {elements}"));
    }
    let mut out = Vec::new();
    for (i, j) in list.iter().enumerate() {
        match repeat(j) {
            Some(Ok((element, count))) => {
                let words = words_of(element, &format!("{path}[{i}].repeat"))?;
                for _ in 0..count {
                    out.extend_from_slice(&words);
                }
            }
            _ => out.extend(words_of(j, &format!("{path}[{i}]"))?),
        }
    }
    Ok(out)
}

/// A `{"repeat": element, "count": n}` entry: the element and the count;
/// an error if it is malformed; `None` for any other entry.
fn repeat(j: &Json) -> Option<Result<(&Json, u64), ()>> {
    let o = j.as_object().filter(|o| o.contains_key("repeat"))?;
    let count = o.get("count").and_then(Json::as_u64);
    Some(match count {
        Some(n) if o.len() == 2 => Ok((&o["repeat"], n)),
        _ => Err(()),
    })
}

/// Parses the expectations of a buffer of `elements` elements.
pub fn parse_buffer(
    list: &[Json],
    element: Element,
    elements: u32,
    path: &str,
) -> Result<BufferExpect, ParseError> {
    let n = element.components as usize;
    let words = expand_repeats(list, path, elements, "element(s) expected", |j, p| {
        if n == 1 {
            Ok(vec![parse_component(j, element.scalar, p)?])
        } else if j.as_str() == Some("unspecified") {
            Ok(vec![Expect::Unspecified; n])
        } else {
            let Some(comps) = j.as_array().filter(|c| c.len() == n) else {
                return err(p, format!("expected a list of {n} components"));
            };
            let at = |k| format!("{p}[{k}]");
            comps
                .iter()
                .enumerate()
                .map(|(k, c)| parse_component(c, element.scalar, &at(k)))
                .collect()
        }
    })?;
    Ok(BufferExpect { element, words })
}

/// A word as people read it: its value in the element type and its bits.
pub fn describe_word(bits: u32, ty: ScalarType) -> String {
    match ty {
        ScalarType::Float => format!("{:?} ({bits:#010x})", f32::from_bits(bits)),
        ScalarType::Int => format!("{} ({bits:#010x})", bits as i32),
        _ => format!("{bits} ({bits:#010x})"),
    }
}

impl Expect {
    pub fn describe(&self, ty: ScalarType) -> String {
        match self {
            Expect::Exact(b) => describe_word(*b, ty),
            Expect::Bits(b) => format!("bits {b:#010x}"),
            Expect::Approx { value, tolerance } => format!("{value} ± {tolerance}"),
            Expect::Ulps { value, ulps } => format!("{value:?} ± {ulps} ULP"),
            Expect::AnyOf(alts) => format!(
                "any of [{}]",
                alts.iter()
                    .map(|a| a.describe(ty))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            Expect::Unspecified => "unspecified".to_string(),
        }
    }

    /// Whether a backend's word meets the expectation.
    pub fn accepts(&self, bits: u32, ty: ScalarType) -> bool {
        match self {
            Expect::Exact(b) if ty == ScalarType::Float => {
                f32::from_bits(*b) == f32::from_bits(bits)
            }
            Expect::Exact(b) | Expect::Bits(b) => *b == bits,
            Expect::Approx { value, tolerance } => {
                approx::abs_diff_eq!(f32::from_bits(bits) as f64, *value, epsilon = *tolerance)
            }
            Expect::Ulps { value, ulps } => approx::ulps_eq!(
                f32::from_bits(bits),
                *value,
                epsilon = 0.0,
                max_ulps = *ulps
            ),
            Expect::AnyOf(alts) => alts.iter().any(|a| a.accepts(bits, ty)),
            Expect::Unspecified => true,
        }
    }

    /// Whether every result an implementation may give for a legal value
    /// (its bits, or for a float anything within its error bound) meets the
    /// expectation.
    fn covers(&self, o: &Observed, ty: ScalarType) -> bool {
        if o.err == 0.0 {
            return self.accepts(o.bits, ty);
        }
        let v = f32::from_bits(o.bits) as f64;
        match self {
            Expect::Approx { .. } | Expect::Ulps { .. } => {
                let (lo, hi) = window(self).expect("a window");
                v - o.err >= lo && v + o.err <= hi
            }
            Expect::AnyOf(alts) => alts.iter().any(|a| a.covers(o, ty)),
            Expect::Unspecified => true,
            Expect::Exact(_) | Expect::Bits(_) => false,
        }
    }

    /// Whether some legal value realises this alternative (so a case does
    /// not list results the spec rules out).
    fn realised_by(&self, legal: &[Observed], ty: ScalarType) -> bool {
        legal
            .iter()
            .any(|o| self.covers(o, ty) || o.err > 0.0 && self.overlaps(o))
    }

    fn overlaps(&self, o: &Observed) -> bool {
        let v = f32::from_bits(o.bits) as f64;
        match self {
            Expect::Approx { .. } | Expect::Ulps { .. } => {
                let (lo, hi) = window(self).expect("a window");
                v + o.err >= lo && v - o.err <= hi
            }
            Expect::Exact(b) | Expect::Bits(b) => {
                approx::abs_diff_eq!(f32::from_bits(*b) as f64, v, epsilon = o.err)
            }
            _ => true,
        }
    }
}

/// One place where actual and expected differ.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Mismatch {
    pub buffer: String,
    pub element: usize,
    /// Component within a vector element.
    pub component: Option<usize>,
    pub expected: String,
    pub actual: String,
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "buffer `{}`, element {}", self.buffer, self.element)?;
        if let Some(c) = self.component {
            write!(f, ".{}", ["x", "y", "z", "w"].get(c).unwrap_or(&"?"))?;
        }
        write!(f, ": expected {}, actual {}", self.expected, self.actual)
    }
}

fn locate(word: usize, element: Element) -> (usize, Option<usize>) {
    let n = element.components as usize;
    (word / n, (n > 1).then_some(word % n))
}

/// Compares a backend's buffer with the case's expectations.
pub fn check_words(buffer: &str, expect: &BufferExpect, actual: &[u32]) -> Vec<Mismatch> {
    let ty = expect.element.scalar;
    if actual.len() != expect.words.len() {
        return vec![Mismatch {
            buffer: buffer.to_string(),
            element: 0,
            component: None,
            expected: format!("{} words", expect.words.len()),
            actual: format!("{} words", actual.len()),
        }];
    }
    expect
        .words
        .iter()
        .zip(actual)
        .enumerate()
        .filter(|(_, (e, a))| !e.accepts(**a, ty))
        .map(|(i, (e, a))| {
            let (element, component) = locate(i, expect.element);
            Mismatch {
                buffer: buffer.to_string(),
                element,
                component,
                expected: e.describe(ty),
                actual: describe_word(*a, ty),
            }
        })
        .collect()
}

fn describe_legal(legal: &Legal, ty: ScalarType) -> String {
    match legal {
        Legal::Unspecified(why) => format!("unspecified ({why})"),
        Legal::Values(v) => {
            let parts: Vec<String> = v
                .iter()
                .map(|o| {
                    if o.err > 0.0 {
                        format!("{} ± {:.3e}", f32::from_bits(o.bits), o.err)
                    } else {
                        describe_word(o.bits, ty)
                    }
                })
                .collect();
            if parts.len() == 1 {
                parts[0].clone()
            } else {
                format!("any of [{}]", parts.join(", "))
            }
        }
    }
}

/// Compares the case's expectations with the reference's legal outcomes:
/// the case must accept every legal result, list nothing illegal, and call
/// unspecified exactly what the reference does.
pub fn check_legal(buffer: &str, expect: &BufferExpect, legal: &LegalBuffer) -> Vec<Mismatch> {
    let ty = expect.element.scalar;
    let mut out = Vec::new();
    for (i, (e, l)) in expect.words.iter().zip(&legal.words).enumerate() {
        let agrees = match (e, l) {
            (Expect::Unspecified, Legal::Unspecified(_)) => true,
            (_, Legal::Unspecified(_)) | (Expect::Unspecified, _) => false,
            (e, Legal::Values(vals)) => {
                let sound = vals.iter().all(|o| e.covers(o, ty));
                let tight = match e {
                    Expect::AnyOf(alts) => alts.iter().all(|a| a.realised_by(vals, ty)),
                    _ => true,
                };
                sound && tight
            }
        };
        if !agrees {
            let (element, component) = locate(i, expect.element);
            out.push(Mismatch {
                buffer: buffer.to_string(),
                element,
                component,
                expected: e.describe(ty),
                actual: format!("the reference allows {}", describe_legal(l, ty)),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn float(j: serde_json::Value) -> Result<Expect, ParseError> {
        parse_component(&j, ScalarType::Float, "e")
    }

    #[test]
    fn ulps_accept_a_window_of_representable_floats() {
        let e = float(json!({"approx": 1.0, "ulps": 2})).unwrap();
        assert_eq!(
            e,
            Expect::Ulps {
                value: 1.0,
                ulps: 2
            }
        );
        let one = 1.0f32;
        let up2 = one.next_up().next_up();
        let up3 = up2.next_up();
        let down2 = one.next_down().next_down();
        assert!(e.accepts(up2.to_bits(), ScalarType::Float));
        assert!(e.accepts(down2.to_bits(), ScalarType::Float));
        assert!(!e.accepts(up3.to_bits(), ScalarType::Float));
        assert!(!e.accepts(f32::NAN.to_bits(), ScalarType::Float));
        assert_eq!(e.describe(ScalarType::Float), "1.0 ± 2 ULP");
        // Zero ULPs is exact, and a zero of either sign is zero.
        let zero = float(json!({"ulps": 0, "approx": 0.0})).unwrap();
        assert!(zero.accepts((-0.0f32).to_bits(), ScalarType::Float));
        assert!(!zero.accepts(f32::from_bits(1).to_bits(), ScalarType::Float));
    }

    #[test]
    fn a_legal_interval_is_covered_only_inside_the_window() {
        let e = float(json!({"approx": 1.0, "ulps": 4})).unwrap();
        // Below 1.0 a ULP is half what it is above.
        let below = (1.0 - 1.0f32.next_down()) as f64;
        let legal = |err: f64| Observed {
            bits: 1.0f32.to_bits(),
            err,
        };
        assert!(e.covers(&legal(4.0 * below), ScalarType::Float));
        assert!(!e.covers(&legal(5.0 * below), ScalarType::Float));
    }

    #[test]
    fn bad_ulps_are_located() {
        let e = float(json!({"approx": 1.0, "ulps": -1})).unwrap_err();
        assert_eq!(e.0, "e.ulps");
        assert!(float(json!({"approx": 1.0, "ulps": 1u64 << 20})).is_err());
        let e =
            parse_component(&json!({"approx": 1.0, "ulps": 1}), ScalarType::Uint, "e").unwrap_err();
        assert!(e.1.contains("only to float buffers"), "{e:?}");
        let e = float(json!({"approx": 1.0, "tolerance": 0.5, "ulps": 1})).unwrap_err();
        assert!(e.1.contains("approx with tolerance or ulps"), "{e:?}");
    }
}
