//! `ptxemu`: run PTX kernels, check PTX modules, and explore the PTX memory model.

fn main() {
    println!("ptxemu");
}
