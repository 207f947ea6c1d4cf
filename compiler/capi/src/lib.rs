//! The C ABI of ilc (`include/ilc.h`): compile AMD IL to a cubin from C, as a driver JIT does.
//!
//! Handles are opaque: an `ilc_compiler` (options and an optional compile cache; safe to use
//! from several threads at once) and an `ilc_kernel` (the result: cubin, code words, assembly
//! and launch layout; immutable). Every handle the library returns is released with its
//! `*_free` function; error messages are `char*` strings released with `ilc_string_free`.
//! Pointers returned by accessors stay valid until the kernel is freed.
//!
//! Every entry point checks its pointers (a null handle or output pointer is
//! `ILC_ERROR_INVALID_ARGUMENT`) and catches panics at the boundary (`ILC_ERROR_INTERNAL`
//! with a message), so no input can unwind into C.

use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use ilc::cache::CompileCache;
use ilc::spa5::abi::ParamKind;
use ilc::{Arch, CompiledKernel, Compiler, OptLevel, Options};

/// Status codes (`ilc_status`).
pub const ILC_OK: i32 = 0;
/// A null pointer or an out-of-range value was passed.
pub const ILC_ERROR_INVALID_ARGUMENT: i32 = 1;
/// The kernel does not compile; the message holds the rendered diagnostics.
pub const ILC_ERROR_COMPILE: i32 = 2;
/// An internal error (a caught panic): a bug, reported with a message.
pub const ILC_ERROR_INTERNAL: i32 = 3;

/// Parameter kinds (`ilc_param_kind`).
pub const ILC_PARAM_UAV_POINTER: i32 = 0;
/// Size in bytes of a UAV.
pub const ILC_PARAM_UAV_SIZE: i32 = 1;
/// Largest buffer a launch may bind (`ILC_MAX_BUFFER_BYTES` in ilc.h).
pub const ILC_MAX_BUFFER_BYTES: u64 = ilc::spa5::abi::MAX_BUFFER_BYTES;
/// Address of the global buffer `g[]`.
pub const ILC_PARAM_GLOBAL_POINTER: i32 = 2;
/// Size of `g[]`.
pub const ILC_PARAM_GLOBAL_SIZE: i32 = 3;
/// Address of a read-only resource.
pub const ILC_PARAM_SRV_POINTER: i32 = 4;
/// Size of a read-only resource.
pub const ILC_PARAM_SRV_SIZE: i32 = 5;
/// The contents of a constant buffer, copied into the parameters.
pub const ILC_PARAM_CONSTANT_BUFFER: i32 = 6;
/// Pixel-shader compute domain: width and height in pixels (two 32-bit words).
pub const ILC_PARAM_DOMAIN: i32 = 7;
/// Base address of pixel-shader output `o<id>` (`width * height` 16-byte pixels, row-major).
pub const ILC_PARAM_OUTPUT_POINTER: i32 = 8;
/// Size in bytes of pixel-shader output `o<id>`.
pub const ILC_PARAM_OUTPUT_SIZE: i32 = 9;
/// Width, height and depth in texels of texture resource `id` (three 32-bit words).
pub const ILC_PARAM_TEXTURE_DIMS: i32 = 10;
/// A 64-bit texture object handle; `id` = resource | sampler << 8 (0xff: none) | unnorm << 16 |
/// float channel mask << 17 | shape << 21 (0 1d, 1 1darray, 2 2d, 3 2darray, 4 3d, 5 buffer).
pub const ILC_PARAM_TEXTURE_HANDLE: i32 = 11;
/// Address of a UAV's append/consume counter (one 32-bit word); `id` = the UAV id.
pub const ILC_PARAM_APPEND_COUNTER: i32 = 12;

