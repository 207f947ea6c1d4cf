//! Random AMD IL compute kernels for differential testing (like Cranelift's fuzzgen).
//!
//! [`generate`] builds, from a seed, a valid `il_cs_2_0` kernel: inputs loaded from UAV 0 at
//! the work-item's own slot, a random body of integer and float ALU operations (random
//! swizzles, write masks and source modifiers), `if`/`else` nests, counted `whileloop`s with
//! `break_logicalnz` (counting down from a literal, or up to a literal or data-derived bound), LDS exchange between work-items separated by `fence_threads_lds`, R7xx
//! owner-computes LDS with `lds_read_vec_neighborExch` (at the top level, like barriers), UAV
//! loads at in-bounds computed addresses and order-independent atomic adds, and finally every
//! temp folded into the work-item's 64-byte slot of UAV 1. Operations whose results the IL leaves to
//! the implementation (transcendentals, `div`, `sqrt`) are not generated, so outputs must match
//! the interpreter bit for bit.
//!
//! Guarantees: the text parses and validates (`isa_amdil::parse_and_validate`), loops run at
//! most [`MAX_TRIPS`] times, barriers are only at the top level (never in divergent control
//! flow), every temp is written before it is read, and no two work-items write the same
//! dword except through atomics.
//!
//! [`check`] compiles a kernel and compares it with the IL interpreter (what `ilc-fuzz` and
//! the `compile_verify` fuzz target do with each kernel); [`minimize`] shrinks a failing
//! kernel by deleting body statements while a predicate still holds.

use std::fmt::Write;

use ilc::verify::{verify, VerifyError, VerifyOptions};
use ilc::Compiler;
use ilc_test_support::Rng;

/// Most iterations of a generated loop.
pub const MAX_TRIPS: u32 = 4;
/// Temps `r2..r2+TEMPS` hold generated values.
const TEMPS: u32 = 8;
/// First generated temp.
const T0: u32 = 2;

const COMP: [char; 4] = ['x', 'y', 'z', 'w'];

/// Integer ops with (mnemonic, number of sources).
const INT_OPS: &[(&str, usize)] = &[
    ("iadd", 2),
    ("imul", 2),
    ("iand", 2),
    ("ior", 2),
    ("ixor", 2),
    ("ishl", 2),
    ("ishr", 2),
    ("ushr", 2),
    ("imin", 2),
    ("imax", 2),
    ("umin", 2),
    ("umax", 2),
    ("inot", 1),
    ("inegate", 1),
    ("udiv", 2),
    ("umod", 2),
    ("imad", 3),
    ("ieq", 2),
    ("ine", 2),
    ("ilt", 2),
    ("ige", 2),
    ("ult", 2),
    ("uge", 2),
    ("cmov_logical", 3),
    ("ubit_extract", 3),
    ("ibit_extract", 3),
    ("bitalign", 3),
    ("bytealign", 3),
    ("umul_high", 2),
    ("imul_high", 2),
    ("imin3", 3),
    ("imax3", 3),
    ("imed3", 3),
    ("umin3", 3),
    ("umax3", 3),
    ("umed3", 3),
];

/// 64-bit integer ops on register pairs: (mnemonic, number of 64-bit sources, whether a
/// 32-bit shift count follows).
const WIDE_OPS: &[(&str, usize, bool)] = &[
    ("i64add", 2, false),
    ("i64sub", 2, false),
    ("i64mul", 2, false),
    ("u64mul", 2, false),
    ("i64max", 2, false),
    ("i64min", 2, false),
    ("u64max", 2, false),
    ("u64min", 2, false),
    ("u64div", 2, false),
    ("u64mod", 2, false),
    ("i64div", 2, false),
    ("i64mod", 2, false),
    ("i64negate", 1, false),
    ("i64shl", 1, true),
    ("i64shr", 1, true),
    ("u64shr", 1, true),
];

/// What a double-precision op reads besides its `f64` sources, and what it writes.
#[derive(Clone, Copy)]
enum DoubleForm {
    /// `n` doubles in, a double out.
    Arith(usize),
    /// A double and a 32-bit integer (the exponent) in, a double out.
    Ldexp,
    /// Two doubles in, a 32-bit mask out.
    Compare,
    /// A double in, a 32-bit word out (`d2f`, `dtoi`, `dtou`).
    ToFloat,
    /// A 32-bit word in, a double out (`f2d`, `itod`, `utod`).
    FromFloat,
    /// A 32-bit condition and two doubles in, a double out.
    Select,
}

