//! Tokens of the HLSL subset.

use crate::error::ParseError;
use crate::span::Span;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Ident(String),
    /// Integer literal: value, `u` suffix, written in hex.
    Int(u64, bool, bool),
    /// Float literal: value, `f` suffix.
    Float(f64, bool),
    Str(String),
    /// Punctuation and operators, longest match first.
    Punct(&'static str),
    Eof,
}

impl Tok {
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

#[derive(Clone, Debug)]
pub struct Token {
    pub tok: Tok,
    pub span: Span,
}

const PUNCTS: &[&str] = &[
    "<<=", ">>=", "::", "++", "--", "&&", "||", "==", "!=", "<=", ">=", "<<", ">>", "+=", "-=",
    "*=", "/=", "%=", "&=", "|=", "^=", "(", ")", "{", "}", "[", "]", ";", ",", ".", ":", "?", "+",
    "-", "*", "/", "%", "&", "|", "^", "!", "~", "<", ">", "=",
];

/// Splits shader text into tokens; comments and whitespace are dropped.
pub fn tokenize(src: &str) -> Result<Vec<Token>, ParseError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let advance = |i: &mut usize, line: &mut u32, col: &mut u32, n: usize| {
        for _ in 0..n {
            if chars[*i] == '\n' {
                *line += 1;
                *col = 1;
            } else {
                *col += 1;
            }
            *i += 1;
        }
    };
    while i < chars.len() {
        let c = chars[i];
        let span = Span::new(line, col);
        if c.is_whitespace() {
            advance(&mut i, &mut line, &mut col, 1);
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                advance(&mut i, &mut line, &mut col, 1);
            }
        } else if c == '/' && chars.get(i + 1) == Some(&'*') {
            advance(&mut i, &mut line, &mut col, 2);
            loop {
                if i + 1 >= chars.len() {
                    return Err(ParseError::new(span, "unterminated `/*` comment"));
                }
                if chars[i] == '*' && chars[i + 1] == '/' {
                    advance(&mut i, &mut line, &mut col, 2);
                    break;
                }
                advance(&mut i, &mut line, &mut col, 1);
            }
        } else if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                advance(&mut i, &mut line, &mut col, 1);
            }
            out.push(Token {
                tok: Tok::Ident(chars[start..i].iter().collect()),
                span,
            });
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let (tok, len) = number(&chars[i..]).map_err(|m| ParseError::new(span, m))?;
            advance(&mut i, &mut line, &mut col, len);
            out.push(Token { tok, span });
        } else if c == '"' {
            let start = i + 1;
            let mut end = start;
            while end < chars.len() && chars[end] != '"' && chars[end] != '\n' {
                end += 1;
            }
            if end >= chars.len() || chars[end] != '"' {
                return Err(ParseError::new(span, "unterminated string"));
            }
            let s: String = chars[start..end].iter().collect();
            let n = end + 1 - i;
            advance(&mut i, &mut line, &mut col, n);
            out.push(Token {
                tok: Tok::Str(s),
                span,
            });
        } else {
            let rest = &chars[i..];
            let starts =
                |p: &str| p.len() <= rest.len() && p.chars().zip(rest).all(|(a, b)| a == *b);
            // Only punctuation whose first character is `c` can match (all
            // of it is ASCII).
            let first = |p: &str| char::from(p.as_bytes()[0]) == c;
            let Some(p) = PUNCTS.iter().find(|p| first(p) && starts(p)) else {
                return Err(ParseError::new(span, format!("unexpected character `{c}`")));
            };
            advance(&mut i, &mut line, &mut col, p.len());
            out.push(Token {
                tok: Tok::Punct(p),
                span,
            });
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        span: Span::new(line, col),
    });
    Ok(out)
}

/// Lexes a numeric literal at the start of `s`; returns the token and the
/// number of characters it used.
fn number(s: &[char]) -> Result<(Tok, usize), String> {
    let text = |a: usize, b: usize| -> String { s[a..b].iter().collect() };
    if s[0] == '0' && s.get(1).is_some_and(|c| *c == 'x' || *c == 'X') {
        let mut n = 2;
        while n < s.len() && s[n].is_ascii_hexdigit() {
            n += 1;
        }
        if n == 2 {
            return Err("hexadecimal literal without digits".into());
        }
        let value = u64::from_str_radix(&text(2, n), 16).map_err(|e| e.to_string())?;
        let unsigned = s.get(n).is_some_and(|c| *c == 'u' || *c == 'U');
        return Ok((Tok::Int(value, unsigned, true), n + usize::from(unsigned)));
    }
    let mut n = 0;
    while n < s.len() && s[n].is_ascii_digit() {
        n += 1;
    }
    let mut is_float = false;
    if n < s.len() && s[n] == '.' {
        is_float = true;
        n += 1;
        while n < s.len() && s[n].is_ascii_digit() {
            n += 1;
        }
    }
    if n < s.len() && (s[n] == 'e' || s[n] == 'E') {
        let mut m = n + 1;
        if m < s.len() && (s[m] == '+' || s[m] == '-') {
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
        Some('f') | Some('F') => {
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
        Some('u') | Some('U') => {
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
