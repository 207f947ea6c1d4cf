//! The CAL runtime (`cal*`): devices, resources, contexts, memory handles, modules, names,
//! events. All state lives in one [`Runtime`] behind one lock ([`with`]); handles are
//! nonzero 32-bit numbers from one counter, never reused within a `calInit`/`calShutdown`
//! pair, so a stale handle is `CAL_RESULT_BAD_HANDLE`.
//!
//! Resources are host memory in every device class (local and remote alike): `calResMap`
//! returns a pointer into the resource itself (pitch = width) and a run copies the bound
//! resources to the device and back (see [`crate::launch`]). Runs are synchronous, so every
//! event is done when `calCtxRunProgram` / `calMemCopy` return.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use crate::compiler::Image;
use crate::device::{self, Device, Loaded, RunStats};
use crate::error::CalError;
use crate::format::Format;
use crate::launch::{self, Name, ResView, Shape, WriteBack};
use crate::types::*;

/// The widest 1-D resource (elements).
pub const MAX_1D_WIDTH: u32 = 1 << 14;
/// The widest and tallest 2-D resource (elements).
pub const MAX_2D_SIZE: u32 = 1 << 14;
/// The largest resource in bytes: ilc's largest buffer (`MAX_BUFFER_BYTES`).
pub const MAX_RESOURCE_BYTES: u64 = ilc::spa5::abi::MAX_BUFFER_BYTES;

/// The CAL version `calGetVersion` / `calclGetVersion` report.
pub const VERSION: [u32; 3] = [2, 0, 0];

/// Where a resource's bytes live.
enum Storage {
    /// Allocated by the runtime.
    Owned(Vec<u8>),
    /// The application's memory (`calResCreate1D/2D`): `len` bytes at `ptr`, valid while
    /// the resource exists (the extension's contract).
    Host(HostMem),
}

struct HostMem {
    ptr: *mut u8,
    len: usize,
}

// SAFETY: the memory is the application's, handed over for the resource's lifetime; every
// access goes through the runtime's lock.
unsafe impl Send for HostMem {}

impl Storage {
    fn bytes(&self) -> &[u8] {
        match self {
            Storage::Owned(v) => v,
            // SAFETY: see `HostMem`: `len` valid bytes for the resource's lifetime.
            Storage::Host(h) => unsafe { std::slice::from_raw_parts(h.ptr, h.len) },
        }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            Storage::Owned(v) => v,
            // SAFETY: as in `bytes`; `&mut self` and the runtime lock make it exclusive.
            Storage::Host(h) => unsafe { std::slice::from_raw_parts_mut(h.ptr, h.len) },
        }
    }
}

struct Resource {
    device: u32,
    width: u32,
    height: u32,
    one_d: bool,
    format: Format,
    data: Storage,
    mapped: bool,
    /// Memory handles (in any context) that refer to it.
    mems: u32,
}

struct Context {
    device: u32,
    /// Memory handle -> resource.
    mems: HashMap<u32, u32>,
    /// (module, name) -> memory handle.
    bindings: HashMap<(u32, Name), u32>,
    events: u32,
    /// Held for the whole of each run on this context (see [`run`]).
    run_lock: Arc<Mutex<()>>,
}

impl Context {
    /// The resource of memory handle `mem` of this context.
    fn mem(&self, mem: u32) -> Result<u32, CalError> {
        self.mems
            .get(&mem)
            .copied()
            .ok_or_else(|| CalError::bad_handle("CALmem of this context", mem))
    }
}

struct Module {
    context: u32,
    program: Arc<Program>,
}

/// A kernel loaded on a device.
pub struct Program {
    /// The image it came from.
    pub image: Arc<Image>,
    /// The device's loaded form.
    pub loaded: Loaded,
}

struct OpenDevice {
    ordinal: u32,
}

/// The runtime's state between `calInit` and `calShutdown`.
pub struct Runtime {
    devices: Vec<Arc<dyn Device>>,
    absent: Option<String>,
    open: HashMap<u32, OpenDevice>,
    resources: HashMap<u32, Resource>,
    contexts: HashMap<u32, Context>,
    modules: HashMap<u32, Module>,
    names: HashMap<u32, (u32, Name)>,
    next: u32,
    /// Loaded programs by (device ordinal, cubin): loading the same image again is a lookup.
    programs: HashMap<(u32, Arc<[u8]>), Arc<Program>>,
    /// Statistics of the last run (for measurements and tests).
    pub last_run: RunStats,
}

