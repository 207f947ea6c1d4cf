//! The C types of `include/cal.h`, `calcl.h` and `cal_ext.h` (layouts as in the SDK headers;
//! the `header_agrees` test checks the constants against our header).

#![allow(non_camel_case_types)]

/// `CALuint`.
pub type CALuint = u32;
/// `CALresult`.
pub type CALresult = u32;
/// Handle types (`CALdevice`, `CALcontext`, ...): 32-bit numbers, 0 is never valid.
pub type CALhandle = u32;

/// `CAL_RESULT_OK`.
pub const CAL_RESULT_OK: CALresult = 0;
/// `CAL_RESULT_ERROR`.
pub const CAL_RESULT_ERROR: CALresult = 1;
/// `CAL_RESULT_INVALID_PARAMETER`.
pub const CAL_RESULT_INVALID_PARAMETER: CALresult = 2;
/// `CAL_RESULT_NOT_SUPPORTED`.
pub const CAL_RESULT_NOT_SUPPORTED: CALresult = 3;
/// `CAL_RESULT_ALREADY`.
pub const CAL_RESULT_ALREADY: CALresult = 4;
/// `CAL_RESULT_NOT_INITIALIZED`.
pub const CAL_RESULT_NOT_INITIALIZED: CALresult = 5;
/// `CAL_RESULT_BAD_HANDLE`.
pub const CAL_RESULT_BAD_HANDLE: CALresult = 6;
/// `CAL_RESULT_BAD_NAME_TYPE`.
pub const CAL_RESULT_BAD_NAME_TYPE: CALresult = 7;
/// `CAL_RESULT_PENDING`.
pub const CAL_RESULT_PENDING: CALresult = 8;
/// `CAL_RESULT_BUSY`.
pub const CAL_RESULT_BUSY: CALresult = 9;
/// `CAL_RESULT_WARNING`.
pub const CAL_RESULT_WARNING: CALresult = 10;

/// `CAL_TARGET_CYPRESS`: what the devices report (an Evergreen part: compute shaders, UAVs,
/// doubles, LDS), the class of hardware the IL programs ilc accepts were written for.
pub const CAL_TARGET_CYPRESS: u32 = 8;
/// Highest `CALtarget` value of the header (`CAL_TARGET_CAICOS`).
pub const CAL_TARGET_LAST: u32 = 19;

/// `CAL_RESALLOC_GLOBAL_BUFFER`.
pub const CAL_RESALLOC_GLOBAL_BUFFER: u32 = 1;
/// `CAL_RESALLOC_CACHEABLE`.
pub const CAL_RESALLOC_CACHEABLE: u32 = 2;

/// `CAL_LANGUAGE_IL`.
pub const CAL_LANGUAGE_IL: u32 = 1;

/// `CAL_EXT_COMPUTE_SHADER`.
pub const CAL_EXT_COMPUTE_SHADER: u32 = 0x1007;
/// `CAL_EXT_RES_CREATE`.
pub const CAL_EXT_RES_CREATE: u32 = 0x1006;
/// First and last `CALextid` values the header names.
pub const CAL_EXT_FIRST: u32 = 0x1001;
/// See [`CAL_EXT_FIRST`].
pub const CAL_EXT_LAST: u32 = 0x1008;

/// `CALdomain`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CALdomain {
    /// Origin x.
    pub x: u32,
    /// Origin y.
    pub y: u32,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
}

/// `CALdomain3D`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CALdomain3D {
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Depth.
    pub depth: u32,
}

/// `CALprogramGrid`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CALprogramGrid {
    /// The function.
    pub func: u32,
    /// Threads per group.
    pub grid_block: CALdomain3D,
    /// Groups.
    pub grid_size: CALdomain3D,
    /// Flags (unused).
    pub flags: u32,
}

/// `CALprogramGridArray`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct CALprogramGridArray {
    /// The launches.
    pub grid_array: *mut CALprogramGrid,
    /// How many.
    pub num: u32,
    /// Flags (unused).
    pub flags: u32,
}

/// `CALdeviceinfo`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CALdeviceinfo {
    /// `CALtarget`.
    pub target: u32,
    /// Widest 1-D resource.
    pub max_resource_1d_width: u32,
    /// Widest 2-D resource.
    pub max_resource_2d_width: u32,
    /// Tallest 2-D resource.
    pub max_resource_2d_height: u32,
}