/// Double-precision ops with exact (correctly rounded or exact) results.
const DOUBLE_OPS: &[(&str, DoubleForm)] = &[
    ("dadd", DoubleForm::Arith(2)),
    ("dmul", DoubleForm::Arith(2)),
    ("dmad", DoubleForm::Arith(3)),
    ("dmax", DoubleForm::Arith(2)),
    ("dmin", DoubleForm::Arith(2)),
    ("dfrac", DoubleForm::Arith(1)),
    ("dldexp", DoubleForm::Ldexp),
    ("deq", DoubleForm::Compare),
    ("dne", DoubleForm::Compare),
    ("dge", DoubleForm::Compare),
    ("dlt", DoubleForm::Compare),
    ("d2f", DoubleForm::ToFloat),
    ("f2d", DoubleForm::FromFloat),
    ("dfrexp_mant", DoubleForm::Arith(1)),
    ("dfrexp_exp", DoubleForm::ToFloat),
    ("dtoi", DoubleForm::ToFloat),
    ("dtou", DoubleForm::ToFloat),
    ("itod", DoubleForm::FromFloat),
    ("utod", DoubleForm::FromFloat),
    ("dmovc", DoubleForm::Select),
];

/// Float ops with exact (correctly rounded or exact) results.
const FLOAT_OPS: &[(&str, usize)] = &[
    ("add", 2),
    ("mul_ieee", 2),
    ("mul", 2),
    ("mad", 3),
    ("dp2", 2),
    ("dp3", 2),
    ("dp4", 2),
    ("faceforward", 3),
    ("reflect", 2),
    ("min3", 3),
    ("max3", 3),
    ("med3", 3),
    ("ftoi_flr", 1),
    ("ftoi_rpi", 1),
    ("frexp_mant", 1),
    ("frexp_exp", 1),
    ("min", 2),
    ("max", 2),
    ("frc", 1),
    ("flr", 1),
    ("round_nearest", 1),
    ("round_z", 1),
    ("round_plusinf", 1),
    ("eq", 2),
    ("lt", 2),
    ("ge", 2),
    ("ftoi", 1),
    ("ftou", 1),
    ("itof", 1),
    ("utof", 1),
];

struct Gen {
    rng: Rng,
    out: String,
    depth: usize,
    group: u32,
    lds: bool,
    /// Declares R7xx owner-computes LDS (4 dwords per work-item) for neighbour exchanges.
    owner: bool,
    /// Declares a 2-D float texture (resource 0) and a 1-D buffer texture (resource 1).
    tex: bool,
    lits: Vec<[u32; 4]>,
    budget: u32,
    /// Counters of the enclosing counting-up loops (register numbers, innermost last).
    up_counters: Vec<u32>,
    /// Whether accesses may fall outside their buffers (never with `--assume-in-bounds`).
    wild: bool,
}

impl Gen {
    fn reg(&mut self) -> u32 {
        T0 + self.rng.below(TEMPS as u64) as u32
    }

    fn swizzle(&mut self) -> String {
        if self.rng.chance(3) {
            return String::new();
        }
        let s: String = (0..4).map(|_| self.rng.pick(&COMP)).collect();
        format!(".{s}")
    }

    fn mask(&mut self) -> String {
        let m = 1 + self.rng.below(15) as usize;
        let s: String = (0..4)
            .map(|i| if m >> i & 1 == 1 { COMP[i] } else { '_' })
            .collect();
        format!(".{s}")
    }

    /// A source operand: a temp or a literal, with a swizzle and maybe a modifier.
    fn src(&mut self, float: bool) -> String {
        let base = if self.rng.chance(4) {
            format!("l{}", self.rng.below(self.lits.len() as u64))
        } else {
            format!("r{}", self.reg())
        };
        let sw = self.swizzle();
        let m = match self.rng.below(8) {
            0 if float => "_abs",
            1 => "_neg(xyzw)",
            _ => "",
        };
        // A modifier needs an explicit swizzle position in the printed form.
        let sw = if !m.is_empty() && sw.is_empty() {
            ".xyzw".to_string()
        } else {
            sw
        };
        format!("{base}{sw}{m}")
    }

