//! Shared helpers for the ilc command-line tools.
