//! The CAL compiler library (`calcl*`): IL source to objects to images, through ilc.
//!
//! - `calclCompile` compiles the IL with ilc (default options: -O2, sm_50) through a
//!   process-wide [`CompileCache`] keyed by the full source text and options: compiling the
//!   same kernel again (programs compile their kernels at every start, some per launch) is
//!   a lookup. Errors carry ilc's rendered diagnostics (`<calclCompile>:line:col: error[..]`).
//! - An object holds the compiled kernel; `calclLink` of one object makes an image, and an
//!   image's bytes (`calclImageWrite`, `calImageRead`) are exactly ilc's cubin, whose
//!   `.ilc.abi` section carries the launch layout the runtime binds resources by.
//! - `calclDisassembleImage` prints the SPA 5.0 assembly with scheduling hints.
//!
//! Objects and images are handed to C as pointers to boxed values; every live pointer is
//! registered, so a stale or foreign pointer is `CAL_RESULT_BAD_HANDLE`, not a crash.

use std::collections::HashSet;
use std::sync::{Arc, LazyLock, Mutex};

use ilc::cache::CompileCache;
use ilc::spa5::abi::LaunchLayout;
use ilc::{CompiledKernel, Compiler, Options};

use crate::error::CalError;
use crate::types::*;

/// Bytes of compiled kernels the JIT cache keeps (least recently used first out).
pub const JIT_CACHE_BYTES: u64 = 64 << 20;

/// The name diagnostics give the source of `calclCompile`.
pub const SOURCE_NAME: &str = "<calclCompile>";

/// A compiled object (`CALobject`).
#[derive(Debug)]
pub struct Object {
    /// The kernel.
    pub kernel: Arc<CompiledKernel>,
}

/// A linked or read image (`CALimage`): an ilc cubin and what the runtime needs of it.
#[derive(Clone, Debug)]
pub struct Image {
    /// The cubin bytes (the serialized image).
    pub cubin: Arc<[u8]>,
    /// The kernel's name in the cubin (`main`).
    pub name: String,
    /// Its launch layout (from the `.ilc.abi` section).
    pub layout: LaunchLayout,
    /// Threads per group the kernel requires.
    pub block: [u32; 3],
    /// The compiled kernel, when the image was linked here (read images have only the cubin).
    pub kernel: Option<Arc<CompiledKernel>>,
}

struct Jit {
    compiler: Compiler,
    cache: CompileCache,
}

static JIT: LazyLock<Jit> = LazyLock::new(|| Jit {
    compiler: Compiler::new(Options::default()),
    cache: CompileCache::new(JIT_CACHE_BYTES),
});

static OBJECTS: LazyLock<Mutex<HashSet<usize>>> = LazyLock::new(Default::default);
static IMAGES: LazyLock<Mutex<HashSet<usize>>> = LazyLock::new(Default::default);

fn registry(images: bool) -> std::sync::MutexGuard<'static, HashSet<usize>> {
    let m = if images { &IMAGES } else { &OBJECTS };
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Compiles IL text (`CAL_LANGUAGE_IL`) through the JIT cache.
pub fn compile(language: u32, source: &[u8]) -> Result<Object, CalError> {
    if language != CAL_LANGUAGE_IL {
        return Err(CalError::unsupported(format!(
            "language {language} is not supported: ilc compiles CAL_LANGUAGE_IL (AMD IL text)"
        )));
    }
    let kernel = JIT
        .cache
        .compile(&JIT.compiler, source)
        .map_err(|d| CalError::error(d.render(SOURCE_NAME, &String::from_utf8_lossy(source))))?;
    Ok(Object { kernel })
}

/// JIT cache counters (hits, misses, entries).
pub fn cache_stats() -> ilc::cache::CacheStats {
    JIT.cache.stats()
}

/// Links objects into an image (ilc images hold one kernel: one object).
pub fn link(objects: &[&Object]) -> Result<Image, CalError> {
    let [obj] = objects else {
        return Err(if objects.is_empty() {
            CalError::invalid("calclLink needs at least one object")
        } else {
            CalError::unsupported(format!(
                "calclLink of {} objects: an ilc image holds one kernel (link each object \
                 into its own image)",
                objects.len()
            ))
        });
    };
    let k = &obj.kernel;
    Ok(Image {
        cubin: Arc::from(&k.cubin[..]),
        name: k.name.clone(),
        layout: k.layout.clone(),
        block: k.layout.block_size.unwrap_or([64, 1, 1]),
        kernel: Some(Arc::clone(k)),
    })
}

