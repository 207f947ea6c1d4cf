//! Reference interpreter for AMD IL compute kernels: the semantic oracle of the project.
//!
//! [`run`] executes a whole compute dispatch on the CPU: a grid of groups, each group of
//! `dcl_num_thread_per_group` work-items (missing dimensions = 1) running in lock step
//! between `fence_threads` barriers ([`Schedule::LockStep`]) or in shuffled bursts
//! ([`Schedule::Shuffled`]) to expose kernels that rely on 64-wide wavefront lock step.
//! The AST is first decoded ([`prepare`]) into a flat instruction list with resolved
//! registers, literals and jump targets; the execution core never looks at strings.
//!
//! An independent oracle for semantics: nothing here is shared with the compiler's lowering
//! or the emulator except the parsed program and its declarations summary
//! ([`crate::decls`]: what `dcl_*` statements declare, which is syntax, not meaning). What
//! every instruction computes is defined here alone.
//!
//! Modules: [`iops`], [`fops`], [`dops`] hold the per-opcode semantics as pure functions
//! (usable by constant folding); [`memory`] the buffer model and atomics; [`dispatch`] the
//! runner interface shared with the IR interpreter and `spa5-run`; [`program`] the decoded
//! form. The decoder (`decode.rs`, `select.rs`) and the executor (`exec.rs`) are private.
//!
//! ```
//! use isa_amdil::interp::{run_source, Dispatch};
//! let src = "il_cs_2_0\ndcl_num_thread_per_group 4\ndcl_raw_uav_id(0)\n\
//!            dcl_literal l0, 2, 0, 0, 0\n\
//!            mov r0.x, vAbsTidFlat.x\nishl r1.x, r0.x, l0.x\n\
//!            imul r2.x, r0.x, r0.x\nuav_raw_store_id(0) mem.x, r1.x, r2.x\nend\n";
//! let mut d = Dispatch::new([2, 1, 1]);
//! d.uavs.insert(0, vec![0; 32]);
//! let stats = run_source(src, &mut d).unwrap();
//! assert_eq!(stats.work_items, 8);
//! assert_eq!(&d.uavs[&0][12..16], &9u32.to_le_bytes());
//! ```
//!
//! GDS (`dcl_gds`, `gds_*`) is one dispatch-wide, zero-initialised allocation per id,
//! shared by all groups (which run in id order) and not written back.
//!
//! Reports: with [`Dispatch::lds_check`] every pair of work-items touching one LDS dword
//! between two barriers, at least one with a plain store (atomics race only with plain
//! accesses), lands in [`RunStats::lds_races`]; the decoder also warns statically about an
//! LDS load that follows a store with no `fence_threads` between them. Out-of-range
//! accesses are counted, and listed with [`Dispatch::report_oob`].
//!
//! Textures ([`texture`]: `sample`, `sample_l`, `load`, `resinfo` on 1-D/2-D/3-D/array
//! resources, point and linear filtering, four addressing modes) and pixel-shader compute
//! (`il_ps`: each pixel of [`Dispatch::domain`] is a work-item, `vWinCoord0` and `v#` read the
//! pixel centre, `o#` writes [`Dispatch::ps_outputs`]) follow the conventions in [`texture`].
//!
//! R7xx owner-computes LDS (`dcl_lds_size_per_thread`, `dcl_lds_sharing_mode`,
//! `lds_write_vec_lOffset(n)`, `lds_read_vec`): sizes and offsets in dwords; each work-item
//! writes its own area (lane = in-group id mod 64); a read names (owner lane, dword offset)
//! within its 64-wide wavefront's area (relative mode) or wavefront 0's (absolute mode);
//! an owner lane >= 64 or an offset past the declared size reads 0 / drops the write.
//! `lds_read_vec_neighborExch` reads all four dwords and transposes them across the
//! neighbourhood of four consecutive work-items: work-item `4q + j` receives component `j`
//! of the vectors of work-items `4q..4q+3`, in that order (the dst mask applies after the
//! exchange). The four must reach it together ([`InterpError::Divergence`] otherwise).
//!
//! Not supported (each is an [`InterpError::Unsupported`] naming the opcode or operand
//! and its line, never a wrong result): cube maps, MSAA, comparison and gradient
//! sampling, fetch4 with offsets, graphics-only and SM30
//! opcodes (`loop` over `i#`, `b#`/`c#`/`i#` registers),
//! `_divcomp`, two-dimensional register indices, interface calls, and the enum-only opcodes
//! without chapter 7 text other than those listed in `select.rs`.
//!
//! Speed: the execution core runs about 10-14 million IL instructions per second (release
//! build, lock step, 512 work-items; see `tests/interp_dispatch.rs`).
//!
//! # Conventions where the guide leaves results undefined
//!
//! Constant folding and the Maxwell backend must produce the same values.
//!
//! | case | guide | our result | Maxwell |
//! | --- | --- | --- | --- |
//! | `udiv x, 0` / `umod x, 0` | unspecified (L6039, L6143) | `0xFFFFFFFF` | reciprocal sequence + fixup |
//! | `ftoi` NaN / out of range | undefined (L6365) | NaN -> 0, saturate to `i32::MIN/MAX` | `F2I.S32.TRUNC` |
//! | `ftou` NaN / negative / too big | undefined (L6378) | NaN -> 0, `<0` -> 0, too big -> `0xFFFFFFFF` | `F2I.U32.TRUNC` |
//! | `itof`, `utof` rounding | not stated (L6391, L6404) | round to nearest even | `I2F` default |
//! | `ne`, `relop(ne)` with NaN | text copied from `eq` (L7143) | true (unordered) | `FSETP.NEU` |
//! | legacy `mul`/`mad`/`dp*` zero rule | `0*x = 0` (L7134) | `+0.0`, even for NaN/Inf | `.FMZ` |
//! | `mad` rounding | implementation defined (L7049) | fused (one rounding) | `FFMA` |
//! | `rsq`, `sqrt`, `log` of negative | undefined (L7358, L6986) | NaN | `MUFU` |
//! | `inf_else_max` zeroop | implementation choice (L3019) | infinity | |
//! | `ffb_hi` direction | GAP (L6261) | counted from the MSB (`0x80000000 -> 0`), none -> `0xFFFFFFFF` | `FLO.U32.SH` |
//! | `f2f16` rounding | not stated (L6343) | nearest even, overflow -> Inf | `F2F.F16.F32` |
//! | which dword a masked raw/struct load or store component uses | "four consecutive dwords ... 1-4 written depending on the mask" (L8826, L8841) | component i always pairs with `address + 4*i` (identity DX11 resource swizzle): a load into `.y` reads the second dword, a store of `mem.x_z_` writes dwords 0 and 2 | |
//! | dword access with address `& 3 != 0` | must be aligned (L8826) | low two bits ignored | |
//! | out-of-range raw/struct UAV, SRV, LDS, `g[]` | loads 0, stores dropped (L8826) | per dword; atomics do nothing and return 0 | bounds check |
//! | out-of-range `cb`/`icb`/`x#[]` read | GAP | 0 (and `x#[]` stores dropped) | `LDC` of a padded bank |
//! | LDS contents at group start | uninitialised (L3283) | zero | |
//! | call with a full 32-entry stack | skipped (L3498) | skipped | |
//! | `i64div`/`i64mod` (Appendix B enum only) | no text | truncating, remainder with the dividend's sign; `/0` -> all ones; `MIN / -1` wraps | |
//! | 3-D system values' `.w` | invalid (L1408) | 0 | |
//! | typed UAV load, components the resource lacks | format defaults | `(_, 0, 0, 1)` (1.0 for float formats; see [`typed_uav`]) | |
//! | NaN produced by arithmetic | bit pattern undefined (L649) | `0x7FFFFFFF` (f32), `0x7FFFFFFF_FFFFFFFF` (f64); moves, `_neg`, `_abs` keep bits | canonical NaN of FP32 units |
//! | `dmovc` polarity | pseudo code picks src1 when `src0.x == 0` (L7766) | `src0.x != 0 ? src1 : src2`, as `cmov_logical` and DX `dmovc` | `SEL` |
//! | barrier reached by only part of a group | undefined | released once the others end; warning | |
//!
//! Denormals: every single-precision op flushes inputs and outputs (L3063); doubles keep
//! them. Comparisons give `0xFFFFFFFF`/0, `set` gives 1.0/0.0, `icarry`/`iborrow` 1/0.
//! Scalar ops (`rcp rsq sqrt exp log ln exn sin cos tan asin acos atan pow`) read `.w` after
//! the swizzle and broadcast.

