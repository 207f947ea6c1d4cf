//! Textures (guide 7.6: SAMPLE L5155, SAMPLE_L L5327, LOAD L4958, RESINFO L5139,
//! DCL_RESOURCE L4284) and pixel-shader compute (`il_ps`, `vWinCoord0`, `o#`) in the
//! interpreter. Expected values are worked out by hand from the conventions in
//! `isa_amdil::interp::texture`.

use isa_amdil::interp::texture::{SamplerState, TexelFormat, Texture};
use isa_amdil::interp::{self, Dispatch, InterpError};

fn f32s(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn floats(b: &[u8]) -> Vec<f32> {
    words(b).into_iter().map(f32::from_bits).collect()
}

/// A 4x4 one-channel float texture with texel (x, y) = 10 y + x.
fn grid_tex() -> Texture {
    let v: Vec<f32> = (0..16).map(|i| (10 * (i / 4) + i % 4) as f32).collect();
    Texture {
        width: 4,
        height: 4,
        depth: 1,
        channels: 1,
        format: TexelFormat::F32,
        data: f32s(&v),
    }
}

/// Runs a one-work-item compute kernel that stores r9 to UAV 0; returns the four dwords.
fn cs(decls: &str, body: &str, d: &mut Dispatch) -> Vec<u32> {
    let src = format!(
        "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_raw_uav_id(0)\n{decls}\n{body}\n\
         uav_raw_store_id(0) mem.xyzw, l9.x, r9\nend\n"
    );
    d.uavs.insert(0, vec![0; 16]);
    if let Err(e) = interp::run_source(&src, d) {
        panic!("{body}: {e}");
    }
    words(&d.uavs[&0])
}

const DCL2D: &str = "dcl_resource_id(0)_type(2d)_fmtx(float)_fmty(float)_fmtz(float)_fmtw(float)\n\
                     dcl_literal l9, 0, 0, 0, 0";
const DCL2DU: &str =
    "dcl_resource_id(0)_type(2d,unnorm)_fmtx(float)_fmty(float)_fmtz(float)_fmtw(float)\n\
     dcl_literal l9, 0, 0, 0, 0";

#[test]
fn sample_point_normalized_and_missing_components() {
    let mut d = Dispatch::new([1, 1, 1]);
    d.textures.insert(0, grid_tex());
    // (0.6, 0.3) * 4 = (2.4, 1.2) -> texel (2, 1) = 12; missing channels (0, 0, 1.0).
    let r = cs(
        &format!("{DCL2D}\ndcl_literal l0, 0.6, 0.3, 0, 0"),
        "sample_resource(0)_sampler(0) r9, l0.xyxx",
        &mut d,
    );
    assert_eq!(r, [12.0f32.to_bits(), 0, 0, 1.0f32.to_bits()]);
}

#[test]
fn sample_linear_unnormalized_with_wrap() {
    let mut d = Dispatch::new([1, 1, 1]);
    d.textures.insert(0, grid_tex());
    d.samplers
        .insert(3, SamplerState::parse("linear,wrap").unwrap());
    // texel space (1.0, 0.5): between texel 0 and 1 of row 0 -> 0.5.
    // (0.0, 0.5): between texel -1 (wraps to 3) and 0 -> (3 + 0) / 2 = 1.5.
    let r = cs(
        &format!("{DCL2DU}\ndcl_literal l0, 1.0, 0.5, 0.0, 0.5"),
        "sample_resource(0)_sampler(3) r1, l0.xyxx\n\
         sample_l_resource(0)_sampler(3) r2, l0.zwzz, l9.x\n\
         mov r9.x, r1.x\nmov r9.y, r2.x",
        &mut d,
    );
    assert_eq!(floats(&d.uavs[&0])[..2], [0.5, 1.5], "{r:x?}");
}

#[test]
fn load_offsets_out_of_range_and_resinfo() {
    let mut d = Dispatch::new([1, 1, 1]);
    d.textures.insert(0, grid_tex());
    let r = cs(
        &format!("{DCL2D}\ndcl_literal l0, 1, 2, 0, 0\ndcl_literal l1, 4, 0, 0, 0"),
        "load_resource(0)_aoffimmi(1,0,0) r1, l0\n\
         load_resource(0) r2, l1\n\
         resinfo_resource(0)_uint r3, l9.x\n\
         mov r9.x, r1.x\nmov r9.y, r2.x\nmov r9.z, r3.x\nmov r9.w, r3.w",
        &mut d,
    );
    // (1 + 1, 2) = 22; (4, 0) is outside -> 0; width 4; one mip level.
    assert_eq!(r, [22.0f32.to_bits(), 0, 4, 1]);
}

#[test]
fn arrays_and_3d_select_layers() {
    let mut d = Dispatch::new([1, 1, 1]);
    // 2x1 texture with 3 layers: layer k holds (k, k + 0.5).
    d.textures.insert(
        0,
        Texture {
            width: 2,
            height: 1,
            depth: 3,
            channels: 1,
            format: TexelFormat::F32,
            data: f32s(&[0.0, 0.5, 1.0, 1.5, 2.0, 2.5]),
        },
    );
    let r = cs(
        "dcl_resource_id(0)_type(2darray,unnorm)_fmtx(float)_fmty(float)_fmtz(float)_fmtw(float)\n\
         dcl_literal l9, 0, 0, 0, 0\ndcl_literal l0, 1.5, 0.5, 1.6, 0\n\
         dcl_literal l1, 1.5, 0.5, 7.0, 0",
        // layer round(1.6) = 2 -> 2.5; layer 7 clamps to 2 -> 2.5
        "sample_resource(0)_sampler(0) r1, l0\nsample_resource(0)_sampler(0) r2, l1\n\
         mov r9.x, r1.x\nmov r9.y, r2.x",
        &mut d,
    );
    assert_eq!(floats(&d.uavs[&0])[..2], [2.5, 2.5], "{r:x?}");
}

#[test]
fn pixel_shader_compute_writes_outputs_per_pixel() {
    // A 10x3 domain (not a multiple of the 8x8 tiles): o0 = texel at the pixel's centre in
    // texel space, o1 = vWinCoord0.
    let src = "il_ps_2_0\n\
               dcl_input_position_interp(linear_noperspective) vWinCoord0.xy__\n\
               dcl_output_generic o0\ndcl_output_generic o1\n\
               dcl_resource_id(0)_type(2d,unnorm)_fmtx(float)_fmty(float)_fmtz(float)_fmtw(float)\n\
               sample_resource(0)_sampler(0) r0, vWinCoord0.xyxx\n\
               mov o0, r0\nmov o1, vWinCoord0\nend\n";
    let mut d = Dispatch::new([1, 1, 1]);
    let v: Vec<f32> = (0..30).map(|i| i as f32).collect();
    d.textures.insert(
        0,
        Texture {
            width: 10,
            height: 3,
            depth: 1,
            channels: 1,
            format: TexelFormat::F32,
            data: f32s(&v),
        },
    );
    d.domain = Some([10, 3]);
    interp::run_source(src, &mut d).unwrap();
    let o0 = floats(&d.ps_outputs[&0]);
    let o1 = floats(&d.ps_outputs[&1]);
    assert_eq!(o0.len(), 10 * 3 * 4);
    for y in 0..3 {
        for x in 0..10 {
            let p = (y * 10 + x) * 4;
            assert_eq!(o0[p], (y * 10 + x) as f32, "pixel ({x},{y})");
            assert_eq!(
                o1[p..p + 4],
                [x as f32 + 0.5, y as f32 + 0.5, 0.0, 1.0],
                "pixel ({x},{y})"
            );
        }
    }
}

#[test]
fn errors_name_the_problem() {
    let mut d = Dispatch::new([1, 1, 1]);
    d.uavs.insert(0, vec![0; 16]);
    // no texture bound
    let src = format!(
        "il_cs_2_0\ndcl_num_thread_per_group 1\n{DCL2D}\n\
         sample_resource(0)_sampler(0) r0, l9\nend\n"
    );
    let e = interp::run_source(&src, &mut d).unwrap_err();
    assert!(
        matches!(e, InterpError::MissingBuffer(ref m) if m.contains("texture 0")),
        "{e}"
    );
    // undeclared resource
    let src = "il_cs_2_0\ndcl_num_thread_per_group 1\ndcl_literal l0, 0, 0, 0, 0\n\
               load_resource(5) r0, l0\nend\n";
    let e = interp::run_source(src, &mut d).unwrap_err();
    assert!(e.to_string().contains("resource 5 is not declared"), "{e}");
    // cube maps are not modelled
    let src = "il_cs_2_0\ndcl_num_thread_per_group 1\n\
               dcl_resource_id(0)_type(cubemap)_fmtx(float)_fmty(float)_fmtz(float)_fmtw(float)\nend\n";
    let e = interp::run_source(src, &mut d).unwrap_err();
    assert!(matches!(e, InterpError::Unsupported { .. }), "{e}");
    // a pixel shader needs a domain
    let src = "il_ps_2_0\ndcl_output_generic o0\nmov o0, vWinCoord0\nend\n";
    let e = interp::run_source(src, &mut Dispatch::new([1, 1, 1])).unwrap_err();
    assert!(e.to_string().contains("domain"), "{e}");
}
