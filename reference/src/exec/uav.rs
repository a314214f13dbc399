//! UAV operations beyond loads and stores: barriers (which make writes
//! coherent across reorder points, see [`super::memory::coherence`]) and
//! atomic adds.

use super::memory::coherence::barrier_scopes;
use super::place::Root;
use super::thread::{fault, Ex, Thread};
use crate::outcome::FaultCode;
use crate::value::{Scalar, Value};
use ser_lang::ast::{Expr, ScalarType};

impl<'a> Thread<'a> {
    /// `DeviceMemoryBarrier()` and `Barrier(memory flags, semantic flags)`.
    /// Only the spec's recipes publish anything
    /// (`ser.memory.reordercoherent.barrier_reorder_scope_before_reorder_point`,
    /// `ser.memory.globallycoherent.device_memory_barrier_before_reorder_point`).
    pub fn barrier(&mut self, name: &str, args: &'a [Expr]) -> Ex<Value> {
        let values = self.eval_args(args)?;
        let mut flags = Vec::new();
        for v in &values {
            match v.as_scalar() {
                Some(s) if s.unspecified.is_none() && s.ty != ScalarType::Float => {
                    flags.push(s.bits)
                }
                _ => {
                    return fault(
                        FaultCode::Unsupported,
                        format!("the arguments of `{name}` are defined integer flags"),
                    )
                }
            }
        }
        let scopes = barrier_scopes(name, &flags, self.w.options.profile);
        if self.probe.is_none() {
            self.shared.memory.borrow_mut().barrier(self.id, scopes);
        }
        Ok(Value::void())
    }

    /// `InterlockedAdd(dest, value)` and `InterlockedAdd(dest, value,
    /// out original)` on a `uint` or `int` buffer element.
    pub fn interlocked_add(&mut self, args: &'a [Expr]) -> Ex<Value> {
        if !(2..=3).contains(&args.len()) {
            return fault(
                FaultCode::Unsupported,
                "`InterlockedAdd` takes a destination, a value and optionally an out original value",
            );
        }
        let dest = self.place(&args[0])?;
        let Root::Buffer(buffer, index) = &dest.root else {
            return fault(
                FaultCode::Unsupported,
                "the destination of `InterlockedAdd` is an element of an output buffer",
            );
        };
        if !dest.steps.is_empty() {
            return fault(
                FaultCode::Unsupported,
                "the destination of `InterlockedAdd` is a whole buffer element",
            );
        }
        let delta = match self.eval(&args[1])? {
            Value::Scalar(s) if s.ty != ScalarType::Float => s,
            _ => {
                return fault(
                    FaultCode::Unsupported,
                    "the value of `InterlockedAdd` is an int or uint",
                )
            }
        };
        let original = if let Some(probe) = self.probe.as_mut() {
            probe.wrote = true;
            Scalar::unspecified(
                ScalarType::Uint,
                "an atomic in a probed intersection shader",
            )
        } else {
            let (original, (word, sum)) = self
                .shared
                .memory
                .borrow_mut()
                .atomic_add(self.id, *buffer, index, &delta)?;
            for log in &mut self.write_logs {
                log.push((*buffer, word, sum.clone()));
            }
            original
        };
        if let Some(out) = args.get(2) {
            let place = self.place(out)?;
            self.write_place(&place, Value::Scalar(original))?;
        }
        Ok(Value::void())
    }
}
