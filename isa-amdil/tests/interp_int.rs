//! Integer, unsigned, bit-operation and 64-bit integer opcodes (guide 7.7, 7.8, 7.9, 7.13),
//! one table entry per behaviour, expected values worked out from the guide's text.

mod interp_common;
use interp_common::*;

const T: u32 = 0xFFFF_FFFF;

#[test]
fn integer_arithmetic_7_7() {
    let l = [[1, 2, 0xFFFF_FFFF, 0x8000_0000], [10, 20, 1, 0x8000_0000]];
    run_all(&[
        c("7.7 IADD L5804: wraps", &l, "iadd r0, l0, l1", [11, 22, 0, 0]),
        c("7.7 IADD L651: _neg is two's complement", &l, "iadd r0, l1, l0_neg(xyzw)", [9, 18, 2, 0]),
        c("7.7 INEGATE L5963", &l, "inegate r0, l0", [T, 0xFFFF_FFFE, 1, 0x8000_0000]),
        c("7.7 IMUL L5911: low 32 bits", &[[0x10000, 3, T, 7]], "imul r0, l0, l0.xxxx", [0, 0x30000, 0xFFFF_0000, 0x70000]),
        c("7.7 IMAD L5870", &[[3, 4, 5, 0]], "imad r0, l0.x, l0.y, l0.z", [17; 4]),
        c("7.7 IMUL_HIGH L5924: signed", &[[T, 2, 0x4000_0000, 4]], "imul_high r0, l0.xxzz, l0.yywz", [T, T, 1, 0x1000_0000]),
        c("7.7 IMUL24 L5937: bit 23 is the sign", &[[0x80_0000, 2, 0xFF00_0003, 5]], "imul24 r0, l0.xxzz, l0.yyww", [0xFF00_0000, 0xFF00_0000, 15, 15]),
        c("7.7 IMAD24 L5883", &[[0xFF_FFFF, 3, 10, 0]], "imad24 r0, l0.x, l0.y, l0.z", [7; 4]),
        c("7.7 IMUL24_HIGH L5950: bits 47:32", &[[0x80_0000, 0x80_0000, 0, 0]], "imul24_high r0, l0.x, l0.y", [0x4000; 4]),
        c("7.7 IMIN/IMAX L5896: signed", &[[T, 1, 0, 0]], "imin r0.x, l0.x, l0.y\nimax r0.y, l0.x, l0.y", [T, 1, 0, 0]),
        c("7.7 IEQ/INE L5848", &[[5, 5, 6, 0]], "ieq r0.x, l0.x, l0.y\nine r0.y, l0.x, l0.y\nieq r0.z, l0.x, l0.z\nine r0.w, l0.x, l0.z", [T, 0, 0, T]),
        c("7.7 IGE/ILT L5848: signed", &[[T, 1, 0, 0]], "ige r0.x, l0.x, l0.y\nilt r0.y, l0.x, l0.y\nige r0.z, l0.y, l0.y\nilt r0.w, l0.y, l0.y", [0, T, T, 0]),
        c("7.7 IAND L5817 (iand and and are one opcode)", &[[0xF0F0, 0xFF00, 0, 0]], "iand r0.x, l0.x, l0.y\nand r0.y, l0.x, l0.y", [0xF000, 0xF000, 0, 0]),
        c("7.7 IOR/IXOR L5989", &[[0xF0F0, 0xFF00, 0, 0]], "ior r0.x, l0.x, l0.y\nixor r0.y, l0.x, l0.y", [0xFFF0, 0x0FF0, 0, 0]),
        c("7.7 INOT L5976", &[[0, T, 0x1234_5678, 1]], "inot r0, l0", [T, 0, 0xEDCB_A987, 0xFFFF_FFFE]),
        c("7.7 ISHL L6004 / 7.2.7 L3242: count & 31", &[[1, 33, 31, 32]], "ishl r0, l0.xxxx, l0.yzwx", [2, 0x8000_0000, 1, 2]),
        c("7.7 ISHR L6004: arithmetic", &[[0x8000_0000, 4, 35, 0]], "ishr r0, l0.xxxx, l0.yzwy", [0xF800_0000, 0xF000_0000, 0x8000_0000, 0xF800_0000]),
        c("7.7 ICARRY L5839: 1, not all ones", &[[T, 1, 5, 6]], "icarry r0.x, l0.x, l0.y\nicarry r0.y, l0.z, l0.w", [1, 0, 0, 0]),
        c("7.7 IBORROW L5828", &[[5, 6, 6, 6]], "iborrow r0.x, l0.x, l0.y\niborrow r0.y, l0.z, l0.w", [1, 0, 0, 0]),
    ]);
}

