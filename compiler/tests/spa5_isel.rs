//! Instruction-selection and emission patterns of the SPA 5.0 backend, checked on the plain
//! listing of small IR kernels: XMAD multiplies, LEA/LEA.HI.X addressing with folded
//! offsets, bounds checks against the size parameter, LDC for indexed constant buffers,
//! the read-only load path, and SSY/SYNC reconvergence (diamonds, loops with breaks, nested
//! regions) versus plain branches on uniform conditions.

use ilc::spa5::{compile, Spa5Options, Spa5Output};
use ilc_passes::ir::parse_function_text;

fn build(text: &str, opts: &Spa5Options) -> Spa5Output {
    let f = parse_function_text(text).unwrap_or_else(|e| panic!("parse: {e:?}"));
    compile(&f, opts).unwrap_or_else(|e| panic!("compile: {e}"))
}

fn count(listing: &str, needle: &str) -> usize {
    listing.lines().filter(|l| l.contains(needle)).count()
}

fn in_bounds() -> Spa5Options {
    Spa5Options {
        assume_in_bounds: true,
        ..Default::default()
    }
}

const MUL: &str = "kernel %mul {
    group_size 64, 1, 1
    uav0 = raw
block0:
    v10 = special tid.x
    v0 = load.b32 uav0[v10]
    v1 = load.b32 uav0[v10+256]
    v2 = imul v0, v1
    v3 = iconst.b32 0x64
    v4 = imul v0, v3
    v5 = iadd v2, v4
    store.b32 uav0[v10], v5
    return
}";

/// Factors proven below 2^16 (thread ids in a 64 x 64 group) multiply in one XMAD; with one
/// such factor, two.
#[test]
fn short_factors_take_fewer_xmads() {
    let text = "kernel %short {
    group_size 64, 64, 1
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = special tid.y
    v2 = imul v0, v1
    v3 = load.b32 uav0[v0]
    v4 = imul v3, v1
    v5 = iadd v2, v4
    store.b32 uav0[v0], v5
    return
}";
    let out = build(text, &in_bounds());
    let l = &out.listing();
    assert_eq!(count(l, "XMAD"), 3, "{l}");
    assert_eq!(count(l, "XMAD.MRG"), 0, "{l}");
    assert_eq!(count(l, "XMAD.PSL R"), 1, "{l}");
}

#[test]
fn multiply_is_xmad_sequence_with_short_form_for_16_bit_constants() {
    let out = build(MUL, &in_bounds());
    let l = &out.listing();
    assert_eq!(count(l, "XMAD.MRG"), 1, "{l}");
    assert_eq!(count(l, "XMAD.PSL.CBCC"), 1, "{l}");
    // The constant 100 multiply: XMAD + XMAD.PSL, no MRG.
    assert_eq!(count(l, "XMAD.PSL R") + count(l, "XMAD.PSL.CBCC"), 2, "{l}");
    assert!(l.contains(", 0x64, "), "{l}");
    assert_eq!(count(l, "XMAD"), 5, "{l}");
}

const STORE: &str = "kernel %st {
    group_size 64, 1, 1
    uav0 = raw
    uav1 = raw
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x2
    v2 = ishl v0, v1
    v3 = load.b32 uav1[v2+8]
    store.b32 uav0[v2+16], v3
    return
}";

#[test]
fn uav_addressing_is_lea_pair_with_folded_offset() {
    let out = build(STORE, &in_bounds());
    let l = &out.listing();
    assert!(l.contains(".CC") && l.contains("LEA R"), "{l}");
    assert_eq!(count(l, "LEA.HI.X"), 2, "{l}");
    assert!(
        l.contains("c[0x0][0x140]") && l.contains("c[0x0][0x144]"),
        "{l}"
    );
    assert!(
        l.contains("c[0x0][0x150]") && l.contains("c[0x0][0x154]"),
        "{l}"
    );
    assert!(l.contains("+0x10]"), "store offset folded: {l}");
    assert!(l.contains("+0x8]"), "load offset folded: {l}");
    // uav1 is never written: read-only path.
    assert!(l.contains("LDG.E.CI"), "{l}");
    assert!(l.contains("STG.E ["), "{l}");
    assert_eq!(
        count(l, "ISETP"),
        0,
        "no bounds checks when assumed in bounds: {l}"
    );
}

