//! The devices CAL programs run on, behind one trait.
//!
//! A device loads cubins (ilc's images) and runs a [`Launch`]: the grid, the block, the raw
//! parameter bytes of ilc's launch layout, and the buffers and textures whose device
//! addresses / handles it patches into the parameters. Buffers are host copies the runtime
//! makes of the bound resources; the device copies them in, runs, and copies them back, so
//! every device sees the same launch and the runtime alone knows CAL.
//!
//! Devices: [`emu::Emulator`] (the SPA 5.0 emulator of `isa-spa5`, always available) and
//! [`cuda::Cuda`] (the CUDA driver API through `dlopen("libcuda.so")`, selected with
//! `ILC_CAL_DEVICE=cuda`; absent, with a reason, where the library or a GPU is missing).

pub mod cuda;
pub mod cuda_texture;
pub mod emu;

use std::any::Any;
use std::sync::Arc;

use isa_amdil::interp::texture::{ResourceDecl, SamplerState, Texture};

/// Environment variable that selects the device class: `emulator` (default) or `cuda`.
pub const DEVICE_ENV: &str = "ILC_CAL_DEVICE";

/// A texture the kernel reads through a texture-object parameter.
#[derive(Clone, Debug)]
pub struct TextureArg {
    /// Byte offset of the 64-bit handle in the parameters.
    pub offset: u32,
    /// Texels and their storage.
    pub texture: Texture,
    /// The IL declaration the code was compiled for.
    pub decl: ResourceDecl,
    /// Filtering and addressing.
    pub sampler: SamplerState,
}

/// One kernel launch, device independent.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    /// Groups in x, y, z.
    pub grid: [u32; 3],
    /// Threads per group.
    pub block: [u32; 3],
    /// Parameter bytes (constant bank 0 from `0x140`); pointer and handle slots are patched
    /// by the device.
    pub params: Vec<u8>,
    /// Buffer contents, copied to the device before the run and back after it.
    pub buffers: Vec<Vec<u8>>,
    /// `(parameter offset, buffer index)`: where each buffer's 64-bit address goes.
    pub pointers: Vec<(u32, usize)>,
    /// Textures.
    pub textures: Vec<TextureArg>,
}

/// What a finished run reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// Warp instructions executed (0 where the device does not count them).
    pub warp_instructions: u64,
    /// Nanoseconds of the kernel's execution alone (0 where the device does not tell).
    pub exec_ns: u64,
    /// Nanoseconds in [`Device::run`] (copies to and from the device and the execution).
    pub device_ns: u64,
    /// Nanoseconds of the whole `calCtxRunProgram`/`calCtxRunProgramGrid` call inside the
    /// runtime lock: binding, the device run, writing results back.
    pub total_ns: u64,
}

/// Static facts a device reports through `calDeviceGetInfo` / `calDeviceGetAttribs`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceDesc {
    /// Human-readable name.
    pub name: String,
    /// Local memory in MiB.
    pub local_mib: u32,
    /// Multiprocessors.
    pub multiprocessors: u32,
    /// Clock in MHz.
    pub clock_mhz: u32,
}

/// A kernel loaded on a device: whatever the device needs to launch it again.
pub type Loaded = Arc<dyn Any + Send + Sync>;

/// A device that runs ilc cubins.
pub trait Device: Send + Sync {
    /// Name and capacities.
    fn describe(&self) -> DeviceDesc;
    /// Loads kernel `name` of `cubin`.
    fn load(&self, cubin: &[u8], name: &str) -> Result<Loaded, String>;
    /// Runs a loaded kernel; on success the buffers hold what the kernel left in them (the
    /// textures may have been consumed).
    fn run(&self, kernel: &Loaded, launch: &mut Launch) -> Result<RunStats, String>;
}

/// The devices of this process, by ordinal: the emulator, or with `ILC_CAL_DEVICE=cuda` the
/// CUDA devices (none where the driver is absent; the reason is returned with the list).
pub fn probe() -> (Vec<Arc<dyn Device>>, Option<String>) {
    match std::env::var(DEVICE_ENV).ok().as_deref() {
        None | Some("") | Some("emulator") | Some("emu") => {
            (vec![Arc::new(emu::Emulator) as Arc<dyn Device>], None)
        }
        Some("cuda") => match cuda::Cuda::probe() {
            Ok(devs) => (
                devs.into_iter()
                    .map(|d| Arc::new(d) as Arc<dyn Device>)
                    .collect(),
                None,
            ),
            Err(why) => (Vec::new(), Some(why)),
        },
        Some(other) => (
            Vec::new(),
            Some(format!(
                "{DEVICE_ENV}={other}: unknown device class (use `emulator` or `cuda`)"
            )),
        ),
    }
}
