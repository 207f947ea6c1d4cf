//! A deterministic generator of random, verifier-clean SSA functions, for property tests of
//! the scheduler and the register allocator (and for fuzzing a backend).
//!
//! Shapes covered: random CFGs (a fall-through chain plus random forward edges, loops via
//! back edges, `brif` and `br_table`), block parameters of every type on every block but the
//! entry, values of type `b32`, `b64` and `pred`, long live ranges (operands picked from
//! anywhere in the dominating code, to create pressure), multi-word loads and stores (result
//! and operand groups), `concat` (operand pairs), atomics (early clobbers), barriers, and
//! variable-latency operations.
//!
//! Guarantees: the same seed and [`GenConfig`] give the same function; every function passes
//! [`verify_function`](crate::verifier::verify_function).

use cranelift_entity::{EntityRef, SecondaryMap};

use crate::ir::{
    AtomicOp, BarrierFlags, Block, BlockCall, ControlFlowGraph, DominatorTree, FuncCursor,
    Function, IntCC, MemArg, MemSize, MemSpace, SpecialReg, Type, UavKind, Value,
};
use crate::target::toy_codes;
use ilc_test_support::Rng;

/// Size knobs of the generator.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GenConfig {
    /// Maximum number of blocks.
    pub max_blocks: usize,
    /// Maximum number of instructions per block (terminator excluded).
    pub max_insts: usize,
    /// Largest store in words (4 needs at least 9 GPRs: address, data and its group copy).
    pub max_store_words: u8,
    /// Largest load in words.
    pub max_load_words: u8,
    /// Also emit `Target` instructions of the [`ToyTarget`](crate::target::ToyTarget)
    /// (selected ALU ops, wide loads/stores with register groups).
    pub target_ops: bool,
}

impl Default for GenConfig {
    fn default() -> Self {
        GenConfig {
            max_blocks: 8,
            max_insts: 14,
            max_store_words: 4,
            max_load_words: 4,
            target_ops: false,
        }
    }
}

fn pick_type(rng: &mut Rng) -> Type {
    match rng.index(10) {
        0..=5 => Type::B32,
        6..=7 => Type::B64,
        _ => Type::Pred,
    }
}

/// Generates a random function from `seed`.
pub fn generate(seed: u64, cfg: &GenConfig) -> Function {
    generate_with(Rng::new(seed), format!("rand{seed}"), cfg)
}

/// Generates a function whose every choice is read from `data` (for a coverage-guided
/// fuzzer); any byte string gives a verifier-clean function.
pub fn generate_from_bytes(data: &[u8], cfg: &GenConfig) -> Function {
    generate_with(Rng::from_bytes(data), "fuzz".to_string(), cfg)
}

