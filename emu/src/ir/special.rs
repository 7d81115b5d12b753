//! PTX special registers (PTX ISA "Special Registers"): read-only values the hardware provides
//! to each thread, such as `%tid.x` or `%laneid`; and the one predefined identifier of PTX ISA
//! "Predefined Identifiers" that is not a `%` register, `WARP_SZ` (nvcc writes it for every
//! CUDA `warpSize`). The other identifiers that section lists (`%tid`, `%clock`, `%pm0`…,
//! `%envreg<32>`, …) are special registers below.

use super::types::{Dim, Type};

/// A special register operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    /// `%tid.{x,y,z}`: the thread's index in its CTA.
    Tid(Dim),
    /// `%ntid.{x,y,z}`: the CTA's shape.
    Ntid(Dim),
    /// `%ctaid.{x,y,z}`: the CTA's index in the grid.
    Ctaid(Dim),
    /// `%nctaid.{x,y,z}`: the grid's shape in CTAs.
    Nctaid(Dim),
    /// `%laneid`: the thread's lane in its warp.
    Laneid,
    /// `%warpid`: the warp's index in its CTA (an identifier, not guaranteed stable on hardware).
    Warpid,
    /// `%nwarpid`: the maximum number of warp identifiers.
    Nwarpid,
    /// `%smid`: the SM the thread runs on.
    Smid,
    /// `%nsmid`: the number of SM identifiers.
    Nsmid,
    /// `%gridid`: the launch's identifier.
    Gridid,
    /// `%lanemask_eq`: a mask with the thread's own lane bit.
    LanemaskEq,
    /// `%lanemask_le`
    LanemaskLe,
    /// `%lanemask_lt`
    LanemaskLt,
    /// `%lanemask_ge`
    LanemaskGe,
    /// `%lanemask_gt`
    LanemaskGt,
    /// `%clock`: a 32-bit cycle counter.
    Clock,
    /// `%clock_hi`: the upper 32 bits of `%clock64`.
    ClockHi,
    /// `%clock64`: a 64-bit cycle counter.
    Clock64,
    /// `%globaltimer`: a 64-bit nanosecond timer.
    Globaltimer,
    /// `%globaltimer_lo`
    GlobaltimerLo,
    /// `%globaltimer_hi`
    GlobaltimerHi,
    /// `%envreg0` … `%envreg31`: driver-provided values (grid sync reads `%envreg1/2`).
    Envreg(u8),
    /// `%dynamic_smem_size`: bytes of dynamic shared memory of the launch.
    DynamicSmemSize,
    /// `%total_smem_size`: bytes of shared memory (static and dynamic) of the CTA.
    TotalSmemSize,
    /// `%aggr_smem_size`: total shared memory including reserved bytes.
    AggrSmemSize,
    /// `%clusterid.{x,y,z}`
    Clusterid(Dim),
    /// `%nclusterid.{x,y,z}`
    Nclusterid(Dim),
    /// `%cluster_ctaid.{x,y,z}`
    ClusterCtaid(Dim),
    /// `%cluster_nctaid.{x,y,z}`
    ClusterNctaid(Dim),
    /// `%cluster_ctarank`
    ClusterCtarank,
    /// `%cluster_nctarank`
    ClusterNctarank,
    /// `%is_explicit_cluster`
    IsExplicitCluster,
    /// `%pm0` … `%pm7`: performance-monitoring counters (read as zero).
    Pm(u8),
    /// `%pm0_64` … `%pm7_64`
    Pm64(u8),
    /// `%reserved_smem_offset_begin` and friends: reserved shared-memory bounds.
    ReservedSmemOffset(ReservedSmem),
    /// `%current_graph_exec`
    CurrentGraphExec,
    /// `WARP_SZ`: the warp size of the target, a run-time constant (32).
    WarpSz,
}

/// Which reserved shared-memory bound a `%reserved_smem_offset_*` register names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReservedSmem {
    /// `%reserved_smem_offset_begin`
    Begin,
    /// `%reserved_smem_offset_end`
    End,
    /// `%reserved_smem_offset_cap`
    Cap,
    /// `%reserved_smem_offset_0` and `%reserved_smem_offset_1` (the ISA's
    /// `%reserved_smem_offset_<2>`): offsets inside the reserved region.
    Offset(u8),
}

