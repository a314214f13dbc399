//! Tokens of the HLSL subset.

use crate::error::ParseError;
use crate::span::Span;

/// A token, borrowing its name or string from the text: the parser copies
/// out only the names the tree keeps (not keywords or type names).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Tok<'s> {
    Ident(&'s str),
    /// Integer literal: value, `u` suffix, written in hex.
    Int(u64, bool, bool),
    /// Float literal: value, `f` suffix.
    Float(f64, bool),
    Str(&'s str),
    /// Punctuation and operators, longest match first.
    Punct(&'static str),
    Eof,
}

impl Tok<'_> {
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Int(v, ..) => format!("integer `{v}`"),
            Tok::Float(v, _) => format!("number `{v}`"),
            Tok::Str(s) => format!("string \"{s}\""),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Eof => "end of text".to_string(),
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub struct Token<'s> {
    pub tok: Tok<'s>,
    pub span: Span,
}

const PUNCTS: &[&str] = &[
    "<<=", ">>=", "::", "++", "--", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "(", ")", "{", "}", "[", "]", ";", ",", ".", ":", "?", "+",
    "-", "*", "/", "%", "&", "|", "^", "!", "~", "<", ">", "=",
];

/// Where the lexer is in the text: a byte offset, and the line and column
/// (in characters) it stands at.
struct Cursor<'s> {
    src: &'s str,
    i: usize,
    line: u32,
    col: u32,
}

impl Cursor<'_> {
    /// The byte `k` bytes ahead (0 past the end): everything the lexer
    /// tells apart by a byte is ASCII.
    fn byte(&self, k: usize) -> u8 {
        self.src.as_bytes().get(self.i + k).copied().unwrap_or(0)
    }

    fn char(&self) -> char {
        match self.byte(0) {
            b @ 0..0x80 => char::from(b),
            _ => self.src[self.i..].chars().next().expect("not at the end"),
        }
    }

    fn span(&self) -> Span {
        Span::new(self.line, self.col)
    }

    /// Moves past `n` bytes, which end on a character boundary.
    fn advance(&mut self, n: usize) {
        for &b in &self.src.as_bytes()[self.i..self.i + n] {
            if b == b'\n' {
                self.line += 1;
                self.col = 1;
            } else if b & 0xC0 != 0x80 {
                // Not a UTF-8 continuation byte: a character starts here.
                self.col += 1;
            }
        }
        self.i += n;
    }

    /// Moves past `n` bytes of ASCII other than a line break (a name, a
    /// number, punctuation): one column each.
    fn advance_ascii(&mut self, n: usize) {
        self.i += n;
        self.col += n as u32;
    }

    /// Moves past the bytes of a name.
    fn advance_name(&mut self) {
        let n = self.count_while(|b| b.is_ascii_alphanumeric() || b == b'_');
        self.advance_ascii(n);
    }

    /// Moves past the bytes for which `f` holds.
    fn advance_while(&mut self, f: impl Fn(u8) -> bool) {
        let n = self.count_while(f);
        self.advance(n);
    }

    /// How many bytes from here `f` holds for.
    fn count_while(&self, f: impl Fn(u8) -> bool) -> usize {
        let rest = &self.src.as_bytes()[self.i..];
        rest.iter().position(|&b| !f(b)).unwrap_or(rest.len())
    }

    /// Moves past the numeric literal here.
    fn number(&mut self, span: Span) -> Result<Tok<'static>, ParseError> {
        let (tok, len) =
            number(&self.src.as_bytes()[self.i..]).map_err(|m| ParseError::new(span, m))?;
        self.advance_ascii(len);
        Ok(tok)
    }
}

/// The punctuation `rest` starts with, longest match first.
fn punctuation(rest: &[u8]) -> Option<&'static str> {
    // `PUNCTS` by first byte (all of it is ASCII), each list longest first
    // as `PUNCTS` is: the lexer meets punctuation at almost every token.
    static BY_FIRST: std::sync::OnceLock<Vec<Vec<&'static str>>> = std::sync::OnceLock::new();
    let by_first = BY_FIRST.get_or_init(|| {
        let mut table = vec![Vec::new(); 128];
        for p in PUNCTS {
            table[usize::from(p.as_bytes()[0])].push(*p);
        }
        table
    });
    by_first
        .get(usize::from(rest[0]))?
        .iter()
        .find(|p| {
            rest.get(..p.len())
                .is_some_and(|r| crate::names::same(r, p.as_bytes()))
        })
        .copied()
}

/// Splits shader text into tokens; comments and whitespace are dropped.
/// Every byte the lexer tells apart is ASCII: a byte of 0x80 or more
/// starts a character that is whitespace or an error.
pub fn tokenize(src: &str) -> Result<Vec<Token<'_>>, ParseError> {
    // About one token for every three bytes of the generated programs.
    let mut out = Vec::with_capacity(src.len() / 2);
    let mut at = Cursor {
        src,
        i: 0,
        line: 1,
        col: 1,
    };
    while let Some(&b) = src.as_bytes().get(at.i) {
        let span = at.span();
        let tok = match b {
            // Whitespace (`char::is_whitespace`'s ASCII part).
            b' ' | b'\t' | b'\r' | 0x0B | 0x0C => {
                at.advance_ascii(1);
                continue;
            }
            b'\n' => {
                at.advance(1);
                continue;
            }
            b'/' if at.byte(1) == b'/' => {
                at.advance_while(|b| b != b'\n');
                continue;
            }
            b'/' if at.byte(1) == b'*' => {
                at.advance(2);
                let Some(len) = src[at.i..].find("*/") else {
                    return Err(ParseError::new(span, "unterminated `/*` comment"));
                };
                at.advance(len + 2);
                continue;
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let start = at.i;
                at.advance_name();
                Tok::Ident(&src[start..at.i])
            }
            b'0'..=b'9' => at.number(span)?,
            b'.' if at.byte(1).is_ascii_digit() => at.number(span)?,
            b'"' => {
                let rest = &src[at.i + 1..];
                let Some(len) = rest
                    .find(['"', '\n'])
                    .filter(|&n| rest.as_bytes()[n] == b'"')
                else {
                    return Err(ParseError::new(span, "unterminated string"));
                };
                at.advance(len + 2);
                Tok::Str(&rest[..len])
            }
            _ => {
                let c = at.char();
                if c.is_whitespace() {
                    at.advance(c.len_utf8());
                    continue;
                }
                let Some(p) = punctuation(&src.as_bytes()[at.i..]) else {
                    return Err(ParseError::new(span, format!("unexpected character `{c}`")));
                };
                at.advance_ascii(p.len());
                Tok::Punct(p)
            }
        };
        out.push(Token { tok, span });
    }
    out.push(Token {
        tok: Tok::Eof,
        span: at.span(),
    });
    Ok(out)
}

