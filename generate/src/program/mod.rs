//! Random raygeneration programs that use the SER API: every `HitObject`
//! constructor, every accessor, `SetShaderTableIndex`, `Invoke`,
//! `LoadLocalRootTableConstant`, `GetAttributes`, `MaybeReorderThread` in
//! its three overloads, classic `TraceRay`, `FromRayQuery` with and without
//! attributes, payload reads and writes, and control flow, over several live
//! hit objects and several threads.
//!
//! What a program may use depends on its [`crate::dialect::Dialect`]: the
//! forms of its profile's text and the capabilities of the backend under
//! test (without SER, programs trace with `TraceRay` and query inline).
//!
//! Wave operations ([`Wave`]) only where the reference explores the
//! packing of the dispatch into waves (no text says which threads share a
//! wave, `dxr.wave_intrinsics.allowed_for_tools`), and only those with few
//! legal results (no lane index or ballot, whose results span the wave).
//!
//! A program is data ([`Program`]), made by the strategies in [`strategy`]
//! (so proptest can shrink it) and printed as the case language by
//! [`print`]. Every program is valid by construction: record indices stay
//! inside the tables, flags never conflict, attributes have one type.

pub mod print;
pub mod strategy;

use crate::ray::Ray;

/// Live hit objects: `h0`, `h1`, `h2`.
pub const HIT_OBJECTS: u8 = 3;
/// Rays `r0`, `r1`, `r2` every program declares.
pub const RAYS: usize = 3;
/// Records in each of the hit-group and miss tables; every index a program
/// uses lies below this.
pub const RECORDS: u32 = 6;
/// Local root constants per record.
pub const CONSTANTS: u32 = 3;

#[derive(Clone, Debug, PartialEq)]
pub struct Program {
    /// Dispatch width: threads `0..threads` along x, in one wave.
    pub threads: u32,
    /// The rays `r0, r1, ...` (each thread's origin moves with its index).
    pub rays: Vec<Ray>,
    /// Wave operations before the body ([`Wave`]).
    pub waves: Vec<Wave>,
    pub body: Vec<Stmt>,
}

/// Arguments of a trace: `TraceRay(Scene, flags, mask, rc, mult, miss, r, p)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    pub ray: u8,
    pub flags: u32,
    pub mask: u8,
    /// Ray contribution to the hit-group index (4 bits are used).
    pub contribution: u32,
    /// Geometry multiplier (4 bits are used).
    pub multiplier: u32,
    /// Miss index (16 bits are used).
    pub miss: u32,
}

/// How a hit object gets its value.
#[derive(Clone, Debug, PartialEq)]
pub enum Construct {
    /// `HitObject::TraceRay(...)`.
    Trace(Trace),
    /// `HitObject::MakeMiss(flags, miss, r)`.
    MakeMiss { flags: u32, miss: u32, ray: u8 },
    /// `HitObject::MakeNop()`.
    MakeNop,
    /// A default-initialized `HitObject` (a NOP).
    Default,
    /// A copy of another live hit object (value semantics).
    Copy(u8),
    /// A query traced inline to its end ([`Query`]), then
    /// `HitObject::FromRayQuery`, with attributes (barycentrics) when
    /// `attributes` is set. GL_EXT's `hitObjectRecordFromQueryEXT` takes a
    /// record index (`index`) and always attributes (zero when unset).
    FromRayQuery {
        query: Query,
        attributes: Option<[u8; 2]>,
        index: u32,
    },
    /// GL_NV's `hitObjectRecordHit[WithIndex]NV`: a hit on a primitive the
    /// program names without tracing. The selectors pick an instance, a
    /// geometry of its structure and a primitive of that geometry from the
    /// case's scene when the program is printed (modulo their counts), so
    /// that the program and the scene shrink independently; `kind` picks a
    /// front or back face for a triangle, a kind below 4 for a box.
    MakeHit {
        instance: u8,
        geometry: u8,
        primitive: u8,
        kind: u8,
        /// `sbtRecordOffset` and `sbtRecordStride`, or with `Some(index)`
        /// the `WithIndex` form's record index.
        offset: u32,
        stride: u32,
        index: Option<u32>,
        ray: u8,
        attributes: [u8; 2],
    },
}

/// Wave operations at the top of the raygeneration shader, on operands
/// from the dispatch index alone. The reference explores the packing of
/// the dispatch into waves (`reference/src/exec/packing.rs`) as a choice
/// of each thread's result; it ties different threads' results together
/// only where they come before any other implementation choice and depend
/// on nothing but the dispatch index, so generated programs put them
/// there. Each has at most as many legal results as the dispatch has
/// threads (no lane index or ballot, whose results span the wave).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wave {
    /// `WaveActiveCountBits((t & 1) == 0)`.
    CountEvenThreads,
    /// `WaveActiveAllEqual(t & 1)`, written as 1 or 0.
    ParityAllEqual,
    /// `WaveReadLaneFirst(t)`.
    FirstThread,
    /// `WaveIsFirstLane()`, written as 1 or 0.
    IsFirstLane,
}

/// A `RayQuery` traced inline to its end, committing procedural
/// candidates (when nothing is committed yet) and, if `triangles`,
/// non-opaque triangles.
#[derive(Clone, Debug, PartialEq)]
pub struct Query {
    pub ray: u8,
    pub flags: u32,
    pub mask: u8,
    pub triangles: bool,
}