    fn line(&mut self, s: &str) {
        for _ in 0..self.depth {
            self.out.push_str("    ");
        }
        self.out.push_str(s);
        self.out.push('\n');
    }

    /// A 64-bit source: a temp or literal pair (any two components, low word first).
    fn wide_src(&mut self) -> String {
        let base = if self.rng.chance(4) {
            format!("l{}", self.rng.below(self.lits.len() as u64))
        } else {
            format!("r{}", self.reg())
        };
        let (lo, hi) = (self.rng.pick(&COMP), self.rng.pick(&COMP));
        format!("{base}.{lo}{hi}")
    }

    /// A double-precision op; a double source may carry `_neg` or `_abs`.
    fn double_alu(&mut self) {
        let (op, form) = self.rng.pick(DOUBLE_OPS);
        let d = self.reg();
        let pair = if self.rng.chance(2) { "xy" } else { "zw" };
        let word = self.rng.pick(&COMP);
        let double = |g: &mut Self| {
            let s = g.wide_src();
            match g.rng.below(8) {
                0 => format!("{s}_neg({})", &s[s.len() - 2..]),
                1 => format!("{s}_abs"),
                _ => s,
            }
        };
        let word_src = |g: &mut Self| format!("r{}.{}", g.reg(), g.rng.pick(&COMP));
        let (dst, srcs) = match form {
            DoubleForm::Arith(n) => (pair.to_string(), (0..n).map(|_| double(self)).collect()),
            DoubleForm::Ldexp => (pair.to_string(), vec![double(self), word_src(self)]),
            DoubleForm::Compare => (word.to_string(), vec![double(self), double(self)]),
            DoubleForm::ToFloat => (word.to_string(), vec![double(self)]),
            DoubleForm::FromFloat => (pair.to_string(), vec![word_src(self)]),
            DoubleForm::Select => {
                let c = word_src(self);
                (pair.to_string(), vec![c, double(self), double(self)])
            }
        };
        self.line(&format!("{op} r{d}.{dst}, {}", srcs.join(", ")));
    }

    /// A 64-bit integer op writing the `.xy` or `.zw` pair of a temp.
    fn wide_alu(&mut self) {
        let (op, n, count) = self.rng.pick(WIDE_OPS);
        let d = self.reg();
        let half = if self.rng.chance(2) { "xy" } else { "zw" };
        let mut srcs: Vec<String> = (0..n).map(|_| self.wide_src()).collect();
        if count {
            let c = format!("r{}.{}", self.reg(), self.rng.pick(&COMP));
            srcs.push(c);
        }
        self.line(&format!("{op} r{d}.{half}, {}", srcs.join(", ")));
    }

    fn alu(&mut self) {
        if self.rng.chance(12) {
            return self.wide_alu();
        }
        if self.rng.chance(12) {
            return self.double_alu();
        }
        let float = self.rng.chance(3);
        let (op, n) = if float {
            self.rng.pick(FLOAT_OPS)
        } else {
            self.rng.pick(INT_OPS)
        };
        let d = self.reg();
        let mask = self.mask();
        let srcs: Vec<String> = (0..n).map(|_| self.src(float)).collect();
        let sat = if float && matches!(op, "add" | "mul_ieee" | "mad") && self.rng.chance(6) {
            "_sat"
        } else {
            ""
        };
        self.line(&format!("{op} r{d}{mask}{sat}, {}", srcs.join(", ")));
    }

