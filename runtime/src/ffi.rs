//! The C ABI: `cal.h`, `calcl.h` and `cal_ext.h` functions.
//!
//! Each function zeroes its out-parameters, checks pointers (null is
//! `CAL_RESULT_INVALID_PARAMETER`), runs the Rust implementation under `catch_unwind` and
//! returns its `CAL_RESULT_*`; the message of a failure goes to this thread's
//! `calGetErrorString` (runtime calls) or `calclGetErrorString` (compiler calls). A panic
//! becomes `CAL_RESULT_ERROR` with an "internal error" message instead of unwinding into C.

#![allow(clippy::missing_safety_doc)]

use std::ffi::{c_char, c_void, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use crate::compiler;
use crate::error::{last_ptr, set_last, CalError, Channel};
use crate::launch::Shape;
use crate::runtime::{self, VERSION};
use crate::types::*;

/// Environment variable: when set (to anything but `0`), every failing call prints its
/// code and message to stderr, for finding out why an unmodified program stops.
pub const LOG_ENV: &str = "ILC_CAL_LOG";

fn log_errors() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| std::env::var(LOG_ENV).is_ok_and(|v| v != "0"))
}

fn guard(ch: Channel, f: impl FnOnce() -> Result<(), CalError>) -> CALresult {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => CAL_RESULT_OK,
        Ok(Err(e)) => {
            if log_errors() {
                eprintln!("ilc CAL runtime: {e}");
            }
            set_last(ch, &e.message);
            e.code
        }
        Err(p) => {
            let what = ilc::error::panic_message(p.as_ref());
            set_last(ch, &format!("internal error in ilc's CAL runtime: {what}"));
            CAL_RESULT_ERROR
        }
    }
}

fn rt(f: impl FnOnce() -> Result<(), CalError>) -> CALresult {
    guard(Channel::Runtime, f)
}

fn cl(f: impl FnOnce() -> Result<(), CalError>) -> CALresult {
    guard(Channel::Compiler, f)
}

/// Writes `v` to `*p` if `p` is not null: an optional out-parameter, or the empty value an
/// out-parameter holds when the call fails.
unsafe fn put_opt<T>(p: *mut T, v: T) {
    if !p.is_null() {
        // SAFETY: non-null and, by the API contract, writable.
        unsafe { p.write(v) };
    }
}

/// Zeroes `*p` if `p` is not null.
unsafe fn zero<T: Default>(p: *mut T) {
    unsafe { put_opt(p, T::default()) }
}

/// Reads `*p`; null is `CAL_RESULT_INVALID_PARAMETER`.
unsafe fn get<T: Copy>(p: *const T, what: &str) -> Result<T, CalError> {
    if p.is_null() {
        return Err(CalError::invalid(format!("{what} is a null pointer")));
    }
    // SAFETY: non-null and, by the API contract, readable.
    Ok(unsafe { *p })
}

/// The `n` elements at `p` (none when `n` is 0, whatever `p` is); null with `n > 0` is
/// `CAL_RESULT_INVALID_PARAMETER`.
unsafe fn slice<'a, T>(p: *const T, n: CALuint, what: &str) -> Result<&'a [T], CalError> {
    if n == 0 {
        return Ok(&[]);
    }
    if p.is_null() {
        return Err(CalError::invalid(format!("{what} is a null pointer")));
    }
    // SAFETY: non-null, and the caller passes `n` elements.
    Ok(unsafe { std::slice::from_raw_parts(p, n as usize) })
}

/// Writes `v` to `*p`; null is `CAL_RESULT_INVALID_PARAMETER`.
unsafe fn put<T>(p: *mut T, v: T, what: &str) -> Result<(), CalError> {
    if p.is_null() {
        return Err(CalError::invalid(format!("{what} is a null pointer")));
    }
    // SAFETY: non-null and, by the API contract, writable.
    unsafe { p.write(v) };
    Ok(())
}

