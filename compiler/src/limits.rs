//! Input limits checked on the validated AST, before any code is generated: the embedder's
//! [`Limits`] (instruction count after inlining, control-flow nesting) and the SPA 5.0
//! (Maxwell, sm_50..53) hardware limits a declaration can exceed.
//!
//! Requires a program that parsed and validated (macros expanded). Guarantees: on success
//! - the program has at most `Limits::max_instructions` IL instructions after inlining every
//!   `call` (estimated from the call graph, so an exponential call tree is rejected before
//!   lowering spends memory on it; the error points at the call in the main program whose
//!   inlining crosses the limit);
//! - control flow nests at most `Limits::max_nesting` deep, also after inlining (a call
//!   nested `d` deep adds `d` to the callee's nesting);
//! - the thread-group size is at most [`MAX_THREADS`] threads and [`MAX_GROUP_DIMS`] per
//!   dimension; LDS declarations total at most [`MAX_SHARED_BYTES`]; indexed temporary arrays
//!   total at most [`MAX_LOCAL_BYTES`] per thread; every `dcl_cb` has a non-zero size and the
//!   constant buffers fit the [`MAX_PARAM_BYTES`] parameter space they are copied into, with
//!   the 16 bytes (pointer and size) every declared UAV and SRV needs there, and the 8 bytes
//!   (texture object handle) of every texture resource, at least.
//!
//! The register limit depends on the group size and is applied by the backend through
//! [`max_regs_for_group`].
//!
//! So the launch layout the backend computes never needs to clamp a size: what it states is
//! what the code assumes. Every error carries the line of the declaration or statement.

use std::collections::HashMap;

use isa_amdil::ast::{Instruction, Payload, Program, Span};
use isa_amdil::diag::Diagnostic;
use isa_amdil::opcodes::Opcode as O;

use crate::error::Diagnostics;
use crate::options::Limits;
use crate::spa5::abi::MAX_PARAM_BYTES;

/// Most threads in one thread group (CUDA block) on sm_50..53.
pub const MAX_THREADS: u64 = 1024;
/// Most threads per thread-group dimension (x, y, z) on sm_50..53.
pub const MAX_GROUP_DIMS: [u32; 3] = [1024, 1024, 64];
/// Most static shared memory per thread group on sm_50..53: 48 KiB.
pub const MAX_SHARED_BYTES: u64 = 48 << 10;
/// Most local memory per thread on sm_50..53: 512 KiB (CUDA programming guide, table of
/// technical specifications per compute capability).
pub const MAX_LOCAL_BYTES: u64 = 512 << 10;

/// Registers of one SM a thread group may use on sm_50..53.
pub const MAX_REGS_PER_GROUP: u32 = 65536;

/// Most registers per thread a kernel of `threads` threads per group may use so that one
/// group fits the register file: registers are given out per warp of 32 threads, per thread
/// in multiples of 8. At most 254 (the allocatable GPRs).
pub fn max_regs_for_group(threads: u64) -> u32 {
    let warps = threads.div_ceil(32).max(1);
    let per_thread = u64::from(MAX_REGS_PER_GROUP) / (warps * 32);
    (per_thread / 8 * 8).clamp(8, 254) as u32
}

/// Checks every limit; returns every violation found (declarations) or the first size error.
pub fn check(program: &Program, limits: &Limits) -> Result<(), Diagnostics> {
    let mut diags = Vec::new();
    let shape = hardware(program, limits, &mut diags);
    if diags.is_empty() {
        size(program, limits, shape, &mut diags);
    }
    if diags.is_empty() {
        Ok(())
    } else {
        Err(Diagnostics(diags))
    }
}

/// What [`size`] needs of the statements, gathered by [`hardware`]'s walk over them (each
/// walk over a million-statement AST reads some 200 MB: one walk instead of three).
#[derive(Clone, Copy, Debug, Default)]
struct Shape {
    /// The first statement at which control flow nests deeper than the limit.
    too_deep: Option<usize>,
    /// Some statement is a call.
    has_call: bool,
}

