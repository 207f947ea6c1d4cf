//! The target description consumed by the generic back-end passes ([`crate::schedule`] and
//! [`crate::regalloc`]).
//!
//! A backend (SPA 5.0 in `compiler/src/spa5/`) implements [`TargetIsa`] once; the scheduler
//! and the register allocator never look at target opcodes themselves, they only ask the
//! trait:
//!
//! - **Register files**: how many allocatable registers each [`RegFile`] has
//!   ([`TargetIsa::num_regs`]; SPA5: 255 GPRs `R0..R254`, `RZ` is not allocatable, and 7
//!   predicates `P0..P6`), and how many registers a value of each [`Type`] occupies
//!   ([`TargetIsa::footprint`]: `b32` one GPR, `b64` an even-aligned GPR pair, `pred` one
//!   predicate).
//! - **Operand constraints** per instruction ([`TargetIsa::constraints`]): groups of results
//!   that must land in consecutive, aligned registers (a 128-bit load's four `b32` results in
//!   an aligned quad), groups of operands that must be read from consecutive aligned registers
//!   (a 128-bit store's data, a 64-bit address formed by two `b32` values), and whether the
//!   results may reuse the register of an operand that dies at the instruction.
//! - **Scheduling** ([`TargetIsa::sched_info`], [`TargetIsa::mem_effects`]): fixed-latency
//!   versus variable-latency (scoreboarded) instructions, their typical latency, and the
//!   functional unit they occupy.
//! - **Register banks** ([`TargetIsa::gpr_banks`], [`TargetIsa::bank_reads`]): a GPR file
//!   split into banks (SPA5: four, `Rn` in bank `n % 4`) reads two distinct registers of one
//!   bank in one instruction one cycle slower; the allocator uses these to place the sources
//!   of an instruction in different banks when it has the choice.
//! - **Code the allocator inserts** ([`TargetIsa::make_move`], [`TargetIsa::make_spill`],
//!   [`TargetIsa::make_reload`]): the target returns the [`InstructionData`] (usually a
//!   `Target` instruction) for a register move, a spill store and a reload from the private
//!   spill area. The allocator creates the instructions, their result values and records in
//!   its [`Allocation`](crate::regalloc::Allocation) which ones it inserted.
//!
//! Requirements on an implementation: answers are pure functions of their arguments (the
//! passes may ask several times and must get the same answer, which keeps them
//! deterministic); constraint indices refer to existing operands/results; a move has exactly
//! one operand (the source) and one result of the moved type; a spill has one operand and no
//! result; a reload has no operand and one result.
//!
//! [`ToyTarget`] implements the trait over the generic IR opcodes, so the passes can be tested
//! (unit tests, property tests, `test regalloc` / `test schedule` filetests) without a backend.

use smallvec::SmallVec;

use crate::ir::{Function, Inst, InstructionData, MemSize, Opcode, RegFile, Type, TypeList, Value};

/// A physical register: a register file and an index in it (`R7` is `{Gpr, 7}`, `P2` is
/// `{Pred, 2}`). A multi-register value is named by its first register.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PReg {
    /// The register file.
    pub file: RegFile,
    /// Index within the file.
    pub index: u16,
}

impl PReg {
    /// A GPR.
    pub const fn gpr(index: u16) -> PReg {
        PReg {
            file: RegFile::Gpr,
            index,
        }
    }
    /// A predicate register.
    pub const fn pred(index: u16) -> PReg {
        PReg {
            file: RegFile::Pred,
            index,
        }
    }
}

impl core::fmt::Display for PReg {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.file {
            RegFile::Gpr => write!(f, "r{}", self.index),
            RegFile::Pred => write!(f, "p{}", self.index),
        }
    }
}

/// How many registers of which file a value occupies.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Footprint {
    /// Register file.
    pub file: RegFile,
    /// Number of consecutive registers.
    pub width: u8,
    /// Required alignment of the first register index (a power of two).
    pub align: u8,
}

