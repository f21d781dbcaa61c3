//! The only door to the outside world: the rooted filesystem, systemd, other programs.
//!
//! Nothing else in osctl touches the host directly: commands and planners go through
//! [`fs::RootFs`] for files, [`services::Services`] for systemd, [`process`] for programs and
//! [`http`] and [`net`] for the network, [`clock`] and [`random`] for time and chance
//! ([`interrupt`] for signals), so `--root` is honoured everywhere and tests can replace each one.

pub mod clock;
pub mod fs;
pub(crate) mod http;
pub(crate) mod interrupt;
pub(crate) mod mounts;
pub(crate) mod net;
pub(crate) mod process;
pub(crate) mod random;
pub mod services;
