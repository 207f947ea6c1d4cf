//! The launch ABI (DESIGN.md section 2): where an IL kernel's resources live when the cubin is
//! launched like a CUDA kernel.
//!
//! Kernel parameters sit in constant bank 0 from `0x140`, in this order:
//! 1. for each UAV id the function declares (ascending): a 64-bit pointer and a 64-bit size in
//!    bytes (the size drives the out-of-range rule: loads give 0, stores are dropped);
//! 2. the same pair for the global buffer `g[]` if the function uses it, then for each
//!    read-only resource (SRV) id;
//! 3. the contents of each declared constant buffer (ascending id, 16-byte aligned), copied in
//!    by the driver, so a direct read is a `c[0x0][imm]` operand and an indexed one an `LDC`.
//!
//! LDS ids get consecutive 16-byte aligned ranges of shared memory; private arrays (stack
//! slots) and the register allocator's spill area share the per-thread local memory.
//!
//! Guarantees: offsets are 8-byte aligned for pointers, 16-byte aligned for constant buffers;
//! the parameter area never exceeds [`MAX_PARAM_BYTES`] (else [`LayoutError`]).

use std::collections::BTreeMap;

use ilc_passes::ir::{Function, StackSlot};
use isa_spa5::cubin::{Param, PARAM_BASE};

/// The parameter space of sm_50..53 kernels: 4 KiB.
pub const MAX_PARAM_BYTES: u32 = 4096;

/// What a parameter means to the IL program.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamKind {
    /// Base address of UAV `id`.
    UavPtr(u8),
    /// Size in bytes of UAV `id`.
    UavSize(u8),
    /// Base address of the global buffer `g[]`.
    GlobalPtr,
    /// Size in bytes of `g[]`.
    GlobalSize,
    /// Base address of read-only resource (SRV) `id`.
    SrvPtr(u8),
    /// Size in bytes of SRV `id`.
    SrvSize(u8),
    /// Contents of constant buffer `id`.
    CbData(u8),
}

/// One kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct LaunchParam {
    /// Byte offset from the start of the parameter area (`c[0x0][0x140]` is offset 0).
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// IL meaning.
    pub kind: ParamKind,
}

/// How a kernel is launched: returned to the embedder and recorded in the cubin.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LaunchLayout {
    /// Parameters in offset order.
    pub params: Vec<LaunchParam>,
    /// Offset of each LDS id in shared memory, and its size.
    pub lds: BTreeMap<u8, (u32, u32)>,
    /// Total static shared memory in bytes.
    pub shared_size: u32,
    /// Required block size (`dcl_num_thread_per_group`).
    pub block_size: Option<[u32; 3]>,
    /// Registers per thread (set after allocation).
    pub num_regs: u32,
    /// Local memory per thread in bytes: private arrays then the spill area.
    pub local_size: u32,
    /// Offset of each private array in local memory.
    pub stack_slots: BTreeMap<u32, u32>,
    /// Offset of the spill area in local memory.
    pub spill_base: u32,
}

/// The layout cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// Parameters (pointers plus constant buffers) exceed the parameter space.
    #[error("kernel parameters need {0} bytes, more than the {MAX_PARAM_BYTES}-byte parameter space (constant buffers too large; the pointer fallback is not implemented)")]
    ParamsTooLarge(u32),
}

impl LaunchLayout {
    /// Computes the layout of `func`'s resources (registers and spill area come later).
    pub fn compute(func: &Function) -> Result<LaunchLayout, LayoutError> {
        let mut l = LaunchLayout {
            block_size: func.group_size,
            ..Default::default()
        };
        let mut off = 0u32;
        for &id in func.uavs.keys() {
            l.params.push(LaunchParam {
                offset: off,
                size: 8,
                kind: ParamKind::UavPtr(id),
            });
            l.params.push(LaunchParam {
                offset: off + 8,
                size: 8,
                kind: ParamKind::UavSize(id),
            });
            off += 16;
        }
        if func.uses_global {
            l.params.push(LaunchParam {
                offset: off,
                size: 8,
                kind: ParamKind::GlobalPtr,
            });
            l.params.push(LaunchParam {
                offset: off + 8,
                size: 8,
                kind: ParamKind::GlobalSize,
            });
            off += 16;
        }
        for &id in func.srvs.keys() {
            l.params.push(LaunchParam {
                offset: off,
                size: 8,
                kind: ParamKind::SrvPtr(id),
            });
            l.params.push(LaunchParam {
                offset: off + 8,
                size: 8,
                kind: ParamKind::SrvSize(id),
            });
            off += 16;
        }
        for (&id, &bytes) in &func.cbs {
            off = off.next_multiple_of(16);
            let size = bytes.next_multiple_of(16);
            if u64::from(off) + u64::from(size) > u64::from(MAX_PARAM_BYTES) {
                return Err(LayoutError::ParamsTooLarge(off.saturating_add(size)));
            }
            l.params.push(LaunchParam {
                offset: off,
                size,
                kind: ParamKind::CbData(id),
            });
            off += size;
        }
        if off > MAX_PARAM_BYTES {
            return Err(LayoutError::ParamsTooLarge(off));
        }
        let mut shared = 0u32;
        for (&id, &size) in &func.lds {
            shared = shared.next_multiple_of(16);
            l.lds.insert(id, (shared, size));
            shared = shared.saturating_add(size);
        }
        l.shared_size = shared;
        let mut local = 0u32;
        for (ss, data) in func.stack_slots.iter() {
            local = local.next_multiple_of(16);
            l.stack_slots.insert(slot_index(ss), local);
            local = local.saturating_add(data.size);
        }
        l.spill_base = local.next_multiple_of(16);
        l.local_size = local;
        Ok(l)
    }