impl Drop for Runtime {
    /// Loaded programs go before the devices they were loaded on (a device may have to
    /// unload them first, as the CUDA driver's modules before their context).
    fn drop(&mut self) {
        self.modules.clear();
        self.programs.clear();
    }
}

static STATE: Mutex<Option<Runtime>> = Mutex::new(None);

/// `calInit`.
pub fn init() -> Result<(), CalError> {
    let mut g = STATE.lock().unwrap_or_else(|p| p.into_inner());
    if g.is_some() {
        return Err(CalError::new(
            CAL_RESULT_ALREADY,
            "CAL is already initialized",
        ));
    }
    let (devices, absent) = device::probe();
    *g = Some(Runtime {
        devices,
        absent,
        open: HashMap::new(),
        resources: HashMap::new(),
        contexts: HashMap::new(),
        modules: HashMap::new(),
        names: HashMap::new(),
        next: 0,
        programs: HashMap::new(),
        last_run: RunStats::default(),
    });
    Ok(())
}

/// `calShutdown`: frees everything.
pub fn shutdown() -> Result<(), CalError> {
    let mut g = STATE.lock().unwrap_or_else(|p| p.into_inner());
    if g.take().is_none() {
        return Err(not_initialized());
    }
    Ok(())
}

fn not_initialized() -> CalError {
    CalError::new(
        CAL_RESULT_NOT_INITIALIZED,
        "CAL is not initialized (call calInit first)",
    )
}

/// A run between its planning and its write-back, outside the runtime's lock.
struct PendingRun {
    device: Arc<dyn Device>,
    program: Arc<Program>,
    plan: launch::Plan,
    ctx: u32,
    started: std::time::Instant,
}

/// `calCtxRunProgram` / `calCtxRunProgramGrid`: runs `func` (a module handle) on context
/// `ctx` and returns the event, done on return.
///
/// Threads (CAL lets each context be driven by its own thread): the context's own lock is
/// held for the whole run, so runs on one context happen one after the other in the order
/// they were called; the runtime's lock only while the launch is planned (the bound
/// resources copied) and while the results are written back, so the device runs kernels of
/// different contexts at the same time. A resource that one context's run writes must not be
/// used by another context (or mapped) until that run returns: its contents are copied in
/// at the start and back at the end, as on a GPU whose copies are not ordered across
/// contexts.
pub fn run(ctx: u32, func: u32, shape: Shape) -> Result<u32, CalError> {
    let lock = with(|r| Ok(Arc::clone(&r.context(ctx)?.run_lock)))?;
    let _serial = lock.lock().unwrap_or_else(|p| p.into_inner());
    let mut pending = with(|r| r.prepare_run(ctx, func, shape))?;
    let device_started = std::time::Instant::now();
    let mut stats = pending
        .device
        .run(&pending.program.loaded, &mut pending.plan.launch)
        .map_err(|e| CalError::error(format!("the kernel failed on the device: {e}")))?;
    stats.device_ns = device_started.elapsed().as_nanos() as u64;
    with(|r| r.finish_run(pending, stats))
}

/// Runs `f` on the initialized runtime.
pub fn with<R>(f: impl FnOnce(&mut Runtime) -> Result<R, CalError>) -> Result<R, CalError> {
    let mut g = STATE.lock().unwrap_or_else(|p| p.into_inner());
    match g.as_mut() {
        Some(rt) => f(rt),
        None => Err(not_initialized()),
    }
}

impl Runtime {
    fn handle(&mut self) -> u32 {
        self.next = self.next.wrapping_add(1).max(1);
        self.next
    }

    /// `calDeviceGetCount`.
    pub fn device_count(&self) -> u32 {
        self.devices.len() as u32
    }

    /// Why there are no devices, if there are none.
    pub fn absent_reason(&self) -> Option<&str> {
        self.absent.as_deref()
    }

    fn device(&self, ordinal: u32) -> Result<&Arc<dyn Device>, CalError> {
        self.devices.get(ordinal as usize).ok_or_else(|| {
            let why = self
                .absent
                .as_ref()
                .map(|w| format!(": {w}"))
                .unwrap_or_default();
            CalError::error(format!(
                "device ordinal {ordinal} does not exist ({} devices{why})",
                self.devices.len()
            ))
        })
    }

