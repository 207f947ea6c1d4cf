//! Hostile input through the C interface: random bytes, truncated kernels,
//! 100k-deep nesting and a million instructions give status codes with messages, never a
//! crash, on a thread with a small stack.

use std::ffi::CStr;

use ilc_capi::*;
use ilc_test_support::{hostile_il, Rng};

/// Compiles `src`; returns the status and the message (if any).
fn compile(c: *const IlcCompiler, src: &[u8]) -> (i32, String) {
    let mut k = std::ptr::null_mut();
    let mut err = std::ptr::null_mut();
    // SAFETY: valid handle and pointers to locals; outputs freed below.
    unsafe {
        let st = ilc_compile(
            c,
            src.as_ptr(),
            src.len(),
            std::ptr::null(),
            std::ptr::null(),
            &mut k,
            &mut err,
        );
        let msg = if err.is_null() {
            String::new()
        } else {
            CStr::from_ptr(err).to_string_lossy().to_string()
        };
        ilc_string_free(err);
        ilc_kernel_free(k);
        (st, msg)
    }
}

#[test]
fn hostile_inputs_are_status_codes_with_messages() {
    std::thread::Builder::new()
        .stack_size(512 << 10)
        .spawn(|| {
            let mut o = std::mem::MaybeUninit::<IlcOptions>::uninit();
            // SAFETY: ilc_options_init initialises the whole struct.
            let mut o = unsafe {
                ilc_options_init(o.as_mut_ptr(), std::mem::size_of::<IlcOptions>());
                o.assume_init()
            };
            o.max_instructions = 100_000;
            let mut c = std::ptr::null_mut();
            // SAFETY: valid pointers.
            assert_eq!(
                unsafe { ilc_compiler_new(&o, &mut c, std::ptr::null_mut()) },
                ILC_OK
            );
            let mut rng = Rng::new(0x9e37_79b9_7f4a_7c15);
            for len in 0..300usize {
                let bytes = rng.bytes(len * 13 % 3000);
                let (st, msg) = compile(c, &bytes);
                assert!(st == ILC_ERROR_COMPILE || st == ILC_OK, "{st}: {msg}");
                if st != ILC_OK {
                    assert!(!msg.is_empty());
                }
            }
            let src = include_bytes!("../../../tests/examples/saxpy.il");
            for cut in 0..src.len() {
                let (st, msg) = compile(c, &src[..cut]);
                assert!(st == ILC_ERROR_COMPILE || st == ILC_OK, "{st}: {msg}");
            }
            let deep = hostile_il::deep_nesting(100_000);
            let (st, msg) = compile(c, deep.as_bytes());
            assert_eq!(st, ILC_ERROR_COMPILE);
            assert!(msg.contains("L0003") || msg.contains("L0002"), "{msg}");
            let big = hostile_il::many_instructions(1_000_000);
            let (st, msg) = compile(c, big.as_bytes());
            assert_eq!(st, ILC_ERROR_COMPILE);
            assert!(msg.contains("L0002"), "{msg}");
            // SAFETY: live handle, freed once.
            unsafe { ilc_compiler_free(c) };
        })
        .expect("spawn")
        .join()
        .expect("no panic, no stack overflow");
}

fn compiler_with(f: impl FnOnce(&mut IlcOptions)) -> *mut IlcCompiler {
    let mut o = std::mem::MaybeUninit::<IlcOptions>::uninit();
    // SAFETY: ilc_options_init initialises the whole struct.
    let mut o = unsafe {
        ilc_options_init(o.as_mut_ptr(), std::mem::size_of::<IlcOptions>());
        o.assume_init()
    };
    f(&mut o);
    let mut c = std::ptr::null_mut();
    // SAFETY: valid pointers.
    assert_eq!(
        unsafe { ilc_compiler_new(&o, &mut c, std::ptr::null_mut()) },
        ILC_OK
    );
    c
}

/// `max_compile_ms` stops a compile inside the passes (within about twice the
/// limit), an exponential call tree is rejected before any code is generated, and an empty
/// input is an error.
#[test]
fn limits_bound_the_cost_of_small_inputs() {
    let c = compiler_with(|o| o.max_compile_ms = 200);
    let heavy = hostile_il::inlining_blowup();
    let t = std::time::Instant::now();
    let (st, msg) = compile(c, heavy.as_bytes());
    let took = t.elapsed();
    assert_eq!(st, ILC_ERROR_COMPILE, "{msg}");
    assert!(msg.contains("L0004"), "{msg}");
    assert!(took < std::time::Duration::from_millis(900), "{took:?}");
    let mut tree = String::from("il_cs_2_0\ndcl_num_thread_per_group 1\ncall 0\nendmain\n");
    for k in 0..40 {
        tree += &format!("func {k}\ncall {}\ncall {}\nret\n", k + 1, k + 1);
    }
    tree += "func 40\nmov r0, r0\nret\nend\n";
    let (st, msg) = compile(c, tree.as_bytes());
    assert_eq!(st, ILC_ERROR_COMPILE);
    assert!(msg.contains("L0002") && msg.contains(":3:"), "{msg}");
    for empty in [&b""[..], b"\n\n", &[0u8; 8]] {
        let (st, msg) = compile(c, empty);
        assert_eq!(st, ILC_ERROR_COMPILE, "{empty:?}");
        assert!(msg.contains("E0017"), "{msg}");
    }
    // SAFETY: live handle, freed once.
    unsafe { ilc_compiler_free(c) };
}
