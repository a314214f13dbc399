//! Output buffers: 32-bit words, with what each thread last wrote.
//!
//! Writes of different threads to the same word are not ordered: the word
//! ends holding one of the values the threads last wrote. A thread that reads
//! a word another thread wrote in the same dispatch gets an unspecified
//! value, since nothing in the case orders the two.

use crate::outcome::{Element, Fault, FaultCode, Legal, LegalBuffer, Observed};
use crate::program::Program;
use crate::value::{Scalar, Value};
use ser_lang::ast::{ScalarType, Type};
use std::collections::BTreeMap;

struct Word {
    current: Scalar,
    /// The last value each thread wrote, by thread.
    writers: Vec<(usize, Scalar)>,
}

struct Buffer {
    name: String,
    element: Element,
    words: Vec<Word>,
}

pub struct Memory {
    buffers: Vec<Buffer>,
}

/// The scalar type and component count of a buffer element type.
pub fn element_of(t: &Type) -> Element {
    match t {
        Type::Vector(s, n) => Element {
            scalar: *s,
            components: *n,
        },
        Type::Scalar(s) => Element {
            scalar: *s,
            components: 1,
        },
        _ => Element {
            scalar: ScalarType::Uint,
            components: 1,
        },
    }
}

impl Memory {
    pub fn new(program: &Program, init: &BTreeMap<String, Vec<u32>>) -> Result<Memory, Fault> {
        let mut buffers = Vec::new();
        for decl in &program.buffers {
            let element = element_of(&decl.element);
            let words = init.get(&decl.name).cloned().unwrap_or_default();
            if words.len() % element.components as usize != 0 {
                return Err(Fault::new(
                    FaultCode::Unsupported,
                    format!(
                        "buffer `{}`: {} words is not a whole number of {}-component elements",
                        decl.name,
                        words.len(),
                        element.components
                    ),
                ));
            }
            buffers.push(Buffer {
                name: decl.name.clone(),
                element,
                words: words
                    .into_iter()
                    .map(|bits| Word {
                        current: Scalar::new(element.scalar, bits),
                        writers: Vec::new(),
                    })
                    .collect(),
            });
        }
        Ok(Memory { buffers })
    }

    fn range(&self, buffer: usize, index: &Scalar) -> Result<(usize, usize), Fault> {
        let b = &self.buffers[buffer];
        if let Some(why) = &index.unspecified {
            return Err(Fault::new(
                FaultCode::UnspecifiedControl,
                format!(
                    "buffer `{}` indexed with an unspecified value ({why})",
                    b.name
                ),
            ));
        }
        let n = b.element.components as usize;
        let i = index.bits as usize;
        if index.ty == ScalarType::Int && (index.bits as i32) < 0 || i * n >= b.words.len() {
            return Err(Fault::new(
                FaultCode::Unsupported,
                format!(
                    "index {} is outside buffer `{}` of {} elements",
                    index.bits as i32,
                    b.name,
                    b.words.len() / n
                ),
            ));
        }
        Ok((i * n, n))
    }

    /// Loads element `index` of a buffer.
    pub fn load(&self, thread: usize, buffer: usize, index: &Scalar) -> Result<Value, Fault> {
        let (start, n) = self.range(buffer, index)?;
        let b = &self.buffers[buffer];
        let read = |w: &Word| -> Scalar {
            if w.writers.iter().any(|(t, _)| *t != thread) {
                Scalar::unspecified(b.element.scalar, "reads a word another thread of the dispatch wrote, with nothing ordering the two")
            } else {
                w.current.clone()
            }
        };
        let comps: Vec<Scalar> = b.words[start..start + n].iter().map(read).collect();
        Ok(if n == 1 {
            Value::Scalar(comps[0].clone())
        } else {
            Value::Vector(comps)
        })
    }

    /// Stores `value` (already of the element type) as element `index`.
    /// Stores `value` (already of the element type) as element `index`;
    /// returns the words written, as `(word index, value)`.
    pub fn store(
        &mut self,
        thread: usize,
        buffer: usize,
        index: &Scalar,
        value: &Value,
    ) -> Result<Vec<(usize, Scalar)>, Fault> {
        let (start, n) = self.range(buffer, index)?;
        let comps = value.components();
        if comps.len() != n {
            return Err(Fault::new(
                FaultCode::Unsupported,
                format!("storing {} components into elements of {n}", comps.len()),
            ));
        }
        let mut written = Vec::with_capacity(n);
        for (k, (w, s)) in self.buffers[buffer].words[start..start + n]
            .iter_mut()
            .zip(comps)
            .enumerate()
        {
            match w.writers.iter_mut().find(|(t, _)| *t == thread) {
                Some(entry) => entry.1 = s.clone(),
                None => w.writers.push((thread, s.clone())),
            }
            written.push((start + k, s.clone()));
            w.current = s;
        }
        Ok(written)
    }

    /// Marks a word a thread wrote as unspecified: how many times the write
    /// happened is up to the implementation, and it changes the result.
    pub fn taint(&mut self, thread: usize, buffer: usize, word: usize, reason: &str) {
        let w = &mut self.buffers[buffer].words[word];
        let mark = |s: &mut Scalar| s.unspecified = Some(reason.into());
        if let Some(entry) = w.writers.iter_mut().find(|(t, _)| *t == thread) {
            mark(&mut entry.1);
        }
        mark(&mut w.current);
    }

    /// The legal contents after one run.
    pub fn legal(&self, _program: &Program) -> BTreeMap<String, LegalBuffer> {
        self.buffers
            .iter()
            .map(|b| {
                let words = b.words.iter().map(word_legal).collect();
                let first = b.words.iter().map(|w| w.current.bits).collect();
                (
                    b.name.clone(),
                    LegalBuffer {
                        element: b.element,
                        words,
                        first,
                    },
                )
            })
            .collect()
    }

    /// Adds this run's contents to the legal contents of earlier runs.
    pub fn merge_into(&self, legal: &mut BTreeMap<String, LegalBuffer>) {
        for b in &self.buffers {
            let lb = legal.get_mut(&b.name).expect("same buffers every run");
            for (l, w) in lb.words.iter_mut().zip(&b.words) {
                match (word_legal(w), &mut *l) {
                    (_, Legal::Unspecified(_)) => {}
                    (u @ Legal::Unspecified(_), _) => *l = u,
                    (Legal::Values(vs), _) => vs.into_iter().for_each(|v| l.add(v)),
                }
            }
        }
    }
}

fn observed(s: &Scalar) -> Result<Observed, String> {
    match &s.unspecified {
        Some(why) => Err(why.to_string()),
        None => Ok(Observed {
            bits: s.bits,
            err: s.err,
        }),
    }
}

/// A word written by several threads holds one of their last writes.
fn word_legal(w: &Word) -> Legal {
    let candidates: Vec<&Scalar> = if w.writers.len() > 1 {
        w.writers.iter().map(|(_, s)| s).collect()
    } else {
        vec![&w.current]
    };
    let mut out = Legal::Values(Vec::new());
    for s in candidates {
        match observed(s) {
            Ok(o) => out.add(o),
            Err(why) => return Legal::Unspecified(why),
        }
    }
    out
}