/// A C string argument.
unsafe fn text<'a>(p: *const c_char, what: &str) -> Result<&'a str, CalError> {
    if p.is_null() {
        return Err(CalError::invalid(format!("{what} is a null pointer")));
    }
    // SAFETY: non-null and, by the API contract, NUL-terminated.
    unsafe { CStr::from_ptr(p) }
        .to_str()
        .map_err(|_| CalError::invalid(format!("{what} is not UTF-8")))
}

// ---- subsystem -------------------------------------------------------------------------

/// `calInit`.
#[no_mangle]
pub extern "C" fn calInit() -> CALresult {
    rt(runtime::init)
}

/// `calShutdown`.
#[no_mangle]
pub extern "C" fn calShutdown() -> CALresult {
    rt(runtime::shutdown)
}

/// `calGetVersion`.
#[no_mangle]
pub unsafe extern "C" fn calGetVersion(
    major: *mut CALuint,
    minor: *mut CALuint,
    imp: *mut CALuint,
) -> CALresult {
    rt(|| unsafe {
        put(major, VERSION[0], "major")?;
        put(minor, VERSION[1], "minor")?;
        put(imp, VERSION[2], "imp")
    })
}

/// `calGetErrorString`.
#[no_mangle]
pub extern "C" fn calGetErrorString() -> *const c_char {
    last_ptr(Channel::Runtime)
}

// ---- devices ---------------------------------------------------------------------------

/// `calDeviceGetCount`.
#[no_mangle]
pub unsafe extern "C" fn calDeviceGetCount(count: *mut CALuint) -> CALresult {
    unsafe { zero(count) };
    rt(|| runtime::with(|r| unsafe { put(count, r.device_count(), "count") }))
}

/// `calDeviceGetInfo`.
#[no_mangle]
pub unsafe extern "C" fn calDeviceGetInfo(info: *mut CALdeviceinfo, ordinal: CALuint) -> CALresult {
    rt(|| runtime::with(|r| unsafe { put(info, r.device_info(ordinal)?, "info") }))
}

/// `calDeviceGetAttribs`: fills `attribs->struct_size` bytes (the caller's struct, which
/// older headers declare shorter).
#[no_mangle]
pub unsafe extern "C" fn calDeviceGetAttribs(
    attribs: *mut CALdeviceattribs,
    ordinal: CALuint,
) -> CALresult {
    rt(|| {
        runtime::with(|r| unsafe {
            put_sized(attribs, "attribs", "CALdeviceattribs", 8, || {
                r.device_attribs(ordinal)
            })
        })
    })
}

/// Writes `value()` to the caller's struct `*out` whose first field, a `u32`, says how many
/// bytes it holds: the bytes after that field, up to that size (a caller built against an
/// older header has a shorter struct). Null or a size below `min` is
/// `CAL_RESULT_INVALID_PARAMETER`.
///
/// # Safety
/// `T` is `repr(C)` with the `u32` size first; `out` is null or holds that many writable bytes.
unsafe fn put_sized<T>(
    out: *mut T,
    what: &str,
    ty: &str,
    min: usize,
    value: impl FnOnce() -> Result<T, CalError>,
) -> Result<(), CalError> {
    if out.is_null() {
        return Err(CalError::invalid(format!("{what} is a null pointer")));
    }
    let v = value()?;
    // SAFETY: the caller's struct holds at least its size field.
    let size = unsafe { out.cast::<u32>().read() } as usize;
    if size < min {
        return Err(CalError::invalid(format!(
            "{what}->struct_size is {size}: set it to sizeof({ty})"
        )));
    }
    let n = size.min(std::mem::size_of::<T>());
    // SAFETY: copies `n` <= both sizes bytes after the size field, into the caller's struct
    // of `size` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(
            (&v as *const T).cast::<u8>().add(4),
            out.cast::<u8>().add(4),
            n - 4,
        );
    }
    Ok(())
}

