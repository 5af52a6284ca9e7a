//! Parent chains without quadratic walks or recursion: a file can hold a chain of 100,000
//! nodes, each the only child of the one before.

/// For each node, whether walking up its parents comes round in a loop (the node is on a cycle
/// or hangs below one). A parent index out of range ends the walk as a root would. Each node is
/// walked once: linear in the number of nodes.
pub(crate) fn reaches_cycle(parents: &[Option<usize>]) -> Vec<bool> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Unseen,
        /// On the trail of the walk that started at this node.
        Trail(usize),
        Rooted,
        Cyclic,
    }
    let n = parents.len();
    let mut state = vec![State::Unseen; n];
    for start in 0..n {
        let mut at = Some(start);
        let cyclic = loop {
            let Some(i) = at.filter(|&i| i < n) else {
                break false;
            };
            match state[i] {
                State::Rooted => break false,
                State::Cyclic => break true,
                State::Trail(s) if s == start => break true,
                _ => {}
            }
            state[i] = State::Trail(start);
            at = parents[i];
        };
        let mark = if cyclic { State::Cyclic } else { State::Rooted };
        let mut at = Some(start);
        while let Some(i) = at.filter(|&i| i < n && state[i] == State::Trail(start)) {
            state[i] = mark;
            at = parents[i];
        }
    }
    state.into_iter().map(|s| s == State::Cyclic).collect()
}

/// Each node's depth (the number of parents above it), in linear time: a node's depth is its
/// parent's plus one, each found once. Nodes on a cycle or below one, where depth has no
/// meaning, get the node count (so sorting by depth puts them last).
pub(crate) fn depths(parents: &[Option<usize>]) -> Vec<usize> {
    let n = parents.len();
    let cyclic = reaches_cycle(parents);
    let mut depth: Vec<Option<usize>> = (0..n).map(|i| cyclic[i].then_some(n)).collect();
    let mut trail = Vec::new();
    for start in 0..n {
        // Up to a node whose depth is known (or a root), then down the trail.
        let mut at = start;
        let mut base = loop {
            if let Some(d) = depth[at] {
                break d;
            }
            trail.push(at);
            match parents[at].filter(|&p| p < n) {
                Some(p) => at = p,
                None => break usize::MAX,
            }
        };
        while let Some(i) = trail.pop() {
            let d = if base == usize::MAX { 0 } else { base + 1 };
            depth[i] = Some(d);
            base = d;
        }
    }
    depth.into_iter().map(|d| d.unwrap_or(n)).collect()
}

#[cfg(test)]
mod tests {
    use super::{depths, reaches_cycle};

    #[test]
    fn depths_of_chains_trees_and_loops() {
        let p = [None, Some(0), Some(1), Some(4), Some(3), Some(0), Some(99)];
        assert_eq!(depths(&p), [0, 1, 2, 7, 7, 1, 0]);
        let chain: Vec<Option<usize>> = (0..200_000usize).map(|i| i.checked_sub(1)).collect();
        let d = depths(&chain);
        assert!(d.iter().enumerate().all(|(i, &d)| d == i));
    }

    #[test]
    fn loops_and_what_hangs_below_them() {
        // 0 ← 1 ← 2 (a chain), 3 ⇄ 4 (a loop) with 5 below 4, 6 with a parent out of range.
        let p = [None, Some(0), Some(1), Some(4), Some(3), Some(4), Some(99)];
        assert_eq!(
            reaches_cycle(&p),
            [false, false, false, true, true, true, false]
        );
        let chain: Vec<Option<usize>> = (0..200_000usize).map(|i| i.checked_sub(1)).collect();
        assert!(reaches_cycle(&chain).iter().all(|&c| !c));
        let mut ring = chain;
        ring[0] = Some(199_999);
        assert!(reaches_cycle(&ring).iter().all(|&c| c));
    }
}