/// The SM 5.x limits of the declarations; returns the program's [`Shape`].
fn hardware(program: &Program, limits: &Limits, diags: &mut Vec<Diagnostic>) -> Shape {
    let mut shape = Shape::default();
    let mut depth = 0u64;
    let mut shared = 0u64;
    let mut local = 0u64;
    let mut cb_bytes = 0u64;
    let mut buffer_params = 0u64;
    let group = program
        .statements
        .iter()
        .find_map(|st| match st.opcode {
            O::DclNumThreadPerGroup => st.dims3(),
            O::DclMaxThreadPerGroup => st.number().map(|n| [n, 1, 1]),
            _ => None,
        })
        .unwrap_or([64, 1, 1]);
    for (i, st) in program.statements.iter().enumerate() {
        // Control-flow nesting, measured before any pass walks the structure (deep nests
        // make CFG simplification's rounds quadratic).
        if shape.too_deep.is_none() {
            depth = nest(depth, st.opcode);
            if depth > limits.max_nesting as u64 {
                shape.too_deep = Some(i);
            }
        }
        shape.has_call |= is_call(st.opcode);
        match (st.opcode, &st.payload) {
            (O::DclNumThreadPerGroup, _) => {
                if let Some(d) = st.dims3() {
                    for (axis, (&n, &max)) in d.iter().zip(&MAX_GROUP_DIMS).enumerate() {
                        if n > max {
                            diags.push(Diagnostic::error(
                                "L0010",
                                st.span,
                                format!(
                                    "thread-group size {n} in {} exceeds the sm_5x limit of {max}",
                                    ["x", "y", "z"][axis]
                                ),
                            ));
                        }
                    }
                    let total: u64 = d.iter().map(|&n| u64::from(n)).product();
                    if total > MAX_THREADS && d.iter().zip(&MAX_GROUP_DIMS).all(|(n, m)| n <= m) {
                        diags.push(too_many_threads(total, st.span));
                    }
                }
            }
            (O::DclMaxThreadPerGroup, _) => {
                if let Some(n) = st.number() {
                    if u64::from(n) > MAX_THREADS {
                        diags.push(too_many_threads(u64::from(n), st.span));
                    }
                }
            }
            (O::DclLds | O::DclStructLds, Payload::Numbers(n)) => {
                let bytes = match st.opcode {
                    O::DclLds => u64::from(n.first().copied().unwrap_or(0)),
                    _ => {
                        u64::from(n.first().copied().unwrap_or(4))
                            * u64::from(n.get(1).copied().unwrap_or(0))
                    }
                };
                if let Some(total) = grow(&mut shared, bytes, MAX_SHARED_BYTES) {
                    diags.push(Diagnostic::error(
                        "L0011",
                        st.span,
                        format!(
                            "LDS declarations need {total} bytes of shared memory, more than \
                             the sm_5x limit of {MAX_SHARED_BYTES} per thread group"
                        ),
                    ));
                }
            }
            (O::DclLdsSizePerThread, _) => {
                // Lowering's owner-LDS area: n words per thread, wavefronts of 64 threads.
                let items: u64 = group.iter().map(|&n| u64::from(n)).product();
                let bytes = items.div_ceil(64) * 64 * u64::from(st.number().unwrap_or(0)) * 4;
                if grow(&mut shared, bytes, MAX_SHARED_BYTES).is_some() {
                    diags.push(Diagnostic::error(
                        "L0011",
                        st.span,
                        format!(
                            "`dcl_lds_size_per_thread` needs {bytes} bytes of shared memory for \
                             {items} threads, more than the sm_5x limit of {MAX_SHARED_BYTES} per \
                             thread group (with the other LDS declarations)"
                        ),
                    ));
                }
            }
            (O::DclIndexedTempArray, Payload::IndexedTemp { reg, size }) => {
                if let Some(total) = grow(&mut local, 16 * u64::from(*size), MAX_LOCAL_BYTES) {
                    diags.push(Diagnostic::error(
                        "L0012",
                        st.span,
                        format!(
                            "indexed temporary arrays need {total} bytes per thread (x{reg} \
                             declares {size} elements of 16 bytes), more than the sm_5x \
                             local-memory limit of {MAX_LOCAL_BYTES}"
                        ),
                    ));
                }
            }
            (
                O::DclRawUav
                | O::DclStructUav
                | O::DclUav
                | O::DclArenaUav
                | O::DclTypelessUav
                | O::DclTypedUav
                | O::DclRawSrv
                | O::DclStructSrv
                | O::DclResource,
                _,
            ) => {
                // A pointer and a size in the parameter space (DESIGN.md section 2); a
                // texture resource at least a 64-bit texture object handle.
                buffer_params += if st.opcode == O::DclResource { 8 } else { 16 };
                if cb_bytes + buffer_params > u64::from(MAX_PARAM_BYTES) {
                    diags.push(Diagnostic::error(
                        "L0014",
                        st.span,
                        format!(
                            "buffer declarations need {buffer_params} bytes of pointers (with \
                             {cb_bytes} bytes of constant buffers), more than the \
                             {MAX_PARAM_BYTES}-byte kernel parameter space"
                        ),
                    ));
                    buffer_params = 0;
                }
            }
            (O::DclConstBuffer, Payload::ConstBuffer { cb, size }) => {
                if *size == 0 {
                    diags.push(Diagnostic::error(
                        "L0013",
                        st.span,
                        format!("constant buffer cb{cb} is declared with zero elements"),
                    ));
                    continue;
                }
                cb_bytes = cb_bytes.next_multiple_of(16) + 16 * u64::from(*size);
                if cb_bytes + buffer_params > u64::from(MAX_PARAM_BYTES) {
                    diags.push(Diagnostic::error(
                        "L0013",
                        st.span,
                        format!(
                            "constant buffers need {cb_bytes} bytes, with {buffer_params} \
                             bytes of buffer pointers more than the {MAX_PARAM_BYTES}-byte \
                             kernel parameter space they are passed in"
                        ),
                    ));
                    cb_bytes = 0;
                }
            }
            _ => {}
        }
    }
    shape
}