fn generate_with(mut rng: Rng, name: String, cfg: &GenConfig) -> Function {
    let mut func = Function::new(name);
    func.uavs.insert(0, UavKind::Raw);
    func.group_size = Some([64, 1, 1]);
    let n = 1 + rng.index(cfg.max_blocks.max(1));
    let blocks: Vec<Block> = (0..n).map(|_| func.append_new_block()).collect();
    for &b in &blocks[1..] {
        for _ in 0..rng.index(4) {
            let ty = pick_type(&mut rng);
            func.dfg.append_block_param(b, ty);
        }
    }
    // Successors: fall-through chain, random forward edges, some back edges.
    let mut succs: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, s) in succs.iter_mut().enumerate().take(n - 1) {
        s.push(i + 1);
        let extra = rng.index(3);
        for _ in 0..extra {
            let t = if i > 0 && rng.chance(3) {
                1 + rng.index(i)
            } else {
                i + 1 + rng.index(n - i - 1)
            };
            s.push(t);
        }
    }
    // The CFG is fixed by `succs`; dominators decide which values each block may use.
    // Build terminators with placeholder arguments first to compute dominators.
    for (i, &b) in blocks.iter().enumerate() {
        let mut cur = FuncCursor::new(&mut func).at_end(b);
        match succs[i].len() {
            0 => {
                cur.ins().return_();
            }
            _ => {
                let c = cur.ins().pconst(true);
                let calls: Vec<BlockCall> = succs[i]
                    .iter()
                    .map(|&t| BlockCall::new(blocks[t], &[]))
                    .collect();
                let mut it = calls.into_iter();
                let first = it.next().expect("at least one successor");
                let rest: Vec<BlockCall> = it.collect();
                if rest.is_empty() {
                    cur.ins().jump(first.block, &[]);
                } else if rest.len() == 1 {
                    cur.ins().brif(c, first.block, &[], rest[0].block, &[]);
                } else {
                    let x = cur.ins().iconst(Type::B32, 1);
                    cur.ins().br_table(x, first, rest);
                }
            }
        }
    }
    let cfgraph = ControlFlowGraph::with_function(&func);
    let dt = DominatorTree::with_function(&func, &cfgraph);
    // Remove the placeholder code, keeping only the terminator shapes in `succs`.
    for &b in &blocks {
        while let Some(i) = func.layout.first_inst(b) {
            func.layout.remove_inst(i);
        }
    }
    // Values available at the end of each block (its own plus its dominators').
    let mut avail: SecondaryMap<Block, Vec<Value>> = SecondaryMap::new();
    for &b in dt.rpo() {
        let mut vals: Vec<Value> = match dt.idom(b) {
            Some(d) => avail[d].clone(),
            None => Vec::new(),
        };
        vals.extend_from_slice(func.dfg.block_params(b));
        let mut g = Gen {
            rng: &mut rng,
            vals,
            cfg,
        };
        g.fill(&mut func, b);
        let vals = std::mem::take(&mut g.vals);
        let i = b.index();
        let mut cur = FuncCursor::new(&mut func).at_end(b);
        let mut gen = Gen {
            rng: &mut rng,
            vals,
            cfg,
        };
        let calls: Vec<BlockCall> = succs[i]
            .iter()
            .map(|&t| {
                let tb = blocks[t];
                let tys: Vec<Type> = cur
                    .func
                    .dfg
                    .block_params(tb)
                    .iter()
                    .map(|&p| cur.func.dfg.value_type(p))
                    .collect();
                let args: Vec<Value> = tys.iter().map(|&ty| gen.value(&mut cur, ty)).collect();
                BlockCall::new(tb, &args)
            })
            .collect();
        match calls.len() {
            0 => {
                cur.ins().return_();
            }
            1 => {
                cur.ins().jump(calls[0].block, &calls[0].args);
            }
            2 => {
                let c = gen.value(&mut cur, Type::Pred);
                cur.ins().brif(
                    c,
                    calls[0].block,
                    &calls[0].args,
                    calls[1].block,
                    &calls[1].args,
                );
            }
            _ => {
                let x = gen.value(&mut cur, Type::B32);
                let mut it = calls.into_iter();
                let first = it.next().expect("several calls");
                cur.ins().br_table(x, first, it.collect());
            }
        }
        avail[b] = gen.vals;
    }
    func
}

struct Gen<'r, 'c> {
    rng: &'r mut Rng,
    vals: Vec<Value>,
    cfg: &'c GenConfig,
}

impl Gen<'_, '_> {
    /// A value of type `ty`: an available one (any age) or a fresh constant.
    fn value(&mut self, cur: &mut FuncCursor<'_>, ty: Type) -> Value {
        let cands: Vec<Value> = self
            .vals
            .iter()
            .copied()
            .filter(|&v| cur.func.dfg.value_type(v) == ty)
            .collect();
        if !cands.is_empty() && !self.rng.chance(8) {
            return cands[self.rng.index(cands.len())];
        }
        let v = match ty {
            Type::Pred => cur.ins().pconst(self.rng.chance(2)),
            t => {
                let imm = self.rng.next_u64() & 0xFFFF;
                cur.ins().iconst(t, imm)
            }
        };
        self.vals.push(v);
        v
    }

    fn mem(&mut self, words: u8) -> MemArg {
        MemArg {
            space: MemSpace::Uav(0),
            offset: 4 * self.rng.index(8) as i32,
            size: MemSize::Words(words),
            align: 4,
            inbounds: false,
        }
    }

