//! The axioms of the PTX models and of `sc`, each checked against one candidate execution
//! over the choice-independent relations of [`Statics`] (memory-model spec §6).

use crate::rel::Rel;

use super::{Axiom, Choice, Model, Statics, Violation};

impl Statics {
    /// No-thin-air: `acyclic(rf | addr | data | ctrl)`.
    pub fn no_thin_air(&self, rf: &Rel) -> Result<(), Violation> {
        if self.deps.is_empty() {
            // rf alone has no path of two edges (it ends at reads, which it never leaves).
            return Ok(());
        }
        let r = rf.union(&self.deps);
        if r.acyclic() {
            return Ok(());
        }
        match r.find_cycle() {
            None => Ok(()),
            Some(c) => Err(self.labelled(Axiom::NoThinAir, c, &[("rf", rf), ("dep", &self.deps)])),
        }
    }

    /// Causality: `irreflexive((rf | fr); cause)`.
    pub fn causality(&self, rf: &Rel, fr: &Rel, cause: &Rel) -> Result<(), Violation> {
        let rf_fr = rf.union(fr);
        let bad = rf_fr.seq(cause);
        for x in 0..self.n {
            if bad.has(x, x) {
                for y in 0..self.n {
                    if rf_fr.has(x, y) && cause.has(y, x) {
                        let first = if rf.has(x, y) { "rf" } else { "fr" };
                        return Err(Violation {
                            axiom: Axiom::Causality,
                            cycle: vec![x, y],
                            edges: vec![first.into(), "cause".into()],
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Fence-SC: `irreflexive(sc ; cause)`, the Fence-SC order never contradicts causality
    /// (vacuous in v7.5, whose cause relates only memory events). The inclusion form
    /// `[F&SC];cause;[F&SC] ⊆ sc` is equivalent only where sc relates every pair: sc relates
    /// only morally strong fences, and the inclusion would forbid every execution in which a
    /// `fence.sc.cta` is causally before a `fence.sc` of another CTA.
    pub fn fence_sc(&self, sc: &Rel, cause: &Rel) -> Result<(), Violation> {
        for (a, b) in sc.pairs() {
            if a != b && cause.has(b, a) {
                return Err(Violation {
                    axiom: Axiom::FenceSc,
                    cycle: vec![a, b],
                    edges: vec!["sc".into(), "cause".into()],
                });
            }
        }
        Ok(())
    }

    /// Atomicity: `empty(((ms & fr); (ms & co)) & rmw)`.
    pub fn atomicity(&self, fr: &Rel, co: &Rel) -> Result<(), Violation> {
        if self.rmw.is_empty() {
            return Ok(());
        }
        self.no_write_inside_rmw(&self.ms.inter(fr), &self.ms.inter(co))
    }

    /// `empty((fr; co) & rmw)`: no write comes between an RMW's read and its write.
    fn no_write_inside_rmw(&self, fr: &Rel, co: &Rel) -> Result<(), Violation> {
        if self.rmw.is_empty() {
            return Ok(());
        }
        for (r, w) in self.rmw.pairs() {
            for mid in 0..self.n {
                if fr.has(r, mid) && co.has(mid, w) {
                    return Err(Violation {
                        axiom: Axiom::Atomicity,
                        cycle: vec![r, mid, w],
                        edges: vec!["fr".into(), "co".into(), "rmw^-1".into()],
                    });
                }
            }
        }
        Ok(())
    }

    /// SC-per-location: `acyclic((ms & (rf | co | fr)) | po-loc)` (v6.0 only).
    pub fn sc_per_location(&self, rf: &Rel, co: &Rel, fr: &Rel) -> Result<(), Violation> {
        let com = self.ms.inter(&rf.union(co).union(fr));
        let r = com.union(&self.po_loc);
        if r.acyclic() {
            return Ok(());
        }
        match r.find_cycle() {
            None => Ok(()),
            Some(c) => Err(self.labelled(
                Axiom::ScPerLocation,
                c,
                &[
                    ("rf", &rf.inter(&self.ms)),
                    ("co", &co.inter(&self.ms)),
                    ("fr", &fr.inter(&self.ms)),
                    ("po-loc", &self.po_loc),
                ],
            )),
        }
    }

    /// Labels each edge of a cycle with the first named relation containing it.
    pub fn labelled(&self, axiom: Axiom, cycle: Vec<usize>, rels: &[(&str, &Rel)]) -> Violation {
        let k = cycle.len();
        let edges = (0..k)
            .map(|i| {
                let (a, b) = (cycle[i], cycle[(i + 1) % k]);
                rels.iter()
                    .find(|(_, r)| r.has(a, b))
                    .map_or("?".to_string(), |(n, _)| n.to_string())
            })
            .collect();
        Violation {
            axiom,
            cycle,
            edges,
        }
    }

    /// `fr = rf^-1 ; co`.
    pub fn fr(rf: &Rel, co: &Rel) -> Rel {
        rf.inverse().seq(co)
    }

    /// Checks every axiom of the model for a complete candidate (`cause` precomputed).
    pub fn check(&self, ch: &Choice, cause: &Rel) -> Result<(), Violation> {
        let fr = Statics::fr(&ch.rf, &ch.co);
        match self.model {
            Model::Sc => self.sc_model(ch, &fr),
            Model::PtxV60 | Model::PtxV75 => {
                self.no_thin_air(&ch.rf)?;
                self.atomicity(&fr, &ch.co)?;
                if self.model == Model::PtxV60 {
                    self.fence_sc(&ch.sc, cause)?;
                    self.sc_per_location(&ch.rf, &ch.co, &fr)?;
                }
                self.causality(&ch.rf, &fr, cause)
            }
        }
    }

    /// The SC model: a single interleaving explains everything (barriers order what precedes
    /// one thread's barrier before what follows its partner's).
    fn sc_model(&self, ch: &Choice, fr: &Rel) -> Result<(), Violation> {
        self.no_write_inside_rmw(fr, &ch.co)?;
        let bar = self.po.seq(&ch.syncbar.inter(&self.scta)).seq(&self.po);
        let hb = self.po.union(&ch.rf).union(&ch.co).union(fr).union(&bar);
        if hb.acyclic() {
            return Ok(());
        }
        match hb.find_cycle() {
            None => Ok(()),
            Some(c) => Err(self.labelled(
                Axiom::SequentialConsistency,
                c,
                &[
                    ("po", &self.po),
                    ("rf", &ch.rf),
                    ("co", &ch.co),
                    ("fr", fr),
                    ("bar", &bar),
                ],
            )),
        }
    }
}
