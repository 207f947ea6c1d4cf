//! Shared helpers for the workspace integration tests (see `tests/tests/`).
