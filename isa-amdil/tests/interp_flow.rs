//! Structured control flow (guide 7.4): if/else, loops with break/continue in all their
//! conditional forms, switch with C fall-through, subroutines, returns, the 32-entry call
//! stack, end/endmain.

mod interp_common;
use interp_common::*;

use isa_amdil::interp::InterpError;

#[test]
fn if_forms_7_4() {
    run_all(&[
        c("7.4 IF_LOGICALNZ L3837: -0.0 bits are non-zero", &[[0x8000_0000, 1, 2, 0]], "if_logicalnz l0.x\nmov r0.x, l0.y\nelse\nmov r0.x, l0.z\nendif", [1, 0, 0, 0]),
        c("7.4 IF_LOGICALZ L3837", &[[0x8000_0000, 1, 2, 0]], "if_logicalz l0.x\nmov r0.x, l0.y\nelse\nmov r0.x, l0.z\nendif", [2, 0, 0, 0]),
        c("7.4 IFC L3850: ordered float compare, -0 == +0", &[[0x8000_0000, 0, 1, 2]], "ifc_relop(eq) l0.x, l0.y\nmov r0.x, l0.z\nelse\nmov r0.x, l0.w\nendif", [1, 0, 0, 0]),
        c("7.4 IFC L3850: NaN makes lt false", &[[0x7FC0_0000, 0, 1, 2]], "ifc_relop(lt) l0.x, l0.y\nmov r0.x, l0.z\nelse\nmov r0.x, l0.w\nendif", [2, 0, 0, 0]),
        c("7.4 ENDIF L3728 without else", &[[0, 1, 0, 0]], "mov r0.y, l0.y\nif_logicalnz l0.x\nmov r0.y, l0.x\nendif", [0, 1, 0, 0]),
        c("7.4 nested if/else", &[[1, 0, 5, 6]], "if_logicalnz l0.x\nif_logicalnz l0.y\nmov r0.x, l0.z\nelse\nmov r0.x, l0.w\nendif\nendif", [6, 0, 0, 0]),
    ]);
}

#[test]
fn loops_7_4() {
    let l = [[0, 1, 10, 3]];
    run_all(&[
        c("7.4 WHILELOOP/ENDLOOP L3944 + BREAK_LOGICALNZ L3483", &l,
          "mov r1.x, l0.x\nwhileloop\nuge r2.x, r1.x, l0.z\nbreak_logicalnz r2.x\niadd r0.x, r0.x, r1.x\niadd r1.x, r1.x, l0.y\nendloop", [45, 0, 0, 0]),
        c("7.4 BREAK_LOGICALZ L3483", &l,
          "mov r1.x, l0.z\nwhileloop\nbreak_logicalz r1.x\niadd r1.x, r1.x, l0.y_neg(xyzw)\niadd r0.x, r0.x, l0.y\nendloop", [10, 0, 0, 0]),
        c("7.4 BREAK L3460 inside if", &l,
          "whileloop\niadd r0.x, r0.x, l0.y\nieq r2.x, r0.x, l0.w\nif_logicalnz r2.x\nbreak\nendif\nendloop", [3, 0, 0, 0]),
        c("7.4 BREAKC L3471: float relop", &[[0, f(1.0), f(4.0), 0], [1, 0, 0, 0]],
          "mov r1.x, l0.x\nwhileloop\nbreakc_relop(ge) r1.x, l0.z\nadd r1.x, r1.x, l0.y\niadd r0.x, r0.x, l1.x\nendloop", [4, 0, 0, 0]),
        c("7.4 CONTINUE L3639 jumps to the loop head", &l,
          "mov r1.x, l0.x\nwhileloop\nuge r2.x, r1.x, l0.z\nbreak_logicalnz r2.x\niadd r1.x, r1.x, l0.y\nand r2.y, r1.x, l0.y\nif_logicalz r2.y\ncontinue\nendif\niadd r0.x, r0.x, l0.y\nendloop", [5, 0, 0, 0]),
        c("7.4 CONTINUE_LOGICALNZ/Z L3662", &l,
          "mov r1.x, l0.x\nwhileloop\nuge r2.x, r1.x, l0.z\nbreak_logicalnz r2.x\niadd r1.x, r1.x, l0.y\nand r2.y, r1.x, l0.y\ncontinue_logicalnz r2.y\niadd r0.x, r0.x, l0.y\ncontinue_logicalz r2.y\niadd r0.y, r0.y, l0.y\nendloop", [5, 0, 0, 0]),
        c("7.4 CONTINUEC L3650: float relop", &[[0, f(1.0), f(6.0), f(3.0)], [1, 0, 0, 0]],
          "mov r1.x, l0.x\nwhileloop\nbreakc_relop(ge) r1.x, l0.z\nadd r1.x, r1.x, l0.y\ncontinuec_relop(lt) r1.x, l0.w\niadd r0.x, r0.x, l1.x\nendloop", [4, 0, 0, 0]),
        c("7.4 nested loops: break leaves the inner loop only", &l,
          "mov r1.x, l0.x\nwhileloop\nuge r2.x, r1.x, l0.w\nbreak_logicalnz r2.x\nwhileloop\niadd r0.x, r0.x, l0.y\nbreak\nendloop\niadd r1.x, r1.x, l0.y\nendloop", [3, 0, 0, 0]),
    ]);
}

