//! `HitObject`: a value that encodes a hit, a miss, or nothing (NOP), and
//! its accessors.
//!
//! One function per accessor, each with the results the spec gives for hit,
//! miss and NOP objects. Under the Vulkan profiles the HLSL defaults for
//! non-hits (zeros, identity-like matrices, the world ray as object ray) do
//! not hold; those results are reported as unspecified there.

use crate::mutation::{self, Mutation};
use crate::outcome::{Fault, FaultCode};
use crate::profile::Profile;
use crate::ray::{Ray, RayTime};
use crate::sbt::{HIT_GROUP_INDEX_MASK, MISS_INDEX_MASK};
use crate::value::{Scalar, Value};
use ser_lang::ast::ScalarType;
use ser_lang::names::ray_flag;

/// A hit object. The type makes the three encodings exclusive
/// (`ser.hit_object.is_nop.true_only_for_nop`).
#[derive(Clone, Debug, Default, PartialEq)]
pub enum HitObject {
    /// Neither a hit nor a miss (`ser.hit_object.make_nop.neither_hit_nor_miss`).
    #[default]
    Nop,
    Miss(Box<Miss>),
    Hit(Box<Hit>),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Miss {
    pub ray: Ray,
    /// Miss-table record index, 16 bits.
    pub index: u32,
}

/// A 3x4 matrix of floats, row-major.
pub type Matrix34 = [[Scalar; 4]; 3];

#[derive(Clone, Debug, PartialEq)]
pub struct Hit {
    pub ray: Ray,
    /// `RayTCurrent` of the committed hit.
    pub t: Scalar,
    pub instance_index: u32,
    pub instance_id: u32,
    pub geometry_index: u32,
    pub primitive_index: u32,
    pub hit_kind: Scalar,
    pub object_to_world: Matrix34,
    pub world_to_object: Matrix34,
    pub object_origin: [Scalar; 3],
    pub object_direction: [Scalar; 3],
    /// The committed attributes, a struct value.
    pub attributes: Value,
    /// Hit-group record index; `None` for an object made by
    /// `HitObject::FromRayQuery` before `SetShaderTableIndex`.
    pub index: Option<u32>,
    /// Recorded from a ray query with a record index
    /// (`hitObjectRecordFromQueryEXT`) and no index set since: GL_EXT says
    /// both that the index is "the record index of the hit shader ... to be
    /// encoded in the hit object" and that executing such an object calls
    /// no shader, so executing it may do either
    /// (`glsl_ext.hit_object_execute_shader.empty_or_unset_query_no_shader`).
    pub from_query: bool,
}

/// The ray flags a profile defines. Shader Model 6.9 adds
/// `RAY_FLAG_FORCE_OPACITY_MICROMAP_2_STATE`.
pub fn defined_ray_flags(profile: Profile) -> u32 {
    match profile {
        Profile::Sm69 | Profile::VulkanExt | Profile::VulkanNv => {
            ray_flag::DEFINED_0027 | ray_flag::FORCE_OPACITY_MICROMAP_2_STATE
        }
        _ => ray_flag::DEFINED_0027,
    }
}

/// In HLSL, ray flags the profile does not define are undefined behaviour:
/// "Presence of unknown flags results in undefined behavior"
/// (`dxr.trace_ray.ray_flags.unknown_flags_undefined`, `clause` for the
/// call: `TraceRayInline` states it again, and `MakeMiss` takes a "Valid
/// combination of Ray flags as specified by TraceRay",
/// `dxr.hit_object.make_miss.ray_flags_valid_combination`). So a valid
/// program passes defined flags only, and "Only defined ray flags are
/// propagated" leaves nothing to drop. The GLSL texts state no such rule.
pub fn check_known_ray_flags(flags: u32, profile: Profile, clause: &str) -> Result<(), Fault> {
    let unknown = flags & !defined_ray_flags(profile);
    if unknown == 0 || !profile.is_hlsl() {
        return Ok(());
    }
    Err(Fault::new(
        FaultCode::InvalidFlags,
        format!("ray flags {flags:#x} hold bits no RAY_FLAG of {profile} defines: {unknown:#x}"),
    )
    .clause(clause))
}

/// The bits of a record index a hit object keeps, `(hit group, miss)`. The
/// HLSL texts keep the low 16 bits of a miss index
/// (`ser.hit_object.make_miss.miss_index_low_16_bits`) and the low 28 of
/// a hit-group index set later
/// (`ser.hit_object.set_shader_table_index.hit_low_28_bits`); the GLSL
/// texts state no masking: the index is kept "as encoded"
/// (`glsl_nv.hit_object_record_miss.sbt_record_index`,
/// `glsl_ext.hit_object_set_sbt_record_index.sets_index`, whose
/// counterparts in `spec-map/` record the difference).
fn index_masks(profile: Profile) -> (u32, u32) {
    if profile.is_hlsl() {
        (HIT_GROUP_INDEX_MASK, MISS_INDEX_MASK)
    } else {
        (u32::MAX, u32::MAX)
    }
}

/// `HitObject::MakeMiss`: a miss without tracing a ray
/// (`ser.hit_object.make_miss.constructs_miss`), keeping the bits of the
/// miss index `profile` keeps ([`index_masks`]). Whether the flags are
/// known and the record exists is checked by the caller.
pub fn make_miss(flags: u32, miss_index: u32, mut ray: Ray, profile: Profile) -> HitObject {
    ray.flags = flags;
    let index = if mutation::active(Mutation::MakeMissIndexUnmasked) {
        miss_index
    } else {
        miss_index & index_masks(profile).1
    };
    HitObject::Miss(Box::new(Miss { ray, index }))
}

/// The 3x4 matrix with ones on the diagonal that non-hits return
/// (`ser.hit_object.get_object_to_world_3x4.non_hit_identity`).
pub fn identity_3x4() -> Matrix34 {
    let one = if mutation::active(Mutation::NonHitMatrixZero) {
        0.0
    } else {
        1.0
    };
    std::array::from_fn(|r| std::array::from_fn(|c| Scalar::float(if r == c { one } else { 0.0 })))
}

pub(crate) fn matrix_3x4(m: &Matrix34) -> Value {
    Value::Matrix {
        rows: 3,
        cols: 4,
        elems: m.iter().flatten().cloned().collect(),
    }
}

/// The 4x3 form is the transpose of the 3x4 form
/// (`ser.hit_object.get_object_to_world_4x3.transpose_of_object_to_world_3x4`).
pub(crate) fn matrix_4x3(m: &Matrix34) -> Value {
    if mutation::active(Mutation::Matrix4x3NotTransposed) {
        let elems = m.iter().flatten().cloned().collect();
        return Value::Matrix {
            rows: 4,
            cols: 3,
            elems,
        };
    }
    Value::Matrix {
        rows: 4,
        cols: 3,
        elems: (0..4)
            .flat_map(|c| (0..3).map(move |r| m[r][c].clone()))
            .collect(),
    }
}

fn zero3() -> Value {
    Value::float3([Scalar::float(0.0), Scalar::float(0.0), Scalar::float(0.0)])
}

fn vec3(v: &[Scalar; 3]) -> Value {
    Value::Vector(v.to_vec())
}

impl HitObject {
    /// `ser.hit_object.is_miss.true_for_miss`, `ser.hit_object.is_miss.false_for_hit_or_nop`
    pub fn is_miss(&self) -> bool {
        matches!(self, HitObject::Miss(_))
    }

