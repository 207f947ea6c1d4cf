//! SPA 5.0 (NVIDIA Maxwell, sm_50/52/53) instruction set.
//!
//! Self-contained: knows nothing of the IR. Provides the instruction model, a table-driven
//! encoder/decoder, assembly text (nvdisasm syntax and the SPA syntax with scheduling hints),
//! control words, and cubin (ELF) reading and writing.
//!
//! Layout: [`table`] holds one row per opcode form (fixed bits, operand and modifier fields
//! with value names); [`encode`](mod@encode), [`decode`](mod@decode), [`asm`] (print/parse) and the register queries
//! of [`inst::Inst`] are generic over it. [`control`] packs scheduling control, [`program`]
//! lays instructions out in 4-word groups and resolves branch targets, [`latency`] gives the
//! scheduler and the emulator's hazard checker their timing facts. [`emu`] runs cubins on a
//! functional model of the hardware and checks their control words for hazards.
//!
//! Guarantees (tested in `tests/`): every word the decoder accepts re-encodes bit-exactly and
//! prints as `nvdisasm -b SM50` prints it; every printed instruction parses back to itself;
//! the decoder and parser never panic on any input.
#![warn(missing_docs)]

pub mod asm;
pub mod banks;
pub mod control;
pub mod cubin;
pub mod decode;
pub mod emu;
pub mod encode;
pub mod inst;
pub mod latency;
pub mod mods;
pub mod program;
pub mod regs;
pub mod table;

pub use control::Control;
pub use decode::{decode, DecodeError};
pub use encode::{encode, EncodeError};
pub use inst::{GprOperand, Inst, Loc, ModKind, Op, Operand};
pub use mods::TypedMod;
pub use program::{decode_program, encode_program, ProgramError};
pub use regs::{Pred, PredReg, Reg, SpecialReg};