#[test]
fn switch_7_4() {
    let body = "switch l0.x\ncase 0\niadd r0.x, r0.x, l1.x\ncase 1\niadd r0.x, r0.x, l1.y\nbreak\n\
                case -1\niadd r0.x, r0.x, l1.z\ndefault\niadd r0.x, r0.x, l1.w\nendswitch";
    let codes = [1, 10, 100, 1000];
    run_all(&[
        c("7.4 SWITCH/CASE L3931/L3626: fall-through into the next case", &[[0, 0, 0, 0], codes], body, [11, 0, 0, 0]),
        c("7.4 CASE L3626: break ends the switch", &[[1, 0, 0, 0], codes], body, [10, 0, 0, 0]),
        c("7.4 CASE with a negative 32-bit value falls into DEFAULT L3675", &[[u32::MAX, 0, 0, 0], codes], body, [1100, 0, 0, 0]),
        c("7.4 DEFAULT L3675: no match", &[[7, 0, 0, 0], codes], body, [1000, 0, 0, 0]),
        c("7.4 ENDSWITCH L3775: no default and no match", &[[7, 0, 0, 0], codes], "switch l0.x\ncase 1\nmov r0.x, l1.x\nendswitch\niadd r0.y, r0.y, l1.y", [0, 10, 0, 0]),
        c("7.4 L3466: break in a switch inside a loop leaves only the switch", &[[0, 1, 3, 0]],
          "mov r1.x, l0.x\nwhileloop\nuge r2.x, r1.x, l0.z\nbreak_logicalnz r2.x\nswitch r1.x\ncase 1\nbreak\ndefault\niadd r0.y, r0.y, l0.y\nendswitch\niadd r0.x, r0.x, l0.y\niadd r1.x, r1.x, l0.y\nendloop", [3, 2, 0, 0]),
        c("7.4 L3648: continue in a switch continues the loop", &[[0, 1, 3, 0]],
          "mov r1.x, l0.x\nwhileloop\nuge r2.x, r1.x, l0.z\nbreak_logicalnz r2.x\niadd r1.x, r1.x, l0.y\nswitch r1.x\ncase 2\ncontinue\nendswitch\niadd r0.x, r0.x, l0.y\nendloop", [2, 0, 0, 0]),
    ]);
}

fn run_main_and_funcs(main: &str, funcs: &str, lits: &[[u32; 4]]) -> Vec<u32> {
    let mut src = String::from("il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_raw_uav_id(0)\n");
    for (i, l) in lits.iter().enumerate() {
        src += &format!("dcl_literal l{i}, {}, {}, {}, {}\n", l[0], l[1], l[2], l[3]);
    }
    src += "dcl_literal l9, 0, 0, 0, 0\n";
    src += main;
    src += "\nuav_raw_store_id(0) mem, l9.x, r0\nendmain\n";
    src += funcs;
    src += "\nend\n";
    let (d, _) = run_kernel(&src, [1, 1, 1], &[(0, vec![0; 16])]).expect("runs");
    words(&d.uavs[&0])
}

