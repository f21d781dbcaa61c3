//! Format-preserving editors for the files osctl shares with people and runtimes.
