//! The traceability report: which rules of the spec are checked, and by
//! what; and, given results of runs, which rules each backend breaks.
//!
//! One data model ([`Trace`]) rendered three ways: JSON for tools
//! (versioned), Markdown, and a self-contained HTML page.

use crate::spec_map::{Clause, Coverage, Registry, Testable};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

pub const TRACE_VERSION: u32 = 1;

/// One backend run, read from a `--report` file.
#[derive(Clone, Debug, Serialize)]
pub struct BackendRun {
    /// `backend (profile)`.
    pub label: String,
    pub backend: String,
    pub profile: String,
    /// Case id to verdict and message.
    pub verdicts: BTreeMap<String, (String, String)>,
}

impl BackendRun {
    /// Reads a JSON Lines report written by `ser-conformance --report`.
    pub fn read(path: &Path) -> Result<BackendRun, String> {
        let records = crate::report::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let head = records.iter().find(|r| r["type"] == "run").ok_or_else(|| {
            format!(
                "{}: not a ser-conformance report (no run record)",
                path.display()
            )
        })?;
        let backend = head["backend"].as_str().unwrap_or("?").to_string();
        let profile = head["profile"].as_str().unwrap_or("?").to_string();
        let verdicts = records
            .iter()
            .filter(|r| r["type"] == "case")
            .filter_map(|r| {
                let id = r["id"].as_str()?.to_string();
                let v = r["verdict"].as_str()?.to_string();
                let m = r["message"].as_str().unwrap_or("").to_string();
                Some((id, (v, m)))
            })
            .collect();
        Ok(BackendRun {
            label: format!("{backend} ({profile})"),
            backend,
            profile,
            verdicts,
        })
    }
}

/// How a backend fares on one clause.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ClauseStatus {
    /// Every case of the clause that ran passed.
    Pass,
    /// A case of the clause failed or errored.
    Fail,
    /// Its cases did not apply or the backend lacks a capability.
    NotSupported,
    /// No case of the clause was in the run.
    NotRun,
}

#[derive(Clone, Debug, Serialize)]
pub struct ClauseRow {
    pub id: String,
    pub document: String,
    pub section: String,
    pub strength: String,
    pub testable: String,
    pub quote: String,
    pub cases: Vec<String>,
    /// Whether a case is owed (testable, not a twin).
    pub needs_case: bool,
    pub pending: Option<String>,
    pub untestable: Option<String>,
    pub same_as: Option<String>,
    /// Per backend run (in `runs` order): status and the failing cases.
    pub results: Vec<(ClauseStatus, Vec<String>)>,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct Tally {
    pub clauses: usize,
    /// Clauses a case is owed.
    pub testable: usize,
    pub covered: usize,
    pub pending: usize,
}

impl Tally {
    fn add(&mut self, row: &ClauseRow) {
        self.clauses += 1;
        if row.needs_case {
            self.testable += 1;
            if !row.cases.is_empty() {
                self.covered += 1;
            } else if row.pending.is_some() {
                self.pending += 1;
            }
        }
    }