#[test]
fn default_bounds_checks_guard_loads_and_stores() {
    let out = build(STORE, &Spa5Options::default());
    let l = &out.listing();
    // Each access is compared with its UAV's size parameter (uav0 size at 0x148, uav1 at 0x158).
    assert!(
        l.contains("ISETP.LT.U32.AND")
            && l.contains("c[0x0][0x148]")
            && l.contains("c[0x0][0x158]"),
        "{l}"
    );
    assert!(
        l.lines().any(|x| x.contains("@P") && x.contains("LDG")),
        "guarded load: {l}"
    );
    assert!(
        l.lines().any(|x| x.contains("@P") && x.contains("STG")),
        "guarded store: {l}"
    );
    // The guarded load's result is zeroed first.
    assert!(l.contains("MOV R") && l.contains(", RZ"), "{l}");
}

#[test]
fn wide_aligned_loads_use_vector_forms() {
    let text = "kernel %v {
    group_size 64, 1, 1
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x4
    v2 = ishl v0, v1
    v3, v4, v5, v6 = load.b128 align 16 uav0[v2]
    v7 = iadd v3, v4
    v8 = iadd v5, v6
    store.b64 align 8 uav0[v2], v7, v8
    return
}";
    let l = build(text, &in_bounds()).listing();
    assert!(l.contains("LDG.E.128"), "{l}");
    assert!(l.contains("STG.E.64"), "{l}");
    // Checked accesses go word by word so partly out-of-range vectors follow the IR rule.
    let l = build(text, &Spa5Options::default()).listing();
    assert!(!l.contains("LDG.E.128") && count(&l, "LDG.E") == 4, "{l}");
}

#[test]
fn constant_buffers_direct_and_indexed() {
    let text = "kernel %cb {
    group_size 64, 1, 1
    uav0 = raw
    cb0 = 64
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x2
    v2 = ishl v0, v1
    v3 = load.b32 cb0[16]
    v4 = load.b32 cb0[v2+4]
    v5 = load.b32 cb0[80]
    v6 = iadd v3, v4
    v7 = iadd v6, v5
    store.b32 uav0[v2], v7
    return
}";
    let out = build(text, &in_bounds());
    let l = &out.listing();
    // cb0 lives after uav0's pointer and size: parameter offset 16, so c[0x0][0x150].
    assert!(l.contains("c[0x0][0x160]"), "direct read of cb0[16]: {l}");
    // ... folded into the add as a constant operand, not moved into a register first.
    assert!(
        l.lines()
            .any(|x| x.contains("IADD") && x.contains("c[0x0][0x160]")),
        "{l}"
    );
    assert!(
        !l.lines()
            .any(|x| x.contains("MOV") && x.contains("c[0x0][0x160]")),
        "{l}"
    );
    assert!(
        l.lines()
            .any(|x| x.contains("LDC") && x.contains("+0x154]")),
        "{l}"
    );
    // Indexed reads are checked against the buffer size even with assume_in_bounds.
    assert!(
        l.lines().any(|x| x.contains("@P") && x.contains("LDC")),
        "{l}"
    );
    // cb0[80] is past the 64-byte buffer: reads 0 (MOV32I 0), no constant operand.
    assert!(!l.contains("c[0x0][0x1a0]"), "{l}");
    let p = out.layout.param(ilc::spa5::ParamKind::CbData(0)).unwrap();
    assert_eq!((p.offset, p.size), (16, 64));
}

const DIAMOND: &str = "kernel %d {
    group_size 64, 1, 1
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x10
    v2 = icmp ult v0, v1
    brif v2, block1, block2
block1:
    v3 = iconst.b32 0x1
    jump block3(v3)
block2:
    v4 = iconst.b32 0x2
    jump block3(v4)
block3(v5: b32):
    v6 = iconst.b32 0x2
    v7 = ishl v0, v6
    store.b32 uav0[v7], v5
    return
}";

#[test]
fn divergent_diamond_reconverges_with_ssy_sync() {
    let out = build(DIAMOND, &in_bounds());
    let l = &out.listing();
    assert_eq!(count(l, "SSY"), 1, "{l}");
    assert_eq!(count(l, "SYNC"), 2, "{l}");
    assert_eq!(out.ssy_regions, 1);
    // The SSY target is the merge block: the first instruction after the last SYNC.
    let lines: Vec<&str> = l.lines().collect();
    let ssy = lines.iter().find(|x| x.contains("SSY")).unwrap();
    let target = ssy.rsplit(' ').nth(1).unwrap();
    let last_sync = lines.iter().rposition(|x| x.contains("SYNC")).unwrap();
    assert!(
        lines[last_sync + 1].starts_with(&format!(
            "/*{:04x}*/",
            u64::from_str_radix(target.trim_start_matches("0x"), 16).unwrap()
        )),
        "{l}"
    );
}

