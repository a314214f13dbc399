//! Places: what an assignment, an `out` argument or a mutating method
//! writes to (a local variable, or an element of an output buffer, and a
//! path of fields, indices and swizzles into it).

use super::ops;
use super::thread::{fault, Ex, Thread};
use crate::outcome::FaultCode;
use crate::value::{Scalar, Value};
use ser_lang::ast::{Expr, ExprKind};

#[derive(Clone, Debug)]
pub(super) enum Root<'a> {
    Local(&'a str),
    /// Buffer number and element index.
    Buffer(usize, Scalar),
}

#[derive(Clone, Debug)]
pub(super) enum Step {
    Field(usize),
    Index(usize),
    Swizzle(Vec<usize>),
}

#[derive(Clone, Debug)]
pub(super) struct Place<'a> {
    pub root: Root<'a>,
    pub steps: Vec<Step>,
}

/// Component indices of a swizzle (`xyzw` or `rgba`).
pub(super) fn swizzle(name: &str, len: usize) -> Option<Vec<usize>> {
    let idx = |c: char| match c {
        'x' | 'r' => Some(0),
        'y' | 'g' => Some(1),
        'z' | 'b' => Some(2),
        'w' | 'a' => Some(3),
        _ => None,
    };
    let out: Option<Vec<usize>> = name.chars().map(idx).collect();
    out.filter(|v| !v.is_empty() && v.len() <= 4 && v.iter().all(|&i| i < len))
}

/// Follows one step into a value.
fn project(v: &Value, step: &Step) -> Ex<Value> {
    match (v, step) {
        (Value::Struct { fields, .. }, Step::Field(i)) => Ok(fields[*i].clone()),
        (Value::Vector(c), Step::Swizzle(ix)) if ix.len() == 1 => {
            Ok(Value::Scalar(c[ix[0]].clone()))
        }
        (Value::Vector(c), Step::Swizzle(ix)) => {
            Ok(Value::Vector(ix.iter().map(|&i| c[i].clone()).collect()))
        }
        (Value::Vector(c), Step::Index(i)) if *i < c.len() => Ok(Value::Scalar(c[*i].clone())),
        (Value::Matrix { cols, elems, rows }, Step::Index(r)) if *r < *rows as usize => {
            let c = *cols as usize;
            Ok(Value::Vector(elems[r * c..(r + 1) * c].to_vec()))
        }
        (Value::Array(items), Step::Index(i)) if *i < items.len() => Ok(items[*i].clone()),
        _ => fault(
            FaultCode::Unsupported,
            format!("cannot index into {} with {step:?}", v.type_name()),
        ),
    }
}

/// The part of `v` at the end of `steps`. Fields and elements are followed
/// in place, so only the part read is copied.
fn read_path(v: &Value, steps: &[Step]) -> Ex<Value> {
    let Some((step, rest)) = steps.split_first() else {
        return Ok(v.clone());
    };
    match (v, step) {
        (Value::Struct { fields, .. }, Step::Field(i)) => read_path(&fields[*i], rest),
        (Value::Array(items), Step::Index(i)) if *i < items.len() => read_path(&items[*i], rest),
        _ => read_path(&project(v, step)?, rest),
    }
}

/// The part of `v` at the end of `steps`, by reference, where fields and
/// array elements lead to it (a swizzle or a vector's component has no
/// value of its own to refer to).
fn path_ref<'v>(v: &'v Value, steps: &[Step]) -> Option<&'v Value> {
    let Some((step, rest)) = steps.split_first() else {
        return Some(v);
    };
    match (v, step) {
        (Value::Struct { fields, .. }, Step::Field(i)) => path_ref(&fields[*i], rest),
        (Value::Array(items), Step::Index(i)) => path_ref(items.get(*i)?, rest),
        _ => None,
    }
}

/// [`path_ref`], for changing the part in place.
fn path_mut<'v>(v: &'v mut Value, steps: &[Step]) -> Option<&'v mut Value> {
    let Some((step, rest)) = steps.split_first() else {
        return Some(v);
    };
    match (v, step) {
        (Value::Struct { fields, .. }, Step::Field(i)) => path_mut(&mut fields[*i], rest),
        (Value::Array(items), Step::Index(i)) => path_mut(items.get_mut(*i)?, rest),
        _ => None,
    }
}