/// Compiler options (`ilc_options`); fill with [`ilc_options_default`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct IlcOptions {
    /// 0..3.
    pub opt_level: u32,
    /// 50, 52 or 53.
    pub sm: u32,
    /// Most registers per thread (0: no limit beyond the hardware's).
    pub max_regs: u32,
    /// Bytes of compiled output to cache (0: no cache).
    pub cache_bytes: u64,
    /// Largest accepted source in bytes (0: the default, 64 MiB).
    pub max_source_bytes: u64,
    /// Largest accepted number of IL instructions after macro expansion and inlining (0: the
    /// default, 1 million); the IR may grow to 4 times as many instructions (at least the
    /// default `Limits::max_ir_instructions`).
    pub max_instructions: u64,
    /// Deepest accepted control-flow nesting (0: the default, 1024).
    pub max_nesting: u32,
    /// Longest compile in milliseconds (0: no limit).
    pub max_compile_ms: u64,
    /// `ILC_FLAG_*` bits.
    pub flags: u32,
}

/// Skip the IL's out-of-range checks: the driver guarantees every access is in bounds.
pub const ILC_FLAG_ASSUME_IN_BOUNDS: u32 = 1;
/// The launch grid is 1-D (group ids `.y`/`.z` are 0); the kernel's launch layout records
/// it and a launch with a 2-D or 3-D grid needs a compile without it.
pub const ILC_FLAG_LAUNCH_1D: u32 = 2;

const DEFAULT_OPTIONS: IlcOptions = IlcOptions {
    opt_level: 2,
    sm: 50,
    max_regs: 0,
    cache_bytes: 0,
    max_source_bytes: 0,
    max_instructions: 0,
    max_nesting: 0,
    max_compile_ms: 0,
    flags: 0,
};

/// One kernel parameter (`ilc_param`).
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct IlcParam {
    /// Byte offset from the start of the parameter area (`c[0x0][0x140]`).
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// One of the `ILC_PARAM_*` kinds.
    pub kind: i32,
    /// UAV, SRV or constant buffer id (-1 for `g[]`).
    pub id: i32,
}

/// `ilc_compiler`.
pub struct IlcCompiler {
    compiler: Compiler,
    cache: Option<CompileCache>,
}

/// `ilc_kernel`.
pub struct IlcKernel {
    kernel: Arc<CompiledKernel>,
    asm: CString,
}

fn message(out: *mut *mut c_char, text: &str) {
    if !out.is_null() {
        let c = CString::new(text.replace('\0', " ")).unwrap_or_default();
        // SAFETY: `out` is non-null and, by the API contract, points to writable storage.
        unsafe { *out = c.into_raw() };
    }
}

fn guard(error: *mut *mut c_char, f: impl FnOnce() -> i32) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(code) => code,
        Err(p) => {
            let what = p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            message(error, &format!("internal compiler error: {what}"));
            ILC_ERROR_INTERNAL
        }
    }
}

/// Fills `options` with the defaults (-O2, sm_50, no register limit, no cache).
///
/// # Safety
/// `options` must be null or point to writable `ilc_options`.
#[no_mangle]
pub unsafe extern "C" fn ilc_options_default(options: *mut IlcOptions) {
    if !options.is_null() {
        // SAFETY: non-null and writable by the contract.
        unsafe { *options = DEFAULT_OPTIONS };
    }
}