#[test]
fn uniform_branch_is_plain_bra() {
    let text = DIAMOND.replace("v0 = special tid.x\n    v1", "v0 = special ctaid.x\n    v1");
    let out = build(&text, &in_bounds());
    assert_eq!(count(&out.listing(), "SSY"), 0, "{}", out.listing());
    assert_eq!(count(&out.listing(), "SYNC"), 0, "{}", out.listing());
    assert!(out.listing().contains("BRA"), "{}", out.listing());
}

#[test]
fn loop_with_divergent_break_puts_ssy_before_the_loop() {
    let text = "kernel %l {
    group_size 64, 1, 1
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x0
    jump block1(v1)
block1(v2: b32):
    v3 = icmp ult v2, v0
    brif v3, block2, block4
block2:
    v4 = iconst.b32 0x7
    v5 = icmp eq v2, v4
    brif v5, block4, block3
block3:
    v6 = iconst.b32 0x1
    v7 = iadd v2, v6
    jump block1(v7)
block4:
    v8 = iconst.b32 0x2
    v9 = ishl v0, v8
    store.b32 uav0[v9], v0
    return
}";
    let out = build(text, &in_bounds());
    let l = &out.listing();
    assert_eq!(count(l, "SSY"), 1, "{l}");
    assert!(count(l, "SYNC") >= 2, "{l}");
    // The SSY comes before every backward branch (it is outside the loop).
    let lines: Vec<&str> = l.lines().collect();
    let ssy = lines.iter().position(|x| x.contains("SSY")).unwrap();
    let first_bra = lines.iter().position(|x| x.contains("BRA")).unwrap();
    assert!(ssy < first_bra, "{l}");
}

#[test]
fn nested_diamonds_get_nested_regions() {
    let text = "kernel %n {
    group_size 64, 1, 1
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x10
    v2 = icmp ult v0, v1
    brif v2, block1, block5
block1:
    v3 = iconst.b32 0x4
    v4 = icmp ult v0, v3
    brif v4, block2, block3
block2:
    v5 = iconst.b32 0x1
    jump block4(v5)
block3:
    v6 = iconst.b32 0x2
    jump block4(v6)
block4(v7: b32):
    jump block6(v7)
block5:
    v8 = iconst.b32 0x3
    jump block6(v8)
block6(v9: b32):
    v10 = iconst.b32 0x2
    v11 = ishl v0, v10
    store.b32 uav0[v11], v9
    return
}";
    let out = build(text, &in_bounds());
    assert_eq!(out.ssy_regions, 2, "{}", out.listing());
    assert_eq!(count(&out.listing(), "SSY"), 2, "{}", out.listing());
    assert_eq!(out.unreconverged, 0);
}

#[test]
fn barriers_and_lds() {
    let text = "kernel %b {
    group_size 64, 1, 1
    uav0 = raw
    lds0 = 256
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x2
    v2 = ishl v0, v1
    store.b32 lds0[v2], v0
    barrier threads|lds
    v3 = load.b32 lds0[v2+4]
    store.b32 uav0[v2], v3
    return
}";
    let out = build(text, &in_bounds());
    let l = &out.listing();
    assert!(
        l.contains("STS [") && l.contains("LDS R") && l.contains("BAR.SYNC"),
        "{l}"
    );
    assert_eq!(out.layout.shared_size, 256);
}

const LITERALS: &str = "kernel %lit {
    group_size 64, 1, 1
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x2
    v2 = ishl v0, v1
    v3 = load.b32 uav0[v2]
    v4 = iconst.b32 0x3faa466f
    v5 = iconst.b32 0x3f000000
    v6 = ffma v3, v4, v5
    v7 = ffma v6, v3, v4
    v8 = fmul v7, v4
    v9 = iconst.b32 0
    v10 = fcmp olt v8, v9
    v11 = select v10, v4, v8
    store.b32 uav0[v2], v11
    return
}";

