//! Prints a PTX file back in ptxemu's canonical form (used to check the printer with ptxas).
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: print_ptx FILE.ptx");
        std::process::exit(2);
    };
    let src = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(2)
    });
    match emu::front::parse_module(&src, &path) {
        Ok(m) => print!("{}", emu::front::print_module(&m)),
        Err(e) => {
            eprintln!("{}", e.render(&src));
            std::process::exit(1);
        }
    }
}