impl SpecialReg {
    /// Whether the lanes of one warp may read different values: the thread and lane ids and
    /// the lane masks. Every other special register reads the same in the whole warp, so the
    /// interpreter reads it once per warp instruction.
    pub fn differs_by_lane(self) -> bool {
        match self {
            SpecialReg::Tid(_)
            | SpecialReg::Laneid
            | SpecialReg::LanemaskEq
            | SpecialReg::LanemaskLe
            | SpecialReg::LanemaskLt
            | SpecialReg::LanemaskGe
            | SpecialReg::LanemaskGt => true,
            SpecialReg::Ntid(_)
            | SpecialReg::Ctaid(_)
            | SpecialReg::Nctaid(_)
            | SpecialReg::Warpid
            | SpecialReg::Nwarpid
            | SpecialReg::Smid
            | SpecialReg::Nsmid
            | SpecialReg::Gridid
            | SpecialReg::Clock
            | SpecialReg::ClockHi
            | SpecialReg::Clock64
            | SpecialReg::Globaltimer
            | SpecialReg::GlobaltimerLo
            | SpecialReg::GlobaltimerHi
            | SpecialReg::Envreg(_)
            | SpecialReg::DynamicSmemSize
            | SpecialReg::TotalSmemSize
            | SpecialReg::AggrSmemSize
            | SpecialReg::Clusterid(_)
            | SpecialReg::Nclusterid(_)
            | SpecialReg::ClusterCtaid(_)
            | SpecialReg::ClusterNctaid(_)
            | SpecialReg::ClusterCtarank
            | SpecialReg::ClusterNctarank
            | SpecialReg::IsExplicitCluster
            | SpecialReg::Pm(_)
            | SpecialReg::Pm64(_)
            | SpecialReg::ReservedSmemOffset(_)
            | SpecialReg::CurrentGraphExec
            | SpecialReg::WarpSz => false,
        }
    }

    /// The register's name as written, with its `%` and component.
    pub fn name(self) -> String {
        match self {
            SpecialReg::Tid(d) => format!("%tid.{}", d.name()),
            SpecialReg::Ntid(d) => format!("%ntid.{}", d.name()),
            SpecialReg::Ctaid(d) => format!("%ctaid.{}", d.name()),
            SpecialReg::Nctaid(d) => format!("%nctaid.{}", d.name()),
            SpecialReg::Laneid => "%laneid".into(),
            SpecialReg::Warpid => "%warpid".into(),
            SpecialReg::Nwarpid => "%nwarpid".into(),
            SpecialReg::Smid => "%smid".into(),
            SpecialReg::Nsmid => "%nsmid".into(),
            SpecialReg::Gridid => "%gridid".into(),
            SpecialReg::LanemaskEq => "%lanemask_eq".into(),
            SpecialReg::LanemaskLe => "%lanemask_le".into(),
            SpecialReg::LanemaskLt => "%lanemask_lt".into(),
            SpecialReg::LanemaskGe => "%lanemask_ge".into(),
            SpecialReg::LanemaskGt => "%lanemask_gt".into(),
            SpecialReg::Clock => "%clock".into(),
            SpecialReg::ClockHi => "%clock_hi".into(),
            SpecialReg::Clock64 => "%clock64".into(),
            SpecialReg::Globaltimer => "%globaltimer".into(),
            SpecialReg::GlobaltimerLo => "%globaltimer_lo".into(),
            SpecialReg::GlobaltimerHi => "%globaltimer_hi".into(),
            SpecialReg::Envreg(n) => format!("%envreg{n}"),
            SpecialReg::DynamicSmemSize => "%dynamic_smem_size".into(),
            SpecialReg::TotalSmemSize => "%total_smem_size".into(),
            SpecialReg::AggrSmemSize => "%aggr_smem_size".into(),
            SpecialReg::Clusterid(d) => format!("%clusterid.{}", d.name()),
            SpecialReg::Nclusterid(d) => format!("%nclusterid.{}", d.name()),
            SpecialReg::ClusterCtaid(d) => format!("%cluster_ctaid.{}", d.name()),
            SpecialReg::ClusterNctaid(d) => format!("%cluster_nctaid.{}", d.name()),
            SpecialReg::ClusterCtarank => "%cluster_ctarank".into(),
            SpecialReg::ClusterNctarank => "%cluster_nctarank".into(),
            SpecialReg::IsExplicitCluster => "%is_explicit_cluster".into(),
            SpecialReg::Pm(n) => format!("%pm{n}"),
            SpecialReg::Pm64(n) => format!("%pm{n}_64"),
            SpecialReg::ReservedSmemOffset(ReservedSmem::Begin) => {
                "%reserved_smem_offset_begin".into()
            }
            SpecialReg::ReservedSmemOffset(ReservedSmem::End) => "%reserved_smem_offset_end".into(),
            SpecialReg::ReservedSmemOffset(ReservedSmem::Cap) => "%reserved_smem_offset_cap".into(),
            SpecialReg::ReservedSmemOffset(ReservedSmem::Offset(n)) => {
                format!("%reserved_smem_offset_{n}")
            }
            SpecialReg::CurrentGraphExec => "%current_graph_exec".into(),
            SpecialReg::WarpSz => "WARP_SZ".into(),
        }
    }