    /// The parameter of `kind`.
    pub fn param(&self, kind: ParamKind) -> Option<&LaunchParam> {
        self.params.iter().find(|p| p.kind == kind)
    }

    /// Absolute `c[0x0][..]` byte offset of the parameter of `kind`.
    pub fn cbank_offset(&self, kind: ParamKind) -> Option<u32> {
        self.param(kind).map(|p| PARAM_BASE + p.offset)
    }

    /// The parameters as the cubin's `KPARAM_INFO` sees them.
    pub fn cubin_params(&self) -> Vec<Param> {
        self.params
            .iter()
            .map(|p| Param::new(p.offset, p.size))
            .collect()
    }

    /// Total parameter bytes.
    pub fn param_bytes(&self) -> u32 {
        self.params
            .iter()
            .map(|p| p.offset + p.size)
            .max()
            .unwrap_or(0)
    }

    /// Our `.ilc.abi` section: a small text table, one line per parameter
    /// (`offset size kind id`), plus `shared`, `block` and `local` lines. Runners parse it to
    /// bind `--uav`/`--cb` files.
    pub fn abi_bytes(&self) -> Vec<u8> {
        let mut s = String::from("ilc-abi 1\n");
        for p in &self.params {
            let (k, id) = match p.kind {
                ParamKind::UavPtr(i) => ("uav_ptr", i as i32),
                ParamKind::UavSize(i) => ("uav_size", i as i32),
                ParamKind::GlobalPtr => ("g_ptr", -1),
                ParamKind::GlobalSize => ("g_size", -1),
                ParamKind::SrvPtr(i) => ("srv_ptr", i as i32),
                ParamKind::SrvSize(i) => ("srv_size", i as i32),
                ParamKind::CbData(i) => ("cb", i as i32),
            };
            s.push_str(&format!("param {:#x} {} {} {}\n", p.offset, p.size, k, id));
        }
        for (id, (off, size)) in &self.lds {
            s.push_str(&format!("lds {id} {off:#x} {size}\n"));
        }
        if let Some([x, y, z]) = self.block_size {
            s.push_str(&format!("block {x} {y} {z}\n"));
        }
        s.push_str(&format!(
            "shared {}\nlocal {}\n",
            self.shared_size, self.local_size
        ));
        s.into_bytes()
    }
}

/// The number of a stack slot.
pub fn slot_index(ss: StackSlot) -> u32 {
    use cranelift_entity::EntityRef;
    ss.index() as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use ilc_passes::ir::UavKind;

    #[test]
    fn uavs_then_global_then_cbs() {
        let mut f = Function::new("k");
        f.uavs.insert(3, UavKind::Raw);
        f.uavs.insert(1, UavKind::Raw);
        f.uses_global = true;
        f.cbs.insert(0, 40);
        f.lds.insert(0, 100);
        f.lds.insert(2, 64);
        let l = LaunchLayout::compute(&f).unwrap();
        let kinds: Vec<_> = l.params.iter().map(|p| (p.offset, p.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                (0, ParamKind::UavPtr(1)),
                (8, ParamKind::UavSize(1)),
                (16, ParamKind::UavPtr(3)),
                (24, ParamKind::UavSize(3)),
                (32, ParamKind::GlobalPtr),
                (40, ParamKind::GlobalSize),
                (48, ParamKind::CbData(0)),
            ]
        );
        assert_eq!(l.param(ParamKind::CbData(0)).unwrap().size, 48);
        assert_eq!(l.lds[&2], (112, 64));
        assert_eq!(l.shared_size, 176);
        assert_eq!(l.cbank_offset(ParamKind::UavSize(3)), Some(0x140 + 24));
    }

    #[test]
    fn too_large_cb_is_an_error() {
        let mut f = Function::new("k");
        f.cbs.insert(0, 4096 * 16);
        assert!(matches!(
            LaunchLayout::compute(&f),
            Err(LayoutError::ParamsTooLarge(_))
        ));
    }
}
