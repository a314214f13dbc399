//! A [`Program`] as the case language: the raygeneration shader, and the
//! fixed shaders and records around it.
//!
//! Every read goes to its own slot of `Out` (uints) or `OutF` (floats),
//! numbered as the text is printed; thread `t` writes slots
//! `t * SLOTS + k`, so threads never write the same word. After the body,
//! every program reads the main facts of its hit objects and its payload.

use super::{Accessor, Construct, Program, Query, Reorder, Stmt, Trace, Wave, CONSTANTS, RECORDS};
use crate::dialect::{Dialect, Language};
use crate::ray::flags_expr;
use crate::scene::Facts;
use serde_json::{json, Value};
use std::fmt::Write;

/// The shaders around the raygeneration shader. Closest-hit shaders
/// record what they saw in the payload, miss shaders which record ran, the
/// any-hit shader ignores primitive 1, the intersection shader reports
/// one hit at `TMin + 1` plus a step per primitive, so that no two
/// candidates tie.
const SHADERS: &[&str] = &[
    "struct Payload { uint a; uint b; };",
    "RaytracingAccelerationStructure Scene : register(t0);",
    "RWStructuredBuffer<uint> Out : register(u0);",
    "RWStructuredBuffer<float> OutF : register(u1);",
    "[shader(\"closesthit\")]",
    "void CH0(inout Payload p, BuiltInTriangleIntersectionAttributes a) { p.a = p.a * 3 + 1000 + InstanceIndex() * 100 + GeometryIndex() * 10 + PrimitiveIndex(); p.b = HitKind(); }",
    "[shader(\"closesthit\")]",
    "void CH1(inout Payload p, BuiltInTriangleIntersectionAttributes a) { p.a = p.a * 3 + 2000 + InstanceID(); p.b = p.b + RayFlags(); }",
    "[shader(\"miss\")]",
    "void Miss0(inout Payload p) { p.a = p.a * 3 + 7; }",
    "[shader(\"miss\")]",
    "void Miss1(inout Payload p) { p.a = p.a * 3 + 8; p.b = RayFlags(); }",
    "[shader(\"anyhit\")]",
    "void AH(inout Payload p, BuiltInTriangleIntersectionAttributes a) { if (PrimitiveIndex() == 1) { IgnoreHit(); } }",
    "[shader(\"intersection\")]",
    "void IS() { BuiltInTriangleIntersectionAttributes a = (BuiltInTriangleIntersectionAttributes)0; ReportHit(RayTMin() + 1.03125 + (float)(InstanceIndex() * 4 + GeometryIndex() * 2 + PrimitiveIndex()) * 0.25, 3, a); }",
];

/// The shader table: `RECORDS` hit groups alternating CH0 and CH1 (every
/// other one with the any-hit shader) and `RECORDS` miss records
/// alternating Miss0 and Miss1, each with distinct local root constants.
/// Every generated case has the same one: made once, copied for each.
pub fn shader_table() -> Value {
    static TABLE: std::sync::LazyLock<Value> = std::sync::LazyLock::new(make_shader_table);
    TABLE.clone()
}

fn make_shader_table() -> Value {
    let constants = |r: u32| -> Vec<u32> { (1..=CONSTANTS).map(|c| r * 10 + c).collect() };
    let hit_groups: Vec<Value> = (0..RECORDS)
        .map(|r| {
            let mut g = json!({"closest_hit": format!("CH{}", r % 2), "intersection": "IS",
                               "local_root_constants": constants(r)});
            if r % 3 == 1 {
                g["any_hit"] = json!("AH");
            }
            g
        })
        .collect();
    let miss: Vec<Value> = (0..RECORDS)
        .map(|r| json!({"shader": format!("Miss{}", r % 2), "local_root_constants": constants(50 + r)}))
        .collect();
    json!({"hit_groups": hit_groups, "miss": miss})
}

/// The printed library and how many output slots each thread uses.
pub struct Printed {
    pub lines: Vec<String>,
    /// Words of `Out` per thread.
    pub slots: u32,
    /// Words of `OutF` per thread.
    pub float_slots: u32,
}

struct Printer<'a> {
    out: String,
    slots: u32,
    float_slots: u32,
    depth: usize,
    queries: u32,
    query_flags: &'static str,
    dialect: Dialect,
    scene: &'a Facts,
}

