//! The traceability report as one self-contained HTML page, laid out to
//! read at 1400 px: fixed column shares so quotes stay readable, long case
//! lists folded with their counts, per-backend totals before the matrix,
//! and the long tables folded per document.

use super::{anchor, ClauseResult, ClauseRow, ClauseStatus, Tally, Trace};
use crate::report::thousands;
use crate::verdict::Verdict;
use std::fmt::Write;

/// Lists longer than this fold behind their count.
const SHOWN: usize = 3;

impl Trace {
    pub fn to_html(&self) -> String {
        let mut s = String::from(HTML_HEAD);
        let _ = write!(
            s,
            "<h1>SER spec traceability</h1><p class=lead>{}</p>",
            esc(&self.headline())
        );
        s.push_str("<nav><a href=#coverage>Coverage</a> <a href=#backends>Backends</a> <a href=#load>Load errors</a> <a href=#uncovered>Uncovered</a> <a href=#clauses>All clauses</a></nav>");
        self.coverage_html(&mut s);
        self.backends_html(&mut s);
        self.load_errors_html(&mut s);
        self.uncovered_html(&mut s);
        self.clauses_html(&mut s);
        s.push_str("</body></html>\n");
        s
    }

    fn coverage_html(&self, s: &mut String) {
        s.push_str("<h2 id=coverage>Coverage by document and section</h2>");
        for d in &self.documents {
            let _ = write!(
                s,
                "<details open class=doc><summary><b>{}</b> {} <span class=muted>{} clauses, {} testable, {} covered, {} pending</span></summary><table class=cov><colgroup><col><col class=n><col class=n><col class=n><col class=n><col class=barcol></colgroup><tr><th>section<th>clauses<th>testable<th>covered<th>pending<th>coverage</tr>",
                esc(&d.document),
                html_bar(&d.tally),
                thousands(d.tally.clauses),
                thousands(d.tally.testable),
                thousands(d.tally.covered),
                thousands(d.tally.pending)
            );
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
            s.push_str("</table></details>");
        }
    }

    fn backends_html(&self, s: &mut String) {
        s.push_str("<h2 id=backends>Backends</h2>");
        if self.runs.is_empty() {
            s.push_str("<p>No backend results given (pass <code>--results FILE</code>, a <code>--report</code> of <code>ser-conformance</code>).</p>");
            return;
        }
        s.push_str("<p>A clause is <span class='st broken'>broken</span> where a failing case ties a mismatching element to it (a case citing one clause ties all to it); the other clauses of a failing case are <span class='st cited'>cited by a failing case</span>. A <code>should</code> clause is <span class='st notmet'>not met</span> where a case misses it and nothing else: a recommendation, not counted against conformance. <span class='st pass'>pass</span>: every case of the clause that ran passed; <span class='st na'>n/a</span>: its cases are outside the backend's claim; <span class='st nr'>·</span>: not run.</p>");
        s.push_str(
            "<table class=totals><tr><th>backend<th>verdict<th>cases<th>clauses with cases</tr>",
        );
        for (i, run) in self.runs.iter().enumerate() {
            let cases: Vec<String> = run
                .verdict_counts()
                .iter()
                .map(|(v, n)| v.counted(*n))
                .collect();
            let clauses: Vec<String> = self
                .clause_totals(i)
                .iter()
                .filter(|(_, n)| *n > 0)
                .map(|(st, n)| {
                    format!(
                        "<span class='st {}'>{} {}</span>",
                        css(*st),
                        thousands(*n),
                        st.name()
                    )
                })
                .collect();
            let _ = write!(
                s,
                "<tr><td><b>{}</b><td>{}<td>{}<td>{}</tr>",
                esc(&run.label),
                esc(run.verdict.as_deref().unwrap_or("(no summary record)")),
                cases.join(", "),
                clauses.join(" ")
            );
        }
        s.push_str("</table>");
        let troubled: Vec<&ClauseRow> = self.troubled().collect();
        let _ = write!(
            s,
            "<h3>Clauses broken, cited by a failing case, or not met ({})</h3>",
            troubled.len()
        );
        if troubled.is_empty() {
            s.push_str("<p>None: every case that ran passed.</p>");
        } else {
            self.matrix(s, &troubled);
        }
        let all: Vec<&ClauseRow> = self.with_cases().collect();
        let _ = write!(
            s,
            "<details><summary>Every clause with cases, by backend ({})</summary>",
            all.len()
        );
        self.matrix(s, &all);
        s.push_str("</details><h3>Failing cases, and recommendations not met</h3>");
        for (i, run) in self.runs.iter().enumerate() {
            let listed: Vec<_> = run.listed().collect();
            let failing = listed.iter().filter(|(_, r)| r.failing()).count();
            let _ = write!(
                s,
                "<details class=failing><summary>{}: {} case(s) counting against it, {}</summary>",
                esc(&run.label),
                failing,
                Verdict::Warning.counted(listed.len() - failing)
            );
            for (case, r) in listed {
                let _ = write!(
                    s,
                    "<div class=failcase id='{}'><b>{}</b> ({}){}<pre>{}</pre></div>",
                    case_anchor(i, case),
                    esc(case),
                    esc(r.verdict.name()),
                    match (r.broken.is_empty(), r.verdict) {
                        (true, _) => String::new(),
                        (false, Verdict::Warning) => {
                            format!(" does not meet <code>{}</code>", esc(&r.broken.join(", ")))
                        }
                        (false, _) => {
                            format!(" breaks <code>{}</code>", esc(&r.broken.join(", ")))
                        }
                    },
                    esc(&r.message)
                );
            }
            s.push_str("</details>");
        }
    }

