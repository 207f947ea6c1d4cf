//! Lowering of the multi-component IL operations: 64-bit (double and integer) operations
//! on `.xy` pairs, compares with broadcast results, `cmov`, dot products, `crs`, `sincos`,
//! `nrm`, `dst`, and the byte-wise `sad` family.
//!
//! Same contract as [`super::ops`]: only written components are computed, and each
//! reproduces the reference interpreter's definition exactly.

use ilc_passes::ir::Value;
use isa_amdil::ast::{DstComp, Instruction, RegKind, MATRIX_SHAPES};

use super::ops::{zero_value, Srcs, Ty, ONE};
use super::{LResult, Lowerer};

impl Lowerer<'_> {
    /// The 64-bit value in `.xy` (post swizzle) of source `k`.
    pub(crate) fn wide_src(&mut self, st: &Instruction, k: usize, ty: Ty) -> LResult<Value> {
        let s = st
            .srcs
            .get(k)
            .ok_or_else(|| format!("needs source operand {k}"))?;
        let lo = self.read_src(s, 0, ty)?;
        let hi = self.read_src(s, 1, ty)?;
        Ok(self.cursor().ins().concat(lo, hi))
    }

    /// Writes a 64-bit result as `(lo, hi, lo, hi)`.
    pub(crate) fn write_wide(&mut self, st: &Instruction, ty: Ty, r: Value) -> LResult<()> {
        let w = self.dst_writes(st);
        let mut res = [None; 4];
        if w[0] || w[2] {
            let lo = self.cursor().ins().lo(r);
            res[0] = Some(lo);
            res[2] = Some(lo);
        }
        if w[1] || w[3] {
            let hi = self.cursor().ins().hi(r);
            res[1] = Some(hi);
            res[3] = Some(hi);
        }
        self.write_dst(st, ty, res)
    }

    /// A 64-bit operation on `.xy` of `n` sources.
    pub(crate) fn wide(
        &mut self,
        st: &Instruction,
        ty: Ty,
        n: usize,
        f: impl Fn(&mut Lowerer, &[Value]) -> LResult<Value>,
    ) -> LResult<()> {
        let w = self.dst_writes(st);
        if !w.iter().any(|&b| b) {
            return Ok(());
        }
        let mut args = Vec::with_capacity(n);
        for k in 0..n {
            args.push(self.wide_src(st, k, ty)?);
        }
        let r = f(self, &args)?;
        self.write_wide(st, ty, r)
    }

    /// A 64-bit compare broadcasting 0xFFFFFFFF/0.
    pub(crate) fn wide_cmp(
        &mut self,
        st: &Instruction,
        ty: Ty,
        f: impl Fn(&mut Lowerer, Value, Value) -> Value,
    ) -> LResult<()> {
        let w = self.dst_writes(st);
        if !w.iter().any(|&b| b) {
            return Ok(());
        }
        let a = self.wide_src(st, 0, ty)?;
        let b = self.wide_src(st, 1, ty)?;
        let p = f(self, a, b);
        let v = self.bool_mask(p);
        self.write_dst(st, Ty::Int, [Some(v); 4])
    }

    pub(crate) fn lower_cmov(&mut self, st: &Instruction) -> LResult<()> {
        let Some(d) = st.dsts.first() else {
            return Ok(());
        };
        if d.reg.kind == RegKind::GenericMem {
            return Ok(());
        }
        let mut srcs = Srcs::default();
        let mut res = [None; 4];
        let mut cond = [None; 4];
        for k in 0..4 {
            if d.mask[k] == DstComp::NoWrite {
                continue;
            }
            let c = srcs.get(self, st, 0, k, Ty::Float)?;
            cond[k] = Some(self.is_fzero(c));
            if d.mask[k] == DstComp::Write {
                res[k] = Some(srcs.get(self, st, 1, k, Ty::Float)?);
            }
        }
        // Compute what an unconditional write would store, then keep the old value of
        // components whose condition is zero.
        let mut out: [Option<Value>; 4] = [None; 4];
        for k in 0..4 {
            out[k] = self.dst_comp(d, k, Ty::Float, res[k])?;
            if let (Some(v), Some(c)) = (out[k], cond[k]) {
                let old = self.load_reg_comp(&d.reg, k)?;
                out[k] = Some(self.cursor().ins().select(c, old, v));
            }
        }
        self.store_reg(d, out)
    }

    pub(crate) fn lower_dot(
        &mut self,
        st: &Instruction,
        n: usize,
        ieee: bool,
        add: bool,
    ) -> LResult<()> {
        let w = self.dst_writes(st);
        if !w.iter().any(|&b| b) {
            return Ok(());
        }
        let mut srcs = Srcs::default();
        let mut a = Vec::new();
        let mut b = Vec::new();
        for k in 0..n {
            a.push(srcs.get(self, st, 0, k, Ty::Float)?);
            b.push(srcs.get(self, st, 1, k, Ty::Float)?);
        }
        let mut v = self.dot(&a, &b, ieee);
        if add {
            let c = srcs.get(self, st, 2, 2, Ty::Float)?;
            v = self.cursor().ins().fadd(v, c);
        }
        self.write_dst(st, Ty::Float, [Some(v); 4])
    }

    pub(crate) fn lower_crs(&mut self, st: &Instruction) -> LResult<()> {
        let w = self.dst_writes(st);
        let mut srcs = Srcs::default();
        let mut res = [None; 4];
        let idx = [(1, 2), (2, 0), (0, 1)];
        for (k, &(p, q)) in idx.iter().enumerate() {
            if !w[k] {
                continue;
            }
            let ap = srcs.get(self, st, 0, p, Ty::Float)?;
            let bq = srcs.get(self, st, 1, q, Ty::Float)?;
            let aq = srcs.get(self, st, 0, q, Ty::Float)?;
            let bp = srcs.get(self, st, 1, p, Ty::Float)?;
            let x = self.cursor().ins().fmul(ap, bq);
            let y = self.cursor().ins().fmul(aq, bp);
            res[k] = Some(self.cursor().ins().fsub(x, y));
        }
        self.write_dst_skip(st, Ty::Float, res, &[3])
    }

    pub(crate) fn lower_sincos(&mut self, st: &Instruction) -> LResult<()> {
        let w = self.dst_writes(st);
        let mut srcs = Srcs::default();
        let mut res = [None; 4];
        if w[0] || w[1] {
            let x = srcs.get(self, st, 0, 3, Ty::Float)?;
            if w[0] {
                res[0] = Some(self.cursor().ins().fcos(x));
            }
            if w[1] {
                res[1] = Some(self.cursor().ins().fsin(x));
            }
        }
        self.write_dst_skip(st, Ty::Float, res, &[2, 3])
    }

    /// `expp`: from src0.w, `(2^floor(w), w - floor(w), 2^w, 1)` (guide L6836).
    pub(crate) fn lower_expp(&mut self, st: &Instruction) -> LResult<()> {
        let w = self.dst_writes(st);
        let mut res = [None; 4];
        if w[..3].iter().any(|&b| b) {
            let mut srcs = Srcs::default();
            let x = srcs.get(self, st, 0, 3, Ty::Float)?;
            if w[0] || w[1] {
                let fl = self.cursor().ins().ffloor(x);
                if w[0] {
                    res[0] = Some(self.cursor().ins().fexp2(fl));
                }
                if w[1] {
                    res[1] = Some(self.cursor().ins().fsub(x, fl));
                }
            }
            if w[2] {
                res[2] = Some(self.cursor().ins().fexp2(x));
            }
        }
        if w[3] {
            res[3] = Some(self.iconst(ONE));
        }
        self.write_dst(st, Ty::Float, res)
    }

    /// `logp_zeroop(z)`: from src0.w, with `f = log2(w)` (`at_zero` for a zero `w`),
    /// `(floor(f), w / 2^floor(f), f, 1)` (guide L7010).
    pub(crate) fn lower_logp(&mut self, st: &Instruction, at_zero: u32) -> LResult<()> {
        let w = self.dst_writes(st);
        let mut res = [None; 4];
        if w[..3].iter().any(|&b| b) {
            let mut srcs = Srcs::default();
            let x = srcs.get(self, st, 0, 3, Ty::Float)?;
            let lg = self.cursor().ins().flog2(x);
            let lg = self.if_zero(x, at_zero, lg);
            let fl = self.cursor().ins().ffloor(lg);
            res[0] = Some(fl);
            if w[1] {
                let p = self.cursor().ins().fexp2(fl);
                res[1] = Some(self.cursor().ins().fdiv(x, p));
            }
            res[2] = Some(lg);
        }
        if w[3] {
            res[3] = Some(self.iconst(ONE));
        }
        self.write_dst(st, Ty::Float, res)
    }

    /// `mmul_matrix(m)`: component `k` is the legacy dot product of src0 with row `k` of the
    /// matrix that starts at src1 (guide L7091, rows from [`isa_amdil::ast::SrcOperand::row`]); components
    /// past the last row are not results (only a forced 0 or 1 writes them).
    pub(crate) fn lower_mmul(&mut self, st: &Instruction) -> LResult<()> {
        let shape = MATRIX_SHAPES[st.matrix()?];
        let w = self.dst_writes(st);
        let mut srcs = Srcs::default();
        let mut res = [None; 4];
        for (k, slot) in res.iter_mut().enumerate().take(shape.rows) {
            if !w[k] {
                continue;
            }
            let row = st.srcs.get(1).and_then(|s| s.row(k as u32)).ok_or(
                "the matrix of `mmul` must be a temp or constant register (it reads src1 + 1..3)",
            )?;
            let mut a = Vec::with_capacity(shape.len);
            let mut b = Vec::with_capacity(shape.len);
            for c in 0..shape.len {
                a.push(srcs.get(self, st, 0, c, Ty::Float)?);
                b.push(self.read_src(&row, c, Ty::Float)?);
            }
            *slot = Some(self.dot(&a, &b, false));
        }
        let skip: Vec<usize> = (shape.rows..4).collect();
        self.write_dst_skip(st, Ty::Float, res, &skip)
    }

    /// As [`Self::write_dst`] but components in `skip` that the mask writes with a result
    /// are left unwritten (the opcode does not produce them).
    pub(crate) fn write_dst_skip(
        &mut self,
        st: &Instruction,
        ty: Ty,
        res: [Option<Value>; 4],
        skip: &[usize],
    ) -> LResult<()> {
        let Some(d) = st.dsts.first() else {
            return Ok(());
        };
        let mut d2 = d.clone();
        for &k in skip {
            if d2.mask[k] == DstComp::Write {
                d2.mask[k] = DstComp::NoWrite;
            }
        }
        let mut st2 = st.clone();
        st2.dsts[0] = d2;
        self.write_dst(&st2, ty, res)
    }

    pub(crate) fn lower_nrm(&mut self, st: &Instruction) -> LResult<()> {
        let w = self.dst_writes(st);
        if !w.iter().any(|&b| b) {
            return Ok(());
        }
        let n = if st.generic("nrm4").is_some() { 4 } else { 3 };
        let zv = zero_value(st.zeroop());
        let mut srcs = Srcs::default();
        let mut a = Vec::new();
        for k in 0..n {
            a.push(srcs.get(self, st, 0, k, Ty::Float)?);
        }
        let len2 = self.dot(&a, &a, true);
        let r = self.cursor().ins().frsq(len2);
        let factor = self.if_zero(len2, zv, r);
        let mut res = [None; 4];
        for k in 0..4 {
            if w[k] {
                let x = srcs.get(self, st, 0, k, Ty::Float)?;
                res[k] = Some(if k < n {
                    self.cursor().ins().fmul(x, factor)
                } else {
                    x
                });
            }
        }
        self.write_dst(st, Ty::Float, res)
    }

    /// The four float components of sources 0 and 1, and their IEEE `dot4`.
    fn dot4_sources(
        &mut self,
        st: &Instruction,
        srcs: &mut Srcs,
    ) -> LResult<(Vec<Value>, Vec<Value>, Value)> {
        let (mut a, mut b) = (Vec::with_capacity(4), Vec::with_capacity(4));
        for k in 0..4 {
            a.push(srcs.get(self, st, 0, k, Ty::Float)?);
            b.push(srcs.get(self, st, 1, k, Ty::Float)?);
        }
        let d = self.dot(&a, &b, true);
        Ok((a, b, d))
    }

    /// `faceforward`: `s2 * sign(dot4(s0, s1))` per component (IEEE products).
    pub(crate) fn lower_faceforward(&mut self, st: &Instruction) -> LResult<()> {
        let w = self.dst_writes(st);
        if !w.iter().any(|&b| b) {
            return Ok(());
        }
        let mut srcs = Srcs::default();
        let (_, _, d) = self.dot4_sources(st, &mut srcs)?;
        let sign = self.sgn(d);
        let mut res = [None; 4];
        for (k, slot) in res.iter_mut().enumerate() {
            if w[k] {
                let x = srcs.get(self, st, 2, k, Ty::Float)?;
                *slot = Some(self.cursor().ins().fmul(x, sign));
            }
        }
        self.write_dst(st, Ty::Float, res)
    }

    /// `reflect[_normalize]`: `s0 - (2 dot4(s0, s1)) s1`; with `_normalize`
    /// `dot4(s1, s1) s0 - (2 dot4(s0, s1)) s1` (L7277), IEEE products, no fused operations.
    pub(crate) fn lower_reflect(&mut self, st: &Instruction) -> LResult<()> {
        let w = self.dst_writes(st);
        if !w.iter().any(|&b| b) {
            return Ok(());
        }
        let normalize = st.generic("normalize").is_some();
        let mut srcs = Srcs::default();
        let (a, b, d) = self.dot4_sources(st, &mut srcs)?;
        let two = self.iconst(0x4000_0000);
        let f2 = self.cursor().ins().fmul(d, two);
        let norm = normalize.then(|| self.dot(&b, &b, true));
        let mut res = [None; 4];
        for (k, slot) in res.iter_mut().enumerate() {
            if w[k] {
                let x = match norm {
                    Some(n) => self.cursor().ins().fmul(n, a[k]),
                    None => a[k],
                };
                let y = self.cursor().ins().fmul(f2, b[k]);
                *slot = Some(self.cursor().ins().fsub(x, y));
            }
        }
        self.write_dst(st, Ty::Float, res)
    }

    pub(crate) fn lower_dist(&mut self, st: &Instruction) -> LResult<()> {
        let w = self.dst_writes(st);
        let mut srcs = Srcs::default();
        let mut res = [None; 4];
        if w[0] {
            res[0] = Some(self.iconst(ONE));
        }
        if w[1] {
            let a = srcs.get(self, st, 0, 1, Ty::Float)?;
            let b = srcs.get(self, st, 1, 1, Ty::Float)?;
            res[1] = Some(self.cursor().ins().fmul_legacy(a, b));
        }
        if w[2] {
            res[2] = Some(srcs.get(self, st, 0, 2, Ty::Float)?);
        }
        if w[3] {
            res[3] = Some(srcs.get(self, st, 1, 3, Ty::Float)?);
        }
        self.write_dst(st, Ty::Float, res)
    }

    /// Sum of absolute byte differences of `a` and `b`, plus `c`.
    pub(crate) fn sad(&mut self, a: Value, b: Value, c: Value) -> Value {
        let mut s = c;
        for k in 0..4 {
            let w = self.iconst(8);
            let o = self.iconst(8 * k);
            let x = self.cursor().ins().ubfe(w, o, a);
            let y = self.cursor().ins().ubfe(w, o, b);
            let hi = self.cursor().ins().umax(x, y);
            let lo = self.cursor().ins().umin(x, y);
            let d = self.cursor().ins().isub(hi, lo);
            s = self.cursor().ins().iadd(s, d);
        }
        s
    }

    pub(crate) fn lower_sad4(&mut self, st: &Instruction) -> LResult<()> {
        let w = self.dst_writes(st);
        if !w.iter().any(|&b| b) {
            return Ok(());
        }
        let mut srcs = Srcs::default();
        let mut acc = srcs.get(self, st, 2, 0, Ty::Int)?;
        for k in 0..4 {
            let a = srcs.get(self, st, 0, k, Ty::Int)?;
            let b = srcs.get(self, st, 1, k, Ty::Int)?;
            acc = self.sad(a, b, acc);
        }
        self.write_dst(st, Ty::Int, [Some(acc); 4])
    }
}