/// `calDeviceGetStatus`: fills `status->struct_size` bytes.
#[no_mangle]
pub unsafe extern "C" fn calDeviceGetStatus(
    status: *mut CALdevicestatus,
    dev: CALhandle,
) -> CALresult {
    rt(|| {
        runtime::with(|r| unsafe {
            put_sized(status, "status", "CALdevicestatus", 4, || {
                r.device_status(dev)
            })
        })
    })
}

/// `calDeviceOpen`.
#[no_mangle]
pub unsafe extern "C" fn calDeviceOpen(dev: *mut CALhandle, ordinal: CALuint) -> CALresult {
    unsafe { zero(dev) };
    rt(|| runtime::with(|r| unsafe { put(dev, r.device_open(ordinal)?, "dev") }))
}

/// `calDeviceClose`.
#[no_mangle]
pub extern "C" fn calDeviceClose(dev: CALhandle) -> CALresult {
    rt(|| runtime::with(|r| r.device_close(dev)))
}

// ---- resources -------------------------------------------------------------------------

unsafe fn alloc(
    res: *mut CALhandle,
    devs: &[CALhandle],
    width: CALuint,
    height: Option<CALuint>,
    format: u32,
    flags: CALuint,
) -> CALresult {
    unsafe { zero(res) };
    rt(|| {
        runtime::with(|r| {
            if res.is_null() {
                return Err(CalError::invalid("res is a null pointer"));
            }
            let h = r.res_alloc(devs, width, height, format, flags)?;
            // SAFETY: checked non-null.
            unsafe { res.write(h) };
            Ok(())
        })
    })
}

unsafe fn dev_list<'a>(dev: *const CALhandle, count: CALuint) -> Result<&'a [CALhandle], CalError> {
    if dev.is_null() {
        return Err(CalError::invalid("dev is a null pointer"));
    }
    if count == 0 || count > 64 {
        return Err(CalError::invalid(format!("deviceCount {count}")));
    }
    // SAFETY: the caller passes `count` device handles.
    Ok(unsafe { std::slice::from_raw_parts(dev, count as usize) })
}

/// [`alloc`] on the `count` devices at `dev` (`calResAllocRemote1D`/`2D`).
unsafe fn alloc_remote(
    res: *mut CALhandle,
    dev: *const CALhandle,
    count: CALuint,
    width: CALuint,
    height: Option<CALuint>,
    format: u32,
    flags: CALuint,
) -> CALresult {
    match unsafe { dev_list(dev, count) } {
        Ok(d) => unsafe { alloc(res, d, width, height, format, flags) },
        Err(e) => {
            unsafe { zero(res) };
            rt(|| Err(e))
        }
    }
}

/// `calResAllocLocal2D`.
#[no_mangle]
pub unsafe extern "C" fn calResAllocLocal2D(
    res: *mut CALhandle,
    dev: CALhandle,
    width: CALuint,
    height: CALuint,
    format: u32,
    flags: CALuint,
) -> CALresult {
    unsafe { alloc(res, &[dev], width, Some(height), format, flags) }
}

/// `calResAllocLocal1D`.
#[no_mangle]
pub unsafe extern "C" fn calResAllocLocal1D(
    res: *mut CALhandle,
    dev: CALhandle,
    width: CALuint,
    format: u32,
    flags: CALuint,
) -> CALresult {
    unsafe { alloc(res, &[dev], width, None, format, flags) }
}

/// `calResAllocRemote2D`.
#[no_mangle]
pub unsafe extern "C" fn calResAllocRemote2D(
    res: *mut CALhandle,
    dev: *const CALhandle,
    device_count: CALuint,
    width: CALuint,
    height: CALuint,
    format: u32,
    flags: CALuint,
) -> CALresult {
    unsafe { alloc_remote(res, dev, device_count, width, Some(height), format, flags) }
}

/// `calResAllocRemote1D`.
#[no_mangle]
pub unsafe extern "C" fn calResAllocRemote1D(
    res: *mut CALhandle,
    dev: *const CALhandle,
    device_count: CALuint,
    width: CALuint,
    format: u32,
    flags: CALuint,
) -> CALresult {
    unsafe { alloc_remote(res, dev, device_count, width, None, format, flags) }
}

