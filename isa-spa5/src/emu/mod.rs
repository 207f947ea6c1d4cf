//! A functional emulator of SPA 5.0 (Maxwell) code with a control-word hazard checker.
//!
//! [`Device::launch`] runs one kernel of a cubin over a whole grid, the way the CUDA driver
//! would: constant bank 0 gets the driver area (block and grid sizes at `0x8..0x1c`, the top of
//! the thread's local-memory window at `0x20`, the larger of the kernel's frame and
//! [`LaunchConfig::stack_size`], see `tests/cuda/README.md`) and the parameters
//! from `0x140`; the other constant banks and the module's global data (`.nv.global.init`,
//! `.nv.global`, with the relocations that put their addresses into constant banks) come from
//! the cubin. Global memory is the [`Device`]'s: allocations made with [`Device::alloc`] that a
//! test binds to pointer parameters.
//!
//! Execution model (`warp.rs`): blocks run one after another; the warps of a block (32 lanes)
//! run round-robin in slices, each with its own pc, active mask and reconvergence stack
//! (`SSY`/`SYNC`, `PBK`/`BRK`, `PCNT`/`CONT`, divergent `BRA`, `EXIT` of some lanes, `CAL`/`RET`,
//! `PRET` + a divergent indirect `BRX`: ptxas's call through a function pointer);
//! `BAR.SYNC`/`BAR.RED` wait for every warp of the block that has not exited. Instruction
//! semantics (`exec.rs`, `fp.rs`) follow the hardware bit for bit where it is documented or
//! observable (integer ops, carry chains, XMAD modes, IEEE float with rounding modes, `.FTZ`,
//! canonical NaN `0x7fffffff`); `MUFU` results are correctly rounded values of the exact
//! functions, which the hardware only approximates (within 1-2 ulp for RCP/RSQ/EX2/LG2, about
//! 2^-22 absolute for SIN/COS). Atomics run lane by lane in lane order; warps of a block
//! interleave deterministically, so every run of a launch gives the same result.
//!
//! The hazard checker (`hazard.rs`) follows each warp's issue cycles from the control words
//! and reports a register read before its producer's result is ready (a fixed latency not
//! covered by stall counts, or a variable-latency result not protected by a waited scoreboard)
//! and a register overwritten while a pending instruction's read scoreboard still protects it.
//!
//! An independent oracle on purpose: the emulator shares no code with the compiler (this crate
//! does not depend on it) nor with the AMD IL interpreter or the IR interpreter, which define
//! the same operations for their own languages; only the encoding table (which bits mean which
//! operand and modifier) is shared, with the encoder, decoder and printer. Differential tests
//! compare the three, so semantics that look alike (integer ops, IEEE rounding, bounds
//! handling) are written again here deliberately: a shared helper would hide the bug it should
//! expose.
//!
//! Nothing here panics on any input: unknown or malformed code, wild addresses, barrier
//! deadlocks and runaway loops are [`EmuError`]s naming the pc.

mod exec;
mod fp;
mod hazard;
mod memory;
pub mod stats;
mod texture;
mod warp;

use std::fmt;

use crate::cubin::{self, Cubin, Kernel};
use crate::inst::Inst;
use crate::Control;

pub use hazard::{Hazard, HazardKind};
pub use memory::Space;
pub use texture::{TexOp, TexRequest, TextureUnit};

/// Why a launch failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EmuError {
    /// The cubin could not be read.
    #[error("bad cubin: {0}")]
    BadCubin(String),
    /// No kernel of that name.
    #[error("no kernel named `{0}` in the cubin")]
    UnknownKernel(String),
    /// The code does not decode.
    #[error("code does not decode: {0}")]
    BadCode(String),
    /// An instruction the emulator does not implement.
    #[error("pc {pc:#06x}: unsupported instruction `{inst}`")]
    Unsupported {
        /// Byte address of the instruction in the kernel's code.
        pc: u32,
        /// The instruction (nvdisasm syntax) and what about it is unsupported.
        inst: String,
    },
    /// A memory access outside every allocation (or misaligned).
    #[error("pc {pc:#06x}: {what} of {size} bytes at {space} address {addr:#x} is {why}")]
    Memory {
        /// Byte address of the instruction.
        pc: u32,
        /// `load`, `store` or `atomic`.
        what: &'static str,
        /// Which memory.
        space: Space,
        /// The address.
        addr: u64,
        /// Access size in bytes.
        size: u32,
        /// `out of bounds` or `misaligned`.
        why: &'static str,
    },
    /// Control reached a place it cannot continue from (jump outside the code, bad stack).
    #[error("pc {pc:#06x}: {message}")]
    Control {
        /// Byte address of the instruction.
        pc: u32,
        /// What happened.
        message: String,
    },
    /// Every warp of a block waits at a barrier some other warp will never reach.
    #[error("block {block:?}: barrier deadlock ({message})")]
    Deadlock {
        /// Block index.
        block: [u32; 3],
        /// Where the warps are.
        message: String,
    },
    /// More warp instructions than [`LaunchConfig::fuel`].
    #[error("out of fuel after {executed} warp instructions (pc {pc:#06x})")]
    OutOfFuel {
        /// Warp instructions executed.
        executed: u64,
        /// Where the last warp was.
        pc: u32,
    },
    /// The launch parameters are invalid (empty grid, too many threads, parameters too big).
    #[error("invalid launch: {0}")]
    BadLaunch(String),
}

