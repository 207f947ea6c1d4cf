//! The declarations summary of a program: what its `dcl_*` statements and `func` labels
//! declare, decoded once into typed values ([`Declarations`]).
//!
//! This is the one place where a declaration statement is read. The validator builds the
//! summary statement by statement ([`Declarations::record`]) to check uses against what is
//! declared so far; the interpreter ([`crate::interp`]) and the compiler's lowering take the
//! whole-program summary ([`Declarations::collect`]) instead of scanning declarations
//! themselves (the validator returns the one it collects, [`crate::validate_declared`], so
//! that a compile collects it once). Each consumer decides what a [`Problem`] means to it (the validator reports
//! unsupported typed UAVs, the interpreter refuses any problem, lowering refuses typed UAVs
//! and resources).
//!
//! Requires a parsed program (statements after the first `end` already cut, see
//! [`crate::validate::end`]); statement indices are positions in the statement list given.
//! Guarantees: never panics; where a constant buffer, indexed temp, UAV, SRV, LDS, GDS,
//! resource or function is declared twice (an error the validator reports, labelled "first
//! declared here"), the first declaration is the one recorded; a declaration without
//! `_id(n)` declares id 0.

use std::collections::BTreeMap;

use crate::ast::{Control, Instruction, Payload, RegKind, ShaderType, Span, Version};
use crate::interp::texture::{resource_decl, ResourceDecl};
use crate::interp::typed_uav::{typed_uav_decl, TypedUav};
use crate::opcodes::Opcode;

/// Largest LDS or GDS allocation a declaration can ask for, in bytes (larger sizes clamp).
pub const MAX_SHARED_BYTES: u32 = 1 << 20;

/// The addressing a UAV or SRV declaration gives its loads, stores and atomics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferKind {
    /// Byte addressed (`dcl_raw_*`, `dcl_arena_uav`, `dcl_typeless_uav`).
    Raw,
    /// Structured, with a stride in bytes.
    Struct(u32),
    /// Typed elements of 32-bit components (`dcl_uav`, `dcl_typed_uav`);
    /// [`TypedUav::UNDECLARED`] when the declaration's type is unsupported (a [`Problem`]).
    Typed(TypedUav),
}

/// An LDS or GDS allocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Region {
    /// Size in bytes, at most [`MAX_SHARED_BYTES`].
    pub bytes: u32,
    /// Structure stride in bytes (`dcl_struct_lds`/`dcl_struct_gds`); `None` for typeless.
    pub stride: Option<u32>,
}

/// R7xx owner-computes LDS (`dcl_lds_size_per_thread`, `dcl_lds_sharing_mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OwnerLds {
    /// Dwords per work-item, as declared (0 when only the sharing mode is declared).
    pub dwords: u32,
    /// The default sharing mode is absolute (`_wavefrontAbs`) rather than relative.
    pub absolute: bool,
}

/// An indexed temp array (`dcl_indexed_temp_array x#[n]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IndexedTemp {
    /// Number of vec4 elements.
    pub size: u32,
    /// Index of the declaring statement.
    pub at: usize,
}

/// What is wrong with a declaration the summary could not take as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// `dcl_num_thread_per_group` without 1 to 3 sizes (the group size is left as it was).
    GroupSize,
    /// A typed UAV of an unsupported type or format (recorded as
    /// [`TypedUav::UNDECLARED`] so that its uses are not "undeclared").
    TypedUav,
    /// A `dcl_resource` of an unsupported or missing type (not recorded).
    Resource,
    /// `dcl_lds_size_per_thread` outside 4..=64 dwords or not a multiple of 4 (recorded as
    /// written).
    OwnerLdsSize,
}

/// A declaration the summary could not take as written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Index of the statement.
    pub at: usize,
    /// Its source span.
    pub span: Span,
    /// Its opcode.
    pub opcode: Opcode,
    /// What kind of problem.
    pub kind: ProblemKind,
    /// What is wrong, for a diagnostic.
    pub message: String,
}