    /// Parses a special register name (with `%` and any `.x/.y/.z` component).
    pub fn from_name(s: &str) -> Option<SpecialReg> {
        let (base, dim) = match s.rsplit_once('.') {
            Some((b, "x")) => (b, Some(Dim::X)),
            Some((b, "y")) => (b, Some(Dim::Y)),
            Some((b, "z")) => (b, Some(Dim::Z)),
            _ => (s, None),
        };
        if let Some(d) = dim {
            return Some(match base {
                "%tid" => SpecialReg::Tid(d),
                "%ntid" => SpecialReg::Ntid(d),
                "%ctaid" => SpecialReg::Ctaid(d),
                "%nctaid" => SpecialReg::Nctaid(d),
                "%clusterid" => SpecialReg::Clusterid(d),
                "%nclusterid" => SpecialReg::Nclusterid(d),
                "%cluster_ctaid" => SpecialReg::ClusterCtaid(d),
                "%cluster_nctaid" => SpecialReg::ClusterNctaid(d),
                _ => return None,
            });
        }
        let simple = match s {
            "%laneid" => SpecialReg::Laneid,
            "%warpid" => SpecialReg::Warpid,
            "%nwarpid" => SpecialReg::Nwarpid,
            "%smid" => SpecialReg::Smid,
            "%nsmid" => SpecialReg::Nsmid,
            "%gridid" => SpecialReg::Gridid,
            "%lanemask_eq" => SpecialReg::LanemaskEq,
            "%lanemask_le" => SpecialReg::LanemaskLe,
            "%lanemask_lt" => SpecialReg::LanemaskLt,
            "%lanemask_ge" => SpecialReg::LanemaskGe,
            "%lanemask_gt" => SpecialReg::LanemaskGt,
            "%clock" => SpecialReg::Clock,
            "%clock_hi" => SpecialReg::ClockHi,
            "%clock64" => SpecialReg::Clock64,
            "%globaltimer" => SpecialReg::Globaltimer,
            "%globaltimer_lo" => SpecialReg::GlobaltimerLo,
            "%globaltimer_hi" => SpecialReg::GlobaltimerHi,
            "%dynamic_smem_size" => SpecialReg::DynamicSmemSize,
            "%total_smem_size" => SpecialReg::TotalSmemSize,
            "%aggr_smem_size" => SpecialReg::AggrSmemSize,
            "%cluster_ctarank" => SpecialReg::ClusterCtarank,
            "%cluster_nctarank" => SpecialReg::ClusterNctarank,
            "%is_explicit_cluster" => SpecialReg::IsExplicitCluster,
            "%reserved_smem_offset_begin" => SpecialReg::ReservedSmemOffset(ReservedSmem::Begin),
            "%reserved_smem_offset_end" => SpecialReg::ReservedSmemOffset(ReservedSmem::End),
            "%reserved_smem_offset_cap" => SpecialReg::ReservedSmemOffset(ReservedSmem::Cap),
            "%reserved_smem_offset_0" => SpecialReg::ReservedSmemOffset(ReservedSmem::Offset(0)),
            "%reserved_smem_offset_1" => SpecialReg::ReservedSmemOffset(ReservedSmem::Offset(1)),
            "%current_graph_exec" => SpecialReg::CurrentGraphExec,
            "WARP_SZ" => SpecialReg::WarpSz,
            _ => {
                if let Some(n) = s.strip_prefix("%envreg") {
                    let n: u8 = n.parse().ok()?;
                    return (n < 32 && !s.ends_with('+')).then_some(SpecialReg::Envreg(n));
                }
                if let Some(rest) = s.strip_prefix("%pm") {
                    if let Some(n) = rest.strip_suffix("_64") {
                        let n: u8 = n.parse().ok()?;
                        return (n < 8).then_some(SpecialReg::Pm64(n));
                    }
                    let n: u8 = rest.parse().ok()?;
                    return (n < 8).then_some(SpecialReg::Pm(n));
                }
                return None;
            }
        };
        Some(simple)
    }