/// `calResCreate2D` (`CAL_EXT_RES_CREATE`): a resource over the application's memory.
#[no_mangle]
pub unsafe extern "C" fn calResCreate2D(
    res: *mut CALhandle,
    dev: CALhandle,
    mem: *mut c_void,
    width: CALuint,
    height: CALuint,
    format: u32,
    size: CALuint,
    flags: CALuint,
) -> CALresult {
    unsafe { zero(res) };
    rt(|| {
        runtime::with(|r| unsafe {
            let h = r.res_create(dev, (mem.cast(), size), width, Some(height), format, flags)?;
            put(res, h, "res")
        })
    })
}

/// `calResCreate1D` (`CAL_EXT_RES_CREATE`).
#[no_mangle]
pub unsafe extern "C" fn calResCreate1D(
    res: *mut CALhandle,
    dev: CALhandle,
    mem: *mut c_void,
    width: CALuint,
    format: u32,
    size: CALuint,
    flags: CALuint,
) -> CALresult {
    unsafe { zero(res) };
    rt(|| {
        runtime::with(|r| unsafe {
            let h = r.res_create(dev, (mem.cast(), size), width, None, format, flags)?;
            put(res, h, "res")
        })
    })
}

/// `calResFree`.
#[no_mangle]
pub extern "C" fn calResFree(res: CALhandle) -> CALresult {
    rt(|| runtime::with(|r| r.res_free(res)))
}

/// `calResMap`.
#[no_mangle]
pub unsafe extern "C" fn calResMap(
    ptr: *mut *mut c_void,
    pitch: *mut CALuint,
    res: CALhandle,
    _flags: CALuint,
) -> CALresult {
    unsafe { put_opt(ptr, std::ptr::null_mut()) };
    unsafe { zero(pitch) };
    rt(|| {
        runtime::with(|r| {
            if ptr.is_null() || pitch.is_null() {
                return Err(CalError::invalid("pPtr or pitch is a null pointer"));
            }
            let (p, w) = r.res_map(res)?;
            // SAFETY: checked non-null.
            unsafe {
                ptr.write(p.cast());
                pitch.write(w);
            }
            Ok(())
        })
    })
}

/// `calResUnmap`.
#[no_mangle]
pub extern "C" fn calResUnmap(res: CALhandle) -> CALresult {
    rt(|| runtime::with(|r| r.res_unmap(res)))
}

// ---- contexts --------------------------------------------------------------------------

/// `calCtxCreate`.
#[no_mangle]
pub unsafe extern "C" fn calCtxCreate(ctx: *mut CALhandle, dev: CALhandle) -> CALresult {
    unsafe { zero(ctx) };
    rt(|| runtime::with(|r| unsafe { put(ctx, r.ctx_create(dev)?, "ctx") }))
}

/// `calCtxDestroy`.
#[no_mangle]
pub extern "C" fn calCtxDestroy(ctx: CALhandle) -> CALresult {
    rt(|| runtime::with(|r| r.ctx_destroy(ctx)))
}

/// `calCtxGetMem`.
#[no_mangle]
pub unsafe extern "C" fn calCtxGetMem(
    mem: *mut CALhandle,
    ctx: CALhandle,
    res: CALhandle,
) -> CALresult {
    unsafe { zero(mem) };
    rt(|| runtime::with(|r| unsafe { put(mem, r.ctx_get_mem(ctx, res)?, "mem") }))
}

/// `calCtxReleaseMem`.
#[no_mangle]
pub extern "C" fn calCtxReleaseMem(ctx: CALhandle, mem: CALhandle) -> CALresult {
    rt(|| runtime::with(|r| r.ctx_release_mem(ctx, mem)))
}

/// `calCtxSetMem`.
#[no_mangle]
pub extern "C" fn calCtxSetMem(ctx: CALhandle, name: CALhandle, mem: CALhandle) -> CALresult {
    rt(|| runtime::with(|r| r.ctx_set_mem(ctx, name, mem)))
}

