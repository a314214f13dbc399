//! Deliberate breaks of single rules, for the suite's tests of itself.
//!
//! A *mutant* is the reference with exactly one rule broken. The suite must
//! fail every mutant that breaks a rule the spec states (a *bug* mutant),
//! and must pass every mutant that only takes another legal path (a
//! *control* mutant: a variation the spec allows). The harness runs a
//! mutant as a backend (`--backend mutant:NAME`); the differential fuzzer
//! uses one to show that it finds planted bugs.
//!
//! A rule site asks [`active`] whether its mutation is on. Nothing is on
//! unless a caller runs the reference inside [`with`], so the reference's
//! own results never change. The switch is per thread: the reference runs
//! a case on the calling thread.

use crate::profile::Profile;
use std::cell::{Cell, RefCell};

/// Whether the suite must reject a mutant or accept it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Breaks a rule: some case must fail it.
    Bug,
    /// Takes another legal path: every case must pass it.
    Control,
}

/// Declares the mutations: variant, stable name, kind, the clause whose
/// rule it breaks (or whose freedom it uses), what it does, and optionally
/// the profile whose cases exercise the rule (by default the primary one,
/// `0027-maybereorderthread`).
macro_rules! mutations {
    ($($variant:ident, $name:literal, $kind:ident, $clause:literal, $what:literal $(, $profile:ident)?;)*) => {
        /// Every mutation the reference knows.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Mutation { $($variant),* }

        impl Mutation {
            pub const ALL: &'static [Mutation] = &[$(Mutation::$variant),*];

            /// The stable name (`--backend mutant:NAME`).
            pub fn name(self) -> &'static str {
                match self { $(Mutation::$variant => $name),* }
            }

            pub fn kind(self) -> Kind {
                match self { $(Mutation::$variant => Kind::$kind),* }
            }

            /// The spec-map clause of the rule it breaks or varies.
            pub fn clause(self) -> &'static str {
                match self { $(Mutation::$variant => $clause),* }
            }

            /// What the mutant does differently.
            pub fn description(self) -> &'static str {
                match self { $(Mutation::$variant => $what),* }
            }

            /// The profile under which the suite checks the rule.
            pub fn profile(self) -> Profile {
                match self { $(Mutation::$variant => profile_or_default!($($profile)?)),* }
            }
        }
    };
}

macro_rules! profile_or_default {
    () => {
        Profile::MaybeReorderThread0027
    };
    ($p:ident) => {
        Profile::$p
    };
}

