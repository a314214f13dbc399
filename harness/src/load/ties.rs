//! Ties: where a case cites several clauses, which of its expected buffer
//! elements each clause decides. A failing element then marks only its own
//! clauses *broken* in the traceability report; a failing case without
//! ties (or failing elsewhere) only *cites* its clauses. A case that cites
//! one clause ties every expectation to it.

use crate::case::CaseSpec;
use std::ops::Range;

/// Expected elements `elements` of `buffer` decide `clause`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tie {
    pub clause: String,
    pub buffer: String,
    pub elements: Range<usize>,
}

/// The clauses a failing element of `buffer` breaks, by the ties.
pub fn clauses_of<'a>(ties: &'a [Tie], buffer: &str, element: usize) -> Vec<&'a str> {
    ties.iter()
        .filter(|t| t.buffer == buffer && t.elements.contains(&element))
        .map(|t| t.clause.as_str())
        .collect()
}

/// The case's ties, checked: each names one of the case's clauses and
/// elements of a buffer the case expects.
pub(super) fn parse(
    spec: &CaseSpec,
    at: &dyn Fn(&str) -> String,
) -> Result<Vec<Tie>, (String, String)> {
    let mut out = Vec::new();
    if spec.ties.is_empty() {
        return Ok(out);
    }
    if !matches!(spec.expect, crate::case::ExpectSpec::Buffers(_)) {
        return Err((
            at("ties"),
            "ties name expected buffer elements; this case expects no buffers".into(),
        ));
    }
    for (clause, targets) in &spec.ties {
        let path = at(&format!("ties.{clause}"));
        if !spec.clauses.contains(clause) {
            return Err((
                path,
                format!("`{clause}` is not among the case's clauses; a tie names one of them"),
            ));
        }
        for (i, target) in targets.iter().enumerate() {
            let here = format!("{path}[{i}]");
            let (buffer, elements) = target_of(spec, target).map_err(|m| (here, m))?;
            out.push(Tie {
                clause: clause.clone(),
                buffer,
                elements,
            });
        }
    }
    Ok(out)
}

/// `Out`, `Out[3]` or `Out[2..5]`: a buffer and elements of it.
fn target_of(spec: &CaseSpec, target: &str) -> Result<(String, Range<usize>), String> {
    let expected = "expected BUFFER, BUFFER[i] or BUFFER[i..j]";
    let (name, range) = match target.split_once('[') {
        None => (target, None),
        Some((name, rest)) => {
            let inner = rest
                .strip_suffix(']')
                .ok_or_else(|| format!("`{target}`: {expected}"))?;
            let number = |s: &str| {
                s.trim()
                    .parse::<usize>()
                    .map_err(|_| format!("`{target}`: {expected}"))
            };
            let r = match inner.split_once("..") {
                Some((a, b)) => number(a)?..number(b)?,
                None => {
                    let i = number(inner)?;
                    i..i + 1
                }
            };
            (name, Some(r))
        }
    };
    let Some(buffer) = spec.buffers.get(name) else {
        return Err(format!("`{name}` is no buffer of the case"));
    };
    let all = 0..buffer.elements as usize;
    let elements = range.unwrap_or(all.clone());
    if elements.is_empty() || elements.end > all.end {
        return Err(format!(
            "`{target}`: elements {}..{} of a buffer of {}",
            elements.start, elements.end, all.end
        ));
    }
    Ok((name.to_string(), elements))
}
