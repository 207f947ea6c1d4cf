//! The interpreter's pre-decoded program: a flat list of [`Inst`] with every name resolved
//! (temps renumbered densely, literals inlined, jump targets as instruction indices).
//!
//! Built once from the AST by [`super::decode`]; the executor ([`super::exec`]) never looks
//! at strings. Invariants established by the decoder and relied on by the executor: every
//! jump target is `<= insts.len()`, every temp index is `< num_temps`, every indexed-temp
//! array id is `< itemp_sizes.len()`, every function id in a `Call` resolves.

use std::collections::BTreeMap;

use super::dispatch::InterpError;
use super::fops::{RelOp, ZeroOp};

/// How source modifiers are interpreted for an instruction (guide Table 2.10, L718-729).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ty {
    /// Float: all modifiers; destination `_sat` and shift scale apply.
    Float,
    /// Integer/unsigned/bitwise: `_neg` is two's complement, `_abs` is integer abs.
    Int,
    /// Double: `_neg`/`_abs` touch the sign bit of the high dwords (`.y`, `.w`).
    Double,
    /// Typeless move: modifiers behave as for float (L7115).
    Untyped,
}

/// A system value register (guide Table 5.6, L1304).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SysVal {
    /// `vTidInGrp`: id inside the group (x, y, z).
    TidInGrp = 0,
    /// `vTidInGrpFlat` / `vTid`.
    TidInGrpFlat = 1,
    /// `vAbsTid`: global id (x, y, z).
    AbsTid = 2,
    /// `vAbsTidFlat` / `vaTid`: `grp_flat * group_size + tid_flat` (L1433).
    AbsTidFlat = 3,
    /// `vThreadGrpId`.
    ThreadGrpId = 4,
    /// `vThreadGrpIdFlat` / `vTGroupid`.
    ThreadGrpIdFlat = 5,
    /// Pixel-shader compute: `vWinCoord0` (and interpolated `v#` inputs) = pixel centre
    /// `(x + 0.5, y + 0.5, 0.0, 1.0)` as floats.
    WinCoord = 6,
}

/// An index: `base` plus optionally one temp component (`cb0[r1.x + 4]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Index {
    /// Immediate part.
    pub base: u32,
    /// Register-relative part, if any.
    pub rel: Option<Rel>,
}

/// The register whose component is added to an [`Index`]'s immediate part.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rel {
    /// A temp: dense temp index and component.
    Temp(u32, u8),
    /// A system value (`g[vAbsTidFlat.x]`, `cb0[vTidInGrp.x]`) and component.
    Sys(SysVal, u8),
}

/// Where a source operand's vec4 comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum SrcKind {
    /// `r#` (dense index).
    Temp(u32),
    /// A resolved literal value (`l#`, or a constant we built).
    Imm([u32; 4]),
    /// `cb#[idx]`, 16-byte elements; out of range reads 0.
    Cb {
        /// Constant buffer id.
        id: u32,
        /// Element index.
        idx: Index,
    },
    /// `icb[idx]`: immediate constant buffer embedded in the program.
    Icb(Index),
    /// `x#[idx]`: indexed temp array (dense array id).
    ITemp {
        /// Dense array id.
        arr: u32,
        /// Element index.
        idx: Index,
    },
    /// A system value.
    Sys(SysVal),
    /// `g[idx]`: the global buffer, 16-byte elements.
    Global(Index),
    /// `Tmr`: a 64-bit clock (x = low, y = high); here the number of instructions the
    /// dispatch has executed so far, which is monotonic and deterministic.
    Timer,
}

/// Swizzle selector value for constant 0.0.
pub const SEL_ZERO: u8 = 4;
/// Swizzle selector value for constant 1.0.
pub const SEL_ONE: u8 = 5;

/// Source modifiers (L655-670), in evaluation order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SrcMods {
    /// `_invert`: 1 - x.
    pub invert: bool,
    /// `_bias`: x - 0.5.
    pub bias: bool,
    /// `_x2`: 2x.
    pub x2: bool,
    /// `_sign`: -1 / 0 / +1.
    pub sign: bool,
    /// `_abs`.
    pub abs: bool,
    /// `_neg(mask)`: bit i negates post-swizzle component i.
    pub neg: u8,
    /// Source clamp to [0, 1] (`clamp(NaN) = 0`, L711), applied last.
    pub clamp: bool,
}