mutations! {
    // Hit object accessors (`hit_object.rs`, `exec/hit_object_ops.rs`, `exec/invoke.rs`).
    NopRayTminOne, "nop_ray_tmin_one", Bug, "ser.hit_object.get_ray_tmin.nop_returns_zero",
        "GetRayTMin on a NOP hit object returns 1 instead of 0";
    NopRayFlagsNonzero, "nop_ray_flags_nonzero", Bug, "ser.hit_object.get_ray_flags.nop_returns_zero",
        "GetRayFlags on a NOP hit object returns RAY_FLAG_FORCE_OPAQUE (1) instead of 0";
    NonHitMatrixZero, "non_hit_matrix_zero", Bug, "ser.hit_object.get_object_to_world_3x4.non_hit_identity",
        "the matrices of a miss or NOP are all zeros instead of ones on the diagonal";
    Matrix4x3NotTransposed, "matrix_4x3_not_transposed", Bug, "ser.hit_object.get_object_to_world_4x3.transpose_of_object_to_world_3x4",
        "the 4x3 matrices are the 3x4 elements read row by row, not the transpose";
    WorldToObjectIsObjectToWorld, "world_to_object_is_object_to_world", Bug, "ser.hit_object.get_world_to_object_3x4.returns_matrix",
        "GetWorldToObject returns the object-to-world matrix of the hit";
    MissObjectOriginZero, "miss_object_origin_zero", Bug, "ser.hit_object.get_object_ray_origin.miss_returns_world_origin",
        "GetObjectRayOrigin on a miss returns zeros instead of the world origin";
    MissObjectDirectionZero, "miss_object_direction_zero", Bug, "ser.hit_object.get_object_ray_direction.miss_returns_world_direction",
        "GetObjectRayDirection on a miss returns zeros instead of the world direction";
    MissTCurrentZero, "miss_tcurrent_zero", Bug, "ser.hit_object.get_ray_tcurrent.miss_returns_tmax",
        "GetRayTCurrent on a miss returns 0 instead of the ray's TMax";
    InstanceIdIsIndex, "instance_id_is_index", Bug, "ser.hit_object.get_instance_id.returns_value",
        "GetInstanceID returns the instance index instead of the instance's ID";
    HitIndexMasked16, "hit_index_masked_16", Bug, "ser.hit_object.set_shader_table_index.hit_low_28_bits",
        "SetShaderTableIndex on a hit keeps the low 16 bits instead of 28";
    MissIndexMasked28, "miss_index_masked_28", Bug, "ser.hit_object.set_shader_table_index.miss_low_16_bits",
        "SetShaderTableIndex on a miss keeps the low 28 bits instead of 16";
    NopSetIndexNotIgnored, "nop_set_index_not_ignored", Bug, "ser.hit_object.set_shader_table_index.nop_ignored",
        "SetShaderTableIndex on a NOP makes it a miss (all-zero ray) with that miss index";
    MakeMissIndexUnmasked, "make_miss_index_unmasked", Bug, "ser.hit_object.make_miss.miss_index_low_16_bits",
        "MakeMiss uses the whole miss index instead of its low 16 bits";
    NonHitAttributesUninitialized, "non_hit_attributes_uninitialized", Bug, "ser.hit_object.get_attributes.non_hit_zero_initialized",
        "GetAttributes on a miss or NOP returns uninitialized values instead of zeros";
    RootConstantOffsetInWords, "root_constant_offset_in_words", Bug, "ser.hit_object.load_local_root_table_constant.loads_from_shader_table",
        "LoadLocalRootTableConstant reads its offset as a word index (byte offset * 4)";
    NopInvokeRunsMiss, "nop_invoke_runs_miss", Bug, "ser.hit_object.invoke.nop_or_unset_query_not_invoked",
        "Invoke of a NOP runs the miss shader of miss record 0";
    UnsetQueryInvokesRecord0, "unset_query_invokes_record_0", Bug, "ser.hit_object.invoke.nop_or_unset_query_not_invoked",
        "Invoke of a FromRayQuery hit without a shader table index runs hit-group record 0";
    InvokeModifiesObject, "invoke_modifies_object", Bug, "ser.hit_object.invoke.hit_object_not_modified",
        "Invoke consumes its hit object: the variable passed is a NOP afterwards";
    InvokeNotCountedForRecursion, "invoke_not_counted_for_recursion", Bug, "ser.hit_object.invoke.not_at_max_recursion",
        "Invoke runs at the maximum recursion depth instead of being undefined there";
    // Shader binding table (`sbt/`).
    InstanceOffsetTimesStride, "instance_offset_times_stride", Bug, "sbt.hit_group.instance_offset_not_multiplied_by_stride",
        "the hit-group index multiplies the instance contribution by the geometry multiplier";
    GeometryIndexNotMultiplied, "geometry_index_not_multiplied", Bug, "sbt.hit_group.geometry_index_multiplied_by_stride",
        "the hit-group index adds the geometry index without the multiplier";
    RayContributionUnmasked, "ray_contribution_unmasked", Bug, "ser.dxil.hitobject_traceray.warn_ray_contribution_4_bits",
        "the ray contribution to the hit-group index is used whole, not its low 4 bits";
    MultiplierUnmasked, "multiplier_unmasked", Bug, "ser.dxil.hitobject_traceray.warn_geometry_multiplier_4_bits",
        "the geometry multiplier is used whole, not its low 4 bits";
    TraceMissIndexUnmasked, "trace_miss_index_unmasked", Bug, "sbt.miss.index_equation",
        "a traced ray's miss index is used whole, not its low 16 bits";
    DxrConstantsUnpadded, "dxr_constants_unpadded", Bug, "sbt.dxr.local_constants_padded_to_8",
        "DXR records do not pad a group of 4-byte constants to 8 bytes";
    VulkanConstantsPadded, "vulkan_constants_padded", Bug, "sbt.vulkan.constants_unpadded",
        "Vulkan records pad 4-byte constants to 8 bytes as DXR does";
    TableStartUnaligned, "table_start_unaligned", Bug, "sbt.dxr.table_alignment_64_bytes",
        "shader tables start right after the previous one, not at the table alignment";
    // Traversal (`traversal/`, `exec/trace.rs`).
    InstanceRayNotTransformed, "instance_ray_not_transformed", Bug, "vk.candidate.instance.ray_transformed_into_instance_space",
        "the world ray is used in every instance's space without the world-to-object transform";
    MotionTimeIgnored, "motion_time_ignored", Bug, "vk.candidate.motion.positions_at_time",
        "a motion instance is placed where it is at time 0.0, whatever the trace's time", VulkanNv;
    UntimedTraceAtEnd, "untimed_trace_at_end", Bug, "vk.candidate.motion.trace_ray_khr_time_zero",
        "a trace without a time meets a motion instance where it is at time 1.0, not 0.0", VulkanNv;
    MaskTestInverted, "mask_test_inverted", Bug, "vk.culling.mask.and_zero_drops",
        "an instance is culled when its mask and the ray's share a bit, kept when they share none";
    MaskTestIgnored, "mask_test_ignored", Bug, "vk.culling.mask.and_zero_drops",
        "the instance mask test is skipped";
    SkipTrianglesIgnored, "skip_triangles_ignored", Bug, "vk.culling.primitive.skip_triangles_drops",
        "RAY_FLAG_SKIP_TRIANGLES is ignored";
    SkipAabbsIgnored, "skip_aabbs_ignored", Bug, "vk.culling.primitive.skip_aabbs_drops",
        "RAY_FLAG_SKIP_PROCEDURAL_PRIMITIVES is ignored";
    PipelineSkipIgnored, "pipeline_skip_ignored", Bug, "vk.culling.primitive.pipeline_skip_triangles",
        "the pipeline's skip-triangles / skip-AABBs flags are ignored", VulkanExt;
    FrontFaceClockwise, "front_face_clockwise", Bug, "vk.culling.face.negative_area_front",
        "a positive area in ray space is the front face instead of a negative one";
    FlipFacingIgnored, "flip_facing_ignored", Bug, "vk.culling.face.flip_facing_reverses",
        "the instance's TRIANGLE_FLIP_FACING flag is ignored";
    CullDisableIgnored, "cull_disable_ignored", Bug, "vk.culling.face.cull_disable_instance_flag",
        "the instance's TRIANGLE_CULL_DISABLE flag is ignored";
    CullBackIgnored, "cull_back_ignored", Bug, "vk.culling.face.cull_back_facing_drops",
        "RAY_FLAG_CULL_BACK_FACING_TRIANGLES is ignored";
    InstanceForceOpaqueIgnored, "instance_force_opaque_ignored", Bug, "vk.culling.opacity.instance_force_opaque",
        "the instance's FORCE_OPAQUE flag is ignored";
    RayNoOpaqueNotOverriding, "ray_no_opaque_not_overriding", Bug, "vk.culling.opacity.ray_no_opaque_forces_nonopaque",
        "an instance's FORCE_OPAQUE wins over the ray's RAY_FLAG_FORCE_NON_OPAQUE";
    CullOpaqueIgnored, "cull_opaque_ignored", Bug, "vk.culling.opacity.cull_opaque_drops",
        "RAY_FLAG_CULL_OPAQUE is ignored";
    CullNonOpaqueIgnored, "cull_non_opaque_ignored", Bug, "vk.culling.opacity.cull_no_opaque_drops",
        "RAY_FLAG_CULL_NON_OPAQUE is ignored";
    MicromapSpecialSwapped, "micromap_special_swapped", Bug, "vk.opacity_micromap.table.state4_value0_override_n_ignored",
        "a micromap's special indices read opaque for transparent and the reverse", Sm69;
    TriangleTminIgnored, "triangle_tmin_ignored", Bug, "vk.candidate.triangle_t_open_interval",
        "a triangle hit nearer than tmin is a candidate (only t < tmax is tested)";
    AabbIntervalOpen, "aabb_interval_open", Bug, "vk.candidate.aabb_t_closed_interval",
        "a box or reported hit touching tmin or tmax only at the end is not a candidate (open interval)";
    WatertightDoubleHit, "watertight_double_hit", Bug, "vk.watertight.no_double_hit_shared_edge",
        "a ray through an edge two triangles share hits both";
    NoDuplicateIgnored, "no_duplicate_ignored", Bug, "vk.confirmation.triangle.may_execute_multiple_times_unless_no_duplicate",
        "NO_DUPLICATE_ANY_HIT is ignored, and every candidate whose processing may then repeat is processed twice (any-hit shaders, intersection shaders, Proceed)";
    OpaqueRunsAnyHit, "opaque_runs_any_hit", Bug, "vk.confirmation.triangle.opaque_confirmed_immediately",
        "opaque candidates run the any-hit shader too";
    IgnoreHitConfirms, "ignore_hit_confirms", Bug, "vk.confirmation.triangle.ignore_intersection_drops",
        "IgnoreHit in an any-hit shader confirms the candidate instead of dropping it";
    ClosestHitNotClosest, "closest_hit_not_closest", Bug, "vk.closest_hit.t_greater_than_tmax_dropped",
        "a confirmed hit does not shrink tmax: the last confirmed candidate wins";
    AcceptFirstHitIgnored, "accept_first_hit_ignored", Bug, "vk.closest_hit.terminate_on_first_hit",
        "RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH is ignored";
    SkipClosestHitIgnored, "skip_closest_hit_ignored", Bug, "vk.result.skip_closest_hit_flag",
        "TraceRay runs the closest-hit shader despite RAY_FLAG_SKIP_CLOSEST_HIT_SHADER";
    // Payload access qualifiers (`payload/`).
    PaqTraceShadingReadIgnored, "paq_trace_shading_read_ignored", Bug, "ser.paq.rules.trace_ray_read_shading_as_read_caller",
        "at HitObject::TraceRay, read(closesthit) and read(miss) fields do not come back to the caller";
    PaqInvokeAnyhitWriteIgnored, "paq_invoke_anyhit_write_ignored", Bug, "ser.paq.rules.invoke_write_anyhit_as_write_caller",
        "at HitObject::Invoke, write(anyhit) fields do not flow into the call";
    PaqStageWriteNotRestored, "paq_stage_write_not_restored", Bug, "ser.paq.flow.caller_between_anyhit_and_shading",
        "a field a stage may neither read nor write is not kept across the stage";
    // Reorder points and memory (`exec/sched.rs`, `exec/memory/`).
    MigrateNonArriving, "migrate_non_arriving", Bug, "ser.divergence.non_arriving_threads_do_not_migrate",
        "at a reorder point, threads that did not arrive move to another lane too";
    WaveCountBitsIgnoresVote, "wave_count_bits_ignores_vote", Bug, "dxr.wave_intrinsics.validity_bounded_by_repacking_points",
        "WaveActiveCountBits counts every lane that executes it, whatever it votes";
    ReorderNopFaults, "reorder_nop_faults", Bug, "ser.maybe_reorder_thread.hit.nop_legal_input",
        "MaybeReorderThread rejects a NOP hit object as invalid";
    ReorderScopeNotPublished, "reorder_scope_not_published", Bug, "ser.memory.reordercoherent.barrier_reorder_scope_before_reorder_point",
        "Barrier(UAV_MEMORY, REORDER_SCOPE) does not publish writes to [reordercoherent] buffers";
    DeviceBarrierNotPublished, "device_barrier_not_published", Bug, "ser.memory.globallycoherent.device_memory_barrier_before_reorder_point",
        "DeviceMemoryBarrier does not publish writes to [globallycoherent] buffers";
    // The validator (`validate/`).
    ValidatorReorderInClosestHit, "validator_reorder_in_closesthit", Bug, "ser.maybe_reorder_thread.stage.raygen_only",
        "the validator accepts MaybeReorderThread in closest-hit shaders";
    ValidatorTraceRayInCallable, "validator_trace_ray_in_callable", Bug, "sbt.dxr.traceray_callable_stages",
        "the validator accepts TraceRay in callable shaders";
    ValidatorHitObjectInAnyHit, "validator_hit_object_in_anyhit", Bug, "ser.hit_object.stages.raygen_closesthit_miss_only",
        "the validator accepts HitObject in any-hit shaders";
    ValidatorHitObjectGroupshared, "validator_hit_object_groupshared", Bug, "ser.hit_object.type.storage_restrictions",
        "the validator accepts HitObject in groupshared memory";
    ValidatorHitObjectInPayload, "validator_hit_object_in_payload", Bug, "ser.hit_object.type.storage_restrictions",
        "the validator accepts HitObject in ray payload structs";
    ValidatorNoRayContributionWarning, "validator_no_ray_contribution_warning", Bug, "ser.dxil.hitobject_traceray.warn_ray_contribution_4_bits",
        "the validator does not warn about a constant ray contribution over 4 bits";
    ValidatorWarnsAtLimit, "validator_warns_at_limit", Bug, "ser.dxil.hitobject_traceray.warn_miss_index_16_bits",
        "the validator warns about constant operands at their largest legal value (>= instead of >)";
    ValidatorMisalignedOffsetAccepted, "validator_misaligned_offset_accepted", Bug, "ser.hit_object.load_local_root_table_constant.offset_multiple_of_4",
        "the validator accepts a constant LoadLocalRootTableConstant offset that is not a multiple of 4";
    ValidatorUndefinedOperandAccepted, "validator_undefined_operand_accepted", Bug, "ser.dxil.maybereorderthread.err_hint_not_undef",
        "the validator accepts operands that are never given a value";
    PayloadAccessAsError, "payload_access_as_error", Bug, "dxr.paq.local_copy.compiler_does_not_restrict",
        "the validator rejects, as an error, a payload field access its stage's qualifiers do not allow (DXR: legal, at most a warning)";
    ValidatorReordercoherentNonUav, "validator_reordercoherent_non_uav", Bug, "ser.memory.reordercoherent.storage_class",
        "the validator accepts [reordercoherent] on a resource that is not a UAV";
    Sm69KeepsDxilWarnings, "sm69_keeps_dxil_warnings", Bug, "ser.dxil.hitobject_traceray.warn_ray_contribution_4_bits",
        "under Shader Model 6.9 the validator still gives the proposal's DXIL operand warnings, which 6.9 removed", Sm69;
    // Controls: legal variations the suite must accept.
    TmaxTieDropped, "tmax_tie_dropped", Control, "vk.closest_hit.t_equal_tmax_either",
        "a confirmed hit at exactly the current tmax is always dropped";
    CandidatesReversed, "candidates_reversed", Control, "vk.candidate.no_ordering_between_candidates",
        "candidates are processed farthest or last first";
    ScheduleRegroup, "schedule_regroup", Control, "ser.divergence.arriving_threads_removed_replaced_or_kept",
        "threads arriving at a reorder point leave their waves and form new ones (where no case pins a schedule)";
    PackingReversed, "packing_reversed", Control, "dxr.wave_intrinsics.allowed_for_tools",
        "the dispatch is packed into waves another way: each thread's first explored wave result is its last (lanes from the top, not first, alone only when it must be)";
    WatertightLastTriangle, "watertight_last_triangle", Control, "vk.watertight.no_double_hit_shared_edge",
        "a ray through a shared edge or closed-fan vertex always hits the last of the triangles there";
    BoxesEnlarged, "boxes_enlarged", Control, "vk.candidate.aabb.false_positives_may",
        "every box the ray misses is a candidate too, as an enlarged box (its intersection shader runs, Proceed returns it)";
    CandidatesRepeatedTwice, "candidates_repeated_twice", Control, "vk.confirmation.aabb.may_execute_multiple_times",
        "every candidate whose processing may repeat is processed three times, once more than the reference explores (an intersection shader runs three times, Proceed returns the candidate three times)";
    InvokeSkipsClosestHit, "invoke_skips_closest_hit", Control, "ser.design.canonical_sequence.functionally_equivalent_to_trace_ray",
        "Invoke honours RAY_FLAG_SKIP_CLOSEST_HIT_SHADER of the traced ray (the proposal does not say)";
    ValidatorPayloadAccessUnchecked, "validator_payload_access_unchecked", Control, "dxr.paq.local_copy.compiler_attempts_to_warn",
        "the validator gives no warning for payload field accesses the qualifiers do not allow (the compiler only 'will attempt to warn')";
}