    /// `calDeviceGetInfo`.
    pub fn device_info(&self, ordinal: u32) -> Result<CALdeviceinfo, CalError> {
        self.device(ordinal)?;
        Ok(CALdeviceinfo {
            target: CAL_TARGET_CYPRESS,
            max_resource_1d_width: MAX_1D_WIDTH,
            max_resource_2d_width: MAX_2D_SIZE,
            max_resource_2d_height: MAX_2D_SIZE,
        })
    }

    /// `calDeviceGetAttribs` (every field; the caller copies `struct_size` bytes).
    pub fn device_attribs(&self, ordinal: u32) -> Result<CALdeviceattribs, CalError> {
        let d = self.device(ordinal)?.describe();
        Ok(CALdeviceattribs {
            struct_size: std::mem::size_of::<CALdeviceattribs>() as u32,
            target: CAL_TARGET_CYPRESS,
            local_ram: d.local_mib,
            uncached_remote_ram: d.local_mib,
            cached_remote_ram: d.local_mib,
            engine_clock: d.clock_mhz,
            memory_clock: d.clock_mhz,
            wavefront_size: 32,
            number_of_simd: d.multiprocessors,
            double_precision: 1,
            local_data_share: 1,
            global_data_share: 0,
            global_gpr: 0,
            compute_shader: 1,
            mem_export: 1,
            pitch_alignment: 1,
            surface_alignment: 256,
            number_of_uavs: 12,
            b_uav_mem_export: 0,
            b3d_program_grid: 1,
            number_of_shader_engines: 1,
            target_revision: 0,
            total_visible_heap: d.local_mib,
            total_invisible_heap: 0,
            total_direct_heap: 0,
            total_coherent_heap: 0,
            total_remote_shared_heap: d.local_mib,
            total_cached_remote_shared_heap: d.local_mib,
        })
    }

    fn open_device(&self, dev: u32) -> Result<&OpenDevice, CalError> {
        self.open
            .get(&dev)
            .ok_or_else(|| CalError::bad_handle("CALdevice (open it with calDeviceOpen)", dev))
    }

    /// `calDeviceGetStatus`.
    pub fn device_status(&self, dev: u32) -> Result<CALdevicestatus, CalError> {
        let o = self.open_device(dev)?;
        let d = self.device(o.ordinal)?.describe();
        let used: u64 = self
            .resources
            .values()
            .filter(|r| r.device == dev)
            .map(|r| r.data.bytes().len() as u64)
            .sum();
        let avail = u64::from(d.local_mib).saturating_sub(used >> 20) as u32;
        Ok(CALdevicestatus {
            struct_size: std::mem::size_of::<CALdevicestatus>() as u32,
            avail_local_ram: avail,
            avail_uncached_remote_ram: avail,
            avail_cached_remote_ram: avail,
            avail_visible_heap: avail,
            avail_remote_shared_heap: avail,
            avail_cached_remote_shared_heap: avail,
            ..CALdevicestatus::default()
        })
    }

    /// `calDeviceOpen`.
    pub fn device_open(&mut self, ordinal: u32) -> Result<u32, CalError> {
        self.device(ordinal)?;
        if self.open.values().any(|o| o.ordinal == ordinal) {
            return Err(CalError::error(format!(
                "device {ordinal} is already open (close it first)"
            )));
        }
        let h = self.handle();
        self.open.insert(h, OpenDevice { ordinal });
        Ok(h)
    }

    /// `calDeviceClose`: also frees what was created on it.
    pub fn device_close(&mut self, dev: u32) -> Result<(), CalError> {
        self.open_device(dev)?;
        let ctxs: Vec<u32> = self
            .contexts
            .iter()
            .filter(|(_, c)| c.device == dev)
            .map(|(&h, _)| h)
            .collect();
        for c in ctxs {
            self.ctx_destroy(c)?;
        }
        self.resources.retain(|_, r| r.device != dev);
        self.open.remove(&dev);
        Ok(())
    }

    /// `calResAlloc{Local,Remote}{1D,2D}`.
    pub fn res_alloc(
        &mut self,
        devs: &[u32],
        width: u32,
        height: Option<u32>,
        format: u32,
        flags: u32,
    ) -> Result<u32, CalError> {
        self.res_new(devs, width, height, format, flags, None)
    }

