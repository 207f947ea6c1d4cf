//! The CUDA driver API as a CAL device, loaded at run time (`dlopen("libcuda.so.1")`), so the
//! library neither links against nor needs CUDA where it is absent.
//!
//! Selected with `ILC_CAL_DEVICE=cuda`: the CAL device ordinals are then the CUDA devices of
//! compute capability 5.x (the cubins are sm_50 code, which Maxwell parts run). Each run
//! allocates the launch's buffers with `cuMemAlloc`, copies them in with `cuMemcpyHtoD`,
//! launches with `cuLaunchKernel` passing ilc's parameter bytes as one buffer
//! (`CU_LAUNCH_PARAM_BUFFER_POINTER`), synchronizes and copies the buffers back. Textures are
//! texture objects (`cuTexObjectCreate`) over pitched copies of their texels
//! ([`super::cuda_texture`]), destroyed after the run.
//!
//! Where the library or a Maxwell GPU is missing, [`Cuda::probe`] says why and the runtime
//! reports no devices; nothing here has run on a GPU in this project's CI (no GPU there).

use std::ffi::{c_char, c_int, c_uint, c_void, CStr, CString};
use std::sync::{Arc, Mutex};

use super::{Device, DeviceDesc, Launch, Loaded, RunStats};

type CuResult = c_int;
type CuDevice = c_int;
type CuContext = *mut c_void;
type CuModule = *mut c_void;
type CuFunction = *mut c_void;
type CuDevicePtr = u64;

const CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: c_int = 16;
const CU_DEVICE_ATTRIBUTE_CLOCK_RATE: c_int = 13;
const CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: c_int = 75;
const CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT: c_int = 51;
const CU_LAUNCH_PARAM_END: usize = 0;
const CU_LAUNCH_PARAM_BUFFER_POINTER: usize = 1;
const CU_LAUNCH_PARAM_BUFFER_SIZE: usize = 2;

/// The driver entry points this device uses.
struct Api {
    _lib: *mut c_void,
    init: unsafe extern "C" fn(c_uint) -> CuResult,
    device_get_count: unsafe extern "C" fn(*mut c_int) -> CuResult,
    device_get: unsafe extern "C" fn(*mut CuDevice, c_int) -> CuResult,
    device_get_attribute: unsafe extern "C" fn(*mut c_int, c_int, CuDevice) -> CuResult,
    device_get_name: unsafe extern "C" fn(*mut c_char, c_int, CuDevice) -> CuResult,
    device_total_mem: unsafe extern "C" fn(*mut usize, CuDevice) -> CuResult,
    ctx_create: unsafe extern "C" fn(*mut CuContext, c_uint, CuDevice) -> CuResult,
    ctx_destroy: unsafe extern "C" fn(CuContext) -> CuResult,
    ctx_set_current: unsafe extern "C" fn(CuContext) -> CuResult,
    ctx_synchronize: unsafe extern "C" fn() -> CuResult,
    module_load_data: unsafe extern "C" fn(*mut CuModule, *const c_void) -> CuResult,
    module_unload: unsafe extern "C" fn(CuModule) -> CuResult,
    module_get_function: unsafe extern "C" fn(*mut CuFunction, CuModule, *const c_char) -> CuResult,
    mem_alloc: unsafe extern "C" fn(*mut CuDevicePtr, usize) -> CuResult,
    mem_free: unsafe extern "C" fn(CuDevicePtr) -> CuResult,
    memcpy_htod: unsafe extern "C" fn(CuDevicePtr, *const c_void, usize) -> CuResult,
    memcpy_dtoh: unsafe extern "C" fn(*mut c_void, CuDevicePtr, usize) -> CuResult,
    tex_object_create:
        unsafe extern "C" fn(*mut u64, *const c_void, *const c_void, *const c_void) -> CuResult,
    tex_object_destroy: unsafe extern "C" fn(u64) -> CuResult,
    #[allow(clippy::type_complexity)]
    launch_kernel: unsafe extern "C" fn(
        CuFunction,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        c_uint,
        *mut c_void,
        *mut *mut c_void,
        *mut *mut c_void,
    ) -> CuResult,
}