/// A run of consecutive operands (or results) of one instruction that must occupy
/// consecutive registers: member `i` starts right after member `i - 1` ends (members may be
/// `b32` or `b64`; all must be in the GPR file), and the first register index is a multiple
/// of `align`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct RegGroup {
    /// Index of the first member in the instruction's operand (or result) list.
    pub start: u8,
    /// Number of members.
    pub len: u8,
    /// Alignment of the first register (a power of two, in registers).
    pub align: u8,
}

/// Register constraints of one instruction beyond the per-type [`Footprint`].
///
/// Operand indices refer to [`InstructionData::args`] (block-call arguments never carry
/// constraints). Fixed-register operands are not expressible: SPA5 has none (every operand
/// can be any GPR, `RZ` is an encoding, not an allocatable register).
#[derive(Debug, Default, PartialEq, Eq)]
pub struct InstConstraints {
    /// Groups of results that must be consecutive and aligned (e.g. `LDG.E.128`: results
    /// 0..4, align 4).
    pub result_groups: SmallVec<[RegGroup; 1]>,
    /// Groups of operands that must be read from consecutive aligned registers (e.g.
    /// `STG.E.128` data operands 1..5 align 4; a 64-bit address given as two `b32`
    /// operands, align 2). The allocator satisfies these by copying the members into a fresh
    /// group when they are not already laid out that way.
    pub arg_groups: SmallVec<[RegGroup; 2]>,
    /// If true, no result may share a register with any operand, even one whose last use
    /// is this instruction (an "early clobber"). If false, a result may reuse the register
    /// of an operand that dies here.
    pub results_early: bool,
}

/// Copies the groups with `from_slice` (a plain copy: the derived clone goes through
/// `SmallVec`'s generic `extend`, and the allocator clones constraints per instruction).
impl Clone for InstConstraints {
    fn clone(&self) -> Self {
        InstConstraints {
            result_groups: SmallVec::from_slice(&self.result_groups),
            arg_groups: SmallVec::from_slice(&self.arg_groups),
            results_early: self.results_early,
        }
    }
}

impl InstConstraints {
    /// True if there is nothing beyond the defaults.
    pub fn is_empty(&self) -> bool {
        self.result_groups.is_empty() && self.arg_groups.is_empty() && !self.results_early
    }
}

/// Fixed or variable latency (SPA5: fixed-latency results are waited for by stall counts,
/// variable-latency results through scoreboard barriers).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LatencyKind {
    /// The result is ready exactly `latency` cycles after issue (ALU).
    Fixed,
    /// The result arrives after a data-dependent time, typically `latency` cycles (memory,
    /// MUFU, double precision, S2R).
    Variable,
}

/// The functional unit (throughput class) an instruction occupies.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Resource {
    /// Integer / single precision ALU.
    Alu,
    /// Special function unit (MUFU: rcp, rsq, sin, ...), low throughput.
    Sfu,
    /// Double precision unit, low throughput.
    Fp64,
    /// Load/store unit (memory and texture paths).
    Mem,
    /// Branches, barriers and other control.
    Control,
}

/// What the scheduler needs to know about one instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct SchedInfo {
    /// Fixed or variable latency.
    pub kind: LatencyKind,
    /// Cycles from issue until a dependent instruction can issue (typical value for
    /// variable-latency instructions).
    pub latency: u16,
    /// Unit occupied.
    pub resource: Resource,
    /// Cycles the unit stays busy (reciprocal throughput); at least 1.
    pub issue_cycles: u16,
}

impl SchedInfo {
    /// A plain fixed-latency ALU instruction with the given latency.
    pub const fn alu(latency: u16) -> SchedInfo {
        SchedInfo {
            kind: LatencyKind::Fixed,
            latency,
            resource: Resource::Alu,
            issue_cycles: 1,
        }
    }
}

/// Memory and ordering effects of an instruction, for the scheduler's dependency graph.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct MemEffects {
    /// Reads memory: may not move across a write or a barrier.
    pub reads: bool,
    /// Writes memory (or has other side effects): keeps its order with every other memory
    /// access and barrier.
    pub writes: bool,
    /// A barrier/fence or other full ordering point: nothing with memory or side effects
    /// crosses it.
    pub barrier: bool,
    /// The memories read or written: accesses of disjoint memories never conflict.
    pub spaces: MemClasses,
}

