//! Output buffers: 32-bit words, with what each thread wrote to them.
//!
//! Writes of different threads to the same word are not ordered: the word
//! ends holding one of the values the threads last wrote, or, when every
//! write to it was an atomic add, their sum. A thread that reads a word
//! another thread writes in the same dispatch gets an unspecified value,
//! since nothing in the case orders the two; whether another thread writes
//! it is known only once every thread has run, so the dispatch is run again
//! when a read turns out to have been too confident (see [`Writers`]). A
//! thread's own writes read back across a reorder point only under the
//! rules of [`coherence`].

pub mod coherence;

use crate::outcome::{Element, Fault, FaultCode, Legal, LegalBuffer, Observed};
use crate::profile::Profile;
use crate::program::Program;
use crate::value::{Scalar, Value};
use coherence::Scopes;
use ser_lang::ast::{ScalarType, Type};
use std::collections::BTreeMap;

/// The threads that write each word, over every run of a dispatch: by
/// buffer and word index, each word's threads in increasing order (none
/// for a word no thread writes). Every run adds to it word by word, so
/// it is indexed rather than searched.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Writers(Vec<Vec<Vec<usize>>>);

impl Writers {
    pub fn new() -> Writers {
        Writers::default()
    }

    /// The threads known to write a word.
    pub fn of(&self, buffer: usize, word: usize) -> &[usize] {
        self.0
            .get(buffer)
            .and_then(|words| words.get(word))
            .map_or(&[], Vec::as_slice)
    }

    /// Notes that `thread` writes a word.
    fn add(&mut self, buffer: usize, word: usize, thread: usize) {
        if self.0.len() <= buffer {
            self.0.resize_with(buffer + 1, Vec::new);
        }
        let words = &mut self.0[buffer];
        if words.len() <= word {
            words.resize_with(word + 1, Vec::new);
        }
        let threads = &mut words[word];
        if let Err(at) = threads.binary_search(&thread) {
            threads.insert(at, thread);
        }
    }
}

/// What one thread did to a word.
struct Write {
    thread: usize,
    /// The value the thread last left in the word.
    last: Scalar,
    /// For each of the thread's writes to the word not yet made coherent
    /// by a barrier of a recipe: the reorder points the thread had passed
    /// when it wrote. A write stays here once the thread passes a reorder
    /// point without such a barrier, even if it writes the word again.
    unpublished: Vec<u32>,
    /// Every write of the thread to the word was an atomic add.
    atomic: bool,
}

struct Word {
    current: Scalar,
    writes: Vec<Write>,
}

struct Buffer {
    name: String,
    element: Element,
    coherent: Scopes,
    words: Vec<Word>,
}

