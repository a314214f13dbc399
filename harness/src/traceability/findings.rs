//! Findings for spec editors in the report: each finding of
//! `spec-map/findings.json` with the quotes of its clauses taken from the
//! registry, grouped by the text it is filed against (a finding filed
//! against two texts is under both, whole, so that each can be filed as it
//! stands), in Markdown and HTML.

use super::text::{esc, wbr};
use super::Trace;
use crate::spec_map::findings::{Finding, Findings, Implementation, Kind, PeerReading, Upstream};
use crate::spec_map::Registry;
use serde::Serialize;
use std::fmt::Write;

/// A clause a finding rests on, as the registry has it.
#[derive(Clone, Debug, Serialize)]
pub struct QuotedClause {
    pub id: String,
    pub document: String,
    pub section: String,
    pub strength: String,
    pub quote: String,
}

/// A finding with its clauses quoted.
#[derive(Clone, Debug, Serialize)]
pub struct FindingView {
    pub id: String,
    pub title: String,
    pub kind: Kind,
    pub texts: Vec<String>,
    pub clauses: Vec<QuotedClause>,
    pub summary: String,
    pub case: Option<String>,
    pub no_case: Option<String>,
    pub implementations: Vec<Implementation>,
    pub peers: Vec<PeerReading>,
    pub upstream: Vec<Upstream>,
    pub requires: String,
    pub proposed_wording: String,
}

/// The findings with their clauses quoted from `registry` (a clause the
/// registry lacks is left out: [`Findings::check`] reports it).
pub fn views(registry: &Registry, findings: &Findings) -> Vec<FindingView> {
    findings
        .findings
        .iter()
        .map(|f| view(registry, f))
        .collect()
}

fn view(registry: &Registry, f: &Finding) -> FindingView {
    let clauses = f
        .clauses
        .iter()
        .filter_map(|id| registry.clauses().find(|(_, c)| c.id == *id))
        .map(|(d, c)| QuotedClause {
            id: c.id.clone(),
            document: d.document.clone(),
            section: c.section.clone(),
            strength: c.strength.name().to_string(),
            quote: c.quote.clone(),
        })
        .collect();
    FindingView {
        id: f.id.clone(),
        title: f.title.clone(),
        kind: f.kind,
        texts: f.texts.clone(),
        clauses,
        summary: f.summary.clone(),
        case: f.case.clone(),
        no_case: f.no_case.clone(),
        implementations: f.implementations.clone(),
        peers: f.peers.clone(),
        upstream: f.upstream.clone(),
        requires: f.requires.clone(),
        proposed_wording: f.proposed_wording.clone(),
    }
}

impl Trace {
    pub fn with_findings(mut self, findings: Vec<FindingView>) -> Trace {
        self.findings = findings;
        self
    }

    /// The texts findings are filed against, in the report's document
    /// order, each with its findings.
    fn findings_by_text(&self) -> Vec<(&str, Vec<&FindingView>)> {
        self.documents
            .iter()
            .map(|d| {
                let here = self
                    .findings
                    .iter()
                    .filter(|f| f.texts.contains(&d.document))
                    .collect::<Vec<_>>();
                (d.document.as_str(), here)
            })
            .filter(|(_, here)| !here.is_empty())
            .collect()
    }

    /// `16 findings: 2 contradiction within a text, ...`
    pub fn findings_line(&self) -> String {
        let counts: Vec<String> = Kind::ALL
            .iter()
            .map(|k| (k, self.findings.iter().filter(|f| f.kind == *k).count()))
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| format!("{n} {}", k.name()))
            .collect();
        format!("{} findings: {}", self.findings.len(), counts.join(", "))
    }

    /// The findings as Markdown, their text sections at heading `level`
    /// (`##` in `findings.md`, `###` inside `traceability.md`).
    pub fn findings_markdown(&self, level: usize) -> String {
        let h = "#".repeat(level);
        let mut s = String::new();
        for (text, findings) in self.findings_by_text() {
            let _ = writeln!(s, "{h} Filed against {text} ({})\n", findings.len());
            for f in findings {
                finding_markdown(&mut s, f, text, level + 1);
            }
        }
        s
    }

    pub(super) fn findings_html(&self, s: &mut String) {
        let _ = write!(
            s,
            "<h2 id=findings>Findings for spec editors ({})</h2><p class=muted>{}. Where the texts contradict themselves or each other, are silent where implementations differ, are read against their words by a peer suite, or slip; grouped by the text to file each against, with the quotes of their clauses, the smallest case, what implementations and peer suites do, what the suite requires and a proposed wording.</p>",
            self.findings.len(),
            esc(&self.findings_line())
        );
        let mut anchored = std::collections::BTreeSet::new();
        for (text, findings) in self.findings_by_text() {
            let _ = write!(
                s,
                "<h3>Filed against {} ({})</h3>",
                esc(text),
                findings.len()
            );
            for f in findings {
                let id = if anchored.insert(f.id.as_str()) {
                    format!(" id='finding-{}'", esc(&f.id))
                } else {
                    String::new()
                };
                finding_html(s, f, text, &id);
            }
        }
    }
}

