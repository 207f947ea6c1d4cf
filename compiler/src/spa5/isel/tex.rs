//! Instruction selection for texture instructions: IR `tex` to `TEX`, `TLD` and `TXQ`.
//!
//! 1-D and 2-D samples and fetches use the short forms `TEXS`/`TLDS` as ptxas does (x and y
//! in two independent registers, results split over two destination pairs); the others
//! use `TEX`/`TLD`/`TXQ`.
//!
//! Each names its texture object handle by the parameter's `c[0x0]` word (the bound forms
//! of `TEXMODE_UNIFIED` code, as ptxas emits for `cudaTextureObject_t` parameters), so no
//! register holds the handle. Coordinates go to a consecutive aligned register group in
//! hardware order (array layer first, then x, y, z); a fetch's mip level is the `Rb` group
//! of `TLD.LL` (`TLD.LZ` when it is the constant 0); the write mask names the channels
//! something reads, whose results form a consecutive group. Samples use `TEX.LZ`: compute kernels have no derivatives and textures one
//! level. The results arrive through a scoreboard like any variable-latency load.

use ilc_passes::ir::{Inst, TexArg, TexKind, TexShape, Type, Value};
use isa_spa5::inst::Operand;
use isa_spa5::mods::{TexChannels, TexDim, TexLod, TexQuery, TexsType};
use isa_spa5::{Inst as MInst, ModKind, Op, Reg};
use smallvec::SmallVec;

use super::{Isel, IselError};
use crate::spa5::target::{Group, SetMod, Slot, TInst, Template, R};

type Vals = SmallVec<[Value; 4]>;