/// Creates a compiler; `*out` receives the handle (free with `ilc_compiler_free`).
///
/// # Safety
/// `options` must be null (defaults) or point to `ilc_options`; `out` must point to writable
/// storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn ilc_compiler_new(
    options: *const IlcOptions,
    out: *mut *mut IlcCompiler,
) -> i32 {
    guard(std::ptr::null_mut(), || {
        if out.is_null() {
            return ILC_ERROR_INVALID_ARGUMENT;
        }
        let o = if options.is_null() {
            DEFAULT_OPTIONS
        } else {
            // SAFETY: non-null, readable by the contract.
            unsafe { *options }
        };
        let opt_level = match o.opt_level {
            0 => OptLevel::O0,
            1 => OptLevel::O1,
            2 => OptLevel::O2,
            3 => OptLevel::O3,
            _ => return ILC_ERROR_INVALID_ARGUMENT,
        };
        let arch = match o.sm {
            50 => Arch::Sm50,
            52 => Arch::Sm52,
            53 => Arch::Sm53,
            _ => return ILC_ERROR_INVALID_ARGUMENT,
        };
        let d = ilc::Limits::default();
        let pick = |v: u64, default: usize| if v == 0 { default } else { v as usize };
        let limits = ilc::Limits {
            max_source_bytes: pick(o.max_source_bytes, d.max_source_bytes),
            max_instructions: pick(o.max_instructions, d.max_instructions),
            max_nesting: pick(u64::from(o.max_nesting), d.max_nesting),
            max_compile_ms: o.max_compile_ms,
            // Not in the C struct (its layout is the ABI): scales with the instruction limit.
            max_ir_instructions: d
                .max_ir_instructions
                .max(pick(o.max_instructions, d.max_instructions).saturating_mul(4)),
        };
        if o.flags & !(ILC_FLAG_ASSUME_IN_BOUNDS | ILC_FLAG_LAUNCH_1D) != 0 {
            return ILC_ERROR_INVALID_ARGUMENT;
        }
        let compiler = Compiler::new(Options {
            opt_level,
            arch,
            assume_in_bounds: o.flags & ILC_FLAG_ASSUME_IN_BOUNDS != 0,
            launch_1d: o.flags & ILC_FLAG_LAUNCH_1D != 0,
            max_regs: (o.max_regs != 0).then_some(o.max_regs),
            limits,
            ..Options::default()
        });
        let cache = (o.cache_bytes != 0).then(|| CompileCache::new(o.cache_bytes));
        let h = Box::new(IlcCompiler { compiler, cache });
        // SAFETY: `out` is non-null and writable.
        unsafe { *out = Box::into_raw(h) };
        ILC_OK
    })
}

/// Releases a compiler (null is ignored).
///
/// # Safety
/// `compiler` must be null or a handle from `ilc_compiler_new` not yet freed.
#[no_mangle]
pub unsafe extern "C" fn ilc_compiler_free(compiler: *mut IlcCompiler) {
    if !compiler.is_null() {
        // SAFETY: a live handle from `Box::into_raw`, freed once.
        drop(unsafe { Box::from_raw(compiler) });
    }
}

