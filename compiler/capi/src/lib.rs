//! The C ABI of ilc (`include/ilc.h`): compile AMD IL to a cubin from C, as a driver JIT does.
//!
//! Handles are opaque: an `ilc_compiler` (options and an optional compile cache; safe to use
//! from several threads at once) and an `ilc_kernel` (the result: cubin, code words, assembly,
//! kernel name and launch layout; immutable). Every handle the library returns is released with
//! its `*_free` function; logs are `char*` strings released with `ilc_string_free`. Pointers
//! returned by accessors stay valid until the kernel is freed.
//!
//! Every entry point checks its pointers (a null handle or output pointer is
//! `ILC_ERROR_INVALID_ARGUMENT`) and catches panics at the boundary (`ILC_ERROR_INTERNAL`
//! with a message), so no input can unwind into C.
//!
//! ABI compatibility: [`ILC_ABI_VERSION`] numbers the binary interface, and the shared
//! library's SONAME is `libilc_capi.so.<ABI>` (build.rs), so a program linked against one ABI
//! never loads another. Within an ABI, [`IlcOptions`] only grows at its end: its first member
//! is the size the caller compiled it with, fields beyond that size take their defaults, and a
//! larger struct (a newer header) is accepted when the fields this library does not know are
//! zero. ABI 1 is the first versioned interface; it is not compatible with the unversioned 0.1
//! one (whose options had no size, whose `ilc_compile` took no names and returned no log on
//! success).

use std::ffi::{c_char, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use ilc::cache::CompileCache;
use ilc::spa5::abi::ParamKind;
use ilc::{Arch, CompiledKernel, Compiler, OptLevel, Options};

/// The binary interface version (`ILC_ABI_VERSION`; the SONAME's number), set in build.rs.
pub const ILC_ABI_VERSION: u32 = parse_u32(env!("ILC_ABI_VERSION"));

/// The library version as `major * 1_000_000 + minor * 1_000 + patch` (`ILC_VERSION_NUMBER`).
pub const ILC_VERSION_NUMBER: u32 = parse_u32(env!("CARGO_PKG_VERSION_MAJOR")) * 1_000_000
    + parse_u32(env!("CARGO_PKG_VERSION_MINOR")) * 1_000
    + parse_u32(env!("CARGO_PKG_VERSION_PATCH"));

/// A decimal number at compile time (the versions come from the build as strings).
const fn parse_u32(s: &str) -> u32 {
    let b = s.as_bytes();
    let mut v = 0u32;
    let mut i = 0;
    while i < b.len() {
        assert!(b[i].is_ascii_digit(), "not a decimal number");
        v = v * 10 + (b[i] - b'0') as u32;
        i += 1;
    }
    v
}

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
/// The view of typed UAV `id`: four 32-bit words, components per element (1..4), width,
/// height and depth in elements (default `1, size / 4, 1, 1`).
pub const ILC_PARAM_UAV_VIEW: i32 = 13;
/// Pixel-shader domain origin: x and y of the domain's first pixel (two 32-bit words).
pub const ILC_PARAM_DOMAIN_ORIGIN: i32 = 14;

/// Compiler options (`ilc_options`); fill with [`ilc_options_init`]. The layout is the ABI:
/// members are only ever appended (see the crate documentation).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IlcOptions {
    /// `sizeof(ilc_options)` as the caller compiled it (set by `ilc_options_init`).
    pub size: u32,
    /// 0..3.
    pub opt_level: u32,
    /// 50, 52 or 53.
    pub sm: u32,
    /// Most registers per thread, 1..254 (0: no limit beyond the hardware's).
    pub max_regs: u32,
    /// Bytes of compiled output to cache (0: no cache).
    pub cache_bytes: u64,
    /// Largest accepted source in bytes (0: the default, 64 MiB).
    pub max_source_bytes: u64,
    /// Largest accepted number of IL instructions after macro expansion and inlining (0: the
    /// default, 1 million); the IR may grow to 4 times as many instructions (at least the
    /// default `Limits::max_ir_instructions`).
    pub max_instructions: u64,
    /// Longest compile in milliseconds (0: no limit).
    pub max_compile_ms: u64,
    /// Deepest accepted control-flow nesting (0: the default, 1024).
    pub max_nesting: u32,
    /// `ILC_FLAG_*` bits.
    pub flags: u32,
    /// Storage formats of texture resources the code assumes with `ILC_FLAG_TEXTURE_LOADS`
    /// (`texture_format_count` entries, or null for none; copied by `ilc_compiler_new`).
    pub texture_formats: *const IlcTextureFormat,
    /// Entries of `texture_formats`.
    pub texture_format_count: u32,
    /// Entries of `sampler_states`.
    pub sampler_state_count: u32,
    /// Sampler states the code assumes with `ILC_FLAG_TEXTURE_LOADS` (or null for none).
    pub sampler_states: *const IlcSamplerState,
}

