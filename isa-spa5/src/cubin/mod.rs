//! Cubin (NVIDIA CUDA ELF) writing and reading for sm_50/52/53.