#[test]
fn calls_and_returns_7_4() {
    let l = [[1, 2, 0, 5]];
    // CALL L3496 / FUNC L3788 / RET L3890: registers are shared with the caller.
    assert_eq!(
        run_main_and_funcs("call 3\ncall 3", "func 3\niadd r0.x, r0.x, l0.y\nret", &l)[0],
        4
    );
    // ENDFUNC L3715 closes a function like ret.
    assert_eq!(
        run_main_and_funcs(
            "call 1\ncall 1",
            "func 1\niadd r0.x, r0.x, l0.x\nendfunc",
            &l
        )[0],
        2
    );
    // CALL_LOGICALNZ L3549 / CALL_LOGICALZ L3589.
    assert_eq!(
        run_main_and_funcs(
            "call_logicalnz l0.x, 1\ncall_logicalz l0.x, 1\ncall_logicalz l0.z, 1",
            "func 1\niadd r0.x, r0.x, l0.w\nret",
            &l
        )[0],
        10
    );
    // RET_DYN L3903 returns early; RET_LOGICALNZ/Z L3916 return conditionally.
    assert_eq!(
        run_main_and_funcs(
            "call 2",
            "func 2\niadd r0.x, r0.x, l0.x\nret_logicalz l0.x\niadd r0.x, r0.x, l0.x\n\
             ret_logicalnz l0.x\niadd r0.x, r0.x, l0.w\nret_dyn\niadd r0.x, r0.x, l0.w\nret",
            &l
        )[0],
        2
    );
    // Recursion (allowed, L3498): f(n) = n == 0 ? 0 : n + f(n - 1) via shared registers.
    assert_eq!(
        run_main_and_funcs(
            "mov r1.x, l0.w\ncall 7",
            "func 7\nret_logicalz r1.x\niadd r0.x, r0.x, r1.x\niadd r1.x, r1.x, l0.x_neg(xyzw)\ncall 7\nret",
            &l
        )[0],
        15
    );
}

#[test]
fn call_stack_overflow_skips_the_call() {
    // L3498: the return-address stack has 32 entries; a call made when it is full is
    // skipped. Unbounded recursion therefore runs 32 nested calls, each adding 1.
    let w = run_main_and_funcs(
        "call 1",
        "func 1\niadd r0.x, r0.x, l0.x\ncall 1\nret",
        &[[1, 0, 0, 0]],
    );
    assert_eq!(w[0], 32);
}

#[test]
fn end_and_endmain_stop_the_work_item() {
    // END L3702 / ENDMAIN L3752: nothing after them in main runs.
    let src =
        "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_raw_uav_id(0)\ndcl_literal l0, 0, 5, 0, 0\n\
               uav_raw_store_id(0) mem.x, l0.x, l0.y\nendmain\nfunc 1\n\
               uav_raw_store_id(0) mem.x, l0.x, l0.x\nret\nend\n";
    let (d, _) = run_kernel(src, [1, 1, 1], &[(0, vec![0; 4])]).expect("runs");
    assert_eq!(words(&d.uavs[&0]), [5]);
}

#[test]
fn malformed_structure_is_an_error() {
    for (body, what) in [
        ("else", "else without if"),
        ("endloop", "endloop without whileloop"),
        ("break", "break outside"),
        ("continue", "continue outside loop"),
        ("if_logicalnz l0.x", "never closed"),
    ] {
        match try_regs(&[[0; 4]], body) {
            Err(InterpError::Malformed { message, .. }) => {
                assert!(message.contains(what), "{body}: {message}")
            }
            Err(e @ InterpError::Parse(_)) => {
                // the parser may already reject it; that is fine too
                let _ = e;
            }
            other => panic!("{body}: expected an error, got {other:?}"),
        }
    }
    let src = "il_cs_2_0\ndcl_num_thread_per_group 1\ncall 9\nend\n";
    let err = run_kernel(src, [1, 1, 1], &[]).unwrap_err();
    assert!(err.to_string().contains("undefined function 9"), "{err}");
}