fn finding_markdown(s: &mut String, f: &FindingView, text: &str, level: usize) {
    let _ = writeln!(s, "{} {}\n", "#".repeat(level), f.title);
    let others: Vec<&str> = f
        .texts
        .iter()
        .map(String::as_str)
        .filter(|t| *t != text)
        .collect();
    let also = if others.is_empty() {
        String::new()
    } else {
        format!(" · also filed against {}", others.join(", "))
    };
    let _ = writeln!(s, "`{}` · {}{also}\n\n{}\n", f.id, f.kind.name(), f.summary);
    let _ = writeln!(s, "The texts:\n");
    for c in &f.clauses {
        let _ = writeln!(
            s,
            "- `{}` ({}, {}; {}):\n  > {}",
            c.id,
            c.document,
            c.section,
            c.strength,
            one_line(&c.quote)
        );
    }
    let _ = match (&f.case, &f.no_case) {
        (Some(case), _) => writeln!(s, "\nSmallest case: `{case}`."),
        (None, Some(why)) => writeln!(s, "\nNo case: {why}"),
        (None, None) => Ok(()),
    };
    if !f.implementations.is_empty() {
        let _ = writeln!(s, "\nImplementations:\n");
        for i in &f.implementations {
            let _ = writeln!(s, "- {}: {} ({}{})", i.name, i.does, i.source, run_note(i));
        }
    }
    if !f.peers.is_empty() {
        let _ = writeln!(s, "\nPeer suites:\n");
        for p in &f.peers {
            let _ = writeln!(s, "- {}: {} ({})", p.suite, p.reading, p.source);
        }
    }
    if !f.upstream.is_empty() {
        let _ = writeln!(s, "\nReported upstream:\n");
        for u in &f.upstream {
            let _ = writeln!(s, "- {}: {}", u.report, u.says);
        }
    }
    let _ = writeln!(
        s,
        "\nWhat the suite requires: {}\n\nProposed wording:\n\n> {}\n",
        f.requires,
        one_line(&f.proposed_wording)
    );
}

fn finding_html(s: &mut String, f: &FindingView, text: &str, id: &str) {
    let others: Vec<String> = f
        .texts
        .iter()
        .filter(|t| *t != text)
        .map(|t| esc(t))
        .collect();
    let _ = write!(
        s,
        "<details class=finding{id}><summary><b>{}</b> <span class='kind'>{}</span></summary><div class=fbody><p class=muted><code>{}</code>{}</p><p>{}</p><ul class=quotes>",
        esc(&f.title),
        esc(f.kind.name()),
        esc(&f.id),
        if others.is_empty() {
            String::new()
        } else {
            format!(" · also filed against {}", others.join(", "))
        },
        esc(&f.summary)
    );
    for c in &f.clauses {
        let _ = write!(
            s,
            "<li><a href='#{}'><code>{}</code></a> <span class=muted>{}, {}; {}</span><blockquote>{}</blockquote></li>",
            super::anchor(&c.id),
            wbr(&c.id),
            esc(&c.document),
            esc(&c.section),
            esc(&c.strength),
            esc(&c.quote)
        );
    }
    s.push_str("</ul>");
    let _ = match (&f.case, &f.no_case) {
        (Some(case), _) => write!(s, "<p><b>Smallest case:</b> <code>{}</code></p>", esc(case)),
        (None, Some(why)) => write!(s, "<p><b>No case:</b> {}</p>", esc(why)),
        (None, None) => Ok(()),
    };
    let list = |s: &mut String, title: &str, items: Vec<String>| {
        if items.is_empty() {
            return;
        }
        let _ = write!(s, "<p><b>{title}</b></p><ul>");
        for i in items {
            let _ = write!(s, "<li>{i}</li>");
        }
        s.push_str("</ul>");
    };
    list(
        s,
        "Implementations",
        f.implementations
            .iter()
            .map(|i| {
                format!(
                    "{}: {} <span class=muted>({}{})</span>",
                    esc(&i.name),
                    esc(&i.does),
                    esc(&i.source),
                    esc(&run_note(i))
                )
            })
            .collect(),
    );
    list(
        s,
        "Peer suites",
        f.peers
            .iter()
            .map(|p| {
                format!(
                    "{}: {} <span class=muted>({})</span>",
                    esc(&p.suite),
                    esc(&p.reading),
                    esc(&p.source)
                )
            })
            .collect(),
    );
    list(
        s,
        "Reported upstream",
        f.upstream
            .iter()
            .map(|u| format!("{}: {}", esc(&u.report), esc(&u.says)))
            .collect(),
    );
    let _ = write!(
        s,
        "<p><b>What the suite requires:</b> {}</p><p><b>Proposed wording:</b></p><blockquote>{}</blockquote></div></details>",
        esc(&f.requires),
        esc(&f.proposed_wording)
    );
}

/// `; run docs/...jsonl: expected fail on CASE`, for an implementation
/// seen in a recorded run.
fn run_note(i: &Implementation) -> String {
    match (&i.run, i.verdict) {
        (Some(run), Some(v)) => format!(
            "; recorded: {run}, {}{}",
            v.name(),
            i.run_case
                .as_deref()
                .map(|c| format!(" on {c}"))
                .unwrap_or_default()
        ),
        _ => String::new(),
    }
}

/// A quote on one Markdown line (inside a list item or a block quote).
fn one_line(text: &str) -> String {
    crate::spec_map::normalize(text)
}
