//! The traceability report as one self-contained HTML page, laid out to
//! read at 1400 px: fixed column shares, ids that break only after a dot
//! or a long run, long case lists folded with their counts, and the long
//! tables folded per document. The backends part is in
//! [`super::matrix`], the findings in [`super::findings`].

use super::page::{HEAD, SCRIPT};
use super::text::{esc, wbr};
use super::{anchor, ClauseRow, Tally, Trace};
use crate::report::thousands;
use std::collections::BTreeMap;
use std::fmt::Write;

/// Lists longer than this fold behind their count.
const SHOWN: usize = 3;

impl Trace {
    pub fn to_html(&self) -> String {
        let mut s = String::from(HEAD);
        let _ = write!(
            s,
            "<h1>SER spec traceability</h1><p class=lead>{}</p>",
            esc(&self.headline())
        );
        s.push_str("<nav><a href=#coverage>Coverage</a> <a href=#findings>Findings for spec editors</a> <a href=#backends>Backends</a> <a href=#load>Load errors</a> <a href=#uncovered>Uncovered</a> <a href=#clauses>All clauses</a></nav>");
        self.coverage_html(&mut s);
        self.findings_html(&mut s);
        self.backends_html(&mut s);
        self.load_errors_html(&mut s);
        self.uncovered_html(&mut s);
        self.clauses_html(&mut s);
        s.push_str(SCRIPT);
        s.push_str("</body></html>\n");
        s
    }

