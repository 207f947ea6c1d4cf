//! A cursor for inserting instructions ([`FuncCursor`]) and the instruction builder
//! ([`InstBuilder`]) with one convenience method per opcode.
//!
//! Guarantees: every instruction created through the builder gets the result values the
//! opcode table prescribes (see `DataFlowGraph::compute_result_types`) and is placed at the
//! cursor. Type errors in operands are not checked here; the verifier reports them.
//!
//! ```
//! use ilc_passes::interp::{run_dispatch, Dispatch, InterpOptions, Memory};
//! use ilc_passes::ir::{FuncCursor, Function, MemArg, MemSize, MemSpace, SpecialReg, Type, UavKind};
//!
//! // out[tid] = tid * 3
//! let mut func = Function::new("triple");
//! func.group_size = Some([4, 1, 1]);
//! func.uavs.insert(0, UavKind::Raw);
//! let mut cur = FuncCursor::new(&mut func);
//! let entry = cur.create_block();
//! cur.goto_end(entry);
//! let tid = cur.ins().special(SpecialReg::Tid(0));
//! let three = cur.ins().iconst(Type::B32, 3);
//! let val = cur.ins().imul(tid, three);
//! let two = cur.ins().iconst(Type::B32, 2);
//! let addr = cur.ins().ishl(tid, two);
//! let mem = MemArg { space: MemSpace::Uav(0), offset: 0, size: MemSize::Words(1), align: 4,
//!                    inbounds: false };
//! cur.ins().store(mem, Some(addr), &[val]);
//! cur.ins().return_();
//! ilc_passes::verifier::verify_function(&func).unwrap();
//!
//! let mut mem = Memory::default();
//! mem.uavs.insert(0, vec![0; 16]);
//! let grid = Dispatch { grid: [1, 1, 1], group_size: None };
//! run_dispatch(&func, &grid, &mut mem, &InterpOptions::default()).unwrap();
//! assert_eq!(mem.uavs[&0], [0, 0, 0, 0, 3, 0, 0, 0, 6, 0, 0, 0, 9, 0, 0, 0]);
//! assert!(func.to_string().contains("v2 = imul v0, v1"));
//! ```

use smallvec::SmallVec;

use super::entities::{Block, Inst, Value};
use super::function::Function;
use super::immediates::{AtomicOp, BarrierFlags, FloatCC, IntCC, MemArg, SpecialReg, TexArg};
use super::instructions::{BlockCall, InstructionData, ValueList};
use super::opcodes::Opcode;
use super::types::Type;

/// Where the cursor inserts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum CursorPosition {
    /// Nowhere: inserting panics (a caller bug).
    Nowhere,
    /// Before this instruction.
    Before(Inst),
    /// At the end of this block.
    AtEnd(Block),
}

/// A cursor over a function.
pub struct FuncCursor<'f> {
    /// The function being edited.
    pub func: &'f mut Function,
    /// Insertion point.
    pub pos: CursorPosition,
}

impl<'f> FuncCursor<'f> {
    /// A cursor pointing nowhere.
    pub fn new(func: &'f mut Function) -> Self {
        FuncCursor {
            func,
            pos: CursorPosition::Nowhere,
        }
    }

    /// Moves to the end of `block`.
    pub fn at_end(mut self, block: Block) -> Self {
        self.pos = CursorPosition::AtEnd(block);
        self
    }

    /// Moves before `inst`.
    pub fn at_inst(mut self, inst: Inst) -> Self {
        self.pos = CursorPosition::Before(inst);
        self
    }

    /// Moves to the end of `block` (in place).
    pub fn goto_end(&mut self, block: Block) {
        self.pos = CursorPosition::AtEnd(block);
    }

    /// Moves before `inst` (in place).
    pub fn goto_inst(&mut self, inst: Inst) {
        self.pos = CursorPosition::Before(inst);
    }

    /// Creates a new block appended to the layout.
    pub fn create_block(&mut self) -> Block {
        self.func.append_new_block()
    }

