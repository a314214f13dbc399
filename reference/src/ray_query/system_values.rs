//! The values a `RayQuery` reads: the ray's ("Ray system values",
//! available after `TraceRayInline` in every state) and those of a hit, the
//! current candidate's (`Candidate*`) or the closest committed one's
//! (`Committed*`): "Primitive/object space system values" and "Hit specific
//! system values".

use super::states::{committed_unavailable, unavailable};
use super::{QueryState, RayQuery};
use crate::hit_object::{matrix_3x4, matrix_4x3};
use crate::outcome::Fault;
use crate::scene::Scene;
use crate::traversal::{self, Candidate, CandidateKind};
use crate::value::Value;

/// The values of a hit, by the method's name after `Candidate` or
/// `Committed`.
const HIT_VALUES: &[&str] = &[
    "InstanceIndex",
    "InstanceID",
    "InstanceContributionToHitGroupIndex",
    "GeometryIndex",
    "PrimitiveIndex",
    "ObjectRayOrigin",
    "ObjectRayDirection",
    "ObjectToWorld3x4",
    "ObjectToWorld4x3",
    "WorldToObject3x4",
    "WorldToObject4x3",
    "TriangleBarycentrics",
    "TriangleFrontFace",
];

impl RayQuery {
    /// A method that reads a value, or `None` if `method` is not one.
    pub fn read(&mut self, scene: &Scene, method: &str) -> Result<Option<Value>, Fault> {
        if let Some(v) = self.ray_value(method)? {
            return Ok(Some(v));
        }
        let (hit, name) = if let Some(name) = method.strip_prefix("Candidate") {
            (self.current()?.1, name)
        } else if let Some(name) = method.strip_prefix("Committed") {
            if !HIT_VALUES.contains(&name) {
                return Ok(None);
            }
            let status = self.committed_status()?;
            match self.committed_candidate()? {
                Some(c) => (c, name),
                None => return Err(committed_unavailable(name, status)),
            }
        } else {
            return Ok(None);
        };
        if !HIT_VALUES.contains(&name) {
            return Ok(None);
        }
        let st = self.state()?;
        match hit_value(scene, st, &hit, name) {
            Some(v) => Ok(Some(v)),
            None if method.starts_with("Committed") => {
                Err(committed_unavailable(name, self.committed_status()?))
            }
            None => Err(unavailable(format!(
                "{method} on a procedural primitive candidate"
            ))),
        }
    }

    /// `RayFlags` (the template flags OR'd with the dynamic ones,
    /// `dxr.ray_query.ray_flags.template_or_dynamic`), `WorldRayOrigin`
    /// (`dxr.ray_query.world_ray_origin.value`), `WorldRayDirection`
    /// (`dxr.ray_query.world_ray_direction.value`) and `RayTMin`, constant
    /// for the trace (`dxr.ray_query.ray_tmin.constant_for_call`).
    fn ray_value(&mut self, method: &str) -> Result<Option<Value>, Fault> {
        let is_ray_value = matches!(
            method,
            "RayFlags" | "WorldRayOrigin" | "WorldRayDirection" | "RayTMin"
        );
        if !is_ray_value {
            return Ok(None);
        }
        let ray = &self.state()?.ray;
        Ok(Some(match method {
            "RayFlags" => Value::uint(ray.flags),
            "WorldRayOrigin" => Value::Vector(ray.origin.to_vec()),
            "WorldRayDirection" => Value::Vector(ray.direction.to_vec()),
            _ => Value::Scalar(ray.tmin.clone()),
        }))
    }
}

/// One value of a hit: of its instance (`dxr.ray_query.committed_instance_id.value`,
/// `dxr.ray_query.committed_instance_contribution.value`), its geometry and
/// primitive, the ray in its object space
/// (`dxr.ray_query.committed_object_ray_origin.value`,
/// `dxr.ray_query.committed_object_ray_direction.value`), its instance's
/// transforms, 4x3 the transpose of 3x4
/// (`dxr.ray_query.committed_object_to_world.transposes`,
/// `dxr.ray_query.committed_world_to_object.transposes`), and a triangle's
/// barycentrics, the weights of vertices 1 and 2
/// (`dxr.ray_query.committed_triangle_barycentrics.weights`) and facing,
/// after the instance's flip-facing flag (`vk.culling.face.ray_query_front_face`).
/// `None` for a triangle value of a procedural primitive.
fn hit_value(scene: &Scene, st: &QueryState, c: &Candidate, name: &str) -> Option<Value> {
    let inst = &scene.instances[c.instance];
    let space = st.setup.spaces[c.instance]
        .as_ref()
        .expect("a candidate's instance has a space");
    Some(match (name, &c.kind) {
        ("InstanceIndex", _) => Value::uint(c.instance as u32),
        ("InstanceID", _) => Value::uint(inst.instance_id),
        ("InstanceContributionToHitGroupIndex", _) => Value::uint(inst.hit_group_offset),
        ("GeometryIndex", _) => Value::uint(c.geometry as u32),
        ("PrimitiveIndex", _) => Value::uint(c.primitive as u32),
        ("ObjectRayOrigin", _) => Value::Vector(space.origin.to_vec()),
        ("ObjectRayDirection", _) => Value::Vector(space.direction.to_vec()),
        ("ObjectToWorld3x4", _) => matrix_3x4(&space.object_to_world),
        ("ObjectToWorld4x3", _) => matrix_4x3(&space.object_to_world),
        ("WorldToObject3x4", _) => matrix_3x4(&space.world_to_object),
        ("WorldToObject4x3", _) => matrix_4x3(&space.world_to_object),
        ("TriangleBarycentrics", CandidateKind::Triangle { barycentrics, .. }) => {
            traversal::barycentrics_value(*barycentrics)
        }
        ("TriangleFrontFace", CandidateKind::Triangle { front, .. }) => Value::boolean(*front),
        _ => return None,
    })
}