    fn matrix(&self, s: &mut String, rows: &[&ClauseRow]) {
        s.push_str("<div class=scroll><table class=matrix><tr><th>clause");
        for r in &self.runs {
            let _ = write!(s, "<th>{}", esc(&r.label));
        }
        s.push_str("</tr>");
        for r in rows {
            let _ = write!(s, "<tr><td><a href='#{}'>{}</a>", anchor(&r.id), esc(&r.id));
            for (i, c) in r.results.iter().enumerate() {
                s.push_str(&cell(i, c));
            }
            s.push_str("</tr>");
        }
        s.push_str("</table></div>");
    }

    fn load_errors_html(&self, s: &mut String) {
        let _ = write!(
            s,
            "<h2 id=load>Cases that do not load ({})</h2>",
            self.load_errors.len()
        );
        if self.load_errors.is_empty() {
            s.push_str("<p>None.</p>");
            return;
        }
        s.push_str("<table class=load><tr><th>case<th>where<th>what is wrong</tr>");
        for e in &self.load_errors {
            let _ = write!(
                s,
                "<tr><td><code>{}</code><td>{}: {}<td>{}</tr>",
                esc(e.case.as_deref().unwrap_or("(the file)")),
                esc(&e.file),
                esc(&e.location),
                esc(&e.message)
            );
        }
        s.push_str("</table>");
        if !self.unknown_clause_ids.is_empty() {
            s.push_str("<p>Clause IDs no clause of the spec-map has:</p><ul>");
            for (case, id) in &self.unknown_clause_ids {
                let _ = write!(
                    s,
                    "<li><code>{}</code> in <code>{}</code></li>",
                    esc(id),
                    esc(case)
                );
            }
            s.push_str("</ul>");
        }
    }

    fn uncovered_html(&self, s: &mut String) {
        let rows: Vec<&ClauseRow> = self.uncovered().collect();
        let _ = write!(
            s,
            "<h2 id=uncovered>Uncovered testable clauses ({})</h2><p class=muted>Per document, folded: each with the case it is waiting for.</p>",
            rows.len()
        );
        for d in &self.documents {
            let here: Vec<&&ClauseRow> = rows.iter().filter(|r| r.document == d.document).collect();
            if here.is_empty() {
                continue;
            }
            let _ = write!(
                s,
                "<details class=doc><summary><b>{}</b> <span class=muted>{} uncovered</span></summary><ul>",
                esc(&d.document),
                thousands(here.len())
            );
            for r in here {
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
            s.push_str("</ul></details>");
        }
    }

    fn clauses_html(&self, s: &mut String) {
        s.push_str("<h2 id=clauses>Every clause and its cases</h2><p class=muted>One table per document, folded; a link to a clause opens its table.</p>");
        for d in &self.documents {
            let _ = write!(
                s,
                "<details class=doc><summary><b>{}</b> <span class=muted>{} clauses</span></summary><table class=clauses><colgroup><col class=id><col class=kind><col class=q><col class=cases></colgroup><tr><th>clause<th>strength, testable<th>quote<th>cases</tr>",
                esc(&d.document),
                thousands(d.tally.clauses)
            );
            for r in self.clauses.iter().filter(|r| r.document == d.document) {
                let cases = if r.cases.is_empty() {
                    match (&r.same_as, &r.untestable, &r.pending) {
                        (Some(t), ..) => format!("via <a href='#{}'>{}</a>", anchor(t), esc(t)),
                        (_, Some(u), _) => format!("<i>untestable: {}</i>", esc(u)),
                        (_, _, Some(p)) => format!("<i>pending: {}</i>", esc(p)),
                        _ => "—".into(),
                    }
                } else {
                    fold(
                        r.cases
                            .iter()
                            .map(|c| format!("<code>{}</code>", esc(c)))
                            .collect(),
                        "cases",
                    )
                };
                let links: String = r
                    .counterparts
                    .iter()
                    .map(|c| match &c.difference {
                        None => format!(
                            "<div class=link>same rule: <a href='#{}'>{}</a></div>",
                            anchor(&c.id),
                            esc(&c.id)
                        ),
                        Some(d) => format!(
                            "<div class=link>differs from <a href='#{}'>{}</a>: {}</div>",
                            anchor(&c.id),
                            esc(&c.id),
                            esc(d)
                        ),
                    })
                    .collect();
                let _ = write!(
                    s,
                    "<tr id='{}'><td><code>{}</code><div class=sec>{}</div>{links}<td>{}<br>{}<td class=q>{}<td class=cases>{}</tr>",
                    anchor(&r.id),
                    esc(&r.id),
                    esc(&r.section),
                    esc(&r.strength),
                    esc(&r.testable),
                    esc(&r.quote),
                    cases
                );
            }
            s.push_str("</table></details>");
        }
    }
}

/// A matrix cell: the status, and for failing ones the cases behind it.
fn cell(run: usize, c: &ClauseResult) -> String {
    let label = match c.status {
        ClauseStatus::Pass => "pass",
        ClauseStatus::Broken => "broken",
        ClauseStatus::CitedByFailing => "cited",
        ClauseStatus::NotMet => "not met",
        ClauseStatus::NotApplicable => "n/a",
        ClauseStatus::NotRun => "·",
    };
    let links: Vec<String> = c
        .cases
        .iter()
        .map(|case| format!("<a href='#{}'>{}</a>", case_anchor(run, case), esc(case)))
        .collect();
    format!(
        "<td class='st {}'>{label}{}",
        css(c.status),
        if links.is_empty() {
            String::new()
        } else {
            format!(": {}", fold(links, "cases"))
        }
    )
}

fn css(s: ClauseStatus) -> &'static str {
    match s {
        ClauseStatus::Pass => "pass",
        ClauseStatus::Broken => "broken",
        ClauseStatus::CitedByFailing => "cited",
        ClauseStatus::NotMet => "notmet",
        ClauseStatus::NotApplicable => "na",
        ClauseStatus::NotRun => "nr",
    }
}

