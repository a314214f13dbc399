//! The reference interpreter as a backend.

use crate::backend::{Backend, BackendError, Execution, Output};
use crate::capability::CAPABILITIES;
use crate::load::{Case, Expected};
use ser_reference::exec::schedule::Schedule;
use ser_reference::mutation;
use ser_reference::sbt::layout;
use ser_reference::validate::{has_errors, validate};
use ser_reference::{Outcome, Profile, RunOptions};
use std::collections::BTreeMap;

/// See [`ReferenceBackend::evaluate`].
#[derive(Debug)]
pub enum Evaluation {
    Layout(Result<layout::Layout, layout::LayoutError>),
    Diagnostics(Vec<ser_reference::validate::Diagnostic>),
    Ran(ser_reference::RunResult),
}

/// The stack of the thread the reference runs each case on. The validator
/// recurses on it, through expressions nested up to the language's limit;
/// the interpreter recurses on each dispatch thread's own stack (up to
/// [`ser_reference::exec::MAX_EVALUATION_DEPTH`] levels), which the
/// scheduler on this one resumes. Only the stack a case uses is touched.
pub const REFERENCE_STACK: usize = 128 << 20;

pub struct ReferenceBackend {
    pub options: RunOptions,
}

impl ReferenceBackend {
    pub fn new(profile: Profile) -> Self {
        ReferenceBackend {
            options: RunOptions {
                profile,
                ..RunOptions::default()
            },
        }
    }

    /// What the reference makes of a case, before it becomes a backend's
    /// output: a layout case's layout, the compiler's diagnostics (a
    /// negative case, or a program with errors; warnings do not stop a
    /// run), or the legal outcomes of a run, faults with their codes.
    ///
    /// It runs on a thread of its own with [`REFERENCE_STACK`] bytes of
    /// stack, so that the deepest program the limits allow runs whatever
    /// thread calls it (a test's, the runner's, `serve`'s main thread).
    /// A mutant's mutation ([`ser_reference::mutation`]) goes to that
    /// thread, and the rule sites reached there come back.
    pub fn evaluate(&self, case: &Case) -> Result<Evaluation, BackendError> {
        let mutation = mutation::state();
        let run = || mutation.enter(|| self.evaluate_here(case));
        match ser_lang::nesting::on_stack("reference", REFERENCE_STACK, run) {
            Ok((evaluation, sites)) => {
                mutation::merge(&sites);
                evaluation
            }
            Err(e) => Err(BackendError::Failed(format!(
                "cannot start the reference's thread: {e}"
            ))),
        }
    }

    fn evaluate_here(&self, case: &Case) -> Result<Evaluation, BackendError> {
        if let Expected::Layout(expect) = &case.expect {
            let rules = layout::Rules::for_api(expect.api());
            return Ok(Evaluation::Layout(layout::layout(
                &rules,
                &case.shader_table,
            )));
        }
        let program = case
            .program_for(self.options.profile)
            .map_err(|e| BackendError::Failed(format!("library: {e}")))?;
        let diagnostics = validate(&program, self.options.profile, &case.limits);
        if matches!(case.expect, Expected::Diagnostics(_)) || has_errors(&diagnostics) {
            return Ok(Evaluation::Diagnostics(diagnostics));
        }
        // A case that pins a schedule shows what that schedule does: its
        // results are then concrete, not unspecified.
        let options = match case.schedule {
            Some(schedule) => RunOptions {
                schedule,
                taint_schedule: false,
                ..self.options.clone()
            },
            None => self.options.clone(),
        };
        Ok(Evaluation::Ran(ser_reference::run(
            &program,
            &case.scene,
            &case.shader_table,
            &case.dispatch,
            &options,
        )))
    }

    /// The reference running a given schedule at reorder points. Its legal
    /// outcomes are the same whatever the schedule; the concrete buffers it
    /// returns follow it.
    pub fn with_schedule(mut self, schedule: Schedule) -> Self {
        self.options.schedule = schedule;
        self
    }
}

impl Backend for ReferenceBackend {
    fn name(&self) -> &str {
        "reference"
    }

    fn profile(&self) -> Profile {
        self.options.profile
    }

    fn capabilities(&self) -> Vec<String> {
        CAPABILITIES.iter().map(|(n, _)| n.to_string()).collect()
    }

    fn run(&self, case: &Case) -> Result<Execution, BackendError> {
        let result = match self.evaluate(case)? {
            Evaluation::Layout(layout) => {
                return Ok(Execution {
                    output: Output::Layout(layout),
                    legal: None,
                })
            }
            Evaluation::Diagnostics(diagnostics) => {
                return Ok(Execution {
                    output: Output::Diagnostics(diagnostics),
                    legal: None,
                })
            }
            Evaluation::Ran(result) => result,
        };
        let output = match &result.outcome {
            Outcome::Completed(buffers) => Output::Buffers(
                buffers
                    .iter()
                    .map(|(k, b)| (k.clone(), b.first.clone()))
                    .collect::<BTreeMap<_, _>>(),
            ),
            Outcome::Fault(f) if f.code.is_undefined_behaviour() => Output::Undefined {
                code: f.code.name().to_string(),
                message: f.to_string(),
            },
            Outcome::Fault(f) => {
                return Err(BackendError::Failed(format!(
                    "the reference could not run the case: {f}"
                )))
            }
        };
        Ok(Execution {
            output,
            legal: Some(result),
        })
    }
}