    fn statement(&mut self) {
        if self.budget == 0 {
            return;
        }
        self.budget -= 1;
        match self.rng.below(20) {
            0 | 1 if self.depth < 3 => {
                let c = self.reg();
                let comp = self.rng.pick(&COMP);
                self.line(&format!("if_logicalnz r{c}.{comp}"));
                self.depth += 1;
                for _ in 0..1 + self.rng.below(4) {
                    self.statement();
                }
                if self.rng.chance(2) {
                    self.depth -= 1;
                    self.line("else");
                    self.depth += 1;
                    for _ in 0..1 + self.rng.below(3) {
                        self.statement();
                    }
                }
                self.depth -= 1;
                self.line("endif");
            }
            2 if self.depth < 3 && self.rng.below(2) == 0 => {
                // Counting up: `i = start; while !(i >= n) { ..; i += step }`, signed or
                // unsigned, with `n` a literal or taken from data (`r & 7`, divergent), the
                // shape loop unrolling handles (trip counts 0..=7).
                let ctr = 10 + self.depth as u32;
                let bound = 13 + self.depth as u32;
                let start = self.rng.below(3) as u32;
                let step = 1 + self.rng.below(2) as u32;
                let ls = self.lit([start, step, 7, 0]);
                if self.rng.below(2) == 0 {
                    let src = self.reg();
                    self.line(&format!("iand r{bound}.x, r{src}.x, l{ls}.z"));
                } else {
                    let v = self.rng.below(8) as u32;
                    let n = self.lit([v, 0, 0, 0]);
                    self.line(&format!("mov r{bound}.x, l{n}.x"));
                }
                let cmp = if self.rng.below(2) == 0 { "ige" } else { "uge" };
                self.line(&format!("mov r{ctr}.x, l{ls}.x"));
                self.line("whileloop");
                self.depth += 1;
                self.line(&format!("{cmp} r{ctr}.y, r{ctr}.x, r{bound}.x"));
                self.line(&format!("break_logicalnz r{ctr}.y"));
                self.up_counters.push(ctr);
                for _ in 0..1 + self.rng.below(4) {
                    self.statement();
                }
                self.up_counters.pop();
                self.line(&format!("iadd r{ctr}.x, r{ctr}.x, l{ls}.y"));
                self.depth -= 1;
                self.line("endloop");
            }
            2 if self.depth < 3 => {
                // Counted loop: r10.x = trips, decremented each iteration.
                let trips = 1 + self.rng.below(MAX_TRIPS as u64);
                let ctr = 10 + self.depth as u32;
                let lt = self.lit([trips as u32, 0, 0, 0]);
                let lz = self.lit([0, 0, 0, 0]);
                let lm = self.lit([u32::MAX, 0, 0, 0]);
                self.line(&format!("mov r{ctr}.x, l{lt}.x"));
                self.line("whileloop");
                self.depth += 1;
                self.line(&format!("ieq r{ctr}.y, r{ctr}.x, l{lz}.x"));
                self.line(&format!("break_logicalnz r{ctr}.y"));
                for _ in 0..1 + self.rng.below(4) {
                    self.statement();
                }
                self.line(&format!("iadd r{ctr}.x, r{ctr}.x, l{lm}.x"));
                self.depth -= 1;
                self.line("endloop");
            }
            3 | 7 if !self.up_counters.is_empty() && self.rng.chance(2) => self.affine_load(),
            3 if self.rng.chance(2) => {
                // In-bounds load from UAV 0: (value & 63) * 4.
                let d = self.reg();
                let a = self.reg();
                let comp = self.rng.pick(&COMP);
                let l = self.lit([63, 2, 0, 0]);
                self.line(&format!("iand r{a}.{comp}, r{a}.{comp}, l{l}.x"));
                self.line(&format!("ishl r{a}.{comp}, r{a}.{comp}, l{l}.y"));
                self.line(&format!("uav_raw_load_id(0) r{d}.x, r{a}.{comp}"));
            }
            3 => {
                // In-bounds loads from UAV 0 at `(y - z) + c`, with y, z in [0, 252] and c in
                // [256, 268]: the sum `y - z` is often negative (wraps as 32 bits), the address
                // never is; neighbours share `y - z`.
                let d = self.reg();
                let (a, b) = (self.reg(), self.reg());
                let comp = self.rng.pick(&COMP);
                let l = self.lit([63, 2, 256, 4]);
                self.line(&format!("iand r16.x, r{a}.{comp}, l{l}.x"));
                self.line(&format!("ishl r16.x, r16.x, l{l}.y"));
                self.line(&format!("iand r16.y, r{b}.{comp}, l{l}.x"));
                self.line(&format!("ishl r16.y, r16.y, l{l}.y"));
                self.line("inegate r16.y, r16.y");
                self.line("iadd r16.x, r16.x, r16.y");
                self.line(&format!("iadd r16.z, r16.x, l{l}.z"));
                self.line(&format!("uav_raw_load_id(0) r{d}.x, r16.z"));
                self.line(&format!("iadd r16.z, r16.z, l{l}.w"));
                self.line(&format!("uav_raw_load_id(0) r{d}.y, r16.z"));
            }
            5 | 6 if self.tex => {
                // Texture reads: a sample at arbitrary float coordinates (texel space: any
                // bits, the sampler's addressing decides), an integer fetch mostly inside the
                // texture, or the size.
                let d = self.reg();
                let a = self.reg();
                let sw = self.swizzle();
                match self.rng.below(4) {
                    0 | 1 => {
                        let s = self.rng.below(2);
                        self.line(&format!("sample_resource(0)_sampler({s}) r{d}, r{a}{sw}"));
                    }
                    2 => {
                        let l = self.lit([15, 15, 0, 0]);
                        let (res, mask) = if self.rng.chance(2) {
                            (0, "xy00")
                        } else {
                            (1, "x000")
                        };
                        self.line(&format!("iand r16, r{a}, l{l}.xyzw"));
                        self.line(&format!("load_resource({res}) r{d}, r16.{mask}"));
                    }
                    _ => {
                        let l = self.lit([0, 0, 0, 0]);
                        self.line(&format!("resinfo_resource(0)_uint r{d}, l{l}.x"));
                    }
                }
            }
            4 => {
                // Order-independent atomic add into one of 16 counters of UAV 2.
                let a = self.reg();
                let v = self.reg();
                let l = self.lit([15, 2, 0, 0]);
                self.line(&format!("iand r16.x, r{a}.x, l{l}.x"));
                self.line(&format!("ishl r16.x, r16.x, l{l}.y"));
                self.line(&format!("uav_add_id(2) r16.x, r{v}.y"));
            }
            8 if self.rng.chance(3) => self.double_op(),
            _ => self.alu(),
        }
    }

