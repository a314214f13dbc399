//! The limit on nesting depth, and a walk that measures it without
//! recursion.
//!
//! Everything that takes a function body apart (the parser, the printer,
//! the walkers of [`crate::visit`], the reference interpreter, even dropping
//! the tree) recurses on the machine stack, one or more frames per level of
//! the tree. A hostile case (10,000 nested parentheses, a chain of 100,000
//! `+ 0`) would overflow that stack and take the whole runner down, so the
//! language states a limit, as C compilers do (clang's
//! `-fbracket-depth` defaults to 256), and the parser never builds a deeper
//! tree. `cases/README.md` ("Limits") documents it.
//!
//! Depth counts statements and expressions together: a function's
//! top-level statements are at depth 1, and every node is one deeper than
//! the node it is a child of (the expression of a statement, the operands
//! of an operator, the arguments of a call, the flags of a `RayQuery<...>`
//! type). A chain of binary operators is as deep as it has operators. The
//! parser also counts a pair of parentheses as a level, though the tree
//! keeps none, so that its own recursion is bounded by the same limit.

use crate::ast::*;
use crate::error::ParseError;
use crate::span::Span;

/// The deepest a statement or expression may be nested (see the module
/// documentation for how depth is counted).
pub const MAX_NESTING: usize = 256;

/// The error for a node nested deeper than [`MAX_NESTING`], at `span`.
pub fn too_deep(span: Span) -> ParseError {
    ParseError::new(
        span,
        format!(
            "nesting deeper than {MAX_NESTING} levels (statements, expressions and parentheses \
             together); the case language's limit, see cases/README.md"
        ),
    )
}

/// Runs `f` with at least `stack` bytes of stack, and gives its result (a
/// panic in `f` goes on in the caller). What recurses once per level of
/// nesting (the parser, the reference interpreter) runs so, on a stack
/// sized for the limit, whichever thread calls it: a test's 2 MiB, the main
/// thread's 8 MiB. On a thread that already has that much stack left (one
/// started by [`spawn_scoped`] or by this function: a loop over many cases
/// runs there), `f` runs in place; elsewhere on a new thread named `name`.
/// Only the stack a run uses is touched.
pub fn on_stack<T: Send>(
    name: &str,
    stack: usize,
    f: impl FnOnce() -> T + Send,
) -> std::io::Result<T> {
    if stack_left() >= stack {
        return Ok(f());
    }
    std::thread::scope(|s| {
        let thread = spawn_scoped(s, name, stack, f)?;
        Ok(thread
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
    })
}

/// Starts a scoped thread named `name` with `stack` bytes of stack that
/// [`on_stack`] calls on it can use in place (starting a thread costs more
/// than parsing or running a small case).
pub fn spawn_scoped<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    name: &str,
    stack: usize,
    f: impl FnOnce() -> T + Send + 'scope,
) -> std::io::Result<std::thread::ScopedJoinHandle<'scope, T>> {
    builder(name, stack).spawn_scoped(scope, given(stack, f))
}

/// [`spawn_scoped`] for a thread that may outlive its caller.
pub fn spawn<T: Send + 'static>(
    name: &str,
    stack: usize,
    f: impl FnOnce() -> T + Send + 'static,
) -> std::io::Result<std::thread::JoinHandle<T>> {
    builder(name, stack).spawn(given(stack, f))
}

fn builder(name: &str, stack: usize) -> std::thread::Builder {
    std::thread::Builder::new()
        .name(name.to_string())
        .stack_size(stack + STACK_SLACK)
}

/// `f`, run where the thread records the stack it was given.
fn given<T>(stack: usize, f: impl FnOnce() -> T) -> impl FnOnce() -> T {
    move || {
        GIVEN.set(Some((stack, here())));
        f()
    }
}

/// Stack given beyond what a thread is asked for: room for a loop's own
/// frames around the calls it makes in place, so that a call asking for
/// the same stack as the thread still runs in place.
const STACK_SLACK: usize = 1 << 20;