/// Writes `new` at the end of `steps` inside `v`, converting it to the type
/// already there.
fn write_into(thread: &mut Thread, v: &mut Value, steps: &[Step], new: Value) -> Ex<()> {
    let Some((step, rest)) = steps.split_first() else {
        let ty = ops::type_of(v);
        *v = thread.convert_to(&ty, new)?;
        return Ok(());
    };
    match (v, step) {
        (Value::Struct { fields, .. }, Step::Field(i)) => {
            write_into(thread, &mut fields[*i], rest, new)
        }
        (Value::Array(items), Step::Index(i)) if *i < items.len() => {
            write_into(thread, &mut items[*i], rest, new)
        }
        (Value::Vector(c), Step::Index(i)) if *i < c.len() && rest.is_empty() => {
            let mut s = Value::Scalar(c[*i].clone());
            write_into(thread, &mut s, &[], new)?;
            c[*i] = s.as_scalar().expect("a scalar stays a scalar").clone();
            Ok(())
        }
        (Value::Vector(c), Step::Swizzle(ix)) if rest.is_empty() => {
            let comps = match new {
                Value::Scalar(s) => vec![s; ix.len()],
                other => other.into_components(),
            };
            if comps.len() < ix.len() {
                return fault(FaultCode::Unsupported, "too few components for the swizzle");
            }
            for (&i, s) in ix.iter().zip(comps) {
                let ty = c[i].ty;
                c[i] = s.into_type(ty, &mut thread.log);
            }
            Ok(())
        }
        (Value::Matrix { cols, elems, rows }, Step::Index(r)) if *r < *rows as usize => {
            let c = *cols as usize;
            let mut row = Value::Vector(elems[r * c..(r + 1) * c].to_vec());
            write_into(thread, &mut row, rest, new)?;
            elems[r * c..(r + 1) * c].clone_from_slice(&row.components());
            Ok(())
        }
        (v, step) => fault(
            FaultCode::Unsupported,
            format!("cannot assign into {} with {step:?}", v.type_name()),
        ),
    }
}

/// The step `.name` takes into `v`: a field, or a swizzle (none for a
/// scalar's own component).
fn member_step(program: &crate::program::Program, v: &Value, name: &str) -> Ex<Option<Step>> {
    Ok(Some(match v {
        Value::Struct { name: s, .. } => match program.field_index(s, name) {
            Some((i, _)) => Step::Field(i),
            None => {
                return fault(
                    FaultCode::Unsupported,
                    format!("struct `{s}` has no field `{name}`"),
                )
            }
        },
        Value::Vector(c) => match swizzle(name, c.len()) {
            Some(ix) => Step::Swizzle(ix),
            None => {
                return fault(
                    FaultCode::Unsupported,
                    format!("`.{name}` is not a swizzle of a {}-vector", c.len()),
                )
            }
        },
        Value::Scalar(_) if swizzle(name, 1).is_some() => return Ok(None),
        other => {
            return fault(
                FaultCode::Unsupported,
                format!("`.{name}` on {}", other.type_name()),
            )
        }
    }))
}

/// The value of `v.name`: the part [`member_step`] leads to; a scalar's
/// swizzle (`.x`, `.xx`) repeats the scalar.
pub(super) fn member(program: &crate::program::Program, v: &Value, name: &str) -> Ex<Value> {
    if let Value::Scalar(s) = v {
        return match swizzle(name, 1) {
            Some(ix) if ix.len() == 1 => Ok(Value::Scalar(s.clone())),
            Some(ix) => Ok(Value::Vector(vec![s.clone(); ix.len()])),
            None => fault(FaultCode::Unsupported, format!("`.{name}` on a scalar")),
        };
    }
    let step = member_step(program, v, name)?.expect("only a scalar's swizzle takes no step");
    project(v, &step)
}

impl<'a> Thread<'a> {
    /// Whether an expression can be a place (without evaluating it).
    pub fn is_place(&self, e: &Expr) -> bool {
        match &e.kind {
            ExprKind::Ident(n) => self.w.program.buffer_index(n).is_none(),
            ExprKind::Member(r, _) | ExprKind::Index(r, _) => {
                matches!(&r.kind, ExprKind::Ident(_)) || self.is_place(r)
            }
            _ => false,
        }
    }