    pub fn percent(&self) -> f64 {
        if self.testable == 0 {
            100.0
        } else {
            100.0 * self.covered as f64 / self.testable as f64
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct DocumentTrace {
    pub document: String,
    pub tally: Tally,
    /// Per section, in document order.
    pub sections: Vec<(String, Tally)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Trace {
    pub version: u32,
    pub documents: Vec<DocumentTrace>,
    pub total: Tally,
    pub clauses: Vec<ClauseRow>,
    pub runs: Vec<BackendRun>,
    /// Case ids naming clause IDs the registry lacks.
    pub unknown_clause_ids: Vec<(String, String)>,
}

fn status(run: &BackendRun, cases: &[String]) -> (ClauseStatus, Vec<String>) {
    let verdicts: Vec<(&String, &str)> = cases
        .iter()
        .filter_map(|c| run.verdicts.get(c).map(|(v, _)| (c, v.as_str())))
        .collect();
    let failing: Vec<String> = verdicts
        .iter()
        .filter(|(_, v)| *v == "fail" || *v == "error")
        .map(|(c, _)| c.to_string())
        .collect();
    let s = if !failing.is_empty() {
        ClauseStatus::Fail
    } else if verdicts.iter().any(|(_, v)| *v == "pass") {
        ClauseStatus::Pass
    } else if !verdicts.is_empty() {
        ClauseStatus::NotSupported
    } else {
        ClauseStatus::NotRun
    };
    (s, failing)
}

/// Builds the report data.
pub fn build(registry: &Registry, coverage: &Coverage, runs: Vec<BackendRun>) -> Trace {
    let mut clauses = Vec::new();
    let mut documents = Vec::new();
    let mut total = Tally::default();
    for doc in &registry.documents {
        let mut tally = Tally::default();
        let mut sections: Vec<(String, Tally)> = Vec::new();
        for c in &doc.clauses {
            let row = row(doc.document.as_str(), c, coverage, &runs);
            tally.add(&row);
            total.add(&row);
            let top = c.section.split(" > ").next().unwrap_or("").to_string();
            match sections.iter_mut().find(|(s, _)| *s == top) {
                Some((_, t)) => t.add(&row),
                None => {
                    let mut t = Tally::default();
                    t.add(&row);
                    sections.push((top, t));
                }
            }
            clauses.push(row);
        }
        documents.push(DocumentTrace {
            document: doc.document.clone(),
            tally,
            sections,
        });
    }
    Trace {
        version: TRACE_VERSION,
        documents,
        total,
        clauses,
        runs,
        unknown_clause_ids: coverage
            .unknown
            .iter()
            .map(|(case, id, _)| (case.clone(), id.clone()))
            .collect(),
    }
}

fn row(document: &str, c: &Clause, coverage: &Coverage, runs: &[BackendRun]) -> ClauseRow {
    let cases = coverage.cases.get(&c.id).cloned().unwrap_or_default();
    ClauseRow {
        id: c.id.clone(),
        document: document.to_string(),
        section: c.section.clone(),
        strength: c.strength.name().to_string(),
        testable: c.testable.name().to_string(),
        quote: c.quote.clone(),
        needs_case: c.needs_case(),
        pending: c.pending.clone(),
        untestable: c.untestable.clone(),
        same_as: c.same_as.clone(),
        results: runs.iter().map(|r| status(r, &cases)).collect(),
        cases,
    }
}

impl Trace {
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("the report serializes")
    }

    fn uncovered(&self) -> impl Iterator<Item = &ClauseRow> {
        self.clauses
            .iter()
            .filter(|r| r.needs_case && r.cases.is_empty())
    }

    /// The counts in one line.
    pub fn headline(&self) -> String {
        let t = &self.total;
        format!(
            "{} clauses · {} testable (a case is owed) · {} covered ({:.1}%) · {} pending · {} uncovered without a pending note",
            t.clauses,
            t.testable,
            t.covered,
            t.percent(),
            t.pending,
            t.testable - t.covered - t.pending
        )
    }

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
                    text_bar(t)
                )
            };
            let _ = writeln!(s, "{}", line("**all**", &d.tally));
            for (name, t) in &d.sections {
                let _ = writeln!(s, "{}", line(&escape_md(name), t));
            }
            s.push('\n');
        }
        if !self.runs.is_empty() {
            let _ = writeln!(s, "## Clauses by backend\n");
            let _ = writeln!(s, "Only clauses with cases are listed. ✅ pass, ❌ fail (failing cases listed), ⚪ not supported, · not run.\n");
            let head: Vec<String> = self.runs.iter().map(|r| escape_md(&r.label)).collect();
            let _ = writeln!(s, "| clause | {} |", head.join(" | "));
            let _ = writeln!(s, "| --- |{}", " --- |".repeat(self.runs.len()));
            for r in self.clauses.iter().filter(|r| !r.cases.is_empty()) {
                let cells: Vec<String> = r
                    .results
                    .iter()
                    .map(|(st, failing)| match st {
                        ClauseStatus::Pass => "✅".to_string(),
                        ClauseStatus::Fail => format!(
                            "❌ {}",
                            failing
                                .iter()
                                .map(|c| format!("[{c}](#{})", anchor(c)))
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                        ClauseStatus::NotSupported => "⚪".to_string(),
                        ClauseStatus::NotRun => "·".to_string(),
                    })
                    .collect();
                let _ = writeln!(s, "| `{}` | {} |", r.id, cells.join(" | "));
            }
            s.push('\n');
            let _ = writeln!(s, "### Failing cases\n");
            for run in &self.runs {
                for (case, (v, m)) in run
                    .verdicts
                    .iter()
                    .filter(|(_, (v, _))| v == "fail" || v == "error")
                {
                    let _ = writeln!(
                        s,
                        "<a id=\"{}\"></a>**{}** on {} ({v}):\n\n```\n{}\n```\n",
                        anchor(case),
                        case,
                        run.label,
                        m
                    );
                }
            }
        }
        let _ = writeln!(s, "## Uncovered testable clauses\n");
        for r in self.uncovered() {
            match &r.pending {
                Some(p) => {
                    let _ = writeln!(s, "- `{}` ({}) — pending: {}", r.id, r.testable, p);
                }
                None => {
                    let _ = writeln!(
                        s,
                        "- `{}` ({}) — **no case and no pending note**",
                        r.id, r.testable
                    );
                }
            }
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
                    r.cases
                        .iter()
                        .map(|c| format!("`{c}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let _ = writeln!(
                    s,
                    "| `{}` | {} | {} | {} |",
                    r.id, r.strength, r.testable, cases
                );
            }
            s.push('\n');
        }
        s
    }