/// A set of memories that no access of another reaches: global (UAVs, SRVs, `g[]`,
/// outputs: buffers the launch may bind to overlapping memory), the group's shared memory
/// (LDS) and a thread's local memory (private arrays, spills). Constant buffers are never
/// written, so their reads are in no class. The default is every class.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MemClasses(pub u8);

impl MemClasses {
    /// Global memory.
    pub const GLOBAL: MemClasses = MemClasses(1);
    /// Shared memory (LDS).
    pub const SHARED: MemClasses = MemClasses(2);
    /// A thread's local memory.
    pub const LOCAL: MemClasses = MemClasses(4);
    /// Every class (unknown effects).
    pub const ALL: MemClasses = MemClasses(7);
    /// No class.
    pub const NONE: MemClasses = MemClasses(0);

    /// The class of an IR memory space.
    pub fn of(space: crate::ir::MemSpace) -> MemClasses {
        use crate::ir::MemSpace;
        match space {
            MemSpace::Lds(_) => MemClasses::SHARED,
            MemSpace::Private(_) => MemClasses::LOCAL,
            MemSpace::Cb(_) => MemClasses::NONE,
            _ => MemClasses::GLOBAL,
        }
    }

    /// Whether the two sets share a class.
    pub fn meet(self, other: MemClasses) -> bool {
        self.0 & other.0 != 0
    }
}

impl Default for MemClasses {
    fn default() -> Self {
        MemClasses::ALL
    }
}

impl std::ops::BitOr for MemClasses {
    type Output = MemClasses;
    fn bitor(self, o: MemClasses) -> MemClasses {
        MemClasses(self.0 | o.0)
    }
}

/// Memory effects of generic opcodes (used by [`TargetIsa::mem_effects`]'s default).
pub fn generic_mem_effects(data: &InstructionData) -> MemEffects {
    let op = data.opcode();
    match op {
        Opcode::Barrier => MemEffects {
            reads: true,
            writes: true,
            barrier: true,
            spaces: MemClasses::ALL,
        },
        Opcode::Target => MemEffects {
            reads: data.has_side_effects(),
            writes: data.has_side_effects(),
            barrier: false,
            spaces: MemClasses::ALL,
        },
        _ => MemEffects {
            reads: op.reads_memory(),
            writes: op.writes_memory() || (op.has_side_effects() && !op.is_terminator()),
            barrier: false,
            spaces: match data.mem_arg() {
                Some(m) if op.reads_memory() || op.writes_memory() => MemClasses::of(m.space),
                _ => MemClasses::ALL,
            },
        },
    }
}

/// The GPR operands one machine instruction reads from the register banks: (argument index,
/// register within the argument's footprint) ([`TargetIsa::bank_reads`]).
pub type BankReads = SmallVec<[(u8, u8); 4]>;

/// The target description trait. See the module doc for the contract.
pub trait TargetIsa {
    /// A short name for diagnostics (`"spa5"`, `"toy"`).
    fn name(&self) -> &str;

    /// Number of allocatable registers in `file`; registers `0..num_regs(file)` may be
    /// assigned. SPA5: 255 GPRs, 7 predicates. A test target may report a tiny file (e.g.
    /// 8 GPRs) to exercise spilling; [`crate::regalloc::RegAllocOptions`] can lower it too.
    fn num_regs(&self, file: RegFile) -> u32;

    /// GPRs per thread the hardware allocates at once: a count anywhere inside one unit
    /// costs the same occupancy. SPA5: 8 (256 registers per warp). The default 1 counts every
    /// register.
    fn gpr_allocation_unit(&self) -> u32 {
        1
    }

    /// Registers occupied by a value of type `ty`. The default is the SPA5 convention:
    /// `b32` one GPR, `b64` an even-aligned pair of GPRs, `pred` one predicate.
    fn footprint(&self, ty: Type) -> Footprint {
        match ty {
            Type::B32 => Footprint {
                file: RegFile::Gpr,
                width: 1,
                align: 1,
            },
            Type::B64 => Footprint {
                file: RegFile::Gpr,
                width: 2,
                align: 2,
            },
            Type::Pred => Footprint {
                file: RegFile::Pred,
                width: 1,
                align: 1,
            },
        }
    }

