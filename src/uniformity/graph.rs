//! The spec's uniformity graph for one function: nodes, directed edges ("if the source must be
//! uniform, so must the target"), reachability, and the shortest path that explains a verdict.

use std::collections::VecDeque;

/// A node's index in its [`Graph`].
pub(crate) type NodeId = usize;

/// What a node stands for, which decides how a reason chain mentions it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Plumbing: never mentioned.
    Plain,
    /// `MayBeNonUniform`.
    MayBeNonUniform,
    /// `CF_start`.
    CfStart,
    /// `param_i` or `param_i_contents`.
    Param,
    /// Control flow inside a branch: `if` condition, `switch` selector, the right of `&&`/`||`.
    Condition,
    /// Control flow after a statement that may `return`, `break` or `continue` non-uniformly.
    Exit,
    /// Control flow at the start of each loop iteration.
    LoopHead,
    /// A `break if` condition's control flow.
    BreakIf,
    /// A value: an expression, or a variable after an assignment or a join.
    Value,
    /// A direct source of non-uniformity; its edge goes to `MayBeNonUniform`.
    Source,
}

/// One node: its kind, the prepared-text span it describes, and a short description.
#[derive(Clone, Debug)]
pub(crate) struct Node {
    pub kind: Kind,
    pub span: naga::Span,
    pub text: String,
}

/// A directed graph with described nodes.
#[derive(Clone, Debug, Default)]
pub(crate) struct Graph {
    pub nodes: Vec<Node>,
    edges: Vec<Vec<NodeId>>,
    /// The edges reversed (for each node, the nodes with an edge to it), kept as edges are
    /// added: the searches toward a node ran several times per function, each rebuilding it.
    reverse: Vec<Vec<NodeId>>,
}

impl Graph {
    /// Adds a node and returns its id.
    pub fn add(&mut self, kind: Kind, span: naga::Span, text: impl Into<String>) -> NodeId {
        self.nodes.push(Node {
            kind,
            span,
            text: text.into(),
        });
        self.edges.push(Vec::new());
        self.reverse.push(Vec::new());
        self.nodes.len() - 1
    }

    /// Adds a plumbing node with edges to `targets`.
    pub fn join(&mut self, targets: &[NodeId]) -> NodeId {
        let n = self.add(Kind::Plain, naga::Span::UNDEFINED, "");
        for &t in targets {
            self.edge(n, t);
        }
        n
    }

    /// Adds the edge `from -> to`.
    pub fn edge(&mut self, from: NodeId, to: NodeId) {
        if from != to && !self.edges[from].contains(&to) {
            self.edges[from].push(to);
            self.reverse[to].push(from);
        }
    }

    /// The targets of `n`'s edges.
    pub fn successors(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        self.edges[n].iter().copied()
    }

    /// Every node reachable from `starts` (the starts included).
    pub fn reachable(&self, starts: &[NodeId]) -> Vec<bool> {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<NodeId> = starts.to_vec();
        for &s in starts {
            seen[s] = true;
        }
        while let Some(n) = stack.pop() {
            for &m in &self.edges[n] {
                if !seen[m] {
                    seen[m] = true;
                    stack.push(m);
                }
            }
        }
        seen
    }

    /// Every node from which one of `targets` is reachable (the targets included).
    pub fn reaching(&self, targets: &[NodeId]) -> Vec<bool> {
        let reverse = &self.reverse;
        let mut seen = vec![false; self.nodes.len()];
        let mut stack: Vec<NodeId> = targets.to_vec();
        for &t in targets {
            seen[t] = true;
        }
        while let Some(n) = stack.pop() {
            for &m in &reverse[n] {
                if !seen[m] {
                    seen[m] = true;
                    stack.push(m);
                }
            }
        }
        seen
    }