    /// Evaluates an expression to the place it names.
    pub fn place(&mut self, e: &'a Expr) -> Ex<Place<'a>> {
        self.descend()?;
        let r = self.place_kind(e);
        self.ascend();
        r
    }

    fn place_kind(&mut self, e: &'a Expr) -> Ex<Place<'a>> {
        match &e.kind {
            ExprKind::Ident(n) => {
                if self.local_mut(n).is_none() {
                    return fault(FaultCode::Unsupported, format!("`{n}` cannot be assigned"));
                }
                Ok(Place {
                    root: Root::Local(n),
                    steps: Vec::new(),
                })
            }
            ExprKind::Index(base, index) => {
                let i = self.eval(index)?;
                let Some(i) = i.as_scalar().cloned() else {
                    return fault(FaultCode::Unsupported, "an index must be a scalar");
                };
                if let ExprKind::Ident(n) = &base.kind {
                    if let Some(b) = self.w.program.buffer_index(n) {
                        return Ok(Place {
                            root: Root::Buffer(b, i),
                            steps: Vec::new(),
                        });
                    }
                }
                if let Some(why) = &i.unspecified {
                    return fault(
                        FaultCode::UnspecifiedControl,
                        format!("an index is unspecified ({why})"),
                    );
                }
                let mut p = self.place(base)?;
                p.steps.push(Step::Index(i.bits as usize));
                Ok(p)
            }
            ExprKind::Member(base, name) => {
                let mut p = self.place(base)?;
                let program = self.w.program;
                // A swizzle of a scalar (`.x`) names the scalar itself.
                if let Some(step) = self.inspect_place(&p, |v| member_step(program, v, name))?? {
                    p.steps.push(step);
                }
                Ok(p)
            }
            _ => fault(FaultCode::Unsupported, "this expression cannot be assigned"),
        }
    }

    pub fn read_place(&mut self, p: &Place) -> Ex<Value> {
        match &p.root {
            Root::Local(n) => read_path(
                self.local_mut(n).expect("checked when the place was made"),
                &p.steps,
            ),
            Root::Buffer(b, i) => {
                let element = self.shared.memory.borrow_mut().load(self.id, *b, i)?;
                read_path(&element, &p.steps)
            }
        }
    }

    pub fn write_place(&mut self, p: &Place, new: Value) -> Ex<()> {
        match &p.root {
            Root::Local(n) => {
                let mut v = std::mem::replace(
                    self.local_mut(n).expect("checked when the place was made"),
                    Value::uint(0),
                );
                let r = write_into(self, &mut v, &p.steps, new);
                *self.local_mut(n).expect("still declared") = v;
                r
            }
            Root::Buffer(_, _) if self.probe.is_some() => {
                self.probe.as_mut().expect("checked").wrote = true;
                Ok(())
            }
            Root::Buffer(b, i) => {
                // A whole element is the value converted to the element
                // type; a part of one is written into the element as it is.
                let element = if p.steps.is_empty() {
                    self.convert_to(&self.w.program.buffers[*b].element, new)?
                } else {
                    let mut element = self.shared.memory.borrow_mut().load(self.id, *b, i)?;
                    write_into(self, &mut element, &p.steps, new)?;
                    element
                };
                let written = element.scalars();
                let start = self
                    .shared
                    .memory
                    .borrow_mut()
                    .store(self.id, *b, i, &written)?;
                for log in &mut self.write_logs {
                    let words = written.iter().enumerate();
                    log.extend(words.map(|(k, s)| (*b, start + k, s.clone())));
                }
                Ok(())
            }
        }
    }

    /// Runs `f` on the value at a place: by reference where fields and
    /// elements of a local variable lead to it, on a copy otherwise.
    fn inspect_place<R>(&mut self, p: &Place, f: impl FnOnce(&Value) -> R) -> Ex<R> {
        if let Root::Local(n) = &p.root {
            let v = self.local_mut(n).expect("checked when the place was made");
            if let Some(part) = path_ref(v, &p.steps) {
                return Ok(f(part));
            }
        }
        Ok(f(&self.read_place(p)?))
    }

    /// Runs `f` on the value at a place, for methods that change their
    /// receiver. A part of a local variable that fields and elements lead
    /// to is changed in place: the variable is set aside while `f` runs
    /// (`f` sees only its receiver and its evaluated arguments) and put
    /// back after, whatever `f` returns. Any other place is read, changed
    /// and written back.
    pub fn with_local<R>(
        &mut self,
        p: &Place,
        f: impl FnOnce(&mut Thread<'a>, &mut Value) -> Ex<R>,
    ) -> Ex<R> {
        if let Root::Local(n) = &p.root {
            let slot = self.local_mut(n).expect("checked when the place was made");
            let mut whole = std::mem::replace(slot, Value::uint(0));
            if let Some(part) = path_mut(&mut whole, &p.steps) {
                let r = f(self, part);
                *self.local_mut(n).expect("still declared") = whole;
                return r;
            }
            *self.local_mut(n).expect("still declared") = whole;
        }
        let mut v = self.read_place(p)?;
        let r = f(self, &mut v);
        self.write_place(p, v)?;
        r
    }
}