/// Lexes a numeric literal at the start of `s`; returns the token and the
/// number of characters it used.
fn number(s: &[u8]) -> Result<(Tok<'static>, usize), String> {
    // ASCII digits, so every slice below is text.
    let text = |a: usize, b: usize| -> &str { std::str::from_utf8(&s[a..b]).expect("ASCII") };
    if s[0] == b'0' && s.get(1).is_some_and(|c| *c == b'x' || *c == b'X') {
        let mut n = 2;
        while n < s.len() && s[n].is_ascii_hexdigit() {
            n += 1;
        }
        if n == 2 {
            return Err("hexadecimal literal without digits".into());
        }
        let value = u64::from_str_radix(text(2, n), 16).map_err(|e| e.to_string())?;
        let unsigned = s.get(n).is_some_and(|c| *c == b'u' || *c == b'U');
        return Ok((Tok::Int(value, unsigned, true), n + usize::from(unsigned)));
    }
    let mut n = 0;
    while n < s.len() && s[n].is_ascii_digit() {
        n += 1;
    }
    let mut is_float = false;
    if n < s.len() && s[n] == b'.' {
        is_float = true;
        n += 1;
        while n < s.len() && s[n].is_ascii_digit() {
            n += 1;
        }
    }
    if n < s.len() && (s[n] == b'e' || s[n] == b'E') {
        let mut m = n + 1;
        if m < s.len() && (s[m] == b'+' || s[m] == b'-') {
            m += 1;
        }
        if m < s.len() && s[m].is_ascii_digit() {
            is_float = true;
            while m < s.len() && s[m].is_ascii_digit() {
                m += 1;
            }
            n = m;
        }
    }
    let digits = text(0, n);
    match s.get(n) {
        Some(b'f') | Some(b'F') => {
            let v: f64 = digits
                .parse()
                .map_err(|_| format!("bad number `{digits}`"))?;
            Ok((Tok::Float(v, true), n + 1))
        }
        _ if is_float => {
            let v: f64 = digits
                .parse()
                .map_err(|_| format!("bad number `{digits}`"))?;
            Ok((Tok::Float(v, false), n))
        }
        Some(b'u') | Some(b'U') => {
            let v: u64 = digits
                .parse()
                .map_err(|_| format!("integer `{digits}` too large"))?;
            Ok((Tok::Int(v, true, false), n + 1))
        }
        _ => {
            let v: u64 = digits
                .parse()
                .map_err(|_| format!("integer `{digits}` too large"))?;
            Ok((Tok::Int(v, false, false), n))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(src: &str) -> Vec<(Tok<'_>, u32, u32)> {
        tokenize(src)
            .expect("lexes")
            .into_iter()
            .map(|t| (t.tok, t.span.line, t.span.column))
            .collect()
    }

    fn error(src: &str) -> (String, u32, u32) {
        let e = tokenize(src).expect_err("does not lex");
        (e.message, e.span.line, e.span.column)
    }

    #[test]
    fn tokens_with_their_lines_and_columns() {
        let got =
            toks("uint a_1 = 0x1Fu >>= 2.5f; // \u{e9}\n/* \u{e9}\n */ \"s \u{e9}\" .5 1e3 7u 1.");
        let want = vec![
            (Tok::Ident("uint"), 1, 1),
            (Tok::Ident("a_1"), 1, 6),
            (Tok::Punct("="), 1, 10),
            (Tok::Int(0x1F, true, true), 1, 12),
            (Tok::Punct(">>="), 1, 18),
            (Tok::Float(2.5, true), 1, 22),
            (Tok::Punct(";"), 1, 26),
            // A character of two bytes counts one column.
            (Tok::Str("s \u{e9}"), 3, 5),
            (Tok::Float(0.5, false), 3, 11),
            (Tok::Float(1000.0, false), 3, 14),
            (Tok::Int(7, true, false), 3, 18),
            (Tok::Float(1.0, false), 3, 21),
            (Tok::Eof, 3, 23),
        ];
        assert_eq!(got, want);
    }

    #[test]
    fn unexpected_text_is_reported_where_it_starts() {
        let unexpected = error("a\n  \u{e9}");
        assert_eq!(unexpected, ("unexpected character `\u{e9}`".into(), 2, 3));
        assert_eq!(error("x /* y *").1, 1);
        assert_eq!(error("x /* y *").2, 3);
        assert_eq!(error("x /* y *").0, "unterminated `/*` comment");
        assert_eq!(error("\"ab\ncd\"").0, "unterminated string");
        assert_eq!(error("0x").0, "hexadecimal literal without digits");
        assert_eq!(
            error("99999999999999999999").0,
            "integer `99999999999999999999` too large"
        );
    }
}