    pub fn to_html(&self) -> String {
        let mut s = String::new();
        s.push_str(HTML_HEAD);
        let _ = write!(
            s,
            "<h1>SER spec traceability</h1><p class=lead>{}</p>",
            esc(&self.headline())
        );
        s.push_str("<nav><a href=#coverage>Coverage</a> <a href=#matrix>Backends</a> <a href=#uncovered>Uncovered</a> <a href=#clauses>All clauses</a></nav>");
        s.push_str("<h2 id=coverage>Coverage by document and section</h2>");
        for d in &self.documents {
            let _ = write!(s, "<h3>{}</h3><table class=cov><tr><th>section<th>clauses<th>testable<th>covered<th>pending<th>coverage</tr>", esc(&d.document));
            let mut line = |name: &str, t: &Tally, strong: bool| {
                let _ = write!(
                    s,
                    "<tr{}><td>{}<td class=n>{}<td class=n>{}<td class=n>{}<td class=n>{}<td>{}</tr>",
                    if strong { " class=all" } else { "" },
                    esc(name),
                    t.clauses,
                    t.testable,
                    t.covered,
                    t.pending,
                    html_bar(t)
                );
            };
            line("all", &d.tally, true);
            for (name, t) in &d.sections {
                line(name, t, false);
            }
            s.push_str("</table>");
        }
        s.push_str("<h2 id=matrix>Clauses by backend</h2>");
        if self.runs.is_empty() {
            s.push_str("<p>No backend results given (pass <code>--results FILE</code>, a <code>--report</code> of <code>ser-conformance</code>).</p>");
        } else {
            s.push_str("<p>Clauses with cases. <span class='st pass'>pass</span> <span class='st fail'>fail</span> <span class='st ns'>not supported</span> <span class='st nr'>not run</span></p><div class=scroll><table class=matrix><tr><th>clause");
            for r in &self.runs {
                let _ = write!(s, "<th>{}", esc(&r.label));
            }
            s.push_str("</tr>");
            for r in self.clauses.iter().filter(|r| !r.cases.is_empty()) {
                let _ = write!(s, "<tr><td><a href='#{}'>{}</a>", anchor(&r.id), esc(&r.id));
                for (st, failing) in &r.results {
                    match st {
                        ClauseStatus::Pass => s.push_str("<td class='st pass'>pass"),
                        ClauseStatus::NotSupported => s.push_str("<td class='st ns'>n/s"),
                        ClauseStatus::NotRun => s.push_str("<td class='st nr'>·"),
                        ClauseStatus::Fail => {
                            s.push_str("<td class='st fail'>fail: ");
                            let links: Vec<String> = failing
                                .iter()
                                .map(|c| format!("<a href='#{}'>{}</a>", anchor(c), esc(c)))
                                .collect();
                            s.push_str(&links.join(", "));
                        }
                    }
                }
                s.push_str("</tr>");
            }
            s.push_str("</table></div><h3>Failing cases</h3>");
            for run in &self.runs {
                for (case, (v, m)) in run
                    .verdicts
                    .iter()
                    .filter(|(_, (v, _))| v == "fail" || v == "error")
                {
                    let _ = write!(
                        s,
                        "<div class=failcase id='{}'><b>{}</b> on {} ({})<pre>{}</pre></div>",
                        anchor(case),
                        esc(case),
                        esc(&run.label),
                        esc(v),
                        esc(m)
                    );
                }
            }
        }
        s.push_str("<h2 id=uncovered>Uncovered testable clauses</h2><ul>");
        for r in self.uncovered() {
            let _ = write!(
                s,
                "<li><a href='#{}'>{}</a> ({}): {}</li>",
                anchor(&r.id),
                esc(&r.id),
                esc(&r.testable),
                match &r.pending {
                    Some(p) => format!("pending: {}", esc(p)),
                    None => "<b>no case and no pending note</b>".into(),
                }
            );
        }
        s.push_str("</ul><h2 id=clauses>Every clause and its cases</h2>");
        for d in &self.documents {
            let _ = write!(s, "<h3>{}</h3><table class=clauses><tr><th>clause<th>strength<th>testable<th>quote<th>cases</tr>", esc(&d.document));
            for r in self.clauses.iter().filter(|r| r.document == d.document) {
                let cases = if r.cases.is_empty() {
                    match (&r.same_as, &r.untestable, &r.pending) {
                        (Some(t), ..) => format!("via <a href='#{}'>{}</a>", anchor(t), esc(t)),
                        (_, Some(u), _) => format!("<i>untestable: {}</i>", esc(u)),
                        (_, _, Some(p)) => format!("<i>pending: {}</i>", esc(p)),
                        _ => "—".into(),
                    }
                } else {
                    r.cases
                        .iter()
                        .map(|c| format!("<code>{}</code>", esc(c)))
                        .collect::<Vec<_>>()
                        .join(" ")
                };
                let _ = write!(
                    s,
                    "<tr id='{}'><td><code>{}</code><div class=sec>{}</div><td>{}<td>{}<td class=q>{}<td class=cases>{}</tr>",
                    anchor(&r.id),
                    esc(&r.id),
                    esc(&r.section),
                    esc(&r.strength),
                    esc(&r.testable),
                    esc(&r.quote),
                    cases
                );
            }
            s.push_str("</table>");
        }
        s.push_str("</body></html>\n");
        s
    }
}

fn text_bar(t: &Tally) -> String {
    if t.testable == 0 {
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

/// A coverage bar: covered in green, pending in amber, the rest grey.
fn html_bar(t: &Tally) -> String {
    if t.testable == 0 {
        return "<span class=na>nothing testable</span>".into();
    }
    let pending = 100.0 * t.pending as f64 / t.testable as f64;
    format!(
        "<div class=bar title='{:.0}% covered, {pending:.0}% pending'><span class=c style='width:{:.1}%'></span><span class=p style='width:{pending:.1}%'></span></div> {:.0}%",
        t.percent(),
        t.percent(),
        t.percent()
    )
}

fn anchor(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\'', "&#39;")
        .replace('"', "&quot;")
}

fn escape_md(s: &str) -> String {
    s.replace('|', "\\|")
}

const HTML_HEAD: &str = r#"<!doctype html><html lang=en><head><meta charset=utf-8><title>SER spec traceability</title><style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1200px;color:#1b1f24;padding:0 16px}
h1{margin:0 0 4px}h2{margin-top:32px;border-bottom:1px solid #d0d7de}nav a{margin-right:12px}
.lead{font-size:16px;color:#444}
table{border-collapse:collapse;width:100%;margin:8px 0 16px}td,th{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;width:70px}tr.all td{font-weight:600;background:#f6f8fa}
.bar{display:inline-block;width:220px;height:12px;background:#eaeef2;border-radius:6px;overflow:hidden;vertical-align:middle}
.na{color:#8c959f;font-size:12px}.bar span{display:inline-block;height:100%}.bar .c{background:#2da44e}.bar .p{background:#d4a72c}
.st{font-weight:600;padding:1px 5px;border-radius:4px}.pass{background:#dafbe1;color:#116329}.fail{background:#ffebe9;color:#a40e26}
.ns{background:#eaeef2;color:#57606a}.nr{color:#8c959f}
table.matrix td:first-child{font-family:ui-monospace,monospace;font-size:12px;overflow-wrap:anywhere;min-width:260px;max-width:360px}td.st{overflow-wrap:anywhere;font-size:12px}.scroll{overflow-x:auto}
td.q{font-size:12px;color:#333;max-width:420px;overflow-wrap:anywhere}table.clauses td:first-child{overflow-wrap:anywhere;max-width:300px}td.cases{font-size:12px}.sec{font-size:11px;color:#57606a}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:6px;font-size:12px}.failcase{margin:8px 0}
</style></head><body>"#;

/// Loads the registry, the cases and the results, and writes
/// `traceability.{md,html,json}` into `out`. Returns a one-paragraph summary.
pub fn write_report(
    spec_map: &Path,
    cases_dir: &Path,
    results: &[std::path::PathBuf],
    out: &Path,
) -> Result<String, String> {
    let registry = Registry::load(spec_map).map_err(|ps| {
        ps.iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    })?;
    let loaded = crate::load::load_dir(cases_dir);
    let cases: Vec<crate::load::Case> = loaded
        .iter()
        .filter_map(|r| r.as_ref().ok().cloned())
        .collect();
    let load_errors = loaded.iter().filter(|r| r.is_err()).count();
    let coverage = Coverage::of_cases(&registry, &cases);
    let runs = results
        .iter()
        .map(|p| BackendRun::read(p))
        .collect::<Result<Vec<_>, _>>()?;
    let trace = build(&registry, &coverage, runs);
    std::fs::create_dir_all(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let write = |name: &str, text: String| {
        std::fs::write(out.join(name), text)
            .map_err(|e| format!("{}: {e}", out.join(name).display()))
    };
    write("traceability.md", trace.to_markdown())?;
    write("traceability.html", trace.to_html())?;
    write(
        "traceability.json",
        serde_json::to_string_pretty(&trace.to_json()).expect("serializes") + "\n",
    )?;
    let t = &trace.total;
    let mut summary = format!(
        "{} clauses, {} testable, {} covered ({:.1}%), {} pending; {} cases ({} failed to load); {} backend run(s).\nwrote {}/traceability.{{md,html,json}}",
        t.clauses,
        t.testable,
        t.covered,
        t.percent(),
        t.pending,
        cases.len(),
        load_errors,
        trace.runs.len(),
        out.display()
    );
    if !trace.unknown_clause_ids.is_empty() {
        summary.push_str(&format!(
            "\n{} case(s) name unknown clause IDs",
            trace.unknown_clause_ids.len()
        ));
    }
    let _ = Testable::Runtime;
    Ok(summary)
}
