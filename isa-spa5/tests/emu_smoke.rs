//! The emulator on ptxas's code for a few CUDA kernels of `tests/cuda/` (element-wise float,
//! divergent branches, loops with break/continue, shared memory with barriers), checked
//! against results computed here, with the hazard checker on: NVIDIA's control words must be
//! hazard-free. The broad validation over the whole corpus is `tests/tests/emu_cuda.rs`.

use ilc_test_support::Rng;
use isa_spa5::emu::{Device, EmuError, LaunchConfig};

fn cubin(name: &str) -> Vec<u8> {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/cuda/cubins")
        .join(format!("{name}.cubin"));
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// A deterministic pseudo-random sequence.
fn rand(seed: u64, n: usize) -> Vec<u32> {
    let mut rng = Rng::new(seed);
    (0..n).map(|_| rng.next_u64() as u32).collect()
}

struct Params(Vec<u8>);
impl Params {
    fn new() -> Params {
        Params(Vec::new())
    }
    fn ptr(mut self, p: u64) -> Params {
        while !self.0.len().is_multiple_of(8) {
            self.0.push(0);
        }
        self.0.extend_from_slice(&p.to_le_bytes());
        self
    }
    fn u32(mut self, v: u32) -> Params {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
}

/// An input buffer holding `a` and an output buffer of `out_len` bytes.
fn input_output(dev: &mut Device, a: &[u32], out_len: u64) -> (u64, u64) {
    let pa = dev.alloc(4 * a.len() as u64);
    let po = dev.alloc(out_len);
    dev.write(pa, &bytes(a)).unwrap();
    (pa, po)
}

fn launch(dev: &mut Device, name: &str, grid: u32, block: u32, params: Params) {
    let cfg = LaunchConfig {
        grid: [grid, 1, 1],
        block: [block, 1, 1],
        params: params.0,
        ..LaunchConfig::default()
    };
    let r = dev
        .launch(&cubin(name), name, &cfg)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(
        r.hazards.is_empty(),
        "{name}: hazards in ptxas code:\n{}",
        r.hazards
            .iter()
            .map(|h| h.to_string())
            .collect::<Vec<_>>()
            .join("\n")
    );
}

#[test]
fn saxpy_fma() {
    let n = 250;
    let x: Vec<f32> = rand(1, n)
        .iter()
        .map(|v| (*v % 2000) as f32 / 7.0 - 100.0)
        .collect();
    let y: Vec<f32> = rand(2, n)
        .iter()
        .map(|v| (*v % 2000) as f32 / 3.0)
        .collect();
    let mut dev = Device::new();
    let px = dev.alloc(4 * n as u64);
    let py = dev.alloc(4 * n as u64);
    dev.write(
        px,
        &bytes(&x.iter().map(|v| v.to_bits()).collect::<Vec<_>>()),
    )
    .unwrap();
    dev.write(
        py,
        &bytes(&y.iter().map(|v| v.to_bits()).collect::<Vec<_>>()),
    )
    .unwrap();
    let alpha = 2.5f32;
    launch(
        &mut dev,
        "saxpy",
        2,
        128,
        Params::new()
            .ptr(py)
            .ptr(px)
            .u32(alpha.to_bits())
            .u32(n as u32),
    );
    let out = words(&dev.read(py, 4 * n as u64).unwrap());
    for i in 0..n {
        assert_eq!(out[i], alpha.mul_add(x[i], y[i]).to_bits(), "element {i}");
    }
}

#[test]
fn divergent_branches() {
    let n = 250usize;
    let a: Vec<u32> = rand(3, n);
    let mut dev = Device::new();
    let (pa, po) = input_output(&mut dev, &a, 4 * n as u64);
    launch(
        &mut dev,
        "branch_divergent",
        2,
        128,
        Params::new().ptr(po).ptr(pa).u32(n as u32),
    );
    let out = words(&dev.read(po, 4 * n as u64).unwrap());
    for i in 0..n {
        let x = a[i] as i32;
        let r = if i & 1 == 1 {
            x.wrapping_mul(x).wrapping_sub(1)
        } else if x >= 0 {
            x.wrapping_add(100)
        } else {
            x.wrapping_neg()
        };
        assert_eq!(out[i] as i32, r, "element {i}");
    }
}

#[test]
fn loop_with_break_and_continue() {
    let n = 250usize;
    let a: Vec<u32> = rand(4, n);
    let limit = 5000i32;
    let mut dev = Device::new();
    let (pa, po) = input_output(&mut dev, &a, 4 * n as u64);
    launch(
        &mut dev,
        "loop_break",
        2,
        128,
        Params::new()
            .ptr(po)
            .ptr(pa)
            .u32(limit as u32)
            .u32(n as u32),
    );
    let out = words(&dev.read(po, 4 * n as u64).unwrap());
    for i in 0..n {
        let cnt = (a[i] & 63) as i32;
        let (mut s, mut last) = (0i32, 0i32);
        for j in 0..cnt {
            if j % 3 == 0 {
                continue;
            }
            s = s.wrapping_add(j.wrapping_mul(i as i32 + 1));
            last = j;
            if s > limit {
                break;
            }
        }
        assert_eq!(
            out[i] as i32,
            s.wrapping_mul(1000).wrapping_add(last),
            "element {i}"
        );
    }
}

#[test]
fn shared_memory_reduction_with_barriers() {
    let n = 1000usize;
    let a: Vec<u32> = rand(5, n);
    let mut dev = Device::new();
    let (pa, po) = input_output(&mut dev, &a, 16);
    launch(
        &mut dev,
        "reduce_shared",
        4,
        256,
        Params::new().ptr(po).ptr(pa).u32(n as u32),
    );
    let out = words(&dev.read(po, 16).unwrap());
    for (b, got) in out.iter().enumerate() {
        let s = (b * 256..(b + 1) * 256)
            .filter(|&i| i < n)
            .fold(0u32, |s, i| s.wrapping_add(a[i]));
        assert_eq!(*got, s, "block {b}");
    }
}

#[test]
fn errors_are_values() {
    let mut dev = Device::new();
    let c = cubin("saxpy");
    let e = dev
        .launch(&c, "nope", &LaunchConfig::default())
        .unwrap_err();
    assert!(matches!(e, EmuError::UnknownKernel(_)));
    // Parameters pointing nowhere: the loads fault with the pc and the address.
    let cfg = LaunchConfig {
        grid: [1, 1, 1],
        block: [32, 1, 1],
        params: Params::new().ptr(0x1000).ptr(0x2000).u32(0).u32(32).0,
        ..LaunchConfig::default()
    };
    let e = dev.launch(&c, "saxpy", &cfg).unwrap_err();
    assert!(matches!(e, EmuError::Memory { .. }), "{e}");
    assert!(
        e.to_string().contains("0x1000") || e.to_string().contains("0x2000"),
        "{e}"
    );
    assert!(dev.launch(&[1, 2, 3], "saxpy", &cfg).is_err());
    let bad = LaunchConfig {
        block: [0, 1, 1],
        ..cfg
    };
    assert!(matches!(
        dev.launch(&c, "saxpy", &bad),
        Err(EmuError::BadLaunch(_))
    ));
}

/// Assembles `text` (a kernel with one pointer parameter at c[0x0][0x140]), runs one thread
/// and returns the first `n` words of the 32-byte buffer it got.
fn run_asm(text: &[&str], n: usize) -> Vec<u32> {
    run_asm_shared(text, n, 0)
}

/// `run_asm` with `shared` bytes of static shared memory.
fn run_asm_shared(text: &[&str], n: usize, shared: u32) -> Vec<u32> {
    use isa_spa5::asm::parse_inst;
    use isa_spa5::Control;
    let prog: Vec<_> = text
        .iter()
        .map(|t| {
            let p = parse_inst(t, 0).unwrap_or_else(|e| panic!("{t}: {e}"));
            (p.inst, Control::stall(15))
        })
        .collect();
    run_program_shared(&prog, 1, n, shared)
}

/// Runs `prog` (a kernel with one pointer parameter at c[0x0][0x140]) as one block of
/// `block` threads and returns the first `n` words of the buffer (at least 32 bytes) it got.
fn run_program(prog: &[(isa_spa5::Inst, isa_spa5::Control)], block: u32, n: usize) -> Vec<u32> {
    run_program_shared(prog, block, n, 0)
}

/// `run_program` with `shared` bytes of static shared memory.
fn run_program_shared(
    prog: &[(isa_spa5::Inst, isa_spa5::Control)],
    block: u32,
    n: usize,
    shared: u32,
) -> Vec<u32> {
    use isa_spa5::cubin::{self, Kernel, Param, Sm};
    let code = isa_spa5::encode_program(prog).expect("encodes");
    let (exit_offsets, s2rctaid_offsets) = cubin::scan_instr_offsets(&code);
    let kernel = Kernel {
        name: "k".into(),
        code,
        num_regs: 16,
        params: vec![Param::new(0, 8)],
        exit_offsets,
        s2rctaid_offsets,
        shared_size: shared,
        shared_align: if shared > 0 { 4 } else { 0 },
        ..Kernel::default()
    };
    let bytes = cubin::write_cubin(Sm::Sm50, [&kernel]).expect("cubin");
    let mut dev = Device::new();
    let out = dev.alloc((4 * n as u64).max(32));
    let cfg = LaunchConfig {
        block: [block, 1, 1],
        params: Params::new().ptr(out).0,
        ..LaunchConfig::default()
    };
    dev.launch(&bytes, "k", &cfg).expect("runs");
    words(&dev.read(out, 4 * n as u64).expect("read"))
}

/// The immediate conversion forms (`F2F_I/F2F_ID/F2I_I/F2I_ID`, which ptxas folds away and the
/// corpus never shows): assembled from text, run, results checked.
#[test]
fn immediate_conversions() {
    let w = run_asm(
        &[
            "MOV R8, c[0x0][0x140]",
            "MOV R9, c[0x0][0x144]",
            "F2I.S32.F64.TRUNC R0, -2.5",
            "F2I.S32.F32.FLOOR R1, -1.5",
            "F2F.F64.F32 R2, 1.5",
            "F2F.F32.F64 R4, -0.75",
            "F2F.F32.F32.CEIL R5, 2.25",
            "STG.E.128 [R8], R0",
            "STG.E.64 [R8+0x10], R4",
            "EXIT",
        ],
        6,
    );
    assert_eq!(w[0] as i32, -2);
    assert_eq!(w[1] as i32, -2);
    assert_eq!(f64::from_bits(w[2] as u64 | (w[3] as u64) << 32), 1.5);
    assert_eq!(f32::from_bits(w[4]), -0.75);
    assert_eq!(f32::from_bits(w[5]), 3.0);
}

/// `IADD3`'s 20-bit immediate is sign-extended: ptxas subtracts 4 from a 64-bit address with
/// `IADD3 .CC` / `IADD3.X` and the immediates 0xffffc / 0xfffff (parboil stencil).
#[test]
fn iadd3_immediate_is_sign_extended() {
    let w = run_asm(
        &[
            "MOV R8, c[0x0][0x140]",
            "MOV R9, c[0x0][0x144]",
            "MOV32I R2, 0x10",
            "MOV32I R3, 0x1",
            "IADD3 R0.CC, R2, 0xffffc, RZ",
            "IADD3.X R1, R3, 0xfffff, RZ",
            "IADD3 R4, R2, 0x7ffff, RZ",
            "STG.E.64 [R8], R0",
            "STG.E [R8+0x8], R4",
            "EXIT",
        ],
        3,
    );
    assert_eq!(w[0], 0xc);
    assert_eq!(w[1], 0x1, "carry out of 0x10 + -4 cancels the high -1");
    assert_eq!(w[2], 0x10 + 0x7ffff);
}

/// IADD with both negation bits set is `.PO`, `a + b + 1` (not `-a - b`): the low half of a
/// 64-bit subtraction `a + ~b + 1`, whose carry feeds `IADD.X`.
#[test]
fn iadd_po_adds_one() {
    let w = run_asm(
        &[
            "MOV R8, c[0x0][0x140]",
            "MOV R9, c[0x0][0x144]",
            "MOV32I R2, 0x5",
            "MOV32I R3, 0xfffffffd",
            "IADD.PO R0.CC, R2, R3",
            "IADD.X R1, RZ, RZ",
            "IADD.PO R4, R2, R2",
            "STG.E.64 [R8], R0",
            "STG.E [R8+0x8], R4",
            "EXIT",
        ],
        3,
    );
    assert_eq!(w[0], 3, "5 + 0xfffffffd + 1 wraps to 3");
    assert_eq!(w[1], 1, "with a carry out");
    assert_eq!(w[2], 11);
}

/// VMNMX (ptxas's form of `min(min(a, b), c)` / clamps): signed and unsigned sources, `.MX`,
/// the secondary operation with Rc and `.SAT`.
#[test]
fn vmnmx_min_max() {
    let w = run_asm(
        &[
            "MOV R8, c[0x0][0x140]",
            "MOV R9, c[0x0][0x144]",
            "MOV32I R2, 0xfffffff0",
            "MOV32I R3, 0x5",
            "MOV32I R4, 0x3",
            "VMNMX.MIN R0, R2, R3, R4",
            "VMNMX.U32.U32.MIN R1, R2, R3, R4",
            "VMNMX.MX.MAX R5, R2, R3, R4",
            "VMNMX.U32.U32.MX R6, R2, R3, R4",
            "VMNMX.MX.ACC R7, R2, R3, R4",
            "STG.E.64 [R8], R0",
            "STG.E.64 [R8+0x8], R5",
            "STG.E [R8+0x10], R7",
            "EXIT",
        ],
        5,
    );
    assert_eq!(w[0] as i32, -16, "min(min(-16, 5), 3)");
    assert_eq!(w[1], 3, "unsigned: min(min(0xfffffff0, 5), 3)");
    assert_eq!(w[2], 5, "max(max(-16, 5), 3)");
    assert_eq!(w[3], 0xffff_fff0, "unsigned max, no secondary op");
    assert_eq!(w[4], 8, "max(-16, 5) + 3");
}

/// `PCNT`/`CONT` (which neither ptxas nor ilc emits for sm_50: both use `BRA` to a loop's
/// latch) and `PBK`/`BRK` under divergence, 32 lanes: lane `l` sums the `j` below
/// `2 + l % 4` for which `l + j` is even, the odd ones skipped by a `CONT`.
#[test]
fn pcnt_cont_under_divergence() {
    use isa_spa5::asm::parse_inst;
    use isa_spa5::inst::Operand;
    use isa_spa5::table::OpKind;
    use isa_spa5::Control;
    // (text, label of the branch target)
    let text: &[(&str, Option<u32>)] = &[
        ("S2R R0, SR_TID.X", None),
        ("MOV R2, RZ", None),
        ("MOV R3, RZ", None),
        ("LOP32I.AND R8, R0, 0x3", None),
        ("IADD32I R8, R8, 0x2", None),
        ("PBK 0x0", Some(17)),
        ("ISETP.GE.AND P0, PT, R3, R8, PT", None), // 6: loop head
        ("@P0 BRK", None),
        ("PCNT 0x0", Some(15)),
        ("IADD R4, R0, R3", None),
        ("LOP32I.AND R4, R4, 0x1", None),
        ("ISETP.NE.AND P1, PT, R4, RZ, PT", None),
        ("@P1 CONT", None),
        ("IADD R2, R2, R3", None),
        ("CONT", None),
        ("IADD32I R3, R3, 0x1", None), // 15: continue point
        ("BRA 0x0", Some(6)),
        ("SHL R5, R0, 0x2", None), // 17: after the loop
        ("IADD R6.CC, R5, c[0x0][0x140]", None),
        ("IADD.X R7, RZ, c[0x0][0x144]", None),
        ("STG.E [R6], R2", None),
        ("EXIT", None),
    ];
    let prog: Vec<_> = text
        .iter()
        .map(|&(t, label)| {
            let mut i = parse_inst(t, 0).unwrap_or_else(|e| panic!("{t}: {e}")).inst;
            if let Some(l) = label {
                for (f, o) in i.form().operands.iter().zip(i.operands.iter_mut()) {
                    if f.kind == OpKind::Rel {
                        *o = Operand::Label(l);
                    }
                }
            }
            (i, Control::stall(15))
        })
        .collect();
    let got = run_program(&prog, 32, 32);
    let want: Vec<u32> = (0..32u32)
        .map(|l| (0..2 + l % 4).filter(|j| (l + j) % 2 == 0).sum())
        .collect();
    assert_eq!(got, want);
}

/// The condition code's overflow and sign flags: `IADD .CC` sets overflow on a signed
/// wrap (0x7fffffff + 1, 0x80000000 - 1), and `CSETP` reads each flag (`OFT`/`OFF`/`SFT`/
/// `SFF`); `I2I .CC` then `CSETP.LT` tests a sign, as ptxas compiles `llabs`.
#[test]
fn condition_code_overflow_and_sign() {
    let w = run_asm(
        &[
            "MOV R8, c[0x0][0x140]",
            "MOV R9, c[0x0][0x144]",
            "MOV32I R2, 0x7fffffff",
            "IADD RZ.CC, R2, 0x1",
            "CSETP.OFT.AND P0, PT, CC, PT",
            "CSETP.SFT.AND P1, PT, CC, PT",
            "SEL R0, RZ, 0x1, !P0",
            "SEL R1, RZ, 0x1, !P1",
            "IADD RZ.CC, R2, -0x1",
            "CSETP.OFF.AND P0, PT, CC, PT",
            "CSETP.SFF.AND P1, PT, CC, PT",
            "SEL R3, RZ, 0x1, !P0",
            "SEL R4, RZ, 0x1, !P1",
            "MOV32I R5, 0x80000000",
            "IADD RZ.CC, R5, -0x1",
            "CSETP.OFT.AND P0, PT, CC, PT",
            "SEL R5, RZ, 0x1, !P0",
            "I2I.S32.S32 RZ.CC, R2",
            "CSETP.LT.AND P0, PT, CC, PT",
            "SEL R6, RZ, 0x1, !P0",
            "MOV32I R7, 0xfffffffe",
            "I2I.S32.S32 RZ.CC, R7",
            "CSETP.LT.AND P0, PT, CC, PT",
            "SEL R7, RZ, 0x1, !P0",
            "STG.E.64 [R8], R0",
            "STG.E [R8+0x8], R3",
            "STG.E [R8+0xc], R5",
            "STG.E.64 [R8+0x10], R6",
            "STG.E [R8+0x18], R4",
            "EXIT",
        ],
        7,
    );
    assert_eq!(
        &w[0..2],
        &[1, 1],
        "0x7fffffff + 1 overflows to a negative value"
    );
    assert_eq!(
        (w[2], w[6]),
        (1, 1),
        "0x7ffffffe: no overflow (OFF), not negative (SFF)"
    );
    assert_eq!(w[3], 1, "0x80000000 - 1 overflows");
    assert_eq!(&w[4..6], &[0, 1], "I2I .CC: 0x7fffffff is not < 0, -2 is");
}

/// Shared-memory addresses without `.E` are 32-bit and wrap: ptxas keeps a negative part of
/// an address in the register and the rest in the offset (`LDS [R2+0x4c4]` with R2 = -0x3c).
#[test]
fn shared_address_wraps_at_32_bits() {
    let w = run_asm_shared(
        &[
            "MOV R8, c[0x0][0x140]",
            "MOV R9, c[0x0][0x144]",
            "MOV32I R0, 0x1234",
            "MOV32I R2, 0xfffffffc",
            "STS [R2+0x14], R0",
            "MOV R3, RZ",
            "LDS.U.32 R1, [R3+0x10]",
            "LDS.U.32 R4, [R2+0x14]",
            "STG.E [R8], R1",
            "STG.E [R8+0x4], R4",
            "EXIT",
        ],
        2,
        64,
    );
    assert_eq!(w, [0x1234, 0x1234]);
}
