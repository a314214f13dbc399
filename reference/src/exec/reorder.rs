//! `MaybeReorderThread` (`ReorderThread` in the earlier revision).

use super::sched::ReorderPoint;
use super::thread::{fault, Ex, Thread};
use crate::mutation::{self, Mutation};
use crate::outcome::{Fault, FaultCode};
use crate::program::Stage;
use crate::value::Value;
use ser_lang::ast::Expr;

impl<'a> Thread<'a> {
    /// The three overloads: `(HitObject)`, `(uint hint, uint bits)` and
    /// `(HitObject, uint hint, uint bits)`. Each is a reorder point
    /// (`ser.maybe_reorder_thread.reorder_point.introduces_reorder_point`);
    /// results never depend on the hints
    /// (`ser.maybe_reorder_thread.example2.hint_affects_only_performance`).
    pub fn maybe_reorder_thread(&mut self, name: &str, args: &'a [Expr]) -> Ex<Value> {
        let profile = self.w.options.profile;
        if name != profile.reorder_intrinsic() {
            return fault(
                FaultCode::Unsupported,
                format!(
                    "`{name}` does not exist in profile {profile}: it is called `{}` there",
                    profile.reorder_intrinsic()
                ),
            );
        }
        self.check_reorder_stage(name)?;
        let values = self.eval_args(args)?;
        self.reorder_values(name, values)
    }

    /// `ser.maybe_reorder_thread.stage.raygen_only`
    pub(super) fn check_reorder_stage(&self, name: &str) -> Ex<()> {
        if self.stage() != Stage::RayGeneration {
            return Err(Fault::new(
                FaultCode::InvalidStage,
                format!("`{name}` in a {} shader", self.stage().name()),
            )
            .clause("ser.maybe_reorder_thread.stage.raygen_only")
            .into());
        }
        Ok(())
    }

    /// `MaybeReorderThread` of evaluated operands, in a raygeneration shader.
    pub(super) fn reorder_values(&mut self, name: &str, values: Vec<Value>) -> Ex<Value> {
        let shape: Vec<bool> = values
            .iter()
            .map(|v| matches!(v, Value::HitObject(_)))
            .collect();
        let hit = match shape.as_slice() {
            [true] | [true, false, false] => match &values[0] {
                Value::HitObject(h) => Some(h.clone()),
                _ => None,
            },
            [false, false] => None,
            _ => {
                return fault(
                    FaultCode::Unsupported,
                    format!(
                        "no overload `{name}` takes these {} argument(s)",
                        values.len()
                    ),
                )
            }
        };
        if values
            .iter()
            .skip(usize::from(hit.is_some()))
            .any(|v| v.as_scalar().is_none())
        {
            return fault(
                FaultCode::Unsupported,
                format!("the coherence hint arguments of `{name}` are scalars"),
            );
        }
        // The hit object's instance and record must be valid; NOP and
        // unbound ray-query objects are exempt
        // (`ser.maybe_reorder_thread.hit.fields_must_be_valid`,
        // `ser.maybe_reorder_thread.hit.nop_legal_input`,
        // `ser.maybe_reorder_thread.hit.unset_query_exempt_from_valid_record`).
        if mutation::active(Mutation::ReorderNopFaults) && hit.as_ref().is_some_and(|h| h.is_nop())
        {
            return Err(Fault::new(FaultCode::InvalidValue, "a NOP hit object").into());
        }
        if let Some((table, index)) = hit.as_ref().and_then(|h| h.record()) {
            self.check_record(
                table,
                index,
                "ser.maybe_reorder_thread.hit.fields_must_be_valid",
            )?;
        }
        self.reorder_point(ReorderPoint::MaybeReorderThread);
        Ok(Value::void())
    }
}
