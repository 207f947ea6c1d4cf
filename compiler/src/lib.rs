//! ilc compiler library: ties the AMD IL frontend, the IR passes and the SPA 5.0 backend together.