    /// `ser.hit_object.is_hit.true_for_hit`, `ser.hit_object.is_hit.false_for_miss_or_nop`
    pub fn is_hit(&self) -> bool {
        matches!(self, HitObject::Hit(_))
    }

    /// `ser.hit_object.is_nop.true_only_for_nop`
    pub fn is_nop(&self) -> bool {
        matches!(self, HitObject::Nop)
    }

    pub fn ray(&self) -> Option<&Ray> {
        match self {
            HitObject::Nop => None,
            HitObject::Miss(m) => Some(&m.ray),
            HitObject::Hit(h) => Some(&h.ray),
        }
    }

    /// A result the HLSL profiles define for a non-hit, and the Vulkan
    /// profiles leave undefined.
    fn non_hit(&self, profile: Profile, hlsl: Value, accessor: &str) -> Value {
        if profile.defines_non_hit_accessors() {
            return hlsl;
        }
        let kind = if self.is_nop() {
            "an empty (NOP)"
        } else {
            "a miss"
        };
        let reason = format!("{profile} leaves {accessor} on {kind} hit object undefined");
        crate::value::unspecify(hlsl, &reason)
    }

    /// `ser.hit_object.get_ray_flags.returns_ray_flags`,
    /// `ser.hit_object.get_ray_flags.nop_returns_zero`
    pub fn get_ray_flags(&self, p: Profile) -> Value {
        match self.ray() {
            Some(r) => Value::uint(r.flags),
            None => {
                let flags = if mutation::active(Mutation::NopRayFlagsNonzero) {
                    ray_flag::FORCE_OPAQUE
                } else {
                    0
                };
                self.non_hit(p, Value::uint(flags), "GetRayFlags")
            }
        }
    }

