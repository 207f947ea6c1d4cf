//! Register files backed by memory or hardware state, and the memory instructions.
//!
//! - Constant buffers `cbN[i]`: `load.b32 cbN[16*i + 4*c]`; a direct read is loaded once
//!   per block, an indexed read computes `(reg + i) << 4`. Reads past the buffer give 0.
//! - `icb[i]` (direct): the literal value. `g[i]`: `load/store global[16*i + 4*c]`.
//! - `x#[..]`: arrays indexed by a register anywhere in the program live in a stack slot
//!   (`private` memory, 16 bytes per element); the others are SSA variables.
//! - System values are computed from `special` registers (tid, ctaid, nctaid) and the
//!   declared group size; their `.w` (and `.yzw` of flat ids' unused parts) follow the
//!   interpreter (`.w` of 3-D ids is 0, flat ids are broadcast).
//! - UAV/LDS loads, stores and atomics use byte addresses exactly as the interpreter:
//!   raw `src0.x`, structured `src0.x * stride + src0.y`, typed `src0.x * 4`; dword
//!   accesses ignore the two low address bits; each dword is its own access, so a partly
//!   out-of-range vector access keeps its in-range dwords.
//!
//! Known differences from the interpreter: addresses wrap at 2^32 (the interpreter computes
//! them in 64 bits); SRVs, append buffers and `lds` `mskor` are
//! rejected with a diagnostic.

use ilc_passes::ir::{
    AtomicOp as IrAtomic, BarrierFlags, IntCC, MemArg, MemSize, MemSpace, SpecialReg, Value,
};
use isa_amdil::ast::{DstComp, DstOperand, FenceFlag, Instruction, RegKind, RegRef};
use isa_amdil::interp::typed_uav::TypedUav;
use isa_amdil::opcodes::Opcode;

use super::ops::{Srcs, Ty, ONE};
use super::ssa::{Var, VarFile};
use super::{LResult, Lowerer};
use isa_amdil::decls::BufferKind;

/// A resolved `[..]` index: immediate part plus optional register value.
struct Idx {
    base: u32,
    rel: Option<Value>,
}

/// Addressing of a memory instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Addr {
    Raw,
    Struct(u32),
    StructVec(u32),
    /// Typed UAV `id`: coordinates in `src0`, elements through its launch view.
    Typed(TypedUav, u8),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Width {
    S8,
    U8,
    S16,
    U16,
    U32,
}

/// Register kinds that may index `g[]`, `cb#[]`, `icb[]` and `x#[]` besides temps and
/// literals: the compute system values (and the pixel position, which reads the same way).
fn is_index_source(kind: RegKind) -> bool {
    kind.is_thread_id() || kind == RegKind::WinCoord
}

/// The byte address standing for an exact address that does not fit in 32 bits: 2^31, past
/// every buffer (buffers are below 2^31 bytes) and 16-byte aligned.
const OUT_OF_RANGE: u32 = 1 << 31;

fn mem(space: MemSpace, offset: i32, size: MemSize) -> MemArg {
    MemArg {
        space,
        offset,
        size,
        align: size.natural_align(),
        inbounds: false,
    }
}