/// The anchor of a failing case in a run's list (a case may fail on
/// several backends).
pub(super) fn case_anchor(run: usize, case: &str) -> String {
    format!("r{run}-{}", anchor(case))
}

/// A list, folded behind its count when long.
fn fold(items: Vec<String>, noun: &str) -> String {
    if items.len() <= SHOWN {
        return items.join(" ");
    }
    format!(
        "<details class=fold><summary>{} {noun}</summary>{}</details>",
        thousands(items.len()),
        items.join(" ")
    )
}

/// A coverage bar: covered in green, pending in amber, the rest grey.
fn html_bar(t: &Tally) -> String {
    if t.testable == 0 {
        return "<span class=na>nothing testable</span>".into();
    }
    let pending = 100.0 * t.pending as f64 / t.testable as f64;
    format!(
        "<span class=bar title='{:.0}% covered, {pending:.0}% pending'><span class=c style='width:{:.1}%'></span><span class=p style='width:{pending:.1}%'></span></span> {:.0}%",
        t.percent(),
        t.percent(),
        t.percent()
    )
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\'', "&#39;")
        .replace('"', "&quot;")
}

const HTML_HEAD: &str = r#"<!doctype html><html lang=en><head><meta charset=utf-8><meta name=viewport content="width=device-width"><title>SER spec traceability</title><style>
body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1360px;color:#1b1f24;padding:0 16px}
h1{margin:0 0 4px}h2{margin-top:32px;border-bottom:1px solid #d0d7de}h3{margin-top:20px}nav a{margin-right:12px}
.lead{font-size:16px;color:#444}.muted{color:#57606a;font-weight:normal;font-size:13px}
table{border-collapse:collapse;width:100%;margin:8px 0 16px}td,th{border:1px solid #d0d7de;padding:3px 6px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f6f8fa}td.n{text-align:right}col.n{width:80px}col.barcol{width:300px}tr.all td{font-weight:600;background:#f6f8fa}
table.cov,table.clauses{table-layout:fixed}
col.id{width:25%}col.kind{width:9%}col.q{width:46%}col.cases{width:20%}
.bar{display:inline-block;width:200px;height:12px;background:#eaeef2;border-radius:6px;overflow:hidden;vertical-align:middle}
.na{color:#8c959f;font-size:12px}.bar span{display:inline-block;height:100%}.bar .c{background:#2da44e}.bar .p{background:#d4a72c}
.st{font-weight:600;padding:1px 5px;border-radius:4px;font-size:12px}.pass{background:#dafbe1;color:#116329}.broken{background:#ffebe9;color:#a40e26}
.cited{background:#fff8c5;color:#7d4e00}.notmet{background:#fff1e5;color:#953800}.st.na{background:#eaeef2;color:#57606a}.nr{color:#8c959f}
table.totals td:first-child{white-space:nowrap}table.totals td{font-size:13px}
table.matrix{table-layout:auto}table.matrix td:first-child{font-family:ui-monospace,monospace;font-size:12px;min-width:300px}
td.q{font-size:13px;color:#333}td.cases,td.cases code{font-size:12px}.sec{font-size:11px;color:#57606a}.link{font-size:11px}
code{font-family:ui-monospace,monospace}details.fold summary,details summary{cursor:pointer}details.fold summary{color:#0969da}
details.doc{margin:6px 0}details.doc>summary{padding:4px 0}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f8fa;padding:6px;font-size:12px}.failcase{margin:8px 0}
</style></head><body>"#;
