//! The traceability report as Markdown, for reading in a repository: the
//! same sections as the HTML page, long lists cut to their first entries
//! and a count.

use super::text::case_anchor;
use super::{ClauseStatus, Tally, Trace};
use crate::report::thousands;
use std::fmt::Write;

/// Cases shown in a cell before "and N more".
const SHOWN: usize = 3;

impl Trace {
    pub fn to_markdown(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(s, "# SER spec traceability\n\n{}.\n", self.headline());
        let _ = writeln!(s, "## Coverage by document and section\n");
        for d in &self.documents {
            let _ = writeln!(s, "### {}\n", d.document);
            let _ = writeln!(
                s,
                "| section | clauses | testable | covered | pending | coverage |"
            );
            let _ = writeln!(s, "| --- | ---: | ---: | ---: | ---: | --- |");
            let line = |name: &str, t: &Tally| {
                format!(
                    "| {name} | {} | {} | {} | {} | {} |",
                    t.clauses,
                    t.testable,
                    t.covered,
                    t.pending,
                    text_bar(t, &d.twins_of)
                )
            };
            let _ = writeln!(s, "{}", line("**all**", &d.tally));
            for (name, t) in &d.sections {
                let _ = writeln!(s, "{}", line(&escape_md(name), t));
            }
            s.push('\n');
        }
        if !self.findings.is_empty() {
            let _ = writeln!(
                s,
                "## Findings for spec editors\n\n{}; grouped by the text to file each against (also in `findings.md`).\n",
                self.findings_line()
            );
            s.push_str(&self.findings_markdown(3));
        }
        if !self.runs.is_empty() {
            self.backends_markdown(&mut s);
        }
        if !self.load_errors.is_empty() {
            let _ = writeln!(s, "## Cases that do not load\n");
            for e in &self.load_errors {
                let _ = writeln!(
                    s,
                    "- `{}` ({}: {}): {}",
                    e.case.as_deref().unwrap_or("the file"),
                    e.file,
                    e.location,
                    e.message
                );
            }
            s.push('\n');
        }
        let _ = writeln!(
            s,
            "## Uncovered testable clauses\n\nWhat the text says, and what a case of it needs.\n"
        );
        for r in self.uncovered() {
            let needs = match &r.pending {
                Some(p) => format!("A case needs: {p}"),
                None => "**no case and no pending note**".to_string(),
            };
            let _ = writeln!(
                s,
                "- `{}` ({}; {}, {}):\n  > {}\n\n  {needs}",
                r.id,
                r.section,
                r.strength,
                r.testable,
                crate::spec_map::normalize(&r.quote)
            );
        }
        let _ = writeln!(s, "\n## Every clause and its cases\n");
        for d in &self.documents {
            let _ = writeln!(s, "### {}\n", d.document);
            let _ = writeln!(s, "| clause | strength | testable | cases |");
            let _ = writeln!(s, "| --- | --- | --- | --- |");
            for r in self.clauses.iter().filter(|r| r.document == d.document) {
                let cases = if r.cases.is_empty() {
                    match (&r.same_as, &r.untestable, &r.pending) {
                        (Some(t), ..) => format!("via `{t}`"),
                        (_, Some(u), _) => format!("untestable: {}", escape_md(u)),
                        (_, _, Some(p)) => format!("pending: {}", escape_md(p)),
                        _ => "—".to_string(),
                    }
                } else {
                    cut(r.cases.iter().map(|c| format!("`{c}`")).collect())
                };
                let links: Vec<String> = r
                    .counterparts
                    .iter()
                    .map(|c| match &c.difference {
                        None => format!("same rule: `{}`", c.id),
                        Some(d) => format!("differs from `{}`: {}", c.id, escape_md(d)),
                    })
                    .collect();
                let id = if links.is_empty() {
                    format!("`{}`", r.id)
                } else {
                    format!("`{}` ({})", r.id, links.join("; "))
                };
                let _ = writeln!(s, "| {id} | {} | {} | {} |", r.strength, r.testable, cases);
            }
            s.push('\n');
        }
        s
    }

    fn backends_markdown(&self, s: &mut String) {
        let _ = writeln!(s, "## Backends\n");
        let _ = writeln!(s, "| backend | verdict | clauses with cases |");
        let _ = writeln!(s, "| --- | --- | --- |");
        for (i, run) in self.runs.iter().enumerate() {
            let clauses: Vec<String> = self
                .clause_totals(i)
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(st, n)| format!("{} {}", thousands(*n), st.name()))
                .collect();
            let _ = writeln!(
                s,
                "| {} | {} | {} |",
                escape_md(&run.label),
                escape_md(run.verdict.as_deref().unwrap_or("(no summary record)")),
                clauses.join(", ")
            );
        }
        let _ = writeln!(
            s,
            "\n### Clauses broken, cited by a failing case, or not met\n"
        );
        let _ = writeln!(s, "❌ broken (a failing case ties a mismatch to the clause), ⚠️ cited by a failing case, 🔶 not met (a `should` clause: a recommendation, not counted against conformance), ✅ pass, ⚪ not applicable, · not run.\n");
        let head: Vec<String> = self.runs.iter().map(|r| escape_md(&r.label)).collect();
        let _ = writeln!(s, "| clause | {} |", head.join(" | "));
        let _ = writeln!(s, "| --- |{}", " --- |".repeat(self.runs.len()));
        for r in self.troubled() {
            let cells: Vec<String> = r
                .results
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let links = || {
                        cut(c
                            .cases
                            .iter()
                            .map(|case| format!("[{case}](#{})", case_anchor(i, case)))
                            .collect())
                    };
                    match c.status {
                        ClauseStatus::Pass => "✅".to_string(),
                        ClauseStatus::Broken => format!("❌ {}", links()),
                        ClauseStatus::CitedByFailing => format!("⚠️ {}", links()),
                        ClauseStatus::NotMet => format!("🔶 {}", links()),
                        ClauseStatus::NotApplicable => "⚪".to_string(),
                        ClauseStatus::NotRun => "·".to_string(),
                    }
                })
                .collect();
            let _ = writeln!(s, "| `{}` | {} |", r.id, cells.join(" | "));
        }
        let _ = writeln!(s, "\n### Failing cases, and recommendations not met\n");
        for (i, run) in self.runs.iter().enumerate() {
            for (case, r) in run.listed() {
                let _ = writeln!(
                    s,
                    "<a id=\"{}\"></a>**{}** on {} ({}):\n\n```\n{}\n```\n",
                    case_anchor(i, case),
                    case,
                    run.label,
                    r.verdict.name(),
                    r.message
                );
            }
        }
    }
}

/// The first few entries and a count of the rest.
fn cut(items: Vec<String>) -> String {
    if items.len() <= SHOWN {
        return items.join(", ");
    }
    format!(
        "{}, and {} more",
        items[..SHOWN].join(", "),
        thousands(items.len() - SHOWN)
    )
}

fn text_bar(t: &Tally, twins_of: &[String]) -> String {
    if t.testable == 0 {
        if t.twins > 0 {
            return format!(
                "{} of {} twins covered through {}",
                t.twins_covered,
                t.twins,
                twins_of.join(", ")
            );
        }
        return "— (nothing testable)".into();
    }
    let filled = (t.percent() / 10.0).round() as usize;
    format!(
        "{}{} {:.0}%",
        "█".repeat(filled),
        "░".repeat(10 - filled.min(10)),
        t.percent()
    )
}

fn escape_md(s: &str) -> String {
    s.replace('|', "\\|")
}