/// The CUDA driver's default `cudaLimitStackSize`, in bytes per thread.
pub const DEFAULT_STACK_SIZE: u32 = 1024;

/// How to launch a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// Raw parameter bytes (constant bank 0 from `0x140`).
    pub params: Vec<u8>,
    /// Dynamic shared memory in bytes, after the static shared memory.
    pub dynamic_shared: u32,
    /// Run the control-word hazard checker.
    pub check_hazards: bool,
    /// Maximum warp instructions executed before [`EmuError::OutOfFuel`].
    pub fuel: u64,
    /// Run each warp of a block, in id order, until it waits at a barrier or is done before
    /// the next gets a turn (instead of round-robin slices): an interleaving that the IL
    /// interpreter's `Schedule::Warps` follows too, so `ilc --verify` can compare outputs
    /// that depend on it. A warp spinning on another warp's store never ends (out of fuel).
    pub warp_to_barrier: bool,
    /// Per-thread stack bytes, as `cudaDeviceSetLimit(cudaLimitStackSize)` (default 1024, the
    /// driver's): the thread's local-memory window of a kernel that calls functions is the
    /// larger of this and its frame (`EIATTR_FRAME_SIZE`); one without calls gets its frame.
    pub stack_size: u32,
}

impl Default for LaunchConfig {
    fn default() -> Self {
        LaunchConfig {
            grid: [1, 1, 1],
            block: [1, 1, 1],
            params: Vec::new(),
            dynamic_shared: 0,
            check_hazards: true,
            fuel: 1 << 32,
            warp_to_barrier: false,
            stack_size: DEFAULT_STACK_SIZE,
        }
    }
}

/// What a finished launch reports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchReport {
    /// Control-word hazards found (empty when the control words are correct); at most one per
    /// (pc, kind), capped at [`MAX_HAZARDS`].
    pub hazards: Vec<Hazard>,
    /// Warp instructions executed.
    pub warp_instructions: u64,
    /// Thread instructions executed (active lanes summed).
    pub thread_instructions: u64,
    /// Warp instructions executed per instruction class, indexed like [`stats::CLASSES`].
    pub by_class: [u64; stats::CLASSES.len()],
    /// Modeled issue cycles of the slowest warp (see [`stats`]).
    pub cycles_critical_warp: u64,
    /// Modeled issue cycles summed over every warp of the launch.
    pub cycles_sum: u64,
    /// Register bank conflicts of the executed warp instructions (each an issue cycle in the
    /// modeled cycles; [`crate::banks`]).
    pub bank_conflicts: u64,
    /// Register operands of the executed warp instructions served by the reuse cache.
    pub reuse_hits: u64,
    /// Where the modeled cycles went, per instruction index (`code[i]`); the entries' totals
    /// add up to [`LaunchReport::cycles_sum`].
    pub profile: Vec<stats::PcCycles>,
}

/// At most this many hazards are recorded per launch.
pub const MAX_HAZARDS: usize = 256;

/// Bytes of constant bank 0 before the parameters (the driver area).
pub const DRIVER_AREA: usize = 0x140;
/// The size of a constant bank.
pub const BANK_SIZE: usize = 0x10000;
/// Threads per warp.
pub const WARP: u32 = 32;
/// Most threads a block may have.
pub const MAX_BLOCK_THREADS: u32 = 1024;