    /// One line per document, then each document's sections, folded.
    fn coverage_html(&self, s: &mut String) {
        s.push_str("<h2 id=coverage>Coverage by document and section</h2><table class=cov><colgroup><col><col class=n><col class=n><col class=n><col class=n><col class=tw><col class=barcol></colgroup><tr><th>document<th>clauses<th>testable<th>covered<th>pending<th>twins covered through their primary<th>coverage</tr>");
        for d in &self.documents {
            let _ = write!(
                s,
                "<tr><td><a href='#cov-{}'>{}</a><td class=n>{}<td class=n>{}<td class=n>{}<td class=n>{}<td class=n>{}<td>{}</tr>",
                anchor(&d.document),
                esc(&d.document),
                thousands(d.tally.clauses),
                thousands(d.tally.testable),
                thousands(d.tally.covered),
                thousands(d.tally.pending),
                if d.tally.twins == 0 {
                    String::new()
                } else {
                    format!(
                        "{} of {}",
                        thousands(d.tally.twins_covered),
                        thousands(d.tally.twins)
                    )
                },
                html_bar(&d.tally, &d.twins_of)
            );
        }
        s.push_str("</table><p class=muted>A twin states a primary clause's rule in its words (the earlier revision, the final proposal) and is covered through it. Each document's sections:</p>");
        for d in &self.documents {
            let twins = if d.tally.twins > 0 {
                format!(
                    ", and {} of {} twins covered through {}",
                    thousands(d.tally.twins_covered),
                    thousands(d.tally.twins),
                    esc(&d.twins_of.join(", "))
                )
            } else {
                String::new()
            };
            let _ = write!(
                s,
                "<details class=doc id='cov-{}'><summary><b>{}</b> <span class=muted>{} clauses, {} testable, {} covered, {} pending{twins}</span></summary><table class=cov><colgroup><col><col class=n><col class=n><col class=n><col class=n><col class=barcol></colgroup><tr><th>section<th>clauses<th>testable<th>covered<th>pending<th>coverage</tr>",
                anchor(&d.document),
                esc(&d.document),
                thousands(d.tally.clauses),
                thousands(d.tally.testable),
                thousands(d.tally.covered),
                thousands(d.tally.pending)
            );
            for (name, t) in &d.sections {
                let _ = write!(
                    s,
                    "<tr><td>{}<td class=n>{}<td class=n>{}<td class=n>{}<td class=n>{}<td>{}</tr>",
                    esc(name),
                    t.clauses,
                    t.testable,
                    t.covered,
                    t.pending,
                    html_bar(t, &d.twins_of)
                );
            }
            s.push_str("</table></details>");
        }
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

    /// Each uncovered testable clause with its text (what the spec says)
    /// and what a case of it needs.
    fn uncovered_html(&self, s: &mut String) {
        let rows: Vec<&ClauseRow> = self.uncovered().collect();
        let _ = write!(
            s,
            "<h2 id=uncovered>Uncovered testable clauses ({})</h2><p class=muted>Per document, folded: what the text says, and what a case of it needs.</p>",
            rows.len()
        );
        for d in &self.documents {
            let here: Vec<&&ClauseRow> = rows.iter().filter(|r| r.document == d.document).collect();
            if here.is_empty() {
                continue;
            }
            let _ = write!(
                s,
                "<details class=doc><summary><b>{}</b> <span class=muted>{} uncovered</span></summary><ul class=unc>",
                esc(&d.document),
                thousands(here.len())
            );
            for r in here {
                let _ = write!(
                    s,
                    "<li id='u-{}'><a href='#{}'><code>{}</code></a> <span class=muted>{}; {}, {}</span><blockquote>{}</blockquote>{}</li>",
                    anchor(&r.id),
                    anchor(&r.id),
                    wbr(&r.id),
                    esc(&r.section),
                    esc(&r.strength),
                    esc(&r.testable),
                    esc(&r.quote),
                    match &r.pending {
                        Some(p) => format!("A case needs: {}", esc(p)),
                        None => "<b>no case and no pending note</b>".into(),
                    }
                );
            }
            s.push_str("</ul></details>");
        }
    }

    fn clauses_html(&self, s: &mut String) {
        s.push_str("<h2 id=clauses>Every clause and its cases</h2><p class=muted>One table per document, folded; a link to a clause opens its table. A twin whose words are its primary clause's (up to code formatting) says so and names its primary under cases (via).</p>");
        let quotes: BTreeMap<&str, String> = self
            .clauses
            .iter()
            .map(|r| (r.id.as_str(), plain(&r.quote)))
            .collect();
        for d in &self.documents {
            let _ = write!(
                s,
                "<details class=doc><summary><b>{}</b> <span class=muted>{} clauses</span></summary><table class=clauses><colgroup><col class=id><col class=kind><col class=q><col class=cases></colgroup><tr><th>clause<th>strength, testable<th>quote<th>cases</tr>",
                esc(&d.document),
                thousands(d.tally.clauses)
            );
            let mut section = "";
            for r in self.clauses.iter().filter(|r| r.document == d.document) {
                // A section's heading once, above its clauses.
                if r.section != section {
                    section = &r.section;
                    let _ = write!(s, "<tr class=sec><td colspan=4>{}</tr>", esc(section));
                }
                let _ = write!(
                    s,
                    "<tr id='{}'><td class=cid>{}{}<td>{}<br>{}<td class=q>{}<td class=cases>{}</tr>",
                    anchor(&r.id),
                    wbr(&r.id),
                    links(r),
                    esc(&r.strength),
                    esc(&r.testable),
                    match &r.same_as {
                        Some(t) if quotes.get(t.as_str()) == Some(&plain(&r.quote)) => {
                            "<i>its primary's words (via)</i>".to_string()
                        }
                        _ => esc(&r.quote),
                    },
                    cases(r)
                );
            }
            s.push_str("</table></details>");
        }
    }
}

/// A clause's cases, or why it has none.
fn cases(r: &ClauseRow) -> String {
    if r.cases.is_empty() {
        return match (&r.same_as, &r.untestable, &r.pending) {
            (Some(t), ..) => format!("via <a href='#{}'>{}</a>", anchor(t), wbr(t)),
            (_, Some(u), _) => format!("<i>untestable: {}</i>", esc(u)),
            (_, _, Some(_)) => format!(
                "<i>none yet: <a href='#u-{}'>what a case needs</a></i>",
                anchor(&r.id)
            ),
            _ => "—".into(),
        };
    }
    // A twin's cases are its primary's, listed there.
    if let Some(t) = &r.same_as {
        let via = format!("via <a href='#{}'>{}</a>", anchor(t), wbr(t));
        return if r.cases.len() <= SHOWN {
            format!("{} {via}", plural(r.cases.len(), "case"))
        } else {
            folded(&plural(r.cases.len(), "case"), vec![via])
        };
    }
    fold(r.cases.iter().map(|c| wbr(c)).collect(), "cases")
}

/// A clause's counterparts: those stating the same rule on one line, each
/// that differs with how.
fn links(r: &ClauseRow) -> String {
    let link = |id: &str| format!("<a href='#{}'>{}</a>", anchor(id), wbr(id));
    let same: Vec<String> = r
        .counterparts
        .iter()
        .filter(|c| c.difference.is_none())
        .map(|c| link(&c.id))
        .collect();
    let mut out = String::new();
    if !same.is_empty() {
        let _ = write!(out, "<div class=link>same rule: {}</div>", same.join(", "));
    }
    for c in &r.counterparts {
        if let Some(d) = &c.difference {
            let _ = write!(
                out,
                "<div class=link>differs from {}: {}</div>",
                link(&c.id),
                esc(d)
            );
        }
    }
    out
}

/// A quote without code formatting or runs of whitespace, to compare a
/// twin's words with its primary's.
fn plain(quote: &str) -> String {
    crate::spec_map::normalize(&quote.replace('`', ""))
}

/// `1 case`, `12 cases`.
fn plural(n: usize, noun: &str) -> String {
    format!("{} {noun}{}", thousands(n), if n == 1 { "" } else { "s" })
}

/// A list of `noun`s, folded behind its count when long.
fn fold(items: Vec<String>, noun: &str) -> String {
    if items.len() <= SHOWN {
        return items.join(" ");
    }
    folded(&format!("{} {noun}", thousands(items.len())), items)
}

fn folded(summary: &str, items: Vec<String>) -> String {
    format!(
        "<details class=fold><summary>{summary}</summary>{}</details>",
        items.join(" ")
    )
}

/// A coverage bar: covered in green, pending in amber, the rest grey. A
/// part with nothing testable of its own but twins is covered through its
/// twins (light green).
fn html_bar(t: &Tally, twins_of: &[String]) -> String {
    if t.testable == 0 {
        if t.twins == 0 {
            return "<span class=na>nothing testable</span>".into();
        }
        let p = 100.0 * t.twins_covered as f64 / t.twins as f64;
        return format!(
            "<span class=bar title='{p:.0}% of its twins covered through {}'><span class=t style='width:{p:.1}%'></span></span> {p:.0}% <span class=na>through twins</span>",
            esc(&twins_of.join(", "))
        );
    }
    let pending = 100.0 * t.pending as f64 / t.testable as f64;
    format!(
        "<span class=bar title='{:.0}% covered, {pending:.0}% pending'><span class=c style='width:{:.1}%'></span><span class=p style='width:{pending:.1}%'></span></span> {:.0}%",
        t.percent(),
        t.percent(),
        t.percent()
    )
}