impl Mutation {
    pub fn from_name(name: &str) -> Option<Mutation> {
        Mutation::ALL.iter().copied().find(|m| m.name() == name)
    }
}

thread_local! {
    static ACTIVE: Cell<Option<Mutation>> = const { Cell::new(None) };
    /// Per mutation, whether its rule site was asked about, while
    /// [`reached`] records.
    static REACHED: RefCell<Option<Vec<bool>>> = const { RefCell::new(None) };
}

/// Whether `m` is the mutation in force on this thread.
pub fn active(m: Mutation) -> bool {
    REACHED.with(|r| {
        if let Some(seen) = r.borrow_mut().as_mut() {
            seen[m as usize] = true;
        }
    });
    ACTIVE.with(|a| a.get() == Some(m))
}

/// Runs `f` and returns with its result the mutations whose rule sites it
/// reached. A mutant can only differ from the reference by what [`active`]
/// answers at its site, and the reference is deterministic, so on a run
/// that never reaches the site the mutant does exactly what the reference
/// does: the harness need not run it there.
pub fn reached<R>(f: impl FnOnce() -> R) -> (R, Vec<Mutation>) {
    struct Stop;
    impl Drop for Stop {
        fn drop(&mut self) {
            REACHED.with(|r| r.replace(None));
        }
    }
    let _stop = Stop;
    REACHED.with(|r| r.replace(Some(vec![false; Mutation::ALL.len()])));
    let out = f();
    let seen = REACHED.with(|r| r.replace(None)).unwrap_or_default();
    let sites = Mutation::ALL
        .iter()
        .copied()
        .filter(|m| seen[*m as usize])
        .collect();
    (out, sites)
}