    /// `calResCreate1D/2D` (`CAL_EXT_RES_CREATE`): a resource over `host = (mem, size)`, `size`
    /// bytes of the application's memory at `mem`, which must hold `width * height` elements
    /// and stay valid until `calResFree`.
    ///
    /// # Safety
    /// `mem` points to `size` bytes the application does not free before the resource.
    pub unsafe fn res_create(
        &mut self,
        dev: u32,
        host: (*mut u8, u32),
        width: u32,
        height: Option<u32>,
        format: u32,
        flags: u32,
    ) -> Result<u32, CalError> {
        let (mem, size) = host;
        if mem.is_null() {
            return Err(CalError::invalid("mem is a null pointer"));
        }
        self.res_new(
            &[dev],
            width,
            height,
            format,
            flags,
            Some(HostMem {
                ptr: mem,
                len: size as usize,
            }),
        )
    }

    fn res_new(
        &mut self,
        devs: &[u32],
        width: u32,
        height: Option<u32>,
        format: u32,
        flags: u32,
        host: Option<HostMem>,
    ) -> Result<u32, CalError> {
        let [dev] = devs else {
            return Err(CalError::invalid(format!(
                "{} devices given: a resource belongs to exactly one device",
                devs.len()
            )));
        };
        self.open_device(*dev)?;
        let format = Format::from_code(format)
            .ok_or_else(|| CalError::invalid(format!("{format} is not a CALformat")))?;
        if flags & !(CAL_RESALLOC_GLOBAL_BUFFER | CAL_RESALLOC_CACHEABLE) != 0 {
            return Err(CalError::invalid(format!(
                "unknown resource allocation flags {flags:#x}"
            )));
        }
        let (max_w, max_h) = match height {
            None => (MAX_1D_WIDTH, 1),
            Some(_) => (MAX_2D_SIZE, MAX_2D_SIZE),
        };
        let h = height.unwrap_or(1);
        // Global buffers are linear memory: any width up to the byte limit.
        let global = flags & CAL_RESALLOC_GLOBAL_BUFFER != 0;
        if width == 0 || h == 0 || (!global && (width > max_w || h > max_h)) {
            return Err(CalError::invalid(format!(
                "resource size {width}x{h} is out of range (1..={max_w} x 1..={max_h}{})",
                if height.is_none() { ", 1-D" } else { "" }
            )));
        }
        let bytes = u64::from(width) * u64::from(h) * format.bytes() as u64;
        if bytes > MAX_RESOURCE_BYTES {
            return Err(CalError::error(format!(
                "a {width}x{h} CAL_FORMAT_{} resource needs {bytes} bytes, more than the \
                 {MAX_RESOURCE_BYTES} a buffer may have",
                format.name
            )));
        }
        let data = match host {
            None => Storage::Owned(vec![0; bytes as usize]),
            Some(m) if (m.len as u64) < bytes => {
                return Err(CalError::invalid(format!(
                    "size {} bytes is less than the {bytes} a {width}x{h} CAL_FORMAT_{} \
                     resource needs",
                    m.len, format.name
                )))
            }
            Some(m) => Storage::Host(HostMem {
                ptr: m.ptr,
                len: bytes as usize,
            }),
        };
        let handle = self.handle();
        self.resources.insert(
            handle,
            Resource {
                device: *dev,
                width,
                height: h,
                one_d: height.is_none(),
                format,
                data,
                mapped: false,
                mems: 0,
            },
        );
        Ok(handle)
    }

    fn resource(&mut self, res: u32) -> Result<&mut Resource, CalError> {
        self.resources
            .get_mut(&res)
            .ok_or_else(|| CalError::bad_handle("CALresource", res))
    }

    /// `calResFree`.
    pub fn res_free(&mut self, res: u32) -> Result<(), CalError> {
        let r = self.resource(res)?;
        if r.mems > 0 {
            return Err(CalError::new(
                CAL_RESULT_BUSY,
                format!(
                    "resource {res} still has {} memory handle(s) (calCtxReleaseMem them first)",
                    r.mems
                ),
            ));
        }
        self.resources.remove(&res);
        Ok(())
    }

