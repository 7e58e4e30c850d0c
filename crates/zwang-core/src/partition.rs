//! Partitions: the islands of a system, the parts that contacts and joints
//! couple.

/// A union-find over `n` items with path halving and union by size.
#[derive(Debug, Clone, Default)]
pub struct UnionFind {
    parent: Vec<usize>,
    size: Vec<usize>,
}

impl UnionFind {
    /// `n` singletons.
    pub fn new(n: usize) -> Self {
        let mut uf = UnionFind::default();
        uf.reset(n);
        uf
    }

    /// Back to `n` singletons, reusing the memory.
    pub fn reset(&mut self, n: usize) {
        self.parent.clear();
        self.parent.extend(0..n);
        self.size.clear();
        self.size.resize(n, 1);
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.parent.len()
    }

    /// Whether there are no items.
    pub fn is_empty(&self) -> bool {
        self.parent.is_empty()
    }

    /// The representative of `x`'s set.
    pub fn find(&mut self, mut x: usize) -> usize {
        while self.parent[x] != x {
            self.parent[x] = self.parent[self.parent[x]];
            x = self.parent[x];
        }
        x
    }

    /// Joins the sets of `a` and `b`; returns whether they were apart.
    pub fn union(&mut self, a: usize, b: usize) -> bool {
        let (mut a, mut b) = (self.find(a), self.find(b));
        if a == b {
            return false;
        }
        if self.size[a] < self.size[b] {
            std::mem::swap(&mut a, &mut b);
        }
        self.parent[b] = a;
        self.size[a] += self.size[b];
        true
    }

    /// Labels `0..k` of the sets, in order of first appearance, written to
    /// `labels` (one per item); returns `k`.
    pub fn labels(&mut self, labels: &mut Vec<usize>) -> usize {
        let n = self.len();
        labels.clear();
        labels.resize(n, usize::MAX);
        let mut next = 0;
        for x in 0..n {
            let root = self.find(x);
            if labels[root] == usize::MAX {
                labels[root] = next;
                next += 1;
            }
            labels[x] = labels[root];
        }
        next
    }

    /// The sets' members, in increasing order, the sets numbered as
    /// [`UnionFind::labels`] numbers them (whose labels are written to
    /// `labels`).
    pub fn groups(&mut self, labels: &mut Vec<usize>) -> Vec<Vec<usize>> {
        let count = self.labels(labels);
        let mut groups = vec![Vec::new(); count];
        for (x, &l) in labels.iter().enumerate() {
            groups[l].push(x);
        }
        groups
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_number_the_sets_in_order_of_first_appearance() {
        let mut uf = UnionFind::new(6);
        assert!(uf.union(4, 1));
        assert!(uf.union(2, 5));
        assert!(!uf.union(1, 4));
        assert!(uf.union(5, 0));
        let mut labels = Vec::new();
        assert_eq!(uf.labels(&mut labels), 3);
        assert_eq!(labels, vec![0, 1, 0, 2, 1, 0]);
        let groups = uf.groups(&mut labels);
        assert_eq!(groups, vec![vec![0, 2, 5], vec![1, 4], vec![3]]);
        assert_eq!(labels, vec![0, 1, 0, 2, 1, 0]);
    }
}