    /// `ser.hit_object.get_ray_tmin.returns_tmin`,
    /// `ser.hit_object.get_ray_tmin.nop_returns_zero`
    pub fn get_ray_tmin(&self, p: Profile) -> Value {
        match self.ray() {
            Some(r) => Value::Scalar(r.tmin.clone()),
            None => {
                let zero = if mutation::active(Mutation::NopRayTminOne) {
                    1.0
                } else {
                    0.0
                };
                self.non_hit(p, Value::float(zero), "GetRayTMin")
            }
        }
    }

    /// `ser.hit_object.get_ray_tcurrent.returns_tcurrent`,
    /// `ser.hit_object.get_ray_tcurrent.miss_returns_tmax`,
    /// `ser.hit_object.get_ray_tcurrent.nop_returns_zero`
    pub fn get_ray_tcurrent(&self, p: Profile) -> Value {
        match self {
            HitObject::Hit(h) => Value::Scalar(h.t.clone()),
            HitObject::Miss(_) if mutation::active(Mutation::MissTCurrentZero) => Value::float(0.0),
            HitObject::Miss(m) => Value::Scalar(m.ray.tmax.clone()),
            HitObject::Nop => self.non_hit(p, Value::float(0.0), "GetRayTCurrent"),
        }
    }

    /// `ser.hit_object.get_world_ray_origin.returns_origin`,
    /// `ser.hit_object.get_world_ray_origin.nop_returns_zero`
    pub fn get_world_ray_origin(&self, p: Profile) -> Value {
        match self.ray() {
            Some(r) => vec3(&r.origin),
            None => self.non_hit(p, zero3(), "GetWorldRayOrigin"),
        }
    }

    /// `ser.hit_object.get_world_ray_direction.returns_direction`,
    /// `ser.hit_object.get_world_ray_direction.nop_returns_zero`
    pub fn get_world_ray_direction(&self, p: Profile) -> Value {
        match self.ray() {
            Some(r) => vec3(&r.direction),
            None => self.non_hit(p, zero3(), "GetWorldRayDirection"),
        }
    }

    /// `ser.hit_object.get_object_ray_origin.returns_origin`,
    /// `ser.hit_object.get_object_ray_origin.miss_returns_world_origin`,
    /// `ser.hit_object.get_object_ray_origin.nop_returns_zero`
    pub fn get_object_ray_origin(&self, p: Profile) -> Value {
        match self {
            HitObject::Hit(h) => vec3(&h.object_origin),
            HitObject::Miss(_) if mutation::active(Mutation::MissObjectOriginZero) => zero3(),
            HitObject::Miss(m) => self.non_hit(p, vec3(&m.ray.origin), "GetObjectRayOrigin"),
            HitObject::Nop => self.non_hit(p, zero3(), "GetObjectRayOrigin"),
        }
    }