/// Runs `f` with `m` in force on this thread (none for `None`), and puts
/// back what was in force before, also when `f` panics.
pub fn with<R>(m: Option<Mutation>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Mutation>);
    impl Drop for Restore {
        fn drop(&mut self) {
            ACTIVE.with(|a| a.set(self.0));
        }
    }
    let _restore = Restore(ACTIVE.with(|a| a.replace(m)));
    f()
}

/// A thread's mutation state: the mutation in force, and whether rule
/// sites are being recorded ([`reached`]). Work that moves to another
/// thread (the reference runs each case on a stack of its own) takes it
/// along with [`State::enter`], and brings the sites back with [`merge`].
#[derive(Clone, Copy, Debug)]
pub struct State {
    active: Option<Mutation>,
    recording: bool,
}

/// This thread's mutation state.
pub fn state() -> State {
    State {
        active: ACTIVE.with(Cell::get),
        recording: REACHED.with(|r| r.borrow().is_some()),
    }
}

impl State {
    /// Runs `f` on this thread under the state; gives its result, and the
    /// sites it reached when the state records.
    pub fn enter<R>(self, f: impl FnOnce() -> R) -> (R, Vec<Mutation>) {
        with(self.active, || {
            if self.recording {
                reached(f)
            } else {
                (f(), Vec::new())
            }
        })
    }
}

