//! Watertightness (`vk.watertight.*`): a ray through an edge two triangles
//! share, or through the shared vertex of a closed fan, hits exactly one of
//! them — never both, never neither.
//!
//! The reference finds the triangles a ray passes within implementation
//! precision of an edge of; among those that share that edge (or vertex),
//! exactly one is hit, and every one of them may be it. A triangle near an
//! edge it shares with none may be hit or not.

use crate::choice::Chooser;

/// A triangle the ray passes near an edge of.
#[derive(Clone, Debug)]
pub struct NearEdge {
    /// The triangle's vertices, as bit patterns (shared means identical).
    pub vertices: [[u32; 3]; 3],
    /// For each edge opposite vertex `i`: whether the ray is near it.
    pub near: [bool; 3],
}

type Vertex = [u32; 3];

fn edge(t: &NearEdge, i: usize) -> (Vertex, Vertex) {
    let (a, b) = (t.vertices[(i + 1) % 3], t.vertices[(i + 2) % 3]);
    if a <= b {
        (a, b)
    } else {
        (b, a)
    }
}

/// The vertex between two near edges, if the ray is near two of them.
fn near_vertex(t: &NearEdge) -> Option<Vertex> {
    let n: Vec<usize> = (0..3).filter(|&i| t.near[i]).collect();
    // Edges i and j meet at the vertex that is neither opposite.
    (n.len() >= 2).then(|| t.vertices[3 - n[0] - n[1]])
}

fn find(parent: &mut [usize], i: usize) -> usize {
    if parent[i] != i {
        let root = find(parent, parent[i]);
        parent[i] = root;
    }
    parent[i]
}

/// Decides which of the near-edge triangles the ray hits: returns one flag
/// per triangle (`vk.watertight.no_double_hit_shared_edge`,
/// `vk.watertight.no_double_hit_closed_fan_vertex`).
pub fn resolve(tris: &[NearEdge], chooser: &mut dyn Chooser) -> Vec<bool> {
    let n = tris.len();
    let mut parent: Vec<usize> = (0..n).collect();
    let mut shared_edge = vec![false; n];
    for a in 0..n {
        for b in a + 1..n {
            let edges_a: Vec<_> = (0..3)
                .filter(|&i| tris[a].near[i])
                .map(|i| edge(&tris[a], i))
                .collect();
            let shares_edge = (0..3)
                .filter(|&i| tris[b].near[i])
                .any(|i| edges_a.contains(&edge(&tris[b], i)));
            let shares_vertex = matches!((near_vertex(&tris[a]), near_vertex(&tris[b])), (Some(x), Some(y)) if x == y);
            if shares_edge || shares_vertex {
                shared_edge[a] = true;
                shared_edge[b] = true;
                let (ra, rb) = (find(&mut parent, a), find(&mut parent, b));
                parent[ra] = rb;
            }
        }
    }
    let mut keep = vec![false; n];
    let roots: Vec<usize> = (0..n).map(|i| find(&mut parent, i)).collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for i in 0..n {
        match groups.iter_mut().find(|g| roots[g[0]] == roots[i]) {
            Some(g) => g.push(i),
            None => groups.push(vec![i]),
        }
    }
    for g in groups {
        if g.len() == 1 && !shared_edge[g[0]] {
            keep[g[0]] = chooser.choose(
                2,
                "a ray within implementation precision of a triangle edge",
            ) == 0;
        } else {
            let pick = chooser.choose(
                g.len(),
                "which triangle a ray through a shared edge or vertex hits",
            );
            keep[g[pick]] = true;
        }
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::choice::ChoiceLog;

    fn v(x: f32, y: f32) -> [u32; 3] {
        [x.to_bits(), y.to_bits(), 0]
    }

    #[test]
    fn shared_edge_hits_exactly_one_in_every_exploration() {
        // Two triangles sharing the edge (0,0)-(1,1); the ray is near it.
        let a = NearEdge {
            vertices: [v(0.0, 0.0), v(1.0, 0.0), v(1.0, 1.0)],
            near: [false, true, false],
        };
        let b = NearEdge {
            vertices: [v(0.0, 0.0), v(1.0, 1.0), v(0.0, 1.0)],
            near: [false, false, true],
        };
        let mut log = ChoiceLog::default();
        let mut seen = Vec::new();
        loop {
            log.start_run();
            seen.push(resolve(&[a.clone(), b.clone()], &mut log));
            if !log.advance() {
                break;
            }
        }
        assert_eq!(seen, vec![vec![true, false], vec![false, true]]);
    }
}
