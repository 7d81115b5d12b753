//! The checkers subscribed to one CTA's hooks ([`Observers`]).

use crate::exec::l1::L1System;
use crate::exec::nc_check::NcTracker;
use crate::race::CtaRace;

/// The checkers that observe one CTA's execution (each `None` when its option is off).
#[derive(Default)]
pub struct Observers<'a> {
    /// The race detector's state of the CTA, with `--race`.
    pub(crate) race: Option<&'a mut CtaRace>,
    /// The `--check-nc` record, when the check is on.
    pub(crate) nc: Option<&'a NcTracker>,
    /// The L1 caches, with `--cache-model l1`.
    pub(crate) l1: Option<&'a L1System>,
}

impl<'a> Observers<'a> {
    /// The subscribers of a CTA.
    pub fn new(
        race: Option<&'a mut CtaRace>,
        nc: Option<&'a NcTracker>,
        l1: Option<&'a L1System>,
    ) -> Observers<'a> {
        Observers { race, nc, l1 }
    }
}
