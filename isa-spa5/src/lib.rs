//! SPA 5.0 (Maxwell) instruction set.