/// The storage of one texture resource (`ilc_texture_format`), as `ilc --texture ID=FORMATxN`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IlcTextureFormat {
    /// The resource id.
    pub resource: u32,
    /// One of the `ILC_TEXEL_*` channel formats.
    pub format: u32,
    /// Channels per texel, 1..4.
    pub channels: u32,
}

/// One sampler's state (`ilc_sampler_state`), as `ilc --sampler ID=FILTER,ADDRESS`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IlcSamplerState {
    /// The sampler id.
    pub sampler: u32,
    /// `ILC_FILTER_POINT` or `ILC_FILTER_LINEAR`.
    pub filter: u32,
    /// One of the `ILC_ADDRESS_*` modes, for every axis.
    pub address: u32,
}

/// Texel channel formats (`ilc_texture_format.format`): 32-bit float.
pub const ILC_TEXEL_F32: u32 = 0;
/// 32-bit unsigned integer.
pub const ILC_TEXEL_U32: u32 = 1;
/// 32-bit signed integer.
pub const ILC_TEXEL_S32: u32 = 2;
/// 8-bit unsigned normalized.
pub const ILC_TEXEL_UNORM8: u32 = 3;
/// 8-bit unsigned integer.
pub const ILC_TEXEL_U8: u32 = 4;
/// 16-bit unsigned normalized.
pub const ILC_TEXEL_UNORM16: u32 = 5;
/// 16-bit unsigned integer.
pub const ILC_TEXEL_U16: u32 = 6;
/// Sampler filters: the nearest texel.
pub const ILC_FILTER_POINT: u32 = 0;
/// Bi/trilinear interpolation (float formats).
pub const ILC_FILTER_LINEAR: u32 = 1;
/// Sampler addressing: clamp to the edge texel.
pub const ILC_ADDRESS_CLAMP: u32 = 0;
/// Repeat.
pub const ILC_ADDRESS_WRAP: u32 = 1;
/// Mirrored repeat.
pub const ILC_ADDRESS_MIRROR: u32 = 2;
/// Zero outside.
pub const ILC_ADDRESS_BORDER: u32 = 3;

/// Size of the ABI 1 `ilc_options`, the smallest a caller may pass (80 bytes on 64-bit
/// targets, as `ilc.h` says).
pub const ILC_OPTIONS_SIZE_V1: usize = std::mem::size_of::<IlcOptions>();
#[cfg(target_pointer_width = "64")]
const _: () = assert!(ILC_OPTIONS_SIZE_V1 == 80);

/// Skip the IL's out-of-range checks: the driver guarantees every access is in bounds.
pub const ILC_FLAG_ASSUME_IN_BOUNDS: u32 = 1;
/// The launch grid is 1-D (group ids `.y`/`.z` are 0); the kernel's launch layout records
/// it and a launch with a 2-D or 3-D grid needs a compile without it.
pub const ILC_FLAG_LAUNCH_1D: u32 = 2;
/// Keep every constant in the code instead of a literal pool in constant bank 2 (for a
/// loader of the raw code words without the cubin).
pub const ILC_FLAG_NO_LITERAL_POOL: u32 = 4;
/// Read textures with loads and filtering arithmetic (texels in a plain buffer) instead of
/// texture instructions on texture objects.
pub const ILC_FLAG_TEXTURE_LOADS: u32 = 8;
const KNOWN_FLAGS: u32 = ILC_FLAG_ASSUME_IN_BOUNDS
    | ILC_FLAG_LAUNCH_1D
    | ILC_FLAG_NO_LITERAL_POOL
    | ILC_FLAG_TEXTURE_LOADS;

const DEFAULT_OPTIONS: IlcOptions = IlcOptions {
    size: ILC_OPTIONS_SIZE_V1 as u32,
    opt_level: 2,
    sm: 50,
    max_regs: 0,
    cache_bytes: 0,
    max_source_bytes: 0,
    max_instructions: 0,
    max_compile_ms: 0,
    max_nesting: 0,
    flags: 0,
    texture_formats: std::ptr::null(),
    texture_format_count: 0,
    sampler_state_count: 0,
    sampler_states: std::ptr::null(),
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
    name: CString,
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
            let what = ilc::error::panic_message(p.as_ref());
            message(error, &format!("internal compiler error: {what}"));
            ILC_ERROR_INTERNAL
        }
    }
}

