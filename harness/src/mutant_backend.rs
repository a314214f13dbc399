//! A mutant: the reference with one rule broken
//! ([`ser_reference::mutation`]), run as a backend under test. It is judged
//! like any backend: on the buffers it writes, against the case's
//! expectations, with no legal outcomes of its own.
//!
//! Its buffers are those of its first explored run, except that every
//! word its own exploration finds unspecified holds [`POISON`], as a real
//! implementation leaves whatever it likes where the spec allows anything.
//! A mutant that loses a guarantee (a payload field that no longer comes
//! back, a write that is no longer published) is then seen to, rather than
//! happening to write the value the guarantee would have given.

use crate::backend::{Backend, BackendError, Execution, Output};
use crate::load::Case;
use crate::reference_backend::ReferenceBackend;
use ser_reference::mutation::{self, Mutation};
use ser_reference::{Legal, Outcome, Profile};

/// What a mutant writes in words its run leaves unspecified.
pub const POISON: u32 = 0xDEAD_BEEF;

pub struct MutantBackend {
    reference: ReferenceBackend,
    mutation: Mutation,
    name: String,
}

impl MutantBackend {
    pub fn new(mutation: Mutation, profile: Profile) -> Self {
        MutantBackend {
            reference: ReferenceBackend::new(profile),
            mutation,
            name: format!("mutant:{}", mutation.name()),
        }
    }

    /// The mutant `--backend mutant:NAME` names.
    pub fn by_name(name: &str, profile: Profile) -> Result<Self, String> {
        Mutation::from_name(name)
            .map(|m| Self::new(m, profile))
            .ok_or_else(|| {
                let known: Vec<&str> = Mutation::ALL.iter().map(|m| m.name()).collect();
                format!(
                    "unknown mutant `{name}`; the mutants are: {}",
                    known.join(", ")
                )
            })
    }

    pub fn mutation(&self) -> Mutation {
        self.mutation
    }
}

impl Backend for MutantBackend {
    fn name(&self) -> &str {
        &self.name
    }

    fn profile(&self) -> Profile {
        self.reference.profile()
    }

    fn capabilities(&self) -> Vec<String> {
        self.reference.capabilities()
    }

    fn run(&self, case: &Case) -> Result<Execution, BackendError> {
        let mut exec = mutation::with(Some(self.mutation), || self.reference.run(case))?;
        if let (Output::Buffers(out), Some(Outcome::Completed(legal))) =
            (&mut exec.output, exec.legal.take().map(|l| l.outcome))
        {
            for (name, words) in out.iter_mut() {
                let Some(l) = legal.get(name) else { continue };
                for (w, l) in words.iter_mut().zip(&l.words) {
                    if let Legal::Unspecified(_) = l {
                        *w = POISON;
                    }
                }
            }
        }
        Ok(exec)
    }
}
