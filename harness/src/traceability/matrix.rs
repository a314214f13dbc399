//! The backends part of the HTML report, readable with hundreds of
//! troubled clauses and without a script: the clauses in trouble grouped by
//! document (worst first) and again by backend and status, each group
//! folded behind its counts; the whole matrix folded per document; failing
//! cases listed once per message. A small inline script adds filters (by
//! backend, status, document, text) and sorting by a column; without it
//! the grouping does the same work.

use super::text::{case_anchor, esc, wbr, wbr_tight};
use super::{anchor, ClauseResult, ClauseRow, ClauseStatus, Trace};
use crate::report::thousands;
use crate::verdict::Verdict;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Case links a matrix cell shows before `+N`.
const IN_CELL: usize = 1;
/// Case links a clause of a backend's list shows before `and N more`.
const IN_LIST: usize = 2;
/// A status group of one backend with more clauses than this starts folded.
const OPEN_UP_TO: usize = 40;
/// The statuses that put a clause in trouble, worst first.
const TROUBLE: [ClauseStatus; 3] = [
    ClauseStatus::Broken,
    ClauseStatus::CitedByFailing,
    ClauseStatus::NotMet,
];

impl Trace {
    pub(super) fn backends_html(&self, s: &mut String) {
        s.push_str("<h2 id=backends>Backends</h2>");
        if self.runs.is_empty() {
            s.push_str("<p>No backend results given (pass <code>--results FILE</code>, a <code>--report</code> of <code>ser-conformance</code>).</p>");
            return;
        }
        s.push_str(LEGEND);
        self.totals_html(s);
        s.push_str(FILTERS);
        self.matrix_by_document(s);
        self.trouble_by_backend(s);
        self.failing_cases(s);
    }