/// What printing needs besides the program: its dialect, the scene (for
/// the primitives a recorded hit names), and whether its ray queries may
/// meet a micromap. With `query_micromaps`, queries are declared
/// `RayQuery<RAY_FLAG_NONE, RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS>` (a form
/// of Shader Model 6.9), as a query that may meet a triangle with an
/// opacity micromap must be (`dxr.omm.inline.flag_omitted_undefined`).
pub struct Context<'a> {
    pub dialect: Dialect,
    pub scene: &'a Facts,
    pub query_micromaps: bool,
}

/// The program as a library.
pub fn print(program: &Program, cx: &Context) -> Printed {
    let mut p = Printer {
        out: String::new(),
        slots: 0,
        float_slots: 0,
        depth: 0,
        queries: 0,
        query_flags: if cx.query_micromaps {
            ", RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS"
        } else {
            ""
        },
        dialect: cx.dialect,
        scene: cx.scene,
    };
    for w in &program.waves {
        p.wave(*w);
    }
    for s in &program.body {
        p.stmt(s);
    }
    p.epilogue();
    let mut head = String::from("uint t = DispatchRaysIndex().x; Payload p; p.a = 0; p.b = 0;");
    if cx.dialect.ser {
        head += " HitObject h0; HitObject h1; HitObject h2;";
    }
    for (i, r) in program.rays.iter().enumerate() {
        head += " ";
        head += &r.desc_spread(&format!("r{i}"), Some("t"));
    }
    // Slot bases, known only once the body is printed.
    let (slots, float_slots) = (p.slots.max(1), p.float_slots.max(1));
    let bases = format!(" uint o = t * {slots}; uint of = t * {float_slots};");
    let mut lines: Vec<String> = SHADERS.iter().map(|s| s.to_string()).collect();
    lines.push("[shader(\"raygeneration\")]".into());
    lines.push(format!("void RayGen() {{ {head}{bases}{} }}", p.out));
    Printed {
        lines,
        slots,
        float_slots,
    }
}

fn trace_args(t: &Trace) -> String {
    format!(
        "Scene, {}, {:#x}, {}, {}, {}, r{}",
        flags_expr(t.flags),
        t.mask,
        t.contribution,
        t.multiplier,
        t.miss,
        t.ray
    )
}

/// An output slot as the text names it (`Out[o + 3]`), printed where it
/// is used rather than made into a string of its own.
#[derive(Clone, Copy)]
struct Slot {
    buffer: &'static str,
    base: &'static str,
    index: u32,
}

impl std::fmt::Display for Slot {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "{}[{} + {}]", self.buffer, self.base, self.index)
    }
}

