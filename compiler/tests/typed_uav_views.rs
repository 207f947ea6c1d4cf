//! Typed UAVs of every address shape and of 1, 2, 3 and 4 components per element, the
//! interpreter against the emulator running the compiled code (`ilc::verify`), with the
//! resource shape given as the launch's view (`isa_amdil::interp::typed_uav`): stores,
//! loads with the format defaults, atomics, and coordinates past every edge (dropped
//! stores, zero loads). Each case also checks the expected bytes of one run by hand and
//! that a mutant (a wrong row pitch) is caught.

use ilc::verify::{verify, verify_against, Inputs, VerifyOptions};
use ilc::Compiler;
use isa_amdil::interp::typed_uav::UavView;
use isa_amdil::interp::{run_source, Dispatch};

/// 8x8 threads per group, a 2x2 grid: coordinates 0..16 in x and y, past the views below.
fn store_kernel(ty: &str, fmt: &str, coord: &str) -> String {
    format!(
        "il_cs_2_0\ndcl_num_thread_per_group 8, 8, 1\n\
         dcl_uav_id(0)_type({ty})_fmtx({fmt})\n\
         dcl_literal l0, 100, 7, 9, 3\n\
         imad r0.x, vAbsTid.y, l0.x, vAbsTid.x\n\
         mov r0.zw, l0.yyyz\n\
         iadd r0.y, vAbsTid.x, vAbsTid.y\n\
         uav_store_id(0) {coord}, r0\nend\n"
    )
}

fn inputs(view: UavView, extra: &[(u32, usize)]) -> Inputs {
    let mut i = Inputs::default();
    let elems = view.dims.iter().product::<u32>() as usize;
    i.uavs
        .insert(0, vec![0xab; elems * view.components as usize * 4]);
    for &(id, bytes) in extra {
        i.uavs.insert(id, vec![0xcd; bytes]);
    }
    i.uav_views.insert(0, view);
    i.grid = Some([2, 2, 1]);
    i
}

fn check(src: &str, inputs: Inputs, mutant: Option<String>) {
    let c = Compiler::default();
    let opts = VerifyOptions {
        dispatches: 1,
        inputs: Some(inputs),
        ..VerifyOptions::default()
    };
    let r = verify(&c, src.as_bytes(), &opts).expect("runs");
    assert_eq!(r.compared, 1, "{r}\n{src}");
    assert!(r.passed(), "{r}\n{src}");
    if let Some(m) = mutant {
        let r = verify_against(&c, src.as_bytes(), m.as_bytes(), &opts).expect("runs");
        assert!(r.mismatch_count > 0, "mutant not caught: {r}\n{m}");
    }
}

