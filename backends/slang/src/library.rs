//! Slang's compiler library, loaded at run time: the C entry points of
//! `libslang-compiler.so` (`slang-deprecated.h`'s `sp*` functions, which
//! every Slang release still exports), so that no Slang is needed to build
//! the suite, and the library of the pinned wheel is the one judged.

use libloading::{Library, Symbol};
use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `SLANG_SPIRV` (`SlangCompileTarget`).
const SLANG_SPIRV: c_int = 6;
/// `SLANG_SOURCE_LANGUAGE_HLSL`.
const SLANG_SOURCE_LANGUAGE_HLSL: c_int = 2;

/// The file name of the library in the wheel, without its version suffix.
pub const LIBRARY_NAME: &str = "libslang-compiler.so";

type Ptr = *mut c_void;

/// A loaded library and one global session (creating one loads Slang's
/// core module: about 0.2 s, once per process).
pub struct Slang {
    lib: Library,
    session: Ptr,
    pub path: PathBuf,
    pub version: String,
}

// The session is used by one thread at a time (the backend holds it behind
// a mutex).
unsafe impl Send for Slang {}

/// One entry point to compile.
pub struct EntryPoint<'a> {
    pub name: &'a str,
    /// `SlangStage`.
    pub stage: c_int,
}

/// What a compile produced.
pub struct Output {
    /// SPIR-V words per entry point, in the order asked; `None` when the
    /// program was rejected.
    pub modules: Option<Vec<Vec<u32>>>,
    /// Slang's diagnostics (warnings too).
    pub diagnostics: String,
}