    /// `ser.hit_object.get_object_ray_direction.returns_direction`,
    /// `ser.hit_object.get_object_ray_direction.miss_returns_world_direction`,
    /// `ser.hit_object.get_object_ray_direction.nop_returns_zero`
    pub fn get_object_ray_direction(&self, p: Profile) -> Value {
        match self {
            HitObject::Hit(h) => vec3(&h.object_direction),
            HitObject::Miss(_) if mutation::active(Mutation::MissObjectDirectionZero) => zero3(),
            HitObject::Miss(m) => self.non_hit(p, vec3(&m.ray.direction), "GetObjectRayDirection"),
            HitObject::Nop => self.non_hit(p, zero3(), "GetObjectRayDirection"),
        }
    }

    fn object_to_world(&self) -> Option<&Matrix34> {
        match self {
            HitObject::Hit(h) => Some(&h.object_to_world),
            _ => None,
        }
    }

    fn world_to_object(&self) -> Option<&Matrix34> {
        if mutation::active(Mutation::WorldToObjectIsObjectToWorld) {
            return self.object_to_world();
        }
        match self {
            HitObject::Hit(h) => Some(&h.world_to_object),
            _ => None,
        }
    }

    /// `ser.hit_object.get_object_to_world_3x4.returns_matrix`,
    /// `ser.hit_object.get_object_to_world_3x4.non_hit_identity`
    pub fn get_object_to_world_3x4(&self, p: Profile) -> Value {
        match self.object_to_world() {
            Some(m) => matrix_3x4(m),
            None => self.non_hit(p, matrix_3x4(&identity_3x4()), "GetObjectToWorld3x4"),
        }
    }

    /// `ser.hit_object.get_object_to_world_4x3.returns_matrix`,
    /// `ser.hit_object.get_object_to_world_4x3.non_hit_identity`,
    /// `ser.hit_object.get_object_to_world_4x3.transpose_of_object_to_world_3x4`
    pub fn get_object_to_world_4x3(&self, p: Profile) -> Value {
        match self.object_to_world() {
            Some(m) => matrix_4x3(m),
            None => self.non_hit(p, matrix_4x3(&identity_3x4()), "GetObjectToWorld4x3"),
        }
    }

    /// `ser.hit_object.get_world_to_object_3x4.returns_matrix`,
    /// `ser.hit_object.get_world_to_object_3x4.non_hit_identity`
    pub fn get_world_to_object_3x4(&self, p: Profile) -> Value {
        match self.world_to_object() {
            Some(m) => matrix_3x4(m),
            None => self.non_hit(p, matrix_3x4(&identity_3x4()), "GetWorldToObject3x4"),
        }
    }

    /// `ser.hit_object.get_world_to_object_4x3.returns_matrix`,
    /// `ser.hit_object.get_world_to_object_4x3.non_hit_identity`,
    /// `ser.hit_object.get_world_to_object_4x3.transpose_of_world_to_object_3x4`
    pub fn get_world_to_object_4x3(&self, p: Profile) -> Value {
        match self.world_to_object() {
            Some(m) => matrix_4x3(m),
            None => self.non_hit(p, matrix_4x3(&identity_3x4()), "GetWorldToObject4x3"),
        }
    }

    fn hit_uint(&self, p: Profile, field: impl Fn(&Hit) -> u32, accessor: &str) -> Value {
        match self {
            HitObject::Hit(h) => Value::uint(field(h)),
            _ => self.non_hit(p, Value::uint(0), accessor),
        }
    }