    /// One f64 operation (`dadd`, `dmul`, `ddiv`, `dmad`) on doubles made from floats
    /// (`f2d`), converted back with `d2f`: the operands are normal, zero, infinite or NaN (no
    /// subnormals: float denormals flush), so quotients take both sides of the division's
    /// range split, in divergent code too.
    fn double_op(&mut self) {
        let d = self.reg();
        let dc = self.rng.pick(&COMP);
        for half in ["xy", "zw"] {
            let src = self.reg();
            let c = self.rng.pick(&COMP);
            self.line(&format!("f2d r17.{half}, r{src}.{c}"));
        }
        match self.rng.pick(&["dadd", "dmul", "ddiv", "ddiv", "dmad"]) {
            "dmad" => self.line("dmad r17.xy, r17.xy, r17.zw, r17.xy"),
            op => self.line(&format!("{op} r17.xy, r17.xy, r17.zw")),
        }
        self.line(&format!("d2f r{d}.{dc}, r17.xy"));
    }

    /// A load from UAV 0 at `base + k * i`, `i` the counter of an enclosing counting-up loop:
    /// the shape loop versioning proves in range once for the whole loop. In bounds
    /// (`(x & 63) * 4` plus at most `12 * 14`, inside UAV 0's 1 KiB at least) unless `wild`,
    /// which adds bases anywhere (near 2^32 and near the buffer's end included), coefficients
    /// that wrap and coefficients that are data.
    fn affine_load(&mut self) {
        let d = self.reg();
        let b = self.reg();
        let comp = self.rng.pick(&COMP);
        let ctr = self.rng.pick(&self.up_counters.clone());
        let k = self.rng.pick(&[4u32, 8, 12]);
        let l = self.lit([63, 2, k, 0x4000_0004]);
        let variant = if self.wild { self.rng.below(5) } else { 0 };
        match variant {
            // A base near 2^32 or near the end of the buffer, or any data.
            1 => {
                let near = self
                    .rng
                    .pick(&[0xffff_fff0u32, 0xffff_fffc, 0x3f0, 0x400, 0x7fff_fffc]);
                let n = self.lit([near, 0, 0, 0]);
                self.line(&format!("mov r16.w, l{n}.x"));
            }
            2 => self.line(&format!("mov r16.w, r{b}.{comp}")),
            _ => {
                self.line(&format!("iand r16.w, r{b}.{comp}, l{l}.x"));
                self.line(&format!("ishl r16.w, r16.w, l{l}.y"));
            }
        }
        match variant {
            // A coefficient that wraps the address around 2^32 within a few iterations.
            3 => self.line(&format!("imad r16.w, r{ctr}.x, l{l}.w, r16.w")),
            // A coefficient from data (loop-variant when the register changes in the loop).
            4 => {
                let c = self.reg();
                self.line(&format!("iand r16.z, r{c}.x, l{l}.x"));
                self.line(&format!("imad r16.w, r{ctr}.x, r16.z, r16.w"));
            }
            _ => self.line(&format!("imad r16.w, r{ctr}.x, l{l}.z, r16.w")),
        }
        self.line(&format!("uav_raw_load_id(0) r{d}.x, r16.w"));
    }