    fn fill(&mut self, func: &mut Function, b: Block) {
        let mut cur = FuncCursor::new(func).at_end(b);
        let count = self.rng.index(self.cfg.max_insts + 1);
        for _ in 0..count {
            let new: Vec<Value> = match self.rng.index(if self.cfg.target_ops { 19 } else { 16 }) {
                16 => {
                    // A selected ALU op: any operands, one or two results.
                    let x = self.value(&mut cur, Type::B32);
                    let y = self.value(&mut cur, Type::B64);
                    let tys: &[Type] = if self.rng.chance(2) {
                        &[Type::B32]
                    } else {
                        &[Type::B64, Type::Pred]
                    };
                    let i = cur.ins().target(toy_codes::ALU, 0, false, &[x, y], tys);
                    cur.func.dfg.inst_results(i).to_vec()
                }
                17 => {
                    let a = self.value(&mut cur, Type::B64);
                    let n = 1 + self.rng.index(4);
                    let tys = vec![Type::B32; n];
                    let i = cur.ins().target(toy_codes::WIDE_LOAD, 0, false, &[a], &tys);
                    cur.func.dfg.inst_results(i).to_vec()
                }
                18 => {
                    let a = self.value(&mut cur, Type::B64);
                    let n = 1 + self.rng.index(usize::from(self.cfg.max_store_words));
                    let mut args = vec![a];
                    for _ in 0..n {
                        let v = self.value(&mut cur, Type::B32);
                        args.push(v);
                    }
                    cur.ins().target(toy_codes::WIDE_STORE, 0, true, &args, &[]);
                    vec![]
                }
                0 => {
                    let (x, y) = (
                        self.value(&mut cur, Type::B32),
                        self.value(&mut cur, Type::B32),
                    );
                    vec![cur.ins().iadd(x, y)]
                }
                1 => {
                    let (x, y) = (
                        self.value(&mut cur, Type::B32),
                        self.value(&mut cur, Type::B32),
                    );
                    vec![cur.ins().imul(x, y)]
                }
                2 => {
                    let (x, y) = (
                        self.value(&mut cur, Type::B64),
                        self.value(&mut cur, Type::B64),
                    );
                    vec![cur.ins().iadd(x, y)]
                }
                3 => {
                    let (x, y) = (
                        self.value(&mut cur, Type::B32),
                        self.value(&mut cur, Type::B32),
                    );
                    vec![cur.ins().icmp(IntCC::Ult, x, y)]
                }
                4 => {
                    let p = self.value(&mut cur, Type::Pred);
                    let ty = if self.rng.chance(3) {
                        Type::B64
                    } else {
                        Type::B32
                    };
                    let (x, y) = (self.value(&mut cur, ty), self.value(&mut cur, ty));
                    vec![cur.ins().select(p, x, y)]
                }
                5 => {
                    let (x, y) = (
                        self.value(&mut cur, Type::B32),
                        self.value(&mut cur, Type::B32),
                    );
                    vec![cur.ins().concat(x, y)]
                }
                6 => {
                    let x = self.value(&mut cur, Type::B64);
                    if self.rng.chance(2) {
                        vec![cur.ins().lo(x)]
                    } else {
                        vec![cur.ins().hi(x)]
                    }
                }
                7 => {
                    let words = 1 + self.rng.index(usize::from(self.cfg.max_load_words)) as u8;
                    let mem = self.mem(words);
                    let a = self.value(&mut cur, Type::B32);
                    cur.ins().load(mem, Some(a)).to_vec()
                }
                8 => {
                    let words = 1 + self.rng.index(usize::from(self.cfg.max_store_words)) as u8;
                    let mem = self.mem(words);
                    let a = self.value(&mut cur, Type::B32);
                    let data: Vec<Value> = (0..words)
                        .map(|_| self.value(&mut cur, Type::B32))
                        .collect();
                    cur.ins().store(mem, Some(a), &data);
                    vec![]
                }
                9 => {
                    let (x, y) = (
                        self.value(&mut cur, Type::B32),
                        self.value(&mut cur, Type::B32),
                    );
                    let mem = self.mem(1);
                    vec![cur.ins().atomic(AtomicOp::Add, mem, Some(x), &[y])]
                }
                10 => {
                    let x = self.value(&mut cur, Type::B32);
                    vec![cur.ins().frcp(x)]
                }
                11 => {
                    let (x, y) = (
                        self.value(&mut cur, Type::B64),
                        self.value(&mut cur, Type::B64),
                    );
                    vec![cur.ins().dmul(x, y)]
                }
                12 => {
                    let (p, q) = (
                        self.value(&mut cur, Type::Pred),
                        self.value(&mut cur, Type::Pred),
                    );
                    vec![cur.ins().pand(p, q)]
                }
                13 => vec![cur.ins().special(SpecialReg::Tid(0))],
                14 => {
                    cur.ins().barrier(BarrierFlags {
                        threads: true,
                        lds: false,
                        memory: true,
                        gds: false,
                    });
                    vec![]
                }
                _ => {
                    let (x, y, z) = (
                        self.value(&mut cur, Type::B32),
                        self.value(&mut cur, Type::B32),
                        self.value(&mut cur, Type::B32),
                    );
                    vec![cur.ins().ffma(x, y, z)]
                }
            };
            self.vals.extend(new);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verifier::verify_function;

    #[test]
    fn generated_functions_verify() {
        for seed in 0..200 {
            let f = generate(seed, &GenConfig::default());
            if let Err(e) = verify_function(&f) {
                panic!("seed {seed}: {}\n{f}", e.display_with(&f));
            }
        }
    }

    #[test]
    fn deterministic() {
        let a = generate(7, &GenConfig::default()).to_string();
        let b = generate(7, &GenConfig::default()).to_string();
        assert_eq!(a, b);
    }
}