    /// `ser.hit_object.get_instance_index.returns_value`,
    /// `ser.hit_object.get_instance_index.non_hit_returns_zero`
    pub fn get_instance_index(&self, p: Profile) -> Value {
        self.hit_uint(p, |h| h.instance_index, "GetInstanceIndex")
    }

    /// `ser.hit_object.get_instance_id.returns_value`,
    /// `ser.hit_object.get_instance_id.non_hit_returns_zero`
    pub fn get_instance_id(&self, p: Profile) -> Value {
        if mutation::active(Mutation::InstanceIdIsIndex) {
            return self.get_instance_index(p);
        }
        self.hit_uint(p, |h| h.instance_id, "GetInstanceID")
    }

    /// `ser.hit_object.get_geometry_index.returns_value`,
    /// `ser.hit_object.get_geometry_index.non_hit_returns_zero`
    pub fn get_geometry_index(&self, p: Profile) -> Value {
        self.hit_uint(p, |h| h.geometry_index, "GetGeometryIndex")
    }

    /// `ser.hit_object.get_primitive_index.returns_value`,
    /// `ser.hit_object.get_primitive_index.non_hit_returns_zero`
    pub fn get_primitive_index(&self, p: Profile) -> Value {
        self.hit_uint(p, |h| h.primitive_index, "GetPrimitiveIndex")
    }

    /// `ser.hit_object.get_hit_kind.returns_hit_kind`,
    /// `ser.hit_object.get_hit_kind.non_hit_returns_zero`
    pub fn get_hit_kind(&self, p: Profile) -> Value {
        match self {
            HitObject::Hit(h) => Value::Scalar(h.hit_kind.clone()),
            _ => self.non_hit(p, Value::uint(0), "GetHitKind"),
        }
    }

    /// `ser.hit_object.get_shader_table_index.returns_index`,
    /// `ser.hit_object.get_shader_table_index.hit_relates_to_hit_group_table`,
    /// `ser.hit_object.get_shader_table_index.miss_relates_to_miss_table`,
    /// `ser.hit_object.get_shader_table_index.nop_or_unset_query_zero`
    pub fn get_shader_table_index(&self, p: Profile) -> Value {
        match self {
            HitObject::Hit(h) => match h.index {
                Some(i) => Value::uint(i),
                None => Value::uint(0),
            },
            HitObject::Miss(m) => Value::uint(m.index),
            HitObject::Nop => self.non_hit(p, Value::uint(0), "GetShaderTableIndex"),
        }
    }

    /// GLSL's `hitObjectGetCurrentTime*`: "Returns the current time as
    /// encoded in the hit object" (`glsl_nv.hit_object_get_current_time.returns_time`),
    /// "Only applicable if hit object was constructed for
    /// hitObjectTraceRayMotionNV" (`glsl_nv.hit_object_get_current_time.motion_trace_only`):
    /// the time of a motion trace; for any other hit object the texts give
    /// no value.
    pub fn get_current_time(&self) -> Value {
        match self.ray().map(|r| &r.time) {
            Some(RayTime::Traced(t)) => Value::Scalar(t.clone()),
            _ => Value::Scalar(Scalar::unspecified(
                ScalarType::Float,
                "hitObjectGetCurrentTime is only applicable to a hit object made by a motion trace",
            )),
        }
    }

    /// `ser.hit_object.set_shader_table_index.sets_index`: under HLSL a hit
    /// keeps the bottom 28 bits (`ser.hit_object.set_shader_table_index.hit_low_28_bits`),
    /// a miss the low 16 (`ser.hit_object.set_shader_table_index.miss_low_16_bits`);
    /// GL_EXT keeps every bit ([`index_masks`]); a NOP ignores the value
    /// (`ser.hit_object.set_shader_table_index.nop_ignored`).
    pub fn set_shader_table_index(&mut self, index: u32, profile: Profile) {
        let (hit, miss) = index_masks(profile);
        match self {
            HitObject::Hit(h) if mutation::active(Mutation::HitIndexMasked16) => {
                h.index = Some(index & MISS_INDEX_MASK)
            }
            HitObject::Hit(h) => {
                h.index = Some(index & hit);
                h.from_query = false;
            }
            HitObject::Miss(m) if mutation::active(Mutation::MissIndexMasked28) => {
                m.index = index & HIT_GROUP_INDEX_MASK
            }
            HitObject::Miss(m) => m.index = index & miss,
            HitObject::Nop if mutation::active(Mutation::NopSetIndexNotIgnored) => {
                *self = make_miss(0, index, Ray::zero(), profile)
            }
            HitObject::Nop => {}
        }
    }