    fn lit(&mut self, v: [u32; 4]) -> usize {
        if let Some(i) = self.lits.iter().position(|l| *l == v) {
            return i;
        }
        self.lits.push(v);
        self.lits.len() - 1
    }

    /// R7xx FFT transpose: every work-item writes a vector to its own area, then reads the
    /// area of itself or of a lane of its quad's neighbourhood with `_neighborExch`.
    fn owner_exchange(&mut self) {
        let v = self.reg();
        let d = self.reg();
        let mask = self.mask();
        let l = self.lit([63, 0, 0, 0]);
        let x = self.rng.below(8) as u32;
        let k = self.lit([x, 0, 0, 0]);
        self.line(&format!("lds_write_vec mem, r{v}"));
        self.line("fence_threads_lds");
        self.line(&format!("ixor r13.x, r1.x, l{k}.x"));
        self.line(&format!("iand r13.x, r13.x, l{l}.x"));
        self.line(&format!("mov r13.y, l{l}.y"));
        self.line(&format!("lds_read_vec_neighborExch r{d}{mask}, r13.xy"));
        self.line("fence_threads_lds");
    }

    fn lds_exchange(&mut self) {
        // Each work-item stores a value at its slot, waits, and reads its neighbour's.
        let v = self.reg();
        let d = self.reg();
        let l = self.lit([2, 1, 0, 0]);
        let _ = self.group;
        self.line(&format!("ishl r13.x, r1.x, l{l}.x"));
        self.line(&format!("lds_store_id(0) r13.x, r{v}.x"));
        self.line("fence_threads_lds");
        self.line(&format!("ixor r13.y, r1.x, l{l}.y"));
        self.line(&format!("ishl r13.y, r13.y, l{l}.x"));
        self.line(&format!("lds_load_id(0) r{d}.x, r13.y"));
        self.line("fence_threads_lds");
    }
}

/// A random valid IL kernel from `seed` with about `size` statements; some of its accesses
/// may fall outside their buffers (IL's rules: loads read 0, stores are dropped).
pub fn generate(seed: u64, size: u32) -> String {
    generate_with(Rng::new(seed), &format!("seed {seed}"), size, true)
}

/// As [`generate`], with every access inside its buffer (for `--assume-in-bounds`).
pub fn generate_in_bounds(seed: u64, size: u32) -> String {
    generate_with(Rng::new(seed), &format!("seed {seed}"), size, false)
}

/// As [`generate`] (`wild`) or [`generate_in_bounds`], every choice read from `data`: for a
/// coverage-guided fuzzer, whose mutations of the bytes then change the program's shape.
/// Any byte string gives a valid kernel (choices read as 0 once the bytes run out).
pub fn generate_from_bytes(data: &[u8], size: u32, wild: bool) -> String {
    generate_with(Rng::from_bytes(data), "fuzzer bytes", size, wild)
}

