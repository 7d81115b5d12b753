//! The classic families, by their conventional names: the plain cycle of each (every access
//! weak, every external edge `@gpu`), which `ptxemu diy --family` annotates and places.

/// Each family's name and cycle.
pub const FAMILIES: [(&str, &str); 29] = [
    ("MP", "PodWW Rfe PodRR Fre"),
    ("SB", "PodWR Fre PodWR Fre"),
    ("LB", "PodRW Rfe PodRW Rfe"),
    ("S", "PodWW Rfe PodRW Coe"),
    ("R", "PodWW Coe PodWR Fre"),
    ("2+2W", "PodWW Coe PodWW Coe"),
    ("WRC", "Rfe PodRW Rfe PodRR Fre"),
    ("ISA2", "PodWW Rfe PodRW Rfe PodRR Fre"),
    ("IRIW", "Rfe PodRR Fre Rfe PodRR Fre"),
    ("RWC", "Rfe PodRR Fre PodWR Fre"),
    ("WRR+2W", "Rfe PodRR Fre PodWW Coe"),
    ("WRW+2W", "Rfe PodRW Coe PodWW Coe"),
    ("WWC", "Rfe PodRW Rfe PodRW Coe"),
    ("WRW+WR", "Rfe PodRW Coe PodWR Fre"),
    ("W+RWC", "PodWW Rfe PodRR Fre PodWR Fre"),
    ("Z6.0", "PodWW Rfe PodRW Coe PodWR Fre"),
    ("Z6.1", "PodWW Coe PodWW Rfe PodRW Coe"),
    ("Z6.2", "PodWW Rfe PodRW Rfe PodRW Coe"),
    ("Z6.3", "PodWW Coe PodWW Rfe PodRR Fre"),
    ("Z6.4", "PodWW Coe PodWR Fre PodWR Fre"),
    ("Z6.5", "PodWW Coe PodWW Coe PodWR Fre"),
    ("3.SB", "PodWR Fre PodWR Fre PodWR Fre"),
    ("3.LB", "PodRW Rfe PodRW Rfe PodRW Rfe"),
    ("3.2W", "PodWW Coe PodWW Coe PodWW Coe"),
    ("IRRWIW", "Rfe PodRR Fre Rfe PodRW Coe"),
    ("IRWIW", "Rfe PodRW Coe Rfe PodRW Coe"),
    ("CoRR", "Rfe PosRR Fre"),
    ("CoWR", "PosWR Fre Coe"),
    ("CoRW2", "Rfe PosRW Coe"),
];

/// The cycle of the family named `name` (case-insensitive), if it is one.
pub fn cycle_of(name: &str) -> Option<&'static str> {
    FAMILIES
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, c)| *c)
}

/// The families' names, in order.
pub fn names() -> Vec<&'static str> {
    FAMILIES.iter().map(|(n, _)| *n).collect()
}