#![cfg_attr(
    not(test),
    warn(
        clippy::panic,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::print_stderr,
        clippy::todo
    )
)]

mod decode;
pub mod dispatch;
pub mod dops;
pub mod fops;
pub mod iops;
pub mod memory;
pub mod program;
pub mod texture;
pub mod typed_uav;

mod exec;
mod select;

pub use dispatch::{Dispatch, InterpError, LdsRace, MemSpace, OobAccess, RunStats, Schedule};
pub use program::ExecProgram;

/// Decodes a parsed program into the interpreter's flat form (reusable across runs).
pub fn prepare(program: &crate::ast::Program) -> Result<ExecProgram, InterpError> {
    if crate::macros::needs_expansion(program) {
        // Macros are expanded on a copy (the parser keeps them, so text round-trips).
        let mut expanded = program.clone();
        let diags = crate::macros::expand(&mut expanded);
        if let Some(d) = diags.iter().find(|d| d.is_error()) {
            return Err(InterpError::Parse(d.to_string()));
        }
        return decode::decode(&crate::validate::end::before_end(&expanded));
    }
    // What follows the first `end` is ignored, as by the validator and the compiler.
    decode::decode(&crate::validate::end::before_end(program))
}

/// Runs a whole compute dispatch of `program`; buffers in `dispatch` are updated in place.
pub fn run(
    program: &crate::ast::Program,
    dispatch: &mut Dispatch,
) -> Result<RunStats, InterpError> {
    let p = prepare(program)?;
    exec::execute(&p, dispatch)
}

/// Parses IL text and decodes it (parse errors become [`InterpError::Parse`]).
pub fn prepare_source(source: &str) -> Result<ExecProgram, InterpError> {
    let (prog, diags) = crate::parser::parse(source);
    match prog {
        Some(p) => prepare(&p),
        None => {
            let first = diags
                .iter()
                .find(|d| d.is_error())
                .map_or_else(|| "unknown error".to_string(), |d| d.to_string());
            Err(InterpError::Parse(first))
        }
    }
}

/// Parses, decodes and runs IL text over `dispatch`.
pub fn run_source(source: &str, dispatch: &mut Dispatch) -> Result<RunStats, InterpError> {
    let p = prepare_source(source)?;
    exec::execute(&p, dispatch)
}

/// Runs an already decoded program over `dispatch`; buffers in `dispatch` are updated.
pub fn run_decoded(prog: &ExecProgram, dispatch: &mut Dispatch) -> Result<RunStats, InterpError> {
    exec::execute(prog, dispatch)
}