/// Compiles `len` bytes of IL (text or binary tokens) into `*kernel`. On failure `*error`
/// (if `error` is not null) receives a message to free with `ilc_string_free`.
///
/// # Safety
/// `compiler` must be a live handle, `source` must point to `len` readable bytes, `kernel`
/// to writable storage for a pointer, `error` null or to writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn ilc_compile(
    compiler: *const IlcCompiler,
    source: *const u8,
    len: usize,
    kernel: *mut *mut IlcKernel,
    error: *mut *mut c_char,
) -> i32 {
    guard(error, || {
        if compiler.is_null() || kernel.is_null() || (source.is_null() && len != 0) {
            message(error, "null argument");
            return ILC_ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: non-null live handle.
        let c = unsafe { &*compiler };
        let src = if len == 0 {
            &[][..]
        } else {
            // SAFETY: `source` points to `len` readable bytes by the contract.
            unsafe { std::slice::from_raw_parts(source, len) }
        };
        let result = match &c.cache {
            Some(cache) => cache.compile(&c.compiler, src),
            None => c.compiler.compile(src).map(Arc::new),
        };
        match result {
            Ok(k) => {
                let asm = CString::new(k.asm_nvdisasm().replace('\0', " ")).unwrap_or_default();
                let h = Box::new(IlcKernel { kernel: k, asm });
                // SAFETY: non-null, writable.
                unsafe { *kernel = Box::into_raw(h) };
                ILC_OK
            }
            Err(d) => {
                let text = String::from_utf8_lossy(src);
                message(error, &d.render("kernel.il", &text));
                ILC_ERROR_COMPILE
            }
        }
    })
}

/// Releases a string returned through an `error` argument (null is ignored).
///
/// # Safety
/// `s` must be null or a string from this library not yet freed.
#[no_mangle]
pub unsafe extern "C" fn ilc_string_free(s: *mut c_char) {
    if !s.is_null() {
        // SAFETY: created by `CString::into_raw`, freed once.
        drop(unsafe { CString::from_raw(s) });
    }
}

/// Releases a kernel (null is ignored).
///
/// # Safety
/// `kernel` must be null or a handle from `ilc_compile` not yet freed.
#[no_mangle]
pub unsafe extern "C" fn ilc_kernel_free(kernel: *mut IlcKernel) {
    if !kernel.is_null() {
        // SAFETY: a live handle from `Box::into_raw`, freed once.
        drop(unsafe { Box::from_raw(kernel) });
    }
}

/// The cubin bytes; `*len` receives their count. Null for a null kernel.
///
/// # Safety
/// `kernel` must be null or live; `len` null or writable.
#[no_mangle]
pub unsafe extern "C" fn ilc_kernel_cubin(kernel: *const IlcKernel, len: *mut usize) -> *const u8 {
    // SAFETY: null or live by the contract.
    let Some(k) = (unsafe { kernel.as_ref() }) else {
        return std::ptr::null();
    };
    if !len.is_null() {
        // SAFETY: non-null, writable.
        unsafe { *len = k.kernel.cubin.len() };
    }
    k.kernel.cubin.as_ptr()
}

/// The raw code words (a control word before every three instructions); `*words` receives
/// their count. They read constant bank 2 ([`ilc_kernel_const_bank2`]) when it is not empty.
///
/// # Safety
/// `kernel` must be null or live; `words` null or writable.
#[no_mangle]
pub unsafe extern "C" fn ilc_kernel_code(
    kernel: *const IlcKernel,
    words: *mut usize,
) -> *const u64 {
    // SAFETY: null or live by the contract.
    let Some(k) = (unsafe { kernel.as_ref() }) else {
        return std::ptr::null();
    };
    if !words.is_null() {
        // SAFETY: non-null, writable.
        unsafe { *words = k.kernel.code.len() };
    }
    k.kernel.code.as_ptr()
}

/// Constant bank 2, the literal pool the code reads as `c[0x2][..]` (the cubin carries it as
/// `.nv.constant2.K`; a loader of the raw code must bind it); `*len` receives its size, 0
/// when the kernel needs none.
///
/// # Safety
/// `kernel` must be null or live; `len` null or writable.
#[no_mangle]
pub unsafe extern "C" fn ilc_kernel_const_bank2(
    kernel: *const IlcKernel,
    len: *mut usize,
) -> *const u8 {
    // SAFETY: null or live by the contract.
    let Some(k) = (unsafe { kernel.as_ref() }) else {
        return std::ptr::null();
    };
    if !len.is_null() {
        // SAFETY: non-null, writable.
        unsafe { *len = k.kernel.const_bank2.len() };
    }
    k.kernel.const_bank2.as_ptr()
}

/// The assembly in nvdisasm syntax, NUL-terminated.
///
/// # Safety
/// `kernel` must be null or live.
#[no_mangle]
pub unsafe extern "C" fn ilc_kernel_asm(kernel: *const IlcKernel) -> *const c_char {
    // SAFETY: null or live by the contract.
    unsafe { kernel.as_ref() }.map_or(std::ptr::null(), |k| k.asm.as_ptr())
}

/// Number of kernel parameters.
///
/// # Safety
/// `kernel` must be null or live.
#[no_mangle]
pub unsafe extern "C" fn ilc_kernel_param_count(kernel: *const IlcKernel) -> u32 {
    // SAFETY: null or live by the contract.
    unsafe { kernel.as_ref() }.map_or(0, |k| k.kernel.layout.params.len() as u32)
}

/// Parameter `index` (in offset order) into `*out`.
///
/// # Safety
/// `kernel` must be null or live; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn ilc_kernel_param(
    kernel: *const IlcKernel,
    index: u32,
    out: *mut IlcParam,
) -> i32 {
    // SAFETY: null or live by the contract.
    let Some(k) = (unsafe { kernel.as_ref() }) else {
        return ILC_ERROR_INVALID_ARGUMENT;
    };
    let Some(p) = k.kernel.layout.params.get(index as usize) else {
        return ILC_ERROR_INVALID_ARGUMENT;
    };
    if out.is_null() {
        return ILC_ERROR_INVALID_ARGUMENT;
    }
    let (kind, id) = match p.kind {
        ParamKind::UavPtr(i) => (ILC_PARAM_UAV_POINTER, i as i32),
        ParamKind::UavSize(i) => (ILC_PARAM_UAV_SIZE, i as i32),
        ParamKind::GlobalPtr => (ILC_PARAM_GLOBAL_POINTER, -1),
        ParamKind::GlobalSize => (ILC_PARAM_GLOBAL_SIZE, -1),
        ParamKind::SrvPtr(i) => (ILC_PARAM_SRV_POINTER, i as i32),
        ParamKind::SrvSize(i) => (ILC_PARAM_SRV_SIZE, i as i32),
        ParamKind::CbData(i) => (ILC_PARAM_CONSTANT_BUFFER, i as i32),
        ParamKind::Domain => (ILC_PARAM_DOMAIN, -1),
        ParamKind::OutPtr(i) => (ILC_PARAM_OUTPUT_POINTER, i as i32),
        ParamKind::OutSize(i) => (ILC_PARAM_OUTPUT_SIZE, i as i32),
        ParamKind::ResDims(i) => (ILC_PARAM_TEXTURE_DIMS, i as i32),
        ParamKind::CounterPtr(i) => (ILC_PARAM_APPEND_COUNTER, i as i32),
        ParamKind::Texture {
            resource,
            sampler,
            unnorm,
            shape,
            float_mask,
        } => (
            ILC_PARAM_TEXTURE_HANDLE,
            ParamKind::texture_id(resource, sampler, unnorm, shape, float_mask),
        ),
    };
    // SAFETY: non-null, writable.
    unsafe {
        *out = IlcParam {
            offset: p.offset,
            size: p.size,
            kind,
            id,
        }
    };
    ILC_OK
}