/// Everything a program declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declarations {
    /// Work-items per group: `dcl_num_thread_per_group` (missing dimensions 1), else
    /// `dcl_max_thread_per_group n` as `[n, 1, 1]`, else `[1, 1, 1]`; `[8, 8, 1]` (the
    /// tiles of a pixel-shader domain) for pixel shaders.
    pub group: [u32; 3],
    /// Some `dcl_num_thread_per_group` was taken (a later maximum does not override it).
    group_exact: bool,
    /// Every `dcl_literal` by register: `(statement index, values)` in source order.
    pub literals: BTreeMap<u32, Vec<(usize, [u32; 4])>>,
    /// Constant buffers `cb#` and their sizes in vec4 elements.
    pub cbs: BTreeMap<u32, u32>,
    /// The immediate constant buffer (`icb`), one vec4 per element (a short last
    /// element is zero-filled).
    pub icb: Vec<[u32; 4]>,
    /// Indexed temp arrays `x#`.
    pub itemps: BTreeMap<u32, IndexedTemp>,
    /// UAVs by id.
    pub uavs: BTreeMap<u32, BufferKind>,
    /// SRVs by id.
    pub srvs: BTreeMap<u32, BufferKind>,
    /// LDS allocations by id.
    pub lds: BTreeMap<u32, Region>,
    /// GDS allocations by id.
    pub gds: BTreeMap<u32, Region>,
    /// Texture resources by id.
    pub resources: BTreeMap<u32, ResourceDecl>,
    /// R7xx owner-computes LDS, when declared.
    pub owner_lds: Option<OwnerLds>,
    /// Pixel-shader outputs `o#` named by `dcl_output`, in declaration order.
    pub ps_outputs: Vec<u32>,
    /// A pixel-shader (`il_ps`) program, run as compute over a 2-D domain.
    pub pixel_shader: bool,
    /// Functions: label -> index of its first `func` statement.
    pub functions: BTreeMap<u32, usize>,
    /// Declarations that could not be taken as written, in statement order.
    pub problems: Vec<Problem>,
}

impl Default for Declarations {
    fn default() -> Self {
        Declarations {
            group: [1, 1, 1],
            group_exact: false,
            literals: BTreeMap::new(),
            cbs: BTreeMap::new(),
            icb: Vec::new(),
            itemps: BTreeMap::new(),
            uavs: BTreeMap::new(),
            srvs: BTreeMap::new(),
            lds: BTreeMap::new(),
            gds: BTreeMap::new(),
            resources: BTreeMap::new(),
            owner_lds: None,
            ps_outputs: Vec::new(),
            pixel_shader: false,
            functions: BTreeMap::new(),
            problems: Vec::new(),
        }
    }
}