impl Isel<'_> {
    pub(crate) fn select_tex(
        &mut self,
        inst: Inst,
        tex: &TexArg,
        args: &[Value],
    ) -> Result<Vals, IselError> {
        let Some(slot) = self.layout.texture_slot(tex) else {
            return Err(self.unsupported(inst, "texture without a handle parameter"));
        };
        if args.len() != tex.arity() {
            return Err(self.unsupported(inst, "texture operand count"));
        }
        if let Some(r) = self.select_tex_short(inst, tex, args, slot)? {
            return Ok(r);
        }
        let axes = tex.shape.axes();
        let dim = match tex.shape {
            TexShape::D1 | TexShape::Buffer => TexDim::D1,
            TexShape::D1Array => TexDim::Array1D,
            TexShape::D2 => TexDim::D2,
            TexShape::D2Array => TexDim::Array2D,
            TexShape::D3 => TexDim::D3,
        };
        // Operand order of the target instruction: the Ra group, then Rb.
        let mut ops: Vec<Value> = Vec::with_capacity(5);
        let mut rb: Option<Value> = None;
        let mi = match tex.kind {
            TexKind::Query => {
                ops.push(args[0]);
                MInst::build(
                    Op::TXQ,
                    &[R, R, Operand::Imm(slot as i64), Operand::Imm(0xf)],
                )
                .t(TexQuery::Dimension)?
            }
            TexKind::Gather(c) => {
                if tex.shape.is_array() {
                    ops.push(args[axes]);
                }
                ops.extend_from_slice(&args[..axes]);
                MInst::build(
                    Op::TLD4,
                    &[
                        R,
                        R,
                        Operand::Reg(Reg::RZ),
                        Operand::Imm(slot as i64),
                        Operand::Imm(0xf),
                    ],
                )
                .m(ModKind::TexComp, c & 3)
                .t(dim)?
            }
            TexKind::Sample | TexKind::Fetch => {
                if tex.shape.is_array() {
                    ops.push(args[axes]);
                }
                ops.extend_from_slice(&args[..axes]);
                let (op, lod) = if tex.kind == TexKind::Sample {
                    (Op::TEX, TexLod::Lz)
                } else if tex.shape == TexShape::Buffer || self.is_zero(args[args.len() - 1]) {
                    (Op::TLD, TexLod::Lz)
                } else {
                    rb = Some(args[args.len() - 1]);
                    (Op::TLD, TexLod::Ll)
                };
                MInst::build(
                    op,
                    &[
                        R,
                        R,
                        Operand::Reg(Reg::RZ),
                        Operand::Imm(slot as i64),
                        Operand::Imm(0xf),
                    ],
                )
                .t(lod)?
                .t(dim)?
            }
        };
        // Write only the channels something reads (the results are packed: mask bit c set
        // means the next register holds channel c).
        let mask = self.channels_read(inst).max(1);
        let mi = {
            let mut mi = mi;
            let k = if tex.kind == TexKind::Query { 3 } else { 4 };
            mi.operands[k] = Operand::Imm(i64::from(mask));
            if rb.is_some() {
                mi.operands[2] = R;
            }
            mi
        };
        let n_a = ops.len() as u8;
        let mut slots = vec![Slot::Res(0, 0), Slot::Arg(0, 0)];
        if let Some(b) = rb {
            slots.push(Slot::Arg(n_a, 0));
            ops.push(b);
        }
        let mut t = Template::one(TInst::new(mi, &slots));
        let n_r = mask.count_ones() as u8;
        if n_r > 1 {
            t.result_groups.push(Group {
                start: 0,
                len: n_r,
                align: n_r.next_power_of_two(),
            });
        }
        if n_a > 1 {
            t.arg_groups.push(Group {
                start: 0,
                len: n_a,
                align: n_a.next_power_of_two(),
            });
        }
        let got = self.emit(t, &ops, &vec![Type::B32; n_r as usize])?;
        Ok(spread(&got, mask))
    }

    /// The short forms ptxas uses for 1-D/2-D fetches: `TEXS.LZ` (samples) and `TLDS.LZ` /
    /// `TLDS.LL` 1-D (fetches), with x in Ra and y (or the level) in Rb, so the coordinates
    /// need no register group. The channels read pick the form: one or two of them (`R`..`BA`)
    /// fill Rd (second destination RZ), more fill Rd (two) and Rd2 (`RGB`..`RGBA`; the pairs
    /// R+B and G+B, which have no code, read a third channel too). `None`: use the long form.
    fn select_tex_short(
        &mut self,
        inst: Inst,
        tex: &TexArg,
        args: &[Value],
        slot: u32,
    ) -> Result<Option<Vals>, IselError> {
        let two_d = match tex.shape {
            TexShape::D1 | TexShape::Buffer => false,
            TexShape::D2 => true,
            _ => return Ok(None),
        };
        let (op_rz, op, ty, rb) = match tex.kind {
            TexKind::Sample => (
                Op::TEXS_RZ,
                Op::TEXS,
                if two_d {
                    TexsType::Lz2D
                } else {
                    TexsType::Lz1D
                },
                two_d.then(|| args[1]),
            ),
            TexKind::Fetch => {
                let level = (tex.shape != TexShape::Buffer).then(|| args[args.len() - 1]);
                let lz = level.is_none_or(|l| self.is_zero(l));
                match (two_d, lz) {
                    (true, true) => (Op::TLDS_RZ, Op::TLDS, TexsType::Lz2D, Some(args[1])),
                    (false, true) => (Op::TLDS_RZ, Op::TLDS, TexsType::Lz1D, None),
                    (false, false) => (Op::TLDS_RZ, Op::TLDS, TexsType::Ll1D, level),
                    (true, false) => return Ok(None),
                }
            }
            TexKind::Query | TexKind::Gather(_) => return Ok(None),
        };
        let used = self.channels_read(inst);
        // (written channels, name, one destination?)
        let (written, name, single): (u8, TexChannels, bool) = match used {
            0 | 1 => (1, TexChannels::R, true),
            2 => (2, TexChannels::G, true),
            4 => (4, TexChannels::B, true),
            8 => (8, TexChannels::A, true),
            3 => (3, TexChannels::Rg, true),
            9 => (9, TexChannels::Ra, true),
            10 => (10, TexChannels::Ga, true),
            12 => (12, TexChannels::Ba, true),
            5..=7 => (7, TexChannels::Rgb, false),
            11 => (11, TexChannels::Rga, false),
            13 => (13, TexChannels::Rba, false),
            14 => (14, TexChannels::Gba, false),
            _ => (15, TexChannels::Rgba, false),
        };
        let n = written.count_ones() as u8;
        let mi = MInst::build(
            if single { op_rz } else { op },
            &[
                if single { Operand::Reg(Reg::RZ) } else { R },
                R,
                R,
                if rb.is_some() {
                    R
                } else {
                    Operand::Reg(Reg::RZ)
                },
                Operand::Imm(slot as i64),
            ],
        )
        .t(ty)?
        .t(name)?;
        let mut slots = vec![
            if single { Slot::Keep } else { Slot::Res(2, 0) },
            Slot::Res(0, 0),
            Slot::Arg(0, 0),
        ];
        let mut ops = vec![args[0]];
        if let Some(b) = rb {
            slots.push(Slot::Arg(1, 0));
            ops.push(b);
        }
        // A destination pair whose two channels only feed one `concat` (a double stored in
        // a texel, as DGEMM kernels read them) is that b64 value itself.
        let r: Vec<Value> = self.func.dfg.inst_results(inst).to_vec();
        let pairs: &[(usize, usize)] = match written {
            3 => &[(0, 1)],
            15 => &[(0, 1), (2, 3)],
            _ => &[],
        };
        let whole: Vec<bool> = pairs
            .iter()
            .map(|&(a, b)| self.sole_join(inst, r[a], r[b]).is_some())
            .collect();
        if whole.iter().any(|&w| w) {
            // Results: per destination pair one b64 or two b32 (a group).
            let mut tys = Vec::new();
            let mut t = Template::one(TInst::new(mi, &[]));
            let mut dest_slots = Vec::new();
            for &w in &whole {
                let first = tys.len() as u8;
                dest_slots.push(Slot::Res(first, 0));
                if w {
                    tys.push(Type::B64);
                } else {
                    tys.extend([Type::B32, Type::B32]);
                    t.result_groups.push(Group {
                        start: first,
                        len: 2,
                        align: 2,
                    });
                }
            }
            let mut all = vec![
                if single { Slot::Keep } else { dest_slots[1] },
                dest_slots[0],
                Slot::Arg(0, 0),
            ];
            all.extend_from_slice(&slots[3..]);
            t.seq[0] = TInst::new(mi, &all);
            let got = self.emit(t, &ops, &tys)?;
            // Channel values: a fused pair's channels stand for its b64 (only the concat
            // reads them, and it becomes that value). `got` has one value per type in `tys`:
            // one per fused pair, two per other pair.
            let mut chan = Vals::new();
            let mut g = got.iter();
            for (k, &w) in whole.iter().enumerate() {
                let (a, b) = pairs[k];
                if w {
                    let v = *g.next().expect("one b64 result per fused pair");
                    self.fused_pairs.insert(r[a], (r[b], v));
                    chan.extend([v, v]);
                } else {
                    let x = *g.next().expect("two b32 results per pair");
                    let y = *g.next().expect("two b32 results per pair");
                    chan.extend([x, y]);
                }
            }
            while chan.len() < 4 {
                chan.push(chan[0]);
            }
            return Ok(Some(chan));
        }
        let mut t = Template::one(TInst::new(mi, &slots));
        let lo = n.min(2);
        if lo > 1 {
            t.result_groups.push(Group {
                start: 0,
                len: 2,
                align: 2,
            });
        }
        if n > 3 {
            t.result_groups.push(Group {
                start: 2,
                len: 2,
                align: 2,
            });
        }
        let got = self.emit(t, &ops, &vec![Type::B32; n as usize])?;
        Ok(Some(spread(&got, written)))
    }

    /// Whether `v` is the constant 0.
    fn is_zero(&self, v: Value) -> bool {
        self.func.dfg.value_const(v) == Some(0)
    }

    /// The channels of `inst`'s results that something reads (bit c = channel c).
    fn channels_read(&self, inst: Inst) -> u8 {
        let results = self.func.dfg.inst_results(inst);
        (0..4)
            .filter(|&c| self.use_count[results[c]] > 0)
            .fold(0, |m, c| m | 1 << c)
    }
}

/// The four channel values of packed results `got` (channel c is the next result when bit c
/// of `mask` is set); unwritten channels stand for the first result, as nothing reads them.
fn spread(got: &[Value], mask: u8) -> Vals {
    let mut next = got.iter();
    (0..4)
        .map(|c| match mask >> c & 1 {
            1 => next.next().copied().unwrap_or(got[0]),
            _ => got[0],
        })
        .collect()
}
