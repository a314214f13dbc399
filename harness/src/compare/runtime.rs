//! A case that runs its shaders: the backend's buffers against the
//! expected words (and the expected words against the reference's legal
//! outcomes), or the undefined behaviour it expects.

use super::Found;
use crate::backend::{Execution, Output};
use crate::claim::{Claim, Phase};
use crate::expect::{check_legal, check_words};
use crate::load::{Case, Expected};
use ser_reference::Outcome;

pub(super) fn judge(case: &Case, exec: &Execution, claim: &Claim) -> Found {
    match (&case.expect, &exec.output) {
        (Expected::Diagnostics(_) | Expected::Layout(_), _) => {
            unreachable!("only cases that run come here")
        }
        (Expected::Buffers(expected), Output::Buffers(actual)) => {
            let mut found = Found::default();
            for (name, exp) in expected {
                if let Some(words) = actual.get(name) {
                    found.mismatches.extend(check_words(name, exp, words));
                }
            }
            if let Some(Outcome::Completed(legal)) = exec.legal.as_ref().map(|l| &l.outcome) {
                for (name, exp) in expected {
                    if let Some(l) = legal.get(name) {
                        found.disagreements.extend(check_legal(name, exp, l));
                    }
                }
            }
            found
        }
        (Expected::Undefined(code), Output::Undefined { code: got, .. }) if code.name() == got => {
            Found::default()
        }
        (Expected::Undefined(code), Output::Undefined { code: got, message }) => Found::problem(
            format!(
                "expected undefined behaviour `{}`, the backend reported `{got}`: {message}",
                code.name()
            ),
        ),
        (Expected::Undefined(code), Output::Buffers(_)) => Found::problem(format!(
            "expected undefined behaviour `{}`, the backend completed the dispatch",
            code.name()
        )),
        (_, Output::Undefined { message, .. }) => Found::problem(format!(
            "the backend reported undefined behaviour where the case expects buffers: {message}"
        )),
        (_, Output::Rejected { message, .. }) => Found::problem(format!(
            "the backend rejected a valid program: {message}"
        )),
        (_, Output::Compiled {
            output,
            invalid: Some(why),
        }) => Found::problem(format!(
            "the backend compiled a valid program ({output}), and its output is invalid: {why}"
        )),
        (_, Output::Compiled { output, .. }) if claim.phase == Phase::Compile => {
            Found::note(format!("compiled, not run (a compile-only claim): {output}"))
        }
        (_, Output::Compiled { output, .. }) => Found::problem(format!(
            "the backend compiled the program ({output}) but ran nothing, and its claim says it runs cases"
        )),
        (_, Output::Diagnostics(actual)) => Found::problem(format!(
            "the backend rejected the program: {}",
            actual
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        )),
        (_, Output::Layout(_)) => {
            Found::problem("the backend reported a layout for a case that runs shaders".into())
        }
    }
}
