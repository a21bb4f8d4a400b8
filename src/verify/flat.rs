//! Lists of lists kept flat: one vector of every member and one of where each list
//! starts, so that a million short lists take two allocations rather than a million.
//! The verifiers' indexes (papers by trie node, names by surname) are built this way.

/// Groups `members`, given as (group, member) pairs, by group with a counting sort:
/// group `g`'s members are `flat[start[g]..start[g + 1]]`, in the order the pairs
/// came, for every `g` below `groups` (which must exceed every group given).
/// Time: O(groups + pairs).
pub(crate) fn group_flat<T: Copy + Default>(
    groups: usize,
    members: &[(u32, T)],
) -> (Vec<usize>, Vec<T>) {
    let mut start = vec![0usize; groups + 1];
    for &(group, _) in members {
        start[group as usize + 1] += 1;
    }
    for group in 0..groups {
        start[group + 1] += start[group];
    }
    let mut next = start.clone();
    let mut flat = vec![T::default(); members.len()];
    for &(group, member) in members {
        flat[next[group as usize]] = member;
        next[group as usize] += 1;
    }
    (start, flat)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn each_group_holds_its_members_in_the_order_given(
            members in proptest::collection::vec((0u32..6, 0u16..1000), 0..40),
        ) {
            let (start, flat) = group_flat(6, &members);
            prop_assert_eq!(start.len(), 7);
            prop_assert_eq!(flat.len(), members.len());
            for group in 0..6u32 {
                let expected: Vec<u16> = members
                    .iter()
                    .filter(|(g, _)| *g == group)
                    .map(|&(_, m)| m)
                    .collect();
                let g = group as usize;
                prop_assert_eq!(&flat[start[g]..start[g + 1]], expected.as_slice());
            }
        }
    }
}