    /// `calResMap`: the resource's bytes and its pitch in elements.
    pub fn res_map(&mut self, res: u32) -> Result<(*mut u8, u32), CalError> {
        let r = self.resource(res)?;
        if r.mapped {
            return Err(CalError::error(format!("resource {res} is already mapped")));
        }
        r.mapped = true;
        Ok((r.data.bytes_mut().as_mut_ptr(), r.width))
    }

    /// `calResUnmap`.
    pub fn res_unmap(&mut self, res: u32) -> Result<(), CalError> {
        let r = self.resource(res)?;
        if !r.mapped {
            return Err(CalError::error(format!("resource {res} is not mapped")));
        }
        r.mapped = false;
        Ok(())
    }

    /// `calCtxCreate`.
    pub fn ctx_create(&mut self, dev: u32) -> Result<u32, CalError> {
        self.open_device(dev)?;
        let h = self.handle();
        self.contexts.insert(
            h,
            Context {
                device: dev,
                mems: HashMap::new(),
                bindings: HashMap::new(),
                events: 0,
                run_lock: Arc::default(),
            },
        );
        Ok(h)
    }

    fn context(&mut self, ctx: u32) -> Result<&mut Context, CalError> {
        self.contexts
            .get_mut(&ctx)
            .ok_or_else(|| CalError::bad_handle("CALcontext", ctx))
    }

    /// `calCtxDestroy`: unloads its modules and releases its memory handles.
    pub fn ctx_destroy(&mut self, ctx: u32) -> Result<(), CalError> {
        let c = self
            .contexts
            .remove(&ctx)
            .ok_or_else(|| CalError::bad_handle("CALcontext", ctx))?;
        for res in c.mems.values() {
            if let Some(r) = self.resources.get_mut(res) {
                r.mems = r.mems.saturating_sub(1);
            }
        }
        let gone: Vec<u32> = self
            .modules
            .iter()
            .filter(|(_, m)| m.context == ctx)
            .map(|(&h, _)| h)
            .collect();
        for m in gone {
            self.modules.remove(&m);
            self.names.retain(|_, (module, _)| *module != m);
        }
        Ok(())
    }

    /// `calCtxGetMem`.
    pub fn ctx_get_mem(&mut self, ctx: u32, res: u32) -> Result<u32, CalError> {
        let dev = self.context(ctx)?.device;
        let r = self.resource(res)?;
        if r.device != dev {
            return Err(CalError::error(format!(
                "resource {res} belongs to another device than context {ctx}"
            )));
        }
        r.mems += 1;
        let h = self.handle();
        self.context(ctx)?.mems.insert(h, res);
        Ok(h)
    }

    /// `calCtxReleaseMem`.
    pub fn ctx_release_mem(&mut self, ctx: u32, mem: u32) -> Result<(), CalError> {
        let c = self.context(ctx)?;
        let res = c.mem(mem)?;
        c.mems.remove(&mem);
        c.bindings.retain(|_, m| *m != mem);
        if let Some(r) = self.resources.get_mut(&res) {
            r.mems = r.mems.saturating_sub(1);
        }
        Ok(())
    }

    /// `calCtxSetMem` (`mem` 0 unbinds).
    pub fn ctx_set_mem(&mut self, ctx: u32, name: u32, mem: u32) -> Result<(), CalError> {
        let &(module, n) = self
            .names
            .get(&name)
            .ok_or_else(|| CalError::bad_handle("CALname", name))?;
        if self.modules.get(&module).map(|m| m.context) != Some(ctx) {
            self.context(ctx)?;
            return Err(CalError::error(format!(
                "name {name} belongs to a module of another context"
            )));
        }
        let c = self.context(ctx)?;
        if mem == 0 {
            c.bindings.remove(&(module, n));
            return Ok(());
        }
        c.mem(mem)?;
        c.bindings.insert((module, n), mem);
        Ok(())
    }

    /// `calModuleLoad`.
    pub fn module_load(&mut self, ctx: u32, image: Arc<Image>) -> Result<u32, CalError> {
        let dev = self.context(ctx)?.device;
        let ordinal = self.open_device(dev)?.ordinal;
        let key = (ordinal, Arc::clone(&image.cubin));
        let program = match self.programs.get(&key) {
            Some(p) => Arc::clone(p),
            None => {
                let loaded = self
                    .device(ordinal)?
                    .load(&image.cubin, &image.name)
                    .map_err(|e| CalError::error(format!("calModuleLoad: {e}")))?;
                let p = Arc::new(Program { image, loaded });
                self.programs.insert(key, Arc::clone(&p));
                p
            }
        };
        let h = self.handle();
        self.modules.insert(
            h,
            Module {
                context: ctx,
                program,
            },
        );
        Ok(h)
    }