    /// Register constraints of `inst` (default: none).
    fn constraints(&self, func: &Function, inst: Inst) -> InstConstraints {
        let _ = (func, inst);
        InstConstraints::default()
    }

    /// Latency and unit of `inst`.
    fn sched_info(&self, func: &Function, inst: Inst) -> SchedInfo;

    /// Memory/ordering effects of `inst`. The default derives them from the generic opcode
    /// flags; a `Target` instruction with `side_effects` is treated as reading and writing
    /// memory, one without as pure.
    fn mem_effects(&self, func: &Function, inst: Inst) -> MemEffects {
        generic_mem_effects(&func.dfg.insts[inst])
    }

    /// Whether `inst` is a load that may also run where the program would not run it: it
    /// reads memory, has no side effects, and cannot fault on any address (every access is
    /// guarded by its own bounds test). Default: no instruction is.
    fn speculable_load(&self, func: &Function, inst: Inst) -> bool {
        let _ = (func, inst);
        false
    }

    /// A register-to-register move of a value of type `ty` from `src`: the returned data
    /// must have exactly the operand `src` and one result of type `ty`.
    fn make_move(&self, ty: Type, src: Value) -> InstructionData;

    /// A store of `src` (of type `ty`) to byte `offset` of the per-thread spill area: one
    /// operand, no result, marked as having side effects. Predicates are spilled too (when
    /// more than `num_regs(Pred)` are live): a target without a direct predicate store can
    /// expand this instruction with a GPR it keeps out of `num_regs(Gpr)` (SPA5: `P2R` /
    /// `R2P` or `SEL` through a reserved register, then `STL`/`LDL`).
    fn make_spill(&self, ty: Type, src: Value, offset: u32) -> InstructionData;

    /// A load of a value of type `ty` from byte `offset` of the spill area: no operand, one
    /// result of type `ty`.
    fn make_reload(&self, ty: Type, offset: u32) -> InstructionData;

    /// Bytes (and alignment) a spilled value of type `ty` needs in the spill area. The
    /// default: 4 per register (a predicate takes 4 bytes).
    fn spill_size(&self, ty: Type) -> u32 {
        4 * u32::from(self.footprint(ty).width)
    }

    /// Number of banks the GPR file is split into (register `n` in bank `n % banks`); 1 (the
    /// default) for a file without bank conflicts.
    fn gpr_banks(&self) -> u32 {
        1
    }

    /// The GPR operands `inst` reads together from the register banks, one list per machine
    /// instruction it stands for: (argument index, register within the argument's
    /// footprint). Two distinct registers of one bank in a list cost a cycle. Default: none.
    fn bank_reads(&self, func: &Function, inst: Inst) -> SmallVec<[BankReads; 2]> {
        let _ = (func, inst);
        SmallVec::new()
    }

    /// True if `inst` can be re-executed at any point instead of being spilled and reloaded
    /// (it has no operands, no side effects and one result). Default: `iconst`/`pconst`.
    fn is_rematerializable(&self, func: &Function, inst: Inst) -> bool {
        matches!(func.dfg.opcode(inst), Opcode::Iconst | Opcode::Pconst)
    }
}

/// Codes of the toy target's own `Target` instructions.
pub mod toy_codes {
    /// `target.61440 OFFSET (v)`: spill `v` to the spill area at byte OFFSET.
    pub const SPILL: u16 = 0xF000;
    /// `target.61441 OFFSET () -> T`: reload from the spill area at byte OFFSET.
    pub const RELOAD: u16 = 0xF001;
    /// A pure ALU operation (fixed latency 6), any operands and results.
    pub const ALU: u16 = 0x100;
    /// A wide load: variable latency, all results in one aligned group (like `LDG.E.128`).
    pub const WIDE_LOAD: u16 = 0x200;
    /// A wide store with side effects: operands after the first (the address) form one
    /// aligned group (like `STG.E.128`).
    pub const WIDE_STORE: u16 = 0x300;
}