impl SrcMods {
    /// True when no modifier is present (fast path: branch-free on the hot read path).
    #[inline]
    pub fn is_empty(&self) -> bool {
        !(self.invert | self.bias | self.x2 | self.sign | self.abs | self.clamp) & (self.neg == 0)
    }
}

/// A source operand.
#[derive(Clone, Debug, PartialEq)]
pub struct Src {
    /// Register.
    pub kind: SrcKind,
    /// Per output component: 0..=3 a component, [`SEL_ZERO`], [`SEL_ONE`].
    pub swz: [u8; 4],
    /// Modifiers.
    pub mods: SrcMods,
}

/// Per-component destination mask entry (ILModDstComponent, L585-588).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DstComp {
    /// Component untouched.
    NoWrite,
    /// Component written with the result.
    Write,
    /// Component forced to 0.0.
    Zero,
    /// Component forced to 1.0.
    One,
}

/// Destination register.
#[derive(Clone, Debug, PartialEq)]
pub enum DstKind {
    /// `r#` (dense).
    Temp(u32),
    /// `x#[idx]`.
    ITemp {
        /// Dense array id.
        arr: u32,
        /// Element index.
        idx: Index,
    },
    /// `g[idx]`.
    Global(Index),
    /// Pixel-shader output `o#`: written to the pixel's slot of output buffer `id`, and to
    /// dense temp `reg`, the register copy that reads of `o#` see.
    Output {
        /// Output number.
        id: u32,
        /// Dense temp index of the register copy.
        reg: u32,
    },
    /// `mem` or no destination: only the mask matters.
    None,
}

/// A destination operand.
#[derive(Clone, Debug, PartialEq)]
pub struct Dst {
    /// Register.
    pub kind: DstKind,
    /// Write mask.
    pub mask: [DstComp; 4],
    /// `_sat`.
    pub sat: bool,
    /// Shift scale factor (1.0 when absent).
    pub scale: f32,
}

/// A branch / select condition.
#[derive(Clone, Debug, PartialEq)]
pub enum Cond {
    /// Unconditional.
    Always,
    /// `_logicalnz`: any bit of src.x set.
    Nz(Src),
    /// `_logicalz`: all bits of src.x clear.
    Z(Src),
    /// `c_relop(op)`: float compare of src0.x and src1.x.
    Rel(RelOp, Src, Src),
}

/// Per-component function shapes.
#[derive(Clone, Copy, Debug)]
pub enum CompFn {
    /// One source.
    F1(fn(u32) -> u32),
    /// Two sources.
    F2(fn(u32, u32) -> u32),
    /// Three sources.
    F3(fn(u32, u32, u32) -> u32),
    /// Four sources.
    F4(fn(u32, u32, u32, u32) -> u32),
}

/// 64-bit function shapes (doubles and 64-bit integers; operands in `.xy` after swizzle).
#[derive(Clone, Copy, Debug)]
pub enum WideFn {
    /// Unary.
    W1(fn(u64) -> u64),
    /// Binary.
    W2(fn(u64, u64) -> u64),
    /// Ternary.
    W3(fn(u64, u64, u64) -> u64),
    /// Shift-like: 64-bit value and 32-bit `src1.x`.
    Sh(fn(u64, u32) -> u64),
    /// Compare: one 32-bit boolean broadcast.
    Cmp(fn(u64, u64) -> bool),
    /// Narrowing: one 32-bit result broadcast (`dtoi`, `dtou`).
    Narrow(fn(u64) -> u32),
}

/// Atomic operation kinds (UAV and LDS, guide 7.16).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    /// `add`.
    Add,
    /// `sub`: old - s1.
    Sub,
    /// `rsub`: s1 - old.
    Rsub,
    /// Signed min.
    Min,
    /// Signed max.
    Max,
    /// Unsigned min.
    Umin,
    /// Unsigned max.
    Umax,
    /// And.
    And,
    /// Or.
    Or,
    /// Xor.
    Xor,
    /// Exchange.
    Xchg,
    /// Compare-exchange: `if old == cmp { new }` with operands normalised to (cmp, new).
    CmpXchg,
    /// `inc`: `old >= s1 ? 0 : old + 1`.
    Inc,
    /// `dec`: `old == 0 || old > s1 ? s1 : old - 1`.
    Dec,
    /// `mskor`: `(old & !s1) | s2`.
    MskOr,
}

/// Memory access width of arena / sub-dword LDS accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// Signed byte.
    I8,
    /// Unsigned byte.
    U8,
    /// Signed short.
    I16,
    /// Unsigned short.
    U16,
    /// Dword.
    U32,
}