/// The L0010 error for a thread group of `n` threads, more than one SM runs.
/// Places an area of `bytes` after a running total of memory (areas 16-byte aligned). When
/// the total passes `max`, returns it and restarts the count at 0, so each declaration
/// past the limit is reported once with what it needed.
fn grow(total: &mut u64, bytes: u64, max: u64) -> Option<u64> {
    *total = total.next_multiple_of(16) + bytes;
    (*total > max).then(|| std::mem::take(total))
}

fn too_many_threads(n: u64, span: Span) -> Diagnostic {
    Diagnostic::error(
        "L0010",
        span,
        format!("thread group of {n} threads exceeds the sm_5x limit of {MAX_THREADS}"),
    )
}

fn is_call(op: O) -> bool {
    matches!(op, O::Call | O::CallLogicalz | O::CallLogicalnz | O::Callnz)
}

fn label(st: &Instruction) -> Option<u32> {
    match st.payload {
        Payload::Label(l) => Some(l),
        _ => None,
    }
}

/// Instruction count after inlining, and nesting depth.
fn size(program: &Program, limits: &Limits, shape: Shape, diags: &mut Vec<Diagnostic>) {
    let sts = &program.statements;
    if sts.len() > limits.max_instructions {
        diags.push(Diagnostic::error(
            "L0002",
            Span::NONE,
            format!(
                "kernel has {} instructions, more than the limit of {}",
                sts.len(),
                limits.max_instructions
            ),
        ));
        return;
    }
    if let Some(i) = shape.too_deep {
        diags.push(Diagnostic::error(
            "L0003",
            sts[i].span,
            format!(
                "control flow nested more than {} deep (the nesting limit)",
                limits.max_nesting
            ),
        ));
        return;
    }
    if !shape.has_call {
        return;
    }
    let inlined = inlined_sizes(sts);
    // Walk the main program (up to the first `func`), adding each call's inlined size and
    // nesting.
    let main_end = sts
        .iter()
        .position(|s| s.opcode == O::Func)
        .unwrap_or(sts.len());
    let mut total = 0u64;
    let mut depth = 0u64;
    let limit = limits.max_instructions as u64;
    for st in &sts[..main_end] {
        total += 1;
        depth = nest(depth, st.opcode);
        if !is_call(st.opcode) {
            continue;
        }
        let callee = label(st)
            .and_then(|l| inlined.get(&l))
            .copied()
            .unwrap_or_default();
        total = total.saturating_add(callee.size);
        if total > limit {
            diags.push(Diagnostic::error(
                "L0002",
                st.span,
                format!(
                    "inlining this call makes the kernel more than {limit} instructions (the \
                     limit): the function expands to {} instructions, counting the calls \
                     inside it",
                    callee.size
                ),
            ));
            return;
        }
        if depth.saturating_add(callee.depth) > limits.max_nesting as u64 {
            diags.push(Diagnostic::error(
                "L0003",
                st.span,
                format!(
                    "inlining this call nests control flow {} deep, more than the limit of {}",
                    depth.saturating_add(callee.depth),
                    limits.max_nesting
                ),
            ));
            return;
        }
    }
}

/// Nesting depth after statement `op` (openers count on their own line).
fn nest(depth: u64, op: O) -> u64 {
    match op {
        O::IfLogicalz | O::IfLogicalnz | O::Ifc | O::Ifnz | O::While | O::Loop | O::Switch => {
            depth + 1
        }
        O::Endif | O::Endloop | O::Endswitch => depth.saturating_sub(1),
        _ => depth,
    }
}