/// A target over the generic IR opcodes, for testing the passes without a backend.
///
/// - Moves are generic `copy`; spills and reloads are `Target` instructions with the codes
///   in [`toy_codes`] and the byte offset as immediate.
/// - Multi-word loads put their results in an aligned group (2 words: align 2; 3 or 4:
///   align 4); multi-word stores read their data from such a group; `concat lo, hi` reads an
///   aligned pair (modelling a 64-bit address made of two `b32` values); atomics are early
///   clobbers. `Target` instructions with the codes in [`toy_codes`] model selected
///   backend code (`WIDE_LOAD` result groups, `WIDE_STORE` operand groups, `ALU`).
/// - Latencies follow SPA5's rough shape: ALU 6 cycles fixed; memory 200 (global) or 30
///   (shared/constant) variable; transcendental 20 variable on the SFU; double 40 variable.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct ToyTarget {
    /// Allocatable GPRs.
    pub gprs: u32,
    /// Allocatable predicates.
    pub preds: u32,
}

impl Default for ToyTarget {
    /// SPA5's sizes: 255 GPRs, 7 predicates.
    fn default() -> Self {
        ToyTarget {
            gprs: 255,
            preds: 7,
        }
    }
}

impl ToyTarget {
    /// A toy target with the given register file sizes.
    pub fn new(gprs: u32, preds: u32) -> Self {
        ToyTarget { gprs, preds }
    }
}

fn group_align(words: usize) -> u8 {
    if words <= 1 {
        1
    } else if words == 2 {
        2
    } else {
        4
    }
}

impl TargetIsa for ToyTarget {
    fn name(&self) -> &str {
        "toy"
    }

    fn num_regs(&self, file: RegFile) -> u32 {
        match file {
            RegFile::Gpr => self.gprs,
            RegFile::Pred => self.preds,
        }
    }

    fn constraints(&self, func: &Function, inst: Inst) -> InstConstraints {
        let data = &func.dfg.insts[inst];
        let mut c = InstConstraints::default();
        match data {
            InstructionData::Load { mem, .. } => {
                let n = func.dfg.inst_results(inst).len();
                if let MemSize::Words(_) = mem.size {
                    if n > 1 {
                        c.result_groups.push(RegGroup {
                            start: 0,
                            len: n as u8,
                            align: group_align(n),
                        });
                    }
                }
            }
            InstructionData::Store { .. } => {
                let n = data.mem_data().len();
                if n > 1 {
                    let start = usize::from(data.mem_addr().is_some());
                    c.arg_groups.push(RegGroup {
                        start: start as u8,
                        len: n as u8,
                        align: group_align(n),
                    });
                }
            }
            InstructionData::Binary {
                opcode: Opcode::Concat,
                ..
            } => c.arg_groups.push(RegGroup {
                start: 0,
                len: 2,
                align: 2,
            }),
            InstructionData::Atomic { .. } => c.results_early = true,
            InstructionData::Target { code, args, .. } => {
                let n = func.dfg.inst_results(inst).len();
                if *code == toy_codes::WIDE_LOAD && n > 1 {
                    c.result_groups.push(RegGroup {
                        start: 0,
                        len: n as u8,
                        align: group_align(n),
                    });
                }
                if *code == toy_codes::WIDE_STORE && args.len() > 2 {
                    let n = args.len() - 1;
                    c.arg_groups.push(RegGroup {
                        start: 1,
                        len: n as u8,
                        align: group_align(n),
                    });
                }
            }
            _ => {}
        }
        c
    }

