//! The ilc SSA IR and generic passes.