/// A function after inlining: its instruction count and its deepest control-flow nesting.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Inlined {
    size: u64,
    depth: u64,
}

/// Inlined size and nesting of every function: its statements (to the next `func`, plus the
/// function it falls into when its last statement is not `ret`/`endfunc`/`end`, as lowering
/// does) with each call replaced by the callee's inlined body, nested at the call's depth.
/// Saturating; a recursive call counts 0 (lowering rejects recursion with its own
/// diagnostic).
fn inlined_sizes(sts: &[Instruction]) -> HashMap<u32, Inlined> {
    // Function segments in source order: (label, statements after `func` to the next one).
    let starts: Vec<usize> = (0..sts.len())
        .filter(|&i| sts[i].opcode == O::Func)
        .collect();
    struct Seg {
        own: u64,
        own_depth: u64,
        /// Callee and the nesting depth at the call.
        calls: Vec<(u32, u64)>,
        falls_into: Option<u32>,
    }
    let mut segs: HashMap<u32, Seg> = HashMap::new();
    for (k, &s) in starts.iter().enumerate() {
        let Some(l) = label(&sts[s]) else { continue };
        let end = starts.get(k + 1).copied().unwrap_or(sts.len());
        let body = &sts[s + 1..end];
        let falls = !matches!(
            body.iter()
                .rev()
                .find(|st| st.opcode != O::Comment)
                .map(|st| st.opcode),
            Some(O::Ret | O::Endfunc | O::End)
        );
        let falls_into = if falls {
            starts.get(k + 1).and_then(|&n| label(&sts[n]))
        } else {
            None
        };
        let (mut depth, mut own_depth, mut calls) = (0u64, 0u64, Vec::new());
        for st in body {
            depth = nest(depth, st.opcode);
            own_depth = own_depth.max(depth);
            if is_call(st.opcode) {
                if let Some(c) = label(st) {
                    calls.push((c, depth));
                }
            }
        }
        segs.entry(l).or_insert(Seg {
            own: body.len() as u64,
            own_depth,
            calls,
            falls_into,
        });
    }
    // Post-order over the call graph with an explicit stack (no recursion on hostile input).
    let mut done: HashMap<u32, Inlined> = HashMap::new();
    let mut on_stack: HashMap<u32, bool> = HashMap::new();
    let labels: Vec<u32> = segs.keys().copied().collect();
    for root in labels {
        if done.contains_key(&root) {
            continue;
        }
        let mut stack = vec![(root, false)];
        while let Some((l, expanded)) = stack.pop() {
            let Some(seg) = segs.get(&l) else {
                done.insert(l, Inlined::default());
                continue;
            };
            let succs = seg.calls.iter().map(|c| c.0).chain(seg.falls_into);
            if !expanded {
                if done.contains_key(&l) || on_stack.get(&l) == Some(&true) {
                    continue;
                }
                on_stack.insert(l, true);
                stack.push((l, true));
                for c in succs {
                    if !done.contains_key(&c) && on_stack.get(&c) != Some(&true) {
                        stack.push((c, false));
                    }
                }
            } else {
                let get = |c: &u32| done.get(c).copied().unwrap_or_default();
                let mut n = Inlined {
                    size: seg.own,
                    depth: seg.own_depth,
                };
                for (c, d) in &seg.calls {
                    let callee = get(c);
                    n.size = n.size.saturating_add(callee.size);
                    n.depth = n.depth.max(d.saturating_add(callee.depth));
                }
                if let Some(f) = seg.falls_into {
                    let next = get(&f);
                    n.size = n.size.saturating_add(next.size);
                    n.depth = n.depth.max(next.depth);
                }
                on_stack.insert(l, false);
                done.insert(l, n);
            }
        }
    }
    done
}

#[cfg(test)]
mod tests {
    use super::*;

    fn errors(src: &str, limits: &Limits) -> Vec<(String, u32)> {
        let (p, d) = isa_amdil::parse_and_validate(src);
        assert!(!isa_amdil::diag::has_errors(&d), "{d:?}");
        match check(&p.expect("parses"), limits) {
            Ok(()) => Vec::new(),
            Err(d) => {
                d.0.iter()
                    .map(|d| (d.code.to_string(), d.span.line))
                    .collect()
            }
        }
    }

    #[test]
    fn exponential_call_tree_is_rejected_at_the_call() {
        // f0 calls f1 twice, f1 calls f2 twice, ... : 2^40 instructions after inlining.
        let mut src = String::from("il_cs_2_0\ndcl_num_thread_per_group 1\ncall 0\nendmain\n");
        for k in 0..40 {
            src += &format!("func {k}\ncall {}\ncall {}\nret\n", k + 1, k + 1);
        }
        src += "func 40\nmov r0, r0\nret\nend\n";
        assert_eq!(errors(&src, &Limits::default()), vec![("L0002".into(), 3)]);
    }