impl Lowerer<'_> {
    fn index(&mut self, reg: &RegRef) -> LResult<Idx> {
        let Some(ix) = reg.indices.first() else {
            return Ok(Idx { base: 0, rel: None });
        };
        if reg.indices.len() > 1 {
            return Err("two-dimensional register indices are not supported".into());
        }
        let base = ix.offset as u32;
        match ix.reg {
            None => Ok(Idx { base, rel: None }),
            Some(r) => match r.kind {
                RegKind::Temp => {
                    let v = self.read_var(VarFile::Temp, r.num, r.comp.index());
                    Ok(Idx { base, rel: Some(v) })
                }
                RegKind::Literal => Ok(Idx {
                    base: base.wrapping_add(self.literal(r.num)[r.comp.index()]),
                    rel: None,
                }),
                // A system value (`g[vAbsTidFlat.x]`, `cb0[vTidInGrp.x]`), as CAL-era
                // compilers accepted: its component is read like any source.
                k if is_index_source(k) => {
                    let v = self.reg_comp(&RegRef::new(k, r.num), r.comp.index())?;
                    Ok(Idx { base, rel: Some(v) })
                }
                k => Err(format!("index register of kind `{}`", k.name())),
            },
        }
    }

    /// Byte address `(reg + base) * 16` of a register-indexed element.
    fn elem_addr(&mut self, space: MemSpace, rel: Value, base: u32) -> Value {
        let idx = if base != 0 {
            let b = self.iconst(base);
            self.cursor().ins().iadd(rel, b)
        } else {
            rel
        };
        if space == MemSpace::Global {
            // `g[]` is memory: an index past 2^28 must not wrap back into the buffer.
            return self.exact_address(idx, 16, None);
        }
        // Private arrays and constant buffers are small and checked against their declared
        // sizes; a wrapped index stays inside them.
        let four = self.iconst(4);
        self.cursor().ins().ishl(idx, four)
    }

    /// Loads word `c` of 16-byte element `idx` of `space` (0 when the offset overflows).
    fn load_elem(&mut self, space: MemSpace, idx: Idx, c: usize) -> Value {
        match idx.rel {
            None => {
                let off = idx.base as u64 * 16 + 4 * c as u64;
                match i32::try_from(off) {
                    Ok(off) => self
                        .cursor()
                        .ins()
                        .load(mem(space, off, MemSize::Words(1)), None)[0],
                    Err(_) => self.iconst(0),
                }
            }
            Some(rel) => {
                let a = self.elem_addr(space, rel, idx.base);
                self.cursor()
                    .ins()
                    .load(mem(space, 4 * c as i32, MemSize::Words(1)), Some(a))[0]
            }
        }
    }

    /// The current value of component `comp` of register `index` in `file`.
    fn read_var(&mut self, file: VarFile, index: u32, comp: usize) -> Value {
        let var = Var {
            file,
            index,
            comp: comp as u8,
        };
        self.ssa.read(&mut self.func, var, self.cur)
    }

    /// Records the written components of register `index` in `file`.
    fn write_var(&mut self, file: VarFile, index: u32, out: [Option<Value>; 4]) {
        for (c, v) in out.iter().enumerate() {
            if let Some(v) = *v {
                let var = Var {
                    file,
                    index,
                    comp: c as u8,
                };
                self.ssa.write(var, self.cur, v);
            }
        }
    }

    /// Component `c` (0..3) of a register, before swizzle and modifiers.
    pub(crate) fn reg_comp(&mut self, reg: &RegRef, c: usize) -> LResult<Value> {
        match reg.kind {
            RegKind::Temp => Ok(self.read_var(VarFile::Temp, reg.num, c)),
            RegKind::Literal => {
                let v = self.literal(reg.num)[c];
                if self.at_entry {
                    return Ok(self.iconst(v));
                }
                // One `iconst` per value and block: a literal is read by many statements.
                if self.lit_consts.0 != self.cur {
                    self.lit_consts = (self.cur, smallvec::SmallVec::new());
                }
                if let Some(&(_, x)) = self.lit_consts.1.iter().find(|(w, _)| *w == v) {
                    return Ok(x);
                }
                let x = self.iconst(v);
                self.lit_consts.1.push((v, x));
                Ok(x)
            }
            // A pixel-shader output reads as the value the pixel wrote last (0 before its
            // first write, like every IL register).
            RegKind::Output if self.decls.pixel_shader && reg.indices.is_empty() => {
                Ok(self.read_var(VarFile::Output, reg.num, c))
            }
            RegKind::ConstBuffer => {
                let id = u8::try_from(reg.num)
                    .map_err(|_| format!("constant buffer cb{} out of range", reg.num))?;
                self.func.cbs.entry(id).or_insert(1 << 16);
                let idx = self.index(reg)?;
                if idx.rel.is_none() {
                    // Constant buffers are read-only and reads never fault: a direct
                    // element is loaded once, in the entry block.
                    let key = (reg.num, idx.base, c as u8);
                    if let Some(&v) = self.cb_cache.get(&key) {
                        return Ok(v);
                    }
                    self.at_entry = true;
                    let v = self.load_elem(MemSpace::Cb(id), idx, c);
                    self.at_entry = false;
                    self.cb_cache.insert(key, v);
                    return Ok(v);
                }
                Ok(self.load_elem(MemSpace::Cb(id), idx, c))
            }
            RegKind::ImmConstBuffer => {
                let idx = self.index(reg)?;
                if let Some(rel) = idx.rel {
                    let slot = self.icb_slot();
                    let a = self.elem_addr(MemSpace::Private(slot), rel, idx.base);
                    let m = mem(MemSpace::Private(slot), 4 * c as i32, MemSize::Words(1));
                    return Ok(self.cursor().ins().load(m, Some(a))[0]);
                }
                let v = self.decls.icb.get(idx.base as usize).map_or(0, |e| e[c]);
                Ok(self.iconst(v))
            }
            RegKind::IndexedTemp => {
                let size = self
                    .decls
                    .itemps
                    .get(&reg.num)
                    .ok_or_else(|| format!("x{} is not declared", reg.num))?
                    .size;
                let idx = self.index(reg)?;
                if let Some(&slot) = self.dyn_arrays.get(&reg.num) {
                    return Ok(self.load_elem(MemSpace::Private(slot), idx, c));
                }
                if idx.base >= size {
                    return Ok(self.iconst(0));
                }
                Ok(self.read_var(VarFile::IndexedTemp(reg.num), idx.base, c))
            }
            RegKind::Global => {
                self.func.uses_global = true;
                let idx = self.index(reg)?;
                Ok(self.load_elem(MemSpace::Global, idx, c))
            }
            k if k.is_thread_id() => Ok(self.sys_value(k, c)),
            RegKind::WinCoord | RegKind::Input if self.decls.pixel_shader => Ok(self.win_coord(c)),
            k => Err(format!("source register `{}` is not supported", k.name())),
        }
    }

    /// The private copy of the immediate constant buffer for register-indexed reads,
    /// filled once in the entry block (reads past its end give 0 like the interpreter's).
    fn icb_slot(&mut self) -> ilc_passes::ir::StackSlot {
        if let Some(s) = self.icb_slot {
            return s;
        }
        let icb = self.decls.icb.clone();
        let slot = self
            .func
            .create_stack_slot((icb.len() as u32).saturating_mul(16));
        self.at_entry = true;
        for (e, words) in icb.iter().enumerate() {
            for (c, &w) in words.iter().enumerate() {
                let v = self.iconst(w);
                let off = (16 * e + 4 * c) as i32;
                let m = mem(MemSpace::Private(slot), off, MemSize::Words(1));
                self.cursor().ins().store(m, None, &[v]);
            }
        }
        self.at_entry = false;
        self.icb_slot = Some(slot);
        slot
    }

    /// Current value of component `c` of a destination register (for `cmov`).
    pub(crate) fn load_reg_comp(&mut self, reg: &RegRef, c: usize) -> LResult<Value> {
        self.reg_comp(reg, c)
    }

    /// Writes the given components of a destination register.
    pub(crate) fn store_reg(&mut self, d: &DstOperand, out: [Option<Value>; 4]) -> LResult<()> {
        match d.reg.kind {
            RegKind::Temp => {
                self.write_var(VarFile::Temp, d.reg.num, out);
                Ok(())
            }
            RegKind::IndexedTemp => {
                let size = self
                    .decls
                    .itemps
                    .get(&d.reg.num)
                    .ok_or_else(|| format!("x{} is not declared", d.reg.num))?
                    .size;
                let idx = self.index(&d.reg)?;
                if let Some(&slot) = self.dyn_arrays.get(&d.reg.num) {
                    self.store_elem(MemSpace::Private(slot), idx, out);
                    return Ok(());
                }
                if idx.base >= size {
                    return Ok(());
                }
                self.write_var(VarFile::IndexedTemp(d.reg.num), idx.base, out);
                Ok(())
            }
            RegKind::Global => {
                self.func.uses_global = true;
                let idx = self.index(&d.reg)?;
                self.store_elem(MemSpace::Global, idx, out);
                Ok(())
            }
            RegKind::GenericMem => Ok(()),
            RegKind::Output if self.decls.pixel_shader => self.store_output(d.reg.num, out),
            k => Err(format!(
                "destination register `{}` is not supported",
                k.name()
            )),
        }
    }

    fn store_elem(&mut self, space: MemSpace, idx: Idx, out: [Option<Value>; 4]) {
        let addr = idx.rel.map(|rel| self.elem_addr(space, rel, idx.base));
        for (c, v) in out.iter().enumerate() {
            let Some(v) = *v else { continue };
            let off = match addr {
                Some(_) => 4 * c as i64,
                None => idx.base as i64 * 16 + 4 * c as i64,
            };
            // A direct offset beyond 2^31 is out of every buffer: the store is dropped.
            if let Ok(off) = i32::try_from(off) {
                self.cursor()
                    .ins()
                    .store(mem(space, off, MemSize::Words(1)), addr, &[v]);
            }
        }
    }

    /// Group size as declared (missing dimensions 1).
    fn group(&self) -> [u32; 3] {
        self.decls.group
    }

    fn special(&mut self, r: SpecialReg) -> Value {
        self.cursor().ins().special(r)
    }

    fn flat_tid(&mut self) -> Value {
        let [bx, by, bz] = self.group();
        let mut v = self.special(SpecialReg::Tid(0));
        if by > 1 {
            let ty = self.special(SpecialReg::Tid(1));
            let k = self.iconst(bx);
            v = self.cursor().ins().imad(ty, k, v);
        }
        if bz > 1 {
            let tz = self.special(SpecialReg::Tid(2));
            let k = self.iconst(bx.wrapping_mul(by));
            v = self.cursor().ins().imad(tz, k, v);
        }
        v
    }

    fn flat_group(&mut self) -> Value {
        let gx = self.special(SpecialReg::GroupId(0));
        let gy = self.special(SpecialReg::GroupId(1));
        let gz = self.special(SpecialReg::GroupId(2));
        let nx = self.special(SpecialReg::GridSize(0));
        let ny = self.special(SpecialReg::GridSize(1));
        let zy = self.cursor().ins().imad(gz, ny, gy);
        self.cursor().ins().imad(zy, nx, gx)
    }

    /// Component `c` of a compute system-value register.
    fn sys_value(&mut self, kind: RegKind, c: usize) -> Value {
        let key = (kind, c as u8);
        if let Some(&v) = self.sys_cache.get(&key) {
            return v;
        }
        // System values are work-item invariants: computed once, in the entry block.
        self.at_entry = true;
        let v = self.sys_value_uncached(kind, c);
        self.at_entry = false;
        self.sys_cache.insert(key, v);
        v
    }

    fn sys_value_uncached(&mut self, kind: RegKind, c: usize) -> Value {
        let c8 = c as u8;
        let v = match kind {
            RegKind::ThreadIdInGroup if c < 3 => self.special(SpecialReg::Tid(c8)),
            RegKind::ThreadGroupId if c < 3 => self.special(SpecialReg::GroupId(c8)),
            RegKind::AbsThreadId if c < 3 => {
                let g = self.special(SpecialReg::GroupId(c8));
                let t = self.special(SpecialReg::Tid(c8));
                let k = self.iconst(self.group()[c]);
                self.cursor().ins().imad(g, k, t)
            }
            RegKind::ThreadIdInGroupFlat => self.flat_tid(),
            RegKind::ThreadGroupIdFlat => self.flat_group(),
            RegKind::AbsThreadIdFlat => {
                let [bx, by, bz] = self.group();
                let g = self.flat_group();
                let t = self.flat_tid();
                let k = self.iconst(bx.wrapping_mul(by).wrapping_mul(bz));
                self.cursor().ins().imad(g, k, t)
            }
            _ => self.iconst(0),
        };
        v
    }

    /// `fence_*`: a barrier with the named flags.
    pub(crate) fn lower_fence(&mut self, st: &Instruction) -> LResult<()> {
        let flags = BarrierFlags {
            threads: st.has_fence(FenceFlag::Threads),
            lds: st.has_fence(FenceFlag::Lds),
            memory: st.has_fence(FenceFlag::Memory)
                || st.has_fence(FenceFlag::MemWriteOnly)
                || st.has_fence(FenceFlag::MemReadOnly),
            gds: st.has_fence(FenceFlag::Gds),
        };
        self.cursor().ins().barrier(flags);
        Ok(())
    }

    fn uav_space(&self, id: u32) -> LResult<MemSpace> {
        u8::try_from(id)
            .map(MemSpace::Uav)
            .map_err(|_| format!("UAV id {id} is out of range"))
    }

    fn lds_space(&self, id: u32) -> LResult<MemSpace> {
        if !self.decls.lds.contains_key(&id) {
            return Err(format!("LDS id {id} is not declared"));
        }
        u8::try_from(id)
            .map(MemSpace::Lds)
            .map_err(|_| format!("LDS id {id} is out of range"))
    }

    fn uav_addr(&self, id: u32) -> Addr {
        match self.decls.uavs.get(&id) {
            Some(BufferKind::Struct(s)) => Addr::Struct(*s),
            Some(BufferKind::Typed(t)) => Addr::Typed(*t, id as u8),
            _ => Addr::Raw,
        }
    }

    /// The addressing of `uav_load`/`uav_store` on UAV `id`: typed (a UAV without a typed
    /// declaration is a 1-D `uint` one, as the interpreter has it).
    fn typed_addr(&self, id: u32) -> Addr {
        match self.uav_addr(id) {
            a @ Addr::Typed(..) => a,
            _ => Addr::Typed(TypedUav::UNDECLARED, id as u8),
        }
    }

    /// The byte address of the element of typed UAV `id` at the coordinates in `src0`,
    /// through its launch view (`uavviewN`: components, width, height, depth; the rule is
    /// `isa_amdil::interp::typed_uav`): `(x + w * (y + h * z)) * components * 4`, or
    /// [`OUT_OF_RANGE`] when a used coordinate is not below its size.
    fn typed_address(
        &mut self,
        st: &Instruction,
        srcs: &mut Srcs,
        t: TypedUav,
        id: u8,
    ) -> LResult<Value> {
        let n = t.coords.clamp(1, 3);
        let mut coords = Vec::with_capacity(n as usize);
        let mut sizes = Vec::with_capacity(n as usize);
        for i in 0..n {
            coords.push(srcs.get(self, st, 0, usize::from(i), Ty::Int)?);
            sizes.push(self.special(SpecialReg::UavView(id, i + 1)));
        }
        let mut inside: Option<Value> = None;
        for (&c, &s) in coords.iter().zip(&sizes) {
            let ok = self.cursor().ins().icmp(IntCC::Ult, c, s);
            inside = Some(match inside {
                Some(p) => self.cursor().ins().pand(p, ok),
                None => ok,
            });
        }
        // Horner from the outermost coordinate: x + w * (y + h * z).
        let mut elem = coords[coords.len() - 1];
        for i in (0..coords.len() - 1).rev() {
            let scaled = self.cursor().ins().imul(sizes[i], elem);
            elem = self.cursor().ins().iadd(coords[i], scaled);
        }
        let comps = self.special(SpecialReg::UavView(id, 0));
        let two = self.iconst(2);
        let stride = self.cursor().ins().ishl(comps, two);
        let a = self.cursor().ins().imul(elem, stride);
        match inside {
            Some(p) if !self.assume_in_bounds => {
                let out = self.iconst(OUT_OF_RANGE);
                Ok(self.cursor().ins().select(p, a, out))
            }
            _ => Ok(a),
        }
    }

    /// For component `i` (1..4) of a typed element: whether the view's element has it, and
    /// the byte offset to access for it (`4 i`, or 0, the first component, when it has not:
    /// always inside the element, so the access needs no bounds of its own).
    fn typed_component(&mut self, id: u8, i: u32) -> (Value, Value) {
        let comps = self.special(SpecialReg::UavView(id, 0));
        let k = self.iconst(i);
        let has = self.cursor().ins().icmp(IntCC::Ult, k, comps);
        let off = self.iconst(4 * i);
        let zero = self.iconst(0);
        let off = self.cursor().ins().select(has, off, zero);
        (has, off)
    }

    fn lds_addr(&self, id: u32, vec: bool) -> Addr {
        match self.decls.lds.get(&id).and_then(|r| r.stride) {
            Some(s) if vec => Addr::StructVec(s),
            Some(s) => Addr::Struct(s),
            _ => Addr::Raw,
        }
    }

    /// `index * scale + off` as a byte address, or [`OUT_OF_RANGE`] (past every buffer)
    /// when the exact value does not fit in 32 bits: a structured or typed index must not
    /// wrap back into the buffer.
    fn exact_address(&mut self, index: Value, scale: u32, off: Option<Value>) -> Value {
        let k = self.iconst(scale);
        if self.assume_in_bounds {
            // An in-bounds access has an exact address below its buffer's size.
            let prod = self.cursor().ins().imul(index, k);
            return match off {
                Some(off) => self.cursor().ins().iadd(prod, off),
                None => prod,
            };
        }
        let mut bad = None;
        if scale > 1 {
            let max = self.iconst(u32::MAX / scale);
            bad = Some(self.cursor().ins().icmp(IntCC::Ugt, index, max));
        }
        let prod = self.cursor().ins().imul(index, k);
        let a = match off {
            Some(off) => {
                let a = self.cursor().ins().iadd(prod, off);
                // The sum wrapped iff it is below an addend.
                let carry = self.cursor().ins().icmp(IntCC::Ult, a, off);
                bad = Some(match bad {
                    Some(b) => self.cursor().ins().por(b, carry),
                    None => carry,
                });
                a
            }
            None => prod,
        };
        match bad {
            Some(b) => {
                // 2^31: past every buffer (the IR's buffers are below 2^31 bytes) for every
                // word of any access, aligned for any access, and far enough below 2^32 that
                // the backend can see `a + 15` does not wrap.
                let all = self.iconst(OUT_OF_RANGE);
                self.cursor().ins().select(b, all, a)
            }
            None => a,
        }
    }

    /// The byte address of a memory instruction (before dword alignment).
    fn address(&mut self, st: &Instruction, srcs: &mut Srcs, addr: Addr) -> LResult<Value> {
        let x = srcs.get(self, st, 0, 0, Ty::Int)?;
        Ok(match addr {
            Addr::Raw => x,
            Addr::Struct(stride) | Addr::StructVec(stride) => {
                let off = if let Addr::Struct(_) = addr {
                    srcs.get(self, st, 0, 1, Ty::Int)?
                } else {
                    srcs.get(self, st, 1, 0, Ty::Int)?
                };
                self.exact_address(x, stride, Some(off))
            }
            Addr::Typed(t, id) => self.typed_address(st, srcs, t, id)?,
        })
    }

    fn align_down(&mut self, a: Value, to: u32) -> Value {
        // Already aligned addresses (`index << 2`, plus or minus whole elements) need no mask.
        if self.known_aligned(a, to, 4) {
            return a;
        }
        let m = self.iconst(!(to - 1));
        self.cursor().ins().band(a, m)
    }

    /// True if `v` is provably a multiple of `to` (a power of two): a multiple constant,
    /// `x << k` with `2^k >= to`, a sum or difference of such, or a product with one.
    fn known_aligned(&self, v: Value, to: u32, depth: u32) -> bool {
        use ilc_passes::ir::Opcode as Op;
        let dfg = &self.func.dfg;
        if let Some(c) = dfg.value_const(v) {
            return (c as u32).is_multiple_of(to);
        }
        let Some(inst) = dfg.value_inst(v) else {
            return false;
        };
        if depth == 0 || dfg.value_type(v) != ilc_passes::ir::Type::B32 {
            return false;
        }
        let args = dfg.inst_args(inst);
        match dfg.opcode(inst) {
            Op::Ishl => dfg
                .value_const(args[1])
                .is_some_and(|k| (1u64 << (k & 31)) >= u64::from(to)),
            Op::Iadd | Op::Isub => {
                self.known_aligned(args[0], to, depth - 1)
                    && self.known_aligned(args[1], to, depth - 1)
            }
            Op::Imul => {
                self.known_aligned(args[0], to, depth - 1)
                    || self.known_aligned(args[1], to, depth - 1)
            }
            Op::Select => {
                self.known_aligned(args[1], to, depth - 1)
                    && self.known_aligned(args[2], to, depth - 1)
            }
            _ => false,
        }
    }

    /// The destination mask (memory instructions without a destination write `.x`).
    fn mem_mask(st: &Instruction) -> [DstComp; 4] {
        match st.dsts.first() {
            Some(d) => d.mask,
            None => [
                DstComp::Write,
                DstComp::NoWrite,
                DstComp::NoWrite,
                DstComp::NoWrite,
            ],
        }
    }

    fn load(
        &mut self,
        st: &Instruction,
        space: MemSpace,
        addr: Addr,
        width: Width,
        vec: bool,
    ) -> LResult<()> {
        let w = self.dst_writes(st);
        if !w.iter().any(|&b| b) {
            return Ok(());
        }
        let mut srcs = Srcs::default();
        let base = self.address(st, &mut srcs, addr)?;
        let mut res = [None; 4];
        if let (true, Addr::Typed(t, id)) = (vec, addr) {
            // Component i < components from memory, the others the format's default.
            for (i, slot) in res.iter_mut().enumerate() {
                if !w[i] {
                    continue;
                }
                let m = mem(space, 0, MemSize::Words(1));
                if i == 0 {
                    *slot = Some(self.cursor().ins().load(m, Some(base))[0]);
                    continue;
                }
                let (has, off) = self.typed_component(id, i as u32);
                let a = self.cursor().ins().iadd(base, off);
                let v = self.cursor().ins().load(m, Some(a))[0];
                let default = self.iconst(t.default_component(i));
                *slot = Some(self.cursor().ins().select(has, v, default));
            }
        } else if vec {
            let a = self.align_down(base, 4);
            for (i, slot) in res.iter_mut().enumerate() {
                if !w[i] {
                    continue;
                }
                let m = mem(space, 4 * i as i32, MemSize::Words(1));
                *slot = Some(self.cursor().ins().load(m, Some(a))[0]);
            }
        } else {
            let (a, size) = match width {
                Width::U32 => (self.align_down(base, 4), MemSize::Words(1)),
                Width::U8 => (base, MemSize::U8),
                Width::S8 => (base, MemSize::S8),
                Width::U16 => (self.align_down(base, 2), MemSize::U16),
                Width::S16 => (self.align_down(base, 2), MemSize::S16),
            };
            let v = self.cursor().ins().load(mem(space, 0, size), Some(a))[0];
            res = [Some(v); 4];
        }
        self.write_dst(st, Ty::Untyped, res)
    }

    fn store(
        &mut self,
        st: &Instruction,
        space: MemSpace,
        addr: Addr,
        width: Width,
        vec: bool,
        mask: [DstComp; 4],
    ) -> LResult<()> {
        let mut srcs = Srcs::default();
        let base = self.address(st, &mut srcs, addr)?;
        let data_k = st.srcs.len().saturating_sub(1).min(3);
        if let (true, Addr::Typed(_, id)) = (vec, addr) {
            // Components 0..components of src1; a component the element lacks stores
            // component 0's value to component 0 again (no branch, no extra bounds).
            let m = mem(space, 0, MemSize::Words(1));
            let first = srcs.get(self, st, data_k, 0, Ty::Int)?;
            self.cursor().ins().store(m, Some(base), &[first]);
            for i in 1..4u32 {
                let v = srcs.get(self, st, data_k, i as usize, Ty::Int)?;
                let (has, off) = self.typed_component(id, i);
                let a = self.cursor().ins().iadd(base, off);
                let v = self.cursor().ins().select(has, v, first);
                self.cursor().ins().store(m, Some(a), &[v]);
            }
        } else if vec {
            let a = self.align_down(base, 4);
            for (i, m) in mask.iter().enumerate() {
                let v = match m {
                    DstComp::NoWrite => continue,
                    DstComp::Write => srcs.get(self, st, data_k, i, Ty::Int)?,
                    DstComp::Zero => self.iconst(0),
                    DstComp::One => self.iconst(ONE),
                };
                let ma = mem(space, 4 * i as i32, MemSize::Words(1));
                self.cursor().ins().store(ma, Some(a), &[v]);
            }
        } else {
            let v = srcs.get(self, st, data_k, 0, Ty::Int)?;
            let (a, size) = match width {
                Width::U32 => (self.align_down(base, 4), MemSize::Words(1)),
                Width::U8 | Width::S8 => (base, MemSize::U8),
                Width::U16 | Width::S16 => (self.align_down(base, 2), MemSize::U16),
            };
            self.cursor()
                .ins()
                .store(mem(space, 0, size), Some(a), &[v]);
        }
        Ok(())
    }

    fn atomic(
        &mut self,
        st: &Instruction,
        space: MemSpace,
        addr: Addr,
        op: IrAtomic,
        ret: bool,
        swap: bool,
    ) -> LResult<()> {
        let mut srcs = Srcs::default();
        let base = self.address(st, &mut srcs, addr)?;
        let a = self.align_down(base, 4);
        let s1 = srcs.get(self, st, 1, 0, Ty::Int)?;
        let data: Vec<Value> = if op == IrAtomic::CmpXchg {
            let s2 = srcs.get(self, st, 2, 0, Ty::Int)?;
            // UAV form: src1 = new value, src2 = compare; LDS form: src1 = compare.
            if swap {
                vec![s2, s1]
            } else {
                vec![s1, s2]
            }
        } else {
            vec![s1]
        };
        let m = mem(space, 0, MemSize::Words(1));
        if op == IrAtomic::Rsub {
            return self.cas_loop(st, m, a, ret, |l, old| l.cursor().ins().isub(s1, old));
        }
        if ret {
            let old = self.cursor().ins().atomic(op, m, Some(a), &data);
            self.write_dst(st, Ty::Int, [Some(old); 4])
        } else {
            self.cursor().ins().atomic_noret(op, m, Some(a), &data);
            Ok(())
        }
    }

    /// `append_buf_alloc_id(n)` / `append_buf_consume_id(n)`: an atomic add of +1 / -1 on
    /// UAV n's hidden counter ([`MemSpace::Counter`]); alloc returns the old count, consume
    /// the new one (the index of the slot it frees), as the interpreter does.
    pub(crate) fn lower_append(&mut self, st: &Instruction) -> LResult<()> {
        let id = st.id().unwrap_or(0);
        let id8 = u8::try_from(id).map_err(|_| format!("UAV id {id} is out of range"))?;
        if !self.func.uavs.contains_key(&id8) {
            return Err(format!("append buffer {id} is not a declared UAV"));
        }
        let alloc = st.opcode == isa_amdil::opcodes::Opcode::AppendBufAlloc;
        let k = self.iconst(if alloc { 1 } else { u32::MAX });
        let m = mem(MemSpace::Counter(id8), 0, MemSize::Words(1));
        let old = self.cursor().ins().atomic(IrAtomic::Add, m, None, &[k]);
        let v = if alloc {
            old
        } else {
            self.cursor().ins().iadd(old, k)
        };
        self.write_dst(st, Ty::Int, [Some(v); 4])
    }

    /// An atomic read-modify-write no SM50 atomic computes (`rsub`: `mem = x - mem`;
    /// `mskor`: `mem = (mem & !mask) | bits`): a compare-and-swap loop starting from a
    /// plain load of the word, retried with the value the swap found until it succeeds.
    /// The old value is the one the successful swap saw.
    fn cas_loop(
        &mut self,
        st: &Instruction,
        m: MemArg,
        a: Value,
        ret: bool,
        update: impl Fn(&mut Self, Value) -> Value,
    ) -> LResult<()> {
        let guess = self.cursor().ins().load(m, Some(a))[0];
        let lp = self.func.dfg.make_block();
        let old = self
            .func
            .dfg
            .append_block_param(lp, ilc_passes::ir::Type::B32);
        let from = self.cur;
        self.cursor().ins().jump(lp, &[guess]);
        self.ssa.add_pred(lp, from);
        self.switch_to(lp);
        let new = update(self, old);
        let prev = self
            .cursor()
            .ins()
            .atomic(IrAtomic::CmpXchg, m, Some(a), &[old, new]);
        let done = self.cursor().ins().icmp(IntCC::Eq, prev, old);
        self.close_loop(done, lp, &[prev]);
        if ret {
            self.write_dst(st, Ty::Int, [Some(old); 4])
        } else {
            Ok(())
        }
    }

    /// Lowers memory, atomic and other resource instructions; anything else is reported
    /// as unsupported.
    pub(crate) fn lower_memory(&mut self, st: &Instruction) -> LResult<()> {
        use Opcode as O;
        let id = st.id().unwrap_or(0);
        if st.opcode.mnemonic().starts_with("uav_") {
            // Real kernels use UAVs they never declare (LLVM AMDIL output): such a UAV is
            // a raw buffer, as the interpreter treats it.
            if let Ok(id8) = u8::try_from(id) {
                self.func
                    .uavs
                    .entry(id8)
                    .or_insert(ilc_passes::ir::UavKind::Raw);
            }
        }
        let size_width = || match st.generic("size").flatten().map(|s| s.to_ascii_lowercase()) {
            Some(s) if s == "byte" => Width::U8,
            Some(s) if s == "short" => Width::U16,
            _ => Width::U32,
        };
        match st.opcode {
            O::SrvRawLoad | O::SrvStructLoad => {
                let id8 = u8::try_from(id).map_err(|_| format!("SRV id {id} is out of range"))?;
                let a = match (st.opcode, self.decls.srvs.get(&id)) {
                    (O::SrvStructLoad, Some(BufferKind::Struct(s))) => Addr::Struct(*s),
                    _ => Addr::Raw,
                };
                let kind = match a {
                    Addr::Struct(s) => ilc_passes::ir::UavKind::Structured(s),
                    _ => ilc_passes::ir::UavKind::Raw,
                };
                self.func.srvs.entry(id8).or_insert(kind);
                self.load(st, MemSpace::Srv(id8), a, Width::U32, true)
            }
            O::UavRawLoad => self.load(st, self.uav_space(id)?, Addr::Raw, Width::U32, true),
            O::UavStructLoad => {
                let a = self.uav_addr(id);
                self.load(st, self.uav_space(id)?, a, Width::U32, true)
            }
            O::UavLoad => {
                let a = self.typed_addr(id);
                self.load(st, self.uav_space(id)?, a, Width::U32, true)
            }
            O::UavArenaLoad => {
                let w = size_width();
                self.load(st, self.uav_space(id)?, Addr::Raw, w, false)
            }
            O::UavByteLoad | O::UavShortLoad | O::UavUbyteLoad | O::UavUshortLoad => {
                let w = match st.opcode {
                    O::UavByteLoad => Width::S8,
                    O::UavShortLoad => Width::S16,
                    O::UavUbyteLoad => Width::U8,
                    _ => Width::U16,
                };
                self.load(st, self.uav_space(id)?, Addr::Raw, w, false)
            }
            O::UavRawStore | O::UavStructStore => {
                let a = if st.opcode == O::UavRawStore {
                    Addr::Raw
                } else {
                    self.uav_addr(id)
                };
                let mask = Self::mem_mask(st);
                self.store(st, self.uav_space(id)?, a, Width::U32, true, mask)
            }
            O::UavStore => {
                let a = self.typed_addr(id);
                let mask = [DstComp::Write; 4];
                self.store(st, self.uav_space(id)?, a, Width::U32, true, mask)
            }
            O::UavArenaStore | O::UavByteStore | O::UavShortStore => {
                let w = match st.opcode {
                    O::UavByteStore => Width::U8,
                    O::UavShortStore => Width::U16,
                    _ => size_width(),
                };
                let mask = Self::mem_mask(st);
                self.store(st, self.uav_space(id)?, Addr::Raw, w, false, mask)
            }
            O::LdsLoad | O::LdsLoadByte | O::LdsLoadShort | O::LdsLoadUbyte | O::LdsLoadUshort => {
                let w = match st.opcode {
                    O::LdsLoadByte => Width::S8,
                    O::LdsLoadShort => Width::S16,
                    O::LdsLoadUbyte => Width::U8,
                    O::LdsLoadUshort => Width::U16,
                    _ => Width::U32,
                };
                let a = self.lds_addr(id, false);
                self.load(st, self.lds_space(id)?, a, w, false)
            }
            O::LdsLoadVec => {
                let a = self.lds_addr(id, true);
                self.load(st, self.lds_space(id)?, a, Width::U32, true)
            }
            O::LdsStore | O::LdsStoreByte | O::LdsStoreShort => {
                let w = match st.opcode {
                    O::LdsStoreByte => Width::U8,
                    O::LdsStoreShort => Width::U16,
                    _ => Width::U32,
                };
                if st.srcs.len() < 2 {
                    return Err("needs 2 source operands".into());
                }
                let a = self.lds_addr(id, false);
                let mask = Self::mem_mask(st);
                self.store(st, self.lds_space(id)?, a, w, false, mask)
            }
            O::LdsStoreVec => {
                if st.srcs.len() < 3 {
                    return Err("needs 3 source operands".into());
                }
                let a = self.lds_addr(id, true);
                let mask = Self::mem_mask(st);
                self.store(st, self.lds_space(id)?, a, Width::U32, true, mask)
            }
            O::LdsReadVec | O::LdsWriteVec => self.lower_owner_lds(st),
            op => {
                let Some((aop, ret, lds)) = atomic_of(op) else {
                    let info = op.info();
                    return Err(if info.usage.compute_relevant() {
                        format!(
                            "opcode `{}` is not supported by the lowering",
                            op.mnemonic()
                        )
                    } else {
                        format!(
                            "opcode `{}` is not a compute instruction ({:?})",
                            op.mnemonic(),
                            info.usage
                        )
                    });
                };
                let Some(aop) = aop else {
                    // Masked or: (mem & !src1) | src2, by compare-and-swap.
                    let a = self.lds_addr(id, false);
                    let space = self.lds_space(id)?;
                    let mut srcs = Srcs::default();
                    let base = self.address(st, &mut srcs, a)?;
                    let addr = self.align_down(base, 4);
                    let mask = srcs.get(self, st, 1, 0, Ty::Int)?;
                    let bits = srcs.get(self, st, 2, 0, Ty::Int)?;
                    let m = mem(space, 0, MemSize::Words(1));
                    return self.cas_loop(st, m, addr, ret, |l, old| {
                        let keep = l.cursor().ins().bnot(mask);
                        let kept = l.cursor().ins().band(old, keep);
                        l.cursor().ins().bor(kept, bits)
                    });
                };
                if lds {
                    let a = self.lds_addr(id, false);
                    self.atomic(st, self.lds_space(id)?, a, aop, ret, false)
                } else {
                    let a = self.uav_addr(id);
                    self.atomic(st, self.uav_space(id)?, a, aop, ret, true)
                }
            }
        }
    }
}