#[test]
fn unsigned_arithmetic_7_8() {
    run_all(&[
        c(
            "7.8 UDIV L6039 (x/0 convention: all ones)",
            &[[100, 7, 5, 0]],
            "udiv r0.x, l0.x, l0.y\nudiv r0.y, l0.z, l0.w\nudiv r0.z, l0.y, l0.x",
            [14, T, 0, 0],
        ),
        c(
            "7.8 UMOD L6143 (x%0 convention: all ones)",
            &[[100, 7, 5, 0]],
            "umod r0.x, l0.x, l0.y\numod r0.y, l0.z, l0.w",
            [2, T, 0, 0],
        ),
        c(
            "7.8 UGE/ULT L6078: unsigned",
            &[[T, 1, 0, 0]],
            "uge r0.x, l0.x, l0.y\nult r0.y, l0.x, l0.y",
            [T, 0, 0, 0],
        ),
        c(
            "7.8 UMAD L6093",
            &[[0x8000_0000, 2, 3, 0]],
            "umad r0.x, l0.x, l0.y, l0.z",
            [3, 0, 0, 0],
        ),
        c(
            "7.8 UMUL L6156",
            &[[0xFFFF, 0x10001, 0, 0]],
            "umul r0.x, l0.x, l0.y",
            [0xFFFF_FFFF, 0, 0, 0],
        ),
        c(
            "7.8 UMUL_HIGH L6169",
            &[[T, T, 0, 0]],
            "umul_high r0.x, l0.x, l0.y",
            [0xFFFF_FFFE, 0, 0, 0],
        ),
        c(
            "7.8 UMUL24 L6189: bits 31:24 ignored",
            &[[0xFF00_0002, 0xAB00_0003, 0, 0]],
            "umul24 r0.x, l0.x, l0.y",
            [6, 0, 0, 0],
        ),
        c(
            "7.8 UMAD24 L6106",
            &[[0xFF00_0002, 3, 1, 0]],
            "umad24 r0.x, l0.x, l0.y, l0.z",
            [7, 0, 0, 0],
        ),
        c(
            "7.8 UMUL24_HIGH L6211",
            &[[0xFF_FFFF, 0xFF_FFFF, 0, 0]],
            "umul24_high r0.x, l0.x, l0.y",
            [0xFFFF, 0, 0, 0],
        ),
        c(
            "7.8 UMIN/UMAX L6117",
            &[[T, 1, 0, 0]],
            "umin r0.x, l0.x, l0.y\numax r0.y, l0.x, l0.y",
            [1, T, 0, 0],
        ),
        c(
            "7.8 USHR L6224",
            &[[0x8000_0000, 31, 32, 33]],
            "ushr r0, l0.xxxx, l0.yzwy",
            [1, 0x8000_0000, 0x4000_0000, 1],
        ),
    ]);
}

#[test]
fn bit_operations_7_9() {
    run_all(&[
        c(
            "7.9 ICOUNTBITS L6250",
            &[[0, T, 0x8000_0001, 0xF0]],
            "icbits r0, l0",
            [0, 32, 2, 4],
        ),
        c(
            "7.9 IFIRSTBIT ffb_lo L6261: -1 if none",
            &[[0, 1, 0x8000_0000, 0x0F00]],
            "ffb_lo r0, l0",
            [T, 0, 31, 8],
        ),
        c(
            "7.9 IFIRSTBIT ffb_hi L6261: from the MSB (convention)",
            &[[0, 1, 0x8000_0000, 0x0F00]],
            "ffb_hi r0, l0",
            [T, 31, 0, 20],
        ),
        c(
            "7.9 IFIRSTBIT ffb_shi L6261: first bit differing from the sign",
            &[[T, 0xFFFF_FFFE, 1, 0xF000_0000]],
            "ffb_shi r0, l0",
            [T, 31, 31, 4],
        ),
        c(
            "7.9 UBIT_EXTRACT L6272",
            &[[8, 4, 0x1234_5678, 0]],
            "ubit_extract r0.x, l0.x, l0.y, l0.z",
            [0x67, 0, 0, 0],
        ),
        c(
            "7.9 UBIT_EXTRACT L6272: width 0 gives 0",
            &[[32, 4, T, 0]],
            "ubit_extract r0.x, l0.x, l0.y, l0.z",
            [0, 0, 0, 0],
        ),
        c(
            "7.9 UBIT_EXTRACT L6272: width+offset >= 32 gives src >> offset",
            &[[30, 8, 0x8000_0000, 0]],
            "ubit_extract r0.x, l0.x, l0.y, l0.z",
            [0x80_0000, 0, 0, 0],
        ),
        c(
            "7.9 IBIT_EXTRACT L6237: sign extended",
            &[[4, 4, 0xF0, 0]],
            "ibit_extract r0.x, l0.x, l0.y, l0.z",
            [T, 0, 0, 0],
        ),
        c(
            "7.9 IBIT_EXTRACT L6237: width+offset >= 32, arithmetic",
            &[[30, 8, 0x8000_0000, 0]],
            "ibit_extract r0.x, l0.x, l0.y, l0.z",
            [0xFF80_0000, 0, 0, 0],
        ),
        c(
            "7.9 UBIT_INSERT L6285",
            &[[8, 8, 0xAB, 0x1111_1111]],
            "ubit_insert r0.x, l0.x, l0.y, l0.z, l0.w",
            [0x1111_AB11, 0, 0, 0],
        ),
        c(
            "7.9 UBIT_INSERT L6285: width 0 keeps src3",
            &[[0, 8, 0xAB, 0x1111_1111]],
            "ubit_insert r0.x, l0.x, l0.y, l0.z, l0.w",
            [0x1111_1111, 0, 0, 0],
        ),
        c(
            "7.9 UBIT_REVERSE L6298",
            &[[1, 0x1234_5678, 0, 0]],
            "ubit_reverse r0.xy, l0",
            [0x8000_0000, 0x1E6A_2C48, 0, 0],
        ),
    ]);
}