    fn sched_info(&self, func: &Function, inst: Inst) -> SchedInfo {
        use crate::ir::MemSpace;
        let data = &func.dfg.insts[inst];
        let var = |latency, resource, issue_cycles| SchedInfo {
            kind: LatencyKind::Variable,
            latency,
            resource,
            issue_cycles,
        };
        match data.opcode() {
            Opcode::Load | Opcode::Store | Opcode::Atomic | Opcode::AtomicNoret => {
                let lat = match data.mem_arg().map(|m| m.space) {
                    Some(MemSpace::Lds(_)) | Some(MemSpace::Cb(_)) => 30,
                    _ => 200,
                };
                var(lat, Resource::Mem, 1)
            }
            Opcode::Frcp
            | Opcode::Frsq
            | Opcode::Fsqrt
            | Opcode::Fexp2
            | Opcode::Flog2
            | Opcode::Fsin
            | Opcode::Fcos
            | Opcode::Fdiv => var(20, Resource::Sfu, 4),
            Opcode::Dadd
            | Opcode::Dsub
            | Opcode::Dmul
            | Opcode::Dfma
            | Opcode::Ddiv
            | Opcode::DdivNormal
            | Opcode::Drcp
            | Opcode::Dsqrt
            | Opcode::Dmin
            | Opcode::Dmax
            | Opcode::Dcmp
            | Opcode::F2d
            | Opcode::D2f
            | Opcode::D2i
            | Opcode::D2u
            | Opcode::I2d
            | Opcode::U2d => var(40, Resource::Fp64, 8),
            Opcode::Special => var(25, Resource::Alu, 1),
            Opcode::Barrier
            | Opcode::Jump
            | Opcode::Brif
            | Opcode::BrTable
            | Opcode::Return
            | Opcode::Unreachable => SchedInfo {
                kind: LatencyKind::Fixed,
                latency: 1,
                resource: Resource::Control,
                issue_cycles: 1,
            },
            Opcode::Target => match data {
                InstructionData::Target {
                    code: toy_codes::SPILL | toy_codes::RELOAD | toy_codes::WIDE_STORE,
                    ..
                } => var(30, Resource::Mem, 1),
                InstructionData::Target {
                    code: toy_codes::WIDE_LOAD,
                    ..
                } => var(200, Resource::Mem, 1),
                _ => SchedInfo::alu(6),
            },
            _ => SchedInfo::alu(6),
        }
    }

    fn make_move(&self, _ty: Type, src: Value) -> InstructionData {
        InstructionData::Unary {
            opcode: Opcode::Copy,
            args: [src],
        }
    }

    fn make_spill(&self, _ty: Type, src: Value, offset: u32) -> InstructionData {
        InstructionData::Target {
            opcode: Opcode::Target,
            code: toy_codes::SPILL,
            imm: u64::from(offset),
            side_effects: true,
            args: [src].into_iter().collect(),
            results: TypeList::new(),
        }
    }

    fn make_reload(&self, ty: Type, offset: u32) -> InstructionData {
        InstructionData::Target {
            opcode: Opcode::Target,
            code: toy_codes::RELOAD,
            imm: u64::from(offset),
            side_effects: false,
            args: SmallVec::new(),
            results: [ty].into_iter().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FuncCursor, MemArg, MemSpace};

    #[test]
    fn toy_constraints_for_wide_memory() {
        let mut func = Function::new("t");
        let b = func.append_new_block();
        let mut cur = FuncCursor::new(&mut func).at_end(b);
        let a = cur.ins().iconst(Type::B32, 0);
        let mem = MemArg {
            space: MemSpace::Uav(0),
            offset: 0,
            size: MemSize::Words(4),
            align: 16,
            inbounds: false,
        };
        let vals = cur.ins().load(mem, Some(a));
        let st = cur.ins().store(mem, Some(a), &vals);
        cur.ins().return_();
        let ld = func.dfg.value_inst(vals[0]).expect("load result");
        let t = ToyTarget::default();
        let c = t.constraints(&func, ld);
        assert_eq!(
            c.result_groups.as_slice(),
            &[RegGroup {
                start: 0,
                len: 4,
                align: 4
            }]
        );
        let c = t.constraints(&func, st);
        assert_eq!(
            c.arg_groups.as_slice(),
            &[RegGroup {
                start: 1,
                len: 4,
                align: 4
            }]
        );
        assert_eq!(t.sched_info(&func, ld).kind, LatencyKind::Variable);
        assert!(t.mem_effects(&func, st).writes);
        assert!(t.mem_effects(&func, ld).reads && !t.mem_effects(&func, ld).writes);
        assert_eq!(
            t.footprint(Type::B64),
            Footprint {
                file: RegFile::Gpr,
                width: 2,
                align: 2
            }
        );
        assert_eq!(PReg::gpr(3).to_string(), "r3");
    }
}
