//! PTX litmus tests: the herd/Dat3M file format, conditions, and the orchestration that runs
//! each thread through the `emu` interpreter in event mode and hands the events to `models`.