/// Launch facts: static shared memory bytes, registers per thread, local memory bytes per
/// thread, and the required block size (0s if the kernel has none). Any output may be null.
///
/// # Safety
/// `kernel` must be null or live; each output null or writable (`block` for 3 values).
#[no_mangle]
pub unsafe extern "C" fn ilc_kernel_launch_info(
    kernel: *const IlcKernel,
    shared_bytes: *mut u32,
    registers: *mut u32,
    local_bytes: *mut u32,
    block: *mut u32,
) -> i32 {
    // SAFETY: null or live by the contract.
    let Some(k) = (unsafe { kernel.as_ref() }) else {
        return ILC_ERROR_INVALID_ARGUMENT;
    };
    let l = &k.kernel.layout;
    // SAFETY: each pointer is null or writable (block: three u32s) by the contract.
    unsafe {
        if !shared_bytes.is_null() {
            *shared_bytes = l.shared_size;
        }
        if !registers.is_null() {
            *registers = k.kernel.num_regs;
        }
        if !local_bytes.is_null() {
            *local_bytes = k.kernel.local_size;
        }
        if !block.is_null() {
            let b = l.block_size.unwrap_or([0, 0, 0]);
            for (i, v) in b.iter().enumerate() {
                *block.add(i) = *v;
            }
        }
    }
    ILC_OK
}

/// The launch assumptions the code was compiled with: `ILC_FLAG_LAUNCH_1D` if it needs a 1-D
/// grid (a driver recompiles without the flag for other launches); 0 for a null kernel.
///
/// # Safety
/// `kernel` must be null or live.
#[no_mangle]
pub unsafe extern "C" fn ilc_kernel_launch_flags(kernel: *const IlcKernel) -> u32 {
    // SAFETY: null or live by the contract.
    unsafe { kernel.as_ref() }.map_or(0, |k| {
        if k.kernel.layout.grid_1d {
            ILC_FLAG_LAUNCH_1D
        } else {
            0
        }
    })
}

/// Cache counters (all 0 without a cache). Any output may be null.
///
/// # Safety
/// `compiler` must be null or live; outputs null or writable.
#[no_mangle]
pub unsafe extern "C" fn ilc_cache_stats(
    compiler: *const IlcCompiler,
    hits: *mut u64,
    misses: *mut u64,
    evictions: *mut u64,
) {
    // SAFETY: null or live by the contract.
    let s = unsafe { compiler.as_ref() }
        .and_then(|c| c.cache.as_ref())
        .map(CompileCache::stats)
        .unwrap_or_default();
    // SAFETY: each output null or writable.
    unsafe {
        if !hits.is_null() {
            *hits = s.hits;
        }
        if !misses.is_null() {
            *misses = s.misses;
        }
        if !evictions.is_null() {
            *evictions = s.evictions;
        }
    }
}

