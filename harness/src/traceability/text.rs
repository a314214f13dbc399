//! Small HTML text helpers of the report.

/// `s` escaped for HTML text and single- or double-quoted attributes.
pub fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('\'', "&#39;")
        .replace('"', "&quot;")
}

/// Runs of an id longer than this may break after an underscore.
const RUN: usize = 24;

/// A clause or case id, escaped, that a narrow column breaks only after a
/// dot or a slash, or after an underscore ending a long run: never inside
/// a word (`refere/nce`).
pub fn wbr(id: &str) -> String {
    breakable(id, RUN)
}

/// A name for the narrowest cells: it may break after any underscore.
pub fn wbr_tight(name: &str) -> String {
    breakable(name, 1)
}

fn breakable(id: &str, run_before_underscore: usize) -> String {
    let mut out = String::with_capacity(id.len() + 16);
    let mut run = 0;
    for c in esc(id).chars() {
        out.push(c);
        run += 1;
        if c == '.' || c == '/' || (c == '_' && run >= run_before_underscore) {
            out.push_str("<wbr>");
            run = 0;
        }
    }
    out
}

/// The anchor of a failing case in a run's list (a case may fail on
/// several backends).
pub fn case_anchor(run: usize, case: &str) -> String {
    format!("r{run}-{}", super::anchor(case))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_break_after_dots_and_long_runs_only() {
        assert_eq!(wbr("a.b"), "a.<wbr>b");
        assert_eq!(wbr("x/y"), "x/<wbr>y");
        assert_eq!(wbr("short_name"), "short_name");
        assert_eq!(
            wbr("hit_object_record_from_query"),
            "hit_object_record_from_query"
        );
        assert_eq!(wbr("<a>"), "&lt;a&gt;");
        assert_eq!(wbr_tight("my_func"), "my_<wbr>func");
    }
}