fn generate_with(rng: Rng, origin: &str, size: u32, wild: bool) -> String {
    let mut g = Gen {
        rng,
        out: String::new(),
        depth: 0,
        group: 0,
        lds: false,
        owner: false,
        tex: false,
        lits: Vec::new(),
        budget: size,
        up_counters: Vec::new(),
        wild,
    };
    g.group = g.rng.pick(&[32, 64, 128]);
    g.lds = g.rng.chance(2);
    g.owner = g.rng.chance(4);
    g.tex = g.rng.chance(3);
    // Body first (literals are collected while generating), header after.
    // Inputs: temp k = the 16 bytes at UAV 0 offset tid * 16 + k * 16.
    let l16 = g.lit([4, 16, 0, 0]);
    g.line(&format!("ishl r0.y, r0.x, l{l16}.x"));
    for k in 0..TEMPS {
        let lk = g.lit([k * 16, 0, 0, 0]);
        g.line(&format!("iadd r0.z, r0.y, l{lk}.x"));
        g.line(&format!("uav_raw_load_id(0) r{}, r0.z", T0 + k));
    }
    let mut top = 0;
    while g.budget > 0 {
        if g.lds && top % 8 == 7 {
            g.lds_exchange();
        } else if g.owner && top % 8 == 3 {
            g.owner_exchange();
        } else {
            g.statement();
        }
        top += 1;
    }
    // Outputs: 64 bytes per work-item at UAV 1 offset tid * 64, folding the temps pairwise.
    let lslot = g.lit([64, 16, 0, 0]);
    g.line(&format!("imul r0.w, r0.x, l{lslot}.x"));
    for k in 0..TEMPS / 2 {
        let (a, b) = (T0 + k, T0 + k + TEMPS / 2);
        g.line(&format!("ixor r{a}, r{a}, r{b}"));
        g.line(&format!("uav_raw_store_id(1) mem.xyzw, r0.w, r{a}"));
        g.line(&format!("iadd r0.w, r0.w, l{lslot}.y"));
    }
    let body = std::mem::take(&mut g.out);
    let mut h = String::new();
    let _ = writeln!(h, "; generated by ilc-tools ilgen, {origin}");
    h.push_str("il_cs_2_0\n");
    let _ = writeln!(h, "dcl_num_thread_per_group {}, 1, 1", g.group);
    h.push_str("dcl_raw_uav_id(0)\ndcl_raw_uav_id(1)\ndcl_raw_uav_id(2)\n");
    if g.lds {
        let _ = writeln!(h, "dcl_lds_id(0) {}", 4 * g.group);
    }
    if g.owner {
        h.push_str("dcl_lds_size_per_thread 4\ndcl_lds_sharing_mode _wavefrontRel\n");
    }
    if g.tex {
        h.push_str(
            "dcl_resource_id(0)_type(2d,unnorm)_fmtx(float)_fmty(float)_fmtz(float)_fmtw(float)\n",
        );
        h.push_str("dcl_resource_id(1)_type(buffer)_fmtx(uint)_fmty(uint)_fmtz(uint)_fmtw(uint)\n");
    }
    for (i, l) in g.lits.iter().enumerate() {
        let _ = writeln!(
            h,
            "dcl_literal l{i}, {:#x}, {:#x}, {:#x}, {:#x}",
            l[0], l[1], l[2], l[3]
        );
    }
    h.push_str("mov r0.x, vAbsTidFlat.x\nmov r1.x, vTidInGrpFlat.x\n");
    for k in 10..14 {
        let _ = writeln!(h, "mov r{k}, l{l16}.wwww");
    }
    h.push_str(&body);
    h.push_str("end\n");
    h
}

/// Shrinks `source` by deleting body lines (and whole `if`/`whileloop` blocks) while `still`
/// holds for the smaller text; returns the smallest text found.
pub fn minimize(source: &str, still: &mut dyn FnMut(&str) -> bool) -> String {
    let mut lines: Vec<String> = source.lines().map(str::to_string).collect();
    let protected = |l: &str| {
        let t = l.trim_start();
        t.starts_with("dcl_")
            || t.starts_with("il_")
            || t == "end"
            || t.starts_with("uav_raw_store_id(1)")
            || t.starts_with("ixor r")
            || t.starts_with(';')
            || t.starts_with("mov r0.x")
            || t.starts_with("mov r1.x")
    };
    let mut changed = true;
    while changed {
        changed = false;
        let mut i = 0;
        while i < lines.len() {
            if protected(&lines[i]) {
                i += 1;
                continue;
            }
            // A block opener takes its whole block with it.
            let t = lines[i].trim_start().to_string();
            let end = if t.starts_with("if_") || t == "whileloop" {
                let mut d = 0i32;
                let mut j = i;
                loop {
                    let u = lines[j].trim_start();
                    if u.starts_with("if_") || u == "whileloop" {
                        d += 1;
                    }
                    if u == "endif" || u == "endloop" {
                        d -= 1;
                    }
                    if d == 0 || j + 1 >= lines.len() {
                        break j;
                    }
                    j += 1;
                }
            } else if t == "else" || t == "endif" || t == "endloop" {
                i += 1;
                continue;
            } else {
                i
            };
            let mut trial = lines.clone();
            trial.drain(i..=end);
            let text = trial.join("\n") + "\n";
            if still(&text) {
                lines = trial;
                changed = true;
            } else {
                i += 1;
            }
        }
    }
    lines.join("\n") + "\n"
}