    fn module(&self, ctx: u32, module: u32) -> Result<&Module, CalError> {
        if !self.contexts.contains_key(&ctx) {
            return Err(CalError::bad_handle("CALcontext", ctx));
        }
        match self.modules.get(&module) {
            Some(m) if m.context == ctx => Ok(m),
            _ => Err(CalError::bad_handle("CALmodule of this context", module)),
        }
    }

    /// `calModuleUnload`.
    pub fn module_unload(&mut self, ctx: u32, module: u32) -> Result<(), CalError> {
        self.module(ctx, module)?;
        self.modules.remove(&module);
        self.names.retain(|_, (m, _)| *m != module);
        if let Some(c) = self.contexts.get_mut(&ctx) {
            c.bindings.retain(|(m, _), _| *m != module);
        }
        Ok(())
    }

    /// `calModuleGetEntry`: the function handle is the module's (one kernel per image).
    pub fn module_entry(&self, ctx: u32, module: u32, name: &str) -> Result<u32, CalError> {
        let m = self.module(ctx, module)?;
        if m.program.image.name != name {
            return Err(CalError::error(format!(
                "the module has no entry point `{name}` (its kernel is `{}`)",
                m.program.image.name
            )));
        }
        Ok(module)
    }

    /// `calModuleGetName`: any well-formed name (`cbN`, `iN`, `oN`, `uavN`, `g[]`); names the
    /// kernel does not use may be bound and are ignored.
    pub fn module_name(&mut self, ctx: u32, module: u32, var: &str) -> Result<u32, CalError> {
        self.module(ctx, module)?;
        let n = Name::parse(var).ok_or_else(|| {
            CalError::error(format!(
                "`{var}` is not a CAL name (cbN, iN, oN, uavN or g[])"
            ))
        })?;
        if let Some((&h, _)) = self.names.iter().find(|(_, &v)| v == (module, n)) {
            return Ok(h);
        }
        let h = self.handle();
        self.names.insert(h, (module, n));
        Ok(h)
    }

    /// `calModuleGetFuncInfo`.
    pub fn func_info(&self, ctx: u32, module: u32, func: u32) -> Result<CALfuncInfo, CalError> {
        let m = self.module(ctx, module)?;
        if func != module {
            return Err(CalError::bad_handle("CALfunc of this module", func));
        }
        let image = &m.program.image;
        let b = image.block;
        Ok(CALfuncInfo {
            num_thread_per_group: b[0] * b[1] * b[2],
            num_thread_per_group_x: b[0],
            num_thread_per_group_y: b[1],
            num_thread_per_group_z: b[2],
            wavefront_size: 32,
            num_gprs_available: 255,
            num_gprs_used: image.kernel.as_ref().map_or(0, |k| k.num_regs),
            lds_size_available: ilc::limits::MAX_SHARED_BYTES as u32,
            lds_size_used: image.layout.shared_size,
            stack_size_available: ilc::limits::MAX_LOCAL_BYTES as u32,
            stack_size_used: image.layout.local_size,
            ..CALfuncInfo::default()
        })
    }

    /// The first part of a run (under the runtime's lock): the kernel's program, its device
    /// and the launch planned from the resources bound now (their contents copied).
    fn prepare_run(&mut self, ctx: u32, func: u32, shape: Shape) -> Result<PendingRun, CalError> {
        let started = std::time::Instant::now();
        let program = Arc::clone(
            &self
                .module(ctx, func)
                .map_err(|_| CalError::bad_handle("CALfunc of this context", func))?
                .program,
        );
        let c = &self.contexts[&ctx];
        let device = Arc::clone(self.device(self.open[&c.device].ordinal)?);
        // Resolve every binding of this module to its resource.
        let mut views: BTreeMap<Name, u32> = BTreeMap::new();
        for (&(m, n), mem) in &c.bindings {
            if m == func {
                views.insert(n, c.mems[mem]);
            }
        }
        for (&n, res) in &views {
            let r = &self.resources[res];
            if r.mapped {
                return Err(CalError::error(format!(
                    "`{n}` is bound to resource {res}, which is mapped (calResUnmap it first)"
                )));
            }
        }
        let resources = &self.resources;
        let plan = launch::plan(&program.image, shape, |n| {
            let &h = views.get(&n)?;
            let r = resources.get(&h)?;
            Some(ResView {
                handle: h,
                width: r.width,
                height: r.height,
                format: r.format,
                data: r.data.bytes(),
            })
        })?;
        Ok(PendingRun {
            device,
            program,
            plan,
            ctx,
            started,
        })
    }