    #[test]
    fn many_calls_of_a_big_function_count_each_copy() {
        let body = "iadd r0.x, r0.x, r0.x\n".repeat(100);
        let src = format!(
            "il_cs_2_0\ndcl_num_thread_per_group 1\n{}endmain\nfunc 1\n{body}ret\nend\n",
            "call 1\n".repeat(20)
        );
        let limits = Limits {
            max_instructions: 1000,
            ..Limits::default()
        };
        // Each call adds 101: the tenth call crosses 1000 (line 2 + 10).
        assert_eq!(errors(&src, &limits), vec![("L0002".into(), 12)]);
        let roomy = Limits {
            max_instructions: 3000,
            ..Limits::default()
        };
        assert!(errors(&src, &roomy).is_empty());
    }

    #[test]
    fn nesting_counts_through_calls() {
        // main nests 3 deep around the call, the function 3 deep inside: 6 after inlining.
        let ifs = |n| "if_logicalnz r0.x\n".repeat(n);
        let ends = |n| "endif\n".repeat(n);
        let src = format!(
            "il_cs_2_0\ndcl_num_thread_per_group 1\n{}call 1\n{}endmain\nfunc 1\n{}mov r0, r0\n{}ret\nend\n",
            ifs(3),
            ends(3),
            ifs(3),
            ends(3)
        );
        let limits = |n| Limits {
            max_nesting: n,
            ..Limits::default()
        };
        assert_eq!(errors(&src, &limits(5)), vec![("L0003".into(), 6)]);
        assert!(errors(&src, &limits(6)).is_empty());
    }

    #[test]
    fn recursion_is_left_to_lowering() {
        let src =
            "il_cs_2_0\ndcl_num_thread_per_group 1\ncall 1\nendmain\nfunc 1\ncall 1\nret\nend\n";
        assert!(errors(src, &Limits::default()).is_empty());
    }

    #[test]
    fn registers_per_thread_shrink_with_the_group() {
        assert_eq!(max_regs_for_group(1024), 64);
        assert_eq!(max_regs_for_group(768), 80);
        assert_eq!(max_regs_for_group(512), 128);
        assert_eq!(max_regs_for_group(256), 254);
        assert_eq!(max_regs_for_group(1), 254);
        // Every group size fits the register file at its limit.
        for t in 1..=1024u64 {
            let r = u64::from(max_regs_for_group(t).next_multiple_of(8));
            assert!(t.div_ceil(32) * 32 * r.min(256) <= 65536 || r >= 254, "{t}");
        }
    }

    #[test]
    fn hardware_limits_point_at_the_declaration() {
        let l = Limits::default();
        let k = |decl: &str| format!("il_cs_2_0\n{decl}\nend\n");
        for (decl, code) in [
            ("dcl_num_thread_per_group 1025", "L0010"),
            ("dcl_num_thread_per_group 65535, 65535, 65535", "L0010"),
            ("dcl_num_thread_per_group 32, 32, 2", "L0010"),
            ("dcl_num_thread_per_group 1, 1, 65", "L0010"),
            ("dcl_max_thread_per_group 2048", "L0010"),
            ("dcl_lds_id(0) 4294967295", "L0011"),
            ("dcl_lds_id(0) 49153", "L0011"),
            ("dcl_indexed_temp_array x0[1000000000]", "L0012"),
            ("dcl_indexed_temp_array x0[32769]", "L0012"),
            ("dcl_cb cb0[0]", "L0013"),
            ("dcl_cb cb0[4096]\ndcl_cb cb1[1]", "L0013"),
            (
                (0..257)
                    .map(|i| format!("dcl_raw_uav_id({i})"))
                    .collect::<Vec<_>>()
                    .join("\n")
                    .as_str(),
                "L0014",
            ),
        ] {
            let errs = errors(&k(decl), &l);
            assert!(
                !errs.is_empty() && errs.iter().all(|(c, line)| c == code && *line >= 2),
                "{decl}: {errs:?}"
            );
        }
        for ok in [
            "dcl_num_thread_per_group 1024",
            "dcl_num_thread_per_group 16, 16, 4",
            "dcl_lds_id(0) 49152",
            "dcl_indexed_temp_array x0[32768]",
            "dcl_cb cb0[256]",
        ] {
            assert!(errors(&k(ok), &l).is_empty(), "{ok}");
        }
    }
}
