//! What a generated program may use: the forms of the language its
//! profile has, and the optional parts of the model the backend under test
//! claims. A campaign generates in the dialect of its backend, so that what
//! it makes is inside the backend's claim and is judged, rather than
//! skipped or declined.

/// The text a profile answers to, which decides the forms a program can
/// take (`cases/README.md`, "Forms of one profile").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Language {
    /// The SER proposal's HLSL (`0027-*`) and Shader Model 6.9 (`sm69`, which
    /// adds `RAY_FLAG_FORCE_OPACITY_MICROMAP_2_STATE`).
    Hlsl { sm69: bool },
    /// GL_NV_shader_invocation_reorder: `hitObjectRecordHitNV` and
    /// `...WithIndexNV`, no flags operand on `hitObjectRecordMissNV`, no
    /// ray-flags getter, no record-index setter, no record-from-query.
    GlslNv,
    /// GL_EXT_shader_invocation_reorder: flags on `hitObjectRecordMissEXT`,
    /// `hitObjectGetRayFlagsEXT`, the record-index setter,
    /// `hitObjectRecordFromQueryEXT`, no `RecordHit`.
    GlslExt,
}

impl Language {
    /// Whether hit objects can be copied (`h1 = h0`): GLSL's hit-object
    /// types are opaque, and a GLSL opaque variable cannot be assigned.
    pub const fn copies_hit_objects(self) -> bool {
        matches!(self, Language::Hlsl { .. })
    }

    pub const fn is_glsl(self) -> bool {
        !self.copies_hit_objects()
    }
}

/// The dialect of generated programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dialect {
    pub language: Language,
    /// Hit objects and reorder points (capability `shader_execution_reorder`);
    /// without it programs trace with `TraceRay` and query inline only.
    pub ser: bool,
    /// Inline ray tracing (`ray_query`).
    pub ray_query: bool,
    /// `HitObject::FromRayQuery` / `RecordFromQuery` (`hit_object_from_ray_query`).
    pub from_ray_query: bool,
    /// `SetShaderTableIndex` (`hit_object_set_shader_table_index`).
    pub set_index: bool,
    /// `HitObject::GetRayFlags` (`hit_object_get_ray_flags`).
    pub get_ray_flags: bool,
    /// `LoadLocalRootTableConstant` (`hit_object_load_local_root_table_constant`).
    pub load_constant: bool,
    /// Opacity micromaps in scenes (`opacity_micromaps`).
    pub micromaps: bool,
    /// Wave operations (`wave_operations`). Only HLSL programs use them:
    /// the GLSL texts in `shared/spec` say nothing of how invocations are
    /// packed into subgroups, so no clause of theirs would decide the
    /// results (the DXR text's silence is what the reference explores).
    pub waves: bool,
}

impl Dialect {
    /// Everything `language` can express.
    pub const fn full(language: Language) -> Dialect {
        let glsl_nv = matches!(language, Language::GlslNv);
        Dialect {
            language,
            ser: true,
            ray_query: true,
            from_ray_query: !glsl_nv,
            set_index: !glsl_nv,
            get_ray_flags: !glsl_nv,
            load_constant: true,
            micromaps: true,
            waves: !language.is_glsl(),
        }
    }

    /// What `language` can express of the capabilities named.
    pub fn with_capabilities(language: Language, capabilities: &[String]) -> Dialect {
        let has = |c: &str| capabilities.iter().any(|x| x == c);
        let full = Dialect::full(language);
        Dialect {
            language,
            ser: has("shader_execution_reorder"),
            ray_query: has("ray_query"),
            from_ray_query: full.from_ray_query && has("hit_object_from_ray_query"),
            set_index: full.set_index && has("hit_object_set_shader_table_index"),
            get_ray_flags: full.get_ray_flags && has("hit_object_get_ray_flags"),
            load_constant: has("hit_object_load_local_root_table_constant"),
            micromaps: has("opacity_micromaps"),
            waves: full.waves && has("wave_operations"),
        }
    }

    /// Whether Shader Model 6.9's forms may be used.
    pub fn sm69(self) -> bool {
        self.language == Language::Hlsl { sm69: true }
    }

    /// The profiles a program of this dialect applies to, given whether it
    /// uses a form of Shader Model 6.9 only.
    pub fn profiles(self, needs_sm69: bool) -> Vec<&'static str> {
        match self.language {
            Language::Hlsl { .. } if needs_sm69 => vec!["sm69"],
            // The earlier revision runs the same program with
            // `ReorderThread` for `MaybeReorderThread` (the profile renames
            // the calls).
            Language::Hlsl { .. } => vec!["0027-maybereorderthread", "0027-reorderthread", "sm69"],
            Language::GlslNv => vec!["vulkan-nv"],
            Language::GlslExt => vec!["vulkan-ext"],
        }
    }
}
