//! AMD IL frontend. See the crate README / module docs.
