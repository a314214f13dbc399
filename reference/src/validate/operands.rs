//! Operands of the SER calls, as the DXIL section validates them where the
//! case language can express the fault: constant operands with too many
//! bits or an invalid ray flag combination (warnings), operands that are
//! never defined, operands of the wrong kind, and attribute types (errors).
//! Each check cites the DXIL clause it implements, or the HLSL clause where
//! the HLSL text states the rule.

use super::facts::{root_name, Facts};
use super::{DiagCode, Validator};
use crate::mutation::{self, Mutation};
use crate::program::Program;
use crate::traversal::culling::validate_ray_flags;
use crate::value::StructLayouts;
use ser_lang::ast::{Expr, ExprKind, FunctionDecl, Item, Type};
use ser_lang::Span;

pub fn check(v: &mut Validator) {
    let program = v.program;
    for item in &program.library.items {
        if let Item::Function(f) = item {
            let facts = v.facts.function(f);
            let mut c = Calls { v, f, facts };
            for e in &facts.exprs {
                c.expr(e);
            }
        }
    }
}

struct Calls<'v, 'p, 'f> {
    v: &'v mut Validator<'p>,
    f: &'f FunctionDecl,
    facts: &'f Facts<'p>,
}

/// A constant operand's largest value, and the warning past it.
struct Bits {
    max: u32,
    code: DiagCode,
    clause: &'static str,
    what: &'static str,
}

