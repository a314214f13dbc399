//! JUnit XML, so that CI systems show the results natively: one testsuite
//! per run, one testcase per case. Failures, unexpected passes and cases
//! declined inside the backend's claim (*not supported*) are `<failure>`;
//! timeouts, crashes and errors `<error>`; cases outside the claim (*not
//! applicable*) and expected failures `<skipped>` with the reason;
//! recommendations not met (which do not count against conformance, and
//! JUnit has no word for) `<skipped>` with the reason and, in its body, the
//! mismatches.

use crate::report::Summary;
use crate::verdict::{CaseResult, Verdict};
use std::fmt::Write as _;

/// Escapes text for an XML attribute or element; drops characters XML 1.0
/// cannot carry.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// The document for a run.
pub fn write(suite: &str, summary: &Summary, results: &[CaseResult]) -> String {
    let mut sorted: Vec<&CaseResult> = results.iter().collect();
    sorted.sort_by(|a, b| a.id.cmp(&b.id));
    let time: f64 = results.iter().map(|r| r.duration_ms).sum::<f64>() / 1000.0;
    let failures = summary.fail + summary.unexpected_pass + summary.not_supported;
    let errors = summary.error + summary.timeout + summary.crash;
    let skipped = summary.not_applicable + summary.expected_fail + summary.warning;
    let mut x = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let counts = format!(
        "tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\" skipped=\"{skipped}\" time=\"{time:.3}\"",
        summary.total()
    );
    let _ = writeln!(x, "<testsuites name=\"ser-conformance\" {counts}>");
    let _ = writeln!(x, "  <testsuite name=\"{}\" {counts}>", escape(suite));
    for r in sorted {
        let (class, name) = r.id.rsplit_once('/').unwrap_or(("", &r.id));
        let _ = write!(
            x,
            "    <testcase classname=\"{}\" name=\"{}\" file=\"{}\" time=\"{:.3}\"",
            escape(&class.replace('/', ".")),
            escape(name),
            escape(&r.file),
            r.duration_ms / 1000.0
        );
        let first = r.message.lines().next().unwrap_or("");
        let body = match r.verdict {
            Verdict::Pass => None,
            Verdict::Fail | Verdict::UnexpectedPass | Verdict::NotSupported => Some(format!(
                "<failure type=\"{}\" message=\"{}\">{}</failure>",
                r.verdict.name(),
                escape(first),
                escape(&r.message)
            )),
            Verdict::Error | Verdict::Timeout | Verdict::Crash => Some(format!(
                "<error type=\"{}\" message=\"{}\">{}</error>",
                r.verdict.name(),
                escape(first),
                escape(&r.message)
            )),
            // The mismatches go in the body: the case found something.
            Verdict::Warning => Some(format!(
                "<skipped message=\"{}: {}\">{}</skipped>",
                r.verdict.name(),
                escape(first),
                escape(&r.message)
            )),
            Verdict::NotApplicable | Verdict::ExpectedFail => Some(format!(
                "<skipped message=\"{}: {}\"/>",
                r.verdict.name(),
                escape(first)
            )),
        };
        let props: String = r
            .clauses
            .iter()
            .map(|c| format!("<property name=\"clause\" value=\"{}\"/>", escape(c)))
            .collect();
        if body.is_none() && props.is_empty() {
            x.push_str("/>\n");
            continue;
        }
        x.push_str(">\n");
        if !props.is_empty() {
            let _ = writeln!(x, "      <properties>{props}</properties>");
        }
        if let Some(b) = body {
            let _ = writeln!(x, "      {b}");
        }
        x.push_str("    </testcase>\n");
    }
    x.push_str("  </testsuite>\n</testsuites>\n");
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_control_characters() {
        assert_eq!(
            escape("a<b>&\"'\u{1}"),
            "a&lt;b&gt;&amp;&quot;&apos;\u{fffd}"
        );
    }
}
