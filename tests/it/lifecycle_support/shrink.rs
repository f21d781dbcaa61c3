//! The shrinker: a failing sequence cut down to the fewest, simplest operations.

use super::ops::Sequence;

/// Shrinks `seq` while it still shows a violation with `signature`: drops chunks of
/// operations (halves, quarters, … single ones), then simplifies single operations (a crash
/// without its kill, a switch without its fault). At most `budget` replays.
pub fn shrink(
    seq: &Sequence,
    still: &mut dyn FnMut(&Sequence) -> bool,
    budget: usize,
) -> (Sequence, usize) {
    let mut best = seq.clone();
    let mut tries = 0;
    let mut chunks = 2usize;
    while best.ops.len() > 1 && tries < budget {
        let len = best.ops.len();
        let size = len.div_ceil(chunks);
        let mut improved = false;
        let mut start = 0;
        while start < len && tries < budget {
            let mut cand = best.clone();
            cand.ops.drain(start..(start + size).min(len));
            tries += 1;
            if !cand.ops.is_empty() && still(&cand) {
                best = cand;
                improved = true;
                break;
            }
            start += size;
        }
        if improved {
            chunks = chunks.saturating_sub(1).max(2);
        } else if size == 1 {
            break;
        } else {
            chunks = (chunks * 2).min(len);
        }
    }
    // Simplify single operations.
    let mut i = 0;
    while i < best.ops.len() && tries < budget {
        let mut replaced = false;
        for alt in best.ops[i].simpler() {
            if tries >= budget {
                break;
            }
            let mut cand = best.clone();
            cand.ops.splice(i..=i, alt);
            tries += 1;
            if still(&cand) {
                best = cand;
                replaced = true;
                break;
            }
        }
        if !replaced {
            i += 1;
        }
    }
    (best, tries)
}