    /// The record `Invoke`, `LoadLocalRootTableConstant` and reordering use:
    /// none for a NOP or a ray-query hit without an index
    /// (`ser.hit_object.invoke.nop_or_unset_query_not_invoked`).
    pub fn record(&self) -> Option<(crate::sbt::Table, u32)> {
        match self {
            HitObject::Hit(h) => h.index.map(|i| (crate::sbt::Table::HitGroup, i)),
            HitObject::Miss(m) => Some((crate::sbt::Table::Miss, m.index)),
            HitObject::Nop => None,
        }
    }
}

/// The GLSL texts' hits made without tracing a ray
/// (`glsl_nv.hit_object_record_hit.populates_hit`): the named instance,
/// geometry and primitive of the scene, the given ray, hit kind,
/// attributes and hit-group record. "It is legal to construct a hit which
/// is not the closest hit along the ray or a hit which is not located along
/// the ray" (`glsl_nv.hit_object_record_hit.any_hit_legal`), so nothing is
/// tested against the ray; the hit's `t` is the ray's `Tmax`, the value
/// `hitObjectGetRayTMaxNV` reads. Indices out of bounds are undefined
/// (`glsl_nv.hit_object_record_hit.instance_id_out_of_bounds`, ...).
pub struct RecordedHit {
    pub instance: u32,
    pub primitive: u32,
    pub geometry: u32,
    pub hit_kind: u32,
    pub record: u32,
    pub ray: Ray,
    pub attributes: Value,
}

pub fn record_hit(
    scene: &crate::scene::Scene,
    r: RecordedHit,
    clause_prefix: &str,
) -> Result<HitObject, Fault> {
    let out_of_bounds = |what: &str, v: u32, n: usize, rule: &str| {
        Fault::new(
            FaultCode::InvalidValue,
            format!("{what} {} is outside 0..{n}", v as i32),
        )
        .clause(&format!("{clause_prefix}.{rule}"))
    };
    let n = scene.instances.len();
    let Some(inst) = scene.instances.get(r.instance as usize) else {
        return Err(out_of_bounds(
            "instance",
            r.instance,
            n,
            "instance_id_out_of_bounds",
        ));
    };
    let geometries = &scene.blas[inst.blas].geometries;
    let Some(geometry) = geometries.get(r.geometry as usize) else {
        return Err(out_of_bounds(
            "geometry index",
            r.geometry,
            geometries.len(),
            "geometry_index_out_of_bounds",
        ));
    };
    if r.primitive as usize >= geometry.primitives.len() {
        return Err(out_of_bounds(
            "primitive index",
            r.primitive,
            geometry.primitives.len(),
            "primitive_id_out_of_bounds",
        ));
    }
    let space = crate::traversal::instance_space(scene, r.instance as usize, &r.ray)?;
    Ok(HitObject::Hit(Box::new(Hit {
        t: r.ray.tmax.clone(),
        ray: r.ray,
        instance_index: r.instance,
        instance_id: inst.instance_id,
        geometry_index: r.geometry,
        primitive_index: r.primitive,
        hit_kind: Scalar::uint(r.hit_kind),
        object_to_world: space.object_to_world,
        world_to_object: space.world_to_object,
        object_origin: space.origin,
        object_direction: space.direction,
        attributes: r.attributes,
        index: Some(r.record),
        from_query: false,
    })))
}