impl Lowerer<'_> {
    /// R7xx owner-computes LDS (`dcl_lds_size_per_thread n`): each work-item owns `n` dwords
    /// of a per-wavefront (relative sharing) or shared (absolute) block of 64 areas.
    /// `lds_write_vec_lOffset(k)` writes the masked components of `src0` to the work-item's
    /// own dwords `k..k+3` (those past `n` are dropped); `lds_read_vec` reads dwords
    /// `src0.y..` of the area of lane `src0.x`, 0 for a lane past 63 or a dword past `n`.
    fn lower_owner_lds(&mut self, st: &Instruction) -> LResult<()> {
        use isa_amdil::ast::Control;
        let owner = self.decls.owner_lds.map(|o| (o.dwords, o.absolute));
        let (Some((n, abs_default)), Some(lds)) = (owner, self.owner_lds_id) else {
            return Err(format!(
                "{} needs dcl_lds_size_per_thread",
                st.opcode.mnemonic()
            ));
        };
        let exchange = st.generic("neighborexch").is_some();
        let [gx, gy, gz] = self.decls.group;
        if exchange && !(gx as u64 * gy as u64 * gz as u64).is_multiple_of(4) {
            return Err(format!(
                "lds_read_vec_neighborExch exchanges within groups of four work-items; the \
                 group size {gx}x{gy}x{gz} is not a multiple of 4"
            ));
        }
        let space = self.lds_space(lds)?;
        let abs = isa_amdil::decls::sharing_mode(st).unwrap_or(abs_default);
        // Dword index of lane 0's area of this work-item's wavefront.
        let local = self.sys_value(RegKind::ThreadIdInGroupFlat, 0);
        let wave_base = if abs {
            self.iconst(0)
        } else {
            let six = self.iconst(6);
            let w = self.cursor().ins().ushr(local, six);
            self.cursor().ins().ishl(w, six)
        };
        let size = self.iconst(n);
        let mut srcs = Srcs::default();
        if st.opcode == Opcode::LdsWriteVec {
            let offset = st
                .controls
                .iter()
                .find_map(|c| match c {
                    Control::LOffset(k) => Some(*k),
                    _ => None,
                })
                .unwrap_or(0);
            let mask = Self::mem_mask(st);
            let k63 = self.iconst(63);
            let lane = self.cursor().ins().band(local, k63);
            let owner = self.cursor().ins().iadd(wave_base, lane);
            let area = self.cursor().ins().imul(owner, size);
            for (i, m) in mask.iter().enumerate() {
                let dw = offset.wrapping_add(i as u32);
                if *m != DstComp::Write || dw >= n {
                    continue;
                }
                let v = srcs.get(self, st, 0, i, Ty::Untyped)?;
                let k = self.iconst(dw);
                let d = self.cursor().ins().iadd(area, k);
                let two = self.iconst(2);
                let a = self.cursor().ins().ishl(d, two);
                self.cursor()
                    .ins()
                    .store(mem(space, 0, MemSize::Words(1)), Some(a), &[v]);
            }
            return Ok(());
        }
        // The exchange needs every component of every neighbour's vector.
        let w = if exchange {
            [true; 4]
        } else {
            self.dst_writes(st)
        };
        let owner = srcs.get(self, st, 0, 0, Ty::Int)?;
        let off = srcs.get(self, st, 0, 1, Ty::Int)?;
        let k64 = self.iconst(64);
        let lane_ok = self.cursor().ins().icmp(IntCC::Ult, owner, k64);
        let who = self.cursor().ins().iadd(wave_base, owner);
        let area = self.cursor().ins().imul(who, size);
        let mut res = [None; 4];
        for i in 0..4 {
            if !w[i] {
                continue;
            }
            let k = self.iconst(i as u32);
            let dw = self.cursor().ins().iadd(off, k);
            let dw_ok = self.cursor().ins().icmp(IntCC::Ult, dw, size);
            let ok = self.cursor().ins().pand(lane_ok, dw_ok);
            let d = self.cursor().ins().iadd(area, dw);
            let two = self.iconst(2);
            let a = self.cursor().ins().ishl(d, two);
            // Out-of-range reads must not reach memory: read dword 0 instead, then drop it.
            let z = self.iconst(0);
            let a = self.cursor().ins().select(ok, a, z);
            let v = self
                .cursor()
                .ins()
                .load(mem(space, 0, MemSize::Words(1)), Some(a))[0];
            res[i] = Some(self.cursor().ins().select(ok, v, z));
        }
        if exchange {
            // Every component was read above (`w` is all true).
            let v = res.map(|r| r.expect("neighbour exchange reads all four components"));
            res = self.neighbour_transpose(local, v).map(Some);
        }
        self.write_dst(st, Ty::Untyped, res)
    }

    /// `_neighborExch`: work-item `4q + j` gets `(v[0][j], v[1][j], v[2][j], v[3][j])`, `v[i]`
    /// being the vector of work-item `4q + i`. Three butterfly rounds: in round `k` each
    /// work-item offers its component `j ^ k` and takes the offer of work-item `j ^ k`,
    /// which is that neighbour's component `j`; round 0 is the work-item's own component `j`.
    /// The dynamic component choices are selects on the predicates `j == m`.
    fn neighbour_transpose(&mut self, local: Value, v: [Value; 4]) -> [Value; 4] {
        let three = self.iconst(3);
        let j = self.cursor().ins().band(local, three);
        let is: [Value; 3] = std::array::from_fn(|m| {
            let km = self.iconst(m as u32);
            self.cursor().ins().icmp(IntCC::Eq, j, km)
        });
        // pick(f) = f(j): a select chain over the four possible values of j.
        let pick = |this: &mut Self, f: &dyn Fn(usize) -> Value| {
            let mut acc = f(3);
            for m in (0..3).rev() {
                acc = this.cursor().ins().select(is[m], f(m), acc);
            }
            acc
        };
        let mut r = [v[0]; 4];
        for (k, rk) in r.iter_mut().enumerate() {
            let offer = pick(self, &|m| v[m ^ k]);
            *rk = if k == 0 {
                offer
            } else {
                let kk = self.iconst(k as u32);
                let partner = self.cursor().ins().bxor(local, kk);
                self.cursor().ins().quad_shuffle(offer, partner)
            };
        }
        // Component c came in round c ^ j.
        std::array::from_fn(|c| pick(self, &|m| r[c ^ m]))
    }
}