#[test]
fn multimedia_7_13() {
    run_all(&[
        c(
            "7.13 BITALIGN L7863",
            &[[0x0123_4567, 0x89AB_CDEF, 4, 36]],
            "bitalign r0.x, l0.x, l0.y, l0.z\nbitalign r0.y, l0.x, l0.y, l0.w",
            [0x789A_BCDE, 0x789A_BCDE, 0, 0],
        ),
        c(
            "7.13 BYTEALIGN L7876",
            &[[0x0123_4567, 0x89AB_CDEF, 1, 3]],
            "bytealign r0.x, l0.x, l0.y, l0.z\nbytealign r0.y, l0.x, l0.y, l0.w",
            [0x6789_ABCD, 0x2345_6789, 0, 0],
        ),
        c(
            "7.13 SAD L7898",
            &[[0x0102_0304, 0x0401_0203, 10, 0]],
            "sad r0.x, l0.x, l0.y, l0.z",
            [16, 0, 0, 0],
        ),
        c(
            "7.13 SAD_HI L7909",
            &[[0x05, 0x01, 1, 0]],
            "sadhi r0.x, l0.x, l0.y, l0.z",
            [0x4_0001, 0, 0, 0],
        ),
        c(
            "7.13 SAD4 L7920: over xyzw plus s2.x, broadcast",
            &[[0x01, 0x02, 0x03, 0x04], [0, 0, 0, 0], [100, 0, 0, 0]],
            "sad4 r0, l0, l1, l2",
            [110; 4],
        ),
        c(
            "7.13 U4LERP L7931",
            &[[0x0000_0103, 0x0000_0304, 1, 0]],
            "u4lerp r0.x, l0.x, l0.y, l0.z",
            [0x0000_0204, 0, 0, 0],
        ),
        c(
            "7.13 UNPACK0-3 L7942-7987",
            &[[0x0403_0201, 0, 0, 0]],
            "unpack0 r0.x, l0.x\nunpack1 r0.y, l0.x\nunpack2 r0.z, l0.x\nunpack3 r0.w, l0.x",
            [f(1.0), f(2.0), f(3.0), f(4.0)],
        ),
        c(
            "7.13 F_2_U4 L7887: bytes w:z:y:x",
            &[[f(1.5), f(300.0), f(-2.0), f(255.9)]],
            "f_2_u4 r0.x, l0",
            [0xFF00_FF01, 0, 0, 0],
        ),
    ]);
}

