//! The C API called from Rust: the JIT cache, output formats, calMemCopy of 2-D regions,
//! and calls from several threads at once. The runtime is process-global, so the tests of
//! this file take one lock and each runs between its own calInit and calShutdown.

use ilc_test_support::{assert_success, skip_or_fail};
use std::ffi::{c_void, CString};
use std::sync::Mutex;

use aticalrt::error::{last, Channel};
use aticalrt::ffi::*;
use aticalrt::types::*;

static SERIAL: Mutex<()> = Mutex::new(());

const FLOAT_4: u32 = 13;
const UBYTE_4: u32 = 2;
const UINT_1: u32 = 16;
const UINT_2: u32 = 17;
const FLOAT16_2: u32 = 45;

fn ok(r: CALresult) {
    assert_eq!(
        r,
        CAL_RESULT_OK,
        "{} / {}",
        last(Channel::Runtime),
        last(Channel::Compiler)
    );
}

/// The domain of `width` x `height` points at (`x`, `y`).
fn domain(x: u32, y: u32, width: u32, height: u32) -> CALdomain {
    CALdomain {
        x,
        y,
        width,
        height,
    }
}

/// Compiles, links and loads `src`; returns (module, func).
unsafe fn load(ctx: u32, src: &str) -> (u32, u32) {
    let src = CString::new(src).unwrap();
    let mut obj: *mut c_void = std::ptr::null_mut();
    unsafe {
        ok(calclCompile(&mut obj, CAL_LANGUAGE_IL, src.as_ptr(), 8));
        let mut image: *mut c_void = std::ptr::null_mut();
        ok(calclLink(&mut image, &mut obj, 1));
        let mut module = 0;
        ok(calModuleLoad(&mut module, ctx, image));
        let mut func = 0;
        ok(calModuleGetEntry(&mut func, ctx, module, c"main".as_ptr()));
        ok(calclFreeImage(image));
        ok(calclFreeObject(obj));
        (module, func)
    }
}

unsafe fn bind(ctx: u32, module: u32, name: &str, res: u32) {
    let name = CString::new(name).unwrap();
    unsafe {
        let mut mem = 0;
        ok(calCtxGetMem(&mut mem, ctx, res));
        let mut n = 0;
        ok(calModuleGetName(&mut n, ctx, module, name.as_ptr()));
        ok(calCtxSetMem(ctx, n, mem));
    }
}

unsafe fn read<T: Copy>(res: u32, n: usize) -> Vec<T> {
    unsafe {
        let mut p: *mut c_void = std::ptr::null_mut();
        let mut pitch = 0;
        ok(calResMap(&mut p, &mut pitch, res, 0));
        let v = std::slice::from_raw_parts(p as *const T, n).to_vec();
        ok(calResUnmap(res));
        v
    }
}

/// Runs `body(dev, ctx)` on device 0 and a new context of it, between calInit and
/// calShutdown, holding the file's lock.
fn session(body: impl FnOnce(u32, u32)) {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let (dev, ctx) = unsafe { open() };
    body(dev, ctx);
    ok(calShutdown());
}

unsafe fn open() -> (u32, u32) {
    unsafe {
        ok(calInit());
        let mut dev = 0;
        ok(calDeviceOpen(&mut dev, 0));
        let mut ctx = 0;
        ok(calCtxCreate(&mut ctx, dev));
        (dev, ctx)
    }
}

const CONST_PS: &str = "il_ps_2_0
dcl_output_generic o0
dcl_literal l0, 0.25, 1.5, -1.0, 0.5
mov o0, l0
end
";

#[test]
fn a_second_compile_of_the_same_source_is_a_cache_hit() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    // A source no other test compiles.
    let src = CString::new(format!("{CONST_PS}; cache test\n")).unwrap();
    let before = aticalrt::compiler::cache_stats();
    for _ in 0..3 {
        let mut obj: *mut c_void = std::ptr::null_mut();
        unsafe {
            ok(calclCompile(&mut obj, CAL_LANGUAGE_IL, src.as_ptr(), 8));
            ok(calclFreeObject(obj));
        }
    }
    let after = aticalrt::compiler::cache_stats();
    assert_eq!(after.misses - before.misses, 1);
    assert_eq!(after.hits - before.hits, 2);
}

