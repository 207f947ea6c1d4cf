//! Shared helpers of the interpreter tests: run a snippet in one work-item and read back
//! `r0`, run whole kernels, float/bit conversions. Every expected value in the tests is
//! worked out by hand from the AMD IL guide's text; each case cites its section and line.

#![allow(dead_code)]

use isa_amdil::interp::{self, Dispatch, InterpError, RunStats};

/// Float bits.
pub fn f(x: f32) -> u32 {
    x.to_bits()
}

/// Double bits split (lo, hi).
pub fn dlo(x: f64) -> u32 {
    x.to_bits() as u32
}

/// High dword of a double.
pub fn dhi(x: f64) -> u32 {
    (x.to_bits() >> 32) as u32
}

/// A literal holding a double in .xy and another in .zw.
pub fn dd(a: f64, b: f64) -> [u32; 4] {
    [dlo(a), dhi(a), dlo(b), dhi(b)]
}

/// Builds a one-work-item program: `l0..` from `lits`, then `body`, then r0..r3 stored to
/// uav0 (64 bytes).
pub fn program(lits: &[[u32; 4]], body: &str) -> String {
    let mut s = String::from("il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_raw_uav_id(0)\n");
    for (i, l) in lits.iter().enumerate() {
        s += &format!(
            "dcl_literal l{i}, {:#x}, {:#x}, {:#x}, {:#x}\n",
            l[0], l[1], l[2], l[3]
        );
    }
    s += "dcl_literal l200, 0, 16, 32, 48\n";
    s += body;
    s += "\nuav_raw_store_id(0) mem, l200.x, r0\nuav_raw_store_id(0) mem, l200.y, r1\n";
    s += "uav_raw_store_id(0) mem, l200.z, r2\nuav_raw_store_id(0) mem, l200.w, r3\nend\n";
    s
}

/// Runs a snippet; returns r0..r3.
pub fn try_regs(lits: &[[u32; 4]], body: &str) -> Result<[[u32; 4]; 4], InterpError> {
    let src = program(lits, body);
    let mut d = Dispatch::new([1, 1, 1]);
    d.uavs.insert(0, vec![0; 64]);
    d.fuel = 1_000_000;
    interp::run_source(&src, &mut d)?;
    let w: Vec<u32> = d.uavs[&0]
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let mut r = [[0u32; 4]; 4];
    for i in 0..4 {
        r[i].copy_from_slice(&w[4 * i..4 * i + 4]);
    }
    Ok(r)
}

/// Runs a snippet; returns r0.
pub fn r0(lits: &[[u32; 4]], body: &str) -> [u32; 4] {
    match try_regs(lits, body) {
        Ok(r) => r[0],
        Err(e) => panic!("{body}: {e}"),
    }
}

/// One table entry: citation, literals, body, expected r0.
pub struct Check<'a> {
    pub cite: &'a str,
    pub lits: Vec<[u32; 4]>,
    pub body: &'a str,
    pub want: [u32; 4],
}

/// Shorthand constructor.
pub fn c<'a>(cite: &'a str, lits: &[[u32; 4]], body: &'a str, want: [u32; 4]) -> Check<'a> {
    Check {
        cite,
        lits: lits.to_vec(),
        body,
        want,
    }
}

/// Runs every check and reports all failures at once.
pub fn run_all(checks: &[Check]) {
    let mut bad = Vec::new();
    for k in checks {
        match try_regs(&k.lits, k.body) {
            Ok(r) if r[0] == k.want => {}
            Ok(r) => bad.push(format!(
                "[{}] `{}`: got {:08x?}, want {:08x?}",
                k.cite, k.body, r[0], k.want
            )),
            Err(e) => bad.push(format!("[{}] `{}`: error {e}", k.cite, k.body)),
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} failed:\n{}",
        bad.len(),
        checks.len(),
        bad.join("\n")
    );
}

/// Runs a whole kernel source with the given grid and UAVs.
pub fn run_kernel(
    src: &str,
    grid: [u32; 3],
    uavs: &[(u32, Vec<u8>)],
) -> Result<(Dispatch, RunStats), InterpError> {
    let mut d = Dispatch::new(grid);
    for (id, b) in uavs {
        d.uavs.insert(*id, b.clone());
    }
    d.fuel = 10_000_000;
    let s = interp::run_source(src, &mut d)?;
    Ok((d, s))
}

/// Little-endian words of a buffer.
pub fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Bytes of words.
pub fn bytes(w: &[u32]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}