/// Reads an image from its bytes (a cubin ilc wrote, with its `.ilc.abi` section).
pub fn read_image(bytes: &[u8]) -> Result<Image, CalError> {
    let module = isa_spa5::cubin::read_cubin(bytes)
        .map_err(|e| CalError::error(format!("calImageRead: not an ilc image (cubin): {e}")))?;
    let [k] = &module.kernels[..] else {
        return Err(CalError::error(format!(
            "calImageRead: the image holds {} kernels, ilc images hold one",
            module.kernels.len()
        )));
    };
    let abi = k.ilc_abi.as_ref().ok_or_else(|| {
        CalError::error("calImageRead: the cubin has no .ilc.abi section (not written by ilc)")
    })?;
    let layout = LaunchLayout::from_abi(abi)
        .map_err(|e| CalError::error(format!("calImageRead: bad .ilc.abi section: {e}")))?;
    Ok(Image {
        cubin: Arc::from(bytes),
        name: k.name.clone(),
        block: k.block_size.or(layout.block_size).unwrap_or([64, 1, 1]),
        layout,
        kernel: None,
    })
}

/// The SPA assembly of an image.
pub fn disassemble(image: &Image) -> Result<String, CalError> {
    if let Some(k) = &image.kernel {
        return Ok(k.asm_spa());
    }
    let module = isa_spa5::cubin::read_cubin(&image.cubin)
        .map_err(|e| CalError::error(format!("bad image: {e}")))?;
    let k = module
        .kernel(&image.name)
        .ok_or_else(|| CalError::error("the image lost its kernel"))?;
    let code = isa_spa5::program::decode_program(&k.code)
        .map_err(|e| CalError::error(format!("the image's code does not decode: {e}")))?;
    Ok(ilc::spa5::listing::listing_spa(&code))
}

/// Hands an object to C.
pub fn object_into_raw(o: Object) -> *mut std::ffi::c_void {
    let p = Box::into_raw(Box::new(o));
    registry(false).insert(p as usize);
    p.cast()
}

/// Hands an image to C.
pub fn image_into_raw(i: Image) -> *mut std::ffi::c_void {
    let p = Box::into_raw(Box::new(i));
    registry(true).insert(p as usize);
    p.cast()
}

/// Runs `f` on the live object behind `p`.
pub fn with_object<R>(
    p: *const std::ffi::c_void,
    f: impl FnOnce(&Object) -> R,
) -> Result<R, CalError> {
    let reg = registry(false);
    if p.is_null() || !reg.contains(&(p as usize)) {
        return Err(CalError::bad_handle("CALobject", p as usize as u32));
    }
    // SAFETY: registered pointers come from `object_into_raw` and are removed before they
    // are freed; the registry lock keeps a concurrent free out.
    Ok(f(unsafe { &*(p as *const Object) }))
}

/// Runs `f` on the live image behind `p`.
pub fn with_image<R>(
    p: *const std::ffi::c_void,
    f: impl FnOnce(&Image) -> R,
) -> Result<R, CalError> {
    let reg = registry(true);
    if p.is_null() || !reg.contains(&(p as usize)) {
        return Err(CalError::bad_handle("CALimage", p as usize as u32));
    }
    // SAFETY: as in `with_object`.
    Ok(f(unsafe { &*(p as *const Image) }))
}

/// Frees an object.
pub fn free_object(p: *mut std::ffi::c_void) -> Result<(), CalError> {
    if p.is_null() || !registry(false).remove(&(p as usize)) {
        return Err(CalError::bad_handle("CALobject", p as usize as u32));
    }
    // SAFETY: it was registered, so it came from `Box::into_raw` and is freed once.
    drop(unsafe { Box::from_raw(p as *mut Object) });
    Ok(())
}

/// Frees an image.
pub fn free_image(p: *mut std::ffi::c_void) -> Result<(), CalError> {
    if p.is_null() || !registry(true).remove(&(p as usize)) {
        return Err(CalError::bad_handle("CALimage", p as usize as u32));
    }
    // SAFETY: as in `free_object`.
    drop(unsafe { Box::from_raw(p as *mut Image) });
    Ok(())
}