/// The three overloads of `MaybeReorderThread`.
#[derive(Clone, Debug, PartialEq)]
pub enum Reorder {
    Object(u8),
    ObjectHint { h: u8, hint: u32, bits: u32 },
    Hint { hint: u32, bits: u32 },
}

/// Hit-object accessors, by what they return.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accessor {
    /// `IsHit`, `IsMiss`, `IsNop`, written as 1 or 0.
    Bool(&'static str),
    /// A `uint` accessor.
    Uint(&'static str),
    /// A `float` accessor.
    Float(&'static str),
    /// A `float3` accessor.
    Float3(&'static str),
    /// A matrix accessor, `3x4` or `4x3`.
    Matrix(&'static str),
    /// `GetAttributes<BuiltInTriangleIntersectionAttributes>().barycentrics`.
    Barycentrics,
}

pub const ACCESSORS: &[Accessor] = &[
    Accessor::Bool("IsHit"),
    Accessor::Bool("IsMiss"),
    Accessor::Bool("IsNop"),
    Accessor::Uint("GetRayFlags"),
    Accessor::Float("GetRayTMin"),
    Accessor::Float("GetRayTCurrent"),
    Accessor::Float3("GetWorldRayOrigin"),
    Accessor::Float3("GetWorldRayDirection"),
    Accessor::Float3("GetObjectRayOrigin"),
    Accessor::Float3("GetObjectRayDirection"),
    Accessor::Matrix("GetObjectToWorld3x4"),
    Accessor::Matrix("GetObjectToWorld4x3"),
    Accessor::Matrix("GetWorldToObject3x4"),
    Accessor::Matrix("GetWorldToObject4x3"),
    Accessor::Uint("GetInstanceIndex"),
    Accessor::Uint("GetInstanceID"),
    Accessor::Uint("GetGeometryIndex"),
    Accessor::Uint("GetPrimitiveIndex"),
    Accessor::Uint("GetHitKind"),
    Accessor::Uint("GetShaderTableIndex"),
    Accessor::Barycentrics,
];

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `hN = ...`.
    Construct {
        h: u8,
        how: Construct,
    },
    /// `hN.SetShaderTableIndex(index | high << 28)`: the high bits are
    /// dropped for hits (28 bits kept) and misses (16 bits kept) alike.
    SetIndex {
        h: u8,
        index: u32,
        high: u32,
    },
    /// `HitObject::Invoke(hN, p)`.
    Invoke(u8),
    Reorder(Reorder),
    /// Classic `TraceRay(...)` with the payload.
    TraceRay(Trace),
    /// An accessor of `hN` into the output buffers.
    Read {
        h: u8,
        accessor: Accessor,
    },
    /// `hN.LoadLocalRootTableConstant(offset)` into `Out`.
    LoadConstant {
        h: u8,
        offset: u32,
    },
    /// The payload's fields into `Out`.
    ReadPayload,
    /// `p.a = value`.
    SetPayload(u32),
    /// A [`Query`], then its committed status and, when it committed
    /// something, the committed instance, geometry, primitive and `t` into
    /// the output buffers.
    Query(Query),
    /// `if (hN.IsHit()) { .. } else { .. }`.
    IfHit {
        h: u8,
        then: Vec<Stmt>,
        otherwise: Vec<Stmt>,
    },
    /// `if ((t & 1) == parity) { .. }`: threads diverge.
    IfThread {
        parity: u32,
        then: Vec<Stmt>,
    },
    /// `for (uint jD = 0; jD < times; jD++) { .. }`.
    Repeat {
        times: u32,
        body: Vec<Stmt>,
    },
}

/// Calls `f` on every statement of `body`, nested ones included, outermost
/// first.
pub fn each_stmt(body: &[Stmt], f: &mut impl FnMut(&Stmt)) {
    for s in body {
        f(s);
        match s {
            Stmt::IfHit {
                then, otherwise, ..
            } => {
                each_stmt(then, f);
                each_stmt(otherwise, f);
            }
            Stmt::IfThread { then: b, .. } | Stmt::Repeat { body: b, .. } => each_stmt(b, f),
            _ => {}
        }
    }
}

impl Program {
    /// Whether the program traces a `RayQuery`.
    pub fn uses_ray_query(&self) -> bool {
        let mut uses = false;
        each_stmt(&self.body, &mut |s| {
            uses |= matches!(
                s,
                Stmt::Construct {
                    how: Construct::FromRayQuery { .. },
                    ..
                } | Stmt::Query(_)
            );
        });
        uses
    }

    /// Whether the program needs Shader Model 6.9 (a flag only it defines).
    pub fn needs_sm69(&self) -> bool {
        use ser_lang::names::ray_flag::FORCE_OPACITY_MICROMAP_2_STATE as OMM;
        let mut needs = false;
        each_stmt(&self.body, &mut |s| {
            needs |= match s {
                Stmt::Construct {
                    how: Construct::Trace(t),
                    ..
                }
                | Stmt::TraceRay(t) => t.flags & OMM != 0,
                Stmt::Construct {
                    how:
                        Construct::FromRayQuery {
                            query: Query { flags, .. },
                            ..
                        }
                        | Construct::MakeMiss { flags, .. },
                    ..
                }
                | Stmt::Query(Query { flags, .. }) => flags & OMM != 0,
                _ => false,
            }
        });
        needs
    }

    /// How many statements the program has, nested ones included.
    pub fn statements(&self) -> usize {
        let mut n = 0;
        each_stmt(&self.body, &mut |_| n += 1);
        n
    }
}