    fn totals_html(&self, s: &mut String) {
        s.push_str("<table class=totals><colgroup><col class=bn><col class=bl><col class=vd><col><col></colgroup><tr><th>#<th>backend<th>verdict<th>cases<th>clauses with cases</tr>");
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
                "<tr><td><a href='#run{i}'>B{}</a><td><b>{}</b><div class=muted>{}</div><td>{}<td>{}<td>{}</tr>",
                i + 1,
                esc(&run.short_label()),
                esc(&run.label),
                esc(run.verdict.as_deref().unwrap_or("(no summary record)")),
                cases.join(", "),
                clauses.join(" ")
            );
        }
        s.push_str("</table>");
    }

    /// A clause-by-backend table; failing cells link their cases.
    fn matrix(&self, s: &mut String, doc: usize, rows: &[&ClauseRow]) {
        let _ = write!(
            s,
            "<table class=mx data-doc=d{doc}><colgroup><col class=cid>{}</colgroup><thead><tr><th>clause",
            "<col>".repeat(self.runs.len())
        );
        for (i, r) in self.runs.iter().enumerate() {
            let _ = write!(
                s,
                "<th title='{}'>B{} <span class=muted>{}</span>",
                esc(&r.label),
                i + 1,
                esc(&r.short_label())
            );
        }
        s.push_str("</tr></thead><tbody>");
        for r in rows {
            let _ = write!(s, "<tr><td><a href='#{}'>{}</a>", anchor(&r.id), wbr(&r.id));
            for (i, c) in r.results.iter().enumerate() {
                s.push_str(&cell(i, c));
            }
            s.push_str("</tr>");
        }
        s.push_str("</tbody></table>");
    }

    /// Per backend, its clauses in trouble by status: the filter by
    /// backend and status that needs no script.
    fn trouble_by_backend(&self, s: &mut String) {
        s.push_str("<h3>By backend and status</h3>");
        for (i, run) in self.runs.iter().enumerate() {
            let by_status: Vec<(ClauseStatus, Vec<(&ClauseRow, &ClauseResult)>)> = TROUBLE
                .iter()
                .map(|st| {
                    let rows = self
                        .with_cases()
                        .filter_map(|r| r.results.get(i).map(|c| (r, c)))
                        .filter(|(_, c)| c.status == *st)
                        .collect::<Vec<_>>();
                    (*st, rows)
                })
                .collect();
            let counts: Vec<String> = by_status
                .iter()
                .filter(|(_, rows)| !rows.is_empty())
                .map(|(st, rows)| {
                    format!(
                        "<span class='st {}'>{} {}</span>",
                        css(*st),
                        thousands(rows.len()),
                        st.name()
                    )
                })
                .collect();
            let _ = write!(
                s,
                "<details class=group id=run{i}><summary><b>B{} {}</b> {}</summary>",
                i + 1,
                esc(&run.short_label()),
                if counts.is_empty() {
                    "nothing in trouble".to_string()
                } else {
                    counts.join(" ")
                }
            );
            for (st, rows) in by_status.iter().filter(|(_, rows)| !rows.is_empty()) {
                let _ = write!(
                    s,
                    "<details class=status{}><summary>{} {}</summary><ul class=bylist>",
                    if rows.len() <= OPEN_UP_TO {
                        " open"
                    } else {
                        ""
                    },
                    thousands(rows.len()),
                    st.name()
                );
                for (r, c) in rows {
                    let mut cases: Vec<String> = c
                        .cases
                        .iter()
                        .take(IN_LIST)
                        .map(|case| {
                            format!("<a href='#{}'>{}</a>", case_anchor(i, case), esc(case))
                        })
                        .collect();
                    if c.cases.len() > IN_LIST {
                        cases.push(format!("+{}", thousands(c.cases.len() - IN_LIST)));
                    }
                    let _ = write!(
                        s,
                        "<li><a href='#{}'>{}</a>: {}</li>",
                        anchor(&r.id),
                        wbr(&r.id),
                        cases.join(" ")
                    );
                }
                s.push_str("</ul></details>");
            }
            s.push_str("</details>");
        }
    }

    /// Every clause with cases on every backend, one folded matrix per
    /// document, the clauses in trouble first (worst first) and their
    /// failing cells linked to the cases behind them: the filter by
    /// document, and the sort by status, that need no script.
    fn matrix_by_document(&self, s: &mut String) {
        let all: Vec<&ClauseRow> = self.with_cases().collect();
        let troubled = self.troubled().count();
        let _ = write!(
            s,
            "<h3>Every clause with cases, by document and backend ({})</h3><p class=muted>{} of them broken, cited by a failing case or not met on some backend: listed first in each document, worst first.</p>",
            thousands(all.len()),
            thousands(troubled)
        );
        for (d, doc) in self.documents.iter().enumerate() {
            let mut rows: Vec<&ClauseRow> = all
                .iter()
                .copied()
                .filter(|r| r.document == doc.document)
                .collect();
            if rows.is_empty() {
                continue;
            }
            rows.sort_by_key(|r| (worst(r), r.id.as_str()));
            let counts: Vec<String> = TROUBLE
                .iter()
                .map(|st| {
                    let n = rows
                        .iter()
                        .filter(|r| r.results.iter().any(|c| c.status == *st))
                        .count();
                    (st, n)
                })
                .filter(|(_, n)| *n > 0)
                .map(|(st, n)| format!("<span class='st {}'>{n} {}</span>", css(*st), st.name()))
                .collect();
            let _ = write!(
                s,
                "<details class=group data-doc=d{d}><summary><b>{}</b> {} clauses{}{}</summary>",
                esc(&doc.document),
                thousands(rows.len()),
                if counts.is_empty() { "" } else { ": " },
                counts.join(" ")
            );
            self.matrix(s, d, &rows);
            s.push_str("</details>");
        }
    }

    /// The cases that count against each backend, or miss a
    /// recommendation, each with its message; a message shared by several
    /// cases is printed once, at the first.
    fn failing_cases(&self, s: &mut String) {
        s.push_str("<h3>Failing cases, and recommendations not met</h3>");
        for (i, run) in self.runs.iter().enumerate() {
            let listed: Vec<_> = run.listed().collect();
            let failing = listed.iter().filter(|(_, r)| r.failing()).count();
            let _ = write!(
                s,
                "<details class=failing><summary>B{} {}: {} case(s) counting against it, {}</summary>",
                i + 1,
                esc(&run.short_label()),
                failing,
                Verdict::Warning.counted(listed.len() - failing)
            );
            let mut first: BTreeMap<&str, &str> = BTreeMap::new();
            for (case, r) in listed {
                let _ = write!(
                    s,
                    "<div class=failcase id='{}'><b>{}</b> ({}){}",
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
                    }
                );
                match first.get(r.message.as_str()) {
                    Some(earlier) => {
                        let _ = write!(
                            s,
                            ": the message of <a href='#{}'>{}</a></div>",
                            case_anchor(i, earlier),
                            esc(earlier)
                        );
                    }
                    None => {
                        first.insert(&r.message, case);
                        let _ = write!(s, "<pre>{}</pre></div>", esc(&r.message));
                    }
                }
            }
            s.push_str("</details>");
        }
    }
}