thread_local! {
    /// The stack [`spawn_scoped`] gave this thread (beyond the slack), and
    /// an address near its top.
    static GIVEN: std::cell::Cell<Option<(usize, usize)>> = const { std::cell::Cell::new(None) };
}

/// An address in the caller's frame.
#[inline(never)]
fn here() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Bytes of stack left below the caller (the stack grows down on the
/// targets the suite runs on, x86-64 and AArch64), less the frames above
/// the thread's marker, or 0 on a thread [`spawn_scoped`] did not start.
fn stack_left() -> usize {
    const ABOVE_MARKER: usize = 64 << 10;
    match GIVEN.get() {
        Some((given, top)) => (given + STACK_SLACK)
            .saturating_sub(top.saturating_sub(here()))
            .saturating_sub(ABOVE_MARKER),
        None => 0,
    }
}

/// The parser's count of levels (see [`crate::parser`]): `depth` is the
/// level of the node being parsed; `reach` the deepest level of the tree
/// the innermost open operand scope has built so far, so that wrapping it
/// in another node (`a + b` becoming the left operand of `+ c`, `a.b`
/// becoming the receiver of `.c`) is checked before the deeper tree exists.
#[derive(Debug, Default)]
pub(crate) struct Guard {
    depth: usize,
    reach: usize,
}

impl Guard {
    /// Goes one level down to parse a child starting at `span`.
    pub(crate) fn enter(&mut self, span: Span) -> Result<(), ParseError> {
        if self.depth >= MAX_NESTING {
            return Err(too_deep(span));
        }
        self.depth += 1;
        self.reach = self.reach.max(self.depth);
        Ok(())
    }

    pub(crate) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Opens the scope of a node whose first operand may be wrapped; gives
    /// what [`Guard::close`] restores.
    pub(crate) fn open(&mut self) -> usize {
        std::mem::replace(&mut self.reach, self.depth)
    }

    pub(crate) fn close(&mut self, outer: usize) {
        self.reach = self.reach.max(outer);
    }

    /// Pushes everything the open scope built one level down, under a new
    /// node made at `span`.
    pub(crate) fn wrap(&mut self, span: Span) -> Result<(), ParseError> {
        if self.reach >= MAX_NESTING {
            return Err(too_deep(span));
        }
        self.reach += 1;
        Ok(())
    }
}

/// A statement or an expression: a node as the depth limit counts them.
#[derive(Clone, Copy, Debug)]
pub enum Node<'a> {
    Stmt(&'a Stmt),
    Expr(&'a Expr),
}

impl<'a> Node<'a> {
    pub fn span(self) -> Span {
        match self {
            Node::Stmt(s) => s.span,
            Node::Expr(e) => e.span,
        }
    }

    /// Appends the nodes one level below this one.
    pub fn children(self, out: &mut Vec<Node<'a>>) {
        match self {
            Node::Stmt(s) => match &s.kind {
                StmtKind::Block(b) => out.extend(b.stmts.iter().map(Node::Stmt)),
                StmtKind::Decl(d) => {
                    type_exprs(&d.ty, out);
                    out.extend(
                        d.declarators
                            .iter()
                            .filter_map(|dc| dc.init.as_ref().map(Node::Expr)),
                    );
                }
                StmtKind::Expr(e) | StmtKind::Return(Some(e)) => out.push(Node::Expr(e)),
                StmtKind::If {
                    cond,
                    then_branch,
                    else_branch,
                } => {
                    out.push(Node::Expr(cond));
                    out.push(Node::Stmt(then_branch));
                    out.extend(else_branch.as_deref().map(Node::Stmt));
                }
                StmtKind::For {
                    init,
                    cond,
                    step,
                    body,
                } => {
                    out.extend(init.as_deref().map(Node::Stmt));
                    out.extend(cond.iter().chain(step).map(|e| Node::Expr(e)));
                    out.push(Node::Stmt(body));
                }
                StmtKind::While { cond, body } | StmtKind::DoWhile { body, cond } => {
                    out.push(Node::Expr(cond));
                    out.push(Node::Stmt(body));
                }
                StmtKind::Break
                | StmtKind::Continue
                | StmtKind::Return(None)
                | StmtKind::UsingDx => {}
            },
            Node::Expr(e) => match &e.kind {
                ExprKind::IntLit { .. }
                | ExprKind::FloatLit { .. }
                | ExprKind::BoolLit(_)
                | ExprKind::Ident(_) => {}
                ExprKind::Member(x, _)
                | ExprKind::Unary(_, x)
                | ExprKind::IncDec { target: x, .. } => out.push(Node::Expr(x)),
                ExprKind::Cast(t, x) => {
                    type_exprs(t, out);
                    out.push(Node::Expr(x));
                }
                ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) | ExprKind::Assign(_, a, b) => {
                    out.extend([Node::Expr(a), Node::Expr(b)])
                }
                ExprKind::Call { args, .. } => out.extend(args.iter().map(Node::Expr)),
                ExprKind::Construct(t, args) => {
                    type_exprs(t, out);
                    out.extend(args.iter().map(Node::Expr));
                }
                ExprKind::StaticCall { template, args, .. } => {
                    template.iter().for_each(|t| type_exprs(t, out));
                    out.extend(args.iter().map(Node::Expr));
                }
                ExprKind::MethodCall {
                    receiver,
                    template,
                    args,
                    ..
                } => {
                    out.push(Node::Expr(receiver));
                    template.iter().for_each(|t| type_exprs(t, out));
                    out.extend(args.iter().map(Node::Expr));
                }
                ExprKind::Ternary(a, b, c) => {
                    out.extend([Node::Expr(a), Node::Expr(b), Node::Expr(c)])
                }
            },
        }
    }
}

/// The expressions a type holds (the flags of `RayQuery<FLAGS, QFLAGS>`,
/// also as an array's element type), as children of the node the type is
/// written in.
fn type_exprs<'a>(mut t: &'a Type, out: &mut Vec<Node<'a>>) {
    loop {
        match t {
            Type::RayQuery(flags, query_flags) => {
                out.push(Node::Expr(flags));
                out.extend(query_flags.iter().map(|q| Node::Expr(q)));
                return;
            }
            Type::Array(element, _) => t = element,
            _ => return,
        }
    }
}