/// Fills the first `size` bytes of `options` with the defaults (-O2, sm_50, no register
/// limit, no cache) and sets `options->size = size`; pass `sizeof(ilc_options)`. Bytes past
/// the library's own struct (a newer header's fields) are zeroed.
///
/// # Safety
/// `options` must be null or point to `size` writable bytes.
#[no_mangle]
pub unsafe extern "C" fn ilc_options_init(options: *mut IlcOptions, size: usize) -> i32 {
    if options.is_null() || size < ILC_OPTIONS_SIZE_V1 || size > u32::MAX as usize {
        return ILC_ERROR_INVALID_ARGUMENT;
    }
    let own = std::mem::size_of::<IlcOptions>();
    let defaults = IlcOptions {
        size: size as u32,
        ..DEFAULT_OPTIONS
    };
    let dst = options.cast::<u8>();
    // SAFETY: `options` points to `size` writable bytes by the contract; we write
    // min(size, own) bytes of a plain-data struct and zero the rest of the `size` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(
            (&defaults as *const IlcOptions).cast::<u8>(),
            dst,
            size.min(own),
        );
        if size > own {
            std::ptr::write_bytes(dst.add(own), 0, size - own);
        }
    }
    ILC_OK
}

/// Reads a caller's options: its `size` first, then the members it has (the rest default).
///
/// # Safety
/// `options` must point to readable `ilc_options` of at least its `size` member's bytes.
unsafe fn read_options(options: *const IlcOptions) -> Result<IlcOptions, String> {
    // SAFETY: the first member is readable by the contract.
    let size = unsafe { options.cast::<u32>().read_unaligned() } as usize;
    let own = std::mem::size_of::<IlcOptions>();
    if size < ILC_OPTIONS_SIZE_V1 {
        return Err(format!(
            "ilc_options.size is {size}: initialise the options with \
             ilc_options_init(&options, sizeof options) (at least {ILC_OPTIONS_SIZE_V1} bytes)"
        ));
    }
    let src = options.cast::<u8>();
    if size > own {
        // SAFETY: `size` bytes are readable by the contract.
        let tail = unsafe { std::slice::from_raw_parts(src.add(own), size - own) };
        if tail.iter().any(|&b| b != 0) {
            return Err(format!(
                "ilc_options sets members this library (ABI {ILC_ABI_VERSION}, {own} bytes of \
                 options) does not know: the header is newer than the library"
            ));
        }
    }
    let mut o = DEFAULT_OPTIONS;
    // SAFETY: min(size, own) bytes are readable (contract) and writable (a local of `own`
    // bytes); every bit pattern is a valid IlcOptions (integers and raw pointers).
    unsafe {
        std::ptr::copy_nonoverlapping(src, (&mut o as *mut IlcOptions).cast::<u8>(), size.min(own));
    }
    Ok(o)
}

/// The texture settings of C options, or why they are refused (an unknown format, filter or
/// address mode, a channel count outside 1..4, an id given twice).
///
/// # Safety
/// Each array pointer must be null or point to its count of readable entries.
unsafe fn texture_config(o: &IlcOptions) -> Result<ilc::lower::TexConfig, String> {
    use isa_amdil::interp::texture::{AddressMode, Filter, SamplerState, TexelFormat};
    /// The entries of a C array (none for null).
    ///
    /// # Safety
    /// `p` null or pointing to `n` readable entries.
    unsafe fn entries<'a, T>(p: *const T, n: u32, what: &str) -> Result<&'a [T], String> {
        match (p.is_null(), n) {
            (_, 0) => Ok(&[]),
            (true, _) => Err(format!("{what} is null with a count of {n}")),
            // SAFETY: non-null with `n` readable entries by the contract.
            (false, _) => Ok(unsafe { std::slice::from_raw_parts(p, n as usize) }),
        }
    }
    let mut config = ilc::lower::TexConfig {
        use_loads: o.flags & ILC_FLAG_TEXTURE_LOADS != 0,
        ..Default::default()
    };
    // SAFETY: by the contract.
    let formats = unsafe { entries(o.texture_formats, o.texture_format_count, "texture_formats") }?;
    for t in formats {
        let format = match t.format {
            ILC_TEXEL_F32 => TexelFormat::F32,
            ILC_TEXEL_U32 => TexelFormat::U32,
            ILC_TEXEL_S32 => TexelFormat::S32,
            ILC_TEXEL_UNORM8 => TexelFormat::Unorm8,
            ILC_TEXEL_U8 => TexelFormat::U8,
            ILC_TEXEL_UNORM16 => TexelFormat::Unorm16,
            ILC_TEXEL_U16 => TexelFormat::U16,
            n => {
                return Err(format!(
                    "texture resource {}: format {n} is not an ILC_TEXEL_*",
                    t.resource
                ))
            }
        };
        if !(1..=4).contains(&t.channels) {
            return Err(format!(
                "texture resource {}: {} channels (1..4)",
                t.resource, t.channels
            ));
        }
        if config
            .textures
            .insert(t.resource, (format, t.channels as u8))
            .is_some()
        {
            return Err(format!("texture resource {} is given twice", t.resource));
        }
    }
    // SAFETY: by the contract.
    let samplers = unsafe { entries(o.sampler_states, o.sampler_state_count, "sampler_states") }?;
    for st in samplers {
        let filter = match st.filter {
            ILC_FILTER_POINT => Filter::Point,
            ILC_FILTER_LINEAR => Filter::Linear,
            n => {
                return Err(format!(
                    "sampler {}: filter {n} is not an ILC_FILTER_*",
                    st.sampler
                ))
            }
        };
        let address = match st.address {
            ILC_ADDRESS_CLAMP => AddressMode::Clamp,
            ILC_ADDRESS_WRAP => AddressMode::Wrap,
            ILC_ADDRESS_MIRROR => AddressMode::Mirror,
            ILC_ADDRESS_BORDER => AddressMode::Border,
            n => {
                return Err(format!(
                    "sampler {}: address mode {n} is not an ILC_ADDRESS_*",
                    st.sampler
                ))
            }
        };
        let state = SamplerState {
            filter,
            address: [address; 3],
        };
        if config.samplers.insert(st.sampler, state).is_some() {
            return Err(format!("sampler {} is given twice", st.sampler));
        }
    }
    Ok(config)
}