// SAFETY: the handle and function pointers are process-global and immutable once loaded;
// the driver API itself is thread-safe.
unsafe impl Send for Api {}
// SAFETY: as above.
unsafe impl Sync for Api {}

fn dlerror() -> String {
    // SAFETY: dlerror returns null or a valid C string owned by libc.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        // SAFETY: non-null, NUL-terminated.
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

impl Api {
    fn load() -> Result<Api, String> {
        let mut lib = std::ptr::null_mut();
        for name in [c"libcuda.so.1", c"libcuda.so"] {
            // SAFETY: a valid NUL-terminated name; dlopen has no other preconditions.
            lib = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
            if !lib.is_null() {
                break;
            }
        }
        if lib.is_null() {
            return Err(format!(
                "the CUDA driver library (libcuda.so.1) could not be loaded: {}",
                dlerror()
            ));
        }
        macro_rules! sym {
            ($name:literal) => {{
                let n = CString::new($name).expect("no NUL in a symbol name");
                // SAFETY: `lib` is a live handle and `n` a valid name.
                let p = unsafe { libc::dlsym(lib, n.as_ptr()) };
                if p.is_null() {
                    return Err(format!("libcuda.so has no `{}`", $name));
                }
                // SAFETY: the symbol is the driver function of that name, whose C signature
                // the field's type spells out (CUDA driver API, v2 entry points).
                unsafe { fn_ptr(p) }
            }};
        }
        Ok(Api {
            _lib: lib,
            init: sym!("cuInit"),
            device_get_count: sym!("cuDeviceGetCount"),
            device_get: sym!("cuDeviceGet"),
            device_get_attribute: sym!("cuDeviceGetAttribute"),
            device_get_name: sym!("cuDeviceGetName"),
            device_total_mem: sym!("cuDeviceTotalMem_v2"),
            ctx_create: sym!("cuCtxCreate_v2"),
            ctx_destroy: sym!("cuCtxDestroy_v2"),
            ctx_set_current: sym!("cuCtxSetCurrent"),
            ctx_synchronize: sym!("cuCtxSynchronize"),
            module_load_data: sym!("cuModuleLoadData"),
            module_unload: sym!("cuModuleUnload"),
            module_get_function: sym!("cuModuleGetFunction"),
            mem_alloc: sym!("cuMemAlloc_v2"),
            mem_free: sym!("cuMemFree_v2"),
            memcpy_htod: sym!("cuMemcpyHtoD_v2"),
            memcpy_dtoh: sym!("cuMemcpyDtoH_v2"),
            tex_object_create: sym!("cuTexObjectCreate"),
            tex_object_destroy: sym!("cuTexObjectDestroy"),
            launch_kernel: sym!("cuLaunchKernel"),
        })
    }
}

/// A function pointer of type `F` from a symbol address.
///
/// # Safety
/// `p` is the address of a function whose signature is `F`, a function-pointer type.
unsafe fn fn_ptr<F: Copy>(p: *mut c_void) -> F {
    assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
    // SAFETY: same size (checked); the caller guarantees the signature.
    unsafe { std::mem::transmute_copy(&p) }
}

fn check(what: &str, r: CuResult) -> Result<(), String> {
    if r == 0 {
        Ok(())
    } else {
        Err(format!("{what} failed (CUresult {r})"))
    }
}

/// One CUDA device (compute capability 5.x) with its context.
pub struct Cuda {
    api: Arc<Api>,
    ctx: Mutex<usize>,
    desc: DeviceDesc,
    /// Row alignment of pitched textures in bytes.
    pitch_align: usize,
}

/// A loaded module and its kernel; unloaded when the runtime drops it (`calShutdown`).
struct CudaKernel {
    api: Arc<Api>,
    module: usize,
    func: usize,
}

impl Drop for CudaKernel {
    fn drop(&mut self) {
        // SAFETY: the module came from cuModuleLoadData and is unloaded once.
        unsafe { (self.api.module_unload)(self.module as CuModule) };
    }
}

impl Drop for Cuda {
    fn drop(&mut self) {
        let ctx = *self.ctx.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: the context came from cuCtxCreate and is destroyed once, after the
        // runtime's programs (which the runtime drops first) unloaded their modules.
        unsafe { (self.api.ctx_destroy)(ctx as CuContext) };
    }
}

impl Cuda {
    /// The Maxwell devices of the CUDA driver, or why there are none.
    pub fn probe() -> Result<Vec<Cuda>, String> {
        let api = Arc::new(Api::load()?);
        // SAFETY: driver calls with valid out-pointers.
        unsafe {
            check("cuInit", (api.init)(0))?;
            let mut n = 0;
            check("cuDeviceGetCount", (api.device_get_count)(&mut n))?;
            let mut out = Vec::new();
            for i in 0..n {
                let mut dev = 0;
                check("cuDeviceGet", (api.device_get)(&mut dev, i))?;
                let attr = |a| {
                    let mut v = 0;
                    (api.device_get_attribute)(&mut v, a, dev);
                    v
                };
                if attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) != 5 {
                    continue;
                }
                let mut name = [0 as c_char; 256];
                (api.device_get_name)(name.as_mut_ptr(), 256, dev);
                let mut mem = 0usize;
                (api.device_total_mem)(&mut mem, dev);
                let mut ctx = std::ptr::null_mut();
                check("cuCtxCreate", (api.ctx_create)(&mut ctx, 0, dev))?;
                out.push(Cuda {
                    api: Arc::clone(&api),
                    ctx: Mutex::new(ctx as usize),
                    pitch_align: attr(CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT).max(1) as usize,
                    desc: DeviceDesc {
                        name: CStr::from_ptr(name.as_ptr()).to_string_lossy().into_owned(),
                        local_mib: (mem >> 20) as u32,
                        multiprocessors: attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) as u32,
                        clock_mhz: (attr(CU_DEVICE_ATTRIBUTE_CLOCK_RATE) / 1000) as u32,
                    },
                });
            }
            if out.is_empty() {
                return Err(format!(
                    "the CUDA driver has {n} device(s), none of compute capability 5.x (Maxwell)"
                ));
            }
            Ok(out)
        }
    }

    fn current(&self) -> Result<std::sync::MutexGuard<'_, usize>, String> {
        let g = self.ctx.lock().unwrap_or_else(|p| p.into_inner());
        // SAFETY: the context was created by cuCtxCreate and lives as long as `self`.
        check("cuCtxSetCurrent", unsafe {
            (self.api.ctx_set_current)(*g as CuContext)
        })?;
        Ok(g)
    }
}

