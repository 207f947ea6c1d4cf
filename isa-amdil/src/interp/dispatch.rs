//! The dispatch interface shared by every runner in the project (this interpreter, the IR
//! interpreter, `spa5-run`): buffers in, buffers out, statistics and errors as values.
//!
//! Buffers are raw little-endian bytes. A [`Dispatch`] owns them; after a run the UAVs and
//! the global buffer hold the results. Nothing here panics on user input.

use std::collections::BTreeMap;

use thiserror::Error;

use super::texture::{SamplerState, Texture};
use super::typed_uav::UavView;

/// How work-items of one group interleave between barriers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Schedule {
    /// All work-items of a group step one instruction at a time in order, like one wide
    /// SIMD wavefront (what AMD hardware gives within a 64-wide wavefront).
    #[default]
    LockStep,
    /// Work-items run random-length bursts in a random order (seeded): exposes kernels that
    /// rely on lock step without barriers.
    Shuffled {
        /// PRNG seed.
        seed: u64,
    },
    /// Warps of `width` consecutive work-items (flat in-group ids), lowest first, each run
    /// until all its work-items wait at a barrier or are done; inside a warp the work-items
    /// at the lowest pc step together in id order (reconverging like a SIMT warp on
    /// structured code). With `width` 32 this is the order the SPA 5.0 emulator follows when
    /// it runs each warp to its next barrier (`LaunchConfig::warp_to_barrier`), so outputs
    /// that depend on the interleaving can still be compared. `reverse` keeps the warp order
    /// but steps the highest pc first and the work-items in descending order: what it
    /// changes is left open even by a fixed warp order (two lanes storing one address in one
    /// instruction, the order of the two sides of a divergent branch).
    Warps {
        /// Work-items per warp.
        width: u32,
        /// Highest pc and id first inside a warp.
        reverse: bool,
    },
}

/// Everything a compute dispatch needs besides the program.
#[derive(Clone, Debug)]
pub struct Dispatch {
    /// Number of groups in X, Y, Z.
    pub grid: [u32; 3],
    /// UAV contents by id (raw bytes).
    pub uavs: BTreeMap<u32, Vec<u8>>,
    /// The resource shape behind typed UAVs by id (absent: [`UavView::linear`] over the
    /// UAV's bytes; see [`super::typed_uav`]).
    pub uav_views: BTreeMap<u32, UavView>,
    /// Read-only SRV contents by id.
    pub srvs: BTreeMap<u32, Vec<u8>>,
    /// Constant buffer contents by id (16 bytes per element).
    pub cbs: BTreeMap<u32, Vec<u8>>,
    /// The global buffer `g[]` (16 bytes per element).
    pub global: Option<Vec<u8>>,
    /// Textures bound to resource ids (`dcl_resource_id(n)`).
    pub textures: BTreeMap<u32, Texture>,
    /// Sampler states by sampler id (absent: point filtering, clamp to edge).
    pub samplers: BTreeMap<u32, SamplerState>,
    /// Pixel-shader compute (`il_ps`): the 2-D domain in pixels; `grid` is then ignored
    /// (work-items run in 8x8 tiles covering the domain).
    pub domain: Option<[u32; 2]>,
    /// Pixel-shader compute: the domain's origin (CAL's `CALdomain.x/y`): work-item (i, j)
    /// of the domain is pixel `(x + i, y + j)`, which `vWinCoord0` reads (`+ 0.5`); the
    /// domain check and the `o#` buffers stay relative to the domain.
    pub domain_origin: [u32; 2],
    /// Pixel-shader outputs `o#`: `width * height` pixels of 16 bytes (the vec4), row-major;
    /// created zero-filled for each output the program writes when absent.
    pub ps_outputs: BTreeMap<u32, Vec<u8>>,
    /// Instruction budget for the whole dispatch (per work-item instruction).
    pub fuel: u64,
    /// Work-item interleaving.
    pub schedule: Schedule,
    /// Report LDS races between barriers.
    pub lds_check: bool,
    /// Record out-of-range memory accesses in [`RunStats::oob`].
    pub report_oob: bool,
    /// A declared UAV without a buffer is an error (true) or an empty buffer (false).
    pub require_buffers: bool,
    /// Sensitivity runs: with a seed, every approximate result is nudged by a pseudo-random
    /// error within what the guide allows ([`PERTURB_ULPS`] units in the last place, plus
    /// [`PERTURB_TRIG_ABS`] for trigonometry), and a trigonometric result whose argument is
    /// outside [-pi, pi] (undefined there) becomes NaN. Outputs that move between
    /// runs with different seeds depend on those errors (ill-conditioned or undefined).
    pub perturb: Option<u64>,
}