/// A clause's worst status on any backend, for sorting: broken first.
fn worst(r: &ClauseRow) -> usize {
    r.results
        .iter()
        .map(|c| rank(c.status))
        .min()
        .unwrap_or(usize::MAX)
}

fn rank(s: ClauseStatus) -> usize {
    match s {
        ClauseStatus::Broken => 0,
        ClauseStatus::CitedByFailing => 1,
        ClauseStatus::NotMet => 2,
        ClauseStatus::Pass => 3,
        ClauseStatus::NotApplicable => 4,
        ClauseStatus::NotRun => 5,
    }
}

/// A matrix cell: the status, and the first case behind a failing one,
/// named by its last part (the link leads to the whole id and its
/// message).
fn cell(run: usize, c: &ClauseResult) -> String {
    let label = match c.status {
        ClauseStatus::Pass => "pass",
        ClauseStatus::Broken => "broken",
        ClauseStatus::CitedByFailing => "cited",
        ClauseStatus::NotMet => "not met",
        ClauseStatus::NotApplicable => "n/a",
        ClauseStatus::NotRun => "not run",
    };
    if c.cases.is_empty() {
        return format!("<td class={}>{label}", css(c.status));
    }
    let shown: Vec<String> = c
        .cases
        .iter()
        .take(IN_CELL)
        .map(|case| {
            format!(
                "<a href='#{}'>{}</a>",
                case_anchor(run, case),
                wbr_tight(case.rsplit('/').next().unwrap_or(case))
            )
        })
        .collect();
    let more = c.cases.len().saturating_sub(IN_CELL);
    format!(
        "<td class='st {}'>{label}: {}{}",
        css(c.status),
        shown.join(", "),
        if more > 0 {
            format!(" <a href='#run{run}'>+{}</a>", thousands(more))
        } else {
            String::new()
        }
    )
}

pub(super) fn css(s: ClauseStatus) -> &'static str {
    match s {
        ClauseStatus::Pass => "pass",
        ClauseStatus::Broken => "broken",
        ClauseStatus::CitedByFailing => "cited",
        ClauseStatus::NotMet => "notmet",
        ClauseStatus::NotApplicable => "na",
        ClauseStatus::NotRun => "nr",
    }
}

const LEGEND: &str = "<p>A clause is <span class='st broken'>broken</span> where a failing case ties a mismatching element to it (a case citing one clause ties all to it); the other clauses of a failing case are <span class='st cited'>cited by a failing case</span>. A <code>should</code> clause is <span class='st notmet'>not met</span> where a case misses it and nothing else: a recommendation, not counted against conformance. <span class='st pass'>pass</span>: every case of the clause that ran passed; <span class='st na'>n/a</span>: its cases are outside the backend's claim; <span class='st nr'>not run</span>: no case of the clause was in the run. Columns B1, B2, ... are the backends of the table below.</p>";

/// The filter bar: hidden until the script shows it.
const FILTERS: &str = "<div id=filters hidden><b>Filter the matrices:</b> <label>backend <select id=fb><option value=''>any</option></select></label> <label>status <select id=fs><option value=''>any</option><option value=broken>broken</option><option value=cited>cited by a failing case</option><option value=notmet>not met</option><option value=pass>pass</option><option value=na>not applicable</option><option value=nr>not run</option></select></label> <label>document <select id=fd><option value=''>any</option></select></label> <label>clause <input id=ft size=24 placeholder='part of an id'></label> <span class=muted>Click a column header to sort by it.</span></div>";