#[test]
fn pixel_outputs_are_stored_in_the_resource_format() {
    session(|dev, ctx| unsafe {
        let (module, func) = load(ctx, CONST_PS);
        for (format, want) in [
            (UBYTE_4, vec![64u8, 255, 0, 128]),
            (
                FLOAT16_2,
                [0x3400u16, 0x3e00]
                    .iter()
                    .flat_map(|h| h.to_le_bytes())
                    .collect(),
            ),
            (
                FLOAT_4,
                [0.25f32, 1.5, -1.0, 0.5]
                    .iter()
                    .flat_map(|f| f.to_le_bytes())
                    .collect(),
            ),
        ] {
            let mut out = 0;
            // A 12x10 resource, a 9x7 domain: pixels outside the domain stay zero.
            ok(calResAllocLocal2D(&mut out, dev, 12, 10, format, 0));
            bind(ctx, module, "o0", out);
            let d = domain(0, 0, 9, 7);
            let mut e = 0;
            ok(calCtxRunProgram(&mut e, ctx, func, &d));
            let eb = want.len();
            let bytes: Vec<u8> = read(out, 12 * 10 * eb);
            for y in 0..10 {
                for x in 0..12 {
                    let px = &bytes[(y * 12 + x) * eb..][..eb];
                    if x < 9 && y < 7 {
                        assert_eq!(px, &want[..], "format {format} ({x}, {y})");
                    } else {
                        assert!(px.iter().all(|&b| b == 0), "format {format} ({x}, {y})");
                    }
                }
            }
        }
    });
}

#[test]
fn mem_copy_copies_rows_into_a_wider_resource() {
    session(|dev, ctx| unsafe {
        let (mut src, mut dst) = (0, 0);
        ok(calResAllocLocal2D(&mut src, dev, 3, 2, UINT_1, 0));
        ok(calResAllocLocal2D(&mut dst, dev, 5, 3, UINT_1, 0));
        let mut p: *mut c_void = std::ptr::null_mut();
        let mut pitch = 0;
        ok(calResMap(&mut p, &mut pitch, src, 0));
        assert_eq!(pitch, 3);
        std::slice::from_raw_parts_mut(p as *mut u32, 6).copy_from_slice(&[1, 2, 3, 4, 5, 6]);
        ok(calResUnmap(src));
        let (mut ms, mut md) = (0, 0);
        ok(calCtxGetMem(&mut ms, ctx, src));
        ok(calCtxGetMem(&mut md, ctx, dst));
        let mut e = 0;
        ok(calMemCopy(&mut e, ctx, ms, md, 0));
        ok(calCtxIsEventDone(ctx, e));
        let got: Vec<u32> = read(dst, 15);
        assert_eq!(got, [1, 2, 3, 0, 0, 4, 5, 6, 0, 0, 0, 0, 0, 0, 0]);
        // The other way round the destination is too small.
        assert_eq!(calMemCopy(&mut e, ctx, md, ms, 0), CAL_RESULT_ERROR);
        assert!(last(Channel::Runtime).contains("smaller"));
    });
}

const UAV_CS: &str = "il_cs_2_0
dcl_num_thread_per_group 64
dcl_raw_uav_id(0)
dcl_cb cb0[1]
dcl_literal l0, 2, 0, 0, 0
ishl r0.x, vAbsTidFlat.x, l0.x
iadd r1.x, vAbsTidFlat.x, cb0[0].x
uav_raw_store_id(0) mem.x, r0.x, r1.x
end
";

