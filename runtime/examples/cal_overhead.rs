//! Measures what the CAL runtime adds on the emulator device: the cost of a JIT cache hit
//! (`calclCompile` of a kernel compiled before, and `calModuleLoad` of its image again), and
//! per launch the time of the whole `calCtxRunProgram` against the emulator's execution of
//! the kernel. Run it optimized:
//! `cargo run --profile dev-opt -p ilc-calrt --example cal_overhead`.

use std::ffi::{c_void, CString};
use std::time::Instant;

use aticalrt::ffi::*;
use aticalrt::types::*;

const KERNEL: &str = "il_ps_2_0
dcl_input_position_interp(linear_noperspective) v0.xy__
dcl_output_generic o0
dcl_cb cb0[1]
dcl_resource_id(0)_type(2d,unnorm)_fmtx(float)_fmty(float)_fmtz(float)_fmtw(float)
sample_resource(0)_sampler(0) r0, v0.xyxx
mul r1.x, r0.x, cb0[0].x
add r1.x, r1.x, cb0[0].y
mov o0, r1.xxxx
end
";

fn ok(r: CALresult, what: &str) {
    assert_eq!(
        r,
        CAL_RESULT_OK,
        "{what}: {}",
        aticalrt::error::last(aticalrt::error::Channel::Runtime)
    );
}

fn main() {
    unsafe {
        ok(calInit(), "calInit");
        let mut dev = 0;
        ok(calDeviceOpen(&mut dev, 0), "open");
        let mut ctx = 0;
        ok(calCtxCreate(&mut ctx, dev), "ctx");
        let src = CString::new(KERNEL).unwrap();

        // JIT: the first compile misses, the next ones hit.
        let mut obj: *mut c_void = std::ptr::null_mut();
        let t = Instant::now();
        ok(
            calclCompile(&mut obj, CAL_LANGUAGE_IL, src.as_ptr(), 8),
            "compile",
        );
        let miss = t.elapsed();
        let n = 20_000;
        let t = Instant::now();
        for _ in 0..n {
            let mut o: *mut c_void = std::ptr::null_mut();
            ok(
                calclCompile(&mut o, CAL_LANGUAGE_IL, src.as_ptr(), 8),
                "compile",
            );
            ok(calclFreeObject(o), "free");
        }
        let hit = t.elapsed() / n;
        // A larger kernel: the hit cost grows with the source (hashed and compared in full).
        let mut big = String::from("il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(0)\n");
        big.push_str("mov r0.x, vAbsTidFlat.x\n");
        for i in 0..400 {
            big.push_str(&format!("iadd r0.x, r0.x, l0.x ; step {i}\n"));
        }
        big.push_str("uav_raw_store_id(0) mem.x, r0.x, r0.x\nend\n");
        big = big.replace(
            "dcl_raw_uav_id(0)\n",
            "dcl_raw_uav_id(0)\ndcl_literal l0, 1, 0, 0, 0\n",
        );
        let big_src = CString::new(big.clone()).unwrap();
        let mut o: *mut c_void = std::ptr::null_mut();
        ok(
            calclCompile(&mut o, CAL_LANGUAGE_IL, big_src.as_ptr(), 8),
            "compile",
        );
        ok(calclFreeObject(o), "free");
        let t = Instant::now();
        for _ in 0..n {
            let mut o: *mut c_void = std::ptr::null_mut();
            ok(
                calclCompile(&mut o, CAL_LANGUAGE_IL, big_src.as_ptr(), 8),
                "compile",
            );
            ok(calclFreeObject(o), "free");
        }
        let big_hit = t.elapsed() / n;
        println!(
            "JIT: calclCompile hit of a {} byte source {:.2} us",
            big.len(),
            big_hit.as_secs_f64() * 1e6
        );
        let mut image: *mut c_void = std::ptr::null_mut();
        let mut o = obj;
        ok(calclLink(&mut image, &mut o, 1), "link");
        let mut module = 0;
        ok(calModuleLoad(&mut module, ctx, image), "load");
        let t = Instant::now();
        for _ in 0..n {
            let mut m = 0;
            ok(calModuleLoad(&mut m, ctx, image), "load");
            ok(calModuleUnload(ctx, m), "unload");
        }
        let load_hit = t.elapsed() / n;
        println!("JIT: calclCompile miss {:.2} ms, hit {:.2} us (source {} bytes); calModuleLoad of a loaded image {:.2} us",
            miss.as_secs_f64() * 1e3, hit.as_secs_f64() * 1e6, KERNEL.len(), load_hit.as_secs_f64() * 1e6);

        let mut func = 0;
        ok(
            calModuleGetEntry(&mut func, ctx, module, c"main".as_ptr()),
            "entry",
        );
        println!("| domain | calls | wall per call | runtime (bind + write back) | device copies + setup | emulator execution | runtime share |");
        println!("|---|---|---|---|---|---|---|");
        for size in [8u32, 32, 128, 512] {
            let mut res = [0u32; 3];
            ok(
                calResAllocLocal2D(&mut res[0], dev, size, size, 11, 0),
                "alloc",
            );
            ok(calResAllocLocal1D(&mut res[1], dev, 1, 13, 0), "alloc");
            ok(
                calResAllocLocal2D(&mut res[2], dev, size, size, 11, 0),
                "alloc",
            );
            for (r, name) in res.iter().zip([c"i0", c"cb0", c"o0"]) {
                let mut mem = 0;
                ok(calCtxGetMem(&mut mem, ctx, *r), "mem");
                let mut nm = 0;
                ok(
                    calModuleGetName(&mut nm, ctx, module, name.as_ptr()),
                    "name",
                );
                ok(calCtxSetMem(ctx, nm, mem), "set");
            }
            let d = CALdomain {
                x: 0,
                y: 0,
                width: size,
                height: size,
            };
            let calls = (200_000 / (size * size)).clamp(3, 2000);
            let (mut total, mut device, mut exec) = (0u64, 0u64, 0u64);
            let t = Instant::now();
            for _ in 0..calls {
                let mut e = 0;
                ok(calCtxRunProgram(&mut e, ctx, func, &d), "run");
                let s = aticalrt::runtime::with(|r| Ok(r.last_run)).unwrap();
                total += s.total_ns;
                device += s.device_ns;
                exec += s.exec_ns;
            }
            let wall = t.elapsed().as_nanos() as u64 / u64::from(calls);
            let c = u64::from(calls);
            let (total, device, exec) = (total / c, device / c, exec / c);
            let runtime = wall - device;
            println!(
                "| {size}x{size} | {calls} | {:.1} us | {:.1} us | {:.1} us | {:.1} us | {:.1}% |",
                wall as f64 / 1e3,
                runtime as f64 / 1e3,
                (device - exec) as f64 / 1e3,
                exec as f64 / 1e3,
                100.0 * (wall - exec) as f64 / wall as f64
            );
            let _ = total;
        }
        ok(calShutdown(), "shutdown");
    }
}