    /// The last part of a run (under the runtime's lock): the buffers the kernel wrote go
    /// back into their resources (those freed meanwhile are skipped); the context's event.
    fn finish_run(&mut self, run: PendingRun, mut stats: RunStats) -> Result<u32, CalError> {
        let PendingRun {
            plan, ctx, started, ..
        } = run;
        for (buf, wb) in plan.writeback {
            let bytes = &plan.launch.buffers[buf];
            match wb {
                WriteBack::Raw(h) => {
                    if let Some(r) = self.resources.get_mut(&h) {
                        let data = r.data.bytes_mut();
                        let n = data.len().min(bytes.len());
                        data[..n].copy_from_slice(&bytes[..n]);
                    }
                }
                WriteBack::Pixels {
                    handle,
                    size,
                    origin,
                } => {
                    if let Some(r) = self.resources.get_mut(&handle) {
                        let area = [size, origin];
                        launch::store_pixels(bytes, area, r.data.bytes_mut(), r.width, r.format);
                    }
                }
            }
        }
        stats.total_ns = started.elapsed().as_nanos() as u64;
        self.last_run = stats;
        let c = self.context(ctx)?;
        c.events += 1;
        Ok(c.events)
    }

    /// `calMemCopy`: the source's rows into the destination (same format, the destination at
    /// least as wide and tall).
    pub fn mem_copy(&mut self, ctx: u32, src: u32, dst: u32) -> Result<u32, CalError> {
        let c = self.context(ctx)?;
        let (s, d) = (c.mem(src)?, c.mem(dst)?);
        let (sw, sh, sf, smapped) = {
            let r = &self.resources[&s];
            (r.width, r.height, r.format, r.mapped)
        };
        let (dw, dh, df, dmapped) = {
            let r = &self.resources[&d];
            (r.width, r.height, r.format, r.mapped)
        };
        if smapped || dmapped {
            return Err(CalError::error("calMemCopy of a mapped resource"));
        }
        if sf.bytes() != df.bytes() {
            return Err(CalError::error(format!(
                "calMemCopy between CAL_FORMAT_{} and CAL_FORMAT_{} (element sizes differ)",
                sf.name, df.name
            )));
        }
        if dw < sw || dh < sh {
            return Err(CalError::error(format!(
                "calMemCopy of a {sw}x{sh} resource into a smaller {dw}x{dh} one"
            )));
        }
        if s != d {
            let eb = sf.bytes();
            let src_data = self.resources[&s].data.bytes().to_vec();
            let dst_data = self
                .resources
                .get_mut(&d)
                .expect("checked above")
                .data
                .bytes_mut();
            for y in 0..sh as usize {
                let row = sw as usize * eb;
                let from = y * sw as usize * eb;
                let to = y * dw as usize * eb;
                dst_data[to..to + row].copy_from_slice(&src_data[from..from + row]);
            }
        }
        let c = self.context(ctx)?;
        c.events += 1;
        Ok(c.events)
    }

    /// `calCtxIsEventDone`: runs are synchronous, so an issued event is done.
    pub fn event_done(&mut self, ctx: u32, event: u32) -> Result<(), CalError> {
        let c = self.context(ctx)?;
        if event == 0 || event > c.events {
            return Err(CalError::bad_handle("CALevent of this context", event));
        }
        Ok(())
    }

    /// `calCtxFlush`.
    pub fn flush(&mut self, ctx: u32) -> Result<(), CalError> {
        self.context(ctx).map(|_| ())
    }

    /// Whether resource `res` is 1-D (for tests).
    pub fn res_is_1d(&mut self, res: u32) -> Result<bool, CalError> {
        Ok(self.resource(res)?.one_d)
    }
}