#[test]
fn contexts_on_several_threads_run_at_once() {
    session(|dev, _ctx| unsafe {
        let threads: Vec<_> = (0..4u32)
            .map(|t| {
                std::thread::spawn(move || {
                    let mut ctx = 0;
                    ok(calCtxCreate(&mut ctx, dev));
                    let (module, func) = load(ctx, UAV_CS);
                    let (mut out, mut cb) = (0, 0);
                    ok(calResAllocLocal1D(&mut out, dev, 256, UINT_1, 0));
                    ok(calResAllocLocal1D(&mut cb, dev, 1, 37, 0));
                    let mut p: *mut c_void = std::ptr::null_mut();
                    let mut pitch = 0;
                    ok(calResMap(&mut p, &mut pitch, cb, 0));
                    *(p as *mut u32) = 1000 * t;
                    ok(calResUnmap(cb));
                    bind(ctx, module, "uav0", out);
                    bind(ctx, module, "cb0", cb);
                    for _ in 0..3 {
                        let g = CALprogramGrid {
                            func,
                            grid_block: CALdomain3D::default(),
                            grid_size: CALdomain3D {
                                width: 4,
                                height: 1,
                                depth: 1,
                            },
                            flags: 0,
                        };
                        let mut e = 0;
                        ok(calCtxRunProgramGrid(&mut e, ctx, &g as *const _ as *mut _));
                    }
                    let got: Vec<u32> = read(out, 256);
                    let want: Vec<u32> = (0..256).map(|i| i + 1000 * t).collect();
                    assert_eq!(got, want);
                    ok(calCtxDestroy(ctx));
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread");
        }
    });
}

const INCREMENT_CS: &str = "il_cs_2_0
dcl_num_thread_per_group 64
dcl_raw_uav_id(0)
dcl_literal l0, 2, 1, 0, 0
ishl r0.x, vAbsTidFlat.x, l0.x
uav_raw_load_id(0) r1.x, r0.x
iadd r1.x, r1.x, l0.y
uav_raw_store_id(0) mem.x, r0.x, r1.x
end
";

/// Runs on one context from several threads happen one at a time: each adds 1 to every
/// element of the same resource, so a run that overlapped another (both copying the old
/// contents in, both writing back) would lose an increment; the events are 1..=N.
#[test]
fn runs_on_one_context_from_several_threads_are_serialized() {
    session(|dev, ctx| unsafe {
        let (module, func) = load(ctx, INCREMENT_CS);
        let mut out = 0;
        ok(calResAllocLocal1D(&mut out, dev, 8192, UINT_1, 0));
        bind(ctx, module, "uav0", out);
        let events: Vec<u32> = (0..4)
            .map(|_| {
                std::thread::spawn(move || {
                    (0..5)
                        .map(|_| {
                            let g = CALprogramGrid {
                                func,
                                grid_block: CALdomain3D::default(),
                                grid_size: CALdomain3D {
                                    width: 128,
                                    height: 1,
                                    depth: 1,
                                },
                                flags: 0,
                            };
                            let mut e = 0;
                            ok(calCtxRunProgramGrid(&mut e, ctx, &g as *const _ as *mut _));
                            e
                        })
                        .collect::<Vec<u32>>()
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .flat_map(|t| t.join().expect("thread"))
            .collect();
        let mut sorted = events.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (1..=20).collect::<Vec<u32>>());
        let got: Vec<u32> = read(out, 8192);
        let lost = got.iter().filter(|&&v| v != 20).count();
        assert_eq!(
            lost, 0,
            "elements that lost increments (first: {:?})",
            got[0]
        );
    });
}

#[test]
fn res_create_runs_kernels_on_application_memory() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    unsafe {
        let (dev, ctx) = open();
        let (module, func) = load(ctx, UAV_CS);
        let mut host = vec![0u32; 64];
        let mut create: *mut c_void = std::ptr::null_mut();
        ok(calExtGetProc(
            &mut create,
            0x1006,
            c"calResCreate1D".as_ptr(),
        ));
        assert_eq!(create, calResCreate1D as *mut c_void);
        let mut out = 0;
        // Too small a size is refused.
        assert_eq!(
            calResCreate1D(&mut out, dev, host.as_mut_ptr().cast(), 64, UINT_1, 255, 0),
            CAL_RESULT_INVALID_PARAMETER
        );
        ok(calResCreate1D(
            &mut out,
            dev,
            host.as_mut_ptr().cast(),
            64,
            UINT_1,
            256,
            0,
        ));
        let mut cb = 0;
        ok(calResAllocLocal1D(&mut cb, dev, 1, 37, 0));
        bind(ctx, module, "uav0", out);
        bind(ctx, module, "cb0", cb);
        let d = domain(0, 0, 64, 1);
        let mut e = 0;
        ok(calCtxRunProgram(&mut e, ctx, func, &d));
        ok(calShutdown());
        assert_eq!(host, (0..64).collect::<Vec<u32>>());
    }
}

const TYPED_CS: &str = "il_cs_2_0
dcl_num_thread_per_group 64
dcl_uav_id(0)_type(buffer)_fmtx(uint)
dcl_literal l0, 5, 0, 0, 0
iadd r0.x, vAbsTidFlat.x, l0.x
uav_store_id(0) vAbsTidFlat.x, r0.x
end
end
";

#[test]
fn typed_uavs_take_the_resource_shape_and_refuse_converting_formats() {
    session(|dev, ctx| unsafe {
        // The second `end` (as CAL++ emits) is accepted and ignored.
        let (module, func) = load(ctx, TYPED_CS);
        let d = domain(0, 0, 64, 1);
        let mut e = 0;
        let mut out = 0;
        ok(calResAllocLocal1D(&mut out, dev, 64, UINT_1, 0));
        bind(ctx, module, "uav0", out);
        ok(calCtxRunProgram(&mut e, ctx, func, &d));
        let got: Vec<u32> = read(out, 64);
        assert_eq!(got, (5..69).collect::<Vec<u32>>());
        // Two components per element: the store writes (x, y) of its source, here
        // `r0.x` broadcast (a scalar source's swizzle is .xxxx).
        let mut wide = 0;
        ok(calResAllocLocal1D(&mut wide, dev, 64, UINT_2, 0));
        bind(ctx, module, "uav0", wide);
        ok(calCtxRunProgram(&mut e, ctx, func, &d));
        let got: Vec<u32> = read(wide, 128);
        let want: Vec<u32> = (5..69).flat_map(|v| [v, v]).collect();
        assert_eq!(got, want);
        // A 2-D typed UAV over a 16x4 FLOAT_4 resource: (x, y) = (id % 16, id / 16).
        let src = TYPED_CS
            .replace("_type(buffer)_fmtx(uint)", "_type(2d)_fmtx(float)")
            .replace(
                "uav_store_id(0) vAbsTidFlat.x, r0.x",
                "dcl_literal l1, 15, 4, 0, 0\niand r1.x, vAbsTidFlat.x, l1.x\n\
                 ushr r1.y, vAbsTidFlat.x, l1.y\nuav_store_id(0) r1.xy, r0.xyxy",
            );
        let (module2, func2) = load(ctx, &src);
        let mut img = 0;
        ok(calResAllocLocal2D(&mut img, dev, 16, 4, FLOAT_4, 0));
        bind(ctx, module2, "uav0", img);
        ok(calCtxRunProgram(&mut e, ctx, func2, &d));
        let got: Vec<u32> = read(img, 256);
        let want: Vec<u32> = (5..69).flat_map(|v| [v, 0, v, 0]).collect();
        assert_eq!(got, want);
        // Formats whose components convert (8-bit normalized) are refused at the run.
        let mut bytes = 0;
        ok(calResAllocLocal1D(&mut bytes, dev, 64, UBYTE_4, 0));
        bind(ctx, module, "uav0", bytes);
        assert_eq!(
            calCtxRunProgram(&mut e, ctx, func, &d),
            CAL_RESULT_NOT_SUPPORTED
        );
        let msg = last(Channel::Runtime);
        assert!(msg.contains("uav0 is a typed UAV"), "{msg}");
        // A cube-map typed UAV is a compile error at its declaration.
        let src = CString::new(TYPED_CS.replace("_type(buffer)", "_type(cube)")).unwrap();
        let mut obj: *mut c_void = std::ptr::null_mut();
        assert_ne!(
            calclCompile(&mut obj, CAL_LANGUAGE_IL, src.as_ptr(), 8),
            CAL_RESULT_OK
        );
        let msg = last(Channel::Compiler);
        assert!(
            msg.contains("error[E0060]") && msg.contains(":3:1") && msg.contains("`cube`"),
            "{msg}"
        );
    });
}

const POSITION_PS: &str = "il_ps_2_0
dcl_output_generic o0
dcl_input_position_interp(linear_noperspective) vWinCoord0.xy__
mov o0, vWinCoord0.xyxy
end
";

/// `calCtxRunProgram` over a domain at (3, 2): the pixel position is absolute (the origin
/// plus the place in the domain) and each pixel lands at its position in the resource.
#[test]
fn pixel_shader_domains_keep_their_origin() {
    session(|dev, ctx| unsafe {
        let (module, func) = load(ctx, POSITION_PS);
        let mut out = 0;
        ok(calResAllocLocal2D(&mut out, dev, 8, 6, FLOAT_4, 0));
        bind(ctx, module, "o0", out);
        let d = domain(3, 2, 4, 3);
        let mut e = 0;
        ok(calCtxRunProgram(&mut e, ctx, func, &d));
        let got: Vec<f32> = read(out, 8 * 6 * 4);
        for y in 0..6usize {
            for x in 0..8usize {
                let px = &got[(y * 8 + x) * 4..(y * 8 + x) * 4 + 2];
                let inside = (3..7).contains(&x) && (2..5).contains(&y);
                let want = if inside {
                    [x as f32 + 0.5, y as f32 + 0.5]
                } else {
                    [0.0, 0.0]
                };
                assert_eq!(px, want, "pixel ({x}, {y})");
            }
        }
        // A domain the resource does not hold at its origin is an error naming both.
        let d = domain(5, 2, 4, 3);
        assert_eq!(calCtxRunProgram(&mut e, ctx, func, &d), CAL_RESULT_ERROR);
        let msg = last(Channel::Runtime);
        assert!(msg.contains("4x3 domain at (5, 2)"), "{msg}");
    });
}

/// The C header's struct sizes and member offsets equal the Rust definitions.
#[test]
fn header_layouts_agree_with_the_rust_types() {
    use std::mem::{offset_of, size_of};
    let Some(lib) = c_layout() else { return };
    let want = format!(
        "{} {} {} {} {} {} {} {} {} {}\n",
        size_of::<CALdomain>(),
        size_of::<CALdeviceinfo>(),
        size_of::<CALdeviceattribs>(),
        offset_of!(CALdeviceattribs, pitch_alignment),
        size_of::<CALdevicestatus>(),
        size_of::<CALprogramGrid>(),
        size_of::<CALprogramGridArray>(),
        size_of::<CALfuncInfo>(),
        offset_of!(CALfuncInfo, total_num_thread_group),
        offset_of!(CALfuncInfo, stack_size_used),
    );
    assert_eq!(lib, want);
}

/// Compiles and runs a C program printing the header's layouts; `None` without `cc`.
fn c_layout() -> Option<String> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let src = std::env::temp_dir().join(format!("ilc-cal-layout-{}.c", std::process::id()));
    let exe = src.with_extension("");
    std::fs::write(
        &src,
        "#include <stdio.h>\n#include <stddef.h>\n#include \"cal.h\"\n#include \"calcl.h\"\n\
         #include \"cal_ext.h\"\nint main(void) {\n\
         printf(\"%zu %zu %zu %zu %zu %zu %zu %zu %zu %zu\\n\", sizeof(CALdomain),\n\
         sizeof(CALdeviceinfo), sizeof(CALdeviceattribs),\n\
         offsetof(CALdeviceattribs, pitch_alignment), sizeof(CALdevicestatus),\n\
         sizeof(CALprogramGrid), sizeof(CALprogramGridArray), sizeof(CALfuncInfo),\n\
         offsetof(CALfuncInfo, totalNumThreadGroup), offsetof(CALfuncInfo, stackSizeUsed));\n\
         return 0;\n}\n",
    )
    .expect("write");
    let cc = std::process::Command::new("cc")
        .args(["-std=c99", "-Wall", "-Werror", "-I"])
        .arg(dir.join("include"))
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output();
    let Ok(cc) = cc else {
        skip_or_fail("no C compiler `cc`");
        return None;
    };
    assert_success(&cc);
    let out = std::process::Command::new(&exe).output().expect("runs");
    let _ = std::fs::remove_file(&src);
    let _ = std::fs::remove_file(&exe);
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// `calDeviceGetAttribs` and `calDeviceGetStatus` fill as many bytes as the caller's
/// `struct_size` says (an older, shorter struct keeps the rest), refuse a size too small to
/// hold a field and a null struct; `calResAllocRemote1D`/`2D` refuse a null or empty device
/// list and leave the handle zero.
#[test]
fn sized_structs_and_remote_allocations_check_their_arguments() {
    session(|dev, _ctx| unsafe {
        let mut full = CALdeviceattribs {
            struct_size: std::mem::size_of::<CALdeviceattribs>() as u32,
            ..Default::default()
        };
        ok(calDeviceGetAttribs(&mut full, 0));
        assert_ne!(full.target, 0);
        let mut short = CALdeviceattribs {
            struct_size: 8,
            local_ram: 0xdead,
            ..Default::default()
        };
        ok(calDeviceGetAttribs(&mut short, 0));
        assert_eq!((short.target, short.local_ram), (full.target, 0xdead));
        short.struct_size = 4;
        assert_eq!(
            calDeviceGetAttribs(&mut short, 0),
            CAL_RESULT_INVALID_PARAMETER
        );
        let msg = last(Channel::Runtime);
        assert!(msg.contains("sizeof(CALdeviceattribs)"), "{msg}");
        let null: *mut CALdeviceattribs = std::ptr::null_mut();
        assert_eq!(calDeviceGetAttribs(null, 0), CAL_RESULT_INVALID_PARAMETER);

        let mut status = CALdevicestatus {
            struct_size: 8,
            avail_uncached_remote_ram: 0xbeef,
            ..Default::default()
        };
        ok(calDeviceGetStatus(&mut status, dev));
        assert_eq!(status.avail_uncached_remote_ram, 0xbeef);
        status.struct_size = 0;
        assert_eq!(
            calDeviceGetStatus(&mut status, dev),
            CAL_RESULT_INVALID_PARAMETER
        );
        let msg = last(Channel::Runtime);
        assert!(msg.contains("sizeof(CALdevicestatus)"), "{msg}");

        let mut res = 7;
        assert_eq!(
            calResAllocRemote1D(&mut res, std::ptr::null(), 1, 64, UINT_1, 0),
            CAL_RESULT_INVALID_PARAMETER
        );
        assert_eq!(res, 0);
        let devs = [dev];
        res = 7;
        assert_eq!(
            calResAllocRemote2D(&mut res, devs.as_ptr(), 0, 8, 8, UINT_1, 0),
            CAL_RESULT_INVALID_PARAMETER
        );
        assert_eq!(res, 0);
        ok(calResAllocRemote2D(
            &mut res,
            devs.as_ptr(),
            1,
            8,
            8,
            UINT_1,
            0,
        ));
        assert_ne!(res, 0);
        ok(calResFree(res));
    });
}
