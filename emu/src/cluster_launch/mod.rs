//! Cluster launch control (PTX ISA "clusterlaunchcontrol.try_cancel",
//! "clusterlaunchcontrol.query_cancel"): the instructions' syntax, rules, lowering and
//! execution, and the launch-wide record of which clusters started or were canceled that the
//! grid scheduler and `try_cancel` share ([`control`]).

pub mod control;
pub mod decoded;
pub mod exec;
pub mod lower;
pub mod syntax;
pub mod validate;