/// Which buffer family a memory op addresses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    /// A UAV by id.
    Uav(u32),
    /// A read-only SRV by id.
    Srv(u32),
    /// A group's LDS by id.
    Lds(u32),
    /// The dispatch-wide global data share by id (zeroed at dispatch start, shared by all
    /// groups, not written back).
    Gds(u32),
}

/// How the address operand is formed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Addr {
    /// Byte address in src0.x.
    Raw,
    /// (index src0.x, byte offset src0.y), stride in bytes.
    Struct(u32),
    /// (index src0.x, byte offset src1.x): `lds_*_vec` on structured LDS.
    StructVec(u32),
    /// A typed UAV element: coordinates in src0, addressed through the launch's
    /// [`super::typed_uav::UavView`] (see that module).
    Typed(super::typed_uav::TypedUav),
}

/// The operation of an instruction.
#[derive(Clone, Debug)]
pub enum Op {
    /// Per-component op.
    Comp(CompFn),
    /// Scalar op on `src0.w` (and `src1.w`), result broadcast (L6435 etc.).
    ScalarW(CompFn),
    /// Dot product of n components, broadcast; `bool` = `_ieee`.
    Dot(usize, bool),
    /// `dp2add`.
    Dp2Add,
    /// Per-component select on float `s0 != 0` (`cmov`): dst unchanged otherwise.
    Cmov,
    /// `cmp_relop(op)_cmpval(v)`: per component `(s0 op v) ? s1 : s2`.
    CmpVal(RelOp, u32),
    /// `set_relop(op)`: 1.0 / 0.0.
    Set(RelOp),
    /// Float compare with `relop` giving 0xFFFFFFFF/0 (eq/ne/ge/lt...).
    FCmp(RelOp),
    /// `crs`: cross product xyz, w not written.
    Crs,
    /// `sincos`: x = cos, y = sin, z/w not written.
    SinCos,
    /// `nrm`: normalize (n = 3 or 4) with zeroop.
    Nrm(usize, ZeroOp),
    /// `dst` (DX9 distance vector).
    DistVec,
    /// `lit`.
    Lit,
    /// `len`: length of the xyz vector, broadcast.
    Len,
    /// `faceforward`: `s2 * sign(dot4(s0, s1))` per component.
    FaceForward,
    /// `reflect[_normalize]`: `s0 - 2 dot4(s0, s1) s1`, or `|s1|^2 s0 - 2 dot4(s0, s1) s1`.
    Reflect(bool),
    /// `expp`: from `s0.w`, `(2^floor(w), w - floor(w), 2^w, 1)`.
    Expp,
    /// `logp_zeroop(z)`: from `s0.w`, with `f = log2(w)` (zero gives minus the zeroop value),
    /// `(floor(f), w / 2^floor(f), f, 1)`.
    Logp(ZeroOp),
    /// `mmul_matrix(m)`: sources src0 then the matrix rows; component `k` of the result is the
    /// legacy dot product of `len` components of src0 with row `k` (an index into
    /// [`crate::ast::MATRIX_SHAPES`]).
    Mmul(usize),
    /// `sad4`: sum of sad over 4 components + s2.x, broadcast.
    Sad4,
    /// `f_2_u4`: pack 4 floats, broadcast.
    F2U4,
    /// 64-bit op (`double` true: floating, for modifiers).
    Wide(WideFn),
    /// `d2f`: one float, broadcast.
    D2F,
    /// `f2d`: s0.x to double in .xy or .zw.
    F2D,
    /// Widening of s0.x to a 64-bit value in .xy or .zw (`itod`, `utod`).
    Widen(fn(u32) -> u64),
    /// `dmovc`: s0.x != 0 ? s1 : s2 (double).
    DMovc,
    /// `dfrexp`.
    DFrexp,
    /// `dldexp`.
    DLdexp,
    /// Load: with `vec`, dword i of the address goes to dst component i (by mask);
    /// otherwise one value (dword or sub-dword) is broadcast to the enabled components.
    Load {
        /// Buffer.
        space: Space,
        /// Addressing.
        addr: Addr,
        /// Access width.
        width: Width,
        /// Vector form.
        vec: bool,
    },
    /// Store: data in the last source; with `vec` the dst mask selects which dwords of the
    /// data go to consecutive addresses, otherwise `data.x` is stored.
    Store {
        /// Buffer.
        space: Space,
        /// Addressing.
        addr: Addr,
        /// Access width.
        width: Width,
        /// Vector form.
        vec: bool,
    },
    /// Atomic; `ret` = returns the old value into dst.
    Atomic {
        /// Buffer.
        space: Space,
        /// Addressing.
        addr: Addr,
        /// Operation.
        op: AtomicOp,
        /// Returning form.
        ret: bool,
    },
    /// `append_buf_alloc` (+1) / `append_buf_consume` (-1) on a UAV's hidden counter.
    Append {
        /// UAV id.
        uav: u32,
        /// True for alloc.
        alloc: bool,
    },
    /// Texture access on resource `res` (declared) with sampler `sampler`.
    Tex {
        /// Which access.
        op: TexOp,
        /// Resource id.
        res: u32,
        /// Sampler id.
        sampler: u32,
        /// `_coordtype` override of the declaration's coordinate normalization.
        unnorm: Option<bool>,
    },
    /// R7xx owner-computes `lds_read_vec`: reads 4 dwords owned by work-item `src0.x` of the
    /// wavefront at dword offset `src0.y` (by mask).
    OwnerRead {
        /// Absolute sharing (all wavefronts share one area) instead of relative.
        abs: bool,
        /// `_neighborExch`: all four dwords are read, then transposed across the
        /// neighbourhood of four consecutive work-items (work-item `j` of it receives
        /// component `j` of each neighbour's vector, in neighbour order).
        exchange: bool,
    },
    /// R7xx owner-computes `lds_write_vec`: writes the masked components of `src0` to the
    /// work-item's own area at dword `offset` (`_lOffset`).
    OwnerWrite {
        /// Absolute sharing.
        abs: bool,
        /// Dword offset.
        offset: u32,
    },
    /// `fence_*`; `threads` = execution barrier.
    Fence {
        /// `_threads` present.
        threads: bool,
    },
    /// Conditional forward jump (if): when the condition is false go to `target`.
    If(Cond, u32),
    /// Unconditional jump (else -> endif, endloop -> head).
    Jump(u32),
    /// Conditional jump (break/continue forms): when the condition holds go to `target`.
    JumpIf(Cond, u32),
    /// `switch`: compare src0.x to each case value, jump to the first match, else default.
    Switch {
        /// (case value, target).
        cases: Vec<(u32, u32)>,
        /// Default (or end of switch) target.
        default: u32,
    },
    /// Call function by dense id when the condition holds.
    Call(Cond, u32),
    /// Return when the condition holds.
    Ret(Cond),
    /// End of the work-item.
    End,
    /// No operation (labels, declarations kept for line mapping).
    Nop,
}

