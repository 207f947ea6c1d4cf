//! Reference interpreter for AMD IL compute kernels: the semantic oracle of the project.