impl Calls<'_, '_, '_> {
    fn report(&mut self, code: DiagCode, clause: &str, span: Span, message: String) {
        let within = self.f.name.clone();
        self.v.report(code, clause, &within, span, message);
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::StaticCall {
                ty, method, args, ..
            } if ty == "HitObject" => match method.as_str() {
                "TraceRay" => self.hit_object_trace_ray(args),
                "MakeMiss" => self.make_miss(args),
                "Invoke" => {
                    if let Some(p) = args.get(1) {
                        self.payload(
                            p,
                            "ser.dxil.hitobject_invoke.err_payload_type",
                            "ser.dxil.hitobject_invoke.err_payload_pointer",
                        );
                    }
                }
                "FromRayQuery" => self.ray_query_conversion(e, args),
                _ => {}
            },
            ExprKind::MethodCall {
                method,
                template,
                args,
                ..
            } => match method.as_str() {
                "GetAttributes" => {
                    if let Some(t) = template {
                        self.attributes(
                            t,
                            e.span,
                            "ser.dxil.hitobject_attributes.err_attr_type",
                            "ser.hit_object.get_attributes.attr_size_limit",
                        );
                    }
                }
                "SetShaderTableIndex" => {
                    self.defined(
                        args.first(),
                        "ser.dxil.hitobject_setshadertableindex.err_record_index_not_undef",
                        "record index",
                    );
                }
                "LoadLocalRootTableConstant" => {
                    let offset = args.first();
                    self.defined(
                        offset,
                        "ser.dxil.hitobject_loadlocalroottableconstant.err_offset_not_undef",
                        "root constant offset",
                    );
                    if let Some(o) = offset.and_then(|o| self.facts.constant(o)) {
                        if o % 4 != 0
                            && !mutation::active(Mutation::ValidatorMisalignedOffsetAccepted)
                        {
                            self.report(
                                DiagCode::RootConstantOffset,
                                "ser.hit_object.load_local_root_table_constant.offset_multiple_of_4",
                                e.span,
                                format!("root constant offset {o} is not a multiple of 4"),
                            );
                        }
                    }
                }
                _ => {}
            },
            ExprKind::Call { name, args }
                if name == "MaybeReorderThread" || name == "ReorderThread" =>
            {
                self.reorder(args)
            }
            _ => {}
        }
    }

    fn hit_object_trace_ray(&mut self, args: &[Expr]) {
        if let Some(a) = args.first() {
            let is_as = matches!(&a.kind, ExprKind::Ident(n) if self.v.program.acceleration_structures.contains(n));
            if !is_as {
                self.report(
                    DiagCode::AccelerationStructureOperand,
                    "ser.dxil.hitobject_traceray.err_acceleration_structure_handle",
                    a.span,
                    "the first operand of HitObject::TraceRay is not a RaytracingAccelerationStructure".into(),
                );
            }
        }
        self.ray_flags(
            args.get(1),
            "ser.dxil.hitobject_traceray.warn_ray_flags_combination",
        );
        let bits = [
            (
                2,
                Bits {
                    max: 0xFF,
                    code: DiagCode::InstanceMaskBits,
                    clause: "ser.dxil.hitobject_traceray.warn_instance_mask_8_bits",
                    what: "instance inclusion mask",
                },
            ),
            (
                3,
                Bits {
                    max: 0xF,
                    code: DiagCode::RayContributionBits,
                    clause: "ser.dxil.hitobject_traceray.warn_ray_contribution_4_bits",
                    what: "ray contribution to the hit group index",
                },
            ),
            (
                4,
                Bits {
                    max: 0xF,
                    code: DiagCode::GeometryMultiplierBits,
                    clause: "ser.dxil.hitobject_traceray.warn_geometry_multiplier_4_bits",
                    what: "multiplier for the geometry contribution",
                },
            ),
            (
                5,
                Bits {
                    max: 0xFFFF,
                    code: DiagCode::MissIndexBits,
                    clause: "ser.dxil.hitobject_traceray.warn_miss_index_16_bits",
                    what: "miss shader index",
                },
            ),
        ];
        for (i, b) in bits {
            if b.code == DiagCode::RayContributionBits
                && mutation::active(Mutation::ValidatorNoRayContributionWarning)
            {
                continue;
            }
            self.bits(args.get(i), &b);
        }
        if let Some(p) = args.get(7) {
            self.payload(
                p,
                "ser.dxil.hitobject_traceray.err_payload_type",
                "ser.dxil.hitobject_traceray.err_payload_pointer",
            );
        }
    }

    fn make_miss(&mut self, args: &[Expr]) {
        self.ray_flags(
            args.first(),
            "ser.dxil.hitobject_makemiss.warn_ray_flags_combination",
        );
        let b = Bits {
            max: 0xFFFF,
            code: DiagCode::MissIndexBits,
            clause: "ser.dxil.hitobject_makemiss.warn_miss_index_16_bits",
            what: "miss shader index",
        };
        self.bits(args.get(1), &b);
    }

    fn ray_query_conversion(&mut self, e: &Expr, args: &[Expr]) {
        let with_attrs = args.len() > 1;
        if let Some(q) = args.first() {
            if !matches!(
                self.facts.type_of(self.v.program, q),
                Some(Type::RayQuery(..))
            ) {
                let clause = if with_attrs {
                    "ser.dxil.hitobject_fromrayquerywithattrs.err_ray_query_handle"
                } else {
                    "ser.dxil.hitobject_fromrayquery.err_ray_query_handle"
                };
                self.report(
                    DiagCode::RayQueryOperand,
                    clause,
                    q.span,
                    "the first operand of HitObject::FromRayQuery is not a RayQuery variable"
                        .into(),
                );
            }
        }
        // The attributes operand by the overload's signature: the second
        // of `(q, attributes)`, the third of Shader Model 6.9's `(q,
        // hitKind, attributes)`.
        let attributes = super::facts::operands(e, ser_lang::signatures::Operand::Attributes);
        if let Some(t) = attributes
            .first()
            .and_then(|a| self.facts.type_of(self.v.program, a))
        {
            self.attributes(
                &t,
                e.span,
                "ser.dxil.hitobject_fromrayquerywithattrs.err_attr_type",
                "ser.hit_object.from_ray_query.attr_size_limit",
            );
        }
    }

    fn reorder(&mut self, args: &[Expr]) {
        let (hint, bits) = match args.len() {
            2 => (&args[0], &args[1]),
            3 => (&args[1], &args[2]),
            _ => return,
        };
        // Shader Model 6.9 requires a defined hint only "if num coherence
        // hint bits from LSB is nonzero"; the proposal always.
        let sm69 = self.v.profile == crate::Profile::Sm69;
        if !sm69 {
            self.defined(
                Some(hint),
                "ser.dxil.maybereorderthread.err_hint_not_undef",
                "coherence hint",
            );
        } else if self.facts.constant(bits) != Some(0) {
            self.defined(
                Some(hint),
                "sm69.dxil.maybereorderthread.err_hint_not_undef_if_bits_nonzero",
                "coherence hint",
            );
        }
        self.defined(
            Some(bits),
            if sm69 {
                "sm69.dxil.maybereorderthread.err_num_bits_not_undef"
            } else {
                "ser.dxil.maybereorderthread.err_num_bits_not_undef"
            },
            "number of coherence hint bits",
        );
        let b = Bits {
            max: 32,
            code: DiagCode::HintBits,
            clause: "ser.dxil.maybereorderthread.warn_num_bits_le_32",
            what: "number of coherence hint bits",
        };
        self.bits(Some(bits), &b);
    }

    /// A constant operand within its bits.
    fn bits(&mut self, operand: Option<&Expr>, b: &Bits) {
        let Some(e) = operand else { return };
        if let Some(value) = self.facts.constant(e) {
            let at_limit = value == b.max && mutation::active(Mutation::ValidatorWarnsAtLimit);
            if value > b.max || at_limit {
                self.report(
                    b.code,
                    b.clause,
                    e.span,
                    format!("constant {} {value:#x} is over {:#x}", b.what, b.max),
                );
            }
        }
    }

    /// A constant ray flag operand must be a valid combination.
    fn ray_flags(&mut self, operand: Option<&Expr>, clause: &str) {
        let Some(e) = operand else { return };
        if let Some(flags) = self.facts.constant(e) {
            if let Err(fault) = validate_ray_flags(flags) {
                self.report(DiagCode::RayFlagsCombination, clause, e.span, fault.message);
            }
        }
    }

    /// An operand that must not be undefined.
    fn defined(&mut self, operand: Option<&Expr>, clause: &str, what: &str) {
        let Some(e) = operand else { return };
        if self.facts.is_undefined(e)
            && !mutation::active(Mutation::ValidatorUndefinedOperandAccepted)
        {
            self.report(
                DiagCode::UndefinedOperand,
                clause,
                e.span,
                format!("the {what} is a variable that is never given a value"),
            );
        }
    }

    /// A payload operand: a variable of a struct type the call may write
    /// (it is passed `inout`: a `const` local is no such place).
    fn payload(&mut self, p: &Expr, type_clause: &str, pointer_clause: &str) {
        let Some(root) = root_name(p) else {
            self.report(
                DiagCode::PayloadNotVariable,
                pointer_clause,
                p.span,
                "the payload is not a variable (it is passed inout)".into(),
            );
            return;
        };
        if self.facts.const_vars.contains(root) {
            self.report(
                DiagCode::PayloadNotVariable,
                pointer_clause,
                p.span,
                format!("the payload `{root}` is const, and it is passed inout"),
            );
            return;
        }
        if let Some(t) = self.facts.type_of(self.v.program, p) {
            if !matches!(t, Type::Struct(_)) {
                self.report(
                    DiagCode::PayloadType,
                    type_clause,
                    p.span,
                    "the payload is not a struct".into(),
                );
            }
        }
    }

    /// An attribute type: a struct no larger than the pipeline allows.
    fn attributes(&mut self, t: &Type, span: Span, type_clause: &str, size_clause: &str) {
        if !matches!(t, Type::Struct(_)) {
            self.report(
                DiagCode::AttributeType,
                type_clause,
                span,
                "the attribute type is not a struct".into(),
            );
            return;
        }
        let max = self.v.limits.max_attribute_size;
        if let Some(size) = size_of(self.v.program, t) {
            if size > max {
                self.report(
                    DiagCode::AttributeSize,
                    size_clause,
                    span,
                    format!(
                        "the attribute type is {size} bytes, over the pipeline's maximum of {max}"
                    ),
                );
            }
        }
    }
}

/// The size of a value of the type in bytes, packed as attributes are.
fn size_of(program: &Program, t: &Type) -> Option<u32> {
    match t {
        Type::Scalar(_) => Some(4),
        Type::Vector(_, n) => Some(4 * *n as u32),
        Type::Matrix(_, r, c) => Some(4 * *r as u32 * *c as u32),
        Type::Array(e, n) => Some(size_of(program, e)? * n),
        Type::Struct(name) => program
            .fields_of(name)?
            .iter()
            .map(|(_, f)| size_of(program, f))
            .sum(),
        _ => None,
    }
}