/// Largest perturbation of an approximate result, in f32 units in the last place.
pub const PERTURB_ULPS: u32 = 2;
/// Largest absolute perturbation of a trigonometric result (MUFU's absolute error scale).
pub const PERTURB_TRIG_ABS: f32 = 1.0 / (1 << 20) as f32;

impl Default for Dispatch {
    fn default() -> Self {
        Dispatch {
            grid: [1, 1, 1],
            uavs: BTreeMap::new(),
            uav_views: BTreeMap::new(),
            srvs: BTreeMap::new(),
            cbs: BTreeMap::new(),
            global: None,
            textures: BTreeMap::new(),
            samplers: BTreeMap::new(),
            domain: None,
            domain_origin: [0, 0],
            ps_outputs: BTreeMap::new(),
            fuel: 1 << 32,
            schedule: Schedule::LockStep,
            lds_check: false,
            report_oob: false,
            require_buffers: true,
            perturb: None,
        }
    }
}

impl Dispatch {
    /// A dispatch over `grid` groups with default settings and no buffers.
    pub fn new(grid: [u32; 3]) -> Self {
        Dispatch {
            grid,
            ..Dispatch::default()
        }
    }

    /// The view of typed UAV `id`: the one set in [`Dispatch::uav_views`], else the linear
    /// default over its buffer.
    pub fn uav_view(&self, id: u32) -> UavView {
        self.uav_views
            .get(&id)
            .copied()
            .unwrap_or_else(|| UavView::linear(self.uavs.get(&id).map_or(0, Vec::len)))
    }
}

/// The memory an out-of-range access targeted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemSpace {
    /// A UAV.
    Uav(u32),
    /// An SRV.
    Srv(u32),
    /// An LDS allocation.
    Lds(u32),
    /// A GDS allocation.
    Gds(u32),
    /// The global buffer.
    Global,
    /// A pixel-shader output buffer.
    Output(u32),
}

/// One recorded out-of-range access (loads gave 0, stores were dropped).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OobAccess {
    /// Target.
    pub space: MemSpace,
    /// Byte address.
    pub addr: u64,
    /// True for a store.
    pub write: bool,
    /// Source line.
    pub line: u32,
    /// Flat absolute work-item id.
    pub item: u32,
}

/// Two work-items touched one LDS dword between barriers, at least one writing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LdsRace {
    /// LDS id.
    pub lds: u32,
    /// Byte address of the dword.
    pub addr: u32,
    /// Group (flat id).
    pub group: u32,
    /// The two work-items (flat in-group ids): earlier accessor, current accessor.
    pub items: (u32, u32),
    /// Source line of the second access.
    pub line: u32,
}

/// Counters and reports of a finished run.
#[derive(Clone, Debug, Default)]
pub struct RunStats {
    /// Instructions executed, summed over work-items.
    pub instructions: u64,
    /// Groups run.
    pub groups: u64,
    /// Work-items run.
    pub work_items: u64,
    /// Barrier releases.
    pub barriers: u64,
    /// Out-of-range accesses (when [`Dispatch::report_oob`]; capped at 1000 entries).
    pub oob: Vec<OobAccess>,
    /// Total out-of-range accesses (counted always).
    pub oob_count: u64,
    /// LDS races (when [`Dispatch::lds_check`]; capped at 1000 entries).
    pub lds_races: Vec<LdsRace>,
    /// Non-fatal remarks (decoding warnings, barrier divergence).
    pub warnings: Vec<String>,
}

/// Why a dispatch failed.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum InterpError {
    /// The program uses something the interpreter does not implement.
    #[error("line {line}: unsupported: {what}")]
    Unsupported {
        /// What (opcode or operand form).
        what: String,
        /// Source line.
        line: u32,
    },
    /// The program is malformed in a way the interpreter cannot run.
    #[error("line {line}: {message}")]
    Malformed {
        /// Description.
        message: String,
        /// Source line.
        line: u32,
    },
    /// Work-items that must execute an instruction together (`neighborExch`) did not.
    #[error("line {line}: {message}")]
    Divergence {
        /// Which work-items and what they did instead.
        message: String,
        /// Source line.
        line: u32,
    },
    /// A declared buffer was not supplied.
    #[error("missing buffer: {0}")]
    MissingBuffer(String),
    /// The instruction budget ran out (runaway loop?).
    #[error("out of fuel after {executed} instructions (line {line})")]
    OutOfFuel {
        /// Instructions executed.
        executed: u64,
        /// Line of the instruction about to run.
        line: u32,
    },
    /// The source text did not parse (first error rendered).
    #[error("parse error: {0}")]
    Parse(String),
    /// Invalid dispatch parameters (zero grid, group too large...).
    #[error("invalid dispatch: {0}")]
    BadDispatch(String),
}