/// Calls `f(node, depth)` on every statement and expression of a function
/// body, parents before children, with an explicit stack rather than
/// recursion, so that it is safe on a tree of any depth (one that did not
/// come from the parser).
pub fn walk<'a>(body: &'a Block, mut f: impl FnMut(Node<'a>, usize)) {
    let mut stack: Vec<(Node<'a>, usize)> = body
        .stmts
        .iter()
        .rev()
        .map(|s| (Node::Stmt(s), 1))
        .collect();
    let mut children = Vec::new();
    while let Some((node, depth)) = stack.pop() {
        f(node, depth);
        node.children(&mut children);
        stack.extend(children.drain(..).rev().map(|c| (c, depth + 1)));
    }
}

/// Calls `f` on every statement of a function body, in [`walk`]'s order,
/// without going into expressions (no statement sits inside one): for
/// scans of declarations.
pub fn statements<'a>(body: &'a Block, mut f: impl FnMut(&'a Stmt)) {
    let mut stack: Vec<&'a Stmt> = body.stmts.iter().rev().collect();
    let mut children = Vec::new();
    while let Some(s) = stack.pop() {
        f(s);
        Node::Stmt(s).children(&mut children);
        stack.extend(children.drain(..).rev().filter_map(|c| match c {
            Node::Stmt(s) => Some(s),
            Node::Expr(_) => None,
        }));
    }
}

/// The depth of the deepest node of a function body, and that node (none
/// for an empty body).
pub fn deepest(body: &Block) -> (usize, Option<Node<'_>>) {
    let mut out = (0, None);
    walk(body, |node, depth| {
        if depth > out.0 {
            out = (depth, Some(node));
        }
    });
    out
}

#[cfg(test)]
mod tests;