impl Declarations {
    /// The summary of a whole program: `version` and its statements in source order.
    pub fn collect<'a>(
        version: Option<&Version>,
        statements: impl IntoIterator<Item = &'a Instruction>,
    ) -> Declarations {
        let mut d = Declarations::default();
        for (i, st) in statements.into_iter().enumerate() {
            d.record(i, st);
        }
        d.finish(version);
        d
    }

    /// Adds what statement `st` (index `at`) declares, if anything.
    pub fn record(&mut self, at: usize, st: &Instruction) {
        use Opcode::*;
        // Every statement is offered, nearly all of them instructions: only declarations
        // and `func` labels declare anything.
        if st.opcode != Func && !st.opcode.is_declaration() {
            return;
        }
        let id = || st.id().unwrap_or(0);
        match (st.opcode, &st.payload) {
            (DclLiteral, Payload::Literal { reg, values }) => {
                self.literals.entry(*reg).or_default().push((at, *values));
            }
            (DclNumThreadPerGroup, _) => match st.dims3() {
                Some(d) => {
                    self.group = d;
                    self.group_exact = true;
                }
                None => self.problem(
                    at,
                    st,
                    ProblemKind::GroupSize,
                    "dcl_num_thread_per_group needs 1-3 sizes",
                ),
            },
            (DclMaxThreadPerGroup, _) if !self.group_exact => {
                self.group = [st.number().unwrap_or(64).max(1), 1, 1];
            }
            (DclConstBuffer, Payload::ConstBuffer { cb, size }) => {
                first(&mut self.cbs, *cb, *size);
            }
            (DclConstBuffer, Payload::ImmConstBuffer(values)) => {
                self.icb = values
                    .chunks(4)
                    .map(|c| {
                        let mut e = [0u32; 4];
                        e[..c.len()].copy_from_slice(c);
                        e
                    })
                    .collect();
            }
            (DclIndexedTempArray, Payload::IndexedTemp { reg, size }) => {
                first(&mut self.itemps, *reg, IndexedTemp { size: *size, at });
            }
            (DclLds | DclGds, _) => {
                let bytes = st.number().unwrap_or(0).min(MAX_SHARED_BYTES);
                let region = Region {
                    bytes,
                    stride: None,
                };
                first(self.shared(st.opcode), id(), region);
            }
            (DclStructLds | DclStructGds, Payload::Numbers(n)) => {
                first(self.shared(st.opcode), id(), struct_region(n));
            }
            (DclRawUav | DclArenaUav | DclTypelessUav, _) => {
                first(&mut self.uavs, id(), BufferKind::Raw);
            }
            (DclStructUav, _) => {
                first(
                    &mut self.uavs,
                    id(),
                    BufferKind::Struct(stride_of(st).unwrap_or(4)),
                );
            }
            (DclUav | DclTypedUav, _) => {
                let decl = typed_uav_decl(st).unwrap_or_else(|what| {
                    self.problem(at, st, ProblemKind::TypedUav, what);
                    TypedUav::UNDECLARED
                });
                first(&mut self.uavs, id(), BufferKind::Typed(decl));
            }
            (DclRawSrv, _) => {
                first(&mut self.srvs, id(), BufferKind::Raw);
            }
            (DclStructSrv, _) => {
                first(
                    &mut self.srvs,
                    id(),
                    BufferKind::Struct(stride_of(st).unwrap_or(4)),
                );
            }
            (DclResource, _) => match resource_decl(st) {
                Ok(decl) => {
                    first(&mut self.resources, id(), decl);
                }
                Err(what) => self.problem(at, st, ProblemKind::Resource, what),
            },
            (DclLdsSizePerThread, _) => {
                let n = st.number().unwrap_or(0);
                if n == 0 || n > 64 || !n.is_multiple_of(4) {
                    self.problem(
                        at,
                        st,
                        ProblemKind::OwnerLdsSize,
                        format!(
                            "dcl_lds_size_per_thread {n}: must be 4..=64 dwords, a multiple of 4"
                        ),
                    );
                }
                let absolute = self.owner_lds.is_some_and(|o| o.absolute);
                self.owner_lds = Some(OwnerLds {
                    dwords: n,
                    absolute,
                });
            }
            (DclLdsSharingMode, _) => {
                let absolute = sharing_mode(st).unwrap_or(false);
                let dwords = self.owner_lds.map_or(0, |o| o.dwords);
                self.owner_lds = Some(OwnerLds { dwords, absolute });
            }
            (DclOutput, _) => {
                for d in &st.dsts {
                    if d.reg.kind == RegKind::Output && !self.ps_outputs.contains(&d.reg.num) {
                        self.ps_outputs.push(d.reg.num);
                    }
                }
            }
            (Func, _) => {
                if let Some(label) = label_of(st) {
                    self.functions.entry(label).or_insert(at);
                }
            }
            _ => {}
        }
    }

    /// Completes a summary built with [`Declarations::record`]: what the version line
    /// declares.
    pub fn finish(&mut self, version: Option<&Version>) {
        if version.is_some_and(|v| v.shader == ShaderType::Pixel) {
            // Pixel-shader compute: each pixel is a work-item; 8x8 tiles play the groups.
            self.pixel_shader = true;
            self.group = [8, 8, 1];
        }
    }

    /// The literal `l<num>` as statement `at` sees it: the nearest preceding declaration,
    /// else the first declaration anywhere; `None` when it is never declared.
    pub fn literal_at(&self, num: u32, at: usize) -> Option<[u32; 4]> {
        let defs = self.literals.get(&num)?;
        let before = defs.partition_point(|(i, _)| *i < at);
        let (_, values) = if before > 0 {
            defs[before - 1]
        } else {
            *defs.first()?
        };
        Some(values)
    }

    /// The problem with statement `at`, if any.
    pub fn problem_at(&self, at: usize) -> Option<&Problem> {
        self.problems.iter().find(|p| p.at == at)
    }

    /// The LDS allocations for an LDS declaration, else the GDS ones.
    fn shared(&mut self, op: Opcode) -> &mut BTreeMap<u32, Region> {
        if matches!(op, Opcode::DclLds | Opcode::DclStructLds) {
            &mut self.lds
        } else {
            &mut self.gds
        }
    }

    fn problem(&mut self, at: usize, st: &Instruction, kind: ProblemKind, what: impl Into<String>) {
        self.problems.push(Problem {
            at,
            span: st.span,
            opcode: st.opcode,
            kind,
            message: what.into(),
        });
    }
}