/// The compiler options for C options, or why they are refused.
///
/// # Safety
/// The texture arrays of `o` must be null or hold their counts of readable entries.
unsafe fn to_options(o: &IlcOptions) -> Result<Options, String> {
    let opt_level = match o.opt_level {
        0 => OptLevel::O0,
        1 => OptLevel::O1,
        2 => OptLevel::O2,
        3 => OptLevel::O3,
        n => return Err(format!("opt_level {n} is not 0..3")),
    };
    let arch = match o.sm {
        50 => Arch::Sm50,
        52 => Arch::Sm52,
        53 => Arch::Sm53,
        n => return Err(format!("sm {n} is not 50, 52 or 53")),
    };
    if o.flags & !KNOWN_FLAGS != 0 {
        return Err(format!(
            "flags {:#x} has bits this library does not know ({:#x})",
            o.flags,
            o.flags & !KNOWN_FLAGS
        ));
    }
    let d = ilc::Limits::default();
    let pick = |v: u64, default: usize| if v == 0 { default } else { v as usize };
    let limits = ilc::Limits {
        max_source_bytes: pick(o.max_source_bytes, d.max_source_bytes),
        max_instructions: pick(o.max_instructions, d.max_instructions),
        max_nesting: pick(u64::from(o.max_nesting), d.max_nesting),
        max_compile_ms: o.max_compile_ms,
        // Not in the C struct: scales with the instruction limit.
        max_ir_instructions: d
            .max_ir_instructions
            .max(pick(o.max_instructions, d.max_instructions).saturating_mul(4)),
    };
    let options = Options {
        opt_level,
        arch,
        assume_in_bounds: o.flags & ILC_FLAG_ASSUME_IN_BOUNDS != 0,
        launch_1d: o.flags & ILC_FLAG_LAUNCH_1D != 0,
        no_literal_pool: o.flags & ILC_FLAG_NO_LITERAL_POOL != 0,
        // SAFETY: by this function's contract.
        textures: unsafe { texture_config(o) }?,
        max_regs: (o.max_regs != 0).then_some(o.max_regs),
        limits,
        ..Options::default()
    };
    options.validate().map_err(|e| e.message)?;
    Ok(options)
}