    /// Adds a parameter to `block`.
    pub fn append_block_param(&mut self, block: Block, ty: Type) -> Value {
        self.func.dfg.append_block_param(block, ty)
    }

    /// The builder for the next instruction.
    pub fn ins(&mut self) -> InstBuilder<'_, 'f> {
        InstBuilder { cursor: self }
    }

    /// Inserts an already created instruction at the cursor.
    pub fn insert_inst(&mut self, inst: Inst) {
        match self.pos {
            CursorPosition::Before(before) => self.func.layout.insert_inst(inst, before),
            CursorPosition::AtEnd(block) => self.func.layout.append_inst(inst, block),
            CursorPosition::Nowhere => panic!("FuncCursor: insertion without a position"),
        }
    }
}

/// Builds one instruction at a cursor. Methods return the result value(s).
pub struct InstBuilder<'c, 'f> {
    cursor: &'c mut FuncCursor<'f>,
}

macro_rules! unary_methods {
    ($($method:ident => $op:ident),* $(,)?) => {$(
        #[doc = concat!("`", stringify!($method), "` (see [`Opcode::", stringify!($op), "`]).")]
        pub fn $method(self, a: Value) -> Value { self.unary(Opcode::$op, a) }
    )*};
}
macro_rules! binary_methods {
    ($($method:ident => $op:ident),* $(,)?) => {$(
        #[doc = concat!("`", stringify!($method), "` (see [`Opcode::", stringify!($op), "`]).")]
        pub fn $method(self, a: Value, b: Value) -> Value { self.binary(Opcode::$op, a, b) }
    )*};
}
macro_rules! ternary_methods {
    ($($method:ident => $op:ident),* $(,)?) => {$(
        #[doc = concat!("`", stringify!($method), "` (see [`Opcode::", stringify!($op), "`]).")]
        pub fn $method(self, a: Value, b: Value, c: Value) -> Value { self.ternary(Opcode::$op, a, b, c) }
    )*};
}

impl InstBuilder<'_, '_> {
    /// Creates `data` with its results at the cursor; returns the instruction.
    pub fn build(self, data: InstructionData) -> Inst {
        let inst = self.cursor.func.dfg.make_inst(data);
        self.cursor.func.dfg.make_inst_results(inst);
        self.cursor.insert_inst(inst);
        inst
    }

    fn build_results(self, data: InstructionData) -> SmallVec<[Value; 4]> {
        let inst = self.cursor.func.dfg.make_inst(data);
        // (`from_slice` copies; the generic `From<&[T]>` extends element by element.)
        let results = SmallVec::from_slice(self.cursor.func.dfg.make_inst_results(inst));
        self.cursor.insert_inst(inst);
        results
    }

    fn build_one(self, data: InstructionData) -> Value {
        // Every opcode built through `build_one` has exactly one result in the table.
        self.build_results(data)[0]
    }

