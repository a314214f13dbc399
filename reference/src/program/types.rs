//! How much one value of a declared type holds: the reference makes every
//! value whole (`crate::value::new_value`), so a declaration asking for
//! billions of scalars (`uint a[4000000000];`, or structs of arrays of
//! structs) would allocate until the process is killed, and a chain of
//! thousands of structs each holding the one before would nest values as
//! deep. Both are bounded here, before anything runs (`cases/README.md`,
//! "Limits").

use super::{err, ProgramError};
use ser_lang::ast::*;
use ser_lang::nesting::{self, MAX_NESTING};
use ser_lang::Span;
use std::collections::HashMap;

/// The most scalars one value may hold: 16 KiB of 32-bit words, far above
/// what cases use (the largest local array in `cases/` has 7 elements),
/// and small enough that a 4,096-thread dispatch holding such a value in
/// every thread stays under a GiB.
pub const MAX_VALUE_SCALARS: u64 = 4096;

/// What one value of a type holds: scalars (a `HitObject` or `RayQuery`
/// counts one), and how deeply structs and arrays nest in it.
#[derive(Clone, Copy, Debug, Default)]
struct Shape {
    scalars: u64,
    depth: usize,
}

/// The shapes of the structs declared so far.
pub(super) struct Shapes(HashMap<String, Shape>);

impl Shapes {
    /// Shapes of the given (built-in) structs, whose fields are numeric.
    pub(super) fn new<'t>(
        structs: impl IntoIterator<Item = (&'t String, &'t Vec<(String, Type)>)>,
    ) -> Shapes {
        let mut shapes = Shapes(HashMap::new());
        for (name, fields) in structs {
            let shape = shapes.fields(fields.iter().map(|(_, t)| t));
            shapes.0.insert(name.clone(), shape);
        }
        shapes
    }

    /// The shape of a type; a struct names only structs declared before it,
    /// so theirs are known (an unknown one holds nothing, as
    /// `new_value` makes it).
    fn of(&self, t: &Type) -> Shape {
        let leaf = |scalars| Shape { scalars, depth: 1 };
        match t {
            Type::Void => Shape::default(),
            Type::Scalar(_) | Type::HitObject | Type::RayQuery(..) => leaf(1),
            // A stage object holds its elements (a patch, `count` of them).
            Type::Object { element, count, .. } => {
                let e = self.of(element);
                Shape {
                    scalars: e.scalars.saturating_mul(u64::from(count.unwrap_or(1))),
                    depth: e.depth + 1,
                }
            }
            Type::Vector(_, n) => leaf(u64::from(*n)),
            Type::Matrix(_, r, c) => leaf(u64::from(*r) * u64::from(*c)),
            Type::Struct(name) => self.0.get(name).copied().unwrap_or_default(),
            Type::Array(element, n) => {
                let e = self.of(element);
                Shape {
                    scalars: e.scalars.saturating_mul(u64::from(*n)),
                    depth: e.depth + 1,
                }
            }
        }
    }

    fn fields<'t>(&self, types: impl Iterator<Item = &'t Type>) -> Shape {
        types.fold(
            Shape {
                scalars: 0,
                depth: 1,
            },
            |acc, t| {
                let s = self.of(t);
                Shape {
                    scalars: acc.scalars.saturating_add(s.scalars),
                    depth: acc.depth.max(s.depth + 1),
                }
            },
        )
    }

    /// Checks a type declared at `span`.
    fn check(&self, t: &Type, span: Span, within: Option<&str>) -> Result<(), ProgramError> {
        check(self.of(t), span, within)
    }

    /// Checks a struct's fields and records its shape.
    pub(super) fn add_struct(&mut self, s: &StructDecl) -> Result<(), ProgramError> {
        for f in &s.fields {
            self.check(&f.ty, f.span, Some(&s.name))?;
        }
        let shape = self.fields(s.fields.iter().map(|f| &f.ty));
        check(shape, s.span, Some(&s.name))?;
        self.0.insert(s.name.clone(), shape);
        Ok(())
    }

    /// Checks what a function declares: its parameters, result and local
    /// variables.
    pub(super) fn check_function(&self, f: &FunctionDecl) -> Result<(), ProgramError> {
        let within = Some(f.name.as_str());
        for t in f.params.iter().map(|p| &p.ty).chain([&f.return_type]) {
            self.check(t, f.span, within)?;
        }
        let mut result = Ok(());
        nesting::statements(&f.body, |s| {
            if let (Ok(()), StmtKind::Decl(d)) = (&result, &s.kind) {
                for dc in &d.declarators {
                    let ty = match dc.array_len {
                        Some(n) => Type::Array(Box::new(d.ty.clone()), n),
                        None => d.ty.clone(),
                    };
                    if let Err(e) = self.check(&ty, s.span, within) {
                        result = Err(e);
                        return;
                    }
                }
            }
        });
        result
    }
}

/// Checks the shape of a value declared at `span`.
fn check(shape: Shape, span: Span, within: Option<&str>) -> Result<(), ProgramError> {
    if shape.scalars > MAX_VALUE_SCALARS {
        let message = format!(
            "a value of this type holds {} scalars: more than the {MAX_VALUE_SCALARS} the \
             reference holds in one value (see cases/README.md)",
            shape.scalars
        );
        return Err(err(span, within, message));
    }
    if shape.depth > MAX_NESTING {
        let message = format!(
            "structs and arrays nested {} deep in one value: deeper than the case language's \
             limit of {MAX_NESTING} (see cases/README.md)",
            shape.depth
        );
        return Err(err(span, within, message));
    }
    Ok(())
}