// ---- execution -------------------------------------------------------------------------

/// `calCtxRunProgram`.
#[no_mangle]
pub unsafe extern "C" fn calCtxRunProgram(
    event: *mut CALhandle,
    ctx: CALhandle,
    func: CALhandle,
    domain: *const CALdomain,
) -> CALresult {
    unsafe { zero(event) };
    rt(|| {
        let d = unsafe { get(domain, "domain") }?;
        let e = runtime::run(
            ctx,
            func,
            Shape::Domain {
                origin: [d.x, d.y],
                size: [d.width, d.height],
            },
        )?;
        unsafe { put_opt(event, e) };
        Ok(())
    })
}

/// `calCtxRunProgramGrid` (also through `calExtGetProc(CAL_EXT_COMPUTE_SHADER)`).
#[no_mangle]
pub unsafe extern "C" fn calCtxRunProgramGrid(
    event: *mut CALhandle,
    ctx: CALhandle,
    grid: *mut CALprogramGrid,
) -> CALresult {
    unsafe { zero(event) };
    rt(|| {
        let g = unsafe { get(grid, "pProgramGrid") }?;
        let e = runtime::run(ctx, g.func, grid_shape(&g))?;
        unsafe { put_opt(event, e) };
        Ok(())
    })
}

fn grid_shape(g: &CALprogramGrid) -> Shape {
    let b = g.grid_block;
    let s = g.grid_size;
    Shape::Grid {
        block: [b.width, b.height, b.depth],
        groups: [s.width, s.height, s.depth],
    }
}

/// `calCtxRunProgramGridArray`: the launches in order.
#[no_mangle]
pub unsafe extern "C" fn calCtxRunProgramGridArray(
    event: *mut CALhandle,
    ctx: CALhandle,
    array: *mut CALprogramGridArray,
) -> CALresult {
    unsafe { zero(event) };
    rt(|| {
        let a = unsafe { get(array, "pGridArray") }?;
        let grids = unsafe { slice(a.grid_array, a.num, "pGridArray->gridArray") }?;
        let mut last = 0;
        for g in grids {
            last = runtime::run(ctx, g.func, grid_shape(g))?;
        }
        if last == 0 {
            return Err(CalError::invalid("pGridArray->num is 0"));
        }
        unsafe { put_opt(event, last) };
        Ok(())
    })
}

/// `calCtxIsEventDone`.
#[no_mangle]
pub extern "C" fn calCtxIsEventDone(ctx: CALhandle, event: CALhandle) -> CALresult {
    rt(|| runtime::with(|r| r.event_done(ctx, event)))
}

/// `calCtxFlush`.
#[no_mangle]
pub extern "C" fn calCtxFlush(ctx: CALhandle) -> CALresult {
    rt(|| runtime::with(|r| r.flush(ctx)))
}

/// `calMemCopy`.
#[no_mangle]
pub unsafe extern "C" fn calMemCopy(
    event: *mut CALhandle,
    ctx: CALhandle,
    src: CALhandle,
    dst: CALhandle,
    _flags: CALuint,
) -> CALresult {
    unsafe { zero(event) };
    rt(|| {
        let e = runtime::with(|r| r.mem_copy(ctx, src, dst))?;
        unsafe { put_opt(event, e) };
        Ok(())
    })
}

// ---- images and modules ----------------------------------------------------------------

/// `calImageRead`.
#[no_mangle]
pub unsafe extern "C" fn calImageRead(
    image: *mut *mut c_void,
    buffer: *const c_void,
    size: CALuint,
) -> CALresult {
    unsafe { put_opt(image, std::ptr::null_mut()) };
    rt(|| {
        if image.is_null() || buffer.is_null() {
            return Err(CalError::invalid("image or buffer is a null pointer"));
        }
        // SAFETY: the caller passes `size` readable bytes.
        let bytes = unsafe { std::slice::from_raw_parts(buffer.cast::<u8>(), size as usize) };
        let i = compiler::read_image(bytes)?;
        // SAFETY: checked non-null.
        unsafe { image.write(compiler::image_into_raw(i)) };
        Ok(())
    })
}