pub struct Memory {
    buffers: Vec<Buffer>,
    profile: Profile,
    /// Reorder points each thread has passed.
    epochs: Vec<u32>,
    /// Writers earlier runs found, which reads must already take into account.
    known: Writers,
    /// Reads that took the word as written by the reading thread alone:
    /// (thread, buffer, word).
    exact_reads: Vec<(usize, usize, usize)>,
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

const OTHER_THREAD: &str =
    "reads a word another thread of the dispatch writes, with nothing ordering the two";

impl Memory {
    pub fn new(
        program: &Program,
        init: &BTreeMap<String, Vec<u32>>,
        profile: Profile,
        threads: usize,
        known: Writers,
    ) -> Result<Memory, Fault> {
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
                coherent: Scopes::declared(&decl.storage, profile),
                words: words
                    .into_iter()
                    .map(|bits| Word {
                        current: Scalar::new(element.scalar, bits),
                        writes: Vec::new(),
                    })
                    .collect(),
            });
        }
        Ok(Memory {
            buffers,
            profile,
            epochs: vec![0; threads],
            known,
            exact_reads: Vec::new(),
        })
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

    /// Whether a word is written by no thread but `thread`, as far as this
    /// run and earlier runs know; an exact read is recorded for the check
    /// at the end of the dispatch.
    fn alone(&mut self, thread: usize, buffer: usize, word: usize) -> bool {
        let w = &self.buffers[buffer].words[word];
        let here = w.writes.iter().all(|x| x.thread == thread);
        let before = self.known.of(buffer, word).iter().all(|t| *t == thread);
        if here && before {
            self.exact_reads.push((thread, buffer, word));
        }
        here && before
    }

    /// A non-atomic read of one word.
    fn read_word(&mut self, thread: usize, buffer: usize, word: usize) -> Scalar {
        let scalar = self.buffers[buffer].element.scalar;
        if !self.alone(thread, buffer, word) {
            return Scalar::unspecified(scalar, OTHER_THREAD);
        }
        let w = &self.buffers[buffer].words[word];
        let stale = w
            .writes
            .iter()
            .any(|x| x.unpublished.iter().any(|e| *e < self.epochs[thread]));
        if stale {
            return Scalar::unspecified(scalar, coherence::unpublished_reason(self.profile));
        }
        w.current.clone()
    }

    /// Loads element `index` of a buffer.
    pub fn load(&mut self, thread: usize, buffer: usize, index: &Scalar) -> Result<Value, Fault> {
        let (start, n) = self.range(buffer, index)?;
        let comps: Vec<Scalar> = (start..start + n)
            .map(|w| self.read_word(thread, buffer, w))
            .collect();
        Ok(if n == 1 {
            Value::Scalar(comps[0].clone())
        } else {
            Value::Vector(comps)
        })
    }

    /// Records that `thread` left `value` in a word.
    fn record(&mut self, thread: usize, buffer: usize, word: usize, value: &Scalar, atomic: bool) {
        let epoch = self.epochs[thread];
        let w = &mut self.buffers[buffer].words[word];
        match w.writes.iter_mut().find(|x| x.thread == thread) {
            Some(x) => {
                x.last = value.clone();
                x.atomic &= atomic;
                if !x.unpublished.contains(&epoch) {
                    x.unpublished.push(epoch);
                }
            }
            None => w.writes.push(Write {
                thread,
                last: value.clone(),
                unpublished: vec![epoch],
                atomic,
            }),
        }
        w.current = value.clone();
    }

    /// Stores the scalars of an element (already of the element type) as
    /// element `index`; returns the first word written.
    pub fn store(
        &mut self,
        thread: usize,
        buffer: usize,
        index: &Scalar,
        comps: &[Scalar],
    ) -> Result<usize, Fault> {
        let (start, n) = self.range(buffer, index)?;
        if comps.len() != n {
            return Err(Fault::new(
                FaultCode::Unsupported,
                format!("storing {} components into elements of {n}", comps.len()),
            ));
        }
        for (k, s) in comps.iter().enumerate() {
            self.record(thread, buffer, start + k, s, false);
        }
        Ok(start)
    }

    /// `InterlockedAdd` on a one-component element: returns the value
    /// before the add, exact only when no other thread writes the word
    /// (their atomics may come before or after), and the word written.
    pub fn atomic_add(
        &mut self,
        thread: usize,
        buffer: usize,
        index: &Scalar,
        delta: &Scalar,
    ) -> Result<(Scalar, (usize, Scalar)), Fault> {
        let (word, n) = self.range(buffer, index)?;
        let scalar = self.buffers[buffer].element.scalar;
        if n != 1 || !matches!(scalar, ScalarType::Uint | ScalarType::Int) {
            return Err(Fault::new(
                FaultCode::Unsupported,
                "InterlockedAdd on an element that is not one int or uint",
            ));
        }
        let alone = self.alone(thread, buffer, word);
        let current = self.buffers[buffer].words[word].current.clone();
        let original = if alone {
            current.clone()
        } else {
            Scalar::unspecified(scalar, "the value before an atomic add on a word other threads also write: their writes may come before or after")
        };
        let sum = Scalar::new(scalar, current.bits.wrapping_add(delta.bits))
            .taint_from(&[&current, delta]);
        self.record(thread, buffer, word, &sum, true);
        Ok((original, (word, sum)))
    }

    /// A thread passes a reorder point.
    pub fn reorder_point(&mut self, thread: usize) {
        self.epochs[thread] += 1;
    }

    /// A barrier: the thread's writes since its last reorder point to
    /// buffers coherent in one of the scopes it reaches now cross reorder
    /// points.
    pub fn barrier(&mut self, thread: usize, scopes: Scopes) {
        let epoch = self.epochs[thread];
        for b in &mut self.buffers {
            if !b.coherent.meets(scopes) {
                continue;
            }
            for w in &mut b.words {
                for x in &mut w.writes {
                    if x.thread == thread {
                        x.unpublished.retain(|e| *e != epoch);
                    }
                }
            }
        }
    }

    /// Marks a word a thread wrote as unspecified: how many times the write
    /// happened is up to the implementation, and it changes the result.
    pub fn taint(&mut self, thread: usize, buffer: usize, word: usize, reason: &str) {
        let w = &mut self.buffers[buffer].words[word];
        let mark = |s: &mut Scalar| s.unspecified = Some(reason.into());
        if let Some(x) = w.writes.iter_mut().find(|x| x.thread == thread) {
            mark(&mut x.last);
        }
        mark(&mut w.current);
    }

    /// Adds the writers of this run to `all`.
    pub fn writers_into(&self, all: &mut Writers) {
        for (b, buffer) in self.buffers.iter().enumerate() {
            for (i, w) in buffer.words.iter().enumerate() {
                for x in &w.writes {
                    all.add(b, i, x.thread);
                }
            }
        }
    }

    /// Whether a read of this run took a word as its reader's alone that
    /// another thread writes in some run.
    pub fn read_too_early(&self, all: &Writers) -> bool {
        self.exact_reads
            .iter()
            .any(|(t, b, w)| all.of(*b, *w).iter().any(|x| x != t))
    }

    /// The legal contents after one run.
    pub fn legal(&self) -> BTreeMap<String, LegalBuffer> {
        self.buffers
            .iter()
            .map(|b| {
                let words = b
                    .words
                    .iter()
                    .map(|w| {
                        let mut l = Legal::Values(Vec::new());
                        add_word(&mut l, w);
                        l
                    })
                    .collect();
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
                add_word(l, w);
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

/// Adds what a word may hold after this run to `legal`, the contents of
/// earlier runs (none, for the first). A word written by several threads
/// holds one of their last writes; when every write was an atomic add, the
/// sum of them all, whatever the order.
fn add_word(legal: &mut Legal, w: &Word) {
    if let Legal::Unspecified(_) = legal {
        return;
    }
    let several = w.writes.len() > 1;
    if several && w.writes.iter().any(|x| x.atomic) && !w.writes.iter().all(|x| x.atomic) {
        *legal = Legal::Unspecified(
            "stores and atomics of different threads to one word, in no defined order".into(),
        );
        return;
    }
    let (mut lasts, mut current) = (
        w.writes.iter().map(|x| &x.last),
        std::iter::once(&w.current),
    );
    let candidates: &mut dyn Iterator<Item = &Scalar> = if several && !w.writes[0].atomic {
        &mut lasts
    } else {
        &mut current
    };
    for s in candidates {
        match observed(s) {
            Ok(o) => legal.add(o),
            Err(why) => {
                *legal = Legal::Unspecified(why);
                return;
            }
        }
    }
}