impl Slang {
    /// Where the library is: `explicit`, else `$SER_SLANG_LIB`, else in the
    /// `slangpy` package of the machine's `python3` (README: `pip install
    /// --no-deps slangpy==0.43.1`).
    pub fn find(explicit: Option<&Path>) -> Result<PathBuf, String> {
        if let Some(p) = explicit {
            return Ok(p.to_path_buf());
        }
        if let Some(p) = std::env::var_os("SER_SLANG_LIB") {
            return Ok(PathBuf::from(p));
        }
        let out = Command::new("python3")
            .args([
                "-c",
                "import os, sysconfig; print(os.path.join(sysconfig.get_paths()['purelib'], 'slangpy'))",
            ])
            .output()
            .map_err(|e| format!("cannot ask python3 where slangpy is: {e}"))?;
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        let found = std::fs::read_dir(&dir)
            .map_err(|e| {
                format!(
                    "no slangpy package at {} ({e}); install it: python3 -m pip install --no-deps slangpy==0.43.1",
                    dir.display()
                )
            })?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .find(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with(LIBRARY_NAME))
            });
        found.ok_or_else(|| format!("no {LIBRARY_NAME}* in {}", dir.display()))
    }

    pub fn load(path: &Path) -> Result<Slang, String> {
        // Safety: loading runs the library's initialisers; it is Slang's
        // own release library.
        let lib = unsafe { Library::new(path) }
            .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
        let mut s = Slang {
            lib,
            session: std::ptr::null_mut(),
            path: path.to_path_buf(),
            version: String::new(),
        };
        unsafe {
            let tag: Symbol<unsafe extern "C" fn() -> *const c_char> =
                s.sym("spGetBuildTagString")?;
            s.version = CStr::from_ptr(tag()).to_string_lossy().into_owned();
            let create: Symbol<unsafe extern "C" fn(*const c_char) -> Ptr> =
                s.sym("spCreateSession")?;
            s.session = create(std::ptr::null());
        }
        if s.session.is_null() {
            return Err("spCreateSession returned no session".into());
        }
        Ok(s)
    }

    unsafe fn sym<T>(&self, name: &str) -> Result<Symbol<'_, T>, String> {
        self.lib
            .get(name.as_bytes())
            .map_err(|e| format!("{}: no `{name}`: {e}", self.path.display()))
    }

    /// Compiles HLSL `source` to SPIR-V, one module per entry point, for
    /// Slang profile `profile` with capability `capability`, buffers laid
    /// out with the scalar layout.
    pub fn compile(
        &self,
        source: &str,
        entries: &[EntryPoint],
        profile: &str,
        capability: &str,
    ) -> Result<Output, String> {
        let c = |s: &str| CString::new(s).map_err(|_| format!("a NUL in `{s}`"));
        let (source, profile, capability) = (c(source)?, c(profile)?, c(capability)?);
        let names: Vec<CString> = entries
            .iter()
            .map(|e| c(e.name))
            .collect::<Result<_, _>>()?;
        unsafe {
            let create: Symbol<unsafe extern "C" fn(Ptr) -> Ptr> =
                self.sym("spCreateCompileRequest")?;
            let destroy: Symbol<unsafe extern "C" fn(Ptr)> = self.sym("spDestroyCompileRequest")?;
            let set_target: Symbol<unsafe extern "C" fn(Ptr, c_int)> =
                self.sym("spSetCodeGenTarget")?;
            let find_profile: Symbol<unsafe extern "C" fn(Ptr, *const c_char) -> c_uint> =
                self.sym("spFindProfile")?;
            let set_profile: Symbol<unsafe extern "C" fn(Ptr, c_int, c_uint)> =
                self.sym("spSetTargetProfile")?;
            let find_cap: Symbol<unsafe extern "C" fn(Ptr, *const c_char) -> c_int> =
                self.sym("spFindCapability")?;
            let add_cap: Symbol<unsafe extern "C" fn(Ptr, c_int, c_int)> =
                self.sym("spAddTargetCapability")?;
            let scalar: Symbol<unsafe extern "C" fn(Ptr, c_int, bool)> =
                self.sym("spSetTargetForceGLSLScalarBufferLayout")?;
            let add_unit: Symbol<unsafe extern "C" fn(Ptr, c_int, *const c_char) -> c_int> =
                self.sym("spAddTranslationUnit")?;
            let add_source: Symbol<unsafe extern "C" fn(Ptr, c_int, *const c_char, *const c_char)> =
                self.sym("spAddTranslationUnitSourceString")?;
            let add_entry: Symbol<unsafe extern "C" fn(Ptr, c_int, *const c_char, c_int) -> c_int> =
                self.sym("spAddEntryPoint")?;
            let compile: Symbol<unsafe extern "C" fn(Ptr) -> i32> = self.sym("spCompile")?;
            let diagnostics: Symbol<unsafe extern "C" fn(Ptr) -> *const c_char> =
                self.sym("spGetDiagnosticOutput")?;
            let code: Symbol<unsafe extern "C" fn(Ptr, c_int, *mut usize) -> *const c_void> =
                self.sym("spGetEntryPointCode")?;

            let request = create(self.session);
            if request.is_null() {
                return Err("spCreateCompileRequest returned no request".into());
            }
            set_target(request, SLANG_SPIRV);
            let profile_id = find_profile(self.session, profile.as_ptr());
            set_profile(request, 0, profile_id);
            let cap = find_cap(self.session, capability.as_ptr());
            add_cap(request, 0, cap);
            scalar(request, 0, true);
            let unit = add_unit(request, SLANG_SOURCE_LANGUAGE_HLSL, c"case".as_ptr());
            add_source(request, unit, c"case.hlsl".as_ptr(), source.as_ptr());
            let indices: Vec<c_int> = entries
                .iter()
                .zip(&names)
                .map(|(e, n)| add_entry(request, unit, n.as_ptr(), e.stage))
                .collect();
            let result = compile(request);
            let text = diagnostics(request);
            let diagnostics = if text.is_null() {
                String::new()
            } else {
                CStr::from_ptr(text).to_string_lossy().into_owned()
            };
            let modules = if result < 0 {
                None
            } else {
                let mut all = Vec::new();
                for i in indices {
                    let mut size = 0usize;
                    let p = code(request, i, &mut size);
                    if p.is_null() || !size.is_multiple_of(4) {
                        destroy(request);
                        return Err(format!(
                            "Slang reported success but gave no SPIR-V for entry point {i} ({size} bytes)"
                        ));
                    }
                    let bytes = std::slice::from_raw_parts(p as *const u8, size);
                    all.push(
                        bytes
                            .chunks_exact(4)
                            .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
                            .collect(),
                    );
                }
                Some(all)
            };
            destroy(request);
            Ok(Output {
                modules,
                diagnostics,
            })
        }
    }
}

impl Drop for Slang {
    fn drop(&mut self) {
        unsafe {
            if let Ok(destroy) = self.sym::<unsafe extern "C" fn(Ptr)>("spDestroySession") {
                destroy(self.session);
            }
        }
    }
}