/// Creates a compiler; `*out` receives the handle (free with `ilc_compiler_free`). Options
/// it refuses are `ILC_ERROR_INVALID_ARGUMENT` with a message in `*error` (if `error` is not
/// null; free it with `ilc_string_free`; null on success).
///
/// # Safety
/// `options` must be null (defaults) or point to `ilc_options` of its `size` member's bytes,
/// whose texture arrays are null or hold their counts of entries; `out` must point to
/// writable storage for a pointer; `error` null or writable.
#[no_mangle]
pub unsafe extern "C" fn ilc_compiler_new(
    options: *const IlcOptions,
    out: *mut *mut IlcCompiler,
    error: *mut *mut c_char,
) -> i32 {
    if !error.is_null() {
        // SAFETY: non-null, writable by the contract.
        unsafe { *error = std::ptr::null_mut() };
    }
    guard(error, || {
        if out.is_null() {
            message(error, "null `out` argument");
            return ILC_ERROR_INVALID_ARGUMENT;
        }
        let o = if options.is_null() {
            Ok(DEFAULT_OPTIONS)
        } else {
            // SAFETY: non-null, readable by the contract.
            unsafe { read_options(options) }
        };
        // SAFETY: the texture arrays are readable by the contract of ilc_compiler_new.
        let options = match o.and_then(|o| unsafe { to_options(&o) }.map(|opts| (o, opts))) {
            Ok(x) => x,
            Err(m) => {
                message(error, &format!("invalid options: {m}"));
                return ILC_ERROR_INVALID_ARGUMENT;
            }
        };
        let (o, options) = options;
        let compiler = Compiler::new(options);
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

/// A NUL-terminated C string argument as UTF-8, or why not.
///
/// # Safety
/// `s` must be null or a NUL-terminated string.
unsafe fn c_str<'a>(s: *const c_char, what: &str) -> Result<Option<&'a str>, String> {
    if s.is_null() {
        return Ok(None);
    }
    // SAFETY: non-null and NUL-terminated by the contract.
    unsafe { std::ffi::CStr::from_ptr(s) }
        .to_str()
        .map(Some)
        .map_err(|_| format!("{what} is not UTF-8"))
}

/// Compiles `len` bytes of IL (text or binary tokens) into `*kernel`, naming the kernel
/// `kernel_name` (a C identifier; null: `main`) and labelling diagnostics with `source_name`
/// (null: `<source>`). `*log` (if `log` is not null) receives the rendered diagnostics: the
/// errors (and warnings) on failure, the warnings on success, null when there are none; free
/// it with `ilc_string_free`.
///
/// # Safety
/// `compiler` must be a live handle, `source` must point to `len` readable bytes, the names
/// null or NUL-terminated, `kernel` point to writable storage for a pointer, `log` null or to
/// writable storage for a pointer.
#[no_mangle]
pub unsafe extern "C" fn ilc_compile(
    compiler: *const IlcCompiler,
    source: *const u8,
    len: usize,
    source_name: *const c_char,
    kernel_name: *const c_char,
    kernel: *mut *mut IlcKernel,
    log: *mut *mut c_char,
) -> i32 {
    if !log.is_null() {
        // SAFETY: non-null, writable by the contract.
        unsafe { *log = std::ptr::null_mut() };
    }
    guard(log, || {
        if compiler.is_null() || kernel.is_null() || (source.is_null() && len != 0) {
            message(log, "null argument");
            return ILC_ERROR_INVALID_ARGUMENT;
        }
        // SAFETY: both null or NUL-terminated by the contract.
        let names = unsafe {
            (
                c_str(source_name, "source_name"),
                c_str(kernel_name, "kernel_name"),
            )
        };
        let (source_name, kernel_name) = match names {
            (Ok(s), Ok(k)) => (s, k),
            (Err(m), _) | (_, Err(m)) => {
                message(log, &m);
                return ILC_ERROR_INVALID_ARGUMENT;
            }
        };
        let source_name = source_name.unwrap_or("<source>");
        // SAFETY: non-null live handle.
        let c = unsafe { &*compiler };
        let named;
        let compiler = match kernel_name {
            None => &c.compiler,
            Some(name) => {
                let options = Options {
                    kernel_name: Some(name.to_owned()),
                    ..c.compiler.options().clone()
                };
                if let Err(e) = options.validate() {
                    message(log, &e.message);
                    return ILC_ERROR_INVALID_ARGUMENT;
                }
                named = Compiler::new(options);
                &named
            }
        };
        let src = if len == 0 {
            &[][..]
        } else {
            // SAFETY: `source` points to `len` readable bytes by the contract.
            unsafe { std::slice::from_raw_parts(source, len) }
        };
        let result = match &c.cache {
            Some(cache) => cache.compile(compiler, src),
            None => compiler.compile(src).map(Arc::new),
        };
        let text = String::from_utf8_lossy(src);
        match result {
            Ok(k) => {
                if !k.warnings.0.is_empty() {
                    message(log, &k.warnings.render(source_name, &text));
                }
                let asm = CString::new(k.asm_nvdisasm().replace('\0', " ")).unwrap_or_default();
                // Validated: a C identifier has no NUL.
                let name = CString::new(k.name.clone()).unwrap_or_default();
                let h = Box::new(IlcKernel {
                    kernel: k,
                    asm,
                    name,
                });
                // SAFETY: non-null, writable.
                unsafe { *kernel = Box::into_raw(h) };
                ILC_OK
            }
            Err(d) => {
                message(log, &d.render(source_name, &text));
                ILC_ERROR_COMPILE
            }
        }
    })
}

/// A static description of a status code (`"ok"`, `"invalid argument"`, ...); never null.
#[no_mangle]
pub extern "C" fn ilc_status_string(status: i32) -> *const c_char {
    let s: &'static str = match status {
        ILC_OK => "ok\0",
        ILC_ERROR_INVALID_ARGUMENT => "invalid argument\0",
        ILC_ERROR_COMPILE => "compile error\0",
        ILC_ERROR_INTERNAL => "internal compiler error\0",
        _ => "unknown status\0",
    };
    s.as_ptr().cast()
}

/// Releases a string returned through a `log` or `error` argument (null is ignored).
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

/// The slice `data` picks from a live kernel, as a pointer, with its element count written to
/// `*len` when `len` is not null; null (and `*len` untouched) for a null kernel.
///
/// # Safety
/// `kernel` must be null or live; `len` null or writable.
unsafe fn slice_out<T>(
    kernel: *const IlcKernel,
    len: *mut usize,
    data: fn(&IlcKernel) -> &[T],
) -> *const T {
    // SAFETY: null or live by the contract.
    let Some(k) = (unsafe { kernel.as_ref() }) else {
        return std::ptr::null();
    };
    let d = data(k);
    if !len.is_null() {
        // SAFETY: non-null, writable.
        unsafe { *len = d.len() };
    }
    d.as_ptr()
}

/// The cubin bytes; `*len` receives their count. Null for a null kernel.
///
/// # Safety
/// `kernel` must be null or live; `len` null or writable.
#[no_mangle]
pub unsafe extern "C" fn ilc_kernel_cubin(kernel: *const IlcKernel, len: *mut usize) -> *const u8 {
    unsafe { slice_out(kernel, len, |k| &k.kernel.cubin) }
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
    unsafe { slice_out(kernel, words, |k| &k.kernel.code) }
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
    unsafe { slice_out(kernel, len, |k| &k.kernel.const_bank2) }
}

/// The kernel's symbol in the cubin (what `cuModuleGetFunction` looks up), NUL-terminated;
/// null for a null kernel.
///
/// # Safety
/// `kernel` must be null or live.
#[no_mangle]
pub unsafe extern "C" fn ilc_kernel_name(kernel: *const IlcKernel) -> *const c_char {
    // SAFETY: null or live by the contract.
    unsafe { kernel.as_ref() }.map_or(std::ptr::null(), |k| k.name.as_ptr())
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
    let kind = match p.kind {
        ParamKind::UavPtr(_) => ILC_PARAM_UAV_POINTER,
        ParamKind::UavSize(_) => ILC_PARAM_UAV_SIZE,
        ParamKind::GlobalPtr => ILC_PARAM_GLOBAL_POINTER,
        ParamKind::GlobalSize => ILC_PARAM_GLOBAL_SIZE,
        ParamKind::SrvPtr(_) => ILC_PARAM_SRV_POINTER,
        ParamKind::SrvSize(_) => ILC_PARAM_SRV_SIZE,
        ParamKind::CbData(_) => ILC_PARAM_CONSTANT_BUFFER,
        ParamKind::Domain => ILC_PARAM_DOMAIN,
        ParamKind::OutPtr(_) => ILC_PARAM_OUTPUT_POINTER,
        ParamKind::OutSize(_) => ILC_PARAM_OUTPUT_SIZE,
        ParamKind::ResDims(_) => ILC_PARAM_TEXTURE_DIMS,
        ParamKind::UavView(_) => ILC_PARAM_UAV_VIEW,
        ParamKind::DomainOrigin => ILC_PARAM_DOMAIN_ORIGIN,
        ParamKind::CounterPtr(_) => ILC_PARAM_APPEND_COUNTER,
        ParamKind::Texture { .. } => ILC_PARAM_TEXTURE_HANDLE,
    };
    let id = p.kind.id();
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

/// The library version as a number, [`ILC_VERSION_NUMBER`].
#[no_mangle]
pub extern "C" fn ilc_version_number() -> u32 {
    ILC_VERSION_NUMBER
}

/// The binary interface version, [`ILC_ABI_VERSION`]: a program compares it with the header's
/// `ILC_ABI_VERSION` at start-up.
#[no_mangle]
pub extern "C" fn ilc_abi_version() -> u32 {
    ILC_ABI_VERSION
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::CStr;

    fn options() -> IlcOptions {
        let mut o = std::mem::MaybeUninit::<IlcOptions>::uninit();
        // SAFETY: ilc_options_init writes all `size_of` bytes.
        unsafe {
            assert_eq!(
                ilc_options_init(o.as_mut_ptr(), std::mem::size_of::<IlcOptions>()),
                ILC_OK
            );
            o.assume_init()
        }
    }

    /// Creates a compiler or returns the message.
    fn new_compiler(o: *const IlcOptions) -> Result<*mut IlcCompiler, String> {
        let mut c = std::ptr::null_mut();
        let mut err = std::ptr::null_mut();
        // SAFETY: valid pointers; the message is freed.
        unsafe {
            match ilc_compiler_new(o, &mut c, &mut err) {
                ILC_OK => {
                    assert!(err.is_null());
                    Ok(c)
                }
                st => {
                    assert_eq!(st, ILC_ERROR_INVALID_ARGUMENT);
                    let m = CStr::from_ptr(err).to_string_lossy().into_owned();
                    ilc_string_free(err);
                    Err(m)
                }
            }
        }
    }

    #[test]
    fn compile_through_the_c_abi() {
        let src = include_bytes!("../../../tests/examples/saxpy.il");
        let mut o = options();
        assert_eq!(o, DEFAULT_OPTIONS);
        o.cache_bytes = 1 << 20;
        let c = new_compiler(&o).unwrap();
        // SAFETY: valid pointers to locals throughout.
        unsafe {
            let mut k = std::ptr::null_mut();
            let mut log = std::ptr::null_mut();
            let compile = |name: *const c_char, k: &mut *mut IlcKernel, log: &mut *mut c_char| {
                ilc_compile(c, src.as_ptr(), src.len(), std::ptr::null(), name, k, log)
            };
            assert_eq!(compile(c"saxpy".as_ptr(), &mut k, &mut log), ILC_OK);
            assert!(log.is_null(), "no warnings, no log");
            assert_eq!(CStr::from_ptr(ilc_kernel_name(k)), c"saxpy");
            let mut n = 0;
            assert!(!ilc_kernel_cubin(k, &mut n).is_null() && n > 0);
            let cubin = std::slice::from_raw_parts(ilc_kernel_cubin(k, &mut n), n);
            assert!(cubin.windows(6).any(|w| w == b"saxpy\0"));
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
            // The same source and name hit the cache; another name is another kernel.
            let mut k2 = std::ptr::null_mut();
            assert_eq!(compile(c"saxpy".as_ptr(), &mut k2, &mut log), ILC_OK);
            ilc_kernel_free(k2);
            assert_eq!(compile(std::ptr::null(), &mut k2, &mut log), ILC_OK);
            assert_eq!(CStr::from_ptr(ilc_kernel_name(k2)), c"main");
            ilc_kernel_free(k2);
            let (mut h, mut m) = (0, 0);
            ilc_cache_stats(c, &mut h, &mut m, std::ptr::null_mut());
            assert_eq!((h, m), (1, 2));
            // A name that is not a C identifier is refused, not changed.
            assert_eq!(
                compile(c"bad name;x".as_ptr(), &mut k2, &mut log),
                ILC_ERROR_INVALID_ARGUMENT
            );
            let text = CStr::from_ptr(log).to_string_lossy().into_owned();
            assert!(text.contains("C identifier"), "{text}");
            ilc_string_free(log);
            let lit = b"il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\n\
                        dcl_literal l0, 2, 0x3faa466f, 0, 0\nishl r0.x, vAbsTidFlat.x, l0.x\n\
                        uav_raw_load_id(0) r1.x, r0.x\nmul_ieee r1.x, r1.x, l0.y\n\
                        uav_raw_store_id(0) mem.x, r0.x, r1.x\nend\n";
            let mut kl = std::ptr::null_mut();
            assert_eq!(
                ilc_compile(
                    c,
                    lit.as_ptr(),
                    lit.len(),
                    std::ptr::null(),
                    std::ptr::null(),
                    &mut kl,
                    &mut log
                ),
                ILC_OK
            );
            let b2 = ilc_kernel_const_bank2(kl, &mut n2);
            assert_eq!(n2, 4);
            assert_eq!(
                std::slice::from_raw_parts(b2, n2),
                0x3faa466fu32.to_le_bytes()
            );
            ilc_kernel_free(kl);
            // Errors are codes with messages, labelled with the source name.
            let bad = b"il_cs_2_0\nfoo r0\nend\n";
            assert_eq!(
                ilc_compile(
                    c,
                    bad.as_ptr(),
                    bad.len(),
                    c"k.il".as_ptr(),
                    std::ptr::null(),
                    &mut k,
                    &mut log
                ),
                ILC_ERROR_COMPILE
            );
            assert!(!log.is_null());
            let text = CStr::from_ptr(log).to_string_lossy().to_string();
            assert!(text.contains("k.il:2"), "{text}");
            ilc_string_free(log);
            assert_eq!(
                ilc_compile(
                    std::ptr::null(),
                    bad.as_ptr(),
                    1,
                    std::ptr::null(),
                    std::ptr::null(),
                    &mut k,
                    std::ptr::null_mut()
                ),
                ILC_ERROR_INVALID_ARGUMENT
            );
            ilc_compiler_free(c);
        }
    }

    #[test]
    fn options_are_versioned_and_checked() {
        // Refused values carry a message naming the member.
        for (f, needle) in [
            (
                (|o: &mut IlcOptions| o.sm = 61) as fn(&mut IlcOptions),
                "sm 61",
            ),
            (|o| o.opt_level = 4, "opt_level 4"),
            (|o| o.max_regs = 300, "register limit 300"),
            (|o| o.flags = 0x100, "flags 0x100"),
            (|o| o.size = 8, "ilc_options_init"),
        ] {
            let mut o = options();
            f(&mut o);
            let m = new_compiler(&o).unwrap_err();
            assert!(m.contains(needle), "{m}");
        }
        // A newer header's larger struct: accepted when its unknown members are zero.
        #[repr(C)]
        struct Newer {
            base: IlcOptions,
            extra: u64,
        }
        let mut n = std::mem::MaybeUninit::<Newer>::uninit();
        // SAFETY: `size_of::<Newer>()` writable bytes.
        let mut n = unsafe {
            assert_eq!(
                ilc_options_init(n.as_mut_ptr().cast(), std::mem::size_of::<Newer>()),
                ILC_OK
            );
            n.assume_init()
        };
        assert_eq!(n.extra, 0);
        assert_eq!(n.base.size as usize, std::mem::size_of::<Newer>());
        let c = new_compiler(&n.base).unwrap();
        // SAFETY: live handle.
        unsafe { ilc_compiler_free(c) };
        n.extra = 1;
        assert!(new_compiler(&n.base).unwrap_err().contains("does not know"));
        // Too small a struct, and null, for ilc_options_init.
        let mut o = options();
        // SAFETY: valid pointer; the size is refused before any write.
        assert_eq!(
            unsafe { ilc_options_init(&mut o, 8) },
            ILC_ERROR_INVALID_ARGUMENT
        );
        // SAFETY: null is checked.
        assert_eq!(
            unsafe { ilc_options_init(std::ptr::null_mut(), 64) },
            ILC_ERROR_INVALID_ARGUMENT
        );
        // The flags reach the compiler.
        let mut o = options();
        o.flags = KNOWN_FLAGS;
        let c = new_compiler(&o).unwrap();
        // SAFETY: live handle.
        let opts = unsafe { (*c).compiler.options().clone() };
        assert!(opts.assume_in_bounds && opts.launch_1d && opts.no_literal_pool);
        assert!(opts.textures.use_loads);
        // SAFETY: live handle.
        unsafe { ilc_compiler_free(c) };
    }

    #[test]
    fn texture_settings_are_copied_and_checked() {
        use isa_amdil::interp::texture::{AddressMode, Filter, TexelFormat};
        let tex = |resource, format, channels| IlcTextureFormat {
            resource,
            format,
            channels,
        };
        let smp = |sampler, filter, address| IlcSamplerState {
            sampler,
            filter,
            address,
        };
        let with = |t: &[IlcTextureFormat], sm: &[IlcSamplerState]| {
            let mut o = options();
            o.flags = ILC_FLAG_TEXTURE_LOADS;
            o.texture_formats = t.as_ptr();
            o.texture_format_count = t.len() as u32;
            o.sampler_states = sm.as_ptr();
            o.sampler_state_count = sm.len() as u32;
            new_compiler(&o)
        };
        let formats = [tex(0, ILC_TEXEL_UNORM8, 4), tex(3, ILC_TEXEL_F32, 1)];
        let samplers = [smp(1, ILC_FILTER_LINEAR, ILC_ADDRESS_WRAP)];
        let c = with(&formats, &samplers).unwrap();
        // SAFETY: live handle.
        let t = unsafe { (*c).compiler.options().textures.clone() };
        // SAFETY: live handle, freed once.
        unsafe { ilc_compiler_free(c) };
        assert!(t.use_loads);
        assert_eq!(t.textures[&0], (TexelFormat::Unorm8, 4));
        assert_eq!(t.textures[&3], (TexelFormat::F32, 1));
        assert_eq!(t.samplers[&1].filter, Filter::Linear);
        assert_eq!(t.samplers[&1].address, [AddressMode::Wrap; 3]);
        for (t, sm, needle) in [
            (&[tex(0, 9, 4)][..], &[][..], "format 9"),
            (&[tex(0, ILC_TEXEL_U8, 5)], &[], "5 channels"),
            (
                &[tex(2, ILC_TEXEL_U8, 1), tex(2, ILC_TEXEL_U16, 1)],
                &[],
                "given twice",
            ),
            (&[], &[smp(0, 2, 0)], "filter 2"),
            (&[], &[smp(0, 0, 7)], "address mode 7"),
            (
                &[],
                &[smp(4, 0, 0), smp(4, 1, 0)],
                "sampler 4 is given twice",
            ),
        ] {
            let m = with(t, sm).unwrap_err();
            assert!(m.contains(needle), "{m}");
        }
        let mut o = options();
        o.texture_format_count = 2;
        assert!(new_compiler(&o)
            .unwrap_err()
            .contains("null with a count of 2"));
    }

    #[test]
    fn versions_and_status_strings() {
        assert_eq!(ilc_abi_version(), 1);
        let v: Vec<u32> = env!("CARGO_PKG_VERSION")
            .split('.')
            .map(|x| x.parse().unwrap())
            .collect();
        assert_eq!(ilc_version_number(), v[0] * 1_000_000 + v[1] * 1000 + v[2]);
        for (st, text) in [
            (ILC_OK, "ok"),
            (ILC_ERROR_INVALID_ARGUMENT, "invalid argument"),
            (ILC_ERROR_COMPILE, "compile error"),
            (ILC_ERROR_INTERNAL, "internal compiler error"),
            (77, "unknown status"),
        ] {
            // SAFETY: a static NUL-terminated string.
            assert_eq!(
                unsafe { CStr::from_ptr(ilc_status_string(st)) }.to_str(),
                Ok(text)
            );
        }
    }
}