/// The interpreter's result for `src` over `inputs` (uav `id`, as words).
fn interpret(src: &str, inputs: &Inputs, id: u32) -> Vec<u32> {
    let mut d = Dispatch::new(inputs.grid.unwrap_or([1, 1, 1]));
    d.uavs = inputs.uavs.clone();
    d.uav_views = inputs.uav_views.clone();
    run_source(src, &mut d).expect("interprets");
    d.uavs[&id]
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn two_d_stores_of_every_component_count() {
    for comps in 1..=4u32 {
        let view = UavView {
            components: comps,
            dims: [11, 5, 1],
        };
        let src = store_kernel("2d", "uint", "vAbsTid.xy");
        let inp = inputs(view, &[]);
        // By hand: element (x, y) holds (x + 100 y, x + y, 7, 9) cut to `comps`.
        let got = interpret(&src, &inp, 0);
        for y in 0..5u32 {
            for x in 0..11u32 {
                let at = ((y * 11 + x) * comps) as usize;
                let want = [x + 100 * y, x + y, 7, 9];
                assert_eq!(&got[at..at + comps as usize], &want[..comps as usize]);
            }
        }
        // A mutant using the x coordinate twice (no rows) is caught.
        let mutant = src.replace("vAbsTid.xy, r0", "vAbsTid.xx, r0");
        check(&src, inp, Some(mutant));
    }
}

#[test]
fn one_d_arrays_three_d_and_buffers() {
    for (ty, coord, dims) in [
        ("buffer", "vAbsTid.x", [13, 1, 1]),
        ("1d", "vAbsTid.xy", [9, 1, 1]),
        ("1darray", "vAbsTid.xy", [9, 6, 1]),
        ("2darray", "vAbsTid.xyx", [7, 6, 3]),
        ("3d", "vAbsTid.xyy", [12, 10, 2]),
    ] {
        for comps in [1, 2, 4] {
            let view = UavView {
                components: comps,
                dims,
            };
            let src = store_kernel(ty, "sint", coord);
            check(&src, inputs(view, &[]), None);
        }
    }
}

#[test]
fn loads_read_the_components_and_give_the_format_defaults() {
    // Thread (x, y) loads element (x, y) of uav0 (some past the 6x4 view) and writes the
    // four components to uav1 at its flat id: components the element lacks are (_, 0, 0, 1)
    // or 1.0 for float; out of range, the element's components read 0.
    for fmt in ["uint", "float"] {
        for comps in 1..=4u32 {
            let src = format!(
                "il_cs_2_0\ndcl_num_thread_per_group 8, 8, 1\n\
                 dcl_uav_id(0)_type(2d)_fmtx({fmt})\ndcl_raw_uav_id(1)\n\
                 dcl_literal l0, 4, 0, 0, 0\n\
                 uav_load_id(0) r0, vAbsTid.xy\n\
                 ishl r1.x, vAbsTidFlat.x, l0.x\n\
                 uav_raw_store_id(1) mem, r1.x, r0\nend\n"
            );
            let view = UavView {
                components: comps,
                dims: [6, 4, 1],
            };
            let mut inp = inputs(view, &[(1, 256 * 16)]);
            let words: Vec<u8> = (0..6 * 4 * comps)
                .flat_map(|i| (i + 1).to_le_bytes())
                .collect();
            inp.uavs.insert(0, words);
            let got = interpret(&src, &inp, 1);
            // Thread (2, 1) of group (0, 0): flat id 10 = element 1 * 6 + 2 = 8.
            let one = if fmt == "float" { 0x3f80_0000 } else { 1 };
            let mut want = [0, 0, 0, one];
            for (c, w) in want.iter_mut().enumerate().take(comps as usize) {
                *w = 8 * comps + c as u32 + 1;
            }
            assert_eq!(&got[40..44], &want, "{fmt} x{comps}");
            let mutant = src.replace(
                "uav_load_id(0) r0, vAbsTid.xy",
                "uav_load_id(0) r0, vAbsTid.yx",
            );
            check(&src, inp, Some(mutant));
        }
    }
}

#[test]
fn atomics_address_the_first_component_of_an_element() {
    // Every thread adds 1 to element (x mod 5, y mod 3) of a 5x3 view of 2-component
    // elements: the first components count the threads that map there, the second stay.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 8, 8, 1\n\
               dcl_uav_id(0)_type(2d)_fmtx(uint)\n\
               dcl_literal l0, 5, 3, 1, 0\n\
               umod r0.x, vAbsTid.x, l0.x\numod r0.y, vAbsTid.y, l0.y\n\
               uav_add_id(0) r0.xy, l0.z\nend\n";
    let view = UavView {
        components: 2,
        dims: [5, 3, 1],
    };
    let mut inp = inputs(view, &[]);
    inp.uavs.insert(0, vec![0; 5 * 3 * 2 * 4]);
    let got = interpret(src, &inp, 0);
    // 16 x values: residues 0 have 4 (0, 5, 10, 15), the others 3; 16 y: 0 has 6, 1 and 2 5.
    assert_eq!(got[0], 4 * 6);
    assert_eq!(got[1], 0);
    assert_eq!(got[2 * (5 + 1)], 3 * 5);
    check(src, inp, Some(src.replace("r0.xy, l0.z", "r0.yx, l0.z")));
}

#[test]
fn typed_access_to_a_raw_uav_uses_its_linear_view() {
    // `uav_store`/`uav_load` on a UAV declared raw: 32-bit elements, as wide as the buffer.
    let src = "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_raw_uav_id(3)\n\
               dcl_literal l0, 5, 0, 0, 0\n\
               uav_load_id(3) r0, vAbsTidFlat.x\niadd r0.x, r0.x, l0.x\n\
               uav_store_id(3) vAbsTidFlat.x, r0\nend\n";
    let mut inp = Inputs::default();
    inp.uavs
        .insert(3, (0..200u32).flat_map(|v| v.to_le_bytes()).collect());
    inp.grid = Some([4, 1, 1]);
    let got = interpret(src, &inp, 3);
    assert_eq!(got, (5..205).collect::<Vec<u32>>());
    check(src, inp, None);
}