/// The library version, a static NUL-terminated string.
#[no_mangle]
pub extern "C" fn ilc_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compile_through_the_c_abi() {
        let src = include_bytes!("../../../tests/examples/saxpy.il");
        let mut o = IlcOptions {
            opt_level: 9,
            sm: 0,
            ..DEFAULT_OPTIONS
        };
        // SAFETY: valid pointers to locals throughout.
        unsafe {
            ilc_options_default(&mut o);
            o.cache_bytes = 1 << 20;
            let mut c = std::ptr::null_mut();
            assert_eq!(ilc_compiler_new(&o, &mut c), ILC_OK);
            let mut k = std::ptr::null_mut();
            let mut err = std::ptr::null_mut();
            assert_eq!(
                ilc_compile(c, src.as_ptr(), src.len(), &mut k, &mut err),
                ILC_OK
            );
            let mut n = 0;
            assert!(!ilc_kernel_cubin(k, &mut n).is_null() && n > 0);
            assert!(ilc_kernel_param_count(k) >= 2);
            let mut p = IlcParam {
                offset: 9,
                size: 9,
                kind: 9,
                id: 9,
            };
            assert_eq!(ilc_kernel_param(k, 0, &mut p), ILC_OK);
            assert_eq!((p.offset, p.kind), (0, ILC_PARAM_UAV_POINTER));
            assert_eq!(ilc_kernel_param(k, 999, &mut p), ILC_ERROR_INVALID_ARGUMENT);
            // saxpy has no constant that needs the literal pool; a kernel with one exposes it.
            let mut words = 0;
            assert!(!ilc_kernel_code(k, &mut words).is_null() && words > 0);
            let mut n2 = 9;
            let _ = ilc_kernel_const_bank2(k, &mut n2);
            assert_eq!(n2, 0);
            assert!(ilc_kernel_const_bank2(std::ptr::null(), &mut n2).is_null());
            ilc_kernel_free(k);
            let mut k2 = std::ptr::null_mut();
            assert_eq!(
                ilc_compile(c, src.as_ptr(), src.len(), &mut k2, &mut err),
                ILC_OK
            );
            ilc_kernel_free(k2);
            let (mut h, mut m) = (0, 0);
            ilc_cache_stats(c, &mut h, &mut m, std::ptr::null_mut());
            assert_eq!((h, m), (1, 1));
            let lit = b"il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\n\
                        dcl_literal l0, 2, 0x3faa466f, 0, 0\nishl r0.x, vAbsTidFlat.x, l0.x\n\
                        uav_raw_load_id(0) r1.x, r0.x\nmul_ieee r1.x, r1.x, l0.y\n\
                        uav_raw_store_id(0) mem.x, r0.x, r1.x\nend\n";
            let mut kl = std::ptr::null_mut();
            assert_eq!(
                ilc_compile(c, lit.as_ptr(), lit.len(), &mut kl, &mut err),
                ILC_OK
            );
            let b2 = ilc_kernel_const_bank2(kl, &mut n2);
            assert_eq!(n2, 4);
            assert_eq!(
                std::slice::from_raw_parts(b2, n2),
                0x3faa466fu32.to_le_bytes()
            );
            ilc_kernel_free(kl);
            // Errors are codes with messages.
            let bad = b"il_cs_2_0\nfoo r0\nend\n";
            assert_eq!(
                ilc_compile(c, bad.as_ptr(), bad.len(), &mut k, &mut err),
                ILC_ERROR_COMPILE
            );
            assert!(!err.is_null());
            let text = std::ffi::CStr::from_ptr(err).to_string_lossy().to_string();
            assert!(text.contains("kernel.il:2"), "{text}");
            ilc_string_free(err);
            assert_eq!(
                ilc_compile(
                    std::ptr::null(),
                    bad.as_ptr(),
                    1,
                    &mut k,
                    std::ptr::null_mut()
                ),
                ILC_ERROR_INVALID_ARGUMENT
            );
            ilc_compiler_free(c);
        }
    }
}