/// `CALdeviceattribs` (the SDK 2.x layout; older programs pass a smaller `struct_size`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CALdeviceattribs {
    /// Bytes the caller's struct holds.
    pub struct_size: u32,
    /// `CALtarget`.
    pub target: u32,
    /// MiB.
    pub local_ram: u32,
    /// MiB.
    pub uncached_remote_ram: u32,
    /// MiB.
    pub cached_remote_ram: u32,
    /// MHz.
    pub engine_clock: u32,
    /// MHz.
    pub memory_clock: u32,
    /// Threads executing together.
    pub wavefront_size: u32,
    /// Multiprocessors.
    pub number_of_simd: u32,
    /// `CALboolean`.
    pub double_precision: u32,
    /// `CALboolean`.
    pub local_data_share: u32,
    /// `CALboolean`.
    pub global_data_share: u32,
    /// `CALboolean`.
    pub global_gpr: u32,
    /// `CALboolean`.
    pub compute_shader: u32,
    /// `CALboolean`.
    pub mem_export: u32,
    /// Elements.
    pub pitch_alignment: u32,
    /// Bytes.
    pub surface_alignment: u32,
    /// UAV ids.
    pub number_of_uavs: u32,
    /// `CALboolean`.
    pub b_uav_mem_export: u32,
    /// `CALboolean`.
    pub b3d_program_grid: u32,
    /// Shader engines.
    pub number_of_shader_engines: u32,
    /// Revision.
    pub target_revision: u32,
    /// MiB (SDK 2.x fields from here on).
    pub total_visible_heap: u32,
    /// MiB.
    pub total_invisible_heap: u32,
    /// MiB.
    pub total_direct_heap: u32,
    /// MiB.
    pub total_coherent_heap: u32,
    /// MiB.
    pub total_remote_shared_heap: u32,
    /// MiB.
    pub total_cached_remote_shared_heap: u32,
}

/// `CALdevicestatus`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CALdevicestatus {
    /// Bytes the caller's struct holds.
    pub struct_size: u32,
    /// MiB.
    pub avail_local_ram: u32,
    /// MiB.
    pub avail_uncached_remote_ram: u32,
    /// MiB.
    pub avail_cached_remote_ram: u32,
    /// MiB (SDK 2.x fields from here on).
    pub avail_visible_heap: u32,
    /// MiB.
    pub avail_invisible_heap: u32,
    /// MiB.
    pub avail_direct_heap: u32,
    /// MiB.
    pub avail_coherent_heap: u32,
    /// MiB.
    pub avail_remote_shared_heap: u32,
    /// MiB.
    pub avail_cached_remote_shared_heap: u32,
}

/// `CALfuncInfo` (the SDK 2.x layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CALfuncInfo {
    /// Scratch registers.
    pub max_scratch_regs_needed: u32,
    /// Shared GPRs.
    pub num_shared_gpr_user: u32,
    /// Shared GPRs.
    pub num_shared_gpr_total: u32,
    /// `CALboolean`.
    pub e_cs_setup_mode: u32,
    /// Threads per group.
    pub num_thread_per_group: u32,
    /// Threads per group in x.
    pub num_thread_per_group_x: u32,
    /// Threads per group in y.
    pub num_thread_per_group_y: u32,
    /// Threads per group in z.
    pub num_thread_per_group_z: u32,
    /// Groups.
    pub total_num_thread_group: u32,
    /// Wavefronts per SIMD.
    pub num_wavefront_per_simd: u32,
    /// `CALboolean`.
    pub is_max_num_wave_per_simd: u32,
    /// `CALboolean`.
    pub set_buffer_for_num_group: u32,
    /// Threads per wavefront.
    pub wavefront_size: u32,
    /// Registers a thread may have.
    pub num_gprs_available: u32,
    /// Registers a thread uses.
    pub num_gprs_used: u32,
    /// LDS bytes a group may have.
    pub lds_size_available: u32,
    /// LDS bytes a group uses.
    pub lds_size_used: u32,
    /// Stack bytes available per thread.
    pub stack_size_available: u32,
    /// Stack (local memory) bytes a thread uses.
    pub stack_size_used: u32,
}