/// `calImageFree`.
#[no_mangle]
pub extern "C" fn calImageFree(image: *mut c_void) -> CALresult {
    rt(|| compiler::free_image(image))
}

/// `calModuleLoad`.
#[no_mangle]
pub unsafe extern "C" fn calModuleLoad(
    module: *mut CALhandle,
    ctx: CALhandle,
    image: *mut c_void,
) -> CALresult {
    unsafe { zero(module) };
    rt(|| {
        let img = compiler::with_image(image, |i| Arc::new(i.clone()))?;
        runtime::with(|r| unsafe { put(module, r.module_load(ctx, img)?, "module") })
    })
}

/// `calModuleUnload`.
#[no_mangle]
pub extern "C" fn calModuleUnload(ctx: CALhandle, module: CALhandle) -> CALresult {
    rt(|| runtime::with(|r| r.module_unload(ctx, module)))
}

/// A module's handle for the C string `key` (`what_key` in errors) by `find`, written to
/// `*out` (`what_out`; zeroed first).
unsafe fn module_lookup(
    out: *mut CALhandle,
    what_out: &str,
    key: *const c_char,
    what_key: &str,
    find: impl FnOnce(&mut runtime::Runtime, &str) -> Result<CALhandle, CalError>,
) -> CALresult {
    unsafe { zero(out) };
    rt(|| {
        let key = unsafe { text(key, what_key) }?;
        runtime::with(|r| unsafe { put(out, find(r, key)?, what_out) })
    })
}

/// `calModuleGetEntry`.
#[no_mangle]
pub unsafe extern "C" fn calModuleGetEntry(
    func: *mut CALhandle,
    ctx: CALhandle,
    module: CALhandle,
    proc_name: *const c_char,
) -> CALresult {
    unsafe {
        module_lookup(func, "func", proc_name, "procName", |r, n| {
            r.module_entry(ctx, module, n)
        })
    }
}

/// `calModuleGetName`.
#[no_mangle]
pub unsafe extern "C" fn calModuleGetName(
    name: *mut CALhandle,
    ctx: CALhandle,
    module: CALhandle,
    var_name: *const c_char,
) -> CALresult {
    unsafe {
        module_lookup(name, "name", var_name, "varName", |r, n| {
            r.module_name(ctx, module, n)
        })
    }
}

/// `calModuleGetFuncInfo`.
#[no_mangle]
pub unsafe extern "C" fn calModuleGetFuncInfo(
    info: *mut CALfuncInfo,
    ctx: CALhandle,
    module: CALhandle,
    func: CALhandle,
) -> CALresult {
    rt(|| runtime::with(|r| unsafe { put(info, r.func_info(ctx, module, func)?, "pInfo") }))
}

// ---- extensions ------------------------------------------------------------------------

/// The extensions this runtime has.
const EXTENSIONS: [u32; 2] = [CAL_EXT_COMPUTE_SHADER, CAL_EXT_RES_CREATE];

/// `calExtSupported`: `CAL_EXT_COMPUTE_SHADER` and `CAL_EXT_RES_CREATE`.
#[no_mangle]
pub extern "C" fn calExtSupported(extid: u32) -> CALresult {
    rt(|| {
        if EXTENSIONS.contains(&extid) {
            Ok(())
        } else {
            Err(ext_unsupported(extid))
        }
    })
}

fn ext_unsupported(extid: u32) -> CalError {
    if (CAL_EXT_FIRST..=CAL_EXT_LAST).contains(&extid) {
        CalError::unsupported(format!(
            "extension {extid:#x} is not supported (ilc's runtime has CAL_EXT_COMPUTE_SHADER \
             and CAL_EXT_RES_CREATE)"
        ))
    } else {
        CalError::invalid(format!("{extid:#x} is not a CALextid"))
    }
}