    /// An instruction with one operand and one result.
    pub fn unary(self, opcode: Opcode, a: Value) -> Value {
        self.build_one(InstructionData::Unary { opcode, args: [a] })
    }
    /// An instruction with two operands and one result.
    pub fn binary(self, opcode: Opcode, a: Value, b: Value) -> Value {
        self.build_one(InstructionData::Binary {
            opcode,
            args: [a, b],
        })
    }
    /// An instruction with three operands and one result.
    pub fn ternary(self, opcode: Opcode, a: Value, b: Value, c: Value) -> Value {
        self.build_one(InstructionData::Ternary {
            opcode,
            args: [a, b, c],
        })
    }
    /// `iconst.ty imm` (imm truncated to the type).
    pub fn iconst(self, ty: Type, imm: u64) -> Value {
        let imm = imm & ty.mask();
        self.build_one(InstructionData::UnaryImm {
            opcode: Opcode::Iconst,
            ty,
            imm,
        })
    }
    /// `iconst.b32` of a float's bits.
    pub fn f32const(self, x: f32) -> Value {
        self.iconst(Type::B32, x.to_bits() as u64)
    }
    /// `iconst.b64` of a double's bits.
    pub fn f64const(self, x: f64) -> Value {
        self.iconst(Type::B64, x.to_bits())
    }
    /// `pconst`.
    pub fn pconst(self, b: bool) -> Value {
        self.build_one(InstructionData::UnaryImm {
            opcode: Opcode::Pconst,
            ty: Type::Pred,
            imm: b as u64,
        })
    }
    /// `bfi width, offset, insert, base`.
    pub fn bfi(self, width: Value, offset: Value, insert: Value, base: Value) -> Value {
        self.build_one(InstructionData::Quaternary {
            opcode: Opcode::Bfi,
            args: [width, offset, insert, base],
        })
    }
    /// `icmp cc a, b`.
    pub fn icmp(self, cond: IntCC, a: Value, b: Value) -> Value {
        self.build_one(InstructionData::IntCompare {
            opcode: Opcode::Icmp,
            cond,
            args: [a, b],
        })
    }
    /// `fcmp cc a, b`.
    pub fn fcmp(self, cond: FloatCC, a: Value, b: Value) -> Value {
        self.build_one(InstructionData::FloatCompare {
            opcode: Opcode::Fcmp,
            cond,
            args: [a, b],
        })
    }
    /// `dcmp cc a, b`.
    pub fn dcmp(self, cond: FloatCC, a: Value, b: Value) -> Value {
        self.build_one(InstructionData::FloatCompare {
            opcode: Opcode::Dcmp,
            cond,
            args: [a, b],
        })
    }
    /// `special reg`.
    pub fn special(self, reg: SpecialReg) -> Value {
        self.build_one(InstructionData::Special {
            opcode: Opcode::Special,
            reg,
        })
    }
    /// `load`: one `b32` result per word.
    pub fn load(self, mem: MemArg, addr: Option<Value>) -> SmallVec<[Value; 4]> {
        let args: ValueList = addr.into_iter().collect();
        self.build_results(InstructionData::Load {
            opcode: Opcode::Load,
            mem,
            args,
        })
    }
    /// `tex`: four `b32` results (the operands as [`TexArg::arity`] says).
    pub fn tex(self, tex: TexArg, args: &[Value]) -> SmallVec<[Value; 4]> {
        self.build_results(InstructionData::Texture {
            opcode: Opcode::Tex,
            tex,
            args: SmallVec::from_slice(args),
        })
    }
    /// `store`.
    pub fn store(self, mem: MemArg, addr: Option<Value>, data: &[Value]) -> Inst {
        let args: ValueList = addr.into_iter().chain(data.iter().copied()).collect();
        self.build(InstructionData::Store {
            opcode: Opcode::Store,
            mem,
            args,
        })
    }
    /// `atomic` (returns the old value).
    pub fn atomic(self, op: AtomicOp, mem: MemArg, addr: Option<Value>, data: &[Value]) -> Value {
        let args: ValueList = addr.into_iter().chain(data.iter().copied()).collect();
        self.build_one(InstructionData::Atomic {
            opcode: Opcode::Atomic,
            op,
            mem,
            args,
        })
    }
    /// `atomic_noret`.
    pub fn atomic_noret(
        self,
        op: AtomicOp,
        mem: MemArg,
        addr: Option<Value>,
        data: &[Value],
    ) -> Inst {
        let args: ValueList = addr.into_iter().chain(data.iter().copied()).collect();
        self.build(InstructionData::Atomic {
            opcode: Opcode::AtomicNoret,
            op,
            mem,
            args,
        })
    }
    /// `barrier flags`.
    pub fn barrier(self, flags: BarrierFlags) -> Inst {
        self.build(InstructionData::Barrier {
            opcode: Opcode::Barrier,
            flags,
        })
    }
    /// `jump block(args)`.
    pub fn jump(self, block: Block, args: &[Value]) -> Inst {
        self.build(InstructionData::Jump {
            opcode: Opcode::Jump,
            dests: [BlockCall::new(block, args)],
        })
    }
    /// `brif c, then(targs), else(eargs)`.
    pub fn brif(self, c: Value, then: Block, targs: &[Value], els: Block, eargs: &[Value]) -> Inst {
        self.build(InstructionData::Brif {
            opcode: Opcode::Brif,
            arg: [c],
            dests: Box::new([BlockCall::new(then, targs), BlockCall::new(els, eargs)]),
        })
    }
    /// `br_table x, default, [table...]`.
    pub fn br_table(self, x: Value, default: BlockCall, table: Vec<BlockCall>) -> Inst {
        let mut dests = vec![default];
        dests.extend(table);
        self.build(InstructionData::BrTable {
            opcode: Opcode::BrTable,
            arg: [x],
            dests,
        })
    }
    /// `return`.
    pub fn return_(self) -> Inst {
        self.build(InstructionData::Nullary {
            opcode: Opcode::Return,
        })
    }
    /// `unreachable`.
    pub fn unreachable(self) -> Inst {
        self.build(InstructionData::Nullary {
            opcode: Opcode::Unreachable,
        })
    }
    /// A target-specific instruction with explicit result types.
    pub fn target(
        self,
        code: u16,
        imm: u64,
        side_effects: bool,
        args: &[Value],
        results: &[Type],
    ) -> Inst {
        self.build(InstructionData::Target {
            opcode: Opcode::Target,
            code,
            imm,
            side_effects,
            args: args.into(),
            results: results.into(),
        })
    }