/// Statements that do nothing when a compute program runs: the declarations whose meaning,
/// if any, is all in the summary (a consumer that cannot honour one, such as a compiler
/// without GDS, still sees it in the summary and refuses the uses), and `nop`, comments and
/// prefixes. The interpreter and the compiler's lowering both skip exactly these.
pub fn runs_as_nothing(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        DclConstBuffer
            | DclIndexedTempArray
            | DclLiteral
            | DclNumThreadPerGroup
            | DclMaxThreadPerGroup
            | DclTotalNumThreadGroup
            | DclGlobalFlags
            | DclLds
            | DclStructLds
            | DclGds
            | DclStructGds
            | DclRawUav
            | DclStructUav
            | DclUav
            | DclTypedUav
            | DclTypelessUav
            | DclArenaUav
            | DclRawSrv
            | DclStructSrv
            | DclResource
            | DclLdsSizePerThread
            | DclLdsSharingMode
            | DclInput
            | DclOutput
            | Nop
            | Comment
            | Prefix
    )
}

/// Records `value` for `id` unless `id` is already declared (the first declaration wins).
fn first<T>(map: &mut BTreeMap<u32, T>, id: u32, value: T) {
    map.entry(id).or_insert(value);
}

/// `dcl_struct_lds`/`dcl_struct_gds`: stride and count.
fn struct_region(n: &[u32]) -> Region {
    let stride = n.first().copied().unwrap_or(4);
    let count = n.get(1).copied().unwrap_or(0);
    let bytes = (u64::from(stride) * u64::from(count)).min(u64::from(MAX_SHARED_BYTES)) as u32;
    Region {
        bytes,
        stride: Some(stride),
    }
}

/// The stride of a structured UAV or SRV declaration: `_stride(n)`, else its number.
fn stride_of(st: &Instruction) -> Option<u32> {
    st.controls
        .iter()
        .find_map(|c| match c {
            Control::Stride(s) => Some(*s),
            _ => None,
        })
        .or_else(|| st.number())
}

/// The label of a `func`, `call` or `call_logicalz/nz` statement.
pub fn label_of(st: &Instruction) -> Option<u32> {
    match &st.payload {
        Payload::Label(l) => Some(*l),
        Payload::Numbers(n) => n.first().copied(),
        _ => None,
    }
}