    /// The register's natural type (the type a `mov` from it should use).
    pub fn ty(self) -> Type {
        match self {
            SpecialReg::Clock64
            | SpecialReg::Globaltimer
            | SpecialReg::Pm64(_)
            | SpecialReg::CurrentGraphExec => Type::U64,
            SpecialReg::Envreg(_) => Type::B32,
            SpecialReg::IsExplicitCluster => Type::Pred,
            SpecialReg::Tid(_)
            | SpecialReg::Ntid(_)
            | SpecialReg::Ctaid(_)
            | SpecialReg::Nctaid(_)
            | SpecialReg::Laneid
            | SpecialReg::Warpid
            | SpecialReg::Nwarpid
            | SpecialReg::Smid
            | SpecialReg::Nsmid
            | SpecialReg::LanemaskEq
            | SpecialReg::LanemaskLe
            | SpecialReg::LanemaskLt
            | SpecialReg::LanemaskGe
            | SpecialReg::LanemaskGt
            | SpecialReg::Clock
            | SpecialReg::ClockHi
            | SpecialReg::GlobaltimerLo
            | SpecialReg::GlobaltimerHi
            | SpecialReg::DynamicSmemSize
            | SpecialReg::TotalSmemSize
            | SpecialReg::AggrSmemSize
            | SpecialReg::Clusterid(_)
            | SpecialReg::Nclusterid(_)
            | SpecialReg::ClusterCtaid(_)
            | SpecialReg::ClusterNctaid(_)
            | SpecialReg::ClusterCtarank
            | SpecialReg::ClusterNctarank
            | SpecialReg::Pm(_)
            | SpecialReg::ReservedSmemOffset(_)
            | SpecialReg::WarpSz => Type::U32,
            SpecialReg::Gridid => Type::U64,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let regs = [
            SpecialReg::Tid(Dim::Y),
            SpecialReg::Nctaid(Dim::Z),
            SpecialReg::Laneid,
            SpecialReg::LanemaskLt,
            SpecialReg::Envreg(31),
            SpecialReg::Pm64(3),
            SpecialReg::Pm(7),
            SpecialReg::ClusterCtaid(Dim::X),
            SpecialReg::Clock64,
            SpecialReg::WarpSz,
            SpecialReg::ReservedSmemOffset(ReservedSmem::Offset(0)),
            SpecialReg::ReservedSmemOffset(ReservedSmem::Offset(1)),
            SpecialReg::ReservedSmemOffset(ReservedSmem::Cap),
        ];
        for r in regs {
            assert_eq!(SpecialReg::from_name(&r.name()), Some(r), "{}", r.name());
        }
        assert_eq!(SpecialReg::from_name("%envreg32"), None);
        assert_eq!(SpecialReg::from_name("%tid.w"), None);
        assert_eq!(SpecialReg::from_name("%r1"), None);
        // `<2>` in the ISA's syntax means two registers, numbered 0 and 1.
        assert_eq!(SpecialReg::from_name("%reserved_smem_offset_2"), None);
    }
}