impl Device for Cuda {
    fn describe(&self) -> DeviceDesc {
        self.desc.clone()
    }

    fn load(&self, cubin: &[u8], name: &str) -> Result<Loaded, String> {
        let _g = self.current()?;
        let cname = CString::new(name).map_err(|_| "kernel name with NUL")?;
        let mut module = std::ptr::null_mut();
        let mut func = std::ptr::null_mut();
        // SAFETY: the cubin bytes stay alive for the call; out-pointers are valid.
        unsafe {
            check(
                "cuModuleLoadData",
                (self.api.module_load_data)(&mut module, cubin.as_ptr().cast()),
            )?;
            check(
                "cuModuleGetFunction",
                (self.api.module_get_function)(&mut func, module, cname.as_ptr()),
            )?;
        }
        Ok(Arc::new(CudaKernel {
            api: Arc::clone(&self.api),
            module: module as usize,
            func: func as usize,
        }))
    }

    fn run(&self, kernel: &Loaded, launch: &mut Launch) -> Result<RunStats, String> {
        let k = kernel
            .downcast_ref::<CudaKernel>()
            .ok_or("the kernel was loaded on another device")?;
        let mut textures = Vec::with_capacity(launch.textures.len());
        for t in &launch.textures {
            let plan = super::cuda_texture::plan(t, self.pitch_align)
                .map_err(|e| format!("the CUDA device cannot sample this texture: {e}"))?;
            textures.push((t.offset, plan));
        }
        let _g = self.current()?;
        let mut ptrs: Vec<CuDevicePtr> = Vec::new();
        let mut objects: Vec<u64> = Vec::new();
        let mut texels: Vec<CuDevicePtr> = Vec::new();
        let result = (|| {
            let mut params = launch.params.clone();
            for (off, plan) in &mut textures {
                let mut p = 0;
                let mut h = 0;
                // SAFETY: valid out-pointers; the host texels are `plan.data.len()` bytes; the
                // descriptors are the driver's structs (see `cuda_texture`).
                unsafe {
                    check("cuMemAlloc", (self.api.mem_alloc)(&mut p, plan.data.len()))?;
                    texels.push(p);
                    check(
                        "cuMemcpyHtoD",
                        (self.api.memcpy_htod)(p, plan.data.as_ptr().cast(), plan.data.len()),
                    )?;
                    plan.set_device_ptr(p);
                    check(
                        "cuTexObjectCreate",
                        (self.api.tex_object_create)(
                            &mut h,
                            std::ptr::from_ref(&plan.resource).cast(),
                            std::ptr::from_ref(&plan.texture).cast(),
                            std::ptr::null(),
                        ),
                    )?;
                }
                objects.push(h);
                super::emu::patch(&mut params, *off, h)?;
            }
            for b in &launch.buffers {
                let mut p = 0;
                // SAFETY: valid out-pointer; the host buffer is `b.len()` bytes.
                unsafe {
                    check("cuMemAlloc", (self.api.mem_alloc)(&mut p, b.len().max(1)))?;
                    ptrs.push(p);
                    check(
                        "cuMemcpyHtoD",
                        (self.api.memcpy_htod)(p, b.as_ptr().cast(), b.len()),
                    )?;
                }
            }
            for &(off, buf) in &launch.pointers {
                super::emu::patch(&mut params, off, ptrs[buf])?;
            }
            let mut size = params.len();
            let mut extra: [*mut c_void; 5] = [
                CU_LAUNCH_PARAM_BUFFER_POINTER as *mut c_void,
                params.as_mut_ptr().cast(),
                CU_LAUNCH_PARAM_BUFFER_SIZE as *mut c_void,
                (&mut size as *mut usize).cast(),
                CU_LAUNCH_PARAM_END as *mut c_void,
            ];
            let [gx, gy, gz] = launch.grid;
            let [bx, by, bz] = launch.block;
            // SAFETY: `extra` describes `params`, which outlives the synchronous launch.
            unsafe {
                check(
                    "cuLaunchKernel",
                    (self.api.launch_kernel)(
                        k.func as CuFunction,
                        gx,
                        gy,
                        gz,
                        bx,
                        by,
                        bz,
                        0,
                        std::ptr::null_mut(),
                        std::ptr::null_mut(),
                        extra.as_mut_ptr(),
                    ),
                )?;
                check("cuCtxSynchronize", (self.api.ctx_synchronize)())?;
            }
            for (b, &p) in launch.buffers.iter_mut().zip(&ptrs) {
                // SAFETY: the device buffer holds `b.len()` bytes.
                unsafe {
                    check(
                        "cuMemcpyDtoH",
                        (self.api.memcpy_dtoh)(b.as_mut_ptr().cast(), p, b.len()),
                    )?;
                }
            }
            Ok(RunStats::default())
        })();
        for h in objects {
            // SAFETY: created above by cuTexObjectCreate, destroyed before its memory.
            unsafe { (self.api.tex_object_destroy)(h) };
        }
        for p in ptrs.into_iter().chain(texels) {
            // SAFETY: allocated above by cuMemAlloc.
            unsafe { (self.api.mem_free)(p) };
        }
        result
    }
}