/// The sharing mode an R7xx LDS statement names: `Some(true)` for absolute
/// (`_wavefrontAbs`, `_sharingMode(abs)`), `Some(false)` for relative, `None` if absent.
pub fn sharing_mode(st: &Instruction) -> Option<bool> {
    let word = |w: &str| match w.trim_start_matches('_').to_ascii_lowercase().as_str() {
        "wavefrontabs" | "abs" => Some(true),
        "wavefrontrel" | "rel" => Some(false),
        _ => None,
    };
    for c in &st.controls {
        if let Control::Generic { name, value, .. } = c {
            if name == "sharingmode" {
                return value.as_deref().and_then(word);
            }
            if let Some(m) = word(name) {
                return Some(m);
            }
        }
    }
    if let Payload::Words(ws) = &st.payload {
        return ws.iter().find_map(|w| word(w));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(src: &str) -> Declarations {
        let p = crate::parse(src).0.expect("parses");
        Declarations::collect(p.version.as_ref(), &p.statements)
    }

    #[test]
    fn every_kind_is_recorded() {
        let d = summary(
            "il_cs_2_0\ndcl_max_thread_per_group 256\ndcl_num_thread_per_group 8, 4\n\
             dcl_literal l0, 1, 2, 3, 4\ndcl_cb cb0[4]\ndcl_indexed_temp_array x1[16]\n\
             dcl_raw_uav_id(1)\ndcl_struct_uav_id(2)_stride(12)\n\
             dcl_typed_uav_id(3)_type(2d)_fmtx(float)\ndcl_raw_srv_id(0)\n\
             dcl_lds_id(0) 256\ndcl_struct_lds_id(1) 8, 4\ndcl_gds_id(0) 64\n\
             mov r0.x, l0.x\nend\nfunc 7\nret\nendfunc\n",
        );
        assert_eq!(d.group, [8, 4, 1]);
        assert_eq!(d.literal_at(0, 20), Some([1, 2, 3, 4]));
        assert_eq!(
            d.literal_at(0, 0),
            Some([1, 2, 3, 4]),
            "a forward use sees the first"
        );
        assert_eq!(d.literal_at(5, 20), None);
        assert_eq!(d.cbs[&0], 4);
        assert_eq!(d.itemps[&1].size, 16);
        assert_eq!(d.uavs[&1], BufferKind::Raw);
        assert_eq!(d.uavs[&2], BufferKind::Struct(12));
        assert!(matches!(d.uavs[&3], BufferKind::Typed(t) if t.coords == 2));
        assert_eq!(d.srvs[&0], BufferKind::Raw);
        assert_eq!(
            d.lds[&0],
            Region {
                bytes: 256,
                stride: None
            }
        );
        assert_eq!(
            d.lds[&1],
            Region {
                bytes: 32,
                stride: Some(8)
            }
        );
        assert_eq!(d.gds[&0].bytes, 64);
        assert_eq!(d.functions[&7], 14);
        assert!(d.problems.is_empty(), "{:?}", d.problems);
    }

    #[test]
    fn literals_are_lexically_scoped() {
        let d = summary(
            "il_cs_2_0\ndcl_literal l0, 1, 1, 1, 1\nmov r0, l0\n\
             dcl_literal l0, 2, 2, 2, 2\nmov r0, l0\nend\n",
        );
        assert_eq!(d.literal_at(0, 2), Some([1; 4]));
        assert_eq!(d.literal_at(0, 4), Some([2; 4]));
    }

    #[test]
    fn problems_name_their_statement() {
        let d = summary(
            "il_cs_2_0\ndcl_num_thread_per_group 64\ndcl_typed_uav_id(0)_type(cube)_fmtx(uint)\n\
             dcl_lds_size_per_thread 6\nend\n",
        );
        let kinds: Vec<_> = d.problems.iter().map(|p| (p.at, p.kind)).collect();
        assert_eq!(
            kinds,
            [(1, ProblemKind::TypedUav), (2, ProblemKind::OwnerLdsSize)]
        );
        assert_eq!(d.uavs[&0], BufferKind::Typed(TypedUav::UNDECLARED));
        assert_eq!(d.group, [64, 1, 1]);
    }

    #[test]
    fn pixel_shaders_run_in_tiles() {
        let d = summary("il_ps_2_0\ndcl_output_generic o0\nmov o0, v0\nend\n");
        assert!(d.pixel_shader);
        assert_eq!(d.group, [8, 8, 1]);
        assert_eq!(d.ps_outputs, [0]);
    }
}
