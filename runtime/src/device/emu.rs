//! The SPA 5.0 emulator as a CAL device.
//!
//! Loading parses the cubin and decodes the kernel's code once; a run makes a fresh emulator
//! memory, allocates and fills the launch's buffers, patches their addresses into the
//! parameters, creates texture objects (ilc's [`TextureObjects`], the semantics the IL
//! interpreter gives `sample`/`load`/`resinfo`), runs the whole grid and reads the buffers
//! back. The control-word hazard checker is off: this is the program's run, not a test of
//! the compiler (the compiler's own tests check hazards).

use std::sync::Arc;

use ilc::verify::TextureObjects;
use isa_spa5::cubin::{self, Cubin};
use isa_spa5::emu::{self, LaunchConfig};
use isa_spa5::{Control, Inst};

use super::{Device, DeviceDesc, Launch, Loaded, RunStats};

/// The emulator device.
#[derive(Clone, Copy, Debug, Default)]
pub struct Emulator;

/// A kernel loaded on the emulator.
struct EmuKernel {
    module: Cubin,
    index: usize,
    code: Vec<(Inst, Control)>,
}

impl Device for Emulator {
    fn describe(&self) -> DeviceDesc {
        DeviceDesc {
            name: "ilc SPA 5.0 emulator (sm_50)".into(),
            local_mib: 2048,
            multiprocessors: 1,
            clock_mhz: 1000,
        }
    }

    fn load(&self, cubin: &[u8], name: &str) -> Result<Loaded, String> {
        let module = cubin::read_cubin(cubin).map_err(|e| format!("bad cubin: {e}"))?;
        let index = module
            .kernels
            .iter()
            .position(|k| k.name == name)
            .ok_or_else(|| format!("no kernel `{name}` in the image"))?;
        let code = isa_spa5::program::decode_program(&module.kernels[index].code)
            .map_err(|e| format!("the image's code does not decode: {e}"))?;
        Ok(Arc::new(EmuKernel {
            module,
            index,
            code,
        }))
    }

    fn run(&self, kernel: &Loaded, launch: &mut Launch) -> Result<RunStats, String> {
        let k = kernel
            .downcast_ref::<EmuKernel>()
            .ok_or("the kernel was loaded on another device")?;
        let mut dev = emu::Device::new();
        let mut params = launch.params.clone();
        let mut addrs = Vec::with_capacity(launch.buffers.len());
        for b in &launch.buffers {
            let a = dev.alloc(b.len() as u64);
            dev.write(a, b).map_err(|e| e.to_string())?;
            addrs.push(a);
        }
        for &(off, buf) in &launch.pointers {
            patch(&mut params, off, addrs[buf])?;
        }
        if !launch.textures.is_empty() {
            // The texels move into the texture unit: a launch runs once.
            let mut objects = TextureObjects::default();
            for t in std::mem::take(&mut launch.textures) {
                let h = objects.bind(Some(t.texture), t.decl, t.sampler);
                patch(&mut params, t.offset, h)?;
            }
            dev.set_texture_unit(Arc::new(objects));
        }
        let cfg = LaunchConfig {
            grid: launch.grid,
            block: launch.block,
            params,
            check_hazards: false,
            ..LaunchConfig::default()
        };
        let started = std::time::Instant::now();
        let report = dev
            .launch_decoded(&k.module, &k.module.kernels[k.index], &k.code, &cfg)
            .map_err(|e| e.to_string())?;
        let exec_ns = started.elapsed().as_nanos() as u64;
        for (b, &a) in launch.buffers.iter_mut().zip(&addrs) {
            *b = dev.read(a, b.len() as u64).map_err(|e| e.to_string())?;
        }
        Ok(RunStats {
            warp_instructions: report.warp_instructions,
            exec_ns,
            ..RunStats::default()
        })
    }
}

/// Writes a 64-bit value at byte `off` of the parameters.
pub(crate) fn patch(params: &mut [u8], off: u32, v: u64) -> Result<(), String> {
    let at = off as usize;
    params
        .get_mut(at..at + 8)
        .ok_or_else(|| format!("parameter offset {off:#x} is outside the parameters"))?
        .copy_from_slice(&v.to_le_bytes());
    Ok(())
}
