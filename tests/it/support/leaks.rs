//! Finding planted secrets in a text, for the audits (`reset_audit`, `reliability_secrets`):
//! does any run of `RUN` characters of any planted value appear in an output or a file?
//!
//! One Aho-Corasick automaton over every run of every value reads the text once. A substring
//! search per run (the first way, about thirty per value) read it once per run, and was most of
//! those two suites' CPU time: a third of a profiled run of both went to `str::contains`.

use aho_corasick::AhoCorasick;

/// The length of the runs looked for: a value that shows only in shorter pieces does not count
/// as shown (a value shorter than this is looked for whole).
pub const RUN: usize = 12;

/// The planted values, ready to be looked for: build it once per set of values, then ask it of
/// every text (building the automaton costs more than one search).
pub struct Leaks {
    automaton: Option<AhoCorasick>,
    /// For each pattern, the value it is a run of.
    owner: Vec<usize>,
}

impl Leaks {
    pub fn new<'v>(values: impl IntoIterator<Item = &'v str>) -> Leaks {
        let mut patterns: Vec<&[u8]> = Vec::new();
        let mut owner = Vec::new();
        for (i, value) in values.into_iter().enumerate() {
            let starts: Vec<usize> = value.char_indices().map(|(at, _)| at).collect();
            if starts.len() <= RUN {
                patterns.push(value.as_bytes());
                owner.push(i);
                continue;
            }
            for w in 0..=starts.len() - RUN {
                let end = starts.get(w + RUN).copied().unwrap_or(value.len());
                patterns.push(&value.as_bytes()[starts[w]..end]);
                owner.push(i);
            }
        }
        let automaton = (!patterns.is_empty())
            .then(|| AhoCorasick::new(&patterns).expect("the runs make an automaton"));
        Leaks { automaton, owner }
    }

    /// The index, in the order given, of the first value one of whose [`RUN`]-character runs
    /// (or the whole value, when shorter) occurs in `hay`.
    pub fn first(&self, hay: &[u8]) -> Option<usize> {
        self.automaton
            .as_ref()?
            .find_overlapping_iter(hay)
            .map(|m| self.owner[m.pattern().as_usize()])
            .min()
    }
}

#[test]
fn a_run_of_a_value_is_found_and_a_shorter_piece_is_not() {
    let leaks = Leaks::new(["short", "0123456789abcdefghij", "ünïcödé-välüe-of-twenty"]);
    assert_eq!(leaks.first(b"nothing here"), None);
    assert_eq!(leaks.first(b"a short one"), Some(0));
    assert_eq!(leaks.first(b"..89abcdefghij.."), Some(1));
    // 11 characters of the second value: not shown.
    assert_eq!(leaks.first(b"..9abcdefghij"), None);
    // 12 characters, 15 bytes, of the third.
    assert_eq!(leaks.first("xxödé-välüe-ofxx".as_bytes()), Some(2));
    assert_eq!(leaks.first("xxdé-välüe-ofxx".as_bytes()), None);
    // Both present: the first in the given order is named.
    assert_eq!(leaks.first(b"0123456789ab and short"), Some(0));
}