/// The texture accesses (see [`super::texture`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TexOp {
    /// `sample_resource(n)_sampler(m) dst, coord` (level 0).
    Sample,
    /// `sample_l_resource(n)_sampler(m) dst, coord, lod` (level 0: one mip level).
    SampleL,
    /// `fetch4_resource(n)_sampler(m)[_compselect(c)] dst, coord`: component `c` of the four
    /// bilinear-footprint texels.
    Gather(usize),
    /// `load_resource(n)[_aoffimmi(u,v,w)] dst, coord`: texel offsets.
    Load([i32; 3]),
    /// `resinfo_resource(n)[_uint] dst, mip`.
    ResInfo {
        /// `_uint`: integers instead of floats.
        uint: bool,
    },
}

/// One decoded instruction.
#[derive(Clone, Debug)]
pub struct Inst {
    /// Operation.
    pub op: Op,
    /// Operand type class for modifiers.
    pub ty: Ty,
    /// Destination (`DstKind::None` if absent).
    pub dst: Dst,
    /// Sources.
    pub src: Vec<Src>,
    /// 1-based source line (0 if unknown).
    pub line: u32,
    /// How exactly the guide defines the result (perturbed runs nudge approximate ones).
    pub precision: crate::opcodes::Precision,
}

/// A decoded program ready to run.
#[derive(Clone, Debug, Default)]
pub struct ExecProgram {
    /// Instructions; execution starts at 0.
    pub insts: Vec<Inst>,
    /// Number of dense temps.
    pub num_temps: u32,
    /// Element count of each indexed temp array (dense id).
    pub itemp_sizes: Vec<u32>,
    /// Entry pc of each function (dense id).
    pub funcs: Vec<u32>,
    /// Group size from `dcl_num_thread_per_group` (missing dims = 1).
    pub group: [u32; 3],
    /// LDS declarations: id -> (size in bytes).
    pub lds: BTreeMap<u32, u32>,
    /// GDS declarations: id -> (size in bytes).
    pub gds: BTreeMap<u32, u32>,
    /// GDS structure strides (structured GDS only).
    pub gds_stride: BTreeMap<u32, u32>,
    /// Declared constant buffers: id -> element count.
    pub cbs: BTreeMap<u32, u32>,
    /// Immediate constant buffer contents.
    pub icb: Vec<[u32; 4]>,
    /// UAV ids the program declares (any kind).
    pub uavs: Vec<u32>,
    /// Whether `g[]` is used.
    pub uses_global: bool,
    /// Texture resources declared with `dcl_resource`.
    pub resources: BTreeMap<u32, super::texture::ResourceDecl>,
    /// Pixel-shader compute (`il_ps`): work-items are pixels of [`super::Dispatch::domain`]
    /// in 8x8 tiles.
    pub pixel_shader: bool,
    /// Pixel-shader outputs `o#` the program declares or writes.
    pub ps_outputs: Vec<u32>,
    /// R7xx owner-computes LDS: dwords per work-item (`dcl_lds_size_per_thread`) and
    /// whether the default sharing mode is absolute (`dcl_lds_sharing_mode`).
    pub owner_lds: Option<(u32, bool)>,
    /// Non-fatal remarks from decoding (undeclared literals, ...).
    pub warnings: Vec<String>,
}

