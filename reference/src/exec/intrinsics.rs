//! Free intrinsic functions: system values, waves, memory barriers, and the
//! entry to ray tracing and reordering.

use super::math;
use super::packing;
use super::sched::{SyncOp, SyncResponse};
use super::thread::{fault, Ex, Exit, System, Termination, Thread};
use super::wave::WaveOp;
use crate::choice::Chooser;
use crate::hit_object::HitObject;
use crate::outcome::FaultCode;
use crate::program::Stage;
use crate::value::{Scalar, Value};
use ser_lang::ast::Expr;

impl<'a> Thread<'a> {
    pub fn intrinsic(&mut self, name: &'a str, args: &'a [Expr]) -> Ex<Value> {
        match name {
            "TraceRay" => self.trace_ray(args),
            "TraceRayMotion" => self.trace_ray_motion(args),
            "CallShader" => self.call_shader(args),
            "ReportHit" => self.report_hit(args),
            "IgnoreHit" | "AcceptHitAndEndSearch" => {
                if self.stage() != Stage::AnyHit {
                    return fault(
                        FaultCode::InvalidStage,
                        format!("`{name}` is available only in any-hit shaders"),
                    );
                }
                Err(Exit::Terminate(if name == "IgnoreHit" {
                    Termination::IgnoreHit
                } else {
                    Termination::AcceptHitAndEndSearch
                }))
            }
            "MaybeReorderThread" | "ReorderThread" => self.maybe_reorder_thread(name, args),
            "WaveGetLaneCount" => Ok(Value::uint(self.w.dispatch.wave_size)),
            "Barrier" | "DeviceMemoryBarrier" => self.barrier(name, args),
            "InterlockedAdd" => self.interlocked_add(args),
            _ => {
                if let Some(op) = WaveOp::from_name(name) {
                    if self.probe.is_some() {
                        return fault(
                            FaultCode::Unsupported,
                            format!("`{name}` in an intersection shader the reference probes for a box the ray misses"),
                        );
                    }
                    let operand = match args.first() {
                        Some(a) => self.eval(a)?,
                        None => Value::boolean(true),
                    };
                    // The thread's lane in this run's packing, where the
                    // operation reads it (`super::packing`): a ballot reads
                    // it only where the thread votes.
                    let votes = || match &operand {
                        Value::Scalar(s) => s.bits != 0 || s.unspecified.is_some(),
                        _ => true,
                    };
                    let reads_lane = match op {
                        WaveOp::LaneIndex => true,
                        WaveOp::Ballot => votes(),
                        _ => false,
                    };
                    let lane = (reads_lane && self.w.options.taint_schedule).then(|| {
                        let mut board = self.shared.board.borrow_mut();
                        board.lane_for(self.id, &mut self.log)
                    });
                    return match self.sync(SyncOp::Wave(op, operand, lane)) {
                        SyncResponse::Wave(mut results) => Ok(match results.len() {
                            1 => results.remove(0),
                            n => results.swap_remove(self.log.choose(n, packing::WHY)),
                        }),
                        SyncResponse::Resumed => fault(
                            FaultCode::Unsupported,
                            "internal: a wave operation was resumed without a result",
                        ),
                    };
                }
                if let Some(v) = self.system_value(name)? {
                    return Ok(v);
                }
                let values = self.eval_args(args)?;
                Ok(math::call(name, values, &mut self.log)?)
            }
        }
    }

    /// The system value intrinsics, for the stages that have them.
    fn system_value(&self, name: &str) -> Ex<Option<Value>> {
        let p = self.w.options.profile;
        let dims = |v: [u32; 3]| Value::Vector(v.iter().map(|x| Scalar::uint(*x)).collect());
        match name {
            "DispatchRaysIndex" => return Ok(Some(dims(self.index))),
            "DispatchRaysDimensions" => return Ok(Some(dims(self.w.dispatch.size))),
            _ => {}
        }
        let ray_value = matches!(
            name,
            "RayFlags" | "RayTMin" | "RayTCurrent" | "WorldRayOrigin" | "WorldRayDirection"
        );
        let hit_value = matches!(
            name,
            "ObjectRayOrigin"
                | "ObjectRayDirection"
                | "ObjectToWorld3x4"
                | "ObjectToWorld4x3"
                | "WorldToObject3x4"
                | "WorldToObject4x3"
                | "InstanceIndex"
                | "InstanceID"
                | "GeometryIndex"
                | "PrimitiveIndex"
                | "HitKind"
        );
        if !ray_value && !hit_value {
            return Ok(None);
        }
        // The system values of a hit or miss shader are those of the hit
        // object describing it (`ser.hit_object.invoke.hit_object_determines_system_values`).
        let object = match &self.invocation().system {
            System::Hit(h) if !(name == "HitKind" && self.stage() == Stage::Intersection) => {
                HitObject::Hit(h.clone())
            }
            System::Miss(ray) if ray_value => HitObject::Miss(Box::new(crate::hit_object::Miss {
                ray: (**ray).clone(),
                index: 0,
            })),
            _ => {
                return fault(
                    FaultCode::InvalidStage,
                    format!(
                        "`{name}` is not available in a {} shader",
                        self.stage().name()
                    ),
                )
            }
        };
        let flags_unknown = self.executed_without_flags == Some(self.stack.len() - 1);
        Ok(Some(match name {
            "RayFlags" if flags_unknown => Value::Scalar(Scalar::unspecified(
                ser_lang::ast::ScalarType::Uint,
                "gl_IncomingRayFlagsEXT in a shader hitObjectExecuteShaderNV runs: GL_NV's hit object encodes no ray flags",
            )),
            "RayFlags" => object.get_ray_flags(p),
            "RayTMin" => object.get_ray_tmin(p),
            "RayTCurrent" => object.get_ray_tcurrent(p),
            "WorldRayOrigin" => object.get_world_ray_origin(p),
            "WorldRayDirection" => object.get_world_ray_direction(p),
            "ObjectRayOrigin" => object.get_object_ray_origin(p),
            "ObjectRayDirection" => object.get_object_ray_direction(p),
            "ObjectToWorld3x4" => object.get_object_to_world_3x4(p),
            "ObjectToWorld4x3" => object.get_object_to_world_4x3(p),
            "WorldToObject3x4" => object.get_world_to_object_3x4(p),
            "WorldToObject4x3" => object.get_world_to_object_4x3(p),
            "InstanceIndex" => object.get_instance_index(p),
            "InstanceID" => object.get_instance_id(p),
            "GeometryIndex" => object.get_geometry_index(p),
            "PrimitiveIndex" => object.get_primitive_index(p),
            "HitKind" => object.get_hit_kind(p),
            _ => unreachable!("listed above"),
        }))
    }
}
