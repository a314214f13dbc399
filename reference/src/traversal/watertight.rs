//! Watertightness (`vk.watertight.*`): a ray through an edge two triangles
//! share, or through the shared vertex of a closed fan, hits exactly one of
//! them — never both, never neither.
//!
//! The reference finds the triangles a ray passes within implementation
//! precision of an edge of; among those that share that edge (or vertex),
//! exactly one is hit, and every one of them may be it. A triangle near an
//! edge it shares with none may be hit or not.

use crate::choice::Chooser;
use crate::mutation::{self, Mutation};

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

/// Whether the triangles around a vertex form a closed fan
/// (`vk.watertight.closed_fan_def`): three or more, every edge at the vertex
/// shared by exactly two of them (`vk.watertight.closed_fan.edges_shared_by_two`).
fn closed_fan(tris: &[&NearEdge], vertex: Vertex) -> bool {
    if tris.len() < 3 {
        return false;
    }
    let edges_at = |t: &NearEdge| -> Vec<(Vertex, Vertex)> {
        (0..3)
            .filter(|&i| t.vertices[i] != vertex)
            .map(|i| edge(t, i))
            .collect()
    };
    let all: Vec<(Vertex, Vertex)> = tris.iter().flat_map(|t| edges_at(t)).collect();
    all.iter()
        .all(|e| all.iter().filter(|x| *x == e).count() == 2)
}

/// Decides which of the near-edge triangles the ray hits: returns one flag
/// per triangle. Through a shared edge (away from its ends) exactly one of
/// the two is hit (`vk.watertight.no_double_hit_shared_edge`); through the
/// shared vertex of a closed fan exactly one of the fan
/// (`vk.watertight.no_double_hit_closed_fan_vertex`); anything else, such as
/// the vertex of an open fan or an edge no other triangle shares, may be hit
/// or not, each triangle on its own.
pub fn resolve(tris: &[NearEdge], chooser: &mut dyn Chooser) -> Vec<bool> {
    let n = tris.len();
    let mut parent: Vec<usize> = (0..n).collect();
    let join = |parent: &mut Vec<usize>, a: usize, b: usize| {
        let (ra, rb) = (find(parent, a), find(parent, b));
        parent[ra] = rb;
    };
    // Shared edges, for rays near an edge but not near its ends.
    for a in 0..n {
        for b in a + 1..n {
            if near_vertex(&tris[a]).is_some() || near_vertex(&tris[b]).is_some() {
                continue;
            }
            let edges_a: Vec<_> = (0..3)
                .filter(|&i| tris[a].near[i])
                .map(|i| edge(&tris[a], i))
                .collect();
            if (0..3)
                .filter(|&i| tris[b].near[i])
                .any(|i| edges_a.contains(&edge(&tris[b], i)))
            {
                join(&mut parent, a, b);
            }
        }
    }
    // Closed fans, for rays near their shared vertex.
    let mut vertices: Vec<Vertex> = (0..n).filter_map(|i| near_vertex(&tris[i])).collect();
    vertices.sort();
    vertices.dedup();
    for v in vertices {
        let members: Vec<usize> = (0..n)
            .filter(|&i| near_vertex(&tris[i]) == Some(v))
            .collect();
        let fan: Vec<&NearEdge> = members.iter().map(|&i| &tris[i]).collect();
        if closed_fan(&fan, v) {
            for w in members.windows(2) {
                join(&mut parent, w[0], w[1]);
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
        if g.len() == 1 {
            keep[g[0]] = chooser.choose(
                2,
                "a ray within implementation precision of a triangle edge",
            ) == 0;
        } else if mutation::active(Mutation::WatertightDoubleHit) {
            g.iter().for_each(|&i| keep[i] = true);
        } else if mutation::active(Mutation::WatertightLastTriangle) {
            keep[g[g.len() - 1]] = true;
        } else {
            let pick = chooser.choose(
                g.len(),
                "which triangle a ray through a shared edge or closed-fan vertex hits",
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