    /// Each node's distance to the nearest of `targets`, found once, so that many paths to
    /// them cost their own length each rather than a search of the graph each.
    pub fn toward(&self, targets: &[NodeId]) -> Toward {
        let reverse = &self.reverse;
        let mut distance = vec![u32::MAX; self.nodes.len()];
        let mut queue = VecDeque::new();
        for &t in targets {
            if distance[t] != 0 {
                distance[t] = 0;
                queue.push_back(t);
            }
        }
        while let Some(n) = queue.pop_front() {
            for &m in &reverse[n] {
                if distance[m] == u32::MAX {
                    distance[m] = distance[n] + 1;
                    queue.push_back(m);
                }
            }
        }
        Toward { distance }
    }

    /// The shortest path from `from` to a node satisfying `is_target` (both ends included).
    pub fn path(&self, from: NodeId, is_target: impl Fn(NodeId) -> bool) -> Option<Vec<NodeId>> {
        let mut parent: Vec<Option<NodeId>> = vec![None; self.nodes.len()];
        let mut seen = vec![false; self.nodes.len()];
        let mut queue = VecDeque::from([from]);
        seen[from] = true;
        while let Some(n) = queue.pop_front() {
            if is_target(n) {
                let mut path = vec![n];
                let mut at = n;
                while let Some(p) = parent[at] {
                    path.push(p);
                    at = p;
                }
                path.reverse();
                return Some(path);
            }
            for &m in &self.edges[n] {
                if !seen[m] {
                    seen[m] = true;
                    parent[m] = Some(n);
                    queue.push_back(m);
                }
            }
        }
        None
    }
}

/// Distances to a set of targets ([`Graph::toward`]).
pub(crate) struct Toward {
    distance: Vec<u32>,
}

impl Toward {
    /// Whether a target is reachable from `n` (`n` itself included).
    pub fn reaches(&self, n: NodeId) -> bool {
        self.distance[n] != u32::MAX
    }

    /// The path [`Graph::path`] finds from `from` to the targets, without searching: the
    /// breadth-first search there returns, of the shortest paths, the one whose edge choices
    /// come first in edge order, which is the path that at each node takes the first edge one
    /// step nearer a target.
    pub fn path(&self, g: &Graph, from: NodeId) -> Option<Vec<NodeId>> {
        if !self.reaches(from) {
            return None;
        }
        let mut path = vec![from];
        let mut at = from;
        while self.distance[at] > 0 {
            let next = self.distance[at] - 1;
            at = g
                .successors(at)
                .find(|&m| self.distance[m] == next)
                .expect("a node one step nearer");
            path.push(at);
        }
        Some(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_and_reach() {
        let mut g = Graph::default();
        let a = g.add(Kind::Plain, naga::Span::UNDEFINED, "a");
        let b = g.add(Kind::Plain, naga::Span::UNDEFINED, "b");
        let c = g.add(Kind::Plain, naga::Span::UNDEFINED, "c");
        let d = g.add(Kind::Plain, naga::Span::UNDEFINED, "d");
        g.edge(a, b);
        g.edge(b, c);
        g.edge(a, c);
        g.edge(c, a);
        assert_eq!(g.path(a, |n| n == c), Some(vec![a, c]));
        assert_eq!(g.path(a, |n| n == d), None);
        assert_eq!(g.reachable(&[b]), vec![true, true, true, false]);
        assert_eq!(g.reaching(&[b]), vec![true, true, true, false]);
    }

    #[test]
    fn toward_finds_the_paths_that_path_finds() {
        let mut rng = fastrand::Rng::with_seed(36);
        for _ in 0..300 {
            let mut g = Graph::default();
            let n = rng.usize(1..40);
            for _ in 0..n {
                g.add(Kind::Plain, naga::Span::UNDEFINED, "");
            }
            for _ in 0..rng.usize(0..n * 3) {
                g.edge(rng.usize(..n), rng.usize(..n));
            }
            let targets: Vec<NodeId> = (0..rng.usize(1..4)).map(|_| rng.usize(..n)).collect();
            let toward = g.toward(&targets);
            let reaching = g.reaching(&targets);
            for (from, &reaches) in reaching.iter().enumerate() {
                assert_eq!(toward.reaches(from), reaches);
                assert_eq!(
                    toward.path(&g, from),
                    g.path(from, |m| targets.contains(&m))
                );
            }
        }
    }
}