    unary_methods! {
        copy => Copy, ineg => Ineg, bnot => Bnot, bitrev => Bitrev, popcnt => Popcnt, clz => Clz,
        firstbit_hi => FirstbitHi, firstbit_lo => FirstbitLo, firstbit_shi => FirstbitShi,
        iabs => Iabs, bmask => Bmask, pnot => Pnot, vote_all => VoteAll, fneg => Fneg, fabs => Fabs, frcp => Frcp,
        frsq => Frsq, fsqrt => Fsqrt, fexp2 => Fexp2, flog2 => Flog2, fsin => Fsin, fcos => Fcos,
        ffloor => Ffloor, fceil => Fceil, ftrunc => Ftrunc, fround_even => FroundEven,
        ffract => Ffract, fsat => Fsat, drcp => Drcp, dsqrt => Dsqrt, dneg => Dneg, dabs => Dabs,
        drsq => Drsq, dfloor => Dfloor, dceil => Dceil, dtrunc => Dtrunc, dround_even => DroundEven,
        dfract => Dfract, dfrexp_mant => DfrexpMant, dfrexp_exp => DfrexpExp,
        f2i => F2i, f2u => F2u, i2f => I2f, u2f => U2f, f2d => F2d, d2f => D2f, d2i => D2i,
        d2u => D2u, i2d => I2d, u2d => U2d, f16to32 => F16to32, f32to16 => F32to16, lo => Lo,
        hi => Hi,
    }
    binary_methods! {
        iadd => Iadd, isub => Isub, imul => Imul, imulhi => Imulhi, umulhi => Umulhi,
        idiv => Idiv, udiv => Udiv, irem => Irem, urem => Urem, ishl => Ishl, ishr => Ishr,
        ushr => Ushr, band => Band, bor => Bor, bxor => Bxor, imin => Imin, imax => Imax,
        umin => Umin, umax => Umax, pand => Pand, por => Por, pxor => Pxor, fadd => Fadd,
        fsub => Fsub, fmul => Fmul, fmul_legacy => FmulLegacy, fmin => Fmin, fmax => Fmax,
        fdiv => Fdiv, dadd => Dadd, dsub => Dsub, dmul => Dmul, ddiv => Ddiv, ddiv_normal => DdivNormal,
        dmin => Dmin,
        dmax => Dmax, concat => Concat, dldexp => Dldexp, fldexp => Fldexp,
        quad_shuffle => QuadShuffle,
    }
    ternary_methods! {
        imad => Imad, ubfe => Ubfe, ibfe => Ibfe, select => Select, ffma => Ffma, fmad => Fmad,
        fmad_legacy => FmadLegacy, dfma => Dfma, fshr => Fshr,
    }
}