/// `calExtGetVersion`.
#[no_mangle]
pub unsafe extern "C" fn calExtGetVersion(
    major: *mut CALuint,
    minor: *mut CALuint,
    extid: u32,
) -> CALresult {
    rt(|| {
        if !EXTENSIONS.contains(&extid) {
            return Err(ext_unsupported(extid));
        }
        unsafe {
            put(major, 1, "major")?;
            put(minor, 0, "minor")
        }
    })
}

/// `calExtGetProc`: `calCtxRunProgramGrid`, `calCtxRunProgramGridArray`,
/// `calModuleGetFuncInfo` of `CAL_EXT_COMPUTE_SHADER`; `calResCreate1D`, `calResCreate2D` of
/// `CAL_EXT_RES_CREATE`.
#[no_mangle]
pub unsafe extern "C" fn calExtGetProc(
    proc_: *mut *mut c_void,
    extid: u32,
    name: *const c_char,
) -> CALresult {
    unsafe { put_opt(proc_, std::ptr::null_mut()) };
    rt(|| {
        if !EXTENSIONS.contains(&extid) {
            return Err(ext_unsupported(extid));
        }
        let name = unsafe { text(name, "procname") }?;
        let f: *mut c_void = match (extid, name) {
            (CAL_EXT_COMPUTE_SHADER, "calCtxRunProgramGrid") => calCtxRunProgramGrid as *mut c_void,
            (CAL_EXT_COMPUTE_SHADER, "calCtxRunProgramGridArray") => {
                calCtxRunProgramGridArray as *mut c_void
            }
            (CAL_EXT_COMPUTE_SHADER, "calModuleGetFuncInfo") => calModuleGetFuncInfo as *mut c_void,
            (CAL_EXT_RES_CREATE, "calResCreate1D") => calResCreate1D as *mut c_void,
            (CAL_EXT_RES_CREATE, "calResCreate2D") => calResCreate2D as *mut c_void,
            _ => {
                return Err(CalError::unsupported(format!(
                    "extension {extid:#x} has no procedure `{name}`"
                )))
            }
        };
        unsafe { put(proc_, f, "proc") }
    })
}

// ---- compiler --------------------------------------------------------------------------

/// `calclGetVersion`.
#[no_mangle]
pub unsafe extern "C" fn calclGetVersion(
    major: *mut CALuint,
    minor: *mut CALuint,
    imp: *mut CALuint,
) -> CALresult {
    cl(|| unsafe {
        put(major, VERSION[0], "major")?;
        put(minor, VERSION[1], "minor")?;
        put(imp, VERSION[2], "imp")
    })
}

/// `calclCompile`: any `CALtarget` gives sm_50 code.
#[no_mangle]
pub unsafe extern "C" fn calclCompile(
    obj: *mut *mut c_void,
    language: u32,
    source: *const c_char,
    target: u32,
) -> CALresult {
    unsafe { put_opt(obj, std::ptr::null_mut()) };
    cl(|| {
        if obj.is_null() || source.is_null() {
            return Err(CalError::invalid("obj or source is a null pointer"));
        }
        if target > CAL_TARGET_LAST {
            return Err(CalError::invalid(format!("{target} is not a CALtarget")));
        }
        // SAFETY: non-null, NUL-terminated by contract.
        let src = unsafe { CStr::from_ptr(source) }.to_bytes();
        let o = compiler::compile(language, src)?;
        // SAFETY: checked non-null.
        unsafe { obj.write(compiler::object_into_raw(o)) };
        Ok(())
    })
}

/// `calclAssembleObject`: device ISA text is not ilc's input.
#[no_mangle]
pub unsafe extern "C" fn calclAssembleObject(
    obj: *mut *mut c_void,
    _type: u32,
    _source: *const c_char,
    _target: u32,
) -> CALresult {
    unsafe { put_opt(obj, std::ptr::null_mut()) };
    cl(|| {
        Err(CalError::unsupported(
            "calclAssembleObject: ilc compiles AMD IL (calclCompile), not device ISA text",
        ))
    })
}