/// Global memory and the launches that use it.
#[derive(Clone, Default)]
pub struct Device {
    mem: memory::Global,
    tex: Option<std::sync::Arc<dyn TextureUnit>>,
}

impl fmt::Debug for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Device")
            .field("mem", &self.mem)
            .field("texture_unit", &self.tex.is_some())
            .finish()
    }
}

impl Device {
    /// An empty device.
    pub fn new() -> Device {
        Device::default()
    }

    /// Allocates `bytes` of zeroed global memory, 256-byte aligned; never returns 0.
    pub fn alloc(&mut self, bytes: u64) -> u64 {
        self.mem.alloc(bytes)
    }

    /// Binds the texture unit that serves `TEX`/`TLD`/`TXQ` (see [`TextureUnit`]); without
    /// one, texture instructions are [`EmuError::Unsupported`].
    pub fn set_texture_unit(&mut self, unit: std::sync::Arc<dyn TextureUnit>) {
        self.tex = Some(unit);
    }

    /// Writes `data` at `addr` (inside one allocation).
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), EmuError> {
        self.mem
            .slice_mut(addr, data.len() as u64)
            .map(|s| s.copy_from_slice(data))
            .ok_or(EmuError::Memory {
                pc: 0,
                what: "store",
                space: Space::Global,
                addr,
                size: data.len() as u32,
                why: "out of bounds",
            })
    }

    /// Reads `len` bytes at `addr` (inside one allocation).
    pub fn read(&self, addr: u64, len: u64) -> Result<Vec<u8>, EmuError> {
        self.mem
            .slice(addr, len)
            .map(<[u8]>::to_vec)
            .ok_or(EmuError::Memory {
                pc: 0,
                what: "load",
                space: Space::Global,
                addr,
                size: len as u32,
                why: "out of bounds",
            })
    }

    /// Runs `kernel` of `cubin` (an sm_50..53 ELF) over the whole grid.
    pub fn launch(
        &mut self,
        cubin: &[u8],
        kernel: &str,
        cfg: &LaunchConfig,
    ) -> Result<LaunchReport, EmuError> {
        let module = cubin::read_cubin(cubin).map_err(|e| EmuError::BadCubin(e.to_string()))?;
        let k = module
            .kernel(kernel)
            .ok_or_else(|| EmuError::UnknownKernel(kernel.to_string()))?;
        let code = crate::program::decode_program(&k.code)
            .map_err(|e| EmuError::BadCode(e.to_string()))?;
        self.run(&module, k, &code, cfg)
    }

    /// Runs already decoded code (`code[i]` at byte address [`inst_addr`]`(i)`) with the
    /// data of `kernel` (constant banks, shared and local sizes).
    pub fn launch_decoded(
        &mut self,
        module: &Cubin,
        kernel: &Kernel,
        code: &[(Inst, Control)],
        cfg: &LaunchConfig,
    ) -> Result<LaunchReport, EmuError> {
        self.run(module, kernel, code, cfg)
    }

    fn run(
        &mut self,
        module: &Cubin,
        k: &Kernel,
        code: &[(Inst, Control)],
        cfg: &LaunchConfig,
    ) -> Result<LaunchReport, EmuError> {
        let [bx, by, bz] = cfg.block;
        let [gx, gy, gz] = cfg.grid;
        let threads = bx as u64 * by as u64 * bz as u64;
        if threads == 0 || threads > MAX_BLOCK_THREADS as u64 {
            return Err(EmuError::BadLaunch(format!(
                "block {bx}x{by}x{bz} must have 1..={MAX_BLOCK_THREADS} threads"
            )));
        }
        if gx == 0 || gy == 0 || gz == 0 {
            return Err(EmuError::BadLaunch(format!("grid {gx}x{gy}x{gz} is empty")));
        }
        if let Some(req) = k.block_size {
            if req != cfg.block {
                return Err(EmuError::BadLaunch(format!(
                    "the kernel requires block {req:?}, launched with {:?}",
                    cfg.block
                )));
            }
        }
        if DRIVER_AREA + cfg.params.len() > BANK_SIZE {
            return Err(EmuError::BadLaunch(
                "parameters exceed constant bank 0".into(),
            ));
        }
        // The driver gives every thread the larger of the kernel's frame and the stack limit
        // (`cudaLimitStackSize`): code that calls (recursion) grows its stack below the
        // frame; code without calls addresses only its frame, which is all it gets here.
        let calls = code
            .iter()
            .any(|(i, _)| matches!(i.form().mnemonic, "CAL" | "JCAL" | "PRET"));
        let stack = if calls { cfg.stack_size } else { 0 };
        let local_size = (k.local_size.max(stack).max(16) as u64).next_multiple_of(16);
        let banks = self.constant_banks(module, k, cfg, local_size)?;
        let shared = k.shared_size as u64 + cfg.dynamic_shared as u64;
        if shared > 0x1_0000 {
            return Err(EmuError::BadLaunch(format!(
                "{shared} bytes of shared memory (at most 64 KiB)"
            )));
        }
        let prog = warp::Program::new(code);
        let mut report = LaunchReport {
            profile: vec![stats::PcCycles::default(); code.len()],
            ..LaunchReport::default()
        };
        let mut fuel = cfg.fuel;
        for z in 0..gz {
            for y in 0..gy {
                for x in 0..gx {
                    let mut block = warp::Block::new(
                        &prog,
                        [x, y, z],
                        cfg,
                        shared as usize,
                        local_size as usize,
                    );
                    block.run(
                        &prog,
                        (&banks, self.tex.as_deref()),
                        &mut self.mem,
                        &mut fuel,
                        cfg.fuel,
                        &mut report,
                    )?;
                }
            }
        }
        report.warp_instructions = cfg.fuel - fuel;
        Ok(report)
    }

    /// Builds the constant banks of a launch and loads the module's global data.
    fn constant_banks(
        &mut self,
        module: &Cubin,
        k: &Kernel,
        cfg: &LaunchConfig,
        local_size: u64,
    ) -> Result<Vec<Vec<u8>>, EmuError> {
        let mut banks: Vec<Vec<u8>> = vec![Vec::new(); 18];
        let mut b0 = k.const0.clone();
        b0.resize((DRIVER_AREA + cfg.params.len()).max(b0.len()), 0);
        let put = |b: &mut Vec<u8>, at: usize, v: u32| {
            b[at..at + 4].copy_from_slice(&v.to_le_bytes());
        };
        for i in 0..3 {
            put(&mut b0, 0x8 + 4 * i, cfg.block[i]);
            put(&mut b0, 0x14 + 4 * i, cfg.grid[i]);
        }
        put(&mut b0, 0x20, local_size as u32);
        b0[DRIVER_AREA..DRIVER_AREA + cfg.params.len()].copy_from_slice(&cfg.params);
        banks[0] = b0;
        for cb in module.globals.const_banks.iter().chain(&k.const_banks) {
            if let Some(slot) = banks.get_mut(cb.bank as usize) {
                if cb.bank != 0 {
                    *slot = cb.data.clone();
                }
            }
        }
        // Module global data: one allocation per section, addresses patched by relocations.
        let g = &module.globals;
        let mut section_base = Vec::new();
        if !g.global_init.is_empty() {
            let a = self.mem.alloc(g.global_init.len() as u64);
            self.write(a, &g.global_init)?;
            section_base.push((".nv.global.init", a));
        }
        if g.global_size > 0 {
            section_base.push((".nv.global", self.mem.alloc(g.global_size)));
        }
        for r in &g.relocations {
            let Some(sym) = g.symbols.iter().find(|s| s.name == r.symbol) else {
                continue;
            };
            let Some(&(_, base)) = section_base.iter().find(|(n, _)| *n == sym.section) else {
                continue;
            };
            let value = (base + sym.offset).wrapping_add(r.addend as u64);
            let bank = r
                .section
                .strip_prefix(".nv.constant")
                .and_then(|rest| rest.split('.').next())
                .and_then(|n| n.parse::<usize>().ok());
            let Some(bank) = bank.and_then(|b| banks.get_mut(b)) else {
                continue;
            };
            let width = if r.r_type == 1 { 4 } else { 8 };
            let at = r.offset as usize;
            if bank.len() < at + width {
                bank.resize(at + width, 0);
            }
            bank[at..at + width].copy_from_slice(&value.to_le_bytes()[..width]);
        }
        Ok(banks)
    }
}

impl fmt::Display for LaunchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} warp instructions, {} thread instructions, {} hazards",
            self.warp_instructions,
            self.thread_instructions,
            self.hazards.len()
        )
    }
}

/// Byte address in the kernel's code of instruction `index` ([`crate::program::inst_addr`]
/// as the 32-bit program counter).
pub fn inst_addr(index: usize) -> u32 {
    crate::program::inst_addr(index) as u32
}