/// The outcome of [`check`]ing one kernel.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Compiled, and the outputs match.
    Pass,
    /// The compiler reports an operation it does not support.
    Unsupported,
    /// A mismatch, a crash of the emulated code or another compile error.
    Fail(String),
}

/// Compiles `src` with `compiler` and compares the emulated code with the IL interpreter on
/// `dispatches` random dispatches from `seed` (2 groups each); an unsupported operation is
/// [`Outcome::Unsupported`], not a failure.
pub fn check(compiler: &Compiler, src: &str, dispatches: u32, seed: u64) -> Outcome {
    let opts = VerifyOptions {
        dispatches,
        seed,
        grid: [2, 1, 1],
        ..VerifyOptions::default()
    };
    match verify(compiler, src.as_bytes(), &opts) {
        Ok(r) if r.passed() => Outcome::Pass,
        Ok(r) => Outcome::Fail(r.to_string()),
        Err(VerifyError::Compile(d)) => {
            let text = d.to_string();
            if text.contains("not supported") || text.contains("unsupported") {
                Outcome::Unsupported
            } else {
                Outcome::Fail(format!("compile error: {text}"))
            }
        }
        Err(e) => Outcome::Fail(e.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_kernels_validate_and_run_in_the_interpreter() {
        for seed in 0..300 {
            let src = generate(seed, 30);
            let (prog, diags) = isa_amdil::parse_and_validate(&src);
            let errors: Vec<_> = diags.iter().filter(|d| d.is_error()).collect();
            assert!(
                prog.is_some() && errors.is_empty(),
                "seed {seed}: {errors:?}\n{src}"
            );
            let mut d = isa_amdil::interp::Dispatch::new([2, 1, 1]);
            for id in 0..3 {
                d.uavs.insert(id, vec![7; 1 << 16]);
            }
            for (id, w, h) in [(0, 8, 8), (1, 16, 1)] {
                d.textures.insert(
                    id,
                    isa_amdil::interp::texture::Texture {
                        width: w,
                        height: h,
                        depth: 1,
                        channels: 4,
                        format: isa_amdil::interp::texture::TexelFormat::F32,
                        data: vec![9; (w * h * 16) as usize],
                    },
                );
            }
            d.fuel = 10_000_000;
            if let Err(e) = isa_amdil::interp::run_source(&src, &mut d) {
                panic!("seed {seed}: {e}\n{src}");
            }
        }
    }

    #[test]
    fn generation_is_deterministic_and_varied() {
        assert_eq!(generate(5, 20), generate(5, 20));
        assert_ne!(generate(5, 20), generate(6, 20));
        // Every statement kind shows up somewhere in a few seeds (texture reads included).
        let all: String = (0..60).map(|s| generate(s, 30)).collect();
        for op in [
            "sample_resource(0)",
            "load_resource(0)",
            "load_resource(1)",
            "resinfo_resource(0)",
            "uav_add_id(2)",
            "lds_load_id(0)",
            "lds_read_vec_neighborExch",
            "whileloop",
            "ddiv r17.xy",
            "dmad r17.xy",
            "d2f r",
        ] {
            assert!(all.contains(op), "no generated kernel uses {op}");
        }
    }

    #[test]
    fn minimize_keeps_the_property() {
        let src = generate(3, 40);
        let small = minimize(&src, &mut |t| t.contains("uav_raw_store_id(1)"));
        assert!(small.lines().count() < src.lines().count());
        assert!(small.contains("uav_raw_store_id(1)"));
    }
}