#[test]
fn constants_become_immediates_literal_pool_operands_or_rz() {
    let out = build(LITERALS, &in_bounds());
    let l = &out.listing();
    // 0x3faa466f has no short encoding: one pool word, read as c[0x2][0x0] by every use;
    // the 0.5 addend needs a register (FFMA has one c[] operand, taken by the multiplier);
    // the comparison with 0 is the immediate form.
    assert_eq!(out.const_bank2, 0x3faa466fu32.to_le_bytes(), "{l}");
    assert_eq!(count(l, "c[0x2][0x0]"), 4, "{l}");
    assert_eq!(count(l, "MOV32I"), 1, "{l}");
    assert!(l.contains(", 0, PT"), "{l}");
    // The select keeps the constant as its c[] operand by negating the predicate.
    assert!(l.contains("SEL") && l.contains("!P"), "{l}");
    // Without the pool (raw code users) the constant is one MOV32I, shared by its uses.
    let no_pool = Spa5Options {
        literal_pool: false,
        ..in_bounds()
    };
    let out = build(LITERALS, &no_pool);
    let l = &out.listing();
    assert!(out.const_bank2.is_empty());
    assert_eq!(count(l, "c[0x2]"), 0, "{l}");
    assert_eq!(count(l, "MOV32I"), 2, "{l}");
}

/// An empty block on an edge (a split edge whose moves coalesced away) is not emitted:
/// branches to it go where it jumps, so the loop's exit falls through into the code after
/// the loop instead of branching to a block that only branches on.
#[test]
fn empty_forwarding_blocks_are_branched_past() {
    let text = "kernel %fwd {
    group_size 64, 1, 1
    uav0 = raw
block0:
    v0 = special tid.x
    v1 = iconst.b32 0x0
    jump block1(v1, v1)

block1(v10: b32, v11: b32):
    v12 = iconst.b32 0x40
    v13 = icmp ult v10, v12
    brif v13, block2, block3

block3:
    jump block4

block2:
    v14 = load.b32 uav0[v10]
    v15 = iadd v11, v14
    v16 = iconst.b32 0x4
    v17 = iadd v10, v16
    jump block1(v17, v15)

block4:
    store.b32 uav0[v0], v11
    return
}";
    let out = build(text, &in_bounds());
    let l = &out.listing();
    // One branch back to the loop test and one out of it; no BRA to the empty block.
    assert_eq!(count(l, "BRA"), 2, "{l}");
}

/// 64-bit integer operations the backend has no selection for (lowering never makes them:
/// `ineg`, `imul` and min/max are selected) are refused by name, not selected as their 32-bit
/// forms.
#[test]
fn unselected_64_bit_integer_operations_are_errors() {
    for (op, args) in [
        ("iabs", "v3"),
        ("imad", "v3, v3, v3"),
        ("udiv", "v3, v3"),
        ("urem", "v3, v3"),
        ("idiv", "v3, v3"),
        ("irem", "v3, v3"),
    ] {
        let text = format!(
            "kernel %wide {{
    uav0 = raw
block0:
    v0 = special tid.x
    v1, v2 = load.b64 align 8 uav0[v0]
    v3 = concat v1, v2
    v4 = {op} {args}
    v5 = lo v4
    v6 = hi v4
    store.b64 align 8 uav0[v0], v5, v6
    return
}}"
        );
        let f = parse_function_text(&text).unwrap_or_else(|e| panic!("{op}: parse: {e:?}"));
        match compile(&f, &Spa5Options::default()) {
            Err(e) => assert!(
                e.to_string().contains(op) && e.to_string().contains("not supported"),
                "{op}: {e}"
            ),
            Ok(_) => panic!("{op}.b64 was selected"),
        }
    }
}

/// A texture instruction with fewer operands than its shape takes (only an unverified
/// function has one) is refused by name, not read past its operands.
#[test]
fn texture_with_missing_coordinates_is_an_error() {
    let text = "kernel %tex {
    uav0 = raw
block0:
    v0 = special tid.x
    v1, v2, v3, v4 = tex.sample.2d.ffff t0 s0 v0
    store.b32 uav0[v0], v1
    return
}";
    let f = parse_function_text(text).unwrap_or_else(|e| panic!("parse: {e:?}"));
    match compile(&f, &Spa5Options::default()) {
        Err(e) => assert!(e.to_string().contains("texture operand count"), "{e}"),
        Ok(out) => panic!("compiled:\n{}", out.listing()),
    }
}
