//! tcgen05 and Tensor Memory (issue 5, in progress): so far the register ↔ Tensor Memory
//! layouts of `tcgen05.ld/st`.

pub mod layout;