impl ExecProgram {
    /// Checks the invariants the executor relies on (module doc), so a program built by
    /// hand rather than by the decoder cannot make the executor index out of bounds.
    pub fn check(&self) -> Result<(), InterpError> {
        let n = self.insts.len() as u32;
        let bad = |line: u32, what: &str| InterpError::Malformed {
            message: format!("invalid decoded program: {what}"),
            line,
        };
        let temp_ok = |r: u32| r < self.num_temps;
        let index_ok = |i: &Index| match i.rel {
            None => true,
            Some(Rel::Temp(r, c)) => temp_ok(r) && c < 4,
            Some(Rel::Sys(_, c)) => c < 4,
        };
        let src_ok = |s: &Src| {
            let kind_ok = match &s.kind {
                SrcKind::Temp(r) => temp_ok(*r),
                SrcKind::Cb { idx, .. } | SrcKind::Icb(idx) | SrcKind::Global(idx) => index_ok(idx),
                SrcKind::ITemp { arr, idx } => {
                    (*arr as usize) < self.itemp_sizes.len() && index_ok(idx)
                }
                SrcKind::Imm(_) | SrcKind::Sys(_) | SrcKind::Timer => true,
            };
            kind_ok && s.swz.iter().all(|&c| c <= SEL_ONE)
        };
        let cond_ok = |c: &Cond| match c {
            Cond::Always => true,
            Cond::Nz(s) | Cond::Z(s) => src_ok(s),
            Cond::Rel(_, a, b) => src_ok(a) && src_ok(b),
        };
        if self.funcs.iter().any(|&f| f > n) {
            return Err(bad(0, "function entry past the end"));
        }
        for inst in &self.insts {
            let line = inst.line;
            if !inst.src.iter().all(src_ok) {
                return Err(bad(line, "source operand"));
            }
            let dst_ok = match &inst.dst.kind {
                DstKind::Temp(r) => temp_ok(*r),
                DstKind::ITemp { arr, idx } => {
                    (*arr as usize) < self.itemp_sizes.len() && index_ok(idx)
                }
                DstKind::Global(idx) => index_ok(idx),
                DstKind::Output { reg, .. } => temp_ok(*reg),
                DstKind::None => true,
            };
            if !dst_ok {
                return Err(bad(line, "destination operand"));
            }
            let ok = match &inst.op {
                Op::If(c, t) | Op::JumpIf(c, t) => cond_ok(c) && *t <= n,
                Op::Jump(t) => *t <= n,
                Op::Switch { cases, default } => {
                    !inst.src.is_empty() && *default <= n && cases.iter().all(|&(_, t)| t <= n)
                }
                Op::Call(c, f) => cond_ok(c) && (*f as usize) < self.funcs.len(),
                Op::Ret(c) => cond_ok(c),
                _ => true,
            };
            if !ok {
                return Err(bad(line, "control-flow target or condition"));
            }
        }
        Ok(())
    }
}