#[test]
fn sixty_four_bit_integers_7_7_7_8() {
    // Operands in .xy (low, high), results in .xy or .zw, compares broadcast (7.2.8 L3246).
    let a = [0xFFFF_FFFF, 0, 1, 0]; // a = 0xFFFFFFFF, b = 1
    run_all(&[
        c(
            "7.7 I64_ADD L5728: carry into the high dword",
            &[a],
            "i64add r0.xy, l0.xy, l0.zw",
            [0, 1, 0, 0],
        ),
        c(
            "7.7 I64_ADD L5728: result in .zw",
            &[a],
            "i64add r0.zw, l0.xy, l0.zw",
            [0, 0, 0, 1],
        ),
        c(
            "7.7 I64NEGATE L5775",
            &[[1, 0, 0, 0]],
            "i64negate r0.xy, l0.xy",
            [T, T, 0, 0],
        ),
        c(
            "7.7 I64SHL L5786: count & 63",
            &[[1, 0, 65, 0]],
            "i64shl r0.xy, l0.xy, l0.z",
            [2, 0, 0, 0],
        ),
        c(
            "7.7 I64SHL L5786",
            &[[1, 0, 40, 0]],
            "i64shl r0.xy, l0.xy, l0.z",
            [0, 0x100, 0, 0],
        ),
        c(
            "7.7 I64SHR L5786: arithmetic",
            &[[0, 0x8000_0000, 36, 0]],
            "i64shr r0.xy, l0.xy, l0.z",
            [0xF800_0000, T, 0, 0],
        ),
        c(
            "7.8 U64SHR L6067",
            &[[0, 0x8000_0000, 63, 0]],
            "u64shr r0.xy, l0.xy, l0.z",
            [1, 0, 0, 0],
        ),
        c(
            "7.7 I64EQ/I64NE L5741: one result broadcast",
            &[[5, 1, 5, 1]],
            "i64eq r0.xy, l0.xy, l0.zw\ni64ne r0.zw, l0.xy, l0.zw",
            [T, T, 0, 0],
        ),
        c(
            "7.7 I64GE/I64LT L5741: signed",
            &[[0, T, 0, 0]],
            "i64ge r0.x, l0.xy, l0.zw\ni64lt r0.y, l0.xy, l0.zw",
            [0, T, 0, 0],
        ),
        c(
            "7.8 U64GE/U64LT L6052: unsigned",
            &[[0, T, 0, 0]],
            "u64ge r0.x, l0.xy, l0.zw\nu64lt r0.y, l0.xy, l0.zw",
            [T, 0, 0, 0],
        ),
        c(
            "7.7 I64MAX/I64MIN L5760",
            &[[0, T, 5, 0]],
            "i64max r0.xy, l0.xy, l0.zw\ni64min r0.zw, l0.xy, l0.zw",
            [5, 0, 0, T],
        ),
        c(
            "B U64DIV/U64MOD: (2^32 + 7) / 3 = 0x5555_5557; x % 0 = all ones",
            &[[7, 1, 3, 0], [5, 0, 0, 0]],
            "u64div r0.xy, l0.xy, l0.zw\nu64mod r0.zw, l1.xy, l1.zw",
            [0x5555_5557, 0, T, T],
        ),
        c(
            "B I64DIV/I64MOD: truncated quotient, remainder with the dividend's sign",
            // -7 / 2 = -3, -7 % 2 = -1
            &[[(-7i32) as u32, T, 2, 0]],
            "i64div r0.xy, l0.xy, l0.zw\ni64mod r0.zw, l0.xy, l0.zw",
            [(-3i32) as u32, T, T, T],
        ),
        c(
            "B I64DIV: i64::MIN / -1 wraps; i64::MIN % -1 = 0",
            &[[0, 0x8000_0000, T, T]],
            "i64div r0.xy, l0.xy, l0.zw\ni64mod r0.zw, l0.xy, l0.zw",
            [0, 0x8000_0000, 0, 0],
        ),
        c(
            "7.8 U64MAX/U64MIN L6024",
            &[[0, T, 5, 0]],
            "u64max r0.xy, l0.xy, l0.zw\nu64min r0.zw, l0.xy, l0.zw",
            [0, T, 5, 0],
        ),
    ]);
}

#[test]
fn three_operand_min_med_max_enum_only() {
    // Enum-only opcodes (Appendix B): med3 is the middle value.
    run_all(&[
        c("B IMIN3/IMED3/IMAX3: signed", &[[T, 5, 2, 0]], "imin3 r0.x, l0.x, l0.y, l0.z\nimed3 r0.y, l0.x, l0.y, l0.z\nimax3 r0.z, l0.x, l0.y, l0.z", [T, 2, 5, 0]),
        c("B UMIN3/UMED3/UMAX3: unsigned", &[[T, 5, 2, 0]], "umin3 r0.x, l0.x, l0.y, l0.z\numed3 r0.y, l0.x, l0.y, l0.z\numax3 r0.z, l0.x, l0.y, l0.z", [2, 5, T, 0]),
        c("B MIN3/MED3/MAX3: float", &[[f(3.0), f(-1.0), f(2.0), 0]], "min3 r0.x, l0.x, l0.y, l0.z\nmed3 r0.y, l0.x, l0.y, l0.z\nmax3 r0.z, l0.x, l0.y, l0.z", [f(-1.0), f(2.0), f(3.0), 0]),
    ]);
}

#[test]
fn timer_register_is_monotonic() {
    // Tmr L2278: 64-bit counter, x = low, y = high; read only through mov.
    let r = try_regs(&[], "mov r0.xy, Tmr\nmov r1.xy, Tmr").expect("runs");
    assert_eq!(r[0][1], 0);
    assert!(r[1][0] > r[0][0], "{:?}", r);
}