/// `(operation, returns the old value, is LDS)`; `None` operation for `mskor`.
fn atomic_of(op: Opcode) -> Option<(Option<IrAtomic>, bool, bool)> {
    use IrAtomic as A;
    use Opcode as O;
    let (a, ret, lds) = match op {
        O::UavAdd => (A::Add, false, false),
        O::UavSub => (A::Sub, false, false),
        O::UavRsub => (A::Rsub, false, false),
        O::UavMin => (A::Smin, false, false),
        O::UavMax => (A::Smax, false, false),
        O::UavUmin => (A::Umin, false, false),
        O::UavUmax => (A::Umax, false, false),
        O::UavAnd => (A::And, false, false),
        O::UavOr => (A::Or, false, false),
        O::UavXor => (A::Xor, false, false),
        O::UavCmp => (A::CmpXchg, false, false),
        O::UavUinc => (A::Inc, false, false),
        O::UavUdec => (A::Dec, false, false),
        O::UavReadAdd => (A::Add, true, false),
        O::UavReadSub => (A::Sub, true, false),
        O::UavReadRsub => (A::Rsub, true, false),
        O::UavReadMin => (A::Smin, true, false),
        O::UavReadMax => (A::Smax, true, false),
        O::UavReadUmin => (A::Umin, true, false),
        O::UavReadUmax => (A::Umax, true, false),
        O::UavReadAnd => (A::And, true, false),
        O::UavReadOr => (A::Or, true, false),
        O::UavReadXor => (A::Xor, true, false),
        O::UavReadXchg => (A::Xchg, true, false),
        O::UavReadCmpXchg => (A::CmpXchg, true, false),
        O::UavReadUinc => (A::Inc, true, false),
        O::UavReadUdec => (A::Dec, true, false),
        O::LdsAdd => (A::Add, false, true),
        O::LdsSub => (A::Sub, false, true),
        O::LdsRsub => (A::Rsub, false, true),
        O::LdsMin => (A::Smin, false, true),
        O::LdsMax => (A::Smax, false, true),
        O::LdsUmin => (A::Umin, false, true),
        O::LdsUmax => (A::Umax, false, true),
        O::LdsAnd => (A::And, false, true),
        O::LdsOr => (A::Or, false, true),
        O::LdsXor => (A::Xor, false, true),
        O::LdsCmp => (A::CmpXchg, false, true),
        O::LdsInc => (A::Inc, false, true),
        O::LdsDec => (A::Dec, false, true),
        O::LdsReadAdd => (A::Add, true, true),
        O::LdsReadSub => (A::Sub, true, true),
        O::LdsReadRsub => (A::Rsub, true, true),
        O::LdsReadMin => (A::Smin, true, true),
        O::LdsReadMax => (A::Smax, true, true),
        O::LdsReadUmin => (A::Umin, true, true),
        O::LdsReadUmax => (A::Umax, true, true),
        O::LdsReadAnd => (A::And, true, true),
        O::LdsReadOr => (A::Or, true, true),
        O::LdsReadXor => (A::Xor, true, true),
        O::LdsReadXchg => (A::Xchg, true, true),
        O::LdsReadCmpXchg => (A::CmpXchg, true, true),
        O::LdsReadInc => (A::Inc, true, true),
        O::LdsReadDec => (A::Dec, true, true),
        O::LdsMskor => return Some((None, false, true)),
        O::LdsReadMskor => return Some((None, true, true)),
        _ => return None,
    };
    Some((Some(a), ret, lds))
}
