//! Carrying out a plan: the device lock, the journal of originals, atomic durable writes,
//! service actions and commands, rollback on failure.

pub mod atomic;
pub mod journal;
pub mod lock;