/// Records `sites`, reached on another thread for this one, as reached here.
pub fn merge(sites: &[Mutation]) {
    REACHED.with(|r| {
        if let Some(seen) = r.borrow_mut().as_mut() {
            for m in sites {
                seen[*m as usize] = true;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        for m in Mutation::ALL {
            assert_eq!(Mutation::from_name(m.name()), Some(*m));
        }
        let mut names: Vec<&str> = Mutation::ALL.iter().map(|m| m.name()).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), Mutation::ALL.len());
    }

    #[test]
    fn a_mutation_is_in_force_only_inside_with() {
        let m = Mutation::NopRayTminOne;
        assert!(!active(m));
        assert!(with(Some(m), || active(m)));
        assert!(!active(m));
        let _ = std::panic::catch_unwind(|| with(Some(m), || panic!("inside")));
        assert!(
            !active(m),
            "a panic inside `with` leaves no mutation behind"
        );
    }

    #[test]
    fn the_state_goes_to_another_thread_and_its_sites_come_back() {
        let m = Mutation::NopRayTminOne;
        let ((), sites) = reached(|| {
            with(Some(m), || {
                let state = state();
                let (was_active, there) =
                    std::thread::scope(|s| s.spawn(|| state.enter(|| active(m))).join().unwrap());
                assert!(was_active);
                merge(&there);
            })
        });
        assert_eq!(sites, [m]);
    }

    #[test]
    fn reached_lists_the_sites_asked_about() {
        let ((), sites) = reached(|| {
            active(Mutation::MissTCurrentZero);
            active(Mutation::NopRayTminOne);
        });
        assert_eq!(
            sites,
            [Mutation::NopRayTminOne, Mutation::MissTCurrentZero],
            "in declaration order"
        );
        let ((), none) = reached(|| {});
        assert!(none.is_empty());
    }
}