/// `calclLink`.
#[no_mangle]
pub unsafe extern "C" fn calclLink(
    image: *mut *mut c_void,
    obj: *mut *mut c_void,
    count: CALuint,
) -> CALresult {
    unsafe { put_opt(image, std::ptr::null_mut()) };
    cl(|| {
        if image.is_null() {
            return Err(CalError::invalid("image is a null pointer"));
        }
        let ptrs = unsafe { slice(obj.cast_const(), count, "obj") }?;
        let kernels = ptrs
            .iter()
            .map(|&p| compiler::with_object(p, |o| Arc::clone(&o.kernel)))
            .collect::<Result<Vec<_>, _>>()?;
        let objects: Vec<compiler::Object> = kernels
            .into_iter()
            .map(|kernel| compiler::Object { kernel })
            .collect();
        let refs: Vec<&compiler::Object> = objects.iter().collect();
        let i = compiler::link(&refs)?;
        // SAFETY: checked non-null.
        unsafe { image.write(compiler::image_into_raw(i)) };
        Ok(())
    })
}

/// `calclFreeObject`.
#[no_mangle]
pub extern "C" fn calclFreeObject(obj: *mut c_void) -> CALresult {
    cl(|| compiler::free_object(obj))
}

/// `calclFreeImage`.
#[no_mangle]
pub extern "C" fn calclFreeImage(image: *mut c_void) -> CALresult {
    cl(|| compiler::free_image(image))
}

/// `calclImageGetSize`.
#[no_mangle]
pub unsafe extern "C" fn calclImageGetSize(size: *mut CALuint, image: *mut c_void) -> CALresult {
    unsafe { zero(size) };
    cl(|| {
        let n = compiler::with_image(image, |i| i.cubin.len())?;
        unsafe { put(size, n as u32, "size") }
    })
}

/// `calclImageWrite`.
#[no_mangle]
pub unsafe extern "C" fn calclImageWrite(
    buffer: *mut c_void,
    size: CALuint,
    image: *mut c_void,
) -> CALresult {
    cl(|| {
        if buffer.is_null() {
            return Err(CalError::invalid("buffer is a null pointer"));
        }
        compiler::with_image(image, |i| {
            if (size as usize) < i.cubin.len() {
                return Err(CalError::error(format!(
                    "calclImageWrite: the buffer holds {size} bytes, the image needs {}",
                    i.cubin.len()
                )));
            }
            // SAFETY: the caller's buffer holds `size` >= len bytes.
            unsafe {
                std::ptr::copy_nonoverlapping(i.cubin.as_ptr(), buffer.cast(), i.cubin.len())
            };
            Ok(())
        })?
    })
}

type LogFn = Option<unsafe extern "C" fn(*const c_char)>;

fn log_lines(text: &str, log: LogFn) {
    let Some(f) = log else { return };
    for line in text.lines() {
        let c = std::ffi::CString::new(format!("{line}\n").replace('\0', " ")).unwrap_or_default();
        // SAFETY: a valid C string for the duration of the call; `f` is the caller's.
        unsafe { f(c.as_ptr()) };
    }
}

/// `calclDisassembleImage`: the SPA 5.0 assembly, a line per call of `logfunc`.
#[no_mangle]
pub unsafe extern "C" fn calclDisassembleImage(image: *mut c_void, logfunc: LogFn) {
    cl(|| {
        let text = compiler::with_image(image, compiler::disassemble)??;
        log_lines(&text, logfunc);
        Ok(())
    });
}

/// `calclDisassembleObject`.
#[no_mangle]
pub unsafe extern "C" fn calclDisassembleObject(obj: *const *mut c_void, logfunc: LogFn) {
    cl(|| {
        let p = unsafe { get(obj, "obj") }?;
        let text = compiler::with_object(p, |o| o.kernel.asm_spa())?;
        log_lines(&text, logfunc);
        Ok(())
    });
}

/// `calclGetErrorString`.
#[no_mangle]
pub extern "C" fn calclGetErrorString() -> *const c_char {
    last_ptr(Channel::Compiler)
}