impl Printer<'_> {
    fn slot(&mut self) -> Slot {
        self.slots += 1;
        Slot {
            buffer: "Out",
            base: "o",
            index: self.slots - 1,
        }
    }

    fn float_slot(&mut self) -> Slot {
        self.float_slots += 1;
        Slot {
            buffer: "OutF",
            base: "of",
            index: self.float_slots - 1,
        }
    }

    fn push(&mut self, s: &str) {
        self.out.push(' ');
        self.out.push_str(s);
    }

    /// [`Printer::push`] for formatted text, written straight into the
    /// output.
    fn put(&mut self, text: std::fmt::Arguments) {
        self.out.push(' ');
        self.out
            .write_fmt(text)
            .expect("writing to a String cannot fail");
    }

    fn block(&mut self, body: &[Stmt]) {
        self.push("{");
        self.depth += 1;
        for s in body {
            self.stmt(s);
        }
        self.depth -= 1;
        self.push("}");
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Construct { h, how } => self.construct(*h, how),
            Stmt::SetIndex { h, index, high } => {
                self.put(format_args!(
                    "h{h}.SetShaderTableIndex({:#x});",
                    index | high << 28
                ));
            }
            Stmt::Invoke(h) => self.put(format_args!("HitObject::Invoke(h{h}, p);")),
            Stmt::Reorder(r) => match r {
                Reorder::Object(h) => self.put(format_args!("MaybeReorderThread(h{h});")),
                Reorder::ObjectHint { h, hint, bits } => {
                    self.put(format_args!("MaybeReorderThread(h{h}, {hint:#x}, {bits});"))
                }
                Reorder::Hint { hint, bits } => {
                    self.put(format_args!("MaybeReorderThread({hint:#x}, {bits});"))
                }
            },
            Stmt::TraceRay(t) => self.put(format_args!("TraceRay({}, p);", trace_args(t))),
            Stmt::Read { h, accessor } => self.read(*h, *accessor),
            Stmt::LoadConstant { h, offset } => {
                let at = self.slot();
                // GLSL reads through the record's address, which an empty
                // object does not have (undefined; HLSL's NOP reads 0).
                if self.dialect.language.is_glsl() {
                    self.put(format_args!(
                        "if (!h{h}.IsNop()) {at} = h{h}.LoadLocalRootTableConstant({offset});"
                    ));
                } else {
                    self.put(format_args!(
                        "{at} = h{h}.LoadLocalRootTableConstant({offset});"
                    ));
                }
            }
            Stmt::ReadPayload => {
                let (a, b) = (self.slot(), self.slot());
                self.put(format_args!("{a} = p.a; {b} = p.b;"));
            }
            Stmt::SetPayload(v) => self.put(format_args!("p.a = {v};")),
            Stmt::Query(q) => self.query_reads(q),
            Stmt::IfHit { h, then, otherwise } => {
                self.put(format_args!("if (h{h}.IsHit())"));
                self.block(then);
                self.push("else");
                self.block(otherwise);
            }
            Stmt::IfThread { parity, then } => {
                self.put(format_args!("if ((t & 1) == {parity})"));
                self.block(then);
            }
            Stmt::Repeat { times, body } => {
                let j = self.depth;
                self.put(format_args!("for (uint j{j} = 0; j{j} < {times}; j{j}++)"));
                self.block(body);
            }
        }
    }

    fn wave(&mut self, w: Wave) {
        let at = self.slot();
        let e = match w {
            Wave::CountEvenThreads => "WaveActiveCountBits((t & 1) == 0)",
            Wave::ParityAllEqual => "WaveActiveAllEqual(t & 1) ? 1 : 0",
            Wave::FirstThread => "WaveReadLaneFirst(t)",
            Wave::IsFirstLane => "WaveIsFirstLane() ? 1 : 0",
        };
        self.put(format_args!("{at} = {e};"));
    }

    fn construct(&mut self, h: u8, how: &Construct) {
        let text = match how {
            Construct::Trace(t) => format!("h{h} = HitObject::TraceRay({}, p);", trace_args(t)),
            Construct::MakeMiss { flags, miss, ray } => format!(
                "h{h} = HitObject::MakeMiss({}, {miss:#x}, r{ray});",
                // NV's hitObjectRecordMissNV has no flags operand.
                if self.dialect.language == Language::GlslNv {
                    "0".into()
                } else {
                    flags_expr(*flags)
                }
            ),
            Construct::MakeNop => format!("h{h} = HitObject::MakeNop();"),
            Construct::Default => format!("{{ HitObject d; h{h} = d; }}"),
            Construct::Copy(from) => format!("h{h} = h{from};"),
            Construct::FromRayQuery {
                query,
                attributes,
                index,
            } => {
                let q = self.query(query);
                let n = self.queries;
                let attrs = |[u, v]: [u8; 2]| {
                    format!(
                        " BuiltInTriangleIntersectionAttributes qa{n}; qa{n}.barycentrics = float2({:?}, {:?});",
                        u as f32 / 8.0,
                        v as f32 / 8.0
                    )
                };
                let (attrs, from) = match (self.dialect.language, attributes) {
                    // GL_EXT's form takes a record index and attributes.
                    (Language::GlslExt, a) => (
                        attrs(a.unwrap_or([0, 0])),
                        format!("HitObject::RecordFromQuery({q}, {index}, qa{n})"),
                    ),
                    (_, None) => (String::new(), format!("HitObject::FromRayQuery({q})")),
                    (_, Some(a)) => (attrs(*a), format!("HitObject::FromRayQuery({q}, qa{n})")),
                };
                format!("{attrs} h{h} = {from}; }}")
            }
            Construct::MakeHit {
                instance,
                geometry,
                primitive,
                kind,
                offset,
                stride,
                index,
                ray,
                attributes: [u, v],
            } => {
                let hit = self.scene.pick(*instance, *geometry, *primitive);
                // A triangle's hit kind is its face; a box's is the
                // intersection shader's, below 128.
                let kind = if hit.triangles {
                    format!("{}", 0xFE + u32::from(*kind % 2))
                } else {
                    format!("{}", kind % 4)
                };
                let (i, g, p) = (hit.instance, hit.geometry, hit.primitive);
                let a = format!(
                    "{{ BuiltInTriangleIntersectionAttributes ha; ha.barycentrics = float2({:?}, {:?});",
                    *u as f32 / 8.0,
                    *v as f32 / 8.0
                );
                match index {
                    Some(x) => format!("{a} h{h} = HitObject::MakeHitWithIndex(Scene, {i}, {p}, {g}, {kind}, {x}, r{ray}, ha); }}"),
                    None => format!("{a} h{h} = HitObject::MakeHit(Scene, {i}, {p}, {g}, {kind}, {offset}, {stride}, r{ray}, ha); }}"),
                }
            }
        };
        self.push(&text);
    }

    /// Opens a block with a query `qN` traced to its end (committing
    /// procedural candidates when nothing is committed yet and, if the
    /// query says so, non-opaque triangles); returns its name. The caller
    /// closes the block.
    fn query(&mut self, query: &Query) -> String {
        self.queries += 1;
        let q = format!("q{}", self.queries);
        let Query {
            ray,
            flags,
            mask,
            triangles,
        } = query;
        let commit_triangles = if *triangles {
            format!(" else {{ {q}.CommitNonOpaqueTriangleHit(); }}")
        } else {
            String::new()
        };
        self.push(&format!(
            "{{ RayQuery<RAY_FLAG_NONE{}> {q}; {q}.TraceRayInline(Scene, {}, {mask:#x}, r{ray}); while ({q}.Proceed()) {{ if ({q}.CandidateType() == CANDIDATE_PROCEDURAL_PRIMITIVE) {{ if ({q}.CommittedStatus() == COMMITTED_NOTHING) {{ {q}.CommitProceduralPrimitiveHit(r{ray}.TMin + 0.5); }} }}{commit_triangles} }}",
            self.query_flags,
            flags_expr(*flags)
        ));
        q
    }

    /// A query's committed status, and what it committed.
    fn query_reads(&mut self, query: &Query) {
        let q = self.query(query);
        let status = self.slot();
        let (i, g, p, t) = (self.slot(), self.slot(), self.slot(), self.float_slot());
        self.push(&format!(
            "{status} = {q}.CommittedStatus(); if ({q}.CommittedStatus() != COMMITTED_NOTHING) {{ {i} = {q}.CommittedInstanceIndex(); {g} = {q}.CommittedGeometryIndex(); {p} = {q}.CommittedPrimitiveIndex(); {t} = {q}.CommittedRayT(); }} }}"
        ));
    }

    /// What every program writes last: the main facts of each live hit
    /// object and the payload, so that whatever the body did to them is
    /// seen (a body's own reads come and go as it shrinks).
    fn epilogue(&mut self) {
        const LAST: [Accessor; 6] = [
            Accessor::Bool("IsHit"),
            Accessor::Bool("IsMiss"),
            Accessor::Uint("GetShaderTableIndex"),
            Accessor::Uint("GetInstanceIndex"),
            Accessor::Uint("GetPrimitiveIndex"),
            Accessor::Float("GetRayTCurrent"),
        ];
        let objects = if self.dialect.ser {
            super::HIT_OBJECTS
        } else {
            0
        };
        for h in 0..objects {
            for a in LAST {
                self.read(h, a);
            }
        }
        self.stmt(&Stmt::ReadPayload);
    }

    fn read(&mut self, h: u8, accessor: Accessor) {
        match accessor {
            Accessor::Bool(name) => {
                let at = self.slot();
                self.put(format_args!("{at} = h{h}.{name}() ? 1 : 0;"));
            }
            Accessor::Uint(name) => {
                let at = self.slot();
                self.put(format_args!("{at} = h{h}.{name}();"));
            }
            Accessor::Float(name) => {
                let at = self.float_slot();
                self.put(format_args!("{at} = h{h}.{name}();"));
            }
            Accessor::Float3(name) => {
                self.put(format_args!("{{ float3 v = h{h}.{name}();"));
                for c in ["x", "y", "z"] {
                    let at = self.float_slot();
                    self.put(format_args!("{at} = v.{c};"));
                }
                self.push("}");
            }
            Accessor::Matrix(name) => {
                let (rows, cols) = if name.ends_with("3x4") {
                    (3, 4)
                } else {
                    (4, 3)
                };
                self.put(format_args!("{{ float{rows}x{cols} m = h{h}.{name}();"));
                for r in 0..rows {
                    for c in 0..cols {
                        let at = self.float_slot();
                        self.put(format_args!("{at} = m[{r}][{c}];"));
                    }
                }
                self.push("}");
            }
            Accessor::Barycentrics => {
                let (u, v) = (self.float_slot(), self.float_slot());
                self.put(format_args!("{{ float2 b = h{h}.GetAttributes<BuiltInTriangleIntersectionAttributes>().barycentrics; {u} = b.x; {v} = b.y; }}"));
            }
        }
    }
}
