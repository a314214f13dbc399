//! Expected shader table layouts: parsed from a case, compared with the
//! reference's layout calculator.

use super::{parse_number, Mismatch, ParseError};
use crate::case::LayoutExpectSpec;
use ser_lang::ast::ScalarType;
use ser_reference::sbt::layout::{Api, Layout, LayoutError};
use ser_reference::sbt::Table;

/// One word of a record's arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Word {
    Value(u32),
    /// Bytes the API leaves undefined.
    Padding,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordFacts {
    pub table: Table,
    pub index: u32,
    pub address: Option<u64>,
    pub size: Option<u32>,
    pub arguments: Option<Vec<Word>>,
}

/// What a layout case expects.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutExpect {
    Facts {
        api: Api,
        /// `(table, start, stride)`.
        tables: Vec<(Table, Option<u64>, Option<u32>)>,
        records: Vec<RecordFacts>,
    },
    Error {
        api: Api,
        code: String,
    },
}

impl LayoutExpect {
    pub fn api(&self) -> Api {
        match self {
            LayoutExpect::Facts { api, .. } | LayoutExpect::Error { api, .. } => *api,
        }
    }
}

pub const TABLES: &[(&str, Table)] = &[
    ("raygen", Table::RayGen),
    ("miss", Table::Miss),
    ("hit_groups", Table::HitGroup),
    ("callable", Table::Callable),
];

fn table(name: &str, path: &str) -> Result<Table, ParseError> {
    TABLES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, t)| *t)
        .ok_or_else(|| {
            (
                path.to_string(),
                format!("`{name}` is not a table; expected raygen, miss, hit_groups or callable"),
            )
        })
}

/// The table's name in case files.
pub fn table_name(t: Table) -> &'static str {
    TABLES.iter().find(|(_, x)| *x == t).map_or("?", |(n, _)| n)
}

pub const ERROR_CODES: &[&str] = &[
    "argument_not_allowed",
    "stride_exceeds_maximum",
    "stride_misaligned",
    "stride_too_small",
];

pub fn parse(spec: &LayoutExpectSpec, path: &str) -> Result<LayoutExpect, ParseError> {
    let mut tables = Vec::new();
    for (name, t) in &spec.tables {
        tables.push((
            table(name, &format!("{path}.tables.{name}"))?,
            t.start,
            t.stride,
        ));
    }
    let mut records = Vec::new();
    for (i, r) in spec.records.iter().enumerate() {
        let here = format!("{path}.records[{i}]");
        let arguments = match &r.arguments {
            None => None,
            Some(words) => Some(
                words
                    .iter()
                    .enumerate()
                    .map(|(k, w)| match w.as_str() {
                        Some("padding") => Ok(Word::Padding),
                        _ => parse_number(w, ScalarType::Uint, &format!("{here}.arguments[{k}]"))
                            .map(Word::Value),
                    })
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        records.push(RecordFacts {
            table: table(&r.table, &format!("{here}.table"))?,
            index: r.index,
            address: r.address,
            size: r.size,
            arguments,
        });
    }
    Ok(LayoutExpect::Facts {
        api: spec.api,
        tables,
        records,
    })
}

fn words(bytes: &[Option<u8>]) -> Vec<Word> {
    bytes
        .chunks(4)
        .map(|c| match c {
            [Some(a), Some(b), Some(c), Some(d)] => {
                Word::Value(u32::from_le_bytes([*a, *b, *c, *d]))
            }
            _ => Word::Padding,
        })
        .collect()
}

fn mismatch(what: String, index: usize, expected: String, actual: String) -> Mismatch {
    Mismatch {
        buffer: what,
        element: index,
        component: None,
        expected,
        actual,
    }
}

/// Compares a computed layout (or the error computing it) with the case.
pub fn check(expect: &LayoutExpect, actual: &Result<Layout, LayoutError>) -> Vec<Mismatch> {
    match (expect, actual) {
        (LayoutExpect::Error { code, .. }, Err(e)) if e.code() == code => Vec::new(),
        (LayoutExpect::Error { code, .. }, Err(e)) => vec![mismatch(
            "layout".into(),
            0,
            format!("error `{code}`"),
            format!("error `{}`: {e}", e.code()),
        )],
        (LayoutExpect::Error { code, .. }, Ok(_)) => vec![mismatch(
            "layout".into(),
            0,
            format!("error `{code}`"),
            "a valid layout".into(),
        )],
        (LayoutExpect::Facts { .. }, Err(e)) => vec![mismatch(
            "layout".into(),
            0,
            "a valid layout".into(),
            format!("error `{}`: {e}", e.code()),
        )],
        (
            LayoutExpect::Facts {
                tables, records, ..
            },
            Ok(l),
        ) => {
            let mut out = Vec::new();
            for (t, start, stride) in tables {
                let got = l.table(*t);
                if let Some(s) = start.filter(|s| *s != got.start) {
                    out.push(mismatch(
                        format!("layout {} start", table_name(*t)),
                        0,
                        s.to_string(),
                        got.start.to_string(),
                    ));
                }
                if let Some(s) = stride.filter(|s| *s != got.stride) {
                    out.push(mismatch(
                        format!("layout {} stride", table_name(*t)),
                        0,
                        s.to_string(),
                        got.stride.to_string(),
                    ));
                }
            }
            for r in records {
                let name = format!("layout {} record", table_name(r.table));
                let Some(rec) = l.table(r.table).records.get(r.index as usize) else {
                    out.push(mismatch(
                        name,
                        r.index as usize,
                        "a record".into(),
                        "no such record".into(),
                    ));
                    continue;
                };
                if let Some(a) = r
                    .address
                    .filter(|a| *a != l.record_address(r.table, r.index))
                {
                    out.push(mismatch(
                        format!("{name} address"),
                        r.index as usize,
                        a.to_string(),
                        l.record_address(r.table, r.index).to_string(),
                    ));
                }
                if let Some(s) = r.size.filter(|s| *s != rec.size) {
                    out.push(mismatch(
                        format!("{name} size"),
                        r.index as usize,
                        s.to_string(),
                        rec.size.to_string(),
                    ));
                }
                if let Some(w) = &r.arguments {
                    let got = words(&rec.arguments);
                    if *w != got {
                        out.push(mismatch(
                            format!("{name} arguments"),
                            r.index as usize,
                            format!("{w:?}"),
                            format!("{got:?}"),
                        ));
                    }
                }
            }
            out
        }
    }
}
